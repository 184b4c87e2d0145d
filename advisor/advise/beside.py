"""Two independent computations at once, the second in a forked child when a core is idle.

The advisory simulates today's traffic and the traffic after the fix: two studies that share
nothing but their inputs, each a few seconds of pure Python. On a machine with a core to
spare the second runs in a child forked after both inputs exist (it inherits them; nothing
is pickled on the way in), and sends its result back as plain data through a pipe. The
result is the same either way: the child runs the same function on the same inputs; where
there is no idle core, no ``fork``, or the child fails for any reason, the parent runs it
itself.
"""

from __future__ import annotations

import os
import pickle
from typing import Callable, TypeVar

from advisor.cores import idle_cores

IDLE_ENOUGH = 0.5  # cores
A = TypeVar("A")
B = TypeVar("B")


def run_beside(here: Callable[[], A], there: Callable[[], B]) -> tuple[A, B]:
    """``(here(), there())``, ``there`` in a forked child when a core is idle."""
    # Half a core is enough: the 1-minute load counts this very process, busy since it started.
    if not hasattr(os, "fork") or idle_cores() < IDLE_ENOUGH:
        return here(), there()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: compute, send, and leave without running the parent's exit code
        os.close(read)
        status = 0
        try:
            payload = pickle.dumps(there(), protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(write, "wb") as out:
                out.write(payload)
        except BaseException:
            status = 1
        finally:
            os._exit(status)
    os.close(write)
    try:
        mine = here()
    except BaseException:
        _reap(pid, read)
        raise
    with os.fdopen(read, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(pid, 0)
    if status != 0 or not data:
        return mine, there()  # the child failed: the same work, here
    return mine, pickle.loads(data)


def _reap(pid: int, read: int) -> None:
    """Stop a child whose parent gave up (an error or an interrupt in ``here``)."""
    import signal

    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except OSError:
        pass
    os.close(read)
