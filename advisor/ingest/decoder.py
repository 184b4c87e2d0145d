"""Letting the tokenizer go once the traffic is tokenized, keeping its decoding.

A tiktoken-based tokenizer holds its vocabulary twice over: the ranks read from the rank
file (a dict of 128k byte strings, ~19 MiB for Llama 3, which ``tiktoken.Encoding`` keeps
only to be pickled) and tiktoken's native encoder and decoder maps (~33 MiB): a third of
``analyze``'s peak on a RAG log of 10,000 requests. Past the last request only decoding is
left (the top branches' previews, the diagnosis' texts), and decoding needs only each id's
bytes: ~1.3 MB as one string of bytes and its offsets (``TableDecode``).

``release_tokenizer(spec)`` swaps the loaded tokenizer for one that decodes from that table
and encodes nothing, and drops the loaded one from ``load_tokenizer``'s cache, so its memory
goes back to the allocator before the radix tree (``analyze``) or the replays' trees
(``simulate``) are built. A one-shot command line run asks for it
(``advisor.commands.common.standalone``); the API keeps the tokenizer loaded for the next
call unless told otherwise.
"""

from __future__ import annotations

import dataclasses
import gc
from array import array
from typing import Any, Sequence

from advisor.ingest.tokenizers import Tokenizer, load_tokenizer


class TableDecode:
    """tiktoken's ``Encoding.decode`` from a table of each id's bytes: the bytes of the ids
    joined, read as UTF-8 with invalid sequences replaced (what tiktoken does), and the
    ``KeyError`` tiktoken raises for an id it does not know."""

    def __init__(self, encoding: Any) -> None:
        blob = bytearray()
        offsets = array("q", [0])  # byte offsets into the table, not token ids
        gaps = []
        for token in range(encoding.max_token_value + 1):
            try:
                blob += encoding.decode_single_token_bytes(token)
            except KeyError:  # an id the vocabulary skips (cl100k has a few)
                gaps.append(token)
            offsets.append(len(blob))
        self._blob = bytes(blob)
        self._offsets = offsets
        self._gaps = frozenset(gaps)

    def __call__(self, ids: Sequence[int]) -> str:
        blob, offsets = self._blob, self._offsets
        if ids and (min(ids) < 0 or max(ids) >= len(offsets) - 1 or not self._gaps.isdisjoint(ids)):
            self._refuse(ids)
        return b"".join([blob[offsets[i]:offsets[i + 1]] for i in ids]).decode("utf-8", errors="replace")

    def _refuse(self, ids: Sequence[int]) -> None:
        for i in ids:
            if i < 0:
                raise OverflowError("can't convert negative int to unsigned")
            if i >= len(self._offsets) - 1 or i in self._gaps:
                raise KeyError(f"Invalid token for decoding: {i}")


def _encodes_nothing(*_: Any) -> Any:
    raise RuntimeError("this tokenizer was released after tokenization: it only decodes")


# The fields a decode-only tokenizer keeps as they are: facts, and the normalization (small).
KEPT_FIELDS = frozenset({"name", "vocab_size", "bos_token", "bos_id", "eos_token", "special_tokens", "normalize"})


def decode_only(tok: Tokenizer) -> Tokenizer | None:
    """``tok`` as a tokenizer that decodes exactly as it does and holds nothing else of it;
    None when it is not tiktoken-based (its decoding is not a table of bytes). Its encoders
    refuse; any other field (the encoding, an accelerated core) goes back to its default."""
    encoding = tok.tiktoken_encoding
    if encoding is None:
        return None
    changes: dict[str, Any] = {"encode_fn": _encodes_nothing, "encode_batch_fn": _encodes_nothing,
                               "decode_fn": TableDecode(encoding)}
    for f in dataclasses.fields(tok):
        if f.name in changes or f.name in KEPT_FIELDS or not f.init:
            continue
        if f.default is not dataclasses.MISSING:
            changes[f.name] = f.default
        elif f.default_factory is not dataclasses.MISSING:
            changes[f.name] = f.default_factory()
    return dataclasses.replace(tok, **changes)


def release_tokenizer(spec: str) -> Tokenizer:
    """The tokenizer ``spec`` names, to decode with: where it is tiktoken-based, a decoding
    table in its place, and the loaded one dropped from ``load_tokenizer``'s cache (a later
    call loads it again). The caller lets go of its own references to the loaded tokenizer
    and to whatever holds it (the tokenizer memo, the renderer) before calling."""
    loaded = load_tokenizer(spec)
    light = decode_only(loaded)
    if light is None:
        return loaded
    del loaded
    load_tokenizer.cache_clear()
    gc.collect()  # closures and the native cores in reference cycles go now, not at some later collection
    return light
