"""Brute-force reference: the longest common prefix with any earlier request.

Deliberately independent of the radix tree: it compares every pair of requests with
tuple slices, nothing shared with advisor's code.
"""

from __future__ import annotations

from typing import Sequence


def lcp(a: Sequence[int], b: Sequence[int]) -> int:
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:  # largest k with a[:k] == b[:k]
        mid = (lo + hi + 1) // 2
        if tuple(a[:mid]) == tuple(b[:mid]):
            lo = mid
        else:
            hi = mid - 1
    return lo


def cached_tokens(requests: Sequence[Sequence[int]], page_size: int = 1) -> list[int]:
    """Per request: max LCP with an earlier request, rounded down to whole pages."""
    out = []
    seen: list[tuple[int, ...]] = []
    for req in requests:
        t = tuple(req)
        best = 0
        for earlier in seen:
            # Only pairs that could beat the best so far need the full comparison.
            if len(earlier) > best and earlier[: best + 1] == t[: best + 1]:
                best = max(best, lcp(t, earlier))
        out.append(best // page_size * page_size)
        seen.append(t)
    return out


def after_fix_matches(data: dict, truth: float, tolerance: float = 0.02) -> bool:
    """Whether a prescription's ``hit_rate_after`` is the hand fix's ``truth`` within
    ``tolerance``; above it only where the canonical order is among the actions: its rewrite
    keeps every unit of every request (tests/diagnose/test_canonical.py) and may share more
    than the one fix a test wrote by hand (a shuffled block of static examples sorted too)."""
    after = data["hit_rate_after"]
    if after < truth - tolerance:
        return False
    return after <= truth + tolerance or any(a["kind"] == "canonical-order" for a in data["actions"])
