"""The shared YAML loader: ordinary anchors load, bombs and cycles are refused with a line."""

from __future__ import annotations

import time

import pytest

from advisor.ingest import safe_yaml
from tests.robustness.conftest import yaml_bomb


def test_ordinary_anchors_load_as_safe_load_does():
    text = "base: &b {tokenizer: llama3, fail_on: warning}\nci: *b\nlocal: *b\nlist: [*b, *b]\n"
    import yaml

    assert safe_yaml.safe_load(text) == yaml.safe_load(text)


@pytest.mark.parametrize("levels", [6, 9, 30])
def test_bombs_are_refused_fast_with_a_line(levels):
    start = time.perf_counter()
    with pytest.raises(safe_yaml.YAMLBomb) as info:
        safe_yaml.safe_load(yaml_bomb(levels=levels))
    assert time.perf_counter() - start < 2
    assert "YAML bomb" in safe_yaml.error_reason(info.value)
    assert safe_yaml.error_line(info.value) >= 1


def test_too_many_aliases_and_cycles():
    many = "a: &a 1\nb: [" + ", ".join(["*a"] * (safe_yaml.MAX_ALIASES + 1)) + "]\n"
    with pytest.raises(safe_yaml.YAMLBomb, match="aliases"):
        safe_yaml.safe_load(many)
    with pytest.raises(safe_yaml.YAMLBomb, match="refers to itself"):
        safe_yaml.safe_load("x: &x\n  - *x\n")
    with pytest.raises(safe_yaml.YAMLBomb, match="refers to itself"):
        safe_yaml.safe_compose("x: &x {k: *x}\n")


def test_node_positions_survive_compose():
    node = safe_yaml.safe_compose("messages:\n  - role: user\n    content: hi\n")
    assert node is not None and node.value[0][0].start_mark.line == 0
