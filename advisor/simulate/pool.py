"""The KV pool interface every eviction policy implements, and per-tenant partitions.

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

from dataclasses import dataclass
from typing import Callable, Hashable, Protocol

from advisor.simulate.model import HitRules, Job


@dataclass(eq=False)
class Lease:
    """A request's hold on the pool between ``acquire`` and ``release``.

    Each pool subclasses it with what it must find again at commit and release (the
    locked radix node, the held blocks), so nothing policy-specific is untyped here.
    """

    job: Job
    matched: int  # leading ids (tokens, or hash blocks) found in the pool
    cached: int  # hit tokens under the engine's rules
    reserved: int = 0  # tokens allocated outside the cached prefix (uncached part, output)


class Pool(Protocol):
    """What the replay, the serve loop, the schedulers and the router call on a pool."""

    rules: HitRules
    capacity: int | None

    @property
    def evicted_tokens(self) -> int: ...
    # SGLang refreshes waiting prefixes only under LRU of whole leaves (serve mode).
    refreshes_waiting: bool

    def peek(self, job: Job, touch: bool = False) -> int: ...

    def locate(self, job: Job, touch: bool = True) -> tuple[int, Hashable]: ...

    def parent_of(self, key: Hashable) -> Hashable | None: ...

    def acquire(self, job: Job, reserve: int = 0, force: bool = False) -> Lease | None: ...

    def commit(self, lease: Lease) -> None: ...

    def release(self, lease: Lease) -> None: ...

    def used_tokens(self) -> int: ...


def replay_one(pool: Pool, job: Job, committed: Callable[[Lease], None] | None = None) -> Lease:
    """One request alone in the pool, as the replay takes them: acquire (forced: as much as
    fits is inserted), commit, release. ``committed`` sees the lease while the prompt is in
    the pool and still locked (where a pinned prefix gets pinned)."""
    lease = pool.acquire(job, 0, True)
    assert lease is not None  # forced: an acquire always gets a lease
    pool.commit(lease)
    if committed is not None:
        committed(lease)
    pool.release(lease)
    return lease


class PartitionedPool:
    """Per-tenant budgets: one private pool per tenant, sized by its share of the total.

    Tenants without a listed share use the ``*`` partition (the unassigned remainder).
    """

    def __init__(self, parts: dict[str, Pool], rules: HitRules) -> None:
        self.parts = parts
        self.rules = rules
        caps = [p.capacity for p in parts.values()]
        self.capacity = None if any(c is None for c in caps) else sum(c for c in caps if c is not None)
        # Tenant partitions are advisor's own construct; the serve loop has never applied
        # SGLang's waiting-prefix refresh to them.
        self.refreshes_waiting = False

    def _pool(self, job: Job) -> Pool:
        pool = self.parts.get(job.tenant or "")
        return pool if pool is not None else self.parts["*"]

    @property
    def evicted_tokens(self) -> int:
        return sum(p.evicted_tokens for p in self.parts.values())

    def peek(self, job: Job, touch: bool = False) -> int:
        return self._pool(job).peek(job, touch)

    def locate(self, job: Job, touch: bool = True) -> tuple[int, Hashable]:
        pool = self._pool(job)
        matched, key = pool.locate(job, touch)
        return matched, (id(pool), key)

    def parent_of(self, key: Hashable) -> Hashable | None:
        assert isinstance(key, tuple), key  # keys of this pool are (pool id, inner key)
        pool_id, inner = key
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
