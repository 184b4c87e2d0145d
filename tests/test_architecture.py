"""The package layout holds: stage packages without import cycles, a thin command layer on top.

The import graph is read from the source with ``ast`` (every ``import`` statement, also the
ones inside functions, since a lazy import that closes a cycle is still a cycle of design).
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import ROOT

PACKAGE = ROOT / "advisor"
# The command layer: only these may import advisor.commands.* or advisor.cli.
COMMAND_LAYER = ("advisor.commands", "advisor.cli", "advisor.__main__")
# The Python API: above the stages (advise, report, simulate, cost, ...), below the command
# layer, which calls it. (``advisor/__init__`` re-exports it by name, on first use.)
API_LAYER = "advisor.api"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imports(path: Path, known: dict[str, Path]) -> set[str]:
    """The advisor modules ``path`` imports (``from a.b import c`` counts a.b, and a.b.c when
    c is a module)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.split(".")[0] == "advisor")
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.split(".")[0] != "advisor":
                continue
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names if f"{node.module}.{a.name}" in known)
    return {m for m in out if m in known}


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports(path, known) - {name} for name, path in known.items()}


def cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(g):
        if root in index:
            continue
        work = [(root, iter(sorted(g[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, children = work[-1]
            for w in children:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(g[w]))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    component = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        component.append(w)
                        if w == v:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_cycle_finder_finds_a_planted_cycle() -> None:
    g = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(g) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles() -> None:
    assert cycles(graph()) == []


def test_nothing_below_the_cli_imports_the_command_layer() -> None:
    offenders = {
        (name, dep)
        for name, deps in graph().items()
        if not name.startswith(COMMAND_LAYER)
        for dep in deps
        if dep.startswith(("advisor.commands", "advisor.cli"))
    }
    assert offenders == set()


def test_only_the_command_layer_imports_the_api() -> None:
    offenders = {
        (name, dep)
        for name, deps in graph().items()
        if not name.startswith((*COMMAND_LAYER, API_LAYER))
        for dep in deps
        if dep == API_LAYER or dep.startswith(API_LAYER + ".")
    }
    assert offenders == set()
    # The commands that run the pipeline go through it (one path, not a second one).
    g = graph()
    for command in ("analyze", "prescribe", "simulate", "cost", "report"):
        assert any(d.startswith(API_LAYER + ".") for d in g[f"advisor.commands.{command}"]), command


def test_at_most_eight_modules_at_the_top_of_the_package() -> None:
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(top) <= 8, top


def test_every_package_folder_has_an_init() -> None:
    folders = {p.parent for p in PACKAGE.rglob("*.py")}
    assert all((f / "__init__.py").is_file() for f in folders), sorted(str(f) for f in folders)
