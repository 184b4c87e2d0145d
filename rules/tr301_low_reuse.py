r"""## What it does
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
None: `advisor prescribe` reports the action `none` for it.
"""

# TR301 low-reuse: the docstring above is the rule's documentation (`advisor rule TR301`
# prints it, the SARIF driver carries it as the rule's help). The finding comes from the
# traffic diagnosis (advisor.diagnose) of `advisor analyze`, `prescribe` and `report`; nothing
# here detects it. No imports: advisor.findings builds TRAFFIC_RULES from these constants on
# every command.

CODE = "TR301"
NAME = "low-reuse"
SEVERITY = "warning"
SUMMARY = "The prompts share almost nothing with earlier requests."
# `__doc__` is None under `python -OO` (docstrings dropped): the rule then has no documentation.
DOCS = (__doc__ or "").strip()
