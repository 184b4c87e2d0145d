"""Per-file limits of the linter: CPU time for a whole file, and a safe engine for the
regular expressions a configuration brings (``section_markers``).

Lint reads templates from pull requests; a pathological one (or a configured regex with
catastrophic backtracking) must cost one finding on that file, never the CI job. The
limit counts CPU time (``ITIMER_PROF``), so a loaded machine lints exactly what an idle
one does. Configured regexes run on the ``regex`` engine, under a CPU-time limit of their
own, because the standard library's matcher runs in one C call that no signal interrupts
(``regex`` checks for signals as it matches).
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
import time
from typing import Any, Iterator

import regex

from advisor.errors import AdvisorError
from advisor.ingest import block_edges

# A template of a few hundred KB lints in well under a second; a file that uses this much,
# with the interpreter's start, still ends within 10 s with the cores shared three ways.
FILE_CPU_SECONDS = 2.0
MARKER_SECONDS = 0.5
REPEAT_SECONDS = 0.05
# Wall time for one marker search where no CPU timer can run (outside the main thread).
MARKER_WALL_SECONDS = 4.0

# The CPU-time deadlines in force, innermost last: (time.process_time() deadline, reason).
_DEADLINES: list[tuple[float, str]] = []


class LintStopped(BaseException):
    """A file's lint ran out of its budget. BaseException: rule code cannot swallow it."""


def _fire(signum: int, frame: Any) -> None:
    if not _DEADLINES:  # the last limit was just left; its clean-up disarms the timer
        return
    now = time.process_time()
    due = [d for d in _DEADLINES if d[0] <= now + 1e-3]
    if not due:
        _arm()  # early (the timer's granularity): wait for the soonest deadline again
    elif block_edges.on_edge(frame, _EDGES):  # entering or leaving a limit: stop a moment later
        signal.setitimer(signal.ITIMER_PROF, block_edges.DEFER_SECONDS, REPEAT_SECONDS)
    else:
        raise LintStopped(min(due)[1])


def _arm() -> None:
    left = min(d for d, _ in _DEADLINES) - time.process_time()
    # Repeating: a stop raised where Python swallows it (a __del__, a weakref callback) is
    # raised again a moment later instead of being lost.
    signal.setitimer(signal.ITIMER_PROF, max(left, 1e-3), REPEAT_SECONDS)


def cpu_available() -> bool:
    """Whether CPU-time limits can run here (the timer's signal goes to the main thread)."""
    return threading.current_thread() is threading.main_thread()


@contextlib.contextmanager
def cpu_limit(seconds: float = FILE_CPU_SECONDS, reason: str | None = None) -> Iterator[None]:
    """Raise ``LintStopped`` once the block has used ``seconds`` of CPU time (main thread
    only). Limits nest: an inner one (a marker search) stops with its own reason."""
    if seconds <= 0 or not cpu_available():
        yield
        return
    why = reason or f"not linted: it took more than {seconds:g} s of CPU time"
    outer = not _DEADLINES
    previous = signal.signal(signal.SIGPROF, _fire) if outer else None
    if outer:
        _HOOKS.append(sys.unraisablehook)
        sys.unraisablehook = _unraisable
    _DEADLINES.append((time.process_time() + seconds, why))
    _arm()
    try:
        yield
    finally:
        _DEADLINES.pop()
        if outer:
            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.signal(signal.SIGPROF, previous)
            sys.unraisablehook = _HOOKS.pop()
        else:
            _arm()


# The unraisable hooks in force before the outer limit, to hand everything else to.
_HOOKS: list[Any] = []


def _unraisable(unraisable: Any) -> None:
    """A stop raised where Python cannot raise it (a finalizer, a weakref callback) is
    dropped, not printed with its traceback: the repeating timer raises it again a moment
    later, where it can stop the lint."""
    if isinstance(unraisable.exc_value, LintStopped):
        return
    _HOOKS[-1](unraisable)


_EDGES = block_edges.edges_of(cpu_limit, _fire, _arm, _unraisable)


class MarkerPattern:
    """A configured section-marker regex on the ``regex`` engine (VERSION0: the standard
    library's syntax), which checks for signals as it matches: each search gets
    ``MARKER_SECONDS`` of CPU time, so a loaded machine stops exactly what an idle one does."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        try:
            self._compiled = regex.compile(pattern, flags=regex.VERSION0)
        except regex.error as exc:
            raise AdvisorError(f"invalid regular expression {pattern!r}: {exc}") from None

    def search(self, text: str) -> Any:
        reason = (f"not linted: section marker {self.pattern!r} took more than {MARKER_SECONDS:g} s of CPU time "
                  "on one line (catastrophic backtracking?)")
        if cpu_available():
            with cpu_limit(MARKER_SECONDS, reason):
                return self._compiled.search(text)
        try:
            return self._compiled.search(text, timeout=MARKER_WALL_SECONDS)
        except TimeoutError:
            raise LintStopped(reason) from None

    def __getstate__(self) -> str:  # the forked lint workers pickle results, not settings; keep it cheap anyway
        return self.pattern

    def __setstate__(self, pattern: str) -> None:
        self.__init__(pattern)  # type: ignore[misc]


# --- work that bounds itself ---------------------------------------------------------------------

# The Python analysis (advisor.lint.python) bounds its work by counting steps, the same on an
# idle machine and a loaded one, and reads at most a fixed size of a module; the CPU-time
# limit stays around it only as a safety net, far above what that budget takes (about 2 s
# of CPU for a module at its limits on the development machine).
SELF_BOUNDED_CPU_SECONDS = 60.0


@contextlib.contextmanager
def self_bounded(seconds: float = SELF_BOUNDED_CPU_SECONDS, reason: str | None = None) -> Iterator[None]:
    """Run a block that bounds its own work (deterministically) under a CPU-time limit of
    ``seconds`` in place of the limits in force, which it is not charged to: once it ends,
    they allow as much CPU time as they did when it began. Outside any limit it is a
    ``cpu_limit`` of its own; where no CPU timer can run, no limit."""
    if seconds <= 0 or not cpu_available():
        yield
        return
    if not _DEADLINES:
        with cpu_limit(seconds, reason):
            yield
        return
    why = reason or f"not linted: it took more than {seconds:g} s of CPU time"
    outer = list(_DEADLINES)
    started = time.process_time()
    _DEADLINES[:] = [(started + seconds, why)]
    _arm()
    try:
        yield
    finally:
        spent = time.process_time() - started
        _DEADLINES[:] = [(deadline + spent, what) for deadline, what in outer]
        _arm()


# Its frames are edges too: a stop must not land while it swaps the deadlines.
_EDGES = _EDGES | block_edges.edges_of(self_bounded)
