"""One content, several spellings: the equivalence key two texts share when they differ only
in Unicode normalization, whitespace and line breaks, a JSON object's key order or a delimited
table's column order, and which of those sets two spellings apart.

The diagnosis reads a varying span as a spelling (TR104) where the units around it are equal
under this key; the canonical order (``advisor.prescribe.canonical``) counts units by it and
sends each in its most common spelling. One key for both, so the two never disagree on what
is the same content.
"""

from __future__ import annotations

import functools
import json
import unicodedata

# A delimited table has a header and at least two rows (``columns_sorted``).
TABLE_ROWS = 3
# Texts repeat across requests (a system prompt in every one): the key is memoized, bounded
# so that a log of unique texts holds at most this many.
MEMO_KEYS = 4 * 4096

NORMALIZATION, WRAPPING, KEY_ORDER, COLUMN_ORDER = "normalization", "wrapping", "key-order", "column-order"
# What each kind of spelling is, in a finding's words.
SPELLED = {
    NORMALIZATION: "the same text in another Unicode normalization (NFC or NFD)",
    WRAPPING: "the same text wrapped or spaced otherwise",
    KEY_ORDER: "the same JSON object with its keys in another order",
    COLUMN_ORDER: "the same delimited table with its columns in another order",
}


@functools.lru_cache(maxsize=MEMO_KEYS)
def normalized(text: str) -> str:
    """The equivalence key's text: NFC, JSON keys sorted where the text parses, a delimited
    table's columns sorted by their header, whitespace runs as one space."""
    text = unicodedata.normalize("NFC", text)
    body = text.strip()
    if body.startswith(("{", "[")):
        try:
            value = json.loads(body)
        except ValueError:
            value = None
        if isinstance(value, (dict, list)):
            text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    elif "," in body or "\t" in body:
        text = columns_sorted(text)
    # (``str.split`` cuts at exactly the characters ``\s`` matches, at C speed.)
    return " ".join(text.split())


def columns_sorted(text: str) -> str:
    """``text`` with each delimited table in it (at least TABLE_ROWS lines with one count of
    commas or tabs, headed by a row of distinct bare names without digits) in the order of its
    header's names: a table's column order is its rows' key order, and means as little."""
    lines = text.split("\n")
    k = 0
    while k < len(lines):
        sep = "\t" if "\t" in lines[k] else ","
        width = lines[k].count(sep)
        end = k + 1
        while width and end < len(lines) and lines[end].count(sep) == width:
            end += 1
        header = lines[k].split(sep)
        # (Names are bare: prose's ", " is no separator.)
        if (end - k >= TABLE_ROWS and len(set(header)) == len(header) and all(h and h == h.strip() for h in header)
                and not any(map(str.isdigit, lines[k]))):
            order = sorted(range(len(header)), key=lambda c: header[c])
            lines[k:end] = [sep.join(row[c] for c in order) for row in (line.split(sep) for line in lines[k:end])]
        k = end
    return "\n".join(lines)


def spelling_kind(a: str, b: str) -> str:
    """How two spellings of one key differ."""
    if unicodedata.normalize("NFC", a) == unicodedata.normalize("NFC", b):
        return NORMALIZATION
    if a.split() == b.split():
        return WRAPPING
    try:
        if json.loads(a) == json.loads(b):
            return KEY_ORDER
    except ValueError:
        pass
    if columns_sorted(a) == columns_sorted(b):
        return COLUMN_ORDER
    return NORMALIZATION  # NFC and whitespace both differ: the key made them one


def respelled(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` are one content in two spellings."""
    return a != b and normalized(a) == normalized(b)
