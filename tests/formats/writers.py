"""One set of calls written in every input format, each from its public documentation
(field names as the docs give them; the values are ours). ``Call`` is one request."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

BASE = 1_764_576_000  # 2025-12-01T08:00:00Z


@dataclass
class Call:
    id: str
    t: float  # epoch seconds, a multiple of 1/4 so every format holds it exactly
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] = field(default_factory=list)
    output_length: int = 1
    cached: int = 0  # what the "engine" reported
    session: str = ""


def iso(t: float) -> str:
    return datetime.fromtimestamp(t, tz=timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


TOOL = {"type": "function", "function": {"name": "lookup_order", "description": "Find an order by number.",
                                         "parameters": {"type": "object", "properties": {"number": {"type": "string"}},
                                                        "required": ["number"]}}}


def calls(seed: int = 7, n: int = 24) -> list[Call]:
    """Conversations over a few shared system prompts: turns grow, some use tools."""
    rng = random.Random(seed)
    systems = [f"You are the support assistant of shop {k}. " + "Policy: be exact and brief. " * rng.randint(5, 40)
               for k in range(3)]
    out: list[Call] = []
    convs: dict[int, list[dict[str, Any]]] = {}
    for i in range(n):
        c = rng.randrange(6)
        hist = convs.setdefault(c, [{"role": "system", "content": systems[c % 3]}])
        hist.append({"role": "user", "content": f"Question {i}: where is order {rng.randint(1000, 9999)}?"})
        tools = [TOOL] if c % 2 == 0 else []
        out.append(Call(f"req-{i}", BASE + i * 0.25, [dict(m) for m in hist], tools,
                        rng.randint(1, 60), rng.randint(0, 40), f"conv-{c}"))
        hist.append({"role": "assistant", "content": f"Order found, answer {i}."})
    return out


def _jsonl(path: Path, rows: list[Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def native(path: Path, cs: list[Call]) -> Path:
    return _jsonl(path, [{"id": c.id, "timestamp": c.t, "session_id": c.session, "messages": c.messages,
                          **({"tools": c.tools} if c.tools else {}), "output_length": c.output_length,
                          "cached_tokens": c.cached} for c in cs])


def _chat_body(c: Call) -> dict[str, Any]:
    return {"model": "llama-3.1-8b", "messages": c.messages, **({"tools": c.tools} if c.tools else {}),
            "max_tokens": 100}


def _chat_response(c: Call, prompt_tokens: int | None = None) -> dict[str, Any]:
    usage: dict[str, Any] = {"completion_tokens": c.output_length,
                             "prompt_tokens_details": {"cached_tokens": c.cached}}
    if prompt_tokens is not None:
        usage["prompt_tokens"] = prompt_tokens
    return {"id": "chatcmpl-" + c.id, "object": "chat.completion", "created": int(c.t), "model": "llama-3.1-8b",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
            "usage": usage}


def batch_input(path: Path, cs: list[Call]) -> Path:
    return _jsonl(path, [{"custom_id": c.id, "method": "POST", "url": "/v1/chat/completions",
                          "body": _chat_body(c)} for c in cs])


def batch_output(path: Path, cs: list[Call]) -> Path:
    # Output order is not input order (the docs say so); the join is by custom_id.
    rows = [{"id": f"batch_req_{k}", "custom_id": c.id,
             "response": {"status_code": 200, "request_id": f"r{k}", "body": _chat_response(c)}, "error": None}
            for k, c in enumerate(cs)]
    return _jsonl(path, list(reversed(rows)))


def _responses_body(c: Call) -> dict[str, Any]:
    system = c.messages[0]["content"]
    items = []
    for m in c.messages[1:]:
        kind = "input_text" if m["role"] == "user" else "output_text"
        items.append({"type": "message", "role": m["role"], "content": [{"type": kind, "text": m["content"]}]})
    tools = [{"type": "function", **t["function"]} for t in c.tools]
    return {"model": "llama-3.1-8b", "instructions": system, "input": items, **({"tools": tools} if tools else {})}


def batch_responses(path: Path, cs: list[Call]) -> Path:
    return _jsonl(path, [{"custom_id": c.id, "method": "POST", "url": "/v1/responses", "body": _responses_body(c)}
                         for c in cs])


def openai_log(path: Path, cs: list[Call]) -> Path:
    rows = []
    for k, c in enumerate(cs):
        if k % 2:
            rows.append({"id": c.id, "timestamp": iso(c.t), "url": "/v1/responses", "request": _responses_body(c),
                         "response": {"id": "resp_" + c.id, "object": "response",
                                      "usage": {"input_tokens_details": {"cached_tokens": c.cached},
                                                "output_tokens": c.output_length}}})
        else:
            rows.append({"id": c.id, "timestamp": iso(c.t), "request": _chat_body(c), "response": _chat_response(c)})
    return _jsonl(path, rows)


def _attr(key: str, value: Any) -> dict[str, Any]:
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    return {"key": key, "value": {"stringValue": value}}


def _span(c: Call, old: bool) -> dict[str, Any]:
    attrs = [_attr("gen_ai.operation.name", "chat"), _attr("gen_ai.request.model", "llama-3.1-8b"),
             _attr("gen_ai.conversation.id", c.session), _attr("gen_ai.usage.output_tokens", c.output_length),
             _attr("gen_ai.usage.cache_read.input_tokens", c.cached)]
    if old:
        for k, m in enumerate(c.messages):
            attrs += [_attr(f"gen_ai.prompt.{k}.role", m["role"]), _attr(f"gen_ai.prompt.{k}.content", m["content"])]
    else:
        attrs.append(_attr("gen_ai.system_instructions",
                           json.dumps([{"type": "text", "content": c.messages[0]["content"]}])))
        attrs.append(_attr("gen_ai.input.messages", json.dumps(
            [{"role": m["role"], "parts": [{"type": "text", "content": m["content"]}]} for m in c.messages[1:]])))
    if c.tools:
        attrs.append(_attr("gen_ai.tool.definitions", json.dumps([{"type": "function", **t["function"]} for t in c.tools])))
    return {"traceId": "0af7651916cd43dd8448eb211c80319c", "spanId": c.id, "name": "chat llama-3.1-8b", "kind": 3,
            "startTimeUnixNano": str(int(c.t * 4) * 250_000_000), "endTimeUnixNano": str(int(c.t * 4 + 4) * 250_000_000),
            "attributes": attrs}


def _otlp(spans: list[dict[str, Any]]) -> dict[str, Any]:
    http = {"traceId": "0af7651916cd43dd8448eb211c80319c", "spanId": "http", "name": "GET /", "kind": 2,
            "startTimeUnixNano": "1", "attributes": [_attr("http.request.method", "GET")]}
    return {"resourceSpans": [{"resource": {"attributes": [_attr("service.name", "shop")]},
                               "scopeSpans": [{"scope": {"name": "genai"}, "spans": spans + [http]}]}]}


def otel_lines(path: Path, cs: list[Call]) -> Path:
    """The collector's file exporter: one export request per line (here three spans each),
    half of them with the older gen_ai.prompt attributes."""
    rows = [_otlp([_span(c, old=(i + k) % 2 == 1) for k, c in enumerate(cs[i:i + 3])]) for i in range(0, len(cs), 3)]
    return _jsonl(path, rows)


def otel_document(path: Path, cs: list[Call]) -> Path:
    path.write_text(json.dumps(_otlp([_span(c, old=False) for c in cs]), indent=2))
    return path


def litellm_payload(path: Path, cs: list[Call]) -> Path:
    return _jsonl(path, [{"id": c.id, "trace_id": c.session, "call_type": "acompletion", "status": "success",
                          "startTime": c.t, "endTime": c.t + 1.0, "model": "llama-3.1-8b", "messages": c.messages,
                          "completion_tokens": c.output_length, "response": _chat_response(c),
                          "model_parameters": {"tools": c.tools} if c.tools else {},
                          **({"tools": c.tools} if c.tools else {}),
                          "metadata": {"user_api_key_hash": "x"}} for c in cs])


def litellm_spend(path: Path, cs: list[Call]) -> Path:
    # Spend-log rows keep the request body in proxy_server_request (JSON text in the DB).
    return _jsonl(path, [{"request_id": c.id, "call_type": "acompletion", "spend": 0.0001, "startTime": iso(c.t),
                          "endTime": iso(c.t + 1), "model": "llama-3.1-8b", "completion_tokens": c.output_length,
                          "session_id": c.session, "messages": {}, "proxy_server_request": json.dumps(_chat_body(c)),
                          "metadata": {"usage_object": {"prompt_tokens_details": {"cached_tokens": c.cached}}}}
                         for c in cs])


def _generation(c: Call) -> dict[str, Any]:
    given: Any = c.messages if not c.tools else {"messages": c.messages, "tools": c.tools}
    return {"id": c.id, "traceId": "t-" + c.session, "type": "GENERATION", "name": "chat", "startTime": iso(c.t),
            "endTime": iso(c.t + 1), "model": "llama-3.1-8b", "input": given, "output": {"role": "assistant"},
            "sessionId": c.session, "usageDetails": {"output": c.output_length, "input_cached_tokens": c.cached}}


def langfuse_jsonl(path: Path, cs: list[Call]) -> Path:
    span = {"id": "s", "traceId": "t", "type": "SPAN", "name": "retrieve", "startTime": iso(BASE), "input": "q"}
    return _jsonl(path, [span] + [_generation(c) for c in cs])


def langfuse_json(path: Path, cs: list[Call]) -> Path:
    path.write_text(json.dumps([_generation(c) for c in cs], indent=2))
    return path


def _vllm_time(t: float) -> str:
    return datetime.fromtimestamp(t, tz=timezone.utc).strftime("%m-%d %H:%M:%S")


def vllm_old(path: Path, cs: list[Call], texts: list[str], ids: list[list[int]]) -> Path:
    lines = ["INFO 12-01 07:59:00 api_server.py:212] vLLM API server version 0.6.3"]
    for c, text, tok in zip(cs, texts, ids):
        lines.append(f"INFO {_vllm_time(c.t)} logger.py:37] Received request chat-{c.id}: prompt: {text!r}, "
                     f"params: SamplingParams(n=1, temperature=0.7, max_tokens=100), prompt_token_ids: {tok}, "
                     "lora_request: None, prompt_adapter_request: None.")
        lines.append(f"INFO {_vllm_time(c.t)} engine.py:290] Added request chat-{c.id}.")
    path.write_text("\n".join(lines) + "\n")
    return path


def vllm_new(path: Path, cs: list[Call], texts: list[str]) -> Path:
    lines = []
    for c, text in zip(cs, texts):
        lines.append(f"(APIServer pid=1) DEBUG {_vllm_time(c.t)} [logger.py:49] Request chatcmpl-{c.id} details: "
                     f"prompt: {text!r}, prompt_token_ids: None, prompt_embeds shape: None.")
        lines.append(f"(APIServer pid=1) INFO {_vllm_time(c.t)} [logger.py:60] Received request chatcmpl-{c.id}: "
                     "params: SamplingParams(n=1, max_tokens=100), lora_request: None.")
    path.write_text("\n".join(lines) + "\n")
    return path


def sglang(path: Path, cs: list[Call], texts: list[str], lengths: list[int]) -> Path:
    lines = []
    for c, text in zip(cs, texts):
        stamp = datetime.fromtimestamp(c.t, tz=timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
        lines.append(f"[{stamp}] Receive: obj=GenerateReqInput(text={text!r}, input_ids=None, image_data=None, "
                     f"sampling_params={{'max_new_tokens': 100}}, rid={c.id!r}, return_logprob=False, stream=False)")
    for c, n in reversed(list(zip(cs, lengths))):  # finishing order differs from arrival order
        meta = {"id": c.id, "finish_reason": {"type": "stop"}, "prompt_tokens": n,
                "completion_tokens": c.output_length, "cached_tokens": c.cached}
        lines.append(f"[2025-12-01 09:00:00] Finish: obj=GenerateReqInput(text='...', rid={c.id!r}), "
                     f"out={{'text': 'ok', 'meta_info': {meta!r}}}")
    path.write_text("\n".join(lines) + "\n")
    return path
