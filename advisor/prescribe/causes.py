"""The causes behind a canonical-order rewrite, named from the same model that makes it.

``advisor.prescribe.canonical`` rewrites each request so that what the traffic shares comes
first, in one order and one spelling. Each difference between a request and its canonical
form is one of a few kinds, read off the units and their volatility (never off a workload's
wording):

- spelling (TR104): a unit arrives in a spelling other than its most common one, and the
  two differ only by Unicode normalization (``normalization``), by whitespace and line
  breaks (``wrapping``), or by the order of a JSON object's keys (``key-order``);
- order (TR201): units every session sends arrive in another order than the log first
  showed them: tool definitions (``tool-order``), paragraphs (``section-order``), lines or
  table rows (``row-order``), a line's sentences (``sentence-order``), a JSON array's
  items (``item-order``), content parts (``part-order``);
- placement (TR102): a unit that varies comes ahead of a unit every session sends in the
  same container: a per-request one (``per-request-content``), one drawn from a pool that
  several sessions share, such as retrieved passages or sampled examples
  (``pooled-content``), a tool list filtered per request (``tool-subset``); or the varying
  units of the system message or of a tool's description, which only the last user turn can
  hold without breaking what every request shares (``system-message-content``,
  ``tool-content``).

A request counts once per kind. The caller measures what each cause is worth.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from advisor.findings import CauseFacts, Finding
from advisor.ingest.traffic import Request
from advisor.prescribe import canonical
from advisor.diagnose.spelling import SPELLED, normalized, spelling_kind
from advisor.prescribe.canonical import (
    ENTRY, ITEM, LINE, MEMBER, PARA, SENTENCE, SHARED, STATIC, TEXT, TOOL, UNIQUE, Canon, calls, in_order, moving_out, prompt_messages,
    text_parts,
)

SPELLING, ORDER, PLACEMENT, HISTORY = "TR104", "TR201", "TR102", "TR101"
# What the history as first sent changes (``advisor.prescribe.history``): not the canonical
# form's, measured apart by the caller.
HISTORY_CHANGE = "history"
# The change of the canonical form each code's causes are undone by, to measure them.
CHANGE = {SPELLING: canonical.SPELLING, ORDER: canonical.ORDER, PLACEMENT: canonical.PLACEMENT,
          HISTORY: HISTORY_CHANGE}
# (A diagnosis's finding of a value in the history, ``in_history``, is that cause's.)
IN_HISTORY = "in-history"
# A cause whose leaving out costs the canonical form less than this share of the prompt
# tokens is not named: it is not why the rewrite is worth asking for.
CAUSE_SHARE = 0.01
# The diagnosis's own codes for each cause: where it reports one, it has found that content
# (the varying span, the units out of order) and the canonical form is that finding's fix,
# so the cause is not named twice. It never reports a tool list cut to a per-request subset
# as such (it sees the tools part where the subsets differ).
REPORTED_AS = {SPELLING: frozenset({"TR104"}), ORDER: frozenset({"TR201"}), PLACEMENT: frozenset({"TR101", "TR102"}),
               HISTORY: frozenset({IN_HISTORY})}
UNREPORTED_KINDS = frozenset({"tool-subset"})
WHAT = SPELLED | {
    "tool-order": "the same tool definitions in another order",
    "section-order": "the same sections in another order",
    "row-order": "the same lines or table rows in another order",
    "sentence-order": "the same sentences of a line in another order",
    "item-order": "the same items of a JSON array in another order",
    "part-order": "the same content parts in another order",
    "tool-subset": "a per-request subset of the tools, varying tools ahead of those every request sends",
    "pooled-content": ("content drawn from a pool that several sessions share (retrieved passages, sampled "
                       "examples) ahead of content every request sends"),
    "per-request-content": "content of its own ahead of content every request sends",
    "system-message-content": "content of its own in the system message, ahead of the conversation",
    "tool-content": "content of its own inside a tool definition, ahead of the conversation",
    "message-order": "the same system messages, or example exchanges, in another order",
    "message-ahead": "a message of its own (a note, a summary, passages) ahead of the system messages every request sends",
    "history-value": ("an earlier turn of a conversation sent again otherwise than its previous request sent it (a "
                      "reply's age, a reading restamped at each request)"),
}
EXAMPLE_CHARS = 80  # of a unit's text, in a cause's example
# The order kind of units of each split kind.
_ORDER_KIND = {PARA: "section-order", LINE: "row-order", SENTENCE: "sentence-order", TEXT: "part-order",
               MEMBER: "key-order", ENTRY: "key-order", ITEM: "item-order"}


@dataclass
class Cause:
    """One kind of difference, over the requests that show it."""

    code: str
    kind: str
    requests: int = 0
    example: str = ""
    first: Request | None = field(default=None, repr=False)
    index: int = -1  # of the first request that shows it, in the list given to ``causes``


def causes(requests: Iterable[Request | None], canon: Canon, moved_out: bool = False) -> list[Cause]:
    """The kinds of difference between each request and its canonical form under ``canon``
    (the counts of the traffic as it is), most requests first. ``moved_out``: the chosen
    variant moves the system message's varying units to the last user turn."""
    found: dict[tuple[str, str], Cause] = {}
    for index, req in enumerate(requests):
        if req is None:
            continue
        seen: dict[tuple[str, str], str] = {}
        _request(req, canon, seen, moved_out)
        for key, example in seen.items():
            cause = found.get(key)
            if cause is None:
                cause = found[key] = Cause(key[0], key[1], example=_excerpt(example), first=req, index=index)
            cause.requests += 1
    return sorted(found.values(), key=lambda c: (-c.requests, c.code, c.kind))


def history_causes(sent: list[Request | None], first_sent: list[Request | None]) -> list[Cause]:
    """The requests whose history ``as_first_sent`` changed (``first_sent``, against the
    requests as ``sent``): one cause, its example the first turn sent otherwise."""
    cause: Cause | None = None
    for index, (old, new) in enumerate(zip(sent, first_sent)):
        if old is None or new is None or old is new:
            continue
        if cause is None:
            cause = Cause(HISTORY, "history-value", first=old, index=index, example=_excerpt(_resent(old, new)))
        cause.requests += 1
    return [cause] if cause is not None else []


def _resent(old: Request, new: Request) -> str:
    """The first text of ``old`` that ``new`` sends otherwise."""
    if old.kind == "prompt":
        a = old.prompt or ""
        return a[len(os.path.commonprefix([a, new.prompt or ""])):]
    return next((_content_text(x) for x, y in zip(old.messages or (), new.messages or ()) if x != y), "")


def findings(found: list[Cause], worth: Callable[[str], int], offset_of: Callable[[int, str], int], prompt_tokens: int,
             known: list[Finding]) -> tuple[list[Finding], list[dict[str, Any]], Finding | None]:
    """The causes worth naming, by code: each code's kinds by the requests that show them,
    worth what the canonical form loses with that code's change left out (``worth(change)``,
    in cached tokens); a code worth less than ``CAUSE_SHARE`` of the prompt tokens is not
    named. ``offset_of(index, change)``: the token where the request at ``index`` first
    differs from its canonical form with only that change made, the finding's offset.

    Returns the findings the diagnosis (``known``) lacks, one per code (``REPORTED_AS``);
    every named cause as the action lists it (code, kind, requests, tokens; the most
    requested kind of each code), worth most first; and the finding that answers the first
    of them, its own or the diagnosis's."""
    codes = {f.code for f in known} | ({IN_HISTORY} if any(f.in_history for f in known) else set())
    spelled = {f.kind for f in known if f.code in REPORTED_AS[SPELLING]}
    new: list[Finding] = []
    named: list[dict[str, Any]] = []
    answers: dict[str, Finding | None] = {}
    for code in (SPELLING, ORDER, PLACEMENT, HISTORY):
        mine = [c for c in found if c.code == code]
        if not mine:
            continue
        tokens = worth(CHANGE[code])
        if tokens < CAUSE_SHARE * prompt_tokens:
            continue
        named.append({"code": code, "kind": mine[0].kind, "requests": mine[0].requests, "tokens": tokens})
        # (A spelling the diagnosis reports is reported of its kind: others are new.)
        fresh = [c for c in mine if c.kind in UNREPORTED_KINDS or not REPORTED_AS[code] & codes
                 or (code == SPELLING and c.kind not in spelled)]
        if not fresh:
            # (Of the diagnosis's findings of this change, the one worth most.)
            answers[code] = max((f for f in known if f.code in REPORTED_AS[code]), key=lambda f: f.tokens_lost,
                                default=None)
            continue
        top = fresh[0]  # (most requests first)
        kinds = "; ".join(f"{WHAT[c.kind]} ({c.requests:,} requests)" for c in fresh)
        new.append(Finding(
            code=code, path=top.first.source if top.first else "", line=top.first.line if top.first else 0,
            token_offset=offset_of(top.index, CHANGE[code]), kind=top.kind, requests=top.requests, tokens_lost=tokens,
            example=top.example,
            message=(f"{kinds}: the canonical form recovers about {tokens:,} cacheable tokens of it "
                     f"(measured by leaving this change out). Example: {top.example!r}"),
            cause=CauseFacts(tuple({c.kind: c.requests for c in fresh}.items()), tuple(c.example for c in fresh))))
        answers[code] = new[-1]
    # The cause worth most first: the one the action answers.
    named.sort(key=lambda c: -c["tokens"])
    return new, named, answers[named[0]["code"]] if named else None


def _request(req: Request, canon: Canon, seen: dict[tuple[str, str], str], moved_out: bool) -> None:
    messages: tuple[dict[str, Any], ...] | list[dict[str, Any]] = req.messages or ()
    if req.kind == "prompt" and req.prompt:
        # (As the canonical form reads it: each turn's body a message's content.)
        turns = prompt_messages(req.prompt, canon.markup)
        if turns is None:
            _text(req.prompt, TEXT, canon, seen)
            return
        messages = turns
    elif req.kind != "messages":
        return
    if req.tools:
        turn = any(m.get("role") == "user" for m in messages)  # (where the rewrite can put the cut)
        _tools(req.tools, canon, seen, moved_out and turn)
        cut = canon.cut_tools(canon.tools(req.tools, True))[1] if moved_out and turn else []
        if cut:
            seen.setdefault((PLACEMENT, "tool-content"), cut[0])
    opened = in_order(list(messages), canon, roles_kept=req.kind != "messages")
    if any(a is not b for a, b in zip(opened, messages)):
        # Example exchanges or the opening's system messages in another order, or a message
        # of the request's own ahead of those every request sends.
        static = [canon.is_static(m["content"]) if isinstance(m.get("content"), str) else False for m in messages]
        ahead = next((k for k, m in enumerate(messages) if not static[k] and any(static[k:])), None)
        if ahead is not None:
            seen.setdefault((PLACEMENT, "message-ahead"), _content_text(messages[ahead]))
        else:
            seen.setdefault((ORDER, "message-order"), _content_text(next(a for a, b in zip(opened, messages) if a is not b)))
    # The system message the chosen variant moves units out of: what it moves.
    found = moving_out(messages, canon, req.kind == "messages" and bool(req.tools)) if moved_out else None
    if found is not None:
        content = messages[found[0]].get("content")
        seen.setdefault((PLACEMENT, "system-message-content"), content if isinstance(content, str) else found[1][1][0])
    for message in messages:
        _message(message, canon, seen)
        if req.kind == "messages" and message.get("tool_calls"):
            _calls(message["tool_calls"], canon, seen)


def _message(message: dict[str, Any], canon: Canon, seen: dict[tuple[str, str], str]) -> None:
    content = message.get("content")
    if isinstance(content, str):
        _text(content, TEXT, canon, seen)
    elif (parts := text_parts(content)) is not None:
        _units(parts, TEXT, canon, seen)
    elif isinstance(content, list):
        for part in content:
            if isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str):
                _text(part["text"], TEXT, canon, seen)


def _calls(sent: Any, canon: Canon, seen: dict[tuple[str, str], str]) -> None:
    """A call's arguments in another key order: the same call spelled otherwise."""
    if not isinstance(sent, (list, tuple)):
        return
    for before, after in zip(sent, calls(sent, canon)):
        if after is not before:
            seen.setdefault((SPELLING, "key-order"), before["function"]["arguments"])


def _content_text(message: dict[str, Any]) -> str:
    content = message.get("content")
    return content if isinstance(content, str) else " ".join(text_parts(content) or [])


def _tools(tools: tuple[Any, ...], canon: Canon, seen: dict[tuple[str, str], str], cutting: bool) -> None:
    infos = []
    for tool in tools:
        surface = json.dumps(tool, ensure_ascii=False)
        key = (TOOL, normalized(surface))
        chosen = canon.surface(key, surface)
        if chosen != surface:
            seen.setdefault((SPELLING, spelling_kind(surface, chosen)), surface)
        infos.append((canon.info(key), surface))
    # Compared by key: a tool that only changes its spelling is not a tool out of order.
    if [normalized(s) for _, s in infos] == [normalized(json.dumps(t, ensure_ascii=False)) for t in canon.tools(tools, cutting)]:
        return
    # A subset: a tool not every session sends ahead of one every session does, or drawn with
    # others from a pool (not sent together by one set of sessions: a tenant's own tools,
    # always sent together, only in another order are an order).
    static = [k for k, (info, _) in enumerate(infos) if info[0] == STATIC]
    together = canon.held_together(TOOL, [normalized(s) for _, s in infos], [info for info, _ in infos])
    varying = next((surface for k, (info, surface) in enumerate(infos) if info[0] != STATIC and (
        static and k < static[-1] or info[0] == SHARED and normalized(surface) not in together)), None)
    if varying is not None:
        seen.setdefault((PLACEMENT, "tool-subset"), varying)
    else:
        seen.setdefault((ORDER, "tool-order"), infos[0][1])


def _text(text: str, kind: str, canon: Canon, seen: dict[tuple[str, str], str]) -> None:
    key = (kind, normalized(text))
    chosen = canon.surface(key, text)
    if chosen != text:
        seen.setdefault((SPELLING, spelling_kind(text, chosen)), text)
    if canon.info(key)[0] == STATIC or kind == ITEM:
        return  # kept whole, as the canonical form keeps it
    if kind == MEMBER:
        items = canon.sorted_items(chosen)  # (as the canonical form orders them)
        if items is not None:
            _units(items, ITEM, canon, seen)
        return
    split = canon.split(chosen, kind)
    if split is not None:
        _units(split.units, split.kind, canon, seen)


def _units(units: list[str] | tuple[str, ...], kind: str, canon: Canon, seen: dict[tuple[str, str], str]) -> None:
    """Placement and order within one container, then each unit on its own."""
    infos = [canon.info((kind, normalized(u))) for u in units]
    last_static = max((k for k, info in enumerate(infos) if info[0] == STATIC), default=-1)
    for k, info in enumerate(infos[:last_static]):
        if info[0] != STATIC:
            seen.setdefault((PLACEMENT, "per-request-content" if info[0] == UNIQUE else "pooled-content"), units[k])
            break
    ranks = [info[2] for info in infos if info[0] == STATIC]
    if ranks != sorted(ranks):
        first = next(u for u, info in zip(units, infos) if info[0] == STATIC)
        order_kind = _ORDER_KIND.get(kind, "section-order")
        seen.setdefault((SPELLING if kind in (MEMBER, ENTRY) else ORDER, order_kind), first)
    for unit in units:
        _text(unit, kind, canon, seen)


def _excerpt(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= EXAMPLE_CHARS else flat[:EXAMPLE_CHARS - 1] + "…"


