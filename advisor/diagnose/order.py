"""TR201 from traffic alone: the same content blocks recurring in different orders.

Each request's text is cut into blocks (``advisor.diagnose.blocks``) and hashed. Blocks present in
many requests are the shared content; where two of them come in one order in some requests
and in the other order in others, the cache keeps one copy of every order instead of one
copy of the content. Blocks that always follow each other are merged into one unit (a
section of several paragraphs moves as one), inverted units are grouped, and each group is
reported with its observed orders and their shares.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Sequence

from advisor.diagnose import blocks as blk
from advisor.ingest.ids import ITEM, pack, pack_one, unpack

# A permuted group needs two units that nearly every request of the group carries.
CORE_SHARE = 0.8
MEMO_BYTES = 256 << 20


@dataclass
class OrderFinding:
    kind: str                      # "section-order" or "tool-order"
    units: list[list[int]]         # block hashes of each unit, in canonical order
    labels: list[str]              # label of each unit, canonical order
    orders: list[tuple[list[str], int]]   # observed orders (labels) and request counts
    requests: int                  # requests carrying at least two units of the group
    requests_off_canonical: int
    tokens_lost: int               # estimate; prescribe measures it
    token_offset: int              # where the group starts in the first request with it
    tool_names: list[str] = field(default_factory=list)
    first_request: int = -1        # the first request (detector order) in a new order; -1: unknown


@dataclass(eq=False)
class Piece:
    """One distinct message text: its length and blocks, computed once however often it
    recurs. Requests keep references to their pieces, not copies of the block lists."""

    length: int
    blocks: list[tuple[int, int, int]]   # (start, end, hash), characters within the piece
    hashes: frozenset[int]
    # A message is its paragraph pieces at their offsets; its blocks are listed on demand.
    parts: tuple[tuple["Piece", int], ...] = ()

    def all_blocks(self):
        yield from self.blocks
        for piece, offset in self.parts:
            for a, b, h in piece.blocks:
                yield offset + a, offset + b, h


EMPTY = Piece(0, [], frozenset())


class OrderDetector:
    def __init__(self, decode: Callable[[Sequence[int]], str], min_share: float = 0.1,
                 boundary_id: int | None = None, paragraph_id: int | None = None) -> None:
        self.decode = decode
        # Requests are cut into pieces at end-of-message tokens and at blank-line tokens
        # before decoding: blocks never straddle those, and a piece seen before (a paragraph
        # of the system prompt) is not decoded again, even when a value elsewhere in the
        # same message changes every request.
        self._message_sep = _sep(boundary_id, decode)
        self._paragraph_sep = _sep(paragraph_id, decode)
        self._memo_bytes = 0
        self._bodies: dict[str, list[tuple[int, int]]] = {}
        self._heads: dict[int, str] = {}
        self.min_share = min_share
        # Per request: its pieces with their character offsets, and tokens per character.
        self.requests: list[tuple[tuple[Piece, int], ...]] = []
        self.ratio: list[float] = []
        self.count: Counter[int] = Counter()
        self.labels: dict[int, str] = {}
        self.tools: dict[int, str] = {}
        self._memo: dict[bytes, Piece] = {}       # paragraph-level pieces
        self._messages: dict[bytes, Piece] = {}   # message-level pieces, built from those

    def add(self, index: int, ids: Sequence[int]) -> None:
        data = pack(ids)
        placed = []
        seen: set[int] = set()
        pos = 0
        sep, gap = self._message_sep
        for raw in _split(data, sep):
            piece = self._messages.get(raw)
            if piece is None:
                piece = self._message(raw)
            placed.append((piece, pos))
            seen |= piece.hashes
            pos += piece.length + gap
        self.count.update(seen)
        self.requests.append(tuple(placed))
        self.ratio.append(len(data) / ITEM / max(1, pos - gap))

    def _message(self, raw: bytes) -> Piece:
        """One message's blocks, from its paragraphs: a paragraph seen before is not decoded
        again, even when a value elsewhere in the same message changes every request."""
        sep, gap = self._paragraph_sep
        parts = []
        pos = 0
        for chunk in _split(raw, sep):
            piece = self._blocks_of(chunk)
            if piece.blocks:
                parts.append((piece, pos))
            pos += piece.length + gap
        message = Piece(max(0, pos - gap), [], frozenset().union(*(p.hashes for p, _ in parts)), tuple(parts))
        if self._memo_bytes < MEMO_BYTES:
            self._messages[raw] = message
            self._memo_bytes += len(raw)
        return message

    def _blocks_of(self, piece: bytes) -> Piece:
        # Messages recur verbatim (the system prompt, earlier turns): decode, cut and hash
        # each distinct one once. That keeps diagnosis a small fraction of tokenizing.
        entry = self._memo.get(piece)
        if entry is not None:
            return entry
        if not piece:
            return EMPTY
        text = self.decode(unpack(piece))
        found = []
        bodies = self._bodies
        for start, end in blk.segments(text):
            body = text[start:end]
            hashed = bodies.get(body)
            if hashed is None:
                hashed = blk.hashes_of(body)
                if len(bodies) < 500_000:
                    bodies[body] = hashed
                for h, item in hashed:
                    if h in self.labels or h in self._heads:
                        continue
                    if body[0] in "[{`":
                        # JSON (tool definitions): the label needs the parsed text, now.
                        name = blk.label(body, blk.Block(0, len(body), h, item))
                        self.labels[h] = name
                        if name.startswith("tool "):
                            self.tools[h] = name[5:]
                    else:
                        # Labelled only if it turns out to be shared: most blocks never are.
                        self._heads[h] = body[:200]
            for h, _ in hashed:
                found.append((start, end, h))
        entry = Piece(len(text), found, frozenset(h for _, _, h in found))
        if self._memo_bytes < MEMO_BYTES:
            self._memo[piece] = entry
            self._memo_bytes += len(piece)
        return entry

    def findings(self) -> list[OrderFinding]:
        n = len(self.requests)
        need = max(3, int(self.min_share * n))
        common = {h for h, c in self.count.items() if c >= need}
        if len(common) < 2:
            return []
        memo: dict[int, tuple[int, ...]] = {}
        seqs = [self._common_seq(placed, common, memo) for placed in self.requests]
        distinct = Counter(s for s in seqs if len(s) >= 2)
        units = _units(distinct)
        unit_of = {h: i for i, u in enumerate(units) for h in u}
        useqs: Counter[tuple[int, ...]] = Counter()
        for s, c in distinct.items():
            useqs[_dedupe(unit_of[h] for h in s)] += c
        mean_pos = _mean_positions(useqs, len(units))
        ucount: Counter[int] = Counter()
        for s, c in useqs.items():
            for u in s:
                ucount[u] += c
        rank = {u: r for r, u in enumerate(sorted(range(len(units)), key=lambda u: (mean_pos[u], u)))}
        groups = _inverted_groups(useqs, rank, len(units))
        out = []
        for group in groups:
            finding = self._finding(group, units, seqs, unit_of, ucount, mean_pos)
            if finding is not None:
                out.append(finding)
        out.sort(key=lambda f: (-f.tokens_lost, f.token_offset))
        return out

    def _finding(self, group: set[int], units: list[tuple[int, ...]], seqs: list[tuple[int, ...]],
                 unit_of: dict[int, int], ucount: Counter, mean_pos: list[float]) -> OrderFinding | None:
        # Canonical order: the most widely shared first, then where they usually sit.
        # Ties go to the unit seen first (units are numbered in order of first sight).
        canon = sorted(group, key=lambda u: (-ucount[u], role_rank(self.label(units[u][0])), mean_pos[u], u))
        names = [self.tools.get(units[u][0]) for u in canon]
        if all(names):
            # Tool definitions: alphabetical, the order anyone can reproduce in code.
            canon = sorted(group, key=lambda u: (self.tools[units[u][0]], u))
        crank = {u: i for i, u in enumerate(canon)}
        orders: Counter[tuple[int, ...]] = Counter()
        with_any = 0
        presence: Counter[int] = Counter()
        seen_orders: set[tuple[int, ...]] = set()
        lost = 0
        offset = -1
        off_canon = 0
        first_new = -1
        for r, s in enumerate(seqs):
            order = _dedupe(unit_of[h] for h in s if unit_of.get(h) in group)
            if order:
                with_any += 1
                presence.update(order)
            if len(order) < 2:
                continue
            orders[order] += 1
            if offset < 0:
                offset = int(self._positions(r).get(units[order[0]][0], (0, 0))[0] * self.ratio[r])
            ideal = tuple(sorted(order, key=crank.__getitem__))
            if order != ideal:
                off_canon += 1
            if order in seen_orders:
                continue
            if seen_orders:
                if first_new < 0:
                    first_new = r
                # A new order: from the first unit out of canonical place to the end of the
                # group, nothing can come from the cache (estimate; prescribe measures).
                k = next((i for i, (a, b) in enumerate(zip(order, ideal)) if a != b), len(order))
                if k < len(order):
                    where = self._positions(r)
                    first = where.get(units[order[k]][0], (0, 0))[0]
                    last = max(where.get(units[u][-1], (0, 0))[1] for u in order)
                    lost += int(max(0, last - first) * self.ratio[r])
            seen_orders.add(order)
        total = sum(orders.values())
        core = [u for u in group if presence[u] >= CORE_SHARE * with_any]
        if len(orders) < 2 or total * 2 < with_any or len(core) < 2:
            # One order only, or no two units that (nearly) all of these requests carry:
            # retrieved documents that differ per request, not sections in varying order.
            return None
        label_of = {u: self.label(units[u][0]) for u in canon}
        labels = [label_of[u] for u in canon]
        shown = sorted(orders.items(), key=lambda kv: (-kv[1], [crank[u] for u in kv[0]]))
        tools = [self.tools.get(units[u][0], "") for u in canon]
        kind = "tool-order" if all(tools) else "section-order"
        return OrderFinding(
            kind=kind, units=[list(units[u]) for u in canon], labels=labels,
            orders=[([label_of[u] for u in o], c) for o, c in shown], requests=total,
            requests_off_canonical=off_canon, tokens_lost=lost, token_offset=max(0, offset),
            tool_names=[t for t in tools if t], first_request=first_new,
        )

    def label(self, h: int) -> str:
        if h not in self.labels:
            head = self._heads.get(h, "")
            self.labels[h] = blk.label(head, blk.Block(0, len(head), h)) if head else "a shared block"
        return self.labels[h]

    @staticmethod
    def _common_seq(placed: tuple[tuple[Piece, int], ...], common: set[int],
                    memo: dict[int, tuple[int, ...]]) -> tuple[int, ...]:
        """The request's shared blocks in order; each distinct piece filtered once."""
        parts: list[int] = []
        for piece, _ in placed:
            got = memo.get(id(piece))
            if got is None:
                got = memo[id(piece)] = _dedupe(h for _, _, h in piece.all_blocks() if h in common)
            parts.extend(got)
        return _dedupe(parts)

    def _blocks_at(self, request: int):
        """(start, end, hash) of every block of a request, in characters of the request."""
        for piece, offset in self.requests[request]:
            for start, end, h in piece.all_blocks():
                yield offset + start, offset + end, h

    def _positions(self, request: int) -> dict[int, tuple[int, int]]:
        """(start, end) in characters of the first occurrence of each block of a request."""
        out: dict[int, tuple[int, int]] = {}
        for a, b, h in self._blocks_at(request):
            out.setdefault(h, (a, b))
        return out


# Where a section belongs when it is as widely shared as others: the canonical layout puts
# instructions first, then tools and schemas, retrieved context, history, the question last.
_ROLES = (
    (0, re.compile(r"\b(system|instruction|persona|role|you are|rules?|polic(y|ies)|guidelines?)\b", re.I)),
    (1, re.compile(r"\b(tools?|functions?|schemas?|api)\b", re.I)),
    (3, re.compile(r"\b(history|conversation|previous|earlier)\b", re.I)),
    (4, re.compile(r"\b(question|query|task|request)\b", re.I)),
    (2, re.compile(r"\b(documents?|context|retrieved|sources?|knowledge|references?|examples?)\b", re.I)),
)


def role_rank(label: str) -> int:
    for rank, pattern in _ROLES:
        if pattern.search(label):
            return rank
    return 2


def _sep(token: int | None, decode: Callable[[Sequence[int]], str]) -> tuple[bytes | None, int]:
    """A separator token as packed bytes, with the characters it decodes to."""
    if token is None:
        return None, 0
    return pack_one(token), len(decode([token]))


def _split(data: bytes, sep: bytes | None) -> list[bytes]:
    """``data`` cut at the separator id. ``bytes.split`` is C speed; a match that straddles
    two ids (rare) shows as a part of odd length, and then the aligned search decides."""
    if sep is None:
        return [data]
    parts = data.split(sep)
    if all(len(p) % ITEM == 0 for p in parts):
        return parts
    out = []
    start = 0
    at = data.find(sep)
    while at >= 0:
        if at % ITEM == 0:
            out.append(data[start:at])
            start = at + ITEM
        at = data.find(sep, at + 1)
    out.append(data[start:])
    return out


def _dedupe(items) -> tuple[int, ...]:
    seen: set[int] = set()
    out = []
    for x in items:
        if x not in seen:
            seen.add(x)
            out.append(x)
    return tuple(out)


def _units(distinct: Counter) -> list[tuple[int, ...]]:
    """Chains of blocks that always come together and in the same order: one unit each."""
    succ: dict[int, set] = {}
    pred: dict[int, set] = {}
    order: dict[int, int] = {}
    for s in distinct:
        for i, h in enumerate(s):
            order.setdefault(h, len(order))
            succ.setdefault(h, set()).add(s[i + 1] if i + 1 < len(s) else None)
            pred.setdefault(h, set()).add(s[i - 1] if i > 0 else None)
    merged_into: set[int] = set()
    units = []
    for h in sorted(order, key=order.__getitem__):
        if h in merged_into:
            continue
        # Only start a chain at a block that is not the sole successor of its sole predecessor.
        p = pred[h]
        if len(p) == 1 and None not in p:
            (q,) = p
            if succ[q] == {h}:
                continue
        chain = [h]
        while True:
            nxt = succ[chain[-1]]
            if len(nxt) != 1 or None in nxt:
                break
            (x,) = nxt
            if pred[x] != {chain[-1]} or x in chain:
                break
            chain.append(x)
        merged_into.update(chain)
        units.append(tuple(chain))
    # Blocks left out by a cycle (cannot happen with deduplicated sequences) become units.
    for h in sorted(order, key=order.__getitem__):
        if h not in merged_into:
            units.append((h,))
    return units


def _mean_positions(useqs: Counter, n_units: int) -> list[float]:
    total = [0.0] * n_units
    weight = [0] * n_units
    for s, c in useqs.items():
        for i, u in enumerate(s):
            total[u] += c * i / max(1, len(s) - 1)
            weight[u] += c
    return [total[u] / weight[u] if weight[u] else 0.0 for u in range(n_units)]


def _inverted_groups(useqs: Counter, rank: dict[int, int], n_units: int) -> list[set[int]]:
    """Units that appear in both relative orders somewhere, joined into groups."""
    parent = list(range(n_units))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    involved: set[int] = set()
    # The most frequent distinct sequences only: enough to see every inversion that matters.
    for s, _ in sorted(useqs.items(), key=lambda kv: (-kv[1], kv[0]))[:500]:
        rs = [rank[u] for u in s]
        if all(a < b for a, b in zip(rs, rs[1:])):
            continue
        for i in range(len(s)):
            for j in range(i + 1, len(s)):
                if rs[i] > rs[j]:
                    involved.update((s[i], s[j]))
                    parent[find(s[i])] = find(s[j])
    groups: dict[int, set[int]] = {}
    for u in sorted(involved):
        groups.setdefault(find(u), set()).add(u)
    return [g for g in groups.values() if len(g) >= 2]
