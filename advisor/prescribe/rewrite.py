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
import re
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


def move_dynamic(req: Request, before: str, after: str, to: str = LAST_USER) -> Request | None:
    """The request with the dynamic span moved after the static content: to the end of the
    last user turn (a value that changes every request), or to the end of its own message
    (a value fixed for a whole conversation, which the history after it can then share).
    A raw prompt gets it at its end either way."""
    if req.kind == "prompt" and req.prompt is not None:
        cut = cut_span(req.prompt, before, after)
        if cut is None:
            return None
        rest, moved = cut
        return dataclasses.replace(req, prompt=rest.rstrip() + "\n\n" + moved)
    if req.kind != "messages" or not req.messages:
        return None
    messages = [dict(m) for m in req.messages]
    last_user = max((k for k, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    for k, m in enumerate(messages):
        content = m.get("content")
        if not isinstance(content, str):
            continue
        cut = cut_span(content, before, after)
        if cut is None:
            continue
        rest, moved = cut
        if to == MESSAGE_END:
            if not rest.strip():
                return None  # the message is nothing but the value
            m["content"] = _append_text(rest, moved)
            return dataclasses.replace(req, messages=tuple(messages)) if m["content"] != content else None
        if k >= last_user:
            return None  # already in (or after) the last user turn: nothing static follows
        m["content"] = rest
        target = messages[last_user]
        target["content"] = _append_text(target.get("content"), moved)
        return dataclasses.replace(req, messages=tuple(messages))
    return None


def _append_text(content: Any, text: str) -> Any:
    if isinstance(content, str):
        return content.rstrip() + "\n\n" + text
    if isinstance(content, list):
        return list(content) + [{"type": "text", "text": "\n\n" + text}]
    return text


# --- TR201: one order for recurring blocks ------------------------------------------------

def reorder_text(text: str, units: list[list[int]]) -> str | None:
    """``text`` with the units (chains of block hashes) that occur in it put in the order of
    ``units``, each in the slot of one occurrence; other text stays where it was. None when
    nothing changes."""
    found = blk.split(text)
    arrays = _reorder_json_arrays(text, found, units)
    current = text if arrays is None else arrays
    if arrays is not None:
        found = blk.split(current)
    first_of = {u[0]: k for k, u in enumerate(units)}
    occurrences: list[tuple[int, int, int]] = []
    i = 0
    while i < len(found):
        b = found[i]
        k = first_of.get(b.hash) if b.item < 0 else None
        if k is not None:
            n = len(units[k])
            run = found[i:i + n]
            if [x.hash for x in run] == units[k] and all(x.item < 0 for x in run):
                occurrences.append((k, b.start, run[-1].end))
                i += n
                continue
        i += 1
    wanted = sorted(occurrences)
    if len(occurrences) < 2 or wanted == occurrences:
        return arrays
    pieces = []
    pos = 0
    for slot, unit in zip(occurrences, wanted):
        pieces.append(current[pos:slot[1]])
        pieces.append(current[unit[1]:unit[2]])
        pos = slot[2]
    pieces.append(current[pos:])
    return "".join(pieces)


def _reorder_json_arrays(text: str, found: list[blk.Block], units: list[list[int]]) -> str | None:
    """JSON arrays in the text (tool lists in a system prompt) with the listed items sorted;
    every array holding them is re-serialized, so all requests end up byte-identical."""
    rank = {u[0]: k for k, u in enumerate(units) if len(u) == 1}
    arrays = sorted({(b.start, b.end) for b in found if b.item >= 0 and b.hash in rank})
    if not arrays:
        return None
    pieces = []
    pos = 0
    for start, end in arrays:
        body = text[start:end]
        items = blk.json_items(body) or []
        keyed = [(rank.get(blk.block_hash(blk.item_key(it)), -1), k, it) for k, it in enumerate(items)]
        slots = [k for r, k, _ in keyed if r >= 0]
        ordered = iter(sorted((r, k, it) for r, k, it in keyed if r >= 0))
        new_items = list(items)
        for k in slots:
            new_items[k] = next(ordered)[2]
        pieces.append(text[pos:start])
        pieces.append(_dump_like(body, new_items))
        pos = end
    pieces.append(text[pos:])
    out = "".join(pieces)
    return out if out != text else None


def _dump_like(body: str, items: list) -> str:
    """``items`` serialized in the layout of ``body``: fence and indentation kept."""
    fence = re.match(r"^(```[a-zA-Z]*\n)(.*)(\n```)$", body, re.DOTALL)
    inner = fence.group(2) if fence else body
    indent_match = re.search(r"\n( +)\S", inner)
    indent = len(indent_match.group(1)) if indent_match else None
    dumped = json.dumps(items, indent=indent, ensure_ascii=False)
    return fence.group(1) + dumped + fence.group(3) if fence else dumped


def reorder_blocks(req: Request, units: list[list[int]]) -> Request | None:
    """Every text of the request with the units in canonical order."""
    if req.kind == "prompt" and req.prompt is not None:
        text = reorder_text(req.prompt, units)
        return dataclasses.replace(req, prompt=text) if text is not None else None
    if req.kind != "messages" or not req.messages:
        return None
    changed = False
    messages = []
    for m in req.messages:
        content = m.get("content")
        text = reorder_text(content, units) if isinstance(content, str) else None
        if text is not None:
            m = dict(m, content=text)
            changed = True
        messages.append(m)
    return dataclasses.replace(req, messages=tuple(messages)) if changed else None


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
