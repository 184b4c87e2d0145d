"""PC405 last-turn-injection: text from outside the conversation renders only at the last turn."""

from __future__ import annotations

from typing import Iterator

from advisor.lint.model import PAYLOAD, STRUCTURE, TemplateModel
from advisor.lint.rule import Context, Problem, Rule

DOCS = """\
## What it does
In a chat template, reports a branch of the loop over the conversation that renders a value
from outside the conversation (the system message, a default, a reminder set before the
loop) only for the last message: `{% if loop.last and system_message is defined %}`,
`{% if message == user_messages[-1] %}`.

## Why is this bad?
The last message of one request is an earlier message of the next. On turn N the system
message is rendered inside user message N; on turn N+1 user message N renders without it and
message N+1 carries it. The prompt of turn N+1 therefore differs from the cached prompt of
turn N inside user message N, and everything after that point (the previous answer
included) is prefilled again, on every turn. Older Mistral instruct templates place the
system message this way; the pattern is visible in the templates tooling ships for them
(https://github.com/axolotl-ai-cloud/axolotl/pull/3736). A system message that is not the
first thing a model reads defeats the prefix cache the same way in application code
(https://github.com/jmix-framework/jmix-ai-backend/issues/24).

## Example
```jinja
{%- for message in messages %}
  {%- if loop.last and system_message is defined %}
    {{- "[INST] " + system_message + "\\n\\n" + message.content + "[/INST]" }}
  {%- else %}
    {{- "[INST] " + message.content + "[/INST]" }}
  {%- endif %}
{%- endfor %}
```

## Use instead
Render the system message once, before the conversation (or always in the first user
message), so that every turn renders earlier messages exactly as before:
```jinja
{%- if system_message is defined %}{{- "[INST] " + system_message + "[/INST]" }}{%- endif %}
{%- for message in messages %}{{- "[INST] " + message.content + "[/INST]" }}{%- endfor %}
```
If the model was trained with the system message on the last turn, the miss is the price
of that format: when the text that moves is the caller's own (the system message the
request brings), the finding is information, since it is the model's layout of the messages
it is given; text the template adds itself (a reminder, a default) is a warning.

## Fix safety
No fix: where the system message goes is part of the model's prompt format.
"""


def check(model: TemplateModel, ctx: Context) -> Iterator[Problem]:
    for site in sorted((s for s in model.chat if s.kind == "last-turn"), key=lambda s: (s.line, s.column)):
        yield Problem(
            site.line,
            site.column,
            f"{site.detail}: on the next request that message is no longer the last and renders without it, "
            "so every turn misses the cache inside the previous last message. Render it once, before the conversation.",
            site.end_line,
            site.end_column,
            severity="info" if site.taint.kind in (PAYLOAD, STRUCTURE) else None,
        )


RULE = Rule(
    code="PC405",
    name="last-turn-injection",
    severity="warning",
    summary="a chat template renders outside text (e.g. the system message) only at the last turn",
    docs=DOCS,
    scope="template",
    check=check,
    module=__name__,
)
