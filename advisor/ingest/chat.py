"""Chat rendering: turn a ``messages`` request into the exact text the engine tokenizes.

The built-in layout is the one of the default model, Llama 3.1 Instruct, written here in
Python (no Jinja on the hot path) and equal to what that model's official chat template
renders from the same input: the system turn opens with ``Cutting Knowledge Date:
December 2023`` and ``Today Date: 26 Jul 2024``; tool definitions go, by default, at the
top of the first user turn (``tools_in_user_message``), with ``Environment: ipython`` in
the system turn; an assistant tool call is rendered as ``{"name": ..., "parameters":
...}`` and a tool result as an ``ipython`` turn holding its content as JSON. A
HuggingFace chat template can replace it (``advisor.ingest.chat_template``, which needs
Jinja2; this module does not, so the common case starts without importing it).

Either way the request first goes through the engine's preprocessing
(``advisor.ingest.preprocess``): the layout sees what the engine's template would see.
"""

from __future__ import annotations

import datetime as dt
import json
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Protocol, Sequence

from advisor.errors import AdvisorError
from advisor.ingest.preprocess import DEFAULT_ENGINE, Prepared, prepare

if TYPE_CHECKING:
    from advisor.ingest.tokenizers import Tokenizer

BOS = "<|begin_of_text|>"
HEADER = "<|start_header_id|>{role}<|end_header_id|>\n\n"
EOT = "<|eot_id|>"
EOM = "<|eom_id|>"
PYTHON_TAG = "<|python_tag|>"
# The special tokens the built-in layout writes: one id each in Llama 3's tokenizer, the one
# it is for; another tokenizer may spell them as text (``plain_specials_warning``).
LLAMA3_SPECIALS = (BOS, "<|start_header_id|>", "<|end_header_id|>", EOT, EOM, PYTHON_TAG)
LLAMA3_TOKENIZER = "llama3"
# Llama 3.1's template: its training cut-off, and the date it uses when the caller passes
# no `date_string` (it never reads the clock).
KNOWLEDGE_DATE = "December 2023"
DEFAULT_DATE_STRING = "26 Jul 2024"
# The date `strftime_now` gives a request without an absolute timestamp: fixed, so the
# same input always renders the same text; commands state it when they use it.
FALLBACK_NOW = dt.datetime(2026, 1, 1, 12, 0, 0, tzinfo=dt.timezone.utc)
CONTINUE_TAG = "CONTINUE_FINAL_MESSAGE_TAG "

_CALL_INSTRUCTION = ('Respond in the format {"name": function name, "parameters": dictionary of argument name '
                     'and its value}.Do not use variables.\n\n')
_SYSTEM_TOOLS_INTRO = ("You have access to the following functions. To call a function, please respond with JSON "
                       "for a function call.")
_USER_TOOLS_INTRO = ("Given the following functions, please respond with a JSON for a function call with its "
                     "proper arguments that best answers the given prompt.\n\n")


class ChatRenderer(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def engine(self) -> str: ...

    def render(self, messages: Sequence[dict[str, Any]], tools: Sequence[Any] | None,
               timestamp: float | None = None, options: Mapping[str, Any] | None = None) -> str: ...


class LayoutError(AdvisorError):
    """The layout refuses the conversation, where the model's template raises."""


def _jinja_str(value: Any) -> str:
    # What Jinja prints for a value (`{{ x }}`, `x | trim`): Python's str, so None is "None".
    return value if isinstance(value, str) else str(value)


def _tojson(value: Any, indent: int | None = None) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, indent=indent)
    except (TypeError, ValueError) as exc:
        raise LayoutError(f"template failed: {type(exc).__name__}: {exc}")


def _concat(*parts: Any) -> str:
    # Jinja's `+` on strings: anything else in the sum fails as Python's would.
    for part in parts:
        if not isinstance(part, str):
            raise LayoutError(f"template failed: TypeError: can only concatenate str (not \"{type(part).__name__}\") "
                              "to str")
    return "".join(parts)


@dataclass
class Llama3Layout:
    """Llama 3.1 Instruct's chat layout, fed the way ``engine`` feeds the template.

    ``chat_template_kwargs`` a request carries reach it as they reach the template:
    ``date_string``, ``tools_in_user_message``, ``custom_tools``, ``builtin_tools``.
    """

    name: str = "llama3"
    engine: str = DEFAULT_ENGINE
    timezone: dt.tzinfo = field(default=dt.timezone.utc, repr=False)
    content_format: str = "string"

    def render(self, messages: Sequence[dict[str, Any]], tools: Sequence[Any] | None,
               timestamp: float | None = None, options: Mapping[str, Any] | None = None) -> str:
        prepared = prepare(self.engine, messages, tools, options, self.content_format)
        return self.render_prepared(prepared, clock_for(timestamp, self.timezone))

    def render_prepared(self, prepared: Prepared, now: dt.datetime | None = None) -> str:
        try:
            text = self._render(prepared, prepared.tools)
        except LayoutError:
            if prepared.fallback_tools is None:
                raise
            text = self._render(prepared, prepared.fallback_tools)
        return text + prepared.suffix

    def _render(self, prepared: Prepared, tools: list[dict[str, Any]] | None) -> str:
        # The template sees messages as transformers passes them: None values dropped.
        messages = [{k: v for k, v in m.items() if v is not None} for m in prepared.messages]
        final = tag_final_message(messages, "llama3 layout") if prepared.continue_final_message else None
        text = render_llama31(messages, tools, prepared.kwargs, prepared.add_generation_prompt)
        return cut_at_tag(text, final, "llama3 layout") if final is not None else text


def render_llama31(messages: list[dict[str, Any]], tools: list[Any] | None, kwargs: Mapping[str, Any],
                   add_generation_prompt: bool = True) -> str:
    """Llama 3.1 Instruct's chat template, step by step, on template-ready messages."""
    if "custom_tools" in kwargs:
        tools = kwargs["custom_tools"]
    in_user = kwargs.get("tools_in_user_message", True)
    date_string = kwargs.get("date_string", DEFAULT_DATE_STRING)
    builtin = kwargs.get("builtin_tools") if "builtin_tools" in kwargs else None
    has_builtin = "builtin_tools" in kwargs

    msgs = list(messages)
    if not msgs:
        raise LayoutError("template failed: UndefinedError: list object has no element 0")
    system = ""
    if msgs[0].get("role") == "system":
        system = _jinja_str(msgs[0].get("content")).strip()
        msgs = msgs[1:]
    out = [BOS, HEADER.format(role="system")]
    if has_builtin or tools is not None:
        out.append("Environment: ipython\n")
    if has_builtin:
        names = [n for n in (builtin or []) if n != "code_interpreter"]
        out.append("Tools: " + ", ".join(_jinja_str(n) for n in names) + "\n\n")
    out.append(f"Cutting Knowledge Date: {KNOWLEDGE_DATE}\n")
    out.append(_concat("Today Date: ", date_string, "\n\n"))
    if tools is not None and not in_user:
        out.append(_SYSTEM_TOOLS_INTRO + _CALL_INSTRUCTION)
        out.append(_tool_block(tools))
    out.append(system + EOT)
    if in_user and tools is not None:
        if not msgs:
            raise LayoutError("template error: Cannot put tools in the first user message when there's no "
                              "first user message!")
        first = _jinja_str(msgs[0].get("content")).strip()
        msgs = msgs[1:]
        out.append(HEADER.format(role="user") + _USER_TOOLS_INTRO + _CALL_INSTRUCTION)
        out.append(_tool_block(tools))
        out.append(first + EOT)
    for msg in msgs:
        role = msg.get("role")
        if not (role in ("ipython", "tool") or "tool_calls" in msg):
            out.append(_concat("<|start_header_id|>", role, "<|end_header_id|>\n\n",
                               _jinja_str(msg.get("content")).strip(), EOT))
        elif "tool_calls" in msg:
            out.append(_tool_call_turn(msg, builtin if has_builtin else None, has_builtin))
        else:
            if "content" not in msg:
                raise LayoutError("template failed: TypeError: Object of type Undefined is not JSON serializable")
            content = msg["content"]
            body = _tojson(content) if isinstance(content, (dict, list, str)) else _jinja_str(content)
            out.append(HEADER.format(role="ipython") + body + EOT)
    if add_generation_prompt:
        out.append(HEADER.format(role="assistant"))
    return "".join(out)


def _tool_call_turn(msg: Mapping[str, Any], builtin: Any, has_builtin: bool) -> str:
    calls = msg["tool_calls"]
    if not isinstance(calls, list) or len(calls) != 1:
        raise LayoutError("template error: This model only supports single tool-calls at once!")
    call = calls[0] if isinstance(calls[0], dict) else {}
    fn = call.get("function")
    if not isinstance(fn, dict) or "name" not in fn:
        raise LayoutError("template failed: UndefinedError: the tool call has no function name")
    name = fn["name"]
    head = HEADER.format(role="assistant")
    if has_builtin and isinstance(builtin, (list, tuple)) and name in builtin:
        args = fn.get("arguments")
        if not isinstance(args, dict):
            raise LayoutError("template failed: the builtin tool call's arguments are not a mapping")
        pairs = ", ".join(_concat(k, '="', v, '"') for k, v in args.items())
        body = _concat(head, PYTHON_TAG, name, ".call(") + pairs + ")"
    else:
        if "arguments" not in fn:
            raise LayoutError("template failed: TypeError: Object of type Undefined is not JSON serializable")
        body = _concat(head, '{"name": "', name, '", ') + '"parameters": ' + _tojson(fn["arguments"]) + "}"
    return body + (EOM if has_builtin else EOT)


_TOOL_TEXT: "OrderedDict[bytes, str]" = OrderedDict()


def _tool_block(tools: Sequence[Any]) -> str:
    """Each tool as 4-space indented JSON followed by a blank line. Memoized: agent
    traffic repeats the same tool list on every request, and indented json.dumps runs in
    pure Python."""
    key = _canonical(tools)
    text = _TOOL_TEXT.get(key)
    if text is None:
        text = "".join(_tojson(t, indent=4) + "\n\n" for t in tools)
        _TOOL_TEXT[key] = text
        if len(_TOOL_TEXT) > 256:
            _TOOL_TEXT.popitem(last=False)
    else:
        _TOOL_TEXT.move_to_end(key)
    return text


def _canonical(value: Any) -> bytes:
    # Key order matters to the rendered text, so it is part of the key (no sorting).
    try:
        import orjson

        return orjson.dumps(value)
    except (ImportError, TypeError):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def tag_final_message(messages: list[dict[str, Any]], source: str, reads_content: bool = True) -> str:
    """Mark the end of the final message (``continue_final_message``), as transformers
    does, so that the prompt can stop there and the model continues that message."""
    if not messages or messages[-1].get("content") is None:
        raise AdvisorError(f'{source}: continue_final_message is set but the final message has no "content" to continue!')
    if not reads_content:
        raise AdvisorError(f'{source}: continue_final_message is set to "content" but this is not an accepted field '
                           "in the chat_template")
    content = messages[-1]["content"]
    if isinstance(content, list):
        for block in reversed(content):
            if isinstance(block, dict) and "text" in block:
                final = block["text"]
                block["text"] = final + CONTINUE_TAG
                return str(final)
        raise AdvisorError(f"{source}: continue_final_message is set but we could not find any text to continue in "
                           "the final message!")
    messages[-1] = {**messages[-1], "content": _jinja_str(content) + CONTINUE_TAG}
    return _jinja_str(content)


def cut_at_tag(text: str, final: str, source: str) -> str:
    tag = CONTINUE_TAG.strip()
    if final.strip() not in text or tag not in text:
        raise AdvisorError(f"{source}: continue_final_message is set but the final message does not appear in the "
                           "chat after applying the chat template! This can happen if the chat template deletes "
                           "portions of the final message.")
    at = text.rindex(tag)
    if text[at:at + len(CONTINUE_TAG)] == CONTINUE_TAG:
        return text[:at]
    return text[:at].rstrip()


def _epoch_seconds(timestamp: float) -> float | None:
    """Epoch seconds of an epoch time in s, ms, us or ns (told apart by size, each from
    2001 to 2286 in its unit); None for an offset from the trace's start."""
    seconds = timestamp
    for scale in (1e9, 1e6, 1e3):
        if timestamp > 1e9 * scale:
            seconds = timestamp / scale
            break
    return seconds if 1e9 < seconds < 1e10 else None


def clock_for(timestamp: float | None, tz: dt.tzinfo = dt.timezone.utc) -> dt.datetime:
    """The wall clock a template sees: the request's own time when it is an epoch time,
    in the server's time zone (UTC unless told); else the one fixed ``FALLBACK_NOW``."""
    if timestamp is not None:
        seconds = _epoch_seconds(timestamp)
        if seconds is not None:
            return dt.datetime.fromtimestamp(seconds, tz=tz)
    return FALLBACK_NOW.astimezone(tz)


def parse_timezone(name: str) -> dt.tzinfo:
    """``--timezone``: the server's zone for ``strftime_now`` (an IANA name; UTC default)."""
    if name.upper() in ("UTC", "Z"):
        return dt.timezone.utc
    import zoneinfo

    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise AdvisorError(f"unknown --timezone '{name}': use an IANA zone name such as Europe/Paris, or UTC")


def has_clock(timestamp: float | None) -> bool:
    """Whether ``clock_for`` reads this timestamp (else it uses ``FALLBACK_NOW``)."""
    return timestamp is not None and _epoch_seconds(timestamp) is not None


def spelled_as_text(tokens: Iterable[str], tokenizer: "Tokenizer") -> list[str]:
    """The tokens of ``tokens`` that ``tokenizer`` does not read as one token: it splits
    each into pieces of text, as it would the same characters typed in a message."""
    out = []
    for token in dict.fromkeys(tokens):
        if token in tokenizer.special_tokens:
            continue
        try:
            # An added token that is not marked special is still one id: not spelled out.
            pieces = len(tokenizer.encode(token))
        except Exception:  # a tokenizer that refuses the text shows nothing either way
            continue
        if pieces != 1:
            out.append(token)
    return out


def plain_specials_warning(what: str, tokens: Iterable[str], tokenizer: "Tokenizer", shown: str,
                           fix: str) -> str | None:
    """One line when ``what`` (a chat layout, a template) writes special tokens that
    ``tokenizer`` (``shown``: as the user named it) spells as text: every chat request then
    counts more tokens than the model's own tokenizer gives it, silently. ``fix`` says how
    to match them."""
    spelled = spelled_as_text(tokens, tokenizer)
    if not spelled:
        return None
    more = f" and {len(spelled) - 1} more" if len(spelled) > 1 else ""
    return (f"{what} writes special tokens that tokenizer '{shown}' does not know ({spelled[0]}{more}): they are "
            f"tokenized as plain text, so token counts are inflated; {fix}")
