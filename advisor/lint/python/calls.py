"""Calls: sources (clock, random), serialization, string and list methods, Jinja rendering,
the LLM clients that send a prompt, and the module's own functions (followed in place)."""

from __future__ import annotations

import ast
import json
import re
from dataclasses import replace
from typing import Callable

from advisor.lint.fix import Fix
import advisor.lint.python.formats as formats
import advisor.lint.python.prompts as prompts
import advisor.lint.python.tables as tables
from advisor.lint.python.evaluate import Expressions, Iteration
from advisor.lint.python.fixes import add_sort_keys
from advisor.lint.python.formats import Arg
from advisor.lint.python.state import MAX_CALL_DEPTH, Frame
from advisor.lint.python.values import (
    CLOCK, CONST, DATE, ELEMENT, FILTERED, MAP_ORDER, NOTHING, ORDER_KINDS, RANDOM, REQUEST, SAMPLED, SHUFFLED, STEADY,
    STEADY_TAINT, ClassRef, Client, Disorder, Func, Instance, Mapping, Opaque, Part, Seq, Splat, Taint, Template, Text,
    Value, disorder_of, element_of, join, literal_of, mapping_order, seq_parts, static, strongest, taint_of, text_parts,
)

Args = list[Arg]
Kwargs = dict[str, Arg]


class Calls(Expressions):
    def _e_Call(self, node: ast.Call) -> Value:
        callee, receiver = self.callee(node.func)
        args, kwargs = self._arguments(node)
        return self.invoke(node, callee, receiver, args, kwargs)

    def callee(self, func: ast.expr) -> tuple[Value, Value | None]:
        """What ``func`` in ``func(...)`` is, and the object a method is called on."""
        if isinstance(func, ast.Attribute):
            if isinstance(func.value, ast.Name) and func.value.id == "self" and self.frame.owner:
                return self.self_attr(func.attr), Instance(self.frame.owner)
            receiver = self.eval(func.value)
            return self.attribute(receiver, func.attr, func), receiver
        return self.eval(func), None

    def call_of(self, func: ast.expr, args: list[ast.expr], at: ast.AST) -> ast.Call:
        """A call the code makes without spelling it (a default factory, the function
        ``map`` applies): a node of its own, kept for the positions cache, with ``at``'s
        place and no source span (its text is the call as ``ast.unparse`` writes it)."""
        key = (id(func), id(at))
        found = self._implicit.get(key)
        if found is None:
            found = ast.Call(func=func, args=args, keywords=[])
            line, col = getattr(at, "lineno", 1), getattr(at, "col_offset", 0)
            found.lineno, found.col_offset, found.end_lineno, found.end_col_offset = line, col, line, col
            self._implicit[key] = found
        return found

    def call_value(self, func: ast.expr, args: Args, at: ast.AST, arg_nodes: list[ast.expr] | None = None) -> Value:
        """Call ``func`` (an expression of the code) with ``args``, as the code would."""
        callee, receiver = self.callee(func)
        return self.invoke(self.call_of(func, arg_nodes or [], at), callee, receiver, args, {})

    def invoke(self, node: ast.Call, callee: Value, receiver: Value | None, args: Args, kwargs: Kwargs) -> Value:
        func = node.func
        sink = self._sink(func, receiver)
        if sink is not None:
            return self._send(sink, node, args, kwargs)
        out: Value | None = None
        if isinstance(callee, Opaque) and callee.qualname:
            out = self._known(callee.qualname, node, args, kwargs)
        if out is None and receiver is not None and isinstance(func, ast.Attribute):
            out = self._method(receiver, func.attr, node, args, kwargs)
        if out is not None:
            return out
        if isinstance(callee, Func):
            return self.follow(callee, node, args, kwargs)
        if isinstance(callee, ClassRef):
            return Instance(callee.name)
        return Opaque(_call_taint(args, kwargs))

    def _arguments(self, node: ast.Call) -> tuple[Args, Kwargs]:
        args: Args = []
        for a in node.args:
            args.append((self.eval(a), self.loc(a), self.src(a)))
        kwargs: Kwargs = {}
        for k in node.keywords:
            kwargs[k.arg or "**"] = (self.eval(k.value), self.loc(k.value), self.src(k.value))
        return args, kwargs

    # --- sending a prompt -------------------------------------------------------------------------

    def _sink(self, func: ast.expr, receiver: Value | None) -> tables.Sink | None:
        last = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        candidates = tables.SINKS_BY_NAME.get(last, ())
        if not candidates and not (isinstance(func, ast.Name) and func.id in self.imports.names):
            return None
        chain = _chain(func)
        head = chain[0]
        if head and head not in self.frame.env and head not in self.globals:
            qualified = self.imports.qualify(head)
            if qualified and not qualified.startswith("builtins."):
                chain = qualified.split(".") + chain[1:]
        for sink in tables.SINKS_BY_NAME.get(chain[-1], ()):
            if tuple(chain[-len(sink.suffix):]) != sink.suffix:
                continue
            if not sink.receivers:
                return sink
            if isinstance(receiver, Client) and receiver.kind in sink.receivers:
                return sink
            if len(chain) >= 2 and chain[-2] in sink.names:
                return sink
        return None

    def _send(self, sink: tables.Sink, node: ast.Call, args: Args, kwargs: Kwargs) -> Value:
        parts: dict[str, Arg] = {}
        for i, arg in enumerate(args):
            if i < len(sink.positional) and sink.positional[i]:
                parts[sink.positional[i]] = arg
        spread = kwargs.get("**")
        if spread is not None and isinstance(spread[0], Mapping):
            for key, value in spread[0].entries.items():
                if key in sink.keywords:
                    parts[sink.keywords[key]] = (value, spread[0].key_locs.get(key, spread[1]), spread[2])
        for key, arg in kwargs.items():
            if key in sink.keywords:
                parts[sink.keywords[key]] = arg
        for prompt in prompts.request(parts, f"the request at line {node.lineno}"):
            self.report(prompt)
        return Opaque(Taint(REQUEST, f"the model's reply (line {node.lineno})", node.lineno))

    # --- functions known by name ------------------------------------------------------------------

    def _known(self, qualname: str, node: ast.Call, args: Args, kwargs: Kwargs) -> Value | None:
        handler = _BY_NAME.get(qualname)
        if handler is not None:
            return handler(self, node, args, kwargs)
        if qualname in tables.FIELD_FUNCTIONS or qualname in tables.FACTORIES:
            return self._field(qualname, node, args, kwargs)
        if qualname in tables.NOT_GIVEN_CLASSES:
            return NOTHING
        if qualname in tables.CLIENTS:
            return Client(tables.CLIENTS[qualname])
        if qualname in tables.NOT_RANDOM or qualname in tables.RNG_CLASSES or qualname in tables.SYSTEM_RNG:
            return self._rng(qualname, args)
        if qualname.startswith("random."):
            return self._random(qualname[len("random."):], node, args, kwargs)
        source = self._source(qualname, node, args)
        if source is not None:
            return source
        if qualname.startswith("rng:"):  # a method of a random.Random object
            return self._rng_call(qualname, node, args, kwargs)
        if qualname in tables.JINJA_TEMPLATES:
            text = args[0][0] if args else kwargs.get("source", (NOTHING,))[0]
            return Template(text if isinstance(text, Text) else None, loc=self.loc(node))
        if qualname in tables.JINJA_ENVIRONMENTS:
            return Opaque(qualname="jinja:env")
        if qualname == tables.STRING_TEMPLATE:
            text = args[0][0] if args else NOTHING
            return Template(text if isinstance(text, Text) else None, loc=self.loc(node), jinja=False)
        if qualname in tables.TEXT_FUNCTIONS and args:
            return self._text_function(qualname, args[0][0])
        return self._frameworks(qualname, node, args, kwargs)

    def _source(self, qualname: str, node: ast.Call, args: Args) -> Value | None:
        shown = self.src(node)
        kind = tables.CLOCK_CALLS.get(qualname)
        if kind is None and qualname in tables.CLOCK_WITHOUT_ARGUMENTS and not args:
            kind = CLOCK
        if kind is None and qualname == tables.STRFTIME and len(args) == 1:
            fmt = formats.static_text(args[0][0])
            kind = DATE if fmt is not None and formats.date_only(fmt) else CLOCK
        if kind is not None:
            what = "the date" if kind == DATE else "the clock"
            return Opaque(Taint(kind, f"{what} (`{_short(shown)}`)", node.lineno))
        if qualname in tables.RANDOM_CALLS or qualname.startswith(tuple(m + "." for m in tables.RANDOM_MODULES)):
            return Opaque(Taint(RANDOM, f"a random value (`{_short(shown)}`)", node.lineno))
        return None

    def _rng(self, qualname: str, args: Args) -> Value:
        """``random.Random(seed)`` made inside a function gives the same numbers on every call;
        one made once (at import, on an object) moves on with every request."""
        if qualname in tables.NOT_RANDOM:
            return NOTHING
        fixed = qualname in tables.RNG_CLASSES and bool(args) and bool(self.frame.func)
        return Opaque(qualname="rng:fixed" if fixed else "rng:live")

    def _rng_call(self, qualname: str, node: ast.Call, args: Args, kwargs: Kwargs) -> Value:
        owner, _, method = qualname.rpartition(".")
        if owner == "rng:fixed":
            return Opaque(_call_taint(args, kwargs))
        return self._random(method, node, args, kwargs)

    def _random(self, method: str, node: ast.Call, args: Args, kwargs: Kwargs) -> Value:
        shown = _short(self.src(node))
        if method == "shuffle" and node.args:
            self._shuffle(node.args[0], args[0][0] if args else NOTHING, shown, node)
            return NOTHING
        if method in ("sample", "choices") and args:
            source = args[0][0]
            detail = f"`{shown}` picks a random selection in random order"
            return Seq(None, element_of(source), "list", CONST, [Disorder(SAMPLED, self.loc(node), detail)], tuple(self.guards))
        if method == "choice" and args:
            return Opaque(Taint(RANDOM, f"a random choice (`{shown}`)", node.lineno))
        return Opaque(Taint(RANDOM, f"a random value (`{shown}`)", node.lineno))

    def _shuffle(self, target: ast.expr, value: Value, shown: str, node: ast.Call) -> None:
        disorder = Disorder(SHUFFLED, self.loc(node), f"`{shown}` shuffles `{self.src(target)}` on every call")
        if isinstance(value, Seq):
            value.disorder.append(disorder)
        elif isinstance(target, ast.Name):
            self.bind(target.id, Seq(None, element_of(value) if not isinstance(value, Opaque) else Opaque(taint_of(value)),
                                     "list", taint_of(value), [disorder], tuple(self.guards)))

    def _field(self, qualname: str, node: ast.Call, args: Args, kwargs: Kwargs) -> Value:
        """A field declaration: its default, or what its default factory returns (a factory
        is a call made for each object: ``field(default_factory=uuid4)`` is a new id each
        time). ``attrs.Factory(f)`` is such a factory."""
        if qualname in tables.FACTORIES:
            factory = node.args[0] if node.args else None
        else:
            factory = next((k.value for k in node.keywords if k.arg in tables.FACTORY_KEYWORDS), None)
        if factory is not None:
            return self.call_value(factory, [], factory)
        if "default" in kwargs:
            return kwargs["default"][0]
        return args[0][0] if args else Opaque(STEADY_TAINT)

    def _text_function(self, qualname: str, value: Value) -> Value:
        if qualname == "textwrap.dedent" or qualname == "inspect.cleandoc":
            import inspect
            import textwrap

            change = textwrap.dedent if qualname == "textwrap.dedent" else inspect.cleandoc
            return formats.map_static(value, change) if isinstance(value, Text) else value
        return value if isinstance(value, Text) else Opaque(taint_of(value))

    def _frameworks(self, qualname: str, node: ast.Call, args: Args, kwargs: Kwargs) -> Value | None:
        if qualname in tables.SGL_ROLES:
            content = args[0][0] if args else kwargs.get("expr", (NOTHING,))[0]
            placed = self.placed(content, node.args[0]) if node.args else content
            return Mapping({"role": static(tables.SGL_ROLES[qualname]), "content": placed}, {"content": self.loc(node)})
        if qualname in tables.SGL_GEN:
            return Opaque(Taint(REQUEST, f"the generated text (line {node.lineno})", node.lineno))
        if qualname in tables.JSON_DUMPS:
            return self.dumps(node, args, kwargs)
        if qualname in tables.JSON_LOADS and args:
            taint = taint_of(args[0][0])
            return Opaque(taint, mapping=taint if taint.volatile else None, str_keys=True)
        return None

    # --- serialization ----------------------------------------------------------------------------

    def dumps(self, node: ast.Call, args: Args, kwargs: Kwargs) -> Value:
        """``json.dumps(x)``: unstable when a mapping in ``x`` has its key order from the request."""
        if not args:
            return Opaque(_call_taint(args, kwargs))
        value, loc, shown = args[0]
        ok, sort = literal_of(kwargs["sort_keys"][0]) if "sort_keys" in kwargs else (True, False)
        inner = tuple(d for d in disorder_of(value) if not (sort is True and d.kind == MAP_ORDER))
        order = None if (ok and sort is True) else mapping_order(value)
        if order is not None:
            why, str_keys = order
            detail = (f"`{_short(self.src(node))}` writes `{_short(shown)}` with its keys in insertion order, "
                      f"which comes from {why.reason or 'request data'}")
            inner += (Disorder(MAP_ORDER, self.loc(node), detail, add_sort_keys(self.pos, node, str_keys)),)
        lit_ok, lit = literal_of(value)
        if lit_ok and not inner:
            try:
                return static(json.dumps(lit, sort_keys=bool(sort)))
            except (TypeError, ValueError):
                pass
        return Text((Part(None, taint_of(value), self.loc(node), self.src(node), inner, placed=False),))

    # --- methods ----------------------------------------------------------------------------------

    def _method(self, receiver: Value, name: str, node: ast.Call, args: Args, kwargs: Kwargs) -> Value | None:
        if isinstance(receiver, Text):
            return self._text_method(receiver, name, node, args, kwargs)
        if isinstance(receiver, Seq):
            return self._seq_method(receiver, name, node, args)
        if isinstance(receiver, Mapping):
            return self._mapping_method(receiver, name, node, args)
        if isinstance(receiver, Template):
            return self._render(receiver, name, node, args, kwargs)
        if isinstance(receiver, Opaque):
            return self._opaque_method(receiver, name, node, args, kwargs)
        return None

    def _text_method(self, text: Text, name: str, node: ast.Call, args: Args, kwargs: Kwargs) -> Value | None:
        fmt = formats.static_text(text)
        default: Arg = (NOTHING, self.loc(node), self.src(node))
        if name == "format" and fmt is not None:
            shown_args = [(self.printed(a[0], n), a[1], a[2]) for a, n in zip(args, node.args)]
            shown_kwargs = {k.arg: (self.printed(kwargs[k.arg][0], k.value), kwargs[k.arg][1], kwargs[k.arg][2])
                            for k in node.keywords if k.arg}
            if "**" in kwargs:
                shown_kwargs["**"] = kwargs["**"]
            return formats.str_format(fmt, shown_args + args[len(shown_args):], shown_kwargs, default)
        if name == "format_map" and fmt is not None and args:
            return formats.str_format(fmt, [], {"**": args[0]}, default)
        if name == "join" and args:
            return self._join(fmt, args[0], node)
        if name in tables.TEXT_METHODS:
            method = getattr(str, name)
            if fmt is not None and all(literal_of(a[0])[0] for a in args):
                try:
                    return static(method(fmt, *[literal_of(a[0])[1] for a in args]))
                except (TypeError, ValueError):
                    return text
            return text
        if name in ("split", "splitlines", "partition", "rpartition", "rsplit"):
            return Seq(None, Opaque(taint_of(text)), "list", taint_of(text), made_under=tuple(self.guards))
        return Opaque(strongest([taint_of(text), _call_taint(args, kwargs)]))

    def _join(self, sep: str | None, arg: Arg, node: ast.Call) -> Value:
        """``sep.join(value)``: the items in the order the value iterates in."""
        value, loc, shown = arg
        if isinstance(value, Opaque) and isinstance(value.literal, (list, tuple)) and all(isinstance(i, str) for i in value.literal):
            return static((sep or "").join(value.literal))
        if not isinstance(value, (Seq, Mapping)) and not (isinstance(value, Opaque) and (value.is_set or value.mapping is not None)):
            return Text(text_parts(value, loc, shown))
        it = self.iterate(value, node.args[0], (node.lineno, node.col_offset))
        own = tuple(value.disorder) if isinstance(value, (Seq, Mapping)) else value.disorder
        # str.join requires strings, and strings sort: wrapping the argument in sorted() is safe.
        extra = tuple(replace(d, fix=_safe(d.fix)) for d in it.disorder if d not in own)
        if isinstance(value, Seq):
            return Text(seq_parts(value, sep or "", self.loc(node), self.src(node), extra))
        return Text((Part(None, taint_of(value), self.loc(node), self.src(node), own + extra),))

    def _seq_method(self, seq: Seq, name: str, node: ast.Call, args: Args) -> Value | None:
        if name in ("append", "insert", "add", "appendleft") and args:  # a list's, a set's, a deque's
            self.grow(seq, args[-1][0], node, first=name in ("insert", "appendleft"))
            return NOTHING
        if name in ("extend", "update", "extendleft") and args:
            self.grow(seq, Splat(args[0][0], args[0][1], args[0][2]), node, first=name == "extendleft")
            return NOTHING
        if name == "sort":
            seq.disorder[:] = [d for d in seq.disorder if d.kind not in ORDER_KINDS]
            return NOTHING
        if name == "copy":
            return Seq(None if seq.items is None else list(seq.items), seq.elem, seq.kind, seq.taint, list(seq.disorder),
                       tuple(self.guards), seq.origins, seq.str_items)
        if name in ("pop", "index", "count"):
            return element_of(seq) if name == "pop" else Opaque(seq.taint)
        if name in ("union", "intersection", "difference", "symmetric_difference"):
            return self._set_op(seq, args[0][0] if args else seq)
        return None

    def grow(self, seq: Seq, value: Value, node: ast.AST, first: bool = False) -> None:
        """``seq.append(value)`` (``value`` a Splat: ``extend``): under a loop or a condition
        that was not in force when the list was made, the item may repeat or be absent."""
        new = [g for g in self.guards if not any(g is h for h in seq.made_under)]
        if new:
            loops = [g for g in new if g.loop]
            members = [Disorder("branch", g.loc, f"items added under {g.what} ({g.taint.reason or 'request data'})")
                       for g in new if not g.loop and g.taint.volatile and g.taint.kind != "element"]
            count = strongest(g.taint for g in loops if g.taint.volatile and g.taint.kind != "element")
            disorder = [d for g in loops for d in g.disorder] + members
            origins = frozenset(g.origin for g in loops)
            inner = element_of(value) if isinstance(value, Splat) else value
            value = Splat(Seq(None, inner, "list", count, disorder, tuple(self.guards), origins), self.loc(node), self.src(node))
        if seq.items is None:
            # Items not known one by one: they stay (as one splat), and the new one is added
            # beside them rather than joined into one element (a batch of prompts keeps each).
            seq.items = [Splat(Seq(None, seq.elem, seq.kind, seq.taint, [], seq.made_under, seq.origins, seq.str_items))]
        seq.elem = join(seq.elem, element_of(value) if isinstance(value, Splat) else value)
        if first:
            seq.items.insert(0, value)
        else:
            seq.items.append(value)

    def _mapping_method(self, m: Mapping, name: str, node: ast.Call, args: Args) -> Value | None:
        if name in ("items", "keys", "values"):
            return self._view(m, name, node)
        if name in ("get", "pop", "setdefault") and args:
            found = self.item(m, args[0][0])
            return join(found, args[1][0]) if len(args) > 1 else found
        if name == "update" and args:
            self.spread(m, args[0][0])
            return NOTHING
        if name == "copy":
            return self.merged([m])
        return None

    def _view(self, m: Mapping, name: str, node: ast.Call) -> Seq:
        if m.extra is None and m.order is None:
            keys: list[Value] = [static(k) for k in m.entries]
            values = list(m.entries.values())
            items: list[Value] = keys if name == "keys" else values if name == "values" else \
                [Seq([k, v], join(k, v), "tuple") for k, v in zip(keys, values)]
            return Seq(items, element_of(Seq(items, NOTHING)), "list", m.taint, list(m.disorder))
        elem = m.extra if name == "values" and m.extra is not None else Opaque(m.order or m.taint)
        disorder = list(m.disorder) + list(self._map_disorder(m.order, m.str_keys, node))
        return Seq(None, elem, "list", m.taint, disorder, tuple(self.guards))

    def _opaque_method(self, value: Opaque, name: str, node: ast.Call, args: Args, kwargs: Kwargs) -> Value | None:
        taint = value.taint
        if value.qualname == "jinja:env" and name in ("from_string", "get_template"):
            source = args[0][0] if args else NOTHING
            if name == "from_string":
                return Template(source if isinstance(source, Text) else None, loc=self.loc(node))
            return Template(None, formats.static_text(source) or "", self.loc(node))
        if taint.volatile and name in tables.JSON_BODY_METHODS:
            body = Taint(taint.kind, f"the request's JSON body (`{_short(self.src(node))}`)", node.lineno)
            return Opaque(body, mapping=body, str_keys=True)
        if name in ("items", "keys", "values") and (value.mapping is not None or taint.volatile):
            disorder = self._map_disorder(value.mapping, value.str_keys, node)
            return Seq(None, Opaque(taint, mapping=value.mapping), "list", taint, list(disorder), tuple(self.guards))
        if taint.kind == CLOCK and name == "strftime" and args:
            fmt = formats.static_text(args[0][0])
            if fmt is not None and formats.date_only(fmt):
                return Opaque(replace(taint, kind=DATE, reason=taint.reason.replace("the clock", "the date")))
        if taint.kind == CLOCK and name in tables.DATE_METHODS:
            return Opaque(replace(taint, kind=DATE, reason=taint.reason.replace("the clock", "the date")))
        if name == "get" and value.mapping is not None:
            return Opaque(taint, mapping=value.mapping, str_keys=value.str_keys)
        if taint.volatile and not value.qualname:
            return Opaque(strongest([taint, _call_taint(args, kwargs)]), disorder=value.disorder)
        return None

    # --- templates --------------------------------------------------------------------------------

    def _render(self, template: Template, name: str, node: ast.Call, args: Args, kwargs: Kwargs) -> Value | None:
        if name not in ("render", "render_async", "substitute", "safe_substitute"):
            return None
        values = {k: v for k, v in kwargs.items() if k != "**"}
        for spread in ([args[0]] if args else []) + ([kwargs["**"]] if "**" in kwargs else []):
            if isinstance(spread[0], Mapping):  # render(context) and render(**context)
                values.update({k: (v, spread[1], spread[2]) for k, v in spread[0].entries.items()})
        source = formats.static_text(template.source) if template.source is not None else None
        if not template.jinja and source is not None:
            return formats.substitute(source, values, (NOTHING, self.loc(node), self.src(node)))
        timed = [(key, arg) for key, arg in values.items() if taint_of(arg[0]).timed]
        for key, (value, loc, shown) in timed:
            after = _after_variable(source, key) if source is not None else None
            if after == "":
                continue  # the template renders it at its very end
            prompt = prompts.Prompt(sent=f"the template rendered at line {node.lineno}")
            t = taint_of(value)
            part = Part(None, t, loc, shown)
            prompt.slots.append(prompts.Slot(part, f"template variable `{key}`"))
            prompt.slots.append(prompts.Slot(Part(after) if after else Part(None, Taint(STEADY)), f"template variable `{key}`"))
            self.report(prompt)
        if timed:
            key, (value, loc, shown) = max(timed, key=lambda kv: taint_of(kv[1][0]).rank)
            return Text((Part(None, taint_of(value), loc, shown),))
        return Text((Part(None, Taint(STEADY, "a rendered template"), self.loc(node), self.src(node), placed=False),))

    # --- the module's own functions ---------------------------------------------------------------

    def follow(self, func: Func, node: ast.Call, args: Args, kwargs: Kwargs) -> Value:
        """Evaluate a call of the module's own function with the values it is given."""
        fnode = func.node
        if isinstance(fnode, ast.Lambda):
            return self._lambda(fnode, args)
        if len(self.calls) >= MAX_CALL_DEPTH or fnode in self.calls or self.exhausted:
            return Opaque(_call_taint(args, kwargs))
        frame = Frame(env={}, func=fnode.name, owner=func.owner)
        if func.owner and func.owner == self.frame.owner:
            frame.self_attrs = self.frame.self_attrs
        self.bind_arguments(frame, fnode.args, args, kwargs, method=bool(func.owner))
        return self.run(fnode, frame)

    def _lambda(self, fnode: ast.Lambda, args: Args) -> Value:
        saved = dict(self.frame.env)
        for param, arg in zip(fnode.args.args, args):
            self.bind(param.arg, arg[0])
        out = self.eval(fnode.body)
        self.reset_env(saved)
        return out

    def bind_arguments(self, frame: Frame, spec: ast.arguments, args: Args, kwargs: Kwargs, method: bool) -> None:
        params = [*spec.posonlyargs, *spec.args]
        if method and params:
            params = params[1:]
            frame.env["self"] = Instance(frame.owner)
        defaults = dict(zip([p.arg for p in params][len(params) - len(spec.defaults):], spec.defaults))
        defaults.update({p.arg: d for p, d in zip(spec.kwonlyargs, spec.kw_defaults) if d is not None})
        for i, p in enumerate(params):
            if i < len(args):
                frame.env[p.arg] = args[i][0]
        spread = kwargs["**"][0] if "**" in kwargs else None
        for p in [*params, *spec.kwonlyargs]:
            if p.arg in kwargs:
                frame.env[p.arg] = kwargs[p.arg][0]
            elif isinstance(spread, Mapping) and p.arg in spread.entries:
                frame.env[p.arg] = spread.entries[p.arg]
            elif p.arg not in frame.env:
                frame.env[p.arg] = self.eval(defaults[p.arg]) if p.arg in defaults else Opaque(_call_taint(args, kwargs))
        if spec.vararg is not None:
            rest = [a[0] for a in args[len(params):]]
            frame.env[spec.vararg.arg] = Seq(rest, join(NOTHING, rest[0]) if rest else NOTHING, "tuple")
        if spec.kwarg is not None:
            named = {p.arg for p in [*params, *spec.kwonlyargs]}
            frame.env[spec.kwarg.arg] = Mapping({k: v[0] for k, v in kwargs.items() if k not in named and k != "**"})

    def run(self, fnode: ast.FunctionDef | ast.AsyncFunctionDef, frame: Frame) -> Value:
        raise NotImplementedError


def _call_taint(args: Args, kwargs: Kwargs) -> Taint:
    """What an unknown function returns varies as much as what it is given (a database or
    retriever lookup keyed by the question is as per-request as the question)."""
    best = strongest([*(taint_of(a[0]) for a in args), *(taint_of(a[0]) for a in kwargs.values())])
    return best if best.volatile else Taint(STEADY)


def _chain(func: ast.expr) -> list[str]:
    names: list[str] = []
    node = func
    while isinstance(node, ast.Attribute):
        names.append(node.attr)
        node = node.value
    names.append(node.id if isinstance(node, ast.Name) else "")
    return names[::-1]


def _short(text: str) -> str:
    one = " ".join(text.split())
    return one if len(one) <= 48 else one[:45] + "..."


def _safe(fix: Fix | None) -> Fix | None:
    return replace(fix, applicability="safe") if fix is not None else None


_JINJA_TAG = re.compile(r"\{%.*?%\}|\{#.*?#\}|\{\{.*?\}\}", re.DOTALL)


def _after_variable(source: str, name: str) -> str | None:
    """The static text a Jinja template renders after its first use of ``name`` (None when
    it does not use it by that name)."""
    m = re.search(r"\{\{-?\s*" + re.escape(name) + r"\b", source)
    if m is None:
        return None
    close = source.find("}}", m.end())
    rest = source[close + 2:] if close >= 0 else ""
    return _JINJA_TAG.sub("", rest).strip()


# --- builtins ---------------------------------------------------------------------------------------

def _sorted(ev: Calls, node: ast.Call, args: Args, kwargs: Kwargs) -> Value:
    """``sorted(x)`` fixes the order of what ``x`` holds (not which items: a sample stays one).
    With a ``key`` that can tie (``key=len``), items with equal keys keep the order they came
    in: a set's hash order survives the sort unless the key ends with the item itself."""
    if not args:
        return Opaque(CONST)
    value = args[0][0]
    if isinstance(value, Mapping):
        value = ev._view(value, "keys", node)
    if not isinstance(value, (Seq, Opaque)):
        return Opaque(taint_of(value))
    it = ev.iterate(value, node.args[0], (node.lineno, node.col_offset)) if node.args else None
    found = list(it.disorder) if it is not None else list(disorder_of(value))
    kept = [d for d in found if d.kind not in ORDER_KINDS or d.kind == SAMPLED]
    key = next((k.value for k in node.keywords if k.arg == "key"), None)
    if key is not None and not _total_key(key, node.args[0] if node.args else None):
        why = f"`{_short(ev.src(node))}` sorts by a key that can tie, and items with equal keys keep the order they came in"
        kept += [Disorder(d.kind, ev.loc(node), f"{why}: {d.detail}") for d in found if d.kind in ORDER_KINDS and d.kind != SAMPLED]
    taint = value.taint
    elem = element_of(value) if isinstance(value, Seq) else Opaque(value.taint)
    origins = value.origins if isinstance(value, Seq) else frozenset()
    return Seq(None, elem, "list", taint, kept, tuple(ev.guards), origins, isinstance(value, Seq) and value.str_items)


def _total_key(key: ast.expr, items: ast.expr | None) -> bool:
    """Whether a sort key orders every item apart: the item itself, ``str`` of it, a tuple
    that ends with it (``lambda x: (len(x), x)``), or a mapping item's key (``kv[0]``,
    ``itemgetter(0)`` over ``.items()``: keys are unique)."""
    if isinstance(key, ast.Name) and key.id in ("str", "repr"):
        return True
    pairs = isinstance(items, ast.Call) and isinstance(items.func, ast.Attribute) and items.func.attr == "items"
    if isinstance(key, ast.Call) and _dotted_name(key.func).endswith("itemgetter") and len(key.args) == 1:
        first = key.args[0]
        return pairs and isinstance(first, ast.Constant) and first.value == 0
    if not isinstance(key, ast.Lambda) or len(key.args.args) != 1:
        return False
    name = key.args.args[0].arg
    body = key.body
    parts = body.elts if isinstance(body, ast.Tuple) else [body]
    return any(_is_name(p, name) or (pairs and _first_of(p, name)) for p in parts)


def _is_name(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _first_of(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Subscript) and _is_name(node.value, name) and isinstance(node.slice, ast.Constant) \
        and node.slice.value == 0


def _dotted_name(node: ast.expr) -> str:
    return ".".join(_chain(node))


def _ordered(ev: Calls, node: ast.Call, args: Args, kwargs: Kwargs) -> Value:
    """list(x), tuple(x), reversed(x), enumerate(x), iter(x): the same items, the same order
    (a set's order becomes the list's: the call is where it is fixed)."""
    if not args:
        return Seq([], NOTHING, "list", made_under=tuple(ev.guards))
    value = args[0][0]
    if isinstance(value, Seq):
        it = ev.iterate(value, node.args[0], (node.lineno, node.col_offset))
        items = it.items if it.items is not None else None
        return Seq(list(items) if items is not None else None, element_of(value), "list", value.taint,
                   [*value.disorder, *(d for d in it.disorder if d not in value.disorder)], tuple(ev.guards),
                   value.origins, value.str_items)
    if isinstance(value, (Mapping, Opaque)):
        it = ev.iterate(value, node.args[0], (node.lineno, node.col_offset))
        return Seq(it.items, it.elem, "list", it.count, list(it.disorder), tuple(ev.guards))
    return Opaque(taint_of(value))


def _set(ev: Calls, node: ast.Call, args: Args, kwargs: Kwargs) -> Value:
    value = args[0][0] if args else NOTHING
    str_items = isinstance(value, Seq) and value.str_items
    items = value.items if isinstance(value, Seq) and value.items is not None else None
    return Seq(items, element_of(value) if args else NOTHING, "set", taint_of(value) if args else CONST,
               made_under=tuple(ev.guards), str_items=str_items)


def _dict(ev: Calls, node: ast.Call, args: Args, kwargs: Kwargs) -> Value:
    m = ev.merged([args[0][0]] if args else [])
    if args and isinstance(args[0][0], Seq):  # dict(pairs): the pairs' order
        pairs = args[0][0]
        m.order = m.order or (pairs.taint if pairs.taint.volatile else None)
        m.disorder.extend(pairs.disorder)
        m.extra = element_of(pairs)
    for key, arg in kwargs.items():
        if key == "**":
            ev.spread(m, arg[0])
        else:
            m.entries[key] = arg[0]
    return m


def _str(ev: Calls, node: ast.Call, args: Args, kwargs: Kwargs) -> Value:
    """``str(x)``, ``repr(x)``, ``format(x)``: the text of ``x`` (a set in its iteration
    order, a mapping in its key order), a string on its own until it is put into a text."""
    if not args:
        return static("")
    value, loc, shown = args[0]
    if node.args:
        value = ev.printed(value, node.args[0], node)
    if isinstance(value, Text):
        return value
    if isinstance(value, Opaque) and not value.has_literal:
        return Text((Part(None, value.taint, ev.loc(node), ev.src(node), value.disorder, placed=False),))
    return Text(text_parts(value, loc, shown))


def _fromkeys(ev: Calls, node: ast.Call, args: Args, kwargs: Kwargs) -> Value:
    """``dict.fromkeys(x)``: the keys in the order ``x`` iterates in (a set's hash order)."""
    if not args or not node.args:
        return Mapping(made_under=tuple(ev.guards))
    it = ev.iterate(args[0][0], node.args[0], (node.lineno, node.col_offset))
    value = args[1][0] if len(args) > 1 else NOTHING
    keys = [formats.static_text(k) for k in it.items] if it.items is not None else None
    if keys is not None and all(k is not None for k in keys):
        return Mapping({k: value for k in keys if k is not None}, made_under=tuple(ev.guards), disorder=list(it.disorder))
    order = it.count if it.count.volatile else None
    return Mapping({}, {}, value, order, isinstance(args[0][0], Seq) and args[0][0].str_items, it.count, list(it.disorder),
                   tuple(ev.guards))


def _passthrough(ev: Calls, node: ast.Call, args: Args, kwargs: Kwargs) -> Value:
    return args[0][0] if args else NOTHING


def _filter(ev: Calls, node: ast.Call, args: Args, kwargs: Kwargs) -> Value:
    """``filter(pred, xs)``: the items ``pred`` keeps, in the order ``xs`` iterates in; a
    predicate that reads request data picks the items by it."""
    if len(args) < 2:
        return Opaque(_call_taint(args, kwargs))
    it, items_node = _each(ev, node, args)
    disorder = [*it.disorder, *ev.selected(it, items_node)]
    if not (isinstance(node.args[0], ast.Constant) and node.args[0].value is None):
        t = taint_of(ev.call_value(node.args[0], [(it.elem, args[1][1], args[1][2])], node, [items_node]))
        if t.volatile and t.kind != ELEMENT and t.origin == (0, 0):
            disorder.append(Disorder(FILTERED, ev.loc(node), f"`{_short(ev.src(node))}` picks items by {t.reason or 'request data'}"))
    return Seq(None, it.elem, "list", _count(it), disorder, tuple(ev.guards), frozenset({it.origin}))


def _map(ev: Calls, node: ast.Call, args: Args, kwargs: Kwargs) -> Value:
    """``map(f, xs)``: ``f`` called on each item of ``xs``, in the order ``xs`` iterates in."""
    if len(args) < 2:
        return Opaque(_call_taint(args, kwargs))
    it, items_node = _each(ev, node, args)
    elem = ev.call_value(node.args[0], [(it.elem, args[1][1], args[1][2])], node, [items_node])
    return Seq(None, elem, "list", _count(it), [*it.disorder, *ev.selected(it, items_node)], tuple(ev.guards),
               frozenset({it.origin}), formats.static_text(elem) is not None)


def _each(ev: Calls, node: ast.Call, args: Args) -> tuple[Iteration, ast.expr]:
    items_node = node.args[1]
    return ev.iterate(args[1][0], items_node, (node.lineno, node.col_offset)), items_node


def _count(it: Iteration) -> Taint:
    return it.count if it.count.volatile and it.count.kind != ELEMENT else CONST


_BY_NAME: dict[str, Callable[[Calls, ast.Call, Args, Kwargs], Value]] = {
    "builtins.sorted": _sorted,
    **{name: _ordered for name in tables.ORDER_KEEPING},
    **{name: _set for name in tables.SET_TYPES},
    "builtins.dict": _dict,
    "collections.OrderedDict": _dict,
    "builtins.dict.fromkeys": _fromkeys,
    "collections.OrderedDict.fromkeys": _fromkeys,
    "builtins.str": _str,
    "builtins.repr": _str,
    "builtins.format": _str,
    "builtins.filter": _filter,
    "builtins.map": _map,
    "copy.copy": _passthrough,
    "copy.deepcopy": _passthrough,
}

