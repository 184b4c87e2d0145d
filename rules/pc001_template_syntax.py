"""PC001 template-syntax: the template does not parse."""

from __future__ import annotations

from typing import Iterator

from advisor.lint.model import TemplateModel
from advisor.lint.rule import Context, Problem, Rule
from advisor.lint.python import PythonModel

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


PYTHON_DOCS = """
## In Python prompt builders
A `.py` file that builds prompts (see `docs/lint.md`, Python prompt builders) and that
Python cannot parse gets this finding at the line the parser names; no other rule judges it.
The file is parsed with the Python running the linter: syntax newer than it is reported too.

The analysis of a module is bounded (a counted budget of steps and a maximum number of
tokens read, the same on every machine). A module it does not finish gets this finding as
information, at the line where it stopped: what it found before is reported, the code it had
not reached is not analyzed. A clean report of such a module is not a clean module.
"""


def check_python(model: PythonModel, ctx: Context) -> Iterator[Problem]:
    for issue in model.syntax_errors:
        yield Problem(issue.line, 1, f"Python source does not parse: {issue.message}")
    if model.stopped is not None and not model.syntax_errors:
        line, why = model.stopped
        yield Problem(line, 1, f"Python analysis stopped at line {line}: {why}. What it found before is reported; the code "
                               "it had not reached (it reads the module's top level, then each function in order) is not "
                               "analyzed.", severity="info")


RULE = Rule(
    code="PC001",
    name="template-syntax",
    severity="error",
    summary="the template does not parse",
    docs=DOCS + PYTHON_DOCS,
    scope="template",
    check=check,
    module=__name__,
    python=check_python,
)
