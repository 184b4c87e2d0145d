"""4. SGLang against vLLM against no caching: the comparison the decision rests on."""

from __future__ import annotations

from typing import Any

from advisor.advise.decide import comparison_text
from advisor.report.sections.format import Block, pct
from advisor.report.table import Column, Table

TITLE = "SGLang against vLLM against no caching"


def setups_table(cmp: dict[str, Any]) -> Table:
    heads = ("pool (tokens)", "hit rate", "prefill tokens", "throughput (tokens/s)", "TTFT p50 (s)", "TTFT p90 (s)",
             "speedup", "decode share")
    t = Table([Column(""), *(Column(h, "right") for h in heads)])
    for row in cmp["setups"].values():
        t.add(row["label"], f"{row['pool_tokens']:,}", pct(row["hit_rate"]), f"{row['prefill_tokens']:,}",
              f"{row['throughput_tokens_s']:,.0f}", f"{row['ttft_p50_s']:.3f}", f"{row['ttft_p90_s']:.3f}",
              f"{row['speedup']:.2f}×", f"{row['decode_share']:.0%}")
    return t


def render(data: dict[str, Any], picture: str | None) -> list[Block]:
    sim = data.get("simulation")
    cmp = sim.get("engines") if sim else None
    if cmp is None:
        return ["Not simulated: no traffic."]
    out: list[Block] = [
        f"Each engine with its own hit rules, eviction and pool on the deployment above (serve mode). Hit rate, "
        f"prefill tokens and TTFT: the traffic with its {cmp['arrivals']}. Throughput: the same requests arriving at "
        "once (the engine saturated); speedup = throughput over no caching's. Decode share: the share of the "
        "saturated engine time spent in decode steps, which a prefix cache cannot shorten.",
        "",
        setups_table(cmp),
        "",
    ]
    out += [f"- {line}" for line in comparison_text(cmp)]
    thr = data["input"]["thresholds"]
    if "sglang_throughput_gain" in thr:
        out.append(f"- The bar for a change of engine: SGLang must give {thr['sglang_throughput_gain']:.0%} more "
                   f"throughput, {thr['sglang_ttft_gain']:.0%} lower p90 TTFT or {thr['sglang_hit_points'] * 100:.0f} "
                   "more points of hit rate than vLLM (any one).")
    return out
