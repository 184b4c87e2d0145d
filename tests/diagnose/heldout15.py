"""Fifteenth held-out diagnosis set: Gemma 3's chat template served by vLLM.

Written blind to the detector (advisor/diagnose, advisor/prescribe, the zoo, its shapes and its
tests were not read): DESIGN.md's traffic formats and the rendering advisor/ingest does were
used. Every record is what ``advisor analyze --engine vllm --chat-template
tests/chat_templates/gemma3.jinja`` reads (``ANALYZE_ARGS``, which the bench passes to every
``analyze``, ``prescribe`` and ``render`` run of this set), measured in Llama 3 tokens, the
default: Gemma's own tokenizer is not installed, so the template's turn markers
(``<start_of_turn>``, ``<end_of_turn>``) are encoded as text, the same for the oracle and for
``analyze``.

The layout, as advisor's ingest path renders it (checked by tests/diagnose/test_heldout15.py,
not assumed): the BOS (``<|begin_of_text|>``, the tokenizer's), then one
``<start_of_turn>role\\n...<end_of_turn>\\n`` turn per message and ``<start_of_turn>model\\n``
at the end; the assistant is rendered as ``model``. Gemma 3 has no system turn: the FIRST
system message's text, not trimmed, plus a blank line, opens the FIRST user turn, ahead of that
turn's own (trimmed) text, so with history the system text sits in the first user turn at every
turn. vLLM hands this template content parts (it loops over ``content``), so a string becomes
one text part; a user turn's parts are each trimmed and joined with nothing between them; a
system message given as parts contributes its FIRST part only. Roles must alternate strictly
user/model after the system message: a second system message, a ``tool`` message, two user
turns in a row or a conversation without a user turn first are template errors (the record is
skipped), so none is generated. ``tools`` are passed to the template and never printed: teams
on Gemma describe their functions in the system text (JSON schemas, compact or pretty, or python
signatures with docstrings), the model answers with a JSON object or a ```tool_code``` block and
the client sends results back as the next user turn. Fields the template never prints
(``tools``, a system message's later parts, ``chat_template_kwargs``, a message's ``name``) change
nothing in the prompt. Prompt records hold raw Gemma markup a team's client writes itself (the
same text the template gives for the chat; the engine's tokenizer adds the BOS) or plain
completion prompts; token-id records hold the Llama 3 ids of the rendering.

The machinery is the first set's (heldout.py: MARK and UNIT, Engine, the brute-force oracle) with
this set's renderer, a SKIP marker (a request without the defect) and, as in the thirteenth set,
the better of two plausible fixes (``PLACES``). The text comes from heldout15_text.py: a
municipal snow-plough and gritting depot, a pipe-organ restoration workshop, a blood bank's
inventory desk, an inland salt works' harvest planner, a tea co-operative's plucking roster, a
hot-air balloon flight desk, a bell-ringers' guild's peal-booking desk and a shearing
contractor's run-sheet desk; Icelandic, Welsh, Swahili, Basque, Vietnamese, Hungarian, Latin and
te reo Māori lines. The logs are noisy: 20 to 100 requests, sessions of 1 to 7 turns, agent loops
of 2-5 steps, questions of 10 to 120 tokens, requests without the defect (offsets are medians
over the requests that carry it); system texts of ~1k to ~3.5k tokens.

Shapes. Dynamic values: an Icelandic date line opening the system text (4 days, ids); a trace id
as the first text after the BOS of a plain prompt (8% without); a road warning colour in force
for a run of requests mid system text; a truck count in a pretty JSON tool schema in the system
text; a blood stock table (~150 tokens) every few requests (ids); a collection-session line
opening the first user turn, right behind the system text, ahead of a static checklist (10%
without); a humidity reading in a canned model reply; a Welsh date line in a raw Gemma prompt (3
days); relative ages ('3 phút trước') the client re-renders into earlier model turns of sessions;
a Vietnamese weather line ~1.8k tokens deep, hourly (ids); a one-token brine reading in a plain
prompt; a launch-conditions JSON object every few requests; the pilot on duty (5 settings, ids);
today's date as a default argument of a python signature (3 days); a shearers' tally sheet of
200-400 tokens mid system text (dynamic or placement); the 'generated_at' of a canned
```tool_output``` turn; a planner's initials twice; an enquiry reference as the first of three
user content parts (joined with nothing between); a YAML front matter stamp in a raw Gemma
prompt; a winds-aloft table ~2.5k tokens deep (ids); a temperament in a JSON settings block (3
settings); a shed's stand count inside a sentence (6 settings, ids); a desk clock at the end of
the system text of growing sessions. Order: tool schemas as a pretty JSON array; as a compact
one (ids); handbook sections in a raw Gemma prompt; few-shot pairs as canned turns; rule bullets
drawn once per session; table rows in a plain prompt; the keys of a JSON object (ids); the same
four retrieved passages in score order; python signatures; Basque glossary lines (ids); quick
replies in most-recently-used order. Placement: a hospital order profile as the first paragraph
of the system text; retrieved archive passages ahead of the instructions in a lone user turn; a
conversation summary ahead of the instructions (ids, first turns without); a request card ahead
of the instructions in a raw Gemma prompt; a farm card ahead of the static block of a plain
prompt; a passenger manifest sent as the system message with the instructions in the user turn;
a daily road bulletin ahead of the manual (4 days, ids); instructions appended to the last user
turn of sessions. Several: a date line and shuffled JSON tools; an order profile and shuffled
sections (ids); shuffled few-shot examples and an hourly humidity in a raw Gemma prompt; a
manifest first, a surface wind and shuffled launch sites (three); a caller card first and a
picker count in a raw Gemma prompt; a date line and shuffled signatures (ids). Controls: growing sessions,
agent loops with ```tool_code``` calls and ```tool_output``` turns last, passages after the
instructions with the question last, a send time and reference ending the user turn, two A/B
system texts (ids), a date that changes once in a raw Gemma prompt, per-request values only in
fields the template never prints (tools, a second system part, chat_template_kwargs, name), a
static raw Gemma prompt, a static system text (ids), a shift (3 settings) opening the user turn
right behind the system text, fixed canned few-shot turns.

Truth: the oracle's hit rate over Llama 3 ids on the traffic after the ideal fix written here. A
value with many settings goes to the end of the last user turn (a prompt: after the question); a
value with few settings, or many in arrival order, right after the content all requests share
(the end of the system text, which Gemma prints right ahead of the first user text; the start of
the last user turn behind a canned exchange) or at the end of the last user turn, both written
(``PLACES``) and the better measured one taken; order fixes use one canonical order; placement
fixes put the shared content first (in sessions: the instructions as the system message, which
this layout keeps in the first user turn). A request without the defect is its own fix.
"""

from __future__ import annotations

import json
import random
import statistics
from pathlib import Path
from typing import Any, Callable, Sequence

from advisor.ingest.source import make_renderer
from advisor.ingest.tokenizers import load_tokenizer
from advisor.ingest.traffic import parse_record

from tests.diagnose.heldout import (
    BASE_TIME, MARK, UNIT, Engine, Workload, assistant, chat, clock, day_of, hexid, oracle, prompt, registering, spread,
    sys_msg, untimed, user, uuid,
)
# The marker machinery is the thirteenth set's: SKIP (a request without the defect), UNIT_HINT
# (rendered text a UNIT follows, where that start is text the template writes itself).
from tests.diagnose.heldout13 import SKIP, UNIT_HINT, _alternatives, _as_ids, marked, unhinted, unmark  # noqa: F401
from tests.diagnose.heldout15_text import (
    BALLOON, BELLS, BLOOD, ORGAN, SALT, SHEARING, SNOW, TEA, TEAMS, Team, Writer, tool_intro,
)

TOKENIZER = "llama3"
ENGINE = "vllm"
TEMPLATE = Path(__file__).resolve().parents[1] / "chat_templates" / "gemma3.jinja"
# What `advisor analyze`, `prescribe` and `render` are given for this set's traffic (run from the
# checkout's root, as the bench and the tests run it).
ANALYZE_ARGS = ("--engine", "vllm", "--chat-template", "tests/chat_templates/gemma3.jinja")

Fix = dict[str, Any] | tuple[dict[str, Any], ...]  # one fix, or the plausible places in PLACES order
Pair = tuple[dict[str, Any], Fix]
Builder = Callable[[random.Random, Writer], list[Pair]]
REGISTRY: list[tuple[str, str, tuple[str, ...], str, Builder, str]] = []
TEAM_OF: dict[str, Team] = {}
PLACES: dict[str, tuple[str, ...]] = {}
CHOSEN: dict[str, tuple[int, tuple[float, ...]]] = {}  # name -> (index of the truth's place, each place's rate)
_register = registering(REGISTRY)

END_SYSTEM = "end of the system text"
AFTER_SHARED = "right after the shared block"
START_LAST = "start of the last user turn, after the shared exchange"
END_USER = "end of the last user turn"

SOT, EOT = "<start_of_turn>", "<end_of_turn>\n"


def workload(name: str, kind: str, expect: tuple[str, ...], shape: str, team: Team,
             places: tuple[str, ...] = (), notes: str = "") -> Callable[[Any], Any]:
    TEAM_OF[name] = team
    if places:
        PLACES[name] = places
    return _register(name, kind, expect, shape, notes)


# ---------------------------------------------------------------- Gemma rendering and marking


def gemma_render() -> Callable[[dict[str, Any]], str]:
    """This checkout's rendering as `advisor analyze` with ANALYZE_ARGS sets it up (vLLM's request
    preprocessing, the Gemma 3 template, Llama 3's tokenizer and BOS)."""
    renderer = make_renderer(TOKENIZER, TEMPLATE, None, [], engine=ENGINE)

    def render(record: dict[str, Any]) -> str:
        text = renderer.text_of(parse_record(record, "heldout15", 1))
        assert text is not None
        return text
    return render


def gemma_engine(render: Callable[[dict[str, Any]], str] | None = None) -> Engine:
    """An Engine with the Llama 3 tokenizer and the Gemma 3 template under vLLM (or ``render``,
    the bench's rendering by the checkout under test with ANALYZE_ARGS)."""
    return Engine(render or gemma_render(), load_tokenizer(TOKENIZER))


local_engine = gemma_engine  # what the bench's --render local builds for this set


def materialize(engine: Engine, name: str, kind: str, expect: tuple[str, ...], shape: str,
                pairs: list[Pair], notes: str = "") -> Workload:
    records, marks, units = [], [], []
    for orig, _ in pairs:
        ids, m, u = marked(engine, orig)
        clean = unmark(orig)
        assert engine.tok.encode(engine.text(clean)) == ids, name  # the markers change nothing else
        assert len(m) == len(expect), (name, len(m), expect)
        marks.append(m)
        units.append(u)
        records.append(_as_ids(clean, ids) if kind == "input_ids" else clean)
    alts = _alternatives(pairs)
    rates = []
    for alt in alts:
        cached, total = oracle(engine.ids(r) for r in alt)
        rates.append(cached / total)
    best = max(range(len(alts)), key=lambda k: (rates[k], -k))
    CHOSEN[name] = (best, tuple(rates))
    fixed = [_as_ids(f, engine.ids(f)) if kind == "input_ids" else f for f in alts[best]]
    if len(alts) > 1:
        notes = "; ".join(x for x in (notes, f"truth: {PLACES[name][best]}") if x)
    offsets, unit_offsets = [], []
    for k in range(len(expect)):
        here = [(m, u) for m, u in zip(marks, units) if m[k] is not None]
        assert here, (name, k)
        offsets.append(int(statistics.median([x for m, _ in here if (x := m[k]) is not None])))
        starts = []
        for m, u in here:
            at = m[k]
            assert at is not None
            prev = max((x for x in m[:k] if x is not None), default=-1)
            owned = [x for x in u if prev < x <= at]  # a UNIT belongs to the defect whose MARK follows it
            starts.append(owned[-1] if owned else at)
        unit_offsets.append(int(statistics.median(starts)))
    return Workload(name, kind, expect, shape, records, fixed, tuple(offsets), tuple(unit_offsets), notes)


def build_pairs(name: str, seed: int) -> list[Pair]:
    """One workload's (original with markers, fix or places) records, before rendering."""
    fn = next(r[4] for r in REGISTRY if r[0] == name)
    # Each workload draws from its name and the seed only: adding one changes no other.
    return fn(random.Random(f"{seed}/h15/{name}"), Writer(random.Random(f"{seed}/h15/{name}/text"), TEAM_OF[name]))


def build_workloads(seed: int = 12, engine: Engine | None = None, only: Sequence[str] | None = None) -> list[Workload]:
    """Every workload of the fifteenth held-out set, deterministic for ``seed``, on Llama 3 ids
    of the Gemma 3 rendering under vLLM."""
    engine = engine or gemma_engine()
    if engine.tok.name != TOKENIZER:
        raise ValueError(f"the fifteenth held-out set is measured in {TOKENIZER} tokens, not {engine.tok.name}")
    out = []
    for name, kind, expect, shape, _fn, notes in REGISTRY:
        if only and name not in only:
            continue
        pairs = build_pairs(name, seed)
        warm = getattr(engine.render, "warm", None)
        if warm is not None:  # the bench's batch renderer: one `advisor render` call per workload
            todo = [unhinted(o) for o, _ in pairs] + [unmark(o) for o, _ in pairs]
            for alt in _alternatives(pairs):
                todo += alt
            warm(todo)
        out.append(materialize(engine, name, kind, expect, shape, pairs, notes))
    return out


def workload_names() -> list[str]:
    return [r[0] for r in REGISTRY]


# ---------------------------------------------------------------- small helpers


def gm(system: str | None, *turns: str) -> str:
    """A raw Gemma prompt as a team's own client writes it: the system text heading the first user
    turn, alternating user and model turns (the last a user turn), the open model turn. The
    engine's tokenizer adds the BOS."""
    out = ""
    for k, t in enumerate(turns):
        role = "user" if k % 2 == 0 else "model"
        head = f"{system}\n\n" if k == 0 and system is not None else ""
        out += f"{SOT}{role}\n{head}{t.strip()}{EOT}"
    return out + f"{SOT}model\n"


def model(text: str) -> dict[str, Any]:
    return assistant(text)


def lacks(rng: random.Random, share: float) -> bool:
    return rng.random() < share


def hourly(rng: random.Random, n: int, per: tuple[int, int]) -> list[int]:
    """For ``n`` requests in arrival order, the index of the value in force (a new one every
    ``per`` requests)."""
    out: list[int] = []
    k = 0
    while len(out) < n:
        out += [k] * rng.randint(*per)
        k += 1
    return out[:n]


def shuffled(rng: random.Random, items: Sequence[Any]) -> list[Any]:
    out = list(items)
    rng.shuffle(out)
    return out


def first_differs(text: str, rivals: Sequence[str]) -> int:
    """Where ``text`` stops agreeing with the rival that agrees with it longest."""
    best = 0
    for r in rivals:
        if r == text:
            continue
        n = 0
        while n < min(len(text), len(r)) and text[n] == r[n]:
            n += 1
        best = max(best, n)
    return best


def marked_at(text: str, rivals: Sequence[str]) -> str:
    k = first_differs(text, rivals)
    return text[:k] + MARK + text[k:]


def sessions(rng: random.Random, w: Writer, count: tuple[int, int], turns: tuple[int, int]) -> list[list[tuple[str, str]]]:
    return [[(w.question(), w.answer()) for _ in range(rng.randint(*turns))] for _ in range(rng.randint(*count))]


def interleave(rng: random.Random, convs: list[list[Any]]) -> list[tuple[int, int]]:
    """(conversation, turn) in an interleaved arrival order, each conversation's turns in order."""
    progress = [0] * len(convs)
    out = []
    while any(progress[c] < len(convs[c]) for c in range(len(convs))):
        c = rng.choice([c for c in range(len(convs)) if progress[c] < len(convs[c])])
        out.append((c, progress[c]))
        progress[c] += 1
    return out


def history(turns: Sequence[tuple[str, str]]) -> list[dict[str, Any]]:
    return [m for q, a in turns for m in (user(q), model(a))]


def fenced(lang: str, body: str) -> str:
    return f"```{lang}\n{body}\n```"


def signatures(w: Writer, names: Sequence[str], defaults: dict[str, dict[str, str]] | None = None) -> list[str]:
    defaults = defaults or {}
    return [w.signature(n, defaults.get(n)) for n in names]


ICE_DAYS = ("mánudagur", "þriðjudagur", "miðvikudagur", "fimmtudagur", "föstudagur", "laugardagur", "sunnudagur")
ICE_MONTHS = ("janúar", "febrúar", "mars", "apríl", "maí", "júní", "júlí", "ágúst", "september", "október",
              "nóvember", "desember")
CY_DAYS = ("Dydd Llun", "Dydd Mawrth", "Dydd Mercher", "Dydd Iau", "Dydd Gwener", "Dydd Sadwrn", "Dydd Sul")
CY_MONTHS = ("Ionawr", "Chwefror", "Mawrth", "Ebrill", "Mai", "Mehefin", "Gorffennaf", "Awst", "Medi", "Hydref",
             "Tachwedd", "Rhagfyr")
EN_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
EN_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
             "November", "December")


def ice_date(ts: float) -> str:
    y, m, d, wd = day_of(ts)
    return f"{ICE_DAYS[wd]} {d}. {ICE_MONTHS[m - 1]} {y}"


def welsh_date(ts: float) -> str:
    y, m, d, wd = day_of(ts)
    return f"{CY_DAYS[wd]}, {d} {CY_MONTHS[m - 1]} {y}"


def en_date(ts: float) -> str:
    y, m, d, wd = day_of(ts)
    return f"{EN_DAYS[wd]} {d} {EN_MONTHS[m - 1]} {y}"


def iso_day(ts: float) -> str:
    y, m, d, _ = day_of(ts)
    return f"{y}-{m:02d}-{d:02d}"


def day_index(ts: float) -> int:
    return int((ts - BASE_TIME) // 86400)


# WORKLOADS_BELOW
# ---------------------------------------------------------------- dynamic values


@workload("icelandic-date-line-opens-system-ids", "input_ids", ("dynamic",),
          "the depot's client writes the day as the first line of the system text ('Dagsetning: þriðjudagur 1. "
          "desember 2026'), four days of traffic, ahead of a ~3.1k-token manual; in Gemma's layout that is the "
          "first text of the first user turn; Llama 3 ids", SNOW, (END_SYSTEM, END_USER))
def _ice_date(rng: random.Random, w: Writer) -> list[Pair]:
    body = w.system(13)
    out: list[Pair] = []
    for i, ts in enumerate(spread(rng, rng.randint(60, 90), 4)):
        line = f"Dagsetning: {ice_date(ts)}"
        q = w.question()
        orig = chat(i, [sys_msg(f"Dagsetning: {MARK}{ice_date(ts)}\n\n{body}"), user(q)], ts=ts)
        a = chat(i, [sys_msg(f"{body}\n\n{line}"), user(q)], ts=ts)
        b = chat(i, [sys_msg(body), user(f"{q}\n\n{line}")], ts=ts)
        out.append((orig, (a, b)))
    return out


@workload("trace-id-first-text-plain-prompt", "prompt", ("dynamic",),
          "plain completion prompts whose client logs a trace id as the very first text after the BOS "
          "('trace=3f9a2c71'), ahead of ~1.6k static tokens of flight-desk instructions; ~8% of requests come "
          "from a batch job that writes none", BALLOON)
def _trace_first(rng: random.Random, w: Writer) -> list[Pair]:
    body = w.system(6)
    out: list[Pair] = []
    for i in range(rng.randint(70, 95)):
        q = w.question()
        if lacks(rng, 0.08):
            rec = prompt(i, f"{SKIP}{body}\n\nPassenger question: {q}\nAnswer:")
            out.append((rec, unmark(rec)))
            continue
        tid = hexid(rng, 8)
        orig = prompt(i, f"trace={MARK}{tid}\n{body}\n\nPassenger question: {q}\nAnswer:")
        fixed = prompt(i, f"{body}\n\nPassenger question: {q}\ntrace={tid}\nAnswer:")
        out.append((orig, fixed))
    return out


WARNINGS = ("engin viðvörun", "gul viðvörun", "appelsínugul viðvörun", "rauð viðvörun")


@workload("road-warning-colour-in-force-mid-system", "messages", ("dynamic",),
          "the Met Office road warning in force ('Viðvörun Veðurstofu: gul viðvörun', 4 settings) on its own "
          "line after four handbook sections (~800 tokens in), changing every 6-15 requests; ~1.2k static tokens "
          "follow", SNOW, (END_SYSTEM, END_USER))
def _warning(rng: random.Random, w: Writer) -> list[Pair]:
    head = "\n\n".join([w.opening(), w.handbook(4)])
    tail = "\n\n".join([w.handbook(4, start=4), "Reference table:\n\n" + w.table(), w.glossary()])
    n = rng.randint(55, 85)
    spell = hourly(rng, n, (6, 15))
    colours = [rng.choice(WARNINGS) for _ in range(spell[-1] + 1)]
    for k in range(1, len(colours)):
        while colours[k] == colours[k - 1]:
            colours[k] = rng.choice(WARNINGS)
    out: list[Pair] = []
    for i in range(n):
        c = colours[spell[i]]
        q = w.question()
        orig = chat(i, [sys_msg(f"{head}\n\nViðvörun Veðurstofu í gildi: {MARK}{c}\n\n{tail}"), user(q)])
        a = chat(i, [sys_msg(f"{head}\n\n{tail}\n\nViðvörun Veðurstofu í gildi: {c}"), user(q)])
        b = chat(i, [sys_msg(f"{head}\n\n{tail}"), user(f"{q}\n\nViðvörun Veðurstofu í gildi: {c}")])
        out.append((orig, (a, b)))
    return out


def _snow_tools_block(w: Writer, names: Sequence[str], note: str | None, pretty: bool = True) -> str:
    items = [w.schema(n) for n in names]
    if note is not None:
        items[1]["description"] += note
    if pretty:
        body = json.dumps(items, indent=2, ensure_ascii=False)
    else:
        body = json.dumps(items, ensure_ascii=False, separators=(",", ":"))
    return f"{tool_intro('json')}\n\n{fenced('json', body)}"


SNOW_TOOLS = ("get_route_status", "dispatch_truck", "log_spreading", "report_closure", "read_road_sensors")


@workload("trucks-on-shift-in-json-tool-schema", "messages", ("dynamic",),
          "the system text describes five functions as a pretty JSON array; the second one's description ends "
          "with the trucks on shift ('Trucks on shift now: 7.', 3-11, per request), ~500 tokens of the array and "
          "~900 of handbook follow it", SNOW, (END_SYSTEM, END_USER))
def _trucks(rng: random.Random, w: Writer) -> list[Pair]:
    head = "\n\n".join([w.opening(), w.handbook(3)])
    tail = "\n\n".join([w.handbook(5, start=3), "Reference table:\n\n" + w.table()])
    plain = _snow_tools_block(w, SNOW_TOOLS, None)
    out: list[Pair] = []
    for i in range(rng.randint(55, 80)):
        n = rng.randint(3, 11)
        tools = _snow_tools_block(w, SNOW_TOOLS, f" Trucks on shift now: {MARK}{n}.")
        q = w.question()
        orig = chat(i, [sys_msg(f"{head}\n\n{tools}\n\n{tail}"), user(q)])
        a = chat(i, [sys_msg(f"{head}\n\n{plain}\n\n{tail}\n\nTrucks on shift now: {n}."), user(q)])
        b = chat(i, [sys_msg(f"{head}\n\n{plain}\n\n{tail}"), user(f"{q}\n\n(Trucks on shift now: {n}.)")])
        out.append((orig, (a, b)))
    return out


GROUPS = ("O negative", "O positive", "A negative", "A positive", "B negative", "B positive", "AB negative",
          "AB positive")


def stock_table(rng: random.Random, hour: int) -> str:
    rows = ["| Group | Red cells | Platelets | Plasma | Days of cover |", "| --- | --- | --- | --- | --- |"]
    for g in GROUPS:
        rc = rng.randint(2, 140)
        rows.append(f"| {g} | {rc} | {rng.randint(0, 30)} | {rng.randint(5, 220)} | {rc / rng.uniform(4, 20):.1f} |")
    return f"Shelf stock at {hour:02d}:00 (from the inventory system):\n\n" + "\n".join(rows)


@workload("blood-stock-table-every-few-requests-ids", "input_ids", ("dynamic",),
          "the shelf stock by group (an 8-row table, ~200 tokens, with its hour) ~1.3k tokens into the system "
          "text, refreshed every 4-9 requests; ~1k static tokens follow; Llama 3 ids", BLOOD, (END_SYSTEM, END_USER))
def _stock(rng: random.Random, w: Writer) -> list[Pair]:
    head = "\n\n".join([w.opening(), w.handbook(6)])
    tail = "\n\n".join([w.handbook(4, start=6), "Storage rules:\n\n" + w.table(), w.language_block()])
    n = rng.randint(60, 90)
    spell = hourly(rng, n, (4, 9))
    tables = [stock_table(rng, 6 + k) for k in range(spell[-1] + 1)]
    out: list[Pair] = []
    for i in range(n):
        t = tables[spell[i]]
        q = w.question()
        orig = chat(i, [sys_msg(f"{head}\n\n{marked_at(t, tables)}\n\n{tail}"), user(q)])
        a = chat(i, [sys_msg(f"{head}\n\n{tail}\n\n{t}"), user(q)])
        b = chat(i, [sys_msg(f"{head}\n\n{tail}"), user(f"{q}\n\n{t}")])
        out.append((orig, (a, b)))
    return out


def _checklist(w: Writer, title: str, n: int) -> str:
    return f"{title}\n" + "\n".join(f"[ ] {r}" for r in w.rules(n))


@workload("collection-session-line-opens-first-user-turn", "messages", ("dynamic",),
          "the mobile team's client opens the user turn with the collection session ('Collection session: "
          "DS-48213 (Mtwapa)', one per run of 3-8 requests), right behind the system text in Gemma's first user "
          "turn, ahead of a static ~450-token release checklist and the question; ~10% without a session",
          BLOOD, (AFTER_SHARED, END_USER))
def _session_line(rng: random.Random, w: Writer) -> list[Pair]:
    system = w.system(5)
    checklist = _checklist(w, "Release checklist (tick each before answering):", 16)
    n = rng.randint(60, 85)
    spell = hourly(rng, n, (3, 8))
    runs = [(rng.randint(40000, 59999), rng.choice(BLOOD.fills["site"])) for _ in range(spell[-1] + 1)]
    out: list[Pair] = []
    for i in range(n):
        q = w.question()
        if lacks(rng, 0.1):
            rec = chat(i, [sys_msg(system), user(f"{SKIP}{checklist}\n\n{q}")])
            out.append((rec, unmark(rec)))
            continue
        num, site = runs[spell[i]]
        line = f"Collection session: DS-{num} ({site})"
        orig = chat(i, [sys_msg(system), user(f"{UNIT}Collection session: DS-{MARK}{num} ({site})\n\n{checklist}\n\n{q}")])
        a = chat(i, [sys_msg(system), user(f"{checklist}\n\n{line}\n\n{q}")])
        b = chat(i, [sys_msg(system), user(f"{checklist}\n\n{q}\n\n{line}")])
        out.append((orig, (a, b)))
    return out


def _workshop_reading(rng: random.Random) -> str:
    return (f"Voicing room {rng.uniform(46, 63):.0f}% RH at {rng.uniform(14, 19):.1f} °C, "
            f"bench room {rng.uniform(44, 66):.0f}% RH")


@workload("workshop-humidity-in-canned-model-reply", "messages", ("dynamic",),
          "every request replays a canned exchange (the user asks for the workshop conditions; the model's reply "
          "opens with the current readings, then ~650 tokens of static advice), the readings changing every 2-5 "
          "requests; the real question follows as a third user turn", ORGAN, (START_LAST, END_USER))
def _humidity(rng: random.Random, w: Writer) -> list[Pair]:
    system = w.system(7)
    advice = "\n\n".join([w.paragraph(6), w.paragraph(6), "\n".join(f"- {r}" for r in w.rules(8))])
    ask = "Before I start: what are the conditions in the workshop right now?"
    n = rng.randint(55, 80)
    spell = hourly(rng, n, (2, 5))
    readings = [_workshop_reading(rng) for _ in range(spell[-1] + 1)]
    out: list[Pair] = []
    for i in range(n):
        r = readings[spell[i]]
        q = w.question()
        orig = chat(i, [sys_msg(system), user(ask), model(f"Current readings: {marked_at(r, readings)}.\n\n{advice}"),
                        user(q)])
        base = [sys_msg(system), user(ask), model(advice)]
        a = chat(i, base + [user(f"(Current readings: {r}.)\n\n{q}")])
        b = chat(i, base + [user(f"{q}\n\n(Current readings: {r}.)")])
        out.append((orig, (a, b)))
    return out


@workload("welsh-date-line-mid-raw-gemma-prompt", "prompt", ("dynamic",),
          "raw Gemma prompts the workshop's booking client writes itself: the date in Welsh ('Dyddiad: Dydd "
          "Mawrth, 1 Rhagfyr 2026', three days) after the opening and three sections (~700 tokens in), ~1.3k "
          "static tokens after it, the question last", ORGAN, (END_SYSTEM, END_USER))
def _welsh_date(rng: random.Random, w: Writer) -> list[Pair]:
    head = "\n\n".join([w.opening(), w.handbook(3)])
    tail = "\n\n".join([w.handbook(5, start=3), "Stop list of the current job:\n\n" + w.table(), w.language_block()])
    out: list[Pair] = []
    for i, ts in enumerate(spread(rng, rng.randint(50, 75), 3)):
        d = welsh_date(ts)
        q = w.question()
        orig = prompt(i, gm(f"{head}\n\nDyddiad: {MARK}{d}\n\n{tail}", q), ts)
        a = prompt(i, gm(f"{head}\n\n{tail}\n\nDyddiad: {d}", q), ts)
        b = prompt(i, gm(f"{head}\n\n{tail}", f"{q}\n\nDyddiad: {d}"), ts)
        out.append((orig, (a, b)))
    return out


@workload("relative-ages-rerendered-in-earlier-model-turns", "messages", ("dynamic",),
          "tea-desk sessions of 1-6 turns whose chat widget sends the history as it shows it: every earlier "
          "model reply ends with its age ('(4 phút trước)', minutes ago), re-computed at each request, so a turn "
          "never shares its own session's history past the first reply; first and second turns have no earlier "
          "age to change", TEA)
def _ages(rng: random.Random, w: Writer) -> list[Pair]:
    system = w.system(6)
    convs = sessions(rng, w, (13, 17), (1, 6))
    sent: dict[tuple[int, int], float] = {}
    out: list[Pair] = []
    for i, (c, k) in enumerate(interleave(rng, convs)):
        now = BASE_TIME + 7200 + 71.0 * i + rng.uniform(0, 9)
        sent[(c, k)] = now + rng.uniform(4, 14)  # when the reply to this turn came back
        carrying = k >= 2
        msgs = [sys_msg(system)]
        fixed = [sys_msg(system)]
        for j in range(k):
            q, a = convs[c][j]
            age = int((now - sent[(c, j)]) // 60)
            shown = f"{a}\n\n({MARK if j == 0 and carrying else ''}{age} phút trước)"
            msgs += [user(q if j or carrying else SKIP + q), model(shown)]
            fixed += [user(q), model(f"{a}\n\n(trả lời lúc {clock(sent[(c, j)])[:5]})")]
        last = convs[c][k][0]
        msgs.append(user(last if k else SKIP + last))
        fixed.append(user(last))
        out.append((chat(i, msgs, ts=now), chat(i, fixed, ts=now)))
    return out


VI_SKY = ("nắng nhẹ", "mưa phùn", "nhiều mây", "sương mù", "mưa rào", "trời quang")


@workload("vietnamese-weather-line-hourly-deep-ids", "input_ids", ("dynamic",),
          "an hourly weather line in Vietnamese ('Thời tiết lúc 07:00: mưa phùn, 18°C, độ ẩm 92%') ~1.9k tokens "
          "into the system text, after the handbook and the grade table, a new one every 5-9 requests; ~700 "
          "static tokens follow; Llama 3 ids", TEA, (END_SYSTEM, END_USER))
def _vi_weather(rng: random.Random, w: Writer) -> list[Pair]:
    head = "\n\n".join([w.opening(), w.handbook(8), "Grades and prices:\n\n" + w.table()])
    tail = "\n\n".join([w.handbook(2, start=8), w.glossary(), w.language_block()])
    n = rng.randint(55, 85)
    spell = hourly(rng, n, (5, 9))
    lines = [f"Thời tiết lúc {(5 + k) % 24:02d}:00: {rng.choice(VI_SKY)}, {rng.randint(14, 27)}°C, độ ẩm "
             f"{rng.randint(60, 99)}%" for k in range(spell[-1] + 1)]
    out: list[Pair] = []
    for i in range(n):
        line = lines[spell[i]]
        q = w.question()
        orig = chat(i, [sys_msg(f"{head}\n\n{marked_at(line, lines)}\n\n{tail}"), user(q)])
        a = chat(i, [sys_msg(f"{head}\n\n{tail}\n\n{line}"), user(q)])
        b = chat(i, [sys_msg(f"{head}\n\n{tail}"), user(f"{q}\n\n{line}")])
        out.append((orig, (a, b)))
    return out


@workload("brine-reading-one-token-plain-prompt", "prompt", ("dynamic",),
          "plain completion prompts with the last brine reading at the gate ('Gate reading: 21 °Bé', 16-24, a "
          "new reading every 2-4 requests), one token ~900 tokens in, ~1k static tokens after it",
          SALT, (AFTER_SHARED, END_USER))
def _baume(rng: random.Random, w: Writer) -> list[Pair]:
    head = "\n\n".join([w.opening(), w.handbook(4)])
    tail = "\n\n".join([w.handbook(4, start=4), "Brine table:\n\n" + w.table()])
    n = rng.randint(50, 80)
    spell = hourly(rng, n, (2, 4))
    vals = [rng.randint(16, 24) for _ in range(spell[-1] + 1)]
    for k in range(1, len(vals)):
        while vals[k] == vals[k - 1]:
            vals[k] = rng.randint(16, 24)
    out: list[Pair] = []
    for i in range(n):
        v = vals[spell[i]]
        q = w.question()
        orig = prompt(i, f"{head}\n\nGate reading: {MARK}{v} °Bé.\n\n{tail}\n\nPlanner's question: {q}\nAnswer:")
        a = prompt(i, f"{head}\n\n{tail}\n\nGate reading: {v} °Bé.\n\nPlanner's question: {q}\nAnswer:")
        b = prompt(i, f"{head}\n\n{tail}\n\nPlanner's question: {q}\nGate reading: {v} °Bé.\nAnswer:")
        out.append((orig, (a, b)))
    return out


def _launch_conditions(rng: random.Random, k: int) -> str:
    obj = {"issued": f"{4 + k // 6:02d}:{(k % 6) * 10:02d}", "site": rng.choice(BALLOON.fills["site"]),
           "surface_wind_kt": rng.randint(0, 12), "wind_2000ft": f"{rng.randrange(0, 360, 10):03d}/{rng.randint(3, 25)}",
           "cloud_base_ft": rng.choice([1500, 2500, 3500, 5000, 8000]), "visibility_km": rng.choice([3, 5, 8, 10]),
           "go": rng.random() < 0.6}
    return json.dumps(obj, indent=2, ensure_ascii=False)


@workload("launch-conditions-json-object-every-few-requests", "messages", ("dynamic",),
          "the morning's launch conditions as a JSON object (issue time, site, winds, cloud base, go/no-go) in a "
          "code fence ~1k tokens into the system text, re-issued every 3-6 requests; ~900 static tokens follow",
          BALLOON, (END_SYSTEM, END_USER))
def _launch(rng: random.Random, w: Writer) -> list[Pair]:
    head = "\n\n".join([w.opening(), w.handbook(5)])
    tail = "\n\n".join([w.handbook(4, start=5), "Baskets:\n\n" + w.table(), w.language_block()])
    n = rng.randint(50, 75)
    spell = hourly(rng, n, (3, 6))
    blocks = [_launch_conditions(rng, k) for k in range(spell[-1] + 1)]
    out: list[Pair] = []
    for i in range(n):
        b = blocks[spell[i]]
        q = w.question()
        orig = chat(i, [sys_msg(f"{head}\n\nLaunch conditions:\n{fenced('json', marked_at(b, blocks))}\n\n{tail}"), user(q)])
        fa = chat(i, [sys_msg(f"{head}\n\n{tail}\n\nLaunch conditions:\n{fenced('json', b)}"), user(q)])
        fb = chat(i, [sys_msg(f"{head}\n\n{tail}"), user(f"{q}\n\nLaunch conditions:\n{fenced('json', b)}")])
        out.append((orig, (fa, fb)))
    return out


@workload("duty-pilot-five-settings-ids", "input_ids", ("dynamic",),
          "the pilot the request is for ('Ügyeletes pilóta: Szabó Réka', 5 settings) on its own line right after "
          "the opening paragraph, ~130 tokens in, ahead of ~2k static tokens; Llama 3 ids", BALLOON,
          (END_SYSTEM, END_USER))
def _pilot(rng: random.Random, w: Writer) -> list[Pair]:
    opening = w.opening()
    rest = "\n\n".join([w.handbook(7), "Baskets:\n\n" + w.table(), w.glossary(), w.language_block()])
    pilots = BALLOON.fills["pilot"] + ("Varga Lili",)
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        p = rng.choice(pilots)
        q = w.question()
        orig = chat(i, [sys_msg(f"{opening}\n\nÜgyeletes pilóta: {MARK}{p}\n\n{rest}"), user(q)])
        a = chat(i, [sys_msg(f"{opening}\n\n{rest}\n\nÜgyeletes pilóta: {p}"), user(q)])
        b = chat(i, [sys_msg(f"{opening}\n\n{rest}"), user(f"{q}\n\nÜgyeletes pilóta: {p}")])
        out.append((orig, (a, b)))
    return out


BELL_TOOLS = ("check_tower", "find_ringers", "book_peal", "record_peal", "send_notice")


def _python_tools(w: Writer, names: Sequence[str], defaults: dict[str, dict[str, str]] | None = None) -> str:
    return f"{tool_intro('python')}\n\n" + fenced("python", "\n\n".join(signatures(w, names, defaults)))


@workload("todays-date-as-default-argument-of-a-signature", "messages", ("dynamic",),
          "the system text lists five python signatures; the second, find_ringers, has today's date as the "
          "default of its date argument (date: str = \"2026-12-01\"), three days of traffic; three signatures "
          "and ~1k tokens of handbook follow", BELLS, (END_SYSTEM, END_USER))
def _default_date(rng: random.Random, w: Writer) -> list[Pair]:
    head = "\n\n".join([w.opening(), w.handbook(4)])
    tail = "\n\n".join([w.handbook(4, start=4), "Towers:\n\n" + w.table()])
    plain = _python_tools(w, BELL_TOOLS)
    days = [iso_day(BASE_TIME + 86400 * d) for d in range(3)]
    out: list[Pair] = []
    for i, ts in enumerate(spread(rng, rng.randint(50, 80), 3)):
        day = iso_day(ts)
        # Where a day's date parts from the days before it (the first day: from the others).
        rivals = [x for x in days if x < day] or days
        tools = _python_tools(w, BELL_TOOLS, {"find_ringers": {"date": '"' + marked_at(day, rivals) + '"'}})
        q = w.question()
        orig = chat(i, [sys_msg(f"{head}\n\n{tools}\n\n{tail}"), user(q)], ts=ts)
        a = chat(i, [sys_msg(f"{head}\n\n{plain}\n\n{tail}\n\nToday is {day}."), user(q)], ts=ts)
        b = chat(i, [sys_msg(f"{head}\n\n{plain}\n\n{tail}"), user(f"{q}\n\n(Today is {day}.)")], ts=ts)
        out.append((orig, (a, b)))
    return out


def tally_sheet(rng: random.Random) -> str:
    farm = rng.choice(SHEARING.fills["farm"])
    names = rng.sample(["Hemi", "Aroha", "Tama", "Mere", "Nikau", "Ana", "Rawiri", "Kiri", "Wiremu"], rng.randint(4, 8))
    runs = rng.randint(3, 4)
    lines = [f"Tally sheet, {farm}, {rng.choice(SHEARING.fills['breed'])} ({rng.randint(600, 2400):,} head)"]
    for n in names:
        counts = [rng.randint(40, 95) for _ in range(runs)]
        lines.append(f"- {n}: " + ", ".join(f"run {k + 1} {c}" for k, c in enumerate(counts)) + f"; total {sum(counts)}")
    lines.append(f"Bales pressed: {rng.randint(6, 40)} (average {rng.randint(150, 200)} kg); "
                 f"wet pens: {rng.choice(['none', 'pen 2', 'pens 3 and 4'])}; cut sheep reported: {rng.randint(0, 4)}.")
    lines.append("Farmer's remarks: " + rng.choice(["happy with the board", "wants the bellies kept apart",
                                                   "asks for an earlier start tomorrow", "short of catching pens",
                                                   "will pay by Friday"]) + ".")
    return "\n".join(lines)


@workload("tally-sheet-block-mid-system", "messages", ("dynamic|placement",),
          "the day's tally sheet (200-400 tokens: shearers' counts per run, bales, remarks), per request, pasted "
          "after the opening and two sections of the system text, ahead of ~1.3k static tokens", SHEARING)
def _tally(rng: random.Random, w: Writer) -> list[Pair]:
    head = "\n\n".join([w.opening(), w.handbook(2)])
    tail = "\n\n".join([w.handbook(6, start=2), "Rates:\n\n" + w.table(), w.glossary()])
    sheets = [tally_sheet(rng) for _ in range(rng.randint(40, 70))]
    out: list[Pair] = []
    for i, s in enumerate(sheets):
        q = w.question()
        orig = chat(i, [sys_msg(f"{head}\n\nToday's sheet:\n{UNIT}{marked_at(s, sheets)}\n\n{tail}"), user(q)])
        fixed = chat(i, [sys_msg(f"{head}\n\n{tail}"), user(f"{q}\n\nToday's sheet:\n{s}")])
        out.append((orig, fixed))
    return out


SHEAR_TOOLS = ("get_run_sheet", "log_tally", "book_gang", "check_wool_price", "report_injury")


def _run_sheet(rng: random.Random) -> dict[str, Any]:
    return {"date": iso_day(BASE_TIME), "farms": [
        {"farm": f, "shed_stands": rng.randint(2, 6), "mob": f"{rng.randint(400, 2600)} {rng.choice(SHEARING.fills['breed'])}",
         "start": rng.choice(["05:00", "05:30", "07:00"]), "gang": rng.sample(list(SHEARING.fills["shearer"]), 3)}
        for f in SHEARING.fills["farm"][:4]]}


@workload("generated-at-in-canned-tool-output-turn", "messages", ("dynamic",),
          "every request replays a canned exchange: 'Load today's run sheet.', a ```tool_code``` call as the "
          "model's turn, and the client's ```tool_output``` user turn whose JSON opens with a per-request "
          "'generated_at' stamp ahead of ~350 static tokens of run sheet; then an acknowledgement and the question",
          SHEARING, (START_LAST, END_USER))
def _generated_at(rng: random.Random, w: Writer) -> list[Pair]:
    system = "\n\n".join([w.opening(), w.handbook(6), _python_tools(w, SHEAR_TOOLS), "Rates:\n\n" + w.table()])
    sheet = _run_sheet(rng)
    call = model(fenced("tool_code", f'get_run_sheet(date="{iso_day(BASE_TIME)}")'))
    ack = model("Run sheet loaded. What do you need?")
    out: list[Pair] = []
    for i in range(rng.randint(50, 75)):
        ts = BASE_TIME + 18000 + 43.0 * i + rng.uniform(0, 30)
        stamp = f"{iso_day(ts)}T{clock(ts)}Z"
        q = w.question()
        shown = json.dumps({"generated_at": MARK + stamp} | sheet, indent=1, ensure_ascii=False)
        # The stamps of one day share their date; where a stamp parts from the others is inside it.
        head = [sys_msg(system), user("Load today's run sheet."), call]
        orig = chat(i, head + [user(fenced("tool_output", shown)), ack, user(q)], ts=ts)
        base = head + [user(fenced("tool_output", json.dumps(sheet, indent=1, ensure_ascii=False))), ack]
        a = chat(i, base + [user(f"(Run sheet generated {stamp}.)\n\n{q}")], ts=ts)
        b = chat(i, base + [user(f"{q}\n\n(Run sheet generated {stamp}.)")], ts=ts)
        out.append((orig, (a, b)))
    return out


INITIALS = ("AZ", "IG", "MB", "JL", "KE", "NO", "UA", "PE", "LI", "XA", "GM", "OR")


@workload("planner-initials-twice-in-system-text", "messages", ("dynamic", "dynamic"),
          "the planner's initials (12 planners, per request) on the first line of the system text and again in "
          "a sign-off rule ~1.1k tokens later", SALT)
def _initials(rng: random.Random, w: Writer) -> list[Pair]:
    a_part = "\n\n".join([w.opening(), w.handbook(5)])
    b_part = "\n\n".join([w.handbook(4, start=5), "Brine table:\n\n" + w.table(), w.glossary()])
    out: list[Pair] = []
    for i in range(rng.randint(55, 85)):
        ini = rng.choice(INITIALS)
        q = w.question()
        orig = chat(i, [sys_msg(f"Planner on duty: {MARK}{ini}\n\n{a_part}\n\nSign every plan you draft with the "
                                f"initials {MARK}{ini}.\n\n{b_part}"), user(q)])
        fixed = chat(i, [sys_msg(f"{a_part}\n\nSign every plan you draft with the planner's initials.\n\n{b_part}"),
                         user(f"{q}\n\nPlanner on duty: {ini}")])
        out.append((orig, fixed))
    return out


def _parts(*texts: str) -> list[dict[str, str]]:
    return [{"type": "text", "text": t} for t in texts]


@workload("enquiry-ref-first-of-three-user-parts", "messages", ("dynamic",),
          "the booking client sends the user turn as three content parts: the enquiry reference ('Enquiry "
          "E-2026-04417'), ~550 tokens of static booking guidance, the question; Gemma's template trims each and "
          "joins them with nothing between, right behind the system text", BELLS)
def _enquiry(rng: random.Random, w: Writer) -> list[Pair]:
    system = w.system(6)
    guidance = "Booking guidance. " + w.paragraph(5) + "\n\n" + "\n".join(f"* {r}" for r in w.rules(14))
    out: list[Pair] = []
    for i in range(rng.randint(55, 80)):
        ref = f"{rng.randint(1000, 9999)}{rng.randint(0, 9)}"
        q = w.question()
        orig = chat(i, [sys_msg(system), user(_parts(f"Enquiry E-2026-{MARK}{ref}", guidance, q))])
        fixed = chat(i, [sys_msg(system), user(_parts(guidance, q, f"Enquiry E-2026-{ref}"))])
        out.append((orig, fixed))
    return out


@workload("yaml-front-matter-stamp-raw-gemma-prompt", "prompt", ("dynamic",),
          "raw Gemma prompts whose exporter writes YAML front matter at the head of the system text, its second "
          "line a generation stamp to the second ('generated: 2026-11-30T07:13:55Z'), ahead of ~1.9k static "
          "tokens", TEA)
def _yaml(rng: random.Random, w: Writer) -> list[Pair]:
    body = w.system(8)
    n = rng.randint(40, 70)
    stamps = [f"{iso_day(BASE_TIME)}T{clock(BASE_TIME + 21600 + 52.0 * i + rng.uniform(0, 40))}Z" for i in range(n)]
    out: list[Pair] = []
    for i, st in enumerate(stamps):
        q = w.question()
        orig = prompt(i, gm(f"---\nsource: plucking-desk\ngenerated: {marked_at(st, stamps)}\nschema: 3\n---\n{body}", q))
        fixed = prompt(i, gm(f"---\nsource: plucking-desk\nschema: 3\n---\n{body}", f"{q}\n\n(generated {st})"))
        out.append((orig, fixed))
    return out


def winds_aloft(rng: random.Random, k: int) -> str:
    rows = ["| Altitude | Direction | Speed (kt) | Temperature |", "| --- | --- | --- | --- |"]
    d = rng.randrange(0, 360, 10)
    for alt in ("surface", "1,000 ft", "2,000 ft", "3,000 ft", "5,000 ft", "7,000 ft"):
        d = (d + rng.randrange(-30, 40, 10)) % 360
        rows.append(f"| {alt} | {d:03d}° | {rng.randint(1, 30)} | {rng.randint(-9, 12)} °C |")
    return f"Winds aloft, issued {4 + k // 4:02d}:{(k % 4) * 15:02d}:\n\n" + "\n".join(rows)


@workload("winds-aloft-table-deep-every-few-ids", "input_ids", ("dynamic",),
          "a six-row winds-aloft table with its issue time ~1.8k tokens into the system text (after ten handbook "
          "sections and the basket table), re-issued every 3-7 requests, ~900 static tokens after it; Llama 3 ids",
          BALLOON, (END_SYSTEM, END_USER))
def _winds(rng: random.Random, w: Writer) -> list[Pair]:
    head = "\n\n".join([w.opening(), w.handbook(10), "Baskets:\n\n" + w.table()])
    tail = "\n\n".join([w.handbook(3, start=10), w.glossary(), w.language_block(),
                         "Helper the desk's scripts use:\n" + w.code()])
    n = rng.randint(55, 85)
    spell = hourly(rng, n, (3, 7))
    tables = [winds_aloft(rng, k) for k in range(spell[-1] + 1)]
    out: list[Pair] = []
    for i in range(n):
        t = tables[spell[i]]
        q = w.question()
        orig = chat(i, [sys_msg(f"{head}\n\n{marked_at(t, tables)}\n\n{tail}"), user(q)])
        a = chat(i, [sys_msg(f"{head}\n\n{tail}\n\n{t}"), user(q)])
        b = chat(i, [sys_msg(f"{head}\n\n{tail}"), user(f"{q}\n\n{t}")])
        out.append((orig, (a, b)))
    return out


TUNINGS = (("Werckmeister III", 415), ("equal", 440), ("Kirnberger III", 430))


@workload("temperament-in-json-job-settings", "messages", ("dynamic",),
          "the job settings as a JSON block ~750 tokens into the system text carry the temperament and pitch "
          "of the organ the question is about (3 settings, per request), ahead of ~1.2k static tokens",
          ORGAN, (END_SYSTEM, END_USER))
def _temperament(rng: random.Random, w: Writer) -> list[Pair]:
    head = "\n\n".join([w.opening(), w.handbook(4)])
    tail = "\n\n".join([w.handbook(5, start=4), "Stop list:\n\n" + w.table(), w.language_block()])

    def block(t: str, hz: int, mark: bool) -> str:
        return fenced("json", json.dumps({"wind_pressure_mm": 75, "temperament": (MARK if mark else "") + t,
                                          "pitch_a4_hz": hz, "tuning_slides": "keep"}, indent=2, ensure_ascii=False))
    plain = fenced("json", json.dumps({"wind_pressure_mm": 75, "tuning_slides": "keep"}, indent=2))
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        t, hz = rng.choice(TUNINGS)
        q = w.question()
        orig = chat(i, [sys_msg(f"{head}\n\nJob settings:\n{block(t, hz, True)}\n\n{tail}"), user(q)])
        line = f"Temperament for this job: {t}, a' = {hz} Hz."
        a = chat(i, [sys_msg(f"{head}\n\nJob settings:\n{plain}\n\n{tail}\n\n{line}"), user(q)])
        b = chat(i, [sys_msg(f"{head}\n\nJob settings:\n{plain}\n\n{tail}"), user(f"{q}\n\n{line}")])
        out.append((orig, (a, b)))
    return out


@workload("shed-stand-count-inside-a-sentence-ids", "input_ids", ("dynamic",),
          "the number of stands of the shed a request is about (2-7, per request) inside a sentence of the gang "
          "sizes section, ~1k tokens in, ahead of ~1.2k static tokens; Llama 3 ids", SHEARING,
          (END_SYSTEM, END_USER))
def _stands(rng: random.Random, w: Writer) -> list[Pair]:
    head = "\n\n".join([w.opening(), w.handbook(4)])
    tail = "\n\n".join([w.handbook(5, start=5), "Rates:\n\n" + w.table(), w.language_block()])
    lead = "## Gang sizes\nThe shed this conversation is about has "
    rest = (" stands, and every rule below about gang sizes is meant for that number. " + w.paragraph(4))
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        n = rng.randint(2, 7)
        q = w.question()
        orig = chat(i, [sys_msg(f"{head}\n\n{lead}{MARK}{n}{rest}\n\n{tail}"), user(q)])
        neutral = f"{lead}as many{rest}"
        a = chat(i, [sys_msg(f"{head}\n\n{neutral}\n\n{tail}\n\nStands in this shed: {n}."), user(q)])
        b = chat(i, [sys_msg(f"{head}\n\n{neutral}\n\n{tail}"), user(f"{q}\n\n(Stands in this shed: {n}.)")])
        out.append((orig, (a, b)))
    return out


@workload("desk-clock-ends-system-text-of-sessions", "messages", ("dynamic",),
          "dispatch sessions of 1-7 turns whose system text ends with the desk clock at the send time ('Klukkan: "
          "06:14:07'), so, the system text heading the first user turn, no turn shares its own session's history; "
          "the fix stamps each user turn, which stays in the history as sent", SNOW)
def _clock_end(rng: random.Random, w: Writer) -> list[Pair]:
    system = w.system(7)
    convs = sessions(rng, w, (12, 16), (1, 7))
    stamps: dict[tuple[int, int], str] = {}
    out: list[Pair] = []
    for i, (c, k) in enumerate(interleave(rng, convs)):
        ts = BASE_TIME + 21000 + 47.0 * i + rng.uniform(0, 20)
        stamps[(c, k)] = clock(ts)
        msgs = [sys_msg(f"{system}\n\nKlukkan: {MARK}{clock(ts)}")] + history(convs[c][:k]) + [user(convs[c][k][0])]
        fixed = [sys_msg(system)]
        for j in range(k):
            fixed += [user(f"{convs[c][j][0]}\n\n[{stamps[(c, j)]}]"), model(convs[c][j][1])]
        fixed.append(user(f"{convs[c][k][0]}\n\n[{stamps[(c, k)]}]"))
        out.append((chat(i, msgs, ts=ts), chat(i, fixed, ts=ts)))
    return out


# ---------------------------------------------------------------- order


def _marked_json_array(items: list[dict[str, Any]], names: Sequence[str], pretty: bool) -> str:
    """A JSON array of tool schemas, MARK where the first one's name parts from the other names
    that could come first, UNIT at the first object's brace."""
    first = items[0]["name"]
    g = json.loads(json.dumps(items))
    g[0]["name"] = marked_at(first, [n for n in names if n != first])
    if pretty:
        text = json.dumps(g, indent=2, ensure_ascii=False)
        return text.replace("[\n  {", "[\n  " + UNIT + "{", 1)
    text = json.dumps(g, ensure_ascii=False, separators=(",", ":"))
    return "[" + UNIT + text[1:]


@workload("tool-schemas-pretty-json-array-shuffled", "messages", ("order",),
          "five function schemas as a pretty JSON array in the system text (~650 tokens, after the opening and "
          "three sections), in a random order per request; ~1.3k static tokens follow", SNOW)
def _pretty_tools(rng: random.Random, w: Writer) -> list[Pair]:
    head = "\n\n".join([w.opening(), w.handbook(3)])
    tail = "\n\n".join([w.handbook(5, start=3), "Reference table:\n\n" + w.table(), w.glossary()])
    canon = fenced("json", w.tools_json(SNOW_TOOLS))
    out: list[Pair] = []
    for i in range(rng.randint(55, 85)):
        order = shuffled(rng, SNOW_TOOLS)
        arr = _marked_json_array([w.schema(n) for n in order], SNOW_TOOLS, True)
        q = w.question()
        orig = chat(i, [sys_msg(f"{head}\n\n{tool_intro('json')}\n\n{fenced('json', arr)}\n\n{tail}"), user(q)])
        fixed = chat(i, [sys_msg(f"{head}\n\n{tool_intro('json')}\n\n{canon}\n\n{tail}"), user(q)])
        out.append((orig, fixed))
    return out


BLOOD_TOOLS = ("check_stock", "reserve_units", "record_donation", "discard_unit", "schedule_collection")


@workload("tool-schemas-compact-json-array-shuffled-ids", "input_ids", ("order",),
          "five function schemas as a one-line compact JSON array after the opening and six sections (~1.1k "
          "tokens in), in a random order per request; ~700 static tokens follow; Llama 3 ids", BLOOD)
def _compact_tools(rng: random.Random, w: Writer) -> list[Pair]:
    head = "\n\n".join([w.opening(), w.handbook(6), tool_intro("json")])
    tail = "\n\n".join(["Storage rules:\n\n" + w.table(), w.handbook(2, start=6), w.glossary()])
    canon = w.tools_json(BLOOD_TOOLS, pretty=False)
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        order = shuffled(rng, BLOOD_TOOLS)
        arr = _marked_json_array([w.schema(n) for n in order], BLOOD_TOOLS, False)
        q = w.question()
        orig = chat(i, [sys_msg(f"{head}\nFunctions: {arr}\n\n{tail}"), user(q)])
        fixed = chat(i, [sys_msg(f"{head}\nFunctions: {canon}\n\n{tail}"), user(q)])
        out.append((orig, fixed))
    return out


def _marked_sections(rng: random.Random, secs: list[tuple[str, str]]) -> tuple[str, str]:
    """Sections in a random order with MARK where the first title parts from the other titles, UNIT at
    its '## '; and the canonical text."""
    order = shuffled(rng, secs)
    titles = [t for t, _ in secs]
    first = marked_at(order[0][0], [t for t in titles if t != order[0][0]])
    body = "\n\n".join([f"{UNIT}## {first}\n{order[0][1]}"] + [f"## {t}\n{b}" for t, b in order[1:]])
    canon = "\n\n".join(f"## {t}\n{b}" for t, b in secs)
    return body, canon


def _section_bodies(w: Writer, titles: Sequence[str]) -> list[tuple[str, str]]:
    return [(t, w.section(t).split("\n", 1)[1]) for t in titles]


@workload("restoration-sections-shuffled-raw-gemma-prompt", "prompt", ("order",),
          "raw Gemma prompts from the workshop's quoting tool: eight handbook sections in a random order per "
          "request right after the opening (~90 tokens in), then the stop table and settings", ORGAN)
def _organ_sections(rng: random.Random, w: Writer) -> list[Pair]:
    opening = w.opening()
    secs = _section_bodies(w, ORGAN.sections[:8])
    tail = "\n\n".join(["Stop list:\n\n" + w.table(), w.glossary(), w.language_block()])
    out: list[Pair] = []
    for i in range(rng.randint(40, 65)):
        body, canon = _marked_sections(rng, secs)
        q = w.question()
        out.append((prompt(i, gm(f"{opening}\n\n{body}\n\n{tail}", q)), prompt(i, gm(f"{opening}\n\n{canon}\n\n{tail}", q))))
    return out


@workload("fewshot-turn-pairs-shuffled", "messages", ("order",),
          "four canned few-shot exchanges as user/model turns after the system text, in a random order per "
          "request; in Gemma the first example question shares the first user turn with the system text", TEA)
def _fewshot_turns(rng: random.Random, w: Writer) -> list[Pair]:
    system = w.system(7)
    shots = w.fewshot(4)
    qs = [s[0] for s in shots]
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        order = shuffled(rng, shots)
        msgs = [sys_msg(system)]
        for k, (sq, sa) in enumerate(order):
            msgs += [user(UNIT + marked_at(sq, qs) if k == 0 else sq), model(sa)]
        q = w.question()
        fixed = [sys_msg(system)] + history(shots) + [user(q)]
        out.append((chat(i, msgs + [user(q)]), chat(i, fixed)))
    return out


@workload("house-rules-bullets-drawn-once-per-session", "messages", ("order",),
          "planner sessions of 1-5 turns; the client builds the system text when a session starts, its ten house "
          "rules (bullets, ~1k tokens in) in an order drawn for that session; ~900 static tokens follow", SALT)
def _session_rules(rng: random.Random, w: Writer) -> list[Pair]:
    head = "\n\n".join([w.opening(), w.handbook(4)])
    tail = "\n\n".join([w.handbook(4, start=4), "Brine table:\n\n" + w.table(), w.language_block()])
    rules = w.rules(10)
    convs = sessions(rng, w, (14, 20), (1, 5))
    orders = [shuffled(rng, rules) for _ in convs]
    canon = "House rules:\n" + "\n".join(f"- {r}" for r in rules)
    out: list[Pair] = []
    for i, (c, k) in enumerate(interleave(rng, convs)):
        o = orders[c]
        # The first rules other sessions open with are what this one parts from.
        rivals = [x[0] for x in orders if x[0] != o[0]] or [r for r in rules if r != o[0]]
        text = "House rules:\n" + UNIT + "- " + marked_at(o[0], rivals) + "\n" + "\n".join(f"- {r}" for r in o[1:])
        tail_msgs = history(convs[c][:k]) + [user(convs[c][k][0])]
        out.append((chat(i, [sys_msg(f"{head}\n\n{text}\n\n{tail}")] + tail_msgs),
                    chat(i, [sys_msg(f"{head}\n\n{canon}\n\n{tail}")] + tail_msgs)))
    return out


@workload("tower-table-rows-shuffled-plain-prompt", "prompt", ("order",),
          "plain completion prompts with the guild's tower table (five rows) in the order the client's database "
          "query returned them, different per request, ~600 tokens in; ~1.1k static tokens follow", BELLS)
def _tower_rows(rng: random.Random, w: Writer) -> list[Pair]:
    head = "\n\n".join([w.opening(), w.handbook(3)])
    tail = "\n\n".join([w.handbook(5, start=3), w.glossary()])
    header, *rows = BELLS.table
    names = [r[0] for r in rows]
    canon = w.table()
    out: list[Pair] = []
    for i in range(rng.randint(55, 85)):
        order = shuffled(rng, rows)
        first = "| " + marked_at(order[0][0], [n for n in names if n != order[0][0]]) + " | " + " | ".join(order[0][1:]) + " |"
        lines = w.table([]).split("\n") + [UNIT + first] + ["| " + " | ".join(r) + " |" for r in order[1:]]
        q = w.question()
        orig = prompt(i, f"{head}\n\nTowers:\n\n" + "\n".join(lines) + f"\n\n{tail}\n\nRinger's question: {q}\nAnswer:")
        fixed = prompt(i, f"{head}\n\nTowers:\n\n{canon}\n\n{tail}\n\nRinger's question: {q}\nAnswer:")
        out.append((orig, fixed))
    return out


@workload("site-limits-json-keys-shuffled-ids", "input_ids", ("order",),
          "a JSON object of launch-site limits keyed by site (five keys, ~400 tokens) ~900 tokens into the system "
          "text, its keys in a different order per request (built from a set); ~1k static tokens follow; "
          "Llama 3 ids", BALLOON)
def _site_keys(rng: random.Random, w: Writer) -> list[Pair]:
    head = "\n\n".join([w.opening(), w.handbook(4)])
    tail = "\n\n".join([w.handbook(5, start=4), "Baskets:\n\n" + w.table()])
    local = random.Random("h15/sites")
    sites = list(BALLOON.fills["site"])
    limits = {s: {"max_surface_wind_kt": local.choice([6, 7, 8]), "min_cloud_base_ft": local.choice([1500, 2000, 2500]),
                  "landowner_call": local.choice([True, False]), "no_fly": local.choice(["wheat after 1 Oct",
                                                                                         "vineyards", "none", "the spa"]),
                  "note": w.sentence()} for s in sites}
    canon = fenced("json", json.dumps(limits, indent=2, ensure_ascii=False))
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        order = shuffled(rng, sites)
        first = order[0]
        obj = {(marked_at(first, [s for s in sites if s != first]) if s == first else s): limits[s] for s in order}
        text = json.dumps(obj, indent=2, ensure_ascii=False).replace('{\n  "', '{\n  ' + UNIT + '"', 1)
        q = w.question()
        orig = chat(i, [sys_msg(f"{head}\n\nSite limits:\n{fenced('json', text)}\n\n{tail}"), user(q)])
        fixed = chat(i, [sys_msg(f"{head}\n\nSite limits:\n{canon}\n\n{tail}"), user(q)])
        out.append((orig, fixed))
    return out


PASSAGE_TITLES = ("Wet sheep and the five o'clock start", "Bale weights the store accepts",
                  "Handpiece guards and smoko checks", "Travel time and the gang's day")


@workload("same-four-passages-in-score-order", "messages", ("order",),
          "the retriever of the run-sheet desk returns the same four notes (its whole index, ~600 tokens) for "
          "every question, in score order, pasted right after the opening paragraph; ~1.3k static tokens follow",
          SHEARING)
def _passages_order(rng: random.Random, w: Writer) -> list[Pair]:
    opening = w.opening()
    docs = [(f"SH-{k + 11:03d}", w.passage(f"SH-{k + 11:03d}", t, 5)) for k, t in enumerate(PASSAGE_TITLES)]
    ids_ = [d for d, _ in docs]
    tail = "\n\n".join([w.handbook(6), "Rates:\n\n" + w.table(), w.glossary()])
    canon = "\n\n".join(p for _, p in docs)
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        order = shuffled(rng, docs)
        d0, p0 = order[0]
        first = UNIT + "[" + marked_at(d0, [d for d in ids_ if d != d0]) + p0[len(d0) + 1:]
        body = "\n\n".join([first] + [p for _, p in order[1:]])
        q = w.question()
        orig = chat(i, [sys_msg(f"{opening}\n\nNotes found for this question:\n\n{body}\n\n{tail}"), user(q)])
        fixed = chat(i, [sys_msg(f"{opening}\n\nNotes found for this question:\n\n{canon}\n\n{tail}"), user(q)])
        out.append((orig, fixed))
    return out


@workload("python-signatures-shuffled", "messages", ("order",),
          "five python signatures with docstrings in a ```python``` block ~800 tokens into the system text, in a "
          "random order per request; ~1k static tokens follow", BELLS)
def _sig_order(rng: random.Random, w: Writer) -> list[Pair]:
    head = "\n\n".join([w.opening(), w.handbook(4)])
    tail = "\n\n".join([w.handbook(4, start=4), "Towers:\n\n" + w.table(), w.language_block()])
    canon = _python_tools(w, BELL_TOOLS)
    out: list[Pair] = []
    for i in range(rng.randint(55, 80)):
        order = shuffled(rng, BELL_TOOLS)
        sigs = signatures(w, order)
        first = order[0]
        sigs[0] = UNIT + "def " + marked_at(first, [n for n in BELL_TOOLS if n != first]) + sigs[0][4 + len(first):]
        block = f"{tool_intro('python')}\n\n" + fenced("python", "\n\n".join(sigs))
        q = w.question()
        out.append((chat(i, [sys_msg(f"{head}\n\n{block}\n\n{tail}"), user(q)]),
                    chat(i, [sys_msg(f"{head}\n\n{canon}\n\n{tail}"), user(q)])))
    return out


@workload("basque-glossary-lines-shuffled-ids", "input_ids", ("order",),
          "the Basque glossary (nine 'term: meaning' lines) ~1.6k tokens into the system text, shuffled per "
          "request by the client; ~600 static tokens follow; Llama 3 ids", SALT)
def _glossary_order(rng: random.Random, w: Writer) -> list[Pair]:
    head = "\n\n".join([w.opening(), w.handbook(7), "Brine table:\n\n" + w.table()])
    tail = "\n\n".join([w.handbook(2, start=7), w.language_block()])
    terms = list(SALT.glossary)
    keys = [a for a, _ in terms]
    canon = w.glossary()
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        order = shuffled(rng, terms)
        a0, b0 = order[0]
        lines = [f"{UNIT}- {marked_at(a0, [k for k in keys if k != a0])}: {b0}"] + [f"- {a}: {b}" for a, b in order[1:]]
        gl = f"Glossary ({SALT.language} terms staff use):\n" + "\n".join(lines)
        q = w.question()
        out.append((chat(i, [sys_msg(f"{head}\n\n{gl}\n\n{tail}"), user(q)]),
                    chat(i, [sys_msg(f"{head}\n\n{canon}\n\n{tail}"), user(q)])))
    return out


QUICK = ("Gang confirmed for {farm}.", "Start delayed until the sheep are dry.", "Bale under weight: re-press.",
         "Shearer off sick: swap from the next gang.", "Farmer's sign-off still missing.", "Travel booked for 04:30.",
         "Injury logged; safety lead told.", "Tally corrected after recount.")


@workload("quick-replies-most-recently-used-order", "messages", ("order",),
          "eight canned quick replies listed in most-recently-used order (the desk's last pick moves to the top "
          "before each request), ~1.1k tokens into the system text; ~900 static tokens follow", SHEARING)
def _mru(rng: random.Random, w: Writer) -> list[Pair]:
    head = "\n\n".join([w.opening(), w.handbook(6)])
    tail = "\n\n".join([w.handbook(3, start=6), "Rates:\n\n" + w.table()])
    replies = [r.replace("{farm}", "the farm") + " " + w.sentence() for r in QUICK]
    mru = list(replies)
    canon = "Quick replies:\n" + "\n".join(f"- {r}" for r in replies)
    out: list[Pair] = []
    for i in range(rng.randint(55, 85)):
        first = marked_at(mru[0], [r for r in replies if r != mru[0]])
        text = "Quick replies:\n" + UNIT + f"- {first}\n" + "\n".join(f"- {r}" for r in mru[1:])
        q = w.question()
        out.append((chat(i, [sys_msg(f"{head}\n\n{text}\n\n{tail}"), user(q)]),
                    chat(i, [sys_msg(f"{head}\n\n{canon}\n\n{tail}"), user(q)])))
        pick = rng.choice(mru[1:]) if rng.random() < 0.85 else mru[0]
        mru.remove(pick)
        mru.insert(0, pick)
    return out


# ---------------------------------------------------------------- placement


def order_profile(rng: random.Random) -> str:
    ward = rng.choice(["maternity", "theatre 2", "paediatrics", "ICU", "casualty"])
    return (f"Order from {rng.choice(BLOOD.fills['hospital'])}, ward {ward}: "
            f"{rng.randint(1, 12)} units of {rng.choice(GROUPS)} {rng.choice(['red cells', 'platelets', 'plasma'])}, "
            f"urgency {rng.choice(['immediate', 'within 2 hours', 'routine'])}, patient Hb {rng.uniform(4.5, 9.8):.1f} g/dL, "
            f"antibodies {rng.choice(['none', 'anti-K', 'anti-E', 'not tested'])}, requested by Dr "
            f"{rng.choice(['Achieng', 'Mwangi', 'Salim', 'Wanjiru', 'Omondi', 'Bakari'])}.")


@workload("hospital-order-profile-first-paragraph-of-system", "messages", ("placement",),
          "the order the question is about (~70 tokens: hospital, ward, units, urgency, Hb, antibodies) as the "
          "first paragraph of the system text, ahead of ~2k static tokens of instructions", BLOOD)
def _order_first(rng: random.Random, w: Writer) -> list[Pair]:
    instructions = w.system(8)
    out: list[Pair] = []
    for i in range(rng.randint(55, 85)):
        prof = order_profile(rng)
        q = w.question()
        out.append((chat(i, [sys_msg(f"{MARK}{prof}\n\n{instructions}"), user(q)]),
                    chat(i, [sys_msg(instructions), user(f"{prof}\n\n{q}")])))
    return out


@workload("archive-passages-ahead-of-instructions-lone-user-turn", "messages", ("placement",),
          "no system message: the workshop's client writes one user turn with 2-4 passages retrieved from the "
          "restoration archive (per request) ahead of ~1.6k tokens of static instructions, then the question",
          ORGAN)
def _passages_first(rng: random.Random, w: Writer) -> list[Pair]:
    instructions = w.system(6)
    pool = [w.passage(f"ARCH-{k:04d}", f"{rng.choice(ORGAN.fills['organ'])} {rng.choice(ORGAN.fills['builder'])} "
                      f"report", rng.randint(3, 6)) for k in range(30)]
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        docs = "\n\n".join(rng.sample(pool, rng.randint(2, 4)))
        q = w.question()
        out.append((chat(i, [user(f"{MARK}{docs}\n\n{instructions}\n\nQuestion: {q}")]),
                    chat(i, [user(f"{instructions}\n\n{docs}\n\nQuestion: {q}")])))
    return out


@workload("conversation-summary-ahead-of-instructions-ids", "input_ids", ("placement",),
          "tea-desk sessions of 1-6 turns whose client sends, instead of the history, a running summary as the "
          "first paragraph of the system text ahead of ~1.8k static tokens of instructions, and the new "
          "question; a session's first turn has no summary; Llama 3 ids", TEA)
def _summary_first(rng: random.Random, w: Writer) -> list[Pair]:
    instructions = w.system(7)
    convs = sessions(rng, w, (14, 20), (1, 6))
    out: list[Pair] = []
    for i, (c, k) in enumerate(interleave(rng, convs)):
        q = convs[c][k][0]
        if k == 0:
            rec = chat(i, [sys_msg(SKIP + instructions), user(q)])
            out.append((rec, unmark(rec)))
            continue
        summary = " ".join(f"Asked: {convs[c][j][0].splitlines()[0][:90]} Answered: {convs[c][j][1][:80]}"
                           for j in range(k))
        orig = chat(i, [sys_msg(f"{UNIT}Conversation so far: {MARK}{summary}\n\n{instructions}"), user(q)])
        fixed = chat(i, [sys_msg(instructions), user(f"Conversation so far: {summary}\n\n{q}")])
        out.append((orig, fixed))
    return out


def request_card(rng: random.Random) -> str:
    return (f"Request card R-{rng.randint(3000, 3999)}\nTower: {rng.choice(BELLS.fills['tower'])}\n"
            f"Method: {rng.choice(BELLS.fills['method'])}\nDate asked: {rng.choice(BELLS.fills['day'])}\n"
            f"Occasion: {rng.choice(BELLS.fills['occasion'])}\nContact: {rng.choice(BELLS.fills['ringer'])}, "
            f"07{rng.randint(700, 999)} {rng.randint(100000, 999999)}")


@workload("request-card-ahead-of-instructions-raw-gemma-prompt", "prompt", ("placement",),
          "raw Gemma prompts whose client writes the booking's request card (per request, ~60 tokens) at the head "
          "of the first user turn, ahead of ~2k static tokens of guild instructions and the question", BELLS)
def _card_first(rng: random.Random, w: Writer) -> list[Pair]:
    instructions = w.system(8)
    cards = [request_card(rng) for _ in range(rng.randint(45, 70))]
    out: list[Pair] = []
    for i, card in enumerate(cards):
        q = w.question()
        out.append((prompt(i, gm(f"{UNIT}{marked_at(card, cards)}\n\n{instructions}", q)),
                    prompt(i, gm(instructions, f"{card}\n\n{q}"))))
    return out


def farm_card(rng: random.Random) -> str:
    return (f"Farm: {rng.choice(SHEARING.fills['farm'])} | Mob: {rng.randint(300, 2800):,} "
            f"{rng.choice(SHEARING.fills['breed'])} | Shed: {rng.randint(2, 6)} stands | Contact: "
            f"{rng.choice(['Bruce', 'Hine', 'Graham', 'Moana', 'Trish', 'Paora'])} 021 {rng.randint(100, 999)} "
            f"{rng.randint(1000, 9999)} | Notes: {rng.choice(['dogs on site', 'new yards', 'power off till 7', 'no cook', 'steep race'])}")


@workload("farm-card-ahead-of-static-block-plain-prompt", "prompt", ("placement",),
          "plain completion prompts: the farm card (per request, ~50 tokens) as the first text after the BOS, then "
          "a ~1.5k-token static instruction block, the question and 'Answer:'", SHEARING)
def _farm_first(rng: random.Random, w: Writer) -> list[Pair]:
    block = w.system(6)
    cards = [farm_card(rng) for _ in range(rng.randint(45, 75))]
    out: list[Pair] = []
    for i, card in enumerate(cards):
        q = w.question()
        out.append((prompt(i, f"{UNIT}{marked_at(card, cards)}\n\n{block}\n\nQuestion: {q}\nAnswer:"),
                    prompt(i, f"{block}\n\n{card}\n\nQuestion: {q}\nAnswer:")))
    return out


def manifest(rng: random.Random) -> str:
    names = ["Kiss Anna", "Horváth Gábor", "Molnár Zsófia", "Farkas Péter", "Balogh Emese", "Papp Dániel", "Lakatos Ilona",
             "Mészáros Tamás", "Oláh Kinga", "Simon Márton", "Fekete Dóra", "Takács Levente", "Jones Emily",
             "Müller Jonas", "Rossi Giulia"]
    people = rng.sample(names, rng.randint(3, 12))
    lines = [f"Flight {rng.choice(BALLOON.fills['flight'])}, {rng.choice(BALLOON.fills['when'])}, "
             f"{rng.choice(BALLOON.fills['site'])}", "Passengers:"]
    lines += [f"{k}. {p} ({rng.randint(48, 128)} kg){rng.choice(['', '', ', voucher', ', birthday', ', first flight'])}"
              for k, p in enumerate(people, 1)]
    return "\n".join(lines)


@workload("passenger-manifest-as-system-instructions-in-user-turn", "messages", ("placement",),
          "the booking client sends the flight's passenger manifest (per request, 40-200 tokens) as the system "
          "message and the desk's ~1.6k-token instructions at the head of the user turn: Gemma prints the "
          "manifest first in the first user turn", BALLOON)
def _manifest_first(rng: random.Random, w: Writer) -> list[Pair]:
    instructions = w.system(6)
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        m = manifest(rng)
        q = w.question()
        out.append((chat(i, [sys_msg(MARK + m), user(f"{instructions}\n\n{q}")]),
                    chat(i, [sys_msg(instructions), user(f"{m}\n\n{q}")])))
    return out


@workload("daily-road-bulletin-ahead-of-manual-ids", "input_ids", ("placement",),
          "the day's road bulletin (~180 tokens, four days of traffic) opens the system text ahead of the "
          "~2.2k-token dispatch manual; Llama 3 ids", SNOW)
def _bulletin(rng: random.Random, w: Writer) -> list[Pair]:
    manual = w.system(9)
    bulletins = [f"Vegaupplýsingar {ice_date(BASE_TIME + 86400 * d)}: {w.paragraph(4)} Færð: "
                 f"{rng.choice(['hálka á öllum leiðum', 'snjóþekja í efri byggðum', 'krapi við ströndina', 'greiðfært'])}."
                 for d in range(4)]
    out: list[Pair] = []
    for i, ts in enumerate(spread(rng, rng.randint(55, 85), 4)):
        b = bulletins[min(3, day_index(ts))]
        q = w.question()
        out.append((chat(i, [sys_msg(f"{MARK}{b}\n\n{manual}"), user(q)], ts=ts),
                    chat(i, [sys_msg(f"{manual}\n\n{b}"), user(q)], ts=ts)))
    return out


@workload("instructions-appended-to-last-user-turn-of-sessions", "messages", ("placement",),
          "no system message: the planner's client appends the ~1.5k-token instructions to the newest user turn "
          "of each session (1-6 turns), behind the question and the history, so they move at every turn", SALT)
def _instr_last(rng: random.Random, w: Writer) -> list[Pair]:
    instructions = w.system(6)
    convs = sessions(rng, w, (12, 17), (1, 6))
    out: list[Pair] = []
    for i, (c, k) in enumerate(interleave(rng, convs)):
        turns = convs[c][:k]
        q = convs[c][k][0]
        first_q = turns[0][0] if turns else q
        hist = [user(MARK + first_q), model(turns[0][1])] + history(turns[1:]) if turns else []
        last = f"{q}\n\n{instructions}" if turns else f"{MARK}{q}\n\n{instructions}"
        orig = chat(i, hist + [user(last)])
        fixed = chat(i, [sys_msg(instructions)] + history(turns) + [user(q)])
        out.append((orig, fixed))
    return out


# ---------------------------------------------------------------- several defects


@workload("date-line-and-json-tools-shuffled", "messages", ("dynamic", "order"),
          "the Icelandic date (three days) on the first line of the system text, and five JSON function schemas "
          "in a random order per request ~600 tokens later", SNOW, (END_SYSTEM, END_USER))
def _date_tools(rng: random.Random, w: Writer) -> list[Pair]:
    head = "\n\n".join([w.opening(), w.handbook(3)])
    tail = "\n\n".join([w.handbook(4, start=3), "Reference table:\n\n" + w.table()])
    canon = fenced("json", w.tools_json(SNOW_TOOLS))
    out: list[Pair] = []
    for i, ts in enumerate(spread(rng, rng.randint(55, 80), 3)):
        d = ice_date(ts)
        order = shuffled(rng, SNOW_TOOLS)
        arr = _marked_json_array([w.schema(n) for n in order], SNOW_TOOLS, True)
        q = w.question()
        orig = chat(i, [sys_msg(f"Dagsetning: {MARK}{d}\n\n{head}\n\n{tool_intro('json')}\n\n{fenced('json', arr)}\n\n{tail}"),
                        user(q)], ts=ts)
        base = f"{head}\n\n{tool_intro('json')}\n\n{canon}\n\n{tail}"
        a = chat(i, [sys_msg(f"{base}\n\nDagsetning: {d}"), user(q)], ts=ts)
        b = chat(i, [sys_msg(base), user(f"{q}\n\nDagsetning: {d}")], ts=ts)
        out.append((orig, (a, b)))
    return out


@workload("order-profile-and-sections-shuffled-ids", "input_ids", ("placement", "order"),
          "a hospital order profile (per request) opens the system text, and the eight handbook sections after "
          "the opening come in a random order per request; Llama 3 ids", BLOOD)
def _profile_sections(rng: random.Random, w: Writer) -> list[Pair]:
    opening = w.opening()
    secs = _section_bodies(w, BLOOD.sections[:8])
    tail = "\n\n".join(["Storage rules:\n\n" + w.table(), w.glossary()])
    out: list[Pair] = []
    for i in range(rng.randint(50, 75)):
        prof = order_profile(rng)
        body, canon = _marked_sections(rng, secs)
        q = w.question()
        out.append((untimed(chat(i, [sys_msg(f"{MARK}{prof}\n\n{opening}\n\n{body}\n\n{tail}"), user(q)])),
                    untimed(chat(i, [sys_msg(f"{opening}\n\n{canon}\n\n{tail}"), user(f"{prof}\n\n{q}")]))))
    return out


@workload("examples-shuffled-and-hourly-humidity-raw-gemma-prompt", "prompt", ("order", "dynamic"),
          "raw Gemma prompts: five worked examples (Q/A text in the system text, ~500 tokens) in a random order "
          "per request, then the workshop humidity (every 5-10 requests) ahead of ~1k static tokens", ORGAN)
def _examples_humidity(rng: random.Random, w: Writer) -> list[Pair]:
    opening = w.opening()
    shots = [f"Q: {q}\nA: {a}" for q, a in w.fewshot(5)]
    tail = "\n\n".join([w.handbook(5), "Stop list:\n\n" + w.table()])
    n = rng.randint(50, 75)
    spell = hourly(rng, n, (5, 10))
    readings = [_workshop_reading(rng) for _ in range(spell[-1] + 1)]
    out: list[Pair] = []
    for i in range(n):
        order = shuffled(rng, shots)
        first = UNIT + marked_at(order[0], [s for s in shots if s != order[0]])
        ex = "Worked examples:\n\n" + "\n\n".join([first] + order[1:])
        r = readings[spell[i]]
        q = w.question()
        orig = prompt(i, gm(f"{opening}\n\n{ex}\n\nWorkshop now: {marked_at(r, readings)}\n\n{tail}", q))
        fixed = prompt(i, gm(f"{opening}\n\nWorked examples:\n\n" + "\n\n".join(shots) + f"\n\n{tail}",
                             f"{q}\n\nWorkshop now: {r}"))
        out.append((orig, fixed))
    return out


def six_seat_manifest(rng: random.Random) -> str:
    """A six-passenger manifest of a near-constant length (so what follows it sits at one depth)."""
    names = ["Kiss Anna", "Papp Dániel", "Nagy Eszter", "Tóth Ádám", "Szabó Réka", "Varga Lili", "Jones Emily",
             "Simon Márton", "Kovács Bence", "Rossi Giulia"]
    lines = [f"Flight {rng.choice(BALLOON.fills['flight'])}, {rng.choice(['Saturday', 'Sunday', 'Friday'])} dawn",
             "Passengers:"]
    lines += [f"{k}. {p} ({rng.randint(50, 99)} kg)" for k, p in enumerate(rng.sample(names, 6), 1)]
    return "\n".join(lines)


@workload("manifest-first-surface-wind-and-sites-shuffled", "messages", ("placement", "dynamic", "order"),
          "three defects: the flight's six-seat passenger manifest (per request) as the system message ahead of "
          "the instructions in the user turn, the surface wind (every 3-7 requests) after the first part of "
          "the instructions, and the launch site list in a random order further on", BALLOON)
def _three(rng: random.Random, w: Writer) -> list[Pair]:
    part_a = "\n\n".join([w.opening(), w.handbook(3)])
    part_b = w.handbook(3, start=3)
    part_c = "\n\n".join([w.handbook(3, start=6), "Baskets:\n\n" + w.table()])
    sites = [f"{s}: {w.sentence()}" for s in BALLOON.fills["site"]]
    canon = "Launch sites:\n" + "\n".join(f"- {s}" for s in sites)
    n = rng.randint(50, 75)
    spell = hourly(rng, n, (3, 7))
    winds = [f"{rng.randint(0, 12)} kt from {rng.randrange(0, 360, 10):03d}°" for _ in range(spell[-1] + 1)]
    out: list[Pair] = []
    for i in range(n):
        m = six_seat_manifest(rng)
        order = shuffled(rng, sites)
        names = [s.split(":")[0] for s in sites]
        n0 = order[0].split(":")[0]
        lst = "Launch sites:\n" + UNIT + "- " + marked_at(n0, [x for x in names if x != n0]) + order[0][len(n0):] + "\n" + \
            "\n".join(f"- {s}" for s in order[1:])
        wind = winds[spell[i]]
        q = w.question()
        instr = f"{part_a}\n\nSurface wind now: {marked_at(wind, winds)}\n\n{part_b}\n\n{lst}\n\n{part_c}"
        orig = chat(i, [sys_msg(MARK + m), user(f"{instr}\n\n{q}")])
        fixed = chat(i, [sys_msg(f"{part_a}\n\n{part_b}\n\n{canon}\n\n{part_c}"),
                         user(f"{m}\n\n{q}\n\nSurface wind now: {wind}")])
        out.append((orig, fixed))
    return out


@workload("summary-first-and-picker-count-raw-gemma-prompt", "prompt", ("placement", "dynamic"),
          "raw Gemma prompts: a per-request caller card (plot, calls, baskets, grade, tags) heads the system text, and the "
          "pickers on the hill right now (a new count every 2-5 requests) sits ~900 tokens further, ahead of ~900 "
          "static tokens", TEA)
def _summary_pickers(rng: random.Random, w: Writer) -> list[Pair]:
    head = "\n\n".join([w.opening(), w.handbook(5)])
    tail = "\n\n".join([w.handbook(4, start=5), "Grades and prices:\n\n" + w.table()])
    n = rng.randint(45, 70)
    spell = hourly(rng, n, (2, 5))
    counts = [rng.randint(18, 64) for _ in range(spell[-1] + 1)]
    for k in range(1, len(counts)):
        while counts[k] == counts[k - 1]:
            counts[k] = rng.randint(18, 64)
    out: list[Pair] = []
    for i in range(n):
        note = (f"Caller card\nName: {rng.choice(TEA.fills['picker'])}\nPlot: {rng.choice(TEA.fills['plot'])}\n"
                f"Calls today: {rng.randint(2, 9)}\nBaskets weighed: {rng.randint(10, 40)}\n"
                f"Last grade: {rng.choice(['fine', 'coarse', 'standard'])}\nLast call: {rng.randint(10, 16)}:"
                f"{rng.randint(10, 59)}\nTrough: {rng.randint(1, 6)}\nBasket tags: {rng.randint(100, 999)}-{rng.randint(100, 999)}")
        c = counts[spell[i]]
        q = w.question()
        orig = prompt(i, gm(f"{MARK}{note}\n\n{head}\n\nPickers on the hill right now: {MARK}{c}\n\n{tail}", q))
        fixed = prompt(i, gm(f"{head}\n\n{tail}", f"{note}\n\n{q}\n\nPickers on the hill right now: {c}"))
        out.append((orig, fixed))
    return out


@workload("date-sentence-and-signatures-shuffled-ids", "input_ids", ("dynamic", "order"),
          "'Today is Monday 30 November 2026.' (three days) opens the system text, and the five python "
          "signatures ~700 tokens later come in a random order per request; Llama 3 ids", BELLS,
          (END_SYSTEM, END_USER))
def _date_sigs(rng: random.Random, w: Writer) -> list[Pair]:
    head = "\n\n".join([w.opening(), w.handbook(3)])
    tail = "\n\n".join([w.handbook(4, start=3), "Towers:\n\n" + w.table()])
    canon = _python_tools(w, BELL_TOOLS)
    days = [en_date(BASE_TIME + 86400 * d) for d in range(3)]
    out: list[Pair] = []
    for i, ts in enumerate(spread(rng, rng.randint(50, 75), 3)):
        d = en_date(ts)
        order = shuffled(rng, BELL_TOOLS)
        sigs = signatures(w, order)
        first = order[0]
        sigs[0] = UNIT + "def " + marked_at(first, [x for x in BELL_TOOLS if x != first]) + sigs[0][4 + len(first):]
        block = f"{tool_intro('python')}\n\n" + fenced("python", "\n\n".join(sigs))
        q = w.question()
        orig = chat(i, [sys_msg(f"Today is {marked_at(d, days)}.\n\n{head}\n\n{block}\n\n{tail}"), user(q)], ts=ts)
        base = f"{head}\n\n{canon}\n\n{tail}"
        a = chat(i, [sys_msg(f"{base}\n\nToday is {d}."), user(q)], ts=ts)
        b = chat(i, [sys_msg(base), user(f"{q}\n\n(Today is {d}.)")], ts=ts)
        out.append((orig, (a, b)))
    return out


# ---------------------------------------------------------------- clean controls


def _same(records: list[dict[str, Any]]) -> list[Pair]:
    return [(r, r) for r in records]


@workload("clean-growing-sessions-system-in-first-turn", "messages", (),
          "dispatch sessions of 1-7 turns, interleaved, behind a static system text (Gemma keeps it in the first "
          "user turn, so each turn shares its session's history)", SNOW)
def _c_sessions(rng: random.Random, w: Writer) -> list[Pair]:
    system = w.system(8)
    convs = sessions(rng, w, (10, 14), (1, 7))
    return _same([chat(i, [sys_msg(system)] + history(convs[c][:k]) + [user(convs[c][k][0])])
                  for i, (c, k) in enumerate(interleave(rng, convs))])


@workload("clean-agent-loops-tool-code-and-output-turns", "messages", (),
          "run-sheet agent loops of 2-5 steps: ```tool_code``` calls as model turns and ```tool_output``` user "
          "turns appended step by step behind a static system text with python signatures", SHEARING)
def _c_agent(rng: random.Random, w: Writer) -> list[Pair]:
    system = "\n\n".join([w.opening(), w.handbook(6), _python_tools(w, SHEAR_TOOLS), "Rates:\n\n" + w.table()])
    recs = []
    i = 0
    for _task in range(rng.randint(12, 20)):
        msgs: list[dict[str, Any]] = [sys_msg(system), user(w.question())]
        for _step in range(rng.randint(2, 5)):
            recs.append(chat(i, json.loads(json.dumps(msgs))))
            i += 1
            who = rng.choice(SHEARING.fills["shearer"])
            msgs.append(model(fenced("tool_code", f'log_tally(shearer="{who}", count={rng.randint(40, 95)}, '
                                                  f'breed="{rng.choice(SHEARING.fills["breed"])}")')))
            msgs.append(user(fenced("tool_output", json.dumps({"ok": True, "shearer": who, "day_total": rng.randint(100, 340),
                                                               "logged_at": clock(BASE_TIME + 40.0 * i)}))))
    return _same(recs)


@workload("clean-rag-passages-after-instructions-question-last", "messages", (),
          "static instructions as the system text, then per-request archive passages and the question last in "
          "the user turn", ORGAN)
def _c_rag(rng: random.Random, w: Writer) -> list[Pair]:
    system = w.system(7)
    pool = [w.passage(f"ARCH-{k:04d}", f"{rng.choice(ORGAN.fills['church'])} visit notes", rng.randint(3, 5))
            for k in range(25)]
    return _same([chat(i, [sys_msg(system), user("Passages:\n\n" + "\n\n".join(rng.sample(pool, rng.randint(2, 4)))
                                                 + f"\n\nQuestion: {w.question()}")])
                  for i in range(rng.randint(50, 75))])


@workload("clean-send-time-and-reference-end-user-turn", "messages", (),
          "per-request values (send time, a request reference) only at the very end of the user turn", BLOOD)
def _c_end(rng: random.Random, w: Writer) -> list[Pair]:
    system = w.system(8)
    return _same([chat(i, [sys_msg(system), user(f"{w.question()}\n\n[sent {clock(BASE_TIME + 41.0 * i)} · ref "
                                                 f"{uuid(rng)}]")]) for i in range(rng.randint(55, 85))])


@workload("clean-two-system-texts-ab-ids", "input_ids", (),
          "an A/B test: two system texts that share only their first sentence, interleaved; Llama 3 ids", TEA)
def _c_ab(rng: random.Random, w: Writer) -> list[Pair]:
    a = w.system(7)
    other = Writer(random.Random(rng.random()), TEA)
    b = "\n\n".join([other.handbook(6, start=3), other.glossary(), "Grades:\n\n" + other.table()])
    lead = a.split(". ", 1)[0] + ". "
    return _same([chat(i, [sys_msg(a if rng.random() < 0.5 else lead + b), user(w.question())])
                  for i in range(rng.randint(60, 90))])


@workload("clean-date-changes-once-raw-gemma-prompt", "prompt", (),
          "raw Gemma prompts with the date at the end of the system text over two days (it changes once)", SALT)
def _c_date(rng: random.Random, w: Writer) -> list[Pair]:
    system = w.system(8)
    return _same([prompt(i, gm(f"{system}\n\nGaur: {iso_day(ts)}", w.question()), ts)
                  for i, ts in enumerate(spread(rng, rng.randint(45, 70), 2))])


@workload("clean-values-only-in-fields-the-template-drops", "messages", (),
          "per-request values the Gemma template never prints: the tools (with a per-request enum of free "
          "flights), a second system content part with the live forecast, chat_template_kwargs and a message "
          "name; the prompt itself is a static system text and the question", BALLOON)
def _c_dropped(rng: random.Random, w: Writer) -> list[Pair]:
    system = w.system(7)
    recs = []
    for i in range(rng.randint(50, 75)):
        tools = [{"type": "function", "function": w.schema(n)} for n in BALLOON.tools]
        free = sorted(rng.sample(list(BALLOON.fills["flight"]), 2))
        tools[1]["function"]["parameters"]["properties"]["flight_id"]["enum"] = free
        live = f"Live forecast {clock(BASE_TIME + 29.0 * i)}: surface wind {rng.randint(0, 12)} kt."
        rec = chat(i, [{"role": "system", "content": _parts(system, live)},
                       {"role": "user", "content": w.question(), "name": f"clerk-{rng.randint(1, 9)}"}], tools)
        rec["chat_template_kwargs"] = {"booking_id": f"B{rng.randint(10000, 99999)}"}
        recs.append(rec)
    return _same(recs)


@workload("clean-static-raw-gemma-prompt", "prompt", (),
          "raw Gemma prompts with a static ~1k-token system text and a fresh question per request", BELLS)
def _c_raw(rng: random.Random, w: Writer) -> list[Pair]:
    system = w.system(4, extras=False)
    return _same([prompt(i, gm(system, w.question())) for i in range(rng.randint(22, 34))])


@workload("clean-static-system-text-ids", "input_ids", (),
          "a static ~3.5k-token system text and a fresh question per request; Llama 3 ids", ORGAN)
def _c_ids(rng: random.Random, w: Writer) -> list[Pair]:
    system = w.system(15)
    return _same([chat(i, [sys_msg(system), user(w.question())]) for i in range(rng.randint(60, 95))])


@workload("clean-shift-opens-user-turn-right-after-system", "messages", (),
          "the shift (3 settings) opens the user turn, which Gemma prints right behind the system text: already "
          "where a few-settings value belongs", SALT)
def _c_shift(rng: random.Random, w: Writer) -> list[Pair]:
    system = w.system(8)
    return _same([chat(i, [sys_msg(system), user(f"Txanda / shift: {rng.choice(['goiza', 'arratsaldea', 'gaua'])}\n\n"
                                                 f"{w.question()}")]) for i in range(rng.randint(55, 85))])


@workload("clean-fixed-fewshot-turns", "messages", (),
          "three canned few-shot exchanges as user/model turns in a fixed order, then the question", BELLS)
def _c_fewshot(rng: random.Random, w: Writer) -> list[Pair]:
    system = w.system(6)
    shots = history(w.fewshot(3))
    return _same([chat(i, [sys_msg(system)] + shots + [user(w.question())]) for i in range(rng.randint(45, 70))])


assert len(TEAMS) == 8
