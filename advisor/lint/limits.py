"""Per-file limits of the linter: CPU time for a whole file, and a safe engine for the
regular expressions a configuration brings (``section_markers``).

Lint reads templates from pull requests; a pathological one (or a configured regex with
catastrophic backtracking) must cost one finding on that file, never the CI job. The
limit counts CPU time (``ITIMER_PROF``), so a loaded machine lints exactly what an idle
one does. Configured regexes run on the ``regex`` engine with a timeout, because the
standard library's matcher runs in one C call that no signal interrupts.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from typing import Any, Iterator

import regex

from advisor.errors import AdvisorError

FILE_CPU_SECONDS = 5.0
MARKER_SECONDS = 1.0
REPEAT_SECONDS = 0.05


class LintStopped(BaseException):
    """A file's lint ran out of its budget. BaseException: rule code cannot swallow it."""


@contextlib.contextmanager
def cpu_limit(seconds: float = FILE_CPU_SECONDS) -> Iterator[None]:
    """Raise ``LintStopped`` once the block has used ``seconds`` of CPU time (main thread only)."""
    if seconds <= 0 or threading.current_thread() is not threading.main_thread():
        yield
        return

    def _fire(signum: int, frame: Any) -> None:
        raise LintStopped(f"not linted: it took more than {seconds:g} s of CPU time")

    previous = signal.signal(signal.SIGPROF, _fire)
    # Repeating: a stop raised where Python swallows it (a __del__, a weakref callback) is
    # raised again a moment later instead of being lost.
    signal.setitimer(signal.ITIMER_PROF, seconds, REPEAT_SECONDS)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


class MarkerPattern:
    """A configured section-marker regex, matched with a timeout on the ``regex`` engine
    (VERSION0: the standard library's syntax)."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        try:
            self._compiled = regex.compile(pattern, flags=regex.VERSION0)
        except regex.error as exc:
            raise AdvisorError(f"invalid regular expression {pattern!r}: {exc}") from None

    def search(self, text: str) -> Any:
        try:
            return self._compiled.search(text, timeout=MARKER_SECONDS)
        except TimeoutError:
            raise LintStopped(f"not linted: section marker {self.pattern!r} took more than {MARKER_SECONDS:g} s "
                              "on one line (catastrophic backtracking?)") from None

    def __getstate__(self) -> str:  # the forked lint workers pickle results, not settings; keep it cheap anyway
        return self.pattern

    def __setstate__(self, pattern: str) -> None:
        self.__init__(pattern)  # type: ignore[misc]
