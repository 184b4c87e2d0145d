"""Twelfth held-out diagnosis set: Llama 3.1 Instruct's own chat template, served by SGLang.

Written blind to the detector (advisor/diagnose, advisor/prescribe, the zoo, its shapes and its
tests were not read): DESIGN.md's traffic formats and the rendering advisor/ingest does were
used. Every record is what ``advisor analyze --chat-template tests/chat_templates/llama31.jinja``
reads (``ANALYZE_ARGS``, which the bench passes to every ``analyze``, ``prescribe`` and ``render``
run of this set; the engine is SGLang, the default, and the tokenizer Llama 3's). Unlike the
built-in Llama 3 layout, this template prints a system turn of its own in every request:
``Cutting Knowledge Date: December 2023`` and ``Today Date: <date_string>``, where
``date_string`` is a template variable a request sets through ``chat_template_kwargs`` (the
template's default, ``26 Jul 2024``, when it does not), ahead of the system text. With tools it
adds ``Environment: ipython`` to the system turn and, since ``tools_in_user_message`` defaults
to true, prints the tools as indented JSON (as SGLang's request model dumps them: description,
name, parameters, ``strict``, ``defer_loading``) inside the FIRST user turn, after a fixed
preamble and ahead of the first user text, which the template trims; in a session that first
turn, tools included, stays at the head of every later request. Token-id records hold Llama 3
ids of that rendering; prompt records hold raw Llama 3.1 markup (SGLang adds the BOS) or a plain
completion prompt. The layout was confirmed with ``advisor render`` and the ingest code, and the
tests check it. The machinery is the first set's (heldout.py: MARK and UNIT, Engine, the
brute-force oracle) with this set's renderer, a SKIP marker for requests without the defect and
a HINT for defects in text the template writes itself; the text comes from heldout12_text.py:
an avalanche bulletin service, an organ-transplant coordination unit's scheduling assistant, a
travelling circus's touring planner, a lighthouse heritage trust, a chess federation's arbiter
desk, a customs broker with Arabic-, Hindi- and Korean-speaking clients, a coral-reef survey
network and a piano-tuning booking service.

The logs are noisy: 20 to 100 requests, sessions of 1 to 7 turns, questions of varied length, in
some workloads a share of requests without the defect (offsets are medians over the requests
that carry it).

Shapes. Template-injected values: ``date_string`` set to the request's day (4 days), to its
minute (ids), in long form in sessions, in two date formats from two client versions, and left
to the template's default by a share of clients while the rest pass the day; ``builtin_tools``
passed from a set, so the template's 'Tools:' line comes in either order (ids). Tools inside the
first user turn: a last observation time in a tool description (hourly), the nearest free
technician in one (per request), the open sites as a parameter enum (3 settings, ids), a tool
list shuffled per request, in sessions too, a tool's parameter keys shuffled; values in the
first user text right after the tools (an offer reference ahead of a static checklist, a
customer card ahead of the booking rules), a water temperature re-stamped into the first user
turn at every turn of a session, a species list in set order inside a canned priming tool
result. Other shapes: XML-tagged prompt sections (a tide table inside one, the sections in
rotating order), a YAML tour configuration (a ``generated_at`` deep inside it, its keys in set
order), markdown tables (a live round row, a shuffled tiebreak table), code (a build string in a
snippet), right-to-left and Indic lines (an Arabic exchange rate, a Hindi duty officer's name, a
Korean counter queue, the three language blocks in random order), a one-token danger level, a
250-400-token snow pit table (ids), a per-request session tag opening an XML prompt, a Hindi
shipment line ~3k tokens deep in a plain prompt, a Korean client letter ahead of the
instructions, a per-request field report ahead of the handbook, a profile system message ahead
of the instructions, archive passages ahead of the instructions, a dive sheet ahead of the
protocol, site briefs ahead of the rules in sessions. Several defects in one workload: a per-day
date_string plus shuffled tools, shuffled YAML keys plus a generated_at, a Korean queue plus a
build string, a profile ahead plus a per-day date_string, shuffled tools plus a customer card
ahead of the rules, a per-day date_string plus a danger level (ids). Controls: a pinned
date_string with tools, no date_string over five days (the template's default), growing sessions
with static tools, a shift (3 settings) right after the tools, a static XML prompt, a static
YAML prompt as ids, static multi-script text, agent loops with static tools, a static markdown
table prompt, two desks on one endpoint, builtin_tools in one fixed order (ids).

Truth: the oracle's hit rate over Llama 3 ids on the traffic after the ideal fix written here. A
value with many settings goes to the end of the last user turn (a prompt: after the question); a
value with few settings, or many in arrival order, right after the content all requests share
(the end of the system text, or, with tools, the start of the first user text, the first text
after the tools); order fixes use one canonical order; placement fixes put the shared content
first. A value the template injects itself (``date_string``) is fixed by passing one fixed value
in every request. Where two places are plausible the generator writes both (``PLACES``) and the
truth is the better measured one.
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
    BASE_TIME, MARK, UNIT, Engine, Workload, assistant, chat, clock, oracle, prompt, registering, sys_msg, untimed,
    user,
)
from tests.diagnose.heldout12_text import (
    ARABIC, AVALANCHE, CHESS, CIRCUS, CUSTOMS, HINDI, KOREAN, LIGHTHOUSE, PIANO, PLACES as TOWNS, REEF, TEAMS,
    TRANSPLANT, Desk, Team,
)

TEMPLATE = Path(__file__).resolve().parents[1] / "chat_templates" / "llama31.jinja"
TOKENIZER = "llama3"
ANALYZE_ARGS = ("--chat-template", "tests/chat_templates/llama31.jinja")

SKIP = "\ue002"  # this request lacks the defect that would be here
HINT = "_mark_after"  # rendered text a MARK follows, for a defect in text the template writes itself
Fix = dict[str, Any] | tuple[dict[str, Any], ...]  # one fix, or the plausible places in PLACES order
Pair = tuple[dict[str, Any], Fix]
Builder = Callable[[random.Random, Desk], list[Pair]]
REGISTRY: list[tuple[str, str, tuple[str, ...], str, Builder, str]] = []
TEAM_OF: dict[str, Team] = {}
PLACES: dict[str, tuple[str, ...]] = {}
CHOSEN: dict[str, tuple[int, tuple[float, ...]]] = {}  # name -> (index of the truth's place, each place's rate)
_register = registering(REGISTRY)

END_SYSTEM, END_USER, AFTER_TOOLS = "end of the system text", "end of the last user turn", "start of the first user text"
PINNED_DATE = "01 Dec 2026"


def workload(name: str, kind: str, expect: tuple[str, ...], shape: str, team: Team,
             places: tuple[str, ...] = (), notes: str = "") -> Callable[[Any], Any]:
    TEAM_OF[name] = team
    if places:
        PLACES[name] = places
    return _register(name, kind, expect, shape, notes)


# ---------------------------------------------------------------- rendering and marking


def llama31_render() -> Callable[[dict[str, Any]], str]:
    """This checkout's rendering as `advisor analyze` with ANALYZE_ARGS sets it up (SGLang)."""
    renderer = make_renderer(TOKENIZER, TEMPLATE, None, [])

    def render(record: dict[str, Any]) -> str:
        text = renderer.text_of(parse_record(record, "heldout12", 1))
        assert text is not None
        return text
    return render


def llama31_engine(render: Callable[[dict[str, Any]], str] | None = None) -> Engine:
    """An Engine with the Llama 3 tokenizer and the Llama 3.1 template (or ``render``, the bench's
    rendering by the checkout under test with ANALYZE_ARGS)."""
    return Engine(render or llama31_render(), load_tokenizer(TOKENIZER))


local_engine = llama31_engine  # what the bench's --render local builds for this set


def unhinted(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k != HINT}


def unmark(value: Any) -> Any:
    if isinstance(value, dict) and HINT in value:
        value = unhinted(value)
    if isinstance(value, str):
        return value.replace(MARK, "").replace(UNIT, "").replace(SKIP, "")
    if isinstance(value, tuple):
        return tuple(unmark(v) for v in value)
    if isinstance(value, list):
        return [unmark(v) for v in value]
    if isinstance(value, dict):
        return {unmark(k): unmark(v) for k, v in value.items()}
    return value


def marked(engine: Engine, record: dict[str, Any]) -> tuple[list[int], list[int | None], list[int]]:
    """Llama 3 ids of the record without markers; per defect the token offset of its MARK (None
    where SKIP says this request lacks it); the token offsets of the UNIT markers."""
    text = engine.text(unhinted(record)).replace("\\ue002", SKIP)
    for hint in record.get(HINT, ()):
        at = text.index(hint) + len(hint)
        text = text[:at] + MARK + text[at:]
    kept: list[str] = []
    events: list[tuple[str, int]] = []
    for ch in text:
        if ch in (MARK, UNIT, SKIP):
            events.append((ch, len(kept)))
        else:
            kept.append(ch)
    plain = "".join(kept)
    ids = engine.tok.encode(plain)
    enc = engine.tok.tiktoken_encoding
    assert enc is not None
    ends: list[int] = []
    size = 0
    for t in ids:
        size += len(enc.decode_single_token_bytes(t))
        ends.append(size)
    assert size == len(plain.encode()), "token bytes do not add up to the text"

    def tokens_before(pos: int) -> int:
        at = len(plain[:pos].encode())
        return sum(1 for e in ends if e <= at)

    marks = [tokens_before(p) if ch == MARK else None for ch, p in events if ch != UNIT]
    units = [tokens_before(p) for ch, p in events if ch == UNIT]
    return ids, marks, units


def _as_ids(record: dict[str, Any], ids: list[int]) -> dict[str, Any]:
    out = {k: v for k, v in record.items() if k in ("id", "timestamp")}
    out["input_ids"] = ids
    return out


def _alternatives(pairs: list[Pair]) -> list[list[dict[str, Any]]]:
    width = max(len(f) if isinstance(f, tuple) else 1 for _, f in pairs)
    return [[(f[k] if isinstance(f, tuple) else f) for _, f in pairs] for k in range(width)]


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
    return fn(random.Random(f"{seed}/h12/{name}"), Desk(random.Random(f"{seed}/h12/{name}/text"), TEAM_OF[name]))


def build_workloads(seed: int = 12, engine: Engine | None = None, only: Sequence[str] | None = None) -> list[Workload]:
    """Every workload of the twelfth held-out set, deterministic for ``seed``, on Llama 3 ids."""
    engine = engine or llama31_engine()
    if engine.tok.name != TOKENIZER:
        raise ValueError(f"the twelfth held-out set is measured in {TOKENIZER} tokens, not {engine.tok.name}")
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


def kwargs(record: dict[str, Any], date_string: str) -> dict[str, Any]:
    return record | {"chat_template_kwargs": {"date_string": date_string}}


def pinned(record: dict[str, Any]) -> dict[str, Any]:
    return kwargs(unmark(record), PINNED_DATE)


MON = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def llama_date(ts: float) -> str:
    """The template's own date format: '01 Dec 2026'."""
    import datetime as dt

    d = dt.datetime.fromtimestamp(ts, tz=dt.timezone.utc)
    return f"{d.day:02d} {MON[d.month - 1]} {d.year}"


def first_differs(text: str, rivals: Sequence[str]) -> int:
    """Where ``text`` stops agreeing with the rival (other than itself) that agrees with it longest."""
    best = 0
    for r in rivals:
        if r == text:
            continue
        n = 0
        while n < min(len(text), len(r)) and text[n] == r[n]:
            n += 1
        best = max(best, n)
    return best


def marked_value(text: str, rivals: Sequence[str]) -> str:
    """``text`` with a UNIT at its start and a MARK where it first differs from the other values."""
    k = first_differs(text, rivals)
    return (UNIT if k else "") + text[:k] + MARK + text[k:]


def sessions(rng: random.Random, desk: Desk, count: tuple[int, int], turns: tuple[int, int]) -> list[list[tuple[str, str]]]:
    return [[(desk.question(), desk.answer()) for _ in range(rng.randint(*turns))] for _ in range(rng.randint(*count))]


def interleave(rng: random.Random, convs: list[list[tuple[str, str]]]) -> list[tuple[int, int]]:
    """(conversation, turn) in an interleaved arrival order, each conversation's turns in order."""
    progress = [0] * len(convs)
    out = []
    while any(progress[c] < len(convs[c]) for c in range(len(convs))):
        c = rng.choice([c for c in range(len(convs)) if progress[c] < len(convs[c])])
        out.append((c, progress[c]))
        progress[c] += 1
    return out


def history(convs: list[list[tuple[str, str]]], c: int, k: int, first: Callable[[str], str] = lambda q: q) -> list[dict[str, Any]]:
    """The turns of conversation ``c`` up to its ``k``-th question, the first user text through ``first``."""
    msgs: list[dict[str, Any]] = []
    for j, (q, a) in enumerate(convs[c][:k]):
        msgs += [user(first(q) if j == 0 else q), assistant(a)]
    last = convs[c][k][0]
    msgs.append(user(first(last) if k == 0 else last))
    return msgs


def ahead(head: str) -> Callable[[str], str]:
    """A first user text with ``head`` and a blank line ahead of the question."""
    def join(q: str) -> str:
        return f"{head}\n\n{q}"
    return join


def tools_first_marked(d: Desk, order: Sequence[str]) -> list[dict[str, Any]]:
    """Tools in ``order``, marked where a shuffled list first diverges: SGLang dumps the
    description ahead of the name, so the first tool's description starts the divergence."""
    tools = d.tools(list(order))
    fn = tools[0]["function"]
    fn["description"] = MARK + fn["description"]
    return tools


def shuffled(rng: random.Random, items: Sequence[str]) -> list[str]:
    out = list(items)
    rng.shuffle(out)
    return out


def rotate_marked(blocks: Sequence[str], order: Sequence[int]) -> list[str]:
    out = [blocks[k] for k in order]
    out[0] = MARK + out[0]
    return out


def header(role: str, text: str) -> str:
    return f"<|start_header_id|>{role}<|end_header_id|>\n\n{text}<|eot_id|>"


def llama_prompt(system: str, question: str, date: str = PINNED_DATE) -> str:
    """A raw Llama 3.1 prompt as a team's own client writes it (SGLang adds the BOS)."""
    head = f"Cutting Knowledge Date: December 2023\nToday Date: {date}\n\n{system}"
    return header("system", head) + header("user", question) + "<|start_header_id|>assistant<|end_header_id|>\n\n"


# ---------------------------------------------------------------- template-injected values


@workload("date-string-per-day-kwargs", "messages", ("dynamic",),
          "the bulletin client passes chat_template_kwargs date_string = the request's own day ('03 Dec 2026'), over "
          "four days, so the template's 'Today Date:' line ~20 tokens in changes daily ahead of a 2.4k-token handbook",
          AVALANCHE)
def _date_per_day(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(11)
    n = rng.randint(70, 95)
    stamps = sorted(BASE_TIME + rng.uniform(0, 4 * 86400) for _ in range(n))
    dates = sorted({llama_date(t) for t in stamps})
    out: list[Pair] = []
    for i, ts in enumerate(stamps):
        rec = chat(i, [sys_msg(system), user(d.question())], ts=ts)
        orig = kwargs(rec, marked_value(llama_date(ts), dates))
        out.append((orig, pinned(rec)))
    return out


@workload("date-string-minute-ids", "input_ids", ("dynamic",),
          "the coordination client passes date_string with the minute ('01 Dec 2026 14:05 UTC'), so every request "
          "after the first of its minute misses from the 'Today Date:' line; 1.7k tokens of rules follow; ids",
          TRANSPLANT)
def _date_minute(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(8)
    n = rng.randint(60, 85)
    stamps = [BASE_TIME + 9 * 3600 + 97.0 * i + rng.uniform(0, 30) for i in range(n)]
    values = [f"{llama_date(t)} {clock(t)[:5]} UTC" for t in stamps]
    out: list[Pair] = []
    for i, ts in enumerate(stamps):
        rec = chat(i, [sys_msg(system), user(d.question())], ts=ts)
        out.append((kwargs(rec, marked_value(values[i], values)), pinned(rec)))
    return out


@workload("date-string-default-or-day", "messages", ("dynamic",),
          "about 40% of clients (an older app) send no chat_template_kwargs, so the template prints its default "
          "'26 Jul 2024'; the rest pass the day over three days; static tools in the first user turn", PIANO)
def _date_default(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(6)
    tools = d.tools()
    n = rng.randint(65, 90)
    stamps = sorted(BASE_TIME + rng.uniform(0, 3 * 86400) for _ in range(n))
    values = sorted({llama_date(t) for t in stamps} | {"26 Jul 2024"})
    out: list[Pair] = []
    for i, ts in enumerate(stamps):
        rec = chat(i, [sys_msg(system), user(d.question())], tools, ts)
        if lacks(rng, 0.4):
            out.append((rec | {HINT: ["Today Date: "]}, pinned(rec)))
        else:
            out.append((kwargs(rec, marked_value(llama_date(ts), values)), pinned(rec)))
    return out


@workload("date-string-two-client-formats", "prompt", ("dynamic",),
          "a raw Llama 3.1 prompt whose 'Today Date:' line two client versions write differently on the same day "
          "('01 Dec 2026' and '2026-12-01'), over two days; a 1.4k-token YAML tour configuration follows", CIRCUS)
def _date_formats(rng: random.Random, d: Desk) -> list[Pair]:
    config = yaml_config(tour_notes(d, 7))
    n = rng.randint(55, 80)
    stamps = sorted(BASE_TIME + rng.uniform(0, 2 * 86400) for _ in range(n))
    new_client = [rng.random() < 0.5 for _ in stamps]
    values = [llama_date(t) if nc else _iso_day(t) for t, nc in zip(stamps, new_client)]
    out: list[Pair] = []
    for i, ts in enumerate(stamps):
        q = d.question()
        system = f"{d.opening()}\n\nTour configuration:\n```yaml\n{config}\n```"
        orig = prompt(i, llama_prompt(system, q, marked_value(values[i], values)), ts)
        out.append((orig, prompt(i, llama_prompt(system, q), ts)))
    return out


def _iso_day(ts: float) -> str:
    import datetime as dt

    return dt.datetime.fromtimestamp(ts, tz=dt.timezone.utc).strftime("%Y-%m-%d")


# ---------------------------------------------------------------- values around the tools (first user turn)


def _avalanche_tools(d: Desk, obs: str | None) -> list[dict[str, Any]]:
    tools = d.tools(["get_station_obs", "get_field_report", "draft_problem", "set_danger", "publish_bulletin"])
    if obs is not None:
        tools[0]["function"]["description"] += f" Last observation ingested {obs}."
    return tools


@workload("obs-time-in-tool-description", "messages", ("dynamic",),
          "the first tool's description ends with the last observation ingest time ('ingested 2026-12-01T07:00Z'), "
          "new every hour in arrival order; the template prints the tools in the first user turn, so the other four "
          "tools and the preamble's JSON follow it", AVALANCHE, (AFTER_TOOLS, END_USER))
def _obs_time(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(7)
    n = rng.randint(60, 90)
    hour = hourly(rng, n, (5, 10))
    out: list[Pair] = []
    for i in range(n):
        stamp = f"2026-12-01T{5 + hour[i]:02d}:00Z"
        q = d.question()
        ts = BASE_TIME + 5 * 3600 + 400.0 * i
        orig = chat(i, [sys_msg(system), user(q)], _avalanche_tools(d, f"2026-12-01T{MARK}{5 + hour[i]:02d}:00Z"), ts)
        plain = _avalanche_tools(d, None)
        a = chat(i, [sys_msg(system), user(f"Last observation ingested {stamp}.\n\n{q}")], plain, ts)
        b = chat(i, [sys_msg(system), user(f"{q}\n\nLast observation ingested {stamp}.")], plain, ts)
        out.append((orig, (a, b)))
    return out


def _circus_tools(d: Desk, open_sites: list[str] | None) -> list[dict[str, Any]]:
    tools = d.tools(["plan_route", "site_survey", "book_pitch", "weather_window", "crew_roster"])
    if open_sites is not None:
        tools[1]["function"]["parameters"]["properties"]["site"]["enum"] = open_sites
    return tools


SITES = ["KG-01", "DR-04", "OS-02", "HB-07", "LM-03", "PN-05", "SH-06"]


@workload("open-sites-enum-ids", "input_ids", ("dynamic",),
          "the second tool's 'site' parameter carries an enum of the sites open this week (3 settings), inside the "
          "tools JSON of the first user turn; ids", CIRCUS, (AFTER_TOOLS, END_USER))
def _open_sites(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(5)
    settings = [sorted(rng.sample(SITES, 4)) for _ in range(3)]
    while len({tuple(s) for s in settings}) < 3:
        settings = [sorted(rng.sample(SITES, 4)) for _ in range(3)]
    out: list[Pair] = []
    for i in range(rng.randint(50, 75)):
        s = rng.choice(settings)
        q = d.question()
        firsts = [x for x in settings if x != s]
        k = 0
        while all(k < len(x) and x[k] == s[k] for x in firsts):
            k += 1
        enum = list(s)
        enum[k] = MARK + enum[k]
        orig = chat(i, [sys_msg(system), user(q)], _circus_tools(d, enum))
        note = f"Sites open this week: {', '.join(s)}."
        a = chat(i, [sys_msg(system), user(f"{note}\n\n{q}")], _circus_tools(d, None))
        b = chat(i, [sys_msg(system), user(f"{q}\n\n{note}")], _circus_tools(d, None))
        out.append((orig, (a, b)))
    return out


CHECKLIST_TRANSPLANT = "Offer checklist (read it before answering):"


@workload("offer-ref-ahead-of-checklist-after-tools", "messages", ("dynamic",),
          "the first user text opens, right after the tools, with the donor offer reference and arrival time "
          "('Offer DN-40213, received 03:40'), then a static 700-token offer checklist, then the question; ~15% "
          "of requests are general questions without an offer", TRANSPLANT)
def _offer_ref(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(6)
    tools = d.tools()
    checklist = CHECKLIST_TRANSPLANT + "\n" + "\n".join(f"- {r}" for r in d.rules(26))
    out: list[Pair] = []
    for i in range(rng.randint(55, 80)):
        q = d.question()
        if lacks(rng, 0.15):
            rec = chat(i, [sys_msg(system), user(f"{SKIP}{checklist}\n\n{q}")], tools)
            out.append((rec, unmark(rec)))
            continue
        ref = f"Offer DN-{rng.randint(10000, 99999)}, received {rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}"
        orig = chat(i, [sys_msg(system), user(f"{MARK}{ref}\n\n{checklist}\n\n{q}")], tools)
        fixed = chat(i, [sys_msg(system), user(f"{checklist}\n\n{q}\n\n{ref}")], tools)
        out.append((orig, fixed))
    return out


@workload("water-temp-restamped-first-turn", "messages", ("dynamic",),
          "sessions of 1-7 turns with static tools: the survey app re-writes the live water temperature ('Water "
          "28.4 °C at 09:12') into the FIRST user turn at every request, right after the tools, so a session's "
          "later turns lose their own history", REEF)
def _water_temp(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(5)
    tools = d.tools()
    convs = sessions(rng, d, (10, 15), (1, 7))
    out: list[Pair] = []
    for i, (c, k) in enumerate(interleave(rng, convs)):
        ts = BASE_TIME + 8 * 3600 + 53.0 * i
        reading = f"Water {rng.randint(270, 305) / 10:.1f} °C at {clock(ts)[:5]}"
        orig_msgs = history(convs, c, k, ahead(f"{MARK}{reading}"))
        fixed_msgs = history(convs, c, k)
        fixed_msgs[-1] = user(f"{fixed_msgs[-1]['content']}\n\n{reading}")
        out.append((chat(i, [sys_msg(system)] + orig_msgs, tools, ts), chat(i, [sys_msg(system)] + fixed_msgs, tools, ts)))
    return out


# ---------------------------------------------------------------- values in the system text and prompts


def xml_sections(d: Desk, tags: Sequence[str]) -> dict[str, str]:
    return {t: f"<{t}>\n{d.paragraph(5)}\n{d.paragraph(4)}\n</{t}>" for t in tags}


LIGHT_TAGS = ("visitor_rules", "tower_climb", "archive_handling", "collection_loans", "volunteer_duties", "closures")


def tide_table(rng: random.Random, day_index: int) -> str:
    lines = ["<tide_table>", "| Tide | Time | Height |", "| --- | --- | --- |"]
    base = 4 * 60 + 50 * day_index
    for k, kind in enumerate(["High", "Low", "High", "Low"]):
        t = (base + k * 372 + rng.randint(-4, 4)) % (24 * 60)
        lines.append(f"| {kind} | {t // 60:02d}:{t % 60:02d} | {rng.randint(5, 48) / 10:.1f} m |")
    return "\n".join(lines + ["</tide_table>"])


@workload("tide-table-inside-xml-prompt", "prompt", ("dynamic",),
          "a raw Llama 3.1 prompt whose system text is XML-tagged sections; the third is a <tide_table> markdown "
          "table for the day (3 days), ~700 tokens deep, with three more tagged sections after it",
          LIGHTHOUSE, (END_SYSTEM, END_USER))
def _tide(rng: random.Random, d: Desk) -> list[Pair]:
    secs = xml_sections(d, LIGHT_TAGS)
    tables = [tide_table(rng, k) for k in range(3)]
    head = "\n\n".join([d.opening()] + [secs[t] for t in LIGHT_TAGS[:2]])
    tail = "\n\n".join(secs[t] for t in LIGHT_TAGS[2:])
    n = rng.randint(45, 70)
    out: list[Pair] = []
    for i in range(n):
        k = min(2, i * 3 // n)
        table = tables[k]
        cut = first_differs(table, tables)
        q = d.question()
        orig = prompt(i, llama_prompt(f"{head}\n\n{table[:cut]}{MARK}{table[cut:]}\n\n{tail}", q))
        a = prompt(i, llama_prompt(f"{head}\n\n{tail}\n\n{table}", q))
        b = prompt(i, llama_prompt(f"{head}\n\n{tail}", f"{q}\n\n{table}"))
        out.append((orig, (a, b)))
    return out


def tour_notes(d: Desk, legs: int) -> dict[str, Any]:
    """The prose of a tour configuration, drawn once so every request carries the same text."""
    return {"safety": d.paragraph(3), "legs": [d.paragraph(2) for _ in range(legs)], "licences": d.paragraph(3)}


def yaml_config(notes: dict[str, Any], key_order: Sequence[str] | None = None, generated: str | None = None) -> str:
    """A tour configuration in YAML, its top-level blocks in ``key_order``."""
    lines = ["tour:", "  name: Winter Crossing 2026", "  operator: Valmont Brothers Travelling Circus"]
    if generated is not None:
        lines.append(f"  generated_at: {generated}")
    body = {
        "crew": ["crew:"] + [f"  - role: {r}\n    count: {c}" for r, c in (("rigging", 14), ("drivers", 9), ("box office", 4),
                                                                           ("catering", 5), ("electricians", 3))],
        "vehicles": ["vehicles:"] + [f"  - id: {v}\n    height_m: {h}" for v, h in (("KP-TRUCK", 4.1), ("GEN-2", 3.6),
                                                                                  ("BOWSER-1", 3.2), ("CARAVAN-A", 3.0))],
        "safety": ["safety:", "  max_wind_kmh: 40", f"  notes: {notes['safety']}"],
        "legs": ["legs:"] + [f"  - site: {TOWNS[k % len(TOWNS)]}\n    nights: {3 + k % 4}\n    notes: {text}"
                             for k, text in enumerate(notes["legs"])],
        "licences": ["licences:", f"  policy: {notes['licences']}"],
    }
    for k in key_order or YAML_KEYS:
        lines += body[k]
    return "\n".join(lines)


YAML_KEYS = ("crew", "vehicles", "safety", "legs", "licences")


@workload("generated-at-deep-in-yaml-plain-prompt", "prompt", ("dynamic",),
          "a plain completion prompt: 900 tokens of rules, then a YAML tour configuration whose 'generated_at:' "
          "(4th line) carries the request's second, with ~1.2k tokens of legs after it, then the planner's question", CIRCUS)
def _generated_at(rng: random.Random, d: Desk) -> list[Pair]:
    rules = d.system(4)
    notes = tour_notes(d, 12)
    out: list[Pair] = []
    for i in range(rng.randint(45, 65)):
        ts = BASE_TIME + 11 * 3600 + 83.0 * i + rng.uniform(0, 60)
        stamp = f"2026-12-01T{clock(ts)}Z"
        config = yaml_config(notes, generated=f"2026-12-01T{MARK}{clock(ts)}Z")
        plain_cfg = yaml_config(notes)
        q = d.question()
        orig = prompt(i, f"{rules}\n\n```yaml\n{config}\n```\n\nPlanner: {q}\nAssistant:", ts)
        fixed = prompt(i, f"{rules}\n\n```yaml\n{plain_cfg}\n```\n\nPlanner: {q}\n(config generated_at {stamp})\nAssistant:", ts)
        out.append((orig, fixed))
    return out


@workload("live-round-row-in-standings-table", "messages", ("dynamic",),
          "a markdown table of the event's rounds in the system text, whose 'in progress' row counts finished boards "
          "('| 6 | in progress | 23 of 60 boards finished |'), updated every 2-5 requests in arrival order; "
          "~1.2k static tokens follow", CHESS, (END_SYSTEM, END_USER))
def _live_row(rng: random.Random, d: Desk) -> list[Pair]:
    head = d.system(4)
    tail = "\n\n".join(d.section(s) for s in CHESS.sections[4:9])
    n = rng.randint(55, 85)
    step = hourly(rng, n, (2, 5))
    rows = ["| Round | State | Note |", "| --- | --- | --- |"] + [f"| {r} | complete | results published |" for r in range(1, 6)]
    out: list[Pair] = []
    for i in range(n):
        done = min(60, 4 + 2 * step[i])
        live = f"| 6 | in progress | {done} of 60 boards finished |"
        marked_live = f"| 6 | in progress | {MARK}{done} of 60 boards finished |"
        table = "\n".join(rows + [marked_live, "| 7 | scheduled | pairings at 18:00 |"])
        plain = "\n".join(rows + ["| 7 | scheduled | pairings at 18:00 |"])
        q = d.question()
        orig = chat(i, [sys_msg(f"{head}\n\nRounds:\n{table}\n\n{tail}"), user(q)])
        a = chat(i, [sys_msg(f"{head}\n\nRounds:\n{plain}\n\n{tail}\n\nRound 6 now: {live}"), user(q)])
        b = chat(i, [sys_msg(f"{head}\n\nRounds:\n{plain}\n\n{tail}"), user(f"{q}\n\nRound 6 now: {live}")])
        out.append((orig, (a, b)))
    return out


@workload("arabic-exchange-rate-line-ids", "input_ids", ("dynamic",),
          "an Arabic line with the day's dirham exchange rate ('سعر الصرف اليوم: 1 دولار = 3.6725 درهم') after "
          "the valuation section, ~800 tokens deep, over four days; 1.5k static tokens follow; ids",
          CUSTOMS, (END_SYSTEM, END_USER))
def _arabic_rate(rng: random.Random, d: Desk) -> list[Pair]:
    head = "\n\n".join([d.opening(), d.section("Classification", 3), d.section("Valuation", 3)])
    tail = "\n\n".join([d.section(s) for s in CUSTOMS.sections[2:8]] + ["\n".join(ARABIC)])
    n = rng.randint(55, 80)
    stamps = sorted(BASE_TIME + rng.uniform(0, 4 * 86400) for _ in range(n))
    days = sorted({llama_date(t) for t in stamps})
    rates = {day: f"{3.6725 + rng.randint(-40, 40) / 10000:.4f}" for day in days}
    out: list[Pair] = []
    for i, ts in enumerate(stamps):
        rate = rates[llama_date(ts)]
        line = f"سعر الصرف اليوم: 1 دولار = {rate} درهم"
        mline = f"سعر الصرف اليوم: 1 دولار = {marked_value(rate, list(rates.values()))} درهم"
        q = d.question()
        orig = untimed(chat(i, [sys_msg(f"{head}\n\n{mline}\n\n{tail}"), user(q)]))
        a = untimed(chat(i, [sys_msg(f"{head}\n\n{tail}\n\n{line}"), user(q)]))
        b = untimed(chat(i, [sys_msg(f"{head}\n\n{tail}"), user(f"{q}\n\n{line}")]))
        out.append((orig, (a, b)))
    return out


OFFICERS = ["अनिल शर्मा", "प्रिया वर्मा", "राजेश कुमार", "सुनीता यादव", "विक्रम सिंह", "मीना पटेल"]


@workload("hindi-duty-officer-first-line", "messages", ("dynamic",),
          "a Hindi line naming the duty officer ('आज के ड्यूटी अधिकारी: प्रिया वर्मा', 6 names) as the first line "
          "of the system text, right after the template's date lines; 2k static tokens follow", CUSTOMS,
          (END_SYSTEM, END_USER))
def _hindi_officer(rng: random.Random, d: Desk) -> list[Pair]:
    body = "\n\n".join([d.system(8), "\n".join(HINDI)])
    out: list[Pair] = []
    for i in range(rng.randint(55, 80)):
        who = rng.choice(OFFICERS)
        line = f"आज के ड्यूटी अधिकारी: {who}"
        q = d.question()
        orig = chat(i, [sys_msg(f"आज के ड्यूटी अधिकारी: {marked_value(who, OFFICERS)}\n\n{body}"), user(q)])
        a = chat(i, [sys_msg(f"{body}\n\n{line}"), user(q)])
        b = chat(i, [sys_msg(body), user(f"{q}\n\n{line}")])
        out.append((orig, (a, b)))
    return out


@workload("korean-counter-queue-in-prompt", "prompt", ("dynamic",),
          "a raw Llama 3.1 prompt with a Korean line giving the customs counter's queue per request ('현재 대기 "
          "인원: 17명, 예상 대기 시간: 35분') after the licences section, ~1.1k tokens deep, then 1k static tokens",
          CUSTOMS)
def _korean_queue(rng: random.Random, d: Desk) -> list[Pair]:
    head = "\n\n".join([d.opening()] + [d.section(s) for s in CUSTOMS.sections[:4]] + ["\n".join(KOREAN)])
    tail = "\n\n".join(d.section(s) for s in CUSTOMS.sections[4:9])
    out: list[Pair] = []
    for i in range(rng.randint(45, 70)):
        people, wait = rng.randint(1, 40), rng.randint(2, 90)
        line = f"현재 대기 인원: {people}명, 예상 대기 시간: {wait}분"
        q = d.question()
        orig = prompt(i, llama_prompt(f"{head}\n\n현재 대기 인원: {MARK}{people}명, 예상 대기 시간: {wait}분\n\n{tail}", q))
        fixed = prompt(i, llama_prompt(f"{head}\n\n{tail}", f"{q}\n\n{line}"))
        out.append((orig, fixed))
    return out


def booking_snippet(build: str | None) -> str:
    version = f'\nAPI_VERSION = "{build}"' if build is not None else ""
    return ("```python\nfrom tunebook import Client" + version + "\n\nclient = Client(zone=\"north\")\n"
            "slot = client.find_slot(minutes=90, service=\"tuning\")\nclient.book(slot, customer_id=\"C-1042\")\n```")


@workload("build-string-in-code-snippet", "messages", ("dynamic",),
          "a Python snippet in the system text pins 'API_VERSION = \"2026.12.01-3fa9c\"', a new build every 6-12 "
          "requests in arrival order, ~1k tokens deep with 1.3k static tokens after it", PIANO, (END_SYSTEM, END_USER))
def _build_string(rng: random.Random, d: Desk) -> list[Pair]:
    head = d.system(5)
    tail = "\n\n".join(d.section(s) for s in PIANO.sections[5:10])
    n = rng.randint(60, 90)
    slot = hourly(rng, n, (6, 12))
    builds = [f"2026.12.01-{rng.randrange(16 ** 5):05x}" for _ in range(slot[-1] + 1)]
    out: list[Pair] = []
    for i in range(n):
        b = builds[slot[i]]
        q = d.question()
        orig = chat(i, [sys_msg(f"{head}\n\nBooking API example:\n{booking_snippet('2026.12.01-' + MARK + b[11:])}\n\n{tail}"), user(q)])
        plain = f"{head}\n\nBooking API example:\n{booking_snippet(None)}\n\n{tail}"
        a = chat(i, [sys_msg(f"{plain}\n\nAPI_VERSION in force: {b}"), user(q)])
        bb = chat(i, [sys_msg(plain), user(f"{q}\n\nAPI_VERSION in force: {b}")])
        out.append((orig, (a, bb)))
    return out


DANGER = ["1 (low)", "2 (moderate)", "3 (considerable)", "4 (high)", "5 (very high)"]


@workload("one-token-danger-level-ids", "input_ids", ("dynamic",),
          "'Regional danger today: 3 (considerable)' — the level is one token, 5 settings — ~2k tokens into the "
          "system text with 600 static tokens after it; ids", AVALANCHE, (END_SYSTEM, END_USER))
def _danger(rng: random.Random, d: Desk) -> list[Pair]:
    head = d.system(9)
    tail = "\n\n".join(d.section(s) for s in AVALANCHE.sections[7:10])
    out: list[Pair] = []
    for i in range(rng.randint(50, 75)):
        lvl = rng.choice(DANGER)
        q = d.question()
        orig = chat(i, [sys_msg(f"{head}\n\nRegional danger today: {MARK}{lvl}\n\n{tail}"), user(q)])
        a = chat(i, [sys_msg(f"{head}\n\n{tail}\n\nRegional danger today: {lvl}"), user(q)])
        b = chat(i, [sys_msg(f"{head}\n\n{tail}"), user(f"{q}\n\nRegional danger today: {lvl}")])
        out.append((orig, (a, b)))
    return out


# ---------------------------------------------------------------- order


@workload("tools-shuffled-in-first-user", "messages", ("order",),
          "the arbiter desk's five tools in a different order per request, printed as JSON in the first user turn "
          "after the preamble", CHESS)
def _chess_tools(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(6)
    names = list(CHESS.tools)
    out: list[Pair] = []
    for i in range(rng.randint(55, 85)):
        order = shuffled(rng, names)
        q = d.question()
        orig = chat(i, [sys_msg(system), user(q)], tools_first_marked(d, order))
        out.append((orig, chat(i, [sys_msg(system), user(q)], d.tools(names))))
    return out


@workload("tools-shuffled-in-sessions", "messages", ("order",),
          "sessions of 1-6 turns whose client builds the tool list from a set, so each request (each turn too) "
          "prints the five tools in its own order in the first user turn", REEF)
def _reef_tools(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(4)
    names = list(REEF.tools)
    convs = sessions(rng, d, (12, 16), (1, 6))
    out: list[Pair] = []
    for i, (c, k) in enumerate(interleave(rng, convs)):
        msgs = [sys_msg(system)] + history(convs, c, k)
        out.append((chat(i, msgs, tools_first_marked(d, shuffled(rng, names))), chat(i, msgs, d.tools(names))))
    return out


@workload("xml-sections-rotated-prompt", "prompt", ("order",),
          "a raw Llama 3.1 prompt of six XML-tagged sections in one of four rotations, chosen per request", LIGHTHOUSE)
def _xml_rotated(rng: random.Random, d: Desk) -> list[Pair]:
    secs = xml_sections(d, LIGHT_TAGS)
    blocks = [secs[t] for t in LIGHT_TAGS]
    out: list[Pair] = []
    for i in range(rng.randint(50, 75)):
        r = rng.randrange(4)
        order = list(range(r, 6)) + list(range(r))
        q = d.question()
        opening = d.opening()
        orig = prompt(i, llama_prompt("\n\n".join([opening] + rotate_marked(blocks, order)), q))
        out.append((orig, prompt(i, llama_prompt("\n\n".join([opening] + blocks), q))))
    return out


@workload("yaml-keys-in-set-order-ids", "input_ids", ("order",),
          "the YAML tour configuration in the system text is dumped from an unordered mapping: its five top-level "
          "blocks (crew, vehicles, safety, legs, licences) come in a per-request order; ids", CIRCUS)
def _yaml_order(rng: random.Random, d: Desk) -> list[Pair]:
    opening = d.opening()
    notes = tour_notes(d, 8)
    canon = yaml_config(notes)
    out: list[Pair] = []
    for i in range(rng.randint(45, 70)):
        cfg = yaml_config(notes, shuffled(rng, YAML_KEYS))
        head = "tour:\n  name: Winter Crossing 2026\n  operator: Valmont Brothers Travelling Circus\n"
        cfg = head + MARK + cfg[len(head):]
        q = d.question()
        orig = chat(i, [sys_msg(f"{opening}\n\n```yaml\n{cfg}\n```"), user(q)])
        out.append((orig, chat(i, [sys_msg(f"{opening}\n\n```yaml\n{canon}\n```"), user(q)])))
    return out


TIEBREAKS = ["Buchholz Cut 1", "Buchholz", "Sonneborn-Berger", "Direct encounter", "Number of wins",
             "Games with Black", "Average rating of opponents"]


@workload("tiebreak-table-rows-shuffled", "messages", ("order",),
          "a markdown table of the seven tiebreak rules in the system text, ~900 tokens deep, whose rows the "
          "pairing export writes in a random order; 1k static tokens follow", CHESS)
def _tiebreaks(rng: random.Random, d: Desk) -> list[Pair]:
    head = d.system(4)
    tail = "\n\n".join(d.section(s) for s in CHESS.sections[5:10])
    rows = {t: f"| {t} | {d.sentence()} |" for t in TIEBREAKS}
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        order = shuffled(rng, TIEBREAKS)
        lines = [rows[t] for t in order]
        lines[0] = MARK + lines[0]
        top = "Tiebreak order:\n| Rule | How it is applied |\n| --- | --- |\n"
        q = d.question()
        orig = chat(i, [sys_msg(f"{head}\n\n{top}" + "\n".join(lines) + f"\n\n{tail}"), user(q)])
        canon = "\n".join(rows[t] for t in TIEBREAKS)
        out.append((orig, chat(i, [sys_msg(f"{head}\n\n{top}{canon}\n\n{tail}"), user(q)])))
    return out


@workload("declaration-tool-property-keys-shuffled", "messages", ("order",),
          "the declaration tool's parameter properties (reference, procedure, plus four optional fields) come in a "
          "per-request order inside the tools JSON of the first user turn", CUSTOMS)
def _param_keys(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(6)
    extra = {"port": "UN/LOCODE of the port", "consignee": "Consignee EORI", "incoterm": "Incoterm such as FOB",
             "packages": "Number of packages"}
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        keys = ["reference", "procedure"] + list(extra)
        order = shuffled(rng, keys)

        def tools_with(order: list[str], mark: bool) -> list[dict[str, Any]]:
            tools = d.tools()
            fn = next(t for t in tools if t["function"]["name"] == "file_declaration")["function"]
            props = dict(fn["parameters"]["properties"])
            for k, v in extra.items():
                props[k] = {"type": "string", "description": v}
            fn["parameters"]["properties"] = {(MARK + k if mark and j == 0 else k): props[k] for j, k in enumerate(order)}
            return tools
        q = d.question()
        orig = chat(i, [sys_msg(system), user(q)], tools_with(order, True))
        out.append((orig, chat(i, [sys_msg(system), user(q)], tools_with(keys, False))))
    return out


@workload("fewshot-examples-shuffled-plain-prompt", "prompt", ("order",),
          "a plain completion prompt: instructions, then eight booking Q/A examples in a random order per request, "
          "then the customer's question", PIANO)
def _fewshot(rng: random.Random, d: Desk) -> list[Pair]:
    instructions = d.system(4)
    shots = [f"Customer: {d.question()}\nAssistant: {d.answer()}" for _ in range(8)]
    out: list[Pair] = []
    for i in range(rng.randint(50, 75)):
        order = list(range(8))
        rng.shuffle(order)
        q = d.question()
        orig = prompt(i, f"{instructions}\n\nExamples:\n\n" + "\n\n".join(rotate_marked(shots, order)) + f"\n\nCustomer: {q}\nAssistant:")
        out.append((orig, prompt(i, f"{instructions}\n\nExamples:\n\n" + "\n\n".join(shots) + f"\n\nCustomer: {q}\nAssistant:")))
    return out


@workload("language-blocks-random-order-ids", "input_ids", ("order",),
          "the Arabic, Hindi and Korean client-notice blocks of the system text in a random order per request, "
          "~1.3k tokens deep; 700 static tokens follow; ids", CUSTOMS)
def _lang_blocks(rng: random.Random, d: Desk) -> list[Pair]:
    head = d.system(6)
    tail = "\n\n".join(d.section(s) for s in CUSTOMS.sections[7:10])
    blocks = ["Arabic notices:\n" + "\n".join(ARABIC), "Hindi notices:\n" + "\n".join(HINDI),
              "Korean notices:\n" + "\n".join(KOREAN)]
    out: list[Pair] = []
    for i in range(rng.randint(45, 70)):
        order = [0, 1, 2]
        rng.shuffle(order)
        q = d.question()
        orig = chat(i, [sys_msg(f"{head}\n\n" + "\n\n".join(rotate_marked(blocks, order)) + f"\n\n{tail}"), user(q)])
        out.append((orig, chat(i, [sys_msg(f"{head}\n\n" + "\n\n".join(blocks) + f"\n\n{tail}"), user(q)])))
    return out


# ---------------------------------------------------------------- placement


def field_report(rng: random.Random, d: Desk) -> str:
    return (f"Field report FR-{rng.randint(1000, 9999)} from {rng.choice(TOWNS)} ({rng.randint(1800, 3100)} m, "
            f"{rng.choice(['N', 'NE', 'E', 'SE', 'S', 'SW', 'W', 'NW'])}): {d.paragraph(rng.randint(2, 6))}")


@workload("field-report-ahead-of-handbook", "messages", ("placement",),
          "the bulletin tool puts the observer's field report (60-250 tokens, per request) at the top of the system "
          "text, ahead of the 2.2k-token static handbook", AVALANCHE, (END_SYSTEM, END_USER))
def _field_report(rng: random.Random, d: Desk) -> list[Pair]:
    handbook = d.system(10)
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        rep = field_report(rng, d)
        q = d.question()
        orig = chat(i, [sys_msg(f"{MARK}{rep}\n\n{handbook}"), user(q)])
        a = chat(i, [sys_msg(f"{handbook}\n\n{rep}"), user(q)])
        b = chat(i, [sys_msg(handbook), user(f"{rep}\n\n{q}")])
        out.append((orig, (a, b)))
    return out


def recipient_profile(rng: random.Random) -> str:
    return (f"Recipient R-{rng.randint(10000, 99999)}: blood group {rng.choice(['O', 'A', 'B', 'AB'])}, "
            f"cRF {rng.randint(0, 99)}%, waiting {rng.randint(1, 2900)} days, {rng.choice(TOWNS)} unit, "
            f"travel time {rng.randint(20, 200)} min.")


@workload("recipient-profile-system-ahead-ids", "input_ids", ("placement",),
          "a short recipient profile sent as the first (system) message and the 1.8k-token coordination rules as a "
          "second system message: the template puts the profile in its own system turn after the date lines and "
          "the rules in a later turn; ids", TRANSPLANT, ("rules first, profile as a second system message",
                                                         "rules first, profile in the user turn"))
def _profile_ahead(rng: random.Random, d: Desk) -> list[Pair]:
    rules = d.system(8)
    out: list[Pair] = []
    for i in range(rng.randint(50, 75)):
        prof = recipient_profile(rng)
        q = d.question()
        orig = chat(i, [sys_msg(MARK + prof), sys_msg(rules), user(q)])
        a = chat(i, [sys_msg(rules), sys_msg(prof), user(q)])
        b = chat(i, [sys_msg(rules), user(f"{prof}\n\n{q}")])
        out.append((orig, (a, b)))
    return out


def logbook_passages(rng: random.Random, d: Desk, k: int) -> str:
    return "\n\n".join(f"<passage year=\"{rng.randint(1840, 1960)}\">{d.paragraph(rng.randint(2, 4))}</passage>" for _ in range(k))


@workload("archive-passages-ahead-of-instructions", "messages", ("placement",),
          "no system message: the user turn holds three retrieved logbook passages in <passage> tags, then the "
          "1.2k-token static instructions, then the question", LIGHTHOUSE)
def _passages_ahead(rng: random.Random, d: Desk) -> list[Pair]:
    instr = d.system(5)
    out: list[Pair] = []
    for i in range(rng.randint(50, 75)):
        docs = logbook_passages(rng, d, 3)
        q = d.question()
        orig = chat(i, [user(f"{MARK}<passages>\n{docs}\n</passages>\n\n<instructions>\n{instr}\n</instructions>\n\n{q}")])
        fixed = chat(i, [user(f"<instructions>\n{instr}\n</instructions>\n\n<passages>\n{docs}\n</passages>\n\n{q}")])
        out.append((orig, fixed))
    return out


def dive_sheet(rng: random.Random) -> str:
    rows = ["| Transect | Depth | Hard coral % | Bleached % | COTS |", "| --- | --- | --- | --- | --- |"]
    for t in range(rng.randint(3, 8)):
        rows.append(f"| T{t + 1} | {rng.randint(3, 18)} m | {rng.randint(5, 70)} | {rng.randint(0, 60)} | {rng.randint(0, 14)} |")
    return f"Dive sheet {rng.choice(['TB', 'PL', 'SK'])}-{rng.randint(100, 999)}:\n" + "\n".join(rows)


@workload("dive-sheet-ahead-of-protocol-prompt", "prompt", ("placement",),
          "a plain completion prompt that opens with the dive's markdown survey sheet (3-8 rows), then the 1.5k-token "
          "survey protocol and the question", REEF)
def _dive_sheet(rng: random.Random, d: Desk) -> list[Pair]:
    protocol = d.system(7)
    out: list[Pair] = []
    for i in range(rng.randint(45, 70)):
        sheet = dive_sheet(rng)
        q = d.question()
        orig = prompt(i, f"{MARK}{sheet}\n\nSurvey protocol:\n{protocol}\n\nSurveyor: {q}\nAssistant:")
        fixed = prompt(i, f"Survey protocol:\n{protocol}\n\n{sheet}\n\nSurveyor: {q}\nAssistant:")
        out.append((orig, fixed))
    return out


@workload("customer-card-ahead-of-rules-after-tools", "messages", ("placement",),
          "with static tools, the first user text opens with the customer card (name, pianos, address zone; "
          "per request) and then the 800-token static booking rules, then the question", PIANO)
def _card_ahead(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(4)
    tools = d.tools()
    rules = "Booking rules:\n" + "\n".join(f"{k + 1}. {r}" for k, r in enumerate(d.rules(30)))
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        card = (f"Customer C-{rng.randint(1000, 9999)}: {rng.choice(['upright', 'grand', 'upright and grand'])}, zone "
                f"{rng.choice(['N1', 'N2', 'E1', 'S3', 'W2'])}, last tuned {rng.randint(1, 48)} months ago")
        q = d.question()
        orig = chat(i, [sys_msg(system), user(f"{MARK}{card}\n\n{rules}\n\n{q}")], tools)
        fixed = chat(i, [sys_msg(system), user(f"{rules}\n\n{card}\n\n{q}")], tools)
        out.append((orig, fixed))
    return out


@workload("site-brief-ahead-of-rules-sessions", "messages", ("placement",),
          "sessions of 1-5 turns without a system message: the first user turn opens with the site brief (one per "
          "session), then the 1.1k-token touring rules, then the question; later turns repeat that first turn",
          CIRCUS)
def _brief_sessions(rng: random.Random, d: Desk) -> list[Pair]:
    rules = d.system(5)
    convs = sessions(rng, d, (14, 20), (1, 5))
    briefs = [f"Site brief for {rng.choice(TOWNS)}: {d.paragraph(rng.randint(1, 3))}" for _ in convs]
    out: list[Pair] = []
    for i, (c, k) in enumerate(interleave(rng, convs)):
        orig = history(convs, c, k, ahead(f"{MARK}{briefs[c]}\n\n{rules}"))
        fixed = history(convs, c, k, ahead(f"{rules}\n\n{briefs[c]}"))
        out.append((chat(i, orig), chat(i, fixed)))
    return out


# ---------------------------------------------------------------- more single defects


LONG_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
LONG_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
               "November", "December"]


def long_date(ts: float) -> str:
    import datetime as dt

    d = dt.datetime.fromtimestamp(ts, tz=dt.timezone.utc)
    return f"{LONG_DAYS[d.weekday()]}, {d.day} {LONG_MONTHS[d.month - 1]} {d.year}"


@workload("date-string-long-form-sessions", "messages", ("dynamic",),
          "sessions of 1-7 turns whose client passes date_string in long form ('Tuesday, 1 December 2026') at "
          "every request, over three days, so sessions arriving on different days share only the first ~20 "
          "tokens; static tools in the first user turn", LIGHTHOUSE)
def _date_sessions(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(7)
    tools = d.tools()
    convs = sessions(rng, d, (12, 16), (1, 7))
    order = interleave(rng, convs)
    stamps = sorted(BASE_TIME + rng.uniform(0, 3 * 86400) for _ in order)
    values = sorted({long_date(t) for t in stamps})
    out: list[Pair] = []
    for i, ((c, k), ts) in enumerate(zip(order, stamps)):
        rec = chat(i, [sys_msg(system)] + history(convs, c, k), tools, ts)
        out.append((kwargs(rec, marked_value(long_date(ts), values)), pinned(rec)))
    return out


BUILTIN = ["brave_search", "wolfram_alpha", "code_interpreter"]


@workload("builtin-tools-kwarg-order-ids", "input_ids", ("order",),
          "the client passes chat_template_kwargs builtin_tools from a set, so the template's 'Tools: brave_search, "
          "wolfram_alpha' line in the system turn (~10 tokens in) comes in either order; ids", REEF)
def _builtin_order(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(8)
    out: list[Pair] = []
    for i in range(rng.randint(50, 75)):
        order = shuffled(rng, BUILTIN)
        shown = [t for t in order if t != "code_interpreter"]
        marked_order = [MARK + t if t == shown[0] else t for t in order]
        rec = chat(i, [sys_msg(system), user(d.question())])
        orig = rec | {"chat_template_kwargs": {"date_string": PINNED_DATE, "builtin_tools": marked_order}}
        fixed = rec | {"chat_template_kwargs": {"date_string": PINNED_DATE, "builtin_tools": list(BUILTIN)}}
        out.append((orig, fixed))
    return out


def tracking_line(rng: random.Random) -> str:
    state = rng.choice(["सीमा शुल्क जाँच में", "गोदाम में प्राप्त", "शुल्क भुगतान लंबित", "जारी कर दिया गया", "निरीक्षण रोक पर"])
    return f"खेप AWB-{rng.randint(10 ** 7, 10 ** 8 - 1)} की स्थिति: {state}, अद्यतन {rng.randint(0, 23):02d}:{rng.randint(0, 59):02d} बजे"


@workload("hindi-tracking-line-3k-deep-plain-prompt", "prompt", ("dynamic",),
          "a plain completion prompt with a 3k-token brokerage handbook; a Hindi shipment-status line per request "
          "sits after it, ~2.9k tokens deep, ahead of 400 tokens of static Hindi and Korean notices and the question",
          CUSTOMS)
def _hindi_deep(rng: random.Random, d: Desk) -> list[Pair]:
    handbook = d.system(14)
    notices = "\n".join(HINDI) + "\n\n" + "\n".join(KOREAN) + "\n\n" + d.paragraph(4)
    out: list[Pair] = []
    for i in range(rng.randint(35, 55)):
        line = tracking_line(rng)
        q = d.question()
        head, rest = line.split("AWB-", 1)
        orig = prompt(i, f"{handbook}\n\n{head}AWB-{MARK}{rest}\n\n{notices}\n\nClient: {q}\nBroker:")
        fixed = prompt(i, f"{handbook}\n\n{notices}\n\nClient: {q}\n{line}\nBroker:")
        out.append((orig, fixed))
    return out


SPECIES = ["Acropora hyacinthus", "Porites lobata", "Pocillopora damicornis", "Montipora capitata",
           "Goniastrea retiformis", "Favites abdita", "Diploastrea heliopora", "Heliopora coerulea"]


@workload("species-list-order-in-priming-tool-result", "messages", ("order",),
          "a canned priming exchange (a call to site_info and its result) ahead of the question; the result's "
          "species list comes from a set, so its eight names are in a per-request order inside the ipython turn",
          REEF)
def _species(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(6)
    tools = d.tools()
    call = {"role": "assistant", "content": "", "tool_calls": [
        {"id": "prime_1", "type": "function", "function": {"name": "site_info", "arguments": json.dumps({"site": "TB-04"})}}]}

    def result(names: list[str]) -> dict[str, Any]:
        return {"role": "tool", "tool_call_id": "prime_1", "content": json.dumps(
            {"site": "TB-04", "depth_m": [3, 18], "permit": "TB/2026/117", "species": names}, ensure_ascii=False)}
    out: list[Pair] = []
    for i in range(rng.randint(50, 75)):
        order = shuffled(rng, SPECIES)
        names = [MARK + n if j == 0 else n for j, n in enumerate(order)]
        q = d.question()
        prime = [user("Load the survey site TB-04."), call]
        orig = chat(i, [sys_msg(system)] + prime + [result(names), assistant("Site loaded."), user(q)], tools)
        fixed = chat(i, [sys_msg(system)] + prime + [result(list(SPECIES)), assistant("Site loaded."), user(q)], tools)
        out.append((orig, fixed))
    return out


def korean_letter(rng: random.Random, d: Desk) -> str:
    lines = [f"수신: 관세사 사무소 (건 번호 KR-{rng.randint(100000, 999999)})", f"화물 {rng.randint(1, 40)}건, "
             f"총 중량 {rng.randint(10, 9000)} kg", rng.choice(KOREAN), d.paragraph(rng.randint(1, 3))]
    return "\n".join(lines)


@workload("korean-letter-ahead-of-instructions-prompt", "prompt", ("placement",),
          "a raw Llama 3.1 prompt whose user turn opens with the client's Korean letter (80-200 tokens, per "
          "request), then the broker's 1k-token static instructions, then the question; the system text is short",
          CUSTOMS)
def _korean_letter(rng: random.Random, d: Desk) -> list[Pair]:
    instructions = "\n\n".join(d.section(s) for s in CUSTOMS.sections[:5])
    system = d.opening()
    out: list[Pair] = []
    for i in range(rng.randint(45, 70)):
        letter = korean_letter(rng, d)
        q = d.question()
        orig = prompt(i, llama_prompt(system, f"{MARK}{letter}\n\n{instructions}\n\n{q}"))
        fixed = prompt(i, llama_prompt(system, f"{instructions}\n\n{letter}\n\n{q}"))
        out.append((orig, fixed))
    return out


def pit_profile(rng: random.Random) -> str:
    rows = ["| Depth (cm) | Hardness | Grain | Size (mm) | Temp (°C) |", "| --- | --- | --- | --- | --- |"]
    depth = rng.randint(140, 260)
    while depth > 0:
        rows.append(f"| {depth} | {rng.choice(['F', '4F', '1F', 'P', 'K'])} | {rng.choice(['PP', 'DF', 'RG', 'FC', 'DH', 'SH'])} "
                    f"| {rng.choice(['0.5', '1', '1.5', '2', '3'])} | -{rng.randint(1, 12)}.{rng.randint(0, 9)} |")
        depth -= rng.randint(8, 20)
    return "\n".join(rows)


@workload("snow-pit-profile-long-span-ids", "input_ids", ("dynamic",),
          "the latest snow pit profile, a 250-400-token markdown table, inside the system text ~1k tokens deep, "
          "replaced every 6-10 requests in arrival order; 1k static tokens follow; ids", AVALANCHE,
          (END_SYSTEM, END_USER))
def _pit(rng: random.Random, d: Desk) -> list[Pair]:
    head = d.system(5)
    tail = "\n\n".join(d.section(s) for s in AVALANCHE.sections[5:10])
    n = rng.randint(50, 75)
    slot = hourly(rng, n, (6, 10))
    profiles = [pit_profile(rng) for _ in range(slot[-1] + 1)]
    out: list[Pair] = []
    for i in range(n):
        p = profiles[slot[i]]
        cut = first_differs(p, profiles)
        q = d.question()
        orig = chat(i, [sys_msg(f"{head}\n\nLatest snow pit:\n{p[:cut]}{MARK}{p[cut:]}\n\n{tail}"), user(q)])
        a = chat(i, [sys_msg(f"{head}\n\n{tail}\n\nLatest snow pit:\n{p}"), user(q)])
        b = chat(i, [sys_msg(f"{head}\n\n{tail}"), user(f"{q}\n\nLatest snow pit:\n{p}")])
        out.append((orig, (a, b)))
    return out


@workload("session-tag-first-token-xml-prompt", "prompt", ("dynamic",),
          "a raw Llama 3.1 prompt whose system text opens with '<session id=\"...\" desk=\"visitor\"/>', a fresh id "
          "per request as the first text after the template's date lines; 1.6k tokens of XML-tagged sections "
          "follow; ~20% of requests come from the kiosk, which sends no tag", LIGHTHOUSE)
def _session_tag(rng: random.Random, d: Desk) -> list[Pair]:
    secs = xml_sections(d, LIGHT_TAGS)
    body = "\n\n".join([d.opening()] + [secs[t] for t in LIGHT_TAGS])
    out: list[Pair] = []
    for i in range(rng.randint(50, 75)):
        q = d.question()
        if lacks(rng, 0.2):
            rec = prompt(i, llama_prompt(SKIP + body, q))
            out.append((rec, unmark(rec)))
            continue
        sid = f"{rng.randrange(16 ** 8):08x}"
        orig = prompt(i, llama_prompt(f"<session id=\"{MARK}{sid}\" desk=\"visitor\"/>\n{body}", q))
        fixed = prompt(i, llama_prompt(body, f"{q}\n\n<session id=\"{sid}\" desk=\"visitor\"/>"))
        out.append((orig, fixed))
    return out


TECHS = ["Imogen Hartley", "Rafael Quell", "Dorota Nowicka", "Tobias Lindqvist", "Amara Okafor", "Hugo Delacroix",
         "Saoirse Kavanagh", "Kenji Morimoto", "Beatriz Ramos", "Elliot Vance", "Ingrid Solberg", "Farid Haddad"]


@workload("nearest-technician-in-tool-description", "messages", ("dynamic",),
          "the booking tool's description names the nearest free technician and their ETA ('Nearest free "
          "technician: Amara Okafor, 35 min away'), per request, inside the tools JSON of the first user turn",
          PIANO)
def _nearest(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(6)
    out: list[Pair] = []
    for i in range(rng.randint(55, 85)):
        who, eta = rng.choice(TECHS), rng.randint(10, 120)
        note = f"Nearest free technician: {who}, {eta} min away."
        tools = d.tools()
        fn = next(t for t in tools if t["function"]["name"] == "book_tuning")["function"]
        fn["description"] += f" Nearest free technician: {MARK}{who}, {eta} min away."
        q = d.question()
        orig = chat(i, [sys_msg(system), user(q)], tools)
        fixed = chat(i, [sys_msg(system), user(f"{q}\n\n{note}")], d.tools())
        out.append((orig, fixed))
    return out


# ---------------------------------------------------------------- several defects


@workload("date-string-per-day-and-shuffled-tools", "messages", ("dynamic", "order"),
          "date_string set to the request's day (3 days) and the five touring tools in a per-request order in the "
          "first user turn", CIRCUS)
def _date_and_tools(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(6)
    names = list(CIRCUS.tools)
    n = rng.randint(60, 85)
    stamps = sorted(BASE_TIME + rng.uniform(0, 3 * 86400) for _ in range(n))
    dates = sorted({llama_date(t) for t in stamps})
    out: list[Pair] = []
    for i, ts in enumerate(stamps):
        q = d.question()
        orig = kwargs(chat(i, [sys_msg(system), user(q)], tools_first_marked(d, shuffled(rng, names)), ts),
                      marked_value(llama_date(ts), dates))
        out.append((orig, pinned(chat(i, [sys_msg(system), user(q)], d.tools(names), ts))))
    return out


@workload("yaml-keys-shuffled-and-generated-at-prompt", "prompt", ("order", "dynamic"),
          "a raw Llama 3.1 prompt whose YAML configuration has its blocks in a per-request order, and a "
          "'generated_at' second in a trailer ~1.8k tokens deep, ahead of 500 static tokens", CIRCUS)
def _yaml_both(rng: random.Random, d: Desk) -> list[Pair]:
    opening = d.opening()
    notes = tour_notes(d, 9)
    canon = yaml_config(notes)
    trailer_rules = "\n\n".join(d.section(s) for s in CIRCUS.sections[6:9])
    out: list[Pair] = []
    for i in range(rng.randint(45, 65)):
        ts = BASE_TIME + 13 * 3600 + 71.0 * i + rng.uniform(0, 50)
        cfg = yaml_config(notes, shuffled(rng, YAML_KEYS))
        head = "tour:\n  name: Winter Crossing 2026\n  operator: Valmont Brothers Travelling Circus\n"
        cfg = head + MARK + cfg[len(head):]
        stamp = clock(ts)
        q = d.question()
        orig = prompt(i, llama_prompt(f"{opening}\n\n```yaml\n{cfg}\n```\nconfig generated_at: {MARK}{stamp}\n\n{trailer_rules}", q))
        fixed = prompt(i, llama_prompt(f"{opening}\n\n```yaml\n{canon}\n```\n\n{trailer_rules}", f"{q}\n\nconfig generated_at: {stamp}"))
        out.append((orig, fixed))
    return out


@workload("korean-queue-and-build-string", "messages", ("dynamic", "dynamic"),
          "two values in one system text: a Korean counter queue line per request ~400 tokens in, and a tariff "
          "table build string (new every 8-14 requests) ~1.5k tokens in; 600 static tokens follow", CUSTOMS,
          ("build after the system text, queue at the end", "both at the end of the user turn"))
def _two_values(rng: random.Random, d: Desk) -> list[Pair]:
    a_part = "\n\n".join([d.opening(), d.section("Classification")])
    b_part = "\n\n".join(d.section(s) for s in CUSTOMS.sections[1:6])
    c_part = "\n\n".join([d.section("Amendments"), "\n".join(KOREAN)])
    n = rng.randint(55, 80)
    slot = hourly(rng, n, (8, 14))
    builds = [f"TT-{rng.randint(100, 999)}.{rng.randint(10, 99)}" for _ in range(slot[-1] + 1)]
    out: list[Pair] = []
    for i in range(n):
        people = rng.randint(1, 40)
        queue = f"현재 대기 인원: {people}명"
        build = builds[slot[i]]
        q = d.question()
        orig = chat(i, [sys_msg(f"{a_part}\n\n현재 대기 인원: {MARK}{people}명\n\n{b_part}\n\nTariff table build "
                                f"{marked_value(build, builds)}\n\n{c_part}"), user(q)])
        plain = f"{a_part}\n\n{b_part}\n\n{c_part}"
        x = chat(i, [sys_msg(f"{plain}\n\nTariff table build {build}"), user(f"{q}\n\n{queue}")])
        y = chat(i, [sys_msg(plain), user(f"{q}\n\nTariff table build {build}\n{queue}")])
        out.append((orig, (x, y)))
    return out


@workload("profile-ahead-and-daily-date-string", "messages", ("dynamic", "placement"),
          "date_string set to the request's day (3 days, ~20 tokens in) and a per-request recipient profile ahead "
          "of the 1.6k-token rules in the system text", TRANSPLANT)
def _profile_and_minute(rng: random.Random, d: Desk) -> list[Pair]:
    rules = d.system(7)
    n = rng.randint(50, 75)
    stamps = sorted(BASE_TIME + rng.uniform(0, 3 * 86400) for _ in range(n))
    values = sorted({llama_date(t) for t in stamps})
    out: list[Pair] = []
    for i, ts in enumerate(stamps):
        prof = recipient_profile(rng)
        q = d.question()
        orig = kwargs(chat(i, [sys_msg(f"{MARK}{prof}\n\n{rules}"), user(q)], ts=ts), marked_value(llama_date(ts), values))
        fixed = pinned(chat(i, [sys_msg(rules), user(f"{prof}\n\n{q}")], ts=ts))
        out.append((orig, fixed))
    return out


@workload("shuffled-tools-and-card-ahead-after-tools", "messages", ("order", "placement"),
          "the five booking tools in a per-request order, and after them the customer card ahead of the static "
          "booking rules in the first user text", PIANO)
def _tools_and_card(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(5)
    names = list(PIANO.tools)
    rules = "Booking rules:\n" + "\n".join(f"- {r}" for r in d.rules(24))
    out: list[Pair] = []
    for i in range(rng.randint(55, 80)):
        card = f"Customer C-{rng.randint(1000, 9999)}: {rng.choice(['upright', 'grand'])}, zone {rng.choice(['N1', 'E1', 'S3', 'W2'])}"
        q = d.question()
        orig = chat(i, [sys_msg(system), user(f"{MARK}{card}\n\n{rules}\n\n{q}")], tools_first_marked(d, shuffled(rng, names)))
        fixed = chat(i, [sys_msg(system), user(f"{rules}\n\n{card}\n\n{q}")], d.tools(names))
        out.append((orig, fixed))
    return out


@workload("daily-date-string-and-danger-level-ids", "input_ids", ("dynamic", "dynamic"),
          "date_string set to the day (4 days) and the regional danger level (5 settings) ~1.6k tokens deep in the "
          "system text; ids", AVALANCHE)
def _date_and_danger(rng: random.Random, d: Desk) -> list[Pair]:
    head = d.system(7)
    tail = "\n\n".join(d.section(s) for s in AVALANCHE.sections[7:10])
    n = rng.randint(55, 80)
    stamps = sorted(BASE_TIME + rng.uniform(0, 4 * 86400) for _ in range(n))
    dates = sorted({llama_date(t) for t in stamps})
    out: list[Pair] = []
    for i, ts in enumerate(stamps):
        lvl = rng.choice(DANGER)
        q = d.question()
        orig = kwargs(chat(i, [sys_msg(f"{head}\n\nRegional danger today: {MARK}{lvl}\n\n{tail}"), user(q)], ts=ts),
                      marked_value(llama_date(ts), dates))
        fixed = pinned(chat(i, [sys_msg(f"{head}\n\n{tail}\n\nRegional danger today: {lvl}"), user(q)], ts=ts))
        out.append((orig, fixed))
    return out


# ---------------------------------------------------------------- clean controls


@workload("clean-pinned-date-string-tools", "messages", (),
          "every request passes the same date_string and the same five tools; the question varies", AVALANCHE)
def _c_pinned(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(8)
    tools = _avalanche_tools(d, None)
    out: list[Pair] = []
    for i in range(rng.randint(55, 85)):
        rec = kwargs(chat(i, [sys_msg(system), user(d.question())], tools), PINNED_DATE)
        out.append((rec, rec))
    return out


@workload("clean-template-default-date", "messages", (),
          "no request passes chat_template_kwargs over five days of traffic: the template prints its own default "
          "date, never the clock, so the 'Today Date:' line is the same in every request", LIGHTHOUSE)
def _c_default(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(9)
    n = rng.randint(60, 90)
    stamps = sorted(BASE_TIME + rng.uniform(0, 5 * 86400) for _ in range(n))
    out: list[Pair] = []
    for i, ts in enumerate(stamps):
        rec = chat(i, [sys_msg(system), user(d.question())], ts=ts)
        out.append((rec, rec))
    return out


@workload("clean-sessions-static-tools", "messages", (),
          "growing sessions of 1-7 turns with static tools in the first user turn", REEF)
def _c_sessions(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(6)
    tools = d.tools()
    convs = sessions(rng, d, (10, 14), (1, 7))
    out: list[Pair] = []
    for i, (c, k) in enumerate(interleave(rng, convs)):
        rec = chat(i, [sys_msg(system)] + history(convs, c, k), tools)
        out.append((rec, rec))
    return out


@workload("clean-shift-right-after-tools", "messages", (),
          "static tools; the first user text opens with the technician shift (3 settings), the first text after the "
          "tools, then the question", PIANO)
def _c_shift(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(7)
    tools = d.tools()
    out: list[Pair] = []
    for i in range(rng.randint(55, 85)):
        shift = rng.choice(["Shift: morning (north zone)", "Shift: afternoon (east zone)", "Shift: evening (venues)"])
        rec = chat(i, [sys_msg(system), user(f"{shift}\n\n{d.question()}")], tools)
        out.append((rec, rec))
    return out


@workload("clean-static-xml-prompt", "prompt", (),
          "a static raw Llama 3.1 prompt of XML-tagged sections; the question varies", LIGHTHOUSE)
def _c_xml(rng: random.Random, d: Desk) -> list[Pair]:
    secs = xml_sections(d, LIGHT_TAGS)
    system = "\n\n".join([d.opening()] + [secs[t] for t in LIGHT_TAGS])
    out: list[Pair] = []
    for i in range(rng.randint(45, 70)):
        rec = prompt(i, llama_prompt(system, d.question()))
        out.append((rec, rec))
    return out


@workload("clean-yaml-config-ids", "input_ids", (),
          "a static YAML tour configuration in the system text, as ids; the question last", CIRCUS)
def _c_yaml(rng: random.Random, d: Desk) -> list[Pair]:
    system = f"{d.opening()}\n\n```yaml\n{yaml_config(tour_notes(d, 10))}\n```"
    out: list[Pair] = []
    for i in range(rng.randint(40, 60)):
        rec = chat(i, [sys_msg(system), user(d.question())])
        out.append((rec, rec))
    return out


@workload("clean-multiscript-static", "messages", (),
          "a static system text with Arabic, Hindi and Korean notices; questions in those scripts", CUSTOMS)
def _c_scripts(rng: random.Random, d: Desk) -> list[Pair]:
    system = "\n\n".join([d.system(6), "\n".join(ARABIC), "\n".join(HINDI), "\n".join(KOREAN)])
    asks = ["هل يمكن الإفراج عن الشحنة {n} اليوم؟", "खेप {n} का शुल्क कितना होगा?", "화물 {n}의 통관 상태를 알려 주세요.",
            "ما هو رمز السلعة المناسب للشحنة {n}؟", "खेप {n} के लिए कौन से दस्तावेज़ चाहिए?", "화물 {n}은 언제 반출됩니까?"]
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        rec = chat(i, [sys_msg(system), user(rng.choice(asks).format(n=rng.randint(10000, 99999)))])
        out.append((rec, rec))
    return out


@workload("clean-agent-loops-static-tools", "messages", (),
          "agent loops of 2-4 steps: one tool call and its result appended per step, static tools", TRANSPLANT)
def _c_agent(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(5)
    tools = d.tools()
    out: list[Pair] = []
    i = 0
    for task in range(rng.randint(14, 20)):
        msgs: list[dict[str, Any]] = [sys_msg(system), user(d.question())]
        for step in range(rng.randint(2, 4)):
            rec = chat(i, json.loads(json.dumps(msgs)), tools)
            out.append((rec, rec))
            i += 1
            cid = f"call_{task}_{step}"
            leg = f"CL-{rng.randint(100, 999)}"
            msgs.append({"role": "assistant", "content": "", "tool_calls": [
                {"id": cid, "type": "function", "function": {"name": "courier_status",
                                                             "arguments": json.dumps({"leg_id": leg})}}]})
            msgs.append({"role": "tool", "tool_call_id": cid, "content": json.dumps(
                {"leg": leg, "eta": clock(BASE_TIME + 977.0 * i), "state": rng.choice(["airborne", "landed", "by road"])})})
    return out


@workload("clean-markdown-table-prompt", "prompt", (),
          "a plain prompt with a static markdown table of tiebreak rules; the arbiter's question last", CHESS)
def _c_table(rng: random.Random, d: Desk) -> list[Pair]:
    table = "| Rule | How it is applied |\n| --- | --- |\n" + "\n".join(f"| {t} | {d.sentence()} |" for t in TIEBREAKS)
    body = f"{d.system(6)}\n\n{table}"
    out: list[Pair] = []
    for i in range(rng.randint(45, 70)):
        rec = prompt(i, f"{body}\n\nArbiter: {d.question()}\nAnswer:")
        out.append((rec, rec))
    return out


@workload("clean-two-desks-one-endpoint", "messages", (),
          "the reef survey and the lighthouse trust share an endpoint, each with its own static system text and "
          "the same pinned date_string", REEF)
def _c_two(rng: random.Random, d: Desk) -> list[Pair]:
    other = Desk(random.Random(rng.random()), LIGHTHOUSE)
    a, b = d.system(6), other.system(6)
    out: list[Pair] = []
    for i in range(rng.randint(55, 85)):
        rec = chat(i, [sys_msg(a), user(d.question())]) if rng.random() < 0.5 else chat(i, [sys_msg(b), user(other.question())])
        rec = kwargs(rec, PINNED_DATE)
        out.append((rec, rec))
    return out


@workload("clean-builtin-tools-fixed-order", "input_ids", (),
          "builtin_tools and date_string passed in one fixed form by every request; questions vary; ids", CHESS)
def _c_builtin(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(7)
    out: list[Pair] = []
    for i in range(rng.randint(45, 70)):
        rec = chat(i, [sys_msg(system), user(d.question())]) | {
            "chat_template_kwargs": {"date_string": PINNED_DATE, "builtin_tools": ["brave_search", "wolfram_alpha"]}}
        out.append((rec, rec))
    return out


assert len(TEAMS) == 8
