"""PC301 with `model` configured: an engine's minimum is the smallest prefix it can reuse on
that model (vLLM's hybrid block, SGLang's Mamba checkpoint grid; shared/docs/ARCHITECTURES.md
sections 2.3 and 3), and a bad model is a one-line config error naming the file."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from advisor.errors import AdvisorError
from advisor.lint import config, engine, targets
from advisor.rules import REGISTRY

SHORT = "Answer briefly.\nQuestion: {{ question }}\n"
# 351 llama3 tokens of static text: past every full-attention block and SGLang grid,
# short of the hybrid blocks of vLLM.
POLICY = (
    "You are the Corvina support assistant. Follow the support policy exactly, answer in short numbered steps, "
    "cite the policy section you used, never promise refunds the policy does not allow, and escalate billing "
    "disputes above one hundred dollars to a human agent with a one-line summary of the case.\n"
) * 6 + "Question: {{ question }}\n"

NEMOTRON_H_8B = {
    "model_type": "nemotron_h", "architectures": ["NemotronHForCausalLM"], "num_hidden_layers": 52,
    "hybrid_override_pattern": "M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-",
    "num_attention_heads": 32, "num_key_value_heads": 8, "attention_head_dim": 128, "head_dim": 128,
    "hidden_size": 4096, "vocab_size": 131072, "intermediate_size": 21504, "mamba_num_heads": 128,
    "mamba_head_dim": 64, "ssm_state_size": 128, "n_groups": 8, "conv_kernel": 4, "chunk_size": 128,
    "max_position_embeddings": 8192, "torch_dtype": "bfloat16",
}


def pc301(text: str, counter, **settings) -> list[str]:
    cfg = config.parse({"select": ["PC301"], **settings}, "test", REGISTRY)
    return [f.message for f in engine.lint_texts({"p.j2": text}, cfg, REGISTRY, counter).findings]


@pytest.mark.parametrize("target, model, gpu, says", [
    # vLLM 0.33's hybrid block: FlashInfer GDN prefill on Hopper (assumed without a GPU), Triton on Ampere.
    ("vllm", "qwen3-next-80b", None, "below the 576-token hybrid block of vLLM 0.33.0 on Qwen/Qwen3-Next-80B-A3B-Thinking "
                                     "(target `vllm`: a shorter prefix is never a hit; hybrid block 576 tokens"),
    ("vllm", "qwen3-next-80b", "h100", "below the 576-token hybrid block of vLLM 0.33.0"),
    ("vllm", "qwen3-next-80b", "a100", "below the 544-token hybrid block of vLLM 0.33.0"),
    ("vllm", "nemotron-h-8b", None, "below the 1,040-token hybrid block of vLLM 0.33.0 on nvidia/Nemotron-H-8B-Base-8K "
                                    "(target `vllm`: a shorter prefix is never a hit; hybrid block 1040 tokens: one "
                                    "attention layer's 1040-token page (4,259,840 B) holds one Mamba2 layer state"),
    # SGLang 0.5.23's checkpoint grid: FLA's 64 for Gated DeltaNet, the config's Mamba chunk for Nemotron-H.
    ("sglang", "qwen3-next-80b", None, "below the 64-token checkpoint grid of SGLang 0.5.23 on Qwen/Qwen3-Next-80B-A3B-Thinking "
                                       "(target `sglang`: a shorter prefix never gets a state to resume from; page 1; "
                                       "Gated DeltaNet states every 64 tokens"),
    ("sglang", "nemotron-h-8b", None, "below the 128-token checkpoint grid of SGLang 0.5.23 on nvidia/Nemotron-H-8B-Base-8K"),
    # Full attention and MLA: the plain block.
    ("vllm", "llama-3.1-8b", None, "below the 16-token block of vLLM 0.33.0 on meta-llama/Llama-3.1-8B"),
    ("vllm", "deepseek-v3", None, "below the 64-token block of vLLM 0.33.0 on deepseek-ai/DeepSeek-V3"),
])
def test_the_message_names_the_engines_block_on_the_model(counter, target, model, gpu, says):
    found = pc301(SHORT, counter, target=target, model=model, **({"gpu": gpu} if gpu else {}))
    assert len(found) == 1
    assert found[0].startswith("the static prefix is 6 tokens, " + says)
    assert found[0].endswith("; move more stable content before the first per-request value")


@pytest.mark.parametrize("target, model, fails", [
    ("vllm", "nemotron-h-8b", True),
    ("vllm", "qwen3-next-80b", True),
    ("vllm", "llama-3.1-8b", False),
    ("vllm", "gpt-oss-120b", False),  # sliding windows do not raise vLLM's block
    ("sglang", "nemotron-h-8b", False),  # past one 128-token grid step
    ("sglang", "qwen3-next-80b", False),
])
def test_a_few_hundred_static_tokens(counter, target, model, fails):
    assert bool(pc301(POLICY, counter, target=target, model=model)) is fails


def test_the_minimum_figures():
    assert targets.model_minimum("vllm", "qwen3-next-80b").tokens == 576
    assert targets.model_minimum("vllm", "qwen3-next-80b", "a100").tokens == 544
    assert targets.model_minimum("vllm", "nemotron-h-8b", "a100").tokens == 1040  # Mamba2: no checkpoint alignment
    assert targets.model_minimum("sglang", "qwen3-next-80b").tokens == 64
    assert targets.model_minimum("sglang", "nemotron-h-8b").tokens == 128
    assert targets.model_minimum("sglang", "llama-3.1-8b").tokens == 1  # page 1: quiet, as without a model
    assert targets.model_minimum("openai", "nemotron-h-8b") is None  # a hosted API's minimum is its own


def test_sglang_on_a_full_attention_model_stays_quiet(counter):
    assert pc301(SHORT, counter, target="sglang", model="llama-3.1-8b") == []
    assert pc301(SHORT, counter, target="sglang", model="gpt-oss-120b") == []


def test_hosted_targets_ignore_the_model(counter):
    with_model = pc301(SHORT, counter, target="openai", model="nemotron-h-8b")
    assert with_model == pc301(SHORT, counter, target="openai")
    assert "1,024-token minimum of OpenAI prompt caching" in with_model[0]


def test_without_a_model_nothing_changes(counter):
    assert config.LintConfig().model is None and config.LintConfig().gpu is None
    assert "16-token minimum of vLLM's prefix cache" in pc301(SHORT, counter, target="vllm")[0]
    assert pc301(POLICY, counter, target="vllm") == []
    assert pc301(SHORT, counter) == []


def test_configured_min_tokens_wins(counter):
    found = pc301(SHORT, counter, target="vllm", model="nemotron-h-8b", rules={"PC301": {"min_tokens": 10}})
    assert len(found) == 1 and "the configured 10-token minimum" in found[0]


@pytest.mark.parametrize("table, says", [
    ({"model": "nemotron-9000"}, "x.yaml config: 'model': unknown model 'nemotron-9000'; known: "),
    ({"model": 8}, "x.yaml config: 'model' must be the served model"),
    ({"model": ""}, "x.yaml config: 'model' must be the served model"),
    ({"model": "missing/config.json"}, "config.json: no such config.json"),
    ({"model": "llama-3.1-8b", "gpu": "tpu-v5"}, "x.yaml config: 'gpu': unknown GPU 'tpu-v5'; known: "),
    ({"gpu": "h100"}, "x.yaml config: 'gpu' needs 'model'"),
])
def test_a_bad_model_or_gpu_is_a_one_line_config_error(table, says):
    with pytest.raises(AdvisorError) as err:
        config.parse(table, "x.yaml config", REGISTRY)
    assert says in str(err.value) and "\n" not in str(err.value)


def test_a_config_json_path_is_relative_to_the_config_file(tmp_path, monkeypatch, counter):
    (tmp_path / "models" / "nemotron").mkdir(parents=True)
    (tmp_path / "models" / "nemotron" / "config.json").write_text(json.dumps(NEMOTRON_H_8B))
    (tmp_path / ".advisor.yaml").write_text("target: vllm\nmodel: models/nemotron/config.json\n")
    elsewhere = tmp_path / "sub"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    cfg = config.resolve(None, False, elsewhere, REGISTRY)
    assert os.path.samefile(cfg.model, tmp_path / "models" / "nemotron" / "config.json")
    linter = engine.Linter(cfg, REGISTRY, counter)
    assert linter.minimum is not None and linter.minimum.tokens == 1040
    # A folder holding a config.json works too.
    (tmp_path / ".advisor.yaml").write_text("target: vllm\nmodel: models/nemotron\n")
    assert engine.Linter(config.resolve(None, False, elsewhere, REGISTRY), REGISTRY, counter).minimum.tokens == 1040


def test_a_bad_model_names_the_config_file_on_the_command_line(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "p.j2").write_text(SHORT)
    (tmp_path / ".advisor.yaml").write_text("target: vllm\nmodel: nemotron-9000\n")
    code = "import sys; from advisor.cli import main; sys.exit(main(sys.argv[1:]))"
    proc = subprocess.run([sys.executable, "-c", code, "lint", "p.j2"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and ".advisor.yaml config: 'model': unknown model 'nemotron-9000'" in lines[0]
    assert "Traceback" not in proc.stderr


PROBE = (
    "import sys\n"
    "from advisor.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "print(any(m.startswith('advisor.cost') for m in sys.modules))\n"
)


@pytest.mark.parametrize("settings, loads_cost", [("target: vllm\n", False), ("target: vllm\nmodel: nemotron-h-8b\n", True)])
def test_advisor_cost_is_imported_only_with_a_model(tmp_path, settings, loads_cost):
    (tmp_path / ".git").mkdir()
    (tmp_path / "p.j2").write_text(SHORT)
    (tmp_path / ".advisor.yaml").write_text(settings)
    proc = subprocess.run([sys.executable, "-c", PROBE, "lint", "p.j2", "--format", "concise"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    *out, loaded = proc.stdout.strip().splitlines()
    assert loaded == str(loads_cost), proc.stderr
    assert "PC301" in "\n".join(out)
