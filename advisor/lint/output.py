"""Renderers: pure functions from one sorted finding list to the text of one format.

Every renderer gets the same inputs (findings already sorted by path, line, column, code),
so formats never disagree, and returns a string, so tests compare it with a golden file.
SARIF and GitHub annotations also render traffic findings (TR codes, ``analyze``/``simulate``
``--format sarif|github``): their location is the traffic file and the line of the first
record that shows them, or the whole file (line 0), and their figures ride along.
"""

from __future__ import annotations

import io
import json
from collections import Counter
from typing import Any, Iterable, Protocol, Sequence

from rich.console import Console
from rich.text import Text

from advisor.findings import Finding
from advisor.lint.rule import SEVERITIES

FORMATS = ("text", "concise", "json", "sarif", "github")
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}
_GITHUB_LEVEL = {"error": "error", "warning": "warning", "info": "notice"}
_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}


class RuleInfo(Protocol):
    """What the SARIF driver lists of a rule: lint's ``Rule`` and ``advisor.findings.TrafficRule``."""

    @property
    def code(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def severity(self) -> str: ...
    @property
    def summary(self) -> str: ...
    @property
    def docs(self) -> str: ...


def summary(findings: Iterable[Finding], files: int) -> dict[str, int]:
    counts = Counter(f.severity for f in findings)
    return {"files": files, **{sev: counts.get(sev, 0) for sev in SEVERITIES}}


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 or word == "info" else "s")


def summary_line(findings: list[Finding], files: int) -> str:
    s = summary(findings, files)
    where = _plural(files, "file")
    if not findings:
        return f"All checks passed: no findings in {where}."
    parts = ", ".join(_plural(s[sev], sev) for sev in SEVERITIES)
    return f"Found {_plural(len(findings), 'finding')} ({parts}) in {where}."


def render_text(findings: list[Finding], files: int, color: bool = False) -> str:
    buf = io.StringIO()
    console = Console(
        file=buf,
        force_terminal=color,
        no_color=not color,
        color_system="standard" if color else None,
        width=200,
        soft_wrap=True,
        highlight=False,
    )
    current = None
    for f in findings:
        if f.path != current:
            if current is not None:
                console.print()
            console.print(Text(f.path, style="bold underline"))
            current = f.path
        line = Text("  ")
        line.append(f"{f.line}:{f.column}".ljust(8), style="dim")
        line.append(f.code.ljust(7), style=_STYLE[f.severity])
        line.append(f.severity.ljust(8), style=_STYLE[f.severity])
        line.append(f.message)
        if f.tokens_at_risk:
            line.append(f" [{f.tokens_at_risk} tokens]", style="dim")
        console.print(line)
    if findings:
        console.print()
    console.print(Text(summary_line(findings, files), style="bold"))
    return buf.getvalue()


def render_concise(findings: list[Finding], files: int) -> str:
    return "".join(f"{f.path}:{f.line}:{f.column}: {f.code} {f.message}\n" for f in findings)


def _finding_dict(f: Finding) -> dict:
    out = {
        "code": f.code,
        "rule": f.rule,
        "severity": f.severity,
        "path": f.path,
        "line": f.line,
        "column": f.column,
        "end_line": f.end_line if f.end_line is not None else f.line,
        "end_column": f.end_column if f.end_column is not None else f.column,
        "message": f.message,
        "tokens_at_risk": f.tokens_at_risk,
    }
    if f.fix is not None:
        # As ruff's JSON: whether `--fix` applies it, or only `--unsafe-fixes`.
        out["fix"] = {"applicability": f.fix.applicability, "message": f.fix.message}
    return out


def render_json(findings: list[Finding], files: int, version: str) -> str:
    doc = {
        "tool": {"name": "advisor", "version": version},
        "findings": [_finding_dict(f) for f in findings],
        "summary": summary(findings, files),
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def _region(f: Finding) -> dict | None:
    if f.line < 1:
        return None  # a finding about the whole file (traffic)
    if f.column < 1:
        return {"startLine": f.line}  # a record's line
    region = {"startLine": f.line, "startColumn": f.column}
    if f.end_line is not None and f.end_column is not None and (f.end_line, f.end_column) > (f.line, f.column):
        region["endLine"] = f.end_line
        region["endColumn"] = f.end_column
    return region


def _traffic_figures(f: Finding) -> str:
    """A traffic finding's figures for a one-line message: where in the prompt, how much."""
    if not f.kind:
        return ""  # a simulated run's finding: the message names its figures
    where = f"token {f.token_offset:,}; " if f.token_offset is not None else ""
    return f" [{where}{f.requests:,} requests; {f.tokens_lost:,} tokens lost]"


def _message(f: Finding) -> str:
    return f.message + (_traffic_figures(f) if f.is_traffic else "")


def _properties(f: Finding) -> dict[str, Any] | None:
    if not f.is_traffic:
        return {"tokens_at_risk": f.tokens_at_risk} if f.tokens_at_risk is not None else None
    if not f.kind:
        return dict(f.details)
    return {"token_offset": f.token_offset, "kind": f.kind, "requests": f.requests,
            "tokens_lost": f.tokens_lost, "example": f.example}


def render_sarif(findings: list[Finding], files: int, version: str, rules: Sequence[RuleInfo]) -> str:
    rules = sorted(rules, key=lambda r: r.code)
    index = {r.code: i for i, r in enumerate(rules)}
    driver = {
        "name": "advisor",
        "version": version,
        "rules": [
            {
                "id": r.code,
                "name": r.name,
                "shortDescription": {"text": r.summary},
                "fullDescription": {"text": r.summary},
                "help": {"text": r.docs, "markdown": r.docs},
                "defaultConfiguration": {"level": _SARIF_LEVEL[r.severity]},
            }
            for r in rules
        ],
    }
    results = []
    for f in findings:
        physical: dict[str, Any] = {"artifactLocation": {"uri": f.path, "uriBaseId": "%SRCROOT%"}}
        region = _region(f)
        if region is not None:
            physical["region"] = region
        result: dict[str, Any] = {
            "ruleId": f.code,
            "level": _SARIF_LEVEL[f.severity],
            "message": {"text": _message(f)},
            "locations": [{"physicalLocation": physical}],
        }
        if f.code in index:
            result["ruleIndex"] = index[f.code]
        properties = _properties(f)
        if properties is not None:
            result["properties"] = properties
        results.append(result)
    doc = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{"tool": {"driver": driver}, "columnKind": "unicodeCodePoints", "results": results}],
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(findings: list[Finding], files: int) -> str:
    lines = []
    for f in findings:
        props = [f"file={_escape_property(f.path)}"]
        if f.line >= 1:  # line 0: an annotation of the whole file
            props.append(f"line={f.line}")
            if f.column >= 1:
                props.append(f"col={f.column}")
                if f.end_line is not None and f.end_column is not None:
                    props += [f"endLine={f.end_line}", f"endColumn={f.end_column}"]
        props.append(f"title={_escape_property(f'advisor {f.code}')}")
        lines.append(f"::{_GITHUB_LEVEL[f.severity]} {','.join(props)}::{_escape_data(_message(f))}\n")
    return "".join(lines)


def render(fmt: str, findings: list[Finding], files: int, version: str, rules: Sequence[RuleInfo],
           color: bool = False) -> str:
    if fmt == "text":
        return render_text(findings, files, color)
    if fmt == "concise":
        return render_concise(findings, files)
    if fmt == "json":
        return render_json(findings, files, version)
    if fmt == "sarif":
        return render_sarif(findings, files, version, rules)
    if fmt == "github":
        return render_github(findings, files)
    raise ValueError(fmt)
