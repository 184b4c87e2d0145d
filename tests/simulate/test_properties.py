"""Properties that hold for any traffic: a finite pool never beats an unlimited one, and
block LRU (a stack algorithm) never loses hits when the pool grows."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.index.radix import pack
from advisor.simulate.model import HitRules, Job
from tests.simulate.helpers import pool_hits

traffic = st.lists(
    st.tuples(st.integers(0, 3), st.lists(st.integers(0, 4), min_size=1, max_size=30)),
    min_size=1, max_size=40,
)


def jobs_of(spec) -> list[Job]:
    out = []
    for i, (head, tail) in enumerate(spec):
        ids = [head] * 8 + tail  # four 8-token heads shared by many requests
        out.append(Job(i, "tokens", pack(ids), len(ids), 1, float(i), 1, None))
    return out


@settings(max_examples=60, deadline=None)
@given(traffic, st.integers(0, 120))
def test_finite_never_beats_unlimited(spec, capacity):
    jobs = jobs_of(spec)
    for eviction, rules in (("branch-lru", HitRules("sglang", 1)), ("lfu", HitRules("sglang", 2)),
                            ("fifo", HitRules()), ("block-lru", HitRules("vllm", 2))):
        finite = pool_hits(jobs, eviction, capacity, rules)
        ceiling = pool_hits(jobs, eviction, None, rules)
        assert all(f <= c for f, c in zip(finite, ceiling)), eviction


@settings(max_examples=60, deadline=None)
@given(traffic, st.integers(0, 60), st.integers(1, 60))
def test_block_lru_grows_with_the_pool(spec, capacity, extra):
    jobs = jobs_of(spec)
    # Requests fit in both pools, so no forced cut: the LRU stack property holds.
    capacity += max(j.prompt_tokens for j in jobs) + 2
    rules = HitRules("vllm", 2)
    small = pool_hits(jobs, "block-lru", capacity, rules)
    large = pool_hits(jobs, "block-lru", capacity + 2 * extra, rules)
    assert all(s <= g for s, g in zip(small, large))
