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


# Traffic findings are advice about the traffic, never a broken build: all warnings.
TRAFFIC_RULES: dict[str, TrafficRule] = {r.code: r for r in (
    TrafficRule("TR101", "dynamic-content",
                "A value that varies between requests sits inside content the requests share.",
                "Everything after the varying value is a new prefix for each request, so the shared "
                "content behind it is never a cache hit. Move the value after all static content "
                "(into the last user turn)."),
    TrafficRule("TR102", "misplaced-content",
                "Per-request content comes before content most requests share.",
                "The shared content follows a span that differs in every request, so it cannot be "
                "reused. Put the shared content first and the per-request content after it."),
    TrafficRule("TR103", "template-layout",
                "The chat template prints shared content (the tool definitions) after the conversation history.",
                "A template that prints the tools right before the last user turn moves them behind a longer "
                "history at every turn, so they are never a cache hit after the first turn. No change to the "
                "requests fixes it; serve with a chat template that prints the tools before the first turn."),
    TrafficRule("TR201", "section-order",
                "The same sections or tool definitions arrive in different orders.",
                "Each new order is a new prefix: the blocks after the first one out of place are "
                "recomputed. Send them in one order (tools sorted by name)."),
    TrafficRule("TR301", "low-reuse",
                "The prompts share almost nothing with earlier requests.",
                "The traffic is unique content; no template change raises the hit rate, and "
                "prefix caching buys little here."),
    TrafficRule("TR401", "capacity-pressure",
                "The KV pool keeps clearly fewer hits than unlimited capacity would.",
                "Shared prefixes are evicted before they are reused. Grow the pool, shorten the "
                "shared prefixes, or use a cache-aware scheduler or router."),
    TrafficRule("TR501", "tenant-starvation",
                "A tenant's hit rate collapses in the shared pool against its own budget.",
                "Other tenants evict its prefixes (a noisy neighbour). Give it a budget or route it "
                "to its own replica."),
    TrafficRule("TR601", "cache-granularity",
                "The model's cache reuses less of the shared prefixes than full attention would.",
                "On a model with sliding-window or linear-attention (Mamba) layers the engine can only "
                "resume where it kept a window or a state: whole hybrid blocks (hundreds of tokens on "
                "vLLM), and often only from the third request that shares a prefix. A shared prefix "
                "shorter than one block is never a hit. Make the shared prefix a whole number of "
                "blocks long and longer than one, or serve the model on the engine whose granularity "
                "is finer on this traffic (the report compares them)."),
)}


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
