r"""## What it does
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
               "content": "Passages:\n[1] ...\n[2] ...\n\nInstructions: ... (1,500 static tokens)\n\nQuestion: PIN reset?"}]}
```

## Use instead
Put the shared content first and the per-request content after it:
```json
{"messages": [{"role": "system", "content": "Instructions: ... (1,500 static tokens)"},
              {"role": "user", "content": "Passages:\n[1] ...\n[2] ...\n\nQuestion: PIN reset?"}]}
```

## Fix
`advisor prescribe` moves the per-request content after the shared content (or the shared
content ahead of it) in the logged requests, measures each move and keeps the best; with
`--templates` it shows the template diff. It changes no template or traffic file.
"""

# TR102 misplaced-content: the docstring above is the rule's documentation (`advisor rule
# TR102` prints it, the SARIF driver carries it as the rule's help). The finding comes from
# the traffic diagnosis (advisor.diagnose) of `advisor analyze`, `prescribe` and `report`;
# `prescribe` also reports it as `system-prompt-placement`; nothing here detects it. No
# imports: advisor.findings builds TRAFFIC_RULES from these constants on every command.

CODE = "TR102"
NAME = "misplaced-content"
SEVERITY = "warning"
SUMMARY = "Per-request content comes before content most requests share."
# `__doc__` is None under `python -OO` (docstrings dropped): the rule then has no documentation.
DOCS = (__doc__ or "").strip()
