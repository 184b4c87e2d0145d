"""Tenants (per-tenant hit rates, budgets, TR501) and replicas (routers)."""

from __future__ import annotations

import json
import random

from advisor.index.radix import pack
from advisor.simulate.model import Job
from advisor.simulate.runner import RunSpec, parse_budget, run, starvation_findings
from tests.simulate.helpers import write_jsonl


def noisy_neighbour(n: int = 300, seed: int = 0) -> list[Job]:
    """Tenant 'quiet' reuses one 200-token prefix; tenant 'noisy' sends 4 times as many
    unrelated 300-token prompts, which flush a shared LRU pool between quiet's requests."""
    rng = random.Random(seed)
    prefix = [rng.randrange(9000) for _ in range(200)]
    jobs = []
    for i in range(n):
        if i % 5 == 0:
            ids, tenant = prefix + [rng.randrange(9000) for _ in range(10)], "quiet"
        else:
            ids, tenant = [rng.randrange(9000) for _ in range(300)], "noisy"
        jobs.append(Job(i, "tokens", pack(ids), len(ids), 1, float(i), 1, tenant))
    return jobs


def test_shared_pool_starves_the_quiet_tenant_and_a_budget_fixes_it():
    jobs = noisy_neighbour()
    spec = RunSpec(eviction="branch-lru", capacity=1200)
    shared = run(jobs, spec)
    budget = parse_budget("equal", ["noisy", "quiet"])
    isolated = run(jobs, RunSpec(eviction="branch-lru", capacity=1200, tenant_budget=budget))
    assert shared.totals.per_tenant["quiet"].hit_rate < 0.05
    assert isolated.totals.per_tenant["quiet"].hit_rate > 0.9
    found = starvation_findings(shared, isolated)
    assert [f.details["tenant"] for f in found] == ["quiet"]
    assert found[0].code == "TR501" and found[0].rule == "tenant-starvation"
    assert found[0].to_dict()["tenant"] == "quiet"


def test_budget_parsing():
    assert parse_budget("A=0.5,B=0.3", ["A", "B"]) == (("A", 0.5), ("B", 0.3))
    assert parse_budget("A=0.5", ["A", "B"]) == (("A", 0.5), ("*", 0.5))
    assert parse_budget(None, ["A"]) is None


def test_cli_reports_per_tenant_rates_and_tr501(cli, tmp_path):
    path = write_jsonl(tmp_path / "t.jsonl", noisy_neighbour())
    res = cli("simulate", path, "--capacity-tokens", 1200, "--format", "json")
    assert res.code == 0, res.err
    data = json.loads(res.out)
    shared = data["runs"][0]
    assert set(shared["per_tenant"]) == {"noisy", "quiet"}
    assert data["runs"][1]["tenant_budget"] == {"noisy": 0.5, "quiet": 0.5}
    assert [f["tenant"] for f in data["findings"] if f["code"] == "TR501"] == ["quiet"]
    assert any(f["code"] == "TR401" for f in data["findings"])  # the noisy tenant floods the pool
    bad = cli("simulate", path, "--tenant-budget", "quiet=2")
    assert bad.code == 2


def gsp(groups: int = 16, per_group: int = 16, system: int = 256, question: int = 32, seed: int = 0) -> list[Job]:
    """SGLang's generated-shared-prefix benchmark, shuffled (REFERENCE.md §10.3)."""
    rng = random.Random(seed)
    heads = [[rng.randrange(50_000) for _ in range(system)] for _ in range(groups)]
    reqs = [h + [rng.randrange(50_000) for _ in range(question)] for h in heads for _ in range(per_group)]
    rng.shuffle(reqs)
    return [Job(i, "tokens", pack(ids), len(ids), 1, float(i), 1, None) for i, ids in enumerate(reqs)]


def test_cache_aware_router_keeps_the_single_replica_hit_rate():
    jobs = gsp()
    ideal = (16 - 1) / 16 * 256 / 288  # (P-1)/P * S/(S+Q) with the LCP rule
    one = run(jobs, RunSpec()).totals.hit_rate
    assert abs(one - ideal) < 0.01
    aware = run(jobs, RunSpec(replicas=4, router="cache-aware"))
    rr = run(jobs, RunSpec(replicas=4, router="round-robin"))
    rnd = run(jobs, RunSpec(replicas=4, router="random", seed=1))
    assert abs(aware.totals.hit_rate - one) < 0.02
    assert rr.totals.hit_rate < aware.totals.hit_rate - 0.05
    assert rnd.totals.hit_rate < aware.totals.hit_rate - 0.05
    assert sum(t.requests for t in aware.per_replica) == len(jobs)
    assert all(t.requests > 0 for t in aware.per_replica)
    # Seeded: the same seed routes the same way.
    assert run(jobs, RunSpec(replicas=4, router="random", seed=1)).totals.cached_tokens == rnd.totals.cached_tokens


def test_replicas_in_serve_mode_and_cli(cli, tmp_path):
    jobs = gsp(groups=8, per_group=8)
    for j in jobs:
        j.arrival = j.index * 0.01
    aware = run(jobs, RunSpec(mode="serve", replicas=3, router="cache-aware", capacity=20_000))
    rr = run(jobs, RunSpec(mode="serve", replicas=3, router="round-robin", capacity=20_000))
    assert aware.totals.requests == rr.totals.requests == len(jobs)
    assert aware.totals.hit_rate > rr.totals.hit_rate
    path = write_jsonl(tmp_path / "g.jsonl", jobs, timestamps=True)
    res = cli("simulate", path, "--replicas", 3, "--router", "cache-aware", "--format", "json")
    assert res.code == 0, res.err
    run0 = json.loads(res.out)["runs"][0]
    assert run0["replicas"] == 3 and run0["router"] == "cache-aware" and len(run0["per_replica"]) == 3
