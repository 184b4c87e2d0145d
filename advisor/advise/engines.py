"""SGLang against vLLM against no caching, each at its own pool on the chosen GPU.

The comparison the advisory decides on. Every setup is the serve-mode simulator with the
engine's own rules (REFERENCE §3.3) and the deployment's timings (advisor.cost.compute):

| setup | hit rules | pool | eviction | scheduler |
| --- | --- | --- | --- | --- |
| no caching | none: every prompt token prefilled | SGLang's pool, holding running requests only | - | FCFS |
| vLLM | L-1 cap, full 16-token blocks | vLLM's pool (--gpu-memory-utilization 0.9) | block LRU (free queue) | FCFS |
| SGLang FCFS | L-1 cap, pages of --page-size | SGLang's pool (mem_fraction_static) | whole-leaf LRU | FCFS (the default) |
| SGLang | same | same | same | the cache-aware scheduler (lpm) |

Two runs per setup. Hit rate, prefill tokens and TTFT come from the traffic as logged (its
timestamps; without them every request arrives at once). Throughput comes from the same
requests arriving all at once, in arrival order (an offline batch: the engine saturated, as
throughput benchmarks run it): tokens (prompt + output) over the makespan. At the logged rate a
lightly loaded engine decodes small batches and its busy time says little about capacity.
The speedup over no caching is the ratio of saturated throughput, and the decode share (of the
no-caching engine's saturated time) is the part no prefix cache can remove: the speedup stays
below 1 / decode share.

What the simulation assumes is gathered here too (``assumptions``, the JSON's
``simulation.assumptions``), so the report states it: where each request's output length
comes from and how the requests arrive. Output length, best first: the count the logs give
(``output_length``, usage completion tokens, an engine's finish line); else ``--output-len``,
but never past the request's own ``max_tokens``; else that ``max_tokens``, as if generated in
full; else 1 token (the first comes from the prefill: nothing is decoded). ``--output-len``
goes ahead of ``max_tokens`` because a maximum is an upper bound, often a generous one, while
the option is the user's statement of the typical length; a measured count goes ahead of both.
Arrivals: ``--rate`` (Poisson, seeded) when given, in place of any logged timestamps; else the
timestamps when every request has one; else all at once.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from collections.abc import Sequence as SequenceOf
from dataclasses import dataclass, replace
from typing import Any

from advisor.cost.compute import EngineTimings
from advisor.ingest.pipeline import Sequence
from advisor.simulate.model import DEFAULT_OUTPUT_LEN, OUTPUT_SOURCES, Job, output_length, percentile
from advisor.index.geometry import CacheGeometry
from advisor.simulate.runner import RunResult, RunSpec
from advisor.simulate.study import Study

CACHE_AWARE = "lpm"
AT_ONCE = "all at once (no timestamps)"
TIMESTAMPS = "logged timestamps"
VLLM_BLOCK = 16  # vLLM's --block-size default (REFERENCE §2.2)

def with_output_lengths(seqs: Iterable[Sequence], output_len: int | None) -> Iterator[Sequence]:
    """``seqs`` as the simulator takes them: each request's output length set as
    ``output_length`` says: a copy only where the option or a maximum gives it (the simulator's
    own default is the same 1 token); the analysis keeps the originals."""
    for s in seqs:
        source, n = output_length(s.request, output_len)
        yield s if source in ("logged", "default") else replace(s, request=replace(s.request, output_length=n))


def assumptions(seqs: SequenceOf[Sequence], output_len: int | None, rate: float | None,
                timed: bool) -> dict[str, Any]:
    """What the simulation assumed of these requests (``simulation.assumptions``): requests
    per output-length source, the option and default used, and the arrivals (``timestamps``,
    ``rate`` or ``at_once``; ``timed``: every request had a timestamp)."""
    sources = dict.fromkeys(OUTPUT_SOURCES, 0)
    total = 0
    stamped = 0
    for s in seqs:
        source, n = output_length(s.request, output_len)
        sources[source] += 1
        total += max(DEFAULT_OUTPUT_LEN, n)  # the simulator decodes at least the first token
        stamped += s.request.timestamp is not None
    serve = RunSpec()
    return {
        "requests": len(seqs),
        "output_length_sources": sources,
        "output_len": output_len,
        "default_output_len": DEFAULT_OUTPUT_LEN,
        "mean_output_tokens": round(total / len(seqs), 3) if seqs else 0.0,
        "arrivals": "rate" if rate is not None else ("timestamps" if timed else "at_once"),
        "rate": rate,
        "timestamped_requests": stamped,
        "max_running": serve.max_running,
        "max_prefill_tokens": serve.max_prefill_tokens,
    }


def arrivals_label(facts: dict[str, Any]) -> str:
    """The engine comparison's ``arrivals`` label for these assumptions."""
    if facts["arrivals"] == "rate":
        return f"Poisson arrivals at {facts['rate']:g} requests/s (--rate)"
    return TIMESTAMPS if facts["arrivals"] == "timestamps" else AT_ONCE


@dataclass(frozen=True)
class Setup:
    name: str
    label: str
    engine: str  # hit rules
    eviction: str
    policy: str
    pool: str  # whose pool size: "sglang" or "vllm"


def setups(page: int) -> tuple[Setup, ...]:
    return (
        Setup("none", "no caching", "none", "off", "fcfs", "sglang"),
        Setup("vllm", f"vLLM (block {VLLM_BLOCK}, block LRU, FCFS)", "vllm", "block-lru", "fcfs", "vllm"),
        Setup("sglang_fcfs", f"SGLang FCFS (page {page}, leaf LRU)", "sglang", "branch-lru", "fcfs", "sglang"),
        Setup("sglang", f"SGLang {CACHE_AWARE} (page {page}, leaf LRU)", "sglang", "branch-lru", CACHE_AWARE, "sglang"),
    )


class AtOnce(SequenceOf[Job]):
    """The same requests, all arriving at time 0 (in their arrival order)."""

    def __init__(self, jobs: SequenceOf[Job]) -> None:
        self._jobs = jobs

    def __len__(self) -> int:
        return len(self._jobs)

    def __getitem__(self, i):  # ints only: the simulator never slices
        return replace(self._jobs[i], arrival=0.0)

    def __iter__(self) -> Iterator[Job]:
        for i in range(len(self)):
            yield self[i]


def summarize(timed: RunResult, batch: RunResult) -> dict[str, Any]:
    t, b = timed.totals, batch.totals
    tokens = b.prompt_tokens + b.output_tokens
    busy = batch.busy_prefill_seconds + batch.busy_decode_seconds
    return {
        "hit_rate": round(t.hit_rate, 6),
        "prompt_tokens": t.prompt_tokens,
        "prefill_tokens": timed.prefill_tokens,
        "output_tokens": t.output_tokens,
        "ttft_p50_s": round(percentile(t.ttft, 0.5), 6),
        "ttft_p90_s": round(percentile(t.ttft, 0.9), 6),
        "evicted_tokens": timed.evicted_tokens,
        "throughput_tokens_s": round(tokens / batch.makespan, 3) if batch.makespan > 0 else 0.0,
        "batch_seconds": round(batch.makespan, 6),
        "batch_hit_rate": round(b.hit_rate, 6),
        "prefill_seconds": round(batch.busy_prefill_seconds, 6),
        "decode_seconds": round(batch.busy_decode_seconds, 6),
        "decode_share": round(batch.decode_share, 6),
        "engine_seconds": round(busy, 6),
    }


def compare(jobs: SequenceOf[Job], pools: dict[str, int], timings: EngineTimings, page: int,
            study: Study | None = None, arrivals: str = AT_ONCE,
            geometries: dict[str, CacheGeometry] | None = None) -> dict[str, Any]:
    """The four setups' figures, each engine's speedup over no caching, and SGLang over vLLM.
    ``study`` holds the replays of ``jobs`` already run (the advisory's other figures);
    ``geometries`` each engine's windows and states on a model that is not full attention
    (vLLM's pool then holds whole hybrid blocks)."""
    geometries = geometries or {}
    study = study or Study(jobs)
    # The saturated runs are of other jobs (every arrival at 0): a study of their own, sharing
    # the block indexes (the same prompts).
    at_once = Study(AtOnce(jobs), study.indexes)
    out: dict[str, Any] = {"arrivals": arrivals, "pools": dict(pools), "setups": {}}
    for s in setups(page):
        geo = geometries.get(s.engine)
        spec = RunSpec(policy=s.policy, eviction=s.eviction, engine=s.engine,
                       page=geo.block if geo is not None else (VLLM_BLOCK if s.engine == "vllm" else page),
                       capacity=pools[s.pool], mode="serve", cost=timings,
                       geometry=geo if geo is not None and not geo.is_dense else None)
        timed = study.run(spec)
        row = summarize(timed, at_once.run(spec) if arrivals != AT_ONCE else timed)
        row.update({"label": s.label, "pool_tokens": pools[s.pool], "policy": s.policy, "eviction": s.eviction,
                    "page_size": spec.page})
        out["setups"][s.name] = row
    base = out["setups"]["none"]
    for row in out["setups"].values():
        row["speedup"] = _ratio(row["throughput_tokens_s"], base["throughput_tokens_s"])
        row["ttft_p90_ratio"] = round(row["ttft_p90_s"] / base["ttft_p90_s"], 6) if base["ttft_p90_s"] else 0.0
    out["decode_share_no_cache"] = base["decode_share"]
    out["speedup_ceiling"] = round(1 / base["decode_share"], 6) if base["decode_share"] else None
    out["sglang_over_vllm"] = over(out["setups"]["sglang"], out["setups"]["vllm"], out["setups"]["sglang_fcfs"])
    return out


def _ratio(a: float, b: float) -> float:
    return round(a / b, 6) if b else 0.0


def over(sglang: dict[str, Any], vllm: dict[str, Any], fcfs: dict[str, Any]) -> dict[str, Any]:
    """What SGLang adds over vLLM, split into its cache (rules, pool, eviction: SGLang FCFS
    against vLLM) and its scheduler (lpm against SGLang FCFS)."""
    return {
        "hit_rate_points": round(sglang["hit_rate"] - vllm["hit_rate"], 6),
        "hit_rate_points_cache": round(fcfs["hit_rate"] - vllm["hit_rate"], 6),
        "hit_rate_points_scheduler": round(sglang["hit_rate"] - fcfs["hit_rate"], 6),
        "throughput_gain": round(_ratio(sglang["throughput_tokens_s"], vllm["throughput_tokens_s"]) - 1, 6),
        "throughput_gain_scheduler": round(
            _ratio(sglang["throughput_tokens_s"], fcfs["throughput_tokens_s"]) - 1, 6),
        "ttft_p90_gain": round(1 - _ratio(sglang["ttft_p90_s"], vllm["ttft_p90_s"]), 6)
        if vllm["ttft_p90_s"] else 0.0,
        "prefill_tokens_saved": vllm["prefill_tokens"] - sglang["prefill_tokens"],
    }
