"""advisor.findings.Finding: one type for lint's PC codes and the traffic's TR codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from advisor.findings import TRAFFIC_RULES, CauseFacts, Finding, OrderFacts, SpanFacts


def test_every_module_uses_the_one_type() -> None:
    from advisor.diagnose import detect
    from advisor.lint import engine, output

    assert detect.Finding is engine.Finding is output.Finding is Finding


def test_the_traffic_keyword_constructor_and_its_json_shape() -> None:
    f = Finding(code="TR101", token_offset=7, kind="datetime", requests=500, tokens_lost=990, example="x",
                message="m", span=SpanFacts(("x", "y"), "Now: ", ". Rules", 9, in_history=True))
    assert (f.rule, f.severity, f.path, f.line) == ("dynamic-content", "warning", "", 0)
    assert f.in_history and not f.from_layout
    # DESIGN.md's analyze finding: these keys in this order, then the span's facts.
    assert json.dumps(f.to_dict()) == json.dumps({
        "code": "TR101", "rule": "dynamic-content", "token_offset": 7, "kind": "datetime", "requests": 500,
        "tokens_lost": 990, "example": "x", "message": "m", "examples": ["x", "y"], "context_before": "Now: ",
        "context_after": ". Rules", "span_tokens": 9, "in_history": True})


def test_each_kind_of_facts_keeps_its_json_keys() -> None:
    # The typed facts replace a string-keyed dict between the stages; the JSON keeps its keys.
    layout = Finding(code="TR102", token_offset=3, kind="system-prompt-placement", span=SpanFacts(layout="late"),
                     message="m")
    assert layout.from_layout and not layout.in_history
    assert list(layout.to_dict())[-5:] == ["layout", "examples", "context_before", "context_after", "span_tokens"]
    shown = ({"order": ["a", "b"], "requests": 3, "share": 0.75}, {"order": ["b", "a"], "requests": 1, "share": 0.25})
    order = Finding(code="TR201", token_offset=0, kind="content-order", message="m",
                    order=OrderFacts(("a", "b"), shown, 2, ("a", "b"), 1, cores=("A", "B")))
    out = order.to_dict()
    assert list(out)[-5:] == ["blocks", "orders", "distinct_orders", "canonical_order", "requests_off_canonical"]
    assert out["orders"] == [dict(o) for o in shown] and "cores" not in out
    cause = Finding(code="TR201", token_offset=0, kind="column-order", message="m",
                    cause=CauseFacts((("column-order", 4), ("row-order", 2)), ("x", "y")))
    assert {k: cause.to_dict()[k] for k in ("kinds", "examples", "from")} == {
        "kinds": {"column-order": 4, "row-order": 2}, "examples": ["x", "y"], "from": "canonical-order"}


def test_a_run_finding_keeps_the_simulate_shape() -> None:
    f = Finding(code="TR501", details={"tenant": "quiet", "policy": "fcfs"}, message="starved")
    assert list(f.to_dict()) == ["code", "rule", "tenant", "policy", "message"]
    assert f.to_dict()["rule"] == "tenant-starvation"


def test_lint_defaults_and_sort_order_are_lint_s() -> None:
    a = Finding("b.j2", 1, 1, "PC101", "x")
    b = Finding("a.j2", 9, 2, "PC301", "y", severity="info")
    c = Finding("a.j2", 9, 1, "PC102", "z")
    assert a.severity == "error" and a.rule == ""
    assert sorted([a, b, c]) == [c, b, a]


def test_a_code_is_required_and_an_unknown_traffic_code_is_an_error() -> None:
    with pytest.raises(ValueError):
        Finding(message="no code")
    with pytest.raises(KeyError):
        Finding(code="TR999", message="unregistered")


def test_the_traffic_rules_are_the_documented_ones() -> None:
    # DESIGN.md: "Traffic findings use TR codes: TR101 dynamic-content, TR201 section-order,
    # TR301 low-reuse, TR401 capacity-pressure, TR501 tenant-starvation ... keep these."
    design = {"TR101": "dynamic-content", "TR201": "section-order", "TR301": "low-reuse",
              "TR401": "capacity-pressure", "TR501": "tenant-starvation"}
    assert {c: TRAFFIC_RULES[c].name for c in design} == design
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    assert all(code in readme for code in TRAFFIC_RULES)
