"""`advisor report` decides from the measured after-fix hit rate (issue 12, acceptance 3).

On docs-before-system traffic (tests/docs_before.py: passages ahead of a static system prompt,
in the same message or an earlier one, as messages, prompt or token-id records) today's hit
rate is a NO-GO; the report must decide on the hit rate measured after the prescribed move,
say that the decision is conditional on it, name the move, and give today's rate beside it.
The truth is independent of advisor: the hit rate of the ideally reordered traffic by the
brute-force oracle of tests/diagnose/heldout.py.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from advisor.advise.decide import Thresholds, decide, sglang_adds
from tests.diagnose.heldout import Engine, hit_rate, write_jsonl
from tests.docs_before import Shape, generate, truth

T = Thresholds()

SHAPES = [
    pytest.param(Shape("earlier-message", "messages", 2, 6, 14), id="earlier-message-messages"),
    pytest.param(Shape("same-message", "messages", 2, 3, 16, seed=2), id="same-message-messages"),
    pytest.param(Shape("earlier-message", "messages", 3, 5, 8, corpus=40, seed=12), id="earlier-small-corpus"),
    pytest.param(Shape("earlier-message", "messages", 4, 8, 3, seed=7), id="long-passages-short-system"),
    pytest.param(Shape("earlier-message", "input_ids", 2, 4, 12, seed=10), id="earlier-message-ids"),
    pytest.param(Shape("same-message", "input_ids", 2, 5, 18, seed=1), id="same-message-ids"),
    pytest.param(Shape("same-message", "messages", 3, 4, 8), id="three-passages-one-message"),
    pytest.param(Shape("same-message", "prompt", 4, 3, 6), id="same-text-prompt"),
    pytest.param(Shape("same-message", "prompt", 1, 4, 6, seed=109), id="one-passage-prompt"),
    pytest.param(Shape("same-message", "messages", 5, 7, 4, seed=8), id="five-passages-one-message"),
]


def _head(data: dict[str, Any]) -> str:
    """How the first reason opens: a condition where the fix changes the decision, the same
    decision either way where it does not."""
    same = (data["decision"], data["engine"]) == (data["decision_today"], data["engine_today"])
    return f"{data['decision'].upper()} " + ("with or without the change" if same else "on condition that the change")


def _verdict(rate: float) -> str:
    return "go" if rate >= T.go_above else ("trial" if rate >= T.no_go_below else "no-go")


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine()


@pytest.mark.parametrize("shape", SHAPES)
def test_docs_before_system_decides_on_the_fixed_order(shape: Shape, engine: Engine, cli, tmp_path) -> None:
    sent, fixed = generate(shape, engine)
    pooled = generate(shape, engine, pooled=True)[1]
    path = tmp_path / f"{shape.name}.jsonl"
    write_jsonl(sent, path)
    # The best placement: the system prompt first, the passages after it as retrieved or in one order.
    today, after = hit_rate(engine, sent), truth(engine, fixed, pooled)
    res = cli("report", "--traffic", path, "--format", "json", "--output", "-")
    assert res.code == 0, res.err
    data = json.loads(res.out)
    assert _verdict(today) == "no-go" and _verdict(after) == "go"  # the workload is what it claims to be
    assert data["hit_rate"] == pytest.approx(today, abs=0.005)  # L-1 cap: under a token a request
    assert data["hit_rate_after_prescription"] == pytest.approx(after, abs=0.02)
    # The headline: the decision on the fixed order (its own engine comparison), conditional on
    # the named move, today's NO-GO beside it.
    fix = data["after_fix"]
    assert fix["basis"] == "prescription" and fix["hit_rate"] == pytest.approx(after, abs=0.02)
    assert (data["basis"], data["hit_rate_decided"]) == ("after-fix", fix["hit_rate"])
    clears = bool(sglang_adds(fix["simulation"]["engines"], T))
    assert (data["decision"], data["engine"]) == (("go", "sglang") if clears else ("no-go", "vllm"))
    assert (data["decision_today"], data["engine_today"]) == ("no-go", "vllm")
    moves = data["conditional_on"]
    # The change that turns it into a GO (puts the system prompt first: a move, or the canonical
    # order) comes first; a sort with a few tokens of its own gain may follow.
    assert moves[0]["kind"] in ("move-dynamic-content", "canonical-order") and moves[0]["code"] in ("TR101", "TR102")
    assert moves[0]["tokens_gained"] == max(m["tokens_gained"] for m in moves)
    first = data["reasons"][0]
    assert first.startswith(_head(data))
    for m in moves:
        assert m["description"].split(" Measured ")[0].rstrip(".") in first
    assert f"{fix['hit_rate']:.1%} against {data['hit_rate']:.1%} today" in first
    plural = "s" if len(moves) > 1 else ""
    assert f"Today, without the change{plural}: NO-GO (engine: vllm)." in data["reasons"]
    # One after-fix figure: the rollout's target is the rewritten traffic's, at the pool.
    at_pool = fix["simulation"]["at_pool"]
    assert data["rollout"]["target_basis"] == "after-fix"
    assert data["rollout"]["target_hit_rate"] == pytest.approx(
        data["rollout"]["target_hit_rate"] if data["engine"] == "vllm"
        else max(at_pool["fcfs"]["hit_rate"], at_pool["lpm"]["hit_rate"]))


def test_markdown_headline_states_the_condition_and_todays_rate(engine: Engine, cli, tmp_path) -> None:
    sent, _ = generate(Shape("earlier-message", "messages", 3, 4, 10, seed=3), engine)
    path = tmp_path / "docs.jsonl"
    write_jsonl(sent, path)
    out = tmp_path / "advisory.md"
    assert cli("report", "--traffic", path, "--output", out).code == 0
    data = json.loads(cli("report", "--traffic", path, "--format", "json", "--output", "-").out)
    headline = out.read_text().splitlines()[2]
    same = (data["decision"], data["engine"]) == (data["decision_today"], data["engine_today"])
    # One change or several (a move and the canonical order), the headline in number with them.
    change = "the change below" if headline.count("change below") else "the changes below"
    made = ("with or without " + change + ("; make it anyway" if change.endswith("change below") else "; make them anyway")
            if same else "on condition that " + change + (" is made" if change.endswith("change below") else " are made"))
    assert headline.startswith(f"**Decision: {data['decision'].upper()}** (engine: {data['engine']}), "
                               + made + ": measured hit rate ")
    them = "it" if change.endswith("change below") else "them"
    assert f"{data['after_fix']['hit_rate']:.1%} after {them}, {data['hit_rate']:.1%} today" in headline
    assert same or "(today's decision: NO-GO, engine vllm)" in headline


# --- the rule as a pure function of the facts ---------------------------------------------------


def _move(gain: int, rate: float, text: str = "Move the value to the end of the last user turn.") -> dict[str, Any]:
    return {"kind": "move-dynamic-content", "code": "TR101", "description": text, "hit_rate_after": rate,
            "tokens_gained": gain}


def _cmp(clears: bool) -> dict[str, Any]:
    setup = {"speedup": 1.5, "ttft_p90_s": 0.1}
    gain = 0.2 if clears else 0.0
    return {"setups": {"vllm": setup, "sglang": setup}, "decode_share_no_cache": 0.3, "speedup_ceiling": 3.3,
            "sglang_over_vllm": {"hit_rate_points": gain, "hit_rate_points_cache": gain,
                                 "hit_rate_points_scheduler": 0.0, "throughput_gain": gain, "ttft_p90_gain": gain}}


def _sim(hit: float, cmp_clears: bool | None) -> dict[str, Any]:
    return {"at_pool": {"fcfs": {"hit_rate": hit}, "lpm": {"hit_rate": hit}}, "optimal_at_pool": hit,
            "unlimited_hit_rate": hit, "starvation": [],
            **({"engines": _cmp(cmp_clears)} if cmp_clears is not None else {})}


def _facts(hit: float, after: float, actions: list[dict[str, Any]], today: bool | None,
           fixed: bool | None) -> dict[str, Any]:
    """Facts with today's engine comparison (``today``: SGLang clears a bar; None: not
    simulated) and the rewritten traffic's (``fixed``)."""
    facts: dict[str, Any] = {"traffic": {"hit_rate": hit, "hit_rate_after_prescription": after, "findings": [],
                                         "actions": actions, "prompt_tokens": 1000},
                             "cost": {"kv_pool_tokens": 1000, "tp": 1, "gpu": "g"}}
    if today is not None:
        facts["simulation"] = _sim(hit, today)
    if after != hit:
        facts["after_fix"] = {"basis": "prescription", "description": "the prescribed template changes",
                              "hit_rate": after, **({"simulation": _sim(after, fixed)} if today is not None else {})}
    return facts


@pytest.mark.parametrize("hit, after, actions, today, fixed, expected", [
    # A measured move lifts a NO-GO over the go bar: the rewritten traffic's own comparison picks
    # the engine (SGLang clears a bar there, or vLLM's prefix caching already gets it all).
    (0.05, 0.85, [_move(800, 0.85)], False, True, ("go", "sglang", "after-fix", "no-go")),
    (0.05, 0.85, [_move(800, 0.85)], False, False, ("no-go", "vllm", "after-fix", "no-go")),
    # Without a simulation the hit rate alone decides, on both sides.
    (0.05, 0.85, [_move(800, 0.85)], None, None, ("go", "sglang", "after-fix", "no-go")),
    # ... into the band between the thresholds: conditional trial.
    (0.05, 0.35, [_move(300, 0.35)], True, True, ("trial", "sglang", "after-fix", "no-go")),
    # ... not out of the no-go band: the same decision, still stated on the better traffic.
    (0.05, 0.25, [_move(200, 0.25)], True, True, ("no-go", "vllm", "after-fix", "no-go")),
    # ... by less than the margin: today's.
    (0.05, 0.06, [_move(20, 0.06)], True, True, ("no-go", "vllm", "today", "no-go")),
    # A trial today becomes a conditional go.
    (0.35, 0.9, [_move(550, 0.9)], None, None, ("go", "sglang", "after-fix", "trial")),
    # Caching already pays: the rewritten traffic's comparison decides the engine.
    (0.6, 0.9, [_move(300, 0.9)], False, False, ("no-go", "vllm", "after-fix", "no-go")),
    (0.6, 0.9, [_move(300, 0.9)], True, True, ("go", "sglang", "after-fix", "go")),
    (0.6, 0.9, [_move(300, 0.9)], True, False, ("no-go", "vllm", "after-fix", "go")),
    # No move measured to help (a rate after with no gaining move, or none at all): today's.
    (0.05, 0.85, [_move(0, 0.05, "Move it. Measured on this traffic: it lowers the hit rate of the other "
                                 "fixes; not recommended.")], None, None, ("no-go", "vllm", "today", "no-go")),
    (0.05, 0.05, [], None, None, ("no-go", "vllm", "today", "no-go")),
    # Two moves that only gain together (leave-one-out 0 each, the combination 0.8): both named.
    (0.05, 0.85, [_move(0, 0.05, "Move A. Measured on this traffic: no gain; not recommended."),
                  _move(0, 0.05, "Move B. Measured on this traffic: no gain; not recommended."),
                  {"kind": "all", "description": "All.", "hit_rate_after": 0.85, "tokens_gained": 800}],
     None, None, ("go", "sglang", "after-fix", "no-go")),
])
def test_conditional_decision_rule(hit, after, actions, today, fixed, expected) -> None:
    facts = _facts(hit, after, actions, today, fixed)
    got = decide(facts, T)
    assert (got["decision"], got["engine"], got["basis"], got["decision_today"]) == expected
    assert got == decide(facts, T)  # a pure function of the facts
    if got["basis"] == "after-fix":
        assert got["hit_rate_decided"] == after
        assert got["reasons"][0].startswith(_head(got))
        assert f"{after:.1%} against {hit:.1%} today" in got["reasons"][0]
        named = [a["description"].split(" Measured ")[0] for a in actions if a["kind"] != "all"]
        assert all(n.rstrip(".") in got["reasons"][0] for n in named)
        # The after-fix reasons come before today's, and each side's comparison speaks for it.
        plural = "s" if len(got["conditional_on"]) > 1 else ""
        split = got["reasons"].index(f"Today, without the change{plural}: {got['decision_today'].upper()} "
                                     f"(engine: {got['engine_today']}).")
        worth = [i for i, r in enumerate(got["reasons"]) if r.startswith("SGLang is worth the change")]
        # (a comparison speaks only where caching pays: at or above the go threshold)
        assert [i < split for i in worth] == ([True] if fixed and after >= T.go_above else []) + \
            ([False] if today and hit >= T.go_above else [])
    else:
        assert got["hit_rate_decided"] == hit and "conditional_on" not in got


def test_the_better_rewrite_is_decided_on() -> None:
    """An alternative rewrite (plan's recipe) that measured higher than the prescription is
    the condition, named by its own description."""
    facts = _facts(0.05, 0.85, [_move(800, 0.5)], None, None)
    facts["after_fix"].update({"basis": "recipe", "description": "ordering the prompt as the recipe does"})
    got = decide(facts, T)
    assert (got["decision"], got["basis"], got["hit_rate_decided"]) == ("go", "after-fix", 0.85)
    assert [c["kind"] for c in got["conditional_on"]] == ["recipe"]
    assert got["conditional_on"][0]["tokens_gained"] == 800
    assert "ordering the prompt as the recipe does" in got["reasons"][0]
