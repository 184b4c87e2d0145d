"""Rendering untrusted Jinja2 in the sandbox, with a time limit.

``ImmutableSandboxedEnvironment`` blocks attribute escapes and mutation of inputs, but
bounds neither CPU nor memory; a wall-clock alarm stops endless loops and giant
expansions, and a cap on output size stops memory blow-ups from string arithmetic.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from typing import Any, Iterator

from jinja2 import TemplateError
from jinja2.sandbox import ImmutableSandboxedEnvironment, SecurityError

from advisor.errors import AdvisorError

DEFAULT_TIME_LIMIT = 2.0
MAX_OUTPUT_CHARS = 20_000_000


class RenderTimeout(AdvisorError):
    pass


class _Alarm(BaseException):
    # BaseException: template code cannot swallow it with a broad ``except Exception``.
    pass


class LimitedSandbox(ImmutableSandboxedEnvironment):
    """The immutable sandbox, with binary operators checked for runaway sizes."""

    intercepted_binops = frozenset({"*", "**"})

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        if operator == "*" and isinstance(left, (str, list, tuple)) and isinstance(right, int):
            if len(left) * right > MAX_OUTPUT_CHARS:
                raise SecurityError("sequence multiplication result is too large")
        if operator == "*" and isinstance(right, (str, list, tuple)) and isinstance(left, int):
            if len(right) * left > MAX_OUTPUT_CHARS:
                raise SecurityError("sequence multiplication result is too large")
        if operator == "**" and isinstance(right, int) and abs(right) > 1000:
            raise SecurityError("exponent is too large")
        return super().call_binop(context, operator, left, right)


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise ``RenderTimeout`` if the block runs longer than ``seconds`` (main thread only)."""
    if seconds <= 0 or threading.current_thread() is not threading.main_thread():
        yield
        return

    def _fire(signum: int, frame: Any) -> None:
        raise _Alarm()

    previous = signal.signal(signal.SIGALRM, _fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    except _Alarm:
        raise RenderTimeout(f"rendering took longer than {seconds:g} s and was stopped")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def render_untrusted(template: Any, variables: dict[str, Any], seconds: float = DEFAULT_TIME_LIMIT) -> str:
    """Render a compiled sandbox template; every failure becomes one ``AdvisorError`` line."""
    try:
        with time_limit(seconds):
            text = template.render(**variables)
    except RenderTimeout:
        raise
    except SecurityError as exc:
        raise AdvisorError(f"template refused by the sandbox: {exc}")
    except TemplateError as exc:
        where = f" (line {exc.lineno})" if getattr(exc, "lineno", None) else ""
        raise AdvisorError(f"template error{where}: {exc.message or exc}")
    except (RecursionError, MemoryError, OverflowError) as exc:
        raise AdvisorError(f"template stopped: {type(exc).__name__}")
    except Exception as exc:  # template code can raise anything; never a traceback
        raise AdvisorError(f"template failed: {type(exc).__name__}: {exc}")
    if len(text) > MAX_OUTPUT_CHARS:
        raise AdvisorError("template output is too large")
    return text
