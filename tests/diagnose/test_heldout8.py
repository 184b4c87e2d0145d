"""The eighth held-out set's generator and truth, checked against themselves and `advisor analyze`.

Nothing here asserts the detector's findings or predictions: bench/diagnose_heldout.py
--set heldout8 reports those. These tests make sure the set really is Qwen 2.5 traffic (ChatML
rendering, Qwen ids, Qwen's digit split), that the planted offsets and the truth the bench
compares with are right on it, that the noise the set adds is there, that the set stays
deterministic and varied, and that the bench serves it with its ANALYZE_ARGS.
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

from tests.diagnose.heldout import MARK, UNIT, Engine, lcp, oracle, write_jsonl
from tests.diagnose.heldout8 import (
    ANALYZE_ARGS, REGISTRY, SKIP, TEMPLATE, build_pairs, build_workloads, marked, qwen_engine, unmark, workload_names,
)

ROOT = Path(__file__).resolve().parents[2]
IM_START, IM_END = 151644, 151645  # Qwen 2.5's <|im_start|> and <|im_end|>
LLAMA_BOS = 128000

MULTI = [r[0] for r in REGISTRY if len(r[2]) > 1]
# Workloads where some requests lack the defect, and the share that should.
PARTIAL = {"dispute-case-number-first-token-ids": (0.03, 0.2), "vehicles-in-service-hourly-ids": (0.02, 0.16),
           "email-part-before-checklist-part": (0.05, 0.3), "pet-weight-in-tool-call-args-one-of-two-products": (0.2, 0.5)}
# What the analyze cross-check and the layout checks run on: each kind and class, tools, tool calls,
# tool results, content parts, a second system turn, raw ChatML and plain prompts, sessions.
SAMPLE = ["dispute-case-number-first-token-ids", "bay-chamber-8-in-tool-description", "lot-identity-in-tool-response",
          "chinese-client-system-content-part", "wafer-bin-map-digits-prompt", "vet-tools-shuffled-in-tools-block",
          "fewshot-chatml-turns-shuffled-prompt", "job-brief-before-style-guide-sessions",
          "card-digits-and-balance-second-system-chatml-prompt", "pet-weight-in-tool-call-args-one-of-two-products",
          "clean-vet-agent-loops-stable-tools", "clean-transit-sessions-1-to-10-ids"]


@pytest.fixture(scope="module")
def engine() -> Engine:
    return qwen_engine()


@pytest.fixture(scope="module")
def everything(engine):
    return {w.name: w for w in build_workloads(12, engine)}


@pytest.fixture(scope="module")
def marks(engine):
    return {name: [marked(engine, o) for o, _ in build_pairs(name, 12, engine)] for name in sorted(set(PARTIAL) | set(MULTI))}


def _rate(engine: Engine, records) -> float:
    cached, total = oracle(engine.ids(r) for r in records)
    return cached / total


def test_the_set_is_big_and_varied():
    names = workload_names()
    assert len(names) == len(set(names)) and set(SAMPLE) <= set(names) and set(PARTIAL) <= set(names)
    defects = [r for r in REGISTRY if r[2]]
    controls = [r for r in REGISTRY if not r[2]]
    assert len(defects) >= 30 and len(controls) >= 8
    kinds = Counter(r[1] for r in defects)
    assert set(kinds) == {"messages", "prompt", "input_ids"}
    assert all(n >= len(defects) // 4 for n in kinds.values()), kinds  # roughly a third each
    assert {r[1] for r in controls} == {"messages", "prompt", "input_ids"}
    classes = Counter(c for r in defects for e in r[2] for c in e.split("|"))
    assert set(classes) == {"dynamic", "order", "placement"}
    assert classes["order"] >= 8 and classes["placement"] >= 8
    assert len(MULTI) >= 5 and any(len(set(r[2])) >= 3 for r in defects)


def test_no_name_repeats_an_earlier_set():
    from tests.diagnose import heldout, heldout2, heldout3, heldout4, heldout5, heldout6

    earlier = {r[0] for m in (heldout, heldout2, heldout3, heldout4, heldout5, heldout6) for r in m.REGISTRY}
    assert not earlier & set(workload_names())


def test_the_set_refuses_an_engine_of_another_tokenizer():
    with pytest.raises(ValueError, match="qwen2.5"):
        build_workloads(12, Engine(), SAMPLE[:1])


def test_generation_is_deterministic_and_seeded(engine, everything):
    again = build_workloads(12, engine, SAMPLE[:3])
    assert [w.name for w in again] == [n for n in workload_names() if n in SAMPLE[:3]]
    for b in again:
        a = everything[b.name]
        assert (a.records, a.fixed, a.offsets, a.unit_offsets) == (b.records, b.fixed, b.offsets, b.unit_offsets)
    other = build_workloads(13, engine, SAMPLE[:1])[0]
    assert other.records != everything[SAMPLE[0]].records


def test_records_are_clean_qwen_traffic_of_the_declared_kind(everything):
    chatml = plain = 0
    for w in everything.values():
        assert 20 <= len(w.records) <= 100 and len(w.fixed) == len(w.records), w.name
        text = json.dumps(w.records + w.fixed, ensure_ascii=False)
        for m in (MARK, UNIT, SKIP):
            assert m not in text and json.dumps(m)[1:-1] not in text, w.name  # nor hidden as a JSON escape
        key = {"messages": "messages", "prompt": "prompt", "input_ids": "input_ids"}[w.kind]
        assert all(key in r for r in w.records + w.fixed), w.name
        for r in w.records + w.fixed:
            if "input_ids" in r:  # Qwen ids of a ChatML rendering: no Llama BOS, turns opened and closed
                ids = r["input_ids"]
                assert ids[0] == IM_START and IM_END in ids and LLAMA_BOS not in ids and max(ids) < 151665, w.name
            if "prompt" in r:
                if r["prompt"].startswith("<|im_start|>system\n"):
                    assert r["prompt"].endswith("<|im_start|>assistant\n"), w.name
                    chatml += 1
                else:
                    assert "<|im_start|>" not in r["prompt"], w.name
                    plain += 1
    assert chatml >= 400 and plain >= 300, (chatml, plain)


def test_the_qwen_template_renders_tools_calls_and_results(engine):
    # Tools as JSON lines in <tools> inside the first system turn, after its text; a tool call
    # as a <tool_call> block with parsed arguments; results as <tool_response> in a user turn.
    o, _ = build_pairs("pet-weight-in-tool-call-args-one-of-two-products", 12, engine)[0]
    text = engine.text(unmark(o))
    system = text.split("<|im_end|>")[0]
    assert system.startswith("<|im_start|>system\nYou are the assistant")
    tools = system.split("<tools>\n")[1].split("\n</tools>")[0].split("\n")
    assert [json.loads(t)["function"]["name"] for t in tools] == ["estimate_surgery", "book_appointment", "check_insurance"]
    assert '<|im_start|>assistant\n<tool_call>\n{"name": "estimate_surgery", "arguments": {"procedure": ' in text
    assert "<|im_start|>user\n<tool_response>\n{" in text and text.endswith("<|im_start|>assistant\n")
    parts_rec, _ = build_pairs("chinese-client-system-content-part", 12, engine)[0]
    assert "客户：" in engine.text(unmark(parts_rec)).split("<|im_end|>")[0]  # a content part of the system turn
    two, _ = build_pairs("reading-streak-second-system-message-ids", 12, engine)[0]
    assert engine.text(unmark(two)).count("<|im_start|>system\n") == 2


def test_digits_are_single_tokens_and_spans_reach_hundreds(engine):
    tok = engine.tok
    assert tok.encode("2026") == [tok.encode(c)[0] for c in "2026"]
    for o, _ in build_pairs("queue-position-one-digit-ids", 12, engine)[:30]:
        content = unmark(o)["messages"][0]["content"]
        pos = content.split("answering caller ")[1].split(" ")[0]
        assert len(tok.encode(pos)) == 1
    maps = [f["prompt"].split("Bin map:\n")[1].split("\nAssistant:")[0] for _, f in build_pairs("wafer-bin-map-digits-prompt", 12, engine)]
    sizes = sorted(len(tok.encode(m)) for m in maps)
    assert sizes[0] >= 100 and sizes[-1] >= 250, sizes


def test_the_logs_are_noisy_like_production(everything):
    sizes = [len(w.records) for w in everything.values()]
    assert min(sizes) <= 50 and max(sizes) >= 95, sizes
    sessions = build_pairs("clean-transit-sessions-1-to-10-ids", 12, qwen_engine())
    turns = Counter(sum(1 for m in o["messages"] if m["role"] == "user") for o, _ in sessions)
    assert min(turns) == 1 and max(turns) >= 8, turns


@pytest.mark.parametrize("name", sorted(PARTIAL))
def test_some_requests_lack_the_defect(engine, marks, name):
    got = [m for _, m, _ in marks[name]]
    lacking = sum(1 for m in got if m[0] is None) / len(got)
    lo, hi = PARTIAL[name]
    assert lo <= lacking <= hi, (name, lacking)
    for (o, f), m in zip(build_pairs(name, 12, engine), got):
        if m[0] is None:  # a request without the defect is its own fix
            assert engine.ids(unmark(o)) == engine.ids(f), name


def test_requests_share_everything_before_the_first_defect_and_part_there(engine, everything, marks):
    for w in everything.values():
        if not w.expect:
            continue
        carrying = ([i for i, (_, m, _) in enumerate(marks[w.name]) if m[0] is not None] if w.name in marks
                    else range(len(w.records)))  # only the PARTIAL workloads have requests without the defect
        ids = [array("I", engine.ids(w.records[i])).tobytes() for i in carrying]
        off = w.offsets[0]
        assert all(x[: 4 * off] == ids[0][: 4 * off] for x in ids), w.name
        assert min(lcp(ids[0], x) for x in ids[1:]) <= off + 1, w.name
        assert all(u <= o for u, o in zip(w.unit_offsets, w.offsets)), w.name
        assert list(w.offsets) == sorted(w.offsets), w.name


def test_first_token_defects_sit_right_after_the_system_header(everything):
    # <|im_start|> system \n: the first content token of a ChatML prompt is the fourth.
    assert everything["dispute-case-number-first-token-ids"].offsets == (3,)
    assert everything["three-system-messages-rotating-order"].offsets == (3,)
    assert everything["wire-article-before-style-guide-chatml-prompt"].unit_offsets == (3,)
    assert everything["scouting-report-before-instructions-prompt"].unit_offsets == (0,)  # a plain prompt: no header


def test_deep_defects_are_deep(everything):
    assert 2000 <= everything["embargo-german-time-deep-chatml-prompt"].offsets[0] <= 3000


@pytest.mark.parametrize("name", MULTI)
def test_every_planted_defect_is_a_point_where_the_requests_stop_agreeing(marks, name):
    # Later defects sit behind earlier ones, so check each at every request's own marker.
    expect = next(r[2] for r in REGISTRY if r[0] == name)
    for k in range(len(expect)):
        here = [(ids, m[k]) for ids, m, _ in marks[name] if m[k] is not None]
        before = {tuple(ids[at - 3: at]) for ids, at in here}
        after = {tuple(ids[at: at + 12]) for ids, at in here}
        assert len(before) == 1, (name, k, len(before))
        assert len(after) > 1, (name, k)


def test_every_fix_gains_and_controls_are_their_own_fix(engine, everything):
    for w in everything.values():
        before, truth = _rate(engine, w.records), _rate(engine, w.fixed)
        if w.expect:
            assert truth > before + 0.005, w.name
        else:
            assert w.records == w.fixed, w.name


def test_the_fix_only_moves_content(engine, everything):
    # A fix relocates or reorders what was sent (dropping only a label the moved value no longer
    # needs): the fixed prompt is never much shorter or longer than the original.
    for w in everything.values():
        for r, f in zip(w.records[:15], w.fixed[:15]):
            a, b = len(engine.ids(r)), len(engine.ids(f))
            assert abs(a - b) <= 0.03 * a + 16, (w.name, a, b)
    o, f = build_pairs("vet-tools-shuffled-in-tools-block", 12, engine)[1]
    assert sorted(json.dumps(t, sort_keys=True) for t in unmark(o)["tools"]) == \
        sorted(json.dumps(t, sort_keys=True) for t in f["tools"])


# ---------------------------------------------------------------- the truth's placement, measured


def _copy(record: dict[str, Any]) -> dict[str, Any]:
    return json.loads(json.dumps(record, ensure_ascii=False))


def _system_tail_to_user_end(record: dict[str, Any]) -> dict[str, Any]:
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


def _user_tail_to_second_system(record: dict[str, Any]) -> dict[str, Any]:
    g = _copy(record)
    rest, tail = g["messages"][-1]["content"].rsplit("\n\n", 1)
    g["messages"][-1]["content"] = rest
    g["messages"].insert(len(g["messages"]) - 1, {"role": "system", "content": tail})
    return g


def _second_system_to_user_end(record: dict[str, Any]) -> dict[str, Any]:
    g = _copy(record)
    k = max(i for i, m in enumerate(g["messages"]) if m["role"] == "system")
    moved = g["messages"].pop(k)
    g["messages"][-1]["content"] += "\n\n" + moved["content"]
    return g


def _chatml_system_tail_to_user_end(record: dict[str, Any]) -> dict[str, Any]:
    text = record["prompt"]
    system, rest = text.split("<|im_end|>", 1)
    system, block = system.rsplit("\n\n", 1)
    user_part, cue = rest.rsplit("<|im_end|>", 1)
    return dict(record, prompt=f"{system}<|im_end|>{user_part}\n\n{block}<|im_end|>{cue}")


def _plain_block_after_question(cue: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def move(record: dict[str, Any]) -> dict[str, Any]:
        body, turn = record["prompt"].rsplit("\n\n" + cue, 1)
        body, block = body.rsplit("\n\n", 1)
        question, answer = turn.rsplit("\n", 1)
        return dict(record, prompt=f"{body}\n\n{cue}{question}\n{block}\n{answer}")
    return move


def _desk_after_article(record: dict[str, Any]) -> dict[str, Any]:
    system, rest = record["prompt"].split("<|im_end|>", 1)
    head, desk, article = system.rsplit("\n\n", 2)
    return dict(record, prompt=f"{head}\n\n{article}\n\n{desk}<|im_end|>{rest}")


# Few settings (or many in arrival order) stay right after the shared content; the profiles the
# truth sends last beat a second system turn after the tools. The other place is worse for each.
@pytest.mark.parametrize("name, other", [
    ("embargo-german-time-deep-chatml-prompt", _chatml_system_tail_to_user_end),
    ("bay-chamber-8-in-tool-description", _user_head_to_user_end),
    ("french-edition-date-8-days-prompt", _plain_block_after_question("Rédaction : ")),
    ("japanese-date-6-days-fab-ids", _system_tail_to_user_end),
    ("service-pattern-3-settings-ids", _system_tail_to_user_end),
    ("session-mode-2-settings-chatml-prompt", _chatml_system_tail_to_user_end),
    ("vehicles-in-service-hourly-ids", _system_tail_to_user_end),
    ("closed-stops-enum-in-nested-tool-param", _user_head_to_user_end),
    ("queue-position-one-digit-ids", _system_tail_to_user_end),
    ("daily-bulletin-3-before-manual-ids", _system_tail_to_user_end),
    ("retrieved-passages-between-system-text-and-tools", _user_head_to_user_end),
    ("child-profile-system-before-rules-ids", _second_system_to_user_end),
    ("article-first-and-desk-4-chatml-prompt", _desk_after_article),
    ("cardholder-profile-before-prompt-and-tools", _user_tail_to_second_system),
    ("profile-before-tools-and-streak-in-tool", _user_tail_to_second_system),
])
def test_the_truth_places_content_where_it_measures_best(engine, name, other: Callable[[dict], dict]):
    fixed = [f for _, f in build_pairs(name, 12, engine)]
    moved = [other(f) if "messages" in f or "prompt" in f else f for f in fixed]
    assert moved != fixed
    assert _rate(engine, fixed) > _rate(engine, moved), name


def test_tool_markers_follow_the_rendered_key_order(engine, everything):
    w = everything["vet-tools-shuffled-in-tools-block"]
    ids = [array("I", engine.ids(r)).tobytes() for r in w.records]
    assert min(lcp(ids[0], x) for x in ids[1:]) == w.offsets[0]


# ---------------------------------------------------------------- the tempting controls


def _sorted_notes(record: dict[str, Any]) -> dict[str, Any]:
    head, rest = record["prompt"].split("\n\nNotes:\n", 1)
    notes, question = rest.split("\n\nScout: ", 1)
    return dict(record, prompt=f"{head}\n\nNotes:\n" + "\n".join(sorted(notes.split("\n"))) + f"\n\nScout: {question}")


def _one_date(record: dict[str, Any]) -> dict[str, Any]:
    g = _copy(record)
    g["messages"][0]["content"] = g["messages"][0]["content"].replace("2026年12月2日", "2026年12月1日")
    return g


def _shift_to_user(record: dict[str, Any]) -> dict[str, Any]:
    return _chatml_system_tail_to_user_end(record)


# The most a fix of what tempts could gain stays under the 1% a control may be promised.
@pytest.mark.parametrize("name, best", [
    ("clean-passages-after-static-prompt", _sorted_notes),
    ("clean-japanese-date-changes-once-ids", _one_date),
    ("clean-shift-3-at-end-of-system-chatml-prompt", _shift_to_user),
])
def test_no_control_hides_a_fix_worth_one_percent(engine, name, best: Callable[[dict], dict]):
    records = [o for o, _ in build_pairs(name, 12, engine)]
    tempted = [best(r) for r in records]
    assert tempted != records
    assert _rate(engine, tempted) - _rate(engine, records) < 0.008, name


# ---------------------------------------------------------------- against `advisor analyze` as the bench runs it


def test_oracle_agrees_exactly_with_analyze_served_as_qwen(cli, tmp_path, engine, everything):
    assert ANALYZE_ARGS == ("--tokenizer", "qwen2.5", "--chat-template", str(TEMPLATE)) and TEMPLATE.is_file()
    for name in SAMPLE:
        w = everything[name]
        for label, records in (("orig", w.records), ("fixed", w.fixed)):
            path = tmp_path / f"{w.name}.{label}.jsonl"
            write_jsonl(records, path)
            res = cli("analyze", str(path), *ANALYZE_ARGS, "--format", "json", "--no-diagnose")
            assert res.code == 0, res.err
            report = json.loads(res.out)
            assert (report["cached_tokens"], report["prompt_tokens"]) == oracle(engine.ids(r) for r in records), \
                (w.name, label)


def test_the_bench_serves_the_set_with_its_arguments():
    sys.path.insert(0, str(ROOT / "bench"))
    import diagnose_heldout as bench  # noqa: E402

    from tests.diagnose import heldout6, heldout8

    assert bench.SETS["heldout8"] is heldout8
    assert bench.set_args(heldout8) == ANALYZE_ARGS and bench.tokenizer_of(ANALYZE_ARGS) == "qwen2.5"
    assert bench.set_args(heldout6) == () and bench.tokenizer_of(()) == "llama3"  # the other sets as before


def test_the_render_helper_renders_as_the_set_does(monkeypatch, capsys, engine):
    sys.path.insert(0, str(ROOT / "bench"))
    import heldout_render  # noqa: E402

    records = [unmark(o) for o, _ in build_pairs("case-number-and-shuffled-tools", 12, engine)[:3]]
    records.append(unmark(build_pairs("fewshot-chatml-turns-shuffled-prompt", 12, engine)[0][0]))
    feed = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    monkeypatch.setattr(sys, "stdin", io.StringIO(feed))
    assert heldout_render.main(list(ANALYZE_ARGS)) == 0
    out = [json.loads(line)["text"] for line in capsys.readouterr().out.splitlines()]
    assert out == [engine.text(r) for r in records]
    monkeypatch.setattr(sys, "stdin", io.StringIO(feed))
    assert heldout_render.main([]) == 0  # without them: the default Llama 3 layout
    default = [json.loads(line)["text"] for line in capsys.readouterr().out.splitlines()]
    assert default[0].startswith("<|begin_of_text|>") and default[0] != out[0]
