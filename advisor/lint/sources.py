"""Read the files teams keep prompts in and cut them into Jinja pieces with file coordinates.

Plain Jinja files are one piece. A HuggingFace ``tokenizer_config.json`` holds its chat
template as an escaped string on one line. YAML/JSON prompt files hold a ``messages`` list
whose contents are Jinja; ``.prompty`` files are YAML front matter and a Jinja body cut by
``system:``/``user:`` lines. Every piece remembers where it sits so that findings point at
lines of the original file.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import yaml

from advisor.errors import AdvisorError
from advisor.ingest import safe_open
from advisor.lint.model import Piece
from advisor.ingest import prompt_files
from advisor.ingest.prompt_files import DATA_SUFFIXES, PROMPTY_SUFFIXES
from advisor.ingest.prompt_files import TEXT_SUFFIXES as JINJA_SUFFIXES
from advisor.ingest.safe_yaml import safe_compose

# The file kinds and their structure are read by advisor.ingest.prompt_files, which the
# renderer and the template diffs use too; this module only turns them into Jinja pieces.
ALL_SUFFIXES = JINJA_SUFFIXES + DATA_SUFFIXES + PROMPTY_SUFFIXES


@dataclass(frozen=True)
class Loaded:
    kind: str  # jinja | chat_template | messages | prompty
    pieces: list[Piece]
    error: tuple[str, int] | None = None  # a file that is not valid YAML/JSON: (message, line)


def read_text(path: Path, shown: str) -> str:
    # Regular files only, capped (a committed FIFO or a link to /dev/zero is an error, not
    # a hang or an out-of-memory), opened without following a last-moment symlink swap.
    try:
        data = safe_open.read_bytes(path, max_bytes=safe_open.MAX_TEMPLATE_BYTES, what="template", shown=shown)
    except safe_open.UnsafePath as exc:
        if not os.path.lexists(path):
            raise AdvisorError(f"{shown}: no such file or directory") from None
        raise AdvisorError(str(exc)) from None
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
    found = prompt_files.messages(root)
    if found is not None:
        pieces = _message_pieces(found, text)
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


def _message_pieces(found: list[prompt_files.Message], text: str) -> list[Piece]:
    pieces = []
    for message in found:
        role_name = message.role or "message"
        anchor = message.role_node or message.item
        role_line = anchor.start_mark.line + 1
        role_col = anchor.start_mark.column + 1
        first = True
        for scalar in message.parts:
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
    try:
        body, offset = prompt_files.prompty_body(text)
    except prompt_files.PromptFileError as exc:
        return Loaded("prompty", [], (exc.message, exc.line))
    pieces = [
        Piece(s.text, line_offset=s.line_offset, role=s.role, role_line=s.role_line or s.line_offset + 1, role_column=1)
        for s in prompt_files.prompty_sections(body, offset)
    ]
    return Loaded("prompty", pieces)
