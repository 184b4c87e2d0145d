"""PC101 dynamic-prefix: a per-request, clock or random value renders before static text."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterator

from jinja2 import TemplateSyntaxError, nodes

from advisor.ingest.prompt_files import ROLE_LINE, PromptFileError, prompty_body
from advisor.lint.fix import UNSAFE, Edit, Fix
from advisor.lint.lines import Lines
from advisor.lint.model import DATE, RANDOM, REQUEST, Segment, Settings, Taint, TemplateModel, make_environment
from advisor.lint.rule import Context, Option, Problem, Rule, shared_tokens_after, snippet
from advisor.lint import python as py

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
flight; it is reported as information, with that lower cost named in the message.

The severity follows what is at stake: an error from `error_min_tokens` (256) static tokens
after the value, or when a chat template's conversation follows it (the whole conversation
is then at risk); a warning from `warning_min_tokens` (16, one vLLM KV block); information
below one block (a clock followed only by `)` or `Question:`). In a chat template the
conversation, the system message and the tools are the caller's text, not per-request
values; the last message (`messages[-1]`) and any caller kwarg rendered as text are.

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
        "Clock, date and random values are reported whenever any static text follows, "
        "and any value before a chat template's conversation is.",
    ),
    "error_min_tokens": Option(
        int,
        256,
        "Tokens at risk from which a finding is an error (16 vLLM blocks; about where prefilling "
        "them again stops being nearly free, see docs/lint.md). Fewer are a warning.",
    ),
    "warning_min_tokens": Option(
        int,
        16,
        "Tokens at risk below which a finding is information: less than one vLLM KV block "
        "(16 tokens) of prefill.",
    ),
}

_COST = {
    REQUEST: "differs between requests, so {what} cannot be shared and {are} recomputed for every request",
    DATE: "changes once a day: requests of one day share the prefix, but {what} {are} recomputed after every midnight and "
          "cached once per day (one miss per day per prefix, far cheaper than a per-request value, still avoidable)",
    RANDOM: "is different on every request, so {what} can never be served from the prefix cache",
}
_CLOCK_COST = "changes on every request, so {what} can never be served from the prefix cache"
# The same cost in the words the Python check formats ("{n}" stands for the count).
_CLOCK = "changes on every request, so the {n} static tokens after it can never be served from the prefix cache"


def severity(taint: Taint, n: int, conversation: bool, options: dict[str, Any]) -> str:
    """How much is at stake: a date costs one miss per day (information); any other value is
    an error above the token floor or before a chat template's conversation, a warning below
    it, information below one KV block."""
    if taint.kind == DATE:
        return "info"
    if conversation or n >= options["error_min_tokens"]:
        return "error"
    return "warning" if n >= options["warning_min_tokens"] else "info"


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
        conversation = model.conversation_after(i)
        if not conversation and (n == 0 or (not taint.timed and n < floor)):
            continue
        static = f"the {n} static token{'' if n == 1 else 's'} after it"
        what = f"{static} and the conversation that follows" if conversation else static
        cost = _COST.get(taint.kind, _CLOCK_COST).format(what=what, are="is" if n == 1 and not conversation else "are")
        kind = "loop" if seg.construct == "for" else "value"
        pin = f" (or pin `{taint.kwarg}` in chat_template_kwargs)" if taint.kwarg else ""
        yield Problem(
            seg.line,
            seg.column,
            f"{snippet(seg.text)} renders {taint.reason}{_where(seg, taint)} before static text; this {kind} {cost}. "
            f"Move it after the static text{pin}.",
            seg.end_line,
            seg.end_column,
            tokens_at_risk=n,
            fix=_move_fix(model, i),
            severity=severity(taint, n, conversation, ctx.options),
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
    # A line that is a paragraph of its own (at the top of what renders, or after a blank
    # line) takes the blank lines below it along and is set apart by them at its new place:
    # left behind, they would open the prompt (or the gap it leaves) with blank lines that
    # were never text.
    top = start == 0 or (model.kind == "jinja" and _renders_only_space(source[:start]))
    gap = ""
    if top or source.endswith("\n\n", 0, start):
        blank = len(source) - len(source[end:].lstrip("\n"))
        if blank > end and blank < stop:
            end, gap = blank, source[end:blank]
    if top and _leads_with_break(source[end:stop]):
        return None  # every rendered prompt would start with the line break left behind
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
_BLOCK_TAGS = re.compile(r"\{%.*?%\}|\{#.*?#\}", re.DOTALL)


def _renders_only_space(text: str) -> bool:
    """Whether ``text`` renders nothing but whitespace: block tags, comments and blank lines."""
    return "{{" not in text and not _BLOCK_TAGS.sub("", text).strip()


def _leads_with_break(rest: str) -> bool:
    """Whether ``rest``, at the top of what renders, would render a line break first: a blank
    line, or a line of block tags and comments whose break Jinja keeps (no `-` at its end)."""
    if "\n" not in rest:
        return False
    first = rest.split("\n", 1)[0]
    if "{{" in first or _BLOCK_TAGS.sub("", first).strip():
        return False  # the line renders text before its break
    return not first.rstrip().endswith(("-%}", "-#}"))


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


PYTHON_DOCS = """
## In Python prompt builders
Reports a value that differs between requests and is put into a prompt *before* static
text: the clock (`datetime.now()`, `time.time()`, `date.today()`, `time.strftime(...)`,
arrow and pendulum), ids and random values (`uuid.uuid4()`, `random.*`, `secrets.*`,
`os.urandom`), a list shuffled or sampled at random (`random.shuffle(examples)`), and
per-request data (a function's parameters, a request's attributes and JSON body) followed
by at least `min_tokens_at_risk` static tokens. The finding sits where the value is put
into the text (the f-string placeholder, the `%` or `.format` argument, the message
`content`); a shuffle is reported at the shuffle. Content of the last message, after the
rest of the prompt, is the request's own and is never reported.
```python
system = f"Current time: {datetime.now():%H:%M}\n{POLICY}"   # PC101
client.chat.completions.create(model=MODEL, messages=[
    {"role": "system", "content": system}, {"role": "user", "content": question}])
```
Use instead: keep the system prompt constant and send the time with the question:
```python
client.chat.completions.create(model=MODEL, messages=[
    {"role": "system", "content": POLICY},
    {"role": "user", "content": f"{question}\n\n(Sent at {datetime.now():%H:%M})"}])
```
No fix for Python: moving a value is a change of code, not of text.
"""

_PY_COST = {
    "request": "differs between requests, so {tokens} after it cannot be shared and {are} recomputed for every request",
    "element": "differs from one prompt to the next, so {tokens} after it cannot be shared between them",
    "date": "changes once a day, so {tokens} after it {are} recomputed after every midnight and cached once per day",
    "random": "is different on every request, so {tokens} after it can never be served from the prefix cache",
    "shuffle": "is different on every request, so {tokens} after it can never be served from the prefix cache",
}


def check_python(model: py.PythonModel, ctx: Context) -> Iterator[Problem]:
    floor = ctx.options["min_tokens_at_risk"]
    for site in py.sites_for(model, "PC101"):
        n, early = py.weigh(site, ctx.count_tokens)
        timed = site.kind in py.TIMED
        if n < floor and not (timed and (early or site.unknown_after)):
            continue
        cost = _PY_COST.get(site.kind, _CLOCK.replace("the {n} static tokens", "{tokens}")).format(tokens=py.tokens(n), are=py.are(n))
        taint = Taint(site.kind if site.kind in (DATE, RANDOM, "clock") else RANDOM if site.kind == "shuffle" else REQUEST)
        yield py.problem(site, f"{site.what} before static text; this {site.noun} {cost}. Move it after the static text "
                               "(e.g. into the last user message).", n, severity(taint, n, False, ctx.options))


RULE = Rule(
    code="PC101",
    name="dynamic-prefix",
    severity="error",
    summary="a per-request value or a clock/random call renders before static text",
    docs=DOCS + PYTHON_DOCS,
    scope="template",
    check=check,
    options=OPTIONS,
    module=__name__,
    python=check_python,
)
