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
    with tempfile.TemporaryDirectory(prefix="advisor-plan-") as tmp:
        path = Path(tmp) / f"{gen.spec.name}.jsonl"
        gen.write(path)
        return hit_rate_of_file(path, gen.spec.tokenizer, page_size)


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
