"""LiteLLM: the standard logging payload (``kwargs["standard_logging_object"]``, one
JSON object per call as custom loggers and the generic API logger write it) and the
proxy's spend logs (rows of ``LiteLLM_SpendLogs`` exported as JSON; prompts are there
only when the proxy stores them, ``store_prompts_in_spend_logs``).

Prompt: ``messages`` (a chat list, a prompt string, or the request body), else the
request in ``proxy_server_request``. Observed: ``prompt_tokens``, ``completion_tokens``
(else the response's usage) and cached tokens from the response's or
``metadata.usage_object``'s usage details. The request's maximum output: the body's, else
``model_parameters``' ``max_completion_tokens`` / ``max_tokens``."""

from __future__ import annotations

from typing import Any

from advisor.ingest.formats.base import (
    Adapter,
    bound_of,
    count,
    guess_payloads,
    has_bound,
    maybe_json,
    numbered,
    usage_of,
)
from advisor.ingest.formats.timestamps import parse_timestamp
from advisor.ingest.traffic import BadRecord


def _is_payload(value: Any) -> bool:
    return (isinstance(value, dict) and "call_type" in value and "startTime" in value
            and "id" in value and "request_id" not in value)


def _is_spend(value: Any) -> bool:
    return isinstance(value, dict) and "request_id" in value and "call_type" in value and (
        "spend" in value or "startTime" in value)


def _payloads(value: dict[str, Any]) -> list[dict[str, Any]]:
    messages = maybe_json(value.get("messages"), "messages")
    if isinstance(messages, list) and messages:
        if all(isinstance(m, dict) and "role" in m for m in messages):
            return [{"messages": messages, **({"tools": value["tools"]} if value.get("tools") else {})}]
        raise BadRecord("'messages' is a list but not of chat messages")
    if isinstance(messages, str) and messages:
        return [{"prompt": messages}]
    if isinstance(messages, dict) and messages:
        return guess_payloads(messages)
    request = maybe_json(value.get("proxy_server_request"), "proxy_server_request")
    if isinstance(request, dict) and request:
        return guess_payloads(request.get("body", request) if isinstance(request.get("body"), dict) else request)
    raise BadRecord("no stored prompt (LiteLLM keeps prompts in spend logs only with store_prompts_in_spend_logs)")


def _cached(value: dict[str, Any]) -> int | None:
    response = maybe_json(value.get("response"), "response")
    if isinstance(response, dict) and isinstance(response.get("usage"), dict):
        got = usage_of(response["usage"]).cached_tokens
        if got is not None:
            return got
    metadata = maybe_json(value.get("metadata"), "metadata")
    if isinstance(metadata, dict) and isinstance(metadata.get("usage_object"), dict):
        return usage_of(metadata["usage_object"]).cached_tokens
    return None


def _convert(value: Any) -> list[dict[str, Any]]:
    if not (_is_payload(value) or _is_spend(value)):
        raise BadRecord("not a LiteLLM logging payload or spend log row")
    rid = value.get("request_id", value.get("id"))
    start = value.get("startTime")
    session = value.get("session_id") or value.get("trace_id")
    payloads = _payloads(value)
    return numbered(
        payloads, None if rid is None else str(rid),
        timestamp=None if start is None else parse_timestamp(start, "startTime"),
        session_id=None if session is None else str(session),
        prompt_tokens=count(value.get("prompt_tokens"), "prompt_tokens"),
        output_length=_completion_tokens(value),
        cached_tokens=_cached(value),
        # The request's maximum as LiteLLM logged its parameters, unless the body gave it.
        max_tokens=None if has_bound(payloads) else bound_of(value.get("model_parameters")),
    )


def _completion_tokens(value: dict[str, Any]) -> int | None:
    """The output tokens: the row's ``completion_tokens``, else its response's usage."""
    got = count(value.get("completion_tokens"), "completion_tokens")
    if got is not None:
        return got
    response = maybe_json(value.get("response"), "response")
    if isinstance(response, dict) and isinstance(response.get("usage"), dict):
        return usage_of(response["usage"]).output_tokens
    return None


LITELLM_PAYLOAD = Adapter("litellm", False, _is_payload, _convert)
LITELLM_SPEND = Adapter("litellm-spend", False, _is_spend, _convert)
