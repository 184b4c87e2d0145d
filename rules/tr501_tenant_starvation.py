r"""## What it does
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
`advisor simulate`.
"""

# TR501 tenant-starvation: the docstring above is the rule's documentation (`advisor rule
# TR501` prints it, the SARIF driver carries it as the rule's help). The finding comes from
# the simulator's judgement of a run with tenant budgets (advisor.simulate.runner) of `advisor
# simulate`; nothing here detects it. No imports: advisor.findings builds TRAFFIC_RULES from
# these constants on every command.

CODE = "TR501"
NAME = "tenant-starvation"
SEVERITY = "warning"
SUMMARY = "A tenant's hit rate collapses in the shared pool against its own budget."
# `__doc__` is None under `python -OO` (docstrings dropped): the rule then has no documentation.
DOCS = (__doc__ or "").strip()
