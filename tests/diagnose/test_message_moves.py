"""Whole-message moves for per-request content sent as a message ahead of the system prompt."""

from __future__ import annotations

import dataclasses

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


def test_a_value_goes_to_the_newest_message_of_an_agent_loop_but_never_into_a_tool_call_turn():
    from advisor.prescribe.moves import LAST_MESSAGE, Anchor, SpanMove

    system = ("system", "Budget left: 4,812 of 5,000 calls.\nUse the tools.")
    call = {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function",
                                                                 "function": {"name": "q", "arguments": "{}"}}]}
    result = {"role": "tool", "content": "rows: 3", "tool_call_id": "c1"}
    req = Request(kind="messages", messages=({"role": system[0], "content": system[1]},
                                             {"role": "user", "content": "Why is p99 up?"}, call, result),
                  source="t.jsonl", line=1)
    move = SpanMove(Anchor("Budget left: ", " of 5,000 calls.", False, ""), LAST_MESSAGE)
    new = move(req)
    assert new is not None
    assert "4,812" not in new.messages[0]["content"] and "Use the tools." in new.messages[0]["content"]
    assert new.messages[-1]["content"].startswith("rows: 3") and "4,812" in new.messages[-1]["content"]
    assert new.messages[1]["content"] == "Why is p99 up?"
    # The newest message is the assistant's tool call: its text would not be printed.
    assert move(dataclasses.replace(req, messages=req.messages[:3])) is None


def test_a_retrieved_example_pair_goes_after_the_fixed_examples():
    from advisor.prescribe.moves import TurnsMove

    shots = [("user", "What is 2+2?"), ("assistant", "4."), ("user", "What is 3+3?"), ("assistant", "6.")]
    retrieved = [("user", "Similar solved problem (#7): 5+5?"), ("assistant", "10.")]
    req = _req(("system", "You tutor maths."), *retrieved, *shots, ("user", "What is 9+9?"))
    shared = frozenset({"You tutor maths.", *(c for _, c in shots)})
    moved = TurnsMove(shared)(req)
    assert moved is not None
    assert [m["content"] for m in moved.messages] == [
        "You tutor maths.", *(c for _, c in shots), *(c for _, c in retrieved), "What is 9+9?"]
    # Nothing static after the varying turns: nothing to move them behind.
    assert TurnsMove(shared)(_req(("system", "You tutor maths."), *retrieved, ("user", "What is 9+9?"))) is None


def test_an_order_fix_of_messages_puts_the_system_message_first_and_keeps_the_turns_in_order():
    from advisor.prescribe.moves import UnitSort

    system = ("system", "You assist the learner support tutors of Brightpath Online Academy.")
    history = [("user", "Can I add a colleague as a second contact?"), ("assistant", "Yes, in settings.")]
    req = _req(*history, system, ("user", "And remove one?"))
    moved = UnitSort(["learner support tutors of Brightpath", "a colleague as a second contact"], how="messages")(req)
    assert moved is not None
    assert [m["content"] for m in moved.messages] == [system[1], history[0][1], history[1][1], "And remove one?"]
    # A history without the other unit: the system message still goes first.
    other = _req(("user", "Where are my marks?"), ("assistant", "Under results."), system, ("user", "Thanks."))
    moved = UnitSort(["learner support tutors of Brightpath", "a colleague as a second contact"], how="messages")(other)
    assert moved is not None and moved.messages[0]["content"] == system[1]
    assert UnitSort(["learner support tutors of Brightpath"], how="messages")(_req(system, ("user", "Hi"))) is None


def test_tool_call_steps_in_another_order_are_sorted_as_messages():
    from advisor.prescribe.moves import UnitSort

    def step(plan):
        call = {"role": "assistant", "content": "", "tool_calls": [{"id": f"call_{plan}", "type": "function",
                "function": {"name": "get_plan_document", "arguments": f'{{"plan": "{plan}"}}'}}]}
        return [call, {"role": "tool", "tool_call_id": f"call_{plan}", "content": f'{{"plan": "{plan}", "summary": "..."}}'}]

    head = [{"role": "system", "content": "You help with benefits."}, {"role": "user", "content": "Load my plans."}]
    last = [{"role": "user", "content": "Which plan covers glasses?"}]
    first = Request(kind="messages", messages=tuple(head + step("dental") + step("vision") + last), source="t", line=1)
    other = Request(kind="messages", messages=tuple(head + step("vision") + step("dental") + last), source="t", line=2)
    sort = UnitSort(['"get_plan_document"'], how="messages")
    assert sort(first) is None  # the first order seen is the one kept
    fixed = sort(other)
    assert fixed is not None and fixed.messages == first.messages


def test_a_retrieved_pair_goes_after_the_fixed_pairs_in_a_token_id_prompt():
    from advisor.prescribe.moves import TurnsMove

    def turn(role, body):
        return f"<|start_header_id|>{role}<|end_header_id|>\n\n{body}<|eot_id|>"

    shots = turn("user", "What is 2+2?") + turn("assistant", "4.")
    retrieved = turn("user", "Past case 7: 5+5?") + turn("assistant", "10.")
    text = "<|begin_of_text|>" + turn("system", "You tutor.") + retrieved + shots + turn("user", "9+9?") + \
        "<|start_header_id|>assistant<|end_header_id|>\n\n"
    req = Request(kind="prompt", prompt=text, source="t", line=1)
    moved = TurnsMove(frozenset(), frozenset({"You tutor.", "What is 2+2?", "4."}))(req)
    assert moved is not None
    assert moved.prompt == text.replace(retrieved + shots, shots + retrieved)
    assert TurnsMove(frozenset(), frozenset({"You tutor."}))(req) is None  # no static turns after it


def test_the_system_prompt_goes_into_the_first_user_turn_only_for_sessions():
    from advisor.prescribe.moves import system_into_first_user

    prompt = ("system", "You are the assistant.\n\nRules: be brief.")
    session = _req(prompt, ("user", "First question?"), ("assistant", "First answer."), ("user", "Next one?"))
    moved = system_into_first_user(session)
    assert moved is not None
    assert [m["role"] for m in moved.messages] == ["user", "assistant", "user"]
    assert moved.messages[0]["content"] == prompt[1] + "\n\nFirst question?"
    assert moved.messages[2]["content"] == "Next one?"
    # One turn: nothing comes between the system prompt and the question in any layout.
    assert system_into_first_user(_req(prompt, ("user", "Only question?"))) is None
    # No system prompt: nothing to move.
    assert system_into_first_user(_req(("user", "Hi"), ("assistant", "Hello"), ("user", "Bye"))) is None
