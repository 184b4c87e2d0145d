"""PC101 dynamic-prefix: a per-request, clock or random value renders before static text."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator

from jinja2 import TemplateSyntaxError, nodes

from advisor.ingest.prompt_files import ROLE_LINE, PromptFileError, prompty_body
from advisor.lint.fix import UNSAFE, Edit, Fix
from advisor.lint.lines import Lines
from advisor.lint.model import DATE, RANDOM, REQUEST, Segment, Settings, Taint, TemplateModel, make_environment
from advisor.lint.rule import Context, Option, Problem, Rule, shared_tokens_after, snippet

DOCS = """\
## What it does
Reports a value that differs between requests and renders *before* static text: a
per-request variable (`{{ user_name }}`), a loop over per-request data, or a clock,
date, random or UUID call (`strftime_now(...)`, `now()`, `uuid4()`). The message counts
the static tokens after it, tokenized with the chosen tokenizer: those tokens can no longer
be served from the prefix cache.

## Why is this bad?
Prefix caching (SGLang RadixAttention, vLLM automatic prefix caching, hosted prompt
caching) reuses the KV cache only for an *identical* token prefix. Everything after the
first token that differs is recomputed. A timestamp on line 1 of a 2,000-token system
prompt makes all 2,000 tokens prefill work on every request. A value that changes only
once a day (a date) is cheaper: requests of the same day still share the prefix, but the
whole prefix is recomputed after each midnight and the cache holds one copy per day in
flight; it is still reported, with that lower cost named in the message.

## Example
```jinja
Current date and time: {{ now }}
You are the support assistant for Corvina. Follow these rules ...
Question: {{ question }}
```

## Use instead
Put every per-request value after the static text, e.g. in the user turn:
```jinja
You are the support assistant for Corvina. Follow these rules ...
Current date and time: {{ now }}
Question: {{ question }}
```

## Fix safety
Unsafe fix (`--unsafe-fixes`): a line that holds nothing but the reported value and its own label
(e.g. `Current date and time: {{ now }}`), and that no later line refers to, is moved after the
last static text of its message (the end of the file, or of its Prompty role section). Lines
inside a loop, branch, macro, block, `with` or `filter`, and lines next to whitespace control
(`{%-`, `-%}`) that would strip or glue text differently after the move, are left alone. The
static text renders exactly as before, but the prompt changes (the
value now comes later), which may change what the model does: review the diff.
"""

OPTIONS = {
    "min_tokens_at_risk": Option(
        int,
        32,
        "Per-request values followed by fewer static tokens than this are not reported: "
        "short trailing scaffolding such as `Question:` costs almost nothing to recompute. "
        "Clock, date and random values are reported whenever any static text follows.",
    ),
}

_COST = {
    REQUEST: "differs between requests, so the {n} static tokens after it cannot be shared and are recomputed for every request",
    DATE: "changes once a day: requests of one day share the prefix, but the {n} static tokens after it are recomputed after every midnight and cached once per day (a lower cost than a per-request value, still avoidable)",
    RANDOM: "is different on every request, so the {n} static tokens after it can never be served from the prefix cache",
}
_CLOCK = "changes on every request, so the {n} static tokens after it can never be served from the prefix cache"


def check(model: TemplateModel, ctx: Context) -> Iterator[Problem]:
    floor = ctx.options["min_tokens_at_risk"]
    for i, seg in enumerate(model.segments):
        if seg.kind != "dynamic" or seg.construct == "if" or not seg.has_output:
            continue
        taint = seg.taint
        # Inside a loop or branch that is itself per-request, the enclosing construct is the finding.
        if not taint.volatile or taint.rank <= seg.guard.rank:
            continue
        n = shared_tokens_after(model, i, ctx.count_tokens)
        if n == 0 or (not taint.timed and n < floor):
            continue
        cost = _COST.get(taint.kind, _CLOCK).format(n=n)
        what = "loop" if seg.construct == "for" else "value"
        pin = f" (or pin `{taint.kwarg}` in chat_template_kwargs)" if taint.kwarg else ""
        yield Problem(
            seg.line,
            seg.column,
            f"{snippet(seg.text)} renders {taint.reason}{_where(seg, taint)} before static text; this {what} {cost}. Move it after the static text{pin}.",
            seg.end_line,
            seg.end_column,
            tokens_at_risk=n,
            fix=_move_fix(model, i),
        )


# Only a plain template or a Prompty body keeps its text in file order with nothing around
# it; in a chat template the end of the file is the generation prompt.
_MOVABLE_KINDS = ("jinja", "prompty")


# (model, per segment whether a dynamic loop/branch/call encloses it, line start offsets)
# of the last model: asked per finding, a scan of every segment and line was quadratic.
_LAYOUT: list[Any] = [None, [], []]


def _layout(model: TemplateModel) -> tuple[list[bool], list[int]]:
    if _LAYOUT[0] is not model or len(_LAYOUT[1]) != len(model.segments):
        n = len(model.segments)
        depth = [0] * (n + 1)
        for j, s in enumerate(model.segments):
            if s.kind == "dynamic" and s.construct in ("for", "if", "call") and s.end_index > j + 1:
                depth[j + 1] += 1
                depth[min(s.end_index, n)] -= 1
        enclosed, run = [], 0
        for k in range(n):
            run += depth[k]
            enclosed.append(run > 0)
        starts = Lines(model.source).starts
        _LAYOUT[:] = [model, enclosed, starts]
    return _LAYOUT[1], _LAYOUT[2]


def _move_fix(model: TemplateModel, index: int) -> Fix | None:
    """Move the value's line after the last static text of its message (the end of the file,
    or of its Prompty role section), when the line holds nothing but this one output and its
    own static label, directly in the template body (outside every loop, branch, macro,
    block, `with` or `filter`), and no whitespace control around it or at the destination
    would glue or strip text differently once it moved."""
    seg = model.segments[index]
    source = model.source
    if model.kind not in _MOVABLE_KINDS or seg.construct not in ("output", "call") or seg.line != seg.end_line or not source:
        return None
    enclosed, starts = _layout(model)
    if enclosed[index]:
        return None
    if seg.line not in _top_level_output_lines(model) or _body(model).extends or _rebound_later(model, seg.line):
        return None
    start = starts[seg.line - 1] if seg.line - 1 < len(starts) else len(source)
    nl = source.find("\n", start)
    end = len(source) if nl < 0 else nl + 1
    line = source[start:end]
    body = line.rstrip("\n")
    if body.count("{{") != 1 or "{%" in body or "{#" in body or "{{-" in body or "-}}" in body or not body.strip():
        return None
    if body[body.index("{{"):].split("}}", 1)[-1].strip():
        return None  # text after the value on its line would still follow it
    stop = _section_end(model, end)
    if source[start:stop].lstrip("\n").strip() == body.strip():
        return None  # already the last line of its message
    # A `-` tag after the line strips the newline the line owns; one above it would strip the
    # next line's indentation once the line is gone (or this line's, which moves back); one
    # before the destination would glue the moved line to the line above it.
    if source[end:].lstrip().startswith(_TRIM_OPENERS) or _trims_after(source[:stop]):
        return None
    if _trims_after(source[:start]) and (body[:1].isspace() or source[end:end + 1].isspace()):
        return None
    # A line that is a paragraph of its own (at the top, or after a blank line) takes the
    # blank lines below it along and is set apart by them at its new place: left behind, they
    # would open the prompt (or the gap it leaves) with blank lines that were never text.
    gap = ""
    if start == 0 or source.endswith("\n\n", 0, start):
        blank = len(source) - len(source[end:].lstrip("\n"))
        if blank > end and blank < stop:
            end, gap = blank, source[end:blank]
    # The model's text has "\n" breaks only; the fix writes the file's own (lint.fix.carry).
    if stop < len(source) or source.endswith("\n"):
        moved = gap + body + "\n"
    else:
        moved = "\n" + gap + body
    where = "to the end of its message" if stop < len(source) else "to the end of the file"
    return Fix(
        UNSAFE,
        f"move line {seg.line} after the static text, {where}",
        (Edit(start, end, ""), Edit(stop, stop, moved)),
    )


_TRIM_OPENERS = ("{%-", "{{-", "{#-")


def _trims_after(text: str) -> bool:
    return text.rstrip().endswith(("-%}", "-}}", "-#}"))


def _section_end(model: TemplateModel, after: int) -> int:
    """Where the message holding offset ``after`` ends: the next Prompty role line, or the
    end of the file."""
    if model.kind != "prompty":
        return len(model.source)
    m = ROLE_LINE.search(model.source, after)
    if m is None:
        return len(model.source)
    # Before the blank lines that set the next role line apart.
    last = len(model.source[: m.start()].rstrip())
    return max(after, model.source.find("\n", last) + 1)


@dataclass(frozen=True)
class _Body:
    """What a move needs to know of the template body, parsed once per model."""

    reads: dict[int, frozenset[str]]  # file line of a top-level value -> the names it reads
    bound: tuple[tuple[int, str], ...]  # (file line, name) of every binding in the template
    extends: bool  # a child template: what renders is the parent's, around its blocks


# (model, body) of the last model: asked per finding, the parse is done once per model.
_TOP_LEVEL: list[Any] = [None, _Body({}, (), False)]


def _top_level_output_lines(model: TemplateModel) -> set[int]:
    """File lines of the values that render directly in the template body."""
    return set(_body(model).reads)


def _body(model: TemplateModel) -> _Body:
    if _TOP_LEVEL[0] is not model:
        _TOP_LEVEL[:] = [model, _parse_body(model)]
    return _TOP_LEVEL[1]


def _rebound_later(model: TemplateModel, line: int) -> bool:
    """Whether a name the values on ``line`` read is bound again further down (a `set`, a
    loop, a macro, an import): moved below it, the line would print that value instead."""
    body = _body(model)
    names = body.reads.get(line, frozenset())
    return any(at > line and name in names for at, name in body.bound)


def _parse_body(model: TemplateModel) -> _Body:
    text, above = model.source, 0
    if model.kind == "prompty":
        try:
            text, above = prompty_body(text)
        except PromptFileError:
            return _Body({}, (), False)
    try:
        ast = make_environment(Settings(), chat=False).parse(text)
    except (TemplateSyntaxError, RecursionError):
        return _Body({}, (), False)
    reads: dict[int, set[str]] = {}
    for node in ast.body:
        if isinstance(node, nodes.Output):
            for child in node.nodes:
                if not isinstance(child, nodes.TemplateData):
                    names = {n.name for n in child.find_all(nodes.Name)} | ({child.name} if isinstance(child, nodes.Name) else set())
                    reads.setdefault(child.lineno + above, set()).update(names)
    bound = []
    for target in ast.find_all((nodes.Name, nodes.NSRef)):
        if isinstance(target, nodes.NSRef) or target.ctx in ("store", "param"):
            bound.append((target.lineno + above, target.name))
    for node in ast.find_all((nodes.Macro, nodes.Import, nodes.FromImport)):
        if isinstance(node, nodes.Macro):
            bound.append((node.lineno + above, node.name))
        elif isinstance(node, nodes.Import):
            bound.append((node.lineno + above, node.target))
        else:
            bound.extend((node.lineno + above, n[1] if isinstance(n, tuple) else n) for n in node.names)
    extends = any(True for _ in ast.find_all(nodes.Extends))
    return _Body({k: frozenset(v) for k, v in reads.items()}, tuple(bound), extends)


def _where(seg: Segment, taint: Taint) -> str:
    """Where the value was produced, when that is not the rendering line itself."""
    parts = []
    if taint.file:
        parts.append(f"produced at {taint.origin()}")  # in an included or imported file
    elif taint.line and taint.line != seg.line:
        parts.append(f"set at {taint.origin()}")
    if taint.via:
        parts.append(f"reaching it as {taint.via}")
    return f" ({', '.join(parts)})" if parts else ""


RULE = Rule(
    code="PC101",
    name="dynamic-prefix",
    severity="error",
    summary="a per-request value or a clock/random call renders before static text",
    docs=DOCS,
    scope="template",
    check=check,
    options=OPTIONS,
    module=__name__,
)
