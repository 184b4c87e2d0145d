"""What the evaluator carries from one node to the next: frames, guards, classes, findings."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

import advisor.lint.python.tables as tables
from advisor.lint.python.names import Imports, Positions
from advisor.lint.python.prompts import Prompt, PySite, sites
from advisor.lint.python.survey import Survey
from advisor.lint.python.values import (
    NOTHING, REQUEST, STEADY_TAINT, ClassRef, Func, Guard, Loc, Opaque, Seq, Taint, Value,
)

# Work limits, counted, never timed: the same module gives the same findings on an idle
# machine and a loaded one. A step is one statement or expression evaluated (about 10 us
# here), and work proportional to a value's size (a long text concatenated, a prompt laid
# out) is charged by its size, so the cost is linear in the steps. A call is followed into
# the module's own functions this deep, a loop over a known list is unrolled up to this many
# items; after MAX_STEPS calls are no longer followed nor loops unrolled (what is left is
# linear in the file); at HARD_STOP the analysis ends with what it found, and says where.
MAX_CALL_DEPTH = 6
MAX_UNROLL = 24
MAX_STEPS = 100_000
HARD_STOP = 150_000
# A display (list, tuple, set, dict) of more constants than this is read as one constant.
BIG_DISPLAY = 256
# Pieces of a value charged as one step.
PIECES_PER_STEP = 32


class Stop(Exception):
    """The file's step budget is spent: the analysis ends with what it has found."""

    def __init__(self, line: int) -> None:
        super().__init__(line)
        self.line = line  # the statement being analyzed when it stopped


@dataclass
class Frame:
    env: dict[str, Value] = field(default_factory=dict)
    func: str = ""  # the function's name ("" at module level)
    owner: str = ""  # the class of a method
    self_attrs: dict[str, Value] = field(default_factory=dict)
    returns: list[Value] = field(default_factory=list)
    sgl: Seq | None = None  # SGLang's state in an @sgl.function (``s += ...``)


@dataclass
class ClassInfo:
    node: ast.ClassDef
    methods: dict[str, Func] = field(default_factory=dict)
    attrs: dict[str, Value] = field(default_factory=dict)  # class attributes and what __init__ sets
    constructed: bool = False  # attrs filled in (on first use: State.class_info)


class State:
    """The analysis of one module: imports, globals, classes, the frames of the functions
    being evaluated, the guards in force, and the problems found so far."""

    def __init__(self, tree: ast.Module, source: str, static_names: frozenset[str]) -> None:
        self.tree = tree
        self.pos = Positions(source)
        self.survey = Survey.of(tree)
        self.imports = Imports(self.survey.imports)
        self.static_names = static_names
        self.globals: dict[str, Value] = {}
        self.classes: dict[str, ClassInfo] = {}
        self.frames: list[Frame] = [Frame(env=self.globals)]
        self.guards: list[Guard] = []
        self.calls: list[ast.AST] = []  # functions being followed (no recursion)
        self.found: dict[tuple[str, int, int], PySite] = {}
        self.steps = 0
        self.unrolling = 0
        self.line = 1  # the statement being analyzed
        self._implicit: dict[tuple[int, int], ast.Call] = {}  # calls the code makes without spelling them

    # --- evaluation entry points, defined by the subclasses ------------------------------------

    def eval(self, node: ast.expr) -> Value:
        raise NotImplementedError

    def grow(self, seq: Seq, value: Value, node: ast.AST, first: bool = False) -> None:
        """Add ``value`` to ``seq`` (calls.Calls: ``append``, ``extend``, ``+=``, ``seq[i] =``)."""
        raise NotImplementedError

    # --- places -----------------------------------------------------------------------------------

    def loc(self, node: ast.AST) -> Loc:
        return self.pos.loc(node)

    def src(self, node: ast.AST) -> str:
        return self.pos.text(node)

    @property
    def frame(self) -> Frame:
        return self.frames[-1]

    @property
    def exhausted(self) -> bool:
        return self.steps > MAX_STEPS

    def tick(self, steps: int = 1) -> None:
        self.steps += steps
        if self.steps > HARD_STOP:
            raise Stop(self.line)

    def charge(self, pieces: int) -> None:
        """Work proportional to a value's size: one step per PIECES_PER_STEP pieces."""
        if pieces >= PIECES_PER_STEP:
            self.tick(pieces // PIECES_PER_STEP)

    # --- names ------------------------------------------------------------------------------------

    def lookup(self, name: str) -> Value:
        frame = self.frame
        if name in frame.env:
            return frame.env[name]
        if name in self.globals:
            return self.globals[name]
        if name in self.classes:
            return ClassRef(name)
        qualified = self.imports.qualify(name)
        if qualified in tables.NOT_GIVEN:
            return NOTHING  # the SDKs' "not given": the argument is left out
        if qualified in tables.REQUEST_GLOBALS:
            taint = Taint(REQUEST, f"the web request (`{name}`)")
            return Opaque(taint, qualname=qualified, mapping=taint, str_keys=True)
        if qualified:
            return Opaque(qualname=qualified)
        return Opaque(STEADY_TAINT)  # a name set elsewhere: the application's, not the request's

    def bind(self, name: str, value: Value) -> None:
        self.frame.env[name] = value

    def reset_env(self, names: dict[str, Value]) -> None:
        """Set the frame's names to ``names``, in place (the module frame's names are the globals)."""
        env = self.frame.env
        env.clear()
        env.update(names)

    def self_attr(self, name: str) -> Value:
        frame = self.frame
        if name in frame.self_attrs:
            return frame.self_attrs[name]
        info = self.class_info(frame.owner)
        if info is not None:
            if name in info.methods:
                return info.methods[name]
            if name in info.attrs:
                return info.attrs[name]
        return Opaque(Taint("steady", f"`self.{name}`"))

    def class_info(self, name: str) -> ClassInfo | None:
        """A class of the module, its objects' attributes worked out on first use."""
        info = self.classes.get(name)
        if info is not None and not info.constructed:
            info.constructed = True
            self.construct(info)
        return info

    def construct(self, info: ClassInfo) -> None:
        raise NotImplementedError

    # --- findings -------------------------------------------------------------------------------

    def report(self, prompt: Prompt) -> None:
        self.charge(len(prompt.slots))
        for site in sites(prompt):
            key = (site.code, site.loc.line, site.loc.column)
            seen = self.found.get(key)
            if seen is None or _weight(site) > _weight(seen):
                self.found[key] = site


def _weight(site: PySite) -> tuple[int, int, int]:
    chars, early = site.after.measure(len)
    return (chars, early, site.fix is not None)
