"""The offline optimal bound: an eviction that knows the future (Belady with bypass).

What ``--sweep`` and the advisory's capacity table show beside the real policies, so a reader
sees whether a gap to unlimited capacity is the policy's (change it) or the memory's (buy it).
It replays the requests in arrival order, one at a time, like replay mode, with the semantics
of kvcache-simulator's ``optimal`` policy (REFERENCE §10.6; read from its source, not copied):

- the cache holds blocks of a prefix trie (pages of the engine's page size, or a trace's
  ``hash_ids`` blocks); a hit is the run of leading blocks present;
- after a request's lookup, its missing blocks are inserted in order; when the pool is full,
  the resident block whose next use is farthest away is evicted, but only if that use is
  later than the next use of the block being inserted; otherwise the insert stops there
  (bypass: the rest of the request is not cached);
- only blocks with no resident child are evicted and the request's own path is protected.
  A block's next use is never earlier than its parent's, so this is Belady's rule itself.

Two refinements: blocks are grouped into the segments of the trie of all requests (every block
of a segment is used by the same requests, so they share their next use and are evicted
tail first, as the peer's tie rule does), which keeps page-size-1 traffic fast; and "use" means
a request that can hit the block under the engine's rules (inside its ``L - 1`` cap), the use
that counts. Ties between segments go to the deeper, then the newer one.

It is a bound on eviction for the arrival order: a scheduler that reorders requests (lpm,
dfs-weight) or a router can beat it, and serve mode's concurrency only loses hits against it.
"""

from __future__ import annotations

import heapq
from array import array
from collections.abc import Sequence as SequenceOf
from dataclasses import dataclass

from advisor.ingest.ids import unpack_array
from advisor.simulate.block_lru import BlockIndex
from advisor.simulate.model import HitRules, Job, Totals
from advisor.simulate.replay import warmup_count

NEVER = 1 << 62


@dataclass
class OptimalResult:
    totals: Totals
    evicted_tokens: int
    capacity: int | None


class _Trie:
    """A radix trie over element strings (fixed-width ids as bytes), one root per namespace."""

    def __init__(self, width: int) -> None:
        self.width = width
        self.edge: list[bytes] = [b""]  # segment 0: the common root, holds nothing
        self.children: list[dict[bytes, int]] = [{}]
        self.parent: list[int] = [-1]
        self.depth: list[int] = [0]  # elements from the root to the segment's start
        self._roots: dict[str, int] = {}

    def root(self, namespace: str) -> int:
        r = self._roots.get(namespace)
        if r is None:
            r = self._new(b"", 0, 0)
            self.children[0][b"ns:" + namespace.encode()] = r
            self._roots[namespace] = r
        return r

    def _new(self, edge: bytes, parent: int, depth: int) -> int:
        self.edge.append(edge)
        self.children.append({})
        self.parent.append(parent)
        self.depth.append(depth)
        return len(self.edge) - 1

    def length(self, seg: int) -> int:
        return len(self.edge[seg]) // self.width

    def _common(self, a: bytes, b: bytes) -> int:
        """Common leading elements of two element strings (binary search on slice equality)."""
        w = self.width
        n = min(len(a), len(b)) // w
        if a[: n * w] == b[: n * w]:
            return n
        lo, hi = 0, n  # a[:lo] == b[:lo]; a[:hi] != b[:hi]
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if a[: mid * w] == b[: mid * w]:
                lo = mid
            else:
                hi = mid
        return lo

    def _split(self, seg: int, at: int) -> int:
        """Cut ``seg`` after ``at`` elements; returns the upper part (keeps ``seg``'s id for the lower)."""
        w = self.width
        edge = self.edge[seg]
        upper = self._new(edge[: at * w], self.parent[seg], self.depth[seg])
        parent = self.parent[seg]
        self.children[parent][edge[:w]] = upper
        self.edge[seg] = edge[at * w:]
        self.depth[seg] += at
        self.parent[seg] = upper
        self.children[upper][self.edge[seg][:w]] = seg
        return upper

    def insert(self, root: int, key: bytes, cuts: tuple[int, ...]) -> None:
        """Add ``key`` and make segment boundaries at each element offset in ``cuts``."""
        w = self.width
        node, pos, n = root, 0, len(key) // w
        while pos < n:
            head = key[pos * w: pos * w + w]
            child = self.children[node].get(head)
            if child is None:
                self.children[node][head] = self._new(key[pos * w:], node, pos)
                break
            edge = self.edge[child]
            common = self._common(edge, key[pos * w:])
            if common < len(edge) // w:
                child = self._split(child, common)
            node, pos = child, pos + common
        for cut in cuts:
            if 0 < cut < n:
                self._cut(root, key, cut)

    def _cut(self, root: int, key: bytes, at: int) -> None:
        w = self.width
        node, pos = root, 0
        while pos < at:
            child = self.children[node][key[pos * w: pos * w + w]]
            end = pos + self.length(child)
            if end > at:
                self._split(child, at - pos)
                return
            node, pos = child, end

    def path(self, root: int, key: bytes) -> list[int]:
        """The segments spelling ``key`` (its boundaries are segment boundaries after insert)."""
        w = self.width
        node, pos, n = root, 0, len(key) // w
        out = []
        while pos < n:
            node = self.children[node][key[pos * w: pos * w + w]]
            out.append(node)
            pos += self.length(node)
        return out


class OptimalPlan:
    """The trie of all requests and, per segment, the requests that can hit it; built once
    per traffic and hit rules, then run at any number of capacities."""

    def __init__(self, jobs: SequenceOf[Job], rules: HitRules) -> None:
        self.rules = rules
        self.n = len(jobs)
        self._index = BlockIndex(rules.page) if rules.page > 1 else None
        # Elements are 4-byte ids (tokens, trace hash ids) or, with pages, 8-byte block ids;
        # trace ids are widened to 8 bytes then so one trie holds both kinds of request.
        width = 8 if self._index is not None else 4
        keys: list[tuple[bytes, int, str]] = []
        for job in jobs:
            key, useful = self._elements(job)
            keys.append((key, useful, job.namespace))
        self.trie = trie = _Trie(width)
        for key, useful, ns in keys:
            trie.insert(trie.root(ns), key, (useful,))
        self.paths: list[array] = []
        self.useful: array = array("i")
        self.weights: array = array("i")
        uses: dict[int, list[int]] = {}
        for i, (job, (key, useful, ns)) in enumerate(zip(jobs, keys)):
            segs = trie.path(trie.root(ns), key)
            count, depth = 0, 0
            for s in segs:
                depth += trie.length(s)
                if depth > useful:
                    break
                count += 1
                uses.setdefault(s, []).append(i)
            self.paths.append(array("i", segs))
            self.useful.append(count)
            self.weights.append(self._weight(job))
        self.uses = uses
        self.lengths = [trie.length(s) for s in range(len(trie.edge))]

    def _weight(self, job: Job) -> int:
        """Pool tokens one element occupies (a page, a trace block, or a token)."""
        if job.unit != 1:
            return job.unit
        return self.rules.page

    def _elements(self, job: Job) -> tuple[bytes, int]:
        """The job's cacheable elements as bytes, and how many of them it can hit."""
        rules = self.rules
        if job.unit != 1:
            key = job.key if self._index is None else array("q", unpack_array(job.key)).tobytes()
            return key, rules.limit_elements(job)
        if self._index is None:
            return job.key, rules.limit_tokens(job.prompt_tokens)
        blocks = self._index.blocks(job)
        job.memo.pop(self._index, None)  # the plan keeps its own copy; do not pin it on the job
        return array("q", blocks).tobytes(), rules.limit_tokens(job.prompt_tokens) // rules.page

    def matched_to_hit(self, job: Job, elements: int) -> tuple[int, int]:
        """(hit tokens, matched ids in the job's own units) of ``elements`` leading elements."""
        if job.unit == 1 and self._index is not None:
            return self.rules.hit(job, elements * self.rules.page), elements * self.rules.page
        return self.rules.hit(job, elements), elements

    def run(self, jobs: SequenceOf[Job], capacity: int | None, warmup: float = 0.0,
            per_request: array | None = None) -> OptimalResult:
        """Replay ``jobs`` (the ones the plan was built from, same order) at ``capacity`` tokens;
        ``per_request`` (one slot per job) receives each measured request's hit tokens."""
        if len(jobs) != self.n:
            raise ValueError("the plan was built from other jobs")
        skip = warmup_count(self.n, warmup)
        totals = Totals()
        trie, lengths, uses = self.trie, self.lengths, self.uses
        parent, depth = trie.parent, trie.depth
        nseg = len(lengths)
        present = [0] * nseg
        busy_children = [0] * nseg  # children with any element present
        key = [NEVER] * nseg  # next request that can hit the segment
        version = [0] * nseg
        weight = [0] * nseg
        pointer = [0] * nseg
        heap: list[tuple[int, int, int, int]] = []
        used = 0
        evicted = 0
        evicted_from = 0
        limit = NEVER if capacity is None else capacity

        def offer(s: int) -> None:
            version[s] += 1
            heapq.heappush(heap, (-key[s], -depth[s], -s, version[s]))

        for i, job in enumerate(jobs):
            if i == skip:
                evicted_from = evicted
            path = self.paths[i]
            # Lookup: leading elements present, within what the job can hit.
            matched = 0
            for s in path[: self.useful[i]]:
                p = present[s]
                matched += p
                if p < lengths[s]:
                    break
            if i >= skip:
                cached, ids = self.matched_to_hit(job, matched)
                totals.add(job, cached, ids)
                if per_request is not None:
                    per_request[job.index] = cached
            # The path's segments now wait for their next use after this request.
            for s in path:
                ptr, lst = pointer[s], uses.get(s)
                if lst is not None:
                    while ptr < len(lst) and lst[ptr] <= i:
                        ptr += 1
                    pointer[s] = ptr
                    key[s] = lst[ptr] if ptr < len(lst) else NEVER
                else:
                    key[s] = NEVER
                if present[s] and not busy_children[s]:
                    offer(s)
            # Insert the missing elements in order, making room the way Belady would.
            protected = set(path)
            w = self.weights[i]
            for s in path:
                if present[s] == lengths[s]:
                    continue
                weight[s] = w
                need = lengths[s] - present[s]
                stashed: list[tuple[int, int, int, int]] = []
                while need:
                    room = (limit - used) // w
                    take = min(room, need)
                    if take > 0:
                        if not present[s] and parent[s] > 0:
                            busy_children[parent[s]] += 1
                        present[s] += take
                        used += take * w
                        need -= take
                        continue
                    victim = -1
                    while heap:
                        item = heapq.heappop(heap)
                        v = -item[2]
                        if item[3] != version[v] or not present[v] or busy_children[v]:
                            continue
                        if v in protected:
                            stashed.append(item)
                            continue
                        victim = v
                        if -item[0] <= key[s]:  # it is needed no later than this block: bypass
                            heapq.heappush(heap, item)
                            victim = -1
                        break
                    if victim < 0:
                        break
                    short = need * w - (limit - used)
                    k = min(present[victim], -(-short // weight[victim]))
                    present[victim] -= k
                    used -= k * weight[victim]
                    evicted += k * weight[victim]
                    if present[victim]:
                        offer(victim)
                    else:
                        up = parent[victim]
                        if up > 0:
                            busy_children[up] -= 1
                            if not busy_children[up] and present[up]:
                                offer(up)
                for item in stashed:
                    heapq.heappush(heap, item)
                if present[s]:
                    offer(s)
                if need:
                    break  # bypassed: nothing below this segment can be cached
        if skip >= self.n:
            evicted_from = evicted
        return OptimalResult(totals, evicted - evicted_from, capacity)


def optimal_run(jobs: SequenceOf[Job], rules: HitRules, capacity: int | None, warmup: float = 0.0,
                plan: OptimalPlan | None = None) -> OptimalResult:
    """The optimal bound at one capacity (build the plan once to run several)."""
    return (plan or OptimalPlan(jobs, rules)).run(jobs, capacity, warmup)
