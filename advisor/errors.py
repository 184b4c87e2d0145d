"""The one error type advisor raises for bad input or bad usage."""

from __future__ import annotations


class AdvisorError(Exception):
    """A problem the user can fix; the CLI prints it as one line and exits 2."""

    exit_code = 2
