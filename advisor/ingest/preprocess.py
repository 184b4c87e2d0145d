"""The engines' request preprocessing: an OpenAI chat request as vLLM or SGLang hands it
to the chat template.

Neither engine passes the request to ``apply_chat_template`` as it arrives. Each validates
it (its pydantic request model: defaults, validators, a 400 for what it refuses), rebuilds
the messages (which keys survive, what ``content: null`` becomes, how a list of content
parts is flattened, whether tool-call ``arguments`` strings are parsed) and re-serializes
the tool definitions through its own request model. The template then sees those objects,
so the rendered prompt, and every cached-prefix figure computed from it, depends on the
engine and its release. This module does that, as pure functions of the request:

* vLLM (``vllm/entrypoints/openai/chat_completion/protocol.py``: ``ChatCompletionRequest``
  and its validators ``check_tool_usage`` and ``check_generation_prompt``;
  ``vllm/renderers/online_renderer.py``: ``OnlineRenderer.render_chat``;
  ``vllm/renderers/chat_utils/chat_message.py``: ``parse_chat_message_content``,
  ``_postprocess_messages``);
* SGLang (``sglang/srt/entrypoints/openai/serving_chat.py``: ``_validate_request``,
  ``_process_messages``, ``_apply_jinja_template``, ``_handle_last_assistant_message``,
  ``normalize_assistant_tool_call_arguments``, ``normalize_tool_content``;
  ``sglang/srt/parser/jinja_template_utils.py``: ``process_content_for_template_format``;
  messages and tools through the pydantic models of ``protocol.py``).

Each rule follows a release read from its wheel: vLLM 0.33.0 and SGLang 0.5.23 (the
versions ``../shared/docs/REFERENCE.md`` pins, the defaults) and vLLM 0.34.0 (the newest
release; SGLang 0.5.23 is its newest). An engine is named ``vllm`` or, for another release
than the default, ``vllm==0.34.0`` (``engine_spec``); the releases differ in one rule
here, ``tools: []`` under vLLM. A request the engine would answer with an error raises
``EngineRejects`` with the engine's reason.

What each release does with the four requests whose rendering is easy to get wrong:

* ``tools: []``: vLLM 0.33.0 refuses the request (``check_tool_usage``: "`tools` must not
  be an empty array"); vLLM 0.34.0 treats it as no tools (the template gets ``tools=None``;
  with a named ``tool_choice`` the request is refused); SGLang 0.5.23 passes no tools
  (``_process_messages``: only a non-empty list reaches the template).
* a tool call whose ``arguments`` is ``""``: vLLM gives the template ``{}``
  (``_postprocess_messages``); SGLang 0.5.23 refuses the request
  (``parse_tool_call_arguments``: "must be valid JSON", as for any string that is not a
  JSON object; orjson, so ``NaN`` and ``Infinity`` are not JSON either).
* a last message from the assistant: vLLM renders it as an assistant turn, then the
  generation prompt (``add_generation_prompt`` defaults to true; ``continue_final_message``
  needs ``add_generation_prompt: false`` sent with it, else the request fails); SGLang
  0.5.23 turns it into a user turn with the same text (``_handle_last_assistant_message``,
  always called for a chat completion, whose ``add_generation_prompt`` is not a field), or
  with ``continue_final_message`` drops it and appends its text after the prompt.
* a template that loops over content parts (``advisor.ingest.content_format``): vLLM gives
  every message's content as a list of parts, a plain string too (``[{"type": "text",
  "text": ...}]``, which a template that prints ``message.content`` prints as a Python
  list), except a tool message's all-text parts, joined with ``"\\n"`` into one string;
  SGLang only turns lists into parts (text, and media as ``{"type": "image"}``, other parts
  dropped): string content stays a string, and a tool message's all-text parts are joined
  with ``" "``.

Not followed yet (the pinned releases differ): the tool definitions' dump (vLLM's
``ChatCompletionToolsParam`` / ``FunctionDefinition`` drop keys they do not declare and
leave out ``strict`` and ``defer_loading`` when unset; SGLang 0.5.23's ``Function`` keeps
the client's key order and leaves out ``strict`` and ``defer_loading`` when unset), vLLM's
``reasoning_effort`` template variables, and SGLang appending a continued message's text as
separately encoded token ids (``_append_assistant_prefix_to_prompt_ids``) rather than text.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from advisor.errors import AdvisorError

ENGINES = ("vllm", "sglang")
DEFAULT_ENGINE = "sglang"
# The releases whose request handling was read from their wheels and is followed; the
# first of each is the default (the version ../shared/docs/REFERENCE.md pins).
ENGINE_VERSIONS: dict[str, tuple[str, ...]] = {"vllm": ("0.33.0", "0.34.0"), "sglang": ("0.5.23",)}
CONTENT_FORMATS = ("string", "openai")
ENGINE_HELP = ("Serving engine whose request preprocessing renders chat records: sglang (default) or vllm "
               "(content parts, null content, tool-call arguments and tool definitions as that engine passes "
               "them to the chat template).")
ENGINE_VERSION_HELP = ("Release of --engine whose request handling renders chat records: vllm 0.33.0 (default) "
                       "or 0.34.0, sglang 0.5.23 (default). vLLM 0.33.0 refuses `tools: []`, 0.34.0 renders it "
                       "as no tools.")

# Request-level fields (besides messages and tools) that change the rendered prompt.
REQUEST_OPTIONS = ("tool_choice", "chat_template_kwargs", "reasoning_effort", "continue_final_message",
                   "add_generation_prompt")

# vLLM: part types whose text is kept, and the key that holds it.
_VLLM_TEXT_PARTS = {"text": "text", "input_text": "text", "output_text": "text", "refusal": "refusal",
                    "thinking": "thinking"}
_MEDIA_PARTS = {"image_url": "image", "input_image": "image", "image_pil": "image", "image_embeds": "image",
                "audio_url": "audio", "input_audio": "audio", "audio_embeds": "audio", "video_url": "video"}
_SGLANG_MEDIA = {"image_url": "image", "video_url": "video", "audio_url": "audio"}
_SGLANG_ROLES = frozenset({"system", "assistant", "tool", "function", "developer", "latest_reminder", "root"})


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


def split_engine(engine: str) -> tuple[str, str]:
    """``(name, release)`` of an engine as ``engine_spec`` writes it (``vllm``,
    ``vllm==0.34.0``); the release defaults to the pinned one."""
    name, _, version = engine.partition("==")
    if name not in ENGINES:
        raise AdvisorError(f"unknown --engine '{name}': use {' or '.join(ENGINES)}")
    known = ENGINE_VERSIONS[name]
    if not version:
        return name, known[0]
    if version not in known:
        others = "".join(f" or {v}" for v in known[1:])
        raise AdvisorError(f"unknown --engine-version '{version}' for {name}: advisor follows {name} {known[0]}"
                           + (f" (the default){others}" if others else ""))
    return name, version


def engine_name(engine: str) -> str:
    return split_engine(engine)[0]


def check_engine(engine: str) -> str:
    split_engine(engine)
    return engine


def engine_spec(engine: str, version: str | None = None) -> str:
    """The engine as the renderers take it: ``--engine``, with ``==VERSION`` when
    ``--engine-version`` names another release than the default."""
    name, release = split_engine(engine)
    if version:
        name, release = split_engine(f"{name}=={version}")
    return name if release == ENGINE_VERSIONS[name][0] else f"{name}=={release}"


def prepare(engine: str, messages: Sequence[Mapping[str, Any]], tools: Sequence[Any] | None,
            options: Mapping[str, Any] | None = None, content_format: str = "string") -> Prepared:
    """The request as ``engine`` (a name, or ``engine_spec``'s ``name==version``) passes it
    to a template of ``content_format``."""
    name, version = split_engine(engine)
    options = options or {}
    if tools is None and not options and content_format == "string" and _plain(messages):
        return _plain_prepared(name, messages)
    if name == "vllm":
        return _vllm(messages, tools, options, content_format, version)
    return _sglang(messages, tools, options, content_format)


_PLAIN_ROLES = frozenset({"system", "user", "assistant"})


def _plain(messages: Sequence[Mapping[str, Any]]) -> bool:
    """Only ``role`` and string ``content``: the common case, which both engines pass on
    as ``{"role", "content"}`` (checked against the full path by the tests)."""
    for m in messages:
        if len(m) != 2 or m.get("role") not in _PLAIN_ROLES or not isinstance(m.get("content"), str):
            return False
    return True


def _plain_prepared(engine: str, messages: Sequence[Mapping[str, Any]]) -> Prepared:
    out = [{"role": m["role"], "content": m["content"]} for m in messages]
    if engine == "sglang" and out[-1]["role"] == "assistant":
        out[-1] = {"role": "user", "content": out[-1]["content"]}
    return Prepared(engine=engine, messages=out, tools=None)


# ---------------------------------------------------------------------------------- vLLM


def _vllm(messages: Sequence[Mapping[str, Any]], tools: Sequence[Any] | None, options: Mapping[str, Any],
          content_format: str, version: str) -> Prepared:
    tools = _vllm_tools_checked(tools, options, version)
    add_generation_prompt, continue_final_message = _vllm_generation_prompt(options)
    conversation = [_vllm_message(m, content_format) for m in messages]
    for message in conversation:
        _vllm_tool_call_arguments(message)
    # vLLM keeps the tools of a tool_choice "none" request unless the server runs with
    # --exclude-tools-when-tool-choice-none (off by default): OnlineRenderer.render_chat.
    tool_dicts = None if tools is None else [_vllm_tool(t, i) for i, t in enumerate(tools)]
    # Only chat_template_kwargs reach the template here. (Not followed yet: 0.33.0's
    # ChatCompletionRequest.build_chat_params also passes a request's reasoning_effort, and
    # enable_thinking = reasoning_effort != "none" unless chat_template_kwargs sets it.)
    kwargs = dict(_template_kwargs(options))
    return Prepared(
        engine="vllm",
        messages=conversation,
        tools=tool_dicts,
        kwargs=kwargs,
        add_generation_prompt=add_generation_prompt,
        continue_final_message=continue_final_message,
    )


def _vllm_tools_checked(tools: Sequence[Any] | None, options: Mapping[str, Any],
                        version: str) -> Sequence[Any] | None:
    """The tool list ``ChatCompletionRequest`` keeps, after its ``check_tool_usage``
    validator (protocol.py, run on the request as sent), or the 400 it answers.

    ``tools: []``: 0.33.0 refuses it ("`tools` must not be an empty array. Either provide
    at least one tool or omit the field entirely."); 0.34.0 reads it as no tools (and
    ``tool_choice`` "auto" / "required" as "none") unless ``tool_choice`` names a tool,
    which then matches none of the empty list.
    """
    choice = options.get("tool_choice")
    if tools is not None and len(tools) == 0:
        if version == "0.33.0":
            raise EngineRejects("vllm 0.33.0: `tools` must not be an empty array; provide at least one tool "
                                "or omit the field")
        if not isinstance(choice, dict):
            tools = None
            if choice in ("auto", "required"):
                choice = "none"
    if choice is None or choice == "none":
        return tools
    if tools is None:
        raise EngineRejects("vllm: when using `tool_choice`, `tools` must be set")
    if isinstance(choice, dict):
        function = choice.get("function")
        name = function.get("name") if isinstance(function, dict) else None
        if not isinstance(name, str) or not name:
            raise EngineRejects("vllm: a named `tool_choice` needs {\"type\": \"function\", \"function\": "
                                "{\"name\": ...}}")
        if not any(isinstance(t, dict) and isinstance(t.get("function"), dict) and t["function"].get("name") == name
                   for t in tools):
            raise EngineRejects(f"vllm: the tool `{name}` specified in `tool_choice` does not match any of the "
                                "specified `tools`")
    elif choice not in ("auto", "required"):
        raise EngineRejects(f"vllm: invalid value for `tool_choice`: {choice!r}; only named tools, \"none\", "
                            "\"auto\" or \"required\" are supported")
    return tools


def _vllm_generation_prompt(options: Mapping[str, Any]) -> tuple[bool, bool]:
    """``add_generation_prompt`` (default true) and ``continue_final_message`` (default
    false) as ``ChatCompletionRequest`` has them. A last message from the assistant changes
    neither: the template renders it as a finished turn, then the generation prompt.
    Both true is refused, by ``check_generation_prompt`` when the request sends both, else
    by transformers' ``apply_chat_template`` ("not compatible"), which vLLM's
    ``safe_apply_chat_template`` answers with a 400: ``continue_final_message`` needs
    ``add_generation_prompt: false`` sent with it."""
    add_generation_prompt = bool(options.get("add_generation_prompt", True))
    continue_final_message = bool(options.get("continue_final_message", False))
    if add_generation_prompt and continue_final_message:
        raise EngineRejects("vllm: continue_final_message and add_generation_prompt (true unless the request "
                            "sets it false) are not compatible")
    return add_generation_prompt, continue_final_message


def check_mistral_tokenizer_request(prepared: Prepared) -> None:
    """vLLM with a Mistral tokenizer (``--tokenizer-mode mistral``) checks the generation
    prompt against the last message before mistral-common encodes it
    (``vllm/tokenizers/mistral.py``: ``_validate_apply_chat_template_args``, 0.33.0 and
    0.34.0): a last message from the assistant needs ``continue_final_message`` (with
    ``add_generation_prompt: false``), and ``continue_final_message`` needs one."""
    last = prepared.messages[-1]["role"] if prepared.messages else None
    if prepared.add_generation_prompt and last == "assistant":
        raise EngineRejects("vllm: cannot set `add_generation_prompt` to true (the default) when the last message "
                            "is from the assistant; use `continue_final_message`")
    if prepared.continue_final_message and last != "assistant":
        raise EngineRejects("vllm: cannot set `continue_final_message` when the last message is not from the "
                            "assistant")


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
    if content_format != "openai":
        result["content"] = "\n".join(pieces)
    elif role == "tool" and all(p.get("type") == "text" for p in pieces):
        # parse_chat_message_content: a tool result of text parts only (a string too, a
        # null as none) is one string again, even for a template that reads parts.
        result["content"] = "\n".join(p["text"] for p in pieces)
    else:
        # Every other message's content is a list of parts, a plain string too.
        result["content"] = pieces
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
    """Tool-call ``arguments`` as the template gets them (chat_message.py:
    ``_postprocess_messages``, 0.33.0 and 0.34.0): the OpenAI JSON string parsed to an
    object; what is empty (``""``, null), malformed or not an object becomes ``{}``
    rather than failing the turn (which would fail every later turn of the chat)."""
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
    # ChatCompletionToolsParam / FunctionDefinition as an earlier vLLM dumped them
    # (extra="allow"): declared fields in order with their defaults, then whatever else the
    # client sent. 0.33.0 and 0.34.0 differ: see "Not followed yet" above.
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
    models = None if tools is None else [_sglang_tool(t, i) for i, t in enumerate(tools)]
    tool_choice = _sglang_tool_choice(models, options, dumped)
    for message in dumped:
        _sglang_tool_call_arguments(message)
    processed = []
    for message in dumped:
        if message.get("content") is None:
            message["content"] = ""
        out = _sglang_content(message, content_format)
        out["content"] = _sglang_tool_content(out["role"], out.get("content"))
        processed.append(out)
    processed, suffix = _sglang_last_assistant(processed, bool(options.get("continue_final_message", False)))

    # _process_messages: the template gets the request's tools (the named one alone, or
    # None if it is not among them) only when there are some and tool_choice is not
    # "none"; an empty list is no tools.
    tool_dicts = None
    if models and tool_choice != "none":
        if isinstance(tool_choice, dict):
            wanted = (tool_choice.get("function") or {}).get("name")
            models = [t for t in models if t["function"]["name"] == wanted]
        tool_dicts = models or None
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


def _sglang_last_assistant(processed: list[dict[str, Any]], continue_final: bool) -> tuple[list[dict[str, Any]], str]:
    """A last message from the assistant (serving_chat.py: ``_handle_last_assistant_message``,
    0.5.23), called by ``_apply_jinja_template`` for every chat completion (only
    ``/v1/tokenize`` can send ``add_generation_prompt``, which would skip it).

    Only a turn whose content is a string by then (always, for a template of strings; for
    one that reads parts, when the client sent a string or null): with
    ``continue_final_message`` the turn is taken out and its text appended after the
    rendered prompt (the model continues it); without, the turn becomes
    ``{"role": "user", "content": <its text>}`` (tool calls, reasoning and name dropped),
    so the prompt never ends on an assistant turn. Then the template is rendered with
    ``add_generation_prompt=True``."""
    if not processed or processed[-1].get("role") != "assistant" or not isinstance(processed[-1].get("content"), str):
        return processed, ""
    last = processed[-1]["content"]
    if continue_final:
        return processed[:-1], last
    return [*processed[:-1], {"role": "user", "content": last}], ""


def _sglang_tool_choice(tools: Sequence[Mapping[str, Any]] | None, options: Mapping[str, Any],
                        dumped: Sequence[Mapping[str, Any]]) -> Any:
    """``tool_choice`` as the request model defaults it (``set_tool_choice_default``:
    "none" without tools, else "auto"; an empty list is tools here), checked as
    ``_validate_request`` checks it against the tools the request and its system,
    developer or root messages carry (0.5.23)."""
    choice = options.get("tool_choice")
    own = [m["tools"] for m in dumped if m.get("role") in ("root", "system", "developer") and m.get("tools")]
    if choice is None:
        choice = "none" if tools is None and not own else "auto"
    if isinstance(choice, str) and choice not in ("auto", "required", "none"):
        raise EngineRejects(f"sglang: tool_choice must be 'auto', 'required', 'none' or a named function, "
                            f"not {choice!r}")
    names = [t["function"]["name"] for group in (tools or (), *own) for t in group]
    if choice == "required" and not names:
        raise EngineRejects("sglang: Tools cannot be empty if tool choice is set to required.")
    if isinstance(choice, dict):
        if not names:
            raise EngineRejects("sglang: Tools cannot be empty if tool choice is set to a specific tool.")
        wanted = (choice.get("function") or {}).get("name")
        if wanted not in names:
            raise EngineRejects(f"sglang: Tool '{wanted}' not found in tools list.")
    return choice


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
        parts = _sglang_parts(content, index)
        if isinstance(parts, list) and any(p["type"] in ("thinking", "reasoning") for p in parts):
            raise EngineRejects(f"sglang: messages[{index}]: thinking content parts are only valid in assistant "
                                "messages")
        return {"role": "user", "content": parts}
    if role not in _SGLANG_ROLES:
        raise EngineRejects(f"sglang: messages[{index}] has role '{role}', which SGLang does not accept")
    calls = message.get("tool_calls")
    tools = message.get("tools")
    parts = None if content is None else _sglang_parts(content, index)
    if role != "assistant" and isinstance(parts, list) and any(p["type"] in ("thinking", "reasoning") for p in parts):
        raise EngineRejects(f"sglang: messages[{index}]: thinking content parts are only valid in assistant messages")
    return {
        "role": role,
        "content": parts,
        "tool_call_id": message.get("tool_call_id"),
        "name": message.get("name"),
        "phase": message.get("phase"),
        "reasoning_content": message.get("reasoning_content"),
        "tool_calls": None if calls is None else [_sglang_tool_call(c) for c in calls],
        "tools": None if tools is None else [_sglang_tool(t, i) for i, t in enumerate(tools)],
        "prefix": message.get("prefix"),
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
            if (part.get("thinking") is None) == (part.get("text") is None):
                raise EngineRejects(f"sglang: messages[{index}]: thinking parts require exactly one of 'thinking' "
                                    "or 'text'")
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
        elif kind == "input_audio":
            # Inline audio validates into the audio_url part of the same data URI.
            audio = part.get("input_audio") or {}
            mime = {"wav": "audio/wav", "mp3": "audio/mpeg"}.get(str(audio.get("format")))
            if mime is None or not isinstance(audio.get("data"), str):
                raise EngineRejects(f"sglang: messages[{index}] has an input_audio part without wav or mp3 data")
            out.append({"type": "audio_url", "audio_url": {"url": f"data:{mime};base64,{audio['data']}"}})
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


def _not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is not JSON")


def _sglang_tool_call_arguments(message: dict[str, Any]) -> None:
    """Tool-call ``arguments`` strings parsed for the template, or the request refused
    (serving_chat.py: ``normalize_assistant_tool_call_arguments`` with ``strict=True``,
    what ``_apply_jinja_template`` passes for a Jinja template, and
    ``parse_tool_call_arguments``, 0.5.23): ``""`` and anything else that is not a JSON
    object is a 400, never ``{}``. The parser is orjson: ``NaN`` and ``Infinity`` are
    not JSON. An object or null is passed as it is."""
    if message.get("role") != "assistant" or not isinstance(message.get("tool_calls"), list):
        return
    for call in message["tool_calls"]:
        function = call.get("function")
        if isinstance(function, dict) and isinstance(function.get("arguments"), str):
            try:
                parsed = json.loads(function["arguments"], parse_constant=_not_json)
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
        # process_content_for_template_format: text parts and tool references kept, media
        # as their bare type, any other part (thinking) dropped.
        parts = []
        for chunk in content:
            kind = chunk.get("type")
            if kind in _SGLANG_MEDIA:
                parts.append({"type": _SGLANG_MEDIA[kind]})
            elif kind == "text":
                parts.append({"type": "text", "text": chunk["text"]})
            elif kind == "tool_reference":
                parts.append(chunk)
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
    # Tool / Function of an earlier SGLang protocol: unknown keys dropped, `strict`
    # defaulted. 0.5.23 differs: see "Not followed yet" above.
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
