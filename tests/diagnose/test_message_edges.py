"""Static instructions at the edge of a message that varies, the fifteenth held-out set's
shapes (Gemma 3's layout, which prints the system text at the head of the first user turn),
generated here over layouts, record sizes and session lengths and checked through the CLI
against the brute-force oracle of the ideally fixed traffic:

- a per-request system message (a flight manifest, a caller card) with the desk's static
  instructions at the head of the user turn: the fix trades them, so the instructions are
  the system message and the card opens the user turn (the roles stay, so a layout that
  demands alternating turns still renders);
- no system message, the instructions appended behind the newest user turn of each session
  (gone from the history at the next turn): the fix sends them as the system message.
A control sends the instructions at the head of the user turn behind a static system message:
nothing to move, no gain promised."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from tests.diagnose import zoo
from tests.diagnose.heldout import Engine
from tests.diagnose.heldout13 import command_r_engine
from tests.diagnose.heldout15 import gemma_engine
from tests.diagnose.test_layout_moves import _run, _truth

TOLERANCE = 0.02
SEATS = ["Kovács Anna", "Tóth Bence", "Nagy Dóra", "Szabó Ede", "Farkas Gréta", "Varga Hanna", "Molnár Imre",
         "Balogh Jenő", "Papp Kata", "Lakatos Lili", "Horváth Márk", "Kiss Nóra"]


@pytest.fixture(scope="module")
def engines() -> dict[str, Engine]:
    return {"llama3": Engine(), "gemma3": gemma_engine(), "command_r": command_r_engine()}


def _instructions(name: str, paragraphs: int) -> str:
    return "\n\n".join(zoo.persona(f"{name}-{k}") for k in range(paragraphs))


def _card(rng: random.Random, k: int) -> str:
    seats = rng.sample(SEATS, rng.randint(3, 8))
    lines = [f"Flight HB-{1200 + k}, {rng.choice(['this morning', 'this evening', 'on Saturday'])}, "
             f"{rng.choice(['Noszvaj', 'Eger', 'Szarvaskő'])}", "Passengers:"]
    lines += [f"{i + 1}. {s} ({rng.randint(48, 110)} kg)" for i, s in enumerate(seats)]
    return "\n".join(lines)


@pytest.mark.parametrize("layout,paragraphs,seed", [("gemma3", 8, 1), ("llama3", 6, 2), ("command_r", 10, 3)])
def test_a_per_request_system_message_ahead_of_instructions_trades_places_with_them(
        tmp_path: Path, cli, engines, layout: str, paragraphs: int, seed: int) -> None:
    rng = random.Random(seed)
    rules = _instructions(f"manifest-{layout}", paragraphs)
    records, fixed, last = [], [], []
    for k in range(50):
        card, q = _card(rng, k), zoo.question(rng)
        records.append({"messages": [{"role": "system", "content": card},
                                     {"role": "user", "content": f"{rules}\n\n{q}"}]})
        fixed.append({"messages": [{"role": "system", "content": rules},
                                   {"role": "user", "content": f"{card}\n\n{q}"}]})
        # The other place a team could pick: the card at the end of the user turn.
        last.append({"messages": [{"role": "user", "content": f"{rules}\n\n{q}\n\n{card}"}]})
    data = _run(tmp_path, cli, f"manifest-{layout}", records, layout)
    truth = max(_truth(engines[layout], fixed), _truth(engines[layout], last))
    assert truth - data["hit_rate_before"] > 0.5  # what the placement costs
    assert abs(data["hit_rate_after"] - truth) <= TOLERANCE, (data["hit_rate_after"], truth, data["actions"])


@pytest.mark.parametrize("layout,turns,seed", [("gemma3", 6, 4), ("llama3", 4, 5)])
def test_instructions_appended_to_the_newest_user_turn_go_to_the_system_message(
        tmp_path: Path, cli, engines, layout: str, turns: int, seed: int) -> None:
    rng = random.Random(seed)
    rules = _instructions(f"appended-{layout}", 7)
    convs = [[(zoo.question(rng), zoo.sentence(rng, 12, 30)) for _ in range(rng.randint(1, turns))] for _ in range(12)]
    records, fixed = [], []
    # Sessions interleaved: each request is one more turn of one of them.
    step = {c: 0 for c in range(len(convs))}
    while any(step[c] < len(convs[c]) for c in step):
        c = rng.choice([c for c in step if step[c] < len(convs[c])])
        step[c] += 1
        history: list[dict[str, Any]] = []
        for q, a in convs[c][:step[c] - 1]:
            history += [{"role": "user", "content": q}, {"role": "assistant", "content": a}]
        q = convs[c][step[c] - 1][0]
        records.append({"messages": history + [{"role": "user", "content": f"{q}\n\n{rules}"}]})
        fixed.append({"messages": [{"role": "system", "content": rules}] + history + [{"role": "user", "content": q}]})
    data = _run(tmp_path, cli, f"appended-{layout}", records, layout)
    truth = _truth(engines[layout], fixed)
    assert truth - data["hit_rate_before"] > 0.3
    assert abs(data["hit_rate_after"] - truth) <= TOLERANCE, (data["hit_rate_after"], truth, data["actions"])


def test_instructions_at_the_head_of_the_user_turn_behind_a_static_system_message_stay(tmp_path: Path, cli,
                                                                                       engines) -> None:
    rng = random.Random(6)
    rules = _instructions("static-head", 6)
    records = [{"messages": [{"role": "system", "content": "You are the flight desk's assistant."},
                             {"role": "user", "content": f"{rules}\n\n{_card(rng, k)}\n\n{zoo.question(rng)}"}]}
               for k in range(40)]
    data = _run(tmp_path, cli, "static-head", records, "gemma3")
    assert data["hit_rate_after"] - data["hit_rate_before"] <= 0.01, data["actions"]
    assert abs(data["hit_rate_before"] - _truth(engines["gemma3"], records)) < 1e-6


def _request(messages: list[dict[str, Any]]):
    from advisor.ingest.traffic import Request

    return Request("t.jsonl", 1, "messages", messages=tuple(messages))
