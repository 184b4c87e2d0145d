"""Two independent computations at once, the second in a forked child when a core is idle.

The advisory simulates today's traffic while it prescribes, and the rewritten traffic's
capacity curve beside its other figures: computations that share nothing but their inputs,
each seconds of pure Python. On a machine with a core to spare the second runs in a child
forked after its inputs exist (it inherits them; nothing is pickled on the way in), and
sends its result back as plain data through an unnamed temporary file (a pipe would block
a child whose result outgrows its buffer until the parent is done). The result is the same
either way: the child runs the same function on the same inputs; where there is no idle
core (``advisor.cores``: one helper at a time), no ``fork``, or the child fails for any
reason, the parent runs it itself.
"""

from __future__ import annotations

import os
import pickle
import tempfile
from typing import Callable, TypeVar

from advisor.cores import become_helper, idle_cores, started_helper, waited_for

IDLE_ENOUGH = 0.5  # cores
A = TypeVar("A")
B = TypeVar("B")


def run_beside(here: Callable[[], A], there: Callable[[], B]) -> tuple[A, B]:
    """``(here(), there())``, ``there`` in a forked child when a core is idle."""
    # Half a core is enough: the 1-minute load counts this very process, busy since it started.
    if not hasattr(os, "fork") or idle_cores() < IDLE_ENOUGH:
        return here(), there()
    try:
        out = tempfile.TemporaryFile()
    except OSError:  # no writable temporary folder: no helper
        return here(), there()
    pid = os.fork()
    if pid == 0:  # the child: compute, send, and leave without running the parent's exit code
        become_helper()
        status = 0
        try:
            pickle.dump(there(), out, protocol=pickle.HIGHEST_PROTOCOL)
            out.flush()
        except BaseException:
            status = 1
        finally:
            os._exit(status)
    started_helper(pid)
    with out:
        try:
            mine = here()
        except BaseException:
            _reap(pid)
            raise
        _, status = os.waitpid(pid, 0)
        waited_for(pid)
        out.seek(0)
        data = out.read()
    if status != 0 or not data:
        return mine, there()  # the child failed: the same work, here
    return mine, pickle.loads(data)


def _reap(pid: int) -> None:
    """Stop a child whose parent gave up (an error or an interrupt in ``here``)."""
    import signal

    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except OSError:
        pass
    waited_for(pid)
