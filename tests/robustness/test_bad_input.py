"""Bad input on every command: a one-line report naming the file (and line), the right
exit code, no traceback, and the good records of the same file still counted.

The cases are data (``cases.yaml``); each table has one parametrised runner here.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.robustness.conftest import (
    CASES, GOOD_LINE, TRAFFIC_COMMANDS, build_text, build_traffic, check_stderr, error_lines,
)


def _ids(table: str) -> list:
    return [pytest.param(c, id=c["name"]) for c in CASES[table]]


# A template that lints to one info finding (a clock before a few static tokens), so the
# output names it whenever it was linted beside a bad input.
GOOD = "At {{ strftime_now('%H:%M') }}:\nYou are a careful assistant.\n{{ question }}\n"


# --- traffic files ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def traffic_files(tmp_path_factory):
    """Each traffic case written once (the 50 MB line and gzip cases are not cheap)."""
    folder = tmp_path_factory.mktemp("traffic")
    out = {}
    for case in CASES["traffic"]:
        path = folder / (case["name"] + case.get("suffix", ".jsonl"))
        out[case["name"]] = (path, *build_traffic(case, path))
    return out


def _check_traffic_run(res, path: Path, good: int, skips: dict, error: str | None, count) -> None:
    lines = check_stderr(res.err)
    if error is not None:
        assert res.code == 2, res.err
        errors = error_lines(res.err)
        assert len(errors) == 1, res.err
        assert str(path) in errors[0] and re.search(error, errors[0]), errors[0]
        assert res.out == ""
        return
    shown = {int(m.group(2)): m.group(3) for m in (re.match(r"^(.+?):(\d+): (.+)$", ln) for ln in lines)
             if m and m.group(1) == str(path)}
    for line, reason in skips.items():
        assert line in shown, f"no skip reported for line {line}: {res.err}"
        assert re.search(reason, shown[line]), shown[line]
    assert set(shown) == set(skips), res.err
    assert res.code == (1 if skips else 0), res.err
    if good:
        assert count(json.loads(res.out)) == good
    else:
        assert error_lines(res.err), res.err  # nothing usable: a clear error besides the skips


@pytest.mark.parametrize("command", sorted(TRAFFIC_COMMANDS))
@pytest.mark.parametrize("case", _ids("traffic"))
def test_traffic_case(case, command, traffic_files, cli):
    path, good, skips = traffic_files[case["name"]]
    argv, count = TRAFFIC_COMMANDS[command]
    res = cli(*argv(path, []))
    _check_traffic_run(res, path, good, skips, case.get("error"), count)


# --- prompt templates named by `template` records ---------------------------------------------


@pytest.mark.parametrize("command", sorted(TRAFFIC_COMMANDS))
@pytest.mark.parametrize("case", _ids("templates"))
def test_template_case(case, command, tmp_path, cli):
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "ok.j2").write_text("You are a careful assistant. Question: {{ q }}")
    (folder / case["file"]).write_bytes(build_text(case))
    name = case["file"].split(".")[0]
    traffic = tmp_path / "traffic.jsonl"
    traffic.write_text(
        GOOD_LINE
        + json.dumps({"template": name, "variables": {"q": "why?"}}) + "\n"
        + json.dumps({"template": "ok", "variables": {"q": "how?"}}) + "\n"
    )
    argv, count = TRAFFIC_COMMANDS[command]
    res = cli(*argv(traffic, ["--templates", folder]))
    _check_traffic_run(res, traffic, 2, {2: case["reason"]}, None, count)
    skip = next(ln for ln in res.err.splitlines() if ln.startswith(f"{traffic}:2: "))
    assert str(folder / case["file"]) in skip


# --- chat templates (--chat-template) ---------------------------------------------------------


def _chat_traffic(tmp_path: Path) -> Path:
    traffic = tmp_path / "chat.jsonl"
    traffic.write_text(
        GOOD_LINE
        + json.dumps({"messages": [{"role": "user", "content": "hi"}]}) + "\n"
        + GOOD_LINE
    )
    return traffic


@pytest.mark.parametrize("command", sorted(TRAFFIC_COMMANDS))
def test_chat_template_syntax_error_is_one_line_exit_2(command, tmp_path, cli):
    chat = tmp_path / "chat.jinja"
    chat.write_text("{% for m in messages %}\n{{ m.content }\n{% endfor %}")
    argv, _ = TRAFFIC_COMMANDS[command]
    res = cli(*argv(_chat_traffic(tmp_path), ["--chat-template", chat]))
    check_stderr(res.err)
    assert res.code == 2
    [error] = error_lines(res.err)
    assert re.search(rf"{re.escape(str(chat))}:2: chat template syntax error", error), error


@pytest.mark.parametrize("command", sorted(TRAFFIC_COMMANDS))
def test_chat_template_escape_skips_the_messages_records(command, tmp_path, cli):
    chat = tmp_path / "evil.jinja"
    chat.write_text("{{ cycler.__init__.__globals__.os.popen('id').read() }}{% for m in messages %}{{ m.content }}{% endfor %}")
    traffic = _chat_traffic(tmp_path)
    argv, count = TRAFFIC_COMMANDS[command]
    res = cli(*argv(traffic, ["--chat-template", chat]))
    _check_traffic_run(res, traffic, 2, {2: rf"{re.escape(str(chat))}: template refused by the sandbox"}, None, count)


def test_missing_and_folder_inputs_are_usage_errors(tmp_path, cli):
    for command, (argv, _) in TRAFFIC_COMMANDS.items():
        for path in (tmp_path / "absent.jsonl", tmp_path):
            res = cli(*argv(path, []))
            check_stderr(res.err)
            assert res.code == 2, (command, res.err)
            [error] = error_lines(res.err)
            assert str(path) in error


def test_bad_and_good_files_together(traffic_files, cli):
    """A broken file among good ones: the good files still count (one error, not lost work)."""
    bad, good_n, skips = traffic_files["several-bad-lines"]
    gz, gz_good, gz_skips = traffic_files["truncated-gzip"]
    res = cli("analyze", bad, gz, "-f", "json")
    check_stderr(res.err)
    assert res.code == 1
    assert json.loads(res.out)["requests"] == good_n + gz_good
    assert json.loads(res.out)["skipped"] == len(skips) + len(gz_skips)


# --- lint -------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", _ids("lint"))
def test_lint_case(case, tmp_path, cli):
    path = tmp_path / case["file"]
    path.write_bytes(build_text(case))
    (tmp_path / "good.j2").write_text(GOOD)
    res = cli("lint", "--isolated", "--format", "concise", path, tmp_path / "good.j2")
    check_stderr(res.err)
    codes = case["code"] if isinstance(case["code"], list) else [case["code"]]
    assert res.code in codes, res.out + res.err
    if "error" in case:
        [error] = error_lines(res.err)
        assert re.search(case["error"], error), error
    if "finding" in case:
        assert re.search(case["finding"], res.out), res.out
    if res.code != 2:
        # The good file beside it was linted too.
        assert "good.j2" in res.out


@pytest.mark.parametrize("case", _ids("lint_config"))
def test_lint_config_case(case, tmp_path, cli, monkeypatch):
    config = tmp_path / case["file"]
    config.write_bytes(build_text(case))
    (tmp_path / "good.j2").write_text(GOOD)
    monkeypatch.chdir(tmp_path)
    # Explicit --config and discovery from the working folder both report it.
    runs = [["lint", "--config", str(config), "good.j2"]] + ([] if case.get("named_only") else [["lint", "good.j2"]])
    for argv in runs:
        res = cli(*argv)
        check_stderr(res.err)
        assert res.code == 2, res.out + res.err
        [error] = error_lines(res.err)
        assert re.search(case["error"], error), error
        assert res.out == ""


# --- cost -------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", _ids("cost"))
def test_cost_case(case, tmp_path, cli):
    path = tmp_path / case["file"]
    path.write_bytes(build_text(case))
    res = cli("cost", "--model", path, "--gpu", "h100", "--format", "json")
    check_stderr(res.err)
    assert res.code == 2, res.out + res.err
    [error] = error_lines(res.err)
    assert re.search(case["error"], error), error


@pytest.mark.parametrize("args", [["--tp", "0"], ["--batch", "-1"], ["--mfu", "nan"], ["--mem-fraction", "2"],
                                  ["--kv-dtype", "int3"], ["--gpu", "abacus"], ["--model", "no-such-model"]])
def test_cost_bad_options(args, cli):
    opts = {"--model": "llama-3.1-8b", "--gpu": "h100"}
    flat = [x for k, v in opts.items() if k not in args for x in (k, v)]
    res = cli("cost", *flat, *args)
    check_stderr(res.err)
    assert res.code == 2 and len(error_lines(res.err)) == 1, res.err


# --- a real terminal: no traceback reaches it -------------------------------------------------


def _run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "ADVISOR_NO_PROGRESS": "1"}
    return subprocess.run([sys.executable, "-m", "advisor", *args], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=120)


def test_subprocess_runs_print_no_traceback(tmp_path, traffic_files):
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_bytes(
        GOOD_LINE.encode() + b'{"input_ids": [1, 99999999]}\n{"messages": [{"role": "x"}]}\n\xff\xfe\n'
        + b'{"messages": [{"role": "assistant", "tool_calls": 3}]}\n' + GOOD_LINE.encode()
    )
    res = _run("analyze", str(mixed), "-f", "json")
    check_stderr(res.stderr)
    assert res.returncode == 1 and json.loads(res.stdout)["requests"] == 2

    deep = tmp_path / "deep.j2"
    deep.write_text("{{ " + "(" * 5000 + "1" + ")" * 5000 + " }}")
    res = _run("lint", "--isolated", str(deep))
    check_stderr(res.stderr)
    assert res.returncode == 1 and "PC001" in res.stdout

    config = tmp_path / "deep.json"
    config.write_bytes(b"[" * 100_000 + b"]" * 100_000)
    res = _run("cost", "--model", str(config), "--gpu", "h100")
    check_stderr(res.stderr)
    assert res.returncode == 2

    empty, _, _ = traffic_files["empty-file"]
    res = _run("simulate", str(empty))
    check_stderr(res.stderr)
    assert res.returncode == 2 and res.stderr.count("\n") == 1


# --- output destinations ----------------------------------------------------------------------


def _with_output(command: str, path: Path, output: str) -> list[str]:
    if command == "lint":
        return ["lint", "--isolated", str(path.parent / "ok.j2"), "-o", output]
    if command == "report":
        return ["report", "-t", str(path), "-o", output]
    return [command, str(path), "-f", "json", "-o", output]


@pytest.mark.parametrize("command", sorted(TRAFFIC_COMMANDS) + ["lint"])
def test_unwritable_output_is_one_line_error(command, tmp_path, cli):
    traffic = tmp_path / "t.jsonl"
    traffic.write_text(GOOD_LINE * 2)
    (tmp_path / "ok.j2").write_text("You are a careful assistant.\n{{ q }}\n")
    for output, reason in ((tmp_path, "is a folder"), ("/proc/no/such/out.json", "folder /proc/no/such does not exist"),
                           ("/dev/full", "cannot write output \\(No space left on device\\)")):
        res = cli(*_with_output(command, traffic, str(output)))
        check_stderr(res.err)
        assert res.code == 2, (output, res.err)
        [error] = error_lines(res.err)
        assert re.search(reason, error), error
    assert Path("/dev/full").is_char_device()  # written in place, never renamed over


def test_device_and_symlink_destinations(tmp_path):
    traffic = tmp_path / "t.jsonl"
    traffic.write_text(GOOD_LINE * 2)
    res = _run("analyze", str(traffic), "-f", "json", "-o", "/dev/stdout")
    assert res.returncode == 0 and json.loads(res.stdout)["requests"] == 2
    assert Path("/dev/null").is_char_device()
    target = tmp_path / "real.json"
    link = tmp_path / "link.json"
    link.symlink_to(target)
    res = _run("analyze", str(traffic), "-f", "json", "-o", str(link))
    assert res.returncode == 0 and link.is_symlink() and json.loads(target.read_text())["requests"] == 2


@pytest.mark.parametrize("args", [["--timestamp-unit", "weeks"], ["--rate", "-1"], ["--rate", "nan"],
                                  ["--prefill-token-seconds", "nan"], ["--decode-step-seconds", "inf"],
                                  ["--policy", "fastest"], ["--eviction", "mru"], ["--engine", "trt"],
                                  ["--router", "psychic"], ["--mode", "batch"], ["--model", "llama-3.1-8b"]])
def test_simulate_bad_options_are_usage_errors(args, tmp_path, cli):
    traffic = tmp_path / "t.jsonl"
    traffic.write_text(GOOD_LINE * 2)
    res = cli("simulate", traffic, *args)
    check_stderr(res.err)
    assert res.code == 2 and len(error_lines(res.err)) == 1, res.err
    assert res.out == ""
