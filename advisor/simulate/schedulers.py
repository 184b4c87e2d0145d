"""Scheduling policies: the order a waiting queue is admitted in (REFERENCE.md §1.6).

``order_waiting`` sorts a serving engine's waiting list each round, as SGLang's
``SchedulePolicy.calc_priority`` does:

- ``fcfs``: arrival order.
- ``lpm``: longest matched prefix first, a stable sort of the persistent list (ties keep
  last round's order); in-batch deprioritization (a request with little cached that
  shares 32+ tokens with a request ahead of it waits a round); above 128 waiting
  requests SGLang falls back to FCFS, which for a cache-aware policy means no sort that
  round (the queue keeps its last order, new arrivals at the end).
- ``dfs-weight``: weight of a tree node = waiting requests whose match ends in its
  subtree; walk depth first, heavier children first (stable), a node's own requests
  after its children's. No fallback.
- ``lof``: largest output first. ``random``: a seeded shuffle.

``offline_order`` is the same idea for a replay (one whole batch, one request at a
time): dfs-weight walks the batch's own radix tree; lpm sorts the batch
lexicographically, which is also a depth-first order (Theorem 3.1's "longest shared
prefix first").
"""

from __future__ import annotations

import random
import sys
from collections import defaultdict
from collections.abc import Sequence as SequenceOf
from operator import attrgetter

from advisor.index.radix import Node, RadixTree
from advisor.ingest.ids import ITEM
from advisor.simulate.pool import Pool
from advisor.simulate.model import Job

LPM_MAX_WAITING = 128  # above this many waiting, lpm does not sort (SGLang)
IN_BATCH_CHECK = 32  # IN_BATCH_PREFIX_CACHING_CHECK_THRESHOLD
IN_BATCH_DEPRIORITIZE = 32  # IN_BATCH_PREFIX_CACHING_DEPRIORITIZE_THRESHOLD


def order_waiting(policy: str, waiting: list[Job], pool: Pool, rng: random.Random) -> None:
    """Sort ``waiting`` in place into admission order (SGLang ``calc_priority``)."""
    if len(waiting) < 2:
        return
    if policy == "fcfs":
        waiting.sort(key=_INDEX)
        return
    if policy == "lpm":
        if len(waiting) > LPM_MAX_WAITING:
            return  # SGLang turns the sort off for the round: the queue keeps its order
        priority, _nodes = _prefix_matches(waiting, pool, demote=True)
        # Longest match first, the in-batch deprioritized last; a stable sort of positions
        # is the stable sort of the list.
        order = sorted(range(len(waiting)), key=priority.__getitem__)
        waiting[:] = [waiting[i] for i in order]
        return
    if policy == "dfs-weight":
        # The same matches (and LRU stamps); dfs-weight ignores in-batch demotion.
        _priority, nodes = _prefix_matches(waiting, pool, demote=False)
        waiting[:] = _dfs_weight(waiting, nodes, pool)
        return
    if policy == "lof":
        waiting.sort(key=lambda j: -j.output_len)
        return
    if policy == "random":
        rng.shuffle(waiting)
        return
    raise ValueError(f"unknown scheduling policy {policy!r}")


_INDEX = attrgetter("index")
_LATER = float("inf")  # the sort key of an in-batch deprioritized request


def _prefix_matches(waiting: list[Job], pool: Pool, demote: bool) -> tuple[list[float], list[object]]:
    """Each waiting request's match against the pool (stamping it, as SGLang's scheduler
    match does) as its lpm sort key (minus the matched tokens) and its last matched node,
    by position in ``waiting``; with ``demote``, the in-batch deprioritized ones get an
    infinite key: a request matching at most 32 tokens in the pool that shares at least
    32 with a request ahead of it waits this round, so one request of a group with a new
    prefix runs first and the rest hit its KV afterwards."""
    priority: list[float] = []
    nodes: list[object] = []
    ahead = _Ahead()
    locate = pool.locate
    for job in waiting:
        m, node = locate(job, True)
        nodes.append(node)
        hit = m * job.unit
        if hit > job.prompt_tokens:
            hit = job.prompt_tokens  # job.tokens_of(m), inlined
        if demote and hit <= IN_BATCH_CHECK and ahead.shares_else_add(job):
            priority.append(_LATER)
        else:
            priority.append(-hit)
    return priority, nodes


class _Ahead:
    """The requests of one round admitted ahead so far, for the in-batch check: does a
    request share at least ``IN_BATCH_DEPRIORITIZE`` tokens with one of them (the same
    namespace)? SGLang matches it against a radix tree of those requests; the longest
    common prefix reaches that many tokens exactly when the request's first
    ``ceil(IN_BATCH_DEPRIORITIZE / unit)`` ids are the first ids of one of them, so a set
    of those leading ids per namespace (and id count) answers the same question."""

    __slots__ = ("_keys", "_heads")

    def __init__(self) -> None:
        self._keys: dict[str, list[bytes]] = {}  # namespace -> keys added, in order
        self._heads: dict[str, dict[int, set[bytes]]] = {}  # namespace -> head bytes -> heads

    def shares_else_add(self, job: Job) -> bool:
        """True when ``job`` shares the threshold with a request added before; else add it."""
        key = job.key
        namespace = job.namespace
        # Bytes of leading ids whose match makes the threshold; a prompt shorter than it
        # never gets there (tokens_of caps a match at the prompt).
        size = -(-IN_BATCH_DEPRIORITIZE // job.unit) * ITEM if job.prompt_tokens >= IN_BATCH_DEPRIORITIZE else 0
        by_size = self._heads.get(namespace)
        if by_size is None:
            by_size = self._heads[namespace] = {}
        if size and len(key) >= size:
            heads = by_size.get(size)
            if heads is None:
                heads = by_size[size] = {k[:size] for k in self._keys.get(namespace, ()) if len(k) >= size}
            if key[:size] in heads:
                return True
        keys = self._keys.get(namespace)
        if keys is None:
            keys = self._keys[namespace] = []
        keys.append(key)
        for length, heads in by_size.items():
            if len(key) >= length:
                heads.add(key[:length])
        return False


def _dfs_weight(waiting: list[Job], nodes: list[object], pool: Pool) -> list[Job]:
    """SGLang's dfs-weight over the pool's tree, visiting only the matched paths.

    Walking up from each request's last matched node, stopping at a node already seen,
    builds the union of the paths in O(its size); children keep first-seen order (the
    stable sort over insertion order), weights are subtree sums of waiting requests.
    """
    own: dict[object, list[Job]] = {}
    children: dict[object, list[object]] = {}
    tops: list[object] = []
    for job, node in zip(waiting, nodes):
        bucket = own.get(node)
        if bucket is None:
            own[node] = [job]
        else:
            bucket.append(job)
        if node in children:
            continue  # already on the union (its own bucket, or an ancestor of one)
        children[node] = []
        child = node
        while True:
            up = pool.parent_of(child)
            if up is None:
                tops.append(child)
                break
            seen = up in children
            children.setdefault(up, []).append(child)
            if seen:
                break
            child = up
    weight: dict[object, int] = {}  # filled in post-order: children before parents
    stack: list[tuple[object, bool]] = [(t, False) for t in reversed(tops)]
    while stack:
        node, done = stack.pop()
        if done:
            weight[node] = len(own.get(node, ())) + sum(weight[c] for c in children[node])
            continue
        stack.append((node, True))
        stack.extend((c, False) for c in children[node])
    out: list[Job] = []
    walk: list[tuple[object, bool]] = [(t, False) for t in sorted(tops, key=lambda t: -weight[t])][::-1]
    while walk:
        node, expanded = walk.pop()
        if expanded:
            out.extend(own.get(node, ()))
            continue
        walk.append((node, True))
        kids = sorted(children[node], key=lambda k: -weight[k])
        walk.extend((k, False) for k in reversed(kids))
    return out


def offline_order(policy: str, jobs: SequenceOf[Job], seed: int = 0) -> list[int]:
    """The order a whole batch runs in under ``policy`` when requests go one at a time,
    as positions into ``jobs``. Holds the batch's radix tree (lpm, dfs-weight) and one
    int per request, never the requests themselves."""
    n = len(jobs)
    if policy == "fcfs":
        return list(range(n))
    if policy == "lpm":
        return _offline_walk(jobs, heaviest_first=False)
    if policy == "dfs-weight":
        return _offline_walk(jobs, heaviest_first=True)
    if policy == "lof":
        outs = [j.output_len for j in jobs]
        return sorted(range(n), key=lambda p: -outs[p])
    if policy == "random":
        out = list(range(n))
        random.Random(seed).shuffle(out)
        return out
    raise ValueError(f"unknown scheduling policy {policy!r}")


def _offline_walk(jobs: SequenceOf[Job], heaviest_first: bool) -> list[int]:
    """A depth-first walk of the batch's radix tree (one per namespace).

    ``heaviest_first`` (dfs-weight): weight = requests through a node, heavier children
    first, a node's own requests after its children's, busier namespaces first. Otherwise
    (lpm): the lexicographic order of the id sequences, that is children by their first id
    and a node's own requests before its children's (a prefix sorts first), namespaces by
    name; equal requests keep arrival order in both.
    """
    trees: dict[str, RadixTree] = {}
    ends: dict[int, list[int]] = defaultdict(list)
    for pos, job in enumerate(jobs):
        tree = trees.get(job.namespace)
        if tree is None:
            tree = trees[job.namespace] = RadixTree(1)
        node, _ = tree.insert_node(job.key)
        # A later insert can split this node, but the lower part keeps its identity,
        # and the request ends at the end of that lower part.
        ends[id(node)].append(pos)
    out: list[int] = []

    def requests_in(tree: RadixTree) -> int:
        return sum(k.count for k in (tree.root.children or {}).values())

    if heaviest_first:
        names = sorted(trees, key=lambda n: (-requests_in(trees[n]), n))
    else:
        names = sorted(trees)
    for name in names:
        stack: list[tuple[Node, bool]] = [(trees[name].root, False)]
        while stack:
            node, expanded = stack.pop()
            if expanded:
                out.extend(ends.get(id(node), ()))
                continue
            kids = list((node.children or {}).values())
            if heaviest_first:
                stack.append((node, True))
                kids.sort(key=lambda k: -k.count)
            else:
                out.extend(ends.get(id(node), ()))
                kids.sort(key=lambda k: int.from_bytes(k.key[:ITEM], sys.byteorder))
            for kid in reversed(kids):
                stack.append((kid, False))
    assert len(out) == len(jobs)
    return out
