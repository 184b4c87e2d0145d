"""Progress of reading traffic on stderr: a bar by bytes on a terminal, a plain line now and
then elsewhere (CI), nothing under ADVISOR_NO_PROGRESS; stdout never changes."""

from __future__ import annotations

import gzip
import json
from array import array
from collections.abc import Iterator
from pathlib import Path

import pytest

from advisor.commands import common
from advisor.ingest import source
from advisor.ingest.pipeline import Sequence
from advisor.ingest.source import LineOffsets, Reading
from advisor.ingest.traffic import Request

LINE = 100  # bytes of each line written below, newline included


def _file(path: Path, lines: int) -> Path:
    # Records of one length: line k starts at byte (k - 1) * LINE.
    rows = [json.dumps({"prompt": f"request {i:06d} " + "x" * 40}) for i in range(lines)]
    path.write_text("".join(r.ljust(LINE - 1) + "\n" for r in rows))
    return path


def _seqs(path: Path | str, lines: range) -> Iterator[Sequence]:
    for n in lines:
        yield Sequence(Request(str(path), n, "prompt", prompt="x"), "tokens", array("I", [1]), 1)


class Clock:
    """A clock that moves on ``step`` seconds each time it is read."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def test_the_plain_line_comes_each_interval_with_the_share_of_bytes_read(tmp_path, capsys) -> None:
    path = _file(tmp_path / "traffic.jsonl", 50)
    reading = Reading()
    # Read once at the start, then once per request: a line at requests 10, 20, 30, 40, 50.
    out = list(common.progress_lines(_seqs(path, range(1, 51)), reading, Clock(1.0), 9.5))
    reading.close()
    assert len(out) == 50
    captured = capsys.readouterr()
    assert captured.out == ""
    name = str(path)
    assert captured.err.splitlines() == [
        f"advisor: reading {name}: 18% (10 requests)",  # line 10 starts at byte 900 of 5,000
        f"advisor: reading {name}: 38% (20 requests)",
        f"advisor: reading {name}: 58% (30 requests)",
        f"advisor: reading {name}: 78% (40 requests)",
        f"advisor: reading {name}: 98% (50 requests)",
        f"advisor: read {name}: 100% (50 requests)",
    ]


def test_a_run_shorter_than_the_interval_writes_nothing(tmp_path, capsys) -> None:
    path = _file(tmp_path / "t.jsonl", 20)
    assert len(list(common.progress_lines(_seqs(path, range(1, 21)), Reading(), Clock(0.0), 10.0))) == 20
    assert capsys.readouterr().err == ""


def test_each_file_gets_its_closing_line_when_the_next_one_starts(tmp_path, capsys) -> None:
    a, b = _file(tmp_path / "a.jsonl", 4), _file(tmp_path / "b.jsonl", 4)
    items = [*_seqs(a, range(1, 5)), *_seqs(b, range(1, 5))]
    list(common.progress_lines(iter(items), Reading(), Clock(1.0), 2.5))
    assert capsys.readouterr().err.splitlines() == [
        f"advisor: reading {a}: 50% (3 requests)",
        f"advisor: read {a}: 100% (4 requests)",
        f"advisor: reading {b}: 25% (2 requests)",
        f"advisor: read {b}: 100% (4 requests)",
    ]


def test_a_file_without_a_size_to_measure_gets_counts_only(tmp_path, capsys) -> None:
    gz = tmp_path / "t.jsonl.gz"
    gz.write_bytes(gzip.compress(_file(tmp_path / "plain.jsonl", 6).read_bytes()))
    list(common.progress_lines(_seqs(gz, range(1, 7)), Reading(), Clock(1.0), 2.5))
    list(common.progress_lines(_seqs("<stdin>", range(1, 4)), Reading(), Clock(1.0), 2.5))
    assert capsys.readouterr().err.splitlines() == [
        f"advisor: reading {gz}: 3 requests",
        f"advisor: reading {gz}: 6 requests",
        f"advisor: read {gz}: 6 requests",
        "advisor: reading <stdin>: 3 requests",
        "advisor: read <stdin>: 3 requests",
    ]


def test_line_offsets_follow_the_reader_within_a_chunk(tmp_path, monkeypatch) -> None:
    # Chunks smaller than a line and not aligned with lines: each offset is within one chunk
    # of the truth, never goes back, and the end is the file's size.
    monkeypatch.setattr(source, "OFFSET_CHUNK", 37)
    path = _file(tmp_path / "t.jsonl", 30)
    offsets = LineOffsets(path)
    assert offsets.size == 30 * LINE
    seen = [offsets.offset(k) for k in range(1, 31)]
    assert all(abs(got - (k - 1) * LINE) <= 37 for k, got in zip(range(1, 31), seen))
    assert seen == sorted(seen)
    assert offsets.offset(10) == seen[-1]  # an earlier line (held lines of a log) never moves it back
    assert offsets.offset(10_000) == 30 * LINE
    offsets.close()


def test_a_pipe_is_never_opened_a_second_time(tmp_path) -> None:
    import os

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert LineOffsets(fifo).size is None  # (opening it for reading would wait for a writer)


def test_the_bar_is_driven_by_bytes_of_each_file(tmp_path, monkeypatch) -> None:
    made: list[tuple[str, float | None]] = []
    done: list[float] = []

    class Spy(common.Progress):
        def add_task(self, description, *args, total=100.0, **kwargs):
            made.append((description, total))
            return super().add_task(description, *args, total=total, **kwargs)

        def update(self, task_id, *args, completed=None, **kwargs):
            if completed is not None:
                done.append(completed)
            super().update(task_id, *args, completed=completed, **kwargs)

    monkeypatch.setattr(common, "Progress", Spy)
    monkeypatch.setattr(common, "progress_mode", lambda: "bar")
    monkeypatch.setattr(common, "BAR_EVERY", 10)
    path = _file(tmp_path / "t.jsonl", 40)
    items = [*_seqs(path, range(1, 41)), *_seqs("<stdin>", range(1, 3))]
    assert list(common.with_progress(iter(items), "analyze")) == items
    assert made == [(f"analyze: reading {path}", 40 * LINE), ("analyze: reading <stdin>", None)]
    assert done == [900, 1900, 2900, 3900]  # the starts of lines 10, 20, 30 and 40


def test_no_progress_at_all_when_asked(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("ADVISOR_NO_PROGRESS", "1")
    monkeypatch.setattr(common, "PROGRESS_INTERVAL", 0.0)
    path = _file(tmp_path / "t.jsonl", 5)
    assert len(list(common.with_progress(_seqs(path, range(1, 6)), "analyze"))) == 5
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("command", [("analyze",), ("simulate", "--capacity-tokens", "100000")])
def test_a_non_terminal_gets_lines_on_stderr_and_the_same_stdout(cli, tmp_path, monkeypatch, command) -> None:
    path = _file(tmp_path / "traffic.jsonl", 6)
    quiet = cli(*command, path, "--format", "json")
    assert quiet.code == 0 and quiet.err == ""  # conftest sets ADVISOR_NO_PROGRESS
    monkeypatch.delenv("ADVISOR_NO_PROGRESS")
    monkeypatch.setattr(common, "PROGRESS_INTERVAL", 0.0)  # a line at every request
    shown = cli(*command, path, "--format", "json")
    assert shown.code == 0
    assert shown.out == quiet.out
    lines = shown.err.splitlines()
    assert lines[0] == f"advisor: reading {path}: 0% (1 requests)"
    assert lines[-2:] == [f"advisor: reading {path}: 83% (6 requests)", f"advisor: read {path}: 100% (6 requests)"]
