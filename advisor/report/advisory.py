"""The advisory as markdown: a pure function of the data `advisor.advise.build` returns, made
of the sections registered in ``advisor.report.sections``."""

from __future__ import annotations

import json
from typing import Any

from advisor.report.sections import SECTIONS, Section
from advisor.report.table import Table, to_markdown as table_lines


def to_json(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False, sort_keys=False, default=str) + "\n"


def to_markdown(data: dict[str, Any], picture: str | None, sections: tuple[Section, ...] = SECTIONS) -> str:
    out: list[str] = []
    number = 0
    for i, section in enumerate(sections):
        blocks = section.render(data, picture)
        if section.title is not None and not blocks:
            continue  # a section with nothing to say for these facts (no heading, no number)
        if i:
            out.append("")
        if section.title is not None:
            number += 1
            out += [f"## {number}. {section.title}", ""]
        for block in blocks:
            out += table_lines(block) if isinstance(block, Table) else [block]
    return "\n".join(out) + "\n"
