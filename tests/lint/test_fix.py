"""Fixes: --fix applies the safe ones, --unsafe-fixes also moves lines, --diff shows them.

For every fix: the fixed template parses, the finding it fixes is gone, and the static
text renders the same (rendered with the sandbox, not compared as source).
"""

from __future__ import annotations

import os
import random
import shutil
from pathlib import Path

import pytest

from advisor.cli import main
from advisor.ingest.sandbox import LimitedSandbox, compile_untrusted, render_untrusted
from advisor.lint import config, engine
from advisor.lint.config import LintConfig
from advisor.rules import REGISTRY

HERE = Path(__file__).parent
REPO = HERE.parents[1]
FIXTURES = HERE / "fixtures" / "fix"
GOLDEN = HERE / "golden"

POLICY = (
    "You are the Corvina support assistant. Follow the support policy exactly, answer in short numbered steps, "
    "cite the policy section you used and escalate billing disputes to a human agent.\n"
)


def fixed(text: str, counter, unsafe: bool, name: str = "t.j2") -> tuple[str, int]:
    linter = engine.Linter(LintConfig(), REGISTRY, counter)
    return engine.fix_text(name, Path(name), text, linter, unsafe)


def findings(text: str, counter, name: str = "t.j2"):
    return engine.lint_texts({name: text}, config.parse({}, "t", REGISTRY), REGISTRY, counter).findings


def render(text: str, variables: dict) -> str:
    return render_untrusted(compile_untrusted(LimitedSandbox(), text, "t.j2"), variables)


def static_text(text: str, counter) -> list[str]:
    model = engine.model_for("t.j2", Path("t.j2"), text, engine.settings_for(LintConfig()))
    assert model is not None
    return [s.text for s in model.segments if s.kind == "static"]


SAFE_CASES = [
    ("{% for k, v in profile.items() %}{{ k }}={{ v }};{% endfor %}\n" + POLICY, "profile"),
    ("Fields: {{ profile.keys() | list | join(', ') }}\n" + POLICY, "profile"),
    ("Values: {{ profile.values() | join(', ') }}\n" + POLICY, "profile"),
    ("Tags: {{ tag_set | join(', ') }}\n" + POLICY, "tag_set"),
    ("Tags: {{ tag_set | list }}\n" + POLICY, "tag_set"),
    ("{% set p = user.profile %}{% for k in p.keys() %}{{ k }} {% endfor %}\n" + POLICY, None),
]


@pytest.mark.parametrize("case", range(len(SAFE_CASES)))
def test_safe_fix_sorts_and_keeps_the_text(case, counter):
    text, name = SAFE_CASES[case]
    assert any(f.code == "PC103" and f.fix is not None for f in findings(text, counter))
    after, count = fixed(text, counter, unsafe=False)
    assert count >= 1 and after != text
    assert not any(f.code in ("PC001", "PC103") for f in findings(after, counter))
    assert static_text(after, counter) == static_text(text, counter)
    rng = random.Random(case)
    keys = [f"k{i}" for i in range(8)]
    shuffled = keys[:]
    rng.shuffle(shuffled)
    if name == "tag_set":
        data, ordered = {name: shuffled}, {name: sorted(shuffled)}
    else:
        data = {"profile": {k: k.upper() for k in shuffled}, "user": {"profile": {k: 1 for k in shuffled}}}
        ordered = {"profile": {k: k.upper() for k in sorted(shuffled)}, "user": {"profile": {k: 1 for k in sorted(shuffled)}}}
    # The fixed template renders the data in sorted order whatever order it came in.
    assert render(after, data) == render(text, ordered)


def test_safe_fixes_never_move_lines(counter):
    text = "Current time: {{ now }}\n" + POLICY
    assert fixed(text, counter, unsafe=False) == (text, 0)


UNSAFE_CASES = [
    "Current date and time: {{ now }}\n" + POLICY + "Question: {{ question }}\n",
    "Request {{ uuid4() }}\n" + POLICY,
    "{% set stamp = now() %}\nAs of: {{ stamp }}\n" + POLICY + "Question: {{ question }}",
    "Customer: {{ user_name }}\n" + POLICY + POLICY,
]


@pytest.mark.parametrize("case", range(len(UNSAFE_CASES)))
def test_unsafe_fix_moves_the_line_after_the_static_text(case, counter):
    text = UNSAFE_CASES[case]
    before = [f for f in findings(text, counter) if f.code == "PC101"]
    assert before and before[0].fix is not None and before[0].fix.applicability == "unsafe"
    after, count = fixed(text, counter, unsafe=True)
    assert count == 1
    assert not any(f.code in ("PC001", "PC101") for f in findings(after, counter))
    variables = {"question": "why?", "user_name": "Ana", "uuid4": lambda: "u-1"}
    variables["now"] = (lambda: "12:00") if "now()" in text else "12:00"
    lines_before = render(text, variables).split("\n")
    lines_after = render(after, variables).split("\n")
    # No tag in these templates renders a newline, so rendered lines follow source lines.
    moved = lines_before[before[0].line - 1]
    # Every rendered line is still there, the moved one now after all the static text.
    assert sorted(lines_before) == sorted(lines_after)
    assert moved in lines_after and lines_after.index(moved) > lines_after.index(POLICY.strip())
    assert [ln for ln in lines_after if ln != moved] == [ln for ln in lines_before if ln != moved]


@pytest.mark.parametrize(
    "text",
    [
        "{% if vip %}Time: {{ now }}{% endif %}\n" + POLICY,  # inside a branch
        "{% for d in docs %}\n{{ now }}\n{% endfor %}\n" + POLICY,  # inside a loop
        "{{- now }} and {{ today }}\n" + POLICY,  # two values, whitespace control
        "{% set x = 1 %}{{ now }}\n" + POLICY,  # a block tag on the line
        "As of {{ now }}:\n" + POLICY,  # its own text after it would still follow it
    ],
)
def test_lines_that_are_not_self_contained_are_not_moved(text, counter):
    assert fixed(text, counter, unsafe=True)[0] == text


def test_chat_templates_get_no_move(counter):
    text = "{{ strftime_now('%H:%M') }}\n" + POLICY + "{% for m in messages %}{{ m.content }}{% endfor %}"
    assert fixed(text, counter, unsafe=True, name="x.chat_template.jinja") == (text, 0)


@pytest.mark.parametrize("mode", ["safe", "unsafe"])
def test_diff_golden(mode, capsys, monkeypatch):
    monkeypatch.chdir(REPO)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    args = ["lint", "tests/lint/fixtures/fix", "--isolated", "--diff"] + (["--unsafe-fixes"] if mode == "unsafe" else [])
    code = main(args)
    out = capsys.readouterr().out
    assert code == 1
    path = GOLDEN / f"fix.{mode}.diff.golden"
    if os.environ.get("ADVISOR_UPDATE_GOLDEN"):
        path.write_text(out, encoding="utf-8")
    assert out == path.read_text(encoding="utf-8")
    # --diff never writes.
    assert (FIXTURES / "profile.j2").read_text(encoding="utf-8").startswith("Current date and time: {{ now }}")


def test_fix_writes_safe_fixes_and_reports_what_remains(tmp_path, capsys, monkeypatch):
    shutil.copytree(FIXTURES, tmp_path / "prompts")
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    code = main(["lint", "prompts", "--isolated", "--fix", "--format", "concise"])
    out, err = capsys.readouterr()
    assert code == 1  # the clock values remain: moving them is an unsafe fix
    assert "advisor: fixed 3 findings in 1 file" in err
    assert "PC103" not in out and "PC101" in out
    assert "profile | dictsort" in (tmp_path / "prompts" / "profile.j2").read_text()
    code = main(["lint", "prompts", "--isolated", "--unsafe-fixes", "--format", "concise", "--select", "PC101,PC103"])
    out, err = capsys.readouterr()
    remaining = [ln for ln in out.splitlines() if ln]
    # Left: the clock inside a branch and the loop over the profile (no self-contained line).
    assert [ln.split(" ")[0] for ln in remaining] == ["prompts/nested.j2:1:27:", "prompts/profile.j2:3:1:"] and code == 1
    assert "nested.j2" not in err


from hypothesis import given, settings, strategies as st  # noqa: E402

WORDS = st.sampled_from(["policy", "refund", "ticket", "escalate", "cite", "answer", "steps", "billing", "agent", "Corvina"])
STATIC_LINE = st.lists(WORDS, min_size=6, max_size=14).map(lambda w: " ".join(w).capitalize() + ".")
VALUE = st.sampled_from(["{{ now }}", "{{ today }}", "{{ uuid4() }}", "{{ user_name }}", "{{ request_id }}", "{{ now() }}"])
LABEL = st.sampled_from(["Time: ", "As of ", "Customer: ", "", "Request "])


@settings(max_examples=40, deadline=None)
@given(st.lists(STATIC_LINE, min_size=0, max_size=3), LABEL, VALUE, st.lists(STATIC_LINE, min_size=4, max_size=8), st.booleans())
def test_moving_a_generated_value_line(before, label, value, after, trailing_newline):
    counter = engine.default_counter("llama3")
    text = "\n".join(before + [label + value] + after) + ("\n" if trailing_newline else "")
    found = [f for f in findings(text, counter) if f.code == "PC101"]
    assert len(found) == 1 and found[0].fix is not None
    out, count = fixed(text, counter, unsafe=True)
    assert count == 1
    assert not any(f.code in ("PC001", "PC101") for f in findings(out, counter))
    variables = {"today": "1 Dec", "user_name": "Ana", "request_id": "r-1", "uuid4": lambda: "u-1"}
    variables["now"] = (lambda: "12:00") if "now()" in value else "12:00"
    rendered_before, rendered_after = render(text, variables).split("\n"), render(out, variables).split("\n")
    moved = render(label + value, variables)
    # The static text renders the same, in the same order; only the value's line moved last.
    assert [ln for ln in rendered_after if ln and ln != moved] == [ln for ln in rendered_before if ln and ln != moved]
    assert [ln for ln in rendered_after if ln][-1] == moved
    lines = out.rstrip("\n").split("\n")
    assert lines[-1] == label + value and sorted(lines) == sorted(text.rstrip("\n").split("\n"))
    assert out.endswith("\n") == trailing_newline


# --- review 18: moves that would have changed the prompt beyond the order of its lines ----------


@pytest.mark.parametrize(
    "text",
    [
        "{% with t = now() %}\nTime {{ t }}\n{% endwith %}\n" + POLICY,  # out of its `with` scope
        "{% block main %}\nNow {{ now() }}\n" + POLICY + "{% endblock %}\n",  # out of an overridable block
        "{% autoescape true %}\nNow {{ now() }}\n" + POLICY + "{% endautoescape %}\n",
        "{{ now() }}\n{%- set y = 1 %}\n" + POLICY,  # the next tag strips this line's newline
        "Now: {{ now() }}\n" + POLICY + "{{ question -}}\n",  # the last tag would glue the moved line to it
        "{% set x = 1 -%}\nNow {{ now() }}\n  " + POLICY,  # the tag above would strip the next line's indentation
    ],
)
def test_moves_that_change_scope_or_whitespace_are_not_offered(text, counter):
    assert any(f.code == "PC101" for f in findings(text, counter))
    assert fixed(text, counter, unsafe=True) == (text, 0)


def test_prompty_line_moves_to_the_end_of_its_own_message(counter):
    text = "---\nname: x\n---\nsystem:\nToday {{ now() }}\n" + POLICY + "user:\n{{ question }}\n"
    after, count = fixed(text, counter, unsafe=True, name="t.prompty")
    assert count == 1
    assert after == "---\nname: x\n---\nsystem:\n" + POLICY + "Today {{ now() }}\nuser:\n{{ question }}\n"
    assert not any(f.code == "PC101" for f in findings(after, counter, name="t.prompty"))


def test_a_trim_tag_above_is_fine_when_no_indentation_follows(counter):
    text = "{% set x = 1 -%}\nNow {{ now() }}\n" + POLICY
    after, count = fixed(text, counter, unsafe=True)
    assert count == 1 and render(after, {"now": lambda: "N"}) == POLICY + "Now N"


def test_crlf_line_keeps_its_line_ending(counter):
    text = "Now: {{ now() }}\r\n" + POLICY.replace("\n", "\r\n") + "Question: {{ question }}\r\n"
    after, count = fixed(text, counter, unsafe=True)
    assert count == 1 and after.endswith("Question: {{ question }}\r\nNow: {{ now() }}\r\n") and "\r\n\n" not in after


def test_fixes_that_undo_each_other_stop_and_count_once(counter):
    # Each clock line's label is static text after the other's value: the moves would cycle.
    text = "A {{ now() }}\nB {{ random() }}\n" + POLICY + "{{ question }}\n"
    after, count = fixed(text, counter, unsafe=True)
    assert count == 2
    assert after == POLICY + "{{ question }}\nA {{ now() }}\nB {{ random() }}\n"
