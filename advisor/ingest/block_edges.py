"""Where a timer's stop must not be raised: at the edges of the ``with`` block it guards.

A stop is an exception raised from a signal handler, so it lands on whatever bytecode runs
when the timer fires. Inside the block that is the point; but on the way in (``__enter__``
after the generator armed the timer, before the block's own clean-up is in place) or on the
way out (``__exit__``, the generator's ``finally`` before it disarms) the exception escapes
the ``with`` with the timer still armed, and its repeats then stop unrelated code. A handler
that finds itself on an edge defers: it re-arms a short shot that lands inside the block
(on the way in) or leaves the timer to the clean-up that disarms it (on the way out).
"""

from __future__ import annotations

import contextlib
from types import CodeType, FrameType
from typing import Any, Callable

# Soon enough that a deferred stop still lands near its limit; long enough that the few
# bytecodes of an edge are over when it comes.
DEFER_SECONDS = 2e-4

_CONTEXTLIB_EDGES = frozenset({contextlib._GeneratorContextManager.__enter__.__code__,
                               contextlib._GeneratorContextManager.__exit__.__code__})


def edges_of(manager: Callable[..., Any], *handlers: Callable[..., Any]) -> frozenset[CodeType]:
    """The codes of the frames that run around the block of a ``@contextmanager`` function:
    contextlib's ``__enter__``/``__exit__``, the generator's own code and the functions
    defined inside it, and the signal ``handlers`` (a second shot that lands while the
    handler re-arms, on a loaded machine, is on an edge too)."""
    generator = manager.__wrapped__.__code__  # type: ignore[attr-defined]
    nested = {c for c in generator.co_consts if isinstance(c, CodeType)}
    return _CONTEXTLIB_EDGES | {generator} | nested | {h.__code__ for h in handlers}


def on_edge(frame: FrameType | Any | None, edges: frozenset[CodeType]) -> bool:
    """Whether a handler called in ``frame`` is on an edge (no frame: cannot tell, so yes)."""
    return frame is None or frame.f_code in edges
