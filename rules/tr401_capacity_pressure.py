r"""## What it does
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
most shared prefix in the pool and measures it.
"""

# TR401 capacity-pressure: the docstring above is the rule's documentation (`advisor rule
# TR401` prints it, the SARIF driver carries it as the rule's help). The finding comes from
# the simulator's judgement of a run (advisor.simulate.runner) of `advisor simulate`; nothing
# here detects it. No imports: advisor.findings builds TRAFFIC_RULES from these constants on
# every command.

CODE = "TR401"
NAME = "capacity-pressure"
SEVERITY = "warning"
SUMMARY = "The KV pool keeps clearly fewer hits than unlimited capacity would."
# `__doc__` is None under `python -OO` (docstrings dropped): the rule then has no documentation.
DOCS = (__doc__ or "").strip()
