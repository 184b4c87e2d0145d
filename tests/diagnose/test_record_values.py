"""The values of one record are one varying region: a pretty-printed document of readings
(a forecast's hourly rows, a table of sensor readings) renewed for every request breaks the
cache at its first value, and only a move of the whole record gains. Pairs of requests share
some of its readings by chance, so the aligner sees the record cut into pieces by long shared
stretches; what joins them is that nothing static and no sentence lies between. A blind
set's shape (heldout10's metocean forecast, 0.364 against 0.809), generated here over record
kinds, layouts of the record, row counts, how often readings repeat and where the record
sits; each is checked through the CLI against the brute-force truth of its ideally fixed
traffic (``zoo.truth``)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from tests.diagnose import zoo
from tests.diagnose.test_one_line_values import _handbook, _record
from tests.diagnose.test_regressions_12c import TOLERANCE, _prescribe


def _readings(rng: random.Random, rows: int, spread: int, layout: str) -> str:
    """A record of ``rows`` rows of four readings; ``spread`` settings per reading (few
    settings: pairs share many readings by chance)."""
    table = [{"hour": 3 * h, "wind_kn": rng.randrange(spread) + 4, "swell_m": round(0.4 + rng.randrange(spread) / 10, 1),
              "period_s": rng.randrange(spread) + 5, "gust_kn": rng.randrange(spread) + 9} for h in range(rows)]
    issued = f"{rng.randint(0, 23):02d}:{rng.choice(['00', '30'])}Z"
    # The record's first line holds a value: everything from there on varies, and the
    # ideal fix moves all of it.
    if layout == "json":
        return f"Forecast issued {issued}:\n" + json.dumps({"station": "Holm Sound", "rows": table}, indent=2)
    if layout == "json-compact-rows":
        body = ",\n".join("  " + json.dumps(r) for r in table)
        return f"Forecast issued {issued}:\n[\n{body}\n]"
    lines = [f"| {r['hour']} | {r['wind_kn']} | {r['swell_m']} | {r['period_s']} | {r['gust_kn']} |" for r in table]
    return f"Forecast issued {issued}:\n{TABLE_HEAD}\n" + "\n".join(lines)


TABLE_HEAD = "| hour | wind (kn) | swell (m) | period (s) | gust (kn) |\n|---|---|---|---|---|"


def _split(doc: str) -> tuple[str, str]:
    """A table's static header kept in place, and the rest (the issue time and the rows)
    moved: static lines between the record's values are content of their own."""
    if TABLE_HEAD not in doc:
        return "", doc
    first, rest = doc.split(f"\n{TABLE_HEAD}\n", 1)
    return f"Forecast:\n{TABLE_HEAD}", f"{first}\n{rest}"


@pytest.mark.parametrize("kind,layout,rows,spread,depth", [
    ("prompt", "json", 8, 6, 1),
    ("messages", "json-compact-rows", 7, 5, 3),
    ("messages", "table", 9, 4, 2),
    ("prompt", "table", 5, 6, 4),
])
def test_a_record_of_readings_is_one_span_and_moves_whole(tmp_path: Path, cli, kind: str, layout: str,
                                                          rows: int, spread: int, depth: int) -> None:
    w = _workload(kind, layout, rows, spread, depth)
    data = _prescribe(tmp_path, cli, w)
    spans = [f for f in data["findings"] if f["code"] in ("TR101", "TR102")]
    assert spans, data["findings"]
    first = min(spans, key=lambda f: f["token_offset"])
    at = zoo.token_offset(w.records[0], "Forecast")
    assert abs(first["token_offset"] - at) <= 16, (first["token_offset"], at)
    truth = zoo.truth(w)
    assert abs(data["hit_rate_after"] - truth) <= TOLERANCE, (data["hit_rate_after"], truth)


def _workload(kind: str, layout: str, rows: int, spread: int, depth: int) -> zoo.Workload:
    rng = random.Random(rows * 17 + spread * 5 + depth)
    book = _handbook(rng, 6)
    head, tail = "\n\n".join(book[:depth]), "\n\n".join(book[depth:])
    intro = "You are the crossing planner of Orkney Link Ferries. Answer in plain English."
    records, last, shared, split = [], [], [], []
    for _ in range(40):
        doc, q = _readings(rng, rows, spread, layout), zoo.question(rng)
        kept, moved = _split(doc)
        records.append(_record(kind, f"{intro}\n\n{head}\n\n{doc}\n\n{tail}", q))
        last.append(_record(kind, f"{intro}\n\n{head}\n\n{tail}", f"{q}\n\n{doc}"))
        shared.append(_record(kind, f"{intro}\n\n{head}\n\n{tail}\n\n{doc}", q))
        split.append(_record(kind, f"{intro}\n\n{head}\n\n{kept}\n\n{tail}", f"{q}\n\n{moved}"))
    return max((zoo.Workload(f"readings-{layout}-{kind}", kind, records, fixed, [])
                for fixed in (last, shared, split)), key=zoo.truth)


def test_static_fields_between_two_values_keep_them_two_spans(tmp_path: Path, cli) -> None:
    """Two values of one configuration with static members between them that are long
    enough to be content of their own: each is its own finding, and the static members
    stay in the shared prefix."""
    rng = random.Random(5)
    book = _handbook(rng, 5)
    intro = "You are the rota assistant of Brindle Parcel Depots. Answer in plain English."
    fixed_members = {f"policy_{k}": " ".join(rng.choice(["hold", "scan", "weigh", "label", "seal", "stack"])
                                             for _ in range(12)) for k in range(5)}
    records, fixed = [], []
    for _ in range(40):
        shift, q = f"shift-{rng.randint(1000, 9999)}", zoo.question(rng)
        lead = rng.choice(["Ana Sousa", "Ben Okafor", "Chen Wei", "Dara Byrne", "Elif Kaya", "Femi Adeyemi"])
        config = json.dumps({"shift": shift, **fixed_members, "lead": lead}, indent=2)
        records.append(_record("messages", f"{intro}\n\n{book[0]}\n\nDepot settings:\n{config}\n\n" + "\n\n".join(book[1:]), q))
        static = json.dumps({**fixed_members}, indent=2)
        fixed.append(_record("messages", f"{intro}\n\n{book[0]}\n\nDepot settings:\n{static}\n\n" + "\n\n".join(book[1:]),
                             f"{q}\n\nShift: {shift}; lead: {lead}"))
    w = zoo.Workload("two-values-static-between", "messages", records, fixed, [])
    data = _prescribe(tmp_path, cli, w)
    spans = sorted((f for f in data["findings"] if f["code"] in ("TR101", "TR102")), key=lambda f: f["token_offset"])
    assert len(spans) == 2, [(f["token_offset"], f["example"][:60]) for f in spans]
    assert "shift-" in spans[0]["example"] and "policy_" not in spans[0]["example"], spans[0]["example"]
