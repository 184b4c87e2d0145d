"""The advisory's number formats and the block type its sections return."""

from __future__ import annotations

from typing import Any, Union

from advisor.report.table import Table

GIB = 2**30
MIB = 2**20

Block = Union[str, Table]  # a markdown line, or a table rendered by the assembler


def pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def size(n: float) -> str:
    return f"{n / GIB:,.2f} GiB" if n >= GIB else f"{n / MIB:,.1f} MiB"


def inline(text: Any) -> str:
    """Text for one markdown line: no pipe that a table would split on, no newline."""
    return str(text).replace("|", "\\|").replace("\n", " ")
