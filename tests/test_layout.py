"""Tests of each model's attention layout (advisor/cost/layout.py), the cache geometry it gives
vLLM 0.33.0 and SGLang 0.5.23, and the memory a hybrid's state takes.

The expected figures are those of ../shared/docs/ARCHITECTURES.md §3 (block sizes, worked from
the engines' source and checked there against field reports) and §4 (HBM per request); the
field-report configs below are built from the figures that section gives for them.
"""

from __future__ import annotations

import json
import math
from importlib import resources

import pytest
import yaml

from advisor import cost
from advisor.cli import main
from advisor.cost import layout as L
from advisor.cost import memory as M
from advisor.cost.catalog import model_from_config
from advisor.errors import AdvisorError

GDN_QWEN3_NEXT = {"linear_num_key_heads": 16, "linear_num_value_heads": 32, "linear_key_head_dim": 128,
                  "linear_value_head_dim": 128, "linear_conv_kernel_dim": 4}

# Qwen/Qwen3-Next-80B-A3B-Instruct's config.json fields (ARCHITECTURES §3.1).
QWEN3_NEXT = {
    "architectures": ["Qwen3NextForCausalLM"], "model_type": "qwen3_next", "num_hidden_layers": 48,
    "full_attention_interval": 4, "num_attention_heads": 16, "num_key_value_heads": 2, "head_dim": 256,
    "hidden_size": 2048, "intermediate_size": 5120, "vocab_size": 151936, "num_experts": 512,
    "num_experts_per_tok": 10, "moe_intermediate_size": 512, "shared_expert_intermediate_size": 512,
    "decoder_sparse_step": 1, "mlp_only_layers": [], "tie_word_embeddings": False, "torch_dtype": "bfloat16",
    "max_position_embeddings": 262144, **GDN_QWEN3_NEXT,
}

# nvidia/Nemotron-H-8B-Base-8K's config.json fields (ARCHITECTURES §3.2).
NEMOTRON_H_8B = {
    "architectures": ["NemotronHForCausalLM"], "model_type": "nemotron_h", "num_hidden_layers": 52,
    "hybrid_override_pattern": "M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-",
    "num_attention_heads": 32, "num_key_value_heads": 8, "attention_head_dim": 128, "hidden_size": 4096,
    "intermediate_size": 21504, "mamba_num_heads": 128, "mamba_head_dim": 64, "ssm_state_size": 128,
    "n_groups": 8, "conv_kernel": 4, "chunk_size": 128, "vocab_size": 131072, "max_position_embeddings": 8192,
    "tie_word_embeddings": False,
}


def spec(cfg: dict, name: str = "test/config.json"):
    return model_from_config(cfg, model_id=name, source=name)


def cost_entries() -> list[dict]:
    """The catalog's raw model entries (advisor/data/models.yaml), as the file records them."""
    text = resources.files("advisor").joinpath("data/models.yaml").read_text("utf-8")
    return list(yaml.safe_load(text)["models"])


def nemotron(kv_heads: int, mamba_heads: int, *, pattern: str = "M*M-M*", **extra) -> dict:
    """A Nemotron-H shaped config with the figures of a field report (head dim 128; Mamba2 head
    dim 64, state 128, 8 groups, kernel 4)."""
    return {**NEMOTRON_H_8B, "hybrid_override_pattern": pattern, "num_hidden_layers": len(pattern),
            "num_key_value_heads": kv_heads, "mamba_num_heads": mamba_heads, **extra}


def qwen35(layers: int, kv_heads: int, key_heads: int, value_heads: int, **extra) -> dict:
    """A Qwen3.5-style config (text_config nested, layer_types, float32 mamba_ssm_dtype)."""
    types = (["linear_attention"] * 3 + ["full_attention"]) * (layers // 4)
    text = {"num_hidden_layers": layers, "layer_types": types, "num_attention_heads": 16, "num_key_value_heads": kv_heads,
            "head_dim": 256, "hidden_size": 2560, "intermediate_size": 9216, "vocab_size": 248320,
            "linear_num_key_heads": key_heads, "linear_num_value_heads": value_heads, "linear_key_head_dim": 128,
            "linear_value_head_dim": 128, "linear_conv_kernel_dim": 4, "mamba_ssm_dtype": "float32", **extra}
    return {"architectures": ["Qwen3_5ForConditionalGeneration"], "model_type": "qwen3_5", "text_config": text}


# --- layouts of each family ------------------------------------------------------------------


def test_qwen3_next_layout_from_the_interval_and_from_layer_types():
    model = spec(QWEN3_NEXT)
    lay = model.layout
    assert (lay.num_layers, lay.full_layers, lay.state_layers, lay.count("gdn")) == (48, 12, 36, 36)
    assert [i for i, k in enumerate(lay.attention) if k == "full"] == list(range(3, 48, 4))
    shape = lay.state_shape
    assert shape is not None and shape.kind == "gdn"
    assert (shape.heads, shape.head_dim, shape.state_size, shape.groups, shape.conv_kernel) == (32, 128, 128, 16, 4)
    # GDN conv (2·16·128 + 32·128)·3 = 24,576 elements, recurrent 32·128·128 = 524,288 (§3.1)
    tensors = L.state_tensors(lay, "vllm")
    assert [(t.name, t.elements, t.dtype) for t in tensors] == [("conv", 24576, "bfloat16"),
                                                                ("recurrent", 524288, "bfloat16")]
    typed = dict(QWEN3_NEXT, layer_types=["full_attention" if (i + 1) % 4 == 0 else "linear_attention" for i in range(48)])
    del typed["full_attention_interval"]
    assert spec(typed).layout == lay
    assert lay.counts() == {"full_attention": 12, "gdn": 36}
    assert lay.describe() == "12 full attention + 36 Gated DeltaNet of 48 layers"
    # every layer still counts in the catalog's all-layer figure; the engines allocate 12
    assert cost.kv_bytes_per_token(model) == 98_304 and M.attention_kv_bytes_per_token(model) == 24_576


def test_qwen35_layout_nested_in_text_config_with_its_ssm_dtype():
    model = spec(qwen35(32, 4, 16, 32))
    lay = model.layout
    assert (lay.full_layers, lay.count("gdn"), lay.family) == (8, 24, "qwen3_5")
    assert L.state_dtypes(lay, "vllm") == ("bfloat16", "float32")  # the config's mamba_ssm_dtype
    assert L.state_dtypes(lay, "sglang") == ("bfloat16", "float32")
    # without it vLLM keeps the model dtype, SGLang float32
    plain = spec(qwen35(32, 4, 16, 32, mamba_ssm_dtype=None)).layout
    assert L.state_dtypes(plain, "vllm") == ("bfloat16", "bfloat16")
    assert L.state_dtypes(plain, "sglang") == ("bfloat16", "float32")


def test_nemotron_h_layout_from_the_pattern_and_from_layers_block_type():
    model = spec(NEMOTRON_H_8B)
    lay = model.layout
    assert (lay.count("mamba2"), lay.full_layers, lay.counts()["no_cache"]) == (24, 4, 24)
    assert lay.describe() == "4 full attention + 24 Mamba2 of 52 layers"
    assert model.head_dim == 128  # attention_head_dim
    shape = lay.state_shape
    assert shape is not None and (shape.heads, shape.head_dim, shape.state_size, shape.groups, shape.chunk_size) == (
        128, 64, 128, 8, 128)
    # conv (128·64 + 2·8·128)·3 = 30,720 elements in bf16; SSM 128·64·128 = 1,048,576 in float32
    assert [(t.elements, t.dtype) for t in L.state_tensors(lay, "vllm")] == [(30720, "bfloat16"), (1048576, "float32")]
    names = {"M": "mamba", "*": "attention", "-": "mlp", "E": "moe"}
    listed = dict(NEMOTRON_H_8B, layers_block_type=[names[c] for c in NEMOTRON_H_8B["hybrid_override_pattern"]])
    del listed["hybrid_override_pattern"]
    assert spec(listed).layout.attention == lay.attention and spec(listed).layout.state == lay.state
    # a config naming mamba_ssm_cache_dtype keeps it in vLLM
    assert L.state_dtypes(spec({**NEMOTRON_H_8B, "mamba_ssm_cache_dtype": "bfloat16"}).layout, "vllm") == (
        "bfloat16", "bfloat16")


def test_granite_4_h_layout_in_both_layer_type_spellings():
    # granite-4.0-h-tiny's fields: 40 layers, 4 of attention; Mamba2 48 heads of 64, state 128, 1 group
    types = ["mamba"] * 5 + ["attention"] + ["mamba"] * 9 + ["attention"] + ["mamba"] * 9 + ["attention"] \
        + ["mamba"] * 9 + ["attention"] + ["mamba"] * 4
    cfg = {"model_type": "granitemoehybrid", "num_hidden_layers": 40, "num_attention_heads": 12,
           "num_key_value_heads": 4, "hidden_size": 1536, "vocab_size": 100352, "layer_types": types,
           "mamba_n_heads": 48, "mamba_d_head": 64, "mamba_d_state": 128, "mamba_n_groups": 1, "mamba_d_conv": 4,
           "mamba_expand": 2, "mamba_chunk_size": 256, "num_local_experts": 64, "num_experts_per_tok": 6,
           "intermediate_size": 512, "shared_intermediate_size": 1024, "tie_word_embeddings": True}
    lay = spec(cfg).layout
    assert (lay.full_layers, lay.count("mamba2")) == (4, 36)
    assert [i for i, k in enumerate(lay.attention) if k] == [5, 15, 25, 35]
    assert lay.state_shape is not None and lay.state_shape.heads * lay.state_shape.head_dim == 2 * 1536
    new = {**cfg, "layer_types": ["linear_attention" if t == "mamba" else "full_attention" for t in types]}
    assert spec(new).layout.state == lay.state
    # "auto" head dim: mamba_expand · hidden / heads
    assert spec({**cfg, "mamba_d_head": "auto"}).layout.state_shape == lay.state_shape
    # Granite's SGLang cache params never read the config: float32 SSM
    assert L.state_dtypes(spec({**cfg, "mamba_ssm_dtype": "bfloat16"}).layout, "sglang") == ("bfloat16", "float32")


def test_falcon_h1_runs_attention_and_mamba2_on_every_layer():
    cfg = {"model_type": "falcon_h1", "num_hidden_layers": 44, "num_attention_heads": 12, "num_key_value_heads": 2,
           "head_dim": 128, "hidden_size": 3072, "vocab_size": 130048, "mamba_n_heads": 24, "mamba_d_head": 128,
           "mamba_d_ssm": 3072, "mamba_d_state": 256, "mamba_n_groups": 1, "mamba_d_conv": 4, "mamba_chunk_size": 128}
    lay = spec(cfg).layout
    assert (lay.full_layers, lay.count("mamba2"), lay.attention_layers, lay.state_layers) == (44, 44, 44, 44)
    assert lay.describe() == "44 full attention + 44 Mamba2 of 44 layers"
    with pytest.raises(AdvisorError, match=r"heads × head dim \(24 × 64\) differ from its intermediate size \(3,072\)"):
        spec({**cfg, "mamba_d_head": 64})


def test_jamba_mamba1_between_attention_layers():
    cfg = {"model_type": "jamba", "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
           "hidden_size": 4096, "vocab_size": 65536, "attn_layer_period": 8, "attn_layer_offset": 4,
           "mamba_d_state": 16, "mamba_d_conv": 4, "mamba_expand": 2}
    lay = spec(cfg).layout
    assert [i for i, k in enumerate(lay.attention) if k] == [4, 12, 20, 28]
    assert lay.count("mamba1") == 28
    # Mamba1: conv 8192 channels × 3, SSM 8192 × 16 (no speculative columns)
    tensors = L.state_tensors(lay, "vllm", num_speculative=2)
    assert [(t.name, t.elements) for t in tensors] == [("conv", 8192 * 3), ("ssm", 8192 * 16)]


def test_llama4_chunked_layers_every_fourth_layer_global():
    scout = cost.resolve_model("llama-4-scout")
    lay = scout.layout
    assert (lay.chunked_layers, lay.full_layers, lay.chunk_size) == (36, 12, 8192)
    assert [i for i, k in enumerate(lay.attention) if k == "full"] == list(range(3, 48, 4))
    # the multimodal config keeps the text model under text_config; no_rope_layers given
    flags = [0 if (i + 1) % 4 == 0 else 1 for i in range(48)]
    text = {"num_hidden_layers": 48, "num_attention_heads": 40, "num_key_value_heads": 8, "head_dim": 128,
            "hidden_size": 5120, "vocab_size": 202048, "attention_chunk_size": 8192, "num_local_experts": 16,
            "num_experts_per_tok": 1, "intermediate_size": 8192, "intermediate_size_mlp": 16384,
            "no_rope_layers": flags}
    nested = spec({"model_type": "llama4", "text_config": text})
    assert nested.layout.attention == lay.attention
    typed = spec({"model_type": "llama4", "text_config": {**text, "no_rope_layers": [],
                  "layer_types": ["chunked_attention" if f else "full_attention" for f in flags]}})
    assert typed.layout.attention == lay.attention
    # no chunk size (Llama Guard 4 ships null): plain full attention
    assert spec({"model_type": "llama4", "text_config": {**text, "attention_chunk_size": None}}).layout.is_full_attention


def test_gemma3_sliding_pattern_default_and_layer_types():
    gemma = cost.resolve_model("gemma-3-27b")
    lay = gemma.layout
    assert (lay.sliding_layers, lay.full_layers, lay.sliding_window) == (52, 10, 1024)
    assert [i for i, k in enumerate(lay.attention) if k == "full"] == list(range(5, 62, 6))
    text = {"num_hidden_layers": 62, "num_attention_heads": 32, "num_key_value_heads": 16, "head_dim": 128,
            "hidden_size": 5376, "vocab_size": 262208, "sliding_window": 1024}
    # a Gemma 3 config without the pattern has transformers' default of 6
    assert spec({"model_type": "gemma3", "text_config": text}).layout.attention == lay.attention
    types = ["full_attention" if (i + 1) % 6 == 0 else "sliding_attention" for i in range(62)]
    assert spec({"model_type": "gemma3", "text_config": {**text, "layer_types": types}}).layout.attention == lay.attention
    assert gemma.num_sliding_layers == 52


def test_deepseek_v32_mla_with_indexer_keys():
    ds = cost.resolve_model("deepseek-v3.2")
    lay = ds.layout
    assert lay.mla and lay.indexer is not None and lay.is_full_attention
    assert (lay.indexer.head_dim, lay.indexer.heads, lay.indexer.topk, lay.indexer.key_bytes_per_token) == (128, 64, 2048, 132)
    assert cost.kv_bytes_per_token(ds) == 70_272  # the latent, the catalog's figure
    assert M.attention_kv_bytes_per_token(ds) == 61 * (576 * 2 + 132) == 78_324
    # fp8: the 656-byte "FP8 with scale" row of the sparse MLA backends
    assert M.attention_kv_bytes_per_token(ds, "fp8") == 61 * (656 + 132)
    assert L.attention_bytes_per_layer_token(cost.resolve_model("deepseek-v3"), "fp8") == 576


@pytest.mark.parametrize("model", [m for m in cost.load_catalog().models], ids=lambda m: m.id)
def test_catalog_layouts(model):
    """The catalog's models read as before: full attention, or sliding where the catalog says."""
    lay = model.layout
    assert lay.num_layers == model.num_layers
    assert lay.sliding_layers == model.num_sliding_layers
    assert lay.sliding_flags == model.sliding_layers
    if not (lay.state_layers or lay.chunked_layers):
        assert lay.full_layers + lay.sliding_layers == model.num_layers
        indexer = lay.attention_layers * lay.indexer.key_bytes_per_token if lay.indexer else 0
        assert M.attention_kv_bytes_per_token(model) == cost.kv_bytes_per_token(model) + indexer


def test_the_original_catalog_is_full_attention_or_sliding():
    kinds = {m.id: m.layout.describe() for m in cost.load_catalog().models}
    assert kinds["meta-llama/Llama-3.1-8B"] == "32 full attention of 32 layers"
    assert kinds["openai/gpt-oss-120b"] == "18 full attention + 18 sliding-window of 36 layers (window 128)"
    assert kinds["google/gemma-2-9b"] == "21 full attention + 21 sliding-window of 42 layers (window 4,096)"
    assert kinds["mistralai/Mistral-7B-v0.1"] == "32 sliding-window of 32 layers (window 4,096)"
    assert kinds["deepseek-ai/DeepSeek-V3"] == "61 full attention of 61 layers (MLA)"


# --- vLLM block sizes (ARCHITECTURES §3) ------------------------------------------------------


def test_qwen3_next_block_544_triton_576_flashinfer():
    model = spec(QWEN3_NEXT)
    triton = L.vllm_block(model, gpu="a100-sxm-80gb")
    assert (triton.block, triton.attention_bytes_per_token, triton.state_bytes) == (544, 2048, 1_097_728)
    assert triton.prefill is not None and triton.prefill.backend == "triton"
    assert triton.page_bytes == 1_114_112
    hopper = L.vllm_block(model, gpu=cost.resolve_gpu("h100"))
    assert (hopper.block, hopper.alignment, hopper.page_bytes) == (576, 64, 1_179_648)
    # no GPU given: Hopper assumed, and said so
    unknown = L.cache_geometry(model, "vllm")
    assert unknown.block == 576 and "assumed Hopper" in unknown.granularity_note
    # Blackwell: FlashInfer with a CUDA 13 runtime (assumed when not given), Triton on CUDA 12
    assert L.vllm_block(model, gpu="b200-hgx").block == 576
    assert L.vllm_block(model, gpu="b200-hgx", cuda_major=12).block == 544


def test_nemotron_h_8b_block_1040_on_every_gpu():
    model = spec(NEMOTRON_H_8B)
    for gpu in (None, "a100-sxm-80gb", "h100-sxm-80gb", "b200-hgx"):
        vb = L.vllm_block(model, gpu=gpu)
        assert (vb.block, vb.state_bytes, vb.page_bytes) == (1040, 4_255_744, 4_259_840)


@pytest.mark.parametrize("name, cfg, kv_dtype, gpu, spec_tokens, block", [
    # vllm#40696 (0.19.1): Qwen3.5-4B, 4 KV heads × 256, 16/32 GDN heads, fp32 SSM -> 528
    ("Qwen3.5-4B", qwen35(32, 4, 16, 32), "bf16", "a100-sxm-80gb", 0, 528),
    # #53749: Nemotron-3-Nano-30B, 2 KV heads, Mamba2 64 × 64 × 128 fp32 -> 2096
    ("Nemotron-3-Nano-30B", nemotron(2, 64), "bf16", "h100-sxm-80gb", 0, 2096),
    # #48401: Nemotron-3-Super-120B with fp8 KV (512 B a token a layer) -> 8320
    ("Nemotron-3-Super-120B", nemotron(2, 128), "fp8", "b200-hgx", 0, 8320),
    # #45238: Qwen3.8-27B, fp8 KV, MTP k = 3 (conv length 3 + 3) -> 1600
    ("Qwen3.8-27B", qwen35(64, 4, 16, 48), "fp8", "h100-sxm-80gb", 3, 1600),
])
def test_field_report_block_sizes(name, cfg, kv_dtype, gpu, spec_tokens, block):
    model = spec(cfg, name)
    geo = L.cache_geometry(model, "vllm", gpu=gpu, kv_dtype=kv_dtype, num_speculative=spec_tokens)
    assert geo.block == block
    assert geo.rule.startswith("vLLM 0.33.0")
    assert f"hybrid block {block} tokens" in geo.granularity_note


def test_field_report_states_in_bytes():
    # the state figures §3.1 gives for the reports: 2,146,304 / 2,134,016 / 4,255,744 B
    assert L.state_bytes_per_layer(spec(qwen35(32, 4, 16, 32)).layout, "vllm") == 2_146_304
    assert L.state_bytes_per_layer(spec(nemotron(2, 64)).layout, "vllm") == 2_134_016
    assert L.state_bytes_per_layer(spec(nemotron(2, 128)).layout, "vllm") == 4_255_744
    # Qwen3.8-27B with MTP k = 3: conv 10,240 channels × 6 in bf16 + 48·128·128 fp32
    assert L.state_bytes_per_layer(spec(qwen35(64, 4, 16, 48)).layout, "vllm", num_speculative=3) == (
        10240 * 6 * 2 + 48 * 128 * 128 * 4)


def test_block_rules_without_state_layers_and_user_block_size():
    llama = cost.resolve_model("llama-3.1-8b")
    assert L.cache_geometry(llama, "vllm").block == 16
    assert L.cache_geometry(llama, "vllm", block_size=32).block == 32
    assert L.cache_geometry(cost.resolve_model("deepseek-v3"), "vllm").block == 64  # FlashMLA
    assert L.cache_geometry(cost.resolve_model("deepseek-v3.2"), "vllm").block == 64  # FlashMLA sparse
    qn = spec(QWEN3_NEXT)
    # a larger --block-size is kept (and sets the alignment), a smaller one gives way
    assert L.cache_geometry(qn, "vllm", gpu="a100", block_size=1024).block == 1024
    assert L.cache_geometry(qn, "vllm", gpu="a100", block_size=32).block == 32 * math.ceil(1_097_728 / (32 * 2048))


def test_tensor_parallel_divides_heads_and_pads_groups():
    qn = spec(QWEN3_NEXT)
    # TP 2: 1 KV head a GPU (1,024 B a token), half the GDN state (548,864 B)
    assert L.state_bytes_per_layer(qn.layout, "vllm", tp=2) == 1_097_728 // 2
    assert L.vllm_block(qn, gpu="a100", tp=2).block == 16 * math.ceil(548_864 / (16 * 1024))
    # TP 16 on Nemotron-H: 8 groups padded to 16; conv (8192 + 2·16·128)/16 · 3, SSM 8·64·128 fp32
    nh = spec(NEMOTRON_H_8B)
    assert L.state_bytes_per_layer(nh.layout, "vllm", tp=16) == (12288 // 16) * 3 * 2 + 8 * 64 * 128 * 4
    with pytest.raises(AdvisorError, match="--tp 64 does not divide the 32 Gated DeltaNet heads"):
        L.state_bytes_per_layer(qn.layout, "vllm", tp=64, model=qn.id)


# --- geometry per engine ----------------------------------------------------------------------


def kinds(geo):
    return [(g.kind, g.window, g.layers) for g in geo.groups]


def test_geometry_of_full_attention_models_is_dense_everywhere():
    llama = cost.resolve_model("llama-3.1-8b")
    for engine, block in (("vllm", 16), ("sglang", 1), ("none", 1)):
        geo = L.cache_geometry(llama, engine)
        assert geo.is_dense and geo.block == block and geo.engine == engine
    assert L.cache_geometry(llama, "sglang", page_size=64).block == 64
    assert L.cache_geometry(llama, "none", page_size=16).block == 16
    assert L.cache_geometry(llama, "sglang").rule == "SGLang 0.5.23 (page 1)"


def test_vllm_groups_of_each_kind():
    gpt = cost.resolve_model("gpt-oss-120b")
    assert kinds(L.cache_geometry(gpt, "vllm")) == [("full", 0, 18), ("sliding", 128, 18)]
    # an all-sliding model is one group, and retention applies to it too (vLLM 0.33's unitary
    # coordinator passes it to the manager): not dense
    mistral = L.cache_geometry(cost.resolve_model("mistral-7b-v0.1"), "vllm")
    assert kinds(mistral) == [("sliding", 4096, 32)] and not mistral.is_dense
    # chunked local layers cache densely: Llama 4 is full attention to vLLM's prefix cache
    scout = L.cache_geometry(cost.resolve_model("llama-4-scout"), "vllm")
    assert kinds(scout) == [("full", 0, 48)] and scout.block == 16
    assert kinds(L.cache_geometry(spec(QWEN3_NEXT), "vllm")) == [("full", 0, 12), ("state", 0, 36)]
    geo = L.cache_geometry(spec(NEMOTRON_H_8B), "vllm", retention=None)
    assert kinds(geo) == [("full", 0, 4), ("state", 0, 24)] and geo.retention is None
    assert geo.checkpoint_grid == 1040


def test_sglang_groups_follow_its_hybrid_swa_list():
    gpt = L.cache_geometry(cost.resolve_model("gpt-oss-20b"), "sglang")
    assert kinds(gpt) == [("full", 0, 12), ("sliding", 128, 12)]
    # Gemma 2/3: SGLang switches its hybrid SWA pool off; one dense pool
    assert L.cache_geometry(cost.resolve_model("gemma-3-27b"), "sglang").is_dense
    assert L.cache_geometry(cost.resolve_model("gemma-2-9b"), "sglang").is_dense
    # Llama 4: the chunked layers go to the SWA pool with the chunk as window
    scout = L.cache_geometry(cost.resolve_model("llama-4-scout"), "sglang")
    assert kinds(scout) == [("full", 0, 12), ("sliding", 8192, 36)]


@pytest.mark.parametrize("cfg, page, grid", [
    (QWEN3_NEXT, 1, 64), (QWEN3_NEXT, 16, 64), (QWEN3_NEXT, 64, 64), (QWEN3_NEXT, 128, 128),
    (NEMOTRON_H_8B, 1, 128), (NEMOTRON_H_8B, 256, 256),
    ({**NEMOTRON_H_8B, "chunk_size": None}, 1, 256),  # NemotronH's config default
])
def test_sglang_mamba_checkpoint_grid(cfg, page, grid):
    geo = L.cache_geometry(spec(cfg), "sglang", page_size=page)
    assert (geo.block, geo.grid, geo.checkpoint_grid) == (page, grid, grid)
    assert geo.groups[-1].kind == "state"
    assert geo.rule == f"SGLang 0.5.23 (page {page}; Mamba extra_buffer, checkpoint grid {grid})"


def test_sglang_no_buffer_and_bad_pages():
    qn = spec(QWEN3_NEXT)
    geo = L.cache_geometry(qn, "sglang", mamba_strategy="no_buffer")
    assert geo.grid == 1 and "end of each sequence" in geo.granularity_note
    with pytest.raises(AdvisorError, match="no_buffer Mamba strategy needs page size 1"):
        L.cache_geometry(qn, "sglang", page_size=16, mamba_strategy="no_buffer")
    with pytest.raises(AdvisorError, match="Mamba chunk \\(64\\) or the page size \\(48\\) to divide"):
        L.cache_geometry(qn, "sglang", page_size=48)
    with pytest.raises(AdvisorError, match="unknown engine 'tgi'"):
        L.cache_geometry(qn, "tgi")
    with pytest.raises(AdvisorError, match="--block-size must be at least 1"):
        L.cache_geometry(qn, "vllm", block_size=0)


# --- memory (ARCHITECTURES §4) -----------------------------------------------------------------


def test_qwen3_next_memory_table():
    model = spec(QWEN3_NEXT)
    a100, h100 = cost.resolve_gpu("a100"), cost.resolve_gpu("h100")
    assert M.attention_kv_bytes_per_token(model) == 12 * 2048 == 24_576
    assert M.state_bytes_per_sequence(model, "vllm") == 36 * 1_097_728 == 39_518_208
    assert M.state_bytes_per_sequence(model, "sglang") == 36 * 2_146_304 == 77_266_944
    assert M.state_checkpoint_bytes(model, "vllm", gpu=a100) == 36 * 1_114_112 == 40_108_032  # block 544
    assert M.state_checkpoint_bytes(model, "vllm", gpu=h100) == 36 * 1_179_648 == 42_467_328  # block 576
    assert M.sequence_kv_bytes(model, 3000, swa_aware=True) == 73_728_000
    assert math.ceil(3000 / 544) * 544 == 3264
    # a running request: 2 padded pages a layer on Triton, 3 with FlashInfer's checkpoint block;
    # SGLang its own state and two tracking slots
    assert M.state_bytes_per_request(model, "vllm", gpu=a100) == 2 * 40_108_032
    assert M.state_bytes_per_request(model, "vllm", gpu=h100) == 3 * 42_467_328
    assert M.state_bytes_per_request(model, "vllm", gpu=a100, num_speculative=2) == 4 * 36 * (
        L.vllm_block(model, gpu=a100, num_speculative=2).page_bytes)
    assert M.state_bytes_per_request(model, "sglang") == 3 * 77_266_944
    assert M.state_bytes_per_request(model, "sglang", mamba_strategy="no_buffer") == 77_266_944


def test_nemotron_h_memory_table():
    model = spec(NEMOTRON_H_8B)
    assert M.attention_kv_bytes_per_token(model) == 4 * 4096 == 16_384
    assert cost.kv_bytes_per_token(model) == 212_992  # the all-52-layer count
    assert M.state_bytes_per_sequence(model, "vllm") == 24 * 4_255_744 == 102_137_856
    assert M.state_checkpoint_bytes(model, "vllm") == 24 * 4_259_840 == 102_236_160
    assert M.sequence_kv_bytes(model, 3000, swa_aware=True) == 49_152_000
    assert math.ceil(3000 / 1040) * 1040 == 3120
    assert M.state_bytes_per_request(model, "vllm") == 3 * 102_236_160  # Mamba2 keeps a checkpoint block


def test_sliding_and_chunked_caps():
    gpt = cost.resolve_model("gpt-oss-120b")
    assert cost.kv_bytes_per_token(gpt, full_layers_only=True) == 36_864
    assert M.sequence_kv_bytes(gpt, 10_000, swa_aware=True) - 36_864 * 10_000 == 18 * 2048 * 128 == 4_718_592
    scout = cost.resolve_model("llama-4-scout")
    # 12 global layers grow; 36 chunked ones hold at most a chunk
    assert M.sequence_kv_bytes(scout, 20_000, swa_aware=True) == 4096 * (12 * 20_000 + 36 * 8192)
    assert M.sequence_kv_bytes(scout, 20_000) == 48 * 4096 * 20_000


def test_estimate_of_a_hybrid():
    model, h100 = spec(QWEN3_NEXT), cost.resolve_gpu("h100")
    e = cost.estimate_cost(model, h100, tp=4, prefix_tokens=3000, unique_tokens=500, engine="vllm")
    assert e.kv_bytes_per_token_per_gpu == 12 * 2 * 1 * 256 * 2  # one KV head a GPU at TP 4
    assert e.kv_bytes_per_token == 4 * e.kv_bytes_per_token_per_gpu
    assert e.kv_bytes_per_token_all_layers == 4 * 48 * 1024
    assert e.cache_block_tokens == {"vllm": 320, "sglang": 1} and e.cache_checkpoint_grid == {"vllm": 320, "sglang": 64}
    assert e.state_layers == 36 and e.prefix_checkpoints == 1
    page = 320 * 1024
    assert e.state_checkpoint_bytes == 4 * 36 * page
    assert e.state_bytes_per_request == 3 * e.state_checkpoint_bytes
    assert e.prefix_bytes == 3000 * e.kv_bytes_per_token + e.state_checkpoint_bytes
    assert e.prefix_state_bytes == e.state_checkpoint_bytes
    pool, token = e.kv_pool_bytes_per_gpu, e.kv_bytes_per_token_per_gpu  # 12 layers · 1,024 B
    per_request = math.ceil(3500 / 320) * 320 * token + 3 * 36 * page  # whole hybrid blocks + 3 state pages
    assert e.concurrency_unshared == pool // per_request
    resident = 3000 * token + 36 * page
    assert e.concurrency_shared == (pool - resident) // (math.ceil(500 / 320) * 320 * token + 3 * 36 * page)
    assert e.layout == {"layers": 48, "full_attention": 12, "gdn": 36, "mla": False,
                        "state": {"kind": "gdn", "heads": 32, "head_dim": 128, "state_size": 128, "groups": 16,
                                  "conv_kernel": 4}}
    # SGLang: the float32 state, unpadded, on its grid of 64
    s = cost.estimate_cost(model, h100, tp=4, prefix_tokens=3000, unique_tokens=500, engine="sglang")
    assert s.state_bytes_per_sequence == 77_266_944  # across the TP group
    assert s.prefix_bytes == 3000 * s.kv_bytes_per_token + 77_266_944
    # a prefix shorter than the grid keeps no state
    short = cost.estimate_cost(model, h100, tp=4, prefix_tokens=40, engine="sglang")
    assert short.prefix_checkpoints == 0 and short.prefix_bytes == 40 * short.kv_bytes_per_token


def test_estimate_of_full_attention_models_is_unchanged():
    llama, h100 = cost.resolve_model("llama-3.1-8b"), cost.resolve_gpu("h100")
    e = cost.estimate_cost(llama, h100, prefix_tokens=2000, unique_tokens=500, mem_fraction=0.874)
    assert e.kv_bytes_per_token == e.kv_bytes_per_token_all_layers == 131_072
    assert e.prefix_bytes == 262_144_000 and e.state_bytes_per_request == 0 and e.prefix_checkpoints == 0
    assert e.concurrency_unshared == e.kv_pool_tokens // 2500
    assert e.concurrency_shared == (e.kv_pool_tokens - 2000) // 500
    assert e.cache_block_tokens == {"sglang": 1, "vllm": 16} and e.layout["full_attention"] == 32


def run_json(capsys, *args: str) -> dict:
    code = main([*args, "--format", "json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out)


def test_cost_json_and_text_carry_the_layout(capsys):
    data = run_json(capsys, "cost", "--model", "nemotron-h-8b", "--gpu", "h100", "--prefix-tokens", "3000",
                    "--engine", "vllm")
    assert data["kv_bytes_per_token"] == 16_384 and data["kv_bytes_per_token_all_layers"] == 212_992
    assert data["layout"]["mamba2"] == 24 and data["state_layers"] == 24
    assert data["state_bytes_per_sequence"] == 102_137_856
    assert data["state_bytes_per_request"] == 3 * 102_236_160
    assert data["prefix_bytes"] == 3000 * 16_384 + 102_236_160
    assert data["cache_block_tokens"] == {"sglang": 1, "vllm": 1040}
    assert data["cache_rule"]["vllm"].startswith("vLLM 0.33.0")
    assert main(["cost", "--model", "nemotron-h-8b", "--gpu", "h100"]) == 0
    out = capsys.readouterr().out
    assert "4 full attention + 24 Mamba2 of 52 layers" in out and "state per running request" in out
    # a full-attention model's text keeps its rows
    assert main(["cost", "--model", "llama-3.1-8b", "--gpu", "h100"]) == 0
    assert "layer layout" not in capsys.readouterr().out


def test_new_catalog_entries_resolve_and_count():
    for alias, model_id in (("qwen3-next-80b", "Qwen/Qwen3-Next-80B-A3B-Thinking"),
                            ("nemotron-h-8b", "nvidia/Nemotron-H-8B-Base-8K"),
                            ("llama-4-scout", "meta-llama/Llama-4-Scout-17B-16E-Instruct"),
                            ("llama-4-maverick", "meta-llama/Llama-4-Maverick-17B-128E-Instruct"),
                            ("gemma-3-27b", "google/gemma-3-27b-it"), ("deepseek-v3.2", "deepseek-ai/DeepSeek-V3.2-Exp"),
                            ("granite-4.0-h-tiny", "ibm-granite/granite-4.0-h-tiny"),
                            ("jamba-v0.1", "ai21labs/Jamba-v0.1")):
        assert cost.resolve_model(alias).id == model_id
    # the derived counts agree with the vendors' rounded figures (text models, no MTP layer)
    for alias, total, active in (("qwen3-next-80b", 80e9, 3e9), ("nemotron-h-8b", 8e9, 8e9),
                                 ("llama-4-maverick", 400e9, 17e9), ("llama-4-scout", 109e9, 17e9),
                                 ("gemma-3-27b", 27e9, 27e9), ("deepseek-v3.2", 671e9, 37e9),
                                 ("jamba-v0.1", 52e9, 12e9)):
        model = cost.resolve_model(alias)
        assert model.params_total == pytest.approx(total, rel=0.03), alias
        assert model.params_active == pytest.approx(active, rel=0.3), alias
    # Granite 4.0-H-Tiny: IBM's "7B total, 1B active". The total agrees within 3% (6.94B); the
    # derived active count is 1.47B (1.31B without the tied embedding), which IBM's "1B" only
    # matches as a rounding to whole billions, outside the 30% the others meet: not fudged.
    granite = cost.resolve_model("granite-4.0-h-tiny")
    assert granite.params_total == pytest.approx(7e9, rel=0.03)
    assert round(granite.params_total / 1e9) == 7 and round(granite.params_active / 1e9) == 1
    assert granite.params_active == pytest.approx(1e9, rel=0.5)
    # the same rounding holds for Jamba's "52B total, 12B active"
    jamba = cost.resolve_model("jamba-v0.1")
    assert round(jamba.params_total / 1e9) == 52 and round(jamba.params_active / 1e9) == 12


# granite-4.0-h-tiny's config.json fields (the catalog entry's corroboration: a 3rd-party fixture
# of the published file; the model card's architecture table gives the same sizes).
GRANITE_TYPES = (["mamba"] * 5 + ["attention"] + ["mamba"] * 9 + ["attention"] + ["mamba"] * 9 + ["attention"]
                 + ["mamba"] * 9 + ["attention"] + ["mamba"] * 4)
GRANITE_H_TINY = {
    "model_type": "granitemoehybrid", "num_hidden_layers": 40, "layer_types": GRANITE_TYPES, "num_attention_heads": 12,
    "num_key_value_heads": 4, "hidden_size": 1536, "intermediate_size": 512, "shared_intermediate_size": 1024,
    "num_local_experts": 64, "num_experts_per_tok": 6, "vocab_size": 100352, "tie_word_embeddings": True,
    "mamba_d_state": 128, "mamba_n_groups": 1, "mamba_n_heads": 48, "mamba_d_head": 64, "mamba_expand": 2,
    "mamba_d_conv": 4, "mamba_chunk_size": 256, "max_position_embeddings": 131072,
}

# transformers' JambaConfig defaults ("a similar configuration to that of the Jamba-v0.1 model").
JAMBA_V01 = {
    "model_type": "jamba", "vocab_size": 65536, "tie_word_embeddings": False, "hidden_size": 4096,
    "intermediate_size": 14336, "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
    "max_position_embeddings": 262144, "num_experts_per_tok": 2, "num_experts": 16, "expert_layer_period": 2,
    "expert_layer_offset": 1, "attn_layer_period": 8, "attn_layer_offset": 4, "mamba_d_state": 16, "mamba_d_conv": 4,
    "mamba_expand": 2, "mamba_dt_rank": "auto",
}


def test_granite_4_h_tiny_and_jamba_catalog_entries():
    entries = {e["id"]: e for e in cost_entries()}
    granite, jamba = cost.resolve_model("granite-4.0-h-tiny"), cost.resolve_model("jamba-v0.1")
    g_entry, j_entry = entries[granite.id], entries[jamba.id]

    # layer kinds: Granite 4 full attention (layers 5, 15, 25, 35) + 36 Mamba2; Jamba attention
    # where i % 8 == 4 (4, 12, 20, 28) + 28 Mamba1
    g, j = granite.layout, jamba.layout
    assert [i for i, k in enumerate(g.attention) if k] == [5, 15, 25, 35]
    assert g.counts() == {"full_attention": 4, "mamba2": 36} and g.state_shape is not None
    assert g.describe() == "4 full attention + 36 Mamba2 of 40 layers"
    assert [i for i, k in enumerate(j.attention) if k] == [4, 12, 20, 28]
    assert j.counts() == {"full_attention": 4, "mamba1": 28} and j.state_shape is not None
    assert j.describe() == "4 full attention + 28 Mamba1 of 32 layers"

    # KV per token: 2 (K and V) · KV heads · head dim · 2 B a layer; the engines allocate the
    # attention layers', the catalog's kv_bytes_per_token_* count every layer (its convention)
    g_layer, j_layer = 2 * 4 * 128 * 2, 2 * 8 * 128 * 2  # 2,048 and 4,096 B
    assert M.attention_kv_bytes_per_token(granite) == 4 * g_layer == 8192 == g_entry["kv_bytes_per_token_attention_layers_bf16"]
    assert M.attention_kv_bytes_per_token(jamba) == 4 * j_layer == 16384 == j_entry["kv_bytes_per_token_attention_layers_bf16"]
    assert cost.kv_bytes_per_token(granite) == 40 * g_layer == 81_920 == g_entry["kv_bytes_per_token_bf16"]
    assert cost.kv_bytes_per_token(jamba) == 32 * j_layer == 131_072 == j_entry["kv_bytes_per_token_bf16"]
    assert (g_entry["kv_bytes_per_token_fp8"], j_entry["kv_bytes_per_token_fp8"]) == (40_960, 65_536)

    # Mamba2 state a layer: conv (d_conv − 1)·(heads·head_dim + 2·groups·d_state) elements in the
    # model dtype (bf16), SSM heads·head_dim·d_state elements: bf16 in vLLM (Granite has no SSM
    # dtype hook), float32 in SGLang (Granite's cache params never read the config)
    g_conv, g_ssm = (4 - 1) * (48 * 64 + 2 * 1 * 128), 48 * 64 * 128  # 9,984 and 393,216
    assert [(t.name, t.elements) for t in L.state_tensors(g, "vllm")] == [("conv", g_conv), ("ssm", g_ssm)]
    g_vllm, g_sglang = g_conv * 2 + g_ssm * 2, g_conv * 2 + g_ssm * 4  # 806,400 and 1,592,832 B
    assert M.state_bytes_per_sequence(granite, "vllm") == 36 * g_vllm == 29_030_400 == g_entry["kv_state_bytes_per_seq_vllm"]
    assert M.state_bytes_per_sequence(granite, "sglang") == 36 * g_sglang == 57_341_952 == g_entry["kv_state_bytes_per_seq_sglang"]
    # Mamba1 state a layer (inner = mamba_expand · hidden = 8,192): conv (d_conv − 1)·inner, SSM
    # inner·d_state, both bf16 in vLLM (no hook)
    j_conv, j_ssm = (4 - 1) * 8192, 8192 * 16  # 24,576 and 131,072
    assert [(t.name, t.elements) for t in L.state_tensors(j, "vllm")] == [("conv", j_conv), ("ssm", j_ssm)]
    j_vllm = (j_conv + j_ssm) * 2  # 311,296 B
    assert M.state_bytes_per_sequence(jamba, "vllm") == 28 * j_vllm == 8_716_288 == j_entry["kv_state_bytes_per_seq_vllm"]

    # vLLM 0.33's hybrid block (module docstring of vllm_block): A = max(kernel block 16, block 16)
    # = 16; Mamba2 and Mamba1 declare no prefill checkpoint alignment, so lcm(16, 1) = 16 on every GPU;
    # block = A · ceil(state / (A · attn_tok)).
    #   Granite: 16 · ceil(806,400 / (16 · 2,048)) = 16 · ceil(24.6) = 16 · 25 = 400 tokens
    #            (page 400 · 2,048 = 819,200 B ≥ 806,400 B, 1.6 % padding)
    #   Jamba:   16 · ceil(311,296 / (16 · 4,096)) = 16 · ceil(4.75) = 16 · 5 = 80 tokens
    #            (page 80 · 4,096 = 327,680 B ≥ 311,296 B, 5.3 % padding)
    assert 16 * math.ceil(g_vllm / (16 * g_layer)) == 400 and 16 * math.ceil(j_vllm / (16 * j_layer)) == 80
    for gpu in ("a100", "h100", "b200"):
        geo = L.cache_geometry(granite, "vllm", gpu=cost.resolve_gpu(gpu))
        assert geo.block == 400 and kinds(geo) == [("full", 0, 4), ("state", 0, 36)], gpu
        geo = L.cache_geometry(jamba, "vllm", gpu=cost.resolve_gpu(gpu))
        assert geo.block == 80 and kinds(geo) == [("full", 0, 4), ("state", 0, 28)], gpu
    assert L.vllm_block(granite).page_bytes == 819_200 and L.vllm_block(jamba).page_bytes == 327_680
    # a running request: Mamba2 adds one prefill checkpoint block to the 2 align-mode pages, Mamba1 not
    assert M.state_bytes_per_request(granite, "vllm") == 3 * 36 * 819_200
    assert M.state_bytes_per_request(jamba, "vllm") == 2 * 28 * 327_680
    # SGLang: Granite's 256-token Mamba chunk is its checkpoint grid (extra_buffer); Jamba is not in
    # the extra_buffer list, so no_buffer
    assert L.cache_geometry(granite, "sglang").grid == 256
    assert L.cache_geometry(jamba, "sglang").mamba_strategy == "no_buffer"


def test_granite_and_jamba_parameter_counts():
    """The catalog's params_* by hand from the architectures (transformers modeling_granitemoehybrid
    and modeling_jamba), and estimate_params reading the config fields gives the same."""
    d = 1536
    inner, conv_dim = 48 * 64, 48 * 64 + 2 * 1 * 128  # Mamba2: 3,072 and 3,328
    mamba2 = (d * (inner + conv_dim + 48)  # in_proj to z, x·B·C and dt
              + conv_dim * 4 + conv_dim  # depthwise conv and its bias (mamba_conv_bias)
              + 3 * 48 + inner  # dt_bias, A_log, D per head; the gated RMSNorm
              + inner * d)  # out_proj
    attn = d * 12 * 128 + 2 * d * 4 * 128 + 12 * 128 * d  # q, k, v, o without bias
    shared = 3 * d * 1024  # the shared expert's fused gate/up and down
    routed = 3 * d * 512  # one routed expert
    embed = 100352 * d + d  # tied embedding and LM head, final norm

    def granite(experts_used: int) -> int:
        return embed + 36 * mamba2 + 4 * attn + 40 * (d * 64 + experts_used * routed + shared + 2 * d)

    assert (mamba2, attn) == (14_642_576, 6_291_456)
    assert granite(64) == 6_939_037_248 and granite(6) == 1_465_470_528

    h, inner1, rank, state = 4096, 2 * 4096, math.ceil(4096 / 16), 16  # Mamba1: inner 8,192, dt rank 256
    mamba1 = (h * 2 * inner1  # in_proj to x and gate
              + inner1 * 4 + inner1  # depthwise conv and its bias
              + inner1 * (rank + 2 * state)  # x_proj to dt, B, C
              + rank * inner1 + inner1  # dt_proj with bias
              + inner1 * state + inner1  # A_log, D
              + inner1 * h  # out_proj
              + rank + 2 * state)  # Jamba's RMSNorms of dt, B and C
    attn1 = 2 * h * 32 * 128 + 2 * h * 8 * 128
    mlp = 3 * h * 14336
    embed1 = 2 * 65536 * h + h  # untied embedding and LM head, final norm

    def jamba(experts_used: int) -> int:
        # 16 MoE layers (odd indices: router + experts), 16 dense MLP layers, two norms a layer
        return embed1 + 28 * mamba1 + 4 * attn1 + 16 * (h * 16 + experts_used * mlp) + 16 * mlp + 32 * 2 * h

    assert (mamba1, attn1) == (105_308_448, 41_943_040)
    assert jamba(16) == 51_570_323_328 and jamba(2) == 12_110_311_296

    for alias, cfg, total, active in (("granite-4.0-h-tiny", GRANITE_H_TINY, granite(64), granite(6)),
                                      ("jamba-v0.1", JAMBA_V01, jamba(16), jamba(2))):
        model = cost.resolve_model(alias)
        assert (model.params_total, model.params_active) == (total, active), alias
        assert (cost.estimate_params(cfg), cost.estimate_params(cfg, active=True)) == (total, active), alias
        # a config.json of the same fields reads the same layout and counts
        from_file = spec(cfg)
        assert from_file.params_source == "estimated from config"
        assert (from_file.params_total, from_file.params_active) == (total, active), alias
        assert from_file.layout == model.layout, alias
    # an explicit dt rank equals "auto"'s ceil(hidden / 16); a dense Granite is its shared MLP alone
    assert cost.estimate_params({**JAMBA_V01, "mamba_dt_rank": 256}) == jamba(16)
    dense = {**GRANITE_H_TINY, "num_local_experts": 0, "num_experts_per_tok": 0}
    assert cost.estimate_params(dense) == embed + 36 * mamba2 + 4 * attn + 40 * (shared + 2 * d)


@pytest.mark.parametrize("entry", [e for e in cost_entries() if any(k.startswith("kv_state_bytes_per_seq_") for k in e)],
                         ids=lambda e: e["id"])
def test_recorded_state_bytes_match_the_code(entry):
    """Every catalog entry's recorded kv_state_bytes_per_seq_<engine> is what the code computes."""
    model = cost.resolve_model(entry["id"])
    for engine in ("vllm", "sglang"):
        if f"kv_state_bytes_per_seq_{engine}" in entry:
            assert M.state_bytes_per_sequence(model, engine) == entry[f"kv_state_bytes_per_seq_{engine}"], engine


# --- bad configs: one line naming the file -----------------------------------------------------


@pytest.mark.parametrize("cfg, message", [
    ({**NEMOTRON_H_8B, "hybrid_override_pattern": "M*M-"},
     "hybrid_override_pattern names 4 layers, num_hidden_layers says 52"),
    ({**NEMOTRON_H_8B, "hybrid_override_pattern": "X" * 52}, "hybrid_override_pattern has layer kinds advisor does not know (X)"),
    ({**NEMOTRON_H_8B, "mamba_num_heads": None}, "config lacks mamba_num_heads, mamba_head_dim (needed for the Mamba2 state)"),
    ({**NEMOTRON_H_8B, "ssm_state_size": 0}, "config field has an unusable value (ssm_state_size: 0; expected a positive integer)"),
    ({**NEMOTRON_H_8B, "mamba_num_heads": 1 << 40, "mamba_head_dim": 1 << 10}, "config gives an absurd Mamba2 state"),
    ({**QWEN3_NEXT, "linear_key_head_dim": None}, "config lacks linear_key_head_dim (needed for the Gated DeltaNet state)"),
    ({**QWEN3_NEXT, "layer_types": ["conv"] * 48}, "layer_types has layer kinds advisor does not know (conv)"),
    ({**QWEN3_NEXT, "layer_types": ["linear_attention"] * 47}, "layer_types names 47 layers, num_hidden_layers says 48"),
    ({**QWEN3_NEXT, "full_attention_interval": "4"}, "full_attention_interval: \"4\"; expected a positive integer"),
    ({**NEMOTRON_H_8B, "mamba_d_head": "wide", "mamba_head_dim": None}, "mamba_d_head: 'wide'"),
    ({**JAMBA_V01, "mamba_dt_rank": "wide"}, 'mamba_dt_rank: \'wide\'; expected a positive integer or "auto"'),
    ({**JAMBA_V01, "mamba_dt_rank": 0}, 'mamba_dt_rank: 0; expected a positive integer or "auto"'),
])
def test_bad_configs_give_one_line_naming_the_file(cfg, message, tmp_path, capsys):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg))
    with pytest.raises(AdvisorError) as info:
        cost.resolve_model(str(path))
    text = str(info.value)
    assert "\n" not in text and text.startswith(str(path)) and message in text
    code = main(["cost", "--model", str(path), "--gpu", "h100"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and message in err
