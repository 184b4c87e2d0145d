"""`advisor simulate`: replay traffic through a KV pool of finite capacity."""

from __future__ import annotations

from array import array
from pathlib import Path
from typing import Iterator, List, Optional

import typer

from advisor.cli import app
from advisor.commands.bounds import TIMESTAMP_UNIT_HELP, bounded, check_timestamp_unit, warmup_fraction
from advisor.commands.common import ANNOTATION_FORMATS, FORMATS, INPUT_FORMAT_HELP, SkipLog, check_format, check_output, emit, open_traffic, with_progress
from advisor.errors import AdvisorError
from advisor.findings import Finding
from advisor.ingest.pipeline import Sequence
from advisor.ingest.preprocess import DEFAULT_ENGINE, ENGINE_VERSION_HELP, engine_spec
from advisor.ingest.source import MODEL_DIR_HELP, TIMEZONE_HELP, resolve_tokenizer, tokenizer_warning
from advisor.ingest.preprocess import ENGINES as PREPROCESS_ENGINES
from advisor.simulate.inputs import to_jobs
from advisor.verify.attribution import align, verify
from advisor.verify.collect import dropping, watch, without
from advisor.verify.compare import Observed, compare
from advisor.simulate.jobs import JobStore
from advisor.cost.catalog import DEFAULT_MFU
from advisor.cost.compute import DEFAULT_BANDWIDTH_UTIL
from advisor.simulate.model import (
    DEFAULT_GPU, DEFAULT_MODEL, ENGINE_EVICTION, ENGINE_PAGE, ENGINES, EVICTIONS, MODES, POLICIES, ROUTERS, CostModel,
)
from advisor.simulate.report import simulate_dict, to_json, to_markdown, to_text
from advisor.simulate.runner import (
    BlockIndexes, RunResult, RunSpec, parse_budget, pressure_findings, starvation_findings, sweep_capacities,
    with_budget,
)
from advisor.simulate.study import Study


def _choices(text: str | None, allowed: tuple[str, ...], option: str) -> list[str]:
    if not text:
        return []
    items = [p.strip() for p in text.split(",") if p.strip()]
    for item in items:
        if item not in allowed:
            raise AdvisorError(f"unknown {option} '{item}': use {', '.join(allowed)}")
    return list(dict.fromkeys(items))


def _capacity(capacity_tokens: int | None, model: str | None, gpu: str | None, engine: str, tp: int,
              kv_dtype: str, weight_dtype: str | None) -> int | None:
    if capacity_tokens is not None:
        return capacity_tokens
    if model or gpu:
        from advisor.cost import pool_capacity_tokens

        return pool_capacity_tokens(model or "", gpu or "", tp=tp, kv_dtype=kv_dtype,
                                    engine="vllm" if engine == "vllm" else "sglang", weight_dtype=weight_dtype)
    return None


def _timings(model: str | None, gpu: str | None, tp: int, kv_dtype: str, weight_dtype: str | None, mfu: float,
             bandwidth_util: float, prefill_token_seconds: float | None,
             decode_step_seconds: float | None) -> CostModel:
    """The serve-mode timings: the catalog's for --model/--gpu (default Llama 3.1 8B on one
    H100); --prefill-token-seconds / --decode-step-seconds replace them with fixed figures."""
    from advisor.cost import engine_timings, resolve_gpu, resolve_model

    for name, value in (("--prefill-token-seconds", prefill_token_seconds),
                        ("--decode-step-seconds", decode_step_seconds)):
        if value is not None and not 0 <= value < float("inf"):  # also refuses nan
            raise AdvisorError(f"{name} must be a non-negative number (got {value})")
    timings = engine_timings(resolve_model(model or DEFAULT_MODEL), resolve_gpu(gpu or DEFAULT_GPU), tp=tp,
                             kv_dtype=kv_dtype, weight_dtype=weight_dtype, mfu=mfu, bandwidth_util=bandwidth_util)
    if prefill_token_seconds is None and decode_step_seconds is None:
        return timings
    p = timings.prefill_token_s if prefill_token_seconds is None else prefill_token_seconds
    d = timings.decode_step_s if decode_step_seconds is None else decode_step_seconds
    return CostModel(p, d, description=f"fixed: {p:g} s per prefill token, {d:g} s per decode step")


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
    tokenizer = resolve_tokenizer(tokenizer, model_dir)
    if model is None and gpu is not None and model_dir is not None:
        from advisor.ingest.model_dir import config_of

        # The folder's architecture sizes the pool; checked, and confined wherever it is read.
        found = config_of(model_dir)
        model = str(found) if found is not None else None
    tokenizer_warning(tokenizer, model)
    _check_options(format, output, [*(traffic or []), *([chat_template] if chat_template else [])], engine, router,
                   timestamp_unit, rate, model, gpu)
    cost = _timings(model, gpu, tp, kv_dtype, weight_dtype, mfu, bandwidth_util, prefill_token_seconds,
                    decode_step_seconds)
    policies = _choices(policy, POLICIES, "--policy") or ["fcfs"]
    evictions = _choices(eviction, EVICTIONS, "--eviction") or [ENGINE_EVICTION[engine]]
    skips = SkipLog()
    observed = Observed()
    inputs: dict = {"engine": engine, "block_size": block_size}
    if workload is not None:
        jobs = _workload_jobs(workload, traffic, requests, seed, rate, output_len, inputs)
        has_time = True
        if capacity_tokens is None and not (model or gpu) and not sweep:
            capacity_tokens = _default_capacity(jobs)
        if policy == "fcfs":
            policies = _workload_policies()
    else:
        # The hit rules' engine is also the one whose request preprocessing renders the
        # traffic; with no engine's hit rules, the default engine's preprocessing.
        seqs = _traffic(traffic, tokenizer, chat_template, templates, block_size, skips, input_format, model_dir,
                        timezone, engine_spec(engine if engine in PREPROCESS_ENGINES else DEFAULT_ENGINE, engine_version))
        job_skip, dropped = dropping(observed, skips)
        jobs, has_time = to_jobs(watch(with_progress(seqs, "simulate"), observed), output_len, rate, timestamp_unit, seed,
                                 on_skip=job_skip)
        observed = without(observed, dropped)
        skips.summary()
        inputs.update({"files": [str(p) for p in traffic or []], "tokenizer": tokenizer})
    if not jobs:
        raise AdvisorError("no requests to simulate")
    run_mode = _run_mode(mode, has_time, rate)
    page = page_size or _default_page(engine, evictions, jobs)
    capacity = _capacity(capacity_tokens, model, gpu, engine, tp, kv_dtype, weight_dtype)
    tenants = jobs.tenants()
    budget = parse_budget(tenant_budget, tenants, finite=capacity is not None)
    base = RunSpec(engine=engine, capacity=capacity, page=page, mode=run_mode, warmup=warmup,
                   replicas=replicas, router=router, max_running=max_running,
                   max_prefill_tokens=max_prefill_tokens, cost=cost, seed=seed)
    inputs.update({"mode": run_mode, "page_size": page, "warmup": warmup, "requests": len(jobs),
                   "timings": cost.description})
    if model:
        inputs.update({"model": model, "gpu": gpu, "tp": tp, "kv_dtype": kv_dtype, "weight_dtype": weight_dtype})
    study = Study(jobs)  # each distinct configuration replayed once
    results, per_run, findings = _runs(study, base, evictions, policies, tenants, budget, len(observed) > 0)
    sweep_results = _sweep(study, base, evictions, policies, budget) if sweep else None
    data = simulate_dict(results, inputs, sweep_results, findings, skips.count)
    if len(observed):
        _observed(data, jobs, observed, results, per_run, study.indexes)
    _emit_report(format, output, data, findings, [str(p) for p in traffic or []])
    if skips.count:
        raise typer.Exit(1)


def _check_options(format: str, output: Path | None, inputs: list[Path], engine: str, router: str,
                   timestamp_unit: str, rate: float | None, model: str | None, gpu: str | None) -> None:
    """The options checked before any traffic is read, so a typo does not cost a whole load."""
    check_format(format, (*FORMATS, *ANNOTATION_FORMATS))
    check_output(output, inputs)
    if engine not in ENGINES:
        raise AdvisorError(f"unknown --engine '{engine}': use {', '.join(ENGINES)}")
    if router not in ROUTERS:
        raise AdvisorError(f"unknown --router '{router}': use {', '.join(ROUTERS)}")
    check_timestamp_unit(timestamp_unit)
    if rate is not None and not rate > 0:
        raise AdvisorError("--rate must be positive")
    if bool(model) != bool(gpu):
        raise AdvisorError("--model and --gpu go together (or give --capacity-tokens)")


def _workload_jobs(workload: str, traffic: list[Path] | None, requests: int | None, seed: int, rate: float | None,
                   output_len: int | None, inputs: dict) -> JobStore:
    """The requests of a bundled workload spec (``--workload``)."""
    if traffic:
        raise AdvisorError("give traffic files or --workload, not both")
    from advisor.simulate.workloads import build_workload

    jobs = build_workload(workload, requests=requests, seed=seed, rate=rate, output_len=output_len)
    inputs.update({"workload": workload, "files": []})
    return jobs


def _default_capacity(jobs: JobStore) -> int:
    from advisor.simulate.workloads import default_capacity

    return default_capacity(jobs)


def _workload_policies() -> list[str]:
    """A workload's schedulers when none is chosen: the ones its small pool tells apart."""
    from advisor.simulate.workloads import WORKLOAD_DEFAULTS

    return list(WORKLOAD_DEFAULTS["policies"])


def _traffic(traffic: list[Path] | None, tokenizer: str, chat_template: Path | None, templates: Path | None,
             block_size: int, skips: SkipLog, input_format: str, model_dir: Path | None, timezone: str,
             engine: str) -> Iterator[Sequence]:
    if not traffic:
        raise AdvisorError("give traffic files, or --workload NAME (a bundled spec, e.g. rag or scrambled)")
    return open_traffic(list(traffic), tokenizer, chat_template, templates, block_size, skips,
                        input_format=input_format, model_dir=model_dir, timezone=timezone, engine=engine)


def _run_mode(mode: str | None, has_time: bool, rate: float | None) -> str:
    """--mode, or serve when the requests have arrival times (logged or --rate)."""
    run_mode = mode or ("serve" if (has_time or rate is not None) else "replay")
    if run_mode not in MODES:
        raise AdvisorError(f"unknown --mode '{run_mode}': use {', '.join(MODES)}")
    return run_mode


def _runs(study: Study, base: RunSpec, evictions: list[str], policies: list[str], tenants: list[str],
          budget: tuple[tuple[str, float], ...] | None,
          per_request: bool) -> tuple[list[RunResult], list[array | None], list[Finding]]:
    """One run per (eviction, policy), each with its tenant-budget twin when several tenants
    share a finite pool (TR501), then TR401 against unlimited capacity. ``per_request``: keep
    each run's cached tokens per request (to compare with observed counts)."""
    results: list[RunResult] = []
    findings: list[Finding] = []
    per_run: list[array | None] = []
    for ev in evictions:
        for pol in policies:
            spec = _spec(base, pol, ev)
            per = array("q", bytes(8 * len(study.jobs))) if per_request else None
            shared = study.run(spec, per)
            results.append(shared)
            per_run.append(per)
            if len(tenants) >= 2 and base.capacity is not None and ev != "optimal":
                twin = study.run(with_budget(spec, budget or parse_budget("equal", tenants) or ()))
                results.append(twin)
                per_run.append(None)
                findings += starvation_findings(shared, twin)
    if base.capacity is not None:
        ceiling = study.run(_spec(base, "fcfs", "branch-lru", None)).totals.hit_rate
        findings += pressure_findings(results, ceiling)
    return results, per_run, findings


def _sweep(study: Study, base: RunSpec, evictions: list[str], policies: list[str],
           budget: tuple[tuple[str, float], ...] | None) -> list[RunResult]:
    """Every run again at each capacity of the sweep. Each point also gets the offline optimal
    bound (one run: it has no policy), so the sweep shows whether a gap is the policy's or
    the memory's."""
    out = []
    for cap in sweep_capacities(study.jobs, base.rules):
        out += [study.run(_spec(base, pol, ev, cap)) for ev in evictions for pol in policies if ev != "optimal"]
        if base.replicas == 1 and not budget:
            out.append(study.run(_spec(base, "fcfs", "optimal", cap)))
    return out


def _emit_report(format: str, output: Path | None, data: dict, findings: list[Finding], files: list[str]) -> None:
    from advisor.verify import render as verify_render

    extra = data.get("observed")
    if format in ANNOTATION_FORMATS:
        from advisor.commands import annotate  # the linter's renderers, for these formats only

        emit(annotate.renderers(lambda: findings, files)[format](), output)
    elif format == "json":
        emit(to_json(data), output)
    elif format == "markdown" or output is not None:
        emit(to_markdown(data) + ("\n" + verify_render.to_markdown(extra, "##") if extra else ""), output)
    else:
        emit(to_text(data) + ("\n" + verify_render.to_text(extra) if extra else ""), None)


def _observed(data: dict, jobs: JobStore, observed: Observed, results: list[RunResult],
              per_run: list[array | None], indexes: BlockIndexes) -> None:
    """Observed counts in the records: each run's error against them, and for the first
    run the gap split (advisor verify's report)."""
    for r, per, out in zip(results, per_run, data["runs"]):
        if per is None:
            continue
        got = align(observed, jobs, r.spec.warmup)
        out["observed"] = compare(got.observed, [per[a] for a in got.arrival], top=5)
    data["observed"] = verify(jobs, observed, results[0].spec, results[0].spec.mode == "serve", indexes)


def _spec(base: RunSpec, policy: str, eviction: str, capacity: int | None | str = "same") -> RunSpec:
    from dataclasses import replace

    if capacity == "same":
        return replace(base, policy=policy, eviction=eviction)
    return replace(base, policy=policy, eviction=eviction, capacity=capacity)  # type: ignore[arg-type]


def _default_page(engine: str, evictions: list[str], jobs: JobStore) -> int:
    """The engine's page; with no engine, 16-token blocks for block-LRU on token traffic
    (one block per token would be a different, far slower model), else 1."""
    if engine != "none":
        return ENGINE_PAGE[engine]
    if "block-lru" in evictions and jobs.has_token_traffic():
        return ENGINE_PAGE["vllm"]
    return 1
