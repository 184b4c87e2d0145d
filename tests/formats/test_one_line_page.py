"""Issue 35: a Langfuse API page saved on one line (``curl .../api/public/observations >
page.json``) reads as the same page pretty-printed does."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from advisor.ingest import traffic
from advisor.ingest.formats import iter_requests, sniff


def _generation(i: int, text: str = "") -> dict[str, Any]:
    # Field names as the public API returns them (docs: /api/public/observations).
    return {"id": f"g{i}", "traceId": f"t{i}", "type": "GENERATION", "startTime": f"2025-12-01T08:00:0{i}Z",
            "input": [{"role": "system", "content": "You are terse."}, {"role": "user", "content": f"q{i} {text}"}],
            "usageDetails": {"input": 12, "output": 3 + i, "input_cached_tokens": i}}


PAGE = {"data": [_generation(1),
                 {"id": "s", "traceId": "t1", "type": "SPAN", "startTime": "2025-12-01T08:00:01Z", "input": "q"},
                 {"id": "bad", "traceId": "t2", "type": "GENERATION", "startTime": "2025-12-01T08:00:02Z",
                  "input": None},
                 _generation(3)],
        "meta": {"page": 1, "limit": 50, "totalItems": 4, "totalPages": 1}}


def _read(path: Path) -> tuple[list[traffic.Request], list[str]]:
    skips: list[traffic.Skip] = []
    reqs = list(iter_requests([path], skips.append, 512, None))
    # The same records whichever file they came from: compared without the file name.
    return [dataclasses.replace(r, source="page") for r in reqs], [f"{s.line}: {s.reason}" for s in skips]


@pytest.mark.parametrize("layout", ["one line", "one line and a newline", "pretty-printed"])
def test_a_page_reads_the_same_on_one_line_and_pretty_printed(tmp_path: Path, layout: str) -> None:
    text = {"one line": json.dumps(PAGE, separators=(",", ":")), "one line and a newline": json.dumps(PAGE) + "\n",
            "pretty-printed": json.dumps(PAGE, indent=2)}[layout]
    path = tmp_path / "page.json"
    path.write_text(text)
    # Decided from its first line (a pretty-printed document is decided as it streams).
    assert sniff(path) == (None if layout == "pretty-printed" else "langfuse")
    reqs, skips = _read(path)
    assert [(r.id, r.line, r.timestamp, r.output_length, r.cached_tokens) for r in reqs] == [
        ("g1", 1, 1764576001.0, 4, 1), ("g3", 1, 1764576003.0, 6, 3)]
    assert reqs[1].messages == ({"role": "system", "content": "You are terse."}, {"role": "user", "content": "q3 "})
    assert skips == ["1: item 3: generation has no recorded input"]
    # Byte for byte the records of the other layouts.
    other = tmp_path / "other.json"
    other.write_text(json.dumps(PAGE, indent=2) if layout != "pretty-printed" else json.dumps(PAGE))
    assert _read(other) == (reqs, skips)


def test_pages_appended_one_per_line_are_read_page_by_page(tmp_path: Path) -> None:
    second = {"data": [_generation(5)], "meta": {"page": 2, "totalPages": 2}}
    path = tmp_path / "pages.jsonl"
    path.write_text(json.dumps(PAGE) + "\n" + json.dumps(second))
    reqs, skips = _read(path)
    assert [(r.id, r.line) for r in reqs] == [("g1", 1), ("g3", 1), ("g5", 2)]
    assert skips == ["1: item 3: generation has no recorded input"]


def test_the_command_reads_a_one_line_page(cli, tmp_path: Path) -> None:
    path = tmp_path / "page.json"
    path.write_text(json.dumps({"data": [_generation(1), _generation(2)], "meta": {"page": 1}}))
    res = cli("analyze", path, "--no-diagnose", "-f", "json")
    assert res.code == 0, res.err
    assert json.loads(res.out)["requests"] == 2


def test_a_one_line_page_keeps_the_line_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Over the cap of one line the page is dropped as it is read, never decoded whole; the
    # pretty-printed page over the cap is refused the same way (test_bounded_input.py).
    monkeypatch.setattr(traffic, "MAX_LINE_BYTES", 1 << 20)
    path = tmp_path / "page.json"
    path.write_text(json.dumps({"data": [_generation(i, "lorem " * 1000) for i in range(300)], "meta": {}}))
    assert path.stat().st_size > 1 << 20
    reqs, skips = _read(path)
    assert reqs == [] and skips == ["1: line is over 1 MiB (no request is that long)"]
