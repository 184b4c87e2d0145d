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


# What the diagnosis knows of a finding beyond its figures, typed: the prescription and the
# template diffs read these fields, the JSON shape shows them as the finding's own keys
# (``Finding.to_dict``), so no stage reads another's facts by a string key.

@dataclass(frozen=True)
class SpanFacts:
    """A span of the prompt where requests part (TR101, TR102, TR104): decoded examples of
    what varies there, the decoded text just before and after it, its typical length in
    tokens, whether it is re-rendered into the conversation's history at every turn, and,
    for a span the chat template's layout makes (no request sends it), that ``layout``."""

    examples: tuple[str, ...] = ()
    context_before: str = ""
    context_after: str = ""
    span_tokens: int = 0
    in_history: bool = False
    layout: str = ""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"layout": self.layout} if self.layout else {}
        out.update(examples=list(self.examples), context_before=self.context_before,
                   context_after=self.context_after, span_tokens=self.span_tokens)
        if self.in_history:
            out["in_history"] = True
        return out


@dataclass(frozen=True)
class OrderFacts:
    """Blocks that recur in several orders (TR201): their labels, the most common orders with
    their requests (``shown``: at most ten, as the JSON lists them), how many orders there
    are, the one order to send and how many requests send another. ``cores``: each block's
    text without its label, which a template diff finds its section by (no JSON)."""

    blocks: tuple[str, ...]
    orders: tuple[dict[str, Any], ...]
    distinct_orders: int
    canonical_order: tuple[str, ...]
    requests_off_canonical: int
    cores: tuple[str, ...] = field(default=(), repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {"blocks": list(self.blocks), "orders": [dict(o) for o in self.orders],
                "distinct_orders": self.distinct_orders, "canonical_order": list(self.canonical_order),
                "requests_off_canonical": self.requests_off_canonical}


@dataclass(frozen=True)
class CauseFacts:
    """A cause only the canonical form names (``advisor.prescribe.causes``): the requests of
    each kind of it, and an example of each kind."""

    kinds: tuple[tuple[str, int], ...]
    examples: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"kinds": dict(self.kinds), "examples": list(self.examples), "from": "canonical-order"}


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
    # The facts of a span, an order or a cause the canonical form names (one at most).
    span: SpanFacts | None = field(default=None, compare=False)
    order: OrderFacts | None = field(default=None, compare=False)
    cause: CauseFacts | None = field(default=None, compare=False)
    # More fields of the JSON shape that no other stage reads (a run finding's figures, the
    # tools layout's replay), after the common ones and the facts above.
    details: dict[str, Any] = field(default_factory=dict, compare=False)

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
        for facts in (self.span, self.order, self.cause):
            if facts is not None:
                out.update(facts.to_dict())
        out.update(self.details)
        return out

    @property
    def from_layout(self) -> bool:
        """Whether the chat template's layout, not what the requests send, makes the finding."""
        return self.span is not None and bool(self.span.layout)

    @property
    def in_history(self) -> bool:
        return self.span is not None and self.span.in_history
