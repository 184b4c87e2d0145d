"""One prompt-file reader: the linter's pieces and the renderer's messages agree on every
prompt-file kind (roles, order and text), because both read the file through
advisor.ingest.prompt_files."""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor.errors import AdvisorError
from advisor.ingest import prompt_files
from advisor.ingest.prompt_templates import PromptTemplate, TemplateSet
from advisor.ingest.sandbox import LimitedSandbox, compile_untrusted, render_untrusted
from advisor.lint import sources

VARIABLES = {"team": "Keel", "task": "restart ledger-api", "question": "why?", "tools_json": "[]"}

FILES = {
    "tool_section.prompty": (
        "---\nname: agent\nmodel:\n  parameters:\n    tools: []\n---\n"
        "system:\nYou are {{ team }}, the on-call agent.\n\ntool:\n{{ tools_json }}\n\nuser:\n{{ task }}\n"
    ),
    "leading_text.prompty": "---\nname: x\n---\nYou are the support assistant.\nuser:\n{{ question }}\n",
    "hash_roles.prompty": "# system:\nBe brief.\n#user:\n{{ question }}\nassistant:\nSure.\nfunction:\n{}\n",
    "no_front_matter.prompty": "system:\nBe brief.\ndeveloper:\nUse tools.\nuser:\n{{ question }}\n",
    "messages.yaml": (
        "messages:\n  - role: system\n    content: |-\n      You are {{ team }}.\n  - role: tool\n    content: \"{{ tools_json }}\"\n"
        "  - role: user\n    content:\n      - type: text\n        text: \"{{ task }}\"\n      - type: text\n        text: Thanks.\n"
    ),
    "messages.json": '{"messages": [{"role": "developer", "content": "Be brief."}, {"role": "user", "content": "{{ question }}"}]}\n',
}


def lint_messages(path: Path) -> list[tuple[str, str]]:
    """What the linter reads: (role, text rendered with VARIABLES), one per message."""
    loaded = sources.load(path, path.read_text(encoding="utf-8"))
    assert loaded is not None and loaded.error is None
    env = LimitedSandbox()
    out: list[tuple[str, str]] = []
    for piece in loaded.pieces:
        text = render_untrusted(compile_untrusted(env, piece.text, str(path)), VARIABLES)
        if piece.role:
            out.append((piece.role, text))
        else:  # a further text part of the same message
            role, before = out[-1]
            out[-1] = (role, before + "\n" + text)
    return [(role, text.strip()) for role, text in out]


@pytest.mark.parametrize("name", sorted(FILES))
def test_lint_roles_equal_rendered_roles(name, tmp_path):
    path = tmp_path / name
    path.write_text(FILES[name], encoding="utf-8")
    rendered = PromptTemplate(path, LimitedSandbox()).render(VARIABLES).messages
    assert rendered is not None
    assert lint_messages(path) == [(m["role"], m["content"]) for m in rendered]


def test_the_tool_section_is_its_own_message(tmp_path):
    path = tmp_path / "agent.prompty"
    path.write_text(FILES["tool_section.prompty"], encoding="utf-8")
    rendered = PromptTemplate(path, LimitedSandbox()).render(VARIABLES).messages
    assert [m["role"] for m in rendered] == ["system", "tool", "user"]
    assert rendered[1]["content"] == "[]" and "tool:" not in rendered[0]["content"]


def test_text_templates_have_no_roles_on_either_side(tmp_path):
    path = tmp_path / "plain.j2"
    path.write_text("system:\nYou are {{ team }}.\n", encoding="utf-8")
    loaded = sources.load(path, path.read_text())
    assert loaded is not None and [p.role for p in loaded.pieces] == [None]
    assert PromptTemplate(path, LimitedSandbox()).render(VARIABLES).prompt == "system:\nYou are Keel."


def test_json_prompt_files_are_found_by_name(tmp_path):
    (tmp_path / "qa.json").write_text(FILES["messages.json"], encoding="utf-8")
    rendered = TemplateSet([tmp_path]).get("qa").render(VARIABLES).messages
    assert rendered == ({"role": "developer", "content": "Be brief."}, {"role": "user", "content": "why?"})


def test_unclosed_front_matter_is_one_error_for_both(tmp_path):
    path = tmp_path / "open.prompty"
    path.write_text("---\nname: x\nsystem:\nhello\n", encoding="utf-8")
    loaded = sources.load(path, path.read_text())
    assert loaded is not None and loaded.error == ("front matter is not closed by '---'", 1)
    with pytest.raises(AdvisorError, match=r"open\.prompty:1: front matter is not closed"):
        PromptTemplate(path, LimitedSandbox())


def test_role_lines_are_one_definition():
    from advisor.ingest import prompt_templates
    from advisor.prescribe import template_diff

    assert prompt_templates.ROLE_LINE is prompt_files.ROLE_LINE
    assert template_diff._ANY_ROLE_LINE is prompt_files.ROLE_LINE
    # The lint reads the prompt files every command reads, and Python prompt builders.
    assert set(sources.ALL_SUFFIXES) == set(prompt_files.TEXT_SUFFIXES + prompt_files.DATA_SUFFIXES + prompt_files.PROMPTY_SUFFIXES
                                            + sources.PYTHON_SUFFIXES)
