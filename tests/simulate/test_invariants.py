"""Pool bookkeeping stays consistent under random traffic, capacities and modes."""

from __future__ import annotations

import pytest

from advisor.simulate.block_lru import BlockPool
from advisor.simulate.branch_lru import BranchPool
from advisor.simulate.cache import make_pool
from advisor.simulate.model import CostModel, HitRules
from advisor.simulate.serve import ServeConfig, serve
from tests.simulate.helpers import hash_jobs, token_jobs


def check_idle(pool) -> None:
    """Nothing runs: no reserve, no locks, the counters equal what is stored."""
    assert pool.reserved == 0
    if isinstance(pool, BranchPool):
        stored = 0
        for tree in pool.trees.values():
            stored += tree.total_tokens * pool._units[id(tree)]
            assert all(node.lock_ref == 0 for node, _ in tree.nodes())
        assert stored == pool.tree_tokens
    else:
        assert isinstance(pool, BlockPool)
        assert not pool._ref
        assert pool.free_tokens == sum(pool._free.values()) == pool.block_tokens_used
    if pool.capacity is not None:
        assert pool.used_tokens() <= pool.capacity


@pytest.mark.parametrize("eviction", ["branch-lru", "block-lru", "lfu", "fifo"])
@pytest.mark.parametrize("capacity", [0, 40, 150, 600])
@pytest.mark.parametrize("seed", [0, 1])
def test_replay_and_serve_keep_the_books(eviction, capacity, seed):
    for jobs, rules in ((token_jobs(seed, n=80), HitRules("sglang", 4)), (hash_jobs(seed, n=60), HitRules())):
        pool = make_pool(eviction, capacity, rules)
        for job in jobs:
            lease = pool.acquire(job, 0, True)
            pool.commit(lease)
            pool.release(lease)
            check_idle(pool)
        for j in jobs:
            j.arrival = j.index * 0.001
        pool = make_pool(eviction, capacity, rules)
        (engine,) = serve(jobs, [pool], ServeConfig("lpm", max_running=3, cost=CostModel(1e-3, 1e-3)))
        assert engine.totals.requests == len(jobs)  # nothing is lost, even when a request
        check_idle(pool)                             # is longer than the whole pool
