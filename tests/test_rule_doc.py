"""`advisor rule TRxxx` and `advisor rules`: the traffic codes documented as the lint rules are."""

from __future__ import annotations

import json

import pytest

from advisor.findings import TRAFFIC_RULES

SECTIONS = ("## What it does", "## Why is this bad?", "## Example", "## Use instead", "## Fix")


@pytest.mark.parametrize("code", sorted(TRAFFIC_RULES))
def test_every_traffic_code_prints_its_documentation(cli, code: str) -> None:
    rule = TRAFFIC_RULES[code]
    res = cli("rule", code)
    assert res.code == 0 and res.err == ""
    # The lint rules' shape: title, default severity, then the sections in order.
    assert res.out.startswith(f"# {code} {rule.name}\n\nDefault severity: warning\n\n## What it does\n")
    at = [res.out.index(s) for s in SECTIONS]
    assert at == sorted(at)
    # Every section says something (no heading followed straight by the next one).
    for section in SECTIONS:
        body = res.out.split(section + "\n", 1)[1].split("\n## ", 1)[0]
        assert body.strip(), section


def test_a_traffic_code_is_found_by_name_and_in_any_case(cli) -> None:
    assert cli("rule", "tr101").out == cli("rule", "TR101").out
    assert cli("rule", "capacity-pressure").out.startswith("# TR401 capacity-pressure\n")
    # A name both use stays the lint rule's; the traffic code is reached by its code.
    assert cli("rule", "section-order").out.startswith("# PC201 section-order\n")
    assert cli("rule", "TR201").out.startswith("# TR201 section-order\n")


def test_the_lint_rules_print_as_before(cli) -> None:
    res = cli("rule", "PC101")
    assert res.code == 0 and res.out.startswith("# PC101 dynamic-prefix\n\nDefault severity: error\n")
    assert "## Options" in res.out


def test_an_unknown_code_is_one_line(cli) -> None:
    res = cli("rule", "TR999")
    assert res.code == 2 and res.out == ""
    assert res.err == "advisor: error: unknown rule 'TR999' (see `advisor rules`)\n"


def test_rules_lists_the_traffic_codes_in_a_group_of_their_own(cli) -> None:
    res = cli("rules")
    assert res.code == 0
    lint, traffic = res.out.split("\n\n")
    assert all(line.startswith("PC") for line in lint.splitlines())
    assert [line.split()[0] for line in traffic.splitlines()] == sorted(TRAFFIC_RULES)
    assert "TR401  capacity-pressure" in traffic
    # One column layout for both groups: the names start and end at the same place.
    starts = {line.index("  ") for line in res.out.splitlines() if line}
    severities = {line.index(" warning ") if " warning " in line else None for line in res.out.splitlines() if line}
    assert starts == {5} and len(severities - {None}) == 1


def test_rules_json_appends_the_traffic_codes_with_the_same_keys(cli) -> None:
    doc = json.loads(cli("rules", "--format", "json").out)
    keys = {frozenset(d) for d in doc}
    assert keys == {frozenset({"code", "name", "severity", "summary", "options"})}
    traffic = [d for d in doc if d["code"].startswith("TR")]
    assert [d["code"] for d in traffic] == sorted(TRAFFIC_RULES)
    assert doc[-len(traffic):] == traffic  # after every lint rule
    assert all(d["options"] == {} for d in traffic)
