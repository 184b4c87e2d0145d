"""The radix tree against a brute-force oracle, plus its bookkeeping."""

from __future__ import annotations

from array import array

from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.index import radix
from advisor.index.radix import RadixTree, pack, unpack
from tests.oracle import cached_tokens

# Small alphabets make long shared prefixes and many splits likely.
token = st.integers(min_value=0, max_value=3)
seqs = st.lists(st.lists(token, min_size=0, max_size=40), min_size=1, max_size=25)


def _derived(prefixes: list[list[int]], tails: list[list[int]], picks: list[int]) -> list[list[int]]:
    out = []
    for i, tail in enumerate(tails):
        base = prefixes[picks[i] % len(prefixes)]
        out.append(base + tail)
    return out


shared_traffic = st.builds(
    _derived,
    st.lists(st.lists(st.integers(0, 50_000), min_size=0, max_size=60), min_size=1, max_size=4),
    st.lists(st.lists(st.integers(0, 3), min_size=0, max_size=30), min_size=1, max_size=30),
    st.lists(st.integers(0, 10), min_size=30, max_size=30),
)


@settings(max_examples=300, deadline=None)
@given(seqs, st.sampled_from([1, 2, 3, 16]))
def test_insert_returns_oracle_lcp(requests: list[list[int]], page: int) -> None:
    tree = RadixTree(page)
    got = [tree.insert(r) for r in requests]
    assert got == cached_tokens(requests, page)


@settings(max_examples=200, deadline=None)
@given(shared_traffic, st.sampled_from([1, 16]))
def test_shared_prefix_traffic_matches_oracle(requests: list[list[int]], page: int) -> None:
    tree = RadixTree(page)
    assert [tree.insert(r) for r in requests] == cached_tokens(requests, page)
    # Matching after the fact finds every request's whole (page-rounded) self.
    for r in requests:
        assert tree.match(r) == len(r) // page * page


@settings(max_examples=200, deadline=None)
@given(seqs)
def test_tree_tokens_and_counts(requests: list[list[int]]) -> None:
    tree = RadixTree(1)
    for r in requests:
        tree.insert(r)
    distinct_prefixes = {tuple(r[:k]) for r in requests for k in range(1, len(r) + 1)}
    # Every distinct non-empty prefix ends at exactly one token of the tree.
    assert tree.total_tokens == len(distinct_prefixes)
    assert sum(n.num_tokens for n, _ in tree.nodes()) == tree.total_tokens
    for node, depth in tree.nodes():
        path = tuple(tree.path_ids(node))
        assert len(path) == depth
        assert node.count == sum(1 for r in requests if tuple(r[:depth]) == path)


def test_partial_last_page_is_not_stored() -> None:
    tree = RadixTree(16)
    assert tree.insert(list(range(40))) == 0
    assert tree.total_tokens == 32
    assert tree.insert(list(range(40))) == 32
    assert tree.insert(list(range(15))) == 0  # shorter than one page: nothing to share


def test_remove_leaf_and_reinsert() -> None:
    tree = RadixTree(1)
    tree.insert([1, 2, 3, 4])
    tree.insert([1, 2, 9])
    leaves = sorted(tree.leaves(), key=lambda n: tree.path_ids(n))
    assert [tree.path_ids(n) for n in leaves] == [[1, 2, 3, 4], [1, 2, 9]]
    assert tree.remove_leaf(leaves[1]) == 1
    assert tree.total_tokens == 4
    assert tree.insert([1, 2, 9]) == 2


def test_shared_branches_rank_by_tokens_saved() -> None:
    tree = RadixTree(1)
    system = list(range(1000, 1100))
    for i in range(10):
        tree.insert(system + [i, i + 1])
    for i in range(3):
        tree.insert([7, 7, 7] + [i])
    top = tree.shared_branches(top=5)
    assert top[0].prefix_tokens == 100 and top[0].requests == 10
    assert (top[1].prefix_tokens, top[1].requests) == (3, 3)


def test_pack_round_trip_and_memory_budget() -> None:
    ids = [0, 1, 2**32 - 1, 128000]
    assert unpack(pack(ids)) == ids
    assert pack(array("I", ids)) == pack(ids)
    tree = RadixTree(1)
    system = list(range(3000))
    for i in range(200):
        tree.insert(system + list(range(10_000 + i * 200, 10_000 + i * 200 + 200)))
    # Target of the foundation issue: at most 16 bytes per tree token, node overhead included.
    assert tree.memory_bytes() / tree.total_tokens <= 16


def test_finished_trees_are_collected_at_once_only_where_they_were_large(monkeypatch) -> None:
    """A full collection walks the whole heap: after a small tree it waits for the collector's
    own pace, after a tree of COLLECT_TOKENS or more it runs at once."""
    calls: list[int] = []
    monkeypatch.setattr(radix.gc, "collect", lambda *a: calls.append(1) or 0)
    radix.free_trees(radix.COLLECT_TOKENS - 1)
    assert calls == []
    radix.free_trees(radix.COLLECT_TOKENS)
    assert calls == [1]
