"""The values the Python analysis reasons about, and how they combine.

A string is a :class:`Text`: a sequence of :class:`Part` s, each either known static text or
a value with a :class:`Taint` (why it can differ between requests) and the place it is put
into the text. Lists and dicts are mutable objects (:class:`Seq`, :class:`Mapping`), so an
``append`` through one name is seen through every other name of the same list, as in Python.
Order and membership problems (a set iterated, a list shuffled, a tool list filtered per
request) travel as :class:`Disorder` s, each pinned to the call that causes it.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field, replace
from typing import Iterable, Union

from advisor.lint.fix import Fix

# Why a value varies, weakest first. ELEMENT: one element of a collection the code iterates
# (each a different prompt when a prompt is built per element, the same when all are joined).
STATIC, STEADY, ELEMENT, REQUEST, DATE, CLOCK, RANDOM = "static", "steady", "element", "request", "date", "clock", "random"
_RANK = {STATIC: 0, STEADY: 1, ELEMENT: 2, REQUEST: 3, DATE: 4, CLOCK: 5, RANDOM: 6}


@dataclass(frozen=True)
class Loc:
    """A source range: 1-based lines and columns (characters, not bytes)."""

    line: int
    column: int
    end_line: int
    end_column: int


@dataclass(frozen=True)
class Taint:
    kind: str = STATIC
    reason: str = ""  # what it is, for messages: "the clock call `datetime.now()`"
    line: int = 0  # where it was produced
    origin: tuple[int, int] = (0, 0)  # ELEMENT: the loop or comprehension it is an element of

    @property
    def rank(self) -> int:
        return _RANK[self.kind]

    @property
    def volatile(self) -> bool:
        """Different from one request (or one prompt of a batch) to the next."""
        return self.rank >= _RANK[ELEMENT]

    @property
    def timed(self) -> bool:
        """A clock, date or random value: it differs even between identical requests."""
        return self.rank >= _RANK[DATE]


CONST = Taint()
STEADY_TAINT = Taint(STEADY)


def strongest(taints: Iterable[Taint]) -> Taint:
    best = CONST
    for t in taints:
        if t.rank > best.rank:
            best = t
    return best


# Kinds of order and membership problems. SELECTED: the items, and their order, are those of
# a loop over request data (a tool list built from the names a request sends); in text the
# loop's own taint says it already, so only a tool list reports it.
SET_ORDER, MAP_ORDER, SHUFFLED, SAMPLED, FILTERED, BRANCHED, SELECTED = (
    "set", "mapping", "shuffle", "sample", "filter", "branch", "select"
)
ORDER_KINDS = frozenset({SET_ORDER, MAP_ORDER, SHUFFLED, SAMPLED})


@dataclass(frozen=True)
class Disorder:
    kind: str
    loc: Loc
    detail: str  # a clause: "`random.shuffle(examples)` shuffles `examples` on every call"
    fix: Fix | None = None
    # A choice between a whole list and nothing (``TOOLS if agent else []``): fine for a
    # whole tool list (all tools or none), a membership change inside a larger one.
    whole: bool = False


@dataclass(frozen=True)
class Part:
    text: str | None = None  # known static text; None: not known here
    taint: Taint = CONST
    loc: Loc | None = None  # where the value is put into the text
    source: str = ""  # that expression, for messages
    disorder: tuple[Disorder, ...] = ()
    # False: a string made on its own (``str(x)``, ``json.dumps(x)``), not yet put into a
    # larger text; the text it is put into places it there (values.text_parts).
    placed: bool = True
    loop: str = ""  # the text of a loop over request data: "for" or "while" (source: "the loop over `x`")


@dataclass(frozen=True)
class Text:
    parts: tuple[Part, ...] = ()


@dataclass(frozen=True)
class Opaque:
    """A value whose content is not followed: a number, an object, a module, a call result."""

    taint: Taint = CONST
    qualname: str = ""  # an imported module, class or function ("datetime.datetime")
    literal: object = None
    has_literal: bool = False
    mapping: Taint | None = None  # a mapping (or data holding mappings) whose key order comes from this
    str_keys: bool = False  # a mapping known to have string keys (a JSON body)
    is_set: bool = False
    disorder: tuple[Disorder, ...] = ()
    is_mapping: bool = False  # a mapping itself (``**kwargs``, a JSON body), not just data that may hold one
    cls: str = ""  # an object of this class of the module (a parameter annotated with it)


@dataclass(eq=False)
class Seq:
    """A list, tuple or set. ``items`` are known in order, or None (then ``elem`` joins them)."""

    items: list[Value] | None
    elem: Value
    kind: str = "list"  # list | tuple | set
    taint: Taint = CONST  # why its length varies (built by a loop over request data)
    disorder: list[Disorder] = field(default_factory=list)
    made_under: tuple = ()  # the guards in force when it was made (see Guard)
    origins: frozenset[tuple[int, int]] = frozenset()  # loops whose elements it collects
    str_items: bool = False  # every element is known to be a string


@dataclass(frozen=True)
class Splat:
    """``*x`` inside a list, or items appended by a loop or under a condition."""

    value: Value
    loc: Loc | None = None
    source: str = ""


@dataclass(eq=False)
class Mapping:
    entries: dict[str, Value] = field(default_factory=dict)
    key_locs: dict[str, Loc] = field(default_factory=dict)
    extra: Value | None = None  # values under keys not known here
    order: Taint | None = None  # its key order comes from request data (why)
    str_keys: bool = True
    taint: Taint = CONST
    disorder: list[Disorder] = field(default_factory=list)
    made_under: tuple = ()
    origins: frozenset[tuple[int, int]] = frozenset()


@dataclass(frozen=True)
class Client:
    """An LLM client object, and the attributes read from it so far."""

    kind: str
    path: tuple[str, ...] = ()


@dataclass(frozen=True)
class Func:
    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
    owner: str = ""  # the class it is a method of


@dataclass(frozen=True)
class ClassRef:
    name: str


@dataclass(frozen=True)
class Instance:
    cls: str


@dataclass(frozen=True)
class Template:
    """A Jinja or string.Template template: its source when the code holds it, or its name."""

    source: Text | None = None
    name: str = ""
    loc: Loc | None = None
    jinja: bool = True


Value = Union[Text, Opaque, Seq, Mapping, Splat, Client, Func, ClassRef, Instance, Template]
NOTHING = Opaque(has_literal=True, literal=None)


@dataclass(frozen=True)
class Guard:
    """An ``if``, loop or ``while`` the code is inside: what it depends on."""

    taint: Taint
    loc: Loc
    what: str  # "the branch on `user.tier`", "the loop over `docs`"
    loop: bool
    disorder: tuple[Disorder, ...] = ()  # how the loop's order can vary (a set, a shuffled list)
    origin: tuple[int, int] = (0, 0)  # for a loop: the key of its elements' ELEMENT taint


def static(text: str) -> Text:
    return Text((Part(text),))


def literal(value: object) -> Value:
    return static(value) if isinstance(value, str) else Opaque(has_literal=True, literal=value)


def is_none(value: Value) -> bool:
    return isinstance(value, Opaque) and value.has_literal and value.literal is None


# --- what a value holds -------------------------------------------------------------------------

_DEPTH = 12


def taint_of(value: Value, depth: int = 0) -> Taint:
    """The strongest reason anything in ``value`` varies (elements of its own loops excluded)."""
    if depth > _DEPTH:
        return CONST
    if isinstance(value, Text):
        return strongest(p.taint for p in value.parts)
    if isinstance(value, Opaque):
        return value.taint
    if isinstance(value, Splat):
        return taint_of(value.value, depth + 1)
    if isinstance(value, Seq):
        inner = [taint_of(v, depth + 1) for v in _members(value)]
        return strongest([value.taint, *(t for t in inner if t.origin not in value.origins or t.kind != ELEMENT)])
    if isinstance(value, Mapping):
        inner = [taint_of(v, depth + 1) for v in _mapping_values(value)]
        return strongest([value.taint, *(t for t in inner if t.origin not in value.origins or t.kind != ELEMENT)])
    return CONST


def disorder_of(value: Value, depth: int = 0) -> tuple[Disorder, ...]:
    """Every order or membership problem inside ``value``."""
    if depth > _DEPTH:
        return ()
    found: list[Disorder] = []
    if isinstance(value, Text):
        found = [d for p in value.parts for d in p.disorder]
    elif isinstance(value, Opaque):
        found = list(value.disorder)
    elif isinstance(value, Splat):
        found = list(disorder_of(value.value, depth + 1))
    elif isinstance(value, Seq):
        found = list(value.disorder) + [d for v in _members(value) for d in disorder_of(v, depth + 1)]
    elif isinstance(value, Mapping):
        found = list(value.disorder) + [d for v in _mapping_values(value) for d in disorder_of(v, depth + 1)]
    return tuple(dict.fromkeys(found))


def mapping_order(value: Value, depth: int = 0) -> tuple[Taint, bool] | None:
    """Why the key order of a mapping inside ``value`` comes from request data, and whether
    its keys are known to be strings; None when every mapping's order is fixed by the code."""
    if depth > _DEPTH:
        return None
    if isinstance(value, Opaque):
        return (value.mapping, value.str_keys) if value.mapping is not None else None
    if isinstance(value, Mapping) and value.order is not None:
        return value.order, value.str_keys
    inner: list[Value] = []
    if isinstance(value, Mapping):
        inner = list(_mapping_values(value))
    elif isinstance(value, Seq):
        inner = list(_members(value))
    elif isinstance(value, Splat):
        inner = [value.value]
    for v in inner:
        found = mapping_order(v, depth + 1)
        if found is not None:
            return found
    return None


def _members(seq: Seq) -> Iterable[Value]:
    if seq.items is None:
        return (seq.elem,)
    return seq.items


def _mapping_values(m: Mapping) -> Iterable[Value]:
    yield from m.entries.values()
    if m.extra is not None:
        yield m.extra


def element_of(value: Value) -> Value:
    """One element of a collection, as far as it is known."""
    if isinstance(value, Seq):
        if value.items is None:
            return value.elem
        out: Value | None = None
        for item in value.items:
            one = element_of(item.value) if isinstance(item, Splat) else item
            out = one if out is None else join(out, one)
        return out if out is not None else NOTHING
    if isinstance(value, Mapping):
        keys = [static(k) for k in value.entries]
        out2: Value | None = None
        for k in keys:
            out2 = k if out2 is None else join(out2, k)
        return out2 if out2 is not None else Opaque(value.order or value.taint)
    if isinstance(value, Splat):
        return element_of(value.value)
    return Opaque(taint_of(value))


def members(value: Value, depth: int = 0) -> list[Value]:
    """What a collection holds, one value per known item, each ``*splat`` (items added by
    ``extend``, ``+=`` or a loop) opened; a collection of unknown items stands for them with
    one element. Every item ever added is here: a list's contents are the join of them."""
    if isinstance(value, Splat):
        return members(value.value, depth + 1)
    if not isinstance(value, Seq) or depth > _DEPTH:
        return [value]
    if value.items is None:
        return [value.elem]
    out: list[Value] = []
    for item in value.items:
        out.extend(members(item.value, depth + 1) if isinstance(item, Splat) else [item])
    return out


def with_disorder(value: Value, extra: tuple[Disorder, ...]) -> Value:
    """``value`` with more order or membership problems (a copy: collections are shared)."""
    if not extra:
        return value
    if isinstance(value, Text):
        head = Part("", CONST, extra[0].loc, "", extra)
        return Text((head, *value.parts))
    if isinstance(value, Seq):
        return Seq(value.items if value.items is None else list(value.items), value.elem, value.kind, value.taint,
                   [*value.disorder, *extra], value.made_under, value.origins, value.str_items)
    if isinstance(value, Mapping):
        return Mapping(dict(value.entries), dict(value.key_locs), value.extra, value.order, value.str_keys, value.taint,
                       [*value.disorder, *extra], value.made_under, value.origins)
    if isinstance(value, Opaque):
        return replace(value, disorder=(*value.disorder, *extra))
    return Opaque(taint_of(value), disorder=extra)


def literal_of(value: Value, depth: int = 0) -> tuple[bool, object]:
    """The Python value of a fully static ``value`` (to count a constant's tokens)."""
    if depth > _DEPTH:
        return False, None
    if isinstance(value, Text):
        if all(p.text is not None and p.taint.kind == STATIC for p in value.parts):
            return True, "".join(p.text or "" for p in value.parts)
        return False, None
    if isinstance(value, Opaque):
        return value.has_literal, value.literal
    if isinstance(value, Seq) and value.items is not None and not value.disorder and value.kind != "set":
        out = []
        for item in value.items:
            ok, v = (False, None) if isinstance(item, Splat) else literal_of(item, depth + 1)
            if not ok:
                return False, None
            out.append(v)
        return True, out
    if isinstance(value, Mapping) and value.extra is None and value.order is None and not value.disorder:
        d = {}
        for k, v in value.entries.items():
            ok, lit = literal_of(v, depth + 1)
            if not ok:
                return False, None
            d[k] = lit
        return True, d
    return False, None


# --- text -----------------------------------------------------------------------------------------

def text_parts(value: Value, loc: Loc | None, source: str) -> tuple[Part, ...]:
    """The parts of ``str(value)`` placed into a text at ``loc``: a string made on its own
    (``sid = str(uuid4())``) is placed where it is put into this text, as a value is."""
    if isinstance(value, Text):
        if all(p.placed for p in value.parts):
            return value.parts
        return tuple(p if p.placed else replace(p, loc=loc or p.loc, source=source if loc else p.source, placed=True)
                     for p in value.parts)
    if isinstance(value, Opaque):
        if value.has_literal and value.literal is not None:
            return (Part(str(value.literal)),)
        return (Part(None, value.taint, loc, source, value.disorder),)
    if isinstance(value, Splat):
        return text_parts(value.value, loc, source)
    if isinstance(value, Seq):
        return seq_parts(value, ", ", loc, source)
    if isinstance(value, Mapping):
        ok, lit = literal_of(value)
        if ok:
            return (Part(str(lit)),)
        return (Part(None, taint_of(value), loc, source, disorder_of(value)),)
    return (Part(None, CONST, loc, source),)


def seq_parts(seq: Seq, sep: str, loc: Loc | None, source: str, extra: tuple[Disorder, ...] = ()) -> tuple[Part, ...]:
    """The parts of ``sep.join(seq)``: each known item in order, or one part standing for
    the items (its own loops' elements are the same from one prompt to the next) followed by
    the values inside them that vary more than the collection does. ``extra``: order
    problems of this very iteration (a set joined), pinned to an empty first part."""
    if seq.items is not None:
        order = tuple(dict.fromkeys((*extra, *seq.disorder)))
        head = (Part("", CONST, loc, source, order),) if order else ()
        out: list[Part] = list(head)
        for i, item in enumerate(seq.items):
            if i and sep:
                out.append(Part(sep))
            if isinstance(item, Splat):
                inner = item.value
                where, what = item.loc or loc, item.source or source
                out.extend(seq_parts(inner, sep, where, what) if isinstance(inner, Seq) else text_parts(inner, where, what))
            else:
                out.extend(text_parts(item, loc, source))
        return tuple(out)
    inner_parts = text_parts(element_of(seq), loc, source)

    def own(p: Part) -> bool:
        return p.taint.kind == ELEMENT and p.taint.origin in seq.origins

    floor = max(seq.taint.rank, _RANK[STEADY])
    kept = tuple(p for p in inner_parts if p.loc is not None and p.taint.rank > floor and not own(p))
    disorder = tuple(dict.fromkeys((*extra, *seq.disorder, *(d for p in inner_parts for d in p.disorder))))
    return (Part(None, seq.taint, loc, source, disorder), *kept)


def concat(*texts: Text) -> Text:
    return Text(tuple(p for t in texts for p in t.parts))


# --- joining the values of two paths ------------------------------------------------------------

def join(a: Value, b: Value, guard: Guard | None = None) -> Value:
    """What a name holds after an ``if`` (``a`` on one path, ``b`` on the other) or a loop
    (``a`` before it, ``b`` after one more turn)."""
    if a is b or (type(a) is type(b) and a == b):
        return a
    if is_none(a):
        return b
    if is_none(b):
        return a
    if isinstance(a, Text) and isinstance(b, Text):
        return _join_text(a, b, guard)
    if isinstance(a, Seq) and isinstance(b, Seq):
        return _join_seq(a, b, guard)
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return _join_mapping(a, b)
    return _join_other(a, b, guard)


def _join_other(a: Value, b: Value, guard: Guard | None) -> Value:
    """Two values of different kinds. After a loop the value varies as much as the loop's
    count does; after a branch it is one of the two: it varies as much as they do, and when
    the condition varies more than either, the choice itself is the problem (a tool list
    chosen by request data), pinned to the condition, as for two texts (``middle``)."""
    taint = strongest([taint_of(a), taint_of(b)])
    disorder = tuple(dict.fromkeys((*disorder_of(a), *disorder_of(b))))
    if guard is None or not guard.taint.volatile:
        return Opaque(taint, disorder=disorder)
    if guard.loop:
        return Opaque(strongest([taint, guard.taint]), disorder=disorder)
    if guard.taint.rank > taint.rank and guard.taint.kind != ELEMENT:  # an element of a loop: the same each request
        why = guard.taint.reason or "request data"
        disorder += (Disorder(BRANCHED, guard.loc, f"{guard.what} picks one of two values by {why}"),)
    return Opaque(taint, disorder=disorder)


def _join_text(a: Text, b: Text, guard: Guard | None) -> Text:
    pa, pb = a.parts, b.parts
    n = 0
    while n < len(pa) and n < len(pb) and pa[n] == pb[n]:
        n += 1
    m = 0
    while m < len(pa) - n and m < len(pb) - n and pa[-1 - m] == pb[-1 - m]:
        m += 1
    mids = pa[n:len(pa) - m] + pb[n:len(pb) - m]
    return Text(pa[:n] + middle(mids, guard) + pa[len(pa) - m:])


def middle(mids: tuple[Part, ...], guard: Guard | None) -> tuple[Part, ...]:
    """The parts that one path has and the other has not, as the text after both sees them:
    one part for the construct (the branch or loop), then the values inside it that vary
    more than the construct itself does, so that they are still reported where they are."""
    if not mids:
        return ()
    gt = guard.taint if guard is not None else CONST
    origin = guard.origin if guard is not None and guard.loop else None

    def own(p: Part) -> bool:  # an element of this very loop: the same text each turn
        return origin is not None and p.taint.kind == ELEMENT and p.taint.origin == origin

    floor = gt.rank if gt.volatile else _RANK[STEADY]
    kept = tuple(p for p in mids if p.loc is not None and (p.disorder or p.taint.rank > floor) and not own(p))
    folded = tuple(d for p in mids if p not in kept for d in p.disorder)
    if guard is None:
        return (Part(None), *kept) if len(kept) < len(mids) else kept
    disorder = tuple(dict.fromkeys((*guard.disorder, *folded)))
    if gt.volatile and not guard.loop:
        branch = Disorder(BRANCHED, guard.loc, f"text that depends on {guard.what} ({gt.reason or 'request data'})")
        return (Part(None, CONST, guard.loc, guard.what, (branch, *disorder)), *kept)
    taint = Taint(gt.kind, gt.reason, guard.loc.line, gt.origin) if gt.volatile else CONST
    kind = ("for" if guard.what.startswith("the loop over") else "while") if gt.volatile else ""
    return (Part(None, taint, guard.loc, guard.what, disorder, loop=kind), *kept)


def _join_seq(a: Seq, b: Seq, guard: Guard | None) -> Seq:
    disorder = list(dict.fromkeys([*a.disorder, *b.disorder]))
    if guard is not None and guard.taint.volatile and not guard.loop:
        why = guard.taint.reason or "request data"
        if _non_empty(a) and _non_empty(b):
            disorder.append(Disorder(BRANCHED, guard.loc, f"{guard.what} picks one of two lists by {why}"))
        elif (_non_empty(a) or _non_empty(b)) and guard.taint.kind != ELEMENT:
            disorder.append(Disorder(BRANCHED, guard.loc, f"{guard.what} adds or leaves out items by {why}", whole=True))
    return Seq(None, join(element_of(a), element_of(b)), a.kind, strongest([a.taint, b.taint]), disorder,
               a.made_under, a.origins | b.origins, a.str_items and b.str_items)


def _non_empty(seq: Seq) -> bool:
    return seq.items is None or bool(seq.items)


def _join_mapping(a: Mapping, b: Mapping) -> Mapping:
    entries = dict(a.entries)
    for k, v in b.entries.items():
        entries[k] = join(entries[k], v) if k in entries else v
    extra = a.extra if b.extra is None else (b.extra if a.extra is None else join(a.extra, b.extra))
    return Mapping(entries, {**b.key_locs, **a.key_locs}, extra, a.order or b.order, a.str_keys and b.str_keys,
                   strongest([a.taint, b.taint]), list(dict.fromkeys([*a.disorder, *b.disorder])), a.made_under,
                   a.origins | b.origins)
