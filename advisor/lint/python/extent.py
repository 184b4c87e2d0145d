"""How much of a module is analyzed: all of it up to MAX_TOKENS tokens (names, numbers,
strings, brackets), else the top-level statements that start within that many. Tokens, not
characters: the syntax tree, and the work of the analysis, grow with them (about 1.2 syntax
nodes per token, some 150 MB of tree per MB of dense code), while a table of 100,000
constant strings is 100,000 tokens however long its lines are. A prompt builder has a few
thousand tokens; a module of hundreds of thousands is generated code.

The cut is found without parsing: a scan of the source's tokens, strings, comments and
brackets finds the lines where a top-level statement starts; the text before the last of
them within the budget is parsed. The scan is checked by that parse: when the prefix does
not parse (a construct the scan does not know), the whole module is parsed instead.
"""

from __future__ import annotations

import re

MAX_TOKENS = 250_000

# What can hide a line break or a bracket (comments and string literals, with their prefix,
# escapes and triple quotes), names and numbers (counted), brackets, continuations, breaks.
_TOKEN = re.compile(
    r"""\#[^\n]*
      | [rRbBuUfF]{0,2}(?:\"\"\"(?:[^"\\]|\\.|"(?!""))*\"\"\"|'''(?:[^'\\]|\\.|'(?!''))*''')
      | [rRbBuUfF]{0,2}(?:"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
      | [^\W\d]\w*
      | \d[\w.]*
      | [(\[{]
      | [)\]}]
      | \\\n
      | \n""",
    re.VERBOSE | re.DOTALL,
)
# A line that continues the statement before it, though it starts at column 0.
_CONTINUES = re.compile(r"(?:else|elif|except|finally)\b")


def cut(text: str, limit: int | None = None) -> int:
    """The offset where the analyzed part of ``text`` ends: ``len(text)`` when it has at
    most ``limit`` tokens (MAX_TOKENS), else the start of the last top-level statement that
    starts within them (not between a decorator and its definition); 0 when there is none."""
    if limit is None:
        limit = MAX_TOKENS
    if len(text) <= limit:
        return len(text)  # a token takes a character at least
    depth = 0
    best = 0
    decorated = False  # the statements since the last boundary are decorators
    for count, m in enumerate(_TOKEN.finditer(text)):
        if count >= limit:
            return best
        token = m.group()
        if token in ("(", "[", "{"):
            depth += 1
        elif token in (")", "]", "}"):
            depth = max(depth - 1, 0)
        elif token == "\n" and depth == 0:
            start = m.end()
            kind = _line_kind(text, start)
            if kind == "decorator" and not decorated:
                best, decorated = start, True
            elif kind == "statement":
                if not decorated:
                    best = start
                decorated = False
    return len(text)


def _line_kind(text: str, start: int) -> str:
    """What the line at ``start`` is at the top level: "decorator", "statement" (starts a
    new one), or "" (indented, blank, a comment, or the rest of a compound statement)."""
    if start >= len(text):
        return ""
    c = text[start]
    if c in " \t\r\n#\\":
        return ""
    if c == "@":
        return "decorator"
    if _CONTINUES.match(text, start):
        return ""
    return "statement"
