"""Content spelled otherwise (TR104): the equivalence key, the diagnosis that reads a varying
span as a spelling, and the canonical order that answers it.

Traffic is generated: clients that send one block of the system prompt in their own spelling
(Unicode NFC or NFD, hard-wrapped at their own width, a CSV table's columns in their own
order). The truth is the brute-force oracle (tests.oracle) on the traffic fixed by hand (one
spelling for every client), rendered by tests.diagnose.shapes.ids_of; the finding's offset is
where the block starts or where two of its spellings part, found the same way.
Controls hold a real per-client value in the same block: that is a value (TR101), never a
spelling.
"""

from __future__ import annotations

import json
import random
import textwrap
import unicodedata
from typing import Any, Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.diagnose.spelling import normalized, respelled, spelling_kind
from tests import oracle
from tests.diagnose.shapes import ids_of

N = 48
TOLERANCE = 0.02
OFFSET_SLACK = 16  # tokens: the bench's tolerance for a finding's offset
WORDS = ("Größe Gebühr Rückgabe prüfen Lieferung Bestätigung Kündigung Zahlung Mängel Frühstück "
         "çalışma değişiklik ödeme teşekkür güncelleme sipariş iade müşteri kargo açıklama").split()

# -- the key


TEXTS = st.lists(st.sampled_from(WORDS + ["and", "the", "42", "x-ray"]), min_size=8, max_size=40).map(" ".join)


@settings(max_examples=60, deadline=None)
@given(TEXTS)
def test_a_decomposed_spelling_is_the_same_content(text: str) -> None:
    other = unicodedata.normalize("NFD", text)
    assert respelled(text, other) == (other != text)
    if other != text:
        assert spelling_kind(text, other) == "normalization"


@settings(max_examples=60, deadline=None)
@given(TEXTS, st.integers(20, 60), st.integers(61, 120))
def test_a_wrapping_is_the_same_content(text: str, narrow: int, wide: int) -> None:
    a, b = textwrap.fill(text, narrow), textwrap.fill(text, wide)
    assert respelled(a, b) == (a != b)
    if a != b:
        assert spelling_kind(a, b) == "wrapping"


@settings(max_examples=60, deadline=None)
@given(TEXTS, st.data())
def test_a_changed_word_is_another_content(text: str, data: st.DataObject) -> None:
    words = text.split()
    k = data.draw(st.integers(0, len(words) - 1))
    replacement = data.draw(st.sampled_from(["Ticket-7731", "2026-12-06", "Ayşe"]))
    changed = " ".join(words[:k] + [replacement] + words[k + 1:])
    assert not respelled(text, changed)
    assert normalized(text) != normalized(changed)


def test_columns_and_keys_in_another_order_are_the_same_content() -> None:
    rows = [["sku", "item", "price"], ["A-1", "lamp", "31.34"], ["A-2", "desk", "120.00"]]
    a = "\n".join(",".join(r) for r in rows)
    b = "\n".join(",".join([r[2], r[0], r[1]]) for r in rows)
    assert respelled(a, b) and spelling_kind(a, b) == "column-order"
    assert not respelled(a, b.replace("31.34", "31.35"))
    x, y = json.dumps({"a": 1, "b": [2, 3]}), json.dumps({"b": [2, 3], "a": 1})
    assert respelled(x, y) and spelling_kind(x, y) == "key-order"


# -- the diagnosis and the fix, on generated traffic


def _block_nfd(rng: random.Random) -> tuple[list[str], str]:
    text = "\n".join("- " + " ".join(rng.choice(WORDS) for _ in range(12)) + "." for _ in range(5))
    forms = ["NFC", "NFD", "NFC"]  # three clients, one decomposing
    return [unicodedata.normalize(forms[rng.randrange(3)], text) for _ in range(N)], text


def _block_wrap(rng: random.Random) -> tuple[list[str], str]:
    text = " ".join(rng.choice(WORDS) for _ in range(90)) + "."
    widths = (60, 72, 100)
    return [textwrap.fill(text, widths[rng.randrange(3)]) for _ in range(N)], textwrap.fill(text, 72)


def _block_columns(rng: random.Random) -> tuple[list[str], str]:
    rows = [["sku", "item", "price", "stock"]] + [
        [f"SKU-{k}", rng.choice(WORDS), f"{rng.uniform(5, 200):.2f}", str(rng.randint(0, 40))] for k in range(12)]
    orders = [(0, 1, 2, 3), (2, 0, 3, 1), (1, 3, 0, 2)]

    def table(order: tuple[int, ...]) -> str:
        return "\n".join(",".join(r[c] for c in order) for r in rows)
    return [table(orders[rng.randrange(3)]) for _ in range(N)], table(orders[0])


BLOCKS: dict[str, tuple[Callable[[random.Random], tuple[list[str], str]], str]] = {
    "normalization": (_block_nfd, "Hinweise:\n"), "wrapping": (_block_wrap, "Policy:\n"),
    "column-order": (_block_columns, "Price list (CSV):\n")}


def _traffic(kind: str, seed: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Logged and fixed by hand: instructions, the block in each request's spelling,
    more instructions; a question per request. Fixed: one spelling for all."""
    rng = random.Random(f"{kind}-{seed}")
    make, label = BLOCKS[kind]
    variants, canonical = make(rng)
    head = "You answer for Nordwind Versand. " + " ".join(rng.choice(WORDS) for _ in range(30)) + "."
    tail = "Rules:\n" + "\n".join("- " + " ".join(rng.choice(WORDS) for _ in range(14)) + "." for _ in range(12))

    def record(block: str, i: int) -> dict[str, Any]:
        return {"messages": [{"role": "system", "content": f"{head}\n\n{label}{block}\n\n{tail}"},
                             {"role": "user", "content": f"Frage {i}: " + " ".join(rng.choice(WORDS) for _ in range(8))}]}
    logged = [record(v, i) for i, v in enumerate(variants)]
    fixed = [dict(r, messages=[dict(r["messages"][0], content=f"{head}\n\n{label}{canonical}\n\n{tail}"),
                               r["messages"][1]]) for r in logged]
    return logged, fixed


def _rate(records: list[dict[str, Any]]) -> float:
    ids = [ids_of(r) for r in records]
    return sum(oracle.cached_tokens(ids)) / sum(map(len, ids))


def _parting_offsets(records: list[dict[str, Any]], label: str) -> set[int]:
    """Where two requests of different spellings stop sharing, for every pair of spellings;
    and where the block starts (its label: the unit spelled otherwise)."""
    first: dict[str, list[int]] = {}
    for r in records:
        first.setdefault(r["messages"][0]["content"], ids_of(r))
    spellings = list(first.values())
    system = records[0]["messages"][0]["content"]
    cut = dict(records[0], messages=[dict(records[0]["messages"][0], content=system[:system.index(label)] + "@@@")])
    return ({oracle.lcp(a, b) for k, a in enumerate(spellings) for b in spellings[k + 1:]}
            | {oracle.lcp(spellings[0], ids_of(cut))})


@pytest.mark.parametrize("kind", sorted(BLOCKS))
@pytest.mark.parametrize("seed", [1, 2])
def test_a_respelled_block_is_found_as_a_spelling_and_fixed(kind: str, seed: int) -> None:
    from advisor.api import analyze, prescribe

    logged, fixed = _traffic(kind, seed)
    truth, before = _rate(fixed), _rate(logged)
    assert truth > before + 0.01  # the spelling costs something
    found = analyze(logged).findings
    spelled = [f for f in found if f.code == "TR104"]
    assert [f.kind for f in spelled] == [kind], [(f.code, f.kind, f.token_offset) for f in found]
    assert min(abs(spelled[0].token_offset - o) for o in _parting_offsets(logged, BLOCKS[kind][1])) <= OFFSET_SLACK
    # Nothing else claims the block: not as a value, a placement or an order.
    t0 = sum(len(ids_of(r)) for r in logged)
    assert not [f for f in found if f.code in ("TR101", "TR102", "TR201") and f.tokens_lost > 0.01 * t0]
    result = prescribe(logged)
    assert result.hit_rate_after >= truth - TOLERANCE, (result.hit_rate_after, truth)
    assert "canonical-order" in [a["kind"] for a in result.actions]


@pytest.mark.parametrize("kind", sorted(BLOCKS))
def test_a_real_value_in_the_block_is_no_spelling(kind: str) -> None:
    """The same traffic with each client's own ticket number in the block: a value."""
    from advisor.api import analyze

    logged, _ = _traffic(kind, 3)
    clients = [f"Kundennummer {rng_value}" for rng_value in (40417, 52210, 67093)]
    for i, r in enumerate(logged):
        system = r["messages"][0]
        # One spelling for all, and a client's number in the block's first line.
        text = unicodedata.normalize("NFC", logged[0]["messages"][0]["content"])
        at = text.index(":\n") + 2
        r["messages"][0] = dict(system, content=text[:at] + clients[i % 3] + "\n" + text[at:])
    found = analyze(logged).findings
    assert not [f for f in found if f.code == "TR104"], [(f.code, f.kind) for f in found]
    assert any(f.code in ("TR101", "TR102") for f in found)
