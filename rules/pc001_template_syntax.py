"""PC001 template-syntax: the template does not parse."""

from __future__ import annotations

from typing import Iterator

from advisor.lint.model import TemplateModel
from advisor.lint.rule import Context, Problem, Rule

DOCS = """\
## What it does
Reports a template that Jinja2 cannot parse (an unclosed block, an unknown tag, a stray
`endif`), or a YAML/JSON prompt file that is not valid YAML/JSON, at the line the parser
names.

## Why is this bad?
A template that does not parse fails every request that uses it, and no other rule can
judge its prefix: the linter cannot see what it would render.

## Example
```jinja
You are a support assistant.
{% if user.tier == "gold" %}
Offer priority support.
```

## Use instead
```jinja
You are a support assistant.
{% if user.tier == "gold" %}
Offer priority support.
{% endif %}
```

## Fix safety
No fix: a template that does not parse has no meaning to keep.
"""


def check(model: TemplateModel, ctx: Context) -> Iterator[Problem]:
    for issue in model.syntax_errors:
        yield Problem(issue.line, 1, f"template does not parse: {issue.message}")


RULE = Rule(
    code="PC001",
    name="template-syntax",
    severity="error",
    summary="the template does not parse",
    docs=DOCS,
    scope="template",
    check=check,
    module=__name__,
)
