"""HBM and prefill cost of a shared prompt prefix: the model/GPU catalog and the arithmetic.

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
import math
import os
from dataclasses import dataclass, field, replace
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Mapping

from advisor.errors import AdvisorError
from advisor.ingest import safe_open
from advisor.ingest.safe_yaml import safe_load

GIB = 1 << 30
MIB = 1 << 20

# Bytes per KV element. BF16/FP16 store 2 bytes; FP8 (vLLM fp8/fp8_e4m3/fp8_e5m2, SGLang
# fp8_e4m3/fp8_e5m2) stores 1 and halves the cache (REFERENCE §4.1).
KV_DTYPE_BYTES: dict[str, int] = {"bf16": 2, "fp16": 2, "fp8": 1}
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


@dataclass(frozen=True)
class Catalog:
    models: tuple[ModelSpec, ...]
    gpus: tuple[GpuSpec, ...]
    runtimes: Mapping[str, Any]


# ---------------------------------------------------------------------------------------------
# Reading model configs (catalog entries and HuggingFace config.json use the same field names)
# ---------------------------------------------------------------------------------------------


def _first(cfg: Mapping[str, Any], *names: str) -> Any:
    """The first present, non-null field among ``names`` (configs spell some fields differently)."""
    for name in names:
        value = cfg.get(name)
        if value is not None:
            return value
    return None


def _num_kv_heads(cfg: Mapping[str, Any], num_heads: int) -> int:
    value = _first(cfg, "num_key_value_heads", "num_kv_heads", "n_head_kv", "multi_query_group_num")
    if value is not None:
        return int(value)
    if cfg.get("multi_query"):  # Falcon-7B style: one shared KV head
        return 1
    return num_heads  # absent means plain multi-head attention (HF's own default)


def _sliding_layers(cfg: Mapping[str, Any], num_layers: int) -> tuple[int | None, tuple[bool, ...]]:
    """Window size and which layers slide, following each family's rule.

    - ``layer_types`` (gpt-oss, newer transformers configs) names each layer;
    - Qwen2-style configs carry a ``sliding_window`` they do not use (``use_sliding_window: false``);
    - Gemma 2 slides on even-indexed layers (transformers modeling_gemma2, REFERENCE §4.1), and so
      does gpt-oss (layer_types starts with ``sliding_attention``) when only the catalog's
      architecture is known;
    - ``sliding_window_pattern`` (Gemma 3): every pattern-th layer is global;
    - otherwise a set ``sliding_window`` applies to every layer (Mistral-7B-v0.1).
    """
    window = cfg.get("sliding_window")
    if window is None or cfg.get("use_sliding_window") is False:
        return None, ()
    window = int(window)
    layer_types = cfg.get("layer_types")
    if isinstance(layer_types, list) and len(layer_types) == num_layers:
        flags = tuple(str(t) == "sliding_attention" for t in layer_types)
        return (window, flags) if any(flags) else (None, ())
    arch = str(_first(cfg, "model_type", "architecture") or "").lower()
    if arch in ("gemma2", "gpt_oss"):
        return window, tuple(i % 2 == 0 for i in range(num_layers))
    pattern = cfg.get("sliding_window_pattern")
    if isinstance(pattern, int) and pattern > 1:
        return window, tuple((i + 1) % pattern != 0 for i in range(num_layers))
    return window, tuple(True for _ in range(num_layers))


def estimate_params(cfg: Mapping[str, Any], *, active: bool = False) -> int:
    """Parameter count from config fields (total, or active per token for MoE).

    Used for a ``config.json`` given by path, where no vendor count is at hand; the catalog
    carries the derived counts of REFERENCE §8 and the tests check this estimate against them.
    Counts embeddings, attention (with the biases and q/k norms the family uses), norms, the MLP
    or the routed + shared experts and their router, and an untied LM head.
    """
    arch = str(_first(cfg, "model_type", "architecture") or "").lower()
    L = int(_first(cfg, "num_hidden_layers", "n_layer", "num_layers"))
    d = int(_first(cfg, "hidden_size", "n_embd", "d_model"))
    H = int(_first(cfg, "num_attention_heads", "n_head"))
    kv = _num_kv_heads(cfg, H)
    hd = int(cfg.get("head_dim") or d // H)
    vocab = int(cfg["vocab_size"])
    inter = int(_first(cfg, "intermediate_size", "ffn_hidden_size") or 4 * d)

    if cfg.get("kv_lora_rank") is not None:  # MLA projections (DeepSeek-V2/V3)
        rope = int(cfg["qk_rope_head_dim"])
        nope = int(cfg["qk_nope_head_dim"])
        vdim = int(cfg["v_head_dim"])
        kvr = int(cfg["kv_lora_rank"])
        qr = cfg.get("q_lora_rank")
        q = (d * qr + qr + qr * H * (nope + rope)) if qr else d * H * (nope + rope)
        attn = q + d * (kvr + rope) + kvr + kvr * H * (nope + vdim) + H * vdim * d
    else:
        attn = d * H * hd + 2 * d * kv * hd + H * hd * d
        if cfg.get("attention_bias") or arch == "gpt_oss":  # gpt-oss: biases on q, k, v, o
            attn += H * hd + 2 * kv * hd + d
        elif arch.startswith("qwen2") or cfg.get("qkv_bias"):
            attn += H * hd + 2 * kv * hd  # Qwen2: bias on q, k, v only
        if arch.startswith("qwen3"):
            attn += 2 * hd  # per-head RMSNorm on q and k
        if arch == "gpt_oss":
            attn += H  # attention sinks, one scalar per head
    norms = (4 if arch.startswith("gemma2") else 2) * d

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
    embed = vocab * d
    head = 0 if cfg.get("tie_word_embeddings") else vocab * d
    return embed + layers + d + head


def model_from_config(
    cfg: Mapping[str, Any], *, model_id: str, source: str, from_catalog: bool = False
) -> ModelSpec:
    """Build a ``ModelSpec`` from HF-style config fields; ``AdvisorError`` names missing fields."""
    # Multimodal configs (Gemma 3, Llama 4, ...) keep the language model under text_config.
    if "text_config" in cfg and _first(cfg, "num_hidden_layers", "n_layer", "num_layers") is None:
        merged = dict(cfg["text_config"])
        merged.setdefault("model_type", cfg.get("model_type"))
        cfg = merged
    needed = {
        "num_hidden_layers": ("num_hidden_layers", "n_layer", "num_layers"),
        "num_attention_heads": ("num_attention_heads", "n_head"),
        "hidden_size": ("hidden_size", "n_embd", "d_model"),
        "vocab_size": ("vocab_size",),
    }
    missing = [name for name, spellings in needed.items() if _first(cfg, *spellings) is None]
    if cfg.get("kv_lora_rank") is not None:
        missing += [f for f in ("qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim") if cfg.get(f) is None]
    # A user's config.json is named by its path; a catalog entry by its id.
    where = model_id if from_catalog else source
    if missing:
        raise AdvisorError(f"{where}: config lacks {', '.join(missing)} (needed for the KV size)")
    try:
        L = int(_first(cfg, *needed["num_hidden_layers"]))
        H = int(_first(cfg, *needed["num_attention_heads"]))
        d = int(_first(cfg, *needed["hidden_size"]))
        kv = _num_kv_heads(cfg, H)
        hd = int(cfg.get("head_dim") or d // H)
        window, sliding = _sliding_layers(cfg, L)
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
        return _model_spec(cfg, model_id, source, L, H, kv, hd, d, total, active, params_source,
                           mla, window, sliding)
    except (TypeError, ValueError, KeyError, OverflowError) as exc:
        raise AdvisorError(f"{where}: config field has an unusable value ({exc})") from None


def _model_spec(cfg: Mapping[str, Any], model_id: str, source: str, L: int, H: int, kv: int, hd: int, d: int,
                total: int, active: int, params_source: str, mla: bool, window: Any, sliding: Any) -> ModelSpec:
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
    )


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
    return name.endswith(".json") or Path(name).is_dir() or Path(name).is_file()


def load_config_json(path: str | Path) -> ModelSpec:
    """A HuggingFace ``config.json`` (or a folder holding one) as a ``ModelSpec``."""
    p = Path(path)
    if p.is_dir():
        p = p / "config.json"
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


# ---------------------------------------------------------------------------------------------
# KV bytes (REFERENCE §4.1)
# ---------------------------------------------------------------------------------------------


def _kv_bytes(kv_dtype: str) -> int:
    try:
        return KV_DTYPE_BYTES[kv_dtype.lower()]
    except KeyError:
        raise AdvisorError(f"unknown KV dtype {kv_dtype!r}; known: {', '.join(KV_DTYPE_BYTES)}") from None


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
    layers = model.num_full_layers if full_layers_only else model.num_layers
    return layers * kv_bytes_per_layer_token(model, kv_dtype, tp)


def sequence_kv_bytes(
    model: ModelSpec, tokens: int, kv_dtype: str = "bf16", tp: int = 1, *, swa_aware: bool = False
) -> int:
    """KV bytes of ``tokens`` tokens of one sequence on one GPU.

    Without an SWA-aware pool every layer holds every token. With one, sliding layers keep at
    most ``sliding_window`` tokens: Σ_full per-layer·T + Σ_swa per-layer·min(T, window).
    """
    per_layer = kv_bytes_per_layer_token(model, kv_dtype, tp)
    if not swa_aware or not model.sliding_window:
        return model.num_layers * per_layer * tokens
    capped = min(tokens, model.sliding_window)
    return per_layer * (model.num_full_layers * tokens + model.num_sliding_layers * capped)


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


def weight_bytes(model: ModelSpec, weight_dtype: str = "bf16") -> int:
    """All weights (total, not active: every expert stays resident)."""
    try:
        b = WEIGHT_DTYPE_BYTES[weight_dtype.lower()]
    except KeyError:
        raise AdvisorError(
            f"unknown weight dtype {weight_dtype!r}; known: {', '.join(WEIGHT_DTYPE_BYTES)}"
        ) from None
    return model.params_total * b


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


# ---------------------------------------------------------------------------------------------
# Prefill compute (REFERENCE §5)
# ---------------------------------------------------------------------------------------------


def _attention_pairs(tokens: int, window: int | None) -> float:
    """Query-key pairs of a causal prefill: T²/2, or ≈ W·T − W²/2 once a window W < T caps it."""
    if window is None or tokens <= window:
        return tokens * tokens / 2
    return window * tokens - window * window / 2


def prefill_flops(model: ModelSpec, tokens: int) -> float:
    """FLOPs to prefill ``tokens`` tokens from scratch (what a prefix hit saves).

    2·N·T for the weights (N = active non-embedding parameters) plus the causal attention,
    2·L·d_attn·T² for full layers: QKᵀ and AV each cost 2·pairs·heads·dim with pairs = T²/2.
    MLA uses its query/key width (nope + rope) for QKᵀ and v_head_dim for AV; sliding layers
    count only the pairs inside their window.
    """
    if tokens <= 0:
        return 0.0
    if model.is_mla:
        assert model.qk_nope_head_dim is not None and model.qk_rope_head_dim is not None
        assert model.v_head_dim is not None
        qk_dim = model.qk_nope_head_dim + model.qk_rope_head_dim
        v_dim = model.v_head_dim
    else:
        qk_dim = v_dim = model.head_dim
    per_pair = 2 * model.num_heads * (qk_dim + v_dim)
    attention = per_pair * (
        model.num_full_layers * _attention_pairs(tokens, None)
        + model.num_sliding_layers * _attention_pairs(tokens, model.sliding_window)
    )
    return 2 * model.params_nonembedding_active * tokens + attention


def prefill_seconds(flops: float, gpu: GpuSpec, tp: int = 1, mfu: float = DEFAULT_MFU) -> float:
    """Seconds to run ``flops`` on TP GPUs at BF16 dense peak × MFU (communication not modelled)."""
    if not 0 < mfu <= 1:
        raise AdvisorError(f"--mfu must be in (0, 1] (got {mfu})")
    return flops / (tp * gpu.tflops_bf16_dense * 1e12 * mfu)


# ---------------------------------------------------------------------------------------------
# The estimate `advisor cost` prints
# ---------------------------------------------------------------------------------------------

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
    weight_dtype: str = "bf16",
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

    per_gpu_token = kv_bytes_per_token(model, kv_dtype, tp)
    weights_gpu = math.ceil(weight_bytes(model, weight_dtype) / tp)
    pool_gpu = kv_pool_bytes_per_gpu(gpu, weights_gpu, engine, fraction, tp)
    if pool_gpu <= 0:
        raise AdvisorError(
            f"{model.id} weights ({weights_gpu / GIB:.1f} GiB per GPU in {weight_dtype}) leave no KV pool "
            f"on {gpu.id} at memory fraction {fraction}; raise --tp or use --weight-dtype fp8"
        )
    pool_tokens = pool_gpu // per_gpu_token
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
        prefill_seconds_saved_per_hit=prefill_seconds(flops, gpu, tp, mfu),
        engine=engine,
        mem_fraction=fraction,
        mem_fraction_source=fraction_source,
        mfu=mfu,
        weight_dtype=weight_dtype.lower(),
        attention=model.attention,
        gpu_memory_bytes=gpu.memory_bytes,
        weight_bytes_per_gpu=weights_gpu,
        kv_bytes_per_token_per_gpu=per_gpu_token,
        kv_bytes_per_token_full_layers_only=kv_bytes_per_token(model, kv_dtype, tp, full_layers_only=True) * tp,
        kv_pool_bytes_per_gpu=pool_gpu,
        sliding_window=model.sliding_window,
        sliding_layers=model.num_sliding_layers,
        prefix_bytes_swa_aware=prefix_swa,
        prefix_pool_share=prefix_bytes / (pool_gpu * tp),
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
    )


def pool_capacity_tokens(
    model: str | ModelSpec,
    gpu: str | GpuSpec,
    *,
    tp: int = 1,
    kv_dtype: str = "bf16",
    engine: str = "sglang",
    mem_fraction: float | None = None,
    weight_dtype: str = "bf16",
) -> int:
    """KV pool size in tokens for ``simulate --model M --gpu G`` (names or resolved specs).

    The same figure as ``estimate_cost(...).kv_pool_tokens``: every layer allocated per token,
    i.e. no SWA-aware pool.
    """
    model_spec = resolve_model(model) if isinstance(model, str) else model
    gpu_spec = resolve_gpu(gpu) if isinstance(gpu, str) else gpu
    return estimate_cost(
        model_spec, gpu_spec, tp=tp, kv_dtype=kv_dtype, engine=engine,
        mem_fraction=mem_fraction, weight_dtype=weight_dtype,
    ).kv_pool_tokens
