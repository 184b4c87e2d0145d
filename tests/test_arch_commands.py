"""The commands on a model that is not full attention: analyze, simulate, verify and export
take its engine's cache geometry, and their figures equal the independent oracle's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from advisor.cost import resolve_model
from advisor.cost.layout import cache_geometry
from tests.arch_oracle import vllm_cached_tokens
from tests.test_arch_hits import traffic

MODEL = "qwen3-next-80b"  # 12 full attention + 36 Gated DeltaNet layers


def _geometry(engine: str = "vllm"):
    return cache_geometry(resolve_model(MODEL), engine, gpu="h100")


def _oracle(prompts: list[list[int]]) -> list[int]:
    geo = _geometry()
    groups = [{"kind": g.kind, **({"window": g.window} if g.window else {})} for g in geo.groups]
    return vllm_cached_tokens(prompts, block=geo.block, groups=groups, retention=geo.retention)


def _full_attention(prompts: list[list[int]], block: int) -> list[int]:
    """vLLM on full attention: the longest earlier prefix, below L - 1, in whole blocks."""
    out = []
    for i, p in enumerate(prompts):
        best = 0
        for q in prompts[:i]:
            n = 0
            while n < min(len(p), len(q)) and p[n] == q[n]:
                n += 1
            best = max(best, n)
        out.append(min(best, len(p) - 1) // block * block)
    return out


def _write(path: Path, prompts: list[list[int]], observed: list[int] | None = None) -> Path:
    rows = [{"id": f"r{i}", "input_ids": p, **({"cached_tokens": observed[i]} if observed else {})}
            for i, p in enumerate(prompts)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.fixture(scope="module")
def prompts() -> list[list[int]]:
    block = _geometry().block
    assert block == 576  # Hopper: FlashInfer GDN prefill, ARCHITECTURES.md §3.1
    raw = traffic(3, block, n=40)
    # Renumbered into every tokenizer's vocabulary, one id per distinct id: the sharing is kept.
    ids: dict[int, int] = {}
    return [[ids.setdefault(t, 1000 + len(ids)) for t in p] for p in raw]


def test_analyze_follows_the_model_and_names_the_loss(tmp_path, cli, prompts) -> None:
    res = cli("analyze", _write(tmp_path / "t.jsonl", prompts), "--model", MODEL, "--gpu", "h100", "--engine", "vllm",
              "--format", "json")
    assert res.code == 0, res.err
    data = json.loads(res.out)
    want = _oracle(prompts)
    full = _full_attention(prompts, 16)
    assert data["cached_tokens"] == sum(want)
    arch = data["architecture"]
    assert arch["block_tokens"] == 576 and arch["engine"] == "vllm"
    assert arch["full_attention_cached_tokens"] == sum(full)
    assert arch["tokens_lost"] == sum(full) - sum(want) > 0
    assert arch["short_changed_requests"] == sum(w < f for w, f in zip(want, full))
    (finding,) = [f for f in data["findings"] if f["code"] == "TR601"]
    assert finding["tokens_lost"] == sum(full) - sum(want)
    assert finding["block_tokens"] == finding["checkpoint_grid_tokens"] == 576


def test_a_config_json_in_the_model_folder_is_read(tmp_path, cli, prompts) -> None:
    folder = tmp_path / "model"
    folder.mkdir()
    nemotron = {"model_type": "nemotron_h", "architectures": ["NemotronHForCausalLM"], "num_hidden_layers": 52,
                "hybrid_override_pattern": "M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-",
                "num_attention_heads": 32, "num_key_value_heads": 8, "attention_head_dim": 128, "head_dim": 128,
                "hidden_size": 4096, "vocab_size": 131072, "intermediate_size": 21504, "mamba_num_heads": 128,
                "mamba_head_dim": 64, "ssm_state_size": 128, "n_groups": 8, "conv_kernel": 4, "chunk_size": 128,
                "max_position_embeddings": 8192, "torch_dtype": "bfloat16"}
    (folder / "config.json").write_text(json.dumps(nemotron))
    res = cli("analyze", _write(tmp_path / "t.jsonl", prompts), "--model-dir", folder, "--engine", "vllm",
              "--tokenizer", "cl100k", "--no-diagnose", "--format", "json")
    assert res.code == 0, res.err
    assert json.loads(res.out)["architecture"]["block_tokens"] == 1040  # ARCHITECTURES.md §3.2


def test_simulate_with_an_unlimited_pool_equals_the_engine(tmp_path, cli, prompts) -> None:
    res = cli("simulate", _write(tmp_path / "t.jsonl", prompts), "--model", MODEL, "--gpu", "h100", "--engine", "vllm",
              "--capacity-tokens", "100000000", "--format", "json")
    assert res.code == 0, res.err
    data = json.loads(res.out)
    assert data["input"]["architecture"]["block_tokens"] == 576
    run = data["runs"][0]
    assert run["cached_tokens"] == sum(_oracle(prompts))


def test_verify_names_the_architecture_in_the_gap(tmp_path, cli, prompts) -> None:
    want = _oracle(prompts)
    full = _full_attention(prompts, 16)
    res = cli("verify", _write(tmp_path / "t.jsonl", prompts, want), "--engine", "vllm", "--model", MODEL,
              "--gpu", "h100", "--format", "json")
    assert res.code == 0, res.err
    data = json.loads(res.out)
    assert data["predicted_cached_tokens"] == data["observed_cached_tokens"] == sum(want)
    parts = {p["part"]: p["tokens"] for p in data["gap"]["parts"]}
    assert parts["architecture"] == sum(full) - sum(want) > 0
    assert parts["unexplained"] == 0 and parts["capacity"] == 0
    # the same observed counts without the model: the loss is unexplained
    plain = json.loads(cli("verify", tmp_path / "t.jsonl", "--engine", "vllm", "--format", "json").out)
    assert {p["part"]: p["tokens"] for p in plain["gap"]["parts"]}["unexplained"] == sum(full) - sum(want)


def test_export_takes_the_models_cache_block(tmp_path, cli, prompts) -> None:
    res = cli("export", _write(tmp_path / "t.jsonl", prompts), "--format", "mooncake", "--model", "nemotron-h-8b",
              "--engine", "vllm", "--salt", "k")
    assert res.code == 0, res.err
    rows = [json.loads(line) for line in res.out.splitlines()]
    assert [len(r["hash_ids"]) for r in rows] == [-(-len(p) // 1040) for p in prompts]
    assert "1040" in res.err
    refused = cli("export", tmp_path / "t.jsonl", "--format", "mooncake")
    assert refused.code != 0 and "--block-size" in refused.err


def _json_run(capsys, *argv: str) -> dict:
    from advisor.cli import main

    assert main([*argv, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_engines_retention_flags_trade_memory_for_hits(capsys) -> None:
    # vLLM's retention interval and SGLang's Mamba strategy are the engines' own flags: keeping
    # every block's state serves at least what the default keeps, on analyze and simulate alike.
    log = str(Path(__file__).parent.parent / "templates" / "traffic" / "agent_tools.jsonl")
    base = ("--model", "nemotron-h-8b", "--engine", "vllm")
    kept = _json_run(capsys, "analyze", log, *base)
    dense = _json_run(capsys, "analyze", log, *base, "--retention-interval", "none")
    assert "states kept at every block" in dense["architecture"]["rule"]
    assert "replay boundaries and junctions" in kept["architecture"]["rule"]
    assert dense["cached_tokens"] >= kept["cached_tokens"]
    sim = _json_run(capsys, "simulate", log, *base, "--retention-interval", "none", "--mode", "replay",
                    "--capacity-tokens", "100000000")
    assert sim["runs"][0]["cached_tokens"] == dense["cached_tokens"]  # unlimited pool: analyze's figure
    no_buffer = _json_run(capsys, "analyze", log, "--model", "nemotron-h-8b", "--mamba-strategy", "no_buffer")
    assert "Mamba no_buffer" in no_buffer["architecture"]["rule"]


@pytest.mark.parametrize("argv, message", [
    (("--retention-interval", "often"), "--retention-interval must be 0, none or a number of tokens (got 'often')"),
    (("--mamba-strategy", "no_buffer", "--page-size", "16"), "no_buffer Mamba strategy needs page size 1 (got 16)"),
    (("--mamba-strategy", "lazy"), "unknown SGLang Mamba strategy 'lazy'"),
])
def test_bad_retention_flags_are_one_line_errors(capsys, argv, message) -> None:
    from advisor.cli import main

    log = str(Path(__file__).parent.parent / "templates" / "traffic" / "single_shot.jsonl")
    assert main(["analyze", log, "--model", "nemotron-h-8b", *argv]) != 0
    err = capsys.readouterr().err.strip()
    assert message in err and err.count("\n") == 0 and "Traceback" not in err
