"""Inline suppressions in Jinja comments: noqa, disable/enable ranges, unused ones."""

from __future__ import annotations

from advisor.lint import config, engine
from advisor.rules import REGISTRY

LONG = "Follow the support policy exactly. Answer in short numbered steps, cite the policy section you used, never promise refunds the policy does not allow.\n"


def lint(files, select=("ALL",)):
    cfg = config.parse({"select": list(select), "ignore": ["PC301"]}, "test", REGISTRY)
    return engine.lint_texts(files, cfg, REGISTRY, engine.default_counter("llama3")).findings


def codes(findings):
    return [(f.code, f.line) for f in findings]


def test_noqa_on_the_line_silences_that_code():
    assert codes(lint({"a.j2": "Now: {{ now }}\n" + LONG})) == [("PC101", 1)]
    assert codes(lint({"a.j2": "Now: {{ now }} {# noqa: PC101 #}\n" + LONG})) == []


def test_noqa_by_name_and_bare_noqa():
    assert lint({"a.j2": "Now: {{ now }} {# noqa: dynamic-prefix #}\n" + LONG}) == []
    assert lint({"a.j2": "Now: {{ now }} {# noqa #}\n" + LONG}) == []


def test_noqa_for_another_code_does_not_silence_and_is_unused():
    found = codes(lint({"a.j2": "Now: {{ now }} {# noqa: PC102 #}\n" + LONG}))
    assert sorted(found) == [("PC101", 1), ("PC901", 1)]


def test_noqa_on_another_line_does_not_silence():
    found = codes(lint({"a.j2": "{# noqa: PC101 #}\nNow: {{ now }}\n" + LONG}))
    assert ("PC101", 2) in found and ("PC901", 1) in found


def test_disable_enable_range():
    text = "{# advisor: disable=PC101 #}\nNow: {{ now }}\n{# advisor: enable=PC101 #}\nUser: {{ user }}\n" + LONG * 2
    assert codes(lint({"a.j2": text})) == [("PC101", 4)]


def test_disable_without_enable_runs_to_the_end():
    text = "{# advisor: disable=PC101,PC102 #}\nNow: {{ now }}\n{% if vip %}VIP{% endif %}\n" + LONG * 2
    assert lint({"a.j2": text}) == []


def test_unused_disable_is_reported():
    assert codes(lint({"a.j2": "{# advisor: disable=PC103 #}\n" + LONG})) == [("PC901", 1)]


def test_unused_suppression_not_reported_when_rule_is_not_selected():
    assert lint({"a.j2": "Now: {{ now }} {# noqa: PC101 #}\n" + LONG}, select=("PC102", "PC901")) == []


def test_suppression_in_a_yaml_message_keeps_file_lines():
    text = (
        "messages:\n"
        "  - role: system\n"
        "    content: |-\n"
        "      Now: {{ now }} {# noqa: PC101 #}\n"
        f"      {LONG}"
    )
    assert lint({"p.yaml": text}) == []
    assert codes(lint({"p.yaml": text.replace(" {# noqa: PC101 #}", "")})) == [("PC101", 4)]


def test_set_rule_findings_can_be_suppressed():
    shared = LONG * 2
    files = {
        "s/a.j2": "# Tools\nx\n# Policies\ny\n",
        "s/b.j2": "# Tools\nx\n# Policies\ny\n",
        "s/c.j2": "# Policies\ny\n# Tools {# noqa: PC201 #}\nx\n",
    }
    assert lint(files, select=("PC201", "PC901")) == []
    assert shared
