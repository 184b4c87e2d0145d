r"""## What it does
Reports content that clients send in two spellings, each live (the other comes back):
another Unicode normalization (`normalization`: NFC against NFD, a client that decomposes
accents), another line wrapping or whitespace (`wrapping`: a prompt hard-wrapped at each
client's width), or another order of a JSON object's keys (`key-order`) or of a delimited
table's columns (`column-order`: a CSV export whose columns each client orders its own way).
The units are compared by an equivalence key (NFC; lines reflowed with each line's own
indentation kept, as it nests code, YAML and lists; JSON keys sorted, numbers as written; a
CSV table's columns sorted by their header); the most common spelling of a key is its
canonical one. `analyze` reports it where a varying span's paragraph equals its neighbour's
under that key (`advisor/diagnose/spelling.py`). `prescribe` answers it with the canonical
form, or with its spelling change alone at any gain where the whole form recovers less than
3% of the prompt tokens, and names the kinds the diagnosis did not report.

## Why is this bad?
Equal to a reader is not equal to the cache: "café" in NFC and in NFD are different bytes,
so different tokens, and every token after the first differing one is recomputed. A shared
prompt wrapped at 72 columns for one client and at 80 for another is two prefixes.

## Example
```json
{"messages": [{"role": "system", "content": "Réponds en français, poliment."}, ...]}
{"messages": [{"role": "system", "content": "Re\u0301ponds en franc\u0327ais, poliment."}, ...]}
```

## Use instead
Normalize once where the prompt is built (`unicodedata.normalize("NFC", text)`), keep one
wrapping (or none) for shared text, serialize JSON with sorted keys
(`json.dumps(value, sort_keys=True)`) and write a table's columns in one order.

## Fix
`advisor prescribe` rewrites the logged requests into the canonical form and measures it
(`--emit-rewritten FILE` writes them). It changes no template or traffic file.
"""

# TR104 unstable-spelling: the docstring above is the rule's documentation (`advisor rule
# TR104` prints it, the SARIF driver carries it as the rule's help). The diagnosis finds it
# (advisor.diagnose.structure, by the key of advisor.diagnose.spelling), and so do the causes
# of the canonical order (advisor.prescribe.causes); nothing here detects it. No imports: advisor.findings builds TRAFFIC_RULES from
# these constants on every command.

CODE = "TR104"
NAME = "unstable-spelling"
SEVERITY = "warning"
SUMMARY = ("The same content arrives spelled differently (Unicode normalization, wrapping, JSON key or CSV "
           "column order).")
# `__doc__` is None under `python -OO` (docstrings dropped): the rule then has no documentation.
DOCS = (__doc__ or "").strip()
