r"""## What it does
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
attribution (measured by the replay).
"""

# TR103 template-layout: the docstring above is the rule's documentation (`advisor rule TR103`
# prints it, the SARIF driver carries it as the rule's help). The finding comes from the
# traffic diagnosis (advisor.diagnose) of `advisor analyze`, `prescribe` and `report`; nothing
# here detects it. No imports: advisor.findings builds TRAFFIC_RULES from these constants on
# every command.

CODE = "TR103"
NAME = "template-layout"
SEVERITY = "warning"
SUMMARY = "The chat template prints shared content (the tool definitions) after the conversation history."
# `__doc__` is None under `python -OO` (docstrings dropped): the rule then has no documentation.
DOCS = (__doc__ or "").strip()
