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
from pathlib import Path, PurePosixPath

import yaml

from advisor.errors import AdvisorError
from advisor.ingest import safe_open
from advisor.lint.lines import BOM, Lines
from advisor.lint.conversation import looks_like_chat_template
from advisor.lint.model import Piece
from advisor.ingest import prompt_files
from advisor.ingest.prompt_files import DATA_SUFFIXES, PROMPTY_SUFFIXES
from advisor.ingest.prompt_files import TEXT_SUFFIXES as JINJA_SUFFIXES
from advisor.ingest.safe_yaml import safe_compose

# The file kinds and their structure are read by advisor.ingest.prompt_files, which the
# renderer and the template diffs use too; this module only turns them into Jinja pieces.
# Python files are prompt builders, read by advisor.lint.python (parsed, never imported).
PYTHON_SUFFIXES = (".py",)
ALL_SUFFIXES = JINJA_SUFFIXES + DATA_SUFFIXES + PROMPTY_SUFFIXES + PYTHON_SUFFIXES


def is_python(path: Path) -> bool:
    return path.suffix.lower() in PYTHON_SUFFIXES


def not_a_prompt(path: Path) -> str:
    """Why a file of a linted kind was not linted after all."""
    if is_python(path):
        return "not a prompt builder (no LLM client, message list, system prompt or template in it)"
    return "not a prompt template (YAML/JSON without a `messages` list or a `chat_template`)"


@dataclass(frozen=True)
class Loaded:
    kind: str  # jinja | chat_template | messages | prompty
    pieces: list[Piece]
    error: tuple[str, int] | None = None  # a file that is not valid YAML/JSON: (message, line)


def read_text(path: Path, shown: str) -> str:
    """The text of a template file, without a UTF-8 byte order mark: editors hide it, so
    columns count from the first character after it (a fix writes it back, see lint.write)."""
    return decode(read_bytes(path, shown), shown)


def read_bytes(path: Path, shown: str) -> bytes:
    # Regular files only, capped (a committed FIFO or a link to /dev/zero is an error, not
    # a hang or an out-of-memory), opened without following a last-moment symlink swap.
    try:
        return safe_open.read_bytes(path, max_bytes=safe_open.MAX_TEMPLATE_BYTES, what="template", shown=shown)
    except safe_open.UnsafePath as exc:
        if not os.path.lexists(path):
            raise AdvisorError(f"{shown}: no such file or directory") from None
        raise AdvisorError(str(exc)) from None
    except OSError as exc:
        raise AdvisorError(f"{shown}: cannot read ({exc.strerror or exc})") from None


def decode(data: bytes, shown: str) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = Lines(data[: exc.start].decode("utf-8")).count
        col = exc.start - max(data.rfind(b"\n", 0, exc.start), data.rfind(b"\r", 0, exc.start))  # in bytes
        raise AdvisorError(f"{shown}:{line}: not UTF-8 text (bad byte at column {col})") from None
    return text[1:] if text.startswith(BOM) else text


# What a YAML or JSON file must hold to be a prompt file (see _data_file).
_PROMPT_KEYS = (b"messages", b"chat_template")


def plain_data(path: Path) -> bool:
    """Whether a YAML/JSON file over the template cap holds neither ``messages`` nor
    ``chat_template`` anywhere: then it is data (a fixture, a lock file), skipped as a
    small one would be, instead of refused for its size. Read in chunks, never whole."""
    if PurePosixPath(path.name).suffix.lower() not in DATA_SUFFIXES:
        return False
    try:
        if os.stat(path).st_size <= safe_open.MAX_TEMPLATE_BYTES:
            return False
        keep = max(len(k) for k in _PROMPT_KEYS) - 1
        tail = b""
        with safe_open.open_binary(path, what="data file") as handle:
            while True:
                chunk = handle.read(safe_open.READ_BUFFER)
                if not chunk:
                    return True
                window = tail + chunk
                if any(k in window for k in _PROMPT_KEYS):
                    return False
                tail = window[-keep:]
    except (OSError, AdvisorError):
        return False  # the read that follows names the problem


def load(path: Path, text: str) -> Loaded | None:
    """Pieces of one file, or None when the file is not a prompt template (e.g. plain YAML)."""
    name = path.name.lower()
    suffix = path.suffix.lower()
    if suffix in PROMPTY_SUFFIXES:
        return _prompty(text)
    if suffix in DATA_SUFFIXES:
        return _data_file(text, suffix)
    # A chat template by its name, or by what it reads: the conversation and the generation
    # prompt switch, a special token or a role (an official template saved as llama3.jinja).
    chat = "chat_template" in name or looks_like_chat_template(text)
    return Loaded("chat_template" if chat else "jinja", [Piece(text)])


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
        line = Lines(text).position(mark.index)[0] if mark is not None else 1  # Jinja's lines, not YAML's
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        return Loaded("messages", [], (f"invalid YAML ({problem})", line))  # the renderer's words too
    if not isinstance(root, yaml.MappingNode):
        return None
    chat = _get(root, "chat_template")
    if chat is not None:
        return Loaded("chat_template", _chat_template_pieces(chat, Lines(text)))
    found = prompt_files.messages(root)
    if found is not None:
        pieces = _message_pieces(found, Lines(text))
        # A list of plain strings is some other kind of file, not chat messages.
        return Loaded("messages", pieces) if pieces else None
    return None


def _get(node: yaml.MappingNode, key: str) -> yaml.Node | None:
    return prompt_files.get(node, key)  # a key given twice: the last, as the loaders read it


def _chat_template_pieces(node: yaml.Node, where: Lines) -> list[Piece]:
    if isinstance(node, yaml.ScalarNode):
        return [_scalar_piece(node, where, None)]
    pieces = []
    # Several named templates: [{"name": "default", "template": "..."}, ...]
    if isinstance(node, yaml.SequenceNode):
        for item in node.value:
            if isinstance(item, yaml.MappingNode):
                tpl = _get(item, "template")
                if isinstance(tpl, yaml.ScalarNode):
                    pieces.append(_scalar_piece(tpl, where, None))
    return pieces


def _message_pieces(found: list[prompt_files.Message], where: Lines) -> list[Piece]:
    pieces = []
    for message in found:
        role_name = message.role or "message"
        anchor = message.role_node or message.item
        role_line, role_col = where.position(anchor.start_mark.index)
        first = True
        for scalar in message.parts:
            pieces.append(_scalar_piece(scalar, where, role_name if first else None, role_line, role_col))
            first = False
        if first:
            pieces.append(Piece("", role=role_name, role_line=role_line, role_column=role_col))
    return pieces


def _scalar_piece(node: yaml.ScalarNode, where: Lines, role: str | None, role_line: int = 0, role_col: int = 1) -> Piece:
    """The Jinja source of one scalar, placed in the file.

    YAML counts NEL, U+2028 and U+2029 as line breaks, Jinja does not: positions come from
    the mark's character index through Jinja's line model, never from YAML's line numbers.
    A piece is *exact* when each of its characters stands in the file as it is (a plain or
    quoted string without escapes on one line, or a literal block whose lines are the
    file's lines less a fixed indentation): only there may a fix edit the file. Anything
    else (escapes, folding, YAML-only breaks) is pinned to the line it starts on.
    """
    value = node.value
    text = where.text
    lo, hi = node.start_mark.index, node.end_mark.index
    line, col = where.position(lo)
    extra: dict = {"role": role, "role_line": role_line, "role_column": role_col, "span": (lo, hi)}
    if node.style == "|":
        indent = _literal_indent(where, line + 1, where.line_of(max(lo, hi - 1)))
        if indent is not None and _literal_exact(value, where, line + 1, indent):
            # Content starts on the line after the `|` header, indented by a fixed amount.
            return Piece(value, line_offset=line, first_col=indent, col=indent, **extra)
    elif node.style in (None, "") and text[lo:hi] == value and "\n" not in value:
        return Piece(value, line_offset=line - 1, first_col=col - 1, col=col - 1, **extra)
    elif node.style in ("'", '"') and text[lo + 1: hi - 1] == value and "\n" not in value:
        return Piece(value, line_offset=line - 1, first_col=col, col=col, **extra)
    # Escaped or folded text cannot be mapped line by line: pin it to where it starts.
    return Piece(value, first_col=col - 1, flat_line=line, exact=False, **extra)


def _literal_indent(where: Lines, first: int, last: int) -> int | None:
    for n in range(first, last + 1):
        ln = where.text_of(n)
        if ln.strip():
            return len(ln) - len(ln.lstrip(" "))
    return None


def _literal_exact(value: str, where: Lines, first: int, indent: int) -> bool:
    """Whether every line of a literal block's value is its file line less ``indent``."""
    rows = value.split("\n")
    while rows and not rows[-1]:
        rows.pop()  # the chomped final breaks
    for i, row in enumerate(rows):
        ln = where.text_of(first + i)
        if len(ln) >= indent and ln[:indent].strip(" ") == "":
            if ln[indent:] != row:
                return False
        elif row or ln.strip(" "):
            return False
    return True


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
