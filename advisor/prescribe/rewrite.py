"""Rewrite logged requests the way each prescribed fix would change them.

The rewrite happens where the developer would make the change: in the message texts, the
prompt or the ``tools`` list, never in the token ids. Prescribe then renders and tokenizes
the rewritten requests exactly like the originals, so the hit rate it reports after a fix is
measured on the same footing as the one before. Pure functions: a request in, the rewritten
request out, or None when the fix does not apply to it.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from advisor.diagnose import blocks as blk
from advisor.ingest.pipeline import Renderer
from advisor.ingest.traffic import Request


def editable(req: Request, renderer: Renderer) -> Request | None:
    """The request as text the fixes can edit: messages or a prompt. A ``template`` record
    is rendered to its messages (or prompt) first; token ids are decoded to a prompt (the
    caller encodes it back as is, without adding BOS); block hashes cannot be rewritten."""
    if req.kind in ("messages", "prompt"):
        return req
    if req.kind == "input_ids" and req.input_ids:
        return dataclasses.replace(req, kind="prompt", prompt=renderer.tokenizer.decode(list(req.input_ids)),
                                   input_ids=None)
    if req.kind == "template" and renderer.templates is not None:
        rendered = renderer.templates.get(req.template or "").render(dict(req.variables or {}))
        if rendered.messages is not None:
            return dataclasses.replace(req, kind="messages", messages=tuple(rendered.messages),
                                       template=None, variables=None)
        return dataclasses.replace(req, kind="prompt", prompt=rendered.prompt, template=None, variables=None)
    return None


# --- TR101: move a dynamic span after all static content ---------------------------------

def cut_span(text: str, before: str, after: str) -> tuple[str, str] | None:
    """Remove the dynamic span from ``text``: from the start of the line holding ``before``
    (the static text just before the value) up to ``after`` (the static text that follows).
    Returns the text without it and the removed lines, or None when it is not there."""
    if not before.strip():
        return None
    i = text.find(before)
    if i < 0:
        return None
    line_start = text.rfind("\n", 0, i) + 1
    if line_start > 1:
        # A heading line right above ("Customer profile:") belongs to the moved block.
        prev = text.rfind("\n", 0, line_start - 1) + 1
        if text[prev:line_start - 1].rstrip().endswith(":") and "\n" not in before:
            line_start = prev
    value_start = i + len(before)
    end = text.find(after, value_start) if after else -1
    if end < 0:
        end = text.find("\n", value_start)
        end = len(text) if end < 0 else end
    moved = text[line_start:end].strip()
    if not moved:
        return None
    tail = text[end:].lstrip("\n") if line_start == 0 else text[end:]
    return text[:line_start] + tail, moved


LAST_USER = "last-user-turn"
MESSAGE_END = "end-of-message"


def sort_tools(req: Request) -> Request | None:
    """The request with its tool definitions sorted by function name."""
    if not req.tools or len(req.tools) < 2:
        return None
    ordered = sorted(req.tools, key=lambda t: (blk.tool_name(t) or "", blk.item_key(t)))
    if list(ordered) == list(req.tools):
        return None
    return dataclasses.replace(req, tools=tuple(ordered))


def _sorted_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _sorted_keys(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_sorted_keys(v) for v in value]
    return value


def canonical_tool_keys(req: Request) -> Request | None:
    """The request with the keys inside each tool definition sorted, recursively: the chat
    layout prints each tool's JSON as given, so a schema whose keys come in a different
    order per request renders differently even when it means the same."""
    if not req.tools:
        return None
    tools = tuple(_sorted_keys(t) for t in req.tools)
    # Key order is invisible to ==: compare the serialized forms.
    if [json.dumps(t) for t in tools] == [json.dumps(t) for t in req.tools]:
        return None
    return dataclasses.replace(req, tools=tools)


def sort_tools_and_keys(req: Request) -> Request | None:
    """Both: the tools by name, and the keys inside each one."""
    first = sort_tools(req)
    second = canonical_tool_keys(first if first is not None else req)
    return second if second is not None else first
