"""The second held-out set's generator and truth, checked against themselves and `advisor analyze`.

Nothing here asserts the detector's findings or predictions: bench/diagnose_heldout.py
--set heldout2 reports those. These tests make sure the planted offsets and the truth the
bench compares with are right, and that the set stays deterministic.
"""

from __future__ import annotations

import json
from array import array

import pytest

from tests.diagnose.heldout import MARK, UNIT, Engine, lcp, oracle, write_jsonl
from tests.diagnose.heldout2 import REGISTRY, build_pairs, build_workloads, tool_key_order, workload_names

# One per record kind and defect class, a two-defect workload, growing chats, an agent with a
# tool result, and controls with tool calls and with a dropped `name` field.
SAMPLE = ["cron-agent-tool-result-clock", "iso-week-ids", "tools-field-shuffled-ids", "history-before-instructions-prompt",
          "passages-first-and-cart-ids", "growing-summary-before-history", "template-date-string-kwarg", "clean-agent-loop-ids",
          "clean-name-field-varies"]


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine()


@pytest.fixture(scope="module")
def sample(engine):
    return build_workloads(12, engine, SAMPLE)


def test_the_set_is_big_and_varied():
    names = workload_names()
    assert len(names) == len(set(names))
    defects = [r for r in REGISTRY if r[2]]
    controls = [r for r in REGISTRY if not r[2]]
    assert len(defects) >= 30 and len(controls) >= 10
    assert {r[1] for r in defects} == {"messages", "prompt", "input_ids"}
    assert {r[1] for r in controls} == {"messages", "prompt", "input_ids"}
    classes = {c for r in defects for e in r[2] for c in e.split("|")}
    assert classes == {"dynamic", "order", "placement"}
    assert sum(1 for r in defects if len(r[2]) > 1) >= 4


def test_generation_is_deterministic_and_seeded(engine, sample):
    first = {w.name: w for w in sample}
    again = build_workloads(12, engine, SAMPLE[:3])
    assert [w.name for w in again] == SAMPLE[:3]
    for b in again:
        a = first[b.name]
        assert (a.records, a.fixed, a.offsets, a.unit_offsets) == (b.records, b.fixed, b.offsets, b.unit_offsets)
    other = build_workloads(13, engine, SAMPLE[:1])[0]
    assert other.records != first[SAMPLE[0]].records


def test_records_are_clean_and_of_the_declared_kind(sample):
    for w in sample:
        assert 60 <= len(w.records) <= 200 and len(w.fixed) == len(w.records), w.name
        text = json.dumps(w.records + w.fixed, ensure_ascii=False)
        assert MARK not in text and UNIT not in text, w.name
        key = {"messages": "messages", "prompt": "prompt", "input_ids": "input_ids"}[w.kind]
        assert all(key in r for r in w.records + w.fixed), w.name


def test_requests_share_everything_before_the_first_defect_and_part_there(engine, sample):
    for w in sample:
        if not w.expect:
            continue
        ids = [array("I", engine.ids(r)).tobytes() for r in w.records]
        off = w.offsets[0]
        assert all(x[: 4 * off] == ids[0][: 4 * off] for x in ids), w.name
        assert min(lcp(ids[0], x) for x in ids[1:]) <= off + 2, w.name
        assert all(u <= o for u, o in zip(w.unit_offsets, w.offsets)), w.name
        assert list(w.offsets) == sorted(w.offsets), w.name


def test_the_fix_gains_and_controls_are_their_own_fix(engine, sample):
    for w in sample:
        c0, t0 = oracle(engine.ids(r) for r in w.records)
        c1, t1 = oracle(engine.ids(r) for r in w.fixed)
        if w.expect:
            assert c1 / t1 > c0 / t0 + 0.005, w.name
        else:
            assert w.records == w.fixed


def test_few_settings_are_best_kept_after_the_shared_content(engine):
    # The truth of a block with few settings keeps it at the end of the system prompt, where
    # it is shared within its setting; the naive move into the user turn measures lower.
    for name in ("locale-price-format", "persona-5-before-shared"):
        fixed = [f for _, f in build_pairs(name, 12, engine)]
        naive = []
        for f in fixed:
            g = json.loads(json.dumps(f))
            head, block = g["messages"][0]["content"].rsplit("\n\n", 1)
            g["messages"][0]["content"] = head
            g["messages"][-1]["content"] += "\n\n" + block
            naive.append(g)
        truth, other = oracle(engine.ids(r) for r in fixed), oracle(engine.ids(r) for r in naive)
        assert truth[1] == other[1] and truth[0] > other[0] + 0.02 * truth[1], name


def test_the_layout_drops_the_name_field(engine, sample):
    # The control is only clean while the chat layout ignores `name`; if that changes, the
    # control must be rewritten, not silently become a defect workload.
    w = next(x for x in sample if x.name == "clean-name-field-varies")
    names = {m["name"] for r in w.records for m in r["messages"] if "name" in m}
    assert len(names) > 50
    assert not any(n in engine.text(r) for r in w.records[:5] for n in names)


def test_tool_markers_follow_the_rendered_key_order(engine, sample):
    w = next(x for x in sample if x.name == "tools-field-shuffled-ids")
    assert tool_key_order(engine) in ("name", "description")
    # The first tool's first rendered field is where the shuffled requests part.
    ids = [array("I", engine.ids(r)).tobytes() for r in w.records]
    assert min(lcp(ids[0], x) for x in ids[1:]) == w.offsets[0]


def test_oracle_agrees_exactly_with_analyze(cli, tmp_path, engine, sample):
    for w in sample:
        for label, records in (("orig", w.records), ("fixed", w.fixed)):
            path = tmp_path / f"{w.name}.{label}.jsonl"
            write_jsonl(records, path)
            res = cli("analyze", str(path), "--format", "json", "--no-diagnose")
            assert res.code == 0, res.err
            report = json.loads(res.out)
            assert (report["cached_tokens"], report["prompt_tokens"]) == oracle(engine.ids(r) for r in records), \
                (w.name, label)
