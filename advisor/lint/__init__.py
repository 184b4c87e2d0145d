"""`advisor lint`: a prompt-template linter for prefix caching.

Parse templates into a model of their rendered order (:mod:`advisor.lint.model`), run the
rules from the top-level ``rules/`` package over it (:mod:`advisor.lint.engine`), and
render one sorted finding list in the format CI wants (:mod:`advisor.lint.output`).
Nothing here executes template code.
"""
