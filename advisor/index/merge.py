"""One merge of measured figures (per-tenant counts, a run's totals) that cannot drop a field.

Totals of several replicas, partitions or workers add up field by field. Written out by hand
at every place that merges, a field added to the record later is silently left out of some
of them; here every field of the dataclass is merged by what it holds, and a field of a
kind this module does not know how to merge is an error, not a zero.
"""

from __future__ import annotations

from array import array
from dataclasses import fields, is_dataclass
from typing import Any, TypeVar

T = TypeVar("T")

# ``field(metadata=MIN)``: the earliest of both (a first arrival), ``MAX``: the latest.
MIN = {"merge": "min"}
MAX = {"merge": "max"}


def merge(into: T, other: T) -> T:
    """Add ``other``'s figures into ``into`` and return it: numbers add up (or take the min or
    max, as the field's metadata says), arrays and lists concatenate, dicts of records merge
    key by key (a key only ``other`` has gets a copy)."""
    if not is_dataclass(into) or type(into) is not type(other):
        raise TypeError(f"cannot merge {type(other).__name__} into {type(into).__name__}")
    for f in fields(into):
        mine, theirs = getattr(into, f.name), getattr(other, f.name)
        setattr(into, f.name, _merged(f.name, f.metadata.get("merge", "add"), mine, theirs))
    return into


def _merged(name: str, how: str, mine: Any, theirs: Any) -> Any:
    if how == "min":
        return min(mine, theirs)
    if how == "max":
        return max(mine, theirs)
    if isinstance(mine, bool):
        raise TypeError(f"no merge for the flag {name}")
    if isinstance(mine, (int, float)):
        return mine + theirs
    if isinstance(mine, (array, list)):
        mine.extend(theirs)
        return mine
    if isinstance(mine, dict):
        for key, value in theirs.items():
            mine[key] = merge(mine[key], value) if key in mine else merge(type(value)(), value)
        return mine
    raise TypeError(f"no merge for field {name} ({type(mine).__name__})")
