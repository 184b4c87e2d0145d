"""A one-line list of short items (names from a set, a JSON array) in another order per
request, near the end of the prompt: two names in a row re-join by chance, so the pairs of
requests see the list split into gaps of unequal sides, and little static text follows it.
A blind set's shape (a species list in a canned tool result), generated here over record
kinds, item counts and what follows the list; each is checked through the CLI against the
brute-force truth of its ideally fixed traffic (``zoo.truth``)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from tests.diagnose import zoo
from tests.diagnose.test_regressions_12c import TOLERANCE, _prescribe

NAMES = ["Porites lobata", "Acropora hyacinthus", "Goniastrea retiformis", "Pocillopora damicornis",
         "Montipora capitata", "Favites abdita", "Diploastrea heliopora", "Heliopora coerulea",
         "Turbinaria reniformis", "Galaxea fascicularis"]


def _messages(system: str, items: list[str], question: str) -> dict:
    call = {"id": "call_1", "type": "function",
            "function": {"name": "site_info", "arguments": json.dumps({"site": "TB-04"})}}
    result = json.dumps({"site": "TB-04", "depth_m": [3, 18], "species": items})
    return {"messages": [{"role": "system", "content": system}, {"role": "user", "content": "Load site TB-04."},
                         {"role": "assistant", "content": "", "tool_calls": [call]},
                         {"role": "tool", "tool_call_id": "call_1", "content": result},
                         {"role": "assistant", "content": "Site loaded."}, {"role": "user", "content": question}]}


def _prompt(system: str, items: list[str], question: str) -> dict:
    return {"prompt": f"{system}\n\nSpecies seen at the site: {json.dumps(items)}\n\nQuestion: {question}\nAnswer:"}


@pytest.mark.parametrize("record,count", [(_messages, 8), (_prompt, 9), (_messages, 10)])
def test_a_short_list_in_another_order_per_request_is_an_order_finding(tmp_path: Path, cli, record, count) -> None:
    rng = random.Random(count * 13 + len(record.__name__))
    # A long handbook ahead: what the order costs is a small share of each prompt.
    system = "\n\n".join(zoo.persona(f"species-{record.__name__}-{count}-{k}") for k in range(36))
    # Each item about nine tokens: two in a row in the same order re-join by chance.
    names = [f"{n} (survey code {n[:2].upper()}-{k:02d})" for k, n in enumerate(NAMES[:count])]
    # Questions from a small bank: what follows the list is shared by some requests only.
    bank = [zoo.question(rng) for _ in range(5)]
    records, fixed = [], []
    for _ in range(60):
        order = rng.sample(names, len(names))
        q = rng.choice(bank)
        records.append(record(system, order, q))
        fixed.append(record(system, sorted(names), q))
    w = zoo.Workload(f"species-{record.__name__}-{count}", "messages", records, fixed, [])
    data = _prescribe(tmp_path, cli, w)
    orders = [f for f in data["findings"] if f["code"] == "TR201"]
    assert len(orders) == 1 and not [f for f in data["findings"] if f["code"] in ("TR101", "TR102")], \
        [(f["code"], f["token_offset"], f["example"][:60]) for f in data["findings"]]
    truth = zoo.truth(w)
    assert truth - zoo.truth(zoo.Workload(w.name, w.kind, records, records, [])) > 0.02  # the order costs
    assert abs(data["hit_rate_after"] - truth) <= TOLERANCE, (data["hit_rate_after"], truth)


def test_a_line_of_two_items_in_either_order_is_sorted(tmp_path: Path, cli) -> None:
    # The template's own "Tools:" line from a builtin_tools set: two names, in either order.
    rng = random.Random(5)
    system = "\n\n".join(zoo.persona(f"two-items-{k}") for k in range(8))
    records, fixed = [], []
    for _ in range(40):
        pair = rng.sample(["brave_search", "wolfram_alpha"], 2)
        q = zoo.question(rng)
        records.append({"prompt": f"Environment: ipython\nTools: {', '.join(pair)}\n\n{system}\n\nQuestion: {q}\nAnswer:"})
        fixed.append({"prompt": f"Environment: ipython\nTools: brave_search, wolfram_alpha\n\n{system}\n\nQuestion: {q}\nAnswer:"})
    w = zoo.Workload("two-items", "prompt", records, fixed, [])
    data = _prescribe(tmp_path, cli, w)
    assert [f["code"] for f in data["findings"]] == ["TR201"], [(f["code"], f["example"][:40]) for f in data["findings"]]
    truth = zoo.truth(w)
    assert abs(data["hit_rate_after"] - truth) <= TOLERANCE, (data["hit_rate_after"], truth)
