"""PC901 unused-suppression: a noqa or disable comment that silences nothing."""

from __future__ import annotations

from typing import Iterator

from advisor.lint.rule import Context, Problem, Rule

DOCS = """\
## What it does
Reports `{# noqa: CODE #}` and `{# advisor: disable=CODE #}` comments that did not
silence any finding, and codes in them that name no rule.

## Why is this bad?
A stale suppression hides the next real problem on that line: after the template changes,
a new dynamic value can land next to an old `noqa` and never be reported. Unknown codes
are usually typos that silence nothing.

## Example
```jinja
You are the Corvina assistant. {# noqa: PC101 #}
```

## Use instead
Remove the comment, or keep it only where a finding is intentionally accepted:
```jinja
You are the Corvina assistant.
```

## Fix safety
No fix yet: delete the suppression comment by hand.
"""


def check(unused: list, ctx: Context) -> Iterator[Problem]:
    """``unused`` holds (line, directive, code, known) for every suppression that silenced nothing."""
    for line, written, code, known in unused:
        if not known:
            yield Problem(line, 1, f"`{written}` names `{code}`, which is not a rule code or name; it silences nothing")
        else:
            target = "any finding" if code == "ALL" else f"a {code} finding"
            yield Problem(line, 1, f"unused suppression `{written}`: it did not silence {target}; remove it")


RULE = Rule(
    code="PC901",
    name="unused-suppression",
    severity="warning",
    summary="a suppression comment that silences nothing",
    docs=DOCS,
    scope="suppression",
    check=check,
    module=__name__,
)
