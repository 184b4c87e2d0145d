"""Self-tests of tests/arch_oracle.py: hand-computed shapes, no advisor import.

Notation: B = vLLM block, W = model sliding_window (vLLM need = cdiv(W-1, B) blocks;
SGLang tree window Wt = W - 1), P = shared prefix length, L = prompt length,
R = floor((L-1)/B)*B (vLLM replay boundary), g = SGLang Mamba grid.
"""

from __future__ import annotations

import random

import pytest

from tests.arch_oracle import (
    sglang_cached_tokens,
    sglang_cached_tokens_finish_at_prefill,
    vllm_cached_tokens,
)

FULL = [{"kind": "full"}]
SWA = [{"kind": "full"}, {"kind": "sliding", "window": 128}]
STATE = [{"kind": "full"}, {"kind": "state"}]


def family(prefix: int, n: int, suffix: int, base: int = 100_000) -> list[list[int]]:
    """n prompts sharing list(range(prefix)), each followed by its own distinct suffix."""
    return [list(range(prefix)) + [base + 1000 * i + j for j in range(suffix)] for i in range(n)]


def _lcp(a: list[int], b: list[int]) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


# ---------------------------------------------------------------------- (a) full attention


def _full_formula(prompts: list[list[int]], unit: int) -> list[int]:
    out = []
    for i, p in enumerate(prompts):
        best = max((_lcp(p, q) for q in prompts[:i]), default=0)
        out.append(min(best, len(p) - 1) // unit * unit)
    return out


def test_full_attention_hand_numbers() -> None:
    prompts = family(600, 3, 300)
    assert vllm_cached_tokens(prompts, block=16, groups=FULL) == [0, 592, 592]
    assert sglang_cached_tokens(prompts, groups=FULL) == [0, 600, 600]
    assert sglang_cached_tokens(prompts, page=64, groups=FULL) == [0, 576, 576]
    # Identical resend: capped at L-1 = 99, floored to the block.
    a = list(range(100))
    assert vllm_cached_tokens([a, a], block=16, groups=FULL) == [0, 96]
    assert sglang_cached_tokens([a, a], groups=FULL) == [0, 99]
    # Prefix shorter than one block never hits in vLLM.
    assert vllm_cached_tokens(family(10, 3, 50), block=16, groups=FULL) == [0, 0, 0]


@pytest.mark.parametrize("seed", range(5))
def test_full_attention_equals_lcp_formula(seed: int) -> None:
    rng = random.Random(seed)
    prompts: list[list[int]] = []
    for _ in range(25):
        if prompts and rng.random() < 0.7:
            src = rng.choice(prompts)
            cut = rng.randint(0, len(src))
            p = src[:cut] + [rng.randint(0, 5) for _ in range(rng.randint(1, 60))]
        else:
            p = [rng.randint(0, 5) for _ in range(rng.randint(1, 120))]
        prompts.append(p)
    for unit in (1, 4, 16):
        assert vllm_cached_tokens(prompts, block=unit, groups=FULL) == _full_formula(prompts, unit)
        assert sglang_cached_tokens(prompts, page=unit, groups=FULL) == _full_formula(prompts, unit)
    # A hybrid whose sparse group is dense (retention None) behaves like full attention.
    assert vllm_cached_tokens(prompts, block=4, groups=SWA, retention=None) == _full_formula(prompts, 4)


# ---------------------------------------------------------------------- (b) vLLM state hybrid


def test_vllm_state_long_suffix_needs_three_sightings() -> None:
    # P=600, L=1200: R = floor(1199/544)*544 = 1088 > 600, so request 1 leaves no state on
    # the shared path; request 2 hits 0 and pins the junction F = 544; request 3+ hit 544.
    assert vllm_cached_tokens(family(600, 4, 600), block=544, groups=STATE) == [0, 0, 544, 544]


def test_vllm_state_short_suffix_second_request_hits() -> None:
    # L=900: R = floor(899/544)*544 = 544 <= 600: request 1's replay-boundary state is on
    # the shared path, so request 2 already hits.
    assert vllm_cached_tokens(family(600, 3, 300), block=544, groups=STATE) == [0, 544, 544]


def test_vllm_state_prefix_below_one_block_never_hits() -> None:
    assert vllm_cached_tokens(family(500, 4, 600), block=544, groups=STATE) == [0, 0, 0, 0]
    assert vllm_cached_tokens(family(500, 4, 300), block=544, groups=STATE) == [0, 0, 0, 0]


def test_vllm_state_resend_hits_replay_boundary() -> None:
    a = list(range(1200))
    # Resend: cap 1199 -> the state at R = 1088 exists.
    assert vllm_cached_tokens([a, a], block=544, groups=STATE) == [0, 1088]
    # A pure Mamba model (single group) keeps the same replay-boundary state.
    assert vllm_cached_tokens([a, a], block=544, groups=[{"kind": "state"}]) == [0, 1088]


# ---------------------------------------------------------------------- (c) SGLang Mamba


def test_sglang_extra_buffer_long_suffix_needs_three_sightings() -> None:
    # L=900, g=64: request 1 tracks 0 + floor(900/64)*64 = 896 > 600 -> no state on the
    # shared path.  Request 2: Full hit 600 -> mamba_branching_seqlen 576; it tracks (and
    # inserts, Full KV included) only [0, 576).  Request 3+ hit 576.
    assert sglang_cached_tokens(family(600, 4, 300), groups=STATE) == [0, 0, 576, 576]
    assert sglang_cached_tokens(family(600, 3, 300), page=16, groups=STATE) == [0, 0, 576]


def test_sglang_extra_buffer_short_suffix_second_request_hits() -> None:
    # L=610: request 1 tracks floor(610/64)*64 = 576 <= 600.
    assert sglang_cached_tokens(family(600, 3, 10), groups=STATE) == [0, 576, 576]


def test_sglang_extra_buffer_prefix_below_grid_never_hits() -> None:
    assert sglang_cached_tokens(family(50, 4, 300), groups=STATE) == [0, 0, 0, 0]


def test_sglang_extra_buffer_short_extend_inserts_nothing() -> None:
    # A (128 tokens) stores a state at 128.  B = A + 30: hits 128, extends 30 < 64 tokens,
    # tracks nothing and so inserts nothing.  C = B + 40 finds only A's 128.
    a = list(range(128))
    b = a + list(range(5000, 5030))
    c = b + list(range(6000, 6040))
    assert sglang_cached_tokens([a, b, c], groups=STATE) == [0, 128, 128]


def test_sglang_no_buffer_state_only_at_prompt_end() -> None:
    # no_buffer stores only the state after the whole prompt (page 1): an identical resend
    # (key capped at L-1) cannot use it, an extension can; siblings never hit.
    a = list(range(100))
    assert sglang_cached_tokens([a, a, a + [7, 8, 9]], groups=STATE, strategy="no_buffer") == [0, 0, 100]
    assert sglang_cached_tokens(family(600, 3, 300), groups=STATE, strategy="no_buffer") == [0, 0, 0]
    with pytest.raises(ValueError):
        sglang_cached_tokens([a], page=16, groups=STATE, strategy="no_buffer")


# ---------------------------------------------------------------------- (d) sliding hybrids


@pytest.mark.parametrize(
    ("prefix", "suffix", "expected"),
    [
        (10, 300, [0, 0, 0]),  # below one block
        (16, 300, [0, 0, 16]),  # exactly one block (hit via the run from block 0)
        (16, 4, [0, 16, 16]),  # L=20: R=16, the replay tail covers block 0
        (100, 300, [0, 0, 96]),  # above a block, below a window
        (128, 300, [0, 0, 128]),  # exactly one window
        (600, 300, [0, 0, 592]),  # above a window, R = 896 far from the prefix
        (600, 5, [0, 592, 592]),  # L=605: R = 592 lies on the shared prefix
    ],
)
def test_vllm_sliding_hybrid(prefix: int, suffix: int, expected: list[int]) -> None:
    # B=16, W=128 -> need = cdiv(127, 16) = 8 blocks ending at the hit.
    assert vllm_cached_tokens(family(prefix, 3, suffix), block=16, groups=SWA) == expected


@pytest.mark.parametrize(
    ("prefix", "suffix", "page", "expected"),
    [
        # Wt = 127.  Request 1 (L = prefix + suffix) keeps live SWA only on
        # [page_floor(L-1-ceil_page(127)), L); everything below is a tombstone.
        (10, 300, 1, [0, 0, 10]),  # tombstone above 10 -> miss; junction revives [0,10)
        (10, 100, 1, [0, 10, 10]),  # L=110 <= Wt+2: nothing freed, no tombstone at all
        (127, 300, 1, [0, 0, 127]),  # one window
        (600, 300, 1, [0, 0, 600]),
        (600, 10, 1, [0, 0, 600]),  # live [482, 610) cannot cover [473, 600): cliff
        (600, 1, 1, [0, 600, 600]),  # L=601: live [473, 601) covers the window at 600
        (10, 300, 16, [0, 0, 0]),  # prefix below one page
        (127, 300, 16, [0, 0, 112]),
        (600, 300, 16, [0, 0, 592]),
        (600, 1, 16, [0, 592, 592]),  # insert stops at 592; live [464, 592) = 128 >= 127
    ],
)
def test_sglang_sliding_hybrid(prefix: int, suffix: int, page: int, expected: list[int]) -> None:
    assert sglang_cached_tokens(family(prefix, 3, suffix), page=page, groups=SWA) == expected


def test_sglang_sliding_resend_and_extension() -> None:
    a = list(range(610))
    # Resend: live run [482, 610) split at 609 -> 127 tokens >= Wt -> hit 609.
    assert sglang_cached_tokens([a, a], groups=SWA) == [0, 609]
    # The junction request re-stores the window at J and only inserts its own tail at
    # the finish, with its cursor at L-1-128 (so its tail keeps its own live window).
    p = family(600, 2, 300)
    c = p[1] + [7] * 5  # extends request 2
    assert sglang_cached_tokens([p[0], p[1], c], groups=SWA) == [0, 0, 900]


def test_sglang_finish_at_prefill_sliding_equals_full_attention() -> None:
    # A request that finishes in its prefill step frees no SWA: no tombstone ever exists.
    assert sglang_cached_tokens_finish_at_prefill(family(600, 3, 300), groups=SWA) == [0, 600, 600]
    assert sglang_cached_tokens_finish_at_prefill(family(600, 4, 300), groups=STATE) == [0, 0, 576, 576]


def test_sglang_window_override() -> None:
    # The tree window defaults to W-1; "sglang_window" overrides it.  P=100, L=130: the
    # post-prefill cursor is 129-Wt when 129-Wt >= 1, else nothing is freed.
    prompts = family(100, 2, 30)
    assert sglang_cached_tokens(prompts, groups=SWA) == [0, 0]  # Wt=127: [0,2) tombstone
    g = [{"kind": "full"}, {"kind": "sliding", "window": 128, "sglang_window": 129}]
    assert sglang_cached_tokens(prompts, groups=g) == [0, 100]  # nothing freed
    g = [{"kind": "full"}, {"kind": "sliding", "window": 130}]
    assert sglang_cached_tokens(prompts, groups=g) == [0, 100]


# ---------------------------------------------------------------------- (e) retention


def test_vllm_retention_none_vs_zero_sliding() -> None:
    prompts = family(600, 3, 300)
    assert vllm_cached_tokens(prompts, block=16, groups=SWA, retention=0) == [0, 0, 592]
    assert vllm_cached_tokens(prompts, block=16, groups=SWA, retention=None) == [0, 592, 592]
    # retention 256: the 8-block tails ending at 256, 512, 768 are kept -> 512 first.
    assert vllm_cached_tokens(prompts, block=16, groups=SWA, retention=256) == [0, 512, 592]
    # retention 64 (4 blocks <= need 8): every block reachable, dense.
    assert vllm_cached_tokens(prompts, block=16, groups=SWA, retention=64) == [0, 592, 592]


def test_vllm_retention_none_vs_zero_state() -> None:
    # States exist only at chunk ends, so dense retention adds nothing mid-prompt ...
    assert vllm_cached_tokens(family(600, 4, 600), block=544, groups=STATE, retention=None) == [0, 0, 544, 544]
    # ... except the state at L itself when L is block aligned (usable by an extension).
    a = list(range(1088))
    b = a + list(range(5000, 5100))
    assert vllm_cached_tokens([a, b], block=544, groups=STATE, retention=0) == [0, 544]
    assert vllm_cached_tokens([a, b], block=544, groups=STATE, retention=None) == [0, 1088]
    # Positive interval: states still only at chunk ends (1088 = 2 blocks divides L).
    assert vllm_cached_tokens([a, b], block=544, groups=STATE, retention=1088) == [0, 1088]
    assert vllm_cached_tokens([a, b], block=544, groups=STATE, retention=1632) == [0, 544]


def test_vllm_single_group_sliding_follows_retention() -> None:
    # Unitary coordinator: retention still applies, and there is no junction detection.
    g = [{"kind": "sliding", "window": 128}]
    prompts = family(600, 3, 300)
    assert vllm_cached_tokens(prompts, block=16, groups=g, retention=0) == [0, 0, 0]
    assert vllm_cached_tokens(prompts, block=16, groups=g, retention=None) == [0, 592, 592]
    a = list(range(900))
    assert vllm_cached_tokens([a, a], block=16, groups=g) == [0, 896]


def test_vllm_retention_validation() -> None:
    with pytest.raises(ValueError):
        vllm_cached_tokens([[1, 2]], block=16, groups=SWA, retention=24)
    with pytest.raises(ValueError):
        vllm_cached_tokens([[1, 2]], block=16, groups=FULL, retention=32)
    assert vllm_cached_tokens([[1, 2]], block=16, groups=FULL, retention=None) == [0]


# ---------------------------------------------------------------------- fixed point


@pytest.mark.parametrize("seed", range(4))
def test_vllm_fixed_point_matches_brute_force_three_groups(seed: int) -> None:
    # The oracle asserts internally that the coordinator loop equals the largest
    # block-aligned b every group accepts; exercise it with 3 groups and branching.
    rng = random.Random(seed)
    prompts: list[list[int]] = []
    for _ in range(30):
        if prompts and rng.random() < 0.8:
            src = rng.choice(prompts)
            p = src[: rng.randint(0, len(src))] + [rng.randint(0, 3) for _ in range(rng.randint(1, 80))]
        else:
            p = [rng.randint(0, 3) for _ in range(rng.randint(1, 150))]
        prompts.append(p)
    groups = [{"kind": "full"}, {"kind": "sliding", "window": 20}, {"kind": "state"}]
    for retention in (0, None, 16):
        hits = vllm_cached_tokens(prompts, block=8, groups=groups, retention=retention)
        assert all(h % 8 == 0 and h <= len(p) - 1 for h, p in zip(hits, prompts))
        full = vllm_cached_tokens(prompts, block=8, groups=FULL)
        assert all(h <= f for h, f in zip(hits, full))
    s = sglang_cached_tokens(prompts, page=1, groups=groups, grid=8)
    assert all(h <= len(p) - 1 for h, p in zip(s, prompts))
