"""History as first sent: a conversation's earlier turns resent as its previous request sent them.

An engine reuses a conversation's cache only where the next request starts with the tokens of
the previous one. A client that renders its history again at every turn (a reply's age, "3
min ago"; a tool result re-serialized with the seconds since it was fetched) changes a turn
the previous request already sent, and every token after it misses. The fix is the client's:
keep what was sent. Here it is the traffic with each such turn replaced by the form its
conversation first sent.

A request's previous one in its conversation is the nearest earlier request with fewer
messages whose messages, in the same roles, each equal this request's or differ from it in one
short stretch (an edit of the same turn, not another turn: ``HISTORY_EDIT`` of its text at
most). Requests are linked within the group that opens with the same messages up to the first
user turn, at most ``LINK_BACK`` back, so a log of one shared opening stays linear. Nothing is
linked without that evidence: a log without conversations is returned as it is.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable
from typing import Any

from advisor.ingest.traffic import Request

# A history turn that differs from the previous request's in at most this share of its
# serialized form (one stretch from the first difference to the last) is the same turn
# re-rendered; more is another turn, or an edit the client meant (a summary rewritten).
HISTORY_EDIT = 0.2
# Candidates looked at for each request's previous one, among those with the same opening.
LINK_BACK = 64


Form = Callable[[Any], Any]  # a message's content in the form it is compared in


def _surface(message: dict[str, Any], form: Form | None) -> str:
    if form is not None and "content" in message:
        message = dict(message, content=form(message["content"]))
    return json.dumps(message, ensure_ascii=False, sort_keys=True)


def _restamped(old: str, new: str) -> bool:
    """Whether ``new`` is ``old`` with one short stretch changed."""
    if old == new:
        return True
    head = len(os.path.commonprefix([old, new]))
    tail = len(os.path.commonprefix([old[head:][::-1], new[head:][::-1]]))
    changed = max(len(old), len(new)) - head - tail
    return changed <= HISTORY_EDIT * max(len(old), len(new))


def _opening(messages: tuple[dict[str, Any], ...], surfaces: list[str]) -> str:
    """The messages up to and including the first user turn: a conversation's key."""
    end = next((k for k, m in enumerate(messages) if m.get("role") == "user"), len(messages) - 1)
    return "\n".join(surfaces[: end + 1])


def _continues(earlier: tuple[list[str], list[str], list[Any]], messages: tuple[dict[str, Any], ...],
               logged: list[str], formed: list[str]) -> bool:
    """Whether a request of ``messages`` (their surfaces ``logged`` and in ``form``) continues
    ``earlier`` (the same of a request before, and its roles): fewer messages, the same roles,
    each turn the same in form or re-rendered in one short stretch."""
    old_logged, old_formed, roles = earlier
    if len(roles) >= len(messages) or any(roles[k] != messages[k].get("role") for k in range(len(roles))):
        return False
    return all(c == d or _restamped(a, b) for a, b, c, d in zip(old_logged, logged, old_formed, formed))


Turns = Callable[[str], "tuple[tuple[int, int, str], ...] | None"]  # a prompt's turns (``markup.prompt_turns``)


def _messages(req: Request, turns: Turns | None) -> tuple[dict[str, Any], ...] | None:
    """A request's messages: its own, or a raw prompt's turns read as messages."""
    if req.kind == "messages":
        return req.messages or None
    if req.kind == "prompt" and req.prompt and turns is not None:
        found = turns(req.prompt)
        return tuple({"role": role, "content": req.prompt[a:b]} for a, b, role in found) if found else None
    return None


def _with(req: Request, messages: tuple[dict[str, Any], ...], turns: Turns | None) -> Request:
    """``req`` sending ``messages``: a raw prompt with each turn's body replaced, its markup kept."""
    if req.kind == "messages" or req.prompt is None or turns is None:
        return dataclasses.replace(req, messages=messages)
    prompt, found = req.prompt, turns(req.prompt) or ()
    for (a, b, _), message in reversed(list(zip(found, messages))):
        prompt = prompt[:a] + message["content"] + prompt[b:]
    return dataclasses.replace(req, prompt=prompt)


def as_first_sent(requests: list[Request | None], form: Form | None = None,
                  turns: Turns | None = None) -> list[Request | None]:
    """The traffic with each conversation's earlier turns as its previous request sent them
    (the same objects where nothing changes). ``form``: the form turns are compared in (the
    canonical one, where a client also sends each turn's units in an order of its own);
    ``turns``: how a raw prompt's turns are read (a prompt's conversation is its turns)."""
    # Per opening: ((surfaces as logged, in form, roles), messages as first sent) of its
    # requests so far.
    seen: dict[str, list[tuple[tuple[list[str], list[str], list[Any]], tuple[dict[str, Any], ...]]]] = {}
    out: list[Request | None] = []
    for req in requests:
        messages_or_none = _messages(req, turns) if req is not None else None
        if req is None or messages_or_none is None:
            out.append(req)
            continue
        messages = messages_or_none
        logged = [_surface(m, None) for m in messages]
        formed = [_surface(m, form) for m in messages] if form is not None else logged
        group = seen.setdefault(_opening(messages, formed), [])
        previous = next((sent for earlier, sent in reversed(group) if _continues(earlier, messages, logged, formed)),
                        None)
        fixed = messages
        if previous is not None and any(a != b for a, b in zip(previous, messages)):
            fixed = tuple(previous) + messages[len(previous):]
            req = _with(req, fixed, turns)
        group.append(((logged, formed, [m.get("role") for m in messages]), fixed))
        del group[:-LINK_BACK]  # (only the latest are looked at)
        out.append(req)
    return out
