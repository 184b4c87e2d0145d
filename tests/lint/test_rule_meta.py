"""Meta-tests over the registry: every rule is documented, configurable and has cases."""

from __future__ import annotations

import re

import pytest

from advisor.lint.rule import SEVERITIES
from advisor.rules import REGISTRY, find

from .test_rule_cases import is_fail, load_cases

SECTIONS = ("## What it does", "## Why is this bad?", "## Example", "## Use instead", "## Fix safety")
DESIGN_RULES = {
    "PC001": "template-syntax",
    "PC101": "dynamic-prefix",
    "PC102": "conditional-prefix",
    "PC103": "unstable-serialization",
    "PC201": "section-order",
    "PC202": "prefix-drift",
    "PC301": "short-prefix",
}


def test_design_rules_are_registered_with_their_names():
    for code, name in DESIGN_RULES.items():
        assert code in REGISTRY
        assert REGISTRY[code].name == name


@pytest.mark.parametrize("code", sorted(REGISTRY))
def test_rule_metadata_and_docs(code):
    rule = REGISTRY[code]
    assert rule.code == code and re.fullmatch(r"PC\d{3}", code)
    assert re.fullmatch(r"[a-z]+(-[a-z]+)*", rule.name)
    assert rule.severity in SEVERITIES
    assert rule.scope in ("template", "set", "suppression", "python")
    assert rule.scope != "python" or rule.python is not None
    assert rule.summary
    positions = [rule.docs.find(s) for s in SECTIONS]
    assert all(p >= 0 for p in positions), f"{code} docs miss a section"
    assert positions == sorted(positions), f"{code} docs sections out of order"
    for name, option in rule.options.items():
        assert re.fullmatch(r"[a-z_]+", name) and option.help
        assert option.check(option.default)
    assert find(code) is rule and find(rule.name) is rule


@pytest.mark.parametrize("code", sorted(REGISTRY))
def test_rule_has_three_failing_and_three_passing_cases(code):
    cases = load_cases(REGISTRY[code])
    names = [c["name"] for c in cases]
    assert len(names) == len(set(names)), "case names must be unique"
    assert sum(1 for c in cases if is_fail(c)) >= 3
    assert sum(1 for c in cases if not is_fail(c)) >= 3
