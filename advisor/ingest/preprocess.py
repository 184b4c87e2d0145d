"""The engines' request preprocessing: an OpenAI chat request as vLLM or SGLang hands it
to the chat template.

Neither engine passes the request to ``apply_chat_template`` as it arrives. Each rebuilds
the messages (which keys survive, what ``content: null`` becomes, how a list of content
parts is flattened, whether tool-call ``arguments`` strings are parsed) and re-serializes
the tool definitions through its own request model (key order, defaulted fields). The
template then sees those objects, so the rendered prompt, and every cached-prefix figure
computed from it, depends on the engine. This module does that rebuilding, as pure
functions of the request, per engine:

* vLLM (``vllm/entrypoints/chat_utils.py``: ``_parse_chat_message_content``,
  ``_postprocess_messages``; tools through ``ChatCompletionToolsParam.model_dump()``);
* SGLang (``serving_chat.py``: ``_process_messages``, ``_apply_jinja_template``;
  ``jinja_template_utils.process_content_for_template_format``; messages and tools through
  its pydantic protocol models).

The behaviour followed is that of the engines' main branches as read in 2026 (vLLM's
``chat_utils`` package with ``_postprocess_messages`` coercing bad arguments to ``{}``;
SGLang's ``serving_chat.py`` with ``normalize_assistant_tool_call_arguments`` and
``Tool.model_dump()``); older releases differ in details (SGLang passed function objects
only, vLLM failed on bad arguments). A request an engine would reject with a 400 raises
``EngineRejects`` with the engine's reason.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from advisor.errors import AdvisorError

ENGINES = ("vllm", "sglang")
DEFAULT_ENGINE = "sglang"
CONTENT_FORMATS = ("string", "openai")
ENGINE_HELP = ("Serving engine whose request preprocessing renders chat records: sglang (default) or vllm "
               "(content parts, null content, tool-call arguments and tool definitions as that engine passes "
               "them to the chat template).")

# Request-level fields (besides messages and tools) that change the rendered prompt.
REQUEST_OPTIONS = ("tool_choice", "chat_template_kwargs", "reasoning_effort", "continue_final_message",
                   "add_generation_prompt")

# vLLM: part types whose text is kept, and the key that holds it.
_VLLM_TEXT_PARTS = {"text": "text", "input_text": "text", "output_text": "text", "refusal": "refusal",
                    "thinking": "thinking"}
_MEDIA_PARTS = {"image_url": "image", "input_image": "image", "image_pil": "image", "image_embeds": "image",
                "audio_url": "audio", "input_audio": "audio", "audio_embeds": "audio", "video_url": "video"}
_SGLANG_MEDIA = {"image_url": "image", "video_url": "video", "audio_url": "audio"}
_SGLANG_ROLES = frozenset({"system", "assistant", "tool", "function", "developer", "latest_reminder"})


class EngineRejects(AdvisorError):
    """The engine would answer this request with an error instead of running it."""


@dataclass(frozen=True)
class Prepared:
    """What the chat template is given: the engine's messages, tools and extra variables.

    ``suffix`` is text the engine appends after the rendered template (SGLang's
    ``continue_final_message``); ``fallback_tools`` is the tool list SGLang retries with
    (functions without their wrapper) when the template fails on the first one.
    """

    engine: str
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] | None
    kwargs: dict[str, Any] = field(default_factory=dict)
    add_generation_prompt: bool = True
    continue_final_message: bool = False
    suffix: str = ""
    fallback_tools: list[dict[str, Any]] | None = None


def check_engine(engine: str) -> str:
    if engine not in ENGINES:
        raise AdvisorError(f"unknown --engine '{engine}': use {' or '.join(ENGINES)}")
    return engine


def prepare(engine: str, messages: Sequence[Mapping[str, Any]], tools: Sequence[Any] | None,
            options: Mapping[str, Any] | None = None, content_format: str = "string") -> Prepared:
    """The request as ``engine`` passes it to a template of ``content_format``."""
    options = options or {}
    if not tools and not options and content_format == "string" and _plain(messages):
        return _plain_prepared(engine, messages, tools)
    if engine == "vllm":
        return _vllm(messages, tools, options, content_format)
    if engine == "sglang":
        return _sglang(messages, tools, options, content_format)
    raise AdvisorError(f"unknown engine '{engine}'")


_PLAIN_ROLES = frozenset({"system", "user", "assistant"})


def _plain(messages: Sequence[Mapping[str, Any]]) -> bool:
    """Only ``role`` and string ``content``: the common case, which both engines pass on
    as ``{"role", "content"}`` (checked against the full path by the tests)."""
    for m in messages:
        if len(m) != 2 or m.get("role") not in _PLAIN_ROLES or not isinstance(m.get("content"), str):
            return False
    return True


def _plain_prepared(engine: str, messages: Sequence[Mapping[str, Any]], tools: Sequence[Any] | None) -> Prepared:
    out = [{"role": m["role"], "content": m["content"]} for m in messages]
    if engine == "sglang":
        if out[-1]["role"] == "assistant":
            out[-1] = {"role": "user", "content": out[-1]["content"]}
        return Prepared(engine="sglang", messages=out, tools=None)
    if engine == "vllm":
        return Prepared(engine="vllm", messages=out, tools=None if tools is None else [])
    raise AdvisorError(f"unknown engine '{engine}'")


# ---------------------------------------------------------------------------------- vLLM


def _vllm(messages: Sequence[Mapping[str, Any]], tools: Sequence[Any] | None, options: Mapping[str, Any],
          content_format: str) -> Prepared:
    conversation = [_vllm_message(m, content_format) for m in messages]
    for message in conversation:
        _vllm_tool_call_arguments(message)
    # vLLM keeps the tools of a tool_choice "none" request unless the server runs with
    # --exclude-tools-when-tool-choice-none (off by default), and keeps an empty list.
    tool_dicts = None if tools is None else [_vllm_tool(t, i) for i, t in enumerate(tools)]
    # Only chat_template_kwargs reach the template (reasoning_effort steers vLLM's
    # harmony path for gpt-oss, not the Jinja one).
    kwargs = dict(_template_kwargs(options))
    return Prepared(
        engine="vllm",
        messages=conversation,
        tools=tool_dicts,
        kwargs=kwargs,
        add_generation_prompt=bool(options.get("add_generation_prompt", True)),
        continue_final_message=bool(options.get("continue_final_message", False)),
    )


def _vllm_message(message: Mapping[str, Any], content_format: str) -> dict[str, Any]:
    role = message["role"]
    content = message.get("content")
    if content is None:
        parts: list[Any] = []
    elif isinstance(content, str):
        parts = [{"type": "text", "text": content}]
    else:
        parts = list(content)
    pieces = [p for p in (_vllm_part(part, content_format) for part in parts) if p is not None]
    result: dict[str, Any] = {"role": role}
    if content_format == "openai":
        result["content"] = pieces
    else:
        result["content"] = "\n".join(pieces)
    if role == "assistant":
        if message.get("tool_calls") is not None:
            result["tool_calls"] = copy.deepcopy(list(message["tool_calls"]))
        reasoning = message.get("reasoning", message.get("reasoning_content"))
        if reasoning is not None:
            result["reasoning"] = reasoning
            result["reasoning_content"] = reasoning
    elif role == "tool":
        if "tool_call_id" in message:
            result["tool_call_id"] = message["tool_call_id"]
    if isinstance(message.get("name"), str):
        result["name"] = message["name"]
    if role == "developer":
        result["tools"] = copy.deepcopy(message.get("tools"))
    return result


def _vllm_part(part: Any, content_format: str) -> Any:
    if isinstance(part, str):
        return {"type": "text", "text": part} if content_format == "openai" else part
    kind = part.get("type")
    if kind in _VLLM_TEXT_PARTS:
        text = part.get(_VLLM_TEXT_PARTS[kind])
        if text is None:
            return None  # vLLM skips a text part without text (with a warning)
        return {"type": "text", "text": text} if content_format == "openai" else text
    modality = _MEDIA_PARTS.get(kind or "")
    if modality is None:
        raise EngineRejects(f"vllm: unknown content part type '{kind}'")
    if content_format == "openai":
        return {"type": modality}
    # A string-format template gets the model's own media placeholder, which only a
    # multimodal model defines; a text-only model rejects the part.
    raise EngineRejects(f"vllm: a '{kind}' content part needs a multimodal model's placeholder")


def _vllm_tool_call_arguments(message: dict[str, Any]) -> None:
    # Templates expect arguments as a mapping; vLLM parses the OpenAI JSON string, and
    # coerces what is empty, malformed or not an object to {} rather than failing the turn.
    if message["role"] != "assistant" or "tool_calls" not in message:
        return
    calls = message["tool_calls"]
    if not isinstance(calls, list):
        return
    if not calls:
        message.pop("tool_calls")  # an empty list keeps the template on the plain path
        return
    for call in calls:
        if not isinstance(call, dict):
            raise EngineRejects("vllm: assistant tool_calls entries must be objects")
        function = call.get("function")
        if call.get("type", "function") != "function" or not isinstance(function, dict):
            raise EngineRejects("vllm: chat completions only support assistant tool_calls of type 'function'")
        args = function.get("arguments")
        if not args:
            function["arguments"] = {}
            continue
        if isinstance(args, str):
            try:
                parsed = json.loads(args)
            except ValueError:
                parsed = None
        else:
            parsed = args
        function["arguments"] = parsed if isinstance(parsed, dict) else {}


def _vllm_tool(tool: Any, index: int) -> dict[str, Any]:
    # ChatCompletionToolsParam / FunctionDefinition (extra="allow"): declared fields in
    # order with their defaults, then whatever else the client sent.
    if not isinstance(tool, dict) or not isinstance(tool.get("function"), dict):
        raise EngineRejects(f"vllm: tools[{index}] is not a function tool")
    if tool.get("type", "function") != "function":
        raise EngineRejects(f"vllm: tools[{index}] has type '{tool.get('type')}', not 'function'")
    fn = tool["function"]
    if not isinstance(fn.get("name"), str):
        raise EngineRejects(f"vllm: tools[{index}].function has no string 'name'")
    function = {"name": fn["name"], "description": fn.get("description"), "parameters": fn.get("parameters")}
    function.update((k, v) for k, v in fn.items() if k not in function)
    out: dict[str, Any] = {"type": "function", "function": function}
    out.update((k, v) for k, v in tool.items() if k not in out)
    # Not copied: nothing downstream writes into a tool (the sandbox is immutable), and
    # deep-copying every schema of every request costs more than rendering it.
    return out


# -------------------------------------------------------------------------------- SGLang


def _sglang(messages: Sequence[Mapping[str, Any]], tools: Sequence[Any] | None, options: Mapping[str, Any],
            content_format: str) -> Prepared:
    dumped = [_sglang_dump(m, i) for i, m in enumerate(messages)]
    for message in dumped:
        _sglang_tool_call_arguments(message)
    processed = []
    for message in dumped:
        if message.get("content") is None:
            message["content"] = ""
        out = _sglang_content(message, content_format)
        out["content"] = _sglang_tool_content(out["role"], out.get("content"))
        processed.append(out)
    suffix = ""
    continue_final = bool(options.get("continue_final_message", False))
    if processed and processed[-1].get("role") == "assistant" and isinstance(processed[-1].get("content"), str):
        last = processed[-1]["content"]
        if continue_final:
            # The last assistant turn is taken out and its text appended after the
            # rendered prompt (the model continues it).
            processed = processed[:-1]
            suffix = last
        else:
            # SGLang turns a trailing assistant turn into a user turn so that the prompt
            # always ends on a user message.
            processed[-1] = {"role": "user", "content": last}

    tool_choice = options.get("tool_choice")
    tool_dicts = None
    if tools and tool_choice != "none":
        models = [_sglang_tool(t, i) for i, t in enumerate(tools)]
        if isinstance(tool_choice, dict):
            wanted = (tool_choice.get("function") or {}).get("name")
            models = [t for t in models if t["function"]["name"] == wanted]
        tool_dicts = models
    return Prepared(
        engine="sglang",
        messages=processed,
        tools=tool_dicts,
        kwargs=_sglang_kwargs(options),
        add_generation_prompt=True,
        continue_final_message=False,
        suffix=suffix,
        fallback_tools=[t["function"] if "function" in t else t for t in tool_dicts] if tool_dicts else None,
    )


def _sglang_kwargs(options: Mapping[str, Any]) -> dict[str, Any]:
    """The extra template variables: ``chat_template_kwargs``, with ``reasoning_effort``
    (which the request model also turns into ``thinking`` / ``enable_thinking``)."""
    extra = dict(_template_kwargs(options))
    effort = options.get("reasoning_effort")
    if effort is not None:
        extra.setdefault("thinking", effort != "none")
        extra.setdefault("enable_thinking", effort != "none")
    moved = extra.pop("reasoning_effort", None)
    if moved is not None:
        effort = moved
    kwargs: dict[str, Any] = {}
    if effort is not None:
        kwargs["reasoning_effort"] = effort
    kwargs.update(extra)
    return kwargs


def _sglang_dump(message: Mapping[str, Any], index: int) -> dict[str, Any]:
    """``message.model_dump()`` of SGLang's request model: declared fields only, in order,
    with their defaults; unknown keys are dropped."""
    role = message.get("role")
    if not isinstance(role, str):
        raise EngineRejects(f"sglang: messages[{index}] has no string 'role'")
    role = role.lower()
    content = message.get("content")
    if role == "user":
        if content is None:
            raise EngineRejects(f"sglang: messages[{index}] (user) needs content")
        return {"role": "user", "content": _sglang_parts(content, index)}
    if role not in _SGLANG_ROLES:
        raise EngineRejects(f"sglang: messages[{index}] has role '{role}', which SGLang does not accept")
    calls = message.get("tool_calls")
    tools = message.get("tools")
    return {
        "role": role,
        "content": None if content is None else _sglang_parts(content, index),
        "tool_call_id": message.get("tool_call_id"),
        "name": message.get("name"),
        "reasoning_content": message.get("reasoning_content"),
        "tool_calls": None if calls is None else [_sglang_tool_call(c) for c in calls],
        "tools": None if tools is None else [_sglang_tool(t, i) for i, t in enumerate(tools)],
    }


def _sglang_parts(content: Any, index: int) -> Any:
    if isinstance(content, str):
        return content
    out = []
    for part in content:
        if not isinstance(part, dict):
            raise EngineRejects(f"sglang: messages[{index}] has a content part that is not an object")
        kind = part.get("type")
        if kind == "text":
            if not isinstance(part.get("text"), str):
                raise EngineRejects(f"sglang: messages[{index}] has a text part without text")
            out.append({"type": "text", "text": part["text"]})
        elif kind in ("thinking", "reasoning"):
            out.append({"type": kind, "thinking": part.get("thinking"), "text": part.get("text")})
        elif kind == "image_url":
            url = part.get("image_url") or {}
            out.append({"type": "image_url",
                        "image_url": {"url": url.get("url"), "detail": url.get("detail", "auto"),
                                      "max_dynamic_patch": url.get("max_dynamic_patch"),
                                      "min_dynamic_patch": url.get("min_dynamic_patch"),
                                      "content_hash": url.get("content_hash")},
                        "modalities": part.get("modalities", "image")})
        elif kind in ("video_url", "audio_url"):
            url = part.get(kind) or {}
            inner = {"url": url.get("url")}
            if kind == "video_url":
                inner.update(max_dynamic_patch=url.get("max_dynamic_patch"),
                             min_dynamic_patch=url.get("min_dynamic_patch"))
            out.append({"type": kind, kind: inner})
        elif kind == "tool_reference":
            out.append({"type": "tool_reference", "name": part.get("name")})
        else:
            raise EngineRejects(f"sglang: messages[{index}] has a content part of unknown type '{kind}'")
    return out


def _sglang_tool_call(call: Any) -> dict[str, Any]:
    call = call if isinstance(call, dict) else {}
    fn = call.get("function") or {}
    return {
        "id": call.get("id"),
        "index": call.get("index"),
        "type": "function",
        "function": {"name": fn.get("name"), "arguments": copy.deepcopy(fn.get("arguments"))},
    }


def _sglang_tool_call_arguments(message: dict[str, Any]) -> None:
    if message.get("role") != "assistant" or not isinstance(message.get("tool_calls"), list):
        return
    for call in message["tool_calls"]:
        function = call.get("function")
        if isinstance(function, dict) and isinstance(function.get("arguments"), str):
            try:
                parsed = json.loads(function["arguments"])
            except ValueError:
                raise EngineRejects("sglang: Assistant tool call function.arguments must be valid JSON.")
            if not isinstance(parsed, dict):
                raise EngineRejects("sglang: Assistant tool call function.arguments must be a JSON object.")
            function["arguments"] = parsed


def _sglang_content(message: dict[str, Any], content_format: str) -> dict[str, Any]:
    content = message.get("content")
    if not isinstance(content, list):
        return {k: v for k, v in message.items() if v is not None}
    if content_format == "openai":
        parts = []
        for chunk in content:
            kind = chunk.get("type")
            parts.append({"type": _SGLANG_MEDIA[kind]} if kind in _SGLANG_MEDIA else chunk)
        out = {k: v for k, v in message.items() if v is not None and k != "content"}
        out["content"] = parts
        return out
    texts = [c["text"] for c in content if c.get("type") == "text"]
    out = dict(message)
    out["content"] = " ".join(texts) if texts else ""
    return {k: v for k, v in out.items() if v is not None}


def _sglang_tool_content(role: str, content: Any) -> Any:
    # Tool results given as text parts become one string even for a template that reads parts.
    if role != "tool" or not isinstance(content, list):
        return content
    if all((isinstance(p, dict) and p.get("type") == "text") or isinstance(p, str) for p in content):
        return " ".join(p.get("text", "") if isinstance(p, dict) else p for p in content)
    return content


def _sglang_tool(tool: Any, index: int) -> dict[str, Any]:
    # Tool / Function of SGLang's protocol: unknown keys dropped, `strict` defaulted.
    if not isinstance(tool, dict) or not isinstance(tool.get("function"), dict):
        raise EngineRejects(f"sglang: tools[{index}] has no 'function' object")
    fn = tool["function"]
    if not isinstance(fn.get("name"), str):
        raise EngineRejects(f"sglang: tools[{index}].function has no string 'name'")
    defer = tool.get("defer_loading")
    fn_defer = fn.get("defer_loading", defer)
    function: dict[str, Any] = {"description": fn.get("description"), "name": fn["name"],
                                "parameters": fn.get("parameters"),
                                "strict": bool(fn.get("strict", False))}
    if fn_defer is not None:
        function["defer_loading"] = fn_defer
    return {"type": tool.get("type", "function"), "function": function, "defer_loading": defer}


# ------------------------------------------------------------------------------- shared


def _template_kwargs(options: Mapping[str, Any]) -> Iterable[tuple[str, Any]]:
    extra = options.get("chat_template_kwargs")
    if isinstance(extra, dict):
        return list(extra.items())
    return []
