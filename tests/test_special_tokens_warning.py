"""A chat layout whose special tokens the tokenizer spells as text is said once, on stderr."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from advisor.ingest import pipeline
from advisor.ingest.chat import LLAMA3_SPECIALS, plain_specials_warning, spelled_as_text
from advisor.ingest.tokenizers import Tokenizer, load_tokenizer

CHAT = {"messages": [{"role": "system", "content": "You are the support assistant of Corvina."},
                     {"role": "user", "content": "Where is my order?"}]}


@pytest.fixture(autouse=True)
def fresh_run(monkeypatch):
    # A process says each warning once; every test here is a run of its own.
    monkeypatch.setattr(pipeline, "_SAID", set())


def _traffic(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def _warnings(err: str) -> list[str]:
    return [line for line in err.splitlines() if "special tokens" in line]


def test_llama_layout_under_cl100k_warns_once_with_the_fix(cli, tmp_path) -> None:
    traffic = _traffic(tmp_path / "t.jsonl", [CHAT] * 3)
    res = cli("render", traffic, "--tokenizer", "cl100k")
    assert res.code == 0
    [line] = _warnings(res.err)
    assert line.startswith("advisor: warning: the built-in Llama 3.1 chat layout writes special tokens that "
                           "tokenizer 'cl100k' does not know (<|begin_of_text|> and 5 more)")
    assert "inflated" in line and "--tokenizer llama3" in line
    assert "warning" not in res.out  # stdout holds the rendering only


def test_a_run_with_two_renderers_says_it_once(cli, tmp_path) -> None:
    # prescribe renders the logged requests, then its rewrites (the clock moved out of the
    # system prompt), each with a renderer of its own, batch after batch.
    rules = " ".join(f"Rule {i}: answer politely and cite the order number when given one." for i in range(30))
    records = [{"messages": [{"role": "system", "content": f"Now: 2025-03-01 09:14:{i:02d}. {rules}"},
                             {"role": "user", "content": f"Question {i}: where is my order?"}]} for i in range(12)]
    res = cli("prescribe", _traffic(tmp_path / "t.jsonl", records), "--tokenizer", "cl100k", "--format", "json")
    assert res.code == 0, res.err
    assert any(a["kind"] == "canonical-order" for a in json.loads(res.out)["actions"])  # it did rewrite
    assert len(_warnings(res.err)) == 1


def test_the_matching_tokenizer_says_nothing(cli, tmp_path) -> None:
    traffic = _traffic(tmp_path / "t.jsonl", [CHAT])
    res = cli("render", traffic, "--tokenizer", "llama3")
    assert res.code == 0 and _warnings(res.err) == []


def test_traffic_the_layout_never_renders_says_nothing(cli, tmp_path) -> None:
    # Raw prompts go to the tokenizer as they are: no chat layout, no markers.
    traffic = _traffic(tmp_path / "t.jsonl", [{"prompt": "Where is my order?"}])
    res = cli("analyze", traffic, "--tokenizer", "cl100k", "--format", "json")
    assert res.code == 0 and _warnings(res.err) == []


def test_a_template_config_whose_bos_and_eos_the_tokenizer_spells_out(cli, tmp_path) -> None:
    config = tmp_path / "tokenizer_config.json"
    config.write_text(json.dumps({
        "bos_token": "<s>", "eos_token": "</s>",
        "chat_template": "{{ bos_token }}{% for m in messages %}{{ m.role }}: {{ m.content }}{{ eos_token }}\n{% endfor %}"}))
    traffic = _traffic(tmp_path / "t.jsonl", [CHAT])
    res = cli("render", traffic, "--tokenizer", "cl100k", "--chat-template", config)
    assert res.code == 0, res.err
    [line] = _warnings(res.err)
    assert f"chat template {config} writes special tokens that tokenizer 'cl100k' does not know (<s> and 1 more)" in line
    # The same template with tokens the tokenizer has: nothing to say.
    config.write_text(json.dumps({
        "bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>",
        "chat_template": "{{ bos_token }}{% for m in messages %}{{ m.role }}: {{ m.content }}{{ eos_token }}\n{% endfor %}"}))
    pipeline._SAID.clear()
    res = cli("render", traffic, "--tokenizer", "llama3", "--chat-template", config)
    assert res.code == 0 and _warnings(res.err) == []


def test_an_added_token_of_one_id_is_not_spelled_out() -> None:
    # Not marked special, but one id all the same (an added token): the count is right.
    one = Tokenizer(name="t", encode_fn=lambda text: [7] if text == "<|eot_id|>" else [1, 2, 3],
                    encode_batch_fn=lambda texts: [], decode_fn=lambda ids: "", vocab_size=10)
    assert spelled_as_text(["<|eot_id|>", "<|begin_of_text|>", "<|eot_id|>"], one) == ["<|begin_of_text|>"]
    assert spelled_as_text(LLAMA3_SPECIALS, load_tokenizer("llama3")) == []
    assert plain_specials_warning("x", LLAMA3_SPECIALS, load_tokenizer("llama3"), "llama3", "fix") is None
    assert spelled_as_text(LLAMA3_SPECIALS, load_tokenizer("cl100k")) == list(LLAMA3_SPECIALS)
