"""PC403 unstable-tool-set: the template filters, reorders or places the tool list per request."""

from __future__ import annotations

from typing import Iterator

from advisor.lint.model import TemplateModel
from advisor.lint.rule import Context, Problem, Rule
from advisor.lint import python as py

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

A tool list the model's format places at the last user turn (Mistral's `[AVAILABLE_TOOLS]`
before the last `[INST]`) is reported as information: the layout is the same for every
request of an application, chosen by the conversation's structure, and only multi-turn
conversations pay for it. Filtering, reordering or placing the tools by request data, or
shuffling them, is a warning.

## Fix safety
No fix: where the tools go is part of the model's prompt format.
"""


def check(model: TemplateModel, ctx: Context) -> Iterator[Problem]:
    for site in sorted((s for s in model.chat if s.kind == "tool-set"), key=lambda s: (s.line, s.column)):
        if site.taint.volatile:
            yield Problem(
                site.line,
                site.column,
                f"{site.detail}; requests (or turns) that render different tool text stop sharing the prefix at the first tool "
                "that differs. Render the full tool list in a fixed order before the conversation.",
                site.end_line,
                site.end_column,
            )
            continue
        # Placed by the conversation's structure: the model's own layout of the messages it is
        # given, the same for every request of an application; worth knowing, not a defect.
        yield Problem(
            site.line,
            site.column,
            f"{site.detail}, so each turn recomputes the tools and everything after their old place. It is the model's "
            "prompt format; a template that renders the tools once before the conversation keeps them cached.",
            site.end_line,
            site.end_column,
            severity="info",
        )


PYTHON_DOCS = """
## In Python prompt builders
Reports a tool list passed as `tools=` (or `functions=`) whose membership or order depends
on the request, however it is built: shuffled (`random.shuffle(tools)`), sampled
(`random.sample(TOOLS, k)`), filtered or cut by request data (`[t for t in TOOLS if t["name"]
in request.enabled]`, `TOOLS[:n]`), one tool per name the request sends, in its order
(`[TOOLS_BY_NAME[n] for n in names]`, the same with a loop of `append`s or
`map(TOOLS_BY_NAME.get, names)`), a tool looked up by a request key, tools added or chosen
under a request condition (`TOOLS + ([BETA] if beta else [])`, `A if premium else B`), or a
list the request itself sends, at the call, condition or loop that decides it. A choice
between all tools and none (`TOOLS if agent else NOT_GIVEN`, `None`, `[]`) is not reported.
```python
tools = [t for t in TOOLS if t["function"]["name"] in req.allowed_tools]   # PC403
client.chat.completions.create(model=MODEL, messages=messages, tools=tools)
```
Use instead: send `TOOLS` in full and in a fixed order; refuse a tool call the request may
not make when it comes back. No fix.
"""


def check_python(model: py.PythonModel, ctx: Context) -> Iterator[Problem]:
    for site in py.sites_for(model, "PC403"):
        yield py.problem(site, f"{site.what}; requests that send a different tool list or order stop sharing the prefix at "
                               "the first tool that differs. Send the full tool list in a fixed order.")


RULE = Rule(
    code="PC403",
    name="unstable-tool-set",
    severity="warning",
    summary="the tool list is filtered, reordered or placed per request in the template",
    docs=DOCS + PYTHON_DOCS,
    scope="template",
    check=check,
    module=__name__,
    python=check_python,
)
