"""SGLang's pool: a radix tree with capacity, evicting whole unlocked leaves.

REFERENCE.md §1.3-§1.5. A match splits a partially matched node and stamps every node
it walks; a request locks its matched node (and later its own leaf) up to the root;
eviction is lazy (only the shortfall of an allocation is asked for) but frees whole
leaves, so it overshoots; a parent that becomes an unlocked leaf is re-offered.

The heap of evictable leaves is kept across calls (SGLang rebuilds it per call, which is
O(leaves) each time): entries carry the priority they were pushed with and are checked
on pop, so a stale entry (node gone, no longer a leaf, locked, or re-stamped since) is
dropped and the node's fresh entry, pushed when it was re-stamped, decides instead.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from typing import Callable, Hashable, TypeGuard

from advisor.index.radix import Node, RadixTree
from advisor.ingest.ids import ITEM
from advisor.simulate.pool import Lease
from advisor.simulate.model import HitRules, Job

# Priority of a leaf, smallest evicted first (SGLang mem_cache/evict_policy.py).
PRIORITIES: dict[str, Callable[[Node], object]] = {
    "lru": lambda n: n.last_access,
    "lfu": lambda n: (n.count, n.last_access),
    "fifo": lambda n: n.created,
}


# A job's kept walk of a tree: the tree, its version then, the match (node, matched ids,
# touched leaf: ``RadixTree.match_prefix``) and the nodes walked.
Walk = tuple[RadixTree, int, Node, int, Node | None, list[Node]]


def _still_walks(walked: Walk | None, tree: RadixTree) -> TypeGuard[Walk]:
    """Whether a job's kept walk (``BranchPool._walk_key``) is the walk of ``tree`` now: none
    of the nodes it read (the root, every node walked) changed key or children since."""
    if walked is None or walked[0] is not tree:
        return False
    version = walked[1]
    if tree.root.changed > version:
        return False
    for node in walked[5]:
        if node.changed > version:
            return False
    return True


@dataclass(eq=False)
class BranchLease(Lease):
    """The tree the request is in and the node it holds locked (its match, then its leaf)."""

    tree: RadixTree | None = None
    node: Node | None = None


class BranchPool:
    """Whole-leaf eviction over one radix tree per namespace, one shared capacity."""

    def __init__(self, capacity: int | None, rules: HitRules, priority: str = "lru") -> None:
        self.capacity = capacity
        self.rules = rules
        self.priority = priority
        self._key = PRIORITIES[priority]
        self.refreshes_waiting = priority == "lru"
        self.trees: dict[str, RadixTree] = {}
        self._units: dict[int, int] = {}  # id(tree) -> tokens per tree element
        self.tree_tokens = 0  # tokens stored in the trees
        self.reserved = 0  # tokens allocated to running requests outside the trees
        self.evicted_tokens = 0
        self.clock = 0
        self._heap: list[tuple] = []
        self._seq = 0
        # The job memo's key of ``_limit``: equal rules share it (a tuple of a str and an
        # int hashes in C, where the frozen dataclass's hash is a Python call per lookup).
        self._memo_key = ("limit", rules.engine, rules.page)
        # The job memo's key of the job's last walk in this pool (a ``Walk``, by ``locate``).
        self._walk_key = ("walk", id(self))

    # --- helpers -------------------------------------------------------------------------

    def _tree(self, job: Job) -> RadixTree:
        tree = self.trees.get(job.namespace)
        if tree is None:
            # Token traffic is paged (SGLang page_size); a hash id is one whole block.
            tree = RadixTree(self.rules.page if job.unit == 1 else 1, track_changes=True)
            self.trees[job.namespace] = tree
            self._units[id(tree)] = job.unit
        self.clock += 1
        tree.clock = self.clock
        return tree

    def _offer(self, node: Node | None, tree: RadixTree) -> None:
        """Push a node if it is an evictable leaf now; a later re-stamp pushes it again.
        An unlimited pool never evicts, so it keeps no heap."""
        if node is None or self.capacity is None or node.children or node.lock_ref or node.parent is None:
            return
        self._seq += 1
        heapq.heappush(self._heap, (self._key(node), self._seq, node, tree))

    def used_tokens(self) -> int:
        return self.tree_tokens + self.reserved

    def _limit(self, job: Job) -> bytes:
        """The ids a lookup may match (the hit cap applied), computed once per job and rules."""
        got = job.memo.get(self._memo_key)
        if got is None:
            got = job.memo[self._memo_key] = job.key[: self.rules.limit_elements(job) * ITEM]
        return got

    # --- lookups -------------------------------------------------------------------------

    def peek(self, job: Job, touch: bool = False) -> int:
        """Matched ids; ``touch`` stamps the path as a scheduler's match does in SGLang."""
        return self.locate(job, touch)[0]

    def locate(self, job: Job, touch: bool = True) -> tuple[int, object]:
        """Matched ids and the deepest fully matched node (a scheduler's ``last_node``)."""
        tree = self.trees.get(job.namespace)
        if tree is None:
            return 0, job.namespace
        if touch:
            self.clock += 1
            tree.clock = self.clock
        # A scheduler matches every waiting request each round, mostly along paths that have
        # not changed shape since (``RadixTree.version``): then the walk would visit the same
        # nodes, so only their stamps are redone.
        walked = job.memo.get(self._walk_key)
        if _still_walks(walked, tree):
            _, _, node, matched, touched, path = walked
            if touch:
                now = tree.clock
                for n in path:
                    n.last_access = now
        else:
            path = []
            node, matched, touched = tree.match_prefix(self._limit(job), False, touch, path)
            job.memo[self._walk_key] = (tree, tree.version, node, matched, touched, path)
        if touch and touched is not None:
            self._offer(touched, tree)
        return matched, (job.namespace if node is tree.root else node)

    def parent_of(self, key: Hashable) -> Hashable | None:
        """The node above ``key`` for dfs-weight; a namespace name stands for a root."""
        if isinstance(key, str):
            return None
        assert isinstance(key, Node), key
        parent = key.parent
        if parent is None or parent.parent is None:  # the root: its namespace name
            for name, tree in self.trees.items():
                if tree.root is parent:
                    return name
            return None
        return parent

    # --- life cycle ----------------------------------------------------------------------

    def acquire(self, job: Job, reserve: int = 0, force: bool = False) -> BranchLease | None:
        tree = self._tree(job)
        walked = job.memo.get(self._walk_key)
        if _still_walks(walked, tree) and (not walked[5] or walked[5][-1] is walked[2]):
            # The scheduler's walk still holds and ends on a node boundary, where SGLang's
            # match splits nothing: the same match, so only the stamps are redone.
            _, _, node, matched, touched, path = walked
            now = tree.clock
            for n in path:
                n.last_access = now
        else:
            node, matched, touched = tree.match_prefix(self._limit(job))
        self._offer(touched, tree)
        unit = self._units[id(tree)]
        cached = self.rules.hit(job, matched)
        # SGLang allocates KV for every token it computes: the uncached rest of the prompt.
        if unit == 1:
            need = job.prompt_tokens - matched
        else:
            need = (job.elements - matched) * unit
        need += reserve
        tree.lock(node)
        if self.capacity is not None:
            short = self.tree_tokens + self.reserved + need - self.capacity
            if short > 0:
                self.evict(short)
                short = self.tree_tokens + self.reserved + need - self.capacity
                if short > 0 and not force:
                    tree.unlock(node)
                    self._offer(node, tree)
                    return None
        lease = BranchLease(job, matched, cached, 0, tree, node)
        # Never hold more than the pool has: a forced request too long for the pool keeps
        # only the prefix that fits (its insert is cut in ``commit``).
        if self.capacity is not None:
            need = max(0, min(need, self.capacity - self.tree_tokens - self.reserved))
        lease.reserved = need
        self.reserved += need
        return lease

    def commit(self, lease: Lease) -> None:
        """Insert the prompt's whole pages; the request now holds its own leaf."""
        assert isinstance(lease, BranchLease) and lease.tree is not None and lease.node is not None
        tree = lease.tree
        job = lease.job
        unit = self._units[id(tree)]
        key = job.key
        if self.capacity is not None:
            # What fits: the locked prefix plus the tokens this request was allotted.
            room_ids = lease.reserved // unit if unit > 1 else lease.reserved
            key = key[: (lease.matched + room_ids) * ITEM]
        self.clock += 1
        tree.clock = self.clock
        before = tree.total_tokens
        leaf, _ = tree.insert_node(key)
        added = (tree.total_tokens - before) * unit
        self.tree_tokens += added
        took = min(added, lease.reserved)
        lease.reserved -= took
        self.reserved -= took
        old = lease.node
        tree.lock(leaf)
        tree.unlock(old)
        self._offer(old, tree)
        lease.node = leaf

    def release(self, lease: Lease) -> None:
        assert isinstance(lease, BranchLease) and lease.tree is not None and lease.node is not None
        tree, node = lease.tree, lease.node
        tree.unlock(node)
        self._offer(node, tree)
        self.reserved -= lease.reserved
        lease.reserved = 0

    def pin(self, namespace: str, key: bytes) -> None:
        """Lock the prefix ``key`` of ``namespace`` for good, so eviction never takes it
        (a serving engine's pinned or priority prefix). Inserting it splits the tree
        exactly at its end, so the lock covers the prefix and nothing after it."""
        tree = self.trees.get(namespace)
        if tree is None:
            raise KeyError(f"no request of namespace {namespace!r} is in the pool yet")
        before = tree.total_tokens
        node, _ = tree.insert_node(key)
        self.tree_tokens += (tree.total_tokens - before) * self._units[id(tree)]
        tree.lock(node)

    # --- eviction ------------------------------------------------------------------------

    def evict(self, tokens: int) -> int:
        """Free at least ``tokens`` by whole leaves, least priority first; return freed."""
        heap = self._heap
        key = self._key
        freed = 0
        while freed < tokens and heap:
            prio, _seq, node, tree = heapq.heappop(heap)
            parent = node.parent
            if parent is None or node.children or node.lock_ref or key(node) != prio:
                continue  # stale entry
            freed += tree.remove_leaf(node) * self._units[id(tree)]
            if parent is not tree.root and not parent.children and not parent.lock_ref:
                self._offer(parent, tree)
        self.tree_tokens -= freed
        self.evicted_tokens += freed
        if len(heap) > 4 * sum(t.num_nodes for t in self.trees.values()) + 4096:
            self._compact()
        return freed

    def _compact(self) -> None:
        """Rebuild the heap from the live evictable leaves (drops stale entries)."""
        self._heap = []
        for tree in self.trees.values():
            for leaf in tree.leaves():
                self._offer(leaf, tree)
