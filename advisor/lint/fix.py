"""Fixes, ruff-style: text edits a rule attaches to a finding, applied or shown as a diff.

A *safe* fix keeps what the prompt means (serializing a mapping with sorted keys); an
*unsafe* fix changes the prompt text the model sees (a line moved after the static text),
so it is only applied on request (``--unsafe-fixes``). Edits are offsets into the file
text; fixes whose edits overlap an already accepted fix wait for the next run, as in ruff.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

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
    """The offset of a 1-based (line, column) position in ``source``."""
    pos = 0
    for _ in range(line - 1):
        nl = source.find("\n", pos)
        if nl < 0:
            return len(source)
        pos = nl + 1
    return min(pos + column - 1, len(source))


def wanted(fix: Fix | None, unsafe: bool) -> bool:
    return fix is not None and (fix.applicability == SAFE or unsafe)


def apply(source: str, fixes: list[Fix]) -> tuple[str, list[Fix]]:
    """Apply the fixes whose edits do not overlap an earlier fix's; return the new text and
    the fixes applied (in the order given)."""
    taken: list[tuple[int, int]] = []
    applied: list[Fix] = []
    edits: list[Edit] = []
    for fix in fixes:
        spans = [(e.start, e.end) for e in fix.edits]
        if any(_overlaps(s, t) for s in spans for t in taken):
            continue
        taken.extend(spans)
        applied.append(fix)
        edits.extend(fix.edits)
    out = source
    # From the end backwards, so that earlier offsets stay valid; an insertion and an edit
    # at the same offset keep their given order.
    for e in sorted(edits, key=lambda e: (e.start, e.end), reverse=True):
        out = out[: e.start] + e.text + out[e.end:]
    return out, applied


def _overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    if a[0] == a[1] or b[0] == b[1]:  # insertions only clash with an edit around them
        return b[0] < a[0] < b[1] or a[0] < b[0] < a[1] or a == b
    return a[0] < b[1] and b[0] < a[1]


def unified_diff(path: str, before: str, after: str) -> str:
    lines = difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True), f"a/{path}", f"b/{path}")
    out = []
    for line in lines:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)
