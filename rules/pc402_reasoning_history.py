"""PC402 reasoning-history: earlier assistant turns are replayed without their reasoning."""

from __future__ import annotations

from typing import Iterator

from advisor.lint.model import TemplateModel
from advisor.lint.rule import Context, Problem, Rule

DOCS = """\
## What it does
In a chat template of a reasoning model, reports the construct that renders earlier
assistant turns without the reasoning the model produced for them: reasoning kept only for
turns after the last user query or for the last turn (`{% if loop.index0 >
ns.last_query_index %}<think>...`), the answer cut out of the output
(`content.split('</think>')[-1]`) with no reasoning rendered back, or an empty
`<think></think>` block put where the reasoning was. One finding per template, at the first
such construct.

## Why is this bad?
After a turn, the engine's prefix cache holds the prompt *plus the generated output*,
reasoning included. The next request of the conversation re-renders that assistant turn
from the history; when the template drops or blanks its reasoning, the new prompt diverges
from the cached tokens exactly where the reasoning began, and the whole previous answer and
everything after it are prefilled again on every turn. Reported in the field: 48 tokens of
dropped reasoning cost 2,018 tokens of prefill, turn-2 prefill fell from 139-242 s to
about 2 s once the reasoning went back into the history
(https://github.com/nibor1896/Crow/issues/60); a server re-rendering the history with the
reasoning stripped never reused its checkpoint (https://github.com/antirez/ds4/pull/56);
an engine stopped caching reasoning output because templates dropped it
(https://github.com/jundot/omlx/pull/3525).

It is information, not a warning: what a template renders of the turns it is given is the
model's prompt format (Qwen 3, DeepSeek, gpt-oss and GLM drop earlier reasoning because the
models were trained that way), not text the template adds to the prefix. Knowing the cost
matters when choosing a model or a template variant; a team that writes its own chat
template can raise the rule to a warning in the configuration.

## Example
```jinja
{%- for message in messages %}
  {%- if message.role == "assistant" %}
    {%- set content = message.content.split('</think>')[-1] %}
    {{- '<|Assistant|>' + content + '<|end|>' }}
  {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}{{ '<|Assistant|><think>\\n' }}{% endif %}
```

## Use instead
Render every assistant turn as the model produced it, reasoning included:
```jinja
{%- if message.reasoning_content %}
  {{- '<think>\\n' + message.reasoning_content + '\\n</think>\\n\\n' }}
{%- endif %}
{{- message.content }}
```
If the model card requires dropping earlier reasoning (it costs context), the cache miss at
the previous assistant turn is the price: the finding can be suppressed with a reason.

## Fix safety
No fix: keeping the reasoning changes what the model sees, which is the model vendor's call.
"""

_PREFERENCE = ("reasoning-history", "reasoning-split", "reasoning-blank")


def check(model: TemplateModel, ctx: Context) -> Iterator[Problem]:
    sites = {kind: sorted((s for s in model.chat if s.kind == kind), key=lambda s: (s.line, s.column)) for kind in _PREFERENCE}
    kept = any(s.kind == "reasoning-kept" for s in model.chat)
    for kind in _PREFERENCE:
        if not sites[kind] or (kind == "reasoning-split" and kept):
            continue
        site = sites[kind][0]
        yield Problem(
            site.line,
            site.column,
            f"earlier assistant turns render without the reasoning the model generated: {site.detail}. "
            "The engine caches prompt plus output, so every multi-turn request misses the cache at the previous assistant turn "
            "and prefills it again; render the reasoning of every turn back.",
            site.end_line,
            site.end_column,
        )
        return


RULE = Rule(
    code="PC402",
    name="reasoning-history",
    severity="info",
    summary="earlier assistant turns render without (or with blanked) reasoning",
    docs=DOCS,
    scope="template",
    check=check,
    module=__name__,
)
