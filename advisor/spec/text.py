"""Real prose cut to an exact number of tokens under a real tokenizer.

The text comes from the bundled corpus (``data/corpus.txt``, prose written for advisor).
A section's text is a walk through it: start at a word chosen by the section's seed, read
to the end of the sentence, then jump to another sentence chosen by the same seed. Two
values of a section therefore share no long prefix (each starts at its own word, and
sentences follow at random), while every sentence is ordinary English.

Exact lengths rely on one property of byte-level BPE tokenizers with a pre-tokenizer
(Llama 3's split pattern): a space followed by a word always starts a new piece, so the
tokens of ``"a b c"`` are the tokens of ``"a"``, ``" b"`` and ``" c"`` one after another.
Sections of one message are separated by a blank line; a section ends on a letter or
digit, so the blank line is always one token of its own and a section's text and tokens
are the same wherever it sits. Counting each word's tokens once is then enough to fill a
section to the token. The generator checks the property on the rendered prompts and
refuses a tokenizer that breaks it.
"""

from __future__ import annotations

import functools
import importlib.resources
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from advisor.errors import AdvisorError

SENTENCE_END = (".", "?", "!")
_PUNCTUATION = ".,;:!?'\")-"


@dataclass(frozen=True)
class Corpus:
    words: tuple[str, ...]
    # Index of the first word of every sentence.
    starts: tuple[int, ...]


@functools.lru_cache(maxsize=1)
def corpus() -> Corpus:
    text = importlib.resources.files("advisor.spec").joinpath("data/corpus.txt").read_text(encoding="utf-8")
    words: list[str] = []
    starts: list[int] = []
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        for word in line.split():
            if not words or words[-1].endswith(SENTENCE_END):
                starts.append(len(words))
            words.append(word)
    return Corpus(tuple(words), tuple(starts))


def word_stream(key: str, start: int | None = None) -> Iterator[str]:
    """Words of the corpus for one seeded value: from word ``start`` (default: chosen by
    ``key``), sentence by sentence, each next sentence chosen by ``key`` (deterministic)."""
    c = corpus()
    rng = random.Random(key)
    i = rng.randrange(len(c.words)) if start is None else start % len(c.words)
    while True:
        word = c.words[i]
        yield word
        if word.endswith(SENTENCE_END) or i + 1 == len(c.words):
            i = c.starts[rng.randrange(len(c.starts))]
        else:
            i += 1


@dataclass
class Fitter:
    """Fills sections to exact token counts with one tokenizer; memoizes word costs."""

    encode: Callable[[str], list[int]]
    _cost: dict[str, int] = field(default_factory=dict)

    def cost(self, piece: str) -> int:
        n = self._cost.get(piece)
        if n is None:
            n = self._cost[piece] = len(self.encode(piece))
        return n

    def misfit(self, tokens: int, lead: str) -> str | None:
        """Why ``tokens`` tokens cannot open with ``lead`` (None when they can); spec
        validation asks this of every clock line a run writes, before any text is drawn."""
        need = self.cost(lead) if lead else 0
        return f"{tokens} tokens cannot hold the text '{lead}' ({need} tokens)" if need > tokens else None

    def fill(self, tokens: int, key: str, lead: str = "", start: int | None = None) -> str:
        """Text of exactly ``tokens`` tokens that ends with a letter or digit.

        ``lead`` is fixed text that opens the section (a clock line); the rest comes from
        the corpus stream of ``key``. A word that would overshoot is passed over, so only
        the last few words of a section can be out of sentence order. The text ends on a
        letter or digit (the last word loses its punctuation if need be) so that the blank
        line after it, when another section follows, is always one token of its own: the
        section has the same text and the same tokens wherever it sits.
        """
        pieces: list[str] = []
        total = 0
        if lead:
            pieces.append(lead)
            total = self.cost(lead)
            problem = self.misfit(tokens, lead)
            if problem:
                raise AdvisorError(problem)
        stream = word_stream(key, start)
        stuck = 0
        while total < tokens or not pieces[-1][-1:].isalnum():
            if total == tokens:  # the right length, but ending on punctuation: give the word back
                total -= self.cost(pieces.pop())
            word = next(stream)
            piece = " " + word if pieces else word
            if total + self.cost(piece) == tokens and not piece[-1].isalnum():
                bare = piece.rstrip(_PUNCTUATION)
                if bare.strip() and bare[-1].isalnum() and total + self.cost(bare) == tokens:
                    piece = bare
            if total + self.cost(piece) <= tokens and (total + self.cost(piece) < tokens or piece[-1].isalnum()):
                pieces.append(piece)
                total += self.cost(piece)
                stuck = 0
                continue
            stuck += 1
            if stuck > 300:
                if not pieces or (lead and len(pieces) == 1):
                    raise AdvisorError(f"cannot fill {tokens} tokens from the corpus")
                total -= self.cost(pieces.pop())
                stuck = 0
        return "".join(pieces)
