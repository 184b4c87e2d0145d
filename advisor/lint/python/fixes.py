"""Fixes for Python prompt builders: edits of the source text, as for templates (lint.fix).

Both fixes keep what the prompt says and fix only its order:

- ``json.dumps(x)`` -> ``json.dumps(x, sort_keys=True)``: the same JSON, keys sorted. Safe
  when the keys are known to be strings (a JSON body, ``**kwargs``, string literals);
  otherwise unsafe, because ``sort_keys=True`` raises ``TypeError`` on keys of mixed types.
- ``x`` -> ``sorted(x)`` where a set (or a mapping in request order) is iterated: the same
  items, in one order. Safe where the items are strings (``str.join`` requires them, or a set
  of string literals); otherwise unsafe, because items of types that do not compare raise
  ``TypeError`` once sorted.
"""

from __future__ import annotations

import ast

from advisor.lint.fix import SAFE, UNSAFE, Edit, Fix
from advisor.lint.python.names import Positions


def wrap_sorted(pos: Positions, node: ast.expr, safe: bool) -> Fix | None:
    start, end = pos.span(node)
    if end <= start or isinstance(node, ast.Starred):
        return None
    shown = pos.source[start:end]
    if isinstance(node, ast.Tuple) and not shown.startswith("("):
        return None  # `for x in a, b:` has no brackets to keep the tuple whole
    return Fix(SAFE if safe else UNSAFE, f"iterate `sorted({_short(shown)})`", (Edit(start, start, "sorted("), Edit(end, end, ")")))


def add_sort_keys(pos: Positions, call: ast.Call, safe: bool) -> Fix | None:
    """``sort_keys=True`` after the last argument of a ``json.dumps`` call."""
    if any(k.arg is None for k in call.keywords) or any(isinstance(a, ast.Starred) for a in call.args):
        return None  # **options or *args might already name sort_keys
    if any(k.arg == "sort_keys" for k in call.keywords):
        return None  # sort_keys=False was asked for by name: the author decides
    nodes: list[ast.expr | ast.keyword] = [*call.args, *call.keywords]
    if not nodes:
        return None
    last = max(nodes, key=lambda n: (n.end_lineno or 0, n.end_col_offset or 0))
    _, end = pos.span(last)
    return Fix(SAFE if safe else UNSAFE, "serialize with `sort_keys=True`", (Edit(end, end, ", sort_keys=True"),))


def _short(text: str) -> str:
    one = " ".join(text.split())
    return one if len(one) <= 40 else one[:37] + "..."
