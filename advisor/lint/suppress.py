"""Inline suppressions, read from Jinja comments (which never reach the rendered prompt).

``{# noqa #}`` or ``{# noqa: PC101, PC102 #}`` silences findings on the comment's line(s);
``{# advisor: disable=PC101 #}`` ... ``{# advisor: enable=PC101 #}`` silences a range (to the
end of the file when never re-enabled). A suppression that silences nothing is reported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

from advisor.lint.model import Comment

_NOQA = re.compile(r"\bnoqa\b(?:\s*:\s*(?P<codes>[A-Za-z0-9_\-]+(?:\s*,\s*[A-Za-z0-9_\-]+)*))?", re.IGNORECASE)
_DIRECTIVE = re.compile(
    r"\badvisor\s*:\s*(?P<verb>disable|enable)\b(?:\s*=\s*(?P<codes>[A-Za-z0-9_\-]+(?:\s*,\s*[A-Za-z0-9_\-]+)*))?", re.IGNORECASE
)

ALL = "ALL"


@dataclass
class Suppression:
    kind: str  # noqa | range
    codes: tuple[str, ...]  # resolved rule codes, or ("ALL",)
    written: str  # the directive as written, for messages
    line: int  # where the comment is
    first: int  # lines covered, inclusive
    last: int
    used: set[str] = field(default_factory=set)

    def covers(self, code: str, line: int) -> bool:
        return self.first <= line <= self.last and (ALL in self.codes or code in self.codes)


def parse(comments: list[Comment], resolve: Callable[[str], str | None], last_line: int) -> list[Suppression]:
    """Turn comments into suppressions; unknown codes are kept as written so they show up as unused."""
    found: list[Suppression] = []
    open_ranges: dict[str, Suppression] = {}
    for comment in sorted(comments, key=lambda c: c.line):
        directive = _DIRECTIVE.search(comment.text)
        if directive:
            codes = _codes(directive.group("codes"), resolve)
            if directive.group("verb").lower() == "disable":
                for code in codes:
                    sup = Suppression("range", (code,), f"advisor: disable={_written(code)}", comment.line, comment.line, last_line)
                    open_ranges[code] = sup
                    found.append(sup)
            else:
                for code in codes:
                    targets = [c for c in open_ranges if code == ALL or c == code]
                    for c in targets:
                        open_ranges.pop(c).last = comment.end_line
            continue
        noqa = _NOQA.search(comment.text)
        if noqa:
            codes = _codes(noqa.group("codes"), resolve)
            written = "noqa" + (f": {noqa.group('codes')}" if noqa.group("codes") else "")
            found.append(Suppression("noqa", tuple(codes), written, comment.line, comment.line, comment.end_line))
    return found


def _codes(raw: str | None, resolve: Callable[[str], str | None]) -> list[str]:
    if not raw:
        return [ALL]
    out = []
    for part in raw.split(","):
        part = part.strip()
        if part.upper() in (ALL, "ALL"):
            out.append(ALL)
        else:
            out.append(resolve(part) or part.upper())
    return out


def _written(code: str) -> str:
    return "all" if code == ALL else code
