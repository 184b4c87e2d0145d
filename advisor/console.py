"""Where output goes: machine output on stdout, progress and logs on stderr."""

from __future__ import annotations

import os
import sys

from rich.console import Console

# No file is bound: rich then looks up sys.stdout/sys.stderr at each write, so redirection
# (and test capture) applies. Piped output stays plain; NO_COLOR is honoured by rich itself.
# Piped text gets a fixed width, so reports do not depend on the terminal they ran in.
out_console = Console(highlight=False, width=None if sys.stdout.isatty() else 120)
err_console = Console(highlight=False, stderr=True)


def write_stdout(text: str) -> None:
    """Write machine output exactly as given (no rich wrapping or markup)."""
    sys.stdout.write(text)
    if not text.endswith("\n"):
        sys.stdout.write("\n")
    sys.stdout.flush()


def progress_enabled() -> bool:
    return sys.stderr.isatty() and not os.environ.get("ADVISOR_NO_PROGRESS")


def log(text: str) -> None:
    """One plain line on stderr: never wrapped, so `file:line: reason` stays greppable."""
    sys.stderr.write(text.rstrip("\n") + "\n")
    sys.stderr.flush()
