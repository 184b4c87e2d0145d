"""``cost``: the HBM and prefill cost of a shared prefix on a model and GPU."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from advisor.api.checks import checked
from advisor.api.bounds import check_options
from advisor.api.sources import Result
from advisor.cost import (
    DEFAULT_BANDWIDTH_UTIL, DEFAULT_MFU, ENGINES, KV_DTYPE_BYTES, CostEstimate, estimate_cost, resolve_gpu,
    resolve_model,
)
from advisor.errors import AdvisorError
from advisor.report.notebook import cost_html


@dataclass
class CostResult(Result):
    """The estimate: ``data`` is ``advisor cost --format json``; ``estimate`` the
    ``CostEstimate`` it is made from (every figure, with its sources)."""

    estimate: CostEstimate = field(kw_only=True)

    @property
    def kv_bytes_per_token(self) -> int:
        """KV bytes of one token across the tensor-parallel group."""
        return int(self.data["kv_bytes_per_token"])

    @property
    def kv_pool_tokens(self) -> int:
        """Tokens the engine's KV pool holds (0 when the weights do not fit)."""
        return int(self.data["kv_pool_tokens"])

    @property
    def prefix_bytes(self) -> int:
        """Resident bytes of the shared prefix as one radix branch."""
        return int(self.data["prefix_bytes"])

    @property
    def prefill_seconds_saved_per_hit(self) -> float:
        """Prefill time one hit on the prefix saves."""
        return float(self.data["prefill_seconds_saved_per_hit"])

    @property
    def weights_fit(self) -> bool:
        """Whether the weights leave room for a KV pool at this tensor-parallel degree."""
        return bool(self.data["weights_fit"])

    def _json(self) -> str:
        return json.dumps(self.data, indent=2, sort_keys=True) + "\n"

    def _repr_html_(self) -> str:
        return cost_html(self.data)


def _choice(value: str, allowed: tuple[str, ...], option: str) -> str:
    value = value.lower()
    if value not in allowed:
        raise AdvisorError(f"{option} must be one of {', '.join(allowed)} (got {value!r})")
    return value


@checked
def cost(
    model: str | None = None,
    gpu: str | None = None,
    *,
    tp: int = 1,
    kv_dtype: str = "bf16",
    prefix_tokens: int = 0,
    batch: int = 1,
    unique_tokens: int = 0,
    engine: str = "sglang",
    mem_fraction: float | None = None,
    mfu: float = DEFAULT_MFU,
    weight_dtype: str | None = None,
    bandwidth_util: float = DEFAULT_BANDWIDTH_UTIL,
    model_dir: str | Path | None = None,
) -> CostResult:
    """The HBM cost of a shared prefix (KV bytes, pool share, a batch with and without sharing)
    and the prefill a hit saves, for ``model`` (a catalog name or a config.json path; or the
    config.json of ``model_dir``) on ``gpu``. The options are ``advisor cost``'s, with its
    defaults. Raises ``AdvisorError`` with the command's one-line messages."""
    check_options(tp=tp)
    if model is None and model_dir is not None:
        from advisor.ingest.model_dir import config_of

        folder = Path(model_dir)
        found = config_of(folder)  # checked, and confined to the folder wherever it is read
        if found is None:
            raise AdvisorError(f"{folder}: no config.json in the model folder")
        model = str(found)
    if not model or not gpu:
        raise AdvisorError("advisor cost needs --model and --gpu (advisor cost --list shows the catalog)")
    estimate = estimate_cost(
        resolve_model(model),
        resolve_gpu(gpu),
        tp=tp,
        kv_dtype=_choice(kv_dtype, tuple(KV_DTYPE_BYTES), "--kv-dtype"),
        prefix_tokens=prefix_tokens,
        batch=batch,
        unique_tokens=unique_tokens,
        engine=_choice(engine, ENGINES, "--engine"),
        mem_fraction=mem_fraction,
        mfu=mfu,
        weight_dtype=weight_dtype,
        bandwidth_util=bandwidth_util,
    )
    return CostResult(estimate.to_dict(), estimate=estimate)
