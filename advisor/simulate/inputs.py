"""Sequences (from the shared loaders) to simulator jobs, with arrival times in seconds."""

from __future__ import annotations

import random
from typing import Iterable

from advisor.errors import AdvisorError
from advisor.pipeline import Sequence
from advisor.simulate.model import Job

# A relative trace spanning more than this many "seconds" is taken to be in ms: ten
# hours of seconds is a long trace, ten hours of ms (36 s) a short one.
MS_SPAN = 36_000.0


def timestamp_scale(stamps: list[float], unit: str = "auto") -> float:
    """Seconds per timestamp unit. ``auto``: epoch ms (> 1e12) or a long relative span
    (the Mooncake traces: 0..3,536,999 ms) means milliseconds, otherwise seconds."""
    if unit == "s":
        return 1.0
    if unit == "ms":
        return 1e-3
    if unit != "auto":
        raise AdvisorError(f"unknown timestamp unit {unit!r}: use auto, s or ms")
    if not stamps:
        return 1.0
    lo, hi = min(stamps), max(stamps)
    if hi > 1e12:
        return 1e-3
    if lo > 1e9:  # epoch seconds
        return 1.0
    return 1e-3 if hi - lo > MS_SPAN else 1.0


def to_jobs(seqs: Iterable[Sequence], output_len: int | None = None, rate: float | None = None,
            timestamp_unit: str = "auto", seed: int = 0) -> tuple[list[Job], bool]:
    """Jobs in arrival order and whether the arrivals came from timestamps.

    ``rate`` (requests/s) overrides timestamps with Poisson arrivals (seeded); without
    either, every request arrives at 0 (an offline batch).
    """
    # One pass, keeping only the jobs: a Sequence holds its Request (token ids as Python
    # ints, ~10 KB a request), so listing the sequences first cost 15 KB a request.
    jobs: list[Job] = []
    stamps: list[float | None] = []
    for i, s in enumerate(seqs):
        stamps.append(s.request.timestamp)
        jobs.append(Job.from_sequence(i, s, 0.0, output_len))
    have_stamps = bool(jobs) and all(t is not None for t in stamps)
    if rate is not None:
        if rate <= 0:
            raise AdvisorError("--rate must be positive")
        rng = random.Random(seed)
        t = 0.0
        for job in jobs:
            job.arrival = t
            t += rng.expovariate(rate)
        return jobs, False
    if have_stamps:
        values = [float(t) for t in stamps]  # type: ignore[arg-type]
        scale = timestamp_scale(values, timestamp_unit)
        base = min(values)
        for job, t in zip(jobs, values):
            job.arrival = (t - base) * scale
        # Arrival order: by time, file order among equal times (a stable sort).
        jobs.sort(key=lambda j: j.arrival)
        for i, job in enumerate(jobs):
            job.index = i
    return jobs, have_stamps
