"""Observed counts picked up from the sequences on their way to the simulator."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from advisor.ingest.pipeline import Sequence
from advisor.verify.compare import Observed


def watch(seqs: Iterable[Sequence], into: Observed) -> Iterator[Sequence]:
    """Pass ``seqs`` through, noting each request's observed count by input position."""
    n = -1
    for n, seq in enumerate(seqs):
        req = seq.request
        into.add(n, req.where, req.id, seq.prompt_tokens, req.cached_tokens, req.reported_prompt_tokens)
        yield seq
    into.total_requests = n + 1
