"""A workload spec as plain dataclasses: what `advisor spec` validates and generates from."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field, replace
from typing import Any

# Kinds of variability, from least to most varying for a typical workload (the recipe
# sorts by the expected number of distinct values instead; this order breaks ties).
KINDS = ("static", "variants", "tenant", "clock", "session", "retrieved", "request")


MIN_TOKENS = 2


@dataclass(frozen=True)
class Length:
    """A token length: fixed, uniform between ``low`` and ``high``, or normal (rounded, at least
    ``MIN_TOKENS``: a section is some text and the blank line before the next one)."""

    fixed: int | None = None
    low: int | None = None
    high: int | None = None
    mean: float | None = None
    sd: float | None = None
    minimum: int = MIN_TOKENS  # 1 for counts that are not section lengths (turns, output tokens)

    def draw(self, rng: random.Random) -> int:
        if self.fixed is not None:
            return self.fixed
        if self.low is not None and self.high is not None:
            return rng.randint(self.low, self.high)
        assert self.mean is not None and self.sd is not None
        return max(self.minimum, round(rng.gauss(self.mean, self.sd)))

    @property
    def expected(self) -> float:
        if self.fixed is not None:
            return float(self.fixed)
        if self.low is not None and self.high is not None:
            return (self.low + self.high) / 2
        assert self.mean is not None
        return float(self.mean)

    def to_yaml(self) -> Any:
        if self.fixed is not None:
            return self.fixed
        if self.low is not None:
            return {"min": self.low, "max": self.high}
        return {"mean": self.mean, "sd": self.sd}


@dataclass(frozen=True)
class Vary:
    kind: str = "static"
    count: int = 1  # variants, or documents of a retrieval corpus
    weights: tuple[float, ...] | None = None  # variants' weights (None: equal)
    k: int = 1  # passages per request (retrieved)
    zipf: float | None = None  # retrieval popularity exponent (None: uniform)
    resolution: float = 0.0  # seconds (clock)

    def to_yaml(self) -> Any:
        if self.kind in ("static", "tenant", "session", "request"):
            return self.kind
        if self.kind == "variants":
            body: dict[str, Any] = {"count": self.count}
            if self.weights is not None:
                body["weights"] = list(self.weights)
            return {"variants": body}
        if self.kind == "clock":
            return {"clock": {"resolution_seconds": self.resolution}}
        return {"retrieved": {"documents": self.count, "k": self.k,
                              "popularity": "uniform" if self.zipf is None else {"zipf": self.zipf}}}

    def describe(self) -> str:
        if self.kind == "variants":
            return f"one of {self.count} variants"
        if self.kind == "retrieved":
            law = "uniform" if self.zipf is None else f"Zipf {self.zipf:g}"
            return f"{self.k} of {self.count} documents ({law})"
        if self.kind == "clock":
            return f"clock ({self.resolution:g} s)"
        return {"static": "static", "tenant": "per tenant", "session": "per session",
                "request": "per request"}[self.kind]


@dataclass(frozen=True)
class Section:
    name: str
    tokens: Length
    vary: Vary = field(default_factory=Vary)

    def to_yaml(self) -> dict[str, Any]:
        return {"name": self.name, "tokens": self.tokens.to_yaml(), "vary": self.vary.to_yaml()}


@dataclass(frozen=True)
class Message:
    role: str
    sections: tuple[Section, ...]
    shuffle: bool = False  # sections in a random order per request (an unstable assembler)

    def to_yaml(self) -> dict[str, Any]:
        out: dict[str, Any] = {"role": self.role}
        if self.shuffle:
            out["shuffle"] = True
        out["sections"] = [s.to_yaml() for s in self.sections]
        return out


@dataclass(frozen=True)
class Tenants:
    names: tuple[str, ...]
    shares: tuple[float, ...]


@dataclass(frozen=True)
class Conversation:
    turns: Length
    think_seconds: float = 30.0
    append: tuple[Message, ...] = ()


@dataclass(frozen=True)
class Engine:
    name: str = "sglang"
    page_size: int = 1
    tp: int = 1
    kv_dtype: str = "bf16"


@dataclass(frozen=True)
class Spec:
    name: str
    messages: tuple[Message, ...]
    description: str = ""
    requests: int = 1000
    seed: int = 0
    tokenizer: str = "llama3"
    model: str = "llama-3.1-8b"
    gpu: str = "h100"
    engine: Engine = field(default_factory=Engine)
    rate: float = 10.0  # requests per second, Poisson
    timestamps: bool = True  # False: records carry no arrival time (an offline batch)
    tenants: Tenants | None = None
    conversation: Conversation | None = None
    output_tokens: Length = field(default_factory=lambda: Length(fixed=128, minimum=1))

    def sections(self) -> list[Section]:
        out = [s for m in self.messages for s in m.sections]
        if self.conversation:
            out += [s for m in self.conversation.append for s in m.sections]
        return out

    @property
    def mean_turns(self) -> float:
        return self.conversation.turns.expected if self.conversation else 1.0

    def with_requests(self, n: int | None) -> Spec:
        return self if n is None else replace(self, requests=n)

    def to_yaml(self) -> dict[str, Any]:
        """The spec as a plain mapping in the input format (what `plan` reports as "spec")."""
        out: dict[str, Any] = {"name": self.name}
        if self.description:
            out["description"] = self.description
        out.update({"requests": self.requests, "seed": self.seed, "tokenizer": self.tokenizer,
                    "model": self.model, "gpu": self.gpu,
                    "engine": {"name": self.engine.name, "page_size": self.engine.page_size,
                               "tp": self.engine.tp, "kv_dtype": self.engine.kv_dtype},
                    "arrival": {"rate": self.rate, "timestamps": self.timestamps}})
        if self.tenants:
            out["tenants"] = {"names": list(self.tenants.names), "shares": list(self.tenants.shares)}
        if self.conversation:
            conv: dict[str, Any] = {"turns": self.conversation.turns.to_yaml(),
                                    "think_seconds": self.conversation.think_seconds}
            if self.conversation.append:
                conv["append"] = [m.to_yaml() for m in self.conversation.append]
            out["conversation"] = conv
        out["output_tokens"] = self.output_tokens.to_yaml()
        out["messages"] = [m.to_yaml() for m in self.messages]
        return out


def zipf_weights(n: int, s: float) -> list[float]:
    raw = [1.0 / math.pow(r, s) for r in range(1, n + 1)]
    total = sum(raw)
    return [w / total for w in raw]
