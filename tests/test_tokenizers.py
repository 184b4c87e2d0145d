"""Token ids must be exactly what the real tokenizers give."""

from __future__ import annotations

import json

import pytest

from advisor.errors import AdvisorError
from advisor.ingest.tokenizers import load_tokenizer

SAMPLES = [
    "Hello world",
    "You are a helpful assistant. Today is 2026-11-29 08:12:18 UTC.",
    "  leading spaces, trailing tabs\t\t\nand new lines\n\n\n",
    "Ünïcödé — «quotes», emoji 🚀 and 中文 text",
    "def f(x):\n    return {'a': [1, 2, 3]}\n",
    "1234567890 12 345 numbers",
]


@pytest.mark.parametrize("text", SAMPLES)
def test_llama3_matches_meta_reference_tokenizer(text: str) -> None:
    # Meta's own Tokenizer class (llama-models) is the independent reference.
    from llama_models.llama3.tokenizer import Tokenizer as MetaTokenizer

    meta = MetaTokenizer.get_instance()
    ours = load_tokenizer("llama3")
    assert ours.encode(text) == meta.encode(text, bos=False, eos=False)
    assert ours.decode(ours.encode(text)) == text


def test_llama3_special_tokens_are_recognised() -> None:
    tok = load_tokenizer("llama3")
    ids = tok.encode("<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nHi<|eot_id|>")
    assert ids[:2] == [128000, 128006]
    assert ids[-1] == 128009
    assert tok.bos_id == 128000
    assert tok.vocab_size == 128256
    assert tok.special_tokens["<|reserved_special_token_245|>"] == 128255


def test_cl100k_known_ids() -> None:
    tok = load_tokenizer("cl100k")
    # Published example ids of cl100k_base (OpenAI cookbook, "How to count tokens").
    assert tok.encode("tiktoken is great!") == [83, 1609, 5963, 374, 2294, 0]
    assert tok.encode("hello world") == [15339, 1917]
    assert tok.encode("<|endoftext|>") == [100257]


def test_tiktoken_file_path(tmp_path) -> None:
    import base64

    # A tiny byte-level BPE: 256 single bytes plus one merge.
    lines = [f"{base64.b64encode(bytes([i])).decode()} {i}" for i in range(256)]
    lines.append(f"{base64.b64encode(b'ab').decode()} 256")
    path = tmp_path / "tiny.tiktoken"
    path.write_text("\n".join(lines) + "\n")
    tok = load_tokenizer(str(path))
    assert tok.encode("ab") == [256]
    assert tok.encode("abc") == [256, 99]


def test_hf_tokenizer_json(tmp_path) -> None:
    import tokenizers
    from tokenizers import models, pre_tokenizers

    vocab = {"[UNK]": 0, "hello": 1, "world": 2, "<s>": 3}
    hf = tokenizers.Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    hf.pre_tokenizer = pre_tokenizers.Whitespace()
    hf.add_special_tokens(["<s>"])
    path = tmp_path / "tokenizer.json"
    hf.save(str(path))
    tok = load_tokenizer(str(path))
    assert tok.encode("hello world") == [1, 2]
    assert tok.encode("<s>hello") == [3, 1]
    assert tok.bos_token == "<s>"


def test_unknown_and_missing_tokenizers() -> None:
    with pytest.raises(AdvisorError, match="unknown tokenizer"):
        load_tokenizer("gpt-17")
    with pytest.raises(AdvisorError, match="not found"):
        load_tokenizer("/nonexistent/tokenizer.json")


def test_bad_tiktoken_file(tmp_path) -> None:
    path = tmp_path / "bad.tiktoken"
    path.write_text("this is not base64 ranks\n")
    with pytest.raises(AdvisorError, match="bad.tiktoken"):
        load_tokenizer(str(path))


@pytest.mark.parametrize("package,relative", [("llama_models", "llama3/tokenizer.model"),
                                               ("tiktoken_ext", "data/cl100k_base.tiktoken")])
def test_read_ranks_equals_tiktokens_loader(package: str, relative: str) -> None:
    from tiktoken.load import load_tiktoken_bpe

    from advisor.ingest.tokenizers import _package_file, read_ranks

    path = _package_file(package, relative, package)
    assert read_ranks(path) == load_tiktoken_bpe(path)
