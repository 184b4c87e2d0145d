"""PC202 prefix-drift: templates share most of a long prefix but diverge early."""

from __future__ import annotations

from collections import defaultdict
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
"""

OPTIONS = {
    "min_tokens_after": Option(int, 64, "Only report when at least this many tokens after the differing line could be shared."),
    "max_lines": Option(int, 4000, "Compare at most this many lines of each static prefix."),
}


def _prefix_lines(model: TemplateModel, max_lines: int) -> list[tuple[str, int]]:
    """The static prefix as (line text, source line) pairs; constant spans as placeholders."""
    end = model.prefix_end(include_timed=False)
    lines: list[tuple[str, int]] = []
    buf: list[str] = []
    start = 0
    for seg in model.segments[:end]:
        if seg.construct == "role" or (seg.kind == "static" and not seg.guard.volatile):
            text = seg.text
            row = seg.line
        elif seg.kind == "dynamic" and seg.has_output and not seg.effective.timed:
            text, row = "\x00" + " ".join(seg.text.split()), seg.line
        else:
            continue
        parts = text.split("\n")
        for k, part in enumerate(parts):
            if not buf and not start:
                start = row + k if k else (row or 1)
            buf.append(part)
            if k < len(parts) - 1:
                lines.append(("".join(buf), start))
                buf, start = [], row + k + 1
        if len(lines) >= max_lines:
            break
    if buf:
        lines.append(("".join(buf), start))
    return lines[:max_lines]


def check(models: list[TemplateModel], ctx: Context) -> Iterator[Problem]:
    groups: dict[str, list[TemplateModel]] = defaultdict(list)
    for model in models:
        groups[model.path.rsplit("/", 1)[0] if "/" in model.path else "."].append(model)
    for _, group in sorted(groups.items()):
        if len(group) >= 2:
            yield from _check_group(sorted(group, key=lambda m: m.path), ctx)


def _check_group(group: list[TemplateModel], ctx: Context) -> Iterator[Problem]:
    floor = ctx.options["min_tokens_after"]
    prefixes = {m.path: _prefix_lines(m, ctx.options["max_lines"]) for m in group}
    # Two prefixes equal but for line i share the hash of lines[:i] and of lines[i+1:].
    by_key: dict[tuple[int, int, int], list[tuple[str, str, int]]] = defaultdict(list)
    for path, lines in prefixes.items():
        texts = [t for t, _ in lines]
        n = len(texts)
        heads = [0] * (n + 1)
        for i, t in enumerate(texts):
            heads[i + 1] = hash((heads[i], t))
        tails = [0] * (n + 1)
        for i in range(n - 1, -1, -1):
            tails[i] = hash((texts[i], tails[i + 1]))
        for i in range(n - 1):
            by_key[(i, heads[i], tails[i + 1])].append((path, texts[i], lines[i][1]))
    reported: set[str] = set()
    for (i, _, _), members in sorted(by_key.items(), key=lambda kv: kv[0][0]):
        variants: dict[str, list[tuple[str, int]]] = defaultdict(list)
        for path, text, line in members:
            variants[text].append((path, line))
        if len(variants) < 2:
            continue
        top = max(len(v) for v in variants.values())
        majority = [t for t, v in variants.items() if len(v) == top]
        reference = majority[0] if len(majority) == 1 else None
        rest = prefixes[members[0][0]][i + 1:]
        after = sum(ctx.count_tokens(t + "\n") for t, _ in rest if not t.startswith("\x00"))
        if after < floor:
            continue
        for text, holders in sorted(variants.items(), key=lambda kv: kv[1]):
            if text == reference:
                continue
            other_text = reference if reference is not None else next(t for t in sorted(variants) if t != text)
            other_path = variants[other_text][0][0]
            for path, line in holders:
                if path in reported:
                    continue
                reported.add(path)
                how = " (they differ only in whitespace)" if text.strip() == other_text.strip() else ""
                yield Problem(
                    line,
                    1,
                    f"the static prefix matches {other_path} except at this line{how}: {_show(text)} vs {_show(other_text)}; the {after} tokens after it cannot be shared between them. Make the line identical or move the difference after the shared text.",
                    tokens_at_risk=after,
                    path=path,
                )


def _show(text: str) -> str:
    text = text.replace("\x00", "")
    shown = text if len(text) <= 50 else text[:47] + "..."
    return repr(shown)


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
