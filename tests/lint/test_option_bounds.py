"""Rule options carry their bounds in their declaration, checked by one function (issue 34):
a negative threshold or a count that means nothing is an error naming the key and the bound,
never a setting silently taken."""

from __future__ import annotations

import pytest

from advisor.errors import AdvisorError
from advisor.lint import config
from advisor.lint.rule import Option
from advisor.rules import REGISTRY


def parse(table):
    return config.parse(table, "cfg", REGISTRY)


@pytest.mark.parametrize("rule,option,value,words", [
    ("PC301", "min_tokens", -5, "must be at least 0, not -5"),
    ("PC202", "max_lines", -1, "must be at least 1, not -1"),
    ("PC202", "max_lines", 0, "must be at least 1, not 0"),
    ("PC201", "min_templates", 0, "must be at least 2, not 0"),
    ("PC201", "min_templates", 1, "must be at least 2, not 1"),
    ("PC102", "min_tokens_at_risk", -1, "must be at least 0, not -1"),
    ("PC101", "min_tokens_at_risk", -32, "must be at least 0, not -32"),
    ("PC202", "min_tokens_after", -64, "must be at least 0, not -64"),
])
def test_out_of_bounds_option_values_are_refused(rule, option, value, words):
    with pytest.raises(AdvisorError) as info:
        parse({"rules": {rule: {option: value}}})
    assert str(info.value) == f"cfg: rules.{rule}.{option} {words}"


@pytest.mark.parametrize("rule,option,value", [
    ("PC301", "min_tokens", 0), ("PC202", "max_lines", 1), ("PC201", "min_templates", 2),
    ("PC101", "min_tokens_at_risk", 0),
])
def test_values_at_the_bound_are_taken(rule, option, value):
    cfg = parse({"rules": {rule: {option: value}}})
    active = {a.rule.code: a for a in config.active_rules(cfg, REGISTRY)}
    assert active[rule].options[option] == value


def test_every_default_is_within_its_own_bounds():
    for rule in REGISTRY.values():
        for name, option in rule.options.items():
            assert option.problem(option.default) is None, (rule.code, name)


def test_one_check_for_type_and_bounds():
    opt = Option(float, 0.5, "a fraction", minimum=0, maximum=1)
    assert opt.problem(1.5) == "must be at most 1, not 1.5"
    assert opt.problem(float("nan")) == "must be of type float, not nan"
    assert opt.problem(True) == "must be of type float, not True"
    assert opt.problem(1) is None and opt.check(0.25)
    assert Option(list, [], "names").problem(["a", "b"]) is None


def test_config_file_with_a_bad_option_exits_2(cli, tmp_path, monkeypatch):
    (tmp_path / "a.j2").write_text("Hello {{ x }}\n")
    (tmp_path / ".advisor.yaml").write_text("rules:\n  short-prefix:\n    min_tokens: -5\n")
    monkeypatch.chdir(tmp_path)
    res = cli("lint", "a.j2")
    assert res.code == 2, res.err
    assert res.err.strip() == ("advisor: error: " + str(tmp_path / ".advisor.yaml")
                               + " config: rules.short-prefix.min_tokens must be at least 0, not -5")
