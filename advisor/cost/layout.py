"""Each model's attention layout, and the cache geometry and state it gives each engine.

A model's layers are not all full attention: some slide over a window (gpt-oss, Gemma 2/3),
attend within fixed chunks (Llama 4), or keep a fixed-size state instead of per-token KV
(Gated DeltaNet in Qwen3-Next and Qwen3.5, Mamba2 in Nemotron-H, Granite 4.0-H and Falcon-H1,
Mamba1 in Jamba). ``AttentionLayout`` is that layout, read from the HF config fields
(``read_layout``, called by ``catalog.model_from_config``), and ``cache_geometry`` turns it into
what vLLM 0.33.0 and SGLang 0.5.23 reuse of a shared prefix (``advisor.index.geometry``).

Every rule is paraphrased from the engines' own source (no code copied); the comments cite the
file and line of the wheel read (vLLM 0.33.0, SGLang 0.5.23) and ``../shared/docs/ARCHITECTURES.md``
gives the worked figures. Pure functions of a config and a few serving settings.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping, Protocol

from advisor.errors import AdvisorError
from advisor.index.geometry import CacheGeometry, CacheGroup

# Bytes per KV element. BF16/FP16 store 2 bytes; FP8 (vLLM fp8/fp8_e4m3/fp8_e5m2, SGLang
# fp8_e4m3/fp8_e5m2) stores 1 and halves the cache (REFERENCE §4.1). ``catalog`` re-exports it.
KV_DTYPE_BYTES: dict[str, int] = {"bf16": 2, "fp16": 2, "fp8": 1}

# Bytes per element of the dtypes a state tensor is kept in.
STATE_DTYPE_BYTES: dict[str, int] = {"float32": 4, "bfloat16": 2, "float16": 2}
_DTYPE_SPELLINGS = {"float32": "float32", "fp32": "float32", "bfloat16": "bfloat16", "bf16": "bfloat16",
                    "float16": "float16", "fp16": "float16", "half": "float16"}

ENGINES = ("vllm", "sglang", "none")
VLLM_VERSION = "vLLM 0.33.0"
SGLANG_VERSION = "SGLang 0.5.23"

# vLLM: CacheConfig.DEFAULT_BLOCK_SIZE (config/cache.py), the block FlashAttention, FlashInfer and
# Triton attention accept (MultipleOf(16): v1/attention/backends/triton_attn.py l.339-346).
VLLM_DEFAULT_BLOCK = 16
# FlashMLA takes exactly 64-token kernel blocks (v1/attention/backends/mla/flashmla.py l.57-58),
# FlashMLA sparse (DeepSeek V3.2's DSA) multiples of 64 (mla/flashmla_sparse.py l.158-165).
VLLM_MLA_BLOCK = 64
# MLA hybrids round the hybrid block's alignment up to 128 (platforms/interface.py l.1083-1088).
VLLM_MLA_HYBRID_ALIGNMENT = 128
# FlashInfer's GDN prefill exports mid-prefill states every 64 tokens
# (v1/attention/backends/gdn_attn.py l.34, FLASHINFER_GDN_CHECKPOINT_ALIGNMENT).
FLASHINFER_GDN_CHECKPOINT_ALIGNMENT = 64
# SGLang: FLA's chunk, the Mamba cache chunk when the config names none (arg_groups/overrides.py
# l.1897-1925 `mamba_cache_chunk_size`); NemotronH's config class defaults its chunk to 256
# (configs/nemotron_h.py l.41 and l.224-243).
SGLANG_FLA_CHUNK = 64
SGLANG_NEMOTRON_H_CHUNK = 256
# DSA indexer keys: fp8 values and one fp32 scale per 128 (vLLM DeepseekV32IndexerCache,
# SGLang's NSA pool: head_dim + head_dim // 128 * 4 = 132 bytes for V3.2's 128-wide keys).
INDEXER_QUANT_BLOCK = 128
# Bound of a state's element count: no model comes near it (a 2^50 ceiling like catalog.MAX_FIGURE).
MAX_STATE_ELEMENTS = 1 << 50

# SGLang 0.5.23 keeps a separate sliding-window pool only for some architectures
# (configs/model_config.py l.2651-2700 `is_hybrid_swa_model`): gpt-oss (SWA_SINK_ARCHS, l.88-96)
# and Llama 4's chunked layers (its RoPE layers, window = attention_chunk_size:
# sgl-project/sglang@003cb210149dabe1daf32be9c38ed7fe56093190:python/sglang/srt/models/llama4.py).
# Gemma 2/3 have it switched off (arg_groups/model_overrides/gemma2_gemma3.py:
# disable_hybrid_swa_memory), and plain Mistral/Qwen2 windows are not in the list: one full pool.
_SGLANG_HYBRID_SWA_FAMILIES = ("gpt_oss", "llama4")
# Architectures SGLang's extra_buffer Mamba strategy supports (arg_groups/overrides.py l.403-435).
_SGLANG_EXTRA_BUFFER_FAMILIES = ("qwen3_next", "qwen3_5", "nemotron_h", "falcon_h1", "granitemoehybrid")

_STATE_NAMES = {"gdn": "Gated DeltaNet", "mamba2": "Mamba2", "mamba1": "Mamba1"}
_ATTENTION_NAMES = {"full": "full attention", "sliding": "sliding-window", "chunked": "chunked local"}


# ---------------------------------------------------------------------------------------------
# The layout
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StateTensor:
    """One tensor of a layer's state on one GPU: its element count and dtype."""

    name: str  # "conv", "recurrent" (GDN) or "ssm" (Mamba)
    elements: int
    dtype: str

    @property
    def bytes(self) -> int:
        return self.elements * STATE_DTYPE_BYTES[self.dtype]


@dataclass(frozen=True)
class StateShape:
    """The fixed-size state of one linear-attention or state-space layer, in config figures.

    One layout covers the three kinds, as the engines' shape calculators write them
    (vLLM model_executor/layers/mamba/mamba_utils.py l.152-320 `MambaStateShapeCalculator`;
    SGLang configs/mamba_utils.py l.194-245 `Mamba2StateShape.create`):

    - conv state: ``heads·head_dim + 2·groups·state_size`` channels × ``conv_kernel − 1`` (+ the
      speculative tokens in vLLM for GDN and Mamba2);
    - recurrent (GDN) or SSM (Mamba) state: ``heads × head_dim × state_size``.

    GDN: heads/head_dim are the value heads, groups/state_size the key heads and key head dim.
    Mamba2: mamba heads, head dim, n_groups, SSM state size. Mamba1: heads is the intermediate
    size, head_dim 1, groups 0.
    """

    kind: str  # "gdn", "mamba2", "mamba1"
    conv_kernel: int
    heads: int
    head_dim: int
    state_size: int
    groups: int
    chunk_size: int | None = None  # the model's Mamba chunk (SGLang's checkpoint grid)
    ssm_dtype: str | None = None  # the SSM/recurrent dtype the config names, if any

    @property
    def name(self) -> str:
        return _STATE_NAMES[self.kind]


@dataclass(frozen=True)
class Indexer:
    """DeepSeek V3.2's lightning indexer (DSA): one more per-token key per layer."""

    head_dim: int
    heads: int
    topk: int

    @property
    def key_bytes_per_token(self) -> int:
        """Bytes one layer's indexer keeps per token: fp8 keys plus an fp32 scale per 128."""
        return self.head_dim + self.head_dim // INDEXER_QUANT_BLOCK * 4


@dataclass(frozen=True)
class AttentionLayout:
    """Per layer, the attention kind (``full``, ``sliding``, ``chunked`` or ``""`` for a layer
    without attention) and the state kind (``gdn``, ``mamba2``, ``mamba1`` or ``""``).

    Falcon-H1 layers have both; Nemotron-H's MLP-only layers have neither. MLA layers are full
    attention with ``mla`` set; DeepSeek V3.2's sparse attention is MLA with an ``indexer``.
    """

    attention: tuple[str, ...]
    state: tuple[str, ...]
    sliding_window: int | None = None
    chunk_size: int | None = None  # attention_chunk_size of the chunked layers
    mla: bool = False
    indexer: Indexer | None = None
    state_shape: StateShape | None = None
    family: str = ""  # model_type (or the catalog's architecture), lower case
    model_dtype: str = "bfloat16"

    @property
    def num_layers(self) -> int:
        return len(self.attention)

    def count(self, kind: str) -> int:
        return sum(1 for k in self.attention if k == kind) + sum(1 for k in self.state if k == kind)

    @property
    def full_layers(self) -> int:
        return self.count("full")

    @property
    def sliding_layers(self) -> int:
        return self.count("sliding")

    @property
    def chunked_layers(self) -> int:
        return self.count("chunked")

    @property
    def attention_layers(self) -> int:
        """Layers that keep per-token KV (full, sliding and chunked)."""
        return sum(1 for k in self.attention if k)

    @property
    def state_layers(self) -> int:
        return sum(1 for k in self.state if k)

    @property
    def sliding_flags(self) -> tuple[bool, ...]:
        """Which layers slide (``ModelSpec.sliding_layers``); empty when none does."""
        flags = tuple(k == "sliding" for k in self.attention)
        return flags if any(flags) else ()

    @property
    def is_full_attention(self) -> bool:
        return self.full_layers == self.num_layers and not self.state_layers

    def counts(self) -> dict[str, int]:
        """Layer kinds and how many layers have each (kinds with no layer left out)."""
        out = {f"{k}_attention": self.count(k) for k in ("full", "sliding", "chunked")}
        out.update({k: self.count(k) for k in ("gdn", "mamba2", "mamba1")})
        out["no_cache"] = sum(1 for a, s in zip(self.attention, self.state) if not a and not s)
        return {k: v for k, v in out.items() if v}

    def describe(self) -> str:
        """One line, e.g. ``12 full attention + 36 Gated DeltaNet of 48 layers``."""
        parts = [f"{self.count(k)} {_ATTENTION_NAMES[k]}" for k in ("full", "sliding", "chunked") if self.count(k)]
        parts += [f"{self.count(k)} {_STATE_NAMES[k]}" for k in ("gdn", "mamba2", "mamba1") if self.count(k)]
        extra = []
        if self.sliding_layers and self.sliding_window:
            extra.append(f"window {self.sliding_window:,}")
        if self.chunked_layers and self.chunk_size:
            extra.append(f"chunk {self.chunk_size:,}")
        if self.mla:
            extra.append("MLA" + (" with a DSA indexer" if self.indexer else ""))
        tail = f" ({', '.join(extra)})" if extra else ""
        return f"{' + '.join(parts) or 'no cached layer'} of {self.num_layers} layers{tail}"

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: the layer counts, and the figures of each kind present."""
        data: dict[str, Any] = {"layers": self.num_layers, **self.counts(), "mla": self.mla}
        if self.sliding_layers:
            data["sliding_window"] = self.sliding_window
        if self.chunked_layers:
            data["attention_chunk_size"] = self.chunk_size
        if self.indexer is not None:
            data["indexer"] = {"head_dim": self.indexer.head_dim, "heads": self.indexer.heads,
                               "topk": self.indexer.topk,
                               "key_bytes_per_token_per_layer": self.indexer.key_bytes_per_token}
        if self.state_shape is not None:
            s = self.state_shape
            data["state"] = {"kind": s.kind, "heads": s.heads, "head_dim": s.head_dim, "state_size": s.state_size,
                             "groups": s.groups, "conv_kernel": s.conv_kernel}
        return data


def full_attention_layout(num_layers: int, *, sliding: tuple[bool, ...] = (), window: int | None = None,
                          mla: bool = False) -> AttentionLayout:
    """Every layer full attention (or sliding where ``sliding`` says so)."""
    kinds = tuple("sliding" if sliding and sliding[i] else "full" for i in range(num_layers))
    return AttentionLayout(attention=kinds, state=("",) * num_layers, sliding_window=window if sliding else None,
                           mla=mla)


# ---------------------------------------------------------------------------------------------
# Reading the layout from config fields
# ---------------------------------------------------------------------------------------------


def first_field(cfg: Mapping[str, Any], *names: str) -> Any:
    """The first present, non-null field among ``names`` (configs spell some fields differently)."""
    for name in names:
        value = cfg.get(name)
        if value is not None:
            return value
    return None


def _family(cfg: Mapping[str, Any]) -> str:
    return str(first_field(cfg, "model_type", "architecture") or "").lower()


def read_layout(cfg: Mapping[str, Any], num_layers: int, where: str) -> AttentionLayout:
    """The layout of a config whose fields ``catalog.check_fields`` has already typed.

    ``where`` names the file (or catalog entry) in the one-line ``AdvisorError`` a wrong or
    absurd value gives."""
    family = _family(cfg)
    attention, state = _layer_kinds(cfg, num_layers, family, where)
    window = int(cfg["sliding_window"]) if "sliding" in attention else None
    chunk = int(cfg["attention_chunk_size"]) if "chunked" in attention else None
    kinds = {k for k in state if k}
    if len(kinds) > 1:
        raise AdvisorError(f"{where}: config mixes state layer kinds ({', '.join(sorted(kinds))})")
    shape = _state_shape(cfg, kinds.pop(), family, where) if kinds else None
    mla = cfg.get("kv_lora_rank") is not None
    indexer = None
    if mla and cfg.get("index_topk") is not None:
        indexer = Indexer(head_dim=int(cfg.get("index_head_dim") or 128), heads=int(cfg.get("index_n_heads") or 64),
                          topk=int(cfg["index_topk"]))
    return AttentionLayout(attention=attention, state=state, sliding_window=window, chunk_size=chunk, mla=mla,
                           indexer=indexer, state_shape=shape, family=family, model_dtype=_model_dtype(cfg))


def _model_dtype(cfg: Mapping[str, Any]) -> str:
    """The dtype the weights run in (vLLM's conv state and its "auto" SSM state follow it)."""
    value = first_field(cfg, "dtype", "torch_dtype")
    return _DTYPE_SPELLINGS.get(str(value).lower(), "bfloat16") if isinstance(value, str) else "bfloat16"


Kinds = tuple[tuple[str, ...], tuple[str, ...]]


def _layer_kinds(cfg: Mapping[str, Any], num_layers: int, family: str, where: str) -> Kinds:
    """Per-layer attention and state kinds, by the first rule of the family that applies."""
    for reader in (_pattern_kinds, _falcon_h1_kinds, _jamba_kinds, _typed_kinds, _interval_kinds, _chunked_kinds):
        kinds = reader(cfg, num_layers, family, where)
        if kinds is not None:
            return kinds
    return _sliding_kinds(cfg, num_layers, family)


def _uniform(attention: list[str], state: list[str]) -> Kinds:
    return tuple(attention), tuple(state)


# Nemotron-H's layer characters (configs/nemotron_h.py l.35-38 in SGLang; transformers NemotronHConfig)
# and the canonical list spellings of newer configs (`layers_block_type`).
_PATTERN = {"M": ("", "mamba2"), "*": ("full", ""), "-": ("", ""), "E": ("", ""),
            "mamba": ("", "mamba2"), "attention": ("full", ""), "mlp": ("", ""), "moe": ("", "")}


def _pattern_kinds(cfg: Mapping[str, Any], num_layers: int, family: str, where: str) -> Kinds | None:
    """Nemotron-H: ``hybrid_override_pattern`` (M Mamba2, * attention, - MLP, E MoE) or
    ``layers_block_type`` (mamba / attention / mlp / moe), one entry per layer."""
    pattern = cfg.get("hybrid_override_pattern")
    name = "hybrid_override_pattern"
    if pattern is None:
        pattern, name = cfg.get("layers_block_type"), "layers_block_type"
    if pattern is None:
        return None
    items = list(pattern)
    if len(items) != num_layers:
        raise AdvisorError(f"{where}: {name} names {len(items):,} layers, num_hidden_layers says {num_layers:,}")
    unknown = sorted({str(i) for i in items if not isinstance(i, str) or i not in _PATTERN})
    if unknown:
        raise AdvisorError(f"{where}: {name} has layer kinds advisor does not know ({', '.join(unknown)[:60]})")
    return _uniform([_PATTERN[i][0] for i in items], [_PATTERN[i][1] for i in items])


def _falcon_h1_kinds(cfg: Mapping[str, Any], num_layers: int, family: str, where: str) -> Kinds | None:
    """Falcon-H1: every layer runs attention and a Mamba2 mixer side by side (SGLang
    configs/falcon_h1.py l.291-299: both layer-id lists are every layer)."""
    if not family.startswith("falcon_h1"):
        return None
    return _uniform(["full"] * num_layers, ["mamba2"] * num_layers)


def _jamba_kinds(cfg: Mapping[str, Any], num_layers: int, family: str, where: str) -> Kinds | None:
    """Jamba: attention where ``i % attn_layer_period == attn_layer_offset``, Mamba1 elsewhere
    (transformers JambaConfig.layers_block_type)."""
    period = cfg.get("attn_layer_period")
    if period is None:
        return None
    offset = int(cfg.get("attn_layer_offset") or 0)
    attention = ["full" if i % int(period) == offset else "" for i in range(num_layers)]
    return _uniform(attention, ["" if a else "mamba1" for a in attention])


_TYPED = {"full_attention": ("full", ""), "attention": ("full", ""), "sliding_attention": ("sliding", ""),
          "chunked_attention": ("chunked", ""), "linear_attention": ("", "linear"), "mamba": ("", "mamba2")}


def _typed_kinds(cfg: Mapping[str, Any], num_layers: int, family: str, where: str) -> Kinds | None:
    """``layer_types`` names each layer (gpt-oss, Gemma 3, Qwen3-Next/3.5, Granite 4.0-H, ...).

    A list of only full/sliding layers keeps the catalog's older reading (its length must match,
    and a sliding layer needs a usable ``sliding_window``); one naming state or chunked layers
    must match ``num_hidden_layers``. ``linear_attention`` is Gated DeltaNet in the Qwen families
    and Mamba2 in Granite (transformers >= 5.15 writes Granite's ``mamba`` that way)."""
    types = cfg.get("layer_types")
    if not isinstance(types, list):
        return None
    unknown = sorted({str(t) for t in types if not isinstance(t, str) or t not in _TYPED})
    if unknown:
        raise AdvisorError(f"{where}: layer_types has layer kinds advisor does not know ({', '.join(unknown)[:60]})")
    special = any(_TYPED[t][1] or _TYPED[t][0] == "chunked" for t in types)
    if not special:
        return None  # full / sliding only: the sliding rule below reads it as before
    if len(types) != num_layers:
        raise AdvisorError(f"{where}: layer_types names {len(types):,} layers, num_hidden_layers says {num_layers:,}")
    linear = "mamba2" if first_field(cfg, "mamba_n_heads", "mamba_num_heads") is not None else "gdn"
    attention = [_TYPED[t][0] for t in types]
    state = [linear if _TYPED[t][1] == "linear" else _TYPED[t][1] for t in types]
    if "sliding" in attention and not _window(cfg):
        attention = ["full" if a == "sliding" else a for a in attention]
    return _uniform(attention, state)


def _interval_kinds(cfg: Mapping[str, Any], num_layers: int, family: str, where: str) -> Kinds | None:
    """Qwen3-Next without ``layer_types``: every ``full_attention_interval``-th layer is full
    attention, the rest Gated DeltaNet (SGLang configs/qwen3_next.py l.259-269)."""
    interval = cfg.get("full_attention_interval")
    if interval is None or cfg.get("linear_num_value_heads") is None:
        return None
    attention = ["full" if (i + 1) % int(interval) == 0 else "" for i in range(num_layers)]
    return _uniform(attention, ["" if a else "gdn" for a in attention])


def _chunked_kinds(cfg: Mapping[str, Any], num_layers: int, family: str, where: str) -> Kinds | None:
    """Llama 4: the RoPE layers attend within ``attention_chunk_size`` chunks, the NoPE layers
    globally. vLLM reads ``no_rope_layers`` (0 = NoPE, global; vllm-project/vllm@0121c95efe85a732d1f5c1ade6c5434152b76276:
    vllm/model_executor/models/llama4.py, Llama4Attention: ``use_irope=not self.nope``); an empty
    list means transformers' default, every ``no_rope_layer_interval``-th (4th) layer NoPE."""
    chunk = cfg.get("attention_chunk_size")
    if chunk is None:
        return None
    flags = cfg.get("no_rope_layers")
    if isinstance(flags, list) and flags:
        if len(flags) != num_layers:
            raise AdvisorError(f"{where}: no_rope_layers names {len(flags):,} layers, num_hidden_layers says {num_layers:,}")
        attention = ["chunked" if f else "full" for f in flags]
    else:
        interval = int(cfg.get("no_rope_layer_interval") or 4)
        attention = ["chunked" if (i + 1) % interval else "full" for i in range(num_layers)]
    return _uniform(attention, [""] * num_layers)


def _window(cfg: Mapping[str, Any]) -> int | None:
    """The sliding window, unless the config carries one it does not use (Qwen2's
    ``use_sliding_window: false``)."""
    window = cfg.get("sliding_window")
    if window is None or cfg.get("use_sliding_window") is False:
        return None
    return int(window)


def _sliding_kinds(cfg: Mapping[str, Any], num_layers: int, family: str) -> Kinds:
    """Full attention, with the layers that slide by each family's rule.

    - ``layer_types`` (gpt-oss, newer transformers configs) names each layer;
    - Gemma 2 slides on even-indexed layers (transformers modeling_gemma2, REFERENCE §4.1), and so
      does gpt-oss (layer_types starts with ``sliding_attention``) when only the catalog's
      architecture is known;
    - ``sliding_window_pattern`` (Gemma 3): every pattern-th layer is global; a Gemma 3 config
      without it has transformers' default of 6 (five local layers per global one);
    - otherwise a set ``sliding_window`` applies to every layer (Mistral-7B-v0.1).
    """
    window = _window(cfg)
    full = ["full"] * num_layers
    if window is None:
        return _uniform(full, [""] * num_layers)
    types = cfg.get("layer_types")
    if isinstance(types, list) and len(types) == num_layers:
        attention = ["sliding" if str(t) == "sliding_attention" else "full" for t in types]
    elif family in ("gemma2", "gpt_oss"):
        attention = ["sliding" if i % 2 == 0 else "full" for i in range(num_layers)]
    else:
        pattern = cfg.get("sliding_window_pattern")
        if pattern is None and family.startswith("gemma3"):
            pattern = 6
        if isinstance(pattern, int) and pattern > 1:
            attention = ["sliding" if (i + 1) % pattern else "full" for i in range(num_layers)]
        else:
            attention = ["sliding"] * num_layers
    return _uniform(attention, [""] * num_layers)


def _positive(cfg: Mapping[str, Any], where: str, what: str, *names: str) -> int | None:
    value = first_field(cfg, *names)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise AdvisorError(f"{where}: config field has an unusable value ({names[0]}: {value!r}; expected a positive "
                           f"integer for the {what} state)")
    return value


def _require(where: str, what: str, fields: dict[str, int | None]) -> dict[str, int]:
    missing = [name for name, value in fields.items() if value is None]
    if missing:
        raise AdvisorError(f"{where}: config lacks {', '.join(missing)} (needed for the {what} state)")
    return {name: int(value) for name, value in fields.items() if value is not None}


def _state_shape(cfg: Mapping[str, Any], kind: str, family: str, where: str) -> StateShape:
    reader = {"gdn": _gdn_shape, "mamba2": _mamba2_shape, "mamba1": _mamba1_shape}[kind]
    shape = reader(cfg, family, where)
    conv = (shape.heads * shape.head_dim + 2 * shape.groups * shape.state_size) * shape.conv_kernel
    if shape.heads * shape.head_dim * shape.state_size + conv > MAX_STATE_ELEMENTS:
        raise AdvisorError(f"{where}: config gives an absurd {shape.name} state "
                           f"({shape.heads:,} × {shape.head_dim:,} × {shape.state_size:,} elements)")
    return shape


def _ssm_dtype(cfg: Mapping[str, Any]) -> str | None:
    """The SSM state dtype a config names: Qwen3.5's ``mamba_ssm_dtype``, NemotronH's
    ``mamba_ssm_cache_dtype`` (None when it names none or one advisor does not know)."""
    value = first_field(cfg, "mamba_ssm_dtype", "mamba_ssm_cache_dtype")
    return _DTYPE_SPELLINGS.get(value.lower()) if isinstance(value, str) else None


def _gdn_shape(cfg: Mapping[str, Any], family: str, where: str) -> StateShape:
    """Gated DeltaNet (Qwen3-Next, Qwen3.5): conv over q, k and v; recurrent state per value head
    of value_dim × key_dim (vLLM mamba_utils.py l.271-291 `gated_delta_net_state_shape`)."""
    f = _require(where, "Gated DeltaNet", {
        name: _positive(cfg, where, "Gated DeltaNet", name)
        for name in ("linear_num_key_heads", "linear_num_value_heads", "linear_key_head_dim",
                     "linear_value_head_dim", "linear_conv_kernel_dim")})
    return StateShape(kind="gdn", conv_kernel=f["linear_conv_kernel_dim"], heads=f["linear_num_value_heads"],
                      head_dim=f["linear_value_head_dim"], state_size=f["linear_key_head_dim"],
                      groups=f["linear_num_key_heads"], chunk_size=_positive(cfg, where, "Gated DeltaNet", "mamba_chunk_size"),
                      ssm_dtype=_ssm_dtype(cfg))


def _mamba_head_dim(cfg: Mapping[str, Any], heads: int, where: str) -> int | None:
    """Mamba2 head dim: ``mamba_head_dim`` (Nemotron-H) or ``mamba_d_head`` (Granite, Falcon-H1;
    ``"auto"`` = intermediate / heads, with intermediate ``mamba_d_ssm`` or expand × hidden)."""
    value = first_field(cfg, "mamba_head_dim", "mamba_d_head")
    intermediate = first_field(cfg, "mamba_d_ssm")
    if intermediate is None and cfg.get("mamba_expand") is not None and cfg.get("hidden_size") is not None:
        intermediate = int(cfg["mamba_expand"]) * int(cfg["hidden_size"])
    if value is None or value == "auto":
        return int(intermediate) // heads if intermediate else None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise AdvisorError(f"{where}: config field has an unusable value (mamba_d_head: {value!r}; expected a positive "
                           "integer or \"auto\")")
    if intermediate is not None and value * heads != int(intermediate):
        raise AdvisorError(f"{where}: Mamba2 heads × head dim ({heads} × {value}) differ from its intermediate size "
                           f"({int(intermediate):,})")
    return value


def _mamba2_shape(cfg: Mapping[str, Any], family: str, where: str) -> StateShape:
    """Mamba2 (Nemotron-H, Granite 4.0-H, Falcon-H1): conv over x, B and C; SSM state per head of
    head_dim × state (vLLM mamba_utils.py l.185-215 `mamba2_state_shape`). Nemotron-H spells the
    fields mamba_num_heads / mamba_head_dim / ssm_state_size / n_groups / conv_kernel / chunk_size,
    Granite and Falcon-H1 mamba_n_heads / mamba_d_head / mamba_d_state / mamba_n_groups / mamba_d_conv."""
    what = "Mamba2"
    heads = _positive(cfg, where, what, "mamba_num_heads", "mamba_n_heads")
    fields = {
        "mamba_num_heads": heads,
        "mamba_head_dim": _mamba_head_dim(cfg, heads, where) if heads else None,
        "ssm_state_size": _positive(cfg, where, what, "ssm_state_size", "mamba_d_state"),
        "n_groups": _positive(cfg, where, what, "n_groups", "mamba_n_groups"),
        "conv_kernel": _positive(cfg, where, what, "conv_kernel", "mamba_d_conv"),
    }
    f = _require(where, what, fields)
    chunk = _positive(cfg, where, what, "mamba_chunk_size")
    if chunk is None and family.startswith("nemotron_h"):
        chunk = _positive(cfg, where, what, "chunk_size") or SGLANG_NEMOTRON_H_CHUNK
    return StateShape(kind="mamba2", conv_kernel=f["conv_kernel"], heads=f["mamba_num_heads"],
                      head_dim=f["mamba_head_dim"], state_size=f["ssm_state_size"], groups=f["n_groups"],
                      chunk_size=chunk, ssm_dtype=_ssm_dtype(cfg))


def _mamba1_shape(cfg: Mapping[str, Any], family: str, where: str) -> StateShape:
    """Mamba1 (Jamba): conv over the intermediate channels; SSM state intermediate × state
    (vLLM mamba_utils.py l.170-183 `mamba1_state_shape`; intermediate = mamba_expand × hidden)."""
    what = "Mamba1"
    expand = _positive(cfg, where, what, "mamba_expand")
    hidden = _positive(cfg, where, what, "hidden_size")
    f = _require(where, what, {"mamba_expand": expand, "mamba_d_state": _positive(cfg, where, what, "mamba_d_state"),
                               "mamba_d_conv": _positive(cfg, where, what, "mamba_d_conv"), "hidden_size": hidden})
    return StateShape(kind="mamba1", conv_kernel=f["mamba_d_conv"], heads=f["mamba_expand"] * f["hidden_size"],
                      head_dim=1, state_size=f["mamba_d_state"], groups=0, ssm_dtype=_ssm_dtype(cfg))


# ---------------------------------------------------------------------------------------------
# State tensors per engine
# ---------------------------------------------------------------------------------------------


def _padded_groups(groups: int, tp: int, model: str) -> int:
    """Groups padded so each TP rank holds whole groups (vLLM mamba_utils.py l.260-270
    `extra_groups_for_head_shards`; SGLang configs/mamba_utils.py l.29-38)."""
    if groups % tp == 0:
        return groups
    if groups > tp:
        raise AdvisorError(f"--tp {tp} does not divide the {groups} state groups of {model}")
    return tp


def _split(total: int, tp: int, what: str, model: str) -> int:
    if total % tp:
        raise AdvisorError(f"--tp {tp} does not divide the {total:,} {what} of {model}")
    return total // tp


def state_dtypes(layout: AttentionLayout, engine: str) -> tuple[str, str]:
    """(conv, SSM/recurrent) dtypes of one state layer in ``engine``.

    vLLM 0.33: conv in the model dtype; SSM in the model dtype ("auto"), except NemotronH, whose
    config hook defaults it to float32 unless the config names mamba_ssm_cache_dtype
    (models/config.py l.812-838), and Qwen3.5/3.6, which take the config's mamba_ssm_dtype
    (models/config.py l.953-978). Qwen3-Next, Granite, Falcon-H1 and Jamba have no hook.
    SGLang 0.5.23: conv bfloat16; SSM float32 unless the config names mamba_ssm_dtype
    (configs/mamba_utils.py l.47-106 `mamba2_state_dtype`); Granite's cache params never pass the
    config, so float32 there (configs/granitemoehybrid.py l.296-310).
    """
    shape = layout.state_shape
    named = shape.ssm_dtype if shape is not None else None
    if engine == "sglang":
        ssm = "float32" if layout.family.startswith("granitemoehybrid") else (named or "float32")
        return "bfloat16", ssm
    model = layout.model_dtype
    if layout.family.startswith("nemotron_h"):
        return model, named or "float32"
    if layout.family.startswith("qwen3_5"):
        return model, named or model
    return model, model


def state_tensors(layout: AttentionLayout, engine: str, *, tp: int = 1, num_speculative: int = 0,
                  model: str = "model") -> tuple[StateTensor, ...]:
    """The state tensors of one state layer on one GPU in ``engine`` (empty without state).

    vLLM lengthens the GDN and Mamba2 conv state by the speculative tokens and divides the GDN
    conv channels by TP without padding its key-head groups; SGLang keeps kernel − 1 columns and
    pads groups for GDN as for Mamba2 (it builds both with ``Mamba2StateShape.create``)."""
    shape = layout.state_shape
    if shape is None:
        return ()
    pad = not (engine == "vllm" and shape.kind == "gdn")
    groups = _padded_groups(shape.groups, tp, model) if pad and shape.groups else shape.groups
    channels = shape.heads * shape.head_dim + 2 * groups * shape.state_size
    spec = num_speculative if engine == "vllm" and shape.kind != "mamba1" else 0
    conv = _split(channels, tp, f"{shape.name} conv channels", model) * (shape.conv_kernel - 1 + spec)
    heads = _split(shape.heads, tp, f"{shape.name} heads", model)
    conv_dtype, ssm_dtype = state_dtypes(layout, engine)
    name = "recurrent" if shape.kind == "gdn" else "ssm"
    return (StateTensor("conv", conv, conv_dtype), StateTensor(name, heads * shape.head_dim * shape.state_size, ssm_dtype))


def state_bytes_per_layer(layout: AttentionLayout, engine: str, *, tp: int = 1, num_speculative: int = 0,
                          model: str = "model") -> int:
    """Unpadded bytes of one state layer's state on one GPU."""
    return sum(t.bytes for t in state_tensors(layout, engine, tp=tp, num_speculative=num_speculative, model=model))


# ---------------------------------------------------------------------------------------------
# Cache geometry per engine
# ---------------------------------------------------------------------------------------------


class ModelLike(Protocol):
    """What the geometry reads of a ``catalog.ModelSpec`` (kept structural: no import cycle)."""

    @property
    def id(self) -> str: ...

    @property
    def num_kv_heads(self) -> int: ...

    @property
    def head_dim(self) -> int: ...

    @property
    def kv_lora_rank(self) -> int | None: ...

    @property
    def qk_rope_head_dim(self) -> int | None: ...

    @property
    def layout(self) -> AttentionLayout: ...


class GpuLike(Protocol):
    @property
    def id(self) -> str: ...


def kv_dtype_bytes(kv_dtype: str) -> int:
    try:
        return KV_DTYPE_BYTES[kv_dtype.lower()]
    except KeyError:
        raise AdvisorError(f"unknown KV dtype {kv_dtype!r}; known: {', '.join(KV_DTYPE_BYTES)}") from None


def attention_bytes_per_layer_token(model: ModelLike, kv_dtype: str = "bf16", tp: int = 1) -> int:
    """KV bytes one attention layer keeps per token on one GPU (REFERENCE §4.1).

    GQA/MHA/MQA: K and V of each local KV head, ``2 · max(1, kv/TP) · head_dim · b``. MLA: the
    latent plus the RoPE key, not divided by TP; with fp8, DeepSeek V3.2's sparse MLA keeps
    vLLM's and SGLang's 656-byte "FP8 with scale" row (512 fp8 + 4 fp32 scales + 64 bf16 RoPE:
    vLLM v1/attention/backends/mla/flashmla_sparse.py l.76-86) instead of 576."""
    b = kv_dtype_bytes(kv_dtype)
    if model.kv_lora_rank is not None:
        rank, rope = int(model.kv_lora_rank), int(model.qk_rope_head_dim or 0)
        if b == 1 and model.layout.indexer is not None:
            return rank + rank // INDEXER_QUANT_BLOCK * 4 + rope * 2
        return (rank + rope) * b
    return 2 * max(1, model.num_kv_heads // tp) * model.head_dim * b


def gpu_family(gpu: GpuLike | str | None) -> int | None:
    """The compute capability family of a catalog GPU (90 Hopper, 100 Blackwell, 80 Ampere, 89
    Ada), None when not known."""
    if gpu is None:
        return None
    name = (gpu if isinstance(gpu, str) else gpu.id).lower()
    for prefix, family in (("h100", 90), ("h200", 90), ("h20", 90), ("gh200", 90), ("b200", 100), ("gb200", 100),
                           ("b300", 100), ("gb300", 100), ("a100", 80), ("a10", 86), ("l40", 89), ("l4", 89)):
        if name.startswith(prefix):
            return family
    return None


@dataclass(frozen=True)
class GdnPrefill:
    backend: str  # "flashinfer" or "triton"
    reason: str


def gdn_prefill_backend(gpu: GpuLike | str | None, key_head_dim: int, cuda_major: int | None = None) -> GdnPrefill:
    """vLLM 0.33's auto pick of the GDN prefill kernel (model_executor/layers/mamba/gdn/
    qwen_gdn_linear_attn.py l.148-265 `_resolve_gdn_prefill_backend`): FlashInfer on Hopper
    (SM90), and on Blackwell (SM10x/12x) with 128-wide keys and a CUDA 13 runtime; Triton
    otherwise. Without a GPU, Hopper is assumed (the data-centre GPU vLLM is most served on)."""
    family = gpu_family(gpu)
    if gpu is None:
        return GdnPrefill("flashinfer", "GPU not given: assumed Hopper, where vLLM picks FlashInfer GDN prefill")
    name = gpu if isinstance(gpu, str) else gpu.id
    if family is None:
        return GdnPrefill("flashinfer", f"{name}: architecture unknown, assumed Hopper (FlashInfer GDN prefill)")
    if family == 90:
        return GdnPrefill("flashinfer", f"{name} (Hopper): FlashInfer GDN prefill")
    if family in (100, 120) and key_head_dim == 128:
        if cuda_major is not None and cuda_major < 13:
            return GdnPrefill("triton", f"{name} (Blackwell) on CUDA {cuda_major}: Triton GDN prefill")
        assumed = "" if cuda_major is not None else ", CUDA runtime >= 13 assumed"
        return GdnPrefill("flashinfer", f"{name} (Blackwell{assumed}): FlashInfer GDN prefill")
    return GdnPrefill("triton", f"{name}: no FlashInfer GDN prefill kernel, Triton")


@dataclass(frozen=True)
class VllmBlock:
    """vLLM 0.33's KV block on a model, with how it came about."""

    block: int  # tokens per block (the hybrid block when state layers raise it)
    kernel_block: int  # the attention backend's smallest block
    attention_bytes_per_token: int  # one attention layer, one token, one GPU
    state_bytes: int = 0  # one state layer's unpadded state on one GPU (vLLM dtypes)
    alignment: int = 0  # A of the hybrid formula
    checkpoint_alignment: int = 1
    checkpoint_blocks: int = 0  # num_prefill_checkpoint_blocks of the Mamba spec
    prefill: GdnPrefill | None = None

    @property
    def page_bytes(self) -> int:
        """Bytes of one block of one layer: every group's page (the state page padded to it)."""
        return self.block * self.attention_bytes_per_token


def vllm_block(model: ModelLike, *, gpu: GpuLike | str | None = None, kv_dtype: str = "bf16", tp: int = 1,
               block_size: int | None = None, num_speculative: int = 0, cuda_major: int | None = None) -> VllmBlock:
    """vLLM 0.33's block on ``model``: the backend's block, or ``--block-size`` when given; for
    models with state layers the hybrid block of ``Platform._align_hybrid_block_size``
    (platforms/interface.py l.940-1130), which makes one attention layer's page hold one state:

        A     = max(kernel block, block_size), ≥ 128 for MLA hybrids,
                lcm'd with the prefill checkpoint alignment in align mode (prefix caching on)
        block = A · ceil(state / (A · attn_tok)), rounded up to the kernel block,
                kept at the user's --block-size when that is larger.
    """
    layout = model.layout
    kernel = VLLM_MLA_BLOCK if layout.mla else VLLM_DEFAULT_BLOCK
    attn_tok = attention_bytes_per_layer_token(model, kv_dtype, tp)
    if not layout.state_layers:
        return VllmBlock(block=block_size or kernel, kernel_block=kernel, attention_bytes_per_token=attn_tok)
    state = state_bytes_per_layer(layout, "vllm", tp=tp, num_speculative=num_speculative, model=model.id)
    alignment = max(kernel, block_size or kernel)
    if layout.mla:
        alignment = max(alignment, VLLM_MLA_HYBRID_ALIGNMENT)
    prefill, checkpoint, checkpoint_blocks = _vllm_checkpointing(layout, gpu, cuda_major)
    alignment = math.lcm(alignment, checkpoint)
    block = alignment * -(-state // (alignment * attn_tok))
    block = kernel * -(-block // kernel)
    return VllmBlock(block=max(block, block_size or 0), kernel_block=kernel, attention_bytes_per_token=attn_tok,
                     state_bytes=state, alignment=alignment, checkpoint_alignment=checkpoint,
                     checkpoint_blocks=checkpoint_blocks, prefill=prefill)


def _vllm_checkpointing(layout: AttentionLayout, gpu: GpuLike | str | None,
                        cuda_major: int | None) -> tuple[GdnPrefill | None, int, int]:
    """(GDN prefill pick, prefill checkpoint alignment, checkpoint blocks per request).

    Only GDN layers on FlashInfer declare an alignment (64, qwen_gdn_linear_attn.py l.686-697);
    the others declare none, which counts as 1 (model_executor/layers/mamba/abstract.py l.65-70
    and l.98-113). The Mamba spec of a FlashInfer GDN layer and of every Mamba2 layer adds one
    prefill checkpoint block per request (qwen_gdn_linear_attn.py l.739-750;
    mamba_mixer2.py l.1107-1118)."""
    shape = layout.state_shape
    if shape is None:
        return None, 1, 0
    if shape.kind == "gdn":
        prefill = gdn_prefill_backend(gpu, shape.state_size, cuda_major)
        if prefill.backend == "flashinfer":
            return prefill, FLASHINFER_GDN_CHECKPOINT_ALIGNMENT, 1
        return prefill, 1, 0
    return None, 1, 1 if shape.kind == "mamba2" else 0


def vllm_state_pages_per_request(vb: VllmBlock, num_speculative: int = 0) -> int:
    """State pages one running request holds per state layer in align mode:
    ``2 + speculative + prefill checkpoint blocks`` (v1/kv_cache_interface.py l.1135-1141,
    ``MambaSpec.max_memory_usage_bytes``)."""
    return 2 + num_speculative + vb.checkpoint_blocks


def sglang_mamba_strategy(layout: AttentionLayout, page_size: int, strategy: str | None = None) -> str:
    """SGLang's --mamba-radix-cache-strategy after ``auto`` resolves: extra_buffer when overlap
    scheduling (on by default) or a page above 1 is wanted and the architecture supports it,
    no_buffer otherwise (arg_groups/overrides.py l.453-487)."""
    chosen = (strategy or "auto").lower()
    if chosen not in ("auto", "extra_buffer", "no_buffer"):
        raise AdvisorError(f"unknown SGLang Mamba strategy {strategy!r}; known: auto, extra_buffer, no_buffer")
    if chosen == "auto":
        supported = layout.family.startswith(_SGLANG_EXTRA_BUFFER_FAMILIES)
        chosen = "extra_buffer" if supported else "no_buffer"
    if chosen == "no_buffer" and page_size > 1:
        raise AdvisorError(f"SGLang's no_buffer Mamba strategy needs page size 1 (got {page_size})")
    return chosen


def sglang_checkpoint_grid(layout: AttentionLayout, page_size: int) -> int:
    """SGLang's Mamba checkpoint grid: ``lcm(max(chunk, page), page)`` with the config's Mamba
    chunk or FLA's 64 (runtime_context.py l.1966-1971 `mamba_checkpoint_grid`; overrides.py
    l.1897-1925 `mamba_cache_chunk_size`, which also requires one of chunk and page to divide
    the other)."""
    shape = layout.state_shape
    chunk = (shape.chunk_size if shape is not None else None) or SGLANG_FLA_CHUNK
    if max(chunk, page_size) % min(chunk, page_size):
        raise AdvisorError(f"SGLang needs the Mamba chunk ({chunk}) or the page size ({page_size}) to divide the other")
    return math.lcm(max(chunk, page_size), page_size)


def sglang_tracking_slots(strategy: str) -> int:
    """States SGLang holds per running request beside its own: two tracking slots with
    extra_buffer under overlap scheduling (the default), none with no_buffer
    (mem_cache/allocation_sizing.py l.11-19 `get_mamba_tracking_slots`)."""
    return 2 if strategy == "extra_buffer" else 0


def cache_geometry(model: ModelLike, engine: str, *, gpu: GpuLike | str | None = None, kv_dtype: str = "bf16",
                   tp: int = 1, block_size: int | None = None, page_size: int | None = None,
                   retention: int | None = 0, mamba_strategy: str | None = None, num_speculative: int = 0,
                   cuda_major: int | None = None) -> CacheGeometry:
    """What ``engine`` (``vllm``, ``sglang`` or ``none``) reuses of a shared prefix on ``model``.

    ``none`` is analyze's plain definition (the longest shared prefix on ``page_size``). vLLM
    0.33.0: one group per layer kind (full for full/MLA/chunked layers, which it caches
    densely; sliding only in a hybrid, an all-sliding model being one dense group; state for
    linear-attention/Mamba layers) on its block. SGLang 0.5.23: its page, with sliding groups
    where it keeps a separate SWA pool and states on its Mamba checkpoint grid.
    ``retention`` is vLLM's ``prefix_cache_retention_interval``, passed through."""
    for name, value in (("--block-size", block_size), ("--page-size", page_size)):
        if value is not None and value < 1:
            raise AdvisorError(f"{name} must be at least 1 (got {value})")
    if tp < 1 or num_speculative < 0:
        raise AdvisorError("--tp must be at least 1 and the speculative tokens at least 0")
    engine = engine.lower()
    if engine == "none":
        block = page_size or 1
        return CacheGeometry(engine="none", block=block, retention=retention, rule="advisor's plain definition",
                             granularity_note=f"the longest shared prefix, on {block}-token pages")
    if engine == "vllm":
        return _vllm_geometry(model, gpu=gpu, kv_dtype=kv_dtype, tp=tp, block_size=block_size, retention=retention,
                              num_speculative=num_speculative, cuda_major=cuda_major)
    if engine == "sglang":
        return _sglang_geometry(model, page_size=page_size or 1, retention=retention, mamba_strategy=mamba_strategy)
    raise AdvisorError(f"unknown engine {engine!r}; known: {', '.join(ENGINES)}")


def _vllm_groups(layout: AttentionLayout) -> tuple[CacheGroup, ...]:
    """vLLM's KV cache groups (one per spec type; v1/kv_cache_interface.py): chunked local layers
    are cached densely, so they join the full group; sliding layers form their own group (an
    all-sliding model is that group alone, under the same retention)."""
    dense = layout.full_layers + layout.chunked_layers
    groups = []
    if dense:
        groups.append(CacheGroup("full", layers=dense))
    # An all-sliding model is one group, and retention applies to it too: the unitary
    # coordinator passes it to the manager (kv_cache_coordinator.py l.358-375).
    if layout.sliding_layers:
        groups.append(CacheGroup("sliding", window=layout.sliding_window or 1, layers=layout.sliding_layers))
    if layout.state_layers:
        groups.append(CacheGroup("state", layers=layout.state_layers))
    return tuple(groups) or (CacheGroup("full"),)


def _vllm_geometry(model: ModelLike, *, gpu: GpuLike | str | None, kv_dtype: str, tp: int, block_size: int | None,
                   retention: int | None, num_speculative: int, cuda_major: int | None) -> CacheGeometry:
    layout = model.layout
    vb = vllm_block(model, gpu=gpu, kv_dtype=kv_dtype, tp=tp, block_size=block_size,
                    num_speculative=num_speculative, cuda_major=cuda_major)
    groups = _vllm_groups(layout)
    kept = "every block" if retention is None else ("replay boundaries and junctions" if retention == 0
                                                    else f"one checkpoint per {retention} tokens")
    if layout.state_layers and layout.state_shape is not None:
        shape = layout.state_shape
        note = (f"hybrid block {vb.block} tokens: one attention layer's {vb.block}-token page "
                f"({vb.page_bytes:,} B) holds one {shape.name} layer state ({vb.state_bytes:,} B)")
        if vb.prefill is not None:
            note += f"; {vb.prefill.reason}"
        rule = f"{VLLM_VERSION} (hybrid block, _align_hybrid_block_size; states kept at {kept})"
    else:
        why = "FlashMLA" if layout.mla and not block_size else ("--block-size" if block_size else "the default")
        note = f"block {vb.block} tokens ({why})"
        sparse = any(g.kind != "full" for g in groups)
        rule = f"{VLLM_VERSION} (" + (f"sliding windows kept at {kept}" if sparse else "dense prefix caching") + ")"
    return CacheGeometry(engine="vllm", block=vb.block, groups=groups, grid=0, retention=retention, rule=rule,
                         granularity_note=note, plain_block=block_size or vb.kernel_block)


def _sglang_groups(layout: AttentionLayout) -> tuple[CacheGroup, ...]:
    hybrid_swa = layout.family.startswith(_SGLANG_HYBRID_SWA_FAMILIES)
    sliding = layout.sliding_layers if hybrid_swa else 0
    chunked = layout.chunked_layers if hybrid_swa else 0
    dense = layout.attention_layers - sliding - chunked
    groups = []
    if dense:
        groups.append(CacheGroup("full", layers=dense))
    if sliding:
        groups.append(CacheGroup("sliding", window=layout.sliding_window or 1, layers=sliding))
    if chunked:
        groups.append(CacheGroup("sliding", window=layout.chunk_size or 1, layers=chunked))
    if layout.state_layers:
        groups.append(CacheGroup("state", layers=layout.state_layers))
    return tuple(groups) or (CacheGroup("full"),)


def _sglang_geometry(model: ModelLike, *, page_size: int, retention: int | None,
                     mamba_strategy: str | None) -> CacheGeometry:
    layout = model.layout
    groups = _sglang_groups(layout)
    grid = 0
    if layout.state_layers and layout.state_shape is not None:
        strategy = sglang_mamba_strategy(layout, page_size, mamba_strategy)
        if strategy == "extra_buffer":
            grid = sglang_checkpoint_grid(layout, page_size)
            note = (f"page {page_size}; {layout.state_shape.name} states every {grid} tokens of a prefill "
                    "(extra_buffer) and at the divergence point")
        else:
            grid = 1  # the state after the whole prompt only: one tracked at hit + (L - hit)
            note = f"page {page_size}; {layout.state_shape.name} state at the end of each sequence only (no_buffer)"
        rule = f"{SGLANG_VERSION} (page {page_size}; Mamba {strategy}, checkpoint grid {grid})"
    else:
        swa = any(g.kind == "sliding" for g in groups)
        note = f"page {page_size}" + ("; a hit needs the window before it live (SWA pool)" if swa else "")
        rule = f"{SGLANG_VERSION} (page {page_size}" + ("; hybrid SWA pool)" if swa else ")")
    return CacheGeometry(engine="sglang", block=page_size, groups=groups, grid=grid, retention=retention, rule=rule,
                         granularity_note=note, plain_block=page_size,
                         mamba_strategy=strategy if layout.state_layers and layout.state_shape is not None
                         else "extra_buffer")
