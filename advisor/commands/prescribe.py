"""`advisor prescribe`: what to change in the prompts, and the hit rate after each change."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import List, Optional

import typer

from advisor.cli import app
from advisor.commands.bounds import bounded
from advisor.commands.common import ANNOTATION_FORMATS, SkipLog, check_format, check_output, emit_report, make_renderer, open_traffic, with_progress
from advisor.console import out_console
from advisor.diagnose.detect import Diagnoser
from advisor.errors import AdvisorError
from advisor.ingest.memo import MemoEncoder
from advisor.ingest.preprocess import DEFAULT_ENGINE, ENGINE_HELP, ENGINE_VERSION_HELP, engine_spec
from advisor.ingest.source import MODEL_DIR_HELP, TIMEZONE_HELP, resolve_tokenizer
from advisor.prescribe.actions import prescribe
from advisor.report import prescription as render
from advisor.prescribe.template_diff import template_diffs
from advisor.ingest.tokenizers import load_tokenizer

FORMATS = ("text", "json", "markdown", "diff", *ANNOTATION_FORMATS)


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
    format: str = typer.Option("text", "--format", "-f", help="text, json, markdown, diff, or sarif or github "
                               "(the traffic findings as SARIF 2.1.0 or GitHub annotations)."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write the report to this file."),
) -> None:
    """Diagnose the traffic, prescribe a fix per finding, and measure the hit rate after it."""
    check_format(format, FORMATS)
    check_output(output, [*traffic, *([templates] if templates else [])])
    if templates is not None and not templates.is_dir():
        raise AdvisorError(f"{templates}: templates folder not found")
    skips = SkipLog()
    engine = engine_spec(engine, engine_version)
    tokenizer = resolve_tokenizer(tokenizer, model_dir)
    tok = load_tokenizer(tokenizer)
    seqs_iter = open_traffic(traffic, tokenizer, chat_template, templates, block_size, skips, MemoEncoder(tok),
                             engine=engine, model_dir=model_dir, timezone=timezone)
    diagnoser = Diagnoser(tok)
    seqs = []
    for seq in with_progress(seqs_iter, "prescribe"):
        diagnoser.add(seq)
        seqs.append(seq)
    skips.summary()
    if not seqs:
        raise AdvisorError("no usable requests in the traffic")
    # Rewritten requests render through the same settings as the logged ones.
    renderer = make_renderer(tokenizer, chat_template, templates, list(traffic), engine=engine, model_dir=model_dir,
                             timezone=timezone)
    diagnosis = diagnoser.finish()
    result = prescribe(seqs, renderer, diagnosis, page_size, capacity_tokens)
    if templates is not None or chat_template is not None:
        destinations = {a.finding: a.details["to"] for a in result.actions
                        if a.finding is not None and "to" in a.details}
        pins = [a.finding for a in result.actions if a.kind == "pin-template-value" and a.finding is not None]
        sorts = [a.finding for a in result.actions if a.kind == "sort-tool-definitions" and a.finding is not None]
        by_text = [a.finding for a in result.actions if a.details.get("sorted") and a.finding is not None]
        # (The findings prescribe measured, the ones a second look found after the first fixes
        # among them: the actions' finding numbers count in that list.)
        measured = dataclasses.replace(diagnosis, findings=result.findings)
        result.diffs = template_diffs(templates, measured, destinations, pins, chat_template, sorts, by_text)
    data = render.prescription_dict(result, [str(p) for p in traffic], tokenizer)
    renderers = {"json": lambda: render.to_json(data), "markdown": lambda: render.to_markdown(data),
                 "diff": lambda: render.to_diff(data)}
    if format in ANNOTATION_FORMATS:
        from advisor.commands import annotate  # the linter's renderers, for these formats only

        renderers.update(annotate.renderers(lambda: result.findings, [str(p) for p in traffic]))
    emit_report(format, output, renderers, lambda: render.print_text(data, out_console))
    if skips.count:
        raise typer.Exit(1)
