"""The model and GPU catalog: entries, HuggingFace config.json reading, name resolution.

Everything here is a pure function of a catalog entry (or a HuggingFace ``config.json``), a GPU
and a few serving settings; the CLI (``advisor/commands/cost.py``) only parses options and prints.
The formulas and every default are those of the project's REFERENCE.md (cited per function as
"REFERENCE §n"); the figures come from ``advisor/data/models.yaml``, a copy of the shared
``models.yaml`` that keeps each figure's source.

Conventions:
- "bytes per token" for the whole model counts every layer, i.e. what an engine without a
  sliding-window-aware pool allocates; the full-layers-only growth is reported next to it.
- With tensor parallelism (TP) the byte figures of a ``CostEstimate`` are the HBM used across the
  whole TP group (per-GPU figure x TP), so replicated KV heads and replicated MLA latents show up
  as the real memory they take; ``*_per_gpu`` fields give one GPU's share.
- Pool sizes are estimates of what the engine will allocate: the engine's own log line
  (SGLang ``KV Cache is allocated. #tokens: ...``, vLLM ``GPU KV cache size: ... tokens``) is the
  ground truth, and ``--mem-fraction`` lets the user feed the running version's setting.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field, replace
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Mapping

from advisor.cost.layout import KV_DTYPE_BYTES as KV_DTYPE_BYTES  # re-exported: the one table
from advisor.cost.layout import AttentionLayout, first_field as _first, full_attention_layout, read_layout
from advisor.errors import AdvisorError
from advisor.ingest import safe_open
from advisor.ingest.safe_yaml import safe_load

GIB = 1 << 30
MIB = 1 << 20

# KV_DTYPE_BYTES (bytes per KV element: BF16/FP16 2, FP8 1; REFERENCE §4.1) lives in
# advisor.cost.layout, which the cache geometry shares; it is re-exported here.
# Bits per weight. MXFP4 (gpt-oss) stores 4-bit values with one 8-bit scale per 32: 4.25 bits,
# and only the MoE expert weights are in it; the rest of the model stays BF16 (gpt-oss model
# card; vLLM's gpt-oss post: "63 GB (120B) and 14 GB (20B)"; see data/models.yaml).
WEIGHT_DTYPE_BITS: dict[str, float] = {"bf16": 16, "fp16": 16, "fp8": 8, "mxfp4": 4.25}
# Kept for callers that want whole bytes of the dense dtypes.
WEIGHT_DTYPE_BYTES: dict[str, int] = {"bf16": 2, "fp16": 2, "fp8": 1}

ENGINES = ("sglang", "vllm")

# vLLM's --gpu-memory-utilization default per the engine-argument docs (REFERENCE §4.3; the 0.33.0
# source reads 0.92, a recorded conflict; the catalog's runtimes.vllm entry carries both).
VLLM_GPU_MEMORY_UTILIZATION_DEFAULT = 0.9

# What the pool formulas subtract besides weights. Both are the estimates REFERENCE §6 uses for
# its worked example (labelled "derived estimate" there), not measured constants: ~0.5 GiB of
# CUDA context before SGLang profiles free memory, ~2 GiB of activations/non-torch memory that
# vLLM's profiling run reserves out of its utilisation budget.
CUDA_CONTEXT_BYTES = GIB // 2
VLLM_ACTIVATION_BYTES = 2 * GIB

# Default MFU for the prefill time saved by a hit. REFERENCE §5 gives 0.5 (kv-planner's default,
# and llm-analysis' ceiling for training) to 0.7 (llm-analysis' "up to 0.7 for inference"); the
# advisory must not oversell a hit, so the default is the conservative end. §6 shows 0.5-0.7.
DEFAULT_MFU = 0.5

# Inputs of SGLang's late-2025 mem_fraction_static rule (REFERENCE §4.3, `_handle_gpu_memory_settings`):
# chunked_prefill_size and cuda_graph_max_bs are 8192 / 256 for TP < 4 on H100/A100/H200 and
# 16384 / 512 on B200. The TP >= 4 cuda_graph_max_bs of 512 is not stated in REFERENCE; it is the
# value that reproduces its derived H100 TP8 fraction (0.818), so it is used for TP >= 4.
_SGLANG_B200_CHUNKED_PREFILL = 16384
_SGLANG_DEFAULT_CHUNKED_PREFILL = 8192


# ---------------------------------------------------------------------------------------------
# Catalog data types
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ModelSpec:
    """The config fields that set a model's KV size and prefill compute."""

    id: str
    architecture: str
    num_layers: int
    num_heads: int
    num_kv_heads: int
    head_dim: int  # explicit config head_dim when present, else hidden_size // num_heads
    hidden_size: int
    vocab_size: int
    tied_embeddings: bool
    params_total: int
    params_active: int  # == params_total for dense models
    params_source: str  # "catalog" or "estimated from config"
    source: str
    # MLA (DeepSeek-V2/V3/R1): only the compressed latent and the decoupled RoPE key are cached.
    kv_lora_rank: int | None = None
    qk_rope_head_dim: int | None = None
    qk_nope_head_dim: int | None = None
    v_head_dim: int | None = None
    # Sliding-window attention: the window and, per layer, whether that layer slides.
    sliding_window: int | None = None
    sliding_layers: tuple[bool, ...] = ()
    # The catalog's own recorded figures (kv_bytes_per_token_bf16, ...), for cross-checks.
    recorded: Mapping[str, Any] = field(default_factory=dict)
    aliases: tuple[str, ...] = ()
    # Mixture of experts: routed experts and how many each token uses (0 = dense).
    num_experts: int = 0
    experts_per_token: int = 0
    # The dtype the published checkpoint ships its weights in, and where that is stated.
    weight_dtype: str = "bf16"
    weight_dtype_source: str = ""
    max_context: int | None = None  # max_position_embeddings
    # Per layer, its attention kind (full, sliding, chunked) and state kind (Gated DeltaNet,
    # Mamba2, Mamba1), read from the config (advisor.cost.layout); see ``layout``.
    attention_layout: AttentionLayout | None = None

    @property
    def layout(self) -> AttentionLayout:
        """The layer layout; a spec built without one is full attention (sliding where
        ``sliding_layers`` says)."""
        if self.attention_layout is not None:
            return self.attention_layout
        return full_attention_layout(self.num_layers, sliding=self.sliding_layers, window=self.sliding_window,
                                     mla=self.is_mla)

    @property
    def is_moe(self) -> bool:
        return self.num_experts > self.experts_per_token > 0

    @property
    def params_experts(self) -> int:
        """Parameters in the routed experts (all of them resident, ``experts_per_token`` used).

        total − active = (E − k) experts' worth of routed weights, so all E of them are
        (total − active)·E/(E − k); shared experts, attention and embeddings are the rest.
        """
        if not self.is_moe:
            return 0
        return (self.params_total - self.params_active) * self.num_experts // (self.num_experts - self.experts_per_token)

    @property
    def is_mla(self) -> bool:
        return self.kv_lora_rank is not None

    @property
    def attention(self) -> str:
        if self.is_mla:
            return "mla"
        if self.num_kv_heads == self.num_heads:
            return "mha"
        if self.num_kv_heads == 1:
            return "mqa"
        return "gqa"

    @property
    def num_sliding_layers(self) -> int:
        return sum(self.sliding_layers)

    @property
    def num_full_layers(self) -> int:
        return self.num_layers - self.num_sliding_layers

    @property
    def params_nonembedding_active(self) -> int:
        """N of the prefill FLOP formula: active parameters minus input embedding and LM head.

        The LM head runs on the last position only, so it is excluded like the embedding
        lookup (REFERENCE §5). A tied head shares the embedding matrix, counted once.
        """
        embed = self.vocab_size * self.hidden_size
        head = 0 if self.tied_embeddings else embed
        return max(0, self.params_active - embed - head)


@dataclass(frozen=True)
class GpuSpec:
    id: str
    memory_bytes: int
    memory_basis: str  # where memory_bytes comes from (nvidia-smi total or datasheet GB)
    tflops_bf16_dense: float
    tflops_fp8_dense: float | None
    bandwidth_gb_s: float
    source: str
    aliases: tuple[str, ...] = ()
    # The GPU's link to host memory, one direction (a host-tier load is host-to-device only):
    # GB/s, the link's name, and where the figure comes from. None: not in the catalog.
    host_link_gb_s: float | None = None
    host_link: str = ""
    host_link_source: str = ""


@dataclass(frozen=True)
class Catalog:
    models: tuple[ModelSpec, ...]
    gpus: tuple[GpuSpec, ...]
    runtimes: Mapping[str, Any]


# ---------------------------------------------------------------------------------------------
# Reading model configs (catalog entries and HuggingFace config.json use the same field names)
# ---------------------------------------------------------------------------------------------


# Bounds of the figures a config may give. No model comes near them; they keep absurd values
# from turning into absurd work: the layer count sizes a tuple (which layers slide), the rest
# only multiply, and stay well inside float range when they do.
MAX_LAYERS = 100_000
MAX_FIGURE = 1 << 50


@dataclass(frozen=True)
class FieldType:
    """What a config field must hold when present and not null: a JSON type and, for an
    integer, a range. A JSON ``true`` is not an integer, nor is ``32.5`` or ``32.0``."""

    expected: str
    types: tuple[type, ...]
    low: int | None = None
    high: int | None = None

    def admits(self, value: Any) -> bool:
        if isinstance(value, bool) and bool not in self.types:
            return False
        if not isinstance(value, self.types):
            return False
        if not isinstance(value, int):
            return True
        return (self.low is None or value >= self.low) and (self.high is None or value <= self.high)


_POSITIVE = FieldType("a positive integer", (int,), 1, MAX_FIGURE)
_COUNT = FieldType("an integer of at least 0", (int,), 0, MAX_FIGURE)
_LAYERS = FieldType(f"a positive integer up to {MAX_LAYERS:,}", (int,), 1, MAX_LAYERS)
_SOME_LAYERS = FieldType(f"an integer from 0 to {MAX_LAYERS:,}", (int,), 0, MAX_LAYERS)
_FLAG = FieldType("true or false", (bool,))
_TEXT = FieldType("a string", (str,))
_OBJECT = FieldType("an object", (dict,))
_LIST = FieldType("a list", (list,))

# Every config field this module reads, with the type it must have. One table, checked in one
# place (``check_fields``) before any figure is used, for HF configs and catalog entries alike.
CONFIG_FIELDS: dict[str, FieldType] = {
    **dict.fromkeys(("num_hidden_layers", "n_layer", "num_layers"), _LAYERS),
    **dict.fromkeys(("num_attention_heads", "n_head", "num_key_value_heads", "num_kv_heads", "n_head_kv",
                     "multi_query_group_num", "hidden_size", "n_embd", "d_model", "head_dim", "vocab_size",
                     "intermediate_size", "ffn_hidden_size", "moe_intermediate_size", "kv_lora_rank", "q_lora_rank",
                     "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim", "sliding_window",
                     "sliding_window_pattern", "max_position_embeddings", "params_total", "params_active"),
                    _POSITIVE),
    **dict.fromkeys(("n_routed_experts", "num_local_experts", "num_experts", "num_experts_per_tok",
                     "n_shared_experts"), _COUNT),
    "first_k_dense_replace": _SOME_LAYERS,
    **dict.fromkeys(("tie_word_embeddings", "attention_bias", "qkv_bias", "use_sliding_window", "multi_query"),
                    _FLAG),
    **dict.fromkeys(("model_type", "architecture", "weight_dtype", "weight_dtype_source", "_name_or_path"), _TEXT),
    **dict.fromkeys(("text_config", "quantization_config"), _OBJECT),
    "layer_types": _LIST,
    # The layer layout and the state of hybrid models (advisor.cost.layout): Gated DeltaNet
    # (Qwen3-Next, Qwen3.5), Mamba2 in Nemotron-H's and in Granite/Falcon-H1's spellings, Mamba1
    # (Jamba), Llama 4's chunked attention, DeepSeek V3.2's indexer, and the MLP sizes the
    # parameter count of those families reads.
    **dict.fromkeys(("attention_head_dim", "linear_num_key_heads", "linear_num_value_heads", "linear_key_head_dim",
                     "linear_value_head_dim", "linear_conv_kernel_dim", "full_attention_interval", "mamba_num_heads",
                     "mamba_n_heads", "mamba_head_dim", "ssm_state_size", "mamba_d_state", "n_groups",
                     "mamba_n_groups", "conv_kernel", "mamba_d_conv", "mamba_chunk_size", "chunk_size", "mamba_d_ssm",
                     "mamba_expand", "attention_chunk_size", "no_rope_layer_interval", "attn_layer_period",
                     "index_head_dim", "index_n_heads", "index_topk", "intermediate_size_mlp",
                     "shared_intermediate_size", "shared_expert_intermediate_size",
                     "moe_shared_expert_intermediate_size", "decoder_sparse_step"), _POSITIVE),
    **dict.fromkeys(("attn_layer_offset", "interleave_moe_layer_step", "expert_layer_offset"), _COUNT),
    "expert_layer_period": _POSITIVE,
    # Jamba's dt rank: a positive integer or "auto" (ceil(hidden / 16)); `_mamba_dt_rank` checks the string.
    "mamba_dt_rank": FieldType('a positive integer or "auto"', (int, str), 1, MAX_FIGURE),
    **dict.fromkeys(("hybrid_override_pattern", "mamba_ssm_dtype", "mamba_ssm_cache_dtype"), _TEXT),
    **dict.fromkeys(("no_rope_layers", "layers_block_type", "mlp_only_layers"), _LIST),
    **dict.fromkeys(("attn_output_gate", "mamba_conv_bias", "mamba_proj_bias"), _FLAG),
}


def _shown(value: Any) -> str:
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 40 else text[:40] + "..."


def check_fields(cfg: Mapping[str, Any], where: str) -> None:
    """Refuse a config whose fields do not have the type ``CONFIG_FIELDS`` gives them (null
    stands for absent), with one line naming the field and what it must be."""
    for name, kind in CONFIG_FIELDS.items():
        value = cfg.get(name)
        if value is not None and not kind.admits(value):
            raise AdvisorError(f"{where}: config field has an unusable value ({name}: {_shown(value)}; "
                               f"expected {kind.expected})")


def _num_kv_heads(cfg: Mapping[str, Any], num_heads: int) -> int:
    value = _first(cfg, "num_key_value_heads", "num_kv_heads", "n_head_kv", "multi_query_group_num")
    if value is not None:
        return int(value)
    if cfg.get("multi_query"):  # Falcon-7B style: one shared KV head
        return 1
    return num_heads  # absent means plain multi-head attention (HF's own default)


def estimate_params(cfg: Mapping[str, Any], *, active: bool = False) -> int:
    """Parameter count from config fields (total, or active per token for MoE).

    Used for a ``config.json`` given by path, where no vendor count is at hand; the catalog
    carries the derived counts of REFERENCE §8 and the tests check this estimate against them.
    Counts embeddings, attention (with the biases and q/k norms the family uses), norms, the MLP
    or the routed + shared experts and their router, and an untied LM head; the hybrid families
    (Llama 4, Qwen3-Next/3.5, Nemotron-H, Granite 4.0-H, Jamba) have counts of their own below.
    """
    arch = str(_first(cfg, "model_type", "architecture") or "").lower()
    for prefix, counter in _FAMILY_COUNTS:
        if arch.startswith(prefix):
            return counter(cfg, active)
    L, d, H, kv, hd, vocab = _dims(cfg)
    inter = int(_first(cfg, "intermediate_size", "ffn_hidden_size") or 4 * d)
    attn = _attention_params(cfg, arch, d, H, kv, hd)
    norms = (4 if arch.startswith(("gemma2", "gemma3")) else 2) * d

    experts = _first(cfg, "n_routed_experts", "num_local_experts", "num_experts")
    dense_layers = L
    moe_block = 0
    if experts:
        experts = int(experts)
        top_k = int(cfg.get("num_experts_per_tok") or experts)
        moe_inter = int(cfg.get("moe_intermediate_size") or inter)
        used = top_k if active else experts
        if arch == "gpt_oss":  # fused gate_up and down projections with biases, router bias
            per_expert = 3 * d * moe_inter + 2 * moe_inter + d
            router = d * experts + experts
        else:
            per_expert = 3 * d * moe_inter
            router = d * experts + (experts if arch.startswith("deepseek") else 0)
        shared = int(cfg.get("n_shared_experts") or 0) * 3 * d * moe_inter
        moe_block = router + used * per_expert + shared
        dense_layers = int(cfg.get("first_k_dense_replace") or 0)
    mlp_dense = 3 * d * inter
    layers = L * (attn + norms) + dense_layers * mlp_dense + (L - dense_layers) * moe_block
    return _embeddings(cfg, d, vocab) + layers


def _dims(cfg: Mapping[str, Any]) -> tuple[int, int, int, int, int, int]:
    """(layers, hidden, heads, KV heads, head dim, vocab) of a config."""
    L = int(_first(cfg, "num_hidden_layers", "n_layer", "num_layers"))
    d = int(_first(cfg, "hidden_size", "n_embd", "d_model"))
    H = int(_first(cfg, "num_attention_heads", "n_head"))
    return L, d, H, _num_kv_heads(cfg, H), _head_dim(cfg, d, H), int(cfg["vocab_size"])


def _embeddings(cfg: Mapping[str, Any], d: int, vocab: int) -> int:
    """Input embedding, final norm and, unless tied, the LM head."""
    head = 0 if cfg.get("tie_word_embeddings") else vocab * d
    return vocab * d + d + head


def _attention_params(cfg: Mapping[str, Any], arch: str, d: int, H: int, kv: int, hd: int) -> int:
    """One attention layer: MLA (DeepSeek-V2/V3; V3.2 adds its indexer) or q, k, v, o with the
    biases, q/k norms and sinks each family has."""
    if cfg.get("kv_lora_rank") is not None:  # MLA projections (DeepSeek-V2/V3)
        rope = int(cfg["qk_rope_head_dim"])
        nope = int(cfg["qk_nope_head_dim"])
        vdim = int(cfg["v_head_dim"])
        kvr = int(cfg["kv_lora_rank"])
        qr = cfg.get("q_lora_rank")
        q = (d * qr + qr + qr * H * (nope + rope)) if qr else d * H * (nope + rope)
        return q + d * (kvr + rope) + kvr + kvr * H * (nope + vdim) + H * vdim * d + _indexer_params(cfg, d)
    attn = d * H * hd + 2 * d * kv * hd + H * hd * d
    if cfg.get("attention_bias") or arch == "gpt_oss":  # gpt-oss: biases on q, k, v, o
        attn += H * hd + 2 * kv * hd + d
    elif arch.startswith("qwen2") or cfg.get("qkv_bias"):
        attn += H * hd + 2 * kv * hd  # Qwen2: bias on q, k, v only
    if arch.startswith(("qwen3", "gemma3")):
        attn += 2 * hd  # per-head RMSNorm on q and k
    if arch == "gpt_oss":
        attn += H  # attention sinks, one scalar per head
    return attn


def _indexer_params(cfg: Mapping[str, Any], d: int) -> int:
    """DeepSeek V3.2's lightning indexer, per layer: wq_b (q_lora_rank → heads·head_dim), wk
    (hidden → head_dim), a LayerNorm with bias on the key and weights_proj (hidden → heads)
    (DeepSeek's inference model.py `Indexer`, as awesome-mini-project/DeepSeek-V3.2-Exp@8da6232:
    docs/inference/MODEL_INDEXER.md §3.1 reproduces it)."""
    if cfg.get("index_topk") is None:
        return 0
    heads = int(cfg.get("index_n_heads") or 64)
    dim = int(cfg.get("index_head_dim") or 128)
    q_in = int(cfg.get("q_lora_rank") or d)
    return q_in * heads * dim + d * dim + 2 * dim + d * heads


def _gated_mlp(d: int, inter: int) -> int:
    return 3 * d * inter


def _llama4_params(cfg: Mapping[str, Any], active: bool) -> int:
    """Llama 4: every layer attention (q/k norms without weights); a MoE layer every
    ``interleave_moe_layer_step`` layers (router, routed experts of ``intermediate_size`` and one
    shared expert), dense MLPs of ``intermediate_size_mlp`` between (vLLM llama4.py
    Llama4DecoderLayer: MoE where (i + 1) % step == 0)."""
    L, d, H, kv, hd, vocab = _dims(cfg)
    experts = int(cfg.get("num_local_experts") or 0)
    used = int(cfg.get("num_experts_per_tok") or 1) if active else experts
    inter = int(cfg.get("intermediate_size") or 4 * d)
    step = int(cfg.get("interleave_moe_layer_step", 1) or 0)
    moe_layers = L // step if step and experts else 0
    moe = d * experts + used * _gated_mlp(d, inter) + _gated_mlp(d, inter)
    dense = _gated_mlp(d, int(cfg.get("intermediate_size_mlp") or inter))
    attn = d * H * hd + 2 * d * kv * hd + H * hd * d
    layers = L * (attn + 2 * d) + moe_layers * moe + (L - moe_layers) * dense
    return _embeddings(cfg, d, vocab) + layers


def _qwen3_next_params(cfg: Mapping[str, Any], active: bool) -> int:
    """Qwen3-Next and Qwen3.5: gated full attention (q_proj also yields the output gate) with
    q/k norms, Gated DeltaNet layers (in_proj_qkvz, in_proj_ba, depthwise conv without bias,
    dt_bias, A_log, a gated norm per value head, out_proj), and a MoE with one gated shared
    expert (or a dense MLP). Layer kinds from advisor.cost.layout."""
    L, d, H, kv, hd, vocab = _dims(cfg)
    layout = read_layout(cfg, L, "config")
    gate = 2 if cfg.get("attn_output_gate", True) else 1
    attn = d * H * hd * gate + 2 * d * kv * hd + H * hd * d + 2 * hd
    kh, vh = int(cfg["linear_num_key_heads"]), int(cfg["linear_num_value_heads"])
    kd, vd = int(cfg["linear_key_head_dim"]), int(cfg["linear_value_head_dim"])
    key, value = kh * kd, vh * vd
    conv = (2 * key + value) * int(cfg["linear_conv_kernel_dim"])
    gdn = d * (2 * key + 2 * value) + d * 2 * vh + conv + 2 * vh + vd + value * d
    ffn = sum(_qwen3_next_ffn(cfg, i, d, active) for i in range(L))
    return _embeddings(cfg, d, vocab) + layout.full_layers * attn + layout.state_layers * gdn + L * 2 * d + ffn


def _qwen3_next_ffn(cfg: Mapping[str, Any], layer: int, d: int, active: bool) -> int:
    experts = int(cfg.get("num_experts") or 0)
    step = int(cfg.get("decoder_sparse_step") or 1)
    if not experts or layer in (cfg.get("mlp_only_layers") or []) or (layer + 1) % step:
        return _gated_mlp(d, int(cfg.get("intermediate_size") or 4 * d))
    used = int(cfg.get("num_experts_per_tok") or experts) if active else experts
    shared = int(cfg.get("shared_expert_intermediate_size") or 0)
    shared_params = _gated_mlp(d, shared) + d if shared else 0  # the shared expert and its gate
    return d * experts + used * _gated_mlp(d, int(cfg.get("moe_intermediate_size") or 4 * d)) + shared_params


def _nemotron_h_params(cfg: Mapping[str, Any], active: bool) -> int:
    """Nemotron-H: one block per layer, each a norm and one mixer: Mamba2 (in_proj to z, x, B, C
    and dt; depthwise conv with bias; dt_bias, A_log, D; gated norm; out_proj), attention
    (q, k, v, o), or a squared-ReLU MLP (up and down); MoE blocks are counted as routed experts of
    two matrices each (transformers modeling_nemotron_h)."""
    L, d, H, kv, hd, vocab = _dims(cfg)
    layout = read_layout(cfg, L, "config")
    mamba = _mamba2_params(layout, d, conv_bias=bool(cfg.get("use_conv_bias", True)))
    attn = d * H * hd + 2 * d * kv * hd + H * hd * d
    mlp = 2 * d * int(cfg.get("intermediate_size") or 4 * d)
    pattern = [str(c) for c in (cfg.get("hybrid_override_pattern") or cfg.get("layers_block_type") or [])]
    mlps = sum(1 for c in pattern if c in ("-", "mlp"))
    moes = sum(1 for c in pattern if c in ("E", "moe"))
    experts = int(cfg.get("n_routed_experts") or 0)
    used = int(cfg.get("num_experts_per_tok") or experts) if active else experts
    moe_inter = int(cfg.get("moe_intermediate_size") or 0)
    shared = int(cfg.get("moe_shared_expert_intermediate_size") or 0)
    moe = d * experts + used * 2 * d * moe_inter + 2 * d * shared
    layers = layout.state_layers * mamba + layout.full_layers * attn + mlps * mlp + moes * moe + L * d
    return _embeddings(cfg, d, vocab) + layers


def _mamba2_params(layout: AttentionLayout, d: int, *, conv_bias: bool, proj_bias: bool = False) -> int:
    """One Mamba2 mixer (transformers Mamba2Mixer and its NemotronH / GraniteMoeHybrid copies):
    in_proj hidden → z, x, B, C and dt (inner + conv_dim + heads), a depthwise conv over x, B, C
    (conv_dim · kernel, plus conv_dim of bias), dt_bias, A_log and D (one per head), the gated
    RMSNorm over inner, out_proj inner → hidden; ``proj_bias`` adds both projections' biases.
    0 without a Mamba2 state."""
    shape = layout.state_shape
    if shape is None or shape.kind != "mamba2":
        return 0
    inner = shape.heads * shape.head_dim
    conv_dim = inner + 2 * shape.groups * shape.state_size
    in_proj = inner + conv_dim + shape.heads
    params = d * in_proj + conv_dim * shape.conv_kernel + 3 * shape.heads + inner + inner * d
    params += conv_dim if conv_bias else 0
    params += in_proj + d if proj_bias else 0
    return params


def _granite_moe_hybrid_params(cfg: Mapping[str, Any], active: bool) -> int:
    """Granite 4.0-H (transformers modeling_granitemoehybrid, GraniteMoeHybridDecoderLayer):
    every layer has two RMSNorms, one mixer (a Mamba2 layer, or attention q, k, v, o with biases
    only under ``attention_bias``) and the same feed-forward: a MoE of ``num_local_experts``
    experts (router hidden → experts without bias; each expert a fused gate/up of 2 ·
    ``intermediate_size`` and a down projection, 3 · hidden · intermediate_size) plus an
    always-on shared SwiGLU MLP of ``shared_intermediate_size`` (3 · hidden · shared). A dense
    Granite (num_local_experts 0) is the shared MLP alone. Mamba2 conv bias and projection biases
    follow mamba_conv_bias (default True) and mamba_proj_bias (default False), GraniteMoeHybridConfig's
    defaults. Layer kinds from advisor.cost.layout (``layer_types``)."""
    L, d, H, kv, hd, vocab = _dims(cfg)
    layout = read_layout(cfg, L, "config")
    mamba = _mamba2_params(layout, d, conv_bias=cfg.get("mamba_conv_bias") is not False,
                           proj_bias=bool(cfg.get("mamba_proj_bias")))
    attn = _attention_params(cfg, "granitemoehybrid", d, H, kv, hd)
    experts = int(cfg.get("num_local_experts") or 0)
    used = int(cfg.get("num_experts_per_tok") or experts) if active else experts
    inter = int(cfg.get("intermediate_size") or 4 * d)
    shared = int(cfg.get("shared_intermediate_size") or 0)
    ffn = (d * experts + used * _gated_mlp(d, inter) if experts else 0) + _gated_mlp(d, shared)
    layers = layout.state_layers * mamba + layout.full_layers * attn + L * (ffn + 2 * d)
    return _embeddings(cfg, d, vocab) + layers


def _mamba_dt_rank(cfg: Mapping[str, Any], d: int) -> int:
    """Jamba's ``mamba_dt_rank``: an integer, or "auto" (JambaConfig's default) = ceil(hidden / 16)."""
    value = cfg.get("mamba_dt_rank", "auto")
    if value is None or value == "auto":
        return -(-d // 16)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f'mamba_dt_rank: {value!r}; expected a positive integer or "auto"')
    return value


def _jamba_params(cfg: Mapping[str, Any], active: bool) -> int:
    """Jamba (transformers modeling_jamba): every layer has two RMSNorms, one mixer and one
    feed-forward. The mixer is attention (q, k, v, o, no bias) where ``i % attn_layer_period ==
    attn_layer_offset`` and a Mamba1 mixer elsewhere (layer kinds from advisor.cost.layout); the
    feed-forward is a MoE where ``i % expert_layer_period == expert_layer_offset`` (router hidden →
    experts without bias, ``num_experts`` SwiGLU experts of ``intermediate_size``) and one such
    SwiGLU MLP elsewhere. The Mamba1 mixer (JambaMambaMixer), with inner = mamba_expand · hidden
    and dt rank R: in_proj hidden → 2 · inner, a depthwise conv over inner (inner · d_conv, plus
    inner of bias), x_proj inner → R + 2 · d_state, dt_proj R → inner with bias, A_log inner ·
    d_state, D inner, out_proj inner → hidden, and the RMSNorms of dt, B and C (R + 2 · d_state).
    Period, offset, dt rank and biases default to JambaConfig's (2, 1, "auto", conv bias on,
    projection biases off)."""
    L, d, H, kv, hd, vocab = _dims(cfg)
    layout = read_layout(cfg, L, "config")
    shape = layout.state_shape
    mamba = 0
    if shape is not None and shape.kind == "mamba1":
        inner, state, rank = shape.heads, shape.state_size, _mamba_dt_rank(cfg, d)
        proj_bias = bool(cfg.get("mamba_proj_bias"))
        mamba = (d * 2 * inner + inner * shape.conv_kernel + inner * (rank + 2 * state) + rank * inner + inner
                 + inner * state + inner + inner * d + rank + 2 * state)
        mamba += inner if cfg.get("mamba_conv_bias") is not False else 0
        mamba += 2 * inner + d if proj_bias else 0
    attn = _attention_params(cfg, "jamba", d, H, kv, hd)
    mlp = _gated_mlp(d, int(cfg.get("intermediate_size") or 4 * d))
    experts = int(cfg.get("num_experts") or 0)
    used = int(cfg.get("num_experts_per_tok") or experts) if active else experts
    period = int(cfg.get("expert_layer_period") or 2)
    offset = 1 if cfg.get("expert_layer_offset") is None else int(cfg["expert_layer_offset"])
    moe_layers = sum(1 for i in range(L) if i % period == offset) if experts > 1 else 0
    moe = d * experts + used * mlp
    layers = (layout.state_layers * mamba + layout.full_layers * attn + moe_layers * moe + (L - moe_layers) * mlp
              + L * 2 * d)
    return _embeddings(cfg, d, vocab) + layers


_FAMILY_COUNTS = (("llama4", _llama4_params), ("qwen3_next", _qwen3_next_params), ("qwen3_5", _qwen3_next_params),
                  ("nemotron_h", _nemotron_h_params), ("granitemoehybrid", _granite_moe_hybrid_params),
                  ("jamba", _jamba_params))


def model_from_config(
    cfg: Mapping[str, Any], *, model_id: str, source: str, from_catalog: bool = False
) -> ModelSpec:
    """Build a ``ModelSpec`` from HF-style config fields; ``AdvisorError`` names missing fields
    and fields of the wrong type."""
    # A user's config.json is named by its path; a catalog entry by its id.
    where = model_id if from_catalog else source
    check_fields(cfg, where)
    # Multimodal configs (Gemma 3, Llama 4, ...) keep the language model under text_config.
    if cfg.get("text_config") is not None and _first(cfg, "num_hidden_layers", "n_layer", "num_layers") is None:
        merged = dict(cfg["text_config"])
        merged.setdefault("model_type", cfg.get("model_type"))
        cfg = merged
        check_fields(cfg, f"{where} (text_config)")
    needed = {
        "num_hidden_layers": ("num_hidden_layers", "n_layer", "num_layers"),
        "num_attention_heads": ("num_attention_heads", "n_head"),
        "hidden_size": ("hidden_size", "n_embd", "d_model"),
        "vocab_size": ("vocab_size",),
    }
    missing = [name for name, spellings in needed.items() if _first(cfg, *spellings) is None]
    if cfg.get("kv_lora_rank") is not None:
        missing += [f for f in ("qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim") if cfg.get(f) is None]
    if missing:
        raise AdvisorError(f"{where}: config lacks {', '.join(missing)} (needed for the KV size)")
    try:
        L = int(_first(cfg, *needed["num_hidden_layers"]))
        H = int(_first(cfg, *needed["num_attention_heads"]))
        d = int(_first(cfg, *needed["hidden_size"]))
        kv = _num_kv_heads(cfg, H)
        hd = _head_dim(cfg, d, H)
        # The layout first: a hybrid's missing or wrong fields are named before the counts use them.
        layout = read_layout(cfg, L, where)
        if from_catalog and cfg.get("params_total"):
            total = int(cfg["params_total"])
            # params_active where the catalog derives it; gpt-oss only has a rounded "reported"
            # figure on another basis (it leaves out the embedding), so derive it like the
            # catalog does (the tests check estimate_params reproduces every params_total).
            active = int(cfg.get("params_active") or estimate_params(cfg, active=True))
            params_source = "catalog"
        else:
            total = estimate_params(cfg)
            active = estimate_params(cfg, active=True)
            params_source = "estimated from config"
    except (TypeError, ValueError, KeyError, ZeroDivisionError, OverflowError) as exc:
        raise AdvisorError(f"{where}: config field has an unusable value ({exc})") from None
    if min(L, H, kv, hd, d) <= 0:
        raise AdvisorError(f"{where}: config has a non-positive layer, head or size figure")
    mla = cfg.get("kv_lora_rank") is not None
    try:
        return _model_spec(cfg, model_id, source, L, H, kv, hd, d, total, active, params_source, mla, layout)
    except (TypeError, ValueError, KeyError, OverflowError) as exc:
        raise AdvisorError(f"{where}: config field has an unusable value ({exc})") from None


def _head_dim(cfg: Mapping[str, Any], d: int, H: int) -> int:
    """The explicit head_dim (Nemotron-H spells it attention_head_dim), else hidden / heads."""
    return int(cfg.get("head_dim") or cfg.get("attention_head_dim") or d // H)


def _model_spec(cfg: Mapping[str, Any], model_id: str, source: str, L: int, H: int, kv: int, hd: int, d: int,
                total: int, active: int, params_source: str, mla: bool, layout: AttentionLayout) -> ModelSpec:
    sliding = layout.sliding_flags
    window = layout.sliding_window if sliding else None
    return ModelSpec(
        id=model_id,
        architecture=str(_first(cfg, "architecture", "model_type") or "unknown"),
        num_layers=L,
        num_heads=H,
        num_kv_heads=kv,
        head_dim=hd,
        hidden_size=d,
        vocab_size=int(cfg["vocab_size"]),
        tied_embeddings=bool(cfg.get("tie_word_embeddings", False)),
        params_total=total,
        params_active=active,
        params_source=params_source,
        source=source,
        kv_lora_rank=int(cfg["kv_lora_rank"]) if mla else None,
        qk_rope_head_dim=int(cfg["qk_rope_head_dim"]) if mla else None,
        qk_nope_head_dim=int(cfg["qk_nope_head_dim"]) if mla else None,
        v_head_dim=int(cfg["v_head_dim"]) if mla else None,
        sliding_window=window,
        sliding_layers=sliding,
        recorded={k: v for k, v in cfg.items() if str(k).startswith("kv_")},
        num_experts=int(_first(cfg, "n_routed_experts", "num_local_experts", "num_experts") or 0),
        experts_per_token=int(cfg.get("num_experts_per_tok") or 0),
        weight_dtype=_shipped_weight_dtype(cfg),
        max_context=int(cfg["max_position_embeddings"]) if cfg.get("max_position_embeddings") else None,
        weight_dtype_source=str(cfg.get("weight_dtype_source") or ("quantization_config" if cfg.get("quantization_config") else "")),
        attention_layout=layout,
    )


def _shipped_weight_dtype(cfg: Mapping[str, Any]) -> str:
    """The catalog's ``weight_dtype``, or what a config.json's ``quantization_config`` says."""
    if cfg.get("weight_dtype"):
        return str(cfg["weight_dtype"]).lower()
    quant = cfg.get("quantization_config")
    if isinstance(quant, Mapping):
        method = str(quant.get("quant_method") or "").lower()
        if method in ("mxfp4", "fp8"):
            return method
    return "bf16"


def _gpu_from_entry(entry: Mapping[str, Any]) -> GpuSpec:
    # The nvidia-smi total is what an engine sees (REFERENCE §6: 81,559 MiB on H100 SXM). Where the
    # catalog has none, the datasheet figure is decimal GB (REFERENCE "Units"), a lower bound of
    # the visible memory on the GPUs checked, so the pool estimate errs small.
    if entry.get("nvidia_smi_total_mib"):
        memory = int(entry["nvidia_smi_total_mib"]) * MIB
        basis = f"nvidia-smi total {int(entry['nvidia_smi_total_mib']):,} MiB"
    else:
        memory = int(float(entry["memory_gb"]) * 10**9)
        basis = f"datasheet {entry['memory_gb']} GB (decimal)"
    fp8 = entry.get("tflops_fp8_dense")
    return GpuSpec(
        id=str(entry["id"]),
        memory_bytes=memory,
        memory_basis=basis,
        tflops_bf16_dense=float(entry["tflops_bf16_dense"]),
        tflops_fp8_dense=float(fp8) if fp8 is not None else None,
        bandwidth_gb_s=float(entry["bandwidth_gb_s"]),
        source=str(entry.get("source", "")),
        host_link_gb_s=float(entry["host_link_gb_s"]) if entry.get("host_link_gb_s") else None,
        host_link=str(entry.get("host_link", "")),
        host_link_source=str(entry.get("host_link_source", "")),
    )


@lru_cache(maxsize=1)
def load_catalog() -> Catalog:
    """Read ``advisor/data/models.yaml`` (package data, so it works from an installed wheel)."""
    text = resources.files("advisor").joinpath("data/models.yaml").read_text(encoding="utf-8")
    data = safe_load(text)
    aliases = data.get("aliases") or {}

    def names_for(target: str, table: Mapping[str, str]) -> tuple[str, ...]:
        return tuple(sorted(a for a, t in table.items() if t == target))

    models = []
    for entry in data["models"]:
        spec = model_from_config(entry, model_id=entry["id"], source=entry["source"], from_catalog=True)
        models.append(replace(spec, aliases=names_for(entry["id"], aliases.get("models") or {})))
    gpus = []
    for entry in data["gpus"]:
        gpus.append(replace(_gpu_from_entry(entry), aliases=names_for(entry["id"], aliases.get("gpus") or {})))
    return Catalog(models=tuple(models), gpus=tuple(gpus), runtimes=data.get("runtimes") or {})


# ---------------------------------------------------------------------------------------------
# Resolving --model and --gpu
# ---------------------------------------------------------------------------------------------


def _looks_like_path(name: str) -> bool:
    try:
        return name.endswith(".json") or Path(name).is_dir() or Path(name).is_file()
    except OSError:  # a name too long for a path (ENAMETOOLONG) names no file
        return False


def load_config_json(path: str | Path) -> ModelSpec:
    """A HuggingFace ``config.json`` (or a folder holding one) as a ``ModelSpec``."""
    p = Path(path)
    if p.is_dir():
        # Found in a folder, not named: a model folder's file, kept inside its model root.
        p = safe_open.model_file(p, "config.json")
    if not os.path.lexists(p):
        raise AdvisorError(f"{path}: no such config.json")
    raw = safe_open.read_bytes(p, max_bytes=safe_open.MAX_CONFIG_BYTES, what="config.json")
    try:
        cfg = json.loads(raw.decode("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise AdvisorError(f"{p}: not a readable JSON config ({exc})") from None
    except RecursionError:
        raise AdvisorError(f"{p}: not a readable JSON config (nested too deeply)") from None
    if not isinstance(cfg, dict):
        raise AdvisorError(f"{p}: a config.json must hold a JSON object")
    name = str(cfg.get("_name_or_path") or p.parent.name or p.stem)
    return model_from_config(cfg, model_id=name, source=str(p))


def resolve_model(name: str, catalog: Catalog | None = None) -> ModelSpec:
    """A catalog model by id, id without org, or alias (case-insensitive), or a config.json path."""
    catalog = catalog or load_catalog()
    key = name.strip().lower()
    for spec in catalog.models:
        names = {spec.id.lower(), spec.id.split("/")[-1].lower(), *spec.aliases}
        if key in names:
            return spec
    if _looks_like_path(name):
        return load_config_json(name)
    known = ", ".join(sorted(a for m in catalog.models for a in m.aliases[:1] or (m.id,)))
    raise AdvisorError(f"unknown model {name!r}; known: {known} (or a path to a config.json)")


def resolve_gpu(name: str, catalog: Catalog | None = None) -> GpuSpec:
    """A catalog GPU by id or short name (case-insensitive)."""
    catalog = catalog or load_catalog()
    key = name.strip().lower()
    for gpu in catalog.gpus:
        if key == gpu.id.lower() or key in gpu.aliases:
            return gpu
    known = ", ".join(sorted({a for g in catalog.gpus for a in g.aliases}))
    raise AdvisorError(f"unknown GPU {name!r}; known: {known}")
