"""Golden files for every output format, rendered from one lint run of fixtures/project.

Regenerate after an intended change with ``ADVISOR_UPDATE_GOLDEN=1 pytest tests/lint``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import jsonschema
import pytest

from advisor.lint import engine, output
from advisor.lint.config import LintConfig, active_rules
from advisor.rules import REGISTRY

HERE = Path(__file__).parent
REPO = HERE.parents[1]  # run from the repository root: paths are the same with or without .git
GOLDEN = HERE / "golden"
PROJECT = HERE / "fixtures" / "project"
VERSION = "0.0.0-golden"
# A hosted target, so that PC301 (quiet for the default engine target) shows its wording too.
CONFIG = LintConfig(target="openai")


@pytest.fixture(scope="module")
def result(counter):
    return engine.lint_files([str(PROJECT)], CONFIG, REGISTRY, counter, cwd=REPO)


def rendered(fmt: str, result) -> str:
    rules = [a.rule for a in active_rules(CONFIG, REGISTRY)]
    return output.render(fmt, result.findings, len(result.files), VERSION, rules)


@pytest.mark.parametrize("fmt", output.FORMATS)
def test_golden(fmt, result):
    text = rendered(fmt, result)
    # ".golden", not ".txt"/".json": the goldens must not look like templates to `advisor lint .`.
    path = GOLDEN / f"project.{fmt}.golden"
    if os.environ.get("ADVISOR_UPDATE_GOLDEN"):
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


def test_rendering_is_deterministic(result, counter):
    again = engine.lint_files([str(PROJECT)], CONFIG, REGISTRY, counter, cwd=REPO)
    for fmt in output.FORMATS:
        assert rendered(fmt, result) == rendered(fmt, again)


def test_paths_are_repository_relative_posix(result):
    assert result.files and all(p.startswith("tests/lint/fixtures/project/") for p in result.files)
    assert all("\\" not in f.path and not f.path.startswith("/") for f in result.findings)


def test_findings_are_sorted(result):
    keys = [(f.path, f.line, f.column, f.code) for f in result.findings]
    assert keys == sorted(keys)


def test_json_shape_matches_design(result):
    doc = json.loads(rendered("json", result))
    assert doc["tool"] == {"name": "advisor", "version": VERSION}
    assert set(doc["summary"]) == {"files", "error", "warning", "info"}
    assert doc["summary"]["files"] == len(result.files)
    for f in doc["findings"]:
        assert {"code", "rule", "severity", "path", "line", "column", "end_line", "end_column", "message", "tokens_at_risk"} <= set(f)
    pc101 = [f for f in doc["findings"] if f["code"] == "PC101"]
    assert pc101 and all(f["tokens_at_risk"] > 0 for f in pc101)


def _schema():
    return json.loads((HERE / "data" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))


def test_sarif_validates_against_the_official_schema(result):
    doc = json.loads(rendered("sarif", result))
    jsonschema.Draft4Validator(_schema()).validate(doc)
    run = doc["runs"][0]
    assert run["tool"]["driver"]["name"] == "advisor"
    ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert ids == sorted(REGISTRY)
    for res in run["results"]:
        assert run["tool"]["driver"]["rules"][res["ruleIndex"]]["id"] == res["ruleId"]
        region = res["locations"][0]["physicalLocation"]["region"]
        assert region["startLine"] >= 1 and region["startColumn"] >= 1


def test_sarif_without_findings_validates():
    doc = json.loads(output.render_sarif([], 0, VERSION, list(REGISTRY.values())))
    jsonschema.Draft4Validator(_schema()).validate(doc)
    assert doc["runs"][0]["results"] == []


def test_schema_rejects_a_broken_log():
    # The validator is real: a result without a message must fail.
    bad = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [{"ruleId": "PC101"}]}]}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft4Validator(_schema()).validate(bad)


def test_github_escapes_message_and_properties():
    f = engine.Finding("a,b:c.j2", 3, 4, "PC101", "100% of\nit", rule="dynamic-prefix", severity="info", end_line=3, end_column=9)
    line = output.render_github([f], 1)
    assert line == "::notice file=a%2Cb%3Ac.j2,line=3,col=4,endLine=3,endColumn=9,title=advisor PC101::100%25 of%0Ait\n"


def test_text_without_findings_says_so():
    assert output.render_text([], 3) == "All checks passed: no findings in 3 files.\n"
