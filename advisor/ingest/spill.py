"""Tokenized requests set aside on disk, to be read back once the tokenizer is gone.

``analyze`` reads the traffic in two passes over one stream: the first tokenizes every
request and writes its ``Sequence`` here (packed ids and the request's small fields, not its
text); the second reads them back, in the same order, into the radix tree and the diagnosis.
Between the two the tokenizer can be let go (``advisor.ingest.decoder``), so the tree grows
into the memory it held instead of beside it: on a RAG log of 10,000 requests the tokenizer
is a third of the process. The file is a temporary one, unlinked at once (nothing is left
behind, whatever stops the run), written and read in batches of about ``BATCH_BYTES``.
"""

from __future__ import annotations

import dataclasses
import pickle
import tempfile
from typing import IO, Any, Iterator

from advisor.ingest.pipeline import Sequence
from advisor.ingest.traffic import Request

BATCH_BYTES = 1 << 20
BATCH_REQUESTS = 256
# A request's payload: what it renders from, read by no stage after tokenization (with its
# messages and tools; a layout sample of the diagnosis reads those: kept where asked, ``add(keep_payload=)``).
PAYLOAD = ("prompt", "input_ids", "hash_ids", "variables")


def light(request: Request, keep_payload: bool = False) -> Request:
    """``request`` without its payload (with messages and tools where ``keep_payload``)."""
    dropped = PAYLOAD if keep_payload else (*PAYLOAD, "messages", "tools")
    if all(getattr(request, k) is None for k in dropped):
        return request
    cleared: dict[str, Any] = dict.fromkeys(dropped)
    return dataclasses.replace(request, **cleared)


class SequenceSpill:
    """``add`` sequences, then iterate over them once, in the order they were added (each
    with its request's light copy). A context manager: leaving it closes the file."""

    def __init__(self) -> None:
        self._file: IO[bytes] = tempfile.TemporaryFile(prefix="advisor-spill-")
        self._batch: list[Sequence] = []
        self._bytes = 0
        self.count = 0

    def add(self, seq: Sequence, keep_payload: bool = False) -> None:
        self._batch.append(dataclasses.replace(seq, request=light(seq.request, keep_payload)))
        self._bytes += len(seq.ids) * seq.ids.itemsize
        self.count += 1
        if self._bytes >= BATCH_BYTES or len(self._batch) >= BATCH_REQUESTS:
            self._flush()

    def _flush(self) -> None:
        if self._batch:
            pickle.dump(self._batch, self._file, protocol=pickle.HIGHEST_PROTOCOL)
            self._batch, self._bytes = [], 0

    def __iter__(self) -> Iterator[Sequence]:
        self._flush()
        self._file.seek(0)
        while True:
            try:
                # A new unpickler each batch: one's memo would keep every batch it read.
                batch: list[Sequence] = pickle.load(self._file)
            except EOFError:
                return
            # Handed out one at a time: the batch holds the rest, nothing else holds them.
            batch.reverse()
            while batch:
                yield batch.pop()

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> "SequenceSpill":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
