"""PC301 short-prefix: the static prefix is shorter than the cacheable minimum."""

from __future__ import annotations

from typing import Iterator

from advisor.lint.model import TemplateModel
from advisor.lint.rule import Context, Option, Problem, Rule, shared_tokens
from advisor.lint.targets import TARGETS

DOCS = """\
## What it does
Counts the tokens of the static prefix — the static text before the first per-request
value (clock and random values, which PC101 reports and which can be moved, are looked
past) — and reports templates whose prefix is shorter than the smallest prefix the target's
cache can reuse. The configuration names the target (`target`, see docs/lint.md): an engine,
`sglang` (the default; it caches from one token, so this rule stays quiet) or `vllm` (whole
16-token KV blocks), or a hosted API, `openai` (1,024 tokens), `anthropic` (1,024, or
`anthropic-512`, `anthropic-2048`, `anthropic-4096` by model), `gemini-flash` (1,024) or
`gemini-pro` (4,096). With `model` also configured (a catalog name such as `nemotron-h-8b`
or a path to a config.json; `gpu` optional) an engine's minimum is the smallest prefix it can
ever reuse on that model: vLLM's block on it (16, 64 with FlashMLA, and several hundred tokens
on linear-attention/Mamba hybrids: 1,040 on Nemotron-H-8B, 576 on Qwen3-Next-80B-A3B on
Hopper, 544 with Triton kernels), SGLang's Mamba checkpoint grid on a model with state layers
(64 for Gated DeltaNet, the model's Mamba chunk otherwise: 128 on Nemotron-H), else its page
(1: quiet). Hosted APIs ignore `model`. The message names the minimum it checked and where it
comes from. Templates whose prefix includes content of unknown length (`{{ tools|tojson }}`,
includes, a chat template's conversation) are not judged.

## Why is this bad?
A cache can only serve a prefix it holds: hosted prompt caches hold nothing under their
minimum (OpenAI 1,024 tokens; Anthropic 512 to 4,096 by model; Gemini 1,024 or 4,096), and
vLLM holds whole 16-token blocks only, so a shorter static prefix is recomputed on every
request whatever the traffic. On a hybrid model (Qwen3-Next, Nemotron-H: layers that keep a
state instead of per-token KV) vLLM 0.33 raises its block until one attention page holds a
layer's state, and resumes only at a block it kept a state for: a shared prefix shorter than
that block never hits, however long the rest of the prompt. SGLang 0.5.23 keeps such a
model's states only every checkpoint-grid step of a prefill, so a shared prefix shorter than
one step has no state to resume from. On other models SGLang reuses any prefix from one
token, so for it a short prefix is no problem. It is an information finding: the template
may be fine, but prefix caching will not help it unless more stable content (instructions,
tool schemas, examples) moves into the prefix.

## Example
```jinja
Answer briefly.
Question: {{ question }}
```
With `target = "vllm"` and `model = "nemotron-h-8b"`, a static prefix of a few hundred
tokens (a system prompt with its policy) is still reported: below the 1,040-token hybrid
block of vLLM 0.33.0 on nvidia/Nemotron-H-8B-Base-8K.

## Use instead
Put the long, stable parts (instructions, tool schemas, few-shot examples) first, so that
the shared prefix reaches the minimum (on a hybrid model served by vLLM, at least one hybrid
block; or serve it where its block is smaller):
```jinja
You are the Corvina documentation assistant. ... (1,000+ tokens of stable instructions)
Question: {{ question }}
```

## Fix safety
No fix: the remedy is more stable content, which only its author can write.
"""

OPTIONS = {
    "min_tokens": Option(int, 0, "The smallest prefix worth caching, in tokens of the chosen tokenizer; 0 (the default) takes "
                         "the minimum of the configured target (on the configured model, for an engine)."),
}


def check(model: TemplateModel, ctx: Context) -> Iterator[Problem]:
    target = TARGETS[ctx.target]
    # With `model` configured an engine's minimum is its cache block (or grid) on that model.
    floor = ctx.options["min_tokens"] or (ctx.minimum.tokens if ctx.minimum else target.minimum)
    end = model.prefix_end(include_timed=False)
    prefix = model.segments[:end]
    if any(s.kind == "dynamic" and s.has_output and s.construct != "if" for s in prefix if not s.effective.timed):
        return  # constant content of unknown length: cannot tell
    n = shared_tokens(model, [s for s in prefix if s.is_shared_text], ctx.count_tokens)
    if n >= floor or (target.engine and n == 0 and not ctx.options["min_tokens"]):
        return  # an engine reuses what there is; a template with no static prefix is PC101's business
    if ctx.options["min_tokens"]:
        source = f"the configured {floor:,}-token minimum"
    elif ctx.minimum is not None:
        source = f"{ctx.minimum.label} (target `{target.name}`: {ctx.minimum.why})"
    else:
        source = f"the {floor:,}-token minimum of {target.label} (target `{target.name}`: {target.why})"
    line, column = (model.segments[end].line, model.segments[end].column) if end < len(model.segments) else (1, 1)
    yield Problem(
        line,
        column,
        f"the static prefix is {n} tokens, below {source}; move more stable content before the first per-request value",
        tokens_at_risk=n,
    )


RULE = Rule(
    code="PC301",
    name="short-prefix",
    severity="info",
    summary="the static prefix is shorter than the cacheable minimum",
    docs=DOCS,
    scope="template",
    check=check,
    options=OPTIONS,
    module=__name__,
)
