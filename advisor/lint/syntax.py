"""Small readings of Jinja's AST shared by the dataflow and the chat-template semantics."""

from __future__ import annotations

import re
from typing import Iterable

from jinja2 import nodes

# Filters that only iterate their operand: given a sorted list instead of a mapping's view
# they do the same, in a stable order.
ITERATING_FILTERS = frozenset({"join", "list", "map", "select", "reject", "selectattr", "rejectattr", "first",
                                "last", "batch", "slice", "unique", "length", "count", "sum", "min", "max", "sort"})


def short(src: str) -> str:
    one = " ".join(src.split())
    return one if len(one) <= 60 else one[:57] + "..."


def expr_source(node: nodes.Node) -> str:
    """A readable rendering of a test expression for messages (the AST keeps no source)."""
    if isinstance(node, nodes.Name):
        return node.name
    if isinstance(node, nodes.Getattr):
        return f"{expr_source(node.node)}.{node.attr}"
    if isinstance(node, nodes.Const):
        return repr(node.value)
    if isinstance(node, nodes.Not):
        return f"not {expr_source(node.node)}"
    if isinstance(node, (nodes.And, nodes.Or)):
        op = "and" if isinstance(node, nodes.And) else "or"
        return f"{expr_source(node.left)} {op} {expr_source(node.right)}"
    if isinstance(node, nodes.Compare):
        ops = {"gt": ">", "lt": "<", "gteq": ">=", "lteq": "<=", "eq": "==", "ne": "!=", "in": "in", "notin": "not in"}
        return " ".join([expr_source(node.expr)] + [f"{ops.get(o.op, o.op)} {expr_source(o.expr)}" for o in node.ops])
    if isinstance(node, nodes.Test):
        return f"{expr_source(node.node)} is {node.name}"
    if isinstance(node, nodes.Getitem):
        return f"{expr_source(node.node)}[{expr_source(node.arg)}]"
    return "..."


def literals(node: nodes.Node) -> Iterable[str]:
    if isinstance(node, nodes.Const) and isinstance(node.value, str):
        yield node.value
    elif isinstance(node, nodes.Add):
        yield from literals(node.left)
        yield from literals(node.right)
    elif isinstance(node, nodes.Concat):
        for part in node.nodes:
            yield from literals(part)


def is_name(node: nodes.Node, name: str) -> bool:
    return isinstance(node, nodes.Name) and node.name == name


def macro_key(func: nodes.Node) -> str:
    if isinstance(func, nodes.Name):
        return func.name
    if isinstance(func, nodes.Getattr) and isinstance(func.node, nodes.Name):
        return f"{func.node.name}.{func.attr}"
    return ""


def shown_literal(value: object) -> str:
    if isinstance(value, str):
        return '"' + (value if len(value) <= 40 else value[:37] + "...") + '"'
    return "none" if value is None else str(value).lower() if isinstance(value, bool) else str(value)


def target_names(target: nodes.Node) -> list[str]:
    if isinstance(target, nodes.Name):
        return [target.name]
    if isinstance(target, nodes.NSRef):
        return []
    return [n.name for n in target.find_all(nodes.Name)]


def renders(node: nodes.Node) -> bool:
    """Whether a control block can produce text (an ``if`` that only sets names cannot)."""
    for out in node.find_all(nodes.Output):
        for child in out.nodes:
            if not (isinstance(child, nodes.TemplateData) and not child.data.strip()):
                return True
    return any(True for _ in node.find_all((nodes.CallBlock, nodes.FilterBlock, nodes.Include)))


_SET_LIKE = re.compile(r"(^|_)(set|sets)$|_set_")


def set_like(name: str) -> bool:
    return bool(_SET_LIKE.search(name))

