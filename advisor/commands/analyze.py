"""`advisor analyze`: measure the achievable prefix-hit rate of real traffic."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from advisor.index.analyze import Analyzer, top_branches
from advisor.cli import app
from advisor.commands.bounds import bounded
from advisor.commands.common import ANNOTATION_FORMATS, FORMATS, INPUT_FORMAT_HELP, SkipLog, check_format, check_output, emit_report, open_traffic, with_progress
from advisor.console import log, out_console
from advisor.errors import AdvisorError
from advisor.ingest.memo import MemoEncoder
from advisor.ingest.preprocess import DEFAULT_ENGINE, ENGINE_HELP, ENGINE_VERSION_HELP, engine_spec
from advisor.ingest.source import MODEL_DIR_HELP, TIMEZONE_HELP, resolve_tokenizer
from advisor.index.partition import run_partitioned
from advisor.report import analysis as render
from advisor.ingest.tokenizers import load_tokenizer
from advisor.verify.collect import watch
from advisor.verify.compare import Observed, compare


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
    format: str = typer.Option("text", "--format", "-f", help="text, json, markdown, or sarif or github "
                               "(the traffic findings as SARIF 2.1.0 or GitHub annotations)."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write the report to this file."),
    workers: int = typer.Option(0, min=0, callback=bounded("--workers"), help="Index in N local worker processes (radix tree partitioned by head)."),
    dask: Optional[str] = typer.Option(None, help="Index on a Dask cluster at this scheduler address."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Tokenizer-cache statistics on stderr."),
    diagnose_limit: int = typer.Option(50_000, min=0, callback=bounded("--diagnose-limit"), help="Diagnose the first N text requests (0: all); "
                                       "bounds the diagnosis' memory on huge logs."),
    diagnose: Optional[bool] = typer.Option(None, "--diagnose/--no-diagnose",
                                            help="Traffic findings (TR101/TR201/TR301) and loss attribution; "
                                            "on by default, off with --workers/--dask."),
) -> None:
    """Measure the prefix-cache hit rate that the traffic allows (unlimited cache)."""
    check_format(format, (*FORMATS, *ANNOTATION_FORMATS))
    check_output(output, [*traffic, *([templates] if templates else []), *([chat_template] if chat_template else [])])
    engine = engine_spec(engine, engine_version)
    tokenizer = resolve_tokenizer(tokenizer, model_dir)
    skips = SkipLog()
    memo = MemoEncoder(load_tokenizer(tokenizer))

    # The diagnosis watches the same sequences on their way to the index (one pass).
    on = diagnose if diagnose is not None else not (workers or dask)
    if format in ANNOTATION_FORMATS and not on:
        raise AdvisorError(f"--format {format} reports the traffic findings, which need the diagnosis: "
                           "drop --no-diagnose (--workers and --dask turn it off unless --diagnose is given)")
    diagnoser = None
    if on:
        from advisor.diagnose.detect import Diagnoser  # not imported by --no-diagnose runs

        diagnoser = Diagnoser(load_tokenizer(tokenizer), diagnose_limit or None)

    def stream():
        seqs = open_traffic(traffic, tokenizer, chat_template, templates, block_size, skips, memo,
                            input_format=input_format, engine=engine, model_dir=model_dir, timezone=timezone)
        seqs = with_progress(seqs, "analyze")
        return diagnoser.watch(seqs) if diagnoser is not None else seqs

    observed = Observed()
    predicted: list[int] = []
    if workers or dask:
        analysis = run_partitioned(lambda: watch(stream(), observed), page_size, workers=workers, dask=dask, top=top)
        if len(observed):  # the partitions keep no per-request figures to compare with
            log("advisor: observed cached tokens are compared with the prediction without --workers/--dask only")
            observed = Observed()
    else:
        analyzer = Analyzer(page_size=page_size)
        for n, seq in enumerate(stream()):
            cached = analyzer.add(seq)
            req = seq.request
            if req.cached_tokens is not None:
                observed.add(n, req.where, req.id, seq.prompt_tokens, req.cached_tokens, req.reported_prompt_tokens)
                predicted.append(cached)
        analysis = analyzer.result
    skips.summary()
    if verbose:
        s = memo.stats
        log(f"tokenizer cache: {s.hits:,} hits, {s.misses:,} misses, {s.hit_rate:.1%} of piece text reused, "
            f"{s.entries:,} entries, {s.bytes / 2**20:.1f} MiB, {s.evictions:,} evictions")
    decode = load_tokenizer(tokenizer).decode
    diagnosis = diagnoser.finish(analysis.cached_tokens) if diagnoser is not None else None
    data = render.analysis_dict(
        analysis, [str(p) for p in traffic], tokenizer, top_branches(analysis, decode, top),
        skips.items, skips.count,
        diagnosis.finding_dicts() if diagnosis is not None else (),
    )
    if len(observed):
        # Predicted = analyze's definition (unlimited cache, --page-size): the ceiling the
        # engine's count can reach; `advisor verify` splits the gap.
        data["observed"] = compare(observed, predicted)
    if diagnosis is not None:
        data["loss_attribution"] = diagnosis.attribution.to_dict()
        data["diagnosis"] = {"text_requests": diagnosis.text_requests, "examined": diagnosis.examined,
                             "sampled": diagnosis.examined < diagnosis.text_requests}
    renderers = {"json": lambda: render.to_json(data), "markdown": lambda: render.to_markdown(data)}
    if format in ANNOTATION_FORMATS and diagnosis is not None:
        from advisor.commands import annotate  # the linter's renderers, for these formats only

        findings = diagnosis.findings
        renderers.update(annotate.renderers(lambda: findings, [str(p) for p in traffic]))
    emit_report(format, output, renderers, lambda: render.print_text(data, out_console))
    if skips.count:
        raise typer.Exit(1)
