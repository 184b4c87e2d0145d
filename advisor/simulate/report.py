"""Simulation results as the JSON contract of DESIGN.md, text/markdown tables, and the
per-policy explanation of where hits are won and lost."""

from __future__ import annotations

from collections.abc import Sequence as SequenceOf

import json
from typing import Any

from advisor import __version__
from advisor.findings import Finding
from advisor.report.table import Table, columns, to_markdown as md_table, to_plain
from advisor.simulate.runner import RunResult, serve_metrics


def run_dict(result: RunResult) -> dict[str, Any]:
    s = result.spec
    t = result.totals
    out: dict[str, Any] = {
        "policy": s.policy, "eviction": s.eviction, "engine": s.engine, "mode": s.mode,
        "capacity_tokens": s.capacity, "page_size": s.page, "replicas": s.replicas,
        "router": s.router if s.replicas > 1 else None, "warmup": s.warmup,
        "requests": t.requests, "prompt_tokens": t.prompt_tokens, "cached_tokens": t.cached_tokens,
        "hit_rate": round(t.hit_rate, 6), "prefill_tokens": result.prefill_tokens,
        "evicted_tokens": result.evicted_tokens,
        "per_tenant": {name: v.as_dict() for name, v in sorted(t.per_tenant.items())},
        "tenant_budget": dict(s.tenant_budget) if s.tenant_budget else None,
    }
    bhr = t.block_hit_rate
    out["block_hit_rate"] = round(bhr, 6) if bhr is not None else None
    if s.replicas > 1:
        out["per_replica"] = [
            {"replica": i, "requests": r.requests, "prompt_tokens": r.prompt_tokens,
             "cached_tokens": r.cached_tokens, "hit_rate": round(r.hit_rate, 6)}
            for i, r in enumerate(result.per_replica)
        ]
    if s.mode == "serve":
        out["serve"] = serve_metrics(result)
    return out


def explain(results: list[RunResult]) -> list[dict[str, Any]]:
    """For each policy, what differs from FCFS with the same eviction and capacity, in
    three parts: prefill saved (tokens, and seconds at the cost model), queueing (the
    mean TTFT change split into time waiting and time in prefill batches; serve mode)
    and eviction (tokens evicted)."""
    base: dict[tuple, RunResult] = {}
    for r in results:
        if r.spec.policy == "fcfs" and not r.spec.tenant_budget:
            base[(r.spec.eviction, r.spec.capacity)] = r
    notes = []
    for r in results:
        b = base.get((r.spec.eviction, r.spec.capacity))
        # The baseline itself, under any name (the optimal bound asked for with several
        # policies is one fcfs run): nothing to explain.
        if b is None or r is b or r.spec == b.spec or r.spec.tenant_budget:
            continue
        saved = b.prefill_tokens - r.prefill_tokens
        seconds = saved * r.spec.cost.prefill_token_s
        evicted = r.evicted_tokens - b.evicted_tokens
        delta = r.totals.hit_rate - b.totals.hit_rate
        note: dict[str, Any] = {
            "policy": r.spec.policy, "baseline": "fcfs", "eviction": r.spec.eviction,
            "capacity_tokens": r.spec.capacity, "hit_rate_delta": round(delta, 6),
            "prefill_tokens_saved": saved, "prefill_seconds_saved": round(seconds, 6),
            "evicted_tokens_delta": evicted,
        }
        parts = [f"{r.spec.policy} vs fcfs ({r.spec.eviction}, {_cap(r.spec.capacity)} tokens): hit rate "
                 f"{r.totals.hit_rate:.1%} vs {b.totals.hit_rate:.1%} ({delta * 100:+.1f} pts)",
                 f"prefill: {saved:+,} tokens saved = {seconds:+.2f} s of prefill compute"]
        if r.spec.mode == "serve":
            mr, mb = serve_metrics(r), serve_metrics(b)
            q = mr["queue_delay_mean_s"] - mb["queue_delay_mean_s"]
            ttft = _mean(r.totals.ttft) - _mean(b.totals.ttft)
            note["queue_delay_mean_delta_s"] = round(q, 6)
            note["ttft_mean_delta_s"] = round(ttft, 6)
            parts.append(f"queueing: mean TTFT {ttft:+.3f} s, of which {q:+.3f} s waiting in the queue and "
                         f"{ttft - q:+.3f} s in prefill batches")
        parts.append("eviction: " + (f"{-evicted:,} fewer tokens evicted" if evicted < 0
                                     else f"{evicted:,} more tokens evicted" if evicted > 0 else "no change"))
        note["text"] = "; ".join(parts)
        notes.append(note)
    return notes


def _mean(values: SequenceOf[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def simulate_dict(results: list[RunResult], inputs: dict[str, Any], sweep: list[RunResult] | None,
                  findings: list[Finding], skipped: int) -> dict[str, Any]:
    data: dict[str, Any] = {
        "tool": {"name": "advisor", "version": __version__},
        "input": inputs,
        "skipped": skipped,
        "runs": [run_dict(r) for r in results],
        "explanations": explain(results),
        "findings": [f.to_dict() for f in findings],
    }
    if sweep is not None:
        data["sweep"] = [
            {"policy": r.spec.policy, "eviction": r.spec.eviction, "capacity_tokens": r.spec.capacity,
             "hit_rate": round(r.totals.hit_rate, 6), "cached_tokens": r.totals.cached_tokens,
             "evicted_tokens": r.evicted_tokens}
            for r in sweep
        ]
    return data


def to_json(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, sort_keys=False) + "\n"


def _cap(value: int | None) -> str:
    return "unlimited" if value is None else f"{value:,}"


def _table(data: dict[str, Any]) -> Table:
    serve_mode = any("serve" in r for r in data["runs"])
    head = ["policy", "eviction", "engine", "capacity", "hit rate", "prefill tokens", "evicted"]
    if serve_mode:
        head += ["TTFT p50 s", "TTFT p90 s", "queue mean s", "tok/s"]
    t = Table(columns(*head))
    for r in data["runs"]:
        label = r["policy"] + (" (budget)" if r.get("tenant_budget") else "")
        row = [label, r["eviction"], r["engine"], _cap(r["capacity_tokens"]), f"{r['hit_rate']:.2%}",
               f"{r['prefill_tokens']:,}", f"{r['evicted_tokens']:,}"]
        if serve_mode:
            s = r.get("serve", {})
            row += [f"{s.get('ttft_p50_s', 0):.3f}", f"{s.get('ttft_p90_s', 0):.3f}",
                    f"{s.get('queue_delay_mean_s', 0):.3f}", f"{s.get('throughput_tokens_s', 0):,.0f}"]
        t.add(*row)
    return t


def _extra_sections(data: dict[str, Any]) -> list[tuple[str, Table]]:
    out: list[tuple[str, Table]] = []
    tenants = [(r, r["per_tenant"]) for r in data["runs"] if r["per_tenant"]]
    if tenants:
        t = Table(columns("policy", "eviction", "budget", "tenant", "requests", "hit rate"))
        for r, per in tenants:
            for name, v in per.items():
                t.add(r["policy"], r["eviction"], "yes" if r.get("tenant_budget") else "shared",
                      name, f"{v['requests']:,}", f"{v['hit_rate']:.2%}")
        out.append(("Tenants", t))
    reps = [r for r in data["runs"] if r.get("per_replica")]
    if reps:
        t = Table(columns("policy", "eviction", "budget", "router", "replica", "requests", "hit rate"))
        for r in reps:
            for p in r["per_replica"]:
                t.add(r["policy"], r["eviction"], "yes" if r.get("tenant_budget") else "shared", r["router"],
                      str(p["replica"]), f"{p['requests']:,}", f"{p['hit_rate']:.2%}")
        out.append(("Replicas", t))
    if data.get("sweep"):
        caps = []
        for p in data["sweep"]:
            if p["capacity_tokens"] not in caps:
                caps.append(p["capacity_tokens"])
        series: dict[str, dict] = {}
        for p in data["sweep"]:
            label = "optimal bound" if p["eviction"] == "optimal" else f"{p['policy']}/{p['eviction']}"
            series.setdefault(label, {})[p["capacity_tokens"]] = p["hit_rate"]
        t = Table(columns("capacity", *series))
        for c in caps:
            t.add(_cap(c), *(f"{series[k].get(c, 0):.2%}" for k in series))
        out.append(("Capacity sweep (hit rate)", t))
    return out


def to_text(data: dict[str, Any]) -> str:
    lines = to_plain(_table(data))
    for title, table in _extra_sections(data):
        lines += ["", title, *to_plain(table)]
    if data["explanations"]:
        lines += ["", "Why the policies differ"] + [f"- {n['text']}" for n in data["explanations"]]
    for f in data["findings"]:
        lines += ["", f"{f['code']} {f['rule']}: {f['message']}"]
    return "\n".join(lines) + "\n"


def to_markdown(data: dict[str, Any]) -> str:
    lines = ["# advisor simulate", "", *md_table(_table(data), compact=True)]
    for title, table in _extra_sections(data):
        lines += ["", f"## {title}", "", *md_table(table, compact=True)]
    if data["explanations"]:
        lines += ["", "## Why the policies differ", ""] + [f"- {n['text']}" for n in data["explanations"]]
    if data["findings"]:
        lines += ["", "## Findings", ""] + [f"- **{f['code']} {f['rule']}**: {f['message']}" for f in data["findings"]]
    return "\n".join(lines) + "\n"
