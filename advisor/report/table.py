"""One table model for every report, and its renderers: rich (the terminal), plain text and
markdown.

A ``Table`` holds what a table says (columns with their alignment, rows of strings already
formatted, an optional title and caption); the renderers decide only how it looks, and are
pure functions of it, so one table is written once and shown in every format.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from rich.table import Table as RichTable

Align = Literal["left", "right"]


@dataclass(frozen=True)
class Column:
    header: str
    align: Align = "left"
    overflow: Literal["fold", "crop", "ellipsis"] | None = None  # rich only: a long cell folds rather than ends in "…"


@dataclass
class Table:
    columns: list[Column]
    rows: list[list[str]] = field(default_factory=list)
    title: str | None = None
    caption: str | None = None
    show_header: bool = True
    title_justify: Literal["left", "center", "right"] = "center"  # rich only

    def add(self, *cells: str) -> None:
        if len(cells) != len(self.columns):
            raise ValueError(f"a row of {len(cells)} cells in a table of {len(self.columns)} columns")
        self.rows.append(list(cells))


def columns(*spec: str) -> list[Column]:
    """Columns from headers, a trailing ``>`` marking a right-aligned one: ``columns("tenant",
    "requests>")``."""
    return [Column(h[:-1], "right") if h.endswith(">") and len(h) > 1 else Column(h) for h in spec]


# --- renderers -----------------------------------------------------------------------------------


def to_rich(table: Table) -> RichTable:
    out = RichTable(title=table.title, caption=table.caption, show_header=table.show_header,
                    title_justify=table.title_justify)
    for c in table.columns:
        if c.overflow is None:
            out.add_column(c.header, justify=c.align)
        else:
            out.add_column(c.header, justify=c.align, overflow=c.overflow)
    for row in table.rows:
        out.add_row(*row)
    return out


def to_plain(table: Table, rule: bool = False, trim: bool = False) -> list[str]:
    """Columns padded to their widest cell, two spaces apart, under a header line; ``rule``
    adds a line of dashes under the header, ``trim`` drops the spaces that pad each line to
    the full width (the simulate report keeps them, the verify report trims them)."""
    heads = [c.header for c in table.columns]
    widths = [max([len(h), *(len(r[i]) for r in table.rows)]) for i, h in enumerate(heads)]

    def line(cells: list[str]) -> str:
        text = "  ".join(c.rjust(w) if col.align == "right" else c.ljust(w)
                         for c, w, col in zip(cells, widths, table.columns))
        return text.rstrip() if trim else text

    lines = [line(heads)] if table.show_header else []
    if rule and table.show_header:
        lines.append(line(["-" * w for w in widths]))
    return lines + [line(r) for r in table.rows]


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _md_row(cells: list[str]) -> str:
    # An empty cell is one space wide ("| |"), header or body.
    return "|" + "|".join(f" {_md_cell(c)} " if c else " " for c in cells) + "|"


def to_markdown(table: Table, compact: bool = False) -> list[str]:
    """A GitHub table: header, alignment rule, rows; ``|`` in a cell escaped, a newline a
    space. ``compact`` writes the rule as ``|---|---:|`` (the simulate report's)."""
    marks = ["---:" if c.align == "right" else "---" for c in table.columns]
    rule = "|" + "|".join(marks) + "|" if compact else "| " + " | ".join(marks) + " |"
    lines = [_md_row([c.header for c in table.columns]), rule]
    lines += [_md_row(row) for row in table.rows]
    if table.caption:
        lines += ["", table.caption]
    return lines
