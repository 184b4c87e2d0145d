"""The chat template's own inputs pinned: a value the template renders from the request's
options or clock, not from its messages, has no place in the messages to move to. The
canonical form sends one value instead of a per-request one (a constant ``date_string``, no
request clock: the renderer's fixed date), where the template reads it."""

from __future__ import annotations

import dataclasses

from advisor.ingest.traffic import Request

# A constant for the date a chat template shows (Llama 3.1's own default).
PINNED_DATE = "26 Jul 2024"


def pin_template_values(req: Request, date: bool = True, clock: bool = True) -> Request | None:
    """The request with the values a chat template reads per request pinned: the
    ``date_string`` kwarg set to one constant (``date``: where the template reads it), and no
    clock (``clock``: where it reads one); None where nothing changes."""
    options = dict(req.options or {})
    kwargs = options.get("chat_template_kwargs")
    changed = False
    if date and isinstance(kwargs, dict) and "date_string" in kwargs and kwargs["date_string"] != PINNED_DATE:
        options["chat_template_kwargs"] = dict(kwargs, date_string=PINNED_DATE)
        changed = True
    if clock and req.timestamp is not None:
        changed = True
    if not changed:
        return None
    return dataclasses.replace(req, options=options or None, timestamp=req.timestamp if not clock else None)
