"""PC201 section-order: templates of one set order the same sections differently."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Iterator

from advisor.lint.model import Section, TemplateModel, normalise_section
from advisor.lint.rule import Context, Option, Problem, Rule

DOCS = """\
## What it does
Within one set of templates (the templates of one folder), finds sections that appear in
several templates — headings such as `# Tools` or `## Context`, labels such as
`Question:`, `<context>` tags, chat roles, `{% block %}` names and configured markers — and
reports the templates that put them in a different order from the majority of the set (or
from `canonical_order` when configured).

## Why is this bad?
Templates that share sections can share their prefix only when the sections come in the
same order. `# Tools` then `# Policies` in one template and `# Policies` then `# Tools`
in another gives two unrelated prefixes, so the cache holds both and neither template
benefits from the other's traffic.

## Example
```jinja
{# a.j2 and b.j2 #}
# Tools
...
# Policies
...
{# c.j2 #}
# Policies
...
# Tools
...
```

## Use instead
Give every template of the set the same section order (stable content first, per-request
content last), e.g. `# Tools`, `# Policies`, `# Context`, `Question:` everywhere.

## Fix safety
No fix: which order is canonical is a choice across the template set.
"""

OPTIONS = {
    "canonical_order": Option(list, [], "Section names in their required order; when set, it decides instead of the majority."),
    # A section in one template has no other to be ordered against.
    "min_templates": Option(int, 2, "A section must appear in at least this many templates of the set to count.",
                            minimum=2),
}


def _sequence(model: TemplateModel) -> list[Section]:
    seen: set[str] = set()
    out = []
    for sec in model.sections:
        if sec.name and sec.name not in seen:
            seen.add(sec.name)
            out.append(sec)
    return out


def check(models: list[TemplateModel], ctx: Context) -> Iterator[Problem]:
    groups: dict[str, list[TemplateModel]] = defaultdict(list)
    for model in models:
        groups[model.path.rsplit("/", 1)[0] if "/" in model.path else "."].append(model)
    canonical = [normalise_section(s) for s in ctx.options["canonical_order"]]
    for _, group in sorted(groups.items()):
        yield from _check_group(sorted(group, key=lambda m: m.path), canonical, ctx.options["min_templates"])


def _check_group(group: list[TemplateModel], canonical: list[str], min_templates: int) -> Iterator[Problem]:
    if len(group) < 2:
        return
    seqs = {m.path: _sequence(m) for m in group}
    counts = Counter(name for seq in seqs.values() for name in {s.name for s in seq})
    shared = {name for name, c in counts.items() if c >= max(min_templates, 2)}
    before: Counter[tuple[str, str]] = Counter()
    for seq in seqs.values():
        names = [s.name for s in seq if s.name in shared]
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                before[(a, b)] += 1
    for model in group:
        seq = [s for s in seqs[model.path] if s.name in shared]
        reported: set[str] = set()
        for j, later in enumerate(seq):
            for earlier in seq[:j]:
                a, b = earlier.name, later.name
                if canonical and a in canonical and b in canonical:
                    wrong = canonical.index(a) > canonical.index(b)
                    why = "the configured canonical_order puts it first"
                else:
                    agree, disagree = before[(a, b)], before[(b, a)]
                    wrong = disagree > agree
                    why = f"{disagree} of {agree + disagree} templates in this set put it first"
                if wrong and b not in reported:
                    reported.add(b)
                    yield Problem(
                        later.line,
                        later.column,
                        f"section `{later.label}` comes after `{earlier.label}` here, but {why}; templates that order shared sections differently cannot share a prefix",
                        path=model.path,
                    )


RULE = Rule(
    code="PC201",
    name="section-order",
    severity="warning",
    summary="templates of one set order the same sections differently",
    docs=DOCS,
    scope="set",
    check=check,
    options=OPTIONS,
    module=__name__,
)
