"""How many cores a second process would have to itself (lint's workers, the advisory's
forked simulation): directly in ``advisor/`` so any stage may ask without an import loop."""

from __future__ import annotations

import os


def idle_cores() -> float:
    """Cores beyond this process that nobody else is using, by the 1-minute load: on a busy
    machine a second process only adds start-up cost (the result is the same either way)."""
    cores = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        load = 0.0
    return cores - max(load, 1.0)
