"""PC404 tool-call-json: the history's tool-call arguments are re-serialized with tojson."""

from __future__ import annotations

from typing import Iterator

from advisor.lint.model import TemplateModel
from advisor.lint.rule import Context, Problem, Rule

DOCS = """\
## What it does
In a chat template, reports `tool_call.arguments | tojson` inside the loop over the
conversation when no enclosing `{% if tool_call.arguments is string %}` keeps arguments that
arrive as a JSON string exactly as they were sent.

## Why is this bad?
The model wrote those arguments as text on the previous turn, and the engine cached that
text. OpenAI-style clients send it back as a JSON string; serving stacks parse it into an
object for the template, and `tojson` then writes it again with its own spacing and escaping.
When that differs from what the model produced (a dropped space after a colon, `\\u` escapes),
turn N+1 is no longer the cached prefix plus output: the cache misses at the previous
assistant turn on every step of an agent loop. Reported: a server's re-serialization with
compact separators broke prefix matching on every multi-step tool-use round until templates
that branch on `arguments is string` were rendered with the string kept
(https://github.com/ai-dynamo/dynamo/pull/9301); arguments passed as a string or as an
object render differently under `tojson`
(https://github.com/ai-dynamo/dynamo/issues/4161); turn-2 cache reuse went from 0% to 81%
once a server rendered arguments the way the template expected
(https://github.com/lablup/mlxcel/pull/210). It is an information finding: whether it misses
depends on the serving stack and on the model's own spacing.

## Example
```jinja
{%- for tool_call in message.tool_calls %}
  {{- '{"name": "' + tool_call.function.name + '", "arguments": ' }}
  {{- tool_call.function.arguments | tojson }}
{%- endfor %}
```

## Use instead
Keep a string as it came, and serialize only objects:
```jinja
{%- if tool_call.function.arguments is string %}
  {{- tool_call.function.arguments }}
{%- else %}
  {{- tool_call.function.arguments | tojson }}
{%- endif %}
```

## Fix safety
No fix: the branch changes what the model sees when a stack passes objects.
"""


def check(model: TemplateModel, ctx: Context) -> Iterator[Problem]:
    for site in sorted((s for s in model.chat if s.kind == "tool-call-json"), key=lambda s: (s.line, s.column)):
        yield Problem(
            site.line,
            site.column,
            f"{site.detail}: when the serving stack parses the string the model wrote and `tojson` writes it back "
            "with other spacing, the next turn misses the cache at the previous assistant turn. Keep strings as sent "
            "(`{% if ... arguments is string %}`).",
            site.end_line,
            site.end_column,
        )


RULE = Rule(
    code="PC404",
    name="tool-call-json",
    severity="info",
    summary="tool-call arguments of the history are re-serialized with tojson",
    docs=DOCS,
    scope="template",
    check=check,
    module=__name__,
)
