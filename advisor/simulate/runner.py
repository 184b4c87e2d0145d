"""From options to runs: one run per (policy, eviction, capacity), sweeps, tenant twins."""

from __future__ import annotations

import math
from array import array
from collections.abc import Sequence as SequenceOf
from dataclasses import dataclass, field, replace

from advisor.errors import AdvisorError
from advisor.findings import Finding
from advisor.index.geometry import CacheGeometry
from advisor.simulate.block_lru import BlockIndex
from advisor.simulate.branch_lru import BranchPool
from advisor.simulate.cache import make_pool
from advisor.simulate.pool import PartitionedPool, Pool, replay_one
from advisor.simulate.optimal import OptimalPlan
from advisor.simulate.model import CostModel, default_cost, HitRules, Job, Totals, percentile
from advisor.simulate.replay import replay
from advisor.simulate.router import Router
from advisor.simulate.schedulers import offline_order
from advisor.simulate.serve import ServeConfig, serve
from advisor.simulate.sparse import SparsePool

SWEEP_POINTS = 8


@dataclass(frozen=True)
class RunSpec:
    policy: str = "fcfs"
    eviction: str = "branch-lru"
    engine: str = "none"
    capacity: int | None = None  # tokens per replica; None = unlimited
    page: int = 1
    mode: str = "replay"
    warmup: float = 0.0
    replicas: int = 1
    router: str = "round-robin"
    tenant_budget: tuple[tuple[str, float], ...] | None = None
    max_running: int = 256
    max_prefill_tokens: int = 16384
    cost: CostModel = field(default_factory=default_cost)
    seed: int = 0
    # The model's cache geometry when some of its layers are not full attention: each pool's
    # hit is cut to the windows and states the engine keeps (``advisor.simulate.sparse``).
    geometry: CacheGeometry | None = None

    @property
    def rules(self) -> HitRules:
        return HitRules(self.engine, self.page)


@dataclass
class RunResult:
    spec: RunSpec
    totals: Totals
    per_replica: list[Totals]
    evicted_tokens: int
    prefill_seconds: float = 0.0
    makespan: float = 0.0
    busy_prefill_seconds: float = 0.0  # serve: every prefill step of every replica
    busy_decode_seconds: float = 0.0  # serve: every decode step

    @property
    def decode_share(self) -> float:
        """Share of the engines' busy time spent in decode steps (serve mode)."""
        busy = self.busy_prefill_seconds + self.busy_decode_seconds
        return self.busy_decode_seconds / busy if busy > 0 else 0.0

    @property
    def prefill_tokens(self) -> int:
        return self.totals.prompt_tokens - self.totals.cached_tokens


class BlockIndexes:
    """One block-hash index per block size, shared by every run over the same jobs; and the
    optimal bound's plan per hit rules (built once, run at every capacity)."""

    def __init__(self) -> None:
        self._by_size: dict[int, BlockIndex] = {}
        self._plans: dict[HitRules, OptimalPlan] = {}

    def plan(self, jobs: SequenceOf[Job], rules: HitRules) -> OptimalPlan:
        got = self._plans.get(rules)
        if got is None:
            got = self._plans[rules] = OptimalPlan(jobs, rules)
        return got

    def get(self, size: int) -> BlockIndex:
        index = self._by_size.get(size)
        if index is None:
            index = self._by_size[size] = BlockIndex(size)
        return index


def _pool(spec: RunSpec, indexes: BlockIndexes) -> Pool:
    pool = _plain_pool(spec, indexes)
    if spec.geometry is not None and not spec.geometry.is_dense:
        return SparsePool(pool, spec.geometry)
    return pool


def _plain_pool(spec: RunSpec, indexes: BlockIndexes) -> Pool:
    rules = spec.rules
    index = indexes.get(rules.page)
    if not spec.tenant_budget:
        return make_pool(spec.eviction, spec.capacity, rules, index)
    parts: dict[str, Pool] = {}
    for tenant, share in spec.tenant_budget:
        cap = None if spec.capacity is None else int(spec.capacity * share)
        parts[tenant or "*"] = make_pool(spec.eviction, cap, rules, index)
    if "*" not in parts:
        parts["*"] = make_pool(spec.eviction, 0 if spec.capacity is not None else None, rules, index)
    return PartitionedPool(parts, rules)


def run(jobs: SequenceOf[Job], spec: RunSpec, indexes: BlockIndexes | None = None,
        per_request: array | None = None) -> RunResult:
    """One simulation of ``jobs`` (in arrival order) under ``spec``; ``per_request``
    (one slot per job) receives each request's cached tokens by job index."""
    indexes = indexes or BlockIndexes()
    if spec.eviction == OPTIMAL:
        return optimal_result(jobs, spec, indexes, per_request)
    pools = [_pool(spec, indexes) for _ in range(spec.replicas)]
    router = Router(spec.router, seed=spec.seed)
    if spec.mode == "replay":
        order = None if spec.policy == "fcfs" else offline_order(spec.policy, jobs, spec.seed)
        total, per, evicted = replay(jobs, pools, spec.warmup, router, order, per_request)
        prefill = spec.cost.prefill_seconds(total.prompt_tokens - total.cached_tokens)
        return RunResult(spec, total, per, sum(evicted), prefill)
    config = ServeConfig(spec.policy, spec.max_running, spec.max_prefill_tokens, spec.cost, spec.seed)
    engines = serve(jobs, pools, config, spec.warmup, router, per_request)
    total = Totals()
    for e in engines:
        total += e.totals
    evicted_tokens = sum(e.pool.evicted_tokens - e.evicted_from for e in engines)
    makespan = total.last_finish - total.first_arrival if total.requests else 0.0
    return RunResult(spec, total, [e.totals for e in engines], evicted_tokens,
                     sum(e.prefill_seconds for e in engines), max(makespan, 0.0),
                     sum(e.busy_prefill_seconds for e in engines), sum(e.busy_decode_seconds for e in engines))


OPTIMAL = "optimal"


def optimal_result(jobs: SequenceOf[Job], spec: RunSpec, indexes: BlockIndexes,
                   per_request: array | None = None) -> RunResult:
    """The offline optimal bound (``advisor.simulate.optimal``) at ``spec``'s capacity and hit
    rules: one pool, arrival order, no concurrency, whatever the spec's mode and policy."""
    if spec.replicas > 1 or spec.tenant_budget:
        raise AdvisorError("the optimal bound is for one pool: no --replicas or --tenant-budget")
    res = indexes.plan(jobs, spec.rules).run(jobs, spec.capacity, spec.warmup, per_request)
    bound = replace(spec, policy="fcfs", mode="replay")
    totals = res.totals
    if spec.geometry is not None and not spec.geometry.is_dense:
        # The offline optimum over windows and states is not modelled: the bound is the lesser
        # of the full-attention optimum and what the model's rules allow with no eviction at
        # all, each an upper bound of the true one. Per-request figures stay full attention's.
        unlimited = run(jobs, replace(bound, eviction="branch-lru", capacity=None), indexes)
        totals = replace(totals, cached_tokens=min(totals.cached_tokens, unlimited.totals.cached_tokens))
    prefill = spec.cost.prefill_seconds(totals.prompt_tokens - totals.cached_tokens)
    return RunResult(bound, totals, [totals], res.evicted_tokens, prefill)


def unlimited_tokens(jobs: SequenceOf[Job], rules: HitRules) -> int:
    """Tokens the pool holds with no eviction: the working set, the sweep's top end."""
    pool = BranchPool(None, rules)
    for job in jobs:
        replay_one(pool, job)
    return pool.tree_tokens


def request_tokens(job: Job, mode: str = "replay") -> int:
    """The KV tokens one request holds in the pool at once: its prompt (a hash trace's whole
    blocks: each id holds its block), plus in serve mode the decode reserve the engine
    allocates at admission (``output_len - 1``, ``serve``); a replay reserves nothing."""
    held = job.elements * job.unit if job.unit != 1 else job.prompt_tokens
    return held + (job.output_len - 1 if mode == "serve" else 0)


@dataclass(frozen=True)
class Largest:
    """The request that needs the most of the pool: its tokens (``request_tokens``), the
    prompt's part of them, and where it was read (``file:line``, or None)."""

    tokens: int
    prompt: int
    where: str | None = None


def check_capacity(capacity: int | None, largest: Largest | None, pool: str) -> None:
    """Refuse a pool that cannot hold the largest request. Neither engine serves it: SGLang
    and vLLM reject a request longer than the KV pool, where the simulator would only cache
    the part that fits and report hits for a request that never ran. ``pool`` names where the
    capacity came from (the option, or the model and GPU)."""
    if capacity is None or largest is None or capacity >= largest.tokens:
        return
    at = f"{largest.where}, " if largest.where else ""
    reserve = largest.tokens - largest.prompt
    split = f": {largest.prompt:,} of prompt + {reserve:,} reserved for its output" if reserve else ""
    raise AdvisorError(f"{pool}: a pool of {capacity:,} tokens cannot hold the largest request ({at}"
                       f"{largest.tokens:,} tokens{split}); no engine serves a request its KV pool cannot hold")


def sweep_capacities(jobs: SequenceOf[Job], rules: HitRules, points: int = SWEEP_POINTS,
                     mode: str = "replay") -> list[int | None]:
    """``points`` capacities: geometric from the longest request (smaller pools cannot
    hold one request; in serve mode its decode reserve counts) to the working set, the
    last one unlimited. None is below the largest request, so none needs dropping."""
    if not jobs:
        return [None]
    lo = max(request_tokens(j, mode) for j in jobs)
    hi = max(unlimited_tokens(jobs, rules), lo + 1)
    finite = points - 1
    caps: list[int | None] = []
    for i in range(finite):
        frac = i / max(1, finite - 1) if finite > 1 else 0.0
        value = int(round(lo * math.exp(frac * math.log(hi / lo))))
        if value not in caps:
            caps.append(value)
    caps.append(None)
    return caps


def parse_budget(text: str | None, tenants: list[str], finite: bool = True) -> tuple[tuple[str, float], ...] | None:
    """``A=0.5,B=0.3`` or ``equal``: shares of the pool; the rest goes to other tenants.

    A budget that could change nothing is refused rather than ignored: one without a finite
    pool to divide (``finite`` False: no capacity), one over traffic with fewer than two
    tenants, one that names a tenant the traffic does not have (a typo would otherwise give
    that tenant's share to nobody)."""
    if not text:
        return None
    if not finite:
        raise AdvisorError("--tenant-budget divides a finite pool: give --capacity-tokens, or --model and --gpu")
    if len(tenants) < 2:
        found = f"only '{tenants[0]}'" if tenants else "no 'tenant' field"
        raise AdvisorError(f"--tenant-budget needs traffic with at least two tenants (it has {found})")
    if text.strip() == "equal":
        share = 1.0 / len(tenants)
        return tuple((t, share) for t in sorted(tenants))
    out: list[tuple[str, float]] = []
    for part in text.split(","):
        name, sep, value = part.partition("=")
        try:
            share = float(value)
        except ValueError:
            share = -1.0
        if not sep or not name.strip() or not 0 <= share <= 1:
            raise AdvisorError(f"bad --tenant-budget entry {part!r}: use NAME=FRACTION,... or equal")
        if any(name.strip() == seen for seen, _ in out):
            raise AdvisorError(f"--tenant-budget gives tenant {name.strip()!r} twice")
        if name.strip() not in tenants:
            known = ", ".join(tenants[:10]) + (f", ... ({len(tenants):,} in all)" if len(tenants) > 10 else "")
            raise AdvisorError(f"--tenant-budget names tenant {name.strip()!r}, which the traffic does not have "
                               f"(tenants: {known})")
        out.append((name.strip(), share))
    total = sum(s for _, s in out)
    if total > 1 + 1e-9:
        raise AdvisorError(f"--tenant-budget shares add up to {total:g}, more than 1")
    listed = {n for n, _ in out}
    if any(t not in listed for t in tenants):
        out.append(("*", max(0.0, 1.0 - total)))
    return tuple(out)


# --- TR501 tenant starvation -----------------------------------------------------------

STARVE_RATIO = 0.5  # shared-pool hit rate at most half of what its own share gives it
STARVE_POINTS = 0.05  # and at least 5 points lower


def starvation_findings(shared: RunResult, isolated: RunResult) -> list[Finding]:
    """TR501: a tenant whose hit rate collapses in the shared pool compared with a
    private pool of its budget (the noisy neighbour evicts its prefixes)."""
    found = []
    for name in sorted(shared.totals.per_tenant):
        s = shared.totals.per_tenant[name]
        iso = isolated.totals.per_tenant.get(name)
        if iso is None or not s.prompt_tokens:
            continue
        if s.hit_rate <= STARVE_RATIO * iso.hit_rate and iso.hit_rate - s.hit_rate >= STARVE_POINTS:
            found.append(Finding(
                code="TR501",
                details={"tenant": name, "policy": shared.spec.policy, "eviction": shared.spec.eviction,
                         "capacity_tokens": shared.spec.capacity,
                         "shared_hit_rate": round(s.hit_rate, 6), "isolated_hit_rate": round(iso.hit_rate, 6)},
                message=(f"tenant {name} keeps {s.hit_rate:.1%} of its prompt tokens cached in the "
                         f"shared pool against {iso.hit_rate:.1%} with its own budget: other tenants "
                         "evict its prefixes; give it a budget or route it to its own replica"),
            ))
    return found


# --- TR401 capacity pressure -----------------------------------------------------------

PRESSURE_RATIO = 0.8  # the pool keeps less than 80 % of the hits unlimited capacity gives
PRESSURE_POINTS = 0.05  # and at least 5 points are lost


def pressure_findings(results: list[RunResult], ceiling: float) -> list[Finding]:
    """TR401: a run whose pool keeps clearly fewer hits than the traffic allows
    (``ceiling``: the same mode and hit rules, FCFS, unlimited capacity)."""
    found = []
    for r in results:
        if r.spec.capacity is None or r.spec.tenant_budget or r.spec.eviction == OPTIMAL:
            continue
        hit = r.totals.hit_rate
        if hit < PRESSURE_RATIO * ceiling and ceiling - hit >= PRESSURE_POINTS:
            found.append(Finding(
                code="TR401",
                details={"policy": r.spec.policy, "eviction": r.spec.eviction, "capacity_tokens": r.spec.capacity,
                         "hit_rate": round(hit, 6), "unlimited_hit_rate": round(ceiling, 6)},
                message=(f"a pool of {r.spec.capacity:,} tokens keeps {hit:.1%} of prompt tokens cached "
                         f"({r.spec.policy}, {r.spec.eviction}) against {ceiling:.1%} with unlimited "
                         "capacity: grow the pool, shorten the shared prefixes, or use a cache-aware "
                         "scheduler or router"),
            ))
    return found


def serve_metrics(result: RunResult) -> dict[str, float]:
    t = result.totals
    span = result.makespan
    return {
        "makespan_s": round(span, 6),
        "throughput_tokens_s": round((t.prompt_tokens + t.output_tokens) / span, 3) if span > 0 else 0.0,
        "requests_per_s": round(t.requests / span, 6) if span > 0 else 0.0,
        "ttft_p50_s": round(percentile(t.ttft, 0.5), 6),
        "ttft_p90_s": round(percentile(t.ttft, 0.9), 6),
        "ttft_p99_s": round(percentile(t.ttft, 0.99), 6),
        "queue_delay_mean_s": round(sum(t.queue_delay) / len(t.queue_delay), 6) if t.queue_delay else 0.0,
        "queue_delay_p90_s": round(percentile(t.queue_delay, 0.9), 6),
        "prefill_seconds": round(result.prefill_seconds, 6),
        "busy_prefill_seconds": round(result.busy_prefill_seconds, 6),
        "busy_decode_seconds": round(result.busy_decode_seconds, 6),
        "decode_share": round(result.decode_share, 6),
    }


def with_budget(spec: RunSpec, budget: tuple[tuple[str, float], ...]) -> RunSpec:
    return replace(spec, tenant_budget=budget)
