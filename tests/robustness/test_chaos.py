"""The chaos suite (issue 15, item 6): every command against every class of hostile input,
generated from the tables below. Each run is a one-line error (exit 2) naming the file,
or a skipped line with its reason and the good records counted (exit 1); never a
traceback or a hang. Memory and time figures under ``ulimit`` are in
bench/hardening_bench.py."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Callable

import pytest

from tests.robustness.conftest import GOOD_LINE, TRAFFIC_COMMANDS, check_stderr, error_lines

# Every command that reads traffic files: how it is run on one file.
READERS: dict[str, Callable[[Path], list[str]]] = {
    "analyze": lambda f: ["analyze", str(f), "-f", "json"],
    "simulate": lambda f: ["simulate", str(f), "-f", "json"],
    "prescribe": lambda f: ["prescribe", str(f), "-f", "json"],
    "report": lambda f: ["report", "-t", str(f), "-f", "json", "-o", "-"],
    "export": lambda f: ["export", str(f), "-f", "mooncake", "--block-size", "16"],
    "verify": lambda f: ["verify", str(f), "--engine", "sglang", "-f", "json"],
}


def _missing(tmp: Path) -> Path:
    return tmp / "absent.jsonl"


def _folder(tmp: Path) -> Path:
    (tmp / "logs").mkdir()
    return tmp / "logs"


def _loop(tmp: Path) -> Path:
    (tmp / "a.jsonl").symlink_to(tmp / "b.jsonl")
    (tmp / "b.jsonl").symlink_to(tmp / "a.jsonl")
    return tmp / "a.jsonl"


def _empty(tmp: Path) -> Path:
    (tmp / "empty.jsonl").write_bytes(b"")
    return tmp / "empty.jsonl"


def _zstd(tmp: Path) -> Path:
    (tmp / "log.jsonl").write_bytes(b"\x28\xb5\x2f\xfd" + b"\x00" * 32)
    return tmp / "log.jsonl"


def _link_to_zero(tmp: Path) -> Path:
    (tmp / "log.jsonl").symlink_to("/dev/zero")
    return tmp / "log.jsonl"


# Input files no command may read: (builder, the one-line error).
BAD_INPUTS: dict[str, tuple[Callable[[Path], Path], str]] = {
    "missing": (_missing, "no such file"),
    "folder": (_folder, "is a folder"),
    "dev-zero": (lambda tmp: Path("/dev/zero"), "is not a regular file or a pipe"),
    "link-to-dev-zero": (_link_to_zero, "is not a regular file or a pipe"),
    "symlink-loop": (_loop, "cannot read|no such file"),
    "empty": (_empty, "file is empty"),
    "zstd": (_zstd, "zstd-compressed"),
}


@pytest.mark.parametrize("kind", sorted(BAD_INPUTS))
@pytest.mark.parametrize("command", sorted(READERS))
def test_every_reader_refuses_every_bad_input(command, kind, tmp_path, cli):
    build, reason = BAD_INPUTS[kind]
    path = build(tmp_path)
    res = cli(*READERS[command](path))
    check_stderr(res.err)
    assert res.code == 2, (command, kind, res.err)
    [error] = error_lines(res.err)
    assert str(path) in error and re.search(reason, error), error
    assert res.out == ""


# Templates named by `template` records that must not render: (files to plant, name, reason).
def _plant_escape(folder: Path, secret: Path) -> str:
    return "../secret"


def _plant_link(folder: Path, secret: Path) -> str:
    (folder / "link.j2").symlink_to(secret)
    return "link"


def _plant_include(folder: Path, secret: Path) -> str:
    (folder / "inc_target.j2").symlink_to(secret)
    (folder / "inc.j2").write_text("A {% include 'inc_target.j2' %} B")
    return "inc"


def _plant_fifo(folder: Path, secret: Path) -> str:
    os.mkfifo(folder / "pipe.j2")
    return "pipe"


def _plant_zero(folder: Path, secret: Path) -> str:
    (folder / "zero.j2").symlink_to("/dev/zero")
    return "zero"


def _plant_memory(folder: Path, secret: Path) -> str:
    (folder / "mem.j2").write_text("{{ ('a' * 1000000).translate({97: 'b' * 1000}) }}")
    return "mem"


def _plant_huge(folder: Path, secret: Path) -> str:
    (folder / "huge.j2").write_text("{{ ('a'|center(999999)) * 19 }}")
    return "huge"


def _plant_deep_include(folder: Path, secret: Path) -> str:
    (folder / "self.j2").write_text("{% include 'self.j2' %}")
    return "self"


BAD_TEMPLATES: dict[str, tuple[Callable[[Path, Path], str], str]] = {
    "name-escapes": (_plant_escape, "has a path separator"),
    "symlink-out": (_plant_link, "outside"),
    "include-symlink-out": (_plant_include, "outside"),
    "fifo": (_plant_fifo, "is a FIFO"),
    "link-to-dev-zero": (_plant_zero, "outside"),
    # (The output grows a piece at a time: on a loaded 2-core machine the page faults on the
    # way to the memory cap can pass the 1 s CPU budget first; either limit stops it.)
    # (On a slow machine the CPU budget runs out before the memory does: either stop is right.)
    "memory": (_plant_memory, "MemoryError|out of memory|longer than 1 s of CPU time|CPU time limit"),
    "huge-output": (_plant_huge, "over the 4,000,000 limit"),
    "include-recursion": (_plant_deep_include, "nested too deeply|RecursionError|template stopped"),
}


@pytest.mark.parametrize("kind", sorted(BAD_TEMPLATES))
@pytest.mark.parametrize("command", sorted(TRAFFIC_COMMANDS))
def test_every_traffic_command_skips_every_bad_template(command, kind, tmp_path, cli):
    secret = tmp_path / "secret.j2"
    secret.write_text("SECRET-CHAOS")
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "ok.j2").write_text("You are a careful assistant. Question: {{ q }}")
    plant, reason = BAD_TEMPLATES[kind]
    name = plant(folder, secret)
    traffic = tmp_path / "t.jsonl"
    traffic.write_text(GOOD_LINE + json.dumps({"template": name, "variables": {"q": "x"}}) + "\n"
                       + json.dumps({"template": "ok", "variables": {"q": "y"}}) + "\n")
    argv, count = TRAFFIC_COMMANDS[command]
    res = cli(*argv(traffic, ["--templates", folder]))
    check_stderr(res.err)
    assert res.code == 1, (command, kind, res.err)
    [skip] = [ln for ln in res.err.splitlines() if ln.startswith(f"{traffic}:2: ")]
    assert re.search(reason, skip), skip
    assert count(json.loads(res.out)) == 2
    assert "SECRET-CHAOS" not in res.out + res.err


# --chat-template values that cannot be used: (builder, the one-line error).
BAD_CHAT: dict[str, tuple[Callable[[Path], Path], str]] = {
    "dev-zero": (lambda tmp: Path("/dev/zero"), "is a character device"),
    "fifo": (lambda tmp: (os.mkfifo(tmp / "c.jinja"), tmp / "c.jinja")[1], "is a FIFO"),
    "folder": (_folder, "is a folder"),
    "missing": (lambda tmp: tmp / "none.jinja", "no such file"),
    "not-utf8": (lambda tmp: ((tmp / "l.jinja").write_bytes(b"caf\xe9"), tmp / "l.jinja")[1], "not UTF-8"),
    "too-big": (lambda tmp: ((tmp / "b.jinja").write_bytes(b"x" * (17 << 20)), tmp / "b.jinja")[1], "over the 16 MiB limit"),
}


@pytest.mark.parametrize("kind", sorted(BAD_CHAT))
@pytest.mark.parametrize("command", sorted(TRAFFIC_COMMANDS))
def test_every_traffic_command_refuses_every_bad_chat_template(command, kind, tmp_path, cli):
    build, reason = BAD_CHAT[kind]
    chat = build(tmp_path)
    traffic = tmp_path / "t.jsonl"
    traffic.write_text(GOOD_LINE + json.dumps({"messages": [{"role": "user", "content": "hi"}]}) + "\n")
    argv, _ = TRAFFIC_COMMANDS[command]
    res = cli(*argv(traffic, ["--chat-template", chat]))
    check_stderr(res.err)
    assert res.code == 2, (command, kind, res.err)
    [error] = error_lines(res.err)
    assert str(chat) in error and re.search(reason, error), error


def _ranks(pairs: list[tuple[bytes, int]]) -> bytes:
    import base64

    return b"".join(base64.b64encode(t) + b" %d\n" % r for t, r in pairs)


_BYTES = [(bytes([b]), b) for b in range(256)]
# --tokenizer files native code would panic on, or that are not files: (content, the one-line error).
BAD_TOKENIZERS: dict[str, tuple[bytes | None, str]] = {
    "duplicate-rank": (_ranks(_BYTES + [(b"ab", 5)]), r":257: rank 5 given to two tokens \(first at line 6\)"),
    "duplicate-token": (_ranks(_BYTES + [(b"a", 300)]), r":257: token listed twice"),
    "missing-bytes": (_ranks(_BYTES[:200]), "lacks 56 of the 256 single-byte tokens"),
    "garbage": (b"not base64 at all !!\n", ":1: not a readable .tiktoken line"),
    "fifo": (None, "is a FIFO"),
}


@pytest.mark.parametrize("kind", sorted(BAD_TOKENIZERS))
@pytest.mark.parametrize("command", sorted(TRAFFIC_COMMANDS))
def test_every_traffic_command_refuses_every_bad_tokenizer_file(command, kind, tmp_path, cli):
    content, reason = BAD_TOKENIZERS[kind]
    path = tmp_path / "vocab.tiktoken"
    if content is None:
        os.mkfifo(path)
    else:
        path.write_bytes(content)
    traffic = tmp_path / "t.jsonl"
    traffic.write_text(GOOD_LINE)
    argv, _ = TRAFFIC_COMMANDS[command]
    res = cli(*argv(traffic, ["--tokenizer", path]))
    check_stderr(res.err)
    assert res.code == 2, (command, kind, res.err)
    [error] = error_lines(res.err)
    assert str(path) in error and re.search(reason, error), error


# --- the issue's per-record classes on every traffic command ------------------------------------

# A good record every command can use (verify needs an observed count).
OBSERVED = json.dumps({"prompt": "You are a careful assistant. Answer briefly and cite the manual. Question: hello",
                       "cached_tokens": 0}) + "\n"
_ARGS = "{\"a\": " * 1000 + "1" + "}" * 1000
_TOOLS = '{"p": ' * 990 + "1" + "}" * 990
_STAMP_CHAT = "{{ strftime_now('%d %b %Y') }}|{% for m in messages %}{{ m.content }}{% endfor %}"

# Every command that reads traffic records: argv (file, extra options) and the requests it used.
ALL_COMMANDS: dict[str, tuple[Callable[[Path, list], list], Callable[[str], int]]] = {
    "analyze": (lambda f, x: ["analyze", f, "-f", "json", *x], lambda out: json.loads(out)["requests"]),
    "simulate": (lambda f, x: ["simulate", f, "-f", "json", *x], lambda out: json.loads(out)["input"]["requests"]),
    "prescribe": (lambda f, x: ["prescribe", f, "-f", "json", *x], lambda out: json.loads(out)["requests"]),
    "report": (lambda f, x: ["report", "-t", f, "-f", "json", "-o", "-",
                             *[("--record-templates" if a == "--templates" else a) for a in x]],
               lambda out: json.loads(out)["traffic"]["requests"]),
    "verify": (lambda f, x: ["verify", f, "--engine", "sglang", "-f", "json", *x], lambda out: json.loads(out)["requests"]),
    "export": (lambda f, x: ["export", f, "-f", "mooncake", "--block-size", "16", "--salt", "s", *x],
               lambda out: len(out.splitlines())),
}


def _templates(tmp: Path) -> list:
    folder = tmp / "templates"
    folder.mkdir(exist_ok=True)
    (folder / "ok.j2").write_text("You are a careful assistant. Question: {{ q }}")
    (tmp / "x").mkdir(exist_ok=True)
    (tmp / "x" / "secret.j2").write_text("SECRET-RECORD")
    return ["--templates", folder]


def _stamp_chat(tmp: Path) -> list:
    (tmp / "date.jinja").write_text(_STAMP_CHAT)
    return ["--chat-template", tmp / "date.jinja"]


def _message(content: str, **extra: object) -> str:
    return json.dumps({"messages": [{"role": "user", "content": content}], "cached_tokens": 0, **extra})


# (the middle line, extra options, the skip reason at line 2, or None: a good record).
ISSUE_RECORDS: dict[str, tuple[str, Callable[[Path], list] | None, str | None]] = {
    "tool-arguments-1000-deep": ('{"cached_tokens": 0, "messages": [{"role": "user", "content": "x"}, {"role": "assistant", '
                                 '"tool_calls": [{"function": {"name": "f", "arguments": ' + _ARGS + '}}]}]}',
                                 None, "nested too deeply"),
    "tools-990-deep": ('{"cached_tokens": 0, "messages": [{"role": "user", "content": "x"}], "tools": [{"type": "function", '
                       '"function": {"name": "f", "parameters": ' + _TOOLS + '}}]}', None, "nested too deeply"),
    "template-name-300-chars": (json.dumps({"template": "t" * 300, "cached_tokens": 0}), _templates,
                                "300 characters long"),
    "template-name-escapes": (json.dumps({"template": "../x/secret", "cached_tokens": 0}), _templates,
                              "has a path separator"),
    "template-name-absolute": (json.dumps({"template": "/etc/passwd", "cached_tokens": 0}), _templates,
                               "has a path separator"),
    "output-length-2**32": (json.dumps({"prompt": "x y z", "output_length": 2**32, "cached_tokens": 0}), None,
                            "'output_length' 4294967296 is over"),
    "timestamp-1.7e308": (json.dumps({"prompt": "x y z", "timestamp": 1.7e308, "cached_tokens": 0}), None, "out of range"),
    "microsecond-epoch-with-chat-template": (_message("hi", timestamp=1_764_403_200_000_000), _stamp_chat, None),
    "nanosecond-epoch-with-chat-template": (_message("hi", timestamp=1_764_403_200_000_000_000), _stamp_chat, None),
    "prompt-over-4M-characters": (json.dumps({"prompt": "lorem ipsum " * 400_000, "cached_tokens": 0}), None,
                                  "over the 4,000,000 limit"),
    "ids-over-4M": ('{"cached_tokens": 0, "input_ids": [' + ",".join(["7"] * 4_000_001) + "]}", None,
                    "holds 4,000,001 ids, over the 4,000,000 limit"),
    "line-of-2M-values": ('{"prompt": "x", "cached_tokens": 0, "pad": [' + "[]," * 1_100_000 + "[]]}", None,
                          "over 2,000,000 JSON values"),
}


@pytest.fixture(scope="module")
def issue_files(tmp_path_factory):
    """Each case's traffic (good, the case, good) written once for all commands."""
    out = {}
    for name, (line, _, _) in ISSUE_RECORDS.items():
        path = tmp_path_factory.mktemp("issue") / "t.jsonl"
        path.write_text(OBSERVED + line + "\n" + OBSERVED)
        out[name] = path
    return out


@pytest.mark.parametrize("command", sorted(ALL_COMMANDS))
@pytest.mark.parametrize("case", sorted(ISSUE_RECORDS))
def test_every_command_takes_every_bad_record_of_the_issue(case, command, issue_files, tmp_path, cli):
    _, extra, reason = ISSUE_RECORDS[case]
    traffic = issue_files[case]
    argv, count = ALL_COMMANDS[command]
    res = cli(*argv(traffic, extra(tmp_path) if extra else []))
    check_stderr(res.err)
    assert "SECRET-RECORD" not in res.out + res.err
    if reason is None:
        assert res.code == 0, res.err
        assert count(res.out) == 3
        return
    assert res.code == 1, res.err
    [skip] = [ln for ln in res.err.splitlines() if ln.startswith(f"{traffic}:2: ")]
    assert re.search(reason, skip), skip
    assert count(res.out) == 2


def _gzip_blank(good: bytes) -> bytes:
    import zlib

    # ~870 MB of blank lines in ~850 KB of gzip, between two records.
    comp = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = b"\n" * (1 << 20)
    return comp.compress(good) + b"".join(comp.compress(block) for _ in range(830)) + comp.compress(good) + comp.flush()


def _packed(kind: str) -> Callable[[bytes], bytes]:
    import bz2
    import gzip
    import lzma

    return {"gzip": lambda b: gzip.compress(b, mtime=0), "bzip2": bz2.compress, "xz": lzma.compress}[kind]


# Whole files of good records in shapes the issue found lost or slow: (bytes from the good
# line, the records each command must count).
ISSUE_FILES: dict[str, tuple[Callable[[bytes], bytes], int]] = {
    "utf8-bom": (lambda good: b"\xef\xbb\xbf" + good * 3, 3),
    "gzip-not-named-gz": (lambda good: _packed("gzip")(good * 3), 3),
    "bzip2": (lambda good: _packed("bzip2")(good * 3), 3),
    "xz": (lambda good: _packed("xz")(good * 3), 3),
    "gzip-of-870MB-blank-lines": (_gzip_blank, 2),
}


@pytest.fixture(scope="module")
def issue_whole_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("files")
    out = {}
    for name, (build, _) in ISSUE_FILES.items():
        path = folder / f"{name}.jsonl"
        path.write_bytes(build(OBSERVED.encode()))
        out[name] = path
    return out


@pytest.mark.parametrize("command", sorted(ALL_COMMANDS))
@pytest.mark.parametrize("case", sorted(ISSUE_FILES))
def test_every_command_reads_every_file_shape_of_the_issue(case, command, issue_whole_files, cli):
    argv, count = ALL_COMMANDS[command]
    res = cli(*argv(issue_whole_files[case], []))
    check_stderr(res.err)
    assert res.code == 0, res.err
    assert count(res.out) == ISSUE_FILES[case][1]


def _job_refused_at_line_3(tmp_path, monkeypatch) -> tuple[Path, Path]:
    """Six prompt records, the third of which ``Job.from_sequence`` refuses, and the same
    file without that line."""
    from advisor.simulate import model

    lines = [json.dumps({"prompt": f"You are a careful assistant. Shared manual text. Question {i}",
                         "cached_tokens": 8 * (i % 3), "timestamp": 100 + i}) for i in range(6)]
    full = tmp_path / "full.jsonl"
    full.write_text("\n".join(lines) + "\n")
    less = tmp_path / "less.jsonl"
    less.write_text("\n".join(lines[:2] + lines[3:]) + "\n")
    real = model.Job.from_sequence.__func__

    def from_sequence(cls, index, seq, *args, **kwargs):
        if seq.request.line == 3 and seq.request.source == str(full):
            raise RuntimeError("boom")
        return real(cls, index, seq, *args, **kwargs)

    monkeypatch.setattr(model.Job, "from_sequence", classmethod(from_sequence))
    return full, less


def test_a_record_that_cannot_become_a_job_is_its_own_skip(tmp_path, cli, monkeypatch):
    """The per-record guard of ``to_jobs``: a failure while a record becomes a simulator job
    is that line's skip; simulate and verify then give what they give without the line."""
    full, less = _job_refused_at_line_3(tmp_path, monkeypatch)
    for argv in (["simulate", "-f", "json", "--capacity-tokens", "40"], ["verify", "--engine", "sglang", "-f", "json"]):
        got = cli(argv[0], full, *argv[1:])
        check_stderr(got.err)
        assert got.code == 1, got.err
        assert f"{full}:3: cannot process record (RuntimeError: boom)" in got.err.splitlines()
        want = cli(argv[0], less, *argv[1:])
        assert want.code == 0, want.err
        strip = lambda out: {k: v for k, v in json.loads(out.replace(str(full), "F").replace(str(less), "F")).items()
                             if k not in ("input", "skipped")}
        # Where the requests are: their line numbers differ past the dropped one.
        assert _unplaced(strip(got.out)) == _unplaced(strip(want.out))


def test_report_drops_a_record_that_cannot_become_a_job_from_every_section(tmp_path, cli, monkeypatch):
    """``report`` under the same guard: the refused line is a skip, and the analysis, the
    diagnosis and the simulation all cover the other records (the report of the file
    without that line, but for the skip count)."""
    full, less = _job_refused_at_line_3(tmp_path, monkeypatch)
    got = cli("report", "-t", full, "-f", "json", "-o", "-")
    check_stderr(got.err)
    assert got.code == 1, got.err
    assert f"{full}:3: cannot process record (RuntimeError: boom)" in got.err.splitlines()
    want = cli("report", "-t", less, "-f", "json", "-o", "-")
    assert want.code == 0, want.err
    g, w = (json.loads(r.out.replace(str(full), "F").replace(str(less), "F")) for r in (got, want))
    assert g["traffic"]["requests"] == w["traffic"]["requests"] == 5
    assert (g["traffic"]["skipped"], w["traffic"]["skipped"]) == (1, 0)
    for facts in (g, w):
        facts.pop("input")
        facts["traffic"].pop("skipped")
    assert _unplaced(g) == _unplaced(w)


def _unplaced(value):
    if isinstance(value, dict):
        return {k: _unplaced(v) for k, v in value.items() if k != "where"}
    if isinstance(value, list):
        return [_unplaced(v) for v in value]
    return value


# --- lint trees with one bad entry among good files (the lead's cases) ---------------------------


def _deny(monkeypatch, target: Path, call: str) -> None:
    """``os.open`` or ``os.scandir`` refuse ``target`` as the kernel would for a file or folder
    without read permission (the tests run as root, for whom chmod blocks nothing;
    test_unreadable.py checks the same with real permissions)."""
    real = getattr(os, call)

    def denied(path, *args, **kwargs):
        if isinstance(path, (str, Path)) and os.path.realpath(path) == os.path.realpath(target):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os, call, denied)


# (what to plant in the tree, the shown path, the reason).
LINT_TREE_BAD: dict[str, tuple[Callable[[Path, object], None], str, str]] = {
    "fifo": (lambda t, mp: os.mkfifo(t / "bad.j2"), "bad.j2", "is a FIFO"),
    "link-to-dev-zero": (lambda t, mp: (t / "bad.j2").symlink_to("/dev/zero"), "bad.j2", "resolves to a path outside"),
    "link-out-of-the-tree": (lambda t, mp: (t / "bad.j2").symlink_to(t.parent.parent / "secret.j2"), "bad.j2",
                             "resolves to a path outside"),
    "oversize": (lambda t, mp: (t / "bad.j2").write_bytes(b"x" * (17 << 20)), "bad.j2", "over the 16 MiB limit"),
    "not-utf8": (lambda t, mp: (t / "bad.j2").write_bytes(b"caf\xe9 {{ x }}"), "bad.j2", r":1: not UTF-8 text"),
    "unreadable-file": (lambda t, mp: ((t / "bad.j2").write_text("x {{ y }}"), _deny(mp, t / "bad.j2", "open")),
                        "bad.j2", r"cannot read template \(Permission denied\)"),
    "unreadable-folder": (lambda t, mp: ((t / "sub").mkdir(), (t / "sub" / "in.j2").write_text("{{ z }}"),
                                         _deny(mp, t / "sub", "scandir")), "sub", r"cannot read directory \(Permission denied\)"),
}


@pytest.mark.parametrize("kind", sorted(LINT_TREE_BAD))
def test_lint_tree_names_the_bad_entry_and_lints_the_rest(kind, tmp_path, cli, monkeypatch):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    tree = repo / "tree"
    tree.mkdir()
    (tmp_path / "secret.j2").write_text("SECRET-LINT")  # outside the repository
    (tree / "a.j2").write_text("{{ now() }} You are a careful assistant.")  # PC101
    (tree / "z.j2").write_text("You are a careful assistant. {{ question }}")
    plant, shown, reason = LINT_TREE_BAD[kind]
    plant(tree, monkeypatch)
    monkeypatch.chdir(repo)
    res = cli("lint", "--isolated", "--format", "json", "tree")
    check_stderr(res.err)
    assert res.code == 2, res.err
    [error] = error_lines(res.err)
    assert error.startswith(f"advisor: error: tree/{shown}") and re.search(reason, error), error
    data = json.loads(res.out)
    assert data["summary"]["files"] == 2
    assert {f["path"] for f in data["findings"] if f["code"] == "PC101"} == {"tree/a.j2"}
    assert "SECRET-LINT" not in res.out + res.err
    # Named on the command line, the bad file is the same one-line error; the good one is linted.
    if kind not in ("unreadable-folder",):
        named = cli("lint", "--isolated", "--format", "json", f"tree/{shown}", "tree/a.j2")
        check_stderr(named.err)
        assert named.code == 2 and len(error_lines(named.err)) == 1, named.err
        assert json.loads(named.out)["summary"]["files"] == 1
