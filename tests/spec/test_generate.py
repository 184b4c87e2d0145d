"""Generated traffic has the described lengths, shares and variability (measured on it)."""

from __future__ import annotations

import collections
import math
import random
from dataclasses import replace

import pytest

from advisor.errors import AdvisorError
from advisor.spec.generate import generate
from advisor.spec.load import EXAMPLES, load_example, parse_spec
from advisor.spec.model import zipf_weights
from advisor.spec.recipe import recipe
from tests.spec.helpers import section_token_lengths

MIXED = """
name: mixed
requests: 2000
seed: 3
arrival: {rate: 50}
tenants: {names: [a, b, c], shares: [0.6, 0.3, 0.1]}
output_tokens: {mean: 50, sd: 10}
messages:
  - role: system
    sections:
      - {name: rules, tokens: 120}
      - {name: persona, tokens: 40, vary: {variants: {count: 3, weights: [0.5, 0.3, 0.2]}}}
      - {name: brand, tokens: {min: 20, max: 30}, vary: tenant}
      - {name: stamp, tokens: 24, vary: {clock: {resolution_seconds: 10}}}
  - role: user
    sections:
      - {name: docs, tokens: {min: 15, max: 25}, vary: {retrieved: {documents: 50, k: 3, popularity: {zipf: 1.2}}}}
      - {name: ask, tokens: {mean: 30, sd: 8}, vary: request}
"""


@pytest.fixture(scope="module")
def mixed():
    spec = parse_spec(MIXED, "mixed.yaml")
    return spec, generate(spec)


def _random_spec(rng: random.Random) -> str:
    """A spec drawn at random over every dimension the format has."""
    kinds = ["static", "tenant", "session", "request", "variants", "clock", "retrieved"]
    lines = ["name: random", f"requests: {rng.randint(5, 30)}", f"seed: {rng.randint(0, 99)}",
             "tenants: {count: 3}"]
    if rng.random() < 0.5:
        lines += ["conversation:", f"  turns: {{min: 1, max: {rng.randint(1, 4)}}}", "  append:",
                  "    - role: user", "      sections:",
                  f"        - {{name: more, tokens: {rng.randint(2, 40)}, vary: request}}"]
    lines.append("messages:")
    n = 0
    for role in rng.sample(["system", "user", "assistant", "developer"], rng.randint(1, 3)):
        lines += [f"  - role: {role}", f"    shuffle: {str(rng.random() < 0.3).lower()}", "    sections:"]
        for _ in range(rng.randint(1, 3)):
            n += 1
            kind = rng.choice(kinds)
            vary = {"variants": "{variants: {count: 4}}", "clock": "{clock: {resolution_seconds: 5}}",
                    "retrieved": f"{{retrieved: {{documents: 9, k: {rng.randint(1, 3)}}}}}"}.get(kind, kind)
            tokens = rng.choice([str(rng.randint(2, 90)), f"{{min: 2, max: {rng.randint(3, 60)}}}",
                                 f"{{mean: {rng.randint(5, 50)}, sd: 9}}"])
            if kind == "clock":
                tokens = str(rng.randint(20, 40))
            lines.append(f"      - {{name: s{n}, tokens: {tokens}, vary: {vary}}}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("case", range(12))
def test_section_lengths_exact_on_random_specs(case):
    spec = parse_spec(_random_spec(random.Random(case)), f"random-{case}")
    gen = generate(spec)
    for record, pieces in zip(gen.records, gen.pieces):
        assert section_token_lengths(record, pieces) == [p.tokens for p in pieces]
    by_name = {s.name: s for s in spec.sections()}
    for pieces in gen.pieces:
        for p in pieces:
            if p.section == "assistant":
                continue
            t = by_name[p.section].tokens
            if t.fixed is not None:
                assert p.tokens == t.fixed
            elif t.low is not None:
                assert t.low <= p.tokens <= t.high


def test_lengths_shares_and_variability(mixed):
    _spec, gen = mixed
    records, pieces = gen.records, gen.pieces
    # Lengths of every section of every request, measured on the rendered prompt (a sample: each costs
    # a tokenization per section).
    for record, ps in list(zip(records, pieces))[::50]:
        assert section_token_lengths(record, ps) == [p.tokens for p in ps]
    assert all(p.tokens == 120 for ps in pieces for p in ps if p.section == "rules")
    asks = [p.tokens for ps in pieces for p in ps if p.section == "ask"]
    mean = sum(asks) / len(asks)
    sd = math.sqrt(sum((a - mean) ** 2 for a in asks) / len(asks))
    assert abs(mean - 30) < 1.0 and abs(sd - 8) < 1.0
    # Tenant shares (binomial, four standard deviations).
    n = len(records)
    counts = collections.Counter(r["tenant"] for r in records)
    for name, share in zip(("a", "b", "c"), (0.6, 0.3, 0.1)):
        assert abs(counts[name] / n - share) < 4 * math.sqrt(share * (1 - share) / n)
    texts = collections.defaultdict(set)
    by_tenant = collections.defaultdict(set)
    for record, ps in zip(records, pieces):
        for p in ps:
            texts[p.section].add(p.text)
            if p.section == "brand":
                by_tenant[record["tenant"]].add(p.text)
    assert len(texts["rules"]) == 1
    assert len(texts["persona"]) == 3
    assert all(len(v) == 1 for v in by_tenant.values()) and len(set.union(*by_tenant.values())) == 3
    assert len(texts["ask"]) == n  # per request: all different
    # Variant weights.
    persona = collections.Counter(p.value for ps in pieces for p in ps if p.section == "persona")
    for v, w in zip(("v0", "v1", "v2"), (0.5, 0.3, 0.2)):
        assert abs(persona[v] / n - w) < 4 * math.sqrt(w * (1 - w) / n)
    # Retrieval: k distinct documents per request; the first passage follows Zipf(1.2) over 50.
    first = collections.Counter()
    for ps in pieces:
        docs = [p.value for p in ps if p.section == "docs"]
        assert len(docs) == 3 == len(set(docs))
        first[docs[0]] += 1
    w = zipf_weights(50, 1.2)
    for d in (0, 1, 4):
        assert abs(first[f"d{d}"] / n - w[d]) < 4 * math.sqrt(w[d] * (1 - w[d]) / n)
    # Clock: the text changes exactly when the timestamp crosses a 10-second boundary.
    for record, ps in zip(records, pieces):
        stamp = next(p for p in ps if p.section == "stamp")
        window = int(record["timestamp"] // 10 * 10)
        assert stamp.value == f"t{window}"
    # Arrivals: Poisson at 50 requests/s.
    stamps = [r["timestamp"] for r in records]
    assert stamps == sorted(stamps)
    assert abs((n - 1) / (stamps[-1] - stamps[0]) - 50) < 5


def test_sessions_repeat_history():
    spec = load_example("support-chat").with_requests(300)
    gen = generate(spec)
    profiles = collections.Counter(p.text for ps in gen.pieces for p in ps if p.section == "customer-profile")
    # One profile per session, resent on every turn: sessions of 2-6 turns (the last ones cut short).
    assert len(profiles) < 300 / 1.5
    for record in gen.records:
        roles = [m["role"] for m in record["messages"]]
        turns = (len(roles) - 2) // 2 + 1
        assert roles == ["system", "user"] + ["assistant", "user"] * (turns - 1)
    # A later turn extends the earlier one: the earlier prompt's messages are a prefix of it.
    seen: dict[str, dict] = {}
    extended = 0
    for record in gen.records:
        key = record["messages"][1]["content"]
        if key in seen:
            before = seen[key]
            assert record["messages"][: len(before["messages"])] == before["messages"]
            # The next turn comes think_seconds (40) after the previous one.
            assert record["timestamp"] - before["timestamp"] == pytest.approx(40, abs=0.002)
            assert record["tenant"] == before["tenant"]
            extended += 1
        seen[key] = record
    assert extended > 100


def test_deterministic_and_seeded():
    spec = load_example("rag").with_requests(20)
    assert generate(spec).jsonl() == generate(spec).jsonl()
    assert generate(replace(spec, seed=1)).jsonl() != generate(spec).jsonl()


def test_recipe_reorders_the_same_text():
    spec = load_example("scrambled").with_requests(30)
    a, b = generate(spec), generate(recipe(spec))
    for pa, pb in zip(a.pieces, b.pieces):
        assert sorted((p.section, p.value) for p in pa) == sorted((p.section, p.value) for p in pb)
        assert [p.section for p in pb] == ["instructions", "tools", "current-date"] + ["passages"] * 4 + ["question"]


@pytest.mark.parametrize("name", EXAMPLES)
def test_examples_generate_real_text(name):
    gen = generate(load_example(name).with_requests(5))
    for record in gen.records:
        for m in record["messages"]:
            words = m["content"].split()
            assert len(words) > 3
            # Words of the bundled prose, not placeholders: mostly lower-case dictionary-like words.
            assert sum(w.strip(".,;:'\"()?!").isalpha() for w in words) / len(words) > 0.9


def test_cl100k_lengths_exact_too():
    spec = replace(load_example("scrambled").with_requests(12), tokenizer="cl100k")
    gen = generate(spec)
    for record, pieces in zip(gen.records, gen.pieces):
        assert section_token_lengths(record, pieces, "cl100k") == [p.tokens for p in pieces]


def test_lengths_that_do_not_add_up_are_refused():
    from advisor.ingest.tokenizers import load_tokenizer
    from advisor.spec.generate import check_lengths

    gen = generate(load_example("rag").with_requests(1))
    pieces = [replace(p, tokens=p.tokens + 1) if i == 0 else p for i, p in enumerate(gen.pieces[0])]
    with pytest.raises(AdvisorError, match="merges tokens across section boundaries"):
        check_lengths(load_tokenizer("llama3"), gen.records[0], pieces)


def test_clock_too_short_names_the_section():
    spec = parse_spec(MIXED.replace("{name: stamp, tokens: 24,", "{name: stamp, tokens: 5,"), "mixed.yaml")
    with pytest.raises(AdvisorError, match="section 'stamp': 5 tokens cannot hold"):
        generate(replace(spec, requests=3))


def test_offline_batch_has_no_timestamps(cli, tmp_path):
    text = MIXED.replace("arrival: {rate: 50}", "arrival: {rate: 50, timestamps: false}")
    gen = generate(replace(parse_spec(text, "mixed.yaml"), requests=30))
    assert all("timestamp" not in r for r in gen.records)
    path = tmp_path / "batch.yaml"
    path.write_text(text.replace("requests: 2000", "requests: 30"))
    res = cli("plan", path, "--format", "json")
    assert res.code == 0, res.err
    import json

    assert json.loads(res.out)["simulation"]["mode"] == "replay"
