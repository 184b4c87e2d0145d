"""Where the chat template prints the system prompt: the fix that sends it where a
conversation's turns do not part.

A layout that prints the system prompt with the last user turn (Mistral's) puts it behind the
history, so every turn of a session sends it anew behind content only that session holds;
where a step ends on a tool result it is not printed at all. Sent as the opening of the first
user turn instead, it is printed once, ahead of the history, in every turn: what a
conversation sent before stays its prefix. The render probe (``markup.Markup.system_late``)
tells which templates do this; the canonical order measures the fix where one does.
"""

from __future__ import annotations

import dataclasses

from advisor.ingest.traffic import Request
from advisor.prescribe.markup import SYSTEM_ROLES


def system_into_first_user(req: Request) -> Request | None:
    """The request with its system messages sent as the opening of the first user turn. A
    layout that prints the system prompt with the last user turn (Mistral's, through
    mistral-common) puts it after the history, so every turn of a session sends it anew
    behind content only that session holds; at the first user turn it stays in front."""
    if req.kind != "messages" or not req.messages:
        return None
    messages = [dict(m) for m in req.messages]
    system = [m for m in messages if m.get("role") in SYSTEM_ROLES]
    rest = [m for m in messages if m.get("role") not in SYSTEM_ROLES]
    first = next((k for k, m in enumerate(rest) if m.get("role") == "user"), None)
    texts = [m.get("content") for m in system]
    if not system or first is None or not all(isinstance(t, str) for t in texts):
        return None
    if not any(m.get("role") == "assistant" for m in rest[first:]):
        return None  # one turn: nothing comes between the system prompt and the question
    head = "\n\n".join(str(t) for t in texts)
    content = rest[first].get("content")
    if isinstance(content, str):
        rest[first]["content"] = head + "\n\n" + content
    elif isinstance(content, list):
        rest[first]["content"] = [{"type": "text", "text": head + "\n\n"}] + list(content)
    else:
        return None
    return dataclasses.replace(req, messages=tuple(rest))
