"""Expressions: what each kind of Python expression evaluates to (calls are in ``calls``)."""

from __future__ import annotations

import ast
from dataclasses import replace
from typing import Callable

import advisor.lint.python.formats as formats
import advisor.lint.python.tables as tables
from advisor.lint.python.fixes import wrap_sorted
from advisor.lint.python.names import annotation
from advisor.lint.python.prompts import text_prompt
from advisor.lint.python.state import BIG_DISPLAY, MAX_UNROLL, State
from advisor.lint.python.values import (
    BRANCHED, CONST, DATE, ELEMENT, FILTERED, MAP_ORDER, NOTHING, SELECTED, SET_ORDER, STEADY, ClassRef, Client, Disorder,
    Func, Guard, Instance, Mapping, Opaque, Part, Seq, Splat, Taint, Text, Value, concat, disorder_of, element_of, join,
    literal, literal_of, mapping_order, static, strongest, taint_of, text_parts, with_disorder,
)

# Keys of a dict whose value is prompt text: an opaque value there becomes a part with its place.
_TEXT_KEYS = frozenset({"content", "text", "system", "instructions", "prompt", "input", "description"})


class Iteration:
    """What a loop or comprehension over a value sees."""

    def __init__(self, elem: Value, items: list[Value] | None, count: Taint, disorder: tuple[Disorder, ...],
                 origin: tuple[int, int]) -> None:
        self.elem = elem
        self.items = items  # the elements in order, when known exactly
        self.count = count  # why the number of turns varies
        self.disorder = disorder  # why their order varies
        self.origin = origin


class Expressions(State):
    def eval(self, node: ast.expr) -> Value:
        self.tick()
        handler: Callable[[ast.expr], Value] | None = getattr(self, "_e_" + type(node).__name__, None)
        if handler is None:
            return Opaque(strongest(taint_of(self.eval(c)) for c in ast.iter_child_nodes(node) if isinstance(c, ast.expr)))
        return handler(node)

    # --- simple values ----------------------------------------------------------------------------

    def _e_Constant(self, node: ast.Constant) -> Value:
        return literal(node.value)

    def _e_Name(self, node: ast.Name) -> Value:
        return self.lookup(node.id)

    def _e_Await(self, node: ast.Await) -> Value:
        return self.eval(node.value)

    def _e_Lambda(self, node: ast.Lambda) -> Value:
        return Func(node)

    def _e_NamedExpr(self, node: ast.NamedExpr) -> Value:
        value = self.eval(node.value)
        self.bind(node.target.id, value)
        return value

    def _e_Starred(self, node: ast.Starred) -> Value:
        return Splat(self.eval(node.value), self.loc(node), self.src(node))

    def _e_IfExp(self, node: ast.IfExp) -> Value:
        test = self.eval(node.test)
        guard = Guard(taint_of(test), self.loc(node.test), f"the condition `{_clip(self.src(node.test))}`", loop=False)
        return join(self.eval(node.body), self.eval(node.orelse), guard)

    def _e_BoolOp(self, node: ast.BoolOp) -> Value:
        out = self.eval(node.values[0])
        for v in node.values[1:]:
            out = join(out, self.eval(v))
        return out

    def _e_Attribute(self, node: ast.Attribute) -> Value:
        if isinstance(node.value, ast.Name) and node.value.id == "self" and self.frame.owner:
            return self.self_attr(node.attr)
        return self.attribute(self.eval(node.value), node.attr, node)

    def attribute(self, base: Value, attr: str, node: ast.AST) -> Value:
        if isinstance(base, Opaque):
            if base.qualname and not base.taint.volatile:
                qualname = f"{base.qualname}.{attr}"
                return NOTHING if qualname in tables.NOT_GIVEN else Opaque(qualname=qualname)
            if base.cls and base.taint.volatile:
                return self.field_of(base, attr)
            if base.taint.kind == "clock" and attr in tables.DATE_ATTRIBUTES:
                return Opaque(Taint(DATE, base.taint.reason.replace("the clock", "the date"), base.taint.line))
            mapping = base.mapping if attr in ("json", "args", "form", "query_params", "data") else None
            return Opaque(base.taint, mapping=mapping, str_keys=base.str_keys, disorder=base.disorder, qualname=base.qualname)
        if isinstance(base, Client):
            return Client(base.kind, base.path + (attr,))
        if isinstance(base, (Instance, ClassRef)):
            info = self.class_info(base.cls if isinstance(base, Instance) else base.name)
            if info is not None:
                return info.methods.get(attr) or info.attrs.get(attr) or Opaque(Taint(STEADY, f"`.{attr}`"))
        return Opaque(taint_of(base), disorder=disorder_of(base))

    def annotated(self, taint: Taint, node: ast.expr | None) -> Opaque:
        """Request data of a declared type: a mapping (its key order is the client's), a set,
        an object of one of the module's classes (its fields declared in turn), or data."""
        kind, key = annotation(node)
        if kind in tables.MAPPING_ANNOTATIONS:
            return Opaque(taint, mapping=taint, str_keys=key == "str", is_mapping=True)
        if kind in tables.SET_ANNOTATIONS:
            return Opaque(taint, is_set=True)
        return Opaque(taint, cls=kind if kind in self.classes else "")

    def field_of(self, base: Opaque, attr: str) -> Value:
        """A field of request data whose class the module declares (a pydantic model, a
        dataclass): what its annotation says it is."""
        declared = self.declared(base.cls, attr, 0)
        if declared is None:
            return Opaque(base.taint, disorder=base.disorder)
        return self.annotated(base.taint, declared)

    def declared(self, cls: str, attr: str, depth: int) -> ast.expr | None:
        """The annotation of ``cls.attr`` in the class or the module's classes it derives from."""
        info = self.classes.get(cls)
        if info is None or depth > 8:
            return None
        for stmt in info.node.body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == attr:
                return stmt.annotation
        for b in info.node.bases:
            found = self.declared(b.id, attr, depth + 1) if isinstance(b, ast.Name) else None
            if found is not None:
                return found
        return None

    # --- strings ----------------------------------------------------------------------------------

    def _e_JoinedStr(self, node: ast.JoinedStr) -> Value:
        parts: list[Part] = []
        for v in node.values:
            if isinstance(v, ast.Constant) and isinstance(v.value, str):
                parts.append(Part(v.value))
            elif isinstance(v, ast.FormattedValue):
                parts.extend(self._placeholder(v, node))
        return Text(tuple(parts))

    def _placeholder(self, v: ast.FormattedValue, string: ast.JoinedStr) -> tuple[Part, ...]:
        value = self.eval(v.value)
        inner = self.src(v.value) if self.pos.within(v.value, string) else ast.unparse(v.value)
        spec = None
        if isinstance(v.format_spec, ast.JoinedStr):
            spec = "".join(c.value for c in v.format_spec.values if isinstance(c, ast.Constant) and isinstance(c.value, str))
        shown = "{" + inner + (":" + spec if spec else "") + "}"
        if spec:
            value = formats.dated(value, spec, shown)
        where = v.value if self.pos.within(v.value, string) else string
        return text_parts(self.printed(value, v.value), self.loc(where), shown)

    def printed(self, value: Value, node: ast.expr, call: ast.AST | None = None) -> Value:
        """``value`` written out as text (``str()``, an f-string, ``%s``, ``.format``): a set
        is written in its iteration order, a mapping in its key order. ``call``: the call
        that writes it (``str(x)``), where a mapping's order problem is pinned."""
        where = call if call is not None else node
        if (isinstance(value, Seq) and value.kind == "set" and not _small_ints(value)) or (isinstance(value, Opaque) and value.is_set):
            order = (*disorder_of(value), self.set_disorder(node, False, "written out"))
            return self._written(value, where, order)
        found = mapping_order(value) if isinstance(value, Mapping) or (isinstance(value, Opaque) and value.is_mapping) else None
        if found is not None:
            why, _ = found
            detail = (f"`{_clip(self.src(where))}` writes a mapping in its insertion order, "
                      f"which comes from {why.reason or 'request data'}")
            return self._written(value, where, (*disorder_of(value), Disorder(MAP_ORDER, self.loc(where), detail)))
        return value

    def _written(self, value: Value, where: ast.AST, order: tuple[Disorder, ...]) -> Text:
        """The text of a collection, a string of its own until it is put into a text."""
        return Text((Part(None, taint_of(value), self.loc(where), self.src(where), order, placed=False),))

    # --- operators --------------------------------------------------------------------------------

    def _e_BinOp(self, node: ast.BinOp) -> Value:
        if isinstance(node.op, ast.Add):
            return self._sum(node)
        left = self.eval(node.left)
        if isinstance(node.op, ast.Mod) and formats.static_text(left) is not None:
            right = self.eval(node.right)
            items = None
            if isinstance(node.right, ast.Tuple):
                items = [(self.printed(self._value_of(e, right, i), e), self.loc(e), self.src(e)) for i, e in enumerate(node.right.elts)]
            elif "%(" not in (formats.static_text(left) or ""):
                right = self.printed(right, node.right)
            default = (right, self.loc(node.right), self.src(node.right))
            return formats.percent(formats.static_text(left) or "", right, formats.tuple_args(right, items, default), default)
        right = self.eval(node.right)
        if isinstance(node.op, ast.Mult):
            return self._repeat(left, right)
        if isinstance(node.op, (ast.BitOr, ast.Sub, ast.BitAnd, ast.BitXor)):
            return self._set_op(left, right)
        return Opaque(strongest([taint_of(left), taint_of(right)]))

    def _value_of(self, elt: ast.expr, tup: Value, index: int) -> Value:
        if isinstance(tup, Seq) and tup.items is not None and index < len(tup.items):
            item = tup.items[index]
            return item.value if isinstance(item, Splat) else item
        return self.eval(elt)

    def _sum(self, node: ast.BinOp) -> Value:
        """``a + b + c ...`` (left-nested, walked without recursion: prompts are long sums)."""
        operands: list[ast.expr] = []
        cur: ast.expr = node
        while isinstance(cur, ast.BinOp) and isinstance(cur.op, ast.Add):
            operands.append(cur.right)
            cur = cur.left
        operands.append(cur)
        operands.reverse()
        out = self.eval(operands[0])
        for operand in operands[1:]:
            out = self.add(out, self.eval(operand), operands[0], operand)
        return out

    def add(self, left: Value, right: Value, left_node: ast.AST, right_node: ast.AST) -> Value:
        if isinstance(left, Seq) and isinstance(right, Seq):
            items = None if left.items is None or right.items is None else [*left.items, *right.items]
            if items is None:
                items = [Splat(left, self.loc(left_node), self.src(left_node)), Splat(right, self.loc(right_node), self.src(right_node))]
            return Seq(items, join(element_of(left), element_of(right)), left.kind, strongest([left.taint, right.taint]),
                       [*left.disorder, *right.disorder], tuple(self.guards), left.origins | right.origins)
        if isinstance(left, Text) or isinstance(right, Text):
            out = concat(Text(text_parts(left, self.loc(left_node), self.src(left_node))),
                         Text(text_parts(right, self.loc(right_node), self.src(right_node))))
            self.charge(len(out.parts))
            return out
        return Opaque(strongest([taint_of(left), taint_of(right)]), disorder=disorder_of(left) + disorder_of(right))

    def _repeat(self, left: Value, right: Value) -> Value:
        text = formats.static_text(left)
        ok, count = literal_of(right)
        if text is not None and ok and isinstance(count, int) and 0 <= count <= 10_000:
            return static(text * count)
        if isinstance(left, Seq):
            return Seq(None, element_of(left), left.kind, strongest([left.taint, taint_of(right)]), list(left.disorder))
        return Opaque(strongest([taint_of(left), taint_of(right)]))

    def _set_op(self, left: Value, right: Value) -> Value:
        if isinstance(left, Mapping) and isinstance(right, Mapping):
            return self.merged([left, right])
        if (isinstance(left, Seq) and left.kind == "set") or (isinstance(right, Seq) and right.kind == "set") or _opaque_set(left):
            return Seq(None, join(element_of(left), element_of(right)), "set", strongest([taint_of(left), taint_of(right)]),
                       made_under=tuple(self.guards), str_items=_str_items(left) and _str_items(right))
        return Opaque(strongest([taint_of(left), taint_of(right)]))

    # --- collections ------------------------------------------------------------------------------

    def _e_List(self, node: ast.List) -> Value:
        return self._constant(node) or self._sequence(node.elts, "list")

    def _e_Tuple(self, node: ast.Tuple) -> Value:
        return self._constant(node) or self._sequence(node.elts, "tuple")

    def _e_Set(self, node: ast.Set) -> Value:
        return self._constant(node) or self._sequence(node.elts, "set")

    def _constant(self, node: ast.List | ast.Tuple | ast.Set | ast.Dict) -> Value | None:
        """A large display of constants (a table of 100,000 examples) is one constant: its
        Python value, read once by ``ast.literal_eval``, never walked item by item."""
        size = len(node.keys) if isinstance(node, ast.Dict) else len(node.elts)
        if size <= BIG_DISPLAY:
            return None
        try:
            value = ast.literal_eval(node)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None  # not all constants: evaluated as code
        if isinstance(value, (set, frozenset)):
            return Opaque(is_set=True)
        str_keys = isinstance(value, dict) and all(isinstance(k, str) for k in value)
        return Opaque(has_literal=True, literal=value, str_keys=str_keys)

    def _sequence(self, elts: list[ast.expr], kind: str) -> Seq:
        items = [self.eval(e) for e in elts]
        elem: Value = NOTHING
        for item in items:
            elem = join(elem, element_of(item.value) if isinstance(item, Splat) else item)
        str_items = all(formats.static_text(i) is not None for i in items)
        return Seq(items, elem, kind, made_under=tuple(self.guards), str_items=str_items)

    def _e_Dict(self, node: ast.Dict) -> Value:
        summary = self._constant(node)
        if summary is not None:
            return summary
        m = Mapping(made_under=tuple(self.guards))
        for key_node, value_node in zip(node.keys, node.values):
            value = self.eval(value_node)
            if key_node is None:
                self.spread(m, value)
                continue
            key = self.eval(key_node)
            ok, k = literal_of(key)
            if ok and isinstance(k, str):
                m.entries[k] = self.placed(value, value_node) if k in _TEXT_KEYS else value
                m.key_locs[k] = self.loc(key_node)
            else:
                self.put_unknown(m, key, value, key_node)
        self._system_message(m, node)
        return m

    def placed(self, value: Value, node: ast.AST) -> Value:
        """A value sent as prompt text: an opaque one becomes a part placed at ``node``."""
        if isinstance(value, Opaque) and not value.has_literal:
            return Text(text_parts(value, self.loc(node), self.src(node)))
        return value

    def spread(self, m: Mapping, value: Value) -> None:
        """``{**value}`` or ``m.update(value)``."""
        if isinstance(value, Mapping):
            m.entries.update(value.entries)
            m.key_locs.update(value.key_locs)
            m.order = m.order or value.order
            m.extra = value.extra if m.extra is None else (m.extra if value.extra is None else join(m.extra, value.extra))
        elif isinstance(value, Opaque):
            m.order = m.order or value.mapping
            m.str_keys = m.str_keys and value.str_keys
            m.extra = value if m.extra is None else join(m.extra, value)

    def put_unknown(self, m: Mapping, key: Value, value: Value, key_node: ast.AST) -> None:
        """``m[key] = value`` with a key not known here: the key order may come from it."""
        m.extra = value if m.extra is None else join(m.extra, value)
        taint = taint_of(key)
        new = [g for g in self.guards if not any(g is h for h in m.made_under)]
        if taint.volatile and taint.kind != ELEMENT:
            m.order = m.order or Taint(taint.kind, taint.reason or f"`{self.src(key_node)}`", taint.line)
        for g in new:
            if g.loop and g.taint.volatile and g.taint.kind != ELEMENT:
                m.order = m.order or Taint(g.taint.kind, g.what, g.loc.line)
            m.disorder.extend(d for d in g.disorder if d not in m.disorder)
        if formats.static_text(key) is None and not _str_value(key):
            m.str_keys = False

    def _system_message(self, m: Mapping, node: ast.Dict) -> None:
        ok, role = literal_of(m.entries.get("role", NOTHING))
        if ok and isinstance(role, str) and role in tables.SYSTEM_ROLES and "content" in m.entries:
            self.report(text_prompt(m.entries["content"], self.loc(node), self.src(node), "the system prompt"))

    def merged(self, parts: list[Value]) -> Mapping:
        m = Mapping(made_under=tuple(self.guards))
        for p in parts:
            self.spread(m, p)
        return m

    # --- subscripts -------------------------------------------------------------------------------

    def _e_Subscript(self, node: ast.Subscript) -> Value:
        base = self.eval(node.value)
        if isinstance(node.slice, ast.Slice):
            return self._slice(base, node.slice)
        key = self.eval(node.slice)
        return self.pick(base, key, node)

    def pick(self, base: Value, key: Value, node: ast.AST) -> Value:
        """``base[key]``. A key from the request picks one of the application's values (a
        tool by the name a request sends): which one varies as a branch would, pinned to
        the lookup. The element of a loop over request data is not reported again: the
        loop already makes what it builds vary."""
        found = self.item(base, key)
        t = taint_of(key)
        if not t.volatile or t.kind == ELEMENT or t.origin != (0, 0) or taint_of(found).rank >= t.rank:
            return found  # a constant key, a loop's element, or a lookup whose result is as varying as its key
        detail = f"`{_clip(self.src(node))}` picks one of the application's values by {t.reason or 'request data'}"
        return with_disorder(found, (Disorder(BRANCHED, self.loc(node), detail),))

    def item(self, base: Value, key: Value) -> Value:
        ok, k = literal_of(key)
        if isinstance(base, Opaque) and base.has_literal and ok:
            try:
                return literal(base.literal[k])  # type: ignore[index]
            except (TypeError, KeyError, IndexError):
                return Opaque(CONST)
        if isinstance(base, Mapping):
            if ok and isinstance(k, str) and k in base.entries:
                return base.entries[k]
            if not ok and base.entries:  # a key not known here: one of the values, whichever it picks
                found: Value = NOTHING
                for value in [*base.entries.values(), *([base.extra] if base.extra is not None else [])]:
                    found = join(found, value)
                return found
            return base.extra if base.extra is not None else Opaque(strongest([base.taint, taint_of(key)]))
        if isinstance(base, Seq) and base.items is not None and ok and isinstance(k, int) and not isinstance(k, bool):
            if -len(base.items) <= k < len(base.items) and not any(isinstance(i, Splat) for i in base.items):
                return base.items[k]
        if isinstance(base, Seq):
            return element_of(base)
        if isinstance(base, Opaque):
            return Opaque(strongest([base.taint, taint_of(key)]), mapping=base.mapping, str_keys=base.str_keys)
        return Opaque(strongest([taint_of(base), taint_of(key)]))

    def _slice(self, base: Value, sl: ast.Slice) -> Value:
        bounds = [self.eval(b) for b in (sl.lower, sl.upper, sl.step) if b is not None]
        taint = strongest(taint_of(b) for b in bounds)
        if isinstance(base, Seq):
            if not taint.volatile and base.items is not None and not any(isinstance(i, Splat) for i in base.items):
                ok, (lo, hi, step) = self._bounds(sl)
                if ok:
                    return Seq(base.items[lo:hi:step], base.elem, base.kind, base.taint, list(base.disorder), base.made_under,
                               base.origins, base.str_items)
            disorder = list(base.disorder)
            if taint.volatile:
                why = taint.reason or "request data"
                disorder.append(Disorder(FILTERED, self.loc(sl), f"the slice `[{self.src(sl)}]` cuts the list by {why}"))
            return Seq(None, element_of(base), base.kind, base.taint, disorder, base.made_under, base.origins, base.str_items)
        if isinstance(base, Text) and not taint.volatile:
            return base
        return Opaque(strongest([taint_of(base), taint]))

    def _bounds(self, sl: ast.Slice) -> tuple[bool, tuple[int | None, int | None, int | None]]:
        out: list[int | None] = []
        for b in (sl.lower, sl.upper, sl.step):
            if b is None:
                out.append(None)
                continue
            ok, v = literal_of(self.eval(b))
            if not ok or not isinstance(v, int) or isinstance(v, bool):
                return False, (None, None, None)
            out.append(v)
        return True, (out[0], out[1], out[2])

    # --- comprehensions ---------------------------------------------------------------------------

    def _e_ListComp(self, node: ast.ListComp) -> Value:
        return self._comprehension(node, [node.elt], "list")

    def _e_GeneratorExp(self, node: ast.GeneratorExp) -> Value:
        return self._comprehension(node, [node.elt], "list")

    def _e_SetComp(self, node: ast.SetComp) -> Value:
        return self._comprehension(node, [node.elt], "set")

    def _e_DictComp(self, node: ast.DictComp) -> Value:
        return self._comprehension(node, [node.key, node.value], "dict")

    def _comprehension(self, node: ast.expr, elts: list[ast.expr], kind: str) -> Value:
        saved = dict(self.frame.env)
        origin = (node.lineno, node.col_offset)
        gens: list[ast.comprehension] = node.generators  # type: ignore[attr-defined]
        first = self.iterate(self.eval(gens[0].iter), gens[0].iter, origin)
        if kind != "dict" and len(gens) == 1 and not gens[0].ifs and self._can_unroll(first.items):
            items = []
            for item in first.items or []:
                self.assign(gens[0].target, item)
                items.append(self.eval(elts[0]))
            self.reset_env(saved)
            elem: Value = NOTHING
            for value in items:
                elem = join(elem, value)
            return Seq(items, elem, kind, first.count, list(first.disorder), tuple(self.guards),
                       str_items=all(formats.static_text(i) is not None for i in items))
        count, disorder, filters = [first.count], [*first.disorder, *self.selected(first, gens[0].iter)], []
        for i, gen in enumerate(gens):
            it = first if i == 0 else self.iterate(self.eval(gen.iter), gen.iter, origin)
            if i:
                count.append(it.count)
                disorder.extend([*it.disorder, *self.selected(it, gen.iter)])
            self.assign(gen.target, it.elem)
            filters.extend(self._filters(gen.ifs))
        values = [self.eval(e) for e in elts]
        self.reset_env(saved)
        taint = strongest(c for c in count if c.volatile and c.kind != ELEMENT)
        if kind == "dict":
            return self._dict_comprehension(values, taint, disorder + filters, origin)
        return Seq(None, values[0], kind, taint, [*disorder, *filters], tuple(self.guards), frozenset({origin}),
                   formats.static_text(values[0]) is not None)

    def selected(self, it: Iteration, node: ast.expr) -> tuple[Disorder, ...]:
        """A collection built by a loop over request data holds what the request sends, in
        its order (a tool list from the names a request asks for)."""
        if not it.count.volatile or it.count.kind == ELEMENT:
            return ()
        detail = (f"the list holds one item per element of `{_clip(self.src(node))}` "
                  f"({it.count.reason or 'request data'}), in that order")
        return (Disorder(SELECTED, self.loc(node), detail),)

    def _can_unroll(self, items: list[Value] | None) -> bool:
        return items is not None and len(items) <= MAX_UNROLL and not self.exhausted and self.unrolling < 2

    def _filters(self, conditions: list[ast.expr]) -> list[Disorder]:
        out = []
        for cond in conditions:
            t = taint_of(self.eval(cond))
            if t.volatile and t.kind != ELEMENT:
                why = t.reason or "request data"
                out.append(Disorder(FILTERED, self.loc(cond), f"the condition `{_clip(self.src(cond))}` picks items by {why}"))
        return out

    def _dict_comprehension(self, values: list[Value], taint: Taint, disorder: list[Disorder], origin: tuple[int, int]) -> Mapping:
        key, value = values
        order = taint if taint.volatile else None
        if order is None and taint_of(key).volatile and taint_of(key).kind != ELEMENT:
            order = taint_of(key)
        return Mapping({}, {}, value, order, formats.static_text(key) is not None or _str_value(key), taint, disorder,
                       tuple(self.guards), frozenset({origin}))

    # --- iteration --------------------------------------------------------------------------------

    def iterate(self, value: Value, node: ast.expr, origin: tuple[int, int]) -> Iteration:
        """What ``for x in value`` sees; ``node`` is the iterated expression. An element of
        request data keeps the loop it comes from (``origin``): what the loop builds varies
        with the loop, not once more with each use of the element."""
        it = self._iteration(value, node, origin)
        elem = it.elem
        if isinstance(elem, Opaque) and elem.taint.volatile and elem.taint.kind != ELEMENT and elem.taint.origin == (0, 0):
            it.elem = replace(elem, taint=replace(elem.taint, origin=origin))
        return it

    def _iteration(self, value: Value, node: ast.expr, origin: tuple[int, int]) -> Iteration:
        if isinstance(value, Seq):
            return self._iterate_seq(value, node, origin)
        if isinstance(value, Mapping):
            keys: list[Value] = [static(k) for k in value.entries]
            exact = value.extra is None and value.order is None
            disorder = tuple(value.disorder) + self._map_disorder(value.order, value.str_keys, node)
            return Iteration(element_of(value), keys if exact else None, value.taint, disorder, origin)
        if isinstance(value, Opaque):
            return self._iterate_opaque(value, node, origin)
        return Iteration(Opaque(taint_of(value)), None, taint_of(value), disorder_of(value), origin)

    def _iterate_seq(self, seq: Seq, node: ast.expr, origin: tuple[int, int]) -> Iteration:
        disorder = tuple(seq.disorder)
        exact = seq.items is not None and not any(isinstance(i, Splat) for i in seq.items)
        if seq.kind == "set" and not _small_ints(seq):
            disorder += (self.set_disorder(node, seq.str_items),)
            exact = False
        items = list(seq.items) if exact and seq.items is not None else None
        return Iteration(element_of(seq), items, seq.taint, disorder, origin)

    def _iterate_opaque(self, value: Opaque, node: ast.expr, origin: tuple[int, int]) -> Iteration:
        disorder = value.disorder
        if value.is_set:
            disorder += (self.set_disorder(node, False),)
        disorder += self._map_disorder(value.mapping, value.str_keys, node)
        taint = value.taint
        if taint.volatile:
            elem = Opaque(taint, mapping=value.mapping, str_keys=value.str_keys)
        elif value.has_literal or (value.qualname and not value.qualname.startswith("builtins.")):
            elem = Opaque(CONST)
        else:
            what = f"an element of `{self.src(node)}`"
            elem = Opaque(Taint(ELEMENT, what, node.lineno, origin))
        return Iteration(elem, None, taint, disorder, origin)

    def set_disorder(self, node: ast.expr, str_items: bool, how: str = "iterated") -> Disorder:
        detail = f"`{_clip(self.src(node))}` is a set, {how} in an order that changes with each process's string hash seed"
        return Disorder(SET_ORDER, self.loc(node), detail, wrap_sorted(self.pos, node, safe=str_items))

    def _map_disorder(self, order: Taint | None, str_keys: bool, node: ast.expr) -> tuple[Disorder, ...]:
        if order is None:
            return ()
        detail = f"`{_clip(self.src(node))}` iterates a mapping in its insertion order, which comes from {order.reason or 'request data'}"
        return (Disorder(MAP_ORDER, self.loc(node), detail, wrap_sorted(self.pos, node, safe=str_keys)),)

    # --- assignment targets -------------------------------------------------------------------

    def assign(self, target: ast.expr, value: Value) -> None:
        if isinstance(target, ast.Name):
            self.bind(target.id, value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            self._unpack(target.elts, value)
        elif isinstance(target, ast.Attribute):
            if isinstance(target.value, ast.Name) and target.value.id == "self" and self.frame.owner:
                self.frame.self_attrs[target.attr] = value
        elif isinstance(target, ast.Subscript):
            self._store_item(target, value)
        elif isinstance(target, ast.Starred):
            self.assign(target.value, Seq(None, element_of(value), taint=taint_of(value)))

    def _unpack(self, elts: list[ast.expr], value: Value) -> None:
        items = value.items if isinstance(value, Seq) and value.items is not None and value.kind != "set" else None
        if items is not None and len(items) == len(elts) and not any(isinstance(i, Splat) for i in items):
            for t, v in zip(elts, items):
                self.assign(t, v)
            return
        elem = element_of(value) if isinstance(value, Seq) else Opaque(taint_of(value), disorder=disorder_of(value))
        for t in elts:
            self.assign(t, elem)

    def _store_item(self, target: ast.Subscript, value: Value) -> None:
        base = self.eval(target.value)
        if isinstance(base, Seq):
            self._store_in_list(base, target, value)
            return
        if not isinstance(base, Mapping) or isinstance(target.slice, ast.Slice):
            return
        key = self.eval(target.slice)
        ok, k = literal_of(key)
        if ok and isinstance(k, str):
            base.entries[k] = self.placed(value, target) if k in _TEXT_KEYS else value
            base.key_locs.setdefault(k, self.loc(target.slice))
        else:
            self.put_unknown(base, key, value, target.slice)

    def _store_in_list(self, seq: Seq, target: ast.Subscript, value: Value) -> None:
        """``seq[i] = value`` (or a slice): the list holds it from now on. At a known place of
        known items it replaces that item; otherwise the list may hold it from then on, beside
        what it held (a batch filled by index keeps every prompt put into it)."""
        if isinstance(target.slice, ast.Slice):
            new: Value = Splat(value, self.loc(target), self.src(target))
        else:
            ok, k = literal_of(self.eval(target.slice))
            items = seq.items
            if ok and isinstance(k, int) and items is not None and -len(items) <= k < len(items) \
                    and not any(isinstance(i, Splat) for i in items) and not self.guards:
                items[k] = value
                return
            new = value
        self.grow(seq, new, target)


def _clip(text: str) -> str:
    one = " ".join(text.split())
    return one if len(one) <= 48 else one[:45] + "..."


def _opaque_set(value: Value) -> bool:
    return isinstance(value, Opaque) and value.is_set


def _small_ints(seq: Seq) -> bool:
    """A set of known ints iterates in one order everywhere (ints hash to themselves)."""
    if seq.items is None or not seq.items:
        return False
    return all(isinstance(i, Opaque) and i.has_literal and isinstance(i.literal, int) for i in seq.items)


def _str_items(value: Value) -> bool:
    return isinstance(value, Seq) and value.str_items


def _str_value(value: Value) -> bool:
    return isinstance(value, Text)


