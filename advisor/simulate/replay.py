"""Replay mode: requests one at a time (match, lock, make room, insert, unlock).

The reference mode for checks against analyze, the peer simulator and Theorem 3.1: no
concurrency, so the only state is the pool. With several replicas a router picks the
pool of each request; its "load" is the share of the recent requests it received,
since a replay has no clock.
"""

from __future__ import annotations

import math
from array import array
from collections import deque
from collections.abc import Iterable
from collections.abc import Sequence as SequenceOf

from advisor.simulate.pool import Pool, replay_one
from advisor.simulate.model import Job, Totals
from advisor.simulate.router import Router


def warmup_count(n: int, warmup: float) -> int:
    """Requests that only warm the cache: floor(n x fraction), as kvcache-simulator does."""
    return max(0, min(n, math.floor(n * warmup)))


def replay(jobs: SequenceOf[Job], pools: list[Pool], warmup: float = 0.0,
           router: Router | None = None, order: Iterable[int] | None = None,
           per_request: array | None = None) -> tuple[Totals, list[Totals], list[int]]:
    """Run ``jobs`` in ``order`` (positions; default: as given); return totals overall
    and per replica, and the tokens each pool evicted during the measured part.
    ``per_request[job.index]`` receives each request's cached tokens when given.

    Each job is fetched when its turn comes and dropped after it, so a ``JobStore``'s
    requests are never all in memory at once."""
    skip = warmup_count(len(jobs), warmup)
    stream = iter(jobs) if order is None else (jobs[p] for p in order)
    total = Totals()
    per = [Totals() for _ in pools]
    evicted_at = [0] * len(pools)
    window: deque[int] = deque()
    loads = [0] * len(pools)
    span = 16 * len(pools)
    single = pools[0] if len(pools) == 1 else None
    for i, job in enumerate(stream):
        if i == skip:
            evicted_at = [p.evicted_tokens for p in pools]
        if single is not None:
            r, pool = 0, single
        else:
            assert router is not None
            r = router.pick(job, pools, loads)
            pool = pools[r]
            window.append(r)
            loads[r] += 1
            if len(window) > span:
                loads[window.popleft()] -= 1
        lease = replay_one(pool, job)
        if per_request is not None:
            per_request[job.index] = lease.cached
        if i >= skip:
            total.add(job, lease.cached, lease.matched)
            per[r].add(job, lease.cached, lease.matched)
    if skip >= len(jobs):
        evicted_at = [p.evicted_tokens for p in pools]
    evicted = [p.evicted_tokens - e for p, e in zip(pools, evicted_at)]
    return total, per, evicted
