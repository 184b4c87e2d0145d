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


@functools.lru_cache(maxsize=1)
def _jumps() -> tuple[bool, ...]:
    """Per corpus word: whether the stream jumps to a drawn sentence after it (a sentence's
    end, or the corpus's last word)."""
    words = corpus().words
    return tuple(w.endswith(SENTENCE_END) or i + 1 == len(words) for i, w in enumerate(words))


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


class _Costs:
    """What one tokenizer makes of text: piece costs and each corpus word's pieces, kept
    for every ``Fitter`` of that tokenizer in the process (``_costs_of``), with the texts
    already filled (a fill is a pure function of its arguments and the tokenizer: `plan`
    fills the same sections when it validates a spec, generates its traffic and generates
    the recipe's reordered traffic)."""

    def __init__(self) -> None:
        self.cost: dict[str, int] = {}
        n = len(corpus().words)
        # Per corpus word, as the first piece of a section and after a space: (piece, tokens).
        self.pieces: tuple[list[tuple[str, int] | None], list[tuple[str, int] | None]] = ([None] * n, [None] * n)
        self.filled: dict[tuple[int, str, str, int | None], str] = {}
        self.filled_chars = 0


_FILLED_CHARS = 16_000_000  # a bound on the texts kept per tokenizer (characters)
_COSTS: dict[tuple[int, int], tuple[object, object, _Costs]] = {}


def _costs_of(encode: Callable[[str], list[int]]) -> _Costs:
    """The shared ``_Costs`` of ``encode``: a tokenizer's bound ``encode`` is a new object on
    every attribute access, so it is known by its tokenizer and function (held here, so the
    identities stay theirs)."""
    owner = getattr(encode, "__self__", None)
    func = getattr(encode, "__func__", encode)
    key = (id(owner), id(func))
    got = _COSTS.get(key)
    if got is not None and got[0] is owner and got[1] is func:
        return got[2]
    if len(_COSTS) >= 8:
        _COSTS.clear()
    costs = _Costs()
    _COSTS[key] = (owner, func, costs)
    return costs


@dataclass
class Fitter:
    """Fills sections to exact token counts with one tokenizer; memoizes word costs."""

    encode: Callable[[str], list[int]]
    _shared: _Costs = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._shared = _costs_of(self.encode)

    def cost(self, piece: str) -> int:
        costs = self._shared.cost
        n = costs.get(piece)
        if n is None:
            n = costs[piece] = len(self.encode(piece))
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
        shared = self._shared
        memo = (tokens, key, lead, start)
        text = shared.filled.get(memo)
        if text is None:
            text = self._fill(tokens, key, lead, start)
            if shared.filled_chars + len(text) <= _FILLED_CHARS:
                shared.filled[memo] = text
                shared.filled_chars += len(text)
        return text

    def _fill(self, tokens: int, key: str, lead: str, start: int | None) -> str:
        pieces: list[str] = []
        total = 0
        if lead:
            pieces.append(lead)
            total = self.cost(lead)
            problem = self.misfit(tokens, lead)
            if problem:
                raise AdvisorError(problem)
        # The corpus stream of ``key`` (``word_stream``), inlined: word ``i``, then the next
        # word, or after a sentence's end a sentence drawn by the stream's generator.
        c = corpus()
        words, starts, jumps = c.words, c.starts, _jumps()
        draw = len(starts)
        rng = random.Random(key)
        i = rng.randrange(len(words)) if start is None else start % len(words)
        first_pieces, spaced_pieces = self._shared.pieces
        stuck = 0
        while total < tokens or not pieces[-1][-1:].isalnum():
            if total == tokens:  # the right length, but ending on punctuation: give the word back
                total -= self.cost(pieces.pop())
            word = words[i]
            table = spaced_pieces if pieces else first_pieces
            entry = table[i]
            if entry is None:
                text = " " + word if pieces else word
                entry = table[i] = (text, self.cost(text))
            piece, cost = entry
            if total + cost == tokens and not piece[-1].isalnum():
                bare = piece.rstrip(_PUNCTUATION)
                if bare.strip() and bare[-1].isalnum() and total + self.cost(bare) == tokens:
                    piece, cost = bare, self.cost(bare)
            if total + cost <= tokens and (total + cost < tokens or piece[-1].isalnum()):
                pieces.append(piece)
                total += cost
                stuck = 0
            else:
                stuck += 1
                if stuck > 300:
                    if not pieces or (lead and len(pieces) == 1):
                        raise AdvisorError(f"cannot fill {tokens} tokens from the corpus")
                    total -= self.cost(pieces.pop())
                    stuck = 0
            # The next word of the stream.
            if jumps[i]:
                i = starts[rng.randrange(draw)]
            else:
                i += 1
        return "".join(pieces)
