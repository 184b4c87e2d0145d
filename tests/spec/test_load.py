"""Spec validation: one-line errors naming the file, line and key path, exit 2; the schema."""

from __future__ import annotations

import json

import jsonschema
import pytest
import yaml

from advisor.spec.load import EXAMPLES, SpecError, example_path, parse_spec
from advisor.spec.schema import SCHEMA

GOOD = """\
name: t
tenants: {count: 2, shares: [0.5, 0.5]}
messages:
  - role: system
    sections:
      - {name: rules, tokens: 100}
      - {name: brand, tokens: 10, vary: tenant}
  - role: user
    sections:
      - name: docs
        tokens: 50
        vary: {retrieved: {documents: 10, k: 2}}
      - {name: q, tokens: {min: 5, max: 9}, vary: request}
"""

# (edit of GOOD, key path the error must name, line it must name, words of the reason)
BAD = [
    (("      - {name: rules, tokens: 100}", "      - {name: rules, tokens: 100, colour: red}"),
     "messages[0].sections[0].colour", 6, "unknown key"),
    (("name: t", "name: t\nrequest: 5"), "request", 2, "unknown key"),
    (("      - {name: rules, tokens: 100}", "      - {name: rules, tokens: -100}"),
     "messages[0].sections[0].tokens", 6, "negative"),
    (("{min: 5, max: 9}", "{min: -5, max: 9}"), "messages[1].sections[1].tokens.min", 13, "negative"),
    (("shares: [0.5, 0.5]", "shares: [0.5, 0.4]"), "tenants.shares", 2, "sum to 1"),
    (("k: 2}", "k: 11}"), "messages[1].sections[0].vary.retrieved.k", 12, "larger than the corpus"),
    (("vary: tenant", "vary: tenantly"), "messages[0].sections[1].vary", 7, "unknown variability"),
    (("{name: q,", "{name: rules,"), "messages[1].sections[1].name", 13, "duplicate section name"),
    (("role: user", "role: robot"), "messages[1].role", 8, "unknown role"),
    (("tokens: 50", "tokens: 0"), "messages[1].sections[0].tokens", 11, "at least 2"),
    (("tokens: 50", "tokens: many"), "messages[1].sections[0].tokens", 11, "whole number"),
    (("name: t\n", ""), "spec", 1, "missing required key 'name'"),
]


def _bad(edit):
    old, new = edit
    assert old in GOOD
    return GOOD.replace(old, new, 1)


def test_good_spec_loads():
    spec = parse_spec(GOOD, "t.yaml")
    assert [s.name for s in spec.sections()] == ["rules", "brand", "docs", "q"]
    assert spec.tenants and spec.tenants.names == ("tenant-1", "tenant-2")


@pytest.mark.parametrize("edit,path,line,words", BAD)
def test_bad_spec_one_line_error(edit, path, line, words):
    with pytest.raises(SpecError) as info:
        parse_spec(_bad(edit), "t.yaml")
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"t.yaml:{line}: {path}: "), message
    assert words in message


@pytest.mark.parametrize("edit,path,line,words", BAD)
def test_bad_spec_cli_exit_2(cli, tmp_path, edit, path, line, words):
    f = tmp_path / "bad.yaml"
    f.write_text(_bad(edit))
    for args in (("plan", f), ("spec", "generate", f, "-o", tmp_path / "out.jsonl"), ("spec", "check", f)):
        res = cli(*args)
        assert res.code == 2, (args, res.err)
        lines = res.err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"advisor: error: {f}:{line}: {path}: "), res.err
        assert "Traceback" not in res.err and res.out == ""
    assert not (tmp_path / "out.jsonl").exists()


def test_yaml_syntax_error_names_the_line(cli, tmp_path):
    f = tmp_path / "broken.yaml"
    f.write_text(GOOD.replace("  - role: user", "  - role: [user"))
    res = cli("spec", "check", f)
    assert res.code == 2 and res.err.startswith(f"advisor: error: {f}:") and len(res.err.strip().splitlines()) == 1


def test_missing_file_and_example(cli, tmp_path):
    res = cli("plan", tmp_path / "nope.yaml")
    assert res.code == 2 and "spec file not found" in res.err
    res = cli("plan", "--example", "chatbot")
    assert res.code == 2 and "unknown example 'chatbot'" in res.err
    res = cli("plan")
    assert res.code == 2 and "give a spec file or --example" in res.err


def test_schema_printed_valid_and_agrees_with_the_loader(cli):
    res = cli("spec", "--schema")
    assert res.code == 0
    printed = json.loads(res.out)
    assert printed == SCHEMA
    jsonschema.Draft202012Validator.check_schema(printed)
    validator = jsonschema.Draft202012Validator(printed)
    for name in EXAMPLES:
        data = yaml.safe_load(example_path(name).read_text())
        assert not list(validator.iter_errors(data)), name
    assert not list(validator.iter_errors(yaml.safe_load(GOOD)))
    # What a schema can say (unknown keys, negative or zero lengths, unknown names), it says too.
    for edit, _path, _line, words in BAD:
        if words in ("unknown key", "negative", "unknown variability", "unknown role", "at least 2",
                     "whole number", "missing required key 'name'"):
            assert list(validator.iter_errors(yaml.safe_load(_bad(edit)))), edit


def test_spec_round_trips_through_its_yaml():
    spec = parse_spec(GOOD, "t.yaml")
    again = parse_spec(yaml.safe_dump(spec.to_yaml()), "again.yaml")
    assert again == spec


@pytest.mark.parametrize("content,words", [
    (b"", "spec: must be a mapping"),
    (b"- just\n- a list\n", "spec: must be a mapping"),
    (b"name: t\nmessages: [\n", "t.yaml:"),
    (b"\xff\xfe\x00bad", "cannot read the spec"),
    (b"a: &a [x, x, x, x, x, x, x, x, x, x]\n" + b"".join(
        b"%c: &%c [*%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c]\n" % ((98 + i, 98 + i) + (97 + i,) * 10)
        for i in range(12)), "alias"),
])
def test_unusable_files_are_one_line_errors(cli, tmp_path, content, words):
    f = tmp_path / "t.yaml"
    f.write_bytes(content)
    res = cli("spec", "check", f)
    assert res.code == 2, res.err
    lines = res.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("advisor: error: ") and words in lines[0], res.err
