"""`advisor verify`: what the engine reported against what advisor predicts."""

from __future__ import annotations

from pathlib import Path

import typer

from advisor.cli import app
from advisor.api.bounds import TIMESTAMP_UNIT_HELP, bounded, check_timestamp_unit, warmup_fraction
from advisor.commands.outputs import model_inputs
from advisor.commands.common import (
    INPUT_FORMAT_HELP,
    SkipLog,
    check_format,
    check_output,
    emit,
    open_traffic,
    with_progress,
)
from advisor.errors import AdvisorError
from advisor.ingest.preprocess import ENGINE_VERSION_HELP, engine_spec
from advisor.ingest.source import MODEL_DIR_HELP, TIMEZONE_HELP, resolve_tokenizer
from advisor.simulate.inputs import to_jobs
from advisor.simulate.model import (
    ENGINE_EVICTION,
    ENGINE_PAGE,
    EVICTIONS,
    POLICIES,
    default_cost,
)
from advisor.api.architecture import geometry_for, model_for
from advisor.simulate.runner import Largest, RunSpec, check_capacity, request_tokens
from advisor.verify.attribution import verify
from advisor.verify.collect import dropping, watch, without
from advisor.verify.compare import Observed


@app.command("verify")
def verify_command(
    traffic: list[Path] = typer.Argument(..., help="Traffic with observed cached tokens (any input format; - is stdin)."),
    engine: str = typer.Option(..., help="The engine that served it: sglang or vllm (its hit rules and eviction)."),
    engine_version: str | None = typer.Option(None, "--engine-version", help=ENGINE_VERSION_HELP),
    capacity_tokens: int | None = typer.Option(None, min=0, callback=bounded("--capacity-tokens"), help="The engine's KV pool in tokens (default: unlimited)."),
    page_size: int | None = typer.Option(None, min=1, callback=bounded("--page-size"), help="SGLang page / vLLM block in tokens (default: sglang 1, vllm 16)."),
    eviction: str | None = typer.Option(None, help="branch-lru, block-lru, lfu or fifo (default: the engine's)."),
    policy: str = typer.Option("fcfs", help="The engine's scheduling policy (serve stage)."),
    warmup: float = typer.Option(0.0, min=0.0, max=1.0, callback=warmup_fraction, help="Compare only after the first FRACTION of requests."),
    block_size: int = typer.Option(512, min=1, callback=bounded("--block-size"), help="Tokens per hash_ids block."),
    max_running: int = typer.Option(256, min=1, callback=bounded("--max-running"), help="Running requests (serve stage)."),
    max_prefill_tokens: int = typer.Option(16384, min=1, callback=bounded("--max-prefill-tokens"), help="Prefill token budget per step (serve stage)."),
    timestamp_unit: str = typer.Option("auto", help=TIMESTAMP_UNIT_HELP),
    tokenizer: str = typer.Option("llama3", help="llama3, cl100k, a *.tiktoken file or a tokenizer.json."),
    chat_template: Path | None = typer.Option(None, help="HuggingFace chat template (.jinja or tokenizer_config.json)."),
    model_dir: Path | None = typer.Option(None, "--model-dir", help=MODEL_DIR_HELP),
    timezone: str = typer.Option("UTC", help=TIMEZONE_HELP),
    templates: Path | None = typer.Option(None, help="Folder of prompt templates for 'template' records."),
    input_format: str = typer.Option("auto", help=INPUT_FORMAT_HELP),
    top: int = typer.Option(10, min=0, callback=bounded("--top"), help="How many of the requests that differ most to list."),
    format: str = typer.Option("text", "--format", "-f", help="text, json or markdown."),
    output: Path | None = typer.Option(None, "--output", "-o", help="Write the report to this file."),
    model: str | None = typer.Option(None, "--model", help="The model served (a catalog name or a config.json; default: "
                                     "--model-dir's config.json): its sliding-window and state layers set what the "
                                     "engine could reuse."),
    gpu: str | None = typer.Option(None, "--gpu", help="The GPU it was served on (vLLM's hybrid block on Gated DeltaNet models)."),
) -> None:
    """Predicted against observed cached tokens, and the gap split into what advisor can name."""
    check_output(output, [*traffic, *([chat_template] if chat_template else []), *model_inputs(model, model_dir)])
    check_format(format)
    if engine not in ("sglang", "vllm"):
        raise AdvisorError(f"unknown --engine '{engine}': use sglang or vllm")
    if eviction is not None and eviction not in EVICTIONS:
        raise AdvisorError(f"unknown --eviction '{eviction}': use {', '.join(EVICTIONS)}")
    if policy not in POLICIES:
        raise AdvisorError(f"unknown --policy '{policy}': use {', '.join(POLICIES)}")
    check_timestamp_unit(timestamp_unit)
    skips = SkipLog()
    observed = Observed()
    tokenizer = resolve_tokenizer(tokenizer, model_dir)
    # The engine that served the traffic also preprocessed it: render as it did.
    seqs = open_traffic(list(traffic), tokenizer, chat_template, templates, block_size, skips, input_format=input_format,
                        engine=engine_spec(engine, engine_version), model_dir=model_dir, timezone=timezone)
    job_skip, dropped = dropping(observed, skips)
    jobs, has_time = to_jobs(watch(with_progress(seqs, "verify"), observed), None, None, timestamp_unit,
                             on_skip=job_skip)
    observed = without(observed, dropped)
    skips.summary()
    if not len(jobs):
        raise AdvisorError("no requests to verify")
    if capacity_tokens is not None:
        mode = "serve" if has_time else "replay"
        need = max(request_tokens(j, mode) for j in jobs)
        check_capacity(capacity_tokens, Largest(need, max(j.prompt_tokens for j in jobs)), "--capacity-tokens")
    if not len(observed):
        raise AdvisorError("no record carries an observed cached-token count (cached_tokens, "
                           "usage.prompt_tokens_details.cached_tokens, gen_ai.usage.cache_read.input_tokens ...)")
    geometry = geometry_for(model_for(model, model_dir), engine, page_size=page_size or ENGINE_PAGE[engine], gpu=gpu,
                            block_size=page_size if engine == "vllm" else None)
    spec = RunSpec(policy=policy, eviction=eviction or ENGINE_EVICTION[engine], engine=engine,
                   capacity=capacity_tokens, page=geometry.block if geometry else page_size or ENGINE_PAGE[engine],
                   warmup=warmup, max_running=max_running, max_prefill_tokens=max_prefill_tokens, cost=default_cost(),
                   geometry=geometry)
    data = verify(jobs, observed, spec, has_time, top=top)
    data = {"input": {"files": [str(p) for p in traffic], "tokenizer": tokenizer, "block_size": block_size},
            "skipped": skips.count, **data}
    from advisor.verify import render

    if format == "json":
        import json

        emit(json.dumps(data, indent=2) + "\n", output)
    elif format == "markdown" or output is not None:
        emit(render.to_markdown(data), output)
    else:
        emit(render.to_text(data), None)
    if skips.count:
        raise typer.Exit(1)

