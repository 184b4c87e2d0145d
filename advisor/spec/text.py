"""Real prose cut to an exact number of tokens under a real tokenizer.

The text comes from the bundled corpus (``data/corpus.txt``, prose written for advisor).
A section's text is a walk through it: start at a word chosen by the section's seed, read
to the end of the sentence, then jump to another sentence chosen by the same seed. Two
values of a section therefore share no long prefix (each starts at its own word, and
sentences follow at random), while every sentence is ordinary English.

Exact lengths rely on one property of byte-level BPE tokenizers with a pre-tokenizer
(Llama 3's and cl100k's split patterns): a space followed by a word always starts a new
piece, so the tokens of ``"a b c"`` are the tokens of ``"a"``, ``" b"`` and ``" c"`` one
after another. Counting each word's tokens once is then enough to fill a section to the
token; ``check_additive`` verifies the property on the generated text and refuses a
tokenizer that breaks it.
"""

from __future__ import annotations

import functools
import importlib.resources
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from advisor.errors import AdvisorError

SENTENCE_END = (".", "?", "!")


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

    def fill(self, tokens: int, key: str, leading_space: bool, lead: str = "", start: int | None = None) -> str:
        """Text of exactly ``tokens`` tokens (in the context given by ``leading_space``:
        whether the text follows other text in the same message, after one space).

        ``lead`` is fixed text that opens the section (a clock line); the rest comes from
        the corpus stream of ``key``. A word that would overshoot is passed over, so only
        the last few words of a section can be out of sentence order.
        """
        pieces: list[str] = []
        total = 0
        if lead:
            first = (" " if leading_space else "") + lead
            total = self.cost(first)
            if total > tokens:
                raise AdvisorError(f"{tokens} tokens cannot hold the text '{lead}' ({total} tokens)")
            pieces.append(first)
        stream = word_stream(key, start)
        skipped = 0
        while total < tokens:
            word = next(stream)
            piece = word if not pieces and not leading_space else " " + word
            c = self.cost(piece)
            if total + c <= tokens:
                pieces.append(piece)
                total += c
            else:
                skipped += 1
                if skipped > 10_000:  # cannot happen with a real vocabulary: one-token words abound
                    raise AdvisorError(f"cannot fill {tokens} tokens from the corpus")
        return "".join(pieces)


def check_additive(encode: Callable[[str], list[int]], parts: list[str], expected: list[int], where: str) -> None:
    """Refuse a tokenizer whose tokens of the joined parts are not the parts' tokens in turn."""
    joined = len(encode("".join(parts)))
    if joined != sum(expected):
        raise AdvisorError(f"{where}: the tokenizer merges tokens across section boundaries "
                           f"({joined} tokens, sections add up to {sum(expected)}); exact section lengths "
                           "need a tokenizer that splits at spaces (llama3, cl100k)")
