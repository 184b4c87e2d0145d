"""One pass over a module before the dataflow walk: its imports, its functions, which
functions are worth evaluating on their own (those that send, build or name a prompt, and
those that call one of them: in a module that builds no prompt, almost none), and which are
called by the module itself (judged with the values they are called with)."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

import advisor.lint.python.tables as tables

Function = ast.FunctionDef | ast.AsyncFunctionDef

# Method names that render or send a prompt whatever their receiver.
_PROMPT_METHODS = frozenset({"render", "render_async", "substitute", "safe_substitute", "generate", "chat"})
_SINK_SUFFIXES = frozenset(s.suffix for s in tables.SINKS)


@dataclass
class _Scope:
    node: Function
    mentions: bool = False
    calls: set[str] = field(default_factory=set)


@dataclass
class Survey:
    imports: dict[str, str] = field(default_factory=dict)  # local name -> dotted name
    functions: list[Function] = field(default_factory=list)  # every def, in source order
    relevant: set[int] = field(default_factory=set)  # ids of the functions to evaluate on their own
    # Ids of the module-level functions and methods that the module calls by name (``f()``,
    # ``self.m()`` in m's class) from elsewhere than themselves: their calls are followed.
    called: set[int] = field(default_factory=set)

    @classmethod
    def of(cls, tree: ast.Module) -> Survey:
        survey = cls()
        scopes: list[_Scope] = []
        calls: list[tuple[str, str, int]] = []  # (class or "", called name, id of the calling function or 0)
        survey._visit(tree, scopes, calls)
        survey.functions.sort(key=lambda f: (f.lineno, f.col_offset))
        survey.relevant = _closure(scopes)
        survey.called = _called(tree, calls)
        return survey

    def _visit(self, root: ast.AST, scopes: list[_Scope], calls: list[tuple[str, str, int]]) -> None:
        # Depth first, with an explicit stack: (node, the functions around it, its class).
        stack: list[tuple[ast.AST, list[_Scope], str]] = [(root, [], "")]
        while stack:
            node, around, owner = stack.pop()
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                scope = _Scope(node, mentions=_decorated_as_program(node))
                scopes.append(scope)
                self.functions.append(node)
                around = [*around, scope]
            elif isinstance(node, ast.ClassDef):
                owner = node.name
            else:
                self._note(node, around)
                if isinstance(node, ast.Call):
                    calls.append(_callee(node, owner, id(around[-1].node) if around else 0))
            stack.extend((child, around, owner) for child in _children(node))

    def _note(self, node: ast.AST, around: list[_Scope]) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.split(".", 1)[0]
                self.imports[alias.asname or top] = alias.name if alias.asname else top
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                if alias.name != "*":
                    self.imports[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif around:
            mentions, called = _mention(node)
            for scope in around:
                scope.mentions = scope.mentions or mentions
                if called:
                    scope.calls.add(called)


# Nodes that hold nothing worth a look: constants, operators, a name's load or store.
_LEAVES = (ast.Constant, ast.expr_context, ast.operator, ast.boolop, ast.unaryop, ast.cmpop)


def _children(node: ast.AST) -> list[ast.AST]:
    """The nodes below ``node`` worth a look (a table of 100,000 constant strings is skipped
    in one pass over its items)."""
    out: list[ast.AST] = []
    for name in node._fields:
        value = getattr(node, name, None)
        if isinstance(value, list):
            out.extend(v for v in value if isinstance(v, ast.AST) and not isinstance(v, _LEAVES))
        elif isinstance(value, ast.AST) and not isinstance(value, _LEAVES):
            out.append(value)
    return out


def _mention(node: ast.AST) -> tuple[bool, str]:
    """Whether ``node`` is about a prompt, and the name it calls (a call)."""
    if isinstance(node, ast.Call):
        chain = _chain(node.func)
        name = chain[-1] if chain else ""
        return name in _PROMPT_METHODS or any(tuple(chain[-len(s):]) == s for s in _SINK_SUFFIXES), name
    if isinstance(node, ast.Dict):
        return any(isinstance(k, ast.Constant) and k.value in ("role", "cache_control") for k in node.keys), ""
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
        return bool(tables.SYSTEM_NAME.search(node.id)), ""
    if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
        return bool(tables.SYSTEM_NAME.search(node.attr)), ""
    return False, ""


def _callee(call: ast.Call, owner: str, caller: int) -> tuple[str, str, int]:
    func = call.func
    if isinstance(func, ast.Name):
        return "", func.id, caller
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self" and owner:
        return owner, func.attr, caller
    return "", "", caller


def _called(tree: ast.Module, calls: list[tuple[str, str, int]]) -> set[int]:
    targets: dict[tuple[str, str], int] = {}
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            targets[("", stmt.name)] = id(stmt)
        elif isinstance(stmt, ast.ClassDef):
            for m in stmt.body:
                if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    targets[(stmt.name, m.name)] = id(m)
    out: set[int] = set()
    for owner, name, caller in calls:
        target = targets.get((owner, name))
        if target is not None and target != caller:
            out.add(target)
    return out


def _decorated_as_program(node: Function) -> bool:
    """``@sgl.function`` (or any decorator named ``function``)."""
    return any(_chain(d.func if isinstance(d, ast.Call) else d)[-1:] == ["function"] for d in node.decorator_list)


def _chain(node: ast.expr) -> list[str]:
    names: list[str] = []
    while isinstance(node, ast.Attribute):
        names.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        names.append(node.id)
    return names[::-1]


def _prompt_name(name: str) -> bool:
    return bool(tables.PROMPT_FUNCTION.search(name) or tables.MESSAGES_FUNCTION.search(name)
                or tables.SYSTEM_NAME.search(name.removeprefix("get_").removeprefix("build_").removeprefix("make_")))


def _closure(scopes: list[_Scope]) -> set[int]:
    """The functions that mention a prompt (or are named for one), and those calling them."""
    relevant = {id(s.node) for s in scopes if s.mentions or _prompt_name(s.node.name)}
    names: dict[str, set[int]] = {}
    for s in scopes:
        names.setdefault(s.node.name, set()).add(id(s.node))
    changed = True
    while changed:
        changed = False
        for s in scopes:
            if id(s.node) not in relevant and any(names.get(c, set()) & relevant for c in s.calls):
                relevant.add(id(s.node))
                changed = True
    return relevant
