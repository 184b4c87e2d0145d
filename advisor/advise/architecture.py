"""What the model's attention layout costs on this traffic, per engine (``advisor.cost.layout``).

For a model whose layers are not all full attention, each engine's hits are measured under its
own windows and states (``advisor.index.checkpoints``) beside what the same engine would serve
on full attention, so the advisory can name the granularity, its loss, and the engine whose
rules lose less on this traffic.
"""

from __future__ import annotations

from typing import Any, Iterable

from advisor.cost.catalog import GpuSpec, ModelSpec
from advisor.cost.layout import cache_geometry
from advisor.index.analyze import Analyzer
from advisor.index.geometry import CacheGeometry
from advisor.ingest.pipeline import Sequence

ENGINES = ("sglang", "vllm")


def geometries(model: ModelSpec, gpu: GpuSpec, page_size: int, kv_dtype: str, tp: int) -> dict[str, CacheGeometry]:
    """Each engine's geometry on the model; empty when every engine caches it as full attention."""
    out = {e: cache_geometry(model, e, gpu=gpu, kv_dtype=kv_dtype, tp=tp,
                             page_size=page_size if e == "sglang" else None) for e in ENGINES}
    return out if any(not g.is_dense for g in out.values()) else {}


def measure(seqs: Iterable[Sequence], geos: dict[str, CacheGeometry]) -> dict[str, Any]:
    """Per engine: the hit rate under its rules and under full attention, in one pass."""
    analyzers = {e: Analyzer(1, geo) for e, geo in geos.items()}
    for seq in seqs:
        for analyzer in analyzers.values():
            analyzer.add(seq)
    out: dict[str, Any] = {}
    for engine, analyzer in analyzers.items():
        res, geo = analyzer.result, geos[engine]
        full = res.full_attention_cached_tokens if res.geometry is not None else res.cached_tokens
        prompt = res.prompt_tokens or 1
        out[engine] = {
            "rule": geo.rule, "block_tokens": geo.block, "checkpoint_grid_tokens": geo.checkpoint_grid,
            "granularity": geo.granularity_note, "groups": [g.kind for g in geo.groups],
            "hit_rate": round(res.cached_tokens / prompt, 6),
            "full_attention_hit_rate": round(full / prompt, 6),
            "tokens_lost": full - res.cached_tokens,
            "short_changed_requests": res.short_changed_requests,
        }
    return out


def advice(per_engine: dict[str, Any], hot_prefix_tokens: int) -> list[str]:
    """What to do about the loss: the finer engine, a prefix of whole blocks, the flags."""
    lines: list[str] = []
    if not per_engine:
        return lines
    best = max(per_engine, key=lambda e: (per_engine[e]["hit_rate"], e))
    worst = min(per_engine, key=lambda e: (per_engine[e]["hit_rate"], e))
    if per_engine[best]["hit_rate"] > per_engine[worst]["hit_rate"]:
        lines.append(f"{best} keeps more of this traffic's prefixes on this model "
                     f"({per_engine[best]['hit_rate']:.1%} against {per_engine[worst]['hit_rate']:.1%}).")
    vllm = per_engine.get("vllm")
    if vllm and vllm["block_tokens"] > 16 and "state" in vllm["groups"]:
        block = vllm["block_tokens"]
        if 0 < hot_prefix_tokens < block:
            sglang = per_engine.get("sglang")
            # SGLang only where it measured better here, on the grid it measured (not a constant).
            other = (f", or serve on SGLang, whose Mamba checkpoints sit on a {sglang['checkpoint_grid_tokens']:,}-token "
                     f"grid ({sglang['hit_rate']:.1%} here against {vllm['hit_rate']:.1%})"
                     if sglang and sglang["hit_rate"] > vllm["hit_rate"] and sglang["checkpoint_grid_tokens"] else "")
            lines.append(f"The hot shared prefix ({hot_prefix_tokens:,} tokens) is shorter than vLLM's {block:,}-token "
                         f"hybrid block: it never hits there. Grow the static prefix to at least one block{other}.")
        else:
            lines.append(f"On vLLM a hit is a whole number of {block:,}-token blocks: end the shared prefix on a "
                         "block boundary to keep the last partial block.")
    if vllm and vllm["tokens_lost"] > 0 and ("state" in vllm["groups"] or "sliding" in vllm["groups"]):
        lines.append("vLLM keeps windows and states only at each prompt's replay boundary and at junctions "
                     "(`--prefix-cache-retention-interval` 0), so a new prefix hits from its third request; "
                     "a positive interval (a multiple of the block) or dense retention keeps more checkpoints "
                     "for more KV memory.")
    return lines
