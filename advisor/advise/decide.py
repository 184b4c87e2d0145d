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
5. When prescribe's measured moves raise the hit rate and the rules above give another
   decision on the rewritten traffic's hit rate, that decision is the headline, conditional
   on the moves, with today's beside it. The engine comparison (simulated on today's traffic)
   only picks the engine there when today's hit rate already crosses the go threshold.

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


MOVE_KINDS_EXCLUDED = ("all", "none", "pin-system-prompt")  # not template moves


def measured_moves(traffic: dict[str, Any]) -> list[dict[str, Any]]:
    """The prescribed moves measured to gain tokens, the biggest first."""
    actions = [a for a in traffic.get("actions", ()) if a["kind"] not in MOVE_KINDS_EXCLUDED]
    moves = [a for a in actions if a["tokens_gained"] > 0]
    if not moves and any(a["kind"] == "all" and a["tokens_gained"] > 0 for a in traffic.get("actions", ())):
        # Moves that only gain together (each one's leave-one-out gain is 0, as when two findings
        # are halves of one misplaced block): every move kept in the measured combination.
        moves = [a for a in actions if "lowers the hit rate of the other fixes" not in a["description"]]
    return sorted(moves, key=lambda a: (a["tokens_gained"], a["description"]), reverse=True)


def _move_text(a: dict[str, Any]) -> str:
    return a["description"].split(" Measured ")[0].rstrip(".")


def _on_today(hit: float, single_shot: bool, cmp: dict[str, Any] | None, t: Thresholds,
              page_size: int) -> tuple[str, str, list[str], list[str]]:
    """The decision on the traffic as it is: (decision, engine, reasons, refusals)."""
    reasons: list[str] = []
    refusals: list[str] = []
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
                reasons.append(_KEEP_VLLM.format(t=t, hit_points=t.sglang_hit_points * 100))
    elif hit < t.no_go_below:
        decision, engine = "no-go", "vllm"
        reasons.append(f"Measured hit rate {hit:.1%} is below the {t.no_go_below:.0%} no-go threshold.")
    else:
        decision = "trial"
        reasons.append(f"Measured hit rate {hit:.1%} lies between the thresholds "
                       f"({t.no_go_below:.0%}-{t.go_above:.0%}): run both engines on a sample.")
        if cmp is not None:
            reasons.extend(comparison_text(cmp))
    return decision, engine, reasons, refusals


_KEEP_VLLM = ("vLLM's automatic prefix caching already gets what this traffic offers: SGLang "
              "clears none of the bars for a change of engine "
              "({t.sglang_throughput_gain:.0%} throughput, {t.sglang_ttft_gain:.0%} p90 TTFT, "
              "{hit_points:.0f} points of hit rate). Keep vLLM with prefix caching on.")


def _on_fixed(after: float, hit: float, cmp: dict[str, Any] | None, t: Thresholds) -> tuple[str, str, str]:
    """The decision on the traffic after the measured moves: (decision, engine, why the engine).

    The engine comparison was simulated on today's traffic. It speaks for the changed traffic
    only when today's traffic already crosses the go threshold (caching pays on both, and the
    moves add hits both engines' caches keep); below it, a comparison of two caches that
    find little to keep says nothing about which keeps more of the changed traffic, so the
    hit rate alone decides, as with no comparison at all."""
    if after < t.no_go_below:
        return "no-go", "vllm", ""
    if after < t.go_above:
        return "trial", "sglang", ""
    if cmp is None or hit < t.go_above:
        return "go", "sglang", "no engine comparison of the changed traffic yet"
    if sglang_adds(cmp, t):
        return "go", "sglang", "SGLang clears a bar over vLLM on today's traffic"
    return "no-go", "vllm", "on today's traffic vLLM's prefix caching already gets what SGLang gets"


def decide(facts: dict[str, Any], t: Thresholds, page_size: int = 1, controlled: bool = True) -> dict[str, Any]:
    """go / no-go / trial, with the reasons and plain refusals.

    The headline is decided on the hit rate measured after the prescribed moves when moves
    were measured to raise it and the decision there differs from today's: it is then
    conditional on those moves (``basis`` "after-fix", the moves in ``conditional_on``), and
    today's decision stays beside it (``decision_today``). Otherwise it is today's."""
    traffic = facts.get("traffic")
    if traffic is None:
        return {"decision": "trial", "engine": "sglang", "basis": "none", "refusals": [],
                "reasons": ["No traffic was measured: templates alone cannot show how often prefixes repeat. "
                            "Collect a day of request logs (messages or prompts, with timestamps and tenant) "
                            "and run the report again."]}
    hit = traffic["hit_rate"]
    after = traffic["hit_rate_after_prescription"]
    single_shot = any(f["code"] == "TR301" for f in traffic["findings"])
    sim = facts.get("simulation")
    cmp = sim.get("engines") if sim else None
    decision, engine, reasons, refusals = _on_today(hit, single_shot, cmp, t, page_size)
    out: dict[str, Any] = {"decision": decision, "engine": engine, "basis": "today",
                           "decision_today": decision, "engine_today": engine, "hit_rate_decided": hit}
    moves = measured_moves(traffic) if not single_shot else []
    if after > hit + 0.02 and moves:
        fixed, fixed_engine, why = _on_fixed(after, hit, cmp, t)
        named = "; ".join(_move_text(a) for a in moves)
        if fixed != decision:
            out.update({"decision": fixed, "engine": fixed_engine, "basis": "after-fix", "hit_rate_decided": after,
                        "conditional_on": [{"kind": a["kind"], "code": a.get("code", ""), "description": a["description"],
                                            "hit_rate_after": a["hit_rate_after"],
                                            "tokens_gained": a["tokens_gained"]} for a in moves]})
            head = [f"{fixed.upper()} on condition that the prescribed change{'s are' if len(moves) > 1 else ' is'} "
                    f"made: {named}. Measured on this traffic rewritten that way, the hit rate is {after:.1%} "
                    f"against {hit:.1%} today; that is what turns today's {decision.upper()} into "
                    f"{fixed.upper()}" + (f" ({why})." if why and not why.startswith("no engine") else ".")]
            if why.startswith("no engine comparison"):
                head.append("The engine comparison below was simulated on today's traffic, where prefix caching "
                            "does not pay yet: rerun this report on traffic collected after the change before "
                            "choosing the engine.")
            reasons = head + [f"Today, without the change: {decision.upper()} (engine: {engine})."] + reasons
        else:
            reasons.append(f"After the prescribed template changes the same traffic measures {after:.1%} "
                           f"(decision then: {fixed}{'; ' + why if why and fixed == 'no-go' else ''}); "
                           f"the move that gets there: {_move_text(moves[0])}; rerun the engine comparison "
                           "on traffic collected after the change.")
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
    out.update({"reasons": reasons, "refusals": refusals})
    return out
