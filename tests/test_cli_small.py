"""Issue 35's small command-line fixes: ``--version``, and ``-o`` into a missing folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from advisor import __version__

# Prints what ``advisor ARGV`` wrote and returned, then the command modules it imported.
PROBE = (
    "import sys\n"
    "from advisor.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "print('exit', code)\n"
    "print(sorted(m for m in sys.modules if m.startswith('advisor.commands.')))\n"
)


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_version_prints_the_package_version_without_importing_a_command(flag: str) -> None:
    proc = subprocess.run([sys.executable, "-c", PROBE, flag], capture_output=True, text=True, check=True)
    version, code, modules = proc.stdout.splitlines()
    assert version == f"advisor {__version__}"
    assert code == "exit 0" and proc.stderr == ""
    assert eval(modules) == []  # noqa: S307 - our own repr of a list of module names


def test_version_is_listed_in_the_help_and_wins_over_a_command(cli) -> None:
    res = cli("--help")
    assert res.code == 0 and "-V, --version" in res.out
    # Eager: answered before the command is looked at (as `git --version status` does).
    res = cli("--version", "analyze")
    assert (res.code, res.out, res.err) == (0, f"advisor {__version__}\n", "")


# --- -o into a folder that does not exist ----------------------------------------------------

TRAFFIC = '{"prompt": "hello there, how are you"}\n{"prompt": "hello there, who are you"}\n'

# Every command that writes a file with -o, as it is run with an output into missing/deep/.
WRITERS = {
    "analyze": ["analyze", "t.jsonl", "--no-diagnose"],
    "simulate": ["simulate", "t.jsonl"],
    "prescribe": ["prescribe", "t.jsonl"],
    "render": ["render", "t.jsonl"],
    "verify": ["verify", "t.jsonl", "--engine", "sglang"],
    "export": ["export", "t.jsonl", "-f", "mooncake", "--block-size", "16", "--salt", "s"],
    "cost": ["cost", "--model", "llama-3.1-8b", "--gpu", "h100"],
    "lint": ["lint", "--isolated", "p.j2"],
    "report": ["report", "-t", "t.jsonl"],
    "plan": ["plan", "--example", "rag"],
    "spec-generate": ["spec", "generate", "--example", "rag"],
}


@pytest.fixture()
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "t.jsonl").write_text(TRAFFIC)
    (tmp_path / "p.j2").write_text("You are a careful assistant. {{ question }}")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("command", sorted(WRITERS))
def test_an_output_into_a_missing_folder_is_a_one_line_error(cli, project: Path, command: str) -> None:
    res = cli(*WRITERS[command], "-o", "missing/deep/out.txt")
    assert res.code == 2, res.err
    assert res.err.splitlines() == [
        "advisor: error: missing/deep/out.txt: folder missing/deep does not exist (advisor does not create folders)"]
    assert res.out == ""
    assert not (project / "missing").exists()  # nothing created, not even the first level


def test_a_dangling_symlink_names_the_folder_it_points_into(cli, project: Path) -> None:
    os.symlink("elsewhere/out.json", project / "link.json")
    res = cli("analyze", "t.jsonl", "--no-diagnose", "-f", "json", "-o", "link.json")
    assert res.code == 2
    assert res.err.strip() == ("advisor: error: link.json: folder "
                               f"{os.path.realpath(project / 'elsewhere')} does not exist (advisor does not create folders)")


def test_an_output_into_an_existing_folder_is_written(cli, project: Path) -> None:
    (project / "out").mkdir()
    res = cli("analyze", "t.jsonl", "--no-diagnose", "-f", "json", "-o", "out/a.json")
    assert res.code == 0, res.err
    assert json.loads((project / "out" / "a.json").read_text())["requests"] == 2
    # A bare file name goes in the current folder, which exists.
    assert cli("cost", "--model", "llama-3.1-8b", "--gpu", "h100", "-f", "json", "-o", "c.json").code == 0
    assert json.loads((project / "c.json").read_text())["model"]


def test_the_reports_own_default_folder_is_still_made(cli, project: Path) -> None:
    # Only a folder the user names must exist; outputs/ is the default advisor chose.
    res = cli("report", "-t", "t.jsonl")
    assert res.code == 0, res.err
    written = project / "outputs" / "skill-radix-scheduler-advisor.md"
    assert written.read_text().startswith("#")
    assert (project / "outputs" / "skill-radix-scheduler-advisor.png").stat().st_size > 0
