"""Templates are untrusted: linting parses them and never runs their code."""

from __future__ import annotations

import os

import time
from pathlib import Path

import jinja2
import pytest

from advisor.lint import config, engine
from advisor.rules import REGISTRY

ESCAPES = [
    "{{ ''.__class__.__mro__[1].__subclasses__() }}",
    "{{ cycler.__init__.__globals__.os.system('touch {marker}') }}",
    "{{ self._TemplateReference__context.cycler.__init__.__globals__.os.popen('touch {marker}').read() }}",
    "{% set x = namespace.__init__.__globals__ %}{{ x['os'].system('touch {marker}') }}",
]


def lint(files):
    cfg = config.parse({}, "test", REGISTRY)
    return engine.lint_texts(files, cfg, REGISTRY, engine.default_counter("llama3")).findings


@pytest.fixture()
def no_rendering(monkeypatch):
    """Fail loudly if anything compiles or renders a template while linting."""

    def refuse(*_args, **_kwargs):
        raise AssertionError("the linter must not compile or render templates")

    monkeypatch.setattr(jinja2.Environment, "compile", refuse)
    monkeypatch.setattr(jinja2.Template, "render", refuse)
    monkeypatch.setattr(jinja2.Environment, "from_string", refuse)


@pytest.mark.parametrize("payload", ESCAPES)
def test_escape_attempts_are_findings_and_never_run(payload, tmp_path, no_rendering):
    marker = tmp_path / "pwned"
    findings = lint({"evil.j2": payload.replace("{marker}", str(marker)) + "\nYou are an assistant.\n"})
    assert any(f.code == "PC002" and f.line == 1 for f in findings)
    assert not marker.exists()


def test_endless_and_explosive_templates_lint_quickly(no_rendering):
    templates = {
        "loop.j2": "{% for i in range(10**12) %}{% for j in range(10**12) %}x{% endfor %}{% endfor %}\nHello\n",
        "recursion.j2": "{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}\nHello\n",
        "memory.j2": "{{ 'a' * 10**12 }}{{ [1] * 10**12 }}\nHello\n",
        "include.j2": "{% include '/etc/passwd' %}{% extends '../../secret.j2' %}\nHello\n",
    }
    start = time.perf_counter()
    findings = lint(templates)
    assert time.perf_counter() - start < 10
    assert all(f.code != "PC001" for f in findings)


def test_macros_calling_macros_many_times_lint_quickly(no_rendering):
    # Ten levels, each calling the next ten times: walked in place that is 10**10 bodies.
    levels = ["{% macro m0() %}{{ now() }}{% endmacro %}"]
    for i in range(1, 10):
        levels.append("{% macro m" + str(i) + "() %}" + ("{{ m" + str(i - 1) + "() }}") * 10 + "{% endmacro %}")
    text = "".join(levels) + "\n{{ m9() }}\nYou are the support assistant. Follow the policy.\n"
    start = time.perf_counter()
    findings = lint({"nest.j2": text})
    assert time.perf_counter() - start < 10
    assert [(f.code, f.line) for f in findings if f.code == "PC101"] == [("PC101", 2)]


def test_includes_outside_the_template_folders_are_not_read(tmp_path, monkeypatch, no_rendering):
    # Includes inside the template folders are followed (tests/lint/test_dataflow.py); a name
    # that climbs out with `..`, an absolute name, or a link pointing outside is never read.
    read: list[str] = []
    real = Path.read_text

    def spy(self, *args, **kwargs):
        read.append(str(self))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", spy)
    real_open = os.open

    def open_spy(path, *args, **kwargs):
        read.append(str(path))
        return real_open(path, *args, **kwargs)

    # Included files are read through advisor.ingest.safe_open, which opens descriptors.
    monkeypatch.setattr(os, "open", open_spy)
    outside = tmp_path / "outside"
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "prompts").mkdir()
    outside.mkdir()
    (outside / "secret.j2").write_text("top secret")
    (repo / "prompts" / "link.j2").symlink_to(outside / "secret.j2")
    (repo / "prompts" / "main.j2").write_text(
        "{% include '../../outside/secret.j2' %}{% include '" + str(outside / "secret.j2") + "' %}{% include 'link.j2' %}\nHello\n")
    read.clear()
    engine.lint_files([str(repo / "prompts" / "main.j2")], config.LintConfig(), REGISTRY, engine.default_counter("llama3"), cwd=repo)
    assert not any(p.endswith(("secret.j2", "link.j2")) for p in read)


def test_deeply_nested_template_is_a_finding_or_clean_not_a_crash(no_rendering):
    text = "{% if a %}" * 200 + "x" + "{% endif %}" * 200 + "\nHello\n"
    lint({"deep.j2": text})
