"""The CLI imports only the command being run, and still lists every command."""

from __future__ import annotations

import importlib
import subprocess
import sys

from advisor import cli
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
    return "\n".join(out) + proc.stderr, {m.removeprefix("advisor.commands.") for m in names} - HELPERS


def test_a_command_imports_only_its_module() -> None:
    _, modules = loaded("analyze", "--help")
    assert modules == {"analyze"}  # no linter, no simulator, no Jinja2 for plain traffic
    _, modules = loaded("rules")
    assert "lint" in modules and not modules & {"analyze", "simulate", "prescribe", "cost", "report"}


def test_help_lists_every_command_without_importing_them() -> None:
    for argv in (("--help",), ("--help", "analyze"), ()):
        out, modules = loaded(*argv)  # () is `advisor` alone: the help, too
        for name in COMMAND_MODULES:
            assert f"  {name} " in out, (argv, name)
        assert not modules, argv  # the listing needs no command's imports


def test_each_summary_is_the_command_help() -> None:
    # The listing's summaries are the first paragraph of each command's own help.
    import typer.main

    for module in dict.fromkeys(COMMAND_MODULES.values()):
        importlib.import_module(f"advisor.commands.{module}")
    group = typer.main.get_command(cli.app)
    for name in COMMAND_MODULES:
        command = group.get_command(None, name)  # type: ignore[attr-defined]
        first = " ".join((command.help or "").split("\n\n")[0].split())
        assert cli.COMMAND_SUMMARIES[name] == first, name
    assert set(cli.COMMAND_SUMMARIES) == set(COMMAND_MODULES)


FULL = (
    "import importlib\n"
    "from advisor.cli import COMMAND_MODULES, main\n"
    "for m in dict.fromkeys(COMMAND_MODULES.values()):\n"
    "    importlib.import_module(f'advisor.commands.{m}')\n"
    "main(['--help'])\n"
)


def test_the_listing_is_the_full_help_and_leaves_the_commands_runnable(capsys) -> None:
    # The listing prints what the commands registered for real print...
    full = subprocess.run([sys.executable, "-c", FULL], capture_output=True, text=True, check=True).stdout
    out, _ = loaded("--help")
    assert out.strip() == full.strip()
    # ...and in one process (the API, the tests) each command still runs after it.
    assert cli.main(["--help"]) == 0
    capsys.readouterr()
    assert cli.main(["rules"]) == 0
    assert "PC" in capsys.readouterr().out
