"""Bounds on the options that size memory or processes, with the bound in the error.

The API checks them (``check_options``) and the commands' options carry them as typer
callbacks (``bounded``), so a script gets the refusal a command line gets.

``--replicas 1000000`` built a million pools (4.2 GB) and ``--workers 100000`` forked a
process storm before anything refused them. Each bound is far past any real deployment
(the largest SGLang / vLLM fleets run hundreds of replicas; a KV pool holds at most a few
million tokens per GPU) and keeps the allocation it drives small.
"""

from __future__ import annotations

from typing import Callable, Optional

from advisor.errors import AdvisorError

BOUNDS: dict[str, tuple[int, int]] = {
    "--replicas": (1, 1024),
    "--workers": (0, 64),
    "--block-size": (1, 1 << 20),
    "--page-size": (1, 1 << 20),
    "--capacity-tokens": (0, 10**12),
    "--max-running": (1, 1 << 20),
    "--max-prefill-tokens": (1, 1 << 30),
    "--output-len": (1, 2**31 - 1),
    "--requests": (1, 10_000_000),
    "--top": (0, 10_000),
    "--tp": (1, 1024),
    "--diagnose-limit": (0, 100_000_000),
}


def check_bound(option: str, value: Optional[int]) -> Optional[int]:
    lo, hi = BOUNDS[option]
    if value is not None and value < lo:
        raise AdvisorError(f"{option} must be at least {lo:,} (got {value:,})")
    if value is not None and value > hi:
        raise AdvisorError(f"{option} must be at most {hi:,} (got {value:,})")
    return value


def check_options(**values: Optional[int]) -> None:
    """The bounds of the API's keyword arguments, under the options' names (``page_size``
    is ``--page-size``): the same limits and messages as the command line."""
    for name, value in values.items():
        check_bound("--" + name.replace("_", "-"), value)


def bounded(option: str) -> Callable[[Optional[int]], Optional[int]]:
    """A typer option callback that refuses values outside ``BOUNDS[option]``."""
    BOUNDS[option]  # a typo in an option name fails at import, not at run time

    def check(value: Optional[int]) -> Optional[int]:
        return check_bound(option, value)

    return check


def warmup_fraction(value: float) -> float:
    """``--warmup``: a fraction that leaves requests to measure. At 1 every request only
    warms the cache, and the report would be a hit rate over no request at all."""
    if value < 0.0:
        raise AdvisorError(f"--warmup must be at least 0 (got {value:g})")
    if value >= 1.0:
        raise AdvisorError(f"--warmup must be below 1 (got {value:g}): at 1 no request is measured")
    return value


TIMESTAMP_UNITS = ("auto", "s", "ms", "us", "ns")
TIMESTAMP_UNIT_HELP = ("Unit of the input timestamps: auto (epochs in s, ms, us or ns told apart by size, as "
                       "simulate reads them), s, ms, us or ns.")


def check_timestamp_unit(unit: str) -> str:
    """``--timestamp-unit``: the same units on every command that reads times."""
    if unit not in TIMESTAMP_UNITS:
        raise AdvisorError(f"unknown --timestamp-unit '{unit}': use {', '.join(TIMESTAMP_UNITS)}")
    return unit
