"""Tenants that differ: each one's hit rate, decision and fix on its own requests
(``advisor.advise.tenants``); no section when no tenant differs."""

from __future__ import annotations

from typing import Any

from advisor.advise.tenants import MARGIN, MIN_REQUESTS, MIN_SHARE
from advisor.report.sections.format import Block, inline, pct
from advisor.report.table import Table, columns

TITLE = "Tenants that differ"


# The hit-rate rule's verdict in words: whether prefix caching pays for the tenant (the
# headline's GO / NO-GO is about SGLang, which only the whole traffic's comparison decides).
PAYS = {"go": "pays", "trial": "trial", "no-go": "does not pay"}
_VERB = {"go": "pays", "trial": "is a trial", "no-go": "does not pay"}


def tenants_table(rows: list[dict[str, Any]]) -> Table:
    t = Table(columns("tenant", "share of prompt tokens>", "requests>", "hit rate alone>", "other tenants>",
                      "prefix caching today", "hit rate after its fix>", "prefix caching after"))
    for r in rows:
        others = pct(r["others_hit_rate"])
        if r["prescribed"]:
            after, then = pct(r["hit_rate_after_prescription"]), PAYS[r["decision_after"]]
        else:
            after, then = "not prescribed", ""
        t.add(f"`{r['tenant']}`", pct(r["share"]), f"{r['requests']:,}", pct(r["hit_rate"]), others,
              PAYS[r["decision"]], after, then)
    return t


def _move(description: str) -> str:
    # The measured figures follow in the table; the description's own "Measured ..." tail
    # repeats them for the whole traffic's wording.
    return inline(description.split(" Measured ")[0].rstrip("."))


def fixes(rows: list[dict[str, Any]]) -> list[str]:
    """One line per prescribed tenant: its biggest measured moves, or why there is none."""
    out = []
    for r in rows:
        if not r["prescribed"]:
            continue
        name = f"`{r['tenant']}`"
        if r["actions"]:
            moves = "; then ".join(f"{_move(a['description'])} ({pct(a['hit_rate_after'])}, "
                                   f"{a['tokens_gained']:,} tokens)" for a in r["actions"])
            out.append(f"- {name}: {moves}.")
        elif r["findings"]:
            codes = ", ".join(sorted({f"{f['code']} {f['rule']}" for f in r["findings"]}))
            out.append(f"- {name}: no template change measured to raise its hit rate ({codes}).")
        else:
            out.append(f"- {name}: no finding in its requests; what it misses is content seen once.")
    return out


def render(data: dict[str, Any], picture: str | None) -> list[Block]:
    rows = data.get("tenants")
    if not rows:
        return []
    thr = data["input"]["thresholds"]
    out: list[Block] = [
        f"Each tenant measured on its own requests alone (unlimited cache, arrival order, SGLang's hit rules), "
        f"as a deployment of its own would see them. Listed: tenants with at least {MIN_SHARE:.0%} of the prompt "
        f"tokens and {MIN_REQUESTS} requests whose hit rate is {MARGIN * 100:.0f} points or more below the other "
        f"tenants', or on the other side of a threshold from the whole traffic's. Whether prefix caching pays is the "
        f"hit-rate rule alone (it pays at {thr['go_above']:.0%} or more, does not below {thr['no_go_below']:.0%}, "
        f"trial between; on the whole traffic's hit rate it {_VERB[rows[0]['decision_whole']]}), not which engine, "
        "which the whole traffic's comparison decides. After its "
        "fix: the tenant's requests diagnosed and rewritten by their own measured prescription.",
        "",
        tenants_table(rows),
    ]
    lines = fixes(rows)
    if lines:
        out += ["", *lines]
    prescribed = sum(1 for r in rows if r["prescribed"])
    if prescribed < len(rows):
        out += ["", f"Only the {prescribed} biggest are prescribed (the prescription replays a tenant's requests "
                    "once per candidate fix): run `advisor prescribe` on another tenant's records for its fix."]
    return out
