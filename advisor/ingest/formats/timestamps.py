"""Timestamps as logs write them: seconds or milliseconds (numbers, kept as given; the
simulator tells the unit from the span), or ISO-8601 text with a zone (epoch seconds)."""

from __future__ import annotations

import math
from datetime import datetime

from advisor.ingest.traffic import BadRecord


def parse_timestamp(value: object, name: str = "timestamp") -> float:
    """A number as is; an ISO-8601 string with a zone as epoch seconds; else ``BadRecord``."""
    if isinstance(value, bool):
        raise BadRecord(f"'{name}' must be a number or an ISO-8601 time")
    if isinstance(value, (int, float)):
        if not math.isfinite(value):
            raise BadRecord(f"'{name}' must be a finite number")
        return float(value)
    if isinstance(value, str):
        return iso_seconds(value, name)
    raise BadRecord(f"'{name}' must be a number or an ISO-8601 time")


def iso_seconds(text: str, name: str = "timestamp") -> float:
    raw = text.strip()
    # Python before 3.11 reads neither 'Z' nor more than 6 fraction digits (OTel and
    # Langfuse write nanoseconds): normalise both before parsing.
    if raw.endswith(("Z", "z")):
        raw = raw[:-1] + "+00:00"
    raw = _trim_fraction(raw)
    try:
        stamp = datetime.fromisoformat(raw)
    except ValueError:
        raise BadRecord(f"'{name}' must be a number or an ISO-8601 time (got {text[:40]!r})") from None
    if stamp.tzinfo is None:
        # A time without a zone is ambiguous by hours; guessing would shift arrivals.
        raise BadRecord(f"'{name}' {text[:40]!r} has no time zone (add Z or +HH:MM)")
    return stamp.timestamp()


def _trim_fraction(raw: str) -> str:
    dot = raw.find(".", 10)
    if dot < 0:
        return raw
    end = dot + 1
    while end < len(raw) and raw[end].isdigit():
        end += 1
    digits = raw[dot + 1 : end]
    if len(digits) <= 6:
        return raw
    return raw[: dot + 1] + digits[:6] + raw[end:]


def unix_nanos(value: object, name: str) -> float:
    """OTLP ``*UnixNano`` fields: integers, or decimal strings in OTLP JSON."""
    if isinstance(value, str) and value.isdigit():
        return int(value) / 1e9
    if isinstance(value, int) and not isinstance(value, bool):
        return value / 1e9
    raise BadRecord(f"'{name}' must be nanoseconds since the epoch")
