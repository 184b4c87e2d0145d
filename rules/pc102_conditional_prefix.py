"""PC102 conditional-prefix: a branch on per-request data inside the static prefix."""

from __future__ import annotations

from typing import Iterator

from advisor.lint.model import TemplateModel
from advisor.lint.rule import Context, Option, Problem, Rule, shared_tokens_after
from advisor.lint import python as py

DOCS = """\
## What it does
Reports an `{% if %}` whose test reads per-request data (or the clock) and that renders
text before static text, i.e. inside what would otherwise be the shared static prefix.

## Why is this bad?
Each outcome of the branch renders different text, so requests that take different
branches stop sharing the prefix where the branch starts. With two branches the cache
holds the rest of the prompt twice and each request only hits when an earlier request took
the same branch; with several nested branches the prefix splinters further.

## Example
```jinja
You are the Corvina support assistant.
{% if user.tier == "enterprise" %}The customer has a dedicated account manager.{% endif %}
Follow these rules when answering: ...
```

## Use instead
Keep the shared instructions unconditional and put the per-request facts after them:
```jinja
You are the Corvina support assistant.
Follow these rules when answering: ...
Customer tier: {{ user.tier }}
```

## Fix safety
No fix: moving a branch changes which text a request sees where.
"""

OPTIONS = {
    "min_tokens_at_risk": Option(int, 32, "Branches followed by fewer static tokens than this are not reported."),
}


def check(model: TemplateModel, ctx: Context) -> Iterator[Problem]:
    floor = ctx.options["min_tokens_at_risk"]
    for i, seg in enumerate(model.segments):
        if seg.construct != "if" or not seg.has_output or not seg.taint.volatile:
            continue
        if seg.guard.volatile:
            continue  # already inside per-request output
        n = shared_tokens_after(model, i, ctx.count_tokens)
        if n < max(floor, 1):
            continue
        test = " ".join(seg.text.split())
        yield Problem(
            seg.line,
            seg.column,
            f"`{test}` branches on {seg.taint.reason} inside the static prefix; requests that take different branches cannot share the {n} static tokens after it. Move the branch after the static text.",
            seg.end_line,
            seg.end_column,
            tokens_at_risk=n,
        )


PYTHON_DOCS = """
## In Python prompt builders
Reports prompt text that an `if` (or a conditional expression, or a comprehension's `if`)
on per-request data adds or picks, before at least `min_tokens_at_risk` static tokens: the
system prompt grows by a paragraph for some users, few-shot examples are picked by the
request. A lookup keyed by per-request data in one of the application's tables
(`PERSONAS[user.tier]`) picks a text as a branch would, and is reported at the lookup. The
finding sits at the condition.
```python
system = BASE_RULES
if user.is_enterprise:                       # PC102
    system += ENTERPRISE_RULES
system += TOOL_GUIDE
```
Use instead: keep the shared text unconditional, and say the per-request part last (in the
last user message). No fix.
"""


def check_python(model: py.PythonModel, ctx: Context) -> Iterator[Problem]:
    floor = max(ctx.options["min_tokens_at_risk"], 1)
    for site in py.sites_for(model, "PC102"):
        n, _ = py.weigh(site, ctx.count_tokens)
        if n < floor:
            continue
        yield py.problem(site, f"{site.what} inside the static prefix; requests that take different paths cannot share "
                               f"{py.tokens(n)} after it. Keep the shared text unconditional and put the per-request part after it.", n)


RULE = Rule(
    code="PC102",
    name="conditional-prefix",
    severity="warning",
    summary="a branch on per-request data inside the static prefix",
    docs=DOCS + PYTHON_DOCS,
    scope="template",
    check=check,
    options=OPTIONS,
    module=__name__,
    python=check_python,
)
