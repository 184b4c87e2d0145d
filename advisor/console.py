"""Where output goes: machine output on stdout, progress and logs on stderr."""

from __future__ import annotations

import os
import sys

from rich.console import Console

# Piped output stays plain and stable; NO_COLOR is honoured by rich itself.
out_console = Console(file=sys.stdout, soft_wrap=True, highlight=False)
err_console = Console(file=sys.stderr, highlight=False, stderr=True)


def write_stdout(text: str) -> None:
    """Write machine output exactly as given (no rich wrapping or markup)."""
    sys.stdout.write(text)
    if not text.endswith("\n"):
        sys.stdout.write("\n")
    sys.stdout.flush()


def progress_enabled() -> bool:
    return sys.stderr.isatty() and not os.environ.get("ADVISOR_NO_PROGRESS")
