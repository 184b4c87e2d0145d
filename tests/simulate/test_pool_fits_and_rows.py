"""Issue 35: a pool smaller than the largest request is refused; no configuration twice."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from advisor.errors import AdvisorError
from advisor.simulate.model import HitRules, Job
from advisor.simulate.runner import Largest, check_capacity, request_tokens, sweep_capacities

# Five ~4,000-token requests sharing a 3,000-token prefix; the third is the largest (4,300).
LENGTHS = [4000, 4000, 4300, 3900, 4000]


def _traffic(path: Path, output_length: int = 50) -> Path:
    with path.open("w") as fh:
        for i, n in enumerate(LENGTHS):
            ids = [7] * 3000 + [100 + i] * (n - 3000)
            fh.write(json.dumps({"input_ids": ids, "output_length": output_length}) + "\n")
    return path


def test_a_pool_smaller_than_the_largest_request_is_refused(cli, tmp_path: Path) -> None:
    # It used to report a 25% hit rate with 0 tokens evicted: each request cut to the pool.
    path = _traffic(tmp_path / "t.jsonl")
    res = cli("simulate", path, "--capacity-tokens", "1000", "--mode", "replay")
    assert res.code == 2 and res.out == ""
    assert res.err.splitlines() == [
        f"advisor: error: --capacity-tokens: a pool of 1,000 tokens cannot hold the largest request ({path}:3, "
        "4,300 tokens); no engine serves a request its KV pool cannot hold"]
    # Exactly the largest request fits: it runs, and it had to evict to hold each new one.
    res = cli("simulate", path, "--capacity-tokens", "4300", "--mode", "replay", "-f", "json")
    assert res.code == 0, res.err
    run = json.loads(res.out)["runs"][0]
    assert run["capacity_tokens"] == 4300 and run["evicted_tokens"] > 0
    # Request 2 hits the 3,000 shared tokens, 3-5 too; the pool holds the prefix between them.
    assert run["cached_tokens"] == 4 * 3000


def test_in_serve_mode_the_decode_reserve_counts(cli, tmp_path: Path) -> None:
    path = _traffic(tmp_path / "t.jsonl", output_length=50)
    res = cli("simulate", path, "--capacity-tokens", "4300", "--rate", "1")
    assert res.code == 2
    assert res.err.strip() == (
        f"advisor: error: --capacity-tokens: a pool of 4,300 tokens cannot hold the largest request ({path}:3, "
        "4,349 tokens: 4,300 of prompt + 49 reserved for its output); no engine serves a request its KV pool "
        "cannot hold")
    assert cli("simulate", path, "--capacity-tokens", "4349", "--rate", "1", "-f", "json").code == 0


def test_the_api_and_a_workload_are_refused_alike(tmp_path: Path, cli) -> None:
    from advisor.api import simulate

    path = _traffic(tmp_path / "t.jsonl")
    with pytest.raises(AdvisorError, match=r"a pool of 4,299 tokens cannot hold the largest request \(.*t\.jsonl:3, "
                                           r"4,300 tokens\)"):
        simulate(path, capacity_tokens=4299, mode="replay")
    res = cli("simulate", "--workload", "rag", "--requests", "40", "--capacity-tokens", "500")
    assert res.code == 2
    assert res.err.startswith("advisor: error: --capacity-tokens: a pool of 500 tokens cannot hold the largest "
                              "request (request ")
    assert " of the workload, " in res.err and len(res.err.splitlines()) == 1


def test_a_model_and_gpu_pool_is_named_in_the_refusal() -> None:
    with pytest.raises(AdvisorError) as err:
        check_capacity(400_000, Largest(500_001, 500_000, "big.jsonl:9"), "the KV pool of llama-3.1-8b on h100")
    assert str(err.value) == ("the KV pool of llama-3.1-8b on h100: a pool of 400,000 tokens cannot hold the largest "
                              "request (big.jsonl:9, 500,001 tokens: 500,000 of prompt + 1 reserved for its output); "
                              "no engine serves a request its KV pool cannot hold")
    check_capacity(500_001, Largest(500_001, 500_000), "x")  # exactly enough: no error
    check_capacity(None, Largest(500_001, 500_000), "x")  # unlimited


def test_the_sweep_starts_at_the_largest_request_with_its_reserve() -> None:
    # Its points are advisor's choice, not the user's: none falls below the largest
    # request, so none has to be dropped (in serve mode the decode reserve counts too).
    jobs = [Job(i, "n", bytes(4 * n), n, 1, output_len=out) for i, (n, out) in enumerate([(100, 1), (300, 40), (250, 200)])]
    assert [request_tokens(j, "replay") for j in jobs] == [100, 300, 250]
    assert [request_tokens(j, "serve") for j in jobs] == [100, 339, 449]
    replay = sweep_capacities(jobs, HitRules(), mode="replay")
    serve = sweep_capacities(jobs, HitRules(), mode="serve")
    assert replay[0] == 300 and serve[0] == 449
    assert replay[-1] is None and serve[-1] is None
    assert min(c for c in serve if c is not None) == 449


# --- the optimal bound once --------------------------------------------------------------------

def _rows(cli, path: Path, *extra: str) -> dict:
    res = cli("simulate", path, "--capacity-tokens", "8000", *extra, "-f", "json")
    assert res.code == 0, res.err
    return json.loads(res.out)


def test_the_optimal_bound_is_one_row_whatever_the_policies(cli, tmp_path: Path) -> None:
    path = _traffic(tmp_path / "t.jsonl")
    data = _rows(cli, path, "--policy", "fcfs,lpm", "--eviction", "branch-lru,optimal", "--mode", "replay")
    runs = data["runs"]
    assert [(r["policy"], r["eviction"]) for r in runs] == [("fcfs", "branch-lru"), ("lpm", "branch-lru"),
                                                            ("fcfs", "optimal")]
    assert [r.get("policy_independent") for r in runs] == [None, None, True]
    # The same figures as the bound asked for under any one policy alone.
    alone = _rows(cli, path, "--policy", "lpm", "--eviction", "optimal", "--mode", "replay")["runs"]
    assert len(alone) == 1 and alone[0]["cached_tokens"] == runs[2]["cached_tokens"] == 4 * 3000
    assert alone[0]["policy_independent"] is True


def test_the_text_table_shows_the_bound_once_and_says_why(cli, tmp_path: Path) -> None:
    path = _traffic(tmp_path / "t.jsonl")
    res = cli("simulate", path, "--capacity-tokens", "8000", "--policy", "fcfs,lpm", "--eviction",
              "branch-lru,optimal", "--mode", "replay")
    assert res.code == 0, res.err
    lines = res.out.splitlines()
    assert sum(1 for ln in lines if ln.split()[1:2] == ["optimal"]) == 1
    assert any(ln.startswith("optimal: the offline bound replays the requests one at a time in arrival order")
               for ln in lines)


def test_the_sweep_marks_its_bound_points(cli, tmp_path: Path) -> None:
    path = _traffic(tmp_path / "t.jsonl")
    data = _rows(cli, path, "--policy", "fcfs,lpm", "--mode", "replay", "--sweep")
    bound = [p for p in data["sweep"] if p["eviction"] == "optimal"]
    caps = {p["capacity_tokens"] for p in data["sweep"]}
    assert len(bound) == len(caps) and all(p["policy_independent"] is True for p in bound)
    assert not any("policy_independent" in p for p in data["sweep"] if p["eviction"] != "optimal")


@pytest.mark.parametrize("name", ["agent", "single-shot", "rag"])
def test_a_bundled_workloads_default_pool_holds_its_largest_request(name: str) -> None:
    # advisor's own default must not fall where a user's capacity is refused.
    from advisor.simulate.workloads import build_workload, default_capacity

    jobs = build_workload(name, requests=120)
    largest = max(request_tokens(j, "serve") for j in jobs)
    capacity = default_capacity(jobs)
    assert capacity >= largest and capacity % 1000 == 0
    check_capacity(capacity, Largest(largest, largest), "the workload's default")  # accepted, no error


@pytest.mark.parametrize("command", ["prescribe", "verify"])
def test_prescribe_and_verify_refuse_a_pool_smaller_than_the_largest_request(cli, tmp_path: Path, command) -> None:
    path = tmp_path / "t.jsonl"
    with path.open("w") as fh:
        for i, n in enumerate(LENGTHS):
            ids = [7] * 3000 + [100 + i] * (n - 3000)
            fh.write(json.dumps({"input_ids": ids, "cached_tokens": 0}) + "\n")
    extra = ["--engine", "sglang"] if command == "verify" else []
    res = cli(command, path, *extra, "--capacity-tokens", "1000")
    assert res.code == 2 and res.out == ""
    (line,) = res.err.splitlines()
    assert line.startswith("advisor: error: --capacity-tokens: a pool of 1,000 tokens cannot hold the largest "
                           "request (") and "4,300 tokens" in line
    assert cli(command, path, *extra, "--capacity-tokens", "4300").code == 0
