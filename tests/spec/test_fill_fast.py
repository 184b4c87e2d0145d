"""The text generator's fill answers as the plain fill over ``word_stream``.

``Fitter.fill`` (issue 37) keeps each corpus word's cost in a table and the filled texts per
tokenizer for the process; it must give exactly the text the plain algorithm gives: whole
sentences of the walk while they fit, then one cut to the tokens left and closed with a
period (issue 35), or ending on a word where the tokenizer closes none.
"""

from __future__ import annotations

import itertools
import random

import pytest

from advisor.ingest.tokenizers import load_tokenizer
from advisor.spec import text
from advisor.spec.text import _PUNCTUATION, SENTENCE_END, Fitter, junctions, word_stream


def _plain_fill(encode, tokens: int, key: str, lead: str = "", start: int | None = None, close: str = ".") -> str:
    """The fill written plainly over ``word_stream`` with a private cost memo (the reference)."""
    memo: dict[str, int] = {}

    def cost(piece: str) -> int:
        if piece not in memo:
            memo[piece] = len(encode(piece))
        return memo[piece]

    shut = cost(close) if close and (lead or tokens > cost(close)) else 0
    close = close if shut else ""
    out: list[str] = []
    if lead:
        if cost(lead) == tokens:
            return lead
        left = tokens - cost(lead + ".")
        out = [lead + "."] if left >= 1 + shut or (left == 0 and close) else [lead]
    stream = word_stream(key, start)
    pending: list[str] = []
    while sum(map(cost, out)) < tokens:
        sentence = []
        for word in stream:
            sentence.append(word)
            if word.endswith(SENTENCE_END):
                break
        pieces = [" " + w if out or i else w for i, w in enumerate(sentence)]
        left = tokens - sum(map(cost, out)) - sum(map(cost, pieces))
        if left >= 1 + shut or (left == 0 and close):
            out += pieces
        else:
            pending = sentence
            break
    if sum(map(cost, out)) == tokens:
        return "".join(out)
    target = tokens - sum(map(cost, out)) - shut
    words = itertools.chain(pending, stream)
    ending: list[str] = []
    stuck = 0
    while sum(map(cost, ending)) < target:
        word = next(words)
        piece = " " + word if out or ending else word
        got = sum(map(cost, ending))
        if got + cost(piece) == target and not piece[-1].isalnum():
            bare = piece.rstrip(_PUNCTUATION)
            if bare.strip() and bare[-1].isalnum() and got + cost(bare) == target:
                piece = bare
        last = got + cost(piece) == target
        if got + cost(piece) <= target and (not last or piece[-1].isalnum() and piece.strip() not in junctions()):
            ending.append(piece)
            stuck = 0
            continue
        stuck += 1
        if stuck > 300:
            ending.pop()
            stuck = 0
    return "".join(out + ending) + close


def _cases(n: int) -> list[tuple[int, str, str, int | None]]:
    rng = random.Random(5)
    return [(rng.choice((1, 2, 3, 5, 8, 40, rng.randrange(1, 600))), f"seed:{rng.randrange(10**6)}",
             rng.choice(("", "", "Today is Monday, 07 December 2026")), rng.choice((None, rng.randrange(10**5))))
            for _ in range(n)]


@pytest.mark.parametrize("close", [".", ""])
def test_fill_matches_the_word_stream(close):
    tok = load_tokenizer("llama3")
    cases = [c for c in _cases(120) if not c[2] or len(tok.encode(c[2])) <= c[0]]
    want = [_plain_fill(tok.encode, *c, close=close) for c in cases]
    text._COSTS.clear()  # nothing known of the tokenizer yet
    assert [Fitter(tok.encode, close).fill(*c) for c in cases] == want
    assert [Fitter(tok.encode, close).fill(*c) for c in cases] == want  # the texts kept for the process
    assert all(len(tok.encode(t)) == c[0] for t, c in zip(want, cases))
    # Where a sentence ends: a period (or a whole clock line, or one token), else a word.
    for t, (tokens, _key, lead, _start) in zip(want, cases):
        if close and t != lead and tokens > 1:
            assert t.endswith(".") and t[-2].isalnum(), t
        else:
            assert t[-1].isalnum(), t
