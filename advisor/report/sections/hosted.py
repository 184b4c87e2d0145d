"""7. Hosted APIs: whether the hot prefix is long enough for each provider's prompt cache."""

from __future__ import annotations

from typing import Any

from advisor.report.sections.format import Block
from advisor.report.table import Table, columns

TITLE = "Hosted APIs"


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def providers(hosted: list[dict[str, Any]]) -> Table:
    after = any("qualifies_after_fix" in h for h in hosted)
    heads = ["provider", "minimum>", "qualifies today"] + (["after the change"] if after else []) + ["how"]
    t = Table(columns(*heads))
    for h in hosted:
        cells = [h["provider"], f"{h['minimum_tokens']:,}", _yes(h["qualifies"])]
        if after:
            cells.append(_yes(h.get("qualifies_after_fix", h["qualifies"])))
        t.add(*cells, h["how"])
    return t


def render(data: dict[str, Any], picture: str | None) -> list[Block]:
    traffic = data.get("traffic")
    tokens = traffic["shared_prefix_tokens"] if traffic else 0
    fix = data.get("after_fix")
    after = (f"; after the change {fix['shared_prefix_tokens']:,} tokens, shared by "
             f"{fix['shared_prefix_requests']:,} requests") if fix else ""
    return [f"Hot static prefix: {tokens:,} tokens today{after} (counted with `{data['input']['tokenizer']}`; "
            "providers' tokenizers differ by some percent). \"Qualifies\": the prefix most requests share is long "
            "enough for the provider's minimum. A conversation whose own history passes the minimum is cached "
            "either way; what each provider bills, both counted, is under What it costs.", "",
            providers(data["hosted"])]
