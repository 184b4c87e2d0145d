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


@app.callback()
def _group() -> None:
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


def _register_commands(argv: list[str]) -> None:
    # Imported for their side effect: each module decorates its commands onto ``app``.
    # Help, no command or an unknown one: all of them, so typer can list them all.
    # The group takes no options but --help, so the command is the first argument.
    module = COMMAND_MODULES.get(argv[0]) if argv else None
    modules = dict.fromkeys(COMMAND_MODULES.values()) if module is None else [module]
    for m in modules:
        importlib.import_module(f"advisor.commands.{m}")


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
    _register_commands(args)
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
    return 0

