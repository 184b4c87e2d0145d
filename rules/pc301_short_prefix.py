"""PC301 short-prefix: the static prefix is shorter than the cacheable minimum."""

from __future__ import annotations

from typing import Iterator

from advisor.lint.model import TemplateModel
from advisor.lint.rule import Context, Option, Problem, Rule, shared_tokens

DOCS = """\
## What it does
Counts the tokens of the static prefix — the static text before the first per-request
value (clock and random values, which PC101 reports and which can be moved, are looked
past) — and reports templates whose prefix is shorter than `min_tokens`. Templates whose
prefix includes constant content of unknown length (`{{ tools|tojson }}`, includes) are
not judged.

## Why is this bad?
Hosted prompt caches only cache prefixes of at least 1,024 tokens (the common minimum),
and self-hosted engines cache whole blocks, so a short prefix saves little or nothing. It is
an information finding: the template may be fine, but prefix caching will not help it
unless more stable content (instructions, tool schemas, examples) moves into the prefix.

## Example
```jinja
Answer briefly.
Question: {{ question }}
```

## Use instead
Put the long, stable parts (instructions, tool schemas, few-shot examples) first, so that
the shared prefix reaches the minimum:
```jinja
You are the Corvina documentation assistant. ... (1,000+ tokens of stable instructions)
Question: {{ question }}
```

## Fix safety
No fix: the remedy is more stable content, which only its author can write.
"""

OPTIONS = {
    "min_tokens": Option(int, 1024, "The smallest prefix worth caching, in tokens of the chosen tokenizer."),
}


def check(model: TemplateModel, ctx: Context) -> Iterator[Problem]:
    end = model.prefix_end(include_timed=False)
    prefix = model.segments[:end]
    if any(s.kind == "dynamic" and s.has_output and s.construct != "if" for s in prefix if not s.effective.timed):
        return  # constant content of unknown length: cannot tell
    n = shared_tokens(model, [s for s in prefix if s.is_shared_text], ctx.count_tokens)
    floor = ctx.options["min_tokens"]
    if n >= floor:
        return
    line, column = (model.segments[end].line, model.segments[end].column) if end < len(model.segments) else (1, 1)
    yield Problem(
        line,
        column,
        f"the static prefix is {n} tokens, below the {floor}-token minimum that prefix caches need; move more stable content before the first per-request value",
        tokens_at_risk=n,
    )


RULE = Rule(
    code="PC301",
    name="short-prefix",
    severity="info",
    summary="the static prefix is shorter than the cacheable minimum",
    docs=DOCS,
    scope="template",
    check=check,
    options=OPTIONS,
    module=__name__,
)
