"""advisor's own record kinds (DESIGN.md): the line is the record; ``parse_record``
validates it. Also plain Mooncake rows (``hash_ids``, ``input_length``, ``timestamp``)."""

from __future__ import annotations

from typing import Any

from advisor.ingest.formats.base import Adapter
from advisor.ingest.formats.timestamps import iso_seconds

KEYS = ("messages", "prompt", "input_ids", "tokens", "hash_ids", "template")


def _matches(value: Any) -> bool:
    return isinstance(value, dict) and ("messages" in value or "prompt" in value or "input_ids" in value
                                        or "hash_ids" in value or "tokens" in value or "template" in value)


def _convert(value: Any) -> list[Any]:
    stamp = value.get("timestamp") if isinstance(value, dict) else None
    if isinstance(stamp, str):  # ISO-8601 with a zone; numbers pass as they are
        value = {**value, "timestamp": iso_seconds(stamp)}
    return [value]


NATIVE = Adapter("advisor", False, _matches, _convert)
