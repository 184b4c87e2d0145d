"""Traffic input and output at the edges (issue 34): standard input that is a device or
given twice, no usable request, file names that are not UTF-8, control characters from
the traffic, a reader that closes the pipe. Each ends with one line and the right exit
status (README: 2 for usage and input errors), never a traceback, a hang or exit 0."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.robustness.conftest import GOOD_LINE, TRAFFIC_COMMANDS, check_stderr, error_lines

COMMANDS = {**{name: argv for name, (argv, _) in TRAFFIC_COMMANDS.items()},
            "render": lambda f, extra: ["render", f, *extra]}


def _run(*argv: str, stdin=None, input: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "advisor", *argv], stdin=stdin, input=input, capture_output=True,
                          text=True, env={**os.environ, "ADVISOR_NO_PROGRESS": "1"}, timeout=120)  # a hang guard


def _one_error(err: str, pattern: str) -> None:
    check_stderr(err)
    [error] = error_lines(err)
    assert re.search(pattern, error), error


# --- standard input --------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["analyze", "render"])
def test_a_device_on_standard_input_is_refused_not_read_for_ever(command: str) -> None:
    with open("/dev/zero", "rb") as zero:
        res = _run(*COMMANDS[command]("-", []), stdin=zero)
    assert res.returncode == 2
    _one_error(res.stderr, r"<stdin>: is not a regular file or a pipe \(a device is never read as traffic\)")


def test_null_or_closed_standard_input_is_one_line() -> None:
    res = _run("analyze", "-", stdin=subprocess.DEVNULL)  # /dev/null: a device too
    assert res.returncode == 2
    _one_error(res.stderr, r"<stdin>: is not a regular file or a pipe")
    res = subprocess.run(f"exec {sys.executable} -m advisor analyze - <&-", shell=True, capture_output=True, text=True,
                         env={**os.environ, "ADVISOR_NO_PROGRESS": "1"}, timeout=120)
    assert res.returncode == 2
    _one_error(res.stderr, r"<stdin>: is closed; pipe or redirect the traffic in")


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_standard_input_twice_is_a_usage_error(command: str, cli) -> None:
    argv = COMMANDS[command]("-", ["-t", "-"] if command == "report" else ["-"])
    res = cli(*argv)
    assert res.code == 2 and res.out == ""
    _one_error(res.err, r"'-' \(standard input\) is given twice; it can be read once")


def test_a_pipe_or_a_redirected_file_on_standard_input_is_read(tmp_path: Path) -> None:
    res = _run("analyze", "-", "-f", "json", input=GOOD_LINE * 2)
    assert res.returncode == 0 and json.loads(res.stdout)["requests"] == 2, res.stderr
    traffic = tmp_path / "t.jsonl"
    traffic.write_text(GOOD_LINE * 3)
    with traffic.open("rb") as handle:
        res = _run("analyze", "-", "-f", "json", stdin=handle)
    assert res.returncode == 0 and json.loads(res.stdout)["requests"] == 3, res.stderr


# --- no usable request -----------------------------------------------------------------------


def _batch_output(path: Path) -> Path:
    row = {"id": "batch_req_1", "custom_id": "r1", "response": {"status_code": 200, "body": {
        "usage": {"prompt_tokens": 40, "completion_tokens": 5, "prompt_tokens_details": {"cached_tokens": 32}}}}}
    path.write_text(json.dumps(row) + "\n")
    return path


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_no_usable_request_is_an_error_naming_the_file(command: str, tmp_path: Path, cli) -> None:
    traffic = tmp_path / "t.jsonl"
    traffic.write_text(GOOD_LINE * 2)
    cases = [
        (COMMANDS[command](_batch_output(tmp_path / "out.jsonl"), []),
         r"out\.jsonl: no requests, only observed counts \(an OpenAI Batch output file holds no prompts: give its "
         r"batch input file too\)"),
    ]
    if command not in ("prescribe", "report"):  # the commands that take --input-format
        cases.append((COMMANDS[command](traffic, ["--input-format", "vllm-log"]),
                      rf"{re.escape(str(traffic))}: no requests in its 2 lines read as vllm-log \(--input-format "
                      r"vllm-log; auto detects the format\)"))
    if command != "render":  # render shows each skipped record and its reason instead
        bad = tmp_path / "bad.jsonl"
        bad.write_text('{"prompt": 1}\n{"messages": []}\n')
        cases.append((COMMANDS[command](bad, []), r"bad\.jsonl: no usable requests \(2 records skipped, for the "
                                                  r"reasons above\)"))
    for argv, reason in cases:
        res = cli(*argv)
        assert res.code == 2 and res.out == "", (argv, res.err)
        _one_error(res.err, reason)


@pytest.mark.parametrize("command", ["simulate", "verify"])
def test_a_warmup_that_leaves_nothing_measured_is_a_usage_error(command: str, tmp_path: Path, cli) -> None:
    traffic = tmp_path / "t.jsonl"
    traffic.write_text('{"prompt": "hello", "cached_tokens": 0}\n' * 3)
    extra = ["--engine", "sglang"] if command == "verify" else []
    res = cli(command, traffic, "--warmup", "1.0", *extra)
    assert res.code == 2 and res.out == ""
    _one_error(res.err, r"--warmup must be below 1 \(got 1\): at 1 no request is measured")
    assert cli(command, traffic, "--warmup", "0.5", "-f", "json", *extra).code == 0


# --- file names that are not UTF-8 -----------------------------------------------------------


def _written(command: str, traffic: Path, out: Path) -> list[tuple[list, str]]:
    if command == "report":
        return [(["report", "-t", traffic, "-o", out], "markdown")]
    text = ["render", traffic, "-o", out] if command == "render" else [command, traffic, "-f", "markdown", "-o", out]
    return [([command, traffic, "-f", "json", "-o", out], "json"), (text, "text")]


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_file_name_that_is_not_utf8_is_written_escaped(command: str, tmp_path: Path, cli) -> None:
    """Written as Python's stderr shows it (``caf\\udce9.jsonl``): the output stays UTF-8,
    the same bytes under any locale, and the JSON string is the name itself."""
    traffic = Path(os.fsdecode(bytes(tmp_path) + b"/caf\xe9.jsonl"))
    traffic.write_text(GOOD_LINE * 2)
    shown = str(traffic).encode("utf-8", "backslashreplace").decode()
    out = tmp_path / "out"
    for argv, kind in _written(command, traffic, out):
        res = cli(*argv)
        check_stderr(res.err)
        assert res.code == 0, res.err
        text = out.read_text(encoding="utf-8")  # valid UTF-8
        if "caf" in text:  # where the output names the file
            assert str(traffic) in json.dumps(json.loads(text), ensure_ascii=False) if kind == "json" else shown in text
    if command != "report":
        res = cli(*COMMANDS[command](traffic, []))  # stdout: a strict UTF-8 stream under pytest
        assert res.code == 0, res.err


# --- control characters from the traffic -----------------------------------------------------

ESCAPES = "\x1b]0;owned\x07 \x1b[31mred\x1b[0m \x9b2J \rover"


def test_render_shows_control_characters_escaped(tmp_path: Path, cli) -> None:
    traffic = tmp_path / "t.jsonl"
    traffic.write_text(json.dumps({"prompt": ESCAPES}) + "\n")
    text = cli("render", traffic)
    assert text.code == 0 and not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f]", text.out), repr(text.out)
    assert "\\u001b]0;owned\\u0007 \\u001b[31mred\\u001b[0m \\u009b2J \\u000dover" in text.out
    data = json.loads(cli("render", traffic, "-f", "json").out)  # JSON: the same text, escaped by JSON
    assert data["records"][0]["text"] == "<|begin_of_text|>" + ESCAPES


def test_reports_and_skip_lines_show_control_characters_escaped(tmp_path: Path, cli) -> None:
    traffic = tmp_path / "t.jsonl"
    prompt = ESCAPES + " shared header" * 20
    bad_role = {"messages": [{"role": "x\x1b[2J\nnext", "content": "hi"}]}
    traffic.write_text((json.dumps({"prompt": prompt}) + "\n") * 3 + json.dumps(bad_role) + "\n")
    for fmt in ("text", "markdown"):
        res = cli("analyze", traffic, "-f", fmt)
        assert res.code == 1
        assert "\x1b" not in res.out and "\x9b" not in res.out and "\x1b" not in res.err
        assert "\\u001b[31mred" in res.out  # the shared branch's text, shown
    skip = [ln for ln in res.err.splitlines() if ln.startswith(f"{traffic}:4: ")]
    assert skip == [f"{traffic}:4: messages[0] has unknown role 'x\\u001b[2J\\u000anext'"]  # one line


# --- a reader that closes the pipe -----------------------------------------------------------


@pytest.mark.parametrize("argv,reads", [(["render"], True), (["analyze"], False), (["render", "-f", "json"], True)])
def test_a_closed_output_pipe_ends_quietly_with_141(argv: list[str], reads: bool, tmp_path: Path) -> None:
    """As `cat` ended by SIGPIPE (the shell's 141), without a traceback or an error line.
    Python's unbuffered mode (PYTHONUNBUFFERED) loses the rest of a write in silence
    instead, so the test runs without it. ``reads``: the reader takes the first bytes, then
    closes, which only blocks the writer (and so is sure to part it from its reader) where
    the output is larger than the pipe holds (render's, ~270 KB); analyze writes ~2 KB, all of
    which a pipe takes at once, so its reader closes before the first write."""
    traffic = tmp_path / "t.jsonl"
    traffic.write_text("".join(json.dumps({"prompt": f"hello {i}"}) + "\n" for i in range(3000)))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    proc = subprocess.Popen([sys.executable, "-m", "advisor", argv[0], str(traffic), *argv[1:]],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**env, "ADVISOR_NO_PROGRESS": "1"})
    assert proc.stdout is not None and proc.stderr is not None
    if reads:
        assert proc.stdout.read(10)
    proc.stdout.close()
    assert proc.wait(timeout=120) == 141
    assert proc.stderr.read() == b""
