"""Docs-before-system workloads: retrieved passages placed ahead of a static system prompt.

A deterministic generator for the report's conditional decision (issue 12): each request
carries ``passages`` passages drawn from a corpus, placed before a system prompt every request
shares, either in the same message (``same-message``: one system message, passages first) or
as an earlier message (``earlier-message``: a system message of passages, then the system
prompt). Record kinds: ``messages``; ``prompt`` (the same text as one raw prompt: passages,
then the instructions); ``input_ids`` (the messages records rendered with the Llama 3.1
layout and encoded with the real Llama 3 tokenizer). Passage length (sentences per passage),
passage count, corpus size and system prompt size vary per shape.

For each workload the generator also writes the ideally fixed traffic (the system prompt
first, then the passages, then the question), and ``truth`` is the hit rate of that fixed
traffic by the brute-force oracle of ``tests.diagnose.heldout`` (every request against every
earlier one over token ids; nothing shared with advisor's radix tree).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from tests.diagnose.heldout import Engine, chat, hit_rate, prompt, sys_msg, user
from tests.diagnose.heldout_text import COMPANIES, PRODUCT_AREAS, Prose, system_prompt


@dataclass(frozen=True)
class Shape:
    placement: str  # same-message | earlier-message
    kind: str  # messages | prompt | input_ids
    passages: int  # passages per request
    sentences: int  # sentences per passage
    system_paragraphs: int  # size of the static system prompt
    corpus: int = 120
    requests: int = 70
    seed: int = 0

    @property
    def name(self) -> str:
        return (f"{self.placement}-{self.kind}-p{self.passages}x{self.sentences}-sys{self.system_paragraphs}"
                f"-c{self.corpus}-s{self.seed}")


def _passage(p: Prose, doc: int, sentences: int) -> str:
    # Fixed per document id, whatever the rng state: a passage retrieved twice is the same text.
    local = Prose(random.Random(f"{p.name}/doc/{doc}"), p.company)
    title = f"[{local.rng.choice(PRODUCT_AREAS).capitalize()} article {doc}]"
    return title + "\n" + " ".join(local.kb_sentence() for _ in range(sentences))


def generate(shape: Shape, engine: Engine, pooled: bool = False) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(traffic as sent, traffic after the ideal fix), record for record. ``pooled``: the fix
    also sends each request's passages in one order, the corpus's (where their order carries
    no meaning, requests that drew the same passages then share them)."""
    rng = random.Random(f"docs-before/{shape.name}")
    prose = Prose(random.Random(f"docs-before/{shape.name}/prose"), COMPANIES[shape.seed % len(COMPANIES)])
    system = system_prompt(prose, shape.system_paragraphs, docs=2)
    corpus = [_passage(prose, d, shape.sentences) for d in range(shape.corpus)]
    sent: list[dict[str, Any]] = []
    fixed: list[dict[str, Any]] = []
    for i in range(shape.requests):
        drawn = rng.sample(corpus, shape.passages)
        docs = "Retrieved passages:\n\n" + "\n\n".join(drawn)
        kept = "Retrieved passages:\n\n" + "\n\n".join(sorted(drawn, key=corpus.index)) if pooled else docs
        q = prose.question()
        if shape.kind == "prompt":
            sent.append(prompt(i, f"{docs}\n\nInstructions:\n{system}\n\nQuestion: {q}\nAnswer:"))
            fixed.append(prompt(i, f"Instructions:\n{system}\n\n{kept}\n\nQuestion: {q}\nAnswer:"))
            continue
        if shape.placement == "same-message":
            orig = chat(i, [sys_msg(f"{docs}\n\n{system}"), user(q)])
            good = chat(i, [sys_msg(f"{system}\n\n{kept}"), user(q)])
        else:
            orig = chat(i, [sys_msg(docs), sys_msg(system), user(q)])
            good = chat(i, [sys_msg(system), sys_msg(kept), user(q)])
        if shape.kind == "input_ids":
            orig = {"id": orig["id"], "timestamp": orig["timestamp"], "input_ids": engine.ids(orig)}
            good = {"id": good["id"], "timestamp": good["timestamp"], "input_ids": engine.ids(good)}
        sent.append(orig)
        fixed.append(good)
    return sent, fixed


def truth(engine: Engine, *fixes: list[dict[str, Any]]) -> float:
    """The hit rate of the fixed traffic, by brute force: the best of ``fixes``."""
    return max(hit_rate(engine, fixed) for fixed in fixes)
