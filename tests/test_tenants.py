"""Tenants that differ get their own decision and prescription (issue 35, item 6).

Two tenants share one deployment: ``clocked`` prints the time at the top of its system prompt,
``steady`` sends the same system prompt bare. The oracle of every per-tenant figure is the
API run on that tenant's records alone: ``analyze`` (hit rate, unlimited cache), ``simulate``
with SGLang's rules and no capacity limit (the engine hit rate the decision reads) and
``prescribe`` (the hit rate after its fix and the fix itself).
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from advisor.advise import tenants as tenants_module
from advisor.advise.decide import Thresholds
from advisor.advise.tenants import (
    BELOW_OTHERS, DECISION_DIFFERS, MARGIN, MIN_REQUESTS, TenantTraffic, hit_rule, others_hit_rate,
    reasons_to_pick,
)
from advisor.api import analyze, prescribe, report, simulate
from advisor.report import advisory

T = Thresholds()
STATIC = ("You are the billing assistant of Northwind Traders. Answer questions about invoices, refunds, "
          "payment methods and subscription plans. Be brief and precise; quote the invoice number when you "
          "refer to one; never promise a refund the policy does not allow. ") * 4
TOPICS = ("a late invoice", "a double charge", "a card that expired", "switching to the annual plan",
          "a refund for an unused month", "adding a seat", "removing a seat", "the VAT number on the invoice")


def clocked(tenant: str, i: int) -> dict[str, Any]:
    stamp = f"2025-03-{1 + i % 28:02d} {8 + i % 10:02d}:{(7 * i) % 60:02d}:{(13 * i) % 60:02d}"
    return {"tenant": tenant, "messages": [
        {"role": "system", "content": f"Current time: {stamp}.\n{STATIC}"},
        {"role": "user", "content": f"Question {i}: I need help with {TOPICS[i % 8]} on order {1000 + 37 * i}."}]}


def steady(i: int) -> dict[str, Any]:
    return {"tenant": "steady", "messages": [
        {"role": "system", "content": STATIC},
        {"role": "user", "content": f"Question {i}: I need help with {TOPICS[(i + 3) % 8]} on order {5000 + 41 * i}."}]}


RECORDS = [r for i in range(40) for r in (clocked("clocked", i), steady(i))]  # interleaved, as one log


def alone(tenant: str) -> list[dict[str, Any]]:
    return [r for r in RECORDS if r["tenant"] == tenant]


@pytest.fixture(scope="module")
def data() -> dict[str, Any]:
    return report(RECORDS).data


def test_the_defective_tenant_is_picked_and_the_clean_one_not(data) -> None:
    assert [r["tenant"] for r in data["tenants"]] == ["clocked"]
    row = data["tenants"][0]
    assert row["why"] == [BELOW_OTHERS, DECISION_DIFFERS]
    assert row["requests"] == 40 and row["prescribed"] is True
    # The whole traffic's hit rate hides the tenant: above the go threshold on the two together.
    assert data["traffic"]["hit_rate"] >= T.go_above and row["decision_whole"] == "go"


def test_figures_are_those_of_the_tenant_alone(data) -> None:
    row = data["tenants"][0]
    a_clocked, a_steady = analyze(alone("clocked")), analyze(alone("steady"))
    assert row["prompt_tokens"] == a_clocked.prompt_tokens
    assert row["lcp_hit_rate"] == round(a_clocked.hit_rate, 6)
    assert row["share"] == round(a_clocked.prompt_tokens / (a_clocked.prompt_tokens + a_steady.prompt_tokens), 6)
    assert row["hit_rate"] == round(simulate(alone("clocked"), engine="sglang").hit_rate, 6)
    assert row["others_hit_rate"] == round(simulate(alone("steady"), engine="sglang").hit_rate, 6)
    assert row["others_hit_rate"] - row["hit_rate"] >= MARGIN
    p = prescribe(alone("clocked"))
    assert row["hit_rate_after_prescription"] == round(p.hit_rate_after, 6)
    top = max(p.actions, key=lambda a: a["tokens_gained"])
    assert row["actions"][0]["code"] == top["code"] == "TR101"
    assert row["actions"][0]["tokens_gained"] == top["tokens_gained"] > 0
    assert [(f["code"], f["kind"]) for f in row["findings"]] == [("TR101", "datetime")]


def test_its_decision_today_and_after_its_own_fix(data) -> None:
    row = data["tenants"][0]
    # Today the clock breaks the prefix a few characters in: most of the system prompt is prefilled.
    assert row["hit_rate"] < T.no_go_below and row["decision"] == "no-go" == hit_rule(row["hit_rate"], T)
    # With the clock moved behind the static text, the tenant's own requests cross the go threshold.
    assert row["hit_rate_after_prescription"] >= T.go_above
    assert row["decision_after"] == "go" == hit_rule(row["hit_rate_after_prescription"], T)


def test_a_single_tenant_gives_no_list() -> None:
    d = report(alone("clocked")).data
    assert d["tenants"] == []
    assert "Tenants that differ" not in advisory.to_markdown(d, None)


def test_the_section_follows_the_audit(data) -> None:
    text = advisory.to_markdown(data, None)
    headings = re.findall(r"^## \d+\. (.+)$", text, re.M)
    assert headings[headings.index("Ordering audit") + 1] == "Tenants that differ"
    section = text.split("Tenants that differ", 1)[1].split("\n## ", 1)[0]
    row = data["tenants"][0]
    assert (f"| `clocked` | {row['share']:.1%} | 40 | {row['hit_rate']:.1%} | {row['others_hit_rate']:.1%} | does not pay "
            f"| {row['hit_rate_after_prescription']:.1%} | pays |") in section
    assert "Move the datetime value" in section and f"{row['actions'][0]['tokens_gained']:,} tokens" in section


def test_only_the_biggest_differing_tenants_are_prescribed(monkeypatch) -> None:
    # A second clocked tenant with fewer requests (so fewer prompt tokens, which order the
    # tenants): both differ, one prescription allowed, the bigger tenant's.
    records = RECORDS + [clocked("clocked-small", i) for i in range(30)]
    monkeypatch.setattr(tenants_module, "MAX_PRESCRIBED", 1)
    d = report(records).data
    assert [(r["tenant"], r["prescribed"]) for r in d["tenants"]] == [("clocked", True), ("clocked-small", False)]
    small = d["tenants"][1]
    assert small["requests"] == 30
    assert (small["hit_rate_after_prescription"], small["decision_after"], small["actions"]) == (None, None, [])
    assert small["lcp_hit_rate"] == round(analyze([clocked("clocked-small", i) for i in range(30)]).hit_rate, 6)
    assert "Only the 1 biggest are prescribed" in advisory.to_markdown(d, None)


# --- the rule, on hand-made figures --------------------------------------------------------------

def group(tenant: str | None, requests: int, prompt: int, engine_cached: int) -> TenantTraffic:
    # Only the count of the sequences is read by the rule.
    return TenantTraffic(tenant, [None] * requests, prompt, engine_cached, engine_cached)  # type: ignore[list-item]


def picked(one: TenantTraffic, groups: list[TenantTraffic], whole: float) -> list[str]:
    total, cached = sum(g.prompt_tokens for g in groups), sum(g.engine_cached_tokens for g in groups)
    return reasons_to_pick(one, total, others_hit_rate(one, total, cached), whole, T)


@pytest.mark.parametrize("hit, expected", [(0.0, "no-go"), (0.2999, "no-go"), (0.30, "trial"), (0.3999, "trial"),
                                           (0.40, "go"), (1.0, "go")])
def test_hit_rule_boundaries(hit, expected) -> None:
    assert hit_rule(hit, T) == expected


def test_others_are_the_rest_pooled() -> None:
    a, b, c = group("a", 30, 1_000, 100), group("b", 30, 3_000, 2_700), group(None, 30, 1_000, 500)
    # The others of a: (2,700 + 500) / (3,000 + 1,000), requests without a tenant included.
    assert others_hit_rate(a, 5_000, 3_300) == pytest.approx(0.8)
    assert others_hit_rate(a, 1_000, 100) is None  # a alone
    assert picked(a, [a, b, c], 0.66) == [BELOW_OTHERS, DECISION_DIFFERS]


def test_rule_margin_share_requests_and_decision() -> None:
    big = group("big", 100, 10_000, 8_000)  # 80%
    # 70%: 10 points below the others' 80%, same decision (go) as a whole at 78%.
    low = group("low", 50, 2_500, 1_750)
    assert picked(low, [big, low], 0.78) == [BELOW_OTHERS]
    # 71%: 9 points below, same decision: not picked.
    near = group("near", 50, 2_500, 1_775)
    assert picked(near, [big, near], 0.78) == []
    # 42% against a whole at 38%: 38 points below and on the other side of go_above.
    cross = group("cross", 50, 2_500, 1_050)
    assert picked(cross, [big, cross], 0.38) == [BELOW_OTHERS, DECISION_DIFFERS]
    # 75% against a whole at 38%: 5 points below, but the hit rule gives it go, the whole trial.
    above = group("above", 50, 2_500, 1_875)
    assert picked(above, [big, above], 0.38) == [DECISION_DIFFERS]
    # Too small a share of the prompt tokens (4% < 5%), too few requests, or no tenant at all.
    tiny = group("tiny", 50, 420, 0)
    assert picked(tiny, [big, tiny], 0.78) == []
    few = group("few", MIN_REQUESTS - 1, 2_500, 0)
    assert picked(few, [big, few], 0.78) == []
    enough = group("enough", MIN_REQUESTS, 2_500, 0)
    assert picked(enough, [big, enough], 0.78) == [BELOW_OTHERS, DECISION_DIFFERS]
    untenanted = group(None, 50, 2_500, 0)
    assert picked(untenanted, [big, untenanted], 0.78) == []
