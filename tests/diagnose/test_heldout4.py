"""The fourth held-out set's generator and truth, checked against themselves and `advisor analyze`.

Nothing here asserts the detector's findings or predictions: bench/diagnose_heldout.py
--set heldout4 reports those. These tests make sure the planted offsets and the truth the
bench compares with are right, and that the set stays deterministic and varied.
"""

from __future__ import annotations

import json
from array import array
from collections import Counter
from typing import Any, Callable

import pytest

from tests.diagnose.heldout import MARK, UNIT, Engine, lcp, oracle, unmark, write_jsonl
from tests.diagnose.heldout4 import REGISTRY, build_pairs, build_workloads, first_tool_key, workload_names

# One per record kind and defect class, every multi-defect workload, a value at the first
# token, a value in a tool call's arguments, content parts, tools, growing sessions, and controls.
SAMPLE = ["ipv4-client-first-token-prompt", "epoch-ms-in-tool-call-args-ids", "hex-colours-2-content-part",
          "seat-count-one-token-ids", "handover-notes-800-messages", "balance-and-iban-prompt",
          "gateway-mac-epoch-messages", "nested-tools-shuffled-ids", "tool-result-json-keys-shuffled",
          "numbered-steps-keep-numbers", "memory-bullets-before-prompt", "session-summary-before-tool-docs",
          "snippets-first-then-build-ids", "yaml-shuffled-then-phone-prompt", "clean-freight-agent-loop-ids",
          "clean-deploy-once-midlog", "clean-two-models-interleaved-prompt"]
MULTI = [r[0] for r in REGISTRY if len(r[2]) > 1]


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine()


@pytest.fixture(scope="module")
def sample(engine):
    return build_workloads(12, engine, SAMPLE)


def _rate(engine: Engine, records) -> float:
    cached, total = oracle(engine.ids(r) for r in records)
    return cached / total


def test_the_set_is_big_and_varied():
    names = workload_names()
    assert len(names) == len(set(names))
    assert set(SAMPLE) <= set(names)
    defects = [r for r in REGISTRY if r[2]]
    controls = [r for r in REGISTRY if not r[2]]
    assert len(defects) >= 30 and len(controls) >= 10
    kinds = Counter(r[1] for r in defects)
    assert set(kinds) == {"messages", "prompt", "input_ids"}
    assert all(n >= len(defects) // 4 for n in kinds.values()), kinds  # roughly a third each
    assert {r[1] for r in controls} == {"messages", "prompt", "input_ids"}
    classes = Counter(c for r in defects for e in r[2] for c in e.split("|"))
    assert set(classes) == {"dynamic", "order", "placement"}
    assert classes["order"] >= 8 and classes["placement"] >= 8
    assert len(MULTI) >= 4 and any(len(r[2]) >= 3 for r in defects)
    assert {frozenset(r[2]) for r in REGISTRY if r[0] in MULTI} >= {
        frozenset({"dynamic"}), frozenset({"placement", "dynamic"}), frozenset({"order", "dynamic"})}


def test_no_shape_name_repeats_an_earlier_set():
    from tests.diagnose import heldout, heldout2, heldout3

    earlier = {r[0] for m in (heldout, heldout2, heldout3) for r in m.REGISTRY}
    assert not earlier & set(workload_names())


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
        assert 120 <= len(w.records) <= 200 and len(w.fixed) == len(w.records), w.name
        text = json.dumps(w.records + w.fixed, ensure_ascii=False)
        assert MARK not in text and UNIT not in text, w.name
        assert "\\ue000" not in text and "\\ue001" not in text, w.name  # no marker hidden in a JSON string
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


def test_the_first_token_address_is_planted_right_after_bos(sample):
    w = next(x for x in sample if x.name == "ipv4-client-first-token-prompt")
    assert w.offsets == (1,)


def test_span_lengths_reach_from_one_token_to_hundreds(engine):
    # The seat count is one token; the handover notes several hundred.
    seat = [o for o, _ in build_pairs("seat-count-one-token-ids", 12, engine)[:40]]
    spans = set()
    for rec in seat:
        ids, m, _ = engine.marked(rec)
        text = unmark(rec)["messages"][0]["content"]
        n = text.split("Free hot desks right now: ")[1].split("\n")[0]
        spans.add(len(engine.tok.encode(" " + n)) - len(engine.tok.encode(" ")))
    assert spans == {1}
    notes = [f for _, f in build_pairs("handover-notes-800-messages", 12, engine)[:40]]
    sizes = sorted(len(engine.tok.encode(f["messages"][-1]["content"].split("\n\n", 1)[1])) for f in notes)
    assert 650 <= sizes[len(sizes) // 2] <= 950, sizes


@pytest.mark.parametrize("name", MULTI)
def test_every_planted_defect_is_a_point_where_the_requests_stop_agreeing(engine, name):
    # Later defects sit behind earlier ones, so check each at every request's own marker:
    # the tokens just before it agree across requests and the tokens from it on do not.
    pairs = build_pairs(name, 12, engine)
    marked = [engine.marked(o) for o, _ in pairs]
    expect = next(r[2] for r in REGISTRY if r[0] == name)
    for k in range(len(expect)):
        before = {tuple(ids[m[k] - 3: m[k]]) for ids, m, _ in marked}
        after = {tuple(ids[m[k]: m[k] + 12]) for ids, m, _ in marked}
        assert len(before) == 1, (name, k, len(before))
        assert len(after) > 1, (name, k)


def test_the_fix_gains_and_controls_are_their_own_fix(engine, sample):
    for w in sample:
        c0, t0 = oracle(engine.ids(r) for r in w.records)
        c1, t1 = oracle(engine.ids(r) for r in w.fixed)
        if w.expect:
            assert c1 / t1 > c0 / t0 + 0.003, w.name
        else:
            assert w.records == w.fixed


# ---------------------------------------------------------------- the truth's placement, measured


def _copy(record: dict[str, Any]) -> dict[str, Any]:
    return json.loads(json.dumps(record, ensure_ascii=False))


def _system_tail_to_user_end(record: dict[str, Any]) -> dict[str, Any]:
    """The last system message's last block moved to the end of the user turn."""
    g = _copy(record)
    system = [m for m in g["messages"] if m["role"] == "system"][-1]
    system["content"], block = system["content"].rsplit("\n\n", 1)
    g["messages"][-1]["content"] += "\n\n" + block
    return g


def _user_head_to_user_end(record: dict[str, Any]) -> dict[str, Any]:
    g = _copy(record)
    head, rest = g["messages"][-1]["content"].split("\n\n", 1)
    g["messages"][-1]["content"] = f"{rest}\n\n{head}"
    return g


def _part_after_question(record: dict[str, Any]) -> dict[str, Any]:
    g = _copy(record)
    content = g["messages"][-1]["content"]
    content[-2], content[-1] = content[-1], content[-2]
    return g


def _prompt_block_after_question(record: dict[str, Any]) -> dict[str, Any]:
    """A prompt record's block just before 'Member: ...' moved after the member's line."""
    g = _copy(record)
    body, turn = g["prompt"].rsplit("\n\nMember: ", 1)
    body, block = body.rsplit("\n\n", 1)
    question, answer = turn.rsplit("\n", 1)
    g["prompt"] = f"{body}\n\nMember: {question}\n{block}\n{answer}"
    return g


def _summary_to_user_end(record: dict[str, Any]) -> dict[str, Any]:
    g = _copy(record)
    summary = g["messages"].pop(1)["content"]
    g["messages"][-1]["content"] += "\n\n" + summary
    return g


# Few settings stay right after the shared content, where requests with the same setting share
# it too; the measured alternative (the end of the last user turn) is worse for each.
@pytest.mark.parametrize("name, other", [
    ("promo-percentage-6-ids", _system_tail_to_user_end),
    ("semver-range-3-second-system", _system_tail_to_user_end),
    ("thai-shift-lead-3", _system_tail_to_user_end),
    ("ordinal-date-fewshot-answer", _user_head_to_user_end),
    ("hex-colours-2-content-part", _part_after_question),
    ("cron-expression-20-prompt", _prompt_block_after_question),
    ("tenant-banner-6-before-prompt", _prompt_block_after_question),
    ("memory-bullets-before-prompt", _prompt_block_after_question),
    ("session-summary-before-tool-docs", _summary_to_user_end),
    ("fuel-surcharge-in-tools-field-ids", _user_head_to_user_end),
    ("cidr-allowlist-in-tool-catalog-prompt", _prompt_block_after_question),
])
def test_the_truth_places_few_settings_where_it_measures_best(engine, name, other: Callable[[dict], dict]):
    fixed = [f for _, f in build_pairs(name, 12, engine)]
    moved = [other(f) for f in fixed]
    assert moved != fixed
    assert _rate(engine, fixed) > _rate(engine, moved), name


def test_tool_markers_follow_the_rendered_key_order(engine, sample):
    w = next(x for x in sample if x.name == "nested-tools-shuffled-ids")
    assert first_tool_key(engine) in ("name", "description")
    ids = [array("I", engine.ids(r)).tobytes() for r in w.records]
    assert min(lcp(ids[0], x) for x in ids[1:]) == w.offsets[0]


def test_the_fix_only_moves_content(engine, sample):
    # A fix relocates or reorders what was sent (dropping only the label a moved value no
    # longer needs): the fixed prompt is never much shorter or longer than the original.
    for w in sample:
        if not w.expect:
            continue
        for r, f in zip(w.records[:20], w.fixed[:20]):
            a, b = len(engine.ids(r)), len(engine.ids(f))
            assert abs(a - b) <= 0.03 * a + 16, (w.name, a, b)
    orig, fix = build_pairs("tool-result-json-keys-shuffled", 12, engine)[0]
    assert json.loads(unmark(orig)["messages"][3]["content"]) == json.loads(fix["messages"][3]["content"])
    orig, fix = build_pairs("nested-tools-shuffled-ids", 12, engine)[0]
    assert sorted(json.dumps(t, sort_keys=True) for t in unmark(orig)["tools"]) == \
        sorted(json.dumps(t, sort_keys=True) for t in fix["tools"])


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
