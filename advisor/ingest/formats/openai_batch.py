"""OpenAI Batch API files.

Input lines: ``{"custom_id", "method": "POST", "url": "/v1/chat/completions" |
"/v1/completions" | "/v1/responses", "body": {...}}``; the request id is ``custom_id``.
Output lines: ``{"id", "custom_id", "response": {"status_code", "body": {... "usage"}},
"error"}``; they carry no prompt, only what the provider reported, and are joined to
the input lines by ``custom_id`` (``advisor.ingest.formats.join``).
"""

from __future__ import annotations

from typing import Any

from advisor.ingest.formats.base import Adapter, body_payloads, numbered, obj, usage_of
from advisor.ingest.traffic import BadRecord

OBSERVE = "observe"  # the key of an observation record: the request id it reports on


def _is_input(value: Any) -> bool:
    return isinstance(value, dict) and "custom_id" in value and "body" in value and "url" in value


def _input(value: Any) -> list[dict[str, Any]]:
    if not _is_input(value):
        raise BadRecord("not an OpenAI Batch input line (needs custom_id, method, url, body)")
    cid = value["custom_id"]
    if not isinstance(cid, str) or not cid:
        raise BadRecord("'custom_id' must be a non-empty string")
    method = value.get("method", "POST")
    if method != "POST":
        raise BadRecord(f"method '{method}' is not POST")
    url = value["url"]
    if not isinstance(url, str):
        raise BadRecord("'url' must be an endpoint path")
    return numbered(body_payloads(url, obj(value["body"], "body")), cid)


def _is_output(value: Any) -> bool:
    return isinstance(value, dict) and "custom_id" in value and "response" in value and "body" not in value


def observed(value: Any) -> tuple[str, dict[str, Any]]:
    """``custom_id`` and the observed fields of one output line."""
    if not _is_output(value):
        raise BadRecord("not an OpenAI Batch output line (needs custom_id and response)")
    cid = value["custom_id"]
    if not isinstance(cid, str) or not cid:
        raise BadRecord("'custom_id' must be a non-empty string")
    response = value.get("response")
    if response is None:
        raise BadRecord(f"request {cid} failed in the batch (no response)")
    response = obj(response, "response")
    status = response.get("status_code", 200)
    if status != 200:
        raise BadRecord(f"request {cid} has status {status}: no usage to compare")
    usage = usage_of(obj(response.get("body"), "response.body").get("usage"))
    return cid, {k: v for k, v in usage.meta().items() if v is not None}


def _output(value: Any) -> list[dict[str, Any]]:
    cid, fields = observed(value)
    return [{OBSERVE: cid, **fields}]  # joined to its input line by the loader


BATCH_INPUT = Adapter("openai-batch", False, _is_input, _input)
BATCH_OUTPUT = Adapter("openai-batch-output", False, _is_output, _output)
