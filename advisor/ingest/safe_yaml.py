"""The one YAML loader advisor uses: PyYAML's safe loader with a budget for aliases and depth.

``yaml.safe_load`` refuses arbitrary objects but not a "billion laughs" document: a few
anchors, each aliased several times by the next, compose into a small graph whose
expansion is exponential; any walk over the loaded data (validation, dumping, linting)
then runs for ever. Here a document is refused as soon as it uses more than
``MAX_ALIASES`` aliases or expands to more than ``MAX_NODES`` nodes, or when an anchor
refers to itself. PyYAML composes nested nodes by recursion, so a value nested 50,000
levels deep was a ``RecursionError`` traceback; nesting past ``MAX_DEPTH`` is refused.
A tag the safe loader cannot construct (``!include``, ``!!python/object``) is refused by
``safe_compose`` as by ``safe_load``, so every reader of one file (the linter reads nodes,
the renderer and the configs read data) takes or refuses it alike. With
``unique_keys=True`` a key given twice in one mapping is refused instead of the last one
silently winning. Every refusal is a ``yaml.MarkedYAMLError`` pointing at the node, so
callers report ``file:line`` as for any other YAML error.
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml import YAMLError
from yaml.constructor import ConstructorError
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

MAX_ALIASES = 100
MAX_NODES = 100_000
# Nesting levels of one document. Configs, specs and prompt files nest under ten levels (a
# tool's JSON Schema inside a prompt file, a few more); the composer spends four Python
# frames per level, so 100 levels (400 frames) stay well below Python's recursion limit of
# 1,000 on top of the caller's own stack.
MAX_DEPTH = 100
# Tags that name no constructor but that the safe loader handles itself while flattening a
# mapping: the merge key ``<<`` and the value key ``=``.
_FLATTENED_TAGS = ("tag:yaml.org,2002:merge", "tag:yaml.org,2002:value")

__all__ = ["YAMLError", "YAMLBomb", "YAMLTooDeep", "DuplicateKey", "MAX_DEPTH", "safe_load", "safe_compose", "load_with_nodes",
           "error_line", "error_reason"]


class YAMLBomb(yaml.MarkedYAMLError):
    """A document refused for its aliases."""


class YAMLTooDeep(yaml.MarkedYAMLError):
    """A document refused for nesting deeper than ``MAX_DEPTH``."""


class DuplicateKey(yaml.MarkedYAMLError):
    """A mapping that gives one key twice (refused when ``unique_keys`` is asked for)."""


class _BudgetLoader(yaml.SafeLoader):
    def __init__(self, stream: Any, unique_keys: bool = False) -> None:
        super().__init__(stream)
        self._aliases = 0
        self._depth = 0
        self._unique_keys = unique_keys

    def compose_node(self, parent: Node | None, index: Any) -> Node | None:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            self._aliases += 1
            if self._aliases > MAX_ALIASES:
                raise YAMLBomb(None, None, f"more than {MAX_ALIASES} aliases (a YAML bomb?)", event.start_mark)
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise YAMLTooDeep(None, None, f"nested more than {MAX_DEPTH} levels deep", self.peek_event().start_mark)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def compose_mapping_node(self, anchor: Any) -> MappingNode:
        node = super().compose_mapping_node(anchor)
        if self._unique_keys:
            _check_unique_keys(node)
        return node

    def compose_document(self) -> Node | None:
        node = super().compose_document()
        if node is not None:
            _check_expansion(node)
        return node

    def construct_object(self, node: Node, deep: bool = False) -> Any:
        # A scalar the resolver took for a number or a date that Python cannot hold (an
        # integer of 5,000 digits, the 13th month) raised a bare ValueError: make it a YAML
        # error at the node, as every caller reports.
        try:
            return super().construct_object(node, deep)
        except (ValueError, OverflowError) as exc:
            value = node.value if isinstance(node, ScalarNode) else ""
            shown = value if len(value) <= 40 else value[:37] + "..."
            tag = node.tag.rsplit(":", 1)[-1]
            kind = {"int": "a whole number", "float": "a number", "timestamp": "a date"}.get(tag, tag)
            raise ConstructorError(None, None, f"cannot read {shown!r} as {kind} ({str(exc).split(';')[0]})",
                                   node.start_mark) from None


def _check_unique_keys(node: MappingNode) -> None:
    """Refuse a scalar key given twice in one mapping (PyYAML keeps the last silently)."""
    seen: dict[tuple[str, str], ScalarNode] = {}
    for key, _value in node.value:
        if not isinstance(key, ScalarNode) or key.tag in _FLATTENED_TAGS:
            continue
        first = seen.setdefault((key.tag, key.value), key)
        if first is not key:
            raise DuplicateKey(None, None, f"duplicate key '{key.value}' (first given on line "
                                           f"{first.start_mark.line + 1})", key.start_mark)


def _check_tag(node: Node) -> None:
    """Refuse a tag the safe loader has no constructor for, with the words ``safe_load`` uses."""
    tag = node.tag
    if tag in _BudgetLoader.yaml_constructors or tag in _FLATTENED_TAGS:
        return
    if any(prefix is not None and tag.startswith(prefix) for prefix in _BudgetLoader.yaml_multi_constructors):
        return
    raise ConstructorError(None, None, f"could not determine a constructor for the tag {tag!r}", node.start_mark)


def _check_expansion(root: Node) -> None:
    """Refuse a node graph whose tree expansion exceeds ``MAX_NODES``, that has a cycle, or
    that holds a tag the safe loader cannot construct."""
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
        _check_tag(node)
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


def safe_load(text: str, *, unique_keys: bool = False) -> Any:
    """``yaml.safe_load`` with the alias and depth budgets."""
    return load_with_nodes(text, unique_keys=unique_keys)[0]


def safe_compose(text: str, *, unique_keys: bool = False) -> Node | None:
    """``yaml.compose`` (nodes with positions) with the alias and depth budgets, refusing
    what ``safe_load`` refuses (tags without a safe constructor)."""
    loader = _BudgetLoader(text, unique_keys)
    try:
        return loader.get_single_node()
    finally:
        loader.dispose()


def load_with_nodes(text: str, *, unique_keys: bool = False) -> tuple[Any, Node | None]:
    """The data and the node tree (positions) of one document, parsed once."""
    loader = _BudgetLoader(text, unique_keys)
    try:
        node = loader.get_single_node()
        return (loader.construct_document(node) if node is not None else None), node
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
