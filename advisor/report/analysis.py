"""`advisor analyze` output: the DESIGN.md JSON shape, a rich table, markdown."""

from __future__ import annotations

import json
from typing import Any, Sequence

from rich.console import Console
from rich.table import Table

from advisor import __version__
from advisor.index.analyze import Analysis, BranchInfo
from advisor.ingest.traffic import Skip


def _rate(value: float) -> float:
    # Rounded so that JSON output is stable across platforms and runs.
    return round(value, 6)


def analysis_dict(
    analysis: Analysis,
    files: Sequence[str],
    tokenizer: str,
    branches: Sequence[BranchInfo],
    skipped: Sequence[Skip],
    skipped_count: int,
    findings: Sequence[dict[str, Any]] = (),
) -> dict[str, Any]:
    pct = analysis.percentiles()
    return {
        "tool": {"name": "advisor", "version": __version__},
        "input": {"files": list(files), "tokenizer": tokenizer, "page_size": analysis.page_size},
        "requests": analysis.requests,
        "skipped": skipped_count,
        "prompt_tokens": analysis.prompt_tokens,
        "cached_tokens": analysis.cached_tokens,
        "prefill_tokens": analysis.prompt_tokens - analysis.cached_tokens,
        "hit_rate": _rate(analysis.hit_rate),
        "tree_tokens": analysis.tree_tokens,
        "hit_distribution": {k: _rate(v) for k, v in pct.items()},
        "branches": [
            {
                "prefix_tokens": b.prefix_tokens,
                "requests": b.requests,
                "tokens_saved": b.tokens_saved,
                "preview": b.preview,
                "ends_with": b.ends_with,
            }
            for b in branches
        ],
        "tenants": {
            name: {
                "requests": t.requests,
                "prompt_tokens": t.prompt_tokens,
                "cached_tokens": t.cached_tokens,
                "hit_rate": _rate(t.hit_rate),
            }
            for name, t in sorted(analysis.tenants.items())
        },
        "skipped_lines": [str(s) for s in skipped],
        "findings": list(findings),
    }


def to_json(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def to_markdown(data: dict[str, Any]) -> str:
    lines = [
        "# Prefix-cache analysis",
        "",
        f"Files: {', '.join('`' + f + '`' for f in data['input']['files'])}; "
        f"tokenizer `{data['input']['tokenizer']}`, page size {data['input']['page_size']}.",
        "",
        "| metric | value |",
        "| --- | ---: |",
        f"| requests | {data['requests']:,} |",
        f"| skipped lines | {data['skipped']:,} |",
        f"| prompt tokens | {data['prompt_tokens']:,} |",
        f"| cached tokens | {data['cached_tokens']:,} |",
        f"| hit rate | {data['hit_rate']:.2%} |",
        f"| tree tokens (distinct) | {data['tree_tokens']:,} |",
    ]
    dist = data["hit_distribution"]
    lines.append(f"| per-request hit p10 / p50 / p90 | {dist['p10']:.1%} / {dist['p50']:.1%} / {dist['p90']:.1%} |")
    if data["branches"]:
        lines += ["", "## Top shared branches", "", "| prefix tokens | requests | tokens saved | starts with |",
                  "| ---: | ---: | ---: | --- |"]
        for b in data["branches"]:
            preview = b["preview"].replace("|", "\\|")
            lines.append(f"| {b['prefix_tokens']:,} | {b['requests']:,} | {b['tokens_saved']:,} | {preview} |")
    if data["findings"]:
        from advisor.report.prescription import findings_markdown  # shared with prescribe
        lines += [""] + findings_markdown(data["findings"])
    if data["tenants"]:
        lines += ["", "## Tenants", "", "| tenant | requests | prompt tokens | hit rate |", "| --- | ---: | ---: | ---: |"]
        for name, t in data["tenants"].items():
            lines.append(f"| {name} | {t['requests']:,} | {t['prompt_tokens']:,} | {t['hit_rate']:.2%} |")
    if data.get("observed"):
        from advisor.verify.render import to_markdown as observed_markdown

        lines += ["", observed_markdown(data["observed"], "##").rstrip("\n")]
    return "\n".join(lines) + "\n"


def print_text(data: dict[str, Any], console: Console) -> None:
    summary = Table(title="Prefix-cache analysis (unlimited capacity, arrival order)", show_header=False)
    summary.add_column("metric")
    summary.add_column("value", justify="right")
    summary.add_row("files", ", ".join(data["input"]["files"]))
    summary.add_row("tokenizer / page size", f"{data['input']['tokenizer']} / {data['input']['page_size']}")
    summary.add_row("requests", f"{data['requests']:,}")
    summary.add_row("skipped lines", f"{data['skipped']:,}")
    summary.add_row("prompt tokens", f"{data['prompt_tokens']:,}")
    summary.add_row("cached tokens", f"{data['cached_tokens']:,}")
    summary.add_row("hit rate", f"{data['hit_rate']:.2%}")
    summary.add_row("tree tokens (distinct)", f"{data['tree_tokens']:,}")
    dist = data["hit_distribution"]
    summary.add_row("per-request hit p10/p50/p90", f"{dist['p10']:.1%} / {dist['p50']:.1%} / {dist['p90']:.1%}")
    console.print(summary)
    if data["branches"]:
        table = Table(title="Top shared branches")
        table.add_column("prefix tokens", justify="right")
        table.add_column("requests", justify="right")
        table.add_column("tokens saved", justify="right")
        table.add_column("starts with")
        table.add_column("diverges after")
        for b in data["branches"]:
            table.add_row(f"{b['prefix_tokens']:,}", f"{b['requests']:,}", f"{b['tokens_saved']:,}",
                          b["preview"], b["ends_with"])
        console.print(table)
    if data["findings"]:
        from advisor.report.prescription import finding_lines, findings_table, waterfall_table  # shared
        console.print(findings_table(data["findings"]))
        for line in finding_lines(data["findings"]):
            console.print(line, highlight=False, markup=False)
        if data.get("loss_attribution"):
            console.print(waterfall_table(data["loss_attribution"], "Where the uncached tokens go (estimate; "
                                          "`advisor prescribe` measures it)"))
    if data["tenants"]:
        table = Table(title="Tenants")
        table.add_column("tenant")
        table.add_column("requests", justify="right")
        table.add_column("prompt tokens", justify="right")
        table.add_column("hit rate", justify="right")
        for name, t in data["tenants"].items():
            table.add_row(name, f"{t['requests']:,}", f"{t['prompt_tokens']:,}", f"{t['hit_rate']:.2%}")
        console.print(table)
    if data.get("observed"):
        from advisor.verify.render import to_text as observed_text

        console.print(observed_text(data["observed"]), highlight=False, markup=False)
