"""What kind of value varies between requests: a small, pure classifier of text spans.

TR101 finds *where* requests diverge and re-join; this module says *what* the varying text
is (a clock reading, an id, a person's name...) so the advice can name it. Two functions:

- ``classify(value)``: the kind of one value, by full match against the patterns below.
- ``expand(text, start, end)``: the whole value around a differing character range, because
  two timestamps differ only in their last digits and the report must show all of it.
"""

from __future__ import annotations

import re

KINDS = ("url", "jwt", "datetime", "date", "time", "unix-timestamp", "uuid", "hex-id", "number", "email",
         "name-or-text")

_MONTH = (r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
          r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?")
_WEEKDAY = r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*\.?,?\s+"
_DATE = (
    rf"(?:{_WEEKDAY})?(?:"
    r"\d{4}-\d{1,2}-\d{1,2}"                       # 2026-11-02
    r"|\d{4}/\d{1,2}/\d{1,2}"                      # 2026/11/02
    r"|\d{1,2}[/.\-]\d{1,2}[/.\-]\d{2,4}"          # 02/11/2026, 2.11.26
    rf"|\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH},?\s+\d{{4}}"   # 2 November 2026
    rf"|{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}"   # November 2, 2026
    r")"
)
_TZ = r"(?:\s?(?:Z|UTC|GMT|[A-Z]{2,4}T)|\s?[+\-]\d{2}:?\d{2})?"
_TIME = rf"\d{{1,2}}:\d{{2}}(?::\d{{2}}(?:[.,]\d{{1,6}})?)?(?:\s?[AaPp]\.?[Mm]\.?)?{_TZ}"
_DATETIME = rf"{_DATE}(?:T|,?\s+(?:at\s+)?){_TIME}|{_TIME},?\s+(?:on\s+)?{_DATE}"

# Order matters: the first kind that matches wins, most specific first.
PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    # A link whatever it carries (a presigned URL holds ids, a date and a signature).
    ("url", re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://[^\s\"'<>()\[\]{}]+")),
    # A JSON Web Token: base64url header (always '{"' encoded), payload and signature.
    ("jwt", re.compile(r"eyJ[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]*")),
    ("uuid", re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")),
    ("email", re.compile(r"[A-Za-z0-9._%+\-]+@[A-Za-z0-9.\-]+\.[A-Za-z]{2,}")),
    ("datetime", re.compile(_DATETIME)),
    # Seconds or milliseconds since 1970, between 2001 and 2033: ten or thirteen digits.
    ("unix-timestamp", re.compile(r"(?<!\d)(?:1\d{9}(?:\.\d+)?|1\d{12})(?!\d)")),
    ("date", re.compile(_DATE)),
    ("time", re.compile(_TIME)),
    # Hex ids: 0x..., or 8+ hex characters holding both digits and letters (git shas, tokens).
    ("hex-id", re.compile(r"0x[0-9a-fA-F]+|(?=[0-9a-fA-F]*\d)(?=[0-9a-fA-F]*[a-fA-F])[0-9a-fA-F]{8,}")),
    ("number", re.compile(r"[+\-]?\d[\d,_]*(?:\.\d+)?%?")),
)

# Characters that separate a label from its value ("Name: ", "user_id="), or values in a line.
# Longer than any id, clock reading or number the patterns describe.
MAX_VALUE_CHARS = 48
_LABEL_END = ":=\n\"'(<[{|>]"  # (">" and "]" end markup: a chat template's "<s>", "[INST]")
_STRIP = " \t\r\n\"'`.,;:()[]{}<>"


def classify(value: str) -> str:
    """The kind of ``value``: the first pattern that matches all of it, else name-or-text."""
    text = value.strip(_STRIP)
    if not text:
        return "name-or-text"
    for kind, pattern in PATTERNS:
        if pattern.fullmatch(text):
            return kind
    # An id with a short prefix ("INV-4821", "pay_7XKQ2") is still an identifier.
    if re.fullmatch(r"[A-Za-z]{1,6}[-_]?\d{3,}", text):
        return "number"
    return "name-or-text"


def expand(text: str, start: int, end: int) -> tuple[int, int]:
    """The whole value in ``text`` around the differing range ``[start, end)``.

    A pattern match covering the range wins (a timestamp whose seconds differ is the whole
    timestamp); otherwise the range grows to whole words, back to the label before it.
    """
    start, end = _trim(text, start, end)
    if end - start <= MAX_VALUE_CHARS:
        # Only a short difference can be one value; the window holds any value around it.
        lo, hi = max(0, start - MAX_VALUE_CHARS), min(len(text), end + MAX_VALUE_CHARS)
        # Several values in one range (a clock's seconds and the counter after it): a value
        # the range starts or ends inside is taken whole (unless one value covers it all).
        head, tail = start, end
        for _, pattern in PATTERNS:
            for m in pattern.finditer(text, lo, hi):
                a, b = m.start(), m.end()
                if a <= start and b >= end and b > a:
                    return a, b
                if a < start < b:
                    head = min(head, a)
                if a < end < b:
                    tail = max(tail, b)
        start, end = head, tail
    # Free text: back to the label ("Name: ") or the line start, forward to the word end.
    while start > 0 and text[start - 1] not in _LABEL_END:
        start -= 1
    while end < len(text) and (text[end].isalnum() or text[end] in "_-'"):
        end += 1
    return _trim(text, start, end)


# Characters of a compound token (a URL with its query, a JWT, a key=value pair): printable
# ASCII without whitespace, quotes, brackets, commas or backslashes, which end a token in
# prose, JSON (escaped or not) and markup. Non-ASCII is left out: CJK prose has no spaces
# between its words.
COMPOUND = frozenset(chr(c) for c in range(33, 127)) - frozenset("\"'`()[]{}<>,\\")
MAX_COMPOUND_CHARS = 2048


# A list item's marker: 1. 1) (1) a. a) (a) A. (A) (indent and bracket, number or letter,
# stop and space), as numbered and lettered lists write it.
LIST_MARK = re.compile(r"(\s*\(?)(\d{1,4}|[a-z]|[A-Z])([.)]\s+)")


def compound_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    """``[start, end)`` widened to the whole compound token around it (a value inside a URL
    is the URL: a move that carries a piece of it breaks the link); unchanged when the
    range is not glued to such a token. A trailing sentence stop is not part of it."""
    lo, hi = start, end
    floor, ceiling = max(0, start - MAX_COMPOUND_CHARS), min(len(text), end + MAX_COMPOUND_CHARS)
    while lo > floor and text[lo - 1] in COMPOUND:
        lo -= 1
    while hi < ceiling and text[hi] in COMPOUND:
        hi += 1
    while hi > end and text[hi - 1] in ".:;!?":
        hi -= 1
    # Punctuation alone is the syntax around the value (a JSON member's colon), not a token.
    if not any(ch.isalnum() for ch in text[lo:start]):
        lo = start
    if not any(ch.isalnum() for ch in text[end:hi]):
        hi = end
    return min(lo, start), max(hi, end)


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start] in _STRIP:
        start += 1
    while end > start and text[end - 1] in _STRIP:
        end -= 1
    return start, end


def differing_range(left: str, a: str, b: str) -> tuple[int, int]:
    """Character range of ``left + a`` where ``a`` differs from ``b``: common head and tail
    of the two variants are not part of the difference."""
    head = 0
    limit = min(len(a), len(b))
    while head < limit and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < limit - head and a[len(a) - 1 - tail] == b[len(b) - 1 - tail]:
        tail += 1
    return len(left) + head, len(left) + max(head, len(a) - tail)


def classify_inside(text: str) -> str:
    """The kind of a varying span that may hold several values or words around a value: its
    full-match kind, else the first kind (most specific first) found inside it."""
    kind = classify(text)
    if kind != "name-or-text":
        return kind
    for name, pattern in PATTERNS:
        if name != "number" and pattern.search(text):
            return name
    return kind
