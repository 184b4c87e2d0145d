"""PC401 caller-kwarg: a caller kwarg with a constant default renders before static text."""

from __future__ import annotations

from typing import Iterator

from advisor.lint.model import KWARG, TemplateModel
from advisor.lint.rule import Context, Problem, Rule, shared_tokens_after, snippet

DOCS = """\
## What it does
Reports a template variable that the template itself gives a constant default
(`{% if not date_string is defined %}{% set date_string = "26 Jul 2024" %}{% endif %}`,
`{{ persona | default("...") }}`) and that renders before static text. It names the kwarg
to pin in the serving stack's `chat_template_kwargs`.

## Why is this bad?
It is not bad by itself, which is why this is an information finding: while no request
passes the kwarg, the default renders and the prefix is the same for every request (the
official Llama 3.1 and 3.3 templates do this with `date_string`). It only varies when the
serving stack or a client sets it per request, e.g. today's date in `date_string` or a
per-request `reasoning_effort`, and then everything after it misses the prefix cache.
Measured: changing `reasoning_effort` through `chat_template_kwargs` between turns re-ran
the whole 42k-token prefill (54.5 s against 5.4 s cached), because the value renders near
the top of the prompt
(https://github.com/MiaAI-Lab/GLM-5.3-Flash-EXL3-2x-DGX-Sparks/issues/111).

## Example
```jinja
{%- if not date_string is defined %}{%- set date_string = "26 Jul 2024" %}{%- endif %}
{{- "Today Date: " + date_string + "\\n\\n" }}
You are a helpful assistant ...
```

## Use instead
Keep the template and pin the kwarg where requests are made, one value per deployment:
```json
{"chat_template_kwargs": {"date_string": "26 Jul 2024"}}
```
or render it after the static text.

## Fix safety
No fix: the template is correct; the pin belongs in the serving configuration.
"""


def check(model: TemplateModel, ctx: Context) -> Iterator[Problem]:
    seen: set[tuple[int, str]] = set()
    for i, seg in enumerate(model.segments):
        taint = seg.taint
        if seg.kind != "dynamic" or seg.construct == "if" or not seg.has_output or taint.kind != KWARG:
            continue
        if seg.guard.volatile or (seg.line, taint.kwarg) in seen:
            continue
        n = shared_tokens_after(model, i, ctx.count_tokens)
        if n == 0:
            continue
        seen.add((seg.line, taint.kwarg))
        where = f" set at {taint.origin()}" if taint.line and (taint.line != seg.line or taint.file) else ""
        yield Problem(
            seg.line,
            seg.column,
            f"{snippet(seg.text)} renders {taint.reason}{where} before {n} static tokens. The prefix is stable while no request passes "
            f"`{taint.kwarg}`; pin it to one value in chat_template_kwargs so that it cannot vary per request.",
            seg.end_line,
            seg.end_column,
            tokens_at_risk=n,
        )


RULE = Rule(
    code="PC401",
    name="caller-kwarg",
    severity="info",
    summary="a caller kwarg with a constant default renders before static text (pin it)",
    docs=DOCS,
    scope="template",
    check=check,
    module=__name__,
)
