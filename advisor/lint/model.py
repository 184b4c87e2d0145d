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
from typing import Iterable

from jinja2 import Environment, TemplateSyntaxError, nodes
from jinja2.ext import Extension

# --- taint: why a piece of output can differ between requests ------------------------------

# Ranks order the kinds; the strongest reason wins when expressions combine.
STATIC, REQUEST, DATE, CLOCK, RANDOM = "static", "request", "date", "clock", "random"
_RANK = {STATIC: 0, REQUEST: 1, DATE: 2, CLOCK: 3, RANDOM: 4}


@dataclass(frozen=True)
class Taint:
    kind: str = STATIC
    reason: str = ""
    line: int = 0

    @property
    def rank(self) -> int:
        return _RANK[self.kind]

    @property
    def volatile(self) -> bool:
        return self.kind != STATIC

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
    {"range", "dict", "namespace", "cycler", "joiner", "true", "false", "none", "True", "False", "None", "raise_exception", "loop"}
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
    comments: list[Comment] = field(default_factory=list)
    syntax_errors: list[SyntaxIssue] = field(default_factory=list)

    def shared_text_after(self, index: int) -> list[Segment]:
        """Static text every request renders, after the construct at ``index`` ends."""
        start = max(self.segments[index].end_index, index + 1)
        return [s for s in self.segments[start:] if s.is_shared_text]

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
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", src)]
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

class _Walker:
    def __init__(self, loc: _Locator, settings: Settings):
        self.loc = loc
        self.settings = settings
        self.segments: list[Segment] = []
        self.unstable: list[Site] = []
        self.unsafe: list[Site] = []
        self.blocks: list[Section] = []
        self.scopes: list[dict[str, Taint]] = [{}]
        self.guards: list[Taint] = []
        self.macros: dict[str, Taint] = {}
        # The tag being walked: sites found inside an expression point at its tag.
        self._expr_line = 0
        self._cur_span: tuple[int, int, int, int] | None = None

    # names ------------------------------------------------------------------
    def bind(self, name: str, taint: Taint) -> None:
        scope = self.scopes[-1]
        # A name set in several branches keeps the strongest reason it may vary.
        old = scope.get(name)
        scope[name] = taint if old is None or taint.rank > old.rank else old

    def lookup(self, name: str, line: int) -> Taint:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        if name in self.settings.static_variables or name in BUILTIN_NAMES:
            return CONSTANT
        if name in CLOCK_NAMES:
            return Taint(CLOCK, f"the clock value `{name}`", line)
        if name in DATE_NAMES:
            return Taint(DATE, f"the date value `{name}`", line)
        if name in RANDOM_NAMES:
            return Taint(RANDOM, f"the per-request unique value `{name}`", line)
        return Taint(REQUEST, f"the per-request variable `{name}`", line)

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
            return self.expr(node.node)
        if isinstance(node, nodes.Getitem):
            if isinstance(node.arg, nodes.Const) and isinstance(node.arg.value, str):
                self._check_attr(node.arg.value, node)
            return strongest((self.expr(node.node), self.expr(node.arg)))
        if isinstance(node, nodes.Call):
            return self._call(node, line)
        if isinstance(node, nodes.Filter):
            return self._filter(node, line)
        return strongest(self.expr(child) for child in node.iter_child_nodes())

    def _args(self, node: nodes.Call | nodes.Filter | nodes.Test) -> list[Taint]:
        out = [self.expr(a) for a in node.args]
        out += [self.expr(k.value) for k in node.kwargs]
        out += [self.expr(node.dyn_args), self.expr(node.dyn_kwargs)]
        return out

    def _call(self, node: nodes.Call, line: int) -> Taint:
        func = node.node
        fname = func.name if isinstance(func, nodes.Name) else func.attr if isinstance(func, nodes.Getattr) else ""
        args = self._args(node)
        fmt = node.args[0].value if node.args and isinstance(node.args[0], nodes.Const) and isinstance(node.args[0].value, str) else None
        if fname in RANDOM_CALLS:
            self.expr(func)
            return Taint(RANDOM, f"the random call `{fname}()`", line)
        if fname in CLOCK_CALLS and not isinstance(func, nodes.Getattr) or fname in ("now", "utcnow", "today", "strftime_now"):
            self.expr(func)
            if fmt is not None and _date_only(fmt):
                return Taint(DATE, f'the date call `{fname}("{fmt}")`', line)
            return Taint(CLOCK, f"the clock call `{fname}()`", line)
        if fname == "strftime" and isinstance(func, nodes.Getattr):
            base = self.expr(func.node)
            if base.kind == CLOCK and fmt is not None and _date_only(fmt):
                return Taint(DATE, f'{base.reason} formatted as a date ("{fmt}")', base.line)
            return strongest([base] + args)
        if isinstance(func, nodes.Name) and fname in self.macros:
            return strongest([self.macros[fname]] + args)
        base = self.expr(func)
        if fname in ("items", "keys", "values") and isinstance(func, nodes.Getattr):
            self._unstable(node, f"`.{fname}()` of {base.reason or 'a mapping'}", base, line)
        return strongest([base] + args)

    def _filter(self, node: nodes.Filter, line: int) -> Taint:
        base = self.expr(node.node)
        args = self._args(node)
        if node.name in RANDOM_FILTERS:
            return Taint(RANDOM, f"the random filter `|{node.name}`", line)
        if node.name == "unique":
            self._unstable(node, "`|unique` (its output order follows the input's duplicates)", base, line, always=True)
        elif node.name in ("list", "join", "first", "last") and isinstance(node.node, nodes.Name) and _set_like(node.node.name):
            self._unstable(node, f"`|{node.name}` of the set-like `{node.node.name}`", base, line, always=True)
        return strongest([base] + args)

    def _unstable(self, node: nodes.Node, detail: str, base: Taint, line: int, always: bool = False) -> None:
        if not (always or base.volatile):
            return
        l, c, el, ec = self._here(line)
        self.unstable.append(Site("unstable", detail, l, c, el, ec, base, len(self.segments)))

    def _check_attr(self, attr: str, node: nodes.Node) -> None:
        if attr.startswith("_") or attr in ("mro", "func_globals", "f_globals", "gi_frame", "cr_frame"):
            l, c, el, ec = self._here(getattr(node, "lineno", 0) or self._expr_line)
            self.unsafe.append(Site("unsafe", attr, l, c, el, ec, CONSTANT, len(self.segments)))

    def _here(self, line: int) -> tuple[int, int, int, int]:
        cur = self._cur_span
        if cur and cur[0] <= line <= cur[2]:
            return cur
        l, c, el, ec, _ = self.loc.span(None, line)
        return l, c, el, ec

    # statements -------------------------------------------------------------
    def emit(self, seg: Segment) -> int:
        self.segments.append(seg)
        return len(self.segments) - 1

    def body(self, stmts: list[nodes.Node]) -> None:
        for stmt in stmts:
            self.stmt(stmt)

    def stmt(self, node: nodes.Node) -> None:
        method = getattr(self, "_stmt_" + type(node).__name__, None)
        if method is not None:
            method(node)
        else:
            for child in node.iter_child_nodes():
                if isinstance(child, nodes.Stmt):
                    self.stmt(child)
                elif isinstance(child, nodes.Expr):
                    self.expr(child)

    def _stmt_Output(self, node: nodes.Output) -> None:
        for child in node.nodes:
            if isinstance(child, nodes.TemplateData):
                if not child.data:
                    continue
                l, c, el, ec = self.loc.data(child.lineno, child.data)
                self.emit(Segment("static", "text", child.data, l, c, el, ec, CONSTANT, self.guard))
                continue
            idx = self.loc.tag("{{", child.lineno)
            l, c, el, ec, src = self.loc.span(idx, child.lineno)
            self._cur_span = (l, c, el, ec)
            self._expr_line = child.lineno
            if isinstance(child, nodes.Const):
                self.emit(Segment("static", "text", str(child.value), l, c, el, ec, CONSTANT, self.guard))
                continue
            taint = self.expr(child)
            construct = "call" if isinstance(child, nodes.Call) else "output"
            self.emit(Segment("dynamic", construct, src, l, c, el, ec, taint, self.guard))

    def _control(self, node: nodes.Node, keywords: tuple[str, ...]) -> tuple[int | None, tuple[int, int, int, int, str]]:
        idx = self.loc.tag("{%", node.lineno, keywords)
        span = self.loc.span(idx, node.lineno, through_end=True)
        self._cur_span = span[:4]
        self._expr_line = node.lineno
        return idx, span

    def _stmt_For(self, node: nodes.For) -> None:
        _, (l, c, el, ec, src) = self._control(node, ("for",))
        iter_taint = self.expr(node.iter)
        if iter_taint.volatile and iter_taint.kind == REQUEST:
            iter_taint = Taint(
                REQUEST, f"a loop over {iter_taint.reason.replace('the per-request variable', 'the per-request')}", iter_taint.line
            )
        seg_index = self.emit(Segment("dynamic", "for", src, l, c, el, ec, iter_taint, self.guard))
        self.scopes.append({})
        for name in _target_names(node.target):
            self.bind(name, iter_taint)
        self.bind("loop", iter_taint)
        self.expr(node.test)
        # The body repeats once per item: its text is only shared when the items are.
        self.guards.append(iter_taint)
        self.body(node.body)
        self.body(node.else_)
        self.guards.pop()
        self.scopes.pop()
        self._close(seg_index, _renders(node))

    def _close(self, seg_index: int, has_output: bool) -> None:
        if seg_index >= 0:
            self.segments[seg_index] = replace(self.segments[seg_index], end_index=len(self.segments), has_output=has_output)

    def _stmt_If(self, node: nodes.If) -> None:
        _, (l, c, el, ec, src) = self._control(node, ("if", "elif"))
        tests = [self.expr(node.test)] + [self.expr(e.test) for e in node.elif_]
        test = strongest(tests)
        seg_index = self.emit(Segment("dynamic", "if", src, l, c, el, ec, test, self.guard))
        self.guards.append(test)
        self.body(node.body)
        for branch in node.elif_:
            self.loc.tag("{%", branch.lineno, ("elif",))
            self.body(branch.body)
        self.body(node.else_)
        self.guards.pop()
        self._close(seg_index, _renders(node))

    def _stmt_Assign(self, node: nodes.Assign) -> None:
        self._control(node, ("set",))
        taint = strongest((self.expr(node.node), self.guard))
        for name in _target_names(node.target):
            self.bind(name, taint)

    def _stmt_AssignBlock(self, node: nodes.AssignBlock) -> None:
        self._control(node, ("set",))
        taint = self._captured(node.body)
        for name in _target_names(node.target):
            self.bind(name, strongest((taint, self.guard)))

    def _captured(self, body: list[nodes.Node]) -> Taint:
        """Walk a body that renders elsewhere; return the strongest taint of its output."""
        mark, sites = len(self.segments), len(self.unstable)
        self.body(body)
        inner = self.segments[mark:]
        del self.segments[mark:]
        # Ordering inside a body rendered elsewhere has no place in this order; private
        # attribute access (self.unsafe) is reported wherever it is.
        del self.unstable[sites:]
        return strongest(s.effective for s in inner if s.kind == "dynamic")

    def _stmt_Macro(self, node: nodes.Macro) -> None:
        self._control(node, ("macro",))
        self.scopes.append({a.name: CONSTANT for a in node.args})
        # Arguments are judged at each call; the body's own clock or random use is not.
        self.macros[node.name] = self._captured(node.body)
        self.scopes.pop()

    def _stmt_CallBlock(self, node: nodes.CallBlock) -> None:
        _, (l, c, el, ec, src) = self._control(node, ("call",))
        taint = strongest((self.expr(node.call), self._captured(node.body)))
        self.emit(Segment("dynamic", "call", src, l, c, el, ec, taint, self.guard))

    def _stmt_FilterBlock(self, node: nodes.FilterBlock) -> None:
        _, (l, c, el, ec, src) = self._control(node, ("filter",))
        taint = strongest((self.expr(node.filter), self._captured(node.body)))
        self.emit(Segment("dynamic", "call", src, l, c, el, ec, taint, self.guard))

    def _stmt_Block(self, node: nodes.Block) -> None:
        idx, (l, c, *_rest) = self._control(node, ("block",))
        self.blocks.append(Section(normalise_section(node.name), node.name, l, c, "block"))
        self.body(node.body)

    def _stmt_Include(self, node: nodes.Include) -> None:
        _, (l, c, el, ec, src) = self._control(node, ("include",))
        taint = self.expr(node.template)
        self.emit(Segment("dynamic", "include", src, l, c, el, ec, taint, self.guard))

    def _stmt_Extends(self, node: nodes.Extends) -> None:
        self._stmt_Include(node)  # type: ignore[arg-type]

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


def build_model(path: str, source: str, kind: str, pieces: list[Piece], settings: Settings) -> TemplateModel:
    """Parse every piece and join them, in file order, into one model with file coordinates."""
    model = TemplateModel(path=path, source=source, kind=kind)
    chat = kind == "chat_template"
    env = _env(settings, chat)
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
        _add_piece(model, env, piece, settings)
    return model


def _shift(piece: Piece, line: int, col: int) -> tuple[int, int]:
    if piece.flat_line:
        # An escaped string (a JSON value): every template line sits on one file line.
        return piece.flat_line, piece.first_col + 1
    return line + piece.line_offset, col + (piece.first_col if line == 1 else piece.col)


def _add_piece(model: TemplateModel, env: Environment, piece: Piece, settings: Settings) -> None:
    text = piece.text
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
    walker = _Walker(loc, settings)
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
        sections = list(walker.blocks)
        for seg in walker.segments:
            if seg.kind == "static" and seg.construct == "text":
                sections.extend(_text_sections(seg, settings))
        model.sections.extend(sorted(sections, key=lambda s: (s.line, s.column)))
        return
    for seg in walker.segments:
        l, c = _shift(piece, seg.line, seg.column)
        el, ec = _shift(piece, seg.end_line, seg.end_column)
        taint = _shift_taint(seg.taint, piece)
        guard = _shift_taint(seg.guard, piece)
        model.segments.append(
            replace(
                seg,
                line=l,
                column=c,
                end_line=el,
                end_column=ec,
                taint=taint,
                guard=guard,
                end_index=seg.end_index + base if seg.end_index else 0,
            )
        )
    for site in walker.unstable + walker.unsafe:
        l, c = _shift(piece, site.line, site.column)
        el, ec = _shift(piece, site.end_line, site.end_column)
        moved = replace(
            site,
            line=l,
            column=c,
            end_line=el,
            end_column=ec,
            taint=_shift_taint(site.taint, piece),
            segment_index=site.segment_index + base,
        )
        (model.unstable if site.kind == "unstable" else model.unsafe).append(moved)
    sections = list(walker.blocks)
    for seg in walker.segments:
        if seg.kind == "static" and seg.construct == "text":
            sections.extend(_text_sections(seg, settings))
    for sec in sorted(sections, key=lambda s: (s.line, s.column)):
        l, c = _shift(piece, sec.line, sec.column)
        model.sections.append(replace(sec, line=l, column=c))


def _shift_taint(taint: Taint, piece: Piece) -> Taint:
    return replace(taint, line=_shift(piece, taint.line, 1)[0]) if taint.line else taint


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
                label = m.group(1) if m.groups() else m.group(0)
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
