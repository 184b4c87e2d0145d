"""The held-out generator and its oracle, checked against themselves and against `advisor analyze`.

Nothing here asserts the detector's findings (bench/diagnose_heldout.py reports those): these
tests make sure the truth the bench compares with is right.
"""

from __future__ import annotations

import json
import random
from array import array

import pytest

from tests.diagnose.heldout import (
    MARK, REGISTRY, UNIT, Engine, build_workloads, lcp, oracle, workload_names, write_jsonl,
)

# One workload per record kind and defect class, plus a clean control with tool calls.
SAMPLE = ["date-ordinal", "compact-tools-shuffled-prompt", "profile-before-system-ids", "clock-and-shuffled-tools",
          "clean-agent-loop", "content-parts-signed-in-user", "mixed-record-kinds-date", "prerendered-llama-prompt-clock"]


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine()


@pytest.fixture(scope="module")
def sample(engine):
    return build_workloads(12, engine, SAMPLE)


def naive_cached(requests: list[list[int]]) -> int:
    total = 0
    for i, r in enumerate(requests):
        best = 0
        for e in requests[:i]:
            n = 0
            while n < min(len(r), len(e)) and r[n] == e[n]:
                n += 1
            best = max(best, n)
        total += best
    return total


def test_oracle_matches_a_token_by_token_scan():
    rng = random.Random(5)
    for _ in range(30):
        stem = [rng.randrange(128256) for _ in range(rng.randint(0, 40))]
        reqs = []
        for _ in range(rng.randint(1, 12)):
            cut = rng.randint(0, len(stem))
            reqs.append(stem[:cut] + [rng.randrange(4) for _ in range(rng.randint(1, 6))])
        cached, total = oracle(reqs)
        assert cached == naive_cached(reqs)
        assert total == sum(len(r) for r in reqs)
    # Ids above 2**24 use every byte of the packed form.
    assert lcp(array("I", [2**31, 7]).tobytes(), array("I", [2**31, 8]).tobytes()) == 1


def test_enough_workloads_of_every_kind(sample):
    kinds = {r[1] for r in REGISTRY}
    expects = [r[2] for r in REGISTRY]
    assert len(workload_names()) == len(set(workload_names()))
    assert sum(1 for e in expects if e) >= 25 and sum(1 for e in expects if not e) >= 8
    assert kinds == {"messages", "prompt", "input_ids", "mixed"}
    assert {c for e in expects for c in e} == {"dynamic", "order", "placement"}
    for w in sample:
        assert 60 <= len(w.records) <= 200 and len(w.fixed) == len(w.records), w.name
        text = json.dumps(w.records + w.fixed, ensure_ascii=False)
        assert MARK not in text and UNIT not in text, w.name
        assert len(w.offsets) == len(w.expect) == len(w.unit_offsets)


def test_generation_is_deterministic(engine, sample):
    first = {w.name: w for w in sample}
    again = build_workloads(12, engine, SAMPLE[:2])
    assert sorted(w.name for w in again) == sorted(SAMPLE[:2])
    for b in again:
        a = first[b.name]
        assert a.records == b.records and a.fixed == b.fixed and a.offsets == b.offsets
    other = build_workloads(13, engine, SAMPLE[:1])[0]
    assert other.records != first[SAMPLE[0]].records


def test_every_request_shares_the_tokens_before_the_first_defect(engine, sample):
    for w in sample:
        if not w.expect:
            continue
        ids = [array("I", engine.ids(r)).tobytes() for r in w.records]
        # All requests agree up to the offset, and some pair parts right there.
        assert all(x[: 4 * w.offset] == ids[0][: 4 * w.offset] for x in ids), w.name
        assert min(lcp(ids[0], x) for x in ids[1:]) <= w.offset + 2, w.name
        assert w.unit_offsets[0] <= w.offset


def test_oracle_agrees_exactly_with_analyze(cli, tmp_path, engine, sample):
    for w in sample:
        for label, records in (("orig", w.records), ("fixed", w.fixed)):
            path = tmp_path / f"{w.name}.{label}.jsonl"
            write_jsonl(records, path)
            res = cli("analyze", str(path), "--format", "json", "--no-diagnose")
            assert res.code == 0, res.err
            report = json.loads(res.out)
            cached, total = oracle(engine.ids(r) for r in records)
            assert (report["cached_tokens"], report["prompt_tokens"]) == (cached, total), (w.name, label)


def test_the_fix_raises_the_hit_rate_and_clean_controls_are_their_own_fix(engine, sample):
    for w in sample:
        before = oracle(engine.ids(r) for r in w.records)
        after = oracle(engine.ids(r) for r in w.fixed)
        if w.expect:
            assert after[0] / after[1] > before[0] / before[1] + 0.05, w.name
        else:
            assert w.records == w.fixed
