"""Bracketed structures on one line of text: a compact JSON object or array, a function
signature's parameters. The order test reads their members; the rewrite sorts them.

Strings in JSON's double quotes are passed over (a comma or a bracket in a note's text is
no member's end); a structure inside a JSON string (a tool result the template serializes
again) is read one level of escapes down."""

from __future__ import annotations

PAIRS = {"(": ")", "[": "]", "{": "}"}
OPENERS = tuple(PAIRS)


def open_bracket(line: str) -> int:
    """Where the innermost bracket that ``line`` opens and does not close is (-1: none)."""
    opened: list[int] = []
    for k, ch in enumerate(line):
        if ch in PAIRS:
            opened.append(k)
        elif ch in ")]}" and opened:
            opened.pop()
    return opened[-1] if opened else -1


def in_string(text: str) -> bool:
    """Whether the end of ``text`` is inside a JSON string."""
    quoted, escaped = False, False
    for ch in text:
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = quoted
        elif ch == '"':
            quoted = not quoted
    return quoted


def unescaped(text: str) -> str:
    """A JSON string's text one level of escapes down (quotes and backslashes only: the
    brackets and commas are what is read)."""
    return text.replace("\\\\", "\x00").replace('\\"', '"').replace("\x00", "\\")


def _scan(text: str) -> tuple[list[int], int]:
    """The top-level commas of a bracket's text and where the bracket closes (-1: not in
    ``text``; the closing bracket of another kind also ends it)."""
    commas: list[int] = []
    depth, quoted, escaped = 0, False, False
    for k, ch in enumerate(text):
        if quoted:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                quoted = False
        elif ch == '"':
            quoted = True
        elif ch in PAIRS:
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                return commas, k
            depth -= 1
        elif ch == "," and depth == 0:
            commas.append(k)
    return commas, -1


def close_bracket(text: str, opener: str) -> int:
    """Where the bracket that ``opener`` opened before ``text`` closes in it (-1: not
    there, or closed by a bracket of another kind)."""
    _, stop = _scan(text)
    return stop if stop >= 0 and text[stop] == PAIRS[opener] else -1


def member_bounds(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each top-level member of a bracket's text, without the
    whitespace around it."""
    commas, stop = _scan(text)
    end = len(text) if stop < 0 else stop
    out = []
    for lo, hi in zip([0] + [c + 1 for c in commas], commas + [end]):
        piece = text[lo:hi]
        lead = len(piece) - len(piece.lstrip())
        out.append((lo + lead, lo + len(piece.rstrip())))
    return out


def members(text: str) -> list[str]:
    """The top-level members of a bracket's text (split at commas outside nested pairs
    and JSON strings), stripped."""
    return [text[lo:hi] for lo, hi in member_bounds(text)]
