"""One finding type for every code advisor reports: lint's PC codes and the traffic's TR codes.

A lint finding points at a line of a template (``path``, ``line``, ``column``, an optional
fix). A traffic finding points at a traffic file and, when the diagnosis knows it, the line
of the first record that shows it (``line`` 0: the file as a whole); its figures are where
in the prompt (``token_offset``, ``kind``) and what it costs (``requests``, ``tokens_lost``).
The renderers of ``advisor.lint.output`` (text, json, sarif, github) take both, so
``analyze --format sarif`` annotates traffic the way ``lint --format sarif`` annotates
templates. Each command keeps its own JSON shape (DESIGN.md): ``to_dict`` is the traffic one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from advisor.lint.fix import Fix


@dataclass(frozen=True)
class TrafficRule:
    """A traffic code as the SARIF driver lists it (lint's ``Rule`` carries the same fields)."""

    code: str
    name: str
    summary: str
    docs: str
    severity: str = "warning"


# Traffic findings are advice about the traffic, never a broken build: all warnings.
# ``docs`` is markdown in the sections of a lint rule's (``advisor rule TR101`` prints it, the
# SARIF driver carries it as each rule's help).
TRAFFIC_RULES: dict[str, TrafficRule] = {r.code: r for r in (
    TrafficRule("TR101", "dynamic-content",
                "A value that varies between requests sits inside content the requests share.",
                """## What it does
Reports a value that differs between requests inside content the requests otherwise share.
Each request is aligned with its nearest earlier neighbour (the one it shares the longest
prefix with); a span where the two differ and then share again, with static content after
it (held by most requests), is a finding when it costs at least 0.5% of the prompt tokens.
The span's text only labels it (`datetime`, `date`, `time`, `unix-timestamp`, `uuid`,
`hex-id`, `url`, `jwt`, `email`, `number`, `name-or-text`): a value is found whatever it
looks like. A value re-rendered into the conversation's history at every turn is marked
`in_history`. The finding counts the requests that show it and the cacheable tokens they
lose after it, and points at the first record that shows it.

## Why is this bad?
Prefix caching (SGLang RadixAttention, vLLM automatic prefix caching, hosted prompt
caching) reuses the KV cache only for an identical token prefix. Everything after the
varying value is a new prefix for each request, so the shared content behind it is never a
cache hit: a clock at the top of a 2,000-token system prompt makes all 2,000 tokens prefill
work on every request.

## Example
Two records of a log (the system prompt's rules run on for 2,000 tokens):
```json
{"messages": [{"role": "system", "content": "Now: 2025-03-01 09:14:02. You assist Corvina's customers. Rules: ..."},
              {"role": "user", "content": "Where is my order?"}]}
{"messages": [{"role": "system", "content": "Now: 2025-03-01 09:14:07. You assist Corvina's customers. Rules: ..."},
              {"role": "user", "content": "Can I return it?"}]}
```

## Use instead
Move the value after all static content (into the last user turn):
```json
{"messages": [{"role": "system", "content": "You assist Corvina's customers. Rules: ..."},
              {"role": "user", "content": "Now: 2025-03-01 09:14:02.\\n\\nWhere is my order?"}]}
```
A value the chat template renders itself (a `date_string` kwarg, `strftime_now`) is pinned
to one value instead; a value in the history is sent as it was first sent, and the current
value stated in the newest message.

## Fix
`advisor prescribe` rewrites the logged requests with each move (to the end or the start of
the last user turn, the end of its message, after the shared content), renders and
tokenizes them again and keeps the move that measures best; with `--templates` it shows the
template diff that makes it. It changes no template or traffic file."""),
    TrafficRule("TR102", "misplaced-content",
                "Per-request content comes before content most requests share.",
                """## What it does
Reports per-request content that opens its message ahead of content most requests share:
retrieved passages, a profile or summary message before the system prompt, the question
before static instructions in the user turn. It is a varying span of the alignment (see
TR101) that starts its message (after at most the chat markup and a label) and is long
content (64 tokens or more, or lines of text) rather than a value. `prescribe` also reports
it, as `system-prompt-placement`, where the chat template prints the system prompt where
the turns of a conversation part (with the last user turn) and sending it as the opening
of the first user turn measures a gain.

## Why is this bad?
The shared content follows a span that differs in every request, so it cannot be reused:
four retrieved passages ahead of 1,500 tokens of static instructions make those 1,500
tokens prefill work on every request.

## Example
```json
{"messages": [{"role": "user",
               "content": "Passages:\\n[1] ...\\n[2] ...\\n\\nInstructions: ... (1,500 static tokens)\\n\\nQuestion: PIN reset?"}]}
```

## Use instead
Put the shared content first and the per-request content after it:
```json
{"messages": [{"role": "system", "content": "Instructions: ... (1,500 static tokens)"},
              {"role": "user", "content": "Passages:\\n[1] ...\\n[2] ...\\n\\nQuestion: PIN reset?"}]}
```

## Fix
`advisor prescribe` moves the per-request content after the shared content (or the shared
content ahead of it) in the logged requests, measures each move and keeps the best; with
`--templates` it shows the template diff. It changes no template or traffic file."""),
    TrafficRule("TR103", "template-layout",
                "The chat template prints shared content (the tool definitions) after the conversation history.",
                """## What it does
Reads a sample of the rendered multi-turn requests that carry tools for where the chat
template prints the tool definitions. Where it prints them right before the last user turn
(after the conversation history), every request is replayed with the tools printed before
the first turn, and the finding reports what that recovers (when it is at least 0.5% of the
prompt tokens). The varying spans and orders this placement explains are folded into it
rather than reported as TR101, TR102 or TR201.

## Why is this bad?
A template that prints the tools right before the last user turn moves them behind a longer
history at every turn, so they are never a cache hit after the first turn, and neither is
what follows them. No change to the requests fixes it.

## Example
A chat template of this shape:
```jinja
{% for m in messages[:-1] %}{{ m.role }}: {{ m.content }}
{% endfor %}Tools: {{ tools | tojson }}
{{ messages[-1].role }}: {{ messages[-1].content }}
```

## Use instead
Serve with a chat template that prints the tools before the first turn (in the system turn):
```jinja
Tools: {{ tools | tojson }}
{% for m in messages %}{{ m.role }}: {{ m.content }}
{% endfor %}
```

## Fix
None in the requests: `advisor prescribe` counts these tokens as `template_layout` in its
attribution (measured by the replay)."""),
    TrafficRule("TR201", "section-order",
                "The same sections or tool definitions arrive in different orders.",
                """## What it does
Reports shared units that recur in different orders: tool definitions (`tool-order`),
sections of a prompt (`section-order`: headed blocks, paragraphs, lines, list items,
messages) or runs no block names (`content-order`, JSON members and a signature's
parameters among them). The alignment sees the same static runs (each held by at least a
tenth of the requests) in another order, costing at least 1% of the prompt tokens. The
finding lists the orders seen with their share, and the canonical order (most widely shared
first).

## Why is this bad?
Each new order is a new prefix: the blocks after the first one out of place are recomputed.
Twenty tool definitions sent in a random order per request share almost nothing after
the system prompt.

## Example
```json
{"messages": [...], "tools": [{"type": "function", "function": {"name": "search", ...}},
                              {"type": "function", "function": {"name": "refund", ...}}]}
{"messages": [...], "tools": [{"type": "function", "function": {"name": "refund", ...}},
                              {"type": "function", "function": {"name": "search", ...}}]}
```

## Use instead
Send them in one order: tools sorted by name (`sorted(tools, key=lambda t: t["function"]["name"])`),
sections in a fixed order (a template loop over `items | sort`).

## Fix
`advisor prescribe` sorts the tool definitions by name (and their keys), or puts the units
in the canonical order, in the logged requests and measures it; with `--templates` it shows
the template diff (a sort on the loop). It changes no template or traffic file."""),
    TrafficRule("TR301", "low-reuse",
                "The prompts share almost nothing with earlier requests.",
                """## What it does
Reported when the text requests reuse less than 15% of their prompt tokens from earlier
requests (each against its nearest earlier neighbour, unlimited cache) and no other finding
explains the loss. It counts the requests that reuse less than 10% of their own prompt.

## Why is this bad?
The traffic is unique content; no template change raises the hit rate, and prefix caching
buys little here: a cache sized for it holds KV that is never read again.

## Example
Summaries of documents: each request a different 8,000-token document behind a 40-token
instruction.

## Use instead
Nothing in the prompts to change. Do not size (or pay for) a prefix cache for this traffic;
where a static instruction is shared, keep it first.

## Fix
None: `advisor prescribe` reports the action `none` for it."""),
    TrafficRule("TR401", "capacity-pressure",
                "The KV pool keeps clearly fewer hits than unlimited capacity would.",
                """## What it does
`advisor simulate` with `--capacity-tokens`: reports a run whose pool keeps less than 80% of
the hit rate unlimited capacity gives the same traffic (same mode and hit rules, FCFS), and
at least 5 points less. Runs of the `optimal` eviction bound and tenant-budget runs are not
judged.

## Why is this bad?
Shared prefixes are evicted before they are reused: the pool computes again what a larger
one would serve from the cache.

## Example
`advisor simulate traffic.jsonl --capacity-tokens 200000`: a pool of 200,000 tokens keeps
12% of the prompt tokens cached against 41% with unlimited capacity.

## Use instead
Grow the pool (more GPU memory for the KV cache, a smaller KV dtype, more GPUs), shorten
the shared prefixes, or use a cache-aware scheduler or router (`advisor simulate --policy
fcfs,lpm --router cache-aware` compares them).

## Fix
No rewrite of the requests: `advisor prescribe --capacity-tokens N` proposes pinning the
most shared prefix in the pool and measures it."""),
    TrafficRule("TR501", "tenant-starvation",
                "A tenant's hit rate collapses in the shared pool against its own budget.",
                """## What it does
`advisor simulate` with two or more tenants and `--capacity-tokens`: each run is replayed
again with the tenants' budgets (`--tenant-budget`, equal shares by default), and a tenant
whose hit rate in the shared pool is at most half of its hit rate within its own budget,
and at least 5 points lower, is reported.

## Why is this bad?
Other tenants evict its prefixes (a noisy neighbour): its requests pay full prefill
although its own traffic would be cached.

## Example
Tenant `support` keeps 4% of its prompt tokens cached in the shared pool against 38% with
its own budget.

## Use instead
Give it a budget (a pool share) or route it to its own replica.

## Fix
No rewrite of the requests: compare `--tenant-budget` shares or `--replicas` with
`advisor simulate`."""),
    TrafficRule("TR601", "cache-granularity",
                "The model's cache reuses less of the shared prefixes than full attention would.",
                """## What it does
`advisor analyze --model M` (or `--model-dir`) on a model with sliding-window, chunked or
linear-attention (Mamba) layers: the hits follow the engine's cache rules on that model,
and the finding reports how many fewer tokens they keep than full attention would on the
same traffic (when at least 0.1% of the prompt tokens), with the block and checkpoint grid
the engine uses.

## Why is this bad?
On a model with sliding-window or linear-attention (Mamba) layers the engine can only
resume where it kept a window or a state: whole hybrid blocks (hundreds of tokens on vLLM),
and often only from the third request that shares a prefix. A shared prefix shorter than
one block is never a hit.

## Example
A 300-token system prompt on a hybrid model whose vLLM block is several hundred tokens: no
request ever hits it, though full attention would cache all 300 tokens of it.

## Use instead
Make the shared prefix a whole number of blocks long and longer than one, or serve the model
on the engine whose granularity is finer on this traffic (the report compares them).

## Fix
No rewrite of the requests: `advisor report` compares the engines on the model."""),
)}


def is_traffic_code(code: str) -> bool:
    return code.startswith("TR")


@dataclass(order=True)
class Finding:
    """One finding. Field order is lint's sort order: path, then position, then code.

    Lint sets the template fields; the traffic diagnosis sets ``code``, ``message`` and the
    traffic fields by keyword (``Finding(code=..., token_offset=..., kind=..., ...)``), and
    ``path``/``line`` when it knows which record showed the finding first. ``rule`` and
    ``severity`` of a TR code default to its entry in ``TRAFFIC_RULES``.
    """

    path: str = ""
    line: int = 0  # 1-based; 0: no line (a traffic finding about the file as a whole)
    column: int = 0
    code: str = ""
    message: str = ""
    rule: str = ""
    severity: str = ""
    end_line: int | None = None
    end_column: int | None = None
    tokens_at_risk: int | None = None
    fix: Fix | None = field(default=None, compare=False)
    # Traffic figures. ``kind`` names what the diagnosis found in the prompts (datetime,
    # section-order, single-shot, ...); it is empty for findings about a simulated run
    # (TR401, TR501), whose figures are all in ``details``.
    token_offset: int | None = None
    kind: str = ""
    requests: int = 0
    tokens_lost: int = 0
    example: str = ""
    # More fields of the JSON shape, after the common ones (examples, orders, hit rates).
    details: dict[str, Any] = field(default_factory=dict, compare=False)
    # What the rewrite needs and the JSON does not show (decoded contexts, unit texts).
    hidden: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not self.code:
            raise ValueError("a finding needs a code")
        traffic = is_traffic_code(self.code)
        if not self.rule and traffic:
            self.rule = TRAFFIC_RULES[self.code].name  # an unknown TR code is a bug: KeyError
        if not self.severity:
            self.severity = TRAFFIC_RULES[self.code].severity if traffic else "error"

    @property
    def is_traffic(self) -> bool:
        return is_traffic_code(self.code)

    def to_dict(self) -> dict[str, Any]:
        """The traffic JSON shape of analyze, prescribe and report (a diagnosis finding) or of
        simulate (a run finding: its figures, then the message)."""
        out: dict[str, Any] = {"code": self.code, "rule": self.rule}
        if not self.kind:
            out.update(self.details)
            out["message"] = self.message
            return out
        out.update({"token_offset": self.token_offset, "kind": self.kind, "requests": self.requests,
                    "tokens_lost": self.tokens_lost, "example": self.example, "message": self.message})
        out.update(self.details)
        return out
