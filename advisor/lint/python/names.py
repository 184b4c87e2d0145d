"""Where names come from (the module's imports) and where nodes sit (lines, character columns)."""

from __future__ import annotations

import ast
import builtins

from advisor.lint.lines import Lines
from advisor.lint.python.values import Loc

_BUILTINS = frozenset(dir(builtins))


class Imports:
    """Local names bound by ``import`` and ``from ... import`` anywhere in the module, to
    the dotted names they stand for (function-level imports count too: ``import random``
    inside a function is common, and a name rarely means two things in one module)."""

    def __init__(self, names: dict[str, str]) -> None:
        self.names = names

    def qualify(self, name: str) -> str | None:
        if name in self.names:
            return _canonical(self.names[name])
        if name in _BUILTINS:
            return "builtins." + name
        return None


# Module paths whose names a package re-exports at its top.
_REEXPORTS = {"sglang.lang.api": "sglang", "jinja2.environment": "jinja2"}


def _canonical(dotted: str) -> str:
    for prefix, short in _REEXPORTS.items():
        if dotted.startswith(prefix + "."):
            return short + dotted[len(prefix):]
    return dotted


def annotation(node: ast.expr | None) -> tuple[str, str]:
    """The outer name of a type annotation and, for a mapping, the name of its key type:
    ``dict[str, Any]`` -> ("dict", "str"), ``t.Mapping`` -> ("Mapping", ""); ``Optional[X]``,
    ``X | None`` and ``Annotated[X, ...]`` are X; a string annotation is read the same way."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            node = ast.parse(node.value, mode="eval").body
        except SyntaxError:
            return "", ""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        left, right = node.left, node.right
        node = right if isinstance(left, ast.Constant) and left.value is None else left
    outer = _last_name(node.value if isinstance(node, ast.Subscript) else node)
    if isinstance(node, ast.Subscript):
        inner = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if outer in ("Optional", "Annotated") or (outer == "Union" and len(inner) == 2):
            kept = [i for i in inner if not (isinstance(i, ast.Constant) and i.value is None)]
            return annotation(kept[0]) if kept else ("", "")
        return outer, _last_name(inner[0]) if inner else ""
    return outer, ""


def _last_name(node: ast.expr | None) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""


def attribute_chain(node: ast.expr) -> list[str]:
    """``a.b.c`` -> ["a", "b", "c"]; a chain on a call or subscript starts with "" there."""
    names: list[str] = []
    while isinstance(node, ast.Attribute):
        names.append(node.attr)
        node = node.value
    names.append(node.id if isinstance(node, ast.Name) else "")
    return names[::-1]


class Positions:
    """Node positions as the linter reports them: 1-based lines and character columns of
    the text as read (every break ``\\n``, lint.lines); ``ast`` counts columns in bytes."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.lines = Lines(source)
        self._rows = source.split("\n")
        self._locs: dict[int, Loc] = {}  # by node id: a node is placed again each time a call is followed
        self._texts: dict[int, str] = {}

    def column(self, line: int, byte_col: int) -> int:
        """The 1-based character column of a byte offset into ``line``."""
        if line < 1 or line > len(self._rows):
            return byte_col + 1
        row = self._rows[line - 1]
        if row.isascii():
            return byte_col + 1
        return len(row.encode("utf-8")[:byte_col].decode("utf-8", errors="ignore")) + 1

    def loc(self, node: ast.AST) -> Loc:
        found = self._locs.get(id(node))
        if found is None:
            found = self._locs[id(node)] = self._loc(node)
        return found

    def _loc(self, node: ast.AST) -> Loc:
        line = getattr(node, "lineno", 1)
        end_line = getattr(node, "end_lineno", None) or line
        col = self.column(line, getattr(node, "col_offset", 0))
        end_offset = getattr(node, "end_col_offset", None)
        end_col = self.column(end_line, end_offset) if end_offset is not None else col
        return Loc(line, col, end_line, end_col)

    def offset(self, line: int, column: int) -> int:
        return self.lines.offset(line, column)

    def span(self, node: ast.AST) -> tuple[int, int]:
        """Offsets of ``node`` in the source."""
        loc = self.loc(node)
        return self.offset(loc.line, loc.column), self.offset(loc.end_line, loc.end_column)

    def text(self, node: ast.AST) -> str:
        found = self._texts.get(id(node))
        if found is None:
            start, end = self.span(node)
            found = self._texts[id(node)] = self.source[start:end] if end > start else ast.unparse(node)
        return found

    def within(self, inner: ast.AST, outer: ast.AST) -> bool:
        """Whether ``inner`` lies inside ``outer`` (Python before 3.12 misplaces some nodes
        inside f-strings; a position outside the string is not used)."""
        a, b = self.loc(inner), self.loc(outer)
        return (b.line, b.column) <= (a.line, a.column) and (a.end_line, a.end_column) <= (b.end_line, b.end_column)
