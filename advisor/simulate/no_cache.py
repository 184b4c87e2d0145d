"""Prefix caching off: the pool only holds the KV of running requests.

The baseline the advisory compares both engines with (SGLang ``--disable-radix-cache``,
vLLM ``--no-enable-prefix-caching``): every prompt token is prefilled, and memory still
bounds how many requests run at once, as in the engines. Not ``--capacity-tokens 0``,
which leaves no room to run anything and serializes the requests.
"""

from __future__ import annotations

from advisor.simulate.pool import Lease
from advisor.simulate.model import HitRules, Job


class NoCachePool:
    def __init__(self, capacity: int | None, rules: HitRules) -> None:
        self.capacity = capacity
        self.rules = rules
        self.evicted_tokens = 0
        self.refreshes_waiting = False  # no LRU to refresh
        self._used = 0

    def used_tokens(self) -> int:
        return self._used

    def peek(self, job: Job, touch: bool = False) -> int:
        return 0

    def locate(self, job: Job, touch: bool = True) -> tuple[int, object]:
        return 0, job.namespace

    def parent_of(self, key: object) -> object | None:
        return None

    def acquire(self, job: Job, reserve: int = 0, force: bool = False) -> Lease | None:
        need = job.prompt_tokens + reserve
        if self.capacity is not None and not force and self._used + need > self.capacity and self._used:
            return None
        self._used += need
        return Lease(job, 0, 0, need)

    def commit(self, lease: Lease) -> None:
        """Nothing becomes hittable."""

    def release(self, lease: Lease) -> None:
        self._used -= lease.reserved
        lease.reserved = 0
