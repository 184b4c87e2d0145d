"""Fixes, ruff-style: text edits a rule attaches to a finding, applied or shown as a diff.

A *safe* fix keeps what the prompt means (serializing a mapping with sorted keys); an
*unsafe* fix changes the prompt text the model sees (a line moved after the static text),
so it is only applied on request (``--unsafe-fixes``). Edits are offsets into the file
text; fixes whose edits overlap an already accepted fix wait for the next run, as in ruff.
"""

from __future__ import annotations

import difflib
import functools
from dataclasses import dataclass

from advisor.lint.lines import Lines, normalize, patch_lines

SAFE, UNSAFE = "safe", "unsafe"


@dataclass(frozen=True)
class Edit:
    start: int  # offset into the file text
    end: int  # exclusive
    text: str


@dataclass(frozen=True)
class Fix:
    applicability: str  # SAFE or UNSAFE
    message: str
    edits: tuple[Edit, ...]


def offset(source: str, line: int, column: int) -> int:
    """The offset of a 1-based (line, column) position in ``source`` (Jinja's line model)."""
    return _lines_of(source).offset(line, column)


@functools.lru_cache(maxsize=2)
def _lines_of(source: str) -> Lines:
    # Asked twice per fix of one model: its line starts are found once (a str caches its hash).
    return Lines(source)


def touches(fix: Fix, regions: list[tuple[int, int]]) -> bool:
    """Whether an edit of ``fix`` reaches into one of ``regions`` (offsets, end exclusive)."""
    return any(e.start < hi and lo < max(e.end, e.start + 1) for e in fix.edits for lo, hi in regions)


def wanted(fix: Fix | None, unsafe: bool) -> bool:
    return fix is not None and (fix.applicability == SAFE or unsafe)


def apply(source: str, fixes: list[Fix]) -> tuple[str, list[Fix]]:
    """Apply the fixes whose edits do not overlap an earlier fix's; return the new text and
    the fixes applied (in the order given)."""
    taken: list[tuple[int, int]] = []
    applied: list[Fix] = []
    for fix in fixes:
        spans = [(e.start, e.end) for e in fix.edits]
        if any(_overlaps(s, t) for s in spans for t in taken):
            continue
        taken.extend(spans)
        applied.append(fix)
    return splice(source, [e for fix in applied for e in fix.edits]), applied


def splice(source: str, edits: list[Edit]) -> str:
    # From the end backwards, so that earlier offsets stay valid; an insertion and an edit
    # at the same offset keep their given order.
    out = source
    for e in sorted(edits, key=lambda e: (e.start, e.end), reverse=True):
        out = out[: e.start] + e.text + out[e.end:]
    return out


class Mismatch(Exception):
    """The file's own text could not be given the edits made to its normalized text."""


def carry(original: str, norm: str, fixed: str, applied: list[Fix]) -> str:
    """``original`` with the edits ``applied`` made to ``norm`` (its text with every break
    ``\n``, lint.lines), so that ``normalize`` of the result is ``fixed``.

    A position is a (line, column) in both texts, so each edit lands on the same
    characters of the file; the breaks it writes are the file's own: those of a line the
    fix takes away (a moved line keeps its break), else the one ending the line it writes
    into, else the file's first. Every byte outside the edits stays as it was. Raises
    ``Mismatch`` if the result does not read as ``fixed`` (a written break that would join
    a lone ``\r`` of the file into one break).
    """
    at, on = Lines(norm), Lines(original)
    edits = []
    for fix in applied:
        brk = _break_for(fix, at, on)
        for e in fix.edits:
            start, end = on.offset(*at.position(e.start)), on.offset(*at.position(e.end))
            edits.append(Edit(start, end, e.text.replace("\n", brk)))
    out = splice(original, edits)
    if normalize(out) != fixed:
        raise Mismatch()
    return out


def _break_for(fix: Fix, at: Lines, on: Lines) -> str:
    for e in fix.edits:
        first, last = at.line_of(e.start), at.line_of(max(e.start, e.end - 1))
        for line in range(first, last + 1):
            if e.start <= at.end(line) < e.end and on.break_of(line):
                return on.break_of(line)
    for e in fix.edits:
        brk = on.break_of(at.line_of(e.start)) or on.break_of(at.line_of(e.start) - 1)
        if brk:
            return brk
    return on.break_of(1) or "\n"


def _overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    if a[0] == a[1] or b[0] == b[1]:  # insertions only clash with an edit around them
        return b[0] < a[0] < b[1] or a[0] < b[0] < a[1] or a == b
    return a[0] < b[1] and b[0] < a[1]


def unified_diff(path: str, before: str, after: str) -> str:
    """A diff ``patch`` applies: lines end at ``\n`` only, as patch reads them, so a lone
    ``\r`` or a U+2028 stays inside its line and a CRLF line keeps its ``\r``."""
    lines = difflib.unified_diff(patch_lines(before), patch_lines(after), _header(f"a/{path}"), _header(f"b/{path}"))
    out = []
    for line in lines:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


_C_ESCAPES = {"\\": "\\\\", '"': '\\"', "\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _header(name: str) -> str:
    """A file name as git writes it in a diff header, which GNU patch reads back: a name
    with a space ends in a tab (else patch stops at the space), one with a tab, newline,
    quote, backslash or other control character is a C string in double quotes."""
    if any(c in name for c in '\t\n\r"\\') or not name.isprintable():
        out = []
        for ch in name:
            if ch in _C_ESCAPES:
                out.append(_C_ESCAPES[ch])
            elif ch.isprintable():
                out.append(ch)
            else:
                out.extend(f"\\{b:03o}" for b in ch.encode("utf-8", "surrogateescape"))
        return '"' + "".join(out) + '"'
    return name + "\t" if " " in name else name
