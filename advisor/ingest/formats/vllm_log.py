"""vLLM request log lines (``--enable-log-requests``).

Older form, one line: ``Received request ID: prompt: '...', params: SamplingParams(...),
prompt_token_ids: [...], lora_request: None, ...``. Newer form: ``Request ID details:
prompt: '...', prompt_token_ids: [...], prompt_embeds shape: None.`` (at DEBUG level),
with a separate ``Received request ID: params: ...`` line that carries no prompt.
``prompt_token_ids`` (the engine's own tokens) are used when logged, else the prompt
text. ``--max-log-len N`` cuts the prompt to N characters and the ids to N ids: a line
where both have the same length (16 or more) is reported as truncated, as is a line
whose prompt or id list is cut off. The line's ``MM-DD HH:MM:SS`` time is the arrival
(relative: vLLM's log format has no year or zone). The older form's ``lora_request:
LoRARequest(lora_name='...', ...)`` names the request's LoRA adapter, a cache key of its
own (advisor.ingest.cache_keys); the newer form logs it on the separate ``params`` line,
which is not joined, and neither form logs a ``cache_salt``. The older form's
``SamplingParams`` ``max_tokens`` is the request's maximum output (the newer form's, on the
``params`` line, is not joined either). No output token count is read: vLLM logs one only
in ``Generated response`` lines (``--enable-log-outputs``), cut at ``--max-log-len`` ids and
left out by its newer releases."""

from __future__ import annotations

import re
from array import array
from typing import Any

from advisor.ingest.formats.base import Adapter, record
from advisor.ingest.formats.pyliteral import Cut, value_at
from advisor.ingest.long_lines import TooManyValues
from advisor.ingest.traffic import BadRecord

OLD = re.compile(r"Received request (\S+): prompt: ")
NEW = re.compile(r"Request (\S+) details: prompt: ")
OTHER = re.compile(r"Received request \S+: params: |Generated response |Finished request ")
STAMP = re.compile(r"(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:[.,](\d+))?")
LORA = re.compile(r"lora_request: LoRARequest\(")
LORA_NAME = re.compile(r"[(,] ?lora_name=")
PARAMS = re.compile(r"params: SamplingParams\(")
MAX_TOKENS = re.compile(r"[(,] ?max_tokens=(\d+)")
CUT_MIN = 16
DAYS_BEFORE = (0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334)


def _matches(line: Any) -> bool:
    return isinstance(line, str) and bool(OLD.search(line) or NEW.search(line))


def line_time(line: str, head: int) -> float | None:
    """Seconds within a (non-leap) year from the log prefix's ``MM-DD HH:MM:SS``."""
    m = STAMP.search(line, 0, head)
    if m is None:
        return None
    month, day, hh, mm, ss = (int(g) for g in m.groups()[:5])
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    frac = float("0." + m.group(6)) if m.group(6) else 0.0
    return (DAYS_BEFORE[month - 1] + day - 1) * 86400 + hh * 3600 + mm * 60 + ss + frac


def _convert(line: Any) -> list[dict[str, Any]]:
    m = OLD.search(line) or NEW.search(line)
    if m is None:
        return []  # any other log line: not a request
    rid = m.group(1)
    lora = None
    try:
        prompt, end = value_at(line, m.end(), "prompt")
        ids = None
        key = line.find("prompt_token_ids: ", end)
        bound = _max_tokens(line, end, key if key >= 0 else len(line))
        if key >= 0:
            ids, end = value_at(line, key + len("prompt_token_ids: "), "prompt_token_ids")
        adapter = LORA.search(line, end)
        named = LORA_NAME.search(line, adapter.end() - 1) if adapter is not None else None
        if named is not None:
            lora, _ = value_at(line, named.end(), "lora_name")
    except Cut as exc:
        raise BadRecord(f"truncated log line for request {rid} ({exc})") from None
    except TooManyValues as exc:  # past the caps of one record, refused before it was read whole
        raise BadRecord(f"request {rid}: {exc}") from None
    if prompt is not None and not isinstance(prompt, str):
        raise BadRecord(f"request {rid}: prompt is not a quoted string")
    # A plain id list comes packed (pyliteral); a list only when some id is not a plain one.
    if ids is not None and not isinstance(ids, array) and not (
            isinstance(ids, list) and all(isinstance(i, int) for i in ids)):
        raise BadRecord(f"request {rid}: prompt_token_ids is not a list of integers")
    if isinstance(prompt, str) and ids and len(ids) == len(prompt) >= CUT_MIN:
        raise BadRecord(f"truncated log line for request {rid}: prompt and prompt_token_ids both cut to "
                        f"{len(ids)} (--max-log-len)")
    meta = {"id": rid, "timestamp": line_time(line, m.start()),
            "lora_name": lora if isinstance(lora, str) else None, "max_tokens": bound}
    if ids:
        return [record({"input_ids": ids}, **meta)]
    if isinstance(prompt, str) and prompt:
        return [record({"prompt": prompt}, **meta)]
    raise BadRecord(f"request {rid} has neither prompt text nor prompt_token_ids")


def _max_tokens(line: str, start: int, stop: int) -> int | None:
    """The older form's ``SamplingParams(... max_tokens=N ...)`` between the prompt and its
    ids: the request's maximum output (``None`` there: the engine's default, not logged)."""
    params = PARAMS.search(line, start, stop)
    if params is None:
        return None
    got = MAX_TOKENS.search(line, params.end() - 1, stop)
    return int(got.group(1)) if got is not None else None


VLLM_LOG = Adapter("vllm-log", True, _matches, _convert)
