"""Shared test helpers: run the CLI in-process, locate the shared traces."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import settings

# In CI the property tests draw the same examples on every run (a red build must be
# reproducible, not a lucky draw); locally they explore new examples each run.
settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

ROOT = Path(__file__).resolve().parents[1]
SHARED = (ROOT / ".." / "shared").resolve()
TRACES = SHARED / "traces" / "mooncake_fast25"
DEMO_TRAFFIC = ROOT / "templates" / "traffic"

os.environ.setdefault("ADVISOR_NO_PROGRESS", "1")


@dataclass
class CliResult:
    code: int
    out: str
    err: str


@pytest.fixture
def idle(monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine whose cores are idle, as ``advisor.cores`` reads it: forked helpers start."""
    import advisor.cores as cores

    monkeypatch.setattr(cores.os, "getloadavg", lambda: (0.0, 0.0, 0.0))
    monkeypatch.setattr(cores.os, "cpu_count", lambda: 2)


@pytest.fixture
def cli(capsys):
    """Run ``advisor ARGS`` in-process; return exit code, stdout and stderr."""
    from advisor.cli import main

    def run(*args: str) -> CliResult:
        code = main([str(a) for a in args])
        captured = capsys.readouterr()
        return CliResult(code, captured.out, captured.err)

    return run


def trace(name: str) -> Path:
    """A public Mooncake trace from ``../shared``: required in CI, where shared/ is laid beside
    the checkout, so a missing trace fails there instead of passing as a skip."""
    path = TRACES / name
    if not path.exists():
        message = f"public trace {path} not present (shared/ must sit beside the repository)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return path
