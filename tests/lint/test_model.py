"""The template model: positions, taint through names, and that compaction is invisible."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from advisor.lint import locate
from advisor.lint.model import DEFAULT_STATIC_VARIABLES, Piece, Settings, build_model

SETTINGS = Settings(static_variables=DEFAULT_STATIC_VARIABLES)

TEXT = st.sampled_from([
    "You are the Tallyfold assistant. " * 8,
    "\n  Follow the policy.\n" * 10,
    "   \n\n",
    "Question: ",
    "line one\nline two   \n    indented " * 7,
    "\n",
])
TAGS = st.sampled_from([
    "{{ question }}", "{{- now -}}", "{{ tools | tojson }}", "{% if user.vip %}", "{%- endif %}", "{% endif -%}",
    "{# noqa: PC101 #}", "{%+ if x %}", "{% for d in docs %}", "{% endfor %}", "{% set y = 'a' %}", "{% raw %}{{ x }}{% endraw %}",
])
TEMPLATE = st.lists(st.one_of(TEXT, TAGS), min_size=1, max_size=14).map("".join)


def snapshot(m):
    return (m.segments, m.sections, m.unstable, m.unsafe, m.comments, [(e.line) for e in m.syntax_errors])


@settings(max_examples=150, deadline=None)
@given(TEMPLATE, st.sampled_from(["jinja", "chat_template"]), st.booleans())
def test_compacting_long_text_runs_changes_nothing(source, kind, offset):
    piece = Piece(source, line_offset=3, first_col=6, col=6) if offset else Piece(source)
    fast = build_model("t.j2", source, kind, [piece], SETTINGS)
    old = locate.COMPACT_MIN
    locate.COMPACT_MIN = 10**9
    try:
        slow = build_model("t.j2", source, kind, [piece], SETTINGS)
    finally:
        locate.COMPACT_MIN = old
    assert snapshot(fast) == snapshot(slow)


def test_positions_are_one_based_with_exclusive_end():
    m = build_model("t.j2", "ab {{ x }}\n{% if y %}z{% endif %}", "jinja", [Piece("ab {{ x }}\n{% if y %}z{% endif %}")], SETTINGS)
    out = [s for s in m.segments if s.construct == "output"][0]
    assert (out.line, out.column, out.end_line, out.end_column) == (1, 4, 1, 11)
    branch = [s for s in m.segments if s.construct == "if"][0]
    assert (branch.line, branch.column, branch.end_line, branch.end_column) == (2, 1, 2, 23)


def test_taint_follows_set_loop_and_macro():
    src = (
        "{% set d = now().strftime('%Y-%m-%d') %}{{ d }}"
        "{% for t in tools %}{{ t.name }}{% endfor %}"
        "{% macro stamp() %}{{ uuid4() }}{% endmacro %}{{ stamp() }}"
        "{% with n = user.name %}{{ n }}{% endwith %}"
    )
    m = build_model("t.j2", src, "jinja", [Piece(src)], SETTINGS)
    kinds = [(s.construct, s.taint.kind) for s in m.segments if s.kind == "dynamic"]
    assert kinds == [("output", "date"), ("for", "static"), ("output", "static"), ("call", "random"), ("output", "request")]


def test_sections_from_headings_labels_tags_blocks_and_roles():
    src = "# Tools\nx\nQuestion:\n<context>\n{% block rules %}r{% endblock %}\n"
    m = build_model("t.j2", src, "jinja", [Piece(src)], SETTINGS)
    assert [(s.name, s.origin) for s in m.sections] == [("tools", "heading"), ("question", "label"), ("context", "tag"), ("rules", "block")]
