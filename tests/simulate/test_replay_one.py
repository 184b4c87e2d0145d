"""replay_one: the one acquire-commit-release of a replayed request, for every pool."""

from __future__ import annotations

import random

import pytest

from advisor.index.radix import pack
from advisor.simulate.cache import make_pool
from advisor.simulate.model import EVICTIONS, HitRules, Job
from advisor.simulate.pool import Lease, replay_one

POOLS = [e for e in EVICTIONS if e != "optimal"]  # the offline bound is a plan, not a pool


def jobs(n: int = 60, seed: int = 19) -> list[Job]:
    rng = random.Random(seed)
    heads = [[rng.randrange(5000) for _ in range(rng.randrange(20, 80))] for _ in range(4)]
    out = []
    for i in range(n):
        ids = rng.choice(heads) + [rng.randrange(5000) for _ in range(rng.randrange(1, 40))]
        out.append(Job(i, "tokens", pack(ids), len(ids), 1))
    return out


@pytest.mark.parametrize("eviction", POOLS)
@pytest.mark.parametrize("capacity", [None, 150])
def test_same_hits_as_the_pool_lifecycle_spelled_out(eviction: str, capacity: int | None) -> None:
    rules = HitRules("sglang", 1)
    a, b = make_pool(eviction, capacity, rules), make_pool(eviction, capacity, rules)
    for job in jobs():
        lease = a.acquire(job, 0, True)
        assert lease is not None
        a.commit(lease)
        a.release(lease)
        got = replay_one(b, job)
        assert (got.cached, got.matched) == (lease.cached, lease.matched)
        assert b.used_tokens() == a.used_tokens() and b.evicted_tokens == a.evicted_tokens


@pytest.mark.parametrize("eviction", ["branch-lru", "block-lru"])
def test_the_callback_sees_the_prompt_in_the_pool(eviction: str) -> None:
    pool = make_pool(eviction, None, HitRules("none", 1))
    job = jobs(1)[0]
    seen: list[tuple[int, int]] = []

    def committed(lease: Lease) -> None:
        seen.append((lease.job.index, pool.peek(job)))

    lease = replay_one(pool, job, committed)
    # Committed: the whole prompt (up to the last full block) is hittable already.
    assert seen == [(job.index, pool.peek(job))] and seen[0][1] > 0 and lease.cached == 0
