"""OpenAI-compatible request/response logs: one object per call holding the request
body and the response body (``{"request": {...}, "response": {...}}``; also
``request_body`` / ``response_body``, and an optional ``url`` or ``endpoint``, ``id``,
``timestamp``). The response's ``usage`` gives the observed cached tokens:
``prompt_tokens_details.cached_tokens`` (chat, completions) or
``input_tokens_details.cached_tokens`` (Responses API)."""

from __future__ import annotations

from typing import Any

from advisor.ingest.formats.base import (
    Adapter,
    body_payloads,
    guess_payloads,
    numbered,
    obj,
    usage_of,
)
from advisor.ingest.formats.timestamps import parse_timestamp
from advisor.ingest.traffic import BadRecord

PAIRS = (("request", "response"), ("request_body", "response_body"))


def _pair(value: Any) -> tuple[str, str] | None:
    if not isinstance(value, dict):
        return None
    for req, resp in PAIRS:
        if isinstance(value.get(req), dict) and resp in value:
            return req, resp
    return None


def _matches(value: Any) -> bool:
    return _pair(value) is not None


def _convert(value: Any) -> list[dict[str, Any]]:
    keys = _pair(value)
    if keys is None:
        raise BadRecord("not a request/response log line (needs 'request' and 'response' objects)")
    body = obj(value[keys[0]], keys[0])
    response = value[keys[1]]
    url = value.get("url") or value.get("endpoint")
    payloads = body_payloads(url, body) if isinstance(url, str) else guess_payloads(body)
    usage = usage_of(obj(response, keys[1]).get("usage")) if response is not None else usage_of(None)
    rid = value.get("id", obj(response, keys[1]).get("id") if isinstance(response, dict) else None)
    stamp = value.get("timestamp", value.get("created_at"))
    if stamp is None and isinstance(response, dict):
        stamp = response.get("created", response.get("created_at"))
    return numbered(payloads, None if rid is None else str(rid),
                    timestamp=None if stamp is None else parse_timestamp(stamp), **usage.meta())


OPENAI_LOG = Adapter("openai-log", False, _matches, _convert)
