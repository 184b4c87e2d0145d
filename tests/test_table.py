"""The one table model (advisor.report.table) and its three renderers."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from advisor.report.table import Column, Table, columns, to_markdown, to_plain, to_rich


def _sample() -> Table:
    t = Table(columns("tenant", "requests>", "hit rate>"), title="Tenants")
    t.add("acme|corp", "1,024", "75.10%")
    t.add("b\nnewline", "7", "")
    return t


def test_markdown_aligns_escapes_and_flattens() -> None:
    assert to_markdown(_sample()) == [
        "| tenant | requests | hit rate |",
        "| --- | ---: | ---: |",
        "| acme\\|corp | 1,024 | 75.10% |",
        "| b newline | 7 | |",  # an empty cell is one space wide
    ]
    assert to_markdown(_sample(), compact=True)[1] == "|---|---:|---:|"


def test_markdown_unlabelled_header_and_caption() -> None:
    t = Table([Column(""), Column("pool", "right")], caption="Pools in tokens.")
    t.add("vLLM", "1,000")
    assert to_markdown(t) == ["| | pool |", "| --- | ---: |", "| vLLM | 1,000 |", "", "Pools in tokens."]


def test_plain_pads_every_column_to_its_widest_cell() -> None:
    t = Table(columns("policy", "hit rate>"))
    t.add("fcfs", "5.00%")
    t.add("dfs-weight", "75.25%")
    assert to_plain(t) == ["policy      hit rate", "fcfs           5.00%", "dfs-weight    75.25%"]
    assert to_plain(Table(columns("a", "bb"))) == ["a  bb"]  # no rows: the header alone
    t.show_header = False
    assert to_plain(t)[0].startswith("fcfs")


def test_rich_rendering_carries_title_alignment_and_headers() -> None:
    buf = io.StringIO()
    console = Console(file=buf, width=60, color_system=None)
    console.print(to_rich(_sample()))
    text = buf.getvalue()
    assert "Tenants" in text.splitlines()[0]
    header = next(line for line in text.splitlines() if "tenant" in line)
    assert header.index("requests") > header.index("tenant")
    row = next(line for line in text.splitlines() if "1,024" in line)
    # right-aligned: the figure ends where its header ends
    assert row.index("1,024") + len("1,024") == header.index("requests") + len("requests")


def test_a_row_of_the_wrong_width_is_refused() -> None:
    with pytest.raises(ValueError, match="2 cells in a table of 3 columns"):
        _sample().add("x", "y")
