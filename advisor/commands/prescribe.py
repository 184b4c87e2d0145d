"""`advisor prescribe`: what to change in the prompts, and the hit rate after each change."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from advisor.api.prescription import prescribe
from advisor.api.sources import then
from advisor.cli import app
from advisor.api.bounds import bounded
from advisor.commands.common import (ANNOTATION_FORMATS, SkipLog, check_format, check_output, emit, emit_report,
                                     with_progress)
from advisor.console import out_console
from advisor.ingest.preprocess import DEFAULT_ENGINE, ENGINE_HELP, ENGINE_VERSION_HELP
from advisor.ingest.source import MODEL_DIR_HELP, TIMEZONE_HELP
from advisor.report import prescription as render
from advisor.report.html import to_html
from advisor.report.rewritten import jsonl

FORMATS = ("text", "json", "markdown", "diff", "html", *ANNOTATION_FORMATS)


@app.command("prescribe")
def prescribe_command(
    traffic: List[Path] = typer.Argument(..., help="Traffic files (.jsonl or .jsonl.gz)."),
    templates: Optional[Path] = typer.Option(None, help="Prompt templates: diffs that carry out each fix, "
                                             "and the templates of 'template' records."),
    tokenizer: str = typer.Option("llama3", help="llama3, cl100k, a *.tiktoken file or a tokenizer.json."),
    chat_template: Optional[Path] = typer.Option(None, help="HuggingFace chat template (.jinja or tokenizer_config.json)."),
    engine: str = typer.Option(DEFAULT_ENGINE, help=ENGINE_HELP),
    engine_version: Optional[str] = typer.Option(None, "--engine-version", help=ENGINE_VERSION_HELP),
    model_dir: Optional[Path] = typer.Option(None, "--model-dir", help=MODEL_DIR_HELP),
    timezone: str = typer.Option("UTC", help=TIMEZONE_HELP),
    page_size: int = typer.Option(1, min=1, callback=bounded("--page-size"), help="Round cached tokens down to this page size."),
    capacity_tokens: Optional[int] = typer.Option(None, min=1, callback=bounded("--capacity-tokens"), help="KV pool size in tokens: hit rates through "
                                                  "an LRU pool of this size, eviction in the loss attribution, "
                                                  "and the pin-the-system-prompt action."),
    block_size: int = typer.Option(512, min=1, callback=bounded("--block-size"), help="Tokens per hash_ids block."),
    format: str = typer.Option("text", "--format", "-f", help="text, json, markdown, diff, html (one self-contained interactive page), or sarif or github "
                               "(the traffic findings as SARIF 2.1.0 or GitHub annotations)."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write the report to this file."),
    emit_rewritten: Optional[Path] = typer.Option(None, "--emit-rewritten", help="Also write the traffic as the "
                                                  "prescription rewrote it (JSONL, one record a request, in log order)."),
) -> None:
    """Diagnose the traffic, prescribe a fix per finding, and measure the hit rate after it."""
    check_format(format, FORMATS)
    check_output(output, [*traffic, *([templates] if templates else [])])
    if emit_rewritten is not None:
        check_output(emit_rewritten, [*traffic, *([templates] if templates else []), *([output] if output else [])])
    skips = SkipLog()  # the first skipped lines on stderr as they happen
    result = prescribe(traffic, templates=templates, tokenizer=tokenizer, chat_template=chat_template, engine=engine,
                       engine_version=engine_version, model_dir=model_dir, timezone=timezone, page_size=page_size,
                       capacity_tokens=capacity_tokens, block_size=block_size, views=format == "html", on_skip=skips,
                       progress=then(with_progress, skips.summary))  # the summary once the traffic is read
    data = result.data
    renderers = {"json": result.to_json, "markdown": lambda: render.to_markdown(data),
                 "diff": lambda: render.to_diff(data), "html": lambda: to_html(data, "prescription")}
    if format in ANNOTATION_FORMATS:
        from advisor.commands import annotate  # the linter's renderers, for these formats only

        renderers.update(annotate.renderers(lambda: result.findings, result.files))
    emit_report(format, output, renderers, lambda: render.print_text(data, out_console))
    if emit_rewritten is not None:
        emit("".join(jsonl(result.prescription.rewritten)), emit_rewritten)
    if result.skipped_count:
        raise typer.Exit(1)
