"""The go / no-go / trial decision: a pure function of the facts ``build`` gathered.

The question is whether the team should adopt SGLang, against what it would otherwise run:
vLLM with automatic prefix caching (on by default). The rules, in order:

1. No traffic: trial (templates alone cannot show how often prefixes repeat).
2. Single-shot traffic (TR301) below the go threshold: no-go, vLLM.
3. Measured hit rate below ``no_go_below``: no-go, vLLM; between the thresholds: trial.
4. At or above ``go_above`` prefix caching pays; the engine comparison at the GPU's pools
   decides which engine: SGLang is a go when it beats vLLM by at least one of
   ``sglang_throughput_gain`` more throughput, ``sglang_ttft_gain`` lower p90 TTFT or
   ``sglang_hit_points`` more hit rate; otherwise vLLM's prefix caching already gets what the
   traffic offers, and the advice is no-go on SGLang (keep vLLM, prefix caching on).
   Without a comparison (no simulation) the hit rate alone gives go.

Every reason states the figures it rests on: the speedup of each engine over no caching with
the decode share of the work beside it, and what SGLang adds over vLLM.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Thresholds:
    go_above: float = 0.40
    no_go_below: float = 0.30
    # What SGLang must add over vLLM to be worth a change of engine (any one of them).
    sglang_throughput_gain: float = 0.05  # 5 % more tokens/s of engine time
    sglang_ttft_gain: float = 0.10  # 10 % lower p90 time to first token
    sglang_hit_points: float = 0.03  # 3 points more of prompt tokens from cache


CACHE_AWARE = "lpm"


def _x(value: float) -> str:
    # "×" rather than "x": a speedup here is always a simulated ratio, written as such.
    return f"{value:.2f}×"


def comparison_text(cmp: dict[str, Any]) -> list[str]:
    """The speedups and what SGLang adds, as sentences (shared by reasons and the report)."""
    s = cmp["setups"]
    add = cmp["sglang_over_vllm"]
    share = cmp["decode_share_no_cache"]
    ceiling = f"; no cache can exceed {_x(cmp['speedup_ceiling'])}" if cmp.get("speedup_ceiling") else ""
    lines = [
        f"Against no caching, saturated throughput is {_x(s['vllm']['speedup'])} with vLLM and "
        f"{_x(s['sglang']['speedup'])} with SGLang ({CACHE_AWARE}); decode is {share:.0%} of the no-caching "
        f"engine time, which prefix caching cannot remove{ceiling}.",
        f"SGLang over vLLM: {add['hit_rate_points'] * 100:+.1f} points of hit rate "
        f"({add['hit_rate_points_cache'] * 100:+.1f} from its cache rules and eviction, "
        f"{add['hit_rate_points_scheduler'] * 100:+.1f} from the cache-aware scheduler), "
        f"{add['throughput_gain']:+.1%} throughput, {add['ttft_p90_gain']:+.1%} lower p90 TTFT "
        f"({s['sglang']['ttft_p90_s']:.3f} s against {s['vllm']['ttft_p90_s']:.3f} s).",
    ]
    return lines


def sglang_adds(cmp: dict[str, Any], t: Thresholds) -> list[str]:
    """Which of the three bars SGLang clears over vLLM (empty: none)."""
    add = cmp["sglang_over_vllm"]
    cleared = []
    if add["throughput_gain"] >= t.sglang_throughput_gain:
        cleared.append(f"{add['throughput_gain']:.1%} more throughput (bar {t.sglang_throughput_gain:.0%})")
    if add["ttft_p90_gain"] >= t.sglang_ttft_gain:
        cleared.append(f"{add['ttft_p90_gain']:.1%} lower p90 TTFT (bar {t.sglang_ttft_gain:.0%})")
    if add["hit_rate_points"] >= t.sglang_hit_points:
        cleared.append(f"{add['hit_rate_points'] * 100:.1f} more points of hit rate "
                       f"(bar {t.sglang_hit_points * 100:.0f})")
    return cleared


def _main_move(traffic: dict[str, Any]) -> str:
    """The measured action that gains the most, to name in the decision."""
    moves = [a for a in traffic.get("actions", ())
             if a["kind"] not in ("all", "none", "pin-system-prompt") and a["tokens_gained"] > 0]
    if not moves:
        return ""
    best = max(moves, key=lambda a: (a["tokens_gained"], a["description"]))
    return f"; the move that gets there: {best['description'].rstrip('.')}"


def decide(facts: dict[str, Any], t: Thresholds, page_size: int = 1, controlled: bool = True) -> dict[str, Any]:
    """go / no-go / trial, with the reasons and plain refusals."""
    reasons: list[str] = []
    refusals: list[str] = []
    traffic = facts.get("traffic")
    if traffic is None:
        reasons.append("No traffic was measured: templates alone cannot show how often prefixes repeat. "
                       "Collect a day of request logs (messages or prompts, with timestamps and tenant) "
                       "and run the report again.")
        return {"decision": "trial", "engine": "sglang", "reasons": reasons, "refusals": refusals}
    hit = traffic["hit_rate"]
    after = traffic["hit_rate_after_prescription"]
    single_shot = any(f["code"] == "TR301" for f in traffic["findings"])
    sim = facts.get("simulation")
    cmp = sim.get("engines") if sim else None
    engine = "sglang"
    if single_shot and hit < t.go_above:
        decision, engine = "no-go", "vllm"
        refusals.append(f"Single-shot traffic: {hit:.1%} of prompt tokens could ever come from a prefix cache. "
                        "A radix cache and a cache-aware scheduler buy nothing here; serve it with vLLM "
                        "(prefix caching on costs nearly nothing) and spend the effort elsewhere.")
    elif hit >= t.go_above:
        reasons.append(f"Measured hit rate {hit:.1%} (SGLang rules, page size {page_size}) is above the "
                       f"{t.go_above:.0%} go threshold: prefix caching pays on this traffic.")
        if cmp is None:
            decision = "go"
        else:
            cleared = sglang_adds(cmp, t)
            reasons.extend(comparison_text(cmp))
            if cleared:
                decision = "go"
                reasons.append("SGLang is worth the change of engine: " + "; ".join(cleared) + ".")
            else:
                decision, engine = "no-go", "vllm"
                reasons.append("vLLM's automatic prefix caching already gets what this traffic offers: SGLang "
                               "clears none of the bars for a change of engine "
                               f"({t.sglang_throughput_gain:.0%} throughput, {t.sglang_ttft_gain:.0%} p90 TTFT, "
                               f"{t.sglang_hit_points * 100:.0f} points of hit rate). Keep vLLM with prefix "
                               "caching on.")
    elif hit < t.no_go_below:
        decision, engine = "no-go", "vllm"
        reasons.append(f"Measured hit rate {hit:.1%} is below the {t.no_go_below:.0%} no-go threshold.")
    else:
        decision = "trial"
        reasons.append(f"Measured hit rate {hit:.1%} lies between the thresholds "
                       f"({t.no_go_below:.0%}-{t.go_above:.0%}): run both engines on a sample.")
        if cmp is not None:
            reasons.extend(comparison_text(cmp))
    if after > hit + 0.02 and not single_shot:
        verdict = "go" if after >= t.go_above else ("trial" if after >= t.no_go_below else "no-go")
        reasons.append(f"After the prescribed template changes the same traffic measures {after:.1%} "
                       f"(decision then: {verdict}){_main_move(traffic)}; rerun the engine comparison on traffic "
                       "collected after the change.")
        if not controlled:
            refusals.append("The prompts come from templates this team does not control: the fixes above cannot "
                            "be made at the source. Normalize prompts at a proxy first (move per-request values "
                            "to the end, sort tool lists), then measure again.")
    if sim:
        fcfs = sim["at_pool"]["fcfs"]["hit_rate"]
        lpm = sim["at_pool"][CACHE_AWARE]["hit_rate"]
        reasons.append(f"At the {facts['cost']['kv_pool_tokens']:,}-token SGLang pool of {facts['cost']['tp']} × "
                       f"{facts['cost']['gpu']}, the simulated hit rate is {fcfs:.1%} with FCFS and {lpm:.1%} with "
                       f"{CACHE_AWARE}; an eviction that knew the future would keep {sim['optimal_at_pool']:.1%} in arrival order "
                       f"(unlimited: {sim['unlimited_hit_rate']:.1%}).")
        for f in sim["starvation"]:
            refusals.append(f"Tenant {f['tenant']} starves in the shared pool ({f['shared_hit_rate']:.1%} cached "
                            f"against {f['isolated_hit_rate']:.1%} with an equal budget): give tenants budgets "
                            "or separate replicas before sharing one pool.")
    return {"decision": decision, "engine": engine, "reasons": reasons, "refusals": refusals}
