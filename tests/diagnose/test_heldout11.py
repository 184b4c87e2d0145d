"""The eleventh held-out set's generator and truth, checked against themselves and `advisor analyze`.

Nothing here asserts the detector's findings or prescribe's predictions: bench/diagnose_heldout.py
--set heldout11 reports those. These tests check that the set is served as it says (vLLM's handling
of the Qwen3 template, Qwen3 ids, the very ids `advisor analyze` with ANALYZE_ARGS counts), that the
planted offsets and the truth are right, that the noise is there, and that the set stays
deterministic and varied.
"""

from __future__ import annotations

import json
from array import array
from collections import Counter
from typing import Any

import pytest

from tests.diagnose import heldout11
from tests.diagnose.heldout import MARK, UNIT, Engine, lcp, oracle, write_jsonl
from tests.diagnose.heldout11 import (
    ANALYZE_ARGS, CHOSEN, END_SYSTEM, END_USER, HINT, PLACES, REGISTRY, SKIP, START_USER, build_pairs,
    build_workloads, marked, qwen3_engine, unhinted, unmark, workload_names,
)

# Each kind and class: the first token, a tool description, a priming tool result, content parts,
# a raw ChatML prompt, a plain prompt, shuffled tools, dropped reasoning, two defects, controls.
SAMPLE = ["station-observer-first-token", "wind-in-priming-tool-result", "humidity-first-content-part",
          "tank-readings-raw-chatml", "job-number-first-token-plain-prompt", "station-tools-shuffled",
          "call-reasoning-dropped-after-next-turn", "shuffled-tools-and-callout-number",
          "renumbered-handback-steps-ids", "clean-sessions-answer-reasoning-dropped", "clean-dispatch-shift-at-end-of-system"]


@pytest.fixture(scope="module")
def engine() -> Engine:
    return qwen3_engine()


@pytest.fixture(scope="module")
def sample(engine):
    return {w.name: w for w in build_workloads(12, engine, SAMPLE)}


def _rate(engine: Engine, records) -> float:
    cached, total = oracle(engine.ids(r) for r in records)
    return cached / total


def test_the_set_is_big_and_varied():
    defects = [r for r in REGISTRY if r[2]]
    clean = [r for r in REGISTRY if not r[2]]
    assert len(defects) >= 40 and len(clean) >= 9
    kinds = Counter(r[1] for r in REGISTRY)
    assert set(kinds) == {"messages", "prompt", "input_ids"}
    assert min(kinds.values()) >= 0.15 * len(REGISTRY), kinds
    classes = Counter(c for r in defects for c in r[2])
    assert classes["dynamic"] >= 10 and classes["order"] >= 6 and classes["placement"] >= 5, classes
    assert sum(1 for r in defects if len(r[2]) > 1) >= 3
    assert len({heldout11.CREW_OF[r[0]].key for r in REGISTRY}) == 8
    assert len(workload_names()) == len(set(workload_names()))


def test_no_name_repeats_an_earlier_set():
    from tests.diagnose import heldout, heldout2, heldout3, heldout4, heldout5, heldout6, heldout7, heldout8, heldout9

    earlier = {r[0] for m in (heldout, heldout2, heldout3, heldout4, heldout5, heldout6, heldout7, heldout8, heldout9)
               for r in m.REGISTRY}
    assert not earlier & set(workload_names())


def test_the_set_is_served_as_analyze_serves_it():
    assert ANALYZE_ARGS[:4] == ("--engine", "vllm", "--tokenizer", "qwen3")
    assert ANALYZE_ARGS[5].endswith("tests/chat_templates/qwen3.jinja")
    with pytest.raises(ValueError):
        build_workloads(12, Engine(), SAMPLE[:1])  # Llama 3 tokens are not this set's


def test_the_layout_is_qwen3s_as_vllm_renders_it(engine):
    # Tools inside the system turn after the system text.
    rec = unmark(build_pairs("sensor-dump-in-system-ahead-of-tools", 12)[0][0])
    text = engine.text(rec)
    system = rec["messages"][0]["content"]
    assert text.startswith("<|im_start|>system\n" + system + "\n\n# Tools")
    assert text.index("<tools>") > len(system) and text.index("</tools>") < text.index("<|im_start|>user")
    # Content parts are joined by newlines into one string.
    rec = unmark(build_pairs("humidity-first-content-part", 12)[0][0])
    joined = "\n".join(p["text"] for p in rec["messages"][1]["content"])
    assert "<|im_start|>user\n" + joined + "<|im_end|>" in engine.text(rec)
    # A null-content tool call and its result as a <tool_response> inside a user turn.
    rec = unmark(build_pairs("case-id-in-canned-call-arguments", 12)[0][0])
    text = engine.text(rec)
    assert "<|im_start|>assistant\n<tool_call>\n{\"name\": \"case_file\"" in text
    assert "<|im_start|>user\n<tool_response>\n" in text


def test_earlier_reasoning_is_dropped_and_the_loops_keep_theirs(engine):
    pairs = build_pairs("call-reasoning-dropped-after-next-turn", 12)
    loop = next(unmark(o) for o, _ in pairs
                if sum(m["role"] == "user" for m in o["messages"]) == 1 and o["messages"][-1]["role"] == "tool")
    later = next(unmark(o) for o, _ in pairs if sum(m["role"] == "user" for m in o["messages"]) >= 2)
    assert "<think>" in engine.text(loop)
    later_text = engine.text(later)
    last_user = later["messages"][max(k for k, m in enumerate(later["messages"]) if m["role"] == "user")]["content"]
    assert "<think>" not in later_text[:later_text.index(last_user)]
    # Without the reasoning sent back, a loop's requests hold no <think> block either.
    for _, f in pairs:
        assert "<think>" not in engine.text(f)


def test_generation_is_deterministic_and_seeded(engine, sample):
    again = build_workloads(12, engine, SAMPLE[:1])
    for b in again:
        a = sample[b.name]
        assert (a.records, a.fixed, a.offsets, a.unit_offsets) == (b.records, b.fixed, b.offsets, b.unit_offsets)
    assert build_pairs(SAMPLE[0], 13) != build_pairs(SAMPLE[0], 12)


def test_records_are_clean_and_of_the_declared_kind(sample):
    for w in sample.values():
        assert 20 <= len(w.records) <= 100 and len(w.fixed) == len(w.records), w.name
        text = json.dumps(w.records + w.fixed, ensure_ascii=False)
        for m in (MARK, UNIT, SKIP, HINT):
            assert m not in text and json.dumps(m)[1:-1] not in text, w.name
        key = {"messages": "messages", "prompt": "prompt", "input_ids": "input_ids"}[w.kind]
        assert all(key in r for r in w.records + w.fixed), w.name


def test_request_counts_and_system_sizes_are_in_range(engine):
    sizes = {name: len(build_pairs(name, 12)) for name in workload_names()}
    assert all(20 <= n <= 100 for n in sizes.values()), sizes
    assert min(sizes.values()) <= 45 and max(sizes.values()) >= 75, sizes
    for name in ("inspector-deep-in-system-ids", "volunteers-deep-in-4k-system-ids", "station-tools-shuffled",
                 "clean-cellar-handbook-ids"):
        o, _ = build_pairs(name, 12)[0]
        n = len(engine.tok.encode(unmark(o)["messages"][0]["content"]))
        assert 1000 <= n <= 4000, (name, n)


@pytest.mark.parametrize("name, lo, hi", [("station-observer-first-token", 0.04, 0.25),
                                          ("job-number-first-token-plain-prompt", 0.12, 0.4),
                                          ("call-reasoning-dropped-after-next-turn", 0.2, 0.7)])
def test_some_requests_lack_the_defect(engine, name, lo, hi):
    pairs = build_pairs(name, 12)
    marks = [marked(engine, o)[1] for o, _ in pairs]
    lacking = sum(1 for m in marks if m[0] is None) / len(marks)
    assert lo <= lacking <= hi, (name, lacking)
    for (o, f), m in zip(pairs, marks):
        if m[0] is None and name != "call-reasoning-dropped-after-next-turn":  # its own fix
            assert engine.ids(unmark(o)) == engine.ids(f if isinstance(f, dict) else f[0]), name


def test_sessions_vary_in_length():
    pairs = build_pairs("clean-sessions-answer-reasoning-dropped", 12)
    turns = Counter(sum(1 for m in o["messages"] if m["role"] == "user") for o, _ in pairs)
    assert min(turns) == 1 and max(turns) >= 6, turns


def test_every_planted_defect_is_where_requests_stop_agreeing(engine, sample):
    for name in SAMPLE:
        w = sample[name]
        if not w.expect or name == "call-reasoning-dropped-after-next-turn":  # sessions: its own test below
            continue
        rows = [marked(engine, o) for o, _ in build_pairs(name, 12)]
        for k in range(len(w.expect)):
            carrying = [(array("I", ids).tobytes(), m[k]) for ids, m, _ in rows if m[k] is not None]
            parted = 0
            for a, (raw, at) in enumerate(carrying):
                assert at is not None
                shared = [lcp(raw, other) for b, (other, _) in enumerate(carrying) if b != a]
                if k == 0:
                    assert max(shared) >= at, (name, a, max(shared), at)  # all ahead of it is shared
                if a:
                    parted += at - 1 <= shared[a - 1] <= at + 12  # where it parts from the one before
            need = 0 if k else 1 if name in PLACES else 0.3 * len(carrying)
            assert parted >= need, (name, k, parted, len(carrying))


def test_reasoning_marks_sit_where_a_later_turn_parts_from_the_loop(engine):
    pairs = build_pairs("call-reasoning-dropped-after-next-turn", 12)
    rows = []
    for o, _ in pairs:
        ids, m, _u = marked(engine, o)
        rows.append((array("I", ids).tobytes(), m[0], sum(x["role"] == "user" for x in o["messages"])))
    checked = 0
    for j, (raw, at, turns) in enumerate(rows):
        if at is None:
            continue
        # Against the previous turn's requests (its loop printed <think> where this one prints
        # the call), the longest shared prefix ends at the mark.
        shared = [lcp(raw, other) for other, _, t in rows[:j] if t == turns - 1]
        assert shared and max(shared) == at, (j, at, max(shared, default=None))
        checked += 1
    assert checked >= 15


def test_the_fix_gains_and_controls_are_their_own_fix(engine, sample):
    for w in sample.values():
        before, after = _rate(engine, w.records), _rate(engine, w.fixed)
        if w.expect:
            assert after > before + 0.02, (w.name, before, after)
        else:
            assert w.records == w.fixed, w.name


def test_the_tool_marks_sit_at_the_first_tool_name(engine, sample):
    w = sample["station-tools-shuffled"]
    pairs = build_pairs(w.name, 12)
    firsts = [unmark(o)["tools"][0]["function"]["name"] for o, _ in pairs]
    ids = [engine.ids(unmark(o)) for o, _ in pairs]
    b = next(j for j in range(len(firsts)) if firsts[j] != firsts[0])
    mark = marked(engine, pairs[0][0])[1][0]
    assert mark is not None
    common = next(n for n, (x, y) in enumerate(zip(ids[0], ids[b])) if x != y)
    assert abs(common - mark) <= 1, (common, mark)
    assert w.unit_offsets[0] < w.offsets[0]


@pytest.mark.parametrize("name, place", [("lake-stage-in-first-tool-description", START_USER),
                                         ("wind-in-priming-tool-result", END_USER),
                                         ("danger-level-one-token", END_SYSTEM)])
def test_the_truth_uses_the_better_measured_place(engine, name, place):
    w = build_workloads(12, engine, [name])[0]
    best, rates = CHOSEN[name]
    assert PLACES[name][best] == place, (name, rates)
    assert rates[best] == max(rates) and _rate(engine, w.fixed) == rates[best]
    assert f"truth: {place}" in w.notes


def test_oracle_agrees_exactly_with_analyze(cli, tmp_path, engine, sample):
    for name in SAMPLE[:7]:
        w = sample[name]
        for label, records in (("orig", w.records), ("fixed", w.fixed)):
            path = tmp_path / f"{w.name}.{label}.jsonl"
            write_jsonl(records, path)
            res = cli("analyze", str(path), *ANALYZE_ARGS, "--format", "json", "--no-diagnose")
            assert res.code == 0, res.err
            report = json.loads(res.out)
            assert (report["cached_tokens"], report["prompt_tokens"]) == oracle(engine.ids(r) for r in records), \
                (w.name, label)


def _shift_last(record: dict[str, Any]) -> dict[str, Any]:
    g = json.loads(json.dumps(record))
    system, shift = g["messages"][0]["content"].rsplit("\n\n", 1)
    g["messages"][0]["content"] = system
    g["messages"][-1]["content"] += "\n\n" + shift
    return g


def _no_reasoning(record: dict[str, Any]) -> dict[str, Any]:
    g = json.loads(json.dumps(record))
    for m in g["messages"]:
        m.pop("reasoning_content", None)
    return g


# The tempting controls: what tempts, "fixed", gains under 1%, so a finding there is a false one.
@pytest.mark.parametrize("name, tempted", [("clean-dispatch-shift-at-end-of-system", _shift_last),
                                           ("clean-sessions-answer-reasoning-dropped", _no_reasoning)])
def test_no_control_hides_a_fix_worth_one_percent(engine, name, tempted):
    records = [unhinted(o) for o, _ in build_pairs(name, 12)]
    other = [tempted(r) for r in records]
    assert other != records
    assert _rate(engine, other) - _rate(engine, records) < 0.01, name
