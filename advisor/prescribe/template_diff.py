"""The prescribed moves carried out on the prompt templates, as unified diffs (never applied).

The traffic says what to move (the static text around a dynamic value, the headings of
sections sent in varying order); the template folder is searched for that text, and the
same move is made on the template source. Templates are read, never written.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

from advisor.diagnose.detect import Diagnosis, Finding
from advisor.errors import AdvisorError
from advisor.ingest import prompt_files, safe_open
from advisor.ingest.chat import FALLBACK_NOW
from advisor.diagnose import blocks as blk
from advisor.prescribe.pins import PINNED_DATE
from advisor.prescribe.canonical import LAST_USER_START
from advisor.prescribe.rewrite import LAST_USER, MESSAGE_END, cut_span

SUFFIXES = prompt_files.TEXT_SUFFIXES + (".yaml", ".yml") + prompt_files.PROMPTY_SUFFIXES
_YAML_USER = re.compile(r"^[ \t]*-[ \t]*role:[ \t]*['\"]?user['\"]?[ \t]*$", re.MULTILINE)
_YAML_ROLE = re.compile(r"^[ \t]*-[ \t]*role:", re.MULTILINE)
# Role lines of a .prompty body as the linter and the renderer read them.
_ANY_ROLE_LINE = prompt_files.ROLE_LINE
# What the measured pin renders (``pins.pin_template_values``): no request clock, so the
# renderer's one fixed date; and the constant date_string kwarg.
PINNED_NOW = FALLBACK_NOW
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


def template_diffs(folder: Path | None, diagnosis: Diagnosis, destinations: dict[int, str] | None = None,
                   pins: Iterable[int] = (), chat_template: Path | None = None,
                   tool_sorts: Iterable[int] = (), text_sorts: Iterable[int] = ()) -> list[TemplateDiff]:
    """Diffs for the findings; ``destinations`` says, per TR101 finding, where prescribe
    measured the move to be best (``rewrite.LAST_USER`` by default). ``pins``: the findings
    whose measured action pins a value the chat template renders itself; their diff is on
    ``chat_template`` (and on any template of the folder that reads the clock).
    ``tool_sorts``: findings whose measured action sorts the request's tools (the tool
    lists in the templates and the loops over them are sorted). ``text_sorts``: findings
    whose measured action sorts lines or paragraphs by their text (the template loop that
    writes them gets a case-sensitive ``sort`` filter)."""
    files = _read_templates(folder)
    base = folder if folder is not None else (chat_template.parent if chat_template is not None else Path("."))
    chat_files = files + _read_chat_template(chat_template)
    pinned = set(pins)
    sorted_tools = set(tool_sorts)
    sorted_text = set(text_sorts)
    out: list[TemplateDiff] = []
    for k, f in enumerate(diagnosis.findings):
        if f.cause is not None and k not in sorted_tools:
            continue  # a cause the canonical order names: its rewrite is the fix, no template's block
        if f.from_layout:
            # Where the chat template prints the system prompt: the requests change (the
            # system text sent in the first user turn), no prompt template does.
            out.append(TemplateDiff("", f.code, k, "", "no template diff: send the system prompt as the opening "
                                    "of the first user turn in the requests (the chat template decides where "
                                    "a system message goes)"))
        elif k in pinned:
            out.extend(_pin_diffs(base, chat_files, f, k))
        elif f.code == "TR201" and (f.kind == "tool-order" or k in sorted_tools):
            # The chat template may be what loops over the request's tools.
            out.extend(_tool_order_diffs(base, chat_files, f, k))
        elif folder is None:
            continue
        elif f.code in ("TR101", "TR102"):
            out.extend(_dynamic_diffs(folder, files, f, k, (destinations or {}).get(k, LAST_USER)))
        elif f.code == "TR201":
            sizes = {}
            canonical = list(f.order.canonical_order) if f.order is not None else None
            for order in diagnosis.orders:
                if order.labels == canonical:
                    sizes = {label: len(unit) for label, unit in zip(order.labels, order.units)}
            # (Sorted by text: the loop that writes the units gets a sort filter; where no
            # loop writes them, the template's own sections are put in the canonical order.)
            diffs = _loop_sort_diffs(folder, files, f, k) if k in sorted_text else []
            if not any(d.diff for d in diffs):
                sections = _order_diffs(folder, files, f, k, sizes)
                diffs = sections if any(d.diff for d in sections) or not diffs else diffs
            out.extend(diffs)
    return out


def _read_templates(folder: Path | None) -> list[tuple[Path, str]]:
    """The folder's templates and their text; a file safe_open refuses gets no diff (lint
    reports it): inside the folder once symlinks are resolved, regular, capped."""
    files = []
    for p in (template_files(folder) if folder is not None else []):
        try:
            data = safe_open.read_bytes(p, max_bytes=safe_open.MAX_TEMPLATE_BYTES, what="template", within=folder)
        except AdvisorError:
            continue
        files.append((p, data.decode("utf-8", errors="replace")))
    return files


def _read_chat_template(path: Path | None) -> list[tuple[Path, str]]:
    """The chat template and its text, when there is one that safe_open reads."""
    if path is None or not path.is_file():
        return []
    try:
        data = safe_open.read_bytes(path, max_bytes=safe_open.MAX_TEMPLATE_BYTES, what="chat template")
    except AdvisorError:
        return []
    return [(path, data.decode("utf-8", errors="replace"))]


# A clock read in a chat template: strftime_now("%d %b %Y"), quotes escaped in a JSON file.
_STRFTIME = re.compile(r"""strftime_now\(\s*(\\?)(["'])(.*?)\1\2\s*\)""")


def _pin_diffs(base: Path, files: list[tuple[Path, str]], f: Finding, k: int) -> list[TemplateDiff]:
    """The measured pin carried out in the template: each ``strftime_now(FMT)`` call becomes
    the constant date that the measurement rendered (the clock every request got once its
    own time was dropped), in the call's format."""
    def pin(text: str) -> str:
        if "strftime_now" not in text:
            return text
        return _STRFTIME.sub(lambda m: m.group(1) + m.group(2) + PINNED_NOW.strftime(m.group(3))
                             + m.group(1) + m.group(2), text)

    return _edited(base, files, f, k, pin, "pins the date the chat template reads from the clock to one constant",
                   f"pass one constant {PINNED_DATE!r} as chat_template_kwargs.date_string (the template fills it "
                   "from the request's date otherwise)")


def _edited(base: Path, files: list[tuple[Path, str]], f: Finding, k: int, edit: Callable[[str], str],
            done: str, otherwise: str) -> list[TemplateDiff]:
    """A diff for each template ``edit`` changes, saying ``done``; when it changes none, one
    note saying ``otherwise`` (where the fix has to be made instead)."""
    out = []
    for path, text in files:
        new = edit(text)
        if new != text:
            out.append(TemplateDiff(_rel(path, base), f.code, k, _udiff(path, base, text, new), done))
    return out or [TemplateDiff("", f.code, k, "", otherwise)]


def _rel(path: Path, base: Path) -> str:
    try:
        return str(path.relative_to(base))
    except ValueError:
        return path.name


def _dynamic_diffs(folder: Path, files: list[tuple[Path, str]], f: Finding, k: int,
                   to: str) -> list[TemplateDiff]:
    before = f.span.context_before if f.span is not None else ""
    # In the template the value is an expression, so only the static text is searched for.
    label = before.strip().splitlines()[-1] if before.strip() else ""
    after = f.span.context_after[:24] if f.span is not None else ""
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
        own = to == MESSAGE_END
        if own:
            new = _insert_end_of_section(path, rest, at, moved)
        elif to == LAST_USER_START:
            new = _insert_user_start(path, rest, moved)
        else:
            new = _insert_last_user(path, rest, moved)
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


def _last_yaml_user(text: str) -> tuple[int, int] | None:
    """Where the last ``- role: user`` item of a YAML prompt file holds its fields: from
    the end of its role line to the next item (or the end)."""
    users = list(_YAML_USER.finditer(text))
    if not users:
        return None
    start = users[-1].end()
    nxt = _YAML_ROLE.search(text, start)
    return start, nxt.start() if nxt else len(text)


def _insert_user_start(path: Path, text: str, moved: str) -> str:
    """``moved`` at the start of the last user section (after every shared turn, before
    the question); at the end of a template without role sections."""
    if path.suffix == ".prompty":
        users = [m for m in _ANY_ROLE_LINE.finditer(text) if m.group(1).lower() == "user"]
        if users:
            at = users[-1].end()
            return text[:at].rstrip("\n") + "\n" + moved + "\n\n" + text[at:].lstrip("\n")
    bounds = _last_yaml_user(text) if path.suffix in (".yaml", ".yml") else None
    if bounds is not None:
        start, end = bounds
        rows = text[start:end].split("\n")
        lines = [ln for ln in rows if ln.strip()]
        # Only a block scalar (``content: |``) takes lines at its start.
        head = next((i for i, ln in enumerate(rows)
                     if ln.strip().startswith("content:") and ln.rstrip().endswith(("|", "|-", ">", ">-"))), -1)
        if head >= 0:
            indent = _indent(lines[-1]) if lines else "      "
            moved_lines = "\n".join(indent + ln for ln in moved.split("\n"))
            rows.insert(head + 1, moved_lines + "\n")
            return text[:start] + "\n".join(rows) + text[end:]
    return _insert_last_user(path, text, moved)


def _insert_last_user(path: Path, text: str, moved: str) -> str:
    """``moved`` at the end of the last user section of the template, or at its end."""
    if path.suffix == ".prompty" and any(m.group(1).lower() == "user" for m in _ANY_ROLE_LINE.finditer(text)):
        return text.rstrip("\n") + "\n\n" + moved + "\n"
    bounds = _last_yaml_user(text) if path.suffix in (".yaml", ".yml") else None
    if bounds is not None:
        start, end = bounds
        block = text[start:end].rstrip("\n")
        lines = [ln for ln in block.split("\n") if ln.strip()]
        indent = _indent(lines[-1]) if lines else "      "
        moved_lines = "\n".join(indent + ln for ln in moved.split("\n"))
        return text[:start] + block + "\n\n" + moved_lines + "\n" + text[end:].lstrip("\n")
    return text.rstrip("\n") + "\n\n" + MOVED_NOTE + "\n" + moved + "\n"


def _order_diffs(folder: Path, files: list[tuple[Path, str]], f: Finding, k: int,
                 sizes: dict[str, int]) -> list[TemplateDiff]:
    labels = list(f.order.canonical_order) if f.order is not None else []
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


# A Jinja loop whose body writes its item after some static text: {% for r in rules %}- {{ r }}
_LOOP = re.compile(r"(\{%-?\s*for\s+(\w+)\s+in\s+)([\w.]+)(\s*-?%\})([^{]*)\{\{-?\s*\2((?:\.\w+|\[['\"]\w+['\"]\])?)")


def _loop_sort_diffs(folder: Path, files: list[tuple[Path, str]], f: Finding, k: int) -> list[TemplateDiff]:
    """The measured sort of lines or paragraphs by their text, in the template loop that
    writes them: a loop whose body puts the same static text before each item as the
    units show gets ``|sort(case_sensitive=true)`` (by the attribute it writes first), the
    order Python's sort of the units' texts gives."""
    cores = [c.strip() for c in (f.order.cores if f.order is not None else ()) if c.strip()]

    def sort(m: re.Match[str]) -> str:
        iterable, lead, attr = m.group(3), m.group(5).strip(), m.group(6)
        if "|" in iterable or not cores or sum(1 for c in cores if c.startswith(lead)) * 2 < len(cores):
            return m.group(0)
        name = attr.strip(".[]'\"")
        how = f"|sort(attribute='{name}', case_sensitive=true)" if name else "|sort(case_sensitive=true)"
        return m.group(1) + iterable + how + m.group(0)[len(m.group(1)) + len(iterable):]

    return _edited(folder, files, f, k, lambda text: _LOOP.sub(sort, text),
                   "sorts the units the loop writes by their text",
                   "sort these units by their text where the prompt is assembled (no template loop writes them)")


# A Jinja loop over a tool list: {% for tool in tools %}, {%- for f in functions -%}.
_TOOL_LOOP = re.compile(r"(\{%-?\s*for\s+(\w+)\s+in\s+)([\w.]*(?:tool|function)s?[\w.]*)(\s*-?%\})", re.I)


def _tool_order_diffs(folder: Path, files: list[tuple[Path, str]], f: Finding, k: int) -> list[TemplateDiff]:
    """The measured sort (tool definitions by function name) where the template decides
    the order: a Jinja loop over the tool list gets a ``sort`` filter, and a tool list
    written out in the template (a JSON array, a YAML ``tools:`` list) is sorted in place."""
    return _edited(folder, files, f, k, lambda text: _sort_yaml_tools(_sort_json_tool_arrays(_sort_tool_loops(text))),
                   "sorts the tool definitions by function name",
                   "sort the tool list by function name where the request is built (no template holds the list "
                   "or loops over it)")


def _sort_tool_loops(text: str) -> str:
    def sort(m: re.Match[str]) -> str:
        if "|" in m.group(3) or "sort" in m.group(3):
            return m.group(0)
        var = m.group(2)
        body = text[m.end():m.end() + 400]
        # OpenAI-style definitions ({"type": "function", "function": {...}}) or bare ones.
        nested = re.search(rf"\b{re.escape(var)}(\.function\b|\[['\"]function['\"]\])", body) is not None
        attribute = "function.name" if nested else "name"
        return f"{m.group(1)}{m.group(3)}|sort(attribute='{attribute}'){m.group(4)}"
    return _TOOL_LOOP.sub(sort, text)


def _tool_key(item: object) -> tuple[str, str]:
    return (blk.tool_name(item) or "", blk.item_key(item))


def _sort_json_tool_arrays(text: str) -> str:
    """JSON arrays of tool definitions written in the template, sorted, layout kept."""
    decoder = json.JSONDecoder()
    pieces = []
    pos = 0
    i = text.find("[")
    while i >= 0:
        try:
            value, end = decoder.raw_decode(text, i)
        except ValueError:
            i = text.find("[", i + 1)
            continue
        if (isinstance(value, list) and len(value) >= 2 and all(blk.tool_name(v) for v in value)):
            body = text[i:end]
            ordered = sorted(value, key=_tool_key)
            new = _dump_as(body, value, ordered)
            if new is not None and new != body:
                pieces.append(text[pos:i])
                pieces.append(new)
                pos = end
        i = text.find("[", end if isinstance(value, list) else i + 1)
    pieces.append(text[pos:])
    return "".join(pieces)


def _dump_as(body: str, original: list, items: list) -> str | None:
    for kwargs in ({"indent": 2}, {"indent": 4}, {"separators": (",", ":")}, {}):
        for ascii_ in (False, True):
            if json.dumps(original, ensure_ascii=ascii_, **kwargs) == body:
                return json.dumps(items, ensure_ascii=ascii_, **kwargs)
    return None


_YAML_TOOLS = re.compile(r"^([ \t]*)tools:[ \t]*$", re.MULTILINE)
_YAML_NAME = re.compile(r"^[ \t]*(?:-[ \t]*)?name:[ \t]*['\"]?([^'\"\n#]+?)['\"]?[ \t]*$", re.MULTILINE)


def _sort_yaml_tools(text: str) -> str:
    """A YAML ``tools:`` block list (a Prompty front matter, a YAML prompt): its items
    sorted by the first ``name:`` inside each, every item's lines kept as written."""
    lines = text.split("\n")
    out = list(lines)
    i = 0
    while i < len(lines):
        m = _YAML_TOOLS.match(lines[i])
        if not m:
            i += 1
            continue
        indent = len(m.group(1))
        j = i + 1
        items: list[list[str]] = []
        while j < len(lines):
            line = lines[j]
            depth = len(line) - len(line.lstrip(" \t"))
            if line.strip() and depth <= indent and not line.lstrip().startswith("- "):
                break
            if line.lstrip().startswith("- ") and (not items or depth <= _depth(items[0][0])):
                if items and depth < _depth(items[0][0]):
                    break
                items.append([line])
            elif items:
                items[-1].append(line)
            elif line.strip():
                break
            j += 1
        names = [_YAML_NAME.search("\n".join(item)) for item in items]
        if len(items) >= 2 and all(names):
            trailing: list[str] = []
            while items[-1] and not items[-1][-1].strip():
                trailing.insert(0, items[-1].pop())
            ordered = sorted(range(len(items)), key=lambda n: (names[n].group(1).strip(), n))  # type: ignore[union-attr]
            block = [line for n in ordered for line in items[n]] + trailing
            out[i + 1:j] = block
        i = j
    return "\n".join(out)


def _depth(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


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
    rel = Path(_rel(path, folder)).as_posix()
    return "".join(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                        fromfile=f"a/{rel}", tofile=f"b/{rel}"))


def _one_line(text: str, width: int = 60) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 3] + "..."


def _indent(line: str) -> str:
    """The leading blanks of ``line``."""
    return line[: len(line) - len(line.lstrip(" \t"))]
