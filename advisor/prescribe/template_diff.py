"""The prescribed moves carried out on the prompt templates, as unified diffs (never applied).

The traffic says what to move (the static text around a dynamic value, the headings of
sections sent in varying order); the template folder is searched for that text, and the
same move is made on the template source. Templates are read, never written.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path

from advisor.diagnose.detect import Diagnosis, Finding
from advisor.errors import AdvisorError
from advisor.ingest import prompt_files, safe_open
from advisor.prescribe.moves import AFTER_SHARED, AFTER_STATIC
from advisor.prescribe.rewrite import LAST_USER, MESSAGE_END, cut_span

SUFFIXES = prompt_files.TEXT_SUFFIXES + (".yaml", ".yml") + prompt_files.PROMPTY_SUFFIXES
_YAML_USER = re.compile(r"^[ \t]*-[ \t]*role:[ \t]*['\"]?user['\"]?[ \t]*$", re.MULTILINE)
_YAML_ROLE = re.compile(r"^[ \t]*-[ \t]*role:", re.MULTILINE)
# Role lines of a .prompty body as the linter and the renderer read them.
_ANY_ROLE_LINE = prompt_files.ROLE_LINE
MOVED_NOTE = ("{# advisor: per-request value moved after all static content. In chat traffic, "
              "send it at the end of the last user turn. #}")


@dataclass(frozen=True)
class TemplateDiff:
    path: str
    code: str
    finding: int
    diff: str   # unified diff; empty when only a note applies
    note: str


def template_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.suffix in SUFFIXES and (p.is_file() or p.is_symlink()))


def template_diffs(folder: Path, diagnosis: Diagnosis, destinations: dict[int, str] | None = None
                   ) -> list[TemplateDiff]:
    """Diffs for the findings; ``destinations`` says, per TR101 finding, where prescribe
    measured the move to be best (``rewrite.LAST_USER`` by default)."""
    files = []
    for p in template_files(folder):
        try:  # inside the folder once symlinks are resolved, regular, capped: never a file from elsewhere
            data = safe_open.read_bytes(p, max_bytes=safe_open.MAX_TEMPLATE_BYTES, what="template", within=folder)
        except AdvisorError:
            continue  # refused files get no diff (lint reports them)
        files.append((p, data.decode("utf-8", errors="replace")))
    out: list[TemplateDiff] = []
    for k, f in enumerate(diagnosis.findings):
        if f.code in ("TR101", "TR102"):
            out.extend(_dynamic_diffs(folder, files, f, k, (destinations or {}).get(k, LAST_USER)))
        elif f.code == "TR201":
            sizes = {}
            for order in diagnosis.orders:
                if order.labels == f.details["canonical_order"]:
                    sizes = {label: len(unit) for label, unit in zip(order.labels, order.units)}
            out.extend(_order_diffs(folder, files, f, k, sizes))
    return out


def _dynamic_diffs(folder: Path, files: list[tuple[Path, str]], f: Finding, k: int,
                   to: str) -> list[TemplateDiff]:
    before = f.details["context_before"]
    # In the template the value is an expression, so only the static text is searched for.
    label = before.strip().splitlines()[-1] if before.strip() else ""
    after = f.details["context_after"][:24]
    out = []
    for path, text in files:
        if not label or label not in text:
            continue
        cut = cut_span(text, label, after)
        if cut is None:
            continue
        rest, moved = cut
        at = text.rfind("\n", 0, text.find(label)) + 1
        # The measured move: after the static text of its own message, or the last user turn.
        own = to in (MESSAGE_END, AFTER_SHARED, AFTER_STATIC)
        new = _insert_end_of_section(path, rest, at, moved) if own else _insert_last_user(path, rest, moved)
        out.append(TemplateDiff(str(path.relative_to(folder)), f.code, k, _udiff(path, folder, text, new),
                                f"moves '{_one_line(moved)}' after all static content"))
    if not out:
        out.append(TemplateDiff("", f.code, k, "", f"no template holds '{label}': the value is added "
                                "outside the templates (application code or the chat template)"))
    return out


def _insert_end_of_section(path: Path, text: str, at: int, moved: str) -> str:
    """``moved`` at the end of the message it was in (position ``at``): before the next role
    of a Prompty or YAML prompt file, at the end of a text template."""
    if path.suffix == ".prompty":
        nxt = _ANY_ROLE_LINE.search(text, at)
        if nxt:
            return text[:nxt.start()].rstrip("\n") + "\n\n" + moved + "\n\n" + text[nxt.start():]
    elif path.suffix in (".yaml", ".yml"):
        nxt = _YAML_ROLE.search(text, at)
        end = nxt.start() if nxt else len(text)
        block = text[:end].rstrip("\n")
        indent = _indent(block.rsplit("\n", 1)[-1])
        moved_lines = "\n".join(indent + ln for ln in moved.split("\n"))
        return block + "\n\n" + moved_lines + "\n" + text[end:]
    return text.rstrip("\n") + "\n\n" + moved + "\n"


def _insert_last_user(path: Path, text: str, moved: str) -> str:
    """``moved`` at the end of the last user section of the template, or at its end."""
    if path.suffix == ".prompty" and any(m.group(1).lower() == "user" for m in _ANY_ROLE_LINE.finditer(text)):
        return text.rstrip("\n") + "\n\n" + moved + "\n"
    if path.suffix in (".yaml", ".yml"):
        users = list(_YAML_USER.finditer(text))
        if users:
            start = users[-1].end()
            nxt = _YAML_ROLE.search(text, start)
            end = nxt.start() if nxt else len(text)
            block = text[start:end].rstrip("\n")
            lines = [ln for ln in block.split("\n") if ln.strip()]
            indent = _indent(lines[-1]) if lines else "      "
            moved_lines = "\n".join(indent + ln for ln in moved.split("\n"))
            return text[:start] + block + "\n\n" + moved_lines + "\n" + text[end:].lstrip("\n")
    return text.rstrip("\n") + "\n\n" + MOVED_NOTE + "\n" + moved + "\n"


def _order_diffs(folder: Path, files: list[tuple[Path, str]], f: Finding, k: int,
                 sizes: dict[str, int]) -> list[TemplateDiff]:
    if f.kind == "tool-order":
        return [TemplateDiff("", f.code, k, "", "sort the tool list by function name where the request is built "
                             "(the template set cannot fix an order decided at run time)")]
    labels = f.details["canonical_order"]
    out = []
    for path, text in files:
        lines = text.split("\n")
        heads = {}
        for i, line in enumerate(lines):
            title = line.strip().lstrip("#").strip()
            if line.lstrip().startswith("#") and title in labels and title not in heads:
                heads[title] = i
        if len(heads) < 2:
            continue
        found = sorted(heads.items(), key=lambda kv: kv[1])
        wanted = sorted(found, key=lambda kv: labels.index(kv[0]))
        if [t for t, _ in found] == [t for t, _ in wanted]:
            out.append(TemplateDiff(str(path.relative_to(folder)), f.code, k, "",
                                    "the template already has one order; the varying order comes from the "
                                    "code that fills it"))
            continue
        # Each section is as many blank-line paragraphs as its blocks in the traffic, so
        # whatever follows the last one (the question) stays where it is.
        bounds = [(i, _section_end(lines, i, sizes.get(t, 1))) for t, i in found]
        if any(b > found[n + 1][1] for n, (_, b) in enumerate(bounds[:-1])):
            continue  # sections overlap: the template is not laid out as the traffic shows
        sections = {t: lines[a:b] for (t, _), (a, b) in zip(found, bounds)}
        slots = [(a, b) for a, b in bounds]
        new_lines: list[str] = []
        pos = 0
        for (a, b), (t, _) in zip(slots, wanted):
            new_lines += lines[pos:a] + sections[t]
            pos = b
        new_lines += lines[pos:]
        out.append(TemplateDiff(str(path.relative_to(folder)), f.code, k,
                                _udiff(path, folder, text, "\n".join(new_lines)),
                                "puts the sections in the canonical order"))
    if not out:
        out.append(TemplateDiff("", f.code, k, "", "no template holds these sections as headings; fix the order "
                                "where the prompt is assembled"))
    return out


def _section_end(lines: list[str], start: int, paragraphs: int) -> int:
    """The line after the ``paragraphs``-th blank-line-separated paragraph from ``start``."""
    seen = 0
    i = start
    while i < len(lines) and seen < paragraphs:
        while i < len(lines) and not lines[i].strip():
            i += 1
        if i >= len(lines):
            break
        while i < len(lines) and lines[i].strip():
            i += 1
        seen += 1
    return i


def _udiff(path: Path, folder: Path, old: str, new: str) -> str:
    rel = path.relative_to(folder).as_posix()
    return "".join(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                        fromfile=f"a/{rel}", tofile=f"b/{rel}"))


def _one_line(text: str, width: int = 60) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 3] + "..."


def _indent(line: str) -> str:
    """The leading blanks of ``line``."""
    return line[: len(line) - len(line.lstrip(" \t"))]
