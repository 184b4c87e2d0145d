"""Pieces every traffic command shares: input set-up, skipped-line log, progress, output."""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Iterable, Iterator

from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from advisor.console import OutputClosed, err_console, progress_enabled, visible
from advisor.commands.outputs import check_output, is_stdout, regular_destination
from advisor.errors import AdvisorError
from advisor.ingest.pipeline import Sequence
# The commands read traffic through these; they live in ingest so that the advisory (and
# anything else below the CLI) uses them without importing the command layer.
from advisor.ingest.source import SkipLog, TemplatesOnFirstUse, make_renderer, open_traffic

__all__ = ["FORMATS", "INPUT_FORMAT_HELP", "SkipLog", "TemplatesOnFirstUse", "check_format", "check_output", "emit",
           "emit_bytes", "emit_report", "is_stdout", "make_renderer", "open_traffic", "regular_destination",
           "standalone", "with_progress"]

FORMATS = ("text", "json", "markdown")
# Traffic findings through lint's renderers (advisor/commands/annotate.py).
ANNOTATION_FORMATS = ("sarif", "github")
INPUT_FORMAT_HELP = ("Input format of the traffic files: auto (detected per file from its first records), "
                     "advisor, openai-batch, openai-batch-output, openai-log, otel, litellm, litellm-spend, "
                     "langfuse, vllm-log, sglang-log, bailian, servegen, mooncake-agentic.")


def standalone() -> bool:
    """Whether this process runs one command from a shell (the ``advisor`` script, ``python -m
    advisor``) and ends with it, rather than commands called in-process (tests, a script
    calling ``advisor.cli.main``): what it loaded for the command can go once used (the
    tokenizer, ``advisor.ingest.decoder``) instead of being kept for a next command."""
    from advisor.cli import ARGV

    return ARGV == sys.argv[1:]


def check_format(fmt: str, allowed: Iterable[str] = FORMATS) -> str:
    allowed = tuple(allowed)
    if fmt not in allowed:
        raise AdvisorError(f"unknown --format '{fmt}': use one of {', '.join(allowed)}")
    return fmt


def with_progress(items: Iterator[Sequence], label: str) -> Iterator[Sequence]:
    """Pass items through, showing requests/s and tokens/s on stderr when it is a terminal."""
    if not progress_enabled():
        yield from items
        return
    start = time.perf_counter()
    tokens = 0
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                  console=err_console, transient=True) as bar:
        task = bar.add_task(label, total=None)
        for n, item in enumerate(items, 1):
            tokens += item.prompt_tokens
            if n % 256 == 0:
                rate = n / max(time.perf_counter() - start, 1e-9)
                trate = tokens / max(time.perf_counter() - start, 1e-9)
                bar.update(task, description=f"{label}: {n:,} requests, {rate:,.0f} req/s, {trate / 1e6:,.2f}M tok/s")
            yield item


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def emit_bytes(data: bytes, output: Path) -> None:
    """Write a file whole: a temporary file in the same folder, then an atomic rename,
    so an interrupted run never leaves a partial file behind.

    A destination that exists but is not a regular file (``/dev/stdout``, a pipe, a
    device) is written in place: renaming over it would replace the device itself. A
    symlink to a regular file keeps the link and replaces its target.
    """
    check_output(output)
    try:
        if output.exists() and not output.is_file():
            if output.is_dir():
                raise AdvisorError(f"{output}: is a folder; give a file name for the output")
            with output.open("wb") as handle:
                handle.write(data)
            return
        # realpath, not resolve(): a loop is refused above, never a RuntimeError here.
        target = Path(os.path.realpath(output)) if output.is_symlink() else output
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    except OSError as exc:
        raise AdvisorError(f"{output}: cannot write output ({exc.strerror or exc})") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; give the file normal permissions
        os.replace(tmp, target)
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise AdvisorError(f"{output}: cannot write output ({exc.strerror or exc})") from None
        raise


def emit_report(fmt: str, output: Path | None, renderers: dict[str, Callable[[], str]],
                print_text: Callable[[], None]) -> None:
    """One report in the chosen format. Text goes to the terminal as rich tables; a text
    report written to a file is the markdown rendering (tables without terminal codes)."""
    if is_stdout(output):
        output = None
    if fmt in renderers:
        # An HTML page is written as rendered: its data is escaped JSON already, and the
        # plotly.js it inlines holds control characters that are the script's own.
        emit(renderers[fmt](), output, escape=fmt != "html")
    elif output is not None:
        emit(renderers["markdown"](), output)
    else:
        print_text()


def emit(text: str, output: Path | None, escape: bool = True) -> None:
    """Machine output to stdout (``-`` too), or to a file written whole (temp file, then rename).

    Control characters from the traffic (a logged ``ESC [``) and file names that are not
    UTF-8 are written as ``\\u001b`` escapes (``advisor.console.visible``): valid inside
    JSON strings, and the same bytes whatever the terminal or the locale."""
    if escape:
        text = visible(text)
    if output is None or is_stdout(output):
        try:
            sys.stdout.write(text)
            sys.stdout.flush()
        except BrokenPipeError:
            raise OutputClosed from None
        return
    emit_bytes(text.encode("utf-8"), output)
