"""Where the prompts are served, and the shortest prefix each cache can reuse.

The lint configuration names the target (``target = "vllm"``); PC301 checks the static prefix
against its minimum and says which minimum it checked and where it comes from. The engines
cache from one token (SGLang) or one KV block (vLLM); the hosted APIs only from 1,024 tokens
or more, by model (the figures and their sources: shared/docs/REFERENCE.md, section 9.1).
"""

from __future__ import annotations

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
