"""advisor's Python API: the commands' pipeline as typed functions (docs/api.md).

``analyze``, ``prescribe``, ``simulate``, ``cost`` and ``report`` take what the commands
take (traffic as a path, a list of paths, or records: dicts of the shapes a JSONL file
holds) and return results whose ``data`` is the command's ``--format json``. The commands in
``advisor/commands/`` are a layer over these functions: they parse options, call them and
render the result.

Each function lives in its own module and is imported on first use, so that a command (or
``import advisor``) pays only for the stages it runs.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from advisor.api.advisory import ReportResult, report
    from advisor.api.analysis import AnalyzeResult, analyze
    from advisor.api.costing import CostResult, cost
    from advisor.api.prescription import PrescribeResult, prescribe
    from advisor.api.simulation import SimulateResult, simulate
    from advisor.api.sources import Result, Traffic
    from advisor.ingest.traffic import Records, Skip

# Public name -> the module that defines it.
EXPORTS = {
    "analyze": "advisor.api.analysis", "AnalyzeResult": "advisor.api.analysis",
    "prescribe": "advisor.api.prescription", "PrescribeResult": "advisor.api.prescription",
    "simulate": "advisor.api.simulation", "SimulateResult": "advisor.api.simulation",
    "cost": "advisor.api.costing", "CostResult": "advisor.api.costing",
    "report": "advisor.api.advisory", "ReportResult": "advisor.api.advisory",
    "Result": "advisor.api.sources", "Traffic": "advisor.api.sources",
    "Records": "advisor.ingest.traffic", "Skip": "advisor.ingest.traffic",
}

__all__ = ["AnalyzeResult", "CostResult", "PrescribeResult", "Records", "ReportResult", "Result", "SimulateResult",
           "Skip", "Traffic", "analyze", "cost", "prescribe", "report", "simulate"]


def __getattr__(name: str) -> Any:
    """The API's names, each imported from its module on first use."""
    module = EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'advisor.api' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # found once; later lookups do not come here
    return value


def __dir__() -> list[str]:
    """The module's names, the lazily imported ones too."""
    return sorted(set(globals()) | set(__all__))
