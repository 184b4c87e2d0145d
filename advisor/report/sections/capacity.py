"""3. Capacity and scheduling: hit rate against pool size, and the GPU's pool in detail."""

from __future__ import annotations

from typing import Any, Callable

from advisor.report.sections.format import Block, pct
from advisor.report.table import Table, columns

TITLE = "Capacity and scheduling"

# The serve-mode figures at the pool: key, label, format.
SERVE_ROWS: tuple[tuple[str, str, Callable[[Any], str]], ...] = (
    ("hit_rate", "hit rate", pct),
    ("throughput_tokens_s", "throughput at the logged arrivals (tokens/s)", lambda v: f"{v:,.0f}"),
    ("ttft_p50_s", "TTFT p50 (s)", lambda v: f"{v:.3f}"),
    ("ttft_p90_s", "TTFT p90 (s)", lambda v: f"{v:.3f}"),
    ("queue_delay_mean_s", "mean queue delay (s)", lambda v: f"{v:.3f}"),
    ("evicted_tokens", "evicted tokens", lambda v: f"{v:,}"),
)


def curve_table(sim: dict[str, Any], cost: dict[str, Any], after: dict[str, Any] | None = None) -> Table:
    """Today's curve; with ``after`` (the rewritten traffic's simulation, at the same
    capacities) its cache-aware and optimal columns beside."""
    heads = ["pool (tokens)>", "FCFS>", "cache-aware (lpm)>", "optimal eviction>"]
    if after is not None:
        heads += ["after the change: lpm>", "after the change: optimal>"]
    t = Table(columns(*heads))
    by_cap: dict[Any, dict[str, float]] = {}
    for p in sim["curve"]:
        by_cap.setdefault(p["capacity_tokens"], {})[p["policy"]] = p["hit_rate"]
    after_by_cap: dict[Any, dict[str, float]] = {}
    for p in (after or {}).get("curve", ()):
        after_by_cap.setdefault(p["capacity_tokens"], {})[p["policy"]] = p["hit_rate"]
    for cap in sorted(c for c in by_cap if c is not None) + [None]:
        label = "unlimited" if cap is None else f"{cap:,}"
        if cap == cost["kv_pool_tokens"]:
            label += f" ({cost['gpu']})"
        row = by_cap[cap]
        cells = [label, pct(row.get("fcfs")), pct(row.get("lpm")), pct(row.get("optimal"))]
        if after is not None:
            fixed = after_by_cap.get(cap, {})
            cells += [pct(fixed.get("lpm")), pct(fixed.get("optimal"))]
        t.add(*cells)
    return t


def at_pool_table(at: dict[str, Any]) -> Table:
    t = Table(columns("at the GPU's pool", "FCFS>", "cache-aware (lpm)>"))
    for key, label, fmt in SERVE_ROWS:
        if key in at["fcfs"]:
            t.add(label, fmt(at["fcfs"][key]), fmt(at["lpm"][key]))
    return t


def render(data: dict[str, Any], picture: str | None) -> list[Block]:
    sim = data.get("simulation")
    cost = data["cost"]
    if sim is None:
        return ["Not simulated: no traffic."]
    out: list[Block] = [f"![hit rate against pool size]({picture})", ""] if picture else []
    out += [
        f"Simulated in {sim['mode']} mode with SGLang's hit rules and whole-leaf LRU eviction; the pool of "
        f"{cost['tp']} × {cost['gpu']} for {cost['model']} holds {cost['kv_pool_tokens']:,} tokens "
        f"(mem-fraction-static {cost['mem_fraction']}). The traffic's working set is "
        f"{sim['working_set_tokens']:,} tokens.",
        "",
        "Optimal: an eviction that knows the future (Belady with bypass, kvcache-simulator's `optimal` "
        "semantics), requests in arrival order: the most any eviction policy could keep at that pool. A gap "
        "between a policy and it is the policy's; a gap between it and unlimited is the memory's.",
        "",
        curve_table(sim, cost, (data.get("after_fix") or {}).get("simulation")),
        "",
    ]
    at = sim["at_pool"]
    if sim["mode"] == "serve":
        out.append(at_pool_table(at))
    else:
        out.append(f"At the GPU's pool: FCFS {pct(at['fcfs']['hit_rate'])}, cache-aware "
                   f"{pct(at['lpm']['hit_rate'])} (replay: no timestamps, so no latency figures).")
    if sim["starvation"]:
        out.append("")
        out += [f"- TR501 tenant-starvation: {f['message']}" for f in sim["starvation"]]
    return out
