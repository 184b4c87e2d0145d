"""Independent computations at once: a forked helper works through a list of them while
the parent goes on, and each result is there as soon as the helper has it.

The advisory simulates today's traffic while it prescribes, the prescription searches the
canonical order of the traffic as logged while it weighs its moves, and the rewritten
traffic's capacity curve is drawn beside its other figures: computations that share
nothing but their inputs, each seconds of pure Python. On a machine with a core to spare
they run in a child forked after their inputs exist (it inherits them; nothing is pickled
on the way in). The child sends each result back as plain data through an unnamed
temporary file of its own (a pipe would block a child whose result outgrows its buffer
until the parent reads), and marks it done with one byte on a pipe, so the parent waits
for the result it needs and no longer. The result is the same either way: the child runs
the same functions on the same inputs; where there is no idle core (``advisor.cores``: one
helper at a time), no ``fork``, or the child fails for any reason, the parent computes
what it still lacks itself, when it first asks for it. Directly in ``advisor/`` (as
``cores``): the prescription and the advisory both start helpers.
"""

from __future__ import annotations

import os
import pickle
import tempfile
from types import TracebackType
from typing import IO, Any, Callable, TypeVar

from advisor.cores import become_helper, idle_cores, started_helper, waited_for

IDLE_ENOUGH = 0.5  # cores
A = TypeVar("A")
B = TypeVar("B")


class Beside:
    """The results of ``theres`` (functions of no argument), computed in order by a helper
    forked at once where a core is idle; ``result(k)`` waits for the ``k``-th, or computes
    it here. A context manager: leaving it stops a helper still at work."""

    def __init__(self, *theres: Callable[[], Any]) -> None:
        self._theres = theres
        self._results: dict[int, tuple[Any]] = {}
        self._pid: int | None = None
        self._files: list[IO[bytes]] = []
        self._ready = -1  # the pipe's read end: one byte per result the helper has sent
        self._sent = 0
        self._start()

    def _start(self) -> None:
        # Half a core is enough: the 1-minute load counts this very process, busy since it started.
        if not self._theres or not hasattr(os, "fork") or idle_cores() < IDLE_ENOUGH:
            return
        try:
            self._files = [tempfile.TemporaryFile() for _ in self._theres]
            read, write = os.pipe()
        except OSError:  # no writable temporary folder, no descriptor to spare: no helper
            self._close_files()
            return
        try:
            pid = os.fork()
        except OSError:  # no process to spare (a process limit, no memory to commit): no helper
            os.close(read)
            os.close(write)
            self._close_files()
            return
        if pid == 0:  # the child: compute, send, and leave without running the parent's exit code
            become_helper()
            status = 0
            try:
                os.close(read)
                for there, out in zip(self._theres, self._files):
                    pickle.dump(there(), out, protocol=pickle.HIGHEST_PROTOCOL)
                    out.flush()
                    os.write(write, b"\x01")
            except BaseException:
                status = 1
            finally:
                os._exit(status)
        os.close(write)
        self._pid, self._ready = pid, read
        started_helper(pid)

    def result(self, k: int = 0) -> Any:
        """The ``k``-th result: the helper's once it has sent it, else computed here (no
        helper, or it failed before)."""
        if k not in self._results:
            while self._pid is not None and self._sent <= k:
                got = os.read(self._ready, 64)
                if not got:  # the helper is gone: it sends no more
                    self._reap()
                    break
                self._sent += len(got)
            sent = self._loaded(k) if self._sent > k else None
            self._results[k] = sent if sent is not None else (self._theres[k](),)
            if len(self._results) == len(self._theres):
                self.close()
        return self._results[k][0]

    def _loaded(self, k: int) -> tuple[Any] | None:
        """The helper's ``k``-th result (in a tuple: None is a result), or None if unreadable."""
        try:
            out = self._files[k]
            out.seek(0)
            return (pickle.loads(out.read()),)
        except Exception:
            return None

    def _reap(self, kill: bool = False) -> None:
        pid, self._pid = self._pid, None
        if pid is None:
            return
        try:
            if kill:
                import signal

                os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except OSError:
            pass
        waited_for(pid)
        os.close(self._ready)

    def _close_files(self) -> None:
        for out in self._files:
            out.close()
        self._files = []

    def close(self) -> None:
        """Stop and reap a helper still at work (the parent gave up: an error, an interrupt,
        or it needs nothing more), and drop what it sent."""
        self._reap(kill=True)
        self._close_files()

    def __enter__(self) -> Beside:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()


def run_beside(here: Callable[[], A], there: Callable[[], B]) -> tuple[A, B]:
    """``(here(), there())``, ``there`` in a forked child when a core is idle."""
    with Beside(there) as side:
        mine = here()
        theirs: B = side.result(0)
    return mine, theirs
