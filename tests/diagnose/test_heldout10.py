"""The tenth held-out set's generator and truth, checked against themselves and `advisor analyze`.

Nothing here asserts the detector's findings or predictions: bench/diagnose_heldout.py --set
heldout10 reports those. These tests make sure the set is served as it says (the gpt-oss harmony
layout through the chat template, cl100k ids, the same ids `advisor analyze --tokenizer cl100k
--chat-template tests/chat_templates/gpt_oss.jinja` counts), that the planted offsets and the truth
the bench compares with are right, that the noise is there, and that the set stays deterministic
and varied.
"""

from __future__ import annotations

import json
from array import array
from collections import Counter

import pytest

from tests.diagnose import heldout10
from tests.diagnose.heldout import MARK, UNIT, Engine, lcp, oracle, write_jsonl
from tests.diagnose.heldout10 import (
    ANALYZE_ARGS, CHOSEN, END_DEV, END_USER, HINT, PLACES, REGISTRY, SKIP, START_USER, build_pairs, build_workloads,
    harmony_engine, marked, unhinted, unmark, workload_names,
)

# Each kind and class: the template's date, a tool description, a parameter enum, a priming
# result, a raw harmony prompt, a plain prompt, shuffled tools, sessions, two defects, controls.
SAMPLE = ["template-date-four-days-static-tools", "vault-snapshot-in-third-tool-description",
          "tonights-performances-as-enum", "booking-ref-deep-in-raw-harmony-prompt", "turbine-id-first-token-ids",
          "prior-art-tools-shuffled", "notes-user-turn-ahead-of-system-message",
          "template-date-and-courier-tools-shuffled", "clean-leak-agent-loops-one-day",
          "clean-static-tools-one-day-ids"]


@pytest.fixture(scope="module")
def engine() -> Engine:
    return harmony_engine()


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
    assert classes["dynamic"] >= 18 and classes["order"] >= 10 and classes["placement"] >= 6, classes
    assert sum(1 for r in defects if len(r[2]) > 1) >= 5
    assert len({heldout10.TEAM_OF[r[0]].key for r in REGISTRY}) == 9
    assert len(workload_names()) == len(set(workload_names()))


def test_no_name_repeats_an_earlier_set():
    from tests.diagnose import (
        heldout, heldout2, heldout3, heldout4, heldout5, heldout6, heldout7, heldout8, heldout9,
    )

    earlier = {r[0] for m in (heldout, heldout2, heldout3, heldout4, heldout5, heldout6, heldout7, heldout8, heldout9)
               for r in m.REGISTRY}
    assert not earlier & set(workload_names())


def test_the_set_is_served_as_analyze_serves_it():
    assert ANALYZE_ARGS[:2] == ("--tokenizer", "cl100k") and ANALYZE_ARGS[2] == "--chat-template"
    assert ANALYZE_ARGS[3].endswith("tests/chat_templates/gpt_oss.jinja")
    with pytest.raises(ValueError):
        build_workloads(12, Engine(), SAMPLE[:1])  # Llama 3 tokens are not this set's


def test_the_harmony_layout_is_the_one_the_docstring_describes(engine):
    rec = unmark(build_pairs("template-date-four-days-static-tools", 12)[0][0])
    text = engine.text(rec)
    system = rec["messages"][0]["content"]
    assert text.startswith("<|start|>system<|message|>You are ChatGPT")
    stamp = heldout10.day(rec["timestamp"]).strftime("%Y-%m-%d")
    assert f"Current date: {stamp}\n" in text.split("<|end|>")[0]
    dev = text.index("<|start|>developer<|message|># Instructions\n\n" + system)
    tools = text.index("# Tools\n\n## functions\n\nnamespace functions {")
    assert dev < tools < text.index("<|start|>user<|message|>")
    first = rec["tools"][0]["function"]
    assert f"// {first['description']}\ntype {first['name']} = (_: {{" in text
    # The date follows the request's timestamp; a record without one prints a fixed date.
    later = dict(rec, timestamp=rec["timestamp"] + 2 * 86400)
    assert engine.text(later) != text
    assert engine.text(heldout10.pinned(rec)) == engine.text(heldout10.pinned(later))
    # Agent turns: a call on the commentary channel, its result as a functions.* turn.
    loop = next(unmark(o) for o, _ in build_pairs("leak-tools-shuffled-per-agent-task", 12)
                if len(o["messages"]) > 3)
    t = engine.text(loop)
    assert "<|start|>assistant to=functions.get_incident<|channel|>commentary json<|message|>" in t
    assert "<|start|>functions.get_incident to=assistant<|channel|>commentary<|message|>" in t
    # An enum is a TypeScript union.
    enum = unmark(build_pairs("isolation-enum-values-shuffled", 12)[0][1])
    assert 'isolation?: "electrical" | "mechanical" | "hydraulic"' in engine.text(enum)


def test_a_user_turn_first_leaves_no_developer_turn(engine):
    o, f = build_pairs("notes-user-turn-ahead-of-system-message", 12)[0]
    text = engine.text(unmark(o))
    assert "<|start|>developer" not in text
    assert text.index("<|start|>user") < text.index("<|start|>system<|message|>" + o["messages"][1]["content"])
    assert "<|start|>developer<|message|># Instructions" in engine.text(f)


def test_generation_is_deterministic_and_seeded(engine, sample):
    again = build_workloads(12, engine, SAMPLE[:2])
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


def test_request_counts_and_sizes_are_in_range(engine):
    sizes = {name: len(build_pairs(name, 12)) for name in workload_names()}
    assert all(20 <= n <= 100 for n in sizes.values()), sizes
    assert min(sizes.values()) <= 50 and max(sizes.values()) >= 80, sizes
    for name, lo, hi in (("template-date-four-days-static-tools", 1000, 2500), ("examiner-3k-deep-ids", 3000, 4000)):
        o, _ = build_pairs(name, 12)[0]
        n = len(engine.tok.encode(unmark(o)["messages"][0]["content"]))
        assert lo <= n <= hi, (name, n)


def test_timestamps_span_days_only_where_the_date_is_the_defect(engine):
    for name, kind, _expect, *_ in REGISTRY:
        pairs = build_pairs(name, 12)
        days = {int(o["timestamp"] // 86400) for o, _ in pairs if "timestamp" in o and kind != "prompt"}
        template_date = any(heldout10.DATE_HINT in o.get(HINT, ()) for o, _ in pairs)
        assert (len(days) > 1) == template_date, name
        if template_date:  # the fix pins the date: no fixed record carries a clock
            assert all("timestamp" not in (f if isinstance(f, dict) else f[0]) for _, f in pairs), name


def test_some_requests_lack_the_defect(engine):
    pairs = build_pairs("open-zones-in-parameter-description", 12)
    marks = [marked(engine, o)[1] for o, _ in pairs]
    lacking = sum(1 for m in marks if m[0] is None) / len(marks)
    assert 0.05 <= lacking <= 0.4, lacking
    for (o, f), m in zip(pairs, marks):
        if m[0] is None:
            assert engine.ids(unmark(o)) == engine.ids(f if isinstance(f, dict) else f[0])


def test_sessions_vary_in_length():
    pairs = build_pairs("client-history-ahead-of-handbook-sessions", 12)
    turns = Counter(sum(1 for m in o["messages"] if m["role"] == "user") for o, _ in pairs)
    assert min(turns) == 1 and max(turns) >= 5, turns


def test_every_planted_defect_is_where_requests_stop_agreeing(engine, sample):
    for name in SAMPLE:
        w = sample[name]
        if not w.expect:
            continue
        rows = [marked(engine, o) for o, _ in build_pairs(name, 12)]
        for k in range(len(w.expect)):
            carrying = [(array("I", ids).tobytes(), m[k]) for ids, m, _ in rows if m[k] is not None]
            parted = 0
            for a, (raw, at) in enumerate(carrying):
                assert at is not None
                shared = [lcp(raw, other) for b, (other, _) in enumerate(carrying) if b != a]
                if k == 0:  # everything ahead of the first defect is shared with another request
                    assert max(shared) >= at, (name, a, max(shared), at)
                if a:
                    parted += at - 1 <= shared[a - 1] <= at + 12
            # A value in force for several requests in a row (a date, an hourly snapshot) parts from
            # its neighbour only when it changes; a later defect sits where requests already parted.
            need = 0 if k else 1 if name in PLACES or "date" in name else 0.3 * len(carrying)
            assert parted >= need, (name, k, parted, len(carrying))


def test_the_fix_gains_and_controls_are_their_own_fix(engine, sample):
    for w in sample.values():
        before, after = _rate(engine, w.records), _rate(engine, w.fixed)
        if w.expect:
            assert after > before + 0.005, (w.name, before, after)
        else:
            assert w.records == w.fixed, w.name


def test_the_tool_mark_sits_where_shuffled_tools_part(engine, sample):
    pairs = build_pairs("prior-art-tools-shuffled", 12)
    firsts = [o["tools"][0]["function"]["name"] for o, _ in pairs]
    ids = [engine.ids(unmark(o)) for o, _ in pairs]
    b = next(j for j in range(len(firsts)) if firsts[j] != firsts[0])
    mark = marked(engine, pairs[0][0])[1][0]
    assert mark is not None
    common = next(n for n, (x, y) in enumerate(zip(ids[0], ids[b])) if x != y)
    assert abs(common - mark) <= 1, (common, mark)


@pytest.mark.parametrize("name, place", [("tonights-performances-as-enum", START_USER),
                                         ("dma-code-in-plain-prompt", END_USER),
                                         ("icelandic-date-mid-instructions", END_DEV),
                                         ("account-record-ahead-of-rules-ids", END_USER)])
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


def test_unhinted_drops_only_the_hint():
    o, _ = build_pairs("template-date-four-days-static-tools", 12)[0]
    assert HINT in o and HINT not in unhinted(o) and set(o) - set(unhinted(o)) == {HINT}
