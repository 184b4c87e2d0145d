"""Traffic findings as SARIF or GitHub annotations, through lint's renderers.

``analyze``, ``prescribe`` and ``simulate`` take ``--format sarif|github`` with these: the
findings' paths are shown as lint shows template paths (relative to the repository, POSIX),
and the SARIF driver lists the traffic rules.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Callable, Sequence

from advisor import __version__
from advisor.findings import TRAFFIC_RULES, Finding
from advisor.lint import output
from advisor.lint.engine import display_path, repo_root

def _shown(path: str, root: Path) -> str:
    if not path or path.startswith("<"):  # no file, or <stdin>
        return path or "-"
    return display_path(Path(path), root)


def located(findings: Sequence[Finding], fallback: str = "") -> list[Finding]:
    """The findings with display paths (``fallback``, the first traffic file, for findings that
    name none: a simulated run's), in the renderers' order."""
    root = repo_root(Path.cwd())
    out = [replace(f, path=_shown(f.path or fallback, root)) for f in findings]
    return sorted(out, key=lambda f: (f.path, f.line, f.column, f.code, f.token_offset or 0))


def renderers(findings: Callable[[], Sequence[Finding]], files: Sequence[str]) -> dict[str, Callable[[], str]]:
    """``emit_report`` renderers for the annotation formats; ``findings`` is called once per
    rendering, after the run."""
    first = files[0] if files else ""
    rules = list(TRAFFIC_RULES.values())
    return {
        "sarif": lambda: output.render_sarif(located(findings(), first), len(files), __version__, rules),
        "github": lambda: output.render_github(located(findings(), first), len(files)),
    }
