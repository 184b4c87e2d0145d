"""Reading a template's source: columns and tag extents Jinja's AST does not keep.

Jinja nodes only carry line numbers. A small scanner of the original source finds every tag
(``{{``, ``{%``, ``{#``) and the text runs between them, so that the walker can give each
segment its exact columns. Long static runs are swapped for short placeholders before Jinja
parses the text (see :func:`compact`).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from jinja2 import nodes

from advisor.lint.lines import Lines


@dataclass(frozen=True)
class Tag:
    kind: str  # "{{", "{%", "{#"
    start: int
    end: int
    keyword: str  # first word of a block tag


_TAG_START = re.compile(r"\{\{|\{%|\{#")
_RAW = re.compile(r"\s*-?\s*raw\s*-?\s*$")
_ENDRAW = re.compile(r"\{%-?\s*endraw\s*-?%\}")
_KEYWORD = re.compile(r"[-+]?\s*([A-Za-z_]+)")


def _find_close(src: str, pos: int, closer: str) -> int:
    """Offset just past ``closer``, skipping string literals inside the tag."""
    quote = ""
    i, n = pos, len(src)
    while i < n:
        ch = src[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif src.startswith(closer, i):
            return i + 2
        i += 1
    return n


def scan(src: str) -> list[Tag]:
    tags: list[Tag] = []
    pos = 0
    while True:
        m = _TAG_START.search(src, pos)
        if not m:
            return tags
        kind = m.group()
        if kind == "{#":
            close = src.find("#}", m.end())
            end = len(src) if close < 0 else close + 2
            tags.append(Tag(kind, m.start(), end, ""))
            pos = end
            continue
        end = _find_close(src, m.end(), "}}" if kind == "{{" else "%}")
        body = src[m.end(): end - 2]
        kw = _KEYWORD.match(body)
        tags.append(Tag(kind, m.start(), end, kw.group(1) if (kw and kind == "{%") else ""))
        pos = end
        if kind == "{%" and _RAW.match(body):
            # Everything up to endraw is text, even if it looks like tags.
            raw_end = _ENDRAW.search(src, end)
            if raw_end:
                tags.append(Tag("{%", raw_end.start(), raw_end.end(), "endraw"))
                pos = raw_end.end()


_OPENERS = {
    "for": "endfor",
    "if": "endif",
    "macro": "endmacro",
    "call": "endcall",
    "filter": "endfilter",
    "block": "endblock",
    "with": "endwith",
    "raw": "endraw",
    "set": "endset",
    "autoescape": "endautoescape",
}


class Locator:
    """Maps AST line numbers back to tags and text runs of the original source."""

    def __init__(self, src: str):
        self.src = src
        self.line_starts = Lines(src).starts
        self.tags = scan(src)
        self.used = [False] * len(self.tags)
        self.by_line: dict[int, list[int]] = {}
        for idx, tag in enumerate(self.tags):
            first, last = self.line_of(tag.start), self.line_of(max(tag.start, tag.end - 1))
            for ln in range(first, last + 1):
                self.by_line.setdefault(ln, []).append(idx)
        self.closer = self._pair()
        # Text runs between tags, in order, for placing TemplateData.
        self.gaps: list[tuple[int, int]] = []
        prev = 0
        for tag in self.tags:
            if tag.start > prev:
                self.gaps.append((prev, tag.start))
            prev = max(prev, tag.end)
        if prev < len(src):
            self.gaps.append((prev, len(src)))
        self.gap_lines = [self.line_of(g[0]) for g in self.gaps]
        self.next_gap = 0

    def _pair(self) -> dict[int, int]:
        stack: list[int] = []
        pairs: dict[int, int] = {}
        for idx, tag in enumerate(self.tags):
            if tag.kind != "{%":
                continue
            kw = tag.keyword
            if kw in _OPENERS:
                if kw == "set" and "=" in self.src[tag.start: tag.end]:
                    continue  # an inline set has no end tag
                stack.append(idx)
            elif kw.startswith("end") and stack:
                # Unwind to the matching opener; mismatches are PC001's business.
                for depth in range(len(stack) - 1, -1, -1):
                    if _OPENERS.get(self.tags[stack[depth]].keyword) == kw:
                        pairs[stack[depth]] = idx
                        del stack[depth:]
                        break
        return pairs

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self.line_starts, offset)

    def pos(self, offset: int) -> tuple[int, int]:
        line = self.line_of(offset)
        return line, offset - self.line_starts[line - 1] + 1

    def tag(self, kind: str, lineno: int, keywords: tuple[str, ...] = ()) -> int | None:
        for idx in self.by_line.get(lineno, ()):
            tag = self.tags[idx]
            if not self.used[idx] and tag.kind == kind and (not keywords or tag.keyword in keywords):
                self.used[idx] = True
                return idx
        return None

    def span(self, idx: int | None, lineno: int, through_end: bool = False) -> tuple[int, int, int, int, str]:
        if idx is None:
            line_text = self._line_text(lineno)
            col = len(line_text) - len(line_text.lstrip()) + 1
            return lineno, col, lineno, len(line_text) + 1, line_text.strip()
        tag = self.tags[idx]
        end = tag.end
        if through_end and idx in self.closer:
            end = self.tags[self.closer[idx]].end
        line, col = self.pos(tag.start)
        end_line, end_col = self.pos(end)
        return line, col, end_line, end_col, self.src[tag.start: tag.end]

    def _line_text(self, lineno: int) -> str:
        if lineno < 1 or lineno > len(self.line_starts):
            return ""
        start = self.line_starts[lineno - 1]
        stop = self.src.find("\n", start)
        return self.src[start: stop if stop >= 0 else len(self.src)]

    def data(self, lineno: int, text: str) -> tuple[int, int, int, int]:
        """Place a TemplateData node: the next text run starting on its line."""
        i = self.next_gap
        while i < len(self.gaps) and self.gap_lines[i] < lineno:
            i += 1
        if i >= len(self.gaps):
            return lineno, 1, lineno, 1
        start, stop = self.gaps[i]
        offset = self.src.find(text, start, stop) if text else -1
        # A run emptied by whitespace control has no node; try the next run on this line.
        j = i + 1
        while offset < 0 and j < len(self.gaps) and self.gap_lines[j] == self.gap_lines[i]:
            found = self.src.find(text, *self.gaps[j])
            if found >= 0:
                i, offset = j, found
            j += 1
        self.next_gap = i + 1
        if offset < 0:
            offset = start
        line, col = self.pos(offset)
        end_line, end_col = self.pos(offset + len(text))
        return line, col, end_line, end_col


# Long static runs are swapped for short placeholders (same line count) before Jinja sees
# them: Jinja's lexer scans text runs character by character with a large alternation, so
# for prose-heavy prompts it dominates the run time. Leading and trailing whitespace of each
# run stays in place, so whitespace control (-, trim_blocks, lstrip_blocks) acts as before.
COMPACT_MIN = 160
_PLACEHOLDER = re.compile("\x00(\\d+)\n*\x00")


def compact(text: str, loc: Locator) -> tuple[str, list[tuple[str, str]]]:
    if "\x00" in text:
        return text, []
    parts: list[str] = []
    cores: list[tuple[str, str]] = []
    prev = 0
    for start, stop in loc.gaps:
        if stop - start < COMPACT_MIN:
            continue
        run = text[start:stop]
        lead = len(run) - len(run.lstrip())
        core = run.strip()
        if len(core) < COMPACT_MIN:
            continue
        core_start = start + lead
        # The newlines sit inside the markers, where no whitespace rule can trim them.
        stand_in = f"\x00{len(cores)}" + "\n" * core.count("\n") + "\x00"
        parts.append(text[prev:core_start])
        parts.append(stand_in)
        cores.append((stand_in, core))
        prev = core_start + len(core)
    if not cores:
        return text, []
    parts.append(text[prev:])
    return "".join(parts), cores


def restore(ast: nodes.Template, cores: list[tuple[str, str]]) -> None:
    for node in ast.find_all(nodes.TemplateData):
        if "\x00" in node.data:
            node.data = _PLACEHOLDER.sub(lambda m: cores[int(m.group(1))][1], node.data)
