"""The host-memory tier: a paragraph closing the capacity section (no heading of its own).

What SGLang's HiCache and vLLM's CPU offload add behind each engine's pool on this traffic, what
loading those tokens back costs over the GPU's host link, and whether the tier is recommended
(``advisor.advise.tiers``: the verdict is computed there, never here).
"""

from __future__ import annotations

from typing import Any

from advisor.advise.tiers import MIN_HIT_GAIN, priced, vllm_offloading_gib
from advisor.report.sections.format import Block, pct, size
from advisor.report.table import Table, columns

NAMES = {"sglang": "SGLang HiCache", "vllm": "vLLM CPU offload"}


def _seconds(value: float | None) -> str:
    return "n/a" if value is None else f"{value:,.3f}"


def table(tiers: dict[str, dict[str, Any]]) -> Table:
    engines = list(tiers)
    t = Table(columns("host-memory tier", *(f"{NAMES[e]}>" for e in engines)))
    rows: tuple[tuple[str, Any], ...] = (
        ("host memory (tokens)", lambda r: f"{r['host_tokens']:,} ({r['host_ratio']:g}× the pool, {size(r['host_bytes'])})"),
        ("hit rate from HBM", lambda r: pct(r["hbm_hit_rate"])),
        ("added by host memory", lambda r: pct(r["added_hit_rate"])),
        ("hit rate with the tier", lambda r: pct(r["hit_rate"])),
        ("tokens loaded back", lambda r: f"{r['loaded_tokens']:,} in {r['loading_requests']:,} requests"),
        ("load time (s)", lambda r: _seconds(r["transfer_seconds"])),
        ("prefill time it saves (s)", lambda r: _seconds(r["recompute_seconds"])),
        ("recommended", lambda r: "yes" if r["pays"] else "no"),
    )
    for label, cell in rows:
        t.add(label, *(cell(tiers[e]) for e in engines))
    return t


def render(data: dict[str, Any], picture: str | None) -> list[Block]:
    tiers = priced(data.get("simulation"), data["cost"])
    if not tiers:
        return []
    sglang = tiers.get("sglang")
    any_tier = next(iter(tiers.values()))
    link = (f"{any_tier['host_link']} at {any_tier['host_link_gb_s']:g} GB/s each way"
            if any_tier["host_link_gb_s"] else "an unknown link")
    out: list[Block] = [
        f"Host-memory tier: each engine's pool with host memory behind it, the same requests at the same "
        f"moments (SGLang's HiCache writes every node through to a host pool of `--hicache-ratio` × the device "
        f"pool; vLLM's CPU offload stores every full block in an LRU store of the same ratio; a hit found only in "
        f"host memory is loaded back before the prefill). Loads go over {link} per GPU, "
        f"{any_tier['kv_bytes_per_token_per_gpu']:,} B of KV a token each. A tier is recommended where host "
        f"memory adds at least {MIN_HIT_GAIN:.0%} of the prompt tokens and loading them beats computing them.",
        "",
        table(tiers),
        "",
    ]
    if sglang is not None:
        out.append(f"SGLang: {'add `--enable-hierarchical-cache`' if sglang['pays'] else 'no hierarchical cache'}: "
                   f"{sglang['why']}.")
    vllm = tiers.get("vllm")
    if vllm is not None:
        flag = f"add `--kv-offloading-size {vllm_offloading_gib(vllm):,.0f}`" if vllm["pays"] else "no CPU offload"
        out.append(f"vLLM: {flag}: {vllm['why']}.")
    return out
