"""A host-memory tier behind the device (HBM) pool: SGLang's HiCache, vLLM's CPU offload.

What the engines do, as read in their source:

- SGLang HiCache (``--enable-hierarchical-cache``). The host pool holds ``--hicache-ratio``
  (default 2.0) times the device pool's tokens, or ``--hicache-size`` GB when given
  (sgl-project/sglang python/sglang/srt/server_args.py; ``HostKVCache``:
  ``size = device_pool.size * host_to_device_ratio``, mem_cache/memory_pool_host.py). Under the
  default ``write_through`` policy a node is backed up to host the first time it is inserted or
  hit (``write_through_threshold`` 1; ``write_through_selective`` waits for a second hit,
  ``write_back`` copies only when the device evicts). Host eviction (LRU over leaves) frees only
  nodes the device has already evicted, so host memory holds a superset of the device. A match
  that ends in host-only nodes loads them back to the device before the prefill, all or nothing,
  unless they are fewer than ``load_back_threshold`` = 10 tokens
  (sgl-project/sglang@263bc85d64baa38d82ec20f58a61f2982c78075d:python/sglang/srt/mem_cache/hiradix_cache.py:
  ``_inc_hit_count``, ``evict``, ``evict_host``, ``load_back``).
- vLLM CPU offload (``--kv-offloading-size`` GiB summed over the TP ranks, no default: off
  unless set; ``--kv-offloading-backend native`` is the OffloadingConnector, ``lmcache`` the
  LMCache connector; vllm-project/vllm vllm/config/cache.py). Every full block a request
  computes is stored to CPU memory; a lookup touches the request's blocks (the first block most
  recent); the CPU store evicts by LRU; after the GPU's hit, the run of consecutive CPU hits is
  loaded, when it is at least one block
  (vllm-project/vllm@7368908123b14495cca88daf580cbc07c384d5b3:vllm/distributed/kv_transfer/kv_connector/v1/offloading_connector.py:
  ``get_num_new_matched_tokens``, ``_get_reqs_to_store``;
  vllm-project/vllm@3a04cf8f14c971435137c3ec572a7803c663673d:vllm/v1/kv_offload/lru_manager.py).

How it is simulated (``TieredPool``). The device pool is the engine's own pool, driven exactly
as without the tier: a loaded-back token takes a device slot as a recomputed one does, and the
request holds and inserts the same prompt either way, so the device's contents, evictions and
hits are those of the run without a tier (a test checks the figures are identical). Beside it
a host pool of the tier's capacity, of the device's kind (SGLang: whole-leaf LRU; vLLM: block
LRU), sees every request the device admits at the same moments: looked up at admission, written
through at commit, touched when the scheduler touches the device. What the host pool hits beyond
the device's hit is loaded back.

The inclusion argument, which makes a separate host pool stand for the engines' host memory:
vLLM's CPU store is an LRU of its own over the same block accesses, which is this model as it
is. SGLang's host memory shares the device's tree and evicts only what the device has evicted;
a write-through host that always holds the device's contents and evicts the least recently used
of the rest holds the most recently used H tokens, which is what one LRU pool of H tokens
holds; so it sees that pool's hits. ``tests/simulate/test_tiers.py`` checks, on small random
traffic and request by request: the two-level rule, simulated by brute force, against one LRU of
the host's size; the vLLM model against a brute-force GPU pool and CPU store; SGLang's device
and host pools together against one SGLang pool of the host's size. SGLang's pools themselves
evict whole leaves and free more than the shortfall (REFERENCE §1.5), so they hold a little less
than an exact LRU of their size: against the brute force, SGLang's figures are close, not equal.

The engines' hit rules (``L - 1`` cap, whole pages or blocks) apply to the combined hit: the
host pool has the device's rules.
"""

from __future__ import annotations

from array import array
from collections.abc import Hashable
from collections.abc import Sequence as SequenceOf
from dataclasses import dataclass

from advisor.errors import AdvisorError
from advisor.simulate.cache import make_pool
from advisor.simulate.model import Job, Totals
from advisor.simulate.pool import Lease, Pool
from advisor.simulate.replay import replay, warmup_count
from advisor.simulate.runner import OPTIMAL, BlockIndexes, RunResult, RunSpec
from advisor.simulate.schedulers import offline_order
from advisor.simulate.serve import ServeConfig, serve
from advisor.simulate.sparse import SparsePool

# SGLang's defaults (module docstring): --hicache-ratio, and the smallest load-back in tokens.
HICACHE_RATIO = 2.0
HICACHE_LOAD_BACK_THRESHOLD = 10


@dataclass(frozen=True)
class HostTier:
    """A host-memory tier: its size in tokens and the smallest hit the engine loads back."""

    name: str  # "hicache" (SGLang) or "cpu-offload" (vLLM)
    capacity: int
    min_load_tokens: int
    ratio: float  # host tokens / device tokens


def hicache(device_tokens: int, page: int, ratio: float = HICACHE_RATIO) -> HostTier:
    """SGLang's host pool: ``ratio`` × the device pool, in whole pages (``HostKVCache``)."""
    tokens = int(device_tokens * ratio)
    return HostTier("hicache", tokens - tokens % max(1, page), HICACHE_LOAD_BACK_THRESHOLD, ratio)


def cpu_offload(device_tokens: int, block: int, ratio: float = HICACHE_RATIO) -> HostTier:
    """vLLM's CPU store of ``ratio`` × the GPU pool in whole blocks. vLLM has no default size:
    the ratio is SGLang's default, so the two engines' tiers compare like for like. A load is
    at least one block (``get_num_new_matched_tokens``)."""
    tokens = int(device_tokens * ratio)
    return HostTier("cpu-offload", tokens - tokens % max(1, block), max(1, block), ratio)


class TieredPool:
    """``Pool`` over the device's pool, with a host pool beside it (module docstring).

    Every call of the protocol is the device's, unchanged, so a run through it is the run
    without a tier; ``loaded[job.index]`` receives the tokens the request found in host memory
    beyond the device's hit (0 below the tier's smallest load)."""

    def __init__(self, device: Pool, host: Pool, min_load_tokens: int, jobs: int) -> None:
        self.device = device
        self.host = host
        self.min_load_tokens = min_load_tokens
        self.rules = device.rules
        self.capacity = device.capacity
        self.refreshes_waiting = device.refreshes_waiting
        self.loaded = array("q", [0]) * jobs
        self._host_leases: dict[int, Lease] = {}  # id of the device's lease -> the host's

    @property
    def evicted_tokens(self) -> int:
        return self.device.evicted_tokens

    def peek(self, job: Job, touch: bool = False) -> int:
        if touch:  # SGLang's host nodes are the device's tree nodes: a touch stamps both
            self.host.peek(job, True)
        return self.device.peek(job, touch)

    def locate(self, job: Job, touch: bool = True) -> tuple[int, Hashable]:
        if touch:
            self.host.peek(job, True)
        return self.device.locate(job, touch)

    def parent_of(self, key: Hashable) -> Hashable | None:
        return self.device.parent_of(key)

    def acquire(self, job: Job, reserve: int = 0, force: bool = False) -> Lease | None:
        lease = self.device.acquire(job, reserve, force)
        if lease is None:
            return None
        # Admitted: the host is matched now (the scheduler loads host nodes back before the
        # prefill). Forced: host memory never refuses a write, it evicts.
        host_lease = self.host.acquire(job, 0, True)
        assert host_lease is not None
        extra = host_lease.cached - lease.cached
        self.loaded[job.index] = extra if extra >= self.min_load_tokens else 0
        self._host_leases[id(lease)] = host_lease
        return lease

    def commit(self, lease: Lease) -> None:
        self.device.commit(lease)
        self._write_through(lease)

    def release(self, lease: Lease) -> None:
        host_lease = self._host_leases.pop(id(lease), None)
        if host_lease is not None:  # released before its prefill ran: nothing to write
            self.host.release(host_lease)
        self.device.release(lease)

    def _write_through(self, lease: Lease) -> None:
        """The prompt's copy in host memory: inserted, then unlocked (host memory holds no
        running request's reserve)."""
        host_lease = self._host_leases.pop(id(lease), None)
        if host_lease is not None:
            self.host.commit(host_lease)
            self.host.release(host_lease)

    def used_tokens(self) -> int:
        return self.device.used_tokens()


@dataclass(frozen=True)
class TierResult:
    """One run with a host tier: the device's figures (those of the run without it) and what
    host memory added, over the measured requests."""

    tier: HostTier
    device: RunResult
    loaded_tokens: int
    loading_requests: int

    @property
    def totals(self) -> Totals:
        return self.device.totals

    @property
    def device_hit_rate(self) -> float:
        return self.totals.hit_rate

    @property
    def added_hit_rate(self) -> float:
        prompt = self.totals.prompt_tokens
        return self.loaded_tokens / prompt if prompt else 0.0

    @property
    def hit_rate(self) -> float:
        return self.device_hit_rate + self.added_hit_rate


def pool_of(spec: RunSpec, capacity: int | None, indexes: BlockIndexes) -> Pool:
    """The pool ``spec`` names, at ``capacity`` (the runner's, without tenant partitions)."""
    rules = spec.rules
    pool = make_pool(spec.eviction, capacity, rules, indexes.get(rules.page))
    if spec.geometry is not None and not spec.geometry.is_dense:
        return SparsePool(pool, spec.geometry)
    return pool


def run_tiered(jobs: SequenceOf[Job], spec: RunSpec, tier: HostTier,
               indexes: BlockIndexes | None = None) -> TierResult:
    """``spec``'s run (one pool, its mode and policy) with ``tier`` behind the pool."""
    if spec.replicas != 1 or spec.tenant_budget or spec.eviction in (OPTIMAL, "off") or spec.capacity is None:
        raise AdvisorError("a host tier is simulated behind one finite pool of a real eviction policy "
                           "(no replicas, tenant budgets, optimal bound or disabled cache)")
    indexes = indexes or BlockIndexes()
    pool = TieredPool(pool_of(spec, spec.capacity, indexes), pool_of(spec, tier.capacity, indexes),
                      tier.min_load_tokens, len(jobs))
    skip = warmup_count(len(jobs), spec.warmup)
    if spec.mode == "replay":
        order = None if spec.policy == "fcfs" else offline_order(spec.policy, jobs, spec.seed)
        total, per, evicted = replay(jobs, [pool], spec.warmup, None, order)
        measured: SequenceOf[int] = range(skip, len(jobs)) if order is None else order[skip:]
        result = RunResult(spec, total, per, sum(evicted),
                           spec.cost.prefill_seconds(total.prompt_tokens - total.cached_tokens))
    else:
        config = ServeConfig(spec.policy, spec.max_running, spec.max_prefill_tokens, spec.cost, spec.seed)
        (engine,) = serve(jobs, [pool], config, spec.warmup)
        total = engine.totals
        measured = range(skip, len(jobs))  # serve warms up on the first arrivals
        makespan = total.last_finish - total.first_arrival if total.requests else 0.0
        result = RunResult(spec, total, [total], engine.pool.evicted_tokens - engine.evicted_from,
                           engine.prefill_seconds, max(makespan, 0.0), engine.busy_prefill_seconds,
                           engine.busy_decode_seconds)
    loaded = [pool.loaded[i] for i in measured]
    return TierResult(tier, result, sum(loaded), sum(1 for n in loaded if n))
