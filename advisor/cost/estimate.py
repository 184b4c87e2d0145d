"""The estimate ``advisor cost`` prints: memory, pool and timings of one deployment."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from advisor.cost.catalog import DEFAULT_MFU, ENGINES, GIB, GpuSpec, ModelSpec, resolve_gpu, resolve_model
from advisor.cost.compute import (
    DEFAULT_BANDWIDTH_UTIL, engine_timings, gemm_tflops, prefill_flops, prefill_seconds, prefill_tokens_per_second,
)
from advisor.cost.memory import (
    _kv_bytes, check_tp, default_mem_fraction, kv_bytes_per_token, kv_pool_bytes_per_gpu, pool_holds_full_context, resolve_weight_dtype,
    sequence_kv_bytes, smallest_fitting_tp, weight_bytes,
)
from advisor.errors import AdvisorError

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
    per_gpu_token = kv_bytes_per_token(model, kv_dtype, tp)
    weights_total = weight_bytes(model, dtype)
    weights_gpu = math.ceil(weights_total / tp)
    pool_gpu = kv_pool_bytes_per_gpu(gpu, weights_gpu, engine, fraction, tp)
    fits = pool_holds_full_context(model, pool_gpu, kv_dtype, tp)
    if not fits:
        pool_gpu = 0
    smallest = tp if fits else smallest_fitting_tp(model, gpu, engine=engine, kv_dtype=kv_dtype,
                                                   mem_fraction=mem_fraction, weight_dtype=dtype)
    pool_tokens = pool_gpu // per_gpu_token
    timings = engine_timings(model, gpu, tp=tp, kv_dtype=kv_dtype, weight_dtype=dtype, mfu=mfu,
                             bandwidth_util=bandwidth_util)
    tflops, gemm_name = gemm_tflops(gpu, model, dtype)
    token_bytes = per_gpu_token * tp  # HBM across the TP group per token
    prefix_bytes = prefix_tokens * token_bytes
    prefix_swa = sequence_kv_bytes(model, prefix_tokens, kv_dtype, tp, swa_aware=True) * tp

    # Concurrency: how many sequences of (shared prefix + own tokens) the pool holds. Without
    # sharing each carries its own prefix copy; with a radix-shared prefix one copy serves all.
    seq_tokens = prefix_tokens + unique_tokens
    unshared = pool_tokens // seq_tokens if seq_tokens else 0
    if unique_tokens:
        shared: int | None = max(0, pool_tokens - prefix_tokens) // unique_tokens
    else:
        shared = None

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
    )


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

    The same figure as ``estimate_cost(...).kv_pool_tokens``: every layer allocated per token,
    i.e. no SWA-aware pool.
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
