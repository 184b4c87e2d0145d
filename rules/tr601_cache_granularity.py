r"""## What it does
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
No rewrite of the requests: `advisor report` compares the engines on the model.
"""

# TR601 cache-granularity: the docstring above is the rule's documentation (`advisor rule
# TR601` prints it, the SARIF driver carries it as the rule's help). The finding comes from
# the cache-granularity comparison (advisor.index.granularity) of `advisor analyze --model`;
# nothing here detects it. No imports: advisor.findings builds TRAFFIC_RULES from these
# constants on every command.

CODE = "TR601"
NAME = "cache-granularity"
SEVERITY = "warning"
SUMMARY = "The model's cache reuses less of the shared prefixes than full attention would."
# `__doc__` is None under `python -OO` (docstrings dropped): the rule then has no documentation.
DOCS = (__doc__ or "").strip()
