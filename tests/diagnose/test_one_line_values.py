"""A line whose values change together is one varying region, and the move that carries it
keeps the text around it. A blind set's shape (a live event's configuration printed as one
line of JSON, renewed every few requests, in a handbook whose rules end alike) generated here
over record kinds, periods and the static text the line sits in; each is checked through the
CLI against the brute-force truth of its ideally fixed traffic (``zoo.truth``)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from tests.oracle import after_fix_matches

from tests.diagnose import zoo
from tests.diagnose.test_regressions_12c import TOLERANCE, _prescribe

ENDINGS = ["so the next shift can follow it.", "so the audit trail stays complete.",
           "because the regulator samples these files."]
VERBS = ["pause", "review", "escalate", "schedule", "log", "hold"]
THINGS = ["the refund queue", "the weekly rota", "the spare parts order", "the night audit", "the tariff table"]


def _handbook(rng: random.Random, sections: int) -> list[str]:
    """Sections of rules written from one phrase book: every rule ends with one of a few
    endings, so any short piece of a section's end recurs elsewhere."""
    out = []
    for k in range(sections):
        rules = [f"{rng.choice(['Always', 'As a rule,', 'Where possible,'])} {rng.choice(VERBS)} "
                 f"{rng.choice(THINGS)} when {rng.choice(THINGS)} is late, and note it {rng.choice(ENDINGS)}"
                 for _ in range(rng.randint(4, 7))]
        out.append(f"## Part {k + 1}\n" + " ".join(rules))
    return out


def _config(rng: random.Random, n: int) -> str:
    # Two varying members around fixed ones long enough to re-join on their own.
    return json.dumps({
        "event": f"harvest-{n}", "currency": "EUR", "timezone": "Europe/Lisbon", "support_tier": "standard",
        "ends_utc": f"2026-05-{1 + n:02d}T{rng.randint(0, 23):02d}:00Z",
        "multipliers": {"xp": rng.choice([1.0, 1.5, 2.0]), "drops": rng.choice([1.0, 1.25])},
        "featured": rng.sample(["lantern", "sickle", "scarecrow", "barn_owl", "wheat_crown"], 3),
        "regions": {r: {"queue_s": rng.randint(5, 400), "servers": rng.randint(10, 140)}
                    for r in ("eu-west", "na-east", "apac-se")}})


def _record(kind: str, system: str, user: str) -> dict:
    if kind == "prompt":
        return {"prompt": f"{system}\n\nQuestion: {user}\nAnswer:"}
    return {"messages": [{"role": "system", "content": system}, {"role": "user", "content": user}]}


@pytest.mark.parametrize("kind,period,depth", [("prompt", 8, 2), ("messages", 5, 1), ("messages", 1, 3)])
def test_a_line_of_values_that_change_together_is_one_span_and_moves_whole(
        tmp_path: Path, cli, kind: str, period: int, depth: int) -> None:
    rng = random.Random(period * 31 + depth)
    book = _handbook(rng, 6)
    head, tail = "\n\n".join(book[:depth]), "\n\n".join(book[depth:])
    intro = "You are the live desk of Harrowgate Games. Answer in plain English."
    records, last, shared = [], [], []
    configs = []
    for i in range(48):
        if i % period == 0:
            configs.append(_config(rng, len(configs)))
        line, q = f"Current event configuration:\n{configs[-1]}", zoo.question(rng)
        records.append(_record(kind, f"{intro}\n\n{head}\n\n{line}\n\n{tail}", q))
        last.append(_record(kind, f"{intro}\n\n{head}\n\n{tail}", f"{q}\n\n{line}"))
        shared.append(_record(kind, f"{intro}\n\n{head}\n\n{tail}\n\n{line}", q))
    w = max((zoo.Workload(f"config-{kind}-{period}", kind, records, fixed, []) for fixed in (last, shared)),
            key=zoo.truth)
    data = _prescribe(tmp_path, cli, w)
    spans = [f for f in data["findings"] if f["code"] in ("TR101", "TR102")]
    # One finding whose example runs from the first varying member to the last.
    assert len(spans) == 1, [(f["code"], f["token_offset"], f["example"][:60]) for f in spans]
    assert "harvest-" in spans[0]["example"] and '"regions"' in spans[0]["example"], spans[0]["example"][:120]
    at = zoo.token_offset(records[0], '{"event"') if kind == "messages" else None
    if at is not None:
        assert abs(spans[0]["token_offset"] - at) <= 16
    truth = zoo.truth(w)
    assert after_fix_matches(data, truth, TOLERANCE), (data["hit_rate_after"], truth, data["actions"])
