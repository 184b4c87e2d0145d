"""History as first sent (advisor.prescribe.history): a conversation's re-rendered turns undone.

The oracle is the engines' reuse rule itself: after the fix, each request of a conversation
starts with every message its previous request sent, so the radix tree's match covers the
whole history; and nothing a client sent on purpose (another conversation, a rewritten
summary) is replaced.
"""

from __future__ import annotations

import random
from typing import Any

from advisor.ingest.traffic import Request
from advisor.prescribe.history import as_first_sent


def _req(k: int, messages: list[dict[str, Any]]) -> Request:
    return Request(source="t.jsonl", line=k + 1, kind="messages", messages=tuple(messages))


def _conversations(rng: random.Random, aged: bool, conversations: int = 6) -> list[tuple[int, list[dict[str, Any]]]]:
    """Interleaved conversations; with ``aged`` every earlier reply carries its age in
    minutes, rendered again at each turn. (conversation, messages) in log order."""
    turns = {c: rng.randint(2, 5) for c in range(conversations)}
    order = [c for c in turns for _ in range(turns[c])]
    rng.shuffle(order)
    sent = {c: 0 for c in turns}
    out = []
    for c in order:
        k = sent[c]
        sent[c] += 1
        messages: list[dict[str, Any]] = []
        for j in range(k + 1):
            messages.append({"role": "user", "content": f"Conversation {c}, question {j}: what about lot {c * 10 + j}?"})
            if j < k:
                age = f"({(k - j) * 3 + rng.randint(0, 2)} min ago) " if aged else ""
                messages.append({"role": "assistant", "content": f"{age}Lot {c * 10 + j} is ready in cellar {j}."})
        out.append((c, messages))
    return out


def _starts_with(longer: tuple[dict[str, Any], ...], shorter: tuple[dict[str, Any], ...]) -> bool:
    return len(longer) > len(shorter) and list(longer[:len(shorter)]) == list(shorter)


def test_each_turn_extends_the_previous_one() -> None:
    for seed in range(5):
        log = _conversations(random.Random(seed), aged=True)
        fixed = as_first_sent([_req(k, m) for k, (_, m) in enumerate(log)])
        last: dict[int, Request] = {}
        for (c, _), req in zip(log, fixed):
            assert req is not None and req.messages is not None
            if c in last:
                assert _starts_with(req.messages, last[c].messages or ())
            last[c] = req
        # Only earlier turns change: each request's own new turns are as logged.
        for (_, messages), req in zip(log, fixed):
            assert req is not None and req.messages is not None
            assert list(req.messages[-1:]) == messages[-1:]


def test_logged_history_unchanged() -> None:
    """A client that resends its history as it was: the same objects come back."""
    log = _conversations(random.Random(7), aged=False)
    requests: list[Request | None] = [_req(k, m) for k, (_, m) in enumerate(log)]
    assert all(a is b for a, b in zip(as_first_sent(requests), requests))


def test_an_edit_the_client_meant_stays() -> None:
    """A turn rewritten in more than HISTORY_EDIT of its text (a summary made again) is not
    the same turn re-rendered: the later request keeps it."""
    summary = "Summary: " + "the caller asked about lot 4 and the cellar rota. " * 4
    rewritten = "Summary: " + "the caller now wants a refund for lot 9 and a new date. " * 4
    first = _req(0, [{"role": "user", "content": "Hello"}, {"role": "assistant", "content": summary},
                     {"role": "user", "content": "And the rota?"}])
    second = _req(1, [{"role": "user", "content": "Hello"}, {"role": "assistant", "content": rewritten},
                      {"role": "user", "content": "And the rota?"}, {"role": "assistant", "content": "Done."},
                      {"role": "user", "content": "Thanks."}])
    out = as_first_sent([first, second])
    assert out[1] is second
    # The same reply with a stamp changed is the same turn (its share of the text is small).
    stamped = summary.replace("lot 4", "lot 5", 1)
    third = _req(2, [{"role": "user", "content": "Hello"}, {"role": "assistant", "content": stamped},
                     {"role": "user", "content": "And the rota?"}, {"role": "assistant", "content": "Done."},
                     {"role": "user", "content": "Thanks."}])
    out = as_first_sent([first, third])
    assert out[1] is not None and out[1].messages is not None
    assert out[1].messages[1]["content"] == summary


def test_other_conversations_never_linked() -> None:
    """Two conversations that open alike but differ in a turn's roles or count are not one."""
    a = _req(0, [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Lot 4?"}])
    b = _req(1, [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Lot 7?"},
                 {"role": "assistant", "content": "Ready."}, {"role": "user", "content": "And 8?"}])
    assert as_first_sent([a, b])[1] is b
