"""What a rule is: metadata, documented options, and a generator of problems.

Rules never decide their severity (configuration does; the engine stamps it) and never
see file paths beyond the models they are given.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from advisor.lint.fix import Fix
from advisor.lint.model import TemplateModel

SEVERITIES = ("error", "warning", "info")


@dataclass(frozen=True)
class Option:
    type: type
    default: Any
    help: str

    def check(self, value: Any) -> bool:
        if self.type is float:
            return isinstance(value, (int, float)) and not isinstance(value, bool)
        if self.type is list:
            return isinstance(value, list) and all(isinstance(v, str) for v in value)
        return isinstance(value, self.type) and not (self.type is int and isinstance(value, bool))


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


@dataclass
class Context:
    """What a check may use besides the model: its options and a token counter."""

    options: dict[str, Any]
    count_tokens: Callable[[str], int]


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    severity: str
    summary: str
    docs: str  # markdown with the sections What it does / Why is this bad? / Example / Use instead
    scope: str  # "template": check(model, ctx); "set": check(models, ctx); "suppression": engine-driven
    check: Callable[..., Iterator[Problem]]
    options: dict[str, Option] = field(default_factory=dict)
    module: str = ""

    def default_options(self) -> dict[str, Any]:
        return {k: (list(o.default) if isinstance(o.default, list) else o.default) for k, o in self.options.items()}


def token_counter(encode: Callable[[str], list[int]]) -> Callable[[str], int]:
    """A cached counter: the same boilerplate recurs across a repository's templates."""

    @functools.lru_cache(maxsize=65536)
    def count(text: str) -> int:
        return len(encode(text)) if text else 0

    return count


def shared_tokens(model: TemplateModel, segments: list, count: Callable[[str], int]) -> int:
    return sum(count(s.text if s.construct == "text" else s.literal) for s in segments if s.construct == "text" or s.literal)
