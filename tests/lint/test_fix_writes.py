"""`lint --fix` never corrupts what the user owns (issue 34).

Positions follow Jinja's line model (a lone CR is a break); a fix lands only where the
file holds the template text as it is; a file is written as soon as its fix is computed,
and only if it is still the file the fix was computed from; it keeps its mode, owner and
byte order mark; hard-linked files are refused; a big data file is skipped as data.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from advisor.cli import main
from advisor.lint import engine, write
from advisor.lint.config import LintConfig
from advisor.rules import REGISTRY

POLICY = ("You are the Corvina support assistant. Follow the support policy exactly, answer in short numbered "
          "steps, cite the policy section you used and escalate billing disputes to a human agent.")


@pytest.fixture
def repo(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def lint(repo: Path, counter):
    return engine.lint_files([str(repo)], LintConfig(), REGISTRY, counter, cwd=repo, parallel=False)


def fixes(repo: Path, counter, unsafe: bool = True) -> list[engine.FileFix]:
    return list(engine.fix_files([str(repo)], lint(repo, counter), LintConfig(), REGISTRY, counter, unsafe, cwd=repo))


def cli(*args: str) -> int:
    return main(list(args))


# --- one line model ------------------------------------------------------------------------------

def test_lone_cr_before_the_finding_moves_the_right_line(repo, counter):
    # The probe's case: `\n`-only counting put the clock on the line of the loop body and
    # moved `{{ x }}` out of its loop; the template still parsed.
    text = f"Intro\rNow: {{{{ now() }}}}\n{POLICY}\n{{% for x in docs %}}\n{{{{ x }}}}\n{{% endfor %}}\nQuestion: {{{{ q }}}}\n"
    (repo / "t.j2").write_bytes(text.encode())
    (one,) = fixes(repo, counter)
    one.write()
    after = (repo / "t.j2").read_bytes().decode()
    assert after == f"Intro\r{POLICY}\n{{% for x in docs %}}\n{{{{ x }}}}\n{{% endfor %}}\nQuestion: {{{{ q }}}}\nNow: {{{{ now() }}}}\n"


def test_positions_count_a_lone_cr_as_jinja_does(repo, counter):
    (repo / "t.j2").write_bytes(f"a\rb\r\nc\nNow: {{{{ now() }}}}\n{POLICY}\n".encode())
    (finding,) = [f for f in lint(repo, counter).findings if f.code == "PC101"]
    assert (finding.line, finding.column) == (4, 6)


def test_unicode_separators_are_no_line_breaks(repo, counter):
    (repo / "t.j2").write_bytes(f"a\u2028b\x85c\x0cd\x1ce\nNow: {{{{ now() }}}}\n{POLICY}\n".encode())
    (finding,) = [f for f in lint(repo, counter).findings if f.code == "PC101"]
    assert finding.line == 2


@pytest.mark.parametrize("sep", ["\u2028", "\u2029", "\x85"])
def test_safe_fix_after_a_yaml_separator_edits_the_flagged_loop(repo, counter, sep):
    # YAML counts these as breaks and Jinja does not: the fix had rewritten `.items()` in the
    # system message's prose and left the flagged loop as it was.
    text = ("messages:\n  - role: system\n"
            f'    content: "Prose{sep}that mentions profile.items() in words."\n'
            "  - role: user\n    content: |\n"
            "      {% for k, v in profile.items() %}{{ k }}={{ v }}; {% endfor %}\n"
            f"      {POLICY}\n")
    (repo / "p.yaml").write_bytes(text.encode())
    (one,) = fixes(repo, counter, unsafe=False)
    one.write()
    after = (repo / "p.yaml").read_bytes().decode()
    assert after == text.replace("in profile.items() %}", "in profile | dictsort %}")


def test_no_fix_lands_in_an_escaped_string(repo, counter):
    # A double-quoted JSON string with escapes is not the file's text as it stands: a
    # position there is approximate, so no fix may edit it.
    text = ('{"messages": [{"role": "user", "content": "{% for k, v in profile.items() %}{{ k }}\\n{% endfor %}\\n'
            + POLICY + '"}]}\n')
    (repo / "p.json").write_text(text, encoding="utf-8")
    assert any(f.code == "PC103" for f in lint(repo, counter).findings)
    assert fixes(repo, counter) == []


@pytest.mark.skipif(shutil.which("patch") is None, reason="GNU patch is not installed")
def test_diff_with_lone_cr_applies_with_patch(repo, counter, tmp_path_factory):
    text = f"x\ry\rNow: {{{{ now() }}}}\r\n{POLICY}\r{{% for k, v in p.items() %}}{{{{ k }}}}{{% endfor %}}\n{POLICY}"
    (repo / "t.j2").write_bytes(text.encode())
    assert cli("lint", "--unsafe-fixes", "--diff", "-o", str(repo.parent / "fix.diff"), str(repo)) == 1
    copy = tmp_path_factory.mktemp("copy")
    shutil.copy(repo / "t.j2", copy / "t.j2")
    run = subprocess.run(["patch", "-p1", "-d", str(copy)], input=(repo.parent / "fix.diff").read_bytes(), capture_output=True)
    assert run.returncode == 0, run.stdout + run.stderr
    cli("lint", "--unsafe-fixes", str(repo))
    assert (copy / "t.j2").read_bytes() == (repo / "t.j2").read_bytes() != text.encode()


# --- what the write keeps ------------------------------------------------------------------------

@pytest.mark.parametrize("mode", [0o600, 0o755, 0o640])
def test_fix_keeps_the_file_mode(repo, counter, mode):
    path = repo / "t.j2"
    path.write_text(f"{{% for k, v in profile.items() %}}{{{{ k }}}}{{% endfor %}}\n{POLICY}\n")
    path.chmod(mode)
    assert cli("lint", "--fix", str(path)) in (0, 1)
    assert "dictsort" in path.read_text()
    assert stat.S_IMODE(path.stat().st_mode) == mode


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
def test_fix_keeps_the_owner(repo, counter):
    path = repo / "t.j2"
    path.write_text(f"{{% for k, v in profile.items() %}}{{{{ k }}}}{{% endfor %}}\n{POLICY}\n")
    os.chown(path, 1234, 5678)
    (one,) = fixes(repo, counter, unsafe=False)
    one.write()
    info = path.stat()
    assert (info.st_uid, info.st_gid) == (1234, 5678) and "dictsort" in path.read_text()


def test_byte_order_mark_stays_in_front(repo, counter):
    path = repo / "t.j2"
    path.write_bytes(b"\xef\xbb\xbf" + f"Now: {{{{ now() }}}}\n{POLICY}\n".encode())
    (one,) = fixes(repo, counter)
    one.write()
    assert path.read_bytes() == b"\xef\xbb\xbf" + f"{POLICY}\nNow: {{{{ now() }}}}\n".encode()


def test_hard_linked_file_is_refused_and_left_alone(repo, counter):
    path = repo / "t.j2"
    text = f"{{% for k, v in profile.items() %}}{{{{ k }}}}{{% endfor %}}\n{POLICY}\n"
    path.write_text(text)
    os.link(path, repo / "other.txt")
    assert cli("lint", "--fix", str(path)) == 2
    assert path.read_text() == text and os.stat(path).st_nlink == 2


def test_read_only_file_is_refused(repo, counter):
    path = repo / "t.j2"
    text = f"{{% for k, v in profile.items() %}}{{{{ k }}}}{{% endfor %}}\n{POLICY}\n"
    path.write_text(text)
    path.chmod(0o444)
    assert cli("lint", "--fix", str(path)) == 2
    assert path.read_text() == text and stat.S_IMODE(path.stat().st_mode) == 0o444


def test_a_file_edited_during_the_run_is_not_overwritten(repo, counter):
    path = repo / "t.j2"
    path.write_text(f"{{% for k, v in profile.items() %}}{{{{ k }}}}{{% endfor %}}\n{POLICY}\n")
    (one,) = fixes(repo, counter, unsafe=False)
    edited = "the user's edit, made while the fix was being computed\n"
    path.write_text(edited)
    with pytest.raises(write.Refused, match="t.j2: not fixed: the file changed"):
        one.write()
    assert path.read_text() == edited
    assert [p.name for p in repo.iterdir() if p.name.endswith(".advisor-fix")] == []


def test_same_size_edit_in_the_same_clock_tick_is_caught_by_the_hash(repo, counter):
    path = repo / "t.j2"
    path.write_text(f"{{% for k, v in profile.items() %}}{{{{ k }}}}{{% endfor %}}\n{POLICY}\n")
    (one,) = fixes(repo, counter, unsafe=False)
    before = path.stat()
    path.write_text(path.read_text().replace("Corvina", "Corvinb"))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    with pytest.raises(write.Refused):
        one.write()
    assert "Corvinb" in path.read_text()


def test_second_of_two_runs_from_the_same_reading_is_refused(repo, counter):
    path = repo / "t.j2"
    path.write_text(f"Now: {{{{ now() }}}}\n{{% for k, v in profile.items() %}}{{{{ k }}}}{{% endfor %}}\n{POLICY}\n")
    (first,) = fixes(repo, counter, unsafe=False)
    (second,) = fixes(repo, counter, unsafe=True)
    first.write()
    with pytest.raises(write.Refused):
        second.write()
    assert path.read_text() == first.after


def test_fix_writes_each_file_before_reading_the_next(repo, counter, monkeypatch):
    for name in ("a.j2", "b.j2"):
        (repo / name).write_text(f"{{% for k, v in profile.items() %}}{{{{ k }}}}{{% endfor %}}\n{POLICY}\n")
    seen = []
    real = write.take

    def take(path, read):
        seen.append((path.name, "dictsort" in (repo / "a.j2").read_text()))
        return real(path, read)

    monkeypatch.setattr(write, "take", take)
    assert cli("lint", "--fix", str(repo)) in (0, 1)
    assert seen == [("a.j2", False), ("b.j2", True)]


# --- what lint reads -----------------------------------------------------------------------------

def test_big_data_file_without_prompts_is_skipped_not_refused(repo, counter, capsys):
    (repo / "t.j2").write_text(f"{POLICY}\nQuestion: {{{{ q }}}}\n")
    with open(repo / "fixture.json", "wb") as handle:  # sparse: no disk, 20 MiB over the template cap
        handle.write(b'{"rows": [')
        handle.truncate(20 << 20)
    assert cli("lint", str(repo)) == 0
    assert "skipped fixture.json: not a prompt template" in capsys.readouterr().err


def test_big_data_file_with_messages_is_still_refused(repo, counter, capsys):
    with open(repo / "huge.yaml", "wb") as handle:
        handle.truncate(20 << 20)
        handle.write(b"messages:\n  - role: user\n    content: hi\n")
    assert cli("lint", str(repo)) == 2
    assert "huge.yaml: template is 20 MiB, over the 16 MiB limit" in capsys.readouterr().err


@pytest.mark.parametrize("text, want", [
    (f"Now: {{{{ now() }}}}\n\n{POLICY}\n", f"{POLICY}\n\nNow: {{{{ now() }}}}\n"),
    (f"{{{{ now() }}}}\r\n\r\n\r\n{POLICY}", f"{POLICY}\r\n\r\n\r\n{{{{ now() }}}}"),
    (f"Intro\n\nNow: {{{{ now() }}}}\n\n{POLICY}\n", f"Intro\n\n{POLICY}\n\nNow: {{{{ now() }}}}\n"),
    (f"Intro\nNow: {{{{ now() }}}}\n{POLICY}\n", f"Intro\n{POLICY}\nNow: {{{{ now() }}}}\n"),
])
def test_a_moved_paragraph_takes_its_blank_lines_along(repo, counter, text, want):
    # Left behind, the blank line under a moved first line opened every rendered prompt.
    (repo / "t.j2").write_bytes(text.encode())
    (one,) = fixes(repo, counter)
    one.write()
    assert (repo / "t.j2").read_bytes().decode() == want


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
@pytest.mark.parametrize("mode", [0o6755, 0o4644, 0o2640])
def test_set_id_bits_stay_on_a_file_of_another_owner(repo, counter, mode):
    path = repo / "t.j2"
    path.write_text(f"{{% for k, v in profile.items() %}}{{{{ k }}}}{{% endfor %}}\n{POLICY}\n")
    os.chown(path, 1234, 5678)
    path.chmod(mode)
    (one,) = fixes(repo, counter, unsafe=False)
    one.write()
    assert stat.S_IMODE(path.stat().st_mode) == mode and path.stat().st_uid == 1234


def test_a_mode_changed_during_the_run_is_not_put_back(repo, counter):
    path = repo / "t.j2"
    path.write_text(f"{{% for k, v in profile.items() %}}{{{{ k }}}}{{% endfor %}}\n{POLICY}\n")
    path.chmod(0o644)
    (one,) = fixes(repo, counter, unsafe=False)
    path.chmod(0o600)
    with pytest.raises(write.Refused):
        one.write()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


# --- from an adversarial probe written without reading the code ------------------------------------

def render(text: str, **data) -> str:
    from advisor.ingest.sandbox import LimitedSandbox, compile_untrusted, render_untrusted

    return render_untrusted(compile_untrusted(LimitedSandbox(), text, "t.j2"), data)


@pytest.mark.parametrize("later", [
    '{% set t = "x" %}', "{% set t %}x{% endset %}", "{% macro t() %}x{% endmacro %}", "{% set t = now() %}",
])
def test_no_move_past_a_later_binding_of_what_the_line_prints(repo, counter, later):
    # Moved below `{% set t = "x" %}`, `Name: {{ t }}` printed "x" instead of the request's value.
    text = f"Name: {{{{ t }}}}\n{later}{POLICY}\n"
    (repo / "t.j2").write_text(text)
    assert fixes(repo, counter) == []


def test_no_move_past_a_namespace_attribute_set_later(repo, counter):
    text = f"{{% set ns = namespace(v=user) %}}\nUser: {{{{ ns.v }}}}\n{POLICY}\n{{% set ns.v = 'x' %}}\n"
    (repo / "t.j2").write_text(text)
    assert fixes(repo, counter) == []


def test_no_move_in_a_child_template(repo, counter):
    # Below `{% extends %}` the line is never rendered at all.
    (repo / "base.j2").write_text("BASE\n")
    (repo / "t.j2").write_text(f'Time: {{{{ now() }}}}\n{POLICY}\n{{% extends "base.j2" %}}\n')
    assert [f for f in fixes(repo, counter) if f.shown == "t.j2"] == []


@pytest.mark.parametrize("text", [
    "{% if d.values() %}Profile:{% endif %}\n", "First key: {{ d.keys()[0] }}\n",
    "{{ d.items()[0] }}\n", "{{ d.values().x }}\n", "{{ d.keys().__len__() }}\n", "{{ d.values() }}\n",
])
def test_safe_fix_only_where_the_view_is_iterated(repo, counter, text):
    # Printed, tested, indexed or measured, a sorted list is not the view it replaced (a
    # generator has no len and is always true; `d | sort[0]` does not parse).
    (repo / "t.j2").write_text(text + POLICY + "\n")
    assert [f for f in fixes(repo, counter, unsafe=False)] == []


@pytest.mark.parametrize("text, data", [
    ("{{ d.values() | length }} items\n", {"d": {"b": 2, "a": 1}}),
    ("{% for v in d.values() %}{{ v }},{% endfor %}\n", {"d": {"b": 2, "a": 1}}),
    ("{{ d.values() | join(',') }}\n", {"d": {}}),
])
def test_values_fix_is_a_list(repo, counter, text, data):
    (repo / "t.j2").write_text(text + POLICY + "\n")
    (one,) = fixes(repo, counter, unsafe=False)
    assert render(one.after, **data) == render(text + POLICY + "\n", d=dict(sorted(data["d"].items())))


def test_moved_paragraph_keeps_every_blank_line(repo, counter):
    text = "Time: {{ now() }}\r" + "\r" * 1000 + POLICY
    (repo / "t.j2").write_bytes(text.encode())
    (one,) = fixes(repo, counter)
    assert one.after == POLICY + "\r" * 1001 + "Time: {{ now() }}"  # reordered, not a byte lost


@pytest.mark.skipif(shutil.which("patch") is None, reason="GNU patch is not installed")
@pytest.mark.parametrize("name", ["support chat.j2", "tab\tname.j2", 'q"uote.j2', "back\\slash.j2", "new\nline.j2", " lead.j2"])
def test_diff_of_an_awkward_file_name_applies(repo, counter, tmp_path_factory, name):
    (repo / name).write_text(f"Time: {{{{ now() }}}}\n{POLICY}\n")
    (one,) = fixes(repo, counter)
    copy = tmp_path_factory.mktemp("copy")
    shutil.copy(repo / name, copy / name)
    run = subprocess.run(["patch", "-p1", "-d", str(copy)], input=one.diff().encode(), capture_output=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert (copy / name).read_text() == one.after


def test_symlink_loops_and_dangling_links_are_named_not_a_traceback(repo, counter, capsys):
    (repo / "ok.j2").write_text(f"{POLICY}\n")
    os.symlink("x.j2", repo / "y.j2")
    os.symlink("y.j2", repo / "x.j2")
    os.symlink("nowhere.j2", repo / "d.j2")
    assert cli("lint", str(repo)) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "x.j2: cannot read" in err and "d.j2: no such file" in err


@pytest.mark.parametrize("suffix", [".json", ".yaml"])
def test_a_key_given_twice_is_read_as_the_loaders_read_it(repo, counter, suffix):
    # json.load and yaml.safe_load keep the last: the fix went to the shadowed first copy.
    old = "{% for k, v in old.items() %}{{ k }}{% endfor %} " + POLICY
    live = "{% for k, v in profile.items() %}{{ k }}{% endfor %} " + POLICY
    text = ('{"messages": [{"role": "system", "content": "%s"}],\n "messages": [{"role": "system", "content": "%s"}]}\n'
            % (old, live))
    (repo / f"p{suffix}").write_text(text)
    (one,) = fixes(repo, counter, unsafe=False)
    assert one.after == text.replace("profile.items()", "profile | dictsort")


def test_a_round_of_fixes_that_breaks_the_template_is_dropped(repo, counter, monkeypatch):
    # The safety net under every rule: whatever a fix writes must still parse.
    import importlib

    pc103 = importlib.import_module("advisor.rules.pc103_unstable_serialization")
    monkeypatch.setitem(pc103._SORTED, "items", " | dictsort %}{% if")  # a fix gone wrong
    (repo / "t.j2").write_text(f"{{% for k, v in profile.items() %}}{{{{ k }}}}{{% endfor %}}\n{POLICY}\n")
    assert fixes(repo, counter, unsafe=False) == []
