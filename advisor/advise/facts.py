"""The go/no-go SGLang advisory: measure the traffic, audit the templates, decide.

Every figure in the advisory comes from this traffic: measured (analyze, prescribe),
simulated (simulate at the chosen GPU's pool size) or derived from the model catalog
(cost). Nothing is a rule of thumb, and no published speedup is quoted.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from advisor import __version__
from advisor.index.analyze import Analyzer, top_branches
from advisor.ingest.source import SkipLog, make_renderer
from advisor.cost import estimate_cost, resolve_gpu, resolve_model
from advisor.diagnose.detect import Diagnoser
from advisor.errors import AdvisorError
from advisor.ingest.memo import MemoEncoder
from advisor.ingest.pipeline import Sequence, sequences
from advisor.prescribe.actions import prescribe
from advisor.simulate.inputs import to_jobs
from advisor.simulate.runner import (
    BlockIndexes, RunResult, RunSpec, parse_budget, run, serve_metrics, starvation_findings, sweep_capacities,
)
from advisor.ingest.traffic import check_paths

CACHE_AWARE = "lpm"
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
class Thresholds:
    go_above: float = 0.40
    no_go_below: float = 0.30


@dataclass(frozen=True)
class ReportOptions:
    model: str = "llama-3.1-8b"
    gpu: str = "h100"
    tp: int = 1
    kv_dtype: str = "bf16"
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


# --- measurement ---------------------------------------------------------------------------

def _measure_traffic(seqs: list[Sequence], opts: ReportOptions, renderer, decode) -> dict[str, Any]:
    page = opts.page_size
    overall = Analyzer(page)
    per_file: dict[str, Analyzer] = {}
    diagnoser = Diagnoser(renderer.tokenizer)
    engine_cached = 0
    repeated = 0
    for seq in diagnoser.watch(seqs):
        cached = overall.add(seq)
        per_file.setdefault(seq.request.source, Analyzer(page)).add(seq)
        # SGLang never serves the last prompt token from cache (REFERENCE.md §1.3).
        cap = max(0, seq.prompt_tokens - 1) // page * page
        engine_cached += min(cached, cap)
        repeated += cached * 2 >= seq.prompt_tokens
    res = overall.result
    diagnosis = diagnoser.finish(res.cached_tokens)
    prescription = prescribe(seqs, renderer, diagnosis, page)
    branches = top_branches(res, decode, 3)
    files = []
    for source in sorted(per_file):
        r = per_file[source].result
        files.append({"file": source, "requests": r.requests, "prompt_tokens": r.prompt_tokens,
                      "hit_rate": round(r.hit_rate, 6)})
    return {
        "analysis": res,
        "diagnosis": diagnosis,
        "prescription": prescription,
        "branches": branches,
        "files": files,
        "engine_hit_rate": engine_cached / res.prompt_tokens if res.prompt_tokens else 0.0,
        "repetition_rate": repeated / res.requests if res.requests else 0.0,
    }


def _simulate(seqs: list[Sequence], pool_tokens: int, page: int) -> dict[str, Any]:
    jobs, has_time = to_jobs(seqs)
    mode = "serve" if has_time else "replay"
    base = RunSpec(engine="sglang", page=page, mode=mode, eviction="branch-lru")
    indexes = BlockIndexes()
    caps = sweep_capacities(jobs, base.rules)
    finite = sorted({c for c in caps if c is not None} | {pool_tokens})
    curve: list[dict[str, Any]] = []
    for cap in finite + [None]:
        for policy in ("fcfs", CACHE_AWARE):
            r = run(jobs, replace(base, policy=policy, capacity=cap), indexes)
            curve.append({"policy": policy, "capacity_tokens": cap, "hit_rate": round(r.totals.hit_rate, 6)})
    at_pool: dict[str, RunResult] = {
        policy: run(jobs, replace(base, policy=policy, capacity=pool_tokens), indexes)
        for policy in ("fcfs", CACHE_AWARE)
    }
    unlimited = run(jobs, replace(base, policy="fcfs", capacity=None), indexes)
    tenants = jobs.tenants()
    starvation: list[dict[str, Any]] = []
    if len(tenants) >= 2:
        spec = replace(base, policy="fcfs", capacity=pool_tokens)
        budget = parse_budget("equal", tenants) or ()
        starvation = starvation_findings(at_pool["fcfs"], run(jobs, replace(spec, tenant_budget=budget), indexes))
    return {
        "mode": mode,
        "curve": curve,
        "at_pool": {p: _run_summary(r, mode) for p, r in at_pool.items()},
        "unlimited_hit_rate": round(unlimited.totals.hit_rate, 6),
        "working_set_tokens": max((c for c in caps if c is not None), default=0),
        "tenants": {p: {t: round(v.hit_rate, 6) for t, v in sorted(r.totals.per_tenant.items())}
                    for p, r in at_pool.items()},
        "starvation": starvation,
    }


def _run_summary(r: RunResult, mode: str) -> dict[str, Any]:
    out: dict[str, Any] = {"hit_rate": round(r.totals.hit_rate, 6), "evicted_tokens": r.evicted_tokens,
                           "prefill_tokens": r.prefill_tokens}
    if mode == "serve":
        out.update(serve_metrics(r))
    return out


def _lint(paths: list[str], tokenizer: str) -> list[dict[str, Any]]:
    from advisor.lint import config as lint_config
    from advisor.lint import engine
    from advisor.rules import REGISTRY

    cfg = lint_config.resolve(None, False, Path.cwd(), REGISTRY)
    result = engine.lint_files(paths, cfg, REGISTRY, engine.default_counter(tokenizer))
    return [{"code": f.code, "rule": f.rule, "severity": f.severity, "path": f.path, "line": f.line,
             "column": f.column, "message": f.message, "tokens_at_risk": f.tokens_at_risk}
            for f in result.findings]


# --- decision ---------------------------------------------------------------------------

def _main_move(traffic: dict[str, Any]) -> str:
    """The measured action that gains the most, to name in the decision."""
    moves = [a for a in traffic.get("actions", ())
             if a["kind"] not in ("all", "none", "pin-system-prompt") and a["tokens_gained"] > 0]
    if not moves:
        return ""
    best = max(moves, key=lambda a: (a["tokens_gained"], a["description"]))
    return f"; the move that gets there: {best['description'].rstrip('.')}"


def decide(facts: dict[str, Any], opts: ReportOptions) -> dict[str, Any]:
    """go / no-go / trial, with the reasons and plain refusals."""
    t = opts.thresholds
    reasons: list[str] = []
    refusals: list[str] = []
    traffic = facts.get("traffic")
    if traffic is None:
        reasons.append("No traffic was measured: templates alone cannot show how often prefixes repeat. "
                       "Collect a day of request logs (messages or prompts, with timestamps and tenant) "
                       "and run the report again.")
        return {"decision": "trial", "engine": "sglang", "reasons": reasons, "refusals": refusals}
    hit = traffic["hit_rate"]
    after = traffic["hit_rate_after_prescription"]
    single_shot = any(f["code"] == "TR301" for f in traffic["findings"])
    engine = "sglang"
    if single_shot and hit < t.go_above:
        decision, engine = "no-go", "vllm"
        refusals.append(f"Single-shot traffic: {hit:.1%} of prompt tokens could ever come from a prefix cache. "
                        "A radix cache and a cache-aware scheduler buy nothing here; serve it with vLLM "
                        "(prefix caching on costs nearly nothing) and spend the effort elsewhere.")
    elif hit >= t.go_above:
        decision = "go"
        reasons.append(f"Measured hit rate {hit:.1%} (SGLang rules, page size {opts.page_size}) is above the "
                       f"{t.go_above:.0%} go threshold.")
    elif hit < t.no_go_below:
        decision, engine = "no-go", "vllm"
        reasons.append(f"Measured hit rate {hit:.1%} is below the {t.no_go_below:.0%} no-go threshold.")
    else:
        decision = "trial"
        reasons.append(f"Measured hit rate {hit:.1%} lies between the thresholds "
                       f"({t.no_go_below:.0%}-{t.go_above:.0%}): run both engines on a sample.")
    if after > hit + 0.02 and not single_shot:
        verdict = "go" if after >= t.go_above else ("trial" if after >= t.no_go_below else "no-go")
        reasons.append(f"After the prescribed template changes the same traffic measures {after:.1%} "
                       f"(decision then: {verdict}){_main_move(traffic)}.")
        if not opts.controlled:
            refusals.append("The prompts come from templates this team does not control: the fixes above cannot "
                            "be made at the source. Normalize prompts at a proxy first (move per-request values "
                            "to the end, sort tool lists), then measure again.")
    sim = facts.get("simulation")
    if sim:
        fcfs = sim["at_pool"]["fcfs"]["hit_rate"]
        lpm = sim["at_pool"][CACHE_AWARE]["hit_rate"]
        reasons.append(f"At the {facts['cost']['kv_pool_tokens']:,}-token pool of one {facts['cost']['gpu']}, "
                       f"the simulated hit rate is {fcfs:.1%} with FCFS and {lpm:.1%} with {CACHE_AWARE} "
                       f"(unlimited: {sim['unlimited_hit_rate']:.1%}).")
        for f in sim["starvation"]:
            refusals.append(f"Tenant {f['tenant']} starves in the shared pool ({f['shared_hit_rate']:.1%} cached "
                            f"against {f['isolated_hit_rate']:.1%} with an equal budget): give tenants budgets "
                            "or separate replicas before sharing one pool.")
    return {"decision": decision, "engine": engine, "reasons": reasons, "refusals": refusals}


# --- assembly -----------------------------------------------------------------------------

def build(templates: list[str], traffic: list[Path], opts: ReportOptions, skips: SkipLog) -> dict[str, Any]:
    """Every section of the advisory as plain data (the JSON shape; markdown renders it)."""
    model = resolve_model(opts.model)
    gpu = resolve_gpu(opts.gpu)
    facts: dict[str, Any] = {
        "tool": {"name": "advisor", "version": __version__},
        "input": {"templates": list(templates), "traffic": [str(p) for p in traffic], "model": model.id,
                  "gpu": gpu.id, "page_size": opts.page_size, "tokenizer": opts.tokenizer,
                  "thresholds": {"go_above": opts.thresholds.go_above,
                                 "no_go_below": opts.thresholds.no_go_below}},
    }
    facts["lint"] = _lint(templates, opts.tokenizer) if templates else []
    hot_prefix = 0
    mean_prompt = 0
    if traffic:
        files = check_paths(traffic)
        renderer = make_renderer(opts.tokenizer, opts.chat_template, opts.record_templates, files,
                                 engine=opts.engine, model_dir=opts.model_dir, timezone=opts.timezone)
        memo = MemoEncoder(renderer.tokenizer)
        seqs = list(sequences(files, renderer, skips, block_size=opts.block_size, memo=memo))
        if not seqs:
            raise AdvisorError("no usable requests in the traffic")
        m = _measure_traffic(seqs, opts, renderer, renderer.tokenizer.decode)
        res, presc = m["analysis"], m["prescription"]
        hot = max(m["branches"], key=lambda b: (b.requests, b.prefix_tokens), default=None)
        hot_prefix = hot.prefix_tokens if hot else 0
        mean_prompt = res.prompt_tokens // max(1, res.requests)
        facts["traffic"] = {
            "requests": res.requests,
            "skipped": skips.count,
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
    cost = estimate_cost(model, gpu, tp=opts.tp, kv_dtype=opts.kv_dtype, prefix_tokens=hot_prefix,
                         batch=opts.batch, unique_tokens=max(0, mean_prompt - hot_prefix), engine="sglang")
    facts["cost"] = cost.to_dict()
    if traffic:
        facts["simulation"] = _simulate(seqs, int(facts["cost"]["kv_pool_tokens"]), opts.page_size)
    facts["hosted"] = [
        {"provider": name, "minimum_tokens": minimum, "qualifies": hot_prefix >= minimum, "how": how}
        for name, minimum, how in HOSTED_MINIMUMS
    ]
    facts.update(decide(facts, opts))
    facts["hit_rate"] = facts.get("traffic", {}).get("hit_rate")
    facts["hit_rate_after_prescription"] = facts.get("traffic", {}).get("hit_rate_after_prescription")
    facts["rollout"] = rollout(facts, opts)
    facts["read_next"] = read_next(facts)
    return facts


def rollout(facts: dict[str, Any], opts: ReportOptions) -> dict[str, Any]:
    sim = facts.get("simulation")
    cost = facts["cost"]
    policy = "fcfs"
    target = facts.get("hit_rate")
    after_fix = None
    if sim:
        fcfs = sim["at_pool"]["fcfs"]["hit_rate"]
        lpm = sim["at_pool"][CACHE_AWARE]["hit_rate"]
        policy = CACHE_AWARE if lpm > fcfs + 0.005 else "fcfs"
        target = max(fcfs, lpm)
        after = facts["traffic"]["hit_rate_after_prescription"]
        if after > facts["traffic"]["lcp_hit_rate"] + 0.005:
            # Measured with unlimited capacity on the rewritten traffic: an upper bound for
            # the pool until traffic collected after the change is simulated.
            after_fix = after
    flags = [f"--schedule-policy {policy}", f"--page-size {opts.page_size}",
             f"--mem-fraction-static {cost.get('mem_fraction', 0.835)}"]
    hicache = bool(sim and sim["working_set_tokens"] > cost["kv_pool_tokens"])
    if hicache:
        flags.append("--enable-hierarchical-cache")
    flags.append("--enable-metrics --enable-cache-report")
    return {
        "flags": flags,
        "hierarchical_cache": hicache,
        "target_hit_rate": round(target, 6) if target is not None else None,
        "hit_rate_after_fix_unlimited": round(after_fix, 6) if after_fix is not None else None,
        "metrics": ["sglang:cache_hit_rate", "#cached-token in the prefill log lines",
                    "usage.prompt_tokens_details.cached_tokens per response"],
    }


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
