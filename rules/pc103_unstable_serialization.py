"""PC103 unstable-serialization: output whose order can differ between requests."""

from __future__ import annotations

import re
from typing import Iterator

from advisor.lint.fix import SAFE, Edit, Fix, offset
from advisor.lint.model import Site, TemplateModel
from advisor.lint.rule import Context, Option, Problem, Rule
from advisor.lint import python as py

DOCS = """\
## What it does
Reports iteration or serialization whose *order* can differ between requests, placed before
static text: `.items()`, `.keys()` or `.values()` of request data, `|unique`, and `|list`,
`|join`, `|first` or `|last` of set-like inputs (names such as `tag_set`).

## Why is this bad?
Two requests with the same content can still render different text when a client builds
its JSON object in another key order or a service returns a set in hash order. The token
sequence then diverges at the first reordered key and everything after it misses the
prefix cache, although nothing meaningful changed.

## Example
```jinja
User profile:
{% for key, value in profile.items() %}{{ key }}: {{ value }}
{% endfor %}
Answer using the policies below. ...
```

## Use instead
Sort (`|dictsort`, `|sort`) or serialize with sorted keys (`|tojson`), and put request data
after the static text:
```jinja
Answer using the policies below. ...
User profile:
{% for key, value in profile|dictsort %}{{ key }}: {{ value }}
{% endfor %}
```

## Fix safety
Safe fix (`--fix`): `x.items()` becomes `x | dictsort`, `x.keys()` becomes `x | sort`,
`x.values()` becomes `x | dictsort | map(attribute=1) | list`, and `|unique`, `|list`/`|join`
of a set-like input get a `|sort` first. The same data then always renders in one order; a
mapping or set carries no order of its own, so no meaning is lost. The fix is offered only
where the view is iterated (a `for` loop, or a filter such as `join`, `list`, `map` or
`length` that consumes it): printed, tested, indexed (`x.keys()[0]`) or passed elsewhere, a
sorted list would not be the view it replaces.
"""

OPTIONS = {
    "min_tokens_at_risk": Option(int, 1, "Constructs followed by fewer static tokens than this are not reported."),
}


def check(model: TemplateModel, ctx: Context) -> Iterator[Problem]:
    floor = max(ctx.options["min_tokens_at_risk"], 1)
    for site in model.unstable:
        after = [s for s in model.segments[site.segment_index:] if (s.line, s.column) >= (site.end_line, site.end_column)]
        # Static text and the fixed text of outputs ('<|im_start|>' + role + ...), as PC101 counts.
        shared = [s for s in after if (s.is_shared_text and s.construct == "text") or (s.literal and not s.effective.volatile)]
        n = sum(ctx.count_tokens(s.text if s.construct == "text" else s.literal) for s in shared)
        # A chat template's conversation after it is shared text of unknown length.
        conversation = model.conversation_from(site.segment_index)
        if n < floor and not conversation:
            continue
        what = f"the {n} static tokens after it" + (" and the conversation that follows" if conversation else "")
        yield Problem(
            site.line,
            site.column,
            f"{site.detail} renders in an order that can change between requests with the same data; {what} stop matching the cache. "
            "Sort it (|dictsort, |sort, |tojson) and move it after the static text.",
            site.end_line,
            site.end_column,
            tokens_at_risk=n,
            fix=_fix(model.source, site),
        )


# Method calls that iterate a mapping in insertion order, and their sorted spelling. A filter
# binds to the same operand as the call it replaces (`a ~ b.items()` is `a ~ (b|dictsort)`).
_SORTED = {
    "items": " | dictsort",
    "keys": " | sort",
    "values": " | dictsort | map(attribute=1) | list",
}


def _fix(source: str, site: Site) -> Fix | None:
    """Sort what the site iterates, when its tag spells it exactly once."""
    if not site.fixable or not source:
        return None
    start = offset(source, site.line, site.column)
    end = offset(source, site.end_line, site.end_column)
    tag = source[start:end]
    if site.fixable in _SORTED:
        pattern = re.compile(r"\.\s*" + site.fixable + r"\s*\(\s*\)")
        replacement = _SORTED[site.fixable]
        message = f"iterate with `{replacement.strip()}` instead of `.{site.fixable}()`"
    else:
        name_filter, _, name = site.fixable.partition(":")
        filt = name_filter.lstrip("|")
        pattern = re.compile(r"\b" + re.escape(name) + r"\s*\|\s*" + filt + r"\b")
        replacement = f"{name} | sort | {filt}"
        message = f"sort `{name}` before `|{filt}`"
    found = list(pattern.finditer(tag))
    if len(found) != 1:
        return None
    m = found[0]
    return Fix(SAFE, message, (Edit(start + m.start(), start + m.end(), replacement),))


PYTHON_DOCS = """
## In Python prompt builders
Reports, in a prompt's prefix: `json.dumps(x)` without `sort_keys=True` of a mapping whose
key order comes from the request (a JSON body, `**kwargs`, a `dict` field of a request model,
a dict built by a loop over request data); `str(d)` or an f-string of such a mapping; and a
set iterated or written into the text, whose order changes with each process's string hash
seed (`PYTHONHASHSEED`), so every worker and every restart builds a different prompt: a loop,
a comprehension, `", ".join(tags)`, `map(str, tags)`, `list(tags)`, `dict.fromkeys(tags)`,
`f"{tags}"`, `str(tags)`, `repr(tags)`, `"%s" % (tags,)`, `"{}".format(tags)`, and
`sorted(tags, key=len)` (a key that can tie keeps the set's order for equal keys). A set
iterated into the tool list is reported here too.
```python
TOPICS = {"billing", "refunds", "shipping"}
SYSTEM = f"You answer questions about {', '.join(TOPICS)}.\n{POLICY}"   # PC103
```
Use instead: `", ".join(sorted(TOPICS))`, `json.dumps(x, sort_keys=True)`.

Fix safety (Python): `json.dumps(x)` becomes `json.dumps(x, sort_keys=True)`, safe when the
keys are known to be strings (a JSON body, `**kwargs`, string literals), else unsafe
(`sort_keys` raises `TypeError` on keys of mixed types); an iterated set `s` becomes
`sorted(s)`, safe in `str.join` and for sets of string literals, else unsafe (items that do
not compare raise `TypeError`). Neither changes what the prompt says, only its order.
"""


def check_python(model: py.PythonModel, ctx: Context) -> Iterator[Problem]:
    floor = max(ctx.options["min_tokens_at_risk"], 1)
    for site in py.sites_for(model, "PC103"):
        n, _ = py.weigh(site, ctx.count_tokens)
        if n < floor and not site.unknown_after:
            continue
        who = "every worker process and every restart builds it in its own order" if site.kind == "set" else \
            "requests with the same data can build it in different orders"
        stop = "stops" if n <= 1 else "stop"  # "the static text stops", "the 1 static token stops"
        yield py.problem(site, f"{site.what}; {who}, and {py.tokens(n)} after it {stop} matching the cache. "
                               "Sort it (sorted(), sort_keys=True).", n)


RULE = Rule(
    code="PC103",
    name="unstable-serialization",
    severity="warning",
    summary="serialization whose order can vary between requests",
    docs=DOCS + PYTHON_DOCS,
    scope="template",
    check=check,
    options=OPTIONS,
    module=__name__,
    python=check_python,
)
