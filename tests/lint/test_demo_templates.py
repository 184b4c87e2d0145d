"""`advisor lint templates/` on the demo templates reports the planted defect and nothing else."""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor.lint import engine
from advisor.lint.config import LintConfig
from advisor.rules import REGISTRY

REPO = Path(__file__).resolve().parents[2]
TEMPLATES = REPO / "templates"
DEMO = ("support_chat.j2", "rag_tools.yaml", "agent_tools.prompty")


def test_demo_templates_report_exactly_the_planted_defect(counter):
    result = engine.lint_files([str(TEMPLATES)], LintConfig(), REGISTRY, counter, cwd=REPO)
    assert {f"templates/{n}" for n in DEMO} <= set(result.files)
    got = [(f.path, f.line, f.code) for f in result.findings]
    assert got == [("templates/support_chat.j2", 1, "PC101")]
    finding = result.findings[0]
    assert finding.column == 24 and finding.tokens_at_risk > 1000
    assert "clock" in finding.message


def test_fixture_copy_of_the_planted_defect(counter, tmp_path):
    # The same defect on a copy that does not depend on the demo folder.
    body = "You are Juniper, the support assistant. " * 150
    (tmp_path / "support_chat.j2").write_text("Current date and time: {{ now }}\n\n" + body + "\nCustomer: {{ message }}\n")
    result = engine.lint_files([str(tmp_path)], LintConfig(), REGISTRY, counter, cwd=tmp_path)
    assert [(f.path, f.line, f.column, f.code) for f in result.findings] == [("support_chat.j2", 1, 24, "PC101")]
