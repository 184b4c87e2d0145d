"""The host-memory tier (advisor.simulate.tiers, advisor.advise.tiers) against brute force.

The oracles below know nothing of the simulator: a prompt is the list of its page-aligned
prefixes ("items"), a cache is a dict of items to the moment they were last used, and eviction
takes the least recently used item the current request does not hold (within one request the
deeper prefix counts as older, so a leaf always goes before its parent, as both engines do).
"""

from __future__ import annotations

import random
from array import array
from dataclasses import replace

import pytest

from advisor.advise.tiers import MIN_HIT_GAIN, measure, price, recommended, transfer_seconds, vllm_offloading_gib
from advisor.cost import engine_timings, resolve_gpu, resolve_model
from advisor.ingest.ids import pack
from advisor.simulate.model import Job
from advisor.simulate.replay import replay
from advisor.simulate.runner import BlockIndexes, RunSpec, run
from advisor.simulate.study import Study
from advisor.simulate.tiers import (
    HICACHE_LOAD_BACK_THRESHOLD, HostTier, TieredPool, cpu_offload, hicache, pool_of, run_tiered,
)

Item = tuple[int, ...]


# --- brute force ---------------------------------------------------------------------------------

def items_of(ids: list[int], page: int) -> list[Item]:
    return [tuple(ids[: k * page]) for k in range(1, len(ids) // page + 1)]


def limit_of(ids: list[int], page: int) -> int:
    """Pages a request may hit: the last token is always computed (L - 1), whole pages."""
    return (len(ids) - 1) // page


def leading(items: list[Item], limit: int, held) -> int:
    k = 0
    while k < min(limit, len(items)) and items[k] in held:
        k += 1
    return k


class Clock:
    """Last use of every item ever seen; the first page of a request is its most recent."""

    def __init__(self) -> None:
        self.t = 0
        self.last: dict[Item, tuple[int, int]] = {}

    def use(self, items: list[Item]) -> None:
        self.t += 1
        for depth, item in enumerate(items):
            self.last[item] = (self.t, -depth)


def shrink(held: set[Item], capacity: int, keep: set[Item], clock: Clock, evictable=lambda item: True) -> None:
    while len(held) > capacity:
        victim = min((i for i in held if i not in keep and evictable(i)), key=clock.last.__getitem__)
        held.discard(victim)


def single_lru(prompts: list[list[int]], page: int, capacity: int) -> list[int]:
    """Hit tokens of each request on one LRU cache of ``capacity`` pages."""
    clock, held, hits = Clock(), set(), []
    for ids in prompts:
        items = items_of(ids, page)
        hits.append(leading(items, limit_of(ids, page), held) * page)
        clock.use(items)
        held |= set(items)
        shrink(held, capacity, set(items), clock)
    return hits


def literal_hicache(prompts: list[list[int]], page: int, device: int, host: int) -> tuple[list[int], list[int]]:
    """SGLang's two-level rule as written (write_through, no load threshold): every item the
    device holds is copied to host memory; host memory evicts only items the device has
    evicted, least recently used first. Each request's hit tokens from the device, and from
    the device and host memory together."""
    clock, on_device, in_host = Clock(), set(), set()
    dev_hits, all_hits = [], []
    for ids in prompts:
        items, limit = items_of(ids, page), limit_of(ids, page)
        dev_hits.append(leading(items, limit, on_device) * page)
        all_hits.append(leading(items, limit, on_device | in_host) * page)
        clock.use(items)
        on_device |= set(items)
        shrink(on_device, device, set(items), clock)
        in_host |= set(items)  # written through
        shrink(in_host, host, set(items), clock, evictable=lambda i, device_held=on_device: i not in device_held)
    return dev_hits, all_hits


def literal_vllm_offload(prompts: list[list[int]], block: int, gpu: int, cpu: int) -> tuple[list[int], list[int]]:
    """vLLM's GPU block LRU with its CPU store beside it, as the OffloadingConnector does it:
    after the GPU's hit, the consecutive blocks found in the CPU store are loaded; every block
    is stored and touched. Each request's GPU hit tokens and loaded tokens."""
    gpu_clock, cpu_clock = Clock(), Clock()
    on_gpu: set[Item] = set()
    on_cpu: set[Item] = set()
    gpu_hits, loaded = [], []
    for ids in prompts:
        items, limit = items_of(ids, block), limit_of(ids, block)
        g = leading(items, limit, on_gpu)
        c = leading(items[g:], limit - g, on_cpu)
        gpu_hits.append(g * block)
        loaded.append(c * block)
        for clock, held, capacity in ((gpu_clock, on_gpu, gpu), (cpu_clock, on_cpu, cpu)):
            clock.use(items)
            held |= set(items)
            shrink(held, capacity, set(items), clock)
    return gpu_hits, loaded


# --- traffic -------------------------------------------------------------------------------------

def random_prompts(rng: random.Random, n: int, unit: int) -> list[list[int]]:
    """Requests sharing a few prefixes at random, ``unit``-token multiples long (so no
    partial block is ever held: vLLM's pool would count it while a request runs)."""
    families = [[rng.randrange(6) for _ in range(unit * rng.randrange(1, 5))] for _ in range(5)]
    prompts = []
    for _ in range(n):
        tail = [rng.randrange(6) for _ in range(unit * rng.randrange(1, 4))]
        prompts.append(rng.choice(families) + tail)
    return prompts


def jobs_of(prompts: list[list[int]], gap: float = 0.0) -> list[Job]:
    return [Job(i, "ns", pack(ids), len(ids), 1, arrival=i * gap, output_len=2) for i, ids in enumerate(prompts)]


# --- the inclusion argument ----------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(12))
def test_an_inclusive_write_through_host_sees_what_one_lru_of_its_size_sees(seed) -> None:
    rng = random.Random(seed)
    prompts = random_prompts(rng, 60, 1)
    longest = max(len(p) for p in prompts)
    device = rng.randrange(longest, 3 * longest)
    host = device + rng.randrange(0, 3 * longest)
    dev_hits, all_hits = literal_hicache(prompts, 1, device, host)
    assert dev_hits == single_lru(prompts, 1, device)
    assert all_hits == single_lru(prompts, 1, host)


# --- the simulator against the brute force -------------------------------------------------------

def tiered_replay(prompts: list[list[int]], spec: RunSpec, tier: HostTier) -> tuple[list[int], list[int]]:
    jobs = jobs_of(prompts)
    indexes = BlockIndexes()
    pool = TieredPool(pool_of(spec, spec.capacity, indexes), pool_of(spec, tier.capacity, indexes),
                      tier.min_load_tokens, len(jobs))
    device = array("q", [0]) * len(jobs)
    replay(jobs, [pool], per_request=device)
    return list(device), list(pool.loaded)


@pytest.mark.parametrize("seed", range(10))
def test_vllm_cpu_offload_request_by_request(seed) -> None:
    rng = random.Random(seed)
    block = 4
    prompts = random_prompts(rng, 80, block)
    longest = max(len(p) for p in prompts) // block
    gpu = rng.randrange(longest, 3 * longest)
    cpu = rng.randrange(longest, 4 * longest)  # smaller than the GPU's pool, or larger
    spec = RunSpec(engine="vllm", eviction="block-lru", page=block, capacity=gpu * block)
    device, loaded = tiered_replay(prompts, spec, HostTier("cpu-offload", cpu * block, block, cpu / gpu))
    want_device, want_loaded = literal_vllm_offload(prompts, block, gpu, cpu)
    assert device == want_device
    assert loaded == want_loaded


@pytest.mark.parametrize("unit", [1, 8])
@pytest.mark.parametrize("seed", range(8))
def test_sglang_hicache_sees_what_one_pool_of_the_host_size_sees(seed, unit) -> None:
    # The inclusion argument on SGLang's own pools: device and host memory together hit, request
    # by request, what one whole-leaf LRU pool of the host's size hits alone.
    rng = random.Random(seed)
    prompts = random_prompts(rng, 80, unit)
    longest = max(len(p) for p in prompts)
    spec = RunSpec(engine="sglang", eviction="branch-lru", page=1, capacity=rng.randrange(longest, 3 * longest))
    tier = replace(hicache(spec.capacity or 0, 1), min_load_tokens=0)
    device, loaded = tiered_replay(prompts, spec, tier)
    alone = array("q", [0]) * len(prompts)
    run(jobs_of(prompts), replace(spec, capacity=tier.capacity), per_request=alone)
    assert [d + n for d, n in zip(device, loaded)] == list(alone)
    # Against the brute-force two-level rule the figures are close, not equal: whole-leaf
    # eviction frees more than the shortfall (REFERENCE §1.5), so each of SGLang's pools holds
    # a little less than an exact LRU of its size.
    _, want_all = literal_hicache(prompts, 1, spec.capacity or 0, tier.capacity)
    total = sum(len(p) for p in prompts)
    assert 0 <= sum(want_all) - sum(alone) < 0.1 * total


@pytest.mark.parametrize("mode", ["replay", "serve"])
@pytest.mark.parametrize("engine,eviction,page", [("sglang", "branch-lru", 1), ("vllm", "block-lru", 4)])
def test_the_device_runs_as_without_a_tier(mode, engine, eviction, page) -> None:
    prompts = random_prompts(random.Random(7), 120, page)
    jobs = jobs_of(prompts, gap=0.001)
    spec = RunSpec(engine=engine, eviction=eviction, page=page, mode=mode,
                   capacity=2 * max(len(p) for p in prompts))
    plain = run(jobs, spec)
    tiered = run_tiered(jobs, spec, hicache(spec.capacity or 0, page))
    assert tiered.totals.cached_tokens == plain.totals.cached_tokens
    assert tiered.device.evicted_tokens == plain.evicted_tokens
    assert list(tiered.totals.ttft) == list(plain.totals.ttft)
    assert 0 <= tiered.added_hit_rate <= 1 - plain.totals.hit_rate


def test_sglang_loads_back_nothing_under_its_threshold() -> None:
    # Two requests sharing 8 tokens, a pool that holds one: the second finds its 8 tokens in
    # host memory only, under SGLang's 10-token load-back threshold.
    a = list(range(8)) + [100, 101, 102, 103]
    b = list(range(8)) + [200, 201, 202, 203]
    c = [300 + i for i in range(12)]
    spec = RunSpec(engine="sglang", eviction="branch-lru", page=1, capacity=12)
    tier = hicache(12, 1)
    _, loaded = tiered_replay([a, c, b], spec, tier)
    assert loaded == [0, 0, 0] and HICACHE_LOAD_BACK_THRESHOLD > 8
    _, loaded = tiered_replay([a, c, b], spec, replace(tier, min_load_tokens=0))
    assert loaded == [0, 0, 8]


# --- the verdict ---------------------------------------------------------------------------------

MODEL, GPU = resolve_model("llama-3.1-8b"), resolve_gpu("h100")
TIMINGS = engine_timings(MODEL, GPU)
COST = {"gpu": GPU.id, "kv_bytes_per_token": 131072, "kv_bytes_per_token_per_gpu": 131072}


def tiers_of(prompts: list[list[int]], pool: int) -> dict:
    jobs = jobs_of(prompts)
    base = RunSpec(engine="sglang", eviction="branch-lru", page=1, mode="replay", cost=TIMINGS)
    return {"tiers": measure(Study(jobs), base, {"sglang": pool, "vllm": pool}, TIMINGS)}


def test_no_tier_on_traffic_that_never_repeats() -> None:
    rng = random.Random(3)
    prompts = [[rng.randrange(100_000) for _ in range(64)] for _ in range(200)]
    sim = tiers_of(prompts, 64 * 20)
    assert sim["tiers"]["sglang"]["added_hit_rate"] == 0 == sim["tiers"]["vllm"]["added_hit_rate"]
    assert not recommended(sim, COST) and not recommended(sim, COST, "vllm")
    assert "below the 3%" in price(sim["tiers"]["sglang"], COST)["why"]


def test_a_tier_when_a_working_set_just_above_the_pool_repeats() -> None:
    # 12 distinct 640-token documents asked about in turn, four rounds: 7,680 tokens of working
    # set against a 6,400-token pool. LRU over a cycle longer than the pool keeps nothing a
    # request needs; host memory twice the pool keeps all of it.
    rng = random.Random(5)
    docs = [[rng.randrange(100_000) for _ in range(640)] for _ in range(12)]
    prompts = [doc + [rng.randrange(100_000) for _ in range(16)] for _ in range(4) for doc in docs]
    sim = tiers_of(prompts, 6400)
    for engine in ("sglang", "vllm"):
        tier = price(sim["tiers"][engine], COST)
        assert tier["hbm_hit_rate"] < 0.05
        assert tier["added_hit_rate"] >= MIN_HIT_GAIN
        assert tier["transfer_seconds"] < tier["recompute_seconds"]
        assert tier["pays"] and recommended(sim, COST, engine)
    # The same traffic with a pool that holds the working set: nothing left for host memory.
    assert not recommended(tiers_of(prompts, 16_000), COST)


def test_a_tier_that_loads_slower_than_it_computes_is_not_recommended() -> None:
    tier = {"added_hit_rate": 0.2, "loaded_tokens": 1_000_000, "loading_requests": 10,
            "recompute_seconds": 1.0, "host_tokens": 10, "label": "x"}
    # 1e6 tokens of 131,072 B at 64 GB/s: 2.048 s, slower than the 1 s recompute.
    priced = price(tier, COST)
    assert priced["transfer_seconds"] == pytest.approx(2.048)
    assert not priced["pays"] and "longer than computing" in priced["why"]


def test_transfer_time_by_hand() -> None:
    # H100 SXM: PCIe Gen5 x16, 64 GB/s each way. Llama 3.1 8B BF16: 2 x 32 layers x 8 KV heads
    # x 128 dims x 2 B = 131,072 B a token. 500,000 tokens: 65.536 GB in 1.024 s.
    assert GPU.host_link_gb_s == 64
    assert transfer_seconds(500_000, 131_072, 64) == pytest.approx(1.024)
    # TP 2: each GPU moves its half over its own link.
    assert transfer_seconds(500_000, 65_536, 64) == pytest.approx(0.512)
    # A100: PCIe Gen4 x16, 32 GB/s each way.
    assert transfer_seconds(500_000, 131_072, resolve_gpu("a100").host_link_gb_s or 0) == pytest.approx(2.048)
    tier = {"added_hit_rate": 0.1, "loaded_tokens": 500_000, "loading_requests": 250,
            "recompute_seconds": 14.0, "host_tokens": 1 << 20, "label": "x"}
    priced = price(tier, COST)
    assert priced["transfer_seconds"] == pytest.approx(1.024)
    assert priced["transfer_seconds_per_loading_request"] == pytest.approx(1.024 / 250)
    assert priced["pays"]
    # --kv-offloading-size: 2**20 tokens x 131,072 B = 128 GiB.
    assert vllm_offloading_gib(priced) == pytest.approx(128.0)


def test_every_catalog_gpu_has_a_cited_host_link() -> None:
    from advisor.cost.catalog import load_catalog

    for gpu in load_catalog().gpus:
        assert gpu.host_link_gb_s and gpu.host_link.startswith("PCIe Gen") and gpu.host_link_source, gpu.id


def test_the_tiers_are_sized_as_the_engines_size_them() -> None:
    assert hicache(418_186, 1).capacity == 836_372
    assert hicache(418_186, 64).capacity == 836_352  # whole pages
    assert cpu_offload(448_308, 16).capacity == 896_608 and cpu_offload(448_308, 16).min_load_tokens == 16
