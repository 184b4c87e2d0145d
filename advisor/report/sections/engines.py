"""4. SGLang against vLLM against no caching: the comparison the decision rests on."""

from __future__ import annotations

from typing import Any

from advisor.advise.decide import comparison_text
from advisor.report.sections.format import Block, pct
from advisor.report.table import Column, Table

TITLE = "SGLang against vLLM against no caching"


def setups_table(cmp: dict[str, Any]) -> Table:
    heads = ("pool (tokens)", "hit rate", "prefill tokens", "throughput (tokens/s)", "hit rate, saturated",
             "TTFT p50 (s)", "TTFT p90 (s)", "speedup", "decode share")
    t = Table([Column(""), *(Column(h, "right") for h in heads)])
    for row in cmp["setups"].values():
        t.add(row["label"], f"{row['pool_tokens']:,}", pct(row["hit_rate"]), f"{row['prefill_tokens']:,}",
              f"{row['throughput_tokens_s']:,.0f}", pct(row.get("batch_hit_rate", row["hit_rate"])),
              f"{row['ttft_p50_s']:.3f}", f"{row['ttft_p90_s']:.3f}",
              f"{row['speedup']:.2f}×", f"{row['decode_share']:.0%}")
    return t


def render(data: dict[str, Any], picture: str | None) -> list[Block]:
    sim = data.get("simulation")
    cmp = sim.get("engines") if sim else None
    if cmp is None:
        return ["Not simulated: no traffic."]
    assumed = (sim or {}).get("assumptions")
    out: list[Block] = [
        f"Each engine with its own hit rules, eviction and pool on the deployment above (serve mode). Hit rate, "
        f"prefill tokens and TTFT: {arrivals_phrase(cmp, assumed)}. Throughput: the same requests arriving at "
        "once (the engine saturated), with the hit rate that run gets beside it: requests prefilled in one "
        "batch cannot hit each other, and a conversation's next turn arrives before its last is answered, so a "
        "gap between the two hit rates is the saturated run's, not the traffic's; speedup = throughput over no "
        "caching's. Decode share: the share of the saturated engine time spent in decode steps, which a prefix "
        "cache cannot shorten.",
        "",
        setups_table(cmp),
        "",
    ]
    out += [f"- {line}" for line in comparison_text(cmp)]
    fix = data.get("after_fix") or {}
    fix_cmp = (fix.get("simulation") or {}).get("engines")
    if fix_cmp is not None:
        out += ["", f"After the change ({fix['description']}; {fix['rewritten_requests']:,} requests rewritten, "
                    "each arriving when the request it replaces does), the same setups:", "", setups_table(fix_cmp), ""]
        out += [f"- {line}" for line in comparison_text(fix_cmp)]
    thr = data["input"]["thresholds"]
    if "sglang_throughput_gain" in thr:
        out.append(f"- The bar for a change of engine: SGLang must give {thr['sglang_throughput_gain']:.0%} more "
                   f"throughput, {thr['sglang_ttft_gain']:.0%} lower p90 TTFT or {thr['sglang_hit_points'] * 100:.0f} "
                   "more points of hit rate than vLLM (any one).")
    if assumed is not None:
        out += ["", "What these simulations assume:", ""]
        out += [f"- {line}" for line in assumption_lines(assumed)]
    return out


def arrivals_phrase(cmp: dict[str, Any], assumed: dict[str, Any] | None) -> str:
    """How the requests arrive, as the object of "Hit rate, prefill tokens and TTFT: ..."."""
    if assumed is None:  # facts from before the assumptions were recorded: their label
        return {"logged timestamps": "the requests at their logged arrival times",
                "all at once (no timestamps)": "every request arriving at once (no timestamps)"}.get(
                    cmp["arrivals"], cmp["arrivals"])
    if assumed["arrivals"] == "rate":
        return f"the requests arriving at {assumed['rate']:g} requests/s (Poisson, --rate)"
    if assumed["arrivals"] == "timestamps":
        return f"the requests at their {'generated' if 'planned' in assumed else 'logged'} arrival times"
    return "every request arriving at once, at time 0"


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def output_line(a: dict[str, Any]) -> str:
    """Where the output lengths come from, with the caveat each source carries."""
    src = a["output_length_sources"]
    n = a["requests"]
    default = a["default_output_len"]
    planned = a.get("planned")
    if planned is not None:  # `plan`: every generated request carries its drawn length
        given = ("--output-len" if planned["output_tokens_from"] == "--output-len"
                 else "the spec's output_tokens")
        return (f"Output tokens: {_yaml(planned['output_tokens'])} a request, from {given} "
                f"({a['mean_output_tokens']:,.1f} on average over {_plural(n, 'generated request')}).")
    if src["default"] == n:
        return (f"No output lengths in the logs: {_plural(default, 'output token')} assumed per request (the first "
                "comes from the prefill), so decode is all but absent and throughput and speedup are prefill-only; "
                "pass --output-len N with the typical answer length, or log max_tokens or usage completion tokens.")
    parts = []
    if src["logged"]:
        parts.append(f"{_plural(src['logged'], 'request')} as logged (output_length, usage completion tokens or "
                     "the engine's finish line)")
    if src["output_len"]:
        parts.append(f"{src['output_len']:,} from --output-len {a['output_len']:,}")
    if src["max_tokens"]:
        parts.append(f"{src['max_tokens']:,} from the request's max_tokens, as if each answer ran to its maximum")
    if src["default"]:
        parts.append(f"{src['default']:,} with none logged: {_plural(default, 'token')} each (pass --output-len)")
    line = f"Output tokens, {a['mean_output_tokens']:,.1f} a request on average: " + "; ".join(parts) + "."
    if a["output_len"] is not None and not src["output_len"]:
        line += (f" --output-len {a['output_len']:,} applied to none: each request had a logged count or a lower "
                 "max_tokens.")
    if src["max_tokens"]:
        line += (" A maximum is an upper bound: answers that stop earlier decode less, so the decode share above "
                 "is an upper bound and the speedups are lower bounds.")
    return line


def _yaml(length: Any) -> str:
    """A spec's length as written: fixed, uniform between two bounds, or normal."""
    if isinstance(length, dict) and "min" in length:
        return f"{length['min']:,} to {length['max']:,}"
    if isinstance(length, dict):
        return f"mean {length['mean']:,} (sd {length['sd']:,})"
    return f"{length:,}"


def arrivals_line(a: dict[str, Any]) -> str:
    """How the requests arrive, and what an arrival all at once does to the figures."""
    n, stamped = a["requests"], a["timestamped_requests"]
    planned = a.get("planned")
    if planned is not None and a["arrivals"] == "timestamps":
        given = "--rate" if planned["rate_from"] == "--rate" else "the spec's arrival.rate"
        return f"Arrivals: Poisson at {planned['rate']:g} requests/s, the times generated from {given}."
    if planned is not None and a["arrivals"] == "at_once":
        return ("Arrivals: every request at time 0, as the spec sets arrival.timestamps: false (an offline batch); "
                "the capacity figures replay the requests one at a time. Pass --rate R for Poisson arrivals at R "
                "requests/s.")
    if a["arrivals"] == "timestamps":
        return f"Arrivals: the logged timestamps of all {_plural(n, 'request')}."
    if a["arrivals"] == "rate":
        logged = "in place of the logged timestamps" if stamped else "the logs have no timestamps"
        return f"Arrivals: Poisson at {a['rate']:g} requests/s (--rate, seeded), {logged}."
    why = "the logs have no timestamps" if not stamped else f"only {stamped:,} of {n:,} requests have a timestamp"
    return (f"Arrivals: every request at time 0, as {why}: TTFT is the wait behind the whole batch, not a latency "
            "at the logged load, and the capacity figures replay the requests one at a time. Pass --rate R for "
            "Poisson arrivals at R requests/s.")


def assumption_lines(a: dict[str, Any]) -> list[str]:
    """The simulation's assumptions (``simulation.assumptions``), one sentence each."""
    return [
        output_line(a),
        arrivals_line(a),
        f"Serving: at most {a['max_running']:,} running requests and {a['max_prefill_tokens']:,} prefill tokens "
        "per step (simulate's --max-running and --max-prefill-tokens defaults, the latter SGLang's); a request's "
        "output tokens are reserved in the pool when it is admitted and are not cached after it.",
    ]
