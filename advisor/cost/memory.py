"""KV memory: bytes per token, weights, the pool that is left, and the TP that fits.

Formulas and defaults from REFERENCE.md §4 (cited per function as "REFERENCE §n").
Per-GPU figures unless a name says otherwise.
"""

from __future__ import annotations

import math

from advisor.cost.catalog import (
    CUDA_CONTEXT_BYTES, ENGINES, MIB, VLLM_ACTIVATION_BYTES, VLLM_GPU_MEMORY_UTILIZATION_DEFAULT,
    WEIGHT_DTYPE_BITS, GpuSpec, ModelSpec, _SGLANG_B200_CHUNKED_PREFILL, _SGLANG_DEFAULT_CHUNKED_PREFILL,
)
from advisor.cost.layout import (
    attention_bytes_per_layer_token, kv_dtype_bytes, sglang_mamba_strategy, sglang_tracking_slots,
    state_bytes_per_layer, vllm_block, vllm_state_pages_per_request,
)
from advisor.errors import AdvisorError


# ---------------------------------------------------------------------------------------------
# KV bytes (REFERENCE §4.1)
# ---------------------------------------------------------------------------------------------


def _kv_bytes(kv_dtype: str) -> int:
    return kv_dtype_bytes(kv_dtype)


def check_tp(model: ModelSpec, tp: int) -> None:
    """Engines shard attention heads evenly, so TP must divide the query heads."""
    if tp < 1:
        raise AdvisorError(f"--tp must be at least 1 (got {tp})")
    if model.num_heads % tp:
        raise AdvisorError(f"--tp {tp} does not divide the {model.num_heads} attention heads of {model.id}")


def kv_heads_per_gpu(model: ModelSpec, tp: int = 1) -> int:
    """KV heads one GPU holds: n_kv / TP, replicated when TP > n_kv (SGLang ``get_num_kv_heads``)."""
    return max(1, model.num_kv_heads // tp)


def kv_bytes_per_layer_token(model: ModelSpec, kv_dtype: str = "bf16", tp: int = 1) -> int:
    """KV bytes one layer stores per token on one GPU.

    GQA/MHA/MQA: K and V for each local KV head (2 · kv · head_dim · b). MLA: one latent of
    kv_lora_rank plus the decoupled RoPE key, shared by all heads and therefore not divided by TP
    (SGLang's MLA cell size has no TP divisor).
    """
    b = _kv_bytes(kv_dtype)
    if model.is_mla:
        return (model.kv_lora_rank + model.qk_rope_head_dim) * b  # type: ignore[operator]
    return 2 * kv_heads_per_gpu(model, tp) * model.head_dim * b


def kv_bytes_per_token(
    model: ModelSpec, kv_dtype: str = "bf16", tp: int = 1, *, full_layers_only: bool = False
) -> int:
    """KV bytes per token on one GPU: every layer (default) or only the full-attention layers.

    With tp=1 this is the model's figure of REFERENCE §4.2 (131,072 B for Llama 3.1 8B in BF16).
    ``full_layers_only`` is the growth per token once sliding-window layers are capped by an
    SWA-aware pool (0 for Mistral-7B-v0.1, whose every layer slides).
    """
    # Growth per token: the full-attention layers only (sliding and chunked layers are capped by
    # their window or chunk, linear-attention and Mamba layers hold a constant state).
    layers = model.layout.full_layers if full_layers_only else model.num_layers
    return layers * kv_bytes_per_layer_token(model, kv_dtype, tp)


def sequence_kv_bytes(
    model: ModelSpec, tokens: int, kv_dtype: str = "bf16", tp: int = 1, *, swa_aware: bool = False
) -> int:
    """KV bytes of ``tokens`` tokens of one sequence on one GPU.

    Without an SWA-aware pool every layer holds every token. With one (a layout-aware pool),
    only the attention layers hold tokens, sliding layers at most ``sliding_window`` and chunked
    layers at most ``attention_chunk_size`` (vLLM frees the blocks of finished chunks):
    Σ_full per-layer·T + Σ_swa per-layer·min(T, window) + Σ_chunked per-layer·min(T, chunk).
    State layers keep no per-token KV (their state is ``state_bytes_per_sequence``).
    """
    if not swa_aware:
        return model.num_layers * kv_bytes_per_layer_token(model, kv_dtype, tp) * tokens
    layout = model.layout
    per_layer = attention_bytes_per_layer_token(model, kv_dtype, tp) + _indexer_bytes(model)
    window = min(tokens, layout.sliding_window or tokens)
    chunk = min(tokens, layout.chunk_size or tokens)
    return per_layer * (layout.full_layers * tokens + layout.sliding_layers * window + layout.chunked_layers * chunk)


def _indexer_bytes(model: ModelSpec) -> int:
    indexer = model.layout.indexer
    return indexer.key_bytes_per_token if indexer is not None else 0


def attention_kv_bytes_per_token(model: ModelSpec, kv_dtype: str = "bf16", tp: int = 1) -> int:
    """KV growth per token on one GPU over the layers that keep per-token KV: full, sliding and
    chunked attention (uncapped), plus DeepSeek V3.2's indexer keys (ARCHITECTURES §4).

    For a full-attention or sliding-window model this is ``kv_bytes_per_token`` (every layer is
    an attention layer); for Qwen3-Next it is the 12 full layers' 24,576 B, not 48 layers' 98,304.
    """
    layout = model.layout
    return layout.attention_layers * (attention_bytes_per_layer_token(model, kv_dtype, tp) + _indexer_bytes(model))


# ---------------------------------------------------------------------------------------------
# State of linear-attention / Mamba layers (ARCHITECTURES §3-4)
# ---------------------------------------------------------------------------------------------


def state_bytes_per_sequence(model: ModelSpec, engine: str = "vllm", tp: int = 1, num_speculative: int = 0) -> int:
    """One state per state layer on one GPU, unpadded, in ``engine``'s dtypes (vLLM: the model
    dtype but NemotronH's float32 SSM and Qwen3.5's configured one; SGLang: float32 SSM).

    Qwen3-Next: 36 · 1,097,728 = 39,518,208 B in vLLM, 36 · 2,146,304 = 77,266,944 B in SGLang."""
    layout = model.layout
    if not layout.state_layers:
        return 0
    return layout.state_layers * state_bytes_per_layer(layout, engine, tp=tp, num_speculative=num_speculative,
                                                       model=model.id)


def state_checkpoint_bytes(model: ModelSpec, engine: str = "vllm", *, gpu: GpuSpec | None = None,
                           kv_dtype: str = "bf16", tp: int = 1, num_speculative: int = 0) -> int:
    """One cached state (every state layer at one position) on one GPU: in vLLM a state page
    padded to the attention page of the hybrid block (Qwen3-Next 36 · 1,114,112 B at block 544),
    in SGLang the unpadded state."""
    layout = model.layout
    if not layout.state_layers:
        return 0
    if engine == "vllm":
        vb = vllm_block(model, gpu=gpu, kv_dtype=kv_dtype, tp=tp, num_speculative=num_speculative)
        return layout.state_layers * vb.page_bytes
    return state_bytes_per_sequence(model, engine, tp)


def state_bytes_per_request(model: ModelSpec, engine: str = "vllm", *, gpu: GpuSpec | None = None,
                            kv_dtype: str = "bf16", tp: int = 1, num_speculative: int = 0,
                            mamba_strategy: str | None = None, page_size: int = 1) -> int:
    """State bytes one running request holds on one GPU.

    vLLM (align mode, prefix caching on): ``2 + speculative + prefill checkpoint blocks``
    padded pages per state layer (``MambaSpec.max_memory_usage_bytes``; the checkpoint block is
    there for Mamba2 and FlashInfer GDN). SGLang: its own state plus the tracking slots of its
    Mamba strategy (two with extra_buffer under overlap scheduling)."""
    layout = model.layout
    if not layout.state_layers:
        return 0
    if engine == "vllm":
        vb = vllm_block(model, gpu=gpu, kv_dtype=kv_dtype, tp=tp, num_speculative=num_speculative)
        return layout.state_layers * vb.page_bytes * vllm_state_pages_per_request(vb, num_speculative)
    strategy = sglang_mamba_strategy(layout, page_size, mamba_strategy)
    return (1 + sglang_tracking_slots(strategy)) * state_bytes_per_sequence(model, "sglang", tp)


# ---------------------------------------------------------------------------------------------
# KV pool after weights (REFERENCE §4.3)
# ---------------------------------------------------------------------------------------------


def sglang_default_mem_fraction(gpu: GpuSpec, tp: int = 1, pp: int = 1) -> float:
    """SGLang's late-2025 ``mem_fraction_static`` default (``_handle_gpu_memory_settings``).

    reserved (MiB) = 512 + 1.5·max(chunked_prefill_size, 2048) + 2·cuda_graph_max_bs + TP·PP/8·1024,
    at least 10 GiB on GPUs above 60 GiB; fraction = (total − reserved) / total, 3 decimals.
    With the nvidia-smi total this reproduces REFERENCE's derived H100 TP1 0.835 and TP8 0.818
    (see the module constants for the inputs). GPUs without an nvidia-smi figure in the catalog
    use datasheet GB, so e.g. H200 comes out 0.900 where REFERENCE, from ~140 GiB visible, has
    0.907. The default changed at least twice; pass the running value when known.
    """
    total_mib = gpu.memory_bytes / MIB
    b200 = gpu.id.lower().startswith("b200")
    chunked = _SGLANG_B200_CHUNKED_PREFILL if b200 else _SGLANG_DEFAULT_CHUNKED_PREFILL
    graph_bs = 512 if (b200 or tp >= 4) else 256
    reserved = 512 + 1.5 * max(chunked, 2048) + 2 * graph_bs + tp * pp / 8 * 1024
    if total_mib > 60 * 1024:
        reserved = max(reserved, 10 * 1024)
    return round((total_mib - reserved) / total_mib, 3)


def default_mem_fraction(engine: str, gpu: GpuSpec, tp: int = 1) -> float:
    if engine == "vllm":
        return VLLM_GPU_MEMORY_UTILIZATION_DEFAULT
    return sglang_default_mem_fraction(gpu, tp)


def weight_bytes(model: ModelSpec, weight_dtype: str | None = None) -> int:
    """All weights (total, not active: every expert stays resident), in ``weight_dtype``
    (default: the dtype the checkpoint ships in).

    MXFP4 applies to the routed experts only, as gpt-oss ships it: experts at 4.25 bits,
    everything else BF16. FP8 and BF16 apply to every weight (scales not counted).
    """
    dtype = resolve_weight_dtype(model, weight_dtype)
    bits = WEIGHT_DTYPE_BITS[dtype]
    if dtype == "mxfp4":
        experts = model.params_experts
        return math.ceil(experts * bits / 8) + (model.params_total - experts) * 2
    return math.ceil(model.params_total * bits / 8)


def resolve_weight_dtype(model: ModelSpec, weight_dtype: str | None) -> str:
    """``weight_dtype`` checked (None = the shipped dtype)."""
    dtype = (weight_dtype or model.weight_dtype).lower()
    if dtype not in WEIGHT_DTYPE_BITS:
        raise AdvisorError(f"unknown weight dtype {dtype!r}; known: {', '.join(WEIGHT_DTYPE_BITS)}")
    if dtype == "mxfp4" and not model.is_moe:
        raise AdvisorError(f"--weight-dtype mxfp4 quantizes MoE expert weights; {model.id} has no experts")
    return dtype


def kv_pool_bytes_per_gpu(
    gpu: GpuSpec, weights_per_gpu: int, engine: str = "sglang", mem_fraction: float | None = None, tp: int = 1
) -> int:
    """One GPU's KV pool in bytes (0 when the weights leave nothing).

    SGLang: rest = free-after-weights − total·(1 − mem_fraction_static)
                 = total·mem_fraction_static − weights − CUDA context.
    vLLM:   total·gpu_memory_utilization − weights − activations/non-torch memory.
    """
    if engine not in ENGINES:
        raise AdvisorError(f"unknown engine {engine!r}; known: {', '.join(ENGINES)}")
    fraction = default_mem_fraction(engine, gpu, tp) if mem_fraction is None else mem_fraction
    if not 0 < fraction <= 1:
        raise AdvisorError(f"memory fraction must be in (0, 1] (got {fraction})")
    overhead = VLLM_ACTIVATION_BYTES if engine == "vllm" else CUDA_CONTEXT_BYTES
    return max(0, int(gpu.memory_bytes * fraction) - weights_per_gpu - overhead)



# The TP degrees tried when the weights do not fit: the sizes engines are run at on one node
# and on two (TP must divide the attention heads, see check_tp).
TP_CANDIDATES = (1, 2, 4, 8, 16)


def pool_holds_full_context(model: ModelSpec, pool_per_gpu: int, kv_dtype: str = "bf16", tp: int = 1, *,
                            engine: str = "sglang", gpu: GpuSpec | None = None) -> bool:
    """Whether a per-GPU pool holds one sequence of the model's full context.

    That is the check vLLM makes at start-up (it refuses when max_model_len exceeds the KV
    cache, vllm-project/vllm#2163), so a smaller pool is a deployment that does not start with
    the model's own context length. Sliding layers count their window only (both engines keep
    an SWA-aware pool for such models, REFERENCE §4.1), chunked layers their chunk, and state
    layers the state one running request holds in ``engine``. Without a known context: one token.
    """
    tokens = model.max_context or 1
    need = sequence_kv_bytes(model, tokens, kv_dtype, tp, swa_aware=True)
    need += state_bytes_per_request(model, engine, gpu=gpu, kv_dtype=kv_dtype, tp=tp)
    return pool_per_gpu >= max(1, need)


def smallest_fitting_tp(model: ModelSpec, gpu: GpuSpec, *, engine: str = "sglang", kv_dtype: str = "bf16",
                        mem_fraction: float | None = None, weight_dtype: str | None = None) -> int | None:
    """The fewest GPUs (a TP degree dividing the heads, and a hybrid's state heads) whose pools
    fit the weights and one full-context sequence (``pool_holds_full_context``); None when not
    even 16 do."""
    weights = weight_bytes(model, weight_dtype)
    for tp in TP_CANDIDATES:
        if model.num_heads % tp:
            continue
        pool = kv_pool_bytes_per_gpu(gpu, math.ceil(weights / tp), engine, mem_fraction, tp)
        try:
            if pool_holds_full_context(model, pool, kv_dtype, tp, engine=engine, gpu=gpu):
                return tp
        except AdvisorError:
            continue  # this TP does not divide the state heads or groups
    return None
