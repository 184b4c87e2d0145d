"""Traffic from a spec: seeded requests of real text, in the ``messages`` record format.

Every random choice is drawn from a generator keyed by what it is about (the seed, the
section's name, the value or the request), never from one shared stream. So a section's
text for a value is the same wherever the section sits, and reordering a spec (the
ordering recipe) reorders the same text: the two orders' hit rates compare like for like.
"""

from __future__ import annotations

import bisect
import datetime as dt
import functools
import heapq
import json
import random
import re
from dataclasses import dataclass, field
from itertools import accumulate
from pathlib import Path
from typing import Any

from advisor.errors import AdvisorError
from advisor.ingest.tokenizers import Tokenizer, load_tokenizer
from advisor.spec.model import Message, Section, Spec, zipf_weights
from advisor.spec.text import CLOSE, SENTENCE_END, Fitter, corpus

# Arrival times are absolute (epoch seconds) from this instant, so clock sections and
# templates that read the request's time see a real date.
EPOCH = dt.datetime(2026, 12, 1, 9, 0, 0, tzinfo=dt.timezone.utc).timestamp()
CHECKED_RECORDS = 32
SEPARATOR = "\n\n"


@dataclass(frozen=True)
class Piece:
    """One section's text in one request."""

    section: str
    value: str
    message: int
    text: str
    tokens: int


@dataclass
class Generated:
    spec: Spec
    records: list[dict[str, Any]]
    pieces: list[list[Piece]] = field(default_factory=list)

    def jsonl(self) -> str:
        return "".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n" for r in self.records)

    def write(self, path: Path) -> None:
        path.write_text(self.jsonl(), encoding="utf-8")


def _rng(*key: object) -> random.Random:
    # A str seed goes through SHA-512: the same on every run and platform.
    return random.Random(":".join(str(k) for k in key))


@dataclass(frozen=True)
class _Turn:
    time: float
    session: int
    turn: int
    tenant: str | None


def _schedule(spec: Spec) -> list[_Turn]:
    """Arrival plan: sessions start as a Poisson process, each turn ``think_seconds``
    after the previous one; the first ``requests`` turns in time order are kept.

    The sessions' turns are merged in time order (a heap of each open session's next turn)
    and a session opens when its start comes next, so the work is bounded by the requests
    kept, whatever the turns and think times: a session's later turns are never drawn up
    when earlier requests already fill the plan. Random draws are taken in session order
    (turns, tenant, then the gap to the next session)."""
    rng = _rng(spec.seed, "arrivals")
    conv = spec.conversation
    session_rate = spec.rate / spec.mean_turns
    tenants = spec.tenants
    cum = list(accumulate(tenants.shares)) if tenants else []
    think = conv.think_seconds if conv else 0.0
    n = spec.requests
    plan: list[_Turn] = []
    # Next turn of each open session: (time, session, turn), the order the plan is in.
    upcoming: list[tuple[float, int, int]] = []
    opened: dict[int, tuple[float, int, str | None]] = {}  # session -> (start, turns, tenant)
    start, session = 0.0, 0
    while len(plan) < n:
        if not upcoming or (start, session, 0) < upcoming[0]:
            turns = conv.turns.draw(rng) if conv else 1
            tenant = None
            if tenants:
                tenant = tenants.names[min(bisect.bisect_right(cum, rng.random() * cum[-1]), len(cum) - 1)]
            opened[session] = (start, turns, tenant)
            heapq.heappush(upcoming, (start, session, 0))
            session += 1
            start += rng.expovariate(session_rate)
            continue
        time, s, j = heapq.heappop(upcoming)
        first, turns, tenant = opened[s]
        plan.append(_Turn(time, s, j, tenant))
        if j + 1 < turns:
            heapq.heappush(upcoming, (first + (j + 1) * think, s, j + 1))
        else:
            del opened[s]
    return plan


def arrival_times(spec: Spec) -> list[float]:
    """Seconds after ``EPOCH`` of the spec's requests, in order (what ``generate`` stamps)."""
    return [turn.time for turn in _schedule(spec)]


class _Texts:
    """Section texts by value, memoized: static and shared values are fitted once."""

    def __init__(self, spec: Spec, tokenizer: Tokenizer) -> None:
        self.spec = spec
        self.fitter = Fitter(tokenizer.encode, close=sentence_close(tokenizer))
        self.memo: dict[tuple[str, str], tuple[str, int]] = {}
        # Each value of a section starts at its own sentence of the corpus (a seeded
        # permutation of the sentences, taken in the order values first appear): two values
        # open alike only when the section has more values than the corpus has sentences,
        # and then only up to the first junction word, where their walks part.
        self.starts: dict[str, list[int]] = {}
        self.slots: dict[str, dict[str, int]] = {}

    def start(self, name: str, value: str) -> int:
        slots = self.slots.setdefault(name, {})
        slot = slots.setdefault(value, len(slots))
        perm = self.starts.get(name)
        if perm is None:
            perm = list(range(len(corpus().starts)))
            _rng(self.spec.seed, name, "starts").shuffle(perm)
            self.starts[name] = perm
        return perm[slot % len(perm)]

    def text(self, section: Section, value: str, lead: str = "") -> tuple[str, int]:
        key = (section.name, value)
        hit = self.memo.get(key)
        if hit is None:
            seed = self.spec.seed
            tokens = section.tokens.draw(_rng(seed, section.name, "length", value))
            stream = f"{seed}:{section.name}:{'fill' if lead else value}"
            start = None if lead else self.start(section.name, value)
            try:
                hit = (self.fitter.fill(tokens, stream, lead, start), tokens)
            except AdvisorError as exc:
                raise AdvisorError(f"{self.spec.name}: section '{section.name}': {exc}") from None
            if section.vary.kind not in ("request", "session") and len(self.memo) < 200_000:
                self.memo[key] = hit
        return hit


def clock_misfit(spec: Spec, tokenizer: Tokenizer, times: list[float]) -> tuple[Section, str] | None:
    """The first clock section one of whose lines (at the requests' ``times``) needs more
    tokens than the section draws for it, and why in the words ``generate`` would fail with."""
    fitter = Fitter(tokenizer.encode)
    for section in spec.sections():
        if section.vary.kind != "clock":
            continue
        seen: set[str] = set()
        for time in times:
            value, lead = _clock_line(EPOCH + time, section.vary.resolution)
            if value in seen:
                continue
            seen.add(value)
            problem = fitter.misfit(section.tokens.draw(_rng(spec.seed, section.name, "length", value)), lead)
            if problem:
                return section, problem
    return None


def _clock_line(seconds: float, resolution: float) -> tuple[str, str]:
    at = int(seconds // resolution * resolution)
    when = dt.datetime.fromtimestamp(at, tz=dt.timezone.utc)
    if resolution >= 86_400:
        return f"day{at}", when.strftime("Today is %A, %d %B %Y")
    return f"t{at}", when.strftime("Current time: %Y-%m-%d %H:%M:%S UTC")


def _draw_docs(section: Section, key: str, seed: int, weights: dict[str, list[float]]) -> list[int]:
    v = section.vary
    rng = _rng(seed, section.name, "draw", key)
    if v.zipf is None:
        return rng.sample(range(v.count), v.k)
    cum = weights.setdefault(section.name, list(accumulate(zipf_weights(v.count, v.zipf))))
    chosen: list[int] = []
    # Successive draws proportional to popularity, without replacement (a ranked top-k).
    while len(chosen) < v.k:
        d = min(bisect.bisect_right(cum, rng.random() * cum[-1]), v.count - 1)
        if d not in chosen:
            chosen.append(d)
    return chosen


class _Builder:
    def __init__(self, spec: Spec, tokenizer: Tokenizer) -> None:
        self.spec = spec
        self.texts = _Texts(spec, tokenizer)
        self.weights: dict[str, list[float]] = {}

    def values(self, section: Section, created: str, session: int, tenant: str | None,
               now: float) -> list[tuple[str, str]]:
        """(value key, clock lead) of each piece the section contributes."""
        v = section.vary
        seed = self.spec.seed
        if v.kind == "static":
            return [("static", "")]
        if v.kind == "tenant":
            return [(str(tenant), "")]
        if v.kind == "session":
            return [(f"s{session}", "")]
        if v.kind == "request":
            return [(f"r{created}", "")]
        if v.kind == "variants":
            rng = _rng(seed, section.name, "draw", created)
            idx = rng.choices(range(v.count), weights=v.weights)[0] if v.weights else rng.randrange(v.count)
            return [(f"v{idx}", "")]
        if v.kind == "clock":
            return [_clock_line(now, v.resolution)]
        return [(f"d{d}", "") for d in _draw_docs(section, created, seed, self.weights)]

    def message(self, msg: Message, index: int, created: str, session: int, tenant: str | None,
                now: float, pieces: list[Piece]) -> dict[str, Any]:
        order = list(msg.sections)
        if msg.shuffle:
            _rng(self.spec.seed, "shuffle", index, created).shuffle(order)
        wanted = [(section, value, lead) for section in order
                  for value, lead in self.values(section, created, session, tenant, now)]
        parts: list[str] = []
        for section, value, lead in wanted:
            text, tokens = self.texts.text(section, value, lead)
            parts.append(text)
            pieces.append(Piece(section.name, value, index, text, tokens))
        # A blank line separates the sections of a message, as prompts are written.
        return {"role": msg.role, "content": SEPARATOR.join(parts)}

    def assistant(self, created: str, tokens: int, index: int, pieces: list[Piece]) -> dict[str, Any]:
        text = self.texts.fitter.fill(tokens, f"{self.spec.seed}:assistant:{created}",
                                      start=self.texts.start("<assistant>", created))
        pieces.append(Piece("assistant", f"a{created}", index, text, tokens))
        return {"role": "assistant", "content": text}


def generate(spec: Spec, tokenizer: Tokenizer | None = None) -> Generated:
    """The spec's requests in arrival order, each a ``messages`` record."""
    tok = tokenizer or load_tokenizer(spec.tokenizer)
    builder = _Builder(spec, tok)
    out = Generated(spec, [])
    outputs: dict[tuple[int, int], int] = {}
    conv = spec.conversation
    for i, turn in enumerate(_schedule(spec)):
        now = EPOCH + turn.time
        pieces: list[Piece] = []
        messages: list[dict[str, Any]] = []
        base = f"{turn.session}.0"
        for m in spec.messages:
            messages.append(builder.message(m, len(messages), base, turn.session, turn.tenant, now, pieces))
        for j in range(turn.turn):
            prev = outputs.setdefault((turn.session, j), _output(spec, turn.session, j))
            messages.append(builder.assistant(f"{turn.session}.{j}", prev, len(messages), pieces))
            for m in conv.append if conv else ():
                messages.append(builder.message(m, len(messages), f"{turn.session}.{j + 1}", turn.session,
                                                turn.tenant, now, pieces))
        record: dict[str, Any] = {"id": f"{spec.name}-{i + 1:06d}"}
        if spec.timestamps:
            record["timestamp"] = round(now, 3)
        if turn.tenant is not None:
            record["tenant"] = turn.tenant
        record["output_length"] = outputs.setdefault((turn.session, turn.turn),
                                                      _output(spec, turn.session, turn.turn))
        record["messages"] = messages
        out.records.append(record)
        out.pieces.append(pieces)
        if i < CHECKED_RECORDS:
            check_lengths(tok, record, pieces)
    return out


def _output(spec: Spec, session: int, turn: int) -> int:
    return spec.output_tokens.draw(_rng(spec.seed, "output", session, turn))


_MARK = re.compile("\u0001([0-9]+)\u0001")


@functools.lru_cache(maxsize=256)
def layout_around(roles: tuple[str, ...]) -> tuple[str, ...]:
    """The fixed text of the built-in chat layout (Llama 3.1 Instruct's, as the pipeline
    renders it) around the contents of messages with these roles: ``len(roles) + 1``
    strings, the first before the first content, the last after the last one."""
    from advisor.ingest.chat import Llama3Layout

    marked = [{"role": role, "content": f"\u0001{i}\u0001"} for i, role in enumerate(roles)]
    parts = _MARK.split(Llama3Layout().render(marked, None, None))
    if [int(x) for x in parts[1::2]] != list(range(len(roles))):
        raise AdvisorError("the chat layout does not render every message's content in order")
    return tuple(parts[0::2])


def sentence_close(tok: Tokenizer) -> str:
    """What a section's text ends with under ``tok`` (``Fitter.close``): a period where it is
    a token of its own before the chat layout's end of a message, and one token with the
    blank line after it before the next section (Llama 3's "." and ".\\n\\n"), so a section
    takes the same tokens mid-message and last; else "": a section ends on a word, and the
    blank line is a token of its own (cl100k spells the layout's end of turn as text, and a
    period merges with its "<")."""
    word, closed, after = tok.encode("word"), tok.encode("word" + CLOSE), tok.encode("Word")
    end_of_turn = layout_around(("user",))[-1]
    if closed[:len(word)] != word or tok.encode("word" + CLOSE + end_of_turn) != closed + tok.encode(end_of_turn):
        return ""
    joined = tok.encode("word" + CLOSE + SEPARATOR + "Word")
    return CLOSE if len(joined) == len(closed) + len(after) and joined[len(closed):] == after else ""


def blank_tokens(tok: Tokenizer, before: str) -> int:
    """Tokens the blank line between two sections of a message adds after the text
    ``before``: none after a closing period (its token carries the blank line), else its own."""
    return 0 if before.endswith(SENTENCE_END) else len(tok.encode(SEPARATOR))


def render(record: dict[str, Any]) -> str:
    from advisor.ingest.chat import Llama3Layout

    return Llama3Layout().render(record["messages"], None, record.get("timestamp"))


def check_lengths(tok: Tokenizer, record: dict[str, Any], pieces: list[Piece]) -> None:
    """Refuse to go on when the rendered prompt's tokens are not the layout's plus the
    sections' (a tokenizer that merges across a boundary would make lengths inexact)."""
    blanks = sum(blank_tokens(tok, a.text) for a, b in zip(pieces, pieces[1:]) if a.message == b.message)
    expected = sum(p.tokens for p in pieces) + blanks
    layout = sum(len(tok.encode(text)) for text in layout_around(tuple(m["role"] for m in record["messages"])))
    got = len(tok.encode(render(record)))
    if got != expected + layout:
        raise AdvisorError(f"tokenizer '{tok.name}' merges tokens across section boundaries in the Llama 3 chat "
                           f"layout ({got} tokens, sections and layout add up to {expected + layout}); exact "
                           "section lengths need a tokenizer with Llama 3's special tokens (llama3)")
