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
5. The same rules decide again on the traffic after the measured fix (prescribe's moves, or
   plan's recipe where it measured higher), with the engine comparison simulated on that
   rewritten traffic. When the fix raises the hit rate by more than ``AFTER_FIX_MARGIN``,
   that decision is the headline (the better of the two states: more of the traffic
   cached), conditional on the fix, with today's beside it.

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
# A fix must raise the hit rate by more than this to be decided on (below it, noise of the
# rewrite: a moved value re-tokenizes a few tokens differently).
AFTER_FIX_MARGIN = 0.02


def _x(value: float) -> str:
    # "×" rather than "x": a speedup here is always a simulated ratio, written as such.
    return f"{value:.2f}×"


def _seconds_pair(a: float, b: float) -> str:
    """Two times with as many decimals as it takes to tell them apart (up to 6)."""
    digits = next((d for d in range(3, 7) if f"{a:.{d}f}" != f"{b:.{d}f}"), 3)
    return f"{a:.{digits}f} s against {b:.{digits}f} s"


def comparison_text(cmp: dict[str, Any]) -> list[str]:
    """The speedups and what SGLang adds, as sentences (shared by reasons and the report)."""
    s = cmp["setups"]
    add = cmp["sglang_over_vllm"]
    share = cmp["decode_share_no_cache"]
    ttft = add["ttft_p90_gain"]
    ceiling = f"; no cache can exceed {_x(cmp['speedup_ceiling'])}" if cmp.get("speedup_ceiling") else ""
    lines = [
        f"Against no caching, saturated throughput is {_x(s['vllm']['speedup'])} with vLLM and "
        f"{_x(s['sglang']['speedup'])} with SGLang ({CACHE_AWARE}); decode is {share:.0%} of the no-caching "
        f"engine time, which prefix caching cannot remove{ceiling}.",
        f"SGLang over vLLM: {add['hit_rate_points'] * 100:+.1f} points of hit rate "
        f"({add['hit_rate_points_cache'] * 100:+.1f} from its cache rules and eviction, "
        f"{add['hit_rate_points_scheduler'] * 100:+.1f} from the cache-aware scheduler), "
        f"{add['throughput_gain']:+.1%} throughput, {abs(ttft):.1%} {'lower' if ttft >= 0 else 'higher'} p90 TTFT "
        f"({_seconds_pair(s['sglang']['ttft_p90_s'], s['vllm']['ttft_p90_s'])}).",
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


def hit_rule(hit_rate: float, t: Thresholds) -> str:
    """The decision the hit rate alone gives: go at ``go_above``, no-go below
    ``no_go_below``, trial between (the bands ``_on_today`` decides in)."""
    if hit_rate >= t.go_above:
        return "go"
    if hit_rate < t.no_go_below:
        return "no-go"
    return "trial"


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


def conditions(facts: dict[str, Any]) -> list[dict[str, Any]]:
    """What the after-fix decision is conditional on: the prescription's measured moves, or
    the alternative rewrite that measured higher (``plan``: the recipe's order)."""
    traffic, fix = facts["traffic"], facts.get("after_fix") or {}
    if fix.get("basis", "prescription") != "prescription":
        gained = round((fix["hit_rate"] - traffic["hit_rate"]) * traffic["prompt_tokens"])
        return [{"kind": fix["basis"], "code": "", "description": fix["description"],
                 "hit_rate_after": fix["hit_rate"], "tokens_gained": max(0, gained)}]
    return [{"kind": a["kind"], "code": a.get("code", ""), "description": a["description"],
             "hit_rate_after": a["hit_rate_after"], "tokens_gained": a["tokens_gained"]}
            for a in measured_moves(traffic)]


def decide(facts: dict[str, Any], t: Thresholds, page_size: int = 1, controlled: bool = True) -> dict[str, Any]:
    """go / no-go / trial, with the reasons and plain refusals.

    One rule set (``_on_today``) decides twice: on the traffic as logged, with its engine
    comparison, and on the traffic after the measured fix (``facts["after_fix"]``), with the
    engine comparison simulated on that rewritten traffic. When the fix raises the hit rate
    by more than ``AFTER_FIX_MARGIN``, the after-fix decision is the headline, conditional on
    the fix (``basis`` "after-fix", the moves in ``conditional_on``), with today's decision
    and reasons beside it (``decision_today``). Otherwise the headline is today's."""
    traffic = facts.get("traffic")
    if traffic is None:
        return {"decision": "trial", "engine": "sglang", "basis": "none", "refusals": [],
                "reasons": ["No traffic was measured: templates alone cannot show how often prefixes repeat. "
                            "Collect a day of request logs (messages or prompts, with timestamps and tenant) "
                            "and run the report again."]}
    hit = traffic["hit_rate"]
    single_shot = any(f["code"] == "TR301" for f in traffic["findings"])
    sim = facts.get("simulation")
    cmp = sim.get("engines") if sim else None
    decision, engine, reasons, refusals = _on_today(hit, single_shot, cmp, t, page_size)
    out: dict[str, Any] = {"decision": decision, "engine": engine, "basis": "today",
                           "decision_today": decision, "engine_today": engine, "hit_rate_decided": hit}
    fix = facts.get("after_fix")
    moves = conditions(facts) if fix and not single_shot else []
    basis_sim = sim
    if fix and moves and fix["hit_rate"] > hit + AFTER_FIX_MARGIN:
        after = fix["hit_rate"]
        fix_sim = fix.get("simulation")
        fixed, fixed_engine, fixed_reasons, _ = _on_today(after, False, fix_sim.get("engines") if fix_sim else None,
                                                          t, page_size)
        out.update({"decision_after_fix": fixed, "engine_after_fix": fixed_engine})
        named = "; ".join(_move_text(a) for a in moves)
        out.update({"decision": fixed, "engine": fixed_engine, "basis": "after-fix", "hit_rate_decided": after,
                    "conditional_on": moves})
        basis_sim = fix_sim or sim
        same = (fixed, fixed_engine) == (decision, engine)
        plural = len(moves) > 1
        if same:
            head = [f"{fixed.upper()} with or without the change{'s' if plural else ''}: {named}. Measured on this "
                    f"traffic rewritten that way, the hit rate is {after:.1%} against {hit:.1%} today; the "
                    f"decision rests on other figures each way (below): first the rewritten traffic's, "
                    "simulated as today's is, then today's."]
        else:
            head = [f"{fixed.upper()} on condition that the change{'s are' if plural else ' is'} made: {named}. "
                    f"Measured on this traffic rewritten that way, the hit rate is {after:.1%} against {hit:.1%} "
                    f"today; that is what turns today's {decision.upper()} (engine: {engine}) into "
                    f"{fixed.upper()} (engine: {fixed_engine}). The reasons below are first the rewritten "
                    "traffic's, simulated as today's is, then today's."]
        reasons = head + fixed_reasons + [f"Today, without the change{'s' if plural else ''}: {decision.upper()} "
                                          f"(engine: {engine})."] \
            + reasons
        if not controlled:
            refusals.append("The prompts come from templates this team does not control: the fixes above cannot "
                            "be made at the source. Normalize prompts at a proxy first (move per-request values "
                            "to the end, sort tool lists), then measure again.")
    if basis_sim:
        fcfs = basis_sim["at_pool"]["fcfs"]["hit_rate"]
        lpm = basis_sim["at_pool"][CACHE_AWARE]["hit_rate"]
        which = "the rewritten traffic" if out["basis"] == "after-fix" else "this traffic"
        reasons.append(f"At the {facts['cost']['kv_pool_tokens']:,}-token SGLang pool of {facts['cost']['tp']} × "
                       f"{facts['cost']['gpu']}, the simulated hit rate of {which} is {fcfs:.1%} with FCFS and "
                       f"{lpm:.1%} with {CACHE_AWARE}; an eviction that knew the future would keep "
                       f"{basis_sim['optimal_at_pool']:.1%} in arrival order "
                       f"(unlimited: {basis_sim['unlimited_hit_rate']:.1%}).")
        for f in basis_sim["starvation"]:
            refusals.append(f"Tenant {f['tenant']} starves in the shared pool ({f['shared_hit_rate']:.1%} cached "
                            f"against {f['isolated_hit_rate']:.1%} with an equal budget): give tenants budgets "
                            "or separate replicas before sharing one pool.")
    out.update({"reasons": reasons, "refusals": refusals})
    return out
