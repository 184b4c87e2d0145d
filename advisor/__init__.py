"""advisor: prompt-template linter and KV-cache advisor for LLM serving.

The Python API is ``advisor.api`` (docs/api.md): ``analyze``, ``prescribe``, ``simulate``,
``cost`` and ``report``. ``advisor.analyze``, the result classes and ``advisor.api`` are
re-exported here, loaded on first use so that ``import advisor`` (and the command line)
stays as fast as before. ``prescribe``, ``simulate``, ``cost`` and ``report`` are not: those
names are advisor's stage packages (``advisor.simulate``, ...); import them from
``advisor.api``.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing itself is not imported: `import advisor` stays free
if TYPE_CHECKING:
    from typing import Any

__version__ = "0.1.0"

# Public name -> the module that defines it (imported by name, on first use).
_LAZY = {
    "analyze": "advisor.api.analysis",
    "AnalyzeResult": "advisor.api.analysis",
    "PrescribeResult": "advisor.api.prescription",
    "SimulateResult": "advisor.api.simulation",
    "CostResult": "advisor.api.costing",
    "ReportResult": "advisor.api.advisory",
    "Records": "advisor.ingest.traffic",
}


def __getattr__(name: str) -> Any:
    """The API's names, imported on first use."""
    import importlib

    if name == "api":
        return importlib.import_module("advisor.api")
    module = _LAZY.get(name)
    if module is None:
        hint = f" (the function is advisor.api.{name})" if name in ("prescribe", "simulate", "cost", "report") else ""
        raise AttributeError(f"module 'advisor' has no attribute {name!r}{hint}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # found once; later lookups do not come here
    return value


def __dir__() -> list[str]:
    """The module's names, the lazily imported ones too."""
    return sorted(set(globals()) | set(_LAZY) | {"api"})
