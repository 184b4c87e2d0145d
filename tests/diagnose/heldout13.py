"""Thirteenth held-out diagnosis set: a Command R style tool-use chat template, served by SGLang.

Written blind to the detector (advisor/diagnose, advisor/prescribe, the zoo, its shapes and its
tests were not read): DESIGN.md's traffic formats and the rendering advisor/ingest does were
used. Every record is what ``advisor analyze --chat-template tests/chat_templates/command_r.jinja``
reads (``ANALYZE_ARGS``, which the bench passes to every ``analyze``, ``prescribe`` and ``render``
run of this set; the engine is SGLang, the default, and the tokenizer Llama 3's, which knows none
of the template's turn markers as special tokens, so they are encoded as text, the same for the
oracle and for ``analyze``). The layout, as advisor's ingest path renders it (checked by the
tests, not assumed): the BOS, then ONE system turn holding a fixed safety and system preamble
(~70 tokens), ``# User Preamble`` and the first system message's text (not trimmed; the
template's own default task text when the request has no system message), then, with tools,
``## Available Tools`` and each tool as a python signature in a code fence: ``def name(p1: str,
p2: int) -> List[Dict]:`` with the tool's description as its docstring. Only parameter NAMES (in
the order the request's dict has them) and types are printed: a parameter's description, enum or
default never reaches the prompt. Then every later message in its own turn, content trimmed: a
later system message as a SYSTEM turn where it stands, a tool call as ``Action: ```json [...]```
with the arguments SGLang parsed and the template re-dumps, a tool result as a SYSTEM turn
``<results>...</results>``; SGLang joins text content parts with spaces. So with tools anything
per-request in the system text parts every request ahead of the whole tool block. Token-id records
hold Llama 3 ids of that rendering; prompt records hold raw Command R markup a team's own client
writes (``cr``: the same text the template gives for a one-turn chat; the engine adds the BOS) or
plain completion prompts.

The machinery is the first set's (heldout.py: MARK and UNIT, Engine, the brute-force oracle) with
this set's renderer, a SKIP marker (a request without the defect) and a UNIT_HINT (rendered text
the start of a unit follows, where that start is text the template writes). The text comes from
heldout13_text.py: a mountain observatory's telescope-time desk, a philatelic auction house's
lot-description desk, a wildfire dispatch centre, a cheese-ageing cave, a satellite ground
station's pass scheduler, a typeface foundry's licensing desk, a seismic network's bulletin desk
and a green-coffee importer's cupping lab; Georgian, Catalan, Romanian, Tamil, Tagalog and Estonian
lines. 46 defect workloads (24 messages, 9 prompt, 13 token-id logs; 6 with 2-3 defects) and 11
clean controls. The logs are noisy: 20 to 100 requests, sessions of 1 to 7 turns, agent loops of
2-5 steps, questions of varied length, requests without the defect (offsets are medians over the
requests that carry it); system texts of ~1k to ~3.4k tokens; defects from the first token after
the BOS to ~2.8k tokens deep.

Shapes. Dynamic values: a proposal line as the first text after ``# User Preamble`` (ids, 10%
without one); an hourly seeing reading in a tool docstring; a red-flag status (3 settings) mid
system text; a lot line opening a second system turn (ids); the next acquisition time in a canned
priming tool result; the hour in a canned call's arguments; the latest event in a canned first
chatbot turn, every few requests (ids); a Tamil date line (4 days) in a raw Command R prompt; a
licensee line ahead of a static checklist in the user turn; the Moon on the first line of a plain
prompt (5 nights); a Catalan wind line ~2.8k tokens deep, hourly (ids); a live exchange rate deep
in a raw prompt; two-line orbit elements mid system text ahead of the tools; a ~250-token station
health table, every few requests (ids); a retrieval clock in a documents system turn; a one-token
count (9 settings, ids); a channel (2 settings) in a 3.3k-token system text; a desk clock in the
system text of growing sessions; initials written twice, in the system text and a tool docstring;
an 'age_s' field a client re-computes in earlier tool results of agent loops; a grader's name in
a canned few-shot answer (8 settings, ids); a Romanian batch line in a raw prompt. Order: six
tool signatures; a signature's parameter names; handbook sections (ids); reference documents in a
second system turn; few-shot turns in four rotations; licence bullets in a plain prompt; Estonian
glossary lines (ids); the keys of a canned tool result; a tool order drawn once per session;
table rows in a raw prompt; three system messages in rotation, whichever comes first being the
preamble's text (ids). Placement: felt reports as the first system message ahead of the
instructions in a second; an observer profile ahead of the rules (ids); instructions re-sent as a
system turn after the history of sessions without a first system message; a spot report ahead of
the instructions in a plain prompt; a pasted brief part ahead of a static checklist part; a lookup
exchange ahead of rules sent as a later system message; a daily bulletin (3 days, ids) ahead of
the manual; an offer sheet a raw prompt's client writes ahead of the preamble itself. Several
defects: a proposal line plus shuffled tools; pass reports first plus an hourly Kp in a tool
docstring; shuffled sections plus a sample id in a raw prompt; a caller profile first, a shift
(3 settings) and a signature's parameters shuffled; a sale day (3 days) plus rotated few-shot
turns (ids). Controls: static tools with a docket last, growing sessions with static tools, agent
loops with stable signatures, a per-request value in a parameter description and a per-request
enum (both dropped by the template: tempting in the request, absent from the prompt), retrieved
documents after the instructions, a static raw prompt, two desks on one endpoint (ids), a shift
(3 settings) opening the user turn after the tools, no system message (the template's default)
with static tools, a date that changes once (ids).

Truth: the oracle's hit rate over Llama 3 ids on the traffic after the ideal fix written here. A
value with many settings goes to the end of the last user turn (a prompt: after the question); a
value with few settings, or many in arrival order, right after the content all requests share:
the end of the system text without tools, the start of the first user turn with tools (they
follow the system text), the start of the last user turn behind a canned exchange; order fixes
use one canonical order; placement fixes put the shared content first and the per-request content
after it (in sessions: the instructions as the first system message). A request without the
defect is its own fix. Where two places are plausible the generator writes both (``PLACES``) and
the truth is the better measured one; the tests check the choice for four of them.
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
    BASE_TIME, MARK, UNIT, Engine, Workload, assistant, chat, clock, oracle, prompt, registering, spread, sys_msg,
    untimed, user,
)
from tests.diagnose.heldout13_text import (
    CHEESE, COFFEE, FOUNDRY, GROUND, OBSERVATORY, SEISMO, STAMPS, TEAMS, WILDFIRE, Team, Writer,
)

TOKENIZER = "llama3"
TEMPLATE = Path(__file__).resolve().parents[1] / "chat_templates" / "command_r.jinja"
# What `advisor analyze`, `prescribe` and `render` are given for this set's traffic (run from the
# checkout's root, as the bench and the tests run it).
ANALYZE_ARGS = ("--chat-template", "tests/chat_templates/command_r.jinja")

SKIP = "\ue002"  # this request lacks the defect that would be here
# Rendered text a UNIT follows, for a unit that starts in text the template writes itself.
UNIT_HINT = "_unit_after"
Fix = dict[str, Any] | tuple[dict[str, Any], ...]  # one fix, or the plausible places in PLACES order
Pair = tuple[dict[str, Any], Fix]
Builder = Callable[[random.Random, Writer], list[Pair]]
REGISTRY: list[tuple[str, str, tuple[str, ...], str, Builder, str]] = []
TEAM_OF: dict[str, Team] = {}
PLACES: dict[str, tuple[str, ...]] = {}
CHOSEN: dict[str, tuple[int, tuple[float, ...]]] = {}  # name -> (index of the truth's place, each place's rate)
_register = registering(REGISTRY)

END_SYSTEM = "end of the system text"
START_USER = "start of the first user turn, after the tools"
START_LAST = "start of the last user turn, after the shared exchange"
END_USER = "end of the last user turn"

TOOLS_HEAD = "Here is a list of tools that you have available to you:\n\n"  # the template's, ahead of the first tool


def workload(name: str, kind: str, expect: tuple[str, ...], shape: str, team: Team,
             places: tuple[str, ...] = (), notes: str = "") -> Callable[[Any], Any]:
    TEAM_OF[name] = team
    if places:
        PLACES[name] = places
    return _register(name, kind, expect, shape, notes)


# ---------------------------------------------------------------- Command R rendering and marking


def command_r_render() -> Callable[[dict[str, Any]], str]:
    """This checkout's rendering as `advisor analyze` with ANALYZE_ARGS sets it up (SGLang, the
    default engine; Llama 3's tokenizer, whose BOS the template writes first)."""
    renderer = make_renderer(TOKENIZER, TEMPLATE, None, [])

    def render(record: dict[str, Any]) -> str:
        text = renderer.text_of(parse_record(record, "heldout13", 1))
        assert text is not None
        return text
    return render


def command_r_engine(render: Callable[[dict[str, Any]], str] | None = None) -> Engine:
    """An Engine with the Llama 3 tokenizer and the Command R template (or ``render``, the bench's
    rendering by the checkout under test with ANALYZE_ARGS)."""
    return Engine(render or command_r_render(), load_tokenizer(TOKENIZER))


local_engine = command_r_engine  # what the bench's --render local builds for this set


def unhinted(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k != UNIT_HINT}


def unmark(value: Any) -> Any:
    if isinstance(value, dict) and UNIT_HINT in value:
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
    for hint in record.get(UNIT_HINT, ()):
        at = text.index(hint) + len(hint)
        text = text[:at] + UNIT + text[at:]
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
        offsets.append(int(statistics.median(m[k] for m, _ in here if m[k] is not None)))
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
    return fn(random.Random(f"{seed}/h13/{name}"), Writer(random.Random(f"{seed}/h13/{name}/text"), TEAM_OF[name]))


def build_workloads(seed: int = 12, engine: Engine | None = None, only: Sequence[str] | None = None) -> list[Workload]:
    """Every workload of the thirteenth held-out set, deterministic for ``seed``, on Llama 3 ids
    of the Command R rendering."""
    engine = engine or command_r_engine()
    if engine.tok.name != TOKENIZER:
        raise ValueError(f"the thirteenth held-out set is measured in {TOKENIZER} tokens, not {engine.tok.name}")
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

# The turn markers and fixed preamble a team's own client writes in a raw Command R prompt (the
# model's format, as the template prints it; the engine's tokenizer adds the BOS).
SOT, EOT = "<|START_OF_TURN_TOKEN|>", "<|END_OF_TURN_TOKEN|>"
SYSTEM_T, USER_T, BOT_T = "<|SYSTEM_TOKEN|>", "<|USER_TOKEN|>", "<|CHATBOT_TOKEN|>"
PREAMBLE = ("# Safety Preamble\nThe instructions in this section override those in the task description and style "
            "guide sections. Don't answer questions that are harmful or immoral.\n\n# System Preamble\n## Basic "
            "Rules\nYou are a powerful conversational AI trained by Cohere to help people.\n\n# User Preamble\n")


def cr(system: str, *turns: str, head: str = PREAMBLE) -> str:
    """A raw Command R prompt: the system turn (preamble and text), alternating user and chatbot
    turns (the last a user turn), and the open chatbot turn."""
    out = f"{SOT}{SYSTEM_T}{head}{system}{EOT}"
    for k, t in enumerate(turns):
        out += f"{SOT}{USER_T if k % 2 == 0 else BOT_T}{t}{EOT}"
    return out + f"{SOT}{BOT_T}"


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
        n = 0
        while n < min(len(text), len(r)) and text[n] == r[n]:
            n += 1
        best = max(best, n)
    return best


def marked_at(text: str, rivals: Sequence[str]) -> str:
    k = first_differs(text, rivals)
    return text[:k] + MARK + text[k:]


def tool_call(cid: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": None, "tool_calls": [
        {"id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(args, ensure_ascii=False)}}]}


def tool_result(cid: str, content: Any) -> dict[str, Any]:
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    return {"role": "tool", "tool_call_id": cid, "content": text}


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
    return [m for q, a in turns for m in (user(q), assistant(a))]


def shuffled_tools(rng: random.Random, w: Writer, names: Sequence[str]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The tools in a random order, MARK where the first one's name parts from the other names
    that could come first (UNIT goes at the tool list's head through UNIT_HINT), and the tools in
    canonical order."""
    order = shuffled(rng, names)
    tools = w.tools(order)
    fn = tools[0]["function"]
    fn["name"] = marked_at(fn["name"], [n for n in names if n != order[0]])
    return tools, w.tools(names)


def with_params(tool: dict[str, Any], order: Sequence[str], mark: bool = False) -> dict[str, Any]:
    """``tool`` with its parameters in ``order`` (the template prints them in the signature in
    dict order), MARK where the first name parts from the others."""
    g = json.loads(json.dumps(tool))
    props = g["function"]["parameters"]["properties"]
    first = order[0]
    out = {}
    for k in order:
        key = marked_at(k, [x for x in order if x != first]) if mark and k == first else k
        out[key] = props[k]
    g["function"]["parameters"]["properties"] = out
    return g


DAYS_EN = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def day_of(ts: float) -> tuple[int, int, int, int]:
    import datetime as dt

    d = dt.datetime.fromtimestamp(ts, tz=dt.timezone.utc)
    return d.year, d.month, d.day, d.weekday()


# WORKLOADS_BELOW
# ---------------------------------------------------------------- dynamic values


@workload("proposal-line-first-token-of-user-preamble-ids", "input_ids", ("dynamic",),
          "the scheduler writes the proposal on the desk ('TRO-2026B-046 · 4.5 h · grade B') as the first text of the "
          "system message, the first token after the template's '# User Preamble' line; ~10% of requests come "
          "before a proposal is chosen; ~2.2k static tokens follow; Llama 3 ids", OBSERVATORY)
def _proposal_first(rng: random.Random, w: Writer) -> list[Pair]:
    body = w.system(9)
    props = OBSERVATORY.fills["prop"]
    out: list[Pair] = []
    for i in range(rng.randint(60, 85)):
        q = w.question()
        if lacks(rng, 0.1):
            rec = chat(i, [sys_msg(SKIP + body), user(q)])
            out.append((rec, unmark(rec)))
            continue
        line = f"{rng.choice(props)} · {rng.choice(['1.5', '3', '4.5', '6'])} h · grade {rng.choice('ABC')}"
        out.append((chat(i, [sys_msg(f"{MARK}{line}\n\n{body}"), user(q)]),
                    chat(i, [sys_msg(body), user(f"{q}\n\nProposal on the desk: {line}")])))
    return out


def _obs_tools(w: Writer, note: str | None) -> list[dict[str, Any]]:
    tools = w.tools()
    if note is not None:
        tools[2]["function"]["description"] += note
    return tools


@workload("seeing-reading-in-tool-docstring-hourly", "messages", ("dynamic",),
          "the third tool's docstring (get_seeing, printed as a python signature after the system text) ends with "
          "the site monitor's last reading ('Last reading 0.82 arcsec at 03:00 UTC'), a new one every 5-9 "
          "requests in arrival order; three more signatures follow it", OBSERVATORY, (START_USER, END_USER))
def _seeing(rng: random.Random, w: Writer) -> list[Pair]:
    system = w.system(6)
    n = rng.randint(55, 85)
    hour = hourly(rng, n, (5, 9))
    readings = [f"{rng.uniform(0.5, 2.4):.2f} arcsec at {(18 + k) % 24:02d}:00 UTC" for k in range(hour[-1] + 1)]
    out: list[Pair] = []
    for i in range(n):
        r = readings[hour[i]]
        q = w.question()
        orig = chat(i, [sys_msg(system), user(q)], _obs_tools(w, f" Last reading {MARK}{r}."))
        plain = _obs_tools(w, None)
        a = chat(i, [sys_msg(system), user(f"(Last seeing reading {r}.)\n\n{q}")], plain)
        b = chat(i, [sys_msg(system), user(f"{q}\n\n(Last seeing reading {r}.)")], plain)
        out.append((orig, (a, b)))
    return out


@workload("red-flag-status-three-settings-mid-system", "messages", ("dynamic",),
          "the day's red-flag status (3 settings: none, watch, warning) on its own line after four of nine "
          "dispatch sections, ~900 tokens into the system text", WILDFIRE, (END_SYSTEM, END_USER))
def _red_flag(rng: random.Random, w: Writer) -> list[Pair]:
    head = "\n\n".join([w.opening(), w.handbook(4)])
    tail = "\n\n".join(w.section(t) for t in WILDFIRE.sections[4:9])
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        s = rng.choice(["none", "fire weather watch", "red-flag warning"])
        q = w.question()
        orig = chat(i, [sys_msg(f"{head}\n\nRed-flag status today: {MARK}{s}.\n\n{tail}"), user(q)])
        a = chat(i, [sys_msg(f"{head}\n\n{tail}\n\nRed-flag status today: {s}."), user(q)])
        b = chat(i, [sys_msg(f"{head}\n\n{tail}"), user(f"{q}\n\nRed-flag status today: {s}.")])
        out.append((orig, (a, b)))
    return out


def _grading(w: Writer) -> str:
    return "Grading rules for the lot on the desk:\n" + "\n".join(f"- {r}" for r in w.rules(20))


@workload("lot-number-opens-second-system-turn-ids", "input_ids", ("dynamic",),
          "a second system message (its own SYSTEM turn after the preamble and the five tool signatures) opens "
          "with the lot on the desk ('Lot 1418: Twopenny Blue, est. £450-600') ahead of ~600 tokens of static "
          "grading rules; Llama 3 ids", STAMPS)
def _lot_second(rng: random.Random, w: Writer) -> list[Pair]:
    main, rules, tools = w.system(6), _grading(w), w.tools()
    out: list[Pair] = []
    for i in range(rng.randint(85, 100)):
        lot = (f"Lot {rng.randint(1000, 1999)}: {rng.choice(STAMPS.fills['item'])}, est. "
               f"£{rng.choice(['120-160', '450-600', '900-1,200', '2,500-3,000'])}")
        q = w.question()
        orig = chat(i, [sys_msg(main), sys_msg(f"{MARK}{lot}\n\n{rules}"), user(q)], tools)
        fixed = chat(i, [sys_msg(main), sys_msg(rules), user(f"{q}\n\n{lot}")], tools)
        out.append((orig, fixed))
    return out


def _station_limits(w: Writer) -> dict[str, Any]:
    local = random.Random(f"{w.team.key}/limits")
    return {"station": "Nordvik", "antennas": [{"id": a, "min_elevation_deg": local.choice([3, 5, 7]),
                                                "keyhole_deg": local.choice([85, 87, 88]), "note": w.rule()}
                                               for a in ("N1", "N2", "N3")],
            "rules": w.rules(8)}


@workload("next-aos-in-canned-pass-plan-result", "messages", ("dynamic",),
          "every request replays a canned priming exchange (the user asks for tonight's plan, a predict_pass call, "
          "its result, an acknowledgement); the result, a <results> SYSTEM turn, opens with the next acquisition "
          "time to the second, then ~500 tokens of static antenna limits", GROUND)
def _aos(rng: random.Random, w: Writer) -> list[Pair]:
    system, tools, limits = w.system(5), w.tools(), _station_limits(w)
    call = tool_call("call_plan", "predict_pass", {"norad_id": 43013, "hours": 12})
    out: list[Pair] = []
    for i in range(rng.randint(55, 85)):
        ts = BASE_TIME + 3600 + 47.0 * i + rng.uniform(0, 30)
        aos = f"2026-12-01T{clock(ts + rng.randint(300, 5400))}Z"
        q = w.question()

        def primed(result: dict[str, Any]) -> list[dict[str, Any]]:
            return [user("Load tonight's pass plan."), call, tool_result("call_plan", result), assistant("Plan loaded.")]
        orig = chat(i, [sys_msg(system)] + primed({"next_aos": MARK + aos} | limits) + [user(q)], tools, ts)
        fixed = chat(i, [sys_msg(system)] + primed(limits) + [user(f"{q}\n\n(Next AOS {aos}.)")], tools, ts)
        out.append((orig, fixed))
    return out


def _climate_policy(w: Writer) -> str:
    return "\n".join(f"{k + 1}. {r}" for k, r in enumerate(w.rules(14)))


@workload("cave-hour-in-canned-call-arguments", "messages", ("dynamic",),
          "a canned read_cave_sensors call replayed ahead of each question carries the hour it was sent for "
          "('as_of': '2026-12-01T14:00', hourly in arrival order) in its arguments, printed in the Action: json "
          "block; a static ~450-token climate policy result follows", CHEESE, (START_LAST, END_USER))
def _cave_hour(rng: random.Random, w: Writer) -> list[Pair]:
    system, tools, policy = w.system(5), w.tools(), _climate_policy(w)
    n = rng.randint(50, 80)
    hour = hourly(rng, n, (5, 10))
    out: list[Pair] = []
    for i in range(n):
        stamp = f"2026-12-01T{6 + hour[i]:02d}:00"
        q = w.question()

        def primed(args: dict[str, Any]) -> list[dict[str, Any]]:
            return [user("Check cave B before we start."), tool_call("call_cave", "read_cave_sensors", args),
                    tool_result("call_cave", policy), assistant("Cave B is within limits.")]
        base = {"cave": "B", "hours": 6}
        orig = chat(i, [sys_msg(system)] + primed(base | {"as_of": MARK + stamp}) + [user(q)], tools)
        a = chat(i, [sys_msg(system)] + primed(base) + [user(f"(Readings as of {stamp}.)\n\n{q}")], tools)
        b = chat(i, [sys_msg(system)] + primed(base) + [user(f"{q}\n\n(Readings as of {stamp}.)")], tools)
        out.append((orig, (a, b)))
    return out


@workload("latest-event-in-canned-greeting-ids", "input_ids", ("dynamic",),
          "the desk's canned first chatbot turn names the latest reviewed event ('Latest reviewed event: M2.4 near "
          "Kunda at 04:51:33 UTC.') ahead of ~400 static tokens of help; a new event every 3-8 requests, in "
          "arrival order; Llama 3 ids", SEISMO, (START_LAST, END_USER))
def _latest_event(rng: random.Random, w: Writer) -> list[Pair]:
    system = w.system(7)
    help_text = "I can help with the following.\n" + "\n".join(f"- {r}" for r in w.rules(12))
    n = rng.randint(55, 85)
    slot = hourly(rng, n, (3, 8))
    events = [f"M{rng.randint(12, 38) / 10:.1f} near {rng.choice(SEISMO.fills['place'])} at "
              f"{clock(BASE_TIME + 600 * k + rng.randint(0, 500))} UTC" for k in range(slot[-1] + 1)]
    out: list[Pair] = []
    for i in range(n):
        ev = events[slot[i]]
        q = w.question()
        orig = chat(i, [sys_msg(system), assistant(f"Latest reviewed event: {MARK}{ev}. {help_text}"), user(q)])
        a = chat(i, [sys_msg(system), assistant(help_text), user(f"(Latest reviewed event: {ev}.)\n\n{q}")])
        b = chat(i, [sys_msg(system), assistant(help_text), user(f"{q}\n\n(Latest reviewed event: {ev}.)")])
        out.append((orig, (a, b)))
    return out


TA_MONTH = "டிசம்பர்"


@workload("tamil-date-line-raw-command-r-prompt", "prompt", ("dynamic",),
          "raw Command R prompts from the lab's own client: the second line of the system text is the day in Tamil "
          "('இன்றைய தேதி: 3 டிசம்பர் 2026'), four days of traffic, ~1.6k static tokens after it", COFFEE,
          (END_SYSTEM, END_USER))
def _tamil_date(rng: random.Random, w: Writer) -> list[Pair]:
    opening, body = w.opening(), "\n\n".join([w.handbook(7), "Language rules:\n" + "\n".join(COFFEE.language[1])])
    out: list[Pair] = []
    for i, ts in enumerate(spread(rng, rng.randint(50, 75), 4)):
        _, _, d, _ = day_of(ts)
        line = f"இன்றைய தேதி: {d} {TA_MONTH} 2026"
        q = w.question()
        orig = {"id": f"req-{i:05d}", "prompt": cr(f"{opening}\nஇன்றைய தேதி: {MARK}{line[13:]}\n\n{body}", q)}
        a = {"id": f"req-{i:05d}", "prompt": cr(f"{opening}\n\n{body}\n\n{line}", q)}
        b = {"id": f"req-{i:05d}", "prompt": cr(f"{opening}\n\n{body}", f"{q}\n\n{line}")}
        out.append((orig, (a, b)))
    return out


COMPANIES = ["Blauwgras Studio", "Kettle & Fern Ltd", "Omsk Northern Rail", "Pellucid Apps", "Vrije Omroep Zuid",
             "Tidewater Press", "Marigold Kiosks", "Hanseatic Stationers", "Quetzal Media", "Lumen Schoolbooks"]


@workload("licensee-line-ahead-of-checklist-in-user-turn", "messages", ("dynamic",),
          "the client prefixes every user turn with the licensee ('Licensee: Tidewater Press, 25 seats, customer "
          "VR-04871') ahead of a static ~700-token quoting checklist and the question", FOUNDRY)
def _licensee(rng: random.Random, w: Writer) -> list[Pair]:
    system, tools = w.system(6), w.tools()
    checklist = "Quoting checklist:\n" + "\n".join(f"- {r}" for r in w.rules(22))
    out: list[Pair] = []
    for i in range(rng.randint(55, 85)):
        lic = f"{rng.choice(COMPANIES)}, {rng.choice([1, 3, 5, 10, 25, 60, 120])} seats, customer VR-{rng.randint(1000, 9999):05d}"
        q = w.question()
        orig = chat(i, [sys_msg(system), user(f"Licensee: {MARK}{lic}\n\n{checklist}\n\n{q}")], tools)
        fixed = chat(i, [sys_msg(system), user(f"{checklist}\n\n{q}\n\nLicensee: {lic}")], tools)
        out.append((orig, fixed))
    return out


@workload("moon-line-first-token-plain-prompt", "prompt", ("dynamic",),
          "a plain completion prompt (no turn markers) whose first line is tonight's Moon ('Moon: 61% illuminated, "
          "sets 02:14'), five nights, ~1.9k static tokens after it", OBSERVATORY,
          ("after the handbook", "after the question"))
def _moon(rng: random.Random, w: Writer) -> list[Pair]:
    body = w.system(8)
    nights = [f"{rng.randint(3, 99)}% illuminated, sets {rng.randint(0, 5):02d}:{rng.randint(0, 59):02d}" for _ in range(5)]
    out: list[Pair] = []
    for i, ts in enumerate(spread(rng, rng.randint(50, 75), 5)):
        moon = nights[min(4, int((ts - BASE_TIME) // 86400))]
        q = w.question()
        orig = {"id": f"req-{i:05d}", "prompt": f"Moon: {MARK}{moon}\n\n{body}\n\nObserver: {q}\nDesk:"}
        a = {"id": f"req-{i:05d}", "prompt": f"{body}\n\nMoon: {moon}\n\nObserver: {q}\nDesk:"}
        b = {"id": f"req-{i:05d}", "prompt": f"{body}\n\nObserver: {q}\nMoon: {moon}\nDesk:"}
        out.append((orig, (a, b)))
    return out


WIND_DIRS = ["nord", "nord-est", "est", "sud-est", "sud", "sud-oest", "oest", "nord-oest"]


@workload("catalan-wind-line-deep-ids", "input_ids", ("dynamic",),
          "a Catalan wind line ('Vent a Puig Roig: 34 km/h de nord-oest, ratxes de 52 km/h'), hourly in arrival "
          "order, ~2.8k tokens into a 3.4k-token system text; Llama 3 ids", WILDFIRE, (END_SYSTEM, END_USER))
def _catalan_wind(rng: random.Random, w: Writer) -> list[Pair]:
    head = "\n\n".join([w.opening(), w.handbook(13)])
    tail = "\n\n".join([w.handbook(2), "Language rules (Catalan):\n" + "\n".join(WILDFIRE.language[1])])
    n = rng.randint(50, 75)
    hour = hourly(rng, n, (6, 11))
    lines = []
    for _ in range(hour[-1] + 1):
        v = rng.randint(8, 48)
        lines.append(f"{v} km/h de {rng.choice(WIND_DIRS)}, ratxes de {v + rng.randint(6, 25)} km/h")
    out: list[Pair] = []
    for i in range(n):
        line = f"Vent a Puig Roig: {lines[hour[i]]}"
        q = w.question()
        orig = chat(i, [sys_msg(f"{head}\n\nVent a Puig Roig: {MARK}{lines[hour[i]]}\n\n{tail}"), user(q)])
        a = chat(i, [sys_msg(f"{head}\n\n{tail}\n\n{line}"), user(q)])
        b = chat(i, [sys_msg(f"{head}\n\n{tail}"), user(f"{q}\n\n{line}")])
        out.append((orig, (a, b)))
    return out


@workload("premium-fx-rate-deep-in-raw-prompt", "prompt", ("dynamic",),
          "raw Command R prompts: the live sterling-euro rate for buyer's premium ('1 GBP = 1.1734 EUR') ~1.5k "
          "tokens into the system text, unique per request, ~700 static tokens after it", STAMPS)
def _fx(rng: random.Random, w: Writer) -> list[Pair]:
    head, tail = "\n\n".join([w.opening(), w.handbook(6)]), w.handbook(3)
    out: list[Pair] = []
    for i in range(rng.randint(50, 75)):
        rate = f"1 GBP = {rng.uniform(1.12, 1.21):.4f} EUR"
        q = w.question()
        orig = prompt(i, cr(f"{head}\n\nPremium conversion: {MARK}{rate}\n\n{tail}", q))
        fixed = prompt(i, cr(f"{head}\n\n{tail}", f"{q}\n\nPremium conversion: {rate}"))
        out.append((orig, fixed))
    return out


def tle(rng: random.Random, norad: int) -> str:
    epoch = f"26335.{rng.randint(10000000, 99999999)}"
    l1 = (f"1 {norad:05d}U 18{rng.randint(1, 99):03d}A   {epoch}  .{rng.randint(10000, 99999):05d}  00000-0  "
          f"{rng.randint(10000, 99999)}-3 0  999{rng.randint(0, 9)}")
    l2 = (f"2 {norad:05d}  {rng.uniform(50, 99):8.4f} {rng.uniform(0, 360):8.4f} {rng.randint(1000000, 9999999):07d} "
          f"{rng.uniform(0, 360):8.4f} {rng.uniform(0, 360):8.4f} {rng.uniform(14, 15.6):11.8f}{rng.randint(10000, 99999)}")
    return f"{l1}\n{l2}"


@workload("two-line-elements-mid-system", "messages", ("dynamic",),
          "the two-line orbit elements of the satellite being planned (25 satellites, fresh elements per request) "
          "~1.1k tokens into the system text, ~700 static tokens and six tool signatures after them", GROUND)
def _tle(rng: random.Random, w: Writer) -> list[Pair]:
    head, tail, tools = "\n\n".join([w.opening(), w.handbook(5)]), w.handbook(3), w.tools()
    norads = [rng.randint(20000, 60000) for _ in range(25)]
    out: list[Pair] = []
    for i in range(rng.randint(55, 80)):
        el = tle(rng, rng.choice(norads))
        q = w.question()
        orig = chat(i, [sys_msg(f"{head}\n\nCurrent elements:\n1 {MARK}{el[2:]}\n\n{tail}"), user(q)], tools)
        fixed = chat(i, [sys_msg(f"{head}\n\n{tail}"), user(f"{q}\n\nCurrent elements:\n{el}")], tools)
        out.append((orig, fixed))
    return out


def station_table(rng: random.Random, k: int) -> str:
    rows = ["| Station | Latency s | Clock | Clipped |", "| --- | --- | --- | --- |"]
    for s in ("EE.SLIT", "EE.MTSE", "EE.PKSE", "EE.VSU", "EE.TRTE", "EE.KAAE", "EE.ARBE", "FI.HEF", "LV.SLD"):
        rows.append(f"| {s} | {rng.uniform(0.4, 9.5):.1f} | {rng.choice(['ok', 'ok', 'ok', 'drift 0.4 s'])} | "
                    f"{rng.choice(['no', 'no', 'yes'])} |")
    return f"Station health, update {k + 1}:\n" + "\n".join(rows)


@workload("station-health-table-every-few-requests-ids", "input_ids", ("dynamic",),
          "a ~250-token markdown table of station health ~1.2k tokens into the system text, replaced every 4-8 "
          "requests in arrival order, behind which sit ~450 static tokens and five tool signatures; Llama 3 ids",
          SEISMO, (START_USER, END_USER))
def _station_health(rng: random.Random, w: Writer) -> list[Pair]:
    head, tail, tools = "\n\n".join([w.opening(), w.handbook(5)]), w.handbook(2), w.tools()
    n = rng.randint(55, 80)
    slot = hourly(rng, n, (4, 8))
    tables = [station_table(rng, k) for k in range(slot[-1] + 1)]
    out: list[Pair] = []
    for i in range(n):
        t = tables[slot[i]]
        q = w.question()
        orig = chat(i, [sys_msg(f"{head}\n\nStation health, update {MARK}{t[len('Station health, update '):]}\n\n{tail}"),
                        user(q)], tools)
        a = chat(i, [sys_msg(f"{head}\n\n{tail}"), user(f"{t}\n\n{q}")], tools)
        b = chat(i, [sys_msg(f"{head}\n\n{tail}"), user(f"{q}\n\n{t}")], tools)
        out.append((orig, (a, b)))
    return out


def _cave_docs(w: Writer) -> list[str]:
    return [w.document(5, f"Cave record {k}: {t}") for k, t in enumerate(CHEESE.sections[:4], 1)]


@workload("retrieval-clock-in-document-header", "messages", ("dynamic",),
          "four static reference documents sent as a second system message (its own SYSTEM turn) whose header "
          "line carries the retrieval time to the second ('Documents retrieved 14:05:31'), ahead of ~750 "
          "document tokens", CHEESE)
def _retrieval_clock(rng: random.Random, w: Writer) -> list[Pair]:
    system, docs = w.system(6), "\n\n".join(_cave_docs(w))
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        ts = BASE_TIME + 7200 + 31.0 * i + rng.uniform(0, 20)
        q = w.question()
        orig = chat(i, [sys_msg(system), sys_msg(f"Documents retrieved {MARK}{clock(ts)}\n\n{docs}"), user(q)], ts=ts)
        fixed = chat(i, [sys_msg(system), sys_msg(f"Documents\n\n{docs}"), user(f"{q}\n\n(Documents retrieved {clock(ts)}.)")],
                     ts=ts)
        out.append((orig, fixed))
    return out


@workload("containers-at-sea-one-token-ids", "input_ids", ("dynamic",),
          "the count of the importer's containers at sea as one digit (1-9) on the first line of the system text, "
          "~2k static tokens after it; Llama 3 ids", COFFEE, (END_SYSTEM, END_USER))
def _containers(rng: random.Random, w: Writer) -> list[Pair]:
    body = w.system(9)
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        n = rng.randint(1, 9)
        q = w.question()
        orig = chat(i, [sys_msg(f"Containers at sea: {MARK}{n}\n{body}"), user(q)])
        a = chat(i, [sys_msg(f"{body}\n\nContainers at sea: {n}"), user(q)])
        b = chat(i, [sys_msg(body), user(f"{q}\n\nContainers at sea: {n}")])
        out.append((orig, (a, b)))
    return out


@workload("sales-channel-two-settings-long-system", "messages", ("dynamic",),
          "the channel the request came through (2 settings: web shop, sales desk) right after the opening of a "
          "~3.3k-token system text", FOUNDRY, (END_SYSTEM, END_USER))
def _channel(rng: random.Random, w: Writer) -> list[Pair]:
    opening, rest = w.opening(), w.handbook(15)
    out: list[Pair] = []
    for i in range(rng.randint(45, 65)):
        ch = rng.choice(["web shop", "sales desk"])
        q = w.question()
        orig = chat(i, [sys_msg(f"{opening}\n\nChannel: {MARK}{ch}\n\n{rest}"), user(q)])
        a = chat(i, [sys_msg(f"{opening}\n\n{rest}\n\nChannel: {ch}"), user(q)])
        b = chat(i, [sys_msg(f"{opening}\n\n{rest}"), user(f"{q}\n\nChannel: {ch}")])
        out.append((orig, (a, b)))
    return out


@workload("desk-clock-in-system-text-of-sessions", "messages", ("dynamic",),
          "sessions of 1-6 turns whose system text opens with the desk clock at the send time ('Desk time "
          "03:14:07 UTC'), so no turn shares the history of the one before; the fix stamps each user turn "
          "instead, which stays in the history as sent", SEISMO)
def _desk_clock(rng: random.Random, w: Writer) -> list[Pair]:
    system = w.system(7)
    convs = sessions(rng, w, (12, 16), (1, 6))
    stamps: dict[tuple[int, int], str] = {}
    out: list[Pair] = []
    for i, (c, k) in enumerate(interleave(rng, convs)):
        ts = BASE_TIME + 3000 + 41.0 * i
        stamps[(c, k)] = clock(ts)
        msgs = [sys_msg(f"Desk time {MARK}{clock(ts)} UTC\n\n{system}")] + history(convs[c][:k]) + [user(convs[c][k][0])]
        fixed = [sys_msg(system)]
        for j in range(k):
            fixed += [user(f"{convs[c][j][0]}\n\n[sent {stamps[(c, j)]} UTC]"), assistant(convs[c][j][1])]
        fixed.append(user(f"{convs[c][k][0]}\n\n[sent {stamps[(c, k)]} UTC]"))
        out.append((chat(i, msgs, ts=ts), chat(i, fixed, ts=ts)))
    return out


DUTY = ["KT", "MR", "AL", "JV", "HP", "EO", "SK", "TM", "LR", "PV", "IK", "RN"]


def _seismo_tools(w: Writer, signer: str | None) -> list[dict[str, Any]]:
    tools = w.tools()
    if signer is not None:
        tools[3]["function"]["description"] += f" Bulletins are signed {signer}."
    return tools


@workload("duty-initials-in-system-and-tool-docstring", "messages", ("dynamic", "dynamic"),
          "the duty seismologist's initials (12 people) twice: on a line ~600 tokens into the system text and in "
          "the publish_bulletin docstring further on; two spans of one value, each planted", SEISMO,
          (START_USER, END_USER))
def _duty(rng: random.Random, w: Writer) -> list[Pair]:
    head, tail = "\n\n".join([w.opening(), w.handbook(3)]), w.handbook(5)
    out: list[Pair] = []
    for i in range(rng.randint(55, 80)):
        who = rng.choice(DUTY)
        q = w.question()
        orig = chat(i, [sys_msg(f"{head}\n\nDuty seismologist: {MARK}{who}\n\n{tail}"), user(q)],
                    _seismo_tools(w, f"{MARK}{who}"))
        plain = _seismo_tools(w, "by the duty seismologist")
        a = chat(i, [sys_msg(f"{head}\n\n{tail}"), user(f"(Duty seismologist: {who}.)\n\n{q}")], plain)
        b = chat(i, [sys_msg(f"{head}\n\n{tail}"), user(f"{q}\n\n(Duty seismologist: {who}.)")], plain)
        out.append((orig, (a, b)))
    return out


@workload("age-seconds-recomputed-in-earlier-results", "messages", ("dynamic",),
          "pass-planning agent loops of 2-5 steps whose client re-computes an 'age_s' field (seconds since the "
          "fetch) in every earlier tool result at each request, so a loop's next step never shares its own "
          "history; a loop's first two steps have no earlier result to re-stamp", GROUND)
def _age(rng: random.Random, w: Writer) -> list[Pair]:
    system, tools = w.system(5), w.tools()
    out: list[Pair] = []
    i = 0
    for task in range(rng.randint(16, 22)):
        q = w.question()
        t0 = BASE_TIME + 900 * task
        steps: list[tuple[dict[str, Any], dict[str, Any], float]] = []
        for step in range(rng.randint(2, 5)):
            now = t0 + 20.0 * step + rng.uniform(0, 9)
            # Only from the third step is there an earlier result whose age was sent before: the
            # first two steps part from their loop's earlier requests where new turns begin.
            carrying = len(steps) >= 2
            msgs = [sys_msg(system), user(q if carrying else SKIP + q)]
            fixed = [sys_msg(system), user(q)]
            for k, (call, body, fetched) in enumerate(steps):
                shown = json.dumps({"age_s": int(now - fetched)} | body, ensure_ascii=False)
                if k == 0 and carrying:
                    shown = shown.replace('"age_s": ', '"age_s": ' + MARK, 1)
                msgs += [call, tool_result(call["tool_calls"][0]["id"], shown)]
                fixed += [call, tool_result(call["tool_calls"][0]["id"], body)]
            out.append((chat(i, msgs, tools, now), chat(i, fixed, tools, now)))
            i += 1
            cid = f"t{task}s{step}"
            sat = rng.randint(20000, 60000)
            body = {"norad_id": sat, "passes": [{"aos": clock(now + 600 * p), "max_el": rng.randint(5, 85)}
                                                for p in range(rng.randint(2, 4))]}
            steps.append((tool_call(cid, "predict_pass", {"norad_id": sat, "hours": 12}), body, now))
    return out


GRADERS = ["Meenakshi", "Joselito", "Arul", "Divina", "Karthik", "Rosalind", "Venkat", "Imelda"]


@workload("grader-name-in-fewshot-answer-ids", "input_ids", ("dynamic",),
          "three canned question/answer turns ahead of the real question; the second canned answer ends with the "
          "Q grader on shift ('Scored by Divina.', 8 graders, per request) ahead of the third pair; Llama 3 ids",
          COFFEE, (START_LAST, END_USER))
def _grader(rng: random.Random, w: Writer) -> list[Pair]:
    system, shots = w.system(7), w.fewshot(3)
    out: list[Pair] = []
    for i in range(rng.randint(55, 80)):
        g = rng.choice(GRADERS)

        def turns(tag: str) -> list[dict[str, Any]]:
            msgs: list[dict[str, Any]] = []
            for k, (sq, sa) in enumerate(shots):
                msgs += [user(sq), assistant(f"{sa} {tag}" if k == 1 and tag else sa)]
            return msgs
        q = w.question()
        orig = chat(i, [sys_msg(system)] + turns(f"Scored by {MARK}{g}.") + [user(q)])
        a = chat(i, [sys_msg(system)] + turns("") + [user(f"(Grader on shift: {g}.)\n\n{q}")])
        b = chat(i, [sys_msg(system)] + turns("") + [user(f"{q}\n\n(Grader on shift: {g}.)")])
        out.append((orig, (a, b)))
    return out


@workload("romanian-batch-line-raw-prompt", "prompt", ("dynamic",),
          "raw Command R prompts: a Romanian line naming the batch under review ('Lotul curent: L26-147, maturare 9 "
          "luni'), unique per request, ~700 tokens into the system text, ~1.1k static tokens after", CHEESE)
def _ro_batch(rng: random.Random, w: Writer) -> list[Pair]:
    head = "\n\n".join([w.opening(), w.handbook(3)])
    tail = "\n\n".join([w.handbook(5), "Reguli de limbă:\n" + "\n".join(CHEESE.language[1])])
    out: list[Pair] = []
    for i in range(rng.randint(50, 75)):
        line = f"Lotul curent: L26-{rng.randint(100, 999)}, maturare {rng.choice([3, 6, 9, 12, 14])} luni"
        q = w.question()
        orig = prompt(i, cr(f"{head}\n\nLotul curent: {MARK}{line[14:]}\n\n{tail}", q))
        fixed = prompt(i, cr(f"{head}\n\n{tail}", f"{q}\n\n{line}"))
        out.append((orig, fixed))
    return out


# ---------------------------------------------------------------- order


FIRE_TOOLS = ["get_fire_weather", "dispatch_resource", "list_resources", "log_spot_report", "issue_warning",
              "request_mutual_aid"]


@workload("six-tool-signatures-shuffled", "messages", ("order",),
          "the six dispatch tools in a different order per request, printed as python signatures right after "
          "the system text", WILDFIRE)
def _tools_shuffled(rng: random.Random, w: Writer) -> list[Pair]:
    system = w.system(7)
    out: list[Pair] = []
    for i in range(rng.randint(55, 85)):
        tools, canon = shuffled_tools(rng, w, FIRE_TOOLS)
        q = w.question()
        orig = chat(i, [sys_msg(system), user(q)], tools)
        orig[UNIT_HINT] = [TOOLS_HEAD]
        out.append((orig, chat(i, [sys_msg(system), user(q)], canon)))
    return out


GROUND_TOOLS = ["predict_pass", "reserve_antenna", "get_link_budget", "fetch_telemetry", "get_space_weather", "open_ticket"]


@workload("signature-parameter-order-shuffled", "messages", ("order",),
          "the client builds reserve_antenna's parameters from a set, so the four names come in a different "
          "order per request inside its printed signature ('def reserve_antenna(los: str, antenna: str, ...')",
          GROUND)
def _param_order(rng: random.Random, w: Writer) -> list[Pair]:
    system = w.system(6)
    names = ["antenna", "aos", "los", "mission"]
    out: list[Pair] = []
    for i in range(rng.randint(55, 80)):
        tools = w.tools(GROUND_TOOLS)
        canon = json.loads(json.dumps(tools))
        order = shuffled(rng, names)
        tools[1] = with_params(tools[1], order, mark=True)
        q = w.question()
        orig = chat(i, [sys_msg(system), user(q)], tools)
        orig[UNIT_HINT] = ["def reserve_antenna("]
        out.append((orig, chat(i, [sys_msg(system), user(q)], canon)))
    return out


@workload("cave-handbook-sections-shuffled-ids", "input_ids", ("order",),
          "the ten cave handbook sections in a random order per request after a static opening; Llama 3 ids",
          CHEESE)
def _sections(rng: random.Random, w: Writer) -> list[Pair]:
    opening = w.opening()
    secs = [(t, w.paragraph(6)) for t in CHEESE.sections]
    canon = "\n\n".join(f"## {t}\n{p}" for t, p in secs)
    out: list[Pair] = []
    for i in range(rng.randint(50, 75)):
        body = "\n\n".join(f"## {t}\n{p}" for t, p in shuffled(rng, secs))
        body = UNIT + "## " + MARK + body[3:]
        q = w.question()
        out.append((chat(i, [sys_msg(f"{opening}\n\n{body}"), user(q)]), chat(i, [sys_msg(f"{opening}\n\n{canon}"), user(q)])))
    return out


@workload("reference-documents-shuffled-in-second-system-turn", "messages", ("order",),
          "five static reference documents (condition grades, perforation gauges, watermark list, certificate "
          "bodies, estimate steps) in a second system message, in a random order per request", STAMPS)
def _ref_docs(rng: random.Random, w: Writer) -> list[Pair]:
    system = w.system(5)
    docs = [w.document(5, f"Reference: {t}") for t in ("Condition grades", "Perforation gauges", "Watermark list",
                                                        "Certificate bodies", "Estimate steps")]
    out: list[Pair] = []
    for i in range(rng.randint(50, 75)):
        order = shuffled(rng, docs)
        shown = UNIT + "Reference: " + MARK + "\n\n".join(order)[len("Reference: "):]
        q = w.question()
        orig = chat(i, [sys_msg(system), sys_msg(shown), user(q)])
        out.append((orig, chat(i, [sys_msg(system), sys_msg("\n\n".join(docs)), user(q)])))
    return out


@workload("fewshot-turns-in-four-rotations", "messages", ("order",),
          "four canned observer question/answer turns ahead of the real question, sent in one of four rotations",
          OBSERVATORY)
def _fewshot_rot(rng: random.Random, w: Writer) -> list[Pair]:
    system, shots = w.system(6), w.fewshot(4)
    canon = history(shots)
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        r = rng.randint(0, 3)
        order = shots[r:] + shots[:r]
        msgs = [sys_msg(system)]
        for k, (sq, sa) in enumerate(order):
            msgs += [user((MARK if k == 0 else "") + sq), assistant(sa)]
        q = w.question()
        out.append((chat(i, msgs + [user(q)]), chat(i, [sys_msg(system)] + canon + [user(q)])))
    return out


@workload("licence-bullets-shuffled-plain-prompt", "prompt", ("order",),
          "a plain completion prompt: ~600 tokens of opening sections, then 20 licensing rules as bullets in a "
          "random order per request, then the question", FOUNDRY)
def _bullets(rng: random.Random, w: Writer) -> list[Pair]:
    head = "\n\n".join([w.opening(), w.handbook(3)])
    rules = w.rules(20)
    out: list[Pair] = []
    for i in range(rng.randint(50, 75)):
        order = shuffled(rng, rules)
        shown = UNIT + "- " + MARK + "\n- ".join(order)
        q = w.question()
        orig = {"id": f"req-{i:05d}", "prompt": f"{head}\n\nLicensing rules:\n{shown}\n\nCustomer: {q}\nDesk:"}
        fixed = {"id": f"req-{i:05d}", "prompt": f"{head}\n\nLicensing rules:\n- " + "\n- ".join(rules) + f"\n\nCustomer: {q}\nDesk:"}
        out.append((orig, fixed))
    return out


GLOSSARY = [("maavärin", "earthquake"), ("järeltõuge", "aftershock"), ("epitsenter", "epicentre"),
            ("sügavus", "depth"), ("magnituud", "magnitude"), ("lõhkamine", "blast"), ("seismograaf", "seismograph"),
            ("jaam", "station"), ("lainekuju", "waveform"), ("tajutav", "felt"), ("karjäär", "quarry"),
            ("ülevaatus", "review")]


@workload("estonian-glossary-lines-shuffled-ids", "input_ids", ("order",),
          "twelve Estonian-English glossary lines ('järeltõuge = aftershock') in a random order per request, "
          "~1.3k tokens into the system text, ~600 static tokens after; Llama 3 ids", SEISMO)
def _glossary(rng: random.Random, w: Writer) -> list[Pair]:
    head, tail = "\n\n".join([w.opening(), w.handbook(6)]), w.handbook(3)
    lines = [f"{a} = {b}" for a, b in GLOSSARY]
    out: list[Pair] = []
    for i in range(rng.randint(50, 75)):
        order = shuffled(rng, lines)
        shown = UNIT + marked_at(order[0], [x for x in lines if x != order[0]]) + "\n" + "\n".join(order[1:])
        q = w.question()
        orig = chat(i, [sys_msg(f"{head}\n\nSõnastik:\n{shown}\n\n{tail}"), user(q)])
        fixed = chat(i, [sys_msg(f"{head}\n\nSõnastik:\n" + "\n".join(lines) + f"\n\n{tail}"), user(q)])
        out.append((orig, fixed))
    return out


def _lab_spec(w: Writer) -> dict[str, Any]:
    local = random.Random(f"{w.team.key}/spec")
    return {"moisture_max_pct": 12.5, "water_activity_max": 0.62, "density_min_g_l": 650,
            "defects_max_primary": local.choice([0, 1]), "defects_max_secondary": local.choice([5, 8]),
            "roast_minutes": "8-12", "cups_per_sample": 5, "notes": " ".join(w.rules(9))}


@workload("priming-result-keys-shuffled", "messages", ("order",),
          "a canned get_lot_scores priming exchange whose result is the lab's acceptance spec as a JSON object, its "
          "eight keys in a random order per request (the client builds it from a hash map)", COFFEE)
def _spec_keys(rng: random.Random, w: Writer) -> list[Pair]:
    system, tools, spec = w.system(5), w.tools(), _lab_spec(w)
    keys = list(spec)
    call = tool_call("call_spec", "get_lot_scores", {"lot_id": "SPEC"})
    out: list[Pair] = []
    for i in range(rng.randint(50, 75)):
        order = shuffled(rng, keys)
        body = json.dumps({k: spec[k] for k in order}, ensure_ascii=False)
        body = UNIT + '{"' + MARK + body[2:]
        q = w.question()
        head = [sys_msg(system), user("Load the acceptance spec.")]
        orig = chat(i, head + [call, tool_result("call_spec", body), assistant("Spec loaded."), user(q)], tools)
        fixed = chat(i, head + [call, tool_result("call_spec", spec), assistant("Spec loaded."), user(q)], tools)
        out.append((orig, fixed))
    return out


OBS_TOOLS = ["check_visibility", "book_block", "get_seeing", "lookup_proposal", "release_block", "list_instruments"]


@workload("tool-order-drawn-per-session", "messages", ("order",),
          "observer sessions of 1-4 turns whose client draws the six tools' order once per session (from a set) and "
          "keeps it for the session's later turns, so each session starts a tool block of its own", OBSERVATORY)
def _session_orders(rng: random.Random, w: Writer) -> list[Pair]:
    system = w.system(6)
    convs = sessions(rng, w, (22, 28), (1, 4))
    orders = [shuffled(rng, OBS_TOOLS) for _ in convs]
    out: list[Pair] = []
    for i, (c, k) in enumerate(interleave(rng, convs)):
        msgs = [sys_msg(system)] + history(convs[c][:k]) + [user(convs[c][k][0])]
        tools = w.tools(orders[c])
        first = orders[c][0]
        tools[0]["function"]["name"] = marked_at(first, [n for n in OBS_TOOLS if n != first])
        orig = chat(i, msgs, tools)
        orig[UNIT_HINT] = [TOOLS_HEAD]
        out.append((orig, chat(i, msgs, w.tools(OBS_TOOLS))))
    return out


def _antenna_rows(w: Writer) -> list[str]:
    local = random.Random(f"{w.team.key}/rows")
    rows = []
    for a, band in (("N1", "S"), ("N2", "X"), ("N3", "S/X"), ("N4", "UHF"), ("N5", "Ka"), ("N6", "L"), ("N7", "VHF")):
        rows.append(f"| {a} | {band} | {local.choice([3.7, 7.3, 11, 13])} m | {local.choice([3, 5, 7])} deg | "
                    f"{local.choice(['available', 'weekends only', 'shared with customer ops'])} |")
    return rows


@workload("antenna-table-rows-shuffled-raw-prompt", "prompt", ("order",),
          "raw Command R prompts: a markdown table of seven antennas (band, dish, mask, availability) whose rows "
          "come in a random order per request, ~900 tokens into the system text", GROUND)
def _antenna_rows_wl(rng: random.Random, w: Writer) -> list[Pair]:
    head, tail = "\n\n".join([w.opening(), w.handbook(4)]), w.handbook(4)
    rows = _antenna_rows(w)
    top = "| Antenna | Band | Dish | Mask | Availability |\n| --- | --- | --- | --- | --- |\n"
    out: list[Pair] = []
    for i in range(rng.randint(24, 36)):
        order = shuffled(rng, rows)
        shown = top + UNIT + "| N" + MARK + "\n".join(order)[3:]
        q = w.question()
        orig = prompt(i, cr(f"{head}\n\n{shown}\n\n{tail}", q))
        fixed = prompt(i, cr(f"{head}\n\n{top}" + "\n".join(rows) + f"\n\n{tail}", q))
        out.append((orig, fixed))
    return out


@workload("three-system-messages-rotating-ids", "input_ids", ("order",),
          "three static system messages (licence terms, pricing, tone) sent in one of three rotations: whichever "
          "comes first is the template's preamble text, the others their own SYSTEM turns; Llama 3 ids", FOUNDRY)
def _three_sys(rng: random.Random, w: Writer) -> list[Pair]:
    parts = [f"{t}\n\n{w.handbook(3)}" for t in ("Licence terms.", "Pricing.", "Tone of replies.")]
    out: list[Pair] = []
    for i in range(rng.randint(85, 100)):
        r = rng.randint(0, 2)
        order = parts[r:] + parts[:r]
        q = w.question()
        shown = [MARK + order[0]] + order[1:]
        out.append((chat(i, [sys_msg(x) for x in shown] + [user(q)]), chat(i, [sys_msg(x) for x in parts] + [user(q)])))
    return out


# ---------------------------------------------------------------- placement


def felt_reports(rng: random.Random, w: Writer) -> str:
    out = []
    for _ in range(rng.randint(3, 6)):
        out.append(f"Felt report {rng.randint(10000, 99999)} from {rng.choice(SEISMO.fills['place'])}: {w.paragraph(rng.randint(1, 3))}")
    return "\n\n".join(out)


@workload("felt-reports-as-preamble-instructions-second", "messages", ("placement",),
          "the client sends the retrieved felt reports (~150-450 tokens, per request) as the first system message, "
          "so the template makes them the preamble's text, and the desk's ~1.9k-token instructions as a second "
          "system message after them", SEISMO)
def _felt_first(rng: random.Random, w: Writer) -> list[Pair]:
    instructions = w.system(8)
    out: list[Pair] = []
    for i in range(rng.randint(50, 75)):
        docs = felt_reports(rng, w)
        q = w.question()
        out.append((chat(i, [sys_msg(MARK + docs), sys_msg(instructions), user(q)]),
                    chat(i, [sys_msg(instructions), sys_msg(docs), user(q)])))
    return out


def observer_profile(rng: random.Random) -> str:
    surname = rng.choice(['Beridze', 'Okonkwo', 'Lindahl', 'Marchetti', 'Tanaka', 'Gvaramia', 'Fontaine', 'Kowalczyk'])
    return (f"Observer profile: {rng.choice(['Dr', 'Prof.', 'Ms', 'Mr'])} {surname}, "
            f"{rng.choice(['Tbilisi State', 'Uppsala', 'Leiden', 'Padova', 'Kyoto', 'Toruń'])} University; "
            f"{rng.randint(1, 9)} past programmes, {rng.randint(0, 40)} nights lost to weather, prefers "
            f"{rng.choice(['remote', 'on-site', 'queue'])} observing; instruments used: "
            f"{', '.join(rng.sample(OBSERVATORY.fills['inst'], 2))}.")


@workload("observer-profile-opens-system-text-ids", "input_ids", ("placement",),
          "a per-observer profile (~70 tokens) opens the system text ahead of ~2.1k tokens of static allocation "
          "rules; Llama 3 ids", OBSERVATORY)
def _profile(rng: random.Random, w: Writer) -> list[Pair]:
    rules = w.system(9)
    profiles = [observer_profile(rng) for _ in range(40)]
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        prof = rng.choice(profiles)
        q = w.question()
        out.append((chat(i, [sys_msg(f"{MARK}{prof}\n\n{rules}"), user(q)]),
                    chat(i, [sys_msg(f"{rules}\n\n{prof}"), user(q)])))
    return out


@workload("instructions-as-trailing-system-turn-in-sessions", "messages", ("placement",),
          "cellar sessions of 1-6 turns with no first system message (the template prints its default task text) "
          "and the cave's ~1.7k-token instructions re-sent as a system message after the history, ahead of the "
          "newest question; the fix sends them first", CHEESE)
def _trailing(rng: random.Random, w: Writer) -> list[Pair]:
    instructions = w.system(7)
    convs = sessions(rng, w, (12, 16), (1, 6))
    out: list[Pair] = []
    for i, (c, k) in enumerate(interleave(rng, convs)):
        hist = history(convs[c][:k])
        q = convs[c][k][0]
        if hist:
            hist[0] = user(MARK + hist[0]["content"])
            orig = chat(i, hist + [sys_msg(instructions), user(q)])
        else:  # a session's first request: the instructions are the first message, the preamble's text
            orig = chat(i, [sys_msg(SKIP + instructions), user(q)])
        out.append((orig, chat(i, [sys_msg(instructions)] + history(convs[c][:k]) + [user(q)])))
    return out


@workload("spot-report-ahead-of-instructions-plain-prompt", "prompt", ("placement",),
          "a plain completion prompt that opens with the caller's spot report (~120-350 tokens, per request) ahead "
          "of ~1.7k tokens of dispatch instructions and the task", WILDFIRE)
def _spot_first(rng: random.Random, w: Writer) -> list[Pair]:
    body = w.system(7)
    out: list[Pair] = []
    for i in range(rng.randint(20, 32)):
        rep = (f"Spot report from {rng.choice(WILDFIRE.fills['lookout'])}, grid {rng.choice(WILDFIRE.fills['grid'])}: "
               + w.paragraph(rng.randint(3, 9)))
        orig = {"id": f"req-{i:05d}", "prompt": f"{MARK}{rep}\n\n{body}\n\nTask: recommend the first resources.\nDispatcher:"}
        fixed = {"id": f"req-{i:05d}", "prompt": f"{body}\n\n{rep}\n\nTask: recommend the first resources.\nDispatcher:"}
        out.append((orig, fixed))
    return out


@workload("brief-part-ahead-of-static-checklist-part", "messages", ("placement",),
          "the user turn as content parts: the customer's pasted brief (~100-300 tokens), a static ~800-token "
          "licence checklist, the question; SGLang joins the parts with spaces", FOUNDRY)
def _brief(rng: random.Random, w: Writer) -> list[Pair]:
    system = w.system(4)
    checklist = "Licence checklist: " + " ".join(w.rules(26))
    out: list[Pair] = []
    for i in range(rng.randint(50, 75)):
        brief = f"Brief from {rng.choice(COMPANIES)}: {w.paragraph(rng.randint(3, 9))}"
        q = w.question()
        orig = chat(i, [sys_msg(system), {"role": "user", "content": [{"type": "text", "text": MARK + brief},
                                                                      {"type": "text", "text": checklist},
                                                                      {"type": "text", "text": q}]}])
        fixed = chat(i, [sys_msg(system), {"role": "user", "content": [{"type": "text", "text": checklist},
                                                                       {"type": "text", "text": brief},
                                                                       {"type": "text", "text": q}]}])
        out.append((orig, fixed))
    return out


@workload("lot-record-result-ahead-of-late-system-rules", "messages", ("placement",),
          "the client looks up the lot on the desk first (a lookup_lot call and its per-lot result, ~150 tokens) and sends the "
          "~1.4k-token describing rules as a system message only after that result; the fix moves the rules into "
          "the first system message", STAMPS)
def _late_rules(rng: random.Random, w: Writer) -> list[Pair]:
    opening, rules, tools = w.opening(), w.handbook(6), w.tools()
    out: list[Pair] = []
    for i in range(rng.randint(50, 75)):
        lot = str(rng.randint(1000, 1999))
        record = {"lot": lot, "item": rng.choice(STAMPS.fills["item"]), "consignor": f"C-{rng.randint(100, 999)}",
                  "draft": w.paragraph(rng.randint(2, 4))}
        q = w.question()
        result = tool_result(f"call_{lot}", record)
        head = [user("Pull up the lot on my desk."), tool_call(f"call_{lot}", "lookup_lot", {"lot_number": MARK + lot})]
        orig = chat(i, [sys_msg(opening)] + head + [result, sys_msg(rules), user(q)], tools)
        head = [user("Pull up the lot on my desk."), tool_call(f"call_{lot}", "lookup_lot", {"lot_number": lot})]
        fixed = chat(i, [sys_msg(f"{opening}\n\n{rules}")] + head + [tool_result(f"call_{lot}", record), user(q)], tools)
        out.append((orig, fixed))
    return out


@workload("daily-fire-bulletin-ahead-of-manual-ids", "input_ids", ("placement",),
          "the day's fire-danger bulletin (~150 tokens, three days of traffic) opens the system text ahead of a "
          "~2k-token dispatch manual; Llama 3 ids", WILDFIRE)
def _bulletin(rng: random.Random, w: Writer) -> list[Pair]:
    manual = w.system(8)
    bulletins = [f"Fire-danger bulletin, {d} December: {w.paragraph(5)}" for d in (1, 2, 3)]
    out: list[Pair] = []
    for i, ts in enumerate(spread(rng, rng.randint(50, 75), 3)):
        b = bulletins[min(2, int((ts - BASE_TIME) // 86400))]
        q = w.question()
        out.append((untimed(chat(i, [sys_msg(f"{MARK}{b}\n\n{manual}"), user(q)])),
                    untimed(chat(i, [sys_msg(f"{manual}\n\n{b}"), user(q)]))))
    return out


def offer_sheet(rng: random.Random, w: Writer) -> str:
    return (f"Offer {rng.choice(COFFEE.fills['lot'])}: {rng.choice(COFFEE.fills['origin'])}, "
            f"{rng.choice(COFFEE.fills['process'])}, {rng.randint(20, 320)} bags, moisture {rng.uniform(9.5, 13.2):.1f}%, "
            f"asking {rng.uniform(2.1, 6.8):.2f} USD/lb FOB. {w.paragraph(rng.randint(1, 3))}")


@workload("offer-sheet-ahead-of-preamble-raw-prompt", "prompt", ("placement",),
          "raw Command R prompts whose client writes the supplier's offer sheet (per request) at the head of the "
          "system turn, ahead of the safety preamble and the lab's ~1.5k-token rules", COFFEE)
def _offer_first(rng: random.Random, w: Writer) -> list[Pair]:
    rules = w.system(6)
    out: list[Pair] = []
    for i in range(rng.randint(50, 75)):
        sheet = offer_sheet(rng, w)
        q = w.question()
        orig = prompt(i, cr(rules, q, head=f"{MARK}{sheet}\n\n{PREAMBLE}"))
        fixed = prompt(i, cr(f"{rules}\n\n{sheet}", q))
        out.append((orig, fixed))
    return out


# ---------------------------------------------------------------- several defects


@workload("proposal-in-preamble-and-shuffled-tools", "messages", ("dynamic", "order"),
          "the proposal line at the head of the system text and the six tools in a random order after it", OBSERVATORY)
def _prop_tools(rng: random.Random, w: Writer) -> list[Pair]:
    body = w.system(7)
    out: list[Pair] = []
    for i in range(rng.randint(55, 80)):
        tools, canon = shuffled_tools(rng, w, OBS_TOOLS)
        prop = rng.choice(OBSERVATORY.fills["prop"])
        q = w.question()
        orig = chat(i, [sys_msg(f"Proposal {MARK}{prop}\n\n{body}"), user(q)], tools)
        orig[UNIT_HINT] = [TOOLS_HEAD]
        out.append((orig, chat(i, [sys_msg(body), user(f"{q}\n\nProposal {prop}")], canon)))
    return out


@workload("pass-reports-first-and-hourly-tool-docstring", "messages", ("placement", "dynamic"),
          "recent pass reports (per request) sent as the first system message ahead of the station's instructions "
          "in a second one, and the space-weather tool's docstring carrying the hour's Kp index", GROUND)
def _reports_kp(rng: random.Random, w: Writer) -> list[Pair]:
    instructions = w.system(7)
    n = rng.randint(55, 80)
    hour = hourly(rng, n, (5, 9))
    kps = [rng.randint(1, 8) for _ in range(hour[-1] + 1)]
    out: list[Pair] = []
    for i in range(n):
        reps = "\n".join(f"Pass {rng.choice(GROUND.fills['sat'])} {rng.choice(GROUND.fills['time'])}: "
                         f"{rng.choice(['locked', 'no lock', 'partial dump', 'nominal'])}, max el {rng.randint(5, 85)} deg"
                         for _ in range(rng.randint(3, 8)))
        tools = w.tools(GROUND_TOOLS)
        plain = w.tools(GROUND_TOOLS)
        tools[4]["function"]["description"] += f" Kp this hour: {MARK}{kps[hour[i]]}."
        q = w.question()
        orig = chat(i, [sys_msg(MARK + reps), sys_msg(instructions), user(q)], tools)
        fixed = chat(i, [sys_msg(instructions), sys_msg(reps), user(f"{q}\n\n(Kp this hour: {kps[hour[i]]}.)")], plain)
        out.append((orig, fixed))
    return out


@workload("sections-shuffled-and-sample-id-raw-prompt", "prompt", ("order", "dynamic"),
          "raw Command R prompts: ten lab sections in a random order per request, then the sample under test "
          "('Sample GC-4912-S3') ahead of ~500 static tokens of closing rules", COFFEE)
def _sec_sample(rng: random.Random, w: Writer) -> list[Pair]:
    opening = w.opening()
    secs = [(t, w.paragraph(5)) for t in COFFEE.sections]
    canon = "\n\n".join(f"## {t}\n{p}" for t, p in secs)
    tail = "Closing rules:\n" + "\n".join(f"- {r}" for r in w.rules(14))
    out: list[Pair] = []
    for i in range(rng.randint(50, 75)):
        body = "\n\n".join(f"## {t}\n{p}" for t, p in shuffled(rng, secs))
        body = UNIT + "## " + MARK + body[3:]
        sample = f"GC-{rng.randint(1000, 9999)}-S{rng.randint(1, 6)}"
        q = w.question()
        orig = prompt(i, cr(f"{opening}\n\n{body}\n\nSample {MARK}{sample}\n\n{tail}", q))
        fixed = prompt(i, cr(f"{opening}\n\n{canon}\n\n{tail}", f"{q}\n\nSample {sample}"))
        out.append((orig, fixed))
    return out


def caller_profile(rng: random.Random) -> str:
    return (f"Caller: {rng.choice(['Marta Puig', 'Jordi Vila', 'Núria Soler', 'Pau Ferrer', 'Aina Roca', 'Oriol Mas'])}, "
            f"{rng.choice(['forest ranger', 'farm owner', 'campsite manager', 'municipal police', 'volunteer lookout'])}, "
            f"callback 6{rng.randint(10000000, 99999999)}, {rng.randint(0, 12)} earlier calls this season.")


@workload("caller-profile-shift-and-parameter-order", "messages", ("placement", "dynamic", "order"),
          "three defects: a per-caller profile opens the system text, the shift on duty (3 settings) sits ~700 "
          "tokens further, and dispatch_resource's three parameters come in a random order in its signature", WILDFIRE)
def _three(rng: random.Random, w: Writer) -> list[Pair]:
    head, tail = "\n\n".join([w.opening(), w.handbook(3)]), w.handbook(4)
    names = ["resource_id", "incident", "priority"]
    out: list[Pair] = []
    for i in range(rng.randint(55, 80)):
        prof = caller_profile(rng)
        shift = rng.choice(["day shift", "evening shift", "night shift"])
        tools = w.tools(FIRE_TOOLS)
        canon = json.loads(json.dumps(tools))
        tools[1] = with_params(tools[1], shuffled(rng, names), mark=True)
        q = w.question()
        orig = chat(i, [sys_msg(f"{MARK}{prof}\n\n{head}\n\nOn duty: {MARK}{shift}\n\n{tail}"), user(q)], tools)
        orig[UNIT_HINT] = ["def dispatch_resource("]
        fixed = chat(i, [sys_msg(f"{head}\n\n{tail}"), user(f"On duty: {shift}\n\n{q}\n\n{prof}")], canon)
        out.append((orig, fixed))
    return out


@workload("sale-day-line-and-rotated-fewshot-ids", "input_ids", ("dynamic", "order"),
          "the sale day ('Sale 4471, day 2 of 3', three days of traffic) on the first line of the system text, "
          "then three canned question/answer turns in one of three rotations; Llama 3 ids", STAMPS)
def _day_fewshot(rng: random.Random, w: Writer) -> list[Pair]:
    system, shots = w.system(6), w.fewshot(3)
    out: list[Pair] = []
    for i, ts in enumerate(spread(rng, rng.randint(55, 80), 3)):
        d = 1 + min(2, int((ts - BASE_TIME) // 86400))
        r = rng.randint(0, 2)
        order = shots[r:] + shots[:r]
        msgs = [sys_msg(f"Sale 4471, day {MARK}{d} of 3\n\n{system}")]
        for k, (sq, sa) in enumerate(order):
            msgs += [user((MARK if k == 0 else "") + sq), assistant(sa)]
        q = w.question()
        fixed = [sys_msg(f"{system}\n\nSale 4471, day {d} of 3")] + history(shots) + [user(q)]
        out.append((untimed(chat(i, msgs + [user(q)])), untimed(chat(i, fixed))))
    return out


# ---------------------------------------------------------------- clean controls


def _same(records: list[dict[str, Any]]) -> list[Pair]:
    return [(r, r) for r in records]


@workload("clean-static-tools-docket-last", "messages", (),
          "static system text and six tools; the user turn ends with the pass docket and send time", GROUND)
def _c_docket(rng: random.Random, w: Writer) -> list[Pair]:
    system, tools = w.system(8), w.tools()
    return _same([chat(i, [sys_msg(system), user(f"{w.question()}\n\n[docket ND-{rng.randint(10000, 99999)}, "
                                                 f"{clock(BASE_TIME + 43.0 * i)}]")], tools)
                  for i in range(rng.randint(50, 80))])


@workload("clean-growing-sessions-static-tools", "messages", (),
          "describer sessions of 1-7 turns, interleaved, behind a static system text and five tools", STAMPS)
def _c_sessions(rng: random.Random, w: Writer) -> list[Pair]:
    system, tools = w.system(7), w.tools()
    convs = sessions(rng, w, (12, 16), (1, 7))
    return _same([chat(i, [sys_msg(system)] + history(convs[c][:k]) + [user(convs[c][k][0])], tools)
                  for i, (c, k) in enumerate(interleave(rng, convs))])


@workload("clean-agent-loops-stable-signatures", "messages", (),
          "dispatch agent loops of 2-5 steps: Action json calls and <results> turns appended step by step behind "
          "six stable tool signatures", WILDFIRE)
def _c_agent(rng: random.Random, w: Writer) -> list[Pair]:
    system, tools = w.system(5), w.tools(FIRE_TOOLS)
    recs = []
    i = 0
    for task in range(rng.randint(14, 20)):
        msgs: list[dict[str, Any]] = [sys_msg(system), user(w.question())]
        for step in range(rng.randint(2, 5)):
            recs.append(chat(i, json.loads(json.dumps(msgs)), tools))
            i += 1
            cid = f"d{task}s{step}"
            st = rng.choice(WILDFIRE.fills["lookout"])
            msgs.append(tool_call(cid, "get_fire_weather", {"station": st}))
            msgs.append(tool_result(cid, {"station": st, "wind_kmh": rng.randint(5, 60), "rh_pct": rng.randint(6, 60),
                                          "fuel_moisture_pct": rng.randint(3, 20), "observed": clock(BASE_TIME + 60 * i)}))
    return _same(recs)


@workload("clean-value-in-parameter-descriptions", "messages", (),
          "a per-request value (the cave's current reading) in a parameter's description: the template prints "
          "only parameter names and types, so the rendered prompt never carries it", CHEESE)
def _c_param_desc(rng: random.Random, w: Writer) -> list[Pair]:
    system = w.system(7)
    recs = []
    for i in range(rng.randint(50, 80)):
        tools = w.tools()
        props = tools[0]["function"]["parameters"]["properties"]
        props["cave"]["description"] = f"Cave letter; cave B read {rng.uniform(86, 96):.1f}% at {clock(BASE_TIME + 37.0 * i)}."
        recs.append(chat(i, [sys_msg(system), user(w.question())], tools))
    return _same(recs)


@workload("clean-free-blocks-as-enum-ids", "input_ids", (),
          "tonight's free blocks as the enum of book_block's start parameter, per request: the template prints "
          "'start: str' only; Llama 3 ids", OBSERVATORY)
def _c_enum(rng: random.Random, w: Writer) -> list[Pair]:
    system = w.system(8)
    recs = []
    for i in range(rng.randint(50, 80)):
        tools = w.tools(OBS_TOOLS)
        free = sorted(rng.sample([f"{h:02d}:{m:02d}" for h in (19, 20, 21, 22, 23, 0, 1, 2, 3) for m in (0, 30)], 4))
        tools[1]["function"]["parameters"]["properties"]["start"]["enum"] = free
        recs.append(chat(i, [sys_msg(system), user(w.question())], tools))
    return _same(recs)


@workload("clean-documents-after-instructions", "messages", (),
          "static instructions first, then per-request retrieved felt reports as a second system message, then "
          "the question", SEISMO)
def _c_docs(rng: random.Random, w: Writer) -> list[Pair]:
    instructions = w.system(8)
    return _same([chat(i, [sys_msg(instructions), sys_msg(felt_reports(rng, w)), user(w.question())])
                  for i in range(rng.randint(50, 75))])


@workload("clean-static-raw-command-r-prompt", "prompt", (),
          "raw Command R prompts with a static system text and a fresh question per request", FOUNDRY)
def _c_raw(rng: random.Random, w: Writer) -> list[Pair]:
    system = w.system(9)
    return _same([prompt(i, cr(system, w.question())) for i in range(rng.randint(22, 34))])


@workload("clean-two-desks-one-endpoint-ids", "input_ids", (),
          "two products on one endpoint (the cupping lab and the observatory desk), each with its own static system "
          "text, interleaved; Llama 3 ids", COFFEE)
def _c_two(rng: random.Random, w: Writer) -> list[Pair]:
    other = Writer(random.Random(rng.random()), OBSERVATORY)
    a, b = w.system(7), other.system(7)
    return _same([chat(i, [sys_msg(a), user(w.question())]) if rng.random() < 0.55
                  else chat(i, [sys_msg(b), user(other.question())]) for i in range(rng.randint(55, 85))])


@workload("clean-shift-opens-user-turn-after-tools", "messages", (),
          "the shift on duty (3 settings) opens the user turn, right after the static tools: already the place a "
          "few-settings value belongs", WILDFIRE)
def _c_shift(rng: random.Random, w: Writer) -> list[Pair]:
    system, tools = w.system(7), w.tools()
    return _same([chat(i, [sys_msg(system), user(f"On duty: {rng.choice(['day', 'evening', 'night'])} shift\n\n"
                                                 f"{w.question()}")], tools) for i in range(rng.randint(55, 80))])


@workload("clean-default-preamble-static-tools", "messages", (),
          "no system message: the template prints its own default task text; static tools and the question", COFFEE)
def _c_default(rng: random.Random, w: Writer) -> list[Pair]:
    tools = w.tools()
    return _same([chat(i, [user(w.question())], tools) for i in range(rng.randint(50, 75))])


@workload("clean-date-changes-once-ids", "input_ids", (),
          "the date at the end of the system text over two days (it changes once); Llama 3 ids", CHEESE)
def _c_date(rng: random.Random, w: Writer) -> list[Pair]:
    system = w.system(8)
    recs = []
    for i, ts in enumerate(spread(rng, rng.randint(50, 75), 2)):
        _, _, d, _ = day_of(ts)
        recs.append(untimed(chat(i, [sys_msg(f"{system}\n\nData: {d:02d}.12.2026"), user(w.question())])))
    return _same(recs)


assert len(TEAMS) == 8
