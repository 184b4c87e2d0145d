"""Reasoning models: what each new turn re-prefills when the chat template drops the
reasoning of earlier assistant turns (issue 36, point 5; ``advisor.advise.reasoning``).

The figures are computed here independently of the advisor's renderer: the official Qwen 3
template rendered with plain Jinja2, the cached sequence built as Qwen 3 generates its
output (``<think>`` reasoning ``</think>`` answer ``<|im_end|>``), and the token counts of
the Qwen 3 tokenizer.
"""

from __future__ import annotations

import json
from pathlib import Path

import jinja2
import pytest

from advisor.ingest.tokenizers import load_tokenizer
from advisor.report import advisory
from tests.conftest import ROOT

QWEN3 = ROOT / "tests" / "chat_templates" / "official" / "qwen3.jinja"
# A template that renders every assistant turn with its reasoning, earlier ones too.
KEEPS = (
    "{%- for m in messages %}"
    "{{- '<|im_start|>' + m.role + '\\n' }}"
    "{%- if m.role == 'assistant' and m.reasoning_content %}"
    "{{- '<think>\\n' + m.reasoning_content + '\\n</think>\\n\\n' }}"
    "{%- endif %}"
    "{{- m.content + '<|im_end|>\\n' }}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}"
)

SYSTEM = {"role": "system", "content": "You are a careful assistant."}
U1 = {"role": "user", "content": "What is the capital of France?"}
A1 = {"role": "assistant", "content": "The capital of France is Paris.",
      "reasoning_content": "The user asks for the capital of France. That is Paris; I should answer briefly."}
U2 = {"role": "user", "content": "And its population?"}
A2 = {"role": "assistant", "content": "About 2.1 million people live in Paris proper.",
      "reasoning_content": "Now they ask about its population. Roughly 2.1 million in the city proper."}
U3 = {"role": "user", "content": "Thanks!"}
# An agent loop: the reasoning of a tool call made after the last user query. Qwen 3 keeps
# it (only turns before the last user query lose theirs).
TOOL_LOOP = [
    {"role": "user", "content": "Weather in Oslo?"},
    {"role": "assistant", "content": "", "reasoning_content": "I need the weather tool for Oslo.",
     "tool_calls": [{"id": "c1", "type": "function",
                     "function": {"name": "weather", "arguments": "{\"city\": \"Oslo\"}"}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "{\"temp\": 3}"},
]
CONVERSATIONS = [
    [SYSTEM, U1],
    [SYSTEM, U1, A1, U2],
    [SYSTEM, U1, A1, U2, A2, U3],
    TOOL_LOOP,
]


@pytest.fixture(scope="module")
def qwen3_tokenizer():
    return load_tokenizer("qwen3")


def _write(path: Path, conversations: list[list[dict]]) -> Path:
    path.write_text("".join(json.dumps({"messages": m}) + "\n" for m in conversations))
    return path


def _report(cli, traffic: Path, template: Path, *extra: str) -> dict:
    res = cli("report", "--traffic", traffic, "--tokenizer", "qwen3", "--chat-template", template, *extra,
              "--format", "json", "--output", "-")
    assert res.code == 0, res.err
    return json.loads(res.out)


def _render(template: str, messages: list[dict], generation: bool = True) -> str:
    env = jinja2.Environment(trim_blocks=True, lstrip_blocks=True, extensions=["jinja2.ext.loopcontrols"])
    return env.from_string(template).render(messages=messages, add_generation_prompt=generation)


def _common(a: list[int], b: list[int]) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def test_qwen3_drops_earlier_reasoning_and_each_turn_prefills_the_previous_answer_again(cli, tmp_path,
                                                                                        qwen3_tokenizer) -> None:
    enc = qwen3_tokenizer.encode
    template = QWEN3.read_text()
    data = _report(cli, _write(tmp_path / "chat.jsonl", CONVERSATIONS), QWEN3)

    prompt_tokens = sum(len(enc(_render(template, m))) for m in CONVERSATIONS)
    assert data["traffic"]["prompt_tokens"] == prompt_tokens == 206

    # Per new turn after a reasoning turn: the cache held the previous prompt plus the output
    # as Qwen 3 generates it; the new prompt leaves it where the reasoning began and
    # prefills again up to the text of the message that follows the turn.
    lost = []
    for messages, turn, following in (([SYSTEM, U1, A1, U2], A1, U2), ([SYSTEM, U1, A1, U2, A2, U3], A2, U3)):
        new_text = _render(template, messages)
        assert turn["reasoning_content"] not in new_text  # the template dropped it
        k = messages.index(turn)
        cached = enc(_render(template, messages[:k]) + "<think>\n" + turn["reasoning_content"] + "\n</think>\n\n"
                     + turn["content"] + "<|im_end|>")
        new = enc(new_text)
        head = enc(new_text[:new_text.index(following["content"])])
        assert new[:len(head)] == head
        diverges = _common(new, cached)
        assert diverges == len(enc(_render(template, messages[:k])))  # right after "<|im_start|>assistant\n"
        lost.append(len(head) - diverges)
    # The answer, <|im_end|>, and "\n<|im_start|>user\n" before the next message's text.
    assert lost == [len(enc(A1["content"])) + 5, len(enc(A2["content"])) + 5] == [12, 17]
    # The agent loop's tool call keeps its reasoning (after the last user query).
    assert TOOL_LOOP[1]["reasoning_content"] in _render(template, TOOL_LOOP)

    assert data["traffic"]["reasoning_history"] == {
        "turns": 3, "dropped": 2, "tokens_reprefilled": sum(lost), "per_turn": sum(lost) / 2,
        "share_of_prompt_tokens": round(sum(lost) / prompt_tokens, 6), "template": "drops earlier reasoning",
    }
    assert sum(lost) == 29
    text = advisory.to_markdown(data, None)
    assert ("The chat template drops the reasoning of earlier assistant turns: each new turn re-prefills 14 tokens "
            "on average (2 of 3 turns, 14.1% of prompt tokens) that the cache held; PC402 names the template "
            "construct.") in text


def test_a_template_that_keeps_the_reasoning_loses_nothing(cli, tmp_path, qwen3_tokenizer) -> None:
    enc = qwen3_tokenizer.encode
    template = tmp_path / "keeps.jinja"
    template.write_text(KEEPS)
    # What the cache held (the history up to the turn, the turn rendered as generated) is a
    # prefix of the next prompt: the whole previous output is a hit.
    for messages, turn in (([SYSTEM, U1, A1, U2], A1), ([SYSTEM, U1, A1, U2, A2, U3], A2)):
        held = enc(_render(KEEPS, messages[:messages.index(turn) + 1], generation=False))
        assert enc(_render(KEEPS, messages))[:len(held)] == held
    data = _report(cli, _write(tmp_path / "chat.jsonl", CONVERSATIONS), template)
    assert data["traffic"]["reasoning_history"] == {
        "turns": 3, "dropped": 0, "tokens_reprefilled": 0, "per_turn": 0.0, "share_of_prompt_tokens": 0.0,
        "template": "keeps it",
    }
    assert ("The chat template renders the reasoning of earlier assistant turns back (3 turns)"
            in advisory.to_markdown(data, None))


def test_traffic_without_reasoning_has_no_reasoning_history(cli, tmp_path) -> None:
    plain = [[{k: v for k, v in m.items() if k != "reasoning_content"} for m in c] for c in CONVERSATIONS]
    data = _report(cli, _write(tmp_path / "chat.jsonl", plain), QWEN3)
    assert "reasoning_history" not in data["traffic"]
    assert "reasoning of earlier" not in advisory.to_markdown(data, None)


def test_vllm_passes_a_reasoning_field_the_template_reads(cli, tmp_path) -> None:
    # vLLM hands the template an assistant turn's `reasoning` as `reasoning_content` too;
    # SGLang's request model has no `reasoning` field, so the template never sees it.
    renamed = [[{("reasoning" if k == "reasoning_content" else k): v for k, v in m.items()} for m in c]
               for c in CONVERSATIONS[:3]]
    template = tmp_path / "keeps.jinja"
    template.write_text(KEEPS)
    traffic = _write(tmp_path / "chat.jsonl", renamed)
    assert _report(cli, traffic, template, "--engine", "vllm")["traffic"]["reasoning_history"]["template"] == "keeps it"
    sglang = _report(cli, traffic, template)["traffic"]["reasoning_history"]
    assert (sglang["turns"], sglang["dropped"], sglang["template"]) == (2, 2, "drops earlier reasoning")
