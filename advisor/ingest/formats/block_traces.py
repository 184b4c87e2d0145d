"""Block-hash traces beyond Mooncake's own rows (which the ``hash_ids`` record kind reads).

- Alibaba Bailian (qwen-bailian-usagetraces-anon): ``chat_id``, ``parent_chat_id``,
  ``timestamp`` (seconds), ``input_length``, ``output_length``, ``type``, ``turn``,
  ``hash_ids`` over **16-token** blocks. The session is the root ``chat_id`` of the
  parent chain (a conversation), followed within the file.
- ServeGen (alibaba/ServeGen ``data/offline``): ``request_id``, ``type``,
  ``input_length``, ``hash_ids`` (16-token blocks), no timestamps.
- Agentic Mooncake rows (AIPerf, Dynamo): ``session_id``, ``input_length``,
  ``output_length``, ``hash_ids`` and either ``timestamp`` (ms) or ``delay`` (ms after
  the previous turn of the session; its arrival is taken as the previous turn's arrival
  plus the delay, as the engine's service time is not in the trace), ``wait_for`` names
  turns it depends on (order only).
A row's own ``block_size`` overrides the format's default, as kvcache-simulator does."""

from __future__ import annotations

from typing import Any

from advisor.ingest.formats.base import Adapter, count, record
from advisor.ingest.formats.timestamps import parse_timestamp
from advisor.ingest.traffic import BadRecord

BAILIAN_BLOCK = 16


def _hashes(value: dict[str, Any]) -> dict[str, Any]:
    if not isinstance(value.get("hash_ids"), list):
        raise BadRecord("'hash_ids' must be a list of integers")
    out: dict[str, Any] = {"hash_ids": value["hash_ids"]}
    if value.get("input_length") is not None:
        out["input_length"] = value["input_length"]
    return out


def _is_bailian(value: Any) -> bool:
    return isinstance(value, dict) and "hash_ids" in value and "chat_id" in value


def _is_servegen(value: Any) -> bool:
    return isinstance(value, dict) and "hash_ids" in value and "request_id" in value and "chat_id" not in value


def _is_agentic(value: Any) -> bool:
    return isinstance(value, dict) and "hash_ids" in value and "session_id" in value


class Sessions:
    """Conversation roots and last arrivals, per file, in file order."""

    def __init__(self) -> None:
        self.root: dict[str, str] = {}
        self.last: dict[str, float] = {}


def bailian(state: Sessions):
    def convert(value: Any) -> list[dict[str, Any]]:
        if not _is_bailian(value):
            raise BadRecord("not a Bailian trace row (needs chat_id and hash_ids)")
        chat = str(value["chat_id"])
        parent = value.get("parent_chat_id")
        root = chat
        if parent not in (None, -1, "-1", ""):
            root = state.root.get(str(parent), str(parent))
        state.root[chat] = root
        stamp = value.get("timestamp")
        return [record(_hashes(value), id=chat, session_id=root,
                       timestamp=None if stamp is None else parse_timestamp(stamp),
                       output_length=count(value.get("output_length"), "output_length"),
                       block_size=value.get("block_size", BAILIAN_BLOCK))]
    return convert


def servegen(_state: Sessions):
    def convert(value: Any) -> list[dict[str, Any]]:
        if not _is_servegen(value):
            raise BadRecord("not a ServeGen row (needs request_id and hash_ids)")
        return [record(_hashes(value), id=str(value["request_id"]),
                       output_length=count(value.get("output_length"), "output_length"),
                       block_size=value.get("block_size", BAILIAN_BLOCK))]
    return convert


def agentic(state: Sessions):
    def convert(value: Any) -> list[dict[str, Any]]:
        if not _is_agentic(value):
            raise BadRecord("not an agentic Mooncake row (needs session_id and hash_ids)")
        session = str(value["session_id"])
        stamp = value.get("timestamp")
        if stamp is not None:
            arrival = parse_timestamp(stamp)
        elif value.get("delay") is not None:
            delay = parse_timestamp(value["delay"], "delay")
            if session not in state.last:
                raise BadRecord(f"'delay' on the first turn of session {session} (it needs a timestamp)")
            arrival = state.last[session] + delay
        else:
            arrival = None
        if arrival is not None:
            state.last[session] = arrival
        extra = {}
        if value.get("block_size") is not None:
            extra["block_size"] = value["block_size"]
        return [record(_hashes(value), id=None if value.get("id") is None else str(value["id"]),
                       session_id=session, timestamp=arrival,
                       output_length=count(value.get("output_length"), "output_length"), **extra)]
    return convert


def _unused(value: Any) -> list[Any]:
    raise AssertionError("block-trace adapters convert through a fresh per-file converter")


# Stateful per file: each file gets fresh session tables.
BAILIAN = Adapter("bailian", False, _is_bailian, _unused, lambda: bailian(Sessions()))
SERVEGEN = Adapter("servegen", False, _is_servegen, _unused, lambda: servegen(Sessions()))
AGENTIC = Adapter("mooncake-agentic", False, _is_agentic, _unused, lambda: agentic(Sessions()))
