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
* what the JSON parser is given may hold at most ``MAX_VALUES`` values (counted in C on
  the line with its strings blanked out), so no shape of line builds more than ~150 MB
  of objects; past it the line is skipped with that reason.

Lines shorter than ``LONG_BYTES`` are decoded directly: they cannot cost much.
"""

from __future__ import annotations

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
# JSON strings (escapes included), blanked before values are counted: commas in text are not values.
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_ID_BYTES = b"0123456789, \t\r\n"


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


def count_values(raw: bytes) -> int:
    """An upper bound on the values a JSON parser builds from ``raw``: every value after
    the first follows a comma, a colon or an opening bracket."""
    bare = _STRING.sub(b'""', raw)
    return bare.count(b",") + bare.count(b":") + bare.count(b"[") + bare.count(b"{") + 1


def check_values(raw: bytes) -> None:
    n = count_values(raw)
    if n > MAX_VALUES:
        raise TooManyValues(f"over {MAX_VALUES:,} JSON values ({n:,}) in one line or document; no request needs "
                            "that many (a whole-file export: write it as JSON Lines)")


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
