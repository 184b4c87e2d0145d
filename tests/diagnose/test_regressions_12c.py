"""Regressions from the held-out diagnosis set (bench/diagnose_heldout.py): small generated
workloads of shapes the zoo lacked, each checked through the CLI against the brute-force
truth of its ideally fixed traffic (``tests/oracle.py`` via ``zoo.truth``)."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import pytest

from tests.oracle import after_fix_matches

from tests.diagnose import zoo

TOLERANCE = 0.02


def _prescribe(tmp_path: Path, cli, w: zoo.Workload) -> dict:
    path = tmp_path / f"{w.name}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in w.records), encoding="utf-8")
    res = cli("prescribe", path, "--format", "json")
    assert res.code == 0, res.err
    return json.loads(res.out)



def _shuffled_keys(value, rng: random.Random):
    if isinstance(value, dict):
        keys = list(value)
        rng.shuffle(keys)
        return {k: _shuffled_keys(value[k], rng) for k in keys}
    if isinstance(value, list):
        return [_shuffled_keys(v, rng) for v in value]
    return value


def test_tool_schema_keys_in_random_order(tmp_path: Path, cli) -> None:
    rng = random.Random(41)
    system = zoo.persona("keys")
    tools = zoo.tools("keys", 4)
    records, fixed = [], []
    for _ in range(40):
        q = zoo.question(rng)
        mine = copy.deepcopy(tools)
        mine[1] = _shuffled_keys(mine[1], rng)
        msgs = [{"role": "system", "content": system}, {"role": "user", "content": q}]
        records.append({"messages": msgs, "tools": mine})
        fixed.append({"messages": msgs, "tools": tools})
    w = zoo.Workload("tool-keys", "messages", records, fixed, [])
    data = _prescribe(tmp_path, cli, w)
    assert any(f["code"] == "TR201" for f in data["findings"])
    truth = zoo.truth(w)
    assert truth - data["hit_rate_before"] > 0.1  # the defect costs hits
    assert after_fix_matches(data, truth, TOLERANCE), (data["hit_rate_after"], truth, data["actions"])


def _docs_before_system(kind: str) -> zoo.Workload:
    rng = random.Random(7 if kind == "messages" else 8)
    system = zoo.persona("placement") + "\n\n" + "\n\n".join(zoo.paragraph(rng, 5, 8) for _ in range(4))
    corpus = zoo.passages("placement", 60)
    records, fixed = [], []
    for _ in range(50):
        docs = "Retrieved passages:\n\n" + "\n\n".join(rng.sample(corpus, 2))
        q = zoo.question(rng)
        orig = [{"role": "system", "content": docs}, {"role": "system", "content": system},
                {"role": "user", "content": q}]
        good = [{"role": "system", "content": system}, {"role": "system", "content": docs},
                {"role": "user", "content": q}]
        if kind == "input_ids":
            records.append({"input_ids": zoo.record_ids({"messages": orig})})
            fixed.append({"input_ids": zoo.record_ids({"messages": good})})
        else:
            records.append({"messages": orig})
            fixed.append({"messages": good})
    return zoo.Workload(f"docs-before-system-{kind}", kind, records, fixed, [])


@pytest.mark.parametrize("kind", ["messages", "input_ids"])
def test_per_request_message_before_the_system_prompt(tmp_path: Path, cli, kind: str) -> None:
    w = _docs_before_system(kind)
    data = _prescribe(tmp_path, cli, w)
    assert any(f["code"] == "TR102" for f in data["findings"]), data["findings"]
    truth = zoo.truth(w)
    assert truth - data["hit_rate_before"] > 0.2
    assert after_fix_matches(data, truth, TOLERANCE), (data["hit_rate_after"], truth, data["actions"])

