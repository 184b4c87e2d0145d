"""Observed counts picked up from the sequences on their way to the simulator."""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Iterator

from advisor.ingest.pipeline import Sequence
from advisor.ingest.traffic import Skip
from advisor.verify.compare import Observed


def watch(seqs: Iterable[Sequence], into: Observed) -> Iterator[Sequence]:
    """Pass ``seqs`` through, noting each request's observed count by input position."""
    n = -1
    for n, seq in enumerate(seqs):
        req = seq.request
        into.add(n, req.where, req.id, seq.prompt_tokens, req.cached_tokens, req.reported_prompt_tokens)
        yield seq
    into.total_requests = n + 1


def dropping(into: Observed, on_skip: Callable[[Skip], None]) -> tuple[Callable[[Skip], None], list[int]]:
    """An ``on_skip`` for ``to_jobs`` reading from ``watch``: a record it refuses (the
    per-record guard) was counted by ``watch`` just before, so its input position is kept
    to be dropped with ``without``; and that list."""
    dropped: list[int] = []

    def skip(item: Skip) -> None:
        dropped.append(into.total_requests - 1)
        on_skip(item)

    return skip, dropped


def without(obs: Observed, dropped: list[int]) -> Observed:
    """``obs`` without the requests at input positions ``dropped``, the later ones moved up:
    they are no requests of the run."""
    if not dropped:
        return obs
    gone = sorted(dropped)
    out = Observed()
    for i, pos in enumerate(obs.position):
        at = bisect.bisect_left(gone, pos)
        if at < len(gone) and gone[at] == pos:
            continue
        out.add(pos - at, obs.lines[i], obs.ids[i], obs.prompt[i], obs.observed[i], obs.reported_prompt[i])
    out.total_requests = obs.total_requests - len(gone)
    return out
