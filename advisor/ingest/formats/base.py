"""What every adapter is, and the pieces they share.

An adapter turns one decoded JSON value (or, for engine logs, one text line) into zero
or more record dicts of the kinds ``advisor.ingest.traffic.parse_record`` reads
(``messages``, ``prompt``, ``input_ids``, ``hash_ids``), with the optional fields
``id``, ``timestamp``, ``tenant``, ``output_length``, ``session_id``, ``block_size``, the
request's maximum output (``max_completion_tokens``, ``max_tokens`` or ``max_output_tokens``)
and the observed ``cached_tokens`` / ``prompt_tokens`` the engine or provider reported.
A value it cannot map raises ``BadRecord`` with the reason the user sees.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from advisor.ingest import long_lines
from advisor.ingest.preprocess import REQUEST_OPTIONS
from advisor.ingest.traffic import MAX_OUTPUT_LENGTH, MAX_TOKENS_FIELDS, BadRecord


@dataclass(frozen=True)
class Adapter:
    name: str
    # True: fed raw text lines (engine logs); False: decoded JSON values.
    text: bool
    # Cheap shape test on the first records of a file: does this look like the format?
    matches: Callable[[Any], bool]
    convert: Callable[[Any], list[Any]]
    # Formats whose rows depend on earlier rows (sessions): a fresh converter per file.
    fresh: Callable[[], Callable[[Any], list[Any]]] | None = None

    def converter(self) -> Callable[[Any], list[Any]]:
        return self.fresh() if self.fresh is not None else self.convert


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def count(value: Any, name: str) -> int | None:
    """A non-negative token count, or None when absent."""
    if value is None:
        return None
    if not is_int(value) or value < 0:
        raise BadRecord(f"'{name}' must be a non-negative integer")
    return value


def record(payload: dict[str, Any], **meta: Any) -> dict[str, Any]:
    """A record dict: the payload plus the metadata that is set."""
    out = dict(payload)
    for key, value in meta.items():
        if value is not None:
            out[key] = value
    return out


def obj(value: Any, name: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise BadRecord(f"'{name}' must be an object")
    return value


def maybe_json(value: Any, name: str) -> Any:
    """Fields that some exporters store as a JSON string and others as the value. The
    caps of a JSON line hold inside too: a short line's one long string may be JSON of
    millions of values."""
    if isinstance(value, str):
        text = value.strip()
        if text[:1] in ("[", "{"):
            if len(text) >= long_lines.LONG_BYTES:
                try:
                    long_lines.check_values(text.encode("utf-8", "surrogatepass"))
                except long_lines.TooManyValues as exc:
                    raise BadRecord(f"'{name}': {exc}") from None
            try:
                return json.loads(text)
            except ValueError:
                raise BadRecord(f"'{name}' holds text that is not valid JSON") from None
    return value


# --- OpenAI request bodies (chat completions, completions, responses) ---------------

def chat_payload(body: dict[str, Any]) -> dict[str, Any]:
    msgs = body.get("messages")
    if not isinstance(msgs, list):
        raise BadRecord("chat request body has no 'messages' list")
    payload: dict[str, Any] = {"messages": msgs}
    if body.get("tools") is not None:
        payload["tools"] = body["tools"]
    return _with_options(payload, body)


def _with_options(payload: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
    # Request fields that change what the engine renders (tool_choice, chat_template_kwargs,
    # ...): kept, so the engine's preprocessing sees them as in a plain messages record.
    for key in REQUEST_OPTIONS:
        if key in body:
            payload[key] = body[key]
    return with_cache_keys(with_output_bound(payload, body), body)


def with_output_bound(payload: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
    """``payload`` with the body's maximum output tokens (``max_completion_tokens``,
    ``max_tokens``, ``max_output_tokens``), under the body's own names: the loader checks them
    and takes the first set (advisor.ingest.traffic.MAX_TOKENS_FIELDS)."""
    for key in MAX_TOKENS_FIELDS:
        if body.get(key) is not None:
            payload[key] = body[key]
    return payload


# Where logging tools keep a request's maximum among its model parameters: the OpenAI names,
# Langfuse's older ``maxTokens``, SGLang's and TGI's ``max_new_tokens``.
PARAMETER_BOUNDS = (*MAX_TOKENS_FIELDS, "maxTokens", "max_new_tokens")


def bound_of(params: Any) -> int | None:
    """The maximum output tokens among logged model parameters, or None. Lenient where a
    body is strict: these are a logger's copy (Langfuse writes ``inf`` when none was set,
    and may keep numbers as text), not the request, so a value that is no count is left out."""
    if not isinstance(params, dict):
        return None
    for key in PARAMETER_BOUNDS:
        value = params.get(key)
        if isinstance(value, str) and value.strip().isdigit():
            value = int(value.strip())
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_OUTPUT_LENGTH:
            return value
    return None


def has_bound(payloads: list[dict[str, Any]]) -> bool:
    """Does some payload carry its body's maximum already (which a logger's copy must not replace)?"""
    return any(key in p for p in payloads for key in MAX_TOKENS_FIELDS)


# Body fields that key the cache beyond the tokens (advisor.ingest.cache_keys): vLLM's and
# SGLang's ``cache_salt``, SGLang's ``extra_key`` and ``lora_path`` (the adapter's name).
# A LoRA adapter named by ``model`` is not read: which names are adapters is the server's.
CACHE_KEY_FIELDS = ("cache_salt", "extra_key", "lora_path")


def with_cache_keys(payload: dict[str, Any], body: dict[str, Any], index: int | None = None,
                    count: int = 1) -> dict[str, Any]:
    """``payload`` with the cache keys of ``body``; of a body of ``count`` prompts, prompt
    ``index``'s (SGLang takes a list of one key per prompt)."""
    for key in CACHE_KEY_FIELDS:
        value = body.get(key)
        if value is None:
            continue
        if isinstance(value, list) and index is not None:
            if len(value) != count:
                raise BadRecord(f"'{key}' holds {len(value)} values for {count} prompts")
            value = value[index]
        payload[key] = value
    return payload


def completion_payloads(body: dict[str, Any]) -> list[dict[str, Any]]:
    """A completions ``prompt``: text, token ids, or a list of either (one request each)."""
    prompt = body.get("prompt")
    payloads: list[dict[str, Any]] | None = None
    if isinstance(prompt, str):
        payloads = [{"prompt": prompt}]
    elif isinstance(prompt, list) and prompt:
        if all(is_int(t) for t in prompt):
            payloads = [{"input_ids": prompt}]
        elif all(isinstance(p, str) for p in prompt):
            payloads = [{"prompt": p} for p in prompt]
        elif all(isinstance(p, list) for p in prompt):
            payloads = [{"input_ids": p} for p in prompt]
    if payloads is None:
        raise BadRecord("completions request body has no 'prompt' text or token ids")
    # One maximum for every prompt of the body: each one may generate that many.
    return [with_cache_keys(with_output_bound(p, body), body, i, len(payloads)) for i, p in enumerate(payloads)]


_PART_TYPES = {"input_text": "text", "output_text": "text", "text": "text"}


def responses_payload(body: dict[str, Any]) -> dict[str, Any]:
    """A Responses API body as chat messages: ``instructions`` become the system message,
    ``input`` text a user message, input items messages; function tools in chat shape."""
    messages: list[dict[str, Any]] = []
    instructions = body.get("instructions")
    if isinstance(instructions, str) and instructions:
        messages.append({"role": "system", "content": instructions})
    given = body.get("input")
    if isinstance(given, str):
        messages.append({"role": "user", "content": given})
    elif isinstance(given, list):
        for i, item in enumerate(given):
            messages.append(_response_item(item, i))
    else:
        raise BadRecord("responses request body has no 'input' text or items")
    payload: dict[str, Any] = {"messages": messages}
    tools = body.get("tools")
    if tools:
        if not isinstance(tools, list):
            raise BadRecord("'tools' must be a list")
        payload["tools"] = [_chat_tool(t) for t in tools]
    return _with_options(payload, body)


def _response_item(item: Any, i: int) -> dict[str, Any]:
    if not isinstance(item, dict):
        raise BadRecord(f"input[{i}] is not an object")
    kind = item.get("type", "message")
    if not isinstance(kind, str):
        raise BadRecord(f"input[{i}] 'type' must be a string")
    if kind == "function_call":
        return {"role": "assistant", "content": None, "tool_calls": [{
            "id": item.get("call_id"), "type": "function",
            "function": {"name": item.get("name"), "arguments": item.get("arguments", "")}}]}
    if kind == "function_call_output":
        return {"role": "tool", "tool_call_id": item.get("call_id"), "content": item.get("output", "")}
    if kind != "message":
        raise BadRecord(f"input[{i}] has item type '{kind}', which carries no prompt text advisor reads")
    content = item.get("content")
    if isinstance(content, list):
        parts = []
        for part in content:
            kind = part.get("type", "") if isinstance(part, dict) else None
            if kind == "input_image":
                parts.append(_image_part(part))
                continue
            if not isinstance(kind, str) or _PART_TYPES.get(kind) is None:
                raise BadRecord(f"input[{i}] has a content part that is not text or an image")
            parts.append({"type": "text", "text": part.get("text", "")})
        content = parts
    return {"role": item.get("role"), "content": content}


def _image_part(part: dict[str, Any]) -> dict[str, Any]:
    """A Responses ``input_image`` as the chat ``image_url`` part both engines make of it
    (SGLang: serving_responses.py ``_normalize_response_content_part_for_chat``; vLLM parses
    ``input_image`` as an image URL, chat_message.py ``MM_PARSER_MAP``); an uploaded file
    stands for itself by its ``file_id``."""
    url = part.get("image_url")
    inner = dict(url) if isinstance(url, dict) else {"url": url if url is not None else part.get("file_id")}
    inner.setdefault("detail", part.get("detail") or "auto")
    return {"type": "image_url", "image_url": inner}


def _chat_tool(tool: Any) -> Any:
    if isinstance(tool, dict) and tool.get("type") == "function" and "function" not in tool:
        inner = {k: v for k, v in tool.items() if k in ("name", "description", "parameters", "strict")}
        return {"type": "function", "function": inner}
    return tool


def body_payloads(url: str, body: dict[str, Any]) -> list[dict[str, Any]]:
    """Request payloads of a body sent to ``url`` (an endpoint path)."""
    path = url.split("?", 1)[0].rstrip("/")
    if path.endswith("/chat/completions"):
        return [chat_payload(body)]
    if path.endswith("/completions"):
        return completion_payloads(body)
    if path.endswith("/responses"):
        return [responses_payload(body)]
    raise BadRecord(f"endpoint '{url}' is not /v1/chat/completions, /v1/completions or /v1/responses")


def guess_payloads(body: dict[str, Any]) -> list[dict[str, Any]]:
    """Payloads of a body whose endpoint was not logged, from its fields."""
    if "messages" in body:
        return [chat_payload(body)]
    if "input" in body:
        return [responses_payload(body)]
    if "prompt" in body:
        return completion_payloads(body)
    raise BadRecord("request body has no 'messages', 'input' or 'prompt'")


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int | None = None
    cached_tokens: int | None = None
    output_tokens: int | None = None

    def meta(self) -> dict[str, int | None]:
        return {"prompt_tokens": self.prompt_tokens, "cached_tokens": self.cached_tokens,
                "output_length": self.output_tokens}


def usage_of(usage: Any) -> Usage:
    """OpenAI ``usage``: chat/completions (``prompt_tokens_details.cached_tokens``) or
    Responses (``input_tokens_details.cached_tokens``). No details: cached unknown."""
    if usage is None:
        return Usage()
    usage = obj(usage, "usage")
    if "input_tokens" in usage or "input_tokens_details" in usage:
        details = usage.get("input_tokens_details") or {}
        return Usage(count(usage.get("input_tokens"), "usage.input_tokens"),
                     count(obj(details, "usage.input_tokens_details").get("cached_tokens"),
                           "usage.input_tokens_details.cached_tokens"),
                     count(usage.get("output_tokens"), "usage.output_tokens"))
    details = usage.get("prompt_tokens_details") or {}
    return Usage(count(usage.get("prompt_tokens"), "usage.prompt_tokens"),
                 count(obj(details, "usage.prompt_tokens_details").get("cached_tokens"),
                       "usage.prompt_tokens_details.cached_tokens"),
                 count(usage.get("completion_tokens"), "usage.completion_tokens"))


def numbered(payloads: list[dict[str, Any]], rid: str | None, **meta: Any) -> list[dict[str, Any]]:
    """Records of one logged call; a call with several prompts gets ids ``rid#i``."""
    if len(payloads) == 1:
        return [record(payloads[0], id=rid, **meta)]
    # Observed counts of a multi-prompt call cover all of them together: not per request.
    meta = {k: v for k, v in meta.items() if k not in ("cached_tokens", "prompt_tokens", "output_length")}
    return [record(p, id=None if rid is None else f"{rid}#{i}", **meta) for i, p in enumerate(payloads)]
