"""The shared YAML loader's bounds (issue 34): nesting depth, keys given twice (when a caller
asks), tags without a safe constructor refused by the node reader as by the data reader, and
values Python cannot hold. Each refusal is a YAML error with a line, never a RecursionError or
a ValueError traceback; and a YAML prompt file with a custom tag is refused alike, in the same
words at the same line, by the linter and by the renderer (analyze, render)."""

from __future__ import annotations

import json

import pytest
import yaml

from advisor.ingest import safe_yaml

DEEP = "messages: " + "[" * 50_000 + "]" * 50_000 + "\n"
DEEP_BLOCK = "".join("  " * i + f"k{i}:\n" for i in range(150)) + "  " * 150 + "v: 1\n"


@pytest.mark.parametrize("read", [safe_yaml.safe_load, safe_yaml.safe_compose])
@pytest.mark.parametrize("text,line", [(DEEP, 1), (DEEP_BLOCK, 100)])
def test_deep_nesting_is_a_yaml_error_with_a_line(read, text, line):
    with pytest.raises(safe_yaml.YAMLError) as info:
        read(text)
    assert safe_yaml.error_reason(info.value) == f"nested more than {safe_yaml.MAX_DEPTH} levels deep"
    assert safe_yaml.error_line(info.value) == line


def test_nesting_up_to_the_bound_loads():
    text = "".join("  " * i + f"k{i}:\n" for i in range(safe_yaml.MAX_DEPTH - 2)) + "  " * (safe_yaml.MAX_DEPTH - 2) + "v: 1\n"
    assert safe_yaml.safe_load(text) == yaml.safe_load(text)


def test_duplicate_keys_refused_when_asked_and_last_wins_otherwise():
    text = "a: 1\nb: {x: 1, y: 2}\nb: 3\n"
    with pytest.raises(safe_yaml.YAMLError) as info:
        safe_yaml.safe_load(text, unique_keys=True)
    assert safe_yaml.error_reason(info.value) == "duplicate key 'b' (first given on line 2)"
    assert safe_yaml.error_line(info.value) == 3
    # The other callers (lint config, catalog, prompt files) keep YAML's own reading.
    assert safe_yaml.safe_load(text) == yaml.safe_load(text) == {"a": 1, "b": 3}
    # A merge key and the keys it brings in are no duplicates.
    merged = "base: &b {x: 1}\nc:\n  <<: *b\n  x: 2\n"
    assert safe_yaml.safe_load(merged, unique_keys=True) == {"base": {"x": 1}, "c": {"x": 2}}


@pytest.mark.parametrize("tag", ["!include rules.txt", "!!python/object:os.system echo", "!Ref x"])
def test_custom_tags_refused_by_both_readers_alike(tag):
    text = f"messages:\n  - role: system\n    content: {tag}\n"
    errors = []
    for read in (safe_yaml.safe_load, safe_yaml.safe_compose):
        with pytest.raises(safe_yaml.YAMLError) as info:
            read(text)
        errors.append((safe_yaml.error_line(info.value), safe_yaml.error_reason(info.value)))
    assert errors[0] == errors[1]
    assert errors[0][0] == 3 and "could not determine a constructor for the tag" in errors[0][1]


def test_standard_tags_still_compose_and_load():
    text = "a: !!str 5\nb: !!binary aGk=\nc: !!set {x}\nd: ! plain\nbase: &b {k: 1}\ne: {<<: *b}\n"
    assert safe_yaml.safe_compose(text) is not None
    assert safe_yaml.safe_load(text) == yaml.safe_load(text)


@pytest.mark.parametrize("text,line,words", [
    ("a: 1\nn: " + "7" * 5000 + "\n", 2, "as a whole number"),
    ("when: 2001-13-01\n", 1, "as a date (month must be in 1..12)"),
])
def test_values_python_cannot_hold_are_yaml_errors(text, line, words):
    with pytest.raises(safe_yaml.YAMLError) as info:
        safe_yaml.safe_load(text)
    assert safe_yaml.error_line(info.value) == line and words in safe_yaml.error_reason(info.value)


def test_lint_config_with_a_huge_number_is_one_line(cli, tmp_path, monkeypatch):
    (tmp_path / "a.j2").write_text("Hello {{ x }}\n")
    (tmp_path / ".advisor.yaml").write_text("rules:\n  PC301:\n    min_tokens: " + "9" * 5000 + "\n")
    monkeypatch.chdir(tmp_path)
    res = cli("lint", "a.j2")
    assert res.code == 2 and len(res.err.strip().splitlines()) == 1, res.err
    assert ".advisor.yaml:3: invalid YAML" in res.err and "Traceback" not in res.err


@pytest.mark.parametrize("content", ["!include rules.txt", "!!python/object/apply:os.system [id]"])
def test_lint_and_render_agree_on_a_custom_tag(cli, tmp_path, content):
    """Before, the linter read the tagged node's text as a template (and passed the file)
    while the renderer refused the message: two readings of one file."""
    folder = tmp_path / "prompts"
    folder.mkdir()
    (folder / "p.yaml").write_text(
        f"messages:\n  - role: system\n    content: {content}\n  - role: user\n    content: \"{{{{ q }}}}\"\n")
    lint = cli("lint", "--isolated", "--format", "json", folder / "p.yaml")
    assert lint.code == 1, lint.err
    findings = json.loads(lint.out)
    findings = findings if isinstance(findings, list) else findings.get("findings", [])
    [parse] = [f for f in findings if f["code"] == "PC001"]
    traffic = tmp_path / "t.jsonl"
    traffic.write_text(json.dumps({"template": "p", "variables": {"q": "hi"}}) + "\n")
    render = cli("render", traffic, "--templates", folder)
    reason = render.out + render.err
    assert "skipped" in reason
    # The same line, the same words: "invalid YAML (could not determine a constructor ...)".
    words = reason[reason.index("invalid YAML ("):].splitlines()[0]
    assert parse["line"] == 3 and f"p.yaml:{parse['line']}: invalid YAML (" in reason
    assert parse["message"].endswith(words)
