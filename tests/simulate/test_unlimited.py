"""With unlimited capacity every eviction policy, engine and replay order gives analyze's
cached tokens with the engine's hit rule applied (REFERENCE.md §3.1)."""

from __future__ import annotations

import pytest

from advisor.index.analyze import Analyzer
from advisor.simulate.model import HitRules
from advisor.simulate.runner import RunSpec, run
from advisor.simulate.schedulers import offline_order
from tests.simulate.helpers import as_sequences, hash_jobs, pool_hits, token_jobs

EVICTIONS = ("branch-lru", "block-lru", "lfu", "fifo")


def expected(jobs, engine: str, page: int) -> list[int]:
    """analyze (page 1) per request, then floor(min(LCP, L-1)/P)*P, or LCP floored to P."""
    analyzer = Analyzer(1)
    out = []
    for seq in as_sequences(jobs):
        lcp = analyzer.add(seq)
        cap = seq.prompt_tokens - 1 if engine != "none" else seq.prompt_tokens
        hit = min(lcp, cap)
        out.append(hit - hit % page)
    return out


@pytest.mark.parametrize("eviction", EVICTIONS)
@pytest.mark.parametrize("engine,page", [("none", 1), ("none", 4), ("sglang", 1), ("sglang", 16), ("vllm", 16), ("vllm", 4)])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_token_traffic_equals_analyze(eviction, engine, page, seed):
    jobs = token_jobs(seed)
    assert pool_hits(jobs, eviction, None, HitRules(engine, page)) == expected(jobs, engine, page)


@pytest.mark.parametrize("eviction", EVICTIONS)
@pytest.mark.parametrize("engine,page", [("none", 1), ("sglang", 1), ("vllm", 16)])
def test_hash_traffic_equals_analyze(eviction, engine, page):
    jobs = hash_jobs(3)
    assert pool_hits(jobs, eviction, None, HitRules(engine, page)) == expected(jobs, engine, page)


def test_analyze_page_size_matches_engine_none():
    """engine none at page P is analyze --page-size P exactly."""
    jobs = token_jobs(5)
    analyzer = Analyzer(8)
    want = sum(analyzer.add(s) for s in as_sequences(jobs))
    got = run(jobs, RunSpec(eviction="branch-lru", page=8)).totals.cached_tokens
    assert got == want == analyzer.result.cached_tokens


@pytest.mark.parametrize("policy", ["fcfs", "lpm", "dfs-weight", "lof", "random"])
@pytest.mark.parametrize("eviction", EVICTIONS)
def test_every_replay_order_equals_analyze_of_that_order(policy, eviction):
    jobs = token_jobs(7)
    order = offline_order(policy, jobs, seed=3)
    assert sorted(order) == list(range(len(jobs)))
    ordered = [jobs[p] for p in order]
    want = sum(expected(ordered, "sglang", 1))
    got = run(jobs, RunSpec(policy=policy, eviction=eviction, engine="sglang", page=1, seed=3))
    assert got.totals.cached_tokens == want
    assert got.evicted_tokens == 0
