"""What one engine can reuse of a shared prefix on one model: the cache geometry.

A full-attention model reuses any prefix it has seen, rounded down to its page or block.
Models with other layer kinds do not (``../shared/docs/ARCHITECTURES.md``): a sliding-window
layer needs the last window before the hit cached, a linear-attention or state-space layer
needs its state *after exactly* the hit's tokens, and the engines keep such states only at
chosen positions. ``CacheGeometry`` is that model of the engine, as plain numbers the index
and the simulator read; ``advisor.cost.layout`` derives it from a model's config.

Kinds of cache group (one per layer kind the model has, as vLLM groups its layers):

- ``full``: every block of every prompt is kept (full attention, MLA, chunked local attention,
  and any layer kind an engine caches densely);
- ``sliding``: a hit at ``b`` needs the ``window`` tokens before ``b`` cached;
- ``state``: a hit at ``b`` needs a state stored at exactly ``b``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

GROUP_KINDS = ("full", "sliding", "state")


@dataclass(frozen=True)
class CacheGroup:
    """One kind of layer as the cache sees it."""

    kind: str
    window: int = 0  # sliding: the window in tokens (a hit needs window - 1 tokens before it)
    layers: int = 0  # how many of the model's layers are of this kind (for the report)

    def __post_init__(self) -> None:
        if self.kind not in GROUP_KINDS:
            raise ValueError(f"unknown cache group kind {self.kind!r}")
        if self.kind == "sliding" and self.window < 1:
            raise ValueError("a sliding group needs a window of at least one token")


@dataclass(frozen=True)
class CacheGeometry:
    """How one engine turns a shared prefix into hit tokens on one model.

    ``engine``: ``none`` (analyze's definition: the longest shared prefix rounded to
    ``block``), ``vllm`` or ``sglang``. ``block``: vLLM's block (the hybrid block where
    a state layer raises it) or SGLang's page, the unit a hit is counted in. ``grid``: where
    an engine stores states on a prefill (SGLang's Mamba checkpoint grid; vLLM stores them on
    block boundaries, ``grid == block``). ``retention``: vLLM's
    ``prefix_cache_retention_interval`` for the windowed and state groups of a hybrid (0:
    only the prompt's replay boundary and detected junctions; ``None``: every block).
    ``rule``: the engine version the rules follow, shown in reports.
    """

    engine: str = "none"
    block: int = 1
    groups: tuple[CacheGroup, ...] = (CacheGroup("full"),)
    grid: int = 0
    retention: int | None = 0
    # The block the same engine would use were every layer full attention (vLLM 16, SGLang's
    # page): what the report compares the model's hits with.
    plain_block: int = 0
    # SGLang's ``--mamba-radix-cache-strategy``: ``extra_buffer`` (its default with overlap
    # scheduling) tracks a state on the checkpoint grid; ``no_buffer`` keeps the one after the
    # whole prompt.
    mamba_strategy: str = "extra_buffer"
    rule: str = ""
    granularity_note: str = ""

    def __post_init__(self) -> None:
        if self.block < 1:
            raise ValueError("a cache block holds at least one token")
        if not self.groups:
            raise ValueError("a cache geometry needs at least one group")

    @property
    def sparse_groups(self) -> tuple[CacheGroup, ...]:
        return tuple(g for g in self.groups if g.kind != "full")

    @property
    def is_dense(self) -> bool:
        """Every shared prefix is reusable (rounded to the block): the radix tree alone answers."""
        return not self.sparse_groups

    @property
    def full_attention_block(self) -> int:
        return self.plain_block or self.block

    @property
    def checkpoint_grid(self) -> int:
        return self.grid or self.block

    @property
    def capped(self) -> bool:
        """Both engines recompute at least the last prompt token (REFERENCE §1.3, §2.3)."""
        return self.engine != "none"


def lcm_all(values: list[int]) -> int:
    out = 1
    for v in values:
        out = out * v // math.gcd(out, v)
    return out


FULL_ATTENTION = CacheGeometry()
