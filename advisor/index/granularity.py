"""TR601: the model's cache reuses less of the shared prefixes than full attention would."""

from __future__ import annotations

from advisor.findings import Finding
from advisor.index.analyze import Analysis

# Below this share of the prompt tokens the loss is rounding, not advice: one block of a few
# requests. A tenth of a point of hit rate is where a user would act on it.
MIN_LOSS_SHARE = 0.001

# Why hits are lost, in each engine's terms (ARCHITECTURES.md §1-2, confirmed in the source).
WHY = {
    "vllm": ("A hit must end on a block where a window or state was kept: a shared prefix shorter than one "
             "block never hits, and a new prefix often hits only from its third request."),
    "sglang": ("A hit must end where a state was tracked (on the checkpoint grid) or where the window before it "
               "is still live: a new prefix often hits only from its third request, and a window freed after "
               "prefill leaves earlier branch points unmatchable."),
}


def granularity_finding(analysis: Analysis) -> Finding | None:
    """One finding when the model's windows and states cost hits against full attention."""
    geo = analysis.geometry
    if geo is None or not analysis.prompt_tokens:
        return None
    lost = analysis.full_attention_cached_tokens - analysis.cached_tokens
    if lost <= 0 or lost < MIN_LOSS_SHARE * analysis.prompt_tokens:
        return None
    full_rate = analysis.full_attention_cached_tokens / analysis.prompt_tokens
    path, line = analysis.short_changed_at or ("", 0)
    kinds = ", ".join(f"{g.layers} {g.kind}" if g.layers else g.kind for g in geo.groups)
    message = (
        f"{analysis.short_changed_requests:,} requests reuse less than full attention would: hit rate "
        f"{analysis.hit_rate:.1%} against {full_rate:.1%} ({lost:,} tokens recomputed). "
        f"{geo.granularity_note or f'The cache block is {geo.block:,} tokens'} ({kinds} layers; {geo.rule}). "
        + WHY.get(geo.engine, WHY["vllm"])
    )
    return Finding(path=path, line=line, code="TR601", message=message, kind="cache-granularity",
                   requests=analysis.short_changed_requests, tokens_lost=lost,
                   details={"block_tokens": geo.block, "checkpoint_grid_tokens": geo.checkpoint_grid,
                            "full_attention_hit_rate": round(full_rate, 6)})
