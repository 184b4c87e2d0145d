"""Compute: prefill FLOPs and seconds, the decode step, and the engine timings the simulator runs on.

This module is the one source of engine timings: ``advisor cost`` (prefill saved per hit),
``advisor simulate --model/--gpu`` and ``advisor report`` all take their seconds from
``engine_timings``. The model is a roofline over the catalog's figures (REFERENCE §5):

- prefill is compute bound: 2·N FLOPs a token (N = active non-embedding parameters) plus the
  causal attention of the new tokens against everything before them, on TP GPUs at the
  GEMM dtype's dense peak × MFU. A step never takes less than reading the weights once (a
  batch of a few tokens is bandwidth bound, like a decode step);
- a decode step is bandwidth bound: every GPU reads its shard of the weights (for MoE, the
  experts the batch's tokens route to) and the KV of every running sequence, at the GPU's
  bandwidth × a utilisation.

Communication between TP ranks, kernel launch gaps and scheduling overhead are not modelled;
the stated MFU and bandwidth utilisation stand for them and are options (``--mfu``,
``--bandwidth-util``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from advisor.cost.catalog import DEFAULT_MFU, GpuSpec, ModelSpec
from advisor.cost.memory import kv_bytes_per_layer_token, resolve_weight_dtype, weight_bytes
from advisor.errors import AdvisorError

# Share of peak bandwidth a decode step achieves. REFERENCE §5: kv-planner's roofline defaults
# MBU to 0.75 (H100 TPOT MAPE < 2 %); llm-analysis uses comparable figures.
DEFAULT_BANDWIDTH_UTIL = 0.75


# ---------------------------------------------------------------------------------------------
# FLOPs (REFERENCE §5)
# ---------------------------------------------------------------------------------------------


def _attention_pairs(tokens: float, window: int | None) -> float:
    """Query-key pairs of a causal prefill: T²/2, or ≈ W·T − W²/2 once a window W < T caps it."""
    if window is None or tokens <= window:
        return tokens * tokens / 2
    return window * tokens - window * window / 2


def attention_flops_per_pair(model: ModelSpec) -> float:
    """FLOPs of one query-key pair in one layer: QKᵀ and AV, 2 FLOPs a multiply-add each.

    MLA uses its query/key width (nope + rope) for QKᵀ and v_head_dim for AV.
    """
    if model.is_mla:
        qk_dim = model.qk_nope_head_dim + model.qk_rope_head_dim  # type: ignore[operator]
        v_dim = model.v_head_dim or 0
    else:
        qk_dim = v_dim = model.head_dim
    return 2.0 * model.num_heads * (qk_dim + v_dim)


def extend_flops(model: ModelSpec, cached: int, total: int) -> float:
    """FLOPs to compute tokens ``cached``..``total`` of a prompt whose first ``cached`` are in cache.

    The weights cost 2·N per new token; attention costs the pairs the new tokens form with
    every earlier token (the cached ones included: a hit saves their projections and MLPs,
    not the new tokens' attention over them). Sliding layers count pairs inside their window.
    """
    new = total - cached
    if new <= 0:
        return 0.0
    per_pair = attention_flops_per_pair(model)
    full = _attention_pairs(total, None) - _attention_pairs(cached, None)
    sliding = _attention_pairs(total, model.sliding_window) - _attention_pairs(cached, model.sliding_window)
    attention = per_pair * (model.num_full_layers * full + model.num_sliding_layers * sliding)
    return 2.0 * model.params_nonembedding_active * new + attention


def prefill_flops(model: ModelSpec, tokens: int) -> float:
    """FLOPs to prefill ``tokens`` tokens from scratch (what a prefix hit of that length saves).

    2·N·T for the weights plus the causal attention, 2·L·d_attn·T²/2 per QKᵀ and AV.
    """
    return extend_flops(model, 0, tokens)


def gemm_tflops(gpu: GpuSpec, model: ModelSpec, weight_dtype: str | None = None) -> tuple[float, str]:
    """Dense peak TFLOPS the prefill GEMMs run at, and its name.

    FP8 weights run FP8 GEMMs where the GPU has FP8 tensor cores (REFERENCE §6: "FP8 GEMMs
    halve these"); A100s have none and run them in BF16. MXFP4 experts are dequantized into
    BF16 GEMMs on the catalog's GPUs (none lists FP4 tensor-core figures).
    """
    dtype = resolve_weight_dtype(model, weight_dtype)
    if dtype == "fp8" and gpu.tflops_fp8_dense:
        return gpu.tflops_fp8_dense, "FP8 dense"
    return gpu.tflops_bf16_dense, "BF16 dense"


def prefill_seconds(flops: float, gpu: GpuSpec, tp: int = 1, mfu: float = DEFAULT_MFU,
                    tflops: float | None = None) -> float:
    """Seconds to run ``flops`` on TP GPUs at the dense peak × MFU (communication not modelled)."""
    check_fraction("--mfu", mfu)
    peak = gpu.tflops_bf16_dense if tflops is None else tflops
    return flops / (tp * peak * 1e12 * mfu)


def check_fraction(option: str, value: float) -> None:
    if not 0 < value <= 1:
        raise AdvisorError(f"{option} must be in (0, 1] (got {value})")


# ---------------------------------------------------------------------------------------------
# Engine timings: what one serving step costs
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EngineTimings:
    """Seconds a serving engine spends on a prefill batch and on a decode step.

    Built by ``engine_timings`` from the catalog; ``EngineTimings(p, d)`` alone is the fixed
    model of ``--prefill-token-seconds`` / ``--decode-step-seconds`` (p seconds per uncached
    token, a constant d a decode step). The other terms are 0 there.

    prefill batch  = max(Σ new·prefill_token_s + pairs·pair_s, weight read of the batch)
    decode step    = weights_s + experts_s·f(R) + R·seq_s + context_tokens·kv_token_s
    with R running sequences, f(R) the share of routed experts R tokens touch,
    E·(1 − (1 − k/E)^R)/E, and ``seq_s`` the sliding layers' window read per sequence.
    """

    prefill_token_s: float
    decode_step_s: float  # reading the non-expert weights once (a step's floor)
    full_pair_s: float = 0.0  # one query-key pair summed over the full-attention layers
    sliding_pair_s: float = 0.0  # the same over the sliding layers (pairs inside the window)
    window: int | None = None
    experts_s: float = 0.0  # reading every routed expert once
    experts: int = 0
    experts_per_token: int = 0
    kv_token_s: float = 0.0  # one context token's KV in the full layers
    seq_s: float = 0.0  # one sequence's sliding-window KV (window tokens in the sliding layers)
    prefill_floor: bool = False  # a prefill step reads the weights at least once
    description: str = "fixed"

    def prefill_seconds(self, tokens: int) -> float:
        """The linear part only: ``tokens`` new tokens without attention (the fixed model)."""
        return tokens * self.prefill_token_s

    def extend_seconds(self, cached: int, total: int) -> float:
        """Compute seconds of one request's uncached tokens (attention over the cached part included)."""
        new = total - cached
        if new <= 0:
            return 0.0
        seconds = new * self.prefill_token_s
        if self.full_pair_s:
            seconds += self.full_pair_s * (_attention_pairs(total, None) - _attention_pairs(cached, None))
        if self.sliding_pair_s:
            seconds += self.sliding_pair_s * (_attention_pairs(total, self.window)
                                              - _attention_pairs(cached, self.window))
        return seconds

    def batch_seconds(self, items: list[tuple[int, int]]) -> float:
        """One prefill step over ``(cached, total)`` requests."""
        compute = sum(self.extend_seconds(c, t) for c, t in items)
        if not self.prefill_floor:
            return compute
        tokens = sum(t - c for c, t in items)
        return max(compute, self.weights_read_seconds(max(1, tokens)))

    def weights_read_seconds(self, tokens: int) -> float:
        """Reading the weights ``tokens`` tokens need: the dense part and the experts they route to."""
        if not self.experts:
            return self.decode_step_s + self.experts_s
        k, e = self.experts_per_token, self.experts
        touched = 1.0 - (1.0 - k / e) ** tokens
        return self.decode_step_s + self.experts_s * touched

    def step_base(self, running: int) -> float:
        """A decode step's seconds that do not grow with context: weights and windowed KV."""
        return self.weights_read_seconds(running) + running * self.seq_s

    def decode_seconds(self, running: int, context: int, steps: int) -> float:
        """``steps`` decode steps of ``running`` sequences holding ``context`` tokens at the first;
        each step adds one token per sequence."""
        if steps <= 0:
            return 0.0
        base = self.step_base(running) + self.kv_token_s * context
        return steps * base + self.kv_token_s * running * steps * (steps - 1) / 2

    def steps_within(self, running: int, context: int, seconds: float) -> int:
        """The fewest steps (at least 1) whose time reaches ``seconds``."""
        base = self.step_base(running) + self.kv_token_s * context
        a = self.kv_token_s * running / 2
        b = base - a
        if seconds <= 0 or (a <= 0 and b <= 0):
            return 1
        if a <= 0:
            n = math.ceil(seconds / b)
        else:
            n = math.ceil((-b + math.sqrt(b * b + 4 * a * seconds)) / (2 * a))
        # Floating point can land one step short or long; settle it exactly.
        n = max(1, n)
        while n > 1 and self.decode_seconds(running, context, n - 1) >= seconds:
            n -= 1
        while self.decode_seconds(running, context, n) < seconds:
            n += 1
        return n


def engine_timings(model: ModelSpec, gpu: GpuSpec, *, tp: int = 1, kv_dtype: str = "bf16",
                   weight_dtype: str | None = None, mfu: float = DEFAULT_MFU,
                   bandwidth_util: float = DEFAULT_BANDWIDTH_UTIL) -> EngineTimings:
    """The roofline timings of ``model`` on TP × ``gpu`` (see the module docstring)."""
    check_fraction("--mfu", mfu)
    check_fraction("--bandwidth-util", bandwidth_util)
    dtype = resolve_weight_dtype(model, weight_dtype)
    tflops, _ = gemm_tflops(gpu, model, dtype)
    flops_s = tp * tflops * 1e12 * mfu
    bytes_s = gpu.bandwidth_gb_s * 1e9 * bandwidth_util  # per GPU; each reads its own shard
    weights = weight_bytes(model, dtype)
    experts = _expert_bytes(model, dtype)
    per_pair = attention_flops_per_pair(model)
    kv_layer = kv_bytes_per_layer_token(model, kv_dtype, tp)  # one GPU's share of one layer
    window = model.sliding_window if model.num_sliding_layers else None
    return EngineTimings(
        prefill_token_s=2.0 * model.params_nonembedding_active / flops_s,
        decode_step_s=(weights - experts) / tp / bytes_s,
        full_pair_s=per_pair * model.num_full_layers / flops_s,
        sliding_pair_s=per_pair * model.num_sliding_layers / flops_s if window else 0.0,
        window=window,
        experts_s=experts / tp / bytes_s,
        experts=model.num_experts if model.is_moe else 0,
        experts_per_token=model.experts_per_token if model.is_moe else 0,
        kv_token_s=kv_layer * model.num_full_layers / bytes_s,
        seq_s=kv_layer * model.num_sliding_layers * (window or 0) / bytes_s,
        prefill_floor=True,
        description=(f"{model.id} ({dtype} weights, {kv_dtype} KV) on {tp} × {gpu.id}: prefill at "
                     f"{mfu:.0%} MFU of {tflops:g} TFLOPS, decode at {bandwidth_util:.0%} of "
                     f"{gpu.bandwidth_gb_s:,.0f} GB/s"),
    )


def _expert_bytes(model: ModelSpec, dtype: str) -> int:
    """Bytes of the routed experts in ``dtype`` (the part a decode step reads only in part)."""
    if not model.is_moe:
        return 0
    from advisor.cost.catalog import WEIGHT_DTYPE_BITS

    return math.ceil(model.params_experts * WEIGHT_DTYPE_BITS[dtype] / 8)


def prefill_tokens_per_second(timings: EngineTimings, prompt_tokens: int) -> float:
    """Tokens/s of one cold prompt of ``prompt_tokens`` tokens (compute bound, weights floor)."""
    return prompt_tokens / timings.batch_seconds([(0, prompt_tokens)])
