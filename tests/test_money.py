"""The bill in money (``advisor.advise.money``, the "What it costs" section): every figure
recomputed by hand on a five-request traffic."""

from __future__ import annotations

import json
import math
from array import array
from dataclasses import replace
from pathlib import Path

import pytest

from advisor.advise.money import (
    HostedPrice, TrafficBills, check_gpu_hour_price, gpu_price, hosted_bill, load_prices, money_facts,
    request_tokens, self_hosted,
)
from advisor.errors import AdvisorError
from advisor.index.analyze import Analyzer
from advisor.ingest.pipeline import Sequence
from advisor.ingest.traffic import Request

# Test prices in dollars per *token* (a million dollars per million tokens), so five requests
# bill whole dollars and cents that rounding to the microdollar never touches.
M = 1_000_000
WITH_WRITES = HostedPrice("A", "a-1", input=1 * M, cached_input=0.1 * M, cache_write=1.25 * M, output=2 * M,
                          minimum_tokens=4, granularity=1, ttl_seconds=10.0, ttl_note="", source="test", read_on="")
STEPPED = HostedPrice("B", "b-1", input=1 * M, cached_input=0.5 * M, cache_write=None, output=4 * M,
                      minimum_tokens=4, granularity=4, ttl_seconds=None, ttl_note="", source="test", read_on="")
OPENAI_LIKE = replace(STEPPED, minimum_tokens=1024, granularity=128, ttl_seconds=300.0)

SHARED = list(range(1, 9))  # eight tokens every request but one starts with


def _traffic(stamped: bool = True) -> list[Sequence]:
    """Five requests (time s, ids), each logging 5 output tokens:
    r0 t=0   1..10             nothing before it
    r1 t=5   1..8 20 21        shares 8 with r0
    r2 t=30  1..8 30 31 32     shares 8; their last use (r1) is 25 s old
    r3 t=35  1 2 3 40          shares 3
    r4 t=36  1..8 30 31 32 33  shares 11 with r2, used 6 s ago"""
    rows = [(0.0, SHARED + [9, 10]), (5.0, SHARED + [20, 21]), (30.0, SHARED + [30, 31, 32]),
            (35.0, [1, 2, 3, 40]), (36.0, SHARED + [30, 31, 32, 33])]
    return [Sequence(Request("t.jsonl", i + 1, "input_ids", timestamp=t if stamped else None, output_length=5),
                     "tokens", array("I", ids), len(ids), 1)
            for i, (t, ids) in enumerate(rows)]


def _bills(seqs: list[Sequence], providers=(WITH_WRITES, STEPPED)) -> tuple[TrafficBills, Analyzer]:
    bills = TrafficBills.for_traffic(seqs, providers)
    analyzer = Analyzer(1)
    for s in seqs:
        bills.add(analyzer, s)
    return bills, analyzer


# --- one request's read ---------------------------------------------------------------------------

def test_minimum_prefix_and_steps() -> None:
    # 1,100 shared tokens: 8 whole 128-token steps = 1,024, at the minimum: read; 76 past the step.
    part = request_tokens(1100, None, OPENAI_LIKE)
    assert (part.read, part.expired, part.below_minimum, part.rounded) == (1024, 0, 0, 76)
    # 1,000 shared tokens: 7 steps = 896 < 1,024: nothing is cached, all 1,000 lost to the minimum.
    part = request_tokens(1000, None, OPENAI_LIKE)
    assert (part.read, part.below_minimum, part.rounded) == (0, 1000, 0)


def test_lifetime_cuts_the_read_to_what_was_used_recently() -> None:
    # 2,000 shared (15 steps = 1,920), of which 1,500 used within the lifetime: 11 steps = 1,408.
    part = request_tokens(2000, 1500, OPENAI_LIKE)
    assert (part.read, part.expired, part.rounded) == (1408, 1920 - 1408, 80)
    # Only 600 recent: 512 is under the minimum, so the whole 1,920 expired.
    part = request_tokens(2000, 600, OPENAI_LIKE)
    assert (part.read, part.expired, part.below_minimum) == (0, 1920, 0)


# --- the traffic ----------------------------------------------------------------------------------

def test_collector_leaves_the_analysis_as_it_was() -> None:
    seqs = _traffic()
    _, analyzer = _bills(seqs)
    plain = Analyzer(1).add_all(_traffic())
    assert (analyzer.result.cached_tokens, analyzer.result.tree_tokens) == (plain.cached_tokens, plain.tree_tokens)
    assert analyzer.result.cached_tokens == 0 + 8 + 8 + 3 + 11


def test_bill_by_hand_with_timestamps() -> None:
    bills, _ = _bills(_traffic())
    a, b = bills.tokens
    assert (bills.requests, bills.prompt_tokens, bills.output_tokens, bills.output_requests) == (5, 47, 25, 5)
    # A (lifetime 10 s, minimum 4, write premium): r1 reads 8 (used 5 s before); r2's 8 were last
    # used 25 s before: expired; r3's 3 are under the minimum; r4 reads 11 (r2 used them 6 s before).
    assert (a.read, a.expired, a.below_minimum, a.rounded) == (8 + 11, 8, 3, 0)
    assert (a.hit_requests, a.expired_requests, a.short_requests) == (2, 1, 1)
    # Written once per lifetime, by the request that left them: r0's 8 (read by r1), and r2's
    # 11 (read by r4: the first entry had expired). New input: r0 9 10, r1 20 21, r3 all 4, r4 33.
    assert (a.written, a.new) == (8 + 11, 2 + 2 + 4 + 1)
    # B (no lifetime, 4-token steps, no write fee): r1 8, r2 8, r4 11 -> 8 (3 past the step).
    assert (b.read, b.rounded, b.below_minimum, b.written, b.new) == (24, 3, 3, 0, 47 - 24)

    bill = hosted_bill(a, bills.output_tokens, WITH_WRITES)
    # $ per token: read 0.10, new 1.00, write 1.25, output 2.00.
    assert bill["usd"] == {"cache_reads": pytest.approx(1.9), "new_input": 9.0, "cache_writes": 23.75, "output": 50.0}
    assert bill["total_usd"] == pytest.approx(84.65)
    assert bill["uncached_usd"] == 47 + 50
    assert bill["saving"] == pytest.approx(1 - 84.65 / 97, abs=1e-6)
    assert bill["input_usd_per_million_prompt_tokens"] == pytest.approx((1.9 + 9 + 23.75) / 47 * M)
    bill = hosted_bill(b, bills.output_tokens, STEPPED)
    assert bill["total_usd"] == pytest.approx(24 * 0.5 + 23 + 25 * 4)


def test_without_timestamps_the_lifetime_is_not_checked() -> None:
    bills, _ = _bills(_traffic(stamped=False))
    a = bills.tokens[0]
    # r2 now reads its 8 (r0's prefix, already written for r1) and r4 reads 11, of which
    # 30 31 32 are new to the cache: written 8 + 3.
    assert (a.read, a.expired, a.written, a.new) == (8 + 8 + 11, 0, 8 + 3, 47 - 27 - 11)
    assert bills.seconds_per_unit is None
    facts = money_facts(_facts(), bills, 2.0)
    assert "TTL not checked: no timestamps." in facts["notes"] and not facts["ttl_checked"]


def test_split_sums_to_the_total() -> None:
    bills, _ = _bills(_traffic(), tuple(load_prices().hosted) + (WITH_WRITES, STEPPED))
    for bill in money_facts(_facts(), bills)["hosted"]:
        assert sum(bill["usd"].values()) == pytest.approx(bill["total_usd"], abs=1e-5)
        k = bill["tokens"]
        assert k["cache_reads"] + k["new_input"] + k["cache_writes"] == bills.prompt_tokens
        lost = bill["lost"]
        assert k["cache_reads"] + lost["expired"] + lost["below_minimum"] + lost["rounded"] == bills.cached_tokens


# --- self-hosted ------------------------------------------------------------------------------------

def _facts(gpu: str = "h100-sxm-80gb", tp: int = 2, sources: dict | None = None) -> dict:
    setup = {"prompt_tokens": 1_000_000, "label": "x"}
    return {
        "input": {"gpu": gpu, "tp": tp}, "engine": "sglang",
        "simulation": {
            "engines": {"setups": {
                "none": {**setup, "hit_rate": 0.0, "prefill_seconds": 100.0, "decode_seconds": 40.0},
                "sglang": {**setup, "hit_rate": 0.7, "prefill_seconds": 30.0, "decode_seconds": 40.0}}},
            "assumptions": {"output_length_sources": sources or {"logged": 5, "output_len": 0, "max_tokens": 0,
                                                                  "default": 0}}},
    }


def test_self_hosted_by_hand() -> None:
    sh = self_hosted(_facts(), 1_000_000, True, "basis", gpu_price("h100-sxm-80gb", 2, 3.6))
    # TP 2: (100 + 40) s x 2 GPUs = 280 GPU-s at $3.60 per GPU-hour = $0.28, per million prompt tokens too.
    assert sh["setups"]["no_cache"]["gpu_seconds"] == 280 and sh["setups"]["no_cache"]["usd"] == pytest.approx(0.28)
    assert sh["setups"]["cached"]["usd_per_million_prompt_tokens"] == pytest.approx(0.14)
    assert sh["saving"] == pytest.approx(0.5)
    # Without output lengths, prefill only: 200 and 60 GPU-s.
    facts = _facts(sources={"logged": 0, "output_len": 0, "max_tokens": 0, "default": 5})
    bills, _ = _bills(_traffic())
    money = money_facts(facts, bills, 3.6)
    sh = money["self_hosted"]
    assert not sh["decode_included"] and "prefill time only" in sh["basis"]
    assert (sh["setups"]["no_cache"]["usd"], sh["setups"]["cached"]["usd"]) == (pytest.approx(0.2), pytest.approx(0.06))


def test_the_option_overrides_the_cited_default() -> None:
    table = load_prices().gpus
    assert gpu_price("h100-sxm-80gb", 1, None).usd_per_gpu_hour == table.per_gpu_hour["h100-sxm-80gb"][1] == 4.29
    assert gpu_price("h100-sxm-80gb", 3, None).usd_per_gpu_hour == 4.09  # the 4-GPU instance holds TP 3
    assert gpu_price("h100-sxm-80gb", 16, None).usd_per_gpu_hour == 3.99  # past the largest: the largest
    given = gpu_price("h100-sxm-80gb", 1, 2.5)
    assert (given.usd_per_gpu_hour, given.source) == (2.5, "given (--gpu-hour-price)")
    assert gpu_price("l40s", 1, None) is None and gpu_price("l40s", 1, 1.0).usd_per_gpu_hour == 1.0
    bills, _ = _bills(_traffic())
    assert money_facts(_facts(), bills)["self_hosted"]["gpu_hour_price"] == 4.19  # TP 2: the 2-GPU instance
    assert money_facts(_facts(), bills, 7.0)["self_hosted"]["gpu_hour_price"] == 7.0
    unpriced = money_facts(_facts("l40s"), bills)["self_hosted"]
    assert unpriced["gpu_hour_price"] is None and "usd" not in unpriced["setups"]["cached"]
    for bad in (0.0, -1.0, math.nan, math.inf):
        with pytest.raises(AdvisorError, match="--gpu-hour-price"):
            check_gpu_hour_price(bad)


def test_price_table_is_cited_and_names_catalog_gpus() -> None:
    from advisor.cost.catalog import load_catalog

    prices = load_prices()
    ids = {g.id for g in load_catalog().gpus}
    assert set(prices.gpus.per_gpu_hour) <= ids
    assert prices.gpus.source.startswith("https://") and prices.gpus.read_on
    assert {p.provider for p in prices.hosted} >= {"OpenAI", "Anthropic", "Google Gemini", "DeepSeek"}
    for p in prices.hosted:
        assert p.source and p.read_on and 0 < p.cached_input < p.input
    anthropic = next(p for p in prices.hosted if p.provider == "Anthropic")
    assert anthropic.cache_write == pytest.approx(1.25 * anthropic.input)  # the 5-minute write premium


# --- the report -----------------------------------------------------------------------------------

def _write_traffic(path: Path) -> Path:
    lines = [{"input_ids": list(s.ids), "timestamp": s.request.timestamp, "output_length": 5} for s in _traffic()]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


def test_report_gives_the_section_and_takes_the_option(cli, tmp_path: Path) -> None:
    traffic = _write_traffic(tmp_path / "t.jsonl")
    res = cli("report", "--traffic", traffic, "--gpu-hour-price", "2", "--format", "json", "--output", "-")
    assert res.code == 0, res.err
    data = json.loads(res.out)
    sh = data["money"]["self_hosted"]
    assert sh["gpu_hour_price"] == 2.0
    for row in sh["setups"].values():
        assert row["usd"] == pytest.approx(row["gpu_seconds"] / 3600 * 2, abs=1e-6)
    from advisor.report import advisory

    text = advisory.to_markdown(data, None)
    assert "What it costs" in text and "$2.00 per GPU-hour, given (--gpu-hour-price)" in text
    bad = cli("report", "--traffic", traffic, "--gpu-hour-price", "0", "--format", "json", "--output", "-")
    assert bad.code == 2 and "--gpu-hour-price" in bad.err
