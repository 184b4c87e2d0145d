"""The official chat templates of the major families lint quiet, and every defect planted in
them is found at the line it was planted, at error or warning severity.

The templates are the published text (tests/chat_templates/official, with their sources) and
the ones written for advisor's tests with the structure of official templates
(tests/chat_templates). Each is linted as the file a user would have: a `.jinja` named
after the model, recognised as a chat template by what it reads. The defects are planted by
editing the text at a general position, found from the template's own model: before the
first static text it renders (out of any loop, so that it renders once), or before the first
place that renders the tools. Nothing here names a family.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from advisor.lint import config, engine
from advisor.lint.lines import Lines
from advisor.lint.model import DEFAULT_STATIC_VARIABLES, Piece, Settings, TemplateModel, build_model
from advisor.rules import REGISTRY

HERE = Path(__file__).resolve().parents[1] / "chat_templates"
OFFICIAL = sorted((HERE / "official").glob("*.jinja"))
STRUCTURE = sorted(HERE.glob("*.jinja"))
TEMPLATES = OFFICIAL + STRUCTURE
FAILING = ("error", "warning")


def ids(path: Path) -> str:
    return f"{path.parent.name}/{path.name}"


def lint(name: str, text: str, counter):
    cfg = config.parse({}, "test", REGISTRY)
    return engine.lint_texts({name: text}, cfg, REGISTRY, counter).findings


def test_the_official_families_are_all_here():
    names = {p.stem for p in OFFICIAL}
    families = ("llama32", "llama33", "llama4", "qwen25", "qwen3", "mistral_v03", "mistral_small31", "gemma3", "deepseek_v31",
                "gpt_oss", "phi4", "command_r", "glm46", "kimi_k2", "granite33")
    assert set(families) <= names
    sources = (HERE / "official" / "SOURCES.md").read_text(encoding="utf-8")
    assert all(f"`{p.name}`" in sources for p in OFFICIAL), "every official template names its source"


@pytest.mark.parametrize("path", TEMPLATES, ids=ids)
def test_official_template_is_quiet(path, counter):
    text = path.read_text(encoding="utf-8")
    loud = [(f.code, f.line, f.severity, f.message) for f in lint(path.name, text, counter) if f.severity in FAILING]
    assert loud == []


@pytest.mark.parametrize("path", TEMPLATES, ids=ids)
def test_a_date_in_an_official_template_is_at_most_information(path, counter):
    text = path.read_text(encoding="utf-8")
    for f in lint(path.name, text, counter):
        if f.code == "PC101" and "once a day" in f.message:
            assert f.severity == "info" and f.tokens_at_risk is not None


# --- planting ---------------------------------------------------------------------------------


def chat_model(path: Path, text: str) -> TemplateModel:
    settings = Settings(static_variables=DEFAULT_STATIC_VARIABLES)
    return build_model(path.name, text, "chat_template", [Piece(text)], settings)


def renders_text(model: TemplateModel, i: int) -> bool:
    seg = model.segments[i]
    if seg.kind == "static" and seg.construct == "text":
        return bool(seg.text.strip()) and not seg.guard.volatile
    # An output's fixed text ('[SYSTEM_PROMPT]' + system_message + ...) is static text too.
    return bool(seg.literal.strip()) and not seg.guard.volatile


def mentions_tools(model: TemplateModel, i: int) -> bool:
    seg = model.segments[i]
    return seg.kind == "dynamic" and seg.construct in ("output", "call", "for") and bool(re.search(r"tools", seg.text))


def outside_loops(model: TemplateModel, i: int) -> int:
    """The outermost loop that encloses segment ``i`` (or ``i`` itself): a value planted there
    renders once, before everything the loop renders."""
    for j in range(i):
        seg = model.segments[j]
        if seg.construct == "for" and seg.end_index > i:
            return j
    return i


def position(model: TemplateModel, where: str) -> tuple[int, int]:
    """(line, column) to plant at: before the first static text, or before the tools."""
    first = next(i for i in range(len(model.segments)) if renders_text(model, i))
    index = first
    if where == "tools":
        index = next((i for i in range(len(model.segments)) if mentions_tools(model, i)), first)
    seg = model.segments[outside_loops(model, index)]
    return seg.line, seg.column


@dataclass(frozen=True)
class Plant:
    name: str
    code: str
    where: str  # "first" (before the first static text) or "tools" (before the tools)
    text: str


PLANTS = [
    Plant("clock", "PC101", "first", "{{ strftime_now('%H:%M:%S') }}"),
    Plant("kwarg", "PC101", "first", "{{ customer_name }}"),
    Plant("last_message", "PC101", "tools", "{{ messages[-1]['content'] }}"),
    Plant("random", "PC101", "first", "{{ range(100000) | random }}"),
    Plant("uuid", "PC101", "first", "{{ uuid4() }}"),
    # A mapping the caller passes per request, iterated without a sort where the tools render:
    # its key order is the caller's (the tools themselves are the application's, as sent).
    Plant("unsorted_items", "PC103", "tools", "{%- for name, spec in tool_specs.items() %}{{ name }}: {{ spec }}{%- endfor %}"),
    Plant("tools_by_last_message", "PC403", "tools",
          "{%- for t in tools | selectattr('function.name', 'in', messages[-1]['content']) %}{{ t | tojson }}{%- endfor %}"),
]


def planted(path: Path, plant: Plant) -> tuple[str, int]:
    text = path.read_text(encoding="utf-8")
    line, column = position(chat_model(path, text), plant.where)
    at = Lines(text).offset(line, column)
    return text[:at] + plant.text + text[at:], line


@pytest.mark.parametrize("plant", PLANTS, ids=lambda p: p.name)
@pytest.mark.parametrize("path", TEMPLATES, ids=ids)
def test_planted_defect_is_found_at_its_line(path, plant, counter):
    text, line = planted(path, plant)
    found = lint(path.name, text, counter)
    hits = [f for f in found if f.code == plant.code and f.line == line and f.severity in FAILING]
    assert hits, [(f.code, f.line, f.severity, f.message[:120]) for f in found]
