"""The texts a prescription reads from a request, as the chat template renders them: a
message's content, a tool definition in each layout templates print it in, a tool call's
arguments; JSON string escapes undone; and the fix that numbers tool-call ids."""

from __future__ import annotations

import dataclasses
import functools
import json
import re
from typing import Any

from advisor.ingest.traffic import Request

# Chat markup in decoded text: Llama 3's and ChatML's <|...|>, Mistral's control tokens.
# (Gemma's turn markers and DeepSeek's full-width bars as well: a raw prompt a client writes
# in those layouts ends its user turn with them too.)
CHAT_MARKUP = re.compile(r"<\|[^|>]{1,40}\|>|</?s>|\[/?(?:INST|AVAILABLE_TOOLS|TOOL_RESULTS|TOOL_CALLS|SYSTEM_PROMPT)\]"
                         r"|<(?:start|end)_of_turn>|<｜[^｜<>\s]{1,40}｜>")

# How the engine joins the text parts of a content list (``part_joiner``); "" until known.
DEFAULT_JOINER = ""
# The layouts tool definitions are rendered in: indented (Llama 3.1's tojson) and inline.
TOOL_INDENTS: tuple[int | None, ...] = (4, 2, None)


def text_of(content: Any, joiner: str = DEFAULT_JOINER) -> str | None:
    """A message content as the text it renders to: a string, or a list of text parts
    joined as the engine joins them; None for other contents (images, tool calls)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and content and all(
            isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str) for p in content):
        return joiner.join(p["text"] for p in content)
    return None


_ESCAPES = {'\\"': '"', "\\n": "\n", "\\t": "\t", "\\\\": "\\", "\\/": "/"}
_ESCAPE = re.compile(r'\\["nt\\/]')


def json_unescaped(text: str) -> str | None:
    """``text`` with JSON string escapes undone, or None when it has none. A chat template
    may print a message's content through ``tojson`` (Llama 3.1 does for tool results), so
    the decoded prompt holds ``\\"`` where the message holds ``"``; pieces of it are cut
    anywhere, so this is done escape by escape, not by parsing a whole string."""
    if "\\" not in text:
        return None
    out = _ESCAPE.sub(lambda m: _ESCAPES[m.group(0)], text)
    return out if out != text else None


# Every request repeats the same few tool definitions, and the search asks about each of
# them many times: each is laid out and walked once. The key is the compact dump (the C
# encoder); the indented dumps and the walk run in Python and were most of prescribe's time.
@functools.lru_cache(maxsize=1024)
def tool_texts(compact: str) -> tuple[str, ...]:
    """A tool definition as each layout in ``TOOL_INDENTS`` prints it."""
    value = json.loads(compact)
    return tuple(json.dumps(value, ensure_ascii=False, indent=indent) for indent in TOOL_INDENTS)


def call_arguments_text(call: Any) -> str | None:
    """A tool call's arguments as JSON text, as the client sent them (a string, or an
    object dumped), or None."""
    fn = call.get("function") if isinstance(call, dict) else None
    args = fn.get("arguments") if isinstance(fn, dict) else None
    if isinstance(args, str):
        return args
    return json.dumps(args, ensure_ascii=False) if isinstance(args, dict) else None


def number_call_ids(req: Request) -> Request | None:
    """The request with its tool-call ids numbered in the order the calls come (the results'
    ``tool_call_id`` to match), each as long as the id it replaces and with its prefix: a
    client that draws a random id for a call it replays sends a new prefix each time, and
    chat templates print the id (Mistral's in the call and again in its result)."""
    if req.kind != "messages" or not req.messages:
        return None
    renamed: dict[str, str] = {}
    for m in req.messages:
        for call in m.get("tool_calls") or []:
            old = call.get("id") if isinstance(call, dict) else None
            if isinstance(old, str) and old and old not in renamed:
                cut = max(old.rfind("_"), old.rfind("-")) + 1
                width = max(1, len(old) - cut)
                renamed[old] = old[:cut] + str(len(renamed) + 1).zfill(width)[-width:]
    if not renamed or all(k == v for k, v in renamed.items()):
        return None
    messages = []
    for m in req.messages:
        calls = m.get("tool_calls")
        if calls:
            m = {**m, "tool_calls": [{**c, "id": renamed.get(str(c.get("id")), c.get("id"))} if isinstance(c, dict) else c
                                     for c in calls]}
        if isinstance(m.get("tool_call_id"), str) and m["tool_call_id"] in renamed:
            m = {**m, "tool_call_id": renamed[m["tool_call_id"]]}
        messages.append(m)
    return dataclasses.replace(req, messages=tuple(messages))
