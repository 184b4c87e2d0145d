"""Every rule's pass/fail cases (rules/<rule>.yaml), run by one parametrised test."""

from __future__ import annotations

import importlib.resources

import pytest
import yaml

from advisor.lint import config, engine
from advisor.rules import REGISTRY, cases_file, python_cases_file


def load_cases(rule):
    """The rule's cases, and its Python cases (a `<rule>_python.yaml` beside them); a file
    marked `language: python` lints each case as a module named `builder.py`."""
    cases = []
    for name in (cases_file(rule), python_cases_file(rule)):
        resource = importlib.resources.files("advisor.rules").joinpath(name)
        if not resource.is_file():
            continue
        data = yaml.safe_load(resource.read_text(encoding="utf-8"))
        assert data["rule"] == rule.code
        default = {"filename": "builder.py"} if data.get("language") == "python" else {}
        cases.extend({**default, **case} for case in data["cases"])
    return cases


def all_cases():
    for code, rule in sorted(REGISTRY.items()):
        for case in load_cases(rule):
            yield pytest.param(rule, case, id=f"{code}-{case['name']}")


def case_files(case: dict) -> dict[str, str]:
    files = case.get("fail_files") or case.get("pass_files")
    if files:
        return files
    text = case["fail_str"] if "fail_str" in case else case["pass_str"]
    return {case.get("filename", "case.j2"): text}


def run_case(rule, case, counter):
    table = {"select": case.get("select", [rule.code]), **case.get("settings", {})}
    if case.get("configs"):
        table["rules"] = {rule.code: case["configs"]}
    cfg = config.parse(table, f"case {case['name']}", REGISTRY)
    result = engine.lint_texts(case_files(case), cfg, REGISTRY, counter)
    return [f for f in result.findings if f.code == rule.code]


def is_fail(case):
    return "fail_str" in case or "fail_files" in case


@pytest.mark.parametrize("rule, case", list(all_cases()))
def test_rule_case(rule, case, counter):
    found = run_case(rule, case, counter)
    if not is_fail(case):
        assert found == [], f"expected no {rule.code} finding, got: {[(f.path, f.line, f.message) for f in found]}"
        return
    assert found, f"expected a {rule.code} finding"
    if "expect" in case:
        got = []
        for f in found:
            got.append({"path": f.path, "line": f.line, "column": f.column, "severity": f.severity})
        want = case["expect"]
        assert len(got) == len(want), f"expected {want}, got {got}: {[f.message for f in found]}"
        for w, g in zip(sorted(want, key=lambda e: (e.get("path", ""), e["line"])), sorted(got, key=lambda e: (e["path"], e["line"]))):
            for key, value in w.items():
                assert g[key] == value, f"{key}: expected {value}, got {g[key]} in {g}"
    if "message_contains" in case:
        for f in found:
            assert case["message_contains"] in f.message
