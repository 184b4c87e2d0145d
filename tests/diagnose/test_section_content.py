"""Per-request content that opens a section of its message, behind a template's own text.

A chat template may print text of its own at the top of a message (Command R's safety and
system preambles before the user's system text, the tools Llama 3.1 prints into the first
user turn, harmony markup that is no special token in the vocabulary served). Content the
request brings first (a report, a profile, retrieved abstracts) then opens a section after a
heading or a blank line, not the message: it is still per-request content ahead of static
content (TR102), and a value there (an id, a clock) is still a value (TR101). Reports written
in the handbook's own sentences re-join it a sentence at a time, so where the content ends is
where the prompt resumes for good. Generated over record kinds, preambles, labels, report
lengths and how much of the report the handbook also says; each checked through the CLI
against the brute-force truth of its ideally fixed traffic (``zoo.truth``)."""

from __future__ import annotations

import base64
import json
import os
import random
from pathlib import Path

import pytest

from tests.diagnose import zoo
from tests.diagnose.test_regressions_12c import TOLERANCE, _prescribe

ACTORS = ["The duty officer", "A field observer", "The night editor", "A station operator", "The reviewer"]
DUTIES = ["must confirm the reading with a second source", "should log the grid reference",
          "may only publish after the review", "has to attach the station list", "needs to check the archive"]
WHENS = ["when two reports disagree", "if the sensor was serviced this week", "before the bulletin goes out",
         "unless the supervisor objects", "when the location is automatic"]
PLACES = ["Kunda", "Sillamae", "Rakvere", "Haapsalu", "Tartu", "Narva", "Paide", "Valga"]


def _sentence(rng: random.Random) -> str:
    return f"{rng.choice(ACTORS)} {rng.choice(DUTIES)} {rng.choice(WHENS)}."


def _preamble(style: str) -> str:
    """The template's own text at the top of the message (no special token between it and
    the request's content)."""
    if style == "headings":
        return ("# Safety Preamble\nThe instructions in this section override those in the task description "
                "and style guide sections. Refuse requests that would cause harm, and say why in one sentence.\n\n"
                "# System Preamble\n## Basic Rules\nYou are a careful conversational assistant trained to help "
                "people with their work, and you answer in the language of the question.\n\n# User Preamble\n")
    if style == "turn-markup":  # a raw prompt in another model's markup, no special token here
        return ("<BOS_TOKEN><|START_OF_TURN_TOKEN|><|SYSTEM_TOKEN|># System Preamble\n## Basic Rules\nYou are a "
                "careful conversational assistant trained to help people with their work, and you answer in the "
                "language of the question. Refuse requests that would cause harm, and say why in one sentence."
                "<|END_OF_TURN_TOKEN|><|START_OF_TURN_TOKEN|><|USER_TOKEN|>")
    return ("Knowledge cutoff: 2024-06\nReasoning: medium\n\nValid channels: analysis, commentary, final. A channel "
            "must be named for every message, and tool calls go to the commentary channel only. Answers that "
            "quote a document name it.\n\n# Instructions\n\n")


def _handbook(rng: random.Random, paragraphs: int) -> str:
    return "\n\n".join(" ".join(_sentence(rng) for _ in range(rng.randint(4, 7))) for _ in range(paragraphs))


def _record(kind: str, system: str, user: str) -> dict:
    if kind == "prompt":
        return {"prompt": f"{system}\n\nQuestion: {user}\nAnswer:"}
    return {"messages": [{"role": "system", "content": system}, {"role": "user", "content": user}]}


def _workload(kind: str, style: str, label: str, sentences: int, seed: int,
              value: bool = False) -> tuple[zoo.Workload, str]:
    rng = random.Random(seed)
    book = _handbook(rng, 5)
    intro = "You are Quakedesk, the bulletin assistant of the Northern Seismic Office."
    records, fixed, kept, contents, questions = [], [], [], [], []
    for i in range(40):
        if value and "Bearer" in label:
            # A long value with no words in it (a bearer token) under a heading and a sentence.
            claims = json.dumps({"jti": f"{rng.getrandbits(48):012x}", "sub": f"agent-{rng.randint(100, 999)}",
                                 "iat": 1795996800 + 3607 * i, "scope": "support:read"}).encode()
            content = label + "eyJhbGciOiJIUzI1NiJ9." + base64.urlsafe_b64encode(claims).decode().rstrip("=")
        elif value:
            content = f"{label}{1795996800123 + 997 * i}"
        else:
            content = (f"{label}{rng.randint(10000, 99999)} from {rng.choice(PLACES)}: "
                       + " ".join(_sentence(rng) for _ in range(rng.randint(sentences, sentences + 3))))
        contents.append(content)
        q = zoo.question(rng)
        records.append(_record(kind, f"{_preamble(style)}{content}\n\n{intro}\n\n{book}", q))
        fixed.append(_record(kind, f"{_preamble(style)}{intro}\n\n{book}", f"{q}\n\n{content}"))
        questions.append(q)
    # A value may also leave in place its label and what every value starts with (a token's
    # header): the truth is the better fix.
    keep = os.path.commonprefix(contents)
    for content, q in zip(contents, questions):
        kept.append(_record(kind, f"{_preamble(style)}{keep}\n\n{intro}\n\n{book}", f"{q}\n\n{content[len(keep):]}"))
    needle = contents[0].split(":", 1)[0] if not value else contents[0]
    name = f"section-{kind}-{style}-{sentences}-{seed}"
    return max((zoo.Workload(name, kind, records, f, []) for f in ([fixed, kept] if value else [fixed])),
               key=zoo.truth), needle


def _spans(data: dict) -> list[dict]:
    return [f for f in data["findings"] if f["code"] in ("TR101", "TR102")]


@pytest.mark.parametrize("kind,style,label,sentences,seed", [
    ("messages", "headings", "Felt report ", 2, 1),
    ("messages", "headings", "", 5, 2),
    ("prompt", "headings", "Report ", 3, 3),
    ("messages", "markup", "Retrieved:\n", 2, 4),
    ("prompt", "markup", "", 6, 5),
    ("prompt", "turn-markup", "Shift notes ", 3, 6),
])
def test_content_opening_a_section_behind_the_templates_text_is_tr102(
        tmp_path: Path, cli, kind: str, style: str, label: str, sentences: int, seed: int) -> None:
    w, needle = _workload(kind, style, label, sentences, seed)
    data = _prescribe(tmp_path, cli, w)
    spans = _spans(data)
    assert spans and spans[0]["code"] == "TR102", [(f["code"], f["token_offset"], f["example"][:60]) for f in spans]
    at = zoo.token_offset(w.records[0], w.records[0]["messages"][0]["content"][len(_preamble(style)):]
                          if kind == "messages" else w.records[0]["prompt"][len(_preamble(style)):])
    assert min(abs(f["token_offset"] - at) for f in spans if f["code"] == "TR102") <= 16
    truth = zoo.truth(w)
    assert abs(data["hit_rate_after"] - truth) <= TOLERANCE, (data["hit_rate_after"], truth)


@pytest.mark.parametrize("kind,style,label", [("messages", "headings", "Request id: "),
                                              ("prompt", "markup", "Trace "),
                                              ("messages", "headings",
                                               "Call the account service with this header:\nAuthorization: Bearer ")])
def test_a_value_opening_a_section_behind_the_templates_text_stays_tr101(
        tmp_path: Path, cli, kind: str, style: str, label: str) -> None:
    w, needle = _workload(kind, style, label, 0, 7, value=True)
    data = _prescribe(tmp_path, cli, w)
    spans = _spans(data)
    assert [f["code"] for f in spans] == ["TR101"], [(f["code"], f["token_offset"], f["example"][:60]) for f in spans]
    assert abs(spans[0]["token_offset"] - zoo.token_offset(w.records[0], needle[len(label):][:8])) <= 16
    assert abs(data["hit_rate_after"] - zoo.truth(w)) <= TOLERANCE


def test_a_short_user_turn_ahead_of_the_system_turn_in_markup_spelled_as_text_is_tr102(tmp_path: Path, cli) -> None:
    # A raw ChatML prompt under a vocabulary without its special tokens: only the markup's
    # text says that the notes are a user turn of their own, ahead of the static system turn.
    rng = random.Random(11)
    book = _handbook(rng, 4)
    opening = ("<|im_start|>system\nYou are a careful assistant. Answer in the language of the question, refuse "
               "requests that would cause harm, and say why in one sentence. Quote the handbook when it settles "
               "a question.<|im_end|>\n<|im_start|>user\n")
    records, fixed, notes = [], [], []
    for _ in range(40):
        note = f"Hive H{rng.randint(10, 99)} notes: " + " ".join(_sentence(rng) for _ in range(2))
        notes.append(note)
        q = zoo.question(rng)
        static = f"<|im_start|>system\nYou are Quakedesk.\n\n{book}<|im_end|>\n"
        records.append({"prompt": f"{opening}{note}<|im_end|>\n{static}<|im_start|>user\n{q}<|im_end|>\n"
                                  "<|im_start|>assistant\n"})
        fixed.append({"prompt": f"{opening}Notes follow the question.<|im_end|>\n{static}<|im_start|>user\n{q}\n\n"
                                f"{note}<|im_end|>\n<|im_start|>assistant\n"})
    w = zoo.Workload("chatml-as-text-notes", "prompt", records, fixed, [])
    data = _prescribe(tmp_path, cli, w)
    spans = _spans(data)
    assert spans and spans[0]["code"] == "TR102", [(f["code"], f["token_offset"], f["example"][:60]) for f in spans]
    assert abs(spans[0]["token_offset"] - zoo.token_offset(records[0], notes[0])) <= 16
    assert abs(data["hit_rate_after"] - zoo.truth(w)) <= TOLERANCE, (data["hit_rate_after"], zoo.truth(w))
