"""Dataflow: a clock value is followed through every way a template can carry it, and the
finding sits at the line that renders it, naming where it was produced.

Each case is a small template folder. With the clock call swapped for a constant, the same
template gives no finding at all: the flow, not the construct, is what is reported.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor.lint import config, engine
from advisor.rules import REGISTRY

POLICY = (
    "Follow the support policy exactly. Answer in short numbered steps, cite the policy section you used, "
    "never promise refunds the policy does not allow, and escalate billing disputes to a human agent.\n"
)

# name -> (files, template to lint, rendering line, line the value is produced at, text that
# must appear in the message). "NOW" is replaced by the clock call, or by a constant.
CASES = {
    "set": ({"main.j2": "{% set stamp = NOW %}\nYou are the Corvina assistant.\nCurrent time: {{ stamp }}\n" + POLICY}, "main.j2", 3, 1, "set at line 1"),
    "concatenation": ({"main.j2": "{% set header = 'Time: ' ~ NOW %}\n{% set banner = header + ' (UTC)' %}\n{% set line = '%s.'|format(banner) | upper %}\n{{ line }}\n" + POLICY}, "main.j2", 4, 1, "set at line 1"),
    "conditional_default": ({"chat_template.jinja": "{% if not now_text is defined %}\n{% set now_text = NOW %}\n{% endif %}\n{% if messages[0].role != 'system' %}{% set sys = 'Clock: ' + now_text %}{% else %}{% set sys = messages[0].content %}{% endif %}\n{{ sys }}\n" + POLICY + "{% for m in messages %}{{ m.content }}{% endfor %}\n"}, "chat_template.jinja", 5, 2, "set at line 2"),
    "macro_argument": ({"main.j2": "{% macro header(when) %}\nThe time is {{ when }}.\n{% endmacro %}\n{{ header(NOW) }}\n" + POLICY}, "main.j2", 4, 4, "macro argument `when`"),
    "caller": ({"main.j2": "{% macro box() %}[{{ caller() }}]{% endmacro %}\n{% call box() %}Time {{ NOW }}{% endcall %}\n" + POLICY}, "main.j2", 2, 2, ""),
    "include": ({"main.j2": "You are the Corvina assistant.\n{% include 'parts/clock.j2' %}\n" + POLICY, "parts/clock.j2": "\n\nNow: {{ NOW }}\n"}, "main.j2", 2, 3, "line 3 of prompts/parts/clock.j2"),
    "import": ({"main.j2": "{% import 'parts/macros.j2' as m %}\n{{ m.stamp() }}\n" + POLICY, "parts/macros.j2": "{% macro stamp() %}\nAt {{ NOW }}\n{% endmacro %}\n"}, "main.j2", 2, 2, "parts/macros.j2"),
    "from_import": ({"main.j2": "{% from 'parts/macros.j2' import stamp as s %}\n{{ s() }}\n" + POLICY, "parts/macros.j2": "{% macro stamp() %}At {{ NOW }}{% endmacro %}\n"}, "main.j2", 2, 1, "parts/macros.j2"),
    "namespace": ({"main.j2": "{% set ns = namespace(stamp='') %}\n{% for m in ['a', 'b'] %}{% set ns.stamp = NOW %}{% endfor %}\nStamp: {{ ns.stamp }}\n" + POLICY}, "main.j2", 3, 2, "namespace attribute `ns.stamp`"),
    "namespace_constructor": ({"main.j2": "{% set ns = namespace(stamp=NOW) %}\nStamp: {{ ns.stamp }}\n" + POLICY}, "main.j2", 2, 1, "set at line 1"),
    "loop": ({"main.j2": "{% set stamp = NOW %}\n{% for section in ['Rules', 'Style'] %}\n## {{ section }} as of {{ stamp }}\n{% endfor %}\n" + POLICY}, "main.j2", 3, 1, "set at line 1"),
    "loop_variable": ({"main.j2": "{% for part in ['Time', NOW] %}\n- {{ part }}\n{% endfor %}\n" + POLICY}, "main.j2", 2, 1, "loop variable `part`"),
}

CLOCK = "now()"
CONSTANT = "'noon'"


def _write(tmp_path: Path, files: dict[str, str], value: str) -> Path:
    (tmp_path / ".git").mkdir()
    for name, text in files.items():
        path = tmp_path / "prompts" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.replace("NOW", value), encoding="utf-8")
    return tmp_path / "prompts"


def _lint(folder: Path, target: str, counter, root: Path):
    cfg = config.parse({"select": ["PC101"]}, "test", REGISTRY)
    return engine.lint_files([str(folder / target)], cfg, REGISTRY, counter, cwd=root, parallel=False).findings


@pytest.mark.parametrize("name", sorted(CASES))
def test_clock_value_is_found_at_the_rendering_line(name, tmp_path, counter):
    files, target, render_line, produced_line, says = CASES[name]
    folder = _write(tmp_path, files, CLOCK)
    found = _lint(folder, target, counter, tmp_path)
    assert [(f.code, f.line) for f in found] == [("PC101", render_line)], [(f.line, f.message) for f in found]
    message = found[0].message
    assert "clock call `now()`" in message
    assert says in message
    if produced_line != render_line:
        assert f"line {produced_line}" in message


@pytest.mark.parametrize("name", sorted(CASES))
def test_same_template_without_the_clock_value_is_clean(name, tmp_path, counter):
    files, target, *_ = CASES[name]
    folder = _write(tmp_path, files, CONSTANT)
    assert _lint(folder, target, counter, tmp_path) == []


def test_include_outside_the_folders_stays_opaque(tmp_path, counter):
    (tmp_path / ".git").mkdir()
    (tmp_path / "prompts").mkdir()
    (tmp_path / "clock.j2").write_text("{{ now() }}\n")
    (tmp_path / "prompts" / "main.j2").write_text("{% include '../clock.j2' %}\n" + POLICY)
    assert _lint(tmp_path / "prompts", "main.j2", counter, tmp_path) == []


def test_recursive_include_and_macro_end(tmp_path, counter):
    files = {"main.j2": "{% include 'main.j2' %}{% macro f(n) %}{{ f(n) }}{{ n }}{% endmacro %}{{ f(now()) }}\n" + POLICY}
    folder = _write(tmp_path, files, CLOCK)
    found = _lint(folder, "main.j2", counter, tmp_path)
    assert found and all(f.line == 1 for f in found)
