"""Real prose cut to an exact number of tokens under a real tokenizer.

The text comes from the bundled corpus (``data/corpus.txt``, prose written for advisor).
A section's text is a walk through it: from the first word of a sentence chosen by the
section's value, word after word; after a common word (a junction: "the", "and", "of",
... ``JUNCTION_MIN`` times or more in the corpus) the walk goes on after another
occurrence of that word, and after a sentence's end at the start of another sentence,
each drawn by the value's seed. Sentences are spliced from the corpus's at its common
words: English from word to word, and new for every value. The corpus has 183 sentences;
texts that took them whole repeated them in every section, so that a 1,450-token system
prompt and four retrieved passages of 300 shared a run of 16 tokens in every one of 200
random pairs (3 of 200 spliced). The diagnosis reads such runs as content two requests
share in another order, and lost the varying sections behind them (issue 35).

Exact lengths rely on one property of byte-level BPE tokenizers with a pre-tokenizer
(Llama 3's split pattern): a space followed by a word always starts a new piece, and so
does the punctuation after a word, so the tokens of ``"a b c."`` are those of ``"a"``,
``" b"``, ``" c"`` and ``"."`` one after another. Counting each word's tokens once is then
enough to fill a section to the token. A section ends where a sentence does: whole
sentences while they fit, then one cut to the tokens left and closed with a period. The
blank line between two sections of a message joins that period's token (Llama 3 has one
token for ".\\n\\n"), so a section has the same text and the same number of tokens
mid-message and last. Where a tokenizer keeps them apart differently (cl100k spells the
chat layout's end of turn as text, and a period merges with its "<"), a ``Fitter`` made
with ``close=""`` ends sections on a word instead, the blank line a token of its own. The
generator checks the property on the rendered prompts and refuses a tokenizer that breaks it.
"""

from __future__ import annotations

import functools
import importlib.resources
import itertools
import random
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from advisor.errors import AdvisorError

SENTENCE_END = (".", "?", "!")
_PUNCTUATION = ".,;:!?'\")-"
# What a section's text ends with (``Fitter.close``): a sentence's period.
CLOSE = "."
# A lower-case word this frequent in the corpus is a junction of the walk. Measured over 200
# pairs of a 1,450-token text and four passages of 300 tokens, each from its own seed: with
# 20 (26 junctions: articles, prepositions, conjunctions, "which", "was", "every"), 3 pairs
# shared a run of 16 tokens; with 40 (11 junctions), 59 pairs; with 80 (6), 132. Fewer
# junctions keep more of the corpus's sentences whole, and repeat them.
JUNCTION_MIN = 20


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
def junctions() -> frozenset[str]:
    """The corpus's junction words (``JUNCTION_MIN``)."""
    counts = Counter(corpus().words)
    return frozenset(w for w, n in counts.items() if n >= JUNCTION_MIN and w.isalpha() and w.islower())


@functools.lru_cache(maxsize=1)
def _moves() -> tuple[tuple[int, ...] | None, ...]:
    """Per corpus word, where the walk goes after it: ``None`` to the next word; after a
    junction word, one of the words that follow its occurrences; after a sentence's end (or
    the corpus's last word) ``()``, the first word of a drawn sentence."""
    words = corpus().words
    joins = junctions()
    after: dict[str, list[int]] = {}
    for i, word in enumerate(words[:-1]):
        if word in joins:
            after.setdefault(word, []).append(i + 1)
    shared = {word: tuple(places) for word, places in after.items()}
    return tuple(() if w.endswith(SENTENCE_END) or i + 1 == len(words) else shared.get(w)
                 for i, w in enumerate(words))


def _walk(key: str, start: int | None = None) -> Iterator[int]:
    """Corpus positions of the walk for one seeded value: from the first word of sentence
    ``start`` (default: drawn by ``key``), each next word as ``_moves`` allows, every draw
    from ``key``'s generator (deterministic)."""
    c = corpus()
    moves, starts = _moves(), c.starts
    rng = random.Random(key)
    i = starts[rng.randrange(len(starts)) if start is None else start % len(starts)]
    while True:
        yield i
        move = moves[i]
        if move is None:
            i += 1
        elif move:
            i = move[rng.randrange(len(move))]
        else:
            i = starts[rng.randrange(len(starts))]


def word_stream(key: str, start: int | None = None) -> Iterator[str]:
    """The words of ``_walk``."""
    words = corpus().words
    return (words[i] for i in _walk(key, start))


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
        self.filled: dict[tuple[int, str, str, int | None, str], str] = {}
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
    """Fills sections to exact token counts with one tokenizer; memoizes word costs.
    ``close`` is what a section's text ends with: ``CLOSE``, or "" to end on a word."""

    encode: Callable[[str], list[int]]
    close: str = CLOSE
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
        """Text of exactly ``tokens`` tokens that ends where a sentence does.

        ``lead`` is fixed text that opens the section (a clock line): alone when it is all
        the tokens (a whole value), else closed with a period when the tokens left hold a
        sentence after it. The rest is the corpus walk of ``key`` from sentence ``start``:
        whole sentences while they fit, then one cut to the tokens left and closed with
        ``close``; a word that would overshoot there is passed over, so only the last few
        words of a section can be out of the walk's order. With ``close`` "" the text ends
        on a letter or digit (the last word loses its punctuation if need be), and so does
        a text of one token.
        """
        shared = self._shared
        memo = (tokens, key, lead, start, self.close)
        text = shared.filled.get(memo)
        if text is None:
            text = self._fill(tokens, key, lead, start)
            if shared.filled_chars + len(text) <= _FILLED_CHARS:
                shared.filled[memo] = text
                shared.filled_chars += len(text)
        return text

    def _piece(self, i: int, spaced: bool) -> tuple[str, int]:
        """Corpus word ``i`` as a piece of text (after a space unless it opens the text) and
        its tokens."""
        table = self._shared.pieces[1 if spaced else 0]
        entry = table[i]
        if entry is None:
            word = corpus().words[i]
            text = " " + word if spaced else word
            entry = table[i] = (text, self.cost(text))
        return entry

    def _fill(self, tokens: int, key: str, lead: str, start: int | None) -> str:
        close = self.close
        # The closing sentence needs a word and the mark: one token cannot end on a period.
        shut = self.cost(close) if close and (lead or tokens > self.cost(close)) else 0
        if not shut:
            close = ""
        least = 1 + shut  # tokens of the shortest closing sentence
        pieces: list[str] = []
        total = 0
        if lead:
            problem = self.misfit(tokens, lead)
            if problem:
                raise AdvisorError(problem)
            total = self.cost(lead)
            if total == tokens:
                return lead
            closed = lead + CLOSE
            left = tokens - self.cost(closed)
            if left >= least or (left == 0 and close):
                pieces, total = [closed], tokens - left
            else:
                pieces = [lead]
        walk = _walk(key, start)
        moves = _moves()
        # Whole sentences while they leave no token or room for a closing sentence.
        pending: list[int] = []
        while total < tokens:
            sentence: list[tuple[str, int]] = []
            cost = 0
            for i in walk:
                pending.append(i)
                entry = self._piece(i, bool(pieces or sentence))
                sentence.append(entry)
                cost += entry[1]
                if moves[i] == ():
                    break
            left = tokens - total - cost
            if not (left >= least or (left == 0 and close)):
                break
            pieces.extend(p for p, _ in sentence)
            total += cost
            pending = []
        if total == tokens:
            return "".join(pieces)
        # The closing sentence: the words of the sentence that did not fit, then the walk's,
        # to the tokens left but the mark, on a letter or digit (the mark is a token of its
        # own) and not on a junction word ("... at the." reads as a sentence cut short).
        target = tokens - total - shut
        words = itertools.chain(pending, walk)
        joins = junctions()
        ending: list[str] = []
        got = 0
        stuck = 0
        while got < target:
            piece, cost = self._piece(next(words), bool(pieces or ending))
            if got + cost == target and not piece[-1].isalnum():
                bare = piece.rstrip(_PUNCTUATION)
                if bare.strip() and bare[-1].isalnum() and got + self.cost(bare) == target:
                    piece, cost = bare, self.cost(bare)
            last = got + cost == target
            if got + cost <= target and (not last or piece[-1].isalnum() and piece.strip() not in joins):
                ending.append(piece)
                got += cost
                stuck = 0
            else:
                stuck += 1
                if stuck > 300:
                    if not ending:
                        raise AdvisorError(f"cannot fill {tokens} tokens from the corpus")
                    got -= self.cost(ending.pop())
                    stuck = 0
        return "".join(pieces) + "".join(ending) + close
