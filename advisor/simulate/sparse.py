"""A pool on a hybrid model: the hit of any eviction policy, cut to the model's windows and states.

The wrapped pool holds the full-attention blocks or radix nodes and evicts them by its policy;
its hit is what the full-attention layers could serve. The sliding-window and state layers
add their own condition (``advisor.index.checkpoints``): a hit must end where a window tail
or a state was kept. Those checkpoints are kept beside the pool and bounded by it: a
checkpoint only counts while the wrapped pool still holds the prefix up to it, so a state
is taken to leave the pool with its attention blocks (in vLLM both are pages of one pool,
touched by the same requests; SGLang evicts its Mamba and Full values of a node together
when the Full value goes, ``components/mamba.py``).
"""

from __future__ import annotations

from collections.abc import Hashable

from advisor.index.checkpoints import SparseCache
from advisor.index.geometry import CacheGeometry
from advisor.simulate.model import HitRules, Job
from advisor.simulate.pool import Lease, Pool


class SparsePool:
    """``Pool`` over another pool, with the hybrid model's hit rule on top."""

    def __init__(self, inner: Pool, geometry: CacheGeometry) -> None:
        self.inner = inner
        self.geometry = geometry
        self.rules: HitRules = inner.rules
        self.capacity = inner.capacity
        self.refreshes_waiting = inner.refreshes_waiting
        self._caches: dict[str, SparseCache] = {}
        self._full: dict[int, int] = {}  # lease id -> the full-attention hit it was cut from

    def _cache(self, job: Job) -> SparseCache:
        got = self._caches.get(job.namespace)
        if got is None:
            got = self._caches[job.namespace] = SparseCache(self.geometry)
        return got

    def _cut(self, job: Job, full_hit: int) -> int:
        if job.unit != 1:  # block-hash traces carry no tokens to find a checkpoint by
            return full_hit
        return self._cache(job).lookup(job.key, job.prompt_tokens, full_hit)

    @property
    def evicted_tokens(self) -> int:
        return self.inner.evicted_tokens

    def peek(self, job: Job, touch: bool = False) -> int:
        matched = self.inner.peek(job, touch)
        return self._cut(job, self.rules.hit(job, matched))

    def locate(self, job: Job, touch: bool = True) -> tuple[int, Hashable]:
        matched, key = self.inner.locate(job, touch)
        return self._cut(job, self.rules.hit(job, matched)), key

    def parent_of(self, key: Hashable) -> Hashable | None:
        return self.inner.parent_of(key)

    def acquire(self, job: Job, reserve: int = 0, force: bool = False) -> Lease | None:
        lease = self.inner.acquire(job, reserve, force)
        if lease is not None:
            self._full[id(lease)] = lease.cached
            lease.cached = self._cut(job, lease.cached)
        return lease

    def commit(self, lease: Lease) -> None:
        self.inner.commit(lease)
        job = lease.job
        full = self._full.get(id(lease), lease.cached)
        if job.unit == 1:
            self._cache(job).store(job.key, job.prompt_tokens, full, lease.cached)

    def release(self, lease: Lease) -> None:
        self._full.pop(id(lease), None)
        self.inner.release(lease)

    def used_tokens(self) -> int:
        return self.inner.used_tokens()
