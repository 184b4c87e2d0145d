"""Read the files teams keep prompts in and cut them into Jinja pieces with file coordinates.

Plain Jinja files are one piece. A HuggingFace ``tokenizer_config.json`` holds its chat
template as an escaped string on one line. YAML/JSON prompt files hold a ``messages`` list
whose contents are Jinja; ``.prompty`` files are YAML front matter and a Jinja body cut by
``system:``/``user:`` lines. Every piece remembers where it sits so that findings point at
lines of the original file.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from advisor.errors import AdvisorError
from advisor.lint.model import Piece
from advisor.ingest.safe_yaml import safe_compose, safe_load

JINJA_SUFFIXES = (".j2", ".jinja", ".jinja2", ".txt")
DATA_SUFFIXES = (".yaml", ".yml", ".json")
PROMPTY_SUFFIXES = (".prompty",)
ALL_SUFFIXES = JINJA_SUFFIXES + DATA_SUFFIXES + PROMPTY_SUFFIXES

_ROLE_LINE = re.compile(r"^[ \t]*(system|user|assistant|developer|tool)[ \t]*:[ \t]*$", re.IGNORECASE)


@dataclass(frozen=True)
class Loaded:
    kind: str  # jinja | chat_template | messages | prompty
    pieces: list[Piece]
    error: tuple[str, int] | None = None  # a file that is not valid YAML/JSON: (message, line)


def read_text(path: Path, shown: str) -> str:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise AdvisorError(f"{shown}: no such file or directory") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise AdvisorError(f"{shown}:{line}: not UTF-8 text (bad byte at column {col})") from None
    except OSError as exc:
        raise AdvisorError(f"{shown}: cannot read ({exc.strerror or exc})") from None


def load(path: Path, text: str) -> Loaded | None:
    """Pieces of one file, or None when the file is not a prompt template (e.g. plain YAML)."""
    name = path.name.lower()
    suffix = path.suffix.lower()
    if suffix in PROMPTY_SUFFIXES:
        return _prompty(text)
    if suffix in DATA_SUFFIXES:
        return _data_file(text, suffix)
    kind = "chat_template" if "chat_template" in name else "jinja"
    return Loaded(kind, [Piece(text)])


# --- YAML and JSON ------------------------------------------------------------------------------

def _data_file(text: str, suffix: str) -> Loaded | None:
    if "messages" not in text and "chat_template" not in text:
        return None  # plain data (package.json, CI config): not worth a YAML parse
    try:
        root = safe_compose(text)
    except yaml.YAMLError as exc:
        if suffix == ".json":
            try:
                json.loads(text)
            except json.JSONDecodeError as jexc:
                return Loaded("messages", [], (f"invalid JSON: {jexc.msg}", jexc.lineno))
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 1
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        return Loaded("messages", [], (f"invalid YAML: {problem}", line))
    if not isinstance(root, yaml.MappingNode):
        return None
    chat = _get(root, "chat_template")
    if chat is not None:
        return Loaded("chat_template", _chat_template_pieces(chat, text))
    messages = _get(root, "messages")
    if isinstance(messages, yaml.SequenceNode):
        pieces = _message_pieces(messages, text)
        # A list of plain strings is some other kind of file, not chat messages.
        return Loaded("messages", pieces) if pieces else None
    return None


def _get(node: yaml.MappingNode, key: str) -> yaml.Node | None:
    for k, v in node.value:
        if isinstance(k, yaml.ScalarNode) and k.value == key:
            return v
    return None


def _chat_template_pieces(node: yaml.Node, text: str) -> list[Piece]:
    if isinstance(node, yaml.ScalarNode):
        return [_scalar_piece(node, text, None)]
    pieces = []
    # Several named templates: [{"name": "default", "template": "..."}, ...]
    if isinstance(node, yaml.SequenceNode):
        for item in node.value:
            if isinstance(item, yaml.MappingNode):
                tpl = _get(item, "template")
                if isinstance(tpl, yaml.ScalarNode):
                    pieces.append(_scalar_piece(tpl, text, None))
    return pieces


def _message_pieces(messages: yaml.SequenceNode, text: str) -> list[Piece]:
    pieces = []
    for item in messages.value:
        if not isinstance(item, yaml.MappingNode):
            continue
        role = _get(item, "role")
        role_name = role.value if isinstance(role, yaml.ScalarNode) else "message"
        role_line = (role or item).start_mark.line + 1
        role_col = (role or item).start_mark.column + 1
        content = _get(item, "content")
        scalars: list[yaml.ScalarNode] = []
        if isinstance(content, yaml.ScalarNode):
            scalars.append(content)
        elif isinstance(content, yaml.SequenceNode):
            # OpenAI content parts: [{"type": "text", "text": "..."}]
            for part in content.value:
                if isinstance(part, yaml.MappingNode):
                    t = _get(part, "text")
                    if isinstance(t, yaml.ScalarNode):
                        scalars.append(t)
        first = True
        for scalar in scalars:
            pieces.append(_scalar_piece(scalar, text, role_name if first else None, role_line, role_col))
            first = False
        if first:
            pieces.append(Piece("", role=role_name, role_line=role_line, role_column=role_col))
    return pieces


def _scalar_piece(node: yaml.ScalarNode, text: str, role: str | None, role_line: int = 0, role_col: int = 1) -> Piece:
    value = node.value
    start = node.start_mark
    if node.style == "|":
        # Literal block: content starts on the next line, indented by a fixed amount.
        lines = text.splitlines()
        indent = 0
        for ln in lines[start.line + 1: node.end_mark.line + 1]:
            if ln.strip():
                indent = len(ln) - len(ln.lstrip(" "))
                break
        return Piece(value, line_offset=start.line + 1, first_col=indent, col=indent, role=role, role_line=role_line, role_column=role_col)
    if node.style in (None, "") and "\n" not in value:
        return Piece(
            value, line_offset=start.line, first_col=start.column, col=start.column, role=role, role_line=role_line, role_column=role_col
        )
    if node.style in ("'", '"') and start.line == node.end_mark.line:
        if "\\" not in text[start.index: node.end_mark.index]:
            return Piece(
                value,
                line_offset=start.line,
                first_col=start.column + 1,
                col=start.column + 1,
                role=role,
                role_line=role_line,
                role_column=role_col,
            )
    # Escaped or folded text cannot be mapped line by line: pin it to where it starts.
    return Piece(value, first_col=start.column, role=role, role_line=role_line, role_column=role_col, flat_line=start.line + 1)


# --- .prompty -------------------------------------------------------------------------------------

def _prompty(text: str) -> Loaded:
    lines = text.split("\n")
    body_start = 0
    if lines and lines[0].strip() == "---":
        for i in range(1, len(lines)):
            if lines[i].strip() == "---":
                front = "\n".join(lines[1:i])
                try:
                    safe_load(front)
                except yaml.YAMLError as exc:
                    mark = getattr(exc, "problem_mark", None)
                    return Loaded(
                        "prompty", [], (f"invalid front matter: {getattr(exc, 'problem', None) or exc}", (mark.line + 2) if mark else 1)
                    )
                body_start = i + 1
                break
    pieces: list[Piece] = []
    role: str | None = None
    role_line = 0
    chunk_start = body_start
    for i in range(body_start, len(lines) + 1):
        m = _ROLE_LINE.match(lines[i]) if i < len(lines) else None
        if m or i == len(lines):
            chunk = "\n".join(lines[chunk_start:i])
            if role is not None or chunk.strip():
                pieces.append(Piece(chunk, line_offset=chunk_start, role=role, role_line=role_line, role_column=1))
            if m:
                role = m.group(1).lower()
                role_line = i + 1
                chunk_start = i + 1
    return Loaded("prompty", pieces)
