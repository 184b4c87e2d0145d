"""Where the chat template prints the system prompt, measured by prescribe.

Mistral's HuggingFace template joins the system text into the last user turn, and prints
none at all when a conversation ends on a tool result: in an agent loop, step 1 sends the
system text, steps 2+ do not, so each later step parts from step 1 right after ``[INST]``.
The messages hold no varying span and no order, so the diagnosis of spans sees nothing;
prescribe measures the one move that fixes it (the system prompt as the first user turn's
opening) and, where it gains, reports it as TR102 at the token where the steps part. The
hit rate after is that of the traffic after the move (which sends more tokens than the
traffic as logged), checked against the brute-force oracle of that traffic.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from tests.diagnose import zoo
from tests.diagnose.heldout import Engine, oracle
from tests.diagnose.heldout14 import mistral_engine
from tests.diagnose.test_layout_moves import LAYOUTS, _tools

TOLERANCE = 0.02


def _call(cid: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": None, "tool_calls": [
        {"id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}]}


def _agent_loops(seed: int, system_in_first_user: bool) -> list[dict[str, Any]]:
    """Agent loops of 2-5 steps over static tools; each step re-sends the loop so far."""
    rng = random.Random(seed)
    system, tools = zoo.persona(f"agent-{seed}"), _tools(f"agent-{seed}")
    names = [t["function"]["name"] for t in tools]
    out = []
    for task in range(rng.randint(12, 18)):
        q = zoo.question(rng)
        history: list[dict[str, Any]] = []
        for step in range(rng.randint(2, 5)):
            if system_in_first_user and history:
                msgs = [{"role": "user", "content": f"{system}\n\n{q}"}]
            else:
                msgs = [{"role": "system", "content": system}, {"role": "user", "content": q}]
            out.append({"messages": msgs + history, "tools": tools})
            cid = f"t{task:03d}s{step:04d}"  # nine characters, as the template insists
            history = history + [_call(cid, rng.choice(names), {"ref": f"R-{rng.randint(100, 999)}"}),
                                 {"role": "tool", "tool_call_id": cid,
                                  "content": json.dumps({"ok": True, "note": zoo.sentence(rng)})}]
    return out


def _prescribe(tmp_path: Path, cli, records: list[dict[str, Any]], layout: str) -> dict:
    path = tmp_path / f"agent-{layout}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    res = cli("prescribe", path, *LAYOUTS[layout], "--format", "json")
    assert res.code == 0, res.err
    return json.loads(res.out)


@pytest.fixture(scope="module")
def mistral() -> Engine:
    return mistral_engine()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_agent_steps_that_lose_the_system_text_get_the_move_at_the_point_they_part(tmp_path, cli, mistral, seed):
    records = _agent_loops(seed, system_in_first_user=False)
    data = _prescribe(tmp_path, cli, records, "mistral")
    ids = [mistral.ids(r) for r in records]
    # Where step 2 parts from step 1 of its loop, by the oracle's own comparison.
    part = next(n for n in range(min(len(ids[0]), len(ids[1]))) if ids[0][n] != ids[1][n])
    placed = [f for f in data["findings"] if f["kind"] == "system-prompt-placement"]
    assert len(placed) == 1 and placed[0]["code"] == "TR102", data["findings"]
    assert abs(placed[0]["token_offset"] - part) <= 16, (placed[0]["token_offset"], part)
    before, total = oracle(ids)
    assert data["hit_rate_before"] == pytest.approx(before / total, abs=1e-6)
    cached, total = oracle(mistral.ids(r) for r in _agent_loops(seed, system_in_first_user=True))
    assert abs(data["hit_rate_after"] - cached / total) <= TOLERANCE, (data["hit_rate_after"], cached / total)
    assert data["hit_rate_after"] - data["hit_rate_before"] > 0.01
    move = [a for a in data["actions"] if a["kind"] == "canonical-order"]
    assert move and move[0]["first_user"] and "first user turn" in move[0]["description"]
    assert move[0]["code"] == "TR102" and data["findings"][move[0]["finding"]] == placed[0]


def test_a_layout_that_prints_the_system_prompt_first_gets_no_such_finding(tmp_path, cli) -> None:
    # Llama 3's layout opens every prompt with the system turn: the move gains nothing there.
    data = _prescribe(tmp_path, cli, _agent_loops(4, system_in_first_user=False), "llama3")
    assert not [f for f in data["findings"] if f["kind"] == "system-prompt-placement"], data["findings"]
    assert data["hit_rate_after"] - data["hit_rate_before"] <= 0.01


def test_loops_that_send_the_system_text_in_the_first_user_turn_already_are_left_alone(tmp_path, cli, mistral):
    records = _agent_loops(5, system_in_first_user=True)
    data = _prescribe(tmp_path, cli, records, "mistral")
    assert not [f for f in data["findings"] if f["kind"] == "system-prompt-placement"], data["findings"]
    cached, total = oracle(mistral.ids(r) for r in records)
    assert data["hit_rate_after"] == pytest.approx(cached / total, abs=0.01)


def test_the_template_diff_says_the_move_is_in_the_requests(tmp_path, cli) -> None:
    # No prompt template decides where the chat template prints a system message.
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "agent.j2").write_text("You are the dispatcher.\n{{ question }}\n", encoding="utf-8")
    path = tmp_path / "agent.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in _agent_loops(6, False)), encoding="utf-8")
    res = cli("prescribe", path, *LAYOUTS["mistral"], "--templates", folder, "--format", "json")
    assert res.code == 0, res.err
    data = json.loads(res.out)
    k = next(i for i, f in enumerate(data["findings"]) if f["kind"] == "system-prompt-placement")
    notes = [d for d in data["template_diffs"] if d["finding"] == k]
    assert len(notes) == 1 and notes[0]["diff"] == "" and notes[0]["note"].startswith("no template diff"), notes
