"""The command line: a thin layer that parses options and calls library functions.

Each command lives in ``advisor/commands/<name>.py`` and registers itself on ``app``;
this module only owns the app, the shared consoles and the error boundary.
"""

from __future__ import annotations

import typer

from advisor.errors import AdvisorError
from advisor.console import log

app = typer.Typer(
    name="advisor",
    help="Prompt-template linter and KV-cache (prefix caching) advisor for LLM serving.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _register_commands() -> None:
    # Imported for their side effect: each module decorates its commands onto ``app``.
    import advisor.commands  # noqa: F401


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``advisor`` console script."""
    _register_commands()
    try:
        app(args=argv, prog_name="advisor", standalone_mode=True)
    except AdvisorError as exc:
        log(f"advisor: error: {exc}")
        return exc.exit_code
    except KeyboardInterrupt:
        log("advisor: interrupted")
        return 130
    except SystemExit as exc:
        code = exc.code
        if code == 130:  # typer turns Ctrl-C into a silent exit 130
            log("advisor: interrupted")
        return code if isinstance(code, int) else (0 if code is None else 2)
    return 0

