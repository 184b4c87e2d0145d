"""Shared fixtures: one tokenizer counter per session (loading it takes a few hundred ms)."""

from __future__ import annotations

import pytest

from advisor.lint import engine


@pytest.fixture(scope="session")
def counter():
    return engine.default_counter("llama3")
