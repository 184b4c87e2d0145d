"""The layout of a template's static text: segments in rendered order, sections, the prefix.

The walker (advisor.lint.walker) turns a template into :class:`Segment` s, static text runs
and dynamic spans, each with its taint; :class:`TemplateModel` holds them with the sections
(headings, labels, tags, roles, blocks) and the sites other rules look at, and says where the
prefix every request shares ends.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from advisor.lint.taint import CONSTANT, PAYLOAD, Taint



@dataclass(frozen=True)
class Section:
    name: str  # normalised: lower case, no markup
    label: str  # as written
    line: int
    column: int
    origin: str  # heading | label | tag | role | block | marker


_HEADING = re.compile(r"^[ \t]{0,3}(#{1,6})[ \t]+(.+?)[ \t#]*$")
_LABEL = re.compile(r"^[ \t]*([A-Z][A-Za-z0-9 _/&-]{1,40}):[ \t]*$")
_XML_TAG = re.compile(r"^[ \t]*<([A-Za-z][A-Za-z0-9_-]{1,40})>[ \t]*$")


def normalise_section(label: str) -> str:
    return " ".join(re.sub(r"[#:*_`<>]", " ", label).lower().split())


# --- segments ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Segment:
    """One piece of the rendered output, in rendered order."""

    kind: str  # "static" (known text) or "dynamic"
    construct: str  # text | output | for | if | call | include | role
    text: str  # the static text, or the source of the tag
    line: int
    column: int
    end_line: int
    end_column: int  # exclusive
    taint: Taint = CONSTANT  # why this span's own text varies
    guard: Taint = CONSTANT  # why enclosing control flow may skip or repeat it
    end_index: int = 0  # index after the segments nested inside this one (loops, ifs)
    has_output: bool = True  # for control spans: whether any branch renders text
    # The string literals an output expression concatenates ('<|im_start|>' + role + ...):
    # chat templates write most of their fixed text this way.
    literal: str = ""

    @property
    def effective(self) -> Taint:
        return self.taint if self.taint.rank >= self.guard.rank else self.guard

    @property
    def is_shared_text(self) -> bool:
        """Static text that every request renders identically."""
        return self.kind == "static" and not self.guard.volatile


@dataclass(frozen=True)
class Site:
    """A construct another rule cares about: unstable ordering or a private attribute."""

    kind: str
    detail: str
    line: int
    column: int
    end_line: int
    end_column: int
    taint: Taint = CONSTANT
    segment_index: int = 0  # segments at or after this index render after the site
    fixable: str = ""  # what a fix would change: "items", "keys", "values", "|join:tag_set"


@dataclass(frozen=True)
class Comment:
    text: str
    line: int
    end_line: int


@dataclass(frozen=True)
class SyntaxIssue:
    message: str
    line: int


@dataclass
class TemplateModel:
    path: str
    source: str
    kind: str  # jinja | chat_template | messages | prompty
    segments: list[Segment] = field(default_factory=list)
    sections: list[Section] = field(default_factory=list)
    unstable: list[Site] = field(default_factory=list)
    unsafe: list[Site] = field(default_factory=list)
    # Chat-structure sites: "reasoning-history" (earlier turns lose their reasoning),
    # "tool-set" (the tool list filtered, reordered or placed per request or per turn) and
    # "tool-call-json" (tool-call arguments of the history re-serialized) and "last-turn"
    # (text from outside the conversation rendered only at the last turn).
    chat: list[Site] = field(default_factory=list)
    comments: list[Comment] = field(default_factory=list)
    syntax_errors: list[SyntaxIssue] = field(default_factory=list)
    # Offsets of ``source`` a fix may not edit: pieces whose text is not the file's as it
    # stands (an escaped or folded string), where a position is only approximate.
    opaque: list[tuple[int, int]] = field(default_factory=list)
    # conversation_from's answers, per segment index (filled on the first question).
    _conversation: list[bool] = field(default_factory=list, repr=False, compare=False)

    def shared_text_after(self, index: int) -> list[Segment]:
        """Static text every request renders, after the construct at ``index`` ends."""
        start = max(self.segments[index].end_index, index + 1)
        return [s for s in self.segments[start:] if s.is_shared_text or (s.literal and not s.effective.volatile)]

    def conversation_after(self, index: int) -> bool:
        """Whether the conversation (or other caller text every request of it shares: the
        system message, documents) renders after the construct at ``index``: shared tokens
        of a length no template knows, on top of the static text counted after it."""
        return self.conversation_from(max(self.segments[index].end_index, index + 1))

    def conversation_from(self, start: int) -> bool:
        """Whether the conversation renders at or after segment ``start``."""
        if len(self._conversation) != len(self.segments) + 1:
            # Asked once per finding: computed once per model, from the end.
            flags = [False] * (len(self.segments) + 1)
            for j in range(len(self.segments) - 1, -1, -1):
                s = self.segments[j]
                carries = s.kind == "dynamic" and s.has_output and s.construct != "if" and s.taint.kind == PAYLOAD
                flags[j] = flags[j + 1] or (carries and not s.guard.volatile)
            self._conversation = flags
        return self._conversation[min(start, len(self.segments))]

    def prefix_end(self, include_timed: bool = True) -> int:
        """Index of the first segment whose text varies per request (len() if none).

        ``include_timed=False`` looks past clock and random values: PC101 already reports
        them and they can be moved, so the prefix a template *could* share ends later.
        """
        for i, seg in enumerate(self.segments):
            eff = seg.effective
            if seg.kind == "dynamic" and eff.volatile and seg.has_output:
                if include_timed or not eff.timed:
                    return i
        return len(self.segments)


@dataclass(frozen=True)
class Settings:
    """What the analysis needs to know about the deployment."""

    static_variables: frozenset[str] = frozenset()
    section_markers: tuple[re.Pattern[str], ...] = ()
    trim_blocks: bool = False
    lstrip_blocks: bool = False


DEFAULT_STATIC_VARIABLES = frozenset(
    {
        # Special tokens and chat-template switches are fixed per model and deployment.
        "bos_token", "eos_token", "pad_token", "unk_token", "add_generation_prompt",
        # Tool schemas are part of the application, not the request.
        "tools", "tool_schemas", "functions", "custom_tools", "builtin_tools", "tools_in_user_message",
    }
)


# Lines that could be a heading, a tag or a label; one C-level pass instead of a Python loop
# over every line of prose.
_CANDIDATE = re.compile(r"^[ \t]*[#<].*$|^.*:[ \t]*$", re.MULTILINE)


def text_sections(seg: Segment, settings: Settings) -> list[Section]:
    text = seg.text
    if settings.section_markers:
        # Custom markers can match anywhere: look at every line.
        spans = [(m.start(), m.group()) for m in re.finditer(r"^.*$", text, re.MULTILINE)]
    else:
        spans = [(m.start(), m.group()) for m in _CANDIDATE.finditer(text)]
    found = []
    line_index, counted_to = 0, 0
    for offset, raw in spans:
        line_index += text.count("\n", counted_to, offset)
        counted_to = offset
        line_no = seg.line + line_index
        col = seg.column if line_index == 0 else 1
        head = raw.lstrip()[:1]
        m = _HEADING.match(raw) if head == "#" else None
        if m:
            found.append(Section(normalise_section(m.group(2)), m.group(2), line_no, col, "heading"))
            continue
        m = _XML_TAG.match(raw) if head == "<" else None
        if m:
            found.append(Section(normalise_section(m.group(1)), m.group(1), line_no, col, "tag"))
            continue
        # A label must own its line (a run that starts mid-line continues someone else's).
        m = _LABEL.match(raw) if raw.rstrip().endswith(":") else None
        if m and (line_index > 0 or seg.column == 1):
            found.append(Section(normalise_section(m.group(1)), m.group(1), line_no, col, "label"))
            continue
        for marker in settings.section_markers:
            m = marker.search(raw)
            if m:
                # The first group that matched names the section (an optional group may not).
                label = next((g for g in m.groups() if g), None) or m.group(0)
                if label.strip():
                    found.append(Section(normalise_section(label), label, line_no, col, "marker"))
                    break
    return found


# Long static runs are swapped for short placeholders (same line count) before Jinja sees
# them: Jinja's lexer scans text runs character by character with a large alternation, so
