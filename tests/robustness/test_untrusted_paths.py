"""Untrusted paths (issue 15, items 2, 4 and 5): regular files only, no escape from the
folder a file was found in, outputs that never replace what they should not, bounds on
the options that allocate. Every case is a one-line error or a skipped line, never a
hang (each run has a timeout) or a traceback."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from advisor.errors import AdvisorError
from advisor.ingest import safe_open
from tests.robustness.conftest import GOOD_LINE, check_stderr, error_lines

SECRET = "SECRET-7f3a-DO-NOT-LEAK"


def _run(*args: str, cwd: Path | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    env = {**os.environ, "ADVISOR_NO_PROGRESS": "1"}
    return subprocess.run([sys.executable, "-m", "advisor", *map(str, args)], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=timeout)


# A template that lints to one info finding (a clock before a few static tokens), so the
# output names it whenever it was linted beside a bad input.
GOOD = "At {{ strftime_now('%H:%M') }}:\nYou are a careful assistant.\n{{ question }}\n"


# --- safe_open itself -------------------------------------------------------------------------


def test_safe_open_refuses_devices_fifos_folders_and_escapes(tmp_path):
    (tmp_path / "ok.j2").write_text("fine")
    os.mkfifo(tmp_path / "fifo.j2")
    (tmp_path / "zero.j2").symlink_to("/dev/zero")
    (tmp_path / "out.j2").symlink_to(tmp_path.parent)
    assert safe_open.read_text(tmp_path / "ok.j2", max_bytes=10, within=tmp_path) == "fine"
    cases = {
        "fifo.j2": "is a FIFO",  # opened O_NONBLOCK: returns at once, then refused
        "zero.j2": "outside",
        "out.j2": "outside",
    }
    for name, reason in cases.items():
        start = time.perf_counter()
        with pytest.raises(AdvisorError, match=reason):
            safe_open.read_text(tmp_path / name, max_bytes=1 << 20, within=tmp_path)
        assert time.perf_counter() - start < 2
    with pytest.raises(AdvisorError, match="character device"):
        safe_open.read_bytes("/dev/zero", max_bytes=1 << 20)
    with pytest.raises(AdvisorError, match="folder"):
        safe_open.read_bytes(tmp_path, max_bytes=1 << 20)
    (tmp_path / "big.j2").write_bytes(b"x" * 2048)
    with pytest.raises(AdvisorError, match="over the 1 KiB limit"):
        safe_open.read_bytes(tmp_path / "big.j2", max_bytes=1024)


@pytest.mark.parametrize("name,reason", [
    ("../x/secret", "path separator"), ("/etc/passwd", "path separator"), ("a\\b", "path separator"),
    ("..", "not a plain file name"), ("..hidden", "not a plain file name"), ("x" * 300, "300 characters long"),
    ("a\0b", "path separator"), ("", "empty"),
])
def test_record_template_names_are_plain_file_names(name, reason):
    with pytest.raises(AdvisorError, match=reason):
        safe_open.check_name(name)


# --- the planted secret: nothing outside the given folders is ever read ------------------------


@pytest.fixture
def planted(tmp_path):
    """A repository whose templates and traffic try every way out to a secret beside it."""
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET + "\n")
    (tmp_path / "secret.j2").write_text(SECRET)
    repo = tmp_path / "repo"
    templates = repo / "templates"
    traffic_dir = repo / "traffic"
    templates.mkdir(parents=True)
    traffic_dir.mkdir()
    (templates / "ok.j2").write_text("You are a careful assistant. Question: {{ q }}")
    (templates / "link.j2").symlink_to(secret)
    (templates / "abs.j2").symlink_to(tmp_path / "secret.j2")
    (templates / "dirlink").symlink_to(tmp_path)
    (templates / "inc.j2").write_text("A {% include 'link.j2' %} B")
    (templates / "inc2.j2").write_text("A {% include '../../secret.j2' %} B")
    (templates / "inc3.j2").write_text("A {% include 'dirlink/secret.j2' %} B")
    (templates / "inc4.j2").write_text("A {% include '" + str(tmp_path / "secret.j2") + "' %} B")
    (templates / "prompt.yaml").write_text("messages:\n  - role: user\n    content: \"{% include 'link.j2' %}\"\n")
    names = ["../secret", "../../secret", str(tmp_path / "secret"), "link", "abs", "inc", "inc2", "inc3", "inc4",
             "prompt", "dirlink/secret", "ok"]
    traffic = traffic_dir / "t.jsonl"
    traffic.write_text(GOOD_LINE + "".join(json.dumps({"template": n, "variables": {"q": "x"}}) + "\n" for n in names))
    chat = tmp_path / "repo" / "chat.jinja"
    chat.write_text("{% include 'link.j2' %}{% for m in messages %}{{ m.content }}{% endfor %}")
    return tmp_path, repo, templates, traffic, chat, len(names)


def _all_text(out: Path) -> str:
    return "\n".join(p.read_text(errors="replace") for p in out.iterdir() if p.is_file() and p.suffix != ".png")


def test_no_output_ever_contains_the_planted_secret(planted):
    tmp, repo, templates, traffic, chat, n = planted
    out = tmp / "out"
    out.mkdir()
    runs = {
        "analyze": ["analyze", traffic, "--templates", templates, "-f", "json", "-o", out / "analyze.json"],
        "analyze-near": ["analyze", traffic, "-f", "markdown", "-o", out / "analyze-near.md"],
        "analyze-chat": ["analyze", traffic, "--templates", templates, "--chat-template", chat, "-f", "json"],
        "simulate": ["simulate", traffic, "--templates", templates, "-f", "json", "-o", out / "simulate.json"],
        "prescribe": ["prescribe", traffic, "--templates", templates, "-f", "json", "-o", out / "prescribe.json"],
        "report": ["report", templates, "-t", traffic, "--record-templates", templates, "-f", "markdown",
                   "-o", out / "report.md"],
        "verify": ["verify", traffic, "--engine", "sglang", "--templates", templates, "-f", "json",
                   "-o", out / "verify.json"],
        "export": ["export", traffic, "--templates", templates, "-f", "mooncake", "--block-size", "16",
                   "-o", out / "export.jsonl"],
        "render": ["render", traffic, "--templates", templates, "-f", "json", "-o", out / "render.json"],
        "render-chat": ["render", traffic, "--templates", templates, "--chat-template", chat, "-f", "json"],
        "lint-file": ["lint", "--isolated", "--format", "json", templates / "inc.j2", templates / "inc2.j2",
                      templates / "inc3.j2", templates / "ok.j2"],
    }
    seen = []
    for name, argv in runs.items():
        res = _run(*argv, cwd=repo)
        assert "Traceback" not in res.stderr, (name, res.stderr)
        seen.append(res.stdout + res.stderr)
        assert res.returncode in (0, 1, 2), (name, res.returncode, res.stderr)
    lint_tree = _run("lint", "--isolated", "--format", "json", templates, cwd=repo)
    assert lint_tree.returncode == 2 and "outside" in lint_tree.stderr  # the committed links are refused
    seen.append(lint_tree.stdout + lint_tree.stderr)
    blob = "\n".join(seen) + _all_text(out)
    assert SECRET not in blob
    # The good records still count around the refused ones.
    data = json.loads((out / "analyze.json").read_text())
    assert data["requests"] == 2 and data["skipped"] == n - 1


# --- non-regular inputs never hang or eat memory ----------------------------------------------


def test_lint_tree_with_a_fifo_or_a_link_to_dev_zero_is_one_line_error(tmp_path, cli):
    tree = tmp_path / "t"
    tree.mkdir()
    (tree / "ok.j2").write_text("Hello {{ x }}")
    os.mkfifo(tree / "pipe.j2")
    res = cli("lint", "--isolated", tree)
    check_stderr(res.err)
    assert res.code == 2 and re.search(r"pipe\.j2: is a FIFO", error_lines(res.err)[0])
    (tree / "pipe.j2").unlink()
    (tree / "zero.j2").symlink_to("/dev/zero")
    res = cli("lint", "--isolated", tree)
    check_stderr(res.err)
    assert res.code == 2 and "zero.j2: resolves to a path outside" in error_lines(res.err)[0]


@pytest.mark.parametrize("argv,reason", [
    (["lint", "--config", "/dev/zero", "{ok}"], "/dev/zero: is a character device"),
    (["lint", "--isolated", "/dev/zero"], "/dev/zero"),  # not a template name: never opened
    (["analyze", "{traffic}", "--chat-template", "/dev/zero"], "/dev/zero: is a character device"),
    (["analyze", "/dev/zero"], "/dev/zero: is not a regular file or a pipe"),
    (["simulate", "/dev/zero"], "/dev/zero: is not a regular file or a pipe"),
    (["analyze", "{traffic}", "--chat-template", "{fifo}"], "is a FIFO"),
])
def test_devices_and_fifos_given_as_files_are_refused(argv, reason, tmp_path):
    traffic = tmp_path / "t.jsonl"
    traffic.write_text(GOOD_LINE)
    (tmp_path / "ok.j2").write_text("Hello {{ x }}")
    os.mkfifo(tmp_path / "fifo.jinja")
    args = [a.format(traffic=traffic, ok=tmp_path / "ok.j2", fifo=tmp_path / "fifo.jinja") for a in argv]
    res = _run(*args, timeout=30)
    check_stderr(res.stderr)
    assert res.returncode == 2, res.stderr
    [error] = error_lines(res.stderr)
    assert reason in error, error


def test_traffic_through_a_pipe_still_works(tmp_path):
    """`advisor analyze <(zcat log.gz)`: a pipe named on the command line is read (waiting
    for its writer), gzip detected from its bytes."""
    import gzip

    data = gzip.compress((GOOD_LINE * 3).encode(), mtime=0)
    proc = subprocess.run(["bash", "-c", f"{sys.executable} -m advisor analyze <(cat) -f json"], input=data,
                          capture_output=True, timeout=60, env={**os.environ, "ADVISOR_NO_PROGRESS": "1"})
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["requests"] == 3


# --- outputs ----------------------------------------------------------------------------------


def _argv(command: str, traffic: Path, output: str) -> list[str]:
    if command == "lint":
        return ["lint", "--isolated", str(traffic.parent / "ok.j2"), "-o", output]
    if command == "report":
        return ["report", "-t", str(traffic), "-o", output]
    if command == "verify":
        return ["verify", str(traffic), "--engine", "sglang", "-f", "json", "-o", output]
    if command == "export":
        return ["export", str(traffic), "-f", "mooncake", "--block-size", "16", "-o", output]
    return [command, str(traffic), "-f", "json", "-o", output]


COMMANDS = ["analyze", "simulate", "prescribe", "report", "lint", "verify", "export", "render"]
# A record every command can use (verify needs an observed count).
OBSERVED_LINE = json.dumps({**json.loads(GOOD_LINE), "cached_tokens": 0}) + "\n"


@pytest.mark.parametrize("command", COMMANDS)
def test_output_dash_is_stdout(command, tmp_path, cli, monkeypatch):
    monkeypatch.chdir(tmp_path)
    traffic = tmp_path / "t.jsonl"
    traffic.write_text(OBSERVED_LINE * 2)
    (tmp_path / "ok.j2").write_text("You are a careful assistant.\n{{ q }}\n")
    res = cli(*_argv(command, traffic, "-"))
    check_stderr(res.err)
    assert res.code in (0, 1) and res.out.strip()
    assert not (tmp_path / "-").exists()


@pytest.mark.parametrize("command", COMMANDS)
def test_bad_outputs_are_one_line_errors_and_replace_nothing(command, tmp_path, cli):
    traffic = tmp_path / "t.jsonl"
    traffic.write_text(OBSERVED_LINE * 2)
    ok = tmp_path / "ok.j2"
    ok.write_text("You are a careful assistant.\n{{ q }}\n")
    readonly = tmp_path / "ro.json"
    readonly.write_text("keep")
    readonly.chmod(0o444)
    loop = tmp_path / "loop"
    loop.symlink_to(tmp_path / "loop2")
    (tmp_path / "loop2").symlink_to(loop)
    same = ok if command == "lint" else traffic
    cases = [(str(same), "the output is one of the inputs"), (str(tmp_path / "newdir") + "/", "is a folder"),
             (str(readonly), "is read-only"), (str(loop), "symlink loop"),
             (str(tmp_path / ("x" * 300)), "longer than 255 bytes")]
    for output, reason in cases:
        before = same.read_bytes()
        res = cli(*_argv(command, traffic, output))
        check_stderr(res.err)
        assert res.code == 2, (output, res.err)
        [error] = error_lines(res.err)
        assert reason in error, error
        assert same.read_bytes() == before
    assert readonly.read_text() == "keep"
    assert not (tmp_path / "newdir").exists()


def test_report_to_a_device_writes_no_picture_beside_it(tmp_path):
    traffic = tmp_path / "t.jsonl"
    traffic.write_text(GOOD_LINE * 3)
    res = _run("report", "-t", traffic, "-o", "/dev/null", cwd=tmp_path)
    assert res.returncode in (0, 1), res.stderr
    assert not Path("/dev/null.png").exists()
    res = _run("report", "-t", traffic, "-o", tmp_path / "advisory.md", cwd=tmp_path)
    assert res.returncode in (0, 1), res.stderr
    assert (tmp_path / "advisory.png").is_file()


# --- bounds -----------------------------------------------------------------------------------


@pytest.mark.parametrize("argv,bound", [
    (["simulate", "{t}", "--replicas", "1000000"], "--replicas must be at most 1,024"),
    (["analyze", "{t}", "--workers", "100000"], "--workers must be at most 64"),
    (["simulate", "{t}", "--block-size", "99999999999"], "--block-size must be at most 1,048,576"),
    (["simulate", "{t}", "--page-size", "99999999999"], "--page-size must be at most 1,048,576"),
    (["simulate", "{t}", "--capacity-tokens", str(10**15)], "--capacity-tokens must be at most 1,000,000,000,000"),
    (["simulate", "{t}", "--max-running", str(10**9)], "--max-running must be at most 1,048,576"),
    (["simulate", "--workload", "rag", "--requests", str(10**9)], "--requests must be at most 10,000,000"),
    (["analyze", "{t}", "--page-size", str(2**40)], "--page-size must be at most"),
    (["cost", "--model", "llama-3.1-8b", "--gpu", "h100", "--tp", "100000"], "--tp must be at most 1,024"),
])
def test_options_that_allocate_are_bounded(argv, bound, tmp_path, cli):
    traffic = tmp_path / "t.jsonl"
    traffic.write_text(GOOD_LINE)
    res = cli(*[a.format(t=traffic) for a in argv])
    check_stderr(res.err)
    assert res.code == 2 and res.out == ""
    [error] = error_lines(res.err)
    assert bound in error, error


# --- lint: configured regexes and per-file CPU time -------------------------------------------


def test_section_marker_redos_is_a_finding_not_a_hang(tmp_path, cli):
    (tmp_path / ".advisor.yaml").write_text('section_markers: ["^(a|a)*$"]\n')
    (tmp_path / "t.j2").write_text("Intro\n" + "a" * 40 + "!\n{{ q }}\n")
    (tmp_path / "good.j2").write_text(GOOD)
    start = time.perf_counter()
    res = cli("lint", "--config", tmp_path / ".advisor.yaml", "--format", "concise", tmp_path / "t.j2", tmp_path / "good.j2")
    assert time.perf_counter() - start < 30
    check_stderr(res.err)
    assert res.code == 1
    assert re.search(r"t\.j2:1:1: PC001 .*section marker .* took more than 0.5 s of CPU time", res.out), res.out
    assert "good.j2" in res.out


def test_a_template_of_thousands_of_values_is_linted_whole(tmp_path, cli, monkeypatch):
    """A template of thousands of per-request values gets a finding for each. Its time (once
    quadratic: 21 s for 250 KB, now linear through suffix sums) is measured in
    ``bench/lint_bench.py``; here the per-file CPU limit is lifted so a loaded machine cannot
    turn a speed figure into a failed behaviour check."""
    from advisor.lint import limits

    monkeypatch.setattr(limits, "FILE_CPU_SECONDS", 120.0)
    body = "".join(f"Section {i}: {{{{ user_{i} }}}} and {{{{ now() }}}}\n" for i in range(6000))
    (tmp_path / "dyn.j2").write_text(body)
    res = cli("lint", "--isolated", "--format", "json", tmp_path / "dyn.j2")
    check_stderr(res.err)
    assert res.code == 1
    found = json.loads(res.out)
    findings = found if isinstance(found, list) else found.get("findings", [])
    assert not any("not linted" in f.get("message", "") for f in findings)
    assert sum(1 for f in findings if f.get("code") == "PC101") >= 6000


def test_a_file_past_the_cpu_limit_is_one_finding_and_the_rest_are_linted(tmp_path, cli, monkeypatch):
    from advisor.lint import limits

    monkeypatch.setattr(limits, "FILE_CPU_SECONDS", 0.05)
    body = "".join(f"Section {i}: {{{{ user_{i} }}}}\n" for i in range(4000))
    (tmp_path / "big.j2").write_text(body)
    (tmp_path / "good.j2").write_text(GOOD)
    res = cli("lint", "--isolated", "--format", "concise", tmp_path)
    check_stderr(res.err)
    assert re.search(r"big\.j2:1:1: PC001 .*not linted: it took more than 0\.05 s of CPU time", res.out), res.out
    assert "good.j2" in res.out


def test_a_lint_stop_that_lands_in_a_finalizer_is_not_reported(monkeypatch):
    # The timer's stop can land in a __del__, where Python cannot raise it and hands it to
    # sys.unraisablehook instead (by default printed with a traceback: "Exception ignored
    # in ..."). Under a limit that hook drops the stop (the repeating timer raises it again
    # where it can stop the block) and passes every other exception on to the hook before.
    from advisor.lint import limits

    seen: list = []
    monkeypatch.setattr(sys, "unraisablehook", seen.append)

    class Raises:
        def __init__(self, exc: BaseException):
            self.exc = exc

        def __del__(self):
            raise self.exc

    with limits.cpu_limit(5.0):
        Raises(limits.LintStopped("stopped in a finalizer"))
        Raises(ValueError("a finalizer's own error"))
    assert [type(u.exc_value) for u in seen] == [ValueError]
    assert sys.unraisablehook == seen.append  # the hook in force before is back
    Raises(limits.LintStopped("outside any limit"))
    assert [type(u.exc_value) for u in seen] == [ValueError, limits.LintStopped]


def test_an_included_template_is_read_and_compiled_once_per_run(tmp_path, monkeypatch):
    # An include that Jinja took for stale was read and compiled again at every use: a
    # self-include then spent its CPU budget compiling (~1 s on CI) before the recursion
    # limit could stop it with its own reason.
    from advisor.ingest.prompt_templates import TemplateSet

    (tmp_path / "part.j2").write_text("[{{ i }}]")
    (tmp_path / "main.j2").write_text("{% for i in range(50) %}{% include 'part.j2' %}{% endfor %}")
    reads: list[Path] = []
    real = safe_open.read_text

    def counting(path, *args, **kwargs):
        reads.append(Path(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(safe_open, "read_text", counting)
    rendered = TemplateSet([tmp_path]).get("main").render({})
    assert rendered.prompt == "".join(f"[{i}]" for i in range(50))
    assert [p.name for p in reads].count("part.j2") == 1
