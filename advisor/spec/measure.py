"""Hit rate of generated traffic, measured through the same loader, renderer and index as
`advisor analyze` (the traffic is written as JSON Lines and read back like any log)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import cast

from advisor.errors import AdvisorError
from advisor.index.analyze import Analyzer
from advisor.ingest.chat import ChatRenderer, Llama3Layout
from advisor.ingest.pipeline import Renderer, sequences
from advisor.ingest.tokenizers import load_tokenizer
from advisor.ingest.traffic import Skip
from advisor.spec.generate import Generated


def engine_hit_rate(gen: Generated, page_size: int = 1) -> float:
    """Cached / prompt tokens with unlimited capacity and the engines' hit rule (longest
    common prefix with an earlier request, at most L-1 tokens, whole pages)."""
    return measure(gen, page_size)[0]


def measure(gen: Generated, page_size: int = 1, pool_tokens: int | None = None) -> tuple[float, dict[str, float]]:
    """The unlimited-capacity hit rate and, given a pool size, the hit rate simulated at that
    pool per policy, as the report simulates it (serve mode, SGLang's hit rules, whole-leaf
    LRU, FCFS and the cache-aware ``lpm``)."""
    with tempfile.TemporaryDirectory(prefix="advisor-plan-") as tmp:
        path = Path(tmp) / f"{gen.spec.name}.jsonl"
        gen.write(path)
        unlimited = hit_rate_of_file(path, gen.spec.tokenizer, page_size)
        at_pool: dict[str, float] = {}
        if pool_tokens is not None:
            at_pool = _at_pool(path, gen.spec.tokenizer, page_size, pool_tokens)
    return unlimited, at_pool


def _at_pool(path: Path, tokenizer: str, page_size: int, pool_tokens: int) -> dict[str, float]:
    from advisor.simulate.inputs import to_jobs
    from advisor.simulate.runner import BlockIndexes, RunSpec, run

    skips: list[Skip] = []
    renderer = Renderer(tokenizer=load_tokenizer(tokenizer), chat=cast(ChatRenderer, Llama3Layout()))
    jobs, has_time = to_jobs(sequences([path], renderer, skips.append))
    indexes = BlockIndexes()
    mode = "serve" if has_time else "replay"
    return {policy: round(run(jobs, RunSpec(policy=policy, engine="sglang", page=page_size, mode=mode,
                                            eviction="branch-lru", capacity=pool_tokens), indexes).totals.hit_rate, 6)
            for policy in ("fcfs", "lpm")}


def hit_rate_of_file(path: Path, tokenizer: str, page_size: int = 1) -> float:
    skips: list[Skip] = []
    renderer = Renderer(tokenizer=load_tokenizer(tokenizer), chat=cast(ChatRenderer, Llama3Layout()))
    analyzer = Analyzer(page_size)
    cached = prompt = 0
    for seq in sequences([path], renderer, skips.append):
        lcp = analyzer.add(seq)
        cap = max(0, seq.prompt_tokens - 1) // page_size * page_size
        cached += min(lcp, cap)
        prompt += seq.prompt_tokens
    if skips:
        raise AdvisorError(f"generated traffic did not load: {skips[0]}")
    return cached / prompt if prompt else 0.0
