"""The install recipes work where CI runs them: the wheel builds, installs in a scratch
virtual environment, and the commands of action.yml, the README recipe and the pre-commit
hook run there against a real template folder.

Kept fast: the wheel is built without build isolation from a copy of the sources, and the
scratch environment borrows this environment's installed dependencies (never its editable
install of this project) instead of downloading them.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest
import yaml

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
PROJECT = ROOT / "tests" / "lint" / "fixtures" / "project"


def _run(args: list[str], **kw) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, capture_output=True, text=True, timeout=300, **kw)


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("install")
    src = tmp / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        if (ROOT / name).exists():
            shutil.copy(ROOT / name, src / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "advisor", src / "advisor", ignore=ignore)
    shutil.copytree(ROOT / "rules", src / "rules", ignore=ignore)
    wheels = tmp / "wheels"
    built = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q", "-w", str(wheels), str(src)])
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = wheels.glob("*.whl")
    venv = tmp / "venv"
    made = _run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    assert made.returncode == 0, made.stderr
    python = venv / "bin" / "python"
    scratch_site = Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip())
    # This environment's dependencies, appended after the scratch site-packages; a path
    # added by a .pth file does not run that folder's own .pth files, so the editable
    # install of this project stays invisible.
    (scratch_site / "_borrowed_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    installed = _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", "-q", str(wheel)])
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return {"wheel": wheel, "bin": venv / "bin", "python": python, "tmp": tmp}


def _env(scratch: dict[str, Path], **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "GITHUB_ACTIONS", "VIRTUAL_ENV")}
    env["PATH"] = f"{scratch['bin']}{os.pathsep}{env.get('PATH', '')}"
    env.update(extra)
    return env


def test_the_distribution_name_is_not_the_taken_one() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["name"] == "prefix-cache-advisor"
    assert project["scripts"] == {"advisor": "advisor.cli:main"}


def test_wheel_holds_the_rules_and_their_cases(scratch) -> None:
    names = zipfile.ZipFile(scratch["wheel"]).namelist()
    assert scratch["wheel"].name.startswith("prefix_cache_advisor-")
    for rule in [*(ROOT / "rules").glob("pc*.py"), *(ROOT / "rules").glob("tr*.py")]:
        assert f"advisor/rules/{rule.name}" in names
        if rule.with_suffix(".yaml").is_file():  # (TR401, TR501, TR601 have no cases yet)
            assert f"advisor/rules/{rule.stem}.yaml" in names


def test_installed_command_is_the_wheel_not_the_checkout(scratch) -> None:
    code = "import advisor, advisor.rules; print(advisor.__file__); print(advisor.rules.__file__)"
    where = _run([str(scratch["python"]), "-c", code], cwd=scratch["tmp"])
    assert where.returncode == 0, where.stderr
    assert all(str(ROOT) not in line for line in where.stdout.splitlines()), where.stdout
    assert (scratch["bin"] / "advisor").exists()


def _workspace(scratch: dict[str, Path], name: str) -> Path:
    work = scratch["tmp"] / name
    shutil.copytree(PROJECT, work / "templates")
    (work / ".git").mkdir()
    return work


def test_action_steps_run(scratch) -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    steps = {s.get("name", s.get("uses", "")): s for s in action["runs"]["steps"]}
    assert "${{ github.action_path }}" in steps["install advisor"]["env"]["ADVISOR_SOURCE"]
    work = _workspace(scratch, "action")
    output = work / "github_output"
    output.write_text("")
    env = _env(scratch, ADVISOR_PATHS="templates/", ADVISOR_ARGS="", ADVISOR_FAIL_ON="warning",
               ADVISOR_SARIF=str(work / "advisor.sarif"), GITHUB_OUTPUT=str(output), GITHUB_ACTIONS="true")
    for step in ("advisor lint (SARIF)", "advisor lint (annotations)"):
        # Scripts read their inputs from the environment only: no ${{ }} inside `run`.
        assert "${{" not in steps[step]["run"]
    sarif_step = _run(["bash", "-e", "-c", steps["advisor lint (SARIF)"]["run"]], cwd=work, env=env)
    assert sarif_step.returncode == 0, sarif_step.stdout + sarif_step.stderr
    assert output.read_text() == f"file={work / 'advisor.sarif'}\n"
    sarif = json.loads((work / "advisor.sarif").read_text())
    results = sarif["runs"][0]["results"]
    assert results and {r["ruleId"] for r in results} >= {"PC101", "PC001"}
    annotations = _run(["bash", "-e", "-c", steps["advisor lint (annotations)"]["run"]], cwd=work, env=env)
    assert annotations.returncode == 1  # the fixture project has errors: the step fails
    # Each finding is annotated at its own severity: the template that does not parse is an
    # error, the date (one miss a day) a notice.
    assert re.search(r"^::error file=templates/broken\.j2,line=\d+", annotations.stdout, re.MULTILINE), annotations.stdout
    assert re.search(r"^::notice file=templates/dated\.j2,line=\d+", annotations.stdout, re.MULTILINE), annotations.stdout


def test_action_sarif_step_fails_on_a_real_error(scratch) -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    step = next(s for s in action["runs"]["steps"] if s.get("name") == "advisor lint (SARIF)")
    work = scratch["tmp"] / "missing"
    work.mkdir()
    env = _env(scratch, ADVISOR_PATHS="no/such/folder", ADVISOR_ARGS="", ADVISOR_SARIF=str(work / "a.sarif"), GITHUB_OUTPUT=str(work / "out"))
    assert _run(["bash", "-e", "-c", step["run"]], cwd=work, env=env).returncode == 2


def test_readme_recipe_commands_run(scratch) -> None:
    readme = (ROOT / "README.md").read_text()
    commands = re.findall(r"^\s*- run: (advisor lint .+?)(?:\s+#.*)?$", readme, re.MULTILINE)
    assert len(commands) == 2, commands
    work = _workspace(scratch, "readme")
    sarif = _run(["bash", "-e", "-c", commands[0]], cwd=work, env=_env(scratch))
    assert sarif.returncode == 0, sarif.stdout + sarif.stderr
    assert json.loads((work / "advisor.sarif").read_text())["runs"][0]["results"]
    plain = _run(["bash", "-c", commands[1]], cwd=work, env=_env(scratch))
    assert plain.returncode == 1 and "PC101" in plain.stdout
    install = re.search(r'- run: pip install "(prefix-cache-advisor) @ git\+', readme)
    assert install, "the README installs this project, not the PyPI name `advisor`"
    assert "pip install advisor" not in readme


def test_pre_commit_hook_command_runs(scratch) -> None:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    hook = next(h for h in hooks if h["id"] == "advisor-lint")
    work = _workspace(scratch, "hook")
    files = re.compile(hook["files"])
    staged = sorted(str(p.relative_to(work)) for p in work.rglob("*") if p.is_file() and files.search(str(p.relative_to(work))))
    assert staged
    run = _run([*hook["entry"].split(), *hook["args"], *staged], cwd=work, env=_env(scratch))
    assert run.returncode == 1 and "templates/dated.j2:" in run.stdout
    # A commit that only touches non-prompt YAML under prompts/ passes.
    (work / "prompts").mkdir()
    (work / "prompts" / "settings.yaml").write_text("name: x\n")
    quiet = _run([*hook["entry"].split(), *hook["args"], "prompts/settings.yaml"], cwd=work, env=_env(scratch))
    assert quiet.returncode == 0, quiet.stderr
