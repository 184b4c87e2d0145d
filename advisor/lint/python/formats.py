"""Strings built from pieces: f-strings, ``%``, ``str.format`` and ``string.Template``.

Each builder turns a format and its arguments into the parts of a :class:`Text`, every
argument placed where its placeholder is, so a finding points at the placeholder.
"""

from __future__ import annotations

import re
import string
from dataclasses import replace
from typing import Callable

from advisor.lint.python.values import (
    CLOCK, CONST, DATE, Loc, Mapping, Opaque, Part, Seq, Splat, Taint, Text, Value, literal_of, taint_of, text_parts,
)

# strftime directives that show a time of day (or finer); without them a format is a date.
_TIME_DIRECTIVES = re.compile(r"%[-_0^#]?[HIMSfpXcsTRrklzZ]")
_PERCENT = re.compile(r"%(?:\((?P<key>[^)]*)\))?[#0\- +]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[hlL]?(?P<conv>[diouxXeEfFgGcrsab%])")
_DOLLAR = re.compile(r"\$(?:(?P<escaped>\$)|(?P<named>[_a-zA-Z][_a-zA-Z0-9]*)|\{(?P<braced>[_a-zA-Z][_a-zA-Z0-9]*)\})")

# An argument: its value, where it is in the source and its text (for messages).
Arg = tuple[Value, Loc, str]


def date_only(fmt: str) -> bool:
    return not _TIME_DIRECTIVES.search(fmt)


def dated(value: Value, fmt: str, where: str) -> Value:
    """A clock value formatted without a time of day changes once a day."""
    taint = taint_of(value)
    if taint.kind == CLOCK and "%" in fmt and date_only(fmt):
        return Opaque(replace(taint, kind=DATE, reason=f"the date ({where})"))
    return value


def percent(fmt: str, right: Value, args: list[Arg], default: Arg) -> Text:
    """``fmt % right``: ``args`` are the tuple's items when the code spells them out."""
    parts: list[Part] = []
    pos = 0
    index = 0
    for m in _PERCENT.finditer(fmt):
        parts.append(Part(fmt[pos:m.start()]))
        pos = m.end()
        if m.group("conv") == "%":
            parts.append(Part("%"))
            continue
        key = m.group("key")
        if key is not None:
            arg = _entry(right, key, default)
        elif index < len(args):
            arg = args[index]
            index += 1
        else:
            arg = default
        parts.extend(text_parts(*arg))
    parts.append(Part(fmt[pos:]))
    return Text(tuple(p for p in parts if p.text != ""))


def _entry(mapping: Value, key: str, default: Arg) -> Arg:
    if isinstance(mapping, Mapping) and key in mapping.entries:
        return mapping.entries[key], default[1], default[2]
    return Opaque(taint_of(mapping)), default[1], default[2]


def str_format(fmt: str, args: list[Arg], kwargs: dict[str, Arg], default: Arg) -> Text:
    """``fmt.format(*args, **kwargs)``; a ``**mapping`` is in ``kwargs["**"]``."""
    parts: list[Part] = []
    auto = 0
    try:
        fields = list(string.Formatter().parse(fmt))
    except ValueError:
        return Text((Part(None, strongest_arg([*args, *kwargs.values()]), default[1], default[2]),))
    for literal, name, spec, _ in fields:
        if literal:
            parts.append(Part(literal))
        if name is None:
            continue
        base = re.split(r"[.\[]", name, maxsplit=1)[0]
        if base == "":
            arg = args[auto] if auto < len(args) else default
            auto += 1
        elif base.isdigit():
            arg = args[int(base)] if int(base) < len(args) else default
        else:
            arg = kwargs.get(base) or (_entry(kwargs["**"][0], base, kwargs["**"]) if "**" in kwargs else default)
        value = arg[0] if base == name else Opaque(taint_of(arg[0]))
        if spec:
            value = dated(value, spec, arg[2])
        parts.extend(text_parts(value, arg[1], arg[2]))
    return Text(tuple(parts))


def strongest_arg(args: list[Arg]) -> Taint:
    best = CONST
    for value, _, _ in args:
        t = taint_of(value)
        if t.rank > best.rank:
            best = t
    return best


def substitute(source: str, kwargs: dict[str, Arg], default: Arg) -> Text:
    """``string.Template(source).substitute(**kwargs)``."""
    parts: list[Part] = []
    pos = 0
    for m in _DOLLAR.finditer(source):
        parts.append(Part(source[pos:m.start()]))
        pos = m.end()
        if m.group("escaped"):
            parts.append(Part("$"))
            continue
        name = m.group("named") or m.group("braced")
        arg = kwargs.get(name) or (_entry(kwargs["**"][0], name, kwargs["**"]) if "**" in kwargs else default)
        parts.extend(text_parts(*arg))
    parts.append(Part(source[pos:]))
    return Text(tuple(p for p in parts if p.text != ""))


def tuple_args(value: Value, node_args: list[Arg] | None, default: Arg) -> list[Arg]:
    """The arguments of ``fmt % value``: a tuple's items, else the value itself."""
    if node_args is not None:
        return node_args
    if isinstance(value, Seq) and value.kind == "tuple" and value.items is not None:
        return [(item.value if isinstance(item, Splat) else item, default[1], default[2]) for item in value.items]
    return [(value, default[1], default[2])]


def static_text(value: Value) -> str | None:
    """The text of a string known in full."""
    ok, lit = literal_of(value)
    return lit if ok and isinstance(lit, str) else None


def map_static(value: Text, change: Callable[[str], str]) -> Text:
    """A text with a string method applied to its known parts (``.strip()`` only touches the
    ends, ``.lower()`` every part: close enough for counting tokens)."""
    text = static_text(value)
    if text is not None:
        return Text((Part(change(text)),))
    return value
