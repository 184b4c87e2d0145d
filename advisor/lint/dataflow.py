"""The dataflow half of the walker: names, scopes and the taint of every expression.

A value is followed from where it is produced to where it renders: through ``set``, loop
variables, namespace attributes, filters, calls and macro arguments. The statements that
bind names and emit segments are the walker's (advisor.lint.walker).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable

from jinja2 import nodes

from advisor.lint.conversation import (
    APPLICATION_INPUTS, CONVERSATION, TOOL_NAMES, ChatSites, compared, conversation, field, filtered, item, mentions_arguments,
    reasoning_cut, splits_reasoning,
)
from advisor.lint.layout import Section, Segment, Settings, Site
from advisor.lint.locate import Locator
from advisor.lint.syntax import ITERATING_FILTERS, expr_source, macro_key, set_like, shown_literal
from advisor.lint.taint import (
    BUILTIN_NAMES, CLOCK, CLOCK_CALLS, CLOCK_NAMES, CONSTANT, DATE, DATE_NAMES, KWARG, PAYLOAD, RANDOM, RANDOM_CALLS,
    RANDOM_FILTERS, RANDOM_NAMES, REQUEST, Taint, date_only, strongest,
)


Span = tuple[int, int, int, int, str]
# Includes, imports and macro calls are followed this deep (a template that includes itself
# or a recursive macro would otherwise never end).
MAX_INLINE_DEPTH = 6
# Statements walked in place per template: macros calling macros many times each would
# otherwise multiply without bound; past the budget a call is judged by its summary taint.
MAX_INLINE_COST = 20_000
# Names a template tests with `is defined` that the renderer provides, not the caller.
PROVIDED = CLOCK_CALLS | RANDOM_CALLS | frozenset({"raise_exception", "strftime_now"})
Resolver = Callable[[str], "tuple[str, nodes.Template] | None"]


def plain(taint: Taint) -> Taint:
    """A value computed from a conversation value (a comparison, a sum) is not itself one."""
    return replace(taint, shape="") if taint.shape else taint


class Dataflow(ChatSites):
    def __init__(self, loc: Locator, settings: Settings, chat: bool = False, resolve: Resolver | None = None):
        self.loc = loc
        self.settings = settings
        self.chat = chat
        self.resolve = resolve
        self.segments: list[Segment] = []
        self.unstable: list[Site] = []
        self.unsafe: list[Site] = []
        self.blocks: list[Section] = []
        self.scopes: list[dict[str, Taint]] = [{}]
        self.guards: list[Taint] = []
        self.macros: dict[str, Taint] = {}
        self.macro_defs: dict[str, tuple[nodes.Macro, str]] = {}
        # While a macro body, a caller() body or an included file is walked in place, every
        # segment it renders sits at the tag that renders it (the rendering line).
        self.override: list[Span] = []
        self.inlined: set[int] = set()
        self.active: list[str] = []  # macros and files being walked in place (recursion guard)
        self.inline_cost = 0
        # Expressions whose value is only iterated (a loop's iterable, the operand of a filter
        # that consumes an iterable): there a sorted list means what `.items()` meant.
        self.iterated: set[int] = set()
        self.callers: list[list[nodes.Node]] = []
        self.file = ""  # the included/imported file being walked ("" = the template itself)
        self.chat_sites: list[Site] = []
        self.loops: list[Taint] = []  # iterable taints of the enclosing for loops
        self.loop_scopes: list[int] = []  # index in self.scopes of each enclosing loop's scope
        self.tool_names: set[str] = set(TOOL_NAMES)
        self.tool_loops = 0  # depth of loops over the tool list
        self.arguments_checked = 0  # inside an `if ... arguments is string` (either branch)
        self.last_turn_guards = 0  # enclosing branches that single out the last turn (`if loop.last`)
        self.switches = 0  # inside a branch's test: a chat template's caller kwargs are switches
        # The tag being walked: sites found inside an expression point at its tag.
        self._expr_line = 0
        self._cur_span: tuple[int, int, int, int] | None = None

    def taint(self, kind: str, reason: str, line: int, **extra: str) -> Taint:
        return Taint(kind, reason, line, self.file, **extra)

    # names ------------------------------------------------------------------
    def bind(self, name: str, taint: Taint) -> None:
        scope = self.scopes[-1]
        # A name set in several branches keeps the strongest reason it may vary.
        old = scope.get(name)
        scope[name] = taint if old is None or taint.rank > old.rank else old

    def bind_attr(self, name: str, attr: str, taint: Taint, what: str = "namespace attribute") -> None:
        """A namespace attribute lives where its namespace was made: loops assign into it."""
        key = f"{name}.{attr}"
        target = self.scopes[-1]
        for scope in reversed(self.scopes):
            if name in scope:
                target = scope
                break
        if taint.volatile and not taint.via:
            taint = replace(taint, via=f"{what} `{key}`")
        old = target.get(key)
        target[key] = taint if old is None or taint.rank > old.rank else old

    def bound(self, name: str) -> Taint | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def lookup(self, name: str, line: int) -> Taint:
        found = self.bound(name)
        if found is not None:
            return found
        if name in self.settings.static_variables or name in BUILTIN_NAMES:
            return CONSTANT
        if self.chat and name == CONVERSATION:
            return conversation(line, self.file)
        if self.chat and name in APPLICATION_INPUTS:
            return self.taint(PAYLOAD, APPLICATION_INPUTS[name], line)
        if name in CLOCK_NAMES:
            return self.taint(CLOCK, f"the clock value `{name}`", line)
        if name in DATE_NAMES:
            return self.taint(DATE, f"the date value `{name}`", line)
        if name in RANDOM_NAMES:
            return self.taint(RANDOM, f"the per-request unique value `{name}`", line)
        if self.chat and self.switches:
            # Only tested (`{% if enable_thinking %}`): a switch the serving stack sets.
            return self.taint(KWARG, f"the caller kwarg `{name}` (a switch)", line, kwarg=name)
        if self.chat:
            return self.taint(REQUEST, f"the caller kwarg `{name}`", line, kwarg=name)
        return self.taint(REQUEST, f"the per-request variable `{name}`", line)

    def test(self, node: nodes.Node | None) -> Taint:
        """The taint of a branch's test: in a chat template a caller kwarg it reads is a switch."""
        self.switches += 1
        try:
            return self.expr(node)
        finally:
            self.switches -= 1

    @property
    def guard(self) -> Taint:
        return strongest(self.guards)

    # expressions ------------------------------------------------------------
    def expr(self, node: nodes.Node | None) -> Taint:
        if node is None:
            return CONSTANT
        line = getattr(node, "lineno", 0) or self._expr_line
        if isinstance(node, (nodes.Const, nodes.TemplateData)):
            return CONSTANT
        if isinstance(node, nodes.Name):
            return self.lookup(node.name, line)
        if isinstance(node, nodes.Getattr):
            # `.items()` and friends are judged at the call (see _call).
            self._check_attr(node.attr, node)
            if isinstance(node.node, nodes.Name):
                attr = self.bound(f"{node.node.name}.{node.attr}")
                if attr is not None:
                    return attr
            base = self.expr(node.node)
            return field(base, node.attr, expr_source(node)) or base
        if isinstance(node, nodes.Getitem):
            if isinstance(node.arg, nodes.Const) and isinstance(node.arg.value, str):
                self._check_attr(node.arg.value, node)
            cut = reasoning_cut(node)
            if cut:
                self._site("reasoning-split", f"`{cut}` keeps only the answer of a turn", line, CONSTANT)
            base, index = self.expr(node.node), self.expr(node.arg)
            return strongest((item(base, node.arg, expr_source(node)) or base, index))
        if isinstance(node, nodes.Call):
            return self._call(node, line)
        if isinstance(node, nodes.Filter):
            return self._filter(node, line)
        if isinstance(node, nodes.Test) and node.name in ("defined", "undefined") and isinstance(node.node, nodes.Name):
            if node.node.name in PROVIDED:
                return CONSTANT  # whether the renderer offers strftime_now is fixed per deployment
        if isinstance(node, nodes.CondExpr):
            return strongest((self.test(node.test), self.expr(node.expr1), self.expr(node.expr2)))
        if isinstance(node, nodes.Compare):
            sides = [self.expr(node.expr)] + [self.expr(o.expr) for o in node.ops]
            return compared(sides) or plain(strongest(sides))
        return plain(strongest(self.expr(child) for child in node.iter_child_nodes()))

    def _args(self, node: nodes.Call | nodes.Filter | nodes.Test) -> list[Taint]:
        out = [self.expr(a) for a in node.args]
        out += [self.expr(k.value) for k in node.kwargs]
        out += [self.expr(node.dyn_args), self.expr(node.dyn_kwargs)]
        return out

    def _call(self, node: nodes.Call, line: int) -> Taint:
        func = node.node
        fname = func.name if isinstance(func, nodes.Name) else func.attr if isinstance(func, nodes.Getattr) else ""
        key = macro_key(func)
        if key in self.macros:
            return strongest([self.macros[key]] + self._args(node))
        args = self._args(node)
        fmt = node.args[0].value if node.args and isinstance(node.args[0], nodes.Const) and isinstance(node.args[0].value, str) else None
        if fname in RANDOM_CALLS:
            self.expr(func)
            return self.taint(RANDOM, f"the random call `{fname}()`", line)
        if fname in CLOCK_CALLS and not isinstance(func, nodes.Getattr) or fname in ("now", "utcnow", "today", "strftime_now"):
            self.expr(func)
            if fmt is not None and date_only(fmt):
                return self.taint(DATE, f'the date call `{fname}("{fmt}")`', line)
            return self.taint(CLOCK, f"the clock call `{fname}()`", line)
        if fname == "strftime" and isinstance(func, nodes.Getattr):
            base = self.expr(func.node)
            if base.kind == CLOCK and fmt is not None and date_only(fmt):
                return replace(base, kind=DATE, reason=f'{base.reason} formatted as a date ("{fmt}")')
            return strongest([base] + args)
        if fname == "namespace" and isinstance(func, nodes.Name):
            return strongest(args)
        base = self.expr(func)
        if fname in ("items", "keys", "values") and isinstance(func, nodes.Getattr):
            # Fixable only where the result is iterated: printed, tested, indexed or measured,
            # a sorted list would not be the view it replaces (nor parse where `[0]` follows).
            fixable = fname if id(node) in self.iterated else ""
            self._unstable(node, f"`.{fname}()` of {base.reason or 'a mapping'}", base, line, fixable=fixable)
        return strongest([base] + args)

    def _filter(self, node: nodes.Filter, line: int) -> Taint:
        constant_args = bool(node.args) and all(isinstance(a, nodes.Const) for a in node.args)
        if node.name in ("default", "d") and isinstance(node.node, nodes.Name) and constant_args:
            name = node.node.name
            if self.bound(name) is None and name not in self.settings.static_variables and name not in BUILTIN_NAMES:
                return self._kwarg(name, node.args[0].value, line)  # type: ignore[attr-defined]
        if node.name in ITERATING_FILTERS and node.node is not None:
            self.iterated.add(id(node.node))
        base = self.expr(node.node)
        args = self._args(node)
        if node.name == "tojson" and self.chat and not self.arguments_checked and node.node is not None and mentions_arguments(node.node):
            if any(t.kind == PAYLOAD for t in self.loops):
                self._site("tool-call-json", "`arguments | tojson` re-serializes each tool call of the history", line, CONSTANT)
        if node.name == "last" and node.node is not None and splits_reasoning(node.node):
            self._site("reasoning-split", "`.split('</think>') | last` keeps only the answer of a turn", line, CONSTANT)
        if node.name in RANDOM_FILTERS:
            return self.taint(RANDOM, f"the random filter `|{node.name}`", line)
        if node.name == "unique":
            self._unstable(node, "`|unique` (its output order follows the input's duplicates)", base, line, always=True)
        elif node.name in ("list", "join", "first", "last") and isinstance(node.node, nodes.Name) and set_like(node.node.name):
            fixable = f"|{node.name}:{node.node.name}" if node.name in ("list", "join") else ""
            self._unstable(node, f"`|{node.name}` of the set-like `{node.node.name}`", base, line, always=True, fixable=fixable)
        where = f"{expr_source(node.node)} | {node.name}" if node.node is not None else node.name
        return strongest([filtered(base, node, where) or base] + args)

    def _kwarg(self, name: str, default: object, line: int) -> Taint:
        shown = shown_literal(default)
        return self.taint(KWARG, f"the caller kwarg `{name}` (constant default {shown})", line, kwarg=name)

    def _unstable(self, node: nodes.Node, detail: str, base: Taint, line: int, always: bool = False, fixable: str = "") -> None:
        if not (always or base.volatile):
            return
        l, c, el, ec = self._here(line)
        self.unstable.append(Site("unstable", detail, l, c, el, ec, base, len(self.segments), fixable if not self.override else ""))

    def _check_attr(self, attr: str, node: nodes.Node) -> None:
        if self.active:
            return  # a body walked in place again: reported where it was first walked
        if attr.startswith("_") or attr in ("mro", "func_globals", "f_globals", "gi_frame", "cr_frame"):
            l, c, el, ec = self._here(getattr(node, "lineno", 0) or self._expr_line)
            self.unsafe.append(Site("unsafe", attr, l, c, el, ec, CONSTANT, len(self.segments)))

    def _here(self, line: int) -> tuple[int, int, int, int]:
        if self.override:
            l, c, el, ec, _ = self.override[-1]
            return l, c, el, ec
        cur = self._cur_span
        if cur and cur[0] <= line <= cur[2]:
            return cur
        l, c, el, ec, _ = self.loc.span(None, line)
        return l, c, el, ec

