"""The template model: what a template renders, in order, and where each part comes from.

A template is parsed with Jinja2 (never rendered) and walked in rendered order into
*segments*: static text runs and dynamic spans (outputs, loops, conditionals, calls). Each
dynamic span carries a *taint*, the reason its text can change between requests, found by
following names through ``set``, ``for`` and macro calls. Jinja nodes only carry line
numbers, so a small scanner of the original source supplies columns and tag extents.

The parts, each importing only the ones before it: :mod:`advisor.lint.taint` (why a value
varies), :mod:`advisor.lint.layout` (segments, sections, the prefix),
:mod:`advisor.lint.locate` (reading the source), :mod:`advisor.lint.syntax` (AST readings),
:mod:`advisor.lint.conversation` (chat-template semantics), :mod:`advisor.lint.dataflow` and
:mod:`advisor.lint.walker`; this module builds a model from a file's pieces and keeps the
names the rules import.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

from jinja2 import Environment, TemplateSyntaxError, nodes
from jinja2.ext import Extension

from advisor.lint.dataflow import Resolver
from advisor.lint.layout import (  # noqa: F401 - re-exported for the rules
    DEFAULT_STATIC_VARIABLES, Comment, Section, Segment, Settings, Site, SyntaxIssue, TemplateModel, normalise_section,
    text_sections,
)
from advisor.lint.lines import normalize
from advisor.lint.locate import Locator, compact, restore
from advisor.lint.taint import (  # noqa: F401 - re-exported for the rules
    CLOCK, CONSTANT, DATE, KWARG, MESSAGE, MESSAGES, PAYLOAD, RANDOM, REQUEST, STATIC, STRUCTURE, Taint, strongest,
)
from advisor.lint.walker import Walker



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
    loc = Locator(text)
    short_text, cores = compact(text, loc)
    if "{#" in text:
        model.comments.extend(_comments(env, piece, short_text))
    try:
        ast = env.parse(short_text)
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
        restore(ast, cores)
    walker = Walker(loc, settings, chat, resolve)
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
                sections.extend(text_sections(seg, settings))
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
            sections.extend(text_sections(seg, settings))
    for sec in sorted(sections, key=lambda s: (s.line, s.column)):
        l, c = _shift(piece, sec.line, sec.column)
        model.sections.append(replace(sec, line=l, column=c))


def _shift_taint(taint: Taint, piece: Piece) -> Taint:
    return replace(taint, line=_shift(piece, taint.line, 1)[0]) if taint.line and not taint.file else taint


def _comments(env: Environment, piece: Piece, text: str) -> list[Comment]:
    """Jinja comments never reach the AST; the lexer still sees them."""
    out: list[Comment] = []
    try:
        tokens = list(env.lex(text))
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
