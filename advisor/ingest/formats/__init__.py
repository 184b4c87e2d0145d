"""Input adapters: the logs and traces teams already have, read as advisor records.

One small module per format; this module holds the registry and ``FileFormat``, the
per-file detector that ``advisor.ingest.traffic.iter_file`` calls where a line becomes
records. The format is decided per file by the first record that some adapter
recognises (``--input-format NAME`` forces one); later lines of another shape are
skipped with a reason naming both formats. A file whose first records match no format
is an error naming the formats tried.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from advisor.errors import AdvisorError
from advisor.ingest.formats.base import Adapter
from advisor.ingest.formats.block_traces import AGENTIC, BAILIAN, SERVEGEN
from advisor.ingest.formats.langfuse import LANGFUSE
from advisor.ingest.formats.litellm import LITELLM_PAYLOAD, LITELLM_SPEND
from advisor.ingest.formats.native import NATIVE
from advisor.ingest.formats.openai_batch import BATCH_INPUT, BATCH_OUTPUT, OBSERVE
from advisor.ingest.formats.openai_log import OPENAI_LOG
from advisor.ingest.formats.otel import OTEL
from advisor.ingest.formats.sglang_log import SGLANG_LOG
from advisor.ingest.formats.vllm_log import VLLM_LOG
from advisor.ingest import traffic
from advisor.ingest.long_lines import JsonDocument, Part
from advisor.ingest.traffic import BadRecord, Records, Request, Skip, iter_file

# Most specific shapes first: LiteLLM payloads also have "messages", agentic Mooncake
# and Bailian rows also have "hash_ids"; advisor's own kinds are the fallback.
JSON_ADAPTERS: tuple[Adapter, ...] = (
    BATCH_INPUT, BATCH_OUTPUT, OTEL, LITELLM_SPEND, LITELLM_PAYLOAD, LANGFUSE, OPENAI_LOG,
    BAILIAN, SERVEGEN, AGENTIC, NATIVE,
)
TEXT_ADAPTERS: tuple[Adapter, ...] = (VLLM_LOG, SGLANG_LOG)
ADAPTERS = {a.name: a for a in JSON_ADAPTERS + TEXT_ADAPTERS}
NAMES = tuple(ADAPTERS)

# JSON-looking lines that match no format before the file is given up on.
DETECT_LINES = 16
# Text lines kept while the format is undecided (log noise before the first request).
PENDING_LIMIT = 1000

Item = tuple[int, Any]  # (line, record dict or BadRecord)


def check_format(name: str | None) -> str | None:
    if name is None or name == "auto":
        return None
    if name not in ADAPTERS:
        raise AdvisorError(f"unknown --input-format '{name}': use auto or one of {', '.join(NAMES)}")
    return name


class FileFormat:
    """The format of one file, decided from its first records, and the line hook."""

    def __init__(self, source: str, forced: str | None = None,
                 observed: dict[str, dict[str, Any]] | None = None) -> None:
        self.source = source
        # Counts reported on lines of their own (Batch output, SGLang Finish), by request id.
        self.observed = observed if observed is not None else {}
        self.forced = forced
        self.adapter: Adapter | None = ADAPTERS[forced] if forced else None
        self.convert: Callable[[Any], list[Any]] | None = self.adapter.converter() if self.adapter else None
        self.unmatched = 0
        self.pending: list[Item] = []  # undecided non-JSON lines: noise of a log, or bad JSON
        # A file that is one JSON document (an array, a pretty-printed object): read a value
        # at a time, each element of a top-level array on its own (advisor.ingest.long_lines).
        self.document: JsonDocument | None = None
        self.seen = 0
        self.lines = 0  # non-blank lines read
        self.observations = 0  # records that only observed counts (Batch output, SGLang Finish)
        self.values_read = 0  # values of a document decoded

    @property
    def name(self) -> str | None:
        return self.adapter.name if self.adapter else None

    def records(self, raw: bytes, line: int, decode: Callable[[bytes], Any]) -> list[Item]:
        """The records of one non-blank line (``decode`` parses JSON or raises
        ``BadRecord`` with the loader's reasons); observations are kept aside."""
        self.lines += 1
        if self.document is not None:
            # A document's line, most often inside a record: straight to its reader.
            parts = self.document.feed(raw, line)
            return self._route(self._parts(parts, decode)) if parts or self.document.too_long else []
        if self.adapter is NATIVE:
            # advisor's own records, the common case: one dict per line, no adapter work.
            value = decode(raw)
            if type(value) is dict and NATIVE.matches(value) and not isinstance(value.get("timestamp"), str):
                return [(line, value)]
            return self._values(_page_data(value), line)
        return self._route(self._records(raw, line, decode))

    def values(self, value: Any, line: int) -> list[Item]:
        """The records of one value given decoded (``traffic.Records``: the Python API's
        records), as a JSON line's value is read: detected, converted, observations kept
        aside."""
        adapter = self.adapter
        if adapter is not None and adapter.text:
            raise AdvisorError(f"{self.source}: {adapter.name} reads log lines; records are JSON values "
                               "(give the log file instead)")
        self.lines += 1
        self.seen += 1
        out = self._values(_page_data(value), line)
        if adapter is None and self.adapter is not None and self.pending:
            # Decided now: the records held back were bad records of this format.
            out, self.pending = self.pending + out, []
        return self._route(out)

    def _route(self, items: list[Item]) -> list[Item]:
        out = []
        for line, item in items:
            if isinstance(item, dict) and OBSERVE in item:
                self.observations += 1
                got = self.observed.setdefault(str(item[OBSERVE]), {})
                got.update({k: v for k, v in item.items() if k != OBSERVE and v is not None})
            else:
                out.append((line, item))
        return out

    def _records(self, raw: bytes, line: int, decode: Callable[[bytes], Any]) -> list[Item]:
        self.seen += 1
        if self.document is not None:
            return self._parts(self.document.feed(raw, line), decode)
        adapter = self.adapter
        if adapter is not None and adapter.text:
            return self._convert(adapter, _text(raw), line)
        head = raw.lstrip()[:1]
        if adapter is None:
            # Log lines can start with "[" too (SGLang's "[2025-... ] Receive: ...").
            text = raw.decode("utf-8", "replace")
            if head not in (b"{", b"[") or any(a.matches(text) for a in TEXT_ADAPTERS):
                return self._undecided_text(raw, line)
        try:
            value = decode(raw)
        except BadRecord as exc:
            if adapter is None and self.seen == 1 and head in (b"{", b"["):
                # Not a JSON line: maybe the first line of one pretty-printed document.
                # Each value of it may be as long as a line (read when it starts: tests lower it).
                self.document = JsonDocument(traffic.MAX_LINE_BYTES)
                return self._parts(self.document.feed(raw, line), decode)
            if adapter is None:
                return self._hold(line, exc)
            return [(line, exc)]
        # A page on one line (`curl .../observations > page.json` writes no newline in it) is
        # read as the same page pretty-printed is (``_parts``), within the caps of a line.
        out = self._values(_page_data(value), line)
        if adapter is None and self.adapter is not None and self.pending:
            # Decided now: the lines held back were bad lines of this JSON Lines file.
            out, self.pending = self.pending + out, []
        return out

    def _parts(self, parts: list[Part], decode: Callable[[bytes], Any]) -> list[Item]:
        """The records of a document's values, each decoded on its own: the caps of one
        line hold for each (its size, its ids, its values)."""
        out: list[Item] = []
        undecided = self.adapter is None
        if self.document is not None and self.document.too_long is not None:
            parts = [Part(self.document.too_long, None, None)]  # refused as it passes the limit, not at the end
        for part in parts:
            label = f"item {part.index}: " if part.index is not None else ""
            # A top-level value that cannot be read, before any other was: the file as a whole.
            whole = part.index is None and not self.values_read
            limit = f"{self.document.limit >> 20 if self.document else 0} MiB"
            if part.data is None and part.index is None:
                raise AdvisorError(f"{self.source}: line {part.line} is no JSON record, and the JSON document from "
                                   f"there is over {limit}; write it as JSON Lines (a record a line)")
            if part.data is None:
                out += self._bad(part.line, BadRecord(f"{label}record is over {limit} (no request is that long)"))
                continue
            if part.cut:
                reason = BadRecord(f"{label}the JSON document ends inside this record (a truncated file?)")
                if whole:
                    raise AdvisorError(f"{self.source}: neither JSON Lines nor one JSON document (the value from "
                                       f"line {part.line} never ends)")
                out += self._bad(part.line, reason)
                continue
            try:
                value = decode(part.data)
            except BadRecord as exc:
                if whole:
                    raise AdvisorError(f"{self.source}: neither JSON Lines nor one JSON document ({exc})") from None
                out += self._bad(part.line, BadRecord(label + str(exc)))
                continue
            self.values_read += 1
            if part.index is None:
                value = _page_data(value)
            out += self._values(value, part.line, label)
        if undecided and self.adapter is not None and self.pending:
            # Decided now: the values held back were bad records of this document.
            out, self.pending = self.pending + out, []
        return out

    def _bad(self, line: int, exc: BadRecord) -> list[Item]:
        return [(line, exc)] if self.adapter is not None else self._hold(line, exc)

    def _hold(self, line: int, exc: BadRecord) -> list[Item]:
        """Undecided: keep a bad line's reason until the file's format is known (its
        lines are then reported; a file that never matches is one error instead)."""
        if len(self.pending) < PENDING_LIMIT:
            self.pending.append((line, exc))
        self._count_unmatched()
        return []

    def _values(self, value: Any, line: int, label: str = "") -> list[Item]:
        # A JSON array of records (a whole-file export, or one line of several).
        many = isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)
        values = value if many else [value]
        out: list[Item] = []
        for i, item in enumerate(values):
            tag = f"item {i + 1}: " if many and len(values) > 1 else label
            adapter = self.adapter or self._detect(item)
            if adapter is None:
                self._hold(line, BadRecord(f"{tag}matches no known input format"))
                continue
            for ln, got in self._convert(adapter, item, line):
                if isinstance(got, BadRecord) and tag:
                    got = BadRecord(tag + str(got))
                out.append((ln, got))
        return out

    def _detect(self, value: Any) -> Adapter | None:
        for adapter in JSON_ADAPTERS:
            if adapter.matches(value):
                self._decide(adapter)
                return adapter
        return None

    def _decide(self, adapter: Adapter) -> None:
        self.adapter = adapter
        self.convert = adapter.converter()

    def _convert(self, adapter: Adapter, value: Any, line: int) -> list[Item]:
        if adapter.text and not adapter.matches(value):
            other = next((a.name for a in TEXT_ADAPTERS if a is not adapter and a.matches(value)), None)
            if other is not None:
                return [(line, BadRecord(f"{_a(other)} line in a file read as {adapter.name}"))]
        if not adapter.matches(value) and not adapter.text:
            other = next((a.name for a in JSON_ADAPTERS if a.matches(value)), None)
            if other is not None:
                return [(line, BadRecord(f"{_a(other)} record in a file read as {adapter.name}"))]
            if adapter is not NATIVE:  # parse_record names advisor's own kinds itself
                return [(line, BadRecord(f"not {_a(adapter.name)} record (unknown shape)"))]
        assert self.convert is not None
        try:
            got = self.convert(value)
        except BadRecord as exc:
            return [(line, exc)]
        except (TypeError, AttributeError, KeyError, IndexError, ValueError, RecursionError) as exc:
            # A value of an unexpected type deep inside a record: one bad line, not a crash.
            return [(line, BadRecord(f"malformed {adapter.name} record ({type(exc).__name__}: {str(exc)[:80]})"))]
        return [(line, g) for g in got]

    def _undecided_text(self, raw: bytes, line: int) -> list[Item]:
        text = _text(raw)
        for adapter in TEXT_ADAPTERS:
            if adapter.matches(text):
                self._decide(adapter)
                self.pending.clear()  # the lines before were log noise
                return self._convert(adapter, text, line)
        if len(self.pending) < PENDING_LIMIT:
            self.pending.append((line, BadRecord("not JSON and not a request line of a known log format")))
        return []

    def _count_unmatched(self) -> None:
        self.unmatched += 1
        if self.adapter is None and self.unmatched >= DETECT_LINES:
            raise AdvisorError(self._none_matched(f"the first {DETECT_LINES} records"))

    def _none_matched(self, what: str) -> str:
        return f"{self.source}: {what} match no known input format (tried: {', '.join(NAMES)})"

    def finish(self, decode: Callable[[bytes], Any]) -> list[Item]:
        """Records held back to the end: a whole-file JSON document; and the verdict on
        a file whose format was never decided."""
        return self._route(self._finish(decode))

    def _finish(self, decode: Callable[[bytes], Any]) -> list[Item]:
        out: list[Item] = []
        if self.document is not None:
            out = self._parts(self.document.close(), decode)
        if self.adapter is None and self.seen:
            raise AdvisorError(self._none_matched("its first records"))
        if self.adapter is not None and not self.adapter.text and self.pending:
            out = self.pending + out  # a JSON Lines file after all: those lines were bad
        self.pending = []
        return out


def sniff(path: Path | Records) -> str | None:
    """The format of a file from its first lines (None: not decided there), so that
    the loader can read observation-only files first."""
    from advisor.ingest.traffic import _decode, _lines, _open

    if isinstance(path, Records) or not path.is_file():
        return None  # a pipe (or records) is read once: its format is decided as it streams
    fmt = FileFormat(str(path))
    try:
        with _open(path) as handle:
            for n, raw in enumerate(_lines(handle)):
                if n >= 4 * DETECT_LINES or fmt.document is not None:
                    break
                if raw.isspace() or not raw:
                    continue
                try:
                    fmt._records(raw, n + 1, _decode)
                except BadRecord:
                    pass
                if fmt.adapter is not None:
                    return fmt.adapter.name
    except (AdvisorError, OSError, EOFError, ValueError):
        return None  # the real read reports it
    return fmt.name


def iter_requests(paths: Iterable[Path | str | Records], on_skip: Callable[[Skip], None], block_size: int = 512,
                  input_format: str | None = None) -> Iterator[Request]:
    """The requests of ``paths`` in order, each file read through its input format, with
    observed counts from other lines joined by request id (``join``)."""
    from advisor.ingest.formats.join import joined

    formats: list[FileFormat] = []
    skipped = 0

    def skip(item: Skip) -> None:
        nonlocal skipped
        skipped += 1
        on_skip(item)

    def read(p: Path | Records, observed: dict[str, dict[str, Any]], fmt: str | None) -> Iterator[Request]:
        source = "<stdin>" if str(p) == "-" else str(p)
        formats.append(FileFormat(source, fmt, observed))
        return iter_file(p, skip, block_size, formats[-1])

    count = 0
    for req in joined((p if isinstance(p, Records) else Path(p) for p in paths), read, sniff, input_format):
        count += 1
        yield req
    if not count and not skipped:
        # Nothing was wrong, and nothing was a request: say why, never an empty report.
        raise AdvisorError("; ".join(_why_no_requests(f) for f in formats))


def _why_no_requests(fmt: FileFormat) -> str:
    if fmt.observations:
        what = {"openai-batch-output": "an OpenAI Batch output file holds no prompts: give its batch input file too",
                "sglang-log": "Finish lines without their Receive lines"}.get(fmt.name or "", fmt.name or "")
        return f"{fmt.source}: no requests, only observed counts ({what})"
    forced = f" (--input-format {fmt.forced}; auto detects the format)" if fmt.forced else ""
    lines = f"{fmt.lines:,} line{'s' if fmt.lines != 1 else ''}"
    return f"{fmt.source}: no requests in its {lines} read as {fmt.name}{forced}"


def _page_data(value: Any) -> Any:
    """An API page's records (``{"data": [...], "meta": {...}}``, Langfuse's
    /api/public/observations) in place of the page; any other value as it is. The one rule
    for a page on one line and a page pretty-printed over many, so both read the same."""
    if isinstance(value, dict) and isinstance(value.get("data"), list) \
            and not any(a.matches(value) for a in JSON_ADAPTERS):
        return value["data"]
    return value


def _a(name: str) -> str:
    """A format's name with its article: an advisor record, an otel record, a langfuse record."""
    return f"{'an' if name[:1] in 'aeiou' else 'a'} {name}"


def _text(raw: bytes) -> str:
    try:
        return raw.decode("utf-8").rstrip("\r\n")
    except UnicodeDecodeError as exc:
        raise BadRecord(f"invalid UTF-8 at byte {exc.start}") from None


__all__ = ["ADAPTERS", "NAMES", "OBSERVE", "FileFormat", "check_format", "iter_requests", "sniff"]
