"""Load, render and tokenize: requests in, token sequences out, in arrival order.

Rendering happens in this thread; tokenization of a batch runs on a thread pool
(tiktoken releases the GIL) while the next batch is parsed and rendered, so the cores
are busy with encoding and the indexing stage downstream sees requests in file order.
"""

from __future__ import annotations

import collections
import os
from array import array
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Protocol

from advisor.ingest.chat import ChatRenderer
from advisor.errors import AdvisorError
from advisor.ingest.memo import MemoEncoder
from advisor.ingest.tokenizers import Tokenizer
from advisor.ingest.formats import iter_requests
from advisor.ingest.traffic import Request, Skip

if TYPE_CHECKING:
    from advisor.ingest.prompt_templates import PromptTemplate

TOKEN_NAMESPACE = "tokens"
BATCH = 64
MAX_ID = 2**32 - 1


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

    def text_of(self, req: Request) -> str | None:
        """The text to tokenize, or None for records that carry ids already."""
        if req.kind == "messages":
            return self.chat.render(req.messages or (), req.tools, req.timestamp, req.options)
        if req.kind == "prompt":
            return self._with_bos(req.prompt or "")
        if req.kind == "template":
            if self.templates is None:
                raise AdvisorError("a 'template' record needs --templates DIR")
            rendered = self.templates.get(req.template or "").render(dict(req.variables or {}))
            if rendered.messages is not None:
                return self.chat.render(rendered.messages, req.tools, req.timestamp, req.options)
            return self._with_bos(rendered.prompt or "")
        return None

    def _with_bos(self, text: str) -> str:
        # Raw prompts get BOS, as the engine's tokenizer adds it, unless already there.
        bos = self.tokenizer.bos_token
        if bos and not text.startswith(bos):
            return bos + text
        return text


def _id_sequence(req: Request, vocab_size: int, block_size: int) -> Sequence:
    if req.kind == "hash_ids":
        # Ids are packed as unsigned 32-bit integers; a bigger one cannot be stored as is.
        top = max(req.hash_ids or (0,))
        if top > MAX_ID:
            raise AdvisorError(f"hash id {top} does not fit in 32 bits")
        ids = array("I", req.hash_ids or ())
        return Sequence(req, f"hash:{req.source}", ids, int(req.input_length or 0), req.block_size or block_size)
    top = max(req.input_ids or (0,))
    if top >= vocab_size:
        raise AdvisorError(f"token id {top} is outside the tokenizer's vocabulary ({vocab_size})")
    ids = array("I", req.input_ids or ())
    return Sequence(req, TOKEN_NAMESPACE, ids, len(ids), 1)


def sequences(
    paths: Iterable[Path],
    renderer: Renderer,
    on_skip: Callable[[Skip], None],
    block_size: int = 512,
    workers: int | None = None,
    memo: MemoEncoder | None = None,
    input_format: str | None = None,
) -> Iterator[Sequence]:
    """Every request of ``paths`` as a ``Sequence``, in arrival (file) order.

    A request that cannot be rendered or tokenized is skipped through ``on_skip``.
    """
    workers = workers or min(4, os.cpu_count() or 1)
    tokenizer = renderer.tokenizer
    requests = iter_requests(paths, on_skip, block_size, input_format)
    encoder = memo or MemoEncoder(tokenizer)
    pending: collections.deque[tuple[list[Sequence | Request], Future[list[array]] | None]] = collections.deque()

    def encode_chunk(texts: list[str]) -> list[array]:
        return [encoder.encode(t) for t in texts]

    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="advisor-tok") as pool:
        batch: list[Sequence | Request] = []
        texts: list[str] = []

        def flush() -> None:
            nonlocal batch, texts
            if not batch:
                return
            future = pool.submit(encode_chunk, texts) if texts else None
            pending.append((batch, future))
            batch, texts = [], []

        def drain(keep: int) -> Iterator[Sequence]:
            while len(pending) > keep:
                items, future = pending.popleft()
                encoded = iter(future.result()) if future is not None else iter(())
                for item in items:
                    if isinstance(item, Sequence):
                        yield item
                    else:
                        ids = next(encoded)
                        if not ids:
                            on_skip(Skip(item.source, item.line, "renders to no tokens"))
                            continue
                        yield Sequence(item, TOKEN_NAMESPACE, ids, len(ids), 1)

        for req in requests:
            try:
                text = renderer.text_of(req)
                if text is None:
                    batch.append(_id_sequence(req, tokenizer.vocab_size, block_size))
                else:
                    batch.append(req)
                    texts.append(text)
            except AdvisorError as exc:
                on_skip(Skip(req.source, req.line, str(exc)))
                continue
            if len(batch) >= BATCH:
                flush()
                # Keep a few batches in flight: the pool stays busy, memory stays bounded.
                yield from drain(keep=workers * 2)
        flush()
        yield from drain(keep=0)
