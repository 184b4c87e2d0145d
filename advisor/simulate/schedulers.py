"""Scheduling policies: the order a waiting queue is admitted in (REFERENCE.md §1.6).

``order_waiting`` sorts a serving engine's waiting list each round, as SGLang's
``SchedulePolicy.calc_priority`` does:

- ``fcfs``: arrival order.
- ``lpm``: longest matched prefix first, a stable sort of the persistent list (ties keep
  last round's order); above 128 waiting requests SGLang falls back to FCFS.
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

LPM_MAX_WAITING = 128  # SGLang WAITING_QUEUE_PREFIX_MATCH_MAX


def order_waiting(policy: str, waiting: list[Job], pool: Pool, rng: random.Random) -> None:
    """Sort ``waiting`` in place into admission order."""
    if policy == "fcfs" or len(waiting) < 2:
        if policy == "fcfs":
            waiting.sort(key=lambda j: j.index)
        return
    if policy == "lpm":
        if len(waiting) > LPM_MAX_WAITING:
            waiting.sort(key=lambda j: j.index)
            return
        # SGLang's scheduler match stamps the tree (refreshing LRU) for each request.
        matched = {id(j): j.tokens_of(pool.peek(j, touch=True)) for j in waiting}
        waiting.sort(key=lambda j: -matched[id(j)])
        return
    if policy == "dfs-weight":
        waiting[:] = _dfs_weight(waiting, pool)
        return
    if policy == "lof":
        waiting.sort(key=lambda j: -j.output_len)
        return
    if policy == "random":
        rng.shuffle(waiting)
        return
    raise ValueError(f"unknown scheduling policy {policy!r}")


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
