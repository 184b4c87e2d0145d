"""The one YAML loader advisor uses: PyYAML's safe loader with a budget for aliases.

``yaml.safe_load`` refuses arbitrary objects but not a "billion laughs" document: a few
anchors, each aliased several times by the next, compose into a small graph whose
expansion is exponential; any walk over the loaded data (validation, dumping, linting)
then runs for ever. Here a document is refused as soon as it uses more than
``MAX_ALIASES`` aliases or expands to more than ``MAX_NODES`` nodes, or when an anchor
refers to itself. The refusal is a ``yaml.MarkedYAMLError`` pointing at the alias, so
callers report ``file:line`` as for any other YAML error.
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml import YAMLError
from yaml.nodes import MappingNode, Node, SequenceNode

MAX_ALIASES = 100
MAX_NODES = 100_000

__all__ = ["YAMLError", "YAMLBomb", "safe_load", "safe_compose", "error_line"]


class YAMLBomb(yaml.MarkedYAMLError):
    """A document refused for its aliases."""


class _BudgetLoader(yaml.SafeLoader):
    def __init__(self, stream: Any) -> None:
        super().__init__(stream)
        self._aliases = 0

    def compose_node(self, parent: Node | None, index: Any) -> Node | None:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            self._aliases += 1
            if self._aliases > MAX_ALIASES:
                raise YAMLBomb(None, None, f"more than {MAX_ALIASES} aliases (a YAML bomb?)", event.start_mark)
        return super().compose_node(parent, index)

    def compose_document(self) -> Node | None:
        node = super().compose_document()
        if node is not None:
            _check_expansion(node)
        return node


def _check_expansion(root: Node) -> None:
    """Refuse a node graph whose tree expansion exceeds ``MAX_NODES`` or that has a cycle."""
    size: dict[int, int] = {}
    on_path: set[int] = set()
    # Iterative post-order walk of the DAG; shared nodes (aliases) are counted once per use.
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        children = _children(node)
        if done:
            on_path.discard(key)
            total = 1 + sum(size[id(c)] for c in children)
            if total > MAX_NODES:
                raise YAMLBomb(None, None, f"expands to more than {MAX_NODES:,} nodes (a YAML bomb?)",
                               node.start_mark)
            size[key] = total
            continue
        if key in size:
            continue
        if key in on_path:
            raise YAMLBomb(None, None, "an anchor refers to itself (recursive alias)", node.start_mark)
        on_path.add(key)
        stack.append((node, True))
        for child in children:
            if id(child) in on_path:
                raise YAMLBomb(None, None, "an anchor refers to itself (recursive alias)", child.start_mark)
            if id(child) not in size:
                stack.append((child, False))


def _children(node: Node) -> list[Node]:
    if isinstance(node, SequenceNode):
        return list(node.value)
    if isinstance(node, MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def safe_load(text: str) -> Any:
    """``yaml.safe_load`` with the alias budget."""
    loader = _BudgetLoader(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


def safe_compose(text: str) -> Node | None:
    """``yaml.compose`` (nodes with positions) with the alias budget."""
    loader = _BudgetLoader(text)
    try:
        return loader.get_single_node()
    finally:
        loader.dispose()


def error_line(exc: BaseException) -> int:
    """The 1-based line a YAML error points at (1 when it does not say)."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    return mark.line + 1 if mark is not None else 1


def error_reason(exc: BaseException) -> str:
    """The one-line reason of a YAML error."""
    problem = getattr(exc, "problem", None)
    return str(problem) if problem else "invalid YAML"
