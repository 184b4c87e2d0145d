"""A HuggingFace model folder (a snapshot) as one option: tokenizer, chat template,
special tokens and architecture from the files the engine itself reads.

``tokenizer.json`` is the tokenizer; the chat template is ``chat_template.jinja``, else
``chat_template.json``, else the ``chat_template`` of ``tokenizer_config.json`` (the order
transformers loads them in); ``bos_token`` / ``eos_token`` / ``unk_token`` / ``pad_token``
come from ``tokenizer_config.json``; ``config.json`` is the architecture for ``cost``,
``report`` and ``simulate``. Weights are never read.

The folder is someone else's (a download, a pull request): each of these files is opened
through ``safe_open`` with the cap that fits it, a regular file resolving inside the
folder's ``safe_open.model_root`` (a HuggingFace cache snapshot's links into its
``../../blobs`` are admitted, nothing else), and stays confined there wherever advisor
opens it later (``safe_open.model_file``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from advisor.errors import AdvisorError
from advisor.ingest import safe_open

# Each file advisor reads from a model folder, with the cap and the name its errors give it.
# tokenizer_config.json has the chat-template cap: it is read as one (read_chat_template).
MODEL_FILES: dict[str, tuple[int, str]] = {
    "tokenizer.json": (safe_open.MAX_TOKENIZER_BYTES, "tokenizer file"),
    "tokenizer_config.json": (safe_open.MAX_TEMPLATE_BYTES, "tokenizer config"),
    "chat_template.jinja": (safe_open.MAX_TEMPLATE_BYTES, "chat template"),
    "chat_template.json": (safe_open.MAX_TEMPLATE_BYTES, "chat template"),
    "config.json": (safe_open.MAX_CONFIG_BYTES, "config.json"),
}


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


def find_file(folder: Path, name: str) -> Path | None:
    """``folder/name`` if the folder holds it (a link counts, wherever it points), checked
    now as it will be read: a regular file under its cap, inside the folder's model root.
    From here on every open of the path is confined there."""
    path = folder / name
    try:
        present = os.path.lexists(path)
    except (OSError, ValueError):
        present = False
    if not present:
        return None
    path = safe_open.model_file(folder, name)
    max_bytes, what = MODEL_FILES[name]
    safe_open.check_file(path, max_bytes=max_bytes, what=what)
    return path


def config_of(folder: Path | str) -> Path | None:
    """The model folder's ``config.json`` (as ``find_file`` checks it), or None."""
    folder = Path(folder)
    return find_file(folder, "config.json") if folder.is_dir() else None


def read_tokenizer_config(path: Path) -> dict[str, Any]:
    """A ``tokenizer_config.json``: a JSON object whose chat template and special tokens
    have the types transformers reads them as (one-line errors naming the field)."""
    from advisor.ingest.chat_template import chat_template_text, special_tokens_of

    max_bytes, what = MODEL_FILES["tokenizer_config.json"]
    config = safe_open.read_json(path, max_bytes=max_bytes, what=what)
    if not isinstance(config, dict):
        raise AdvisorError(f"{path}: expected a JSON object")
    chat_template_text(config.get("chat_template"), path)
    special_tokens_of(config, path)
    return config


def load_model_dir(path: Path | str) -> ModelDir:
    """The rendering inputs of a model folder; a folder with none of them is an error."""
    folder = Path(path)
    try:
        is_folder = folder.is_dir()
    except OSError as exc:  # a name the file system refuses (too long, ...)
        raise AdvisorError(f"{str(folder)[:80]}: --model-dir cannot be read ({exc.strerror})") from None
    if not is_folder:
        raise AdvisorError(f"{folder}: --model-dir must be a folder (a HuggingFace model snapshot)")
    found = {name: find_file(folder, name) for name in MODEL_FILES}
    config_file = found["tokenizer_config.json"]
    tok_config = read_tokenizer_config(config_file) if config_file is not None else {}
    from advisor.ingest.chat_template import special_tokens_of

    template = found["chat_template.jinja"] or found["chat_template.json"]
    if template is None and tok_config.get("chat_template") is not None:
        template = config_file
    model = ModelDir(
        path=folder,
        tokenizer=found["tokenizer.json"],
        chat_template=template,
        config=found["config.json"],
        specials=special_tokens_of(tok_config, config_file or folder),
    )
    if model.tokenizer is None and model.chat_template is None and model.config is None:
        raise AdvisorError(f"{folder}: no tokenizer.json, chat template or config.json in this folder")
    return model
