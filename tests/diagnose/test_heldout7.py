"""The seventh held-out set's generator and truth, checked against themselves and `advisor analyze`.

Nothing here asserts the detector's findings or predictions: bench/diagnose_heldout.py
--set heldout7 reports those. These tests make sure the planted offsets and the truth the
bench compares with are right, that the noise the set adds (requests without the defect,
sessions, two products or jobs on one endpoint) is really there, that the controls hide no fix
worth a finding, and that the set stays deterministic and varied.
"""

from __future__ import annotations

import json
from array import array
from collections import Counter
from typing import Any, Callable

import pytest

from tests.diagnose.heldout import Engine, lcp, oracle, write_jsonl
from tests.diagnose.heldout import MARK, UNIT
from tests.diagnose.heldout7 import (
    REGISTRY, SKIP, build_pairs, build_workloads, first_tool_key, marked, unmark, workload_names,
)

# Each record kind and class, the first token, tool-call arguments, a tool result, content parts,
# an assistant turn, a second system message, sessions, requests without the defect, two
# products, three classes in one request, and tempting controls.
SAMPLE = ["tracking-hex-first-token-ids", "rules-as-of-hour-in-tool-call-args", "session-jwt-in-json-tool-result",
          "seller-badge-first-content-part", "spray-window-in-canned-assistant-greeting", "player-state-second-system",
          "npc-mood-first-text-sessions-ids", "core-passages-in-score-order-prompt", "yaml-register-list-in-tool-result",
          "tools-by-usage-growing-sessions", "abstracts-system-then-instructions-system",
          "coupon-tool-in-middle-of-static-tools", "git-status-step-before-agents-md-step",
          "guest-thread-amenities-room-rate-prompt", "clean-dialogue-choice-tree-ids",
          "clean-storefront-locale-after-tools", "clean-label-limit-changes-once-ids"]
MULTI = [r[0] for r in REGISTRY if len(r[2]) > 1]
DEFECTS = [r[0] for r in REGISTRY if r[2]]
# Workloads where some requests lack the defect, and the share that should.
PARTIAL = {"doi-label-first-line-screening-prompt": (0.04, 0.22), "session-jwt-in-json-tool-result": (0.06, 0.26),
           "basket-tsv-ahead-of-static-tools": (0.03, 0.2), "field-bullets-shuffled-one-of-two-products": (0.15, 0.38),
           "open-file-before-coding-conventions-prompt": (0.04, 0.22),
           "contract-before-extraction-instructions-prompt": (0.04, 0.22),
           "coupon-tool-in-middle-of-static-tools": (0.06, 0.26), "git-status-step-before-agents-md-step": (0.03, 0.2)}


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine()


@pytest.fixture(scope="module")
def sample(engine):
    return build_workloads(12, engine, SAMPLE)


@pytest.fixture(scope="module")
def all_pairs(engine):
    return {name: build_pairs(name, 12, engine) for name in workload_names()}


@pytest.fixture(scope="module")
def all_marks(engine, all_pairs):
    return {name: [marked(engine, o) for o, _ in all_pairs[name]] for name in DEFECTS}


def _rate(engine: Engine, records) -> float:
    cached, total = oracle(engine.ids(r) for r in records)
    return cached / total


def test_the_set_is_big_and_varied():
    names = workload_names()
    assert len(names) == len(set(names))
    assert set(SAMPLE) <= set(names) and set(PARTIAL) <= set(names)
    defects = [r for r in REGISTRY if r[2]]
    controls = [r for r in REGISTRY if not r[2]]
    assert len(defects) >= 36 and len(controls) >= 10
    kinds = Counter(r[1] for r in defects)
    assert set(kinds) == {"messages", "prompt", "input_ids"}
    assert all(n >= len(defects) // 4 for n in kinds.values()), kinds  # roughly a third each
    assert {r[1] for r in controls} == {"messages", "prompt", "input_ids"}
    classes = Counter(c for r in defects for e in r[2] for c in e.split("|"))
    assert set(classes) == {"dynamic", "order", "placement"}
    assert classes["order"] >= 10 and classes["placement"] >= 10
    assert len(MULTI) >= 6 and any(len(set(r[2])) >= 3 for r in defects)
    assert {frozenset(r[2]) for r in REGISTRY if r[0] in MULTI} >= {
        frozenset({"dynamic"}), frozenset({"placement", "dynamic"}), frozenset({"order", "dynamic"}),
        frozenset({"placement", "order"}), frozenset({"placement", "order", "dynamic"})}


def test_no_shape_name_repeats_an_earlier_set():
    from tests.diagnose import heldout, heldout2, heldout3, heldout4, heldout5, heldout6

    earlier = {r[0] for m in (heldout, heldout2, heldout3, heldout4, heldout5, heldout6) for r in m.REGISTRY}
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
        assert 20 <= len(w.records) <= 130 and len(w.fixed) == len(w.records), w.name
        text = json.dumps(w.records + w.fixed, ensure_ascii=False)
        for m in (MARK, UNIT, SKIP):
            assert m not in text and json.dumps(m)[1:-1] not in text, w.name  # nor hidden as a JSON escape
        key = {"messages": "messages", "prompt": "prompt", "input_ids": "input_ids"}[w.kind]
        assert all(key in r for r in w.records + w.fixed), w.name


def test_the_logs_are_noisy_like_production(all_pairs):
    sizes = {name: len(pairs) for name, pairs in all_pairs.items()}
    assert min(sizes.values()) <= 25 and max(sizes.values()) >= 110, sizes
    assert all(20 <= n <= 125 for n in sizes.values()), sizes


def test_prompts_are_long_enough_and_some_defects_deep(engine, sample, all_marks):
    # System prompts of 1-4k tokens: every request of the sample is over 1k tokens, and the
    # deep defects sit 2-3k tokens in.
    for w in sample:
        lengths = sorted(len(engine.ids(r)) for r in w.records)
        assert lengths[len(lengths) // 2] > 1000, (w.name, lengths[len(lengths) // 2])
    for name in ("what3words-deep-voice-ids", "runner-image-digest-deep-ids"):
        at = sorted(m[0] for _, m, _ in all_marks[name])
        assert 2000 <= at[len(at) // 2] <= 3000, (name, at[len(at) // 2])


@pytest.mark.parametrize("name", sorted(PARTIAL))
def test_some_requests_lack_the_defect(engine, all_pairs, all_marks, name):
    marks = [m for _, m, _ in all_marks[name]]
    lacking = sum(1 for m in marks if m[0] is None) / len(marks)
    lo, hi = PARTIAL[name]
    assert lo <= lacking <= hi, (name, lacking)
    # A request without the defect is its own fix.
    for (o, f), m in zip(all_pairs[name], marks):
        if m[0] is None:
            assert engine.ids(unmark(o)) == engine.ids(f), name


def test_sessions_vary_in_length_and_branch(all_pairs):
    for name in ("tools-by-usage-growing-sessions", "booking-confirmation-before-handbook-sessions-ids",
                 "npc-mood-first-text-sessions-ids", "clean-voice-calls-timestamped-turns-ids"):
        turns = Counter(sum(1 for m in o["messages"] if m["role"] == "user") for o, _ in all_pairs[name])
        assert min(turns) == 1 and max(turns) >= 5, (name, turns)
    # Branching: playthroughs that chose alike send the same history with another last choice.
    tree = [o for o, _ in all_pairs["clean-dialogue-choice-tree-ids"]]
    heads = Counter(json.dumps(o["messages"][:-1]) for o in tree)
    assert any(n >= 2 for h, n in heads.items() if len(json.loads(h)) > 2), "no shared history"
    assert len({json.dumps(o["messages"]) for o in tree}) < len(tree)  # replayed steps too


def test_requests_share_everything_before_the_first_defect_and_part_there(engine, sample, all_marks):
    for w in sample:
        if not w.expect:
            continue
        carrying = [i for i, (_, m, _) in enumerate(all_marks[w.name]) if m[0] is not None]
        ids = [array("I", engine.ids(w.records[i])).tobytes() for i in carrying]
        off = w.offsets[0]
        assert all(x[: 4 * off] == ids[0][: 4 * off] for x in ids), w.name
        assert min(lcp(ids[0], x) for x in ids[1:]) <= off + 2, w.name
        assert all(u <= o for u, o in zip(w.unit_offsets, w.offsets)), w.name
        assert list(w.offsets) == sorted(w.offsets), w.name


def test_the_tracking_id_is_planted_right_after_bos(sample):
    w = next(x for x in sample if x.name == "tracking-hex-first-token-ids")
    assert w.offsets == (1,)


def test_span_lengths_reach_from_one_token_to_hundreds(engine, all_pairs):
    spans = set()
    for o, _ in all_pairs["ukrainian-queue-position-ids"][:40]:
        text = unmark(o)["messages"][0]["content"]
        n = text.split("Ваша позиція в черзі: ")[1].split(",")[0]
        spans.add(len(engine.tok.encode(n)))
    assert spans == {1}
    sizes = sorted(len(engine.tok.encode(f["messages"][-1]["content"].split("Basket (TSV):\n")[1]))
                   for _, f in all_pairs["basket-tsv-ahead-of-static-tools"] if "Basket" in f["messages"][-1]["content"])
    assert sizes[0] < 120 and sizes[-1] > 350, sizes
    docs = sorted(len(engine.tok.encode(f["prompt"].split("Document:\n")[1])) for _, f in
                  all_pairs["contract-before-extraction-instructions-prompt"] if "Document:\n" in f["prompt"])
    assert docs[0] < 250 and docs[-1] > 450, docs


@pytest.mark.parametrize("name", DEFECTS)
def test_every_planted_defect_is_a_point_where_the_requests_stop_agreeing(all_marks, name):
    # Later defects sit behind earlier ones, so check each at every request's own marker:
    # the tokens just before it agree across requests and the tokens from it on do not.
    expect = next(r[2] for r in REGISTRY if r[0] == name)
    for k in range(len(expect)):
        here = [(ids, m[k]) for ids, m, _ in all_marks[name] if m[k] is not None]
        before = {tuple(ids[at - 3: at]) for ids, at in here}
        after = {tuple(ids[at: at + 12]) for ids, at in here}
        assert len(before) == 1, (name, k, len(before))
        assert len(after) > 1, (name, k)


def test_the_fix_gains_and_controls_are_their_own_fix(engine, sample):
    for w in sample:
        c0, t0 = oracle(engine.ids(r) for r in w.records)
        c1, t1 = oracle(engine.ids(r) for r in w.fixed)
        if w.expect:
            assert c1 / t1 > c0 / t0 + 0.005, w.name
        else:
            assert w.records == w.fixed


def test_every_fix_gains_over_the_whole_set(engine, all_pairs):
    for name, _kind, expect, *_ in REGISTRY:
        pairs = all_pairs[name]
        if not expect:
            assert all(unmark(o) == f for o, f in pairs), name
            continue
        assert _rate(engine, [f for _, f in pairs]) > _rate(engine, [unmark(o) for o, _ in pairs]) + 0.005, name


# ---------------------------------------------------------------- the truth's placement, measured


def _copy(record: dict[str, Any]) -> dict[str, Any]:
    return json.loads(json.dumps(record, ensure_ascii=False))


def _system_tail_to_user_end(record: dict[str, Any]) -> dict[str, Any]:
    """The last system message's last block moved to the end of the last user turn."""
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


def _user_head_to_system_end(record: dict[str, Any]) -> dict[str, Any]:
    g = _copy(record)
    head, rest = g["messages"][-1]["content"].split("\n\n", 1)
    g["messages"][-1]["content"] = rest
    g["messages"][0]["content"] += "\n\n" + head
    return g


def _prompt_block_after_question(cue: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A prompt record's block just before ``cue`` (the question's label) moved after the question."""
    def move(record: dict[str, Any]) -> dict[str, Any]:
        g = _copy(record)
        body, turn = g["prompt"].rsplit("\n\n" + cue, 1)
        body, block = body.rsplit("\n\n", 1)
        question, answer = turn.rsplit("\n", 1)
        g["prompt"] = f"{body}\n\n{cue}{question}\n{block}\n{answer}"
        return g
    return move


def _matter_after_document(record: dict[str, Any]) -> dict[str, Any]:
    g = _copy(record)
    head, rest = g["prompt"].split("\n\nMatter: ", 1)
    matter, rest = rest.split("\n\nDocument:\n", 1)
    body, cue = rest.rsplit("\n\n", 1)
    g["prompt"] = f"{head}\n\nDocument:\n{body}\nMatter: {matter}\n\n{cue}"
    return g


def _queue_after_container(record: dict[str, Any]) -> dict[str, Any]:
    g = _copy(record)
    rest, queue, container = g["messages"][0]["content"].rsplit("\n\n", 2)
    g["messages"][0]["content"] = f"{rest}\n\n{container}\n\n{queue}"
    return g


def _last_tool_first(record: dict[str, Any]) -> dict[str, Any]:
    g = _copy(record)
    g["tools"] = g["tools"][-1:] + g["tools"][:-1]
    return g


# Few settings stay right after the shared content, where requests with the same setting share
# it too; the measured alternative (after the question, or before the tools) is worse for each.
@pytest.mark.parametrize("name, other", [
    ("rules-as-of-hour-in-tool-call-args", _user_head_to_user_end),
    ("runner-image-digest-deep-ids", _system_tail_to_user_end),
    ("voice-channel-2-settings-ids", _system_tail_to_user_end),
    ("tidal-window-hourly-prompt", _prompt_block_after_question("Haulier: ")),
    ("swahili-maize-price-daily-ids", _system_tail_to_user_end),
    ("npc-mood-first-text-sessions-ids", _system_tail_to_user_end),
    ("booking-confirmation-before-handbook-sessions-ids", _system_tail_to_user_end),
    ("tool-memory-before-instructions-and-tools", _user_head_to_user_end),
    ("tool-memory-before-instructions-and-tools", _user_head_to_system_end),
    ("basket-count-and-tools-recent-first", _user_head_to_user_end),
    ("container-json-first-and-gate-queue-hourly-ids", _queue_after_container),
    ("matter-and-counterparty-two-spans-prompt", _matter_after_document),
    ("coupon-tool-in-middle-of-static-tools", _last_tool_first),
])
def test_the_truth_places_few_settings_where_it_measures_best(engine, all_pairs, name, other):
    fixed = [f for o, f in all_pairs[name] if unmark(o) != f]
    moved = [other(f) for f in fixed]
    assert moved != fixed
    everyone = [f for _, f in all_pairs[name]]
    swapped = [other(f) if unmark(o) != f else f for o, f in all_pairs[name]]
    assert _rate(engine, everyone) > _rate(engine, swapped), name


def _user_tail_to_user_head(record: dict[str, Any]) -> dict[str, Any]:
    g = _copy(record)
    rest, tail = g["messages"][-1]["content"].rsplit("\n\n", 1)
    g["messages"][-1]["content"] = f"{tail}\n\n{rest}"
    return g


def _badge_after_draft(record: dict[str, Any]) -> dict[str, Any]:
    g = _copy(record)
    guide, badge, draft = g["messages"][-1]["content"]
    g["messages"][-1]["content"] = [guide, draft, badge]
    return g


def _doi_after_abstract(record: dict[str, Any]) -> dict[str, Any]:
    g = _copy(record)
    body, rest = g["prompt"].split("\n\nDOI ", 1)
    line, rest = rest.split("\n", 1)
    doc, cue = rest.rsplit("\n\n", 1)
    g["prompt"] = f"{body}\n\n{doc}\nDOI {line}\n\n{cue}"
    return g


def _prompt_line_before_question(label: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A prompt record's line just before the answer cue moved ahead of the question's ``label``."""
    def move(record: dict[str, Any]) -> dict[str, Any]:
        g = _copy(record)
        head, rest = g["prompt"].rsplit("\n\n" + label, 1)
        question, line, cue = rest.rsplit("\n", 2)
        g["prompt"] = f"{head}\n\n{line}\n{label}{question}\n{cue}"
        return g
    return move


def _tracking_before_cv(record: dict[str, Any]) -> dict[str, Any]:
    g = _copy(record)
    head, rest = g["prompt"].split("\n\nCV:\n", 1)
    cv, cue = rest.split("\n\nScreening note:")
    cv, line = cv.rsplit("\n", 1)
    g["prompt"] = f"{head}\n\n{line}\nCV:\n{cv}\n\nScreening note:{cue}"
    return g


def _counterparty_before_document(record: dict[str, Any]) -> dict[str, Any]:
    g = _copy(record)
    head, rest = g["prompt"].split("\n\nDocument:\n", 1)
    doc, tail = rest.split("\nCounterparty: ", 1)
    line, cue = tail.split("\n\n", 1)
    g["prompt"] = f"{head}\n\nCounterparty: {line}\nDocument:\n{doc}\n\n{cue}"
    return g


# Many settings: the truth takes the better of the two places (the end of the last user turn, or
# right after the content every request shares); each choice is measured against the other.
@pytest.mark.parametrize("name, other", [
    ("session-jwt-in-json-tool-result", _user_head_to_user_end),
    ("spray-window-in-canned-assistant-greeting", _user_head_to_user_end),
    ("clone-url-branch-token-query", _user_head_to_user_end),
    ("basket-tsv-ahead-of-static-tools", _user_head_to_user_end),
    ("diff-second-system-between-static", _user_head_to_user_end),
    ("lore-blocks-shuffled-and-server-clock-in-result", _user_head_to_user_end),
    ("branch-commit-line-and-lint-bullets-ids", _user_head_to_user_end),
    ("seller-badge-first-content-part", _badge_after_draft),
    ("doi-label-first-line-screening-prompt", _doi_after_abstract),
    ("what3words-deep-voice-ids", _user_tail_to_user_head),
    ("player-state-second-system", _user_tail_to_user_head),
    ("ukrainian-queue-position-ids", _user_tail_to_user_head),
    ("tracking-hex-first-token-ids", _tracking_before_cv),
    ("stay-dates-ten-locales-prompt", _prompt_line_before_question("Guest: ")),
    ("matter-and-counterparty-two-spans-prompt", _counterparty_before_document),
])
def test_the_truth_places_many_settings_where_it_measures_best(engine, all_pairs, name, other):
    everyone = [f for _, f in all_pairs[name]]
    swapped = [other(f) if unmark(o) != f else f for o, f in all_pairs[name]]
    assert swapped != everyone
    assert _rate(engine, everyone) > _rate(engine, swapped), name


def test_tool_markers_follow_the_rendered_key_order(engine, sample):
    assert first_tool_key(engine) in ("name", "description")
    w = next(x for x in sample if x.name == "tools-by-usage-growing-sessions")
    firsts = [r for r in w.records if len(r["messages"]) == 2]  # first turns: the tools are where they part
    ids = [array("I", engine.ids(r)).tobytes() for r in firsts]
    assert min(lcp(ids[0], x) for x in ids[1:]) == w.offsets[0]


def test_the_fix_only_moves_content(engine, all_pairs):
    # A fix relocates or reorders what was sent (dropping only a label the moved value no longer
    # needs): the fixed prompt is never much shorter or longer than the original.
    for name in DEFECTS:
        for o, f in all_pairs[name][:15]:
            a, b = len(engine.ids(unmark(o))), len(engine.ids(f))
            assert abs(a - b) <= 0.03 * a + 16, (name, a, b)
    o, f = all_pairs["coupon-tool-in-middle-of-static-tools"][0]
    assert sorted(json.dumps(t, sort_keys=True) for t in unmark(o)["tools"]) == \
        sorted(json.dumps(t, sort_keys=True) for t in f["tools"])
    for o, f in all_pairs["core-passages-in-score-order-prompt"][:20]:
        src = lambda rec: sorted(rec["prompt"].split("Sources:\n\n")[1].split("\n\nQuestion:")[0].split("\n\n"))  # noqa: E731
        assert src(unmark(o)) == src(f)
    o, f = all_pairs["room-types-compact-json-line-ids"][0]
    rooms = lambda rec: sorted(json.dumps(x, sort_keys=True) for x in json.loads(  # noqa: E731
        rec["messages"][0]["content"].split("Room types: ")[1].split("\n\n")[0]))
    assert rooms(unmark(o)) == rooms(f)


def test_values_ride_inside_tool_json_and_results(engine, sample):
    # The hour is inside the rendered tool call's parameters, the JWT inside the tool result's
    # JSON text: the requests part there, not at a message boundary.
    w = next(x for x in sample if x.name == "rules-as-of-hour-in-tool-call-args")
    text = engine.text(w.records[0])
    assert '"as_of": "2026-11-30T' in text  # the day of the requests' timestamps
    head = engine.tok.decode(engine.ids(w.records[0])[: w.offsets[0]])
    assert head.endswith('"as_of": "2026-11-30T'), head[-60:]
    w = next(x for x in sample if x.name == "session-jwt-in-json-tool-result")
    head = engine.tok.decode(engine.ids(w.records[0])[: w.offsets[0]])
    assert "ipython" in head[-400:] and '"jwt' in head[-200:], head[-200:]


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


# ---------------------------------------------------------------- what tempts in the controls


def _one_limit(record: dict[str, Any]) -> dict[str, Any]:
    g = _copy(record)
    g["messages"][0]["content"] = g["messages"][0]["content"].replace("max 1.0 l/ha", "max 1.2 l/ha")
    return g


def _limit_to_user_end(record: dict[str, Any]) -> dict[str, Any]:
    g = _copy(record)
    system = g["messages"][0]["content"]
    start = system.index("\n\nAscra Xpro on winter wheat:")
    end = system.index("\n\n", start + 2)
    g["messages"][0]["content"] = system[:start] + system[end:]
    g["messages"][-1]["content"] += system[start:end]
    return g


# The tempting controls: the most a fix of what tempts could gain stays under the 1% a control
# may be promised (most gain nothing or lose), so a finding there is a false one.
@pytest.mark.parametrize("name, best", [
    ("clean-label-limit-changes-once-ids", _one_limit),
    ("clean-label-limit-changes-once-ids", _limit_to_user_end),
    ("clean-storefront-locale-after-tools", _user_head_to_user_end),
    ("clean-tide-table-end-of-system", _system_tail_to_user_end),
])
def test_no_control_hides_a_fix_worth_one_percent(engine, all_pairs, name, best: Callable[[dict], dict]):
    records = [o for o, _ in all_pairs[name]]
    tempted = [best(r) for r in records]
    assert tempted != records
    assert _rate(engine, tempted) - _rate(engine, records) < 0.008, name
