"""Python signatures with docstrings in a code fence, in another order per request (the
fifteenth held-out set's shape: tools a team describes as code in the system text of a
template that prints no tools). A docstring's blank line splits each unit into paragraphs,
the fence lines are glued to the first and last, and runs of one unit cut at other tokens
mark it twice: the sort must move each function whole (never its lines one by one).
Generated over record kinds, unit counts and what surrounds the fence; checked through the
CLI against the brute-force truth, and the sort itself on the rendered text."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.diagnose import zoo
from tests.diagnose.test_canonical import apply, requests
from tests.diagnose.test_regressions_12c import TOLERANCE, _prescribe

FUNCS = [("record_peal", "tower: str, method: str, changes: int, conductor: str", "Enter a rung performance.",
          ["tower: Tower name", "method: Method name", "changes: Number of changes", "conductor: Conductor"]),
         ("find_ringers", "method: str, date: str", "Ringers free on a date.", ["method: Method name", "date: YYYY-MM-DD"]),
         ("send_notice", "tower: str, message: str", "Tell the incumbent about a peal.",
          ["tower: Tower name", "message: Text of the notice"]),
         ("book_peal", "tower: str, method: str, date: str", "Reserve a tower for a peal.",
          ["tower: Tower name", "method: Method name", "date: YYYY-MM-DD"]),
         ("check_tower", "tower: str", "Bells, weights and contacts of a tower.", ["tower: Tower name"]),
         ("list_methods", "stage: int", "Methods rung at a stage.", ["stage: Number of bells"])]


def _unit(name: str, params: str, doc: str, args: list[str]) -> str:
    lines = "\n".join(f"        {a}" for a in args)
    return f'def {name}({params}) -> dict:\n    """{doc}\n\n    Args:\n{lines}\n    """'


def _fence(units: list[str]) -> str:
    return "```python\n" + "\n\n".join(units) + "\n```"


def _record(kind: str, head: str, fence: str, tail: str, q: str) -> dict:
    system = f"{head}\n\nTools you may call:\n\n{fence}\n\n{tail}"
    if kind == "prompt":
        return {"prompt": f"{system}\n\nQuestion: {q}\nAnswer:"}
    return {"messages": [{"role": "system", "content": system}, {"role": "user", "content": q}]}


@pytest.mark.parametrize("kind,count,seed", [("messages", 5, 1), ("prompt", 6, 2), ("messages", 4, 3)])
def test_functions_in_another_order_are_sorted_whole(tmp_path: Path, cli, kind: str, count: int, seed: int) -> None:
    rng = random.Random(seed)
    units = [_unit(*f) for f in FUNCS[:count]]
    head = "\n\n".join(zoo.persona(f"code-{kind}-{count}-{k}") for k in range(4))
    tail = "\n\n".join(zoo.persona(f"code-tail-{kind}-{count}-{k}") for k in range(6))
    records, fixed = [], []
    for _ in range(50):
        q = zoo.question(rng)
        records.append(_record(kind, head, _fence(rng.sample(units, len(units))), tail, q))
        fixed.append(_record(kind, head, _fence(units), tail, q))
    w = zoo.Workload(f"code-units-{kind}-{count}", kind, records, fixed, [])
    data = _prescribe(tmp_path, cli, w)
    orders = [f for f in data["findings"] if f["code"] == "TR201"]
    assert len(orders) == 1, [(f["code"], f["token_offset"], f["example"][:60]) for f in data["findings"]]
    truth = zoo.truth(w)
    assert truth - data["hit_rate_before"] > 0.05
    assert abs(data["hit_rate_after"] - truth) <= TOLERANCE, (data["hit_rate_after"], truth, data["actions"])


TABLES = {"alerts": ["id bigserial PRIMARY KEY", "rule text", "fired_at timestamptz", "resolved boolean"],
          "oncall": ["id bigserial PRIMARY KEY", "engineer text", "rota text", "starts_at timestamptz"],
          "quotas": ["id bigserial PRIMARY KEY", "team text", "cpu_cores numeric", "updated_at timestamptz"],
          "changes": ["id bigserial PRIMARY KEY", "ticket text", "approved_by text", "risk text"],
          "services": ["id bigserial PRIMARY KEY", "name text", "team text", "tier smallint"]}


def _ddl(name: str) -> str:
    cols = ",\n".join(f"  {c}" for c in TABLES[name])
    return f"CREATE TABLE {name} (\n{cols}\n);  -- partitioned by month"


@pytest.mark.parametrize("count,seed", [(5, 11), (4, 12)])
def test_statements_behind_a_lead_in_line_sort_inside_their_fence(tmp_path: Path, cli, count: int, seed: int) -> None:
    rng = random.Random(seed)
    names = list(TABLES)[:count]
    head = zoo.persona(f"ddl-{count}")
    # Sections after the fence: shuffling them with the statements would break the prompt.
    tail = "\n\n".join(f"#### Section {k}\n{zoo.persona(f'ddl-tail-{count}-{k}')}" for k in range(5))
    records, fixed = [], []
    for _ in range(50):
        q = zoo.question(rng)
        for out, order in ((records, rng.sample(names, len(names))), (fixed, names)):
            schema = "Reporting schema:\n```sql\n" + "\n\n".join(_ddl(n) for n in order) + "\n```"
            out.append({"prompt": f"{head}\n\n{schema}\n\n{tail}\n\nQuestion: {q}\nAnswer:"})
    w = zoo.Workload(f"ddl-{count}", "prompt", records, fixed, [])
    data = _prescribe(tmp_path, cli, w)
    assert [f["code"] for f in data["findings"]] == ["TR201"], [(f["code"], f["example"][:60]) for f in data["findings"]]
    truth = zoo.truth(w)
    assert abs(data["hit_rate_after"] - truth) <= TOLERANCE, (data["hit_rate_after"], truth, data["actions"])


@pytest.mark.parametrize("kind", ["messages", "prompt"])
def test_the_canonical_form_puts_the_definitions_of_a_fence_in_one_order(kind: str) -> None:
    """The canonical form alone (no move): each function whole, its docstring's blank line
    inside it, in one order for every request; a fence where a class derives from another
    defined there keeps the order it came in (the base must come first)."""
    rng = random.Random(5)
    units = [_unit(*f) for f in FUNCS]
    classes = ["class Tower:\n    name: str", "class Ring(Tower):\n    bells: int", "class Peal:\n    method: str"]
    records = []
    for k in range(30):
        fence = _fence(rng.sample(units, len(units)))
        derived = _fence(rng.sample(classes, len(classes)))
        records.append(_record(kind, "You help the ringing society.", fence + "\n\nTypes:\n\n" + derived,
                               "Answer briefly.", f"Which tower has {k} bells?"))
    out = apply(0, requests(records))
    texts = [(req.prompt if kind == "prompt" else (req.messages or ())[0]["content"]) or "" for req in out]
    stubs = {text[text.index("```python"):text.index("```", text.index("```python") + 3)] for text in texts}
    assert len(stubs) == 1
    assert all(unit in next(iter(stubs)) for unit in units)
    for text, record in zip(texts, records):
        sent = record["prompt"] if kind == "prompt" else record["messages"][0]["content"]
        assert _classes(text) == _classes(sent)


def _classes(text: str) -> str:
    at = text.index("```python\nclass ")
    return text[at:text.index("```", at + 3)]
