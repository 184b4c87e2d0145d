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
from typing import Callable, TypeVar, cast

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
    try:
        pid = os.fork()
    except OSError:  # no process to spare (a process limit, no memory to commit): no helper
        out.close()
        return here(), there()
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
    with out:
        try:
            started_helper(pid)
            mine = here()
            _, status = os.waitpid(pid, 0)
        except BaseException:  # an error or an interrupt here: the helper goes too
            _reap(pid)
            raise
        waited_for(pid)
        out.seek(0)
        data = out.read()
    theirs = _loaded(data) if status == 0 else None
    if theirs is None:
        return mine, there()  # the child failed: the same work, here
    return mine, cast(B, theirs[0])


def _loaded(data: bytes) -> tuple[object] | None:
    """The child's result (in a tuple: None is a result), or None if it sent none."""
    try:
        return (pickle.loads(data),) if data else None
    except Exception:
        return None


def _reap(pid: int) -> None:
    """Stop a child whose parent gave up (an error or an interrupt in ``here``)."""
    import signal

    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except OSError:
        pass
    waited_for(pid)
