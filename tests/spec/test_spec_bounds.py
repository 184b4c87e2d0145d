"""One validation of a workload spec (issue 34): `spec check`, `spec generate` and `plan` read a
spec through the same function, with declared bounds, so what `spec check` accepts the other
two accept and finish on, and what they would refuse it refuses: one line naming the file, the
line and the key, exit 2, never a traceback or a run without end."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from advisor.spec import generate as generate_module
from advisor.spec.load import load_example, parse_spec
from advisor.spec.model import MAX_CONTEXT_TOKENS, MAX_REQUESTS, MAX_TOTAL_TOKENS

BASE = """\
name: bounds
requests: 20
messages:
  - role: system
    sections:
      - {name: rules, tokens: 60}
  - role: user
    sections:
      - {name: q, tokens: 6, vary: request}
"""


def _with(extra: str = "", **edits: str) -> str:
    text = BASE
    for old, new in edits.items():
        assert old in text
        text = text.replace(old, new, 1)
    return text + extra


def _one_line_error(res, where: str, words: str) -> None:
    assert res.code == 2, res.err
    lines = res.err.strip().splitlines()
    assert len(lines) == 1, res.err
    assert lines[0].startswith(f"advisor: error: {where}"), res.err
    assert words in lines[0], res.err
    assert "Traceback" not in res.err and res.out == ""


# (spec text, "line: key" the error must name, words of the reason). Each was accepted by
# `spec check` before: plan then ran without end, crashed, or refused it itself.
REFUSED = [
    # A section of 10**12 tokens: plan filled it for ever.
    (_with(**{"tokens: 60}": "tokens: 1000000000000}"}), "6: messages[0].sections[0].tokens", "at most 163,840"),
    # A key given twice: the last one silently won.
    (_with(**{"requests: 20\n": "requests: 20\nrequests: 30\n"}), "3: ", "duplicate key 'requests' (first given on line 2)"),
    # A clock section whose declared tokens cannot hold its line (issue 35): plan failed on it.
    (_with("", **{"{name: q, tokens: 6, vary: request}":
                  "{name: q, tokens: 6, vary: request}\n      - {name: now, tokens: 12, vary: {clock: {resolution_seconds: 60}}}"}),
     "10: messages[1].sections[1].tokens", "12 tokens cannot hold the text 'Current time:"),
    # Names plan could not resolve.
    (_with("tokenizer: nope\n"), "10: tokenizer", "unknown tokenizer 'nope'"),
    (_with("model: nope-model\n"), "10: model", "unknown model 'nope-model'"),
    (_with("gpu: nope-gpu\n"), "10: gpu", "unknown GPU 'nope-gpu'"),
    (_with("engine: {tp: 3}\n"), "10: engine.tp", "does not divide the 32 attention heads"),
    (_with("model: llama-3.1-405b\n"), "10: model", "leave no KV pool"),
    # A tokenizer whose tokens merge across section boundaries: generate refused it.
    (_with("tokenizer: mistral-v3\n"), "10: tokenizer", "Mistral"),
    # A name that is a path: plan's temporary files went elsewhere (a FileNotFoundError traceback).
    (_with(**{"name: bounds": "name: a/b"}), "1: name", "path separator"),
    # Arrivals so slow their times are no dates (a ValueError traceback in plan).
    (_with("arrival: {rate: 0.000000000001}\n"), "10: arrival.rate", "at least 1e-06"),
    (_with("arrival: {rate: 0.000001}\n", **{"requests: 20": "requests: 50000"}), "10: arrival.rate", "years"),
    # Counts that the generator or the closed form walked one by one.
    (_with("tenants: {count: 1000000000000}\n"), "10: tenants.count", "at most 10,000"),
    (_with("conversation: {turns: 1000000000}\n"), "10: conversation.turns", "at most 163,840"),
    (_with("output_tokens: 1000000000000\n"), "10: output_tokens", "at most 163,840"),
    (_with("engine: {page_size: 100000000}\n"), "10: engine.page_size", "at most 1,048,576"),
    (_with("conversation: {turns: 3, think_seconds: 1.0e+300}\n"), "10: conversation.think_seconds", "at most"),
    (_with(**{"tokens: 60}": "tokens: {mean: 100000, sd: 20000}}"}), "6: messages[0].sections[0].tokens",
     "draws up to 220,000"),
    # A request longer than every catalogued context window, from its conversation's turns.
    (_with("conversation: {turns: 100000, append: [{role: user, sections: [{name: f, tokens: 5}]}]}\n"),
     "10: conversation", "more than 163,840"),
    # All requests together, past what a plan holds in memory.
    (_with(**{"requests: 20": "requests: 45000", "tokens: 60}": "tokens: 5000}"}), "2: requests",
     "more than the 200,000,000"),
    # A YAML value the integer conversion refuses (a ValueError traceback).
    (_with("seed: 1" + "0" * 5000 + "\n"), "10: ", "as a whole number"),
]


@pytest.mark.parametrize("text,where,words", REFUSED, ids=[f"refused-{i}" for i in range(len(REFUSED))])
def test_spec_check_refuses_what_plan_cannot_run(cli, tmp_path, text, where, words):
    f = tmp_path / "spec.yaml"
    f.write_text(text)
    for args in (("spec", "check", f), ("plan", f), ("spec", "generate", f, "-o", tmp_path / "out.jsonl")):
        _one_line_error(cli(*args), f"{f}:{where}", words)
    assert not (tmp_path / "out.jsonl").exists()


def test_deep_yaml_is_one_line_not_a_recursion_error(cli, tmp_path):
    f = tmp_path / "deep.yaml"
    f.write_text("name: deep\nmessages: " + "[" * 50_000 + "]" * 50_000 + "\n")
    for args in (("spec", "check", f), ("plan", f)):
        _one_line_error(cli(*args), f"{f}:2: ", "nested more than 100 levels deep")


def test_command_line_overrides_go_through_the_same_validation(cli, tmp_path):
    res = cli("plan", "--example", "rag", "--requests", str(MAX_REQUESTS + 1))
    _one_line_error(res, f"example rag:6: requests (--requests {MAX_REQUESTS + 1}): ", f"at most {MAX_REQUESTS:,}")
    longest = load_example("rag").longest_request()
    too_many = MAX_TOTAL_TOKENS // longest + 1
    res = cli("spec", "generate", "--example", "rag", "--requests", str(too_many), "-o", tmp_path / "x.jsonl")
    _one_line_error(res, f"example rag:6: requests (--requests {too_many}): ",
                    f"use at most {MAX_TOTAL_TOKENS // longest:,} requests")


def test_a_clock_that_just_fits_is_valid_and_plans(cli, tmp_path):
    """The boundary of the clock check: 17 tokens hold the line, and plan agrees."""
    f = tmp_path / "clock.yaml"
    f.write_text(_with(**{"{name: q, tokens: 6, vary: request}":
                          "{name: q, tokens: 6, vary: request}\n"
                          "      - {name: now, tokens: 17, vary: {clock: {resolution_seconds: 60}}}"}))
    res = cli("spec", "check", f)
    assert res.code == 0 and "valid" in res.out, res.err
    res = cli("plan", f, "--format", "json")
    assert res.code == 0, res.err
    assert json.loads(res.out)["planned"]["requests"] == 20


def test_bundled_examples_stay_valid(cli):
    from advisor.spec.load import EXAMPLES

    for name in EXAMPLES:
        res = cli("spec", "check", "--example", name)
        assert res.code == 0, res.err


def test_longest_request_counts_every_turn_and_passage():
    spec = parse_spec(_with("output_tokens: 7\nconversation: {turns: {min: 1, max: 4}, append: "
                            "[{role: user, sections: [{name: f, tokens: {min: 2, max: 9}}]}]}\n",
                            **{"{name: q, tokens: 6, vary: request}":
                               "{name: q, tokens: 6, vary: {retrieved: {documents: 10, k: 3}}}"}), "s.yaml")
    # 60 + 3 passages of 6, then three earlier turns of (7 output + 9 appended), then its own output.
    assert spec.longest_request() == 60 + 3 * 6 + 3 * (7 + 9) + 7
    normal = parse_spec(_with(**{"tokens: 60}": "tokens: {mean: 100, sd: 10}}"}), "n.yaml")
    assert normal.sections()[0].tokens.largest == 160  # truncated six standard deviations up
    assert MAX_CONTEXT_TOKENS == 163_840


def test_schedule_work_is_bounded_by_the_requests_kept(monkeypatch, cli, tmp_path):
    """Long conversations: the plan opens sessions and their turns only as the requests kept
    need them (before, every turn of every session started was built, then sorted)."""
    text = _with("conversation: {turns: 150000, think_seconds: 1000}\narrival: {rate: 50}\noutput_tokens: 1\n",
                 **{"requests: 20": "requests: 300"})
    (tmp_path / "long.yaml").write_text(text)
    assert cli("spec", "check", tmp_path / "long.yaml").code == 0  # within every bound
    made = []
    real = generate_module._Turn

    def counting(*args):
        made.append(args)
        return real(*args)

    monkeypatch.setattr(generate_module, "_Turn", counting)
    spec = parse_spec(text, "long.yaml")
    times = generate_module.arrival_times(spec)
    assert len(times) == 300 and times == sorted(times)
    assert len(made) == 300


def _reference_schedule(spec):
    """The arrival plan as first written: every turn of every session started while the
    plan was not yet full, sorted, the first ``requests`` kept (an oracle for small specs)."""
    import bisect
    from itertools import accumulate

    rng = generate_module._rng(spec.seed, "arrivals")
    conv, tenants = spec.conversation, spec.tenants
    cum = list(accumulate(tenants.shares)) if tenants else []
    every, t, session = [], 0.0, 0
    while session <= spec.requests:  # a session per request at most: later ones start later still
        turns = conv.turns.draw(rng) if conv else 1
        tenant = tenants.names[min(bisect.bisect_right(cum, rng.random() * cum[-1]), len(cum) - 1)] if tenants else None
        think = conv.think_seconds if conv else 0.0
        every += [(t + j * think, session, j, tenant) for j in range(turns)]
        session += 1
        t += rng.expovariate(spec.rate / spec.mean_turns)
    return sorted(every)[: spec.requests]


@pytest.mark.parametrize("name", ["support-chat", "agent", "multi-tenant", "rag"])
@pytest.mark.parametrize("requests", [1, 7, 120])
def test_schedule_is_the_same_plan_as_before(name, requests):
    spec = replace(load_example(name), requests=requests, seed=requests)
    got = [(p.time, p.session, p.turn, p.tenant) for p in generate_module._schedule(spec)]
    assert got == _reference_schedule(spec)
