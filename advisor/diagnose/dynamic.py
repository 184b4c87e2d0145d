"""TR101 from traffic alone: a short varying span inside otherwise shared content.

Every request is inserted into a radix tree of its own (page size 1, token namespace). Where
it leaves the path of earlier requests, the tree holds what an earlier request had there
instead. If, a few tokens later, this request's tokens turn up again in that earlier
continuation and from there both share a long run, the few tokens in between are dynamic
content: a clock reading, a user's name, an id. Only C-level byte operations run per token
(``bytes.find`` over a short window, ``startswith`` for the shared run), so the cost per
request is small next to tokenizing it.
"""

from __future__ import annotations

from array import array
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Sequence

from advisor.index.radix import Node, RadixTree
from advisor.diagnose.spans import classify, differing_range, expand

ITEM = 4  # bytes per packed token id, as the radix tree stores them
FULL_OBSERVATIONS = 64
SAMPLE_EVERY = 32


@dataclass(frozen=True)
class DynamicObservation:
    """One request's varying span: where, what, and how much it hides."""

    request: int
    offset: int   # token holding the first character of the varying value
    start: int    # token where the request left the earlier request's path
    span: int     # tokens of this request before the two share again
    rejoin: int   # tokens shared again after the span (what a fix would cache)
    value: str
    kind: str
    label: str    # static text of the line before the value ("Current time: ")
    right: str    # static text after the value, from the next line ("You are ...")
    char: int = 0  # character offset of the value in the decoded request


@dataclass
class DynamicFinding:
    token_offset: int
    kind: str
    requests: int
    tokens_lost: int
    examples: list[str]
    label: str
    right: str
    span_tokens: int
    observations: int = 0
    kinds: dict[str, int] = field(default_factory=dict)


class DynamicDetector:
    """Feed requests in arrival order with ``add``; read ``findings`` at the end."""

    def __init__(self, decode: Callable[[Sequence[int]], str], max_span: int = 96, gram: int = 8,
                 min_rejoin: int = 32, spans_per_request: int = 3) -> None:
        self.decode = decode
        self.max_span = max_span
        self.gram = gram
        self.min_rejoin = min_rejoin
        self.spans_per_request = spans_per_request
        self.tree = RadixTree(1)
        self.observations: list[DynamicObservation] = []
        self.counted: list[tuple[int, int, int, int]] = []  # (request, start, span, rejoin)
        self.seen = 0

    def add(self, index: int, ids: array) -> int:
        """Index one request; return the tokens it shares with earlier ones (page size 1)."""
        data = ids.tobytes() if isinstance(ids, array) and ids.typecode == "I" else array("I", ids).tobytes()
        leaf, matched = self.tree.insert_node(data)
        pos = matched * ITEM
        parent = leaf.parent
        # Too little left after the divergence to share min_rejoin tokens again: nothing to do.
        if pos + (self.min_rejoin + 1) * ITEM <= len(data) and parent is not None and parent.children:
            # What earlier traffic had where this request went its own way: its oldest sibling.
            state = _oldest(parent, exclude=leaf)
            if state is not None:
                self._spans(index, ids, data, pos, state)
        return matched

    def _spans(self, index: int, ids: array, data: bytes, pos: int, state: Node) -> None:
        node, off = state, 0
        for _ in range(self.spans_per_request):
            found = self._rejoin(data, pos, node, off)
            if found is None:
                return
            skip, other, shared, node, off = found
            self.seen += 1
            if self.seen <= FULL_OBSERVATIONS or self.seen % SAMPLE_EVERY == 0:
                obs = self._observe(index, ids, pos // ITEM, skip, other, shared)
                if obs is not None:
                    self.observations.append(obs)
            else:
                # Decoding and classifying is the costly part; past the first few dozen, most
                # spans only count (requests, tokens) and join the cluster at their place.
                self.counted.append((index, pos // ITEM, skip, shared))
            pos += (skip + shared) * ITEM
            if pos + (self.min_rejoin + 1) * ITEM > len(data):  # too short to share again
                return
            if off >= len(node.key):
                nxt = _oldest(node, exclude=None)
                if nxt is None:
                    return
                node, off = nxt, 0

    def _rejoin(self, data: bytes, pos: int, node: Node, off: int):
        """The first skip (in tokens, at most ``max_span``) after which this request and the
        earlier continuation share at least ``min_rejoin`` tokens; with the earlier span, the
        shared length and where in the tree the sharing ends.

        A shared run of ``min_rejoin`` tokens starting anywhere holds a whole ``gram`` that
        starts at a multiple of ``min_rejoin - gram``: only those few probes are searched
        for (C-level ``find``), and a hit is walked back to where the run starts."""
        g = self.gram * ITEM
        step = max(1, self.min_rejoin - self.gram)
        window, segments = _window(node, off, (self.max_span + self.min_rejoin) * ITEM)
        if len(window) < g:
            return None
        last = min(self.max_span + step - 1, (len(data) - pos - g) // ITEM)
        for probe in range(0, last + 1, step):
            a = pos + probe * ITEM
            needle = data[a:a + g]
            at = window.find(needle)
            while at >= 0 and at % ITEM:
                at = window.find(needle, at + 1)
            if at < 0:
                continue
            # Back to the start of the shared run (no further back than this request's span).
            while a > pos and at > 0 and data[a - ITEM:a] == window[at - ITEM:at]:
                a -= ITEM
                at -= ITEM
            skip = (a - pos) // ITEM
            if skip > self.max_span:
                continue
            seg_node, seg_off = _locate(segments, at)
            shared, end_node, end_off = _extend(data, a, seg_node, seg_off)
            if shared >= self.min_rejoin:
                return skip, window[:at], shared, end_node, end_off
        return None

    def _observe(self, index: int, ids: array, start: int, skip: int, other: bytes,
                 shared: int) -> DynamicObservation | None:
        if skip == 0:
            return None  # only the earlier request had extra text here; nothing varies in this one
        decode = self.decode
        lo = max(0, start - 24)
        left_ids = ids[lo:start]
        span_ids = ids[start:start + skip]
        left = decode(left_ids)
        mine = decode(span_ids)
        theirs = decode(_unpack(other))
        right = decode(ids[start + skip:start + skip + 32])
        text = left + mine + right
        a, b = differing_range(left, mine, theirs)
        if a >= b or "<|" in text[a:b]:
            # Nothing differs, or the difference crosses a message boundary: a change of
            # conversation structure, not a value inside shared content.
            return None
        va, vb = expand(text, a, b)
        if va >= vb:
            return None
        offset = lo + _token_at(decode, list(left_ids) + list(span_ids), va)
        line_start = text.rfind("\n", 0, va) + 1
        label = text[line_start:va]
        if not label.strip() and line_start > 0:
            # The value starts its line: the line before it anchors it instead.
            label = text[text.rfind("\n", 0, line_start - 1) + 1:va]
        rest = max(vb, len(left) + len(mine))
        nl = text.find("\n", rest)
        if nl >= 0:
            while nl < len(text) and text[nl] in "\r\n":
                nl += 1
            after = text[nl:nl + 40]
        else:
            after = text[vb:vb + 40]
        char = len(decode(ids[:lo])) + va
        return DynamicObservation(index, offset, start, skip, shared, text[va:vb], classify(text[va:vb]),
                                  label, after, char)

    def findings(self, total_requests: int, min_share: float = 0.1,
                 explained: Callable[[DynamicObservation], bool] | None = None) -> list[DynamicFinding]:
        """Observations grouped by where they sit, kept when enough requests show them.
        ``explained`` drops observations another cause accounts for (permuted sections)."""
        out: list[DynamicFinding] = []
        need = max(3, int(min_share * total_requests))
        kept = [o for o in self.observations if explained is None or not explained(o)]
        groups = _clusters(kept)
        extra = _assign(groups, self.counted)
        for group, counted in zip(groups, extra):
            requests = {o.request for o in group} | {c[0] for c in counted}
            if len(requests) < need:
                continue
            offsets = Counter(o.offset for o in group)
            offset = min(offsets, key=lambda k: (-offsets[k], k))
            kinds = Counter(o.kind for o in group)
            kind = min(kinds, key=lambda k: (-kinds[k], k))
            labels = Counter(o.label for o in group)
            label = min(labels, key=lambda k: (-labels[k], k))
            if labels[label] * 2 < len(group):
                # No common text before the value: not one field of a template but scattered
                # coincidences (scripted chat turns shared by a few conversations).
                continue
            right = _static_right([o.right for o in group if o.label == label and o.right])
            examples: list[str] = []
            for o in group:
                if o.value not in examples:
                    examples.append(o.value)
                if len(examples) == 3:
                    break
            spans = sorted(o.span for o in group)
            out.append(DynamicFinding(
                token_offset=offset, kind=kind, requests=len(requests),
                tokens_lost=sum(o.rejoin for o in group) + sum(c[3] for c in counted), examples=examples, label=label, right=right,
                span_tokens=spans[len(spans) // 2], observations=len(group), kinds=dict(sorted(kinds.items())),
            ))
        out.sort(key=lambda f: (f.token_offset, -f.requests))
        return out


def _static_right(rights: list[str]) -> str:
    """The text after the span that is static: when two requests happen to share the last
    field of a profile, their span ends early and their right context starts with that
    field; the static text that follows shows up inside (almost) every right context, so
    the candidate whose head occurs in the most of them wins."""
    if not rights:
        return ""
    candidates = Counter(rights)

    def score(r: str) -> tuple[int, int, str]:
        head = r[:16]
        return (-sum(c for other, c in candidates.items() if head in other), -candidates[r], r)

    return min(candidates, key=score)


def _clusters(observations: list[DynamicObservation]) -> list[list[DynamicObservation]]:
    """Observations whose token ranges overlap (a few tokens of slack: earlier dynamic text of
    varying length shifts later offsets a little)."""
    ordered = sorted(observations, key=lambda o: (o.offset, o.request))
    groups: list[list[DynamicObservation]] = []
    end = -1
    for o in ordered:
        if groups and o.offset <= end + 2:
            groups[-1].append(o)
            end = max(end, o.start + o.span)
        else:
            groups.append([o])
            end = o.start + o.span
    for g in groups:
        g.sort(key=lambda o: o.request)
    return groups


def _assign(groups: list[list[DynamicObservation]],
            counted: list[tuple[int, int, int, int]]) -> list[list[tuple[int, int, int, int]]]:
    """Counted-only spans joined to the cluster whose divergence range holds their start."""
    ranges = [(min(o.start for o in g) - 2, max(o.start + o.span for o in g) + 2) for g in groups]
    out: list[list[tuple[int, int, int, int]]] = [[] for _ in groups]
    for c in counted:
        for k, (lo, hi) in enumerate(ranges):
            if lo <= c[1] <= hi:
                out[k].append(c)
                break
    return out


def _oldest(node: Node, exclude: Node | None) -> Node | None:
    """The oldest child other than ``exclude``: what earlier traffic had here. (Not the
    busiest: finding that scans every child, and a node after a shared system prompt has
    one child per request.)"""
    for child in (node.children or {}).values():
        if child is not exclude:
            return child
    return None


def _window(node: Node, off: int, limit: int) -> tuple[bytes, list[tuple[int, Node, int]]]:
    """Up to ``limit`` bytes of the continuation from ``node.key[off:]`` along the oldest
    children, with where each piece starts, to map a position back to the tree."""
    parts: list[bytes] = []
    segments: list[tuple[int, Node, int]] = []
    size = 0
    cur: Node | None = node
    while cur is not None and size < limit:
        piece = cur.key[off:off + limit - size]
        segments.append((size, cur, off))
        parts.append(piece)
        size += len(piece)
        off = 0
        cur = _oldest(cur, exclude=None)
    return b"".join(parts), segments


def _locate(segments: list[tuple[int, Node, int]], at: int) -> tuple[Node, int]:
    for start, node, off in reversed(segments):
        if start <= at:
            return node, off + at - start
    raise AssertionError("position before the window")


def _extend(data: bytes, pos: int, node: Node, off: int) -> tuple[int, Node, int]:
    """Tokens shared from ``data[pos:]`` and the tree path at ``node.key[off:]``, following
    whichever child matches; with the node and offset where they part."""
    q = pos
    while True:
        key = node.key
        limit = min(len(key) - off, len(data) - q)
        c = _common(key, off, data, q, limit)
        q += c
        if off + c < len(key) or q >= len(data):
            return (q - pos) // ITEM, node, off + c
        child = node.children.get(data[q:q + ITEM]) if node.children else None
        if child is None:
            return (q - pos) // ITEM, node, len(key)
        node, off = child, 0


def _common(a: bytes, a_off: int, b: bytes, b_off: int, limit: int) -> int:
    """Common prefix length in whole items of ``a[a_off:]`` and ``b[b_off:]``, binary search
    over C-level ``startswith`` calls."""
    lo, hi = 0, limit // ITEM
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if b.startswith(a[a_off:a_off + mid * ITEM], b_off):
            lo = mid
        else:
            hi = mid - 1
    return lo * ITEM


def _unpack(data: bytes) -> list[int]:
    out = array("I")
    out.frombytes(data)
    return out.tolist()


def _token_at(decode: Callable[[Sequence[int]], str], ids: list[int], char: int) -> int:
    """Index of the token of ``ids`` whose decoded text holds character ``char``: the
    smallest k with more than ``char`` characters in the first k + 1 tokens (binary search)."""
    lo, hi = 0, len(ids) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if len(decode(ids[:mid + 1])) > char:
            hi = mid
        else:
            lo = mid + 1
    return max(0, lo)
