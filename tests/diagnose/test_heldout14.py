"""The fourteenth held-out set's generator and truth, checked against themselves and `advisor analyze`.

Nothing here asserts the detector's findings or predictions: bench/diagnose_heldout.py
--set heldout14 reports those. These tests make sure the set is served as it says (Mistral
Instruct v0.3's chat template under SGLang, v3 SentencePiece ids, the same ids `advisor analyze`
with the set's ANALYZE_ARGS counts), that the planted offsets and the truth the bench compares
with are right, that the noise is there, and that the set stays deterministic and varied.
"""

from __future__ import annotations

import json
from array import array
from collections import Counter
from pathlib import Path
from typing import Any, Callable

import pytest

from advisor.ingest.source import make_renderer
from advisor.ingest.traffic import parse_record

from tests.diagnose import heldout14
from tests.diagnose.heldout import MARK, UNIT, Engine, lcp, oracle, write_jsonl
from tests.diagnose.heldout14 import (
    ANALYZE_ARGS, CHOSEN, CONFIG, END_SYSTEM, FIRST_TOOL, HINT, PLACES, REGISTRY, SKIP, UNIT_HINT, build_pairs,
    build_workloads, marked, mistral_engine, token_ends, unhinted, unmark, workload_names,
)

LOOPS = {"age-seconds-in-agent-tool-results"}
TEMPLATE = Path(__file__).resolve().parents[1] / "chat_templates" / "mistral.jinja"

# Each kind and class: the first token of a prompt, a tool description, an agent loop's tool
# results, content parts, an [INST] prompt, shuffled tools, sessions with a system message, an
# agent loop losing its system text, three defects, tempting controls.
SAMPLE = ["seeing-first-line-of-system-ids", "cloud-cover-in-first-tool-description", "age-seconds-in-agent-tool-results",
          "booking-ref-middle-content-part", "nonce-first-token-plain-prompt", "observatory-tools-shuffled",
          "sessions-system-after-history", "agent-loops-system-dropped-after-first-step", "three-defects-tools-date-ref",
          "clean-cellar-shift-before-question", "clean-sessions-instructions-open-first-turn"]


@pytest.fixture(scope="module")
def engine() -> Engine:
    return mistral_engine()


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
    assert kinds["messages"] <= 0.65 * len(REGISTRY) and min(kinds.values()) >= 0.15 * len(REGISTRY), kinds
    classes = Counter(c for r in defects for e in r[2] for c in e.split("|"))
    assert classes["dynamic"] >= 15 and classes["order"] >= 10 and classes["placement"] >= 7, classes
    several = [r for r in defects if len(r[2]) > 1]
    assert len(several) >= 5 and max(len(r[2]) for r in several) == 3
    assert len({heldout14.TRADE_OF[r[0]].key for r in REGISTRY}) == 7
    assert len(workload_names()) == len(set(workload_names()))


def test_no_name_repeats_an_earlier_set():
    from tests.diagnose import (
        heldout, heldout2, heldout3, heldout4, heldout5, heldout6, heldout7, heldout8, heldout9, heldout10, heldout11,
        heldout12, heldout13,
    )

    earlier = {r[0] for m in (heldout, heldout2, heldout3, heldout4, heldout5, heldout6, heldout7, heldout8, heldout9,
                              heldout10, heldout11, heldout12, heldout13) for r in m.REGISTRY}
    assert not earlier & set(workload_names())


def test_the_set_is_served_as_analyze_serves_it():
    assert ANALYZE_ARGS == ("--tokenizer", "mistral-v3", "--chat-template", "tests/diagnose/heldout14_mistral_config.json")
    assert (Path(__file__).resolve().parents[2] / ANALYZE_ARGS[3]).resolve() == CONFIG
    # The config is the test template verbatim, with the model's special tokens.
    config = json.loads(CONFIG.read_text(encoding="utf-8"))
    assert config["chat_template"] == TEMPLATE.read_text(encoding="utf-8")
    assert (config["bos_token"], config["eos_token"], config["unk_token"]) == ("<s>", "</s>", "<unk>")
    with pytest.raises(ValueError):
        build_workloads(12, Engine(), SAMPLE[:1])  # Llama 3 tokens are not this set's


def test_the_config_renders_as_the_bare_template_where_that_renders(engine):
    # The bare .jinja has no eos_token; a one-turn chat, which needs none, renders alike.
    bare = make_renderer("mistral-v3", TEMPLATE, None, [])
    for name in ("observatory-tools-shuffled", "clean-static-manual-v3-ids", "booking-ref-middle-content-part"):
        for o, _ in build_pairs(name, 12)[:3]:
            r = unhinted(unmark(o))
            assert bare.text_of(parse_record(r, "t", 1)) == engine.text(r), name


def test_the_layout_moves_tools_and_system_text_to_the_last_user_turn(engine):
    one = unmark(unhinted(build_pairs("observatory-tools-shuffled", 12)[0][0]))
    text = engine.text(one)
    desc = one["tools"][0]["function"]["description"]
    assert text.startswith(FIRST_TOOL + '{"type": "function", "function": {"description": "' + desc, len("<s>"))
    system, q = one["messages"][0]["content"], one["messages"][1]["content"]
    assert text.endswith("[/AVAILABLE_TOOLS][INST] " + system + "\n\n" + q + "[/INST]")
    pairs = build_pairs("sessions-system-and-tools-after-history", 12)
    later = next(unmark(o) for o, _ in pairs if sum(m["role"] == "user" for m in o["messages"]) >= 3)
    text = engine.text(later)
    msgs = later["messages"]
    assert text.startswith("<s>[INST] " + msgs[1]["content"] + "[/INST] ")  # the history first
    assert text.count("[AVAILABLE_TOOLS]") == 1 and text.index("[AVAILABLE_TOOLS]") > text.index(msgs[-2]["content"])
    assert text.count(msgs[0]["content"]) == 1 and text.endswith(msgs[0]["content"] + "\n\n" + msgs[-1]["content"] + "[/INST]")
    # An agent step that ends on a tool result carries no system text at all.
    steps = [unmark(o) for o, _ in build_pairs("agent-loops-system-dropped-after-first-step", 12)]
    first, second = steps[0], steps[1]
    assert first["messages"][0]["content"] in engine.text(first)
    assert second["messages"][-1]["role"] == "tool" and second["messages"][0]["content"] not in engine.text(second)


def test_token_ends_add_up_to_the_text(engine):
    text = engine.text(unmark(unhinted(build_pairs("georgian-notice-after-first-line", 12)[0][0])))
    ids, ends = token_ends(engine, text)
    assert len(ids) == len(ends) and ends[-1] == len(text.encode()) and ends == sorted(ends)
    # A prefix that ends on a token boundary encodes to those tokens.
    cut = ends[40]
    assert engine.tok.encode(text.encode()[:cut].decode())[:30] == ids[:30]


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
        for m in (MARK, UNIT, SKIP, HINT, UNIT_HINT):
            assert m not in text and json.dumps(m)[1:-1] not in text, w.name
        key = {"messages": "messages", "prompt": "prompt", "input_ids": "input_ids"}[w.kind]
        assert all(key in r for r in w.records + w.fixed), w.name


def test_request_counts_depths_and_system_sizes_are_in_range(engine):
    sizes = {name: len(build_pairs(name, 12)) for name in workload_names()}
    assert all(20 <= n <= 100 for n in sizes.values()), sizes
    assert min(sizes.values()) <= 45 and max(sizes.values()) >= 80, sizes
    for name, lo, hi in (("seeing-first-line-of-system-ids", 1500, 2500), ("blast-window-3k-deep-ids", 3000, 4000),
                         ("clean-cellar-shift-before-question", 1000, 2500), ("content-parts-shuffled", 400, 1000)):
        o, _ = build_pairs(name, 12)[0]
        n = len(engine.tok.encode(unmark(o)["messages"][0]["content"]))
        assert lo <= n <= hi, (name, n)
    deep = marked(engine, build_pairs("blast-window-3k-deep-ids", 12)[0][0])[1][0]
    assert deep is not None and deep >= 2700


@pytest.mark.parametrize("name, lo, hi", [("seeing-first-line-of-system-ids", 0.03, 0.2),
                                          ("sessions-system-after-history", 0.15, 0.5),
                                          ("agent-loops-system-dropped-after-first-step", 0.15, 0.5),
                                          ("age-seconds-in-agent-tool-results", 0.15, 0.5)])
def test_some_requests_lack_the_defect(engine, name, lo, hi):
    pairs = build_pairs(name, 12)
    marks = [marked(engine, o)[1] for o, _ in pairs]
    lacking = sum(1 for m in marks if m[0] is None) / len(marks)
    assert lo <= lacking <= hi, (name, lacking)
    for (o, f), m in zip(pairs, marks):
        if m[0] is None:  # a request without the defect is its own fix
            assert engine.ids(unmark(o)) == engine.ids(f if isinstance(f, dict) else f[0]), name


def test_sessions_vary_in_length():
    pairs = build_pairs("clean-sessions-instructions-open-first-turn", 12)
    turns = Counter(sum(1 for m in o["messages"] if m["role"] == "user") for o, _ in pairs)
    assert min(turns) == 1 and max(turns) == 7, turns


def test_every_planted_defect_is_where_requests_stop_agreeing(engine, sample):
    for name in SAMPLE:
        w = sample[name]
        if not w.expect:
            continue
        rows = [marked(engine, o) for o, _ in build_pairs(name, 12)]
        for k in range(len(w.expect)):
            carrying = [(array("I", ids).tobytes(), m[k]) for ids, m, _ in rows if m[k] is not None]
            parted = ahead = 0
            for a, (raw, at) in enumerate(carrying):
                assert at is not None
                shared = [lcp(raw, other) for b, (other, _) in enumerate(carrying) if b != a]
                if k == 0:  # everything ahead of the first defect is shared with another request
                    ahead += max(shared) >= at
                    # (in an agent loop the call ahead of the first result is new in a loop's last step)
                    assert max(shared) >= at or name in LOOPS, (name, a, max(shared), at)
                if a:
                    parted += at - 1 <= shared[a - 1] <= at + 12  # where it parts from the one before
            assert ahead >= (0.6 if name in LOOPS else 1.0) * len(carrying) or k, (name, ahead, len(carrying))
            # A value in force for several requests in a row parts from its neighbour only when it
            # changes; a later defect sits where the requests have already parted at the first.
            need = 0 if k else 1 if name in PLACES else 0.3 * len(carrying)
            assert parted >= need, (name, k, parted, len(carrying))


def test_the_fix_gains_and_controls_are_their_own_fix(engine, sample):
    for w in sample.values():
        before, after = _rate(engine, w.records), _rate(engine, w.fixed)
        if w.expect:
            assert after > before + 0.02, (w.name, before, after)
        else:
            assert w.records == w.fixed, w.name


def test_the_tool_marks_sit_where_the_first_descriptions_part(engine, sample):
    w = sample["observatory-tools-shuffled"]
    pairs = build_pairs(w.name, 12)
    firsts = [unmark(o)["tools"][0]["function"]["name"] for o, _ in pairs]
    ids = [engine.ids(unmark(o)) for o, _ in pairs]
    a = 0
    b = next(j for j in range(len(firsts)) if firsts[j] != firsts[a])
    c = next((j for j in range(1, len(firsts)) if firsts[j] == firsts[a]), None)
    mark = marked(engine, pairs[a][0])[1][0]
    assert mark is not None
    common = next(n for n, (x, y) in enumerate(zip(ids[a], ids[b])) if x != y)
    assert abs(common - mark) <= 1, (common, mark)
    if c is not None:
        assert ids[a][:mark + 40] == ids[c][:mark + 40]  # the same first tool shares far past it
    assert w.unit_offsets[0] < w.offsets[0]


@pytest.mark.parametrize("name", ["cloud-cover-in-first-tool-description", "georgian-notice-after-first-line",
                                  "tagalog-date-plain-prompt", "daily-bulletin-ahead-of-manual-inst"])
def test_the_truth_uses_the_better_measured_place(engine, name):
    w = build_workloads(12, engine, [name])[0]
    best, rates = CHOSEN[name]
    assert rates[best] == max(rates) and _rate(engine, w.fixed) == rates[best]
    assert f"truth: {PLACES[name][best]}" in w.notes
    assert best == 0 and PLACES[name][0] in (END_SYSTEM, "after the manual"), (name, rates)


def test_oracle_agrees_exactly_with_analyze(cli, tmp_path, engine, sample):
    for name in SAMPLE[:9]:
        w = sample[name]
        for label, records in (("orig", w.records), ("fixed", w.fixed)):
            path = tmp_path / f"{w.name}.{label}.jsonl"
            write_jsonl(records, path)
            res = cli("analyze", str(path), *ANALYZE_ARGS, "--format", "json", "--no-diagnose")
            assert res.code == 0, res.err
            report = json.loads(res.out)
            assert report["requests"] == len(records), (w.name, label)  # nothing skipped
            assert (report["cached_tokens"], report["prompt_tokens"]) == oracle(engine.ids(r) for r in records), \
                (w.name, label)


def _shift_last(record: dict[str, Any]) -> dict[str, Any]:
    g = json.loads(json.dumps(record))
    system, shift = g["messages"][0]["content"].rsplit("\n\n", 1)
    g["messages"][0]["content"] = system
    g["messages"][1]["content"] += "\n\n" + shift
    return g


def _instructions_as_system(record: dict[str, Any]) -> dict[str, Any]:
    g = json.loads(json.dumps(record))
    head, q = g["messages"][0]["content"].rsplit("\n\n", 1)
    g["messages"][0]["content"] = q
    g["messages"].insert(0, {"role": "system", "content": head})
    return g


def _caption_last(record: dict[str, Any]) -> dict[str, Any]:
    g = json.loads(json.dumps(record))
    parts = g["messages"][0]["content"]
    g["messages"][0]["content"] = [parts[0], parts[2], parts[1]]
    return g


def _date_after_answer_cue(record: dict[str, Any]) -> dict[str, Any]:
    text = record["prompt"]
    body, date = text.rsplit("\nData: ", 1)
    return record | {"prompt": body + "\nA: \nData: " + date[: -len("\nA:")]}


# The tempting controls: what tempts, changed, gains under 1%, so a finding there is a false one.
@pytest.mark.parametrize("name, tempted", [("clean-cellar-shift-before-question", _shift_last),
                                           ("clean-sessions-instructions-open-first-turn", _instructions_as_system),
                                           ("clean-static-part-then-varying-parts", _caption_last),
                                           ("clean-date-changes-once-plain", _date_after_answer_cue)])
def test_no_control_hides_a_fix_worth_one_percent(engine, name, tempted: Callable[[dict], dict]):
    records = [unhinted(o) for o, _ in build_pairs(name, 12)]
    other = [tempted(r) for r in records]
    assert other != records
    assert _rate(engine, other) - _rate(engine, records) < 0.01, name


def test_a_fresh_call_id_parts_requests_where_the_template_prints_it(engine):
    pairs = build_pairs("fresh-call-id-in-canned-priming-call", 12)[:2]
    (ids_a, marks_a, _), (ids_b, _, _) = (marked(engine, o) for o, _ in pairs)
    text = engine.text(unmark(pairs[0][0]))
    cid = pairs[0][0]["messages"][2]["tool_calls"][0]["id"]
    assert text.count(cid) == 2  # in the call and in its result
    common = next(n for n, (x, y) in enumerate(zip(ids_a, ids_b)) if x != y)
    assert marks_a[0] is not None and abs(common - marks_a[0]) <= 1
    fixed = [f for _, f in pairs]
    assert isinstance(fixed[0], dict) and engine.ids(fixed[0])[:common + 200] == engine.ids(fixed[1])[:common + 200]


def test_disjoint_defects_of_sessions_with_a_clocked_system_message(engine):
    for o, _ in build_pairs("sessions-system-with-clock-ids", 12):
        turns = sum(1 for m in o["messages"] if m["role"] == "user")
        placement, dynamic = marked(engine, o)[1]
        if turns == 1:  # a first turn: only the clock parts it from other sessions' first turns
            assert placement is None and dynamic is not None and dynamic <= 8
        else:  # a later turn: the history is ahead of the system text
            assert dynamic is None and placement is not None and placement <= 4
