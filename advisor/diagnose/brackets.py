"""Bracketed structures on one line of text: a compact JSON object or array, a function
signature's parameters. The order test reads their members; the rewrite sorts them.

Strings in JSON's double quotes are passed over (a comma or a bracket in a note's text is
no member's end); a structure inside a JSON string (a tool result the template serializes
again) is read one level of escapes down."""

from __future__ import annotations

from typing import Iterable, Iterator

PAIRS = {"(": ")", "[": "]", "{": "}"}


def _unclosed(chars: Iterable[tuple[int, str]], strings: bool = True) -> tuple[list[int], int]:
    """The positions of the brackets that the text opens and leaves open (outermost first;
    brackets in JSON strings are text, with ``strings``), and where the string it ends
    inside opens (-1)."""
    opened: list[int] = []
    quote, escaped = -1, False
    for k, ch in chars:
        if not strings:
            pass
        elif quote >= 0:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                quote = -1
            continue
        elif ch == '"':
            quote = k
            continue
        if ch in PAIRS:
            opened.append(k)
        elif ch in ")]}" and opened:
            opened.pop()
    return opened, quote


def _one_level_down(text: str, start: int) -> Iterator[tuple[int, str]]:
    """The characters of a JSON string's text from ``start`` with one level of escapes
    undone, each at its position in ``text``."""
    k = start
    while k < len(text):
        if text[k] == "\\" and k + 1 < len(text):
            yield k, text[k + 1]
            k += 2
        else:
            yield k, text[k]
            k += 1


def open_brackets(line: str, strings: bool = True) -> list[tuple[int, bool]]:
    """The brackets that ``line`` opens and leaves open, outermost first, as (position,
    nested). A bracket inside a JSON string is text, except inside the string the line ends
    in: JSON text a template serialized again (a tool result), read one level of escapes
    down (``nested``). Without ``strings`` (a piece of a line that may start inside a
    string, where the quotes cannot be paired), every bracket counts."""
    outer, quote = _unclosed(enumerate(line), strings)
    found = [(k, False) for k in outer]
    if quote >= 0:
        inner, _ = _unclosed(_one_level_down(line, quote + 1))
        found += [(k, True) for k in inner]
    return found


def balanced(text: str) -> bool:
    """Whether ``text`` closes every bracket and JSON string it opens, and no bracket it
    did not open: a whole member of a structure, not a piece cut at a comma inside one."""
    opened, quote = _unclosed(enumerate(text))
    return not opened and quote < 0 and _scan(text)[1] < 0


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
