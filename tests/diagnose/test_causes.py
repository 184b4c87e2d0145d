"""The causes named for a canonical-order rewrite: one kind per way a request differs from
its canonical form, none on traffic already canonical.

Traffic is generated: a pool of instruction paragraphs (static), tool definitions, passages
drawn from a pool, per-request questions; each test plants one difference in some requests
and checks the kind it is named by, and that the canonical traffic itself names none.
"""

from __future__ import annotations

import json
import random
import unicodedata
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.ingest.traffic import Request, parse_record
from advisor.prescribe.canonical import Canon, canonical_fixes, canonical_rounds, count
from advisor.diagnose.spelling import spelling_kind
from advisor.prescribe.causes import causes

WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "theta", "kappa", "lambda", "sigma",
         "Café", "naïve", "résumé", "Größe", "crème", "brûlée"]


def _sentence(rng: random.Random, n: int = 12) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)) + "."


def _tool(name: str, rng: random.Random) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "description": _sentence(rng, 8),
                                             "parameters": {"type": "object", "properties": {
                                                 "q": {"type": "string", "description": _sentence(rng, 5)}}}}}


def _base(seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    return {"rules": [_sentence(rng) + " " + _sentence(rng) for _ in range(4)],
            "tools": [_tool(f"tool_{k}", rng) for k in range(5)],
            "passages": [f"[{k}] " + _sentence(rng, 20) for k in range(12)],
            "rng": rng}


def _request(b: dict[str, Any], i: int, plant: str) -> dict[str, Any]:
    rng = b["rng"]
    rules = list(b["rules"])
    tools = list(b["tools"])
    question = f"Question {i}: " + _sentence(rng, 6)
    user = question
    planted = i % 3 == 1  # a third of the requests carry the difference, not the first one
    if plant == "nfd" and planted:
        rules = [unicodedata.normalize("NFD", r) for r in rules]
    elif plant == "wrap" and planted:
        rules = [r.replace(". ", ".\n", 1) for r in rules]
    elif plant == "order" and planted:
        rules = rules[1:] + rules[:1]
    elif plant == "tools" and planted:
        tools = tools[2:] + tools[:2]
    elif plant == "subset":
        # tool_0 and tool_1 in every request, tool_2, tool_3, tool_4 in 24, 15 and 6 of 30:
        # listed in that order the subset is already canonical; the planted ones reversed.
        keep = (True, True, i % 5 != 0, i % 2 == 0, i % 5 == 0)
        tools = [t for t, kept in zip(tools, keep) if kept]
        tools = tools[::-1] if planted else tools
    elif plant == "keys" and planted:
        tools = [{"function": t["function"], "type": t["type"]} for t in tools]
    elif plant == "pooled":
        passages = "\n\n".join(rng.sample(b["passages"], 3))
        rules = [passages] + rules if planted else rules + [passages]
    elif plant == "unique" and planted:
        rules = [f"Session note {i}: " + _sentence(rng, 9)] + rules
    system = "\n\n".join(rules)
    return {"messages": [{"role": "system", "content": system}, {"role": "user", "content": user}], "tools": tools}


EXPECTED = {
    "nfd": ("TR104", "normalization"), "wrap": ("TR104", "wrapping"), "keys": ("TR104", "key-order"),
    "order": ("TR201", "section-order"), "tools": ("TR201", "tool-order"), "subset": ("TR102", "tool-subset"),
    "pooled": ("TR102", "pooled-content"), "unique": ("TR102", "per-request-content"),
}


def _traffic(plant: str, seed: int, n: int = 30) -> list[Request | None]:
    b = _base(seed)
    return [parse_record(_request(b, i, plant), "gen.jsonl", i + 1) for i in range(n)]


def _named(reqs: list[Request | None]) -> dict[tuple[str, str], int]:
    canon = Canon(count(reqs))
    return {(c.code, c.kind): c.requests for c in causes(reqs, canon)}


@pytest.mark.parametrize("plant", sorted(EXPECTED))
@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_each_planted_difference_is_named_by_its_kind(plant: str, seed: int) -> None:
    named = _named(_traffic(plant, seed))
    assert EXPECTED[plant] in named, named
    # Only the planted kind: a planted difference is not also read as another one.
    assert set(named) == {EXPECTED[plant]}, named
    # Every planted request is counted (every third of 30; the tool subset is in every one
    # reversed, the pooled passages wherever they come first).
    assert named[EXPECTED[plant]] == 10


@settings(max_examples=25, deadline=None)
@given(plant=st.sampled_from(sorted(EXPECTED)), seed=st.integers(0, 10_000))
def test_canonical_traffic_names_no_cause(plant: str, seed: int) -> None:
    reqs = _traffic(plant, seed)
    fix = canonical_fixes(reqs, "")[0][1]
    fixed: list[Request | None] = []
    for r in reqs:
        assert r is not None
        new = fix(r)
        fixed.append(new if new is not None else r)
    assert _named(fixed) == {}


def test_clean_traffic_names_no_cause() -> None:
    for seed in range(5):
        assert _named(_traffic("none", seed)) == {}


def test_spelling_kinds() -> None:
    assert spelling_kind("Café", unicodedata.normalize("NFD", "Café")) == "normalization"
    assert spelling_kind("one two\nthree", "one two three") == "wrapping"
    assert spelling_kind(json.dumps({"a": 1, "b": 2}), json.dumps({"b": 2, "a": 1})) == "key-order"


def test_the_rounds_first_counts_are_the_logged_traffic() -> None:
    # The causes are read under the counts of the traffic as logged: the first round's.
    reqs = _traffic("order", 3)
    rounds = canonical_rounds(reqs)
    assert {(c.code, c.kind) for c in causes(reqs, rounds.canons[0])} == {("TR201", "section-order")}
