"""Observed counts that arrive on lines of their own, joined to requests by id: OpenAI
Batch output files (their input file holds the prompts) and SGLang ``Finish`` lines
(after the ``Receive`` line of the same request)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from typing import Any, TypeVar


FIELDS = {"cached_tokens": "cached_tokens", "prompt_tokens": "reported_prompt_tokens",
          "output_length": "output_length"}

# Requests are advisor.ingest.traffic.Request (not imported: the package reads traffic's
# records, traffic never imports the package); a source is a path, or records given as
# values (advisor.ingest.traffic.Records).
Source = TypeVar("Source")
Reader = Callable[[Source, dict[str, dict[str, Any]], "str | None"], Iterator[Any]]


def attach(req: Any, observed: dict[str, dict[str, Any]]) -> Any:
    if req.id is None:
        return req
    got = observed.get(req.id)
    if not got:
        return req
    change = {}
    for key, attr in FIELDS.items():
        if got.get(key) is not None and getattr(req, attr) is None:
            change[attr] = got[key]
    return replace(req, **change) if change else req


OUTPUTS = frozenset({"openai-batch-output"})  # files that only observe
OBSERVING = frozenset({"sglang-log"})  # files that observe their own requests


def joined(paths: Iterable[Source], read: Reader[Source], sniff: Callable[[Source], str | None],
           forced: str | None, observing: frozenset[str] = OBSERVING,
           outputs: frozenset[str] = OUTPUTS) -> Iterator[Any]:
    """Requests of ``paths`` in order, with observations joined. Files that only observe
    (Batch output) are read first; files that observe their own requests are held
    until read whole."""
    paths = list(paths)
    kinds = {p: forced or (sniff(p) if str(p) != "-" else None) for p in paths}
    observed: dict[str, dict[str, Any]] = {}
    for p in paths:
        if kinds[p] in outputs:
            for _ in read(p, observed, kinds[p] if forced else None):
                pass
    for p in paths:
        if kinds[p] in outputs:
            continue
        if kinds[p] in observing:
            held = list(read(p, observed, forced))
            for req in held:
                yield attach(req, observed)
        else:
            for req in read(p, observed, forced):
                yield attach(req, observed)
