"""Offline Qwen and Mistral tokenizers, checked against ids verified independently:

* Qwen 2.5 / 3: ids published with their text in public code (Qwen2-0.5B-Instruct and
  Qwen2.5-7B chat prompts), dashscope's own ``QwenTokenizer`` class, and HuggingFace
  ``tokenizers`` (another BPE implementation) on a vocabulary converted by transformers'
  own converter with Qwen's pattern and NFC normalizer.
* Mistral: Google's ``sentencepiece`` processor on the shipped SentencePiece models, and
  HuggingFace ``tokenizers`` on the Tekken vocabulary converted by transformers'
  ``MistralConverter``; chats against mistral-common's own ``encode_chat_completion``.
"""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from advisor.ingest.family_tokenizers import MISTRAL_FILES, QWEN25_ADDED, QWEN_PATTERN, _package_dir, mistral_common_tokenizer
from advisor.ingest.memo import MemoEncoder
from advisor.ingest.mistral_chat import MistralChat
from advisor.ingest.tokenizers import load_tokenizer

TEXTS = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=120)
MIXED = st.text(alphabet="abc XYZ\n\t.,'0123456789éé中文🚀ß", max_size=200)

# (text, ids) printed together in public code: ChatML prompts of Qwen2-0.5B-Instruct and Qwen2.5-7B.
QWEN_PUBLISHED = [
    ("<|im_start|>system\nYou are a helpful and truthful assistant. You should think step-by-step.<|im_end|>\n"
     "<|im_start|>user\nHow many r in strawberry.<|im_end|>\n<|im_start|>assistant\n",
     [151644, 8948, 198, 2610, 525, 264, 10950, 323, 89867, 17847, 13, 1446, 1265, 1744, 3019, 14319, 29208, 13,
      151645, 198, 151644, 872, 198, 4340, 1657, 435, 304, 72600, 13, 151645, 198, 151644, 77091, 198]),
    ("<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\n您好, 请从 1 数到 10000000."
     "<|im_end|>\n<|im_start|>assistant\n",
     [151644, 8948, 198, 2610, 525, 264, 10950, 17847, 13, 151645, 198, 151644, 872, 198, 111308, 11, 220, 14880,
      45181, 220, 16, 47685, 26939, 220, 16, 15, 15, 15, 15, 15, 15, 15, 13, 151645, 198, 151644, 77091, 198]),
    ("<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\nWhat is 2+2?<|im_end|>\n"
     "<|im_start|>assistant\n",
     [151644, 8948, 198, 2610, 525, 264, 10950, 17847, 13, 151645, 198, 151644, 872, 198, 3838, 374, 220, 17, 10, 17,
      30, 151645, 198, 151644, 77091, 198]),
]


@pytest.mark.parametrize("name", ["qwen2.5", "qwen3"])
def test_qwen_published_ids(name: str) -> None:
    tok = load_tokenizer(name)
    for text, ids in QWEN_PUBLISHED:
        assert tok.encode(text) == ids
        assert tok.decode(ids) == text
    assert tok.vocab_size == {"qwen2.5": 151665, "qwen3": 151669}[name]
    if name == "qwen3":
        assert tok.encode("<think>\n\n</think>\n\n") == [151667, 271, 151668, 271]


@pytest.fixture(scope="module")
def qwen_oracles():
    import dashscope  # the package's own tokenizer class
    from dashscope.tokenizers.qwen_tokenizer import QwenTokenizer
    from tokenizers import normalizers
    from transformers.convert_slow_tokenizer import TikTokenConverter

    ranks = Path(dashscope.__file__).parent / "resources" / "qwen.tiktoken"
    # Qwen2.5's tokenizer.json lists 22 added tokens; HF (and so vLLM and SGLang) match each of
    # them inside text, which is what the engine's prompt ids hold.
    hf = TikTokenConverter(vocab_file=str(ranks), pattern=QWEN_PATTERN,
                           extra_special_tokens=list(QWEN25_ADDED)).converted()
    hf.normalizer = normalizers.NFC()
    return QwenTokenizer(str(ranks)), hf


@settings(max_examples=200, deadline=None)
@given(st.one_of(TEXTS, MIXED))
@example("<|fim_pad|>")  # found by hypothesis: an added token written in the text
@example("call <tool_call>{}</tool_call> done")
def test_qwen_equals_dashscope_and_hf_tokenizers(qwen_oracles, text: str) -> None:
    dash, hf = qwen_oracles
    tok = load_tokenizer("qwen2.5")
    ids = tok.encode(text)
    # dashscope's tokenizer reads every added-token string as plain text (its encode has no
    # added-token split), so it is the oracle only for text that holds none of them.
    if not any(added in text for added in QWEN25_ADDED):
        assert ids == dash.encode(text)
    assert ids == hf.encode(text, add_special_tokens=False).ids
    # Memoized encoding normalizes the same way (NFC) and cuts pieces exactly.
    long = (text + "\n\nNext paragraph\n\n") * 20
    assert MemoEncoder(tok).encode(long).tolist() == tok.encode(long)


def test_qwen_normalizes_to_nfc() -> None:
    tok = load_tokenizer("qwen2.5")
    decomposed = "Cafe\u0301 e\u0301te\u0301"
    assert tok.encode(decomposed) == tok.encode(unicodedata.normalize("NFC", decomposed))


@pytest.fixture(scope="module")
def mistral_data() -> Path:
    return _package_dir("mistral_common", "mistral-common") / "data"


@settings(max_examples=100, deadline=None)
@given(st.one_of(TEXTS, MIXED))
def test_mistral_sentencepiece_equals_sentencepiece(mistral_data: Path, text: str) -> None:
    import sentencepiece

    for name in ("mistral-v1", "mistral-v3", "mistral-v7"):
        sp = sentencepiece.SentencePieceProcessor(model_file=str(mistral_data / MISTRAL_FILES[name]))
        assert load_tokenizer(name).encode(text) == sp.encode(text)


@pytest.fixture(scope="module")
def tekken_hf(mistral_data: Path):
    from transformers.integrations.mistral.tokenizer import MistralConverter

    return MistralConverter(vocab_file=str(mistral_data / MISTRAL_FILES["tekken"]), add_prefix_space=False).converted()


@settings(max_examples=100, deadline=None)
@given(st.one_of(TEXTS, MIXED))
def test_tekken_equals_hf_tokenizers(tekken_hf, text: str) -> None:
    assert load_tokenizer("tekken").encode(text) == tekken_hf.encode(text, add_special_tokens=False).ids


def test_mistral_control_tokens() -> None:
    v3 = load_tokenizer("mistral-v3")
    assert [v3.special_tokens[t] for t in ("<s>", "</s>", "[INST]", "[/INST]", "[TOOL_CALLS]", "[AVAILABLE_TOOLS]")] \
        == [1, 2, 3, 4, 5, 6]
    assert v3.encode("<s>[INST]") == [1, 3] and v3.bos_id == 1
    tekken = load_tokenizer("tekken")
    assert tekken.encode("<s>[INST]Hi[/INST]")[:2] == [1, 3] and tekken.vocab_size == 131072


CHAT = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": None,
         "tool_calls": [{"id": "call12345", "type": "function",
                         "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]},
        {"role": "tool", "tool_call_id": "call12345", "content": "22 C"},
        {"role": "assistant", "content": "22 C and sunny."}, {"role": "user", "content": "Thanks 🚀"}]
TOOLS = [{"type": "function", "function": {"name": "get_weather", "description": "Weather for a city",
                                           "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                                                          "required": ["city"]}}}]


@pytest.mark.parametrize("name", ["mistral-v3", "mistral-v7", "tekken"])
def test_mistral_chat_is_mistral_commons_encoding(name: str) -> None:
    from mistral_common.protocol.instruct.request import ChatCompletionRequest

    messages = json.loads(json.dumps(CHAT))
    messages[2]["tool_calls"][0]["function"]["arguments"] = {"city": "Paris"}
    expected = mistral_common_tokenizer(name).encode_chat_completion(
        ChatCompletionRequest.from_openai(messages, tools=TOOLS)).tokens
    got = MistralChat(name).encode_chat(CHAT, TOOLS)
    assert got == expected and got[0] == 1
    assert load_tokenizer(name).special_tokens["[INST]"] in got


def test_mistral_chat_through_the_cli(tmp_path: Path, cli) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps({"messages": CHAT, "tools": TOOLS}) + "\n")
    res = cli("render", path, "--tokenizer", "mistral-v3", "--engine", "vllm", "--format", "json")
    record = json.loads(res.out)["records"][0]
    assert res.code == 0 and record["tokens"] == MistralChat("mistral-v3").encode_chat(CHAT, TOOLS)
    # v3 puts the tools and the system prompt before the last user turn, as mistral-common does.
    assert record["text"].startswith("<s>[INST]Weather in Paris?[/INST][TOOL_CALLS]")
    assert "[AVAILABLE_TOOLS]" in record["text"] and "Be brief." in record["text"]
    a = json.loads(cli("analyze", path, "--tokenizer", "mistral-v3", "--engine", "vllm", "--format", "json").out)
    assert a["prompt_tokens"] == record["count"]
    sglang = cli("render", path, "--tokenizer", "mistral-v3")
    assert sglang.code == 2 and "--chat-template" in sglang.err


@pytest.mark.parametrize("name", ["mistral-v3", "tekken"])
def test_a_bare_chat_template_gets_the_tokenizers_end_of_sequence(tmp_path: Path, cli, name: str) -> None:
    """A bare .jinja template renders ``eos_token`` after each assistant turn: the
    SentencePiece and Tekken files name it, so multi-turn chats render (they were skipped as
    'eos_token is undefined'), byte for byte as with a tokenizer_config.json that names it."""
    template = Path("tests/chat_templates/mistral.jinja")
    config = tmp_path / "tokenizer_config.json"
    config.write_text(json.dumps({"chat_template": template.read_text(), "bos_token": "<s>", "eos_token": "</s>"}))
    path = tmp_path / "t.jsonl"
    chat = [{"role": "user", "content": "Hi there"}, {"role": "assistant", "content": "Hello."},
            {"role": "user", "content": "How are you?"}]
    path.write_text(json.dumps({"messages": chat}) + "\n")
    bare = cli("render", path, "--tokenizer", name, "--chat-template", template, "--format", "json")
    assert bare.code == 0, bare.err
    record = json.loads(bare.out)["records"][0]
    assert record["text"] == "<s>[INST] Hi there[/INST] Hello.</s>[INST] How are you?[/INST]"
    eos = load_tokenizer(name).special_tokens["</s>"]
    assert record["tokens"].count(eos) == 1
    named = cli("render", path, "--tokenizer", name, "--chat-template", config, "--format", "json")
    assert json.loads(named.out)["records"][0]["tokens"] == record["tokens"]


def test_qwen_vocabulary_is_alibabas() -> None:
    # The runtime carrier's file is byte for byte the one in Alibaba's dashscope SDK.
    import hashlib

    from advisor.ingest.family_tokenizers import _qwen_ranks_file

    ours = _qwen_ranks_file()
    theirs = _package_dir("dashscope", "dashscope") / "resources" / "qwen.tiktoken"
    assert ours != theirs and ours.parent.parent.name == "qwen_tokenizer"
    assert hashlib.sha256(ours.read_bytes()).digest() == hashlib.sha256(theirs.read_bytes()).digest()
