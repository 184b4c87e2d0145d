"""Python literals inside engine log lines (``repr`` of strings, lists, dicts): where one
ends, and its value. Engines log requests with ``%r`` / ``str()``, not JSON."""

from __future__ import annotations

import ast
from typing import Any

OPEN = {"[": "]", "(": ")", "{": "}"}


class Cut(ValueError):
    """The literal runs off the end of the line: the line was truncated."""


def literal_end(text: str, start: int) -> int:
    """Index just past the literal starting at ``text[start]`` (a quoted string, a
    bracketed value, or a bare word such as ``None`` or a number)."""
    if start >= len(text):
        raise Cut("nothing after the field name")
    ch = text[start]
    if ch in "'\"":
        return _string_end(text, start)
    if ch in OPEN:
        depth: list[str] = []
        i = start
        while i < len(text):
            c = text[i]
            if c in "'\"":
                i = _string_end(text, i)
                continue
            if c in OPEN:
                depth.append(OPEN[c])
            elif depth and c == depth[-1]:
                depth.pop()
                if not depth:
                    return i + 1
            i += 1
        raise Cut("a bracket is never closed")
    i = start
    while i < len(text) and text[i] not in ",)}] \n":
        i += 1
    return i


def _string_end(text: str, start: int) -> int:
    quote = text[start]
    i = start + 1
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == quote:
            return i + 1
        i += 1
    raise Cut("a quoted string is never closed")


def value_at(text: str, start: int) -> tuple[Any, int]:
    end = literal_end(text, start)
    raw = text[start:end]
    try:
        return ast.literal_eval(raw), end
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return raw, end  # not a literal (a repr of an object): its text
