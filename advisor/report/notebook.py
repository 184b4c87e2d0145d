"""Small HTML summaries for notebooks: what a result's ``_repr_html_`` shows.

Each renderer is a pure function of the JSON data a command prints (``--format json``), so
the notebook shows the same figures as the JSON. The snippet is one table with inline
styles, nothing loaded from anywhere; every value from the traffic is escaped.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

Row = tuple[str, str]

_TABLE = "border-collapse:collapse;font-family:sans-serif;font-size:13px"
_CAPTION = "text-align:left;font-weight:bold;padding:4px 0"
_LABEL = "text-align:left;padding:2px 12px 2px 0;font-weight:normal"
_VALUE = "text-align:left;padding:2px 0;font-variant-numeric:tabular-nums"


def table_html(title: str, rows: Sequence[Row]) -> str:
    """A captioned two-column table (label, value), every text escaped."""
    out = [f'<table class="advisor-summary" style="{_TABLE}">', f'<caption style="{_CAPTION}">{escape(title)}</caption>']
    for label, value in rows:
        out.append(f'<tr><th style="{_LABEL}">{escape(label)}</th><td style="{_VALUE}">{escape(value)}</td></tr>')
    out.append("</table>")
    return "\n".join(out)


def _count(value: Any) -> str:
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else "-"


def _rate(value: Any) -> str:
    return f"{value:.1%}" if isinstance(value, (int, float)) and not isinstance(value, bool) else "-"


def _files(data: dict[str, Any], key: str = "files") -> str:
    files = data.get("input", {}).get(key) or []
    return ", ".join(str(f) for f in files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")


def _findings(findings: Sequence[dict[str, Any]]) -> Row:
    codes = sorted({str(f.get("code", "")) for f in findings})
    return ("findings", f"{len(findings)} ({', '.join(codes)})" if findings else "none")


def analysis_html(data: dict[str, Any]) -> str:
    """``advisor analyze``: requests, tokens, the hit rate, the findings."""
    rows = [
        ("requests", _count(data.get("requests"))),
        ("skipped", _count(data.get("skipped"))),
        ("prompt tokens", _count(data.get("prompt_tokens"))),
        ("cached tokens", _count(data.get("cached_tokens"))),
        ("hit rate", _rate(data.get("hit_rate"))),
        ("tree tokens", _count(data.get("tree_tokens"))),
        _findings(data.get("findings", [])),
    ]
    return table_html(f"advisor analyze: {_files(data)}", rows)


def prescription_html(data: dict[str, Any]) -> str:
    """``advisor prescribe``: the hit rate before and after, each measured action."""
    rows = [
        ("requests", _count(data.get("requests"))),
        ("prompt tokens", _count(data.get("prompt_tokens"))),
        ("hit rate before", _rate(data.get("hit_rate_before"))),
        ("hit rate after", _rate(data.get("hit_rate_after"))),
        _findings(data.get("findings", [])),
    ]
    for action in data.get("actions", []):
        rows.append((f"{action.get('kind', '')}: {action.get('description', '')}", _rate(action.get("hit_rate_after"))))
    return table_html(f"advisor prescribe: {_files(data)}", rows)


def simulation_html(data: dict[str, Any]) -> str:
    """``advisor simulate``: each run's hit rate at its capacity."""
    source = data.get("input", {}).get("workload") or _files(data)
    rows: list[Row] = [("requests", _count(data.get("input", {}).get("requests")))]
    for run in data.get("runs", []):
        cap = run.get("capacity_tokens")
        where = "unlimited" if cap is None else f"{cap:,} tokens"
        budget = ", tenant budget" if run.get("tenant_budget") else ""
        rows.append((f"{run.get('policy')} / {run.get('eviction')} at {where}{budget}", _rate(run.get("hit_rate"))))
    rows.append(_findings(data.get("findings", [])))
    return table_html(f"advisor simulate: {source}", rows)


def _bytes(value: Any) -> str:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return "-"
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if abs(value) >= scale:
            return f"{value / scale:,.2f} {unit}"
    return f"{int(value):,} B"


def cost_html(data: dict[str, Any]) -> str:
    """``advisor cost``: KV bytes, the pool, the prefix and the prefill a hit saves."""
    saved = data.get("prefill_seconds_saved_per_hit")
    rows = [
        ("KV bytes per token", _bytes(data.get("kv_bytes_per_token"))),
        ("KV pool", _bytes(data.get("kv_pool_bytes")) if data.get("weights_fit", True) else "none: weights do not fit"),
        ("KV pool tokens", _count(data.get("kv_pool_tokens"))),
        (f"prefix of {_count(data.get('prefix_tokens'))} tokens", _bytes(data.get("prefix_bytes"))),
        ("prefill time saved per hit", f"{saved * 1e3:,.1f} ms" if isinstance(saved, (int, float)) else "-"),
    ]
    tp = data.get("tp", 1)
    return table_html(f"advisor cost: {data.get('model')} on {data.get('gpu')}" + (f" x {tp}" if tp != 1 else ""), rows)


def advisory_html(data: dict[str, Any]) -> str:
    """``advisor report``: the decision, the engine, the hit rates and the reasons."""
    traffic = data.get("traffic") or {}
    rows = [
        ("decision", str(data.get("decision", "-"))),
        ("engine", str(data.get("engine", "-"))),
        ("requests", _count(traffic.get("requests"))),
        ("hit rate", _rate(data.get("hit_rate"))),
        ("hit rate after prescription", _rate(data.get("hit_rate_after_prescription"))),
    ]
    for i, reason in enumerate(data.get("reasons", []), 1):
        rows.append((f"reason {i}", str(reason)))
    source = _files(data, "traffic") or ", ".join(str(t) for t in data.get("input", {}).get("templates", []))
    return table_html(f"advisor report: {source}", rows)
