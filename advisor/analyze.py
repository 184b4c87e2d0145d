"""Achievable prefix-cache hits under unlimited capacity, in arrival order.

Cached tokens of a request = the longest common prefix with any earlier request,
rounded down to ``page_size`` (DESIGN.md). One radix tree per namespace: token-id
traffic shares one, each block-hash file has its own (hash ids are local to a file).
"""

from __future__ import annotations

import math
import re
from array import array
from dataclasses import dataclass, field
from typing import Iterable

from advisor.pipeline import TOKEN_NAMESPACE, Sequence
from advisor.radix import RadixTree


@dataclass
class TenantStats:
    requests: int = 0
    prompt_tokens: int = 0
    cached_tokens: int = 0

    @property
    def hit_rate(self) -> float:
        return self.cached_tokens / self.prompt_tokens if self.prompt_tokens else 0.0


@dataclass(frozen=True)
class BranchInfo:
    namespace: str
    prefix_tokens: int
    requests: int
    preview: str
    ends_with: str

    @property
    def tokens_saved(self) -> int:
        return (self.requests - 1) * self.prefix_tokens


@dataclass
class Analysis:
    page_size: int
    requests: int = 0
    prompt_tokens: int = 0
    cached_tokens: int = 0
    tenants: dict[str, TenantStats] = field(default_factory=dict)
    ratios: array = field(default_factory=lambda: array("d"))
    trees: dict[str, RadixTree] = field(default_factory=dict)
    # Tokens one tree element stands for, per namespace (block size for hash traces).
    units: dict[str, int] = field(default_factory=dict)

    @property
    def hit_rate(self) -> float:
        return self.cached_tokens / self.prompt_tokens if self.prompt_tokens else 0.0

    @property
    def tree_tokens(self) -> int:
        """Distinct tokens the cache would hold: what the trees store, in tokens."""
        return sum(tree.total_tokens * self.units.get(name, 1) for name, tree in self.trees.items())

    def percentiles(self, qs: Iterable[float] = (0.1, 0.5, 0.9)) -> dict[str, float]:
        """Per-request hit ratios at the given quantiles (nearest rank, deterministic)."""
        values = sorted(self.ratios)
        out: dict[str, float] = {}
        for q in qs:
            key = f"p{round(q * 100)}"
            if not values:
                out[key] = 0.0
                continue
            rank = max(1, math.ceil(q * len(values) - 1e-9))
            out[key] = values[min(rank, len(values)) - 1]
        return out


class Analyzer:
    """Feeds sequences through the radix trees and keeps the running totals."""

    def __init__(self, page_size: int = 1) -> None:
        if page_size < 1:
            raise ValueError("page size must be at least 1")
        self.result = Analysis(page_size=page_size)

    def add(self, seq: Sequence) -> int:
        """Index one request; return its cached tokens."""
        res = self.result
        tree = res.trees.get(seq.namespace)
        if tree is None:
            # Block-hash ids are whole blocks already; pages apply to the token count below.
            tree = RadixTree(res.page_size if seq.unit == 1 else 1)
            res.trees[seq.namespace] = tree
            res.units[seq.namespace] = seq.unit
        matched = tree.insert(seq.ids)
        cached = seq.tokens_of(matched)
        if seq.unit != 1:
            cached -= cached % res.page_size
        res.requests += 1
        res.prompt_tokens += seq.prompt_tokens
        res.cached_tokens += cached
        res.ratios.append(cached / seq.prompt_tokens if seq.prompt_tokens else 0.0)
        tenant = seq.request.tenant
        if tenant is not None:
            stats = res.tenants.setdefault(tenant, TenantStats())
            stats.requests += 1
            stats.prompt_tokens += seq.prompt_tokens
            stats.cached_tokens += cached
        return cached

    def add_all(self, seqs: Iterable[Sequence]) -> Analysis:
        for seq in seqs:
            self.add(seq)
        return self.result


def top_branches(analysis: Analysis, decode, top: int = 5) -> list[BranchInfo]:
    """The shared branches that save the most tokens, across namespaces."""
    found: list[BranchInfo] = []
    for name in sorted(analysis.trees):
        tree = analysis.trees[name]
        unit = 1 if name == TOKEN_NAMESPACE else analysis.units.get(name, 1)
        for branch in tree.shared_branches(top=top):
            if unit == 1:
                ids = tree.path_ids(branch.node)
                preview, ends_with = _previews(decode(ids[:256]), decode(ids[-64:]))
            else:
                ids = tree.path_ids(branch.node)
                preview = f"hash blocks {ids[0]} .. {ids[-1]} ({len(ids)} blocks)"
                ends_with = f"block {ids[-1]}"
            found.append(BranchInfo(name, branch.prefix_tokens * unit, branch.requests, preview, ends_with))
    found.sort(key=lambda b: (-b.tokens_saved, b.namespace, -b.prefix_tokens))
    return found[:top]


def _clean(text: str) -> str:
    text = re.sub(r"<\|[a-z_0-9]+\|>", " ", text)
    return " ".join(text.split())


def _previews(head: str, tail: str, width: int = 72) -> tuple[str, str]:
    head_clean = _clean(head)
    tail_clean = _clean(tail)
    # Drop the role name the chat header leaves at the very start.
    for role in ("system ", "user ", "assistant "):
        if head_clean.startswith(role):
            head_clean = head_clean[len(role):]
            break
    preview = head_clean[:width] + ("..." if len(head_clean) > width else "")
    ends = ("..." if len(tail_clean) > width else "") + tail_clean[-width:]
    return preview, ends
