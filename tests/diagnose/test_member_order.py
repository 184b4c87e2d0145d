"""Members of one bracketed structure on one line in another order per request: the keys of
a compact JSON object a client builds from a hash map, the parameters of a function
signature a template prints from a set. A long member both requests hold (a note's text)
re-joins them in the middle, so each gap alone holds members the other side lacks; short
members split a signature's list mid-member. Blind sets' shapes (a canned tool result's
keys, Command R's printed signatures), generated here over record kinds, member counts,
where the long member sits and what the structure is; each checked through the CLI against
the brute-force truth of its ideally fixed traffic (``zoo.truth``). A value inside such a
structure, its keys in one order, stays a value (TR101)."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest

from tests.diagnose import zoo
from tests.diagnose.test_regressions_12c import TOLERANCE, _prescribe

KEYS = ["moisture_max_pct", "density_min_g_l", "defects_max_primary", "defects_max_secondary",
        "water_activity_max", "cups_per_sample", "roast_minutes", "screen_size_min", "quaker_max"]
PARAMS = ["antenna: str", "aos: str", "los: str", "mission: str", "priority: int", "operator: str"]


def _note(rng: random.Random) -> str:
    # Long enough to be a shared run of its own in the middle of the object.
    return " ".join(f"A lot under approval has to {v} when the supplier {w}, so scores stay comparable."
                    for v, w in zip(rng.sample(["score the cups blind", "weigh the green sample", "log the roast",
                                                "count the defects twice", "quote the screen size"], 3),
                                    rng.sample(["disputes a score", "sends a late sample", "asks for a recount",
                                                "changes the grade"], 3)))


def _spec(rng: random.Random, count: int, note_at: int) -> dict[str, object]:
    values: list[object] = [12.5, 650, 1, 8, 0.62, 5, "8-12", 15, 2]
    spec: dict[str, object] = {k: v for k, v in zip(KEYS[:count], values)}
    items = list(spec.items())
    items.insert(note_at, ("notes", _note(rng)))
    return dict(items)


def _json_record(kind: str, system: str, body: str, question: str) -> dict:
    if kind == "prompt":
        return {"prompt": f"{system}\n\nAcceptance spec:\n{body}\n\nQuestion: {question}\nAnswer:"}
    call = {"id": "call_spec", "type": "function",
            "function": {"name": "get_lot_scores", "arguments": json.dumps({"lot_id": "SPEC"})}}
    return {"messages": [{"role": "system", "content": system}, {"role": "user", "content": "Load the spec."},
                         {"role": "assistant", "content": "", "tool_calls": [call]},
                         {"role": "tool", "tool_call_id": "call_spec", "content": body},
                         {"role": "assistant", "content": "Spec loaded."}, {"role": "user", "content": question}]}


def _signature_record(system: str, params: list[str], question: str) -> dict:
    tools = (f"```python\ndef predict_pass(norad_id: int, hours: int) -> List[Dict]:\n    \"\"\"Upcoming passes.\"\"\"\n"
             f"    pass\n```\n\n```python\ndef reserve_antenna({', '.join(params)}) -> List[Dict]:\n"
             f"    \"\"\"Reserve an antenna for a pass.\"\"\"\n    pass\n```\n\n")
    return {"prompt": f"{system}\n\nYou may call these tools:\n\n{tools}{system}\n\nQuestion: {question}\nAnswer:"}


def _system(name: str, paragraphs: int) -> str:
    return "\n\n".join(zoo.persona(f"{name}-{k}") for k in range(paragraphs))


def _first_split(records: list[dict]) -> int:
    """The first token where the first request and any other differ: the object's first
    member (some request opens it with another key)."""
    first = zoo.record_ids(records[0])
    return min(len(os.path.commonprefix([first, zoo.record_ids(r)])) for r in records[1:])


def _order_findings(data: dict) -> tuple[list[dict], list[dict]]:
    return ([f for f in data["findings"] if f["code"] == "TR201"],
            [f for f in data["findings"] if f["code"] in ("TR101", "TR102")])


@pytest.mark.parametrize("kind,count,note_at,seed", [("messages", 7, 4, 1), ("messages", 5, 0, 2),
                                                     ("prompt", 8, 6, 3), ("prompt", 6, 2, 4)])
def test_json_keys_in_another_order_around_a_long_member_are_an_order_finding(
        tmp_path: Path, cli, kind: str, count: int, note_at: int, seed: int) -> None:
    rng = random.Random(seed)
    system = _system(f"spec-{kind}-{count}", 12)
    spec = _spec(rng, count, note_at)
    bank = [zoo.question(rng) for _ in range(6)]
    records, fixed = [], []
    for _ in range(60):
        keys = rng.sample(list(spec), len(spec))
        q = rng.choice(bank)
        records.append(_json_record(kind, system, json.dumps({k: spec[k] for k in keys}), q))
        fixed.append(_json_record(kind, system, json.dumps(spec), q))
    w = zoo.Workload(f"spec-keys-{kind}-{count}-{note_at}", kind, records, fixed, [])
    data = _prescribe(tmp_path, cli, w)
    orders, spans = _order_findings(data)
    assert len(orders) == 1 and not spans, [(f["code"], f["token_offset"], f["example"][:60]) for f in data["findings"]]
    # At the object's first member: where the first requests stop sharing.
    at = _first_split(records)
    assert abs(orders[0]["token_offset"] - at) <= 16, (orders[0]["token_offset"], at)
    truth = zoo.truth(w)
    assert truth - zoo.truth(zoo.Workload(w.name, w.kind, records, records, [])) > 0.02  # the order costs
    assert abs(data["hit_rate_after"] - truth) <= TOLERANCE, (data["hit_rate_after"], truth)


@pytest.mark.parametrize("count,seed", [(4, 5), (6, 6)])
def test_a_signatures_parameters_in_another_order_are_an_order_finding(tmp_path: Path, cli, count: int,
                                                                       seed: int) -> None:
    rng = random.Random(seed)
    system = _system(f"signature-{count}", 10)
    bank = [zoo.question(rng) for _ in range(6)]
    records, fixed = [], []
    for _ in range(60):
        q = rng.choice(bank)
        records.append(_signature_record(system, rng.sample(PARAMS[:count], count), q))
        fixed.append(_signature_record(system, PARAMS[:count], q))
    w = zoo.Workload(f"signature-{count}", "prompt", records, fixed, [])
    data = _prescribe(tmp_path, cli, w)
    orders, spans = _order_findings(data)
    assert len(orders) == 1 and not spans, [(f["code"], f["token_offset"], f["example"][:60]) for f in data["findings"]]
    at = zoo.token_offset(records[0], "def reserve_antenna(") + 4
    assert abs(orders[0]["token_offset"] - at) <= 16, (orders[0]["token_offset"], at)
    assert sorted(orders[0]["blocks"]) == sorted(PARAMS[:count])
    truth = zoo.truth(w)
    assert abs(data["hit_rate_after"] - truth) <= TOLERANCE, (data["hit_rate_after"], truth)


def test_a_value_inside_a_json_object_in_one_key_order_stays_a_value(tmp_path: Path, cli) -> None:
    rng = random.Random(9)
    system = _system("spec-value", 12)
    spec = _spec(rng, 7, 3)
    bank = [zoo.question(rng) for _ in range(6)]
    records, fixed = [], []
    for i in range(60):
        q = rng.choice(bank)
        stamped = {"checked_at": f"2026-12-0{1 + i % 3}T{8 + i % 10:02d}:{(7 * i) % 60:02d}:00Z", **spec}
        records.append(_json_record("messages", system, json.dumps(stamped), q))
        moved = _json_record("messages", system, json.dumps(spec), q)
        moved["messages"][-1]["content"] += f"\n\nchecked_at: {stamped['checked_at']}"
        fixed.append(moved)
    w = zoo.Workload("spec-value", "messages", records, fixed, [])
    data = _prescribe(tmp_path, cli, w)
    orders, spans = _order_findings(data)
    assert not orders and [f["code"] for f in spans] == ["TR101"], \
        [(f["code"], f["token_offset"], f["example"][:60]) for f in data["findings"]]
    assert abs(spans[0]["token_offset"] - zoo.token_offset(records[0], "2026-12-0")) <= 16


# String values that hold brackets, commas and escaped quotes, and a nested array whose
# object holds a closing brace in a string: none of them opens or closes a member.
TRICKY = {"plan": "Max (5G", "region": "eu]north", "contact": "desk {night} \"B\"",
          "note": "calls are answered in turn (we answer, then log), never skipped.",
          "tiers": [1, [2, {"x": "}"}]], "quota_gb": 250, "sla": "99.9% [monthly], credits {auto}"}


@pytest.mark.parametrize("seed", [11, 12])
def test_json_keys_in_another_order_with_brackets_inside_strings_are_one_order_finding(
        tmp_path: Path, cli, seed: int) -> None:
    rng = random.Random(seed)
    head, tail = _system(f"tricky-{seed}-a", 6), _system(f"tricky-{seed}-b", 6)
    bank = [zoo.question(rng) for _ in range(6)]
    records, fixed = [], []
    for _ in range(60):
        keys = rng.sample(list(TRICKY), len(TRICKY))
        q = rng.choice(bank)
        for out, order in ((records, keys), (fixed, list(TRICKY))):
            system = f"{head}\n\nAccount limits: {json.dumps({k: TRICKY[k] for k in order})}\n\n{tail}"
            out.append({"messages": [{"role": "system", "content": system}, {"role": "user", "content": q}]})
    w = zoo.Workload(f"tricky-keys-{seed}", "messages", records, fixed, [])
    data = _prescribe(tmp_path, cli, w)
    orders, spans = _order_findings(data)
    assert len(orders) == 1 and not spans, [(f["code"], f["token_offset"], f["example"][:60]) for f in data["findings"]]
    assert abs(orders[0]["token_offset"] - _first_split(records)) <= 16
    # The members are whole: each is a key and its value (a long one shortened to its head
    # and "..."), never a fragment cut at a bracket or comma inside a string.
    whole = [f"{json.dumps(k)}: {json.dumps(v)}" for k, v in TRICKY.items()]
    blocks = orders[0]["blocks"]
    assert len(blocks) == len(whole), blocks
    assert all(any(b == m or (b.endswith("...") and m.startswith(b[:-3])) for m in whole) for b in blocks), blocks
    truth = zoo.truth(w)
    assert abs(data["hit_rate_after"] - truth) <= TOLERANCE, (data["hit_rate_after"], truth)


def test_a_record_of_open_brackets_is_read_without_a_finding_or_a_hang(tmp_path: Path, cli) -> None:
    system = _system("brackets-only", 4)
    records = [{"messages": [{"role": "system", "content": system},
                             {"role": "user", "content": "(" * 5000 + f" question {i}"}]} for i in range(12)]
    w = zoo.Workload("open-brackets", "messages", records, records, [])
    data = _prescribe(tmp_path, cli, w)
    assert not [f for f in data["findings"] if f["code"] in ("TR101", "TR201")], data["findings"]
