"""Prompt templates named by ``template`` records: found in a folder, rendered in the sandbox.

A plain Jinja file (``.j2``, ``.jinja``, ``.jinja2``, ``.txt``) renders to one prompt text;
a YAML prompt file (a ``messages`` list whose contents are Jinja) and a ``.prompty`` file
(front matter, then a Jinja body split by ``system:``/``user:``/``assistant:`` lines)
render to chat messages.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import BaseLoader, Environment, TemplateNotFound
from yaml.nodes import ScalarNode

from advisor.errors import AdvisorError
from advisor.ingest import prompt_files, safe_open
from advisor.ingest.prompt_files import TEXT_SUFFIXES
from advisor.ingest.safe_yaml import YAMLError, error_line, error_reason, safe_compose
from advisor.ingest.sandbox import LimitedSandbox, compile_untrusted, render_untrusted

# File kinds, front matter, role lines and messages are read by advisor.ingest.prompt_files,
# the reader the linter and the template diffs share: one file, one reading.
MESSAGE_SUFFIXES = prompt_files.DATA_SUFFIXES + prompt_files.PROMPTY_SUFFIXES
ROLE_LINE = prompt_files.ROLE_LINE


@dataclass(frozen=True)
class Rendered:
    """What a template gave: either a prompt text or chat messages."""

    prompt: str | None = None
    messages: tuple[dict[str, str], ...] | None = None


class PromptTemplate:
    def __init__(self, path: Path, env: LimitedSandbox, folder: Path | None = None) -> None:
        self.path = path
        self.name = path.stem
        text = _read(path, folder)
        if path.suffix in TEXT_SUFFIXES:
            self.kind = "text"
            self._text = compile_untrusted(env, text, str(path))
        elif path.suffix in prompt_files.PROMPTY_SUFFIXES:
            self.kind = "prompty"
            try:
                body, offset = prompt_files.prompty_body(text)
            except prompt_files.PromptFileError as exc:
                raise AdvisorError(f"{path}:{exc.line}: {exc.message}")
            # Line numbers of the body count from the top of the file.
            self._text = compile_untrusted(env, "\n" * offset + body, str(path))
        else:
            self.kind = "messages"
            self._messages = [
                (role, [compile_untrusted(env, content, str(path), line_offset=offset) for content, offset in parts])
                for role, parts in _messages(text, path)
            ]

    def render(self, variables: dict[str, Any]) -> Rendered:
        try:
            if self.kind == "text":
                return Rendered(prompt=render_untrusted(self._text, variables))
            if self.kind == "prompty":
                return Rendered(messages=split_roles(render_untrusted(self._text, variables)))
            # OpenAI text parts of one message reach the model joined by newlines, as vLLM joins them.
            return Rendered(messages=tuple(
                {"role": role, "content": "\n".join(render_untrusted(t, variables) for t in parts)} for role, parts in self._messages
            ))
        except AdvisorError as exc:
            raise AdvisorError(f"{self.path}: {exc}")


def _read(path: Path, folder: Path | None = None) -> str:
    try:
        return safe_open.read_text(path, max_bytes=safe_open.MAX_TEMPLATE_BYTES, what="template", within=folder)
    except AdvisorError as exc:
        # safe_open's reasons name the path already; other reasons get it.
        raise AdvisorError(str(exc) if str(exc).startswith(f"{path}: ") else f"{path}: cannot read template ({exc})")


class FolderLoader(BaseLoader):
    """``{% include %}`` and ``{% extends %}`` inside the template folders only: each part of
    the name a plain component, the file regular, capped, and inside its folder once its
    symlinks are resolved (Jinja's FileSystemLoader follows links anywhere, and reads FIFOs)."""

    def __init__(self, folders: list[Path]) -> None:
        self.folders = folders

    def get_source(self, environment: Environment, template: str) -> tuple[str, str, Any]:
        parts = [p for p in template.replace("\\", "/").split("/") if p and p != "."]
        try:
            for part in parts:
                safe_open.check_name(part, "included template name")
        except AdvisorError:
            raise TemplateNotFound(template) from None
        if not parts:
            raise TemplateNotFound(template)
        for folder in self.folders:
            path = folder.joinpath(*parts)
            try:
                os.lstat(path)
            except (FileNotFoundError, NotADirectoryError):
                continue
            except OSError as exc:  # there, but not readable (a folder without permission): say so
                raise AdvisorError(f"{path}: cannot read included template ({exc.strerror or exc})") from None
            text = safe_open.read_text(path, max_bytes=safe_open.MAX_TEMPLATE_BYTES, what="included template",
                                       within=folder)
            return text, str(path), lambda: True  # compiled once per run: never stale
        raise TemplateNotFound(template)


def _messages(text: str, path: Path) -> list[tuple[str, list[tuple[str, int]]]]:
    """Per message: its role and, per content part, the Jinja text and the file lines above it
    (so that a template error inside a message names the file's line)."""
    try:
        root = safe_compose(text)
    except YAMLError as exc:
        raise AdvisorError(f"{path}:{error_line(exc)}: invalid YAML ({error_reason(exc)})")
    found = prompt_files.messages(root)
    if not found:
        raise AdvisorError(f"{path}: a YAML prompt file needs a 'messages' list")
    out = []
    for i, m in enumerate(found):
        content = prompt_files.get(m.item, "content")
        not_text = isinstance(content, ScalarNode) and content.tag != "tag:yaml.org,2002:str"
        if m.role is None or not m.parts or not_text:
            raise AdvisorError(f"{path}: messages[{i}] needs string 'role' and 'content'")
        # A block scalar (| or >) starts on the line after its indicator.
        parts = [(node.value, node.start_mark.line + (1 if node.style in ("|", ">") else 0)) for node in m.parts]
        out.append((m.role, parts))
    return out


def split_roles(rendered: str) -> tuple[dict[str, str], ...]:
    """Split a rendered Prompty body at its role lines into chat messages."""
    return prompt_files.split_rendered(rendered)


class TemplateSet:
    """Templates found by name (file stem) in one or more folders, compiled on first use."""

    def __init__(self, folders: list[Path]) -> None:
        self.folders = [f for f in folders if f.is_dir()]
        # `{% include %}` and `{% extends %}` resolve inside the template folders only.
        self._env = LimitedSandbox(loader=FolderLoader(self.folders))
        self._cache: dict[str, PromptTemplate] = {}

    def get(self, name: str) -> PromptTemplate:
        if name in self._cache:
            return self._cache[name]
        found = safe_open.find_in(self.folders, name, TEXT_SUFFIXES + MESSAGE_SUFFIXES)
        if found is not None:
            self._cache[name] = PromptTemplate(found[0], self._env, found[1])
            return self._cache[name]
        where = ", ".join(str(f) for f in self.folders) or "no template folder"
        raise AdvisorError(f"template '{name}' not found in {where} (use --templates DIR)")
