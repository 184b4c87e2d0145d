"""What a rule is: metadata, documented options, and a generator of problems.

Configuration decides a rule's severity and the engine stamps it; a rule may only lower it for
one problem (``Problem.severity``: a few tokens at risk, a model's own layout), never raise it.
Rules never see file paths beyond the models they are given.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from advisor.lint.fix import Fix
from advisor.lint.model import TemplateModel
from advisor.lint.targets import DEFAULT_TARGET, ModelMinimum

SEVERITIES = ("error", "warning", "info")


def capped(configured: str, chosen: str | None) -> str:
    """The configured severity, or the rule's own choice for one problem when that is lower."""
    if chosen is None or SEVERITIES.index(chosen) <= SEVERITIES.index(configured):
        return configured
    return chosen


@dataclass(frozen=True)
class Option:
    """A rule option: its type, default, help and, for a number, its bounds. The bounds are
    declared here, once, and ``problem`` is the one check of a configured value."""

    type: type
    default: Any
    help: str
    # Every number option is a count or a token threshold, which means nothing below zero;
    # an option with a higher floor (or a ceiling) declares it.
    minimum: float | None = 0
    maximum: float | None = None

    def check(self, value: Any) -> bool:
        return self.problem(value) is None

    def problem(self, value: Any) -> str | None:
        """Why ``value`` is not a setting of this option (None when it is)."""
        if self.type is float:
            ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        elif self.type is list:
            ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
        else:
            ok = isinstance(value, self.type) and not (self.type is int and isinstance(value, bool))
        if not ok:
            return f"must be of type {self.type.__name__}, not {value!r}"
        if self.type in (int, float):
            if self.minimum is not None and value < self.minimum:
                return f"must be at least {self.minimum:g}, not {value!r}"
            if self.maximum is not None and value > self.maximum:
                return f"must be at most {self.maximum:g}, not {value!r}"
        return None


@dataclass(frozen=True)
class Problem:
    """A finding before the engine stamps code, severity and path on it."""

    line: int
    column: int
    message: str
    end_line: int | None = None
    end_column: int | None = None
    tokens_at_risk: int | None = None
    path: str | None = None  # set-scope rules name the template the problem is in
    fix: Fix | None = None  # text edits that remove the problem (see advisor.lint.fix)
    # A severity below the configured one, chosen by the rule from what is at stake (the tokens
    # at risk, a model's own layout); the configured severity stays the ceiling.
    severity: str | None = None


@dataclass
class Context:
    """What a check may use besides the model: its options, a token counter, the target
    (where the prompts are served, advisor.lint.targets) and, when ``model`` is configured and
    the target is an engine, that engine's minimum on the model (``targets.model_minimum``)."""

    options: dict[str, Any]
    count_tokens: Callable[[str], int]
    target: str = DEFAULT_TARGET
    minimum: ModelMinimum | None = None


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    severity: str
    summary: str
    docs: str  # markdown with the sections What it does / Why is this bad? / Example / Use instead
    scope: str  # "template": check(model, ctx); "set": check(models, ctx); "suppression": engine-driven; "python": python(model, ctx) only
    check: Callable[..., Iterator[Problem]]
    options: dict[str, Option] = field(default_factory=dict)
    module: str = ""
    # The check over a Python prompt builder (advisor.lint.python.PythonModel), for codes
    # that judge Python code too: python(model, ctx). A rule of scope "python" has only this.
    python: Callable[..., Iterator[Problem]] | None = None

    def default_options(self) -> dict[str, Any]:
        return {k: (list(o.default) if isinstance(o.default, list) else o.default) for k, o in self.options.items()}


def snippet(text: str) -> str:
    """Source text for a message: one line, backquoted, at most 60 characters."""
    one_line = " ".join(text.split())
    return f"`{one_line if len(one_line) <= 60 else one_line[:57] + '...'}`"


def token_counter(encode: Callable[[str], list[int]]) -> Callable[[str], int]:
    """A cached counter: the same boilerplate recurs across a repository's templates."""

    @functools.lru_cache(maxsize=65536)
    def count(text: str) -> int:
        return len(encode(text)) if text else 0

    return count


def shared_tokens(model: TemplateModel, segments: list, count: Callable[[str], int]) -> int:
    return sum(count(s.text if s.construct == "text" else s.literal) for s in segments if s.construct == "text" or s.literal)


# (model, counter, suffix sums) of the last model asked about: the rules ask once per
# dynamic segment, and summing the text after each one anew was quadratic in the template
# (a 250 KB template of many values took 21 s).
_SUFFIX: list[Any] = [None, None, []]


def shared_tokens_after(model: TemplateModel, index: int, count: Callable[[str], int]) -> int:
    """``shared_tokens(model, model.shared_text_after(index), count)`` from suffix sums
    computed once per model."""
    segments = model.segments
    if _SUFFIX[0] is not model or _SUFFIX[1] is not count or len(_SUFFIX[2]) != len(segments) + 1:
        sums = [0] * (len(segments) + 1)
        for j in range(len(segments) - 1, -1, -1):
            s = segments[j]
            shared = s.is_shared_text or (s.literal and not s.effective.volatile)
            counted = shared and (s.construct == "text" or s.literal)
            sums[j] = sums[j + 1] + (count(s.text if s.construct == "text" else s.literal) if counted else 0)
        _SUFFIX[:] = [model, count, sums]
    start = max(segments[index].end_index, index + 1)
    return int(_SUFFIX[2][min(start, len(segments))])

