"""Bad input through the adapters: records of every format with values replaced at
random by values of other types, and cut lines. Each line is read or skipped with a
reason; nothing raises, nothing hangs."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from advisor.errors import AdvisorError
from advisor.ingest.formats import iter_requests
from tests.formats import writers as w

ODD = [None, 0, -1, 2**70, 1.5, float("nan"), "", "x", [], {}, [1, "a"], {"a": []}, True, "[", "{}"]


def mutate(value, rng: random.Random, depth: int = 0):
    if rng.random() < 0.08:
        return rng.choice(ODD)
    if isinstance(value, dict):
        out = {k: mutate(v, rng, depth + 1) for k, v in value.items() if rng.random() > 0.05}
        return out
    if isinstance(value, list):
        return [mutate(v, rng, depth + 1) for v in value if rng.random() > 0.05]
    if isinstance(value, str) and value[:1] in "[{" and rng.random() < 0.3:
        try:
            return json.dumps(mutate(json.loads(value), rng, depth + 1))
        except ValueError:
            return value
    return value


WRITERS = {
    "batch": w.batch_input, "batch-out": w.batch_output, "responses": w.batch_responses, "log": w.openai_log,
    "otel": w.otel_lines, "litellm": w.litellm_payload, "spend": w.litellm_spend, "langfuse": w.langfuse_jsonl,
    "native": w.native,
}


@pytest.mark.parametrize("name", sorted(WRITERS))
def test_mutated_records_never_crash(tmp_path: Path, name: str):
    cs = w.calls(n=9)
    src = WRITERS[name](tmp_path / "src.jsonl", cs)
    rows = [json.loads(x) for x in src.read_text().splitlines()]
    rng = random.Random(name)
    for trial in range(30):
        lines = [json.dumps(rows[0])]  # a good first line: the format is decided
        for r in rows[1:]:
            text = json.dumps(mutate(r, rng))
            if rng.random() < 0.1:
                text = text[: rng.randrange(len(text))]
            lines.append(text)
        path = tmp_path / f"m{trial}.jsonl"
        path.write_text("\n".join(lines) + "\n")
        skips: list = []
        try:
            reqs = list(iter_requests([path], skips.append))
        except AdvisorError:
            continue  # a file-level verdict (e.g. nothing matched), one line
        assert all(s.reason for s in skips)
        assert len(reqs) + len(skips) >= 1


def test_mutated_log_lines_never_crash(tmp_path: Path):
    cs = w.calls(n=6)
    texts = [f"prompt {i} " * 9 for i in range(6)]
    ids = [list(range(i, i + 30)) for i in range(6)]
    for maker in (lambda p: w.vllm_old(p, cs, texts, ids), lambda p: w.sglang(p, cs, texts, [30] * 6)):
        src = maker(tmp_path / "src.log")
        lines = src.read_text().splitlines()
        rng = random.Random(1)
        for trial in range(40):
            out = [lines[0]] + [ln[: rng.randrange(len(ln) + 1)] if rng.random() < 0.5 else
                                ln.replace(rng.choice(["'", "[", "]", ",", "="]), rng.choice(["", "\\\\", "((", "'"]))
                                for ln in lines[1:]]
            path = tmp_path / f"l{trial}.log"
            path.write_text("\n".join(out) + "\n")
            skips: list = []
            try:
                list(iter_requests([path], skips.append))
            except AdvisorError:
                continue
