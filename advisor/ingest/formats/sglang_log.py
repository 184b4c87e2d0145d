"""SGLang ``--log-requests`` output.

``Receive: obj=GenerateReqInput(text='...', input_ids=None, ..., rid='...', ...)`` is the
request as it arrives (``text`` or ``input_ids``; the line's ``[YYYY-MM-DD HH:MM:SS]``
prefix is the arrival time, local time as logged). ``Finish: obj=..., out={...
'meta_info': {'id': ..., 'prompt_tokens': N, 'completion_tokens': M, 'cached_tokens': K
...}}`` gives what the engine reported; it is joined to its request by ``rid``. The Receive
line's ``sampling_params`` ``max_new_tokens`` is the request's maximum output.
SGLang shortens long values to their two halves joined by `` ... ``
(``--log-requests-level``'s length limit): such a line is reported as truncated. The
request's ``extra_key``, ``cache_salt`` and LoRA adapter (``lora_path``, else ``lora_id``)
are cache keys of their own (advisor.ingest.cache_keys)."""

from __future__ import annotations

import re
from array import array
from datetime import datetime, timezone
from typing import Any

from advisor.ingest.formats.base import Adapter, bound_of, count, record
from advisor.ingest.formats.pyliteral import Cut, value_at
from advisor.ingest.long_lines import TooManyValues
from advisor.ingest.traffic import BadRecord

RECEIVE = re.compile(r"Receive: obj=\w*ReqInput\(")
FINISH = re.compile(r"Finish: obj=\w*ReqInput\(")
STAMP = re.compile(r"\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?)")
OBSERVE = "observe"  # record key of a Finish line: the id it reports on
# GenerateReqInput fields that key the cache beyond the tokens (the record fields of the same names).
KEY_FIELDS = ("extra_key", "cache_salt", "lora_path", "lora_id")


def _matches(line: Any) -> bool:
    return isinstance(line, str) and bool(RECEIVE.search(line) or FINISH.search(line))


def _field(line: str, name: str, start: int) -> tuple[Any, bool]:
    """The value of ``name=`` in the dataclass repr after ``start``; whether it was cut."""
    m = re.compile(r"[(,] ?" + name + "=").search(line, start)
    if m is None:
        return None, False
    value, end = value_at(line, m.end(), name)
    return value, line.startswith(" ... ", end)


def _time(line: str, head: int) -> float | None:
    m = STAMP.search(line, 0, head)
    if m is None:
        return None
    # The logged wall clock has no zone; only differences matter for arrivals.
    return datetime.fromisoformat(m.group(1)).replace(tzinfo=timezone.utc).timestamp()


def _convert(line: Any) -> list[dict[str, Any]]:
    fin = FINISH.search(line)
    rec = fin or RECEIVE.search(line)
    if rec is None:
        return []
    rid = None
    try:
        rid, _ = _field(line, "rid", rec.end() - 1)
        if fin is not None:
            return [_finish(line, rid)]
        text, text_cut = _field(line, "text", rec.end() - 1)
        ids, ids_cut = _field(line, "input_ids", rec.end() - 1)
        keys = {name: _field(line, name, rec.end() - 1)[0] for name in KEY_FIELDS}
    except Cut as exc:
        raise BadRecord(f"truncated log line ({exc})") from None
    except TooManyValues as exc:  # past the caps of one record, refused before it was read whole
        raise BadRecord(f"request {rid}: {exc}" if rid is not None else str(exc)) from None
    if text_cut or ids_cut:
        raise BadRecord(f"truncated log line for request {rid}: SGLang shortened the "
                        f"{'text' if text_cut else 'input_ids'} (raise --log-requests-level)")
    meta = {"id": None if rid is None else str(rid), "timestamp": _time(line, rec.start()),
            # The request's maximum output (a batch's sampling_params is a list: none taken);
            # the Finish line's completion_tokens, a measured count, comes in its place if logged.
            "max_tokens": _max_new_tokens(line, rec.end() - 1),
            # A batch's keys are lists: its text is one too, refused below.
            **{name: value for name, value in keys.items() if isinstance(value, str)}}
    # A plain id list comes packed (pyliteral); a list only when some id is not a plain one.
    if isinstance(ids, array) or (isinstance(ids, list) and ids and all(isinstance(i, int) for i in ids)):
        return [record({"input_ids": ids}, **meta)]
    if isinstance(text, str) and text:
        return [record({"prompt": text}, **meta)]
    raise BadRecord(f"request {rid} has neither text nor input_ids (a batch or a level that omits them)")


def _max_new_tokens(line: str, start: int) -> int | None:
    """``sampling_params``' ``max_new_tokens``, or None. Optional: sampling parameters that
    cannot be read (cut, or past the caps) leave the request as it is, without a maximum."""
    try:
        sampling, _ = _field(line, "sampling_params", start)
    except (Cut, TooManyValues):
        return None
    return bound_of(sampling)


def _finish(line: str, rid: Any) -> dict[str, Any]:
    at = line.find("'meta_info': ")
    if at < 0:
        raise BadRecord("Finish line without meta_info")
    meta, _ = value_at(line, at + len("'meta_info': "), "meta_info")
    if not isinstance(meta, dict):
        raise BadRecord("Finish line's meta_info is not a dict")
    rid = meta.get("id", rid)
    if rid is None:
        raise BadRecord("Finish line without a request id")
    return {OBSERVE: str(rid),
            "cached_tokens": count(meta.get("cached_tokens"), "cached_tokens"),
            "prompt_tokens": count(meta.get("prompt_tokens"), "prompt_tokens"),
            "output_length": count(meta.get("completion_tokens"), "completion_tokens")}


SGLANG_LOG = Adapter("sglang-log", True, _matches, _convert)
