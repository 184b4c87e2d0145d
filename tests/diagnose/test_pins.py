"""The chat template's own inputs pinned by the canonical form (advisor.prescribe.pins): what
the template renders from a request's options or clock is read off a render probe, and only
there is it pinned."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest

from advisor.ingest.source import make_renderer
from advisor.ingest.traffic import parse_record
from advisor.prescribe.canonical import KEPT, LAST_USER, canonical_rounds, rewrite
from advisor.prescribe.markup import Markup, markup_of
from advisor.prescribe.pins import PINNED_DATE

TEMPLATES = Path(__file__).resolve().parents[1] / "chat_templates"
JINJA = sorted(TEMPLATES.glob("*.jinja"))


@functools.cache
def _markup(template: Path | None) -> Markup:
    return markup_of(make_renderer("llama3", template, None, []))


@pytest.mark.parametrize("template", JINJA, ids=[p.stem for p in JINJA])
def test_the_probe_finds_what_the_template_source_reads(template: Path) -> None:
    """Oracle: the template's source. Every template here that names ``date_string`` prints
    it, and every one that calls ``strftime_now`` prints the day it gives."""
    text = template.read_text()
    markup = _markup(template)
    assert markup.reads_date == ("date_string" in text)
    assert markup.reads_clock == ("strftime_now" in text)


def _records(n: int = 12) -> list[dict[str, Any]]:
    """A fixed system prompt and a question per request, sent on five days, with the day as
    the ``date_string`` kwarg and the request's clock."""
    out = []
    for i in range(n):
        day = 1 + i % 5
        out.append({"timestamp": 1_796_083_200 + 86_400 * day + 60 * i,
                    "chat_template_kwargs": {"date_string": f"0{day} Dec 2026"},
                    "messages": [{"role": "system", "content": "Answer briefly.\n\nCite the manual."},
                                 {"role": "user", "content": f"Question {i}?"}]})
    return out


@pytest.mark.parametrize("template", [None, TEMPLATES / "gpt_oss.jinja", TEMPLATES / "qwen25.jinja"],
                         ids=["llama3-built-in", "harmony", "chatml"])
def test_a_value_the_template_renders_is_pinned_only_where_it_reads_it(template: Path | None) -> None:
    renderer = make_renderer("llama3", template, None, [])
    markup = markup_of(renderer)
    reqs = [parse_record(r, "pins", k + 1) for k, r in enumerate(_records())]
    rounds = canonical_rounds(list(reqs), markup)
    heads, logged = set(), set()
    for req in reqs:
        for to in (KEPT, LAST_USER):
            new = rewrite(req, rounds, to) or req
            kwargs = (new.options or {}).get("chat_template_kwargs", {})
            sent = (req.options or {})["chat_template_kwargs"]["date_string"]
            assert kwargs["date_string"] == (PINNED_DATE if markup.reads_date else sent)
            assert (new.timestamp is None) == markup.reads_clock
            # Only the pins changed: the messages are the request's own.
            assert new.messages == req.messages
            text = renderer.text_of(new) or ""
            heads.add(text[:text.index("Question")])
        text = renderer.text_of(req) or ""
        logged.add(text[:text.index("Question")])
    # Every request now renders the same up to its question; as logged, the requests of the
    # five days differed there wherever the template read a value.
    assert len(heads) == 1
    assert len(logged) == (5 if markup.reads_date or markup.reads_clock else 1)


OFFICIAL = sorted((TEMPLATES / "official").glob("*.jinja"))


@pytest.mark.parametrize("template", JINJA + OFFICIAL, ids=[p.parent.name + "/" + p.stem for p in JINJA + OFFICIAL])
def test_a_call_s_reasoning_renders_one_way_in_every_request_of_the_conversation(template: Path) -> None:
    """Oracle: the template itself. An agent's call carries its reasoning; the loop's request
    ends with the call's result, the next turn's request follows with an answer and a new
    question. Where the template prints the reasoning in one and not the other (the probe's
    ``drops_reasoning``), the canonical form sends none, and both render the call alike;
    elsewhere the reasoning is sent as it was."""
    renderer = make_renderer("llama3", template, None, [])
    markup = markup_of(renderer)
    thought = "Checking the pallet register first because the dock changed."
    tool = {"type": "function", "function": {"name": "register", "description": "Read the pallet register.",
                                             "parameters": {"type": "object", "properties": {"dock": {"type": "string"}}}}}
    call = {"id": "call00001", "type": "function", "function": {"name": "register", "arguments": '{"dock": "B"}'}}
    loop = [{"role": "system", "content": "You run the dock."}, {"role": "user", "content": "Where is pallet 7?"},
            {"role": "assistant", "content": None, "tool_calls": [call], "reasoning_content": thought},
            {"role": "tool", "tool_call_id": "call00001", "content": "Pallet 7: dock B, row 3."}]
    later = loop + [{"role": "assistant", "content": "Dock B, row 3."}, {"role": "user", "content": "And pallet 9?"}]
    reqs = [parse_record({"messages": m, "tools": [tool]}, "pins", k + 1) for k, m in enumerate((loop, later))]
    rounds = canonical_rounds(list(reqs), markup)
    try:
        logged = [thought in renderer.chat.render(list(r.messages or ()), [tool]) for r in reqs]
    except Exception:  # noqa: BLE001 (a template that takes no such conversation: nothing known to drop)
        assert not markup.drops_reasoning
        return
    assert markup.drops_reasoning == (logged == [True, False])
    for req in reqs:
        fixed = rewrite(req, rounds) or req
        messages = list(fixed.messages or ())
        sent = any("reasoning_content" in m for m in messages)
        assert sent != markup.drops_reasoning
    fixed_renders = [thought in renderer.chat.render(list((rewrite(r, rounds) or r).messages or ()), [tool]) for r in reqs]
    assert fixed_renders[0] == fixed_renders[1]
