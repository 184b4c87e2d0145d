"""Exact memoized tokenization for special-token-separated chat layouts.

tiktoken encodes ``text`` with special tokens allowed by cutting it at every special
token first and encoding each ordinary piece on its own (the BPE regex never sees across
a special token). So ``encode(text)`` equals the concatenation, piece by piece, of the
special ids and ``encode_ordinary(piece)``, and a piece seen before (a system prompt, a
tool block, an earlier turn of the same conversation) can reuse its ids. Layouts without
special-token separators degrade gracefully to one piece: plain whole-prompt encoding.

Only tiktoken-based tokenizers qualify; a HuggingFace tokenizer may normalise across
added tokens, so it is never memoized.
"""

from __future__ import annotations

import re
import threading
from array import array
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Callable

from advisor.ingest.fast_bpe import fast_ordinary
from advisor.ingest.ids import empty, pack, pack_one, unpack_array
from advisor.ingest.tokenizers import Tokenizer

MIN_PIECE_CHARS = 32  # shorter pieces encode faster than a cache round trip pays back
# A piece this long is also cut after each blank line that a letter or digit follows.
# Under the split patterns of Llama 3, cl100k and Qwen no pre-tokenizer chunk holds a
# newline followed by a letter or digit (the word and number alternatives never start
# with a newline, the others never continue after one into a word), so the halves encode
# to exactly the ids of the whole. Llama 3.1's first user turn is where it matters: the
# tool definitions shared by every request, then that request's own question.
CUT_PIECE_CHARS = 512


def cut_after_blank_lines(piece: str) -> list[str]:
    """``piece`` cut after each blank line that a letter or digit follows (``isalnum``:
    Unicode letters and numbers, exactly the regex classes the word and number
    alternatives start with)."""
    parts = []
    start = 0
    find = piece.find
    at = find("\n\n")
    while at != -1:
        end = at + 2
        if end < len(piece) and piece[end].isalnum():
            parts.append(piece[start:end])
            start = end
        at = find("\n\n", at + 1)
    parts.append(piece[start:])
    return parts
DEFAULT_BUDGET_BYTES = 256 * 1024 * 1024
SHORT_LIMIT = 65_536  # short pieces kept without LRU (a few MB at most)
SEEN_LIMIT = 1_000_000  # hashes of pieces seen once (~60 MB at most)
# riptoken's encoder (advisor.ingest.fast_bpe, where asked for) costs about 0.15 s to build and saves about
# 45% of tiktoken's time per character: built once this much text has missed the memo
# (about 0.3 s of tiktoken's work), so a small log never pays for it.
FAST_AFTER_CHARS = 1_000_000


@dataclass
class MemoStats:
    hits: int = 0
    misses: int = 0
    hit_chars: int = 0
    miss_chars: int = 0
    evictions: int = 0
    entries: int = 0
    bytes: int = 0

    @property
    def hit_rate(self) -> float:
        total = self.hit_chars + self.miss_chars
        return self.hit_chars / total if total else 0.0


class MemoEncoder:
    """Encodes prompts to packed uint32 ids, reusing ids of pieces seen before.

    The cache is an LRU bounded by bytes (key text plus packed ids). Safe to call from
    several threads: the encoding itself runs outside the lock, in tiktoken's native code.
    """

    def __init__(self, tokenizer: Tokenizer, budget_bytes: int = DEFAULT_BUDGET_BYTES) -> None:
        self.tokenizer = tokenizer
        self.budget = budget_bytes
        self.stats = MemoStats()
        self._lock = threading.Lock()
        self._cache: OrderedDict[str, bytes] = OrderedDict()
        self._seen: set[int] = set()
        self._short: dict[str, bytes] = {}
        encoding = tokenizer.tiktoken_encoding
        self.exact = encoding is not None
        if encoding is not None:
            specials = sorted(tokenizer.special_tokens, key=len, reverse=True)
            self._split = re.compile("(" + "|".join(re.escape(s) for s in specials) + ")") if specials else None
            self._special_bytes = {s: pack_one(i) for s, i in tokenizer.special_tokens.items()}
            self._ordinary = ordinary_bytes(encoding)
            self._encoding = encoding
            self._fast_pending = True
            from advisor.ingest.tokenizers import NEWLINE_SAFE_PATTERNS

            self._cut = encoding._pat_str in NEWLINE_SAFE_PATTERNS

    def encode(self, text: str) -> array:
        """Token ids of ``text`` (special tokens recognised), exactly as whole encoding."""
        if not self.exact:
            out = empty()
            out.extend(self.tokenizer.encode(text))
            return out
        if self.tokenizer.normalize is not None:
            text = self.tokenizer.normalize(text)
        pieces = self._split.split(text) if self._split is not None else [text]
        parts: list[bytes] = []
        # re.split with one capture group alternates ordinary text and special tokens.
        for index, piece in enumerate(pieces):
            if index % 2:
                parts.append(self._special_bytes[piece])
            elif piece:
                if self._cut and len(piece) >= CUT_PIECE_CHARS and "\n\n" in piece:
                    parts.extend(self._piece(p) for p in cut_after_blank_lines(piece) if p)
                else:
                    parts.append(self._piece(piece))
        return unpack_array(b"".join(parts))

    def _piece(self, piece: str) -> bytes:
        if len(piece) < MIN_PIECE_CHARS:
            # Role names and blank lines between specials: a few distinct strings that
            # every request repeats; a plain dict beats a call into the encoder.
            found = self._short.get(piece)
            if found is None:
                found = self._ordinary(piece)
                if len(self._short) >= SHORT_LIMIT:
                    self._short.clear()
                self._short[piece] = found
            return found
        with self._lock:
            found = self._cache.get(piece)
            if found is not None:
                self._cache.move_to_end(piece)
                self.stats.hits += 1
                self.stats.hit_chars += len(piece)
                return found
        ids = self._ordinary(piece)
        with self._lock:
            self.stats.misses += 1
            self.stats.miss_chars += len(piece)
            if self._fast_pending and self.stats.miss_chars >= FAST_AFTER_CHARS:
                self._fast_pending = False
                self._ordinary = fast_ordinary(self._encoding) or self._ordinary
            # Admit a piece on its second sight only: unique text (questions, documents)
            # then never churns the cache, and remembering it costs one hash.
            h = hash(piece)
            if h not in self._seen:
                if len(self._seen) >= SEEN_LIMIT:
                    self._seen.clear()
                self._seen.add(h)
            elif piece not in self._cache:
                self._cache[piece] = ids
                self.stats.entries += 1
                self.stats.bytes += _cost(piece, ids)
                while self.stats.bytes > self.budget and self._cache:
                    old_key, old_ids = self._cache.popitem(last=False)
                    self.stats.bytes -= _cost(old_key, old_ids)
                    self.stats.entries -= 1
                    self.stats.evictions += 1
        return ids


def ordinary_bytes(encoding: Any) -> Callable[[str], bytes]:
    """``encoding.encode_ordinary`` returning packed native uint32 ids.

    tiktoken's native core can hand its ids over as one uint32 buffer (the call its public
    ``encode_to_numpy`` wraps) instead of a list of Python ints that we would pack again:
    on Llama 3 text that is about a fifth less time per token than ``encode``, and it
    releases the GIL the same way. With no special token allowed the core encodes the
    text as ordinary text, as ``encode_ordinary`` does (the property tests check both).
    Where a tiktoken release lacks the call, the list path is used.
    """
    core = getattr(encoding, "_core_bpe", None)
    to_buffer = getattr(core, "encode_to_tiktoken_buffer", None)
    if to_buffer is None:
        ordinary = encoding.encode_ordinary
        return lambda piece: pack(ordinary(piece))
    none: set[str] = set()
    return lambda piece: bytes(to_buffer(piece, none))


def _cost(key: str, ids: bytes) -> int:
    # A str of ASCII text costs about one byte a character plus its header.
    return len(key) + len(ids) + 120
