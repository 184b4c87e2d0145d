"""Block-hash traces from token traffic: Mooncake rows and Bailian rows.

Each request's tokens are cut into blocks of the engine's block size; block i's hash
is a keyed BLAKE2b of block i-1's hash and block i's token ids (chained, so equal hashes
mean equal prefixes, as vLLM's and Mooncake's are), the key being the salt. Hashes are
then numbered in order of first appearance, so the rows hold small integers that say
which prefixes are shared and nothing about the tokens. The last block may be partial:
it is hashed over the tokens it has (Mooncake's rule: ``len(hash_ids) ==
ceil(input_length / block_size)``), so two prompts that are equal to the end share it.
Rows keep lengths, relative arrival times, output lengths and sessions; no text, ids
or request names.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from advisor.errors import AdvisorError
from advisor.ingest.ids import ITEM, pack
from advisor.ingest.pipeline import Sequence
from advisor.simulate.inputs import timestamp_scale

FORMATS = ("mooncake", "bailian")
BAILIAN_BLOCK = 16
DIGEST = 16


@dataclass
class Hasher:
    """Chained, salted block hashes numbered by first appearance."""

    block_size: int
    salt: bytes
    numbers: dict[bytes, int] = field(default_factory=dict)

    def hash_ids(self, seq: Sequence) -> list[int]:
        root = hashlib.blake2b(seq.namespace.encode(), key=self.salt, digest_size=DIGEST).digest()
        if seq.unit == 1:
            raw = pack(seq.ids)
            step = ITEM * self.block_size
        elif seq.unit == self.block_size:
            raw = pack(seq.ids)
            step = ITEM  # a block-hash trace at the same block size: re-hash its blocks
        else:
            raise AdvisorError(f"{seq.request.where}: a block-hash trace of {seq.unit}-token blocks cannot be "
                               f"re-cut into {self.block_size}-token blocks")
        out = []
        parent = root
        for off in range(0, len(raw), step):
            parent = hashlib.blake2b(parent + raw[off:off + step], key=self.salt, digest_size=DIGEST).digest()
            n = self.numbers.get(parent)
            if n is None:
                n = self.numbers[parent] = len(self.numbers)
            out.append(n)
        return out


@dataclass
class Row:
    position: int
    timestamp: float | None
    input_length: int
    output_length: int | None
    hash_ids: list[int]
    session: str | None


def rows(seqs: Iterable[Sequence], hasher: Hasher) -> list[Row]:
    out = []
    for n, seq in enumerate(seqs):
        req = seq.request
        out.append(Row(n, req.timestamp, seq.prompt_tokens, req.output_length, hasher.hash_ids(seq), req.session))
    return out


def _arrivals(found: list[Row], unit: str) -> list[float] | None:
    """Seconds from the first arrival, or None when some request has no timestamp."""
    stamps = [r.timestamp for r in found]
    if not stamps or any(t is None for t in stamps):
        return None
    values = [float(t) for t in stamps if t is not None]
    scale = timestamp_scale(values, unit)
    base = min(values)
    return [(t - base) * scale for t in values]


def write(found: list[Row], fmt: str, block_size: int, unit: str = "auto") -> Iterator[str]:
    """The trace's lines, in arrival order (file order among equal times)."""
    if fmt not in FORMATS:
        raise AdvisorError(f"unknown --format '{fmt}': use mooncake or bailian")
    arrivals = _arrivals(found, unit)
    order = sorted(range(len(found)), key=(lambda i: (arrivals[i], i)) if arrivals else (lambda i: i))
    # Sessions renamed by first appearance, like the hashes: order kept, names dropped.
    session_no: dict[str, int] = {}
    last_of: dict[str, int] = {}
    turns: dict[str, int] = {}
    for chat, i in enumerate(order):
        r = found[i]
        row: dict[str, object] = {}
        if fmt == "mooncake":
            if arrivals is not None:
                row["timestamp"] = round(arrivals[i] * 1000)
            if r.session is not None:
                row["session_id"] = f"s{session_no.setdefault(r.session, len(session_no))}"
            row["input_length"] = r.input_length
            if r.output_length is not None:
                row["output_length"] = r.output_length
            row["hash_ids"] = r.hash_ids
            if block_size != 512:
                row["block_size"] = block_size
        else:
            parent = -1
            turn = 1
            if r.session is not None:
                parent = last_of.get(r.session, -1)
                turn = turns[r.session] = turns.get(r.session, 0) + 1
                last_of[r.session] = chat
            row["chat_id"] = chat
            row["parent_chat_id"] = parent
            if arrivals is not None:
                row["timestamp"] = round(arrivals[i], 6)
            row["input_length"] = r.input_length
            row["output_length"] = r.output_length if r.output_length is not None else 0
            row["type"] = "text"
            row["turn"] = turn
            row["hash_ids"] = r.hash_ids
            if block_size != BAILIAN_BLOCK:
                row["block_size"] = block_size
        yield json.dumps(row, separators=(", ", ": ")) + "\n"
