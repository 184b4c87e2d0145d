"""HBM and compute cost of serving a model: the model/GPU catalog, KV memory, engine timings.

- ``catalog``: model and GPU entries (``advisor/data/models.yaml``, each figure with its source),
  HuggingFace ``config.json`` reading, name resolution;
- ``layout``: each model's attention layout (full, sliding, chunked, linear-attention/Mamba
  state layers, MLA and DSA), and the cache geometry and state it gives vLLM and SGLang;
- ``memory``: KV bytes per token, weights in each dtype, the KV pool left after them, the
  smallest TP that fits;
- ``compute``: prefill FLOPs and the engine timings (prefill compute bound at an MFU, decode
  bandwidth bound): the one source of the seconds ``simulate`` and ``report`` use;
- ``estimate``: the figures ``advisor cost`` prints.

Everything is a pure function of catalog entries and a few serving settings; the formulas and
defaults are those of REFERENCE.md (cited per function as "REFERENCE §n").
"""

from advisor.cost.catalog import (
    CUDA_CONTEXT_BYTES, DEFAULT_MFU, ENGINES, GIB, KV_DTYPE_BYTES, MIB, VLLM_ACTIVATION_BYTES,
    VLLM_GPU_MEMORY_UTILIZATION_DEFAULT, WEIGHT_DTYPE_BITS, WEIGHT_DTYPE_BYTES, Catalog, GpuSpec, ModelSpec,
    estimate_params, load_catalog, load_config_json, model_from_config, resolve_gpu, resolve_model,
)
from advisor.cost.compute import (
    DEFAULT_BANDWIDTH_UTIL, EngineTimings, attention_flops_per_pair, engine_timings, extend_flops, gemm_tflops,
    prefill_flops, prefill_seconds, prefill_tokens_per_second,
)
from advisor.cost.estimate import (
    CONTRACT_FIELDS, REFERENCE_PROMPT_TOKENS, CostEstimate, estimate_cost, not_fitting_message, pool_capacity_tokens,
)
from advisor.cost.layout import AttentionLayout, cache_geometry, read_layout, vllm_block
from advisor.cost.memory import (
    TP_CANDIDATES, attention_kv_bytes_per_token, check_tp, default_mem_fraction, kv_bytes_per_layer_token,
    kv_bytes_per_token, kv_heads_per_gpu, kv_pool_bytes_per_gpu, pool_holds_full_context, resolve_weight_dtype,
    sequence_kv_bytes, sglang_default_mem_fraction, smallest_fitting_tp, state_bytes_per_request,
    state_bytes_per_sequence, state_checkpoint_bytes, weight_bytes,
)

__all__ = [
    "CONTRACT_FIELDS", "CUDA_CONTEXT_BYTES", "DEFAULT_BANDWIDTH_UTIL", "DEFAULT_MFU", "ENGINES", "GIB",
    "KV_DTYPE_BYTES", "MIB", "REFERENCE_PROMPT_TOKENS", "TP_CANDIDATES", "VLLM_ACTIVATION_BYTES",
    "VLLM_GPU_MEMORY_UTILIZATION_DEFAULT", "WEIGHT_DTYPE_BITS", "WEIGHT_DTYPE_BYTES", "AttentionLayout", "Catalog",
    "CostEstimate", "EngineTimings", "GpuSpec", "ModelSpec", "attention_flops_per_pair", "attention_kv_bytes_per_token",
    "cache_geometry", "check_tp", "default_mem_fraction", "read_layout", "state_bytes_per_request",
    "state_bytes_per_sequence", "state_checkpoint_bytes", "vllm_block",
    "engine_timings", "estimate_cost", "estimate_params", "extend_flops", "gemm_tflops", "kv_bytes_per_layer_token",
    "kv_bytes_per_token", "kv_heads_per_gpu", "kv_pool_bytes_per_gpu", "load_catalog", "load_config_json",
    "model_from_config", "not_fitting_message", "pool_holds_full_context", "pool_capacity_tokens", "prefill_flops", "prefill_seconds",
    "prefill_tokens_per_second", "resolve_gpu", "resolve_model", "resolve_weight_dtype", "sequence_kv_bytes",
    "sglang_default_mem_fraction", "smallest_fitting_tp", "weight_bytes",
]
