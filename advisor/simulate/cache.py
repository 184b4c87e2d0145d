"""The pool factory: an eviction policy's name to a pool (the interface: ``pool``)."""

from __future__ import annotations

from advisor.simulate.block_lru import BlockIndex, BlockPool
from advisor.simulate.branch_lru import BranchPool
from advisor.simulate.model import HitRules
from advisor.simulate.no_cache import NoCachePool
from advisor.simulate.pool import Pool


def make_pool(eviction: str, capacity: int | None, rules: HitRules, blocks: object | None = None) -> Pool:
    """A pool of ``capacity`` tokens (None = unlimited) with the given eviction policy.

    ``blocks`` shares one block-hash index between block-LRU pools of a sweep, so the
    chained hashes of every request are computed once.
    """
    if eviction == "off":
        return NoCachePool(capacity, rules)
    if eviction == "block-lru":
        index = blocks if isinstance(blocks, BlockIndex) else BlockIndex(rules.page)
        return BlockPool(capacity, rules, index)
    priority = {"branch-lru": "lru", "lru": "lru", "lfu": "lfu", "fifo": "fifo"}.get(eviction)
    if priority is None:
        raise ValueError(f"unknown eviction policy {eviction!r}")
    return BranchPool(capacity, rules, priority)
