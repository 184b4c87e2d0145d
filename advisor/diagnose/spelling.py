"""One content, several spellings: the equivalence key two texts share when they differ only
in Unicode normalization, where their lines break and how they space words (not how a line is
indented: that nests code, YAML and lists), a JSON object's key order or a delimited table's
column order; and which of those sets two spellings apart.

The diagnosis reads a varying span as a spelling (TR104) where the paragraphs around it are
equal under this key; the canonical order (``advisor.prescribe.canonical``) counts its units
by it and sends each in its most common spelling. One key for both: what the diagnosis calls
one content spelled twice, the canonical order sends in one spelling (its units may be cut
finer than the diagnosis's paragraphs).
"""

from __future__ import annotations

import csv
import functools
import io
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
    KEY_ORDER: "the same JSON object with its keys (or a schema's enum, required or type values) in another order",
    COLUMN_ORDER: "the same delimited table with its columns in another order",
}


def key(text: str) -> str:
    """The equivalence key's text: NFC; a JSON document with its keys sorted (its strings and
    number literals as written, a duplicate key no JSON); a delimited table's columns sorted
    by their header; lines reflowed, each line's own indentation kept (it nests a list, a
    YAML mapping, a block of code: no spelling) and a blank line kept as one."""
    text = unicodedata.normalize("NFC", text)
    body = text.strip()
    if body.startswith(("{", "[")):
        value = _json(body)
        if value is not None:
            return json.dumps(value, sort_keys=True, ensure_ascii=False)
    elif "," in body or "\t" in body:
        text = columns_sorted(text)
    out: list[str] = []
    for line in text.strip().split("\n"):
        words = line.split()
        if not words:
            if out and out[-1] != "\n\n":
                out.append("\n\n")  # a paragraph break
            continue
        indent = line[:len(line) - len(line.lstrip())]
        glue = "\n" + indent if indent else ("" if not out or out[-1] == "\n\n" else " ")
        out.append(glue + " ".join(words))
    return "".join(out)


# Texts repeat across requests (a system prompt in every one): the canonical order's counts
# read each unit's key many times. (The diagnosis compares once per pair: ``respelled``.)
normalized = functools.lru_cache(maxsize=MEMO_KEYS)(key)


class _Duplicate(ValueError):
    pass


# JSON Schema keywords whose arrays are sets (JSON Schema Validation, draft 2020-12: 6.1.2
# ``enum``, an instance valid if equal to any element; 6.5.3 ``required``, unique names; 6.1.1
# ``type``, unique type names): a tool's parameters listed in another order are the same
# schema, spelled otherwise.
SCHEMA_SETS = frozenset({"enum", "required", "type"})


def _pairs(pairs: list[tuple[str, object]]) -> dict[str, object]:
    out = dict(pairs)
    if len(out) != len(pairs):
        raise _Duplicate  # which value counts is the parser's choice: not one spelling
    for name in SCHEMA_SETS & out.keys():
        value = out[name]
        if isinstance(value, list) and all(not isinstance(v, (dict, list)) for v in value):
            out[name] = sorted(value, key=lambda v: json.dumps(v, ensure_ascii=False))
    return out


def _json(body: str) -> object | None:
    """A JSON object or array as parsed with its number literals kept as written."""
    try:
        value = json.loads(body, object_pairs_hook=_pairs, parse_float=_Number, parse_int=_Number)
    except ValueError:
        return None
    return value if isinstance(value, (dict, list)) else None


class _Number(str):
    """A number literal as written (10.10 and 10.1 are two spellings of two texts)."""


def columns_sorted(text: str) -> str:
    """``text`` with each delimited table in it (at least TABLE_ROWS lines with one count of
    fields, read as CSV with its quoting, headed by a row of distinct bare names without
    digits) in the order of its header's names, each row as one CSV line: a table's column order is
    its rows' key order, and means as little."""
    lines = text.split("\n")
    out: list[str] = []
    k = 0
    while k < len(lines):
        sep = "\t" if "\t" in lines[k] else ","
        rows = [_fields(lines[k], sep)]
        end = k + 1
        while len(rows[0]) > 1 and end < len(lines):
            row = _fields(lines[end], sep)
            if len(row) != len(rows[0]):
                break
            rows.append(row)
            end += 1
        header = rows[0]
        # (Names are bare: prose's ", " is no separator.)
        if (end - k >= TABLE_ROWS and len(set(header)) == len(header) and all(h and h == h.strip() for h in header)
                and not any(map(str.isdigit, lines[k]))):
            order = sorted(range(len(header)), key=lambda c: header[c])
            out += [_row([row[c] for c in order]) for row in rows]
        else:
            out += lines[k:end]
        k = end
    return "\n".join(out)


def _fields(line: str, sep: str) -> list[str]:
    return next(csv.reader([line], delimiter=sep), [])


def _row(fields: list[str]) -> str:
    """Fields as one CSV line (quoted where they hold a comma): one spelling of a row."""
    out = io.StringIO()
    csv.writer(out, lineterminator="").writerow(fields)
    return out.getvalue()


def spelling_kind(a: str, b: str) -> str:
    """How two spellings of one key differ (their keys are equal: indentation is too)."""
    if unicodedata.normalize("NFC", a) == unicodedata.normalize("NFC", b):
        return NORMALIZATION
    if a.split() == b.split():
        return WRAPPING
    x, y = _json(a.strip()), _json(b.strip())
    if x is not None and x == y:
        return KEY_ORDER
    if columns_sorted(a) == columns_sorted(b):
        return COLUMN_ORDER
    return NORMALIZATION  # NFC and whitespace both differ: the key made them one


def respelled(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` are one content in two spellings (compared once: not memoized,
    so the diagnosis's units do not fill the canonical order's memo)."""
    return a != b and key(a) == key(b)
