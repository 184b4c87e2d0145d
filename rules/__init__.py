"""The rules: one module per rule, each with a YAML file of cases beside it.

Installed as the package ``advisor.rules``. Two explicit tables (no discovery magic): a rule
that is not listed here does not exist.

- ``REGISTRY``: the lint rules (PC codes), each module declaring ``RULE = Rule(...)`` with a
  ``check`` over the template model; their pass/fail cases in ``<module>.yaml``.
- ``TRAFFIC_MODULES``: the traffic rules (TR codes), each module's docstring its
  documentation and ``CODE``, ``NAME``, ``SEVERITY``, ``SUMMARY`` its identity, with no
  detection and no imports (``advisor.findings.TRAFFIC_RULES`` is built from them; the
  diagnosis is one algorithm in ``advisor.diagnose``); their cases, traffic logs with the
  findings expected, in ``<module>.yaml`` (run by tests/test_traffic_rule_cases.py).

``advisor.findings`` imports this package on every traffic command, so importing it loads
only the traffic modules: the lint rules (and Jinja2 under them) load when ``REGISTRY`` is
first read (PEP 562's module ``__getattr__``).
"""

from __future__ import annotations

import functools
import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from advisor.lint.rule import Rule

    REGISTRY: dict[str, Rule]

# The traffic rules' modules, in code order; imported here (small, no imports of their own):
# advisor.findings builds TRAFFIC_RULES from them on every command.
TRAFFIC_MODULES = tuple(importlib.import_module(f"{__name__}.{name}") for name in (
    "tr101_dynamic_content", "tr102_misplaced_content", "tr103_template_layout", "tr104_unstable_spelling",
    "tr201_section_order",
    "tr301_low_reuse", "tr401_capacity_pressure", "tr501_tenant_starvation", "tr601_cache_granularity",
))


# The lint rules' modules, in code order ("two explicit tables": one not listed does not exist).
LINT_MODULES = (
    "pc001_template_syntax", "pc002_unsafe_attribute", "pc101_dynamic_prefix", "pc102_conditional_prefix",
    "pc103_unstable_serialization", "pc201_section_order", "pc202_prefix_drift", "pc301_short_prefix",
    "pc401_caller_kwarg", "pc402_reasoning_history", "pc403_unstable_tool_set", "pc404_tool_call_json",
    "pc405_last_turn_injection", "pc501_cache_breakpoint", "pc901_unused_suppression",
)


@functools.cache
def _lint_registry() -> dict[str, Rule]:
    modules = [importlib.import_module(f"{__name__}.{name}") for name in LINT_MODULES]
    return {m.RULE.code: m.RULE for m in modules}


def __getattr__(name: str) -> Any:
    if name == "REGISTRY":
        return _lint_registry()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def cases_file(rule: Rule) -> str:
    """The name of the rule's YAML case file inside this package."""
    return rule.module.rsplit(".", 1)[-1] + ".yaml"


def python_cases_file(rule: Rule) -> str:
    """The name of the YAML file of a rule's Python cases (rules that judge Python code
    too); a rule that judges only Python keeps them in its one case file."""
    return rule.module.rsplit(".", 1)[-1] + "_python.yaml"


def traffic_cases_file(module: Any) -> str:
    """The name of a traffic rule's YAML case file inside this package."""
    return module.__name__.rsplit(".", 1)[-1] + ".yaml"


def find(code_or_name: str) -> Rule | None:
    key = code_or_name.strip()
    for rule in _lint_registry().values():
        if key.upper() == rule.code or key.lower() == rule.name:
            return rule
    return None
