"""The shipped .pre-commit-hooks.yaml is well formed and selects template files."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

HOOKS = Path(__file__).resolve().parents[2] / ".pre-commit-hooks.yaml"


def test_hook_definition():
    hooks = yaml.safe_load(HOOKS.read_text(encoding="utf-8"))
    hook = next(h for h in hooks if h["id"] == "advisor-lint")
    assert hook["entry"] == "advisor lint" and hook["language"] == "python"
    files = re.compile(hook["files"])
    for path in ("templates/support_chat.j2", "a/b.jinja", "x.prompty", "m/tokenizer_config.json", "prompts/rag.yaml"):
        assert files.search(path), path
    for path in ("pyproject.toml", "templates/traffic/rag.jsonl", "README.md", "src/app.py"):
        assert not files.search(path), path
