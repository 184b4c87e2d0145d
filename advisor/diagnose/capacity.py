"""Hits under a finite KV pool, for the eviction share of the loss and the pin action.

Replays the requests one at a time through the simulator's SGLang-style pool (whole-leaf
LRU eviction, ``advisor.simulate``), optionally with one prefix pinned: locked in the tree
from the first request that carries it, so eviction never removes it (what a serving
engine's pinned or priority prefix gives).
"""

from __future__ import annotations

from functools import partial
from typing import Iterable

from advisor.index.analyze import Analyzer
from advisor.ingest.pipeline import TOKEN_NAMESPACE, Sequence
from advisor.ingest.ids import pack
from advisor.simulate.branch_lru import BranchPool
from advisor.simulate.model import HitRules, Job
from advisor.simulate.pool import Lease, replay_one


def cached_with_capacity(seqs: Iterable[Sequence], capacity: int, page_size: int = 1,
                         pin: list[int] | None = None) -> int:
    """Cached tokens of ``seqs`` in arrival order with a pool of ``capacity`` tokens."""
    pool = BranchPool(capacity, HitRules("none", page_size), "lru")
    key = pack(pin) if pin else None
    cached = 0
    for i, seq in enumerate(seqs):
        job = Job.from_sequence(i, seq)
        if key is not None and job.namespace == TOKEN_NAMESPACE and job.key.startswith(key):
            # Pinned once its first carrier is in the tree, before that request lets go.
            lease = replay_one(pool, job, partial(_pin, pool, key))
            key = None
        else:
            lease = replay_one(pool, job)
        cached += lease.cached
    return cached


def _pin(pool: BranchPool, key: bytes, lease: Lease) -> None:
    pool.pin(lease.job.namespace, key)


def pin_candidate(seqs: Iterable[Sequence], page_size: int = 1, min_share: float = 0.5) -> list[int] | None:
    """The prefix worth pinning: the shared branch that saves the most tokens, if at least
    ``min_share`` of the requests start with it (the system prompt, as traffic shows it)."""
    analyzer = Analyzer(page_size)
    count = 0
    for seq in seqs:
        if seq.unit == 1:
            analyzer.add(seq)
            count += 1
    tree = analyzer.result.trees.get(TOKEN_NAMESPACE)
    if tree is None or not count:
        return None
    for branch in tree.shared_branches(top=5):
        if branch.requests >= min_share * count:
            return tree.path_ids(branch.node)
    return None
