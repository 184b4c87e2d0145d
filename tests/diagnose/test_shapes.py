"""Issue 12 regressions over generated shapes (tests/diagnose/shapes.py), through the CLI.

Each case plants one defect class; the finding must carry that code within 16 tokens of
where the defect starts, the other structural codes must claim no more than 1% of the
prompt tokens away from it, and prescribe's ``hit_rate_after`` must be within 0.02 of the
brute-force oracle's hit rate on the ideally fixed traffic (``shapes.truth``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.oracle import after_fix_matches

from tests.diagnose import shapes

TOLERANCE = 0.02
OFFSET_TOLERANCE = 16
STRUCTURAL = ("TR101", "TR102", "TR201")


def _run(tmp_path: Path, cli, case: shapes.Case) -> dict:
    path = tmp_path / f"{case.name}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in case.records), encoding="utf-8")
    res = cli("prescribe", path, "--format", "json", "--engine", case.engine)
    assert res.code == 0, res.err
    return json.loads(res.out)


def _check(tmp_path: Path, cli, case: shapes.Case, gain: float = 0.05, planted: int = 1) -> dict:
    data = _run(tmp_path, cli, case)
    truth = shapes.truth(case)
    found = [(f["code"], f["token_offset"], f["tokens_lost"]) for f in data["findings"] if f["code"] in STRUCTURAL]
    if case.code is None:
        assert not [f for f in found if f[2] > 0.01 * data["prompt_tokens"]], found
        assert data["hit_rate_after"] - data["hit_rate_before"] <= 0.01
        return data
    at = shapes.offset(case)
    assert any(c == case.code and abs(o - at) <= OFFSET_TOLERANCE for c, o, _ in found), (case.code, at, found)
    stray = [f for f in found if abs(f[1] - at) > OFFSET_TOLERANCE and f[2] > 0.01 * data["prompt_tokens"]]
    assert len(stray) <= planted - 1, stray
    assert truth - data["hit_rate_before"] > gain  # the planted defect costs hits
    assert after_fix_matches(data, truth, TOLERANCE), (data["hit_rate_after"], truth, data["actions"])
    return data


@pytest.mark.parametrize("kind,value,where", [
    ("input_ids", "counter", "intro"), ("messages", "padded-id", "deep"), ("prompt", "version", "intro"),
    ("input_ids", "padded-id", "deep"),
])
def test_values_sharing_their_first_token_move_whole(tmp_path: Path, cli, kind: str, value: str, where: str) -> None:
    # Consecutive settings share their first token: the span the ids show is the last
    # token only; the move must carry the whole word or most requests keep the value.
    _check(tmp_path, cli, shapes.counter_case(kind, value, where))


@pytest.mark.parametrize("value,engine,position", [
    ("name-email", "sglang", 1), ("uuid", "vllm", 1), ("datetime", "sglang", 2), ("name-email", "vllm", 2),
])
def test_value_in_a_content_part_list(tmp_path: Path, cli, value: str, engine: str, position: int) -> None:
    data = _check(tmp_path, cli, shapes.parts_case(value, engine, position))
    assert "pin-template-value" not in [a["kind"] for a in data["actions"]]


@pytest.mark.parametrize("which,item", [(0, "slot"), (1, "number")])
def test_choices_in_a_tool_enum(tmp_path: Path, cli, which: int, item: str) -> None:
    data = _check(tmp_path, cli, shapes.tool_choices_case(which, item), gain=0.01)
    assert "pin-template-value" not in [a["kind"] for a in data["actions"]]


@pytest.mark.parametrize("kind,what", [
    ("messages", "summary"), ("input_ids", "profile"), ("messages", "question"), ("input_ids", "question"),
])
def test_per_request_content_before_static_content(tmp_path: Path, cli, kind: str, what: str) -> None:
    _check(tmp_path, cli, shapes.before_static_case(kind, what), gain=0.02)


@pytest.mark.parametrize("kind,value", [("messages", "datetime"), ("input_ids", "uuid")])
def test_value_opening_the_user_turn_is_dynamic(tmp_path: Path, cli, kind: str, value: str) -> None:
    _check(tmp_path, cli, shapes.user_value_case(kind, value), gain=0.02)


@pytest.mark.parametrize("kind,unit", [("messages", "bullets"), ("prompt", "rows"), ("input_ids", "items")])
def test_short_units_in_varying_order(tmp_path: Path, cli, kind: str, unit: str) -> None:
    _check(tmp_path, cli, shapes.short_units_case(kind, unit))


@pytest.mark.parametrize("kind,indent", [("messages", 2), ("prompt", 4)])
def test_json_object_keys_in_varying_order(tmp_path: Path, cli, kind: str, indent: int) -> None:
    _check(tmp_path, cli, shapes.json_keys_case(kind, indent))


@pytest.mark.parametrize("kind,share", [("messages", 0.6), ("messages", 0.35), ("input_ids", 0.35)])
def test_clock_above_two_ab_system_prompts(tmp_path: Path, cli, kind: str, share: float) -> None:
    # The arm the first request is in may hold well under half the log; the clock line's
    # move must not depend on which arm follows it.
    _check(tmp_path, cli, shapes.ab_clock_case(kind, share))


@pytest.mark.parametrize("kind", ["messages", "input_ids"])
def test_three_defects_fixed_together(tmp_path: Path, cli, kind: str) -> None:
    data = _check(tmp_path, cli, shapes.three_defects_case(kind), planted=3)
    assert {f["code"] for f in data["findings"]} >= {"TR101", "TR102", "TR201"}, data["findings"]


@pytest.mark.parametrize("kind,settings,paragraphs", [("messages", 2, 24), ("prompt", 3, 18)])
def test_value_with_few_settings(tmp_path: Path, cli, kind: str, settings: int, paragraphs: int) -> None:
    _check(tmp_path, cli, shapes.few_settings_case(kind, settings, paragraphs), gain=0.005)


@pytest.mark.parametrize("kind", ["messages", "input_ids"])
def test_static_short_list_is_clean(tmp_path: Path, cli, kind: str) -> None:
    _check(tmp_path, cli, shapes.static_list_control(kind))


@pytest.mark.parametrize("kind,alphabet", [
    ("prompt", "emoji"), ("messages", "emoji"), ("input_ids", "cjk"), ("messages", "cjk"), ("prompt", "accented"),
])
def test_values_of_multibyte_characters_are_moved_not_pinned(tmp_path: Path, cli, kind: str, alphabet: str) -> None:
    # The decoded token windows around such a value can end inside a character (U+FFFD),
    # which no message holds: that once made the value look rendered by the chat template
    # (a pin action that cannot help) instead of moved.
    data = _check(tmp_path, cli, shapes.multibyte_row_case(kind, alphabet))
    assert "pin-template-value" not in [a["kind"] for a in data["actions"]]
