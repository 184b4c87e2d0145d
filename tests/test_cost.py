"""Tests of the KV/prefill cost model (advisor/cost/) and `advisor cost`.

The expected KV sizes are computed here independently from each catalog entry's config fields
(REFERENCE §4.1) and compared both with advisor's figures and with the catalog's own recorded
`kv_bytes_per_token_*` values; the worked-example figures are those of REFERENCE §6.
"""

from __future__ import annotations

import json
import re
from importlib import resources

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from advisor import cost
from advisor.cli import main
from advisor.errors import AdvisorError

CATALOG = yaml.safe_load(resources.files("advisor").joinpath("data/models.yaml").read_text("utf-8"))
MODEL_ENTRIES = CATALOG["models"]
MODEL_IDS = [e["id"] for e in MODEL_ENTRIES]

CONTRACT = {
    "model", "gpu", "tp", "kv_dtype", "kv_bytes_per_token", "kv_pool_bytes", "kv_pool_tokens",
    "prefix_tokens", "prefix_bytes", "batch", "batch_bytes_shared", "batch_bytes_unshared",
    "prefill_flops_per_hit", "prefill_seconds_saved_per_hit",
}

LLAMA_8B_CONFIG = {
    # The Llama 3.1 8B config.json fields (REFERENCE §8), as a HuggingFace file would carry them.
    "_name_or_path": "meta-llama/Llama-3.1-8B",
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "vocab_size": 128256,
    "tie_word_embeddings": False,
    "max_position_embeddings": 131072,
    "rope_theta": 500000.0,
    "attention_bias": False,
    "torch_dtype": "bfloat16",
}


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def run_json(capsys, *args: str) -> dict:
    code, out, err = run(capsys, *args, "--format", "json")
    assert code == 0, err
    return json.loads(out)


# --- independent reference computations (REFERENCE §4.1), from the raw YAML entry ---------------


def expected_kv_bytes(entry: dict, bytes_per_element: int) -> int:
    layers = entry["num_hidden_layers"]
    if entry.get("kv_lora_rank"):
        return layers * (entry["kv_lora_rank"] + entry["qk_rope_head_dim"]) * bytes_per_element
    head_dim = entry.get("head_dim") or entry["hidden_size"] // entry["num_attention_heads"]
    return 2 * layers * entry["num_key_value_heads"] * head_dim * bytes_per_element


def expected_sliding_layer_count(entry: dict) -> int:
    """From the catalog's prose `sliding_layers` ("all" or "... (N of M) ...")."""
    text = str(entry.get("sliding_layers") or "")
    if not entry.get("sliding_window"):
        return 0
    if text == "all":
        return entry["num_hidden_layers"]
    match = re.search(r"(\d+) of (\d+)", text)
    assert match, f"cannot read sliding layer count from {text!r}"
    assert int(match.group(2)) == entry["num_hidden_layers"]
    return int(match.group(1))


# --- acceptance: the Llama 3.1 8B / H100 example ------------------------------------------------


def test_llama_8b_h100_acceptance(capsys):
    data = run_json(
        capsys, "cost", "--model", "llama-3.1-8b", "--gpu", "h100", "--prefix-tokens", "2000", "--batch", "16"
    )
    assert CONTRACT <= set(data)
    assert data["model"] == "meta-llama/Llama-3.1-8B"
    assert data["gpu"] == "h100-sxm-80gb"
    assert data["tp"] == 1 and data["kv_dtype"] == "bf16" and data["batch"] == 16
    assert data["kv_bytes_per_token"] == 131072
    assert data["prefix_tokens"] == 2000
    assert data["prefix_bytes"] == 262_144_000
    assert data["batch_bytes_unshared"] == 16 * data["prefix_bytes"]
    assert data["batch_bytes_shared"] == 1 * data["prefix_bytes"]
    assert data["kv_pool_tokens"] == data["kv_pool_bytes"] // data["kv_bytes_per_token"]
    assert data["prefix_pool_share"] == pytest.approx(data["prefix_bytes"] / data["kv_pool_bytes"])


def test_json_contract_field_order_and_sorted_output(capsys):
    code, out, _ = run(capsys, "cost", "--model", "llama-3.1-8b", "--gpu", "h100", "--format", "json")
    assert code == 0
    keys = list(json.loads(out))
    assert keys == sorted(keys)  # sort_keys: byte-stable output
    estimate = cost.estimate_cost(cost.resolve_model("llama-3.1-8b"), cost.resolve_gpu("h100"))
    assert list(estimate.to_dict())[: len(cost.CONTRACT_FIELDS)] == list(cost.CONTRACT_FIELDS)
    assert set(cost.CONTRACT_FIELDS) == CONTRACT


# --- KV bytes per token for every catalog model -------------------------------------------------


@pytest.mark.parametrize("entry", MODEL_ENTRIES, ids=MODEL_IDS)
def test_kv_bytes_every_catalog_model(entry):
    model = cost.resolve_model(entry["id"])
    bf16 = expected_kv_bytes(entry, 2)
    fp8 = expected_kv_bytes(entry, 1)
    assert cost.kv_bytes_per_token(model, "bf16") == bf16
    assert cost.kv_bytes_per_token(model, "fp8") == fp8
    # and the catalog's own recorded figures
    assert entry["kv_bytes_per_token_bf16"] == bf16
    assert entry["kv_bytes_per_token_fp8"] == fp8
    assert fp8 * 2 == bf16


@pytest.mark.parametrize("entry", MODEL_ENTRIES, ids=MODEL_IDS)
def test_sliding_window_growth_and_cap(entry):
    model = cost.resolve_model(entry["id"])
    sliding = expected_sliding_layer_count(entry)
    assert model.num_sliding_layers == sliding
    per_layer = expected_kv_bytes(entry, 2) // entry["num_hidden_layers"]
    # Chunked local layers are capped by their chunk as sliding ones by their window: every 4th
    # layer of Llama 4 is global (the catalog's note, transformers' default no-RoPE interval).
    chunked = entry["num_hidden_layers"] * 3 // 4 if entry.get("attention_chunk_size") else 0
    full_only = (entry["num_hidden_layers"] - sliding - chunked) * per_layer
    # A hybrid's state layers hold no per-token KV: the catalog records its attention layers' bytes.
    full_only = entry.get("kv_bytes_per_token_attention_layers_bf16", full_only)
    assert cost.kv_bytes_per_token(model, full_layers_only=True) == full_only
    if "kv_bytes_per_token_full_layers_only" in entry:
        assert entry["kv_bytes_per_token_full_layers_only"] == full_only
    if "kv_swa_cap_bytes_per_seq_bf16" in entry:
        window = entry["sliding_window"]
        tokens = 3 * window
        swa_part = cost.sequence_kv_bytes(model, tokens, swa_aware=True) - full_only * tokens
        assert swa_part == entry["kv_swa_cap_bytes_per_seq_bf16"] == sliding * per_layer * window
    # without an SWA-aware pool every layer holds every token
    assert cost.sequence_kv_bytes(model, 5000) == 5000 * expected_kv_bytes(entry, 2)


@pytest.mark.parametrize("entry", MODEL_ENTRIES, ids=MODEL_IDS)
def test_param_estimate_reproduces_catalog_counts(entry):
    # estimate_params is what a config.json path gets; it must agree with the catalog's counts.
    assert cost.estimate_params(entry) == entry["params_total"]
    if "params_active" in entry:
        assert cost.estimate_params(entry, active=True) == entry["params_active"]


def test_named_models():
    deepseek = cost.resolve_model("deepseek-v3")
    assert deepseek.attention == "mla"
    assert cost.kv_bytes_per_token(deepseek) == 70_272 == 61 * (512 + 64) * 2
    assert cost.kv_bytes_per_token(deepseek, "fp8") == 35_136
    gemma = cost.resolve_model("gemma-2-9b")
    assert gemma.head_dim == 256 != gemma.hidden_size // gemma.num_heads
    assert cost.kv_bytes_per_token(gemma) == 344_064
    gpt_oss = cost.resolve_model("openai/gpt-oss-20b")
    assert gpt_oss.head_dim == 64 and cost.kv_bytes_per_token(gpt_oss) == 49_152
    mistral = cost.resolve_model("mistral-7b-v0.1")
    assert cost.kv_bytes_per_token(mistral, full_layers_only=True) == 0
    # an 8,000-token prefix is capped at the 4,096-token window by an SWA-aware pool
    assert cost.sequence_kv_bytes(mistral, 8000, swa_aware=True) == 4096 * 131072


@pytest.mark.parametrize("name", ["llama-3.1-8b", "LLAMA-3.1-8B", "meta-llama/Llama-3.1-8B", "Llama-3.1-8b"])
def test_model_names_resolve_case_insensitively(name):
    assert cost.resolve_model(name).id == "meta-llama/Llama-3.1-8B"


@pytest.mark.parametrize(
    "name, gpu_id",
    [("h100", "h100-sxm-80gb"), ("H200", "h200-sxm-141gb"), ("a100", "a100-sxm-80gb"),
     ("b200", "b200-hgx"), ("l40s", "l40s"), ("h100-pcie-80gb", "h100-pcie-80gb")],
)
def test_gpu_names(name, gpu_id):
    assert cost.resolve_gpu(name).id == gpu_id


# --- FP8 and tensor parallelism ----------------------------------------------------------------


def test_fp8_halves_via_cli(capsys):
    args = ("cost", "--model", "llama-3.1-8b", "--gpu", "h100", "--prefix-tokens", "2000", "--batch", "16")
    bf16 = run_json(capsys, *args)
    fp8 = run_json(capsys, *args, "--kv-dtype", "fp8")
    assert fp8["kv_dtype"] == "fp8"
    assert fp8["kv_bytes_per_token"] == 65536 == bf16["kv_bytes_per_token"] // 2
    assert fp8["prefix_bytes"] * 2 == bf16["prefix_bytes"]
    # same pool bytes, twice the tokens (to within the floor)
    assert fp8["kv_pool_bytes"] == bf16["kv_pool_bytes"]
    assert abs(fp8["kv_pool_tokens"] - 2 * bf16["kv_pool_tokens"]) <= 1


@pytest.mark.parametrize("tp, per_gpu_heads", [(1, 8), (2, 4), (4, 2), (8, 1), (16, 1), (32, 1)])
def test_tp_divides_kv_heads_with_at_least_one_per_gpu(tp, per_gpu_heads):
    model = cost.resolve_model("llama-3.1-8b")  # 32 query heads, 8 KV heads
    assert cost.kv_heads_per_gpu(model, tp) == per_gpu_heads
    assert cost.kv_bytes_per_token(model, tp=tp) == 2 * 32 * per_gpu_heads * 128 * 2


def test_tp_replication_shows_in_group_bytes(capsys):
    # Llama 3.1 70B has 8 KV heads: at TP 16 each GPU still holds one, so the group holds twice
    # the model's KV figure.
    data = run_json(capsys, "cost", "--model", "llama-3.1-70b", "--gpu", "h100", "--tp", "16", "--prefix-tokens", "100")
    assert data["kv_bytes_per_token_per_gpu"] == 80 * 2 * 1 * 128 * 2
    assert data["kv_bytes_per_token"] == 16 * data["kv_bytes_per_token_per_gpu"] == 2 * 327680
    data = run_json(capsys, "cost", "--model", "llama-3.1-70b", "--gpu", "h100", "--tp", "4", "--prefix-tokens", "100")
    assert data["kv_bytes_per_token"] == 327680 and data["kv_bytes_per_token_per_gpu"] == 81920
    assert data["kv_pool_tokens"] == data["kv_pool_bytes_per_gpu"] // 81920


def test_mla_has_no_tp_divisor():
    deepseek = cost.resolve_model("deepseek-v3")
    assert cost.kv_bytes_per_token(deepseek, tp=8) == 70_272


def test_tp_must_divide_heads(capsys):
    code, out, err = run(capsys, "cost", "--model", "llama-3.1-8b", "--gpu", "h100", "--tp", "3")
    assert code == 2 and out == ""
    assert "--tp 3 does not divide the 32 attention heads" in err


def test_weights_that_do_not_fit_still_give_every_kv_figure(capsys):
    # 70B in BF16 is 131.4 GiB of weights: no pool on one H100, every per-token and prefix
    # figure still given, and the smallest TP named (TP 2 leaves 0.2 GiB a GPU, short of
    # one 131,072-token sequence; TP 4 leaves ~33 GiB a GPU).
    code, out, err = run(capsys, "cost", "--model", "llama-3.1-70b", "--gpu", "h100", "--prefix-tokens", "2000",
                         "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["weights_fit"] is False and data["smallest_tp_that_fits"] == 4
    assert data["kv_bytes_per_token"] == 327_680 and data["prefix_bytes"] == 2000 * 327_680
    assert data["kv_pool_tokens"] == 0 and data["kv_pool_bytes"] == 0
    code, out, err = run(capsys, "cost", "--model", "llama-3.1-70b", "--gpu", "h100", "--format", "markdown")
    assert code == 0 and "use --tp 4 (the fewest GPUs that fit)" in out
    four = run_json(capsys, "cost", "--model", "llama-3.1-70b", "--gpu", "h100", "--tp", "4")
    assert four["weights_fit"] is True and four["smallest_tp_that_fits"] == 4 and four["kv_pool_tokens"] > 131_072
    # 405B needs two nodes' worth; nothing in the catalog is unplaceable on B200s at TP 16.
    assert run_json(capsys, "cost", "--model", "llama-3.1-405b", "--gpu", "h100")["smallest_tp_that_fits"] == 16


def test_gpt_oss_120b_fits_one_h100_as_it_ships(capsys):
    data = run_json(capsys, "cost", "--model", "gpt-oss-120b", "--gpu", "h100")
    assert data["weight_dtype"] == data["weight_dtype_shipped"] == "mxfp4"
    assert data["weights_fit"] is True and data["tp"] == 1
    # Experts at 4.25 bits, the rest BF16: 60.7 GiB (the vLLM post's "63 GB", the model card's
    # "fits a single 80GB GPU").
    assert data["weight_bytes_total"] / cost.GIB == pytest.approx(60.7, abs=0.1)
    bf16 = run_json(capsys, "cost", "--model", "gpt-oss-120b", "--gpu", "h100", "--weight-dtype", "bf16")
    assert bf16["weights_fit"] is False and bf16["smallest_tp_that_fits"] == 4
    code, _, err = run(capsys, "cost", "--model", "llama-3.1-8b", "--gpu", "h100", "--weight-dtype", "mxfp4")
    assert code == 2 and "has no experts" in err


# --- pool sizing and the REFERENCE §6 worked example ---------------------------------------------


def test_sglang_default_fraction_matches_reference():
    h100 = cost.resolve_gpu("h100")
    assert cost.sglang_default_mem_fraction(h100, tp=1) == 0.835
    assert cost.sglang_default_mem_fraction(h100, tp=8) == 0.818


def test_reference_section_6_figures():
    llama, h100 = cost.resolve_model("llama-3.1-8b"), cost.resolve_gpu("h100")
    assert llama.params_nonembedding_active == 6_979_588_096
    assert cost.weight_bytes(llama) == 8_030_261_248 * 2
    # prefill of the 2,000-token prefix: 27.9 + 1.05 ≈ 29.0 TFLOP
    flops = cost.prefill_flops(llama, 2000)
    assert flops == pytest.approx(2 * 6_979_588_096 * 2000 + 2 * 32 * 4096 * 2000**2)
    assert flops / 1e12 == pytest.approx(29.0, abs=0.05)
    # time saved per hit: 29.3 ms at 100 %, ≈42 / 49 / 59 ms at 70 / 60 / 50 % MFU (±0.5 ms)
    for mfu, ms in ((1.0, 29.3), (0.7, 42), (0.6, 49), (0.5, 59)):
        assert cost.prefill_seconds(flops, h100, mfu=mfu) * 1e3 == pytest.approx(ms, abs=0.5)
    # SGLang pool ≈ 51 GiB (fraction 0.835) to ≈ 54 GiB (0.874): ≈ 418k–444k tokens (±1 %)
    late = cost.estimate_cost(llama, h100, prefix_tokens=2000, unique_tokens=500)
    assert late.mem_fraction == 0.835
    assert late.kv_pool_tokens == pytest.approx(418_000, rel=0.01)
    mid = cost.estimate_cost(llama, h100, prefix_tokens=2000, unique_tokens=500, mem_fraction=0.874)
    assert mid.kv_pool_tokens == pytest.approx(444_000, rel=0.01)
    assert mid.kv_pool_bytes / cost.GIB == pytest.approx(54, abs=0.5)
    # concurrency, 2,000 shared + 500 own tokens: ~177 unshared, ~880 shared (±1 %)
    assert mid.concurrency_unshared == pytest.approx(177, rel=0.01)
    assert mid.concurrency_shared == pytest.approx(880, rel=0.01)
    # prefix share of the pool ≈ 0.45 %
    assert mid.prefix_pool_share == pytest.approx(0.0045, abs=0.0002)
    # vLLM at 0.9: ≈ 54.7 GiB, ≈ 448k tokens
    vllm = cost.estimate_cost(llama, h100, engine="vllm")
    assert vllm.mem_fraction == 0.9
    assert vllm.kv_pool_bytes / cost.GIB == pytest.approx(54.7, abs=0.1)
    assert vllm.kv_pool_tokens == pytest.approx(448_000, rel=0.01)


def test_cli_mfu_and_seconds(capsys):
    data = run_json(
        capsys, "cost", "--model", "llama-3.1-8b", "--gpu", "h100", "--prefix-tokens", "2000", "--mfu", "0.7",
        "--unique-tokens", "500", "--mem-fraction", "0.874",
    )
    assert data["prefill_flops_per_hit"] / 1e12 == pytest.approx(29.0, abs=0.05)
    assert data["prefill_seconds_saved_per_hit"] == pytest.approx(0.042, abs=0.0005)
    assert data["mfu"] == 0.7 and data["mem_fraction"] == 0.874 and data["mem_fraction_source"] == "given"
    assert data["concurrency_shared"] > data["concurrency_unshared"]


def test_no_unique_tokens_means_shared_concurrency_unbounded(capsys):
    data = run_json(capsys, "cost", "--model", "llama-3.1-8b", "--gpu", "h100", "--prefix-tokens", "2000")
    assert data["concurrency_shared"] is None
    assert data["concurrency_unshared"] == data["kv_pool_tokens"] // 2000


# --- config.json by path ------------------------------------------------------------------------


def test_config_json_path(tmp_path, capsys):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(LLAMA_8B_CONFIG))
    catalog = run_json(capsys, "cost", "--model", "llama-3.1-8b", "--gpu", "h100", "--prefix-tokens", "2000")
    for arg in (str(path), str(tmp_path)):  # the file or the folder holding it
        data = run_json(capsys, "cost", "--model", arg, "--gpu", "h100", "--prefix-tokens", "2000")
        assert data["model"] == "meta-llama/Llama-3.1-8B"
        assert data["kv_bytes_per_token"] == 131072
        assert data["params_source"] == "estimated from config"
        for key in ("prefix_bytes", "kv_pool_tokens", "prefill_flops_per_hit"):
            assert data[key] == catalog[key]


def test_config_json_variants(tmp_path):
    def spec(name: str, **fields):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps({**LLAMA_8B_CONFIG, **fields}))
        return cost.resolve_model(str(path))

    # no num_key_value_heads: plain multi-head attention
    mha = dict(LLAMA_8B_CONFIG)
    del mha["num_key_value_heads"]
    (tmp_path / "mha.json").write_text(json.dumps(mha))
    model = cost.resolve_model(str(tmp_path / "mha.json"))
    assert model.attention == "mha" and cost.kv_bytes_per_token(model) == 2 * 32 * 32 * 128 * 2
    # MQA
    assert spec("mqa", num_key_value_heads=1).attention == "mqa"
    # explicit head_dim wins over hidden/heads
    assert cost.kv_bytes_per_token(spec("hd", head_dim=64)) == 2 * 32 * 8 * 64 * 2
    # Qwen2 carries a sliding_window it does not use
    qwen = spec("qwen", model_type="qwen2", sliding_window=131072, use_sliding_window=False)
    assert qwen.sliding_window is None and qwen.num_sliding_layers == 0
    # Mistral-style: the window applies to every layer
    mistral = spec("mistral", model_type="mistral", sliding_window=4096)
    assert mistral.num_sliding_layers == 32
    # layer_types names each layer (gpt-oss style)
    types = ["sliding_attention", "full_attention"] * 16
    assert spec("types", sliding_window=128, layer_types=types).num_sliding_layers == 16
    # MLA fields
    mla = spec("mla", kv_lora_rank=512, qk_rope_head_dim=64, qk_nope_head_dim=128, v_head_dim=128)
    assert mla.attention == "mla" and cost.kv_bytes_per_token(mla) == 32 * (512 + 64) * 2


@pytest.mark.parametrize(
    "content, message",
    [("{not json", "not a readable JSON config"), ("[1, 2]", "must hold a JSON object"),
     (json.dumps({"model_type": "llama", "hidden_size": 4096}), "config lacks num_hidden_layers")],
)
def test_bad_config_json(tmp_path, capsys, content, message):
    path = tmp_path / "config.json"
    path.write_text(content)
    code, out, err = run(capsys, "cost", "--model", str(path), "--gpu", "h100")
    assert code == 2 and out == ""
    assert err.startswith("advisor: error: ") and message in err
    assert err.count("\n") == 1


# --- errors --------------------------------------------------------------------------------------


def test_unknown_model_exit_2_one_error(capsys):
    code, out, err = run(capsys, "cost", "--model", "llama-9", "--gpu", "h100")
    assert code == 2 and out == ""
    assert err.startswith("advisor: error: unknown model 'llama-9'; known: ")
    assert err.count("\n") == 1 and err.endswith("\n")  # one line, naming what is known
    for name in ("llama-3.1-8b", "deepseek-v3", "gemma-2-9b", "config.json"):
        assert name in err


def test_unknown_model_message_is_one_line():
    with pytest.raises(AdvisorError) as info:
        cost.resolve_model("llama-9")
    assert "\n" not in str(info.value)


def test_unknown_gpu_and_bad_choices(capsys):
    code, _, err = run(capsys, "cost", "--model", "llama-3.1-8b", "--gpu", "v100")
    assert code == 2 and "unknown GPU 'v100'" in err and "h100" in err
    code, _, err = run(capsys, "cost", "--model", "llama-3.1-8b", "--gpu", "h100", "--kv-dtype", "int4")
    assert code == 2 and "--kv-dtype" in err
    code, _, err = run(capsys, "cost", "--model", "llama-3.1-8b", "--gpu", "h100", "--engine", "tgi")
    assert code == 2 and "--engine" in err
    code, _, err = run(capsys, "cost", "--model", "llama-3.1-8b", "--gpu", "h100", "--mfu", "1.5")
    assert code == 2 and "--mfu" in err
    code, _, err = run(capsys, "cost", "--gpu", "h100")
    assert code == 2 and "--model" in err


# --- other renderings ----------------------------------------------------------------------------


def test_text_and_markdown(capsys):
    args = ("cost", "--model", "gemma-2-9b", "--gpu", "h100", "--prefix-tokens", "8000", "--unique-tokens", "100")
    code, out, _ = run(capsys, *args)
    assert code == 0 and "344,064 B" in out and "SWA-aware" in out
    code, out, _ = run(capsys, *args, "--format", "markdown")
    assert code == 0
    assert out.startswith("| quantity | value | how |")
    assert "| KV bytes per token | 344,064 B" in out and "Model source:" in out


def test_list_catalog(capsys):
    code, out, _ = run(capsys, "cost", "--list")
    assert code == 0 and "llama-3.1-8b" in out and "h100" in out
    code, out, _ = run(capsys, "cost", "--list", "--format", "json")
    data = json.loads(out)
    assert [m["id"] for m in data["models"]] == MODEL_IDS
    assert {g["id"] for g in data["gpus"]} == {g["id"] for g in CATALOG["gpus"]}
    assert all(m["source"] for m in data["models"]) and all(g["source"] for g in data["gpus"])


def test_catalog_keeps_sources():
    for entry in CATALOG["models"] + CATALOG["gpus"]:
        assert entry.get("source"), entry["id"]


# --- properties ----------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    name=st.sampled_from(["llama-3.1-8b", "qwen2.5-7b", "mistral-7b-v0.1", "gpt-oss-20b", "gemma-2-9b"]),
    prefix=st.integers(min_value=0, max_value=200_000),
    batch=st.integers(min_value=1, max_value=512),
    unique=st.integers(min_value=0, max_value=8192),
    kv_dtype=st.sampled_from(["bf16", "fp8"]),
)
def test_estimate_invariants(name, prefix, batch, unique, kv_dtype):
    e = cost.estimate_cost(
        cost.resolve_model(name), cost.resolve_gpu("h200"), prefix_tokens=prefix, batch=batch,
        unique_tokens=unique, kv_dtype=kv_dtype,
    )
    assert e.prefix_bytes == prefix * e.kv_bytes_per_token
    assert e.batch_bytes_unshared == batch * e.batch_bytes_shared == batch * e.prefix_bytes
    assert e.prefix_bytes_swa_aware <= e.prefix_bytes
    if e.concurrency_shared is not None:
        assert e.concurrency_shared >= e.concurrency_unshared
    assert e.prefill_flops_per_hit >= 2 * e.params_nonembedding_active * prefix


def test_pool_capacity_helper_matches_estimate():
    llama, h100 = cost.resolve_model("llama-3.1-8b"), cost.resolve_gpu("h100")
    assert cost.pool_capacity_tokens("llama-3.1-8b", "h100") == cost.estimate_cost(llama, h100).kv_pool_tokens
    assert cost.pool_capacity_tokens(llama, h100, kv_dtype="fp8", engine="vllm") == (
        cost.estimate_cost(llama, h100, kv_dtype="fp8", engine="vllm").kv_pool_tokens
    )


@pytest.mark.parametrize(
    "args, message",
    [(("--prefix-tokens", "-1"), "--prefix-tokens"), (("--batch", "0"), "--batch"),
     (("--mem-fraction", "1.2"), "memory fraction"), (("--weight-dtype", "int3"), "weight dtype"),
     (("--tp", "0"), "--tp must be at least 1")],
)
def test_bad_numbers_are_usage_errors(capsys, args, message):
    code, out, err = run(capsys, "cost", "--model", "llama-3.1-8b", "--gpu", "h100", *args)
    assert code == 2 and out == "" and message in err


def test_fp8_weights_leave_a_bigger_pool():
    llama, h100 = cost.resolve_model("llama-3.1-8b"), cost.resolve_gpu("h100")
    bf16 = cost.estimate_cost(llama, h100)
    fp8 = cost.estimate_cost(llama, h100, weight_dtype="fp8")
    assert fp8.kv_pool_bytes - bf16.kv_pool_bytes == cost.weight_bytes(llama) // 2
