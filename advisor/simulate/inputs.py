"""Sequences (from the shared loaders) to simulator jobs, with arrival times in seconds."""

from __future__ import annotations

import random
from array import array
from typing import Callable, Iterable

from advisor.errors import AdvisorError
from advisor.ingest.pipeline import Sequence, reason_of
from advisor.ingest.traffic import Skip
from advisor.simulate.jobs import JobStore
from advisor.simulate.model import Job

# A relative trace spanning more than this many "seconds" is taken to be in ms: ten
# hours of seconds is a long trace, ten hours of ms (36 s) a short one.
MS_SPAN = 36_000.0
UNITS = {"ms": 1e-3, "us": 1e-6, "ns": 1e-9}


def timestamp_scale(stamps: "array | list[float]", unit: str = "auto") -> float:
    """Seconds per timestamp unit. ``auto``: epoch ns, us or ms (> 1e18, 1e15, 1e12) or a long relative span
    (the Mooncake traces: 0..3,536,999 ms) means milliseconds, otherwise seconds."""
    if unit == "s":
        return 1.0
    if unit in UNITS:
        return UNITS[unit]
    if unit != "auto":
        raise AdvisorError(f"unknown timestamp unit {unit!r}: use auto, s, ms, us or ns")
    if not stamps:
        return 1.0
    lo, hi = min(stamps), max(stamps)
    # Epoch ns, us or ms (each past 2001 in its unit).
    for scale in (1e-9, 1e-6, 1e-3):
        if hi > 1e9 / scale:
            return scale
    if lo > 1e9:  # epoch seconds
        return 1.0
    return 1e-3 if hi - lo > MS_SPAN else 1.0


def to_jobs(seqs: Iterable[Sequence], output_len: int | None = None, rate: float | None = None,
            timestamp_unit: str = "auto", seed: int = 0,
            on_skip: Callable[[Skip], None] | None = None) -> tuple[JobStore, bool]:
    """Jobs in arrival order and whether the arrivals came from timestamps.

    ``rate`` (requests/s) overrides timestamps with Poisson arrivals (seeded); without
    either, every request arrives at 0 (an offline batch). With ``on_skip``, a record that
    cannot become a job is that line's skip (the per-record guard) and the rest go on.
    """
    # One pass into the store: a Sequence holds its Request (its payload), so only the
    # packed ids and a few numbers are kept.
    store = JobStore()
    stamps = array("d")
    have_stamps = True
    for s in seqs:
        try:
            job = Job.from_sequence(len(store), s, 0.0, output_len)
        except Exception as exc:
            if on_skip is None:
                raise
            on_skip(Skip(s.request.source, s.request.line, reason_of(exc)))
            continue
        store.add(job)
        stamp = s.request.timestamp
        if stamp is None:
            have_stamps = False
        elif have_stamps:
            stamps.append(float(stamp))
    store.seal()
    have_stamps = have_stamps and len(store) > 0
    if rate is not None:
        if rate <= 0:
            raise AdvisorError("--rate must be positive")
        rng = random.Random(seed)
        arrivals = array("d")
        t = 0.0
        for _ in range(len(store)):
            arrivals.append(t)
            t += rng.expovariate(rate)
        store.set_arrivals(arrivals, sort=False)
        return store, False
    if have_stamps:
        scale = timestamp_scale(stamps, timestamp_unit)
        base = min(stamps)
        # Arrival order: by time, file order among equal times (a stable sort).
        store.set_arrivals(array("d", ((t - base) * scale for t in stamps)), sort=True)
    return store, have_stamps
