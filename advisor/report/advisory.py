"""The advisory as markdown: a pure function of the data `advisor.advise.build` returns."""

from __future__ import annotations

import json
from typing import Any

GIB = 2**30
MIB = 2**20


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def _bytes(n: float) -> str:
    return f"{n / GIB:,.2f} GiB" if n >= GIB else f"{n / MIB:,.1f} MiB"


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def to_json(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False, sort_keys=False, default=str) + "\n"


def to_markdown(data: dict[str, Any], picture: str | None) -> str:
    out: list[str] = []
    add = out.append
    inp = data["input"]
    decision = data["decision"]
    add("# SGLang radix-cache and scheduler advisory")
    add("")
    conditional = ""
    if data.get("basis") == "after-fix":
        n = len(data["conditional_on"])
        conditional = (f", on condition that the prescribed change{'s' if n > 1 else ''} below {'are' if n > 1 else 'is'} "
                       f"made: measured hit rate {_pct(data['hit_rate_decided'])} after {'them' if n > 1 else 'it'}, "
                       f"{_pct(data['traffic']['hit_rate'])} today (today's decision: {data['decision_today'].upper()}, "
                       f"engine {data['engine_today']})")
    add(f"**Decision: {decision.upper()}** (engine: {data['engine']}){conditional}. "
        f"Model {inp['model']} on {inp.get('tp', 1)} × {inp['gpu']} (TP {inp.get('tp', 1)}"
        f"{', ' + inp['tp_source'] if inp.get('tp_source') and inp['tp_source'] != 'given' else ''}), "
        f"{inp.get('weight_dtype', 'bf16')} weights, {inp.get('kv_dtype', 'bf16')} KV; "
        f"tokenizer `{inp['tokenizer']}`, page size {inp['page_size']}.")
    add("")
    for reason in data["reasons"]:
        add(f"- {reason}")
    if data["refusals"]:
        add("")
        add("**Refusals and conditions**")
        add("")
        for refusal in data["refusals"]:
            add(f"- {refusal}")
    add("")
    add(f"Inputs: templates {', '.join('`' + t + '`' for t in inp['templates']) or 'none'}; "
        f"traffic {', '.join('`' + t + '`' for t in inp['traffic']) or 'none'}. "
        f"Thresholds: go above {inp['thresholds']['go_above']:.0%}, no-go below {inp['thresholds']['no_go_below']:.0%}. "
        "Every figure below is measured on this traffic, simulated on it, or derived from the model "
        "and GPU catalog; none is a published rule of thumb.")
    traffic = data.get("traffic")
    add("")
    add("## 1. Workload fingerprint")
    add("")
    if traffic is None:
        add("No traffic given. Collect request logs (JSON Lines with `messages` or `prompt`, plus `timestamp` "
            "and `tenant`) from the deployment and rerun `advisor report` with `--traffic`.")
    else:
        add("| figure | value |")
        add("| --- | ---: |")
        add(f"| requests | {traffic['requests']:,} |")
        add(f"| prompt tokens | {traffic['prompt_tokens']:,} |")
        add(f"| profile | {traffic['profile']} |")
        add(f"| measured hit rate (SGLang rules: L-1 cap, page {inp['page_size']}) | {_pct(traffic['hit_rate'])} |")
        add(f"| longest-common-prefix hit rate (no cap) | {_pct(traffic['lcp_hit_rate'])} |")
        add(f"| requests reusing at least half their prompt | {_pct(traffic['repetition_rate'])} |")
        dist = traffic["hit_distribution"]
        add(f"| per-request hit p10 / p50 / p90 | {_pct(dist['p10'])} / {_pct(dist['p50'])} / {_pct(dist['p90'])} |")
        add(f"| hottest shared prefix | {traffic['shared_prefix_tokens']:,} tokens, {traffic['shared_prefix_requests']:,} requests |")
        add(f"| distinct tokens (unlimited cache) | {traffic['tree_tokens']:,} |")
        if traffic["shared_prefix_preview"]:
            add("")
            add(f"The hottest prefix starts: “{traffic['shared_prefix_preview']}”")
        if len(traffic["files"]) > 1:
            add("")
            add("| traffic file | requests | prompt tokens | hit rate |")
            add("| --- | ---: | ---: | ---: |")
            for f in traffic["files"]:
                add(f"| `{f['file']}` | {f['requests']:,} | {f['prompt_tokens']:,} | {_pct(f['hit_rate'])} |")
        if traffic["tenants"]:
            add("")
            add("| tenant | requests | hit rate |")
            add("| --- | ---: | ---: |")
            for name, t in traffic["tenants"].items():
                add(f"| {_cell(name)} | {t['requests']:,} | {_pct(t['hit_rate'])} |")
    add("")
    add("## 2. Ordering audit")
    add("")
    lint = data["lint"]
    if inp["templates"]:
        if lint:
            add("| template | line | code | severity | finding |")
            add("| --- | ---: | --- | --- | --- |")
            for f in lint:
                add(f"| `{f['path']}` | {f['line']} | {f['code']} {f['rule']} | {f['severity']} | {_cell(f['message'])} |")
        else:
            add("The templates have no cache-breaking pattern (`advisor lint`).")
        add("")
    if traffic is not None:
        if traffic["findings"]:
            add("| traffic finding | kind | offset (tokens) | requests | tokens lost | example |")
            add("| --- | --- | ---: | ---: | ---: | --- |")
            for f in traffic["findings"]:
                offset = "" if f.get("token_offset") is None else f"{f['token_offset']:,}"
                add(f"| {f['code']} {f['rule']} | {f['kind']} | {offset} | {f['requests']:,} | "
                    f"{f['tokens_lost']:,} | {_cell(str(f['example'])[:60])} |")
        else:
            add("The traffic shows no dynamic content in shared prefixes and no unstable section order.")
        att = traffic["attribution"]
        add("")
        add(f"Uncached prompt tokens: {att['uncached_tokens']:,} — inherently unique {att['inherently_unique']:,}, "
            f"dynamic content {att['dynamic_content']:,}, section order {att['section_order']:,}"
            f" ({'measured by rewriting the traffic' if att['measured'] else 'estimated'}).")
        if traffic["actions"]:
            add("")
            add("| prescription | hit rate after (measured) | tokens gained |")
            add("| --- | ---: | ---: |")
            for a in traffic["actions"]:
                add(f"| {_cell(a['description'])} | {_pct(a['hit_rate_after'])} | {a['tokens_gained']:,} |")
            add("")
            add(f"Hit rate after the prescription: **{_pct(traffic['hit_rate_after_prescription'])}** "
                f"(before: {_pct(traffic['lcp_hit_rate'])}); run `advisor prescribe --templates DIR --format diff` "
                "for the template changes.")
    sim = data.get("simulation")
    cost = data["cost"]
    add("")
    add("## 3. Capacity and scheduling")
    add("")
    if sim is None:
        add("Not simulated: no traffic.")
    else:
        if picture:
            add(f"![hit rate against pool size]({picture})")
            add("")
        add(f"Simulated in {sim['mode']} mode with SGLang's hit rules and whole-leaf LRU eviction; the pool of "
            f"{cost['tp']} × {cost['gpu']} for {cost['model']} holds {cost['kv_pool_tokens']:,} tokens "
            f"(mem-fraction-static {cost['mem_fraction']}). The traffic's working set is "
            f"{sim['working_set_tokens']:,} tokens.")
        add("")
        add("Optimal: an eviction that knows the future (Belady with bypass, kvcache-simulator's `optimal` "
            "semantics), requests in arrival order: the most any eviction policy could keep at that pool. A gap "
            "between a policy and it is the policy's; a gap between it and unlimited is the memory's.")
        add("")
        add("| pool (tokens) | FCFS | cache-aware (lpm) | optimal eviction |")
        add("| ---: | ---: | ---: | ---: |")
        by_cap: dict[Any, dict[str, float]] = {}
        for p in sim["curve"]:
            by_cap.setdefault(p["capacity_tokens"], {})[p["policy"]] = p["hit_rate"]
        for cap in sorted((c for c in by_cap if c is not None)) + [None]:
            label = "unlimited" if cap is None else f"{cap:,}"
            if cap == cost["kv_pool_tokens"]:
                label += f" ({cost['gpu']})"
            row = by_cap[cap]
            add(f"| {label} | {_pct(row.get('fcfs'))} | {_pct(row.get('lpm'))} | {_pct(row.get('optimal'))} |")
        at = sim["at_pool"]
        add("")
        if sim["mode"] == "serve":
            add("| at the GPU's pool | FCFS | cache-aware (lpm) |")
            add("| --- | ---: | ---: |")
            for key, label, fmt in (("hit_rate", "hit rate", _pct),
                                    ("throughput_tokens_s", "throughput at the logged arrivals (tokens/s)", lambda v: f"{v:,.0f}"),
                                    ("ttft_p50_s", "TTFT p50 (s)", lambda v: f"{v:.3f}"),
                                    ("ttft_p90_s", "TTFT p90 (s)", lambda v: f"{v:.3f}"),
                                    ("queue_delay_mean_s", "mean queue delay (s)", lambda v: f"{v:.3f}"),
                                    ("evicted_tokens", "evicted tokens", lambda v: f"{v:,}")):
                if key in at["fcfs"]:
                    add(f"| {label} | {fmt(at['fcfs'][key])} | {fmt(at['lpm'][key])} |")
        else:
            add(f"At the GPU's pool: FCFS {_pct(at['fcfs']['hit_rate'])}, cache-aware "
                f"{_pct(at['lpm']['hit_rate'])} (replay: no timestamps, so no latency figures).")
        if sim["starvation"]:
            add("")
            for f in sim["starvation"]:
                add(f"- TR501 tenant-starvation: {f['message']}")
    add("")
    add("## 4. SGLang against vLLM against no caching")
    add("")
    cmp = sim.get("engines") if sim else None
    if cmp is None:
        add("Not simulated: no traffic.")
    else:
        _engines(add, cmp, data)
    add("")
    add("## 5. HBM costs and engine timings")
    add("")
    add("| figure | value |")
    add("| --- | ---: |")
    add(f"| KV bytes per token ({cost['kv_dtype']}, TP {cost['tp']}) | {cost['kv_bytes_per_token']:,} |")
    add(f"| hot prefix resident once (one radix branch) | {cost['prefix_tokens']:,} tokens = {_bytes(cost['prefix_bytes'])} |")
    add(f"| its share of the KV pool | {cost['prefix_pool_share']:.2%} |")
    add(f"| batch of {cost['batch']}: prefix shared / unshared | "
        f"{_bytes(cost['batch_bytes_shared'])} / {_bytes(cost['batch_bytes_unshared'])} |")
    shared = cost.get("concurrency_shared")
    add(f"| concurrent sequences that fit (unshared / shared prefix) | {cost.get('concurrency_unshared')} / "
        f"{shared if shared is not None else 'not limited by KV'} |")
    add(f"| prefill saved per prefix hit | {cost['prefill_flops_per_hit'] / 1e12:,.1f} TFLOP, "
        f"{cost['prefill_seconds_saved_per_hit'] * 1000:,.1f} ms at {cost['mfu']:.0%} MFU |")
    timings = data.get("timings")
    if timings:
        _timings(add, timings, cost)
    add("")
    add("## 6. Rollout plan")
    add("")
    roll = data["rollout"]
    add("```")
    add(roll["command"])
    add("```")
    if data["engine"] == "vllm":
        add("")
        add("If SGLang is trialled anyway, launch it with the same deployment:")
        add("")
        add("```")
        add(roll["sglang_command"])
        add("```")
    add("")
    engine_name = "vLLM" if roll.get("engine") == "vllm" else "SGLang"
    add(f"1. Shadow run: mirror a slice of production traffic to the {engine_name} deployment for a day; compare "
        "its cached-token counts with this report's figures.")
    if roll["hierarchical_cache"]:
        add("2. The working set exceeds the GPU pool: the hierarchical cache keeps evicted prefixes in host memory.")
    add(f"{'3' if roll['hierarchical_cache'] else '2'}. Watch: " + ", ".join(f"`{m}`" for m in roll["metrics"]) + ".")
    if roll["target_hit_rate"] is not None:
        line = (f"{'4' if roll['hierarchical_cache'] else '3'}. Target hit rate: {_pct(roll['target_hit_rate'])} "
                "(simulated for this pool on today's traffic; investigate if production stays more than 5 points below).")
        if roll.get("hit_rate_after_fix_unlimited") is not None:
            line += (f" After the template changes the traffic allows up to {_pct(roll['hit_rate_after_fix_unlimited'])}"
                     " (unlimited capacity): rerun this report on traffic collected after the change.")
        add(line)
    add("")
    add("## 7. Hosted APIs")
    add("")
    tokens = traffic["shared_prefix_tokens"] if traffic else 0
    add(f"Hot static prefix: {tokens:,} tokens (counted with `{inp['tokenizer']}`; providers' tokenizers differ "
        "by some percent).")
    add("")
    add("| provider | minimum | qualifies | how |")
    add("| --- | ---: | --- | --- |")
    for h in data["hosted"]:
        add(f"| {h['provider']} | {h['minimum_tokens']:,} | {'yes' if h['qualifies'] else 'no'} | {_cell(h['how'])} |")
    add("")
    add("## 8. What to read next")
    add("")
    add(data["read_next"])
    add("")
    add(f"_Generated by advisor {data['tool']['version']}; sources of the model and GPU figures: "
        f"{_cell(cost.get('model_source', ''))}; {_cell(cost.get('gpu_source', ''))}._")
    return "\n".join(out) + "\n"


def _engines(add, cmp: dict[str, Any], data: dict[str, Any]) -> None:
    """The side-by-side table the decision rests on, and what SGLang adds."""
    arrivals = cmp["arrivals"]
    add(f"Each engine with its own hit rules, eviction and pool on the deployment above (serve mode). Hit rate, "
        f"prefill tokens and TTFT: the traffic with its {arrivals}. Throughput: the same requests arriving at "
        "once (the engine saturated); speedup = throughput over no caching's. Decode share: the share of the "
        "saturated engine time spent in decode steps, which a prefix cache cannot shorten.")
    add("")
    add("| | pool (tokens) | hit rate | prefill tokens | throughput (tokens/s) | TTFT p50 (s) | TTFT p90 (s) "
        "| speedup | decode share |")
    add("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for row in cmp["setups"].values():
        add(f"| {row['label']} | {row['pool_tokens']:,} | {_pct(row['hit_rate'])} | {row['prefill_tokens']:,} | "
            f"{row['throughput_tokens_s']:,.0f} | {row['ttft_p50_s']:.3f} | {row['ttft_p90_s']:.3f} | "
            f"{row['speedup']:.2f}× | {row['decode_share']:.0%} |")
    add("")
    from advisor.advise.decide import comparison_text

    for line in comparison_text(cmp):
        add(f"- {line}")
    thr = data["input"]["thresholds"]
    if "sglang_throughput_gain" in thr:
        add(f"- The bar for a change of engine: SGLang must give {thr['sglang_throughput_gain']:.0%} more "
            f"throughput, {thr['sglang_ttft_gain']:.0%} lower p90 TTFT or {thr['sglang_hit_points'] * 100:.0f} "
            "more points of hit rate than vLLM (any one).")


def _timings(add, t: dict[str, Any], cost: dict[str, Any]) -> None:
    add(f"| prefill throughput, one cold 2,048-token prompt | {t['prefill_tokens_per_s']:,.0f} tokens/s "
        f"({t['prefill_token_s'] * 1e6:.2f} us a token before attention) |")
    add(f"| decode step, one sequence of 2,048 tokens | {t['decode_step_seconds_batch1'] * 1e3:,.2f} ms "
        f"(weights {_bytes(t['weight_bytes_per_gpu'])} a GPU; each context token adds "
        f"{t['kv_token_s'] * 1e9:,.1f} ns) |")
    add("")
    add(f"Timings of the simulation ({t['description']}): prefill is compute bound, 2 × "
        f"{t['params_nonembedding_active'] / 1e9:.2f}B active non-embedding parameters FLOPs a token plus the "
        f"causal attention, over TP × {t['gemm_tflops']:g} TFLOPS ({t['gemm_dtype']}) × {t['mfu']:.0%} MFU, and "
        "a step never shorter than one read of the weights; a decode step reads each GPU's share of the weights "
        f"and the running sequences' KV at {t['bandwidth_util']:.0%} of {t['bandwidth_gb_s']:,.0f} GB/s. "
        f"Sources: MFU {t['sources']['mfu']}; bandwidth utilisation {t['sources']['bandwidth_util']}; "
        "model and GPU figures as cited below. `--mfu` and `--bandwidth-util` override them.")
