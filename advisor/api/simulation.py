"""``simulate``: the hit rate under a finite KV pool (eviction, scheduling, replicas, tenants)."""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from advisor.api.architecture import geometry_for, model_for
from advisor.api.checks import checked
from advisor.api.bounds import check_options, check_timestamp_unit, warmup_fraction
from advisor.api.sources import Progress, Result, SkipCollector, SkipHook, Traffic, passthrough, shown_names, \
    traffic_sources, with_skips
from advisor.cost.catalog import DEFAULT_MFU
from advisor.cost.compute import DEFAULT_BANDWIDTH_UTIL
from advisor.errors import AdvisorError
from advisor.findings import Finding
from advisor.index.radix import free_trees
from advisor.ingest.decoder import release_tokenizer as released
from advisor.ingest.pipeline import Sequence as Seq
from advisor.ingest.preprocess import DEFAULT_ENGINE, ENGINES as PREPROCESS_ENGINES, engine_spec
from advisor.ingest.source import open_traffic, resolve_tokenizer, tokenizer_warning
from advisor.ingest.traffic import Records
from advisor.report.notebook import simulation_html
from advisor.simulate.inputs import to_jobs
from advisor.simulate.jobs import JobStore
from advisor.simulate.model import (
    DEFAULT_GPU, DEFAULT_MODEL, ENGINE_EVICTION, ENGINE_PAGE, ENGINES, EVICTIONS, MODES, POLICIES, ROUTERS, CostModel,
    Job,
)
from advisor.simulate.report import simulate_dict, to_json
from advisor.simulate.runner import (
    OPTIMAL, BlockIndexes, Largest, RunResult, RunSpec, check_capacity, parse_budget, pressure_findings,
    request_tokens, starvation_findings, sweep_capacities, with_budget,
)
from advisor.simulate.study import Study, configuration
from advisor.verify.attribution import align, verify
from advisor.verify.collect import dropping, watch, without
from advisor.verify.compare import Observed, compare

Budget = tuple[tuple[str, float], ...]


@dataclass
class SimulateResult(Result):
    """What ``simulate`` replayed: ``data`` is ``advisor simulate --format json``.

    ``runs`` are the runs in the JSON's order (each eviction and scheduler; a tenant-budget
    twin after a run when tenants share a finite pool), ``sweep`` the sweep's runs,
    ``findings`` the TR401/TR501 findings and ``files`` the traffic as the report names it."""

    runs: list[RunResult] = field(default_factory=list)
    sweep: list[RunResult] | None = None
    findings: list[Finding] = field(default_factory=list)
    files: list[str] = field(default_factory=list)

    @property
    def hit_rate(self) -> float:
        """The first run's hit rate (rounded to 6 places, as in the JSON)."""
        return float(self.data["runs"][0]["hit_rate"])

    @property
    def requests(self) -> int:
        """Requests simulated (warm-up included)."""
        return int(self.data["input"]["requests"])

    @property
    def prompt_tokens(self) -> int:
        """The first run's measured prompt tokens (after the warm-up)."""
        return int(self.data["runs"][0]["prompt_tokens"])

    @property
    def cached_tokens(self) -> int:
        """The first run's cached tokens."""
        return int(self.data["runs"][0]["cached_tokens"])

    @property
    def hit_rates(self) -> dict[tuple[str, str], float]:
        """Each run's hit rate by (eviction, policy); the tenant-budget twins left out."""
        out: dict[tuple[str, str], float] = {}
        for run in self.data["runs"]:
            if not run.get("tenant_budget"):
                out.setdefault((run["eviction"], run["policy"]), float(run["hit_rate"]))
        return out

    def _json(self) -> str:
        return to_json(self.data)

    def _repr_html_(self) -> str:
        return simulation_html(self.data)


def _choices(given: str | Sequence[str] | None, allowed: tuple[str, ...], option: str) -> list[str]:
    if not given:
        return []
    if not isinstance(given, (str, Sequence)) or not all(isinstance(p, str) for p in given):
        raise AdvisorError(f"{option}: give a comma-separated string or a list of strings (got {given!r:.60})")
    parts = given.split(",") if isinstance(given, str) else list(given)
    items = [p.strip() for p in parts if p.strip()]
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
    """The serve-mode timings: the catalog's for model/gpu (default Llama 3.1 8B on one
    H100); ``prefill_token_seconds`` / ``decode_step_seconds`` replace them with fixed figures."""
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


def _check_options(engine: str, router: str, rate: float | None, model: str | None, gpu: str | None,
                   capacity: int | None = None) -> None:
    """The options checked before any traffic is read, so a typo does not cost a whole load."""
    if engine not in ENGINES:
        raise AdvisorError(f"unknown --engine '{engine}': use {', '.join(ENGINES)}")
    if router not in ROUTERS:
        raise AdvisorError(f"unknown --router '{router}': use {', '.join(ROUTERS)}")
    if rate is not None and not rate > 0:
        raise AdvisorError("--rate must be positive")
    if bool(model) != bool(gpu) and capacity is None:
        raise AdvisorError("--model and --gpu go together (or give --capacity-tokens)")


def _workload_jobs(workload: str, sources: list[Path | Records], requests: int | None, seed: int, rate: float | None,
                   output_len: int | None, inputs: dict[str, Any]) -> JobStore:
    """The requests of a bundled workload spec (``--workload``)."""
    if sources:
        raise AdvisorError("give traffic files or --workload, not both")
    from advisor.simulate.workloads import build_workload

    jobs = build_workload(workload, requests=requests, seed=seed, rate=rate, output_len=output_len)
    inputs.update({"workload": workload, "files": []})
    return jobs


def _run_mode(mode: str | None, has_time: bool, rate: float | None) -> str:
    """``mode``, or serve when the requests have arrival times (logged or ``rate``)."""
    run_mode = mode or ("serve" if (has_time or rate is not None) else "replay")
    if run_mode not in MODES:
        raise AdvisorError(f"unknown --mode '{run_mode}': use {', '.join(MODES)}")
    return run_mode


def _spec(base: RunSpec, policy: str, eviction: str, capacity: int | None | str = "same") -> RunSpec:
    if capacity == "same":
        return replace(base, policy=policy, eviction=eviction)
    return replace(base, policy=policy, eviction=eviction, capacity=capacity)  # type: ignore[arg-type]


def _replay(study: Study, spec: RunSpec, per_request: array | None = None) -> RunResult:
    """``study.run``, and the replay's garbage collected before the next one: a radix tree's
    nodes point at their parents, so only the cycle collector frees a finished run's tree, and
    left to its own pace it lets several pile up (a sweep of 3 evictions on a 10,000-request
    RAG log peaked at 673 MiB, 589 MiB with each tree collected as its run ends)."""
    replays = study.replays
    result = study.run(spec, per_request)
    if study.replays != replays:
        free_trees(result.totals.prompt_tokens)
    return result


def _runs(study: Study, base: RunSpec, evictions: list[str], policies: list[str], tenants: list[str],
          budget: Budget | None, per_request: bool) -> tuple[list[RunResult], list[array | None], list[Finding]]:
    """One run per (eviction, policy), each with its tenant-budget twin when several tenants
    share a finite pool (TR501), then TR401 against unlimited capacity. ``per_request``: keep
    each run's cached tokens per request (to compare with observed counts)."""
    results: list[RunResult] = []
    findings: list[Finding] = []
    per_run: list[array | None] = []
    shown: set[RunSpec] = set()
    for ev in evictions:
        for pol in policies:
            spec = _spec(base, pol, ev)
            if configuration(spec) in shown:
                # The same run under another policy's name (the optimal bound replays in
                # arrival order whatever the policy): its figures are already a row.
                continue
            shown.add(configuration(spec))
            per = array("q", bytes(8 * len(study.jobs))) if per_request else None
            shared = _replay(study, spec, per)
            results.append(shared)
            per_run.append(per)
            if len(tenants) >= 2 and base.capacity is not None and ev != "optimal":
                twin = _replay(study, with_budget(spec, budget or parse_budget("equal", tenants) or ()))
                results.append(twin)
                per_run.append(None)
                findings += starvation_findings(shared, twin)
    if base.capacity is not None:
        ceiling = _replay(study, _spec(base, "fcfs", "branch-lru", None)).totals.hit_rate
        findings += pressure_findings(results, ceiling)
    return results, per_run, findings


def _sweep(study: Study, base: RunSpec, evictions: list[str], policies: list[str],
           budget: Budget | None) -> list[RunResult]:
    """Every run again at each capacity of the sweep. Each point also gets the offline optimal
    bound (one run: it has no policy), so the sweep shows whether a gap is the policy's or
    the memory's."""
    out = []
    for cap in sweep_capacities(study.jobs, base.rules, mode=base.mode):
        out += [_replay(study, _spec(base, pol, ev, cap)) for ev in evictions for pol in policies if ev != "optimal"]
        if base.replicas == 1 and not budget:
            out.append(_replay(study, _spec(base, "fcfs", "optimal", cap)))
    return out


class _LargestRequest:
    """The request that needs the most of the pool in each mode, noted as the traffic
    streams into the job store, with the file and line it came from (the store keeps no
    lines, and keeping one per request would cost memory on large logs)."""

    def __init__(self, output_len: int | None) -> None:
        self.output_len = output_len
        self.found: dict[str, Largest] = {}

    def watch(self, seqs: Iterable[Seq]) -> Iterator[Seq]:
        for seq in seqs:
            try:
                # The job ``to_jobs`` makes of it, so the sizes are the simulator's own.
                job = Job.from_sequence(0, seq, 0.0, self.output_len)
            except Exception:  # to_jobs skips this record, with its reason
                job = None
            if job is not None:
                self.add(job, seq.request.where)
            yield seq

    def add(self, job: Job, where: str | None) -> None:
        for mode in MODES:
            tokens = request_tokens(job, mode)
            got = self.found.get(mode)
            if got is None or tokens > got.tokens:
                self.found[mode] = Largest(tokens, request_tokens(job), where)


def _pool_label(capacity_tokens: int | None, model: str | None, gpu: str | None) -> str | None:
    """What names a capacity the user chose (None: advisor chose it, or there is none)."""
    if capacity_tokens is not None:
        return "--capacity-tokens"
    if model and gpu:
        return f"the KV pool of {model} on {gpu}"
    return None


def _mark_policy_independent(data: dict[str, Any], results: list[RunResult],
                             sweep: list[RunResult] | None) -> None:
    """``policy_independent`` on the optimal bound's rows: it replays in arrival order
    whatever the policy (``runner.optimal_result``), so its one row (named fcfs, the order
    it uses) stands for every policy asked for."""
    for row, r in [*zip(data["runs"], results), *zip(data.get("sweep") or [], sweep or [])]:
        if r.spec.eviction == OPTIMAL:
            row["policy_independent"] = True


def _observed(data: dict[str, Any], jobs: JobStore, observed: Observed, results: list[RunResult],
              per_run: list[array | None], indexes: BlockIndexes) -> None:
    """Observed counts in the records: each run's error against them, and for the first
    run the gap split (advisor verify's report)."""
    for r, per, out in zip(results, per_run, data["runs"]):
        if per is None:
            continue
        got = align(observed, jobs, r.spec.warmup)
        out["observed"] = compare(got.observed, [per[a] for a in got.arrival], top=5)
    data["observed"] = verify(jobs, observed, results[0].spec, results[0].spec.mode == "serve", indexes)


def _default_page(engine: str, evictions: list[str], jobs: JobStore) -> int:
    """The engine's page; with no engine, 16-token blocks for block-LRU on token traffic
    (one block per token would be a different, far slower model), else 1."""
    if engine != "none":
        return ENGINE_PAGE[engine]
    if "block-lru" in evictions and jobs.has_token_traffic():
        return ENGINE_PAGE["vllm"]
    return 1


@checked
def simulate(
    traffic: Traffic | None = None,
    *,
    workload: str | None = None,
    tokenizer: str = "llama3",
    chat_template: str | Path | None = None,
    model_dir: str | Path | None = None,
    timezone: str = "UTC",
    templates: str | Path | None = None,
    capacity_tokens: int | None = None,
    model: str | None = None,
    gpu: str | None = None,
    tp: int = 1,
    kv_dtype: str = "bf16",
    retention_interval: str | int | None = 0,
    mamba_strategy: str | None = None,
    weight_dtype: str | None = None,
    mfu: float = DEFAULT_MFU,
    bandwidth_util: float = DEFAULT_BANDWIDTH_UTIL,
    policy: str | Sequence[str] = "fcfs",
    eviction: str | Sequence[str] | None = None,
    engine: str = "none",
    engine_version: str | None = None,
    mode: str | None = None,
    page_size: int | None = None,
    block_size: int = 512,
    warmup: float = 0.0,
    sweep: bool = False,
    replicas: int = 1,
    router: str = "round-robin",
    tenant_budget: str | None = None,
    rate: float | None = None,
    output_len: int | None = None,
    max_running: int = 256,
    max_prefill_tokens: int = 16384,
    prefill_token_seconds: float | None = None,
    decode_step_seconds: float | None = None,
    timestamp_unit: str = "auto",
    seed: int = 0,
    requests: int | None = None,
    input_format: str = "auto",
    on_skip: SkipHook | None = None,
    progress: Progress | None = None,
    release_tokenizer: bool = False,
) -> SimulateResult:
    """Replay the traffic (or a bundled ``workload``) through a KV pool of finite capacity.

    ``traffic``: a path, a list of paths, or records. The options are ``advisor simulate``'s,
    with its defaults; ``policy`` and ``eviction`` take a comma-separated string or a list
    (eviction None: the engine's). ``on_skip``, ``progress`` and ``release_tokenizer`` as for
    ``analyze`` (the tokenizer let go once the traffic is read: the replays' trees grow into its
    memory). Raises ``AdvisorError`` with the command's one-line messages."""
    check_options(capacity_tokens=capacity_tokens, tp=tp, page_size=page_size, block_size=block_size,
                  replicas=replicas, output_len=output_len, max_running=max_running,
                  max_prefill_tokens=max_prefill_tokens, requests=requests)
    warmup_fraction(warmup)
    check_timestamp_unit(timestamp_unit)
    folder = Path(model_dir) if model_dir is not None else None
    tokenizer = resolve_tokenizer(tokenizer, folder)
    if model is None and gpu is not None and folder is not None:
        from advisor.ingest.model_dir import config_of

        # The folder's architecture sizes the pool; checked, and confined wherever it is read.
        found = config_of(folder)
        model = str(found) if found is not None else None
    tokenizer_warning(tokenizer, model)
    _check_options(engine, router, rate, model, gpu, capacity_tokens)
    cost = _timings(model, gpu, tp, kv_dtype, weight_dtype, mfu, bandwidth_util, prefill_token_seconds,
                    decode_step_seconds)
    policies = _choices(policy, POLICIES, "--policy") or ["fcfs"]
    evictions = _choices(eviction, EVICTIONS, "--eviction") or [ENGINE_EVICTION[engine]]
    skips = SkipCollector(forward=on_skip)
    observed = Observed()
    # A capacity the user chose must hold the largest request (the workload's default pool
    # below is advisor's choice, sized for the workload).
    pool_label = _pool_label(capacity_tokens, model, gpu)
    largest = _LargestRequest(output_len)
    inputs: dict[str, Any] = {"engine": engine, "block_size": block_size}
    sources = traffic_sources(traffic) if traffic is not None else []
    if workload is not None:
        jobs = _workload_jobs(workload, sources, requests, seed, rate, output_len, inputs)
        has_time = True
        if capacity_tokens is None and not (model or gpu) and not sweep:
            from advisor.simulate.workloads import default_capacity

            capacity_tokens = default_capacity(jobs)
        if policy == "fcfs" or (not isinstance(policy, str) and list(policy) == ["fcfs"]):
            from advisor.simulate.workloads import WORKLOAD_DEFAULTS

            # A workload's schedulers when none is chosen: the ones its small pool tells apart.
            policies = list(WORKLOAD_DEFAULTS["policies"])
    else:
        if not sources:
            raise AdvisorError("give traffic files, or --workload NAME (a bundled spec, e.g. rag or scrambled)")
        # The hit rules' engine is also the one whose request preprocessing renders the
        # traffic; with no engine's hit rules, the default engine's preprocessing.
        seqs = open_traffic(sources, tokenizer, Path(chat_template) if chat_template is not None else None,
                            Path(templates) if templates is not None else None, block_size, skips,
                            input_format=input_format, model_dir=folder, timezone=timezone,
                            engine=engine_spec(engine if engine in PREPROCESS_ENGINES else DEFAULT_ENGINE,
                                               engine_version))
        job_skip, dropped = dropping(observed, skips)
        shown = (progress or passthrough)(seqs, "simulate")
        if pool_label is not None:  # sizes noted only where a chosen pool must hold them
            shown = largest.watch(shown)
        jobs, has_time = to_jobs(watch(shown, observed), output_len, rate, timestamp_unit, seed, on_skip=job_skip)
        observed = without(observed, dropped)
        inputs.update({"files": shown_names(sources), "tokenizer": tokenizer})
        del seqs
        if release_tokenizer:
            released(tokenizer)  # the jobs are tokenized: nothing decodes from here on
    if not jobs:
        raise AdvisorError("no requests to simulate")
    run_mode = _run_mode(mode, has_time, rate)
    page = page_size or _default_page(engine, evictions, jobs)
    # The engine's windows and states on the model; vLLM's pool then holds whole hybrid blocks.
    geometry = geometry_for(model_for(model, folder), engine, page_size=page, gpu=gpu, block_size=page_size,
                            tp=tp, kv_dtype=kv_dtype, retention=retention_interval,
                            mamba_strategy=mamba_strategy) if engine != "none" else None
    if geometry is not None:
        page = geometry.block
        inputs["architecture"] = {"rule": geometry.rule, "block_tokens": geometry.block,
                                  "checkpoint_grid_tokens": geometry.checkpoint_grid,
                                  "groups": [g.kind for g in geometry.groups]}
    capacity = _capacity(capacity_tokens, model, gpu, engine, tp, kv_dtype, weight_dtype)
    if pool_label is not None and capacity is not None:
        if workload is not None:  # generated requests: no file to name, their place instead
            for job in jobs:
                largest.add(job, f"request {job.index + 1} of the workload")
        check_capacity(capacity, largest.found.get(run_mode), pool_label)
    tenants = jobs.tenants()
    budget = parse_budget(tenant_budget, tenants, finite=capacity is not None)
    base = RunSpec(engine=engine, capacity=capacity, page=page, mode=run_mode, warmup=warmup,
                   replicas=replicas, router=router, max_running=max_running,
                   max_prefill_tokens=max_prefill_tokens, cost=cost, seed=seed, geometry=geometry)
    inputs.update({"mode": run_mode, "page_size": page, "warmup": warmup, "requests": len(jobs),
                   "timings": cost.description})
    if model:
        inputs.update({"model": model, "gpu": gpu, "tp": tp, "kv_dtype": kv_dtype, "weight_dtype": weight_dtype})
    study = Study(jobs)  # each distinct configuration replayed once
    results, per_run, findings = _runs(study, base, evictions, policies, tenants, budget, len(observed) > 0)
    sweep_results = _sweep(study, base, evictions, policies, budget) if sweep else None
    data = simulate_dict(results, inputs, sweep_results, findings, skips.count)
    _mark_policy_independent(data, results, sweep_results)
    if len(observed):
        _observed(data, jobs, observed, results, per_run, study.indexes)
    result = SimulateResult(data, runs=results, sweep=sweep_results, findings=findings,
                            files=[str(s) for s in sources])
    return with_skips(result, skips)
