"""Rendering untrusted Jinja2 in the sandbox, with a time limit and size limits.

``ImmutableSandboxedEnvironment`` blocks attribute escapes and mutation of inputs, but
bounds neither CPU nor memory. Here:

* a wall-clock alarm stops endless loops (it fires between Python bytecodes);
* every operation that can build a huge value in ONE C-level call (where the alarm cannot
  reach) is checked before it runs: ``*``, ``%`` and ``+`` on sequences, ``~``
  concatenation, the width-taking string methods (``center``, ``ljust``, ``zfill``...),
  ``replace``, ``join``, ``format`` and the filters doing the same (``center``, ``indent``,
  ``format``, ``replace``, ``join``, ``batch``, ``slice``);
* compiling a template (which constant-folds expressions) runs under the same limits.

Every failure becomes one ``AdvisorError`` line.
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
import signal
import threading
from functools import update_wrapper, wraps
from typing import Any, Callable, Iterator

from jinja2 import TemplateError, TemplateNotFound, TemplateSyntaxError, nodes, pass_environment
from jinja2.filters import FILTERS as DEFAULT_FILTERS
from jinja2.filters import make_attrgetter
from jinja2.compiler import CodeGenerator, Frame
from jinja2.nodes import EvalContext
from jinja2.runtime import Context
from jinja2.sandbox import ImmutableSandboxedEnvironment, SecurityError

from advisor.errors import AdvisorError
from advisor.ingest import block_edges

DEFAULT_TIME_LIMIT = 2.0
MAX_OUTPUT_CHARS = 20_000_000
# Width, padding and repeat arguments above this are refused: no prompt needs them.
MAX_WIDTH = 1_000_000
MAX_INT_BITS = 100_000

# Width and precision of printf-style (%-10.3s) and str.format ({:>10.3}) specifications.
_PRINTF_SPEC = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(\d*)(?:\.(\d*))?")
_FORMAT_SPEC = re.compile(r"\{[^{}]*?:[^{}]*?(\d+)(?:\.(\d+))?[^{}]*\}")
# Widths taken from the arguments: %*d, %.*s, {0:{1}}.
_ARG_WIDTH = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(?:\*|\d*\.\*)|\{[^{}]*:[^{}]*\{")


class RenderTimeout(AdvisorError):
    pass


class _Alarm(BaseException):
    # BaseException: template code cannot swallow it with a broad ``except Exception``.
    pass


def _size(value: Any) -> int:
    return len(value) if isinstance(value, (str, bytes, bytearray, list, tuple)) else 0


def _check_size(n: int, what: str) -> None:
    if n > MAX_OUTPUT_CHARS:
        raise SecurityError(f"{what} result is too large")


def _check_bits(bits: int) -> None:
    # Integer arithmetic on huge numbers runs in one C call, out of the alarm's reach.
    if bits > MAX_INT_BITS:
        raise SecurityError("integer result is too large")


def _bounded_concat(parts: Any) -> str:
    """``"".join`` that stops once the text passes ``MAX_OUTPUT_CHARS``: Jinja builds a
    template's output, a ``{% set %}`` block's and a macro's with it, from many small parts."""
    out = []
    size = 0
    for part in parts:
        size += len(part)
        if size > MAX_OUTPUT_CHARS:
            raise SecurityError("template output is too large")
        out.append(part)
    return "".join(out)


def _check_width(value: Any, what: str) -> None:
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_WIDTH:
        raise SecurityError(f"{what} width {value} is too large")


def _check_format_string(fmt: Any, args: Any = ()) -> None:
    """Refuse format strings whose field widths or precisions are huge."""
    if not isinstance(fmt, str):
        return
    if _ARG_WIDTH.search(fmt):
        values = args.values() if isinstance(args, dict) else args if isinstance(args, (list, tuple)) else (args,)
        for value in values:
            _check_width(value, "format")
    for pattern in (_PRINTF_SPEC, _FORMAT_SPEC):
        for match in pattern.finditer(fmt):
            for group in match.groups():
                if group and len(group) > 6 and int(group) > MAX_WIDTH:
                    raise SecurityError(f"format width {group} is too large")


def _check_replace(s: Any, old: Any, new: Any) -> None:
    if isinstance(s, str) and isinstance(old, str) and isinstance(new, str):
        hits = len(s) + 1 if not old else s.count(old)
        _check_size(len(s) + hits * len(new), "replace")


def _check_join(sep: Any, items: Any) -> None:
    if isinstance(sep, str) and isinstance(items, (list, tuple)):
        _check_size(len(sep) * len(items) + sum(_size(i) for i in items), "join")


def _guard_method(obj: Any, args: tuple, kwargs: dict) -> tuple:
    """Checks for bound methods of ``str`` that can build a huge string in one call;
    returns the arguments to call with."""
    owner = getattr(obj, "__self__", None)
    name = getattr(obj, "__name__", "")
    if not isinstance(owner, str):
        return args
    if name in ("center", "ljust", "rjust", "zfill"):
        _check_width(args[0] if args else kwargs.get("width"), name)
    elif name == "expandtabs":
        size = args[0] if args else kwargs.get("tabsize", 8)
        if isinstance(size, int):
            _check_size(len(owner) + owner.count("\t") * max(size, 0), "expandtabs")
    elif name == "replace" and len(args) >= 2:
        _check_replace(owner, args[0], args[1])
    elif name == "join" and args:
        items = args[0]
        if not isinstance(items, (list, tuple, str)):
            items = list(items)  # a range or generator: measured, then joined
            args = (items,) + tuple(args[1:])
        _check_join(owner, items)
    elif name == "format":
        _check_format_string(owner, tuple(args) + tuple(kwargs.values()))
    elif name == "format_map":
        _check_format_string(owner, args[0] if args else ())
    return args


def _guarded_filter(name: str, func: Callable[..., Any]) -> Callable[..., Any]:
    """A filter that checks its size arguments before running (wraps keep Jinja's pass-context flags)."""

    @wraps(func)
    def run(*args: Any, **kwargs: Any) -> Any:
        # Filters taking the eval context get it first; the value follows.
        rest = [a for a in args if not _is_context(a)]
        value = rest[0] if rest else None
        params = rest[1:]
        if name == "center":
            _check_width(params[0] if params else kwargs.get("width"), name)
        elif name == "indent":
            width = params[0] if params else kwargs.get("width")
            _check_width(width, name)
            if isinstance(width, str) and isinstance(value, str):
                _check_size(len(value) + (value.count("\n") + 1) * len(width), name)
        elif name in ("batch", "slice"):
            _check_width(params[0] if params else kwargs.get("linecount", kwargs.get("slices")), name)
        elif name == "format":
            _check_format_string(value, tuple(params) + tuple(kwargs.values()))
        elif name == "replace" and len(params) >= 2:
            _check_replace(str(value), params[0], params[1])
        elif name == "join":
            sep = params[0] if params else kwargs.get("d", "")
            if not isinstance(value, (list, tuple, str)) and value is not None:
                # A range or generator: measured, then joined (the filter lists it anyway).
                value = list(value)
                index = next(i for i, a in enumerate(args) if not _is_context(a))
                args = args[:index] + (value,) + args[index + 1:]
            if isinstance(value, (list, tuple)):
                _check_join(sep, [str(v) for v in value] if len(value) < 200_000 else value)
        return func(*args, **kwargs)

    return run


def _is_context(value: Any) -> bool:
    return isinstance(value, (EvalContext, Context))


GUARDED_FILTERS = ("center", "indent", "batch", "slice", "format", "replace", "join")


@pass_environment
def _linear_sum(environment: Any, iterable: Any, attribute: Any = None, start: Any = 0) -> Any:
    """Jinja's ``sum`` filter, with sums of lists and tuples built in linear time.

    Python's ``sum`` concatenates sequences pairwise: n lists cost n**2/2 element copies in
    one C call, where no time check can reach (``([[1]] * 250000)|sum(start=[])`` ran for
    half a minute). Numbers go to the filter as they are."""
    if not isinstance(start, (list, tuple)):
        return _JINJA_SUM(environment, iterable, attribute, start)
    if attribute is not None:
        iterable = map(make_attrgetter(environment, attribute), iterable)
    kind = type(start)
    out = list(start)
    for item in iterable:
        if type(item) is not kind:
            out = list(kind(out) + item)  # what ``sum`` does: the same result, or its TypeError
        else:
            out.extend(item)
        _check_size(len(out), "sum")
    return kind(out)


_JINJA_SUM = DEFAULT_FILTERS["sum"]


class _BoundedBuffer(list):
    """The output buffer of a ``{% set %}`` block, macro or call block: Jinja appends every
    piece before joining them, so the size is checked as pieces arrive."""

    __slots__ = ("size",)

    def __init__(self) -> None:
        super().__init__()
        self.size = 0

    def append(self, item: Any) -> None:
        self.size += len(item)
        if self.size > MAX_OUTPUT_CHARS:
            raise SecurityError("template output is too large")
        super().append(item)

    def extend(self, items: Any) -> None:
        for item in items:
            self.append(item)


_NEW_BUFFER = re.compile(r"(t_\d+) = \[\]")


class _LimitedCodeGenerator(CodeGenerator):
    """Routes ``~`` concatenation and output buffers through size checks."""

    def visit_Concat(self, node: nodes.Concat, frame: Frame) -> None:
        self.write("environment.checked_concat(")
        super().visit_Concat(node, frame)
        self.write(")")

    def writeline(self, x: str, node: Any = None, extra: int = 0) -> None:
        match = _NEW_BUFFER.fullmatch(x)
        if match:
            x = f"{match.group(1)} = environment.output_buffer()"
        super().writeline(x, node, extra)


class LimitedSandbox(ImmutableSandboxedEnvironment):
    """The immutable sandbox, with the operations that can build huge values checked."""

    intercepted_binops = frozenset({"*", "**", "%", "+"})
    code_generator_class = _LimitedCodeGenerator
    concat = staticmethod(_bounded_concat)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name in GUARDED_FILTERS:
            if name in self.filters:
                self.filters[name] = _guarded_filter(name, self.filters[name])
        if self.filters.get("sum") is _JINJA_SUM:
            self.filters["sum"] = _linear_sum

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        if operator == "*":
            if isinstance(right, int) and _size(left):
                _check_size(_size(left) * right, "sequence multiplication")
            if isinstance(left, int) and _size(right):
                _check_size(_size(right) * left, "sequence multiplication")
            if isinstance(left, int) and isinstance(right, int):
                _check_bits(left.bit_length() + right.bit_length())
        elif operator == "**":
            if isinstance(right, int) and abs(right) > 1000:
                raise SecurityError("exponent is too large")
            if isinstance(left, int) and isinstance(right, int):
                _check_bits(left.bit_length() * right)
        elif operator == "%":
            _check_format_string(left, right)
        elif operator == "+":
            _check_size(_size(left) + _size(right), "concatenation")
        return super().call_binop(context, operator, left, right)

    def wrap_str_format(self, value: Any) -> Callable[..., str] | None:
        # Jinja routes str.format through a wrapper made at attribute access; check the
        # widths of the format string (and width arguments) before it runs.
        wrapped = super().wrap_str_format(value)
        if wrapped is None:
            return None
        fmt = value.__self__
        is_map = value.__name__ == "format_map"

        def checked(*args: Any, **kwargs: Any) -> str:
            _check_format_string(fmt, args[0] if is_map and args else tuple(args) + tuple(kwargs.values()))
            return wrapped(*args, **kwargs)

        return update_wrapper(checked, value)

    def unsafe_undefined(self, obj: Any, attribute: str) -> Any:
        # Jinja returns an undefined that prints as "" and fails only when used further;
        # refuse at once, so an escape attempt is always reported, never silently blank.
        raise SecurityError(f"access to attribute {attribute!r} of {type(obj).__name__!r} object is unsafe")

    @staticmethod
    def output_buffer() -> list:
        return _BoundedBuffer()

    def checked_concat(self, value: Any) -> Any:
        _check_size(len(value) if isinstance(value, str) else 0, "concatenation")
        return value

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805
        args = _guard_method(__obj, args, kwargs)
        return super().call(__context, __obj, *args, **kwargs)


# The clock time limits run on: wall time by default; CPU time in the render worker
# (advisor.ingest.render_worker), where a busy machine must not change which templates pass.
@dataclasses.dataclass
class _Clock:
    timer: int = signal.ITIMER_REAL
    signal: int = signal.SIGALRM
    unit: str = "s"
    seconds: float = DEFAULT_TIME_LIMIT  # the limit of a compile or render that names none


_CLOCK = _Clock()


def use_cpu_clock(seconds: float = DEFAULT_TIME_LIMIT) -> None:
    """Time limits from now on count this process' CPU time (user and system), ``seconds``
    of it for a compile or render that names no limit."""
    _CLOCK.timer, _CLOCK.signal, _CLOCK.unit = signal.ITIMER_PROF, signal.SIGPROF, "s of CPU time"
    _CLOCK.seconds = seconds


def use_wall_clock() -> None:
    """Back to wall time (the default)."""
    _CLOCK.timer, _CLOCK.signal, _CLOCK.unit = signal.ITIMER_REAL, signal.SIGALRM, "s"
    _CLOCK.seconds = DEFAULT_TIME_LIMIT


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise ``RenderTimeout`` if the block runs longer than ``seconds`` (main thread only)."""
    if seconds <= 0 or threading.current_thread() is not threading.main_thread():
        yield
        return

    timer, signum = _CLOCK.timer, _CLOCK.signal
    leaving = [False]

    def _fire(signum: int, frame: Any) -> None:
        if not block_edges.on_edge(frame, _EDGES):
            raise _Alarm()
        if not leaving[0]:  # on the way in: the stop comes again once the block runs
            signal.setitimer(timer, block_edges.DEFER_SECONDS, 0.1)

    previous = signal.signal(signum, _fire)
    signal.setitimer(timer, seconds, 0.1)  # repeating: a stop swallowed in a __del__ comes again
    try:
        yield
    except _Alarm:
        leaving[0] = True
        raise RenderTimeout(f"rendering took longer than {seconds:g} {_CLOCK.unit} and was stopped")
    finally:
        leaving[0] = True  # before the disarm, so no deferred shot outlives it
        signal.setitimer(timer, 0)
        signal.signal(signum, previous)


_EDGES = block_edges.edges_of(time_limit)


def _reason(exc: BaseException) -> str:
    """The one-line reason for a failure inside template code."""
    if isinstance(exc, AdvisorError):  # a refused include (advisor.ingest.safe_open): already one line
        return str(exc)
    if isinstance(exc, SecurityError):
        return f"template refused by the sandbox: {exc}"
    if isinstance(exc, TemplateNotFound):
        return f"included template '{exc.name}' not found"
    if isinstance(exc, TemplateError):
        lineno = getattr(exc, "lineno", None)
        where = f" (line {lineno})" if lineno else ""
        return f"template error{where}: {_first_line(exc.message or str(exc))}"
    if isinstance(exc, OverflowError) and "range" in str(exc):
        return f"template stopped: {_first_line(str(exc))}"
    if isinstance(exc, (RecursionError, MemoryError, OverflowError)):
        return f"template stopped: {type(exc).__name__}"
    return f"template failed: {type(exc).__name__}: {_first_line(str(exc))}"


def _first_line(text: str) -> str:
    return (text.splitlines() or [""])[0][:200]


def compile_untrusted(env: LimitedSandbox, text: str, source: str, what: str = "template",
                      seconds: float | None = None, line_offset: int = 0) -> Any:
    """Compile template text (which folds constants, so it runs code) under the limits.

    Errors name ``source`` and, for syntax errors, the line: ``file:line: ...``; a template
    that starts further down its file (a YAML value) passes the lines above as ``line_offset``.
    """
    seconds = _CLOCK.seconds if seconds is None else seconds
    try:
        with time_limit(seconds):
            return env.from_string(text)
    except TemplateSyntaxError as exc:
        line = (exc.lineno or 1) + line_offset
        raise AdvisorError(f"{source}:{line}: {what} syntax error: {_first_line(exc.message or str(exc))}")
    except RenderTimeout:
        raise AdvisorError(f"{source}: compiling the {what} took longer than {seconds:g} {_CLOCK.unit} and was stopped")
    except Exception as exc:  # parser recursion on deep nesting, and anything else: one line
        raise AdvisorError(f"{source}: {_reason(exc)}")


def render_untrusted(template: Any, variables: dict[str, Any], seconds: float | None = None) -> str:
    """Render a compiled sandbox template; every failure becomes one ``AdvisorError`` line."""
    seconds = _CLOCK.seconds if seconds is None else seconds
    try:
        with time_limit(seconds):
            text = template.render(**variables)
    except RenderTimeout:
        raise
    except Exception as exc:  # template code can raise anything; never a traceback
        raise AdvisorError(_reason(exc))
    if len(text) > MAX_OUTPUT_CHARS:
        raise AdvisorError("template output is too large")
    return text
