"""Which message content a chat template expects: one string, or OpenAI content parts.

Both engines decide it once per template, before any request, from the template's syntax
tree: a template found to loop over a message's ``content`` is given every message's
content as a list of parts (``openai``), any other one string (``string``). The two
checks differ, and what a request looks like to the template follows from them:

* vLLM (0.33.0 and 0.34.0, ``vllm/renderers/hf.py``: ``_detect_content_format`` over
  ``_iter_nodes_assign_content_item``) follows names through the template: ``messages``
  and whatever is ``{% set %}`` from it (also ``namespace(rest=messages)`` and
  ``ns.rest = messages``), whatever a loop over those calls a message, then a loop over
  that message's ``content``, over a macro parameter some call passes a message's
  ``content``, or over a variable named ``content`` outside any macro. A loop over
  messages or content whose target is not one name stops the check, which then answers
  ``string``, as does a template that does not parse.
* SGLang (0.5.23, ``sglang/srt/parser/jinja_template_utils.py``:
  ``detect_jinja_template_content_format``) answers ``openai`` for any template whose
  text mentions ``image``, ``audio``, ``video`` or ``vision`` anywhere (comments and
  strings included), and otherwise only knows a loop over ``message``, ``msg`` or ``m``'s
  ``content``; a template that does not parse is ``string``.
"""

from __future__ import annotations

from collections import deque
from typing import Iterator

from jinja2 import Environment, nodes

from advisor.ingest.hf_jinja import GenerationBlock
from advisor.ingest.preprocess import engine_name

_SGLANG_MESSAGE_NAMES = ("message", "msg", "m")
# Any of these words in the template text: SGLang takes it for a multimodal template.
_SGLANG_MEDIA_WORDS = ("image", "audio", "video", "vision")


class _Unfollowable(Exception):
    """A loop vLLM's check cannot follow (its assertion fails and it answers string)."""


def _names(node: nodes.Node, name: str) -> bool:
    """``node`` is the variable ``name``; a dotted name (``ns.rest``) is an attribute of a
    variable, as vLLM matches namespace aliases."""
    if isinstance(node, nodes.Name):
        return node.ctx == "load" and node.name == name
    if isinstance(node, nodes.Getattr) and "." in name:
        base, _, attr = name.rpartition(".")
        return node.attr == attr and _names(node.node, base)
    return False


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


def _dotted(node: nodes.Node) -> str | None:
    """An attribute assignment's target (``ns.rest``) as one dotted name."""
    if isinstance(node, nodes.NSRef):
        return f"{node.name}.{node.attr}"
    attrs = []
    while isinstance(node, nodes.Getattr):
        attrs.append(node.attr)
        node = node.node
    if isinstance(node, nodes.Name):
        return ".".join([node.name, *reversed(attrs)])
    return None


def _assigned_from(assign: nodes.Assign, name: str) -> list[str]:
    """The names one ``{% set %}`` gives the value of ``name``."""
    target, value = assign.target, assign.node
    if isinstance(target, nodes.Name):
        if _reads(value, name):
            return [target.name]
        if isinstance(value, nodes.Call) and isinstance(value.node, nodes.Name) and value.node.name == "namespace":
            return [f"{target.name}.{kw.key}" for kw in value.kwargs if _reads(kw.value, name)]
        return []
    if isinstance(target, (nodes.Getattr, nodes.NSRef)) and _reads(value, name):
        dotted = _dotted(target)
        return [dotted] if dotted is not None else []
    return []


def _aliases(root: nodes.Template, name: str) -> list[str]:
    """``name`` and every name assigned from it, transitively (vLLM's breadth-first walk)."""
    found = [name]
    seen = {name}
    pending = deque([name])
    while pending:
        current = pending.popleft()
        for assign in root.find_all(nodes.Assign):
            for alias in _assigned_from(assign, current):
                found.append(alias)
                if alias not in seen:
                    seen.add(alias)
                    pending.append(alias)
    return found


def _message_names(root: nodes.Template) -> list[str]:
    """What the loops over ``messages`` (or its aliases) call a message."""
    sources = _aliases(root, "messages")
    out = []
    for loop in root.find_all(nodes.For):
        if any(_reads(loop.iter, source) for source in sources):
            if not isinstance(loop.target, nodes.Name):
                raise _Unfollowable()
            out.append(loop.target.name)
    return out


def _macro_content_params(root: nodes.Template, messages: list[str]) -> tuple[dict[int, set[str]], set[int]]:
    """Per loop inside a macro, the macro's parameters some call passes a message's
    ``content``; and the ids of all loops inside macros."""
    by_loop: dict[int, set[str]] = {}
    in_macros: set[int] = set()
    for macro in root.find_all(nodes.Macro):
        params = [arg.name for arg in macro.args]
        given: set[str] = set()
        for call in root.find_all(nodes.Call):
            if not (isinstance(call.node, nodes.Name) and call.node.name == macro.name):
                continue
            for i, arg in enumerate(call.args):
                if i < len(params) and any(_reads(arg, m, "content") for m in messages):
                    given.add(params[i])
            for kw in call.kwargs:
                if kw.key in params and any(_reads(kw.value, m, "content") for m in messages):
                    given.add(kw.key)
        for loop in macro.find_all(nodes.For):
            in_macros.add(id(loop))
            if given:
                by_loop[id(loop)] = given
    return by_loop, in_macros


def _loops_over_content(root: nodes.Template) -> Iterator[nodes.For]:
    messages = _message_names(root)
    by_loop, in_macros = _macro_content_params(root, messages)
    for loop in root.find_all(nodes.For):
        it = loop.iter
        if any(_reads(it, m, "content") for m in messages):
            found = True
        elif isinstance(it, nodes.Name) and it.name in by_loop.get(id(loop), ()):
            found = True
        else:
            found = id(loop) not in in_macros and isinstance(it, nodes.Name) and it.name == "content"
        if found:
            if not isinstance(loop.target, nodes.Name):
                raise _Unfollowable()
            yield loop


def _parse(text: str) -> nodes.Template | None:
    env = Environment(trim_blocks=True, lstrip_blocks=True, extensions=["jinja2.ext.loopcontrols"])
    env.add_extension(GenerationBlock)  # HF templates' `{% generation %}` block
    try:
        return env.parse(text)
    except Exception:  # a template that does not parse is rendered (and fails) later
        return None


def _sglang(text: str) -> str:
    if any(word in text for word in _SGLANG_MEDIA_WORDS):
        return "openai"
    root = _parse(text)
    if root is None:
        return "string"
    for loop in root.find_all(nodes.For):
        if any(_reads(loop.iter, name, "content") for name in _SGLANG_MESSAGE_NAMES):
            return "openai"
    return "string"


def _vllm(text: str) -> str:
    root = _parse(text)
    if root is None:
        return "string"
    try:
        next(_loops_over_content(root))
    except (StopIteration, _Unfollowable):
        return "string"
    return "openai"


def detect(text: str, engine: str) -> str:
    """``openai`` or ``string``: the content format ``engine`` (a name, or an
    ``engine_spec`` with its version) gives this template."""
    return _sglang(text) if engine_name(engine) == "sglang" else _vllm(text)
