"""Chat-template semantics: what each input of a chat template is, and the chat structure
the chat rules (PC402-PC405) look at.

A chat template is given a conversation and renders it; what it adds to the prefix is what the
rules judge. Each input has a meaning, the same in every family's spelling:

- the conversation, ``messages``, and every slice, selection or copy of it (``messages[1:]``,
  ``loop_messages``, ``messages | selectattr(...)``) is the caller's own text (PAYLOAD): the
  requests of one conversation share it, turn after turn. The system message (the first
  message, or a variable or namespace attribute set from it), the tools and the documents are
  the application's prompt, stable unless proven per request;
- the *last* message (``messages[-1]``, ``user_messages[-1]``, ``messages | last``) is the
  request's own turn (REQUEST): text the template takes from it is per request;
- the number of messages, the roles, the position of a turn (``loop.first``, ``loop.last``,
  ``loop.index``) and which message a message is (``message == messages[-1]``) are the
  conversation's structure (STRUCTURE): a branch on them chooses the layout, the same for every
  request of one application;
- any other variable is a caller kwarg (``chat_template_kwargs``): rendered, it is per-request
  data; only tested (``{% if enable_thinking %}``), it is a switch the serving stack sets.

The functions below carry these meanings through indexing, attributes, filters, comparisons
and loops (the dataflow calls them); :class:`ChatSites` finds the chat structure the chat rules
report.
"""

from __future__ import annotations

import re
from dataclasses import replace

from jinja2 import nodes

from advisor.lint.layout import Segment, Site
from advisor.lint.syntax import expr_source, is_name
from advisor.lint.taint import CONSTANT, MESSAGE, MESSAGES, PAYLOAD, RANDOM, RANDOM_FILTERS, REQUEST, STRUCTURE, Taint, strongest


TOOL_NAMES = frozenset({"tools", "custom_tools", "functions", "tool_schemas", "builtin_tools", "xml_tools"})
_BLANK_THINK = re.compile(r"<think>\s*</think>")
_POSITION_ATTRS = frozenset({"last", "first", "index", "index0", "revindex", "revindex0"})
_REASONING_WORDS = ("reasoning", "thinking", "thought")


# --- what each input is -----------------------------------------------------------------------

# Inputs a chat template is given besides ``messages`` and the tools (which are constant per
# deployment, see DEFAULT_STATIC_VARIABLES): the application's, like the system message.
APPLICATION_INPUTS = {"documents": "the documents the caller passes (`documents`)"}
# The conversation a chat template is given.
CONVERSATION = "messages"
# Filters that keep a list of messages a list of messages (a selection, an order, a copy).
_KEEPS_MESSAGES = frozenset({"selectattr", "rejectattr", "select", "reject", "list", "reverse", "sort", "unique", "batch", "slice"})


def conversation(line: int, file: str) -> Taint:
    """``messages`` in a chat template."""
    return Taint(PAYLOAD, "the conversation `messages`", line, file, shape=MESSAGES)


def structure(reason: str, base: Taint) -> Taint:
    """The conversation's structure, read from ``base`` (where it was produced)."""
    return Taint(STRUCTURE, reason, base.line, base.file)


def item(base: Taint, arg: nodes.Node, where: str) -> Taint | None:
    """``base[arg]`` where ``base`` is a conversation value (None when it is not one)."""
    if base.shape == MESSAGES:
        if isinstance(arg, nodes.Slice):
            return base
        if isinstance(arg, nodes.Neg) and isinstance(arg.node, nodes.Const) and arg.node.value == 1:
            return last_message(base, where)
        if isinstance(arg, nodes.Const) and arg.value == 0:
            return replace(base, shape=MESSAGE, reason=f"the first message `{where}` (the system message when its role is system)")
        return replace(base, shape=MESSAGE, reason=f"the message `{where}`")
    if base.shape == MESSAGE and isinstance(arg, nodes.Const) and isinstance(arg.value, str):
        return field(base, arg.value, where)
    return None


def field(base: Taint, name: str, where: str) -> Taint | None:
    """``message.name`` / ``message['name']``: the role is structure, anything else the
    message's own text (as steady or as per-request as the message)."""
    if base.shape != MESSAGE:
        return None
    if name == "role":
        return structure(f"the role `{where}`", base)
    return replace(base, shape="")


def last_message(base: Taint, where: str) -> Taint:
    """The last message of a conversation value: the request's own turn."""
    kind = base.kind if base.volatile else REQUEST
    return replace(base, kind=kind, shape=MESSAGE, reason=f"the last message `{where}` (the request's own turn)")


def filtered(base: Taint, node: nodes.Filter, where: str) -> Taint | None:
    """``base | name(...)`` where ``base`` is a conversation value (None when it is not one)."""
    name = node.name
    if base.shape == MESSAGES:
        if name in ("length", "count"):
            return structure(f"the number of messages (`{where}`)", base)
        if name in _KEEPS_MESSAGES:
            return base
        if name == "first":
            return replace(base, shape=MESSAGE, reason=f"the first message `{where}`")
        if name == "last":
            return last_message(base, where)
        if name == "map" and any(k.key == "attribute" and isinstance(k.value, nodes.Const) and k.value.value == "role"
                                 for k in node.kwargs):
            return structure(f"the roles of the messages (`{where}`)", base)
        return replace(base, shape="")
    if base.shape == MESSAGE:
        return replace(base, shape="")
    return None


def compared(operands: list[Taint]) -> Taint | None:
    """``message == messages[-1]``: which message a message is, structure (None when a side
    is not a conversation value)."""
    if len(operands) > 1 and all(o.shape in (MESSAGE, MESSAGES) for o in operands):
        return structure("which message a message is", operands[0])
    return None


def loop_over(iterable: Taint) -> tuple[Taint, Taint] | None:
    """The item and ``loop`` of a loop over a conversation value (None when it is not one):
    each item is a message, ``loop`` tells where a turn sits."""
    if iterable.shape != MESSAGES:
        return None
    return replace(iterable, shape=MESSAGE), structure("the position of a turn in the conversation (`loop`)", iterable)


_CHAT_INPUT = re.compile(r"\bmessages\b")
_CHAT_SIGN = re.compile(r"\badd_generation_prompt\b|\bbos_token\b|\beos_token\b|\[\s*['\"]role['\"]\s*\]|\.role\b")


def looks_like_chat_template(text: str) -> bool:
    """Whether a Jinja file is a chat template by what it reads: the conversation
    (``messages``) together with the generation prompt switch, a special token or a role."""
    return bool(_CHAT_INPUT.search(text)) and bool(_CHAT_SIGN.search(text))



def _position_test(test: nodes.Node) -> bool:
    """Whether a test asks where in the conversation a turn sits (loop.last, an index)."""
    for n in [test, *test.find_all((nodes.Getattr, nodes.Name))]:
        if isinstance(n, nodes.Getattr) and isinstance(n.node, nodes.Name):
            if n.node.name == "loop" and n.attr in _POSITION_ATTRS:
                return True
            if "last" in n.attr and ("query" in n.attr or "user" in n.attr or "index" in n.attr or "idx" in n.attr):
                return True
        if isinstance(n, nodes.Name) and "last" in n.name and ("query" in n.name or "user" in n.name or "idx" in n.name):
            return True
    return False


def _renders_reasoning(body: list[nodes.Node]) -> bool:
    for stmt in body:
        for out in [stmt, *stmt.find_all(nodes.Output)]:
            if not isinstance(out, nodes.Output):
                continue
            for child in out.nodes:
                for c in [child, *child.find_all((nodes.Const, nodes.TemplateData, nodes.Name, nodes.Getattr, nodes.Getitem))]:
                    if isinstance(c, (nodes.Const, nodes.TemplateData)) and isinstance(getattr(c, "value", getattr(c, "data", None)), str):
                        text = c.value if isinstance(c, nodes.Const) else c.data
                        if "<think>" in text or "<|channel|>analysis" in text:
                            return True
                    elif isinstance(c, nodes.Name) and any(w in c.name for w in _REASONING_WORDS):
                        return True
                    elif isinstance(c, nodes.Getattr) and any(w in c.attr for w in _REASONING_WORDS):
                        return True
                    elif isinstance(c, nodes.Getitem) and isinstance(c.arg, nodes.Const) and isinstance(c.arg.value, str):
                        if any(w in c.arg.value for w in _REASONING_WORDS):
                            return True
    return False


def last_turn_test(test: nodes.Node) -> bool:
    """Whether a test singles out the last message: loop.last, x == something[-1], revindex."""
    for n in [test, *test.find_all((nodes.Getattr, nodes.Compare))]:
        if isinstance(n, nodes.Getattr) and is_name(n.node, "loop") and n.attr in ("last", "revindex0", "revindex"):
            return True
        if isinstance(n, nodes.Compare):
            for side in [n.expr, *(o.expr for o in n.ops)]:
                if isinstance(side, nodes.Getitem) and isinstance(side.arg, nodes.Neg):
                    return True
    return False


def _rendered_names(body: list[nodes.Node]) -> list[str]:
    """Names an output of ``body`` renders, in order (attributes of the loop item excluded
    by the caller's scope check)."""
    out: list[str] = []
    for stmt in body:
        for o in [stmt, *stmt.find_all(nodes.Output)]:
            if isinstance(o, nodes.Output):
                for child in o.nodes:
                    for n in [child, *child.find_all(nodes.Name)]:
                        if isinstance(n, nodes.Name) and n.name not in out:
                            out.append(n.name)
    return out


def mentions_arguments(node: nodes.Node) -> bool:
    for c in [node, *node.find_all((nodes.Getattr, nodes.Getitem))]:
        if isinstance(c, nodes.Getattr) and c.attr == "arguments":
            return True
        if isinstance(c, nodes.Getitem) and isinstance(c.arg, nodes.Const) and c.arg.value == "arguments":
            return True
    return False


def tests_arguments_type(test: nodes.Node) -> bool:
    """``tool_call.arguments is string`` (or mapping): the template keeps a string as sent."""
    return any(
        t.name in ("string", "mapping") and mentions_arguments(t.node)
        for t in [test, *test.find_all(nodes.Test)]
        if isinstance(t, nodes.Test)
    )


def mentions_reasoning(node: nodes.Node) -> bool:
    for c in [node, *node.find_all((nodes.Name, nodes.Getattr))]:
        name = c.name if isinstance(c, nodes.Name) else c.attr if isinstance(c, nodes.Getattr) else ""
        if any(w in name for w in _REASONING_WORDS):
            return True
    return False


def reasoning_cut(node: nodes.Getitem) -> str:
    """The spelling of an index that keeps only the text after `</think>` ('' if none):
    the last or second piece of a split, the last piece of a partition."""
    arg = node.arg
    if isinstance(arg, nodes.Neg) and isinstance(arg.node, nodes.Const) and arg.node.value == 1:
        index = -1
    elif isinstance(arg, nodes.Const) and isinstance(arg.value, int) and not isinstance(arg.value, bool):
        index = arg.value
    else:
        return ""
    keeps = {"split": (1, -1), "rsplit": (1, -1), "partition": (2, -1), "rpartition": (2, -1)}
    if not splits_reasoning(node.node):
        return ""
    method = node.node.node.attr  # type: ignore[attr-defined]
    return f".{method}('</think>')[{index}]" if index in keeps[method] else ""


def splits_reasoning(node: nodes.Node, methods: tuple[str, ...] = ("split", "rsplit", "partition", "rpartition")) -> bool:
    return (
        isinstance(node, nodes.Call)
        and isinstance(node.node, nodes.Getattr)
        and node.node.attr in methods
        and bool(node.args)
        and isinstance(node.args[0], nodes.Const)
        and node.args[0].value == "</think>"
    )


class ChatSites:
    """The chat-structure sites of a walk (advisor.lint.walker mixes this in): a tool list
    filtered, reordered or placed per request or per turn, reasoning kept for some turns
    only, text from outside the conversation rendered only at the last turn."""

    # Provided by the walker.
    chat: bool
    chat_sites: list[Site]
    segments: list[Segment]
    scopes: list[dict[str, Taint]]
    guards: list[Taint]
    loops: list[Taint]
    loop_scopes: list[int]
    tool_names: set[str]
    last_turn_guards: int  # enclosing branches that single out the last turn (`if loop.last`)

    def expr(self, node: nodes.Node | None) -> Taint:
        raise NotImplementedError

    def _args(self, node: nodes.Call | nodes.Filter | nodes.Test) -> list[Taint]:
        raise NotImplementedError

    def _here(self, line: int) -> tuple[int, int, int, int]:
        raise NotImplementedError

    def _site(self, kind: str, detail: str, line: int, taint: Taint) -> None:
        if not self.chat and kind != "tool-set":
            return
        l, c, el, ec = self._here(line)
        if any(s.kind == kind and s.line == l and s.detail == detail for s in self.chat_sites):
            return
        self.chat_sites.append(Site(kind, detail, l, c, el, ec, taint, len(self.segments)))

    def _mentions_tools(self, node: nodes.Node) -> bool:
        if isinstance(node, nodes.Name):
            return node.name in self.tool_names
        return any(n.name in self.tool_names for n in node.find_all(nodes.Name))

    def _tool_site(self, node: nodes.Node, line: int) -> None:
        """The tool list must render the same for every request: not filtered, reordered or
        placed by request data. Placed by the conversation's structure (at the last user
        turn), it is the model's layout: it moves with every turn, which is worth knowing."""
        self._tool_filters(node, line)
        guard = next((g for g in self.guards if g.volatile), None)
        if guard is not None:
            self._site("tool-set", f"the tool list renders only when {guard.reason} allows it", line, guard)
            return
        turn = next((t for t in self.loops if t.shape == MESSAGES), None)
        if turn is not None and self.last_turn_guards:
            detail = (f"the tool list renders at the last turn, inside the loop over {turn.reason}: the model's layout moves it "
                      "to the new last turn on every request")
            self._site("tool-set", detail, line, structure("the position of the last turn", turn))

    def _tool_filters(self, node: nodes.Node, line: int) -> None:
        """Filters, sorts and slices of the tool list by request data, wherever they are
        written (a render, or a `set` whose value is rendered later)."""
        for f in [node] + list(node.find_all(nodes.Filter)):
            if not isinstance(f, nodes.Filter):
                continue
            args = strongest(self._args(f))
            if f.name in RANDOM_FILTERS:
                self._site("tool-set", f"the tool list is shuffled (`|{f.name}`)", line, replace(args, kind=RANDOM))
            elif f.name in ("sort", "dictsort") and args.volatile:
                self._site("tool-set", f"the tool list is reordered by {args.reason} (`|{f.name}`)", line, args)
            elif f.name in ("selectattr", "rejectattr", "select", "reject", "batch", "slice") and args.volatile:
                self._site("tool-set", f"the tool list is filtered by {args.reason} (`|{f.name}`)", line, args)
        for g in [node] + list(node.find_all(nodes.Getitem)):
            if isinstance(g, nodes.Getitem) and isinstance(g.arg, nodes.Slice) and self._mentions_tools(g.node):
                bounds = strongest(self.expr(b) for b in (g.arg.start, g.arg.stop, g.arg.step))
                if bounds.volatile:
                    self._site("tool-set", f"the tool list is cut by {bounds.reason}", line, bounds)

    def _reasoning_branch(self, node: nodes.If) -> None:
        """``{% if loop.index0 > ns.last_query_index %}<think>...`` keeps the reasoning of
        some assistant turns only: earlier turns render without it."""
        if not self.chat or not self.loops:
            return
        branches = [(node.test, node.body)] + [(e.test, e.body) for e in node.elif_]
        positional = [t for t, _ in branches if _position_test(t)]
        hit = next((t for t, b in branches if _position_test(t) and _renders_reasoning(b)), None)
        if hit is None and positional and _renders_reasoning(node.else_):
            hit = positional[0]
        if hit is not None:
            detail = f"reasoning renders only for some assistant turns (`if {expr_source(hit)}`)"
            self._site("reasoning-history", detail, hit.lineno or node.lineno, CONSTANT)

    def _last_turn_branch(self, node: nodes.If) -> None:
        """``{% if loop.last %}{{ system_message }}...``: text from outside the conversation
        rendered only at the last turn moves to the new last turn on every request."""
        if not self.chat or not self.loops or self.loops[-1].kind != PAYLOAD:
            return
        depth = self.loop_scopes[-1]
        for test, body in [(node.test, node.body)] + [(e.test, e.body) for e in node.elif_]:
            if not last_turn_test(test):
                continue
            for name in _rendered_names(body):
                if name in self.tool_names:
                    continue  # PC403 reports a tool list that moves
                where = next((i for i in range(len(self.scopes) - 1, -1, -1) if name in self.scopes[i]), None)
                if where is not None and where < depth:
                    detail = f"`{name}` renders only at the last turn (`if {expr_source(test)}`)"
                    self._site("last-turn", detail, test.lineno or node.lineno, self.scopes[where][name])
                    return

    def _blank_reasoning(self, text: str, line: int) -> None:
        if text and "</think>" in text and _BLANK_THINK.search(text) and any(t.kind == PAYLOAD for t in self.loops):
            self._site("reasoning-blank", "earlier assistant turns render an empty `<think></think>` block", line, CONSTANT)

