"""What each new turn of a reasoning model's conversation prefills again when the chat
template drops the reasoning of earlier assistant turns (issue 36, point 5).

After a turn the engine's prefix cache holds the prompt plus the generated output,
reasoning included (SGLang inserts the finished sequence; vLLM caches the output's full
blocks). The next request of the conversation re-renders that assistant turn from the
history; a template that drops or blanks its reasoning (Qwen 3, DeepSeek, gpt-oss, GLM;
lint rule PC402 names the construct) makes the new prompt leave the cached sequence where
the reasoning began, and the previous answer is prefilled again.

Measured per request whose latest assistant turn carries reasoning in the record
(``reasoning_content``, ``thinking`` or ``reasoning``) and is followed by the new
messages, with the run's renderer (the engine's preprocessing, then the chat template):

* kept or dropped: whether the reasoning's text is in the rendered new prompt;
* the cached sequence: the previous request's prompt (the history up to that turn, as a
  generation request) followed by the output as generated, which starts with the
  reasoning; where the new prompt leaves it is the divergence;
* the end of the turn in the new prompt: where the next message's text starts (its
  longest common prefix with the same request whose next message's text is changed);
* the tokens the drop re-prefills: from the divergence to that end (the previous answer,
  its tool calls, the turn's closing and the next message's role header). Had the
  reasoning been kept, only the new messages after it would be prefilled; the few tokens
  of the closing and the header, which would be prefilled either way, are counted with
  the turn (a template cannot be asked where a turn's rendering ends).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, Iterable, Mapping, Sequence as SequenceOf

from advisor.ingest.pipeline import Renderer, Sequence
from advisor.ingest.traffic import Request

# The names a message's reasoning text comes under (advisor.ingest.chat_template.REASONING_FIELDS,
# not imported: that module needs Jinja2).
REASONING_FIELDS = ("reasoning_content", "thinking", "reasoning")
BATCH = 64  # turns rendered per round trip (three requests each)
DROPS = "drops earlier reasoning"
KEEPS = "keeps it"


def reasoning_of(message: Any) -> str | None:
    """The reasoning text a message carries (the first non-empty of ``REASONING_FIELDS``)."""
    if not isinstance(message, Mapping):
        return None
    for key in REASONING_FIELDS:
        value = message.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return None


def _role(message: Any) -> str:
    role = message.get("role") if isinstance(message, Mapping) else None
    return role.lower() if isinstance(role, str) else ""


def latest_reasoning_turn(messages: SequenceOf[Any] | None) -> int | None:
    """The index of the request's latest assistant turn when it carries reasoning and new
    messages follow it (the output of the conversation's previous request); else None."""
    if not messages:
        return None
    last = max((i for i, m in enumerate(messages) if _role(m) == "assistant"), default=None)
    if last is None or last == 0 or last == len(messages) - 1 or _role(messages[last - 1]) == "assistant":
        return None
    return last if reasoning_of(messages[last]) is not None else None


def _marker(text: str) -> str:
    return "\u00a4" if text.startswith("\u00a7") else "\u00a7"


def probe(message: Any) -> dict[str, Any] | None:
    """``message`` with a character put before its text, so a render of it leaves the
    original where that text starts; None when it has no text to change."""
    if not isinstance(message, Mapping):
        return None
    content = message.get("content")
    if isinstance(content, str):
        return {**message, "content": _marker(content) + content}
    if isinstance(content, list):
        for i, part in enumerate(content):
            if isinstance(part, Mapping) and part.get("type") == "text" and isinstance(part.get("text"), str):
                changed = {**part, "text": _marker(part["text"]) + part["text"]}
                return {**message, "content": [*content[:i], changed, *content[i + 1:]]}
    return None


def common_prefix(a: SequenceOf[int], b: SequenceOf[int]) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def measure(seqs: Iterable[Sequence], renderer: Renderer, prompt_tokens: int,
            encode: Callable[[str], SequenceOf[int]] | None = None) -> dict[str, Any] | None:
    """``facts["traffic"]["reasoning_history"]``, or None when no request's latest assistant
    turn carries reasoning (the key is then left out)."""
    encode = encode or renderer.tokenizer.encode
    turns: list[tuple[Request, int]] = []
    for seq in seqs:
        req = seq.request
        if req.kind != "messages":
            continue
        k = latest_reasoning_turn(req.messages)
        if k is not None:
            turns.append((req, k))
    if not turns:
        return None
    measured = dropped = reprefilled = 0
    for start in range(0, len(turns), BATCH):
        for lost in _measure_batch(turns[start:start + BATCH], renderer, encode):
            if lost is None:
                continue  # a render failed: the turn is not measured
            measured += 1
            if lost >= 0:
                dropped += 1
                reprefilled += lost
    if not measured:
        return None
    return {
        "turns": measured,
        "dropped": dropped,
        "tokens_reprefilled": reprefilled,
        "per_turn": round(reprefilled / dropped, 1) if dropped else 0.0,
        "share_of_prompt_tokens": round(reprefilled / prompt_tokens, 6) if prompt_tokens else 0.0,
        "template": DROPS if dropped else KEEPS,
    }


def _measure_batch(turns: list[tuple[Request, int]], renderer: Renderer,
                   encode: Callable[[str], SequenceOf[int]]) -> list[int | None]:
    """Per turn: None (not measured), -1 (the reasoning is rendered back) or the tokens the
    drop re-prefills."""
    reqs: list[Request] = []
    for req, k in turns:
        messages = tuple(req.messages or ())
        changed = probe(messages[k + 1])
        reqs += [req, replace(req, messages=messages[:k])]
        reqs.append(replace(req, messages=(*messages[:k + 1], changed, *messages[k + 2:])) if changed else req)
    rendered = renderer.texts_of(reqs)
    out: list[int | None] = []
    for i, (req, k) in enumerate(turns):
        new, prev, probed = rendered[3 * i:3 * i + 3]
        if reqs[3 * i + 2] is req:
            probed = None  # the next message has no text to find
        try:
            out.append(_lost(new, prev, probed, reasoning_of((req.messages or ())[k]) or "", renderer, encode))
        except Exception:  # the tokenizer refused a render: that turn is not measured
            out.append(None)
    return out


def _ids(rendered: Any, encode: Callable[[str], SequenceOf[int]]) -> SequenceOf[int] | None:
    if isinstance(rendered, str):
        return encode(rendered)
    if isinstance(rendered, list):
        return rendered  # ids straight from the chat renderer (mistral-common)
    return None  # an exception, or nothing rendered


def _lost(new: Any, prev: Any, probed: Any, reasoning: str, renderer: Renderer,
          encode: Callable[[str], SequenceOf[int]]) -> int | None:
    new_ids = _ids(new, encode)
    if new_ids is None:
        return None
    text = new if isinstance(new, str) else renderer.tokenizer.decode(new_ids)
    if reasoning.strip() in text:
        return -1
    prev_ids, probed_ids = _ids(prev, encode), _ids(probed, encode)
    if prev_ids is None or probed_ids is None:
        return None
    # The cached sequence is the previous prompt, then the output, which begins with the
    # reasoning (or the <think> that opens it): the new prompt, which does not render the
    # reasoning, leaves it where the previous prompt ends, or earlier (a generation prompt
    # that opened <think> while the history writes </think>).
    diverges = common_prefix(new_ids, prev_ids)
    ends = common_prefix(new_ids, probed_ids)
    return max(0, ends - diverges)
