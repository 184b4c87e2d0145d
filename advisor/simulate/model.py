"""Plain data the simulator passes around: jobs, hit rules, cost model, per-run totals."""

from __future__ import annotations

import math
from array import array
from dataclasses import dataclass, field
from functools import lru_cache

from advisor.cost.compute import EngineTimings
from advisor.index.analyze import TenantStats
from advisor.index.merge import MAX, MIN, merge
from advisor.ingest.ids import ITEM, pack
from advisor.ingest.pipeline import Sequence
from advisor.ingest.traffic import Request

ENGINES = ("none", "sglang", "vllm")
EVICTIONS = ("branch-lru", "block-lru", "lfu", "fifo", "off", "optimal")
POLICIES = ("fcfs", "lpm", "dfs-weight", "lof", "random")
MODES = ("replay", "serve")
ROUTERS = ("round-robin", "random", "cache-aware")

# Default eviction per engine (REFERENCE.md §3.3): SGLang evicts whole radix leaves,
# vLLM single blocks from its free queue.
ENGINE_EVICTION = {"sglang": "branch-lru", "vllm": "block-lru", "none": "branch-lru"}
# Default page (SGLang page_size on CUDA) / block (vLLM block_size) in tokens.
ENGINE_PAGE = {"sglang": 1, "vllm": 16, "none": 1}


@dataclass(eq=False)
class Job:
    """One request as the simulator sees it.

    ``key`` is the packed id run (token ids, or hash ids for a ``hash_ids`` record, one
    per ``unit`` tokens). ``arrival`` is in seconds; ``output_len`` drives decode steps.
    ``memo`` holds what pools derive from the key (the capped lookup key, block ids): it
    lives and dies with the job, so a store that hands out jobs one at a time keeps no
    per-request state behind.
    """

    index: int
    namespace: str
    key: bytes
    prompt_tokens: int
    unit: int
    arrival: float = 0.0
    output_len: int = 1
    tenant: str | None = None
    memo: dict = field(default_factory=dict, repr=False)

    @property
    def elements(self) -> int:
        return len(self.key) // ITEM

    def tokens_of(self, elements: int) -> int:
        return min(elements * self.unit, self.prompt_tokens)

    @classmethod
    def from_sequence(cls, index: int, seq: Sequence, arrival: float = 0.0,
                      output_len: int | None = None) -> "Job":
        req = seq.request
        return cls(index, seq.namespace, pack(seq.ids), seq.prompt_tokens, seq.unit, arrival,
                   max(1, output_length(req, output_len)[1]), req.tenant)


# Where a request's output length comes from, in the order they win (``output_length``).
OUTPUT_SOURCES = ("logged", "output_len", "max_tokens", "default")
# The output length when nothing gives one: the first token, which the prefill produces.
DEFAULT_OUTPUT_LEN = 1


def output_length(req: Request, output_len: int | None) -> tuple[str, int]:
    """The output tokens a simulation gives ``req`` and where they come from: the logged
    count; else the user's ``--output-len`` unless the request's own maximum is smaller (a
    maximum is an upper bound, often generous); else that maximum; else one token."""
    if req.output_length is not None:
        return "logged", req.output_length
    bound = req.max_output_tokens
    if output_len is not None and (bound is None or output_len <= bound):
        return "output_len", output_len
    if bound is not None:
        return "max_tokens", bound
    return "default", DEFAULT_OUTPUT_LEN


@dataclass(frozen=True)
class HitRules:
    """How an engine turns a cached prefix into hit tokens (REFERENCE.md §1.3, §2.3).

    ``capped``: at least the last prompt token is recomputed (``L - 1`` cap, both engines);
    ``page``: hits are whole pages (SGLang ``page_size``) or whole blocks (vLLM
    ``block_size``). ``engine == "none"`` is the analyze definition: LCP rounded to pages.
    """

    engine: str = "none"
    page: int = 1

    @property
    def capped(self) -> bool:
        return self.engine != "none"

    def limit_tokens(self, prompt_tokens: int) -> int:
        """The most tokens a request can hit."""
        cap = prompt_tokens - 1 if self.capped else prompt_tokens
        return max(0, cap - cap % self.page)

    def limit_elements(self, job: Job) -> int:
        """Leading ids worth looking up: enough to cover ``limit_tokens``."""
        cap = self.limit_tokens(job.prompt_tokens)
        if job.unit == 1:
            return cap
        return min(job.elements, -(-cap // job.unit))

    def hit(self, job: Job, matched_elements: int) -> int:
        tokens = min(job.tokens_of(matched_elements), self.limit_tokens(job.prompt_tokens))
        return tokens - tokens % self.page


# Seconds per prefill batch and decode step: the catalog's roofline (advisor.cost.compute is the
# one source of engine timings). ``CostModel(p, d)`` is the fixed model of the command-line
# overrides: p seconds per uncached token, d seconds per decode step.
CostModel = EngineTimings


@lru_cache(maxsize=1)
def default_cost() -> EngineTimings:
    """The timings of the default deployment: Llama 3.1 8B (BF16) on one H100 SXM."""
    from advisor.cost import engine_timings, resolve_gpu, resolve_model

    return engine_timings(resolve_model(DEFAULT_MODEL), resolve_gpu(DEFAULT_GPU))


DEFAULT_MODEL = "llama-3.1-8b"
DEFAULT_GPU = "h100"


# The simulator's per-tenant totals are analyze's: one record type for both.
TenantTotals = TenantStats


@dataclass
class Totals:
    """What one run measured (requests after the warm-up only)."""

    requests: int = 0
    prompt_tokens: int = 0
    cached_tokens: int = 0
    # Block-weighted figures for hash_ids traces (Theorem 3.1 is stated in blocks).
    units: int = 0
    cached_units: int = 0
    per_tenant: dict[str, TenantTotals] = field(default_factory=dict)
    # Seconds per measured request (serve mode): 8 bytes each, not a float object.
    ttft: array = field(default_factory=lambda: array("d"))
    queue_delay: array = field(default_factory=lambda: array("d"))
    output_tokens: int = 0
    first_arrival: float = field(default=math.inf, metadata=MIN)
    last_finish: float = field(default=0.0, metadata=MAX)

    def __iadd__(self, other: "Totals") -> "Totals":
        """Another replica's totals added in, every field (``advisor.index.merge``)."""
        return merge(self, other)

    def add(self, job: Job, cached: int, matched_elements: int) -> None:
        self.requests += 1
        self.prompt_tokens += job.prompt_tokens
        self.cached_tokens += cached
        if job.unit != 1:
            self.units += job.elements
            self.cached_units += min(matched_elements, job.elements)
        if job.tenant is not None:
            t = self.per_tenant.get(job.tenant)
            if t is None:
                t = self.per_tenant[job.tenant] = TenantTotals()
            t.count(job.prompt_tokens, cached)

    @property
    def hit_rate(self) -> float:
        return self.cached_tokens / self.prompt_tokens if self.prompt_tokens else 0.0

    @property
    def block_hit_rate(self) -> float | None:
        return self.cached_units / self.units if self.units else None


def percentile(values: array | list[float], q: float) -> float:
    """Nearest-rank percentile (deterministic, no interpolation)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, math.ceil(q * len(ordered) - 1e-9))
    return ordered[min(rank, len(ordered)) - 1]
