"""The CLI imports only the command being run, and still lists every command."""

from __future__ import annotations

import subprocess
import sys

from advisor.cli import COMMAND_MODULES

PROBE = (
    "import sys\n"
    "from advisor.cli import main\n"
    "try:\n"
    "    main(sys.argv[1:])\n"
    "finally:\n"
    "    print(sorted(m for m in sys.modules if m.startswith(('advisor.commands.', 'jinja2', 'advisor.lint'))))\n"
)


HELPERS = {"advisor.commands.common", "common", "outputs", "bounds"}


def loaded(*argv: str) -> tuple[str, set[str]]:
    """stdout of ``advisor ARGV`` and the command modules (and Jinja2) it imported."""
    proc = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, check=True)
    *out, modules = proc.stdout.strip().splitlines()
    names = eval(modules)  # noqa: S307 - our own repr of a list of module names
    # Shared helpers of every command (options, outputs, bounds) are not commands.
    return "\n".join(out), {m.removeprefix("advisor.commands.") for m in names} - HELPERS


def test_a_command_imports_only_its_module() -> None:
    _, modules = loaded("analyze", "--help")
    assert modules == {"analyze"}  # no linter, no simulator, no Jinja2 for plain traffic
    _, modules = loaded("rules")
    assert "lint" in modules and not modules & {"analyze", "simulate", "prescribe", "cost", "report"}


def test_help_lists_every_command() -> None:
    for argv in (("--help",), ("--help", "analyze")):
        out, modules = loaded(*argv)
        for name in COMMAND_MODULES:
            assert f"  {name} " in out, (argv, name)
        assert set(COMMAND_MODULES.values()) <= modules
