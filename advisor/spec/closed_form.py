"""Expected hit rates in closed form, for the specs where one exists.

Setting: ``n`` requests, each drawn independently from the spec (values of variants,
tenants, retrieved passages and the clock window are independent draws; per-request and,
with one turn per session, per-session text is unique), unlimited cache capacity, page
size 1, and the hit rule every command reports (longest common prefix with any earlier
request, capped at ``L - 1`` tokens as SGLang and vLLM never serve the last prompt token
from cache).

Derivation. Cut the rendered prompt into segments: the chat layout's fixed tokens, each
section's text (each retrieved passage is its own segment) and the blank line after a
section that another section of its message follows (no token of its own after a text
that closes with a period, whose token carries it: ``advisor.spec.generate.sentence_close``;
one after a clock line that fills its section). A segment's tokens are
cached exactly when the tuple of values of everything up to and including it has
occurred in an earlier request (distinct values of a section are assumed to share no
leading tokens; the generator starts each value at its own sentence, so only a stray
common first word or two can match). Over the run, the requests whose prefix tuple has occurred
before are all but the first occurrence of each distinct tuple, so

    E[requests caching segment t] = n - E[D_t],   E[D_t] = sum_v 1 - (1 - p_v)^n,

where ``D_t`` is the number of distinct prefix tuples among the ``n`` requests and
``p_v`` the probability of tuple ``v``. Arrival order enters here: request ``i`` hits
with probability ``1 - (1 - p_v)^(i-1)``, and summing over ``i`` gives the expression
above (a short run pays relatively more first-occurrence misses). Examples: a static
prefix of ``S`` tokens has one tuple, so it is cached ``n - 1`` times; the first of
``k`` passages drawn uniformly from ``N`` documents has ``N`` equally likely values,
``E[D] = N (1 - (1 - 1/N)^n)``; the first ``j`` passages together have ``N!/(N-j)!``.
A tuple's probability is the product of its independent parts' probabilities. When a
request's whole prompt has occurred before, the cap takes one token back:

    E[cached] = sum_t E[len_t] (n - E[D_t]) - (n - E[D_last]),
    hit rate  = E[cached] / (n E[L]).

A message whose sections are shuffled per request adds the order as one more part
(each ordered choice of the first ``j`` sections has probability ``(m-j)!/m!``).
Conversations of more than one turn, Zipf popularity beyond the first two passages
(unless the tuples are already all distinct) and pages larger than one token have no
closed form here and report none.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from advisor.ingest.tokenizers import Tokenizer, load_tokenizer
from advisor.spec.generate import EPOCH, SEPARATOR, _clock_line, layout_around, sentence_close
from advisor.spec.model import Length, Section, Spec, zipf_weights

MAX_TUPLE_CLASSES = 2_000_000
# Beyond this share of distinct tuples, deeper prefixes are taken as all distinct.
ALL_DISTINCT = 1 - 1e-4

# A histogram of tuple probabilities: (probabilities, how many tuples have each).
Hist = tuple[np.ndarray, np.ndarray]
UNIQUE = "unique"


class NoClosedForm(Exception):
    pass


@dataclass(frozen=True)
class ClosedForm:
    hit_rate: float | None
    requests: int
    expected_prompt_tokens: float | None = None
    expected_cached_tokens: float | None = None
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"hit_rate": None if self.hit_rate is None else round(self.hit_rate, 6),
                "requests": self.requests,
                "expected_prompt_tokens": None if self.expected_prompt_tokens is None
                else round(self.expected_prompt_tokens, 3),
                "note": self.note}


def distinct(hist: Hist, n: int, scale: float = 1.0) -> float:
    """E[number of distinct tuples among n draws] for the tuples of ``hist`` (times ``scale``)."""
    p, c = hist
    p = np.minimum(p * scale, 1.0 - 1e-16)
    return float(np.sum(c * -np.expm1(n * np.log1p(-p))))


def _merge(hist: Hist) -> Hist:
    p, c = hist
    if len(p) < 2:
        return hist
    # Exact values: rounding would merge (or zero) the tiny probabilities of long tuples.
    uniq, inv = np.unique(p, return_inverse=True)
    sums = np.zeros(len(uniq))
    np.add.at(sums, inv, c)
    return uniq, sums


def _product(a: Hist, b: Hist) -> Hist:
    if len(a[0]) * len(b[0]) > MAX_TUPLE_CLASSES:
        raise NoClosedForm("too many distinct tuple probabilities")
    return _merge((np.outer(a[0], b[0]).ravel(), np.outer(a[1], b[1]).ravel()))


ONE: Hist = (np.array([1.0]), np.array([1.0]))


class _Model:
    def __init__(self, spec: Spec, n: int) -> None:
        self.spec = spec
        self.n = n
        self.cache: dict[frozenset, Hist | None] = {}

    def var_hist(self, var: str, depth: int) -> Hist | None:
        """Histogram of one part; None means 'unique per request'."""
        kind, _, name = var.partition(":")
        spec = self.spec
        if kind == UNIQUE:
            return None
        if kind == "tenant":
            assert spec.tenants
            return _merge((np.array(spec.tenants.shares, dtype=float), np.ones(len(spec.tenants.shares))))
        section = next(s for s in spec.sections() if s.name == name)
        v = section.vary
        if kind == "variants":
            w = np.array(v.weights, dtype=float) if v.weights else np.full(v.count, 1.0 / v.count)
            return _merge((w, np.ones(len(w))))
        if kind == "clock":
            return self.clock_hist(v.resolution)
        # retrieved, first ``depth`` passages
        if v.zipf is None:
            perms = math.perm(v.count, depth)
            return (np.array([1.0 / perms]), np.array([float(perms)]))
        w = np.array(zipf_weights(v.count, v.zipf))
        if depth == 1:
            return _merge((w, np.ones(len(w))))
        if depth == 2 and v.count <= 2000:
            pair = np.outer(w, w) / (1.0 - w)[:, None]
            np.fill_diagonal(pair, 0.0)
            flat = pair.ravel()
            flat = flat[flat > 0]
            return (flat, np.ones(len(flat)))
        raise NoClosedForm(f"Zipf popularity beyond the first two passages of '{name}'")

    def clock_hist(self, resolution: float) -> Hist:
        # Requests arrive over about n / rate seconds from EPOCH; a clock value is one window.
        span = self.n / self.spec.rate
        start, end = EPOCH, EPOCH + span
        first = math.floor(start / resolution)
        last = math.floor(end / resolution)
        shares = []
        for w in range(first, last + 1):
            lo, hi = max(start, w * resolution), min(end, (w + 1) * resolution)
            if hi > lo:
                shares.append((hi - lo) / span)
        return _merge((np.array(shares), np.ones(len(shares))))

    def hist(self, state: dict[str, int]) -> Hist | None:
        key = frozenset(state.items())
        if key not in self.cache:
            h: Hist | None = ONE
            for var, depth in sorted(state.items()):
                part = self.var_hist(var, depth)
                if part is None or h is None:
                    h = None
                    break
                h = _product(h, part)
            self.cache[key] = h
        return self.cache[key]

    def distinct(self, state: dict[str, int], share: float, orders: int) -> float:
        """E[distinct tuples] among the requests of one ordered choice of shuffled sections
        (probability ``share``), over the ``orders`` equally likely orders of the shuffled
        messages already passed (each of probability 1/orders)."""
        h = self.hist(state)
        if h is None:
            return self.n * share
        return orders * distinct(h, self.n, share / orders)


def _var(section: Section) -> str | None:
    kind = section.vary.kind
    if kind == "static":
        return None
    if kind in ("request", "session"):
        return UNIQUE
    if kind == "tenant":
        return "tenant"
    return f"{kind}:{section.name}"


def _pieces(section: Section) -> list[tuple[str | None, int]]:
    """(part, depth) of each piece of a section: k pieces for a retrieval."""
    var = _var(section)
    if section.vary.kind == "retrieved":
        return [(var, j + 1) for j in range(section.vary.k)]
    return [(var, 1)]


def _blank_after(section: Section, sep: int, closes: bool, tok: Tokenizer) -> float:
    """Expected tokens of the blank line after a piece of ``section`` that another piece of
    its message follows: ``sep`` after a text that ends on a word (every text, when the
    tokenizer closes none with a period), none after a closing period. A clock section ends
    on a word when its tokens are its line alone (the line taken at the run's first window:
    its tokens change little with the time)."""
    if not closes:
        return float(sep)
    if section.vary.kind != "clock":
        return 0.0
    line = len(tok.encode(_clock_line(EPOCH, section.vary.resolution)[1]))
    return sep * _chance(section.tokens, line)


def _chance(length: Length, value: int) -> float:
    """The probability that a draw of ``length`` is ``value``."""
    if length.fixed is not None:
        return float(length.fixed == value)
    if length.low is not None and length.high is not None:
        return 1.0 / (length.high - length.low + 1) if length.low <= value <= length.high else 0.0
    assert length.mean is not None and length.sd is not None
    if length.sd == 0:
        return float(max(length.minimum, round(length.mean)) == value)
    scale = length.sd * math.sqrt(2)
    return 0.5 * (math.erf((value + 0.5 - length.mean) / scale) - math.erf((value - 0.5 - length.mean) / scale))


def _add(state: dict[str, int], var: str | None, depth: int) -> dict[str, int]:
    if var is None:
        return state
    new = dict(state)
    new[var] = max(new.get(var, 0), depth)
    return new


def closed_form(spec: Spec, tokenizer: Tokenizer | None = None, n: int | None = None) -> ClosedForm:
    n = n or spec.requests
    if spec.conversation is not None and spec.conversation.turns.fixed != 1:
        return ClosedForm(None, n, note="no closed form: conversations of several turns")
    if spec.engine.page_size != 1:
        return ClosedForm(None, n, note="no closed form: page size above one token")
    tok = tokenizer or load_tokenizer(spec.tokenizer)
    try:
        return _closed_form(spec, tok, n)
    except NoClosedForm as exc:
        return ClosedForm(None, n, note=f"no closed form: {exc}")


def _closed_form(spec: Spec, tok: Tokenizer, n: int) -> ClosedForm:
    model = _Model(spec, n)
    state: dict[str, int] = {}
    orders = 1  # orders of the shuffled messages passed (m! each): one more independent part
    cached = 0.0
    length = 0.0

    def seen(st: dict[str, int], share: float = 1.0) -> float:
        """E[requests whose prefix tuple occurred before] among those with one ordered
        choice of the current shuffled message's first sections (probability ``share``)."""
        return n * share - model.distinct(st, share, orders)

    def layout(text: str) -> None:
        nonlocal cached, length
        tokens = len(tok.encode(text))
        cached += tokens * seen(state)
        length += tokens

    fixed = layout_around(tuple(m.role for m in spec.messages))
    sep = len(tok.encode(SEPARATOR))  # the blank line between two sections of a message
    closes = bool(sentence_close(tok))
    blanks = {s.name: _blank_after(s, sep, closes, tok) for s in spec.sections()}
    for m, before in zip(spec.messages, fixed):
        layout(before)
        count = sum(len(_pieces(s)) for s in m.sections)
        # A blank line after every piece but the message's last: in a shuffled message, the
        # last of any of its sections, each as likely.
        length += sum(blanks[s.name] * len(_pieces(s)) for s in m.sections)
        if not m.shuffle or len(m.sections) == 1:
            length -= blanks[m.sections[-1].name]
        else:
            length -= sum(blanks[s.name] for s in m.sections) / len(m.sections)
        if not m.shuffle or len(m.sections) == 1:
            done = 0
            for section in m.sections:
                for var, depth in _pieces(section):
                    state = _add(state, var, depth)
                    done += 1
                    # The piece, and the blank line after it when another follows.
                    cached += (section.tokens.expected + (blanks[section.name] if done < count else 0)) * seen(state)
                    length += section.tokens.expected
        else:
            sections = list(m.sections)
            total = len(sections)
            for j in range(1, total + 1):
                p_order = math.perm(total, j) ** -1
                for order in itertools.permutations(range(total), j):
                    st = dict(state)
                    done = 0
                    for idx in order[:-1]:
                        for var, depth in _pieces(sections[idx]):
                            st = _add(st, var, depth)
                            done += 1
                    last = sections[order[-1]]
                    for var, depth in _pieces(last):
                        st = _add(st, var, depth)
                        done += 1
                        cached += (last.tokens.expected + (blanks[last.name] if done < count else 0)) * seen(st, p_order)
            for section in sections:
                length += section.tokens.expected * len(_pieces(section))
                for var, depth in _pieces(section):
                    state = _add(state, var, depth)
            orders *= math.factorial(total)
    layout(fixed[-1])
    cached -= seen(state)  # the L-1 cap on prompts seen whole
    return ClosedForm(cached / (n * length), n, length, cached / n,
                      note="unlimited capacity, independent draws per request, page size 1, L-1 cap")
