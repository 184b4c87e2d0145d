"""The traffic after the fix, measured the way today's traffic is.

The advisory decides twice: on the traffic as logged and on the same requests rewritten as
the fix says (prescribe's measured moves; for `plan`, also the recipe's order). Both sides
go through one measurement: the engine's hit rule (at most L-1 tokens, whole pages, the
model's windows and states when it has them), the hot shared prefix, and later the same
simulation (``facts._simulate``). Every after-fix figure the report prints comes from here,
so the headline, the engine comparison, the capacity curve, the hosted-API check and the
rollout target cannot disagree.

Each rewrite keeps the logged arrival time of the request it replaces, so the simulation
sees the same load on both sides.

Where several rewrites were measured (``plan``: the prescription and the recipe), the one
with the higher hit rate is the fix the advisory stands on; every candidate's hit rate stays
in ``candidates`` so the report can say why.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Iterable

from advisor.advise.money import TrafficBills
from advisor.index.analyze import Analyzer, served, top_branches
from advisor.index.geometry import CacheGeometry
from advisor.ingest.pipeline import Sequence


@dataclass(frozen=True)
class Alternative:
    """A rewrite of the traffic measured beside the prescription's: the same requests in
    another order, read from ``path`` (one record per logged request, in log order)."""

    name: str
    path: Path
    description: str


@dataclass
class Rewrite:
    """One candidate fix: its requests (restamped) and what it measured."""

    name: str
    description: str
    seqs: list[Sequence]
    rewritten_requests: int
    measured: dict[str, Any]
    bills: TrafficBills | None = None  # each hosted provider's billed tokens on the rewrite

    @property
    def hit_rate(self) -> float:
        return float(self.measured["hit_rate"])


def engine_hit_rate(seqs: Iterable[Sequence], page: int) -> float:
    """What the engine serves of ``seqs`` with unlimited capacity, full attention: the
    longest common prefix with an earlier request, at most L-1 tokens, whole pages."""
    analyzer = Analyzer(page)
    cached = prompt = 0
    for seq in seqs:
        cached += served(analyzer.add(seq), seq.prompt_tokens, page)
        prompt += seq.prompt_tokens
    return cached / prompt if prompt else 0.0


def engine_measure(seqs: list[Sequence], page: int, decode: Callable[[list[int]], str],
                   geos: dict[str, CacheGeometry] | None = None,
                   bills: TrafficBills | None = None) -> dict[str, Any]:
    """The hit rates and the hot prefix of ``seqs`` under unlimited capacity: the longest
    common prefix (``lcp_hit_rate``), what the engine serves of it (``hit_rate``: SGLang
    never serves a prompt's last token and hits whole pages, REFERENCE.md §1.3; on a model
    with windows or states, SGLang's rule on them), and the hot shared branch; ``bills``
    counts each hosted provider's tokens in the same pass."""
    analyzer = Analyzer(page)
    sparse = Analyzer(1, geos["sglang"]) if geos and "sglang" in geos else None
    engine_cached = 0
    for seq in seqs:
        cached = bills.add(analyzer, seq) if bills is not None else analyzer.add(seq)
        if sparse is not None:
            sparse.add(seq)
        engine_cached += served(cached, seq.prompt_tokens, page)
    res = analyzer.result
    prompt = res.prompt_tokens or 1
    hit = engine_cached / prompt
    if sparse is not None:
        hit = sparse.result.cached_tokens / prompt
    hot = max(top_branches(res, decode, 3), key=lambda b: (b.requests, b.prefix_tokens), default=None)
    return {"requests": res.requests, "prompt_tokens": res.prompt_tokens, "lcp_hit_rate": round(res.hit_rate, 6),
            "hit_rate": round(hit, 6), "shared_prefix_tokens": hot.prefix_tokens if hot else 0,
            "shared_prefix_requests": hot.requests if hot else 0}


def restamp(today: list[Sequence], rewritten: list[Sequence]) -> list[Sequence]:
    """``rewritten`` with each request's logged arrival time and tenant (request i replaces
    request i)."""
    out = []
    for s, r in zip(today, rewritten):
        if r is s or (r.request.timestamp == s.request.timestamp and r.request.tenant == s.request.tenant):
            out.append(r)
        else:
            out.append(replace(r, request=replace(r.request, timestamp=s.request.timestamp, tenant=s.request.tenant)))
    return out


def candidates(today: list[Sequence], prescribed: list[Sequence], alternatives: list[tuple[Alternative, list[Sequence]]],
               page: int, decode: Callable[[list[int]], str],
               geos: dict[str, CacheGeometry] | None = None) -> list[Rewrite]:
    """Every rewrite that changed at least one request, measured; the prescription first."""
    found: list[Rewrite] = []
    pairs = [("prescription", "the prescribed template changes", prescribed)]
    pairs += [(alt.name, alt.description, seqs) for alt, seqs in alternatives]
    for name, description, seqs in pairs:
        if len(seqs) != len(today):
            continue  # not the same requests: nothing to compare request by request
        changed = sum(1 for r, s in zip(seqs, today) if r is not s and r.ids != s.ids)
        if not changed:
            continue
        stamped = restamp(today, seqs)
        bills = TrafficBills.for_traffic(stamped)
        found.append(Rewrite(name, description, stamped, changed, engine_measure(stamped, page, decode, geos, bills),
                             bills))
    return found


def best(found: list[Rewrite]) -> Rewrite | None:
    """The rewrite with the highest hit rate (the prescription on a tie: it names its moves)."""
    return max(found, key=lambda r: (r.hit_rate, r.name == "prescription"), default=None)
