"""The one totals merge (advisor/index/merge.py): every field, whatever fields there are."""

from __future__ import annotations

import dataclasses
import math
from array import array

import pytest

from advisor.index.analyze import TenantStats
from advisor.index.merge import MAX, MIN, merge
from advisor.simulate.model import Totals


def _filled(cls, seed: int):
    """An instance whose every field holds a value different from its default (and from the
    other seed's), built from the field list alone: a field added later is filled too."""
    values = {}
    for k, f in enumerate(dataclasses.fields(cls)):
        default = cls().__getattribute__(f.name)
        base = 10 * seed + k + 1
        if isinstance(default, float):
            values[f.name] = float(base) + 0.5
        elif isinstance(default, int):
            values[f.name] = base
        elif isinstance(default, array):
            values[f.name] = array(default.typecode, [base, base + 0.25] if default.typecode == "d" else [base])
        elif isinstance(default, dict):
            values[f.name] = {f"t{seed}": _filled(TenantStats, seed), "shared": _filled(TenantStats, seed + 5)}
        else:
            raise AssertionError(f"the test does not know how to fill {f.name}")
    return cls(**values)


def _expected(f: dataclasses.Field, a, b):
    how = f.metadata.get("merge")
    if how == "min":
        return min(a, b)
    if how == "max":
        return max(a, b)
    if isinstance(a, array):
        return array(a.typecode, list(a) + list(b))
    if isinstance(a, dict):
        out = {k: dataclasses.replace(v) for k, v in a.items()}
        for k, v in b.items():
            out[k] = _merge_stats(out[k], v) if k in out else dataclasses.replace(v)
        return out
    return a + b


def _merge_stats(a: TenantStats, b: TenantStats) -> TenantStats:
    return TenantStats(*(x + y for x, y in zip(dataclasses.astuple(a), dataclasses.astuple(b))))


@pytest.mark.parametrize("cls", [Totals, TenantStats])
def test_every_field_is_merged(cls) -> None:
    a, b = _filled(cls, 1), _filled(cls, 2)
    want = {f.name: _expected(f, getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(cls)}
    got = merge(cls(**{f.name: getattr(a, f.name) for f in dataclasses.fields(cls)}), b)
    for f in dataclasses.fields(cls):
        assert getattr(got, f.name) == want[f.name], f.name
        assert getattr(got, f.name) != getattr(cls(), f.name), f.name  # nothing fell back to a default


def test_totals_add_in_place_and_leave_the_other_alone() -> None:
    a, b = _filled(Totals, 1), _filled(Totals, 2)
    before_b = dataclasses.astuple(b)
    same = a
    a += b
    assert a is same and dataclasses.astuple(b) == before_b
    assert a.per_tenant["t2"] is not b.per_tenant["t2"]  # a copy, not shared with b
    # The earliest arrival and the latest finish of both, not their sums.
    assert (a.first_arrival, a.last_finish) == (20.5, 31.5)
    assert (_filled(Totals, 1).first_arrival, b.first_arrival, _filled(Totals, 1).last_finish, b.last_finish) == \
           (20.5, 30.5, 21.5, 31.5)


def test_merging_into_empty_totals_is_the_identity() -> None:
    b = _filled(Totals, 3)
    got = merge(Totals(), b)
    assert dataclasses.astuple(got) == dataclasses.astuple(b)
    assert Totals().first_arrival == math.inf


def test_a_field_added_later_is_merged_or_refused_never_dropped() -> None:
    @dataclasses.dataclass
    class Wider(Totals):
        retries: int = 0
        peak: float = dataclasses.field(default=0.0, metadata=MAX)
        first_seen: float = dataclasses.field(default=math.inf, metadata=MIN)

    a, b = Wider(retries=2, peak=3.0, first_seen=5.0), Wider(retries=5, peak=1.0, first_seen=4.0)
    a += b
    assert (a.retries, a.peak, a.first_seen) == (7, 3.0, 4.0)

    @dataclasses.dataclass
    class Unknown(Totals):
        label: str = ""

    with pytest.raises(TypeError, match="label"):
        merge(Unknown(label="x"), Unknown(label="y"))
    with pytest.raises(TypeError):
        merge(Totals(), TenantStats())
