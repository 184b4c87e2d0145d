"""Memoized tokenization gives exactly the ids of whole-prompt encoding."""

from __future__ import annotations

import json
from array import array

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.ingest.chat import Llama3Layout
from advisor.ingest.memo import MemoEncoder, ordinary_bytes
from advisor.ingest.tokenizers import load_tokenizer
from tests.conftest import DEMO_TRAFFIC

LLAMA = load_tokenizer("llama3")
SPECIALS = ["<|begin_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>", "<|eom_id|>",
            "<|python_tag|>", "<|reserved_special_token_9|>", "<|", "|>", "<|eot_id", "\n\n"]
chunks = st.one_of(
    st.sampled_from(SPECIALS),
    st.text(max_size=80),
    st.text(alphabet=" \n\t.,:;'\"-_()[]{}aeiouAEIOU0123456789é中🚀", max_size=120),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(chunks, max_size=30))
def test_memo_equals_whole_encoding(parts: list[str]) -> None:
    text = "".join(parts)
    memo = MemoEncoder(LLAMA)
    expected = LLAMA.encode(text)
    assert memo.encode(text).tolist() == expected
    # A second pass comes from the cache and must not change a single id.
    assert memo.encode(text).tolist() == expected


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["system", "user", "assistant"]), st.text(max_size=200)),
                min_size=1, max_size=6))
def test_memo_on_chat_layouts(turns) -> None:
    memo = MemoEncoder(LLAMA, budget_bytes=4096)  # a tiny budget exercises eviction too
    text = Llama3Layout().render([{"role": r, "content": c} for r, c in turns], None)
    assert memo.encode(text).tolist() == LLAMA.encode(text)


def test_cl100k_is_memoized_exactly() -> None:
    tok = load_tokenizer("cl100k")
    memo = MemoEncoder(tok)
    text = "Hello<|endoftext|> world, this is a longer piece of text for the cache.<|endoftext|>x"
    assert memo.encode(text).tolist() == tok.encode(text)


def test_lru_budget_and_stats() -> None:
    memo = MemoEncoder(LLAMA, budget_bytes=2000)
    body = "A long system prompt that repeats across requests. " * 4
    for i in range(5):
        memo.encode(f"<|begin_of_text|>{body}<|eot_id|>question {i} is here and it is long enough")
    # First sight of the body: a miss; second: a miss that admits it; then three hits.
    assert memo.stats.hits == 3 and memo.stats.misses == 7
    assert memo.stats.bytes <= 2000
    for i in range(40):
        for _ in range(2):  # admitted on second sight, so the budget is put under pressure
            memo.encode(f"<|begin_of_text|>unique piece number {i} that is long enough to be cached")
    assert memo.stats.evictions > 0 and memo.stats.bytes <= 2000


def test_memo_on_all_demo_traffic() -> None:
    memo = MemoEncoder(LLAMA)
    layout = Llama3Layout()
    checked = 0
    for path in sorted(DEMO_TRAFFIC.rglob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            rec = json.loads(line)
            if "messages" not in rec:
                continue
            text = layout.render(rec["messages"], rec.get("tools"), rec.get("timestamp"))
            assert memo.encode(text).tolist() == LLAMA.encode(text), f"{path}: {rec.get('id')}"
            checked += 1
    assert checked > 500
    assert memo.stats.hit_rate > 0.3


class _ListOnly:
    """An encoding without tiktoken's buffer call: the list fallback must agree."""

    def __init__(self, encoding) -> None:
        self.encode_ordinary = encoding.encode_ordinary


@settings(max_examples=200, deadline=None)
@given(st.lists(chunks, max_size=20))
def test_buffer_encoding_equals_encode_ordinary(parts: list[str]) -> None:
    text = "".join(parts)
    enc = LLAMA.tiktoken_encoding
    want = array("I", enc.encode_ordinary(text)).tobytes()
    assert ordinary_bytes(enc)(text) == want
    assert ordinary_bytes(_ListOnly(enc))(text) == want


blank_line_chunks = st.one_of(
    st.sampled_from(["\n\n", "\r\n\r\n", "\n\n\n", " \n\n", "}\n\n", "'\n\n", "\n\nQuestion", "\n\n1", "\n\n_",
                     "\n\né", "\n\n中", "\n\nⅫ", "\n\n²", "\n\n\u0301", "\n\n's", "<|eot_id|>"]),
    st.text(max_size=60),
    st.text(alphabet=" \n\r\t.,:;'\"-_{}aeiouAEIOU0123456789é中", min_size=100, max_size=400),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(blank_line_chunks, min_size=5, max_size=40), st.sampled_from(["llama3", "cl100k"]))
def test_cut_after_blank_lines_is_exact(parts: list[str], name: str) -> None:
    # Long pieces are cut where a letter or digit follows a blank line: the ids must be
    # those of the whole text, for every tokenizer the cut is enabled for.
    tok = load_tokenizer(name)
    text = "".join(parts) * 2
    memo = MemoEncoder(tok)
    assert memo.encode(text).tolist() == tok.encode(text)
    assert memo.encode(text).tolist() == tok.encode(text)
