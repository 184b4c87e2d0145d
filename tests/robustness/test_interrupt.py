"""Ctrl-C (SIGINT) during a run with --output leaves no partial file behind: every command
writes through ``emit``/``emit_bytes`` (a temporary file in the same folder, then a rename)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from advisor.commands import common
from advisor.errors import AdvisorError
from tests.robustness.conftest import GOOD_LINE, TRAFFIC_COMMANDS, check_stderr


def _default_sigint() -> None:
    # A shell starts background jobs (`make test &`, CI wrappers) with SIGINT ignored, and
    # Python keeps an inherited SIG_IGN, as a background job should; the command under
    # test must see Ctrl-C the way it does in a terminal.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _argv(command: str, traffic: Path, output: Path) -> list[str]:
    if command == "report":
        return ["report", "-t", str(traffic), "-o", str(output)]
    return [command, str(traffic), "-f", "json", "-o", str(output)]


@pytest.mark.parametrize("command", sorted(TRAFFIC_COMMANDS))
def test_sigint_while_reading_leaves_no_output(command, tmp_path):
    """The traffic comes through a FIFO we hold open: the command is surely mid-run,
    blocked on reading, when SIGINT arrives."""
    fifo = tmp_path / "traffic.jsonl"
    os.mkfifo(fifo)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    output = out_dir / "result.json"
    proc = subprocess.Popen([sys.executable, "-m", "advisor", *_argv(command, fifo, output)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "ADVISOR_NO_PROGRESS": "1"}, preexec_fn=_default_sigint)
    try:
        with fifo.open("w") as writer:  # blocks until the command opens the FIFO
            writer.write(GOOD_LINE * 300)
            writer.flush()
            time.sleep(1.0)
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    check_stderr(err)
    assert proc.returncode == 130, err
    assert "advisor: interrupted" in err
    assert list(out_dir.iterdir()) == []


def test_interrupt_during_the_write_keeps_the_previous_file(tmp_path, monkeypatch):
    output = tmp_path / "report.json"
    output.write_text("the previous report\n")
    real_fdopen = os.fdopen

    class Interrupting:
        def __init__(self, handle):
            self.handle = handle

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.handle.close()

        def write(self, data):
            self.handle.write(data[: len(data) // 2])
            raise KeyboardInterrupt

    monkeypatch.setattr(common.os, "fdopen", lambda fd, mode: Interrupting(real_fdopen(fd, mode)))
    with pytest.raises(KeyboardInterrupt):
        common.emit("x" * 10_000, output)
    assert output.read_text() == "the previous report\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]


def test_emit_writes_whole_files_with_normal_permissions(tmp_path):
    output = tmp_path / "deep" / "er" / "out.md"
    # A missing folder is refused, never made (issue 35: a typo would hide the report).
    with pytest.raises(AdvisorError, match=r"folder .*/deep/er does not exist"):
        common.emit("hello\n", output)
    assert not (tmp_path / "deep").exists()
    output.parent.mkdir(parents=True)
    common.emit("hello\n", output)
    assert output.read_text() == "hello\n"
    assert output.stat().st_mode & 0o777 == 0o666 & ~_umask()
    assert [p.name for p in output.parent.iterdir()] == ["out.md"]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_ctrl_c_to_the_process_group_with_workers(tmp_path):
    """A terminal's Ctrl-C signals every process of the group: the partition workers stay
    quiet (no multiprocessing traceback), the run exits 130 and leaves no file."""
    fifo = tmp_path / "traffic.jsonl"
    os.mkfifo(fifo)
    output = tmp_path / "out.json"
    proc = subprocess.Popen([sys.executable, "-m", "advisor", "analyze", str(fifo), "-f", "json", "-o", str(output),
                             "--workers", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "ADVISOR_NO_PROGRESS": "1"}, start_new_session=True,
                            preexec_fn=_default_sigint)
    try:
        with fifo.open("w") as writer:
            writer.write(GOOD_LINE * 2000)
            writer.flush()
            time.sleep(1.5)
            os.killpg(proc.pid, signal.SIGINT)
            _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130
    assert err == "advisor: interrupted\n"
    assert not output.exists()
