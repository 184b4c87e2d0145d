"""kvcache-simulator as a differential oracle on random small hash traces (REFERENCE.md
§10.6): its LRU equals our block-LRU exactly when every request fits in the pool, and
its Belady-style ``optimal`` bounds every eviction policy from above."""

from __future__ import annotations

import json
import random

import pytest

from advisor.simulate.runner import RunSpec, run
from tests.simulate.helpers import hash_jobs


UNIT = 32


def peer(jobs, capacity_blocks: int, policy: str):
    from kvcache_sim.plan import build_execution_plan
    from kvcache_sim.policies import simulate_policy
    from kvcache_sim.trace import parse_trace_lines

    lines = []
    for j in jobs:
        ids = memoryview(j.key).cast("I").tolist()
        lines.append(json.dumps({"hash_ids": ids, "input_length": j.prompt_tokens}))
    data = parse_trace_lines(lines, block_size=UNIT)
    return simulate_policy(build_execution_plan(data, warmup_fraction=0.5), policy, capacity_blocks)


def chained(seed: int, n: int = 150):
    """hash_jobs with ids made chain-unique (Mooncake ids identify the whole prefix)."""
    jobs = hash_jobs(seed, n=n, unit=UNIT)
    table: dict[tuple, int] = {}
    from array import array

    for j in jobs:
        ids = memoryview(j.key).cast("I").tolist()
        out = []
        for k in range(len(ids)):
            out.append(table.setdefault(tuple(ids[: k + 1]), len(table)))
        j.key = array("I", out).tobytes()
    return jobs


@pytest.mark.parametrize("seed", range(6))
def test_block_lru_equals_peer_lru_and_optimal_bounds_all(seed):
    jobs = chained(seed)
    longest = max(j.elements for j in jobs)
    rng = random.Random(seed)
    for blocks in sorted({longest, longest + 1, longest + rng.randint(2, 20), 2 * longest}):
        lru = peer(jobs, blocks, "lru")
        if lru.measurementMode != "fixed_window":
            continue  # the peer omits points whose pool never filled before the window
        ours = run(jobs, RunSpec(eviction="block-lru", capacity=blocks * UNIT, warmup=0.5))
        assert ours.totals.cached_tokens == lru.hitTokens, blocks
        best = peer(jobs, blocks, "optimal").hitTokens
        for eviction in ("branch-lru", "lfu", "fifo"):
            other = run(jobs, RunSpec(eviction=eviction, capacity=blocks * UNIT, warmup=0.5))
            assert other.totals.cached_tokens <= best, (eviction, blocks)
        assert ours.totals.cached_tokens <= best
