"""Achievable prefix-cache hits under unlimited capacity, in arrival order.

Cached tokens of a request = the longest common prefix with any earlier request,
rounded down to ``page_size`` (DESIGN.md). One radix tree per namespace: token-id
traffic shares one, each block-hash file has its own (hash ids are local to a file).
"""

from __future__ import annotations

import copy

import math
import re
from array import array
from dataclasses import dataclass, field
from typing import Iterable

from advisor.ingest.pipeline import Sequence
from advisor.index.checkpoints import SparseCache
from advisor.index.geometry import CacheGeometry
from advisor.index.merge import merge
from advisor.index.radix import RadixTree


HIST_BINS = 10_000


def ratio_bin(cached: int, prompt_tokens: int) -> int:
    """Histogram bin of a request's hit ratio (integer arithmetic: no rounding drift)."""
    return cached * HIST_BINS // prompt_tokens if prompt_tokens else 0


@dataclass
class TenantStats:
    requests: int = 0
    prompt_tokens: int = 0
    cached_tokens: int = 0

    @property
    def hit_rate(self) -> float:
        return self.cached_tokens / self.prompt_tokens if self.prompt_tokens else 0.0

    def __iadd__(self, other: "TenantStats") -> "TenantStats":
        return merge(self, other)

    def count(self, prompt_tokens: int, cached_tokens: int) -> None:
        """One more request of the tenant (analyze's and the simulator's per-request count)."""
        self.requests += 1
        self.prompt_tokens += prompt_tokens
        self.cached_tokens += cached_tokens

    def as_dict(self) -> dict[str, float | int]:
        return {"requests": self.requests, "prompt_tokens": self.prompt_tokens,
                "cached_tokens": self.cached_tokens, "hit_rate": round(self.hit_rate, 6)}


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
    # Per-request hit ratios as a histogram of HIST_BINS bins: memory stays fixed however
    # many requests stream through (a list of ratios would grow with the input).
    histogram: array = field(default_factory=lambda: array("q", bytes(8 * (HIST_BINS + 1))))
    trees: dict[str, RadixTree] = field(default_factory=dict)
    # Tokens one tree element stands for, per namespace (block size for hash traces).
    units: dict[str, int] = field(default_factory=dict)
    # Filled by a partitioned run: tree tokens and branches held by the partitions.
    extra_tree_tokens: int = 0
    extra_branches: list["RawBranch"] = field(default_factory=list)
    # A model whose cache is not full attention everywhere (``advisor.index.geometry``):
    # ``cached_tokens`` follows its engine's rules, and ``full_attention_cached_tokens`` is
    # what the same engine would serve were every layer full attention.
    geometry: CacheGeometry | None = None
    full_attention_cached_tokens: int = 0
    # Requests whose shared prefix the full-attention groups would serve but the model's
    # windows or states did not (the junctions and the prefixes shorter than a block).
    short_changed_requests: int = 0
    short_changed_at: tuple[str, int] | None = None  # the first such request's file and line
    # Cache keys beyond the tokens (a salt, SGLang's extra_key, a LoRA adapter:
    # advisor.ingest.cache_keys) keep requests in namespaces of their own. ``keyed_requests``
    # carried one; ``key_cost_tokens`` is the cached tokens the keys cost on this traffic
    # (the same traffic without them, minus with them, each under analyze's plain rule:
    # unlimited cache, whole pages). None when no request carried a key, and in a
    # partitioned run (--workers, --dask), which does not count it.
    keyed_requests: int = 0
    key_cost_tokens: int | None = None

    @property
    def hit_rate(self) -> float:
        return self.cached_tokens / self.prompt_tokens if self.prompt_tokens else 0.0

    @property
    def unsalted_cached_tokens(self) -> int | None:
        """Cached tokens were the requests' cache keys absent (None: no request had one)."""
        return None if self.key_cost_tokens is None else self.cached_tokens + self.key_cost_tokens

    @property
    def unsalted_hit_rate(self) -> float | None:
        unsalted = self.unsalted_cached_tokens
        if unsalted is None:
            return None
        return unsalted / self.prompt_tokens if self.prompt_tokens else 0.0

    @property
    def namespaces(self) -> int:
        """Namespaces the requests fell in (a radix tree each): one per block-hash file, the
        token traffic, and each set of cache keys."""
        return len(self.trees)

    @property
    def tree_tokens(self) -> int:
        """Distinct tokens the cache would hold: what the trees store, in tokens."""
        local = sum(tree.total_tokens * self.units.get(name, 1) for name, tree in self.trees.items())
        return local + self.extra_tree_tokens

    def percentiles(self, qs: Iterable[float] = (0.1, 0.5, 0.9)) -> dict[str, float]:
        """Per-request hit ratios at the given quantiles: nearest rank, floored to 1/HIST_BINS."""
        out: dict[str, float] = {}
        n = self.requests
        for q in qs:
            key = f"p{round(q * 100)}"
            rank = max(1, math.ceil(q * n - 1e-9)) if n else 0
            seen = 0
            value = 0.0
            for index, count in enumerate(self.histogram):
                seen += count
                if count and seen >= rank:
                    value = index / HIST_BINS
                    break
            out[key] = value
        return out


class Analyzer:
    """Feeds sequences through the radix trees and keeps the running totals."""

    def __init__(self, page_size: int = 1, geometry: CacheGeometry | None = None) -> None:
        if page_size < 1:
            raise ValueError("page size must be at least 1")
        self.result = Analysis(page_size=page_size)
        # A dense geometry is analyze's plain definition: nothing to keep beside the tree.
        self.geometry = geometry if geometry is not None and not geometry.is_dense else None
        self.result.geometry = self.geometry
        self._sparse: dict[str, SparseCache] = {}
        # Started by the first request with a cache key: per base namespace, a tree of every
        # request from then on (keys or not), for ``Analysis.key_cost_tokens``.
        self._unkeyed: dict[str, RadixTree] | None = None
        self._unkeyed_sparse: dict[str, SparseCache] = {}

    def add(self, seq: Sequence) -> int:
        """Index one request; return its cached tokens."""
        unkeyed = None
        if seq.base_namespace is not None or self._unkeyed is not None:
            unkeyed = self._count_key_cost(seq)
        before = self.result.short_changed_requests
        cached = self.add_ids(seq.namespace, seq.ids, seq.prompt_tokens, seq.unit, seq.request.tenant)
        if unkeyed is not None:
            assert self.result.key_cost_tokens is not None
            self.result.key_cost_tokens += unkeyed - cached
        if self.result.short_changed_at is None and self.result.short_changed_requests > before:
            self.result.short_changed_at = (seq.request.source, seq.request.line)
        return cached

    def _count_key_cost(self, seq: Sequence) -> int | None:
        """What ``seq`` would have cached without cache keys, against what it caches with
        them (called before it enters the trees). Until the first keyed request every
        request sat in its base namespace's tree, and those requests without a key stay
        there; the trees of ``_unkeyed`` hold every request since. Together they hold every
        earlier request of the base namespace, so the longer of the two matches is the hit
        without keys: no copy of a tree, and a second tree only once some request has a key."""
        res = self.result
        if self._unkeyed is None:
            self._unkeyed = {}
            res.key_cost_tokens = 0
        base = seq.base_namespace or seq.namespace
        plain = res.trees.get(base)
        before = plain.match(seq.ids) if plain is not None else 0
        since = self._unkeyed.get(base)
        if since is None:
            since = self._unkeyed[base] = RadixTree(res.page_size if seq.unit == 1 else 1)
        unkeyed = max(before, since.insert(seq.ids))
        if seq.base_namespace is not None:
            res.keyed_requests += 1
        if self.geometry is not None and seq.unit == 1:
            # On a model with windows or states the hit without keys follows the same rule as
            # the hit with them: the base namespace's checkpoints as if no request had a key
            # (until the first keyed request they are the base's own: a copy from there).
            sparse = self._unkeyed_sparse.get(base)
            if sparse is None:
                held = self._sparse.get(base)
                sparse = self._unkeyed_sparse[base] = copy.deepcopy(held) if held else SparseCache(self.geometry)
            usable = min(unkeyed, max(0, seq.prompt_tokens - 1))
            return sparse.serve(seq.ids, seq.prompt_tokens, usable // self.geometry.block * self.geometry.block).hit
        if seq.base_namespace is None:
            keyed = before
        else:
            own = res.trees.get(seq.namespace)
            keyed = own.match(seq.ids) if own is not None else 0
        assert res.key_cost_tokens is not None
        res.key_cost_tokens += (self.to_tokens(unkeyed, seq.prompt_tokens, seq.unit)
                                - self.to_tokens(keyed, seq.prompt_tokens, seq.unit))
        return None

    def tree_for(self, namespace: str, unit: int) -> RadixTree:
        tree = self.result.trees.get(namespace)
        if tree is None:
            # Block-hash ids are whole blocks already; pages apply to the token count.
            tree = RadixTree(self.result.page_size if unit == 1 else 1)
            self.result.trees[namespace] = tree
            self.result.units[namespace] = unit
        return tree

    def to_tokens(self, matched_ids: int, prompt_tokens: int, unit: int) -> int:
        """Cached tokens for ``matched_ids`` leading ids (the last block may be partial)."""
        cached = min(matched_ids * unit, prompt_tokens)
        if unit != 1:
            cached -= cached % self.result.page_size
        return cached

    def add_ids(self, namespace: str, ids: array | bytes, prompt_tokens: int, unit: int,
                tenant: str | None, known_matched: int | None = None) -> int:
        """Index one id sequence and record it; ``known_matched`` overrides the tree's
        answer (the partitioned run knows it from its head index)."""
        matched = self.tree_for(namespace, unit).insert(ids)
        if known_matched is not None:
            matched = known_matched
        if self.geometry is not None and unit == 1:
            cached = self._model_hit(namespace, ids, prompt_tokens, matched)
        else:
            cached = self.to_tokens(matched, prompt_tokens, unit)
            if self.geometry is not None:  # block hashes carry no tokens to apply the model's rules to
                self.result.full_attention_cached_tokens += cached
        self.record(prompt_tokens, cached, tenant)
        return cached

    def _model_hit(self, namespace: str, ids: array | bytes, prompt_tokens: int, matched: int) -> int:
        """The hit under the model's windows and states (the engine caps at ``L - 1``)."""
        geo = self.geometry
        assert geo is not None
        usable = min(matched, max(0, prompt_tokens - 1))
        plain = geo.full_attention_block
        self.result.full_attention_cached_tokens += usable // plain * plain
        sparse = self._sparse.get(namespace)
        if sparse is None:
            sparse = self._sparse[namespace] = SparseCache(geo)
        out = sparse.serve(ids, prompt_tokens, usable // geo.block * geo.block)
        if out.hit < usable // plain * plain:
            self.result.short_changed_requests += 1
        return out.hit

    def record(self, prompt_tokens: int, cached: int, tenant: str | None) -> None:
        res = self.result
        res.requests += 1
        res.prompt_tokens += prompt_tokens
        res.cached_tokens += cached
        res.histogram[ratio_bin(cached, prompt_tokens)] += 1
        if tenant is not None:
            stats = res.tenants.get(tenant)
            if stats is None:
                stats = res.tenants[tenant] = TenantStats()
            stats.count(prompt_tokens, cached)

    def add_all(self, seqs: Iterable[Sequence]) -> Analysis:
        for seq in seqs:
            self.add(seq)
        return self.result


@dataclass(frozen=True)
class RawBranch:
    """A shared branch before decoding: picklable, so partitions can send it back."""

    namespace: str
    unit: int
    prefix_ids: int
    requests: int
    head: tuple[int, ...]
    tail: tuple[int, ...]

    @property
    def tokens_saved(self) -> int:
        return (self.requests - 1) * self.prefix_ids * self.unit


def raw_branches(analysis: Analysis, top: int, min_depth: int = 0) -> list[RawBranch]:
    out = []
    for name in sorted(analysis.trees):
        tree = analysis.trees[name]
        unit = analysis.units.get(name, 1)
        for branch in tree.shared_branches(top=top, min_depth=min_depth):
            ids = tree.path_ids(branch.node)
            out.append(RawBranch(name, unit, branch.prefix_tokens, branch.requests,
                                 tuple(ids[:256]), tuple(ids[-64:])))
    return out


def served(cached: int, prompt_tokens: int, page: int) -> int:
    """What the engine serves of a request's ``cached`` prefix tokens: never its last prompt
    token (SGLang and vLLM recompute it for the logits, REFERENCE.md §1.3), in whole pages."""
    return min(cached, max(0, prompt_tokens - 1) // page * page)


def top_branches(analysis: Analysis, decode, top: int = 5) -> list[BranchInfo]:
    """The shared branches that save the most tokens, across namespaces and partitions."""
    raws = raw_branches(analysis, top) + list(analysis.extra_branches)
    raws.sort(key=lambda b: (-b.tokens_saved, b.namespace, -b.prefix_ids, b.head))
    found: list[BranchInfo] = []
    for b in raws[:top]:
        if b.unit == 1:
            preview, ends_with = _previews(decode(list(b.head)), decode(list(b.tail)))
        else:
            preview = f"hash blocks {b.head[0]} .. {b.tail[-1]} ({b.prefix_ids} blocks)"
            ends_with = f"block {b.tail[-1]}"
        found.append(BranchInfo(b.namespace, b.prefix_ids * b.unit, b.requests, preview, ends_with))
    return found


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
