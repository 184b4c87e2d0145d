"""The text generator's fill answers as the plain word-by-word fill over ``word_stream``.

``Fitter.fill`` (issue 37) walks the corpus stream inline, keeps each corpus word's cost
in a table and the filled texts per tokenizer for the process; it must give exactly the
text the plain algorithm gives.
"""

from __future__ import annotations

import random

from advisor.ingest.tokenizers import load_tokenizer
from advisor.spec import text
from advisor.spec.text import _PUNCTUATION, Fitter, word_stream

def _plain_fill(encode, tokens: int, key: str, lead: str = "", start: int | None = None) -> str:
    """The word-by-word fill over ``word_stream`` with a private cost memo (the reference)."""
    memo: dict[str, int] = {}

    def cost(piece: str) -> int:
        if piece not in memo:
            memo[piece] = len(encode(piece))
        return memo[piece]

    pieces: list[str] = [lead] if lead else []
    total = cost(lead) if lead else 0
    stream = word_stream(key, start)
    stuck = 0
    while total < tokens or not pieces[-1][-1:].isalnum():
        if total == tokens:
            total -= cost(pieces.pop())
        word = next(stream)
        piece = " " + word if pieces else word
        if total + cost(piece) == tokens and not piece[-1].isalnum():
            bare = piece.rstrip(_PUNCTUATION)
            if bare.strip() and bare[-1].isalnum() and total + cost(bare) == tokens:
                piece = bare
        if total + cost(piece) <= tokens and (total + cost(piece) < tokens or piece[-1].isalnum()):
            pieces.append(piece)
            total += cost(piece)
            stuck = 0
            continue
        stuck += 1
        if stuck > 300:
            total -= cost(pieces.pop())
            stuck = 0
    return "".join(pieces)


def _cases(n: int) -> list[tuple[int, str, str, int | None]]:
    rng = random.Random(5)
    return [(rng.choice((1, 2, 3, 5, 8, 40, rng.randrange(1, 600))), f"seed:{rng.randrange(10**6)}",
             rng.choice(("", "", "Today is Monday, 07 December 2026")), rng.choice((None, rng.randrange(10**5))))
            for _ in range(n)]


def test_fill_matches_the_word_stream():
    tok = load_tokenizer("llama3")
    cases = [c for c in _cases(120) if not c[2] or len(tok.encode(c[2])) <= c[0]]
    want = [_plain_fill(tok.encode, *c) for c in cases]
    text._COSTS.clear()  # nothing known of the tokenizer yet
    assert [Fitter(tok.encode).fill(*c) for c in cases] == want
    assert [Fitter(tok.encode).fill(*c) for c in cases] == want  # the texts kept for the process
    assert all(len(tok.encode(t)) == c[0] for t, c in zip(want, cases))
