"""From traffic paths and rendering options to token sequences, and the log of skipped lines.

What every traffic command and the advisory share to read traffic; the commands only add
their options around it.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence as SequenceOf
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Iterator

from advisor.console import log
from advisor.errors import AdvisorError
from advisor.ingest.chat import LLAMA3_SPECIALS, LLAMA3_TOKENIZER, ChatRenderer, Llama3Layout, parse_timezone, \
    plain_specials_warning
from advisor.ingest.memo import MemoEncoder
from advisor.ingest.pipeline import Renderer, Sequence, sequences
from advisor.ingest.preprocess import DEFAULT_ENGINE, check_engine, engine_name
from advisor.ingest.tokenizers import load_tokenizer
from advisor.ingest.traffic import Records, Request, Skip, check_paths

if TYPE_CHECKING:
    from advisor.ingest.prompt_templates import PromptTemplate, Rendered
    from advisor.ingest.render_worker import RemoteTemplates

SHOWN_SKIPS = 20
MODEL_DIR_HELP = ("A HuggingFace model folder: tokenizer.json, tokenizer_config.json (special tokens), "
                  "chat_template.jinja / .json, config.json; sets tokenizer, chat template and special tokens.")
TIMEZONE_HELP = ("The server's time zone for templates that read the clock (strftime_now), at each "
                 "request's timestamp; UTC by default.")


@dataclass
class SkipLog:
    """Counts skipped lines; prints the first few as ``file:line: reason`` on stderr."""

    shown: int = SHOWN_SKIPS
    count: int = 0
    items: list[Skip] = field(default_factory=list)
    quiet: bool = False

    def __call__(self, skip: Skip) -> None:
        self.count += 1
        if len(self.items) < 1000:
            self.items.append(skip)
        if not self.quiet and self.count <= self.shown:
            log(str(skip))

    def summary(self) -> None:
        if not self.quiet and self.count > self.shown:
            log(f"... and {self.count - self.shown} more skipped lines")
        if self.count:
            log(f"advisor: skipped {self.count} bad line(s)")


def resolve_tokenizer(tokenizer: str, model_dir: Path | None) -> str:
    """The tokenizer to use: a model folder's ``tokenizer.json`` unless ``--tokenizer``
    names another than the default."""
    if model_dir is None or tokenizer != "llama3":
        return tokenizer
    from advisor.ingest.model_dir import load_model_dir

    found = load_model_dir(model_dir).tokenizer_spec
    return found if found is not None else tokenizer


def tokenizer_warning(tokenizer: str, model: str | None) -> None:
    """Warn when the default Llama 3 tokenizer stands in for another model's: every token
    count would be Llama 3's."""
    if tokenizer != "llama3" or not model:
        return
    family = model
    path = Path(model)
    if path.name.endswith(".json") and path.is_file():
        from advisor.ingest import safe_open

        # Capped, and confined when it is a model folder's: the cost model reads it next the same way.
        try:
            config = safe_open.read_json(path, max_bytes=safe_open.MAX_CONFIG_BYTES, what="config.json")
        except AdvisorError:
            return  # the cost model reports it
        family = str(config.get("model_type", "")) if isinstance(config, dict) else ""
    if "llama" not in family.lower():
        log(f"advisor: warning: token counts use the Llama 3 tokenizer, but the model is '{model}'; pass its "
            "tokenizer.json with --tokenizer, or its folder with --model-dir")


def _sibling_specials(tokenizer: str) -> dict[str, str] | None:
    """A tokenizer.json's special tokens from the tokenizer_config.json beside it (a model
    folder passed file by file), rather than defaults."""
    path = Path(tokenizer)
    if path.name != "tokenizer.json" or not os.path.lexists(path.with_name("tokenizer_config.json")):
        return None
    from advisor.ingest.chat_template import special_tokens_of
    from advisor.ingest.model_dir import find_file, read_tokenizer_config

    # Found beside the tokenizer, not named: a model folder's file, confined like --model-dir's.
    config = find_file(path.parent, "tokenizer_config.json")
    return special_tokens_of(read_tokenizer_config(config), config) if config is not None else None


def make_renderer(tokenizer: str, chat_template: Path | None, templates: Path | None,
                  traffic: SequenceOf[Path | Records], engine: str = DEFAULT_ENGINE, model_dir: Path | None = None,
                  timezone: str = "UTC") -> Renderer:
    check_engine(engine)
    zone = parse_timezone(timezone)
    specials: dict[str, str] | None = None
    if model_dir is not None:
        from advisor.ingest.model_dir import load_model_dir

        folder = load_model_dir(model_dir)
        tokenizer = resolve_tokenizer(tokenizer, model_dir)
        specials = folder.specials
        if chat_template is None:
            chat_template = folder.chat_template
    if specials is None:
        specials = _sibling_specials(tokenizer)
    tok = load_tokenizer(tokenizer)
    chat: ChatRenderer = Llama3Layout(engine=engine, timezone=zone)
    reads_clock = False
    # Llama 3.1's layout under another tokenizer (cl100k, Qwen): its markers would count as text.
    chat_warning = plain_specials_warning(
        "the built-in Llama 3.1 chat layout", LLAMA3_SPECIALS, tok, tokenizer,
        f"use the tokenizer it is written for (--tokenizer {LLAMA3_TOKENIZER}), or the model's chat template "
        "(--chat-template or --model-dir)")
    from advisor.ingest.family_tokenizers import MISTRAL_FILES

    if tokenizer in MISTRAL_FILES and not chat_template:
        if engine_name(engine) != "vllm":
            raise AdvisorError("a Mistral chat under SGLang renders the model's HF chat template: pass it with "
                               "--chat-template or --model-dir (--engine vllm renders through mistral-common, "
                               "as vLLM's --tokenizer-mode mistral)")
        from advisor.ingest.mistral_chat import MistralChat

        chat = MistralChat(tokenizer, engine=engine, timezone=zone)
        chat_warning = None  # mistral-common encodes with the model's own tokenizer
    if chat_template:
        from advisor.ingest import safe_open
        from advisor.ingest.chat_template import mismatch_warning, read_chat_template
        from advisor.ingest.render_worker import RemoteChat, RenderClient, WorkerConfig

        text, tokens = read_chat_template(chat_template, tok.bos_token, tok.eos_token, specials)
        reads_clock = "strftime_now" in text
        warning = mismatch_warning(str(chat_template), text, tok, model_dir is not None)
        if warning:
            log(f"advisor: warning: {warning}")
        # The tokens it renders through variables (bos_token from the tokenizer config): the
        # ones written out in its text are mismatch_warning's.
        through = [value for name, value in sorted(tokens.items()) if name in text and value not in text]
        chat_warning = plain_specials_warning(
            f"chat template {chat_template}", through, tok, tokenizer,
            "pass the model's tokenizer.json with --tokenizer, or its folder with --model-dir")
        # Compiled and rendered in the worker process, under CPU-time and memory limits.
        config = WorkerConfig(chat=(str(chat_template), tok.bos_token, tok.eos_token, engine),
                              specials=tuple(sorted(specials.items())) if specials is not None else None,
                              timezone=timezone, confined=safe_open.confined_files())
        chat = RemoteChat(RenderClient(config), str(chat_template), engine)
    if templates is not None:
        if not templates.is_dir():
            raise AdvisorError(f"{templates}: templates folder not found")
        dirs = [templates]
    else:
        # `template` records name templates that usually sit next to the traffic folder
        # (records given as values have no folder: their templates come with --templates).
        dirs = []
        for p in traffic:
            if isinstance(p, Records):
                continue
            for d in (p.parent, p.parent.parent):
                if d not in dirs:
                    dirs.append(d)
    return Renderer(tokenizer=tok, chat=chat, templates=TemplatesOnFirstUse(dirs), reads_clock=reads_clock,
                    timezone=zone, chat_warning=chat_warning)


class TemplatesOnFirstUse:
    """The prompt templates of ``folders``, rendered by the worker process (CPU-time and
    memory limits) started when a ``template`` record first asks: traffic without such
    records never starts it, nor imports Jinja2 and YAML."""

    def __init__(self, folders: list[Path]) -> None:
        self.folders = folders
        self._set: "RemoteTemplates | None" = None

    def _remote(self) -> "RemoteTemplates":
        if self._set is None:
            from advisor.ingest.render_worker import RemoteTemplates, RenderClient, WorkerConfig

            self._set = RemoteTemplates(RenderClient(WorkerConfig(folders=tuple(str(f) for f in self.folders))))
        return self._set

    def get(self, name: str) -> "PromptTemplate":
        return self._remote().get(name)  # type: ignore[return-value]

    def render_many(self, items: "list[tuple[str, dict[str, Any]]]") -> "list[Rendered | AdvisorError]":
        return self._remote().render_many(items)


def open_traffic(paths: SequenceOf[Path | Records], tokenizer: str, chat_template: Path | None, templates: Path | None,
                 block_size: int, skips: SkipLog, memo: MemoEncoder | None = None,
                 input_format: str | None = None, engine: str = DEFAULT_ENGINE, model_dir: Path | None = None,
                 timezone: str = "UTC") -> Iterator[Sequence]:
    """``paths``: files, or ``Records`` (values read as a file's records). ``input_format``:
    an adapter name of ``advisor.ingest.formats`` (None or ``auto``: detected per file)."""
    if block_size < 1:
        raise AdvisorError("--block-size must be at least 1")
    from advisor.ingest.formats import check_format as check_input_format

    forced = check_input_format(input_format)
    files = check_paths(paths)
    renderer = make_renderer(tokenizer, chat_template, templates, files, engine=engine, model_dir=model_dir,
                             timezone=timezone)
    return sequences(files, renderer, skips, block_size=block_size, memo=memo, input_format=forced)


# Read at a time by ``LineOffsets``: newlines are counted a chunk at a time, in C.
OFFSET_CHUNK = 1 << 20


class LineOffsets:
    """About where each line of a traffic file starts, for the progress of its reading.

    A request carries only its line number; the bytes read are that line's offset, counted
    here in a second handle of the file that runs ahead of the reader no further than asked,
    forward only, a chunk at a time (a line is placed within its chunk in proportion). At
    most the file is read twice, from the page cache the loader has just filled. Only a
    regular file that is not compressed has a size its lines can be measured against:
    ``size`` is None for a pipe (read once, by the loader, never here), standard input,
    records, and gzip, bzip2 or xz files (their lines number the decompressed text)."""

    def __init__(self, path: Path) -> None:
        self.size: int | None = None
        self._handle: BinaryIO | None = None
        self._base = 0  # bytes before the chunk held
        self._lines = 0  # newlines before it
        self._chunk = 0  # the chunk's bytes and newlines
        self._chunk_lines = 0
        self._last = 0  # the last answer
        from advisor.ingest import safe_open
        from advisor.ingest.traffic import BZIP2_MAGIC, GZIP_MAGIC, XZ_MAGIC, ZSTD_MAGIC

        try:
            if not stat.S_ISREG(os.stat(path).st_mode):
                return
            handle = safe_open.open_binary(path, what="a traffic file", buffering=0)
        except (OSError, ValueError, AdvisorError):
            return  # no percentage then; the loader reports what is wrong with the file
        try:
            head = handle.read(6)
            if head[:2] == GZIP_MAGIC or head[:3] == BZIP2_MAGIC or head == XZ_MAGIC or head[:4] == ZSTD_MAGIC:
                handle.close()
                return
            handle.seek(0)
            self.size = os.fstat(handle.fileno()).st_size
        except OSError:
            handle.close()
            return
        self._handle = handle

    def offset(self, line: int) -> int:
        """About the bytes before line ``line`` (from 1); never less than an earlier answer,
        never more than ``size`` (a file that grows while it is read)."""
        if self.size is None:
            return 0
        want = line - 1  # newlines before the line
        while self._handle is not None and self._lines + self._chunk_lines < want:
            self._base += self._chunk
            self._lines += self._chunk_lines
            try:
                data = self._handle.read(OFFSET_CHUNK)
            except OSError:
                data = b""  # the loader reports a read error; the estimate stops here
            self._chunk, self._chunk_lines = len(data), data.count(b"\n")
            if not data:
                self.close()
        at = self._base
        if want > self._lines and self._chunk_lines:
            at += round(self._chunk * (want - self._lines) / self._chunk_lines)
        self._last = max(self._last, min(at, self.size))
        return self._last

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None


class Reading:
    """Which traffic file the requests come from and how far into it the reading is: what
    a progress display shows. ``see`` each request as it comes, in order."""

    def __init__(self) -> None:
        self.source: str | None = None
        self.requests = 0  # of the current file
        self.line = 0  # of its last request
        self._offsets: LineOffsets | None = None

    def see(self, req: Request) -> bool:
        """Count ``req``; True when it is the first of another file."""
        new = req.source != self.source
        if new:
            self.close()
            self.source, self.requests = req.source, 0
            # <stdin> and <records> are no file to measure (though a file of that name may exist).
            self._offsets = LineOffsets(Path(req.source)) if not req.source.startswith("<") else None
        self.requests += 1
        self.line = req.line
        return new

    @property
    def size(self) -> int | None:
        """The current file's size in bytes; None when it has none to measure against."""
        return self._offsets.size if self._offsets is not None else None

    def done(self) -> int:
        """About the bytes of the current file read so far (0 when it has no size)."""
        return self._offsets.offset(self.line) if self._offsets is not None else 0

    def percent(self) -> int | None:
        """The share of the current file read so far, in whole percent (rounded down)."""
        size = self.size
        if not size:
            return None
        return min(100, 100 * self.done() // size)

    def close(self) -> None:
        if self._offsets is not None:
            self._offsets.close()
            self._offsets = None
