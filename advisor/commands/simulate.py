"""`advisor simulate`: replay traffic through a KV pool of finite capacity."""

from __future__ import annotations

from pathlib import Path
from typing import Any, List, Optional

import typer

from advisor.api.simulation import SimulateResult, simulate
from advisor.api.architecture import MAMBA_STRATEGY_HELP, RETENTION_HELP
from advisor.api.sources import then
from advisor.cli import app
from advisor.api.bounds import TIMESTAMP_UNIT_HELP, bounded, check_timestamp_unit, warmup_fraction
from advisor.commands.outputs import model_inputs
from advisor.commands.common import ANNOTATION_FORMATS, FORMATS, INPUT_FORMAT_HELP, SkipLog, check_format, check_output, emit, standalone, with_progress
from advisor.cost.catalog import DEFAULT_MFU
from advisor.cost.compute import DEFAULT_BANDWIDTH_UTIL
from advisor.ingest.preprocess import ENGINE_VERSION_HELP
from advisor.ingest.source import MODEL_DIR_HELP, TIMEZONE_HELP
from advisor.simulate.report import to_markdown, to_text


@app.command("simulate")
def simulate_command(
    traffic: Optional[List[Path]] = typer.Argument(None, help="Traffic files (.jsonl or .jsonl.gz)."),
    workload: Optional[str] = typer.Option(None, help="A bundled workload spec instead of traffic: rag, agent, support-chat, multi-tenant, single-shot or scrambled."),
    tokenizer: str = typer.Option("llama3", help="llama3, cl100k, a *.tiktoken file or a tokenizer.json."),
    chat_template: Optional[Path] = typer.Option(None, help="HuggingFace chat template (.jinja or tokenizer_config.json)."),
    model_dir: Optional[Path] = typer.Option(None, "--model-dir", help=MODEL_DIR_HELP),
    timezone: str = typer.Option("UTC", help=TIMEZONE_HELP),
    templates: Optional[Path] = typer.Option(None, help="Folder of prompt templates for 'template' records."),
    capacity_tokens: Optional[int] = typer.Option(None, min=0, callback=bounded("--capacity-tokens"), help="KV pool size in tokens (per replica). Default: unlimited."),
    model: Optional[str] = typer.Option(None, help="Size the pool and time the steps from a model (with --gpu; default timings: llama-3.1-8b on h100)."),
    gpu: Optional[str] = typer.Option(None, help="GPU for --model."),
    tp: int = typer.Option(1, "--tp", help="Tensor-parallel GPUs of --model/--gpu."),
    kv_dtype: str = typer.Option("bf16", "--kv-dtype", help="KV cache dtype: bf16 or fp8."),
    retention_interval: str = typer.Option("0", "--retention-interval", help=RETENTION_HELP),
    mamba_strategy: Optional[str] = typer.Option(None, "--mamba-strategy", help=MAMBA_STRATEGY_HELP),
    weight_dtype: Optional[str] = typer.Option(None, "--weight-dtype", help="bf16, fp8 or mxfp4. Default: as the model ships."),
    mfu: float = typer.Option(DEFAULT_MFU, "--mfu", help="Model FLOPs utilisation of prefill (serve timings)."),
    bandwidth_util: float = typer.Option(DEFAULT_BANDWIDTH_UTIL, "--bandwidth-util", help="Share of GPU bandwidth a decode step achieves."),
    policy: str = typer.Option("fcfs", help="Scheduling policies, comma-separated: fcfs, lpm, dfs-weight, lof, random."),
    eviction: Optional[str] = typer.Option(None, help="Eviction policies, comma-separated: branch-lru (SGLang whole leaves), block-lru (vLLM blocks), lfu, fifo (SGLang's, whole leaves), off (prefix caching off: only running requests hold KV), optimal (the offline bound: evicts what is needed farthest in the future; replay order). Default: the engine's."),
    engine: str = typer.Option("none", help="Hit rules: none (analyze's LCP), sglang (L-1 cap, pages) or vllm (L-1 cap, full blocks); "
                        "sglang or vllm also renders the traffic with that engine's request preprocessing (none: sglang's)."),
    engine_version: Optional[str] = typer.Option(None, "--engine-version", help=ENGINE_VERSION_HELP),
    mode: Optional[str] = typer.Option(None, help="replay (one at a time) or serve (discrete-event engine). Default: serve when timestamps or --rate exist."),
    page_size: Optional[int] = typer.Option(None, min=1, callback=bounded("--page-size"), help="SGLang page / vLLM block in tokens. Default: sglang 1, vllm 16; block-lru on token traffic 16."),
    block_size: int = typer.Option(512, min=1, callback=bounded("--block-size"), help="Tokens per hash_ids block."),
    warmup: float = typer.Option(0.0, min=0.0, max=1.0, callback=warmup_fraction, help="The first FRACTION of requests only warm the cache."),
    sweep: bool = typer.Option(False, "--sweep", help="Hit rate against capacity, small pool to unlimited."),
    replicas: int = typer.Option(1, min=1, callback=bounded("--replicas"), help="Replicas, each with its own pool of --capacity-tokens."),
    router: str = typer.Option("round-robin", help="round-robin, random or cache-aware."),
    tenant_budget: Optional[str] = typer.Option(None, help="Per-tenant pool shares: A=0.5,B=0.3 or equal."),
    rate: Optional[float] = typer.Option(None, help="Poisson arrivals at this many requests/s (serve mode)."),
    output_len: Optional[int] = typer.Option(None, min=1, callback=bounded("--output-len"), help="Output tokens for records without output_length (default 1)."),
    max_running: int = typer.Option(256, min=1, callback=bounded("--max-running"), help="Running requests per replica (serve)."),
    max_prefill_tokens: int = typer.Option(16384, min=1, callback=bounded("--max-prefill-tokens"), help="Prefill token budget per step (serve)."),
    prefill_token_seconds: Optional[float] = typer.Option(None, help="Fixed seconds per prefill token instead of the catalog's timings."),
    decode_step_seconds: Optional[float] = typer.Option(None, help="Fixed seconds per decode step instead of the catalog's timings."),
    timestamp_unit: str = typer.Option("auto", help=TIMESTAMP_UNIT_HELP),
    seed: int = typer.Option(0, help="Seed for random policies, routers and arrivals."),
    requests: Optional[int] = typer.Option(None, min=1, callback=bounded("--requests"), help="Requests of a --workload."),
    input_format: str = typer.Option("auto", help=INPUT_FORMAT_HELP),
    format: str = typer.Option("text", "--format", "-f", help="text, json, markdown, or sarif or github "
                               "(the TR401/TR501 findings as SARIF 2.1.0 or GitHub annotations)."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write the report to this file."),
) -> None:
    """Hit rate under a finite KV pool: eviction, scheduling, replicas and tenants."""
    check_format(format, (*FORMATS, *ANNOTATION_FORMATS))
    check_output(output, [*(traffic or []), *([chat_template] if chat_template else []), *model_inputs(model, model_dir)])
    check_timestamp_unit(timestamp_unit)
    skips = SkipLog()  # the first skipped lines on stderr as they happen
    result = simulate(traffic or None, workload=workload, tokenizer=tokenizer, chat_template=chat_template,
                      model_dir=model_dir, timezone=timezone, templates=templates, capacity_tokens=capacity_tokens,
                      model=model, gpu=gpu, tp=tp, kv_dtype=kv_dtype, retention_interval=retention_interval,
                      mamba_strategy=mamba_strategy, weight_dtype=weight_dtype, mfu=mfu,
                      bandwidth_util=bandwidth_util, policy=policy, eviction=eviction, engine=engine,
                      engine_version=engine_version, mode=mode, page_size=page_size, block_size=block_size,
                      warmup=warmup, sweep=sweep, replicas=replicas, router=router, tenant_budget=tenant_budget,
                      rate=rate, output_len=output_len, max_running=max_running,
                      max_prefill_tokens=max_prefill_tokens, prefill_token_seconds=prefill_token_seconds,
                      decode_step_seconds=decode_step_seconds, timestamp_unit=timestamp_unit, seed=seed,
                      requests=requests, input_format=input_format, on_skip=skips,
                      progress=then(with_progress, skips.summary),  # the summary once the traffic is read
                      release_tokenizer=standalone())
    _emit_report(format, output, result)
    if result.skipped_count:
        raise typer.Exit(1)


def _emit_report(format: str, output: Path | None, result: SimulateResult) -> None:
    from advisor.verify import render as verify_render

    data = result.data
    extra = data.get("observed")
    if format in ANNOTATION_FORMATS:
        from advisor.commands import annotate  # the linter's renderers, for these formats only

        emit(annotate.renderers(lambda: result.findings, result.files)[format](), output)
    elif format == "json":
        emit(result.to_json(), output)
    elif format == "markdown" or output is not None:
        emit(to_markdown(data) + _bound_note(data) + ("\n" + verify_render.to_markdown(extra, "##") if extra else ""),
             output)
    else:
        emit(to_text(data) + _bound_note(data) + ("\n" + verify_render.to_text(extra) if extra else ""), None)


def _bound_note(data: dict[str, Any]) -> str:
    """Why the optimal bound has one row whatever the policies asked for (the table names it
    by the order it replays in)."""
    if not any(r.get("policy_independent") for r in data["runs"]):
        return ""
    return ("\noptimal: the offline bound replays the requests one at a time in arrival order whatever "
            "--policy and --mode, so its one row (fcfs, replay) stands for every policy.\n")
