"""Determinism: every command twice on the same input gives byte-identical output, in
one process and across processes with different hash seeds (set and dict order)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import DEMO_TRAFFIC, ROOT
from tests.robustness.conftest import report_available

TEMPLATES = ROOT / "templates"


@pytest.fixture(scope="module")
def traffic(tmp_path_factory) -> Path:
    """A mixed log: chat with tools, templated RAG, hash blocks, tenants and timestamps."""
    folder = tmp_path_factory.mktemp("det")
    lines: list[str] = []
    for name, n in (("support_chat.jsonl", 40), ("agent_tools.jsonl", 30), ("rag_templated.jsonl", 30)):
        with (DEMO_TRAFFIC / name).open() as fh:
            lines += [next(fh) for _ in range(n)]
    for i in range(40):
        rec = json.loads(lines[i])
        rec["tenant"] = "ab"[i % 2]
        rec["timestamp"] = 1_700_000_000 + i * 0.25
        lines[i] = json.dumps(rec) + "\n"
    path = folder / "mixed.jsonl"
    path.write_text("".join(lines))
    hashes = folder / "hashes.jsonl"
    hashes.write_text("".join(
        json.dumps({"hash_ids": [1, 2, 3 + i % 4, 100 + i], "input_length": 2000, "timestamp": i * 100,
                    "tenant": f"t{i % 3}"}) + "\n" for i in range(60)))
    return path


def _runs(traffic: Path) -> dict[str, list[str]]:
    hashes = traffic.parent / "hashes.jsonl"
    t, tpl = str(traffic), str(TEMPLATES)
    runs = {
        "analyze-json": ["analyze", t, "--templates", tpl, "-f", "json"],
        "analyze-markdown": ["analyze", t, "--templates", tpl, "-f", "markdown"],
        "analyze-text": ["analyze", t, "--templates", tpl],
        "analyze-hashes": ["analyze", str(hashes), "-f", "json", "--block-size", "512"],
        "simulate-json": ["simulate", t, "--templates", tpl, "-f", "json", "--capacity-tokens", "6000",
                          "--policy", "fcfs,lpm,random,dfs-weight", "--eviction", "branch-lru,block-lru,lfu",
                          "--replicas", "2", "--router", "random", "--rate", "50", "--seed", "3"],
        "simulate-sweep": ["simulate", str(hashes), "-f", "markdown", "--sweep", "--tenant-budget", "equal",
                           "--capacity-tokens", "8000"],
        "simulate-workload": ["simulate", "--workload", "scrambled", "--requests", "60", "-f", "json"],
        "prescribe-json": ["prescribe", t, "--templates", tpl, "-f", "json"],
        "prescribe-diff": ["prescribe", t, "--templates", tpl, "-f", "diff", "--capacity-tokens", "20000"],
        "lint-json": ["lint", "--isolated", "--format", "json", tpl],
        "lint-sarif": ["lint", "--isolated", "--format", "sarif", tpl],
        "lint-text": ["lint", "--isolated", tpl],
        "cost-json": ["cost", "--model", "llama-3.1-70b", "--gpu", "h100", "--tp", "4", "--prefix-tokens", "3000",
                      "--format", "json"],
        "cost-text": ["cost", "--model", "gemma-2-9b", "--gpu", "l40s", "--prefix-tokens", "3000", "--batch", "8"],
        "cost-list": ["cost", "--list", "--format", "json"],
        "spec-generate": ["spec", "generate", "--example", "support-chat", "--requests", "30", "-o", "-"],
        "plan-json": ["plan", "--example", "multi-tenant", "--requests", "40", "-f", "json"],
        "plan-markdown": ["plan", "--example", "scrambled", "--requests", "40"],
        "rules": ["rules", "--format", "json"],
        "rule": ["rule", "PC101"],
    }
    if report_available():
        runs["report-json"] = ["report", tpl, "-t", t, "--record-templates", tpl, "-f", "json", "-o", "-"]
    return runs


RUN_NAMES = list(_runs(Path("x")))


@pytest.mark.parametrize("name", RUN_NAMES)
def test_same_output_twice_in_process(name, traffic, cli):
    argv = _runs(traffic)[name]
    first = cli(*argv)
    second = cli(*argv)
    assert first.code in (0, 1), first.err
    assert first.out, first.err
    assert first.out == second.out
    assert first.code == second.code
    if "json" in argv or name.endswith("json"):
        json.loads(first.out, parse_constant=_no_constants)  # strict JSON: no NaN or Infinity


def _no_constants(name: str) -> None:
    raise AssertionError(f"{name} in JSON output")


def test_output_files_are_identical(traffic, tmp_path, cli):
    """--output files too (and the report's PNG beside its markdown)."""
    t, tpl = str(traffic), str(TEMPLATES)
    for name, argv in (("a.json", ["analyze", t, "--templates", tpl, "-f", "json"]),
                       ("s.md", ["simulate", t, "--templates", tpl, "--capacity-tokens", "5000", "--sweep"]),
                       ("p.md", ["prescribe", t, "--templates", tpl]),
                       ("l.sarif", ["lint", "--isolated", "--format", "sarif", tpl])):
        blobs = []
        for k in range(2):
            out = tmp_path / str(k) / name
            out.parent.mkdir(exist_ok=True)  # -o never makes a folder
            res = cli(*argv, "-o", out)
            assert res.code in (0, 1), res.err
            blobs.append(out.read_bytes())
        assert blobs[0] == blobs[1], name
    if report_available():
        files = []
        for k in range(2):
            out = tmp_path / f"r{k}" / "advisory.md"
            out.parent.mkdir()
            res = cli("report", tpl, "-t", t, "--record-templates", tpl, "-o", out)
            assert res.code in (0, 1), res.err
            files.append(sorted((p.name, p.read_bytes()) for p in out.parent.iterdir()))
        assert files[0] == files[1]


def _subprocess(argv: list[str], seed: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "ADVISOR_NO_PROGRESS": "1", "PYTHONHASHSEED": seed}
    return subprocess.run([sys.executable, "-m", "advisor", *argv], capture_output=True, env=env, timeout=300)


@pytest.mark.parametrize("name", ["analyze-json", "simulate-json", "prescribe-json", "lint-sarif", "spec-generate",
                                  "plan-json"]
                         + (["report-json"] if report_available() else []))
def test_same_output_across_hash_seeds(name, traffic):
    argv = _runs(traffic)[name]
    a = _subprocess(argv, "1")
    b = _subprocess(argv, "4242")
    assert a.returncode in (0, 1), a.stderr
    assert a.stdout == b.stdout
    assert a.stderr == b.stderr
