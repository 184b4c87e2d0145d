"""Long JSON lines decoded in memory bounded by the line's length, whatever its shape.

A JSON parser builds one Python object per value: a token id becomes an ``int`` and a
list slot (~36 bytes for a 6-byte id), an empty ``[]`` costs ~64 bytes for 3 bytes of
input. So a 32 MiB line (the loader's cap) of ids costs ~170 MB while it is parsed, and a
line of ``[],`` over 700 MB. Two rules keep a long line's cost near its size:

* a plain list of token ids under ``input_ids`` or ``tokens`` (advisor's own token-id
  record, the one kind whose lines are long) is cut out of the line and read in 1 MiB
  slices into a packed id array (advisor.ingest.ids: 4 bytes an id); the rest of the line,
  now short, goes to the JSON parser. Anything irregular in the list (a float, a string,
  a leading zero, an id past 32 bits, an empty slot) makes the whole line go to the JSON
  parser instead, so the reason given for a bad list is the same as for a short line;
* a record holds at most ``MAX_RECORD_IDS`` ids (reading stops one slice past them);
* what the JSON parser is given may hold at most ``MAX_VALUES`` values (counted in C and
  numpy outside the line's strings, with no object built a string or an escape), so no
  shape of line builds more than ~150 MB of objects; past it the line is skipped with
  that reason.

Lines shorter than ``LONG_BYTES`` are decoded directly: they cannot cost much. A file that
is one JSON document (a pretty-printed export) is read a value at a time by
``JsonDocument``: each element of a top-level array is decoded as a line would be, under
the same caps, so memory follows the largest record, not the file. The engine log
formats' Python literals hold to the same caps (``advisor.ingest.formats.pyliteral``).
"""

from __future__ import annotations

import functools
import re
from array import array
from typing import Any, Callable

from advisor.ingest.ids import empty

LONG_BYTES = 1 << 18
# Values (numbers, strings, lists, objects) one line may hand to the JSON parser: at most
# ~72 bytes of objects each, so ~150 MB for the worst shape; a record has a few hundred.
MAX_VALUES = 2_000_000
# Ids one record may carry: 16 MiB packed, four times the longest prompt text a record may
# render to (advisor.ingest.pipeline.MAX_PROMPT_CHARS); past any context window served.
MAX_RECORD_IDS = 4_000_000
SLICE = 1 << 20

_KEY = re.compile(rb'"(input_ids|tokens)"[ \t\r\n]*:[ \t\r\n]*\[')
_ID_BYTES = b"0123456789, \t\r\n"
_QUOTE = ord('"')


@functools.cache
def _table(chars: bytes) -> Any:
    """A lookup table over bytes, True for ``chars`` (numpy: imported by the first long line)."""
    import numpy as np

    table = np.zeros(256, dtype=bool)
    table[list(chars)] = True
    return table


class TooManyValues(ValueError):
    """The line would build more objects than ``MAX_VALUES``; the message is the reason."""


def read_ids(raw: bytes, start: int, end: int, loads: Callable[[bytes], Any], name: str = "input_ids") -> array | None:
    """The ids of ``raw[start:end]`` (the inside of a JSON list), or None unless it is a
    plain non-empty list of integers that fit in 32 bits.

    Each slice is handed to the JSON parser as a list of its own (so JSON's rules for
    numbers hold) once it is known to hold only digits, commas and blanks (so nothing
    but integers can come out of it), and packed at once."""
    out = empty()
    pos = start
    while pos < end:
        stop = end if end - pos <= SLICE else raw.rfind(b",", pos, pos + SLICE)
        if stop <= pos:  # no comma in a whole slice: not a list of ids
            return None
        piece = raw[pos:stop]
        if piece.translate(None, _ID_BYTES):
            return None
        try:
            out.extend(loads(b"[" + piece + b"]"))
        except (ValueError, OverflowError, TypeError):  # bad JSON (a leading zero, ",,"), an id past 32 bits
            return None
        if len(out) > MAX_RECORD_IDS:  # stopped a slice past the cap: 16 MiB held at most
            raise TooManyValues(too_many_ids(name, len(out) + raw.count(b",", stop, end)))
        pos = stop + 1 if stop < end else end
    return out if out else None


def split_ids(raw: bytes, loads: Callable[[bytes], Any]) -> tuple[bytes, str, array] | None:
    """(the line with its id list emptied, the key, the ids), or None when the line holds
    no plain id list that this reader can take."""
    found = _KEY.search(raw)
    if found is None:
        return None
    key = found.group(1)
    if raw.count(b'"' + key + b'"') != 1:
        return None  # a key given twice: the JSON parser decides which counts
    start = found.end()
    end = raw.find(b"]", start)
    if end < 0:
        return None
    ids = read_ids(raw, start, end, loads, key.decode())
    if ids is None:
        return None
    return raw[:start] + raw[end:], key.decode(), ids


def too_many_ids(name: str, count: int) -> str:
    return f"'{name}' holds {count:,} ids, over the {MAX_RECORD_IDS:,} limit for one record"


def plain(raw: bytes) -> bytes:
    """``raw`` with each escaped backslash and escaped quote turned into two blanks: the
    same length, and every quote left opens or closes a string, as for the JSON parser.
    (Left to right, as escapes pair up: ``\\\\\\"`` is a backslash, then a quote.)"""
    if b"\\" not in raw:
        return raw
    return raw.replace(b"\\\\", b"  ").replace(b'\\"', b"  ")


def count_values(raw: bytes) -> int:
    """An upper bound on the values a JSON parser builds from ``raw``: every value after
    the first follows a comma, a colon or an opening bracket outside strings.

    Counted in C and numpy, without an object a string or an escape: a regex substitution
    of the strings built a list entry for each (1.2 GB for a 28 MB line of short strings),
    and a regex over a string's escapes keeps backtracking state for each (1.2 GB for a
    30 MB string of escapes)."""
    if b'"' not in raw:
        return sum(raw.count(c) for c in (b",", b":", b"[", b"{")) + 1
    import numpy as np

    text = plain(raw)
    total, parity = 0, 0
    for pos in range(0, len(text), SLICE):
        a = np.frombuffer(text, dtype=np.uint8, count=min(SLICE, len(text) - pos), offset=pos)
        # A quote count that wraps at 256 keeps its parity: odd inside a string.
        quotes = np.cumsum(a == _QUOTE, dtype=np.uint8) + np.uint8(parity)
        total += int(np.count_nonzero(_table(b",:[{")[a] & ((quotes & 1) == 0)))
        parity = int(quotes[-1]) & 1
    return total + 1


def check_values(raw: bytes) -> None:
    n = count_values(raw)
    if n > MAX_VALUES:
        raise TooManyValues(f"over {MAX_VALUES:,} JSON values ({n:,}) in one record; no request needs that many")


def decode_long(raw: bytes, loads: Callable[[bytes], Any]) -> Any:
    """``loads(raw)`` for a long line, in memory near the line's length (see the module)."""
    split = split_ids(raw, loads)
    if split is not None:
        rest, key, ids = split
        check_values(rest)
        value = loads(rest)
        if type(value) is dict and value.get(key) == []:
            value[key] = ids
            return value
        # The list was not the record's own field (nested in another object): read it all.
    check_values(raw)
    return loads(raw)


# --- one JSON document read line by line ----------------------------------------------------

_TOKEN = re.compile(rb'"[^"]*"|[\[\]{},]')  # over plain(): a string has no escaped quote left
_STRINGS = re.compile(rb'"[^"]*"')
_OPENER, _CLOSER = frozenset(b"[{"), frozenset(b"]}")


class Part:
    """One value of a document: its first line, its bytes (None: over the size limit,
    dropped as it came), its place in a top-level array (None: a top-level value), and
    whether the document ended inside it."""

    __slots__ = ("line", "data", "index", "cut")

    def __init__(self, line: int, data: bytes | None, index: int | None, cut: bool = False) -> None:
        self.line, self.data, self.index, self.cut = line, data, index, cut


class _Buffer:
    """The bytes of the value being read, up to ``limit`` (then only counted)."""

    __slots__ = ("line", "parts", "size", "limit")

    def __init__(self, line: int, limit: int) -> None:
        self.line, self.size, self.limit = line, 0, limit
        self.parts: list[bytes] = []

    def add(self, piece: bytes) -> None:
        self.size += len(piece)
        if self.size > self.limit:
            self.parts = []
        else:
            self.parts.append(piece)

    def data(self) -> bytes | None:
        return None if self.size > self.limit else b"".join(self.parts)


class JsonDocument:
    """The values of one JSON document fed line by line (a pretty-printed export): each
    element of a top-level array, and any other top-level value, with the line it starts
    on. Only the value being read is held, up to ``limit`` bytes: a 200 MB export costs
    what its largest record costs, not gigabytes.

    Structure is read outside strings only (a JSON string never spans lines, and
    ``plain`` leaves no escaped quote): a line is one C search when no bracket in it can
    end the value being read, else its brackets and commas one by one (numpy finds the
    few that matter on a long line).
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.depth = 0  # brackets open before the next byte
        self.in_array = False  # inside a top-level array: its elements are the values
        self.index = 0  # elements of the array so far
        self.value: _Buffer | None = None  # the value being read: it opened at depth `base`
        self.base = 0
        self.gap: _Buffer | None = None  # text between values (a scalar element, or garbage)
        self.out: list[Part] = []

    def feed(self, raw: bytes, line: int) -> list[Part]:
        self.out = []
        value = self.value
        if value is not None and len(raw) <= SLICE:
            closers = raw.count(b"]") + raw.count(b"}")
            if self.depth - closers > self.base:
                # Inside a record, and this line cannot end it (even if every closing bracket
                # counted): the common line of an export, counted in C.
                if closers or b"[" in raw or b"{" in raw:
                    text = plain(raw)
                    bare = _STRINGS.sub(b"", text) if b'"' in text else text
                    self.depth += bare.count(b"[") + bare.count(b"{") - bare.count(b"]") - bare.count(b"}")
                value.add(raw)
                return self.out
        text = plain(raw)
        mark = 0  # where the bytes not yet given to a value or the gap start
        for pos, char, before in self._events(text, line):
            mark = self._event(raw, line, mark, pos, char, before)
        self._rest(raw, line, mark)
        return self.out

    @property
    def too_long(self) -> int | None:
        """The first line of a top-level value (no array element) already over the limit:
        the document cannot be read a record at a time, and is refused at once."""
        value = self.value
        if value is not None and not self.in_array and value.size > value.limit:
            return value.line
        return None

    def close(self) -> list[Part]:
        self.out = []
        if self.value is not None:
            self.out.append(Part(self.value.line, self.value.data(), self._place(), cut=True))
            self.value = None
        self._flush_gap()
        return self.out

    def _events(self, text: bytes, line: int) -> list[tuple[int, int, int]]:
        """(position, byte, depth before it) of the brackets and commas outside strings
        that can start or end a value; ``self.depth`` moves to the line's end."""
        if len(text) > SLICE:
            return self._long_events(text)
        out = []
        depth = self.depth
        for m in _TOKEN.finditer(text):
            char = text[m.start()]
            if char == _QUOTE:
                continue
            out.append((m.start(), char, depth))
            depth += 1 if char in _OPENER else -1 if char in _CLOSER else 0
        self.depth = depth
        return out

    def _long_events(self, text: bytes) -> list[tuple[int, int, int]]:
        import numpy as np

        out: list[tuple[int, int, int]] = []
        parity = 0
        for pos in range(0, len(text), SLICE):
            a = np.frombuffer(text, dtype=np.uint8, count=min(SLICE, len(text) - pos), offset=pos)
            quotes = np.cumsum(a == _QUOTE, dtype=np.uint8) + np.uint8(parity)
            parity = int(quotes[-1]) & 1
            where = np.flatnonzero((_table(b"[]{},")[a]) & ((quotes & 1) == 0))
            chars = a[where]
            step = _table(b"[{")[chars].astype(np.int64) - _table(b"]}")[chars]
            after = self.depth + np.cumsum(step)
            before = after - step
            # Only what happens near the top: a value's start or end, a separator.
            keep = np.flatnonzero((before <= 1) | ((step < 0) & (before == 2)))
            out += zip((where[keep] + pos).tolist(), chars[keep].tolist(), before[keep].tolist())
            if after.size:
                self.depth = int(after[-1])
        return out

    def _event(self, raw: bytes, line: int, mark: int, pos: int, char: int, before: int) -> int:
        if self.value is not None:
            if char in _CLOSER and before - 1 == self.base:
                self.value.add(raw[mark:pos + 1])
                self.out.append(Part(self.value.line, self.value.data(), self._place()))
                self.value = None
                return pos + 1
            return mark
        level = 1 if self.in_array else 0
        if before != level:
            return mark  # after a stray closing bracket: what the JSON parser will refuse
        self._to_gap(raw[mark:pos], line)
        if char in _OPENER and (self.in_array or char == ord("{")):
            self._flush_gap()
            if self.in_array:
                self.index += 1
            self.value, self.base = _Buffer(line, self.limit), level
            return pos
        if char == ord("[") or (self.in_array and char in (ord(","), ord("]"))):
            self._flush_gap()  # a scalar element ends at its comma
            if char != ord(","):
                self.in_array = char == ord("[")
            return pos + 1
        self._to_gap(raw[pos:pos + 1], line)  # a stray bracket or comma: garbage
        return pos + 1

    def _rest(self, raw: bytes, line: int, mark: int) -> None:
        if self.value is not None:
            self.value.add(raw[mark:])
        else:
            self._to_gap(raw[mark:], line)

    def _to_gap(self, piece: bytes, line: int) -> None:
        if not piece or (self.gap is None and piece.isspace()):
            return
        if self.gap is None:
            self.gap = _Buffer(line, self.limit)
        self.gap.add(piece)

    def _flush_gap(self) -> None:
        if self.gap is None:
            return
        data = self.gap.data()
        if data is None or data.strip():
            if self.in_array:
                self.index += 1
            self.out.append(Part(self.gap.line, None if data is None else data.strip(), self._place()))
        self.gap = None

    def _place(self) -> int | None:
        return self.index if self.in_array else None
