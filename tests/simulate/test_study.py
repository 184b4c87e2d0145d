"""The simulation study runs each distinct configuration once (issue 19), with the same output.

The replays are counted by an instrumented runner (``advisor.simulate.study.run`` wrapped):
every configuration it sees must be new, and the figures must be those of a study that
replays every request for a run (the memo switched off).
"""

from __future__ import annotations

import json
from array import array
from collections import Counter
from typing import Any

import pytest

import advisor.simulate.study as study_module
from advisor.simulate.runner import RunSpec, run
from advisor.simulate.study import Study, configuration
from advisor.simulate.workloads import build_workload
from tests.conftest import DEMO_TRAFFIC


@pytest.fixture
def replays(monkeypatch) -> list[tuple[str, int, RunSpec]]:
    """The configurations the runner is called with, in order, each with its job set (the
    engine comparison's saturated runs replay the same requests all arriving at once)."""
    seen: list[tuple[str, int, RunSpec]] = []

    def counting(jobs, spec, indexes=None, per_request=None):
        # (the report simulates two job sets: today's traffic and the traffic after the fix)
        store = getattr(jobs, "_jobs", jobs)
        seen.append((type(jobs).__name__, id(store), configuration(spec)))
        return run(jobs, spec, indexes, per_request)

    monkeypatch.setattr(study_module, "run", counting)
    return seen


def _no_memo(monkeypatch) -> None:
    def every_time(self: Study, spec: RunSpec, per_request: array | None = None):
        self.requested += 1
        self.replays += 1
        return study_module.run(self.jobs, spec, self.indexes, per_request)

    monkeypatch.setattr(Study, "run", every_time)


def _json(cli, *args: Any) -> str:
    res = cli(*args, "--format", "json", "--output", "-")
    assert res.code == 0, res.err
    return res.out


def test_report_replays_each_configuration_once(cli, replays, monkeypatch) -> None:
    # The after-fix study runs in a forked child when a core is idle (advisor.beside),
    # where this process's counter does not see its replays: whether it forks depends on the
    # machine's load, so it never forks here.
    monkeypatch.setattr("advisor.beside.idle_cores", lambda: 0.0)
    args = ("report", "--traffic", DEMO_TRAFFIC / "support_chat.jsonl", "--traffic", DEMO_TRAFFIC / "rag_tools.jsonl")
    memoised = _json(cli, *args)
    distinct = list(replays)
    assert distinct and max(Counter(distinct).values()) == 1  # no configuration twice
    replays.clear()
    _no_memo(monkeypatch)
    every = _json(cli, *args)
    assert every == memoised  # byte-identical
    repeats = len(replays) - len(set(replays))
    # The repeats: the FCFS and lpm runs at the GPU's pool, the unlimited FCFS run and the
    # optimal bound at the pool are points of the capacity curve; with timestamps (serve
    # mode) the engine comparison's SGLang FCFS and SGLang lpm setups are the runs at the
    # pool again.
    # Once per job set: today's traffic and the traffic after the prescribed fix.
    stores = len({key[1] for key in replays if key[0] == "JobStore"})
    assert stores == 1 + ("after_fix" in json.loads(memoised))
    assert repeats == 6 * stores, Counter(replays).most_common(8)
    print(f"replays: {len(replays)} without the memo, {len(distinct)} with it")
    assert len(distinct) == len(replays) - repeats == len(set(replays))
    data = json.loads(memoised)
    assert data["simulation"]["mode"] == "serve"


def test_simulate_replays_each_configuration_once(cli, replays, monkeypatch) -> None:
    args = ("simulate", "--workload", "multi-tenant", "--requests", "120", "--policy", "fcfs,lpm",
            "--eviction", "branch-lru,optimal", "--capacity-tokens", "20000", "--sweep")
    memoised = _json(cli, *args)
    distinct = list(replays)
    assert max(Counter(distinct).values()) == 1
    replays.clear()
    _no_memo(monkeypatch)
    assert _json(cli, *args) == memoised
    assert len(replays) > len(distinct) == len(set(replays))


def test_per_request_counts_come_back_from_the_memo() -> None:
    jobs = build_workload("rag", requests=60)
    spec = RunSpec(capacity=30_000, mode="replay")
    study = Study(jobs)
    first = array("q", bytes(8 * len(jobs)))
    a = study.run(spec)  # no per-request figures asked for: the next call must replay
    b = study.run(spec, first)
    again = array("q", bytes(8 * len(jobs)))
    c = study.run(spec, again)
    assert study.requested == 3 and study.replays == 2
    assert c is b and a.totals.cached_tokens == b.totals.cached_tokens
    assert again == first and sum(first) == b.totals.cached_tokens
    # The optimal bound ignores the policy: one configuration whatever policy names it.
    opt = [study.run(RunSpec(policy=p, eviction="optimal", capacity=30_000)) for p in ("fcfs", "lpm")]
    assert opt[0] is opt[1] and study.replays == 3
