"""The fifteenth held-out set's generator and truth, checked against themselves and `advisor analyze`.

Nothing here asserts the detector's findings or predictions: bench/diagnose_heldout.py --set heldout15
reports those. These tests make sure the set is served as it says (Gemma 3's chat template through
vLLM's request preprocessing, Llama 3 ids, the same ids `advisor render` and `advisor analyze
--engine vllm --chat-template tests/chat_templates/gemma3.jinja` count, no line skipped), that the
planted offsets and the truth the bench compares with are right, that the noise is there, and that
the set stays deterministic and varied.
"""

from __future__ import annotations

import json
import sys
from array import array
from collections import Counter
from pathlib import Path
from typing import Any, Callable

import pytest

from advisor.ingest.tokenizers import load_tokenizer

from tests.diagnose import heldout15
from tests.diagnose.heldout import MARK, UNIT, Engine, lcp, oracle, write_jsonl
from tests.diagnose.heldout15 import (
    AFTER_SHARED, ANALYZE_ARGS, CHOSEN, END_SYSTEM, END_USER, PLACES, REGISTRY, SKIP, START_LAST, UNIT_HINT,
    build_pairs, build_workloads, gemma_engine, gm, marked, unhinted, unmark, workload_names,
)

ROOT = Path(__file__).resolve().parents[2]
BOS = "<|begin_of_text|>"

# Each kind and class: the first text after the BOS, a date line opening the first user turn, a
# value in a JSON tool schema, a session line right behind the system text, a canned model reply,
# ages re-rendered into history, a canned tool output, user content parts, shuffled JSON tools,
# shuffled python signatures, per-session rules, a manifest sent as the system message, sessions
# with instructions last, three defects, tempting controls.
SAMPLE = ["trace-id-first-text-plain-prompt", "icelandic-date-line-opens-system-ids", "trucks-on-shift-in-json-tool-schema",
          "collection-session-line-opens-first-user-turn", "workshop-humidity-in-canned-model-reply",
          "relative-ages-rerendered-in-earlier-model-turns", "generated-at-in-canned-tool-output-turn",
          "enquiry-ref-first-of-three-user-parts", "tool-schemas-pretty-json-array-shuffled", "python-signatures-shuffled",
          "house-rules-bullets-drawn-once-per-session", "passenger-manifest-as-system-instructions-in-user-turn",
          "instructions-appended-to-last-user-turn-of-sessions", "manifest-first-surface-wind-and-sites-shuffled",
          "clean-values-only-in-fields-the-template-drops", "clean-shift-opens-user-turn-right-after-system",
          "clean-agent-loops-tool-code-and-output-turns"]
# Requests each defect's value stays in force for, so that only its changes part neighbours.
RUNS = {"icelandic-date-line-opens-system-ids", "collection-session-line-opens-first-user-turn",
        "workshop-humidity-in-canned-model-reply"}


@pytest.fixture(scope="module")
def engine() -> Engine:
    return gemma_engine()


@pytest.fixture(scope="module")
def sample(engine):
    return {w.name: w for w in build_workloads(12, engine, SAMPLE)}


def _rate(engine: Engine, records) -> float:
    cached, total = oracle(engine.ids(r) for r in records)
    return cached / total


def _first(name: str, k: int = 0) -> dict[str, Any]:
    return unmark(build_pairs(name, 12)[k][0])


def test_the_set_is_big_and_varied():
    defects = [r for r in REGISTRY if r[2]]
    clean = [r for r in REGISTRY if not r[2]]
    assert len(defects) >= 40 and len(clean) >= 10
    kinds = Counter(r[1] for r in REGISTRY)
    assert set(kinds) == {"messages", "prompt", "input_ids"}
    assert 0.5 <= kinds["messages"] / len(REGISTRY) <= 0.6 and min(kinds.values()) >= 0.15 * len(REGISTRY), kinds
    classes = Counter(c for r in defects for e in r[2] for c in e.split("|"))
    assert classes["dynamic"] >= 20 and classes["order"] >= 10 and classes["placement"] >= 8, classes
    several = [r for r in defects if len(set(r[2])) > 1]
    assert len(several) >= 5 and max(len(r[2]) for r in several) == 3
    assert len({heldout15.TEAM_OF[r[0]].key for r in REGISTRY}) == 8
    assert len(workload_names()) == len(set(workload_names()))


def test_no_name_repeats_an_earlier_set():
    from tests.diagnose import (
        heldout, heldout2, heldout3, heldout4, heldout5, heldout6, heldout7, heldout8, heldout9, heldout10, heldout11,
        heldout12, heldout13, heldout14,
    )

    earlier = {r[0] for m in (heldout, heldout2, heldout3, heldout4, heldout5, heldout6, heldout7, heldout8, heldout9,
                              heldout10, heldout11, heldout12, heldout13, heldout14) for r in m.REGISTRY}
    assert not earlier & set(workload_names())


def test_the_set_is_served_as_analyze_serves_it():
    assert ANALYZE_ARGS == ("--engine", "vllm", "--chat-template", "tests/chat_templates/gemma3.jinja")
    assert heldout15.TEMPLATE.is_file() and (ROOT / ANALYZE_ARGS[3]).resolve() == heldout15.TEMPLATE
    with pytest.raises(ValueError):
        build_workloads(12, Engine(tok=load_tokenizer("cl100k")), SAMPLE[:1])  # cl100k tokens are not this set's


def test_the_layout_is_gemma3_through_vllm(engine):
    # The first system message heads the first user turn (not trimmed), then a blank line and the
    # user's own text (trimmed); the assistant is 'model'; the open model turn ends the prompt.
    rec = next(unmark(o) for o, _ in build_pairs("clean-growing-sessions-system-in-first-turn", 12)
               if len(o["messages"]) >= 6)
    msgs = rec["messages"]
    text = engine.text(rec)
    assert text.startswith(f"{BOS}<start_of_turn>user\n{msgs[0]['content']}\n\n{msgs[1]['content'].strip()}<end_of_turn>\n"
                           f"<start_of_turn>model\n{msgs[2]['content'].strip()}<end_of_turn>\n<start_of_turn>user\n")
    assert text.endswith(f"{msgs[-1]['content'].strip()}<end_of_turn>\n<start_of_turn>model\n")
    assert text.count(msgs[0]["content"]) == 1 and "<start_of_turn>system" not in text
    # User content parts: each trimmed, joined with nothing between.
    parts = _first("enquiry-ref-first-of-three-user-parts")
    texts = [p["text"].strip() for p in parts["messages"][1]["content"]]
    assert f"{parts['messages'][0]['content']}\n\n{''.join(texts)}<end_of_turn>" in engine.text(parts)
    # A system message's later parts, the tools, chat_template_kwargs and a message name are dropped.
    dropped = _first("clean-values-only-in-fields-the-template-drops")
    system_parts = dropped["messages"][0]["content"]
    t = engine.text(dropped)
    assert system_parts[0]["text"] in t and system_parts[1]["text"] not in t
    assert "flight_id" not in t and "booking_id" not in t and dropped["messages"][1]["name"] not in t
    assert t == engine.text({"messages": [{"role": "system", "content": system_parts[0]["text"]},
                                          {"role": "user", "content": dropped["messages"][1]["content"]}]})
    # No system message: the user turn comes straight after the BOS.
    lone = _first("archive-passages-ahead-of-instructions-lone-user-turn")
    assert engine.text(lone).startswith(f"{BOS}<start_of_turn>user\n{lone['messages'][0]['content'][:40]}")


@pytest.mark.parametrize("messages", [
    [{"role": "system", "content": "A"}, {"role": "system", "content": "B"}, {"role": "user", "content": "Q"}],
    [{"role": "system", "content": "A"}, {"role": "user", "content": "Q"},
     {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function",
                                                            "function": {"name": "f", "arguments": "{}"}}]},
     {"role": "tool", "tool_call_id": "c1", "content": "R"}],
    [{"role": "user", "content": "Q"}, {"role": "user", "content": "Q2"}],
])
def test_what_the_set_never_sends_is_a_skipped_line(cli, tmp_path, messages):
    # A second system message, a tool turn, two user turns in a row: the template raises, the line
    # is skipped. The set sends none of them (every workload's lines render, checked below).
    path = tmp_path / "bad.jsonl"
    write_jsonl([{"id": "x", "messages": messages}], path)
    res = cli("render", str(path), *ANALYZE_ARGS, "--format", "json")
    out = json.loads(res.out)["records"][0]
    assert out["skipped"] and "alternate" in out["skipped"]


def test_a_raw_prompt_is_the_chat_the_template_renders(engine):
    # The raw Gemma prompts a team's own client writes are what the template gives for the same chat
    # (the engine's tokenizer adds the BOS).
    chat_ = {"id": "x", "messages": [{"role": "system", "content": "Static text."}, {"role": "user", "content": " Q? "},
                                     {"role": "assistant", "content": "A."}, {"role": "user", "content": "Q2"}]}
    raw = {"id": "x", "prompt": gm("Static text.", " Q? ", "A.", "Q2")}
    assert engine.text(chat_) == engine.text(raw)
    assert engine.ids(chat_) == engine.ids(raw)


def test_ids_are_what_advisor_render_counts(cli, tmp_path, engine, sample):
    records = []
    for name in SAMPLE:
        w = sample[name]
        records += [r for r in w.records[:2] + w.fixed[:1] if "input_ids" not in r]
    records += [_first("icelandic-date-line-opens-system-ids"), _first("order-profile-and-sections-shuffled-ids")]
    path = tmp_path / "some.jsonl"
    write_jsonl(records, path)
    res = cli("render", str(path), *ANALYZE_ARGS, "--format", "json")
    out = json.loads(res.out)["records"]
    assert len(out) == len(records)
    for r, o in zip(records, out):
        assert not o["skipped"], o["skipped"]
        assert o["tokens"] == engine.ids(r) and o["text"] == engine.text(r), r.get("id")


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
        for m in (MARK, UNIT, SKIP, UNIT_HINT):
            assert m not in text and json.dumps(m)[1:-1] not in text, w.name
        key = {"messages": "messages", "prompt": "prompt", "input_ids": "input_ids"}[w.kind]
        assert all(key in r for r in w.records + w.fixed), w.name
        stamps = [r["timestamp"] for r in w.records if "timestamp" in r]
        assert stamps == sorted(stamps), w.name  # arrival order is file order


def test_request_counts_depths_and_system_sizes_are_in_range(engine):
    sizes = {name: len(build_pairs(name, 12)) for name in workload_names()}
    assert all(20 <= n <= 100 for n in sizes.values()), sizes
    assert min(sizes.values()) <= 30 and max(sizes.values()) >= 85, sizes
    lengths = []
    for name in ("icelandic-date-line-opens-system-ids", "clean-static-system-text-ids", "duty-pilot-five-settings-ids",
                 "hospital-order-profile-first-paragraph-of-system", "trucks-on-shift-in-json-tool-schema",
                 "clean-static-raw-gemma-prompt"):
        o = _first(name)
        text = o["messages"][0]["content"] if "messages" in o else o["prompt"]
        lengths.append(len(engine.tok.encode(text)))
    assert all(700 <= n <= 3600 for n in lengths) and max(lengths) >= 3000 and min(lengths) <= 1100, lengths
    deep = marked(engine, build_pairs("workshop-humidity-in-canned-model-reply", 12)[0][0])[1][0]
    assert deep is not None and deep >= 1800
    first = marked(engine, build_pairs("trace-id-first-text-plain-prompt", 12)[1][0])[1]
    assert first[0] is None or first[0] <= 3
    lengths = [len(engine.tok.encode(unmark(o)["messages"][-1]["content"].rsplit("\n\n[sent ", 1)[0]))
               for o, _ in build_pairs("clean-send-time-and-reference-end-user-turn", 12)]
    assert min(lengths) <= 25 and max(lengths) >= 70, (min(lengths), max(lengths))  # questions vary in length


@pytest.mark.parametrize("name, lo, hi", [("trace-id-first-text-plain-prompt", 0.02, 0.2),
                                          ("collection-session-line-opens-first-user-turn", 0.03, 0.2),
                                          ("relative-ages-rerendered-in-earlier-model-turns", 0.3, 0.7),
                                          ("conversation-summary-ahead-of-instructions-ids", 0.15, 0.5)])
def test_some_requests_lack_the_defect(engine, name, lo, hi):
    pairs = build_pairs(name, 12)
    marks = [marked(engine, o)[1] for o, _ in pairs]
    lacking = sum(1 for m in marks if m[0] is None) / len(marks)
    assert lo <= lacking <= hi, (name, lacking)
    for (o, f), m in zip(pairs, marks):
        if m[0] is None and name != "relative-ages-rerendered-in-earlier-model-turns":
            assert engine.ids(unmark(o)) == engine.ids(f if isinstance(f, dict) else f[0]), name  # its own fix


def test_sessions_vary_in_length():
    for name, top in (("clean-growing-sessions-system-in-first-turn", 7), ("desk-clock-ends-system-text-of-sessions", 6),
                      ("instructions-appended-to-last-user-turn-of-sessions", 5)):
        turns = Counter(sum(1 for m in o["messages"] if m["role"] == "user") for o, _ in build_pairs(name, 12))
        assert min(turns) == 1 and max(turns) >= top, (name, turns)


def test_every_planted_defect_is_where_requests_stop_agreeing(engine, sample):
    for name in SAMPLE:
        w = sample[name]
        if not w.expect:
            continue
        rows = [marked(engine, o) for o, _ in build_pairs(name, 12)]
        raws = [array("I", ids).tobytes() for ids, _, _ in rows]
        for k in range(len(w.expect)):
            carrying = [(j, m[k]) for j, (_, m, _) in enumerate(rows) if m[k] is not None]
            parted = 0
            for j, at in carrying:
                assert at is not None
                if k == 0:  # everything ahead of the first defect is shared with another request
                    shared = [lcp(raws[j], other) for b, other in enumerate(raws) if b != j]
                    assert max(shared) >= at, (name, j, max(shared), at)
                if j:  # where it parts from the request before it, or from its best earlier match (its hit)
                    near = (lcp(raws[j], raws[j - 1]), max(lcp(raws[j], raws[b]) for b in range(j)))
                    parted += any(at - 1 <= x <= at + 12 for x in near)
            # A value in force for a run of requests parts from earlier ones only when it changes;
            # a later defect sits where the requests have already parted at the first.
            need = 0 if k else 2 if (name in PLACES or name in RUNS) else 0.3 * len(carrying)
            assert parted >= need, (name, k, parted, len(carrying))


def test_the_fix_gains_and_controls_are_their_own_fix(engine, sample):
    for w in sample.values():
        before, after = _rate(engine, w.records), _rate(engine, w.fixed)
        if w.expect:
            assert after > before + (0.01 if w.name in PLACES else 0.03), (w.name, before, after)
        else:
            assert w.records == w.fixed, w.name


def test_the_json_tool_marks_sit_at_the_first_tool_name(engine, sample):
    w = sample["tool-schemas-pretty-json-array-shuffled"]
    pairs = build_pairs(w.name, 12)
    texts = [unmark(o)["messages"][0]["content"] for o, _ in pairs]
    firsts = [t.split('"name": "', 1)[1].split('"', 1)[0] for t in texts]
    ids = [engine.ids(unmark(o)) for o, _ in pairs]
    a = 0
    b = next(j for j in range(len(firsts)) if firsts[j] != firsts[a])
    c = next((j for j in range(1, len(firsts)) if firsts[j] == firsts[a]), None)
    mark = marked(engine, pairs[a][0])[1][0]
    assert mark is not None
    common = next(n for n, (x, y) in enumerate(zip(ids[a], ids[b])) if x != y)
    assert abs(common - mark) <= 2, (common, mark)
    if c is not None:
        assert ids[a][:mark + 30] == ids[c][:mark + 30]  # the same first tool shares far past it
    assert 0 < w.offsets[0] - w.unit_offsets[0] <= 10  # the unit starts at the object's brace


# Where each few-settings value's truth lands: the better measured of the places.
@pytest.mark.parametrize("name, place", [("icelandic-date-line-opens-system-ids", END_SYSTEM),
                                         ("workshop-humidity-in-canned-model-reply", START_LAST),
                                         ("collection-session-line-opens-first-user-turn", AFTER_SHARED),
                                         ("blood-stock-table-every-few-requests-ids", END_SYSTEM)])
def test_the_truth_uses_the_better_measured_place(engine, name, place):
    w = build_workloads(12, engine, [name])[0]
    best, rates = CHOSEN[name]
    assert PLACES[name][best] == place, (name, rates)
    assert rates[best] == max(rates) and _rate(engine, w.fixed) == rates[best]
    assert f"truth: {place}" in w.notes
    assert END_USER in PLACES[name]


def test_oracle_agrees_exactly_with_analyze(cli, tmp_path, engine, sample):
    for name in SAMPLE[::2]:
        w = sample[name]
        for label, records in (("orig", w.records), ("fixed", w.fixed)):
            path = tmp_path / f"{w.name}.{label}.jsonl"
            write_jsonl(records, path)
            res = cli("analyze", str(path), *ANALYZE_ARGS, "--format", "json", "--no-diagnose")
            assert res.code == 0, res.err
            report = json.loads(res.out)
            assert report["requests"] == len(records) and not report.get("skipped"), (w.name, label)
            assert (report["cached_tokens"], report["prompt_tokens"]) == oracle(engine.ids(r) for r in records), \
                (w.name, label)


def _shift_last(record: dict[str, Any]) -> dict[str, Any]:
    g = json.loads(json.dumps(record))
    shift, q = g["messages"][1]["content"].split("\n\n", 1)
    g["messages"][1]["content"] = f"{q}\n\n{shift}"
    return g


def _date_last(record: dict[str, Any]) -> dict[str, Any]:
    text = record["prompt"]
    head, rest = text.split("\n\nGaur: ", 1)
    date, turn = rest.split("\n\n", 1)
    return record | {"prompt": head + "\n\n" + turn.replace("<end_of_turn>\n<start_of_turn>model\n",
                                                            f"\n\nGaur: {date}<end_of_turn>\n<start_of_turn>model\n")}


def _passages_last(record: dict[str, Any]) -> dict[str, Any]:
    g = json.loads(json.dumps(record))
    docs, q = g["messages"][1]["content"].rsplit("\n\nQuestion: ", 1)
    g["messages"][1]["content"] = f"Question: {q}\n\n{docs}"
    return g


def _sends_last(record: dict[str, Any]) -> dict[str, Any]:
    g = json.loads(json.dumps(record))
    q, stamp = g["messages"][-1]["content"].rsplit("\n\n", 1)
    g["messages"][-1]["content"] = f"{stamp}\n\n{q}"
    return g


# The tempting controls: what tempts, changed, gains under 1%, so a finding there is a false one.
@pytest.mark.parametrize("name, tempted", [("clean-shift-opens-user-turn-right-after-system", _shift_last),
                                           ("clean-date-changes-once-raw-gemma-prompt", _date_last),
                                           ("clean-rag-passages-after-instructions-question-last", _passages_last)])
def test_no_control_hides_a_fix_worth_one_percent(engine, name, tempted: Callable[[dict], dict]):
    records = [unhinted(unmark(o)) for o, _ in build_pairs(name, 12)]
    other = [tempted(r) for r in records]
    assert other != records
    assert _rate(engine, other) - _rate(engine, records) < 0.01, name


def test_a_stamp_moved_forward_in_a_control_costs(engine):
    # The control's send time is already where it costs nothing: ahead of the question it would cost.
    records = [unmark(o) for o, _ in build_pairs("clean-send-time-and-reference-end-user-turn", 12)]
    assert _rate(engine, [_sends_last(r) for r in records]) < _rate(engine, records)


def test_sessions_keep_their_history_in_gemmas_layout(engine):
    # The system text stays in the first user turn, so a session's next turn extends the one before.
    pairs = build_pairs("clean-growing-sessions-system-in-first-turn", 12)
    by_first: dict[str, list[list[int]]] = {}
    for o, _ in pairs:
        by_first.setdefault(o["messages"][1]["content"], []).append(engine.ids(o))
    longest = max(by_first.values(), key=len)
    assert len(longest) >= 3
    for a, b in zip(longest, longest[1:]):
        assert b[:len(a) - 5] == a[:-5]  # all but the open model turn's markup


def test_the_bench_runs_the_set_with_its_arguments():
    sys.path.insert(0, str(ROOT / "bench"))
    import diagnose_heldout as bench  # noqa: E402

    assert bench.SETS["heldout15"] is heldout15
    assert bench.set_args(heldout15) == ANALYZE_ARGS and bench.tokenizer_of(ANALYZE_ARGS) == "llama3"
    assert heldout15.local_engine is gemma_engine
