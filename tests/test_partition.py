"""Partitioned analysis (local processes, Dask) equals the single-process run exactly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from advisor.index.analyze import Analyzer
from advisor.ingest.source import SkipLog, open_traffic
from advisor.index.partition import PartitionedRun, PartitionIndexer
from tests.conftest import DEMO_TRAFFIC, trace

NUMBERS = ("requests", "prompt_tokens", "cached_tokens", "prefill_tokens", "hit_rate", "tree_tokens",
           "hit_distribution", "tenants")


class InProcess:
    """The partition protocol without processes: same code path, easy to property-test."""

    def __init__(self, n: int, page: int, head: int) -> None:
        self.parts = [PartitionIndexer(page, head) for _ in range(n)]

    def send(self, partition, items) -> None:
        self.parts[partition].add_many(items)

    def finish(self):
        return [p.finish() for p in self.parts]


def seqs_of(path: Path):
    return list(open_traffic([path], "llama3", None, None, 512, SkipLog(quiet=True)))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(st.tuples(st.integers(0, 3), st.lists(st.integers(0, 4), max_size=30)), min_size=1, max_size=30),
    st.sampled_from([1, 4]),
    st.integers(1, 4),
    st.sampled_from([1, 4, 8, 24]),
)
def test_partitioned_equals_single(tmp_path_factory, spec, page, parts, head) -> None:
    prefixes = [[], [7] * 5, [7] * 5 + [8] * 10, [9] * 12]
    rows = [prefixes[p] + tail or [1] for p, tail in spec]
    path = tmp_path_factory.mktemp("p") / "t.jsonl"
    path.write_text("".join(json.dumps({"input_ids": r, "tenant": str(len(r) % 2)}) + "\n" for r in rows))
    seqs = seqs_of(path)
    single = Analyzer(page).add_all(seqs)
    run = PartitionedRun(page, parts, head_tokens=head)
    merged = run.run(seqs, InProcess(parts, page, run.head_tokens))
    assert (merged.requests, merged.prompt_tokens, merged.cached_tokens) == (
        single.requests, single.prompt_tokens, single.cached_tokens)
    assert merged.tree_tokens == single.tree_tokens
    assert merged.histogram == single.histogram
    assert {k: vars(v) for k, v in merged.tenants.items()} == {k: vars(v) for k, v in single.tenants.items()}


def _numbers(out: str) -> dict:
    data = json.loads(out)
    return {k: data[k] for k in NUMBERS}


def test_workers_on_demo_traffic(cli) -> None:
    files = sorted(DEMO_TRAFFIC.glob("*.jsonl"))
    single = cli("analyze", *files, "--format", "json")
    multi = cli("analyze", *files, "--format", "json", "--workers", "2")
    assert single.code == multi.code == 0
    assert _numbers(multi.out) == _numbers(single.out)


def test_workers_on_mooncake_trace(cli) -> None:
    path = trace("synthetic_trace.jsonl")
    single = cli("analyze", path, "--format", "json", "--no-diagnose")
    multi = cli("analyze", path, "--format", "json", "--workers", "3")
    assert single.out == multi.out  # block-hash branches coincide too


def test_dask_local_cluster(cli) -> None:
    import distributed
    path = trace("synthetic_trace.jsonl")
    single = cli("analyze", path, "--format", "json")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        res = cli("analyze", path, "--format", "json", "--dask", cluster.scheduler_address)
    assert res.code == 0, res.err
    assert _numbers(res.out) == _numbers(single.out)


def test_dask_unreachable_is_a_clear_error(cli) -> None:
    path = trace("synthetic_trace.jsonl")
    res = cli("analyze", path, "--dask", "tcp://127.0.0.1:9")
    assert res.code == 2 and "Dask scheduler" in res.err
