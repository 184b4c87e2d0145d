"""Moves the eighth held-out set (a Qwen 2.5 ChatML layout) taught, generated here over two
layouts and checked through the CLI against the brute-force oracle of the fixed traffic:

- per-request text at the end of the system text, which a layout that prints the tools
  right after it puts ahead of the tools (no special token ends the span: the template's
  own text does);
- a per-request value in the arguments of a tool call the history replays, ahead of a
  static tool result."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from tests.diagnose import zoo
from tests.diagnose.heldout import Engine, oracle
from tests.diagnose.heldout8 import ANALYZE_ARGS, qwen_engine
from tests.diagnose.heldout10 import ANALYZE_ARGS as HARMONY_ARGS
from tests.diagnose.heldout10 import harmony_engine
from tests.diagnose.heldout13 import ANALYZE_ARGS as COMMAND_R_ARGS
from tests.diagnose.heldout13 import command_r_engine
from tests.diagnose.heldout14 import TOKENIZER as MISTRAL_TOKENIZER
from tests.diagnose.heldout14 import mistral_engine
from tests.diagnose.heldout15 import ANALYZE_ARGS as GEMMA_ARGS
from tests.diagnose.test_regressions_12c import _shuffled_keys

TOLERANCE = 0.02
LAYOUTS = {"llama3": (), "qwen2.5": ANALYZE_ARGS, "harmony": HARMONY_ARGS, "command_r": COMMAND_R_ARGS,
           # The bare template: the tokenizer names the end-of-sequence token it renders.
           "mistral": ("--tokenizer", MISTRAL_TOKENIZER, "--chat-template", "tests/chat_templates/mistral.jinja"),
           "gemma3": GEMMA_ARGS}


@pytest.fixture(scope="module")
def engines() -> dict[str, Engine]:
    return {"llama3": Engine(), "qwen2.5": qwen_engine(), "harmony": harmony_engine(), "command_r": command_r_engine(),
            "mistral": mistral_engine()}


def _run(tmp_path: Path, cli, name: str, records: list[dict[str, Any]], layout: str) -> dict:
    path = tmp_path / f"{name}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    res = cli("prescribe", path, *LAYOUTS[layout], "--format", "json")
    assert res.code == 0, res.err
    return json.loads(res.out)


def _truth(engine: Engine, fixed: list[dict[str, Any]]) -> float:
    cached, total = oracle(engine.ids(r) for r in fixed)
    return cached / total


def _tools(seed: str) -> list[dict[str, Any]]:
    return [{"type": "function", "function": t["function"]} if "function" in t else t for t in zoo.tools(seed, 4)]


def _passages(rng: random.Random, pool: list[str]) -> str:
    return "Reference passages:\n" + "\n".join(f"[KB-{k:03d}] {pool[k]}" for k in sorted(rng.sample(range(len(pool)), 3)))


@pytest.mark.parametrize("layout", ["qwen2.5", "llama3"])
def test_passages_ending_the_system_text_move_out_from_ahead_of_the_tools(tmp_path, cli, engines, layout) -> None:
    rng = random.Random(3)
    system, tools = zoo.persona("passages-tools"), _tools("passages-tools")
    pool = [zoo.sentence(rng, 14, 24) for _ in range(40)]
    records, fixed = [], []
    for _ in range(40):
        docs, q = _passages(rng, pool), zoo.question(rng)
        records.append({"messages": [{"role": "system", "content": f"{system}\n\n{docs}"},
                                     {"role": "user", "content": q}], "tools": tools})
        fixed.append({"messages": [{"role": "system", "content": system},
                                   {"role": "user", "content": f"{docs}\n\n{q}"}], "tools": tools})
    data = _run(tmp_path, cli, f"passages-{layout}", records, layout)
    truth = _truth(engines[layout], fixed)
    assert abs(data["hit_rate_after"] - truth) <= TOLERANCE, (data["hit_rate_after"], truth, data["actions"])
    if layout == "qwen2.5":
        # The tools follow the passages only in this layout: moving them gains most of the prompt.
        assert data["hit_rate_after"] - data["hit_rate_before"] > 0.2


def _call(args: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": "", "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "estimate_cost", "arguments": json.dumps(args)}}]}


@pytest.mark.parametrize("layout", ["qwen2.5", "llama3"])
def test_a_value_in_a_replayed_tool_call_goes_to_the_user_turn(tmp_path, cli, engines, layout) -> None:
    rng = random.Random(9)
    system, tools = zoo.persona("call-args"), _tools("call-args")
    price_list = json.dumps({"bands": [{"up_to_kg": kg, "price": 100 + 7 * kg, "note": zoo.sentence(rng)}
                                       for kg in (5, 10, 20, 40, 70)]}, indent=1)
    records, fixed = [], []
    for _ in range(40):
        kg = f"{rng.uniform(2, 60):.1f} kg"
        q = zoo.question(rng)
        head = [{"role": "system", "content": system}, {"role": "user", "content": "What would it cost?"}]
        result = {"role": "tool", "tool_call_id": "call_1", "content": price_list}
        records.append({"messages": head + [_call({"procedure": "scale and polish", "weight": kg}), result,
                                            {"role": "user", "content": q}], "tools": tools})
        fixed.append({"messages": head + [_call({"procedure": "scale and polish"}), result,
                                          {"role": "user", "content": f"{q}\n\nweight: {kg}"}], "tools": tools})
    data = _run(tmp_path, cli, f"call-args-{layout}", records, layout)
    # The value is in the messages (a call's arguments): no template pin is proposed.
    assert not [a for a in data["actions"] if a["kind"] == "pin-template-value"], data["actions"]
    truth = _truth(engines[layout], fixed)
    assert abs(data["hit_rate_after"] - truth) <= TOLERANCE, (data["hit_rate_after"], truth)
    assert data["hit_rate_after"] - data["hit_rate_before"] > 0.05


@pytest.mark.parametrize("layout", ["qwen2.5", "llama3"])
def test_a_short_system_message_ahead_of_the_tools_moves_to_the_user_turn(tmp_path, cli, engines, layout) -> None:
    # A one-line first system message (the caseworker on duty): ChatML prints its role
    # name as text after <|im_start|>, which is no part of the message an anchor looks in.
    rng = random.Random(11)
    system, tools = zoo.persona("caseworker-tools"), _tools("caseworker-tools")
    names = ["Samir Haidari", "Marta Kowal", "Leyla Aziz", "Oskar Berg", "Ines Duarte", "Tomas Ruud"]
    records, fixed = [], []
    for _ in range(48):
        line, q = f"Caseworker: {rng.choice(names)}", zoo.question(rng)
        records.append({"messages": [{"role": "system", "content": line}, {"role": "system", "content": system},
                                     {"role": "user", "content": q}], "tools": tools})
        fixed.append({"messages": [{"role": "system", "content": system},
                                   {"role": "user", "content": f"{q}\n\n{line}"}], "tools": tools})
    data = _run(tmp_path, cli, f"caseworker-{layout}", records, layout)
    assert [f["code"] for f in data["findings"]] == ["TR101"], [(f["code"], f["example"][:40]) for f in data["findings"]]
    truth = _truth(engines[layout], fixed)
    assert abs(data["hit_rate_after"] - truth) <= TOLERANCE, (data["hit_rate_after"], truth)


@pytest.mark.parametrize("layout", ["harmony", "llama3"])
def test_abstracts_ahead_of_the_instructions_move_whole(tmp_path, cli, engines, layout) -> None:
    # Retrieved abstracts opening the system text, each ending with a stop: pairs of requests
    # that share the first abstracts see the span start after one ('.\n\n'), which is no
    # context of its own (every paragraph ends so) and finds text anywhere.
    rng = random.Random(23)
    system = "\n\n".join(zoo.persona(f"abstracts-{k}") for k in range(6))
    pool = [f"EP{rng.randint(10**6, 10**7)}A1: " + zoo.sentence(rng, 16, 30) + "." for _ in range(30)]
    records, fixed = [], []
    for _ in range(40):
        # The top abstract comes from a few, so pairs often share it and part after it.
        docs = "Retrieved:\n" + "\n\n".join([rng.choice(pool[:3])] + rng.sample(pool[3:], 3))
        q = zoo.question(rng)
        records.append({"messages": [{"role": "system", "content": f"{docs}\n\n{system}"}, {"role": "user", "content": q}]})
        fixed.append({"messages": [{"role": "system", "content": system}, {"role": "user", "content": f"{docs}\n\n{q}"}]})
    data = _run(tmp_path, cli, f"abstracts-{layout}", records, layout)
    truth = _truth(engines[layout], fixed)
    assert abs(data["hit_rate_after"] - truth) <= TOLERANCE, (data["hit_rate_after"], truth)


def _rules(seed: str) -> str:
    return "\n\n".join(zoo.sections(seed, 6, "markdown"))


@pytest.mark.parametrize("layout", ["command_r", "qwen2.5", "llama3"])
def test_rules_sent_after_a_lookup_exchange_go_first(tmp_path, cli, engines, layout) -> None:
    """The rules as a later system message, after a lookup the client ran first (a call
    and its result, per request): behind the exchange no request shares them. The fix
    sends them right after the opening system message."""
    rng = random.Random(17)
    persona, rules, tools = zoo.persona("late-rules"), _rules("late-rules"), _tools("late-rules")
    records, apart, joined = [], [], []
    for _ in range(40):
        ref = f"CASE-{rng.randint(10000, 99999)}"
        result = json.dumps({"case": ref, "status": rng.choice(["open", "held", "closed"]), "notes": zoo.sentence(rng)})
        exchange = [{"role": "user", "content": "Open the case on my screen."}, _call({"case": ref}),
                    {"role": "tool", "tool_call_id": "call_1", "content": result}]
        q = {"role": "user", "content": zoo.question(rng)}
        opening = {"role": "system", "content": persona}
        late = {"role": "system", "content": rules}
        records.append({"messages": [opening, *exchange, late, q], "tools": tools})
        apart.append({"messages": [opening, late, *exchange, q], "tools": tools})
        joined.append({"messages": [{"role": "system", "content": f"{persona}\n\n{rules}"}, *exchange, q], "tools": tools})
    data = _run(tmp_path, cli, f"late-rules-{layout}", records, layout)
    truth = max(_truth(engines[layout], apart), _truth(engines[layout], joined))
    assert abs(data["hit_rate_after"] - truth) <= TOLERANCE, (data["hit_rate_after"], truth, data["actions"])
    assert data["hit_rate_after"] - data["hit_rate_before"] > 0.3


@pytest.mark.parametrize("layout", ["command_r", "llama3"])
def test_instructions_resent_after_the_history_go_first(tmp_path, cli, engines, layout) -> None:
    """Conversations with no first system message, whose client sends the instructions as
    a system message after the history, right before the newest question. Under a layout
    whose markers the tokenizer does not know as special tokens (Command R's under the
    Llama 3 tokenizer), the varying span runs across message boundaries: the value is
    message text all the same, and the fix moves the message, not a template value."""
    rng = random.Random(23)
    instructions = zoo.persona("resent") + "\n\n" + _rules("resent")
    records, fixed = [], []
    for _ in range(12):
        turns = [(zoo.question(rng), zoo.paragraph(rng, 2, 4)) for _ in range(rng.randint(2, 5))]
        for k in range(len(turns)):
            history = [m for u, a in turns[:k] for m in ({"role": "user", "content": u}, {"role": "assistant", "content": a})]
            q = {"role": "user", "content": turns[k][0]}
            late = {"role": "system", "content": instructions}
            records.append({"messages": [*history, late, q]})
            fixed.append({"messages": [late, *history, q]})
    data = _run(tmp_path, cli, f"resent-{layout}", records, layout)
    assert not [a for a in data["actions"] if a["kind"] == "pin-template-value"], data["actions"]
    truth = _truth(engines[layout], fixed)
    assert abs(data["hit_rate_after"] - truth) <= TOLERANCE, (data["hit_rate_after"], truth, data["actions"])


@pytest.mark.parametrize("kind", ["input_ids", "prompt"])
def test_sections_in_another_order_sort_whole_when_a_turn_follows_them(tmp_path, cli, engines, kind) -> None:
    """Sections of the system text in another order per request, logged as token ids or as
    the prompt the Command R template prints: the last section runs into the markers of
    the next turn, which the Llama 3 tokenizer does not know as special tokens. It is the
    same unit as anywhere else, and the fix sorts all of them."""
    rng = random.Random(29)
    engine = engines["command_r"]
    opening = zoo.persona("cellar-order")
    sections = zoo.sections("cellar-order", 8, "markdown")
    records, fixed = [], []
    for _ in range(40):
        q = {"role": "user", "content": zoo.question(rng)}
        order = rng.sample(sections, len(sections))
        for out, secs in ((records, order), (fixed, sections)):
            chat = {"messages": [{"role": "system", "content": opening + "\n\n" + "\n\n".join(secs)}, q]}
            out.append({"input_ids": engine.ids(chat)} if kind == "input_ids" else {"prompt": engine.text(chat)})
    path = tmp_path / f"cellar-{kind}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    res = cli("prescribe", path, "--format", "json")
    assert res.code == 0, res.err
    data = json.loads(res.out)
    assert [f["code"] for f in data["findings"]] == ["TR201"], [(f["code"], f["example"][:40]) for f in data["findings"]]
    truth = _truth(engine, fixed)
    assert abs(data["hit_rate_after"] - truth) <= TOLERANCE, (data["hit_rate_after"], truth)


@pytest.mark.parametrize("layout", ["command_r", "llama3"])
def test_a_canned_result_with_its_keys_in_another_order_is_serialized_sorted(tmp_path, cli, engines, layout) -> None:
    """A priming exchange whose tool result is one JSON record, built from an unordered map:
    the same members in another order per request. Sorting its keys fixes it."""
    rng = random.Random(31)
    system, tools = zoo.persona("canned-keys"), _tools("canned-keys")
    spec = {"moisture_max": 12.5, "density_min": 650, "defects_primary": 1, "defects_secondary": 8,
            "roast": "8-12 min", "cups": 5, "notes": zoo.paragraph(rng, 3, 4)}
    records, fixed = [], []
    for _ in range(40):
        q = {"role": "user", "content": zoo.question(rng)}
        head = [{"role": "system", "content": system}, {"role": "user", "content": "Load the grading spec."},
                _call({"spec": "standard"})]
        for out, body in ((records, _shuffled_keys(spec, rng)), (fixed, dict(sorted(spec.items())))):
            out.append({"messages": [*head, {"role": "tool", "tool_call_id": "call_1", "content": json.dumps(body)}, q],
                        "tools": tools})
    data = _run(tmp_path, cli, f"canned-keys-{layout}", records, layout)
    truth = _truth(engines[layout], fixed)
    assert abs(data["hit_rate_after"] - truth) <= TOLERANCE, (data["hit_rate_after"], truth, data["actions"])
    assert data["hit_rate_after"] - data["hit_rate_before"] > 0.05


def test_tool_parameters_in_another_order_are_sorted_where_the_template_prints_signatures(tmp_path, cli, engines) -> None:
    """Command R prints each tool as a python signature whose parameters follow the schema's
    key order: parameters in another order per request differ only in text the template
    writes. The fix sorts the tools' keys, not a value of the messages."""
    rng = random.Random(37)
    system = zoo.persona("signature-order")
    tools = _tools("signature-order")
    records, fixed = [], []
    for _ in range(40):
        q = {"role": "user", "content": zoo.question(rng)}
        mixed = [{**t, "function": {**t["function"], "parameters": {
            **t["function"]["parameters"], "properties": _shuffled_keys(t["function"]["parameters"]["properties"], rng)}}}
            for t in tools]
        records.append({"messages": [{"role": "system", "content": system}, q], "tools": mixed})
        fixed.append({"messages": [{"role": "system", "content": system}, q],
                      "tools": [json.loads(json.dumps(t, sort_keys=True)) for t in tools]})
    data = _run(tmp_path, cli, "signature-order", records, "command_r")
    truth = _truth(engines["command_r"], fixed)
    assert abs(data["hit_rate_after"] - truth) <= TOLERANCE, (data["hit_rate_after"], truth, data["actions"])
    assert data["hit_rate_after"] - data["hit_rate_before"] > 0.02


@pytest.mark.parametrize("layout", ["mistral", "qwen2.5"])
def test_random_ids_of_a_replayed_call_are_numbered(tmp_path, cli, engines, layout) -> None:
    """A canned priming call whose client draws a fresh call id for every request: the
    template prints the id (Mistral's in the call and again in its result), so no request
    shares what follows. Numbering the ids fixes it; nothing in the message text moves."""
    rng = random.Random(41)
    system, tools = zoo.persona("call-ids"), _tools("call-ids")
    price_list = json.dumps({"bands": [{"up_to_kg": kg, "note": zoo.sentence(rng)} for kg in (5, 10, 20, 40)]})
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    records, fixed = [], []
    for _ in range(40):
        q = {"role": "user", "content": zoo.question(rng)}
        for out, cid in ((records, "".join(rng.choice(alphabet) for _ in range(9))), (fixed, "000000001")):
            call = {"role": "assistant", "content": "", "tool_calls": [
                {"id": cid, "type": "function", "function": {"name": "estimate_cost", "arguments": '{"weight": "any"}'}}]}
            out.append({"messages": [{"role": "system", "content": system}, {"role": "user", "content": "Load the bands."},
                                     call, {"role": "tool", "tool_call_id": cid, "content": price_list},
                                     {"role": "assistant", "content": "The bands are loaded."}, q],
                        "tools": tools})
    data = _run(tmp_path, cli, f"call-ids-{layout}", records, layout)
    truth = _truth(engines[layout], fixed)
    assert abs(data["hit_rate_after"] - truth) <= TOLERANCE, (data["hit_rate_after"], truth, data["actions"])
    if layout == "mistral":
        assert data["hit_rate_after"] - data["hit_rate_before"] > 0.2
    else:  # Qwen's template prints no call id: nothing to fix, and no gain promised
        assert data["hit_rate_after"] - data["hit_rate_before"] <= 0.01
