"""The estimate ``advisor cost`` prints: memory, pool and timings of one deployment."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping

from advisor.cost.catalog import DEFAULT_MFU, ENGINES, GIB, GpuSpec, ModelSpec, resolve_gpu, resolve_model
from advisor.cost.compute import (
    DEFAULT_BANDWIDTH_UTIL, engine_timings, gemm_tflops, prefill_flops, prefill_seconds, prefill_tokens_per_second,
)
from advisor.cost.layout import cache_geometry
from advisor.cost.memory import (
    _kv_bytes, attention_kv_bytes_per_token, check_tp, default_mem_fraction, kv_bytes_per_token, kv_pool_bytes_per_gpu,
    pool_holds_full_context, resolve_weight_dtype, sequence_kv_bytes, smallest_fitting_tp, state_bytes_per_request,
    state_bytes_per_sequence, state_checkpoint_bytes, weight_bytes,
)
from advisor.errors import AdvisorError
from advisor.index.geometry import CacheGeometry

# The prompt length of the timing figures ``advisor cost`` states (a cold prompt; one sequence).
REFERENCE_PROMPT_TOKENS = 2048

# The DESIGN.md contract, in order; to_dict() adds extras after these.
CONTRACT_FIELDS = (
    "model", "gpu", "tp", "kv_dtype", "kv_bytes_per_token", "kv_pool_bytes", "kv_pool_tokens",
    "prefix_tokens", "prefix_bytes", "batch", "batch_bytes_shared", "batch_bytes_unshared",
    "prefill_flops_per_hit", "prefill_seconds_saved_per_hit",
)


@dataclass(frozen=True)
class CostEstimate:
    """HBM and prefill cost of one shared prefix on one model/GPU/TP/engine setting."""

    # DESIGN.md contract fields
    model: str
    gpu: str
    tp: int
    kv_dtype: str
    kv_bytes_per_token: int  # across the TP group (per-GPU × TP)
    kv_pool_bytes: int  # across the TP group
    kv_pool_tokens: int  # tokens the pool holds (each token is spread over the TP group)
    prefix_tokens: int
    prefix_bytes: int  # resident cost of the prefix as one radix branch
    batch: int
    batch_bytes_shared: int  # the batch's prefix KV when it is shared: one copy
    batch_bytes_unshared: int  # one copy per sequence
    prefill_flops_per_hit: float
    prefill_seconds_saved_per_hit: float
    # extras
    engine: str
    mem_fraction: float
    mem_fraction_source: str
    mfu: float
    weight_dtype: str
    attention: str
    gpu_memory_bytes: int
    weight_bytes_per_gpu: int
    kv_bytes_per_token_per_gpu: int
    kv_bytes_per_token_full_layers_only: int  # growth once sliding layers are capped
    kv_pool_bytes_per_gpu: int
    sliding_window: int | None
    sliding_layers: int
    prefix_bytes_swa_aware: int  # the prefix under an SWA-aware pool (== prefix_bytes without SWA)
    prefix_pool_share: float  # prefix_bytes / kv_pool_bytes
    unique_tokens: int
    batch_bytes_unique: int  # the batch's own (non-prefix) tokens, same either way
    concurrency_unshared: int  # sequences of prefix + unique tokens that fit without sharing
    concurrency_shared: int | None  # with one shared copy; None when unbounded (unique_tokens 0)
    prefill_flops_per_token: float  # average over the prefix (attention grows with T)
    params_nonembedding_active: int
    params_source: str
    tflops_bf16_dense: float
    model_source: str
    gpu_source: str
    gpu_memory_basis: str
    # Whether the weights leave a KV pool at this TP, and the fewest GPUs that do (None: not
    # even 16). When they do not fit, the pool figures are 0 and every per-token and prefix
    # figure is still given.
    weights_fit: bool = True
    smallest_tp_that_fits: int | None = 1
    weight_dtype_shipped: str = "bf16"
    weight_bytes_total: int = 0
    # Engine timings of this deployment (advisor.cost.compute: the ones simulate and report use).
    gemm_tflops: float = 0.0
    gemm_dtype: str = "BF16 dense"
    bandwidth_gb_s: float = 0.0
    bandwidth_util: float = 0.0
    prefill_tokens_per_s: float = 0.0  # a cold 2,048-token prompt, compute bound
    decode_step_seconds_batch1: float = 0.0  # one sequence of 2,048 tokens of context
    decode_step_seconds_batch: float = 0.0  # ``batch`` sequences of prefix + unique tokens each
    timings_source: str = ""
    # The attention layout (advisor.cost.layout) and what it changes. With state layers
    # (Gated DeltaNet, Mamba) or a DSA indexer the per-token figures above count the layers that
    # keep per-token KV (plus the indexer keys); the state is a constant per request on top.
    layout: Mapping[str, Any] = field(default_factory=dict)  # layer kinds and counts
    layout_summary: str = ""
    kv_bytes_per_token_all_layers: int = 0  # every layer counted as attention (the catalog's convention)
    indexer_bytes_per_token: int = 0  # DSA indexer keys, inside kv_bytes_per_token
    state_layers: int = 0
    state_bytes_per_sequence: int = 0  # one unpadded state per state layer, in this engine's dtypes
    state_bytes_per_request: int = 0  # what one running request holds in this engine
    state_checkpoint_bytes: int = 0  # one cached state (vLLM: page-padded)
    prefix_checkpoints: int = 0  # cached states the resident prefix keeps (its boundary on the grid)
    prefix_state_bytes: int = 0  # prefix_checkpoints · state_checkpoint_bytes (inside prefix_bytes)
    cache_block_tokens: Mapping[str, int] = field(default_factory=dict)  # per engine: the hit unit
    cache_checkpoint_grid: Mapping[str, int] = field(default_factory=dict)  # per engine: where states are stored
    cache_rule: Mapping[str, str] = field(default_factory=dict)
    cache_granularity_note: Mapping[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        data = {name: getattr(self, name) for name in CONTRACT_FIELDS}
        for name, value in self.__dict__.items():
            data.setdefault(name, value)
        return data


def estimate_cost(
    model: ModelSpec,
    gpu: GpuSpec,
    *,
    tp: int = 1,
    kv_dtype: str = "bf16",
    prefix_tokens: int = 0,
    batch: int = 1,
    unique_tokens: int = 0,
    engine: str = "sglang",
    mem_fraction: float | None = None,
    mfu: float = DEFAULT_MFU,
    weight_dtype: str | None = None,
    bandwidth_util: float = DEFAULT_BANDWIDTH_UTIL,
) -> CostEstimate:
    """Everything ``advisor cost`` reports, from resolved specs (see ``resolve_model``/``resolve_gpu``)."""
    check_tp(model, tp)
    kv_dtype = kv_dtype.lower()
    engine = engine.lower()
    if prefix_tokens < 0 or unique_tokens < 0 or batch < 1:
        raise AdvisorError("--prefix-tokens and --unique-tokens must be >= 0, --batch >= 1")
    if engine not in ENGINES:
        raise AdvisorError(f"unknown engine {engine!r}; known: {', '.join(ENGINES)}")
    if mem_fraction is None:
        fraction = default_mem_fraction(engine, gpu, tp)
        fraction_source = (
            "vLLM default (docs; 0.92 in the 0.33.0 source)"
            if engine == "vllm"
            else "SGLang late-2025 default rule"
        )
    else:
        fraction, fraction_source = mem_fraction, "given"

    _kv_bytes(kv_dtype)
    dtype = resolve_weight_dtype(model, weight_dtype)
    # Per-token KV of the layers that keep it: every layer for full-attention and sliding
    # models (the figure of REFERENCE §4.2), the attention layers only for hybrids.
    per_gpu_token = attention_kv_bytes_per_token(model, kv_dtype, tp)
    weights_total = weight_bytes(model, dtype)
    weights_gpu = math.ceil(weights_total / tp)
    pool_gpu = kv_pool_bytes_per_gpu(gpu, weights_gpu, engine, fraction, tp)
    fits = pool_holds_full_context(model, pool_gpu, kv_dtype, tp, engine=engine, gpu=gpu)
    if not fits:
        pool_gpu = 0
    smallest = tp if fits else smallest_fitting_tp(model, gpu, engine=engine, kv_dtype=kv_dtype,
                                                   mem_fraction=mem_fraction, weight_dtype=dtype)
    pool_tokens = pool_gpu // per_gpu_token if per_gpu_token else 0
    timings = engine_timings(model, gpu, tp=tp, kv_dtype=kv_dtype, weight_dtype=dtype, mfu=mfu,
                             bandwidth_util=bandwidth_util)
    tflops, gemm_name = gemm_tflops(gpu, model, dtype)
    token_bytes = per_gpu_token * tp  # HBM across the TP group per token
    hybrid = _hybrid_figures(model, gpu, engine, kv_dtype, tp, prefix_tokens)
    prefix_bytes = prefix_tokens * token_bytes + hybrid.prefix_state * tp
    prefix_swa = (sequence_kv_bytes(model, prefix_tokens, kv_dtype, tp, swa_aware=True) + hybrid.prefix_state) * tp

    # Concurrency: how many sequences of (shared prefix + own tokens) the pool holds. Without
    # sharing each carries its own prefix copy; with a radix-shared prefix one copy serves all.
    seq_tokens = prefix_tokens + unique_tokens
    unshared, shared = _concurrency(pool_gpu, per_gpu_token, prefix_tokens, unique_tokens, hybrid)

    flops = prefill_flops(model, prefix_tokens)
    return CostEstimate(
        model=model.id,
        gpu=gpu.id,
        tp=tp,
        kv_dtype=kv_dtype,
        kv_bytes_per_token=token_bytes,
        kv_pool_bytes=pool_gpu * tp,
        kv_pool_tokens=pool_tokens,
        prefix_tokens=prefix_tokens,
        prefix_bytes=prefix_bytes,
        batch=batch,
        batch_bytes_shared=prefix_bytes,
        batch_bytes_unshared=batch * prefix_bytes,
        prefill_flops_per_hit=flops,
        prefill_seconds_saved_per_hit=prefill_seconds(flops, gpu, tp, mfu, tflops),
        engine=engine,
        mem_fraction=fraction,
        mem_fraction_source=fraction_source,
        mfu=mfu,
        weight_dtype=dtype,
        attention=model.attention,
        gpu_memory_bytes=gpu.memory_bytes,
        weight_bytes_per_gpu=weights_gpu,
        kv_bytes_per_token_per_gpu=per_gpu_token,
        kv_bytes_per_token_full_layers_only=kv_bytes_per_token(model, kv_dtype, tp, full_layers_only=True) * tp,
        kv_pool_bytes_per_gpu=pool_gpu,
        sliding_window=model.sliding_window,
        sliding_layers=model.num_sliding_layers,
        prefix_bytes_swa_aware=prefix_swa,
        prefix_pool_share=prefix_bytes / (pool_gpu * tp) if pool_gpu else 0.0,
        unique_tokens=unique_tokens,
        batch_bytes_unique=batch * unique_tokens * token_bytes,
        concurrency_unshared=unshared,
        concurrency_shared=shared,
        prefill_flops_per_token=flops / prefix_tokens if prefix_tokens else 0.0,
        params_nonembedding_active=model.params_nonembedding_active,
        params_source=model.params_source,
        tflops_bf16_dense=gpu.tflops_bf16_dense,
        model_source=model.source,
        gpu_source=gpu.source,
        gpu_memory_basis=gpu.memory_basis,
        weights_fit=fits,
        smallest_tp_that_fits=smallest,
        weight_dtype_shipped=model.weight_dtype,
        weight_bytes_total=weights_total,
        gemm_tflops=tflops,
        gemm_dtype=gemm_name,
        bandwidth_gb_s=gpu.bandwidth_gb_s,
        bandwidth_util=bandwidth_util,
        prefill_tokens_per_s=prefill_tokens_per_second(timings, REFERENCE_PROMPT_TOKENS),
        decode_step_seconds_batch1=timings.decode_seconds(1, REFERENCE_PROMPT_TOKENS, 1),
        decode_step_seconds_batch=timings.decode_seconds(batch, batch * seq_tokens, 1),
        timings_source=timings.description,
        layout=model.layout.to_dict(),
        layout_summary=model.layout.describe(),
        kv_bytes_per_token_all_layers=kv_bytes_per_token(model, kv_dtype, tp) * tp,
        indexer_bytes_per_token=hybrid.indexer_token * tp,
        state_layers=model.layout.state_layers,
        state_bytes_per_sequence=hybrid.state_sequence * tp,
        state_bytes_per_request=hybrid.state_request * tp,
        state_checkpoint_bytes=hybrid.state_checkpoint * tp,
        prefix_checkpoints=hybrid.checkpoints,
        prefix_state_bytes=hybrid.prefix_state * tp,
        cache_block_tokens={e: g.block for e, g in hybrid.geometries.items()},
        cache_checkpoint_grid={e: g.checkpoint_grid for e, g in hybrid.geometries.items()},
        cache_rule={e: g.rule for e, g in hybrid.geometries.items()},
        cache_granularity_note={e: g.granularity_note for e, g in hybrid.geometries.items()},
    )


@dataclass(frozen=True)
class _Hybrid:
    """The figures a model's layout adds, per GPU (all 0 for a full-attention model)."""

    geometries: Mapping[str, CacheGeometry]
    indexer_token: int = 0  # DSA indexer bytes per token
    state_sequence: int = 0  # one unpadded state per state layer
    state_request: int = 0  # what a running request holds
    state_checkpoint: int = 0  # one cached state
    checkpoints: int = 0  # states the resident prefix keeps
    unit: int = 1  # tokens a request's KV is allocated in (vLLM's hybrid block; else 1)

    @property
    def prefix_state(self) -> int:
        return self.checkpoints * self.state_checkpoint


def _hybrid_figures(model: ModelSpec, gpu: GpuSpec, engine: str, kv_dtype: str, tp: int, prefix_tokens: int) -> _Hybrid:
    """Per engine cache geometry (advisor.cost.layout) and, for state layers, the state a
    sequence, a running request and a cached checkpoint take in ``engine``. The resident shared
    prefix keeps one state, at its boundary on the engine's grid, when it reaches the grid
    (ARCHITECTURES §4: prefix_tokens · KV growth + checkpoints · state)."""
    geometries = {e: cache_geometry(model, e, gpu=gpu, kv_dtype=kv_dtype, tp=tp) for e in ENGINES}
    layout = model.layout
    indexer = layout.indexer.key_bytes_per_token * layout.attention_layers if layout.indexer is not None else 0
    if not layout.state_layers:
        return _Hybrid(geometries=geometries, indexer_token=indexer)
    grid = geometries[engine].checkpoint_grid
    return _Hybrid(
        geometries=geometries,
        indexer_token=indexer,
        state_sequence=state_bytes_per_sequence(model, engine, tp),
        state_request=state_bytes_per_request(model, engine, gpu=gpu, kv_dtype=kv_dtype, tp=tp),
        state_checkpoint=state_checkpoint_bytes(model, engine, gpu=gpu, kv_dtype=kv_dtype, tp=tp),
        checkpoints=1 if prefix_tokens >= grid else 0,
        unit=geometries[engine].block if engine == "vllm" else 1,
    )


def _concurrency(pool_gpu: int, token: int, prefix_tokens: int, unique_tokens: int,
                 hybrid: _Hybrid) -> tuple[int, int | None]:
    """Sequences of prefix + own tokens one GPU's pool holds (unshared, shared; None when the
    shared count is unbounded). With state layers each running request also holds its state,
    and vLLM allocates a request's KV in whole hybrid blocks (ARCHITECTURES §4)."""
    seq = prefix_tokens + unique_tokens
    if not hybrid.state_request:
        pool_tokens = pool_gpu // token if token else 0
        unshared = pool_tokens // seq if seq else 0
        shared = max(0, pool_tokens - prefix_tokens) // unique_tokens if unique_tokens else None
        return unshared, shared

    def request(tokens: int) -> int:
        return -(-tokens // hybrid.unit) * hybrid.unit * token + hybrid.state_request

    unshared = pool_gpu // request(seq) if seq else 0
    if not unique_tokens:
        return unshared, None
    resident = prefix_tokens * token + hybrid.prefix_state
    return unshared, max(0, pool_gpu - resident) // request(unique_tokens)


def pool_capacity_tokens(
    model: str | ModelSpec,
    gpu: str | GpuSpec,
    *,
    tp: int = 1,
    kv_dtype: str = "bf16",
    engine: str = "sglang",
    mem_fraction: float | None = None,
    weight_dtype: str | None = None,
) -> int:
    """KV pool size in tokens for ``simulate --model M --gpu G`` (names or resolved specs).

    The same figure as ``estimate_cost(...).kv_pool_tokens``: every attention layer allocated
    per token (no SWA-aware pool; a hybrid's state layers keep no per-token KV).
    """
    model_spec = resolve_model(model) if isinstance(model, str) else model
    gpu_spec = resolve_gpu(gpu) if isinstance(gpu, str) else gpu
    estimate = estimate_cost(
        model_spec, gpu_spec, tp=tp, kv_dtype=kv_dtype, engine=engine,
        mem_fraction=mem_fraction, weight_dtype=weight_dtype,
    )
    if not estimate.weights_fit:
        raise AdvisorError(not_fitting_message(estimate))
    return estimate.kv_pool_tokens


def not_fitting_message(e: CostEstimate) -> str:
    """One line: the weights leave no pool at this TP, and the TP that would fit."""
    per_gpu = e.weight_bytes_per_gpu / GIB
    fix = (f"use --tp {e.smallest_tp_that_fits} (the fewest GPUs that fit)" if e.smallest_tp_that_fits
           else "no TP up to 16 fits; use --weight-dtype fp8 or a bigger GPU")
    return (f"{e.model} weights ({per_gpu:.1f} GiB per GPU in {e.weight_dtype} at TP {e.tp}) leave no KV pool "
            f"for one full-context sequence on {e.gpu} at memory fraction {e.mem_fraction}; {fix}")
