"""Pieces every traffic command shares: input set-up, skipped-line log, progress, output."""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Iterable, Iterator

from rich.table import Column
from rich.progress import (BarColumn, Progress, SpinnerColumn, TaskID, TaskProgressColumn, TextColumn,
                           TimeElapsedColumn, TimeRemainingColumn)

from advisor.console import OutputClosed, err_console, log, progress_mode, visible
from advisor.commands.outputs import check_output, is_stdout, regular_destination
from advisor.errors import AdvisorError
from advisor.ingest.pipeline import Sequence
# The commands read traffic through these; they live in ingest so that the advisory (and
# anything else below the CLI) uses them without importing the command layer.
from advisor.ingest.source import Reading, SkipLog, TemplatesOnFirstUse, make_renderer, open_traffic

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


# On a stderr that is no terminal (a CI log), a plain progress line at most this often, in
# seconds; the first after one interval, so a run shorter than that writes none.
PROGRESS_INTERVAL = 10.0
# Requests between updates of the bar's figures (rich redraws it 10 times a second anyway).
BAR_EVERY = 64


def with_progress(items: Iterator[Sequence], label: str) -> Iterator[Sequence]:
    """Pass items through, showing on stderr how far the reading of the traffic is (stdout is
    never written): on a terminal a bar with the share of the file read and the time left,
    by bytes, and requests/s and tokens/s; anywhere else a plain line every
    ``PROGRESS_INTERVAL`` seconds; nothing when ``ADVISOR_NO_PROGRESS`` is set."""
    mode = progress_mode()
    if mode == "off":
        yield from items
        return
    reading = Reading()
    try:
        if mode == "bar":
            yield from _progress_bar(items, label, reading)
        else:
            yield from progress_lines(items, reading, time.monotonic, PROGRESS_INTERVAL)
    finally:
        reading.close()


def _progress_bar(items: Iterator[Sequence], label: str, reading: Reading) -> Iterator[Sequence]:
    start = time.perf_counter()
    tokens = 0
    # The figures first and the description last, in the room left: a narrow terminal cuts the
    # end of a long path, never the percentage or the time left. markup=False: a file name is
    # the user's text, not rich markup.
    text = TextColumn("{task.description}", markup=False, table_column=Column(no_wrap=True, overflow="ellipsis", ratio=1))
    with Progress(SpinnerColumn(), TaskProgressColumn(), BarColumn(bar_width=24), TimeRemainingColumn(),
                  TimeElapsedColumn(), text, console=err_console, transient=True, expand=True) as bar:
        task: TaskID | None = None
        for n, item in enumerate(items, 1):
            tokens += item.prompt_tokens
            if reading.see(item.request):
                # One line, for the file being read: a pipe's has no size (a spinner, no percentage).
                if task is not None:
                    bar.remove_task(task)
                task = bar.add_task(f"{label}: reading {reading.source}", total=reading.size)
            if n % BAR_EVERY == 0 and task is not None:
                elapsed = max(time.perf_counter() - start, 1e-9)
                bar.update(task, completed=reading.done(),
                           description=f"{label}: {reading.requests:,} requests, {n / elapsed:,.0f} req/s, "
                                       f"{tokens / elapsed / 1e6:,.2f}M tok/s, reading {reading.source}")
            yield item


def progress_lines(items: Iterator[Sequence], reading: Reading, clock: Callable[[], float],
                   interval: float) -> Iterator[Sequence]:
    """Pass items through with a plain line on stderr every ``interval`` seconds of ``clock``:
    ``advisor: reading NAME: 42% (12,345 requests)`` (the requests of that file so far; no
    percentage for a file without a size: a pipe, a compressed file); once a line has named
    a file, a last one when it is read to its end. The same position gives the same line."""
    due = clock() + interval
    told = False  # whether a line named the file being read
    for item in items:
        if told and item.request.source != reading.source:
            log(_read_whole(reading))
            told = False
        reading.see(item.request)
        now = clock()
        if now >= due:
            percent = reading.percent()
            shown = f"{percent}% ({reading.requests:,} requests)" if percent is not None else \
                f"{reading.requests:,} requests"
            log(f"advisor: reading {reading.source}: {shown}")
            told, due = True, now + interval
        yield item
    if told:
        log(_read_whole(reading))


def _read_whole(reading: Reading) -> str:
    shown = f"100% ({reading.requests:,} requests)" if reading.size else f"{reading.requests:,} requests"
    return f"advisor: read {reading.source}: {shown}"


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
        # No mkdir: check_output refused a missing folder above, naming it.
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
