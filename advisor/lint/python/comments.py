"""Suppression comments in Python, spelled as in templates and read by lint.suppress.

``# advisor: noqa: PC101`` (or ``# advisor: noqa PC101``, or bare ``# advisor: noqa`` for
every code) silences the findings of the statement it ends; ``# advisor: disable=PC103`` ...
``# advisor: enable=PC103`` a range of lines. A plain ``# noqa: PC101`` works too, for its PC
codes: ``# noqa`` and ``# noqa: E501`` belong to other linters and are left to them (never
reported as unused here).
"""

from __future__ import annotations

import ast
import bisect
import io
import re
import tokenize

from advisor.lint.model import Comment

# A directive opens its comment (or a `#` segment of it, as in `# type: ignore  # advisor: noqa`);
# prose that mentions one ("an unused `noqa: PC102` is reported") is not one.
_ADVISOR = re.compile(r"\s*advisor\s*:\s*(?P<verb>noqa|disable|enable)\b\s*[:=]?\s*(?P<codes>[A-Za-z0-9_\-]+(?:\s*,\s*[A-Za-z0-9_\-]+)*)?",
                      re.IGNORECASE)
_PLAIN = re.compile(r"\s*noqa\s*:\s*(?P<codes>[A-Za-z0-9_\-]+(?:\s*,\s*[A-Za-z0-9_\-]+)*)", re.IGNORECASE)
_OURS = re.compile(r"^PC\d{3}$", re.IGNORECASE)


def suppressions(source: str, tree: ast.Module) -> list[Comment]:
    """The suppression comments of a module, as lint.suppress reads them: a ``noqa`` covers
    the lines of the statement it is on (a finding inside a multi-line string sits on a line
    no comment can be put on)."""
    if not any(_candidate(row) for row in source.split("\n")):
        return []  # tokenizing is the slow part: only when a line could hold one of ours
    found = [(line, n) for line, text in _comments(source) if (n := _normalize(text)) is not None]
    if not found:
        return []
    extents = _statement_extents(tree, sorted({line for line, _ in found}))
    out = []
    for line, normalized in found:
        if normalized.startswith("noqa"):
            first, last = extents.get(line, (line, line))
            out.append(Comment(normalized, first, last))
        else:
            out.append(Comment(normalized, line, line))
    return out


def _candidate(row: str) -> bool:
    at = row.find("#")
    return at >= 0 and _normalize(row[at + 1:]) is not None


def _comments(source: str) -> list[tuple[int, str]]:
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return []
    return [(tok.start[0], tok.string[1:]) for tok in tokens if tok.type == tokenize.COMMENT]


def _normalize(comment: str) -> str | None:
    for segment in comment.split("#"):
        found = _directive(segment)
        if found is not None:
            return found
    return None


def _directive(text: str) -> str | None:
    m = _ADVISOR.match(text)
    if m is not None:
        codes = m.group("codes")
        verb = m.group("verb").lower()
        if verb == "noqa":
            return "noqa" + (f": {codes}" if codes else "")
        return f"advisor: {verb}" + (f"={codes}" if codes else "")
    m = _PLAIN.match(text)
    if m is not None:
        ours = [c.strip() for c in m.group("codes").split(",") if _OURS.match(c.strip())]
        if ours:
            return "noqa: " + ", ".join(ours)
    return None


def _statement_extents(tree: ast.Module, lines: list[int]) -> dict[int, tuple[int, int]]:
    """For each of ``lines``, the lines of the innermost statement holding it (for a
    compound statement: its header, up to its body). Only statements are visited."""
    best: dict[int, tuple[int, int]] = {}
    stack: list[ast.stmt] = list(tree.body)
    while stack:
        node = stack.pop()
        first = node.lineno
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
            last = max(first, body[0].lineno - 1)
        else:
            last = node.end_lineno or first
        lo, hi = bisect.bisect_left(lines, first), bisect.bisect_right(lines, node.end_lineno or first)
        if lo < hi:  # a comment line lies within this statement: look at it and what it holds
            for line in lines[bisect.bisect_left(lines, first):bisect.bisect_right(lines, last)]:
                seen = best.get(line)
                if seen is None or last - first < seen[1] - seen[0]:
                    best[line] = (first, last)
            stack.extend(_children(node))
    return best


def _children(node: ast.stmt) -> list[ast.stmt]:
    out: list[ast.stmt] = []
    for name in ("body", "orelse", "finalbody"):
        block = getattr(node, name, None)
        if isinstance(block, list):
            out.extend(s for s in block if isinstance(s, ast.stmt))
    for handler in getattr(node, "handlers", []) or []:
        out.extend(handler.body)
    for case in getattr(node, "cases", []) or []:
        out.extend(case.body)
    return out
