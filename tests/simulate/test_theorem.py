"""SGLang Theorem 3.1 on the Mooncake traces (REFERENCE.md §10.2): with capacity = the
longest request, an offline batch in depth-first order hits exactly 1 - unique/total
blocks; FCFS in trace order at the same capacity gets far less."""

from __future__ import annotations

import json

import pytest

from advisor.ingest.source import SkipLog, open_traffic
from advisor.simulate.inputs import to_jobs
from advisor.simulate.runner import RunSpec, run
from tests.conftest import trace

CASES = [("conversation_trace.jsonl", 0.3664, 247), ("synthetic_trace.jsonl", 0.6396, 374)]


def load(path):
    jobs, _ = to_jobs(open_traffic([path], "llama3", None, None, 512, SkipLog(quiet=True)))
    return jobs


def unique_and_total(path) -> tuple[int, int]:
    unique, total = set(), 0
    for line in path.read_text().splitlines():
        ids = json.loads(line)["hash_ids"]
        total += len(ids)
        unique.update(ids)
    return len(unique), total


@pytest.mark.parametrize("name,published,longest", CASES)
def test_depth_first_order_reaches_the_optimum(name, published, longest):
    path = trace(name)
    jobs = load(path)
    assert max(j.elements for j in jobs) == longest
    unique, total = unique_and_total(path)
    capacity = longest * 512
    for policy in ("lpm", "dfs-weight"):  # sorted order, and the weighted DFS of the batch
        for eviction in ("block-lru", "branch-lru"):
            res = run(jobs, RunSpec(policy=policy, eviction=eviction, capacity=capacity))
            assert res.totals.units == total
            assert res.totals.cached_units == total - unique  # exactly the optimum
            assert round(res.totals.block_hit_rate, 4) == published
    fcfs = run(jobs, RunSpec(policy="fcfs", eviction="block-lru", capacity=capacity))
    assert fcfs.totals.block_hit_rate < 0.2 * published


def test_theorem_through_the_cli(cli):
    path = trace("synthetic_trace.jsonl")
    res = cli("simulate", path, "--mode", "replay", "--policy", "fcfs,dfs-weight", "--eviction", "block-lru",
              "--capacity-tokens", 374 * 512, "--format", "json")
    assert res.code == 0, res.err
    runs = {r["policy"]: r for r in json.loads(res.out)["runs"]}
    assert round(runs["dfs-weight"]["block_hit_rate"], 4) == 0.6396
    assert runs["fcfs"]["block_hit_rate"] < 0.1
