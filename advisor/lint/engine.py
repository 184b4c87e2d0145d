"""The lint engine: find files, build models, run the active rules, apply suppressions.

Rules yield problems; the engine stamps code, name, configured severity and path on them,
drops what inline comments suppress, reports suppressions that silenced nothing, and
returns one sorted list. Output formats are not its business.
"""

from __future__ import annotations

import fnmatch
import functools
import os
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Callable, Iterable, Iterator

from advisor.cores import idle_cores
from advisor.errors import AdvisorError
from advisor.findings import Finding
from advisor.ingest import safe_open
from advisor.ingest.safe_open import resolve_inside
from advisor.lint import sources, suppress
from advisor.lint import fix as fixes
from advisor.lint.config import ActiveRule, LintConfig, active_rules
from advisor.lint import limits, targets
from advisor.lint.limits import LintStopped, MarkerPattern
from advisor.lint import write
from advisor.lint import python as python_lint
from advisor.lint.lines import BOM, normalize
from advisor.lint.model import DEFAULT_STATIC_VARIABLES, Piece, Settings, SyntaxIssue, TemplateModel, build_model
from advisor.lint.python import PythonModel
from advisor.lint.rule import SEVERITIES, Context, Problem, Rule, capped, token_counter

# A linted file: a template, or a Python prompt builder (advisor.lint.python).
Model = TemplateModel | PythonModel

# Folders a directory walk never enters: tooling state, not prompts.
SKIP_DIRS = frozenset(
    {".git", ".hg", ".svn", ".venv", "venv", "node_modules", "__pycache__", ".tox", ".mypy_cache", ".pytest_cache", "build", "dist"}
)


@dataclass(frozen=True)
class LintResult:
    findings: list[Finding]
    files: list[str]
    # Files that were looked at and are not prompt templates: (shown path, why).
    skipped: list[tuple[str, str]] = field(default_factory=list)
    excluded: int = 0  # files left out by `exclude` patterns
    # Files and folders that could not be read (a FIFO, a link out of the tree, too large,
    # unreadable): (shown path, the one-line reason). The rest is linted; the run fails.
    refused: list[tuple[str, str]] = field(default_factory=list)


def _not_a_template(name: str) -> str:
    suffix = PurePosixPath(name).suffix.lower()
    kind = f"{suffix} files are" if suffix else "files without a suffix are"
    return f"not a prompt template ({kind} not linted; see docs/lint.md, Inputs)"


def repo_root(cwd: Path) -> Path:
    """The repository folder (nearest ancestor with .git), else the working folder."""
    cwd = cwd.resolve()
    for folder in (cwd, *cwd.parents):
        if (folder / ".git").exists():
            return folder
    return cwd


def display_path(path: Path, root: Path) -> str:
    # realpath, not resolve(): a symlink loop is the file's problem (refused when opened,
    # naming it), never a RuntimeError here. A dangling or looping link is named itself.
    resolved = Path(os.path.realpath(path))
    if not os.path.exists(resolved):
        resolved = Path(os.path.realpath(path.parent)) / path.name
    try:
        return resolved.relative_to(root).as_posix()
    except ValueError:
        return resolved.as_posix()


def _excluded(shown: str, patterns: Iterable[str]) -> bool:
    parts = PurePosixPath(shown).parts
    for pattern in patterns:
        pat = pattern.rstrip("/")
        if fnmatch.fnmatch(shown, pat) or fnmatch.fnmatch(shown, pat + "/*"):
            return True
        if "/" not in pat and any(fnmatch.fnmatch(part, pat) for part in parts):
            return True
    return False


def collect(
    paths: list[str], root: Path, exclude: Iterable[str], skipped: list[tuple[str, str]] | None = None,
    excluded: list[str] | None = None, refused: list[tuple[str, str]] | None = None,
) -> list[tuple[Path, str]]:
    """Files to lint, each once, with its repository-relative POSIX path, in path order.

    Files that are not prompt templates go to ``skipped`` with the reason, files that
    ``exclude`` leaves out to ``excluded``, so that a run can say what it did not lint;
    paths that cannot be used (missing, unreadable, a link out of the folder) to
    ``refused`` with the one-line reason, and the rest are still linted.
    """
    exclude = tuple(exclude)
    skipped = skipped if skipped is not None else []
    excluded = excluded if excluded is not None else []
    refused = refused if refused is not None else []
    found: dict[str, Path] = {}

    def walk_error(exc: OSError) -> None:
        # os.walk skips an unreadable folder silently unless told: a lint that checks less
        # than it was given must say so.
        shown = display_path(Path(exc.filename), root) if exc.filename else "?"
        refused.append((shown, f"{shown}: cannot read directory ({exc.strerror or exc})"))

    for raw in paths:
        path = Path(raw)
        if not os.path.lexists(path):
            refused.append((raw, f"{raw}: no such file or directory"))
            continue
        if path.is_dir():
            if not os.access(path, os.R_OK | os.X_OK):
                refused.append((raw, f"{raw}: cannot read directory"))
                continue
            for folder, dirs, files in os.walk(path, onerror=walk_error):
                dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
                for name in sorted(files):
                    file = Path(folder) / name
                    shown = display_path(file, root)
                    if _excluded(shown, exclude):
                        excluded.append(shown)
                    elif not name.lower().endswith(sources.ALL_SUFFIXES):
                        if not name.startswith("."):
                            skipped.append((shown, _not_a_template(name)))
                    elif shown not in found:
                        # A committed symlink may not reach outside the folder linted;
                        # the resolved path is what gets opened (O_NOFOLLOW).
                        try:
                            found[shown] = resolve_inside(file, path)
                        except AdvisorError as exc:
                            refused.append((shown, str(exc)))
        else:
            shown = display_path(path, root)
            # Excludes apply to named files too: pre-commit passes files one by one.
            if _excluded(shown, exclude):
                excluded.append(shown)
            elif not path.name.lower().endswith(sources.ALL_SUFFIXES):
                skipped.append((shown, _not_a_template(path.name)))
            elif os.path.realpath(path) != os.path.abspath(path):
                # Reached through a symlink (pre-commit names committed files one by one): it
                # may not lead out of the repository, as in a folder walk.
                try:
                    found.setdefault(shown, resolve_inside(path, root))
                except AdvisorError as exc:
                    refused.append((shown, f"{raw}: {str(exc).split(': ', 1)[-1]}"))
            else:
                found.setdefault(shown, path)
    return sorted(((p, s) for s, p in found.items()), key=lambda ps: ps[1])


def settings_for(config: LintConfig) -> Settings:
    static = (DEFAULT_STATIC_VARIABLES | set(config.static_variables)) - set(config.dynamic_variables)
    return Settings(
        static_variables=frozenset(static),
        section_markers=tuple(MarkerPattern(p) for p in config.section_markers),  # type: ignore[misc]
        trim_blocks=config.trim_blocks,
        lstrip_blocks=config.lstrip_blocks,
    )


def folder_loader(path: Path, root: Path) -> Callable[[str], tuple[str, str] | None]:
    """Included and imported names resolve the way a FileSystemLoader over the template's
    folder and its parents (up to the repository root) would, and never outside them."""
    folders = []
    folder = path.resolve().parent
    top = root.resolve()
    while True:
        folders.append(folder)
        if folder == top or top not in folder.parents:
            break
        folder = folder.parent

    def load(name: str) -> tuple[str, str] | None:
        parts = PurePosixPath(name).parts
        if not parts or name.startswith("/") or ".." in parts or "\\" in name:
            return None
        for base in folders:
            candidate = base.joinpath(*parts)
            if not os.path.lexists(candidate):
                continue
            try:
                # A regular file, capped, inside the repository once its links are resolved.
                text = safe_open.read_text(candidate, max_bytes=safe_open.MAX_TEMPLATE_BYTES, what="included template", within=top)
            except AdvisorError:
                return None  # the include stays opaque; a file of its own is linted (and reported) by name
            return display_path(candidate, top), text
        return None

    return load


Loader = Callable[[str], "tuple[str, str] | None"]


def model_for(shown: str, path: Path, text: str, settings: Settings, loader: Loader | None = None) -> Model | None:
    # Every break is read as Jinja reads it (lint.lines): positions are (line, column)s of
    # that one model, the same in the normalized text and in the file.
    text = normalize(text)
    if sources.is_python(path):
        return python_lint.build(shown, text, settings.static_variables)
    loaded = sources.load(path, text)
    if loaded is None:
        return None
    model = build_model(shown, text, loaded.kind, loaded.pieces, settings, loader)
    if loaded.error:
        model.syntax_errors.append(SyntaxIssue(loaded.error[0], loaded.error[1]))
    return model


class Linter:
    """Runs a fixed set of active rules over models; one instance per run."""

    def __init__(self, config: LintConfig, registry: dict[str, Rule], count_tokens: Callable[[str], int]):
        self.config = config
        self.registry = registry
        self.active = active_rules(config, registry)
        self.settings = settings_for(config)
        self.count = count_tokens
        self.enabled = {a.rule.code for a in self.active}
        self.root = Path.cwd()
        # The engine target's minimum on the configured model (PC301); advisor.cost is loaded
        # only when a model is configured.
        self.minimum = targets.model_minimum(config.target, config.model, config.gpu) if config.model else None

    def _context(self, active: ActiveRule) -> Context:
        return Context(active.options, self.count, self.config.target, self.minimum)

    def _resolve(self, name: str) -> str | None:
        for rule in self.registry.values():
            if name.upper() == rule.code or name.lower() == rule.name:
                return rule.code
        return None

    def _stamp(self, active: ActiveRule, path: str, p: Problem) -> Finding:
        return Finding(
            path=p.path or path,
            line=p.line,
            column=p.column,
            code=active.rule.code,
            message=p.message,
            rule=active.rule.name,
            severity=capped(active.severity, p.severity),
            end_line=p.end_line,
            end_column=p.end_column,
            tokens_at_risk=p.tokens_at_risk,
            fix=p.fix,
        )

    def template_findings(self, model: Model) -> list[Finding]:
        if isinstance(model, PythonModel):
            return self.python_findings(model)
        out: list[Finding] = []
        for active in self.active:
            if active.rule.scope != "template":
                continue
            # Only the syntax rule looks at a template that does not parse.
            if model.syntax_errors and active.rule.code != "PC001":
                continue
            ctx = self._context(active)
            out.extend(self._stamp(active, model.path, p) for p in active.rule.check(model, ctx))
        return out

    def python_findings(self, model: PythonModel) -> list[Finding]:
        """The findings of the rules that judge Python code (``Rule.python``)."""
        out: list[Finding] = []
        for active in self.active:
            check = active.rule.python
            if check is None or (model.syntax_errors and active.rule.code != "PC001"):
                continue
            out.extend(self._stamp(active, model.path, p) for p in check(model, self._context(active)))
        return out

    def finish(self, models: list[Model], per_path: dict[str, list[Finding]]) -> list[Finding]:
        """Add the set rules' findings, apply suppressions, sort."""
        parsed = [m for m in models if isinstance(m, TemplateModel) and not m.syntax_errors]
        for active in self.active:
            if active.rule.scope == "set":
                ctx = self._context(active)
                for p in active.rule.check(parsed, ctx):
                    per_path.setdefault(p.path or "", []).append(self._stamp(active, p.path or "", p))
        findings: list[Finding] = []
        by_path = {m.path: m for m in models}
        for path, items in per_path.items():
            model = by_path.get(path)
            findings.extend(self._suppress(model, items) if model is not None else items)
        return sorted(findings)

    def run(self, models: list[Model]) -> list[Finding]:
        return self.finish(models, {m.path: self.template_findings(m) for m in models})

    def _suppress(self, model: Model, items: list[Finding]) -> list[Finding]:
        if not model.comments:
            return items
        last_line = model.source.count("\n") + 1 if model.source else 1 << 30
        sups = suppress.parse(model.comments, self._resolve, last_line)
        if not sups:
            return items
        kept = []
        for f in items:
            hit = [s for s in sups if s.covers(f.code, f.line)]
            for s in hit:
                s.used.add(f.code)
            if not hit:
                kept.append(f)
        unused_rule = next((a for a in self.active if a.rule.scope == "suppression"), None)
        if unused_rule is None:
            return kept
        unused = []
        for s in sups:
            for code in s.codes:
                known = code == suppress.ALL or code in self.registry
                if known and code != suppress.ALL and code not in self.enabled:
                    continue  # cannot tell whether a disabled rule would have fired
                if code == suppress.ALL and s.used:
                    continue
                if code in s.used:
                    continue
                unused.append((s.line, s.written, code, known))
        ctx = Context(unused_rule.options, self.count)
        kept.extend(self._stamp(unused_rule, model.path, p) for p in unused_rule.rule.check(unused, ctx))
        return kept


# Below this many files a process pool costs more than it saves.
PARALLEL_MIN_FILES = 200
_WORKER: "Linter | None" = None


@dataclass(frozen=True)
class Refused:
    """A file that could not be read (picklable: it comes back from the lint workers)."""

    shown: str
    reason: str


def _lint_one(linter: Linter, path: Path, shown: str) -> tuple[Model, list[Finding]] | Refused | None:
    if sources.plain_data(path):
        return None  # a data file too large for a template, without prompt keys: skipped as data
    try:
        text = sources.read_text(path, shown)
    except AdvisorError as exc:  # a FIFO, a device, too large, unreadable, not UTF-8: named, the rest linted
        return Refused(shown, str(exc))
    try:
        with limits.cpu_limit(limits.FILE_CPU_SECONDS):  # read at call time: tests lower it
            loader = folder_loader(path, linter.root) if ("include" in text or "import" in text) else None
            model = model_for(shown, path, text, linter.settings, loader)
            if model is None:
                return None
            return model, linter.template_findings(model)
    except LintStopped as exc:
        # The file gets one finding saying so; the other files are linted as usual.
        return _not_linted(linter, shown, str(exc))
    except RecursionError:
        return _not_linted(linter, shown, "not linted: nested too deeply")
    except Exception as exc:  # a bug on one file is that file's finding, never the run's end
        return _not_linted(linter, shown, f"not linted: internal error ({type(exc).__name__}: {str(exc)[:120]})")


def _not_linted(linter: Linter, shown: str, reason: str) -> tuple[TemplateModel, list[Finding]]:
    stopped = build_model(shown, "", "jinja", [Piece("")], linter.settings)
    stopped.syntax_errors.append(SyntaxIssue(reason, 1))
    return stopped, linter.template_findings(stopped)


def _lint_chunk(chunk: list[tuple[Path, str]]) -> list[tuple[Model, list[Finding]] | Refused | None]:
    assert _WORKER is not None
    out: list[tuple[Model, list[Finding]] | Refused | None] = []
    for path, shown in chunk:
        item = _lint_one(_WORKER, path, shown)
        if item is not None and not isinstance(item, Refused):
            # The set rules need segments and sections, not the text: keep the pickle small.
            model, found = item
            model.source = "\n" * model.source.count("\n")
            item = (model, found)
        out.append(item)
    return out


def _parallel(linter: Linter, files: list[tuple[Path, str]]) -> list[tuple[Model, list[Finding]] | Refused | None]:
    """Per-template work on every core; forked workers inherit the loaded tokenizer."""
    global _WORKER
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    workers = min(os.cpu_count() or 1, 8)
    size = max(1, -(-len(files) // (workers * 4)))
    chunks = [files[i: i + size] for i in range(0, len(files), size)]
    _WORKER = linter
    try:
        ctx = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
            return [item for part in pool.map(_lint_chunk, chunks) for item in part]
    finally:
        _WORKER = None


def lint_files(
    paths: list[str],
    config: LintConfig,
    registry: dict[str, Rule],
    count_tokens: Callable[[str], int],
    cwd: Path | None = None,
    parallel: bool | None = None,
) -> LintResult:
    cwd = cwd or Path.cwd()
    root = repo_root(cwd)
    skipped: list[tuple[str, str]] = []
    excluded: list[str] = []
    refused: list[tuple[str, str]] = []
    files = collect(paths, root, config.exclude, skipped, excluded, refused)
    linter = Linter(config, registry, count_tokens)
    linter.root = root
    if parallel is None:
        parallel = len(files) >= PARALLEL_MIN_FILES and idle_cores() >= 1 and hasattr(os, "fork")
    got = _parallel(linter, files) if parallel else [_lint_one(linter, p, s) for p, s in files]
    refused += [(item.shown, item.reason) for item in got if isinstance(item, Refused)]
    items = [item for item in got if not isinstance(item, Refused)]
    models = [item[0] for item in items if item is not None]
    per_path = {item[0].path: item[1] for item in items if item is not None}
    for (path, shown), item in zip(files, got):
        if item is None:
            skipped.append((shown, sources.not_a_prompt(path)))
    return LintResult(linter.finish(models, per_path), [m.path for m in models], sorted(set(skipped)), len(set(excluded)),
                      sorted(set(refused), key=lambda r: r[1]))


def lint_texts(files: dict[str, str], config: LintConfig, registry: dict[str, Rule], count_tokens: Callable[[str], int]) -> LintResult:
    """Lint in-memory files (name -> text): what the rule-case tests use."""
    linter = Linter(config, registry, count_tokens)
    models: list[Model] = []

    def loader(name: str) -> tuple[str, str] | None:
        return (name, files[name]) if name in files else None

    for name in sorted(files):
        model = model_for(name, Path(name), files[name], linter.settings, loader)
        if model is not None:
            models.append(model)
    return LintResult(linter.run(models), [m.path for m in models])


# Each round applies the fixes that do not overlap; a few rounds settle any template.
MAX_FIX_ROUNDS = 10


def fix_text(shown: str, path: Path, text: str, linter: Linter, unsafe: bool) -> tuple[str, int]:
    """The file text with its fixes applied (``unsafe`` adds the unsafe ones) and how many.

    Rules see the text with its breaks normalized (lint.lines); each round's edits are
    carried over to the file's own text (fix.carry), which keeps its breaks and every byte
    the edits do not touch. A fix whose edits reach a piece the file does not hold as it is
    (an escaped or folded YAML string) is never applied.
    """
    loader = folder_loader(path, linter.root) if ("include" in text or "import" in text) else None
    total = 0
    norm = normalize(text)
    # Fixes can undo each other (two clock lines, each a label before the other's value):
    # stop at the first text seen before, as it was then.
    seen = {norm: (text, 0)}
    good = (text, 0)  # the last text that parsed: a round that breaks the template is dropped
    for round_ in range(MAX_FIX_ROUNDS + 1):
        model = model_for(shown, path, norm, linter.settings, loader)
        if model is None or model.syntax_errors:
            break
        good = (text, total)
        if round_ == MAX_FIX_ROUNDS:
            break
        wanted = [f.fix for f in linter.run([model])
                  if f.fix is not None and fixes.wanted(f.fix, unsafe) and not fixes.touches(f.fix, model.opaque)]
        if not wanted:
            break
        fixed, applied = fixes.apply(norm, wanted)
        try:
            text = fixes.carry(text, norm, fixed, applied)
        except fixes.Mismatch:
            break  # the file keeps the fixes that carried over cleanly
        norm = fixed
        total += len(applied)
        if norm in seen:
            return seen[norm]
        seen[norm] = (text, total)
    return good


@dataclass(frozen=True)
class FileFix:
    shown: str
    path: Path
    before: str  # the whole file, a byte order mark included
    after: str
    count: int  # fixes applied
    snapshot: write.Snapshot

    def diff(self) -> str:
        return fixes.unified_diff(self.shown, self.before, self.after)

    def write(self) -> None:
        """Replace the file with ``after``, unless it changed since it was read (write.Refused)."""
        write.write_back(self.snapshot, self.after.encode("utf-8"), self.shown, functools.partial(sources.read_bytes, shown=self.shown))


def fix_files(
    paths: list[str],
    result: LintResult,
    config: LintConfig,
    registry: dict[str, Rule],
    count_tokens: Callable[[str], int],
    unsafe: bool,
    cwd: Path | None = None,
) -> Iterator[FileFix]:
    """The fixed text of every file with a wanted fix among ``result``'s findings, in path
    order, each as soon as it is computed (the command writes it, or shows its diff, before
    the next is read). A byte order mark stays where it is, in front of the text."""
    root = repo_root(cwd or Path.cwd())
    with_fix = {f.path for f in result.findings if fixes.wanted(f.fix, unsafe)}
    linter = Linter(config, registry, count_tokens)
    linter.root = root
    for path, shown in collect(paths, root, config.exclude, refused=[]):  # refused files: reported by the lint
        if shown not in with_fix:
            continue
        snap = write.take(path, functools.partial(sources.read_bytes, shown=shown))
        text = sources.decode(snap.data, shown)
        bom = BOM if snap.data.startswith(BOM.encode("utf-8")) else ""
        after, count = fix_text(shown, path, text, linter, unsafe)
        if after != text:
            yield FileFix(shown, path, bom + text, bom + after, count, snap)


def fails(findings: list[Finding], fail_on: str) -> bool:
    """Whether any finding is at or above the ``--fail-on`` severity."""
    limit = SEVERITIES.index(fail_on)
    return any(SEVERITIES.index(f.severity) <= limit for f in findings)


def default_counter(spec: str) -> Callable[[str], int]:
    from advisor.ingest.tokenizers import load_tokenizer

    tokenizer = load_tokenizer(spec)
    return token_counter(tokenizer.encode)
