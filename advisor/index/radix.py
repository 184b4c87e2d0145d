"""A compressed trie (radix tree) over token ids, with SGLang's prefix-cache semantics.

Every node holds one run of token ids packed as native unsigned 32-bit integers in a
``bytes`` object: four bytes a token, compared with C-level ``startswith`` instead of a
Python loop per token. Children are keyed by the bytes of their first page (the first
token when ``page_size == 1``), as SGLang's ``RadixCache`` keys them.

The tree only grows here. The simulator extends it with capacity: nodes already carry
``last_access``, ``lock_ref`` and a parent link, and ``evictable_leaves``/``remove_leaf``
give it SGLang's whole-leaf eviction (evict a leaf, re-offer a parent that became a leaf).
"""

from __future__ import annotations

import gc
from array import array
from dataclasses import dataclass
from typing import Iterator, Sequence

# The layout is ingest's (advisor.ingest.ids); pack/unpack/ITEM stay importable from here.
from advisor.ingest.ids import ITEM, pack, unpack

__all__ = ["COLLECT_TOKENS", "ITEM", "Branch", "Node", "RadixTree", "free_trees", "pack", "unpack"]

# A finished tree is freed by the cycle collector alone (its nodes point at their parents),
# at the collector's own pace, which lets several pile up. Collecting at once is a walk of the
# whole heap, though: worth it where the trees held this many tokens (some tens of MB of nodes
# and keys), not after every small tree (a test process of thousands of them spent minutes).
COLLECT_TOKENS = 1 << 20


def free_trees(tokens: int) -> None:
    """Collect the trees just let go of now, where they held ``tokens`` (at most) that matter."""
    if tokens >= COLLECT_TOKENS:
        gc.collect()


def _common_bytes(a: bytes, b: bytes, b_start: int, limit: int) -> int:
    """Length in bytes of the common prefix of ``a`` and ``b[b_start:]``, at most ``limit``.

    Binary search over C-level comparisons: O(log n) memcmp calls rather than a
    Python-level loop over every token.
    """
    lo, hi = 0, limit
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if b.startswith(a[lo:mid], b_start + lo):
            lo = mid
        else:
            hi = mid - 1
    return lo


class Node:
    """One run of tokens. ``count`` is how many inserted sequences passed through it."""

    __slots__ = ("key", "children", "parent", "count", "last_access", "lock_ref", "created", "changed")

    def __init__(self, key: bytes, parent: "Node | None", count: int = 0) -> None:
        self.key = key
        # None for a leaf: an empty dict per leaf would cost more than the leaf's tokens.
        self.children: dict[bytes, Node] | None = None
        self.parent = parent
        self.count = count
        self.last_access = 0.0
        self.lock_ref = 0
        # Creation stamp for FIFO eviction (SGLang counts a split-off prefix as new).
        self.created = 0.0
        # The tree's ``version`` when this node's key or children last changed.
        self.changed = 0

    @property
    def num_tokens(self) -> int:
        return len(self.key) // ITEM

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"Node(tokens={self.num_tokens}, count={self.count}, children={len(self.children or ())})"


@dataclass(frozen=True)
class Branch:
    """A shared prefix: the path from the root to the end of ``node``."""

    node: Node
    prefix_tokens: int
    requests: int


class RadixTree:
    """Prefix index over token-id sequences.

    ``insert`` returns the length already present (the prefix-cache hit of that request
    under unlimited capacity), rounded down to whole pages; only whole pages are stored,
    as SGLang stores them (the partial last page never enters the tree).
    """

    def __init__(self, page_size: int = 1, track_changes: bool = False) -> None:
        if page_size < 1:
            raise ValueError("page_size must be at least 1")
        self.page_size = page_size
        self._page_bytes = page_size * ITEM
        self.root = Node(b"", None)
        self.root.children = {}
        self.root.lock_ref = 1  # the root is never evicted
        self.total_tokens = 0
        self.num_nodes = 1
        self.clock = 0.0
        # Counts changes of shape (a node added, split or removed), each stamped on the
        # nodes whose key or children it changed (``Node.changed``). A walk (``match_prefix``
        # without a split) reads nothing else, so while none of the nodes it read (the
        # root and every node walked) has changed since, walking again would give the same
        # match: a caller may keep the walk instead. Only the simulator's trees stamp their
        # nodes (``track_changes``): an analysis tree's nodes keep one shared 0, no int each.
        self.version = 0
        self.track_changes = track_changes

    # --- lookups -------------------------------------------------------------------------

    def _packed(self, ids: Sequence[int] | array | bytes) -> bytes:
        data = ids if isinstance(ids, (bytes, bytearray)) else pack(ids)
        usable = len(data) - len(data) % self._page_bytes
        return bytes(data[:usable]) if usable != len(data) else bytes(data)

    def match(self, ids: Sequence[int] | array | bytes, touch: bool = False) -> int:
        """Matched length in tokens (whole pages), without changing the tree."""
        node, matched = self.match_node(ids, touch=touch)
        return matched

    def match_node(self, ids: Sequence[int] | array | bytes, touch: bool = False) -> tuple[Node, int]:
        """The deepest node fully matched and the matched length in tokens.

        A partial match inside a node counts its page-aligned common part, as SGLang
        counts it (SGLang splits the node there; a read-only match need not).
        """
        node, matched, _ = self.match_prefix(ids, split=False, stamp=touch)
        return node, matched

    # --- growth --------------------------------------------------------------------------

    def insert(self, ids: Sequence[int] | array | bytes) -> int:
        """Insert a sequence; return the tokens of it already present (whole pages)."""
        return self.insert_node(ids)[1]

    def insert_node(self, ids: Sequence[int] | array | bytes) -> tuple[Node, int]:
        """Insert a sequence; return its last node and the tokens already present."""
        pb = self._page_bytes
        key = ids if type(ids) is bytes and len(ids) % pb == 0 else self._packed(ids)
        node = self.root
        pos = 0
        n = len(key)
        now = self.clock
        while pos < n:
            children = node.children
            first = key[pos : pos + pb]
            child = children.get(first) if children is not None else None
            if child is None:
                break
            ck = child.key
            if key.startswith(ck, pos):
                child.count += 1
                child.last_access = now
                pos += len(ck)
                node = child
                continue
            common = _common_bytes(ck, key, pos, min(len(ck), n - pos))
            common -= common % pb
            # A page-keyed child always shares at least its first page; split after it.
            mid = self._split(child, common)
            mid.count += 1
            mid.last_access = now
            pos += common
            node = mid
            break
        matched = pos // ITEM
        if pos < n:
            leaf = Node(key[pos:], node, 1)
            leaf.last_access = now
            leaf.created = now
            if node.children is None:
                node.children = {}
            node.children[key[pos : pos + pb]] = leaf
            self.total_tokens += (n - pos) // ITEM
            self.num_nodes += 1
            if self.track_changes:
                self.version += 1
                node.changed = self.version
            node = leaf
        return node, matched

    def _split(self, child: Node, at: int) -> Node:
        """Cut ``child`` after ``at`` bytes; the new upper node takes the shared part."""
        parent = child.parent
        assert parent is not None and parent.children is not None
        ck = child.key
        mid = Node(ck[:at], parent, child.count)
        mid.last_access = child.last_access
        mid.lock_ref = child.lock_ref
        mid.created = self.clock
        parent.children[ck[: self._page_bytes]] = mid
        child.key = ck[at:]
        child.parent = mid
        mid.children = {child.key[: self._page_bytes]: child}
        self.num_nodes += 1
        if self.track_changes:
            self.version += 1
            parent.changed = child.changed = mid.changed = self.version
        return mid

    # --- removal (used by the simulator's eviction) ---------------------------------------

    def remove_leaf(self, leaf: Node) -> int:
        """Drop a leaf; return its token count. The caller checks it is unlocked."""
        parent = leaf.parent
        if parent is None or leaf.children:
            raise ValueError("only a non-root leaf can be removed")
        assert parent.children is not None
        del parent.children[leaf.key[: self._page_bytes]]
        if not parent.children and parent is not self.root:
            parent.children = None
        self.total_tokens -= leaf.num_tokens
        self.num_nodes -= 1
        if self.track_changes:
            self.version += 1
            parent.changed = leaf.changed = self.version
        leaf.parent = None
        return leaf.num_tokens

    # --- capacity support (used by the simulator; analyze never calls these) -------------

    def match_prefix(self, ids: Sequence[int] | array | bytes, split: bool = True,
                     stamp: bool = True, path: list[Node] | None = None) -> tuple[Node, int, Node | None]:
        """SGLang's ``match_prefix``: the matched length, stamping the path with ``clock``.

        Unlike ``match_node`` this splits a partially matched node (``split=True``) so the
        returned node ends exactly where the match ends and can be locked; SGLang splits
        there too. Every node walked, including the split one, gets the new access time.
        The third value is the leaf whose access time changed, if any, so a caller keeping
        a heap of evictable leaves can re-offer it with its new priority. ``path``, when
        given, receives every node walked (the ones a stamp sets), in order.
        """
        pb = self._page_bytes
        # The simulator passes whole pages of packed ids: no copy to make (``_packed``).
        key = ids if type(ids) is bytes and len(ids) % pb == 0 else self._packed(ids)
        node = self.root
        pos = 0
        n = len(key)
        now = self.clock
        touched: Node | None = None
        startswith = key.startswith
        while pos < n:
            children = node.children
            child = children.get(key[pos : pos + pb]) if children else None
            if child is None:
                break
            ck = child.key
            if stamp:
                child.last_access = now
            if path is not None:
                path.append(child)
            if startswith(ck, pos):
                pos += len(ck)
                node = child
                continue
            common = _common_bytes(ck, key, pos, min(len(ck), n - pos))
            common -= common % pb
            if not child.children:
                touched = child
            if common and split:
                node = self._split(child, common)
                if stamp:
                    node.last_access = now
            pos += common
            break
        if touched is None and not node.children and node is not self.root:
            touched = node
        return node, pos // ITEM, touched

    def lock(self, node: Node) -> None:
        """Protect the path from ``node`` to the root from eviction (SGLang ``inc_lock_ref``)."""
        while node is not None and node is not self.root:
            node.lock_ref += 1
            node = node.parent  # type: ignore[assignment]

    def unlock(self, node: Node) -> None:
        """Undo one ``lock`` of the same node."""
        while node is not None and node is not self.root:
            node.lock_ref -= 1
            node = node.parent  # type: ignore[assignment]

    def depth_of(self, node: Node) -> int:
        """Tokens on the path from the root to the end of ``node``."""
        depth = 0
        while node is not None and node is not self.root:
            depth += len(node.key)
            node = node.parent  # type: ignore[assignment]
        return depth // ITEM

    # --- inspection ----------------------------------------------------------------------

    def nodes(self) -> Iterator[tuple[Node, int]]:
        """Every node but the root with its depth in tokens at its end, in a stable order."""
        stack: list[tuple[Node, int]] = [(self.root, 0)]
        while stack:
            node, depth = stack.pop()
            if node is not self.root:
                yield node, depth
            if node.children:
                for key in sorted(node.children, reverse=True):
                    child = node.children[key]
                    stack.append((child, depth + child.num_tokens))

    def leaves(self) -> Iterator[Node]:
        for node, _ in self.nodes():
            if not node.children:
                yield node

    def path_ids(self, node: Node, limit: int | None = None) -> list[int]:
        """Token ids from the root to the end of ``node`` (the first ``limit`` of them)."""
        parts: list[bytes] = []
        while node is not None and node is not self.root:
            parts.append(node.key)
            node = node.parent  # type: ignore[assignment]
        data = b"".join(reversed(parts))
        if limit is not None:
            data = data[: limit * ITEM]
        return unpack(data)

    def shared_branches(self, top: int = 10, min_requests: int = 2, min_depth: int = 0) -> list[Branch]:
        """The branches whose sharing saves the most tokens: (requests - 1) x prefix length.

        A branch is reported at the end of a node, where traffic through it diverges; a
        node whose whole subtree is one chain of the same requests is reported once, at its
        deepest point, so nested duplicates do not crowd the list.
        """
        candidates: list[tuple[int, int, int, Node]] = []
        for order, (node, depth) in enumerate(self.nodes()):
            if node.count < min_requests or depth <= min_depth:
                continue
            candidates.append(((node.count - 1) * depth, order, depth, node))
        candidates.sort(key=lambda c: (-c[0], c[1]))
        chosen: list[Branch] = []
        for _, _, depth, node in candidates:
            if len(chosen) >= top:
                break
            # Skip an ancestor whose sharing is the same requests as a chosen descendant's.
            if any(_is_ancestor(node, b.node) and b.requests == node.count for b in chosen):
                continue
            chosen.append(Branch(node=node, prefix_tokens=depth, requests=node.count))
        return chosen

    def tokens_below(self, depth_limit: int) -> int:
        """Tokens stored deeper than ``depth_limit`` from the root."""
        total = 0
        for node, depth in self.nodes():
            start = depth - node.num_tokens
            total += max(0, depth - max(depth_limit, start))
        return total

    def memory_bytes(self) -> int:
        """Approximate resident bytes of the tree: node objects, runs and child dicts."""
        import sys

        total = 0
        stack = [self.root]
        while stack:
            node = stack.pop()
            total += sys.getsizeof(node) + sys.getsizeof(node.key)
            if node.children is not None:
                total += sys.getsizeof(node.children)
                for key, child in node.children.items():
                    # Keys are slices of the child's run: their own small bytes objects.
                    total += sys.getsizeof(key)
                    stack.append(child)
        return total


def _is_ancestor(upper: Node, lower: Node) -> bool:
    node: Node | None = lower.parent
    while node is not None:
        if node is upper:
            return True
        node = node.parent
    return False
