"""`advisor analyze`: measure the achievable prefix-hit rate of real traffic."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from advisor.api.analysis import analyze, diagnoses
from advisor.api.architecture import MAMBA_STRATEGY_HELP, RETENTION_HELP
from advisor.cli import app
from advisor.api.bounds import bounded
from advisor.commands.outputs import model_inputs
from advisor.commands.common import ANNOTATION_FORMATS, FORMATS, INPUT_FORMAT_HELP, SkipLog, check_format, check_output, emit_report, standalone, with_progress
from advisor.console import log, out_console
from advisor.errors import AdvisorError
from advisor.ingest.preprocess import DEFAULT_ENGINE, ENGINE_HELP, ENGINE_VERSION_HELP
from advisor.ingest.source import MODEL_DIR_HELP, TIMEZONE_HELP
from advisor.report import analysis as render
from advisor.report.html import to_html


MODEL_HELP = ("Model whose cache the hits follow (a catalog name or a config.json; default: --model-dir's "
              "config.json): sliding-window, chunked and linear-attention (Mamba) layers change what "
              "the engine can reuse.")


@app.command("analyze")
def analyze_command(
    traffic: List[Path] = typer.Argument(..., help="Traffic files (.jsonl or .jsonl.gz)."),
    tokenizer: str = typer.Option("llama3", help="llama3, cl100k, a *.tiktoken file or a tokenizer.json."),
    chat_template: Optional[Path] = typer.Option(None, help="HuggingFace chat template (.jinja or tokenizer_config.json)."),
    engine: str = typer.Option(DEFAULT_ENGINE, help=ENGINE_HELP),
    engine_version: Optional[str] = typer.Option(None, "--engine-version", help=ENGINE_VERSION_HELP),
    model_dir: Optional[Path] = typer.Option(None, "--model-dir", help=MODEL_DIR_HELP),
    timezone: str = typer.Option("UTC", help=TIMEZONE_HELP),
    templates: Optional[Path] = typer.Option(None, help="Folder of prompt templates for 'template' records."),
    page_size: int = typer.Option(1, min=1, callback=bounded("--page-size"), help="Round cached tokens down to this page size."),
    block_size: int = typer.Option(512, min=1, callback=bounded("--block-size"), help="Tokens per hash_ids block."),
    top: int = typer.Option(5, min=0, callback=bounded("--top"), help="How many shared branches to list."),
    input_format: str = typer.Option("auto", help=INPUT_FORMAT_HELP),
    format: str = typer.Option("text", "--format", "-f", help="text, json, markdown, html (one self-contained interactive page), or sarif or github "
                               "(the traffic findings as SARIF 2.1.0 or GitHub annotations)."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write the report to this file."),
    workers: int = typer.Option(0, min=0, callback=bounded("--workers"), help="Index in N local worker processes (radix tree partitioned by head)."),
    dask: Optional[str] = typer.Option(None, help="Index on a Dask cluster at this scheduler address."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Tokenizer-cache statistics on stderr."),
    diagnose_limit: int = typer.Option(50_000, min=0, callback=bounded("--diagnose-limit"), help="Diagnose the first N text requests (0: all); "
                                       "bounds the diagnosis' memory on huge logs."),
    diagnose: Optional[bool] = typer.Option(None, "--diagnose/--no-diagnose",
                                            help="Traffic findings (TR101-TR104, TR201, TR301) and loss attribution; "
                                            "on by default, off with --workers/--dask."),
    model: Optional[str] = typer.Option(None, "--model", help=MODEL_HELP),
    gpu: Optional[str] = typer.Option(None, "--gpu", help="GPU of the deployment (sets vLLM's hybrid block on Gated "
                                      "DeltaNet models: FlashInfer kernels on Hopper and Blackwell)."),
    retention_interval: str = typer.Option("0", "--retention-interval", help=RETENTION_HELP),
    mamba_strategy: Optional[str] = typer.Option(None, "--mamba-strategy", help=MAMBA_STRATEGY_HELP),
) -> None:
    """Measure the prefix-cache hit rate that the traffic allows (unlimited cache)."""
    check_format(format, (*FORMATS, "html", *ANNOTATION_FORMATS))
    check_output(output, [*traffic, *([templates] if templates else []), *([chat_template] if chat_template else []),
                          *model_inputs(model, model_dir)])
    if format in ANNOTATION_FORMATS and not diagnoses(diagnose, workers, dask):
        raise AdvisorError(f"--format {format} reports the traffic findings, which need the diagnosis: "
                           "drop --no-diagnose (--workers and --dask turn it off unless --diagnose is given)")
    skips = SkipLog()  # the first skipped lines on stderr as they happen
    result = analyze(traffic, tokenizer=tokenizer, chat_template=chat_template, engine=engine,
                     engine_version=engine_version, model_dir=model_dir, timezone=timezone, templates=templates,
                     page_size=page_size, block_size=block_size, top=top, input_format=input_format,
                     workers=workers, dask=dask, diagnose_limit=diagnose_limit, diagnose=diagnose,
                     views=format == "html", on_skip=skips, progress=with_progress, model=model, gpu=gpu,
                     retention_interval=retention_interval, mamba_strategy=mamba_strategy,
                     release_tokenizer=standalone())
    skips.summary()
    if verbose and result.tokenizer_cache is not None:
        s = result.tokenizer_cache
        log(f"tokenizer cache: {s.hits:,} hits, {s.misses:,} misses, {s.hit_rate:.1%} of piece text reused, "
            f"{s.entries:,} entries, {s.bytes / 2**20:.1f} MiB, {s.evictions:,} evictions")
    data = result.data
    renderers = {"json": result.to_json, "markdown": lambda: render.to_markdown(data),
                 "html": lambda: to_html(data, "analysis")}
    if format in ANNOTATION_FORMATS:
        from advisor.commands import annotate  # the linter's renderers, for these formats only

        renderers.update(annotate.renderers(lambda: result.findings, result.files))
    emit_report(format, output, renderers, lambda: render.print_text(data, out_console))
    if result.skipped_count:
        raise typer.Exit(1)
