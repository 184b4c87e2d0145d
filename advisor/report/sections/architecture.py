"""Model architecture: the model's cache granularity per engine and what it costs (only for
models whose layers are not all full attention)."""

from __future__ import annotations

from typing import Any

from advisor.report.sections.format import Block
from advisor.report.table import Table, columns

TITLE = "Model architecture"


def render(data: dict[str, Any], picture: str | None) -> list[Block]:
    arch = data.get("architecture")
    if not arch:
        return []
    t = Table(columns("engine", "rule", "granularity", "hit rate>", "full attention>", "tokens lost>"))
    for engine, e in sorted(arch["engines"].items()):
        t.add(engine, e["rule"], e["granularity"], f"{e['hit_rate']:.1%}", f"{e['full_attention_hit_rate']:.1%}",
              f"{e['tokens_lost']:,}")
    lines: list[Block] = [f"`{data['input']['model']}` is not full attention on every layer: an engine resumes "
                          "only where it kept a window or a state, so its hits are measured under its own rules "
                          "(unlimited cache, arrival order) beside what full attention would give.", "", t, ""]
    lines += [f"- {a}" for a in arch["advice"]]
    return lines
