"""Independent brute-force oracle: prefix-cache hits of vLLM 0.33.0 and SGLang 0.5.23
on models that are not pure full attention (sliding-window hybrids, Mamba /
linear-attention hybrids).  Written from the engines' sources (unpacked wheels,
``vllm/v1/core/...`` and ``sglang/srt/...``), never from ``advisor/``.  No engine
code is copied; every rule below is a paraphrase with its source location.

Scope and assumptions (both engines)
------------------------------------
* Unlimited KV / state pool: nothing is ever evicted (vLLM keeps the hash of a freed
  block while it sits in the free queue, ``block_pool.py`` ``free_blocks`` l.816-860;
  SGLang never runs ``evict``).
* Requests are processed strictly one at a time, in order: request *i* looks up,
  prefills its whole prompt in ONE prefill chunk (``max_num_batched_tokens`` /
  ``chunked_prefill_size`` larger than any prompt), is committed to the cache, and
  finishes before request *i+1* arrives.  No speculative decoding (no EAGLE/MTP),
  no KV connector / HiCache, no LoRA / multimodal / cache salt, no prompt logprobs.
* No decode tokens: the output a request generates is never inserted into the
  cache and never moves any cursor (SWA eviction cursor, Mamba track position).
* Prompts are lists of ints.  Returned: per prompt, the number of prompt tokens
  served from the cache.  Both engines cap the lookup at ``L - 1`` (the last
  prompt token is always recomputed): vLLM ``kv_cache_manager.py`` l.302
  (``get_computed_blocks``: ``max_cache_hit_length = num_tokens - 1``); SGLang
  ``schedule_batch.py`` l.1766-1768 (``_compute_max_prefix_len``), used as the
  radix key limit at l.1723 and ``common.py`` ``_req_radix_key`` l.193-212.

Group descriptions (``groups``): ``{"kind": "full"}`` (full attention, MLA,
chunked-local: all cache densely), ``{"kind": "sliding", "window": W}`` (W = the
model config's ``sliding_window``, the value vLLM puts in ``SlidingWindowSpec``),
``{"kind": "state"}`` (Mamba / GDN / linear attention).  See each public function
for engine specifics.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = [
    "vllm_cached_tokens",
    "sglang_cached_tokens",
    "sglang_cached_tokens_finish_at_prefill",
]

_KINDS = ("full", "sliding", "state")


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def _check_groups(groups: list[dict]) -> list[tuple[str, int | None]]:
    if not groups:
        raise ValueError("groups must not be empty")
    out: list[tuple[str, int | None]] = []
    for g in groups:
        kind = g.get("kind")
        if kind not in _KINDS:
            raise ValueError(f"unknown group kind {kind!r}")
        if kind == "sliding":
            w = g.get("window")
            if not isinstance(w, int) or w < 2:
                raise ValueError("a sliding group needs an int window >= 2")
            out.append((kind, w))
        else:
            out.append((kind, None))
    return out


# =====================================================================================
# vLLM 0.33.0
# =====================================================================================


class _BlockIds:
    """Exact stand-in for vLLM's chained block hashes: block i of a prompt gets an id
    that depends on (id of block i-1, tokens of block i), interned without collisions
    (``kv_cache_utils.py`` hash_block_tokens l.707, get_request_block_hasher l.953)."""

    def __init__(self) -> None:
        self._ids: dict[tuple[int, tuple[int, ...]], int] = {}

    def of(self, prompt: list[int], block: int) -> list[int]:
        ids: list[int] = []
        parent = -1
        for i in range(len(prompt) // block):  # only full blocks are hashed
            k = (parent, tuple(prompt[i * block : (i + 1) * block]))
            parent = self._ids.setdefault(k, len(self._ids))
            ids.append(parent)
        return ids


@dataclass
class _VGroup:
    kind: str
    window: int | None
    cached: set[int] = field(default_factory=set)  # block ids holding a hash in this group

    def need(self, block: int) -> int:
        # SlidingWindowManager._contiguous_blocks_for_hit, single_type_kv_cache_manager.py
        # l.956-967: cdiv(window - 1, block) (+1 only with EAGLE).
        assert self.window is not None
        return _cdiv(self.window - 1, block)

    # ---- per-group finders (literal paraphrases) ----------------------------------
    def find(self, ids: list[int], max_length: int, block: int) -> int:
        nblocks = min(max_length // block, len(ids))
        if self.kind == "full":
            # FullAttentionManager.find_longest_cache_hit l.743-838: left-to-right run of
            # cached blocks from block 0 (chained hashes: a miss ends the hit).
            n = 0
            while n < nblocks and ids[n] in self.cached:
                n += 1
            return n * block
        if self.kind == "state":
            # MambaManager.find_longest_cache_hit l.1470-1547: right-to-left, the LAST
            # block whose hash holds a state (the state after (i+1)*block tokens).
            for i in range(nblocks - 1, -1, -1):
                if ids[i] in self.cached:
                    return (i + 1) * block
            return 0
        # SlidingWindowManager.find_longest_cache_hit l.969-1065: right-to-left, stop at
        # the first run of `need` contiguous cached blocks; the hit ends at that run's
        # right edge.  No such run: only the run of cached blocks starting at block 0.
        need = self.need(block)
        run = 0
        for i in range(nblocks - 1, -1, -1):
            if ids[i] in self.cached:
                run += 1
                if run >= need:
                    return (i + run) * block
            else:
                run = 0
        return run * block

    def accepts(self, ids: list[int], b: int, block: int) -> bool:
        """Brute-force restatement of the finder: may a hit end at token b?"""
        k = b // block
        if self.kind == "full":
            return all(ids[i] in self.cached for i in range(k))
        if self.kind == "state":
            return k == 0 or ids[k - 1] in self.cached
        return all(ids[i] in self.cached for i in range(max(0, k - self.need(block)), k))

    # ---- which freshly computed blocks get a hash (reachable_block_mask) ---------
    def mask(
        self,
        i: int,
        block: int,
        retention: int | None,
        boundaries: list[int],
    ) -> bool:
        if self.kind == "full":
            # Base reachable_block_mask returns None (dense), l.545-569.
            return True
        if self.kind == "sliding":
            # SlidingWindowManager.reachable_block_mask l.1067-1146 (no EAGLE, shift 0,
            # alignment = block; final_segment_end_block is never passed by cache_blocks).
            need = self.need(block)
            seg = block if retention is None else (None if retention == 0 else retention)
            if seg is not None:
                per = seg // block
                if need >= per:
                    return True  # dense: every block reachable
                if i % per >= per - need:
                    return True  # the `need`-block tail of each segment
            if retention is not None:
                for b in boundaries:
                    end = (b // block * block) // block
                    if end - need <= i < end:
                        return True  # the `need`-block tail ending on a boundary
            return False
        # MambaManager.reachable_block_mask l.1549-1606.
        if retention is None:
            return True
        if retention > 0:
            per = retention // block
            if per <= 1:
                return True
            if (i + 1) % per == 0:
                return True
        for b in boundaries:
            if (b // block * block) // block - 1 == i:
                return True
        return False


def vllm_cached_tokens(
    prompts: list[list[int]],
    *,
    block: int,
    groups: list[dict],
    retention: int | None = 0,
) -> list[int]:
    """Tokens served from vLLM 0.33.0's prefix cache, per prompt.

    Model (all groups share ``block``; scheduler block = hash block = cache-hit
    alignment = ``block``, ``kv_cache_utils.py`` resolve_kv_cache_block_sizes
    l.816-918, no ``--prefix-match-unit``).  Each group keeps the set of block hashes
    it holds; a ``state`` block hash means "the Mamba state after that block".

    Lookup (cap ``L - 1``, ``kv_cache_manager.py`` l.302):
      * one group -> ``UnitaryKVCacheCoordinator`` (``kv_cache_coordinator.py``
        l.1021-1035, find l.582-603): that group's finder; never a junction.
      * several groups -> ``HybridKVCacheCoordinator.find_longest_cache_hit``
        (l.806-941): identical specs are merged (``verify_and_split_kv_cache_groups``
        l.718-775), full attention sorted first (l.758); start at ``L - 1``; each group
        in turn returns its longest hit <= the current candidate; repeat until no
        group shortens it (a single pass when the model is exactly one full + one
        other spec, l.838).  Every finder returns the largest acceptable point below
        its bound, so the result equals the largest block-aligned b <= L-1 that every
        group accepts -- the oracle computes both and asserts they agree.
        ``num_uncached_common_prefix_tokens`` = (largest candidate seen, i.e. the first
        group's hit = the full-attention hit F) - hit (l.911, l.937); the manager turns
        it into ``shared_prefix_boundary = F`` when positive (``kv_cache_manager.py``
        l.319-325).
      Finders: full = run of cached blocks from block 0; sliding = first run (from the
      right) of ``need = cdiv(W-1, block)`` contiguous cached blocks ending at the hit,
      else the cached run starting at block 0; state = last block holding a state.

    Storing (after the prefill, ``cache_blocks`` ``kv_cache_coordinator.py`` l.358-375
    and ``single_type_kv_cache_manager.py`` l.477-543): blocks ``[hit/B, floor(L/B))``
    are offered (hit blocks already count as cached, l.318); the group's
    ``reachable_block_mask`` decides which get a hash, with reachable boundaries
    ``{L-1}`` (``replay_boundaries`` l.65-86, no EAGLE) plus the junction J when set:
      * full: every block (dense).
      * sliding: retention 0 -> the ``need`` blocks ending at ``floor((L-1)/B)*B`` and at
        J; retention None -> every block; retention P>0 -> the ``need`` blocks ending at
        every multiple of P, plus the boundary tails (dense if ``need >= P/B``).
      * state: a state exists only where a prefill chunk ENDS on a block boundary (the
        running state is written at chunk ends, align mode; null blocks elsewhere,
        ``MambaManager.allocate_new_blocks`` l.1797-1923).  With Mamba layers the
        scheduler cuts the prefill (``scheduler.py`` ``_mamba_block_aligned_split``
        l.546-661, enabled l.432-434) at the junction J and at the replay boundary
        ``R = floor((L-1)/B)*B`` (``get_mamba_prefill_checkpoint_position``,
        ``kv_cache_interface.py`` l.1169-1186), so with one prefill chunk the chunk
        ends are J, R and L.  Kept: retention 0 -> the states at R and J; retention None
        -> every chunk-end state on a block boundary: J, R, and L when ``L % B == 0``
        (NOT every block); retention P>0 -> J, R, plus L if ``L % B == 0`` and
        ``L % P == 0`` (dense when ``P <= B``).  (No FlashInfer internal-checkpoint
        blocks assumed; they would put the same R state in place.)

    Retention applies to every sliding / state group, including a single-group
    model: the unitary coordinator passes it to the manager too and the mask's
    alignment is the scheduler block, never None (``single_type_kv_cache_manager.py``
    l.105, ``kv_cache_coordinator.py`` l.358-375, validator l.33-62).  So a pure-SWA
    model (Mistral v0.1) at the default retention 0 keeps only replay-boundary tails
    and, having no junction detection, never re-stores a shared prefix; it is dense
    only with ``retention=None``.

    ``retention``: 0 (default), None (dense) or a positive multiple of ``block``
    (anything else raises, like ``_validate_prefix_cache_retention_interval``;
    a positive value on a model without sliding/state groups raises too).
    """
    specs_in = _check_groups(groups)
    if block <= 0:
        raise ValueError("block must be positive")
    has_sparse = any(k in ("sliding", "state") for k, _ in specs_in)
    if retention is not None:
        if not has_sparse:
            if retention != 0:
                raise ValueError("retention set on a model without sliding/state groups")
        elif retention < 0 or retention % block != 0:
            raise ValueError("retention must be >= 0 and a multiple of block")

    hybrid = len(specs_in) > 1
    specs: list[tuple[str, int | None]] = []
    for s in specs_in:  # merge identical specs (they would hold identical hashes)
        if s not in specs:
            specs.append(s)
    vgroups = [_VGroup(k, w) for k, w in specs]
    # Lookup order: full attention first, others in their original order.
    order = sorted(vgroups, key=lambda g: g.kind != "full")
    simple = len(order) == 2 and order[0].kind == "full"
    has_state = any(g.kind == "state" for g in vgroups)

    hasher = _BlockIds()
    out: list[int] = []
    for prompt in prompts:
        L = len(prompt)
        ids = hasher.of(prompt, block)
        cap = max(L - 1, 0)

        # ---------------- lookup ----------------
        if not hybrid:
            hit = vgroups[0].find(ids, cap, block)
            junction = 0
        else:
            hit_length = cap
            longest = 0
            full_hit: dict[int, int] = {}
            while True:
                curr = hit_length
                for gi, g in enumerate(order):
                    if g.kind == "full" and gi in full_hit:
                        curr = min(curr, full_hit[gi])
                        continue
                    curr = g.find(ids, curr, block)
                    if g.kind == "full":
                        full_hit[gi] = curr
                    longest = max(longest, curr)
                if curr >= hit_length:
                    break
                hit_length = curr
                if simple:
                    break
            hit = hit_length
            junction = longest if longest > hit else 0
            brute = max(
                b
                for b in range(0, cap // block * block + 1, block)
                if all(g.accepts(ids, b, block) for g in vgroups)
            )
            assert brute == hit, (brute, hit)
        out.append(hit)

        # ---------------- store ----------------
        n_full = L // block
        replay = (L - 1) // block * block if L > 0 else 0
        boundaries = [L - 1] + ([junction] if junction else [])
        first = hit // block
        if has_state:
            # Chunk ends of the (single) prefill, cut at J and R.
            ends: list[int] = []
            start = hit
            while start < L:
                stops = [s for s in (replay, junction) if start < s < L]
                end = min(stops) if stops else L
                ends.append(end)
                start = end
            state_blocks = {e // block - 1 for e in ends if e % block == 0 and e > 0}
        else:
            state_blocks = set()
        for g in vgroups:
            for i in range(first, n_full):
                if g.kind == "state" and i not in state_blocks:
                    continue  # null block: no state was written there
                if g.mask(i, block, retention, boundaries):
                    g.cached.add(ids[i])
    return out


# =====================================================================================
# SGLang 0.5.23 (UnifiedRadixCache, Python TreeCore semantics)
# =====================================================================================


class _Node:
    __slots__ = ("key", "children", "parent", "swa", "mamba")

    def __init__(self, key: tuple[int, ...], parent: "_Node | None") -> None:
        self.key = key
        self.children: dict[tuple[int, ...], _Node] = {}
        self.parent = parent
        self.swa = False  # SWA value present (False = tombstone)
        self.mamba = False  # a Mamba state is attached to this node's end


@dataclass
class _Req:
    protected: int = 0  # req.kv.cache_protected_len
    ev: int = 0  # req.kv SWA evicted seqlen (cursor)
    swa_branching: int | None = None
    track: int | None = None  # req.kv.mamba_last_track_seqlen


class _SGTree:
    def __init__(self, page: int, swa_window: int | None, has_mamba: bool) -> None:
        self.page = page
        self.w = swa_window  # the tree's sliding_window_size (None: no SWA component)
        self.has_mamba = has_mamba
        self.root = _Node((), None)
        self.root.swa = True

    # ---- radix helpers (unified_tree_core.py) ------------------------------------
    def _ck(self, seq: tuple[int, ...], off: int = 0) -> tuple[int, ...]:
        return seq[off : off + self.page]

    def _match_len(self, nkey: tuple[int, ...], seq: tuple[int, ...], off: int) -> int:
        p = self.page
        n = 0
        while n < len(nkey) and off + n + p <= len(seq) and nkey[n : n + p] == seq[off + n : off + n + p]:
            n += p
        return n

    def _split(self, node: _Node, n: int) -> _Node:
        """_split_node l.1467-1530: a new parent takes key[:n]; SWA liveness is shared by
        both halves (swa.py redistribute l.626-692); the Mamba state stays on the child
        (mamba.py l.322-332)."""
        up = node.parent
        assert up is not None and 0 < n < len(node.key)
        new = _Node(node.key[:n], up)
        new.swa = node.swa
        node.key = node.key[n:]
        node.parent = new
        new.children[self._ck(node.key)] = node
        up.children[self._ck(new.key)] = new
        return new

    # ---- match (unified_tree_core.py _match_prefix_helper l.905-984) --------------
    def match(self, prompt: list[int], limit: int) -> tuple[int, int]:
        klen = max(limit, 0) // self.page * self.page
        key = tuple(prompt[:klen])
        node = self.root
        off = 0
        best = 0
        full_hit = 0
        swa_run = float("inf")  # swa.py create_match_validator l.357-377

        def valid(n: _Node) -> bool:
            nonlocal swa_run
            ok = True  # Full validator: value present (never evicted here)
            if self.w is not None:
                if not n.swa:
                    swa_run = 0
                    ok = False
                else:
                    swa_run += len(n.key)
                    ok = ok and swa_run >= self.w
            if self.has_mamba:
                ok = ok and n.mamba  # mamba.py l.151-162
            return ok

        while off < len(key) and self._ck(key, off) in node.children:
            child = node.children[self._ck(key, off)]
            pl = self._match_len(child.key, key, off)
            full_hit += pl
            if pl < len(child.key):
                node = self._split(child, pl)
                if valid(node):
                    best = off + pl
                break
            node = child
            if valid(node):
                best = off + pl
            off += pl
        return best, full_hit

    # ---- insert (unified_tree_core.py l.1129-1465 + component hooks) ---------------
    def insert(self, key: tuple[int, ...], prev_prefix_len: int, window_start: int, with_state: bool) -> int:
        key = key[: len(key) // self.page * self.page]
        if not key:
            return 0
        node = self.root
        off = 0
        while off < len(key) and self._ck(key, off) in node.children:
            child = node.children[self._ck(key, off)]
            pl = self._match_len(child.key, key, off)
            if pl < len(child.key):
                child = self._split(child, pl)
            if self.w is not None and prev_prefix_len < off + pl:
                child = self._revive(child, off, off + pl, window_start)
            node = child
            off += pl
        if off < len(key):
            leaf = _Node(key[off:], node)
            node.children[self._ck(leaf.key)] = leaf
            if self.w is not None:
                self._populate_new_leaf(leaf, off, len(key), window_start)
            target = leaf
        else:
            target = node
        if with_state and target is not self.root:
            target.mamba = True  # mamba.py commit_insert_component_data l.227-253
        return off

    def _revive(self, node: _Node, start: int, end: int, ws: int) -> _Node:
        """swa.py update_component_on_insert_overlap l.471-513 + _clip_to_window l.434-447:
        a tombstone overlapped by the insert gets the request's fresh SWA KV for the part
        at or above the request's eviction cursor (split there if it falls inside)."""
        if node.swa:
            return node
        assert ws % self.page == 0
        live = max(start, ws)
        if live >= end:
            return node
        if live > start:
            self._split(node, live - start)  # the older part stays a tombstone
        node.swa = True
        return node

    def _populate_new_leaf(self, leaf: _Node, start: int, end: int, ws: int) -> None:
        """swa.py commit_insert_component_data l.561-591 / _populate_range l.515-537 /
        _maybe_split_leaf_for_swa_lock l.593-624: the new leaf is a tombstone below the
        cursor, live from max(start, cursor); a live part longer than one page-rounded
        window is split so the leaf holds exactly that window."""
        assert self.w is not None
        live = max(start, ws)
        if live >= end:
            return
        if live > start:
            self._split(leaf, live - start)
        tail = _cdiv(self.w, self.page) * self.page
        if len(leaf.key) > tail:
            parent = self._split(leaf, len(leaf.key) - tail)
            parent.swa = True
        leaf.swa = True


def _sg_free_out_of_window(req: _Req, pre_len: int, w: int, page: int, retain_floor: int | None) -> None:
    """common.py free_swa_out_of_window_slots l.75-138 for a prefix-sharing tree: move
    the request's SWA cursor to page_floor(pre_len - ceil_page(max(w, page))), never
    below the tree-owned prefix (swa_dead_lo, schedule_batch.py l.994-1000) and never
    past ``retain_floor`` (SWA+Mamba: last track - window, unified_radix_cache.py
    l.3771-3777)."""
    if pre_len - w < req.ev + 1:
        return
    ev = max(req.ev, req.protected)
    req.ev = ev
    thr = pre_len - _cdiv(max(w, page), page) * page
    if retain_floor is not None:
        thr = min(thr, retain_floor)
    new = max(ev, thr)
    if page > 1:
        new = new // page * page
    if new > ev:
        req.ev = new


def _sglang_run(
    prompts: list[list[int]],
    *,
    page: int,
    groups: list[dict],
    strategy: str,
    grid: int,
    finish_at_prefill: bool,
) -> list[int]:
    specs = _check_groups(groups)
    kinds = [k for k, _ in specs]
    if "full" not in kinds:
        raise ValueError("SGLang UnifiedRadixCache needs a full-attention component")
    sliding = [(k, w) for k, w in specs if k == "sliding"]
    if len({w for _, w in sliding}) > 1:
        raise ValueError("SGLang has one SWA component (one window)")
    has_mamba = "state" in kinds
    if page <= 0:
        raise ValueError("page must be positive")
    if strategy not in ("extra_buffer", "no_buffer"):
        raise ValueError("strategy must be 'extra_buffer' or 'no_buffer'")
    if has_mamba:
        if strategy == "no_buffer" and page != 1:
            raise ValueError("no_buffer requires page 1 (mamba.py l.75-80)")
        if strategy == "extra_buffer" and (grid <= 0 or grid % page != 0):
            raise ValueError("grid must be a positive multiple of page")
    swa_w: int | None = None
    if sliding:
        g0 = next(g for g in groups if g.get("kind") == "sliding")
        swa_w = int(g0.get("sglang_window", g0["window"] - 1))
        if swa_w <= 0:
            raise ValueError("SGLang sliding window must be positive")
    tree = _SGTree(page, swa_w, has_mamba)
    extra = has_mamba and strategy == "extra_buffer"

    out: list[int] = []
    for prompt in prompts:
        L = len(prompt)
        req = _Req()
        # ---- match ----
        h, full_hit = tree.match(prompt, L - 1)
        out.append(h)
        req.protected = h
        if swa_w is not None and full_hit > h:  # full_hit is page aligned
            req.swa_branching = full_hit  # swa.py l.389-395
        m_branch = None
        if has_mamba and full_hit // grid * grid > h:
            m_branch = full_hit // grid * grid  # mamba.py l.164-194
        # ---- prefill: Mamba track position (extra_buffer), schedule_batch.py l.3137-3240
        if extra:
            ext = L - h
            if ext >= grid:
                req.track = h + ext // grid * grid
                if m_branch is not None and h < m_branch and (m_branch - h) % grid == 0:
                    req.track = m_branch  # one tracked state per extend: the junction
        # No SWA frees during the extend: maybe_evict_swa frees in extend batches only
        # without prefix sharing (schedule_batch.py l.4105-4118).

        def insert_len(finished: bool) -> int:
            """prepare_for_caching_req of every component, min'd (unified_radix_cache.py
            l.1187-1202): SWA -> branching point when set (swa.py l.999-1028, skipped
            with Mamba); Mamba extra_buffer -> tracked position (0 when none);
            no_buffer -> the whole key (mamba.py l.604-682)."""
            e = L
            if swa_w is not None and not has_mamba:
                if req.swa_branching is not None and req.swa_branching > req.protected:
                    e = min(e, req.swa_branching)
            if has_mamba:
                if extra:
                    e = min(e, req.track or 0)
                # no_buffer: the whole key (token_ids_len)
            return e

        def retain_floor() -> int | None:
            if has_mamba and swa_w is not None and req.track is not None:
                return req.track - swa_w
            return None

        def checkpoint(finished: bool) -> None:
            e = insert_len(finished)
            if swa_w is not None and not finished:
                _sg_free_out_of_window(req, e - 1, swa_w, page, retain_floor())
            if e <= 0:
                if has_mamba and not finished:
                    req.track = None
                return
            key = tuple(prompt[:e])
            branch = None
            if swa_w is not None and not has_mamba and req.swa_branching is not None:
                if req.swa_branching > req.protected:
                    branch = req.swa_branching  # insert_params.swa_branching_seqlen
            tree.insert(key, req.protected, req.ev if swa_w is not None else 0, has_mamba)
            e_al = e // page * page
            req.protected = max(req.protected, e_al)
            if branch is not None and e_al >= branch:
                req.swa_branching = None  # swa.py cleanup l.1051-1071
                if not finished:
                    _sg_free_out_of_window(req, L - 1, swa_w, page, retain_floor())  # type: ignore[arg-type]
            if has_mamba and not finished:
                req.track = None  # mamba.py cleanup l.723-727

        if finish_at_prefill:
            checkpoint(finished=True)  # release_kv_cache -> checkpoint (finished)
        else:
            checkpoint(finished=False)  # post-prefill checkpoint_kv_cache
            checkpoint(finished=True)  # release at finish (output not inserted)
    return out


def sglang_cached_tokens(
    prompts: list[list[int]],
    *,
    page: int = 1,
    groups: list[dict],
    strategy: str = "extra_buffer",
    grid: int = 64,
) -> list[int]:
    """Tokens served from SGLang 0.5.23's UnifiedRadixCache, per prompt.

    Model: one radix tree (page-granular keys); each node carries an SWA flag (live /
    tombstone) and a Mamba flag (state at the node's end), structured like
    ``unified_tree_core.py``; splits made by lookups and inserts are kept, because
    only node ends are match candidates.  The request is assumed to go on decoding
    after its prefill (the usual case): after the prefill the scheduler calls
    ``checkpoint_kv_cache`` (``scheduler_components/batch_result_processor.py`` l.379-395 ->
    ``unified_radix_cache.py`` ``checkpoint_into_tree`` l.1164-1330, unfinished), and
    at the finish ``release_kv_cache`` (``common.py`` l.400-444) checkpoints again as
    finished; the output tokens are not inserted and decode moves no cursor.

    Lookup: key = prompt[:L-1] page-aligned; walk the tree, splitting the node where
    the key diverges / ends; the hit is the deepest visited node end where every
    validator passes: Full always; SWA (``swa.py`` l.357-377): a tombstone fails and
    resets the run, a live node adds its length and passes when the live run since
    the last tombstone is >= the tree window (the run starts infinite, so a path with
    no tombstone passes everywhere); Mamba: the node holds a state.  ``full_hit`` =
    tokens of the key found in the tree.  Junctions: ``swa_branching_seqlen =
    full_hit`` when > hit (``swa.py`` l.389-395); ``mamba_branching_seqlen =
    floor(full_hit/grid)*grid`` when > hit (``mamba.py`` l.164-194).

    Storing:
      * insert length E: L; SWA-only hybrid with a junction -> E = J_swa (the
        request does NOT insert its tail at the post-prefill checkpoint; the tail
        [J, L) goes in at the finish); Mamba extra_buffer -> E = the tracked position
        T (``schedule_batch.py`` l.3137-3240: T = hit + floor((L-hit)/grid)*grid when
        L-hit >= grid, replaced by the junction J_m when present -- only one state per
        extend); no tracked position -> nothing at all is inserted (Full KV included);
        the finish inserts nothing more (the track was consumed).  no_buffer -> E = L,
        with the state after L tokens (page must be 1, no junction).
      * SWA: spans are freed only at unfinished checkpoints with a prefix-sharing tree
        (``checkpoint_into_tree`` l.1211-1221, env
        ``SGLANG_OPT_UNIFIED_CACHE_FREE_OUT_OF_WINDOW_SLOTS`` default True; not during
        the extend, ``schedule_batch.py`` l.4105-4118): the cursor moves to
        ``max(hit, page_floor(E - 1 - ceil_page(max(Wt, page))))`` when
        ``E - 1 - Wt >= 1`` (``common.py`` l.75-138); inserted spans below the cursor
        are tombstones, above it live; an existing tombstone overlapped by the insert
        is revived from the cursor up (the junction request thereby re-stores the
        window ending at J).  After a junction insert the cursor is moved again with
        ``pre_len = L - 1`` (``swa.py`` l.1051-1071) and the finish inserts
        [J, page_floor(L)) with it.
      * Wt = the tree window = ``group["sglang_window"]`` if given, else
        ``window - 1`` (gpt-oss / Gemma 2 / Gemma 3 report ``sliding_window - 1``,
        ``models/gpt_oss.py`` ``get_attention_sliding_window_size``).

    ``grid``: the Mamba checkpoint grid = cache chunk size
    (``mamba_checkpoint_grid`` = lcm(max(mamba chunk or 64, page), page),
    ``runtime_context.py`` l.1966-1971, ``overrides.py`` l.1897-1925); must be a
    multiple of ``page``.  ``strategy``: "extra_buffer" or "no_buffer".
    """
    return _sglang_run(
        prompts, page=page, groups=groups, strategy=strategy, grid=grid, finish_at_prefill=False
    )


def sglang_cached_tokens_finish_at_prefill(
    prompts: list[list[int]],
    *,
    page: int = 1,
    groups: list[dict],
    strategy: str = "extra_buffer",
    grid: int = 64,
) -> list[int]:
    """Variant of :func:`sglang_cached_tokens` where every request finishes in its
    prefill step (``max_new_tokens = 1``): only the finished ``release_kv_cache``
    checkpoint runs, which frees no SWA (``is_finished`` skips the out-of-window
    free), so every inserted SWA span is live and no tombstone ever exists; a junction
    request still inserts only up to J (its tail is freed, never inserted)."""
    return _sglang_run(
        prompts, page=page, groups=groups, strategy=strategy, grid=grid, finish_at_prefill=True
    )
