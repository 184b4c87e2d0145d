"""The go/no-go SGLang advisory: measure the traffic, audit the templates, decide.

Every figure in the advisory comes from this traffic: measured (analyze, prescribe),
simulated (simulate at the chosen GPU's pool size) or derived from the model catalog
(cost). Nothing is a rule of thumb, and no published speedup is quoted.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterator

from advisor import __version__
from advisor.index.analyze import Analyzer, served, top_branches
from advisor.ingest.source import SkipLog, make_renderer
from advisor.advise.architecture import advice as architecture_advice, geometries, measure as measure_architecture
from advisor.index.geometry import CacheGeometry
from advisor.beside import Beside, run_beside
from advisor.advise.after_fix import Alternative, Rewrite, best as best_rewrite, candidates as rewrites
from advisor.advise.engines import AT_ONCE, TIMESTAMPS, arrivals_label, compare as compare_engines
from advisor.advise.engines import assumptions as simulation_assumptions, with_output_lengths
from advisor.advise.reasoning import measure as measure_reasoning
from advisor.advise.tenants import tenant_facts
from advisor.advise.money import TrafficBills, hosted_bills, money_facts
from advisor.advise.tiers import (
    measure as measure_tiers, priced, recommended as tier_recommended, vllm_offloading_gib,
)
from advisor.advise.decide import CACHE_AWARE, Thresholds, decide as decide_facts
from advisor.cost import (
    DEFAULT_BANDWIDTH_UTIL, DEFAULT_MFU, CostEstimate, EngineTimings, GpuSpec, ModelSpec, check_tp, engine_timings,
    estimate_cost, not_fitting_message, resolve_gpu, resolve_model, smallest_fitting_tp,
)
from advisor.diagnose.detect import Diagnosis, diagnose
from advisor.errors import AdvisorError
from advisor.ingest.memo import MemoEncoder
from advisor.ingest.pipeline import Sequence, sequences
from advisor.prescribe.actions import Prescription, prescribe
from advisor.simulate.inputs import to_jobs
from advisor.simulate.jobs import JobStore
from advisor.simulate.runner import (
    RunResult, RunSpec, parse_budget, serve_metrics, starvation_findings, sweep_capacities,
)
from advisor.simulate.study import Study
from advisor.ingest.traffic import Skip, check_paths

HOSTED_MINIMUMS = (
    # provider, minimum cacheable prefix (tokens), how to place the cache point (REFERENCE.md §9.1)
    ("OpenAI", 1024, "automatic; hits count in 128-token steps; keep the first ~256 tokens identical "
                     "(routing hash) and add a prompt_cache_key per prefix family"),
    ("Anthropic (Sonnet 4.x / Opus 4-4.1)", 1024, "put one cache_control breakpoint on the last block of "
                                                  "the static prefix (tools, then system)"),
    ("Anthropic (Opus 4.5-4.6 / Haiku 4.5)", 4096, "same breakpoint; these models need 4,096 tokens"),
    ("Gemini 2.5 Flash / 3 Flash", 1024, "implicit caching; put the large common content first"),
    ("Gemini 2.5 Pro / 3 Pro", 4096, "implicit caching; put the large common content first"),
    ("DeepSeek", 64, "on by default, on disk; prefix units must match from token 0"),
)


@dataclass(frozen=True)
class ReportOptions:
    model: str = "llama-3.1-8b"
    gpu: str = "h100"
    tp: int | None = None  # None: the fewest GPUs that fit the weights (smallest_fitting_tp)
    kv_dtype: str = "bf16"
    weight_dtype: str | None = None  # None: as the model ships
    mfu: float = DEFAULT_MFU
    bandwidth_util: float = DEFAULT_BANDWIDTH_UTIL
    page_size: int = 1
    tokenizer: str = "llama3"
    chat_template: Path | None = None
    record_templates: Path | None = None
    engine: str = "sglang"  # whose request preprocessing renders the chat records
    model_dir: Path | None = None
    timezone: str = "UTC"
    block_size: int = 512
    thresholds: Thresholds = field(default_factory=Thresholds)
    controlled: bool = True  # does the team control the prompt templates?
    batch: int = 16
    # Also gather what the HTML report shows (a "views" key: the prefix tree, divergence
    # examples, the capacity curve after the prescribed fix, template excerpts). Off, the
    # facts are exactly those of the JSON report.
    views: bool = False
    # Rewrites of the traffic measured beside the prescription's (``plan``: the recipe's
    # order); the best of them is the fix the advisory decides on.
    alternatives: tuple[Alternative, ...] = ()
    # Output tokens of a request whose record logs no count (--output-len; at most the
    # request's own max_tokens); None: its max_tokens, else 1 (advisor.advise.engines).
    output_len: int | None = None
    # Poisson arrivals at this many requests/s in place of the logged timestamps (--rate).
    rate: float | None = None
    # USD per GPU-hour of the self-hosted bill (--gpu-hour-price); None: the GPU's cited
    # default in advisor/data/prices.yaml, if it has one.
    gpu_hour_price: float | None = None


# --- measurement ---------------------------------------------------------------------------

def _measure_traffic(seqs: list[Sequence], opts: ReportOptions, decode) -> dict[str, Any]:
    """The analysis of the traffic (its diagnosis runs beside the prescription's search)."""
    page = opts.page_size
    overall = Analyzer(page)
    per_file: dict[str, Analyzer] = {}
    engine_cached = 0
    repeated = 0
    bills = TrafficBills.for_traffic(seqs)  # each provider's billed tokens, in the same pass
    for seq in seqs:
        cached = bills.add(overall, seq)
        per_file.setdefault(seq.request.source, Analyzer(page)).add(seq)
        engine_cached += served(cached, seq.prompt_tokens, page)
        repeated += cached * 2 >= seq.prompt_tokens
    res = overall.result
    branches = top_branches(res, decode, 3)
    files = []
    for source in sorted(per_file):
        r = per_file[source].result
        files.append({"file": source, "requests": r.requests, "prompt_tokens": r.prompt_tokens,
                      "hit_rate": round(r.hit_rate, 6)})
    return {
        "analysis": res,
        "branches": branches,
        "files": files,
        "engine_hit_rate": engine_cached / res.prompt_tokens if res.prompt_tokens else 0.0,
        "repetition_rate": repeated / res.requests if res.requests else 0.0,
        "money": bills,
    }


def _jobs(seqs: list[Sequence], skips: SkipLog,
          opts: ReportOptions) -> tuple[list[Sequence], JobStore, dict[str, Any]]:
    """The simulator's jobs, under the per-record guard: a record ``to_jobs`` refuses is its
    line's skip and leaves the analysis too, so every section of the report covers the same
    requests. Each job's output length and arrival as ``advisor.advise.engines`` says; the
    third value is what that assumed (``simulation.assumptions``)."""
    refused: set[tuple[str, int]] = set()

    def skip(sk: Skip) -> None:
        skips(sk)
        refused.add((sk.source, sk.line))

    jobs, has_time = to_jobs(with_output_lengths(seqs, opts.output_len), rate=opts.rate, on_skip=skip)
    if refused:
        seqs = [s for s in seqs if (s.request.source, s.request.line) not in refused]
    return seqs, jobs, simulation_assumptions(seqs, opts.output_len, opts.rate, has_time)


def _base(has_time: bool, page: int, timings: EngineTimings | None,
          geometries: dict[str, CacheGeometry] | None) -> RunSpec:
    """The advisory's SGLang run: its hit rules on the model's windows and states, whole-leaf
    LRU, serve mode when the requests have arrival times."""
    sglang = (geometries or {}).get("sglang")
    spec = RunSpec(engine="sglang", page=page, mode="serve" if has_time else "replay", eviction="branch-lru",
                   geometry=sglang if sglang is not None and not sglang.is_dense else None)
    return spec if timings is None else replace(spec, cost=timings)


def sweep_points(jobs: JobStore, has_time: bool, pools: dict[str, int], page: int,
                 geometries: dict[str, CacheGeometry] | None = None) -> list[int]:
    """The capacity curve's finite pool sizes: where today's curve bends, and the GPU's pool."""
    base = _base(has_time, page, None, geometries)
    caps = sweep_capacities(jobs, base.rules, mode=base.mode)
    return sorted({c for c in caps if c is not None} | {pools["sglang"]})


def _simulate(jobs: JobStore, has_time: bool, pools: dict[str, int], page: int,
              timings: EngineTimings, geometries: dict[str, CacheGeometry] | None,
              capacities: list[int], arrivals: str | None = None) -> dict[str, Any]:
    """Every simulated figure of the advisory; ``capacities``: the sweep's pool sizes
    (``sweep_points`` of today's traffic, so the after-fix curve shares its points)."""
    pool_tokens = pools["sglang"]
    mode = "serve" if has_time else "replay"
    base = _base(has_time, page, timings, geometries)
    study = Study(jobs)  # each distinct configuration replayed once
    caps = sweep_capacities(jobs, base.rules, mode=mode)  # this traffic's own working set

    def engines() -> tuple[dict[str, Any], dict[str, Any]]:
        # Beside the curve (advisor.beside): its own study where it runs in a child,
        # so the runs it shares with the curve are replayed twice there.
        return (compare_engines(jobs, pools, timings, page, study, arrivals or (TIMESTAMPS if has_time else AT_ONCE),
                                geometries),
                measure_tiers(study, base, pools, timings, geometries))

    curve, (engine_facts, tiers) = run_beside(lambda: _curve(study, base, capacities + [None]), engines)
    # The pool's runs, the unlimited one and the optimal bound are points of the curve.
    at_pool: dict[str, RunResult] = {
        policy: study.run(replace(base, policy=policy, capacity=pool_tokens))
        for policy in ("fcfs", CACHE_AWARE)
    }
    unlimited = study.run(replace(base, policy="fcfs", capacity=None))
    optimal = study.run(replace(base, eviction="optimal", capacity=pool_tokens))
    tenants = jobs.tenants()
    starvation: list[dict[str, Any]] = []
    if len(tenants) >= 2:
        spec = replace(base, policy="fcfs", capacity=pool_tokens)
        budget = parse_budget("equal", tenants) or ()
        starvation = [f.to_dict() for f in
                      starvation_findings(at_pool["fcfs"], study.run(replace(spec, tenant_budget=budget)))]
    return {
        "mode": mode,
        "curve": curve,
        "at_pool": {p: _run_summary(r, mode) for p, r in at_pool.items()},
        "optimal_at_pool": round(optimal.totals.hit_rate, 6),
        "unlimited_hit_rate": round(unlimited.totals.hit_rate, 6),
        "working_set_tokens": max((c for c in caps if c is not None), default=0),
        "tenants": {p: {t: round(v.hit_rate, 6) for t, v in sorted(r.totals.per_tenant.items())}
                    for p, r in at_pool.items()},
        "starvation": starvation,
        "engines": engine_facts,
        "tiers": tiers,
    }


def _after_fix(fix: Rewrite, measured: list[Rewrite], jobs: JobStore, has_time: bool, pools: dict[str, int],
               page: int, timings: EngineTimings, geos: dict[str, CacheGeometry],
               capacities: list[int], arrivals: str | None = None) -> dict[str, Any]:
    """The ``after_fix`` key: the fix the advisory decides on, measured as today's traffic
    is, and simulated as today's is (the same arrivals and output lengths)."""
    fix_jobs, _ = to_jobs(fix.seqs, on_skip=lambda _skip: None)
    out: dict[str, Any] = {"basis": fix.name, "description": fix.description,
                           "rewritten_requests": fix.rewritten_requests, **fix.measured,
                           "candidates": [{"name": r.name, "description": r.description, **r.measured}
                                          for r in measured]}
    if len(fix_jobs) == len(jobs):
        fix_jobs.timed_like(jobs)
        out["simulation"] = _simulate(fix_jobs, has_time, pools, page, timings, geos, capacities, arrivals)
    return out


def _curve(study: Study, base: RunSpec, capacities: list[int | None]) -> list[dict[str, Any]]:
    """Hit rate at each capacity under FCFS, the cache-aware scheduler and the optimal bound."""
    curve: list[dict[str, Any]] = []
    for cap in capacities:
        for policy in ("fcfs", CACHE_AWARE, "optimal"):
            spec = replace(base, policy="fcfs", eviction="optimal") if policy == "optimal" else replace(base, policy=policy)
            r = study.run(replace(spec, capacity=cap))
            curve.append({"policy": policy, "capacity_tokens": cap, "hit_rate": round(r.totals.hit_rate, 6)})
    return curve


def _views(opts: ReportOptions, facts: dict[str, Any], traffic: dict[str, Any] | None,
           timings: EngineTimings) -> dict[str, Any]:
    """The ``views`` key (``ReportOptions.views``): what the HTML report draws."""
    from advisor.advise.views import lint_excerpts, traffic_views

    out: dict[str, Any] = {"lint_excerpts": lint_excerpts(facts["lint"])}
    if traffic is not None:
        seqs, m, decode = traffic["seqs"], traffic["measured"], traffic["decode"]
        presc = m["prescription"]
        out.update(traffic_views(seqs, decode, m["analysis"], m["diagnosis"], presc, m["diagnosis"].findings))
        fix_sim = (facts.get("after_fix") or {}).get("simulation")
        if fix_sim is not None:  # the after-fix simulation the advisory already ran
            out["after_fix"] = {"curve": [dict(p) for p in fix_sim["curve"]], "requests": len(seqs),
                                "rewritten_requests": facts["after_fix"]["rewritten_requests"]}
        else:
            out["after_fix"] = {"curve": [dict(p) for p in facts["simulation"]["curve"]], "requests": len(seqs),
                                "rewritten_requests": 0}
    return out


def _run_summary(r: RunResult, mode: str) -> dict[str, Any]:
    out: dict[str, Any] = {"hit_rate": round(r.totals.hit_rate, 6), "evicted_tokens": r.evicted_tokens,
                           "prefill_tokens": r.prefill_tokens}
    if mode == "serve":
        out.update(serve_metrics(r))
    return out


def _costs(model: ModelSpec, gpu: GpuSpec, tp: int, opts: ReportOptions, hot_prefix: int,
           mean_prompt: int) -> tuple[CostEstimate, CostEstimate]:
    """SGLang's cost of the traffic's shared prefix and vLLM's pool on the same GPUs; an
    error where the weights leave no pool (before any traffic is prescribed)."""
    cost = estimate_cost(model, gpu, tp=tp, kv_dtype=opts.kv_dtype, prefix_tokens=hot_prefix, batch=opts.batch,
                         unique_tokens=max(0, mean_prompt - hot_prefix), engine="sglang", mfu=opts.mfu,
                         weight_dtype=opts.weight_dtype, bandwidth_util=opts.bandwidth_util)
    if not cost.weights_fit:
        raise AdvisorError(not_fitting_message(cost))
    vllm_cost = estimate_cost(model, gpu, tp=tp, kv_dtype=opts.kv_dtype, engine="vllm",
                              weight_dtype=opts.weight_dtype)
    return cost, vllm_cost


def _linter(tokenizer: str) -> Callable[[list[str]], list[dict[str, Any]]]:
    """The lint of the templates as the advisory lists it, with its configuration read now
    (a bad one is an error before any traffic is measured; the lint itself may run later)."""
    from advisor.lint import config as lint_config
    from advisor.lint import engine
    from advisor.rules import REGISTRY

    cfg = lint_config.resolve(None, False, Path.cwd(), REGISTRY)
    count = engine.default_counter(tokenizer)

    def lint(paths: list[str]) -> list[dict[str, Any]]:
        result = engine.lint_files(paths, cfg, REGISTRY, count)
        return [{"code": f.code, "rule": f.rule, "severity": f.severity, "path": f.path, "line": f.line,
                 "column": f.column, "message": f.message, "tokens_at_risk": f.tokens_at_risk}
                for f in result.findings]
    return lint


# --- assembly -----------------------------------------------------------------------------

def build(templates: list[str], traffic: list[Path], opts: ReportOptions, skips: SkipLog,
          progress: Callable[[Iterator[Sequence], str], Iterator[Sequence]] | None = None) -> dict[str, Any]:
    """Every section of the advisory as plain data (the JSON shape; markdown renders it);
    ``progress`` wraps the stream of sequences as the traffic is read."""
    model = resolve_model(opts.model)
    gpu = resolve_gpu(opts.gpu)
    tp, tp_source = _choose_tp(model, gpu, opts)
    timings = engine_timings(model, gpu, tp=tp, kv_dtype=opts.kv_dtype, weight_dtype=opts.weight_dtype,
                             mfu=opts.mfu, bandwidth_util=opts.bandwidth_util)
    facts: dict[str, Any] = {
        "tool": {"name": "advisor", "version": __version__},
        "input": {"templates": list(templates), "traffic": [str(p) for p in traffic], "model": model.id,
                  "gpu": gpu.id, "tp": tp, "tp_source": tp_source, "kv_dtype": opts.kv_dtype,
                  "weight_dtype": opts.weight_dtype or model.weight_dtype,
                  "page_size": opts.page_size, "tokenizer": opts.tokenizer,
                  "thresholds": {"go_above": opts.thresholds.go_above,
                                 "no_go_below": opts.thresholds.no_go_below}},
    }
    # With traffic, the templates are linted beside the prescription (below).
    lint = _linter(opts.tokenizer) if templates else None
    facts["lint"] = lint(templates) if lint is not None and not traffic else []
    hot_prefix = 0
    mean_prompt = 0
    measured: dict[str, Any] | None = None  # what the views need of the traffic
    geos: dict[str, CacheGeometry] = {}  # each engine's windows and states, if not full attention
    fix: Rewrite | None = None  # the rewrite the after-fix decision stands on
    if traffic:
        files = check_paths(traffic)
        renderer = make_renderer(opts.tokenizer, opts.chat_template, opts.record_templates, files,
                                 engine=opts.engine, model_dir=opts.model_dir, timezone=opts.timezone)
        memo = MemoEncoder(renderer.tokenizer)
        read = sequences(files, renderer, skips, block_size=opts.block_size, memo=memo)
        seqs = list(progress(read, "report") if progress is not None else read)
        seqs, jobs, assumed = _jobs(seqs, skips, opts)
        has_time = assumed["arrivals"] != "at_once"  # timestamps or --rate: the serve loop's times
        if not seqs:
            raise AdvisorError("no usable requests in the traffic")
        m = _measure_traffic(seqs, opts, renderer.tokenizer.decode)
        res = m["analysis"]
        hot = max(m["branches"], key=lambda b: (b.requests, b.prefix_tokens), default=None)
        hot_prefix = hot.prefix_tokens if hot else 0
        mean_prompt = res.prompt_tokens // max(1, res.requests)
        skipped = skips.count  # (the traffic's own: the alternatives are read later)
        geos = geometries(model, gpu, opts.page_size, opts.kv_dtype, tp)
    cost, vllm_cost = _costs(model, gpu, tp, opts, hot_prefix, mean_prompt)
    if traffic:
        pools = {"sglang": cost.kv_pool_tokens, "vllm": vllm_cost.kv_pool_tokens}
        # Both curves at today's points.
        caps = sweep_points(jobs, has_time, pools, opts.page_size, geos)
        arrivals = arrivals_label(assumed)

        def prescribed(diagnosis: Callable[[], Diagnosis]) -> tuple[Prescription, Rewrite | None,
                                                                      dict[str, Any] | None]:
            # The prescription, the rewrite the decision stands on (the best of those measured
            # beside it), and that one simulated as today's traffic is.
            presc = prescribe(seqs, renderer, diagnosis, opts.page_size)
            alternatives = [(alt, list(sequences(check_paths([alt.path]), renderer, skips,
                                                 block_size=opts.block_size, memo=memo)))
                            for alt in opts.alternatives]
            found = rewrites(seqs, presc.rewritten, alternatives, opts.page_size, renderer.tokenizer.decode,
                             geos or None)
            best = best_rewrite(found)
            after = (_after_fix(best, found, jobs, has_time, pools, opts.page_size, timings, geos, caps, arrivals)
                     if best is not None else None)
            return presc, best, after

        def today() -> dict[str, Any]:
            # Everything the prescription does not change: it runs beside it
            # (advisor.beside: the same figures either way), returned as plain data.
            # The cached tokens split within and across conversations, and what
            # session-affine routing over 2, 4 and 8 replicas keeps (nothing re-rendered).
            from advisor.index.conversations import measure as measure_conversations

            return {
                "lint": lint(templates) if lint is not None else [],
                "simulation": _simulate(jobs, has_time, pools, opts.page_size, timings, geos, caps, arrivals),
                "conversations": measure_conversations(seqs, opts.page_size).to_dict(),
                "reasoning_history": measure_reasoning(seqs, renderer, res.prompt_tokens, memo.encode),
                # A tenant far from the rest gets its own decision and fix, on its requests alone.
                "tenants": tenant_facts(seqs, renderer, m["engine_hit_rate"], opts.page_size, opts.thresholds),
                "architecture": measure_architecture(seqs, geos) if geos else None,
            }

        def diagnosed() -> Diagnosis:
            return diagnose(seqs, renderer.tokenizer, res.cached_tokens)

        # One helper (advisor.beside) diagnoses the traffic while the prescription searches
        # the canonical order here (the search needs no diagnosis), then computes today's
        # figures while the prescription goes on.
        with Beside(diagnosed, today) as helper:
            presc, fix, after_fix = prescribed(lambda: helper.result(0))
            m["diagnosis"] = helper.result(0)
            side = helper.result(1)
        m["prescription"] = presc
        facts["lint"] = side["lint"]
        facts["traffic"] = {
            "requests": res.requests,
            "skipped": skipped,
            "prompt_tokens": res.prompt_tokens,
            "cached_tokens": res.cached_tokens,
            "lcp_hit_rate": round(res.hit_rate, 6),
            "hit_rate": round(m["engine_hit_rate"], 6),
            "repetition_rate": round(m["repetition_rate"], 6),
            "tree_tokens": res.tree_tokens,
            "hit_distribution": {k: round(v, 6) for k, v in res.percentiles().items()},
            "shared_prefix_tokens": hot_prefix,
            "shared_prefix_requests": hot.requests if hot else 0,
            "shared_prefix_preview": hot.preview if hot else "",
            "mean_prompt_tokens": mean_prompt,
            "files": m["files"],
            "tenants": {k: {"requests": v.requests, "hit_rate": round(v.hit_rate, 6)}
                        for k, v in sorted(res.tenants.items())},
            "findings": [f.to_dict() for f in m["diagnosis"].findings],
            "attribution": presc.attribution.to_dict(),
            "actions": [a.to_dict() for a in presc.actions],
            "hit_rate_after_prescription": round(presc.hit_rate_after, 6),
        }
        facts["traffic"]["profile"] = (
            "prefix-heavy" if res.hit_rate >= 0.5 else ("single-shot" if res.hit_rate < 0.1 else "prefix-light"))
        facts["traffic"]["conversations"] = side["conversations"]
        if side["reasoning_history"] is not None:  # only traffic whose assistant turns carry reasoning
            facts["traffic"]["reasoning_history"] = side["reasoning_history"]
        facts["tenants"] = side["tenants"]
        if opts.views:
            measured = {"seqs": seqs, "measured": m, "decode": renderer.tokenizer.decode}
        if geos:
            per_engine = side["architecture"]
            facts["architecture"] = {"engines": per_engine, "advice": architecture_advice(per_engine, hot_prefix)}
            # The decision is on what the engine serves on this model, not on full attention.
            facts["traffic"]["hit_rate"] = per_engine["sglang"]["hit_rate"]
            facts["traffic"]["hit_rate_basis"] = "sglang rules on the model's windows and states"
    facts["cost"] = cost.to_dict()
    facts["timings"] = _timings_facts(timings, cost.to_dict())
    if traffic:
        facts["simulation"] = side["simulation"]
        facts["simulation"]["assumptions"] = assumed
        if after_fix is not None:
            facts["after_fix"] = after_fix
    after_prefix = (facts.get("after_fix") or {}).get("shared_prefix_tokens")
    facts["hosted"] = [
        {"provider": name, "minimum_tokens": minimum, "qualifies": hot_prefix >= minimum, "how": how,
         **({"qualifies_after_fix": after_prefix >= minimum} if after_prefix is not None else {})}
        for name, minimum, how in HOSTED_MINIMUMS
    ]
    facts.update(decide(facts, opts))
    facts["input"]["thresholds"].update({
        "sglang_throughput_gain": opts.thresholds.sglang_throughput_gain,
        "sglang_ttft_gain": opts.thresholds.sglang_ttft_gain,
        "sglang_hit_points": opts.thresholds.sglang_hit_points})
    facts["hit_rate"] = facts.get("traffic", {}).get("hit_rate")
    facts["hit_rate_after_prescription"] = facts.get("traffic", {}).get("hit_rate_after_prescription")
    facts["rollout"] = rollout(facts, opts)
    facts["read_next"] = read_next(facts)
    if traffic:
        facts["money"] = money_facts(facts, m["money"], opts.gpu_hour_price)
        if fix is not None and fix.bills is not None:  # the same bill on the rewritten traffic
            facts["money"]["hosted_after_fix"] = hosted_bills(fix.bills)
    if opts.views:
        facts["views"] = _views(opts, facts, measured, timings)
    return facts


def decide(facts: dict[str, Any], opts: ReportOptions) -> dict[str, Any]:
    """The decision (``advisor.advise.decide``) under these options."""
    return decide_facts(facts, opts.thresholds, opts.page_size, opts.controlled)


def _choose_tp(model, gpu, opts: ReportOptions) -> tuple[int, str]:
    """The TP the user gave, or the fewest GPUs whose pools fit the weights."""
    if opts.tp is not None:
        check_tp(model, opts.tp)
        return opts.tp, "given"
    tp = smallest_fitting_tp(model, gpu, kv_dtype=opts.kv_dtype, weight_dtype=opts.weight_dtype)
    if tp is None:
        raise AdvisorError(f"{model.id} does not fit on up to 16 × {gpu.id} in "
                           f"{opts.weight_dtype or model.weight_dtype}; try --weight-dtype fp8 or a bigger GPU")
    return tp, "the fewest GPUs that fit the weights and one full-context sequence"


def _timings_facts(t: EngineTimings, cost: dict[str, Any]) -> dict[str, Any]:
    """The serve model's figures as the report states them, with where they come from."""
    return {
        "description": t.description,
        "prefill_token_s": t.prefill_token_s,
        "decode_step_s": t.decode_step_s,
        "kv_token_s": t.kv_token_s,
        "prefill_tokens_per_s": cost["prefill_tokens_per_s"],
        "decode_step_seconds_batch1": cost["decode_step_seconds_batch1"],
        "mfu": cost["mfu"],
        "bandwidth_util": cost["bandwidth_util"],
        "gemm_tflops": cost["gemm_tflops"],
        "gemm_dtype": cost["gemm_dtype"],
        "bandwidth_gb_s": cost["bandwidth_gb_s"],
        "weight_bytes_per_gpu": cost["weight_bytes_per_gpu"],
        "params_nonembedding_active": cost["params_nonembedding_active"],
        "sources": {"mfu": "REFERENCE.md §5 (0.5: kv-planner's default and the conservative end of llm-analysis' "
                           "0.5-0.7)",
                    "bandwidth_util": "REFERENCE.md §5 (kv-planner roofline MBU 0.75)",
                    "model": cost["model_source"], "gpu": cost["gpu_source"]},
    }


def rollout(facts: dict[str, Any], opts: ReportOptions) -> dict[str, Any]:
    """The launch command and the target, on the traffic the headline decided on: the
    rewritten traffic's simulation when the decision is conditional on a fix."""
    sim = facts.get("simulation")
    after_sim = (facts.get("after_fix") or {}).get("simulation")
    basis = "after-fix" if facts.get("basis") == "after-fix" and after_sim else "today"
    if basis == "after-fix":
        sim = after_sim
    cost = facts["cost"]
    policy = "fcfs"
    target = facts.get("hit_rate")
    after_fix = None
    if sim:
        fcfs = sim["at_pool"]["fcfs"]["hit_rate"]
        lpm = sim["at_pool"][CACHE_AWARE]["hit_rate"]
        policy = CACHE_AWARE if lpm > fcfs + 0.005 else "fcfs"
        target = max(fcfs, lpm)
        fixed = facts.get("after_fix")
        if fixed and fixed["hit_rate"] > facts["traffic"]["hit_rate"] + 0.005:
            # The rewritten traffic's hit rate with unlimited capacity (the engine's rule).
            after_fix = fixed["hit_rate"]
    deploy = _deployment_flags(cost)
    flags = [f"--tp {cost['tp']}", *deploy["sglang"], f"--schedule-policy {policy}", f"--page-size {opts.page_size}",
             f"--mem-fraction-static {cost.get('mem_fraction', 0.835)}"]
    hicache = tier_recommended(sim, cost)  # the host tier adds enough hits, and loads beat recomputing
    if hicache:
        flags.append("--enable-hierarchical-cache")
    flags.append("--enable-metrics --enable-cache-report")
    model = facts["input"]["model"]
    offload = priced(sim, cost).get("vllm") if sim else None
    vllm_tier = ([f"--kv-offloading-size {vllm_offloading_gib(offload):.0f}"]
                 if offload is not None and offload["pays"] else [])
    vllm = " ".join(["vllm serve", model, f"--tensor-parallel-size {cost['tp']}", *deploy["vllm"],
                     "--enable-prefix-caching", *vllm_tier])
    sglang = " ".join(["python -m sglang.launch_server --model-path", model, *flags])
    on_vllm = facts.get("engine") == "vllm"
    if on_vllm and sim and sim.get("engines"):
        target = sim["engines"]["setups"]["vllm"]["hit_rate"]
    metrics = (["vllm:prefix_cache_hits / vllm:prefix_cache_queries", "Prefix cache hit rate in the periodic log line"]
               if on_vllm else
               ["sglang:cache_hit_rate", "#cached-token in the prefill log lines",
                "usage.prompt_tokens_details.cached_tokens per response"])
    return {
        "engine": "vllm" if on_vllm else "sglang",
        "command": vllm if on_vllm else sglang,
        "sglang_command": sglang,
        "vllm_command": vllm,
        "flags": flags,
        "hierarchical_cache": hicache and not on_vllm,
        "cpu_offload": bool(vllm_tier) and on_vllm,
        "target_hit_rate": round(target, 6) if target is not None else None,
        "target_basis": basis,
        "hit_rate_after_fix_unlimited": round(after_fix, 6) if after_fix is not None else None,
        "metrics": metrics,
    }


def _deployment_flags(cost: dict[str, Any]) -> dict[str, list[str]]:
    """Dtype flags for each engine: FP8 KV, and FP8 weights when the checkpoint ships wider
    ones (both engines quantize on load); a shipped quantization needs no flag."""
    out: dict[str, list[str]] = {"sglang": [], "vllm": []}
    if cost["kv_dtype"] == "fp8":
        out["sglang"].append("--kv-cache-dtype fp8_e4m3")
        out["vllm"].append("--kv-cache-dtype fp8")
    if cost["weight_dtype"] == "fp8" and cost.get("weight_dtype_shipped") != "fp8":
        out["sglang"].append("--quantization fp8")
        out["vllm"].append("--quantization fp8")
    return out


def read_next(facts: dict[str, Any]) -> str:
    """The single biggest gap between what the traffic gets and what it could get."""
    traffic = facts.get("traffic")
    if traffic is None:
        return "Collect traffic: the decision needs a measured hit rate."
    gaps = [(traffic["hit_rate_after_prescription"] - traffic["lcp_hit_rate"], "ordering",
             "the ordering audit: the template changes are the biggest gain")]
    sim = facts.get("simulation")
    if sim:
        at = sim["at_pool"]
        best = max(at["fcfs"]["hit_rate"], at[CACHE_AWARE]["hit_rate"])
        gaps.append((sim["unlimited_hit_rate"] - best, "capacity",
                     "capacity and scheduling: the pool evicts hits the traffic could keep"))
        gaps.append((at[CACHE_AWARE]["hit_rate"] - at["fcfs"]["hit_rate"], "scheduling",
                     "capacity and scheduling: a cache-aware scheduler keeps more hits than FCFS"))
    gap, _, text = max(gaps, key=lambda g: g[0])
    if gap <= 0.01:
        return "Nothing large is left on the table: roll out and watch the metrics of the rollout plan."
    return f"Read {text} ({gap:.1%} of prompt tokens)."
