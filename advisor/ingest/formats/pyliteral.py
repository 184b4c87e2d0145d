"""Python literals inside engine log lines (``repr`` of strings, lists, dicts): where one
ends, and its value. Engines log requests with ``%r`` / ``str()``, not JSON.

A logged literal is read in time and memory near its length, under the caps of the JSON
path (``advisor.ingest.long_lines``). ``ast.literal_eval`` builds a syntax tree first,
~1 KB and ~5 us a value: one logged list of 10M ids took a minute and gigabytes. So:

* the end of a literal is found a bracket or a string at a time, stopping past
  ``MAX_VALUES`` brackets and strings; a string is skipped by a regex whose repeat is
  bounded (an unbounded one keeps ~100 bytes of backtracking state per escape);
* a plain list of ids (digits, commas and blanks: JSON as it stands) is read by
  ``long_lines.read_ids`` into a packed id array, which stops one slice past
  ``MAX_RECORD_IDS``;
* anything else is read by a small parser of what ``repr`` writes (str, int, float,
  None, True, False, list, tuple, dict, set), a token at a time and without recursion,
  which stops past ``MAX_VALUES`` values (counted in C first when the literal holds no
  string). A string's escapes are decoded in C.
"""

from __future__ import annotations

import re
from typing import Any

from advisor.ingest import long_lines
from advisor.ingest.traffic import _loads

OPEN = {"[": "]", "(": ")", "{": "}"}
QUOTES = "'\""
# Python's own parser stops at 200 nested brackets: deeper is no literal repr writes.
MAX_DEPTH = 200

# A string's body, at most 1,024 escapes a match: the regex engine's state stays small.
_STRING_RUN = {q: re.compile(rf"[^{q}\\]*(?:\\.[^{q}\\]*){{0,1024}}", re.DOTALL) for q in QUOTES}
_SPECIAL = re.compile(r"['\"\[\](){}]")
_BARE_END = re.compile(r"[,)}\] \n]")
_IDS = re.compile(r"[0-9, \t]*")
_ID_RUN = re.compile(r"[0-9, \t]*\]")
_TOKEN = re.compile(r"""[ \t\r\n]*(?:
    (?P<sym>[\[\](){},:])
  | (?P<quote>['"])
  | (?P<num>[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)(?![\w.])
  | (?P<word>None|True|False)(?!\w)
)""", re.VERBOSE)
# Escapes Python knows, once the escaped backslashes are gone (``\\q`` is a backslash and q).
_UNKNOWN_ESCAPE = re.compile(r"\\(?:[^'\"abfnrtv0-7\nxuUN]|$)")
_WORDS = {"None": None, "True": True, "False": False}


class Cut(ValueError):
    """The literal runs off the end of the line: the line was truncated."""


class NotLiteral(ValueError):
    """Text that is no literal ``repr`` writes (an object's repr, a bad escape)."""


def too_many(name: str) -> long_lines.TooManyValues:
    return long_lines.TooManyValues(f"'{name}' holds over {long_lines.MAX_VALUES:,} values; no request needs that many")


def literal_end(text: str, start: int, name: str = "value") -> int:
    """Index just past the literal starting at ``text[start]`` (a quoted string, a
    bracketed value, or a bare word such as ``None`` or a number)."""
    if start >= len(text):
        raise Cut("nothing after the field name")
    ch = text[start]
    if ch in QUOTES:
        return _string_end(text, start)
    if ch in OPEN:
        return _bracket_end(text, start, name)
    m = _BARE_END.search(text, start)
    return m.start() if m is not None else len(text)


def _string_end(text: str, start: int) -> int:
    quote = text[start]
    run = _STRING_RUN[quote].match
    pos = start + 1
    while True:
        pos = run(text, pos).end()  # type: ignore[union-attr]  # the pattern matches the empty text too
        if pos >= len(text) or (pos + 1 == len(text) and text[pos] == "\\"):
            raise Cut("a quoted string is never closed")
        if text[pos] == quote:
            return pos + 1
        # A backslash: the next 1,024 escapes.


def _bracket_end(text: str, start: int, name: str) -> int:
    """A closing bracket of any kind closes the innermost open one (a mismatch is then no
    literal, read as text by ``value_at``). Every bracket and string opens a value: past
    ``MAX_VALUES`` of them the line is refused before more work."""
    depth = values = 0
    pos = start
    while True:
        for m in _SPECIAL.finditer(text, pos):
            c = m.group()
            if c in QUOTES:
                pos = _string_end(text, m.start())
                values += 1
                break  # go on after the string
            if c in OPEN:
                depth += 1
                values += 1
                if values > long_lines.MAX_VALUES:
                    raise too_many(name)
            else:
                depth -= 1
                if depth == 0:
                    return m.end()
        else:
            raise Cut("a bracket is never closed")
        if values > long_lines.MAX_VALUES:
            raise too_many(name)


def value_at(text: str, start: int, name: str = "value") -> tuple[Any, int]:
    """The literal at ``text[start]`` and its end: its value (a plain list of ids as a
    packed id array), or its text when it is no literal (the repr of an object). Raises
    ``Cut`` for a truncated line and ``long_lines.TooManyValues`` past the caps (``name``:
    the field the reason names)."""
    end = literal_end(text, start, name)
    if text[start] == "[" and text[end - 1] == "]" and _IDS.fullmatch(text, start + 1, end - 1):
        inner = text[start + 1:end - 1].encode("ascii")
        if not inner.strip():
            return [], end
        ids = long_lines.read_ids(inner, 0, len(inner), _loads, name)
        if ids is not None:
            return ids, end
    if text.find("'", start, end) < 0 and text.find('"', start, end) < 0:
        # No string inside: every comma, colon and opening bracket counts, in C.
        if sum(text.count(c, start, end) for c in ",:[({") >= long_lines.MAX_VALUES:
            raise too_many(name)
    try:
        return _Parser(text, name).parse(start, end), end
    except long_lines.TooManyValues:
        raise
    except (NotLiteral, ValueError, TypeError):
        return text[start:end], end  # not a literal (a repr of an object): its text


class _Frame:
    """An open bracket: its items so far, and what it takes next."""

    __slots__ = ("close", "items", "keys", "mode", "state", "commas")

    def __init__(self, close: str) -> None:
        self.close = close
        self.items: list[Any] = []  # a dict's values
        self.keys: list[Any] = []
        self.mode = "dict" if close == "}" else ""  # braces hold a dict unless the first item has no colon
        self.state = _VALUE
        self.commas = 0


# What a frame takes next: a value (or its closing bracket), a comma (or the bracket),
# a dict key's colon, a dict value.
_VALUE, _AFTER, _COLON, _ITEM = range(4)


class _Parser:
    def __init__(self, text: str, name: str) -> None:
        self.text = text
        self.name = name
        self.values = 0

    def _count(self, n: int) -> None:
        self.values += n
        if self.values > long_lines.MAX_VALUES:
            raise too_many(self.name)

    def parse(self, pos: int, end: int) -> Any:
        """The value of the literal ``text[pos:end]``; raises ``NotLiteral``."""
        text = self.text
        stack: list[_Frame] = []
        value: Any
        while True:
            m = _TOKEN.match(text, pos, end)
            if m is None:
                raise NotLiteral(text[pos:pos + 20])
            kind = m.lastgroup or ""
            pos = m.end()
            if kind == "quote":
                start = m.start(kind)
                pos = _string_end(text, start)
                value = _string(text[start:pos])
            elif kind != "sym":
                value = _scalar(kind, m.group(kind))
            elif m.group(kind) in OPEN:
                ids = self._ids(pos, end) if m.group(kind) == "[" else None
                if ids is None:
                    if len(stack) >= MAX_DEPTH:
                        raise NotLiteral("nested too deeply")
                    stack.append(_Frame(OPEN[m.group(kind)]))
                    continue
                value, pos = ids
            elif not stack:
                raise NotLiteral(m.group(kind))
            else:
                value = _symbol(stack, m.group(kind))
                if value is _NOTHING:
                    continue
            self._count(1)
            if not stack:
                if text[pos:end].strip():
                    raise NotLiteral(text[pos:pos + 20])
                return value
            _put(stack[-1], value)

    def _ids(self, pos: int, end: int) -> tuple[list[int], int] | None:
        """A list of ids inside the literal read at once by the JSON parser (a batch's)."""
        m = _ID_RUN.match(self.text, pos, end)
        if m is None or not self.text[pos:m.end() - 1].strip():
            return None
        self._count(self.text.count(",", pos, m.end()) + 1)
        try:
            ids = _loads(("[" + self.text[pos:m.end()]).encode("ascii"))
        except ValueError:
            return None  # a leading zero, an empty slot: read token by token
        return ids, m.end()


_NOTHING = object()


def _symbol(stack: list[_Frame], tok: str) -> Any:
    """A comma, a colon or a closing bracket: the closed value, or ``_NOTHING``."""
    frame = stack[-1]
    if tok != ":" and frame.state == _COLON and len(frame.keys) == 1 and not frame.items:
        # "{a," or "{a}": the first item has no colon, so the braces hold a set.
        frame.mode, frame.items, frame.keys, frame.state = "set", frame.keys, [], _AFTER
    if tok == ",":
        if frame.state != _AFTER:
            raise NotLiteral(tok)
        frame.state, frame.commas = _VALUE, frame.commas + 1
        return _NOTHING
    if tok == ":":
        if frame.mode != "dict" or frame.state != _COLON:
            raise NotLiteral(tok)
        frame.state = _ITEM
        return _NOTHING
    if tok != frame.close or frame.state in (_COLON, _ITEM):
        raise NotLiteral(tok)
    stack.pop()
    if frame.close == "]":
        return frame.items
    if frame.close == ")":
        if len(frame.items) == 1 and not frame.commas:
            return frame.items[0]  # a parenthesised value, not a tuple
        return tuple(frame.items)
    if frame.mode == "set":
        return set(frame.items)  # an unhashable item: TypeError, no literal
    return dict(zip(frame.keys, frame.items))  # an unhashable key: TypeError


def _put(frame: _Frame, value: Any) -> None:
    if frame.state == _ITEM:
        frame.items.append(value)
        frame.state = _AFTER
    elif frame.state != _VALUE:
        raise NotLiteral("a value where a comma belongs")
    elif frame.mode == "dict":
        frame.keys.append(value)
        frame.state = _COLON
    else:
        frame.items.append(value)
        frame.state = _AFTER


def _string(token: str) -> str:
    body = token[1:-1]
    if "\\" not in body:
        return body
    if _UNKNOWN_ESCAPE.search(body.replace("\\\\", "")):
        # repr never writes one, and Python is phasing them out: no literal.
        raise NotLiteral("an unknown escape")
    # The escapes repr writes are the codec's; other characters go through it as escapes too.
    try:
        return body.encode("latin-1", "backslashreplace").decode("unicode_escape")
    except UnicodeDecodeError:
        raise NotLiteral("a bad escape") from None  # a truncated \x, an unknown \N{name}


def _scalar(kind: str, tok: str) -> Any:
    if kind == "word":
        return _WORDS[tok]
    if "." in tok or "e" in tok or "E" in tok:
        return float(tok)
    digits = tok.lstrip("+-")
    if digits[0] == "0" and digits.strip("0"):
        raise NotLiteral(tok)  # Python refuses leading zeros (but 00 is 0)
    return int(tok)  # past 4,300 digits: ValueError, as Python's own parser
