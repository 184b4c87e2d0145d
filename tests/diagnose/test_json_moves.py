"""Moves inside JSON a template prints: tool results through ``tojson``, tool definitions."""

from __future__ import annotations

import json

from advisor.prescribe.moves import Anchor, _cut_json_member, _cut_tools, json_unescaped


def test_escapes_are_undone_piece_by_piece():
    # Pieces are cut anywhere in the printed string, so a piece need not parse as JSON.
    assert json_unescaped('"{\\"fetched_a') == '"{"fetched_a'
    assert json_unescaped("step 1.\\nstep 2") == "step 1.\nstep 2"
    assert json_unescaped("C:\\\\logs") == "C:\\logs"
    assert json_unescaped("no escapes here") is None


def test_a_member_that_is_the_span_leaves_valid_json_in_its_layout():
    for indent in (None, 2):
        doc = json.dumps({"fetched_at": "2026-11-30T00:00:06Z", "runbook": "1. Check the queue."}, indent=indent)
        anchor = Anchor('"fetched_at": "', '"', False, "")
        rest, moved = _cut_json_member(doc, anchor)
        assert json.loads(rest) == {"runbook": "1. Check the queue."}
        assert rest == json.dumps({"runbook": "1. Check the queue."}, indent=indent)
        assert moved == 'fetched_at: "2026-11-30T00:00:06Z"'


def test_a_value_inside_longer_text_is_not_a_member_move():
    doc = json.dumps({"note": "Fetched at 2026-11-30T00:00:06Z from the primary store, after the nightly sync ran."})
    assert _cut_json_member(doc, Anchor("Fetched at ", " from the primary", False, "")) is None
    assert _cut_json_member("not json {", Anchor("a", "b", False, "")) is None


def test_an_anchor_with_nothing_inside_one_string_matches_no_tool():
    # Left and right both end at a quote: reduced to the inside of one string they are
    # empty, and an empty anchor would cut the first string of any tool.
    tools = [{"type": "function", "function": {"name": "fetch_runbook", "description": "Fetch a runbook."}}]
    assert _cut_tools(tools, Anchor('{"fetched_at": "', '", "runbook"', False, "")) is None
