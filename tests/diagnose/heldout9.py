"""Ninth held-out diagnosis set: a Mistral model served by vLLM (``--tokenizer-mode mistral``).

Written blind to the detector (advisor/diagnose, advisor/prescribe, the zoo, its shapes and its
tests were not read): DESIGN.md's traffic formats and the rendering advisor/ingest does were
used. Every record is what ``advisor analyze --engine vllm --tokenizer tekken`` reads
(``ANALYZE_ARGS``, which the bench passes to every ``analyze``, ``prescribe`` and ``render`` run
of this set): a chat goes through mistral-common, as vLLM's Mistral tokenizer mode does, and is
measured in Tekken (Mistral NeMo) tokens. Mistral's request layout is neither Llama 3's nor
ChatML's: ``<s>``, then the history turns (``[INST]u[/INST]a</s>``, tool calls as
``[TOOL_CALLS][...]``, results as ``[TOOL_RESULTS]...[/TOOL_RESULTS]``), then the tools
(``[AVAILABLE_TOOLS][...][/AVAILABLE_TOOLS]``) and only then the LAST user turn, which opens
with every system message joined by blank lines ahead of the user's text. So in a one-turn
request the tools come first, then the system text, then the question; in a session the whole
history comes ahead of the system prompt, which is re-sent after it at every turn. Token-id
records hold Tekken ids of that encoding; prompt records hold raw text, some with ``[INST]``
markup, some plain completion prompts. The machinery is the first set's (heldout.py: MARK and
UNIT, Engine, the brute-force oracle) with this set's own renderer, tokenizer and marking; the
text comes from heldout9_text.py: an insurer's claims triage, a museum's collection search, a
ferry operator's desk, a hospital pharmacy's interaction checker with tools, a tax preparer, a
game studio's live-ops desk, a university admissions office.

The logs are noisy: 20 to 100 requests, sessions of 1 to 7 turns, questions of varied length,
in some workloads a share of requests without the defect (they carry SKIP where it would be;
offsets are medians over the requests that carry it).

Shapes. Dynamic values: a claim reference on the first token of the system text (ids); a
formulary snapshot time inside a tool description, hourly in arrival order (ids); a departures
board ~900 tokens deep, new every few requests (ids); a filing status (5 settings) in an [INST]
prompt; an adjuster's name in a system message sent ahead of the main one, which mistral-common
joins first (ids); a ticket header as the first content part ahead of a static checklist part;
live player counts inside the result of a canned priming tool call; a per-request time in the
arguments of such a canned call; a German date in a few-shot assistant answer (ids); an IBAN in
groups of four in an [INST] prompt; wind, swell and draught with units, hourly (ids); a Japanese
date in a spaced '[INST] ' prompt; a Polish date in a plain completion prompt; a platform (4
settings) in a tool description; an intake (2 settings, ids); a ~250-token event configuration
JSON in a prompt; a composite policy line behind static tools (ids); a bed written three times; a
one-token queue length (9 settings, ids); an accession number on the first token of a plain
prompt; a send time re-stamped into the first user turn of every request of a session, the turn
Mistral's layout prints first; a Swedish-format excess in one of two products on the endpoint
(ids). Order: tools (printed first), few-shot message pairs in four rotations, handbook sections
(ids), a JSON array of routes, bullets, renumbered steps (ids), relettered criteria, table rows,
the keys of a tool's parameters, an enum's values (ids). Placement: retrieved records ahead of the
instructions (a spaced [INST] prompt), a claimant profile system message ahead of the main one
(ids), sessions whose history the layout puts ahead of the system prompt (with and without tools),
a claim file ahead of the instructions in an [INST] prompt, an email part ahead of a static
checklist part, a daily bulletin ahead of the manual (ids), a medication chart ahead of the rules
(ids). Several defects: shuffled tools plus a claim reference, a profile system message ahead plus
a decision date (4 days), shuffled sections plus a queue line in an [INST] prompt. Controls: static
tools with a reference at the end, sessions whose instructions already open the first user turn,
agent loops behind a static priming call, an [INST] prompt with records after the instructions,
two products as [INST] prompts, a shift (3 settings) already at the end of the system text, a
static spaced [INST] prompt, a date that changes once, static content parts ahead of a varying
part. Prompt workloads written from one-turn chats join the system text ahead of the user's text
by a blank line inside [INST]...[/INST], as mistral-common does.

Truth: the oracle's hit rate over Tekken ids on the traffic after the ideal fix written here. A
value with many settings goes to the end of the last user turn (a prompt: after the question); a
value with few settings, or many in arrival order, right after the content all requests share,
which in this layout is the end of the system text (the tools come before it); order fixes use one
canonical order; placement fixes put the shared content first and the per-request content after
it. In a session, the shared content is the instructions, and the only place a team controls that
the layout keeps ahead of the history is the first user turn: the fix sends the instructions
there instead of as a system message. Where two places are plausible the generator writes both
(``PLACES``) and the truth is the better measured one; the tests check the choice.
"""

from __future__ import annotations

import json
import random
import statistics
from typing import Any, Callable, Sequence

from advisor.ingest.family_tokenizers import mistral_common_tokenizer
from advisor.ingest.source import make_renderer
from advisor.ingest.tokenizers import load_tokenizer
from advisor.ingest.traffic import parse_record

from tests.diagnose.heldout import (
    BASE_TIME, MARK, UNIT, Engine, Workload, assistant, chat, clock, oracle, prompt, registering, spread, sys_msg,
    untimed, user,
)
from tests.diagnose.heldout9_text import ADMISSIONS, CLAIMS, FERRY, LIVEOPS, MUSEUM, PHARMACY, TAX, TEAMS, Desk, Team

TOKENIZER = "tekken"
ANALYZE_ARGS = ("--engine", "vllm", "--tokenizer", TOKENIZER)

SKIP = "\ue002"  # this request lacks the defect that would be here
Fix = dict[str, Any] | tuple[dict[str, Any], ...]  # one fix, or the plausible places in PLACES order
Pair = tuple[dict[str, Any], Fix]
Builder = Callable[[random.Random, Desk], list[Pair]]
REGISTRY: list[tuple[str, str, tuple[str, ...], str, Builder, str]] = []
TEAM_OF: dict[str, Team] = {}
PLACES: dict[str, tuple[str, ...]] = {}
CHOSEN: dict[str, tuple[int, tuple[float, ...]]] = {}  # name -> (index of the truth's place, each place's rate)
_register = registering(REGISTRY)

END_SYSTEM, END_USER = "end of the system text", "end of the last user turn"


def workload(name: str, kind: str, expect: tuple[str, ...], shape: str, team: Team,
             places: tuple[str, ...] = (), notes: str = "") -> Callable[[Any], Any]:
    TEAM_OF[name] = team
    if places:
        PLACES[name] = places
    return _register(name, kind, expect, shape, notes)


# ---------------------------------------------------------------- Mistral rendering and marking


def mistral_render() -> Callable[[dict[str, Any]], str]:
    """This checkout's rendering as `advisor analyze` with ANALYZE_ARGS sets it up."""
    renderer = make_renderer(TOKENIZER, None, None, [], engine="vllm")

    def render(record: dict[str, Any]) -> str:
        text = renderer.text_of(parse_record(record, "heldout9", 1))
        assert text is not None
        return text
    return render


def mistral_engine(render: Callable[[dict[str, Any]], str] | None = None) -> Engine:
    """An Engine with the Tekken tokenizer and the mistral-common layout (or ``render``, the
    bench's rendering by the checkout under test with ANALYZE_ARGS)."""
    return Engine(render or mistral_render(), load_tokenizer(TOKENIZER))


local_engine = mistral_engine  # what the bench's --render local builds for this set


# Rendered text a MARK (HINT) or a UNIT (UNIT_HINT) follows, for a defect inside a field that
# admits no marker (mistral-common checks a tool's name and type).
HINT, UNIT_HINT = "_mark_after", "_unit_after"


def unhinted(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k not in (HINT, UNIT_HINT)}


def unmark(value: Any) -> Any:
    if isinstance(value, dict) and (HINT in value or UNIT_HINT in value):
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


def _token_bytes(engine: Engine, ids: Sequence[int]) -> list[int]:
    """The byte length of each Tekken token (control tokens as their text)."""
    raw = mistral_common_tokenizer(TOKENIZER).instruct_tokenizer.tokenizer
    special = {i: s for s, i in engine.tok.special_tokens.items()}
    return [len(special[t].encode()) if t in special else len(raw.id_to_byte_piece(t)) for t in ids]


def marked(engine: Engine, record: dict[str, Any]) -> tuple[list[int], list[int | None], list[int]]:
    """Tekken ids of the record without markers; per defect the token offset of its MARK (None
    where SKIP says this request lacks it); the token offsets of the UNIT markers."""
    text = engine.text(unhinted(record)).replace("\\ue002", SKIP)
    for key, marker in ((HINT, MARK), (UNIT_HINT, UNIT)):  # a UNIT hint ends before its MARK
        for hint in record.get(key, ()):
            at = text.index(hint) + len(hint)
            text = text[:at] + marker + text[at:]
    kept: list[str] = []
    events: list[tuple[str, int]] = []
    for ch in text:
        if ch in (MARK, UNIT, SKIP):
            events.append((ch, len(kept)))
        else:
            kept.append(ch)
    plain = "".join(kept)
    ids = engine.tok.encode(plain)
    ends: list[int] = []
    size = 0
    for n in _token_bytes(engine, ids):
        size += n
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


def build_pairs(name: str, seed: int, engine: Engine | None = None) -> list[Pair]:
    """One workload's (original with markers, fix or places) records, before rendering."""
    fn, kind = next((r[4], r[1]) for r in REGISTRY if r[0] == name)
    # Each workload draws from its name and the seed only: adding one changes no other.
    pairs = fn(random.Random(f"{seed}/h9/{name}"), Desk(random.Random(f"{seed}/h9/{name}/text"), TEAM_OF[name]))
    if kind != "prompt":
        return pairs
    spaced = name in SPACED

    def raw(r: dict[str, Any]) -> dict[str, Any]:
        return as_prompt(r, spaced) if "messages" in r else r
    return [(raw(o), tuple(raw(x) for x in f) if isinstance(f, tuple) else raw(f)) for o, f in pairs]


# Prompt workloads whose team's own client writes '[INST] text [/INST]' with spaces.
SPACED = {"japanese-date-first-line", "clean-static-inst-prompt", "catalogue-records-ahead-of-instructions"}


def as_prompt(record: dict[str, Any], spaced: bool = False) -> dict[str, Any]:
    """A one-turn chat as the raw [INST] prompt a team's own client builds from it: the system
    text joined ahead of the user's text by a blank line, as mistral-common joins them."""
    msgs = record["messages"]
    assert [m["role"] for m in msgs[:-1]] == ["system"] * (len(msgs) - 1) and msgs[-1]["role"] == "user"
    body = "\n\n".join(m["content"] for m in msgs)
    text = f"[INST] {body} [/INST]" if spaced else f"[INST]{body}[/INST]"
    return {k: v for k, v in record.items() if k != "messages"} | {"prompt": text}


def build_workloads(seed: int = 12, engine: Engine | None = None, only: Sequence[str] | None = None) -> list[Workload]:
    """Every workload of the ninth held-out set, deterministic for ``seed``, on Tekken ids."""
    engine = engine or mistral_engine()
    if engine.tok.name != TOKENIZER:
        raise ValueError(f"the ninth held-out set is measured in {TOKENIZER} tokens, not {engine.tok.name}")
    out = []
    for name, kind, expect, shape, _fn, notes in REGISTRY:
        if only and name not in only:
            continue
        pairs = build_pairs(name, seed, engine)
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


def ask(desk: Desk, extra: str = "") -> str:
    return desk.question() + (f"\n\n{extra}" if extra else "")


def inst(*turns: str) -> str:
    """A raw Mistral prompt: [INST] user [/INST] assistant ... ending with an open user turn."""
    out = ""
    for k, t in enumerate(turns):
        out += f"[INST]{t}[/INST]" if k % 2 == 0 else f"{t}</s>"
    return out


def call_id(k: int) -> str:
    return f"c{k:08d}"  # mistral-common wants 9 letters or digits


def tool_call(cid: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": None, "tool_calls": [
        {"id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(args, ensure_ascii=False)}}]}


def tool_result(cid: str, name: str, content: Any) -> dict[str, Any]:
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    return {"role": "tool", "tool_call_id": cid, "name": name, "content": text}


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


DE_DAYS = ["Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag", "Sonntag"]
DE_MONTHS = ["Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober",
             "November", "Dezember"]
PL_MONTHS = ["stycznia", "lutego", "marca", "kwietnia", "maja", "czerwca", "lipca", "sierpnia", "września",
             "października", "listopada", "grudnia"]
JA_DAYS = "月火水木金土日"


def day(ts: float) -> tuple[int, int, int, int]:
    import datetime as dt

    d = dt.datetime.fromtimestamp(ts, tz=dt.timezone.utc)
    return d.year, d.month, d.day, d.weekday()


ADJUSTERS = ["Priya Raman", "Tomasz Wilk", "Eilidh MacLeod", "Kwame Asante", "Sofia Marchetti", "Dylan Hughes",
             "Aoife Brennan", "Mehmet Kaya", "Hannah Goldberg", "Ravi Chaudhary", "Lucía Ortega", "Owen Pritchard",
             "Ngozi Eze", "Jonas Berg", "Fatima Zahra", "Callum Reid", "Yuki Tanabe", "Bronwen Price", "Idris Bello",
             "Marta Nowak", "Seán Doyle", "Chloé Laurent", "Arjun Mehta", "Greta Holm", "Nikolai Petrov",
             "Ama Owusu", "Ewan Fraser", "Leila Haddad", "Ffion Jenkins", "Mateus Costa"]


# ---------------------------------------------------------------- dynamic values


@workload("claim-ref-first-token-of-system-ids", "input_ids", ("dynamic",),
          "the triage queue writes the claim reference, line and opening date ('CLM-884213 · motor · opened "
          "28/11/2026') as the first text of the system message, the first token after <s>[INST]; ~10% of requests "
          "come before a claim exists; ~1.8k static tokens follow; Tekken ids", CLAIMS)
def _claim_first(rng: random.Random, d: Desk) -> list[Pair]:
    body = d.system(9)
    out: list[Pair] = []
    for i in range(rng.randint(60, 85)):
        q = d.question()
        if lacks(rng, 0.1):
            rec = chat(i, [sys_msg(SKIP + body), user(q)])
            out.append((rec, unmark(rec)))
            continue
        ref = (f"CLM-{rng.randint(100000, 999999)} · {rng.choice(['motor', 'home', 'travel', 'pet'])} · opened "
               f"{rng.randint(1, 28):02d}/11/2026")
        orig = chat(i, [sys_msg(f"{MARK}{ref}\n\n{body}"), user(q)])
        fixed = chat(i, [sys_msg(body), user(f"{q}\n\n{ref}")])
        out.append((orig, fixed))
    return out


def _pharmacy_tools(d: Desk, note: str | None) -> list[dict[str, Any]]:
    tools = d.tools(["lookup_drug", "check_interaction", "renal_dose", "patient_meds", "allergy_record"])
    if note is not None:
        tools[1]["function"]["description"] += note
    return tools


@workload("formulary-snapshot-in-tool-description", "input_ids", ("dynamic",),
          "the second tool's description ends with the formulary snapshot time ('Formulary snapshot "
          "2026-12-01T14:00Z'), a new one every hour, in arrival order; the tools come first in Mistral's layout, "
          "so ~2k tokens of system text sit behind it", PHARMACY, (END_SYSTEM, END_USER))
def _formulary(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(8)
    n = rng.randint(60, 90)
    hour = hourly(rng, n, (5, 9))
    out: list[Pair] = []
    for i in range(n):
        stamp = f"2026-12-01T{8 + hour[i]:02d}:00Z"
        note = f" Formulary snapshot {MARK}{stamp}."
        q = d.question()
        ts = BASE_TIME + 8 * 3600 + 420.0 * i
        orig = chat(i, [sys_msg(system), user(q)], _pharmacy_tools(d, note), ts)
        plain = _pharmacy_tools(d, None)
        at_system = chat(i, [sys_msg(f"{system}\n\nFormulary snapshot {stamp}."), user(q)], plain, ts)
        at_user = chat(i, [sys_msg(system), user(f"{q}\n\nFormulary snapshot {stamp}.")], plain, ts)
        out.append((orig, (at_system, at_user)))
    return out


PORTS = ["Inchmore", "Port Aline", "Kyle Ardoch", "Sgeir Bay", "Castlehaven"]


@workload("departures-board-deep", "input_ids", ("dynamic",),
          "a three-line departures board ('14:05 Inchmore — on time / 14:40 Port Aline — delayed 15 min ...') after "
          "five handbook sections, ~1.3k tokens deep, replaced every 4-7 requests in arrival order; four more "
          "sections follow", FERRY, (END_SYSTEM, END_USER))
def _board(rng: random.Random, d: Desk) -> list[Pair]:
    head = d.system(5)
    tail = "\n\n".join(d.section(t, 6) for t in FERRY.sections[5:8])
    n = rng.randint(55, 80)
    slot = hourly(rng, n, (4, 7))
    boards = []
    for k in range(slot[-1] + 1):
        lines = []
        for j in range(3):
            hh, mm = 9 + (k * 25 + j * 35) // 60, (k * 25 + j * 35) % 60
            port = rng.choice(PORTS)
            state = rng.choice(['on time', 'on time', 'delayed 15 min', 'weather hold', 'boarding'])
            lines.append(f"{hh:02d}:{mm:02d} {port} — {state}")
        boards.append("\n".join(lines))
    out: list[Pair] = []
    for i in range(n):
        board = boards[slot[i]]
        q = d.question()
        orig = chat(i, [sys_msg(f"{head}\n\nDepartures board:\n{MARK}{board}\n\n{tail}"), user(q)])
        a = chat(i, [sys_msg(f"{head}\n\n{tail}\n\nDepartures board:\n{board}"), user(q)])
        b = chat(i, [sys_msg(f"{head}\n\n{tail}"), user(f"{q}\n\nDepartures board:\n{board}")])
        out.append((orig, (a, b)))
    return out


STATUSES = ["single", "married filing jointly", "married filing separately", "head of household", "qualifying widow(er)"]


@workload("filing-status-five-settings", "prompt", ("dynamic",),
          "the client's filing status (5 settings) on its own line after three of eight handbook sections",
          TAX, (END_SYSTEM, END_USER))
def _status(rng: random.Random, d: Desk) -> list[Pair]:
    head = "\n\n".join([d.opening(), d.section("Employment"), d.section("Self-employment"), d.section("Property")])
    tail = "\n\n".join(d.section(t) for t in TAX.sections[3:])
    out: list[Pair] = []
    for i in range(rng.randint(50, 75)):
        s = rng.choice(STATUSES)
        q = d.question()
        orig = chat(i, [sys_msg(f"{head}\n\nFiling status: {MARK}{s}\n\n{tail}"), user(q)])
        a = chat(i, [sys_msg(f"{head}\n\n{tail}\n\nFiling status: {s}"), user(q)])
        b = chat(i, [sys_msg(f"{head}\n\n{tail}"), user(f"{q}\n\nFiling status: {s}")])
        out.append((orig, (a, b)))
    return out


@workload("adjuster-system-message-ahead", "input_ids", ("dynamic",),
          "a short system message naming the adjuster on duty (30 names) sent ahead of the 2k-token main system "
          "message; mistral-common joins both at the head of the user turn, the name first",
          CLAIMS, (END_USER, "a system message after the main one"))
def _adjuster(rng: random.Random, d: Desk) -> list[Pair]:
    main = d.system(10)
    out: list[Pair] = []
    for i in range(rng.randint(60, 90)):
        who = f"Adjuster on duty: {rng.choice(ADJUSTERS)} (desk {rng.randint(1, 6)})"
        q = d.question()
        orig = chat(i, [sys_msg(MARK + who), sys_msg(main), user(q)])
        a = chat(i, [sys_msg(main), user(f"{q}\n\n{who}")])
        b = chat(i, [sys_msg(main), sys_msg(who), user(q)])
        out.append((orig, (a, b)))
    return out


REGIONS = ["eu-west", "eu-central", "na-east", "na-west", "sa-east", "apac-se", "apac-ne"]


@workload("ticket-header-first-content-part", "messages", ("dynamic",),
          "the user turn's first content part is the ticket header ('Ticket #58213 · opened 09:14:07 · eu-west'), "
          "then a static 900-token escalation checklist part, then the question part", LIVEOPS)
def _ticket(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(6)
    checklist = "Escalation checklist:\n" + "\n".join(f"- {r}" for r in d.rules(30))
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        ts = BASE_TIME + 33000 + 53.0 * i
        head = f"Ticket #{rng.randint(10000, 99999)} · opened {clock(ts)} · {rng.choice(REGIONS)}"
        q = d.question()
        parts = [{"type": "text", "text": MARK + head}, {"type": "text", "text": checklist}, {"type": "text", "text": q}]
        orig = chat(i, [sys_msg(system), {"role": "user", "content": parts}], ts=ts)
        fparts = [{"type": "text", "text": checklist}, {"type": "text", "text": q}, {"type": "text", "text": head}]
        out.append((orig, chat(i, [sys_msg(system), {"role": "user", "content": fparts}], ts=ts)))
    return out


RUNBOOK_NAMES = ["get_runbook"]


def _runbook(d: Desk) -> str:
    return "\n".join(f"{k + 1}. {r}" for k, r in enumerate(d.rules(26)))


def _liveops_tools(d: Desk) -> list[dict[str, Any]]:
    tools = d.tools()
    tools.append({"type": "function", "function": {"name": "get_runbook", "description": "The live-ops runbook and live figures.",
                                                   "parameters": {"type": "object", "properties": {}}}})
    return tools


@workload("ccu-in-priming-tool-result", "messages", ("dynamic",),
          "every request replays a canned priming exchange (user asks for the runbook, a get_runbook call, its "
          "result, an acknowledgement) ahead of the real question; the result's JSON opens with live concurrent "
          "users per region, refreshed hourly, in arrival order, before ~700 tokens of static runbook",
          LIVEOPS, (END_SYSTEM, END_USER))
def _ccu(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(5)
    book = _runbook(d)
    tools = _liveops_tools(d)
    n = rng.randint(50, 75)
    hour = hourly(rng, n, (5, 10))
    figures = [{r: rng.randint(4000, 90000) for r in ("eu", "na", "apac")} for _ in range(hour[-1] + 1)]
    cid = call_id(1)
    out: list[Pair] = []
    for i in range(n):
        f = figures[hour[i]]
        live = ", ".join(f"{k} {v:,}" for k, v in f.items())

        def primed(result: dict[str, Any]) -> list[dict[str, Any]]:
            return [user("Load the live-ops runbook."), tool_call(cid, "get_runbook", {}),
                    tool_result(cid, "get_runbook", result), assistant("Runbook loaded.")]
        q = d.question()
        orig = chat(i, [sys_msg(system)] + primed({"ccu": MARK + live, "runbook": book}) + [user(q)], tools)
        plain = primed({"runbook": book})
        a = chat(i, [sys_msg(f"{system}\n\nConcurrent users: {live}")] + plain + [user(q)], tools)
        b = chat(i, [sys_msg(system)] + plain + [user(f"{q}\n\nConcurrent users: {live}")], tools)
        out.append((orig, (a, b)))
    return out


@workload("clock-in-canned-call-arguments", "messages", ("dynamic",),
          "a canned load_formulary-style call replayed ahead of each question carries the request's own time to the "
          "second in its arguments ('as_of': '2026-12-01T09:14:07'); the static result (~800 tokens) follows it",
          PHARMACY)
def _call_clock(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(5)
    tools = _pharmacy_tools(d, None)
    policy = "\n".join(f"- {r}" for r in d.rules(28))
    cid = call_id(7)
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        ts = BASE_TIME + 30000 + 47.0 * i + rng.uniform(0, 20)
        stamp = "2026-12-01T" + clock(ts)
        q = d.question()

        def primed(args: dict[str, Any]) -> list[dict[str, Any]]:
            return [user("Load the ward interaction policy."), tool_call(cid, "lookup_drug", args),
                    tool_result(cid, "lookup_drug", {"policy": policy}), assistant("Policy loaded.")]
        orig = chat(i, [sys_msg(system)] + primed({"name": "ward-policy", "as_of": MARK + stamp}) + [user(q)], tools, ts)
        fixed = chat(i, [sys_msg(system)] + primed({"name": "ward-policy"}) + [user(f"{q}\n\n(as of {stamp})")], tools, ts)
        out.append((orig, fixed))
    return out


@workload("german-date-in-fewshot-answer", "input_ids", ("dynamic",),
          "three few-shot question/answer turns ahead of the real question; the first canned answer opens with the "
          "catalogue's German 'Stand' date ('Stand: Dienstag, 1. Dezember 2026'), one per day over six days",
          MUSEUM, (END_SYSTEM, END_USER))
def _german(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(7)
    shots = d.fewshot(3)
    out: list[Pair] = []
    for i, ts in enumerate(spread(rng, rng.randint(55, 80), 6)):
        y, m, dd, wd = day(ts)
        stand = f"Stand: {DE_DAYS[wd]}, {dd}. {DE_MONTHS[m - 1]} {y}"

        def turns(first: str) -> list[dict[str, Any]]:
            msgs: list[dict[str, Any]] = []
            for k, (sq, sa) in enumerate(shots):
                msgs += [user(sq), assistant(f"{first}{sa}" if k == 0 else sa)]
            return msgs
        q = d.question()
        orig = untimed(chat(i, [sys_msg(system)] + turns(f"{MARK}{stand}. ") + [user(q)]))
        a = untimed(chat(i, [sys_msg(f"{system}\n\n{stand}.")] + turns("") + [user(q)]))
        b = untimed(chat(i, [sys_msg(system)] + turns("") + [user(f"{q}\n\n{stand}.")]))
        out.append((orig, (a, b)))
    return out


def iban(rng: random.Random) -> str:
    raw = f"GB{rng.randint(10, 99)}{rng.choice(['LOYD', 'BARC', 'NWBK', 'HBUK', 'MONZ'])}" + "".join(
        rng.choice("0123456789") for _ in range(14))
    return " ".join(raw[k:k + 4] for k in range(0, len(raw), 4))


@workload("refund-iban-in-inst-prompt", "prompt", ("dynamic",),
          "a raw [INST] prompt: opening, two sections, then the client's refund IBAN in groups of four ('GB29 NWBK "
          "6016 1331 9268 19'), then ~1.4k tokens of sections and the question", TAX)
def _iban(rng: random.Random, d: Desk) -> list[Pair]:
    head = "\n\n".join([d.opening(), d.section("Allowances"), d.section("Penalties")])
    tail = "\n\n".join(d.section(t) for t in TAX.sections[:6])
    out: list[Pair] = []
    for i in range(rng.randint(45, 70)):
        acct = f"Refund account: {iban(rng)}"
        q = d.question()
        orig = prompt(i, inst(f"{head}\n\n{acct.replace(': ', ': ' + MARK)}\n\n{tail}\n\nQuestion: {q}"))
        fixed = prompt(i, inst(f"{head}\n\n{tail}\n\nQuestion: {q}\n{acct}"))
        out.append((orig, fixed))
    return out


@workload("sea-state-with-units-ids", "input_ids", ("dynamic",),
          "a conditions line with units ('wind 23 kn gusting 31 kn, swell 1.4 m, draught limit 4.35 m') after "
          "four sections, ~1k tokens deep, updated hourly in arrival order; Tekken ids", FERRY, (END_SYSTEM, END_USER))
def _sea(rng: random.Random, d: Desk) -> list[Pair]:
    head = d.system(4)
    tail = "\n\n".join(d.section(t) for t in FERRY.sections[4:])
    n = rng.randint(50, 80)
    hour = hourly(rng, n, (6, 11))
    lines = []
    for _ in range(hour[-1] + 1):
        w = rng.randint(8, 38)
        lines.append(f"wind {w} kn gusting {w + rng.randint(4, 12)} kn, swell {rng.randint(3, 32) / 10:.1f} m, "
                     f"draught limit {rng.choice(['4.35', '4.20', '4.05', '3.90'])} m")
    out: list[Pair] = []
    for i in range(n):
        cond = f"Conditions at Inchmore: {lines[hour[i]]}"
        q = d.question()
        orig = chat(i, [sys_msg(f"{head}\n\nConditions at Inchmore: {MARK}{lines[hour[i]]}\n\n{tail}"), user(q)])
        a = chat(i, [sys_msg(f"{head}\n\n{tail}\n\n{cond}"), user(q)])
        b = chat(i, [sys_msg(f"{head}\n\n{tail}"), user(f"{q}\n\n{cond}")])
        out.append((orig, (a, b)))
    return out


@workload("japanese-date-first-line", "prompt", ("dynamic",),
          "the first line of the system text is today's date in Japanese ('本日は2026年12月1日（火）です。'), five "
          "days of traffic", ADMISSIONS, (END_SYSTEM, END_USER))
def _ja(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(8)
    out: list[Pair] = []
    for i, ts in enumerate(spread(rng, rng.randint(50, 75), 5)):
        y, m, dd, wd = day(ts)
        line = f"本日は{y}年{m}月{dd}日（{JA_DAYS[wd]}）です。"
        q = d.question()
        orig = untimed(chat(i, [sys_msg(f"本日は{MARK}{line[3:]}\n{system}"), user(q)]))
        a = untimed(chat(i, [sys_msg(f"{system}\n\n{line}"), user(q)]))
        b = untimed(chat(i, [sys_msg(system), user(f"{q}\n\n{line}")]))
        out.append((orig, (a, b)))
    return out


@workload("polish-date-completion-prompt", "prompt", ("dynamic",),
          "a plain completion prompt (no [INST]) opening with the Polish date ('Data: 1 grudnia 2026'), four days, "
          "then ~1.6k tokens of handbook, the claim note and 'Ocena:'", CLAIMS, ("after the handbook", "after the note"))
def _polish(rng: random.Random, d: Desk) -> list[Pair]:
    body = d.system(8)
    out: list[Pair] = []
    for i, ts in enumerate(spread(rng, rng.randint(45, 70), 4)):
        y, m, dd, _ = day(ts)
        date = f"{dd} {PL_MONTHS[m - 1]} {y}"
        q = d.question()
        orig = {"id": f"req-{i:05d}", "prompt": f"Data: {MARK}{date}\n\n{body}\n\nZgłoszenie: {q}\nOcena:"}
        a = {"id": f"req-{i:05d}", "prompt": f"{body}\n\nData: {date}\n\nZgłoszenie: {q}\nOcena:"}
        b = {"id": f"req-{i:05d}", "prompt": f"{body}\n\nZgłoszenie: {q}\nData: {date}\nOcena:"}
        out.append((orig, (a, b)))
    return out


PLATFORMS = ["PC", "PlayStation 5", "Xbox Series X|S", "Nintendo Switch"]


@workload("platform-in-tool-description", "messages", ("dynamic",),
          "the post_notice tool's description names the platform the desk serves (4 settings), inside the "
          "[AVAILABLE_TOOLS] block that Mistral prints ahead of the system text", LIVEOPS, (END_SYSTEM, END_USER))
def _platform(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(7)
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        pf = rng.choice(PLATFORMS)
        tools = d.tools()
        tools[3]["function"]["description"] += f" Notices go to {MARK}{pf} players."
        plain = d.tools()
        q = d.question()
        orig = chat(i, [sys_msg(system), user(q)], tools)
        a = chat(i, [sys_msg(f"{system}\n\nNotices go to {pf} players."), user(q)], plain)
        b = chat(i, [sys_msg(system), user(f"{q}\n\nNotices go to {pf} players.")], plain)
        out.append((orig, (a, b)))
    return out


@workload("intake-two-settings-ids", "input_ids", ("dynamic",),
          "the intake the office is deciding ('Intake: autumn 2027' or 'spring 2027') on the second line of the "
          "system text; Tekken ids", ADMISSIONS, (END_SYSTEM, END_USER))
def _intake(rng: random.Random, d: Desk) -> list[Pair]:
    opening = d.opening()
    body = d.handbook(8)
    out: list[Pair] = []
    for i in range(rng.randint(40, 65)):
        season = rng.choice(["autumn", "spring"])
        q = d.question()
        orig = chat(i, [sys_msg(f"{opening}\nIntake: {MARK}{season} 2027\n\n{body}"), user(q)])
        a = chat(i, [sys_msg(f"{opening}\n\n{body}\n\nIntake: {season} 2027"), user(q)])
        b = chat(i, [sys_msg(f"{opening}\n\n{body}"), user(f"{q}\n\nIntake: {season} 2027")])
        out.append((orig, (a, b)))
    return out


def event_config(rng: random.Random, k: int) -> str:
    cfg = {"event": f"frostfall-{k}", "ends_utc": f"2026-12-0{1 + k // 6}T{(k * 5) % 24:02d}:00Z",
           "multipliers": {"xp": rng.choice([1.5, 2.0, 2.5]), "drops": rng.choice([1.0, 1.25, 1.5])},
           "featured": rng.sample(["ember_crown", "frost_blade", "aurora_cloak", "rime_bow", "glacier_shield",
                                   "snowdrift_mount", "icicle_pet"], 4),
           "regions": {r: {"queue_s": rng.randint(5, 400), "servers": rng.randint(20, 160)} for r in REGIONS}}
    return json.dumps(cfg, ensure_ascii=False)


@workload("event-config-json-long-span", "prompt", ("dynamic",),
          "a ~250-token JSON of the running event's configuration (multipliers, featured items, per-region "
          "queues) after two sections, replaced every ~8 requests in arrival order; six sections follow",
          LIVEOPS, (END_SYSTEM, END_USER))
def _event(rng: random.Random, d: Desk) -> list[Pair]:
    head = "\n\n".join([d.opening(), d.section("Incidents"), d.section("Events")])
    tail = "\n\n".join(d.section(t) for t in LIVEOPS.sections[2:])
    n = rng.randint(55, 85)
    slot = hourly(rng, n, (6, 10))
    cfgs = [event_config(rng, k) for k in range(slot[-1] + 1)]
    out: list[Pair] = []
    for i in range(n):
        cfg = cfgs[slot[i]]
        q = d.question()
        orig = chat(i, [sys_msg(f"{head}\n\nCurrent event configuration:\n{MARK}{cfg}\n\n{tail}"), user(q)])
        a = chat(i, [sys_msg(f"{head}\n\n{tail}\n\nCurrent event configuration:\n{cfg}"), user(q)])
        b = chat(i, [sys_msg(f"{head}\n\n{tail}"), user(f"{q}\n\nCurrent event configuration:\n{cfg}")])
        out.append((orig, (a, b)))
    return out


def _claims_tools(d: Desk) -> list[dict[str, Any]]:
    return d.tools(["lookup_policy", "open_claim", "assign_adjuster", "set_reserve", "request_documents"])


@workload("composite-policy-line-with-tools", "input_ids", ("dynamic",),
          "a composite policy line ('Policy HM-4471-0932 | motor comprehensive | excess £250 | renews 01/03/2027 "
          "| NCD 6 yrs') a third into the system text, behind five static tools", CLAIMS)
def _policy_line(rng: random.Random, d: Desk) -> list[Pair]:
    head = "\n\n".join([d.opening(), d.section("Intake"), d.section("Cover checks"), d.section("Reserving")])
    tail = "\n\n".join(d.section(t) for t in CLAIMS.sections[3:9])
    tools = _claims_tools(d)
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        number = f"HM-{rng.randint(1000, 9999)}-{rng.randint(1000, 9999)}"
        cover = rng.choice(['motor comprehensive', 'motor third party', 'buildings', 'contents', 'travel annual'])
        line = (f"{number} | {cover} "
                f"| excess £{rng.choice([100, 150, 250, 350, 500])} | renews {rng.randint(1, 28):02d}/{rng.randint(1, 12):02d}/2027 "
                f"| NCD {rng.randint(0, 9)} yrs")
        q = d.question()
        orig = chat(i, [sys_msg(f"{head}\n\nPolicy {MARK}{line}\n\n{tail}"), user(q)], tools)
        fixed = chat(i, [sys_msg(f"{head}\n\n{tail}"), user(f"{q}\n\nPolicy {line}")], tools)
        out.append((orig, fixed))
    return out


@workload("bed-written-three-times", "prompt", ("dynamic",),
          "the ward and bed ('ward 7B, bed 14') written three times through the system text: the first line, "
          "mid-way and in the closing rule; the fix writes it once at the end of the user turn", PHARMACY)
def _bed(rng: random.Random, d: Desk) -> list[Pair]:
    a, b, c = d.handbook(3), "\n\n".join(d.section(t) for t in PHARMACY.sections[3:6]), d.section("Escalation")
    opening = d.opening()
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        bed = f"ward {rng.randint(1, 12)}{rng.choice('ABCD')}, bed {rng.randint(1, 28)}"
        q = d.question()
        orig = chat(i, [sys_msg(f"{opening}\nPatient location: {MARK}{bed}.\n\n{a}\n\nChecks for {bed} follow.\n\n{b}\n\n"
                                f"{c}\nSign off for {bed}."), user(q)])
        fixed = chat(i, [sys_msg(f"{opening}\n\n{a}\n\nChecks for the patient follow.\n\n{b}\n\n{c}\nSign off for the patient."),
                         user(f"{q}\n\nPatient location: {bed}.")])
        out.append((orig, fixed))
    return out


@workload("queue-minutes-one-token-ids", "input_ids", ("dynamic",),
          "the matchmaking queue in minutes as one digit (1-9) on the first line of the system text; Tekken ids",
          LIVEOPS, (END_SYSTEM, END_USER))
def _queue(rng: random.Random, d: Desk) -> list[Pair]:
    body = d.system(8)
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        mins = rng.randint(1, 9)
        q = d.question()
        orig = chat(i, [sys_msg(f"Queue: {MARK}{mins} min\n{body}"), user(q)])
        a = chat(i, [sys_msg(f"{body}\n\nQueue: {mins} min"), user(q)])
        b = chat(i, [sys_msg(body), user(f"{q}\n\nQueue: {mins} min")])
        out.append((orig, (a, b)))
    return out


@workload("accession-first-token-plain-prompt", "prompt", ("dynamic",),
          "a plain completion prompt whose first token is the object's accession number ('GHM.1987.44.2: brass "
          "astrolabe'), ~1.7k tokens of cataloguing rules after it; 15% of requests search without an object", MUSEUM)
def _accession(rng: random.Random, d: Desk) -> list[Pair]:
    body = d.system(8)
    objects = ["brass astrolabe", "linen sampler", "whaling log", "tin-glazed charger", "estate map", "silver tankard"]
    out: list[Pair] = []
    for i in range(rng.randint(45, 70)):
        q = d.question()
        if lacks(rng, 0.15):
            rec = prompt(i, f"{SKIP}{body}\n\nRequest: {q}\nReply:")
            out.append((rec, unmark(rec)))
            continue
        obj = f"GHM.{rng.randint(1950, 2024)}.{rng.randint(1, 99)}.{rng.randint(1, 9)}: {rng.choice(objects)}"
        orig = prompt(i, f"{MARK}{obj}\n\n{body}\n\nRequest: {q}\nReply:")
        fixed = prompt(i, f"{body}\n\nRequest: {q}\nObject: {obj}\nReply:")
        out.append((orig, fixed))
    return out


@workload("restamped-first-turn-in-sessions", "messages", ("dynamic",),
          "sessions of 1-6 turns whose instructions open the first user turn (no system message), but the client "
          "re-stamps that first turn with the send time of each request ('[sent 09:14:07]' ahead of the "
          "instructions), so the history mistral-common prints first never repeats", ADMISSIONS)
def _restamped(rng: random.Random, d: Desk) -> list[Pair]:
    instructions = d.system(7)
    convs = sessions(rng, d, (12, 16), (1, 6))
    out: list[Pair] = []
    for i, (c, k) in enumerate(interleave(rng, convs)):
        ts = BASE_TIME + 30000 + 29.0 * i
        stamp = f"[sent {clock(ts)}]"
        turns = convs[c][:k] + [(convs[c][k][0], "")]
        msgs: list[dict[str, Any]] = []
        fixed: list[dict[str, Any]] = []
        for j, (q, a) in enumerate(turns):
            last = j == len(turns) - 1
            msgs.append(user(f"[sent {MARK}{clock(ts)}]\n{instructions}\n\n{q}" if j == 0 else q))
            body = f"{instructions}\n\n{q}" if j == 0 else q
            fixed.append(user(f"{body}\n\n{stamp}" if last else body))
            if not last:
                msgs.append(assistant(a))
                fixed.append(assistant(a))
        out.append((chat(i, msgs, ts=ts), chat(i, fixed, ts=ts)))
    return out


@workload("excess-amount-in-one-of-two-products-ids", "input_ids", ("dynamic",),
          "two products on one endpoint (claims triage and tax preparation); the claims prompt, ~55% of the "
          "traffic, carries the policy excess in Swedish format ('självrisk 2 500 kr') ~600 tokens in, the tax "
          "prompt nothing per request; Tekken ids", CLAIMS)
def _two_products(rng: random.Random, d: Desk) -> list[Pair]:
    other = Desk(random.Random(rng.random()), TAX)
    head, tail = d.system(3), "\n\n".join(d.section(t) for t in CLAIMS.sections[3:9])
    tax = other.system(8)
    out: list[Pair] = []
    for i in range(rng.randint(60, 90)):
        if rng.random() < 0.45:
            rec = chat(i, [sys_msg(SKIP + tax), user(other.question())])
            out.append((rec, unmark(rec)))
            continue
        amount = f"{rng.randint(1, 9)} {rng.choice(['000', '500', '250', '750'])} kr"
        q = d.question()
        orig = chat(i, [sys_msg(f"{head}\n\nSjälvrisk: {MARK}{amount}\n\n{tail}"), user(q)])
        fixed = chat(i, [sys_msg(f"{head}\n\n{tail}"), user(f"{q}\n\nSjälvrisk: {amount}")])
        out.append((orig, fixed))
    return out


# ---------------------------------------------------------------- order


def shuffled(rng: random.Random, items: Sequence[Any]) -> list[Any]:
    out = list(items)
    rng.shuffle(out)
    return out


FIRST_TOOL = '[AVAILABLE_TOOLS][{"type": "function", "function": {"name": "'  # the tools' names start apart


@workload("interaction-tools-shuffled", "messages", ("order",),
          "the five pharmacy tools in a different order per request; Mistral prints them first, right after <s>",
          PHARMACY)
def _tools_order(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(7)
    names = ["lookup_drug", "check_interaction", "renal_dose", "patient_meds", "allergy_record"]
    out: list[Pair] = []
    for i in range(rng.randint(55, 85)):
        order = shuffled(rng, names)
        tools = d.tools(order)
        q = d.question()
        orig = chat(i, [sys_msg(system), user(q)], tools)
        orig[HINT], orig[UNIT_HINT] = [FIRST_TOOL], ["[AVAILABLE_TOOLS]["]
        out.append((orig, chat(i, [sys_msg(system), user(q)], d.tools(names))))
    return out


@workload("fewshot-pairs-rotating", "messages", ("order",),
          "four few-shot question/answer turns sent in one of four rotations, ahead of the system text and the "
          "question (the layout puts history first)", TAX)
def _fewshot_rot(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(6)
    shots = d.fewshot(4)
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        r = rng.randint(0, 3)
        order = shots[r:] + shots[:r]
        msgs: list[dict[str, Any]] = [sys_msg(system)]
        for k, (sq, sa) in enumerate(order):
            msgs += [user((MARK if k == 0 else "") + sq), assistant(sa)]
        canon: list[dict[str, Any]] = [sys_msg(system)]
        for sq, sa in shots:
            canon += [user(sq), assistant(sa)]
        q = d.question()
        out.append((chat(i, msgs + [user(q)]), chat(i, canon + [user(q)])))
    return out


@workload("handbook-sections-shuffled", "input_ids", ("order",),
          "the nine claims handbook sections in a random order per request after a static opening", CLAIMS)
def _sections(rng: random.Random, d: Desk) -> list[Pair]:
    opening = d.opening()
    secs = [(t, d.paragraph(6)) for t in CLAIMS.sections[:9]]
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        order = shuffled(rng, secs)
        body = "\n\n".join(f"## {t}\n{p}" for t, p in order)
        body = UNIT + "## " + MARK + body[3:]
        canon = "\n\n".join(f"## {t}\n{p}" for t, p in secs)
        q = d.question()
        out.append((chat(i, [sys_msg(f"{opening}\n\n{body}"), user(q)]), chat(i, [sys_msg(f"{opening}\n\n{canon}"), user(q)])))
    return out


def routes(d: Desk) -> list[dict[str, Any]]:
    r = d.rng
    out = []
    for code, a, b in [("IM-PA", "Inchmore", "Port Aline"), ("KA-SB", "Kyle Ardoch", "Sgeir Bay"),
                       ("CH-IM", "Castlehaven", "Inchmore"), ("PA-SB", "Port Aline", "Sgeir Bay"),
                       ("KA-CH", "Kyle Ardoch", "Castlehaven"), ("SB-IM", "Sgeir Bay", "Inchmore")]:
        out.append({"route": code, "from": a, "to": b, "crossing_min": r.randint(25, 140),
                    "vessel": r.choice(["MV Solan", "MV Guillemot", "MV Corran"]), "note": d.rule()})
    return out


@workload("routes-json-array-shuffled", "prompt", ("order",),
          "a raw [INST] prompt with a JSON array of six route objects in a random order per request after ~1k "
          "tokens of rules", FERRY)
def _routes(rng: random.Random, d: Desk) -> list[Pair]:
    head = d.system(5)
    objs = routes(d)
    out: list[Pair] = []
    for i in range(rng.randint(50, 75)):
        order = shuffled(rng, objs)
        arr = json.dumps(order, ensure_ascii=False)
        arr = UNIT + '[{"route": "' + MARK + arr[len('[{"route": "'):]
        q = d.question()
        orig = prompt(i, inst(f"{head}\n\nRoutes:\n{arr}\n\nQuestion: {q}"))
        fixed = prompt(i, inst(f"{head}\n\nRoutes:\n{json.dumps(objs, ensure_ascii=False)}\n\nQuestion: {q}"))
        out.append((orig, fixed))
    return out


@workload("cataloguing-bullets-shuffled", "prompt", ("order",),
          "a plain completion prompt: ~700 tokens of opening, then 24 cataloguing rules as bullets in a random "
          "order, then 900 static tokens and the request", MUSEUM)
def _bullets(rng: random.Random, d: Desk) -> list[Pair]:
    head = d.system(3)
    rules = d.rules(24)
    tail = "\n\n".join(d.section(t) for t in MUSEUM.sections[3:7])
    out: list[Pair] = []
    for i in range(rng.randint(45, 70)):
        order = shuffled(rng, rules)
        bl = "\n".join(f"- {r}" for r in order)
        bl = UNIT + "- " + MARK + bl[2:]
        q = d.question()
        orig = prompt(i, f"{head}\n\nCataloguing rules:\n{bl}\n\n{tail}\n\nRequest: {q}\nReply:")
        canon = "\n".join(f"- {r}" for r in rules)
        out.append((orig, prompt(i, f"{head}\n\nCataloguing rules:\n{canon}\n\n{tail}\n\nRequest: {q}\nReply:")))
    return out


@workload("renumbered-steps-ids", "input_ids", ("order",),
          "twelve verification steps in a random order, renumbered 1-12 each time, after ~900 tokens; Tekken ids",
          PHARMACY)
def _steps(rng: random.Random, d: Desk) -> list[Pair]:
    head = d.system(4)
    steps = d.rules(12)
    tail = "\n\n".join(d.section(t) for t in PHARMACY.sections[4:8])
    out: list[Pair] = []
    for i in range(rng.randint(45, 70)):
        order = shuffled(rng, steps)
        lst = "\n".join(f"{k + 1}. {s}" for k, s in enumerate(order))
        lst = UNIT + "1. " + MARK + lst[3:]
        canon = "\n".join(f"{k + 1}. {s}" for k, s in enumerate(steps))
        q = d.question()
        out.append((chat(i, [sys_msg(f"{head}\n\nVerification steps:\n{lst}\n\n{tail}"), user(q)]),
                    chat(i, [sys_msg(f"{head}\n\nVerification steps:\n{canon}\n\n{tail}"), user(q)])))
    return out


@workload("relettered-criteria", "messages", ("order",),
          "eight shortlisting criteria '(a) ... (h)' in a random order and relettered, after ~600 tokens, with "
          "five static tools", ADMISSIONS)
def _criteria(rng: random.Random, d: Desk) -> list[Pair]:
    head = d.system(3)
    crit = d.rules(8)
    tail = "\n\n".join(d.section(t) for t in ADMISSIONS.sections[3:8])
    tools = d.tools()
    out: list[Pair] = []
    for i in range(rng.randint(45, 70)):
        order = shuffled(rng, crit)
        lst = "\n".join(f"({'abcdefgh'[k]}) {c}" for k, c in enumerate(order))
        lst = UNIT + "(a) " + MARK + lst[4:]
        canon = "\n".join(f"({'abcdefgh'[k]}) {c}" for k, c in enumerate(crit))
        q = d.question()
        out.append((chat(i, [sys_msg(f"{head}\n\nShortlisting criteria:\n{lst}\n\n{tail}"), user(q)], tools),
                    chat(i, [sys_msg(f"{head}\n\nShortlisting criteria:\n{canon}\n\n{tail}"), user(q)], tools)))
    return out


DROPS = [("Ember Crown", "legendary", "0.4%"), ("Frost Blade", "epic", "2.1%"), ("Aurora Cloak", "epic", "2.6%"),
         ("Rime Bow", "rare", "7.5%"), ("Glacier Shield", "rare", "8.0%"), ("Snowdrift Mount", "legendary", "0.2%"),
         ("Icicle Pet", "uncommon", "14%"), ("Frost Shard", "common", "65.2%")]


@workload("drop-table-rows-shuffled", "prompt", ("order",),
          "a raw [INST] prompt with a markdown drop-rate table whose eight rows come in a random order, after "
          "~1.2k tokens, then more sections", LIVEOPS)
def _drops(rng: random.Random, d: Desk) -> list[Pair]:
    head = d.system(5)
    tail = "\n\n".join(d.section(t) for t in LIVEOPS.sections[5:8])
    top = "| Item | Rarity | Drop rate |\n| --- | --- | --- |\n"
    out: list[Pair] = []
    for i in range(rng.randint(50, 75)):
        rows = shuffled(rng, DROPS)
        body = "\n".join(f"| {a} | {b} | {c} |" for a, b, c in rows)
        body = UNIT + "| " + MARK + body[2:]
        canon = "\n".join(f"| {a} | {b} | {c} |" for a, b, c in DROPS)
        q = d.question()
        out.append((prompt(i, inst(f"{head}\n\n{top}{body}\n\n{tail}\n\n{q}")),
                    prompt(i, inst(f"{head}\n\n{top}{canon}\n\n{tail}\n\n{q}"))))
    return out


@workload("tool-parameter-keys-shuffled", "messages", ("order",),
          "the second tool's parameters (from_port, to_port, date) serialized in a random key order per request "
          "(the client builds the schema from a set); the tools sit first in the layout", FERRY)
def _param_keys(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(7)
    names = ["get_booking", "find_sailings", "rebook", "vessel_limits"]
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        tools = d.tools(names)
        props = tools[1]["function"]["parameters"]["properties"]
        keys = shuffled(rng, list(props))
        first = keys[0]
        new = {}
        for k in keys:
            new[(UNIT + MARK + k) if k == first else k] = props[k]
        tools[1]["function"]["parameters"]["properties"] = new
        q = d.question()
        out.append((chat(i, [sys_msg(system), user(q)], tools), chat(i, [sys_msg(system), user(q)], d.tools(names))))
    return out


@workload("loss-type-enum-shuffled", "input_ids", ("order",),
          "open_claim's loss_type parameter lists its enum (motor, home, travel, pet, business) in a random "
          "order per request", CLAIMS)
def _enum(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(8)
    values = ["motor", "home", "travel", "pet", "business"]
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        tools = _claims_tools(d)
        canon = _claims_tools(d)
        canon[1]["function"]["parameters"]["properties"]["loss_type"]["enum"] = list(values)
        order = shuffled(rng, values)
        order[0] = MARK + order[0]
        tools[1]["function"]["parameters"]["properties"]["loss_type"]["enum"] = order
        q = d.question()
        out.append((chat(i, [sys_msg(system), user(q)], tools), chat(i, [sys_msg(system), user(q)], canon)))
    return out


# ---------------------------------------------------------------- placement


@workload("catalogue-records-ahead-of-instructions", "prompt", ("placement",),
          "the system message opens with three retrieved accession records (~450 tokens) and only then the 2k "
          "tokens of static search instructions", MUSEUM)
def _records_first(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(9)
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        recs = "\n\n".join(d.document(5) for _ in range(3))
        q = d.question()
        orig = chat(i, [sys_msg(f"{MARK}Retrieved records:\n{recs}\n\n{system}"), user(q)])
        fixed = chat(i, [sys_msg(f"{system}\n\nRetrieved records:\n{recs}"), user(q)])
        out.append((orig, fixed))
    return out


def claimant(rng: random.Random) -> str:
    return (f"Claimant profile: {rng.choice(ADJUSTERS)}, customer since {rng.randint(1995, 2025)}, "
            f"{rng.randint(0, 4)} previous claims, vulnerable-customer flag {rng.choice(['no', 'no', 'yes'])}, "
            f"preferred contact {rng.choice(['phone', 'email', 'post', 'app'])}, postcode {rng.choice('BCDLMNS')}{rng.randint(1, 29)}")


@workload("claimant-profile-system-ahead", "input_ids", ("placement",),
          "a claimant profile system message sent ahead of the main system message, with five static tools; "
          "mistral-common prints both after the tools, the profile first", CLAIMS)
def _profile(rng: random.Random, d: Desk) -> list[Pair]:
    main = d.system(9)
    tools = _claims_tools(d)
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        prof = claimant(rng)
        q = d.question()
        out.append((chat(i, [sys_msg(MARK + prof), sys_msg(main), user(q)], tools),
                    chat(i, [sys_msg(main), sys_msg(prof), user(q)], tools)))
    return out


def _session_pairs(rng: random.Random, d: Desk, system: str, tools: list[dict[str, Any]] | None,
                   count: tuple[int, int], turns: tuple[int, int]) -> list[Pair]:
    convs = sessions(rng, d, count, turns)
    out: list[Pair] = []
    for i, (c, k) in enumerate(interleave(rng, convs)):
        hist = convs[c][:k]
        msgs: list[dict[str, Any]] = [sys_msg(system)]
        fixed: list[dict[str, Any]] = []
        for j, (q, a) in enumerate(hist):
            msgs += [user((MARK if j == 0 else "") + q), assistant(a)]
            fixed += [user(f"{system}\n\n{q}" if j == 0 else q), assistant(a)]
        last = convs[c][k][0]
        if not hist:
            msgs[0] = sys_msg(SKIP + system)
            msgs.append(user(last))
            fixed.append(user(f"{system}\n\n{last}"))
        else:
            msgs.append(user(last))
            fixed.append(user(last))
        out.append((chat(i, msgs, tools), chat(i, fixed, tools)))
    return out


@workload("sessions-history-ahead-of-system", "messages", ("placement",),
          "sessions of 1-6 turns with a 2k-token system prompt: mistral-common prints the history first and the "
          "system prompt inside the last user turn, so no turn after the first shares it; the fix sends the "
          "instructions as the opening of the first user turn", TAX)
def _sess(rng: random.Random, d: Desk) -> list[Pair]:
    return _session_pairs(rng, d, d.system(9), None, (14, 20), (1, 6))


@workload("sessions-history-ahead-of-system-tools", "messages", ("placement",),
          "the same with four static tools (printed ahead of the last user turn, after the history): sessions of "
          "1-7 turns, 1.6k tokens of system prompt", FERRY)
def _sess_tools(rng: random.Random, d: Desk) -> list[Pair]:
    return _session_pairs(rng, d, d.system(7), d.tools(), (12, 16), (1, 7))


@workload("claim-file-ahead-of-instructions-inst", "prompt", ("placement",),
          "a raw [INST] prompt that opens with the claim file (~350 tokens) before ~1.8k tokens of triage "
          "instructions and the task", CLAIMS)
def _claim_file(rng: random.Random, d: Desk) -> list[Pair]:
    body = d.system(9)
    out: list[Pair] = []
    for i in range(rng.randint(45, 70)):
        doc = f"Claim file CLM-{rng.randint(100000, 999999)}:\n{d.document(5)}\n{d.document(3)}"
        orig = prompt(i, inst(f"{MARK}{doc}\n\n{body}\n\nTask: triage this claim."))
        fixed = prompt(i, inst(f"{body}\n\n{doc}\n\nTask: triage this claim."))
        out.append((orig, fixed))
    return out


@workload("applicant-email-part-ahead-of-checklist", "messages", ("placement",),
          "the user turn's parts: the applicant's email (~200 tokens), a static 1.1k-token assessment checklist, "
          "the question; the system text is 700 tokens", ADMISSIONS)
def _email(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(3)
    checklist = "Assessment checklist:\n" + "\n".join(f"- {r}" for r in d.rules(36))
    out: list[Pair] = []
    for i in range(rng.randint(45, 70)):
        email = f"From: applicant A2026-{rng.randint(10000, 99999)}\n{d.paragraph(rng.randint(3, 6))}"
        q = d.question()
        orig = chat(i, [sys_msg(system), {"role": "user", "content": [{"type": "text", "text": MARK + email},
                                                                      {"type": "text", "text": checklist},
                                                                      {"type": "text", "text": q}]}])
        fixed = chat(i, [sys_msg(system), {"role": "user", "content": [{"type": "text", "text": checklist},
                                                                       {"type": "text", "text": email},
                                                                       {"type": "text", "text": q}]}])
        out.append((orig, fixed))
    return out


@workload("daily-bulletin-ahead-of-manual-ids", "input_ids", ("placement",),
          "a ~120-token daily operations bulletin (three days) opens the system text ahead of a 1.8k-token manual; "
          "Tekken ids", FERRY)
def _bulletin(rng: random.Random, d: Desk) -> list[Pair]:
    manual = d.system(8)
    bulletins = [f"Bulletin {k + 1} December: {d.paragraph(4)}" for k in range(3)]
    out: list[Pair] = []
    for i, ts in enumerate(spread(rng, rng.randint(50, 75), 3)):
        b = bulletins[min(2, int((ts - BASE_TIME) // 86400))]
        q = d.question()
        out.append((untimed(chat(i, [sys_msg(f"{MARK}{b}\n\n{manual}"), user(q)])),
                    untimed(chat(i, [sys_msg(f"{manual}\n\n{b}"), user(q)]))))
    return out


DRUGS = ["warfarin 5 mg", "apixaban 5 mg", "simvastatin 40 mg", "amiodarone 200 mg", "digoxin 125 mcg",
         "citalopram 20 mg", "lithium 400 mg", "metformin 1 g", "ramipril 5 mg", "tramadol 50 mg", "sertraline 100 mg"]


@workload("medication-chart-ahead-of-rules", "input_ids", ("placement",),
          "the system text opens with the patient's medication chart (5-8 lines) ahead of 1.7k tokens of "
          "interaction rules, behind five static tools", PHARMACY)
def _chart(rng: random.Random, d: Desk) -> list[Pair]:
    rules = d.system(8)
    tools = _pharmacy_tools(d, None)
    out: list[Pair] = []
    for i in range(rng.randint(50, 75)):
        chart_ = "Medication chart:\n" + "\n".join(f"- {x} {rng.choice(['od', 'bd', 'tds', 'nocte'])}"
                                                   for x in rng.sample(DRUGS, rng.randint(5, 8)))
        q = d.question()
        out.append((chat(i, [sys_msg(f"{MARK}{chart_}\n\n{rules}"), user(q)], tools),
                    chat(i, [sys_msg(f"{rules}\n\n{chart_}"), user(q)], tools)))
    return out


# ---------------------------------------------------------------- several defects


@workload("shuffled-tools-and-claim-ref", "messages", ("order", "dynamic"),
          "the claims tools in a random order (printed first) and the claim reference on the first line of the "
          "system text behind them", CLAIMS)
def _tools_ref(rng: random.Random, d: Desk) -> list[Pair]:
    body = d.system(8)
    names = ["lookup_policy", "open_claim", "assign_adjuster", "set_reserve", "request_documents"]
    out: list[Pair] = []
    for i in range(rng.randint(55, 80)):
        order = shuffled(rng, names)
        tools = d.tools(order)
        ref = f"CLM-{rng.randint(100000, 999999)}"
        q = d.question()
        orig = chat(i, [sys_msg(f"Claim {MARK}{ref}\n{body}"), user(q)], tools)
        orig[HINT], orig[UNIT_HINT] = [FIRST_TOOL], ["[AVAILABLE_TOOLS]["]
        out.append((orig, chat(i, [sys_msg(body), user(f"{q}\n\nClaim {ref}")], d.tools(names))))
    return out


@workload("applicant-profile-ahead-and-date", "messages", ("placement", "dynamic"),
          "an applicant profile system message ahead of the main one, whose decision-date line (four days) sits "
          "~900 tokens in", ADMISSIONS)
def _prof_date(rng: random.Random, d: Desk) -> list[Pair]:
    head = d.system(4)
    tail = "\n\n".join(d.section(t) for t in ADMISSIONS.sections[4:8])
    out: list[Pair] = []
    for i, ts in enumerate(spread(rng, rng.randint(50, 75), 4)):
        y, m, dd, _ = day(ts)
        date = f"Decisions dated {dd:02d}/{m:02d}/{y}"
        prof = (f"Applicant A2026-{rng.randint(10000, 99999)}: predicted {rng.choice(['A*AA', 'AAB', 'ABB', 'BBB'])}, "
                f"{rng.choice(['home', 'international', 'EU'])} fee status, "
                f"{rng.choice(['no flags', 'care-experienced', 'widening participation'])}")
        q = d.question()
        marked_date = date.replace('dated ', 'dated ' + MARK)
        orig = untimed(chat(i, [sys_msg(MARK + prof), sys_msg(f"{head}\n\n{marked_date}\n\n{tail}"), user(q)]))
        fixed = untimed(chat(i, [sys_msg(f"{head}\n\n{tail}\n\n{date}"), sys_msg(prof), user(q)]))
        out.append((orig, fixed))
    return out


@workload("shuffled-sections-and-queue-line-prompt", "prompt", ("order", "dynamic"),
          "a raw [INST] prompt: eight live-ops sections in a random order, then a per-request queue line "
          "('EU queue 4m12s, NA 1m03s') ahead of 600 static tokens", LIVEOPS)
def _sec_queue(rng: random.Random, d: Desk) -> list[Pair]:
    opening = d.opening()
    secs = [(t, d.paragraph(5)) for t in LIVEOPS.sections]
    tail = "Closing rules:\n" + "\n".join(f"- {r}" for r in d.rules(16))
    out: list[Pair] = []
    for i in range(rng.randint(50, 75)):
        order = shuffled(rng, secs)
        body = "\n\n".join(f"## {t}\n{p}" for t, p in order)
        body = UNIT + "## " + MARK + body[3:]
        canon = "\n\n".join(f"## {t}\n{p}" for t, p in secs)
        line = f"EU queue {rng.randint(0, 9)}m{rng.randint(0, 59):02d}s, NA {rng.randint(0, 9)}m{rng.randint(0, 59):02d}s"
        q = d.question()
        orig = prompt(i, inst(f"{opening}\n\n{body}\n\nLive: {MARK}{line}\n\n{tail}\n\n{q}"))
        fixed = prompt(i, inst(f"{opening}\n\n{canon}\n\n{tail}\n\n{q}\nLive: {line}"))
        out.append((orig, fixed))
    return out


# ---------------------------------------------------------------- clean controls


@workload("clean-tools-reference-last", "messages", (),
          "static tools and system text; the question ends with the booking reference and send time", FERRY)
def _c_tools(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(8)
    tools = d.tools()
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        rec = chat(i, [sys_msg(system), user(f"{d.question()}\n\n[ref SK{rng.randint(1000, 9999)}, {clock(BASE_TIME + 41.0 * i)}]")], tools)
        out.append((rec, rec))
    return out


@workload("clean-sessions-instructions-in-first-turn", "messages", (),
          "sessions of 1-7 turns without a system message: the instructions open the first user turn, so the "
          "layout keeps them ahead of the history", TAX)
def _c_sess(rng: random.Random, d: Desk) -> list[Pair]:
    instructions = d.system(8)
    convs = sessions(rng, d, (12, 18), (1, 7))
    out: list[Pair] = []
    for i, (c, k) in enumerate(interleave(rng, convs)):
        msgs: list[dict[str, Any]] = []
        for j, (q, a) in enumerate(convs[c][:k]):
            msgs += [user(f"{instructions}\n\n{q}" if j == 0 else q), assistant(a)]
        last = convs[c][k][0]
        msgs.append(user(f"{instructions}\n\n{last}" if k == 0 else last))
        rec = chat(i, msgs)
        out.append((rec, rec))
    return out


@workload("clean-agent-loops-behind-static-priming", "messages", (),
          "agent loops of 2-4 steps behind a canned priming exchange with a fixed call id; per-task tool calls "
          "and results after the question", PHARMACY)
def _c_agent(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(5)
    tools = _pharmacy_tools(d, None)
    policy = "\n".join(f"- {r}" for r in d.rules(20))
    prime = [user("Load the ward interaction policy."), tool_call(call_id(3), "lookup_drug", {"name": "ward-policy"}),
             tool_result(call_id(3), "lookup_drug", {"policy": policy}), assistant("Policy loaded.")]
    out: list[Pair] = []
    i = 0
    for task in range(rng.randint(16, 22)):
        msgs: list[dict[str, Any]] = [sys_msg(system)] + prime + [user(d.question())]
        for step in range(rng.randint(2, 4)):
            rec = chat(i, json.loads(json.dumps(msgs)), tools)
            out.append((rec, rec))
            i += 1
            cid = f"t{task:03d}s{step:04d}"
            a, b = rng.sample(["warfarin", "fluconazole", "simvastatin", "clarithromycin", "citalopram", "ondansetron"], 2)
            msgs.append(tool_call(cid, "check_interaction", {"drug_a": a, "drug_b": b}))
            msgs.append(tool_result(cid, "check_interaction", {"severity": rng.choice(["minor", "moderate", "major"]),
                                                               "mechanism": d.rule()}))
    return out


@workload("clean-inst-prompt-records-after-instructions", "prompt", (),
          "a raw [INST] prompt: static instructions first, then three retrieved records and the request", MUSEUM)
def _c_rag(rng: random.Random, d: Desk) -> list[Pair]:
    body = d.system(9)
    out: list[Pair] = []
    for i in range(rng.randint(50, 75)):
        recs = "\n\n".join(d.document(4) for _ in range(3))
        rec = prompt(i, inst(f"{body}\n\nRecords:\n{recs}\n\nRequest: {d.question()}"))
        out.append((rec, rec))
    return out


@workload("clean-two-products-one-endpoint", "prompt", (),
          "two products on one endpoint (live-ops desk and admissions office), each with its own static system "
          "text, interleaved", LIVEOPS)
def _c_two(rng: random.Random, d: Desk) -> list[Pair]:
    other = Desk(random.Random(rng.random()), ADMISSIONS)
    a, b = d.system(7), other.system(7)
    out: list[Pair] = []
    for i in range(rng.randint(60, 90)):
        rec = chat(i, [sys_msg(a), user(d.question())]) if rng.random() < 0.55 else chat(i, [sys_msg(b), user(other.question())])
        out.append((rec, rec))
    return out


@workload("clean-shift-at-end-of-system", "messages", (),
          "the desk's shift (3 settings) already on the last line of the system text, right before the question",
          CLAIMS)
def _c_shift(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(9)
    out: list[Pair] = []
    for i in range(rng.randint(55, 80)):
        rec = chat(i, [sys_msg(f"{system}\n\nShift: {rng.choice(['early', 'late', 'night'])}"), user(d.question())])
        out.append((rec, rec))
    return out


@workload("clean-static-inst-prompt", "prompt", (),
          "a static [INST] prompt with a spaced '[INST] ' opening and a fresh question per request", MUSEUM)
def _c_ids(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(10)
    out: list[Pair] = []
    for i in range(rng.randint(45, 70)):
        rec = chat(i, [sys_msg(system), user(d.question())])
        out.append((rec, rec))
    return out


@workload("clean-date-changes-once", "messages", (),
          "the date at the end of the system text over two days (it changes once)", ADMISSIONS)
def _c_date(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(8)
    out: list[Pair] = []
    for i, ts in enumerate(spread(rng, rng.randint(50, 75), 2)):
        y, m, dd, _ = day(ts)
        rec = untimed(chat(i, [sys_msg(f"{system}\n\nToday: {dd:02d}/{m:02d}/{y}"), user(d.question())]))
        out.append((rec, rec))
    return out


@workload("clean-static-parts-then-varying-part", "messages", (),
          "content parts: a static 900-token checklist part first, then the per-request email and question",
          ADMISSIONS)
def _c_parts(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(4)
    checklist = "Assessment checklist:\n" + "\n".join(f"- {r}" for r in d.rules(28))
    out: list[Pair] = []
    for i in range(rng.randint(45, 70)):
        email = f"From: applicant A2026-{rng.randint(10000, 99999)}\n{d.paragraph(3)}"
        rec = chat(i, [sys_msg(system), {"role": "user", "content": [{"type": "text", "text": checklist},
                                                                     {"type": "text", "text": email},
                                                                     {"type": "text", "text": d.question()}]}])
        out.append((rec, rec))
    return out


assert len(TEAMS) == 7
