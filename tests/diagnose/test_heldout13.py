"""The thirteenth held-out set's generator and truth, checked against themselves and `advisor analyze`.

Nothing here asserts the detector's findings or predictions: bench/diagnose_heldout.py --set heldout13
reports those. These tests make sure the set is served as it says (the Command R template's layout
through SGLang's preprocessing, Llama 3 ids, the same ids `advisor analyze --chat-template
tests/chat_templates/command_r.jinja` counts), that the planted offsets and the truth the bench
compares with are right, that the noise is there, and that the set stays deterministic and varied.
"""

from __future__ import annotations

import io
import json
import sys
from array import array
from collections import Counter
from pathlib import Path
from typing import Any, Callable

import pytest

from advisor.ingest.tokenizers import load_tokenizer

from tests.diagnose import heldout13
from tests.diagnose.heldout import MARK, UNIT, Engine, lcp, oracle, write_jsonl
from tests.diagnose.heldout13 import (
    ANALYZE_ARGS, CHOSEN, END_SYSTEM, END_USER, PLACES, PREAMBLE, REGISTRY, SKIP, START_LAST, START_USER, TOOLS_HEAD,
    UNIT_HINT, build_pairs, build_workloads, command_r_engine, cr, marked, unhinted, unmark, workload_names,
)

ROOT = Path(__file__).resolve().parents[2]

# Each kind and class, the first token after the preamble, a tool docstring, a second system turn, a
# canned result, canned call arguments, a raw Command R prompt, a plain prompt, shuffled signatures,
# shuffled parameters, sessions, a re-stamped agent history, two and three defects, tempting controls.
SAMPLE = ["proposal-line-first-token-of-user-preamble-ids", "seeing-reading-in-tool-docstring-hourly",
          "lot-number-opens-second-system-turn-ids", "next-aos-in-canned-pass-plan-result",
          "cave-hour-in-canned-call-arguments", "premium-fx-rate-deep-in-raw-prompt",
          "moon-line-first-token-plain-prompt", "six-tool-signatures-shuffled", "signature-parameter-order-shuffled",
          "instructions-as-trailing-system-turn-in-sessions", "age-seconds-recomputed-in-earlier-results",
          "brief-part-ahead-of-static-checklist-part", "caller-profile-shift-and-parameter-order",
          "clean-value-in-parameter-descriptions", "clean-free-blocks-as-enum-ids", "clean-shift-opens-user-turn-after-tools"]


@pytest.fixture(scope="module")
def engine() -> Engine:
    return command_r_engine()


@pytest.fixture(scope="module")
def sample(engine):
    return {w.name: w for w in build_workloads(12, engine, SAMPLE)}


def _rate(engine: Engine, records) -> float:
    cached, total = oracle(engine.ids(r) for r in records)
    return cached / total


def _first(name: str) -> dict[str, Any]:
    return unmark(build_pairs(name, 12)[0][0])


def test_the_set_is_big_and_varied():
    defects = [r for r in REGISTRY if r[2]]
    clean = [r for r in REGISTRY if not r[2]]
    assert len(defects) >= 40 and len(clean) >= 9
    kinds = Counter(r[1] for r in REGISTRY)
    assert set(kinds) == {"messages", "prompt", "input_ids"}
    assert kinds["messages"] <= 0.6 * len(REGISTRY) and min(kinds.values()) >= 0.15 * len(REGISTRY), kinds
    classes = Counter(c for r in defects for c in r[2])
    assert classes["dynamic"] >= 20 and classes["order"] >= 10 and classes["placement"] >= 8, classes
    assert sum(1 for r in defects if len(r[2]) > 1) >= 5 and max(len(r[2]) for r in defects) == 3
    assert len({heldout13.TEAM_OF[r[0]].key for r in REGISTRY}) == 8
    assert len(workload_names()) == len(set(workload_names()))


def test_no_name_repeats_an_earlier_set():
    from tests.diagnose import (
        heldout, heldout2, heldout3, heldout4, heldout5, heldout6, heldout7, heldout8, heldout9, heldout10, heldout11,
        heldout12,
    )

    earlier = {r[0] for m in (heldout, heldout2, heldout3, heldout4, heldout5, heldout6, heldout7, heldout8, heldout9,
                              heldout10, heldout11, heldout12) for r in m.REGISTRY}
    assert not earlier & set(workload_names())


def test_the_set_is_served_as_analyze_serves_it():
    assert ANALYZE_ARGS == ("--chat-template", "tests/chat_templates/command_r.jinja")
    assert heldout13.TEMPLATE.is_file() and str(heldout13.TEMPLATE).endswith(ANALYZE_ARGS[1])
    with pytest.raises(ValueError):
        build_workloads(12, Engine(tok=load_tokenizer("cl100k")), SAMPLE[:1])  # cl100k tokens are not this set's


def test_the_layout_is_command_r_through_sglang(engine):
    rec = _first("signature-parameter-order-shuffled")
    text = engine.text(rec)
    system = rec["messages"][0]["content"]
    head = "<|begin_of_text|><|START_OF_TURN_TOKEN|><|SYSTEM_TOKEN|>" + PREAMBLE + system + "\n\n## Available Tools\n"
    assert text.startswith(head)
    # Signatures in the tools' order, parameters in dict order; parameter descriptions are not printed.
    at = [text.index(f"def {t['function']['name']}(") for t in rec["tools"]]
    assert at == sorted(at) and text.index(TOOLS_HEAD) < at[0]
    params = list(rec["tools"][1]["function"]["parameters"]["properties"])
    assert f"def reserve_antenna({params[0]}: str, {params[1]}: str, " in text
    assert "The antenna." not in text
    assert text.endswith(rec["messages"][1]["content"] + "<|END_OF_TURN_TOKEN|><|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>")
    # A later system message is its own SYSTEM turn; a tool result is a <results> SYSTEM turn; a call
    # prints its parsed arguments as JSON.
    lot = _first("lot-number-opens-second-system-turn-ids")
    t = engine.text(lot)
    second = lot["messages"][1]["content"]
    assert "```<|END_OF_TURN_TOKEN|><|START_OF_TURN_TOKEN|><|SYSTEM_TOKEN|>" + second + "<|END_OF_TURN_TOKEN|>" in t
    cave = _first("cave-hour-in-canned-call-arguments")
    t = engine.text(cave)
    assert '"parameters": {"cave": "B", "hours": 6, "as_of": "2026-12-01T' in t
    assert "<|SYSTEM_TOKEN|><results>\n1. " in t
    # Content parts are joined with spaces, as SGLang hands string-format templates one string.
    brief = _first("brief-part-ahead-of-static-checklist-part")
    parts = [p["text"] for p in brief["messages"][1]["content"]]
    assert "<|USER_TOKEN|>" + " ".join(parts).strip() + "<|END_OF_TURN_TOKEN|>" in engine.text(brief)
    # No system message: the template's own default task text.
    plain = _first("clean-default-preamble-static-tools")
    assert "# User Preamble\n## Task and Context\nYou help people" in engine.text(plain)


def test_a_raw_prompt_is_the_chat_the_template_renders(engine):
    # The raw Command R prompts a team's own client writes are what the template gives for the
    # same one-turn chat (the engine's tokenizer adds the BOS the template writes itself).
    chat_ = {"id": "x", "messages": [{"role": "system", "content": "Static text."}, {"role": "user", "content": "Q?"}]}
    raw = {"id": "x", "prompt": cr("Static text.", "Q?")}
    assert engine.text(chat_) == engine.text(raw)
    assert engine.ids(chat_) == engine.ids(raw)


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


def test_request_counts_depths_and_system_sizes_are_in_range(engine):
    sizes = {name: len(build_pairs(name, 12)) for name in workload_names()}
    assert all(20 <= n <= 100 for n in sizes.values()), sizes
    assert min(sizes.values()) <= 30 and max(sizes.values()) >= 90, sizes
    lengths = []
    for name in ("proposal-line-first-token-of-user-preamble-ids", "sales-channel-two-settings-long-system",
                 "cave-handbook-sections-shuffled-ids", "clean-static-tools-docket-last", "brief-part-ahead-of-static-checklist-part"):
        o = _first(name)
        lengths.append(len(engine.tok.encode(o["messages"][0]["content"])))
    assert all(900 <= n <= 4000 for n in lengths) and max(lengths) >= 3000, lengths


@pytest.mark.parametrize("name, lo, hi", [("proposal-line-first-token-of-user-preamble-ids", 0.03, 0.2),
                                          ("age-seconds-recomputed-in-earlier-results", 0.4, 0.75),
                                          ("instructions-as-trailing-system-turn-in-sessions", 0.15, 0.5)])
def test_some_requests_lack_the_defect(engine, name, lo, hi):
    pairs = build_pairs(name, 12)
    marks = [marked(engine, o)[1] for o, _ in pairs]
    lacking = sum(1 for m in marks if m[0] is None) / len(marks)
    assert lo <= lacking <= hi, (name, lacking)
    for (o, f), m in zip(pairs, marks):
        if m[0] is None and name == "proposal-line-first-token-of-user-preamble-ids":
            assert engine.ids(unmark(o)) == engine.ids(f if isinstance(f, dict) else f[0]), name  # its own fix


def test_sessions_vary_in_length():
    for name, top in (("clean-growing-sessions-static-tools", 6), ("desk-clock-in-system-text-of-sessions", 5)):
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
                # Against every other request, with the defect or without it.
                shared = [lcp(raws[j], other) for b, other in enumerate(raws) if b != j]
                if k == 0:  # everything ahead of the first defect is shared with another request
                    assert max(shared) >= at, (name, j, max(shared), at)
                if j:
                    parted += at - 1 <= lcp(raws[j], raws[j - 1]) <= at + 12  # where it parts from the one before
            # A value in force for several requests in a row parts from its neighbour only when it
            # changes; a later defect sits where the requests have already parted at the first.
            need = 0 if k else 1 if name in PLACES else 0.3 * len(carrying)
            assert parted >= need, (name, k, parted, len(carrying))


def test_the_fix_gains_and_controls_are_their_own_fix(engine, sample):
    for w in sample.values():
        before, after = _rate(engine, w.records), _rate(engine, w.fixed)
        if w.expect:
            assert after > before + (0.005 if w.name in PLACES else 0.02), (w.name, before, after)
        else:
            assert w.records == w.fixed, w.name


def test_the_tool_marks_sit_at_the_first_signature(engine, sample):
    w = sample["six-tool-signatures-shuffled"]
    pairs = build_pairs(w.name, 12)
    firsts = [unmark(o)["tools"][0]["function"]["name"] for o, _ in pairs]
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
    assert w.unit_offsets[0] < w.offsets[0]


def test_values_the_template_drops_never_reach_the_prompt(engine):
    for name, key in (("clean-value-in-parameter-descriptions", "description"), ("clean-free-blocks-as-enum-ids", "enum")):
        records = [unmark(o) for o, _ in build_pairs(name, 12)]
        texts = {engine.text(r).split("<|USER_TOKEN|>")[0] for r in records}
        assert len(texts) == 1, name  # every request renders the same system turn
        props = [p for t in records[0]["tools"] for p in t["function"]["parameters"]["properties"].values()]
        assert any(key in p for p in props)
        varying = {json.dumps(r["tools"]) for r in records}
        assert len(varying) > len(records) // 2, name  # and what the client sent does vary


# Where each many- or few-settings value's truth lands: the better measured of the places.
@pytest.mark.parametrize("name, place", [("station-health-table-every-few-requests-ids", START_USER),
                                         ("tamil-date-line-raw-command-r-prompt", END_SYSTEM),
                                         ("cave-hour-in-canned-call-arguments", START_LAST),
                                         ("red-flag-status-three-settings-mid-system", END_SYSTEM)])
def test_the_truth_uses_the_better_measured_place(engine, name, place):
    w = build_workloads(12, engine, [name])[0]
    best, rates = CHOSEN[name]
    assert PLACES[name][best] == place, (name, rates)
    assert rates[best] == max(rates) and _rate(engine, w.fixed) == rates[best]
    assert f"truth: {place}" in w.notes
    assert END_USER in PLACES[name]


def test_oracle_agrees_exactly_with_analyze(cli, tmp_path, engine, sample):
    for name in SAMPLE[::3]:
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
    shift, q = g["messages"][1]["content"].split("\n\n", 1)
    g["messages"][1]["content"] = f"{q}\n\n{shift}"
    return g


def _date_last(record: dict[str, Any]) -> dict[str, Any]:
    g = json.loads(json.dumps(record))
    system, date = g["messages"][0]["content"].rsplit("\n\n", 1)
    g["messages"][0]["content"] = system
    g["messages"][1]["content"] += "\n\n" + date
    return g


def _docs_last(record: dict[str, Any]) -> dict[str, Any]:
    g = json.loads(json.dumps(record))
    docs = g["messages"].pop(1)
    g["messages"][-1]["content"] += "\n\n" + docs["content"]
    return g


# The tempting controls: what tempts, fixed, gains under 1%, so a finding there is a false one.
@pytest.mark.parametrize("name, tempted", [("clean-shift-opens-user-turn-after-tools", _shift_last),
                                           ("clean-date-changes-once-ids", _date_last),
                                           ("clean-documents-after-instructions", _docs_last)])
def test_no_control_hides_a_fix_worth_one_percent(engine, name, tempted: Callable[[dict], dict]):
    records = [unhinted(unmark(o)) for o, _ in build_pairs(name, 12)]
    other = [tempted(r) for r in records]
    assert other != records
    assert _rate(engine, other) - _rate(engine, records) < 0.01, name


def test_the_bench_runs_the_set_with_its_arguments(monkeypatch, capsys, engine):
    sys.path.insert(0, str(ROOT / "bench"))
    import diagnose_heldout as bench  # noqa: E402
    import heldout_render  # noqa: E402

    assert bench.SETS["heldout13"] is heldout13
    assert bench.set_args(heldout13) == ANALYZE_ARGS and bench.tokenizer_of(ANALYZE_ARGS) == "llama3"
    # The render helper the bench runs in a checkout under test gives the text this set measures.
    monkeypatch.chdir(ROOT)
    records = [_first(n) for n in ("cave-hour-in-canned-call-arguments", "premium-fx-rate-deep-in-raw-prompt",
                                   "brief-part-ahead-of-static-checklist-part")]
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)))
    assert heldout_render.main(list(ANALYZE_ARGS)) == 0
    out = [json.loads(line)["text"] for line in capsys.readouterr().out.splitlines()]
    assert out == [engine.text(r) for r in records]
