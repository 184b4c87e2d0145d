"""The offline optimal bound (advisor.simulate.optimal): never below any eviction policy at the
same capacity and hit rules, exact against a brute-force search on tiny traffic, and the
points `--sweep` adds. The kvcache-simulator cross-check is in test_peer.py."""

from __future__ import annotations

import itertools
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.index.radix import pack
from advisor.simulate.model import HitRules, Job
from advisor.simulate.optimal import OptimalPlan
from advisor.simulate.runner import BlockIndexes, RunSpec, run
from tests.simulate.helpers import hash_jobs, token_jobs, write_jsonl

POLICIES = ("branch-lru", "block-lru", "lfu", "fifo")

traffic = st.lists(
    st.tuples(st.integers(0, 3), st.lists(st.integers(0, 5), min_size=1, max_size=40)),
    min_size=1, max_size=40,
)
RULES = st.sampled_from([HitRules("none", 1), HitRules("sglang", 1), HitRules("sglang", 4),
                         HitRules("vllm", 4), HitRules("none", 8)])


def jobs_of(spec) -> list[Job]:
    out = []
    for i, (head, tail) in enumerate(spec):
        ids = [100 + head] * (4 + 3 * head) + tail  # shared heads of different lengths
        out.append(Job(i, "tokens", pack(ids), len(ids), 1, float(i), 1, None))
    return out


def hit(jobs, rules, capacity, eviction, warmup=0.0, indexes=None):
    spec = RunSpec(engine=rules.engine, page=rules.page, eviction=eviction, capacity=capacity, warmup=warmup)
    return run(jobs, spec, indexes or BlockIndexes()).totals


@settings(max_examples=120, deadline=None)
@given(traffic, st.integers(0, 200), RULES, st.sampled_from([0.0, 0.5]))
def test_never_below_any_policy(spec, capacity, rules, warmup):
    jobs = jobs_of(spec)
    indexes = BlockIndexes()
    bound = hit(jobs, rules, capacity, "optimal", warmup, indexes)
    for policy in POLICIES:
        got = hit(jobs, rules, capacity, policy, warmup, indexes)
        assert bound.cached_tokens >= got.cached_tokens, (policy, bound.cached_tokens, got.cached_tokens)
    # and never above unlimited capacity
    assert bound.cached_tokens <= hit(jobs, rules, None, "branch-lru", warmup, indexes).cached_tokens


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 40))
def test_never_below_any_policy_on_hash_traffic(seed, blocks):
    jobs = hash_jobs(seed, n=60, unit=32)
    indexes = BlockIndexes()
    bound = hit(jobs, HitRules(), blocks * 32, "optimal", 0.5, indexes)
    for policy in POLICIES:
        assert bound.cached_tokens >= hit(jobs, HitRules(), blocks * 32, policy, 0.5, indexes).cached_tokens


def brute_force(jobs: list[Job], capacity: int) -> int:
    """Most hit tokens any sequence of prefix-closed caches of at most ``capacity`` tokens
    can give, the cache after each request chosen freely among the blocks seen so far
    (page 1, no cap): exhaustive, for a handful of tiny requests."""
    prefixes = [[bytes(j.key[: 4 * (k + 1)]) for k in range(j.prompt_tokens)] for j in jobs]
    best = {frozenset(): 0}
    for i, job in enumerate(jobs):
        nxt: dict[frozenset, int] = {}
        seen = sorted({p for ps in prefixes[: i + 1] for p in ps})
        for cache, score in best.items():
            hits = 0
            for p in prefixes[i]:
                if p not in cache:
                    break
                hits += 1
            gained = score + hits
            pool = sorted(cache | set(prefixes[i]))
            for r in range(0, min(capacity, len(pool)) + 1):
                for keep in itertools.combinations(pool, r):
                    ks = set(keep)
                    if all(p[:-4] in ks for p in ks if len(p) > 4):  # prefix closed
                        key = frozenset(ks)
                        if nxt.get(key, -1) < gained:
                            nxt[key] = gained
        best = nxt
        del seen
    return max(best.values())


@settings(max_examples=30, deadline=None)
@given(st.lists(st.lists(st.integers(0, 1), min_size=1, max_size=3), min_size=1, max_size=5), st.integers(1, 3))
def test_matches_brute_force_on_tiny_traffic(spec, capacity):
    jobs = [Job(i, "t", pack(ids), len(ids), 1, float(i), 1, None) for i, ids in enumerate(spec)]
    plan = OptimalPlan(jobs, HitRules())
    assert plan.run(jobs, capacity).totals.cached_tokens == brute_force(jobs, capacity)


def test_unlimited_equals_the_lcp_ceiling():
    jobs = token_jobs(3, n=150)
    for rules in (HitRules(), HitRules("sglang", 1), HitRules("vllm", 16)):
        assert hit(jobs, rules, None, "optimal").cached_tokens == hit(jobs, rules, None, "branch-lru").cached_tokens


def test_sweep_gives_the_bound_at_every_capacity(cli, tmp_path):
    path = write_jsonl(tmp_path / "t.jsonl", token_jobs(5, n=200))
    res = cli("simulate", path, "--engine", "sglang", "--sweep", "--policy", "fcfs,lpm", "--format", "json")
    assert res.code == 0, res.err
    sweep = json.loads(res.out)["sweep"]
    caps = {p["capacity_tokens"] for p in sweep}
    bound = {p["capacity_tokens"]: p["hit_rate"] for p in sweep if p["eviction"] == "optimal"}
    assert set(bound) == caps and len(caps) >= 4
    for p in sweep:
        if p["eviction"] != "optimal" and p["policy"] == "fcfs":
            assert bound[p["capacity_tokens"]] >= p["hit_rate"], p
