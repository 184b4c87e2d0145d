"""Routing requests over replicas: round-robin, random (seeded) and cache-aware.

Cache-aware follows SGLang's router (sgl-model-gateway ``cache_aware`` policy, defaults
``--cache-threshold 0.3 --balance-abs-threshold 64 --balance-rel-threshold 1.5``): when
the loads are imbalanced (max - min above the absolute threshold and max above the
relative threshold times min) route to the least-loaded replica; otherwise to the
replica with the longest prefix match if it covers more than the cache threshold of
the prompt, else to the replica whose cache holds the fewest tokens. The router here
reads each replica's real pool instead of keeping its own approximate tree.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Sequence

from advisor.simulate.pool import Pool
from advisor.simulate.model import Job


@dataclass
class Router:
    kind: str = "round-robin"
    seed: int = 0
    cache_threshold: float = 0.3
    balance_abs: int = 64
    balance_rel: float = 1.5
    _next: int = 0
    _rng: random.Random = field(default_factory=random.Random)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)

    def pick(self, job: Job, pools: Sequence[Pool], loads: Sequence[int]) -> int:
        n = len(pools)
        if n == 1:
            return 0
        if self.kind == "round-robin":
            r = self._next % n
            self._next += 1
            return r
        if self.kind == "random":
            return self._rng.randrange(n)
        lo, hi = min(loads), max(loads)
        if hi - lo > self.balance_abs and hi > lo * self.balance_rel:
            return min(range(n), key=lambda i: (loads[i], i))
        matches = [job.tokens_of(p.peek(job)) if job.unit != 1 else p.peek(job) for p in pools]
        best = max(range(n), key=lambda i: (matches[i], -loads[i], -i))
        if job.prompt_tokens and matches[best] / job.prompt_tokens > self.cache_threshold:
            return best
        return min(range(n), key=lambda i: (pools[i].used_tokens(), loads[i], i))
