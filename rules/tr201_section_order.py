r"""## What it does
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
the template diff (a sort on the loop). It changes no template or traffic file.
"""

# TR201 section-order: the docstring above is the rule's documentation (`advisor rule TR201`
# prints it, the SARIF driver carries it as the rule's help). The finding comes from the
# traffic diagnosis (advisor.diagnose) of `advisor analyze`, `prescribe` and `report`; nothing
# here detects it. No imports: advisor.findings builds TRAFFIC_RULES from these constants on
# every command.

CODE = "TR201"
NAME = "section-order"
SEVERITY = "warning"
SUMMARY = "The same sections or tool definitions arrive in different orders."
# `__doc__` is None under `python -OO` (docstrings dropped): the rule then has no documentation.
DOCS = (__doc__ or "").strip()
