"""Tenth held-out diagnosis set: a gpt-oss model in the harmony format, measured in cl100k tokens.

Written blind to the detector (advisor/diagnose, advisor/prescribe, the zoo, its shapes and its
tests were not read): DESIGN.md's traffic formats and the rendering advisor/ingest does were used.
Every record is what ``advisor analyze --tokenizer cl100k --chat-template
tests/chat_templates/gpt_oss.jinja`` reads (``ANALYZE_ARGS``, which the bench passes to every
``analyze``, ``prescribe`` and ``render`` run of this set). The harmony layout, as rendered by
advisor's ingest path (confirmed by the tests, not assumed): a system turn with the template's own
text and ``Current date: YYYY-MM-DD`` from ``strftime_now``, which advisor evaluates at each
record's ``timestamp`` (a record without one renders a fixed fallback date); then a developer turn
``# Instructions`` holding the first system message, followed by ``# Tools`` with the tools as a
TypeScript ``namespace functions`` (each tool a ``// description`` line and a ``type name = (_: {
... }) => any;`` with a ``// description`` line per parameter, enums as string unions); then the
turns: an assistant answer on the ``final`` channel, a tool call as ``assistant
to=functions.NAME<|channel|>commentary json``, its result as a ``functions.NAME to=assistant``
turn holding the content as a JSON string. cl100k does not know harmony's markers as special
tokens, so they are encoded as text, the same for the oracle and for ``analyze``. Token-id records
hold cl100k ids of that rendering; prompt records hold raw harmony text a team's own client writes
(with its own date line) or plain completion prompts.

The machinery is the first set's (heldout.py: MARK and UNIT, Engine, the brute-force oracle) with
this set's renderer, a SKIP marker (a request without the defect) and HINT (rendered text a MARK
follows, for a value the template prints itself); the text comes from heldout10_text.py: a
wind-farm maintenance planner, a sign-language interpreting agency, a seed bank, a bicycle courier
dispatcher, a patent prior-art search, a theatre box office, a water utility's leak desk, a
beekeepers' co-operative and a legal Portuguese/Korean translation memory; Icelandic, Welsh,
Turkish, European Portuguese and Korean text.

Shapes. Template-injected values: the ``Current date`` the template prints for requests spanning
3-6 days (with static tools, in sessions, in agent loops, as ids, with shuffled tools, with shuffled
sections). Dynamic values: a turbine id on the first token of the instructions (ids); a vault
inventory time in the third tool's description, hourly in arrival order; open zones in a
parameter's description (5 settings); tonight's performances as a parameter's enum (one per day);
a booking reference ~1.5k tokens deep in a raw harmony prompt; a DMA code (30 settings) in a plain
prompt; a live vault reading in a canned priming tool result; an Icelandic date (5 days); a Welsh
day line opening a plain prompt; a ~250-token metocean JSON in the instructions; a one-token rider
count (ids); a two-setting house state; a Korean client and job number; three values in one
sentence; an examiner (12 settings) ~3k tokens deep (ids); a crew-board time in a tool description
across agent loops; the scale hive's weight in a canned assistant greeting (every 3-7 requests); a
Turkish weather line (6 settings) in a raw harmony prompt; the hour in a canned priming call's arguments
(ids). Order: tools (printed as TypeScript), tools per agent task, tools as ids, the
keys of a tool's parameters, handbook sections, sections in a prompt, rule bullets (ids), few-shot
Portuguese/Korean message pairs, a glossary in a prompt, an enum's values. Placement: retrieved
abstracts ahead of the instructions, a booking history ahead of the handbook in sessions, an account
record ahead of the rules (ids), an inspection report ahead of the developer text in a raw harmony
prompt, a user turn of notes sent ahead of the system message (which harmony then prints as a
plain system turn after it). Several defects: the date plus shuffled tools, show notes ahead plus a
performance code, shuffled sections plus the date, a snapshot in a tool description plus shuffled
parameter keys, the date plus abstracts ahead of the instructions. 42 defect workloads (26 messages,
8 prompt, 8 token-id logs; 5 with two defects) and 9 controls. Controls: agent loops with static tools within a day, growing sessions, RAG with the
question last, static tools within one day, two products on one endpoint, a job id at the end,
static prompts, multilingual ids, a static Korean/Portuguese memory with tools.

Truth: the oracle's hit rate over cl100k ids on the traffic after the ideal fix written here. A
value with many settings goes to the end of the last user turn; a value with few settings, or many
in arrival order, right after the content all requests share (the end of the instructions without
tools; the start of the first user turn with tools, which the layout prints after the
instructions); order fixes use one canonical order; placement fixes put the shared content first. A
date the template prints is fixed by pinning it: the fixed records carry no timestamp, so the
template prints one fixed date (what passing a fixed ``strftime_now`` gives). Where two places are
plausible the generator writes both (``PLACES``) and the truth is the better measured one.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import statistics
from pathlib import Path
from typing import Any, Callable, Sequence

from advisor.ingest.source import make_renderer
from advisor.ingest.tokenizers import load_tokenizer
from advisor.ingest.traffic import parse_record

from tests.diagnose.heldout import (
    BASE_TIME, MARK, UNIT, Engine, Workload, assistant, chat, clock, oracle, prompt, registering, spread, sys_msg,
    untimed, user,
)
from tests.diagnose.heldout10_text import (
    BEES, COURIER, ICELANDIC_DAYS, ICELANDIC_MONTHS, KO_CLAUSES, LEAK, PATENT, PT_CLAUSES, SEED, SIGN, TEAMS, THEATRE,
    TM, TURKISH_ASKS, WELSH_DAYS, WIND, Desk, Team,
)

TOKENIZER = "cl100k"
TEMPLATE = Path(__file__).resolve().parents[1] / "chat_templates" / "gpt_oss.jinja"
ANALYZE_ARGS = ("--tokenizer", TOKENIZER, "--chat-template", str(TEMPLATE))

SKIP = "\ue002"  # this request lacks the defect that would be here
HINT = "_mark_after"  # rendered text a MARK follows (a value the template prints itself)
DATE_HINT = "Current date: "
Fix = dict[str, Any] | tuple[dict[str, Any], ...]
Pair = tuple[dict[str, Any], Fix]
Builder = Callable[[random.Random, Desk], list[Pair]]
REGISTRY: list[tuple[str, str, tuple[str, ...], str, Builder, str]] = []
TEAM_OF: dict[str, Team] = {}
PLACES: dict[str, tuple[str, ...]] = {}
CHOSEN: dict[str, tuple[int, tuple[float, ...]]] = {}
_register = registering(REGISTRY)

START_USER, END_USER, END_DEV = "start of the first user turn", "end of the last user turn", "end of the instructions"


def workload(name: str, kind: str, expect: tuple[str, ...], shape: str, team: Team,
             places: tuple[str, ...] = (), notes: str = "") -> Callable[[Any], Any]:
    TEAM_OF[name] = team
    if places:
        PLACES[name] = places
    return _register(name, kind, expect, shape, notes)


# ---------------------------------------------------------------- harmony rendering and marking


def harmony_render() -> Callable[[dict[str, Any]], str]:
    """This checkout's rendering as `advisor analyze` with ANALYZE_ARGS sets it up."""
    renderer = make_renderer(TOKENIZER, TEMPLATE, None, [])

    def render(record: dict[str, Any]) -> str:
        text = renderer.text_of(parse_record(record, "heldout10", 1))
        assert text is not None
        return text
    return render


def harmony_engine(render: Callable[[dict[str, Any]], str] | None = None) -> Engine:
    """An Engine with cl100k and the gpt-oss template (or ``render``, the bench's rendering by the
    checkout under test with ANALYZE_ARGS)."""
    return Engine(render or harmony_render(), load_tokenizer(TOKENIZER))


local_engine = harmony_engine  # what the bench's --render local builds for this set


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
    """cl100k ids of the record without markers; per defect the token offset of its MARK (None
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
    assert size == len(plain.encode())

    def tokens_before(pos: int) -> int:
        at = len(plain[:pos].encode())
        return sum(1 for e in ends if e <= at)

    # Events in text order; a hint's MARK was placed in the text, so it sorts with the others.
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
        offsets.append(int(statistics.median(m[k] for m, _ in here if m[k] is not None)))
        starts = []
        for m, u in here:
            at = m[k]
            assert at is not None
            prev = max((x for x in m[:k] if x is not None), default=-1)
            owned = [x for x in u if prev < x <= at]
            starts.append(owned[-1] if owned else at)
        unit_offsets.append(int(statistics.median(starts)))
    return Workload(name, kind, expect, shape, records, fixed, tuple(offsets), tuple(unit_offsets), notes)


def build_pairs(name: str, seed: int) -> list[Pair]:
    """One workload's (original with markers, fix or places) records, before rendering."""
    fn = next(r[4] for r in REGISTRY if r[0] == name)
    # Each workload draws from its name and the seed only: adding one changes no other.
    return fn(random.Random(f"{seed}/h10/{name}"), Desk(random.Random(f"{seed}/h10/{name}/text"), TEAM_OF[name]))


def build_workloads(seed: int = 12, engine: Engine | None = None, only: Sequence[str] | None = None) -> list[Workload]:
    """Every workload of the tenth held-out set, deterministic for ``seed``, on cl100k ids."""
    engine = engine or harmony_engine()
    if engine.tok.name != TOKENIZER:
        raise ValueError(f"the tenth held-out set is measured in {TOKENIZER} tokens, not {engine.tok.name}")
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


def shuffled(rng: random.Random, items: Sequence[Any]) -> list[Any]:
    out = list(items)
    rng.shuffle(out)
    return out


def hourly(rng: random.Random, n: int, per: tuple[int, int]) -> list[int]:
    """Per request in arrival order, the index of the value in force (new every ``per`` requests)."""
    out: list[int] = []
    k = 0
    while len(out) < n:
        out += [k] * rng.randint(*per)
        k += 1
    return out[:n]


def dated(i: int, messages: list[dict[str, Any]], ts: float, tools: list[Any] | None = None) -> dict[str, Any]:
    """A chat whose template prints the date of ``ts``; its MARK sits after 'Current date: '."""
    rec = chat(i, messages, tools, ts)
    rec[HINT] = [DATE_HINT]
    return rec


def pinned(record: dict[str, Any]) -> dict[str, Any]:
    """The fix for a template date: no per-request clock, so the template prints one date."""
    return untimed(unhinted(record))


def harmony(instructions: str, question: str, date: str, history: Sequence[tuple[str, str]] = ()) -> str:
    """A raw harmony prompt as a team's own client writes it (its own date line, no tools)."""
    text = ("<|start|>system<|message|>You are ChatGPT, a large language model trained by OpenAI.\n"
            f"Knowledge cutoff: 2024-06\nCurrent date: {date}\n\nReasoning: low\n\n"
            "# Valid channels: analysis, commentary, final. Channel must be included for every message.<|end|>"
            f"<|start|>developer<|message|># Instructions\n\n{instructions}<|end|>")
    for q, a in history:
        text += f"<|start|>user<|message|>{q}<|end|><|start|>assistant<|channel|>final<|message|>{a}<|end|>"
    return text + f"<|start|>user<|message|>{question}<|end|><|start|>assistant"


def call(cid: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": "",
            "tool_calls": [{"id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}]}


def result(cid: str, content: Any) -> dict[str, Any]:
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    return {"role": "tool", "tool_call_id": cid, "content": text}


def day(ts: float) -> dt.datetime:
    return dt.datetime.fromtimestamp(ts, tz=dt.timezone.utc)


def sessions(rng: random.Random, d: Desk, count: tuple[int, int], turns: tuple[int, int]) -> list[list[tuple[str, str]]]:
    return [[(d.question(), d.answer()) for _ in range(rng.randint(*turns))] for _ in range(rng.randint(*count))]


def interleave(rng: random.Random, convs: list[list[tuple[str, str]]]) -> list[tuple[int, int]]:
    """(conversation, turn) in a random interleaving that keeps each conversation's turns in order."""
    progress = [0] * len(convs)
    out: list[tuple[int, int]] = []
    while any(progress[c] < len(convs[c]) for c in range(len(convs))):
        c = rng.choice([c for c in range(len(convs)) if progress[c] < len(convs[c])])
        out.append((c, progress[c]))
        progress[c] += 1
    return out


def history(conv: list[tuple[str, str]], k: int) -> list[dict[str, Any]]:
    msgs: list[dict[str, Any]] = []
    for q, a in conv[:k]:
        msgs += [user(q), assistant(a)]
    return msgs + [user(conv[k][0])]


def mark_first_tool(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Tools in a per-request order part at the first tool's description (its ``// `` line)."""
    out = json.loads(json.dumps(tools))
    out[0]["function"]["description"] = MARK + out[0]["function"]["description"]
    return out



# ---------------------------------------------------------------- the date the template prints


@workload("template-date-four-days-static-tools", "messages", ("dynamic",),
          "requests over four days with static tools: the template prints each request's date in its system "
          "turn, ~20 tokens in, ahead of 1.3k tokens of instructions and six tools", WIND)
def _date_tools(rng: random.Random, d: Desk) -> list[Pair]:
    system, tools = d.system(10), d.tools()
    out: list[Pair] = []
    for i, ts in enumerate(spread(rng, rng.randint(70, 95), 4)):
        rec = dated(i, [sys_msg(system), user(d.question())], ts, tools)
        out.append((rec, pinned(rec)))
    return out


@workload("template-date-sessions-three-days", "messages", ("dynamic",),
          "sessions of 1-5 turns over three days without tools: the printed date parts requests of different "
          "days, each session's turns fall on its own day", SIGN)
def _date_sessions(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(12)
    convs = sessions(rng, d, (16, 22), (1, 5))
    order = interleave(rng, convs)
    starts = {c: BASE_TIME + rng.uniform(0, 3 * 86400 - 7200) for c in range(len(convs))}
    times = sorted((starts[c] + 600.0 * k, c, k) for c, k in order)
    out: list[Pair] = []
    for i, (ts, c, k) in enumerate(times):
        rec = dated(i, [sys_msg(system)] + history(convs[c], k), ts)
        out.append((rec, pinned(rec)))
    return out


@workload("template-date-agent-loops-ids", "input_ids", ("dynamic",),
          "agent loops over five days as cl100k ids: the template's date line parts days; tools and "
          "instructions are static", LEAK)
def _date_loops(rng: random.Random, d: Desk) -> list[Pair]:
    system, tools = d.system(9), d.tools()
    out: list[Pair] = []
    i = 0
    for task, t0 in enumerate(spread(rng, rng.randint(18, 24), 5)):
        msgs: list[dict[str, Any]] = [sys_msg(system), user(d.question())]
        for step in range(rng.randint(1, 4)):
            rec = dated(i, json.loads(json.dumps(msgs)), t0 + 20.0 * step, tools)
            out.append((rec, pinned(rec)))
            i += 1
            cid = f"call_{task}_{step}"
            msgs.append(call(cid, "get_incident", {"incident_id": f"LK-{rng.randint(100000, 999999)}"}))
            msgs.append(result(cid, {"state": rng.choice(["crew en route", "awaiting permit", "excavating", "reinstated"]),
                                     "properties_off": rng.randint(0, 400)}))
    out.sort(key=lambda p: p[0]["timestamp"])
    return [({**o, "id": f"req-{n:05d}"}, {**f, "id": f"req-{n:05d}"}) for n, (o, f) in enumerate(out)]  # type: ignore[dict-item]


# ---------------------------------------------------------------- dynamic values


@workload("turbine-id-first-token-ids", "input_ids", ("dynamic",),
          "the turbine id opens the instructions ('SV-C14 · ...'), one per request, ahead of 1.6k tokens; "
          "cl100k ids", WIND)
def _turbine_first(rng: random.Random, d: Desk) -> list[Pair]:
    body = d.system(12)
    out: list[Pair] = []
    for i in range(rng.randint(50, 75)):
        tid = f"SV-{rng.choice('ABCDEF')}{rng.randint(1, 40):02d}"
        q = d.question()
        out.append((chat(i, [sys_msg(f"{MARK}{tid} · {body}"), user(q)]),
                    chat(i, [sys_msg(body), user(f"{q}\n\nTurbine: {tid}")])))
    return out


@workload("vault-snapshot-in-third-tool-description", "messages", ("dynamic",),
          "'Vault inventory as of 14:00' at the end of the third tool's description, a new hour every 4-9 "
          "requests in arrival order", SEED, (START_USER, END_USER))
def _vault_desc(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(8)
    n = rng.randint(60, 90)
    hours = hourly(rng, n, (4, 9))
    out: list[Pair] = []
    for i in range(n):
        tools = d.tools()
        stamp = f"{(6 + hours[i]) % 24:02d}:00"
        tools[2]["function"]["description"] += f" Vault inventory as of {MARK}{stamp}."
        q = d.question()
        note = f"Vault inventory as of {stamp}."
        out.append((chat(i, [sys_msg(system), user(q)], tools),
                    (chat(i, [sys_msg(system), user(f"{note}\n\n{q}")], d.tools()),
                     chat(i, [sys_msg(system), user(f"{q}\n\n{note}")], d.tools()))))
    return out


ZONES = ["Z01-Z08", "Z01-Z12", "Z03-Z12", "Z01-Z05, Z09", "Z02-Z10"]


@workload("open-zones-in-parameter-description", "messages", ("dynamic",),
          "the zones open now (5 settings) inside the description of find_riders' postcode parameter; "
          "a share of requests from an older client without it", COURIER, (START_USER, END_USER))
def _zones(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(9)
    out: list[Pair] = []
    for i in range(rng.randint(55, 85)):
        tools = d.tools()
        q = d.question()
        if rng.random() < 0.2:
            tools[0]["function"]["description"] = SKIP + tools[0]["function"]["description"]
            out.append((chat(i, [sys_msg(system), user(q)], tools), chat(i, [sys_msg(system), user(q)], d.tools())))
            continue
        z = rng.choice(ZONES)
        prop = tools[0]["function"]["parameters"]["properties"]["postcode"]
        prop["description"] += f"; zones open now: {MARK}{z}"
        note = f"Zones open now: {z}"
        out.append((chat(i, [sys_msg(system), user(q)], tools),
                    (chat(i, [sys_msg(system), user(f"{note}\n\n{q}")], d.tools()),
                     chat(i, [sys_msg(system), user(f"{q}\n\n{note}")], d.tools()))))
    return out


@workload("tonights-performances-as-enum", "messages", ("dynamic",),
          "find_seats' performance_id is a string enum of the performances on sale, which changes each day "
          "(4 days, untimed); printed as a TypeScript union", THEATRE, (START_USER, END_USER))
def _enum_day(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(9)
    out: list[Pair] = []
    for i, ts in enumerate(spread(rng, rng.randint(55, 80), 4)):
        k = int((ts - BASE_TIME) // 86400)
        perfs = [f"LYC-{1201 + k + j}{s}" for j in range(3) for s in ("M", "E")]
        tools = d.tools()
        spec = tools[0]["function"]["parameters"]["properties"]["performance_id"]
        spec["enum"] = perfs
        q = d.question()
        plain = d.tools()
        on_sale = "On sale: " + ", ".join(perfs)
        orig = untimed(chat(i, [sys_msg(system), user(q)], tools))
        # The union opens '"LYC-120' and parts at the first digit that differs.
        spec["enum"] = [MARK + perfs[0]] + perfs[1:]
        out.append((orig, (untimed(chat(i, [sys_msg(system), user(f"{on_sale}\n\n{q}")], plain)),
                           untimed(chat(i, [sys_msg(system), user(f"{q}\n\n{on_sale}")], plain)))))
    return out


@workload("booking-ref-deep-in-raw-harmony-prompt", "prompt", ("dynamic",),
          "a raw harmony prompt whose instructions carry 'Booking BK-48213 (client C-7731)' ~1.5k tokens in, "
          "ahead of 700 more tokens of instructions", SIGN)
def _raw_booking(rng: random.Random, d: Desk) -> list[Pair]:
    head, tail = d.system(11), "\n\n".join(d.section(h) for h in SIGN.headings[6:11])
    out: list[Pair] = []
    for i in range(rng.randint(45, 70)):
        ref = f"Booking BK-{rng.randint(10000, 99999)} (client C-{rng.randint(1000, 9999)})"
        q = d.question()
        out.append((prompt(i, harmony(f"{head}\n\nCurrent job: {MARK}{ref}\n\n{tail}", q, "2026-12-01")),
                    prompt(i, harmony(f"{head}\n\n{tail}", f"{q}\n\nCurrent job: {ref}", "2026-12-01"))))
    return out


@workload("dma-code-in-plain-prompt", "prompt", ("dynamic",),
          "a plain completion prompt: a one-line preamble, then the caller's district metered area (30 settings), "
          "then 1.2k tokens of triage rules", LEAK, (END_DEV, END_USER))
def _dma(rng: random.Random, d: Desk) -> list[Pair]:
    rules = d.system(9)
    dmas = [f"DMA-{c}{n:02d}" for c in "NSEW" for n in range(1, 9)][:30]
    out: list[Pair] = []
    for i in range(rng.randint(60, 90)):
        dma = rng.choice(dmas)
        q = d.question()
        out.append((prompt(i, f"LeakLine triage log\nArea: {MARK}{dma}\n\n{rules}\n\nCaller: {q}\nTriage:"),
                    (prompt(i, f"LeakLine triage log\n\n{rules}\n\nArea: {dma}\nCaller: {q}\nTriage:"),
                     prompt(i, f"LeakLine triage log\n\n{rules}\n\nCaller: {q}\nArea: {dma}\nTriage:"))))
    return out


@workload("vault-reading-in-priming-tool-result", "messages", ("dynamic",),
          "a canned priming exchange (get vault status) whose result holds a live temperature and humidity "
          "reading that changes every 2-5 requests", SEED, (START_USER, END_USER))
def _priming(rng: random.Random, d: Desk) -> list[Pair]:
    system, tools = d.system(8), d.tools()
    n = rng.randint(50, 80)
    slots = hourly(rng, n, (2, 5))
    readings = [(round(rng.uniform(-20.5, -17.5), 1), rng.randint(12, 18)) for _ in range(n)]
    out: list[Pair] = []
    for i in range(n):
        t, h = readings[slots[i]]
        q = d.question()

        def prime(live: bool, t: float = t, h: int = h) -> list[dict[str, Any]]:
            body = {"vault": "cold vault A", "drawers": 412, "alarm": "none"}
            if live:
                body["reading"] = f"{MARK}{t} °C, {h}% RH"
            return [user("Load the vault status."), call("prime0001", "find_drawer", {"lot_id": "status"}),
                    result("prime0001", body), assistant("Vault status loaded.")]
        reading = f"Vault reading: {t} °C, {h}% RH"
        out.append((chat(i, [sys_msg(system)] + prime(True) + [user(q)], tools),
                    (chat(i, [sys_msg(system)] + prime(False) + [user(f"{reading}\n\n{q}")], tools),
                     chat(i, [sys_msg(system)] + prime(False) + [user(f"{q}\n\n{reading}")], tools))))
    return unmark_live(out)


def unmark_live(pairs: list[Pair]) -> list[Pair]:
    """The fixes were built by the same helper: they must not carry markers."""
    return [(o, unmark(f)) for o, f in pairs]


@workload("icelandic-date-mid-instructions", "messages", ("dynamic",),
          "an Icelandic date line ('fimmtudagur 3. desember 2026') after the first third of the instructions, "
          "five days, untimed", BEES, (END_DEV, END_USER))
def _icelandic(rng: random.Random, d: Desk) -> list[Pair]:
    head, tail = d.system(4), "\n\n".join(d.section(h) for h in BEES.headings[4:12])
    out: list[Pair] = []
    for i, ts in enumerate(spread(rng, rng.randint(55, 85), 5)):
        t = day(ts)
        line = f"Dagsetning: {ICELANDIC_DAYS[t.weekday()]} {t.day}. {ICELANDIC_MONTHS[t.month - 1]} {t.year}"
        q = d.question()
        orig = untimed(chat(i, [sys_msg(f"{head}\n\n{line.replace(': ', ': ' + MARK, 1)}\n\n{tail}"), user(q)]))
        out.append((orig, (untimed(chat(i, [sys_msg(f"{head}\n\n{tail}\n\n{line}"), user(q)])),
                           untimed(chat(i, [sys_msg(f"{head}\n\n{tail}"), user(f"{q}\n\n{line}")])))))
    return out


@workload("welsh-day-line-opens-plain-prompt", "prompt", ("dynamic",),
          "a plain prompt that opens with a Welsh day line ('Dydd Mercher 2 Rhagfyr'), six days, ahead of "
          "1.4k tokens of booking rules", SIGN, (END_DEV, END_USER))
def _welsh(rng: random.Random, d: Desk) -> list[Pair]:
    rules = d.system(11)
    out: list[Pair] = []
    for i, ts in enumerate(spread(rng, rng.randint(50, 80), 6)):
        t = day(ts)
        line = f"{WELSH_DAYS[t.weekday()]} {t.day} Rhagfyr"
        q = d.question()
        out.append((prompt(i, f"{MARK}{line}\n{rules}\n\nRequest: {q}\nReply:", ts),
                    (prompt(i, f"{rules}\n\n{line}\nRequest: {q}\nReply:", ts),
                     prompt(i, f"{rules}\n\nRequest: {q}\n{line}\nReply:", ts))))
    return out


@workload("metocean-json-long-span", "messages", ("dynamic",),
          "a ~250-token pretty-printed metocean JSON (per request) between the first and second half of the "
          "instructions", WIND)
def _metocean(rng: random.Random, d: Desk) -> list[Pair]:
    head, tail = d.system(5), "\n\n".join(d.section(h) for h in WIND.headings[5:12])
    out: list[Pair] = []
    for i in range(rng.randint(45, 65)):
        fc = {"site": "Skerryvore", "issued": f"{rng.randint(0, 23):02d}:{rng.choice(['00', '30'])}Z",
              "hours": [{"h": h, "wind_ms": round(rng.uniform(3, 19), 1), "hs_m": round(rng.uniform(0.4, 3.1), 2),
                         "tp_s": round(rng.uniform(4, 11), 1), "vis_km": rng.randint(2, 20)} for h in range(0, 24, 4)]}
        blob = json.dumps(fc, indent=2)
        q = d.question()
        out.append((chat(i, [sys_msg(f"{head}\n\nForecast:\n{MARK}{blob}\n\n{tail}"), user(q)]),
                    chat(i, [sys_msg(f"{head}\n\n{tail}"), user(f"{q}\n\nForecast:\n{blob}")])))
    return out


@workload("rider-count-one-token-ids", "input_ids", ("dynamic",),
          "'Riders on shift: 14' (8-20) ~1k tokens into the instructions, 2.2k tokens in all; cl100k ids",
          COURIER, (END_DEV, END_USER))
def _riders(rng: random.Random, d: Desk) -> list[Pair]:
    head, tail = d.system(8), "\n\n".join(d.section(h) for h in COURIER.headings[4:12])
    out: list[Pair] = []
    for i in range(rng.randint(55, 85)):
        n = rng.randint(8, 20)
        q = d.question()
        out.append((chat(i, [sys_msg(f"{head}\n\nRiders on shift: {MARK}{n}\n\n{tail}"), user(q)]),
                    (chat(i, [sys_msg(f"{head}\n\n{tail}\n\nRiders on shift: {n}"), user(q)]),
                     chat(i, [sys_msg(f"{head}\n\n{tail}"), user(f"{q}\n\nRiders on shift: {n}")]))))
    return out


@workload("house-state-two-settings", "messages", ("dynamic",),
          "'Front of house: OPEN' or 'CLOSED' on the second line of the instructions", THEATRE, (END_DEV, END_USER))
def _house(rng: random.Random, d: Desk) -> list[Pair]:
    body = d.system(10)
    opening, rest = body.split("\n\n", 1)
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        state = rng.choice(["OPEN", "CLOSED"])
        q = d.question()
        out.append((chat(i, [sys_msg(f"{opening}\nFront of house: {MARK}{state}\n\n{rest}"), user(q)]),
                    (chat(i, [sys_msg(f"{body}\n\nFront of house: {state}"), user(q)]),
                     chat(i, [sys_msg(body), user(f"{q}\n\nFront of house: {state}")]))))
    return out


KO_CLIENTS = ["한빛물산", "서해해운", "청운건설", "미래바이오", "다온에너지", "가람식품", "누리텔레콤"]


@workload("korean-client-and-job-in-instructions", "messages", ("dynamic",),
          "'의뢰인: 청운건설 / Job TM-58213' ~300 tokens into the instructions, Portuguese and Korean clauses "
          "in the handbook", TM)
def _ko_client(rng: random.Random, d: Desk) -> list[Pair]:
    head = d.system(2)
    tail = "\n\n".join([d.section(h) for h in TM.headings[2:9]] + ["Reference clauses:\n" + "\n".join(
        f"- {p} / {k}" for p, k in zip(PT_CLAUSES, KO_CLAUSES))])
    out: list[Pair] = []
    for i in range(rng.randint(45, 70)):
        line = f"의뢰인: {rng.choice(KO_CLIENTS)} / Job TM-{rng.randint(10000, 99999)}"
        q = d.question()
        out.append((chat(i, [sys_msg(f"{head}\n\n{MARK}{line}\n\n{tail}"), user(q)]),
                    chat(i, [sys_msg(f"{head}\n\n{tail}"), user(f"{q}\n\n{line}")])))
    return out


@workload("three-values-one-sentence-prompt", "prompt", ("dynamic",),
          "a plain prompt: 'Case 48213 for Halvard Pumps AS, priority 2011-03-04, claim 7 of 12.' ~600 tokens "
          "in, the whole sentence varies", PATENT)
def _three(rng: random.Random, d: Desk) -> list[Pair]:
    head, tail = d.system(4), "\n\n".join(d.section(h) for h in PATENT.headings[4:11])
    firms = ["Halvard Pumps AS", "Kestrel Optics GmbH", "Ondina Valves SpA", "Tarn Robotics Ltd", "Meridian Hinge BV"]
    out: list[Pair] = []
    for i in range(rng.randint(50, 75)):
        n = rng.randint(4, 20)
        s = (f"Case {rng.randint(10000, 99999)} for {rng.choice(firms)}, priority {rng.randint(2004, 2022)}-"
             f"{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}, claim {rng.randint(1, n)} of {n}.")
        q = d.question()
        out.append((prompt(i, f"{head}\n\n{MARK}{s}\n\n{tail}\n\nTask: {q}\n"),
                    prompt(i, f"{head}\n\n{tail}\n\nTask: {q}\n{s}\n")))
    return out


EXAMINERS = ["A. Lindqvist", "M. Okafor", "P. Duarte", "S. Yamada", "R. Haddad", "J. Novak", "E. Moreau", "K. Brandt",
             "L. Ferreira", "T. Walsh", "H. Kim", "D. Rossi"]


@workload("examiner-3k-deep-ids", "input_ids", ("dynamic",),
          "the examiner's name (12 settings) ~3k tokens into a 3.4k-token instruction text; cl100k ids",
          PATENT, (END_DEV, END_USER))
def _examiner(rng: random.Random, d: Desk) -> list[Pair]:
    head = d.system(24)
    tail = "\n\n".join(d.section(h) for h in PATENT.headings[:3])
    out: list[Pair] = []
    for i in range(rng.randint(40, 60)):
        ex = rng.choice(EXAMINERS)
        q = d.question()
        out.append((chat(i, [sys_msg(f"{head}\n\nExaminer on file: {MARK}{ex}\n\n{tail}"), user(q)]),
                    (chat(i, [sys_msg(f"{head}\n\n{tail}\n\nExaminer on file: {ex}"), user(q)]),
                     chat(i, [sys_msg(f"{head}\n\n{tail}"), user(f"{q}\n\nExaminer on file: {ex}")]))))
    return out


@workload("crew-board-time-in-tool-description-loops", "messages", ("dynamic",),
          "agent loops whose dispatch_crew description ends 'crew board refreshed 09:41', new at each request",
          LEAK)
def _crew_board(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(8)
    out: list[Pair] = []
    i = 0
    for task in range(rng.randint(16, 22)):
        msgs: list[dict[str, Any]] = [sys_msg(system), user(d.question())]
        for step in range(rng.randint(1, 4)):
            ts = BASE_TIME + 53.0 * i
            tools = d.tools()
            tools[3]["function"]["description"] += f" Crew board refreshed {MARK}{clock(ts)[:5]}."
            fixed_msgs = json.loads(json.dumps(msgs))
            # The refresh time goes at the end of the question, the last user turn of the loop.
            last_user = max(k for k, m in enumerate(fixed_msgs) if m["role"] == "user")
            fixed_msgs[last_user]["content"] += f"\n\nCrew board refreshed {clock(ts)[:5]}."
            out.append((chat(i, json.loads(json.dumps(msgs)), tools, ts), chat(i, fixed_msgs, d.tools(), ts)))
            i += 1
            cid = f"call_{task}_{step}"
            msgs.append(call(cid, "check_supply", {"dma": f"DMA-N{rng.randint(1, 8):02d}"}))
            msgs.append(result(cid, {"planned": rng.randint(0, 3), "unplanned": rng.randint(0, 5)}))
    return out


# ---------------------------------------------------------------- order


@workload("prior-art-tools-shuffled", "messages", ("order",),
          "five search tools in a random order per request, printed as TypeScript after 1.2k tokens of "
          "instructions", PATENT)
def _tools_shuffled(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(9)
    names = list(PATENT.tools)
    out: list[Pair] = []
    for i in range(rng.randint(55, 85)):
        q = d.question()
        out.append((chat(i, [sys_msg(system), user(q)], mark_first_tool(d.tools(shuffled(rng, names)))),
                    chat(i, [sys_msg(system), user(q)], d.tools(names))))
    return out


@workload("leak-tools-shuffled-per-agent-task", "messages", ("order",),
          "agent loops of 1-4 steps: each task's client lists the tools in its own order, kept through the loop",
          LEAK)
def _tools_per_task(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(8)
    names = list(LEAK.tools)
    out: list[Pair] = []
    i = 0
    for task in range(rng.randint(16, 24)):
        order = shuffled(rng, names)
        msgs: list[dict[str, Any]] = [sys_msg(system), user(d.question())]
        for step in range(rng.randint(1, 4)):
            snap = json.loads(json.dumps(msgs))
            out.append((chat(i, snap, mark_first_tool(d.tools(order))), chat(i, snap, d.tools(names))))
            i += 1
            cid = f"call_{task}_{step}"
            msgs.append(call(cid, "get_incident", {"incident_id": f"LK-{rng.randint(100000, 999999)}"}))
            msgs.append(result(cid, {"state": rng.choice(["logged", "crew assigned", "on site", "closed"]),
                                     "eta_min": rng.randint(5, 240)}))
    return out


@workload("hive-tools-shuffled-ids", "input_ids", ("order",),
          "the co-op's five tools in a random order per request; cl100k ids", BEES)
def _bee_tools(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(8)
    names = list(BEES.tools)
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        q = d.question()
        out.append((chat(i, [sys_msg(system), user(q)], mark_first_tool(d.tools(shuffled(rng, names)))),
                    chat(i, [sys_msg(system), user(q)], d.tools(names))))
    return out


def _keys_shuffled(rng: random.Random, tool: dict[str, Any], mark: bool) -> dict[str, Any]:
    fn = tool["function"]
    props = fn["parameters"]["properties"]
    keys = shuffled(rng, list(props))
    new = {(MARK + k if mark and j == 0 else k): props[k] for j, k in enumerate(keys)}
    fn["parameters"]["properties"] = new
    fn["parameters"]["required"] = [(MARK + r if mark and r == keys[0] else r) for r in fn["parameters"]["required"]]
    return tool


@workload("booking-tool-parameter-keys-shuffled", "messages", ("order",),
          "the parameters of search_interpreters and create_booking in a per-request order (a client that builds "
          "the schema from a set)", SIGN)
def _param_keys(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(9)
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        tools = d.tools()
        _keys_shuffled(rng, tools[0], False)
        _keys_shuffled(rng, tools[1], False)
        # Mark where the first shuffled tool's parameter list opens: its first parameter's comment.
        first = next(iter(tools[0]["function"]["parameters"]["properties"].values()))
        first["description"] = MARK + first["description"]
        q = d.question()
        out.append((chat(i, [sys_msg(system), user(q)], tools), chat(i, [sys_msg(system), user(q)], d.tools())))
    return out


def _sections(d: Desk, heads: Sequence[str]) -> dict[str, str]:
    return {h: d.section(h) for h in heads}


@workload("box-office-sections-shuffled", "messages", ("order",),
          "the box-office handbook's twelve sections in a random order per request behind a static opening",
          THEATRE)
def _sec_shuffled(rng: random.Random, d: Desk) -> list[Pair]:
    secs = _sections(d, THEATRE.headings)
    opening = d.opening()
    canon = "\n\n".join(secs[h] for h in THEATRE.headings)
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        body = "\n\n".join(secs[h] for h in shuffled(rng, THEATRE.headings))
        q = d.question()
        out.append((chat(i, [sys_msg(f"{opening}\n\n{UNIT}## {MARK}{body[3:]}"), user(q)]),
                    chat(i, [sys_msg(f"{opening}\n\n{canon}"), user(q)])))
    return out


@workload("seed-sections-shuffled-plain-prompt", "prompt", ("order",),
          "a plain prompt: eight seed-bank sections in one of eight rotations, then the question", SEED)
def _seed_rot(rng: random.Random, d: Desk) -> list[Pair]:
    heads = list(SEED.headings[:8])
    secs = _sections(d, heads)
    out: list[Pair] = []
    for i in range(rng.randint(55, 85)):
        r = rng.randrange(8)
        body = "\n\n".join(secs[h] for h in heads[r:] + heads[:r])
        q = d.question()
        out.append((prompt(i, f"Seed bank handbook\n\n{UNIT}## {MARK}{body[3:]}\n\nQuestion: {q}\nAnswer:"),
                    prompt(i, "Seed bank handbook\n\n" + "\n\n".join(secs[h] for h in heads) + f"\n\nQuestion: {q}\nAnswer:")))
    return out


@workload("dispatch-rule-bullets-shuffled-ids", "input_ids", ("order",),
          "28 dispatch rule bullets in a per-request order after ~700 static tokens; cl100k ids", COURIER)
def _bullets(rng: random.Random, d: Desk) -> list[Pair]:
    head = d.system(5)
    rules = d.rules(28)
    tail = d.section("Radio etiquette")
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        order = shuffled(rng, rules)
        bullets = "\n".join(f"- {r}" for r in order)
        q = d.question()
        out.append((chat(i, [sys_msg(f"{head}\n\nDispatch rules:\n{UNIT}- {MARK}{bullets[2:]}\n\n{tail}"), user(q)]),
                    chat(i, [sys_msg(f"{head}\n\nDispatch rules:\n" + "\n".join(f"- {r}" for r in rules) + f"\n\n{tail}"),
                             user(q)])))
    return out


@workload("pt-ko-fewshot-pairs-rotated", "messages", ("order",),
          "six Portuguese-to-Korean few-shot user/assistant pairs after the instructions, in one of six rotations",
          TM)
def _fewshot(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(8)
    shots = [(f"Traduza para coreano: {p}", k) for p, k in zip(PT_CLAUSES, KO_CLAUSES)]
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        r = rng.randrange(6)
        rot = shots[r:] + shots[:r]
        msgs = [sys_msg(system)]
        for j, (q, a) in enumerate(rot):
            msgs += [user((MARK if j == 0 else "") + q), assistant(a)]
        fixed = [sys_msg(system)]
        for q, a in shots:
            fixed += [user(q), assistant(a)]
        q = f"Traduza para coreano: {rng.choice(PT_CLAUSES)[:-1]}, salvo acordo em contrário."
        out.append((chat(i, msgs + [user(q)]), chat(i, fixed + [user(q)])))
    return out


@workload("ko-pt-glossary-shuffled-prompt", "prompt", ("order",),
          "a raw harmony prompt whose instructions end with a 40-line Korean/Portuguese glossary in a "
          "per-request order", TM)
def _glossary(rng: random.Random, d: Desk) -> list[Pair]:
    body = d.system(7)
    ko = ["계약", "임대인", "임차인", "위임장", "공증", "관할", "손해배상", "해지", "양도", "보증금", "이자", "채무", "채권",
          "등기", "법인", "대표이사", "주주총회", "정관", "합의", "소송"]
    pt = ["contrato", "senhorio", "arrendatário", "procuração", "notarização", "foro", "indemnização", "resolução",
          "cessão", "caução", "juros", "dívida", "crédito", "registo", "pessoa colectiva", "administrador",
          "assembleia geral", "estatutos", "acordo", "acção judicial"]
    lines = [f"{k} = {p}" for k, p in zip(ko, pt)] + [f"{p} (pt-PT) ≠ {p.replace('cç', 'ç')} (pt-BR): {k}"
                                                     for k, p in zip(ko, pt)]
    out: list[Pair] = []
    for i in range(rng.randint(45, 70)):
        order = shuffled(rng, lines)
        q = d.question()
        gl = "\n".join(order)
        out.append((prompt(i, harmony(f"{body}\n\nGlossary:\n{MARK}{gl}", q, "2026-12-02")),
                    prompt(i, harmony(f"{body}\n\nGlossary:\n" + "\n".join(lines), q, "2026-12-02"))))
    return out


@workload("isolation-enum-values-shuffled", "messages", ("order",),
          "raise_permit's isolation parameter as a string enum whose values come in a per-request order "
          "(printed as a TypeScript union)", WIND)
def _enum_order(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(9)
    values = ["electrical", "mechanical", "hydraulic", "pneumatic", "confined-space", "working-at-height"]
    out: list[Pair] = []
    for i in range(rng.randint(50, 75)):
        tools, fixed = d.tools(), d.tools()
        order = shuffled(rng, values)
        tools[4]["function"]["parameters"]["properties"]["isolation"]["enum"] = [MARK + order[0]] + order[1:]
        fixed[4]["function"]["parameters"]["properties"]["isolation"]["enum"] = values
        q = d.question()
        out.append((chat(i, [sys_msg(system), user(q)], tools), chat(i, [sys_msg(system), user(q)], fixed)))
    return out


# ---------------------------------------------------------------- placement


@workload("prior-art-abstracts-ahead-of-instructions", "messages", ("placement",),
          "three retrieved abstracts (~400 tokens) open the system message ahead of 1.4k tokens of search "
          "instructions", PATENT, (END_DEV, END_USER))
def _abstracts(rng: random.Random, d: Desk) -> list[Pair]:
    body = d.system(11)
    out: list[Pair] = []
    for i in range(rng.randint(50, 75)):
        docs = "\n\n".join(f"EP{rng.randint(1000000, 3999999)}A1: {d.paragraph(rng.randint(3, 5))}" for _ in range(3))
        q = d.question()
        out.append((chat(i, [sys_msg(f"{MARK}Retrieved:\n{docs}\n\n{body}"), user(q)]),
                    (chat(i, [sys_msg(f"{body}\n\nRetrieved:\n{docs}"), user(q)]),
                     chat(i, [sys_msg(body), user(f"Retrieved:\n{docs}\n\n{q}")]))))
    return out


@workload("client-history-ahead-of-handbook-sessions", "messages", ("placement",),
          "sessions of 1-6 turns whose system message opens with the client's booking history (~150 tokens) "
          "ahead of the 1.5k-token handbook", SIGN)
def _client_hist(rng: random.Random, d: Desk) -> list[Pair]:
    handbook = d.system(11)
    convs = sessions(rng, d, (14, 20), (1, 6))
    summaries = [f"Client C-{rng.randint(1000, 9999)}: " + d.paragraph(rng.randint(2, 4)) for _ in convs]
    out: list[Pair] = []
    for i, (c, k) in enumerate(interleave(rng, convs)):
        h = history(convs[c], k)
        out.append((chat(i, [sys_msg(f"{MARK}{summaries[c]}\n\n{handbook}")] + h),
                    chat(i, [sys_msg(f"{handbook}\n\n{summaries[c]}")] + h)))
    return out


@workload("account-record-ahead-of-rules-ids", "input_ids", ("placement",),
          "the customer's account record (5-8 lines) opens the instructions ahead of 1.3k tokens of rules and "
          "five static tools; cl100k ids", LEAK, (START_USER, END_USER))
def _account(rng: random.Random, d: Desk) -> list[Pair]:
    rules, tools = d.system(10), d.tools()
    out: list[Pair] = []
    for i in range(rng.randint(50, 75)):
        fields = [f"Account: {rng.randint(10**7, 10**8)}", f"Address: {rng.randint(1, 200)} {rng.choice(['Mill Lane', 'Fore Street', 'Kiln Row'])}",
                  f"DMA: DMA-{rng.choice('NSEW')}{rng.randint(1, 8):02d}", f"PSR: {rng.choice(['yes, dialysis', 'no', 'yes, infant'])}",
                  f"Meter: {rng.choice(['smart', 'dumb', 'none'])}", f"Open incidents: {rng.randint(0, 3)}",
                  f"Last contact: {rng.randint(1, 28)} Nov"][:rng.randint(5, 7)]
        rec = "\n".join(fields)
        q = d.question()
        out.append((chat(i, [sys_msg(f"{MARK}{rec}\n\n{rules}"), user(q)], tools),
                    (chat(i, [sys_msg(rules), user(f"{rec}\n\n{q}")], tools),
                     chat(i, [sys_msg(rules), user(f"{q}\n\n{rec}")], tools))))
    return out


@workload("inspection-report-ahead-raw-harmony", "prompt", ("placement",),
          "a raw harmony prompt whose developer turn opens with a per-request inspection report (~300 tokens) "
          "ahead of 1.5k tokens of instructions", WIND)
def _inspection(rng: random.Random, d: Desk) -> list[Pair]:
    body = d.system(11)
    out: list[Pair] = []
    for i in range(rng.randint(45, 70)):
        rep = f"Inspection SV-{rng.choice('ABCDEF')}{rng.randint(1, 40):02d}:\n{d.paragraph(rng.randint(5, 9))}"
        q = d.question()
        out.append((prompt(i, harmony(f"{MARK}{rep}\n\n{body}", q, "2026-12-01")),
                    prompt(i, harmony(body, f"{rep}\n\n{q}", "2026-12-01"))))
    return out


@workload("notes-user-turn-ahead-of-system-message", "messages", ("placement",),
          "the client sends the keeper's notes as a user turn first and the system message second: the template "
          "then has no developer turn and prints the instructions as a plain system turn after the notes", BEES)
def _notes_first(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(10)
    out: list[Pair] = []
    for i in range(rng.randint(50, 75)):
        notes = f"Hive H{rng.randint(1, 90):02d} notes: {d.paragraph(rng.randint(2, 4))}"
        q = d.question()
        out.append((chat(i, [user(MARK + notes), sys_msg(system), user(q)]),
                    chat(i, [sys_msg(system), user(f"{notes}\n\n{q}")])))
    return out


# ---------------------------------------------------------------- several defects


@workload("template-date-and-courier-tools-shuffled", "messages", ("dynamic", "order"),
          "requests over three days (the template's date) and six tools in a random order per request", COURIER)
def _date_and_tools(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(9)
    names = list(COURIER.tools)
    out: list[Pair] = []
    for i, ts in enumerate(spread(rng, rng.randint(60, 90), 3)):
        q = d.question()
        rec = dated(i, [sys_msg(system), user(q)], ts, mark_first_tool(d.tools(shuffled(rng, names))))
        out.append((rec, untimed(chat(i, [sys_msg(system), user(q)], d.tools(names)))))
    return out


@workload("show-notes-ahead-and-performance-code", "messages", ("placement", "dynamic"),
          "retrieved show notes open the system message; a performance code sits ~1k tokens later in the "
          "instructions", THEATRE)
def _notes_and_code(rng: random.Random, d: Desk) -> list[Pair]:
    head, tail = d.system(7), "\n\n".join(d.section(h) for h in THEATRE.headings[7:12])
    out: list[Pair] = []
    for i in range(rng.randint(50, 75)):
        notes = f"Show notes: {d.paragraph(rng.randint(2, 4))}"
        code = f"LYC-{rng.randint(1000, 9999)}{rng.choice('ME')}"
        q = d.question()
        out.append((chat(i, [sys_msg(f"{MARK}{notes}\n\n{head}\n\nPerformance: {MARK}{code}\n\n{tail}"), user(q)]),
                    chat(i, [sys_msg(f"{head}\n\n{tail}"), user(f"{notes}\n\n{q}\n\nPerformance: {code}")])))
    return out


@workload("apiary-sections-shuffled-and-template-date", "messages", ("dynamic", "order"),
          "requests over four days (the template's date) and the co-op handbook's sections in a random order",
          BEES)
def _sec_date(rng: random.Random, d: Desk) -> list[Pair]:
    secs = _sections(d, BEES.headings[:10])
    opening = d.opening()
    canon = "\n\n".join(secs[h] for h in BEES.headings[:10])
    out: list[Pair] = []
    for i, ts in enumerate(spread(rng, rng.randint(55, 80), 4)):
        body = "\n\n".join(secs[h] for h in shuffled(rng, BEES.headings[:10]))
        q = d.question()
        rec = dated(i, [sys_msg(f"{opening}\n\n{UNIT}## {MARK}{body[3:]}"), user(q)], ts)
        out.append((rec, untimed(chat(i, [sys_msg(f"{opening}\n\n{canon}"), user(q)]))))
    return out


@workload("tool-snapshot-and-parameter-keys-shuffled", "messages", ("order", "dynamic"),
          "record_germination's parameters in a per-request order, and a germination-room reading in "
          "plan_regeneration's description, new every 3-6 requests", SEED)
def _keys_and_snapshot(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(8)
    n = rng.randint(55, 80)
    slots = hourly(rng, n, (3, 6))
    out: list[Pair] = []
    for i in range(n):
        tools = d.tools()
        _keys_shuffled(rng, tools[1], False)
        first = next(iter(tools[1]["function"]["parameters"]["properties"].values()))
        first["description"] = MARK + first["description"]
        reading = f"room B at {18 + slots[i] % 7}.{slots[i] % 10} °C"
        tools[3]["function"]["description"] += f" Germination {MARK}{reading}."
        q = d.question()
        out.append((chat(i, [sys_msg(system), user(q)], tools),
                    chat(i, [sys_msg(system), user(f"Germination {reading}.\n\n{q}")], d.tools())))
    return out


@workload("hive-weight-in-canned-assistant-greeting", "messages", ("dynamic",),
          "the app opens every chat with a canned assistant greeting that quotes the scale hive's weight, new "
          "every 3-7 requests; the greeting sits after the instructions and the user's hello", BEES,
          (END_DEV, END_USER))
def _greeting(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(10)
    n = rng.randint(55, 85)
    slots = hourly(rng, n, (3, 7))
    out: list[Pair] = []
    for i in range(n):
        kg = f"{38 + slots[i] * 0.35:.2f} kg"
        q = d.question()
        hello = user("Hello")
        greet = "Good day from the co-op. The scale hive weighs "
        out.append((chat(i, [sys_msg(system), hello, assistant(f"{greet}{MARK}{kg} this hour."), user(q)]),
                    (chat(i, [sys_msg(f"{system}\n\nScale hive: {kg}"), hello, assistant("Good day from the co-op."), user(q)]),
                     chat(i, [sys_msg(system), hello, assistant("Good day from the co-op."), user(f"{q}\n\nScale hive: {kg}")]))))
    return out


TURKISH_WEATHER = ["Hava: yağmurlu, 9 °C", "Hava: açık, 14 °C", "Hava: rüzgârlı, 11 °C", "Hava: sisli, 7 °C",
                   "Hava: karlı, 1 °C", "Hava: bulutlu, 12 °C"]


@workload("turkish-weather-line-raw-harmony", "prompt", ("dynamic",),
          "a raw harmony prompt (a courier firm's Istanbul branch): a Turkish weather line (6 settings) after "
          "the first third of the instructions", COURIER, (END_DEV, END_USER))
def _weather(rng: random.Random, d: Desk) -> list[Pair]:
    head, tail = d.system(4), "\n\n".join(d.section(h) for h in COURIER.headings[4:12])
    out: list[Pair] = []
    for i in range(rng.randint(50, 75)):
        w = rng.choice(TURKISH_WEATHER)
        q = rng.choice(TURKISH_ASKS).format(n=rng.randint(10000, 99999), k=rng.randint(2, 40))
        out.append((prompt(i, harmony(f"{head}\n\n{w.replace(': ', ': ' + MARK)}\n\n{tail}", q, "2026-12-01")),
                    (prompt(i, harmony(f"{head}\n\n{tail}\n\n{w}", q, "2026-12-01")),
                     prompt(i, harmony(f"{head}\n\n{tail}", f"{q}\n\n{w}", "2026-12-01")))))
    return out


@workload("as-of-hour-in-priming-call-arguments-ids", "input_ids", ("dynamic",),
          "a canned priming tool call whose arguments carry the hour ('as_of'), new every 4-8 requests, ahead of "
          "its static result and the question; cl100k ids", SEED, (START_USER, END_USER))
def _as_of(rng: random.Random, d: Desk) -> list[Pair]:
    system, tools = d.system(9), d.tools()
    n = rng.randint(55, 85)
    slots = hourly(rng, n, (4, 8))
    out: list[Pair] = []
    for i in range(n):
        hour = f"2026-11-30T{(5 + slots[i]) % 24:02d}:00Z"
        q = d.question()

        def prime(args: dict[str, Any]) -> list[dict[str, Any]]:
            return [user("Load the regeneration list."), call("prime0002", "find_drawer", args),
                    result("prime0002", {"drawers_due": 17, "next_audit": "2027-01-15"}), assistant("List loaded.")]
        orig = chat(i, [sys_msg(system)] + prime({"lot_id": "regen", "as_of": hour}) + [user(q)], tools)
        orig[HINT] = ['"as_of": "']
        out.append((orig, (chat(i, [sys_msg(system)] + prime({"lot_id": "regen"}) + [user(f"As of {hour}.\n\n{q}")], tools),
                           chat(i, [sys_msg(system)] + prime({"lot_id": "regen"}) + [user(f"{q}\n\nAs of {hour}.")], tools))))
    return out


@workload("template-date-and-abstracts-ahead", "messages", ("dynamic", "placement"),
          "requests over three days (the template's date) whose system message opens with two retrieved "
          "abstracts ahead of the search instructions", PATENT)
def _date_abstracts(rng: random.Random, d: Desk) -> list[Pair]:
    body = d.system(10)
    out: list[Pair] = []
    for i, ts in enumerate(spread(rng, rng.randint(50, 75), 3)):
        docs = "\n\n".join(f"US{rng.randint(7000000, 11999999)}B2: {d.paragraph(rng.randint(2, 4))}" for _ in range(2))
        q = d.question()
        rec = dated(i, [sys_msg(f"{MARK}Retrieved:\n{docs}\n\n{body}"), user(q)], ts)
        out.append((rec, untimed(chat(i, [sys_msg(f"{body}\n\nRetrieved:\n{docs}"), user(q)]))))
    return out


# ---------------------------------------------------------------- clean controls


@workload("clean-leak-agent-loops-one-day", "messages", (),
          "agent loops of 1-5 steps with static tools, all within one day (the printed date never changes)", LEAK)
def _c_loops(rng: random.Random, d: Desk) -> list[Pair]:
    system, tools = d.system(9), d.tools()
    out: list[Pair] = []
    i = 0
    for task in range(rng.randint(16, 22)):
        msgs: list[dict[str, Any]] = [sys_msg(system), user(d.question())]
        for step in range(rng.randint(1, 5)):
            rec = chat(i, json.loads(json.dumps(msgs)), tools, BASE_TIME + 30.0 * i)
            out.append((rec, rec))
            i += 1
            cid = f"call_{task}_{step}"
            name = rng.choice(["get_incident", "check_supply"])
            args = {"incident_id": f"LK-{rng.randint(100000, 999999)}"} if name == "get_incident" else {"dma": f"DMA-S{rng.randint(1, 8):02d}"}
            msgs.append(call(cid, name, args))
            msgs.append(result(cid, {"ok": True, "detail": d.rule(), "checked": clock(BASE_TIME + 30.0 * i)}))
    return out


@workload("clean-interpreting-sessions", "messages", (),
          "growing sessions of 1-7 turns, interleaved, within one day", SIGN)
def _c_sessions(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(10)
    convs = sessions(rng, d, (14, 20), (1, 7))
    out: list[Pair] = []
    for i, (c, k) in enumerate(interleave(rng, convs)):
        rec = chat(i, [sys_msg(system)] + history(convs[c], k))
        out.append((rec, rec))
    return out


@workload("clean-prior-art-rag-question-last", "messages", (),
          "static instructions, then retrieved abstracts and the question in the user turn", PATENT)
def _c_rag(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(10)
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        docs = "\n\n".join(f"EP{rng.randint(1000000, 3999999)}A1: {d.paragraph(3)}" for _ in range(3))
        rec = chat(i, [sys_msg(system), user(f"Retrieved:\n{docs}\n\nQuestion: {d.question()}")])
        out.append((rec, rec))
    return out


@workload("clean-static-tools-one-day-ids", "input_ids", (),
          "static tools and instructions, timestamps within one UTC day; cl100k ids", WIND)
def _c_tools(rng: random.Random, d: Desk) -> list[Pair]:
    system, tools = d.system(10), d.tools()
    out: list[Pair] = []
    for i, ts in enumerate(spread(rng, rng.randint(50, 80), 0.9)):
        rec = chat(i, [sys_msg(system), user(d.question())], tools, ts)
        out.append((rec, rec))
    return out


@workload("clean-box-office-and-apiary-one-endpoint", "messages", (),
          "the box office and the beekeepers' co-op on one endpoint, each with its own static instructions",
          THEATRE)
def _c_two(rng: random.Random, d: Desk) -> list[Pair]:
    other = Desk(random.Random(rng.random()), BEES)
    a, b = d.system(9), other.system(9)
    out: list[Pair] = []
    for i in range(rng.randint(55, 85)):
        rec = (chat(i, [sys_msg(a), user(d.question())]) if rng.random() < 0.5
               else chat(i, [sys_msg(b), user(other.question())]))
        out.append((rec, rec))
    return out


@workload("clean-job-id-at-end-with-tools", "messages", (),
          "static tools; the question ends with the job id and a Turkish note from the rider", COURIER)
def _c_end(rng: random.Random, d: Desk) -> list[Pair]:
    system, tools = d.system(9), d.tools()
    out: list[Pair] = []
    for i in range(rng.randint(55, 85)):
        note = rng.choice(TURKISH_ASKS).format(n=rng.randint(10000, 99999), k=rng.randint(2, 40))
        rec = chat(i, [sys_msg(system), user(f"{d.question()}\n\n{note} [job {rng.randint(100000, 999999)}]")], tools)
        out.append((rec, rec))
    return out


@workload("clean-static-raw-harmony-prompt", "prompt", (),
          "a static raw harmony prompt with one date line and a fresh question per request", SEED)
def _c_raw(rng: random.Random, d: Desk) -> list[Pair]:
    body = d.system(11)
    out: list[Pair] = []
    for i in range(rng.randint(45, 70)):
        rec = prompt(i, harmony(body, d.question(), "2026-12-01"))
        out.append((rec, rec))
    return out


@workload("clean-multilingual-memory-ids", "input_ids", (),
          "a static Portuguese/Korean translation-memory prompt; the segment to translate varies; cl100k ids", TM)
def _c_ml(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(9) + "\n\nReference clauses:\n" + "\n".join(f"- {p} / {k}" for p, k in zip(PT_CLAUSES, KO_CLAUSES))
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        seg = rng.choice(PT_CLAUSES + KO_CLAUSES)
        rec = chat(i, [sys_msg(system), user(f"Segmento {rng.randint(1, 400)}: {seg}")])
        out.append((rec, rec))
    return out


@workload("clean-memory-tools-static", "messages", (),
          "the translation memory's static tools and instructions; per-request segments and job numbers last", TM)
def _c_tm(rng: random.Random, d: Desk) -> list[Pair]:
    system, tools = d.system(8), d.tools()
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        rec = chat(i, [sys_msg(system), user(f"{d.question()}\n\nJob TM-{rng.randint(10000, 99999)}")], tools)
        out.append((rec, rec))
    return out


assert len(TEAMS) == 9
