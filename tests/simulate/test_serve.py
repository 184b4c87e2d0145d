"""Serve mode (discrete-event engine) and the scheduling policies."""

from __future__ import annotations

import random

import pytest

from advisor.index.radix import pack
from advisor.simulate.cache import make_pool
from advisor.simulate.model import CostModel, HitRules, Job
from advisor.simulate.runner import RunSpec, run
from advisor.simulate.schedulers import LPM_MAX_WAITING, order_waiting
from advisor.simulate.serve import ServeConfig, serve
from tests.simulate.helpers import token_jobs

COST = CostModel(prefill_token_s=1e-3, decode_step_s=1e-2)


def job(i: int, ids: list[int], arrival: float = 0.0, out: int = 1) -> Job:
    return Job(i, "tokens", pack(ids), len(ids), 1, arrival, out, None)


def test_spread_out_arrivals_equal_replay():
    """No overlap between requests: serve sees the same cache states as replay."""
    jobs = token_jobs(3, n=60)
    for j in jobs:
        j.arrival = j.index * 100.0
        j.output_len = 1  # no decode: nothing reserved beyond the prompt
    for engine, page, eviction in (("sglang", 1, "branch-lru"), ("vllm", 16, "block-lru")):
        spec = RunSpec(engine=engine, page=page, eviction=eviction, capacity=400, cost=COST)
        served = run(jobs, RunSpec(**{**spec.__dict__, "mode": "serve"}))
        replayed = run(jobs, spec)
        assert served.totals.cached_tokens == replayed.totals.cached_tokens
        assert served.evicted_tokens == replayed.evicted_tokens


def test_ttft_queue_delay_and_decode_time():
    a = job(0, list(range(100)), 0.0, out=11)
    b = job(1, list(range(100, 150)), 0.0, out=1)
    cfg = ServeConfig("fcfs", max_running=1, cost=COST)
    (engine,) = serve([a, b], [make_pool("branch-lru", None, HitRules())], cfg)
    t = engine.totals
    assert t.ttft[0] == pytest.approx(0.1)  # 100 prefill tokens
    # b waits for a's prefill and its 10 decode steps, then 50 tokens of prefill.
    assert t.queue_delay[1] == pytest.approx(0.1 + 10 * 0.01)
    assert t.ttft[1] == pytest.approx(0.2 + 0.05)
    assert t.last_finish == pytest.approx(0.25)


def test_same_batch_hits_differ_between_engines():
    """SGLang inserts after the prefill step: two identical requests in one batch both
    miss. vLLM registers blocks at allocation: the second one hits."""
    ids = list(range(64))
    jobs = [job(0, ids), job(1, ids)]
    sg = run(jobs, RunSpec(engine="sglang", page=16, eviction="branch-lru", mode="serve", cost=COST))
    vl = run(jobs, RunSpec(engine="vllm", page=16, eviction="block-lru", mode="serve", cost=COST))
    assert sg.totals.cached_tokens == 0
    assert vl.totals.cached_tokens == 48  # (64-1)//16 blocks


def test_running_requests_lock_their_path():
    """A long decode holds its prompt; a second request that needs the room waits for it
    instead of evicting a locked path."""
    a = job(0, list(range(300)), 0.0, out=50)
    b = job(1, list(range(1000, 1300)), 0.01, out=1)
    res = run([a, b], RunSpec(eviction="branch-lru", capacity=640, mode="serve", cost=COST))
    t = res.totals
    # a holds 300 prompt + 49 reserved output tokens; b needs 300: it waits for a to end.
    assert t.queue_delay[1] > 0.3 + 49 * 0.01 - 0.01 - 1e-9
    assert res.evicted_tokens == 0  # a was locked while it ran; once done, b fits beside it


def test_lpm_falls_back_to_fcfs_above_128_waiting():
    rng = random.Random(0)
    pool = make_pool("branch-lru", None, HitRules())
    hot = list(range(50))
    lease = pool.acquire(job(999, hot), 0, True)
    pool.commit(lease)
    pool.release(lease)
    def queue(n):
        out = [job(i, [rng.randrange(5000, 9000) for _ in range(20)]) for i in range(n - 1)]
        out.append(job(n - 1, hot + [1, 2, 3]))
        return out
    small = queue(LPM_MAX_WAITING)
    order_waiting("lpm", small, pool, rng)
    assert small[0].index == LPM_MAX_WAITING - 1  # the hot request jumps the queue
    big = queue(LPM_MAX_WAITING + 1)
    big.reverse()  # whatever order the queue has, the round keeps it
    before = [j.index for j in big]
    order_waiting("lpm", big, pool, rng)
    assert [j.index for j in big] == before


def test_lpm_in_batch_deprioritization():
    """Nothing cached: of two requests sharing a new 100-token prefix, the second waits a
    round, so it can hit the first one's KV."""
    pool = make_pool("branch-lru", None, HitRules())
    shared = list(range(100))
    waiting = [job(0, shared + [1]), job(1, shared + [2]), job(2, list(range(500, 600)))]
    order_waiting("lpm", waiting, pool, random.Random(0))
    assert [j.index for j in waiting] == [0, 2, 1]
    order_waiting("dfs-weight", waiting, pool, random.Random(0))  # dfs-weight ignores it
    assert sorted(j.index for j in waiting) == [0, 1, 2]


@pytest.mark.parametrize("eviction,page", [("branch-lru", 1), ("block-lru", 2)])
def test_dfs_weight_order(eviction, page):
    pool = make_pool(eviction, None, HitRules("none", page))
    for ids in ([1, 2, 3, 4], [1, 2, 9, 9], [7, 7, 7, 7]):
        lease = pool.acquire(job(99, ids), 0, True)
        pool.commit(lease)
        pool.release(lease)
    waiting = [job(0, [7, 7, 7, 7, 5]), job(1, [1, 2, 3, 4, 5]), job(2, [1, 2, 9, 9, 5]), job(3, [1, 2, 3, 4, 6])]
    order_waiting("dfs-weight", waiting, pool, random.Random(0))
    # The [1, 2] branch carries 3 waiting requests, so it goes first, its heavier child
    # ([3, 4]: 2 requests) before [9, 9]; the [7, ...] branch last.
    assert [j.index for j in waiting] == [1, 3, 2, 0]


def test_lof_random_orders():
    pool = make_pool("branch-lru", None, HitRules())
    waiting = [job(i, [i], out=o) for i, o in enumerate([5, 50, 1, 20])]
    order_waiting("lof", waiting, pool, random.Random(0))
    assert [j.index for j in waiting] == [1, 3, 0, 2]
    a = [job(i, [i]) for i in range(20)]
    b = list(a)
    order_waiting("random", a, pool, random.Random(4))
    order_waiting("random", b, pool, random.Random(4))
    assert [j.index for j in a] == [j.index for j in b] != list(range(20))


def test_cache_aware_scheduling_beats_fcfs_under_a_queue():
    """Bursty arrivals of 6 groups at a pool that holds about two group prefixes."""
    rng = random.Random(2)
    heads = [[rng.randrange(9000) for _ in range(400)] for _ in range(6)]
    jobs = []
    for i in range(300):
        ids = heads[rng.randrange(6)] + [rng.randrange(9000) for _ in range(20)]
        jobs.append(job(i, ids, arrival=i * 0.02, out=4))
    res = {p: run(jobs, RunSpec(policy=p, eviction="branch-lru", capacity=1500, mode="serve", max_running=4,
                                cost=CostModel(1e-4, 1e-3)))
           for p in ("fcfs", "lpm", "dfs-weight", "random", "lof")}
    assert res["lpm"].totals.hit_rate > res["fcfs"].totals.hit_rate + 0.1
    assert res["dfs-weight"].totals.hit_rate > res["fcfs"].totals.hit_rate + 0.1
    assert res["lpm"].evicted_tokens < res["fcfs"].evicted_tokens
    for r in res.values():
        assert r.totals.requests == 300
        assert len(r.totals.ttft) == 300
