"""Statements, functions and the module: the dataflow walk over Python's own ``ast``.

The module's top level runs first, in order (its functions and classes bound before it
starts, as a call further down would see them). Then every function is evaluated on its own,
its parameters standing for per-request data, and calls into the module's own functions are
followed with the values they are given. Branches and loops are walked once each: what a name
holds after them is the join of the paths (values.join), with the condition or loop that made
the difference. Nothing is imported or executed.
"""

from __future__ import annotations

import ast

import advisor.lint.python.prompts as prompts
import advisor.lint.python.tables as tables
from advisor.lint.python.calls import Calls
import advisor.lint.python.state as state
from advisor.lint.python.state import ClassInfo, Frame, Stop
from advisor.lint.python.values import (
    NOTHING, Loc, REQUEST, STEADY, Func, Guard, Instance, Opaque, Seq, Splat, Taint, Text, Value, join, strongest, taint_of,
)


class Walker(Calls):
    stopped: tuple[int, str] | None = None  # where the analysis stopped early, and why

    def analyze(self) -> None:
        """Analyze the module. When its step budget is spent (or a construct is nested too
        deeply for the evaluator), what was found so far stands and ``stopped`` says where."""
        try:
            self._analyze()
        except Stop as stop:
            self.stopped = (stop.line, f"its budget of {state.HARD_STOP:,} steps was spent")
        except RecursionError:
            self.stopped = (self.line, "an expression there is nested too deeply to follow")

    def _analyze(self) -> None:
        self._hoist(self.tree.body)
        self.walk(self.tree.body)
        relevant = self.survey.relevant
        owners = {id(m.node): m.owner for info in self.classes.values() for m in info.methods.values()}
        for fnode in self.survey.functions:
            # A function the module calls is judged where it is called, with the values it
            # is given; the others (handlers, entry points, an API) with per-request parameters.
            if id(fnode) in relevant and id(fnode) not in self.survey.called:
                self.standalone(fnode, owners.get(id(fnode), ""))

    def _hoist(self, body: list[ast.stmt]) -> None:
        for stmt in body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.globals[stmt.name] = Func(stmt)
            elif isinstance(stmt, ast.ClassDef):
                methods = {m.name: Func(m, stmt.name) for m in stmt.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))}
                self.classes[stmt.name] = ClassInfo(stmt, methods)

    # --- functions --------------------------------------------------------------------------------

    def standalone(self, fnode: ast.FunctionDef | ast.AsyncFunctionDef, owner: str) -> None:
        """A function on its own: its parameters are per-request data (except the
        application's: clients, settings, the tool list, the system prompt)."""
        frame = Frame(func=fnode.name, owner=owner)
        spec = fnode.args
        params = [*spec.posonlyargs, *spec.args, *spec.kwonlyargs]
        for i, p in enumerate(params):
            frame.env[p.arg] = self._parameter(p, fnode, owner, i)
        if spec.vararg is not None:
            taint = Taint(REQUEST, f"the arguments `*{spec.vararg.arg}` of `{fnode.name}()`", fnode.lineno)
            frame.env[spec.vararg.arg] = Seq(None, Opaque(taint), "tuple", taint)
        if spec.kwarg is not None:
            taint = Taint(REQUEST, f"the keyword arguments `**{spec.kwarg.arg}` of `{fnode.name}()`", fnode.lineno)
            frame.env[spec.kwarg.arg] = Opaque(taint, mapping=taint, str_keys=True, is_mapping=True)
        if self._sgl_function(fnode) and params:
            frame.sgl = Seq([], NOTHING, "sgl")
            frame.env[params[0].arg] = frame.sgl
        returned = self.run(fnode, frame)
        self._function_prompt(fnode, returned, frame)

    def _parameter(self, p: ast.arg, fnode: ast.FunctionDef | ast.AsyncFunctionDef, owner: str, index: int) -> Value:
        name = p.arg
        if index == 0 and owner and name in ("self", "cls"):
            return Instance(owner)
        if fnode.name in ("__init__", "__post_init__") or name in tables.STEADY_PARAMETERS or name in self.static_names \
                or tables.SYSTEM_NAME.search(name):
            return Opaque(Taint(STEADY, f"`{name}`"))
        return self.annotated(Taint(REQUEST, f"the parameter `{name}` of `{fnode.name}()`"), p.annotation)

    def _sgl_function(self, fnode: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
        for dec in fnode.decorator_list:
            target = dec.func if isinstance(dec, ast.Call) else dec
            chain = _dotted(target)
            if chain and ".".join([self.imports.qualify(chain[0]) or chain[0], *chain[1:]]) in tables.SGL_FUNCTION:
                return True
        return False

    def _function_prompt(self, fnode: ast.FunctionDef | ast.AsyncFunctionDef, returned: Value, frame: Frame) -> None:
        """What a function returns is a prompt when its name says so; an SGLang function's
        state is a prompt when it ends."""
        loc, name = self.loc(fnode), fnode.name
        if frame.sgl is not None and frame.sgl.items:
            parts: dict[str, tuple[Value, Loc, str]] = {tables.MESSAGES: (frame.sgl, loc, name)}
            for prompt in prompts.request(parts, f"the SGLang function `{name}`"):
                self.report(prompt)
        if isinstance(returned, Text) and tables.SYSTEM_NAME.search(name.removeprefix("get_").removeprefix("build_").removeprefix("make_")):
            self.report(prompts.text_prompt(returned, loc, name, "the system prompt"))
        elif isinstance(returned, Text) and tables.PROMPT_FUNCTION.search(name) and "user" not in name.lower():
            # A prompt a helper returns may be sent as the last message: only what differs
            # between identical requests (a clock, a random value, an order) is judged here.
            prompt = prompts.text_prompt(returned, loc, name, "the prompt")
            prompt.per_request = False
            self.report(prompt)
        elif isinstance(returned, Seq) and tables.MESSAGES_FUNCTION.search(name):
            for prompt in prompts.request({tables.MESSAGES: (returned, loc, name)}, f"the messages `{name}()` returns"):
                self.report(prompt)

    def run(self, fnode: ast.FunctionDef | ast.AsyncFunctionDef, frame: Frame) -> Value:
        self.frames.append(frame)
        self.calls.append(fnode)
        try:
            self.walk(fnode.body)
        finally:
            self.calls.pop()
            self.frames.pop()
        out: Value = NOTHING
        for value in frame.returns:
            out = join(out, value)
        return out

    def construct(self, info: ClassInfo) -> None:
        """What a class's objects hold: class attributes, then what ``__init__`` sets (its
        arguments are the deployment's settings, not a request's)."""
        for stmt in info.node.body:
            if isinstance(stmt, ast.Assign) and stmt.targets and isinstance(stmt.targets[0], ast.Name):
                info.attrs[stmt.targets[0].id] = self.eval(stmt.value)
            elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
                info.attrs[stmt.target.id] = self.eval(stmt.value)
        for name in ("__init__", "__post_init__"):
            init = info.methods.get(name)
            if init is None or isinstance(init.node, ast.Lambda):
                continue
            frame = Frame(func=name, owner=info.node.name)
            spec = init.node.args
            for i, p in enumerate([*spec.posonlyargs, *spec.args, *spec.kwonlyargs]):
                frame.env[p.arg] = self._parameter(p, init.node, info.node.name, i)
            self.run(init.node, frame)
            info.attrs.update(frame.self_attrs)

    # --- statements -------------------------------------------------------------------------------

    def walk(self, body: list[ast.stmt]) -> None:
        for stmt in body:
            self.line = stmt.lineno
            self.tick()
            handler = getattr(self, "_s_" + type(stmt).__name__, None)
            if handler is not None:
                handler(stmt)

    def _s_Expr(self, node: ast.Expr) -> None:
        self.eval(node.value)

    def _s_Return(self, node: ast.Return) -> None:
        self.frame.returns.append(self.eval(node.value) if node.value is not None else NOTHING)

    def _s_Assign(self, node: ast.Assign) -> None:
        value = self.eval(node.value)
        for target in node.targets:
            self.assign(target, value)
            self._named_prompt(target, value)

    def _s_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            value = self.eval(node.value)
            self.assign(node.target, value)
            self._named_prompt(node.target, value)

    def _s_AugAssign(self, node: ast.AugAssign) -> None:
        value = self.eval(node.value)
        target = node.target
        if not isinstance(target, (ast.Name, ast.Attribute)) or isinstance(target, ast.Attribute) and not _self_attr(target):
            self.eval(target)
            return
        current = self.lookup(target.id) if isinstance(target, ast.Name) else self.self_attr(target.attr)
        if isinstance(node.op, ast.Add) and isinstance(current, Seq):
            item = value if current.kind == "sgl" else Splat(value, self.loc(node.value), self.src(node.value))
            self.grow(current, item, node)
            return
        if isinstance(node.op, ast.Add):
            new = self.add(current, value, target, node.value)
        else:
            new = Opaque(strongest([taint_of(current), taint_of(value)]))
        self.assign(target, new)
        self._named_prompt(target, new)

    def _named_prompt(self, target: ast.expr, value: Value) -> None:
        """A string assigned to a name like SYSTEM_PROMPT is a system prompt, wherever it goes."""
        name = target.id if isinstance(target, ast.Name) else target.attr if isinstance(target, ast.Attribute) else ""
        if name and isinstance(value, Text) and tables.SYSTEM_NAME.search(name):
            self.report(prompts.text_prompt(value, self.loc(target), self.src(target), "the system prompt"))

    def _s_If(self, node: ast.If) -> None:
        self.branch(node.test, [node.body, node.orelse])

    def _s_Match(self, node: ast.Match) -> None:
        self.branch(node.subject, [case.body for case in node.cases] + [[]])

    def branch(self, test: ast.expr, bodies: list[list[ast.stmt]]) -> None:
        taint = taint_of(self.eval(test))
        guard = Guard(taint, self.loc(test), f"the branch on `{_clip(self.src(test))}`", loop=False)
        before = dict(self.frame.env)
        paths = []
        for body in bodies:
            self.reset_env(before)
            self.guards.append(guard)
            try:
                self.walk(body)
            finally:
                self.guards.pop()
            paths.append(dict(self.frame.env))
        self.reset_env(_merge(paths, guard))

    def _s_For(self, node: ast.For | ast.AsyncFor) -> None:
        origin = (node.lineno, node.col_offset)
        it = self.iterate(self.eval(node.iter), node.iter, origin)
        if it.items is not None and self._can_unroll(it.items):
            self.unrolling += 1
            try:
                for item in it.items:
                    self.assign(node.target, item)
                    self.walk(node.body)
            finally:
                self.unrolling -= 1
        else:
            what = f"the loop over `{_clip(self.src(node.iter))}`"
            guard = Guard(it.count, self.loc(node.iter), what, True, (*it.disorder, *self.selected(it, node.iter)), origin)
            self._once(guard, node.target, it.elem, node.body)
        self.walk(node.orelse)

    _s_AsyncFor = _s_For

    def _s_While(self, node: ast.While) -> None:
        taint = taint_of(self.eval(node.test))
        what = f"the loop while `{_clip(self.src(node.test))}`"
        guard = Guard(taint, self.loc(node.test), what, True, (), (node.lineno, node.col_offset))
        self._once(guard, None, NOTHING, node.body)
        self.walk(node.orelse)

    def _once(self, guard: Guard, target: ast.expr | None, elem: Value, body: list[ast.stmt]) -> None:
        """A loop body walked once: after it, each name holds what it held before or after."""
        before = dict(self.frame.env)
        self.guards.append(guard)
        try:
            if target is not None:
                self.assign(target, elem)
            self.walk(body)
        finally:
            self.guards.pop()
        self.reset_env(_merge([before, dict(self.frame.env)], guard))

    def _s_With(self, node: ast.With | ast.AsyncWith) -> None:
        for item in node.items:
            value = self.eval(item.context_expr)
            if item.optional_vars is not None:
                self.assign(item.optional_vars, Opaque(taint_of(value)))
        self.walk(node.body)

    _s_AsyncWith = _s_With

    def _s_Try(self, node: ast.Try) -> None:
        self.walk(node.body)
        for handler in node.handlers:
            if handler.name:
                self.bind(handler.name, Opaque(Taint(STEADY)))
            self.walk(handler.body)
        self.walk(node.orelse)
        self.walk(node.finalbody)

    _s_TryStar = _s_Try

    def _s_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        if self.frame.func:  # a nested function: a name in its enclosing function
            self.bind(node.name, Func(node))

    _s_AsyncFunctionDef = _s_FunctionDef


def _merge(paths: list[dict[str, Value]], guard: Guard) -> dict[str, Value]:
    out: dict[str, Value] = {}
    for env in paths:
        for name, value in env.items():
            out[name] = value if name not in out else join(out[name], value, guard)
    return out


def _self_attr(node: ast.Attribute) -> bool:
    return isinstance(node.value, ast.Name) and node.value.id == "self"


def _dotted(node: ast.expr) -> list[str]:
    names: list[str] = []
    while isinstance(node, ast.Attribute):
        names.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return []
    names.append(node.id)
    return names[::-1]


def _clip(text: str) -> str:
    one = " ".join(text.split())
    return one if len(one) <= 48 else one[:45] + "..."


