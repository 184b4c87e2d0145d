"""The bill in money: the traffic priced self-hosted (GPU-hours) and on each hosted API.

Self-hosted, the GPU time comes from the engine comparison the advisory already simulates
(``facts["simulation"]["engines"]``: the saturated run of every request, with and without
prefix caching) times TP times a price per GPU-hour: ``--gpu-hour-price``, else the cited
default of ``advisor/data/prices.yaml``. Decode time counts only when the simulation decoded
real output lengths (logged, ``--output-len`` or ``max_tokens``: ``simulation.assumptions``);
otherwise the figure is prefill only, and the facts say so.

On a hosted API the same requests are billed by the provider's rules (REFERENCE.md §9.1):
each request reads from the provider's cache the prefix it shares with an earlier request
(analyze's cached tokens), cut to the provider's granularity (OpenAI counts 128-token steps),
to nothing below its minimum cacheable prefix, and, when the records carry timestamps, to
what was used within the cache's lifetime. Tokens not read are new input; a provider with a
write premium (Anthropic's 5-minute cache, 1.25x) bills the tokens a later request re-reads
as a cache write, once per lifetime of the entry, instead of as new input (breakpoints
placed where requests diverge, as the Hosted APIs section advises). Output is billed when the
records carry output lengths.

``TrafficBills`` gathers the per-request figures during analyze's one pass (``add`` wraps
``Analyzer.add``); everything else is a pure function of plain data.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence as SequenceOf
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

from yaml import safe_load

from advisor.errors import AdvisorError
from advisor.index.analyze import Analyzer
from advisor.index.radix import RadixTree
from advisor.ingest.pipeline import Sequence
from advisor.simulate.inputs import timestamp_scale

MILLION = 1_000_000
SECONDS_PER_HOUR = 3600.0


# --- prices --------------------------------------------------------------------------------

@dataclass(frozen=True)
class HostedPrice:
    """One hosted model's prices (USD per million tokens) and caching rules."""

    provider: str
    model: str
    input: float
    cached_input: float
    cache_write: float | None  # None: writes carry no premium (billed as input)
    output: float
    minimum_tokens: int  # a shared prefix shorter than this is not cached at all
    granularity: int  # hits count in whole steps of this many tokens
    ttl_seconds: float | None  # None: the lifetime is not modelled (undocumented or hours)
    ttl_note: str
    source: str
    read_on: str


@dataclass(frozen=True)
class GpuPrices:
    """On-demand USD per GPU-hour of each catalog GPU, by GPUs per instance."""

    provider: str
    source: str
    read_on: str
    per_gpu_hour: Mapping[str, Mapping[int, float]]


@dataclass(frozen=True)
class Prices:
    gpus: GpuPrices
    hosted: tuple[HostedPrice, ...]


def _hosted(entry: Mapping[str, Any]) -> HostedPrice:
    write = entry.get("cache_write")
    ttl = entry.get("ttl_seconds")
    return HostedPrice(
        provider=str(entry["provider"]), model=str(entry["model"]), input=float(entry["input"]),
        cached_input=float(entry["cached_input"]), cache_write=None if write is None else float(write),
        output=float(entry["output"]), minimum_tokens=int(entry["minimum_tokens"]),
        granularity=max(1, int(entry["granularity"])), ttl_seconds=None if ttl is None else float(ttl),
        ttl_note=str(entry.get("ttl_note", "")), source=" ".join(str(entry["source"]).split()),
        read_on=str(entry["read_on"]))


@lru_cache(maxsize=1)
def load_prices() -> Prices:
    """``advisor/data/prices.yaml`` (package data: it works from an installed wheel)."""
    text = resources.files("advisor").joinpath("data/prices.yaml").read_text(encoding="utf-8")
    data = safe_load(text)
    g = data["gpu_hour"]
    gpus = GpuPrices(provider=str(g["provider"]), source=" ".join(str(g["source"]).split()),
                     read_on=str(g["read_on"]),
                     per_gpu_hour={str(gpu): {int(n): float(p) for n, p in sizes.items()}
                                   for gpu, sizes in g["prices"].items()})
    return Prices(gpus=gpus, hosted=tuple(_hosted(e) for e in data["hosted"]))


def check_gpu_hour_price(value: float | None) -> float | None:
    """``--gpu-hour-price``: a positive, finite number of US dollars (None: the default)."""
    if value is not None and not (math.isfinite(value) and value > 0):
        raise AdvisorError(f"--gpu-hour-price must be a positive number of USD per GPU-hour (got {value:g})")
    return value


@dataclass(frozen=True)
class GpuPrice:
    usd_per_gpu_hour: float
    source: str


def gpu_price(gpu: str, tp: int, given: float | None, table: GpuPrices | None = None) -> GpuPrice | None:
    """The price of one GPU-hour: the one given, else the default of the smallest listed
    instance that holds the TP group (the largest one when none does); None without either."""
    if given is not None:
        check_gpu_hour_price(given)
        return GpuPrice(given, "given (--gpu-hour-price)")
    table = table or load_prices().gpus
    sizes = table.per_gpu_hour.get(gpu)
    if not sizes:
        return None
    fitting = [n for n in sorted(sizes) if n >= tp]
    n = fitting[0] if fitting else max(sizes)
    return GpuPrice(sizes[n], f"{table.provider}, {n}-GPU {gpu} instance, per GPU: {table.source}; read {table.read_on}")


# --- one request on a hosted API --------------------------------------------------------------

@dataclass(frozen=True)
class RequestTokens:
    """Where one request's shared prefix goes under a provider's rules. ``read`` +
    ``expired`` + ``below_minimum`` + ``rounded`` = the request's cached tokens."""

    read: int  # read from the provider's cache (billed at the cached-input price)
    expired: int  # long enough, but the cache had dropped it (older than the lifetime)
    below_minimum: int  # the shared prefix is shorter than the minimum cacheable prefix
    rounded: int  # past the last whole step of the provider's granularity


def request_tokens(cached: int, fresh: int | None, price: HostedPrice) -> RequestTokens:
    """The provider's read of a request whose prefix of ``cached`` tokens an earlier request
    shares; ``fresh``: how much of it was used within the cache lifetime (None: not checked)."""
    step = price.granularity
    whole = cached // step * step
    if whole < price.minimum_tokens:  # the whole shared prefix is lost to the minimum
        return RequestTokens(read=0, expired=0, below_minimum=cached, rounded=0)
    live = whole if fresh is None else min(cached, fresh) // step * step
    read = live if live >= price.minimum_tokens else 0
    return RequestTokens(read=read, expired=whole - read, below_minimum=0, rounded=cached - whole)


@dataclass
class ProviderTokens:
    """One provider's token totals over the traffic."""

    requests: int = 0
    prompt: int = 0
    read: int = 0
    written: int = 0
    expired: int = 0
    below_minimum: int = 0
    rounded: int = 0
    hit_requests: int = 0
    expired_requests: int = 0
    short_requests: int = 0  # requests that share a prefix, all of it under the minimum

    def count(self, prompt: int, part: RequestTokens, written: int) -> None:
        self.requests += 1
        self.prompt += prompt
        self.read += part.read
        self.written += written
        self.expired += part.expired
        self.below_minimum += part.below_minimum
        self.rounded += part.rounded
        self.hit_requests += part.read > 0
        self.expired_requests += part.expired > 0
        self.short_requests += part.below_minimum > 0

    @property
    def new(self) -> int:
        """Input billed at the base price: neither read nor written to the cache. Every
        written token was one request's uncached token, so this is never negative."""
        return max(0, self.prompt - self.read - self.written)


# --- the pass over the traffic ----------------------------------------------------------------

def fresh_ids(tree: RadixTree, ids: Any, now: float, ttls: Iterable[float]) -> dict[float, int]:
    """For each lifetime, the leading ids of ``ids`` that some request in ``tree`` used at
    or after ``now - ttl``. Every insert stamps its whole path with the tree's clock, so a
    node is never newer than its parent: walk up from the end of the match to the first
    node recent enough. A stamp later than ``now`` (traffic files whose times interleave,
    read in file order as analyze reads them) counts as recent."""
    # Split where the match ends (the insert that follows splits there too) so the node
    # returned ends exactly at the match and carries its own stamp.
    node, _, _ = tree.match_prefix(ids, split=True, stamp=False)
    out: dict[float, int] = {}
    for ttl in sorted(set(ttls), reverse=True):  # longest first: each walk starts where the last stopped
        while node is not tree.root and node.last_access < now - ttl:
            assert node.parent is not None
            node = node.parent
        out[ttl] = tree.depth_of(node)
    return out


@dataclass
class TrafficBills:
    """Per-provider token totals gathered in analyze's pass; ``add`` wraps ``Analyzer.add``.

    With timestamps on every record, the analyzer's trees are stamped with each request's
    time (``RadixTree.clock``; analyze itself never reads the stamps), and a request's hit
    under a lifetime is the part of its prefix some request used within it. Providers with
    a write premium keep a small tree of the prefixes read from their cache: a prefix read
    for the first time in an entry's lifetime was written by the request that left it."""

    providers: tuple[HostedPrice, ...]
    seconds_per_unit: float | None  # None: not every record has a timestamp (TTL not checked)
    tokens: list[ProviderTokens] = field(default_factory=list)
    requests: int = 0
    prompt_tokens: int = 0
    cached_tokens: int = 0
    output_tokens: int = 0
    output_requests: int = 0  # records that carry an output length
    stamped_requests: int = 0
    # Per provider with a write premium and namespace (requests with other cache keys, or
    # block hashes of another trace, never share an entry): the prefixes read from its cache.
    _written: dict[tuple[int, str], RadixTree] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.tokens = [ProviderTokens() for _ in self.providers]

    @classmethod
    def for_traffic(cls, seqs: SequenceOf[Sequence], providers: Iterable[HostedPrice] | None = None) -> "TrafficBills":
        stamps = [s.request.timestamp for s in seqs]
        timed = bool(stamps) and all(t is not None for t in stamps)
        scale = timestamp_scale([float(t) for t in stamps if t is not None]) if timed else None
        bills = cls(tuple(load_prices().hosted if providers is None else providers), scale)
        bills.stamped_requests = sum(t is not None for t in stamps)
        return bills

    @property
    def ttls(self) -> list[float]:
        return sorted({p.ttl_seconds for p in self.providers if p.ttl_seconds is not None})

    def add(self, analyzer: Analyzer, seq: Sequence) -> int:
        """``analyzer.add(seq)`` (returned), counting the request for every provider."""
        now: float | None = None
        fresh: dict[float, int] = {}
        stamp = seq.request.timestamp
        if self.seconds_per_unit is not None and stamp is not None and self.ttls:
            now = float(stamp) * self.seconds_per_unit
            tree = analyzer.tree_for(seq.namespace, seq.unit)  # the tree the analyzer inserts into
            fresh = {ttl: seq.tokens_of(n) for ttl, n in fresh_ids(tree, seq.ids, now, self.ttls).items()}
            tree.clock = now
        cached = analyzer.add(seq)
        self.requests += 1
        self.prompt_tokens += seq.prompt_tokens
        self.cached_tokens += cached
        if seq.request.output_length is not None:
            self.output_requests += 1
            self.output_tokens += seq.request.output_length
        for i, price in enumerate(self.providers):
            live = fresh.get(price.ttl_seconds) if price.ttl_seconds is not None else None
            part = request_tokens(cached, live, price)
            written = self._write(i, seq, part.read, now, price.ttl_seconds) if part.read else 0
            self.tokens[i].count(seq.prompt_tokens, part, written)
        return cached

    def _write(self, i: int, seq: Sequence, read: int, now: float | None, ttl: float | None) -> int:
        """Tokens of the read prefix no earlier read covered within the lifetime: written to
        the cache by the request that left them (billed at the write price once)."""
        if self.providers[i].cache_write is None:
            return 0
        tree = self._written.get((i, seq.namespace))
        if tree is None:
            tree = self._written[(i, seq.namespace)] = RadixTree()
        n = read // seq.unit
        ids = seq.ids[:n]
        if now is not None and ttl is not None:
            have = fresh_ids(tree, ids, now, (ttl,))[ttl]
            tree.clock = now
        else:
            have = tree.match(ids)
        tree.insert(ids)
        return 0 if have >= n else read - have * seq.unit


# --- the facts ------------------------------------------------------------------------------------

def hosted_bill(tokens: ProviderTokens, output_tokens: int, price: HostedPrice) -> dict[str, Any]:
    """One provider's bill for the traffic, split four ways, and the bill without caching."""
    usd = {
        "cache_reads": tokens.read * price.cached_input / MILLION,
        "new_input": tokens.new * price.input / MILLION,
        "cache_writes": tokens.written * (price.cache_write if price.cache_write is not None else price.input) / MILLION,
        "output": output_tokens * price.output / MILLION,
    }
    total = sum(usd.values())
    uncached = tokens.prompt * price.input / MILLION + usd["output"]
    input_usd = total - usd["output"]
    return {
        "provider": price.provider,
        "model": price.model,
        "prices_per_million": {"input": price.input, "cached_input": price.cached_input,
                               "cache_write": price.cache_write, "output": price.output},
        "minimum_tokens": price.minimum_tokens,
        "granularity": price.granularity,
        "ttl_seconds": price.ttl_seconds,
        "ttl_note": price.ttl_note,
        "tokens": {"cache_reads": tokens.read, "new_input": tokens.new, "cache_writes": tokens.written,
                   "output": output_tokens},
        "lost": {"expired": tokens.expired, "below_minimum": tokens.below_minimum, "rounded": tokens.rounded},
        "requests": {"hit": tokens.hit_requests, "expired": tokens.expired_requests,
                     "below_minimum": tokens.short_requests},
        "usd": {k: round(v, 6) for k, v in usd.items()},
        "total_usd": round(total, 6),
        "uncached_usd": round(uncached, 6),
        "saving": round(1 - total / uncached, 6) if uncached else 0.0,
        "input_usd_per_million_prompt_tokens": round(input_usd / tokens.prompt * MILLION, 6) if tokens.prompt else 0.0,
        "source": price.source,
        "read_on": price.read_on,
    }


# Where the simulation's output lengths came from (``simulation.assumptions``), in words.
_OUTPUT_SOURCES = {"logged": "logged", "output_len": "from --output-len",
                   "max_tokens": "their max_tokens generated in full", "default": "none (one token)"}


def decode_basis(facts: Mapping[str, Any], bills: TrafficBills) -> tuple[bool, str]:
    """Whether the simulated engine time includes real decoding, and the basis in words:
    from the simulation's own assumptions when the facts carry them, else from the records."""
    sources = ((facts.get("simulation") or {}).get("assumptions") or {}).get("output_length_sources")
    if sources is not None:
        given = {k: int(v) for k, v in sources.items() if k != "default" and v}
        if not given:
            return False, ("simulated prefill time only: no request has an output length (no logged count, "
                           "max_tokens or --output-len)")
        parts = ", ".join(f"{n:,} {_OUTPUT_SOURCES.get(k, k)}" for k, n in sources.items() if n)
        return True, f"simulated engine time, prefill and decode (output lengths: {parts})"
    if bills.output_requests:
        return True, (f"simulated engine time, prefill and decode ({bills.output_requests:,} of "
                      f"{bills.requests:,} records carry an output length)")
    return False, "simulated prefill time only: the records carry no output lengths"


def _setup_row(name: str, s: Mapping[str, Any], tp: int, decode_known: bool) -> dict[str, Any]:
    decode = float(s["decode_seconds"]) if decode_known else 0.0
    return {"setup": name, "label": s["label"], "hit_rate": s["hit_rate"], "prompt_tokens": int(s["prompt_tokens"]),
            "prefill_gpu_seconds": float(s["prefill_seconds"]) * tp, "decode_gpu_seconds": decode * tp}


def self_hosted(facts: Mapping[str, Any], prompt_tokens: int, decode_known: bool, basis: str,
                price: GpuPrice | None) -> dict[str, Any]:
    """GPU-seconds and dollars of serving the traffic on the chosen GPU and TP: without
    caching, with the advised engine's caching, and with it after the prescribed fix when the
    facts simulate one. Each setup's GPU time is its busy time in the saturated run (every
    request arriving at once, the TP group's GPUs busy together: idle time is not billed);
    decode counts only when ``decode_known``."""
    tp = int(facts["input"]["tp"])
    engine = str(facts.get("engine")) if facts.get("engine") in ("sglang", "vllm") else "sglang"
    setups = ((facts.get("simulation") or {}).get("engines") or {}).get("setups")
    rows: dict[str, dict[str, Any]] = {}
    if setups and "none" in setups and engine in setups:
        rows["no_cache"] = _setup_row("none", setups["none"], tp, decode_known)
        rows["cached"] = _setup_row(engine, setups[engine], tp, decode_known)
        fixed = (((facts.get("after_fix") or {}).get("simulation") or {}).get("engines") or {}).get("setups") or {}
        if engine in fixed:
            rows["cached_after_fix"] = _setup_row(engine, fixed[engine], tp, decode_known)
    else:
        # No simulation in the facts: the cost model's prefill throughput, prefill only.
        per_s = float(facts["cost"]["prefill_tokens_per_s"])
        hit = float((facts.get("traffic") or {}).get("hit_rate") or 0.0)
        decode_known = False
        basis = "prefill time at the cost model's prefill throughput (no simulation): prefill only"
        for key, name, rate in (("no_cache", "none", 0.0), ("cached", engine, hit)):
            rows[key] = {"setup": name, "label": "no caching" if name == "none" else engine, "hit_rate": rate,
                         "prompt_tokens": prompt_tokens, "prefill_gpu_seconds": prompt_tokens * (1 - rate) / per_s * tp,
                         "decode_gpu_seconds": 0.0}
    for row in rows.values():
        row["gpu_seconds"] = row["prefill_gpu_seconds"] + row["decode_gpu_seconds"]
        if price is not None:
            usd = row["gpu_seconds"] / SECONDS_PER_HOUR * price.usd_per_gpu_hour
            row["usd"] = round(usd, 6)
            tokens = row["prompt_tokens"]
            row["usd_per_million_prompt_tokens"] = round(usd / tokens * MILLION, 6) if tokens else 0.0
        for key in ("prefill_gpu_seconds", "decode_gpu_seconds", "gpu_seconds"):
            row[key] = round(row[key], 6)
    base, cached = rows["no_cache"], rows["cached"]
    return {
        "gpu": facts["input"]["gpu"],
        "tp": tp,
        "engine": engine,
        "basis": basis,
        "decode_included": decode_known,
        "gpu_hour_price": price.usd_per_gpu_hour if price is not None else None,
        "price_source": price.source if price is not None else None,
        "setups": rows,
        "saving": round(1 - cached["gpu_seconds"] / base["gpu_seconds"], 6) if base["gpu_seconds"] else 0.0,
        **({"saving_after_fix": round(1 - rows["cached_after_fix"]["gpu_seconds"] / base["gpu_seconds"], 6)}
           if "cached_after_fix" in rows and base["gpu_seconds"] else {}),
    }


def money_facts(facts: Mapping[str, Any], bills: TrafficBills, gpu_hour_price: float | None = None,
                gpu_prices: GpuPrices | None = None) -> dict[str, Any]:
    """``facts["money"]``: the traffic's bill self-hosted and on each hosted API.

    Shape (USD; "per million" is per million prompt tokens)::

        {"currency": "USD", "requests", "prompt_tokens", "output_tokens" (records' own, or
         None when no record carries one), "output_requests", "output_billed": bool,
         "ttl_checked": bool, "notes": [the assumptions, in words],
         "self_hosted": {"gpu", "tp", "engine", "basis", "decode_included", "gpu_hour_price"
                         (None: no default and none given), "price_source", "saving" (of
                         GPU time), "setups": {"no_cache" | "cached" | "cached_after_fix"
                         (when the facts simulate the fix): {"setup", "label", "hit_rate",
                         "prompt_tokens", "prefill_gpu_seconds", "decode_gpu_seconds",
                         "gpu_seconds", "usd" and "usd_per_million_prompt_tokens" (with a
                         price)}}},
         "hosted": [{"provider", "model", "prices_per_million": {"input", "cached_input",
                     "cache_write", "output"}, "minimum_tokens", "granularity",
                     "ttl_seconds", "ttl_note", "tokens": {"cache_reads", "new_input",
                     "cache_writes", "output"}, "lost": {"expired", "below_minimum",
                     "rounded"}, "requests": {"hit", "expired", "below_minimum"},
                     "usd": {"cache_reads", "new_input", "cache_writes", "output"},
                     "total_usd", "uncached_usd", "saving",
                     "input_usd_per_million_prompt_tokens", "source", "read_on"}]}

    The four ``usd`` parts sum to ``total_usd``; the four ``tokens`` parts to the prompt
    tokens plus the output tokens."""
    price = gpu_price(str(facts["input"]["gpu"]), int(facts["input"]["tp"]), gpu_hour_price, gpu_prices)
    notes: list[str] = []
    if bills.output_requests == 0:
        notes.append("Hosted output is not billed: the records carry no output lengths.")
    elif bills.output_requests < bills.requests:
        notes.append(f"{bills.output_requests:,} of {bills.requests:,} records carry an output length: only their "
                     "output is billed on the hosted APIs.")
    if bills.seconds_per_unit is None:
        notes.append("TTL not checked: no timestamps" + (
            f" on {bills.requests - bills.stamped_requests:,} of {bills.requests:,} records." if bills.stamped_requests
            else "."))
    return {
        "currency": "USD",
        "requests": bills.requests,
        "prompt_tokens": bills.prompt_tokens,
        "output_tokens": bills.output_tokens if bills.output_requests else None,
        "output_requests": bills.output_requests,
        "output_billed": bills.output_requests > 0,
        "ttl_checked": bills.seconds_per_unit is not None,
        "notes": notes,
        "self_hosted": self_hosted(facts, bills.prompt_tokens, *decode_basis(facts, bills), price),
        "hosted": hosted_bills(bills),
    }


def hosted_bills(bills: TrafficBills) -> list[dict[str, Any]]:
    """Each hosted provider's bill (``hosted_bill``) of the counted traffic."""
    billed_output = bills.output_tokens if bills.output_requests else 0
    return [hosted_bill(t, billed_output, p) for t, p in zip(bills.tokens, bills.providers)]
