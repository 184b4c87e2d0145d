"""The advisory's architecture advice names what it measured, never a constant or a loser."""

from __future__ import annotations

from advisor.advise.architecture import advice


def engine(hit: float, block: int, grid: int, groups: list[str], lost: int = 0) -> dict:
    return {"hit_rate": hit, "block_tokens": block, "checkpoint_grid_tokens": grid, "groups": groups,
            "tokens_lost": lost}


def test_sglang_is_offered_on_its_measured_grid_only_where_it_serves_more() -> None:
    vllm = engine(0.0, 1040, 0, ["full", "state"], lost=5000)
    better = advice({"vllm": vllm, "sglang": engine(0.41, 1, 128, ["full", "state"])}, hot_prefix_tokens=600)
    text = " ".join(better)
    assert "1,040-token hybrid block" in text and "128-token grid" in text and "64-token" not in text
    assert "41.0% here against 0.0%" in text
    # SGLang at 0% too: the line keeps the block advice and offers no engine that also misses.
    worse = " ".join(advice({"vllm": vllm, "sglang": engine(0.0, 1, 128, ["full", "state"])}, hot_prefix_tokens=600))
    assert "never hits there" in worse and "serve on SGLang" not in worse
    assert "keeps more of this traffic" not in worse
