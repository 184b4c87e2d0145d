"""vLLM's pool (v1 automatic prefix caching): full blocks, chained hashes, LRU free queue.

REFERENCE.md §2.2-§2.5. Only full blocks are hashed, and block i's identity is the chain
of all blocks before it, so a lookup walks the request's blocks until the first miss.
A block in use has a reference count; at zero it joins the tail of one free queue and
keeps its hash until an allocation takes it from the head (that is the eviction: exactly
as many blocks as needed, no overshoot). A finishing request frees its blocks tail
first, so among blocks freed together the deepest goes first.

Differences kept small on purpose: a full block computed again while a copy is still
cached reuses the copy (vLLM keeps a duplicate under the same hash; only occupancy
differs), and a request's partial last block (token traffic) is held as a reserve while
it runs, since an unhashed block is never a hit.
"""

from __future__ import annotations

from array import array
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Hashable

from advisor.ingest.ids import ITEM
from advisor.simulate.pool import Lease
from advisor.simulate.model import HitRules, Job


@dataclass(eq=False)
class BlockLease(Lease):
    """The blocks the request holds a reference on, in prompt order (freed tail first)."""

    blocks: list[int] = field(default_factory=list)


class BlockIndex:
    """Chained block identities, interned to small ints: equal id = equal prefix.

    An id stands for (parent id, the block's tokens), which is what vLLM's chained hash
    identifies, without hash collisions. For ``hash_ids`` traffic a trace id already is
    one block; it is interned with its parent the same way (the peer simulator's
    trie of ids does the same). Shared by the pools of a sweep: a job's blocks are
    computed once per index and kept in the job's memo.
    """

    def __init__(self, block_tokens: int) -> None:
        self.block_tokens = block_tokens
        self._table: dict[tuple[int, bytes], int] = {}
        self._roots: dict[str, int] = {}
        self.parents: list[int] = []  # block id -> the block before it (a root is < 0)

    def root(self, namespace: str) -> int:
        root = self._roots.get(namespace)
        if root is None:
            root = self._roots[namespace] = -1 - len(self._roots)
        return root

    def blocks(self, job: Job) -> array:
        got = job.memo.get(self)
        if got is not None:
            return got
        root = self.root(job.namespace)
        step = ITEM * self.block_tokens if job.unit == 1 else ITEM
        key = job.key
        table = self._table
        out = array("q")
        append = out.append
        parent = root
        offsets = range(0, len(key) - step + 1, step)
        for off in offsets:
            b = table.get((parent, key[off : off + step]))
            if b is None:
                break
            append(b)
            parent = b
        else:
            job.memo[self] = out
            return out
        # A new id's chain was never seen, so no block after the first new one can be known:
        # number the rest without looking them up.
        parents = self.parents
        for off in offsets[len(out):]:
            b = table[(parent, key[off : off + step])] = len(table)
            parents.append(parent)
            append(b)
            parent = b
        job.memo[self] = out
        return out

    def weight(self, job: Job) -> int:
        """Tokens of pool one block of this job occupies."""
        return self.block_tokens if job.unit == 1 else job.unit


class BlockPool:
    """Block-level LRU with vLLM's free queue; capacity in tokens, used in blocks."""

    def __init__(self, capacity: int | None, rules: HitRules, index: BlockIndex) -> None:
        self.capacity = capacity
        self.rules = rules
        self.index = index
        self.refreshes_waiting = False  # vLLM has no waiting-prefix refresh
        self._free: OrderedDict[int, int] = OrderedDict()  # block -> tokens; head = LRU
        self._ref: dict[int, int] = {}  # blocks in use -> reference count
        self._weight: dict[int, int] = {}  # blocks in use -> tokens
        self.block_tokens_used = 0  # tokens in cached blocks (free queue and in use)
        self.free_tokens = 0  # tokens in the free queue (cached, evictable)
        self.reserved = 0
        self.evicted_tokens = 0

    def used_tokens(self) -> int:
        return self.block_tokens_used + self.reserved

    def _max_blocks(self, job: Job) -> int:
        if job.unit == 1:
            return self.rules.limit_tokens(job.prompt_tokens) // self.index.block_tokens
        return self.rules.limit_elements(job)

    def _hits(self, job: Job, blocks: array) -> int:
        free, ref = self._free, self._ref
        n = 0
        for b in blocks[: self._max_blocks(job)]:
            if b in free or b in ref:
                n += 1
            else:
                break
        return n

    def _matched(self, job: Job, hits: int) -> int:
        return hits * self.index.block_tokens if job.unit == 1 else hits

    def peek(self, job: Job, touch: bool = False) -> int:
        # vLLM's scheduler does not touch blocks when it looks; ``touch`` is ignored.
        return self._matched(job, self._hits(job, self.index.blocks(job)))

    def locate(self, job: Job, touch: bool = True) -> tuple[int, object]:
        """Matched ids and the last hit block (a chained id names the whole prefix)."""
        blocks = self.index.blocks(job)
        hits = self._hits(job, blocks)
        key = blocks[hits - 1] if hits else self.index.root(job.namespace)
        return self._matched(job, hits), key

    def parent_of(self, key: Hashable) -> Hashable | None:
        assert isinstance(key, int), key
        k = key
        return None if k < 0 else self.index.parents[k]

    def acquire(self, job: Job, reserve: int = 0, force: bool = False) -> BlockLease | None:
        blocks = self.index.blocks(job)
        hits = self._hits(job, blocks)
        w = self.index.weight(job)
        free, ref = self._free, self._ref
        # Slots the request takes: every block of the prompt not hit, including the
        # partial last block of token traffic, plus the reserve (its output). The hit
        # blocks are all cached, and a job's chained ids are distinct, so the passes below
        # may run over every block instead of the hits and the rest apart.
        slots = -(-job.prompt_tokens // w) if job.unit == 1 else job.elements
        listed = blocks.tolist()
        new = [b for b in listed if b not in free and b not in ref]
        transient = (slots - len(blocks)) * w + reserve
        need = len(new) * w + transient
        if self.capacity is not None and not force:
            # vLLM checks the free blocks before it touches anything.
            pinned = sum(free[b] for b in listed if b in free)
            if need > self.capacity - self.used_tokens() + self.free_tokens - pinned:
                return None
        # Take the request's cached blocks out of the free queue (hits, and any copy
        # cached beyond the hit limit), summing what leaves the queue once, not per block.
        weight = self._weight
        taken = 0
        for b in listed:
            tokens = free.pop(b, None)
            if tokens is not None:
                taken += tokens
                weight[b] = tokens
                ref[b] = 1
            elif b in ref:
                ref[b] += 1
        self.free_tokens -= taken
        if self.capacity is not None:
            short = self.used_tokens() + need - self.capacity
            if short > 0:
                self._evict(short)
            room = self.capacity - self.used_tokens()
            if need > room:  # forced: the leading new blocks that fit, then what is left
                new = new[: max(0, room) // w]
                transient = max(0, min(transient, room - len(new) * w))
        for b in new:
            ref[b] = 1
            weight[b] = w
        self.block_tokens_used += len(new) * w
        self.reserved += transient
        # The blocks this request holds, in prompt order (freed tail first on release).
        held = [b for b in listed if b in ref]
        matched = self._matched(job, hits)
        return BlockLease(job, matched, self.rules.hit(job, matched), transient, held)

    def commit(self, lease: Lease) -> None:
        """Nothing to do: vLLM registers block hashes when it allocates them."""

    def release(self, lease: Lease) -> None:
        free, ref, weight = self._free, self._ref, self._weight
        assert isinstance(lease, BlockLease)
        held = lease.blocks
        freed = 0
        for b in reversed(held):
            r = ref.get(b)
            if r is None:
                continue
            if r == 1:
                del ref[b]
                tokens = weight.pop(b)
                free[b] = tokens
                freed += tokens
            else:
                ref[b] = r - 1
        self.free_tokens += freed
        self.reserved -= lease.reserved
        lease.reserved = 0
        lease.blocks = []

    def _evict(self, tokens: int) -> int:
        free = self._free
        freed = 0
        while freed < tokens and free:
            _b, w = free.popitem(last=False)
            freed += w
        self.free_tokens -= freed
        self.block_tokens_used -= freed
        self.evicted_tokens += freed
        return freed
