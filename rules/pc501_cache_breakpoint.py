"""PC501 misplaced-cache-breakpoint: an Anthropic `cache_control` breakpoint that marks a
prefix which varies between requests (Python prompt builders)."""

from __future__ import annotations

from typing import Iterator

from advisor.lint import python as py
from advisor.lint.rule import Context, Problem, Rule

DOCS = """\
## What it does
Reports a `cache_control` breakpoint (Anthropic prompt caching, also passed through by
LiteLLM) whose cached prefix holds something that differs between requests: a clock, date or
random value anywhere before it (outside the last message), a tool list that is shuffled,
sampled or filtered, a set iterated into the text, or per-request data in the tool list or
the system prompt. The breakpoint may sit on the varying block itself or on a later one; each
varying piece is reported once, at the first breakpoint whose prefix holds it, and the
message names the piece's line. Per-request turns of the conversation before a breakpoint
are not reported: a breakpoint on the last message is how a multi-turn conversation is
cached. Such a breakpoint is reported when the tools or system prompt before it vary: the
conversation it caches is then never read again. A date (which changes once a day) is
reported as information: it costs one cache write a day; a breakpoint behind an earlier one
that still caches a stable prefix is a warning (its writes are lost, not every read).

## Why is this bad?
A breakpoint asks the API to write the prefix up to it into the cache (at a higher price
than plain input tokens) and to read it back when a later request starts with the same
prefix. A prefix that holds the current time, an id or a per-request value never comes
back: every request pays the cache write and none gets a read.

## Example
```python
client.messages.create(
    model=MODEL,
    system=[
        {"type": "text", "text": POLICY},
        {"type": "text", "text": f"Local time: {datetime.now():%H:%M}.",
         "cache_control": {"type": "ephemeral"}},                       # PC501
    ],
    messages=[{"role": "user", "content": question}],
)
```

## Use instead
Put the breakpoint on the last block that is the same for every request, and the varying
value after it:
```python
system=[
    {"type": "text", "text": POLICY, "cache_control": {"type": "ephemeral"}},
    {"type": "text", "text": f"Local time: {datetime.now():%H:%M}."},
]
```

## Fix safety
No fix: where the breakpoint belongs depends on which blocks the application keeps stable.
"""


def check(model: py.PythonModel, ctx: Context) -> Iterator[Problem]:
    for site in py.sites_for(model, "PC501"):
        if site.noun == "conversation":  # a breakpoint on the last message: the conversation's cache
            advice = ("Move the value that varies out of the tools and the system prompt (into the last message): "
                      "a conversation is cached only when everything before it is the same for every request")
        else:
            advice = "Put the breakpoint on the last block before the first value that varies, and move that value after it"
        # A date costs one cache write a day: information, as for PC101. Behind a breakpoint that
        # still caches a stable prefix, the loss is this breakpoint's writes: a warning.
        severity = "info" if site.kind == "date" else "warning" if site.stable_break else None
        still = f" (the breakpoint at line {site.stable_break} still caches the stable prefix before it)" if site.stable_break else ""
        yield py.problem(site, f"{site.what}{still}. {advice}.", severity=severity)


RULE = Rule(
    code="PC501",
    name="misplaced-cache-breakpoint",
    severity="error",
    summary="a cache_control breakpoint marks a prefix that varies between requests",
    docs=DOCS,
    scope="python",
    check=check,
    module=__name__,
    python=check,
)
