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

TOLERANCE = 0.02
LAYOUTS = {"llama3": (), "qwen2.5": ANALYZE_ARGS, "harmony": HARMONY_ARGS}


@pytest.fixture(scope="module")
def engines() -> dict[str, Engine]:
    return {"llama3": Engine(), "qwen2.5": qwen_engine(), "harmony": harmony_engine()}


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


def test_no_anchor_starts_after_punctuation_alone() -> None:
    # A pair that shares the first abstract sees the span start after its stop: '.\n\n' is
    # how every paragraph ends, so as a left side it finds a span after any of them.
    from advisor.prescribe.moves import anchors
    cands = anchors([(".\n\nEP2486999A1: ", "Quote the claim exactly",
                      ".\n\nYou are PriorArtFinder, the search assistant.")])
    assert cands and all(any(ch.isalnum() for ch in a.left) or not a.left for a in cands), cands
    assert any(a.left == "" and a.right.startswith(".\n\nYou are") for a in cands)
