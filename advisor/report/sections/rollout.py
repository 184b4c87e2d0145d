"""6. Rollout plan: the launch command, the shadow run, the metrics and the target."""

from __future__ import annotations

from typing import Any

from advisor.report.sections.format import Block, pct

TITLE = "Rollout plan"


def steps(data: dict[str, Any]) -> list[str]:
    """The numbered steps (the hierarchical-cache step only when the working set needs it)."""
    roll = data["rollout"]
    engine_name = "vLLM" if roll.get("engine") == "vllm" else "SGLang"
    out = [f"Shadow run: mirror a slice of production traffic to the {engine_name} deployment for a day; compare "
           "its cached-token counts with this report's figures."]
    if roll["hierarchical_cache"] or roll.get("cpu_offload"):
        out.append("Host memory behind the pool pays on this traffic (the host-memory tier under capacity): it "
                   "keeps evicted prefixes and loads them back faster than the GPU recomputes them; watch the "
                   "host hits (`sglang:cached_tokens_total{cache_source=\"host\"}` on SGLang).")
    out.append("Watch: " + ", ".join(f"`{m}`" for m in roll["metrics"]) + ".")
    if roll["target_hit_rate"] is not None:
        on = ("the traffic rewritten as the change says: the target once it is made"
              if roll.get("target_basis") == "after-fix" else "today's traffic")
        line = (f"Target hit rate: {pct(roll['target_hit_rate'])} "
                f"(simulated for this pool on {on}; investigate if production stays more than 5 points below).")
        if roll.get("hit_rate_after_fix_unlimited") is not None and roll.get("target_basis") != "after-fix":
            line += (f" After the template changes the traffic allows up to {pct(roll['hit_rate_after_fix_unlimited'])}"
                     " (unlimited capacity): rerun this report on traffic collected after the change.")
        out.append(line)
    return out


def render(data: dict[str, Any], picture: str | None) -> list[Block]:
    roll = data["rollout"]
    out: list[Block] = ["```", roll["command"], "```"]
    if data["engine"] == "vllm":
        out += ["", "If SGLang is trialled anyway, launch it with the same deployment:", "",
                "```", roll["sglang_command"], "```"]
    out.append("")
    out += [f"{i}. {step}" for i, step in enumerate(steps(data), 1)]
    return out
