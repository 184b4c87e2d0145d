"""Load, render and tokenize: requests in, token sequences out, in arrival order.

Rendering happens in this thread; tokenization of a batch runs on a thread pool
(tiktoken releases the GIL) while the next batch is parsed and rendered, so the cores
are busy with encoding and the indexing stage downstream sees requests in file order.
"""

from __future__ import annotations

import collections
import datetime as dt
import os
from array import array
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Protocol

from advisor.console import log
from advisor.ingest.cache_keys import cache_keys, keyed_namespace, mark_media, placeholder_ids
from advisor.ingest.chat import ChatRenderer, clock_for, has_clock
from advisor.errors import AdvisorError
from advisor.ingest.ids import MAX_ID, as_array
from advisor.ingest.memo import MemoEncoder
from advisor.ingest.preprocess import DEFAULT_ENGINE, engine_name
from advisor.ingest.tokenizers import Tokenizer
from advisor.ingest.formats import iter_requests
from advisor.ingest.traffic import Records, Request, Skip

if TYPE_CHECKING:
    from advisor.ingest.prompt_templates import PromptTemplate

TOKEN_NAMESPACE = "tokens"
BATCH = 64
# Batches are also cut by size, and the batches in flight are bounded by size, so memory
# does not follow the length of the records (a few records of millions of ids each):
# sizes in bytes of payload (4 an id, ~1 a character of text).
BATCH_BYTES = 8 << 20
IN_FLIGHT_BYTES = 32 << 20
# The longest text one record may render to (the render worker's cap too): ~1M tokens,
# past the context of the models served; tokenizing more would cost the run hundreds of MB.
MAX_PROMPT_CHARS = 4_000_000
# Warnings said once a run, whichever of its renderers meets the case first (prescribe has
# two: one for the logged requests, one for their rewrites). A process runs one command;
# callers in one process (the API in a notebook) hear each once.
_SAID: set[str] = set()


@dataclass(frozen=True)
class Sequence:
    """One request ready for indexing.

    ``ids`` are token ids, or block hash ids for a ``hash_ids`` record; ``unit`` is the
    tokens one id stands for (1, or the block size) and ``prompt_tokens`` the real length,
    so the partial last block counts only its own tokens.
    """

    request: Request
    namespace: str
    ids: array
    prompt_tokens: int
    unit: int = 1
    # The namespace without the request's cache keys (salt, extra_key, LoRA adapter:
    # advisor.ingest.cache_keys), set only where they made ``namespace`` another one.
    base_namespace: str | None = None

    def tokens_of(self, matched_ids: int) -> int:
        """Tokens covered by the first ``matched_ids`` ids."""
        return min(matched_ids * self.unit, self.prompt_tokens)


class TemplateSource(Protocol):
    """Prompt templates by name (``advisor.ingest.prompt_templates.TemplateSet``, or a wrapper
    that loads one on first use)."""

    def get(self, name: str) -> "PromptTemplate": ...


@dataclass
class Renderer:
    """Turns a request into text (or ids) the way the serving engine would."""

    tokenizer: Tokenizer
    chat: ChatRenderer
    templates: "TemplateSource | None" = None
    # Whether the chat template reads the clock (strftime_now), and in which zone.
    reads_clock: bool = False
    timezone: dt.tzinfo = dt.timezone.utc
    # Said when a chat is first rendered, not before (traffic of prompts or ids never uses the
    # layout): it writes special tokens the tokenizer spells as text (chat.plain_specials_warning).
    chat_warning: str | None = None
    _told_fallback: bool = False

    def note_clock(self, req: Request) -> None:
        """Say once which date a clock-reading template saw for records without a time."""
        if self.reads_clock and not self._told_fallback and not has_clock(req.timestamp):
            self._told_fallback = True
            log(f"advisor: note: the chat template reads the clock (strftime_now); records without a timestamp "
                f"render at {clock_for(None, self.timezone).isoformat()}")

    def note_chat(self) -> None:
        """Say ``chat_warning`` once a run, as a chat is rendered."""
        if self.chat_warning is not None and self.chat_warning not in _SAID:
            _SAID.add(self.chat_warning)
            log(f"advisor: warning: {self.chat_warning}")

    def ids_of(self, req: Request) -> list[int] | None:
        """Token ids straight from the chat renderer, for renderers that encode a chat
        without text (mistral-common, as vLLM's --tokenizer-mode mistral); else None."""
        encode_chat = getattr(self.chat, "encode_chat", None)
        if encode_chat is None or req.kind != "messages":
            return None
        return list(encode_chat(req.messages or (), req.tools, req.timestamp, req.options))

    def text_of(self, req: Request) -> str | None:
        """The text to tokenize, or None for records that carry ids already."""
        if req.kind in ("messages", "template"):
            self.note_clock(req)
        if req.kind == "messages":
            self.note_chat()
            return self.chat.render(req.messages or (), req.tools, req.timestamp, req.options)
        if req.kind == "prompt":
            return self._with_bos(req.prompt or "")
        if req.kind == "template":
            if self.templates is None:
                raise AdvisorError("a 'template' record needs --templates DIR")
            rendered = self.templates.get(req.template or "").render(dict(req.variables or {}))
            if rendered.messages is not None:
                self.note_chat()
                return self.chat.render(rendered.messages, req.tools, req.timestamp, req.options)
            return self._with_bos(rendered.prompt or "")
        return None

    def texts_of(self, reqs: list[Request]) -> list[str | list[int] | None | Exception]:
        """``text_of`` for a batch: what renders out of process (prompt templates, an HF chat
        template) goes in one round trip per stage. A failure is that request's entry."""
        out: list[str | list[int] | None | Exception] = [None] * len(reqs)
        chats: list[int] = []
        chat_items: list[tuple[Any, Any, Any, Any]] = []
        rendered = self._templates_of(reqs)
        for i, req in enumerate(reqs):
            try:
                if req.kind in ("messages", "template"):
                    self.note_clock(req)
                if req.kind == "messages" and getattr(self.chat, "encode_chat", None) is not None:
                    out[i] = self.ids_of(req)  # encoded without text (mistral-common)
                elif req.kind == "messages":
                    chats.append(i)
                    chat_items.append((req.messages or (), req.tools, req.timestamp, req.options))
                elif req.kind == "prompt":
                    out[i] = self._with_bos(req.prompt or "")
                elif req.kind == "template":
                    result = rendered[i]
                    if isinstance(result, Exception):
                        out[i] = result
                    elif result.messages is not None:
                        chats.append(i)
                        chat_items.append((result.messages, req.tools, req.timestamp, req.options))
                    else:
                        out[i] = self._with_bos(result.prompt or "")
            except Exception as exc:  # one record's failure is that record's skip
                out[i] = exc
        if chat_items:
            self.note_chat()
        for i, text in zip(chats, _render_chats(self.chat, chat_items)):
            out[i] = text
        return out

    def _templates_of(self, reqs: list[Request]) -> dict[int, Any]:
        index = [i for i, r in enumerate(reqs) if r.kind == "template"]
        if not index:
            return {}
        if self.templates is None:
            return {i: AdvisorError("a 'template' record needs --templates DIR") for i in index}
        items = [(reqs[i].template or "", dict(reqs[i].variables or {})) for i in index]
        many = getattr(self.templates, "render_many", None)
        if many is not None:
            return dict(zip(index, many(items)))
        out: dict[int, Any] = {}
        for i, (name, variables) in zip(index, items):
            try:
                out[i] = self.templates.get(name).render(variables)
            except Exception as exc:
                out[i] = exc
        return out

    def _with_bos(self, text: str) -> str:
        # Raw prompts get BOS, as the engine's tokenizer adds it, unless already there.
        bos = self.tokenizer.bos_token
        if bos and not text.startswith(bos):
            return bos + text
        return text


def _render_chats(chat: ChatRenderer, items: list[tuple[Any, Any, Any, Any]]) -> list[str | Exception]:
    if not items:
        return []
    many = getattr(chat, "render_many", None)
    if many is not None:
        return list(many(items))
    out: list[str | Exception] = []
    for messages, tools, timestamp, options in items:
        try:
            out.append(chat.render(messages, tools, timestamp, options))
        except Exception as exc:
            out.append(exc)
    return out


def reason_of(exc: BaseException) -> str:
    """The skip reason for a failure inside one record: advisor's own one-line message, or
    the exception's type and first line (a bug in advisor, but still only that line)."""
    if isinstance(exc, AdvisorError):
        return str(exc)
    if isinstance(exc, RecursionError):
        return "record is nested too deeply"
    if isinstance(exc, MemoryError):
        return "record needs more memory than is available"
    text = (str(exc).splitlines() or [""])[0][:200]
    return f"cannot process record ({type(exc).__name__}{': ' + text if text else ''})"


def _largest(ids: "array | None") -> int:
    """The largest id (0 for none): numpy over a long packed run, which ``max`` would walk
    as millions of Python ints (half a second for a few records of 3M ids)."""
    if not ids:
        return 0
    if isinstance(ids, array) and len(ids) > 100_000:
        import numpy as np

        return int(np.frombuffer(ids, dtype=np.dtype(ids.typecode)).max())
    return max(ids)


class CacheKeys:
    """The engine's cache keys beyond the tokens (advisor.ingest.cache_keys), applied as a
    request becomes a ``Sequence``: its namespace, and its multimodal items' ids at their
    placeholders. A request without any costs four attribute reads."""

    def __init__(self, renderer: "Renderer | None" = None) -> None:
        chat = renderer.chat if renderer is not None else None
        self.engine = engine_name(getattr(chat, "engine", DEFAULT_ENGINE) or DEFAULT_ENGINE)
        self.tokenizer = renderer.tokenizer if renderer is not None else None
        self._placeholders: dict[int, str] | None = None

    def placeholders(self) -> dict[int, str]:
        if self._placeholders is None:
            tok = self.tokenizer
            self._placeholders = placeholder_ids(tok.special_tokens, tok.encode) if tok is not None else {}
        return self._placeholders

    def sequence(self, req: Request, namespace: str, ids: array, prompt_tokens: int, unit: int = 1) -> Sequence:
        if req.cache_salt is None and req.extra_key is None and req.lora is None and req.media is None:
            return Sequence(req, namespace, ids, prompt_tokens, unit)
        if req.media is not None and unit == 1:
            ids = mark_media(ids, req.media, self.placeholders())
        keys = cache_keys(self.engine, req.cache_salt, req.extra_key, req.lora)
        if not keys:
            return Sequence(req, namespace, ids, prompt_tokens, unit)
        return Sequence(req, keyed_namespace(namespace, keys), ids, prompt_tokens, unit, base_namespace=namespace)


_NO_KEYS = CacheKeys()


def _id_sequence(req: Request, vocab_size: int, block_size: int, keys: CacheKeys = _NO_KEYS) -> Sequence:
    if req.kind == "hash_ids":
        # Ids are packed as unsigned 32-bit integers; a bigger one cannot be stored as is.
        top = _largest(req.hash_ids)
        if top > MAX_ID:
            raise AdvisorError(f"hash id {top} does not fit in 32 bits")
        ids = as_array(req.hash_ids or ())
        return keys.sequence(req, f"hash:{req.source}", ids, int(req.input_length or 0), req.block_size or block_size)
    top = _largest(req.input_ids)
    if top >= vocab_size:
        raise AdvisorError(f"token id {top} is outside the tokenizer's vocabulary ({vocab_size})")
    ids = as_array(req.input_ids or ())
    return keys.sequence(req, TOKEN_NAMESPACE, ids, len(ids), 1)


def rendered_ids(renderer: Renderer, encoder: MemoEncoder, req: Request, text: str | None = None) -> array | None:
    """The token ids of a request made during a run (a prescription's rewrite of a logged
    one), rendered by the run's renderer (the worker, for templates) unless ``text`` is
    given; under the per-record guard: None when it does not render or tokenize, so the
    caller keeps the record as logged and the run goes on."""
    try:
        if text is None:
            text = renderer.text_of(req)
        check_prompt(text or "")
        ids = encoder.encode(text or "")
        return as_array(ids)
    except Exception:  # one record's failure: that record is left as it was
        return None


def payload_bytes(req: Request) -> int:
    """About the memory a parsed request's payload holds (its ids, its text)."""
    if req.input_ids is not None:
        return 4 * len(req.input_ids)
    if req.hash_ids is not None:
        return 4 * len(req.hash_ids)
    if req.prompt is not None:
        return len(req.prompt)
    size = 0
    for message in req.messages or ():
        content = message.get("content")
        if isinstance(content, str):
            size += len(content)
        elif isinstance(content, list):
            size += sum(len(p.get("text") or "") for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    return size


def check_prompt(text: str) -> None:
    if len(text) > MAX_PROMPT_CHARS:
        raise AdvisorError(f"prompt renders to {len(text):,} characters, over the {MAX_PROMPT_CHARS:,} limit "
                           "(~1M tokens; no model served takes that)")


def sequences(
    paths: Iterable[Path | Records],
    renderer: Renderer,
    on_skip: Callable[[Skip], None],
    block_size: int = 512,
    workers: int | None = None,
    memo: MemoEncoder | None = None,
    input_format: str | None = None,
) -> Iterator[Sequence]:
    """Every request of ``paths`` (files, or ``Records``) as a ``Sequence``, in arrival (file) order.

    A request that cannot be rendered or tokenized is skipped through ``on_skip``. Traffic
    of which nothing is usable is an error, not an empty report that exits 0.
    """
    paths = list(paths)
    skipped = 0

    def skip(item: Skip) -> None:
        nonlocal skipped
        skipped += 1
        on_skip(item)

    count = 0
    for seq in _sequences(paths, renderer, skip, block_size, workers, memo, input_format):
        count += 1
        yield seq
    if not count:
        shown = ", ".join("<stdin>" if str(p) == "-" else str(p) for p in paths[:3])
        more = f" and {len(paths) - 3} more" if len(paths) > 3 else ""
        raise AdvisorError(f"{shown}{more}: no usable requests ({skipped:,} record{'s' if skipped != 1 else ''} "
                           "skipped, for the reasons above)")


def _sequences(
    paths: list[Path | Records],
    renderer: Renderer,
    on_skip: Callable[[Skip], None],
    block_size: int,
    workers: int | None,
    memo: MemoEncoder | None,
    input_format: str | None,
) -> Iterator[Sequence]:
    workers = workers or min(4, os.cpu_count() or 1)
    tokenizer = renderer.tokenizer
    keys = CacheKeys(renderer)
    requests = iter_requests(paths, on_skip, block_size, input_format)
    encoder = memo or MemoEncoder(tokenizer)
    # (items, their encoding, their size): the batches handed to the encoding threads.
    Pending = tuple[list["Sequence | Request"], "Future[list[array | Exception]] | None", int]
    pending: collections.deque[Pending] = collections.deque()

    def encode_one(text: str) -> array | Exception:
        try:
            return encoder.encode(text)
        except Exception as exc:  # e.g. text the tokenizer cannot take: that record's skip
            return exc
        except BaseException as exc:  # a native tokenizer's panic (pyo3: BaseException)
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            return RuntimeError(f"the tokenizer failed on this prompt ({type(exc).__name__})")

    def encode_chunk(texts: list[str]) -> list[array | Exception]:
        return [encode_one(t) for t in texts]

    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="advisor-tok") as pool:
        batch: list[Sequence | Request] = []
        texts: list[str] = []
        size = 0
        in_flight = 0

        def flush() -> None:
            nonlocal batch, texts, size, in_flight
            if not batch:
                return
            future = pool.submit(encode_chunk, texts) if texts else None
            pending.append((batch, future, size))
            in_flight += size
            batch, texts, size = [], [], 0

        def drain(keep: int) -> Iterator[Sequence]:
            nonlocal in_flight
            # A few batches stay in flight (the threads stay busy), never more than
            # IN_FLIGHT_BYTES of them (memory stays bounded whatever the record sizes).
            while pending and (len(pending) > keep or in_flight > IN_FLIGHT_BYTES):
                items, future, weight = pending.popleft()
                in_flight -= weight
                encoded = iter(future.result()) if future is not None else iter(())
                for item in items:
                    if isinstance(item, Sequence):
                        yield item
                    else:
                        ids = next(encoded)
                        if isinstance(ids, Exception):
                            on_skip(Skip(item.source, item.line, reason_of(ids)))
                            continue
                        if not ids:
                            on_skip(Skip(item.source, item.line, "renders to no tokens"))
                            continue
                        try:
                            seq = keys.sequence(item, TOKEN_NAMESPACE, ids, len(ids), 1)
                        except Exception as exc:  # a key the engine refuses: that record's skip
                            on_skip(Skip(item.source, item.line, reason_of(exc)))
                            continue
                        yield seq

        def render(reqs: list[Request]) -> None:
            nonlocal size
            # Every record under one guard: whatever fails in it is its own skipped line.
            for req, text in zip(reqs, renderer.texts_of(reqs)):
                try:
                    if isinstance(text, Exception):
                        raise text
                    if isinstance(text, list):  # ids straight from the chat renderer
                        if not text:
                            raise AdvisorError("renders to no tokens")
                        batch.append(keys.sequence(req, TOKEN_NAMESPACE, as_array(text), len(text), 1))
                        size += 4 * len(text)
                    elif text is None:
                        seq = _id_sequence(req, tokenizer.vocab_size, block_size, keys)
                        batch.append(seq)
                        size += 4 * len(seq.ids)
                    else:
                        check_prompt(text)
                        batch.append(req)
                        texts.append(text)
                        size += len(text) + payload_bytes(req)
                except Exception as exc:
                    on_skip(Skip(req.source, req.line, reason_of(exc)))

        waiting: list[Request] = []
        waiting_size = 0
        for req in requests:
            waiting.append(req)
            waiting_size += payload_bytes(req)
            if len(waiting) >= BATCH or waiting_size >= BATCH_BYTES:
                render(waiting)
                waiting, waiting_size = [], 0
                flush()
                yield from drain(keep=workers * 2)
        render(waiting)
        flush()
        yield from drain(keep=0)
