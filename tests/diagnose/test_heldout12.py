"""The twelfth held-out set's generator and truth, checked against themselves and `advisor analyze`.

Nothing here asserts the detector's findings or predictions: bench/diagnose_heldout.py
--set heldout12 reports those. These tests make sure the set is served as it says (Llama 3.1's own
template on SGLang: the date line takes chat_template_kwargs, the tools sit in the first user
turn), that the planted offsets and the truth the bench compares with are right, that the noise is
there, and that the set stays deterministic and varied.
"""

from __future__ import annotations

import json
from array import array
from collections import Counter
from pathlib import Path
from typing import Any, Callable

import pytest

from tests.diagnose import heldout12
from tests.diagnose.heldout import MARK, UNIT, Engine, lcp, oracle, write_jsonl
from tests.diagnose.heldout12 import (
    AFTER_TOOLS, ANALYZE_ARGS, CHOSEN, END_SYSTEM, END_USER, HINT, PINNED_DATE, PLACES, REGISTRY, SKIP, TEMPLATE,
    build_pairs, build_workloads, llama31_engine, marked, unhinted, unmark, workload_names,
)

ROOT = Path(__file__).resolve().parents[2]

# Each kind and class: date_string per day and per minute (ids), a template default, a tool
# description, shuffled tools in sessions, a value after the tools, XML, YAML, a placement in a
# raw prompt, two defects, and tempting controls.
SAMPLE = ["date-string-per-day-kwargs", "date-string-minute-ids", "date-string-default-or-day",
          "obs-time-in-tool-description", "tools-shuffled-in-sessions", "offer-ref-ahead-of-checklist-after-tools",
          "xml-sections-rotated-prompt", "yaml-keys-in-set-order-ids", "dive-sheet-ahead-of-protocol-prompt",
          "date-string-per-day-and-shuffled-tools", "clean-shift-right-after-tools", "clean-template-default-date"]


@pytest.fixture(scope="module")
def engine() -> Engine:
    return llama31_engine()


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
    assert kinds["messages"] <= 0.6 * len(REGISTRY) and min(kinds.values()) >= 0.15 * len(REGISTRY), kinds
    classes = Counter(c for r in defects for c in r[2])
    assert classes["dynamic"] >= 18 and classes["order"] >= 9 and classes["placement"] >= 7, classes
    assert sum(1 for r in defects if len(r[2]) > 1) >= 4
    assert len({heldout12.TEAM_OF[r[0]].key for r in REGISTRY}) == 8
    assert len(workload_names()) == len(set(workload_names()))
    injected = [r[0] for r in defects if r[0].startswith("date-string") or "date-string" in r[0]]
    assert len(injected) >= 6, injected


def test_no_name_repeats_an_earlier_set():
    from tests.diagnose import heldout, heldout2, heldout3, heldout4, heldout5, heldout6, heldout7, heldout8, heldout9

    earlier = {r[0] for m in (heldout, heldout2, heldout3, heldout4, heldout5, heldout6, heldout7, heldout8, heldout9)
               for r in m.REGISTRY}
    assert not earlier & set(workload_names())


def test_the_set_is_served_as_analyze_serves_it():
    assert ANALYZE_ARGS == ("--chat-template", "tests/chat_templates/llama31.jinja")
    assert (ROOT / ANALYZE_ARGS[1]).resolve() == TEMPLATE
    from advisor.ingest.tokenizers import load_tokenizer

    with pytest.raises(ValueError):
        build_workloads(12, Engine(tok=load_tokenizer("cl100k")), SAMPLE[:1])


def test_the_template_prints_the_date_string_and_the_tools_in_the_first_user_turn(engine):
    rec = unmark(build_pairs("date-string-per-day-kwargs", 12)[0][0])
    date = rec["chat_template_kwargs"]["date_string"]
    text = engine.text(rec)
    assert text.startswith("<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nCutting Knowledge Date: "
                           f"December 2023\nToday Date: {date}\n\n" + rec["messages"][0]["content"][:40])
    default = unhinted(unmark(next(o for o, _ in build_pairs("date-string-default-or-day", 12) if HINT in o)))
    assert "chat_template_kwargs" not in default and "Today Date: 26 Jul 2024\n\n" in engine.text(default)
    # With tools: 'Environment: ipython' in the system turn, the tools JSON inside the first user
    # turn ahead of its text, and in a session that whole first turn ahead of the later ones.
    pairs = build_pairs("tools-shuffled-in-sessions", 12)
    later = next(unmark(o) for o, _ in pairs if sum(m["role"] == "user" for m in o["messages"]) >= 3)
    t = engine.text(later)
    first_user, last_user = later["messages"][1]["content"], later["messages"][-1]["content"]
    assert "Environment: ipython\n" in t[:t.index("<|eot_id|>")]
    user_turn = t.index("<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nGiven the following functions")
    first_tool = later["tools"][0]["function"]["description"]
    assert user_turn < t.index(first_tool) < t.index(first_user.strip()) < t.index(last_user.strip())
    assert t.count("Given the following functions") == 1


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


def test_request_counts_sessions_and_system_sizes_are_in_range(engine):
    sizes = {name: len(build_pairs(name, 12)) for name in workload_names()}
    assert all(20 <= n <= 100 for n in sizes.values()), sizes
    assert min(sizes.values()) <= 45 and max(sizes.values()) >= 80, sizes
    systems = []
    for name in ("date-string-per-day-kwargs", "hindi-duty-officer-first-line", "yaml-keys-in-set-order-ids",
                 "clean-pinned-date-string-tools"):
        o, _ = build_pairs(name, 12)[0]
        systems.append(len(engine.tok.encode(unmark(o)["messages"][0]["content"])))
    assert all(400 <= n <= 4000 for n in systems) and max(systems) >= 2000 and min(systems) <= 1200, systems
    turns = Counter(sum(1 for m in o["messages"] if m["role"] == "user") for o, _ in build_pairs("water-temp-restamped-first-turn", 12))
    assert min(turns) == 1 and max(turns) == 7, turns


@pytest.mark.parametrize("name, lo, hi", [("offer-ref-ahead-of-checklist-after-tools", 0.05, 0.3),
                                          ("date-string-default-or-day", 0.25, 0.55)])
def test_some_requests_lack_the_defect_or_leave_the_date_to_the_template(engine, name, lo, hi):
    pairs = build_pairs(name, 12)
    if name.startswith("date-string"):
        lacking = sum(1 for o, _ in pairs if "chat_template_kwargs" not in o) / len(pairs)
    else:
        lacking = sum(1 for o, _ in pairs if marked(engine, o)[1][0] is None) / len(pairs)
        for o, f in pairs:
            if marked(engine, o)[1][0] is None:  # a request without the defect is its own fix
                assert engine.ids(unmark(o)) == engine.ids(f if isinstance(f, dict) else f[0]), name
    assert lo <= lacking <= hi, (name, lacking)


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
                    parted += at - 1 <= shared[a - 1] <= at + 12  # where it parts from the one before
            # A value in force for several requests in a row (a day's date, an hour's time) parts
            # from its neighbour only when it changes; a later defect sits where the requests have
            # already parted at the first.
            need = 0 if k or "date-string-per-day" in name or name in PLACES else 0.3 * len(carrying)
            assert parted >= need, (name, k, parted, len(carrying))


def test_the_date_marks_sit_at_the_template_date_line(engine, sample):
    w = sample["date-string-per-day-kwargs"]
    text = engine.text(w.records[0])
    head = text[:text.index("Today Date: ") + len("Today Date: ")]
    at = len(engine.tok.encode(head))
    assert w.unit_offsets[0] == w.offsets[0] == at, (w.offsets, at)  # the day is the date's first token
    m = sample["date-string-minute-ids"]
    assert m.unit_offsets[0] == at and at < m.offsets[0] <= at + 12  # the minute, behind the shared day


def test_the_fix_gains_and_controls_are_their_own_fix(engine, sample):
    for w in sample.values():
        before, after = _rate(engine, w.records), _rate(engine, w.fixed)
        if w.expect:
            assert after > before + 0.02, (w.name, before, after)
        else:
            assert w.records == w.fixed, w.name


def test_template_injected_values_are_fixed_by_one_pinned_value():
    def date(r: dict[str, Any]) -> str | None:
        return (r.get("chat_template_kwargs") or {}).get("date_string")
    seen = 0
    for name in workload_names():
        pairs = build_pairs(name, 12)
        if not any("chat_template_kwargs" in o for o, _ in pairs):
            continue
        fixes = [f for _, fx in pairs for f in (fx if isinstance(fx, tuple) else (fx,))]
        # Every request of a fix passes the same template variables.
        assert len({json.dumps(f.get("chat_template_kwargs")) for f in fixes}) == 1, name
        if len({unmark(date(o)) for o, _ in pairs}) > 1:
            assert {date(f) for f in fixes} == {PINNED_DATE}, name
            seen += 1
    assert seen >= 7, seen


def test_the_truth_uses_the_better_measured_place(engine):
    names = ["obs-time-in-tool-description", "one-token-danger-level-ids", "field-report-ahead-of-handbook"]
    for w in build_workloads(12, engine, names):
        best, rates = CHOSEN[w.name]
        assert len(rates) == len(PLACES[w.name]) == 2
        assert rates[best] == max(rates) and abs(_rate(engine, w.fixed) - rates[best]) < 1e-12
        assert f"truth: {PLACES[w.name][best]}" in w.notes
    assert CHOSEN["obs-time-in-tool-description"][0] == PLACES["obs-time-in-tool-description"].index(AFTER_TOOLS)
    assert CHOSEN["one-token-danger-level-ids"][0] == PLACES["one-token-danger-level-ids"].index(END_SYSTEM)
    assert CHOSEN["field-report-ahead-of-handbook"][0] == PLACES["field-report-ahead-of-handbook"].index(END_USER)


def test_oracle_agrees_exactly_with_analyze(cli, tmp_path, engine, sample):
    served = ("--chat-template", str(TEMPLATE))
    for name in ("date-string-minute-ids", "date-string-default-or-day", "tools-shuffled-in-sessions",
                 "xml-sections-rotated-prompt"):
        w = sample[name]
        for label, records in (("orig", w.records), ("fixed", w.fixed)):
            path = tmp_path / f"{w.name}.{label}.jsonl"
            write_jsonl(records, path)
            res = cli("analyze", str(path), *served, "--format", "json", "--no-diagnose")
            assert res.code == 0, res.err
            report = json.loads(res.out)
            assert (report["cached_tokens"], report["prompt_tokens"]) == oracle(engine.ids(r) for r in records), \
                (w.name, label)


def _shift_last(record: dict[str, Any]) -> dict[str, Any]:
    g = json.loads(json.dumps(record))
    shift, q = g["messages"][-1]["content"].split("\n\n", 1)
    g["messages"][-1]["content"] = f"{q}\n\n{shift}"
    return g


def _pin(record: dict[str, Any]) -> dict[str, Any]:
    return record | {"chat_template_kwargs": {"date_string": PINNED_DATE}}


# The tempting controls: what tempts, fixed, gains under 1%, so a finding there is a false one.
@pytest.mark.parametrize("name, tempted", [("clean-shift-right-after-tools", _shift_last),
                                           ("clean-template-default-date", _pin)])
def test_no_control_hides_a_fix_worth_one_percent(engine, name, tempted: Callable[[dict], dict]):
    records = [unhinted(o) for o, _ in build_pairs(name, 12)]
    other = [tempted(r) for r in records]
    assert other != records
    assert _rate(engine, other) - _rate(engine, records) < 0.01, name
