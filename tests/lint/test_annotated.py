"""Semgrep-style fixtures: `{# ruleid: CODE #}` on the line before an expected finding,
`{# ok: CODE #}` before a line that must stay clean. Also checks the parallel path."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from advisor.lint import engine
from advisor.lint.config import LintConfig
from advisor.rules import REGISTRY

HERE = Path(__file__).parent
ANNOTATED = HERE / "fixtures" / "annotated"
MARK = re.compile(r"\{#\s*(ruleid|ok):\s*(PC\d{3})\s*#\}")


def expectations(path: Path):
    want, forbid = set(), set()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        for kind, code in MARK.findall(line):
            (want if kind == "ruleid" else forbid).add((code, number + 1))
    return want, forbid


@pytest.mark.parametrize("path", sorted(ANNOTATED.iterdir()), ids=lambda p: p.name)
def test_annotated_fixture(path, counter):
    cfg = LintConfig(ignore=("PC301",))
    result = engine.lint_files([str(path)], cfg, REGISTRY, counter, cwd=ANNOTATED)
    got = {(f.code, f.line) for f in result.findings}
    want, forbid = expectations(path)
    assert want, "a fixture needs at least one ruleid annotation"
    assert want <= got, f"missing: {want - got}"
    assert not (forbid & got), f"unexpected: {forbid & got}"
    unannotated = got - want
    assert not unannotated, f"findings without an annotation: {unannotated}"


def test_parallel_and_serial_runs_agree(counter):
    project = HERE / "fixtures"
    serial = engine.lint_files([str(project)], LintConfig(), REGISTRY, counter, cwd=HERE, parallel=False)
    parallel = engine.lint_files([str(project)], LintConfig(), REGISTRY, counter, cwd=HERE, parallel=True)
    assert serial == parallel and len(serial.files) >= 8


def test_parallel_run_reports_an_unreadable_file_and_lints_the_rest(tmp_path, counter):
    (tmp_path / "ok.j2").write_text("Hello {{ x }}\n")
    (tmp_path / "bad.j2").write_bytes(b"caf\xe9\n")
    runs = [engine.lint_files([str(tmp_path)], LintConfig(), REGISTRY, counter, cwd=tmp_path, parallel=p)
            for p in (True, False)]
    assert runs[0] == runs[1]
    assert runs[0].files == ["ok.j2"]
    assert [reason for _, reason in runs[0].refused] == ["bad.j2:1: not UTF-8 text (bad byte at column 4)"]
