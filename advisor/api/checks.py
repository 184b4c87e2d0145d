"""The API's arguments checked against its own type hints, before anything runs.

A script passes what a command line cannot: ``None``, a string where a number goes, NaN.
Each public function is wrapped by ``checked``, which reads the function's annotations once
and refuses an argument of the wrong kind with an ``AdvisorError`` naming the function, the
parameter and what it got, instead of a ``TypeError`` from deep inside a stage. Only the
plain kinds are checked here (numbers, strings, flags, paths and their ``None``); the
traffic argument has its own reader (``sources.traffic_sources``), callables are hooks.
"""

from __future__ import annotations

import functools
import inspect
import math
import os
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, Union

from advisor.errors import AdvisorError

F = TypeVar("F", bound=Callable[..., Any])

# The kinds an annotation may name, and what each accepts (bool is not a number here).
_PLAIN: dict[Any, Callable[[Any], bool]] = {
    int: lambda v: isinstance(v, int) and not isinstance(v, bool),
    float: lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v),
    str: lambda v: isinstance(v, str),
    bool: lambda v: isinstance(v, bool),
    Path: lambda v: isinstance(v, (str, os.PathLike)),
    type(None): lambda v: v is None,
}
_NAMES = {int: "an integer", float: "a finite number", str: "a string", bool: "True or False",
          Path: "a path", type(None): "None"}


def _kinds(annotation: Any) -> tuple[Any, ...] | None:
    """The plain kinds a parameter's annotation allows, or None when it is not plain."""
    if annotation in _PLAIN:
        return (annotation,)
    if typing.get_origin(annotation) in (Union, types.UnionType):
        found: list[Any] = []
        for arm in typing.get_args(annotation):
            kinds = _kinds(arm)
            if kinds is None:
                return None  # a union with a non-plain arm (str | Sequence[str]) is the function's to read
            found.extend(kinds)
        return tuple(found)
    return None


def _annotation(func: Callable[..., Any], written: Any) -> Any:
    """A parameter's annotation as an object (the modules postpone them as strings); one
    that names what only a type checker imports is not a plain kind, and is left alone."""
    if not isinstance(written, str):
        return written
    try:
        return eval(written, func.__globals__)  # noqa: S307 - the API's own annotation text
    except (NameError, AttributeError, TypeError, SyntaxError):
        return None


def checked(func: F) -> F:
    """``func`` with its plain keyword arguments checked against its annotations."""
    signature = inspect.signature(func)
    plain = {name: kinds for name, p in signature.parameters.items()
             if (kinds := _kinds(_annotation(func, p.annotation))) is not None}

    @functools.wraps(func)
    def call(*args: Any, **kwargs: Any) -> Any:
        bound = signature.bind_partial(*args, **kwargs)
        for name, value in bound.arguments.items():
            kinds = plain.get(name)
            if kinds is not None and not any(_PLAIN[k](value) for k in kinds):
                wanted = " or ".join(_NAMES[k] for k in kinds)
                raise AdvisorError(f"{func.__name__}(): {name} must be {wanted} (got {type(value).__name__} {value!r:.60})")
        return func(*args, **kwargs)

    return typing.cast(F, call)


def check_fraction(name: str, value: float, low: float = 0.0, high: float = 1.0) -> None:
    """A share or threshold in [low, high] (the commands' ``min``/``max``)."""
    if not low <= value <= high:
        raise AdvisorError(f"{name} must be between {low:g} and {high:g} (got {value:g})")
