"""Prompt templates named by ``template`` records: found in a folder, rendered in the sandbox.

A plain Jinja file (``.j2``, ``.jinja``, ``.jinja2``, ``.txt``) renders to one prompt text;
a YAML prompt file (a ``messages`` list whose contents are Jinja) and a ``.prompty`` file
(front matter, then a Jinja body split by ``system:``/``user:``/``assistant:`` lines)
render to chat messages.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import BaseLoader, Environment, TemplateNotFound
from yaml.nodes import MappingNode, ScalarNode, SequenceNode

from advisor.errors import AdvisorError
from advisor.ingest import safe_open
from advisor.ingest.safe_yaml import YAMLError, error_line, error_reason, safe_compose, safe_load
from advisor.ingest.sandbox import LimitedSandbox, compile_untrusted, render_untrusted

TEXT_SUFFIXES = (".j2", ".jinja", ".jinja2", ".txt")
MESSAGE_SUFFIXES = (".yaml", ".yml", ".prompty")
ROLE_LINE = re.compile(r"^[ \t]*(system|user|assistant|developer)[ \t]*:[ \t]*$", re.IGNORECASE | re.MULTILINE)


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
        elif path.suffix == ".prompty":
            self.kind = "prompty"
            body = _prompty_body(text, path)
            # Line numbers of the body count from the top of the file.
            offset = text[: len(text) - len(body)].count("\n")
            self._text = compile_untrusted(env, "\n" * offset + body, str(path))
        else:
            self.kind = "messages"
            self._messages = [(role, compile_untrusted(env, content, str(path), line_offset=offset))
                              for role, content, offset in _yaml_messages(text, path)]

    def render(self, variables: dict[str, Any]) -> Rendered:
        try:
            if self.kind == "text":
                return Rendered(prompt=render_untrusted(self._text, variables))
            if self.kind == "prompty":
                return Rendered(messages=split_roles(render_untrusted(self._text, variables)))
            return Rendered(messages=tuple(
                {"role": role, "content": render_untrusted(t, variables)} for role, t in self._messages
            ))
        except AdvisorError as exc:
            raise AdvisorError(f"{self.path}: {exc}")


def _read(path: Path, folder: Path | None = None) -> str:
    try:
        return safe_open.read_text(path, max_bytes=safe_open.MAX_TEMPLATE_BYTES, what="template", within=folder)
    except AdvisorError as exc:
        raise AdvisorError(f"{path}: cannot read template ({exc})")


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
            if not os.path.lexists(path):
                continue
            text = safe_open.read_text(path, max_bytes=safe_open.MAX_TEMPLATE_BYTES, what="included template",
                                       within=folder)
            return text, str(path), lambda: False  # compiled once per run: never stale
        raise TemplateNotFound(template)


def _prompty_body(text: str, path: Path) -> str:
    lines = text.split("\n")
    if lines and lines[0].strip() == "---":
        for i in range(1, len(lines)):
            if lines[i].strip() == "---":
                return "\n".join(lines[i + 1:])
        raise AdvisorError(f"{path}:1: front matter is not closed by '---'")
    return text


def _yaml_messages(text: str, path: Path) -> list[tuple[str, str, int]]:
    """(role, content, lines above the content in the file) per message."""
    try:
        data = safe_load(text)
    except YAMLError as exc:
        raise AdvisorError(f"{path}:{error_line(exc)}: invalid YAML ({error_reason(exc)})")
    messages = data.get("messages") if isinstance(data, dict) else None
    if not isinstance(messages, list) or not messages:
        raise AdvisorError(f"{path}: a YAML prompt file needs a 'messages' list")
    offsets = _content_offsets(text)
    out = []
    for i, m in enumerate(messages):
        if not (isinstance(m, dict) and isinstance(m.get("role"), str) and isinstance(m.get("content"), str)):
            raise AdvisorError(f"{path}: messages[{i}] needs string 'role' and 'content'")
        out.append((m["role"], m["content"], offsets[i] if i < len(offsets) else 0))
    return out


def _content_offsets(text: str) -> list[int]:
    """Per message, the file lines above its content's first line (so a template error
    inside a message names the file's line)."""
    root = safe_compose(text)
    messages = _node_get(root, "messages")
    out = []
    for item in getattr(messages, "value", []) if isinstance(messages, SequenceNode) else []:
        node = _node_get(item, "content")
        if isinstance(node, ScalarNode):
            # A block scalar (| or >) starts on the line after its indicator.
            out.append(node.start_mark.line + (1 if node.style in ("|", ">") else 0))
        else:
            out.append(0)
    return out


def _node_get(node: Any, key: str) -> Any:
    if isinstance(node, MappingNode):
        for k, v in node.value:
            if isinstance(k, ScalarNode) and k.value == key:
                return v
    return None


def split_roles(rendered: str) -> tuple[dict[str, str], ...]:
    """Split a rendered Prompty body at its role lines into chat messages."""
    marks = list(ROLE_LINE.finditer(rendered))
    if not marks:
        return ({"role": "system", "content": rendered.strip()},)
    out = []
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(rendered)
        out.append({"role": m.group(1).lower(), "content": rendered[m.end():end].strip()})
    return tuple(out)


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
