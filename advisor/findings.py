"""One finding type for every code advisor reports: lint's PC codes and the traffic's TR codes.

A lint finding points at a line of a template (``path``, ``line``, ``column``, an optional
fix). A traffic finding points at a traffic file and, when the diagnosis knows it, the line
of the first record that shows it (``line`` 0: the file as a whole); its figures are where
in the prompt (``token_offset``, ``kind``) and what it costs (``requests``, ``tokens_lost``).
The renderers of ``advisor.lint.output`` (text, json, sarif, github) take both, so
``analyze --format sarif`` annotates traffic the way ``lint --format sarif`` annotates
templates. Each command keeps its own JSON shape (DESIGN.md): ``to_dict`` is the traffic one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from advisor.rules import TRAFFIC_MODULES

if TYPE_CHECKING:
    from advisor.lint.fix import Fix


@dataclass(frozen=True)
class TrafficRule:
    """A traffic code as the SARIF driver lists it (lint's ``Rule`` carries the same fields)."""

    code: str
    name: str
    summary: str
    docs: str
    severity: str = "warning"


# Traffic findings are advice about the traffic, never a broken build: all warnings. Each TR
# code is a module of the rules package (rules/trNNN_*.py, beside its YAML cases): its
# docstring is ``docs``, markdown in the sections of a lint rule's (``advisor rule TR101``
# prints it, the SARIF driver carries it as each rule's help). The package loads only those
# modules here; its lint rules load on first use.
TRAFFIC_RULES: dict[str, TrafficRule] = {
    m.CODE: TrafficRule(m.CODE, m.NAME, m.SUMMARY, m.DOCS, m.SEVERITY) for m in TRAFFIC_MODULES
}


def is_traffic_code(code: str) -> bool:
    return code.startswith("TR")


@dataclass(order=True)
class Finding:
    """One finding. Field order is lint's sort order: path, then position, then code.

    Lint sets the template fields; the traffic diagnosis sets ``code``, ``message`` and the
    traffic fields by keyword (``Finding(code=..., token_offset=..., kind=..., ...)``), and
    ``path``/``line`` when it knows which record showed the finding first. ``rule`` and
    ``severity`` of a TR code default to its entry in ``TRAFFIC_RULES``.
    """

    path: str = ""
    line: int = 0  # 1-based; 0: no line (a traffic finding about the file as a whole)
    column: int = 0
    code: str = ""
    message: str = ""
    rule: str = ""
    severity: str = ""
    end_line: int | None = None
    end_column: int | None = None
    tokens_at_risk: int | None = None
    fix: Fix | None = field(default=None, compare=False)
    # Traffic figures. ``kind`` names what the diagnosis found in the prompts (datetime,
    # section-order, single-shot, ...); it is empty for findings about a simulated run
    # (TR401, TR501), whose figures are all in ``details``.
    token_offset: int | None = None
    kind: str = ""
    requests: int = 0
    tokens_lost: int = 0
    example: str = ""
    # More fields of the JSON shape, after the common ones (examples, orders, hit rates).
    details: dict[str, Any] = field(default_factory=dict, compare=False)
    # What the rewrite needs and the JSON does not show (decoded contexts, unit texts).
    hidden: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not self.code:
            raise ValueError("a finding needs a code")
        traffic = is_traffic_code(self.code)
        if not self.rule and traffic:
            self.rule = TRAFFIC_RULES[self.code].name  # an unknown TR code is a bug: KeyError
        if not self.severity:
            self.severity = TRAFFIC_RULES[self.code].severity if traffic else "error"

    @property
    def is_traffic(self) -> bool:
        return is_traffic_code(self.code)

    def to_dict(self) -> dict[str, Any]:
        """The traffic JSON shape of analyze, prescribe and report (a diagnosis finding) or of
        simulate (a run finding: its figures, then the message)."""
        out: dict[str, Any] = {"code": self.code, "rule": self.rule}
        if not self.kind:
            out.update(self.details)
            out["message"] = self.message
            return out
        out.update({"token_offset": self.token_offset, "kind": self.kind, "requests": self.requests,
                    "tokens_lost": self.tokens_lost, "example": self.example, "message": self.message})
        out.update(self.details)
        return out
