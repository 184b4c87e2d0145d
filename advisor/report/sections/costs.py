"""5. HBM costs and engine timings: what the hot prefix costs in KV, and the serve model's
timings with where they come from."""

from __future__ import annotations

from typing import Any

from advisor.report.sections.format import Block, size
from advisor.report.table import Table, columns

TITLE = "HBM costs and engine timings"


def figures(cost: dict[str, Any], timings: dict[str, Any] | None) -> Table:
    t = Table(columns("figure", "value>"))
    t.add(f"KV bytes per token ({cost['kv_dtype']}, TP {cost['tp']})", f"{cost['kv_bytes_per_token']:,}")
    t.add("hot prefix resident once (one radix branch)",
          f"{cost['prefix_tokens']:,} tokens = {size(cost['prefix_bytes'])}")
    t.add("its share of the KV pool", f"{cost['prefix_pool_share']:.2%}")
    t.add(f"batch of {cost['batch']}: prefix shared / unshared",
          f"{size(cost['batch_bytes_shared'])} / {size(cost['batch_bytes_unshared'])}")
    shared = cost.get("concurrency_shared")
    t.add("concurrent sequences that fit (unshared / shared prefix)",
          f"{cost.get('concurrency_unshared')} / {shared if shared is not None else 'not limited by KV'}")
    t.add("prefill saved per prefix hit", f"{cost['prefill_flops_per_hit'] / 1e12:,.1f} TFLOP, "
          f"{cost['prefill_seconds_saved_per_hit'] * 1000:,.1f} ms at {cost['mfu']:.0%} MFU")
    if timings:
        t.add("prefill throughput, one cold 2,048-token prompt",
              f"{timings['prefill_tokens_per_s']:,.0f} tokens/s "
              f"({timings['prefill_token_s'] * 1e6:.2f} us a token before attention)")
        t.add("decode step, one sequence of 2,048 tokens",
              f"{timings['decode_step_seconds_batch1'] * 1e3:,.2f} ms "
              f"(weights {size(timings['weight_bytes_per_gpu'])} a GPU; each context token adds "
              f"{timings['kv_token_s'] * 1e9:,.1f} ns)")
    return t


def timings_text(t: dict[str, Any]) -> str:
    return (f"Timings of the simulation ({t['description']}): prefill is compute bound, 2 × "
            f"{t['params_nonembedding_active'] / 1e9:.2f}B active non-embedding parameters FLOPs a token plus the "
            f"causal attention, over TP × {t['gemm_tflops']:g} TFLOPS ({t['gemm_dtype']}) × {t['mfu']:.0%} MFU, and "
            "a step never shorter than one read of the weights; a decode step reads each GPU's share of the weights "
            f"and the running sequences' KV at {t['bandwidth_util']:.0%} of {t['bandwidth_gb_s']:,.0f} GB/s. "
            f"Sources: MFU {t['sources']['mfu']}; bandwidth utilisation {t['sources']['bandwidth_util']}; "
            "model and GPU figures as cited below. `--mfu` and `--bandwidth-util` override them.")


def render(data: dict[str, Any], picture: str | None) -> list[Block]:
    timings = data.get("timings")
    out: list[Block] = [figures(data["cost"], timings)]
    if timings:
        out += ["", timings_text(timings)]
    return out
