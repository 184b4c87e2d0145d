"""What every API function shares: the traffic argument, the skipped records, the result base.

Traffic is a path, a list of paths, or records: an iterable of dicts of the shapes a JSONL
file holds. Records are read where a file is read (``advisor.ingest.traffic.Records``), so
they go through the same input formats, validation and skips; record N stands in the place
of line N of a file named ``<records>``.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar, Union

from advisor.console import visible
from advisor.errors import AdvisorError
from advisor.ingest.pipeline import Sequence
from advisor.ingest.source import SkipLog
from advisor.ingest.traffic import Records, Skip, check_paths

PathLike = Union[str, "os.PathLike[str]"]
# A path, several paths, or records (dicts; ``Records`` to name them otherwise than <records>).
Traffic = Union[PathLike, Records, Iterable[PathLike], Iterable[Mapping[str, Any]]]
# Passes the sequences through on their way to the index (the command's progress bar).
Progress = Callable[[Iterator[Sequence], str], Iterator[Sequence]]
SkipHook = Callable[[Skip], None]


_NOTHING = object()


def traffic_sources(traffic: Traffic) -> list[Path | Records]:
    """The traffic argument as the sources the loader reads: paths, or one ``Records``.

    A string or path is one file; an iterable whose first item is a string or path is a list
    of files; any other iterable is records, read lazily, once. One dict is one record."""
    if isinstance(traffic, (str, os.PathLike)):
        return [Path(traffic)]
    if isinstance(traffic, Records):
        return [traffic]
    if isinstance(traffic, Mapping):
        return [Records([traffic])]
    if isinstance(traffic, (bytes, bytearray)) or not isinstance(traffic, Iterable):
        raise AdvisorError(f"traffic: give a path, a list of paths or records (dicts), not {type(traffic).__name__}")
    items = iter(traffic)
    first = next(items, _NOTHING)
    if first is _NOTHING:
        check_paths([])  # "no traffic files given", the loader's own message
    if isinstance(first, (str, os.PathLike, Records)):
        out: list[Path | Records] = []
        for item in itertools.chain([first], items):
            if isinstance(item, Records):
                out.append(item)
            elif isinstance(item, (str, os.PathLike)):
                out.append(Path(item))
            else:
                raise AdvisorError(f"traffic: a list of paths holds a {type(item).__name__}; give paths or "
                                   "records, not both")
        return out
    return [Records(itertools.chain([first], items))]


def shown_names(sources: list[Path | Records]) -> list[str]:
    """The sources as the reports name them (``<records>`` for records)."""
    return [str(s) for s in sources]


@dataclass
class SkipCollector(SkipLog):
    """The skipped lines and records of one call: counted and kept (the first 1,000), never
    printed; each one also goes to ``forward`` (the command prints the first ones as they
    happen)."""

    quiet: bool = True
    forward: SkipHook | None = None

    def __call__(self, skip: Skip) -> None:
        super().__call__(skip)
        if self.forward is not None:
            self.forward(skip)


def passthrough(items: Iterator[Sequence], label: str) -> Iterator[Sequence]:
    """No progress display: the sequences as they are."""
    return items


def then(progress: Progress, done: Callable[[], None]) -> Progress:
    """``progress``, and ``done()`` once the traffic has been read to its end (not when
    reading it fails): the commands print their skipped-line summary there."""

    def wrapped(items: Iterator[Sequence], label: str) -> Iterator[Sequence]:
        yield from progress(items, label)
        done()

    return wrapped


@dataclass
class Result:
    """What every API function returns.

    ``data`` is the dict the command prints with ``--format json``; ``skipped`` the lines or
    records that were skipped (the first 1,000, each with its source, line and reason) and
    ``skipped_count`` all of them."""

    data: dict[str, Any]
    skipped: list[Skip] = field(default_factory=list)
    skipped_count: int = 0

    def _json(self) -> str:
        raise NotImplementedError

    def to_json(self) -> str:
        """The text ``--format json`` prints (control characters escaped as it writes them)."""
        return visible(self._json())

    def _repr_html_(self) -> str:
        """The headline figures as a small HTML table (notebooks; advisor.report.notebook)."""
        raise NotImplementedError


R = TypeVar("R", bound=Result)


def with_skips(result: R, skips: SkipLog) -> R:
    """``result`` with the skips of its run."""
    result.skipped = list(skips.items)
    result.skipped_count = skips.count
    return result
