"""`advisor render`, `--model-dir`, special tokens from the model's files, the request clock."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from advisor.ingest.tokenizers import LLAMA3_NAMED_SPECIALS, LLAMA3_NUM_SPECIALS, LLAMA3_PATTERN, load_tokenizer

TEMPLATES = Path(__file__).parent / "chat_templates"
LLAMA_SPECIALS = list(LLAMA3_NAMED_SPECIALS) + [
    f"<|reserved_special_token_{2 + i}|>" for i in range(LLAMA3_NUM_SPECIALS - len(LLAMA3_NAMED_SPECIALS))]


@pytest.fixture(scope="module")
def model_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A model folder as a HuggingFace snapshot has it: tokenizer.json (Llama 3's real
    vocabulary, converted from its tiktoken ranks by transformers' own converter),
    tokenizer_config.json with the special tokens, chat_template.jinja, config.json."""
    from transformers.convert_slow_tokenizer import TikTokenConverter

    from advisor.ingest.tokenizers import _package_file

    folder = tmp_path_factory.mktemp("model")
    ranks = _package_file("llama_models", "llama3/tokenizer.model", "llama-models")
    converted = TikTokenConverter(vocab_file=ranks, pattern=LLAMA3_PATTERN,
                                  extra_special_tokens=LLAMA_SPECIALS).converted()
    converted.save(str(folder / "tokenizer.json"))
    (folder / "tokenizer_config.json").write_text(json.dumps(
        {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>", "tokenizer_class": "PreTrainedTokenizerFast"}))
    (folder / "chat_template.jinja").write_text((TEMPLATES / "llama32.jinja").read_text())
    (folder / "config.json").write_text(json.dumps({
        "model_type": "llama", "architectures": ["LlamaForCausalLM"], "hidden_size": 4096, "num_hidden_layers": 32,
        "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 128256,
        "max_position_embeddings": 131072, "torch_dtype": "bfloat16"}))
    return folder


def _traffic(tmp_path: Path) -> Path:
    path = tmp_path / "t.jsonl"
    rows = [
        {"id": "a", "timestamp": 1_764_547_200, "messages": [{"role": "system", "content": "Be brief."},
                                                             {"role": "user", "content": "Hi 🚀"}]},
        {"id": "b", "messages": [{"role": "user", "content": [{"type": "text", "text": "one"},
                                                              {"type": "text", "text": "two"}]}]},
        {"id": "c", "messages": "not a list"},
        {"id": "d", "input_ids": [128000, 9906, 1917]},
        {"id": "e", "messages": [{"role": "user", "content": "q"},
                                 {"role": "assistant", "content": None,
                                  "tool_calls": [{"id": "1", "type": "function",
                                                  "function": {"name": "f", "arguments": "{broken"}}]}],
         "tools": [{"type": "function", "function": {"name": "f"}}]},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_render_json_shape_ids_and_skips(tmp_path: Path, cli) -> None:
    path = _traffic(tmp_path)
    res = cli("render", path, "--format", "json")
    assert res.code == 1  # records were skipped
    records = json.loads(res.out)["records"]
    assert [r["line"] for r in records] == [1, 2, 3, 4, 5]
    for r in records:
        assert {"line", "id", "text", "tokens", "skipped"} <= set(r)
    tok = load_tokenizer("llama3")
    first = records[0]
    assert first["id"] == "a" and first["skipped"] is None
    assert first["text"].startswith("<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\n"
                                    "Cutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\nBe brief.")
    assert first["tokens"] == tok.encode(first["text"]) and first["count"] == len(first["tokens"])
    assert "one two<|eot_id|>" in records[1]["text"]  # SGLang joins text parts with a space
    assert records[2]["skipped"] == "'messages' must be a list" and records[2]["tokens"] is None
    assert records[3]["tokens"] == [128000, 9906, 1917] and records[3]["text"] == "<|begin_of_text|>Hello world"
    assert "must be valid JSON" in records[4]["skipped"]
    vllm = json.loads(cli("render", path, "--format", "json", "--engine", "vllm").out)["records"]
    assert "one\ntwo<|eot_id|>" in vllm[1]["text"]  # vLLM joins them with a newline
    assert vllm[4]["skipped"] is None and '{"name": "f", "parameters": {}}' in vllm[4]["text"]
    one = cli("render", path, "--line", "2", "--format", "json")
    assert one.code == 0 and [r["id"] for r in json.loads(one.out)["records"]] == ["b"]
    text = cli("render", path, "--line", "1")
    assert text.code == 0 and "Hi 🚀<|eot_id|>" in text.out and str(first["count"]) in text.out
    missing = cli("render", path, "--line", "99")
    assert missing.code == 2 and "no record on line 99" in missing.err


def test_model_dir_equals_its_files_one_by_one(tmp_path: Path, cli, model_folder: Path) -> None:
    path = _traffic(tmp_path)
    by_dir = json.loads(cli("render", path, "--model-dir", model_folder, "--format", "json").out)["records"]
    one_by_one = json.loads(cli("render", path, "--tokenizer", model_folder / "tokenizer.json", "--chat-template",
                                model_folder / "chat_template.jinja", "--format", "json").out)["records"]
    assert [r["tokens"] for r in by_dir] == [r["tokens"] for r in one_by_one]
    assert [r["text"] for r in by_dir] == [r["text"] for r in one_by_one]
    rendered = [r for r in by_dir if r["skipped"] is None and r["text"]]
    assert len(rendered) == 3
    # The converted vocabulary is Llama 3's: the same ids as the built-in tokenizer.
    tok = load_tokenizer("llama3")
    assert all(r["tokens"] == tok.encode(r["text"]) for r in rendered)
    # The folder's Llama 3.2-style template dates the system turn from the request's clock.
    assert "Today Date: 01 Dec 2025" in by_dir[0]["text"] and by_dir[0]["clock"].startswith("2025-12-01T00:00:00")
    a = json.loads(cli("analyze", path, "--model-dir", model_folder, "--format", "json", "--no-diagnose").out)
    b = json.loads(cli("analyze", path, "--tokenizer", model_folder / "tokenizer.json", "--chat-template",
                       model_folder / "chat_template.jinja", "--format", "json", "--no-diagnose").out)
    assert a["prompt_tokens"] == b["prompt_tokens"] == sum(r["count"] for r in by_dir if r["skipped"] is None)
    cost = json.loads(cli("cost", "--model-dir", model_folder, "--gpu", "h100", "--format", "json").out)
    assert cost["kv_bytes_per_token"] == 32 * 2 * 8 * 128 * 2  # layers x K,V x kv heads x head dim x bf16


def test_special_tokens_come_from_the_model_files(tmp_path: Path, cli) -> None:
    folder = tmp_path / "m"
    folder.mkdir()
    (folder / "tokenizer_config.json").write_text(json.dumps({
        "bos_token": {"content": "<s>", "special": True}, "eos_token": "</s>", "pad_token": "<pad>",
        "chat_template": "{{ bos_token }}[{{ eos_token }}|{{ pad_token }}|{{ unk_token is defined }}]"
                         "{% for m in messages %}{{ m['content'] }}{% endfor %}"}))
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps({"messages": [{"role": "user", "content": "x"}]}) + "\n")
    res = cli("render", path, "--model-dir", folder, "--format", "json")
    assert json.loads(res.out)["records"][0]["text"] == "<s>[</s>|<pad>|False]x"
    # A bare .jinja written for another tokenizer: a warning that says what to pass.
    bare = tmp_path / "qwen.jinja"
    bare.write_text((TEMPLATES / "qwen25.jinja").read_text())
    res = cli("render", path, "--chat-template", bare, "--format", "json")
    assert res.code == 0 and "<|im_start|>" in res.err and "--model-dir" in res.err and "warning" in res.err
    quiet = cli("render", path, "--chat-template", TEMPLATES / "llama31.jinja", "--format", "json")
    assert "warning" not in quiet.err


def test_clock_uses_the_request_time_in_the_server_zone(tmp_path: Path, cli) -> None:
    tpl = tmp_path / "clock.jinja"
    tpl.write_text("{{ strftime_now('%Y-%m-%d %H:%M') }}|{{ messages[0]['content'] }}")
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps({"timestamp": 1_764_547_200_000, "messages": [{"role": "user", "content": "x"}]})
                    + "\n" + json.dumps({"messages": [{"role": "user", "content": "y"}]}) + "\n")
    utc = cli("render", path, "--chat-template", tpl, "--format", "json")
    texts = [r["text"] for r in json.loads(utc.out)["records"]]
    assert texts == ["2025-12-01 00:00|x", "2026-01-01 12:00|y"]
    # The request without a timestamp renders at the one stated date, and stderr says so.
    assert "2026-01-01T12:00:00+00:00" in utc.err
    tokyo = cli("render", path, "--chat-template", tpl, "--timezone", "Asia/Tokyo", "--format", "json")
    assert [r["text"] for r in json.loads(tokyo.out)["records"]][0] == "2025-12-01 09:00|x"
    bad = cli("render", path, "--timezone", "Mars/Olympus")
    assert bad.code == 2 and "unknown --timezone" in bad.err


def test_llama3_tokenizer_for_another_model_is_a_warning(tmp_path: Path, cli) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps({"messages": [{"role": "user", "content": "x"}]}) + "\n")
    res = cli("simulate", path, "--model", "qwen2.5-7b", "--gpu", "h100", "--format", "json")
    assert "warning" in res.err and "Llama 3 tokenizer" in res.err


def test_request_options_reach_the_template_through_the_worker(tmp_path: Path, cli) -> None:
    # chat_template_kwargs and tool_choice travel with the record into the sandbox worker.
    path = tmp_path / "t.jsonl"
    tools = [{"type": "function", "function": {"name": "f"}}]
    path.write_text(json.dumps({"messages": [{"role": "user", "content": "x"}], "tools": tools,
                                "chat_template_kwargs": {"enable_thinking": False}}) + "\n"
                    + json.dumps({"messages": [{"role": "user", "content": "x"}], "tools": tools,
                                  "tool_choice": "none"}) + "\n")
    records = json.loads(cli("render", path, "--chat-template", TEMPLATES / "qwen3.jinja", "--tokenizer", "qwen3",
                             "--format", "json").out)["records"]
    assert records[0]["text"].endswith("<|im_start|>assistant\n<think>\n\n</think>\n\n")
    assert "# Tools" in records[0]["text"]
    assert "# Tools" not in records[1]["text"]  # SGLang drops the tools of a tool_choice "none" request
    vllm = json.loads(cli("render", path, "--chat-template", TEMPLATES / "qwen3.jinja", "--tokenizer", "qwen3",
                          "--engine", "vllm", "--format", "json").out)["records"]
    assert "# Tools" in vllm[1]["text"]  # vLLM keeps them (its default)
    assert records[0]["tokens"][-4:] == [151667, 271, 151668, 271]
