"""Hit rate of generated traffic, measured through the same loader, renderer and index as
`advisor analyze` (the traffic is written as JSON Lines and read back like any log)."""

from __future__ import annotations

import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, cast

from advisor.errors import AdvisorError
from advisor.index.analyze import Analyzer
from advisor.ingest.chat import ChatRenderer, Llama3Layout
from advisor.ingest.pipeline import Renderer, Sequence, sequences
from advisor.ingest.tokenizers import load_tokenizer
from advisor.ingest.traffic import Skip
from advisor.spec.generate import Generated

if TYPE_CHECKING:
    from advisor.simulate.jobs import JobStore


def engine_hit_rate(gen: Generated, page_size: int = 1) -> float:
    """Cached / prompt tokens with unlimited capacity and the engines' hit rule (longest
    common prefix with an earlier request, at most L-1 tokens, whole pages)."""
    return measure(gen, page_size)[0]


def measure(gen: Generated, page_size: int = 1, pool_tokens: int | None = None) -> tuple[float, dict[str, float]]:
    """The unlimited-capacity hit rate and, given a pool size, the hit rate simulated at that
    pool per policy, as the report simulates it (serve mode, SGLang's hit rules, whole-leaf
    LRU, FCFS and the cache-aware ``lpm``). The traffic is read once for both."""
    with tempfile.TemporaryDirectory(prefix="advisor-plan-") as tmp:
        path = Path(tmp) / f"{gen.spec.name}.jsonl"
        gen.write(path)
        if pool_tokens is None:
            return hit_rate_of_file(path, gen.spec.tokenizer, page_size), {}
        from advisor.simulate.inputs import to_jobs

        counter = _Engine(page_size)
        skips: list[Skip] = []
        jobs, has_time = to_jobs(counter.watch(sequences([path], _renderer(gen.spec.tokenizer), skips.append)))
        if skips:
            raise AdvisorError(f"generated traffic did not load: {skips[0]}")
        unlimited = counter.hit_rate
        del counter  # its prefix tree is not needed by the simulation
        return unlimited, _at_pool(jobs, has_time, page_size, pool_tokens)


def _at_pool(jobs: JobStore, has_time: bool, page_size: int, pool_tokens: int) -> dict[str, float]:
    from advisor.simulate.runner import BlockIndexes, RunSpec, run

    indexes = BlockIndexes()
    mode = "serve" if has_time else "replay"
    return {policy: round(run(jobs, RunSpec(policy=policy, engine="sglang", page=page_size, mode=mode,
                                            eviction="branch-lru", capacity=pool_tokens), indexes).totals.hit_rate, 6)
            for policy in ("fcfs", "lpm")}


def _renderer(tokenizer: str) -> Renderer:
    return Renderer(tokenizer=load_tokenizer(tokenizer), chat=cast(ChatRenderer, Llama3Layout()))


class _Engine:
    """Cached and prompt tokens under the engines' hit rule, unlimited capacity: the longest
    common prefix with an earlier request, at most L-1 tokens, whole pages."""

    def __init__(self, page_size: int) -> None:
        self.page_size = page_size
        self.analyzer = Analyzer(page_size)
        self.cached = 0
        self.prompt = 0

    def add(self, seq: Sequence) -> None:
        lcp = self.analyzer.add(seq)
        cap = max(0, seq.prompt_tokens - 1) // self.page_size * self.page_size
        self.cached += min(lcp, cap)
        self.prompt += seq.prompt_tokens

    def watch(self, seqs: Iterable[Sequence]) -> Iterator[Sequence]:
        for seq in seqs:
            self.add(seq)
            yield seq

    @property
    def hit_rate(self) -> float:
        return self.cached / self.prompt if self.prompt else 0.0


def hit_rate_of_file(path: Path, tokenizer: str, page_size: int = 1) -> float:
    skips: list[Skip] = []
    counter = _Engine(page_size)
    for seq in sequences([path], _renderer(tokenizer), skips.append):
        counter.add(seq)
    if skips:
        raise AdvisorError(f"generated traffic did not load: {skips[0]}")
    return counter.hit_rate
