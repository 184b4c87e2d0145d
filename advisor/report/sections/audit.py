"""2. Ordering audit: the templates' lint findings, the traffic's findings, the measured
prescription and where the uncached tokens go."""

from __future__ import annotations

from typing import Any

from advisor.report.sections.format import Block, pct
from advisor.report.table import Table, columns

TITLE = "Ordering audit"


def lint_table(lint: list[dict[str, Any]]) -> Table:
    t = Table(columns("template", "line>", "code", "severity", "finding"))
    for f in lint:
        t.add(f"`{f['path']}`", str(f["line"]), f"{f['code']} {f['rule']}", f["severity"], f["message"])
    return t


def findings_table(findings: list[dict[str, Any]]) -> Table:
    t = Table(columns("traffic finding", "kind", "offset (tokens)>", "requests>", "tokens lost (estimate)>", "example"))
    for f in findings:
        offset = "" if f.get("token_offset") is None else f"{f['token_offset']:,}"
        t.add(f"{f['code']} {f['rule']}", f["kind"], offset, f"{f['requests']:,}", f"{f['tokens_lost']:,}",
              str(f["example"])[:60])
    return t


def actions_table(actions: list[dict[str, Any]]) -> Table:
    t = Table(columns("prescription", "hit rate after (measured)>", "tokens gained>"))
    for a in actions:
        t.add(a["description"], pct(a["hit_rate_after"]), f"{a['tokens_gained']:,}")
    return t


def after_sentence(data: dict[str, Any]) -> str:
    """The prescription's hit rate after, on the same basis as the headline's (what the
    engine serves, unlimited capacity), with the longest-common-prefix figures the action
    rows are measured in; and which fix the decision stands on when another measured higher."""
    traffic = data["traffic"]
    fix = data.get("after_fix") or {}
    measured = {c["name"]: c for c in fix.get("candidates", ())}
    presc = measured.get("prescription")
    lcp = (f"longest common prefix {pct(traffic['hit_rate_after_prescription'])} against "
           f"{pct(traffic['lcp_hit_rate'])}")
    if presc is None:
        line = f"Hit rate after the prescription: {lcp} (it rewrote no request)."
    else:
        line = (f"Hit rate after the prescription: **{pct(presc['hit_rate'])}** against {pct(traffic['hit_rate'])} "
                f"today (what the engine serves, unlimited capacity; {lcp}).")
    if fix and fix["basis"] != "prescription":
        line += (f" {fix['description'][:1].upper() + fix['description'][1:]} measured higher, "
                 f"**{pct(fix['hit_rate'])}**: the decision stands on it.")
    if data["input"]["templates"]:
        return line + " Run `advisor prescribe --templates DIR --format diff` for the template changes."
    return line + (" `advisor prescribe` on this traffic shows each request before and after; with the prompt "
                   "templates (`--templates DIR --format diff`) it writes the template changes.")


def reasoning_sentence(history: dict[str, Any]) -> str:
    """What the chat template's handling of earlier reasoning costs each new turn
    (``advisor.advise.reasoning``)."""
    turns, dropped = history["turns"], history["dropped"]
    if not dropped:
        return (f"The chat template renders the reasoning of earlier assistant turns back ({turns:,} turns): "
                "each new request extends the sequence the cache held.")
    counted = f"{dropped:,} turns" if dropped == turns else f"{dropped:,} of {turns:,} turns"
    return (f"The chat template drops the reasoning of earlier assistant turns: each new turn re-prefills "
            f"{history['per_turn']:,.0f} tokens on average ({counted}, {pct(history['share_of_prompt_tokens'])} "
            "of prompt tokens) that the cache held; PC402 names the template construct.")


def render(data: dict[str, Any], picture: str | None) -> list[Block]:
    out: list[Block] = []
    if data["input"]["templates"]:
        if data["lint"]:
            out.append(lint_table(data["lint"]))
        else:
            out.append("The templates have no cache-breaking pattern (`advisor lint`).")
        out.append("")
    traffic = data.get("traffic")
    if traffic is None:
        return out
    if traffic["findings"]:
        out.append(findings_table(traffic["findings"]))
    else:
        out.append("The traffic shows no dynamic content in shared prefixes and no unstable section order.")
    att = traffic["attribution"]
    out += ["", f"Uncached prompt tokens: {att['uncached_tokens']:,} — inherently unique {att['inherently_unique']:,}, "
                f"dynamic content {att['dynamic_content']:,}, section order {att['section_order']:,}"
                + (f", template layout {att['template_layout']:,}" if att.get("template_layout") else "")
                + f" ({'measured by rewriting the traffic' if att['measured'] else 'estimated'})."]
    if traffic["actions"]:
        out += ["", actions_table(traffic["actions"]), "", after_sentence(data)]
    if traffic.get("reasoning_history"):
        out += ["", reasoning_sentence(traffic["reasoning_history"])]
    return out
