"""Lint for the Python code that builds prompts: a taint analysis over Python's own ``ast``.

The code is parsed, never imported or run. Values are followed from their sources (the
clock, ids and randomness, set iteration, mappings in request order, shuffles, a function's
per-request parameters) to the prompts they reach (OpenAI, Anthropic, LiteLLM, vLLM and
SGLang calls; system prompts built with f-strings, ``%`` or ``.format``; Jinja templates
rendered with such values). The result is a :class:`PythonModel`: the problems found, as
sites the rules weigh (token thresholds, wording), plus the comments and errors the
engine's suppression and syntax machinery read, as for a template.

Modules: ``tables`` (sources and sinks, as data), ``values`` (what an expression may hold),
``names`` (imports, positions), ``formats`` (f-strings, ``%``, ``.format``), ``prompts``
(a request laid out as the engine sees it; the sites of each code), ``state``,
``evaluate`` (expressions), ``calls`` (calls), ``walker`` (statements, functions, the
module), ``fixes`` and ``comments`` (suppressions).
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass, field
from typing import Callable

from advisor.lint import limits
from advisor.lint.model import DEFAULT_STATIC_VARIABLES, Comment, SyntaxIssue
from advisor.lint.python import extent
from advisor.lint.python.comments import suppressions
from advisor.lint.python.prompts import PySite
from advisor.lint.python.walker import Walker
from advisor.lint.rule import Problem

SUFFIXES = (".py",)

# Words a file that builds or sends prompts almost always contains; a file without any of
# them is not read further (skipped, like YAML without `messages`).
_MARKERS = ("messages", "system", "prompt", "instructions", "openai", "anthropic", "litellm", "vllm", "sglang",
            "jinja2", "cache_control", "completion", "tools")


@dataclass
class PythonModel:
    """A Python file as the rules see it (the engine reads ``path``, ``source``,
    ``comments``, ``syntax_errors`` and ``opaque`` as it does a template model's)."""

    path: str
    source: str
    kind: str = "python"
    sites: list[PySite] = field(default_factory=list)
    comments: list[Comment] = field(default_factory=list)
    syntax_errors: list[SyntaxIssue] = field(default_factory=list)
    opaque: list[tuple[int, int]] = field(default_factory=list)  # a fix may edit any of it
    # Where the analysis stopped before the end of the module, and why (PC001 says so).
    stopped: tuple[int, str] | None = None


def prompt_code(text: str) -> bool:
    lowered = text.lower()
    return any(m in lowered for m in _MARKERS)


def build(path: str, text: str, static_names: frozenset[str] = DEFAULT_STATIC_VARIABLES) -> PythonModel | None:
    """The model of one Python file (its text with every break ``\\n``), or None when it
    has nothing to do with prompts. ``static_names``: names configured as constant per
    deployment (``static-variables``), as steady here as in templates."""
    if not prompt_code(text):
        return None
    # The analysis bounds its own work (a counted budget, a size read): the CPU-time limit
    # stays around it only as a safety net, and its own.
    with limits.self_bounded():
        return _analyze(path, text, static_names)


def _analyze(path: str, text: str, static_names: frozenset[str]) -> PythonModel:
    end = extent.cut(text)
    tree: ast.Module | None = None
    if end < len(text):
        try:
            tree = ast.parse(text[:end], filename=path)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            end = len(text)  # the scan misread the module: read all of it
    if tree is None:
        parsed = _parse(path, text)
        if isinstance(parsed, SyntaxIssue):
            return PythonModel(path, text, syntax_errors=[parsed])
        tree = parsed
    walker = Walker(tree, text[:end], static_names)  # positions within the part read are the file's
    walker.analyze()
    sites = sorted(walker.found.values(), key=lambda s: (s.loc.line, s.loc.column, s.code))
    stopped = walker.stopped
    if end < len(text) and stopped is None:
        first = text.count("\n", 0, end) + 1
        stopped = (first, f"the analysis reads the top-level statements within the first {extent.MAX_TOKENS:,} tokens of a "
                          "module (and checks the syntax of no more)")
    return PythonModel(path, text, sites=sites, comments=suppressions(text[:end], tree), stopped=stopped)


def _parse(path: str, text: str) -> ast.Module | SyntaxIssue:
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    try:
        return ast.parse(text, filename=path)
    except SyntaxError as exc:
        return SyntaxIssue(f"{exc.msg} (read as Python {version})", exc.lineno or 1)
    except ValueError as exc:  # a NUL byte
        return SyntaxIssue(str(exc), 1)
    except RecursionError:  # CPython cannot compile it either
        return SyntaxIssue(f"nested too deeply for Python's parser (read as Python {version})", 1)




# --- what the rules share -------------------------------------------------------------------------

# Kinds that differ between identical requests: reported whenever static text follows.
TIMED = frozenset({"date", "clock", "random", "shuffle"})


def sites_for(model: PythonModel, code: str) -> list[PySite]:
    return [s for s in model.sites if s.code == code]


def weigh(site: PySite, count: Callable[[str], int]) -> tuple[int, int]:
    """Static tokens after the site in the cached prefix, and those before the last message."""
    return site.after.measure(count)


def tokens(n: int) -> str:
    """"the 1 static token", "the 40 static tokens", "the static text" (a size not known)."""
    return f"the {n} static token{'' if n == 1 else 's'}" if n else "the static text"


def are(n: int) -> str:
    """The verb that goes with ``tokens(n)`` ("the static text is", "the 2 static tokens are")."""
    return "is" if n <= 1 else "are"


def problem(site: PySite, message: str, tokens_at_risk: int | None = None, severity: str | None = None) -> Problem:
    loc = site.loc
    return Problem(loc.line, loc.column, message, loc.end_line, loc.end_column, tokens_at_risk=tokens_at_risk or None,
                   fix=site.fix, severity=severity)
