"""1. Workload fingerprint: the traffic's size, hit rates and sharing, per file and tenant."""

from __future__ import annotations

from typing import Any

from advisor.report.sections.format import Block, pct
from advisor.report.table import Table, columns

TITLE = "Workload fingerprint"


def figures(traffic: dict[str, Any], page_size: int) -> Table:
    t = Table(columns("figure", "value>"))
    dist = traffic["hit_distribution"]
    t.add("requests", f"{traffic['requests']:,}")
    t.add("prompt tokens", f"{traffic['prompt_tokens']:,}")
    t.add("profile", traffic["profile"])
    t.add(f"measured hit rate (SGLang rules: L-1 cap, page {page_size})", pct(traffic["hit_rate"]))
    t.add("longest-common-prefix hit rate (no cap)", pct(traffic["lcp_hit_rate"]))
    t.add("requests reusing at least half their prompt", pct(traffic["repetition_rate"]))
    t.add("per-request hit p10 / p50 / p90", f"{pct(dist['p10'])} / {pct(dist['p50'])} / {pct(dist['p90'])}")
    t.add("hottest shared prefix",
          f"{traffic['shared_prefix_tokens']:,} tokens, {traffic['shared_prefix_requests']:,} requests")
    t.add("distinct tokens (unlimited cache)", f"{traffic['tree_tokens']:,}")
    return t


def files(traffic: dict[str, Any]) -> Table:
    t = Table(columns("traffic file", "requests>", "prompt tokens>", "hit rate>"))
    for f in traffic["files"]:
        t.add(f"`{f['file']}`", f"{f['requests']:,}", f"{f['prompt_tokens']:,}", pct(f["hit_rate"]))
    return t


def tenants(traffic: dict[str, Any]) -> Table:
    t = Table(columns("tenant", "requests>", "hit rate>"))
    for name, v in traffic["tenants"].items():
        t.add(name, f"{v['requests']:,}", pct(v["hit_rate"]))
    return t


def render(data: dict[str, Any], picture: str | None) -> list[Block]:
    traffic = data.get("traffic")
    if traffic is None:
        return ["No traffic given. Collect request logs (JSON Lines with `messages` or `prompt`, plus `timestamp` "
                "and `tenant`) from the deployment and rerun `advisor report` with `--traffic`."]
    out: list[Block] = [figures(traffic, data["input"]["page_size"])]
    if traffic["shared_prefix_preview"]:
        out += ["", f"The hottest prefix starts: “{traffic['shared_prefix_preview']}”"]
    if len(traffic["files"]) > 1:
        out += ["", files(traffic)]
    if traffic["tenants"]:
        out += ["", tenants(traffic)]
    return out
