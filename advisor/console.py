"""Where output goes: machine output on stdout, progress and logs on stderr."""

from __future__ import annotations

import os
import re
import sys
from typing import Iterable

from rich.console import Console
from rich.segment import Segment

# Characters that never reach the output as they are: C0 controls but tab and newline (a
# carriage return only before a newline), DEL, C1 controls (ESC [ and CSI move the cursor,
# retitle the window, rewrite what was printed) and lone surrogates (a file name that is
# not UTF-8: unencodable). Traffic, file names and templates are written by others.
_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]|\r(?!\n)")
# In a line of its own (a log line), newlines and carriage returns too.
_UNSAFE_IN_LINE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\ud800-\udfff]")


class OutputClosed(Exception):
    """The reader of stdout or stderr went away (``advisor analyze F | head -1``)."""


def _escape(m: re.Match[str]) -> str:
    # JSON's notation: valid inside a JSON string, and what --format json shows for the same character.
    return f"\\u{ord(m.group()):04x}"


def visible(text: str) -> str:
    """``text`` with the characters of ``_UNSAFE`` written as ``\\u001b`` escapes."""
    return _UNSAFE.sub(_escape, text)


class _Console(Console):
    """A rich console that shows the text it is given (``visible``) while it still writes
    its own styles, and reports a closed pipe instead of exiting with status 1."""

    def _render_buffer(self, buffer: Iterable[Segment]) -> str:
        # rich strips BEL, BS and CR from text but keeps ESC: a prompt could restyle the
        # terminal. Its own control segments (cursor moves) stay as they are.
        return super()._render_buffer(seg if seg.control else Segment(visible(seg.text), seg.style)
                                      for seg in buffer)

    def on_broken_pipe(self) -> None:
        raise OutputClosed


# No file is bound: rich then looks up sys.stdout/sys.stderr at each write, so redirection
# (and test capture) applies. Piped output stays plain; NO_COLOR is honoured by rich itself.
# Piped text gets a fixed width, so reports do not depend on the terminal they ran in.
out_console = _Console(highlight=False, width=None if sys.stdout.isatty() else 120)
err_console = _Console(highlight=False, stderr=True)


def write_stdout(text: str) -> None:
    """Write machine output exactly as given (no rich wrapping or markup)."""
    try:
        sys.stdout.write(text)
        if not text.endswith("\n"):
            sys.stdout.write("\n")
        sys.stdout.flush()
    except BrokenPipeError:
        raise OutputClosed from None


def progress_mode() -> str:
    """How reading traffic shows its progress on stderr: ``bar`` on a terminal (redrawn in
    place), ``lines`` anywhere else (a CI log: a plain line now and then, which a redrawn bar
    would flood with escape codes), ``off`` when ``ADVISOR_NO_PROGRESS`` is set (the tests)."""
    if os.environ.get("ADVISOR_NO_PROGRESS"):
        return "off"
    return "bar" if sys.stderr.isatty() else "lines"


def progress_enabled() -> bool:
    """Whether the redrawn progress bar is shown (a terminal, progress not turned off)."""
    return progress_mode() == "bar"


def log(text: str) -> None:
    """One plain line on stderr: never wrapped, so `file:line: reason` stays greppable; a
    newline or control character inside it (a skip reason quotes the record) is escaped."""
    try:
        sys.stderr.write(_UNSAFE_IN_LINE.sub(_escape, text.rstrip("\n")) + "\n")
        sys.stderr.flush()
    except BrokenPipeError:
        raise OutputClosed from None
