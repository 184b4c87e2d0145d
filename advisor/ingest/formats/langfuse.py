"""Langfuse generation observations, exported as JSON (an array) or JSONL (one per line),
as the public API (``/api/public/observations``) and the UI export return them.

``type`` ``GENERATION``; prompt in ``input`` (a chat list, ``{"messages": [...]}``, or
text); ``startTime`` ISO-8601; ``traceId``; ``sessionId`` where the export has it;
``usageDetails`` (``input``, ``output``, and the cache-read count under
``input_cached_tokens``, ``cache_read_input_tokens`` or ``input_cache_read``) or the older
``usage`` (``input``, ``output`` or ``promptTokens`` / ``completionTokens``);
``modelParameters``' ``max_tokens`` (or ``max_completion_tokens``, ``maxTokens``) as the
request's maximum output, where it is a count (the OpenAI integration writes ``inf`` when
the call set none)."""

from __future__ import annotations

from typing import Any

from advisor.ingest.formats.base import (
    Adapter,
    bound_of,
    count,
    guess_payloads,
    has_bound,
    maybe_json,
    record,
)
from advisor.ingest.formats.timestamps import parse_timestamp
from advisor.ingest.traffic import BadRecord

CACHE_KEYS = ("input_cached_tokens", "cache_read_input_tokens", "input_cache_read", "cached_tokens")


def _matches(value: Any) -> bool:
    return (isinstance(value, dict) and "traceId" in value and "startTime" in value
            and isinstance(value.get("type"), str) and "input" in value)


def _first(d: dict[str, Any], keys: tuple[str, ...]) -> Any:
    for k in keys:
        if d.get(k) is not None:
            return d[k]
    return None


def _convert(value: Any) -> list[dict[str, Any]]:
    if not _matches(value):
        raise BadRecord("not a Langfuse observation (needs type, traceId, startTime, input)")
    if value["type"] != "GENERATION":
        return []  # spans and events of a trace are not model calls
    given = maybe_json(value.get("input"), "input")
    if isinstance(given, list):
        payload: dict[str, Any] = {"messages": given}
    elif isinstance(given, dict):
        payload = guess_payloads(given)[0]
    elif isinstance(given, str) and given:
        payload = {"prompt": given}
    else:
        raise BadRecord("generation has no recorded input")
    details = value.get("usageDetails") or {}
    usage = value.get("usage") or {}
    if not isinstance(details, dict) or not isinstance(usage, dict):
        raise BadRecord("'usageDetails' and 'usage' must be objects")
    prompt = _first(details, ("input",)) if details else _first(usage, ("input", "promptTokens"))
    output = _first(details, ("output",)) if details else _first(usage, ("output", "completionTokens"))
    session = value.get("sessionId")
    return [record(
        payload, id=str(value["id"]) if value.get("id") is not None else None,
        timestamp=parse_timestamp(value["startTime"], "startTime"),
        session_id=None if session is None else str(session),
        prompt_tokens=count(prompt, "usageDetails.input"),
        output_length=count(output, "usageDetails.output"),
        cached_tokens=count(_first(details, CACHE_KEYS), "usageDetails cache read"),
        # The maximum the call asked for, as the integration logged its parameters.
        max_tokens=None if has_bound([payload]) else bound_of(value.get("modelParameters")),
    )]


LANGFUSE = Adapter("langfuse", False, _matches, _convert)
