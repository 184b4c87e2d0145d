"""Content blocks of a prompt: the units whose order TR201 compares between requests.

A prompt is cut at message boundaries (chat special tokens), blank lines and markdown
headings; a block that is a JSON array (tool definitions, schemas) is cut into its items.
Each block gets a stable 64-bit hash of its stripped text, so that the same section in two
requests has the same hash whatever surrounds it. Pure functions, no state.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

# Chat special tokens (`<|start_header_id|>user<|end_header_id|>`, `<|eot_id|>`, Command R's
# `<|END_OF_TURN_TOKEN|>`, DeepSeek's `<｜User｜>`, Gemma's `<end_of_turn>`) end a block: the last section of a message
# is the same unit as anywhere else, whatever turn the layout prints after it.
CHAT_MARKER = re.compile(r"<\|start_header_id\|>[a-z_]*<\|end_header_id\|>|<\|[A-Za-z_0-9]+\|>|<｜[^｜<>\s]{1,40}｜>"
                         r"|<(?:start|end)_of_turn>")
_FENCE = re.compile(r"^```[a-zA-Z]*\n(.*)\n```$", re.DOTALL)
# Blocks shorter than this are separators or boilerplate; their order says nothing.
MIN_BLOCK_CHARS = 24


@dataclass(frozen=True)
class Block:
    """A block of ``text[start:end]``; ``item`` is set for one item of a JSON array block."""

    start: int
    end: int
    hash: int
    item: int = -1


def block_hash(text: str) -> int:
    """A 64-bit hash of a block's text, for equality within one run only: Python's string
    hash, which never releases the GIL (hashlib does for long inputs, and diagnosis runs
    beside the tokenizer threads). No output depends on its value: ties in reports go to
    the block seen first."""
    return hash(text)


def split(text: str, min_chars: int = MIN_BLOCK_CHARS) -> list[Block]:
    """The blocks of ``text`` in order, each at least ``min_chars`` long once stripped."""
    out: list[Block] = []
    for start, end in segments(text, min_chars):
        for h, item in hashes_of(text[start:end]):
            out.append(Block(start, end, h, item))
    return out


def segments(text: str, min_chars: int = MIN_BLOCK_CHARS) -> list[tuple[int, int]]:
    """``(start, end)`` of each block of ``text``, stripped. A heading standing alone is a
    block of any length (it labels the section whose paragraphs follow it; the order rule
    joins blocks that always come together). Paragraphs are cut with ``str.split`` (C speed):
    this runs on every request that ``analyze`` diagnoses."""
    out: list[tuple[int, int]] = []
    pos = 0
    for m in CHAT_MARKER.finditer(text):
        _paragraphs(text, pos, m.start(), min_chars, out)
        pos = m.end()
    _paragraphs(text, pos, len(text), min_chars, out)
    return out


def _paragraphs(text: str, lo: int, hi: int, min_chars: int, out: list[tuple[int, int]]) -> None:
    at = lo
    for seg in text[lo:hi].split("\n\n"):
        body = seg.strip()
        if body:
            start = at + len(seg) - len(seg.lstrip())
            end = at + len(seg.rstrip())
            if end - start >= min_chars or (body[0] == "#" and "\n" not in body):
                out.append((start, end))
        at += len(seg) + 2


def hashes_of(body: str) -> list[tuple[int, int]]:
    """``(hash, item)`` of a block: one per item of a JSON array, else one with item -1."""
    items = json_items(body)
    if items is not None:
        return [(block_hash(item_key(item)), k) for k, item in enumerate(items)]
    if body[0] == "{" and body[-1] == "}":
        # A tool definition rendered on its own (Llama 3.1 puts one JSON per tool): hash the
        # object, not its indentation, so a rewrite of the `tools` list maps back to it.
        try:
            value = json.loads(body)
        except ValueError:
            value = None
        if isinstance(value, dict):
            return [(block_hash(item_key(value)), -1)]
    return [(block_hash(body), -1)]


def json_items(body: str) -> list | None:
    """The items of a block that is a JSON array of objects (maybe in a code fence)."""
    fenced = _FENCE.match(body)
    inner = fenced.group(1).strip() if fenced else body
    if not (inner.startswith("[") and inner.endswith("]")):
        return None
    try:
        value = json.loads(inner)
    except ValueError:
        return None
    if isinstance(value, list) and len(value) >= 2 and all(isinstance(v, dict) for v in value):
        return value
    return None


def item_key(item: object) -> str:
    """Canonical text of one JSON item: the same tool gives the same hash however indented."""
    return json.dumps(item, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def tool_name(item: object) -> str | None:
    """The function name of a tool definition (OpenAI or bare form), if it is one."""
    if not isinstance(item, dict):
        return None
    fn = item.get("function") if isinstance(item.get("function"), dict) else item
    name = fn.get("name") if isinstance(fn, dict) else None
    return name if isinstance(name, str) else None


def label(text: str, block: Block) -> str:
    """A short human label: the heading, the tool name, or the first words."""
    body = text[block.start:block.end]
    if block.item >= 0:
        items = json_items(body) or []
        name = tool_name(items[block.item]) if block.item < len(items) else None
        return f"tool {name}" if name else f"item {block.item + 1} of a JSON list"
    if body[0] == "{":
        try:
            name = tool_name(json.loads(body))
        except ValueError:
            name = None
        if name:
            return f"tool {name}"
    first = body.split("\n", 1)[0].strip().lstrip("#").strip()
    return first[:60] + ("..." if len(first) > 60 else "")
