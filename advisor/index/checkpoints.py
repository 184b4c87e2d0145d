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
- SGLang 0.5.23: a hit ends on a node of SGLang's own tree where every component accepts;
  ``advisor.index.sglang_tree`` keeps that tree (its nodes, tombstones and states).
"""

from __future__ import annotations

import hashlib
from array import array
from dataclasses import dataclass, field

from advisor.index.geometry import CacheGeometry, CacheGroup
from advisor.index.sglang_tree import UnifiedTree
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
        # SGLang matches on its own tree of nodes (``advisor.index.sglang_tree``), not on
        # positions: where a hit may end depends on the nodes earlier requests left.
        self.sglang: UnifiedTree | None = None
        if geometry.engine == "sglang":
            windows = [g.window for g in geometry.sparse_groups if g.kind == "sliding"]
            # SGLang's tree window is the model's less one (its window counts the token itself).
            self.sglang = UnifiedTree(geometry.block, windows[0] - 1 if windows else None,
                                      any(g.kind == "state" for g in geometry.sparse_groups),
                                      geometry.mamba_strategy, geometry.checkpoint_grid)

    def serve(self, ids: bytes | memoryview | array, prompt_tokens: int, full_hit: int) -> Outcome:
        """Tokens the engine serves to a prompt whose full-attention groups hit ``full_hit``
        (already capped and on the block grid); the prompt's checkpoints are then stored."""
        if self.sglang is not None:  # one walk of SGLang's tree matches and stores
            data = ids.tobytes() if isinstance(ids, array) else bytes(ids)
            hit, stored = self.sglang.serve(data, prompt_tokens, min(full_hit, max(0, prompt_tokens - 1)))
            return Outcome(full_hit, hit, stored)
        hit = self.lookup(ids, prompt_tokens, full_hit)
        return Outcome(full_hit, hit, self.store(ids, prompt_tokens, full_hit, hit))

    def lookup(self, ids: bytes | memoryview | array, prompt_tokens: int, full_hit: int) -> int:
        """The hit, changing nothing."""
        data = ids.tobytes() if isinstance(ids, array) else ids
        block = self.geometry.block
        if self.sglang is not None:
            return self.sglang.match(bytes(data), min(full_hit, max(0, prompt_tokens - 1)))[0]
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
        if self.sglang is not None:
            return self.sglang.serve(bytes(data), prompt_tokens, min(full_hit, max(0, prompt_tokens - 1)))[1]
        return self._vllm_store(data, prompt_tokens, full_hit, hit)

    def _needed(self, end: int, group: CacheGroup) -> range:
        """Positions a group needs held for a hit at ``end``: the state at it, or (vLLM) the
        blocks covering the ``window - 1`` tokens before it (all of them inside the first
        window)."""
        if group.kind == "state":
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
