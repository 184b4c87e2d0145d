"""7. Hosted APIs: whether the hot prefix is long enough for each provider's prompt cache."""

from __future__ import annotations

from typing import Any

from advisor.report.sections.format import Block
from advisor.report.table import Table, columns

TITLE = "Hosted APIs"


def providers(hosted: list[dict[str, Any]]) -> Table:
    t = Table(columns("provider", "minimum>", "qualifies", "how"))
    for h in hosted:
        t.add(h["provider"], f"{h['minimum_tokens']:,}", "yes" if h["qualifies"] else "no", h["how"])
    return t


def render(data: dict[str, Any], picture: str | None) -> list[Block]:
    traffic = data.get("traffic")
    tokens = traffic["shared_prefix_tokens"] if traffic else 0
    return [f"Hot static prefix: {tokens:,} tokens (counted with `{data['input']['tokenizer']}`; providers' "
            "tokenizers differ by some percent).", "", providers(data["hosted"])]
