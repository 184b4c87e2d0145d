"""`advisor export`: an anonymised block-hash trace that other tools replay."""

from __future__ import annotations

import secrets
from pathlib import Path

import typer

from advisor.cli import app
from advisor.api.bounds import TIMESTAMP_UNIT_HELP, bounded, check_timestamp_unit
from advisor.commands.outputs import model_inputs
from advisor.commands.common import (
    INPUT_FORMAT_HELP,
    SkipLog,
    check_output,
    emit,
    open_traffic,
    with_progress,
)
from advisor.console import log
from advisor.errors import AdvisorError
from advisor.ingest.preprocess import DEFAULT_ENGINE, ENGINE_VERSION_HELP, engine_spec
from advisor.ingest.source import MODEL_DIR_HELP, TIMEZONE_HELP, resolve_tokenizer
from advisor.export.trace import FORMATS, Hasher, rows, write


@app.command("export")
def export_command(
    traffic: list[Path] = typer.Argument(..., help="Traffic files (any input format; - is stdin)."),
    format: str = typer.Option(..., "--format", "-f", help="mooncake (kvcache-simulator, AIPerf, Dynamo) or bailian."),
    block_size: int | None = typer.Option(None, min=1, callback=bounded("--block-size"), help="Tokens per hash block: the engine's "
                                          "block size (vLLM 16, Mooncake traces 512); with --model, the engine's cache "
                                          "block on it by default."),
    salt: str | None = typer.Option(None, help="Key of the block hashes (default: random; never printed)."),
    timestamp_unit: str = typer.Option("auto", help=TIMESTAMP_UNIT_HELP),
    tokenizer: str = typer.Option("llama3", help="llama3, cl100k, a *.tiktoken file or a tokenizer.json."),
    chat_template: Path | None = typer.Option(None, help="HuggingFace chat template (.jinja or tokenizer_config.json)."),
    model_dir: Path | None = typer.Option(None, "--model-dir", help=MODEL_DIR_HELP),
    engine: str = typer.Option(DEFAULT_ENGINE, help="The engine whose request preprocessing renders the traffic: "
                               "sglang or vllm."),
    engine_version: str | None = typer.Option(None, "--engine-version", help=ENGINE_VERSION_HELP),
    timezone: str = typer.Option("UTC", help=TIMEZONE_HELP),
    templates: Path | None = typer.Option(None, help="Folder of prompt templates for 'template' records."),
    input_format: str = typer.Option("auto", help=INPUT_FORMAT_HELP),
    output: Path | None = typer.Option(None, "--output", "-o", help="Write the trace to this file (default: stdout)."),
    model: str | None = typer.Option(None, "--model", help="The model the trace is for (a catalog name or a config.json): "
                                     "blocks default to the engine's cache block on it (vLLM's hybrid block)."),
    gpu: str | None = typer.Option(None, "--gpu", help="The GPU (vLLM's hybrid block on Gated DeltaNet models)."),
) -> None:
    """Write an anonymised trace: chained salted block hashes as integers, lengths, times, sessions."""
    if format not in FORMATS:
        raise AdvisorError(f"unknown --format '{format}': use mooncake or bailian")
    check_timestamp_unit(timestamp_unit)
    if salt is not None and not salt:
        raise AdvisorError("--salt is empty")
    key = salt.encode("utf-8") if salt is not None else secrets.token_bytes(32)
    if len(key) > 64:  # BLAKE2b keys are at most 64 bytes
        import hashlib

        key = hashlib.blake2b(key, digest_size=64).digest()
    check_output(output, [*traffic, *model_inputs(model, model_dir)])
    block_size = _block_size(block_size, model, engine, gpu)
    skips = SkipLog()
    tokenizer = resolve_tokenizer(tokenizer, model_dir)
    seqs = open_traffic(list(traffic), tokenizer, chat_template, templates, block_size, skips, input_format=input_format,
                        engine=engine_spec(engine, engine_version), model_dir=model_dir, timezone=timezone)
    found = rows(with_progress(seqs, "export"), Hasher(block_size, key))
    skips.summary()
    if not found:
        raise AdvisorError("no requests to export")
    emit("".join(write(found, format, block_size, timestamp_unit)), output)
    if skips.count:
        raise typer.Exit(1)


def _block_size(given: int | None, model: str | None, engine: str, gpu: str | None) -> int:
    """The hash block: given, or the engine's cache block on the model. A hit on a model with
    state layers is a whole number of its blocks, so a trace at a finer block would let a
    replayer count hits the engine cannot serve; the log says so when the two disagree."""
    if model is None:
        if given is None:
            raise AdvisorError("give --block-size (the engine's block size), or --model to take its cache block")
        return given
    from advisor.api.architecture import geometry_for, model_for

    geo = geometry_for(model_for(model, None), engine, gpu=gpu)
    if geo is None:  # full attention: the engine's block is the user's to state
        if given is None:
            raise AdvisorError(f"--model {model} is full attention on every layer, so it sets no cache block: "
                               "give --block-size (the engine's block size)")
        return given
    if given is not None and given % geo.block:
        log(f"advisor: --block-size {given} is not a multiple of {geo.block}, the cache block of {engine} on this model "
            f"({geo.granularity_note}); a replay at {given}-token blocks counts hits it cannot serve")
    if given is None:
        log(f"advisor: blocks of {geo.block} tokens: {geo.granularity_note} ({geo.rule})")
    return given or geo.block
