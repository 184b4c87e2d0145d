"""Serve mode: a discrete-event model of a serving engine (one per replica).

Per scheduling round (as SGLang's scheduler, simplified):

- arrivals join the waiting queue; the policy orders it (``schedulers``);
- admission in that order while the running batch has room (``max_running``), the
  prefill token budget (``max_prefill_tokens``, SGLang's default 16384; the first
  request of a batch is always taken, as chunked prefill would run it) is not used up,
  and the pool can make room for the request's uncached tokens plus its output
  (``output_len - 1`` tokens whose KV the decode steps write: a reserve, as SGLang's
  admission holds one); the first that does not fit stops
  admission (no skipping ahead);
- an admitted batch runs one prefill step, timed by ``EngineTimings.batch_seconds``
  (advisor.cost.compute: the uncached tokens' FLOPs, attention over the cached prefix
  included, at the stated MFU; never less than one read of the weights).
  SGLang makes a prompt hittable after the step (requests of one batch cannot hit each
  other); vLLM registers block hashes at allocation (same-batch hits exist);
- otherwise the running requests take decode steps, each reading the weights and the
  running sequences' KV (``EngineTimings.decode_seconds``: it grows with the batch and
  its context); a request with ``output_len`` tokens gets its first token from the
  prefill and needs ``output_len - 1`` decode steps, then releases its path (locked
  while it runs).

SGLang's waiting-prefix refresh is modelled for fcfs/lof/random under branch LRU.
Not modelled: chunked prefill (a long prompt is one step), retraction/preemption,
mixed prefill+decode batches, hierarchical caches.

Runs of decode steps with no event between them are taken in one jump, so the cost is
per event, not per step. Output tokens are not inserted into the cache (hash traces
carry no ids for them; token traffic has no output ids either).
"""

from __future__ import annotations

import heapq
import math
from array import array
import random
from collections.abc import Sequence as SequenceOf
from dataclasses import dataclass, field

from advisor.simulate.pool import Lease, Pool
from advisor.simulate.model import CostModel, default_cost, Job, Totals
from advisor.simulate.router import Router
from advisor.simulate.schedulers import order_waiting


REFRESH_EVERY = 32  # SGLANG_ENABLE_WAITING_PREFIX_REFRESH: every 32nd scheduling pass
REFRESH_HEAD = 128  # ... the first 128 waiting requests


@dataclass
class ServeConfig:
    policy: str = "fcfs"
    max_running: int = 256
    max_prefill_tokens: int = 16384
    cost: CostModel = field(default_factory=default_cost)
    seed: int = 0


@dataclass
class Engine:
    pool: Pool
    config: ServeConfig
    measure_from: int = 0  # job index where the measured part starts (warm-up before)
    time: float = 0.0
    totals: Totals = field(default_factory=Totals)
    waiting: list[Job] = field(default_factory=list)
    prefill_tokens: int = 0
    prefill_seconds: float = 0.0  # attributed to the measured requests
    busy_prefill_seconds: float = 0.0  # every prefill step (warm-up included)
    busy_decode_seconds: float = 0.0  # every decode step
    decode_steps: int = 0
    _context: int = 0  # Σ (prompt − decode step at admission) over running requests
    evicted_from: int = 0  # the pool's evicted tokens when the measured part began
    # (decode step it finishes at, job index, decode step it was admitted at, lease)
    _finish: list[tuple[int, int, int, Lease]] = field(default_factory=list)
    _rng: random.Random = field(default_factory=random.Random)
    _dirty: bool = True
    # Whether the waiting queue is known to be in job index order (FCFS's order). Requests
    # joining in index order and leaving from the head keep it so; FCFS's stable sort of
    # such a queue would change nothing, so it is skipped.
    _in_order: bool = True
    per_request: array | None = None  # cached tokens by job index, when asked for
    _passes: int = 0

    def __post_init__(self) -> None:
        self._rng = random.Random(self.config.seed)

    @property
    def load(self) -> int:
        return len(self.waiting) + len(self._finish)

    def submit(self, job: Job) -> None:
        if self.waiting and job.index < self.waiting[-1].index:
            self._in_order = False
        self.waiting.append(job)
        self._dirty = True

    def run_until(self, until: float) -> None:
        """Advance the engine up to time ``until``: the next arrival, which must join the
        queue before the engine decides anything at that time."""
        while True:
            if self.time >= until:
                return
            if self.waiting and self._dirty and self._prefill():
                continue
            self._dirty = False
            if not self._finish:
                # Idle, or stuck waiting for memory that only a finish could free.
                if self.waiting and not self._finish:
                    self._force_head()
                    continue
                if math.isfinite(until):
                    self.time = max(self.time, until)
                return
            # Decode until the next finish, or until the next arrival if sooner. Every
            # running request adds one token of context a step.
            cost = self.config.cost
            running = len(self._finish)
            context = self._context + running * self.decode_steps
            steps = self._finish[0][0] - self.decode_steps
            if math.isfinite(until):
                steps = min(steps, cost.steps_within(running, context, until - self.time))
            steps = max(1, steps)
            seconds = cost.decode_seconds(running, context, steps)
            self.time += seconds
            self.busy_decode_seconds += seconds
            self.decode_steps += steps
            while self._finish and self._finish[0][0] <= self.decode_steps:
                _, _, admitted, lease = heapq.heappop(self._finish)
                self._context -= lease.job.prompt_tokens - admitted
                self._done(lease)

    def _done(self, lease: Lease) -> None:
        self.pool.release(lease)
        if lease.job.index >= self.measure_from:
            self.totals.last_finish = max(self.totals.last_finish, self.time)
        self._dirty = True

    def _prefill(self) -> bool:
        """Admit and run one prefill batch; False when nothing could be admitted."""
        cfg = self.config
        pool = self.pool
        waiting = self.waiting  # sorted and cut in place below: still self.waiting after
        self._passes += 1
        if (self._passes % REFRESH_EVERY == 0 and cfg.policy in ("fcfs", "lof", "random")
                and pool.refreshes_waiting):
            # SGLang's waiting-prefix refresh (cache-agnostic policies under LRU): touch
            # the prefixes of the first 128 waiting requests, the head last, so LRU does
            # not evict what the head of the queue is about to use.
            for job in reversed(waiting[:REFRESH_HEAD]):
                pool.peek(job, touch=True)
        self._order()
        budget = cfg.max_prefill_tokens
        # Admission neither finishes nor starts a decode, so the free batch slots are fixed.
        room = cfg.max_running - len(self._finish)
        batch: list[Lease] = []
        peek, acquire = pool.peek, pool.acquire
        for job in waiting:
            if len(batch) >= room:
                break
            if batch:
                guess = job.prompt_tokens - job.tokens_of(peek(job))
                if guess > budget:
                    break
            lease = acquire(job, job.output_len - 1, False)
            if lease is None:
                break
            batch.append(lease)
            budget -= job.prompt_tokens - lease.cached
        if not batch:
            return False
        # Admission stops at the first request that does not fit (no skipping ahead), so
        # the batch is exactly the head of the queue.
        del waiting[: len(batch)]
        self._run_batch(batch)
        return True

    def _order(self) -> None:
        """Put the waiting queue in the policy's admission order (``order_waiting``)."""
        policy = self.config.policy
        if policy == "fcfs":
            if self._in_order:
                return  # the sort would leave the queue as it is
            self._in_order = True
        order_waiting(policy, self.waiting, self.pool, self._rng)

    def _force_head(self) -> None:
        """Nothing runs and the head cannot fit: run it with what fits (a request longer
        than the pool), so the simulation never deadlocks."""
        self._order()
        job = self.waiting.pop(0)
        lease = self.pool.acquire(job, job.output_len - 1, True)
        assert lease is not None
        self._run_batch([lease])

    def _run_batch(self, batch: list[Lease]) -> None:
        start = self.time
        tokens = sum(lease.job.prompt_tokens - lease.cached for lease in batch)
        seconds = self.config.cost.batch_seconds([(lease.cached, lease.job.prompt_tokens) for lease in batch])
        self.time += seconds
        self.busy_prefill_seconds += seconds
        # Loop invariants bound once: a batch can hold hundreds of requests.
        now = self.time
        steps = self.decode_steps
        commit = self.pool.commit
        per_request = self.per_request
        measure_from = self.measure_from
        t = self.totals
        for lease in batch:
            job = lease.job
            commit(lease)
            if per_request is not None:
                per_request[job.index] = lease.cached
            if job.index >= measure_from:
                t.add(job, lease.cached, lease.matched)
                t.queue_delay.append(start - job.arrival)
                t.ttft.append(now - job.arrival)
                t.output_tokens += job.output_len
                t.first_arrival = min(t.first_arrival, job.arrival)
                self.prefill_tokens += job.prompt_tokens - lease.cached
                # The step's seconds shared by its uncached tokens.
                share = (job.prompt_tokens - lease.cached) / tokens if tokens else 1 / len(batch)
                self.prefill_seconds += seconds * share
            remaining = job.output_len - 1
            if remaining <= 0:
                self._done(lease)
            else:
                self._context += job.prompt_tokens - steps
                heapq.heappush(self._finish, (steps + remaining, job.index, steps, lease))
        self._dirty = True


def serve(jobs: SequenceOf[Job], pools: list[Pool], config: ServeConfig, warmup: float = 0.0,
          router: Router | None = None, per_request: array | None = None) -> list[Engine]:
    """Feed ``jobs`` (in arrival order) to one engine per pool; return the engines.
    A job is fetched when it arrives and held only while it waits or runs."""
    from advisor.simulate.replay import warmup_count

    skip = warmup_count(len(jobs), warmup)
    engines = [Engine(p, config, skip, per_request=per_request) for p in pools]
    router = router or Router("round-robin")
    evicted_at: list[int] | None = None
    for i, job in enumerate(jobs):
        for e in engines:
            e.run_until(job.arrival)
        if i == skip:
            evicted_at = [e.pool.evicted_tokens for e in engines]
        r = router.pick(job, [e.pool for e in engines], [e.load for e in engines])
        engines[r].submit(job)
    for e in engines:
        e.run_until(math.inf)
    if evicted_at is None:
        evicted_at = [e.pool.evicted_tokens for e in engines]
    for e, at in zip(engines, evicted_at):
        e.evicted_from = at
    return engines
