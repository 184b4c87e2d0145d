"""`advisor report`: decisions on the demo traffic, the picture, determinism, staleness."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.conftest import DEMO_TRAFFIC, ROOT

DEMO_FILES = sorted(DEMO_TRAFFIC.glob("*.jsonl"))


def _report(cli, *args: str) -> dict:
    res = cli("report", *args, "--format", "json", "--output", "-")
    assert res.code == 0, res.err
    return json.loads(res.out)


def test_single_shot_traffic_is_no_go(cli) -> None:
    data = _report(cli, "--traffic", DEMO_TRAFFIC / "single_shot.jsonl")
    assert data["decision"] == "no-go" and data["engine"] == "vllm"
    assert any("Single-shot" in r for r in data["refusals"])
    assert data["hit_rate"] < 0.1


def test_clean_rag_traffic_vllm_already_gets_the_hits(cli) -> None:
    # One shared system prompt and a pool far larger than the working set: vLLM's prefix
    # caching gets the same hits as SGLang, so the advice is to keep vLLM (prefix caching on).
    data = _report(cli, "--traffic", DEMO_TRAFFIC / "rag_tools.jsonl")
    assert data["hit_rate"] > 0.4
    add = data["simulation"]["engines"]["sglang_over_vllm"]
    t = data["input"]["thresholds"]
    assert abs(add["hit_rate_points"]) < t["sglang_hit_points"]
    assert add["throughput_gain"] < t["sglang_throughput_gain"] and add["ttft_p90_gain"] < t["sglang_ttft_gain"]
    assert data["decision"] == "no-go" and data["engine"] == "vllm"
    assert any("already gets what this traffic offers" in r for r in data["reasons"])
    assert data["rollout"]["command"].startswith("vllm serve meta-llama/Llama-3.1-8B --tensor-parallel-size 1")
    # The DESIGN.md report fields.
    for key in ("decision", "engine", "reasons", "hit_rate", "hit_rate_after_prescription", "cost"):
        assert key in data
    assert data["cost"]["kv_bytes_per_token"] == 131072


def test_planted_defect_shows_in_the_audit(cli) -> None:
    data = _report(cli, str(ROOT / "templates"), "--traffic", DEMO_TRAFFIC / "support_chat.jsonl")
    assert [f["code"] for f in data["lint"]] == ["PC101"]
    assert [f["code"] for f in data["traffic"]["findings"]] == ["TR101"]
    assert data["hit_rate"] < 0.3 and data["hit_rate_after_prescription"] > 0.9
    # Today's traffic is a NO-GO; moving the timestamp out of the prefix is measured to lift it
    # over the go bar, so the headline is decided on that move (issue 12, acceptance 3), with
    # the engine comparison simulated on the rewritten traffic (issue 35).
    from advisor.advise.decide import Thresholds, sglang_adds

    assert (data["decision_today"], data["engine_today"]) == ("no-go", "vllm")
    clears = sglang_adds(data["after_fix"]["simulation"]["engines"], Thresholds())
    assert (data["decision"], data["engine"], data["basis"]) == (
        ("go", "sglang", "after-fix") if clears else ("no-go", "vllm", "after-fix"))
    assert [m["code"] for m in data["conditional_on"]] == ["TR101"]
    assert data["reasons"][0].startswith(("GO on condition that the change is made: Move the datetime" if clears else
                                          "NO-GO with or without the change: Move the datetime"))


def test_templates_without_traffic_is_trial(cli) -> None:
    data = _report(cli, str(ROOT / "templates"))
    assert data["decision"] == "trial"
    assert "Collect" in data["reasons"][0]


def test_thresholds_are_configurable(cli) -> None:
    data = _report(cli, "--traffic", DEMO_TRAFFIC / "rag_tools.jsonl", "--go-above", "0.9", "--no-go-below", "0.85")
    assert data["decision"] == "no-go"
    bad = cli("report", "--traffic", DEMO_TRAFFIC / "rag_tools.jsonl", "--go-above", "0.2", "--no-go-below", "0.5")
    assert bad.code == 2 and "--no-go-below" in bad.err


def test_picture_opens_and_shows_both_policies(cli, tmp_path: Path) -> None:
    from PIL import Image

    out = tmp_path / "advisory.md"
    res = cli("report", "--traffic", DEMO_TRAFFIC / "rag_tools.jsonl", "--output", out)
    assert res.code == 0, res.err
    png = out.with_suffix(".png")
    with Image.open(png) as img:
        img.verify()
    with Image.open(png) as img:
        assert img.format == "PNG" and img.size[0] >= 600
        colours = {c for _, c in img.convert("RGB").getcolors(maxcolors=1 << 24)}
    # The two policy lines are drawn in their own colours (FCFS red, cache-aware blue).
    assert (0xC0, 0x39, 0x2B) in colours and (0x1F, 0x6F, 0xB2) in colours
    assert "![hit rate against pool size](advisory.png)" in out.read_text()


def test_report_is_byte_identical_and_cites_no_unmeasured_speedup(cli, tmp_path: Path) -> None:
    a, b = tmp_path / "a" / "r.md", tmp_path / "b" / "r.md"
    for out in (a, b):
        out.parent.mkdir()  # -o never makes a folder
        assert cli("report", str(ROOT / "templates"), "--traffic", DEMO_TRAFFIC / "rag_tools.jsonl",
                   "--output", out).code == 0
    assert a.read_bytes() == b.read_bytes()
    assert a.with_suffix(".png").read_bytes() == b.with_suffix(".png").read_bytes()
    assert not re.search(r"\b\d+(\.\d+)?x\b", a.read_text()), "a speedup figure that was not measured"


def test_committed_example_report_is_fresh(cli, tmp_path: Path, monkeypatch) -> None:
    # `make demo` writes outputs/skill-radix-scheduler-advisor.md from these exact inputs.
    monkeypatch.chdir(ROOT)
    out = tmp_path / "skill-radix-scheduler-advisor.md"
    args = ["report", "templates"]
    for f in DEMO_FILES:
        args += ["--traffic", str(f.relative_to(ROOT))]
    res = cli(*args, "--output", out)
    assert res.code == 0, res.err
    committed = ROOT / "outputs" / "skill-radix-scheduler-advisor.md"
    assert out.read_text() == committed.read_text(), "outputs/ is stale: run `make demo` and commit it"
