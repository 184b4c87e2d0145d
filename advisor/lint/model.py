"""The template model: what a template renders, in order, and where each part comes from.

A template is parsed with Jinja2 (never rendered) and walked in rendered order into
*segments*: static text runs and dynamic spans (outputs, loops, conditionals, calls). Each
dynamic span carries a *taint*, the reason its text can change between requests, found by
following names through ``set``, ``for`` and macro calls. Jinja nodes only carry line
numbers, so a small scanner of the original source supplies columns and tag extents.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field, replace
from typing import Callable, Iterable

from jinja2 import Environment, TemplateSyntaxError, nodes
from jinja2.ext import Extension

from advisor.lint.lines import Lines, normalize

# --- taint: why a piece of output can differ between requests ------------------------------

# Ranks order the kinds; the strongest reason wins when expressions combine.
# PAYLOAD is a chat template's conversation (``messages``): the caller's own text, which
# turns of one conversation share, so it is not dynamic content. KWARG is a caller kwarg
# the template gives a constant default: it only varies if the serving stack passes it.
STATIC, PAYLOAD, KWARG, REQUEST, DATE, CLOCK, RANDOM = "static", "payload", "kwarg", "request", "date", "clock", "random"
_RANK = {STATIC: 0, PAYLOAD: 1, KWARG: 2, REQUEST: 3, DATE: 4, CLOCK: 5, RANDOM: 6}
_STEADY = frozenset({STATIC, PAYLOAD, KWARG})


@dataclass(frozen=True)
class Taint:
    kind: str = STATIC
    reason: str = ""
    line: int = 0  # where the value was produced
    file: str = ""  # set when it was produced in an included or imported file
    kwarg: str = ""  # the caller kwarg that would pin it (chat_template_kwargs)
    via: str = ""  # how it reached the render: "macro argument `x`", "namespace attribute `ns.y`"

    @property
    def rank(self) -> int:
        return _RANK[self.kind]

    @property
    def volatile(self) -> bool:
        return self.kind not in _STEADY

    def origin(self) -> str:
        """Where the value was produced, for messages: "line 3", "line 2 of partials/a.j2"."""
        if not self.line:
            return ""
        return f"line {self.line} of {self.file}" if self.file else f"line {self.line}"

    @property
    def timed(self) -> bool:
        """Clock, date and random values change without any request data changing."""
        return self.kind in (DATE, CLOCK, RANDOM)


CONSTANT = Taint()


def strongest(taints: Iterable[Taint]) -> Taint:
    best = CONSTANT
    for t in taints:
        if t.rank > best.rank:
            best = t
    return best


# Names and calls that read the wall clock or a random source. HF chat templates get
# ``strftime_now``; hand-written prompt code tends to pass ``now``/``today`` in.
CLOCK_CALLS = frozenset({"now", "utcnow", "strftime_now", "time", "datetime", "timestamp", "today", "date"})
RANDOM_CALLS = frozenset({"random", "randint", "randrange", "uuid", "uuid1", "uuid4", "token_hex", "shuffle", "choice", "lipsum"})
RANDOM_FILTERS = frozenset({"random", "shuffle"})
CLOCK_NAMES = frozenset({"now", "current_time", "current_datetime", "datetime", "timestamp", "time_now", "utc_now", "now_iso"})
DATE_NAMES = frozenset({"today", "current_date", "date", "date_string", "todays_date", "today_date"})
RANDOM_NAMES = frozenset({"uuid", "nonce", "random_seed", "request_id", "trace_id"})
# Jinja builtins that are functions, not data.
BUILTIN_NAMES = frozenset(
    {"range", "dict", "namespace", "cycler", "joiner", "true", "false", "none", "True", "False", "None", "raise_exception", "loop",
     "caller"}
)
# strftime directives that only change once a day (or less often).
_TIME_DIRECTIVES = re.compile(r"%[-_0^#]?[HIMSfpXcsTRrklzZ]")


def _date_only(fmt: str) -> bool:
    return "%" in fmt and not _TIME_DIRECTIVES.search(fmt)


# --- sections --------------------------------------------------------------------------------

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

    def shared_text_after(self, index: int) -> list[Segment]:
        """Static text every request renders, after the construct at ``index`` ends."""
        start = max(self.segments[index].end_index, index + 1)
        return [s for s in self.segments[start:] if s.is_shared_text or (s.literal and not s.effective.volatile)]

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


# --- the source scanner: columns and tag extents Jinja's AST does not keep ------------------

@dataclass(frozen=True)
class _Tag:
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


def _scan(src: str) -> list[_Tag]:
    tags: list[_Tag] = []
    pos = 0
    while True:
        m = _TAG_START.search(src, pos)
        if not m:
            return tags
        kind = m.group()
        if kind == "{#":
            close = src.find("#}", m.end())
            end = len(src) if close < 0 else close + 2
            tags.append(_Tag(kind, m.start(), end, ""))
            pos = end
            continue
        end = _find_close(src, m.end(), "}}" if kind == "{{" else "%}")
        body = src[m.end(): end - 2]
        kw = _KEYWORD.match(body)
        tags.append(_Tag(kind, m.start(), end, kw.group(1) if (kw and kind == "{%") else ""))
        pos = end
        if kind == "{%" and _RAW.match(body):
            # Everything up to endraw is text, even if it looks like tags.
            raw_end = _ENDRAW.search(src, end)
            if raw_end:
                tags.append(_Tag("{%", raw_end.start(), raw_end.end(), "endraw"))
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


class _Locator:
    """Maps AST line numbers back to tags and text runs of the original source."""

    def __init__(self, src: str):
        self.src = src
        self.line_starts = Lines(src).starts
        self.tags = _scan(src)
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


# --- the walker ---------------------------------------------------------------------------------

Span = tuple[int, int, int, int, str]
# Includes, imports and macro calls are followed this deep (a template that includes itself
# or a recursive macro would otherwise never end).
MAX_INLINE_DEPTH = 6
# Statements walked in place per template: macros calling macros many times each would
# otherwise multiply without bound; past the budget a call is judged by its summary taint.
MAX_INLINE_COST = 20_000
# Names a template tests with `is defined` that the renderer provides, not the caller.
_PROVIDED = CLOCK_CALLS | RANDOM_CALLS | frozenset({"raise_exception", "strftime_now"})
Resolver = Callable[[str], "tuple[str, nodes.Template] | None"]


class _Walker:
    def __init__(self, loc: _Locator, settings: Settings, chat: bool = False, resolve: Resolver | None = None):
        self.loc = loc
        self.settings = settings
        self.chat = chat
        self.resolve = resolve
        self.segments: list[Segment] = []
        self.unstable: list[Site] = []
        self.unsafe: list[Site] = []
        self.blocks: list[Section] = []
        self.scopes: list[dict[str, Taint]] = [{}]
        self.guards: list[Taint] = []
        self.macros: dict[str, Taint] = {}
        self.macro_defs: dict[str, tuple[nodes.Macro, str]] = {}
        # While a macro body, a caller() body or an included file is walked in place, every
        # segment it renders sits at the tag that renders it (the rendering line).
        self.override: list[Span] = []
        self.inlined: set[int] = set()
        self.active: list[str] = []  # macros and files being walked in place (recursion guard)
        self.inline_cost = 0
        # Expressions whose value is only iterated (a loop's iterable, the operand of a filter
        # that consumes an iterable): there a sorted list means what `.items()` meant.
        self.iterated: set[int] = set()
        self.callers: list[list[nodes.Node]] = []
        self.file = ""  # the included/imported file being walked ("" = the template itself)
        self.chat_sites: list[Site] = []
        self.loops: list[Taint] = []  # iterable taints of the enclosing for loops
        self.loop_scopes: list[int] = []  # index in self.scopes of each enclosing loop's scope
        self.tool_names: set[str] = set(TOOL_NAMES)
        self.tool_loops = 0  # depth of loops over the tool list
        self.arguments_checked = 0  # inside an `if ... arguments is string` (either branch)
        # The tag being walked: sites found inside an expression point at its tag.
        self._expr_line = 0
        self._cur_span: tuple[int, int, int, int] | None = None

    def taint(self, kind: str, reason: str, line: int, **extra: str) -> Taint:
        return Taint(kind, reason, line, self.file, **extra)

    # names ------------------------------------------------------------------
    def bind(self, name: str, taint: Taint) -> None:
        scope = self.scopes[-1]
        # A name set in several branches keeps the strongest reason it may vary.
        old = scope.get(name)
        scope[name] = taint if old is None or taint.rank > old.rank else old

    def bind_attr(self, name: str, attr: str, taint: Taint, what: str = "namespace attribute") -> None:
        """A namespace attribute lives where its namespace was made: loops assign into it."""
        key = f"{name}.{attr}"
        target = self.scopes[-1]
        for scope in reversed(self.scopes):
            if name in scope:
                target = scope
                break
        if taint.volatile and not taint.via:
            taint = replace(taint, via=f"{what} `{key}`")
        old = target.get(key)
        target[key] = taint if old is None or taint.rank > old.rank else old

    def bound(self, name: str) -> Taint | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def lookup(self, name: str, line: int) -> Taint:
        found = self.bound(name)
        if found is not None:
            return found
        if name in self.settings.static_variables or name in BUILTIN_NAMES:
            return CONSTANT
        if self.chat and name == "messages":
            return self.taint(PAYLOAD, "the conversation `messages`", line)
        if name in CLOCK_NAMES:
            return self.taint(CLOCK, f"the clock value `{name}`", line)
        if name in DATE_NAMES:
            return self.taint(DATE, f"the date value `{name}`", line)
        if name in RANDOM_NAMES:
            return self.taint(RANDOM, f"the per-request unique value `{name}`", line)
        return self.taint(REQUEST, f"the per-request variable `{name}`", line)

    @property
    def guard(self) -> Taint:
        return strongest(self.guards)

    # expressions ------------------------------------------------------------
    def expr(self, node: nodes.Node | None) -> Taint:
        if node is None:
            return CONSTANT
        line = getattr(node, "lineno", 0) or self._expr_line
        if isinstance(node, (nodes.Const, nodes.TemplateData)):
            return CONSTANT
        if isinstance(node, nodes.Name):
            return self.lookup(node.name, line)
        if isinstance(node, nodes.Getattr):
            # `.items()` and friends are judged at the call (see _call).
            self._check_attr(node.attr, node)
            if isinstance(node.node, nodes.Name):
                attr = self.bound(f"{node.node.name}.{node.attr}")
                if attr is not None:
                    return attr
            return self.expr(node.node)
        if isinstance(node, nodes.Getitem):
            if isinstance(node.arg, nodes.Const) and isinstance(node.arg.value, str):
                self._check_attr(node.arg.value, node)
            cut = _reasoning_cut(node)
            if cut:
                self._site("reasoning-split", f"`{cut}` keeps only the answer of a turn", line, CONSTANT)
            return strongest((self.expr(node.node), self.expr(node.arg)))
        if isinstance(node, nodes.Call):
            return self._call(node, line)
        if isinstance(node, nodes.Filter):
            return self._filter(node, line)
        if isinstance(node, nodes.Test) and node.name in ("defined", "undefined") and isinstance(node.node, nodes.Name):
            if node.node.name in _PROVIDED:
                return CONSTANT  # whether the renderer offers strftime_now is fixed per deployment
        return strongest(self.expr(child) for child in node.iter_child_nodes())

    def _args(self, node: nodes.Call | nodes.Filter | nodes.Test) -> list[Taint]:
        out = [self.expr(a) for a in node.args]
        out += [self.expr(k.value) for k in node.kwargs]
        out += [self.expr(node.dyn_args), self.expr(node.dyn_kwargs)]
        return out

    def _call(self, node: nodes.Call, line: int) -> Taint:
        func = node.node
        fname = func.name if isinstance(func, nodes.Name) else func.attr if isinstance(func, nodes.Getattr) else ""
        key = _macro_key(func)
        if key in self.macros:
            return strongest([self.macros[key]] + self._args(node))
        args = self._args(node)
        fmt = node.args[0].value if node.args and isinstance(node.args[0], nodes.Const) and isinstance(node.args[0].value, str) else None
        if fname in RANDOM_CALLS:
            self.expr(func)
            return self.taint(RANDOM, f"the random call `{fname}()`", line)
        if fname in CLOCK_CALLS and not isinstance(func, nodes.Getattr) or fname in ("now", "utcnow", "today", "strftime_now"):
            self.expr(func)
            if fmt is not None and _date_only(fmt):
                return self.taint(DATE, f'the date call `{fname}("{fmt}")`', line)
            return self.taint(CLOCK, f"the clock call `{fname}()`", line)
        if fname == "strftime" and isinstance(func, nodes.Getattr):
            base = self.expr(func.node)
            if base.kind == CLOCK and fmt is not None and _date_only(fmt):
                return replace(base, kind=DATE, reason=f'{base.reason} formatted as a date ("{fmt}")')
            return strongest([base] + args)
        if fname == "namespace" and isinstance(func, nodes.Name):
            return strongest(args)
        base = self.expr(func)
        if fname in ("items", "keys", "values") and isinstance(func, nodes.Getattr):
            # Fixable only where the result is iterated: printed, tested, indexed or measured,
            # a sorted list would not be the view it replaces (nor parse where `[0]` follows).
            fixable = fname if id(node) in self.iterated else ""
            self._unstable(node, f"`.{fname}()` of {base.reason or 'a mapping'}", base, line, fixable=fixable)
        return strongest([base] + args)

    def _filter(self, node: nodes.Filter, line: int) -> Taint:
        constant_args = bool(node.args) and all(isinstance(a, nodes.Const) for a in node.args)
        if node.name in ("default", "d") and isinstance(node.node, nodes.Name) and constant_args:
            name = node.node.name
            if self.bound(name) is None and name not in self.settings.static_variables and name not in BUILTIN_NAMES:
                return self._kwarg(name, node.args[0].value, line)  # type: ignore[attr-defined]
        if node.name in _ITERATING_FILTERS and node.node is not None:
            self.iterated.add(id(node.node))
        base = self.expr(node.node)
        args = self._args(node)
        if node.name == "tojson" and self.chat and not self.arguments_checked and node.node is not None and _mentions_arguments(node.node):
            if any(t.kind == PAYLOAD for t in self.loops):
                self._site("tool-call-json", "`arguments | tojson` re-serializes each tool call of the history", line, CONSTANT)
        if node.name == "last" and node.node is not None and _splits_reasoning(node.node):
            self._site("reasoning-split", "`.split('</think>') | last` keeps only the answer of a turn", line, CONSTANT)
        if node.name in RANDOM_FILTERS:
            return self.taint(RANDOM, f"the random filter `|{node.name}`", line)
        if node.name == "unique":
            self._unstable(node, "`|unique` (its output order follows the input's duplicates)", base, line, always=True)
        elif node.name in ("list", "join", "first", "last") and isinstance(node.node, nodes.Name) and _set_like(node.node.name):
            fixable = f"|{node.name}:{node.node.name}" if node.name in ("list", "join") else ""
            self._unstable(node, f"`|{node.name}` of the set-like `{node.node.name}`", base, line, always=True, fixable=fixable)
        return strongest([base] + args)

    def _kwarg(self, name: str, default: object, line: int) -> Taint:
        shown = _literal(default)
        return self.taint(KWARG, f"the caller kwarg `{name}` (constant default {shown})", line, kwarg=name)

    def _unstable(self, node: nodes.Node, detail: str, base: Taint, line: int, always: bool = False, fixable: str = "") -> None:
        if not (always or base.volatile):
            return
        l, c, el, ec = self._here(line)
        self.unstable.append(Site("unstable", detail, l, c, el, ec, base, len(self.segments), fixable if not self.override else ""))

    def _check_attr(self, attr: str, node: nodes.Node) -> None:
        if self.active:
            return  # a body walked in place again: reported where it was first walked
        if attr.startswith("_") or attr in ("mro", "func_globals", "f_globals", "gi_frame", "cr_frame"):
            l, c, el, ec = self._here(getattr(node, "lineno", 0) or self._expr_line)
            self.unsafe.append(Site("unsafe", attr, l, c, el, ec, CONSTANT, len(self.segments)))

    def _here(self, line: int) -> tuple[int, int, int, int]:
        if self.override:
            l, c, el, ec, _ = self.override[-1]
            return l, c, el, ec
        cur = self._cur_span
        if cur and cur[0] <= line <= cur[2]:
            return cur
        l, c, el, ec, _ = self.loc.span(None, line)
        return l, c, el, ec

    # chat structure -------------------------------------------------------------
    def _site(self, kind: str, detail: str, line: int, taint: Taint) -> None:
        if not self.chat and kind != "tool-set":
            return
        l, c, el, ec = self._here(line)
        if any(s.kind == kind and s.line == l and s.detail == detail for s in self.chat_sites):
            return
        self.chat_sites.append(Site(kind, detail, l, c, el, ec, taint, len(self.segments)))

    def _mentions_tools(self, node: nodes.Node) -> bool:
        if isinstance(node, nodes.Name):
            return node.name in self.tool_names
        return any(n.name in self.tool_names for n in node.find_all(nodes.Name))

    def _tool_site(self, node: nodes.Node, line: int) -> None:
        """The tool list must render the same for every request: not filtered, reordered or
        placed by request data or by the conversation's length."""
        self._tool_filters(node, line)
        turn = next((t for t in self.loops if t.kind == PAYLOAD), None)
        if turn is not None:
            detail = f"the tool list renders inside the loop over {turn.reason}: its place moves as the conversation grows"
            self._site("tool-set", detail, line, turn)
            return
        guard = next((g for g in self.guards if g.kind == REQUEST), None)
        if guard is not None:
            self._site("tool-set", f"the tool list renders only when {guard.reason} allows it", line, guard)

    def _tool_filters(self, node: nodes.Node, line: int) -> None:
        """Filters, sorts and slices of the tool list by request data, wherever they are
        written (a render, or a `set` whose value is rendered later)."""
        for f in [node] + list(node.find_all(nodes.Filter)):
            if not isinstance(f, nodes.Filter):
                continue
            args = strongest(self._args(f))
            if f.name in RANDOM_FILTERS:
                self._site("tool-set", f"the tool list is shuffled (`|{f.name}`)", line, args)
            elif f.name in ("sort", "dictsort") and args.kind in (PAYLOAD, REQUEST):
                self._site("tool-set", f"the tool list is reordered by {args.reason} (`|{f.name}`)", line, args)
            elif f.name in ("selectattr", "rejectattr", "select", "reject", "batch", "slice") and args.kind in (PAYLOAD, REQUEST):
                self._site("tool-set", f"the tool list is filtered by {args.reason} (`|{f.name}`)", line, args)
        for g in [node] + list(node.find_all(nodes.Getitem)):
            if isinstance(g, nodes.Getitem) and isinstance(g.arg, nodes.Slice) and self._mentions_tools(g.node):
                bounds = strongest(self.expr(b) for b in (g.arg.start, g.arg.stop, g.arg.step))
                if bounds.kind in (PAYLOAD, REQUEST):
                    self._site("tool-set", f"the tool list is cut by {bounds.reason}", line, bounds)

    def _reasoning_branch(self, node: nodes.If) -> None:
        """``{% if loop.index0 > ns.last_query_index %}<think>...`` keeps the reasoning of
        some assistant turns only: earlier turns render without it."""
        if not self.chat or not self.loops:
            return
        branches = [(node.test, node.body)] + [(e.test, e.body) for e in node.elif_]
        positional = [t for t, _ in branches if _position_test(t)]
        hit = next((t for t, b in branches if _position_test(t) and _renders_reasoning(b)), None)
        if hit is None and positional and _renders_reasoning(node.else_):
            hit = positional[0]
        if hit is not None:
            detail = f"reasoning renders only for some assistant turns (`if {_expr_source(hit)}`)"
            self._site("reasoning-history", detail, hit.lineno or node.lineno, CONSTANT)

    def _last_turn_branch(self, node: nodes.If) -> None:
        """``{% if loop.last %}{{ system_message }}...``: text from outside the conversation
        rendered only at the last turn moves to the new last turn on every request."""
        if not self.chat or not self.loops or self.loops[-1].kind != PAYLOAD:
            return
        depth = self.loop_scopes[-1]
        for test, body in [(node.test, node.body)] + [(e.test, e.body) for e in node.elif_]:
            if not _last_turn_test(test):
                continue
            for name in _rendered_names(body):
                if name in self.tool_names:
                    continue  # PC403 reports a tool list that moves
                where = next((i for i in range(len(self.scopes) - 1, -1, -1) if name in self.scopes[i]), None)
                if where is not None and where < depth:
                    detail = f"`{name}` renders only at the last turn (`if {_expr_source(test)}`)"
                    self._site("last-turn", detail, test.lineno or node.lineno, self.scopes[where][name])
                    return

    def _blank_reasoning(self, text: str, line: int) -> None:
        if text and "</think>" in text and _BLANK_THINK.search(text) and any(t.kind == PAYLOAD for t in self.loops):
            self._site("reasoning-blank", "earlier assistant turns render an empty `<think></think>` block", line, CONSTANT)

    # statements -------------------------------------------------------------
    def emit(self, seg: Segment) -> int:
        if self.override:
            l, c, el, ec, _ = self.override[-1]
            seg = replace(seg, line=l, column=c, end_line=el, end_column=ec)
            self.inlined.add(len(self.segments))
        self.segments.append(seg)
        return len(self.segments) - 1

    def body(self, stmts: list[nodes.Node]) -> None:
        for stmt in stmts:
            self.stmt(stmt)

    def stmt(self, node: nodes.Node) -> None:
        if self.override:
            self.inline_cost += 1
        method = getattr(self, "_stmt_" + type(node).__name__, None)
        if method is not None:
            method(node)
        else:
            for child in node.iter_child_nodes():
                if isinstance(child, nodes.Stmt):
                    self.stmt(child)
                elif isinstance(child, nodes.Expr):
                    self.expr(child)

    def _place_output(self, lineno: int) -> Span:
        if self.override:
            return self.override[-1]
        idx = self.loc.tag("{{", lineno)
        return self.loc.span(idx, lineno)

    def _stmt_Output(self, node: nodes.Output) -> None:
        for child in node.nodes:
            if isinstance(child, nodes.TemplateData):
                if not child.data:
                    continue
                if self.override:
                    l, c, el, ec, _ = self.override[-1]
                else:
                    l, c, el, ec = self.loc.data(child.lineno, child.data)
                self.emit(Segment("static", "text", child.data, l, c, el, ec, CONSTANT, self.guard))
                self._blank_reasoning(child.data, child.lineno)
                continue
            span = self._place_output(child.lineno)
            l, c, el, ec, src = span
            self._cur_span = (l, c, el, ec)
            self._expr_line = child.lineno
            if isinstance(child, nodes.Const):
                self.emit(Segment("static", "text", str(child.value), l, c, el, ec, CONSTANT, self.guard))
                continue
            if isinstance(child, nodes.Call) and self._inline_call(child, span):
                continue
            if self.chat and any(t.kind == PAYLOAD for t in self.loops) and _mentions_reasoning(child):
                self._site("reasoning-kept", "an assistant turn renders its reasoning", child.lineno, CONSTANT)
            taint = self.expr(child)
            if self._mentions_tools(child) and not self.tool_loops:
                self._tool_site(child, child.lineno)
            construct = "call" if isinstance(child, nodes.Call) else "output"
            parts = list(_literals(child)) if isinstance(child, (nodes.Add, nodes.Concat)) else []
            literal = "".join(parts)
            for part in parts:
                self._blank_reasoning(part, child.lineno)
            self.emit(Segment("dynamic", construct, src, l, c, el, ec, taint, self.guard, literal=literal))

    # walking bodies in place: macros, caller(), includes ------------------------------
    def _in_place(self, span: Span, key: str, file: str, scope: dict[str, Taint], body: list[nodes.Node]) -> None:
        self.override.append(span)
        self.active.append(key)
        self.scopes.append(scope)
        saved_file, self.file = self.file, file
        try:
            self.body(body)
        finally:
            self.file = saved_file
            self.scopes.pop()
            self.active.pop()
            self.override.pop()

    def _inline_call(self, call: nodes.Call, span: Span, caller: list[nodes.Node] | None = None) -> bool:
        """Render a macro (or caller()) at its call: the value of each argument flows into
        the body, and the body's own text counts as text at the call."""
        func = call.node
        if self.inline_cost > MAX_INLINE_COST:
            return False
        if isinstance(func, nodes.Name) and func.name == "caller" and self.callers and caller is None:
            body = self.callers.pop()
            try:
                self._in_place(span, "caller()", self.file, {}, body)
            finally:
                self.callers.append(body)
            return True
        key = _macro_key(func)
        found = self.macro_defs.get(key)
        if found is None or key in self.active or len(self.active) >= MAX_INLINE_DEPTH:
            return False
        macro, file = found
        scope: dict[str, Taint] = {}
        first_default = len(macro.args) - len(macro.defaults)
        kwargs = {k.key: k.value for k in call.kwargs}
        for i, arg in enumerate(macro.args):
            if i < len(call.args):
                value: nodes.Node | None = call.args[i]
            elif arg.name in kwargs:
                value = kwargs[arg.name]
            else:
                value = macro.defaults[i - first_default] if i >= first_default else None
            taint = self.expr(value)
            if taint.volatile and not taint.via:
                taint = replace(taint, via=f"macro argument `{arg.name}` of `{key}()`")
            scope[arg.name] = taint
            if value is not None and self._mentions_tools(value):
                self.tool_names.add(arg.name)
        rest = [self.expr(a) for a in call.args[len(macro.args):]] + [self.expr(call.dyn_args), self.expr(call.dyn_kwargs)]
        scope["varargs"] = strongest(rest)
        scope["kwargs"] = strongest([self.expr(v) for k, v in kwargs.items() if k not in scope])
        if caller is not None:
            self.callers.append(caller)
        try:
            self._in_place(span, key, file, scope, macro.body)
        finally:
            if caller is not None:
                self.callers.pop()
        return True

    def _control(self, node: nodes.Node, keywords: tuple[str, ...]) -> tuple[int | None, Span]:
        if self.override:
            self._expr_line = node.lineno
            return None, self.override[-1]
        idx = self.loc.tag("{%", node.lineno, keywords)
        span = self.loc.span(idx, node.lineno, through_end=True)
        self._cur_span = span[:4]
        self._expr_line = node.lineno
        return idx, span

    def _stmt_For(self, node: nodes.For) -> None:
        _, (l, c, el, ec, src) = self._control(node, ("for",))
        self.iterated.add(id(node.iter))
        iter_taint = self.expr(node.iter)
        item_taint = iter_taint
        if iter_taint.volatile and iter_taint.kind == REQUEST:
            over = iter_taint.reason.replace("the per-request variable", "the per-request")
            iter_taint = replace(iter_taint, reason=f"a loop over {over}")
            item_taint = iter_taint
        elif iter_taint.timed and isinstance(node.iter, (nodes.List, nodes.Tuple)):
            # A literal list has a fixed length: only its items vary, and they are found
            # where the loop variable renders.
            item_taint = replace(iter_taint, via=iter_taint.via or f"loop variable `{', '.join(_target_names(node.target))}`")
            iter_taint = CONSTANT
        seg_index = self.emit(Segment("dynamic", "for", src, l, c, el, ec, iter_taint, self.guard))
        over_tools = self._mentions_tools(node.iter)
        if over_tools:
            self._tool_site(node.iter, node.lineno)
        self.scopes.append({})
        for name in _target_names(node.target):
            self.bind(name, item_taint)
        self.bind("loop", iter_taint)
        self.expr(node.test)
        # The body repeats once per item: its text is only shared when the items are.
        self.guards.append(iter_taint)
        self.loops.append(iter_taint)
        self.loop_scopes.append(len(self.scopes) - 1)
        self.tool_loops += over_tools
        try:
            self.body(node.body)
            self.body(node.else_)
        finally:
            self.tool_loops -= over_tools
            self.loop_scopes.pop()
            self.loops.pop()
        self.guards.pop()
        self.scopes.pop()
        self._close(seg_index, _renders(node))

    def _close(self, seg_index: int, has_output: bool) -> None:
        if seg_index >= 0:
            self.segments[seg_index] = replace(self.segments[seg_index], end_index=len(self.segments), has_output=has_output)

    def _default_target(self, node: nodes.If) -> str | None:
        """``{% if not x is defined %}{% set x = ... %}{% endif %}``: x is a caller kwarg."""
        test = node.test
        if node.elif_ or node.else_:
            return None
        if isinstance(test, nodes.Not) and isinstance(test.node, nodes.Test) and test.node.name == "defined":
            inner = test.node.node
        elif isinstance(test, nodes.Test) and test.name == "undefined":
            inner = test.node
        else:
            return None
        if not isinstance(inner, nodes.Name):
            return None
        name = inner.name
        if self.bound(name) is not None or name in self.settings.static_variables or name in _PROVIDED:
            return None
        return name

    def _stmt_If(self, node: nodes.If) -> None:
        _, (l, c, el, ec, src) = self._control(node, ("if", "elif"))
        kwarg = self._default_target(node)
        if kwarg is not None:
            self._kwarg_default(node, kwarg, (l, c, el, ec, src))
            return
        tests = [self.expr(node.test)] + [self.expr(e.test) for e in node.elif_]
        test = strongest(tests)
        self._reasoning_branch(node)
        self._last_turn_branch(node)
        if self.tool_loops and test.kind in (PAYLOAD, REQUEST) and _renders(node):
            self._site("tool-set", f"the tool list is filtered by {test.reason} (`{_short(src)}`)", node.lineno, test)
        seg_index = self.emit(Segment("dynamic", "if", src, l, c, el, ec, test, self.guard))
        checks = any(_tests_arguments_type(t) for t in [node.test] + [e.test for e in node.elif_])
        self.arguments_checked += checks
        self.guards.append(test)
        self.body(node.body)
        for branch in node.elif_:
            if not self.override:
                self.loc.tag("{%", branch.lineno, ("elif",))
            self.body(branch.body)
        self.body(node.else_)
        self.guards.pop()
        self.arguments_checked -= checks
        self._close(seg_index, _renders(node))

    def _kwarg_default(self, node: nodes.If, name: str, span: Span) -> None:
        l, c, el, ec, src = span
        seg_index = self.emit(Segment("dynamic", "if", src, l, c, el, ec, CONSTANT, self.guard))
        self.body(node.body)
        self._close(seg_index, _renders(node))
        got = self.bound(name)
        if got is None:
            return
        if got.volatile:
            # The default itself varies (strftime_now): passing the kwarg would pin it.
            self.scopes[-1][name] = replace(got, kwarg=name)
            return
        default = next((a.node for a in node.find_all(nodes.Assign) if isinstance(a.target, nodes.Name) and a.target.name == name), None)
        value = default.value if isinstance(default, nodes.Const) else "(an expression)"
        self.scopes[-1][name] = self._kwarg(name, value, getattr(default, "lineno", node.lineno))

    def _stmt_Assign(self, node: nodes.Assign) -> None:
        self._control(node, ("set",))
        taint = strongest((self.expr(node.node), self.guard))
        target = node.target
        if isinstance(target, nodes.NSRef):
            self.bind_attr(target.name, target.attr, taint)
            return
        if self._mentions_tools(node.node):
            self._tool_filters(node.node, node.lineno)
        for name in _target_names(target):
            self.bind(name, taint)
            if self._mentions_tools(node.node):
                self.tool_names.add(name)
        value = node.node
        if isinstance(target, nodes.Name) and isinstance(value, nodes.Call) and _is_name(value.node, "namespace"):
            for kw in value.kwargs:
                self.bind_attr(target.name, kw.key, strongest((self.expr(kw.value), self.guard)))
        if isinstance(target, nodes.Name) and isinstance(value, nodes.Dict):
            # `meta.who` of `{"when": now(), "who": "bot"}` is as constant as "bot"
            for pair in value.items:
                if isinstance(pair.key, nodes.Const) and isinstance(pair.key.value, str):
                    self.bind_attr(target.name, pair.key.value, strongest((self.expr(pair.value), self.guard)), "dict key")

    def _stmt_AssignBlock(self, node: nodes.AssignBlock) -> None:
        self._control(node, ("set",))
        taint = self._captured(node.body)
        if isinstance(node.target, nodes.NSRef):
            self.bind_attr(node.target.name, node.target.attr, strongest((taint, self.guard)))
            return
        for name in _target_names(node.target):
            self.bind(name, strongest((taint, self.guard)))

    def _captured(self, body: list[nodes.Node]) -> Taint:
        """Walk a body that renders elsewhere; return the strongest taint of its output."""
        mark, sites = len(self.segments), len(self.unstable)
        self.body(body)
        inner = self.segments[mark:]
        del self.segments[mark:]
        self.inlined = {i for i in self.inlined if i < mark}
        # Ordering inside a body rendered elsewhere has no place in this order; private
        # attribute access (self.unsafe) is reported wherever it is.
        del self.unstable[sites:]
        return strongest(s.effective for s in inner if s.kind == "dynamic")

    def _stmt_Macro(self, node: nodes.Macro) -> None:
        self._control(node, ("macro",))
        self._define(node, node.name)

    def _define(self, node: nodes.Macro, key: str) -> None:
        self.scopes.append({a.name: CONSTANT for a in node.args})
        # Arguments are judged at each call; the body's own clock or random use is not.
        self.macros[key] = self._captured(node.body)
        self.scopes.pop()
        self.macro_defs[key] = (node, self.file)

    def _stmt_CallBlock(self, node: nodes.CallBlock) -> None:
        idx, span = self._control(node, ("call",))
        l, c, el, ec, src = span
        self.scopes.append({a.name: CONSTANT for a in node.args})
        body_taint = self._captured(node.body)
        self.scopes.pop()
        if isinstance(node.call, nodes.Call) and self._inline_call(node.call, span, caller=node.body):
            return
        taint = strongest((self.expr(node.call), body_taint))
        self.emit(Segment("dynamic", "call", src, l, c, el, ec, taint, self.guard))

    def _stmt_FilterBlock(self, node: nodes.FilterBlock) -> None:
        _, (l, c, el, ec, src) = self._control(node, ("filter",))
        taint = strongest((self.expr(node.filter), self._captured(node.body)))
        self.emit(Segment("dynamic", "call", src, l, c, el, ec, taint, self.guard))

    def _stmt_Block(self, node: nodes.Block) -> None:
        idx, (l, c, *_rest) = self._control(node, ("block",))
        if not self.override:
            self.blocks.append(Section(normalise_section(node.name), node.name, l, c, "block"))
        self.body(node.body)

    def _load(self, template: nodes.Node) -> tuple[str, nodes.Template] | None:
        if self.resolve is None or not isinstance(template, nodes.Const) or not isinstance(template.value, str):
            return None
        if template.value in self.active or len(self.active) >= MAX_INLINE_DEPTH or self.inline_cost > MAX_INLINE_COST:
            return None
        return self.resolve(template.value)

    def _stmt_Include(self, node: nodes.Include) -> None:
        _, span = self._control(node, ("include",))
        l, c, el, ec, src = span
        loaded = self._load(node.template)
        if loaded is not None:
            name, ast = loaded
            self._in_place(span, str(node.template.value), name, {}, ast.body)  # type: ignore[attr-defined]
            return
        taint = self.expr(node.template)
        self.emit(Segment("dynamic", "include", src, l, c, el, ec, taint, self.guard))

    def _stmt_Extends(self, node: nodes.Extends) -> None:
        self._stmt_Include(node)  # type: ignore[arg-type]

    def _imported_macros(self, node: nodes.Import | nodes.FromImport, span: Span) -> dict[str, nodes.Macro] | None:
        loaded = self._load(node.template)
        if loaded is None:
            return None
        name, ast = loaded
        found = {m.name: m for m in ast.body if isinstance(m, nodes.Macro)}
        self.override.append(span)
        saved, self.file = self.file, name
        self._imported_file = name
        try:
            for key, macro in found.items():
                self._define(macro, f"\x00{name}\x00{key}")
        finally:
            self.file = saved
            self.override.pop()
        return found

    def _alias(self, name: str, key: str, file: str) -> None:
        src = f"\x00{file}\x00{name}"
        self.macros[key] = self.macros.pop(src)
        self.macro_defs[key] = self.macro_defs.pop(src)

    def _stmt_Import(self, node: nodes.Import) -> None:
        _, span = self._control(node, ("import",))
        found = self._imported_macros(node, span)
        self.bind(node.target, CONSTANT)
        for name in found or ():
            self._alias(name, f"{node.target}.{name}", self._imported_file)

    def _stmt_FromImport(self, node: nodes.FromImport) -> None:
        _, span = self._control(node, ("from",))
        found = self._imported_macros(node, span) or {}
        for item in node.names:
            name, alias = item if isinstance(item, tuple) else (item, item)
            self.bind(alias, CONSTANT)
            if name in found:
                self._alias(name, alias, self._imported_file)

    def _stmt_With(self, node: nodes.With) -> None:
        self._control(node, ("with",))
        self.scopes.append({})
        for target, value in zip(node.targets, node.values, strict=False):
            for name in _target_names(target):
                self.bind(name, self.expr(value))
        self.body(node.body)
        self.scopes.pop()

    def _stmt_Scope(self, node: nodes.Scope) -> None:
        self.body(node.body)

    def _stmt_ScopedEvalContextModifier(self, node: nodes.ScopedEvalContextModifier) -> None:
        self.body(node.body)


TOOL_NAMES = frozenset({"tools", "custom_tools", "functions", "tool_schemas", "builtin_tools", "xml_tools"})
_BLANK_THINK = re.compile(r"<think>\s*</think>")
_POSITION_ATTRS = frozenset({"last", "first", "index", "index0", "revindex", "revindex0"})
_REASONING_WORDS = ("reasoning", "thinking", "thought")


# Filters that only iterate their operand: given a sorted list instead of a mapping's view
# they do the same, in a stable order.
_ITERATING_FILTERS = frozenset({"join", "list", "map", "select", "reject", "selectattr", "rejectattr", "first",
                                "last", "batch", "slice", "unique", "length", "count", "sum", "min", "max", "sort"})


def _short(src: str) -> str:
    one = " ".join(src.split())
    return one if len(one) <= 60 else one[:57] + "..."


def _expr_source(node: nodes.Node) -> str:
    """A readable rendering of a test expression for messages (the AST keeps no source)."""
    if isinstance(node, nodes.Name):
        return node.name
    if isinstance(node, nodes.Getattr):
        return f"{_expr_source(node.node)}.{node.attr}"
    if isinstance(node, nodes.Const):
        return repr(node.value)
    if isinstance(node, nodes.Not):
        return f"not {_expr_source(node.node)}"
    if isinstance(node, (nodes.And, nodes.Or)):
        op = "and" if isinstance(node, nodes.And) else "or"
        return f"{_expr_source(node.left)} {op} {_expr_source(node.right)}"
    if isinstance(node, nodes.Compare):
        ops = {"gt": ">", "lt": "<", "gteq": ">=", "lteq": "<=", "eq": "==", "ne": "!=", "in": "in", "notin": "not in"}
        return " ".join([_expr_source(node.expr)] + [f"{ops.get(o.op, o.op)} {_expr_source(o.expr)}" for o in node.ops])
    if isinstance(node, nodes.Test):
        return f"{_expr_source(node.node)} is {node.name}"
    if isinstance(node, nodes.Getitem):
        return f"{_expr_source(node.node)}[{_expr_source(node.arg)}]"
    return "..."


def _position_test(test: nodes.Node) -> bool:
    """Whether a test asks where in the conversation a turn sits (loop.last, an index)."""
    for n in [test, *test.find_all((nodes.Getattr, nodes.Name))]:
        if isinstance(n, nodes.Getattr) and isinstance(n.node, nodes.Name):
            if n.node.name == "loop" and n.attr in _POSITION_ATTRS:
                return True
            if "last" in n.attr and ("query" in n.attr or "user" in n.attr or "index" in n.attr or "idx" in n.attr):
                return True
        if isinstance(n, nodes.Name) and "last" in n.name and ("query" in n.name or "user" in n.name or "idx" in n.name):
            return True
    return False


def _renders_reasoning(body: list[nodes.Node]) -> bool:
    for stmt in body:
        for out in [stmt, *stmt.find_all(nodes.Output)]:
            if not isinstance(out, nodes.Output):
                continue
            for child in out.nodes:
                for c in [child, *child.find_all((nodes.Const, nodes.TemplateData, nodes.Name, nodes.Getattr, nodes.Getitem))]:
                    if isinstance(c, (nodes.Const, nodes.TemplateData)) and isinstance(getattr(c, "value", getattr(c, "data", None)), str):
                        text = c.value if isinstance(c, nodes.Const) else c.data
                        if "<think>" in text or "<|channel|>analysis" in text:
                            return True
                    elif isinstance(c, nodes.Name) and any(w in c.name for w in _REASONING_WORDS):
                        return True
                    elif isinstance(c, nodes.Getattr) and any(w in c.attr for w in _REASONING_WORDS):
                        return True
                    elif isinstance(c, nodes.Getitem) and isinstance(c.arg, nodes.Const) and isinstance(c.arg.value, str):
                        if any(w in c.arg.value for w in _REASONING_WORDS):
                            return True
    return False


def _last_turn_test(test: nodes.Node) -> bool:
    """Whether a test singles out the last message: loop.last, x == something[-1], revindex."""
    for n in [test, *test.find_all((nodes.Getattr, nodes.Compare))]:
        if isinstance(n, nodes.Getattr) and _is_name(n.node, "loop") and n.attr in ("last", "revindex0", "revindex"):
            return True
        if isinstance(n, nodes.Compare):
            for side in [n.expr, *(o.expr for o in n.ops)]:
                if isinstance(side, nodes.Getitem) and isinstance(side.arg, nodes.Neg):
                    return True
    return False


def _rendered_names(body: list[nodes.Node]) -> list[str]:
    """Names an output of ``body`` renders, in order (attributes of the loop item excluded
    by the caller's scope check)."""
    out: list[str] = []
    for stmt in body:
        for o in [stmt, *stmt.find_all(nodes.Output)]:
            if isinstance(o, nodes.Output):
                for child in o.nodes:
                    for n in [child, *child.find_all(nodes.Name)]:
                        if isinstance(n, nodes.Name) and n.name not in out:
                            out.append(n.name)
    return out


def _mentions_arguments(node: nodes.Node) -> bool:
    for c in [node, *node.find_all((nodes.Getattr, nodes.Getitem))]:
        if isinstance(c, nodes.Getattr) and c.attr == "arguments":
            return True
        if isinstance(c, nodes.Getitem) and isinstance(c.arg, nodes.Const) and c.arg.value == "arguments":
            return True
    return False


def _tests_arguments_type(test: nodes.Node) -> bool:
    """``tool_call.arguments is string`` (or mapping): the template keeps a string as sent."""
    return any(
        t.name in ("string", "mapping") and _mentions_arguments(t.node)
        for t in [test, *test.find_all(nodes.Test)]
        if isinstance(t, nodes.Test)
    )


def _mentions_reasoning(node: nodes.Node) -> bool:
    for c in [node, *node.find_all((nodes.Name, nodes.Getattr))]:
        name = c.name if isinstance(c, nodes.Name) else c.attr if isinstance(c, nodes.Getattr) else ""
        if any(w in name for w in _REASONING_WORDS):
            return True
    return False


def _reasoning_cut(node: nodes.Getitem) -> str:
    """The spelling of an index that keeps only the text after `</think>` ('' if none):
    the last or second piece of a split, the last piece of a partition."""
    arg = node.arg
    if isinstance(arg, nodes.Neg) and isinstance(arg.node, nodes.Const) and arg.node.value == 1:
        index = -1
    elif isinstance(arg, nodes.Const) and isinstance(arg.value, int) and not isinstance(arg.value, bool):
        index = arg.value
    else:
        return ""
    keeps = {"split": (1, -1), "rsplit": (1, -1), "partition": (2, -1), "rpartition": (2, -1)}
    if not _splits_reasoning(node.node):
        return ""
    method = node.node.node.attr  # type: ignore[attr-defined]
    return f".{method}('</think>')[{index}]" if index in keeps[method] else ""


def _splits_reasoning(node: nodes.Node, methods: tuple[str, ...] = ("split", "rsplit", "partition", "rpartition")) -> bool:
    return (
        isinstance(node, nodes.Call)
        and isinstance(node.node, nodes.Getattr)
        and node.node.attr in methods
        and bool(node.args)
        and isinstance(node.args[0], nodes.Const)
        and node.args[0].value == "</think>"
    )


def _literals(node: nodes.Node) -> Iterable[str]:
    if isinstance(node, nodes.Const) and isinstance(node.value, str):
        yield node.value
    elif isinstance(node, nodes.Add):
        yield from _literals(node.left)
        yield from _literals(node.right)
    elif isinstance(node, nodes.Concat):
        for part in node.nodes:
            yield from _literals(part)


def _is_name(node: nodes.Node, name: str) -> bool:
    return isinstance(node, nodes.Name) and node.name == name


def _macro_key(func: nodes.Node) -> str:
    if isinstance(func, nodes.Name):
        return func.name
    if isinstance(func, nodes.Getattr) and isinstance(func.node, nodes.Name):
        return f"{func.node.name}.{func.attr}"
    return ""


def _literal(value: object) -> str:
    if isinstance(value, str):
        return '"' + (value if len(value) <= 40 else value[:37] + "...") + '"'
    return "none" if value is None else str(value).lower() if isinstance(value, bool) else str(value)


def _target_names(target: nodes.Node) -> list[str]:
    if isinstance(target, nodes.Name):
        return [target.name]
    if isinstance(target, nodes.NSRef):
        return []
    return [n.name for n in target.find_all(nodes.Name)]


def _renders(node: nodes.Node) -> bool:
    """Whether a control block can produce text (an ``if`` that only sets names cannot)."""
    for out in node.find_all(nodes.Output):
        for child in out.nodes:
            if not (isinstance(child, nodes.TemplateData) and not child.data.strip()):
                return True
    return any(True for _ in node.find_all((nodes.CallBlock, nodes.FilterBlock, nodes.Include)))


_SET_LIKE = re.compile(r"(^|_)(set|sets)$|_set_")


def _set_like(name: str) -> bool:
    return bool(_SET_LIKE.search(name))


# --- building a model -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Piece:
    """One Jinja source inside a file, and where it sits in that file."""

    text: str
    line_offset: int = 0  # file line = piece line + line_offset
    first_col: int = 0  # column shift on the piece's first line
    col: int = 0  # column shift on the other lines
    role: str | None = None  # chat role this piece renders as
    role_line: int = 0
    role_column: int = 1
    flat_line: int = 0  # when set, every position maps to this file line
    # Whether every character of ``text`` stands in the file as it is, at the position the
    # shifts above give it; only then may a fix edit the file there.
    exact: bool = True
    span: tuple[int, int] | None = None  # the piece's source in the file (offsets), when known


class _GenerationTag(Extension):
    """transformers' ``{% generation %}...{% endgeneration %}`` marks assistant text for
    training masks; it renders its body unchanged, so it parses as a plain scope here."""

    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
        return nodes.Scope(body, lineno=lineno)


def make_environment(settings: Settings, chat: bool) -> Environment:
    # HF chat templates render with trim_blocks, lstrip_blocks and loopcontrols.
    return Environment(
        trim_blocks=chat or settings.trim_blocks,
        lstrip_blocks=chat or settings.lstrip_blocks,
        extensions=["jinja2.ext.loopcontrols", _GenerationTag],
        autoescape=False,
    )


_ENV_CACHE: dict[tuple, Environment] = {}


def _env(settings: Settings, chat: bool) -> Environment:
    key = (chat or settings.trim_blocks, chat or settings.lstrip_blocks)
    env = _ENV_CACHE.get(key)
    if env is None:
        env = _ENV_CACHE[key] = make_environment(settings, chat)
    return env


Loader = Callable[[str], "tuple[str, str] | None"]


def build_model(path: str, source: str, kind: str, pieces: list[Piece], settings: Settings, loader: Loader | None = None) -> TemplateModel:
    """Parse every piece and join them, in file order, into one model with file coordinates.

    ``loader`` maps an included or imported template name to (shown name, source), or None
    when it is not inside the template folders; without it includes stay opaque.
    """
    model = TemplateModel(path=path, source=normalize(source), kind=kind)
    model.opaque.extend(p.span for p in pieces if not p.exact and p.span is not None)
    chat = kind == "chat_template"
    env = _env(settings, chat)
    resolve = _resolver(env, loader) if loader is not None else None
    for piece in pieces:
        if piece.role:
            model.sections.append(Section(normalise_section(piece.role), piece.role, piece.role_line, piece.role_column, "role"))
            seg = Segment(
                "static",
                "role",
                f"\x00role:{piece.role}\n",
                piece.role_line,
                piece.role_column,
                piece.role_line,
                piece.role_column + len(piece.role),
            )
            model.segments.append(seg)
        _add_piece(model, env, piece, settings, chat, resolve)
    return model


def _resolver(env: Environment, loader: Loader) -> Resolver:
    parsed: dict[str, tuple[str, nodes.Template] | None] = {}

    def resolve(name: str) -> tuple[str, nodes.Template] | None:
        if name not in parsed:
            got = loader(name)
            ast = None
            if got is not None:
                try:
                    ast = env.parse(got[1])
                except (TemplateSyntaxError, RecursionError):
                    ast = None  # the included file's own lint run reports it
            parsed[name] = (got[0], ast) if got is not None and ast is not None else None
        return parsed[name]

    return resolve


def _shift(piece: Piece, line: int, col: int) -> tuple[int, int]:
    if piece.flat_line:
        # An escaped string (a JSON value): every template line sits on one file line.
        return piece.flat_line, piece.first_col + 1
    return line + piece.line_offset, col + (piece.first_col if line == 1 else piece.col)


def _add_piece(
    model: TemplateModel, env: Environment, piece: Piece, settings: Settings, chat: bool = False, resolve: Resolver | None = None
) -> None:
    text = normalize(piece.text)
    loc = _Locator(text)
    compact, cores = _compact(text, loc)
    if "{#" in text:
        model.comments.extend(_comments(env, piece, compact))
    try:
        ast = env.parse(compact)
    except TemplateSyntaxError as exc:
        line, _ = _shift(piece, exc.lineno or 1, 1)
        model.syntax_errors.append(SyntaxIssue(exc.message or "syntax error", line))
        return
    except RecursionError:
        # Jinja's parser recurses per nesting level; untrusted text can nest without end.
        line, _ = _shift(piece, 1, 1)
        model.syntax_errors.append(SyntaxIssue("nested too deeply to parse", line))
        return
    if cores:
        _restore(ast, cores)
    walker = _Walker(loc, settings, chat, resolve)
    try:
        walker.body(ast.body)
    except RecursionError:
        line, _ = _shift(piece, 1, 1)
        model.syntax_errors.append(SyntaxIssue("nested too deeply to analyse", line))
        return
    base = len(model.segments)
    if base == 0 and not (piece.line_offset or piece.first_col or piece.col or piece.flat_line):
        # A whole plain file: coordinates are already the file's.
        model.segments.extend(walker.segments)
        model.unstable.extend(walker.unstable)
        model.unsafe.extend(walker.unsafe)
        model.chat.extend(walker.chat_sites)
        sections = list(walker.blocks)
        for i, seg in enumerate(walker.segments):
            if seg.kind == "static" and seg.construct == "text" and i not in walker.inlined:
                sections.extend(_text_sections(seg, settings))
        model.sections.extend(sorted(sections, key=lambda s: (s.line, s.column)))
        return
    for seg in walker.segments:
        l, c = _shift(piece, seg.line, seg.column)
        el, ec = _shift(piece, seg.end_line, seg.end_column)
        taint = _shift_taint(seg.taint, piece)
        guard = _shift_taint(seg.guard, piece)
        end_index = seg.end_index + base if seg.end_index else 0
        model.segments.append(replace(seg, line=l, column=c, end_line=el, end_column=ec, taint=taint, guard=guard, end_index=end_index))
    for site in walker.unstable + walker.unsafe + walker.chat_sites:
        l, c = _shift(piece, site.line, site.column)
        el, ec = _shift(piece, site.end_line, site.end_column)
        taint = _shift_taint(site.taint, piece)
        moved = replace(site, line=l, column=c, end_line=el, end_column=ec, taint=taint, segment_index=site.segment_index + base)
        (model.unstable if site.kind == "unstable" else model.unsafe if site.kind == "unsafe" else model.chat).append(moved)
    sections = list(walker.blocks)
    for i, seg in enumerate(walker.segments):
        if seg.kind == "static" and seg.construct == "text" and i not in walker.inlined:
            sections.extend(_text_sections(seg, settings))
    for sec in sorted(sections, key=lambda s: (s.line, s.column)):
        l, c = _shift(piece, sec.line, sec.column)
        model.sections.append(replace(sec, line=l, column=c))


def _shift_taint(taint: Taint, piece: Piece) -> Taint:
    return replace(taint, line=_shift(piece, taint.line, 1)[0]) if taint.line and not taint.file else taint


# Lines that could be a heading, a tag or a label; one C-level pass instead of a Python loop
# over every line of prose.
_CANDIDATE = re.compile(r"^[ \t]*[#<].*$|^.*:[ \t]*$", re.MULTILINE)


def _text_sections(seg: Segment, settings: Settings) -> list[Section]:
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
# for prose-heavy prompts it dominates the run time. Leading and trailing whitespace of each
# run stays in place, so whitespace control (-, trim_blocks, lstrip_blocks) acts as before.
_COMPACT_MIN = 160
_PLACEHOLDER = re.compile("\x00(\\d+)\n*\x00")


def _compact(text: str, loc: _Locator) -> tuple[str, list[tuple[str, str]]]:
    if "\x00" in text:
        return text, []
    parts: list[str] = []
    cores: list[tuple[str, str]] = []
    prev = 0
    for start, stop in loc.gaps:
        if stop - start < _COMPACT_MIN:
            continue
        run = text[start:stop]
        lead = len(run) - len(run.lstrip())
        core = run.strip()
        if len(core) < _COMPACT_MIN:
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


def _restore(ast: nodes.Template, cores: list[tuple[str, str]]) -> None:
    for node in ast.find_all(nodes.TemplateData):
        if "\x00" in node.data:
            node.data = _PLACEHOLDER.sub(lambda m: cores[int(m.group(1))][1], node.data)


def _comments(env: Environment, piece: Piece, compact: str) -> list[Comment]:
    """Jinja comments never reach the AST; the lexer still sees them."""
    out: list[Comment] = []
    try:
        tokens = list(env.lex(compact))
    except TemplateSyntaxError:
        return out
    start = 0
    for lineno, kind, value in tokens:
        if kind == "comment_begin":
            start = lineno
        elif kind == "comment":
            end = lineno + value.count("\n")
            out.append(Comment(value.strip(), _shift(piece, start, 1)[0], _shift(piece, end, 1)[0]))
    return out
