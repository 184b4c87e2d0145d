"""Seed workloads for `simulate --workload NAME`: the bundled workload specs, as jobs.

Each name is a spec of ``advisor/spec/examples`` (rag, agent, support-chat, multi-tenant,
single-shot, scrambled). Its traffic is generated (real text, exact section lengths),
rendered and tokenized like any log, and turned into jobs. Arrivals come in bursts
(Poisson at a rate above what one replica serves) so a queue forms and the scheduler has
choices; the default pool is small (the static prefix plus room for about two requests'
varying parts), where cache-aware ordering matters.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any, cast

from advisor.errors import AdvisorError
from advisor.ingest.ids import ITEM
from advisor.simulate.jobs import JobStore

WORKLOAD_DEFAULTS: dict[str, Any] = {
    "requests": 240,
    "rate": 40.0,  # requests/s: more than one H100 prefills at a few thousand uncached tokens each
    "policies": ("fcfs", "lpm", "dfs-weight"),
}


def build_workload(name: str, requests: int | None = None, seed: int = 0,
                   rate: float | None = None, output_len: int | None = None) -> JobStore:
    """Jobs of the bundled spec ``name``, in arrival order."""
    from advisor.ingest.chat import ChatRenderer, Llama3Layout
    from advisor.ingest.pipeline import Renderer, sequences
    from advisor.ingest.tokenizers import load_tokenizer
    from advisor.ingest.traffic import Skip
    from advisor.simulate.inputs import to_jobs
    from advisor.spec.generate import generate
    from advisor.spec.load import EXAMPLES, load_example

    if name not in EXAMPLES:
        raise AdvisorError(f"unknown --workload '{name}': use {', '.join(EXAMPLES)}")
    # Through the spec's one validation, as `plan` and `spec generate` (its bounds apply).
    spec = load_example(name, requests=requests or int(WORKLOAD_DEFAULTS["requests"]), seed=seed)
    gen = generate(spec)
    skips: list[Skip] = []
    renderer = Renderer(tokenizer=load_tokenizer(spec.tokenizer), chat=cast(ChatRenderer, Llama3Layout()))
    with tempfile.TemporaryDirectory(prefix="advisor-workload-") as tmp:
        path = Path(tmp) / f"{name}.jsonl"
        gen.write(path)
        jobs, _ = to_jobs(sequences([path], renderer, skips.append), output_len,
                          rate or float(WORKLOAD_DEFAULTS["rate"]), seed=seed)
    if skips:
        raise AdvisorError(f"workload {name}: {skips[0]}")
    return jobs


def default_capacity(jobs: JobStore) -> int:
    """The prefix every request shares plus room for about two requests' varying parts,
    rounded to whole thousands of tokens; never less than the largest request with its
    decode reserve (a pool that cannot hold a request cannot serve it: the user's own
    capacities are refused below that, so advisor's default must not fall there)."""
    keys = [j.key for j in jobs]
    static_prefix = len(os.path.commonprefix(keys)) // ITEM if keys else 0
    mean = sum(j.prompt_tokens for j in jobs) / max(1, len(jobs))
    largest = max((j.prompt_tokens + j.output_len - 1 for j in jobs), default=0)
    typical = int(round((static_prefix + 2 * max(0.0, mean - static_prefix)) / 1000.0) or 1) * 1000
    return max(typical, -(-largest // 1000) * 1000)
