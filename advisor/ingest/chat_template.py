"""HuggingFace chat templates (``.jinja`` or ``tokenizer_config.json``) in place of the
built-in Llama 3 layout, rendered in the sandbox with the environment HF
``apply_chat_template`` uses.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from jinja2 import DictLoader
from jinja2.exceptions import TemplateError

from advisor.ingest.chat import BOS, _clock
from advisor.errors import AdvisorError
from advisor.ingest.sandbox import LimitedSandbox, compile_untrusted, render_untrusted


def _raise_exception(message: str) -> None:
    raise TemplateError(message)


@dataclass
class HFChatTemplate:
    """A HuggingFace Jinja chat template, rendered the way ``apply_chat_template`` does."""

    source: str
    text: str
    bos_token: str = BOS
    eos_token: str = "<|end_of_text|>"
    name: str = "hf"

    def __post_init__(self) -> None:
        # A chat template is one self-contained text: `{% include %}` finds nothing.
        env = LimitedSandbox(trim_blocks=True, lstrip_blocks=True, extensions=["jinja2.ext.loopcontrols"],
                             loader=DictLoader({}))
        env.filters["tojson"] = _tojson
        env.globals["raise_exception"] = _raise_exception
        self._template = compile_untrusted(env, self.text, self.source, "chat template")

    def render(self, messages: Sequence[dict[str, Any]], tools: Sequence[Any] | None,
               timestamp: float | None = None) -> str:
        now = _clock(timestamp)
        variables = {
            "messages": [dict(m) for m in messages],
            "tools": list(tools) if tools else None,
            "bos_token": self.bos_token,
            "eos_token": self.eos_token,
            "add_generation_prompt": True,
            "strftime_now": lambda fmt: now.strftime(fmt),
        }
        try:
            return render_untrusted(self._template, variables)
        except AdvisorError as exc:
            raise AdvisorError(f"{self.source}: {exc}")


def _tojson(value: Any, indent: int | None = None, ensure_ascii: bool = False, sort_keys: bool = False) -> str:
    # HF's own tojson keeps key order and non-ASCII text (Jinja's default sorts and escapes).
    return json.dumps(value, indent=indent, ensure_ascii=ensure_ascii, sort_keys=sort_keys)


def _special_text(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and isinstance(value.get("content"), str):
        return value["content"]
    return None


def load_chat_template(path: Path | str, bos_token: str | None = None,
                       eos_token: str | None = None) -> HFChatTemplate:
    """A ``.jinja`` chat template file or a ``tokenizer_config.json`` carrying one.

    A bare ``.jinja`` file does not say its special tokens: they come from the tokenizer.
    """
    path = Path(path)
    try:
        raw = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise AdvisorError(f"{path}: cannot read chat template ({exc})")
    if path.suffix != ".json":
        return HFChatTemplate(source=str(path), text=raw, bos_token=bos_token or "", eos_token=eos_token or "")
    try:
        config = json.loads(raw)
    except ValueError as exc:
        raise AdvisorError(f"{path}: not valid JSON ({exc})")
    template = config.get("chat_template") if isinstance(config, dict) else None
    if isinstance(template, list):
        named = {t.get("name"): t.get("template") for t in template if isinstance(t, dict)}
        template = named.get("default") or next(iter(named.values()), None)
    if not isinstance(template, str):
        raise AdvisorError(f"{path}: has no 'chat_template' string")
    return HFChatTemplate(
        source=str(path),
        text=template,
        bos_token=_special_text(config.get("bos_token")) or "",
        eos_token=_special_text(config.get("eos_token")) or "",
    )
