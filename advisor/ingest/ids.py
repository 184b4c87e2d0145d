"""The packed-id layout: token ids (or block hash ids) as native unsigned 32-bit integers.

Ids are born here in ingest (the tokenizer memo, the pipeline's sequences) and travel as
``array('I')`` or as its raw bytes: the radix tree, the aligner, the job store and the trace
exporter all slice and compare those bytes ``ITEM`` at a time. Every conversion between the
two forms goes through this module, so the layout is written down once.
"""

from __future__ import annotations

from array import array
from typing import Iterable

TYPECODE = "I"
ITEM = 4  # bytes per id in a packed run
MAX_ID = 2**32 - 1  # the largest id the layout can hold
# Ids from here up stand for a multimodal item at its placeholder token (an image, an audio
# clip: advisor.ingest.cache_keys), never a vocabulary's token: no tokenizer has 2**31 ids.
# Bits 29-30 name the modality (MEDIA_KINDS), the low 29 bits come from the item's hash.
MEDIA_ID_BASE = 2**31
MEDIA_KINDS = ("image", "audio", "video", "media")


def is_media_id(token: int) -> bool:
    return token >= MEDIA_ID_BASE


def media_kind(token: int) -> str:
    """The modality a media id stands for."""
    return MEDIA_KINDS[(token >> 29) & 3]

# "I" is at least two bytes by the C standard; every platform we run on makes it four, and
# the byte offsets (``n * ITEM``) all over the index and the simulator rely on it.
assert array(TYPECODE).itemsize == ITEM


def empty() -> array:
    """An empty id array, to extend or fill with ``frombytes``."""
    return array(TYPECODE)


def as_array(ids: Iterable[int] | array) -> array:
    """``ids`` as an id array; an id array is returned as is, not copied."""
    if isinstance(ids, array) and ids.typecode == TYPECODE:
        return ids
    return array(TYPECODE, ids)


def pack(ids: Iterable[int] | array) -> bytes:
    """Ids as the packed bytes the radix tree and the job store keep."""
    if isinstance(ids, array) and ids.typecode == TYPECODE:
        return ids.tobytes()
    return array(TYPECODE, ids).tobytes()


def pack_one(token: int) -> bytes:
    return array(TYPECODE, (token,)).tobytes()


def unpack_array(data: bytes) -> array:
    """Packed bytes back to an id array."""
    out = array(TYPECODE)
    out.frombytes(data)
    return out


def unpack(data: bytes) -> list[int]:
    """Packed bytes back to a list of ids."""
    return unpack_array(data).tolist()


def count(data: bytes) -> int:
    """How many ids a packed run holds."""
    return len(data) // ITEM


def common_bytes(a: bytes, a_off: int, b: bytes, b_off: int) -> int:
    """Common prefix in bytes (whole ids) of ``a[a_off:]`` and ``b[b_off:]``: binary search
    over C-level ``startswith``."""
    lo, hi = 0, min(len(a) - a_off, len(b) - b_off) // ITEM
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if b.startswith(a[a_off:a_off + mid * ITEM], b_off):
            lo = mid
        else:
            hi = mid - 1
    return lo * ITEM


def find_item(hay: bytes, needle: bytes, start: int, end: int | None = None) -> int:
    """The first item-aligned occurrence of ``needle`` in ``hay[start:end]``, or -1 (a byte
    match that starts inside an id is no match of ids)."""
    stop = len(hay) if end is None else end
    j = hay.find(needle, start, stop)
    while j >= 0 and j % ITEM:
        j = hay.find(needle, j + 1, stop)
    return j


def rfind_item(hay: bytes, needle: bytes, start: int, end: int) -> int:
    """The last item-aligned occurrence of ``needle`` in ``hay[start:end]``, or -1."""
    j = hay.rfind(needle, start, end)
    while j >= 0 and j % ITEM:
        j = hay.rfind(needle, start, j + len(needle) - 1)
    return j
