"""The lint rules: one module per rule, each with a YAML file of pass/fail cases beside it.

Installed as the package ``advisor.rules``. ``REGISTRY`` is the one explicit table of rules
(no discovery magic): a rule that is not listed here does not exist.
"""

from __future__ import annotations

from advisor.lint.rule import Rule
from advisor.rules import (
    pc001_template_syntax,
    pc002_unsafe_attribute,
    pc101_dynamic_prefix,
    pc102_conditional_prefix,
    pc103_unstable_serialization,
    pc201_section_order,
    pc202_prefix_drift,
    pc301_short_prefix,
    pc401_caller_kwarg,
    pc402_reasoning_history,
    pc403_unstable_tool_set,
    pc404_tool_call_json,
    pc405_last_turn_injection,
    pc501_cache_breakpoint,
    pc901_unused_suppression,
)

_MODULES = (
    pc001_template_syntax,
    pc002_unsafe_attribute,
    pc101_dynamic_prefix,
    pc102_conditional_prefix,
    pc103_unstable_serialization,
    pc201_section_order,
    pc202_prefix_drift,
    pc301_short_prefix,
    pc401_caller_kwarg,
    pc402_reasoning_history,
    pc403_unstable_tool_set,
    pc404_tool_call_json,
    pc405_last_turn_injection,
    pc501_cache_breakpoint,
    pc901_unused_suppression,
)

REGISTRY: dict[str, Rule] = {m.RULE.code: m.RULE for m in _MODULES}


def cases_file(rule: Rule) -> str:
    """The name of the rule's YAML case file inside this package."""
    return rule.module.rsplit(".", 1)[-1] + ".yaml"


def python_cases_file(rule: Rule) -> str:
    """The name of the YAML file of a rule's Python cases (rules that judge Python code
    too); a rule that judges only Python keeps them in its one case file."""
    return rule.module.rsplit(".", 1)[-1] + "_python.yaml"


def find(code_or_name: str) -> Rule | None:
    key = code_or_name.strip()
    for rule in REGISTRY.values():
        if key.upper() == rule.code or key.lower() == rule.name:
            return rule
    return None
