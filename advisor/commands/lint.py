"""`advisor lint`, `advisor rules`, `advisor rule`: option parsing only; the work is in advisor.lint."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from pathlib import Path
from typing import Iterable, List, Optional

import typer

from advisor import __version__
from advisor.cli import app
from advisor.commands.common import check_output, emit, emit_bytes, is_stdout
from advisor.console import write_stdout
from advisor.errors import AdvisorError
from advisor.findings import TRAFFIC_RULES, TrafficRule
from advisor.lint import config as lint_config
from advisor.lint import engine, output
from advisor.lint.rule import SEVERITIES
from advisor.rules import REGISTRY, find


def _split(values: list[str]) -> tuple[str, ...]:
    return tuple(v.strip() for raw in values for v in raw.split(",") if v.strip())


def _emit(text: str, destination: Optional[Path], exact: bool = False) -> None:
    """The report, or with ``exact`` the diff: a diff keeps every byte of the templates (a
    lone CR, a form feed) as `patch` must see them, where a report shows them escaped."""
    if is_stdout(destination):
        if text:
            write_stdout(text)
        return
    assert destination is not None
    try:
        # Temp file, then rename: an interrupted run leaves no partial report.
        emit_bytes(text.encode("utf-8"), destination) if exact else emit(text, destination)
    except OSError as exc:
        raise AdvisorError(f"{destination}: cannot write output ({exc.strerror or exc})") from None


@app.command("lint")
def lint(
    paths: List[str] = typer.Argument(..., metavar="PATH", help="Template files or folders to lint."),
    fmt: Optional[str] = typer.Option(None, "--format", "--output-format", metavar="FORMAT", help="text, concise, json, sarif or github (default: github under GITHUB_ACTIONS=true, else text)."),
    destination: Optional[Path] = typer.Option(None, "--output", "-o", metavar="FILE", help="Write the report to FILE instead of stdout."),
    config: Optional[str] = typer.Option(None, "--config", metavar="FILE", help="Read settings from FILE (.advisor.yaml or pyproject.toml)."),
    isolated: bool = typer.Option(False, "--isolated", help="Ignore all configuration files."),
    select: List[str] = typer.Option([], "--select", metavar="RULES", help="Rules to run: codes, prefixes (PC1) or names; comma-separated or repeated."),
    ignore: List[str] = typer.Option([], "--ignore", metavar="RULES", help="Rules to skip: codes, prefixes or names."),
    fail_on: Optional[str] = typer.Option(None, "--fail-on", metavar="SEVERITY", help="Lowest severity that makes the exit status 1: error, warning or info (default: warning)."),
    tokenizer: Optional[str] = typer.Option(None, "--tokenizer", metavar="NAME", help="Tokenizer for counting static tokens (default: llama3)."),
    allow_empty: bool = typer.Option(False, "--allow-empty", help="Exit 0 rather than 2 when no given file is a prompt template (pre-commit passes whatever changed)."),
    fix: bool = typer.Option(False, "--fix", help="Apply the safe fixes (e.g. sorted keys) to the files, then report what remains."),
    unsafe_fixes: bool = typer.Option(False, "--unsafe-fixes", help="Also apply fixes that change the prompt text (a dynamic line moved after the static text); implies --fix unless --diff."),
    diff: bool = typer.Option(False, "--diff", help="Print the fixes as a unified diff instead of writing them (exit 1 when there is one)."),
) -> None:
    """Lint prompt templates for patterns that break prefix caching."""
    if fmt is None:
        fmt = "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"
    if fmt not in output.FORMATS:
        raise typer.BadParameter(f"'{fmt}' is not one of {', '.join(output.FORMATS)}", param_hint="--format")
    if fail_on is not None and fail_on not in SEVERITIES:
        raise typer.BadParameter(f"'{fail_on}' is not one of {', '.join(SEVERITIES)}", param_hint="--fail-on")
    check_output(destination, [*paths, *([config] if config else [])])
    cfg = lint_config.resolve(config, isolated, Path.cwd(), REGISTRY)
    overrides: dict = {}
    for name, values in (("--select", _split(select)), ("--ignore", _split(ignore))):
        for sel in values:
            if not lint_config.matching(sel, REGISTRY):
                raise typer.BadParameter(f"unknown rule '{sel}' (see `advisor rules`)", param_hint=name)
    if select:
        overrides["select"] = _split(select)
    if ignore:
        overrides["ignore"] = cfg.ignore + _split(ignore)
    if overrides:
        cfg = lint_config.LintConfig(**{**cfg.__dict__, **overrides})
    counter = engine.default_counter(tokenizer or cfg.tokenizer or "llama3")
    result = engine.lint_files(list(paths), cfg, REGISTRY, counter)
    _report_skipped(result.skipped)
    for _, reason in result.refused:  # one line each; the other files are linted and reported
        sys.stderr.write(f"advisor: error: {reason}\n")
    if result.refused and not result.files:
        raise typer.Exit(code=2)
    if not result.files and not result.excluded and not allow_empty:
        named = ", ".join(paths)
        raise AdvisorError(f"no templates found in {named} ({len(result.skipped)} files skipped; see docs/lint.md, Inputs)")
    if diff or fix or unsafe_fixes:
        if diff:
            shown = list(engine.fix_files(list(paths), result, cfg, REGISTRY, counter, unsafe=unsafe_fixes))
            _emit("".join(f.diff() for f in shown), destination, exact=True)
            sys.stderr.write(f"advisor: would fix {_count(sum(f.count for f in shown), 'finding')} in {_count(len(shown), 'file')}\n")
            if result.refused:
                raise typer.Exit(code=2)
            if shown:
                raise typer.Exit(code=1)
            return
        written, not_written = _write_fixes(engine.fix_files(list(paths), result, cfg, REGISTRY, counter, unsafe=unsafe_fixes))
        sys.stderr.write(f"advisor: fixed {_count(sum(f.count for f in written), 'finding')} in {_count(len(written), 'file')}\n")
        if written:
            result = engine.lint_files(list(paths), cfg, REGISTRY, counter)
        if not_written:
            result = dataclasses.replace(result, refused=sorted({*result.refused, *not_written}, key=lambda r: r[1]))
    active = [a.rule for a in lint_config.active_rules(cfg, REGISTRY)]
    color = fmt == "text" and destination is None and sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    _emit(output.render(fmt, result.findings, len(result.files), __version__, active, color=color), destination)
    if result.refused:
        raise typer.Exit(code=2)  # input was refused: the report covers only the rest
    if engine.fails(result.findings, fail_on or cfg.fail_on or "warning"):
        raise typer.Exit(code=1)


def _write_fixes(fixed: Iterable[engine.FileFix]) -> tuple[list[engine.FileFix], list[tuple[str, str]]]:
    """Write each fixed file as soon as it is computed; a file that cannot be written (it
    changed meanwhile, it has hard links, ...) is named on stderr and the others go on."""
    written, refused = [], []
    for f in fixed:
        try:
            f.write()
        except AdvisorError as exc:
            sys.stderr.write(f"advisor: error: {exc}\n")
            refused.append((f.shown, str(exc)))
            continue
        written.append(f)
    return written, refused


def _count(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


# Enough names to see what happened; a folder of thousands of other files stays readable.
_SKIPPED_SHOWN = 20


def _report_skipped(skipped: list[tuple[str, str]]) -> None:
    for shown, why in skipped[:_SKIPPED_SHOWN]:
        sys.stderr.write(f"advisor: skipped {shown}: {why}\n")
    if len(skipped) > _SKIPPED_SHOWN:
        sys.stderr.write(f"advisor: skipped {len(skipped) - _SKIPPED_SHOWN} more files that are not prompt templates\n")


@app.command("rules")
def rules_command(
    fmt: str = typer.Option("text", "--format", metavar="FORMAT", help="text or json."),
) -> None:
    """List the lint rules and the traffic rules."""
    ordered = sorted(REGISTRY.values(), key=lambda r: r.code)
    # The traffic codes (analyze, prescribe, simulate) after the lint rules, as their own group.
    traffic = sorted(TRAFFIC_RULES.values(), key=lambda r: r.code)
    if fmt == "json":
        doc = [
            {"code": r.code, "name": r.name, "severity": r.severity, "summary": r.summary,
             "options": {k: {"type": o.type.__name__, "default": o.default, "help": o.help} for k, o in r.options.items()}}
            for r in ordered
        ]
        # The same keys: a traffic code has no options (it is not a lint rule to --select).
        doc += [{"code": r.code, "name": r.name, "severity": r.severity, "summary": r.summary, "options": {}}
                for r in traffic]
        write_stdout(json.dumps(doc, indent=2))
        return
    if fmt != "text":
        raise typer.BadParameter(f"'{fmt}' is not one of text, json", param_hint="--format")
    width = max(len(r.name) for r in (*ordered, *traffic))
    groups = ("".join(f"{r.code}  {r.name.ljust(width)}  {r.severity.ljust(7)}  {r.summary}\n" for r in group)
              for group in (ordered, traffic))
    write_stdout("\n".join(groups))


def _traffic_rule(code_or_name: str) -> TrafficRule | None:
    """A traffic code by code or name, as ``advisor.rules.find`` finds a lint rule (a name
    both use, section-order, stays the lint rule's: the traffic code is found by its code)."""
    key = code_or_name.strip()
    return next((r for r in TRAFFIC_RULES.values() if key.upper() == r.code or key.lower() == r.name), None)


@app.command("rule")
def rule_command(code_or_name: str = typer.Argument(..., metavar="CODE_OR_NAME")) -> None:
    """Print one rule's documentation."""
    rule = find(code_or_name)
    if rule is None:
        traffic = _traffic_rule(code_or_name)
        if traffic is None:
            raise AdvisorError(f"unknown rule '{code_or_name}' (see `advisor rules`)")
        # The lint rules' shape: title, default severity, the doc sections (no options).
        write_stdout("\n".join([f"# {traffic.code} {traffic.name}\n", f"Default severity: {traffic.severity}\n",
                                traffic.docs.rstrip() + "\n"]))
        return
    parts = [f"# {rule.code} {rule.name}\n", f"Default severity: {rule.severity}\n", rule.docs.rstrip() + "\n"]
    if rule.options:
        parts.append("## Options")
        parts.extend(f"- `{k}` ({o.type.__name__}, default {o.default!r}): {o.help}" for k, o in rule.options.items())
    write_stdout("\n".join(parts))
