"""`advisor prescribe` output: DESIGN.md's prescribe JSON, a rich text report, markdown, diffs.

The loss waterfall (``waterfall``) and the findings table are shared with the analyze report,
so the report issue can reuse the pieces as they are.
"""

from __future__ import annotations

import json
from typing import Any, Sequence

from rich.console import Console

from advisor import __version__
from advisor.prescribe.actions import Prescription
from advisor.report.table import Table, columns, to_markdown as to_markdown_table, to_rich

BAR = 40


def _rate(value: float) -> float:
    return round(value, 6)


def prescription_dict(p: Prescription, files: Sequence[str], tokenizer: str) -> dict[str, Any]:
    return {
        "tool": {"name": "advisor", "version": __version__},
        "input": {"files": list(files), "tokenizer": tokenizer, "page_size": p.page_size,
                  "capacity_tokens": p.capacity},
        "requests": p.requests,
        "prompt_tokens": p.prompt_tokens,
        "cached_tokens_before": p.cached_before,
        "cached_tokens_after": p.cached_after,
        "hit_rate_before": _rate(p.hit_rate_before),
        "hit_rate_after": _rate(p.hit_rate_after),
        "actions": [a.to_dict() for a in p.actions],
        "section_order": list(p.section_order),
        "findings": [f.to_dict() for f in p.findings],
        "loss_attribution": p.attribution.to_dict(),
        "not_rewritable_requests": p.not_rewritable,
        "template_diffs": [{"path": d.path, "code": d.code, "finding": d.finding, "note": d.note, "diff": d.diff}
                           for d in p.diffs],
    }


def to_json(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def to_diff(data: dict[str, Any]) -> str:
    """The template diffs, one after the other, each headed by a comment line (what git
    apply and patch skip)."""
    parts = []
    for d in data["template_diffs"]:
        where = d["path"] or "(no template)"
        parts.append(f"# advisor {d['code']}: {where}: {d['note']}\n")
        if d["diff"]:
            parts.append(d["diff"] if d["diff"].endswith("\n") else d["diff"] + "\n")
    if not parts:
        parts.append("# advisor: no template changes (no findings, or no --templates folder)\n")
    return "".join(parts)


def waterfall(attr: dict[str, Any]) -> list[tuple[str, int, int]]:
    """Rows (label, tokens, tokens before the row) from the cached tokens up to all prompt
    tokens: what each cause costs, stacked."""
    rows = [("cached now", attr["cached_tokens"], 0)]
    at = attr["cached_tokens"]
    for label, key in (("+ dynamic content", "dynamic_content"), ("+ section order", "section_order"),
                       ("+ eviction", "eviction"), ("+ template layout", "template_layout"),
                       ("+ inherently unique", "inherently_unique")):
        value = attr.get(key)
        if value is None or (key == "template_layout" and not value):  # (a row only where the template costs)
            continue
        rows.append((label, value, at))
        at += value
    rows.append(("= prompt tokens", attr["prompt_tokens"], 0))
    return rows


def _bar(start: int, length: int, total: int) -> str:
    if total <= 0:
        return ""
    a = round(BAR * start / total)
    b = round(BAR * (start + length) / total)
    if length > 0 and b == a:
        b = a + 1
    return " " * a + "█" * (b - a)


def to_markdown(data: dict[str, Any]) -> str:
    lines = [
        "# Prefix-cache prescription",
        "",
        f"{data['requests']:,} requests, {data['prompt_tokens']:,} prompt tokens. Hit rate "
        f"**{data['hit_rate_before']:.2%}** now, **{data['hit_rate_after']:.2%}** after all the actions "
        "(measured by rewriting the traffic and analysing it again).",
        "",
    ]
    if data["findings"]:
        lines += findings_markdown(data["findings"]) + [""]
    if data["actions"]:
        lines += ["## Actions", "", *to_markdown_table(actions_table(data["actions"])), ""]
    lines += ["## Where the uncached tokens go", "", "```"]
    total = data["loss_attribution"]["prompt_tokens"]
    for label, tokens, start in waterfall(data["loss_attribution"]):
        lines.append(f"{label:<22} {tokens:>12,}  {_bar(start, tokens, total)}")
    lines += ["```", "", "## Canonical section order", ""]
    lines += [f"{i}. {s}" for i, s in enumerate(data["section_order"], 1)]
    if data["template_diffs"]:
        lines += ["", "## Template changes (not applied)", ""]
        for d in data["template_diffs"]:
            lines.append(f"- `{d['path'] or '(no template)'}` ({d['code']}): {d['note']}")
            if d["diff"]:
                lines += ["", "```diff", d["diff"].rstrip("\n"), "```", ""]
    return "\n".join(lines) + "\n"


def findings_markdown(findings: Sequence[dict[str, Any]]) -> list[str]:
    lines = ["## Findings", "", *to_markdown_table(findings_table(findings, example_chars=80))]
    lines.append("")
    lines += [f"- **{f['code']}** {f['message']}" for f in findings]
    for f in findings:
        if f["code"] == "TR201":
            lines += ["", f"Observed orders ({f['distinct_orders']:,} distinct; first 5):", ""]
            lines += [f"- {o['share']:.1%} ({o['requests']:,}): " + " > ".join(o["order"]) for o in f["orders"][:5]]
    return lines


def finding_lines(findings: Sequence[dict[str, Any]]) -> list[str]:
    """The findings' messages, with the observed orders of TR201, for the text report."""
    out = []
    for f in findings:
        out.append(f"{f['code']} {f['message']}")
        if f["code"] == "TR201":
            for o in f["orders"][:5]:
                out.append(f"    {o['share']:6.1%}  " + " > ".join(o["order"]))
            if f["distinct_orders"] > 5:
                out.append(f"    ... {f['distinct_orders'] - 5:,} more orders")
    return out


def findings_table(findings: Sequence[dict[str, Any]], example_chars: int = 60) -> Table:
    t = Table(columns("code", "rule", "token offset>", "kind", "requests>", "tokens lost>", "example"),
              title="Traffic findings")
    for f in findings:
        offset = "" if f.get("token_offset") is None else f"{f['token_offset']:,}"
        t.add(f["code"], f["rule"], offset, f["kind"], f"{f['requests']:,}", f"{f['tokens_lost']:,}",
              " ".join(str(f.get("example", "")).split())[:example_chars])
    return t


def waterfall_table(attr: dict[str, Any], title: str) -> Table:
    t = Table(columns("", "tokens>", "share>", ""), title=title)
    total = attr["prompt_tokens"]
    for label, tokens, start in waterfall(attr):
        share = tokens / total if total else 0.0
        t.add(label, f"{tokens:,}", f"{share:.1%}", _bar(start, tokens, total))
    return t


def actions_table(actions: Sequence[dict[str, Any]]) -> Table:
    t = Table(columns("action", "hit rate after>", "tokens gained>", "what to do"), title="Actions")
    for a in actions:
        t.add(a["kind"], f"{a['hit_rate_after']:.2%}", f"{a['tokens_gained']:,}", a["description"])
    return t


def summary_table(data: dict[str, Any]) -> Table:
    t = Table(columns("metric", "value>"), title="Prefix-cache prescription (measured on rewritten traffic)",
              show_header=False)
    t.add("files", ", ".join(data["input"]["files"]))
    t.add("requests", f"{data['requests']:,}")
    t.add("prompt tokens", f"{data['prompt_tokens']:,}")
    t.add("hit rate now", f"{data['hit_rate_before']:.2%}")
    t.add("hit rate after all actions", f"{data['hit_rate_after']:.2%}")
    if data["not_rewritable_requests"]:
        t.add("requests that cannot be rewritten (ids only)", f"{data['not_rewritable_requests']:,}")
    return t


def print_text(data: dict[str, Any], console: Console) -> None:
    console.print(to_rich(summary_table(data)))
    if data["findings"]:
        console.print(to_rich(findings_table(data["findings"])))
        for line in finding_lines(data["findings"]):
            console.print(line, highlight=False, markup=False)
    if data["actions"]:
        console.print(to_rich(actions_table(data["actions"])))
    console.print(to_rich(waterfall_table(data["loss_attribution"], "Where the uncached tokens go (waterfall)")))
    console.print("Canonical section order: " + " > ".join(data["section_order"]))
    for d in data["template_diffs"]:
        console.print(f"template {d['path'] or '(none)'}: {d['note']}" + (" (see --format diff)" if d["diff"] else ""))
