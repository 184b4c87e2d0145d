"""Fixes never corrupt a file, whatever its line breaks, byte order mark or separators.

Templates and YAML prompt files are drawn with every kind of break Jinja reads (``\\n``,
``\\r\\n``, a lone ``\\r``), the characters other line models split at (NEL, U+2028, U+2029,
form feed, vertical tab, the information separators) inside the text, an optional UTF-8
byte order mark and an optional final break. For every file with a fix:

* the ``--diff`` applied with GNU ``patch`` gives exactly the bytes ``--fix`` writes;
* every byte outside the lines of the fixed findings is unchanged (a moved line may only
  reappear whole, with a break of the file's own);
* a re-lint no longer shows the fixed finding, and the fixed file still parses;
* a plain template renders the same lines, a moved line at its new place (Jinja, through
  advisor's sandbox, on the file as written, with data already in sorted order so that a
  sort changes nothing).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from advisor.ingest.sandbox import LimitedSandbox, compile_untrusted, render_untrusted
from advisor.lint import engine
from advisor.lint.config import LintConfig
from advisor.lint.lines import BOM, Lines, normalize
from advisor.rules import REGISTRY

pytestmark = pytest.mark.skipif(shutil.which("patch") is None, reason="GNU patch is not installed")

POLICY = ("You are the Corvina support assistant. Follow the support policy exactly, answer in short numbered "
          "steps, cite the policy section you used and escalate billing disputes to a human agent.")
# Characters some line model splits at and Jinja does not.
SEPARATORS = ["\x85", "\u2028", "\u2029", "\x0c", "\x0b", "\x1c", "\x1d", "\x1e"]
BREAKS = ["\n", "\r\n", "\r"]

# Lines of a template, each a kind the rules fix or must leave alone.
LINES = {
    "clock": "Now: {{ now() }}",
    "date": "Today is {{ strftime_now('%Y-%m-%d') }}",
    "items": "{% for k, v in profile.items() %}{{ k }}={{ v }}; {% endfor %}",
    "keys": "Fields: {{ profile.keys() | list | join(', ') }}",
    "tags": "Tags: {{ tag_set | join(', ') }}",
    "prose": "Prose that mentions profile.items() and .keys() as words.",
    "policy": POLICY,
    "question": "Question: {{ question }}",
    "loop": "{% for x in docs %}",
    "body": "{{ x }}",
    "endloop": "{% endfor %}",
}


# The separators YAML admits in a file (the others are not printable there).
YAML_SEPARATORS = ["\x85", "\u2028", "\u2029"]


@st.composite
def static_line(draw, separators: list[str] = SEPARATORS) -> str:
    words = draw(st.lists(st.sampled_from(["policy", "refund", "escalate", "agent", "steps", "cite"]), min_size=1, max_size=6))
    seps = draw(st.lists(st.sampled_from(separators), max_size=2)) if separators else []
    text = " ".join(words)
    for sep in seps:
        at = draw(st.integers(0, len(text)))
        text = text[:at] + sep + text[at:]
    return text


@st.composite
def template_lines(draw, separators: list[str] = SEPARATORS) -> list[str]:
    kinds = draw(st.lists(st.sampled_from(sorted(LINES)), min_size=1, max_size=8))
    lines = []
    for kind in kinds:
        if kind == "loop":
            lines += [LINES["loop"], LINES["body"], LINES["endloop"]]
        elif kind in ("body", "endloop"):
            continue
        else:
            lines.append(LINES[kind])
        if draw(st.booleans()):
            lines.append(draw(static_line(separators)))
    lines.append(POLICY)  # enough static text after everything for the rules to fire
    if draw(st.booleans()):
        lines.append(LINES["question"])
    return lines


def join(draw, lines: list[str]) -> str:
    out = []
    for i, line in enumerate(lines):
        out.append(line)
        if i < len(lines) - 1 or draw(st.booleans()):
            out.append(draw(st.sampled_from(BREAKS)))
    return "".join(out)


@st.composite
def jinja_file(draw) -> tuple[str, str]:
    text = join(draw, draw(template_lines()))
    return "prompt.j2", (BOM if draw(st.booleans()) else "") + text


@st.composite
def yaml_file(draw) -> tuple[str, str]:
    """A messages file: a system message in a quoted string holding the separators YAML
    reads as breaks there (the bug: a fix then landed in this message's prose), then the
    template as a user message, a literal block or quoted strings (in a block those
    separators would end the block: not YAML)."""
    brk = draw(st.sampled_from(BREAKS))
    system = draw(static_line(YAML_SEPARATORS))
    rows = ["messages:", "  - role: system", f'    content: "{system} {LINES["prose"]}"']
    body = draw(template_lines([]))
    if draw(st.booleans()):
        rows += ["  - role: user", "    content: |"] + ["      " + line for line in body]
    else:
        for line in body:
            quoted = line.replace("'", "''")
            rows += ["  - role: user", f"    content: '{quoted}'"]
    text = brk.join(rows) + (brk if draw(st.booleans()) else "")
    return "prompt.yaml", (BOM if draw(st.booleans()) else "") + text


_SORTS = re.compile(r"\.(items|keys|values)\(\)|\|(dictsort|sort|map\(attribute=1\))")


def canon(line: str) -> str:
    """A line with what the safe fixes write or replace taken out."""
    return _SORTS.sub("", re.sub(r"\s+", "", line))


def with_breaks(text: str) -> list[str]:
    lines = Lines(text)
    return [lines.text_of(n) + lines.break_of(n) for n in range(1, lines.count + 1)]


DATA = {"now": lambda: "NOW", "strftime_now": lambda fmt: "DATE", "profile": {"a": 1, "b": 2},
        "tag_set": ["t1", "t2"], "docs": ["d1", "d2"], "question": "Q"}


def rendered_lines(text: str) -> list[str]:
    out = render_untrusted(compile_untrusted(LimitedSandbox(), text.removeprefix(BOM), "t.j2"), DATA)
    return sorted(line.strip() for line in out.split("\n") if line.strip())


def lint(folder: Path, counter):
    return engine.lint_files([str(folder)], LintConfig(), REGISTRY, counter, cwd=folder, parallel=False)


def check_file(tmp: Path, name: str, text: str, unsafe: bool, counter) -> None:
    folder = tmp / "work"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    (folder / ".git").mkdir()  # the repository root: paths are shown relative to it
    path = folder / name
    path.write_bytes(text.encode("utf-8"))
    before = lint(folder, counter)
    fixable = [f for f in before.findings if f.fix is not None and (unsafe or f.fix.applicability == "safe")]
    fixed = list(engine.fix_files([str(folder)], before, LintConfig(), REGISTRY, counter, unsafe, cwd=folder))
    event(f"fixed: {bool(fixed)}, unsafe: {unsafe}")
    if not fixed:
        return
    (one,) = fixed
    assert one.before == text

    # The diff, applied by patch to a copy, gives the bytes --fix writes.
    patched = tmp / "patched"
    shutil.rmtree(patched, ignore_errors=True)
    shutil.copytree(folder, patched)
    run = subprocess.run(["patch", "-p1", "--quiet", "--no-backup-if-mismatch", "-d", str(patched)],
                         input=one.diff().encode("utf-8"), capture_output=True)
    assert run.returncode == 0, run.stdout + run.stderr
    one.write()
    written = path.read_bytes()
    assert written == one.after.encode("utf-8")
    assert (patched / name).read_bytes() == written

    # Only the fixed findings' lines change: the other lines of the file stand in the fixed
    # file in their order, each with its own break, byte for byte (the old last line may
    # gain a break when a line moves behind it); every other line of the fixed file is a
    # fixed line, moved whole, maybe sorted by a safe fix in a later round.
    skip = 1 if text.startswith(BOM) else 0  # positions count from after the mark
    body = Lines(text[skip:])
    touched = {line for f in fixable for line in range(f.line, (f.end_line or f.line) + 1)}
    moved = {canon(body.text_of(line)) for line in touched}
    old, new = with_breaks(text[skip:]), with_breaks(one.after[skip:])
    kept = [(n, line) for n, line in enumerate(old, 1) if n not in touched]
    at, extra = 0, []
    for line in new:
        if at < len(kept) and (line == kept[at][1] or (kept[at][0] == len(old) and line.startswith(kept[at][1])
                                                       and line[len(kept[at][1]):] in ("\n", "\r\n", "\r"))):
            at += 1
        else:
            extra.append(line)
    assert at == len(kept), ("a line the fix does not own changed", kept[at:], new)
    assert all(canon(line) in moved or not line.strip() for line in extra), (extra, moved)
    after = one.after

    if name.endswith(".j2"):
        assert rendered_lines(after) == rendered_lines(text)

    # The fixed findings are gone and the file still parses.
    again = lint(folder, counter)
    assert not any(f.code == "PC001" for f in again.findings)
    # A finding of the same rule on the same text may remain only with less at risk behind
    # it (two clock lines moved to the end: the first still precedes the second's label).
    # Identical lines are one key: the most that was at risk on them. A line left at the top
    # because, once the lines below it moved, a tag line's break would open the prompt
    # (test_fix_blank_lines) is no longer movable: it stays, with what moved behind it.
    after_lines = Lines(after.removeprefix(BOM))
    most: dict[tuple[str, str], int] = {}
    for f in fixable:
        key = (f.code, normalize(body.text_of(f.line)).strip())
        most[key] = max(most.get(key, 0), f.tokens_at_risk or 0)
    for g in again.findings:
        key = (g.code, normalize(after_lines.text_of(g.line)).strip())
        if key in most and not (g.fix is None and g.line == 1):
            assert (g.tokens_at_risk or 0) < most[key], (g, most[key])


FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


@FAST
@given(case=jinja_file(), unsafe=st.booleans())
def test_jinja_fixes_keep_every_other_byte(case, unsafe, counter, tmp_path_factory):
    check_file(tmp_path_factory.mktemp("fix"), *case, unsafe, counter)


@FAST
@given(case=yaml_file(), unsafe=st.booleans())
def test_yaml_fixes_keep_every_other_byte(case, unsafe, counter, tmp_path_factory):
    check_file(tmp_path_factory.mktemp("fix"), *case, unsafe, counter)
