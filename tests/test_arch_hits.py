"""Hits on models that are not full attention equal the engines' semantics.

The second computation is ``tests/arch_oracle.py``: a brute-force model of vLLM 0.33's
coordinator and SGLang 0.5.23's unified radix tree written from the engines' source, apart
from ``advisor/index/checkpoints.py``. Traffic: families of prompts sharing prefixes below, at
and above one cache block and one window, with short and long unique suffixes, conversations
that extend their previous turn, and resends.
"""

from __future__ import annotations

import random
from array import array

import pytest

from advisor.index.analyze import Analyzer
from advisor.index.geometry import CacheGeometry, CacheGroup
from advisor.simulate.model import HitRules, Job
from advisor.simulate.cache import make_pool
from advisor.simulate.pool import replay_one
from advisor.simulate.sparse import SparsePool
from advisor.ingest.ids import pack
from tests.arch_oracle import sglang_cached_tokens, vllm_cached_tokens


def traffic(seed: int, block: int, n: int = 60) -> list[list[int]]:
    """Prompts around the block: shared heads of lengths near multiples of it, suffixes short
    and long, some turns extending an earlier prompt, some resent unchanged."""
    rng = random.Random(seed)
    lengths = sorted({max(1, block * k + d) for k in (0, 1, 2) for d in (-3, 0, 5)} | {block // 2 + 1})
    heads = [[10_000 * (i + 1) + t for t in range(length)] for i, length in enumerate(lengths)]
    out: list[list[int]] = []
    fresh = 1_000_000
    for _ in range(n):
        roll = rng.random()
        if out and roll < 0.15:
            out.append(list(rng.choice(out)))  # a resend
            continue
        if out and roll < 0.35:
            base = rng.choice(out)  # the next turn of a conversation
        else:
            base = rng.choice(heads)
        tail = rng.choice((1, 3, block // 3 + 1, block + 7, 2 * block + 11))
        out.append(base + list(range(fresh, fresh + tail)))
        fresh += tail
    return out


def advisor_hits(prompts: list[list[int]], geo: CacheGeometry) -> list[int]:
    analyzer = Analyzer(1, geo)
    return [analyzer.add_ids("t", array("I", p), len(p), 1, None) for p in prompts]


def pool_hits(prompts: list[list[int]], geo: CacheGeometry, eviction: str) -> list[int]:
    pool = SparsePool(make_pool(eviction, None, HitRules(geo.engine, geo.block)), geo)
    return [replay_one(pool, Job(i, "t", pack(array("I", p)), len(p), 1)).cached for i, p in enumerate(prompts)]


VLLM_CASES = [
    ("state-hybrid", 64, [{"kind": "full"}, {"kind": "state"}], 0),
    ("state-hybrid-dense", 64, [{"kind": "full"}, {"kind": "state"}], None),
    ("state-hybrid-interval", 32, [{"kind": "full"}, {"kind": "state"}], 64),
    ("swa-hybrid", 16, [{"kind": "full"}, {"kind": "sliding", "window": 128}], 0),
    ("swa-hybrid-dense", 16, [{"kind": "full"}, {"kind": "sliding", "window": 128}], None),
    ("swa-hybrid-interval", 16, [{"kind": "full"}, {"kind": "sliding", "window": 40}], 64),
    ("swa-only", 16, [{"kind": "sliding", "window": 64}], 0),
    ("swa-state-hybrid", 32, [{"kind": "full"}, {"kind": "sliding", "window": 50}, {"kind": "state"}], 0),
]


def geometry(engine: str, block: int, groups: list[dict], retention: int | None = 0, grid: int = 0,
             strategy: str = "extra_buffer") -> CacheGeometry:
    return CacheGeometry(engine=engine, block=block, retention=retention, grid=grid, mamba_strategy=strategy,
                         groups=tuple(CacheGroup(g["kind"], window=g.get("window", 0)) for g in groups))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("name,block,groups,retention", VLLM_CASES, ids=[c[0] for c in VLLM_CASES])
def test_vllm_hits_equal_the_engine(name: str, block: int, groups: list[dict], retention: int | None, seed: int) -> None:
    prompts = traffic(seed, block)
    want = vllm_cached_tokens(prompts, block=block, groups=groups, retention=retention)
    geo = geometry("vllm", block, groups, retention)
    assert advisor_hits(prompts, geo) == want
    assert pool_hits(prompts, geo, "block-lru") == want  # the simulator, unlimited pool


SGLANG_CASES = [
    ("mamba-extra-buffer", 1, 64, "extra_buffer", [{"kind": "full"}, {"kind": "state"}]),
    ("mamba-extra-buffer-page16", 16, 64, "extra_buffer", [{"kind": "full"}, {"kind": "state"}]),
    ("mamba-no-buffer", 1, 64, "no_buffer", [{"kind": "full"}, {"kind": "state"}]),
    ("swa-hybrid", 1, 0, "extra_buffer", [{"kind": "full"}, {"kind": "sliding", "window": 128}]),
    ("swa-hybrid-page16", 16, 0, "extra_buffer", [{"kind": "full"}, {"kind": "sliding", "window": 40}]),
]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("name,page,grid,strategy,groups", SGLANG_CASES, ids=[c[0] for c in SGLANG_CASES])
def test_sglang_hits_equal_the_engine(name: str, page: int, grid: int, strategy: str, groups: list[dict],
                                      seed: int) -> None:
    prompts = traffic(seed, max(grid, page, 64))
    want = sglang_cached_tokens(prompts, page=page, groups=groups, strategy=strategy, grid=grid or 64)
    geo = geometry("sglang", page, groups, grid=grid, strategy=strategy)
    assert advisor_hits(prompts, geo) == want
    assert pool_hits(prompts, geo, "branch-lru") == want


def test_a_full_attention_geometry_is_analyze_as_before() -> None:
    prompts = traffic(7, 16)
    plain = Analyzer(1)
    dense = Analyzer(1, CacheGeometry(engine="vllm", block=16))
    assert [dense.add_ids("t", array("I", p), len(p), 1, None) for p in prompts] == \
        [plain.add_ids("t", array("I", p), len(p), 1, None) for p in prompts]
    assert dense.result.geometry is None


def cut_traffic(seed: int) -> list[list[int]]:
    """Prompts that resend a cut of an earlier one, or extend one: hits that end inside a
    node another request left, where SGLang splits its tree (only node ends are candidates)."""
    rng = random.Random(seed)
    heads = [[rng.randrange(5000) for _ in range(rng.randrange(1, 300))] for _ in range(5)]
    out: list[list[int]] = []
    for _ in range(50):
        base = list(rng.choice(out if out and rng.random() < 0.3 else heads))
        if base in out and rng.random() < 0.5:
            base = base[: rng.randrange(1, len(base) + 1)]
        out.append(base + [rng.randrange(5000, 9000) for _ in range(rng.randrange(1, 200))])
    return out


@pytest.mark.parametrize("seed", range(16))
def test_sglang_hits_on_cut_prompts_equal_the_engine(seed: int) -> None:
    # Pages, windows (longer and shorter than the prompts), Mamba states on their grid or
    # after the prompt, alone or beside a window: drawn per seed.
    rng = random.Random(1000 + seed)
    page = rng.choice((1, 2, 4, 16, 32))
    strategy = "no_buffer" if page == 1 and rng.random() < 0.3 else "extra_buffer"
    grid = page * rng.choice((1, 4)) if page > 1 else rng.choice((16, 64))
    groups: list[dict] = [{"kind": "full"}]
    if rng.random() < 0.7:
        groups.append({"kind": "sliding", "window": rng.choice((3, 17, 64, 257))})
    if len(groups) == 1 or rng.random() < 0.4:
        groups.append({"kind": "state"})
    prompts = cut_traffic(seed)
    want = sglang_cached_tokens(prompts, page=page, groups=groups, strategy=strategy, grid=grid)
    has_state = any(g["kind"] == "state" for g in groups)
    geo = geometry("sglang", page, groups, grid=grid if has_state and strategy == "extra_buffer" else int(has_state),
                   strategy=strategy)
    assert advisor_hits(prompts, geo) == want
    assert pool_hits(prompts, geo, "branch-lru") == want
