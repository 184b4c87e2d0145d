"""The radix tree as plain data for a picture: the prefix tree's icicle and the divergence examples.

``tree_view`` keeps the nodes that matter most (``MAX_NODES`` at most, by tokens x requests,
every kept node's ancestors kept with it, so the kept nodes are a tree from the roots) and
describes each one: its token run decoded (bounded), how many requests passed through it, the
share of its token-visits a cache serves, and the first requests that share it.

``divergence_examples`` finds, for a traffic finding's token offset, pairs of requests that
share the prefix up to where the tree branches at (or soonest after) that offset and part
right after it, and cuts a decoded window around the first differing token of each.

Both are pure functions of the analysis and the sequences it indexed (same input, same output:
children are walked in the order of their keys, ties broken by that order).
"""

from __future__ import annotations

import heapq
from typing import Any, Callable, Iterable, Sequence as SequenceOf

from advisor.findings import Finding
from advisor.index.analyze import Analysis
from advisor.index.radix import Node, RadixTree
from advisor.ingest.ids import ITEM, as_array, common_bytes, pack, unpack
from advisor.ingest.pipeline import TOKEN_NAMESPACE, Sequence

Decode = Callable[[list[int]], str]

MAX_NODES = 1_500  # nodes kept for the picture (the demo traffic's tree has a few thousand)
CANDIDATES = 20 * MAX_NODES  # the best-scored nodes the choice looks at (bounds the sort on huge trees)
HEAD_TOKENS = 64  # tokens of a node's run decoded for its text ...
TAIL_TOKENS = 16  # ... and of its end, when the run is longer
TEXT_CHARS = 240  # characters of a node's text at most (head and tail together)
LABELS = 4  # requests named per node
LABEL_CHARS = 120  # characters of a request label at most
PAIRS = 2  # example pairs per finding
NEAR = 64  # tokens: how far from a finding's offset a branching of the tree is looked for
ALIGN = 24  # tokens before the offset two requests agree on, where the tree parted them earlier
SCAN = 5_000  # requests looked at for such a pair
BEFORE_TOKENS = 40  # tokens of shared text shown before the first differing token
AFTER_TOKENS = 60  # tokens shown from the first differing token on
WINDOW_CHARS = 600  # characters of each side of a window at most


def tree_view(analysis: Analysis, decode: Decode, seqs: Iterable[Sequence],
              max_nodes: int = MAX_NODES) -> dict[str, Any]:
    """The prefix tree's nodes (at most ``max_nodes``) as JSON-ready data.

    Each node: ``id`` (preorder over the kept nodes), ``parent`` (None for a node at the top
    of its namespace's tree), ``namespace``, ``tokens`` (its run), ``depth`` (tokens from the
    root to its end), ``requests`` (sequences that passed through it), ``reuse`` ((requests -
    1) / requests: the share of its token-visits a cache with unlimited capacity serves),
    ``text`` (its run decoded, head and tail, bounded) and ``labels`` (``file:line`` of the
    first ``LABELS`` requests through it, in arrival order).
    """
    trees = [(name, analysis.trees[name], analysis.units.get(name, 1)) for name in sorted(analysis.trees)]
    kept = _choose(trees, max_nodes)
    nodes: list[dict[str, Any]] = []
    ids: dict[int, int] = {}  # id(Node) -> its id in the view
    total_nodes = 0
    visits = kept_visits = 0
    for name, tree, unit in trees:
        total_nodes += tree.num_nodes - 1
        for node, depth, parent in _walk(tree):
            tokens = node.num_tokens * unit
            visits += tokens * node.count
            if id(node) not in kept:
                continue
            kept_visits += tokens * node.count
            ids[id(node)] = len(nodes)
            nodes.append({
                "id": len(nodes),
                "parent": ids[id(parent)] if parent is not tree.root else None,
                "namespace": name,
                "tokens": tokens,
                "depth": depth * unit,
                "requests": node.count,
                "reuse": round((node.count - 1) / node.count, 6) if node.count else 0.0,
                "text": _node_text(node, unit, decode),
                "labels": [],
            })
    _label(analysis, seqs, ids, nodes)
    return {"nodes": nodes, "total_nodes": total_nodes, "max_nodes": max_nodes,
            "token_visits": visits, "kept_token_visits": kept_visits}


def _walk(tree: RadixTree) -> Iterable[tuple[Node, int, Node]]:
    """Every node but the root in preorder, children in key order: node, depth in ids at
    its end, parent."""
    stack: list[tuple[Node, int]] = [(tree.root, 0)]
    while stack:
        node, depth = stack.pop()
        if node is not tree.root:
            assert node.parent is not None
            yield node, depth, node.parent
        if node.children:
            for key in sorted(node.children, reverse=True):
                child = node.children[key]
                stack.append((child, depth + child.num_tokens))


def _choose(trees: list[tuple[str, RadixTree, int]], max_nodes: int) -> set[int]:
    """The ids (``id(node)``) of the nodes kept: the best by tokens x requests, each with all
    its ancestors, as long as the whole stays within ``max_nodes``."""
    def scored() -> Iterable[tuple[int, int, Node]]:
        order = 0
        for _, tree, unit in trees:
            for node, _, _ in _walk(tree):
                yield node.num_tokens * unit * node.count, -order, node
                order += 1

    # Highest score first; among equals the node met first in the walk (the larger -order).
    # (A heap of CANDIDATES: memory stays bounded however big the tree.)
    best = heapq.nlargest(CANDIDATES, scored(), key=lambda s: (s[0], s[1]))
    roots = {id(tree.root) for _, tree, _ in trees}
    kept: set[int] = set()
    for _, _, node in best:
        if len(kept) >= max_nodes:
            break
        chain: list[int] = []
        up: Node | None = node
        while up is not None and id(up) not in roots and id(up) not in kept:
            chain.append(id(up))
            up = up.parent
        if len(kept) + len(chain) <= max_nodes:
            kept.update(chain)
    return kept


def _node_text(node: Node, unit: int, decode: Decode) -> str:
    """A node's run decoded: its head, and its tail after an ellipsis when the run is longer."""
    ids = unpack(node.key)
    if unit != 1:
        return f"hash blocks {ids[0]} .. {ids[-1]} ({len(ids)} blocks)" if ids else ""
    if len(ids) <= HEAD_TOKENS + TAIL_TOKENS:
        return _cut(decode(ids), TEXT_CHARS)
    head = decode(ids[:HEAD_TOKENS])[: TEXT_CHARS * 3 // 4]
    tail = decode(ids[-TAIL_TOKENS:])[-(TEXT_CHARS // 4):]
    return head + " … " + tail


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _label_of(seq: Sequence) -> str:
    return _cut(seq.request.where, LABEL_CHARS)


def _label(analysis: Analysis, seqs: Iterable[Sequence], ids: dict[int, int], nodes: list[dict[str, Any]]) -> None:
    """Name the first ``LABELS`` requests through each kept node (in arrival order)."""
    full = 0
    for seq in seqs:
        if full >= len(nodes):
            break
        tree = analysis.trees.get(seq.namespace)
        if tree is None:
            continue
        key = pack(seq.ids)
        pb = tree.page_size * ITEM
        key = key[: len(key) - len(key) % pb]
        node = tree.root
        pos = 0
        label = None
        while pos < len(key) and node.children:
            child = node.children.get(key[pos:pos + pb])
            if child is None or id(child) not in ids or not key.startswith(child.key, pos):
                break
            entry = nodes[ids[id(child)]]
            if len(entry["labels"]) < LABELS:
                label = label or _label_of(seq)
                entry["labels"].append(label)
                full += len(entry["labels"]) == LABELS
            pos += len(child.key)
            node = child


# --- divergence examples --------------------------------------------------------------------

def divergence_examples(analysis: Analysis, seqs: SequenceOf[Sequence], decode: Decode,
                        findings: Iterable[Finding], rewritten: SequenceOf[Sequence] | None = None,
                        pairs: int = PAIRS) -> list[dict[str, Any]]:
    """For each traffic finding with a token offset (``index``: its place in ``findings``),
    up to ``pairs`` example pairs of requests that share the prefix up to the tree's
    branching at that offset (or the nearest after it, within ``NEAR`` tokens) and part right
    after it. Where an earlier defect parted the requests before the offset already (the tree
    has no branching there), the pairs agree on the ``ALIGN`` tokens before the offset and
    part at it (``aligned_from``: where that agreement starts; 0 for the tree's pairs).

    Each side of a pair is a window (``sides``); with ``rewritten`` (the traffic after the
    prescribed rewrite, one sequence per sequence of ``seqs``), each pair also shows the two
    requests rewritten, parted where those two part now."""
    tree = analysis.trees.get(TOKEN_NAMESPACE)
    branching = _branching(tree) if tree is not None else []
    out: list[dict[str, Any]] = []
    for index, f in enumerate(findings):
        if not f.is_traffic or f.token_offset is None:
            continue
        entry: dict[str, Any] = {"index": index, "code": f.code, "kind": f.kind, "token_offset": f.token_offset,
                                 "message": f.message, "pairs": []}
        out.append(entry)
        node = _nearest(branching, f.token_offset)
        since = 0
        found = _pairs(tree, node, seqs, pairs) if node is not None and tree is not None else []
        if not found:
            since = max(0, f.token_offset - ALIGN)
            found = _aligned_pairs(seqs, since, f.token_offset, pairs)
        for a, b in found:
            pair: dict[str, Any] = {"shared_tokens": _shared(seqs[a], seqs[b]), "aligned_from": since}
            pair["a"], pair["b"] = sides(seqs[a], seqs[b], decode, since)
            if rewritten is not None:
                ra, rb = rewritten[a], rewritten[b]
                after: dict[str, Any] = {"shared_tokens": _shared(ra, rb),
                                         "changed": [ra is not seqs[a], rb is not seqs[b]]}
                after["a"], after["b"] = sides(ra, rb, decode)
                pair["after"] = after
            entry["pairs"].append(pair)
    return out


def _branching(tree: RadixTree) -> list[tuple[int, int, Node]]:
    """Nodes where the tree branches (two children or more): depth at their end, preorder."""
    found = []
    for order, (node, depth, _) in enumerate(_walk(tree)):
        if node.children and len(node.children) >= 2:
            found.append((depth, order, node))
    if tree.root.children and len(tree.root.children) >= 2:
        found.append((0, -1, tree.root))
    return found


def _nearest(branching: list[tuple[int, int, Node]], offset: int) -> Node | None:
    """The branching at ``offset`` or the nearest after it (within ``NEAR``): requests part
    inside the value that starts there, never before it (a branching before it parts other
    content: another template's, an earlier defect's). Among equals, the one the most
    requests pass."""
    best: tuple[int, int, int] | None = None
    chosen = None
    for depth, order, node in branching:
        if not offset <= depth <= offset + NEAR:
            continue
        requests = sum(c.count for c in (node.children or {}).values())
        rank = (depth - offset, -requests, order)
        if best is None or rank < best:
            best, chosen = rank, node
    return chosen


def _shared(a: Sequence, b: Sequence) -> int:
    """Tokens two sequences share from the start."""
    return common_bytes(pack(a.ids), 0, pack(b.ids), 0) // ITEM


def _pairs(tree: RadixTree, node: Node, seqs: SequenceOf[Sequence], limit: int) -> list[tuple[int, int]]:
    """Pairs of sequence indexes through two different children of ``node``: the first
    requests of its busiest children."""
    assert node.children is not None
    path = as_array(tree.path_ids(node))
    at, page = len(path), tree.page_size
    busiest = sorted(node.children.items(), key=lambda kv: (-kv[1].count, kv[0]))[:3]
    slot = {key: k for k, (key, _) in enumerate(busiest)}
    firsts: list[list[int]] = [[] for _ in busiest]
    for i, seq in enumerate(seqs):
        ids = seq.ids
        if seq.namespace != TOKEN_NAMESPACE or len(ids) < at + page or ids[:at] != path:
            continue
        k = slot.get(pack(ids[at:at + page]))
        if k is not None and len(firsts[k]) < 2:
            firsts[k].append(i)
            if all(len(x) == 2 for x in firsts):
                break
    out: list[tuple[int, int]] = []
    options = [(0, 0, 1, 0), (0, 0, 2, 0), (0, 1, 1, 1), (0, 1, 1, 0), (0, 0, 1, 1)]
    for ca, ka, cb, kb in options:
        if len(out) >= limit:
            break
        if cb < len(firsts) and ka < len(firsts[ca]) and kb < len(firsts[cb]):
            pair = (firsts[ca][ka], firsts[cb][kb])
            if pair not in out:
                out.append(pair)
    return out


def _aligned_pairs(seqs: SequenceOf[Sequence], since: int, offset: int, limit: int) -> list[tuple[int, int]]:
    """Pairs of sequence indexes (among the first ``SCAN``) that agree on tokens ``since`` to
    ``offset`` and differ at ``offset``: the earliest request of each such window with the
    first later one that differs there (a new token each time)."""
    groups: dict[bytes, tuple[int, set[int]]] = {}
    out: list[tuple[int, int]] = []
    for i, seq in enumerate(seqs):
        if i >= SCAN or len(out) >= limit:
            break
        ids = seq.ids
        if seq.namespace != TOKEN_NAMESPACE or len(ids) <= offset:
            continue
        key, token = pack(ids[since:offset]), ids[offset]
        group = groups.get(key)
        if group is None:
            groups[key] = (i, {token})
        elif token not in group[1]:
            group[1].add(token)
            out.append((group[0], i))
    return out


def sides(a: Sequence, b: Sequence, decode: Decode, since: int = 0) -> tuple[dict[str, Any], dict[str, Any]]:
    """Both requests decoded around their first differing token at or after ``since``:
    ``before`` (shared text, from ``since`` on), ``token`` (the first differing token,
    decoded), ``after`` (the window's rest), and ``first_char``, where in ``token + after``
    the text first differs from the other side's."""
    ka, kb = pack(a.ids), pack(b.ids)
    at = since + common_bytes(ka, since * ITEM, kb, since * ITEM) // ITEM
    wa, wb = _window(a, at, decode, since), _window(b, at, decode, since)
    rest_a, rest_b = wa["token"] + wa["after"], wb["token"] + wb["after"]
    first = 0
    while first < min(len(rest_a), len(rest_b)) and rest_a[first] == rest_b[first]:
        first += 1
    wa["first_char"] = wb["first_char"] = first
    return wa, wb


# A character can span tokens (byte-level BPE splits an emoji into 2-4); the marked token is
# widened by at most this many on each side until it decodes to whole characters.
SPLIT_TOKENS = 3


def _whole(ids: Any, lo: int, hi: int, decode: Decode, floor: int) -> tuple[int, int]:
    """``[lo, hi)`` widened to the smallest span, at most ``SPLIT_TOKENS`` further on each
    side, that decodes with the fewest broken characters (U+FFFD)."""
    def cost(span: tuple[int, int]) -> tuple[int, int]:
        return decode(ids[span[0]:span[1]].tolist()).count("\ufffd"), span[1] - span[0]

    spans = [(a, b) for a in range(lo, max(floor, lo - SPLIT_TOKENS) - 1, -1)
             for b in range(hi, min(len(ids), hi + SPLIT_TOKENS) + 1)]
    return min(spans, key=cost)


def _window(seq: Sequence, at: int, decode: Decode, since: int) -> dict[str, Any]:
    ids = seq.ids
    lo, hi = _whole(ids, at, min(at + 1, len(ids)), decode, 0)
    start = min(lo, max(since, lo - BEFORE_TOKENS))
    before = decode(ids[start:lo].tolist())
    token = decode(ids[lo:hi].tolist())
    after = decode(ids[hi:hi + AFTER_TOKENS - 1].tolist())
    return {
        "label": _label_of(seq),
        "tokens": seq.prompt_tokens,
        "at": at,
        "before": ("…" if start > 0 or len(before) > WINDOW_CHARS else "") + before[-WINDOW_CHARS:],
        "token": token[:WINDOW_CHARS],
        "after": after[: WINDOW_CHARS] + ("…" if hi + AFTER_TOKENS - 1 < len(ids) or len(after) > WINDOW_CHARS else ""),
    }
