"""The job store (requests spilled to disk, one fresh Job per access) and the replay
orders computed from the batch's radix tree instead of from the requests themselves."""

from __future__ import annotations

import os
import random
import tempfile
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.errors import AdvisorError
from advisor.index.radix import pack
from advisor.simulate.inputs import to_jobs
from advisor.simulate.jobs import JobStore, job_store
from advisor.simulate.model import Job
from advisor.simulate.runner import RunSpec, run
from advisor.simulate.schedulers import offline_order
from tests.simulate.helpers import as_sequences, hash_jobs, token_jobs


def same(a: Job, b: Job) -> bool:
    return (a.index, a.namespace, a.key, a.prompt_tokens, a.unit, a.arrival, a.output_len, a.tenant) == (
        b.index, b.namespace, b.key, b.prompt_tokens, b.unit, b.arrival, b.output_len, b.tenant)


def test_store_gives_back_every_field():
    jobs = token_jobs(4, tenants=("a", "b", "c")) + [
        Job(120 + i, "hash:x", j.key, j.prompt_tokens, j.unit, j.arrival, j.output_len) for i, j in enumerate(hash_jobs(2))]
    jobs.append(Job(len(jobs), "tokens", b"", 0, 1, 1e9, 3, "d"))
    store = job_store(jobs)
    assert len(store) == len(jobs)
    assert all(same(a, b) for a, b in zip(jobs, store))
    assert same(store[-1], jobs[-1]) and same(store[7], jobs[7])
    assert store.tenants() == ["a", "b", "c", "d"]
    assert store.has_token_traffic()
    with pytest.raises(IndexError):
        store[len(jobs)]
    # Each access is a new job: what a pool memoizes on it goes with it.
    assert store[3] is not store[3]


def test_store_spills_more_than_one_flush():
    rng = random.Random(0)
    keys = [pack([rng.randrange(1 << 32) for _ in range(rng.randint(0, 3000))]) for _ in range(700)]
    store = JobStore()
    for k in keys:
        store.append("tokens", k, len(k) // 4, 1)
    store.seal()
    assert sum(map(len, keys)) > 2 << 20  # more than two flushes of the write buffer
    assert [j.key for j in store] == keys


def test_to_jobs_sorts_by_timestamp_stably():
    jobs = token_jobs(1, n=30)
    seqs = as_sequences(jobs)
    stamps = [5, 1, 3, 1, 9, 0] * 5
    seqs = [replace(s, request=replace(s.request, timestamp=float(t))) for s, t in zip(seqs, stamps)]
    store, timed = to_jobs(seqs)
    assert timed
    want = sorted(range(30), key=lambda i: stamps[i])
    assert [j.key for j in store] == [jobs[i].key for i in want]
    assert [j.index for j in store] == list(range(30))
    assert [j.arrival for j in store] == [float(stamps[i] - 0) for i in want]


def test_store_and_list_runs_agree():
    jobs = token_jobs(6, tenants=("a", "b"))
    store = job_store(jobs)
    for policy in ("fcfs", "lpm", "dfs-weight", "lof", "random"):
        for eviction in ("branch-lru", "block-lru"):
            for mode in ("replay", "serve"):
                spec = RunSpec(policy=policy, eviction=eviction, capacity=400, page=4, mode=mode, warmup=0.1)
                a, b = run(jobs, spec), run(store, spec)
                assert (a.totals.cached_tokens, a.evicted_tokens, list(a.totals.ttft)) == (
                    b.totals.cached_tokens, b.evicted_tokens, list(b.totals.ttft)), (policy, eviction, mode)


ids = st.lists(st.integers(0, 5), max_size=8)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["tokens", "hash:x"]), ids), max_size=40))
def test_lpm_order_is_the_lexicographic_sort(requests):
    """Oracle: a stable sort on (namespace, the id list), prefixes first."""
    jobs = [Job(i, ns, pack(x), len(x), 1) for i, (ns, x) in enumerate(requests)]
    want = sorted(range(len(jobs)), key=lambda i: (requests[i][0], requests[i][1]))
    assert offline_order("lpm", jobs) == want


def test_lpm_order_compares_ids_as_numbers():
    # Little-endian bytes of 256 (00 01 ..) sort before those of 1 (01 00 ..) as bytes.
    jobs = [Job(0, "t", pack([256]), 1, 1), Job(1, "t", pack([1, 7]), 2, 1), Job(2, "t", pack([1]), 1, 1)]
    assert offline_order("lpm", jobs) == [2, 1, 0]


@settings(max_examples=100, deadline=None)
@given(st.lists(ids, max_size=40))
def test_dfs_weight_order_keeps_equal_prefixes_together(requests):
    """Every subtree's requests come out contiguously: requests sharing a prefix that no
    request outside them shares are adjacent (the depth-first property)."""
    jobs = [Job(i, "t", pack(x), len(x), 1) for i, x in enumerate(requests)]
    order = offline_order("dfs-weight", jobs)
    assert sorted(order) == list(range(len(jobs)))
    for p in {tuple(x[:k]) for x in requests for k in range(1, len(x) + 1)}:
        at = [n for n, i in enumerate(order) if tuple(requests[i][: len(p)]) == p]
        assert at == list(range(at[0], at[0] + len(at)))


def test_spill_file_is_never_visible(tmp_path, monkeypatch):
    """The spill file is unlinked from the start: an interrupt leaves nothing behind."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    store = job_store(token_jobs(2))
    assert len(store) == 120 and store[5].key
    assert os.listdir(tmp_path) == []


def test_spill_failure_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "missing"))
    with pytest.raises(AdvisorError, match="TMPDIR"):
        JobStore()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    store = JobStore()

    def full(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "pwrite", full)
    store.append("tokens", b"\0" * 8, 2, 1)
    with pytest.raises(AdvisorError, match="No space left on device"):
        store.seal()
