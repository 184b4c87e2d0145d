"""A raw prompt's turns, read off its chat markup (advisor.prescribe.markup.prompt_turns).

Prompts are rendered from generated conversations by the real chat templates of
tests/chat_templates (through this repository's renderer, as `advisor analyze --chat-template`
renders them), so the oracle is the conversation itself: each message's content is the body
of one turn, in order, under its role. No layout is named in the code under test.
"""

from __future__ import annotations

import functools
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.ingest.source import make_renderer
from advisor.ingest.traffic import Request, parse_record
from advisor.prescribe.canonical import KEPT, LAST_USER, LAST_USER_START, canonical_fixes, canonical_rounds, rewrite
from advisor.prescribe.markup import TOOLS_ROLE, Markup, markup_of, prompt_turns

TEMPLATES = Path(__file__).resolve().parents[1] / "chat_templates"
# (tokenizer, chat template): the default Llama 3 layout, ChatML, harmony, Gemma's turns,
# Phi-4's, DeepSeek's full-width markers, Mistral's special tokens without a role word (the
# system text joined into the last user turn), Command R's.
LAYOUTS = [("llama3", None), ("qwen2.5", TEMPLATES / "qwen25.jinja"), ("cl100k", TEMPLATES / "gpt_oss.jinja"),
           ("llama3", TEMPLATES / "gemma3.jinja"), ("llama3", TEMPLATES / "phi4.jinja"),
           ("llama3", TEMPLATES / "deepseek.jinja"),
           ("mistral-v3", Path(__file__).resolve().parent / "heldout14_mistral_config.json"),
           ("llama3", TEMPLATES / "command_r.jinja")]
WORDS = ("Lieferung", "facture", "zamówienie", "đơn hàng", "παράδοση", "वापसी", "refund", "order", "the", "a",
         "42", "Q:", "A:", "- item", "## Notes")

PARAGRAPH = st.lists(st.sampled_from(WORDS), min_size=3, max_size=14).map(" ".join)
CONTENT = st.lists(PARAGRAPH, min_size=1, max_size=4).map("\n\n".join)


@functools.cache
def _renderer(layout: tuple[str, Path | None]) -> Any:
    return make_renderer(layout[0], layout[1], None, [])


@functools.cache
def _markup(layout: tuple[str, Path | None]) -> Markup:
    return markup_of(_renderer(layout))


def _render(layout: tuple[str, Path | None], record: dict[str, Any]) -> str:
    text = _renderer(layout).text_of(parse_record(record, "turns", 1))
    assert text is not None
    return text


@settings(max_examples=25, deadline=None)
@given(layout=st.sampled_from(LAYOUTS), system=CONTENT, turns=st.lists(CONTENT, min_size=1, max_size=5))
def test_each_message_is_one_turn_in_order(layout: tuple[str, Path | None], system: str, turns: list[str]) -> None:
    if len(turns) % 2 == 0:
        turns = turns[:-1]  # the conversation ends on a user turn
    # (Each content told apart by its own opening word: a message found is that message.)
    messages = [{"role": "system", "content": "Intro " + system}] + [
        {"role": "user" if k % 2 == 0 else "assistant", "content": f"Turn{k} {text}"} for k, text in enumerate(turns)]
    prompt = _render(layout, {"messages": messages})
    found = prompt_turns(prompt, _markup(layout))
    assert found is not None
    bodies = [(role, prompt[a:b]) for a, b, role in found]
    # Every message is in one body (a layout may open a turn with text of its own: harmony's
    # "# Instructions"; Gemma folds the system text into the first user turn), in order; a
    # user or assistant message is its body, under its role.
    k = 0
    for message in messages:
        if message["role"] == "system":
            # (Mistral joins the system text into the last user turn: it is in some body.)
            assert any(message["content"].rstrip() in body for _, body in bodies), bodies
            continue
        while k < len(bodies) and message["content"].rstrip() not in bodies[k][1]:
            k += 1
        assert k < len(bodies), (message, bodies)
        if message["role"] != "system":
            assert bodies[k] == (message["role"], message["content"]) or bodies[k][1].endswith(message["content"])
            assert bodies[k][0] == message["role"]
            k += 1


def test_a_prompt_without_markup_is_one_text() -> None:
    assert prompt_turns("Summarize the following report.\n\nRevenue rose 4%.") is None
    assert prompt_turns("<|im_start|>only one marker and no turn") is None
    # A bracketed word is markup only where the tokenizer holds it as a special token.
    text = "[INST] Summarize the report. [/INST]"
    assert prompt_turns(text) is None
    assert prompt_turns(text, _markup(LAYOUTS[6])) == ((6, 29, "user"),)


@settings(max_examples=30, deadline=None)
@given(head=st.sampled_from(["### {}", "**{}**", "{}:", "## {}:"]), case=st.sampled_from([str.title, str.upper]),
       bodies=st.lists(st.text("abc xyz.\n", min_size=1, max_size=30).filter(lambda t: t.strip()), min_size=2,
                       max_size=6))
def test_a_plain_prompt_that_names_its_roles_on_lines_of_their_own_gives_its_turns(
        head: str, case: Any, bodies: list[str]) -> None:
    """A raw prompt in plain text whose roles head their turns ("### User", "**Assistant**",
    "Human:"): each body is a turn of the role above it, in order, the headings and the blank
    lines between turns its layout; a conversation so written keeps its turns in order."""
    roles = ["user" if k % 2 == 0 else "assistant" for k in range(len(bodies))]
    bodies = [b.strip("\n") or "x" for b in bodies]
    prompt = "Be brief.\n\n" + "\n\n".join(head.format(case(r)) + "\n" + b for r, b in zip(roles, bodies)) \
        + "\n\n" + head.format(case("assistant")) + "\n"
    turns = prompt_turns(prompt)
    assert turns is not None
    assert [(prompt[a:b], role) for a, b, role in turns] == [("Be brief.", "system")] + [
        (b.lstrip("\n").rstrip(), r) for b, r in zip(bodies, roles)]
    # One heading, or headings of one role, are no conversation: the text is one.
    assert prompt_turns("### User\nSummarize the report.") is None
    assert prompt_turns("User:\nfirst\n\nUser:\nsecond") is None


@settings(max_examples=15, deadline=None)
@given(layout=st.sampled_from([layout for layout in LAYOUTS if layout[1] is None or "gemma" not in layout[1].name]),
       system=CONTENT, question=CONTENT, result=CONTENT)
def test_an_agent_step_s_turns_are_its_messages(layout: tuple[str, Path | None], system: str, question: str,
                                                result: str) -> None:
    """A tool call, its result and the reply after it are turns of their roles, and the last
    user turn is the user's (where the layout joins the system text into it, behind it).
    Gemma's template refuses tool turns: it is left out."""
    call = {"id": "a1b2c3d4e", "type": "function", "function": {"name": "lookup", "arguments": '{"lot": 4}'}}
    tools = [{"type": "function", "function": {"name": "lookup", "description": "Find a lot.",
                                               "parameters": {"type": "object", "properties": {"lot": {"type": "integer"}}}}}]
    messages = [{"role": "system", "content": "Intro " + system}, {"role": "user", "content": "Ask " + question},
                {"role": "assistant", "content": None, "tool_calls": [call]},
                {"role": "tool", "tool_call_id": "a1b2c3d4e", "content": "Found " + result},
                {"role": "assistant", "content": "Reply done."}, {"role": "user", "content": "Last question?"}]
    prompt = _render(layout, {"messages": messages, "tools": tools})
    found = prompt_turns(prompt, _markup(layout))
    assert found is not None
    roles = [role for _, _, role in found]
    last = next(prompt[a:b] for a, b, role in reversed(found) if role == "user")
    assert last.rstrip().endswith("Last question?")
    # The result's text is a turn of its own, ahead of the last user turn, apart from the
    # system text (its role is the layout's: ChatML prints it in a user turn, Command R in a
    # system turn).
    holder = [k for k, (a, b, _) in enumerate(found) if "Found " + result.split()[0] in prompt[a:b]]
    intro = [k for k, (a, b, _) in enumerate(found) if "Intro " + system.split()[0] in prompt[a:b]]
    assert holder and intro and holder[0] not in intro, roles
    assert "Found " not in last
    assert "assistant" in roles


def _prompt_requests(layout: tuple[str, Path | None], n: int = 30) -> list[Request]:
    """Rules, 2 of 6 examples sampled per request in the system turn, a question per request."""
    rng = random.Random(str(layout))
    pool = [f"Q: {rng.choice(WORDS)} {k}?\nA: {' '.join(rng.sample(WORDS, 6))}." for k in range(6)]
    rules = "Rules:\n- " + "\n- ".join(" ".join(rng.sample(WORDS, 8)) for _ in range(5))
    out = []
    for i in range(n):
        system = rules + "\n\nExamples:\n" + "\n\n".join(rng.sample(pool, 2))
        record = {"messages": [{"role": "system", "content": system},
                               {"role": "user", "content": f"Answer in one line.\n\nQuestion {i}: {' '.join(rng.sample(WORDS, 5))}"}]}
        out.append(parse_record({"prompt": _render(layout, record)}, "turns", i + 1))
    return out


@pytest.mark.parametrize("layout", LAYOUTS[:3], ids=["llama3", "chatml", "harmony"])
def test_a_prompt_s_rewrite_changes_only_turn_bodies(layout: tuple[str, Path | None]) -> None:
    requests = _prompt_requests(layout)
    markup = _markup(layout)
    rounds = canonical_rounds(list(requests), markup)
    for req in requests:
        assert req.prompt is not None
        before = prompt_turns(req.prompt, markup)
        assert before is not None
        for to in (KEPT, LAST_USER_START):
            new = rewrite(req, rounds, to) or req
            assert new.prompt is not None
            after = prompt_turns(new.prompt, markup)
            assert after is not None and [r for _, _, r in after] == [r for _, _, r in before]
            # The markup around the bodies is the prompt's own, byte for byte.
            outside = [req.prompt[:before[0][0]]] + [req.prompt[b:a] for (_, b, _), (a, _, _) in zip(before, before[1:])]
            outside_new = [new.prompt[:after[0][0]]] + [new.prompt[b:a] for (_, b, _), (a, _, _) in zip(after, after[1:])]
            assert outside_new == outside
            # The examples move to the last user turn, behind its static opening.
            if to == LAST_USER_START and new is not req:
                user = next(new.prompt[a:b] for a, b, role in reversed(after) if role == "user")
                assert user.startswith("Answer in one line.\n\nQ: ") or user.startswith("Answer in one line.\n\nExamples:")


@pytest.mark.parametrize("layout", LAYOUTS, ids=["llama3", "chatml", "harmony", "gemma", "phi4", "deepseek",
                                                 "mistral", "command-r"])
def test_where_the_template_prints_the_system_prompt(layout: tuple[str, Path | None]) -> None:
    """``system_late``: the template prints the system prompt after the first user turn's
    text or not at all. Read off a render of another conversation than the probe's."""
    prompt = _render(layout, {"messages": [
        {"role": "system", "content": "Rules first."}, {"role": "user", "content": "Question one?"},
        {"role": "assistant", "content": "Answer one."}, {"role": "user", "content": "Question two?"}]})
    at = prompt.find("Rules first.")
    assert _markup(layout).system_late == (at < 0 or at > prompt.find("Question one?"))
    assert _markup(layout).system_late == (layout[1] is not None and "mistral" in layout[1].name)


def _sessions(system: str) -> list[list[dict[str, Any]]]:
    """Four sessions of three turns each, in order, all sent with ``system``."""
    out = []
    for s in range(4):
        for turn in range(3):
            messages: list[dict[str, Any]] = [{"role": "system", "content": system}]
            for k in range(turn):
                messages += [{"role": "user", "content": f"Session {s} question {k}?"},
                             {"role": "assistant", "content": f"Session {s} answer {k}."}]
            out.append(messages + [{"role": "user", "content": f"Session {s} question {turn}?"}])
    return out


def test_a_late_system_prompt_opens_the_first_user_turn_in_a_variant_of_its_own() -> None:
    """Where the template prints the system prompt behind the history, a variant sends it as
    the opening of the first user turn: a conversation's later turns then extend its earlier
    ones. A single-turn request renders the same either way and is left as it is."""
    reqs = [parse_record({"messages": m}, "late", k + 1)
            for k, m in enumerate(_sessions("Answer in one line. Cite the manual."))]
    assert not any(d.get("first_user") for _, _, d in canonical_fixes(list(reqs), ""))
    variants = canonical_fixes(list(reqs), "", system_late=True)
    fix = next(f for _, f, d in variants if d.get("first_user"))
    layout = LAYOUTS[6]
    renders = []
    for req in reqs:
        new = fix(req) or req
        assert new.messages is not None
        if len(req.messages or ()) > 2:
            assert [m["role"] for m in new.messages][0] == "user"
            assert new.messages[0]["content"].startswith("Answer in one line. Cite the manual.\n\nSession")
        else:
            assert new is req or new.messages == req.messages
        renders.append(_renderer(layout).text_of(new))
    # Each later turn of a session now starts with the session's turn before it, up to the
    # end of that turn's question.
    for s in range(4):
        first, second, third = renders[3 * s: 3 * s + 3]
        assert second.startswith(first[:first.rindex("[/INST]")])
        assert third.startswith(second[:second.rindex("[/INST]")])


def test_a_late_system_prompt_in_raw_prompts_opens_the_first_user_turn() -> None:
    """The same for prompts logged as text (or token ids, decoded): the static units the last
    user turn opens with (the system text the template joined there) go to the start of the
    first user turn, and a session's later turns then extend its earlier ones."""
    layout = LAYOUTS[6]
    reqs = [parse_record({"prompt": _render(layout, {"messages": m})}, "late", k + 1)
            for k, m in enumerate(_sessions("Answer in one line.\n\nCite the manual."))]
    markup = _markup(layout)
    variants = canonical_fixes(list(reqs), "", canonical_rounds(list(reqs), markup), system_late=True)
    fix = next(f for _, f, d in variants if d.get("first_user"))
    prompts = [(fix(req) or req).prompt or "" for req in reqs]
    for s in range(4):
        first, second, third = prompts[3 * s: 3 * s + 3]
        assert second.startswith(first[:first.rindex("[/INST]")])
        assert third.startswith(second[:second.rindex("[/INST]")])
        assert third.count("Answer in one line.") == 1
    # Without the variant the logged prompts part after the first turn.
    logged = [req.prompt or "" for req in reqs]
    assert not logged[2].startswith(logged[1][:logged[1].rindex("[/INST]")])


def _tool_records(n: int = 24) -> list[dict[str, Any]]:
    """Requests whose second tool's description ends on who is on duty at the request's own
    desk, a fixed system prompt and a question of their own."""
    fixed = "Flag a client file for the manager, with the reason (Lieferung, facture, zamówienie)."
    names = ["Bram Lutz", "Nell Aziz", "Đức Anh"]
    out = []
    for i in range(n):
        tools = [{"type": "function", "function": {"name": "lookup", "description": "Find a lot by its number.",
                                                   "parameters": {"type": "object", "properties": {"lot": {"type": "integer"}}}}},
                 {"type": "function", "function": {"name": "flag", "description": f"{fixed} Walk-ins at desk {i} go to {names[i % 3]}.",
                                                   "parameters": {"type": "object", "properties": {"why": {"type": "string"}}}}}]
        out.append({"tools": tools, "messages": [{"role": "system", "content": "Answer briefly.\n\nCite the manual."},
                                                 {"role": "user", "content": f"Question {i}: {WORDS[i % len(WORDS)]}?"}]})
    return out


def test_a_tools_turn_is_cut_as_the_request_s_tools_are() -> None:
    """Where the template prints the tool definitions in a turn of their own, a prompt logged
    as text is cut as the same request logged as messages: the varying sentence of a tool's
    description leaves for the last user turn, and the tools turn is then the template's render
    of the messages form's cut tools, byte for byte (its escaping and separators kept)."""
    layout = LAYOUTS[6]  # (Mistral's: of the layouts here, the one that prints them so)
    records = _tool_records()
    markup = _markup(layout)
    prompts = [_render(layout, record) for record in records]
    as_messages = [parse_record(record, "m", k + 1) for k, record in enumerate(records)]
    messages_rounds = canonical_rounds(list(as_messages), markup)
    reqs = [parse_record({"prompt": prompt}, "p", k + 1) for k, prompt in enumerate(prompts)]
    rounds = canonical_rounds(list(reqs), markup)
    tools_turns = set()
    for record, message_req, req in zip(records, as_messages, reqs):
        new = rewrite(req, rounds, LAST_USER)
        assert new is not None and new.prompt is not None
        after = prompt_turns(new.prompt, markup)
        assert after is not None
        body = next(new.prompt[a:b] for a, b, role in after if role == TOOLS_ROLE)
        cut = rewrite(message_req, messages_rounds, LAST_USER)
        assert cut is not None and cut.tools is not None
        expected = _render(layout, {"tools": list(cut.tools), "messages": record["messages"]})
        expected_turns = prompt_turns(expected, markup)
        assert expected_turns is not None
        assert body == next(expected[a:b] for a, b, role in expected_turns if role == TOOLS_ROLE)
        assert "Walk-ins" not in body
        value = record["tools"][1]["function"]["description"].rsplit(". ", 1)[1]
        last = next(new.prompt[a:b] for a, b, role in reversed(after) if role == "user")
        assert value in last
        tools_turns.add(body)
    assert len(tools_turns) == 1  # every request now sends the same tools
