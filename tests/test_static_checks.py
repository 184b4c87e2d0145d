"""The static gate: ruff and mypy are clean over advisor/ with the settings in pyproject.toml.

CI runs the same commands (`make check`) before the tests; running them here too means a
plain `pytest` after a change already says when it broke the gate.
"""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_ruff_is_clean() -> None:
    result = _run("ruff", "check", "--no-cache", "advisor")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_is_clean() -> None:
    result = _run("mypy")
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_gate_catches_a_planted_defect(tmp_path) -> None:
    # The same settings must fail on code with an unused import and a type error.
    bad = tmp_path / "bad.py"
    bad.write_text("import os\n\n\ndef f() -> int:\n    return 'x'\n", encoding="utf-8")
    assert _run("ruff", "check", "--no-cache", "--config", str(ROOT / "pyproject.toml"), str(bad)).returncode == 1
    mypy = _run("mypy", "--config-file", str(ROOT / "pyproject.toml"), str(bad))
    assert mypy.returncode == 1 and "Incompatible return value" in mypy.stdout
