"""riptoken's encoder gives tiktoken's ids exactly, family by family, or is not used.

The oracle is tiktoken itself (``encode_ordinary`` on the same ranks and pattern). The
corpus is this repository's own text (Python, YAML, JSON, Markdown, the demo traffic's
prompts in several languages) cut into pieces, random text over an alphabet of the
characters the split patterns treat apart (every kind of whitespace, marks, scripts,
digits, contractions), and the probe the runtime check uses.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.ingest import fast_bpe, memo
from advisor.ingest.memo import MemoEncoder
from advisor.ingest.tokenizers import load_tokenizer

ROOT = Path(__file__).resolve().parents[1]
# Llama 3, cl100k and Qwen: three vocabularies and three split patterns (Qwen's digits
# one at a time); Qwen 2.5 and 3 share the vocabulary.
FAMILIES = ("llama3", "cl100k", "qwen3")
ENCODINGS = {name: load_tokenizer(name).tiktoken_encoding for name in FAMILIES}
FAST = {name: fast_bpe.fast_ordinary(enc, enabled=True) for name, enc in ENCODINGS.items()}
# Characters each split pattern treats apart: whitespace of every kind (vertical tab, form
# feed, NEL, line and paragraph separators, no-break and ideographic spaces), zero-width
# characters, combining marks, letters and digits of several scripts, contractions, emoji.
ALPHABET = [" ", "  ", "\n", "\r", "\r\n", "\t", "\x0b", "\x0c", "\x85", "\u2028", "\u2029", "\xa0", "\u3000",
            "\u200b", "\u200d", "\u0301", "a", "Z", "é", "ß", "İ", "ı", "日本", "한", "ع", "я", "1", "23", "٣",
            "456", ".", ",", "-", "_", "#", "'s", "'LL", "'", "\"", "{", "😀", "👍🏽", "🇩🇪", "\x00"]


def _ids(name: str, text: str) -> list[int]:
    fast = FAST[name]
    assert fast is not None, f"riptoken is not exact on the probe for {name}"
    data = fast(text)
    return [int.from_bytes(data[i:i + 4], "little") for i in range(0, len(data), 4)]


def _corpus_pieces() -> list[str]:
    """The repository's own text in pieces of 1-4,000 characters cut at random offsets
    (a prompt's pieces start and end anywhere)."""
    files = sorted([*ROOT.glob("advisor/**/*.py"), *ROOT.glob("templates/**/*"), *ROOT.glob("docs/**/*.md"),
                    *ROOT.glob("rules/**/*"), ROOT / "README.md"])
    rng = random.Random(17)
    pieces = []
    for path in files:
        if not path.is_file() or path.stat().st_size > 2_000_000:
            continue
        text = path.read_bytes().decode("utf-8", "replace")
        at = 0
        while at < len(text):
            size = rng.randint(1, 4000)
            pieces.append(text[at:at + size])
            at += size
    return pieces


CORPUS = _corpus_pieces()


@pytest.mark.parametrize("name", FAMILIES)
def test_exact_on_the_repository_corpus(name: str) -> None:
    enc = ENCODINGS[name]
    assert len(CORPUS) > 1000 and sum(map(len, CORPUS)) > 1_000_000
    wrong = [piece[:60] for piece in CORPUS if _ids(name, piece) != enc.encode_ordinary(piece)]
    assert wrong == []


@pytest.mark.parametrize("name", FAMILIES)
@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(ALPHABET), max_size=40))
def test_exact_on_random_text(name: str, parts: list[str]) -> None:
    text = "".join(parts)
    assert _ids(name, text) == ENCODINGS[name].encode_ordinary(text)


@pytest.mark.parametrize("name", FAMILIES)
@settings(max_examples=150, deadline=None)
@given(st.text(max_size=200))
def test_exact_on_any_unicode(name: str, text: str) -> None:
    enc = ENCODINGS[name]
    try:
        expected = enc._core_bpe.encode_ordinary(text)
    except UnicodeEncodeError:  # a lone surrogate: both refuse it the same way
        with pytest.raises(UnicodeEncodeError):
            _ids(name, text)
        return
    assert _ids(name, text) == expected


def test_an_encoder_that_differs_on_the_probe_is_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    import riptoken

    real = riptoken.CoreBPE

    class OffByOneOnNewlines:
        """riptoken that encodes a whitespace run holding two newlines as the next id."""

        def __init__(self, *args: object) -> None:
            self.core = real(*args)

        def encode_ordinary(self, text: str) -> list[int]:
            ids = self.core.encode_ordinary(text)
            return [i + 1 for i in ids] if "\n   \n" in text else ids

    monkeypatch.setattr(riptoken, "CoreBPE", OffByOneOnNewlines)
    assert fast_bpe.fast_ordinary(ENCODINGS["llama3"], enabled=True) is None


def test_off_unless_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ADVISOR_FAST_BPE", raising=False)
    assert fast_bpe.fast_ordinary(ENCODINGS["llama3"]) is None
    monkeypatch.setenv("ADVISOR_FAST_BPE", "1")
    assert fast_bpe.fast_ordinary(ENCODINGS["llama3"]) is not None


def test_the_memo_switches_encoders_without_changing_an_id(monkeypatch: pytest.MonkeyPatch) -> None:
    # A small threshold: the first pieces go through tiktoken, the rest through riptoken.
    monkeypatch.setattr(memo, "FAST_AFTER_CHARS", 2000)
    monkeypatch.setenv("ADVISOR_FAST_BPE", "1")
    tok = load_tokenizer("llama3")
    encoder = MemoEncoder(tok)
    first = encoder._ordinary  # noqa: SLF001
    texts = [f"<|begin_of_text|>{piece}<|eot_id|>" for piece in CORPUS[:200]]
    got = [encoder.encode(t).tolist() for t in texts]
    assert encoder._ordinary is not first  # noqa: SLF001 (switched to riptoken)
    assert got == [tok.encode(t) for t in texts]
