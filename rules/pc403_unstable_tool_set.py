"""PC403 unstable-tool-set: the template filters, reorders or places the tool list per request."""

from __future__ import annotations

from typing import Iterator

from advisor.lint.model import TemplateModel
from advisor.lint.rule import Context, Problem, Rule

DOCS = """\
## What it does
Reports a tool list (`tools`, `custom_tools`, `functions`, ... and names set from them)
that the template renders differently from one request to the next: filtered by request or
conversation data (`tools | selectattr("name", "in", enabled)`, an `if` on a per-request
value inside the loop over tools), cut (`tools[:n]`), reordered by request data or shuffled,
rendered inside the loop over the conversation (e.g. before the last user message), or only
when a per-request condition holds.

## Why is this bad?
Tool schemas are usually the longest stable block of a chat prompt, and they render near
its top. When the template selects, orders or places them per request, two requests of the
same application stop sharing the prefix at the first tool that differs; when the block
sits before the *last* user message, it moves with every turn, so turn N+1 misses the cache
from the previous position of the block onwards. Agent frameworks report the same effect
from reordered tool lists and fixed it by sorting them once
(https://github.com/HKUDS/nanobot/pull/2722, https://github.com/charmbracelet/crush/pull/1271).

## Example
```jinja
{%- for message in messages %}
  {%- if message.role == "user" and loop.last %}
    {{- "[AVAILABLE_TOOLS]" + tools | tojson + "[/AVAILABLE_TOOLS]" }}
  {%- endif %}
  {{- "[INST]" + message.content + "[/INST]" }}
{%- endfor %}
```

## Use instead
Render the whole tool list, in a fixed order, once, before the conversation:
```jinja
{{- "[AVAILABLE_TOOLS]" + tools | tojson + "[/AVAILABLE_TOOLS]" }}
{%- for message in messages %}
  {{- "[INST]" + message.content + "[/INST]" }}
{%- endfor %}
```
Select tools in the application if you must, and keep each selection's order stable.

## Fix safety
No fix: where the tools go is part of the model's prompt format.
"""


def check(model: TemplateModel, ctx: Context) -> Iterator[Problem]:
    for site in sorted((s for s in model.chat if s.kind == "tool-set"), key=lambda s: (s.line, s.column)):
        yield Problem(
            site.line,
            site.column,
            f"{site.detail}; requests (or turns) that render different tool text stop sharing the prefix at the first tool that differs. "
            "Render the full tool list in a fixed order before the conversation.",
            site.end_line,
            site.end_column,
        )


RULE = Rule(
    code="PC403",
    name="unstable-tool-set",
    severity="warning",
    summary="the tool list is filtered, reordered or placed per request in the template",
    docs=DOCS,
    scope="template",
    check=check,
    module=__name__,
)
