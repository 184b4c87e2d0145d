"""Traffic findings as SARIF 2.1.0 and GitHub annotations (analyze, prescribe, simulate).

The traffic comes from the diagnosis zoo (tests/diagnose/zoo.py), each workload with its
defect, and again with its first records replaced by the fixed ones, so the line where the
defect starts is known from the generator rather than from the diagnosis. Every SARIF log
is validated against the official schema (the copy tests/lint/ uses).
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from advisor.findings import TRAFFIC_RULES, Finding
from advisor.lint import output
from tests.diagnose import zoo
from tests.simulate.helpers import write_jsonl
from tests.simulate.test_tenants_replicas import noisy_neighbour

SCHEMA = json.loads((Path(__file__).parent / "lint" / "data" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
CLEAN_HEAD = 6  # records before the defect starts, in the "_late" variants

WORKLOADS = {
    # code, workload
    "dynamic": ("TR101", lambda: zoo.span_workload("epoch-iso-top", "messages", "markdown", 12, ["epoch-iso"], ["top"])),
    "dynamic-mid": ("TR101", lambda: zoo.span_workload("name10-after-2", "messages", "markdown", 8, ["name"], ["after:2"])),
    "order": ("TR201", lambda: zoo.order_workload("order-tools-field", "messages", "tools")),
    "order-sections": ("TR201", lambda: zoo.order_workload("order-sections", "prompt", "sections")),
    "placement": ("TR102", lambda: zoo.misplaced_workload("docs-before-system-message", "messages", "docs-message")),
}


def validate(doc: dict) -> None:
    jsonschema.Draft4Validator(SCHEMA).validate(doc)


def write(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def sarif(cli, *argv) -> dict:
    res = cli(*argv, "--format", "sarif")
    assert res.code == 0, res.err
    doc = json.loads(res.out)
    validate(doc)
    return doc


def results(doc: dict) -> list[dict]:
    (run,) = doc["runs"]
    return run["results"]


@pytest.fixture(scope="module")
def traffic(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("annotations")
    out = {}
    for name, (_, build) in WORKLOADS.items():
        w = build()
        out[name] = write(folder / f"{name}.jsonl", w.records)
        out[name + "_late"] = write(folder / f"{name}_late.jsonl", w.fixed[:CLEAN_HEAD] + w.records[CLEAN_HEAD:])
    out["single"] = write(folder / "single.jsonl", zoo.control_single("ctl-single-shot", "prompt").records)
    return out


@pytest.mark.parametrize("name", sorted(WORKLOADS))
def test_analyze_sarif_validates_and_locates_the_finding(cli, traffic, name) -> None:
    code = WORKLOADS[name][0]
    for variant, first_defect in ((name, 1), (name + "_late", CLEAN_HEAD + 1)):
        path = traffic[variant]
        doc = sarif(cli, "analyze", str(path))
        found = [r for r in results(doc) if r["ruleId"] == code]
        assert found, (variant, [r["ruleId"] for r in results(doc)])
        r = found[0]
        assert r["level"] == "warning"
        (loc,) = r["locations"]
        assert loc["physicalLocation"]["artifactLocation"]["uri"] == path.resolve().as_posix()
        line = loc["physicalLocation"]["region"]["startLine"]
        # The first record that loses cached tokens to the defect: never a clean record, and
        # one of the first two with the defect (the very first one cannot lose anything to a
        # value when every earlier request is clean of it or there is none).
        assert first_defect <= line <= first_defect + 1, (variant, line)
        rules = doc["runs"][0]["tool"]["driver"]["rules"]
        assert rules[r["ruleIndex"]]["id"] == code
        # Every finding of the analyze JSON is one result, with its figures in the properties
        # and in the message.
        figures = ("token_offset", "requests", "tokens_lost", "kind")
        analyzed = json.loads(cli("analyze", str(path), "--format", "json").out)["findings"]
        assert len(analyzed) == len(results(doc))
        by_figures = {tuple(f[k] for k in figures): f for f in analyzed}
        for r in results(doc):
            same = by_figures[tuple(r["properties"][k] for k in figures)]
            assert r["ruleId"] == same["code"]
            assert r["message"]["text"].startswith(same["message"])
            assert f"{same['tokens_lost']:,} tokens lost" in r["message"]["text"]
            assert f"{same['requests']:,} requests" in r["message"]["text"]


def test_analyze_github_annotations_name_file_and_line(cli, traffic) -> None:
    path = traffic["dynamic_late"]
    res = cli("analyze", str(path), "--format", "github")
    assert res.code == 0, res.err
    lines = res.out.splitlines()
    assert lines and all(x.startswith("::warning file=") for x in lines)
    tr101 = [x for x in lines if "title=advisor TR101" in x]
    assert tr101 and (f"line={CLEAN_HEAD + 1}," in tr101[0] or f"line={CLEAN_HEAD + 2}," in tr101[0]), tr101
    assert "col=" not in tr101[0]  # a record's line, not a column in it


def test_single_shot_is_a_file_level_result(cli, traffic) -> None:
    path = traffic["single"]
    doc = sarif(cli, "analyze", str(path))
    (r,) = results(doc)
    assert r["ruleId"] == "TR301"
    assert "region" not in r["locations"][0]["physicalLocation"]
    res = cli("analyze", str(path), "--format", "github")
    assert res.out.startswith(f"::warning file={path.resolve().as_posix()},title=advisor TR301::")


def test_several_files_each_finding_in_its_own_file(cli, traffic) -> None:
    files = [traffic["dynamic"], traffic["order"]]
    doc = sarif(cli, "analyze", *map(str, files))
    where = {(r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
              r["locations"][0]["physicalLocation"]["region"]["startLine"]) for r in results(doc)}
    # The second file's lines count from its own start, not from the stream's.
    assert {("TR101", files[0].resolve().as_posix(), 2), ("TR201", files[1].resolve().as_posix(), 2)} <= where
    # Same input, byte-identical log.
    assert cli("analyze", *map(str, files), "--format", "sarif").out == json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def test_prescribe_sarif_carries_the_same_findings(cli, traffic) -> None:
    path = traffic["order_late"]
    doc = sarif(cli, "prescribe", str(path))
    assert "TR201" in {r["ruleId"] for r in results(doc)}


def test_simulate_capacity_pressure_is_a_file_level_sarif_result(cli, traffic) -> None:
    # A long shared head, then a name: a 2,000-token pool holds the largest request (1,848
    # tokens; a smaller pool is refused) but not much of what the next ones share.
    path = traffic["dynamic-mid"]
    doc = sarif(cli, "simulate", str(path), "--capacity-tokens", "2000", "--mode", "replay")
    found = [r for r in results(doc) if r["ruleId"] == "TR401"]
    assert found
    r = found[0]
    assert r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == path.resolve().as_posix()
    assert "region" not in r["locations"][0]["physicalLocation"]
    props = r["properties"]
    assert props["capacity_tokens"] == 2000 and props["hit_rate"] < props["unlimited_hit_rate"]


def test_simulate_tenant_starvation_as_sarif_and_github(cli, tmp_path) -> None:
    path = write_jsonl(tmp_path / "tenants.jsonl", noisy_neighbour())
    doc = sarif(cli, "simulate", str(path), "--capacity-tokens", "1200")
    starved = [r for r in results(doc) if r["ruleId"] == "TR501"]
    assert [r["properties"]["tenant"] for r in starved] == ["quiet"]
    res = cli("simulate", str(path), "--capacity-tokens", "1200", "--format", "github")
    assert any("title=advisor TR501::tenant quiet keeps" in x for x in res.out.splitlines())


def test_annotation_formats_need_the_diagnosis(cli, traffic) -> None:
    res = cli("analyze", str(traffic["dynamic"]), "--no-diagnose", "--format", "sarif")
    assert res.code == 2 and "advisor: error:" in res.err and res.out == ""


def test_renderers_keep_lint_findings_as_they_were() -> None:
    # A lint finding (line and column) and a traffic finding (a record's line, or none) side
    # by side: the lint one keeps its region and properties, the traffic ones get theirs.
    lint = Finding("a.j2", 3, 4, "PC101", "m", rule="dynamic-prefix", severity="error", end_line=3, end_column=9,
                   tokens_at_risk=12)
    dyn = Finding(path="t.jsonl", line=7, code="TR101", token_offset=5, kind="datetime", requests=3,
                  tokens_lost=40, example="x", message="clock")
    run = Finding(path="t.jsonl", code="TR401", message="pool", details={"capacity_tokens": 10})
    doc = json.loads(output.render_sarif([lint, dyn, run], 2, "0", list(TRAFFIC_RULES.values())))
    validate(doc)
    a, b, c = doc["runs"][0]["results"]
    assert a["locations"][0]["physicalLocation"]["region"] == {"startLine": 3, "startColumn": 4, "endLine": 3,
                                                               "endColumn": 9}
    assert a["properties"] == {"tokens_at_risk": 12} and a["message"]["text"] == "m"
    assert "ruleIndex" not in a  # PC101 is not among the rules passed
    assert b["locations"][0]["physicalLocation"]["region"] == {"startLine": 7}
    assert b["message"]["text"] == "clock [token 5; 3 requests; 40 tokens lost]"
    assert b["properties"] == {"token_offset": 5, "kind": "datetime", "requests": 3, "tokens_lost": 40, "example": "x"}
    assert "region" not in c["locations"][0]["physicalLocation"] and c["properties"] == {"capacity_tokens": 10}
    gh = output.render_github([lint, dyn, run], 2).splitlines()
    assert gh == ["::error file=a.j2,line=3,col=4,endLine=3,endColumn=9,title=advisor PC101::m",
                  "::warning file=t.jsonl,line=7,title=advisor TR101::clock [token 5; 3 requests; 40 tokens lost]",
                  "::warning file=t.jsonl,title=advisor TR401::pool"]
