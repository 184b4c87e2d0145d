"""Fourteenth held-out diagnosis set: Mistral 7B Instruct v0.3's HuggingFace chat template on SGLang.

Written blind to the detector (advisor/diagnose, advisor/prescribe, the zoo, its shapes and its
tests were not read): DESIGN.md's traffic formats and the rendering advisor/ingest does were
used. Every record is what ``advisor analyze --tokenizer mistral-v3 --chat-template
tests/diagnose/heldout14_mistral_config.json`` reads (``ANALYZE_ARGS``, passed by the bench to
every ``analyze``, ``prescribe`` and ``render`` run of this set): the chat goes through SGLang's
request preprocessing and the Jinja template of tests/chat_templates/mistral.jinja (the config
file carries that template verbatim, with the model's special tokens ``<s>``, ``</s>``,
``<unk>``, as Mistral-7B-Instruct-v0.3's tokenizer_config.json does; the bare .jinja leaves
``eos_token`` undefined, so every record with an assistant turn or a tool call fails to render
with it), and it is measured in the model's SentencePiece (v3) tokens.

The layout, checked by rendering (tests/diagnose/test_heldout14.py asserts it): ``<s>``, then
the turns in order, ``[INST] u[/INST]`` and `` a</s>``, tool calls as ``[TOOL_CALLS] [...]</s>``,
results as ``[TOOL_RESULTS] {"content": ..., "call_id": ...}[/TOOL_RESULTS]``; the tools as
``[AVAILABLE_TOOLS] [...][/AVAILABLE_TOOLS]`` right before the LAST user turn only; the system
message joined into that last user turn (``[INST] system\\n\\nuser[/INST]``), and only when the
conversation ends on a user turn (an agent step ending on a tool result carries no system text
at all). SGLang re-dumps each tool's function as description, name, parameters, strict, so a
tool's description is its first text; content parts are joined by a space. So in a session the
tools and the system text move at every turn, behind the history, and within one session a
request shares only its predecessor's history; across sessions only first turns share the
instructions.

The text comes from heldout14_text.py: an observatory's night desk, a cheese-ageing cellar, a
narrowboat hire yard, a funeral director's arrangements office, a bird-of-prey centre, a tattoo
collective and a quarry's blasting office; Hungarian, Catalan, Tagalog, Georgian, Estonian,
Romanian and Tamil text. The logs are noisy: 20 to 100 requests, sessions of 1 to 7 turns,
questions of varied length, in some workloads a share of requests without the defect (they
carry SKIP where it would be; offsets are medians over the requests that carry it).

Shapes (47 defect workloads, 10 controls; 32 messages, 15 token-id and 10 prompt logs). Dynamic: a
seeing figure opening the system text behind six tools (ids); an hourly cloud cover in the first
tool's description; a Hungarian night in a parameter description; a Catalan service date in an
[INST] prompt; a stoppage board ~1.9k tokens deep (ids); ages re-rendered into earlier replies of
sessions; ages re-serialized into earlier tool results of agent loops; a booking line in a middle
content part; a Tagalog date opening a plain prompt; a Georgian notice (byte-fallback tokens); a
cellar climate line with units (ids); a batch ticket in a few-shot reply printed first; one word of
two settings; a firing window ~2.8k tokens deep (ids); the walk-in artist in the last tool (ids); a
weights table; a nonce as the first token; a Tamil greeting (ids); a promo code as an enum member; a
fresh call id in a canned priming call (text the template writes); a night log JSON of 250-450
tokens (dynamic or placement). Order: shuffled tools, two client orders (ids), parameter keys, enum
values (ids), [INST] sections, few-shot pairs, rules per session in the first user turn, a JSON array
in a priming result, table rows in the user turn (ids), renumbered steps (ids), content parts.
Placement: sessions with a system message (with and without tools), agent loops whose later steps
lose the system text, extracts ahead of the instructions, a profile opening the system text (ids),
a case file opening a plain prompt, a session brief ahead of the instructions in the first turn, a
daily bulletin ahead of the manual. Several: shuffled tools plus a clock, a profile plus shuffled
sections (ids), two values in a tool and the system text, three defects (tool orders, a date, a file
reference), per-request rule order plus aged replies in sessions, a nonce plus a shuffled checklist,
sessions with a clocked system message (placement in later turns, the clock in first turns, ids).
Controls: static tools with a reference last, sessions with the instructions opening the first turn
(the tools still move: no fix is left), agent loops without a system message, an [INST] prompt with
extracts after the instructions, two trades on one endpoint (ids), a shift before the question,
a static part then varying parts, a static system text (ids), send times on each new turn, a date
that changes once.

Truth: the oracle's hit rate over SentencePiece ids on the traffic after the ideal fix written
here. A value with many settings goes to the end of the last user turn (a prompt: after the
question); a value with few settings, or many in arrival order, right after the content all
requests share (the end of the system text, which this layout prints right before the user's
text) and where two places are plausible both are written (``PLACES``) and the truth is the
better measured one; order fixes use one canonical order; placement fixes put the shared
content first. In sessions and agent loops the shared content is the instructions, and the only
place the layout keeps ahead of the history is the first user turn: the fix sends them there
instead of as a system message.
"""

from __future__ import annotations

import json
import random
import re
import statistics
from pathlib import Path
from typing import Any, Callable, Sequence

from advisor.ingest.family_tokenizers import mistral_common_tokenizer
from advisor.ingest.source import make_renderer
from advisor.ingest.tokenizers import load_tokenizer
from advisor.ingest.traffic import parse_record

from tests.diagnose.heldout import (
    BASE_TIME, MARK, UNIT, Engine, Workload, assistant, chat, clock, oracle, prompt, registering, spread, sys_msg,
    untimed, user,
)
from tests.diagnose.heldout14_text import (
    CANAL, CELLAR, FUNERAL, OBSERVATORY, QUARRY, RAPTOR, TATTOO, Desk, Trade,
)

CONFIG = Path(__file__).resolve().parent / "heldout14_mistral_config.json"
TOKENIZER = "mistral-v3"
ANALYZE_ARGS = ("--tokenizer", TOKENIZER, "--chat-template", "tests/diagnose/heldout14_mistral_config.json")

SKIP = "\ue002"  # this request lacks the defect that would be here
HINT, UNIT_HINT = "_mark_after", "_unit_after"  # rendered text a MARK / UNIT follows (text the template writes)
Fix = dict[str, Any] | tuple[dict[str, Any], ...]  # one fix, or the plausible places in PLACES order
Pair = tuple[dict[str, Any], Fix]
Builder = Callable[[random.Random, Desk], list[Pair]]
REGISTRY: list[tuple[str, str, tuple[str, ...], str, Builder, str]] = []
TRADE_OF: dict[str, Trade] = {}
PLACES: dict[str, tuple[str, ...]] = {}
CHOSEN: dict[str, tuple[int, tuple[float, ...]]] = {}  # name -> (index of the truth's place, each place's rate)
_register = registering(REGISTRY)

END_SYSTEM, END_USER = "end of the system text", "end of the last user turn"
FIRST_TOOL = "[AVAILABLE_TOOLS] ["


def workload(name: str, kind: str, expect: tuple[str, ...], shape: str, trade: Trade,
             places: tuple[str, ...] = (), notes: str = "") -> Callable[[Any], Any]:
    TRADE_OF[name] = trade
    if places:
        PLACES[name] = places
    return _register(name, kind, expect, shape, notes)


# ---------------------------------------------------------------- rendering and marking


def mistral_render() -> Callable[[dict[str, Any]], str]:
    """This checkout's rendering as `advisor analyze` with ANALYZE_ARGS sets it up (SGLang)."""
    renderer = make_renderer(TOKENIZER, CONFIG, None, [])

    def render(record: dict[str, Any]) -> str:
        text = renderer.text_of(parse_record(record, "heldout14", 1))
        assert text is not None
        return text
    return render


def mistral_engine(render: Callable[[dict[str, Any]], str] | None = None) -> Engine:
    """An Engine with the v3 SentencePiece tokenizer and the v0.3 template (or ``render``, the
    bench's rendering by the checkout under test with ANALYZE_ARGS)."""
    return Engine(render or mistral_render(), load_tokenizer(TOKENIZER))


local_engine = mistral_engine  # what the bench's --render local builds for this set


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


_BYTE_PIECE = re.compile(r"<0x[0-9A-F]{2}>")


def token_ends(engine: Engine, plain: str) -> tuple[list[int], list[int]]:
    """The ids of ``plain`` and the byte offset in ``plain`` where each token ends.

    The tokenizer cuts the text at control-token strings and encodes each run between with
    SentencePiece, which writes a dummy space ahead of every run: the first piece of a run
    holds one byte more than the text it covers."""
    ids = engine.tok.encode(plain)
    raw = mistral_common_tokenizer(TOKENIZER).instruct_tokenizer.tokenizer
    special = {i: s for s, i in engine.tok.special_tokens.items()}
    ends: list[int] = []
    size = 0
    fresh = True  # the next piece opens a run
    for t in ids:
        if t in special:
            size += len(special[t].encode())
            fresh = True
        else:
            piece = raw.id_to_piece(t)
            n = 1 if _BYTE_PIECE.fullmatch(piece) else len(piece.replace("\u2581", " ").encode())
            size += n - (1 if fresh else 0)
            fresh = False
        ends.append(size)
    assert size == len(plain.encode()), "token bytes do not add up to the text"
    return ids, ends


def marked(engine: Engine, record: dict[str, Any]) -> tuple[list[int], list[int | None], list[int]]:
    """v3 ids of the record without markers; per defect the token offset of its MARK (None
    where SKIP says this request lacks it); the token offsets of the UNIT markers."""
    text = engine.text(unhinted(record)).replace("\\ue002", SKIP)
    for key, marker in ((UNIT_HINT, UNIT), (HINT, MARK)):
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
    ids, ends = token_ends(engine, plain)

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
    return fn(random.Random(f"{seed}/h14/{name}"), Desk(random.Random(f"{seed}/h14/{name}/text"), TRADE_OF[name]))


def build_workloads(seed: int = 12, engine: Engine | None = None, only: Sequence[str] | None = None) -> list[Workload]:
    """Every workload of the fourteenth held-out set, deterministic for ``seed``, on v3 ids."""
    engine = engine or mistral_engine()
    if engine.tok.name != TOKENIZER:
        raise ValueError(f"the fourteenth held-out set is measured in {TOKENIZER} tokens, not {engine.tok.name}")
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


def shuffled(rng: random.Random, items: Sequence[Any]) -> list[Any]:
    out = list(items)
    rng.shuffle(out)
    return out


def call_id(session: int, step: int) -> str:
    return f"s{session:03d}t{step:04d}"  # the template insists on 9 characters


def tool_call(cid: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": None, "tool_calls": [
        {"id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(args, ensure_ascii=False)}}]}


def tool_result(cid: str, content: Any) -> dict[str, Any]:
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    return {"role": "tool", "tool_call_id": cid, "content": text}


def interleave(rng: random.Random, lengths: Sequence[int]) -> list[tuple[int, int]]:
    """(session, turn) in an interleaved arrival order, each session's turns in order."""
    progress = [0] * len(lengths)
    out = []
    while any(progress[c] < lengths[c] for c in range(len(lengths))):
        c = rng.choice([c for c in range(len(lengths)) if progress[c] < lengths[c]])
        out.append((c, progress[c]))
        progress[c] += 1
    return out


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


def with_mark(text: str, rivals: Sequence[str]) -> str:
    """``text`` with a UNIT at its start and a MARK where it first stops agreeing with the others."""
    k = first_differs(text, rivals)
    return (UNIT if k else "") + text[:k] + MARK + text[k:]


def day(ts: float) -> tuple[int, int, int, int]:
    import datetime as dt

    d = dt.datetime.fromtimestamp(ts, tz=dt.timezone.utc)
    return d.year, d.month, d.day, d.weekday()


def two_places(i: int, system: str, q: str, value: str, tools: list[dict[str, Any]] | None = None,
               ts: float | None = None, timed: bool = True) -> tuple[dict[str, Any], dict[str, Any]]:
    """The value at the end of the system text, and at the end of the user's text."""
    a = chat(i, [sys_msg(f"{system}\n\n{value}"), user(q)], tools, ts)
    b = chat(i, [sys_msg(system), user(f"{q}\n\n{value}")], tools, ts)
    return (a, b) if timed else (untimed(a), untimed(b))


HU_DAYS = ["hétfő", "kedd", "szerda", "csütörtök", "péntek", "szombat", "vasárnap"]
HU_MONTHS = ["január", "február", "március", "április", "május", "június", "július", "augusztus", "szeptember",
             "október", "november", "december"]
CA_DAYS = ["dilluns", "dimarts", "dimecres", "dijous", "divendres", "dissabte", "diumenge"]
CA_MONTHS = ["de gener", "de febrer", "de març", "d'abril", "de maig", "de juny", "de juliol", "d'agost", "de setembre",
             "d'octubre", "de novembre", "de desembre"]
TL_DAYS = ["Lunes", "Martes", "Miyerkules", "Huwebes", "Biyernes", "Sabado", "Linggo"]
TL_MONTHS = ["Enero", "Pebrero", "Marso", "Abril", "Mayo", "Hunyo", "Hulyo", "Agosto", "Setyembre", "Oktubre",
             "Nobyembre", "Disyembre"]
ET_DAYS = ["esmaspäev", "teisipäev", "kolmapäev", "neljapäev", "reede", "laupäev", "pühapäev"]
ET_MONTHS = ["jaanuar", "veebruar", "märts", "aprill", "mai", "juuni", "juuli", "august", "september", "oktoober",
             "november", "detsember"]
KA_NOTICES = ["დღეს ფრენის ჩვენება გადატანილია ჩრდილოეთ მინდორზე, წვიმის გამო.",
              "დღეს ბუებთან შეხვედრა იწყება თერთმეტ საათზე, ბავშვები მშობლებთან ერთად.",
              "დღეს ქორი დასვენებაშია; ჩვენებაში მონაწილეობს მხოლოდ ბუ და შევარდენი."]
TA_NAMES = ["அருண்", "கவிதா", "செல்வம்", "மீனா", "பாலு", "லட்சுமி", "கார்த்திக்", "ப்ரியா", "சுரேஷ்", "தேவி",
            "ராஜா", "அனிதா", "முருகன்", "சித்ரா", "வேலு", "ஜெயா", "கணேஷ்", "பவானி", "ரமேஷ்", "நிர்மலா"]
RO_WEATHER = ["vânt {w} km/h din nord-vest, ploaie slabă", "vânt {w} km/h din sud, cer senin",
              "vânt {w} km/h din vest, ceață pe canal", "vânt {w} km/h din est, averse izolate"]
ARTISTS = ["Juno Vale", "Ossie Crane", "Marlo Finch", "Tess Okafor", "Bram Lutz", "Nell Aziz"]
BOATS = ["Kingfisher", "Dabchick", "Water Rail", "Moorhen", "Grebe", "Sandpiper", "Teal", "Wagtail", "Curlew"]


# ---------------------------------------------------------------- dynamic values


@workload("seeing-first-line-of-system-ids", "input_ids", ("dynamic",),
          "the night desk writes the seeing and its time ('Seeing 0.84 arcsec at 21:14:09') as the first line of the "
          "system text, which this layout prints right after the six tools (~600 tokens in); ~10% of requests come "
          "from the dome panel, which sends none; ~2k static tokens follow", OBSERVATORY)
def _seeing(rng: random.Random, d: Desk) -> list[Pair]:
    body = d.system(10)
    tools = d.tools()
    out: list[Pair] = []
    for i in range(rng.randint(55, 80)):
        ts = BASE_TIME + 20 * 3600 + 61.0 * i + rng.uniform(0, 30)
        q = d.question()
        if lacks(rng, 0.1):
            rec = chat(i, [sys_msg(SKIP + body), user(q)], tools, ts)
            out.append((rec, unmark(rec)))
            continue
        line = f"Seeing {rng.randint(45, 190) / 100:.2f} arcsec at {clock(ts)}"
        orig = chat(i, [sys_msg(f"{MARK}{line}\n{body}"), user(q)], tools, ts)
        out.append((orig, chat(i, [sys_msg(body), user(f"{q}\n\n{line}")], tools, ts)))
    return out


def _obs_tools(d: Desk, first_note: str = "", third_night: str = "") -> list[dict[str, Any]]:
    tools = d.tools()
    tools[0]["function"]["description"] += first_note
    if third_night:
        tools[2]["function"]["parameters"]["properties"]["sensor"]["description"] += third_night
    return tools


@workload("cloud-cover-in-first-tool-description", "messages", ("dynamic",),
          "the first tool's description ends with the last cloud-cover reading ('Cloud cover at 21:00: 40%.'), a new "
          "one every hour in arrival order; SGLang dumps the description ahead of the name, so it is ~30 tokens in, "
          "ahead of the rest of the tools and a 1.6k-token system text", OBSERVATORY, (END_SYSTEM, END_USER))
def _cloud(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(8)
    n = rng.randint(50, 80)
    hour = hourly(rng, n, (4, 9))
    covers = [rng.choice([0, 5, 10, 20, 40, 60, 75, 90]) for _ in range(hour[-1] + 1)]
    out: list[Pair] = []
    for i in range(n):
        note = f"Cloud cover at {19 + hour[i]:02d}:00: {covers[hour[i]]}%."
        ts = BASE_TIME + 19 * 3600 + 500.0 * i
        q = d.question()
        orig = chat(i, [sys_msg(system), user(q)], _obs_tools(d, f" Cloud cover at {MARK}{note[15:]}"), ts)
        out.append((orig, two_places(i, system, q, note, _obs_tools(d), ts)))
    return out


@workload("hungarian-date-in-parameter-description", "messages", ("dynamic",),
          "the third tool's 'sensor' parameter description ends with the night in Hungarian ('Ma éjjel: 2026. "
          "december 1., kedd'), traffic over three nights, no timestamps; ~250 tokens into the tools",
          OBSERVATORY, (END_SYSTEM, END_USER))
def _hu(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(9)
    out: list[Pair] = []
    for i, ts in enumerate(spread(rng, rng.randint(50, 75), 3)):
        y, m, dd, wd = day(ts)
        night = f"Ma éjjel: {y}. {HU_MONTHS[m - 1]} {dd}., {HU_DAYS[wd]}"
        q = d.question()
        orig = untimed(chat(i, [sys_msg(system), user(q)], _obs_tools(d, third_night=f" Ma éjjel: {MARK}{night[10:]}")))
        out.append((orig, two_places(i, system, q, night, _obs_tools(d), timed=False)))
    return out


@workload("catalan-service-date-mid-manual-inst", "prompt", ("dynamic",),
          "a raw '[INST] ... [/INST]' prompt: opening and three sections, then the service date in Catalan "
          "('Data del servei: dimarts, 8 de desembre de 2026', some 40 dates), then six more sections and the "
          "question", FUNERAL)
def _ca(rng: random.Random, d: Desk) -> list[Pair]:
    head = "\n\n".join([d.opening()] + [d.section(h) for h in FUNERAL.headings[:3]])
    tail = "\n\n".join(d.section(h) for h in FUNERAL.headings[3:9])
    out: list[Pair] = []
    for i in range(rng.randint(45, 75)):
        y, m, dd, wd = day(BASE_TIME + 86400 * rng.randint(1, 40))
        date = f"{CA_DAYS[wd]}, {dd} {CA_MONTHS[m - 1]} {y}"
        q = d.question()
        orig = prompt(i, f"[INST] {head}\n\nData del servei: {MARK}{date}\n\n{tail}\n\nQuestion: {q} [/INST]")
        fixed = prompt(i, f"[INST] {head}\n\n{tail}\n\nQuestion: {q}\nData del servei: {date} [/INST]")
        out.append((orig, fixed))
    return out


@workload("stoppage-board-deep-ids", "input_ids", ("dynamic",),
          "a list of navigation stoppages (three lines, ~80 tokens) after nine of twelve manual sections, ~2.2k tokens "
          "deep, replaced every 4-8 requests in arrival order; static tools ahead", CANAL, (END_SYSTEM, END_USER))
def _stoppages(rng: random.Random, d: Desk) -> list[Pair]:
    opening = d.opening()
    secs = [d.section(h, 7) for h in CANAL.headings] + [d.section(f"{h} (detail)", 7) for h in CANAL.headings[:2]]
    head, tail = "\n\n".join([opening] + secs[:9]), "\n\n".join(secs[9:])
    tools = d.tools(["booking_lookup", "stoppages", "call_engineer"])
    n = rng.randint(50, 80)
    slot = hourly(rng, n, (4, 8))
    boards = []
    for _ in range(slot[-1] + 1):
        lines = [f"- Lock {rng.randint(1, 60)}, {rng.choice(['Trent & Mersey', 'Ashby Canal', 'Coventry Canal', 'River Soar'])}: "
                 f"{rng.choice(['closed for gate repair', 'passage by appointment', 'low water, 2 ft draught', 'towpath closed'])}"
                 for _ in range(3)]
        boards.append("\n".join(lines))
    out: list[Pair] = []
    for i in range(n):
        board = boards[slot[i]]
        q = d.question()
        orig = chat(i, [sys_msg(f"{head}\n\nStoppages today:\n{MARK}{board}\n\n{tail}"), user(q)], tools)
        base = f"{head}\n\n{tail}"
        out.append((orig, two_places(i, base, q, f"Stoppages today:\n{board}", tools)))
    return out


def _instructions(d: Desk, sections: int) -> str:
    return f"{d.opening()}\n\n{d.manual(sections)}"


@workload("relative-age-in-history-answers", "messages", ("dynamic",),
          "sessions of 2-6 turns whose client re-renders every earlier assistant reply with its age ('(answered 3 min "
          "ago)'), recomputed at each request; the instructions open the first user turn (no system message), so the "
          "first reply's age breaks each session's reuse ~1.3k tokens in", TATTOO)
def _ages(rng: random.Random, d: Desk) -> list[Pair]:
    instr = _instructions(d, 7)
    convs = [d.fewshot(rng.randint(2, 6)) for _ in range(rng.randint(12, 18))]
    started = [BASE_TIME + rng.uniform(0, 3 * 3600) for _ in convs]
    out: list[Pair] = []
    for i, (c, k) in enumerate(interleave(rng, [len(x) for x in convs])):
        now = started[c] + 95.0 * k + rng.uniform(0, 40)
        msgs, fixed = [], []
        for j, (q, a) in enumerate(convs[c][:k]):
            first = f"{instr}\n\n{q}" if j == 0 else q
            age = max(1, int((now - (started[c] + 95.0 * j + 30)) // 60))
            msgs += [user(first), assistant(f"(answered {MARK if j == 0 else ''}{age} min ago) {a}")]
            fixed += [user(first), assistant(a)]
        q = convs[c][k][0]
        last = f"{instr}\n\n{q}" if k == 0 else q
        if k == 0:
            last = SKIP + last
        msgs.append(user(last))
        fixed.append(user(unmark(last)))
        out.append((chat(i, msgs, ts=now), chat(i, fixed, ts=now)))
    return out


def _raptor_args(name: str, rng: random.Random) -> dict[str, Any]:
    return {"bird_record": {"ring": f"KM-{rng.randint(1000, 9999)}"}, "weather_now": {"field": rng.choice(["north", "south"])},
            "experience_slots": {"date": "2026-12-01", "kind": rng.choice(["owl", "hawk", "falcon"])}}[name]


@workload("age-seconds-in-agent-tool-results", "messages", ("dynamic",),
          "agent loops of 2-5 steps (instructions in the first user turn, five static tools): the client re-serializes "
          "every earlier tool result with its age in seconds ('{\"age_s\": 47, ...}') at each step, so a loop's second "
          "step already differs from the first inside the first result", RAPTOR)
def _age_s(rng: random.Random, d: Desk) -> list[Pair]:
    instr = _instructions(d, 6)
    tools = d.tools()
    out: list[Pair] = []
    i = 0
    for task in range(rng.randint(14, 22)):
        q = f"{instr}\n\n{d.question()}"
        steps = rng.randint(2, 5)
        t0 = BASE_TIME + 600.0 * task + rng.uniform(0, 200)
        results: list[tuple[str, dict[str, Any], dict[str, Any], float]] = []
        for step in range(steps):
            now = t0 + 20.0 * step + rng.uniform(0, 9)
            msgs: list[dict[str, Any]] = [user(q)]
            fixed: list[dict[str, Any]] = [user(q)]
            for k, (name, args, body, at) in enumerate(results):
                cid = call_id(task, k)
                age = int(now - at)
                msgs += [tool_call(cid, name, args),
                         tool_result(cid, '{"age_s": ' + (MARK if k == 0 else "") + f"{age}, " + json.dumps(body)[1:])]
                fixed += [tool_call(cid, name, args), tool_result(cid, {"fetched": clock(at)} | body)]
            if not results:
                msgs[0] = user(SKIP + q)
            out.append((chat(i, msgs, tools, now), chat(i, fixed, tools, now)))
            i += 1
            name = rng.choice(["bird_record", "weather_now", "experience_slots"])
            body = {"ok": True, "note": d.sentence(), "value": rng.randint(300, 1200)}
            results.append((name, _raptor_args(name, rng), body, now + 2))
    return out


@workload("booking-ref-middle-content-part", "messages", ("dynamic",),
          "the user turn is three content parts (SGLang joins them with a space): a static 700-token handover "
          "checklist, the booking line ('Booking AT-55120 · boat Kingfisher · crew 4'), a static 300-token briefing "
          "script, then the question part; no system message", CANAL)
def _parts(rng: random.Random, d: Desk) -> list[Pair]:
    checklist = "Handover checklist:\n" + "\n".join(f"- {r}" for r in d.rules(26))
    script = "Briefing script: " + d.paragraph(10)
    out: list[Pair] = []
    for i in range(rng.randint(45, 70)):
        line = f"Booking AT-{rng.randint(10000, 99999)} · boat {rng.choice(BOATS)} · crew {rng.randint(2, 8)}"
        q = d.question()
        parts = [{"type": "text", "text": checklist}, {"type": "text", "text": "Booking " + MARK + line[8:]},
                 {"type": "text", "text": script}, {"type": "text", "text": q}]
        fparts = [{"type": "text", "text": checklist}, {"type": "text", "text": script}, {"type": "text", "text": q},
                  {"type": "text", "text": line}]
        out.append((chat(i, [{"role": "user", "content": parts}]), chat(i, [{"role": "user", "content": fparts}])))
    return out


@workload("tagalog-date-plain-prompt", "prompt", ("dynamic",),
          "a plain completion prompt (no [INST]) whose first line is the date in Tagalog ('Petsa: Martes, Disyembre 1, "
          "2026'), four days of traffic, then ~1.8k tokens of manual, the question and 'Sagot:'", RAPTOR,
          ("after the manual", "after the question"))
def _tl(rng: random.Random, d: Desk) -> list[Pair]:
    body = d.system(9)
    out: list[Pair] = []
    for i, ts in enumerate(spread(rng, rng.randint(45, 70), 4)):
        y, m, dd, wd = day(ts)
        date = f"Petsa: {TL_DAYS[wd]}, {TL_MONTHS[m - 1]} {dd}, {y}"
        q = d.question()
        orig = untimed(prompt(i, f"Petsa: {MARK}{date[7:]}\n{body}\n\nTanong: {q}\nSagot:"))
        a = untimed(prompt(i, f"{body}\n{date}\n\nTanong: {q}\nSagot:"))
        b = untimed(prompt(i, f"{body}\n\nTanong: {q}\n{date}\nSagot:"))
        out.append((orig, (a, b)))
    return out


@workload("georgian-notice-after-first-line", "messages", ("dynamic",),
          "after the system text's first sentence, the day's notice in Georgian (three notices over three days, ~100 "
          "byte-fallback tokens each), ahead of ~1.7k static tokens; no tools", RAPTOR, (END_SYSTEM, END_USER))
def _ka(rng: random.Random, d: Desk) -> list[Pair]:
    first = f"You are the {RAPTOR.assistant} of {RAPTOR.house}."
    rest = d.manual(9)
    out: list[Pair] = []
    for i, ts in enumerate(spread(rng, rng.randint(45, 70), 3)):
        notice = KA_NOTICES[(day(ts)[2] - day(BASE_TIME)[2]) % 3]
        q = d.question()
        orig = untimed(chat(i, [sys_msg(f"{first}\n{MARK}{notice}\n\n{rest}"), user(q)]))
        out.append((orig, two_places(i, f"{first}\n\n{rest}", q, notice, timed=False)))
    return out


@workload("cellar-climate-hourly-ids", "input_ids", ("dynamic",),
          "a climate line with units ('Cellar 3: 11.5 °C, RH 94 %, NH3 low') after four sections (~900 tokens "
          "deep), a new reading every 5-10 requests in arrival order; Mistral v3 ids", CELLAR, (END_SYSTEM, END_USER))
def _climate(rng: random.Random, d: Desk) -> list[Pair]:
    head = "\n\n".join([d.opening()] + [d.section(h) for h in CELLAR.headings[:4]])
    tail = "\n\n".join(d.section(h) for h in CELLAR.headings[4:])
    n = rng.randint(50, 85)
    hour = hourly(rng, n, (5, 10))
    lines = [f"{rng.randint(95, 135) / 10:.1f} °C, RH {rng.randint(86, 97)} %, NH3 {rng.choice(['low', 'low', 'noticeable'])}"
             for _ in range(hour[-1] + 1)]
    out: list[Pair] = []
    for i in range(n):
        q = d.question()
        orig = chat(i, [sys_msg(f"{head}\n\nCellar 3: {MARK}{lines[hour[i]]}\n\n{tail}"), user(q)])
        out.append((orig, two_places(i, f"{head}\n\n{tail}", q, f"Cellar 3: {lines[hour[i]]}")))
    return out


@workload("lot-code-in-fewshot-answer", "messages", ("dynamic",),
          "three few-shot question/reply turns ahead of the real question (the layout prints them first, from token "
          "2); the client fills the customer's own batch ticket into the first canned reply ('For batch BR-26-1187, "
          "...'); the system text and question follow", CELLAR)
def _lot(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(7)
    shots = d.fewshot(3)
    out: list[Pair] = []
    for i in range(rng.randint(45, 75)):
        lot = f"BR-26-{rng.randint(1000, 9999)}"

        def turns(first: str) -> list[dict[str, Any]]:
            msgs: list[dict[str, Any]] = []
            for k, (sq, sa) in enumerate(shots):
                msgs += [user(sq), assistant(f"{first}{sa}" if k == 0 else sa)]
            return msgs
        q = d.question()
        orig = chat(i, [sys_msg(system)] + turns(f"For batch BR-26-{MARK}{lot[6:]}, ") + [user(q)])
        fixed = chat(i, [sys_msg(system)] + turns("") + [user(f"{q}\n\n(batch {lot})")])
        out.append((orig, fixed))
    return out


@workload("display-field-two-settings", "messages", ("dynamic",),
          "one word with two settings ('Display field today: north' or 'south') after five sections, ~1k tokens "
          "into the system text, behind five static tools", RAPTOR, (END_SYSTEM, END_USER))
def _field(rng: random.Random, d: Desk) -> list[Pair]:
    head = "\n\n".join([d.opening()] + [d.section(h) for h in RAPTOR.headings[:5]])
    tail = "\n\n".join(d.section(h) for h in RAPTOR.headings[5:])
    tools = d.tools()
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        f = rng.choice(["north", "south"])
        q = d.question()
        orig = chat(i, [sys_msg(f"{head}\n\nDisplay field today: {MARK}{f}\n\n{tail}"), user(q)], tools)
        out.append((orig, two_places(i, f"{head}\n\n{tail}", q, f"Display field today: {f}", tools)))
    return out


@workload("blast-window-3k-deep-ids", "input_ids", ("dynamic",),
          "the next firing window ('Next firing window: 13:40-13:55, sentries at posts 2, 5 and 7') after fifteen "
          "sections of a ~3.5k-token quarry manual, ~3k tokens deep, new every 2-4 requests", QUARRY,
          (END_SYSTEM, END_USER))
def _window(rng: random.Random, d: Desk) -> list[Pair]:
    heads = list(QUARRY.headings) + [f"{h}, worked examples" for h in QUARRY.headings[:7]]
    secs = [d.section(h, 8) for h in heads]
    head, tail = "\n\n".join([d.opening()] + secs[:15]), "\n\n".join(secs[15:])
    n = rng.randint(45, 70)
    slot = hourly(rng, n, (2, 4))
    wins = []
    for k in range(slot[-1] + 1):
        hh, mm = 9 + k // 4, (k % 4) * 15
        posts = sorted(rng.sample(range(1, 9), 3))
        wins.append(f"{hh:02d}:{mm:02d}-{hh:02d}:{mm + 14:02d}, sentries at posts {posts[0]}, {posts[1]} and {posts[2]}")
    out: list[Pair] = []
    for i in range(n):
        q = d.question()
        orig = chat(i, [sys_msg(f"{head}\n\nNext firing window: {MARK}{wins[slot[i]]}\n\n{tail}"), user(q)])
        out.append((orig, two_places(i, f"{head}\n\n{tail}", q, f"Next firing window: {wins[slot[i]]}")))
    return out


@workload("artist-on-duty-in-last-tool", "input_ids", ("dynamic",),
          "the last of five tools' descriptions names the walk-in artist on duty ('Walk-ins today go to Juno "
          "Vale.', 6 artists), ~450 tokens into the tools, ahead of a 1.5k-token system text", TATTOO,
          (END_SYSTEM, END_USER))
def _artist(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(7)
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        who = rng.choice(ARTISTS)
        tools = d.tools()
        tools[-1]["function"]["description"] += f" Walk-ins today go to {MARK}{who}."
        q = d.question()
        out.append((chat(i, [sys_msg(system), user(q)], tools),
                    two_places(i, system, q, f"Walk-ins today go to {who}.", d.tools())))
    return out


@workload("weights-table-mid-system", "messages", ("dynamic",),
          "a markdown table of this morning's flying weights (seven birds, a fresh figure per bird per request, ~150 "
          "tokens) between the opening and the manual of the system text", RAPTOR)
def _weights(rng: random.Random, d: Desk) -> list[Pair]:
    opening, rest = d.opening(), d.manual(8)
    birds = [("Harris hawk", "Maya"), ("barn owl", "Pip"), ("peregrine", "Zephyr"), ("kestrel", "Dot"),
             ("tawny owl", "Moss"), ("saker", "Rook"), ("eagle owl", "Bruno")]
    out: list[Pair] = []
    for i in range(rng.randint(45, 70)):
        rows = "\n".join(f"| {n} | {k} | {rng.randint(180, 2900)} g |" for k, n in birds)
        table = "| Bird | Species | Weight |\n| --- | --- | --- |\n"
        q = d.question()
        first = rows.index(" g |") - 4  # the first bird's weight
        marked_rows = rows[:first] + MARK + rows[first:]
        orig = chat(i, [sys_msg(f"{opening}\n\nThis morning's weights:\n{table}{marked_rows}\n\n{rest}"), user(q)])
        fixed = chat(i, [sys_msg(f"{opening}\n\n{rest}"), user(f"{q}\n\nThis morning's weights:\n{table}{rows}")])
        out.append((orig, fixed))
    return out


@workload("nonce-first-token-plain-prompt", "prompt", ("dynamic",),
          "a plain completion prompt that opens with a per-request nonce ('nonce=8f3ac2...'), the first token after "
          "<s>, then ~1.4k tokens of manual and the question", QUARRY)
def _nonce(rng: random.Random, d: Desk) -> list[Pair]:
    body = d.system(7)
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        nonce = "".join(rng.choice("0123456789abcdef") for _ in range(16))
        q = d.question()
        orig = prompt(i, f"{MARK}nonce={nonce}\n{body}\n\nQ: {q}\nA:")
        out.append((orig, prompt(i, f"{body}\n\nQ: {q}\nnonce={nonce}\nA:")))
    return out


@workload("tamil-client-greeting-ids", "input_ids", ("dynamic",),
          "the system text's second line greets the client by name in Tamil ('வணக்கம், கவிதா!', 20 names, byte "
          "fallback), behind four static tools; Mistral v3 ids", TATTOO, (END_SYSTEM, END_USER))
def _ta(rng: random.Random, d: Desk) -> list[Pair]:
    first = f"You are the {TATTOO.assistant} of {TATTOO.house}."
    rest = d.manual(8)
    tools = d.tools(["artist_calendar", "booking_lookup", "take_deposit", "send_aftercare"])
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        name = rng.choice(TA_NAMES)
        q = d.question()
        orig = chat(i, [sys_msg(f"{first}\nவணக்கம், {MARK}{name}!\n\n{rest}"), user(q)], tools)
        out.append((orig, two_places(i, f"{first}\n\n{rest}", q, f"வணக்கம், {name}!", tools)))
    return out


@workload("promo-code-in-parameter-enum", "messages", ("dynamic",),
          "the second tool's 'amount' parameter carries an enum of price bands whose last member is today's promo "
          "code ('XMAS-4821', three days, untimed)", TATTOO, (END_SYSTEM, END_USER))
def _promo(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(8)
    codes = [f"XMAS-{rng.randint(1000, 9999)}" for _ in range(3)]

    def tools(code: str | None) -> list[dict[str, Any]]:
        ts = d.tools(["booking_lookup", "take_deposit", "artist_calendar", "flag_client"])
        props = ts[1]["function"]["parameters"]["properties"]
        band = ["standard", "member", "student"] + ([code] if code else [])
        props["band"] = {"type": "string", "description": "Price band", "enum": band}
        return ts
    out: list[Pair] = []
    for i, ts in enumerate(spread(rng, rng.randint(50, 75), 3)):
        code = codes[(day(ts)[2] - day(BASE_TIME)[2]) % 3]
        q = d.question()
        orig = untimed(chat(i, [sys_msg(system), user(q)], tools(f"XMAS-{MARK}{code[5:]}")))
        out.append((orig, two_places(i, system, q, f"Promo code today: {code}", tools(None), timed=False)))
    return out


@workload("fresh-call-id-in-canned-priming-call", "messages", ("dynamic",),
          "every request replays a canned priming exchange (a request for the store count, a store_count call, its "
          "~600-token static result, an acknowledgement) ahead of the question, but the client mints a fresh random "
          "9-character call id each time, which the template prints in the call and again in the result", QUARRY,
          notes="the id is text the template writes from the tool call's id field")
def _call_id(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(6)
    tools = d.tools()
    stock = {"emulsion_kg": 4200, "detonators": 310, "boosters": 96, "rules": d.rules(18)}
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        cid = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(9))

        def primed(c: str) -> list[dict[str, Any]]:
            return [user("Load the explosives store count."), tool_call(c, "store_count", {"item": "all"}),
                    tool_result(c, stock), assistant("Store count loaded.")]
        q = d.question()
        orig = chat(i, [sys_msg(system)] + primed(cid) + [user(q)], tools)
        orig[HINT] = [', "id": "']
        out.append((orig, chat(i, [sys_msg(system)] + primed("primer001") + [user(q)], tools)))
    return out


@workload("sessions-system-with-clock-ids", "input_ids", ("placement", "dynamic"),
          "sessions of 1-5 turns sent with a system message that opens with the request's clock ('Desk clock "
          "14:02:17'): the template joins it into the last user turn behind the history (placement, in every later "
          "turn), and the clock parts the first turns of different sessions right after [INST] (dynamic, in first "
          "turns only: both defects sit at ~3 tokens, in disjoint requests); Mistral v3 ids", OBSERVATORY)
def _sess_clock(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(8)
    convs = [d.fewshot(rng.randint(1, 5)) for _ in range(rng.randint(12, 18))]
    out: list[Pair] = []
    for i, (c, k) in enumerate(interleave(rng, [len(x) for x in convs])):
        ts = BASE_TIME + 22 * 3600 + 43.0 * i + rng.uniform(0, 20)
        line = f"Desk clock {clock(ts)}"
        # A first turn loses its system text only to the clock; a later turn loses it to the
        # history ahead of it, and the clock behind that history costs it nothing more.
        head = f"{SKIP}Desk clock {MARK}{line[11:]}" if k == 0 else f"Desk clock {SKIP}{line[11:]}"
        msgs: list[dict[str, Any]] = [sys_msg(f"{head}\n{system}")]
        fixed: list[dict[str, Any]] = []
        for j, (q, a) in enumerate(convs[c][:k + 1]):
            msgs.append(user((MARK if j == 0 and k else "") + q))
            last = j == k
            text = f"{system}\n\n{q}" if j == 0 else q
            fixed.append(user(f"{text}\n\n{line}" if last else text))
            if j < k:
                msgs.append(assistant(a))
                fixed.append(assistant(a))
        out.append((chat(i, msgs, ts=ts), chat(i, fixed, ts=ts)))
    return out


def _night_log(rng: random.Random, d: Desk) -> str:
    frames = [{"frame": f"TR{rng.randint(100000, 999999)}", "target": rng.choice(["NGC 2392", "M 67", "SA 98", "HD 19445"]),
               "filter": rng.choice("BVRI"), "exp_s": rng.choice([30, 60, 120, 300]), "fwhm": rng.randint(60, 220) / 100,
               "flag": rng.choice(["ok", "ok", "trail", "cloud"])} for _ in range(rng.randint(6, 10))]
    return json.dumps({"night_log": frames}, ensure_ascii=False)


@workload("night-log-json-after-opening-inst", "prompt", ("dynamic|placement",),
          "a raw '[INST]' prompt: the opening, then this request's night log as compact JSON (6-10 frames, 250-450 "
          "tokens), then ~1.6k tokens of manual and the question", OBSERVATORY)
def _night(rng: random.Random, d: Desk) -> list[Pair]:
    opening, manual = d.opening(), d.manual(8)
    out: list[Pair] = []
    for i in range(rng.randint(40, 65)):
        log = _night_log(rng, d)
        q = d.question()
        cut = len('{"night_log": [{"frame": "TR')
        orig = prompt(i, f"[INST] {opening}\n\n{UNIT}{log[:cut]}{MARK}{log[cut:]}\n\n{manual}\n\nQuestion: {q} [/INST]")
        out.append((orig, prompt(i, f"[INST] {opening}\n\n{manual}\n\nQuestion: {q}\n\n{log} [/INST]")))
    return out


# ---------------------------------------------------------------- order


def _first_tool_marked(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tools with a MARK where the first one's description stops agreeing with the others'."""
    descs = [t["function"]["description"] for t in tools]
    k = first_differs(descs[0], descs[1:])
    tools[0]["function"]["description"] = descs[0][:k] + MARK + descs[0][k:]
    return tools


@workload("observatory-tools-shuffled", "messages", ("order",),
          "the six night-desk tools in a different order per request; this layout prints them right after <s> for a "
          "one-turn request, each function's description first", OBSERVATORY)
def _obs_order(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(8)
    names = list(OBSERVATORY.tools)
    out: list[Pair] = []
    for i in range(rng.randint(55, 85)):
        q = d.question()
        orig = chat(i, [sys_msg(system), user(q)], _first_tool_marked(d.tools(shuffled(rng, names))))
        orig[UNIT_HINT] = [FIRST_TOOL]
        out.append((orig, chat(i, [sys_msg(system), user(q)], d.tools(names))))
    return out


@workload("cellar-tools-two-client-orders-ids", "input_ids", ("order",),
          "two clients (the cellar tablet and the sales web app) send the same five tools in two fixed orders, "
          "~40% from the web app; Mistral v3 ids", CELLAR)
def _two_orders(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(9)
    tablet = list(CELLAR.tools)
    web = ["order_pallet", "batch_lookup", "release_batch", "cellar_climate", "log_wash"]
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        q = d.question()
        if rng.random() < 0.4:
            orig = chat(i, [sys_msg(system), user(q)], _first_tool_marked(d.tools(web)))
        else:
            orig = chat(i, [sys_msg(system), user(q)], _first_tool_marked(d.tools(tablet)))
        orig[UNIT_HINT] = [FIRST_TOOL]
        out.append((orig, chat(i, [sys_msg(system), user(q)], d.tools(tablet))))
    return out


@workload("parameter-keys-shuffled", "messages", ("order",),
          "the third of five canal tools ('route_time') lists its three parameters in a random order per request "
          "(a client that builds the schema from a set); ~260 tokens into the tools", CANAL)
def _keys(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(8)
    names = ["booking_lookup", "stoppages", "route_time", "log_damage", "call_engineer"]
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        tools = d.tools(names)
        params = tools[2]["function"]["parameters"]
        keys = shuffled(rng, list(params["properties"]))
        props = {(MARK + k if n == 0 else k): params["properties"][k] for n, k in enumerate(keys)}
        params["properties"] = props
        q = d.question()
        out.append((chat(i, [sys_msg(system), user(q)], tools), chat(i, [sys_msg(system), user(q)], d.tools(names))))
    return out


@workload("grade-enum-shuffled-ids", "input_ids", ("order",),
          "the 'grade' parameter of the first tool carries an enum of six grades in a random order per request, "
          "~60 tokens in; Mistral v3 ids", CELLAR)
def _enum(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(8)
    grades = ["A extra", "A", "B", "B seconds", "kitchen", "reject"]
    names = ["release_batch", "batch_lookup", "log_wash", "cellar_climate"]

    def tools(order: list[str]) -> list[dict[str, Any]]:
        ts = d.tools(names)
        ts[0]["function"]["parameters"]["properties"]["grade"]["enum"] = order
        return ts
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        order = shuffled(rng, grades)
        order[0] = MARK + order[0]
        q = d.question()
        out.append((chat(i, [sys_msg(system), user(q)], tools(order)), chat(i, [sys_msg(system), user(q)], tools(grades))))
    return out


@workload("manual-sections-shuffled-inst-prompt", "prompt", ("order",),
          "a raw '[INST] ... [/INST]' prompt whose nine funeral-office sections come in a random order per request "
          "after a static opening", FUNERAL)
def _sections(rng: random.Random, d: Desk) -> list[Pair]:
    opening = d.opening()
    secs = [d.section(h, 6) for h in FUNERAL.headings[:9]]
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        body = "\n\n".join(shuffled(rng, secs))
        q = d.question()
        orig = prompt(i, f"[INST] {opening}\n\n{UNIT}### {MARK}{body[4:]}\n\nQuestion: {q} [/INST]")
        fixed = prompt(i, f"[INST] {opening}\n\n" + "\n\n".join(secs) + f"\n\nQuestion: {q} [/INST]")
        out.append((orig, fixed))
    return out


@workload("fewshot-pairs-shuffled", "messages", ("order",),
          "four few-shot question/reply turns in a random order per request; the layout prints them from token 2, "
          "ahead of the system text and the question", QUARRY)
def _shots(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(6)
    shots = d.fewshot(4)
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        order = shuffled(rng, shots)
        msgs: list[dict[str, Any]] = [sys_msg(system)]
        for k, (sq, sa) in enumerate(order):
            msgs += [user(with_mark(sq, [s for s, _ in shots]) if k == 0 else sq), assistant(sa)]
        canon: list[dict[str, Any]] = [sys_msg(system)]
        for sq, sa in shots:
            canon += [user(sq), assistant(sa)]
        q = d.question()
        out.append((chat(i, msgs + [user(q)]), chat(i, canon + [user(q)])))
    return out


@workload("rules-shuffled-per-session-first-turn", "messages", ("order",),
          "sessions of 1-6 turns whose client builds the instructions once per session and sends them as the "
          "opening of the first user turn (no system message): 24 rules as bullets, in the order of an unordered "
          "set, so each session has its own order", TATTOO)
def _set_rules(rng: random.Random, d: Desk) -> list[Pair]:
    opening = d.opening()
    rules = d.rules(24)
    convs = [d.fewshot(rng.randint(1, 6)) for _ in range(rng.randint(14, 20))]
    orders = [shuffled(rng, rules) for _ in convs]
    canon = f"{opening}\n\nRules:\n" + "\n".join(f"- {r}" for r in rules)
    out: list[Pair] = []
    for i, (c, k) in enumerate(interleave(rng, [len(x) for x in convs])):
        bullets = "\n".join(f"- {r}" for r in orders[c])
        instr = f"{opening}\n\nRules:\n{UNIT}- {MARK}{bullets[2:]}"
        msgs, fixed = [], []
        for j, (q, a) in enumerate(convs[c][:k + 1]):
            msgs.append(user(f"{instr}\n\n{q}" if j == 0 else q))
            fixed.append(user(f"{canon}\n\n{q}" if j == 0 else q))
            if j < k:
                msgs.append(assistant(a))
                fixed.append(assistant(a))
        out.append((chat(i, msgs), chat(i, fixed)))
    return out


MOORINGS = ["Shardlow Wharf", "Sawley Cut", "Stenson Lock", "Willington Bridge", "Burton Shobnall", "Fradley Junction",
            "Alrewas Church", "Barton Turns"]


@workload("moorings-array-in-priming-result", "messages", ("order",),
          "every request replays a canned priming exchange (a request for the moorings list, a call, its result, an "
          "acknowledgement) ahead of the real question; the result's JSON array of eight moorings comes in the "
          "order the database returned it, different per request", CANAL)
def _moorings(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(6)
    tools = d.tools()
    rows = [{"mooring": m, "max_days": rng.choice([2, 7, 14]), "water": rng.choice([True, False]), "note": d.sentence()}
            for m in MOORINGS]
    cid = call_id(0, 1)

    def primed(items: list[dict[str, Any]], mark: bool) -> list[dict[str, Any]]:
        text = json.dumps(items, ensure_ascii=False)
        if mark:
            text = UNIT + '[{"mooring": "' + MARK + text[len('[{"mooring": "'):]
        return [user("Load the visitor moorings list."), tool_call(cid, "stoppages", {"waterway": "Trent & Mersey"}),
                tool_result(cid, text), assistant("Moorings loaded.")]
    out: list[Pair] = []
    for i in range(rng.randint(45, 75)):
        q = d.question()
        orig = chat(i, [sys_msg(system)] + primed(shuffled(rng, rows), True) + [user(q)], tools)
        out.append((orig, chat(i, [sys_msg(system)] + primed(rows, False) + [user(q)], tools)))
    return out


@workload("price-table-rows-shuffled-user-turn-ids", "input_ids", ("order",),
          "no system message: the user turn opens with the static price list as a markdown table whose ten rows "
          "come in a random order per request, then the question; Mistral v3 ids", TATTOO)
def _prices(rng: random.Random, d: Desk) -> list[Pair]:
    intro = d.opening()
    items = [("Flash, palm-sized", 90), ("Flash, hand-sized", 140), ("Fine-line lettering", 80), ("Custom, per hour", 120),
             ("Cover-up consultation", 30), ("Colour sleeve, per session", 480), ("Touch-up within 12 weeks", 0),
             ("Blackwork, per hour", 110), ("Patch test", 15), ("Deposit", 50)]
    rows = [f"| {a} | £{p} | {d.sentence()} |" for a, p in items]
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        order = shuffled(rng, rows)
        q = d.question()
        table = "| Item | Price | Note |\n| --- | --- | --- |\n"
        orig = chat(i, [user(f"{intro}\n\nPrices:\n{table}{UNIT}| {MARK}" + "\n".join(order)[2:] + f"\n\n{q}")])
        out.append((orig, chat(i, [user(f"{intro}\n\nPrices:\n{table}" + "\n".join(rows) + f"\n\n{q}")])))
    return out


@workload("aftercare-steps-renumbered", "input_ids", ("order",),
          "twelve aftercare steps shuffled and renumbered 1-12 per request in the middle of the system text, ~700 "
          "tokens in, ahead of ~800 static tokens", TATTOO)
def _steps(rng: random.Random, d: Desk) -> list[Pair]:
    head = "\n\n".join([d.opening()] + [d.section(h) for h in TATTOO.headings[:3]])
    tail = "\n\n".join(d.section(h) for h in TATTOO.headings[5:9])
    steps = d.rules(12)
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        order = shuffled(rng, steps)
        listed = "\n".join(f"{k + 1}. {(MARK if k == 0 else '') + s}" for k, s in enumerate(order))
        canon = "\n".join(f"{k + 1}. {s}" for k, s in enumerate(steps))
        q = d.question()
        orig = chat(i, [sys_msg(f"{head}\n\nAftercare steps:\n{UNIT}{listed}\n\n{tail}"), user(q)])
        out.append((orig, chat(i, [sys_msg(f"{head}\n\nAftercare steps:\n{canon}\n\n{tail}"), user(q)])))
    return out


@workload("content-parts-shuffled", "messages", ("order",),
          "the user turn is three static content parts (glossary, safety card, tariff), each ~300 tokens, in a random "
          "order per request, then the question part; SGLang joins them with spaces; a system message follows them "
          "nowhere else", QUARRY)
def _part_order(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(4)
    parts = [f"Glossary: {d.paragraph(11)}", f"Safety card: {d.paragraph(11)}", f"Tariff notes: {d.paragraph(11)}"]
    out: list[Pair] = []
    for i in range(rng.randint(45, 75)):
        order = shuffled(rng, parts)
        q = d.question()
        marked_parts = [{"type": "text", "text": (with_mark(p, parts) if k == 0 else p)} for k, p in enumerate(order)]
        canon = [{"type": "text", "text": p} for p in parts]
        orig = chat(i, [sys_msg(system), {"role": "user", "content": marked_parts + [{"type": "text", "text": q}]}])
        out.append((orig, chat(i, [sys_msg(system), {"role": "user", "content": canon + [{"type": "text", "text": q}]}])))
    return out


# ---------------------------------------------------------------- placement


def _sessions_with_system(rng: random.Random, d: Desk, system: str, tools: list[dict[str, Any]] | None,
                          count: tuple[int, int], turns: tuple[int, int]) -> list[Pair]:
    """Sessions sent with a system message, which the layout joins into the LAST user turn; the fix
    sends the instructions as the opening of the first user turn instead."""
    convs = [d.fewshot(rng.randint(*turns)) for _ in range(rng.randint(*count))]
    out: list[Pair] = []
    for i, (c, k) in enumerate(interleave(rng, [len(x) for x in convs])):
        msgs: list[dict[str, Any]] = [sys_msg(system if k else SKIP + system)]
        fixed: list[dict[str, Any]] = []
        for j, (q, a) in enumerate(convs[c][:k + 1]):
            msgs.append(user((MARK if j == 0 and k else "") + q))
            fixed.append(user(f"{system}\n\n{q}" if j == 0 else q))
            if j < k:
                msgs.append(assistant(a))
                fixed.append(assistant(a))
        out.append((chat(i, msgs, tools), chat(i, fixed, tools)))
    return out


@workload("sessions-system-after-history", "messages", ("placement",),
          "sessions of 1-6 turns with a 1.8k-token system message: the template joins it into the last user turn, "
          "behind the history, so no request after a session's first shares it with any other", FUNERAL)
def _sess(rng: random.Random, d: Desk) -> list[Pair]:
    return _sessions_with_system(rng, d, d.system(9), None, (12, 18), (1, 6))


@workload("sessions-system-and-tools-after-history", "messages", ("placement",),
          "the same with five static tools, which the template prints right before the last user turn: sessions of "
          "1-7 turns, 1.4k tokens of system text", CANAL)
def _sess_tools(rng: random.Random, d: Desk) -> list[Pair]:
    return _sessions_with_system(rng, d, d.system(7), d.tools(), (10, 15), (1, 7))


@workload("agent-loops-system-dropped-after-first-step", "messages", ("placement",),
          "agent loops of 2-5 steps with a system message and four tools: the first step ends on the user turn, so "
          "the system text is joined into it; every later step ends on a tool result and the template drops the "
          "system text, so step 2 stops sharing with step 1 right after [INST]", QUARRY)
def _agent_sys(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(8)
    names = ["blast_record", "monitor_reading", "store_count", "log_misfire"]
    tools = d.tools(names)
    out: list[Pair] = []
    i = 0
    for task in range(rng.randint(14, 20)):
        q = d.question()
        history: list[dict[str, Any]] = []
        for step in range(rng.randint(2, 5)):
            first = user((MARK if step else "") + q)
            orig = chat(i, [sys_msg(system if step else SKIP + system), first] + history, tools)
            out.append((orig, chat(i, [user(f"{system}\n\n{q}")] + history, tools)))
            i += 1
            name = rng.choice(names[:3])
            cid = call_id(task, step)
            args = {"blast": f"GQ-26-{rng.randint(100, 999)}"} if name != "store_count" else {"item": "detonators"}
            history += [tool_call(cid, name, args),
                        tool_result(cid, {"ok": True, "reading": rng.randint(1, 90) / 10, "note": d.sentence()})]
    return out


@workload("extracts-ahead-of-instructions-user-turn", "messages", ("placement",),
          "no system message: the user turn holds three retrieved file extracts (~350 tokens, per request) ahead of "
          "~1.5k tokens of static instructions and the question", FUNERAL)
def _extracts(rng: random.Random, d: Desk) -> list[Pair]:
    instr = _instructions(d, 7)
    out: list[Pair] = []
    for i in range(rng.randint(45, 75)):
        docs = "\n\n".join(d.extract(4) for _ in range(3))
        q = d.question()
        orig = chat(i, [user(f"Extracts:\n{MARK}{docs}\n\n{instr}\n\nQuestion: {q}")])
        out.append((orig, chat(i, [user(f"{instr}\n\nExtracts:\n{docs}\n\nQuestion: {q}")])))
    return out


def _profile(rng: random.Random) -> str:
    return (f"Client profile: {rng.choice(['first tattoo', 'returning client', 'cover-up client'])}, age "
            f"{rng.randint(18, 70)}, skin type {rng.choice(['I', 'II', 'III', 'IV', 'V', 'VI'])}, allergies "
            f"{rng.choice(['none', 'latex', 'nickel', 'red pigment'])}, last session {rng.randint(1, 28)}/11/2026, "
            f"artist {rng.choice(ARTISTS)}, card {rng.randint(1000, 9999)}")


@workload("client-profile-opens-system-ids", "input_ids", ("placement",),
          "the system text opens with a per-client profile (~70 tokens) ahead of a 1.8k-token manual, behind four "
          "static tools; Mistral v3 ids", TATTOO, (END_SYSTEM, END_USER))
def _prof(rng: random.Random, d: Desk) -> list[Pair]:
    manual = d.system(9)
    tools = d.tools(["booking_lookup", "artist_calendar", "take_deposit", "send_aftercare"])
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        prof = _profile(rng)
        q = d.question()
        orig = chat(i, [sys_msg(f"{MARK}{prof}\n\n{manual}"), user(q)], tools)
        out.append((orig, two_places(i, manual, q, prof, tools)))
    return out


@workload("case-file-ahead-of-instructions-plain", "prompt", ("placement",),
          "a plain completion prompt that opens with the blast's case file (~300 tokens, per request) before ~1.6k "
          "tokens of instructions and 'Assessment:'", QUARRY)
def _case(rng: random.Random, d: Desk) -> list[Pair]:
    instr = _instructions(d, 8)
    out: list[Pair] = []
    for i in range(rng.randint(45, 70)):
        case = f"Blast GQ-26-{rng.randint(100, 999)}\n{d.paragraph(9)}"
        q = d.question()
        orig = prompt(i, f"Case file:\n{MARK}{case}\n\n{instr}\n\n{q}\nAssessment:")
        out.append((orig, prompt(i, f"{instr}\n\nCase file:\n{case}\n\n{q}\nAssessment:")))
    return out


@workload("session-brief-ahead-of-instructions-first-turn", "messages", ("placement",),
          "sessions of 1-5 turns, no system message: the first user turn opens with the session's booking brief "
          "(~150 tokens) and then the static instructions (~1.4k tokens), so sessions share nothing", CANAL)
def _brief(rng: random.Random, d: Desk) -> list[Pair]:
    instr = _instructions(d, 7)
    convs = [d.fewshot(rng.randint(1, 5)) for _ in range(rng.randint(14, 20))]
    briefs = [f"Booking AT-{rng.randint(10000, 99999)}, boat {rng.choice(BOATS)}: {d.paragraph(4)}" for _ in convs]
    out: list[Pair] = []
    for i, (c, k) in enumerate(interleave(rng, [len(x) for x in convs])):
        msgs, fixed = [], []
        for j, (q, a) in enumerate(convs[c][:k + 1]):
            msgs.append(user(f"{MARK}{briefs[c]}\n\n{instr}\n\n{q}" if j == 0 else q))
            fixed.append(user(f"{instr}\n\n{briefs[c]}\n\n{q}" if j == 0 else q))
            if j < k:
                msgs.append(assistant(a))
                fixed.append(assistant(a))
        out.append((chat(i, msgs), chat(i, fixed)))
    return out


@workload("daily-bulletin-ahead-of-manual-inst", "prompt", ("placement|dynamic",),
          "a raw '[INST] ... [/INST]' prompt that opens with the day's cellar bulletin (~200 tokens, three days) "
          "ahead of the ~1.6k-token manual and the question; untimed", CELLAR,
          ("after the manual", "after the question"))
def _bulletin(rng: random.Random, d: Desk) -> list[Pair]:
    manual = d.system(8)
    bulletins = [f"Bulletin {k + 1}/12: {d.paragraph(7)}" for k in range(3)]
    out: list[Pair] = []
    for i, ts in enumerate(spread(rng, rng.randint(45, 70), 3)):
        b = bulletins[(day(ts)[2] - day(BASE_TIME)[2]) % 3]
        q = d.question()
        orig = untimed(prompt(i, f"[INST] Bulletin {MARK}{b[9:]}\n\n{manual}\n\nQuestion: {q} [/INST]"))
        a = untimed(prompt(i, f"[INST] {manual}\n\n{b}\n\nQuestion: {q} [/INST]"))
        bb = untimed(prompt(i, f"[INST] {manual}\n\nQuestion: {q}\n\n{b} [/INST]"))
        out.append((orig, (a, bb)))
    return out


# ---------------------------------------------------------------- several defects


@workload("shuffled-tools-and-clock-in-system", "messages", ("order", "dynamic"),
          "five quarry tools in a random order per request (printed first), then a system text that opens with the "
          "request's clock to the minute ('Local time 13:42')", QUARRY)
def _tools_clock(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(8)
    names = list(QUARRY.tools)
    out: list[Pair] = []
    for i in range(rng.randint(55, 85)):
        ts = BASE_TIME + 8 * 3600 + 83.0 * i
        line = f"Local time {clock(ts)[:5]}"
        q = d.question()
        orig = chat(i, [sys_msg(f"Local time {MARK}{line[11:]}\n{system}"), user(q)],
                    _first_tool_marked(d.tools(shuffled(rng, names))), ts)
        orig[UNIT_HINT] = [FIRST_TOOL]
        out.append((orig, chat(i, [sys_msg(system), user(f"{q}\n\n{line}")], d.tools(names), ts)))
    return out


@workload("profile-ahead-and-shuffled-sections-ids", "input_ids", ("placement", "order"),
          "a per-client profile opens the system text, then eight manual sections in a random order per request; no "
          "tools; Mistral v3 ids", TATTOO)
def _prof_sections(rng: random.Random, d: Desk) -> list[Pair]:
    opening = d.opening()
    secs = [d.section(h, 6) for h in TATTOO.headings[:8]]
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        prof = _profile(rng)
        body = "\n\n".join(shuffled(rng, secs))
        q = d.question()
        orig = chat(i, [sys_msg(f"{MARK}{prof}\n\n{opening}\n\n{UNIT}### {MARK}{body[4:]}"), user(q)])
        canon = "\n\n".join(secs)
        out.append((orig, chat(i, [sys_msg(f"{opening}\n\n{canon}"), user(f"{q}\n\n{prof}")])))
    return out


@workload("tool-note-and-system-value", "messages", ("dynamic", "dynamic"),
          "two values: the first tool's description ends with the dome humidity (a new reading every 3-6 requests), "
          "and the system text's sixth section is followed by the duty astronomer's name (8 names)", OBSERVATORY,
          ("both at the end of the system text", "both at the end of the user turn"))
def _two_values(rng: random.Random, d: Desk) -> list[Pair]:
    head = "\n\n".join([d.opening()] + [d.section(h) for h in OBSERVATORY.headings[:6]])
    tail = "\n\n".join(d.section(h) for h in OBSERVATORY.headings[6:])
    n = rng.randint(50, 80)
    slot = hourly(rng, n, (3, 6))
    hums = [rng.randint(40, 92) for _ in range(slot[-1] + 1)]
    staff = ["Dr Ilse Varga", "Dr Tomo Reyes", "Dr Ann Kiely", "Dr Sami Haapala", "Dr Lior Ben-Ami", "Dr Uma Pillai",
             "Dr Gerd Holt", "Dr Ines Couto"]
    out: list[Pair] = []
    for i in range(n):
        hum = f"Dome humidity {hums[slot[i]]}%."
        who = rng.choice(staff)
        q = d.question()
        orig = chat(i, [sys_msg(f"{head}\n\nDuty astronomer: {MARK}{who}\n\n{tail}"), user(q)],
                    _obs_tools(d, f" Dome humidity {MARK}{hum[14:]}"))
        both = f"{hum}\nDuty astronomer: {who}"
        out.append((orig, two_places(i, f"{head}\n\n{tail}", q, both, _obs_tools(d))))
    return out


@workload("three-defects-tools-date-ref", "messages", ("order", "dynamic", "dynamic"),
          "three defects in one request: the five funeral-office tools in one of six orders, a system text whose "
          "first line is the office date (five days, untimed), and the family's file reference after the third "
          "section", FUNERAL)
def _three(rng: random.Random, d: Desk) -> list[Pair]:
    head = "\n\n".join([d.opening()] + [d.section(h) for h in FUNERAL.headings[:3]])
    tail = "\n\n".join(d.section(h) for h in FUNERAL.headings[3:8])
    names = list(FUNERAL.tools)
    orders = [shuffled(rng, names) for _ in range(6)]
    out: list[Pair] = []
    for i, ts in enumerate(spread(rng, rng.randint(55, 85), 5)):
        y, m, dd, _ = day(ts)
        date = f"Office date: {dd:02d}/{m:02d}/{y}"
        ref = f"Family file: HM-{rng.randint(1000, 9999)}"
        q = d.question()
        orig = untimed(chat(i, [sys_msg(f"Office date: {MARK}{date[13:]}\n{head}\n\nFamily file: HM-{MARK}{ref[16:]}\n\n{tail}"),
                                user(q)], _first_tool_marked(d.tools(rng.choice(orders)))))
        orig[UNIT_HINT] = [FIRST_TOOL]
        fixed = untimed(chat(i, [sys_msg(f"{head}\n\n{tail}\n\n{date}"), user(f"{q}\n\n{ref}")], d.tools(names)))
        out.append((orig, fixed))
    return out


@workload("sessions-shuffled-rules-and-aged-replies", "messages", ("order", "dynamic"),
          "sessions of 2-5 turns with the instructions in the first user turn: its 18 rules come in a random order "
          "per REQUEST (not per session), and every earlier reply carries its age ('(3 min ago)')", CELLAR)
def _sess_two(rng: random.Random, d: Desk) -> list[Pair]:
    opening = d.opening()
    rules = d.rules(18)
    canon = f"{opening}\n\nRules:\n" + "\n".join(f"- {r}" for r in rules)
    convs = [d.fewshot(rng.randint(2, 5)) for _ in range(rng.randint(12, 16))]
    started = [BASE_TIME + rng.uniform(0, 7200) for _ in convs]
    out: list[Pair] = []
    for i, (c, k) in enumerate(interleave(rng, [len(x) for x in convs])):
        now = started[c] + 120.0 * k + rng.uniform(0, 50)
        bullets = "\n".join(f"- {r}" for r in shuffled(rng, rules))
        instr = f"{opening}\n\nRules:\n{UNIT}- {MARK}{bullets[2:]}"
        msgs, fixed = [], []
        for j, (q, a) in enumerate(convs[c][:k]):
            age = max(1, int((now - (started[c] + 120.0 * j + 40)) // 60))
            msgs += [user(f"{instr}\n\n{q}" if j == 0 else q), assistant(f"({MARK if j == 0 else ''}{age} min ago) {a}")]
            fixed += [user(f"{canon}\n\n{q}" if j == 0 else q), assistant(a)]
        q = convs[c][k][0]
        msgs.append(user(f"{instr}\n\n{SKIP}{q}" if k == 0 else q))
        fixed.append(user(f"{canon}\n\n{q}" if k == 0 else q))
        out.append((chat(i, msgs, ts=now), chat(i, fixed, ts=now)))
    return out


@workload("nonce-and-shuffled-checklist-prompt", "prompt", ("dynamic", "order"),
          "a raw '[INST]' prompt: a request nonce on the first line, ~500 tokens of static opening, then a 20-item "
          "checklist in a random order per request and the question", RAPTOR)
def _nonce_list(rng: random.Random, d: Desk) -> list[Pair]:
    opening = "\n\n".join([d.opening(), d.section(RAPTOR.headings[0]), d.section(RAPTOR.headings[1])])
    items = d.rules(20)
    out: list[Pair] = []
    for i in range(rng.randint(50, 75)):
        nonce = "".join(rng.choice("0123456789ABCDEFGHJKMNPQRSTVWXYZ") for _ in range(12))
        listed = "\n".join(f"* {s}" for s in shuffled(rng, items))
        q = d.question()
        orig = prompt(i, f"[INST] req {MARK}{nonce}\n{opening}\n\nChecklist:\n{UNIT}* {MARK}{listed[2:]}\n\n{q} [/INST]")
        canon = "\n".join(f"* {s}" for s in items)
        out.append((orig, prompt(i, f"[INST] {opening}\n\nChecklist:\n{canon}\n\n{q}\nreq {nonce} [/INST]")))
    return out


# ---------------------------------------------------------------- clean controls


@workload("clean-static-tools-ref-last", "messages", (),
          "static tools and system text; the user turn ends with the booking reference", CANAL)
def _c_tools(rng: random.Random, d: Desk) -> list[Pair]:
    system, tools = d.system(8), d.tools()
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        rec = chat(i, [sys_msg(system), user(f"{d.question()}\n\n[booking AT-{rng.randint(10000, 99999)}]")], tools)
        out.append((rec, rec))
    return out


@workload("clean-sessions-instructions-open-first-turn", "messages", (),
          "sessions of 1-7 turns with the instructions as the opening of the first user turn (no system message) "
          "and static tools, which the layout prints before each request's last user turn", RAPTOR)
def _c_sess(rng: random.Random, d: Desk) -> list[Pair]:
    instr, tools = _instructions(d, 8), d.tools()
    convs = [d.fewshot(rng.randint(1, 7)) for _ in range(rng.randint(10, 15))]
    out: list[Pair] = []
    for i, (c, k) in enumerate(interleave(rng, [len(x) for x in convs])):
        msgs: list[dict[str, Any]] = []
        for j, (q, a) in enumerate(convs[c][:k + 1]):
            msgs.append(user(f"{instr}\n\n{q}" if j == 0 else q))
            if j < k:
                msgs.append(assistant(a))
        rec = chat(i, msgs, tools)
        out.append((rec, rec))
    return out


@workload("clean-agent-loops-no-system", "messages", (),
          "agent loops of 2-5 steps with the instructions in the first user turn and static tools; results appended "
          "step by step and never re-written", OBSERVATORY)
def _c_agent(rng: random.Random, d: Desk) -> list[Pair]:
    instr, tools = _instructions(d, 6), d.tools()
    out: list[Pair] = []
    i = 0
    for task in range(rng.randint(14, 20)):
        msgs: list[dict[str, Any]] = [user(f"{instr}\n\n{d.question()}")]
        for step in range(rng.randint(2, 5)):
            rec = chat(i, [dict(m) for m in msgs], tools)
            out.append((rec, rec))
            i += 1
            cid = call_id(task, step)
            msgs += [tool_call(cid, "seeing_history", {"hours": rng.randint(1, 6)}),
                     tool_result(cid, {"median_arcsec": rng.randint(50, 200) / 100, "note": d.sentence()})]
    return out


@workload("clean-inst-prompt-extracts-after", "prompt", (),
          "a raw '[INST]' prompt: static instructions first, then three per-request extracts and the question",
          FUNERAL)
def _c_rag(rng: random.Random, d: Desk) -> list[Pair]:
    instr = _instructions(d, 8)
    out: list[Pair] = []
    for i in range(rng.randint(45, 70)):
        docs = "\n\n".join(d.extract(4) for _ in range(3))
        rec = prompt(i, f"[INST] {instr}\n\nExtracts:\n{docs}\n\nQuestion: {d.question()} [/INST]")
        out.append((rec, rec))
    return out


@workload("clean-two-trades-one-endpoint-ids", "input_ids", (),
          "two products on one endpoint (the quarry office and the cheese cellar), each with its own static system "
          "text and tools, interleaved; Mistral v3 ids", QUARRY)
def _c_two(rng: random.Random, d: Desk) -> list[Pair]:
    other = Desk(random.Random(rng.random()), CELLAR)
    a, b = (d.system(7), d.tools()), (other.system(8), other.tools())
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        if rng.random() < 0.5:
            rec = chat(i, [sys_msg(a[0]), user(d.question())], a[1])
        else:
            rec = chat(i, [sys_msg(b[0]), user(other.question())], b[1])
        out.append((rec, rec))
    return out


@workload("clean-cellar-shift-before-question", "messages", (),
          "the cellar shift (3 settings) already on the last line of the system text, which this layout prints "
          "right before the user's text", CELLAR)
def _c_shift(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(9)
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        rec = chat(i, [sys_msg(f"{system}\n\nShift: {rng.choice(['morning', 'afternoon', 'weekend'])}"), user(d.question())])
        out.append((rec, rec))
    return out


@workload("clean-static-part-then-varying-parts", "messages", (),
          "content parts: a static 800-token checklist part first, then a per-request photo caption and the "
          "question; no system message", TATTOO)
def _c_parts(rng: random.Random, d: Desk) -> list[Pair]:
    checklist = "Consultation checklist:\n" + "\n".join(f"- {r}" for r in d.rules(30))
    out: list[Pair] = []
    for i in range(rng.randint(45, 70)):
        caption = f"Reference photo {rng.randint(1, 999)}: {d.sentence()}"
        rec = chat(i, [{"role": "user", "content": [{"type": "text", "text": checklist}, {"type": "text", "text": caption},
                                                    {"type": "text", "text": d.question()}]}])
        out.append((rec, rec))
    return out


@workload("clean-static-manual-v3-ids", "input_ids", (),
          "a static system text and a fresh question per request, no tools; Mistral v3 ids", OBSERVATORY)
def _c_ids(rng: random.Random, d: Desk) -> list[Pair]:
    system = d.system(10)
    out: list[Pair] = []
    for i in range(rng.randint(45, 75)):
        rec = chat(i, [sys_msg(system), user(d.question())])
        out.append((rec, rec))
    return out


@workload("clean-sessions-clock-on-each-new-turn", "messages", (),
          "sessions of 2-6 turns, instructions in the first user turn; each user turn ends with its own send time, "
          "kept unchanged in the history", FUNERAL)
def _c_clock(rng: random.Random, d: Desk) -> list[Pair]:
    instr = _instructions(d, 7)
    convs = [d.fewshot(rng.randint(2, 6)) for _ in range(rng.randint(10, 15))]
    sent: list[list[str]] = [[] for _ in convs]
    out: list[Pair] = []
    for i, (c, k) in enumerate(interleave(rng, [len(x) for x in convs])):
        sent[c].append(f"[sent {clock(BASE_TIME + 29.0 * i)}]")
        msgs: list[dict[str, Any]] = []
        for j, (q, a) in enumerate(convs[c][:k + 1]):
            msgs.append(user((f"{instr}\n\n" if j == 0 else "") + f"{q} {sent[c][j]}"))
            if j < k:
                msgs.append(assistant(a))
        rec = chat(i, msgs)
        out.append((rec, rec))
    return out


@workload("clean-date-changes-once-plain", "prompt", (),
          "a plain completion prompt with the date at the end, traffic over two days (it changes once); Romanian "
          "weather line after the question", CANAL)
def _c_date(rng: random.Random, d: Desk) -> list[Pair]:
    body = d.system(8)
    out: list[Pair] = []
    for i, ts in enumerate(spread(rng, rng.randint(45, 70), 2)):
        y, m, dd, _ = day(ts)
        weather = rng.choice(RO_WEATHER).format(w=rng.randint(5, 40))
        rec = untimed(prompt(i, f"{body}\n\nQ: {d.question()}\nData: {dd:02d}.{m:02d}.{y}; vremea: {weather}\nA:"))
        out.append((rec, rec))
    return out
