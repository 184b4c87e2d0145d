"""The one line model of a template: Jinja's.

Jinja's lexer splits a template at ``\\r\\n``, ``\\r`` and ``\\n`` (``jinja2.lexer.newline_re``)
and numbers lines that way; Python's universal newlines, which the engines read a
template file with, agree. ``str.splitlines`` does not (it also splits at ``\\x0b``,
``\\x0c``, ``\\x1c``-``\\x1e``, NEL, U+2028 and U+2029) and neither does YAML (NEL, U+2028,
U+2029). So the linter reads every file through :func:`normalize` (each break becomes
``\\n``; lines and columns stay where they were) and every position it reports is a
(line, column) of this model; :class:`Lines` turns such a position into an offset of the
file as it is on disk, whatever breaks it uses, which is how a fix finds its bytes.

A unified diff is another matter: ``patch`` reads a file as lines ending in ``\\n`` only,
so :func:`patch_lines` cuts there (a lone ``\\r`` stays inside its line).
"""

from __future__ import annotations

import bisect
import re

BREAK = re.compile(r"\r\n|\r|\n")
BOM = "\ufeff"


def normalize(text: str) -> str:
    """``text`` with every line break ``\\n``: the lines and columns of Jinja's model are
    unchanged, only the break characters are."""
    if "\r" not in text:
        return text
    return BREAK.sub("\n", text)


def patch_lines(text: str) -> list[str]:
    """Lines as ``patch`` and ``diff`` read them: cut after each ``\\n``, the break kept."""
    parts = text.split("\n")
    out = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


class Lines:
    """Line starts of one text under Jinja's line model; positions are 1-based."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0] + [m.end() for m in BREAK.finditer(text)]

    @property
    def count(self) -> int:
        return len(self.starts)

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset)

    def position(self, offset: int) -> tuple[int, int]:
        """(line, column) of an offset; an offset inside a ``\\r\\n`` pair is its ``\\r``'s."""
        line = self.line_of(offset)
        return line, min(offset, self.end(line)) - self.starts[line - 1] + 1

    def offset(self, line: int, column: int) -> int:
        """The offset of a (line, column); past the end of a line is its end (before its
        break), past the last line is the end of the text."""
        if line < 1:
            return 0
        if line > len(self.starts):
            return len(self.text)
        start = self.starts[line - 1]
        return min(start + max(column, 1) - 1, self.end(line))

    def end(self, line: int) -> int:
        """Where ``line``'s text ends: at its break, or at the end of the text."""
        if line >= len(self.starts):
            return len(self.text)
        stop = self.starts[line]
        return stop - 2 if self.text.startswith("\r\n", stop - 2) else stop - 1

    def break_of(self, line: int) -> str:
        """The characters that end ``line`` (empty on the last line)."""
        if line >= len(self.starts) or line < 1:
            return ""
        return self.text[self.end(line): self.starts[line]]

    def text_of(self, line: int) -> str:
        """``line`` without its break."""
        if line < 1 or line > len(self.starts):
            return ""
        return self.text[self.starts[line - 1]: self.end(line)]
