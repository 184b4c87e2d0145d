"""Which message content a chat template expects: one string, or OpenAI content parts.

Both engines decide it from the template's syntax tree before rendering: a template that
loops over a message's ``content`` gets the parts (``openai``), any other gets one string
(``string``). vLLM follows the names through the template (``messages`` reassigned with
``{% set %}``, whatever the loop over them calls a message); SGLang's copy of the check
only knows the loop variables ``message``, ``msg`` and ``m``. A template that does not
parse, or whose loops vLLM cannot follow, counts as ``string``.
"""

from __future__ import annotations

from collections import deque
from typing import Iterator

from jinja2 import Environment, nodes

from advisor.ingest.hf_jinja import GenerationBlock

_SGLANG_MESSAGE_NAMES = ("message", "msg", "m")


class _Unfollowable(Exception):
    """A loop or assignment vLLM's check cannot follow (it then falls back to string)."""


def _names(node: nodes.Node, name: str) -> bool:
    return isinstance(node, nodes.Name) and node.ctx == "load" and node.name == name


def _item_of(node: nodes.Node, name: str, key: str) -> bool:
    if isinstance(node, nodes.Getitem):
        return _names(node.node, name) and isinstance(node.arg, nodes.Const) and node.arg.value == key
    if isinstance(node, nodes.Getattr):
        return _names(node.node, name) and node.attr == key
    return False


def _reads(node: nodes.Node, name: str, key: str | None = None) -> bool:
    """``node`` is ``name`` (or ``name[key]``), maybe filtered, tested or sliced."""
    if isinstance(node, nodes.Filter):
        return node.node is not None and _reads(node.node, name, key)
    if isinstance(node, nodes.Test):
        return _reads(node.node, name, key)
    if isinstance(node, nodes.Getitem) and isinstance(node.arg, nodes.Slice):
        return _reads(node.node, name, key)
    return _item_of(node, name, key) if key else _names(node, name)


def _aliases(root: nodes.Template, name: str) -> Iterator[str]:
    """``name`` and every variable assigned from it, transitively."""
    yield name
    pending = deque([name])
    while pending:
        current = pending.popleft()
        for assign in root.find_all(nodes.Assign):
            if _reads(assign.node, current):
                if not isinstance(assign.target, nodes.Name):
                    raise _Unfollowable()
                yield assign.target.name
                if assign.target.name != current:
                    pending.append(assign.target.name)


def _loop_targets(root: nodes.Template, sources: list[str], key: str | None) -> Iterator[str]:
    for loop in root.find_all(nodes.For):
        for source in sources:
            if _reads(loop.iter, source, key):
                if not isinstance(loop.target, nodes.Name):
                    raise _Unfollowable()
                yield loop.target.name
                break


def _parse(text: str) -> nodes.Template | None:
    env = Environment(trim_blocks=True, lstrip_blocks=True, extensions=["jinja2.ext.loopcontrols"])
    env.add_extension(GenerationBlock)  # HF templates' `{% generation %}` block
    try:
        return env.parse(text)
    except Exception:  # a template that does not parse is rendered (and fails) later
        return None


def detect(text: str, engine: str) -> str:
    """``openai`` or ``string``: the content format ``engine`` gives this template."""
    root = _parse(text)
    if root is None:
        return "string"
    if engine == "sglang":
        for loop in root.find_all(nodes.For):
            if any(_reads(loop.iter, name, "content") for name in _SGLANG_MESSAGE_NAMES):
                return "openai"
        return "string"
    try:
        messages = list(_aliases(root, "messages"))
        message_names = list(_loop_targets(root, messages, None))
        next(_loop_targets(root, message_names, "content"))
    except StopIteration:
        return "string"
    except _Unfollowable:
        return "string"
    return "openai"
