"""The command line: a thin layer that parses options and calls library functions.

Each command lives in ``advisor/commands/<name>.py`` and registers itself on ``app``;
this module only owns the app, the shared consoles and the error boundary.
"""

from __future__ import annotations

import importlib
import sys

import typer

try:  # typer 0.2x vendors click; older releases use click itself
    from typer._click import exceptions as click_errors
except ImportError:  # pragma: no cover - depends on the installed typer
    from click import exceptions as click_errors  # type: ignore[no-redef]

from advisor.errors import AdvisorError
from advisor.console import OutputClosed, log

app = typer.Typer(
    name="advisor",
    help="Prompt-template linter and KV-cache (prefix caching) advisor for LLM serving.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _print_version(wanted: bool) -> None:
    # Eager, so it answers before click looks for a command; it needs only
    # ``advisor.__version__``, which ``import advisor`` already holds (no command module).
    if wanted:
        from advisor import __version__

        sys.stdout.write(f"advisor {__version__}\n")
        raise typer.Exit(0)


@app.callback()
def _group(
    version: bool = typer.Option(False, "--version", "-V", is_eager=True, callback=_print_version,
                                 help="Print advisor's version and exit."),
) -> None:
    # A callback keeps ``advisor`` a group of commands even when only the command being
    # run is registered (typer would otherwise run a lone command without its name).
    pass


# Command name -> the module that registers it, in the order of `advisor --help`.
# Running one command imports only its module: `advisor analyze` need not pay for the
# linter's or the simulator's imports (a fifth of a second of start-up, which counts on
# small logs and in pre-commit hooks).
COMMAND_MODULES = {
    "lint": "lint", "rules": "lint", "rule": "lint", "analyze": "analyze", "simulate": "simulate",
    "prescribe": "prescribe", "cost": "cost", "report": "report", "verify": "verify", "export": "export",
    "plan": "plan", "spec": "spec",
    "render": "render",
}


# What `advisor --help` lists for each command: the first paragraph of its help, as typer
# shows it. Kept here so that the listing (and `advisor` alone, and an unknown command) needs
# none of the commands' imports, which are most of start-up; tests/test_cli_startup.py checks
# every line against the command's own help.
COMMAND_SUMMARIES = {
    "lint": "Lint prompt templates for patterns that break prefix caching.",
    "rules": "List the lint rules and the traffic rules.",
    "rule": "Print one rule's documentation.",
    "analyze": "Measure the prefix-cache hit rate that the traffic allows (unlimited cache).",
    "simulate": "Hit rate under a finite KV pool: eviction, scheduling, replicas and tenants.",
    "prescribe": "Diagnose the traffic, prescribe a fix per finding, and measure the hit rate after it.",
    "cost": "HBM cost of a shared prefix (KV bytes, pool share, batch with/without sharing) and prefill saved per hit.",
    "report": "Write the go/no-go SGLang advisory (markdown, with the capacity curve as a PNG beside it).",
    "verify": "Predicted against observed cached tokens, and the gap split into what advisor can name.",
    "export": "Write an anonymised trace: chained salted block hashes as integers, lengths, times, sessions.",
    "plan": "Plan from a description: generate its traffic, run the whole pipeline, add the ordering recipe.",
    "render": "Show what the engine sees: rendered text (special tokens visible), token ids, count.",
    "spec": "Workload specs: --schema, check, generate.",
}


def _listed(*_args: object) -> None:  # pragma: no cover - never run: a listed command is registered for real
    raise AssertionError("a listed command runs only after its module registers it")


def _register_commands(argv: list[str]) -> list[object]:
    """Register what ``argv`` runs; return the listing-only entries added (to take back)."""
    # Imported for their side effect: each module decorates its commands onto ``app``.
    # The group takes no options but --help, so the command is the first argument.
    module = COMMAND_MODULES.get(argv[0]) if argv else None
    if module is not None:
        importlib.import_module(f"advisor.commands.{module}")
        return []
    # Help, no command or an unknown one: typer only lists the commands, so each one not
    # registered yet (in this process) is listed by name and summary without its imports.
    known = {info.name for info in app.registered_commands} | {g.name for g in app.registered_groups}
    before = len(app.registered_commands)
    for name, summary in COMMAND_SUMMARIES.items():
        if name not in known:
            app.command(name, help=summary, add_help_option=False)(_listed)
    return list(app.registered_commands[before:])


def _unregister(listed: list[object]) -> None:
    # A later call in the same process (tests, the API) must reach the real commands.
    app.registered_commands[:] = [c for c in app.registered_commands if c not in listed]


ARGV: list[str] = []


def _silence_closed_output() -> None:
    """Point stdout and stderr at /dev/null, so the interpreter's last flush of what is
    still buffered for the closed pipe prints no "Exception ignored" message."""
    import os

    for stream, real in ((sys.stdout, sys.__stdout__), (sys.stderr, sys.__stderr__)):
        if real is None or stream is not real:
            continue  # replaced (a test's capture): not a process descriptor to touch
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, real.fileno())
            os.close(devnull)
        except (OSError, ValueError):
            pass


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``advisor`` console script."""
    args = sys.argv[1:] if argv is None else [str(a) for a in argv]
    # The arguments as typed: a Path option loses a trailing "/" (`-o out/` means a folder).
    ARGV[:] = args
    listed = _register_commands(args)
    try:
        # Not standalone: click's usage errors come back here, so every usage error has the
        # one-line ``advisor: error: ...`` form (click would print a usage block instead).
        code = app(args=argv, prog_name="advisor", standalone_mode=False)
        if code == 130:  # typer turns Ctrl-C into a silent exit 130
            log("advisor: interrupted")
        return code if isinstance(code, int) else 0
    except click_errors.NoArgsIsHelpError as exc:
        exc.show()  # `advisor` alone: the help text, as before
        return 2
    except click_errors.UsageError as exc:
        hint = f" (advisor {exc.ctx.info_name} --help)" if exc.ctx is not None and exc.ctx.parent is not None else ""
        log(f"advisor: error: {exc.format_message()}{hint}")
        return 2
    except click_errors.ClickException as exc:
        log(f"advisor: error: {exc.format_message()}")
        return exc.exit_code
    except typer.Abort:
        log("advisor: interrupted")
        return 130
    except AdvisorError as exc:
        log(f"advisor: error: {exc}")
        return exc.exit_code
    except OutputClosed:
        # The reader went away (`advisor analyze F | head -1`): stop quietly, as `cat` and
        # `grep` do when SIGPIPE ends them, with the status a shell shows for that (128 +
        # SIGPIPE), so `set -o pipefail` still sees that the output was cut short.
        _silence_closed_output()
        return 141
    except KeyboardInterrupt:
        log("advisor: interrupted")
        return 130
    except SystemExit as exc:
        code = exc.code
        if code == 130:  # typer turns Ctrl-C into a silent exit 130
            log("advisor: interrupted")
        return code if isinstance(code, int) else (0 if code is None else 2)
    finally:
        _unregister(listed)
    return 0

