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

# --- Bounds of a spec: whatever `advisor spec check` accepts, `spec generate` and `plan`
# finish on, on the 2-core, 24 GiB machine advisor is sized for. advisor.spec.load enforces
# them (one validation for the three commands) and `advisor spec --schema` states them.

# Tokens of one section, one output, and the longest request (its sections, every earlier
# turn and its output): the largest context window of the catalogued models (DeepSeek-V3's
# max_position_embeddings, 163,840, in ../shared/docs/models.yaml; Llama 3.1 and Qwen2.5
# stop at 131,072). A longer request is one no engine there serves.
MAX_CONTEXT_TOKENS = 163_840
# Requests generated. `plan` replays each one through several simulated pools and schedulers,
# and its serve loop re-sorts the waiting queue at every prefill, so time grows about as the
# square of the requests when small pools queue them (measured: 20,000 requests of ~50
# tokens in 3 minutes, 40,000 in 13, in 320 MB; rag's 10,000 in 100 s). 50,000 requests is
# about 20 minutes at worst on the 2-core machine.
MAX_REQUESTS = 50_000
# Prompt tokens of all generated requests, counting each request at its longest. `plan`
# holds the traffic, its token ids and the radix tree: 36 to 56 bytes per prompt token at
# its peak (measured: 1.9 GB for rag's 10,000 requests, 44 M tokens, in 100 s; 1.8 GB for
# 200 requests of 163,000 tokens, 33 M tokens, in 68 s). 200 M tokens is at most about
# 11 GB, under half of 24 GiB, and about seven minutes on 2 cores.
MAX_TOTAL_TOKENS = 200_000_000
# Values of one section (variants, documents of a retrieval corpus): the recipe and the closed
# form hold one probability per value (8 MB at the bound).
MAX_VALUES = 1_000_000
# Tenants: the advisory lists each one, and its tenant-budget twin gives each a pool.
MAX_TENANTS = 10_000
# Arrival times are epoch seconds from EPOCH (advisor.spec.generate): within 1,000 years they
# stay dates a clock line can write (before year 9999) and read back as seconds (advisor
# takes epochs past 1e12 for milliseconds).
MAX_SPAN_SECONDS = 1000 * 365.25 * 86_400
# One request every 11.6 days: slower arrivals describe no serving workload, and the bound
# keeps each session's gap (think of a long conversation) a finite float.
MIN_RATE = 1e-6
# A clock line shows whole seconds: a finer resolution writes the same text.
MIN_CLOCK_RESOLUTION = 1.0
# Engine pages and tensor parallelism: the bounds of --page-size and --tp
# (advisor/api/bounds.py), which the CLI cannot share with a package below it.
MAX_PAGE_SIZE = 1 << 20
MAX_TP = 1024
# The spec's name names the plan's temporary files (NAME-recipe.described.j2): a file name
# has at most 255 bytes.
MAX_NAME_BYTES = 200
# A normal length is truncated this many standard deviations above its mean (one draw in a
# billion is past it), so a spec's longest request is known before anything is drawn.
NORMAL_TRUNCATION_SD = 6.0


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
        return min(self.largest, max(self.minimum, round(rng.gauss(self.mean, self.sd))))

    @property
    def largest(self) -> int:
        """The most tokens a draw gives (a normal is truncated at ``NORMAL_TRUNCATION_SD``)."""
        if self.fixed is not None:
            return self.fixed
        if self.high is not None:
            return self.high
        assert self.mean is not None and self.sd is not None
        # round(), as draw() rounds: only a draw past the truncation is cut.
        return max(self.minimum, round(self.mean + NORMAL_TRUNCATION_SD * self.sd))

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

    def longest_request(self) -> int:
        """The most tokens one request can hold: its sections at their longest (each passage of
        a retrieval), and for the last turn of the longest conversation every earlier answer
        and appended message, plus its own output. The chat layout's few tokens per message
        and the blank lines between sections are not counted."""
        first = sum(_longest(m) for m in self.messages)
        if self.conversation is None:
            return first + self.output_tokens.largest
        turn = self.output_tokens.largest + sum(_longest(m) for m in self.conversation.append)
        return first + (self.conversation.turns.largest - 1) * turn + self.output_tokens.largest

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


def _longest(message: Message) -> int:
    return sum(s.tokens.largest * (s.vary.k if s.vary.kind == "retrieved" else 1) for s in message.sections)


def zipf_weights(n: int, s: float) -> list[float]:
    raw = [1.0 / math.pow(r, s) for r in range(1, n + 1)]
    total = sum(raw)
    return [w / total for w in raw]
