"""Whole-message moves for per-request content sent as a message ahead of the system prompt."""

from __future__ import annotations

from advisor.ingest.traffic import Request
from advisor.prescribe.moves import MessageMove


def _req(*messages: tuple[str, str]) -> Request:
    return Request(kind="messages", messages=tuple({"role": r, "content": c} for r, c in messages),
                   source="t.jsonl", line=1)


PASSAGES = ("system", "[notes, entry 40] Meter readings are confirmed by email.")
PROMPT = ("system", "You are the assistant.\n\nGlossary:\nberth - a bed\nsailing - a trip")
QUESTION = ("user", "Where is my booking?")


def test_a_message_goes_after_the_static_messages_that_follow_it():
    moved = MessageMove(frozenset({PROMPT[1]}))(_req(PASSAGES, PROMPT, QUESTION))
    assert moved is not None
    assert [m["content"] for m in moved.messages] == [PROMPT[1], PASSAGES[1], QUESTION[1]]


def test_a_next_message_that_varies_stops_the_plain_move_but_not_any_next():
    # The system prompt is static only once another fix (a sorted glossary) has run.
    assert MessageMove(frozenset())(_req(PASSAGES, PROMPT, QUESTION)) is None
    moved = MessageMove(frozenset(), True)(_req(PASSAGES, PROMPT, QUESTION))
    assert moved is not None
    assert [m["content"] for m in moved.messages] == [PROMPT[1], PASSAGES[1], QUESTION[1]]


def test_any_next_trades_only_with_a_system_message_and_never_moves_a_user_turn():
    # The first varying message is the user's own: nothing to put after the prompt.
    assert MessageMove(frozenset(), True)(_req(QUESTION, ("assistant", "Let me check."))) is None
    # A varying system message followed by the user turn: no system message to trade with.
    assert MessageMove(frozenset(), True)(_req(PASSAGES, QUESTION)) is None
