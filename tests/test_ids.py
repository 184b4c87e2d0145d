"""The packed-id layout (advisor/ingest/ids.py) and that nobody else spells it out."""

from __future__ import annotations

import ast
import random
import sys
from array import array

from advisor.ingest import ids
from advisor.ingest.ids import ITEM, MAX_ID, as_array, count, empty, pack, pack_one, unpack, unpack_array
from tests.conftest import ROOT


def test_round_trip_over_random_runs_and_the_edges() -> None:
    rng = random.Random(19)
    runs = [[], [0], [MAX_ID], [0, MAX_ID, 1, MAX_ID - 1]]
    runs += [[rng.randrange(MAX_ID + 1) for _ in range(rng.randrange(1, 300))] for _ in range(50)]
    for run in runs:
        data = pack(run)
        assert len(data) == ITEM * len(run) == ITEM * count(data)
        assert unpack(data) == run
        assert unpack_array(data).tolist() == run
        assert pack(as_array(run)) == data == pack(tuple(run))
        # Native byte order, four bytes an id: what int.from_bytes of one slot reads back.
        assert [int.from_bytes(data[k:k + ITEM], sys.byteorder) for k in range(0, len(data), ITEM)] == run
        assert b"".join(pack_one(t) for t in run) == data


def test_an_id_array_is_used_as_is_and_other_arrays_are_converted() -> None:
    a = array("I", [3, 1, 2])
    assert as_array(a) is a
    wide = array("q", [3, 1, 2])
    got = as_array(wide)
    assert got.typecode == "I" and got.tolist() == [3, 1, 2]
    # The raw bytes of a wider array are not ids: pack converts rather than reinterprets.
    assert pack(wide) == pack(a) != wide.tobytes()
    assert empty().typecode == "I" and len(empty()) == 0


def test_ids_beyond_32_bits_do_not_fit() -> None:
    try:
        pack([MAX_ID + 1])
    except OverflowError:
        pass
    else:
        raise AssertionError("an id above MAX_ID was packed")


def _id_layout_spellings(path) -> list[str]:
    """``frombytes`` calls and ``array("I", ...)`` constructions with an initializer."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "frombytes":
            found.append(f"{path.name}:{node.lineno} frombytes")
        if (isinstance(func, ast.Name) and func.id == "array" and len(node.args) > 1
                and isinstance(node.args[0], ast.Constant) and node.args[0].value == "I"):
            found.append(f"{path.name}:{node.lineno} array('I', ...)")
    return found


def test_only_the_ids_module_converts_between_arrays_and_packed_bytes() -> None:
    layout = ROOT / "advisor" / "ingest" / "ids.py"
    assert _id_layout_spellings(layout), "the checker finds nothing even in ids.py"
    # The job store keeps per-request columns (lengths, units, an arrival order) as "I"
    # arrays: numbers, not packed ids.
    allowed = {layout, ROOT / "advisor" / "simulate" / "jobs.py"}
    offenders = [hit for p in sorted((ROOT / "advisor").rglob("*.py")) if p not in allowed
                 for hit in _id_layout_spellings(p)]
    assert offenders == []
    assert ids.TYPECODE == "I"


def test_common_bytes_is_the_brute_force_common_prefix_in_whole_ids() -> None:
    from advisor.ingest.ids import common_bytes
    from tests.oracle import lcp

    rng = random.Random(5)
    for _ in range(300):
        a = [rng.randrange(4) for _ in range(rng.randrange(0, 40))]
        b = a[:rng.randrange(0, len(a) + 1)] + [rng.randrange(4) for _ in range(rng.randrange(0, 10))]
        off = rng.randrange(0, 3)
        assert common_bytes(pack([9] * off + a), off * ITEM, pack(b), 0) == lcp(a, b) * ITEM
    assert common_bytes(pack([1, 256]), 0, pack([1, 0]), 0) == ITEM
