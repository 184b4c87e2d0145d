"""Canonical order: each request rewritten so that what most of the traffic shares comes first.

One mechanism for every shape of content, a pure function of the traffic:

1. Units. One splitter walks the structure a request has: the tool list (a tool is a unit),
   each message's content (text parts are units), and inside a text one fallback chain: a
   JSON object's members, else its paragraphs, else its lines (a table's header row stays
   put). A unit is split again by the same chain.
2. Volatility. A unit's equivalence key is its text under Unicode NFC with whitespace runs
   collapsed (JSON with its keys sorted). Each key is counted in the sessions it appears in:
   static (in at least STATIC_SHARE of them), shared (in two or more), unique (in one). Of
   the surface forms of one key, the most common is the canonical one, so normalization,
   wrapping and key-order differences disappear by choosing one form.
3. Order. In each container: static units in the order the log first showed them, then
   shared ones, then unique ones, each as they came (which passages a request retrieved and
   in what order is the client's meaning; what every request sends is only layout); of the
   unique ones, those the session sends again (its question, resent in the history) before
   those only one request sends (a reading restamped each time), and those drawn from what
   other sessions send (most of their own units recur: retrieved passages) before those of
   their own (a clock, a question). A static unit is kept whole; any other is split further
   (paragraphs, lines, a line's sentences), so a varying paragraph still puts its static
   lines first. Messages keep their order, but for the static system messages of a
   conversation's opening (ahead of its first assistant turn), which go first; a message's
   rewrite depends only on its own content and the global counts: a conversation's next
   request still extends its previous one.
4. Slots. The unique units of the first system message, and those of a tool's description,
   may instead go to the last user
   message: after the units every session opens it with (a static instruction ahead of the
   question: it stays in the prefix all share), or at its end. A fourth variant moves every
   unit not all sessions send there (examples drawn from a pool, a tenant's persona), the
   shared ones in one order by first-seen rank and the label line over the pool first, so
   that requests drawing the same ones share them. The caller measures each and keeps the best.
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
import itertools
import json
import re
import tomllib
from collections import Counter
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

from advisor.diagnose.brackets import balanced
from advisor.diagnose.spelling import normalized
from advisor.ingest.safe_yaml import YAMLError, safe_compose
from advisor.ingest.traffic import Request
from advisor.prescribe.markup import (PLAIN, REASONING_FIELDS, SYSTEM_ROLES, TOOLS_ROLE, Markup, prompt_messages,
                                      prompt_turns)
from advisor.prescribe.opening import system_into_first_user
from advisor.prescribe.pins import pin_template_values
from advisor.prescribe.slots import EDGE, SAMPLE, align
from yaml.nodes import MappingNode, SequenceNode

Fix = Callable[[Request], "Request | None"]
Key = tuple[str, str]  # (kind of unit, normalized text)
POOLED = "pooled-"  # a memo key's kind, for a form with what several sessions share in one order

# A key in this share of the sessions is part of the traffic's fixed prompt.
STATIC_SHARE = 0.9
# A unit's frame (what its copies share around a value) is fixed where this many times the
# sessions holding the unit whole send it.
FRAME_LEAD = 2
# The most varying tools read as one pool (a larger set of tools, linked pairwise, is a
# catalogue, not a list to send whole).
MAX_POOL = 64
# A tool's descriptions are read this deep at most (a schema nested deeper is kept whole).
MAX_DEPTH = 32
# A JSON array of at most this many strings or objects is a list of units (a larger one, or
# one of numbers, is data whose positions mean something: coordinates, a size, a series).
MAX_ITEMS = 64
# Rounds of count-and-rewrite at most: one usually settles it, a second catches units that
# became equal by the first (one spelling, one order).
ROUNDS = 3

# Kinds of unit. Keys are counted per kind, so a line only ever takes a line's surface form
# (one without a newline) and a paragraph a paragraph's (one without a blank line).
TEXT, PARA, LINE, SENTENCE, MEMBER, ITEM, TOOL = "text", "paragraph", "line", "sentence", "member", "item", "tool"
ENTRY = "entry"  # a YAML mapping's entry: its key line and the lines nested under it
TOOL_NAME = "tool-name"  # a tool's name: the tool, whatever its texts say
EXCHANGE = "exchange"  # a user turn up to the assistant's reply to it, ahead of the last user turn
STEP = "step"  # a tool call and its results, one of a run of such look-ups ahead of the last user turn
STATIC, SHARED, UNIQUE = 0, 1, 2  # volatility classes, in canonical order
# The three changes the canonical form makes, each of which a ``Canon`` can leave out: one
# spelling per unit, static units in one order, what varies after what every session shares.
SPELLING, ORDER, PLACEMENT = "spelling", "order", "placement"
CHANGES = frozenset({SPELLING, ORDER, PLACEMENT})

# Where the unique units of the first system message go, per variant.
KEPT = "end-of-message"
LAST_USER_START = "start-of-last-user-turn"
LAST_USER = "last-user-turn"

_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)*")
# Where a sentence ends inside a line: a full stop, question or exclamation mark before a
# space, or their CJK forms (written without one).
_SENTENCE_END = re.compile(r"(?<=[.!?])[ \t]+(?=\S)|(?<=[\u3002\uff01\uff1f])[ \t]*(?=\S)")
# A list item's ordinal ahead of its text: a number, a letter or a roman numeral, as "3.",
# "3)" or "(3)" ("b.", "(b)", "iv)").
_ORDINAL = re.compile(r"[ \t]*(\()?(\d{1,3}|[A-Za-z]|[ivxlcdm]{2,6}|[IVXLCDM]{2,6})(?(1)\)|[.)])[ \t]+(?=\S)")
_ROMAN = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100, "d": 500, "m": 1000}
# A label that opens a line of sentences, on the line itself.
_INLINE_LABEL = re.compile(r"[^\n.!?:]{1,40}:[ \t]+(?=\S)")
# A list item's number or letter ahead of its text ("3. ", "b. ", "iv. ").
_ENUMERATOR = re.compile(r"(?:\d{1,3}|[A-Za-z]|[ivxlcdm]{2,6}|[IVXLCDM]{2,6})\.[ \t]+(?=\S)")
# A list's separator, and an item: a few words, no sentence or clause inside it ("and", a
# full stop, a semicolon say it is prose).
_LIST_BREAK = re.compile(r",[ \t]*")
# A line with one bracketed list, and an item of it: short, nothing nested (no bracket or
# quote inside, whose commas are not the list's; no "*" or "/" marker, whose place is meaning).
_BRACKETED = re.compile(r"([^()\n]*\()([^()\n]*)(\)[^()\n]*)")
_BRACKET_ITEM = re.compile(r"[^\s,()\[\]{}<>\"'*/][^,()\[\]{}<>\"']{0,38}(?<!\s)")
_LIST_ITEM = re.compile(r"(?!(?:and|or) )[^\s.;:!?,][^.;:!?,]{0,38}(?<![.;:!?\s])")
_QUOTES_OR_BRACKETS = re.compile(r"[\"()\[\]{}]")
# What ends a piece that is no sentence: an abbreviation ("Dr.", "e.g.", "No."), a word of
# two letters or fewer or with a dot inside it, before its full stop.
_ABBREVIATION = re.compile(r"(?:^|\s)(?:[^\W\d_]{1,2}|\S*\.\S*)[.]$")
# Quotes whose pairs ``balanced`` does not read: a line holding one is not cut.
_OTHER_QUOTES = re.compile("[\u201c\u201d\u201e\u00ab\u00bb\u300c\u300d\u300e\u300f]")
# A text that may be a YAML document of its own (a configuration sent as the system prompt):
# after its comments, a key opens the first line, and some line is nested (where none is,
# its lines are the units anyway).
_YAML_TEXT = re.compile(r"(?:#[^\n]*\n|---\n)*[A-Za-z_][\w .-]*:(?:[ \t][^\n]*)?\n(?:.*\n)*?[ \t]+\S")
# A label ahead of JSON on its own line ("Functions: [{...}, ...]"): the JSON's units move, the
# label stays first.
_JSON_LABEL = re.compile(r"[^\n\[\]{}]{1,80}?:[ \t]*(?=[\[{])")
# A whole SQL definition, and a reference from one table to another.
_SQL_STATEMENT = re.compile(r"(?is)\s*CREATE\s[^;]*;[ \t]*(?:--[^\n]*)?")
_SQL_REFERENCES = re.compile(r"(?i)\bREFERENCES\b")
# A top-level definition of code (a blank line ahead of it, no indent), by the fence's
# language: a Python function or class (decorators first), a TypeScript or JavaScript function
# declaration, a TypeScript interface or type. Each opens with its name (a class's bases after).
_TOP_LEVEL = re.compile(r"\n[ \t]*\n(?=\S)")
_PYTHON_DEF = re.compile(r"(?:@[^\n]*\n)*(?:async[ \t]+)?(?:def|class)[ \t]+(\w+)([^\n]*)")
_TS_DEF = re.compile(r"(?:export[ \t]+)?(?:declare[ \t]+)?(?:async[ \t]+)?(?:function|interface|type)[ \t]+(\w+)([^\n]*)")
# A dotenv or properties setting on a line of its own.
_SETTING = re.compile(r"(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_.]*)[ \t]*=[^\n]*")
# A TOML table's header line.
_TOML_TABLE = re.compile(r"^\[[^\[\]\n]+\][ \t]*$", re.MULTILINE)
# What a YAML mapping's entries cannot be moved across: an anchor or alias (an alias must come
# after its anchor), a merge key, a block scalar that keeps its trailing blank lines.
_YAML_ORDERED = re.compile(r"(?:^|[\s\[{,])[&*][^\s,\[\]{}]|<<\s*:|[|>][0-9]?\+")
# A line that opens an XML element (not one closed on that line), and a text that is one
# element from its open tag's line to its close tag's line.
_XML_OPEN = re.compile(r"^\s*<([A-Za-z][\w.:-]*)(?:\s[^<>]*)?>\s*$")
_XML_WHOLE = re.compile(r"^(\s*<([A-Za-z][\w.:-]*)(?:\s[^<>]*)?>\n)(.*)(\n\s*</\2>\s*)$", re.DOTALL)
_TABLE_RULE = re.compile(r"^\|?[\s:|-]+\|?$")
# Any open or close tag on a line (its name, and whether it closes or is self-closed).
_XML_TAG = re.compile(r"<(/?)([A-Za-z][\w.:-]*)(?:\s[^<>]*?)?(/?)>")
# A paragraph that only rules one section off from the next (markdown's thematic break).
_RULE = re.compile(r"[ \t]*(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,}|={3,}|~{3,})")
# The last line of a prompt that opens the element the model writes in ("<assistant>").
_OPEN_CUE = re.compile(r"<[A-Za-z][\w.:-]*>")
# A paragraph or line that only labels what follows ("## Sources", "Examples:"); the second
# kind, left last, cues what the model writes next ("Answer:").
_LABEL = re.compile(r"^(?:#{1,6} .*|[^\n]{1,80}:)$")
_CUE = re.compile(r"^[^\n]{1,80}:$")
_HEADING = re.compile(r"#{1,6} ")
# A fenced code block: one unit, unless it holds a JSON object (its members, fences kept).
_FENCE = re.compile(r"^(```[^\n]*\n)(.*)(\n```)$", re.DOTALL)
# The layouts a JSON object is re-serialized in: only one that reproduces it exactly is used
# (an indented object's own indent is tried too: one space, three, a tab).
_JSON_LAYOUTS: tuple[tuple[int | str | None, tuple[str, str]], ...] = (
    (None, (", ", ": ")), (None, (",", ":")), (2, (",", ": ")), (4, (",", ": ")))


# Texts repeat across requests (a system prompt in every one): the pure steps below are
# memoized, bounded so that a log of unique texts holds at most this many of each. The
# bound must hold one prescription's working set (every unit at every level, over all its
# rounds and variants: 12,700 texts for the 400 requests of `plan`'s example), or the memo
# thrashes and each unit is split again (4,096 cost `plan` 3 s of 17). The memo holds no
# more than ``Counts`` does already: the key of every unit of the traffic.
MEMO_TEXTS = 1 << 16


# ---------------------------------------------------------------- the splitter


@dataclass(frozen=True)
class Split:
    """A text cut into units of one kind. ``fixed`` is the text around and between them
    (len(units) + 1 pieces), which stays in place when the units move; a JSON object is
    re-serialized in ``layout`` instead."""

    kind: str
    units: tuple[str, ...]
    fixed: tuple[str, ...]
    layout: tuple[int | str | None, tuple[str, str], bool] | None = None
    # A split of a JSON string's text: (ensure_ascii, the member holding it or None, the
    # text around the string); joined, the text is that string (or member) again.
    encoded: tuple[bool, str | None, str, str] | None = None
    # What parts the units of a bare join, where the text between them holds layout of its
    # own (a rule): moved out, they are parted by this alone.
    plain: str | None = None

    def join(self, units: list[str], bare: bool = False) -> str:
        """The text with ``units`` in the slots (fewer units fill the first slots); ``bare``
        leaves out what surrounds the first and last unit (a table's header, margins)."""
        if self.encoded is not None and not bare:
            ascii_string, member, lead, trail = self.encoded
            text = dataclasses.replace(self, encoded=None).join(units)
            encoded: Any = [member, text] if member is not None else text
            return lead + json.dumps(encoded, ensure_ascii=ascii_string) + trail
        head, tail = ("", "") if bare else (self.fixed[0], self.fixed[-1])
        if self.layout is not None:
            indent, separators, ascii_only = self.layout
            # (An array's items, or an object's members as [key, value] pairs.)
            value: Any = [json.loads(u) for u in units] if self.kind == ITEM else dict(json.loads(u) for u in units)
            return head + json.dumps(value, indent=indent, separators=separators, ensure_ascii=ascii_only) + tail
        pieces = [head]
        # (More units than slots, a value cut out of a unit as a unit of its own: what parts
        # units of this kind parts the rest, never the text's tail or a rule repeated.)
        extra = self.plain if self.plain is not None else _GAPS.get(self.kind, "\n\n")
        for k, unit in enumerate(units):
            pieces.append(unit)
            gap = (self.plain if bare and self.plain is not None
                   else self.fixed[k + 1] if k + 1 < len(self.fixed) - 1 else extra)
            pieces.append(gap if k + 1 < len(units) else "")
        return "".join(pieces) + tail


# What plainly parts two units of a kind (``Split.join``'s units past its slots).
_GAPS = {PARA: "\n\n", LINE: "\n", SENTENCE: " "}


def split_unit(text: str, kind: str) -> Split | None:
    """The units of a unit of ``kind``: a YAML entry's are the entries nested under it, a
    list item's only those of a JSON object (a YAML item's lines are its structure), any
    other's those of ``split_text``."""
    if kind == ITEM:
        return _json_split(text.strip(), text[:len(text) - len(text.lstrip())], text[len(text.rstrip()):])
    if kind == MEMBER:
        return _member_split(text)
    return _entry_split(text) if kind == ENTRY else split_text(text)


@functools.lru_cache(maxsize=MEMO_TEXTS)
def _member_split(member: str) -> Split | None:
    """A JSON member's units, where its value has them: an object's members (a member holds
    an object as a text holds one), a string's units as a text's (a tool result's notice
    lines, a query's sentences). A list's items are ``member_items``'."""
    name, value = json.loads(member)
    if _json_depth(value) > MAX_DEPTH:
        return None  # (a value nested deeper than that is left whole)
    # (One member too: the same key alone in some requests, beside a value in the others,
    # is counted in every one of them.)
    if isinstance(value, dict) and value:
        units = tuple(json.dumps([k, v], ensure_ascii=False) for k, v in value.items())
        return Split(MEMBER, units, (json.dumps([name], ensure_ascii=False)[:-1] + ", ",) + ("",) * (len(units) - 1)
                     + ("]",), (None, (", ", ": "), False))
    inner = split_text(value) if isinstance(value, str) else None
    return None if inner is None or inner.encoded is not None else dataclasses.replace(
        inner, encoded=(False, name, "", ""))


def _string_split(body: str, lead: str, trail: str) -> Split | None:
    """The units of a text sent as one JSON string (a tool's result the template printed
    with ``tojson``: JSON inside a string), where encoding it again gives it back exactly."""
    try:
        value = json.loads(body)
    except ValueError:
        return None
    if not isinstance(value, str):
        return None
    for ascii_only in (False, True):
        if json.dumps(value, ensure_ascii=ascii_only) == body:
            inner = split_text(value)
            # (One layer of encoding: a string inside a string is left whole.)
            return None if inner is None or inner.encoded is not None else dataclasses.replace(
                inner, encoded=(ascii_only, None, lead, trail))
    return None


@functools.lru_cache(maxsize=MEMO_TEXTS)
def _entry_split(text: str) -> Split | None:
    body = text.strip("\n")
    lead = len(text) - len(text.lstrip("\n"))
    return _yaml_split(body, text[:lead], text[lead + len(body):]) if body.strip() else None


@functools.lru_cache(maxsize=MEMO_TEXTS)
def split_text(text: str) -> Split | None:
    """The units of a text by the one fallback chain: a JSON object's members (under a label
    line or not), a fenced YAML block's entries, paragraphs, lines, a line's sentences; None
    for a text of one unit (or one that cannot be cut safely)."""
    body = text.strip()
    if not body:
        return None
    lead = text[: len(text) - len(text.lstrip())]
    trail = text[len(text.rstrip()):]
    if body[0] == body[-1] == '"' and len(body) > 1:
        encoded = _string_split(body, lead, trail)
        if encoded is not None:
            return encoded
    fence = _FENCE.match(body)
    if fence is not None:
        # Code, whose lines are not units: only a JSON object's members are, and a YAML
        # block's entries (its indentation is its structure: only blank lines are margins).
        inside = fence.group(2)
        info = fence.group(1)[3:].strip().lower()
        code = inside.strip("\n") if info in _CODE_SPLITS else inside.strip()
        start = inside.find(code)
        return _CODE_SPLITS.get(info, _json_split)(
            code, lead + fence.group(1) + inside[:start], inside[start + len(code):] + fence.group(3) + trail)
    # A JSON object or array under a label ("Config:" and the JSON on the lines after it, or
    # on the label's own line): the label stays first, the members or items are the units.
    # (The label and the JSON are one paragraph: JSON after other paragraphs is a paragraph
    # of its own.)
    opening = re.search(r"\n[{\[]", body)
    brace = opening.start() if opening else -1
    label = _JSON_LABEL.match(body)
    return (_json_split(body, lead, trail) or _documents_split(body, lead, trail)
            or (_json_split(body[brace + 1:], lead + body[:brace + 1], trail)
                if brace > 0 and not _PARAGRAPH_BREAK.search(body, 0, brace + 1) else None)
            or (_labelled_json(body, label.end(), lead, trail) if label else None)
            or (_yaml_split(body, lead, trail) if _YAML_TEXT.match(body) else None)
            or _paragraph_split(body, lead, trail) or _line_split(body, lead, trail)
            or _sentence_split(body, lead, trail) or _list_split(body, lead, trail)
            or _bracket_split(body, lead, trail))


def _documents_split(body: str, lead: str, trail: str) -> Split | None:
    """JSON documents one after another, parted by whitespace (a tool's result of a record
    line and a body, JSON Lines): each document is a unit (a line, or a paragraph where one
    spans lines or a blank line parts them). None for one document or any other text
    between them."""
    if body[:1] not in ("{", "["):
        return None
    decoder = json.JSONDecoder()
    units: list[str] = []
    gaps: list[str] = []
    at = 0
    while at < len(body):
        try:
            value, end = decoder.raw_decode(body, at)
        except ValueError:
            return None
        if not isinstance(value, (dict, list)):
            return None
        units.append(body[at:end])
        rest = body[end:]
        gap = rest[:len(rest) - len(rest.lstrip())]
        if "\n" not in gap and end + len(gap) < len(body):
            return None  # (documents share a line: no layout of lines to keep)
        gaps.append(gap)
        at = end + len(gap)
    if len(units) < 2:
        return None
    # (Lines where each document is one; else paragraphs: a line's key holds no newline.)
    kind = LINE if not any("\n" in unit or "\n" in gap.replace("\n", "", 1) for unit, gap in zip(units, gaps)) else PARA
    return Split(kind, tuple(units), (lead,) + tuple(gaps[:-1]) + (trail,))


def _labelled_json(body: str, start: int, lead: str, trail: str) -> Split | None:
    """JSON on its label's line (``body[start:]``), with the rest of that line after it (a
    content part joined to the next by a space): the label and the rest stay in place."""
    try:
        end = start + json.JSONDecoder().raw_decode(body[start:])[1]
    except ValueError:
        return None
    rest = body[end:]
    if "\n" in rest:
        return None
    return _json_split(body[start:end], lead + body[:start], rest + trail)


def _json_split(body: str, lead: str, trail: str) -> Split | None:
    """A JSON object's members, or a JSON array's items, where a layout gives it back."""
    if not body.startswith(("{", "[")):
        return None
    try:
        value = json.loads(body)
    except ValueError:
        return None
    if not isinstance(value, (dict, list)) or (isinstance(value, list) and _items(value) is None):
        return None
    # (One member is a unit only where it holds a list: its items are, {"sections": [...]}.)
    if len(value) < 2 and not (isinstance(value, dict) and len(value) == 1 and _nested(next(iter(value.values())))):
        return None
    second = body.split("\n", 2)[1] if body.startswith("{\n") else ""
    margin = second[:len(second) - len(second.lstrip(" \t"))]
    own: tuple[tuple[int | str | None, tuple[str, str]], ...] = (
        ((len(margin) if margin.strip(" ") == "" else margin, (",", ": ")),) if margin else ())
    for indent, separators in _JSON_LAYOUTS + own:
        for ascii_only in (False, True):
            # Only a layout that gives the text back exactly: a rewrite never reformats it.
            if json.dumps(value, indent=indent, separators=separators, ensure_ascii=ascii_only) == body:
                units = tuple(json.dumps(item, ensure_ascii=False) for item in value) if isinstance(value, list) else \
                    tuple(json.dumps([k, v], ensure_ascii=False) for k, v in value.items())
                return Split(ITEM if isinstance(value, list) else MEMBER, units,
                             (lead,) + ("",) * (len(units) - 1) + (trail,), (indent, separators, ascii_only))
    return None


def _nested(value: Any) -> bool:
    """Whether a lone member's value has units of its own: a list's items, an object's members."""
    return (bool(_items(value)) or isinstance(value, dict) and len(value) >= 2
            or isinstance(value, str) and split_text(value) is not None)


def _yaml_split(body: str, lead: str, trail: str) -> Split | None:
    """A YAML block mapping's entries, each a key's line and the lines nested under it (a
    mapping in another key order is the same mapping), or a block sequence's items, each a
    "- " line and the lines under it (ITEM units, put in one order only where every session
    sends each of them). Where the mapping has one entry whose value is a block mapping or
    sequence (an entry's own text, "tour:" over its keys), the units under it, its key line
    kept first. None for anything else: a flow collection, one unit, what does not parse,
    or what a reorder could change (``_YAML_ORDERED``)."""
    if not body.strip() or _YAML_ORDERED.search(body):
        return None
    try:
        node = safe_compose(body, unique_keys=True)  # (a key given twice: which one wins is order)
    except (YAMLError, RecursionError):
        return None
    lines = body.split("\n")
    top = 0
    while isinstance(node, MappingNode) and not node.flow_style and len(node.value) == 1:
        key, node = node.value[0]
        top = key.start_mark.line + 1
    if isinstance(node, MappingNode):
        kind, marks = ENTRY, [key.start_mark for key, _ in node.value]
    elif isinstance(node, SequenceNode):
        # (An item's node starts after its dash: the dash is two columns before it.)
        kind, marks = ITEM, [item.start_mark for item in node.value]
    else:
        return None
    if node.flow_style or len(marks) < 2:
        return None
    dash = 2 if kind == ITEM else 0
    column = marks[0].column - dash
    for mark in marks:
        # Each unit opens its own line at the collection's column.
        line = lines[mark.line]
        if (mark.column - dash != column or line[:column].strip()
                or (dash and not line[column:mark.column].startswith("-"))):
            return None
    starts = [mark.line for mark in marks]
    if starts != sorted(set(starts)) or starts[0] < top:
        return None
    units = tuple("\n".join(lines[a:b]) for a, b in zip(starts, starts[1:] + [len(lines)]))
    head = "".join(line + "\n" for line in lines[:starts[0]])
    return Split(kind, units, (lead + head,) + ("\n",) * (len(units) - 1) + (trail,))


def _toml_split(body: str, lead: str, trail: str) -> Split | None:
    """A TOML document's tables ("[name]" and the keys under it, a blank line apart): in
    another order the same document. None where it does not parse, has fewer than two
    tables, or has arrays of tables ("[[name]]", whose order is their meaning)."""
    if "[[" in body:
        return None
    try:
        tomllib.loads(body)
    except (tomllib.TOMLDecodeError, RecursionError):
        return None
    starts = [m.start() for m in _TOML_TABLE.finditer(body)]
    if len(starts) < 2:
        return None
    chunks = [body[a:b] for a, b in zip(starts, starts[1:] + [len(body)])]
    units = tuple(chunk.rstrip("\n") for chunk in chunks)
    gaps = [chunk[len(unit):] for chunk, unit in zip(chunks[:-1], units)]
    if len(set(gaps)) != 1 or chunks[-1] != units[-1]:
        return None  # (one gap between all tables, so that any order reads alike)
    return Split(ENTRY, units, (lead + body[:starts[0]],) + tuple(gaps) + (trail,))


def _sql_split(body: str, lead: str, trail: str) -> Split | None:
    """SQL definitions a blank line apart, each a whole CREATE statement (its own comment
    after it): in another order the same schema, where none refers to another (REFERENCES:
    a table must exist before a key points at it). Items (ITEM units): never cut further,
    a table's columns keep their order, and put in one order only where every session sends
    each of them."""
    if _SQL_REFERENCES.search(body):
        return None
    units = tuple(body.split("\n\n"))
    if len(units) < 2 or not all(_SQL_STATEMENT.fullmatch(unit) for unit in units):
        return None
    return Split(ITEM, units, (lead,) + ("\n\n",) * (len(units) - 1) + (trail,))


def _definitions(pattern: re.Pattern[str]) -> Callable[[str, str, str], Split | None]:
    """A fenced block of top-level definitions (tool stubs, interfaces), each a unit: in
    another order the same declarations, where no definition's own line names another (a
    class deriving from one defined here must come after it: refused). Items (ITEM units):
    never cut further, put in one order only where every session sends each of them. A
    block of one definition gives its signature's parameters (``_bracket_split``)."""

    def split(body: str, lead: str, trail: str) -> Split | None:
        units = _TOP_LEVEL.split(body)
        found = [pattern.match(unit) for unit in units]
        if len(units) == 1 and found[0] is not None:
            # One definition: its signature's parameters (a set printed in another order).
            line, newline, rest = body.partition("\n")
            return _bracket_split(line, lead, newline + rest + trail)
        if len(units) < 2 or not all(found):
            return None
        names = {m.group(1) for m in found if m is not None}
        if any(names & set(re.findall(r"\w+", m.group(2))) for m in found if m is not None):
            return None
        breaks = [m.group(0) for m in _TOP_LEVEL.finditer(body)]
        return Split(ITEM, tuple(units), (lead,) + tuple(breaks) + (trail,))
    return split


def _settings_split(body: str, lead: str, trail: str) -> Split | None:
    """A fenced dotenv or properties block's settings, one ``KEY=value`` a line: in another
    order the same settings, unless a value refers to another (``$VAR``, ``${VAR}``: expanded
    from those above it), a key is set twice (the last wins) or a line is anything else.
    Items (ITEM units): put in one order only where every session sends each."""
    lines = body.split("\n")
    keys = [m.group(1) for m in map(_SETTING.fullmatch, lines) if m is not None]
    if len(lines) < 2 or len(keys) != len(lines) or len(set(keys)) != len(keys) or "$" in body:
        return None
    return Split(ITEM, tuple(lines), (lead,) + ("\n",) * (len(lines) - 1) + (trail,))


# The units of a fenced block, by its info string (any other: a JSON object's, or none).
def _csv_split(body: str, lead: str, trail: str) -> Split | None:
    """A fenced CSV or TSV table's rows, its header row staying first (ITEM units: put in
    one order only where every session sends each). Not where a quoted field may hold a
    line break: a row is then not a line."""
    lines = body.split("\n")
    if len(lines) < 3 or any(line.count('"') % 2 for line in lines) or _header_rows(lines) != 1:
        return None
    return Split(ITEM, tuple(lines[1:]), (lead + lines[0] + "\n",) + ("\n",) * (len(lines) - 2) + (trail,))


_CODE_SPLITS: dict[str, Callable[[str, str, str], Split | None]] = {
    "yaml": _yaml_split, "yml": _yaml_split, "toml": _toml_split, "sql": _sql_split, "csv": _csv_split,
    "tsv": _csv_split, "python": _definitions(_PYTHON_DEF), "py": _definitions(_PYTHON_DEF),
    "typescript": _definitions(_TS_DEF), "ts": _definitions(_TS_DEF), "javascript": _definitions(_TS_DEF),
    "js": _definitions(_TS_DEF), "env": _settings_split, "dotenv": _settings_split, "properties": _settings_split}


def _paragraph_split(body: str, lead: str, trail: str) -> Split | None:
    pieces = _PARAGRAPH_BREAK.split(body)
    breaks = [m.group(0) for m in _PARAGRAPH_BREAK.finditer(body)]
    # A blank line inside a fenced block or inside an XML element (an element's lines up to
    # its close tag) is part of it: the block stays one piece.
    spans = _element_spans(body)
    at = [m.start() for m in _PARAGRAPH_BREAK.finditer(body)]
    merged, kept = [pieces[0]], []
    for k, gap in enumerate(breaks):
        j = bisect.bisect_right(spans, (at[k], len(body))) - 1
        if merged[-1].count("```") % 2 or (j >= 0 and spans[j][0] <= at[k] <= spans[j][1]):
            merged[-1] += gap + pieces[k + 1]
        else:
            kept.append(gap)
            merged.append(pieces[k + 1])
    pieces, breaks = merged, kept
    # A rule ("---") between two paragraphs is layout, as the blank lines around it are: it
    # stays in place while the sections it parts move (and text moved out is parted by a
    # blank line alone).
    rules = [bool(_RULE.fullmatch(piece)) for piece in pieces]
    if not any(rules) or all(rules):
        return _sections(PARA, pieces, breaks, lead, trail)
    first = rules.index(False)
    lead += "".join(p + b for p, b in zip(pieces[:first], breaks[:first]))
    units, gaps, gap = [pieces[first]], [], ""
    for k in range(first + 1, len(pieces)):
        gap += breaks[k - 1]
        if rules[k]:
            gap += pieces[k]
        else:
            units.append(pieces[k])
            gaps.append(gap)
            gap = ""
    split = _sections(PARA, units, gaps, lead, gap + trail)
    return None if split is None else dataclasses.replace(split, plain="\n\n")


# At most this many lines read per line of a text looking for XML elements' close tags
# (an element never closed is read to the end of the text once).
_XML_READS = 8


def _element_spans(body: str) -> list[tuple[int, int]]:
    """Where ``body`` is inside an XML element that opens on a line of its own and closes on
    a later line (the outermost ones): (first, last) offset of a line end inside it, in
    order. A paragraph break there is no break."""
    lines = body.split("\n")
    ends = list(itertools.accumulate(len(line) + 1 for line in lines))  # (each line's end + 1)
    out: list[tuple[int, int]] = []
    budget = _XML_READS * len(lines)
    k = 0
    while k < len(lines) and budget > 0:
        tag = _XML_OPEN.match(lines[k])
        if tag is None or lines[k].rstrip().endswith("/>"):
            k += 1
            continue
        name, depth, end = tag.group(1), 0, None
        for j in range(k, len(lines)):
            budget -= 1
            for close, found, bare in _XML_TAG.findall(lines[j]):
                if found == name and not bare:
                    depth += -1 if close else 1
            if depth <= 0:
                end = j
                break
        if end is None:
            k += 1  # (never closed: a tag in prose, not an element)
            continue
        out.append((ends[k] - 1, ends[end - 1] - 1))
        k = end + 1
    return out


def _line_split(body: str, lead: str, trail: str) -> Split | None:
    lines = _line_pieces(body)
    if len(lines) == 1:
        # One element over the whole text (<agreement> over its clauses): its tag lines stay
        # in place, the lines inside are the units.
        inner = _XML_WHOLE.match(body)
        if inner is None or _xml_depth(body) > MAX_DEPTH:
            return None  # (elements nested deeper than that are left whole)
        lead, body, trail = lead + inner.group(1), inner.group(3), inner.group(4) + trail
        lines = _line_pieces(body)
    head = _header_rows(lines)
    pinned = "".join(line + "\n" for line in lines[:head])
    return _sections(LINE, lines[head:], ["\n"] * len(lines), lead + pinned, trail)


def _xml_depth(text: str) -> int:
    """How deep a text's XML elements nest (the open tags not yet closed, at most)."""
    depth = deepest = 0
    for close, _, bare in _XML_TAG.findall(text):
        if not bare:
            depth = max(0, depth - 1) if close else depth + 1
            deepest = max(deepest, depth)
    return deepest


def _json_depth(value: Any) -> int:
    """How deep a JSON value nests (read without recursion)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
    return deepest


def _line_pieces(body: str) -> list[str]:
    """The lines of a text, a fenced block's and an XML element's lines kept one piece (code,
    whose order is its meaning; a clause from its open tag to its close tag)."""
    pieces: list[str] = []
    fenced = False
    # The open element's open and close tags (compiled once per element), and its depth.
    element: tuple[re.Pattern[str], re.Pattern[str]] | None = None
    depth = 0
    for line in body.split("\n"):
        if fenced or element is not None:
            pieces[-1] += "\n" + line
        else:
            pieces.append(line)
            tag = _XML_OPEN.match(line)
            if tag is not None and not line.rstrip().endswith("/>"):
                name = re.escape(tag.group(1))
                element, depth = (re.compile(rf"<{name}(?:\s[^>]*)?>"), re.compile(rf"</{name}>")), 0
        if line.lstrip().startswith("```") and element is None:
            fenced = not fenced
        if element is not None:
            depth += len(element[0].findall(line)) - len(element[1].findall(line))
            if depth <= 0:
                element = None
    return pieces


def _numbered(pieces: list[str], breaks: list[str], lead: str) -> tuple[list[str], list[str], str]:
    """Pieces numbered 1, 2, 3 ... (or lettered a, b, c ..., or i, ii, iii ...) in the order
    they come: the ordinals are the list's layout, not its items (a step renumbered where it
    moved is the same step), so they stay in place, in the breaks, while the items move."""
    marks = [_ORDINAL.match(p) for p in pieces]
    if len(pieces) < 2 or not all(marks):
        return pieces, breaks, lead
    ordinals = [m.group(2) for m in marks if m is not None]
    forms = {(bool(m.group(1)), m.group(0).strip()[-1]) for m in marks if m is not None}
    if len(forms) != 1 or not any(_consecutive(values) for values in _ordinal_values(ordinals)):
        return pieces, breaks, lead
    cuts = [m.end() for m in marks if m is not None]
    return ([p[c:] for p, c in zip(pieces, cuts)], [b + p[:c] for b, p, c in zip(breaks, pieces[1:], cuts[1:])],
            lead + pieces[0][:cuts[0]])


def _ordinal_values(ordinals: list[str]) -> list[list[int]]:
    """The readings of a list's ordinals as numbers: as written (digits), as letters of one
    case, as roman numerals of one case ("i" reads both ways, so both are tried)."""
    readings = []
    if all(o.isdigit() for o in ordinals):
        readings.append([int(o) for o in ordinals])
    for case in (str.islower, str.isupper):
        if all(o.isalpha() and case(o) for o in ordinals):
            if all(len(o) == 1 for o in ordinals):
                readings.append([ord(o.lower()) for o in ordinals])
            if all(set(o.lower()) <= set(_ROMAN) for o in ordinals):
                readings.append([_roman(o.lower()) for o in ordinals])
    return readings


def _roman(numeral: str) -> int:
    values = [_ROMAN[c] for c in numeral]
    return sum(-v if v < w else v for v, w in zip(values, values[1:] + [0]))


def _consecutive(values: list[int]) -> bool:
    return values == list(range(values[0], values[0] + len(values)))


def _list_split(body: str, lead: str, trail: str) -> Split | None:
    """A labelled line's comma-separated list ("Open issue tags: ranked, store, ..."): two
    or more short items, one separator between them all, none a sentence or a clause. Items
    are put in one order only where every session sends each (ITEM units)."""
    label = _INLINE_LABEL.match(body)
    if label is None:
        return None
    rest = body[label.end():]
    breaks = _LIST_BREAK.findall(rest)
    items = _LIST_BREAK.split(rest)
    if len(items) < 2 or len(set(breaks)) != 1 or not all(_LIST_ITEM.fullmatch(item) for item in items):
        return None
    return Split(ITEM, tuple(items), (lead + label.group(0),) + tuple(breaks) + (trail,))


def _bracket_split(body: str, lead: str, trail: str) -> Split | None:
    """A line's one bracketed list ("def reserve(aos: str, antenna: str, los: str) -> ..."):
    three or more short items, one separator between them all, nothing nested. A signature a
    template prints from a set sends its parameters in another order per request; items are
    put in one order only where every session sends each (ITEM units)."""
    match = _BRACKETED.fullmatch(body)
    if match is None:
        return None
    inner = match.group(2)
    breaks = _LIST_BREAK.findall(inner)
    items = _LIST_BREAK.split(inner)
    if len(items) < 3 or len(set(breaks)) != 1 or not all(_BRACKET_ITEM.fullmatch(item) for item in items):
        return None
    return Split(ITEM, tuple(items), (lead + match.group(1),) + tuple(breaks) + (match.group(3) + trail,))


def _sentence_split(body: str, lead: str, trail: str) -> Split | None:
    """A line's sentences: a value inside a line of static text ("... three years. Session:
    b935...") is a sentence of its own, which moves while the rest stays. Only where every
    piece closes what it opens (a sentence end inside a JSON string, a bracket or a quote is
    not one), no piece ends in an abbreviation, and one break separates them all."""
    label = _INLINE_LABEL.match(body)
    if label is not None:
        # A label ahead of the sentences ("Fare conditions: ...") stays first.
        lead, body = lead + label.group(0), body[label.end():]
    marker = _ENUMERATOR.match(body)
    if marker is not None:
        # So does a list item's number ("3. ..."): no sentence of its own.
        lead, body = lead + marker.group(0), body[marker.end():]
    pieces = _SENTENCE_END.split(body)
    breaks = _SENTENCE_END.findall(body)
    if len(pieces) < 2 or len(set(breaks)) > 1 or _OTHER_QUOTES.search(body):
        return None  # (mixed breaks, a space after one sentence and none after a CJK one, would glue words)
    if any(_ABBREVIATION.search(piece) for piece in pieces[:-1]):
        return None
    if _QUOTES_OR_BRACKETS.search(body) and not all(map(balanced, pieces)):
        return None
    return _sections(SENTENCE, pieces, breaks, lead, trail)


def _sections(kind: str, pieces: list[str], breaks: list[str], lead: str, trail: str, pinned: bool = False) -> Split | None:
    """Units of ``pieces`` (paragraphs or lines, ``breaks`` between them). A label heads what
    follows it (one unit, which splits in turn with the label kept first). A label with nothing after it stays last: what it
    labels is the text the model writes next. ``pinned``: a label was set aside, so even a
    single unit is a split (the unit is smaller than the text, and splits in turn)."""
    pieces, breaks, lead = _numbered(pieces, breaks, lead)
    units: list[str] = []
    fixed = [lead]
    glue = run = False  # the last unit is a label that takes the next piece (``run``: all up to the next label)
    shape = ""  # how the first piece a run took opens: the run takes more of the same only
    for k, piece in enumerate(pieces):
        label = bool(_LABEL.match(piece))
        # (A section under its own heading is not what the label over it labels alone, nor
        # in a run is a paragraph that opens with a label line of its own ("Desk settings:"
        # over its JSON after the table a "Reference table:" labels), or one of another shape
        # (a JSON block after that table; passages under "Sources:" open alike).)
        opens = run and (bool(_LABEL.match(piece.split("\n", 1)[0])) or bool(shape) and _shape(piece) != shape)
        if glue and not label and not _HEADING.match(piece) and not opens:
            shape = shape or _shape(piece)
            units[-1] += breaks[k - 1] + piece
            glue = run
            continue
        shape = ""
        if k:
            fixed.append(breaks[k - 1])
        units.append(piece)
        # A markdown heading takes the paragraph under it; a "Label:" everything up to the
        # next label (the passages under "Sources:"), so the items under it stay together.
        glue, run = label, bool(_CUE.match(piece))
    if len(units) == 1 and len(pieces) > 1 and _LABEL.match(pieces[0]):
        return _sections(kind, pieces[1:], breaks[1:], lead + pieces[0] + breaks[0], trail, True)
    if len(units) > 1 and (_LABEL.match(units[-1]) or _OPEN_CUE.fullmatch(units[-1])):  # ("Answer:", "<assistant>")
        trail = fixed.pop() + units.pop() + trail
        pinned = True
    if not units or (len(units) == 1 and not pinned):
        return None
    return Split(kind, tuple(units), tuple(fixed) + (trail,))


def _shape(piece: str) -> str:
    """How a paragraph opens: a word (letters or digits, in any script), or its first mark."""
    first = piece.lstrip()[:1]
    return "w" if first.isalnum() else first


def _header_rows(lines: list[str]) -> int:
    """Rows that head a table and stay first: a markdown table's header and rule, a CSV or
    TSV table's first row when it holds no digits (names, not values)."""
    if all(line.lstrip().startswith("|") for line in lines):
        return 2 if len(lines) > 2 and _TABLE_RULE.match(lines[1].strip()) else 1
    for sep in ("\t", ","):
        count = lines[0].count(sep)
        if count and all(line.count(sep) == count for line in lines) and not any(map(str.isdigit, lines[0])):
            return 1
    return 0


def tool_name(tool: Any) -> str:
    if not isinstance(tool, dict):
        return ""
    function = tool.get("function")
    name = function.get("name") if isinstance(function, dict) else tool.get("name")
    return name if isinstance(name, str) else ""


def text_parts(content: Any) -> list[str] | None:
    """The texts of a content list made of text parts only; None otherwise (an image, an
    audio clip: their place among the texts must not change)."""
    if not isinstance(content, list) or not content:
        return None
    if all(isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str) for p in content):
        return [p["text"] for p in content]
    return None


# ---------------------------------------------------------------- counting


@dataclass
class Counts:
    """Per key: the sessions holding it, its first-seen rank, its surface forms."""

    sessions: dict[Key, set[Hashable]] = field(default_factory=dict)
    rank: dict[Key, int] = field(default_factory=dict)
    surfaces: dict[Key, Counter[str]] = field(default_factory=dict)
    total: int = 0
    markup: Markup = PLAIN  # where a prompt's turns are
    # Per tool call (its name, arguments and result): the id the log first gave it.
    call_ids: dict[str, str] = field(default_factory=dict)

    def add(self, request: Request, session: Hashable) -> None:
        for call, cid in call_keys(request.messages or ()):
            self.call_ids.setdefault(call, cid)
        found: dict[Key, set[str]] = {}
        for text, kind in _nodes(request, self.markup):
            key = (kind, normalized(text))
            found.setdefault(key, set()).add(text)
            if key not in self.rank:
                same = _same_text(key, self.rank)
                self.rank[key] = self.rank[same] if same is not None else len(self.rank)
        for key, surfaces in found.items():
            # (Looked up before made: most keys are there already, a set and a Counter apiece.)
            held = self.sessions.get(key)
            if held is None:
                # A text is one unit whether it stands as a whole text, a paragraph or a line
                # (a prompt's opening line is a paragraph of its own where nothing is stamped
                # above it): its keys of those kinds share one set of sessions. (Not its
                # surfaces: the whitespace around a text is its container's.)
                same = _same_text(key, self.sessions)
                held = self.sessions[key] = self.sessions[same] if same is not None else set()
            held.add(session)
            forms = self.surfaces.get(key)
            if forms is None:
                forms = self.surfaces[key] = Counter()
            # Sorted: which surface ties first does not depend on set order.
            for form in sorted(surfaces):
                forms[form] += 1


# The kinds of a text that is one unit whichever of them it stands as.
TEXT_KINDS = (TEXT, PARA, LINE)
# The kinds of unit a value inside may be cut out of (``Canon.aligned``): prose. A JSON
# member's or item's value is data, cut as a member.
SLOTTED = (TEXT, PARA, LINE, SENTENCE)


def _same_text(key: Key, seen: dict[Key, Any]) -> Key | None:
    """The key of the same text as another of ``TEXT_KINDS`` already in ``seen``, if any."""
    kind, text = key
    if kind not in TEXT_KINDS:
        return None
    return next(((other, text) for other in TEXT_KINDS if other != kind and (other, text) in seen), None)


def _nodes(request: Request, markup: Markup) -> list[tuple[str, str]]:
    """Every unit of the request at every level, in log order: (text, kind)."""
    out: list[tuple[str, str]] = []
    texts: list[str] = []
    for tool in request.tools or ():
        surface = json.dumps(tool, ensure_ascii=False)
        out.append((surface, TOOL))
        out.append((tool_name(tool), TOOL_NAME))
        texts += _tool_texts(surface)  # (a value inside a tool's description is a unit too)
        out += [(choice, ITEM) for choice in _choices(tool)]
    messages: tuple[dict[str, Any], ...] | list[dict[str, Any]] = request.messages or ()
    if request.kind == "prompt" and request.prompt:
        turns = prompt_turns(request.prompt, markup)
        texts += [request.prompt] if turns is None else [request.prompt[a:b] for a, b, _ in turns]
        messages = prompt_messages(request.prompt, markup) or ()
    else:
        for message in messages:
            content = message.get("content")
            texts += [content] if isinstance(content, str) else [p["text"] for p in content or () if _is_text(p)]
            texts += [a for a in map(_arguments, message.get("tool_calls") or ()) if a is not None and a.lstrip()[:1] == "{"]
    out += [(key, EXCHANGE) for _, _, key in exchanges(messages)]
    out += [(key, STEP) for _, _, key in steps(messages)]
    for text in texts:
        _walk(text, TEXT, out)
    return out


def _arguments(call: Any) -> str | None:
    """A tool call's arguments as the JSON text the client sent (None for any other form)."""
    function = call.get("function") if isinstance(call, dict) else None
    args = function.get("arguments") if isinstance(function, dict) else None
    return args if isinstance(args, str) else None


def call_keys(messages: tuple[dict[str, Any], ...] | list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(key, id) of each tool call with an id: the key is its name, arguments and the result
    the request sends for it, each in its equivalence form."""
    results = {m.get("tool_call_id"): m.get("content") for m in messages if m.get("role") == "tool"}
    out = []
    for message in messages:
        for call in message.get("tool_calls") or ():
            cid = call.get("id") if isinstance(call, dict) else None
            function = call.get("function") if isinstance(call, dict) else None
            if not isinstance(cid, str) or not isinstance(function, dict):
                continue
            args, result = function.get("arguments"), results.get(cid)
            parts = [normalized(x) if isinstance(x, str) else x for x in (function.get("name"), args, result)]
            out.append((json.dumps(parts, ensure_ascii=False, sort_keys=True, default=str), cid))
    return out


def _renamed(messages: list[dict[str, Any]], logged: tuple[dict[str, Any], ...], canon: Canon | Rounds,
             ) -> list[dict[str, Any]]:
    """``messages`` with each tool call's id (and its result's) the one the log first gave
    the same call with the same result: a client that mints a fresh id for a canned call
    (a priming look-up replayed in every request) sends the same tokens again. Not where
    two calls of the request would then share an id."""
    first = canon.canons[0] if isinstance(canon, Rounds) else canon
    if SPELLING in first.keep:
        return messages
    found = call_keys(logged)
    rename = {cid: first.counts.call_ids.get(key, cid) for key, cid in found}
    if all(a == b for a, b in rename.items()) or len(set(rename.values())) != len(found):
        return messages
    out = []
    for m in messages:
        if m.get("tool_calls"):
            m = dict(m, tool_calls=[dict(c, id=rename[c["id"]]) if isinstance(c, dict) and c.get("id") in rename else c
                                    for c in m["tool_calls"]])
        if m.get("role") == "tool" and m.get("tool_call_id") in rename:
            m = dict(m, tool_call_id=rename[m["tool_call_id"]])
        out.append(m)
    return out


def calls(calls: Any, canon: Canon | Rounds) -> Any:
    """Tool calls with their arguments in canonical form: the same call, its keys in one
    order (a client that builds them from an unordered map sends a new prefix each time)."""
    if not isinstance(calls, (list, tuple)):
        return calls
    out = []
    for call in calls:
        args = _arguments(call)
        # (Only a JSON object, whose members may take any order: free text is kept as sent.)
        form = canon.text(args) if args is not None and _json_split(args.strip(), "", "") else None
        out.append(call if form is None or form == args else
                   dict(call, function=dict(call["function"], arguments=form)))
    return out


def exchanges(messages: tuple[dict[str, Any], ...] | list[dict[str, Any]]) -> list[tuple[int, int, str]]:
    """The exchanges ahead of the last user turn (a conversation's history, few-shot examples
    sent as turns): a user turn and what follows it up to the next user turn (tool calls, their
    results), ending in a plain assistant reply: (start, end, the messages as one key text)."""
    users = [k for k, m in enumerate(messages) if m.get("role") == "user"]
    out = []
    for start, end in zip(users, users[1:]):
        reply = messages[end - 1]
        if end - start >= 2 and reply.get("role") == "assistant" and not reply.get("tool_calls"):
            out.append((start, end, _span_key(messages[start:end])))
    return out


def steps(messages: tuple[dict[str, Any], ...] | list[dict[str, Any]]) -> list[tuple[int, int, str]]:
    """The look-ups ahead of the last user turn that came one after another with no reply
    between them: an assistant turn of tool calls and the results answering it, in runs of
    two or more (documents a client preloads, calls made in parallel and replayed in the
    order they completed): (start, end, the messages as one key text)."""
    last = max((k for k, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    found = []
    k = 0
    while k < last:
        end = k + 1
        if messages[k].get("role") == "assistant" and messages[k].get("tool_calls"):
            while end < last and messages[end].get("role") == "tool":
                end += 1
        if end - k >= 2:
            found.append((k, end, _span_key(messages[k:end])))
        k = end
    return [f for j, f in enumerate(found)
            if (j > 0 and found[j - 1][1] == f[0]) or (j + 1 < len(found) and found[j + 1][0] == f[1])]


def _span_key(messages: Any) -> str:
    """A run of messages as one key text (an exchange's, a look-up's)."""
    return json.dumps([[m.get("role"), m.get("content"), m.get("tool_calls")] for m in messages],
                      ensure_ascii=False, default=str)


def _runs_in_order(messages: list[dict[str, Any]], found: list[tuple[int, int, str]], kind: str,
                   canon: Canon) -> list[dict[str, Any]]:
    """Each run of consecutive ``found`` spans (exchanges, look-ups) with those every session
    sends first, in the order the log first showed them, the others after them as they came.
    A conversation's next request adds an exchange of its own at the end: it still extends
    this one."""
    out: list[dict[str, Any]] = []
    at = start = 0
    while start < len(found):
        end = start + 1
        while end < len(found) and found[end][0] == found[end - 1][1]:
            end += 1
        run = found[start:end]
        rows = []
        for j, (a, b, key) in enumerate(run):
            cls, _, rank = canon.info((kind, normalized(key)))
            # (The others as they came, whatever their class: an exchange of a conversation's
            # history that other sessions also hold is no reason to put it ahead of an earlier
            # one of its own, and the next request would no longer extend this one.)
            static = cls == STATIC and ORDER not in canon.keep
            rows.append(((STATIC if cls == STATIC else UNIQUE, rank if static else j), (a, b), cls))
        # (A look-up of its own may be what a later one read, a search before the document it
        # found: the others keep their order. A look-up every session sends alike read nothing
        # that varies, so it goes first, ahead of those: it is in one order with the other
        # static ones only where all are.)
        mixed = kind == STEP and any(cls != STATIC for _, _, cls in rows)
        if mixed:
            # (Unless it names what an earlier one returned: the document a search found.)
            rows = [((cls != STATIC or _reads(messages[a:b], messages[run[0][0]:a]), j), (a, b), cls)
                    for j, (_, (a, b), cls) in enumerate(rows)]
        out += messages[at:run[0][0]]
        for _, (a, b), _ in _placed(rows, PLACEMENT not in canon.keep and (kind != STEP or mixed)):
            out += messages[a:b]
        at, start = run[-1][1], end
    return out + messages[at:]


def _reads(step: list[dict[str, Any]], earlier: list[dict[str, Any]]) -> bool:
    """Whether a look-up's calls name a value (a string argument) that an earlier look-up's
    results hold: it may have been made from what that one found."""
    values = [v for m in step for call in m.get("tool_calls") or () for v in _string_values(_arguments(call))]
    found = "\n".join(m["content"] for m in earlier if m.get("role") == "tool" and isinstance(m.get("content"), str))
    return any(v in found for v in values)


def _string_values(args: str | None) -> list[str]:
    try:
        value = json.loads(args) if args else None
    except ValueError:
        return [args] if args and args.strip() else []
    if isinstance(value, dict):
        return [v for v in value.values() if isinstance(v, str) and v.strip()]
    return [value] if isinstance(value, str) and value.strip() else []


def _exchanges_in_order(messages: list[dict[str, Any]], canon: Canon) -> list[dict[str, Any]]:
    """Few-shot examples sampled in another order per request, and look-ups replayed in the
    order they completed, in one order (``_runs_in_order``)."""
    messages = _runs_in_order(messages, exchanges(messages), EXCHANGE, canon)
    return _runs_in_order(messages, steps(messages), STEP, canon)


@functools.lru_cache(maxsize=MEMO_TEXTS)
def _tool_texts(surface: str) -> tuple[str, ...]:
    """The descriptions of a tool definition (not its names): a value inside one is a unit
    of it, or its slot (``Canon.aligned``)."""
    return tuple(_strings(json.loads(surface)))


# JSON Schema keywords whose values are instances of the schema, not prose (JSON Schema
# Validation, draft 2020-12: 6.1.2 ``enum``, 9.2 ``default``, 9.5 ``examples``): one that varies
# is a value the request names, not the tool's definition. (Not 6.1.3 ``const``: a schema of
# one value, inside ``oneOf`` a branch; cut, the branch would take any value.)
SCHEMA_VALUES = frozenset({"enum", "default", "examples"})
# Of those, the ones whose value is a list of instances (a ``default`` is one, list or not).
SCHEMA_LISTS = frozenset({"enum", "examples"})


def _choices(value: Any, depth: int = 0, name: str = "") -> list[str]:
    """The instances in a tool definition's schemas (``SCHEMA_VALUES``), each as an array
    item's JSON text."""
    if depth > MAX_DEPTH:
        return []
    if isinstance(value, dict):
        return [text for key, item in value.items() for text in
                ([json.dumps(c, ensure_ascii=False) for c in (item if key in SCHEMA_LISTS and isinstance(item, list)
                                                              else [item])
                  if not isinstance(c, (dict, list))]
                 if key in SCHEMA_VALUES and name != "properties" else _choices(item, depth + 1, key))]
    return [text for item in value for text in _choices(item, depth + 1, name)] if isinstance(value, list) else []


def _strings(value: Any, depth: int = 0) -> list[str]:
    """The descriptions of a tool definition, at any depth up to MAX_DEPTH (a parameter's
    too): its prose. Names, enum values, defaults and patterns are what the model emits or
    the server checks, never units to move."""
    if depth > MAX_DEPTH:
        return []
    if isinstance(value, dict):
        return [text for key, item in value.items() for text in
                ([item] if key == "description" and isinstance(item, str) else _strings(item, depth + 1))]
    return [text for item in value for text in _strings(item, depth + 1)] if isinstance(value, list) else []


def _cut_strings(value: Any, canon: Canon, moved: list[str], depth: int = 0, name: str = "",
                 holders: int = 0) -> Any:
    """``value`` (a tool definition) with what varies in each of its descriptions cut out,
    as ``Canon.split_out`` cuts a system message, and the choices of an enum that vary
    (a code of the day among fixed ones) named as ``name: choice``; the cut texts appended to
    ``moved``. (``name``: the key the value is the schema of, a parameter's; ``holders``: the
    sessions sending the tool, by its name.)"""
    if depth > MAX_DEPTH:
        return value
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            cut: tuple[Any, str] | None = None
            if key == "description" and isinstance(item, str):
                # (A description of one unit stays, as the schema needs it: a value inside it
                # leaves, where its copies in other requests share the rest.)
                cut = canon.split_out(item) or canon.aligned_out(item)
            if key in SCHEMA_VALUES and name != "properties":
                # (A list of instances, or one: a ``default``, a list or not.)
                listed = key in SCHEMA_LISTS and isinstance(item, list)
                cut = canon.cut_choices(item if listed else [item], holders)
                if cut is not None and not listed:
                    cut = None if cut[0] else (None, json.dumps(item, ensure_ascii=False))
            if cut is not None:
                moved.append(cut[1] if key == "description" else f"{name} ({key}): {cut[1]}")
                if cut[0] is None:
                    continue
            out[key] = cut[0] if cut is not None else _cut_strings(item, canon, moved, depth + 1, key, holders)
        return out
    return ([_cut_strings(item, canon, moved, depth + 1, name, holders) for item in value] if isinstance(value, list)
            else value)


def _is_text(part: Any) -> bool:
    return isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str)


def _walk(text: str, kind: str, out: list[tuple[str, str]]) -> None:
    out.extend(_units(text, kind))


def member_items(member: str) -> list[str] | None:
    """The items of a JSON member whose value is a list (each as JSON text): two to
    MAX_ITEMS strings or objects, a list sent in another order per request."""
    return _items(json.loads(member)[1])


def _items(value: Any) -> list[str] | None:
    if not isinstance(value, list) or not 1 < len(value) <= MAX_ITEMS:
        return None
    if not (all(isinstance(item, str) for item in value) or all(isinstance(item, dict) for item in value)):
        return None
    return [json.dumps(item, ensure_ascii=False) for item in value]


@functools.lru_cache(maxsize=MEMO_TEXTS)
def _units(text: str, kind: str) -> tuple[tuple[str, str], ...]:
    """``text`` and every unit inside it, at every level, in order: (text, kind)."""
    items = member_items(text) if kind == MEMBER else None
    if items is not None:
        return ((text, kind),) + tuple(unit for item in items for unit in _units(item, ITEM))
    split = split_unit(text, kind)
    out: list[tuple[str, str]] = [(text, kind)]
    if split is not None:
        for unit in split.units:
            out.extend(_units(unit, split.kind))
    return tuple(out)


def forget_units() -> None:
    """Drop the memos of the pure steps (texts, their splits, their keys): one traffic's."""
    normalized.cache_clear()
    split_text.cache_clear()
    _entry_split.cache_clear()
    _member_split.cache_clear()
    _units.cache_clear()
    _tool_texts.cache_clear()
    prompt_turns.cache_clear()


# ---------------------------------------------------------------- the canonical form


class Canon:
    """Canonical forms under one traffic's counts (memoized: a fix applied to every request
    rewrites each distinct text once)."""

    @property
    def markup(self) -> Markup:
        return self.counts.markup

    def __init__(self, counts: Counts, keep: frozenset[str] = frozenset(), shared_out: bool = False,
                 memo: dict[Key, str] | None = None) -> None:
        self.counts = counts
        # Changes left out (SPELLING, ORDER, PLACEMENT): what a cause is worth is what the
        # canonical form loses without it.
        self.keep = keep
        # What the system message moves out: its unique units, or (``shared_out``) every unit
        # not all sessions send, the shared ones in one order (examples sampled from a pool:
        # requests holding the same ones then share them).
        self.shared_out = shared_out
        # The forms of texts (``_form``): ``shared_out`` changes only what moves out of the
        # system message, so a Canon that differs from another only in it shares its memo.
        self.memo: dict[Key, str] = memo if memo is not None else {}
        # Per tool (by its surface): the tool with what varies in its texts cut out, and the
        # cut texts (None: nothing varies in it).
        self.cuts: dict[str, tuple[str, tuple[str, ...]] | None] = {}
        # Per container's shared keys (in order): those one set of sessions sends together.
        self.co_held: dict[tuple[str, tuple[str, ...]], frozenset[str]] = {}
        # Per turn of tool definitions in a prompt: the turn cut, and the cut texts.
        self.turn_cuts: dict[str, tuple[str, tuple[str, ...]]] = {}
        # Per kind (the text kinds as one): the keys by their first and by their last EDGE
        # characters, in first-seen order, where a unit's copies are looked for (``aligned``).
        self.families: dict[str, tuple[dict[str, list[Key]], dict[str, list[Key]]]] = {}
        # Per frame (kind, head, tail): the sessions sending a unit of it, its first rank.
        self.frames: dict[tuple[str, str, str], tuple[int, int]] = {}

    def drawn(self, kind: str, unit: str) -> bool:
        """Whether a unit no other session sends is still drawn from what others send: most
        of its own units (a passage line, an example) are held by two sessions or more (the
        retrieved passages of one request, a combination of a pool). It is less volatile
        than a unit none of whose parts recur (a clock, a question), and goes before it."""
        split = None if kind == MEMBER else self.split(unit, kind)
        if split is None:
            return False
        held = sum(self.info((split.kind, normalized(u)))[0] != UNIQUE for u in split.units if u.strip())
        return 2 * held > sum(1 for u in split.units if u.strip())

    def info(self, key: Key) -> tuple[int, int, int]:
        """(class, session count, first-seen rank) of a key (a text the counts saw as a
        whole text, a paragraph or a line is that one unit as any of them: ``_same_text``)."""
        held = self.counts.sessions.get(key)
        if held is None and (same := _same_text(key, self.counts.sessions)) is not None:
            key = same
            held = self.counts.sessions[key]
        n = len(held) if held is not None else 0
        rank = self.counts.rank.get(key, len(self.counts.rank))
        if n >= 2 and n >= STATIC_SHARE * self.counts.total:
            return STATIC, n, rank
        return (SHARED if n >= 2 else UNIQUE), n, rank

    def rank_of(self, key: Key) -> int | None:
        """The first-seen rank of a key, as ``info`` finds it (None: never seen)."""
        rank = self.counts.rank.get(key)
        if rank is None and (same := _same_text(key, self.counts.rank)) is not None:
            rank = self.counts.rank[same]
        return rank

    def split(self, text: str, kind: str = TEXT) -> Split | None:
        """``split_text``, but a line's sentences only where it opens with a static one and
        half of them or more are static, or where more than half are and the others are each
        a request's own (a greeting by name ahead of fixed sentences): a value inside a line
        of fixed text is a slot, while a line of prose, or a passage under its own label
        ("[doc 12] ..." and one fixed sentence), is kept as it is written (sentences are the
        writer's order, not a layout)."""
        split = split_unit(text, kind)
        if split is None or split.kind != SENTENCE:
            return split
        classes = [self.info((SENTENCE, normalized(unit)))[0] for unit in split.units]
        static = 2 * classes.count(STATIC)
        if classes[0] == STATIC:
            return split if static >= len(classes) else None
        return split if static > len(classes) and SHARED not in classes else None

    def sorted_items(self, member: str) -> list[str] | None:
        """A member's array items where the canonical form puts them in one order: every
        session sends each of them, in another order (a list with an item of its own keeps
        its order: its positions may mean something); None otherwise."""
        items = member_items(member)
        if items is None or not all(self.info((ITEM, normalized(item)))[0] == STATIC for item in items):
            return None
        return items

    def once(self, key: Key) -> bool:
        """Whether only one request sends the key (its surfaces are counted per request)."""
        return sum(self.counts.surfaces.get(key, {}).values()) <= 1

    def surface(self, key: Key, text: str) -> str:
        forms = self.counts.surfaces.get(key)
        return forms.most_common(1)[0][0] if forms and SPELLING not in self.keep else text

    def text(self, text: str, kind: str = TEXT) -> str:
        """The canonical form of one unit: its most common surface form, and unless it is
        static (or does not split), with its units in canonical order."""
        return self._form(text, kind, False)

    def whole(self, text: str) -> str:
        """A prompt of one text (no chat markup) in canonical form; where ``shared_out``,
        what several sessions share among its units in one order too, where it stands (a
        text with no turn to move it to)."""
        return self._form(text, TEXT, self.shared_out and ORDER not in self.keep)

    def _form(self, text: str, kind: str, pooled: bool) -> str:
        memo = self.memo.get((POOLED + kind if pooled else kind, text))
        if memo is not None:
            return memo
        key = (kind, normalized(text))
        # The most common spelling first, then its units in order: a surface that splits
        # differently from ``text`` (wrapped at another width) is the one ordered.
        out = self.surface(key, text)
        items = self.sorted_items(out) if kind == MEMBER and self.info(key)[0] != STATIC else None
        if items is not None:
            ordered = [json.loads(unit) for unit, _ in self.ordered(ITEM, items, pooled)]
            out = json.dumps([json.loads(out)[0], ordered], ensure_ascii=False)
        split = None if kind == ITEM or items is not None or self.info(key)[0] == STATIC else self.split(out, kind)
        if split is not None and split.kind == ITEM and not all(
                self.info((ITEM, normalized(item)))[0] == STATIC for item in split.units):
            split = None  # (an array with an item of its own keeps its order, as a member's does)
        if split is not None and split.encoded is None:
            # (A JSON string's text keeps its order: it may be code, a query, a file.)
            out = self._under_label(split, self.ordered(split.kind, split.units, pooled, cut=True))
        self.memo[(POOLED + kind if pooled else kind, text)] = out
        return out

    def _under_label(self, split: Split, rows: list[tuple[str, int]]) -> str:
        """The units joined in canonical order. Where the text opens with a label whose run
        holds static units ahead of what varies ("Retrieved passages:" over the passages and
        the persona after them), those units go ahead of the label: it heads what it labels."""
        lead = split.fixed[0]
        label = lead.lstrip()
        n = next((k for k, (_, cls) in enumerate(rows) if cls != STATIC), len(rows))
        units = [unit for unit, _ in rows]
        # (A JSON object's members join as JSON, a YAML entry's under its key: no label; units
        # indented under it are nested in it.)
        if (split.layout is not None or split.kind == ENTRY or not _CUE.match(label.strip())
                or not 0 < n < len(rows) or PLACEMENT in self.keep
                or any(unit[:1] in (" ", "\t") for unit, _ in rows)):
            return split.join(units)
        units[n] = label + units[n]
        return dataclasses.replace(split, fixed=(lead[:len(lead) - len(label)],) + split.fixed[1:]).join(units)

    def ordered(self, kind: str, units: tuple[str, ...] | list[str], pooled: bool = False,
                cut: bool = False) -> list[tuple[str, int]]:
        """The units, each in canonical form, in canonical order, with their class;
        ``pooled``: those several sessions share in one order (first-seen rank) too, as
        ``_pooled`` orders what it moves out; ``cut``: a value inside a unit of fixed text
        (``_slots``) is a row of its own, so there may be more rows than units."""
        # A JSON object's members, a YAML mapping's entries, in another order are its
        # spelling, not its layout.
        sort_static = (SPELLING if kind in (MEMBER, ENTRY) else ORDER) not in self.keep
        keys = [normalized(unit) for unit in units]
        if len(set(keys)) < len(keys) and not _bullets(units):
            # A unit that recurs within its container ("nights: 3" under two list items) is
            # not a section with a place of its own: ordered by rank, the copies would close
            # up. Such a container keeps its order; not a bulleted list (a set of rules, one
            # written twice: its copies close up, and nothing else moves with them).
            sort_static = pooled = False
        infos = [self.info((kind, key)) for key in keys]
        # Units that one set of sessions sends together (a product's or a tenant's own prompt,
        # static among the sessions that send it) take one order as static units do.
        tenant = self.held_together(kind, keys, infos) if sort_static else frozenset()
        rows = []
        for k, unit in enumerate(units):
            cls, n, rank = infos[k]
            # Static units in the log's first order; the others keep their own order (the
            # order passages were retrieved in, examples chosen in, is the client's meaning),
            # of a session's own units those its later requests send again (its question, in
            # the history) ahead of those only one request sends (a reading restamped each
            # time), and a unit drawn from what other sessions send ahead of one of its own.
            own = cls == UNIQUE and not self.drawn(kind, unit)
            # (Ranked units ahead of the others of their class: a product's own prompt ahead of
            # a value a few of its sessions share, which keeps its place after them.)
            ranked = (cls == STATIC and sort_static) or (cls == SHARED and (pooled or keys[k] in tenant))
            once = cls == UNIQUE and self.once((kind, normalized(unit)))
            # A value one request sends inside text most of which every session sends (a
            # clock line over the persona, in one paragraph): the fixed text keeps its
            # place among the static units, the value goes where values go.
            # (Prose only: a JSON member or a YAML entry cut in two would be two of one key.)
            # (Cut as a variant that moves only what one request sends does: the forms' memo
            # is shared with the variant that moves more, ``sharing_out``.)
            slots = (self._slots(kind, unit, out=UNIQUE) if cut and once and sort_static and kind in SLOTTED
                     and PLACEMENT not in self.keep and self._cuttable(kind, unit) else None)
            if slots is not None:
                fixed_rank = self._slot_rank(kind, unit)
                rows.append(((STATIC, False, False, False, fixed_rank if fixed_rank is not None else rank),
                             slots[0], STATIC))
                unit = slots[1]
            order = (cls, once, own, not ranked, rank if ranked else k)
            rows.append((order, self.text(unit, kind) if slots is None else unit, cls))
        return [(unit, cls) for _, unit, cls in _placed(rows, PLACEMENT not in self.keep)]

    def _cuttable(self, kind: str, unit: str) -> bool:
        """Whether ``ordered`` may cut a unit's value out of its fixed text: its own units are
        each there once (a unit that repeats one, a label over the same value twice, is kept
        whole, as ``ordered`` keeps such a container's order, so the cut gives the same form
        again when it meets its own output), and each is fixed or the request's own (what
        several sessions share, a name among twenty, would stay in the text left behind), as
        is the text around them (a greeting's "Hello, Olu:" ahead of the sentences is no unit:
        it would stay)."""
        split = self.split(unit, kind)
        if split is None or split.fixed[0].strip() or split.fixed[-1].strip():
            return False
        keys = [normalized(u) for u in split.units]
        return len(set(keys)) == len(keys) and all(self.info((split.kind, key))[0] != SHARED for key in keys)

    def _slot_rank(self, kind: str, unit: str) -> int | None:
        """The first-seen rank of the fixed text of a unit that holds a value in it (half or
        more of its own units static, as ``_slots`` cuts); None for any other unit."""
        split = self.split(unit, kind) if kind != MEMBER else None
        if split is None:
            return None
        infos = [self.info((split.kind, normalized(u))) for u in split.units if u.strip()]
        static = [info[2] for info in infos if info[0] == STATIC]
        return min(static) if static and 2 * len(static) >= len(infos) else None

    def held_together(self, kind: str, keys: list[str], infos: list[tuple[int, int, int]]) -> frozenset[str]:
        """The keys of the shared units that nearly every session sending the most sent of
        them sends too, where two or more are: a prompt of its own that part of the traffic
        sends whole. Units drawn from a pool (examples, passages) are held by sessions apart.
        (Memoized per container's shared keys: the session sets are the counts' largest.)"""
        shared = tuple(key for key, info in zip(keys, infos) if info[0] == SHARED)
        if len(shared) < 2:
            return frozenset()
        memo = self.co_held.get((kind, shared))
        if memo is not None:
            return memo
        held = [self.counts.sessions.get((kind, key), set()) for key in shared]
        frame = max(held, key=len)
        members = frozenset(key for key, sessions in zip(shared, held)
                            if len(sessions & frame) >= STATIC_SHARE * len(frame))
        out = members if len(members) >= 2 else frozenset()
        if len(self.co_held) >= MEMO_TEXTS:
            self.co_held.clear()
        self.co_held[(kind, shared)] = out
        return out

    def tools(self, tools: tuple[Any, ...], cutting: bool = False) -> tuple[Any, ...]:
        """The tool list by volatility, ties by name: a per-request subset of one pool then
        shares the longest prefix; each tool in its most common key order. ``cutting``: the
        values in the tools' texts are cut out (``cut_tools``), so a tool every session
        sends whose values are cut is as fixed as its name (a value in a description does
        not send the tool behind the others)."""
        rows = []
        for k, tool in enumerate(tools):
            surface = json.dumps(tool, ensure_ascii=False)
            key = (TOOL, normalized(surface))
            cls, n, _ = self.info(key)
            if cls != STATIC and cutting and self.cut_tools((tool,))[1]:
                named = self.info((TOOL_NAME, tool_name(tool)))
                cls, n = (STATIC, named[1]) if named[0] == STATIC else (cls, n)
            name = tool_name(tool) if cls != STATIC or ORDER not in self.keep else ""
            rows.append(((cls, -n if cls == SHARED else 0, name, k), (key, surface), cls))
        placed = _placed(rows, PLACEMENT not in self.keep)
        return tuple(json.loads(self.surface(key, surface)) for _, (key, surface), _ in placed)

    def content(self, content: Any) -> Any:
        """A message content in canonical form: a text, or a list whose text parts are the
        units (a list holding other parts keeps its order, each text part canonical: a
        label, a caption or an instruction may belong to the image beside it)."""
        if isinstance(content, str):
            return self.text(content)
        texts = text_parts(content)
        if texts is not None:
            return [{"type": "text", "text": text} for text, _ in self.ordered(TEXT, texts)]
        if isinstance(content, list):
            return [dict(p, text=self.text(p["text"])) if _is_text(p) else p for p in content]
        return content

    def split_out(self, text: str, logged: Canon | None = None) -> tuple[str, str] | None:
        """The canonical text without its unique units (``shared_out``: without every unit
        not all sessions send), and those units as one text; None when it has none to move
        or nothing would be left. ``logged``: the counts of the traffic as logged, whose
        first-seen order the fixed text left of a moved value goes back into (a later round
        counts traffic that already put the unit holding it last)."""
        split = self._movable(text)
        if split is None:
            return None
        rows = self.ordered(split.kind, split.units)
        if self.shared_out:
            fixed = self._frame(split)
            rows = [(unit, STATIC if unit in fixed else cls) for unit, cls in rows]
        cut = self._cut(split.kind, rows, logged=logged)
        return None if cut is None else (split.join(cut[0]), split.join(cut[1], bare=True))

    def _frame(self, split: Split) -> set[str]:
        """The canonical forms of a text's units that make up a tenant's own prompt: those
        sent by nearly every session that sends the text's most sent varying unit, where two
        or more are (a tenant's prompt, sent by a third of the traffic, comes whole). Fixed for
        those sessions: only what varies among them leaves the text. Examples drawn from a
        pool are no frame, even two drawn together every time: they sit under a label line
        ("Examples:"), a list of what was drawn."""
        units = [(unit, self.counts.sessions.get((split.kind, normalized(unit)), set())) for unit in split.units
                 if self.info((split.kind, normalized(unit)))[0] == SHARED]
        if not units:
            return set()
        frame = max((held for _, held in units), key=len)
        members = [unit for unit, held in units if len(held & frame) >= STATIC_SHARE * len(frame)]
        if len(members) < 2 or any(_labelled(unit) for unit in members):
            return set()
        return {self.text(unit, split.kind) for unit in members}

    def split_restamped(self, text: str, data: bool = False, values: bool = True, strings: bool = False,
                        context: int = 0, scripted: bool = False, logged: Canon | None = None) -> tuple[str, str] | None:
        """An earlier turn's text without the units only one request sends, where the rest
        of it recurs (the turn resent as history with a new reading each time: the reading is
        not as first sent), and those units as one text; None otherwise. ``data``: the turn
        is a tool's result or a call's arguments, whose values move also where the rest of it
        is fixed (most of its text static: a stamp in a fixed call, a count in a fixed
        notice), each value alone where the unit holding it is mostly fixed; JSON is data too
        (``values``: where data may move at all; ``strings``: a line inside a JSON string
        too, in a tool's result, not in a call's code or query; ``context``: static characters
        around the text in its look-up, a call's results; ``scripted``: an assistant turn a
        fixed user turn follows, a script every session sends such as a canned greeting's
        exchange, so a value in a turn otherwise fixed parts it). A turn of prose and a value (a few-shot example sent
        once, the question after it its own) keeps its text. A line of prose (which ``split``
        keeps whole) gives its sentences where those that move are the smaller part of it: a
        reading restamped on a question resent as history, not a sentence of the writer's."""
        split = self._movable(text)
        prose = split is None and (split := self._movable(text, prose=True)) is not None
        if split is None:
            return None
        data = values and (data or split.kind == MEMBER)
        kept: list[str] = []
        moved: list[str] = []
        resent = False
        fixed = 0  # characters of static text kept
        ranks: list[int | None] = []  # per kept unit: its first-seen rank where it is fixed text
        for unit in split.units:
            key = (split.kind, normalized(unit))
            cls = self.info(key)[0]
            ranks.append((logged or self).rank_of(key) if cls == STATIC else None)
            # (``shared_out``: in data, a value several requests send moves too, an hour
            # stamped on a canned call.)
            # (``scripted``: so does one of the values several sessions send, a field's
            # forecast; a session's own text it resends, its question, stays.)
            if not (cls == UNIQUE and self.once(key) or (scripted or data and self.shared_out) and cls == SHARED):
                kept.append(unit)
                resent |= cls != STATIC
                fixed += len(unit) if cls == STATIC else 0
                continue
            slots = self._slots(split.kind, unit, strings)
            if slots is None:
                moved.append(unit)
                ranks.pop()
            else:
                kept.append(slots[0])
                moved.append(slots[1])
                fixed += len(slots[0])
                ranks[-1] = (logged or self)._slot_rank(split.kind, unit)
        # Resent: the turn holds content of its own that later requests send again (its
        # question, in the history).
        if not moved or not kept or not (resent or scripted and fixed == sum(map(len, kept))
                                         or data and 2 * (fixed + context) >= len(text) + context):
            return None
        if prose and sum(map(len, moved)) >= sum(map(len, kept)):
            return None
        if ORDER not in self.keep and split.kind != ITEM and not prose:  # (a line's sentences keep theirs)
            # The fixed text left of a value goes back among the fixed units to its place in
            # the log's first-seen order, as ``_cut`` puts it (the ordering kept the unit last
            # while it varied).
            placed = sorted((rank, k) for k, rank in enumerate(ranks) if rank is not None)
            order = [k for _, k in placed] + [k for k, rank in enumerate(ranks) if rank is None]
            kept = [kept[k] for k in order]
        return split.join(kept), split.join(moved, bare=True)

    def _movable(self, text: str, prose: bool = False) -> Split | None:
        """The units of a text some of which may move to another message (its most common
        spelling's; ``prose``: a line's sentences whatever their classes); None for a static
        text, one unit, or where placement is left out."""
        key = (TEXT, normalized(text))
        if self.info(key)[0] == STATIC or PLACEMENT in self.keep:
            return None
        surface = self.surface(key, text)
        return split_unit(surface, TEXT) if prose else self.split(surface)

    def _cut(self, kind: str, rows: list[tuple[str, int]], strings: bool = True,
             logged: Canon | None = None, out: int | None = None) -> tuple[list[str], list[str]] | None:
        """Units (with their class) as (kept, moved out), the moved pool in one order where
        ``shared_out``; None when nothing moves or nothing would be left. ``out``: the
        class from which units move (else as ``shared_out`` says)."""
        pool = out is None and self.shared_out
        out = out if out is not None else SHARED if self.shared_out else UNIQUE
        # Static units, and those whose values moved out (with their first-seen rank: the
        # fixed text left of a unit that held a value in it goes back to its fixed text's
        # place among the static units, which ordered it last while it varied).
        fixed: list[tuple[int, str]] = []
        kept: list[str] = []
        moved: list[str] = []
        last = -1  # (a static unit in a form the counts never saw stays behind the one before it)
        for unit, cls in rows:
            slots = self._slots(kind, unit, strings, out=None if pool else out) if cls >= out else None
            if slots is not None:
                fixed.append(((logged or self)._slot_rank(kind, unit) or 0, slots[0]))
                moved.append(slots[1])
            elif cls >= out:
                moved.append(unit)
            elif cls == STATIC or kind == ITEM:
                last = got if (got := (logged or self).rank_of((kind, normalized(unit)))) is not None else last
                fixed.append((last, unit))
            else:
                kept.append(unit)
        if kind != ITEM and ORDER not in self.keep:  # (an array's items stay in their order)
            fixed.sort(key=lambda row: row[0])
        kept = [unit for _, unit in fixed] + kept
        if not kept or not moved:
            return None
        return kept, self._pooled(kind, moved) if pool and ORDER not in self.keep else moved

    def _slots(self, kind: str, unit: str, strings: bool = True, out: int | None = None) -> tuple[str, str] | None:
        """A unique unit most of whose own units are static (a value inside fixed text: a
        timestamp among a config's keys, a sentence naming the session) as (the unit without
        its unique parts, those parts): only the values move, its fixed text stays where it is
        in the prefix every session shares. None for a unit that is mostly its own."""
        split = self.split(unit, kind)
        if split is None or split.encoded is not None and not strings:
            return None  # (``strings``: a JSON string's text stays whole, a call's code or query)
        rows = (self.ordered(split.kind, split.units) if split.kind != ITEM else
                [(self.text(u, ITEM), self.info((ITEM, normalized(u)))[0]) for u in split.units])
        if 2 * sum(cls == STATIC for _, cls in rows) < len(rows):
            return None
        cut = self._cut(split.kind, rows, strings, out=out)
        # (A member's values leave as a member of the same key: the object they join is JSON.)
        return None if cut is None else (split.join(cut[0]), split.join(cut[1], bare=kind != MEMBER))

    def aligned(self, kind: str, text: str) -> tuple[str, str] | None:
        """A unit that does not split, sent with a value inside text most sessions send (an
        employee number inside a parameter's description): (the unit without the value, the
        value), found by aligning the unit with its copies in other requests
        (``slots.align``); None where it has no such copies or placement is left out."""
        if PLACEMENT in self.keep or kind not in SLOTTED:
            return None
        span = self._frame_of(kind, text)[0]
        if span is None:
            return None
        start, end = span
        return text[:start] + text[end:], text[start:end].strip()

    def aligned_out(self, text: str) -> tuple[str, str] | None:
        """``aligned`` for a text of one unit that would move out (``split_out``'s class)."""
        if self._movable(text) is not None or self.info((TEXT, normalized(text)))[0] < (
                SHARED if self.shared_out else UNIQUE):
            return None
        return self.aligned(TEXT, text)

    def _frame_of(self, kind: str, text: str) -> tuple[tuple[int, int] | None, int | None]:
        """(The value's span in ``text``, the frame's first-seen rank) where the frame is
        static; (None, None) otherwise."""
        if len(text) <= EDGE or normalized(text) != text:
            return None, None  # (aligned as its key: the text must be spelled as that)
        group = TEXT if kind in TEXT_KINDS else kind
        heads, tails = self._families(group)
        span = None
        for bucket in (heads.get(text[:EDGE], ()), tails.get(text[-EDGE:], ())):
            span = align(text, itertools.islice((other for _, other in bucket if other != text), SAMPLE))
            if span is not None:
                break
        if span is None:
            return None, None
        head, tail = text[:span[0]], text[span[1]:]
        frame = (group, head, tail)
        if frame not in self.frames:
            bucket = heads.get(head[:EDGE], []) if len(head) >= EDGE else tails.get(tail[-EDGE:], [])
            held: set[Hashable] = set()
            rank = len(self.counts.rank)
            for key in bucket:
                other = key[1]
                if len(other) > len(head) + len(tail) and other.startswith(head) and other.endswith(tail):
                    held |= self.counts.sessions.get(key, set())
                    rank = min(rank, self.counts.rank.get(key, rank))
            if len(self.frames) >= MEMO_TEXTS:
                self.frames.clear()
            self.frames[frame] = (len(held), rank)
        n, rank = self.frames[frame]
        # The frame is what recurs: at least FRAME_LEAD times the sessions the unit has whole
        # (a code of the day among three days, a number per request); not only ``STATIC``:
        # one application's prompt in traffic shared with another is a frame too. A text the
        # counts never saw (what a cut left: the fix applied to its own output) has none.
        own = len(self.counts.sessions.get((kind, normalized(text)), ()))
        return (span, rank) if own and n >= FRAME_LEAD * own else (None, None)

    def _families(self, group: str) -> tuple[dict[str, list[Key]], dict[str, list[Key]]]:
        if group not in self.families:
            heads: dict[str, list[Key]] = {}
            tails: dict[str, list[Key]] = {}
            for key in self.counts.rank:
                kind, text = key
                if (TEXT if kind in TEXT_KINDS else kind) == group and len(text) > EDGE:
                    heads.setdefault(text[:EDGE], []).append(key)
                    tails.setdefault(text[-EDGE:], []).append(key)
            self.families[group] = (heads, tails)
        return self.families[group]

    def cut_choices(self, choices: list[Any], holders: int) -> tuple[list[Any] | None, str] | None:
        """An enum's choices without those that vary (a code of the day among fixed price
        bands, the open slots of the hour), and those as one JSON text; None where none
        varies. The choices are then named in the request's newest turn, not offered by the
        schema; an enum left with none goes (None: the key is dropped, no schema allows an
        empty one)."""
        if PLACEMENT in self.keep or not 0 < len(choices) <= MAX_ITEMS or any(isinstance(c, (dict, list)) for c in choices):
            return None
        out = SHARED if self.shared_out else UNIQUE
        texts = [json.dumps(c, ensure_ascii=False) for c in choices]
        infos = [self.info((ITEM, normalized(text))) for text in texts]
        # A choice varies where fewer sessions send it than send its tool (``holders``): one
        # every session of the tool sends is the tool's, however few send the tool.
        classes = [cls if n < STATIC_SHARE * holders else STATIC for cls, n, _ in infos]
        moved = [c for c, cls in zip(choices, classes) if cls >= out]
        if not moved:
            return None
        kept = [c for c, cls in zip(choices, classes) if cls < out]
        return kept or None, json.dumps(moved, ensure_ascii=False)

    def _pooled(self, kind: str, units: list[str]) -> list[str]:
        """Units moved out together, those several sessions share in one order (first-seen
        rank), so requests drawing the same ones from a pool share them; the unique ones
        after, as they came. A unit opened by a label line whose text the log also shows
        without it ("Examples:" over whichever example was drawn first) counts as that text,
        and the label heads the first unit of its pool."""
        label = ""
        rows = []
        for k, unit in enumerate(units):
            text = unit
            split = _labelled(unit)
            if split is not None and (kind, normalized(split[1])) in self.counts.rank:
                if label and split[0] != label:
                    return units  # two pools under two labels: which unit is whose is not known
                label, text = split
            cls, _, rank = self.info((kind, normalized(text)))
            if cls != SHARED:
                # A unit of its own may hold the pool (the examples under their label in one
                # text part): its units in the same order.
                inner = self.split(text, kind)
                if inner is not None and inner.layout is None:
                    text = inner.join(self._pooled(inner.kind, list(inner.units)))
            own = cls == UNIQUE and not self.drawn(kind, text)
            rows.append(((cls, own, rank if cls == SHARED else k), text))
        rows.sort(key=lambda row: row[0])
        out = [text for _, text in rows]
        if label:
            # The first unit the log shows under that label (the pool's first, as drawn).
            first = next((k for k, text in enumerate(out)
                          if (kind, normalized(label + "\n" + text)) in self.counts.rank), 0)
            out[first] = label + "\n" + out[first]
        return out

    def split_parts(self, parts: list[str]) -> tuple[list[str], list[str]] | None:
        """``split_out`` for a content of text parts (in canonical order), each a unit."""
        if PLACEMENT in self.keep:
            return None
        return self._cut(TEXT, [(part, self.info((TEXT, normalized(part)))[0]) for part in parts])

    def is_static(self, text: str) -> bool:
        return self.info((TEXT, normalized(text)))[0] == STATIC

    def sent_late(self, lead: str) -> bool:
        return False  # (known of the traffic's rounds only: ``Rounds.late``)

    def is_own(self, text: str) -> bool:
        """Whether only one request sends the text (no later one resends it)."""
        key = (TEXT, normalized(text))
        return self.info(key)[0] == UNIQUE and self.once(key) and PLACEMENT not in self.keep

    def moves_whole(self, text: str) -> bool:
        """Whether a system text with nothing fixed in it moves out whole: it is unique (with
        ``shared_out``: not all sessions send it), retrieved passages sent as the system
        prompt, ahead of the tools and the conversation (asked only where tools follow)."""
        key = (TEXT, normalized(text))
        # (A text the log never sent whole, what a rewrite left of one, is not judged by it.)
        return PLACEMENT not in self.keep and key in self.counts.sessions and self.info(key)[0] >= (
            SHARED if self.shared_out else UNIQUE)

    def cut_tools(self, tools: tuple[Any, ...]) -> tuple[tuple[Any, ...], list[str]]:
        """The tools with what varies in their texts cut out (a session id at the end of a
        description: the tool is then the same in every request), and the cut texts."""
        out: list[Any] = []
        moved: list[str] = []
        for tool in tools:
            surface = json.dumps(tool, ensure_ascii=False)
            if surface not in self.cuts:
                if len(self.cuts) >= MEMO_TEXTS:
                    self.cuts.clear()
                texts: list[str] = []
                cut = _cut_strings(tool, self, texts, holders=self.info((TOOL_NAME, tool_name(tool)))[1])
                self.cuts[surface] = (json.dumps(cut, ensure_ascii=False), tuple(texts)) if texts else None
            got = self.cuts[surface]
            out.append(tool if got is None else json.loads(got[0]))
            moved += got[1] if got is not None else ()
        return tuple(out), moved

    def cut_tools_text(self, text: str, moved: list[str]) -> str:
        """A turn of tool definitions as the template printed them (JSON) with what varies in
        their descriptions cut out, as ``cut_tools`` cuts a request's tools; the cut texts
        appended to ``moved``. Each description is replaced where it is written, in the
        escaping it is written in, so the rest of the turn stays byte for byte as the template
        printed it (its separators, its key order); one written otherwise stays whole."""
        if text not in self.turn_cuts:
            if len(self.turn_cuts) >= MEMO_TEXTS:
                self.turn_cuts.clear()
            self.turn_cuts[text] = self._tools_text_cut(text)
        cut, texts = self.turn_cuts[text]
        moved += texts
        return cut

    def _tools_text_cut(self, text: str) -> tuple[str, tuple[str, ...]]:
        try:
            value = json.loads(text)
        except ValueError:
            return text, ()
        moved: list[str] = []
        for old in dict.fromkeys(_strings(value)):
            cut = self.split_out(old)
            if cut is None:
                continue
            for ascii_only in (False, True):
                written = re.compile(r'("description"\s*:\s*)' + re.escape(json.dumps(old, ensure_ascii=ascii_only)))
                if written.search(text) is not None:
                    # (A replacement function: the new literal's backslashes are not a template's.)
                    new = json.dumps(cut[0], ensure_ascii=ascii_only)
                    text = written.sub(functools.partial(_relabelled, new), text)
                    moved.append(cut[1])
                    break
        return text, tuple(moved)

    def static_lead(self, text: str) -> tuple[str, str]:
        """``text`` cut after its leading static units: (head, rest), the head "" where the
        text does not start with one, the rest "" where it is all static."""
        split = self.split(text)
        if split is None or split.layout is not None:
            # One unit, or a JSON object (re-serialized whole, never cut).
            return (text, "") if self.is_static(text) else ("", text)
        n = 0
        while n < len(split.units) and self.info((split.kind, normalized(split.units[n])))[0] == STATIC:
            n += 1
        if n == 0:
            return "", text
        if n == len(split.units):
            # All of it static: what comes after its units (a cue the model answers after,
            # "Answer:") stays last.
            trail = split.fixed[-1]
            return (text, "") if not trail.strip() else (text[:len(text) - len(trail)], trail.lstrip())
        head = split.fixed[0] + "".join(unit + gap for unit, gap in zip(split.units[:n], split.fixed[1:n])) + split.units[n - 1]
        # (The break after the head is dropped: the moved text brings its own.)
        return head, "".join(unit + gap for unit, gap in zip(split.units[n:], split.fixed[n + 1:]))


def _bullets(units: tuple[str, ...] | list[str]) -> bool:
    """Whether every unit is one line opening with the same bullet ("- ", "* ", "• ")."""
    marks = {unit[:2] for unit in units}
    return len(marks) == 1 and marks <= {"- ", "* ", "\u2022 "} and not any("\n" in unit for unit in units)


def _labelled(unit: str) -> tuple[str, str] | None:
    """(label line, the rest) of a unit opened by a label line ("Examples:\\nQ: ..."); else None."""
    label, newline, rest = unit.partition("\n")
    return (label, rest) if newline and rest.strip() and _CUE.match(label) else None


def _placed(rows: list[tuple[Any, Any, int]], move: bool) -> list[tuple[Any, Any, int]]:
    """Rows (sort key, payload, class) in canonical order; without ``move``, only the static
    rows are put in order, each in a place a static row held (what varies stays put)."""
    if move:
        return sorted(rows, key=lambda row: row[0])
    slots = [k for k, row in enumerate(rows) if row[2] == STATIC]
    out = list(rows)
    for k, row in zip(slots, sorted((rows[k] for k in slots), key=lambda row: row[0])):
        out[k] = row
    return out


# ---------------------------------------------------------------- the fixes


def _gap(joiner: str) -> str:
    """A blank line between moved text and the text it joins, counting what the engine
    already puts between content parts."""
    return "\n" * max(0, 2 - joiner.count("\n"))


def _opens_static(content: Any, canon: Canon | Rounds) -> bool:
    """Whether a turn's content opens with static text, what ``_insert`` puts moved texts
    behind (``at_start``): a static lead, or a first text part that is static."""
    if isinstance(content, str):
        return bool(canon.static_lead(content)[0].strip())
    return isinstance(content, list) and bool(content) and _is_text(content[0]) and canon.is_static(content[0]["text"])


def _insert(content: Any, moved: list[str], at_start: bool, joiner: str, canon: Canon | Rounds) -> Any:
    """``content`` with the ``moved`` texts (a text's units, or text parts) at its end, or
    (``at_start``) after what every session sends first in it (a static instruction ahead of
    the question): at its start where nothing leads."""
    if not isinstance(content, list):
        text = "\n\n".join(moved)
        if not isinstance(content, str) or not content:
            return text
        if not at_start:
            return content + "\n\n" + text
        head, tail = canon.static_lead(content)
        if not head:
            return text + "\n\n" + content
        return head + "\n\n" + text + ("\n\n" + tail if tail else "")
    lead = len(content)
    if at_start:
        lead = 0
        while lead < len(content) and _is_text(content[lead]) and canon.is_static(content[lead]["text"]):
            lead += 1
    gap = _gap(joiner)
    parts = [{"type": "text", "text": text} for text in moved]
    if lead:
        parts[0]["text"] = gap + parts[0]["text"]
    if lead < len(content):
        parts[-1]["text"] += gap
    return list(content[:lead]) + parts + list(content[lead:])


def _move_out(messages: list[dict[str, Any]], canon: Canon | Rounds, to: str, joiner: str,
              from_tools: list[str] | None = None, whole: bool = True) -> None:
    """Move the unique units of the first system message that has any (``shared_out``: every
    unit not all sessions send; of a content of text parts, whole parts) to the last user
    message, in place, and after them ``from_tools``, what was cut out of the tools, and the
    units of earlier turns only one request sends where the rest of the turn recurs. (A
    layout may open with a system turn of its own, harmony's date header, ahead of the one
    holding the instructions.) ``whole``: a system message may move out whole (not where its
    markup stays in place, in a prompt)."""
    # The newest turn of input: the user's, or in an agent's loop the last tool result (a user
    # turn behind it is history the next step resends as it was).
    user = max((k for k, m in enumerate(messages) if m.get("role") in ("user", "tool")), default=-1)
    # (Values cut out of data go to a user turn only: appended to a tool's JSON result, they
    # would make it no JSON.)
    into_user = user >= 0 and messages[user].get("role") == "user"
    found = moving_out(messages, canon, whole)
    moved = list(from_tools or ())
    if into_user and not any(m.get("role") == "assistant" for m in messages):
        # A single exchange (no history to extend) whose opening holds a user turn of its own
        # ahead of a system turn every session sends (notes sent as a turn before the
        # instructions): its text goes to the newest turn; the turn stays, empty (a template
        # or a prompt's markup keeps its roles in order).
        for k in range(user):
            content = messages[k].get("content")
            if (messages[k].get("role") == "user" and isinstance(content, str) and content.strip()
                    and canon.moves_whole(content) and any(
                        m.get("role") in SYSTEM_ROLES and isinstance(m.get("content"), str)
                        and canon.is_static(m["content"]) for m in messages[k + 1:user])):
                messages[k] = dict(messages[k], content="")
                moved.append(content)
    if found is not None:
        system, (kept, out) = found
        content = messages[system].get("content")
        messages[system] = dict(messages[system], content=kept[0] if isinstance(content, str) else
                                [{"type": "text", "text": text} for text in kept])
        moved = out + moved
    for k in range(max(0, user)):
        # An earlier turn resent with a new reading (a user turn restamped, a reply annotated
        # with its age), a value in a tool's fixed result or in a call's fixed arguments: the
        # reading goes to the newest turn.
        role, content = messages[k].get("role"), messages[k].get("content")
        turn = role in ("user", "assistant", "tool")
        # (A reply of the assistant's, then a fixed user turn: a script every session sends, and
        # the fixed turn does not answer the value, as a reply to a user turn answers that turn.
        # So is a reply to a fixed user turn, an example's answer: its question fixed, a value
        # in it answers nothing that varies; it is a stamp on the example.)
        after, asked = messages[k + 1].get("content"), messages[k - 1].get("content") if k else None
        scripted = role == "assistant" and (
            messages[k + 1].get("role") == "user" and isinstance(after, str) and canon.is_static(after)
            or bool(k) and messages[k - 1].get("role") == "user" and isinstance(asked, str) and canon.is_static(asked))
        cut = (canon.split_restamped(content, role == "tool", into_user, role == "tool", scripted=scripted)
               if turn and isinstance(content, str) else None)
        if cut is not None:
            messages[k] = dict(messages[k], content=cut[0])
            moved.append(cut[1])
        if role == "assistant" and messages[k].get("tool_calls") and into_user:
            # (A call is a look-up with its results: their static text is the fixed rest too.)
            after = list(itertools.takewhile(lambda m: m.get("role") == "tool", messages[k + 1:]))
            results = sum(len(m["content"]) for m in after
                          if isinstance(m.get("content"), str) and canon.is_static(m["content"]))
            messages[k] = dict(messages[k], tool_calls=_calls_cut(messages[k]["tool_calls"], canon, moved, results))
    newest = messages[user].get("content") if into_user else None
    if to == LAST_USER and isinstance(newest, str) and (own := canon.split_out(newest)) is not None:
        # What varies inside the newest turn's fixed text goes to its end too, ahead of what
        # the other turns send there: the fixed text left of it keeps its place (the
        # instructions' opening line a send time was stamped above).
        messages[user] = dict(messages[user], content=own[0])
        moved.insert(0, own[1])
    if moved and user >= 0:
        messages[user] = dict(messages[user], content=_insert(messages[user].get("content"), moved, to == LAST_USER_START, joiner, canon))


def _calls_cut(calls: Any, canon: Canon | Rounds, moved: list[str], context: int = 0) -> Any:
    """Tool calls with the values only one request sends cut out of their arguments (where
    the rest of them, and ``context`` characters of static results, is fixed), the cut texts
    appended to ``moved``."""
    if not isinstance(calls, (list, tuple)):
        return calls
    out = []
    for call in calls:
        args = _arguments(call)
        cut = canon.split_restamped(args, True, context=context) if args is not None and args.lstrip()[:1] == "{" else None
        if cut is None and args is not None and args.strip() not in ("", "{}") and context >= len(args) \
                and canon.is_own(args):
            # Arguments that are one value only this request sends, to a look-up whose fixed
            # results outweigh them (a case number to a canned guidance call): the call is
            # made without them, and they go to the newest user turn.
            cut = ("{}", args)
        if cut is None:
            out.append(call)
            continue
        out.append(dict(call, function=dict(call["function"], arguments=cut[0])))
        moved.append(cut[1])
    return out


def moving_out(messages: list[dict[str, Any]] | tuple[dict[str, Any], ...],
               canon: Canon | Rounds, whole: bool = True) -> tuple[int, tuple[list[str], list[str]]] | None:
    """The system message a placement variant moves units out of (the first ahead of the last
    user turn that has any) and its content as (kept, moved) texts; None where none moves."""
    user = max((k for k, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    return next(((k, cut) for k in range(max(0, user)) if messages[k].get("role") in SYSTEM_ROLES
                 and (cut := _cut_of(messages[k].get("content"), canon, whole)) is not None), None)


def _cut_of(content: Any, canon: Canon | Rounds, whole: bool = True) -> tuple[list[str], list[str]] | None:
    """A system message's content as (kept, moved) texts; None where nothing moves."""
    texts = [content] if isinstance(content, str) else text_parts(content)
    if not texts:
        return None
    if len(texts) == 1:
        # (A text of one unit with a value inside it: the value leaves, its frame stays.)
        cut = canon.split_out(texts[0]) or canon.aligned_out(texts[0])
        if cut is None and whole and texts[0].strip() and canon.moves_whole(texts[0]):
            # (The message stays, empty: without one, a template may print a default of its own.)
            return [""], [texts[0]]
        return None if cut is None else ([cut[0]], [cut[1]])
    return canon.split_parts(texts)  # text parts: each is a unit of its own, moved whole


def _first_user_opens(req: Request, canon: Canon | Rounds) -> Request | None:
    """A raw prompt's ``system_into_first_user``: where the template printed the system text
    at the start of the last user turn behind earlier ones, the static units it opens with
    (the system text, in canonical form) go to the start of the first user turn instead.
    None for a prompt of one user turn (it renders the same either way) or none to move."""
    prompt = req.prompt or ""
    turns = prompt_turns(prompt, canon.markup)
    users = [(a, b) for a, b, role in turns or () if role == "user"]
    if len(users) < 2:
        return None
    (a, b), (c, d) = users[0], users[-1]
    body = prompt[c:d]
    lead = body[:len(body) - len(body.lstrip())]
    head, rest = canon.static_lead(body[len(lead):])
    if not head.strip() or not rest.strip():
        return None
    first = prompt[a:b]
    first_lead = first[:len(first) - len(first.lstrip())]
    opened = first_lead + head + "\n\n" + first[len(first_lead):]
    return dataclasses.replace(req, prompt=prompt[:a] + opened + prompt[b:c] + lead + rest + prompt[d:])


def _prompt(req: Request, prompt: str, canon: Canon | Rounds, to: str, joiner: str) -> Request | None:
    """A prompt in canonical form: each turn's body as a message's content would be (the
    markup between them as it was), or the whole text where it has no chat markup."""
    turns = prompt_turns(prompt, canon.markup)
    if turns is None:
        out = canon.whole(prompt)
        cut = canon.split_out(out) if to != KEPT else None
        if cut is not None:
            # No turn to move to: what varies goes to the end of the text, ahead of the cue
            # the model answers after ("Assistant:"), which stays last.
            kept, moved = cut
            body = kept.rstrip()
            at = body.rfind("\n")
            cue = body[at + 1:]
            at = (len(kept[:at].rstrip("\n")) if at >= 0 and (_LABEL.match(cue) or _OPEN_CUE.fullmatch(cue))
                  else len(kept.rstrip("\n")))
            out = kept[:at] + "\n\n" + moved + kept[at:]
    else:
        sent = [{"role": role, "content": prompt[a:b]} for a, b, role in turns]
        messages = [dict(m, content=canon.content(m["content"]))
                    for m in in_order(sent, canon, roles_kept=True, moving=to != KEPT)]
        if to != KEPT:
            from_tools: list[str] = []
            if any(m["role"] == "user" for m in messages):  # (where the cut can go)
                # The tool definitions printed in a turn of their own, cut as a request's tools are.
                messages = [dict(m, content=canon.cut_tools_text(m["content"], from_tools))
                            if m["role"] == TOOLS_ROLE else m for m in messages]
            _move_out(messages, canon, to, joiner, from_tools, whole=False)
        pieces, at = [], 0
        for (a, b, _), message in zip(turns, messages):
            pieces += [prompt[at:a], message["content"]]
            at = b
        out = "".join(pieces) + prompt[at:]
    return dataclasses.replace(req, prompt=out) if out != prompt else None


def _relabelled(literal: str, match: re.Match[str]) -> str:
    return match.group(1) + literal


def rewrite(req: Request, canon: Canon | Rounds, to: str = KEPT, joiner: str = "") -> Request | None:
    """The request in canonical form (``to``: where the system message's unique units go);
    None when that changes nothing."""
    if req.kind == "prompt" and req.prompt:
        return _prompt(req, req.prompt, canon, to, joiner)
    if req.kind != "messages" or not req.messages:
        return None
    # What the template renders from the request's options or clock has no place in the
    # messages to move to: one value for every request (unless placement is left out).
    markup = canon.markup
    keep = canon.last.keep if isinstance(canon, Rounds) else canon.keep
    pinned = None if PLACEMENT in keep else pin_template_values(req, markup.reads_date, markup.reads_clock)
    # (Cut where a variant moves what varies, to a user turn: ``_move_out``.)
    cutting = to != KEPT and any(m.get("role") == "user" for m in req.messages)
    tools = canon.tools(req.tools, cutting) if req.tools else req.tools
    messages = [m if m.get("content") is None else dict(m, content=canon.content(m.get("content")))
                for m in in_order(list(req.messages), canon, moving=to != KEPT)]
    messages = [dict(m, tool_calls=calls(m["tool_calls"], canon)) if m.get("tool_calls") else m for m in messages]
    messages = _renamed(messages, req.messages, canon)
    if PLACEMENT not in keep:
        messages = _late_instructions(messages, canon)
        if markup.drops_reasoning:
            # Printed while its turn is in the newest exchange, dropped once a later user turn
            # follows: the turn renders otherwise in every later request. Sent with none, it
            # renders one way in all of them.
            messages = [{k: v for k, v in m.items() if k not in REASONING_FIELDS} if m.get("role") == "assistant"
                        else m for m in messages]
    if to != KEPT:
        moved: list[str] = []
        if tools and any(m.get("role") == "user" for m in messages):  # (where the cut can go)
            tools, moved = canon.cut_tools(tools)
        # A system message moves out whole only ahead of what later requests send again: tools
        # (which most templates print after it), turns ahead of the newest one (a
        # conversation's history, examples), or, where it goes behind the newest user turn's
        # opening, static text that opens that turn (the instructions a client sends there).
        # With only the question behind it, only the template's own tokens would gain.
        last = max((k for k, m in enumerate(messages) if m.get("role") in ("user", "tool")), default=-1)
        user = last >= 0 and messages[last].get("role") == "user"
        turns = user and any(m.get("role") not in SYSTEM_ROLES for m in messages[:last])
        opens = user and to == LAST_USER_START and _opens_static(messages[last].get("content"), canon)
        _move_out(messages, canon, to, joiner, moved, whole=bool(tools) or turns or opens)
    if _same(tools, req.tools) and _same_messages(messages, req.messages):
        return pinned
    return dataclasses.replace(pinned or req, tools=tools, messages=tuple(messages))


def _late_instructions(messages: list[dict[str, Any]], canon: Canon | Rounds) -> list[dict[str, Any]]:
    """Static text that opens the newest user turn (in canonical form) of a request without
    a system message: instructions the client sends with the newest turn only
    (``Rounds.sent_late``), so that a conversation's history parts them from every other
    request. They open the request instead, as its system prompt. (Behind a system message
    of the client's they would join text the canonical form orders anew.)"""
    users = [k for k, m in enumerate(messages) if m.get("role") == "user"]
    content = messages[users[-1]].get("content") if users else None
    if not isinstance(content, str) or any(m.get("role") in SYSTEM_ROLES for m in messages):
        return messages
    head, rest = canon.static_lead(content)
    lead = head.strip()
    if not lead or not rest.strip() or not canon.sent_late(lead):
        return messages
    out = list(messages)
    out[users[-1]] = dict(out[users[-1]], content=rest.lstrip())
    return [{"role": "system", "content": lead}] + out


def in_order(messages: list[dict[str, Any]], canon: Canon | Rounds, roles_kept: bool = False,
             moving: bool = False) -> list[dict[str, Any]]:
    """The messages in canonical order (each as sent): exchanges, then the opening;
    ``roles_kept``: as sent where that would change the sequence of roles (a prompt's turns
    change places only where the markup between them stays where it is); ``moving``: the
    variant moves what varies out of the system message (``opening``)."""
    out = opening(_exchanges_in_order(messages, canon.canons[0] if isinstance(canon, Rounds) else canon), canon,
                  moving)
    if roles_kept and [m.get("role") for m in out] != [m.get("role") for m in messages]:
        return messages
    return out


def opening(messages: list[dict[str, Any]], canon: Canon | Rounds, moving: bool = False) -> list[dict[str, Any]]:
    """The messages ahead of the first assistant turn (what every request of a conversation
    opens with) in canonical order: the system messages of each role among themselves as
    units (static ones first, by first-seen rank; then those several sessions send, a
    tenant's prompt or one of a few dated versions; a note, a summary or passages of the
    request's own last; these as they came), then, where all of them are static, all of them
    ahead of the rest of the opening (a note sent ahead of the system prompt). Only system
    roles move (a chat template may require them first), and a role only among its own
    messages (a layout may print the first system message alone as the system prompt), so
    the next request of the conversation still extends this one (unless its client sends
    the system message only from a later request on). ``moving``: a system message whose
    varying units the variant moves out (``split_out``) ranks as what it keeps, static where
    all it keeps is (instructions under a request time, sent behind passages of the request's
    own: the passages go behind them)."""
    last = canon.last if isinstance(canon, Rounds) else canon
    logged = canon.canons[0] if isinstance(canon, Rounds) else canon
    if PLACEMENT in last.keep:
        return messages
    end = next((k for k, m in enumerate(messages) if m.get("role") == "assistant"), len(messages))

    def rank(k: int) -> tuple[int, int]:
        """(STATIC, first-seen rank) of a static message; (its class, its place) of any other."""
        content = messages[k].get("content")
        texts = [content] if isinstance(content, str) else text_parts(content) or []
        # (Counted as rewritten, where the last round counts the text's canonical form: a
        # prompt that varied only in the order of its units is static once they are in one;
        # else where the log holds it as sent.)
        infos = [last.info(key) if (key := (TEXT, normalized(canon.text(t)))) in last.counts.sessions
                 else logged.info((TEXT, normalized(t))) for t in texts]
        if not infos:
            return (UNIQUE, k)
        cls = max(info[0] for info in infos)
        if cls != STATIC and moving and isinstance(content, str) and (cut := canon.split_out(content)) is not None:
            head, rest = canon.static_lead(cut[0])
            if head and not rest.strip():
                return (STATIC, len(logged.counts.rank) + k)  # (behind the messages static as sent)
        return (STATIC, infos[0][2]) if cls == STATIC else (cls, k)

    # A static system message the client sends behind the history (ahead of the newest turn)
    # opens the request instead: every request of the conversation sends it, so the next one
    # still extends this one, and the history no longer parts the prompt every session shares.
    newest = max((k for k, m in enumerate(messages) if m.get("role") in ("user", "tool")), default=-1)
    late = [k for k in range(end, newest) if messages[k].get("role") in SYSTEM_ROLES and rank(k)[0] == STATIC]
    if late:
        messages = [messages[k] for k in late] + [m for k, m in enumerate(messages) if k not in late]
        end += len(late)
    system = [k for k in range(end) if messages[k].get("role") in SYSTEM_ROLES]
    ranks = {k: rank(k) for k in system}
    out = list(messages)
    if ORDER not in last.keep:
        for role in SYSTEM_ROLES:
            slots = [k for k in system if messages[k].get("role") == role]
            ordered = sorted(slots, key=lambda k: ranks[k])
            for k, j in zip(slots, ordered):
                out[k] = messages[j]
    if not system or system == list(range(len(system))) or any(ranks[k][0] != STATIC for k in system):
        return out
    return [out[k] for k in system] + [out[k] for k in range(end) if k not in system] + out[end:]


def _same_messages(new: list[dict[str, Any]], old: tuple[dict[str, Any], ...]) -> bool:
    """``_same`` for a rewrite's messages, told at once where each holds the very content
    it was made from (a canonical text is returned as it came): a copy of a message with
    its own content is the message, key order included."""
    return all(a is b or (a.get("content") is b.get("content") and a.get("tool_calls") is b.get("tool_calls")
                          and a.get("tool_call_id") == b.get("tool_call_id"))
               for a, b in zip(new, old)) or _same(new, list(old))


def _same(a: Any, b: Any) -> bool:
    """Equal, key order included: it is part of the surface form and invisible to ==
    (compared as serialized only where == holds, the rare case for a rewrite)."""
    return a is b or (a == b and (isinstance(a, str) or json.dumps(a) == json.dumps(b)))


def count(requests: list[Request | None], markup: Markup = PLAIN) -> Counts:
    counts = Counts(markup=markup)
    sessions: set[Hashable] = set()
    for k, req in enumerate(requests):
        if req is None:
            continue
        # A request without a session is a session of its own.
        session: Hashable = req.session if req.session is not None else ("request", k)
        sessions.add(session)
        counts.add(req, session)
    counts.total = len(sessions)
    return counts


class Rounds:
    """Canonical forms under successive counts: rewriting unifies surfaces and orders, so
    the rewritten traffic shares more than the logged one and its own counts can order it
    further. Each text goes through every round's form, unless the last round already
    leaves it as it is (a text of the canonical traffic): a pure function of the text."""

    def __init__(self, canons: list[Canon], tools: dict[tuple[str, ...], tuple[str, ...] | None] | None = None,
                 late: frozenset[str] = frozenset()) -> None:
        self.canons = canons
        self.last = canons[-1]
        self.late = late  # ``_late_leads`` of the traffic
        # Most requests send one of a few tool lists: the canonical form of each, by its
        # surface (None: already canonical).
        self._tools: dict[tuple[str, ...], tuple[str, ...] | None] = tools if tools is not None else {}

    def _through(self, value: Any, step: Callable[[Canon, Any], Any]) -> Any:
        # A value the last round counted and leaves as it is is settled (the rewrite's own
        # output: so the fix is idempotent). One it never counted goes through every round in
        # order: the first may change it, a text the first round rewrote before the last
        # counted the traffic.
        if self._counted(value) and _same(step(self.last, value), value):
            return value
        for canon in self.canons:
            value = step(canon, value)
        return value

    def _counted(self, value: Any) -> bool:
        """Whether the last round counted the value (each text of a content, each tool)."""
        sessions = self.last.counts.sessions
        if isinstance(value, str):
            key = normalized(value)
            return any((kind, key) in sessions for kind in TEXT_KINDS)
        if isinstance(value, tuple):  # (tools)
            return all((TOOL, normalized(json.dumps(tool, ensure_ascii=False))) in sessions for tool in value)
        if isinstance(value, list):  # (a content's parts)
            return all(self._counted(p["text"]) for p in value if _is_text(p))
        return True

    def text(self, text: str) -> str:
        return str(self._through(text, Canon.text))

    def whole(self, text: str) -> str:
        return str(self._through(text, Canon.whole))

    def tools(self, tools: tuple[Any, ...], cutting: bool = False) -> tuple[Any, ...]:
        surfaces = tuple(json.dumps(tool, ensure_ascii=False) for tool in tools) + (str(cutting),)
        if surfaces not in self._tools:
            if len(self._tools) >= MEMO_TEXTS:
                self._tools.clear()
            out = self._through(tools, lambda canon, value: Canon.tools(canon, value, cutting))
            self._tools[surfaces] = None if out is tools else tuple(json.dumps(t, ensure_ascii=False) for t in out)
        forms = self._tools[surfaces]
        # Parsed anew, as a rewrite has always returned them: no two requests share a tool.
        return tuple(tools) if forms is None else tuple(json.loads(form) for form in forms)

    def content(self, content: Any) -> Any:
        return self._through(content, Canon.content)

    def aligned_out(self, text: str) -> tuple[str, str] | None:
        return self.last.aligned_out(text)

    def split_out(self, text: str) -> tuple[str, str] | None:
        return self.last.split_out(text, self.canons[0])

    @property
    def markup(self) -> Markup:
        return self.last.counts.markup

    def split_restamped(self, text: str, data: bool = False, values: bool = True,
                        strings: bool = False, context: int = 0, scripted: bool = False) -> tuple[str, str] | None:
        return self.last.split_restamped(text, data, values, strings, context, scripted, self.canons[0])

    def split_parts(self, parts: list[str]) -> tuple[list[str], list[str]] | None:
        return self.last.split_parts(parts)

    def is_static(self, text: str) -> bool:
        return self.last.is_static(text)

    def sent_late(self, lead: str) -> bool:
        """Whether ``lead`` (static text opening a newest user turn, in canonical form) is
        instructions the client sends with the newest user turn only (``_late_leads``)."""
        return lead in self.late

    def is_own(self, text: str) -> bool:
        return self.last.is_own(text)

    def moves_whole(self, text: str) -> bool:
        return self.last.moves_whole(text)

    def cut_tools(self, tools: tuple[Any, ...]) -> tuple[tuple[Any, ...], list[str]]:
        return self.last.cut_tools(tools)

    def cut_tools_text(self, text: str, moved: list[str]) -> str:
        return self.last.cut_tools_text(text, moved)

    def static_lead(self, text: str) -> tuple[str, str]:
        return self.last.static_lead(text)

    def forget(self) -> None:
        """Drop the memos of the forms made so far (they are made again on demand)."""
        for canon in self.canons:
            canon.memo.clear()
            canon.cuts.clear()
            canon.co_held.clear()
            canon.turn_cuts.clear()
        self._tools.clear()

    def keeping(self, keep: frozenset[str]) -> Rounds:
        """The same rounds with the changes ``keep`` names left out."""
        return Rounds([Canon(canon.counts, keep, canon.shared_out) for canon in self.canons], late=self.late)

    def sharing_out(self) -> Rounds:
        """The same rounds moving every unit of the system message not all sessions send
        (the same forms of every text and tool list: their memos are shared)."""
        return Rounds([Canon(canon.counts, canon.keep, True, canon.memo) for canon in self.canons], self._tools, self.late)


def canonical_rounds(requests: list[Request | None], markup: Markup = PLAIN) -> Rounds:
    """Count, rewrite, count the rewrite again, until a round changes nothing (at most ROUNDS):
    the last round's forms are then a fixed point, which is what makes the fix idempotent."""
    canons: list[Canon] = []
    current = list(requests)
    for _ in range(ROUNDS):
        canon = Canon(count(current, markup))
        canons.append(canon)
        rewritten = [rewrite(r, canon) if r is not None else None for r in current]
        if all(r is None for r in rewritten):
            break
        current = [new if new is not None else old for new, old in zip(rewritten, current)]
    rounds = Rounds(canons)
    return Rounds(canons, late=_late_leads(requests, rounds))


def _late_leads(requests: list[Request | None], rounds: Rounds) -> frozenset[str]:
    """The static leads (in canonical form) that open the newest user turn of nearly every
    request that sends a user turn, and no earlier user turn of any: instructions a client
    adds to the newest turn only. (Sent with some turns and not others, or kept in the
    history too, they would open some requests of a conversation and not the next.)"""
    heads: dict[str, str] = {}

    def head(text: str) -> str:
        if text not in heads:
            heads[text] = rounds.static_lead(rounds.content(text))[0].strip()
        return heads[text]

    newest: Counter[str] = Counter()
    history: set[str] = set()
    asked = 0
    for req in requests:
        users = [m["content"] for m in (req.messages or () if req is not None else ())
                 if m.get("role") == "user" and isinstance(m.get("content"), str)]
        if not users:
            continue
        asked += 1
        newest[head(users[-1])] += 1
        history.update(head(text) for text in users[:-1])
    return frozenset(lead for lead, n in newest.items() if lead and lead not in history and n >= STATIC_SHARE * asked)


Pool = tuple[tuple[Any, ...], tuple[Any, ...]]  # (every tool of the pool, those not every session sends)


def canonical_fix(canon: Canon | Rounds, to: str, joiner: str, pool: Pool | None = None,
                  first_user: bool = False) -> Fix:
    """The rewrite into ``canon``'s forms as a fix (``to``: where the system message's
    varying units go; ``pool``: tools added where missing to every request that sends one of
    the pool's varying tools; ``first_user``: the system prompt then sent as the opening of
    the first user turn, ``opening.system_into_first_user``)."""
    varying = {tool_name(tool) for tool in pool[1]} if pool else set()
    if first_user:
        inner = canonical_fix(canon, to, joiner, pool)

        def folded(req: Request) -> Request | None:
            done = inner(req)
            if req.kind == "prompt":
                return _first_user_opens(done or req, canon) or done
            return system_into_first_user(done or req) or done
        return folded

    def fix(req: Request) -> Request | None:
        # Only a request that draws from the pool gets the rest of it (another app's request,
        # or one whose tools are text in a prompt, is no subset of it).
        names = {tool_name(tool) for tool in req.tools or ()}
        if pool and req.kind == "messages" and names & varying:
            missing = tuple(tool for tool in pool[0] if tool_name(tool) not in names)
            if missing:
                widened = dataclasses.replace(req, tools=tuple(req.tools or ()) + missing)
                return rewrite(widened, canon, to, joiner) or widened
        return rewrite(req, canon, to, joiner)
    return fix


def tool_pool(canon: Canon | Rounds) -> Pool | None:
    """The tools a per-request subset is drawn from: each name the log sends in one form
    only, held by two sessions or more (a tool of one request's own, or one whose form varies
    per request, a shopper's coupons in its description, is not the pool's); in first-seen
    order. Empty unless the tools not every session sends are one pool: each sent together
    with another of them, all linked (a tool per tenant is sent with no other tenant's, and
    two apps' tool sets never meet: neither is one pool to hand every request)."""
    counts = (canon.canons[0] if isinstance(canon, Rounds) else canon).counts
    first = Canon(counts)
    forms: dict[str, list[Key]] = {}
    for key in counts.rank:  # (first-seen order)
        if key[0] == TOOL:
            forms.setdefault(tool_name(json.loads(first.surface(key, key[1]))), []).append(key)
    pool = [keys[0] for name, keys in forms.items() if name and len(keys) == 1 and first.info(keys[0])[0] != UNIQUE]
    varying = [key for key in pool if first.info(key)[0] != STATIC]
    if len(varying) < 2 or len(varying) > MAX_POOL or not _linked([counts.sessions[key] for key in varying]):
        return None
    return (tuple(json.loads(first.surface(key, key[1])) for key in pool),
            tuple(json.loads(first.surface(key, key[1])) for key in varying))


def _linked(holders: list[set[Hashable]]) -> bool:
    """Whether the sets form one component when two that share a member are linked."""
    reached, frontier = {0}, [0]
    while frontier:
        k = frontier.pop()
        for j in range(len(holders)):
            if j not in reached and not holders[k].isdisjoint(holders[j]):
                reached.add(j)
                frontier.append(j)
    return len(reached) == len(holders)


def canonical_fixes(requests: list[Request | None], joiner: str, rounds: Rounds | None = None,
                    system_late: bool = False) -> list[tuple[str, Fix, dict[str, Any]]]:
    """The canonical-order fix, one variant per place for the first system message's unique
    units, the default first: (description, fix, details). ``rounds``: the canonical forms
    of ``requests`` where the caller has them; ``system_late``: the chat template prints the
    system prompt behind the history (``markup.Markup.system_late``), and a variant sends it
    as the opening of the first user turn."""
    canon = rounds if rounds is not None else canonical_rounds(requests)

    def fix_for(to: str) -> Fix:
        return canonical_fix(canon, to, joiner)

    lead = ("Send every request in one canonical order: tools and content that every session shares first "
            "(in one order, one spelling; tools most requested first), then content shared by some sessions, ")
    out: list[tuple[str, Fix, dict[str, Any]]] = [
        (lead + "then what varies, at the end of its message.", fix_for(KEPT), {"to": KEPT}),
        (lead + "and what varies in the system message after the opening every session sends in the last "
         "user turn.",
         fix_for(LAST_USER_START), {"to": LAST_USER_START}),
        (lead + "and what varies in the system message at the end of the last user turn.",
         fix_for(LAST_USER), {"to": LAST_USER}),
        (lead + "and what not every session sends in the system message after the opening every session "
         "sends in the last user turn, what several share in one order (examples drawn from a pool; "
         "passages too, where their order carries no meaning).",
         canonical_fix(canon.sharing_out(), LAST_USER_START, joiner), {"to": LAST_USER_START, "shared_out": True}),
    ]
    if system_late:
        out.append((lead + "then what varies, at the end of its message; the system prompt as the opening of the first "
                    "user turn (this chat template prints it with the last user turn, behind the history, or not at "
                    "all).", canonical_fix(canon, KEPT, joiner, first_user=True), {"to": KEPT, "first_user": True}))
    return out
