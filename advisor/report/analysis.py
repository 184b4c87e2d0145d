"""`advisor analyze` output: the DESIGN.md JSON shape, a rich table, markdown."""

from __future__ import annotations

import json
from typing import Any, Sequence

from rich.console import Console

from advisor import __version__
from advisor.index.analyze import Analysis, BranchInfo
from advisor.ingest.traffic import Skip
from advisor.report.table import Table, columns, to_markdown as to_markdown_table, to_rich


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
        **({"architecture": architecture_dict(analysis)} if analysis.geometry is not None else {}),
        **({"cache_keys": cache_keys_dict(analysis)} if analysis.key_cost_tokens is not None else {}),
    }


def cache_keys_dict(analysis: Analysis) -> dict[str, Any]:
    """What the requests' cache keys (salts, extra keys, LoRA adapters) cost on this traffic."""
    without = analysis.unsalted_cached_tokens or 0
    prompt = analysis.prompt_tokens
    return {
        "keyed_requests": analysis.keyed_requests,
        "namespaces": analysis.namespaces,
        "cached_tokens_without_keys": without,
        "hit_rate_without_keys": _rate(without / prompt if prompt else 0.0),
        "tokens_lost": without - analysis.cached_tokens,
    }


def architecture_dict(analysis: Analysis) -> dict[str, Any]:
    """The model's cache geometry and what it costs on this traffic against full attention."""
    geo = analysis.geometry
    assert geo is not None
    full = analysis.full_attention_cached_tokens
    prompt = analysis.prompt_tokens
    return {
        "engine": geo.engine,
        "rule": geo.rule,
        "block_tokens": geo.block,
        "checkpoint_grid_tokens": geo.checkpoint_grid,
        "groups": [{"kind": g.kind, "layers": g.layers, **({"window": g.window} if g.window else {})}
                   for g in geo.groups],
        "granularity": geo.granularity_note,
        "hit_rate": _rate(analysis.hit_rate),
        "full_attention_cached_tokens": full,
        "full_attention_hit_rate": _rate(full / prompt if prompt else 0.0),
        "tokens_lost": full - analysis.cached_tokens,
        "short_changed_requests": analysis.short_changed_requests,
    }


def to_json(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def summary_table(data: dict[str, Any], text: bool) -> Table:
    """The headline figures; the text report also names the inputs (markdown says them above)."""
    t = Table(columns("metric", "value>"))
    if text:
        t.title, t.show_header = "Prefix-cache analysis (unlimited capacity, arrival order)", False
        t.add("files", ", ".join(data["input"]["files"]))
        t.add("tokenizer / page size", f"{data['input']['tokenizer']} / {data['input']['page_size']}")
    t.add("requests", f"{data['requests']:,}")
    t.add("skipped lines", f"{data['skipped']:,}")
    t.add("prompt tokens", f"{data['prompt_tokens']:,}")
    t.add("cached tokens", f"{data['cached_tokens']:,}")
    t.add("hit rate", f"{data['hit_rate']:.2%}")
    t.add("tree tokens (distinct)", f"{data['tree_tokens']:,}")
    dist = data["hit_distribution"]
    t.add("per-request hit p10/p50/p90" if text else "per-request hit p10 / p50 / p90",
          f"{dist['p10']:.1%} / {dist['p50']:.1%} / {dist['p90']:.1%}")
    if "architecture" in data:
        arch = data["architecture"]
        t.add("full-attention hit rate (same engine)", f"{arch['full_attention_hit_rate']:.2%}")
        t.add("cache block / model", f"{arch['block_tokens']:,} tokens: {arch['granularity']}")
    if "cache_keys" in data:
        keys = data["cache_keys"]
        t.add("hit rate without cache keys", f"{keys['hit_rate_without_keys']:.2%} "
              f"({keys['keyed_requests']:,} requests keyed by a salt, extra key or LoRA adapter)")
    return t


def branches_table(data: dict[str, Any], ends_with: bool) -> Table:
    t = Table(columns("prefix tokens>", "requests>", "tokens saved>", "starts with",
                      *(["diverges after"] if ends_with else [])), title="Top shared branches")
    for b in data["branches"]:
        t.add(f"{b['prefix_tokens']:,}", f"{b['requests']:,}", f"{b['tokens_saved']:,}", b["preview"],
              *([b["ends_with"]] if ends_with else []))
    return t


def tenants_table(data: dict[str, Any]) -> Table:
    t = Table(columns("tenant", "requests>", "prompt tokens>", "hit rate>"), title="Tenants")
    for name, v in data["tenants"].items():
        t.add(name, f"{v['requests']:,}", f"{v['prompt_tokens']:,}", f"{v['hit_rate']:.2%}")
    return t


def to_markdown(data: dict[str, Any]) -> str:
    lines = [
        "# Prefix-cache analysis",
        "",
        f"Files: {', '.join('`' + f + '`' for f in data['input']['files'])}; "
        f"tokenizer `{data['input']['tokenizer']}`, page size {data['input']['page_size']}.",
        "",
        *to_markdown_table(summary_table(data, text=False)),
    ]
    if data["branches"]:
        lines += ["", "## Top shared branches", "", *to_markdown_table(branches_table(data, ends_with=False))]
    if data["findings"]:
        from advisor.report.prescription import findings_markdown  # shared with prescribe
        lines += [""] + findings_markdown(data["findings"])
    if data["tenants"]:
        lines += ["", "## Tenants", "", *to_markdown_table(tenants_table(data))]
    if data.get("observed"):
        from advisor.verify.render import to_markdown as observed_markdown

        lines += ["", observed_markdown(data["observed"], "##").rstrip("\n")]
    return "\n".join(lines) + "\n"


def print_text(data: dict[str, Any], console: Console) -> None:
    console.print(to_rich(summary_table(data, text=True)))
    if data["branches"]:
        console.print(to_rich(branches_table(data, ends_with=True)))
    if data["findings"]:
        from advisor.report.prescription import finding_lines, findings_table, waterfall_table  # shared
        console.print(to_rich(findings_table(data["findings"])))
        for line in finding_lines(data["findings"]):
            console.print(line, highlight=False, markup=False)
        if data.get("loss_attribution"):
            console.print(to_rich(waterfall_table(data["loss_attribution"], "Where the uncached tokens go (estimate; "
                                                  "`advisor prescribe` measures it)")))
    if data["tenants"]:
        console.print(to_rich(tenants_table(data)))
    if data.get("observed"):
        from advisor.verify.render import to_text as observed_text

        console.print(observed_text(data["observed"]), highlight=False, markup=False)
