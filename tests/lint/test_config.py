"""Configuration: discovery, validation against rule options, select/ignore, exclude."""

from __future__ import annotations


import pytest

from advisor.errors import AdvisorError
from advisor.lint import config, engine
from advisor.rules import REGISTRY


def parse(table):
    return config.parse(table, "test", REGISTRY)


def test_defaults_select_every_rule_with_default_severity():
    active = config.active_rules(config.LintConfig(), REGISTRY)
    assert [a.rule.code for a in active] == sorted(REGISTRY)
    assert all(a.severity == a.rule.severity for a in active)


def test_select_by_prefix_name_and_ignore():
    cfg = parse({"select": ["PC1", "short-prefix"], "ignore": ["PC103"]})
    assert [a.rule.code for a in config.active_rules(cfg, REGISTRY)] == ["PC101", "PC102", "PC301"]


def test_rule_severity_and_options_are_applied():
    cfg = parse({"rules": {"dynamic-prefix": {"severity": "warning", "min-tokens-at-risk": 5}}})
    active = {a.rule.code: a for a in config.active_rules(cfg, REGISTRY)}
    assert active["PC101"].severity == "warning"
    assert active["PC101"].options["min_tokens_at_risk"] == 5


@pytest.mark.parametrize(
    "table, named",
    [
        ({"selct": ["PC101"]}, "selct"),
        ({"select": ["PC999"]}, "PC999"),
        ({"rules": {"PC101": {"min_tokens": 1}}}, "min_tokens"),
        ({"rules": {"PC101": {"min_tokens_at_risk": "many"}}}, "min_tokens_at_risk"),
        ({"rules": {"PC101": {"severity": "fatal"}}}, "severity"),
        ({"rules": {"nope": {}}}, "nope"),
        ({"exclude": "ok", "fail_on": "sometimes"}, "fail_on"),
        ({"section_markers": ["("]}, "section_markers"),
        ({"lint": {"ignore": 3}}, "ignore"),
    ],
)
def test_invalid_settings_name_the_key(table, named):
    with pytest.raises(AdvisorError) as err:
        parse(table)
    assert named in str(err.value)


def test_lint_subtable_and_other_commands_tables(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        "[tool.advisor]\nselect = ['PC1']\n[tool.advisor.lint]\nignore = ['PC103']\n[tool.advisor.analyze]\npage-size = 16\n"
    )
    cfg = config.resolve(None, False, tmp_path, REGISTRY)
    assert cfg.select == ("PC1",) and cfg.ignore == ("PC103",)


def test_discovery_walks_up_and_prefers_advisor_yaml(tmp_path):
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    (tmp_path / "pyproject.toml").write_text("[tool.advisor]\nignore = ['PC301']\n")
    assert config.resolve(None, False, deep, REGISTRY).ignore == ("PC301",)
    (tmp_path / "a" / ".advisor.yaml").write_text("ignore: [PC201]\n")
    assert config.resolve(None, False, deep, REGISTRY).ignore == ("PC201",)
    assert config.resolve(None, True, deep, REGISTRY) == config.LintConfig()


def test_pyproject_without_advisor_table_is_skipped(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    assert config.discover(tmp_path) is None or config.discover(tmp_path) != tmp_path / "pyproject.toml"


def test_exclude_globs(tmp_path, counter):
    (tmp_path / "keep.j2").write_text("Now: {{ now }}\nHello there, friend.\n")
    (tmp_path / "legacy").mkdir()
    (tmp_path / "legacy" / "old.j2").write_text("Now: {{ now }}\nHello there, friend.\n")
    (tmp_path / "draft.tmp.j2").write_text("Now: {{ now }}\nHello there, friend.\n")
    cfg = parse({"exclude": ["legacy", "*.tmp.j2"]})
    result = engine.lint_files([str(tmp_path)], cfg, REGISTRY, counter, cwd=tmp_path)
    assert result.files == ["keep.j2"]


def test_static_and_dynamic_variables_settings(counter):
    text = "{{ persona }}\n" + "Follow the support policy exactly and cite the policy section you used in every answer. " * 3 + "\n"
    base = engine.lint_texts({"a.j2": text}, parse({"select": ["PC101"]}), REGISTRY, counter)
    assert [f.code for f in base.findings] == ["PC101"]
    static = engine.lint_texts({"a.j2": text}, parse({"select": ["PC101"], "static_variables": ["persona"]}), REGISTRY, counter)
    assert static.findings == []
    tools = "{{ tools | tojson }}\n" + text.split("\n", 1)[1]
    dynamic = engine.lint_texts({"a.j2": tools}, parse({"select": ["PC101"], "dynamic_variables": ["tools"]}), REGISTRY, counter)
    assert [f.code for f in dynamic.findings] == ["PC101"]


def test_section_markers(counter):
    cfg = parse({"select": ["PC201"], "section_markers": [r"^=== (\w+) ===$"]})
    files = {
        "s/a.j2": "=== RULES ===\nx\n=== EXAMPLES ===\ny\n",
        "s/b.j2": "=== RULES ===\nx\n=== EXAMPLES ===\ny\n",
        "s/c.j2": "=== EXAMPLES ===\ny\n=== RULES ===\nx\n",
    }
    found = engine.lint_texts(files, cfg, REGISTRY, counter).findings
    assert [(f.path, f.line) for f in found] == [("s/c.j2", 3)]


@pytest.mark.parametrize(
    "name, text",
    [(".advisor.yaml", "select: [PC101\n"), ("pyproject.toml", "[tool.advisor\nselect = 1\n"), (".advisor.yaml", "- just\n- a list\n")],
)
def test_unparsable_config_files_are_errors(tmp_path, name, text):
    (tmp_path / name).write_text(text)
    with pytest.raises(AdvisorError) as err:
        config.load_file(tmp_path / name, REGISTRY)
    assert name in str(err.value)


def test_missing_explicit_config_is_an_error(tmp_path):
    with pytest.raises(AdvisorError, match="config file not found"):
        config.resolve(str(tmp_path / "nope.yaml"), False, tmp_path, REGISTRY)


def test_target_names_the_cache_and_is_checked():
    assert config.LintConfig().target == "sglang"
    assert parse({"target": "anthropic-4096"}).target == "anthropic-4096"
    assert parse({"lint": {"target": "vllm"}}).target == "vllm"
    with pytest.raises(AdvisorError, match="'target' must be one of sglang, vllm, openai"):
        parse({"target": "tgi"})


def test_a_configured_severity_caps_the_rules_own_bands(counter):
    # PC101 grades by tokens at risk; the configured severity stays the ceiling.
    text = "Hello {{ customer }}\n" + "Follow the support policy exactly and answer in short numbered steps. " * 40 + "\n"
    loud = engine.lint_texts({"a.j2": text}, parse({"select": ["PC101"]}), REGISTRY, counter).findings
    capped = engine.lint_texts({"a.j2": text}, parse({"select": ["PC101"], "rules": {"PC101": {"severity": "warning"}}}),
                               REGISTRY, counter).findings
    assert [f.severity for f in loud] == ["error"] and [f.severity for f in capped] == ["warning"]
