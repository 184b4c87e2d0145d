"""Observed against predicted as text and markdown (the JSON is the dict itself)."""

from __future__ import annotations

from typing import Any

from advisor.report.table import Table, columns, to_markdown as md_table, to_plain


def _summary(data: dict[str, Any]) -> Table:
    rows = [
        ["requests with an observed count", f"{data['requests']:,}"],
        ["requests without one", f"{data['requests_without_observation']:,}"],
        ["prompt tokens", f"{data['prompt_tokens']:,}"],
        ["observed cached tokens", f"{data['observed_cached_tokens']:,} ({data['observed_hit_rate']:.2%})"],
        ["predicted cached tokens", f"{data['predicted_cached_tokens']:,} ({data['predicted_hit_rate']:.2%})"],
        ["total error", f"{data['total_error_points']:+.2f} points"],
        ["mean absolute error per request", f"{data['mean_absolute_error_points']:.2f} points"],
        ["worst request", f"{data['worst_error_points']:.2f} points"],
        ["requests exactly right", f"{data['exact_requests']:,}"],
    ]
    if data.get("observed_over_prompt"):
        rows.append(["observed above the prompt length", f"{data['observed_over_prompt']:,} (another tokenizer?)"])
    if data.get("prompt_tokens_mismatched"):
        note = "(another tokenizer or chat template?)"
        rows.append(["reported prompt tokens differ", f"{data['prompt_tokens_mismatched']:,} {note}"])
    return _table(["", "value"], rows)


def _table(head: list[str], rows: list[list[str]]) -> Table:
    return Table(columns(*head), [list(r) for r in rows])


def _gap(data: dict[str, Any]) -> Table:
    gap = data["gap"]
    rows = [[p["part"], f"{p['tokens']:,}", f"{p['points']:+.2f}", p["description"]] for p in gap["parts"]]
    rows.append(["total (ideal - observed)", f"{gap['tokens']:,}", f"{gap['points']:+.2f}", ""])
    return _table(["part", "tokens", "points", "what"], rows)


def _worst(data: dict[str, Any]) -> Table:
    rows = [[r["where"], str(r["id"] or ""), f"{r['prompt_tokens']:,}", f"{r['observed']:,}", f"{r['predicted']:,}",
             f"{r['error_points']:+.2f}"] for r in data["most_different"]]
    return _table(["request", "id", "prompt", "observed", "predicted", "error (points)"], rows)


def sections(data: dict[str, Any]) -> list[tuple[str, Table]]:
    out = [("Observed against predicted", _summary(data))]
    if "gap" in data:
        out.append(("Where the gap goes", _gap(data)))
    if data["most_different"]:
        out.append(("Requests that differ most", _worst(data)))
    return out


def to_text(data: dict[str, Any]) -> str:
    lines: list[str] = []
    for title, table in sections(data):
        lines += ([""] if lines else []) + [title, *to_plain(table, rule=True, trim=True)]
    return "\n".join(lines) + "\n"


def to_markdown(data: dict[str, Any], level: str = "#") -> str:
    lines: list[str] = []
    for title, table in sections(data):
        lines += ([""] if lines else []) + [f"{level} {title}", "", *md_table(table)]
    return "\n".join(lines) + "\n"
