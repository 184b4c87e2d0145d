"""Where the prompts are served, and the shortest prefix each cache can reuse.

The lint configuration names the target (``target = "vllm"``); PC301 checks the static prefix
against its minimum and says which minimum it checked and where it comes from. The engines
cache from one token (SGLang) or one KV block (vLLM); the hosted APIs only from 1,024 tokens
or more, by model (the figures and their sources: shared/docs/REFERENCE.md, section 9.1).

With ``model`` configured, an engine's minimum is its cache block on that model instead
(``model_minimum``): vLLM's hybrid block of several hundred tokens on a linear-attention or
Mamba hybrid, SGLang's Mamba checkpoint grid (shared/docs/ARCHITECTURES.md, sections 2.3 and 3).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass


@dataclass(frozen=True)
class Target:
    name: str
    minimum: int  # the shortest prefix, in tokens, the cache can serve
    label: str  # in messages: "vLLM's prefix cache"
    why: str  # where the minimum comes from
    engine: bool  # a self-hosted engine (caches from one token or block) or a hosted API


TARGETS = {
    t.name: t
    for t in (
        Target("sglang", 1, "SGLang's radix cache", "it matches from one token (page size 1)", True),
        Target("vllm", 16, "vLLM's prefix cache", "it caches whole KV blocks of 16 tokens (--block-size), so a shorter prefix is "
               "never a hit", True),
        Target("openai", 1024, "OpenAI prompt caching", "prompts under 1,024 tokens are not cached", False),
        Target("anthropic", 1024, "Anthropic prompt caching for Claude Opus 4 to 4.1 and 4.8, Sonnet 4 to 4.6 and Sonnet 5",
               "a shorter cache breakpoint is ignored without an error", False),
        Target("anthropic-512", 512, "Anthropic prompt caching for Claude Opus 5, Fable 5 and 5.1, Mythos 5 and 5.1",
               "a shorter cache breakpoint is ignored without an error", False),
        Target("anthropic-2048", 2048, "Anthropic prompt caching for Claude Opus 4.7, Haiku 3.5 and Mythos Preview",
               "a shorter cache breakpoint is ignored without an error", False),
        Target("anthropic-4096", 4096, "Anthropic prompt caching for Claude Opus 4.5 and 4.6, Haiku 4.5",
               "a shorter cache breakpoint is ignored without an error", False),
        Target("gemini-flash", 1024, "Gemini context caching for 2.5 Flash and 3 Flash", "its minimum cacheable prompt", False),
        Target("gemini-pro", 4096, "Gemini context caching for 2.5 Pro and 3 Pro", "its minimum cacheable prompt (the 2.5 launch "
               "post said 2,048)", False),
    )
}
# advisor is about SGLang and vLLM; SGLang is the engine the other commands default to.
DEFAULT_TARGET = "sglang"


@dataclass(frozen=True)
class ModelMinimum:
    """An engine target's minimum on the configured model (``model`` in the lint configuration):
    the smallest prefix that engine can ever reuse on it, and where that figure comes from."""

    tokens: int
    label: str  # in messages: "the 1,040-token hybrid block of vLLM 0.33.0 on nvidia/Nemotron-H-8B-Base-8K"
    why: str  # why a shorter prefix is not reused, and the geometry's own note on the figure


def model_minimum(target: str, model: str, gpu: str | None = None) -> ModelMinimum | None:
    """The shortest prefix ``target``'s engine reuses on ``model`` (a catalog name or a
    config.json path), from its cache geometry (``advisor.cost.layout.cache_geometry``); None
    for a hosted API, whose minimum does not depend on the model. ``gpu`` (a catalog GPU) picks
    vLLM's GDN prefill kernel, and so the hybrid block of a Gated DeltaNet model.

    vLLM resumes only on its block, which a model with state layers (linear attention, Mamba)
    raises until one attention page holds a layer's state: a shorter shared prefix never hits
    (shared/docs/ARCHITECTURES.md, sections 2.3 and 3). SGLang resumes such a model only on its
    Mamba checkpoint grid (no state is kept below one grid step), any other on its page.
    Raises AdvisorError for an unknown model or GPU, or a config.json it cannot read."""
    if not TARGETS[target].engine:
        return None
    return _engine_minimum(target, model, gpu)


@functools.lru_cache(maxsize=16)
def _engine_minimum(target: str, model: str, gpu: str | None) -> ModelMinimum:
    # advisor.cost is imported here, and only here: `advisor lint` without `model` never loads it.
    from advisor.cost.catalog import resolve_gpu, resolve_model
    from advisor.cost.layout import SGLANG_VERSION, VLLM_VERSION, cache_geometry

    spec = resolve_model(model)
    geo = cache_geometry(spec, target, gpu=resolve_gpu(gpu) if gpu else None)
    stateful = any(g.kind == "state" for g in geo.groups)
    if target == "vllm":
        unit = "hybrid block" if stateful else "block"
        return ModelMinimum(geo.block, f"the {geo.block:,}-token {unit} of {VLLM_VERSION} on {spec.id}",
                            f"a shorter prefix is never a hit; {geo.granularity_note}")
    if stateful and geo.grid > geo.block:
        return ModelMinimum(geo.grid, f"the {geo.grid:,}-token checkpoint grid of {SGLANG_VERSION} on {spec.id}",
                            f"a shorter prefix never gets a state to resume from; {geo.granularity_note}")
    return ModelMinimum(geo.block, f"the {geo.block:,}-token page of {SGLANG_VERSION} on {spec.id}", geo.granularity_note)
