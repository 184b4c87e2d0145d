"""A fix that moves a template's first rendered line never leaves a blank line behind at the top.

Before this was checked, `--unsafe-fixes` moved `Current date: {{ now }}` from line 1 and left
the blank line (or the line break of a `{% set %}` line) that followed it as the first thing
the template renders, so every prompt started with `\\n`. Drawn here: headers of comments,
`set` tags and blank lines, the value's line, blank lines and tag lines after it, then the
static text. Rendered before and after the fix (Jinja, through advisor's sandbox), the prompt
never starts with more line breaks than it did.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from advisor.ingest.sandbox import LimitedSandbox, compile_untrusted, render_untrusted
from advisor.lint import engine
from advisor.lint.config import LintConfig
from advisor.rules import REGISTRY

POLICY = ("You are the Corvina support assistant. Follow the support policy exactly, answer in short numbered "
          "steps, cite the policy section you used and escalate billing disputes to a human agent.")
HEADERS = ["{# header #}", "{% set mode = 'a' %}", "{%- set mode = 'b' -%}", "", "{# a\nlonger comment #}"]
VALUES = ["Now: {{ now() }}", "Session {{ session_id }}", "Today is {{ strftime_now('%Y-%m-%d') }}"]
AFTER = ["", "{% set x = 1 %}", "{# note #}", "{%- set y = 2 -%}"]
DATA = {"now": lambda: "NOW", "strftime_now": lambda fmt: "DATE", "session_id": "S1", "question": "Q", "mode": "m"}


@st.composite
def template(draw) -> str:
    lines = draw(st.lists(st.sampled_from(HEADERS), max_size=3))
    lines.append(draw(st.sampled_from(VALUES)))
    lines += draw(st.lists(st.sampled_from(AFTER), max_size=3))
    lines += [POLICY] * draw(st.integers(1, 2))
    if draw(st.booleans()):
        lines.append("Question: {{ question }}")
    return "\n".join(lines) + ("\n" if draw(st.booleans()) else "")


def rendered(text: str) -> str:
    return render_untrusted(compile_untrusted(LimitedSandbox(), text, "t.j2"), DATA)


def leading_breaks(text: str) -> int:
    return len(text) - len(text.lstrip("\n"))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(text=template())
def test_a_moved_first_line_leaves_no_blank_line_at_the_top(text, counter):
    linter = engine.Linter(LintConfig(), REGISTRY, counter)
    fixed, count = engine.fix_text("prompt.j2", Path("prompt.j2"), text, linter, unsafe=True)
    event(f"moved: {count > 0}")
    if not count:
        return
    before, after = rendered(text), rendered(fixed)
    assert leading_breaks(after) <= leading_breaks(before), (text, fixed)
    assert sorted(before.split()) == sorted(after.split())  # the same text, the value moved


def test_the_reported_case(counter):
    text = "Current date and time: {{ now }}\n\n" + POLICY + "\nQuestion: {{ question }}\n"
    linter = engine.Linter(LintConfig(), REGISTRY, counter)
    fixed, count = engine.fix_text("prompt.j2", Path("prompt.j2"), text, linter, unsafe=True)
    assert count == 1 and fixed == POLICY + "\nQuestion: {{ question }}\n\nCurrent date and time: {{ now }}\n"
    assert not rendered(fixed).startswith("\n")


def test_a_tag_line_whose_break_would_lead_is_not_moved_past(counter):
    text = "Current date and time: {{ now }}\n{% set x = 1 %}\n" + POLICY + "\n"
    linter = engine.Linter(LintConfig(), REGISTRY, counter)
    fixed, count = engine.fix_text("prompt.j2", Path("prompt.j2"), text, linter, unsafe=True)
    assert count == 0 and fixed == text
