"""The traffic as the prescription rewrote it, one JSON record a line (``prescribe
--emit-rewritten FILE``): what a user reads to see one request before and after the change.

Each record is the request in the record shape advisor reads (``messages`` and ``tools``, or
``prompt``; ``input_ids`` and ``hash_ids`` records that no fix changed stay ids), with the
fields that place it in the log kept (id, timestamp, session, tenant, the output lengths),
and ``source``/``line``: where the request as logged is.
"""

from __future__ import annotations

import json
from typing import Any, Iterator

from advisor.ingest.pipeline import Sequence
from advisor.ingest.traffic import Request


def record(req: Request) -> dict[str, Any]:
    """``req`` as a traffic record."""
    out: dict[str, Any] = {}
    if req.id is not None:
        out["id"] = req.id
    if req.messages is not None:
        out["messages"] = list(req.messages)
        if req.tools:
            out["tools"] = list(req.tools)
        out.update(req.options or {})
    elif req.prompt is not None:
        out["prompt"] = req.prompt
    elif req.input_ids is not None:
        out["input_ids"] = req.input_ids.tolist()
    elif req.hash_ids is not None:
        out["hash_ids"] = req.hash_ids.tolist()
        out["input_length"] = req.input_length
    elif req.template is not None:
        out["template"] = req.template
        out["variables"] = req.variables or {}
    for key, value in (("timestamp", req.timestamp), ("session_id", req.session), ("tenant", req.tenant),
                       ("output_length", req.output_length), ("max_tokens", req.max_output_tokens)):
        if value is not None:
            out[key] = value
    out["source"], out["line"] = req.source, req.line
    return out


def jsonl(seqs: list[Sequence]) -> Iterator[str]:
    """One line per request, in log order."""
    for seq in seqs:
        yield json.dumps(record(seq.request), ensure_ascii=False) + "\n"
