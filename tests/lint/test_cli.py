"""The CLI contract: exit 0 clean, 1 findings, 2 usage/config/unreadable input."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from advisor.cli import main

LONG = (
    "Follow the support policy exactly. Answer in short numbered steps, cite the policy section you used, "
    "never promise refunds the policy does not allow, and escalate billing disputes above one hundred dollars "
    "to a human agent with a one-line summary of the case.\n"
)
CLEAN = "You are the Tallyfold assistant.\n" + LONG + "Question: {{ question }}\n"
# A clock before about 300 static tokens: an error (above PC101's 256-token floor).
DIRTY = "Current date and time: {{ now }}\n" + LONG * 6 + "Question: {{ question }}\n"
# PC301 measures against the target's minimum: quiet for the default engine (SGLang), 1,024
# tokens for a hosted API.
HOSTED = "target: openai\n"


@pytest.fixture()
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    (tmp_path / ".git").mkdir()  # the repository root: paths print relative to it
    (tmp_path / "prompts").mkdir()
    return tmp_path


def run(args, capsys):
    code = main(args)
    return code, capsys.readouterr().out


def cli(args, cwd, env=None):
    """A real process, to check stderr and the absence of tracebacks."""
    full_env = {k: v for k, v in os.environ.items() if k != "GITHUB_ACTIONS"}
    full_env.update(env or {})
    code = "import sys; from advisor.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, capture_output=True, text=True, env=full_env, timeout=120)


def test_clean_exits_0(project, capsys):
    (project / "prompts" / "ok.j2").write_text(CLEAN)
    code, out = run(["lint", "prompts", "--format", "concise", "--select", "PC1,PC2,PC001"], capsys)
    assert code == 0 and out == ""


def test_info_findings_do_not_fail_by_default_but_do_with_fail_on_info(project, capsys):
    (project / "prompts" / "ok.j2").write_text(CLEAN)
    (project / ".advisor.yaml").write_text(HOSTED)
    code, out = run(["lint", "prompts", "--format", "concise"], capsys)
    assert code == 0 and "PC301" in out
    code, _ = run(["lint", "prompts", "--format", "concise", "--fail-on", "info"], capsys)
    assert code == 1


def test_findings_exit_1(project, capsys):
    (project / "prompts" / "bad.j2").write_text(DIRTY)
    code, out = run(["lint", "prompts", "--format", "concise"], capsys)
    assert code == 1
    assert out.startswith("prompts/bad.j2:1:24: PC101 ")


def test_fail_on_error_ignores_warnings(project, capsys):
    (project / "prompts" / "warn.j2").write_text('{% if user.vip %}VIP.{% endif %}\n' + LONG + "{{ q }}\n")
    code, out = run(["lint", "prompts", "--format", "concise"], capsys)
    assert code == 1 and "PC102" in out
    code, _ = run(["lint", "prompts", "--format", "concise", "--fail-on", "error"], capsys)
    assert code == 0


def test_select_and_ignore(project, capsys):
    (project / "prompts" / "bad.j2").write_text(DIRTY)
    (project / ".advisor.yaml").write_text(HOSTED)
    code, out = run(["lint", "prompts", "--format", "concise", "--ignore", "dynamic-prefix"], capsys)
    assert code == 0 and "PC101" not in out
    code, out = run(["lint", "prompts", "--format", "concise", "--select", "PC3"], capsys)
    assert "PC101" not in out and "PC301" in out


def test_json_output_to_file(project, capsys):
    (project / "prompts" / "bad.j2").write_text(DIRTY)
    code, out = run(["lint", "prompts", "--format", "json", "--output", "report.json"], capsys)
    assert code == 1 and out == ""
    doc = json.loads((project / "report.json").read_text())
    assert doc["summary"]["error"] == 1 and doc["findings"][0]["path"] == "prompts/bad.j2"


def test_github_format_is_automatic_under_actions(project, capsys, monkeypatch):
    (project / "prompts" / "bad.j2").write_text(DIRTY)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    code, out = run(["lint", "prompts"], capsys)
    assert code == 1 and out.startswith("::error file=prompts/bad.j2,line=1,col=24,")


@pytest.mark.parametrize(
    "args",
    [
        ["lint", "prompts", "--format", "xml"],
        ["lint", "prompts", "--fail-on", "fatal"],
        ["lint", "prompts", "--select", "PC999"],
        ["lint", "--no-such-option", "prompts"],
        ["lint"],
    ],
)
def test_bad_usage_exits_2(project, capsys, args):
    (project / "prompts" / "ok.j2").write_text(CLEAN)
    code, _ = run(args, capsys)
    assert code == 2


@pytest.mark.parametrize(
    "config, named",
    [
        ("selct = ['PC101']\n", "selct"),
        ("[rules.PC101]\nmin_tokens = 3\n", "min_tokens"),
        ("[rules.PC101]\nseverity = 'fatal'\n", "severity"),
        ("[rules.PC777]\nseverity = 'error'\n", "PC777"),
        ("fail-on = 'loud'\n", "fail_on"),
    ],
)
def test_bad_config_exits_2_naming_the_key(project, config, named):
    (project / "prompts" / "ok.j2").write_text(CLEAN)
    body = "".join(
        line if not line.startswith("[") else line.replace("[", "[tool.advisor.", 1)
        for line in config.splitlines(keepends=True)
    )
    (project / "pyproject.toml").write_text("[tool.advisor]\n" + body)
    proc = cli(["lint", "prompts"], project)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert named in proc.stderr and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("advisor: error: ") and proc.stderr.count("\n") == 1


def test_missing_path_exits_2_with_one_line(project):
    proc = cli(["lint", "does/not/exist.j2"], project)
    assert proc.returncode == 2
    assert proc.stderr == "advisor: error: does/not/exist.j2: no such file or directory\n"


def test_unreadable_file_exits_2_naming_it(project):
    (project / "prompts" / "latin1.j2").write_bytes(b"caf\xe9 {{ x }}\n")
    proc = cli(["lint", "prompts"], project)
    assert proc.returncode == 2
    assert "prompts/latin1.j2" in proc.stderr and "Traceback" not in proc.stderr


def test_config_discovered_upward_and_isolated(project, capsys, monkeypatch):
    (project / "prompts" / "bad.j2").write_text(DIRTY)
    (project / ".advisor.yaml").write_text("ignore: [PC101]\n")
    monkeypatch.chdir(project / "prompts")
    code, out = run(["lint", ".", "--format", "concise"], capsys)
    assert code == 0 and "PC101" not in out
    code, out = run(["lint", ".", "--format", "concise", "--isolated"], capsys)
    assert code == 1 and "PC101" in out


def test_explicit_config_file_and_severity_override(project, capsys):
    (project / "prompts" / "bad.j2").write_text(DIRTY)
    (project / "lint.yaml").write_text("rules:\n  dynamic-prefix:\n    severity: info\n")
    code, out = run(["lint", "prompts", "--format", "json", "--config", "lint.yaml"], capsys)
    assert code == 0
    assert json.loads(out)["findings"][0]["severity"] == "info"


def test_rules_and_rule_commands(capsys):
    code, out = run(["rules"], capsys)
    assert code == 0 and "PC101  dynamic-prefix" in out and "PC301" in out
    code, out = run(["rule", "PC101"], capsys)
    assert code == 0 and out.startswith("# PC101 dynamic-prefix")
    for section in ("## What it does", "## Why is this bad?", "## Example", "## Use instead", "## Options"):
        assert section in out
    code, out = run(["rule", "short-prefix"], capsys)
    assert code == 0 and "PC301" in out
    code, _ = run(["rule", "nope"], capsys)
    assert code == 2


def test_non_templates_are_named_as_skipped_and_nothing_lintable_exits_2(project):
    (project / "traffic").mkdir()
    (project / "traffic" / "rag.jsonl").write_text('{"prompt": "x"}\n')
    (project / "traffic" / "app.py").write_text("print('hi')\n")
    (project / "traffic" / "config.yaml").write_text("name: x\n")
    proc = cli(["lint", "traffic"], project)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert lines[:3] == [
        "advisor: skipped traffic/app.py: not a prompt builder (no LLM client, message list, system prompt or template in it)",
        "advisor: skipped traffic/config.yaml: not a prompt template (YAML/JSON without a `messages` list or a `chat_template`)",
        "advisor: skipped traffic/rag.jsonl: not a prompt template (.jsonl files are not linted; see docs/lint.md, Inputs)",
    ]
    assert lines[3] == "advisor: error: no templates found in traffic (3 files skipped; see docs/lint.md, Inputs)"
    assert "Traceback" not in proc.stderr and len(lines) == 4


def test_a_named_non_template_is_skipped_not_linted(project):
    # Python files are linted as prompt builders (docs/lint.md); one without anything about
    # prompts in it is skipped without being parsed.
    (project / "prompts" / "ok.j2").write_text(CLEAN)
    (project / "app.py").write_text("x = '{{ now }}'\n")
    proc = cli(["lint", "prompts/ok.j2", "app.py", "--format", "concise", "--select", "PC101"], project)
    assert proc.returncode == 0 and proc.stdout == ""
    assert "advisor: skipped app.py: not a prompt builder" in proc.stderr


def test_allow_empty_for_pre_commit(project):
    (project / "notes.md").write_text("# notes\n")
    proc = cli(["lint", "notes.md", "--allow-empty"], project)
    assert proc.returncode == 0, proc.stderr
    assert "advisor: skipped notes.md" in proc.stderr
