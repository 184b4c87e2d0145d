"""A second, independent statement of what vLLM and SGLang hand the chat template.

advisor.ingest.preprocess implements the engines' request handling as plain functions.
This oracle states it another way: the request models are pydantic models with the
engines' field lists, types and defaults (so key order, defaults and dropped keys come
from pydantic's own ``model_dump``, as they do in the engines), and the message handling
is written from the engines' code paths step by step. Rendering is HuggingFace
transformers' own ``apply_chat_template``. Nothing here imports advisor.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, Dict, List, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field


class Rejected(Exception):
    """The engine answers 400."""


# ------------------------------------------------------------------------ SGLang models


class SgTextPart(BaseModel):
    type: Literal["text"]
    text: str


class SgImageURL(BaseModel):
    url: str
    detail: Optional[Literal["auto", "low", "high"]] = "auto"
    max_dynamic_patch: Optional[int] = None
    min_dynamic_patch: Optional[int] = None
    content_hash: Optional[str] = None


class SgImagePart(BaseModel):
    type: Literal["image_url"]
    image_url: SgImageURL
    modalities: Optional[Literal["image", "multi-images", "video"]] = "image"


SgPart = Union[SgTextPart, SgImagePart]


class SgFunctionResponse(BaseModel):
    name: Optional[str] = None
    arguments: Optional[Union[str, Dict[str, Any]]] = None


class SgToolCall(BaseModel):
    id: Optional[str] = None
    index: Optional[int] = None
    type: Literal["function"] = "function"
    function: SgFunctionResponse


class SgFunction(BaseModel):
    description: Optional[str] = Field(default=None)
    name: str
    parameters: Optional[object] = None
    strict: bool = False


class SgTool(BaseModel):
    type: str = "function"
    function: SgFunction
    defer_loading: Optional[bool] = None


class SgGeneric(BaseModel):
    role: Literal["system", "assistant", "tool", "function", "developer"]
    content: Union[str, List[SgPart], None] = None
    tool_call_id: Optional[str] = None
    name: Optional[str] = None
    reasoning_content: Optional[str] = None
    tool_calls: Optional[List[SgToolCall]] = None
    tools: Optional[List[SgTool]] = None


class SgUser(BaseModel):
    role: Literal["user"]
    content: Union[str, List[SgPart]]


def _sg_message(raw: dict) -> BaseModel:
    try:
        return SgUser(**raw) if raw.get("role") == "user" else SgGeneric(**raw)
    except Exception as exc:  # pydantic's ValidationError: FastAPI answers 422
        raise Rejected(str(exc).splitlines()[0])


def _sg_tool_choice(request: dict, tools: Optional[List[SgTool]]) -> Any:
    """SGLang 0.5.23: ChatCompletionRequest.set_tool_choice_default, then
    OpenAIServingChat._validate_request's tool_choice checks."""
    choice = request.get("tool_choice")
    if choice is None:
        choice = "none" if request.get("tools") is None else "auto"
    names = [t.function.name for t in tools or []]
    if choice == "required" and not names:
        raise Rejected("Tools cannot be empty if tool choice is set to required.")
    if isinstance(choice, dict):
        if not names:
            raise Rejected("Tools cannot be empty if tool choice is set to a specific tool.")
        if choice["function"]["name"] not in names:
            raise Rejected(f"Tool '{choice['function']['name']}' not found in tools list.")
    return choice


def _no_constants(name: str) -> Any:
    raise ValueError(name)  # orjson (SGLang's parser) knows no NaN / Infinity


def sglang(request: dict, content_format: str) -> dict:
    """The messages, tools and kwargs SGLang passes to apply_chat_template, with the
    suffix it appends and the function-only tools it retries with."""
    messages = [_sg_message(m).model_dump() for m in request["messages"]]
    raw_tools = request.get("tools")
    models = None if raw_tools is None else [SgTool(**t) for t in raw_tools]
    choice = _sg_tool_choice(request, models)
    for m in messages:
        if m.get("role") == "assistant" and isinstance(m.get("tool_calls"), list):
            for call in m["tool_calls"]:
                args = call["function"].get("arguments")
                if isinstance(args, str):
                    try:
                        value = json.loads(args, parse_constant=_no_constants)
                    except ValueError:
                        raise Rejected("Assistant tool call function.arguments must be valid JSON.")
                    if not isinstance(value, dict):
                        raise Rejected("Assistant tool call function.arguments must be a JSON object.")
                    call["function"]["arguments"] = value
    out = []
    for m in copy.deepcopy(messages):
        if m.get("content") is None:
            m["content"] = ""
        if isinstance(m["content"], list):
            if content_format == "openai":
                parts = [{"type": "image"} if p.get("type") == "image_url" else {"type": "text", "text": p["text"]}
                         for p in m["content"] if p.get("type") in ("image_url", "text")]
                new = {k: v for k, v in m.items() if v is not None and k != "content"}
                new["content"] = parts
            else:
                texts = [p["text"] for p in m["content"] if p.get("type") == "text"]
                new = {**m, "content": " ".join(texts) if texts else ""}
                new = {k: v for k, v in new.items() if v is not None}
        else:
            new = {k: v for k, v in m.items() if v is not None}
        if new["role"] == "tool" and isinstance(new.get("content"), list):
            if all(isinstance(p, dict) and p.get("type") == "text" for p in new["content"]):
                new["content"] = " ".join(p.get("text", "") for p in new["content"])
        out.append(new)
    suffix = ""
    if out and out[-1]["role"] == "assistant" and isinstance(out[-1].get("content"), str):
        if request.get("continue_final_message"):
            suffix = out[-1]["content"]
            out = out[:-1]
        else:
            out[-1] = {"role": "user", "content": out[-1]["content"]}
    tools = None
    if models and choice != "none":
        if isinstance(choice, dict):
            models = [t for t in models if t.function.name == choice["function"]["name"]]
        tools = [t.model_dump() for t in models] or None
    kwargs: dict = {}
    ctk = dict(request.get("chat_template_kwargs") or {})
    effort = request.get("reasoning_effort")
    if effort is not None:
        ctk.setdefault("thinking", effort != "none")
        ctk.setdefault("enable_thinking", effort != "none")
    if ctk.get("reasoning_effort") is not None:
        effort = ctk.pop("reasoning_effort")
    if effort is not None:
        kwargs["reasoning_effort"] = effort
    kwargs.update(ctk)
    fallback = [t.get("function", t) for t in tools] if tools else None
    return {"messages": out, "tools": tools, "kwargs": kwargs, "suffix": suffix, "fallback": fallback,
            "continue_final_message": False, "add_generation_prompt": True}


# -------------------------------------------------------------------------- vLLM models


class VlBase(BaseModel):
    model_config = ConfigDict(extra="allow")


class VlFunctionDefinition(VlBase):
    name: str
    description: Optional[str] = None
    parameters: Optional[Dict[str, Any]] = None


class VlTool(VlBase):
    type: Literal["function"] = "function"
    function: VlFunctionDefinition


def _vl_check_tool_usage(request: dict, version: str) -> Optional[list]:
    """vLLM's ChatCompletionRequest.check_tool_usage (protocol.py, a mode="before"
    validator on the request as sent): the tools the request keeps."""
    tools = request.get("tools")
    choice = request.get("tool_choice")
    if tools == []:
        if version == "0.33.0":
            raise Rejected("`tools` must not be an empty array.")
        if not isinstance(choice, dict):  # 0.34.0: as if no tools were sent
            tools = None
            if choice in ("auto", "required"):
                choice = "none"
    if choice is None or choice == "none":
        return tools
    if tools is None:
        raise Rejected("When using `tool_choice`, `tools` must be set.")
    if isinstance(choice, dict):
        if not any(t["function"]["name"] == choice["function"]["name"] for t in tools):
            raise Rejected("The tool specified in `tool_choice` does not match any of the specified `tools`")
    elif choice not in ("auto", "required"):
        raise Rejected(f"Invalid value for `tool_choice`: {choice}!")
    return tools


def vllm(request: dict, content_format: str, version: str = "0.33.0") -> dict:
    raw_tools = _vl_check_tool_usage(request, version)
    conversation = []
    for message in request["messages"]:
        role = message["role"]
        content = message.get("content")
        if content is None:
            items: list = []
        elif isinstance(content, str):
            items = [{"type": "text", "text": content}]
        else:
            items = content
        texts: list = []
        for item in items:
            if isinstance(item, str):
                texts.append(item)
                continue
            kind = item.get("type")
            if kind in ("text", "input_text", "output_text"):
                value = item.get("text")
            elif kind == "refusal":
                value = item.get("refusal")
            elif kind == "image_url":
                if content_format != "openai":
                    raise Rejected("image part needs a multimodal model")
                texts.append({"type": "image"})
                continue
            else:
                raise Rejected(f"Unknown part type: {kind}")
            if value is None:
                continue
            texts.append(value)
        if content_format == "openai":
            body: Any = [t if isinstance(t, dict) else {"type": "text", "text": t} for t in texts]
            if role == "tool" and not any(item.get("type") != "text" for item in body):
                body = "\n".join(item["text"] for item in body)  # parse_chat_message_content
        else:
            body = "\n".join(texts)
        msg: dict = {"role": role, "content": body}
        if role == "assistant":
            if message.get("tool_calls") is not None:
                msg["tool_calls"] = copy.deepcopy(list(message["tool_calls"]))
            reasoning = message.get("reasoning", message.get("reasoning_content"))
            if reasoning is not None:
                msg["reasoning"] = reasoning
                msg["reasoning_content"] = reasoning
        elif role == "tool" and "tool_call_id" in message:
            msg["tool_call_id"] = message["tool_call_id"]
        if isinstance(message.get("name"), str):
            msg["name"] = message["name"]
        if role == "developer":
            msg["tools"] = message.get("tools")
        conversation.append(msg)
    for msg in conversation:
        if msg["role"] != "assistant" or not isinstance(msg.get("tool_calls"), list):
            continue
        if not msg["tool_calls"]:
            del msg["tool_calls"]
            continue
        for call in msg["tool_calls"]:
            fn = call["function"]
            args = fn.get("arguments")
            if not args:
                fn["arguments"] = {}
            elif isinstance(args, dict):
                pass
            else:
                try:
                    parsed = json.loads(args) if isinstance(args, str) else args
                except ValueError:
                    parsed = None
                fn["arguments"] = parsed if isinstance(parsed, dict) else {}
    tools = None if raw_tools is None else [VlTool(**t).model_dump() for t in raw_tools]
    return {"messages": conversation, "tools": tools, "kwargs": dict(request.get("chat_template_kwargs") or {}),
            "suffix": "", "fallback": None,
            "continue_final_message": bool(request.get("continue_final_message", False)),
            "add_generation_prompt": bool(request.get("add_generation_prompt", True))}


def reference_render(tokenizer: Any, prepared: dict, now: Any) -> str:
    """transformers' apply_chat_template on what the engine prepared, with the engine's
    retry (SGLang) and suffix."""
    import transformers.utils.chat_template_utils as hf

    def once(tools: Any) -> str:
        return tokenizer.apply_chat_template(
            prepared["messages"], tools=tools, tokenize=False,
            add_generation_prompt=prepared["add_generation_prompt"],
            continue_final_message=prepared["continue_final_message"], **prepared["kwargs"])

    class _Clock:
        # transformers' strftime_now reads `datetime.now()` of its module: the server's
        # clock at request time, which the request's timestamp stands for here.
        @staticmethod
        def now() -> Any:
            return now

    saved = hf.datetime
    hf.datetime = _Clock  # type: ignore[assignment]
    try:
        try:
            text = once(prepared["tools"])
        except Exception:
            if prepared["fallback"] is None:
                raise
            text = once(prepared["fallback"])
    finally:
        hf.datetime = saved
    return text + prepared["suffix"]


def model_folder(root: Path, name: str, specials: dict[str, str], template: str) -> Path:
    """A HuggingFace-style folder for the reference renderer: tokenizer.json (the special
    tokens only: the reference renders, it does not tokenize) and tokenizer_config.json with
    the template."""
    from tokenizers import AddedToken, Tokenizer, models

    folder = root / name
    folder.mkdir()
    tok = Tokenizer(models.BPE(vocab={"a": 0}, merges=[]))
    tok.add_special_tokens([AddedToken(t, special=True) for t in specials.values()])
    tok.save(str(folder / "tokenizer.json"))
    config = {"tokenizer_class": "PreTrainedTokenizerFast", **specials, "chat_template": template}
    (folder / "tokenizer_config.json").write_text(json.dumps(config, ensure_ascii=False))
    return folder
