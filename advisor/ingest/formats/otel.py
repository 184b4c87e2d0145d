"""OpenTelemetry GenAI spans exported as JSON: OTLP JSON (``{"resourceSpans": ...}``,
as ``/v1/traces`` carries it and the collector's file exporter writes one per line).

A span is one request when it carries the prompt: ``gen_ai.input.messages`` (messages
of ``parts``), ``gen_ai.system_instructions`` (parts) and ``gen_ai.tool.definitions``,
or the older flattened ``gen_ai.prompt.<i>.role`` / ``.content`` attributes. Also read:
``gen_ai.request.model``, ``gen_ai.conversation.id`` (the session),
``gen_ai.usage.input_tokens``, ``gen_ai.usage.output_tokens``,
``gen_ai.usage.cache_read.input_tokens`` (observed cached tokens),
``gen_ai.request.max_tokens`` (the request's maximum output) and the span's start time.
Spans without GenAI prompt attributes (HTTP, database ...) are not requests."""

from __future__ import annotations

import json
from typing import Any

from advisor.ingest.formats.base import Adapter, bound_of, count, maybe_json, record
from advisor.ingest.formats.timestamps import unix_nanos
from advisor.ingest.traffic import BadRecord

PROMPT_KEYS = ("gen_ai.input.messages", "gen_ai.system_instructions")


def _matches(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("resourceSpans"), list)


def _any_value(value: Any) -> Any:
    """An OTLP ``AnyValue`` as a plain value."""
    if not isinstance(value, dict):
        return value
    for key in ("stringValue", "boolValue", "doubleValue", "bytesValue"):
        if key in value:
            return value[key]
    if "intValue" in value:  # int64 travels as a decimal string in OTLP JSON
        raw = value["intValue"]
        return int(raw) if isinstance(raw, str) and raw.lstrip("-").isdigit() else raw
    if "arrayValue" in value:
        inner = value["arrayValue"]
        return [_any_value(v) for v in _list(inner.get("values") if isinstance(inner, dict) else None)]
    if "kvlistValue" in value:
        inner = value["kvlistValue"]
        pairs = _list(inner.get("values") if isinstance(inner, dict) else None)
        return {str(kv.get("key")): _any_value(kv.get("value")) for kv in pairs if isinstance(kv, dict)}
    return None


def attributes(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    if not isinstance(raw, list):
        return {}
    return {str(a.get("key")): _any_value(a.get("value")) for a in raw if isinstance(a, dict)}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _spans(value: dict[str, Any]):
    for rs in _list(value.get("resourceSpans")):
        if not isinstance(rs, dict):
            continue
        for ss in _list(rs.get("scopeSpans", rs.get("instrumentationLibrarySpans"))):
            if isinstance(ss, dict):
                for span in _list(ss.get("spans")):
                    if isinstance(span, dict):
                        yield span


def _text_of(parts: list[Any], where: str) -> str | list[dict[str, str]]:
    texts = []
    for part in parts:
        if not isinstance(part, dict) or part.get("type") != "text" or not isinstance(part.get("content"), str):
            raise BadRecord(f"{where} has a part that is not text")
        texts.append(part["content"])
    return texts[0] if len(texts) == 1 else [{"type": "text", "text": t} for t in texts]


def _message(msg: Any, i: int) -> dict[str, Any]:
    if not isinstance(msg, dict) or not isinstance(msg.get("parts"), list):
        raise BadRecord(f"gen_ai.input.messages[{i}] is not a message with parts")
    role = msg.get("role")
    parts = msg["parts"]
    calls = [p for p in parts if isinstance(p, dict) and p.get("type") == "tool_call"]
    answers = [p for p in parts if isinstance(p, dict) and p.get("type") == "tool_call_response"]
    texts = [p for p in parts if not (isinstance(p, dict) and p.get("type") in ("tool_call", "tool_call_response"))]
    if answers:
        resp = answers[0].get("response")
        return {"role": "tool", "tool_call_id": answers[0].get("id"),
                "content": resp if isinstance(resp, str) else json.dumps(resp)}
    out: dict[str, Any] = {"role": role, "content": _text_of(texts, f"gen_ai.input.messages[{i}]") if texts else None}
    if calls:
        out["tool_calls"] = [{"id": c.get("id"), "type": "function", "function": {
            "name": c.get("name"),
            "arguments": c["arguments"] if isinstance(c.get("arguments"), str) else json.dumps(c.get("arguments", {}))}}
            for c in calls]
    return out


def _old_prompt(attrs: dict[str, Any]) -> list[dict[str, Any]]:
    """``gen_ai.prompt.<i>.role`` / ``.content`` (the attributes before the messages
    attributes existed); also a ``gen_ai.prompt`` JSON list of chat messages."""
    whole = maybe_json(attrs.get("gen_ai.prompt"), "gen_ai.prompt")
    if isinstance(whole, list):
        return whole
    if isinstance(whole, str):
        return [{"role": "user", "content": whole}]
    out: dict[int, dict[str, Any]] = {}
    for key, value in attrs.items():
        if isinstance(key, str) and key.startswith("gen_ai.prompt."):
            index, _, field = key[len("gen_ai.prompt."):].partition(".")
            if index.isdigit() and field in ("role", "content"):
                out.setdefault(int(index), {})[field] = value
    return [out[i] for i in sorted(out)]


def span_record(span: dict[str, Any]) -> dict[str, Any] | None:
    attrs = attributes(span.get("attributes"))
    messages: list[dict[str, Any]] = []
    system = maybe_json(attrs.get("gen_ai.system_instructions"), "gen_ai.system_instructions")
    given = maybe_json(attrs.get("gen_ai.input.messages"), "gen_ai.input.messages")
    if system is not None or given is not None:
        if system is not None:
            if isinstance(system, str):
                messages.append({"role": "system", "content": system})
            elif isinstance(system, list):
                messages.append({"role": "system", "content": _text_of(system, "gen_ai.system_instructions")})
            else:
                raise BadRecord("gen_ai.system_instructions must be a list of parts")
        if given is not None:
            if not isinstance(given, list):
                raise BadRecord("gen_ai.input.messages must be a list of messages")
            messages += [_message(m, i) for i, m in enumerate(given)]
    else:
        messages = _old_prompt(attrs)
        if not messages:
            return None  # not a GenAI request span
    payload: dict[str, Any] = {"messages": messages}
    tools = maybe_json(attrs.get("gen_ai.tool.definitions"), "gen_ai.tool.definitions")
    if tools:
        if not isinstance(tools, list):
            raise BadRecord("gen_ai.tool.definitions must be a list")
        payload["tools"] = [t if "function" in t or t.get("type") != "function" else
                            {"type": "function", "function": {k: v for k, v in t.items() if k != "type"}}
                            for t in tools if isinstance(t, dict)]
    start = span.get("startTimeUnixNano")
    session = attrs.get("gen_ai.conversation.id")
    return record(
        payload, id=span.get("spanId"),
        timestamp=None if start is None else unix_nanos(start, "startTimeUnixNano"),
        session_id=None if session is None else str(session),
        model=attrs.get("gen_ai.request.model"),
        prompt_tokens=count(attrs.get("gen_ai.usage.input_tokens"), "gen_ai.usage.input_tokens"),
        cached_tokens=count(attrs.get("gen_ai.usage.cache_read.input_tokens"), "gen_ai.usage.cache_read.input_tokens"),
        output_length=count(attrs.get("gen_ai.usage.output_tokens"), "gen_ai.usage.output_tokens"),
        max_tokens=bound_of({"max_tokens": attrs.get("gen_ai.request.max_tokens")}),
    )


def _convert(value: Any) -> list[Any]:
    if not _matches(value):
        raise BadRecord("not OTLP JSON (needs 'resourceSpans')")
    out: list[Any] = []
    for span in _spans(value):
        try:
            rec = span_record(span)
        except BadRecord as exc:  # one bad span does not lose the others of the batch
            out.append(BadRecord(f"span {span.get('spanId', '?')}: {exc}"))
            continue
        if rec is not None:
            out.append(rec)
    return out


OTEL = Adapter("otel", False, _matches, _convert)
