"""The one reader of prompt-file structure, shared by lint, rendering and template diffs.

Which roles a ``.prompty`` body has, where its front matter ends, and which messages a YAML
or JSON prompt file holds are decided here only, so the linter, the renderer and the
prescribed template diffs can never read one file in two ways. Positions are kept (lines
above a body, the YAML nodes of each message) because the linter reports file lines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from advisor.ingest.safe_yaml import YAMLError, error_line, error_reason, safe_load

TEXT_SUFFIXES = (".j2", ".jinja", ".jinja2", ".txt")
DATA_SUFFIXES = (".yaml", ".yml", ".json")
PROMPTY_SUFFIXES = (".prompty",)

# The roles a Prompty body may switch to. Prompty's own chat parsers accept `tool` and
# `function` turns and an optional `#` before the role name; a line that is only a role
# name and a colon starts the next message.
ROLES = ("system", "user", "assistant", "developer", "tool", "function")
ROLE_LINE = re.compile(r"^[ \t]*#?[ \t]*(" + "|".join(ROLES) + r")[ \t]*:[ \t]*$", re.IGNORECASE | re.MULTILINE)
# Text before the first role line is the system message, as when a body has no role lines.
LEADING_ROLE = "system"


class PromptFileError(ValueError):
    """A prompt file whose structure cannot be read: ``line`` is a line of the file."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


# --- .prompty ------------------------------------------------------------------------------


def prompty_body(text: str) -> tuple[str, int]:
    """The Jinja body of a Prompty file and the number of file lines above it."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return text, 0
    for i in range(1, len(lines)):
        if lines[i].strip() == "---":
            try:
                safe_load("\n".join(lines[1:i]))
            except YAMLError as exc:
                raise PromptFileError(f"invalid front matter: {error_reason(exc)}", error_line(exc) + 1) from None
            return "\n".join(lines[i + 1:]), i + 1
    raise PromptFileError("front matter is not closed by '---'", 1)


@dataclass(frozen=True)
class Section:
    """One message of a Prompty body, cut at its role lines in the source."""

    role: str
    text: str
    line_offset: int  # file lines above the section's first line
    role_line: int  # the file line of the role marker (0: the leading system text has none)


def prompty_sections(body: str, offset: int) -> list[Section]:
    """Cut a body (``offset`` file lines above it) at its role lines."""
    sections: list[Section] = []
    start, role, role_line = 0, LEADING_ROLE, 0
    for m in ROLE_LINE.finditer(body):
        chunk = body[start: m.start()]
        if role_line or chunk.strip():
            sections.append(Section(role, _drop_last_newline(chunk), offset + body.count("\n", 0, start), role_line))
        role = m.group(1).lower()
        role_line = offset + body.count("\n", 0, m.start()) + 1
        start = min(m.end() + 1, len(body))
    chunk = body[start:]
    if role_line or chunk.strip():
        sections.append(Section(role, chunk, offset + body.count("\n", 0, start), role_line))
    return sections


def _drop_last_newline(chunk: str) -> str:
    # The newline before a role line belongs to the role line, not to the message above.
    return chunk[:-1] if chunk.endswith("\n") else chunk


def split_rendered(rendered: str) -> tuple[dict[str, str], ...]:
    """Messages of a rendered Prompty body: the same role lines, found in the output."""
    out = []
    start, role, marked = 0, LEADING_ROLE, False
    for m in ROLE_LINE.finditer(rendered):
        content = rendered[start: m.start()].strip()
        if marked or content:
            out.append({"role": role, "content": content})
        role, marked, start = m.group(1).lower(), True, m.end()
    content = rendered[start:].strip()
    if marked or content or not out:
        out.append({"role": role, "content": content})
    return tuple(out)


# --- YAML and JSON messages --------------------------------------------------------------------


@dataclass(frozen=True)
class Message:
    """One entry of a ``messages`` list, with the nodes that locate it in the file."""

    role: str | None  # None when the entry names no role
    item: MappingNode
    role_node: Node | None
    parts: tuple[ScalarNode, ...]  # the content string, or the text of each OpenAI text part


def get(node: Node | None, key: str) -> Node | None:
    """The value of ``key`` in a mapping node; of a key given twice, the last, as YAML and
    JSON loaders (and so the application reading the file) take it."""
    found = None
    if isinstance(node, MappingNode):
        for k, v in node.value:
            if isinstance(k, ScalarNode) and k.value == key:
                found = v
    return found


def messages(root: Node | None) -> list[Message] | None:
    """The ``messages`` of a prompt file, or None when it has no such list."""
    listed = get(root, "messages")
    if not isinstance(listed, SequenceNode):
        return None
    out = []
    for item in listed.value:
        if not isinstance(item, MappingNode):
            continue
        role_node = get(item, "role")
        role = role_node.value if isinstance(role_node, ScalarNode) else None
        content = get(item, "content")
        parts: list[ScalarNode] = []
        if isinstance(content, ScalarNode):
            parts.append(content)
        elif isinstance(content, SequenceNode):
            # OpenAI content parts: [{"type": "text", "text": "..."}]
            for part in content.value:
                text = get(part, "text")
                if isinstance(text, ScalarNode):
                    parts.append(text)
        out.append(Message(role, item, role_node, tuple(parts)))
    return out
