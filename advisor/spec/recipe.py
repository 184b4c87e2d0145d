"""The ordering recipe: the spec's sections reordered for the prefix cache.

Everything static first, then what varies least, the per-request text (the question)
last. "Varies least" is measured, not guessed: each section is ranked by the expected
number of distinct values it takes over the spec's requests (one for static text, the
tenants that send traffic, the clock windows the run spans, the sessions, the distinct
first passages of a retrieval, one per request), ties broken by kind and then by the
described order. Sections keep their roles; consecutive sections of one role share a
message; shuffled messages become ordered.
"""

from __future__ import annotations

import math
from dataclasses import replace

import yaml

from advisor.spec.model import KINDS, Message, Section, Spec, zipf_weights


def _distinct(probs: list[float], n: float) -> float:
    return sum(-math.expm1(n * math.log1p(-min(p, 1 - 1e-16))) for p in probs)


def expected_values(section: Section, spec: Spec) -> float:
    """Expected distinct values of the section alone over the spec's requests."""
    n = spec.requests
    sessions = max(1.0, n / spec.mean_turns)
    v = section.vary
    if v.kind == "static":
        return 1.0
    if v.kind == "variants":
        return _distinct(list(v.weights) if v.weights else [1.0 / v.count] * v.count, n)
    if v.kind == "tenant":
        return _distinct(list(spec.tenants.shares), sessions) if spec.tenants else 1.0
    if v.kind == "clock":
        # Never more values than requests: a clock finer than the arrivals is per request.
        return min(float(n), 1.0 + (n / spec.rate) / v.resolution)
    if v.kind == "session":
        return sessions
    if v.kind == "retrieved":
        w = zipf_weights(v.count, v.zipf) if v.zipf is not None else [1.0 / v.count] * v.count
        return _distinct(w, n)
    return float(n)


def recipe(spec: Spec) -> Spec:
    """The spec with its first-turn sections in cache order (conversation appends keep theirs)."""
    placed = [(m.role, s) for m in spec.messages for s in m.sections]
    order = sorted(range(len(placed)), key=lambda i: (expected_values(placed[i][1], spec),
                                                       KINDS.index(placed[i][1].vary.kind), i))
    messages: list[Message] = []
    for i in order:
        role, section = placed[i]
        if messages and messages[-1].role == role:
            messages[-1] = replace(messages[-1], sections=messages[-1].sections + (section,))
        else:
            messages.append(Message(role=role, sections=(section,)))
    # The description told the old order; the recipe's says what it is.
    return replace(spec, name=f"{spec.name}-recipe", messages=tuple(messages),
                   description=f"The sections of '{spec.name}' in advisor's cache order: static first, then what "
                               "varies least, the per-request text last.")


def changes(spec: Spec, reordered: Spec) -> bool:
    """Whether the recipe ``reordered`` (``recipe(spec)``) sends the sections in another
    order than ``spec`` does: `plan` generates and measures its traffic only then."""
    return [s.name for s in spec.sections()] != [s.name for s in reordered.sections()] or any(
        m.shuffle for m in spec.messages)


def order_of(spec: Spec) -> list[dict[str, object]]:
    """The sections in prompt order, as the report lists them."""
    out: list[dict[str, object]] = []
    for m in spec.messages:
        for s in m.sections:
            out.append({"section": s.name, "role": m.role, "vary": s.vary.describe(),
                        "tokens": s.tokens.to_yaml(), "expected_values": round(expected_values(s, spec), 1),
                        **({"shuffled": True} if m.shuffle else {})})
    return out


def to_yaml(spec: Spec) -> str:
    return yaml.safe_dump(spec.to_yaml(), sort_keys=False, allow_unicode=True, width=100)
