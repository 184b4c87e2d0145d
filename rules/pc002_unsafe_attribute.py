"""PC002 unsafe-attribute: the template reaches for private attributes (sandbox escapes)."""

from __future__ import annotations

from typing import Iterator

from advisor.lint.model import TemplateModel
from advisor.lint.rule import Context, Problem, Rule

DOCS = """\
## What it does
Reports attribute or item access to private and dunder names such as `__class__`,
`__globals__`, `__subclasses__` or `mro` in a template.

## Why is this bad?
These names are the first step of every known Jinja2 sandbox escape. A serving stack that
renders templates in the sandbox refuses them at run time, so the request fails; one that
does not sandbox may run arbitrary code. advisor never renders templates while linting, so
such a template is reported here instead of being executed.

## Example
```jinja
{{ ''.__class__.__mro__[1].__subclasses__() }}
```

## Use instead
Pass the values the prompt needs as variables and read only their public fields:
```jinja
{{ user.display_name }}
```

## Fix safety
No fix: what the access was meant to do is for its author to decide.
"""


def check(model: TemplateModel, ctx: Context) -> Iterator[Problem]:
    seen: set[tuple[int, int]] = set()
    for site in model.unsafe:
        if (site.line, site.column) in seen:
            continue  # one finding per expression, however long the attribute chain
        seen.add((site.line, site.column))
        yield Problem(
            site.line,
            site.column,
            f"access to the private attribute `{site.detail}`: the sandbox refuses it and it is how sandbox escapes begin",
            site.end_line,
            site.end_column,
        )


RULE = Rule(
    code="PC002",
    name="unsafe-attribute",
    severity="error",
    summary="the template accesses private attributes (a sandbox escape attempt)",
    docs=DOCS,
    scope="template",
    check=check,
    module=__name__,
)
