"""What the interactive HTML report shows beyond the JSON report: its ``views`` key.

Plain data, deterministic: the prefix tree for the icicle and the divergence examples
(``advisor.index.tree_view``), the lint findings' template excerpts, and (from
``advisor.advise.facts`` with ``ReportOptions(views=True)``) the capacity curve of the
traffic after the prescribed rewrite. ``analyze`` and ``prescribe`` get theirs from
``traffic_views``, the advisory from ``build``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterable, Sequence as SequenceOf

from advisor.diagnose.detect import Diagnosis
from advisor.errors import AdvisorError
from advisor.findings import Finding
from advisor.index.analyze import Analysis, Analyzer
from advisor.index.tree_view import MAX_NODES, divergence_examples, tree_view
from advisor.ingest.pipeline import Sequence
from advisor.prescribe.actions import Prescription

EXCERPTS = 200  # lint findings given an excerpt at most
EXCERPT_CONTEXT = 3  # lines shown before and after a finding's line
EXCERPT_LINE_CHARS = 200  # characters of an excerpt line at most


def traffic_views(seqs: SequenceOf[Sequence], decode: Callable[[list[int]], str], analysis: Analysis | None = None,
                  diagnosis: Diagnosis | None = None, prescription: Prescription | None = None,
                  findings: Iterable[Finding] | None = None, page_size: int = 1,
                  max_nodes: int = MAX_NODES) -> dict[str, Any]:
    """The ``views`` of ``analyze --format html`` and ``prescribe --format html``.

    ``seqs`` are the sequences in arrival order; ``analysis`` the unlimited-cache analysis of
    them (None: built here, at ``page_size``); the divergence examples are of ``findings``
    (default: the prescription's, else the diagnosis's: the list the command's JSON shows),
    and show each request after the rewrite when ``prescription`` is given.
    """
    if analysis is None:
        analysis = Analyzer(page_size).add_all(seqs)
    if findings is None:
        findings = prescription.findings if prescription is not None else (
            diagnosis.findings if diagnosis is not None else [])
    rewritten = prescription.rewritten if prescription is not None and prescription.rewritten else None
    if rewritten is not None and len(rewritten) != len(seqs):
        rewritten = None  # not the same traffic: no before and after to pair
    return {
        "tree": tree_view(analysis, decode, seqs, max_nodes),
        "divergence": divergence_examples(analysis, seqs, decode, list(findings), rewritten),
    }


def lint_excerpts(lint: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A few lines of the template around each lint finding's line (``index``: the
    finding's place in ``lint``), read the way the linter reads templates (regular files,
    capped); a file that cannot be read gets no excerpt."""
    from advisor.lint.lines import normalize
    from advisor.lint.sources import read_text

    files: dict[str, list[str] | None] = {}
    out: list[dict[str, Any]] = []
    for index, f in enumerate(lint[:EXCERPTS]):
        path, line = f.get("path") or "", f.get("line") or 0
        if not path or line < 1:
            continue
        if path not in files:
            try:
                files[path] = normalize(read_text(Path(path), path)).split("\n")
            except (AdvisorError, OSError, ValueError):
                files[path] = None
        lines = files[path]
        if lines is None or line > len(lines):
            continue
        first = max(1, line - EXCERPT_CONTEXT)
        last = min(len(lines), line + EXCERPT_CONTEXT)
        out.append({"index": index, "path": path, "line": line, "first_line": first,
                    "lines": [_cut(text) for text in lines[first - 1:last]]})
    return out


def _cut(text: str) -> str:
    return text if len(text) <= EXCERPT_LINE_CHARS else text[: EXCERPT_LINE_CHARS - 1] + "…"
