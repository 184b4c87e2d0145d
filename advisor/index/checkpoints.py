"""The windows and states a hybrid model's sparse cache groups hold, and the hits they allow.

A full-attention group keeps every block of every prompt, so the radix tree's longest shared
prefix answers for it. A sliding-window or state group of a hybrid keeps less: the engines
store a window tail or a state only at a few positions of each prompt (its checkpoints), and
a hit must end on one. ``SparseCache`` keeps those positions as digests of the prefix that
ends there (a chained block hash does the same job in vLLM), reduces the full-attention hit
to the longest position every group can serve, and then stores what the request leaves.
The rules, per engine (``../shared/docs/ARCHITECTURES.md`` §1-2, from the engines' source):

- vLLM 0.33 (``kv_cache_coordinator.py`` ``find_longest_cache_hit`` l.806-941): the hit is
  the largest multiple of the block at most ``L - 1`` that every group accepts (the
  coordinator's fixed point). A state group needs a state stored at exactly the hit
  (``MambaManager``, ``single_type_kv_cache_manager.py`` l.1470-1547); a sliding group needs
  the ``cdiv(window - 1, block)`` blocks before it cached, or every block from the start
  (``SlidingWindowManager`` l.969-1065). A prompt leaves its replay boundary
  ``R = floor((L - 1) / block) * block`` and, in a hybrid whose full-attention hit exceeded
  what the other groups allowed, that junction ``J`` (l.911, 937; a single-group model never
  has one). Retention (``prefix_cache_retention_interval``, l.33-86, 1067-1146, 1549-1606):
  0 keeps the window tails and states at R and J; ``None`` every block of a sliding group,
  and for a state group also the state after the whole prompt when it ends on a block (states
  exist only where a prefill chunk ends, ``scheduler.py`` l.546-661); an interval P adds the
  window tails ending at multiples of P, and the whole-prompt state when it ends on one.
- SGLang 0.5.23 (``components/mamba.py`` l.151-194, ``schedule_batch.py`` l.3137-3240): a
  match ends on the deepest tree node holding a state, within what the tree holds. One
  prefill tracks one state: at the junction (the full hit on the checkpoint grid, when above
  the hit) or at ``hit + floor((L - hit) / grid) * grid``, and the prompt enters the tree only
  up to it (nothing when fewer than ``grid`` tokens are computed). ``no_buffer`` keeps the
  state after the whole prompt instead. Sliding windows (``components/swa.py``): after its
  prefill a request keeps only the window before its end live (the rest are tombstones,
  ``common.py`` l.75-138); a match needs ``window - 1`` live tokens before it, or a path with
  no tombstone; a junction request inserts up to the junction and keeps the window there.
"""

from __future__ import annotations

import hashlib
from array import array
from dataclasses import dataclass, field

from advisor.index.geometry import CacheGeometry, CacheGroup
from advisor.index.radix import RadixTree
from advisor.ingest.ids import ITEM

# 16 bytes of BLAKE2b: collisions are out of reach for any traffic this tool reads.
DIGEST_BYTES = 16


def prefix_digests(ids: bytes | memoryview, positions: list[int]) -> dict[int, bytes]:
    """Digest of ``ids[:p]`` (p in tokens) for each of ``positions``, in one pass over the ids."""
    view = memoryview(ids)
    hasher = hashlib.blake2b(digest_size=DIGEST_BYTES)
    done = 0
    out: dict[int, bytes] = {}
    for p in sorted(set(positions)):
        hasher.update(view[done * ITEM: p * ITEM])
        done = p
        out[p] = hasher.copy().digest()
    return out


@dataclass
class _Held:
    """One sparse group's checkpoints: position -> digests of the prefixes held there."""

    group: CacheGroup
    at: dict[int, set[bytes]] = field(default_factory=dict)

    def has(self, position: int, digest: bytes) -> bool:
        held = self.at.get(position)
        return held is not None and digest in held

    def add(self, position: int, digest: bytes) -> None:
        self.at.setdefault(position, set()).add(digest)


@dataclass
class Outcome:
    """One request's hit and what it left behind (for tests and the report)."""

    full_hit: int
    hit: int
    stored: tuple[int, ...]


class SparseCache:
    """Checkpoints of every sparse group of one namespace, under an unlimited pool."""

    def __init__(self, geometry: CacheGeometry) -> None:
        self.geometry = geometry
        self.groups = [_Held(g) for g in geometry.sparse_groups]
        self.hybrid = len(self.groups) < len(geometry.groups)  # a full group beside them
        # SGLang's own tree: a Mamba hybrid inserts a prompt only up to its tracked state, a
        # junction request only up to the junction, so its matches are not the plain LCP.
        self.tree = RadixTree(geometry.block) if geometry.engine == "sglang" else None
        # SGLang sliding windows without state layers: the paths that hold no tombstone. A
        # request tombstones only the new part of its path, so a clean path stays clean, and
        # every end on it is a valid match; only the other requests' valid ends are kept one
        # by one (at most a window of them each), so a window longer than the prompts costs
        # one tree, not a digest per token.
        sliding_only = all(g.kind == "sliding" for g in geometry.sparse_groups)
        self.clean = RadixTree(geometry.block) if self.tree is not None and sliding_only else None

    def serve(self, ids: bytes | memoryview | array, prompt_tokens: int, full_hit: int) -> Outcome:
        """Tokens the engine serves to a prompt whose full-attention groups hit ``full_hit``
        (already capped and on the block grid); the prompt's checkpoints are then stored."""
        hit = self.lookup(ids, prompt_tokens, full_hit)
        return Outcome(full_hit, hit, self.store(ids, prompt_tokens, full_hit, hit))

    def lookup(self, ids: bytes | memoryview | array, prompt_tokens: int, full_hit: int) -> int:
        """The hit, changing nothing."""
        data = ids.tobytes() if isinstance(ids, array) else ids
        block = self.geometry.block
        if self.tree is not None:
            full_hit = self._sglang_full(data, prompt_tokens, full_hit)
            clean = self.clean.match(bytes(data[: full_hit * ITEM])) if self.clean is not None else 0
            return max(clean, self._deepest(data, full_hit, range(full_hit, clean, -1)))
        if not self.hybrid:  # one group: its own blocks bound the hit, from the cap down
            full_hit = max(0, prompt_tokens - 1) // block * block
        return self._vllm_longest(data, full_hit)

    def _vllm_longest(self, ids: bytes | memoryview, limit: int) -> int:
        """The largest block end up to ``limit`` every group accepts, in one pass over the
        prompt's block ends: a state group's state there, a sliding group's run of cached blocks
        reaching back ``cdiv(window - 1, block)`` blocks or to the start."""
        block = self.geometry.block
        ends = list(range(block, limit + 1, block))
        if not ends:
            return 0
        digests = prefix_digests(ids, ends)
        accepted = [True] * len(ends)
        for held in self.groups:
            need = self._need(held.group) if held.group.kind == "sliding" else 1
            run = 0
            for i, end in enumerate(ends):
                run = run + 1 if held.has(end, digests[end]) else 0
                if run < min(need, i + 1):
                    accepted[i] = False
        for i in range(len(ends) - 1, -1, -1):
            if accepted[i]:
                return ends[i]
        return 0

    def store(self, ids: bytes | memoryview | array, prompt_tokens: int, full_hit: int, hit: int) -> tuple[int, ...]:
        """Keep the windows and states the prompt leaves; return the checkpoints."""
        data = ids.tobytes() if isinstance(ids, array) else ids
        if self.tree is not None:
            return self._sglang_store(data, prompt_tokens, self._sglang_full(data, prompt_tokens, full_hit), hit)
        return self._vllm_store(data, prompt_tokens, full_hit, hit)

    def _deepest(self, ids: bytes | memoryview, limit: int, candidates: range) -> int:
        """The first candidate end every group accepts (the coordinator's fixed point: the
        largest such end, since each group only ever shortens the candidate)."""
        if not self.groups:
            return max(limit, 0)
        held_at: set[int] = set().union(*(h.at for h in self.groups))
        wanted = [b for b in candidates if b in held_at]
        needed = {b: [(h, self._needed(b, h.group)) for h in self.groups] for b in wanted}
        digests = prefix_digests(ids, [p for pairs in needed.values() for _, r in pairs for p in r])
        for b in wanted:
            if all(h.has(p, digests[p]) for h, r in needed[b] for p in r):
                return b
        return 0

    def _needed(self, end: int, group: CacheGroup) -> range:
        """Positions a group needs held for a hit at ``end``: the state at it, or (vLLM) the
        blocks covering the ``window - 1`` tokens before it (all of them inside the first
        window). SGLang's sliding group records the valid match ends themselves."""
        if group.kind == "state" or self.tree is not None:
            return range(end, end + 1)
        block = self.geometry.block
        return range(max(block, end - (self._need(group) - 1) * block), end + 1, block)

    def _need(self, group: CacheGroup) -> int:
        """Blocks a vLLM sliding group needs before a hit: ``cdiv(window - 1, block)``."""
        return -(-(group.window - 1) // self.geometry.block)

    # -- vLLM ------------------------------------------------------------------------------

    def _vllm_store(self, ids: bytes | memoryview, prompt_tokens: int, full_hit: int, hit: int) -> tuple[int, ...]:
        block = self.geometry.block
        replay = max(0, prompt_tokens - 1) // block * block
        ends = {replay} if replay > 0 else set()
        if self.hybrid and full_hit > hit:
            ends.add(full_hit)  # the junction: the scheduler stops a chunk there
        whole = prompt_tokens if prompt_tokens % block == 0 else 0  # a chunk ends there
        kept: dict[int, set[int]] = {}
        for i, held in enumerate(self.groups):
            kept[i] = self._vllm_kept(held.group, ends, whole, prompt_tokens)
        digests = prefix_digests(ids, sorted(set().union(*kept.values())))
        for i, held in enumerate(self.groups):
            for p in kept[i]:
                held.add(p, digests[p])
        return tuple(sorted(ends))

    def _vllm_kept(self, group: CacheGroup, ends: set[int], whole: int, prompt_tokens: int) -> set[int]:
        block = self.geometry.block
        retention = self.geometry.retention
        if group.kind == "state":
            extra = {whole} if whole and (retention is None or (retention and whole % retention == 0)) else set()
            return ends | extra
        blocks = range(block, prompt_tokens // block * block + 1, block)
        kept = {p for end in ends for p in self._needed(end, group)}
        if retention is None:
            return set(blocks)
        if retention:  # the window tail of every retention segment, by absolute block index
            per = max(1, retention // block)
            need = self._need(group)
            kept.update(p for p in blocks if need >= per or (p // block - 1) % per >= per - need)
        return kept

    # -- SGLang ----------------------------------------------------------------------------

    def _sglang_full(self, ids: bytes | memoryview, prompt_tokens: int, full_hit: int) -> int:
        """The full-attention hit on SGLang's own tree (within the caller's bound)."""
        assert self.tree is not None
        page = self.geometry.block
        cap = max(0, prompt_tokens - 1) // page * page
        return min(full_hit, self.tree.match(bytes(ids[: cap * ITEM])))

    def _sglang_store(self, ids: bytes | memoryview, prompt_tokens: int, full_hit: int, hit: int) -> tuple[int, ...]:
        assert self.tree is not None
        states = [h for h in self.groups if h.group.kind == "state"]
        windows = [h for h in self.groups if h.group.kind == "sliding"]
        grid = self.geometry.checkpoint_grid
        end = prompt_tokens
        if states:
            if self.geometry.mamba_strategy == "no_buffer":
                track = prompt_tokens
            elif prompt_tokens - hit < grid:
                return ()  # no tracked state: the prompt does not enter the tree either
            else:
                branching = full_hit // grid * grid
                track = branching if hit < branching < prompt_tokens else hit + (prompt_tokens - hit) // grid * grid
            end = track
        key = bytes(ids[: end * ITEM])
        shared = self.tree.insert(key)
        live = self._sglang_live(prompt_tokens, end, hit, full_hit, windows)
        if self.clean is not None and self._stays_clean(key, shared, live, end):
            self.clean.insert(key)
            return (end,)
        digests = prefix_digests(ids, sorted({end, *live}))
        for h in states:
            h.add(end, digests[end])
        for h in windows:
            for p in live:
                h.add(p, digests[p])
        return (end,)

    def _stays_clean(self, key: bytes, shared: int, live: set[int], end: int) -> bool:
        """Whether the request's whole path holds no tombstone: the part it shares is clean and
        it freed none of the part it added (every end from there on is live)."""
        assert self.clean is not None
        page = self.geometry.block
        first_new = shared // page * page + page
        return self.clean.match(key[: shared * ITEM]) >= shared and all(
            p in live for p in range(first_new, end + 1, page))

    def _sglang_live(self, prompt_tokens: int, end: int, hit: int, full_hit: int, windows: list[_Held]) -> set[int]:
        """Match ends a sliding group accepts after this prompt: those with ``window - 1`` live
        tokens before them. A request keeps live only the window before its end (older tokens
        are freed to tombstones, the cursor of ``common.py`` l.75-138); a path with no tombstone
        accepts every end. A junction request keeps the window before the junction too."""
        if not windows:
            return set()
        page = self.geometry.block
        keep = windows[0].group.window - 1
        ceil_keep = -(-max(keep, page) // page) * page
        cursor = max(hit, (end - 1 - ceil_keep) // page * page) if end - 1 - keep >= 1 else 0
        first = max(1, hit) if cursor <= hit else cursor + keep
        live = set(range(first, end + 1))
        if full_hit > hit:
            live.add(full_hit)
            if cursor <= full_hit - keep:
                live.update(range(full_hit, end + 1))
        return live
