"""What to change, and the hit rate after the change, measured rather than guessed.

For each finding of the diagnosis there is one concrete fix (``advisor.prescribe.rewrite``). Prescribe
applies it to every logged request, renders and tokenizes the rewritten requests exactly as
the originals were, and re-runs the analysis: the hit rate after a fix is the hit rate of
that rewritten traffic. Then all fixes together. The measured gains also give the loss
attribution (dynamic content, ordering, unique) its final figures.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable

from advisor.index.analyze import Analyzer
from advisor.diagnose.detect import Attribution, Diagnosis, Finding
from advisor.diagnose.capacity import cached_with_capacity, pin_candidate
from advisor.errors import AdvisorError
from advisor.ingest.memo import MemoEncoder
from advisor.ingest.pipeline import TOKEN_NAMESPACE, Renderer, Sequence
from advisor.prescribe.rewrite import LAST_USER, MESSAGE_END, editable, move_dynamic, reorder_blocks, sort_tools
from advisor.ingest.traffic import Request

Fix = Callable[[Request], "Request | None"]


@dataclass
class Action:
    kind: str
    description: str
    code: str
    hit_rate_after: float
    tokens_gained: int
    requests_changed: int
    finding: int | None = None  # index into the diagnosis findings
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out = {"kind": self.kind, "description": self.description, "code": self.code,
               "hit_rate_after": round(self.hit_rate_after, 6), "tokens_gained": self.tokens_gained,
               "requests_changed": self.requests_changed, "finding": self.finding}
        out.update(self.details)
        return out


@dataclass
class Prescription:
    requests: int
    prompt_tokens: int
    cached_before: int
    cached_after: int
    actions: list[Action]
    section_order: list[str]
    findings: list[Finding]
    attribution: Attribution
    not_rewritable: int = 0
    diffs: list[Any] = field(default_factory=list)  # advisor.prescribe.template_diff.TemplateDiff
    page_size: int = 1
    capacity: int | None = None

    @property
    def hit_rate_before(self) -> float:
        return self.cached_before / self.prompt_tokens if self.prompt_tokens else 0.0

    @property
    def hit_rate_after(self) -> float:
        return self.cached_after / self.prompt_tokens if self.prompt_tokens else 0.0


@dataclass(frozen=True)
class Plan:
    """One fix: what it is and how it rewrites a request."""

    kind: str
    description: str
    code: str
    finding: int
    fix: Fix
    details: dict[str, Any] = field(default_factory=dict)
    # Other ways to carry out the same fix; prescribe measures each and keeps the best.
    variants: tuple[tuple[str, Fix, dict[str, Any]], ...] = ()


def plans_for(diagnosis: Diagnosis) -> list[Plan]:
    out: list[Plan] = []
    for k, f in enumerate(diagnosis.findings):
        if f.code == "TR101":
            before, after = f.details["context_before"], f.details["context_after"]
            where = before.strip().splitlines()[-1] if before.strip() else "its line"
            what = (f"Move the {f.kind} value at token {f.token_offset} (the line starting '{where}', e.g. "
                    f"'{_short(f.example)}') out of the shared prefix, after all static content: ")
            out.append(Plan(
                "move-dynamic-content", what + "to the end of the last user turn.", f.code, k,
                _move(before, after, LAST_USER), {"to": LAST_USER},
                ((what + "to the end of its message (it is fixed for a conversation; the history after it "
                  "stays shared).", _move(before, after, MESSAGE_END), {"to": MESSAGE_END}),)))
        elif f.code == "TR201" and f.kind == "tool-order":
            out.append(Plan("sort-tool-definitions",
                            "Sort the tool definitions by name before sending them, in every request.",
                            f.code, k, sort_tools))
        elif f.code == "TR201":
            units = _units_of(diagnosis, f)
            order = " > ".join(f.details["canonical_order"])
            out.append(Plan("fix-section-order",
                            f"Always send these sections in one order, most widely shared first: {order}.",
                            f.code, k, _reorder(units)))
    return out


def _move(before: str, after: str, to: str) -> Fix:
    return lambda req: move_dynamic(req, before, after, to)


def _reorder(units: list[list[int]]) -> Fix:
    return lambda req: reorder_blocks(req, units)


def _units_of(diagnosis: Diagnosis, finding: Finding) -> list[list[int]]:
    for order in diagnosis.orders:
        if order.labels == finding.details["canonical_order"]:
            return order.units
    return []


def _short(text: str, width: int = 40) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 3] + "..."


class Measurer:
    """Re-analyses the traffic with fixes applied; unchanged requests keep their ids.
    With a capacity, hits are counted through a finite pool (``diagnose_capacity``)."""

    def __init__(self, seqs: list[Sequence], renderer: Renderer, page_size: int,
                 capacity: int | None = None) -> None:
        self.seqs = seqs
        self.renderer = renderer
        self.page_size = page_size
        self.capacity = capacity
        self.encoder = MemoEncoder(renderer.tokenizer)
        self.editable: list[Request | None] = []
        for s in seqs:
            try:
                self.editable.append(editable(s.request, renderer) if s.unit == 1 else None)
            except AdvisorError:
                self.editable.append(None)

    @property
    def not_rewritable(self) -> int:
        return sum(1 for r in self.editable if r is None)

    def rewritten(self, fixes: Iterable[Fix]) -> tuple[list[Sequence], int]:
        """The traffic with ``fixes`` applied in turn, rendered and tokenized; and how many
        requests changed."""
        fixes = list(fixes)
        out: list[Sequence] = []
        changed = 0
        for seq, req in zip(self.seqs, self.editable):
            new = None
            if req is not None:
                current = req
                for fix in fixes:
                    got = fix(current)
                    if got is not None:
                        current = got
                        new = got
            if new is None:
                out.append(seq)
                continue
            changed += 1
            # Decoded ids go back to ids as they are; other records render as logged ones do.
            text = new.prompt if seq.request.kind == "input_ids" else self.renderer.text_of(new)
            ids = self.encoder.encode(text or "")
            ids = ids if isinstance(ids, array) else array("I", ids)
            out.append(Sequence(new, TOKEN_NAMESPACE, ids, len(ids), 1))
        return out, changed

    def cached(self, seqs: list[Sequence], unlimited: bool = False, pin: list[int] | None = None) -> int:
        """Cached tokens of ``seqs``: the analyze definition, or through the pool."""
        if self.capacity is None or unlimited:
            analyzer = Analyzer(self.page_size)
            for s in seqs:
                analyzer.add(s)
            return analyzer.result.cached_tokens
        return cached_with_capacity(seqs, self.capacity, self.page_size, pin)


def prescribe(seqs: list[Sequence], renderer: Renderer, diagnosis: Diagnosis, page_size: int = 1,
              capacity: int | None = None) -> Prescription:
    """One measured action per finding, then all together; with ``capacity``, hit rates are
    those of a pool of that many tokens, eviction gets its share of the loss, and pinning
    the system prompt is one more action."""
    m = Measurer(seqs, renderer, page_size, capacity)
    prompt = sum(s.prompt_tokens for s in seqs)
    before = m.cached(seqs)
    before_unlimited = m.cached(seqs, unlimited=True) if capacity is not None else before
    plans = plans_for(diagnosis)
    actions: list[Action] = []

    def rate(cached: int) -> float:
        return cached / prompt if prompt else 0.0

    useful: list[Plan] = []
    for n, plan in enumerate(plans):
        fixed, changed = m.rewritten([plan.fix])
        cached = m.cached(fixed)
        for description, fix, details in plan.variants:
            other, other_changed = m.rewritten([fix])
            other_cached = m.cached(other)
            if other_cached > cached:
                plan = plans[n] = replace(plan, description=description, fix=fix, details=details)
                cached, changed = other_cached, other_changed
        description = plan.description
        if cached > before:
            useful.append(plan)
        else:
            # Measured, not assumed: a fix that gains nothing here is shown as such and
            # left out of the combination.
            description += " Measured on this traffic: no gain; not recommended."
        actions.append(Action(plan.kind, description, plan.code, rate(cached), cached - before, changed,
                              plan.finding, dict(plan.details)))
    plans = useful
    for k, f in enumerate(diagnosis.findings):
        if f.code == "TR301":
            actions.append(Action("none", "No template change raises the hit rate of single-shot traffic: "
                                  "every prompt is new content. Do not size a prefix cache for it.",
                                  f.code, rate(before), 0, 0, k))
    fixed_all, changed_all = m.rewritten(p.fix for p in plans) if plans else (seqs, 0)
    after = m.cached(fixed_all) if plans else before
    after_unlimited = m.cached(fixed_all, unlimited=True) if plans and capacity is not None else (
        after if capacity is None else before_unlimited)
    dynamic = [p for p in plans if p.code == "TR101"]
    if dynamic and len(dynamic) < len(plans):
        dynamic_gain = m.cached(m.rewritten(p.fix for p in dynamic)[0], unlimited=True) - before_unlimited
    else:
        dynamic_gain = after_unlimited - before_unlimited if dynamic else 0
    count = len(plans)
    if capacity is not None and before_unlimited > before:
        # Eviction costs hits: keep the most shared prefix resident.
        pin = pin_candidate(seqs, page_size)
        if pin is not None:
            cached = m.cached(seqs, pin=pin)
            actions.append(Action(
                "pin-system-prompt",
                f"Pin the shared prefix ({len(pin):,} tokens, the system prompt) in the KV cache so that eviction "
                f"never drops it (capacity {capacity:,} tokens).", "", rate(cached), cached - before, 0))
            pin_all = pin_candidate(fixed_all, page_size)
            if pin_all is not None:
                after = max(after, m.cached(fixed_all, pin=pin_all))
            count += 1
    if count > 1:
        actions.append(Action("all", "All the actions above together.", "", rate(after), after - before,
                              changed_all))
    # Measured attribution: what the fixes recover, by cause (template effects measured
    # with unlimited capacity); eviction is what the finite pool loses; the rest is
    # content seen once.
    gain = max(0, after_unlimited - before_unlimited)
    dynamic_part = max(0, min(gain, dynamic_gain))
    eviction = before_unlimited - before if capacity is not None else None
    attribution = Attribution(prompt, before, dynamic_part, gain - dynamic_part,
                              prompt - before_unlimited - gain, eviction, measured=True)
    return Prescription(
        requests=len(seqs), prompt_tokens=prompt, cached_before=before, cached_after=max(before, after),
        actions=actions, section_order=section_order(diagnosis), findings=diagnosis.findings,
        attribution=attribution, not_rewritable=m.not_rewritable, page_size=page_size, capacity=capacity,
    )


def section_order(diagnosis: Diagnosis) -> list[str]:
    """The recommended layout of a prompt, from the traffic: shared blocks first (system,
    tools and schemas in a fixed order, sections in a fixed order), the per-request
    values and the question last."""
    order = ["system prompt (static)"]
    for f in diagnosis.findings:
        if f.code == "TR201" and f.kind == "tool-order":
            order.append("tool definitions, sorted by name: " + ", ".join(b.removeprefix("tool ") for b in f.details["blocks"]))
    for f in diagnosis.findings:
        if f.code == "TR201" and f.kind != "tool-order":
            order.extend(f.details["canonical_order"])
    order.append("retrieval context and conversation history")
    for f in diagnosis.findings:
        if f.code == "TR101":
            before = f.details["context_before"].strip().splitlines()
            order.append(f"per-request {f.kind} ({before[-1] if before else f.example})")
    order.append("the user's question (last)")
    return order
