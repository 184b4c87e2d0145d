"""The decision, the deployment it is for, its reasons and refusals, and the inputs."""

from __future__ import annotations

from typing import Any

from advisor.report.sections.format import Block, pct


def _condition(data: dict[str, Any]) -> str:
    """A decision taken on the traffic after the measured fix says so, with today's."""
    if data.get("basis") != "after-fix":
        return ""
    n = len(data["conditional_on"])
    figures = (f"measured hit rate {pct(data['hit_rate_decided'])} after {'them' if n > 1 else 'it'}, "
               f"{pct(data['traffic']['hit_rate'])} today")
    if (data["decision_today"], data["engine_today"]) == (data["decision"], data["engine"]):
        # The same call either way, on other figures: the change is still the advice.
        return (f", with or without the change{'s' if n > 1 else ''} below; make "
                f"{'them' if n > 1 else 'it'} anyway: {figures}")
    return (f", on condition that the change{'s' if n > 1 else ''} below {'are' if n > 1 else 'is'} "
            f"made: {figures} (today's decision: {data['decision_today'].upper()}, engine {data['engine_today']})")


def render(data: dict[str, Any], picture: str | None) -> list[Block]:
    inp = data["input"]
    tp = inp.get("tp", 1)
    source = inp.get("tp_source")
    out: list[Block] = [
        "# SGLang radix-cache and scheduler advisory",
        "",
        f"**Decision: {data['decision'].upper()}** (engine: {data['engine']}){_condition(data)}. "
        f"Model {inp['model']} on {tp} × {inp['gpu']} (TP {tp}"
        f"{', ' + source if source and source != 'given' else ''}), "
        f"{inp.get('weight_dtype', 'bf16')} weights, {inp.get('kv_dtype', 'bf16')} KV; "
        f"tokenizer `{inp['tokenizer']}`, page size {inp['page_size']}.",
        "",
    ]
    out += [f"- {reason}" for reason in data["reasons"]]
    if data["refusals"]:
        out += ["", "**Refusals and conditions**", ""]
        out += [f"- {refusal}" for refusal in data["refusals"]]
    thr = inp["thresholds"]
    out += ["", f"Inputs: templates {', '.join('`' + t + '`' for t in inp['templates']) or 'none'}; "
                f"traffic {', '.join('`' + t + '`' for t in inp['traffic']) or 'none'}. "
                f"Thresholds: go above {thr['go_above']:.0%}, no-go below {thr['no_go_below']:.0%}. "
                "Every figure below is measured on this traffic, simulated on it, or derived from the model "
                "and GPU catalog; none is a published rule of thumb."]
    return out
