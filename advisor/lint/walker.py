"""The walker: a template's statements in rendered order, into segments and sites.

Outputs, loops, branches, assignments, macros (rendered in place at each call), includes and
imports; the taint of each expression comes from the dataflow (advisor.lint.dataflow).
"""

from __future__ import annotations

from dataclasses import replace

from jinja2 import nodes

from advisor.lint.conversation import last_turn_test, loop_over, mentions_reasoning, tests_arguments_type
from advisor.lint.dataflow import MAX_INLINE_COST, MAX_INLINE_DEPTH, PROVIDED, Dataflow, Span
from advisor.lint.layout import Section, Segment, normalise_section
from advisor.lint.syntax import is_name, literals, macro_key, renders, short, target_names
from advisor.lint.taint import CONSTANT, MESSAGES, PAYLOAD, REQUEST, Taint, strongest


class Walker(Dataflow):
    # statements -------------------------------------------------------------
    def emit(self, seg: Segment) -> int:
        if self.override:
            l, c, el, ec, _ = self.override[-1]
            seg = replace(seg, line=l, column=c, end_line=el, end_column=ec)
            self.inlined.add(len(self.segments))
        self.segments.append(seg)
        return len(self.segments) - 1

    def body(self, stmts: list[nodes.Node]) -> None:
        for stmt in stmts:
            self.stmt(stmt)

    def stmt(self, node: nodes.Node) -> None:
        if self.override:
            self.inline_cost += 1
        method = getattr(self, "_stmt_" + type(node).__name__, None)
        if method is not None:
            method(node)
        else:
            for child in node.iter_child_nodes():
                if isinstance(child, nodes.Stmt):
                    self.stmt(child)
                elif isinstance(child, nodes.Expr):
                    self.expr(child)

    def _place_output(self, lineno: int) -> Span:
        if self.override:
            return self.override[-1]
        idx = self.loc.tag("{{", lineno)
        return self.loc.span(idx, lineno)

    def _stmt_Output(self, node: nodes.Output) -> None:
        for child in node.nodes:
            if isinstance(child, nodes.TemplateData):
                if not child.data:
                    continue
                if self.override:
                    l, c, el, ec, _ = self.override[-1]
                else:
                    l, c, el, ec = self.loc.data(child.lineno, child.data)
                self.emit(Segment("static", "text", child.data, l, c, el, ec, CONSTANT, self.guard))
                self._blank_reasoning(child.data, child.lineno)
                continue
            span = self._place_output(child.lineno)
            l, c, el, ec, src = span
            self._cur_span = (l, c, el, ec)
            self._expr_line = child.lineno
            if isinstance(child, nodes.Const):
                self.emit(Segment("static", "text", str(child.value), l, c, el, ec, CONSTANT, self.guard))
                continue
            if isinstance(child, nodes.Call) and self._inline_call(child, span):
                continue
            if self.chat and any(t.kind == PAYLOAD for t in self.loops) and mentions_reasoning(child):
                self._site("reasoning-kept", "an assistant turn renders its reasoning", child.lineno, CONSTANT)
            taint = self.expr(child)
            if self._mentions_tools(child) and not self.tool_loops:
                self._tool_site(child, child.lineno)
            construct = "call" if isinstance(child, nodes.Call) else "output"
            parts = list(literals(child)) if isinstance(child, (nodes.Add, nodes.Concat)) else []
            literal = "".join(parts)
            for part in parts:
                self._blank_reasoning(part, child.lineno)
            self.emit(Segment("dynamic", construct, src, l, c, el, ec, taint, self.guard, literal=literal))

    # walking bodies in place: macros, caller(), includes ------------------------------
    def _in_place(self, span: Span, key: str, file: str, scope: dict[str, Taint], body: list[nodes.Node]) -> None:
        self.override.append(span)
        self.active.append(key)
        self.scopes.append(scope)
        saved_file, self.file = self.file, file
        try:
            self.body(body)
        finally:
            self.file = saved_file
            self.scopes.pop()
            self.active.pop()
            self.override.pop()

    def _inline_call(self, call: nodes.Call, span: Span, caller: list[nodes.Node] | None = None) -> bool:
        """Render a macro (or caller()) at its call: the value of each argument flows into
        the body, and the body's own text counts as text at the call."""
        func = call.node
        if self.inline_cost > MAX_INLINE_COST:
            return False
        if isinstance(func, nodes.Name) and func.name == "caller" and self.callers and caller is None:
            body = self.callers.pop()
            try:
                self._in_place(span, "caller()", self.file, {}, body)
            finally:
                self.callers.append(body)
            return True
        key = macro_key(func)
        found = self.macro_defs.get(key)
        if found is None or key in self.active or len(self.active) >= MAX_INLINE_DEPTH:
            return False
        macro, file = found
        scope: dict[str, Taint] = {}
        first_default = len(macro.args) - len(macro.defaults)
        kwargs = {k.key: k.value for k in call.kwargs}
        for i, arg in enumerate(macro.args):
            if i < len(call.args):
                value: nodes.Node | None = call.args[i]
            elif arg.name in kwargs:
                value = kwargs[arg.name]
            else:
                value = macro.defaults[i - first_default] if i >= first_default else None
            taint = self.expr(value)
            if taint.volatile and not taint.via:
                taint = replace(taint, via=f"macro argument `{arg.name}` of `{key}()`")
            scope[arg.name] = taint
            if value is not None and self._mentions_tools(value):
                self.tool_names.add(arg.name)
        rest = [self.expr(a) for a in call.args[len(macro.args):]] + [self.expr(call.dyn_args), self.expr(call.dyn_kwargs)]
        scope["varargs"] = strongest(rest)
        scope["kwargs"] = strongest([self.expr(v) for k, v in kwargs.items() if k not in scope])
        if caller is not None:
            self.callers.append(caller)
        try:
            self._in_place(span, key, file, scope, macro.body)
        finally:
            if caller is not None:
                self.callers.pop()
        return True

    def _control(self, node: nodes.Node, keywords: tuple[str, ...]) -> tuple[int | None, Span]:
        if self.override:
            self._expr_line = node.lineno
            return None, self.override[-1]
        idx = self.loc.tag("{%", node.lineno, keywords)
        span = self.loc.span(idx, node.lineno, through_end=True)
        self._cur_span = span[:4]
        self._expr_line = node.lineno
        return idx, span

    def _stmt_For(self, node: nodes.For) -> None:
        _, (l, c, el, ec, src) = self._control(node, ("for",))
        self.iterated.add(id(node.iter))
        iter_taint = self.expr(node.iter)
        item_taint, loop_taint = iter_taint, None
        turns = loop_over(iter_taint) if self.chat else None
        if turns is not None:
            # The turns of a conversation: each item is a message; `loop` tells where it sits.
            item_taint, loop_taint = turns
        if iter_taint.volatile and iter_taint.kind == REQUEST:
            over = iter_taint.reason.replace("the per-request variable", "the per-request")
            iter_taint = replace(iter_taint, reason=f"a loop over {over}")
            item_taint = replace(item_taint, reason=iter_taint.reason)
        elif iter_taint.timed and isinstance(node.iter, (nodes.List, nodes.Tuple)):
            # A literal list has a fixed length: only its items vary, and they are found
            # where the loop variable renders.
            item_taint = replace(iter_taint, via=iter_taint.via or f"loop variable `{', '.join(target_names(node.target))}`")
            iter_taint = CONSTANT
        seg_index = self.emit(Segment("dynamic", "for", src, l, c, el, ec, iter_taint, self.guard))
        over_tools = self._mentions_tools(node.iter)
        if over_tools:
            self._tool_site(node.iter, node.lineno)
        self.scopes.append({})
        for name in target_names(node.target):
            self.bind(name, item_taint)
        self.bind("loop", loop_taint or iter_taint)
        self.test(node.test)
        # The body repeats once per item: its text is only shared when the items are.
        self.guards.append(iter_taint)
        self.loops.append(iter_taint)
        self.loop_scopes.append(len(self.scopes) - 1)
        self.tool_loops += over_tools
        try:
            self.body(node.body)
            self.body(node.else_)
        finally:
            self.tool_loops -= over_tools
            self.loop_scopes.pop()
            self.loops.pop()
        self.guards.pop()
        self.scopes.pop()
        self._close(seg_index, renders(node))

    def _close(self, seg_index: int, has_output: bool) -> None:
        if seg_index >= 0:
            self.segments[seg_index] = replace(self.segments[seg_index], end_index=len(self.segments), has_output=has_output)

    def _default_target(self, node: nodes.If) -> str | None:
        """``{% if not x is defined %}{% set x = ... %}{% endif %}``: x is a caller kwarg."""
        test = node.test
        if node.elif_ or node.else_:
            return None
        if isinstance(test, nodes.Not) and isinstance(test.node, nodes.Test) and test.node.name == "defined":
            inner = test.node.node
        elif isinstance(test, nodes.Test) and test.name == "undefined":
            inner = test.node
        else:
            return None
        if not isinstance(inner, nodes.Name):
            return None
        name = inner.name
        if self.bound(name) is not None or name in self.settings.static_variables or name in PROVIDED:
            return None
        return name

    def _stmt_If(self, node: nodes.If) -> None:
        _, (l, c, el, ec, src) = self._control(node, ("if", "elif"))
        kwarg = self._default_target(node)
        if kwarg is not None:
            self._kwarg_default(node, kwarg, (l, c, el, ec, src))
            return
        tests = [self.test(node.test)] + [self.test(e.test) for e in node.elif_]
        test = strongest(tests)
        self._reasoning_branch(node)
        self._last_turn_branch(node)
        if self.tool_loops and test.volatile and renders(node):
            self._site("tool-set", f"the tool list is filtered by {test.reason} (`{short(src)}`)", node.lineno, test)
        seg_index = self.emit(Segment("dynamic", "if", src, l, c, el, ec, test, self.guard))
        branch_tests = [node.test] + [e.test for e in node.elif_]
        checks = any(tests_arguments_type(t) for t in branch_tests)
        last_turn = self.chat and any(t.shape == MESSAGES for t in self.loops) and any(last_turn_test(t) for t in branch_tests)
        self.arguments_checked += checks
        self.last_turn_guards += last_turn
        self.guards.append(test)
        self.body(node.body)
        for branch in node.elif_:
            if not self.override:
                self.loc.tag("{%", branch.lineno, ("elif",))
            self.body(branch.body)
        self.body(node.else_)
        self.guards.pop()
        self.last_turn_guards -= last_turn
        self.arguments_checked -= checks
        self._close(seg_index, renders(node))

    def _kwarg_default(self, node: nodes.If, name: str, span: Span) -> None:
        l, c, el, ec, src = span
        seg_index = self.emit(Segment("dynamic", "if", src, l, c, el, ec, CONSTANT, self.guard))
        self.body(node.body)
        self._close(seg_index, renders(node))
        got = self.bound(name)
        if got is None:
            return
        if got.volatile:
            # The default itself varies (strftime_now): passing the kwarg would pin it.
            self.scopes[-1][name] = replace(got, kwarg=name)
            return
        default = next((a.node for a in node.find_all(nodes.Assign) if isinstance(a.target, nodes.Name) and a.target.name == name), None)
        value = default.value if isinstance(default, nodes.Const) else "(an expression)"
        self.scopes[-1][name] = self._kwarg(name, value, getattr(default, "lineno", node.lineno))

    def _stmt_Assign(self, node: nodes.Assign) -> None:
        self._control(node, ("set",))
        got, guard = self.expr(node.node), self.guard
        # `{% set loop_messages = messages[1:] %}` under `{% if messages[0].role == 'system' %}`
        # stays the conversation: a steady branch does not make it something else.
        taint = got if got.shape and not guard.volatile else strongest((got, guard))
        target = node.target
        if isinstance(target, nodes.NSRef):
            self.bind_attr(target.name, target.attr, taint)
            return
        if self._mentions_tools(node.node):
            self._tool_filters(node.node, node.lineno)
        for name in target_names(target):
            self.bind(name, taint)
            if self._mentions_tools(node.node):
                self.tool_names.add(name)
        value = node.node
        if isinstance(target, nodes.Name) and isinstance(value, nodes.Call) and is_name(value.node, "namespace"):
            for kw in value.kwargs:
                self.bind_attr(target.name, kw.key, strongest((self.expr(kw.value), self.guard)))
        if isinstance(target, nodes.Name) and isinstance(value, nodes.Dict):
            # `meta.who` of `{"when": now(), "who": "bot"}` is as constant as "bot"
            for pair in value.items:
                if isinstance(pair.key, nodes.Const) and isinstance(pair.key.value, str):
                    self.bind_attr(target.name, pair.key.value, strongest((self.expr(pair.value), self.guard)), "dict key")

    def _stmt_AssignBlock(self, node: nodes.AssignBlock) -> None:
        self._control(node, ("set",))
        taint = self._captured(node.body)
        if isinstance(node.target, nodes.NSRef):
            self.bind_attr(node.target.name, node.target.attr, strongest((taint, self.guard)))
            return
        for name in target_names(node.target):
            self.bind(name, strongest((taint, self.guard)))

    def _captured(self, body: list[nodes.Node]) -> Taint:
        """Walk a body that renders elsewhere; return the strongest taint of its output."""
        mark, sites = len(self.segments), len(self.unstable)
        self.body(body)
        inner = self.segments[mark:]
        del self.segments[mark:]
        self.inlined = {i for i in self.inlined if i < mark}
        # Ordering inside a body rendered elsewhere has no place in this order; private
        # attribute access (self.unsafe) is reported wherever it is.
        del self.unstable[sites:]
        return strongest(s.effective for s in inner if s.kind == "dynamic")

    def _stmt_Macro(self, node: nodes.Macro) -> None:
        self._control(node, ("macro",))
        self._define(node, node.name)

    def _define(self, node: nodes.Macro, key: str) -> None:
        # A macro that calls itself (json_to_python_type in Command R) is known in its own body.
        self.macros.setdefault(key, CONSTANT)
        self.scopes.append({a.name: CONSTANT for a in node.args})
        # Arguments are judged at each call; the body's own clock or random use is not.
        self.macros[key] = self._captured(node.body)
        self.scopes.pop()
        self.macro_defs[key] = (node, self.file)

    def _stmt_CallBlock(self, node: nodes.CallBlock) -> None:
        idx, span = self._control(node, ("call",))
        l, c, el, ec, src = span
        self.scopes.append({a.name: CONSTANT for a in node.args})
        body_taint = self._captured(node.body)
        self.scopes.pop()
        if isinstance(node.call, nodes.Call) and self._inline_call(node.call, span, caller=node.body):
            return
        taint = strongest((self.expr(node.call), body_taint))
        self.emit(Segment("dynamic", "call", src, l, c, el, ec, taint, self.guard))

    def _stmt_FilterBlock(self, node: nodes.FilterBlock) -> None:
        _, (l, c, el, ec, src) = self._control(node, ("filter",))
        taint = strongest((self.expr(node.filter), self._captured(node.body)))
        self.emit(Segment("dynamic", "call", src, l, c, el, ec, taint, self.guard))

    def _stmt_Block(self, node: nodes.Block) -> None:
        idx, (l, c, *_rest) = self._control(node, ("block",))
        if not self.override:
            self.blocks.append(Section(normalise_section(node.name), node.name, l, c, "block"))
        self.body(node.body)

    def _load(self, template: nodes.Node) -> tuple[str, nodes.Template] | None:
        if self.resolve is None or not isinstance(template, nodes.Const) or not isinstance(template.value, str):
            return None
        if template.value in self.active or len(self.active) >= MAX_INLINE_DEPTH or self.inline_cost > MAX_INLINE_COST:
            return None
        return self.resolve(template.value)

    def _stmt_Include(self, node: nodes.Include) -> None:
        _, span = self._control(node, ("include",))
        l, c, el, ec, src = span
        loaded = self._load(node.template)
        if loaded is not None:
            name, ast = loaded
            self._in_place(span, str(node.template.value), name, {}, ast.body)  # type: ignore[attr-defined]
            return
        taint = self.expr(node.template)
        self.emit(Segment("dynamic", "include", src, l, c, el, ec, taint, self.guard))

    def _stmt_Extends(self, node: nodes.Extends) -> None:
        self._stmt_Include(node)  # type: ignore[arg-type]

    def _imported_macros(self, node: nodes.Import | nodes.FromImport, span: Span) -> dict[str, nodes.Macro] | None:
        loaded = self._load(node.template)
        if loaded is None:
            return None
        name, ast = loaded
        found = {m.name: m for m in ast.body if isinstance(m, nodes.Macro)}
        self.override.append(span)
        saved, self.file = self.file, name
        self._imported_file = name
        try:
            for key, macro in found.items():
                self._define(macro, f"\x00{name}\x00{key}")
        finally:
            self.file = saved
            self.override.pop()
        return found

    def _alias(self, name: str, key: str, file: str) -> None:
        src = f"\x00{file}\x00{name}"
        self.macros[key] = self.macros.pop(src)
        self.macro_defs[key] = self.macro_defs.pop(src)

    def _stmt_Import(self, node: nodes.Import) -> None:
        _, span = self._control(node, ("import",))
        found = self._imported_macros(node, span)
        self.bind(node.target, CONSTANT)
        for name in found or ():
            self._alias(name, f"{node.target}.{name}", self._imported_file)

    def _stmt_FromImport(self, node: nodes.FromImport) -> None:
        _, span = self._control(node, ("from",))
        found = self._imported_macros(node, span) or {}
        for item in node.names:
            name, alias = item if isinstance(item, tuple) else (item, item)
            self.bind(alias, CONSTANT)
            if name in found:
                self._alias(name, alias, self._imported_file)

    def _stmt_With(self, node: nodes.With) -> None:
        self._control(node, ("with",))
        self.scopes.append({})
        for target, value in zip(node.targets, node.values, strict=False):
            for name in target_names(target):
                self.bind(name, self.expr(value))
        self.body(node.body)
        self.scopes.pop()

    def _stmt_Scope(self, node: nodes.Scope) -> None:
        self.body(node.body)

    def _stmt_ScopedEvalContextModifier(self, node: nodes.ScopedEvalContextModifier) -> None:
        self.body(node.body)

