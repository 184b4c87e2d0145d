"""HuggingFace chat templates (``.jinja``, ``chat_template.json`` or a
``tokenizer_config.json``), rendered in the sandbox as ``apply_chat_template`` renders them.

What the template sees is what the engine hands ``apply_chat_template`` after its own
request preprocessing (``advisor.ingest.preprocess``), then what transformers itself does
to it: keys whose value is ``None`` dropped from each message, the reasoning text copied
under ``thinking`` and ``reasoning_content``, the tokenizer's special tokens as variables,
and its Jinja environment (``tojson`` that keeps key order and non-ASCII text,
``raise_exception``, ``strftime_now``, a ``{% generation %}`` block, ``dict`` and
``namespace`` without underscore attributes).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from jinja2 import DictLoader

from advisor.errors import AdvisorError
from advisor.ingest import safe_open
from advisor.ingest.chat import BOS, clock_for, cut_at_tag, tag_final_message
from advisor.ingest.hf_jinja import GenerationBlock, TemplateDict, TemplateNamespace, raise_exception, tojson
from advisor.ingest.preprocess import DEFAULT_ENGINE, Prepared, prepare
from advisor.ingest.sandbox import LimitedSandbox, compile_untrusted, render_untrusted

SPECIAL_TOKEN_NAMES = ("bos_token", "eos_token", "unk_token", "pad_token")
# The names a message's reasoning text comes under; templates read the first.
REASONING_FIELDS = ("reasoning_content", "thinking", "reasoning")


def template_messages(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The messages as transformers passes them to the template: ``None`` values dropped,
    reasoning text aliased."""
    out = []
    for message in messages:
        msg = {k: v for k, v in message.items() if v is not None}
        reasoning = next((msg[k] for k in REASONING_FIELDS if msg.get(k) is not None), None)
        if reasoning is not None:
            msg = {"thinking": reasoning, **msg, "reasoning_content": reasoning}
        out.append(msg)
    return out


@dataclass
class HFChatTemplate:
    """A HuggingFace Jinja chat template, fed the way ``engine`` feeds it."""

    source: str
    text: str
    bos_token: str = BOS
    eos_token: str = "<|end_of_text|>"
    name: str = "hf"
    engine: str = DEFAULT_ENGINE
    unk_token: str | None = None
    pad_token: str | None = None
    timezone: dt.tzinfo = dt.timezone.utc
    content_format: str = field(default="", init=True)

    def __post_init__(self) -> None:
        # A chat template is one self-contained text: `{% include %}` finds nothing.
        env = LimitedSandbox(trim_blocks=True, lstrip_blocks=True,
                             extensions=["jinja2.ext.loopcontrols", GenerationBlock], loader=DictLoader({}))
        env.filters["tojson"] = tojson
        env.globals["raise_exception"] = raise_exception
        env.globals["dict"] = TemplateDict()
        env.globals["namespace"] = TemplateNamespace
        self._template = compile_untrusted(env, self.text, self.source, "chat template")
        if not self.content_format:
            from advisor.ingest.content_format import detect

            self.content_format = detect(self.text, self.engine)

    def special_tokens(self) -> dict[str, str]:
        values = {"bos_token": self.bos_token, "eos_token": self.eos_token, "unk_token": self.unk_token,
                  "pad_token": self.pad_token}
        # A token the tokenizer does not define is not a variable at all (undefined).
        return {k: v for k, v in values.items() if v}

    @property
    def reads_clock(self) -> bool:
        return "strftime_now" in self.text

    def render(self, messages: Sequence[dict[str, Any]], tools: Sequence[Any] | None,
               timestamp: float | None = None, options: Mapping[str, Any] | None = None) -> str:
        prepared = prepare(self.engine, messages, tools, options, self.content_format)
        return self.render_prepared(prepared, clock_for(timestamp, self.timezone))

    def render_prepared(self, prepared: Prepared, now: dt.datetime) -> str:
        try:
            text = self._render(prepared, prepared.tools, now)
        except AdvisorError:
            if prepared.fallback_tools is None:
                raise
            # SGLang retries once with the bare function objects (templates that expect
            # tools without the OpenAI wrapper).
            text = self._render(prepared, prepared.fallback_tools, now)
        return text + prepared.suffix

    def _render(self, prepared: Prepared, tools: list[dict[str, Any]] | None, now: dt.datetime) -> str:
        messages = template_messages(prepared.messages)
        final = None
        if prepared.continue_final_message:
            final = tag_final_message(messages, self.source, "content" in self.text)
        variables: dict[str, Any] = dict(self.special_tokens())
        variables.update(prepared.kwargs)
        variables.update(messages=messages, tools=tools, documents=None,
                         add_generation_prompt=prepared.add_generation_prompt,
                         strftime_now=lambda fmt: now.strftime(fmt))
        try:
            text = render_untrusted(self._template, variables)
        except AdvisorError as exc:
            raise AdvisorError(f"{self.source}: {exc}")
        if final is not None:
            text = cut_at_tag(text, final, self.source)
        return text


def _kind(value: Any) -> str:
    """A JSON value's type as the file's author would name it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "a list" if isinstance(value, list) else "an object" if isinstance(value, dict) else type(value).__name__


def _special_text(value: Any, name: str, where: Path | str) -> str | None:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, dict) and isinstance(value.get("content"), str):
        return value["content"]  # an AddedToken: {"__type": "AddedToken", "content": ...}
    raise AdvisorError(f"{where}: field {name} must be a string or an object with a string 'content', "
                       f"not {_kind(value)}")


def special_tokens_of(config: Mapping[str, Any], where: Path | str) -> dict[str, str]:
    """bos/eos/unk/pad token text from a ``tokenizer_config.json`` (``where``); a token of
    another type is an error naming the file and the field, not a token left out."""
    out = {}
    for name in SPECIAL_TOKEN_NAMES:
        text = _special_text(config.get(name), name, where)
        if text:
            out[name] = text
    return out


def chat_template_text(template: Any, where: Path | str) -> str | None:
    """The template text transformers uses from a ``chat_template`` field: a string, or of a
    list of ``{name, template}`` objects the one named ``default`` (else the first); None if
    there is none. Any other shape is an error naming ``where`` and the field."""
    if template is None or isinstance(template, str):
        return template
    if not isinstance(template, list):
        raise AdvisorError(f"{where}: field chat_template must be a string or a list of {{name, template}} "
                           f"objects, not {_kind(template)}")
    named: dict[str, str] = {}
    for i, entry in enumerate(template):
        if not isinstance(entry, dict):
            raise AdvisorError(f"{where}: field chat_template[{i}] must be an object with a name and a template, "
                               f"not {_kind(entry)}")
        for key in ("name", "template"):
            if not isinstance(entry.get(key), str):
                raise AdvisorError(f"{where}: field chat_template[{i}].{key} must be a string, "
                                   f"not {_kind(entry.get(key))}")
        # transformers turns the list into a dict by name: a later entry of a name wins.
        named[entry["name"]] = entry["template"]
    return named.get("default") or next(iter(named.values()), None)


def load_chat_template(path: Path | str, bos_token: str | None = None, eos_token: str | None = None,
                       engine: str = DEFAULT_ENGINE, specials: Mapping[str, str] | None = None,
                       timezone: dt.tzinfo = dt.timezone.utc) -> HFChatTemplate:
    """A ``.jinja`` chat template file, a ``chat_template.json`` or a
    ``tokenizer_config.json`` carrying one.

    A bare ``.jinja`` file does not say its special tokens: they come from ``specials``
    (the model's tokenizer files) or the tokenizer's ``bos_token``.
    """
    path = Path(path)
    text, tokens = read_chat_template(path, bos_token, eos_token, specials)
    return HFChatTemplate(
        source=str(path), text=text,
        bos_token=tokens.get("bos_token", ""), eos_token=tokens.get("eos_token", ""),
        unk_token=tokens.get("unk_token"), pad_token=tokens.get("pad_token"),
        engine=engine, timezone=timezone,
    )


def read_chat_template(path: Path, bos_token: str | None = None, eos_token: str | None = None,
                       specials: Mapping[str, str] | None = None) -> tuple[str, dict[str, str]]:
    """The template text of a chat-template file and the special tokens it renders with."""
    # Regular files only, capped: `--chat-template /dev/zero` is refused, not read for ever.
    raw = safe_open.read_text(path, max_bytes=safe_open.MAX_TEMPLATE_BYTES, what="chat template")
    tokens: dict[str, str] = {}
    if bos_token:
        tokens["bos_token"] = bos_token
    if eos_token:
        tokens["eos_token"] = eos_token
    tokens.update(specials or {})
    if path.suffix != ".json":
        text = raw
    else:
        config = safe_open.parse_json(raw, path)
        found = chat_template_text(config.get("chat_template"), path) if isinstance(config, dict) else None
        if found is None:
            raise AdvisorError(f"{path}: has no 'chat_template' string")
        text = found
        if specials is None:
            # The config's own tokens are the model's; the tokenizer's defaults are not.
            tokens = special_tokens_of(config, path)
    return text, tokens


_SPECIAL_LOOKING = re.compile(r"<\|[A-Za-z0-9_]+\|>|<[a-z_]+_of_[a-z_]+>|\[/?INST\]|<｜[^｜]+｜>")


def mismatch_warning(source: str, text: str, tokenizer: Any, from_model_dir: bool) -> str | None:
    """A warning when the template writes special tokens the tokenizer does not have: the
    prompt would be tokenized as plain text (and a bare .jinja takes BOS from it too)."""
    specials = set(getattr(tokenizer, "special_tokens", {}) or {})
    written = sorted({m for m in _SPECIAL_LOOKING.findall(text) if m not in specials})
    if not written:
        return None
    where = "the model folder's tokenizer" if from_model_dir else f"tokenizer '{tokenizer.name}'"
    shown = ", ".join(written[:4]) + (" ..." if len(written) > 4 else "")
    return (f"{source}: writes {shown}, which {where} does not know as special tokens; pass the "
            "model's tokenizer.json with --tokenizer, or its folder with --model-dir")
