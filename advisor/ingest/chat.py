"""Chat rendering: turn a ``messages`` request into the exact text the engine tokenizes.

The built-in layout is Llama 3's (``<|begin_of_text|>``, a header per message, ``<|eot_id|>``
after each, then the assistant header as the generation prompt). A HuggingFace chat
template can replace it (``advisor.ingest.chat_template``, which needs Jinja2; this module does
not, so the common case starts without importing it).
"""

from __future__ import annotations

import datetime as dt
import json
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Protocol, Sequence


BOS = "<|begin_of_text|>"
HEADER = "<|start_header_id|>{role}<|end_header_id|>\n\n"
EOT = "<|eot_id|>"
# Dates for `strftime_now` when a request has no absolute timestamp: fixed, so that the
# same input always renders the same text.
FALLBACK_NOW = dt.datetime(2026, 1, 1, 12, 0, 0, tzinfo=dt.timezone.utc)


class ChatRenderer(Protocol):
    @property
    def name(self) -> str: ...

    def render(self, messages: Sequence[dict[str, Any]], tools: Sequence[Any] | None,
               timestamp: float | None) -> str: ...


def content_text(content: Any) -> str:
    """The text of a message's content: a string, or the text parts of a part list."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content if isinstance(part, dict))


def _tool_call_text(message: dict[str, Any]) -> str:
    calls = message.get("tool_calls") or []
    rendered = []
    for call in calls:
        fn = call.get("function", call) if isinstance(call, dict) else {}
        args = fn.get("arguments", {})
        if isinstance(args, str):
            try:
                args = json.loads(args)
            except ValueError:
                pass
        rendered.append(json.dumps({"name": fn.get("name"), "parameters": args}, ensure_ascii=False))
    return "\n".join(rendered)


@dataclass(frozen=True)
class Llama3Layout:
    """Llama 3's chat layout. Tools, when a request carries them, go in the system turn
    as Llama 3.1's template puts them (``Environment: ipython`` and one JSON per tool)."""

    name: str = "llama3"

    def render(self, messages: Sequence[dict[str, Any]], tools: Sequence[Any] | None,
               timestamp: float | None = None) -> str:
        parts = [BOS]
        msgs = list(messages)
        if tools:
            system = ""
            if msgs and msgs[0].get("role") == "system":
                system = content_text(msgs[0].get("content")).strip()
                msgs = msgs[1:]
            tool_text = _tool_block(tools)
            body = "Environment: ipython\n\n" + (system + "\n\n" if system else "") + tool_text
            parts.append(HEADER.format(role="system") + body + EOT)
        for msg in msgs:
            role = msg["role"]
            # Llama 3 names the tool-result role `ipython`.
            header_role = "ipython" if role in ("tool", "function") else role
            text = content_text(msg.get("content")).strip()
            if msg.get("tool_calls"):
                text = (text + "\n" if text else "") + _tool_call_text(msg)
            parts.append(HEADER.format(role=header_role) + text + EOT)
        parts.append(HEADER.format(role="assistant"))
        return "".join(parts)


_TOOL_TEXT: "OrderedDict[bytes, str]" = OrderedDict()


def _tool_block(tools: Sequence[Any]) -> str:
    """Tools as indented JSON, one after another. Memoized: agent traffic repeats the same
    tool list on every request, and indented json.dumps runs in pure Python."""
    key = _canonical(tools)
    text = _TOOL_TEXT.get(key)
    if text is None:
        text = "\n\n".join(json.dumps(t, indent=4, ensure_ascii=False) for t in tools)
        _TOOL_TEXT[key] = text
        if len(_TOOL_TEXT) > 256:
            _TOOL_TEXT.popitem(last=False)
    else:
        _TOOL_TEXT.move_to_end(key)
    return text


def _canonical(value: Any) -> bytes:
    try:
        import orjson

        return orjson.dumps(value)
    except (ImportError, TypeError):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def _clock(timestamp: float | None) -> dt.datetime:
    """The wall clock a template sees: the request's own time when it is an epoch time."""
    if timestamp is not None:
        seconds = timestamp / 1000.0 if timestamp > 1e11 else timestamp
        if seconds > 1e9:  # after 2001: an absolute time, not an offset from trace start
            return dt.datetime.fromtimestamp(seconds, tz=dt.timezone.utc)
    return FALLBACK_NOW
