r"""## What it does
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
              {"role": "user", "content": "Now: 2025-03-01 09:14:02.\n\nWhere is my order?"}]}
```
A value the chat template renders itself (a `date_string` kwarg, `strftime_now`) is pinned
to one value instead; a value in the history is sent as it was first sent, and the current
value stated in the newest message.

## Fix
`advisor prescribe` rewrites the logged requests with each move (to the end or the start of
the last user turn, the end of its message, after the shared content), renders and
tokenizes them again and keeps the move that measures best; with `--templates` it shows the
template diff that makes it. It changes no template or traffic file.
"""

# TR101 dynamic-content: the docstring above is the rule's documentation (`advisor rule TR101`
# prints it, the SARIF driver carries it as the rule's help). The finding comes from the
# traffic diagnosis (advisor.diagnose) of `advisor analyze`, `prescribe` and `report`; nothing
# here detects it. No imports: advisor.findings builds TRAFFIC_RULES from these constants on
# every command.

CODE = "TR101"
NAME = "dynamic-content"
SEVERITY = "warning"
SUMMARY = "A value that varies between requests sits inside content the requests share."
# `__doc__` is None under `python -OO` (docstrings dropped): the rule then has no documentation.
DOCS = (__doc__ or "").strip()
