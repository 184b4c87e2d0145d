"""The simulator's shortcuts give exactly what the plain computation gives.

- ``BranchPool`` keeps each job's last walk of the radix tree and reuses it while no node
  the walk read has changed (``RadixTree.version``, ``Node.changed``): every run must equal
  the run that walks the tree every time, field for field, for every scheduler.
- The serve loop skips the FCFS sort while the waiting queue is in index order: equal to
  sorting every round.
- A kept walk that still holds is the walk a fresh ``match_prefix`` makes, on random trees
  grown, split and pruned at random.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest

import advisor.simulate.branch_lru as branch_lru
from advisor.index.radix import ITEM, Node, RadixTree, pack
from advisor.simulate.model import CostModel, Job
from advisor.simulate.runner import RunResult, RunSpec, run
from advisor.simulate.serve import Engine
from advisor.simulate.schedulers import order_waiting
from tests.simulate.helpers import hash_jobs, token_jobs


def _figures(r: RunResult) -> tuple[Any, ...]:
    return (r.totals, r.per_replica, r.evicted_tokens, r.prefill_seconds, r.makespan,
            r.busy_prefill_seconds, r.busy_decode_seconds)


def _bursty(jobs: list[Job], seed: int) -> list[Job]:
    """Arrivals in bursts, so queues build up and the scheduler matches them every round."""
    rng = random.Random(seed)
    t = 0.0
    out = []
    for j in jobs:
        if rng.random() < 0.2:
            t += rng.random() * 0.5
        out.append(replace(j, arrival=t, memo={}))
    return out


SPECS = [
    RunSpec(policy=policy, eviction=eviction, engine=engine, capacity=capacity, page=page, mode="serve",
            cost=CostModel(1e-4, 1e-3), replicas=replicas, router=router)
    for policy in ("fcfs", "lpm", "dfs-weight", "lof", "random")
    for eviction, engine, page in (("branch-lru", "sglang", 1), ("branch-lru", "sglang", 4), ("lfu", "sglang", 1),
                                   ("fifo", "sglang", 1), ("block-lru", "vllm", 4))
    for capacity, replicas, router in ((150, 1, "round-robin"), (400, 2, "cache-aware"))
]


@pytest.mark.parametrize("seed", [0, 1])
def test_kept_walks_and_skipped_sorts_change_nothing(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    jobs = _bursty(token_jobs(seed=seed, n=150, groups=4, prefix=60, tail=25), seed)
    hashed = _bursty(hash_jobs(seed=seed, n=90), seed)
    fast = [_figures(run(js, spec)) for js in (jobs, hashed) for spec in SPECS]
    monkeypatch.setattr(branch_lru, "_still_walks", lambda walked, tree: False)

    def always_sort(self: Engine) -> None:
        order_waiting(self.config.policy, self.waiting, self.pool, self._rng)

    monkeypatch.setattr(Engine, "_order", always_sort)
    plain = [_figures(run(js, spec)) for js in (jobs, hashed) for spec in SPECS]
    assert fast == plain


def _walk(tree: RadixTree, key: bytes) -> tuple[Node, int, Node | None, list[Node]]:
    path: list[Node] = []
    node, matched, touched = tree.match_prefix(key, False, False, path)
    return node, matched, touched, path


@pytest.mark.parametrize("page", [1, 2])
def test_a_walk_that_still_holds_is_a_fresh_walk(page: int) -> None:
    rng = random.Random(page)
    tree = RadixTree(page, track_changes=True)
    stems = [[rng.randrange(6) for _ in range(12)] for _ in range(3)]

    def key() -> bytes:
        ids = rng.choice(stems)[: rng.randint(0, 12)] + [rng.randrange(6) for _ in range(rng.randint(0, 6))]
        return pack(ids[: len(ids) - len(ids) % page])

    kept: list[tuple[bytes, tuple[Any, ...]]] = []
    held = checked = 0
    for _ in range(3000):
        op = rng.random()
        if op < 0.3:
            tree.insert_node(key())
        elif op < 0.45:
            tree.match_prefix(key())  # may split
        elif op < 0.6:
            leaves = list(tree.leaves())
            if leaves:
                tree.remove_leaf(rng.choice(leaves))
        else:
            k = key()
            node, matched, touched, path = _walk(tree, k)
            kept.append((k, (tree, tree.version, node, matched, touched, path)))
        for k, walked in rng.sample(kept[-20:], min(len(kept), 5)):
            checked += 1
            if branch_lru._still_walks(walked, tree):
                held += 1
                assert _walk(tree, k) == tuple(walked[2:])
    assert held > checked // 10  # the kept walks are used, not only refused
    assert all(len(n.key) % (page * ITEM) == 0 for n, _ in tree.nodes())
