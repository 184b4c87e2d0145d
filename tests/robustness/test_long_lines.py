"""Long lines decoded in bounded memory (advisor.ingest.long_lines) give exactly what the
JSON parser gives: the same record, or the same reason for a bad one. The oracle is the
plain path: ``orjson.loads`` of the whole line and ``parse_record``."""

from __future__ import annotations

import json
import random

import orjson
import pytest

from advisor.ingest import long_lines
from advisor.ingest.traffic import BadRecord, _decode, parse_record


def _outcome(raw: bytes, decode) -> tuple:
    try:
        value = decode(raw)
        req = parse_record(value, "f", 1)
    except BadRecord as exc:
        return ("bad", str(exc))
    payload = req.input_ids if req.input_ids is not None else req.hash_ids
    return ("ok", req.kind, req.id, req.prompt, tuple(payload) if payload is not None else None)


def _plain(raw: bytes):
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise BadRecord(f"invalid JSON ({str(exc).splitlines()[0][:120]})") from None


# Cells that may stand for one id in a list, with their weights: mostly plain ids.
CELLS = ["12", "0", "127999", " 5 ", "\n7", "\t9\t", "01", "1.5", "-3", "true", "null", '"8"', "4294967296",
         "99999999999999999999999", "", "[1]", "1e3"]
WEIGHTS = [200, 20, 20, 10, 10, 10] + [1] * (len(CELLS) - 6)


@pytest.mark.parametrize("seed", range(30))
def test_long_id_lines_decode_as_the_json_parser_does(seed):
    rng = random.Random(seed)
    n = rng.choice([100_000, 200_000, 400_000])  # past LONG_BYTES, and across several slices
    cells = rng.choices(CELLS, WEIGHTS, k=n) if rng.random() < 0.6 else [str(rng.randrange(0, 128_000)) for _ in range(n)]
    key = rng.choice(["input_ids", "tokens"])
    shape = rng.choice(["plain", "first", "nested", "twice", "id"])
    body = f'"{key}" : [' + ",".join(cells) + "]"
    if shape == "first":
        line = "{" + body + ', "id": "r1", "timestamp": 3}'
    elif shape == "nested":
        line = '{"prompt": "hello", "meta": {' + body + "}}"
    elif shape == "twice":
        line = '{"' + key + '": [1, 2], ' + body + "}"
    elif shape == "id":
        line = '{"id": "a,b:[c]{", ' + body + "}"
    else:
        line = "{" + body + "}"
    raw = line.encode()
    assert len(raw) >= long_lines.LONG_BYTES
    got = _outcome(raw, _decode)
    want = _outcome(raw, _plain)
    if want[0] == "bad" and want[1].startswith("invalid JSON"):
        assert got[0] == "bad" and got[1].startswith("invalid JSON"), (got, want)
    else:
        assert got == want


def test_ids_are_packed_and_the_line_is_never_parsed_whole(monkeypatch):
    """A long id list reaches the record as a packed array; the JSON parser sees only
    slices of at most ``SLICE`` bytes and the rest of the line."""
    ids = list(range(1, 500_001))
    raw = json.dumps({"input_ids": ids, "id": "x"}).encode()
    seen: list[int] = []

    def loads(data: bytes):
        seen.append(len(data))
        return orjson.loads(data)

    value = long_lines.decode_long(raw, loads)
    req = parse_record(value, "f", 1)
    assert req.input_ids.typecode == "I" and list(req.input_ids) == ids and req.id == "x"
    assert max(seen) <= long_lines.SLICE + 2


def test_values_are_counted_outside_strings():
    text = "a, b: [c] {d}" * 100_000
    assert long_lines.count_values(json.dumps({"prompt": text}).encode()) == 3
    # An upper bound: the list, two lists, an object, its key and its value are 6 objects.
    assert 6 <= long_lines.count_values(b'[[],[],{"a": 1}]') <= 8


@pytest.mark.parametrize("line,reason", [
    ('{"prompt": "x", "pad": [' + "[]," * 2_000_001 + "[]]}", "over 2,000,000 JSON values"),
    ('{"input_ids": [' + ",".join(["1"] * 4_000_001) + "]}", "'input_ids' holds 4,000,001 ids, over the 4,000,000"),
    ('{"hash_ids": [' + ",".join(["1"] * 2_100_000) + "]}", "over 2,000,000 JSON values"),
])
def test_lines_past_the_limits_are_refused_before_they_are_parsed(line, reason):
    with pytest.raises(BadRecord, match=reason.replace("(", r"\(").replace(")", r"\)")):
        _decode(line.encode())
