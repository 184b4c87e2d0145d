"""SGLang 0.5.23's unified radix tree on a hybrid model: which prefix a request reuses.

SGLang keeps one radix tree for all of a hybrid model's layer kinds
(``mem_cache/unified_radix_cache.py``, ``unified_tree_core.py``); each node carries one value
per component: the full-attention KV (always present here: the pool is unlimited), the
sliding-window KV (``components/swa.py``: live, or a tombstone once freed) and, on Mamba
hybrids, a state at the node's end (``components/mamba.py``). A match walks the tree along
the prompt and ends on the deepest node end where every component accepts:

- SWA: a tombstone fails and restarts the live run; a live node adds its length, and passes
  once the run since the last tombstone reaches the tree's window (a path with no tombstone
  passes everywhere: the run starts unbounded), ``create_match_validator`` l.357-377;
- Mamba: the node holds a state, l.151-162.

Only node ends are candidates, and nodes are split where a match or an insert diverges, so the
tree's shape (what earlier requests matched and inserted) decides where a hit may end. That is
why this is a tree of nodes and not a set of positions.

A request's life (``schedule_batch.py`` l.3137-3240, ``checkpoint_into_tree`` l.1164-1330,
``common.py`` l.75-138 and l.400-444): match; a Mamba hybrid tracks one state during the
prefill (at the junction with the tree, else on the checkpoint grid); after the prefill the
scheduler checkpoints the request into the tree (unfinished) and again when it finishes. Each
checkpoint inserts the prompt up to the components' common length (SWA: up to the junction,
when the request diverged below what the tree held; Mamba ``extra_buffer``: up to the tracked
state, nothing without one; ``no_buffer``: the whole prompt) and, unfinished, first frees the
request's sliding-window slots older than the window before that length (its cursor), which
become tombstones where they enter the tree. The output is not inserted; decode moves nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from advisor.ingest.ids import ITEM


class _Node:
    __slots__ = ("key", "children", "parent", "swa", "state")

    def __init__(self, key: bytes, parent: "_Node | None") -> None:
        self.key = key  # packed token ids, a whole number of pages
        self.children: dict[bytes, _Node] = {}
        self.parent = parent
        self.swa = False  # the sliding-window KV is live (False: a tombstone)
        self.state = False  # a Mamba state at this node's end


@dataclass
class _Request:
    """The per-request cursors SGLang keeps on ``req.kv`` while the request runs."""

    prompt_tokens: int
    protected: int  # cache_protected_len: the tree owns the prefix below it
    cursor: int = 0  # the SWA eviction cursor: slots below it are freed
    junction: int | None = None  # swa_branching_seqlen
    track: int | None = None  # mamba_last_track_seqlen


def _round_up(tokens: int, page: int) -> int:
    return -(-tokens // page) * page


def _common(a: bytes, b: bytes, start: int, step: int) -> int:
    """Bytes of ``a`` equal to ``b[start:]`` from the start, in whole steps (pages)."""
    limit = min(len(a), len(b) - start)
    lo, hi = 0, limit // step
    while lo < hi:  # binary search over whole pages, each test one C-level comparison
        mid = (lo + hi + 1) // 2
        if b.startswith(a[: mid * step], start):
            lo = mid
        else:
            hi = mid - 1
    return lo * step


class UnifiedTree:
    """The tree of one namespace, under an unlimited pool.

    ``window``: the tree's sliding window (SGLang's ``sliding_window_size``, the model's window
    less one for Gemma and gpt-oss), None without sliding layers. ``states``: a Mamba hybrid,
    tracking its state on ``grid`` (``extra_buffer``) or after the whole prompt (``no_buffer``).
    """

    def __init__(self, page: int, window: int | None, states: bool, strategy: str = "extra_buffer",
                 grid: int = 0) -> None:
        self.page = page
        self.step = page * ITEM
        self.window = window
        self.states = states
        self.extra_buffer = states and strategy == "extra_buffer"
        self.grid = grid
        self.root = _Node(b"", None)
        self.root.swa = True

    # -- the tree ----------------------------------------------------------------------------

    def _split(self, node: _Node, at: int) -> _Node:
        """A new parent takes the first ``at`` bytes; both halves keep the node's SWA value
        (``swa.py`` l.626-692) and its state stays with the lower half (``mamba.py`` l.322-332)."""
        parent = node.parent
        assert parent is not None
        top = _Node(node.key[:at], parent)
        top.swa = node.swa
        node.key = node.key[at:]
        node.parent = top
        top.children[node.key[: self.step]] = node
        parent.children[top.key[: self.step]] = top
        return top

    def match(self, ids: bytes, limit: int) -> tuple[int, int]:
        """(hit, tokens of the prompt the tree holds) for the prompt's first ``limit`` tokens;
        splits the node where the prompt leaves it, as SGLang's match does."""
        key = ids[: limit // self.page * self.step]
        node, off, best, run = self.root, 0, 0, float("inf")
        while off < len(key):
            child = node.children.get(key[off: off + self.step])
            if child is None:
                break
            n = _common(child.key, key, off, self.step)
            node = self._split(child, n) if n < len(child.key) else child
            off += n
            ok = True
            if self.window is not None:
                run = run + len(node.key) // ITEM if node.swa else 0
                ok = node.swa and run >= self.window
            if ok and (not self.states or node.state):
                best = off
            if node is not child:
                break  # the prompt left the tree inside this node
        return best // ITEM, off // ITEM

    def _insert(self, ids: bytes, length: int, owned: int, cursor: int) -> None:
        """Insert the prompt's first ``length`` tokens (``unified_tree_core.py`` l.1129-1465):
        the part beyond what the request already owned revives tombstones from its cursor up;
        a new leaf is a tombstone below the cursor and holds at most one page-rounded window
        live (``swa.py`` l.434-624); a Mamba hybrid leaves its state at the end."""
        key = ids[: length // self.page * self.step]
        if not key:
            return
        node, off = self.root, 0
        while off < len(key):
            child = node.children.get(key[off: off + self.step])
            if child is None:
                break
            n = _common(child.key, key, off, self.step)
            if n < len(child.key):
                child = self._split(child, n)
            if self.window is not None and owned < (off + n) // ITEM and not child.swa:
                live = max(off // ITEM, cursor)
                if live < (off + n) // ITEM:
                    if live > off // ITEM:
                        self._split(child, (live - off // ITEM) * ITEM)  # the older part stays a tombstone
                    child.swa = True
            node, off = child, off + n
        target = node
        if off < len(key):
            target = _Node(key[off:], node)
            node.children[target.key[: self.step]] = target
            if self.window is not None:
                self._new_leaf(target, off // ITEM, cursor)
        if self.states and target is not self.root:
            target.state = True

    def _new_leaf(self, leaf: _Node, start: int, cursor: int) -> None:
        assert self.window is not None
        end = start + len(leaf.key) // ITEM
        live = max(start, cursor)
        if live >= end:
            return  # wholly below the cursor: a tombstone
        if live > start:
            self._split(leaf, (live - start) * ITEM)
        tail = _round_up(self.window, self.page)
        if len(leaf.key) // ITEM > tail:
            self._split(leaf, len(leaf.key) - tail * ITEM).swa = True
        leaf.swa = True

    # -- one request -------------------------------------------------------------------------

    def serve(self, ids: bytes, prompt_tokens: int, limit: int) -> tuple[int, tuple[int, ...]]:
        """Match a prompt (at most ``limit`` tokens: the engine matches at most ``L - 1``, a
        finite pool may hold less), run it through its checkpoints; return the hit and the
        lengths inserted."""
        hit, held = self.match(ids, limit)
        req = _Request(prompt_tokens, hit)
        if self.window is not None and held > hit:
            req.junction = held  # swa.py l.389-395
        if self.extra_buffer and prompt_tokens - hit >= self.grid:
            req.track = hit + (prompt_tokens - hit) // self.grid * self.grid
            branch = held // self.grid * self.grid  # mamba.py l.164-194: one state per extend
            if hit < branch and (branch - hit) % self.grid == 0:
                req.track = branch
        stored = tuple(e for finished in (False, True) if (e := self._checkpoint(ids, req, finished)))
        return hit, stored

    def _length(self, req: _Request) -> int:
        """The components' common insert length (``unified_radix_cache.py`` l.1187-1202)."""
        length = req.prompt_tokens
        if self.window is not None and not self.states and req.junction is not None \
                and req.junction > req.protected:
            length = min(length, req.junction)
        if self.extra_buffer:
            length = min(length, req.track or 0)
        return length

    def _checkpoint(self, ids: bytes, req: _Request, finished: bool) -> int:
        length = self._length(req)
        if self.window is not None and not finished:
            self._free(req, length - 1)
        if length <= 0:
            if self.states and not finished:
                req.track = None
            return 0
        junction = req.junction if self.window is not None and not self.states and req.junction is not None \
            and req.junction > req.protected else None
        self._insert(ids, length, req.protected, req.cursor if self.window is not None else 0)
        aligned = length // self.page * self.page
        req.protected = max(req.protected, aligned)
        if junction is not None and aligned >= junction:
            req.junction = None  # swa.py l.1051-1071: then free up to the prompt's end
            if not finished:
                self._free(req, req.prompt_tokens - 1)
        if self.states and not finished:
            req.track = None  # mamba.py l.723-727: the tracked state was consumed
        return length

    def _free(self, req: _Request, seen: int) -> None:
        """Move the request's SWA cursor (``common.py`` l.75-138): to the page below ``seen``
        less one page-rounded window, never below what the tree owns and, on a Mamba hybrid,
        never past the window before the tracked state (``unified_radix_cache.py`` l.3771-3777)."""
        assert self.window is not None
        if seen - self.window < req.cursor + 1:
            return
        req.cursor = max(req.cursor, req.protected)
        bound = seen - _round_up(max(self.window, self.page), self.page)
        if self.states and req.track is not None:
            bound = min(bound, req.track - self.window)
        moved = max(req.cursor, bound) // self.page * self.page
        req.cursor = max(req.cursor, moved)
