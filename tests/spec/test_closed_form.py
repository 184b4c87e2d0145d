"""Closed-form hit rates: against plan's measurement at 2,000 requests, against formulas
written out here, and against a Monte Carlo of the value draws (an independent oracle)."""

from __future__ import annotations

import bisect
import itertools
import math
import random

import pytest

from advisor.ingest.tokenizers import load_tokenizer
from advisor.spec.closed_form import closed_form
from advisor.spec.load import parse_spec
from advisor.spec.plan import plan
from advisor.spec.generate import layout_around
from tests.spec.helpers import EOT_AND_ASSISTANT, layout_tokens, tokens

STATIC_UNIQUE = """
name: static-unique
requests: 2000
arrival: {rate: 400}
output_tokens: 8
messages:
  - role: system
    sections: [{name: rules, tokens: 700}]
  - role: user
    sections: [{name: question, tokens: {min: 20, max: 60}, vary: request}]
"""

K_OF_N = """
name: k-of-n
requests: 2000
arrival: {rate: 400}
output_tokens: 8
messages:
  - role: system
    sections: [{name: rules, tokens: 300}]
  - role: user
    sections:
      - {name: passages, tokens: 120, vary: {retrieved: {documents: 400, k: 3}}}
      - {name: question, tokens: 30, vary: request}
"""


def _static_unique_expected(n: int) -> float:
    # Every request shares BOS, the system turn and the user header; the question is unique,
    # so the L-1 cap never binds. The first request misses everything.
    tail = tokens(EOT_AND_ASSISTANT)
    shared = layout_tokens("system", "user") - tail + 700
    prompt = shared + 40 + tail
    return (n - 1) * shared / (n * prompt)


def _k_of_n_expected(n: int, docs: int, k: int, passage: int) -> float:
    tail = tokens(EOT_AND_ASSISTANT)
    # Between two sections of a message: after each passage here, in the token of the
    # period that closes the passage (".\n\n"), so no token of its own.
    blank = tokens(".\n\n") - tokens(".")
    shared = layout_tokens("system", "user") - tail + 300
    prompt = shared + k * (passage + blank) + 30 + tail
    cached = (n - 1) * shared
    for j in range(1, k + 1):
        tuples = math.perm(docs, j)  # ordered first-j passages, equally likely
        first_seen = tuples * (1 - (1 - 1 / tuples) ** n)  # E[distinct] = first occurrences
        cached += (passage + blank) * (n - first_seen)
    return cached / (n * prompt)


@pytest.mark.parametrize("text,expected", [
    (STATIC_UNIQUE, lambda: _static_unique_expected(2000)),
    (K_OF_N, lambda: _k_of_n_expected(2000, 400, 3, 120)),
])
def test_plan_measures_the_closed_form_at_2000_requests(text, expected):
    spec = parse_spec(text, "spec.yaml")
    want = expected()
    assert closed_form(spec).hit_rate == pytest.approx(want, abs=1e-9)
    data = plan(spec)
    assert data["closed_form"]["described"]["hit_rate"] == pytest.approx(want, abs=1e-6)
    assert abs(data["hit_rate"] - want) < 0.01, (data["hit_rate"], want)
    assert abs(data["simulation"]["unlimited_hit_rate"] - want) < 0.01


ORACLE_SPECS = [
    """
name: oracle-a
requests: 60
tenants: {count: 3, shares: [0.5, 0.3, 0.2]}
messages:
  - role: system
    shuffle: true
    sections:
      - {name: a, tokens: 30}
      - {name: b, tokens: 20, vary: {variants: {count: 3, weights: [0.6, 0.3, 0.1]}}}
      - {name: c, tokens: 10, vary: tenant}
  - role: user
    sections:
      - {name: d, tokens: 25, vary: {retrieved: {documents: 6, k: 2, popularity: {zipf: 1.1}}}}
      - {name: e, tokens: 7, vary: {variants: {count: 2}}}
""",
    """
name: oracle-b
requests: 40
messages:
  - role: system
    sections:
      - {name: a, tokens: 12, vary: {variants: {count: 2}}}
      - {name: b, tokens: 15, vary: {retrieved: {documents: 5, k: 3}}}
      - {name: c, tokens: 9, vary: {clock: {resolution_seconds: 1000000000}}}
  - role: user
    sections: [{name: q, tokens: 4, vary: {variants: {count: 4, weights: [0.7, 0.1, 0.1, 0.1]}}}]
""",
]


def _pick(rng: random.Random, weights: list[float]) -> int:
    cum = list(itertools.accumulate(weights))
    return bisect.bisect_right(cum, rng.random() * cum[-1])


def _monte_carlo(spec, runs: int, seed: int = 7) -> tuple[float, float]:
    """Mean and standard error of cached tokens per run: draw each request's values, walk
    its segments, count a segment when its whole prefix tuple occurred in an earlier request."""
    tok = load_tokenizer("llama3")
    fixed = [len(tok.encode(t)) for t in layout_around(tuple(m.role for m in spec.messages))]
    blank = len(tok.encode(".\n\n")) - len(tok.encode("."))  # prose closes with a period that holds it
    rng = random.Random(seed)
    totals = []
    for _ in range(runs):
        seen: set = set()
        total = 0
        for _i in range(spec.requests):
            tenant = _pick(rng, list(spec.tenants.shares)) if spec.tenants else None
            segments: list[tuple[int, object]] = []
            for m, before in zip(spec.messages, fixed):
                segments.append((before, None))
                order = list(m.sections)
                if m.shuffle:
                    rng.shuffle(order)
                first_piece = len(segments)
                for s in order:
                    v = s.vary
                    if v.kind == "static" or v.kind == "clock":
                        values = [0]
                    elif v.kind == "tenant":
                        values = [tenant]
                    elif v.kind == "variants":
                        values = [_pick(rng, list(v.weights) if v.weights else [1.0] * v.count)]
                    else:
                        w = [1 / (r + 1) ** v.zipf for r in range(v.count)] if v.zipf else [1.0] * v.count
                        values = []
                        while len(values) < v.k:
                            d = _pick(rng, w)
                            if d not in values:
                                values.append(d)
                    for value in values:
                        if len(segments) > first_piece:
                            segments.append((blank, None))  # the blank line after the previous section
                        segments.append((s.tokens.fixed, (s.name, value)))
            segments.append((fixed[-1], None))
            key: tuple = ()
            cached = 0
            prefixes = []
            for length, part in segments:
                if part is not None:
                    key = key + (part,)
                prefixes.append(key)
                if (len(prefixes), key) in seen:
                    cached += length
            if (len(prefixes), key) in seen:
                cached -= 1  # the L-1 cap
            for depth, k in enumerate(prefixes, 1):
                seen.add((depth, k))
            total += cached
        totals.append(total)
    mean = sum(totals) / runs
    sd = math.sqrt(sum((t - mean) ** 2 for t in totals) / (runs - 1))
    return mean, sd / math.sqrt(runs)


@pytest.mark.parametrize("text", ORACLE_SPECS)
def test_closed_form_matches_monte_carlo(text):
    spec = parse_spec(text, "oracle.yaml")
    cf = closed_form(spec)
    mean, se = _monte_carlo(spec, runs=400)
    expected = cf.expected_cached_tokens * spec.requests
    assert abs(expected - mean) < 4 * se + 1e-9, (expected, mean, se)


def test_no_closed_form_says_why():
    multi = parse_spec(STATIC_UNIQUE + "conversation: {turns: 3}\n", "s.yaml")
    assert closed_form(multi).hit_rate is None and "conversations" in closed_form(multi).note
    paged = parse_spec(STATIC_UNIQUE + "engine: {page_size: 16}\n", "s.yaml")
    assert closed_form(paged).hit_rate is None and "page size" in closed_form(paged).note
