"""Traffic loaders: JSON Lines (optionally gzip) to ``Request`` records, streamed.

One request per line, in any of the record kinds of DESIGN.md. A bad line never stops
the run: it is reported as ``file:line: reason`` through ``on_skip`` and counted, and the
good records around it still load. An empty or missing file is an error of its own.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import re
import stat
import zlib
from array import array
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Protocol

from advisor.errors import AdvisorError
from advisor.ingest import long_lines
from advisor.ingest.cache_keys import media_of
from advisor.ingest.ids import as_array
from advisor.ingest.preprocess import REQUEST_OPTIONS
from advisor.ingest.safe_open import check_name, open_binary

try:  # orjson parses several times faster; the standard library is the fallback.
    import orjson

    _loads: Callable[[bytes], Any] = orjson.loads
    _DecodeError: tuple[type[Exception], ...] = (orjson.JSONDecodeError, RecursionError)
except ImportError:  # pragma: no cover - exercised where orjson is absent
    _loads = json.loads
    _DecodeError = (json.JSONDecodeError, UnicodeDecodeError, RecursionError)

KINDS = ("messages", "prompt", "input_ids", "hash_ids", "template")
ROLES = frozenset({"system", "developer", "user", "assistant", "tool", "function", "ipython"})
GZIP_MAGIC = b"\x1f\x8b"
# A line longer than this is skipped unread: 32 MiB holds millions of tokens of text or ids,
# past any model's context, and parsing it would cost gigabytes.
MAX_LINE_BYTES = 32 << 20
# Epoch nanoseconds reach 1.8e18 in 2027; anything past 1e19 is not a time.
MAX_TIMESTAMP = 1e19
# Output tokens of one request: simulators pack it in 32 bits; no model generates 2**31.
MAX_OUTPUT_LENGTH = 2**31 - 1
UTF8_BOM = b"\xef\xbb\xbf"
# Other compressions, by magic number: read through the standard library, or refused.
BZIP2_MAGIC = b"BZh"
XZ_MAGIC = b"\xfd7zXZ\x00"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
CHUNK = 1 << 20


@dataclass(frozen=True)
class Request:
    """One request as logged. Exactly one payload field is set, named by ``kind``."""

    source: str
    line: int
    kind: str
    messages: tuple[dict[str, Any], ...] | None = None
    tools: tuple[Any, ...] | None = None
    prompt: str | None = None
    input_ids: array | None = None  # packed unsigned 32-bit ids
    hash_ids: array | None = None
    input_length: int | None = None
    template: str | None = None
    variables: dict[str, Any] | None = field(default=None, hash=False, compare=False)
    id: str | None = None
    timestamp: float | None = None
    tenant: str | None = None
    output_length: int | None = None  # the output tokens logged (a measured count)
    # The output tokens the request asked for at most (max_completion_tokens, max_tokens, ...):
    # an upper bound, kept apart from ``output_length`` so a measured count is never mistaken for it.
    max_output_tokens: int | None = None
    # Set by the input adapters (advisor.ingest.formats) or the optional record fields:
    block_size: int | None = None  # tokens per hash_ids block of this record's trace
    cached_tokens: int | None = None  # cached tokens the engine or provider reported
    reported_prompt_tokens: int | None = None  # prompt tokens it reported
    session: str | None = None
    # Request-level fields of a chat request that change what the engine renders
    # (tool_choice, chat_template_kwargs, ...; advisor.ingest.preprocess.REQUEST_OPTIONS).
    options: dict[str, Any] | None = field(default=None, hash=False, compare=False)
    # Cache keys beyond the tokens (advisor.ingest.cache_keys): requests whose keys differ
    # never share a cached prefix. ``cache_salt`` (vLLM and SGLang), ``extra_key`` (SGLang),
    # ``lora``: the LoRA adapter the record names (lora_name, lora_path or lora_id).
    cache_salt: str | None = None
    extra_key: str | None = None
    lora: str | None = None
    # The multimodal items of a chat request in order, as ``modality:digest``.
    media: tuple[str, ...] | None = None

    @property
    def where(self) -> str:
        return f"{self.source}:{self.line}"


@dataclass(frozen=True)
class Skip:
    source: str
    line: int
    reason: str

    def __str__(self) -> str:
        return f"{self.source}:{self.line}: {self.reason}"


class BadRecord(ValueError):
    """A line that cannot be a request; its message is the reason shown to the user."""


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _int_list(value: Any, name: str) -> array:
    """The ids packed as unsigned 32-bit integers (4 bytes an id, not ~36 as Python ints:
    a record of millions of ids is held as it is read)."""
    if isinstance(value, array):  # already packed by advisor.ingest.long_lines
        if not value:
            raise BadRecord(f"'{name}' is empty")
        return value
    if not isinstance(value, list):
        raise BadRecord(f"'{name}' must be a list of integers")
    if len(value) > long_lines.MAX_RECORD_IDS:
        raise BadRecord(long_lines.too_many_ids(name, len(value)))
    if value and set(map(type, value)) == {int}:  # the common case, checked in C
        try:
            return as_array(value)
        except OverflowError:
            pass  # a negative id or one past 32 bits: named below
    for item in value:
        if not _is_int(item):
            raise BadRecord(f"'{name}' must hold integers only, found {type(item).__name__}")
        if item < 0:
            raise BadRecord(f"'{name}' holds a negative id ({item})")
    if not value:
        raise BadRecord(f"'{name}' is empty")
    top = max(value)
    if name == "hash_ids":
        raise BadRecord(f"hash id {top} does not fit in 32 bits")
    raise BadRecord(f"token id {top} is outside the tokenizer's vocabulary (ids are 32-bit)")


def _message(item: Any, index: int) -> dict[str, Any]:
    if not isinstance(item, dict):
        raise BadRecord(f"messages[{index}] is not an object")
    role = item.get("role")
    if not isinstance(role, str):
        raise BadRecord(f"messages[{index}] has no string 'role'")
    if role not in ROLES:
        raise BadRecord(f"messages[{index}] has unknown role '{role}'")
    calls = item.get("tool_calls")
    if calls is not None:
        if not isinstance(calls, list):
            raise BadRecord(f"messages[{index}] 'tool_calls' must be a list")
        for call in calls:
            if not isinstance(call, dict) or not isinstance(call.get("function", {}), dict):
                raise BadRecord(f"messages[{index}] has a tool call that is not an object with a 'function' object")
    content = item.get("content")
    # `content: null` is valid OpenAI input (an assistant tool call, and more): each engine
    # decides what it becomes (advisor.ingest.preprocess), so it is not refused here.
    if content is None:
        pass
    elif isinstance(content, list):
        # OpenAI content parts: only text parts carry prompt text we can tokenize.
        for part in content:
            if not (isinstance(part, dict) and isinstance(part.get("text", part.get("type")), str)):
                raise BadRecord(f"messages[{index}] has a content part that is not an object with text")
    elif not isinstance(content, str):
        raise BadRecord(f"messages[{index}] content must be a string or a list of parts")
    return item


def _observed_fields(obj: dict[str, Any], meta: dict[str, Any]) -> None:
    for name, attr in (("cached_tokens", "cached_tokens"), ("prompt_tokens", "reported_prompt_tokens")):
        value = obj.get(name)
        if value is not None:
            if not _is_int(value) or value < 0:
                raise BadRecord(f"'{name}' must be a non-negative integer")
            meta[attr] = value
    session = obj.get("session_id")
    if session is not None:
        if not isinstance(session, (str, int)) or isinstance(session, bool):
            raise BadRecord("'session_id' must be a string")
        meta["session"] = str(session)


def _label_field(obj: dict[str, Any], meta: dict[str, Any], name: str, error: str) -> None:
    value = obj.get(name)
    if value is not None:
        if not isinstance(value, (str, int)) or isinstance(value, bool):
            raise BadRecord(error)
        meta[name] = str(value)


def _id_field(obj: dict[str, Any], meta: dict[str, Any]) -> None:
    _label_field(obj, meta, "id", "'id' must be a string or an integer")


def _timestamp_field(obj: dict[str, Any], meta: dict[str, Any]) -> None:
    ts = obj.get("timestamp")
    if ts is None:
        return
    if not isinstance(ts, (int, float)) or isinstance(ts, bool) or ts != ts:
        raise BadRecord("'timestamp' must be a number")
    if not -MAX_TIMESTAMP <= ts <= MAX_TIMESTAMP:
        # Differences of such times overflow to infinity (and -Infinity is not JSON).
        raise BadRecord(f"'timestamp' {ts:g} is out of range (at most {MAX_TIMESTAMP:g}, an epoch in ns)")
    meta["timestamp"] = float(ts)


def _block_size_field(obj: dict[str, Any], meta: dict[str, Any]) -> None:
    if obj.get("block_size") is not None:
        block_size = obj["block_size"]
        if not _is_int(block_size) or block_size < 1:
            raise BadRecord("'block_size' must be a positive integer")
        meta["block_size"] = block_size


def _tenant_field(obj: dict[str, Any], meta: dict[str, Any]) -> None:
    _label_field(obj, meta, "tenant", "'tenant' must be a string")


def _output_length_field(obj: dict[str, Any], meta: dict[str, Any]) -> None:
    out_len = obj.get("output_length")
    if out_len is None:
        return
    if not _is_int(out_len) or out_len < 0:
        raise BadRecord("'output_length' must be a non-negative integer")
    if out_len > MAX_OUTPUT_LENGTH:
        raise BadRecord(f"'output_length' {out_len} is over {MAX_OUTPUT_LENGTH:,} (no model generates that much)")
    meta["output_length"] = out_len


# The request fields that bound its output, in the order vLLM's and SGLang's OpenAI servers
# read them (max_completion_tokens, else the deprecated max_tokens); the Responses API's
# max_output_tokens. The first one set is the request's maximum.
MAX_TOKENS_FIELDS = ("max_completion_tokens", "max_tokens", "max_output_tokens")


def _max_tokens_field(obj: dict[str, Any], meta: dict[str, Any]) -> None:
    for name in MAX_TOKENS_FIELDS:
        value = obj.get(name)
        if value is None:
            continue
        # Checked as output_length is: an engine refuses a request whose maximum is not a
        # non-negative integer, so such a line was never served.
        if not _is_int(value) or value < 0:
            raise BadRecord(f"'{name}' must be a non-negative integer")
        if value > MAX_OUTPUT_LENGTH:
            raise BadRecord(f"'{name}' {value} is over {MAX_OUTPUT_LENGTH:,} (no model generates that much)")
        meta["max_output_tokens"] = value
        return


# The record fields naming a LoRA adapter, the first one set wins: vLLM's adapter name,
# SGLang's request field (the adapter's name too), SGLang's resolved adapter id.
LORA_FIELDS = ("lora_name", "lora_path", "lora_id")


def _cache_key_fields(obj: dict[str, Any], meta: dict[str, Any]) -> None:
    # One request's keys are strings (the engines take lists for a batch only). An empty
    # string is kept: what it means is the engine's rule (advisor.ingest.cache_keys).
    for name in ("cache_salt", "extra_key"):
        value = obj.get(name)
        if value is not None:
            if not isinstance(value, str):
                raise BadRecord(f"'{name}' must be a string")
            meta[name] = value
    for name in LORA_FIELDS:
        value = obj.get(name)
        if value is not None:
            if not isinstance(value, (str, int)) or isinstance(value, bool):
                raise BadRecord(f"'{name}' must be a string (the LoRA adapter)")
            if value != "":
                meta["lora"] = str(value)
            break


# The optional fields, checked in this order: a record with several faults always names the
# same one first.
_OPTIONAL_FIELDS = (_id_field, _timestamp_field, _observed_fields, _block_size_field, _tenant_field,
                    _output_length_field, _max_tokens_field, _cache_key_fields)


def _messages_payload(obj: dict[str, Any], key: str, block_size: int) -> dict[str, Any]:
    msgs = obj["messages"]
    if not isinstance(msgs, list):
        raise BadRecord("'messages' must be a list")
    if not msgs:
        raise BadRecord("'messages' is empty")
    tools = obj.get("tools")
    if tools is not None and not isinstance(tools, list):
        raise BadRecord("'tools' must be a list")
    options = {k: obj[k] for k in REQUEST_OPTIONS if k in obj}
    messages = tuple(_message(m, i) for i, m in enumerate(msgs))
    return {"kind": "messages", "messages": messages,
            # An empty list stays one: what `tools: []` becomes is the engine release's rule (ingest.preprocess).
            "tools": tuple(tools) if tools is not None else None, "options": options or None,
            "media": media_of(messages)}


def _prompt_payload(obj: dict[str, Any], key: str, block_size: int) -> dict[str, Any]:
    prompt = obj["prompt"]
    if not isinstance(prompt, str):
        raise BadRecord("'prompt' must be a string")
    if not prompt:
        raise BadRecord("'prompt' is empty")
    return {"kind": "prompt", "prompt": prompt}


def _ids_payload(obj: dict[str, Any], key: str, block_size: int) -> dict[str, Any]:
    return {"kind": "input_ids", "input_ids": _int_list(obj[key], key)}


def _hash_ids_payload(obj: dict[str, Any], key: str, block_size: int) -> dict[str, Any]:
    ids = _int_list(obj["hash_ids"], "hash_ids")
    length = obj.get("input_length")
    if length is None:
        length = len(ids) * block_size
    elif not _is_int(length) or length <= 0:
        raise BadRecord("'input_length' must be a positive integer")
    # Each id is one block; only the last may be partial.
    if not (len(ids) - 1) * block_size < length <= len(ids) * block_size:
        raise BadRecord(f"input_length {length} does not fit {len(ids)} blocks of {block_size} tokens")
    return {"kind": "hash_ids", "hash_ids": ids, "input_length": length}


def _template_payload(obj: dict[str, Any], key: str, block_size: int) -> dict[str, Any]:
    name = obj["template"]
    if not isinstance(name, str) or not name:
        raise BadRecord("'template' must be a template name")
    try:
        check_name(name)  # looked up in a folder: one plain file name, never a path
    except AdvisorError as exc:
        raise BadRecord(f"'template': {exc}") from None
    variables = obj.get("variables", {})
    if not isinstance(variables, dict):
        raise BadRecord("'variables' must be an object")
    return {"kind": "template", "template": name, "variables": variables}


# A record's payload is the first of these fields it has.
_PAYLOADS: tuple[tuple[str, Callable[[dict[str, Any], str, int], dict[str, Any]]], ...] = (
    ("messages", _messages_payload), ("prompt", _prompt_payload), ("input_ids", _ids_payload),
    ("tokens", _ids_payload), ("hash_ids", _hash_ids_payload), ("template", _template_payload),
)


def parse_record(obj: Any, source: str, line: int, block_size: int = 512) -> Request:
    """Validate one decoded JSON value and build its ``Request``; raise ``BadRecord``."""
    if not isinstance(obj, dict):
        raise BadRecord(f"expected a JSON object, found {type(obj).__name__}")
    meta: dict[str, Any] = {}
    for check in _OPTIONAL_FIELDS:
        check(obj, meta)
    for key, payload in _PAYLOADS:
        if key in obj:
            return Request(source, line, **payload(obj, key, meta.get("block_size", block_size)), **meta)
    raise BadRecord(
        "unknown record shape: expected one of messages, prompt, input_ids, tokens, hash_ids, template"
    )


READ_BUFFER = 1 << 20


def _open(path: Path) -> BinaryIO:
    # A regular file, or a pipe (`<(zcat log.gz)`); a device such as /dev/zero is refused.
    # A large buffer: with the default 8 KiB every prompt-sized line is a read call,
    # and each call gives up the GIL, which the encoding threads then hold on to.
    raw: io.BufferedReader = open_binary(path, what="a traffic file", allow_pipe=True,  # type: ignore[assignment]
                                         buffering=READ_BUFFER)
    try:
        return _decompressed(raw, str(path))
    except BaseException:
        raw.close()
        raise


def _decompressed(raw: Any, shown: str) -> BinaryIO:
    """The stream, decompressed when its first bytes say so, whatever its name."""
    # peek, not read and seek: the traffic may come through a pipe.
    peek = getattr(raw, "peek", None)
    head = peek(6)[:6] if peek is not None else b""
    if head[:2] == GZIP_MAGIC:
        return gzip.GzipFile(fileobj=raw, mode="rb")  # type: ignore[return-value]
    if head[:3] == BZIP2_MAGIC and head[3:4].isdigit():
        import bz2

        return bz2.BZ2File(raw)  # type: ignore[return-value]
    if head == XZ_MAGIC:
        import lzma

        return lzma.LZMAFile(raw)  # type: ignore[return-value]
    if head[:4] == ZSTD_MAGIC:
        raise AdvisorError(f"{shown}: is zstd-compressed; decompress it first (advisor analyze <(zstd -dc FILE))")
    if shown.endswith(".gz"):
        raise AdvisorError(f"{shown}: named .gz but is not gzip data")
    return raw


_NON_BLANK = re.compile(rb"[^ \t\r\n\f\v]")


class _Lines:
    """The non-blank lines of a binary stream as (line number, bytes), read in 1 MiB chunks.

    Runs of blank lines are skipped by a regex search and a count of newlines, in C: a
    gzip of blank lines decompresses to hundreds of MB of them. A line over
    ``MAX_LINE_BYTES`` comes back as ``None`` (its bytes are read and dropped), so memory
    stays bounded. ``lineno`` is the line being read (for a report of a corrupt stream).
    """

    def __init__(self, handle: BinaryIO) -> None:
        self.handle = handle
        self.lineno = 1

    def __iter__(self) -> Iterator[tuple[int, bytes | None]]:
        read = getattr(self.handle, "read1", self.handle.read)
        parts: list[bytes] = []  # the current line, when it spans chunks
        size = 0
        too_long = False
        while True:
            chunk = read(CHUNK)
            if not chunk:
                break
            pos, end = 0, len(chunk)
            if not parts and not too_long and chunk.isspace():
                # A chunk of blank lines only (a gzip of them is a bomb of hundreds of MB):
                # isspace stops at the first other byte and scans ~4x faster than the regex.
                self.lineno += chunk.count(b"\n")
                continue
            while pos < end:
                if not parts and not too_long:
                    m = _NON_BLANK.search(chunk, pos)
                    if m is None:
                        self.lineno += chunk.count(b"\n", pos)
                        break
                    start = m.start()
                    newlines = chunk.count(b"\n", pos, start)
                    if newlines:
                        self.lineno += newlines
                        pos = chunk.rfind(b"\n", pos, start) + 1
                stop = chunk.find(b"\n", pos)
                piece = chunk[pos:] if stop < 0 else chunk[pos:stop + 1]
                pos = end if stop < 0 else stop + 1
                if not too_long:
                    size += len(piece)
                    if size > MAX_LINE_BYTES:
                        too_long, parts = True, []
                    else:
                        parts.append(piece)
                if stop >= 0:
                    yield self.lineno, (None if too_long else b"".join(parts))
                    self.lineno += 1
                    parts, size, too_long = [], 0, False
        if parts or too_long:
            yield self.lineno, (None if too_long else b"".join(parts))


def _lines(handle: BinaryIO) -> Iterator[bytes]:
    """The non-blank lines of ``handle`` (over-long ones left out): format sniffing."""
    for _, raw in _Lines(handle):
        if raw is not None:
            yield raw


def _is_stream_error(exc: OSError) -> bool:
    # bz2 and lzma report corrupt data as OSError / LZMAError without an errno.
    return exc.errno is None


def _decode(raw: bytes) -> Any:
    # orjson validates UTF-8 itself; decoding first would copy every line.
    try:
        if len(raw) >= long_lines.LONG_BYTES:  # memory near the line's length (advisor.ingest.long_lines)
            return long_lines.decode_long(raw, _loads)
        return _loads(raw)
    except long_lines.TooManyValues as exc:
        raise BadRecord(str(exc)) from None
    except _DecodeError as exc:
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as uexc:
            raise BadRecord(f"invalid UTF-8 at byte {uexc.start}") from None
        raise BadRecord(f"invalid JSON ({_short(exc)})") from None


class Records:
    """Traffic given as record values rather than as a file (the Python API's records):
    read as the JSON values of one file named ``source``, record N (from 1) in the place of
    line N, through the same input formats, validation and skips. The values are read
    once, lazily, in order."""

    def __init__(self, items: Iterable[Any], source: str = "<records>") -> None:
        if isinstance(items, (str, bytes, bytearray)) or not isinstance(items, Iterable):
            raise AdvisorError(f"{source}: records are an iterable of dicts, not {type(items).__name__}")
        self.items = items
        self.source = source

    def __str__(self) -> str:
        return self.source

    def __repr__(self) -> str:
        return f"Records({self.source})"


def _requests_of(items: list[tuple[int, Any]], source: str, on_skip: Callable[[Skip], None],
                 block_size: int) -> Iterator[Request]:
    """The requests of a line's (or a record's) items; a bad one is that line's skip."""
    for line, item in items:
        if isinstance(item, BadRecord):
            on_skip(Skip(source, line, str(item)))
        else:
            try:
                yield parse_record(item, source, line, block_size)
            except BadRecord as exc:
                on_skip(Skip(source, line, str(exc)))
            except Exception as exc:  # one record's failure is that line's skip, never the run's end
                on_skip(Skip(source, line, f"cannot read record ({type(exc).__name__}: {_short(exc)})"))


def _items_or_skip(read: Callable[..., list[tuple[int, Any]]], args: tuple[Any, ...], source: str, line: int,
                   on_skip: Callable[[Skip], None]) -> list[tuple[int, Any]] | None:
    """The record items of one line (or one record value), or None after its skip: a bad
    record, or an adapter's failure on it, is that line's skip; an ``AdvisorError`` means the
    input as a whole cannot be read (no format matches it) and ends the run."""
    try:
        return read(*args)
    except BadRecord as exc:
        on_skip(Skip(source, line, str(exc)))
    except AdvisorError:
        raise
    except Exception as exc:
        on_skip(Skip(source, line, f"cannot read record ({type(exc).__name__}: {_short(exc)})"))
    return None


def _iter_records(records: Records, on_skip: Callable[[Skip], None], block_size: int,
                  fmt: "LineFormat") -> Iterator[Request]:
    """The requests of record values: each value goes where a line's decoded JSON goes."""
    source = records.source
    seen_any = False
    for n, value in enumerate(records.items, 1):
        seen_any = True
        items = _items_or_skip(fmt.values, (value, n), source, n, on_skip)
        if items is not None:
            yield from _requests_of(items, source, on_skip, block_size)
    if not seen_any:
        raise AdvisorError(f"{source}: no records given (no requests)")
    yield from _requests_of(fmt.finish(_decode), source, on_skip, block_size)


def iter_file(
    path: Path | str | Records,
    on_skip: Callable[[Skip], None],
    block_size: int = 512,
    line_format: "LineFormat | None" = None,
) -> Iterator[Request]:
    """Stream the requests of one file (``-``: standard input; or ``Records``); bad lines go
    to ``on_skip``.

    ``line_format`` turns each line into record dicts (the input adapters of
    ``advisor.ingest.formats``); without one a line is one JSON record."""
    fmt = line_format if line_format is not None else JsonLines()
    if isinstance(path, Records):
        yield from _iter_records(path, on_skip, block_size, fmt)
        return
    stdin = str(path) == "-"
    path = Path(path)
    if not stdin and not os.path.lexists(path):
        raise AdvisorError(f"{path}: no such file")
    source = "<stdin>" if stdin else str(path)
    seen_any = False
    lineno = 0

    def emit(items: list[tuple[int, Any]]) -> Iterator[Request]:
        return _requests_of(items, source, on_skip, block_size)

    with (_open_stdin() if stdin else _open(path)) as handle:
        lines = _Lines(handle)
        try:
            for lineno, raw in lines:
                if lineno == 1 and raw is not None and raw.startswith(UTF8_BOM):
                    raw = raw[len(UTF8_BOM):]  # an editor's byte-order mark is not part of the JSON
                    if raw.isspace() or not raw:
                        continue
                seen_any = True
                if raw is None:
                    on_skip(Skip(source, lineno, f"line is over {MAX_LINE_BYTES >> 20} MiB (no request is that long)"))
                    continue
                items = _items_or_skip(fmt.records, (raw, lineno, _decode), source, lineno, on_skip)
                if items is not None:
                    yield from emit(items)
        except (EOFError, zlib.error, gzip.BadGzipFile, OSError) as exc:
            if isinstance(exc, OSError) and not _is_stream_error(exc):
                raise AdvisorError(f"{source}: cannot read ({exc.strerror or exc})") from None
            kind = "gzip" if isinstance(handle, gzip.GzipFile) else "compressed"
            on_skip(Skip(source, lines.lineno, f"{kind} stream is corrupt or truncated ({_short(exc)})"))
            seen_any = True
    if not seen_any:
        raise AdvisorError(f"{source}: file is empty (no requests)")
    yield from emit(fmt.finish(_decode))


class LineFormat(Protocol):
    """Where a line becomes records: ``records`` for each non-blank line (``decode``
    parses JSON or raises ``BadRecord``), ``values`` for a value given decoded (``Records``),
    ``finish`` for what is held to the end. Items are ``(line, record dict)`` or
    ``(line, BadRecord)``."""

    def records(self, raw: bytes, line: int, decode: Callable[[bytes], Any]) -> list[tuple[int, Any]]: ...

    def values(self, value: Any, line: int) -> list[tuple[int, Any]]: ...

    def finish(self, decode: Callable[[bytes], Any]) -> list[tuple[int, Any]]: ...


class JsonLines:
    """advisor's own JSON Lines: one record per line."""

    def records(self, raw: bytes, line: int, decode: Callable[[bytes], Any]) -> list[tuple[int, Any]]:
        return [(line, decode(raw))]

    def values(self, value: Any, line: int) -> list[tuple[int, Any]]:
        return [(line, value)]

    def finish(self, decode: Callable[[bytes], Any]) -> list[tuple[int, Any]]:
        return []


def _open_stdin() -> BinaryIO:
    import sys

    check_stdin()
    return _decompressed(sys.stdin.buffer, "<stdin>")


def check_stdin() -> None:
    """Standard input as traffic: a file or a pipe, never a device (``- < /dev/zero``
    would be read for ever) nor a terminal (a read that waits for typing)."""
    import sys

    if sys.stdin is None:  # started with standard input closed (`<&-`)
        raise AdvisorError("<stdin>: is closed; pipe or redirect the traffic in (advisor ... - < traffic.jsonl)")
    try:
        fd = sys.stdin.fileno()
    except (AttributeError, ValueError, OSError):
        return  # no descriptor: an in-memory stream (a test's), which is neither
    try:
        info = os.fstat(fd)
    except OSError as exc:
        raise AdvisorError(f"<stdin>: cannot read ({exc.strerror or exc}); pipe or redirect the traffic in") from None
    if os.isatty(fd):
        raise AdvisorError("<stdin>: is a terminal; pipe or redirect the traffic in (advisor ... - < traffic.jsonl)")
    if not (stat.S_ISREG(info.st_mode) or stat.S_ISFIFO(info.st_mode) or stat.S_ISSOCK(info.st_mode)):
        raise AdvisorError("<stdin>: is not a regular file or a pipe (a device is never read as traffic)")


def iter_requests(
    paths: Iterable[Path | str | Records],
    on_skip: Callable[[Skip], None],
    block_size: int = 512,
) -> Iterator[Request]:
    """Stream the requests of several files in order (file order, then line order)."""
    for path in paths:
        yield from iter_file(path, on_skip, block_size)


def check_paths(paths: Iterable[Path | str | Records]) -> list[Path | Records]:
    """Fail early, before any work, on a path that cannot be read (``Records`` pass as
    they are: they are read where a file is)."""
    out: list[Path | Records] = []
    for p in paths:
        if isinstance(p, Records):
            out.append(p)
            continue
        path = Path(p)
        if str(p) == "-":  # standard input
            if path in out:
                raise AdvisorError("'-' (standard input) is given twice; it can be read once")
            check_stdin()
            out.append(path)
            continue
        try:
            info = path.stat()
        except FileNotFoundError:
            raise AdvisorError(f"{path}: no such file") from None
        except (OSError, ValueError) as exc:
            raise AdvisorError(f"{path}: cannot read ({getattr(exc, 'strerror', None) or exc})") from None
        if stat.S_ISDIR(info.st_mode):
            raise AdvisorError(f"{path}: is a folder, not a traffic file")
        if not (stat.S_ISREG(info.st_mode) or stat.S_ISFIFO(info.st_mode) or stat.S_ISSOCK(info.st_mode)):
            raise AdvisorError(f"{path}: is not a regular file or a pipe (a device is never read as traffic)")
        if stat.S_ISREG(info.st_mode) and info.st_size == 0:  # a pipe has no size until read
            raise AdvisorError(f"{path}: file is empty (no requests)")
        out.append(path)
    if not out:
        raise AdvisorError("no traffic files given")
    return out


def _short(exc: BaseException) -> str:
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return text[:120]
