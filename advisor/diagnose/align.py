"""The content units a traffic shares, from its token ids alone.

Each request is inserted into a radix tree (page size 1). Where it leaves the path of the
earlier traffic, the tree holds what the oldest earlier request with the same prefix had
instead: the request's nearest earlier neighbour. The rest of the request is aligned with
the rest of that neighbour: runs of at least ``MIN_RUN`` tokens that both hold are shared
content, found wherever they sit in the neighbour. Read off the runs:

- a run that comes after a stretch of this request which the neighbour does not share, in
  the same relative order, is a re-join: the stretch is a varying span (``Gap``);
- runs whose order in the neighbour differs from their order here are units sent in a
  different order (``Swap``).

Nothing here looks at what the tokens say: headings, JSON or dates play no part. The
search is C-level byte work (``bytes.find`` of short probes over a window of the
neighbour, ``startswith`` for run lengths), so aligning a request costs little next to
tokenizing it; on long logs only a thinning sample of requests is aligned.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Iterator

from advisor.index.radix import Node, RadixTree, free_trees
from advisor.ingest.ids import ITEM, common_bytes, find_item, rfind_item

PROBE = 8         # tokens per probe: a shared run of 2*PROBE-1 tokens always holds one
MIN_RUN = 16      # a shared run this long is shared content, shorter ones are coincidence
WINDOW = 6144     # tokens of the neighbour searched after the divergence
MAX_PROBED = 6144  # tokens of this request probed after the divergence
TAIL_SLACK = 2    # tokens at a neighbour's end a re-sent history may differ in (the generation prompt)
RECENT = 32       # newest kept requests searched for a conversation's earlier turn
VALUE_REACH = 64  # tokens: a value that parts a conversation's turns is at most this far before its text
FULL = 384        # requests aligned before the sample starts thinning out


@dataclass(frozen=True)
class Gap:
    """A varying span of request ``request``: tokens ``[start, start + length)`` that its
    neighbour does not share, followed by ``rejoin`` tokens that both share again."""

    request: int
    start: int
    length: int
    ref_start: int    # where the neighbour's own varying text starts (its coordinates)
    ref_length: int
    rejoin: int       # tokens both share after the span (all runs in order after it)
    key: bytes        # a content-defined anchor in the shared run after the span
    ref: int = -1     # the neighbour's request index
    head: bytes = b""  # the first MIN_RUN tokens both share again (to test they are static)
    run: int = 0       # tokens of the first shared run after the span
    left: bytes = b""  # the tokens right before the span (both requests hold them)
    # This request re-sends all of its neighbour after the span, in order, and goes on: the
    # neighbour is this conversation's earlier turn, and the span a value its history
    # was re-rendered with (an age, a refreshed reading) rather than content two
    # requests happen to share.
    resent: bool = False


@dataclass(frozen=True)
class Swap:
    """Shared runs that request ``request`` holds in another order than its neighbour."""

    request: int
    start: int        # first token of the reordered stretch
    end: int
    keys: tuple[bytes, ...]   # anchor of each reordered run, in this request's order
    lost: int         # tokens after the stretch's first run that a fixed order would share
    runs: tuple[tuple[int, int], ...] = ()   # (start, length) of each reordered run
    heads: tuple[bytes, ...] = ()            # the first MIN_RUN tokens of each
    left: bytes = b""                        # the tokens right before the stretch
    refs: tuple[int, ...] = ()               # where each run sits in the neighbour (its token offset)
    ref: int = -1                            # the neighbour's index


def sampled(index: int) -> bool:
    """Align all of the first ``FULL`` requests, then every 2nd, 4th, ... as the log grows:
    the number aligned grows with the logarithm of the log's length."""
    if index < FULL:
        return True
    stride = 1 << max(0, (index // FULL).bit_length())
    return index % stride == 0


def weight(index: int) -> int:
    """How many requests an aligned request stands for (its sampling stride)."""
    if index < FULL:
        return 1
    return 1 << max(0, (index // FULL).bit_length())


class Aligner:
    """Feed requests in arrival order; ``gaps`` and ``swaps`` collect what alignment shows."""

    def __init__(self, keep_bytes: int = 32 << 20) -> None:
        self.tree = RadixTree(1)
        self.gaps: list[Gap] = []
        self.swaps: list[Swap] = []
        self.aligned = 0
        self.aligned_tokens = 0
        # Requests kept to tell static content (in most requests) from content a few share.
        self.kept: list[bytes] = []
        self.kept_ids: list[int] = []
        self._keep_bytes = keep_bytes
        self._leaf_request: dict[int, int] = {}
        self._pools: dict[tuple[bytes, int], list[bytes]] = {}
        self._holders: dict[tuple[bytes, int], frozenset[int]] = {}
        self._sealed = False

    def seal(self) -> None:
        """No request comes after the last one added: let go of the tree and of its leaves'
        requests, which only ``add`` reads (as big as the requests' distinct tokens). The gaps,
        swaps and kept requests stay."""
        held = self.tree.total_tokens
        self.tree = RadixTree(1)
        self._leaf_request = {}
        self._sealed = True
        free_trees(held)

    def add(self, index: int, data: bytes) -> int:
        """Index one request (packed ids); return the tokens shared with earlier ones."""
        if self._sealed:
            raise RuntimeError("the aligner is sealed: no request comes after the last one")
        leaf, matched = self.tree.insert_node(data)
        if matched * ITEM < len(data):
            # The new leaf stays the deepest node of this request however it is split later.
            self._leaf_request[id(leaf)] = index
        if not sampled(index):
            return matched
        self.aligned += 1
        self.aligned_tokens += len(data) // ITEM
        if self._keep_bytes > 0:
            self.kept.append(data)
            self.kept_ids.append(index)
            self._keep_bytes -= len(data)
        pos = matched * ITEM
        parent = leaf.parent
        if pos + MIN_RUN * ITEM > len(data) or parent is None or not parent.children or leaf is parent:
            return matched
        ref = _oldest(parent, exclude=leaf)
        if ref is None:
            return matched
        window, last = _window(ref, WINDOW * ITEM)
        shared = self._align(index, data, pos, window, self._leaf_request.get(id(_deepest(last)), -1))
        # (Only where the oldest request shares nothing after the divergence: a value
        # whose content after it that request shares is a value like any other.)
        if not shared and self.kept_ids and self.kept_ids[-1] == index:
            self._align_conversation(index, data, pos)
        return matched

    def _align_conversation(self, index: int, data: bytes, pos: int) -> None:
        """A value early in a conversation (its first user turn) parts every turn from the
        oldest request at that point, another conversation's: the newest kept request
        that shares the prefix and holds this request's text a little after the
        divergence is this conversation's earlier turn. Only the history edits that
        aligning with it shows count."""
        lo = max(0, len(self.kept) - 1 - RECENT)
        probes = [(at, data[at:at + PROBE * ITEM]) for at in (pos + after * ITEM for after in (PROBE, 2 * PROBE, 4 * PROBE, 8 * PROBE))]
        probes = [(at, p) for at, p in probes if len(p) == PROBE * ITEM]
        shortest = len(data) - (MIN_RUN - VALUE_REACH) * ITEM
        for k in range(len(self.kept) - 2, lo - 1, -1):  # (the last kept is this request)
            cand = self.kept[k]
            if len(cand) > shortest:
                continue  # a later turn adds a reply and a question to the earlier one
            # (Near the same place: an earlier turn holds it as far off as the values differ.)
            if not any(find_item(cand, p, max(0, at - VALUE_REACH * ITEM), at + (VALUE_REACH + PROBE) * ITEM) >= 0
                       for at, p in probes):
                continue
            # An earlier turn is re-sent to its end: its last tokens (but the generation
            # prompt) are in this request, or it is another conversation.
            tail = cand[len(cand) - (MIN_RUN + TAIL_SLACK) * ITEM:len(cand) - TAIL_SLACK * ITEM]
            if len(tail) < MIN_RUN * ITEM or find_item(data, tail, pos) < 0:
                continue
            q = common_bytes(data, 0, cand, 0)
            if q + VALUE_REACH * ITEM < pos or len(cand) - q >= WINDOW * ITEM:
                continue
            gaps = len(self.gaps)
            swaps = len(self.swaps)
            self._align(index, data, q, cand[q:], self.kept_ids[k])
            self.gaps[gaps:] = [g for g in self.gaps[gaps:] if g.resent]
            del self.swaps[swaps:]
            return

    def _align(self, index: int, data: bytes, pos: int, ref: bytes, ref_index: int) -> bool:
        """Read gaps and swaps off the runs this request shares with ``ref``; whether
        there were any."""
        runs = list(_runs(data, pos, ref))
        if not runs:
            return False
        base = pos // ITEM
        involved: set[int] = set()
        for group in _inverted(runs):
            first = min(group)
            lo = runs[first][0]
            hi = max(runs[k][0] + runs[k][2] for k in group)
            # Units sent in another order fill the stretch they are reordered in; shared
            # sentences scattered through unique documents (a phrase bank) do not.
            if sum(runs[k][2] for k in group) * 2 < hi - lo:
                continue
            involved |= group
            ordered = sorted(group)
            keys = tuple(_anchor(data, base + runs[k][0], runs[k][2]) for k in ordered)
            heads = tuple(data[(base + runs[k][0]) * ITEM:(base + runs[k][0] + MIN_RUN) * ITEM] for k in ordered)
            lost = sum(r[2] for k, r in enumerate(runs) if k > first)
            spans = tuple((base + runs[k][0], runs[k][2]) for k in ordered)
            refs = tuple(base + runs[k][1] for k in ordered)
            self.swaps.append(Swap(index, base + lo, base + hi, keys, lost, spans, heads, _before(data, base + lo), refs, ref_index))
        prev_a = prev_b = 0
        after = [0] * (len(runs) + 1)
        for k in range(len(runs) - 1, -1, -1):
            after[k] = after[k + 1] + runs[k][2]
        # From which run on the rest of the neighbour is re-sent in order up to its end
        # (the window holds all of it), with this request adding turns of its own: after
        # it, or before a closing the template prints at the end of every prompt.
        # (Runs after the one that reaches the end are the neighbour's text said again.)
        resent_from = len(runs)
        e = next((j for j, r in enumerate(runs) if r[1] + r[2] + TAIL_SLACK >= len(ref) // ITEM), -1)
        if len(ref) < WINDOW * ITEM and e >= 0:
            k = e
            while k > 0 and runs[k - 1][1] + runs[k - 1][2] <= runs[k][1]:
                k -= 1
            # (A turn is a reply and a question: at least a run's length of new tokens.)
            inserted = any(runs[j + 1][0] >= runs[j][0] + runs[j][2] + MIN_RUN and runs[j + 1][1] == runs[j][1] + runs[j][2]
                           for j in range(k, e))
            if inserted or (len(data) - pos) // ITEM >= runs[e][0] + runs[e][2] + MIN_RUN:
                resent_from = k
        for k, (a, b, n) in enumerate(runs):
            if b < prev_b:
                prev_a = max(prev_a, a + n)
                continue
            if a > prev_a and k not in involved and not _inside(involved, runs, a):
                self.gaps.append(Gap(index, base + prev_a, a - prev_a, base + prev_b, b - prev_b,
                                     after[k], _anchor(data, base + a, n), ref_index,
                                     data[(base + a) * ITEM:(base + a + MIN_RUN) * ITEM], n,
                                     _before(data, base + prev_a), resent_from <= k <= e and b > prev_b))
            prev_a, prev_b = a + n, b + n
        return True

    def static_share(self, key: bytes, given: bytes = b"") -> float:
        """Share of the kept requests holding ``given`` (all when empty) that also hold
        ``key``: content is static when (nearly) every request of its kind has it, however
        small a part of a mixed log that kind is."""
        memo = (given, -len(self.kept))  # (negative: the whole log, not a sample of it)
        pool = self._pools.get(memo)
        if pool is None:
            pool = self._pools[memo] = [d for d in self.kept if not given or find_item(d, given, 0) >= 0]
        if not pool:
            return 0.0
        hits = sum(1 for d in pool if find_item(d, key, 0) >= 0)
        return hits / len(pool)

    def held_by_most(self, key: bytes, given: bytes = b"", share: float = 0.5, sample: int = 128) -> bool:
        """Whether at least ``share`` of the kept requests holding ``given`` hold ``key``:
        ``static_share`` answered on at most ``sample`` requests spread over the log, and
        as soon as the answer is sure."""
        memo = (given, len(self.kept))
        pool = self._pools.get(memo)
        if pool is None:
            # The structure asks about many keys given the same context: one pool for them.
            pool = self._pools[memo] = [d for d in self._sample(sample) if not given or find_item(d, given, 0) >= 0]
        if not pool:
            return False
        need = share * len(pool)
        hits = misses = 0
        for d in pool:
            if find_item(d, key, 0) >= 0:
                hits += 1
                if hits >= need:
                    return True
            else:
                misses += 1
                if misses > len(pool) - need:
                    return False
        return hits >= need

    def _sample(self, sample: int = 128) -> list[bytes]:
        """At most about ``sample`` kept requests, spread over the log."""
        return self.kept[::max(1, len(self.kept) // sample)]

    def sample_size(self, sample: int = 128) -> int:
        """How many kept requests ``holders`` looks at."""
        return -(-len(self.kept) // max(1, len(self.kept) // sample))

    def holders(self, key: bytes) -> frozenset[int]:
        """Which of the sampled kept requests (by position in the sample) hold ``key``."""
        memo = (key, len(self.kept))
        got = self._holders.get(memo)
        if got is None:
            got = self._holders[memo] = frozenset(
                k for k, d in enumerate(self._sample()) if find_item(d, key, 0) >= 0)
        return got

    def request(self, index: int) -> bytes | None:
        """A kept request's packed ids."""
        for k, i in enumerate(self.kept_ids):
            if i == index:
                return self.kept[k]
        return None


def _runs(data: bytes, pos: int, ref: bytes) -> Iterator[tuple[int, int, int]]:
    """Shared runs ``(a, b, length)`` of ``data[pos:]`` and ``ref`` (token offsets from
    ``pos`` and in ``ref``), each at least ``MIN_RUN`` long, in this request's order."""
    g = PROBE * ITEM
    n_a = min(len(data) - pos, MAX_PROBED * ITEM) // ITEM
    i = 0
    prev_end = 0
    expect = 0
    while i + PROBE <= n_a:
        at = pos + i * ITEM
        needle = data[at:at + g]
        if needle not in ref:  # most probes, in content only this request has: one C-level test
            i += PROBE
            continue
        found = None
        # The probe where the neighbour's content continues in order, else before that,
        # nearest first: a unit moved back a little is the neighbour's copy next to where
        # the order left off, not the same sentence said earlier in its passages.
        for start in (expect, 0):
            # The second pass only looks before ``expect``: the first one searched after it.
            end = len(ref) if start or not expect else expect * ITEM + g - ITEM
            back = not start and bool(expect)
            j = rfind_item(ref, needle, 0, end) if back else find_item(ref, needle, start * ITEM, end)
            tries = 0
            while j >= 0 and tries < 4:
                b = j // ITEM
                a = i
                while a > prev_end and b > 0 and data[pos + (a - 1) * ITEM:pos + a * ITEM] == ref[(b - 1) * ITEM:b * ITEM]:
                    a -= 1
                    b -= 1
                # Most probe matches are a common phrase: too short a run, told by one
                # comparison before the length is measured.
                at_a = pos + a * ITEM
                if ref.startswith(data[at_a:at_a + MIN_RUN * ITEM], b * ITEM) and at_a + MIN_RUN * ITEM <= len(data):
                    n = common_bytes(data, at_a, ref, b * ITEM) // ITEM
                    if n >= MIN_RUN:
                        found = (a, b, n)
                        break
                tries += 1
                j = rfind_item(ref, needle, 0, j) if back else find_item(ref, needle, j + ITEM, end)
            if found is not None or start == 0:
                break
        if found is None:
            i += PROBE
            continue
        yield found
        a, b, n = found
        prev_end = a + n
        expect = b + n
        i = a + n


def _before(data: bytes, at: int, width: int = 6) -> bytes:
    """The ``width`` tokens before token ``at`` (fewer at the start)."""
    return data[max(0, at - width) * ITEM:at * ITEM]


def _inverted(runs: list[tuple[int, int, int]]) -> list[set[int]]:
    """Runs that sit in the other relative order in the neighbour, in groups: runs
    inverted with each other (directly or through others) are one reordered set, so that
    sections and, after them, tools each reordered on their own stay apart."""
    parent = list(range(len(runs)))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    touched: set[int] = set()
    for x in range(len(runs)):
        for y in range(x + 1, len(runs)):
            if runs[x][1] > runs[y][1]:
                touched.update((x, y))
                parent[find(x)] = find(y)
    groups: dict[int, set[int]] = {}
    for k in sorted(touched):
        groups.setdefault(find(k), set()).add(k)
    return [groups[r] for r in sorted(groups)]


def _inside(involved: set[int], runs: list[tuple[int, int, int]], a: int) -> bool:
    if not involved:
        return False
    lo = min(runs[k][0] for k in involved)
    hi = max(runs[k][0] + runs[k][2] for k in involved)
    return lo <= a <= hi


def _anchor(data: bytes, start: int, length: int, width: int = 24, gram: int = 4) -> bytes:
    """A content-defined point of a shared run: of the ``gram``-token windows among its
    first ``width`` tokens, the one with the smallest hash (winnowing). Two requests whose
    runs start a few tokens apart still pick the same window."""
    best: bytes | None = None
    best_h = 0
    last = min(width, length) - gram
    for k in range(0, max(0, last) + 1):
        piece = data[(start + k) * ITEM:(start + k + gram) * ITEM]
        h = zlib.crc32(piece)  # not hash(): that changes from one process to the next
        if best is None or h < best_h:
            best, best_h = piece, h
    return best if best is not None else data[start * ITEM:(start + gram) * ITEM]


def _oldest(node: Node, exclude: Node | None) -> Node | None:
    """The oldest child other than ``exclude``: the first request that went on from here."""
    for child in (node.children or {}).values():
        if child is not exclude:
            return child
    return None


def _window(node: Node, limit: int) -> tuple[bytes, Node]:
    """Up to ``limit`` bytes of the oldest continuation from ``node``, and its last node."""
    parts: list[bytes] = []
    size = 0
    cur: Node | None = node
    last = node
    while cur is not None and size < limit:
        piece = cur.key[:limit - size]
        parts.append(piece)
        size += len(piece)
        last = cur
        cur = _oldest(cur, exclude=None)
    return b"".join(parts), last


def _deepest(node: Node) -> Node:
    """The end of the oldest path below ``node``: the leaf of the request that made it."""
    while node.children:
        nxt = _oldest(node, exclude=None)
        if nxt is None:
            break
        node = nxt
    return node
