"""Whether a host-memory tier pays on this traffic: SGLang's HiCache, vLLM's CPU offload.

``measure`` runs each engine's pool at the GPU's size with a host tier behind it
(``advisor.simulate.tiers``: the device run is the one the advisory already reports, the host
pool beside it) and gives, per engine, the hit rate from HBM, the hit rate the host tier adds,
the tokens loaded back and the prefill seconds those tokens would otherwise cost. ``price`` adds
what loading them costs over the GPU's host link (the catalog's ``host_link_gb_s``, one
direction) and the verdict: a tier is recommended only where host memory adds at least
``MIN_HIT_GAIN`` of the prompt tokens **and** loading them is faster than computing them again.

Both figures are sums over the run. The load is each GPU's share of the KV (its TP shard)
over its own link, at the link's nominal rate: no efficiency factor is assumed, so the load
time is a floor. The recompute time is the prefill's linear part only (``EngineTimings.
prefill_seconds``: no attention over the cached prefix), so it is a floor too; a load that is
faster than this recompute is faster than the real one. No overlap of the load with the
prefill is assumed: what a load adds to a request's TTFT is at most its transfer time, and the
prefill it saves is the recompute time.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from advisor.cost import resolve_gpu
from advisor.cost.catalog import GIB
from advisor.cost.compute import EngineTimings
from advisor.errors import AdvisorError
from advisor.index.geometry import CacheGeometry
from advisor.simulate.runner import RunSpec
from advisor.simulate.study import Study
from advisor.simulate.tiers import TierResult, cpu_offload, hicache, run_tiered

# A tier must add at least this share of the prompt tokens from host memory: the same 3 points
# the decision asks of SGLang over vLLM before it recommends a change of engine
# (``advise.decide.Thresholds.sglang_hit_points``). Below it the tier's memory, its write
# traffic and its flag buy too little to be worth a deployment change.
MIN_HIT_GAIN = 0.03

# vLLM's --block-size default (REFERENCE §2.2); the same constant as the engine comparison.
VLLM_BLOCK = 16

LABELS = {
    "sglang": "SGLang HiCache (--enable-hierarchical-cache, write_through, --hicache-ratio {ratio:g})",
    "vllm": "vLLM CPU offload (--kv-offloading-backend native, LRU, {ratio:g}× the GPU pool)",
}


def measure(study: Study, base: RunSpec, pools: dict[str, int], timings: EngineTimings,
            geometries: dict[str, CacheGeometry] | None = None) -> dict[str, Any]:
    """``facts["simulation"]["tiers"]``: each engine's pool with its host tier, on the Study's
    jobs. SGLang's run is ``base`` at its pool under FCFS (the capacity section's figure);
    vLLM's is the engine comparison's (serve mode, block LRU, its own pool)."""
    geo = (geometries or {}).get("vllm")
    sglang = replace(base, policy="fcfs", capacity=pools["sglang"])
    vllm = RunSpec(policy="fcfs", eviction="block-lru", engine="vllm", capacity=pools["vllm"], mode="serve",
                   page=geo.block if geo is not None else VLLM_BLOCK, cost=timings,
                   geometry=geo if geo is not None and not geo.is_dense else None)
    runs = {
        "sglang": run_tiered(study.jobs, sglang, hicache(pools["sglang"], sglang.page), study.indexes),
        "vllm": run_tiered(study.jobs, vllm, cpu_offload(pools["vllm"], vllm.page), study.indexes),
    }
    return {"min_hit_gain": MIN_HIT_GAIN,
            **{engine: figures(engine, r, timings) for engine, r in runs.items()}}


def figures(engine: str, r: TierResult, timings: EngineTimings) -> dict[str, Any]:
    """One engine's tier run as plain data."""
    t = r.totals
    return {
        "label": LABELS[engine].format(ratio=r.tier.ratio),
        "mode": r.device.spec.mode,
        "device_tokens": r.device.spec.capacity,
        "host_tokens": r.tier.capacity,
        "host_ratio": r.tier.ratio,
        "min_load_tokens": r.tier.min_load_tokens,
        "requests": t.requests,
        "prompt_tokens": t.prompt_tokens,
        "hbm_cached_tokens": t.cached_tokens,
        "hbm_hit_rate": round(r.device_hit_rate, 6),
        "added_hit_rate": round(r.added_hit_rate, 6),
        "hit_rate": round(r.hit_rate, 6),
        "loaded_tokens": r.loaded_tokens,
        "loading_requests": r.loading_requests,
        "recompute_seconds": round(timings.prefill_seconds(r.loaded_tokens), 6),
    }


def transfer_seconds(tokens: int, bytes_per_token_per_gpu: int, link_gb_s: float) -> float:
    """Seconds to move ``tokens`` tokens' KV from host memory to each GPU over its own link."""
    return tokens * bytes_per_token_per_gpu / (link_gb_s * 1e9)


def price(tier: dict[str, Any], cost: dict[str, Any]) -> dict[str, Any]:
    """``tier`` (one engine's ``figures``) with the load's cost on this GPU and the verdict."""
    try:
        gpu = resolve_gpu(cost["gpu"])
        link, link_name, source = gpu.host_link_gb_s, gpu.host_link, gpu.host_link_source
    except AdvisorError:  # a GPU the catalog does not hold: its link is unknown
        link, link_name, source = None, "", ""
    per_gpu = int(cost["kv_bytes_per_token_per_gpu"])
    load = transfer_seconds(tier["loaded_tokens"], per_gpu, link) if link else None
    requests = tier["loading_requests"]
    adds = tier["added_hit_rate"] >= MIN_HIT_GAIN
    faster = load is not None and load < tier["recompute_seconds"]
    if not adds:
        why = (f"host memory adds {tier['added_hit_rate']:.1%} of the prompt tokens, below the "
               f"{MIN_HIT_GAIN:.0%} a tier must add")
    elif load is None:
        why = f"the host link of {cost['gpu']} is not in the catalog"
    elif not faster:
        why = "loading the tokens back takes longer than computing them again"
    else:
        assert load is not None and load > 0  # it adds tokens, so it loads some
        why = (f"host memory adds {tier['added_hit_rate']:.1%} of the prompt tokens and loads them "
               f"{tier['recompute_seconds'] / load:.1f}× faster than the prefill computes them")
    return {
        **tier,
        "host_link": link_name,
        "host_link_gb_s": link,
        "host_link_source": source,
        "kv_bytes_per_token_per_gpu": per_gpu,
        "host_bytes": tier["host_tokens"] * int(cost["kv_bytes_per_token"]),
        "transfer_seconds": round(load, 6) if load is not None else None,
        "transfer_seconds_per_loading_request": round(load / requests, 6) if load is not None and requests else None,
        "recompute_seconds_per_loading_request": round(tier["recompute_seconds"] / requests, 6) if requests else None,
        "pays": adds and faster,
        "why": why,
    }


def priced(sim: dict[str, Any] | None, cost: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every engine's priced tier of a simulation's facts (empty without them)."""
    tiers = (sim or {}).get("tiers")
    if not tiers:
        return {}
    return {engine: price(tiers[engine], cost) for engine in ("sglang", "vllm") if engine in tiers}


def recommended(sim: dict[str, Any] | None, cost: dict[str, Any], engine: str = "sglang") -> bool:
    """Does ``engine``'s host tier pay on the simulated traffic?"""
    tier = priced(sim, cost).get(engine)
    return bool(tier and tier["pays"])


def vllm_offloading_gib(tier: dict[str, Any]) -> float:
    """``--kv-offloading-size`` for a priced vLLM tier: GiB summed over the TP ranks, as vLLM
    reads it (``CacheConfig.kv_offloading_size``)."""
    return tier["host_bytes"] / GIB
