"""Findings read off the aligned traffic (``advisor.diagnose.align``).

Varying spans (``Gap``) are grouped by the shared content they re-join (a content-defined
anchor, so the group does not depend on where the span sits) and reported when that content
is static (held by most requests) and the span costs a measurable share of the prompt
tokens: TR101 for a span shorter than ``LONG_SPAN`` tokens, TR102 for longer per-request
content (retrieved passages, history, notes) placed before static content. Reordered runs
(``Swap``) are grouped by their anchors and reported as TR201 when the units are static.
What the span's text looks like only labels the finding (``advisor.diagnose.spans``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Sequence

from advisor.diagnose.align import Aligner, Gap, Swap, weight
from advisor.diagnose.spans import classify_inside, differing_range, expand
from advisor.ingest.ids import ITEM, unpack

# A varying span of at least LONG_SPAN tokens that starts within HEAD tokens of the request
# (before it only chat markup and a label) is per-request content ahead of the static
# prompt: TR102. Any other varying span between shared content is TR101, however long.
LONG_SPAN = 64
HEAD = 48
STATIC_SHARE = 0.5   # re-joined content held by at least this share of requests is static
MIN_LOSS = 0.005     # of the aligned prompt tokens: smaller losses are not reported
# An order costs only where a new order first shows, so few requests show one; what the
# alignment sees reordered must cost at least this share to be more than shared
# sentences that happen to swap places in unique documents.
MIN_SWAP_LOSS = 0.01
# The static content a span hides runs on for at least this many tokens (typically): a
# sentence that recurs in many documents (a phrase bank, boilerplate) is not a prompt.
# Or, when another span follows soon, all the shared content after it is this long.
MIN_STATIC = 32
MIN_STATIC_TOTAL = 256
CONTEXT = 48         # tokens of context decoded on each side of a span


@dataclass
class SpanFinding:
    code: str
    token_offset: int
    kind: str
    requests: int
    tokens_lost: int
    examples: list[str]
    label: str         # static text just before the span
    right: str         # static text just after it
    span_tokens: int
    # Decoded (before, span, after) of observed spans: the rewrite finds the span by them.
    contexts: list[tuple[str, str, str]] = field(default_factory=list)


@dataclass
class SwapFinding:
    token_offset: int
    requests: int
    tokens_lost: int
    labels: list[str]
    orders: list[tuple[list[str], int]]
    cores: list[str]   # a distinctive piece of text of each unit, to find it in a request


class Structure:
    def __init__(self, aligner: Aligner, decode: Callable[[Sequence[int]], str]) -> None:
        self.al = aligner
        self.decode = decode

    def spans(self, scale: float = 1.0) -> list[SpanFinding]:
        al = self.al
        if not al.gaps:
            return []
        swapped = {s.request: (s.start, s.end) for s in al.swaps}
        gaps = [g for g in al.gaps if not _within(swapped.get(g.request), g.start)]
        groups = _group_gaps(gaps)
        # A span that re-joins at a unit other requests send in another order is the
        # permutation seen from one pair, not a value.
        permuted = {k for s in al.swaps for k in s.keys}
        groups = [g for g in groups if sum(1 for x in g if x.key in permuted) * 2 < len(g)]
        out = []
        need = MIN_LOSS * al.aligned_tokens
        for group in groups:
            requests = {g.request for g in group}
            lost = sum(g.rejoin for g in group)
            if len(requests) < 2 or lost < need:
                continue
            runs = sorted(g.run for g in group)
            totals = sorted(g.rejoin for g in group)
            if runs[len(runs) // 2] < MIN_STATIC and totals[len(totals) // 2] < MIN_STATIC_TOTAL:
                continue
            keys = Counter(g.key for g in group)
            key = min(keys, key=lambda k: (-keys[k], k))
            # The content re-joined, tested whole: an anchor alone may be boilerplate that
            # every retrieved passage starts with.
            # Several spans' heads: a re-join that starts inside a shared end of two values
            # holds a piece of the value.
            pairs = list(dict.fromkeys((g.head, g.left) for g in sorted(group, key=lambda g: (g.key != key, g.request))))
            if max(al.static_share(h, left) for h, left in pairs[:6]) < STATIC_SHARE:
                continue  # re-joins content a few requests share (retrieved passages)
            finding = self._span_finding(group, requests, lost, scale)
            if finding is not None:
                out.append(finding)
        out.sort(key=lambda f: (f.token_offset, -f.requests))
        return out

    def _span_finding(self, group: list[Gap], requests: set[int], lost: int, scale: float) -> SpanFinding | None:
        lengths = sorted(g.length for g in group)
        median = lengths[len(lengths) // 2]
        # Where the span sits in one request: the oldest neighbour's own coordinates.
        known = [g for g in group if g.ref >= 0]
        if known:
            ref = min(g.ref for g in known)
            starts = sorted(g.ref_start for g in known if g.ref == ref)
            # The median: a few neighbours see this span joined with an earlier one.
            offset = starts[(len(starts) - 1) // 2]
        else:
            offset = min(g.start for g in group)
        code = "TR102" if median >= LONG_SPAN and offset <= HEAD else "TR101"
        earliest = sorted(group, key=lambda g: (g.request, g.start))
        contexts: list[tuple[str, str, str]] = []
        values: list[str] = []
        value_offset = None
        label = right_text = ""
        for g in earliest[:24]:
            data = self.al.request(g.request)
            if data is None:
                continue
            ids = unpack(data)
            lo = max(0, g.start - CONTEXT)
            left = self.decode(ids[lo:g.start])
            mine = self.decode(ids[g.start:g.start + g.length])
            right = self.decode(ids[g.start + g.length:g.start + g.length + CONTEXT])
            contexts.append((left, mine, right))
            if len(values) < 3 and code == "TR101":
                text = left + mine + right
                a, b = len(left), len(left) + len(mine)
                va, vb = expand(text, a, b) if b - a < 200 else (a, b)
                if value_offset is None and g.start == g.ref_start and abs(g.ref_start - offset) <= 16:
                    value_offset = lo + _token_at(self.decode, ids[lo:g.start + g.length], va)
                    # After the span: static text from the next line on (what a template
                    # diff cuts the moved lines up to).
                    nl = right.find("\n")
                    label, right_text = text[:va], (right[nl:].lstrip("\r\n") if nl >= 0 else right)
                v = text[va:vb].strip()
                if v and v not in values:
                    values.append(v)
            elif len(values) < 3 and mine.strip():
                values.append(_short(mine, 80))
        if not contexts:
            return None
        if value_offset is not None and abs(value_offset - offset) <= 16:
            offset = min(offset, value_offset)
        kinds = (Counter(classify_inside(v) for v in values) if code == "TR101" and values
                 else Counter({"per-request-content": 1}))
        kind = min(kinds, key=lambda k: (-kinds[k], k))
        if not label:
            label, _, right_text = contexts[0]
        # Each aligned request stands for its sampling stride of the log.
        counted = sum(weight(r) for r in requests)
        lost_all = sum(g.rejoin * weight(g.request) for g in group)
        return SpanFinding(code, offset, kind, round(counted * scale), round(lost_all * scale), values,
                           label, right_text, median, contexts)

    def swaps(self, scale: float = 1.0) -> list[SwapFinding]:
        al = self.al
        if not al.swaps:
            return []
        parent: dict[bytes, bytes] = {}

        def find(x: bytes) -> bytes:
            parent.setdefault(x, x)
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for s in al.swaps:
            for k in s.keys[1:]:
                ra, rb = find(s.keys[0]), find(k)
                if ra != rb:
                    parent[max(ra, rb)] = min(ra, rb)
        groups: dict[bytes, list[Swap]] = {}
        for s in al.swaps:
            groups.setdefault(find(s.keys[0]), []).append(s)
        need = MIN_SWAP_LOSS * al.aligned_tokens
        out = []
        for root in sorted(groups):
            group = groups[root]
            requests = {s.request for s in group}
            lost = sum(s.lost for s in group)
            # One request may be all that shows it: with two orders in the traffic, every
            # later request finds an earlier one in its own order.
            if lost < need:
                continue
            keys = sorted({k for s in group for k in s.keys})
            heads = sorted({(h, s.left) for s in group for h in s.heads})[:32]
            shares = sorted(al.static_share(h, left) for h, left in heads)
            if shares[len(shares) // 2] < STATIC_SHARE:
                continue
            out.append(self._swap_finding(group, keys, requests, lost, scale))
        out.sort(key=lambda f: f.token_offset)
        return out

    def _swap_finding(self, group: list[Swap], keys: list[bytes], requests: set[int], lost: int,
                      scale: float) -> SwapFinding:
        first_requests = sorted(requests)[:8]
        offset = min(s.start for s in group if s.request in first_requests)
        label = {k: _short(self.decode(unpack(k)).strip(), 40) or "a shared block" for k in keys}
        orders = Counter(tuple(label[k] for k in s.keys) for s in group)
        shown = sorted(orders.items(), key=lambda kv: (-kv[1], kv[0]))
        # The units in the order of the earliest request that shows them all.
        canon = list(shown[0][0])
        for k in keys:
            if label[k] not in canon:
                canon.append(label[k])
        cores = []
        for s in sorted(group, key=lambda s: s.request)[:16]:
            data = self.al.request(s.request)
            if data is None:
                continue
            for a, n in s.runs:
                ids = unpack(data[a * ITEM:(a + n) * ITEM])
                core = _core(self.decode, ids)
                if core and core not in cores:
                    cores.append(core)
        counted = sum(weight(r) for r in requests)
        lost_all = sum(s.lost * weight(s.request) for s in group)
        return SwapFinding(offset, round(counted * scale), round(lost_all * scale), canon,
                           [(list(o), c) for o, c in shown], cores)


def _core(decode: Callable[[Sequence[int]], str], ids: list[int]) -> str:
    """A piece of a run's text that identifies it: a few tokens in from its start (the
    run's edges shift with the neighbour it was aligned with), without chat markup."""
    text = decode(ids[2:16])
    if "<|" in text:
        pieces = [p for p in _strip_special(text) if len(p.strip()) >= 12]
        text = max(pieces, key=len) if pieces else ""
    return text.strip() if len(text.strip()) >= 12 else ""


def _strip_special(text: str) -> list[str]:
    import re

    return re.split(r"<\|[^|>]*\|>", text)


def _group_gaps(gaps: list[Gap]) -> list[list[Gap]]:
    """Gaps joined when they re-join the same content (same anchor), or overlap in one
    request."""
    parent = list(range(len(gaps)))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    by_key: dict[bytes, int] = {}
    for k, g in enumerate(gaps):
        if g.key in by_key:
            parent[find(k)] = find(by_key[g.key])
        else:
            by_key[g.key] = k
    # Spans that start at (almost) the same place of the same neighbour are one span whose
    # re-join differs by a few tokens (two values share their last characters).
    ordered = sorted(range(len(gaps)), key=lambda k: (gaps[k].ref, gaps[k].ref_start))
    prev = -1
    for k in ordered:
        g = gaps[k]
        if g.ref < 0:
            continue
        if prev >= 0 and gaps[prev].ref == g.ref and g.ref_start - gaps[prev].ref_start <= 4:
            parent[find(k)] = find(prev)
        prev = k
    groups: dict[int, list[Gap]] = {}
    for k, g in enumerate(gaps):
        groups.setdefault(find(k), []).append(g)
    return [groups[r] for r in sorted(groups)]


def _within(region: tuple[int, int] | None, at: int) -> bool:
    return region is not None and region[0] <= at <= region[1]


def _short(text: str, width: int = 40) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 3] + "..."


def _token_at(decode: Callable[[Sequence[int]], str], ids: list[int], char: int) -> int:
    lo, hi = 0, len(ids) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if len(decode(ids[:mid + 1])) > char:
            hi = mid
        else:
            lo = mid + 1
    return max(0, lo)


__all__ = ["Structure", "SpanFinding", "SwapFinding", "differing_range"]
