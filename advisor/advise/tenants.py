"""Tenants that differ from the rest: each one's decision and prescription on its own requests.

The advisory decides on the whole traffic. A tenant whose prompts carry a defect the others'
do not (a clock at the top of its system prompt) is averaged away there; this module picks
such tenants out and gives each its own figures, decision and fix.

Each tenant is measured on its own requests alone (an unlimited cache, arrival order, the
report's page size): what it gets on a deployment of its own, and the only basis on which
its prescription (run on those requests alone) can be compared with today.

A tenant **differs** when it carries at least ``MIN_SHARE`` of the traffic's prompt tokens and
``MIN_REQUESTS`` requests, and either its hit rate is at least ``MARGIN`` below the other
tenants' (each measured alone, pooled), or the hit-rate rule gives it another decision than
the whole traffic's hit rate does. At most ``MAX_PRESCRIBED`` of them (the biggest in prompt tokens) get a prescription,
the slow stage; the others are listed with today's figures only. Traffic with fewer than two
tenants gives no list.

``facts["tenants"]``: a list, the biggest tenant first, of dicts with

- ``tenant``: the records' ``tenant``; ``requests``, ``prompt_tokens``, ``share`` (of the
  traffic's prompt tokens);
- ``lcp_hit_rate``: cached / prompt tokens on its requests alone (``advisor analyze`` on them);
  ``hit_rate``: the same under SGLang's rules (at most L-1 tokens of a request, in pages), the
  basis of ``facts["traffic"]["hit_rate"]`` on a full-attention model;
- ``others_hit_rate``: ``hit_rate`` of the other requests, each tenant's measured alone;
- ``why``: the rules that picked it, ``"below-others"`` and/or ``"decision-differs"``;
- ``decision``: the hit-rate rule (no-go below ``no_go_below``, go at or above ``go_above``,
  trial between) on ``hit_rate``; ``decision_whole``: the same rule on the whole traffic's;
- ``prescribed``: whether it got a prescription (False past ``MAX_PRESCRIBED``); then
  ``hit_rate_after_prescription`` (its requests rewritten by its own measured fixes, unlimited
  cache, the engine's rule as ``hit_rate`` and ``facts["after_fix"]["hit_rate"]``;
  ``lcp_hit_rate_after_prescription`` the longest common prefix), ``decision_after`` (the rule
  on it), ``actions`` (the ``TOP_ACTIONS`` biggest measured moves: ``kind``, ``code``,
  ``description``, ``hit_rate_after``, ``tokens_gained``) and ``findings`` (its traffic
  findings: ``code``, ``rule``, ``kind``, ``requests``, ``tokens_lost``); None, None, [] and []
  when not prescribed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from advisor.advise.after_fix import engine_hit_rate
from advisor.advise.decide import Thresholds, hit_rule, measured_moves
from advisor.diagnose.detect import diagnose
from advisor.index.analyze import Analyzer, served
from advisor.ingest.pipeline import Renderer, Sequence
from advisor.prescribe.actions import Prescription, prescribe

MIN_SHARE = 0.05  # of the traffic's prompt tokens: a smaller tenant does not move the bill
# Alone, a tenant's first request finds nothing cached: with n requests of one prefix that
# costs up to 1/n of its hit rate, half of MARGIN at 20. Fewer requests, and a tenant would
# stand out for being small.
MIN_REQUESTS = 20
MARGIN = 0.10  # hit-rate points below the other tenants' that make a tenant stand out
# Prescriptions run, the biggest differing tenants first: the prescription replays the
# tenant's requests once per candidate fix (seconds per thousand requests).
MAX_PRESCRIBED = 3
TOP_ACTIONS = 2  # moves shown per tenant, the biggest first

BELOW_OTHERS = "below-others"
DECISION_DIFFERS = "decision-differs"


@dataclass(frozen=True)
class TenantTraffic:
    """One tenant's requests (arrival order) and what an unlimited cache gives them alone."""

    tenant: str | None  # None: the requests without a tenant (counted among the others only)
    seqs: list[Sequence]
    prompt_tokens: int
    cached_tokens: int  # analyze's: the longest earlier prefix, in pages
    engine_cached_tokens: int  # SGLang's: at most L-1 tokens of a request, in pages

    @property
    def lcp_hit_rate(self) -> float:
        return self.cached_tokens / self.prompt_tokens if self.prompt_tokens else 0.0

    @property
    def hit_rate(self) -> float:
        return self.engine_cached_tokens / self.prompt_tokens if self.prompt_tokens else 0.0




def split(seqs: list[Sequence], page_size: int) -> list[TenantTraffic]:
    """Each tenant's requests measured alone, the biggest in prompt tokens first (ties by
    name, so the order is the same on every run)."""
    groups: dict[str | None, list[Sequence]] = {}
    for seq in seqs:
        groups.setdefault(seq.request.tenant, []).append(seq)
    out = []
    for tenant, group in groups.items():
        analyzer = Analyzer(page_size)
        engine_cached = 0
        for seq in group:
            engine_cached += served(analyzer.add(seq), seq.prompt_tokens, page_size)
        res = analyzer.result
        out.append(TenantTraffic(tenant, group, res.prompt_tokens, res.cached_tokens, engine_cached))
    return sorted(out, key=lambda g: (-g.prompt_tokens, g.tenant or ""))


def others_hit_rate(one: TenantTraffic, total_prompt: int, total_engine_cached: int) -> float | None:
    """``hit_rate`` of every request but ``one``'s, each group measured alone (None: no others);
    from the totals of all groups, so that many tenants cost one pass, not one each."""
    prompt = total_prompt - one.prompt_tokens
    return (total_engine_cached - one.engine_cached_tokens) / prompt if prompt else None


def reasons_to_pick(one: TenantTraffic, total_prompt: int, others: float | None, whole_hit_rate: float,
                    t: Thresholds) -> list[str]:
    """Why ``one`` differs from the rest (empty: it does not, or it is too small to matter);
    ``others`` is ``others_hit_rate``."""
    if one.tenant is None or len(one.seqs) < MIN_REQUESTS or one.prompt_tokens < MIN_SHARE * total_prompt:
        return []
    why = []
    if others is not None and others - one.hit_rate >= MARGIN:
        why.append(BELOW_OTHERS)
    if hit_rule(one.hit_rate, t) != hit_rule(whole_hit_rate, t):
        why.append(DECISION_DIFFERS)
    return why


def prescribe_alone(one: TenantTraffic, renderer: Renderer, page_size: int) -> Prescription:
    """The diagnosis and prescription of the whole traffic (``facts.build``'s calls), on
    this tenant's requests alone."""
    return prescribe(one.seqs, renderer, diagnose(one.seqs, renderer.tokenizer, one.cached_tokens), page_size)


def _prescribed(presc: Prescription, t: Thresholds, page_size: int) -> dict[str, Any]:
    moves = measured_moves({"actions": [a.to_dict() for a in presc.actions]})
    # On the same basis as the tenant's ``hit_rate`` (what the engine serves), as the
    # whole traffic's after-fix figure is (advisor.advise.after_fix).
    after = engine_hit_rate(presc.rewritten, page_size) if presc.rewritten else presc.hit_rate_after
    return {
        "prescribed": True,
        "hit_rate_after_prescription": round(after, 6),
        "lcp_hit_rate_after_prescription": round(presc.hit_rate_after, 6),
        "decision_after": hit_rule(after, t),
        "actions": [{k: a[k] for k in ("kind", "code", "description", "hit_rate_after", "tokens_gained")}
                    for a in moves[:TOP_ACTIONS]],
        "findings": [{"code": f.code, "rule": f.rule, "kind": f.kind, "requests": f.requests,
                      "tokens_lost": f.tokens_lost} for f in presc.findings],
    }


def _not_prescribed() -> dict[str, Any]:
    return {"prescribed": False, "hit_rate_after_prescription": None, "decision_after": None,
            "actions": [], "findings": []}


def tenant_facts(seqs: list[Sequence], renderer: Renderer, whole_hit_rate: float, page_size: int,
                 t: Thresholds) -> list[dict[str, Any]]:
    """``facts["tenants"]`` (the module's docstring) of the measured traffic; ``whole_hit_rate``
    is the whole traffic's hit rate under SGLang's rules on full attention."""
    groups = split(seqs, page_size)
    if sum(g.tenant is not None for g in groups) < 2:
        return []
    total = sum(g.prompt_tokens for g in groups)
    total_cached = sum(g.engine_cached_tokens for g in groups)
    out: list[dict[str, Any]] = []
    for one in groups:  # the biggest first: the prescribed ones are the biggest that differ
        others = others_hit_rate(one, total, total_cached)
        why = reasons_to_pick(one, total, others, whole_hit_rate, t)
        if not why:
            continue
        row: dict[str, Any] = {
            "tenant": one.tenant, "requests": len(one.seqs), "prompt_tokens": one.prompt_tokens,
            "share": round(one.prompt_tokens / total, 6),
            "lcp_hit_rate": round(one.lcp_hit_rate, 6), "hit_rate": round(one.hit_rate, 6),
            "others_hit_rate": round(others, 6) if others is not None else None,
            "why": why, "decision": hit_rule(one.hit_rate, t), "decision_whole": hit_rule(whole_hit_rate, t),
        }
        if len(out) < MAX_PRESCRIBED:
            row.update(_prescribed(prescribe_alone(one, renderer, page_size), t, page_size))
        else:
            row.update(_not_prescribed())
        out.append(row)
    return out
