"""How many cores a second process would have to itself (lint's workers, the advisory's
forked helpers): directly in ``advisor/`` so any stage may ask without an import loop.

A process runs at most one helper at a time, and a helper runs none: the machine this is
sized for has two cores, and a third busy process would only slow the other two. The
1-minute load lags the helpers a process forked, so they are counted here, not by load.
"""

from __future__ import annotations

import os

_helpers: set[int] = set()  # pids of the helpers this process forked and has not waited for
_is_helper = False  # this process is a helper: the other core is its parent's


def idle_cores() -> float:
    """Cores beyond this process that nobody else is using, by the 1-minute load: on a busy
    machine a second process only adds start-up cost (the result is the same either way).
    None idle while a helper of this process still computes, nor in a helper."""
    if _is_helper or any(_computing(pid) for pid in _helpers):
        return 0.0
    cores = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        load = 0.0
    return cores - max(load, 1.0)


def started_helper(pid: int) -> None:
    """In the parent, after forking ``pid``: it holds the spare core until it exits."""
    _helpers.add(pid)


def waited_for(pid: int) -> None:
    """In the parent, once ``pid`` is reaped."""
    _helpers.discard(pid)


def become_helper() -> None:
    """In a forked helper, first thing: it forks nothing more."""
    global _is_helper
    _is_helper = True
    _helpers.clear()


def _computing(pid: int) -> bool:
    """Whether a forked helper has not exited yet (left to be reaped by whoever waits for it).
    Without ``os.waitid`` (macOS before Python 3.13) a helper not yet waited for counts as
    computing: the parent then forks no second one, which costs time, never a result."""
    if not hasattr(os, "waitid"):
        return True
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None
    except (ChildProcessError, OSError):
        return False
