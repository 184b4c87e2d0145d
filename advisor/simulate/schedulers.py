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
from collections import defaultdict

from advisor.radix import Node, RadixTree
from advisor.simulate.cache import Pool
from advisor.simulate.model import Job

LPM_MAX_WAITING = 128  # above this many waiting, lpm does not sort (SGLang)
IN_BATCH_CHECK = 32  # IN_BATCH_PREFIX_CACHING_CHECK_THRESHOLD
IN_BATCH_DEPRIORITIZE = 32  # IN_BATCH_PREFIX_CACHING_DEPRIORITIZE_THRESHOLD


def order_waiting(policy: str, waiting: list[Job], pool: Pool, rng: random.Random) -> None:
    """Sort ``waiting`` in place into admission order (SGLang ``calc_priority``)."""
    if len(waiting) < 2:
        return
    if policy == "fcfs":
        waiting.sort(key=lambda j: j.index)
        return
    if policy == "lpm":
        if len(waiting) > LPM_MAX_WAITING:
            return  # SGLang turns the sort off for the round: the queue keeps its order
        matched, later = _prefix_matches(waiting, pool)
        waiting.sort(key=lambda j: float("inf") if id(j) in later else -matched[id(j)])
        return
    if policy == "dfs-weight":
        _prefix_matches(waiting, pool)  # the same matches (and LRU stamps); no demotion
        waiting[:] = _dfs_weight(waiting, pool)
        return
    if policy == "lof":
        waiting.sort(key=lambda j: -j.output_len)
        return
    if policy == "random":
        rng.shuffle(waiting)
        return
    raise ValueError(f"unknown scheduling policy {policy!r}")


def _prefix_matches(waiting: list[Job], pool: Pool) -> tuple[dict[int, int], set[int]]:
    """Each waiting request's match against the pool (stamping it, as SGLang's scheduler
    match does), and the in-batch deprioritized ones: a request matching at most 32
    tokens in the pool that shares at least 32 with a request ahead of it waits this
    round, so one request of a group with a new prefix runs first and the rest hit its
    KV afterwards."""
    matched: dict[int, int] = {}
    later: set[int] = set()
    ahead: dict[str, RadixTree] = {}
    for job in waiting:
        hit = job.tokens_of(pool.peek(job, touch=True))
        matched[id(job)] = hit
        if hit > IN_BATCH_CHECK:
            continue
        tree = ahead.get(job.namespace)
        if tree is None:
            tree = ahead[job.namespace] = RadixTree(1)
        if job.tokens_of(tree.match(job.key)) >= IN_BATCH_DEPRIORITIZE:
            later.add(id(job))
        else:
            tree.insert(job.key)
    return matched, later


def _dfs_weight(waiting: list[Job], pool: Pool) -> list[Job]:
    # A trie of the matched paths: children in first-seen order, as SGLang's stable
    # sort over children in insertion order.
    children: dict[tuple, list[tuple]] = defaultdict(list)
    own: dict[tuple, list[Job]] = defaultdict(list)
    weight: dict[tuple, int] = defaultdict(int)
    root: tuple = ()
    for job in waiting:
        path = pool.path(job)
        own[path].append(job)
        for depth in range(len(path) + 1):
            prefix = path[:depth]
            if prefix not in weight and depth:
                children[path[: depth - 1]].append(prefix)
            weight[prefix] += 1
    out: list[Job] = []
    stack: list[tuple[tuple, bool]] = [(root, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            out.extend(own.get(node, ()))
            continue
        stack.append((node, True))
        kids = sorted(children.get(node, ()), key=lambda k: -weight[k])
        for kid in reversed(kids):
            stack.append((kid, False))
    return out


def offline_order(policy: str, jobs: list[Job], seed: int = 0) -> list[Job]:
    """The order a whole batch runs in under ``policy`` when requests go one at a time."""
    if policy == "fcfs":
        return list(jobs)
    if policy == "lpm":
        return sorted(jobs, key=lambda j: (j.namespace, memoryview(j.key).cast("I").tolist()))
    if policy == "dfs-weight":
        return _offline_dfs(jobs)
    if policy == "lof":
        return sorted(jobs, key=lambda j: -j.output_len)
    if policy == "random":
        out = list(jobs)
        random.Random(seed).shuffle(out)
        return out
    raise ValueError(f"unknown scheduling policy {policy!r}")


def _offline_dfs(jobs: list[Job]) -> list[Job]:
    """dfs-weight over the batch's radix tree: weight = requests through a node."""
    trees: dict[str, RadixTree] = {}
    ends: dict[int, list[Job]] = defaultdict(list)
    for job in jobs:
        tree = trees.get(job.namespace)
        if tree is None:
            tree = trees[job.namespace] = RadixTree(1)
        node, _ = tree.insert_node(job.key)
        if node is tree.root:
            ends[id(tree.root)].append(job)
            continue
        # A later insert can split this node, but the lower part keeps its identity,
        # and the request ends at the end of that lower part.
        ends[id(node)].append(job)
    out: list[Job] = []
    def requests_in(tree: RadixTree) -> int:
        return sum(k.count for k in (tree.root.children or {}).values())

    for name in sorted(trees, key=lambda n: (-requests_in(trees[n]), n)):
        tree = trees[name]
        stack: list[tuple[Node, bool]] = [(tree.root, False)]
        while stack:
            node, expanded = stack.pop()
            if expanded:
                out.extend(ends.get(id(node), ()))
                continue
            stack.append((node, True))
            kids = list((node.children or {}).values())
            kids.sort(key=lambda k: -k.count)
            for kid in reversed(kids):
                stack.append((kid, False))
    assert len(out) == len(jobs)
    return out
