"""Split the gap between what the traffic allows and what the engine reported.

A chain of simulations, each adding one thing the engine does, run over the same jobs:

1. ``ideal``: the longest earlier prefix, unlimited cache, token granularity
   (analyze's definition);
2. ``engine_rules``: the engine's hit rules, unlimited cache: pages or full blocks and
   the last prompt token always recomputed (REFERENCE.md §1.3, §2.3);
2b. ``architecture``: for a model whose layers are not all full attention, the same with the
   engine's windows and states on it (``advisor.index.checkpoints``: hybrid blocks, the
   replay boundaries and junctions where they are kept);
3. ``pool``: the stated pool with the engine's eviction, one request at a time;
4. ``in_flight``: the same pool in serve mode at the logged arrival times, where a
   prefix still being prefilled cannot be hit and a running request holds its blocks
   (only when the records carry timestamps).

The last stage is the prediction. The gap ideal - observed splits into granularity
(1-2), the model's architecture (2-2b), capacity and eviction (2 or 2b to 3), requests in
flight together (3-4) and the rest that advisor cannot name (prediction - observed); the
parts add up to the total.
All sums are over the requests that carry an observed count.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence as SequenceOf
from dataclasses import dataclass, replace
from typing import Any, cast

from advisor.simulate.jobs import JobStore
from advisor.simulate.model import Job
from advisor.simulate.replay import warmup_count
from advisor.simulate.runner import BlockIndexes, RunResult, RunSpec, run
from advisor.verify.compare import Observed, compare, points

# Each part is the drop from the stage before it to its stage, in chain order.
PARTS = (("granularity", "engine_rules",
          "engine granularity: page/block rounding and the last prompt token recomputed"),
         ("architecture", "architecture",
          "the model's windows and states: a hit ends only where the engine kept one"),
         ("capacity", "pool", "capacity and eviction at the stated pool"),
         ("in_flight", "in_flight",
          "requests in flight together (a prefix still being prefilled cannot be hit)"))


@dataclass
class Aligned:
    """Observed requests of a job store, with their arrival positions."""

    observed: Observed
    arrival: list[int]  # arrival position of each observed request


def align(obs: Observed, jobs: JobStore, warmup: float = 0.0) -> Aligned:
    """The observed requests that a run measures (after the warm-up), by arrival position."""
    n = len(jobs)
    arrival_of = [0] * n
    for i in range(n):
        arrival_of[jobs.record_of(i)] = i
    skip = warmup_count(n, warmup)
    keep = Observed(total_requests=obs.total_requests)
    arrival = []
    for k in range(len(obs)):
        a = arrival_of[obs.position[k]]
        if a < skip:
            continue
        keep.add(obs.position[k], obs.lines[k], obs.ids[k], obs.prompt[k], obs.observed[k], obs.reported_prompt[k])
        arrival.append(a)
    keep.total_requests = n - skip
    return Aligned(keep, arrival)


def run_with_requests(jobs: JobStore, spec: RunSpec, indexes: BlockIndexes) -> tuple[RunResult, array]:
    per = array("q", bytes(8 * len(jobs)))
    return run(cast("SequenceOf[Job]", jobs), spec, indexes, per), per


def stage_specs(base: RunSpec, has_time: bool) -> dict[str, RunSpec | None]:
    """The chain for ``base`` (the run whose prediction is checked), in order."""
    geo = base.geometry if base.geometry is not None and not base.geometry.is_dense else None
    rules = replace(base, capacity=None, mode="replay", policy="fcfs", replicas=1, tenant_budget=None)
    return {
        "ideal": replace(base, engine="none", page=1, capacity=None, eviction="branch-lru", mode="replay",
                         policy="fcfs", replicas=1, tenant_budget=None, warmup=base.warmup, geometry=None),
        "engine_rules": replace(rules, geometry=None, page=geo.full_attention_block) if geo else rules,
        "architecture": rules if geo else None,
        "pool": replace(base, mode="replay"),
        "in_flight": replace(base, mode="serve") if has_time else None,
    }


def verify(jobs: JobStore, obs: Observed, base: RunSpec, has_time: bool,
           indexes: BlockIndexes | None = None, top: int = 10) -> dict[str, Any]:
    """The comparison and the split of the gap, predicted = the last stage of the chain."""
    indexes = indexes or BlockIndexes()
    aligned = align(obs, jobs, base.warmup)
    sums: dict[str, int] = {}
    per_stage: dict[str, list[int]] = {}
    last = "pool"
    for name, spec in stage_specs(base, has_time).items():
        if spec is None:
            continue
        _, per = run_with_requests(jobs, spec, indexes)
        values = [int(per[a]) for a in aligned.arrival]
        per_stage[name] = values
        sums[name] = sum(values)
        last = name
    data = compare(aligned.observed, per_stage[last], top, {k: per_stage[k] for k in per_stage})
    prompt = data["prompt_tokens"]
    observed = data["observed_cached_tokens"]
    parts = []
    before = "ideal"
    for key, stage, text in PARTS:
        if stage in sums:
            tokens = sums[before] - sums[stage]
            before = stage
        elif key == "architecture":
            continue  # a full-attention model: no such part
        else:
            tokens = 0
            text += " (not modelled: replay mode, or the records carry no timestamps)" if key == "in_flight" else ""
        parts.append({"part": key, "tokens": tokens, "points": round(points(tokens, prompt), 6), "description": text})
    rest = sums[last] - observed
    parts.append({"part": "unexplained", "tokens": rest, "points": round(points(rest, prompt), 6),
                  "description": "what advisor cannot name: another tokenizer or template, cache state "
                                 "before the log, other traffic, a different pool or eviction"})
    total = sums["ideal"] - observed
    data["predicted_by"] = last
    data["stages"] = {k: {"cached_tokens": v, "hit_rate": round(v / prompt, 6) if prompt else 0.0}
                      for k, v in sums.items()}
    data["gap"] = {"tokens": total, "points": round(points(total, prompt), 6), "parts": parts}
    data["spec"] = {"engine": base.engine, "capacity_tokens": base.capacity, "page_size": base.page,
                    "eviction": base.eviction, "policy": base.policy, "warmup": base.warmup,
                    "mode": "serve" if last == "in_flight" else "replay"}
    if base.geometry is not None and not base.geometry.is_dense:
        data["spec"]["architecture"] = {"rule": base.geometry.rule, "block_tokens": base.geometry.block,
                                        "granularity": base.geometry.granularity_note}
    return data
