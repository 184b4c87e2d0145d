"""PC202 prefix-drift: templates share most of a long prefix but diverge early."""

from __future__ import annotations

import bisect
from collections import defaultdict
from dataclasses import dataclass
from typing import Iterator

from advisor.lint.model import TemplateModel
from advisor.lint.rule import Context, Option, Problem, Rule

DOCS = """\
## What it does
Within one set of templates (the templates of one folder), finds templates whose static
prefixes are identical except for one line — a changed word, a different name, trailing
whitespace — and reports the first differing line of the templates that deviate from the
majority (every one of them when there is no majority), with the number of tokens after it
that the templates could otherwise share.

## Why is this bad?
A prefix cache matches token by token from the start. Two 3,000-token system prompts that
differ in line 2 share only line 1: the other 2,990 tokens are cached twice and prefilled
twice, although the texts are almost the same. Whitespace-only differences are the most
frustrating case: invisible in review, fatal for the cache.

## Example
```jinja
{# billing.j2 #}
You are the Corvina assistant for billing questions.
Follow the rules below. ... (2,000 shared tokens)
{# support.j2 #}
You are the Corvina assistant for support questions.
Follow the rules below. ... (2,000 shared tokens)
```

## Use instead
Keep the shared text identical and move what differs after it:
```jinja
You are the Corvina assistant.
Follow the rules below. ... (2,000 shared tokens)
Your area: billing questions.
```

## Fix safety
No fix: merging two templates' prefixes is an editorial change.
"""

OPTIONS = {
    "min_tokens_after": Option(int, 64, "Only report when at least this many tokens after the differing line could be shared."),
    "max_lines": Option(int, 4000, "Compare at most this many lines of each static prefix.", minimum=1),
}


@dataclass
class _Prefix:
    """A template's static prefix as lines, with what is needed to map a line back to the file."""

    lines: list[str]
    starts: list[int]  # offset of each segment's text in the joined prefix
    segs: list[tuple[int, str]]  # (source line, text) of each segment
    _tails: list[int] | None = None

    def tails(self) -> list[int]:
        # tails[i] identifies lines[i:]; computed only for templates that reach a divergence.
        if self._tails is None:
            t = [0] * (len(self.lines) + 1)
            for i in range(len(self.lines) - 1, -1, -1):
                t[i] = hash((self.lines[i], t[i + 1]))
            self._tails = t
        return self._tails

    def source_line(self, index: int) -> int:
        offset = sum(len(x) + 1 for x in self.lines[:index])
        k = max(0, bisect.bisect_right(self.starts, offset) - 1)
        line, text = self.segs[k]
        return line + text.count("\n", 0, max(0, offset - self.starts[k]))


def _prefix(model: TemplateModel, max_lines: int) -> _Prefix:
    end = model.prefix_end(include_timed=False)
    parts: list[str] = []
    starts: list[int] = []
    segs: list[tuple[int, str]] = []
    size = 0
    for seg in model.segments[:end]:
        if seg.construct == "role" or (seg.kind == "static" and not seg.guard.volatile):
            text = seg.text
        elif seg.kind == "dynamic" and seg.has_output and not seg.effective.timed:
            # Constant content of unknown text (tools|tojson): equal source, equal output.
            text = "\x00" + " ".join(seg.text.split())
        else:
            continue
        starts.append(size)
        segs.append((seg.line, text))
        parts.append(text)
        size += len(text)
    lines = "".join(parts).split("\n")[:max_lines]
    return _Prefix(lines, starts, segs)


def check(models: list[TemplateModel], ctx: Context) -> Iterator[Problem]:
    groups: dict[str, list[TemplateModel]] = defaultdict(list)
    for model in models:
        groups[model.path.rsplit("/", 1)[0] if "/" in model.path else "."].append(model)
    for _, group in sorted(groups.items()):
        if len(group) >= 2:
            yield from _check_group(sorted(group, key=lambda m: m.path), ctx)


def _divergences(prefixes: dict[str, _Prefix]) -> list[tuple[int, list[tuple[str, str]]]]:
    """Groups of templates equal except at line i: (i, [(path, line i text), ...]).

    Walks a trie of shared leading lines, so the cost follows how much templates share,
    not the square of their number.
    """
    found = []
    stack = [(0, sorted(prefixes))]
    while stack:
        i, paths = stack.pop()
        by_line: dict[str, list[str]] = defaultdict(list)
        for p in paths:
            if i < len(prefixes[p].lines) - 1:  # a divergence needs shared lines after it
                by_line[prefixes[p].lines[i]].append(p)
        if len(by_line) >= 2:
            by_tail: dict[int, list[tuple[str, str]]] = defaultdict(list)
            for text, ps in by_line.items():
                for p in ps:
                    by_tail[prefixes[p].tails()[i + 1]].append((p, text))
            for members in by_tail.values():
                if len({t for _, t in members}) >= 2:
                    found.append((i, sorted(members)))
        for ps in by_line.values():
            if len(ps) >= 2:
                stack.append((i + 1, ps))
    return sorted(found)


def _check_group(group: list[TemplateModel], ctx: Context) -> Iterator[Problem]:
    floor = ctx.options["min_tokens_after"]
    prefixes = {m.path: _prefix(m, ctx.options["max_lines"]) for m in group}
    reported: set[str] = set()
    for i, members in _divergences(prefixes):
        variants: dict[str, list[str]] = defaultdict(list)
        for path, text in members:
            variants[text].append(path)
        top = max(len(v) for v in variants.values())
        majority = [t for t, v in variants.items() if len(v) == top]
        reference = majority[0] if len(majority) == 1 else None
        rest = prefixes[members[0][0]].lines[i + 1:]
        after = sum(ctx.count_tokens(t + "\n") for t in rest if not t.startswith("\x00"))
        if after < floor:
            continue
        for text, holders in sorted(variants.items(), key=lambda kv: kv[1]):
            if text == reference:
                continue
            other_text = reference if reference is not None else next(t for t in sorted(variants, key=lambda t: variants[t]) if t != text)
            other_path = variants[other_text][0]
            for path in holders:
                if path in reported:
                    continue
                reported.add(path)
                how = " (they differ only in whitespace)" if text.strip() == other_text.strip() else ""
                tail = bool(how) and len(text) > 50
                yield Problem(
                    prefixes[path].source_line(i),
                    1,
                    f"the static prefix matches {other_path} except at this line{how}: {_show(text, tail)} vs {_show(other_text, tail)}; the {after} tokens after it cannot be shared between them. Make the line identical or move the difference after the shared text.",
                    tokens_at_risk=after,
                    path=path,
                )


def _show(text: str, tail: bool = False) -> str:
    text = text.replace("\x00", "")
    if len(text) <= 50:
        return repr(text)
    # A whitespace difference sits at the end of the line: show that end.
    return "..." + repr(text[-40:]) if tail else repr(text[:47] + "...")


RULE = Rule(
    code="PC202",
    name="prefix-drift",
    severity="warning",
    summary="templates share most of a long prefix but diverge early",
    docs=DOCS,
    scope="set",
    check=check,
    options=OPTIONS,
    module=__name__,
)
