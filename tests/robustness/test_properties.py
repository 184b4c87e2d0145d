"""Property and fuzz tests (hypothesis).

* The radix tree against a brute-force model (the set of stored page-prefixes) under random
  insert / match / match_prefix / evict sequences, with page sizes.
* vLLM's block-LRU pool against a brute-force LRU list, for small pools; SGLang's
  whole-leaf pool (LRU, LFU, FIFO) against brute-force matching over what it holds.
* Loaders on arbitrary bytes and arbitrary JSON raise nothing but ``AdvisorError`` (or skip).
* Lint and the sandbox on arbitrary template text never crash.
"""

from __future__ import annotations

import gzip
import json
import os
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from advisor.errors import AdvisorError
from advisor.index.radix import RadixTree

# ADVISOR_FUZZ_EXAMPLES=5000 for a deeper hunt than the suite's default.
FUZZ = settings(max_examples=int(os.environ.get("ADVISOR_FUZZ_EXAMPLES", "150")), deadline=None,
                suppress_health_check=[HealthCheck.too_slow])

# --- the radix tree ---------------------------------------------------------------------------

token = st.integers(min_value=0, max_value=3)
op = st.one_of(
    st.tuples(st.just("insert"), st.lists(token, max_size=24)),
    st.tuples(st.just("match"), st.lists(token, max_size=24)),
    st.tuples(st.just("match_prefix"), st.lists(token, max_size=24)),
    st.tuples(st.just("evict"), st.integers(min_value=0, max_value=1000)),
)


def _stored_match(stored: set[tuple[int, ...]], seq: list[int], page: int) -> int:
    """Longest whole-page prefix of ``seq`` in the model (stored prefixes are prefix-closed)."""
    k = 0
    while k + page <= len(seq) and tuple(seq[: k + page]) in stored:
        k += page
    return k


@settings(max_examples=400, deadline=None)
@given(st.lists(op, max_size=40), st.sampled_from([1, 2, 4]))
def test_radix_tree_against_brute_force(ops, page):
    tree = RadixTree(page)
    stored: set[tuple[int, ...]] = set()  # every whole-page prefix the tree holds
    for name, arg in ops:
        if name in ("insert", "match", "match_prefix"):
            expected = _stored_match(stored, arg, page)
            if name == "insert":
                assert tree.insert(arg) == expected
                for k in range(page, len(arg) - len(arg) % page + 1, page):
                    stored.add(tuple(arg[:k]))
            elif name == "match":
                assert tree.match(arg) == expected
            else:
                node, matched, _ = tree.match_prefix(arg, split=True)
                assert matched == expected
                assert tree.depth_of(node) == matched  # split: the node ends where the match ends
        else:
            leaves = sorted(tree.leaves(), key=lambda n: tree.path_ids(n))
            if not leaves:
                continue
            leaf = leaves[arg % len(leaves)]
            path = tree.path_ids(leaf)
            removed = tree.remove_leaf(leaf)
            assert removed == len(leaf.key) // 4
            for k in range(len(path) - removed + page, len(path) + 1, page):
                stored.discard(tuple(path[:k]))
        # Invariants after every step.
        assert tree.total_tokens == len(stored) * page
        assert tree.num_nodes == 1 + sum(1 for _ in tree.nodes())
        maximal = {s for s in stored if not any(len(o) > len(s) and o[: len(s)] == s for o in stored)}
        assert {tuple(tree.path_ids(n)) for n in tree.leaves()} == maximal


# --- block-LRU pool against a brute-force LRU list --------------------------------------------


def _brute_block_lru(requests: list[list[tuple[int, ...]]], capacity_blocks: int) -> list[int]:
    """vLLM's free queue, the slow way: a list, least recently freed first; a finished
    request frees its blocks tail first; eviction takes from the head, only as needed."""
    queue: list[tuple[int, ...]] = []
    hits = []
    for blocks in requests:
        cached = set(queue)
        h = 0
        while h < len(blocks) and blocks[h] in cached:
            h += 1
        hits.append(h)
        mine = [b for b in blocks if b in cached]
        for b in mine:
            queue.remove(b)
        new = [b for b in blocks if b not in cached]
        while queue and len(queue) + len(mine) + len(new) > capacity_blocks:
            queue.pop(0)
        queue.extend(reversed(blocks))
    return hits


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.integers(0, 3), min_size=1, max_size=6), min_size=1, max_size=30),
       st.integers(min_value=0, max_value=8))
def test_block_lru_pool_against_brute_force(id_lists, extra):
    from advisor.index.radix import pack
    from advisor.simulate.block_lru import BlockIndex, BlockPool
    from advisor.simulate.model import HitRules, Job

    unit = 16
    capacity_blocks = max(len(ids) for ids in id_lists) + extra
    pool = BlockPool(capacity_blocks * unit, HitRules("none", 1), BlockIndex(unit))
    got = []
    for i, ids in enumerate(id_lists):
        job = Job(i, "hash:x", pack(ids), unit * len(ids), unit, float(i), 1, None)
        lease = pool.acquire(job, 0, False)
        assert lease is not None
        got.append(lease.matched)
        pool.commit(lease)
        pool.release(lease)
        assert pool.used_tokens() <= capacity_blocks * unit
    prefixes = [[tuple(ids[: k + 1]) for k in range(len(ids))] for ids in id_lists]
    assert got == _brute_block_lru(prefixes, capacity_blocks)


# --- loaders ----------------------------------------------------------------------------------


def _drain(path: Path) -> tuple[int, int]:
    from advisor.ingest.traffic import iter_file

    skips = []
    try:
        n = sum(1 for _ in iter_file(path, skips.append))
    except AdvisorError as exc:
        assert "\n" not in str(exc)
        return -1, len(skips)
    for s in skips:
        assert s.source == str(path) and s.line >= 1 and "\n" not in s.reason
    return n, len(skips)


@FUZZ
@given(st.binary(max_size=600), st.sampled_from([".jsonl", ".jsonl.gz"]), st.booleans())
def test_loader_on_arbitrary_bytes(data, suffix, compress):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"t{suffix}"
        path.write_bytes(gzip.compress(data, mtime=0) if compress else data)
        _drain(path)


json_value = st.recursive(
    st.none() | st.booleans() | st.integers(-2**40, 2**40) | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
message = st.fixed_dictionaries({}, optional={
    "role": st.sampled_from(["system", "user", "assistant", "tool", "wizard"]) | json_value,
    "content": st.text(max_size=30) | json_value | st.lists(
        st.fixed_dictionaries({}, optional={"type": st.sampled_from(["text", "image_url"]), "text": json_value})),
    "tool_calls": json_value | st.lists(st.fixed_dictionaries({}, optional={
        "function": json_value | st.fixed_dictionaries({}, optional={"name": json_value, "arguments": json_value})})),
})
record = st.one_of(
    st.fixed_dictionaries({"messages": st.lists(message, max_size=3) | json_value},
                          optional={"tools": json_value, "timestamp": json_value, "tenant": json_value,
                                    "output_length": json_value, "id": json_value}),
    st.fixed_dictionaries({"prompt": st.text(max_size=40) | json_value}, optional={"timestamp": json_value}),
    st.fixed_dictionaries({"input_ids": st.lists(st.integers(-5, 200_000), max_size=8) | json_value}),
    st.fixed_dictionaries({"hash_ids": st.lists(st.integers(-5, 2**33), max_size=5) | json_value},
                          optional={"input_length": json_value}),
    st.fixed_dictionaries({"template": st.sampled_from(["ok", "missing"]) | json_value,
                           "variables": st.dictionaries(st.text(max_size=5), json_value, max_size=3) | json_value}),
    json_value,
)


@FUZZ
@given(st.lists(record, min_size=1, max_size=6))
def test_pipeline_on_arbitrary_records(records):
    """Records of every shape, through parsing, chat layout, templates and tokenizing:
    each is a Sequence or a skip, never another exception."""
    from advisor.ingest.source import make_renderer
    from advisor.ingest.pipeline import sequences

    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "ok.j2").write_text("Hello {{ name }} {{ items|join(', ') if items is iterable else items }}")
        path = root / "t.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in records))
        renderer = make_renderer("llama3", None, root, [path])
        skips = []
        try:
            seqs = list(sequences([path], renderer, skips.append, block_size=16, workers=1))
        except AdvisorError:
            return
        # Every line ends as sequences or skips (a JSON array line is several records).
        covered = {q.request.line for q in seqs} | {s.line for s in skips}
        assert covered == set(range(1, len(records) + 1))
        assert len(seqs) + len(skips) >= len(records)
        for s in skips:
            assert "\n" not in s.reason


# --- templates: lint and sandbox on arbitrary text --------------------------------------------

jinja_bits = st.sampled_from([
    "{{", "}}", "{%", "%}", "{#", "#}", "{%-", "-%}", " if ", " endif ", " for ", " in ", " endfor ", " set ",
    " macro ", " endmacro ", " call ", " include ", " raw ", " endraw ", " block ", " extends ", "x", "y.z",
    "'s'", '"t"', "(", ")", "[", "]", "|upper", "|join", ",", "=", "~", "*", "+", "%", "**", "\n", " ", "system:",
    "user:", "messages:", "- role: user", "content: |", "---", "&a", "*a", "__class__", "range(3)", "now()",
    "loop.index", "namespace()", "9",
])
template_text = st.lists(jinja_bits | st.text(max_size=3), max_size=40).map("".join)


@FUZZ
@given(template_text, st.sampled_from(["t.j2", "chat_template.jinja", "p.yaml", "p.prompty", "c.json"]))
def test_lint_never_crashes(text, name):
    from advisor.lint import config, engine
    from advisor.rules import REGISTRY

    cfg = config.parse({}, "test", REGISTRY)
    result = engine.lint_texts({name: text}, cfg, REGISTRY, len)
    for f in result.findings:
        assert f.line >= 1


@FUZZ
@given(template_text)
def test_sandbox_raises_only_its_error(text):
    from advisor.ingest.sandbox import LimitedSandbox, compile_untrusted, render_untrusted

    try:
        template = compile_untrusted(LimitedSandbox(), text, "t.j2")
        out = render_untrusted(template, {"x": "a", "y": {"z": [1, 2]}}, seconds=0.5)
    except AdvisorError as exc:
        assert "\n" not in str(exc)
        return
    assert isinstance(out, str)


# --- SGLang's whole-leaf pool: the radix tree under capacity ----------------------------------


def _lcp(a: list[int], b: list[int]) -> int:
    n = 0
    while n < len(a) and n < len(b) and a[n] == b[n]:
        n += 1
    return n


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.integers(0, 2), min_size=1, max_size=20), min_size=1, max_size=30),
       st.sampled_from([1, 2, 4]), st.integers(min_value=0, max_value=30), st.sampled_from(["lru", "lfu", "fifo"]))
def test_branch_pool_matches_what_it_holds(requests, page, extra, priority):
    """Under eviction, a request's match is its longest whole-page prefix among the
    sequences the pool still holds (brute force over the tree's leaf paths); the books
    balance; the request just served is held whole; the pool never overflows."""
    from advisor.index.radix import pack
    from advisor.simulate.branch_lru import BranchPool
    from advisor.simulate.model import HitRules, Job

    capacity = max(len(r) for r in requests) + extra
    pool = BranchPool(capacity, HitRules("none", page), priority)
    for i, ids in enumerate(requests):
        job = Job(i, "tokens", pack(ids), len(ids), 1, float(i), 1, None)
        tree = pool.trees.get("tokens")
        held = [tree.path_ids(leaf) for leaf in tree.leaves()] if tree else []
        expected = max((_lcp(ids, path) for path in held), default=0)
        expected -= expected % page
        lease = pool.acquire(job, 0, False)
        assert lease is not None
        assert lease.matched == expected
        pool.commit(lease)
        pool.release(lease)
        tree = pool.trees["tokens"]
        assert pool.reserved == 0
        assert pool.tree_tokens == tree.total_tokens
        assert pool.used_tokens() <= capacity
        whole = len(ids) - len(ids) % page
        assert tree.match(ids) == whole
