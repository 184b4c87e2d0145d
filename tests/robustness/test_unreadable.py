"""Files and folders the process may not read: a one-line error naming them (or, for a
template a record names, that line's skip), never a traceback, and never a folder
skipped in silence (issue 15).

The tests run as root, for whom permission bits do not block reads; each command runs in
a subprocess without the two capabilities that override them (``setpriv`` drops
CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH from the bounding set), so the kernel's real
permission checks apply. As another user, plain ``chmod`` does the same.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.robustness.conftest import GOOD_LINE, check_stderr, error_lines


def _unprivileged() -> list[str]:
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    assert setpriv, "running as root, these tests need setpriv (util-linux) to drop the permission overrides"
    return [setpriv, "--bounding-set=-dac_override,-dac_read_search"]


def _run(cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ADVISOR_NO_PROGRESS": "1"}
    return subprocess.run([*_unprivileged(), sys.executable, "-m", "advisor", *argv], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture()
def tree(tmp_path):
    """A project with one unreadable file, one unreadable folder, and readable files."""
    (tmp_path / "t.jsonl").write_text(GOOD_LINE)
    lint = tmp_path / "prompts"
    (lint / "sub").mkdir(parents=True)
    (lint / "ok.j2").write_text("You are a careful assistant. {{ q }}")
    (lint / "sub" / "inner.j2").write_text("Inner {{ q }}")
    (lint / "locked.j2").write_text("Locked {{ q }}")
    tpl = tmp_path / "tpl"
    (tpl / "parts").mkdir(parents=True)
    (tpl / "ok.j2").write_text("You are a careful assistant. Question: {{ q }}")
    (tpl / "no.j2").write_text("Hidden {{ q }}")
    (tpl / "parts" / "a.j2").write_text("part")
    (tpl / "inc.j2").write_text("{% include 'parts/a.j2' %} {{ q }}")
    (tmp_path / "records.jsonl").write_text("".join(json.dumps({"template": n, "variables": {"q": "x"}}) + "\n"
                                                    for n in ("no", "inc", "ok")))
    (tmp_path / "chat.jinja").write_text("{% for m in messages %}{{ m.content }}{% endfor %}")
    (tmp_path / "cfg.yaml").write_text("select: [PC1]\n")
    (tmp_path / "locked.jsonl").write_text(GOOD_LINE)
    (tmp_path / "vocab.tiktoken").write_text("")
    (tmp_path / "out").mkdir()
    for path in (lint / "locked.j2", tpl / "no.j2", tmp_path / "chat.jinja", tmp_path / "cfg.yaml",
                 tmp_path / "locked.jsonl", tmp_path / "vocab.tiktoken"):
        path.chmod(0)
    for folder in (lint / "sub", tpl / "parts", tmp_path / "out"):
        folder.chmod(0)
    yield tmp_path
    for folder in (lint / "sub", tpl / "parts", tmp_path / "out"):
        folder.chmod(0o755)


# (argv, the one-line error): a file or folder that a whole run needs.
ERRORS = {
    "lint-file": (["lint", "--isolated", "prompts/locked.j2"], r"prompts/locked\.j2: cannot read template \(Permission denied\)"),
    "lint-config": (["lint", "--config", "cfg.yaml", "prompts/ok.j2"], r"cfg\.yaml: cannot read config \(Permission denied\)"),
    "traffic": (["analyze", "locked.jsonl"], r"'locked\.jsonl' is not readable"),
    "chat-template": (["analyze", "t.jsonl", "--chat-template", "chat.jinja"], r"'chat\.jinja' is not readable"),
    "tokenizer": (["analyze", "t.jsonl", "--tokenizer", "vocab.tiktoken"], r"vocab\.tiktoken: cannot read tokenizer file \(Permission denied\)"),
    "output": (["analyze", "t.jsonl", "-o", "out/a.json"], r"out/a\.json: cannot write output \(Permission denied\)"),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_unreadable_input_is_a_one_line_error(case, tree):
    argv, reason = ERRORS[case]
    res = _run(tree, *argv)
    check_stderr(res.stderr)
    assert res.returncode == 2, res.stderr
    [error] = error_lines(res.stderr)
    assert re.search(reason, error), error


def test_an_unreadable_file_or_folder_in_a_lint_tree_is_named_and_the_rest_linted(tree):
    res = _run(tree, "lint", "--isolated", "--format", "json", "prompts")
    check_stderr(res.stderr)
    assert res.returncode == 2, res.stderr
    assert error_lines(res.stderr) == ["advisor: error: prompts/locked.j2: cannot read template (Permission denied)",
                                       "advisor: error: prompts/sub: cannot read directory (Permission denied)"]
    assert json.loads(res.stdout)["summary"]["files"] == 1  # ok.j2


@pytest.mark.parametrize("command", ["analyze", "prescribe", "simulate"])
def test_unreadable_templates_are_skipped_lines_and_the_rest_count(command, tree):
    res = _run(tree, command, "records.jsonl", "--templates", "tpl", "-f", "json")
    check_stderr(res.stderr)
    assert res.returncode == 1, res.stderr
    lines = res.stderr.splitlines()
    assert "records.jsonl:1: tpl/no.j2: cannot read template (Permission denied)" in lines, res.stderr
    assert "records.jsonl:2: tpl/inc.j2: tpl/parts/a.j2: cannot read included template (Permission denied)" in lines
    data = json.loads(res.stdout)
    assert (data["input"]["requests"] if command == "simulate" else data["requests"]) == 1
