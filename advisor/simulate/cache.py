"""The KV pool interface every eviction policy implements, and the factory.

A request's life in a pool, in the order the engines do it:

1. ``acquire``: look its prefix up, lock the hit, make room for the tokens it must
   compute (plus any reserve, e.g. its output), evicting lazily only the shortfall.
   Returns ``None`` when the room cannot be made (serve mode then keeps it waiting);
   ``force=True`` (replay) inserts as much as fits instead.
2. ``commit``: its prompt becomes hittable (SGLang inserts after the prefill step;
   vLLM registered the block hashes at allocation already, so commit does nothing).
3. ``release``: the request finished; its path is unlocked and its reserve freed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from advisor.simulate.model import HitRules, Job


@dataclass(eq=False)
class Lease:
    """A request's hold on the pool between ``acquire`` and ``release``."""

    job: Job
    matched: int  # leading ids (tokens, or hash blocks) found in the pool
    cached: int  # hit tokens under the engine's rules
    reserved: int = 0  # tokens allocated outside the cached prefix (uncached part, output)
    handle: object = None  # policy-specific: the locked radix node, or the block list
    extra: dict = field(default_factory=dict)


class Pool(Protocol):
    rules: HitRules
    capacity: int | None
    evicted_tokens: int

    def peek(self, job: Job, touch: bool = False) -> int: ...

    def locate(self, job: Job, touch: bool = True) -> tuple[int, object]: ...

    def parent_of(self, key: object) -> object | None: ...

    def acquire(self, job: Job, reserve: int = 0, force: bool = False) -> Lease | None: ...

    def commit(self, lease: Lease) -> None: ...

    def release(self, lease: Lease) -> None: ...

    def used_tokens(self) -> int: ...


def make_pool(eviction: str, capacity: int | None, rules: HitRules, blocks: object | None = None) -> Pool:
    """A pool of ``capacity`` tokens (None = unlimited) with the given eviction policy.

    ``blocks`` shares one block-hash index between block-LRU pools of a sweep, so the
    chained hashes of every request are computed once.
    """
    from advisor.simulate.block_lru import BlockIndex, BlockPool
    from advisor.simulate.branch_lru import BranchPool

    if eviction == "block-lru":
        index = blocks if isinstance(blocks, BlockIndex) else BlockIndex(rules.page)
        return BlockPool(capacity, rules, index)
    priority = {"branch-lru": "lru", "lru": "lru", "lfu": "lfu", "fifo": "fifo"}.get(eviction)
    if priority is None:
        raise ValueError(f"unknown eviction policy {eviction!r}")
    return BranchPool(capacity, rules, priority)


class PartitionedPool:
    """Per-tenant budgets: one private pool per tenant, sized by its share of the total.

    Tenants without a listed share use the ``*`` partition (the unassigned remainder).
    """

    def __init__(self, parts: dict[str, Pool], rules: HitRules) -> None:
        self.parts = parts
        self.rules = rules
        caps = [p.capacity for p in parts.values()]
        self.capacity = None if any(c is None for c in caps) else sum(c for c in caps if c is not None)

    def _pool(self, job: Job) -> Pool:
        pool = self.parts.get(job.tenant or "")
        return pool if pool is not None else self.parts["*"]

    @property
    def evicted_tokens(self) -> int:
        return sum(p.evicted_tokens for p in self.parts.values())

    def peek(self, job: Job, touch: bool = False) -> int:
        return self._pool(job).peek(job, touch)

    def locate(self, job: Job, touch: bool = True) -> tuple[int, object]:
        pool = self._pool(job)
        matched, key = pool.locate(job, touch)
        return matched, (id(pool), key)

    def parent_of(self, key: object) -> object | None:
        pool_id, inner = key  # type: ignore[misc]
        for pool in self.parts.values():
            if id(pool) == pool_id:
                up = pool.parent_of(inner)
                return None if up is None else (pool_id, up)
        return None

    def acquire(self, job: Job, reserve: int = 0, force: bool = False) -> Lease | None:
        return self._pool(job).acquire(job, reserve, force)

    def commit(self, lease: Lease) -> None:
        self._pool(lease.job).commit(lease)

    def release(self, lease: Lease) -> None:
        self._pool(lease.job).release(lease)

    def used_tokens(self) -> int:
        return sum(p.used_tokens() for p in self.parts.values())
