"""A prompt as the serving engine sees it, and the problems in its prefix.

A request's parts are laid out in the order prefix caches see them: the tool list, the
system prompt, then the messages. Each piece of text is a *slot*. A slot in the last message
(after anything else) is the request's own tail, where per-request content belongs: it is
never reported. With Anthropic ``cache_control`` breakpoints, only the text up to the last
breakpoint is cached, so only that text is at risk.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Callable

from advisor.lint.fix import Fix
import advisor.lint.python.tables as tables
from advisor.lint.python.values import (
    BRANCHED, CONST, DATE, ELEMENT, FILTERED, MAP_ORDER, SAMPLED, SELECTED, SET_ORDER, SHUFFLED, Disorder, Loc, Mapping,
    Opaque, Part, Seq, Splat, Text, Value, disorder_of, element_of, literal_of, members, taint_of,
)

PC101, PC102, PC103, PC403, PC501 = "PC101", "PC102", "PC103", "PC403", "PC501"
# The code of an order or membership problem in text and in the tool list. A tool list built
# by a loop over request data (SELECTED) is PC403; in text that loop is a per-request value
# already (PC101), so SELECTED has no code there.
_IN_TEXT = {SET_ORDER: PC103, MAP_ORDER: PC103, SHUFFLED: PC101, SAMPLED: PC101, FILTERED: PC102, BRANCHED: PC102}
_IN_TOOLS = {SET_ORDER: PC103, MAP_ORDER: PC103, SHUFFLED: PC403, SAMPLED: PC403, FILTERED: PC403, BRANCHED: PC403,
             SELECTED: PC403}
_TOOLS, _SYSTEM, _PROMPT, _INPUT = "the tool list", "the system prompt", "the prompt", "the input"


@dataclass(frozen=True)
class Slot:
    part: Part
    region: str  # "the system prompt", "message 2 (user)", ...
    last: bool = False  # in the last message, after other parts of the prompt
    tools: bool = False


@dataclass
class Prompt:
    slots: list[Slot] = field(default_factory=list)
    breaks: list[tuple[int, Loc]] = field(default_factory=list)  # cache_control after slots[i]
    sent: str = ""  # where it is sent: "the request at line 40"
    # Whether per-request values count: not in a prompt a helper returns, which may well be
    # the request's last message (only clock, random and order problems are judged there).
    per_request: bool = True


class Texts:
    """The static texts of one prompt's cached prefix, in order, shared by its sites: each
    site keeps where its tail starts, and sums over tails are computed once per prompt (a
    prompt of n pieces costs O(n), not O(n^2))."""

    def __init__(self, texts: list[tuple[str, bool]]) -> None:
        self.texts = texts  # (text, before the last message)
        self._sums: dict[object, tuple[list[int], list[int]]] = {}

    def sums(self, measure: Callable[[str], int]) -> tuple[list[int], list[int]]:
        """Suffix sums of ``measure`` over every text, and over the early ones."""
        found = self._sums.get(measure)
        if found is None:
            total, early = [0] * (len(self.texts) + 1), [0] * (len(self.texts) + 1)
            for i in range(len(self.texts) - 1, -1, -1):
                text, is_early = self.texts[i]
                n = measure(text)
                total[i] = total[i + 1] + n
                early[i] = early[i + 1] + (n if is_early else 0)
            found = self._sums[measure] = (total, early)
        return found


_NO_TEXTS = Texts([])


@dataclass(frozen=True)
class Tail:
    """The static text after a site in the cached prefix: the prompt's texts from ``start``,
    after the site's own text (``own``, for an order problem inside static text)."""

    texts: Texts = _NO_TEXTS
    start: int = 0
    own: str = ""

    def measure(self, measure: Callable[[str], int]) -> tuple[int, int]:
        """(all of it, the part before the last message), each text measured on its own."""
        total, early = self.texts.sums(measure)
        mine = measure(self.own) if self.own else 0
        return total[self.start] + mine, early[self.start] + mine

    def pieces(self) -> list[str]:
        return ([self.own] if self.own else []) + [t for t, _ in self.texts.texts[self.start:]]


@dataclass(frozen=True)
class PySite:
    """A problem at one place of a Python file, before a rule weighs it."""

    code: str
    loc: Loc
    what: str  # what it is and where it goes, for the message
    kind: str  # a taint kind (request, date, clock, random, element) or a disorder kind
    after: Tail = Tail()  # the static text after it in the cached prefix
    unknown_after: bool = False  # static text of a size not known here follows too
    fix: Fix | None = None
    noun: str = "value"  # what varies, for messages: "value", "loop", "order"
    # PC501: the line of an earlier breakpoint that still caches a stable prefix (the cost is
    # then this breakpoint's writes, not every read), 0 when there is none.
    stable_break: int = 0


# --- laying out a request ---------------------------------------------------------------------

def request(parts: dict[str, tuple[Value, Loc, str]], sent: str) -> list[Prompt]:
    """The prompts of one API call: ``parts`` maps a part name (tables.TOOLS, SYSTEM,
    MESSAGES, ...) to its value and the argument's place in the source."""
    if tables.PROMPTS in parts:
        return _batch(parts[tables.PROMPTS], sent)
    if tables.CONVERSATIONS in parts:
        value, loc, source = parts[tables.CONVERSATIONS]
        if isinstance(element_of(value), Seq):  # a list of conversations: each is a request
            parts = {**parts, tables.MESSAGES: (element_of(value), loc, source)}
        else:
            parts = {**parts, tables.MESSAGES: (value, loc, source)}
    prompt = Prompt(sent=sent)
    if tables.TOOLS in parts:
        _tools(prompt, *parts[tables.TOOLS])
    if tables.SYSTEM in parts:
        _content(prompt, *parts[tables.SYSTEM], region=_SYSTEM)
    if tables.MESSAGES in parts:
        messages(prompt, *parts[tables.MESSAGES])
    if tables.INPUT in parts:
        value, loc, source = parts[tables.INPUT]
        if isinstance(value, Seq):
            messages(prompt, value, loc, source)
        else:
            _content(prompt, value, loc, source, region=_INPUT, last=bool(prompt.slots))
    return [prompt]


def text_prompt(value: Value, loc: Loc, source: str, region: str) -> Prompt:
    """A prompt string on its own: a system prompt, or a function's returned prompt."""
    prompt = Prompt()
    _content(prompt, value, loc, source, region=region)
    return prompt


def _batch(arg: tuple[Value, Loc, str], sent: str) -> list[Prompt]:
    """A batch of prompts: each is a request of its own (its items, or the element that
    stands for the items a loop added)."""
    value, loc, source = arg
    out = []
    for item in members(value)[:64]:
        prompt = Prompt(sent=sent)
        if isinstance(item, Mapping) and "prompt" in item.entries:  # vLLM's {"prompt": ..., "multi_modal_data": ...}
            item = item.entries["prompt"]
        _content(prompt, item, loc, source, region=_PROMPT)
        out.append(prompt)
    return out


def _tools(prompt: Prompt, value: Value, loc: Loc, source: str, whole: bool = True) -> None:
    """The tool list. ``whole``: the tool argument itself, where a choice between all of
    it and nothing (``TOOLS if agent else NOT_GIVEN``) is fine."""
    if isinstance(value, Seq):
        head = tuple(d for d in value.disorder if not (whole and d.whole))
        if head:
            prompt.slots.append(Slot(Part("", CONST, loc, source, head), _TOOLS, tools=True))
        items = [value.elem] if value.items is None else value.items
        for item in items:
            if isinstance(item, Splat):
                _tools(prompt, item.value, item.loc or loc, item.source or source, whole=False)
            else:
                _tool(prompt, item, loc, source)
    elif isinstance(value, Opaque) and value.has_literal:
        if isinstance(value.literal, (list, tuple)):
            prompt.slots.append(Slot(Part(json.dumps(value.literal, ensure_ascii=False, default=str)), _TOOLS, tools=True))
    elif isinstance(value, Opaque) and value.taint.volatile and not value.taint.timed and value.taint.kind != ELEMENT:
        # The list itself comes from the request: which tools, and their order, vary with it.
        detail = f"`{_clip(source)}` comes from {value.taint.reason or 'request data'}"
        order = (*value.disorder, Disorder(SELECTED, loc, detail))
        prompt.slots.append(Slot(Part("", CONST, loc, source, order), _TOOLS, tools=True))
    else:
        _tool(prompt, value, loc, source)


def _tool(prompt: Prompt, tool: Value, loc: Loc, source: str) -> None:
    ok, lit = literal_of(tool)
    if ok:
        prompt.slots.append(Slot(Part(json.dumps(lit, ensure_ascii=False)), _TOOLS, tools=True))
    else:
        prompt.slots.extend(Slot(p, _TOOLS, tools=True) for p in flatten(tool, loc, source))
    if isinstance(tool, Mapping) and "cache_control" in tool.entries:
        prompt.breaks.append((len(prompt.slots) - 1, tool.key_locs.get("cache_control", loc)))


def messages(prompt: Prompt, value: Value, loc: Loc, source: str, tail: bool = True) -> None:
    """Lay out a message list; its last item is the request's tail (``tail``: this list ends
    the messages, it is not spliced into a longer one)."""
    if isinstance(value, Seq) and value.disorder:  # the list shuffled, sampled or filtered as a whole
        prompt.slots.append(Slot(Part("", CONST, loc, source, tuple(value.disorder)), "the messages"))
    items: list[Value] = [value] if not isinstance(value, Seq) else ([Splat(value, loc, source)] if value.items is None else value.items)
    for i, item in enumerate(items):
        ends = tail and i == len(items) - 1
        last = ends and bool(prompt.slots)
        if isinstance(item, Splat):
            _spliced(prompt, item, i, ends, loc, source)
        elif isinstance(item, Mapping):
            _message(prompt, item, i, last, loc, source)
        else:
            prompt.slots.extend(Slot(p, f"message {i + 1}", last) for p in flatten(item, loc, source))


def _spliced(prompt: Prompt, item: Splat, index: int, ends: bool, loc: Loc, source: str) -> None:
    """Messages spliced in (``*history``, ``extend``, a loop's ``append``)."""
    inner = item.value
    where, what = item.loc or loc, item.source or source
    last = ends and bool(prompt.slots)
    if isinstance(inner, Seq) and inner.items is not None:
        messages(prompt, inner, where, what, ends)
        return
    if isinstance(inner, Seq) and not inner.taint.volatile and isinstance(inner.elem, Mapping):
        # Messages added under a condition or a loop of the application's own (few-shot
        # examples, an optional system message): laid out once, in place.
        if inner.disorder:
            prompt.slots.append(Slot(Part("", CONST, where, what, tuple(inner.disorder)), "the messages", last))
        _message(prompt, inner.elem, index, last, where, what)
        return
    # Earlier turns from the request (a history the caller passes, copied or appended turn by
    # turn) are the conversation: the requests of one conversation share them, so they are
    # not per-request content; only what varies between identical requests is judged there.
    t = taint_of(inner)
    part = Part(None, t if t.timed else CONST, where, what, disorder_of(inner))
    prompt.slots.append(Slot(part, "the conversation" if index else "the messages", last))


def _message(prompt: Prompt, message: Mapping, index: int, last: bool, loc: Loc, source: str) -> None:
    ok, role = literal_of(message.entries.get("role", Opaque()))
    role_name = role if ok and isinstance(role, str) else ""
    region = _SYSTEM if role_name in tables.SYSTEM_ROLES else f"message {index + 1}" + (f" ({role_name})" if role_name else "")
    content = message.entries.get("content")
    if content is not None:
        _content(prompt, content, message.key_locs.get("content", loc), source, region=region, last=last)
    if "cache_control" in message.entries and prompt.slots:
        prompt.breaks.append((len(prompt.slots) - 1, message.key_locs.get("cache_control", loc)))


def _content(prompt: Prompt, value: Value, loc: Loc, source: str, region: str, last: bool = False) -> None:
    """A string, or a list of content blocks ({"type": "text", "text": ...}, images, ...);
    blocks a loop added are laid out once, after what makes their number vary."""
    if isinstance(value, Seq) and value.items is not None:
        for item in value.items:
            if isinstance(item, Splat):
                _content(prompt, item.value, item.loc or loc, item.source or source, region, last)
            else:
                _content(prompt, item, loc, source, region, last)
        return
    if isinstance(value, Seq) and isinstance(value.elem, (Mapping, Text)):
        if value.taint.volatile or value.disorder:
            count = value.taint if value.taint.volatile else CONST
            prompt.slots.append(Slot(Part(None, count, loc, source, tuple(value.disorder)), region, last))
        _content(prompt, value.elem, loc, source, region, last)
        return
    if isinstance(value, Mapping):
        text = value.entries.get("text")
        parts = flatten(text, value.key_locs.get("text", loc), source) if text is not None else flatten(value, loc, source)
        prompt.slots.extend(Slot(p, region, last) for p in parts)
        if "cache_control" in value.entries and prompt.slots:
            prompt.breaks.append((len(prompt.slots) - 1, value.key_locs.get("cache_control", loc)))
        return
    prompt.slots.extend(Slot(p, region, last) for p in flatten(value, loc, source))


def flatten(value: Value, loc: Loc, source: str, depth: int = 0) -> tuple[Part, ...]:
    """The text pieces of any value as it would be sent (a tool schema, a content block)."""
    if isinstance(value, Text):
        return value.parts
    ok, lit = literal_of(value)
    if ok:
        return (Part(lit if isinstance(lit, str) else json.dumps(lit, ensure_ascii=False)),) if lit is not None else ()
    if depth < 6 and isinstance(value, Mapping):
        inner = [p for v in value.entries.values() for p in flatten(v, loc, source, depth + 1)]
        if value.extra is not None or value.order is not None or value.disorder:
            inner.insert(0, Part(None, CONST if value.extra is None else taint_of(value.extra), loc, source, tuple(value.disorder)))
        return tuple(inner)
    if depth < 6 and isinstance(value, Seq) and value.items is not None:
        head = (Part("", CONST, loc, source, tuple(value.disorder)),) if value.disorder else ()
        return head + tuple(p for v in value.items for p in flatten(v.value if isinstance(v, Splat) else v, loc, source, depth + 1))
    return (Part(None, taint_of(value), loc, source, disorder_of(value)),)


# --- the problems of a prompt -------------------------------------------------------------------

def sites(prompt: Prompt) -> list[PySite]:
    """The problems of one prompt, each with the static text after it (linear in the
    prompt's length: the tails share one list of texts)."""
    slots = prompt.slots
    end = max(i for i, _ in prompt.breaks) + 1 if prompt.breaks else len(slots)
    texts: list[tuple[str, bool]] = []
    starts = [0] * (end + 1)  # slot i's tail starts at texts[starts[i + 1]]
    unknown = [False] * (end + 1)  # static text of unknown size after slot i
    for i in range(end - 1, -1, -1):
        s = slots[i]
        unknown[i] = unknown[i + 1] or (s.part.text is None and not s.part.taint.volatile and not s.last)
    for i, s in enumerate(slots[:end]):
        if _shared(s.part) and s.part.text:
            texts.append((s.part.text, not s.last))
        starts[i + 1] = len(texts)
    shared = Texts(texts)
    out: list[PySite] = []
    previous: Slot | None = None  # the last value reported, and the static text since it
    between = 0
    for i, slot in enumerate(slots[:end]):
        if slot.last:
            continue
        if _value(slot.part):
            if previous is not None and previous.part.loc and slot.part.loc and previous.part.loc.line == slot.part.loc.line \
                    and between < _RUN_GAP and not slot.part.disorder:
                continue  # one run of values on one line (`f"{d}.{m}.{y}"`): its first value stands for it
            previous, between = slot, 0
        elif slot.part.text:
            between += len(slot.part.text)
        out.extend(_slot_sites(slot, Tail(shared, starts[i + 1]), unknown[i + 1], prompt.per_request))
    out.extend(_breakpoints(slots, prompt.breaks))
    return _one_per_line(out)


_RUN_GAP = 16  # characters of static text that still join two values into one run


def _one_per_line(found: list[PySite]) -> list[PySite]:
    """One order or membership finding per code and line: a tool list built from the names a
    request sends is one problem, however many expressions of that line make it."""
    seen: set[tuple[str, int]] = set()
    out = []
    for site in found:
        if site.code in (PC403, PC102):
            key = (site.code, site.loc.line)
            if key in seen:
                continue
            seen.add(key)
        out.append(site)
    return out


def _value(part: Part) -> bool:
    return part.loc is not None and part.taint.volatile and part.text is None


def _shared(part: Part) -> bool:
    return part.text is not None and not part.taint.volatile


def _slot_sites(slot: Slot, after: Tail, unknown: bool, per_request: bool) -> list[PySite]:
    part = slot.part
    out = []
    if part.loc is not None and part.taint.volatile and part.text is None and (per_request or part.taint.timed):
        out.append(PySite(PC101, part.loc, _put(part, slot.region), part.taint.kind, after, unknown,
                          noun="loop" if part.loop else "value"))
    own = part.text if _shared(part) and part.text else ""
    for d in part.disorder:
        code = (_IN_TOOLS if slot.tools else _IN_TEXT).get(d.kind)
        if code is None or (not per_request and d.kind in (FILTERED, BRANCHED)):
            continue
        kind = "shuffle" if d.kind in (SHUFFLED, SAMPLED) else d.kind
        out.append(PySite(code, d.loc, f"{d.detail} (in {slot.region})", kind, Tail(after.texts, after.start, own), unknown,
                          d.fix, noun="order" if kind == "shuffle" else "value"))
    return out


def _put(part: Part, region: str) -> str:
    """What a value does to the prompt, for messages: "`{now}` puts the clock (...) into the
    system prompt", "the loop over `docs` (the parameter ...) writes text into ..."."""
    reason = part.taint.reason or "a per-request value"
    if part.loop == "for":
        return f"{part.source} writes text into {region} once per item of {reason}"
    if part.loop:
        return f"{part.source} writes text into {region} a number of times that depends on {reason}"
    line = part.taint.line
    where = f" (produced at line {line})" if line and part.loc is not None and line != part.loc.line else ""
    return f"{_quote(part.source)} puts {reason}{where} into {region}"


def _quote(source: str) -> str:
    one = " ".join(source.split())
    return f"`{one if len(one) <= 60 else one[:57] + '...'}`"


def _clip(source: str) -> str:
    one = " ".join(source.split())
    return one if len(one) <= 48 else one[:45] + "..."


def _breakpoints(slots: list[Slot], breaks: list[tuple[int, Loc]]) -> list[PySite]:
    """A ``cache_control`` breakpoint is wasted when the prefix it marks varies. Each varying
    piece is reported once, at the first breakpoint whose prefix holds it (a later breakpoint
    holds it too, but the defect is one: the breakpoint right after it is the one to move)."""
    out: list[PySite] = []
    done = 0  # slots before this were judged with an earlier breakpoint
    stable = 0  # the line of the last breakpoint whose whole prefix is stable
    for index, loc in sorted(breaks, key=lambda b: b[0]):
        if index < done:
            continue
        site = _breakpoint(slots[done: index + 1], loc)
        done = index + 1
        if site is not None:
            out.append(replace(site, stable_break=stable if not out else 0))
        elif not out:
            stable = loc.line
    return out


def _breakpoint(before: list[Slot], loc: Loc) -> PySite | None:
    """A cache_control breakpoint is wasted when the prefix it marks holds a clock or random
    value, content whose order varies, or per-request data in the tools or system prompt
    (per-request turns of the conversation before it are how multi-turn caching works). A
    date there costs one cache write a day: still reported, with its kind (PC501 weighs it)."""
    found: tuple[str, str, int] | None = None
    for slot in before:
        if slot.last and not slot.tools:
            continue
        varies = _varies(slot)
        if varies is not None and (found is None or (found[0] == DATE and varies[0] != DATE)):
            found = varies
    if found is None:
        return None
    kind, clause, line = found
    what = (f"`cache_control` caches a prefix that varies between requests: {clause} at line {line}, "
            f"so {_BREAK_COST.get(kind, _BREAK_COST[''])}")
    # A breakpoint on the last message caches the conversation: the value is what must move.
    return PySite(PC501, loc, what, kind, noun="conversation" if before[-1].last else "value")


_BREAK_COST = {
    DATE: "the cache entry it writes changes every day (one write a day, a small cost)",
    SET_ORDER: "each worker process writes (and pays for) its own cache entry",
    "": "the cache entry it writes differs between requests and is never read",
}


def _varies(slot: Slot) -> tuple[str, str, int] | None:
    """Why a slot varies between requests: (kind, a clause saying so, its line)."""
    part = slot.part
    for d in part.disorder:
        if d.kind in (SHUFFLED, SAMPLED, SET_ORDER, FILTERED, BRANCHED) or (d.kind == SELECTED and slot.tools):
            return (SET_ORDER if d.kind == SET_ORDER else "order"), d.detail, d.loc.line
    if part.loc is None or part.text is not None:
        return None
    if part.taint.timed or (part.taint.volatile and part.taint.kind != ELEMENT and (slot.tools or slot.region == _SYSTEM)):
        return part.taint.kind, _put(part, slot.region), part.loc.line
    return None
