"""Seed workloads (the bundled workload specs) and the command's output contract."""

from __future__ import annotations

import json

import pytest

from advisor.simulate.runner import RunSpec, run
from advisor.simulate.workloads import build_workload, default_capacity
from tests.simulate.helpers import token_jobs, write_jsonl
from advisor.spec.generate import layout_around
from tests.spec.helpers import layout_tokens, tokens

CONTRACT = {"policy", "eviction", "engine", "capacity_tokens", "page_size", "replicas", "router", "requests",
            "prompt_tokens", "cached_tokens", "hit_rate", "prefill_tokens", "evicted_tokens", "per_tenant"}
NAMES = ("rag", "scrambled", "multi-tenant", "agent")


@pytest.fixture(scope="module")
def rates():
    out = {}
    for name in NAMES:
        jobs = build_workload(name, requests=160)
        for policy in ("fcfs", "lpm", "dfs-weight"):
            res = run(jobs, RunSpec(policy=policy, eviction="branch-lru", capacity=default_capacity(jobs), mode="serve"))
            out[name, policy] = res.totals.hit_rate
    return out


def test_workload_shape():
    jobs = build_workload("rag", requests=8)
    fixed = layout_tokens("system", "user") + 2000 + 300 + 4 * 500  # the rag spec: instructions, tools, passages
    assert all(fixed + 40 <= j.prompt_tokens <= fixed + 80 for j in jobs)  # the question: 40-80 tokens
    again = build_workload("rag", requests=8)
    assert [j.key for j in jobs] == [j.key for j in again]  # deterministic
    assert len({j.key[:4 * (fixed - 60)] for j in jobs}) == 8 > len({j.key[:4 * 2300] for j in jobs}) == 1
    scrambled = build_workload("scrambled", requests=8)
    opening = tokens(layout_around(("system", "user"))[0]) + 10  # the layout, then the first section
    assert len({j.key[: 4 * opening] for j in scrambled}) > 1  # different sections first


def test_cache_aware_beats_fcfs(rates):
    # Tenants' long private prefixes and agents' growing conversations are where cache-aware
    # scheduling pays under a small pool.
    for name in ("multi-tenant", "agent"):
        assert rates[name, "lpm"] > rates[name, "fcfs"] + 0.02, name
        assert rates[name, "dfs-weight"] > rates[name, "fcfs"] + 0.02, name
    # rag draws four of 1,000 passages: past the shared system prompt there is little to group.
    assert rates["rag", "lpm"] >= rates["rag", "fcfs"] - 0.01


def test_scrambled_both_drop(rates):
    for policy in ("fcfs", "lpm", "dfs-weight"):
        assert rates["scrambled", policy] < rates["rag", policy] - 0.1, policy


def test_unknown_workload(cli):
    res = cli("simulate", "--workload", "chatbot")
    assert res.code == 2 and "unknown --workload 'chatbot'" in res.err and "support-chat" in res.err


def test_cli_workload_text_and_json(cli):
    res = cli("simulate", "--workload", "rag", "--requests", 60)
    assert res.code == 0, res.err
    assert "Why the policies differ" in res.out and "lpm vs fcfs" in res.out
    res = cli("simulate", "--workload", "scrambled", "--requests", 60, "--format", "json")
    data = json.loads(res.out)
    assert [r["policy"] for r in data["runs"]] == ["fcfs", "lpm", "dfs-weight"]
    assert all("ttft_p90_s" in r["serve"] for r in data["runs"])
    assert {e["policy"] for e in data["explanations"]} == {"lpm", "dfs-weight"}


def test_json_contract_and_determinism(cli, tmp_path):
    path = write_jsonl(tmp_path / "t.jsonl", token_jobs(1, n=80))
    args = ("simulate", path, "--capacity-tokens", 300, "--policy", "fcfs,random,lof",
            "--eviction", "branch-lru,block-lru,lfu,fifo", "--engine", "sglang", "--format", "json")
    first = cli(*args)
    assert first.code == 0, first.err
    data = json.loads(first.out)
    assert len(data["runs"]) == 12
    for r in data["runs"]:
        assert CONTRACT <= set(r)
        assert r["prefill_tokens"] == r["prompt_tokens"] - r["cached_tokens"]
        assert r["evicted_tokens"] > 0
    assert cli(*args).out == first.out


def test_sweep_points(cli, tmp_path):
    path = write_jsonl(tmp_path / "t.jsonl", token_jobs(2, n=80))
    res = cli("simulate", path, "--sweep", "--eviction", "branch-lru,block-lru", "--format", "json")
    assert res.code == 0, res.err
    points = json.loads(res.out)["sweep"]
    caps = sorted({p["capacity_tokens"] or 10**12 for p in points})
    assert len(caps) == 8 and points[-1]["capacity_tokens"] is None
    for ev in ("branch-lru", "block-lru"):
        curve = [p["hit_rate"] for p in points if p["eviction"] == ev]
        assert curve[-1] == max(curve)  # unlimited is the ceiling
    text = cli("simulate", path, "--sweep")
    assert "Capacity sweep" in text.out
    md = cli("simulate", path, "--sweep", "--format", "markdown")
    assert md.out.startswith("# advisor simulate") and "| capacity |" in md.out


@pytest.mark.parametrize("args", [
    ("--engine", "trt"), ("--eviction", "mru"), ("--policy", "sjf"), ("--mode", "live"),
    ("--router", "hash"), ("--format", "xml"),
])
def test_usage_errors_exit_2(cli, tmp_path, args):
    path = write_jsonl(tmp_path / "t.jsonl", token_jobs(0, n=5))
    res = cli("simulate", path, *args)
    assert res.code == 2
    assert "advisor: error" in res.err or "Usage" in res.err or "Invalid" in res.err


def test_serve_is_default_with_timestamps(cli, tmp_path):
    path = write_jsonl(tmp_path / "t.jsonl", token_jobs(0, n=20), timestamps=True)
    data = json.loads(cli("simulate", path, "--format", "json").out)
    assert data["input"]["mode"] == "serve" and "serve" in data["runs"][0]
    plain = write_jsonl(tmp_path / "p.jsonl", token_jobs(0, n=20))
    data = json.loads(cli("simulate", plain, "--format", "json").out)
    assert data["input"]["mode"] == "replay"
    data = json.loads(cli("simulate", plain, "--rate", "5", "--format", "json").out)
    assert data["input"]["mode"] == "serve"


def test_capacity_pressure_finding(cli, tmp_path):
    path = write_jsonl(tmp_path / "t.jsonl", token_jobs(1, n=80))
    tight = json.loads(cli("simulate", path, "--capacity-tokens", 150, "--format", "json").out)
    assert [f["code"] for f in tight["findings"]] == ["TR401"]
    f = tight["findings"][0]
    assert f["rule"] == "capacity-pressure" and f["hit_rate"] < 0.8 * f["unlimited_hit_rate"]
    roomy = json.loads(cli("simulate", path, "--capacity-tokens", 100_000, "--format", "json").out)
    assert roomy["findings"] == []
