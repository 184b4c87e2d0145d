"""From traffic paths and rendering options to token sequences, and the log of skipped lines.

What every traffic command and the advisory share to read traffic; the commands only add
their options around it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

from advisor.console import log
from advisor.errors import AdvisorError
from advisor.ingest.chat import ChatRenderer, Llama3Layout
from advisor.ingest.memo import MemoEncoder
from advisor.ingest.pipeline import Renderer, Sequence, sequences
from advisor.ingest.preprocess import DEFAULT_ENGINE, check_engine
from advisor.ingest.tokenizers import load_tokenizer
from advisor.ingest.traffic import Skip, check_paths

if TYPE_CHECKING:
    from advisor.ingest.prompt_templates import PromptTemplate, Rendered
    from advisor.ingest.render_worker import RemoteTemplates

SHOWN_SKIPS = 20


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


def make_renderer(tokenizer: str, chat_template: Path | None, templates: Path | None,
                  traffic: list[Path], engine: str = DEFAULT_ENGINE) -> Renderer:
    tok = load_tokenizer(tokenizer)
    check_engine(engine)
    chat: ChatRenderer = Llama3Layout(engine=engine)
    if chat_template:
        from advisor.ingest.render_worker import RemoteChat, RenderClient, WorkerConfig

        # Compiled and rendered in the worker process, under CPU-time and memory limits.
        chat = RemoteChat(RenderClient(WorkerConfig(chat=(str(chat_template), tok.bos_token, None, engine))),
                          str(chat_template), engine)
    if templates is not None:
        if not templates.is_dir():
            raise AdvisorError(f"{templates}: templates folder not found")
        dirs = [templates]
    else:
        # `template` records name templates that usually sit next to the traffic folder.
        dirs = []
        for p in traffic:
            for d in (p.parent, p.parent.parent):
                if d not in dirs:
                    dirs.append(d)
    return Renderer(tokenizer=tok, chat=chat, templates=TemplatesOnFirstUse(dirs))


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


def open_traffic(paths: list[Path], tokenizer: str, chat_template: Path | None, templates: Path | None,
                 block_size: int, skips: SkipLog, memo: MemoEncoder | None = None,
                 input_format: str | None = None, engine: str = DEFAULT_ENGINE) -> Iterator[Sequence]:
    """``input_format``: an adapter name of ``advisor.ingest.formats`` (None or ``auto``:
    detected per file)."""
    if block_size < 1:
        raise AdvisorError("--block-size must be at least 1")
    from advisor.ingest.formats import check_format as check_input_format

    forced = check_input_format(input_format)
    files = check_paths(paths)
    renderer = make_renderer(tokenizer, chat_template, templates, files, engine=engine)
    return sequences(files, renderer, skips, block_size=block_size, memo=memo, input_format=forced)
