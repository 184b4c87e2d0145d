"""Where the chat template prints the tool definitions, and the findings that placement explains.

Most chat templates print the tools once, ahead of the conversation (in the system turn, or
at the start of the first user turn). Some print them right before the last user turn
(Mistral's HF template, mistral-common's requests): at every turn the tools follow a longer
history, so every turn re-computes them. The alignment sees that as a span of history
between shared content, or as the tools and the instructions in two orders. Neither is a
defect of the requests: no change to the messages moves the tools; a chat template that
prints them before the first turn does. This module tells that case from a real value or
order, from a sample of the rendered requests, so that it is reported as what it is
(TR103) and not as a move the traffic cannot make.
"""

from __future__ import annotations

import re
from array import array
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from advisor.index.radix import RadixTree
from advisor.ingest.ids import ITEM, common_bytes, find_item, pack, rfind_item
from advisor.ingest.traffic import Request

SAMPLE = 16    # multi-turn requests with tools whose rendering is read
NEEDLE = 40    # characters of a message's text that find it in its rendering
OPENER = 24    # characters of the tools' rendering that find where it starts
# Chat markup a template prints between messages: tags such as [AVAILABLE_TOOLS] and </s>.
_MARKUP = re.compile(r"\s*(?:<\|[^|>]{1,40}\|>|\[/?[A-Z][A-Z_]{1,23}\]|</?s>|<[a-z_]{1,24}>)\s*")


@dataclass
class LayoutSample:
    """One multi-turn request that carries tools and ends on a user turn, as logged."""

    index: int
    ids: array
    last_user: str
    before: str        # the text of the message before the last user turn
    tools: tuple[str, ...]
    system: str
    # An earlier user turn and the end of the message before it: the markup the template
    # prints between turns where it prints no tools ("" when the request has no such turn).
    earlier_user: str = ""
    earlier_before: str = ""


@dataclass(frozen=True)
class ToolsLayout:
    """Where a sample of rendered requests shows the tools. ``late``: between the history and
    the last user turn, in most of them. ``regions``: what the template printed there, per
    request; ``openers``: how that starts, after its markup."""

    late: bool
    regions: tuple[str, ...]
    openers: frozenset[str]
    # The system text is printed in that region too: a move of it into the first user turn
    # recovers part of the loss, so the findings there stay what they are.
    system_between: bool


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(p["text"] for p in content
                        if isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str))
    return ""


def _tool_name(tool: Any) -> str:
    if not isinstance(tool, dict):
        return ""
    fn = tool.get("function")
    name = (fn if isinstance(fn, dict) else tool).get("name")
    return name if isinstance(name, str) else ""


def sample_of(index: int, request: Request, ids: array) -> LayoutSample | None:
    """The request as a layout sample, or None when it cannot show where the tools go."""
    msgs, tools = request.messages, request.tools
    if not msgs or not tools or msgs[-1].get("role") != "user":
        return None
    if sum(1 for m in msgs if m.get("role") == "user") < 2:
        return None
    names = tuple(n for n in (_tool_name(t) for t in tools) if len(n) >= 3)
    last, before = _text(msgs[-1].get("content")).strip(), _text(msgs[-2].get("content")).strip()
    if not names or not last or not before:
        return None
    system = next((_text(m.get("content")).strip() for m in msgs if m.get("role") == "system"), "")
    earlier_user = earlier_before = ""
    for i in range(len(msgs) - 2, 0, -1):
        if msgs[i].get("role") == "user" and msgs[i - 1].get("role") not in ("system", "user"):
            u, b = _text(msgs[i].get("content")).strip(), _text(msgs[i - 1].get("content")).strip()
            if u and b:
                earlier_user, earlier_before = u[:NEEDLE], b[-NEEDLE:]
                break
    return LayoutSample(index, array(ids.typecode, ids), last[:NEEDLE], before[-NEEDLE:], names, system,
                        earlier_user, earlier_before)


def tools_layout(samples: Sequence[LayoutSample], decode: Callable[[Sequence[int]], str]) -> ToolsLayout | None:
    """What the sample shows, or None when it shows nothing (no sample found its messages)."""
    regions: list[str] = []
    seen = late = system = 0
    for s in samples:
        text = decode(list(s.ids))
        at_user = text.rfind(s.last_user)
        at_before = text.rfind(s.before, 0, max(0, at_user))
        if at_user < 0 or at_before < 0:
            continue
        seen += 1
        region = text[at_before + len(s.before):at_user]
        if any(n in region for n in s.tools):
            late += 1
            regions.append(region)
            system += bool(s.system) and s.system[:NEEDLE] in region
    if not seen:
        return None
    openers = frozenset(o for o in (_opens(r)[:OPENER] for r in regions) if len(o) == OPENER)
    return ToolsLayout(late * 2 > seen and bool(openers), tuple(regions), openers, system * 2 > len(regions))


def _opens(text: str) -> str:
    """``text`` without the chat markup in it (tags run into text as the template prints them)."""
    return _MARKUP.sub("", text)


def span_is_layout(layout: ToolsLayout, contexts: Sequence[tuple[str, str, str]], specials: Sequence[str]) -> bool:
    """Whether a span of per-request content is the history the tools are printed after:
    in most of its observed contexts it crosses a turn (chat markup inside it) and the
    shared content that follows is the start of the tools' rendering."""
    if not layout.late or layout.system_between or not contexts:
        return False
    hits = 0
    for _left, mine, right in contexts:
        turn = any(s in mine for s in specials) or _MARKUP.search(mine) is not None
        # A span that holds the start of the tools' rendering is in the tools themselves
        # (tools in another order, a value in a tool): what the requests send.
        inside = any(o in _opens(mine) for o in layout.openers)
        hits += turn and not inside and any(o in _opens(right) for o in layout.openers)
    return hits * 2 > len(contexts)


def order_is_layout(layout: ToolsLayout, cores: Sequence[str], orders: Sequence[Sequence[int]]) -> bool:
    """Whether units seen in several orders are the tools' rendering moving against message
    content, each kind keeping its own order. ``cores``: a piece of each unit's text;
    ``orders``: each observed order as indices into ``cores``. Tools shuffled among themselves
    (or sections among themselves) are a real order."""
    if not layout.late or layout.system_between or not cores:
        return False
    printed = [any(c in r for r in layout.regions) for c in cores]
    if all(printed) or not any(printed):
        return False
    seen: dict[tuple[int, int], bool] = {}
    for order in orders:
        for i, a in enumerate(order):
            for b in order[i + 1:]:
                if printed[a] != printed[b]:
                    continue
                key, forward = ((a, b), True) if a < b else ((b, a), False)
                if seen.setdefault(key, forward) != forward:
                    return False
    return True


@dataclass(frozen=True)
class ToolsBlock:
    """How the tools' rendering is delimited in the late layout: the tokens it opens with
    and closes with (its markup, where the template prints special tokens around it), and
    the tokens that open a user turn right after it (where a template that prints the tools
    first puts them: before the first user turn's opener). Delimiters rather than the
    block itself, so that a block with other tools, or the tools in another order, moves
    too."""

    head: bytes
    tail: bytes
    opener: bytes


EDGE = 8  # tokens of a block's edge that delimit it where it opens or closes with no special token


def _edges(block: list[int], specials: frozenset[int]) -> tuple[list[int], list[int]]:
    """The block's opening tokens up to its first special token and its closing ones from
    its last (the first and last ``EDGE`` tokens where it has none)."""
    first = next((k for k, t in enumerate(block) if t in specials), None)
    last = next((k for k in range(len(block) - 1, -1, -1) if block[k] in specials), None)
    head = block[:first + 1] if first is not None and first < EDGE else block[:EDGE]
    tail = block[last:] if last is not None and len(block) - last <= EDGE else block[-EDGE:]
    return head, tail


def _inside(ids: Sequence[int], decode: Callable[[Sequence[int]], str], start: int, end: int) -> tuple[int, int]:
    """The tokens of ``ids`` whose decoded text lies within characters ``[start, end)`` of
    ``decode(ids)``: the first token that starts at or after ``start``, and the end of the
    last one that ends by ``end`` (by binary search over the decoded length of prefixes)."""
    def first(at: int, at_least: bool) -> int:
        lo, hi = 0, len(ids)
        while lo < hi:
            mid = (lo + hi) // 2
            n = len(decode(ids[:mid]))
            if n >= at if at_least else n > at:
                hi = mid
            else:
                lo = mid + 1
        return lo
    return first(start, True), max(0, first(end, False) - 1)


def _block_of(s: LayoutSample, decode: Callable[[Sequence[int]], str], specials: frozenset[int]) -> ToolsBlock | None:
    """Sample ``s``'s tools block: the tokens printed before its last user turn that are not
    printed before an earlier one (the markup both boundaries share is the turns' own)."""
    if not s.earlier_user:
        return None
    ids = s.ids.tolist()
    text = decode(ids)
    at_user = text.rfind(s.last_user)
    at_before = text.rfind(s.before, 0, max(0, at_user))
    at_eb = text.find(s.earlier_before)
    at_eu = text.find(s.earlier_user, at_eb + len(s.earlier_before)) if at_eb >= 0 else -1
    if min(at_user, at_before, at_eu) < 0 or at_eu >= at_before:
        return None
    r0, r1 = _inside(ids, decode, at_before + len(s.before), at_user)
    o0, o1 = _inside(ids, decode, at_eb + len(s.earlier_before), at_eu)
    region, ordinary = ids[r0:r1], ids[o0:o1]
    head = 0
    while head < min(len(region), len(ordinary)) and region[head] == ordinary[head]:
        head += 1
    tail = 0
    while (tail < min(len(region), len(ordinary)) - head
           and region[len(region) - 1 - tail] == ordinary[len(ordinary) - 1 - tail]):
        tail += 1
    block = region[head:len(region) - tail]
    if len(block) < 2 * EDGE or not tail or not any(n in decode(block) for n in s.tools):
        return None
    opens, closes = _edges(block, specials)
    return ToolsBlock(pack(opens), pack(closes), pack(region[len(region) - tail:]))


def tools_blocks(samples: Sequence[LayoutSample], decode: Callable[[Sequence[int]], str],
                 specials: frozenset[int] = frozenset(), limit: int = 4) -> list[ToolsBlock]:
    """The distinct ways the samples delimit their tools blocks."""
    blocks: list[ToolsBlock] = []
    for s in samples:
        b = _block_of(s, decode, specials)
        if b is not None and b not in blocks:
            blocks.append(b)
            if len(blocks) >= limit:
                break
    return blocks


def tools_first(data: bytes, blocks: Sequence[ToolsBlock]) -> bytes:
    """Request ``data`` (packed ids) as a template that prints the tools before the first
    user turn renders it: its last tools block moved to before the first opener of a user
    turn. Unchanged when it holds no block or the block is already there."""
    for b in blocks:
        at = rfind_item(data, b.head, 0, len(data))
        if at < 0:
            continue
        end = find_item(data, b.tail, at + len(b.head))
        if end < 0:
            continue
        end += len(b.tail)
        to = find_item(data, b.opener, 0, at)
        if to < 0:
            return data
        return data[:to] + data[at:end] + data[to:at] + data[end:]
    return data


@dataclass(frozen=True)
class TruthTest:
    """Prefix reuse of a set of requests as logged and as a tools-first template renders
    them (page size 1, in arrival order), in tokens; ``moved``: how many requests changed."""

    requests: int
    tokens: int
    cached: int
    cached_tools_first: int
    moved: int
    first_moved: int = -1   # index of the first request that changed
    offset: int = 0         # the first token where a changed request changed (its first turn's opener)

    @property
    def gain(self) -> int:
        return self.cached_tools_first - self.cached


class ToolsFirstReplay:
    """Requests fed in arrival order, replayed both as logged and with the tools first."""

    def __init__(self, blocks: Sequence[ToolsBlock], logged: bool = True) -> None:
        self.blocks = tuple(blocks)
        # ``logged=False``: the caller counts the logged reuse itself (its own tree).
        self._logged = RadixTree(1) if logged else None
        self._first = RadixTree(1)
        self.requests = self.tokens = self.cached = self.cached_first = self.moved = 0
        self.first_moved, self.offset = -1, 0

    def add(self, index: int, data: bytes) -> None:
        self.requests += 1
        self.tokens += len(data) // ITEM
        if self._logged is not None:
            self.cached += self._logged.insert(data)
        other = tools_first(data, self.blocks)
        if other is not data:
            self.moved += 1
            at = common_bytes(data, 0, other, 0) // ITEM
            self.offset = at if self.first_moved < 0 else min(self.offset, at)
            self.first_moved = index if self.first_moved < 0 else self.first_moved
        self.cached_first += self._first.insert(other)

    def result(self, cached: int | None = None) -> TruthTest:
        """The replay's figures (``cached``: the logged reuse, where the caller counted it)."""
        return TruthTest(self.requests, self.tokens, self.cached if cached is None else cached, self.cached_first,
                         self.moved, self.first_moved, self.offset)


def truth_test(requests: Sequence[bytes], blocks: Sequence[ToolsBlock],
               indices: Sequence[int] | None = None) -> TruthTest:
    """Replay ``requests`` (request ``indices[k]`` each) both ways: what printing the tools first recovers."""
    replay = ToolsFirstReplay(blocks)
    for k, data in enumerate(requests):
        replay.add(indices[k] if indices is not None else k, data)
    return replay.result()
