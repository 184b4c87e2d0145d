"""A HuggingFace model folder (a snapshot) as one option: tokenizer, chat template,
special tokens and architecture from the files the engine itself reads.

``tokenizer.json`` is the tokenizer; the chat template is ``chat_template.jinja``, else
``chat_template.json``, else the ``chat_template`` of ``tokenizer_config.json`` (the order
transformers loads them in); ``bos_token`` / ``eos_token`` / ``unk_token`` / ``pad_token``
come from ``tokenizer_config.json``; ``config.json`` is the architecture for ``cost``,
``report`` and ``simulate``. Weights are never read.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from advisor.errors import AdvisorError


@dataclass(frozen=True)
class ModelDir:
    path: Path
    tokenizer: Path | None
    chat_template: Path | None
    config: Path | None
    specials: dict[str, str] = field(default_factory=dict)

    @property
    def tokenizer_spec(self) -> str | None:
        return str(self.tokenizer) if self.tokenizer else None


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise AdvisorError(f"{path}: cannot read ({exc})")
    except ValueError as exc:
        raise AdvisorError(f"{path}: not valid JSON ({exc})")


def load_model_dir(path: Path | str) -> ModelDir:
    """The rendering inputs of a model folder; a folder with none of them is an error."""
    folder = Path(path)
    if not folder.is_dir():
        raise AdvisorError(f"{folder}: --model-dir must be a folder (a HuggingFace model snapshot)")
    tokenizer = folder / "tokenizer.json"
    config_file = folder / "tokenizer_config.json"
    tok_config = _read_json(config_file) if config_file.is_file() else {}
    if not isinstance(tok_config, dict):
        raise AdvisorError(f"{config_file}: expected a JSON object")
    template: Path | None = None
    for name in ("chat_template.jinja", "chat_template.json"):
        if (folder / name).is_file():
            template = folder / name
            break
    if template is None and isinstance(tok_config.get("chat_template"), (str, list)):
        template = config_file
    from advisor.ingest.chat_template import special_tokens_of

    found = ModelDir(
        path=folder,
        tokenizer=tokenizer if tokenizer.is_file() else None,
        chat_template=template,
        config=folder / "config.json" if (folder / "config.json").is_file() else None,
        specials=special_tokens_of(tok_config),
    )
    if found.tokenizer is None and found.chat_template is None and found.config is None:
        raise AdvisorError(f"{folder}: no tokenizer.json, chat template or config.json in this folder")
    return found
