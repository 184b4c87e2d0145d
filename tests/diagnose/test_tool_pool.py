"""A tool list cut to a per-request subset of one pool (issue 33: "nothing useful for a tool
list filtered to a per-request subset"): `prescribe` names the cause (TR102 tool-subset) and
measures sending the whole pool in one order; its after-fix hit rate is the brute-force
oracle's on traffic written that way by hand, and the prefill left to do falls with it.
Where the subsets share no tool with a per-request one (a tool whose description varies per
request), that tool is never handed to another request."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from tests.diagnose.heldout import Engine, chat, oracle, sys_msg, user, write_jsonl

NAMES = ["lookup_order", "refund_item", "track_parcel", "open_ticket", "update_address", "list_invoices"]
SYSTEM = ("You are the support assistant of a parcel shop. Answer briefly, cite the order number, and never "
          "promise a refund before the tool confirms it. " * 6).strip()


def tool(name: str) -> dict[str, Any]:
    return {"type": "function", "function": {
        "name": name, "description": f"{name.replace('_', ' ').capitalize()} for the customer's account. " * 3,
        "parameters": {"type": "object", "properties": {"order": {"type": "string", "description": "Order number."}},
                       "required": ["order"]}}}


def traffic(seed: int, requests: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(as sent: each request a subset of 2-5 of the six tools, in the pool's order; by hand:
    every request with all six)."""
    rng = random.Random(seed)
    sent, fixed = [], []
    for i in range(requests):
        picked = sorted(rng.sample(range(len(NAMES)), rng.randint(2, 5)))
        q = f"Where is my parcel {rng.randint(10000, 99999)}? It was due {rng.choice(['today', 'Monday', 'last week'])}."
        sent.append(chat(i, [sys_msg(SYSTEM), user(q)], [tool(NAMES[k]) for k in picked]))
        fixed.append(chat(i, [sys_msg(SYSTEM), user(q)], [tool(n) for n in NAMES]))
    return sent, fixed


@pytest.mark.parametrize("seed", [1, 2])
def test_a_tool_subset_is_answered_by_sending_the_pool(seed: int, cli, tmp_path) -> None:
    sent, fixed = traffic(seed, 60)
    path = tmp_path / "subsets.jsonl"
    write_jsonl(sent, path)
    res = cli("prescribe", str(path), "--format", "json")
    assert res.code == 0, res.err
    data = json.loads(res.out)
    engine = Engine()
    cached, total = oracle(engine.ids(r) for r in fixed)
    before_cached, before_total = oracle(engine.ids(r) for r in sent)
    # Sending the pool is worth it here: more is sent, and less is left to prefill.
    assert total - cached < before_total - before_cached
    assert data["hit_rate_after"] == pytest.approx(cached / total, abs=0.02)
    assert any(f["code"] == "TR102" and f.get("kind") == "tool-subset" for f in data["findings"]), data["findings"]
    assert any("whole set its subsets are drawn from" in a["description"] for a in data["actions"]), data["actions"]


def test_a_tool_per_tenant_is_never_handed_to_another_tenant(cli, tmp_path) -> None:
    """One tool per tenant ahead of the static ones: the tools that vary are never sent
    together, so they are no pool; the prescription may reorder but never adds a tool."""
    rng = random.Random(5)
    records = []
    for i in range(60):
        tenant = rng.randrange(8)
        mine = tool(f"search_tenant_{tenant}_logs")
        records.append(chat(i, [sys_msg(SYSTEM), user(f"Any alerts for host {rng.randint(100, 999)}?")],
                            [mine] + [tool(n) for n in NAMES[:4]]))
    path = tmp_path / "tenants.jsonl"
    write_jsonl(records, path)
    out = tmp_path / "rewritten.jsonl"
    res = cli("prescribe", str(path), "--format", "json", "--emit-rewritten", str(out))
    assert res.code == 0, res.err
    data = json.loads(res.out)
    assert not any("whole set its subsets are drawn from" in a["description"] for a in data["actions"])
    if out.exists():
        for before, line in zip(records, out.read_text().splitlines()):
            after = json.loads(line)
            names = sorted(t["function"]["name"] for t in after.get("tools", before["tools"]))
            assert names == sorted(t["function"]["name"] for t in before["tools"])
