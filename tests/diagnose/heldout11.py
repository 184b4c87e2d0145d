"""Eleventh held-out diagnosis set: a Qwen3 model served by vLLM.

Written blind to the detector (advisor/diagnose, advisor/prescribe, the zoo, its shapes and its
tests were not read): DESIGN.md's traffic formats and the rendering advisor/ingest does were
used. Every record is what ``advisor analyze --engine vllm --tokenizer qwen3 --chat-template
tests/chat_templates/qwen3.jinja`` reads (``ANALYZE_ARGS``, which the bench passes to every
``analyze``, ``prescribe`` and ``render`` run of this set). The layout, checked by rendering
through advisor/ingest (tests/diagnose/test_heldout11.py asserts it): ChatML turns, no BOS; the
tools as one JSON line each inside ``<tools>`` in the system turn, AFTER the first system
message's text, so anything per-request in the system text parts every request ahead of the
whole tool block; a system message other than the first is its own system turn where it stands;
vLLM hands the template one string per message (content parts joined by newlines: the template
reads only string content), a null content as empty, tool-call arguments parsed and re-dumped
as JSON; tool results as ``<tool_response>`` blocks inside one user turn; and assistant
reasoning as a ``<think>`` block only for assistant messages after the last real user query. An
agent step's reasoning therefore appears in the requests of its own loop and vanishes from every
request after the next user turn: the prefix changes between turns of a session. The oracle
says whether that costs anything: when the reasoning is only on final answers nothing a request
held is ever dropped (a control); when long reasoning rides on the loop's tool calls, the next
turn's requests part at the first such call, and not sending earlier reasoning back is a fix the
team controls (a defect, planted as ``dynamic``: content that differs between requests at one
point). Token-id records hold Qwen3 ids of that rendering; prompt records hold raw ChatML text
or plain completion prompts. Qwen splits digits one by one.

Teams (heldout11_text.py): a glacier-monitoring field station, a joint halal/kosher
certification body, a violin-making workshop, a drone-survey firm, a refugee resettlement
caseworker tool, a vineyard's cellar log, a railway signalling maintenance desk, a
mountain-rescue coordination centre; languages: Icelandic, Czech, Hungarian, Italian, Dari,
Slovene. Logs are noisy: 20-100 requests, sessions of 1-7 turns, questions of varied length,
some requests without the defect (SKIP where it would be; offsets are medians over the requests
that carry it).

Truth: the oracle's hit rate over Qwen3 ids on the traffic after the ideal fix written here. A
value with many settings goes to the end of the last user turn (a prompt: after the question);
a value with few settings, or many in arrival order, right after the content all requests share:
the end of the system text without tools, the start of the first user turn with tools (the
tools follow the system text); where two places are plausible the generator writes both
(``PLACES``) and the truth is the better measured one. Order fixes use one canonical order;
placement fixes put the shared content first and the per-request content after it. A request
without the defect is its own fix. The shapes each workload plants are in its ``shape``.
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
from tests.diagnose.heldout11_text import (
    CELLAR, CERTIFY, DRONE, GLACIER, LUTHIER, RESCUE, RESETTLE, SIGNAL, Bench, Crew,
)

TOKENIZER = "qwen3"
TEMPLATE = Path(__file__).resolve().parents[1] / "chat_templates" / "qwen3.jinja"
ANALYZE_ARGS = ("--engine", "vllm", "--tokenizer", TOKENIZER, "--chat-template", str(TEMPLATE))

SKIP = "\ue002"  # this request lacks the defect that would be here
# [(anchor, target, marker)]: the marker goes before the first ``target`` after ``anchor`` in the
# rendered text, where no field can hold one (vLLM checks a tool's type; a dropped <think> block).
HINT = "_mark_before"
Fix = dict[str, Any] | tuple[dict[str, Any], ...]  # one fix, or the plausible places in PLACES order
Pair = tuple[dict[str, Any], Fix]
Builder = Callable[[random.Random, Bench], list[Pair]]
REGISTRY: list[tuple[str, str, tuple[str, ...], str, Builder, str]] = []
CREW_OF: dict[str, Crew] = {}
PLACES: dict[str, tuple[str, ...]] = {}
CHOSEN: dict[str, tuple[int, tuple[float, ...]]] = {}  # name -> (index of the truth's place, each place's rate)
_register = registering(REGISTRY)

END_SYSTEM, END_USER, START_USER = "end of the system text", "end of the last user turn", "start of the first user turn"


def workload(name: str, kind: str, expect: tuple[str, ...], shape: str, crew: Crew,
             places: tuple[str, ...] = (), notes: str = "") -> Callable[[Any], Any]:
    CREW_OF[name] = crew
    if places:
        PLACES[name] = places
    return _register(name, kind, expect, shape, notes)


# ---------------------------------------------------------------- Qwen3 on vLLM: rendering and marking


def qwen3_render() -> Callable[[dict[str, Any]], str]:
    """This checkout's rendering as `advisor analyze` with ANALYZE_ARGS sets it up."""
    renderer = make_renderer(TOKENIZER, TEMPLATE, None, [], engine="vllm")

    def render(record: dict[str, Any]) -> str:
        text = renderer.text_of(parse_record(record, "heldout11", 1))
        assert text is not None
        return text
    return render


def qwen3_engine(render: Callable[[dict[str, Any]], str] | None = None) -> Engine:
    """An Engine with the Qwen3 tokenizer and vLLM's handling of the Qwen3 template (or
    ``render``, the bench's rendering by the checkout under test with ANALYZE_ARGS)."""
    return Engine(render or qwen3_render(), load_tokenizer(TOKENIZER))


local_engine = qwen3_engine  # what the bench's --render local builds for this set


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
    """Qwen3 ids of the record without markers; per defect the token offset of its MARK (None
    where SKIP says this request lacks it); the token offsets of the UNIT markers."""
    text = engine.text(unhinted(record)).replace("\\ue002", SKIP)
    for anchor, target, marker in record.get(HINT, ()):
        at = text.index(target, text.index(anchor) + len(anchor))
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
    return fn(random.Random(f"{seed}/h11/{name}"), Bench(random.Random(f"{seed}/h11/{name}/text"), CREW_OF[name]))


def build_workloads(seed: int = 12, engine: Engine | None = None, only: Sequence[str] | None = None) -> list[Workload]:
    """Every workload of the eleventh held-out set, deterministic for ``seed``, on Qwen3 ids."""
    engine = engine or qwen3_engine()
    if engine.tok.name != TOKENIZER:
        raise ValueError(f"the eleventh held-out set is measured in {TOKENIZER} tokens, not {engine.tok.name}")
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


def in_force(rng: random.Random, n: int, per: tuple[int, int]) -> list[int]:
    """For ``n`` requests in arrival order, the index of the value in force (a new one every
    ``per`` requests)."""
    out: list[int] = []
    k = 0
    while len(out) < n:
        out += [k] * rng.randint(*per)
        k += 1
    return out[:n]


def im(role: str, text: str) -> str:
    return f"<|im_start|>{role}\n{text}<|im_end|>\n"


def chatml(system: str, *turns: str) -> str:
    """A raw ChatML prompt as a team's own client writes it: system, alternating user and
    assistant turns, the open assistant turn last."""
    out = im("system", system)
    for k, t in enumerate(turns):
        out += im("user" if k % 2 == 0 else "assistant", t)
    return out + "<|im_start|>assistant\n"


def call(cid: str, name: str, args: dict[str, Any], reasoning: str | None = None) -> dict[str, Any]:
    msg: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [
        {"id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(args, ensure_ascii=False)}}]}
    if reasoning is not None:
        msg["reasoning_content"] = reasoning
    return msg


def result(cid: str, content: Any) -> dict[str, Any]:
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    return {"role": "tool", "tool_call_id": cid, "content": text}


def parts(*texts: str) -> list[dict[str, str]]:
    return [{"type": "text", "text": t} for t in texts]


def sessions(rng: random.Random, b: Bench, count: tuple[int, int], turns: tuple[int, int]) -> list[list[tuple[str, str]]]:
    return [[(b.question(), b.answer()) for _ in range(rng.randint(*turns))] for _ in range(rng.randint(*count))]


def interleave(rng: random.Random, convs: Sequence[Sequence[Any]]) -> list[tuple[int, int]]:
    """(conversation, turn) in an interleaved arrival order, each conversation's turns in order."""
    progress = [0] * len(convs)
    out = []
    while any(progress[c] < len(convs[c]) for c in range(len(convs))):
        c = rng.choice([c for c in range(len(convs)) if progress[c] < len(convs[c])])
        out.append((c, progress[c]))
        progress[c] += 1
    return out


def day(ts: float) -> tuple[int, int, int, int]:
    import datetime as dt

    d = dt.datetime.fromtimestamp(ts, tz=dt.timezone.utc)
    return d.year, d.month, d.day, d.weekday()


def shuffled(rng: random.Random, items: Sequence[Any]) -> list[Any]:
    out = list(items)
    rng.shuffle(out)
    return out


def mark_first_tool(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A shuffled tool list parts requests at the first tool's name; its JSON line opens the
    unit (a hint: vLLM admits no marker in the type)."""
    tools[0]["function"]["name"] = MARK + tools[0]["function"]["name"]
    return tools


def with_tool_unit(record: dict[str, Any]) -> dict[str, Any]:
    record[HINT] = [("<tools>", '{"type"', UNIT)]
    return record


def marked_at_split(text: str, rivals: Sequence[str]) -> str:
    """``text`` with a MARK where it stops agreeing with the rival that agrees with it longest."""
    best = 0
    for r in rivals:
        n = 0
        while n < min(len(text), len(r)) and text[n] == r[n]:
            n += 1
        best = max(best, n)
    return text[:best] + MARK + text[best:]


IS_DAYS = ["mánudagur", "þriðjudagur", "miðvikudagur", "fimmtudagur", "föstudagur", "laugardagur", "sunnudagur"]
IS_MONTHS = ["janúar", "febrúar", "mars", "apríl", "maí", "júní", "júlí", "ágúst", "september", "október",
             "nóvember", "desember"]
CS_DAYS = ["pondělí", "úterý", "středa", "čtvrtek", "pátek", "sobota", "neděle"]
CS_MONTHS = ["ledna", "února", "března", "dubna", "května", "června", "července", "srpna", "září", "října",
             "listopadu", "prosince"]
HU_MONTHS = ["január", "február", "március", "április", "május", "június", "július", "augusztus", "szeptember",
             "október", "november", "december"]
OBSERVERS = ["Sigríður Jónsdóttir", "Ólafur Gunnarsson", "Hekla Einarsdóttir", "Birkir Þórsson", "Ásta Helgadóttir",
             "Kári Stefánsson", "Ragnheiður Magnúsdóttir", "Snorri Halldórsson", "Freyja Ásgeirsdóttir",
             "Einar Björnsson", "Guðrún Ólafsdóttir", "Hjalti Sigurðsson"]
CASEWORKERS = ["Maryam Ahmadi", "Tomás Ferreira", "Olena Kovalenko", "Samir Haidari", "Grace Mensah", "Ingrid Solberg",
               "Farid Rahimi", "Lena Hofmann", "Yusuf Demir", "Nadia Karimi", "Peter Novák", "Amina Yusuf",
               "Declan Byrne", "Shirin Mohammadi", "Rui Santos", "Eva Lindqvist", "Hamid Noori", "Marta Kowal",
               "Joseph Okafor", "Zahra Sadat", "Oskar Berg", "Leyla Aziz", "Milan Horvat", "Sara Bianchi"]


# ---------------------------------------------------------------- dynamic values


@workload("station-observer-first-token", "messages", ("dynamic",),
          "the station header ('Observer Sigríður Jónsdóttir · shift 0412 · GNSS 64.4021N') is the first text of the "
          "system message, the first token after '<|im_start|>system\\n'; ~12% of requests come from the unattended "
          "logger and lack it; ~2k static tokens follow", GLACIER)
def _observer_first(rng: random.Random, b: Bench) -> list[Pair]:
    body = b.system(9)
    out: list[Pair] = []
    for i in range(rng.randint(55, 80)):
        q = b.question()
        if lacks(rng, 0.12):
            rec = chat(i, [sys_msg(SKIP + body), user(q)])
            out.append((rec, unmark(rec)))
            continue
        head = (f"Observer {rng.choice(OBSERVERS)} · shift {rng.randint(100, 9999):04d} · "
                f"GNSS 64.{rng.randint(1000, 9999)}N")
        orig = chat(i, [sys_msg(f"{MARK}{head}\n\n{body}"), user(q)])
        out.append((orig, chat(i, [sys_msg(body), user(f"{q}\n\n{head}")])))
    return out


def _glacier_tools(b: Bench, note: str | None) -> list[dict[str, Any]]:
    tools = b.tools()
    if note is not None:
        tools[0]["function"]["description"] += note
    return tools


@workload("lake-stage-in-first-tool-description", "messages", ("dynamic",),
          "the first tool's description ends with the latest lake stage ('Latest stage at GRM-04: 312 cm, rising'), "
          "new every 4-8 requests in arrival order; the tools sit in the system turn after ~1.5k tokens of system text",
          GLACIER, (START_USER, END_USER))
def _lake_stage(rng: random.Random, b: Bench) -> list[Pair]:
    system = b.system(7)
    n = rng.randint(50, 80)
    slot = in_force(rng, n, (4, 8))
    stages = [f"{rng.randint(250, 420)} cm, {rng.choice(['rising', 'steady', 'falling'])}" for _ in range(slot[-1] + 1)]
    out: list[Pair] = []
    for i in range(n):
        line = f"Latest stage at GRM-04: {stages[slot[i]]}."
        q = b.question()
        orig = chat(i, [sys_msg(system), user(q)], _glacier_tools(b, f" Latest stage at GRM-04: {MARK}{stages[slot[i]]}."))
        plain = _glacier_tools(b, None)
        a = chat(i, [sys_msg(system), user(f"{line}\n\n{q}")], plain)
        z = chat(i, [sys_msg(system), user(f"{q}\n\n{line}")], plain)
        out.append((orig, (a, z)))
    return out


INSPECTORS = ["Imam Yusuf Rahman", "Rabbi Dov Katz", "Sheikh Omar Haddad", "Rabbi Miriam Levi", "Hajji Karim Aziz",
              "Rabbi Eli Stern"]


@workload("inspector-deep-in-system-ids", "input_ids", ("dynamic",),
          "the inspector on duty (6 names) on its own line after eleven handbook sections, ~2.6k tokens deep; two "
          "more sections follow; Qwen3 ids", CERTIFY, (END_SYSTEM, END_USER))
def _inspector(rng: random.Random, b: Bench) -> list[Pair]:
    head = b.system(11)
    tail = "\n\n".join(b.section(t) for t in ("Records", "Scope"))
    out: list[Pair] = []
    for i in range(rng.randint(45, 70)):
        who = rng.choice(INSPECTORS)
        q = b.question()
        orig = chat(i, [sys_msg(f"{head}\n\nInspector on duty: {MARK}{who}\n\n{tail}"), user(q)])
        a = chat(i, [sys_msg(f"{head}\n\n{tail}\n\nInspector on duty: {who}"), user(q)])
        z = chat(i, [sys_msg(f"{head}\n\n{tail}"), user(f"{q}\n\nInspector on duty: {who}")])
        out.append((orig, (a, z)))
    return out


@workload("humidity-first-content-part", "messages", ("dynamic",),
          "the user turn's first content part is the varnish-room reading ('Varnish room 14:05:12 · 57% RH · 21.4 °C'), "
          "then a static ~800-token varnish checklist part, then the question part; vLLM joins the parts by newlines",
          LUTHIER)
def _humidity(rng: random.Random, b: Bench) -> list[Pair]:
    system = b.system(5)
    checklist = "Varnish checklist:\n" + "\n".join(f"- {r}" for r in b.rules(26))
    out: list[Pair] = []
    for i in range(rng.randint(40, 70)):
        ts = BASE_TIME + 30000 + 61.0 * i
        reading = f"Varnish room {clock(ts)} · {rng.randint(38, 71)}% RH · {rng.randint(180, 240) / 10:.1f} °C"
        q = b.question()
        orig = chat(i, [sys_msg(system), {"role": "user", "content": parts(MARK + reading, checklist, q)}], ts=ts)
        fixed = chat(i, [sys_msg(system), {"role": "user", "content": parts(checklist, q, reading)}], ts=ts)
        out.append((orig, fixed))
    return out


def _drone_tools(b: Bench) -> list[dict[str, Any]]:
    return b.tools()


@workload("wind-in-priming-tool-result", "messages", ("dynamic",),
          "each request replays a canned priming exchange (a check_notams call with null content, its result, an "
          "acknowledgement) before the question; the result's JSON opens with the live wind at the base, new every "
          "5-9 requests, ahead of ~600 tokens of static airspace notes", DRONE, (START_USER, END_USER))
def _wind(rng: random.Random, b: Bench) -> list[Pair]:
    system = b.system(5)
    tools = _drone_tools(b)
    notes = [b.rule() for _ in range(20)]
    n = rng.randint(45, 75)
    slot = in_force(rng, n, (5, 9))
    winds = [f"{rng.randint(2, 14)} m/s from {rng.randint(0, 35) * 10:03d}°" for _ in range(slot[-1] + 1)]
    cid = "call_notam_0"
    out: list[Pair] = []
    for i in range(n):
        w = winds[slot[i]]

        def primed(res: dict[str, Any]) -> list[dict[str, Any]]:
            return [user("Load today's airspace notes."), call(cid, "check_notams", {"lat": 49.2, "lon": 16.6, "radius_km": 25}),
                    result(cid, res), assistant("Airspace notes loaded.")]
        q = b.question()
        orig = chat(i, [sys_msg(system)] + primed({"wind": MARK + w, "notes": notes}) + [user(q)], tools)
        plain = primed({"notes": notes})
        a = chat(i, [sys_msg(system), user(f"Wind at base: {w}.\n\nLoad today's airspace notes.")] + plain[1:] + [user(q)], tools)
        z = chat(i, [sys_msg(system)] + plain + [user(f"{q}\n\nWind at base: {w}.")], tools)
        out.append((orig, (a, z)))
    return out


@workload("case-id-in-canned-call-arguments", "messages", ("dynamic",),
          "a canned case_file call replayed ahead of each question carries the request's case number in its arguments "
          "('case_id': 'HR-58120'); the static ~700-token guidance result follows it; tools static", RESETTLE)
def _case_args(rng: random.Random, b: Bench) -> list[Pair]:
    system = b.system(5)
    tools = b.tools()
    guide = "\n".join(f"- {r}" for r in b.rules(24))
    cid = "call_guide_1"
    out: list[Pair] = []
    for i in range(rng.randint(45, 75)):
        case = f"HR-{rng.randint(10000, 99999)}"
        q = b.question()

        def primed(args: dict[str, Any]) -> list[dict[str, Any]]:
            return [user("Open the caseworker guidance."), call(cid, "case_file", args),
                    result(cid, {"guidance": guide}), assistant("Guidance open.")]
        orig = chat(i, [sys_msg(system)] + primed({"case_id": MARK + case}) + [user(q)], tools)
        fixed = chat(i, [sys_msg(system)] + primed({"case_id": "guidance"}) + [user(f"{q}\n\n(case {case})")], tools)
        out.append((orig, fixed))
    return out


@workload("tank-readings-raw-chatml", "prompt", ("dynamic",),
          "a raw ChatML prompt whose system turn carries the cellar's tank readings ('T-14 23.1 °C, 1043 g/l; T-15 ...'), "
          "unique per request, after three of nine sections; ~1.4k tokens follow", CELLAR)
def _tank_prompt(rng: random.Random, b: Bench) -> list[Pair]:
    head = "\n\n".join([b.opening()] + [b.section(t) for t in CELLAR.sections[:3]])
    tail = "\n\n".join(b.section(t) for t in CELLAR.sections[3:9])
    out: list[Pair] = []
    for i in range(rng.randint(40, 65)):
        read = "; ".join(f"T-{k} {rng.randint(140, 290) / 10:.1f} °C, {rng.randint(990, 1100)} g/l" for k in (14, 15, 16))
        q = b.question()
        orig = prompt(i, chatml(f"{head}\n\nTank readings: {MARK}{read}\n\n{tail}", q))
        fixed = prompt(i, chatml(f"{head}\n\n{tail}", f"{q}\n\nTank readings: {read}"))
        out.append((orig, fixed))
    return out


@workload("czech-date-plain-prompt", "prompt", ("dynamic",),
          "a plain completion prompt (no ChatML) opening with the Czech date ('Dnes je úterý 1. prosince 2026.'), "
          "five days of traffic, then ~1.8k tokens of handbook, the question and 'Odpověď:'", SIGNAL,
          ("after the handbook", "after the question"))
def _czech(rng: random.Random, b: Bench) -> list[Pair]:
    body = b.system(8)
    out: list[Pair] = []
    for i, ts in enumerate(spread(rng, rng.randint(45, 70), 5)):
        y, m, d, wd = day(ts)
        line = f"Dnes je {CS_DAYS[wd]} {d}. {CS_MONTHS[m - 1]} {y}."
        q = b.question()
        orig = {"id": f"req-{i:05d}", "prompt": f"Dnes je {MARK}{line[8:]}\n\n{body}\n\nDotaz: {q}\nOdpověď:"}
        a = {"id": f"req-{i:05d}", "prompt": f"{body}\n\n{line}\n\nDotaz: {q}\nOdpověď:"}
        z = {"id": f"req-{i:05d}", "prompt": f"{body}\n\nDotaz: {q}\n{line}\nOdpověď:"}
        out.append((orig, (a, z)))
    return out


@workload("icelandic-date-in-fewshot-answer-ids", "input_ids", ("dynamic",),
          "three few-shot turns ahead of the question; the first canned answer opens with the Icelandic date "
          "('Í dag er þriðjudagur 1. desember 2026.'), six days of traffic; Qwen3 ids", GLACIER, (END_SYSTEM, END_USER))
def _icelandic(rng: random.Random, b: Bench) -> list[Pair]:
    system = b.system(7)
    shots = b.fewshot(3)
    out: list[Pair] = []
    for i, ts in enumerate(spread(rng, rng.randint(45, 70), 6)):
        y, m, d, wd = day(ts)
        line = f"Í dag er {IS_DAYS[wd]} {d}. {IS_MONTHS[m - 1]} {y}."

        def turns(first: str) -> list[dict[str, Any]]:
            msgs: list[dict[str, Any]] = []
            for k, (sq, sa) in enumerate(shots):
                msgs += [user(sq), assistant(f"{first}{sa}" if k == 0 else sa)]
            return msgs
        q = b.question()
        orig = untimed(chat(i, [sys_msg(system)] + turns(f"Í dag er {MARK}{line[9:]} ") + [user(q)]))
        a = untimed(chat(i, [sys_msg(f"{system}\n\n{line}")] + turns("") + [user(q)]))
        z = untimed(chat(i, [sys_msg(system)] + turns("") + [user(f"{q}\n\n{line}")]))
        out.append((orig, (a, z)))
    return out


@workload("danger-level-one-token", "messages", ("dynamic",),
          "the avalanche danger level (one digit, 1-5) in the middle of a sentence ~700 tokens into the system text, "
          "set once per request from the caller's region; ~1.2k tokens follow", RESCUE, (END_SYSTEM, END_USER))
def _danger(rng: random.Random, b: Bench) -> list[Pair]:
    head = b.system(3)
    tail = b.handbook(6)
    out: list[Pair] = []
    for i in range(rng.randint(55, 85)):
        lv = rng.randint(1, 5)
        q = b.question()
        sent = "Today's avalanche danger level in the caller's region is {} of 5; weigh every tasking against it."
        orig = chat(i, [sys_msg(f"{head}\n\n{sent.format(MARK + str(lv))}\n\n{tail}"), user(q)])
        a = chat(i, [sys_msg(f"{head}\n\n{tail}\n\n{sent.format(lv)}"), user(q)])
        z = chat(i, [sys_msg(f"{head}\n\n{tail}"), user(f"{q}\n\n{sent.format(lv)}")])
        out.append((orig, (a, z)))
    return out


@workload("seal-run-json-long-span", "prompt", ("dynamic",),
          "a ~300-token production-run JSON (run id, line, seal numbers, ingredient lots, times) pasted after the "
          "opening of a raw ChatML prompt, unique per request; ~1.5k static tokens follow", CERTIFY)
def _seal_json(rng: random.Random, b: Bench) -> list[Pair]:
    opening = b.opening()
    tail = b.handbook(7)
    out: list[Pair] = []
    for i in range(rng.randint(35, 55)):
        run = {"run_id": f"PR-{rng.randint(100000, 999999)}", "line": rng.randint(1, 9),
               "seals": [f"S{rng.randint(10**6, 10**7 - 1)}" for _ in range(8)],
               "lots": {k: f"L{rng.randint(1000, 9999)}-{rng.randint(10, 99)}" for k in
                        ("gelatin", "emulsifier", "flavouring", "vinegar", "glycerine", "starch")},
               "start": f"2026-12-01T{rng.randint(5, 20):02d}:{rng.randint(0, 59):02d}", "inspector_present": rng.random() < 0.8}
        text = json.dumps(run, ensure_ascii=False)
        q = b.question()
        orig = prompt(i, chatml(f"{opening}\n\nProduction run:\n{MARK}{text}\n\n{tail}", q))
        fixed = prompt(i, chatml(f"{opening}\n\n{tail}", f"{q}\n\nProduction run:\n{text}"))
        out.append((orig, fixed))
    return out


SITES = ["quarry", "wind farm", "estuary", "rail corridor"]


@workload("site-altitudes-in-tool-description", "messages", ("dynamic",),
          "the plan_block tool's description lists the altitudes allowed at the client's site (4 sites, four lists), "
          "inside the tools block after the system text", DRONE, (START_USER, END_USER))
def _alt_list(rng: random.Random, b: Bench) -> list[Pair]:
    system = b.system(6)
    allowed = {s: ", ".join(map(str, sorted(rng.sample(range(40, 121, 5), 4)))) + " m" for s in SITES}
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        site = rng.choice(SITES)
        tools = b.tools()
        listed = marked_at_split(allowed[site], [allowed[s] for s in SITES if s != site])
        tools[0]["function"]["description"] += f" Altitudes allowed at this site: {listed}."
        q = b.question()
        line = f"Altitudes allowed at the {site}: {allowed[site]}."
        plain = b.tools()
        orig = chat(i, [sys_msg(system), user(q)], tools)
        out.append((orig, (chat(i, [sys_msg(system), user(f"{line}\n\n{q}")], plain),
                           chat(i, [sys_msg(system), user(f"{q}\n\n{line}")], plain))))
    return out


@workload("caseworker-system-ahead-of-tools", "messages", ("dynamic",),
          "a one-line system message naming the caseworker (24 names) is the FIRST message; the 1.6k-token main "
          "system message comes second, so the template prints the tools after the name and the main prompt as a "
          "second system turn after the tools", RESETTLE, (END_USER, "a system message after the main one"))
def _caseworker(rng: random.Random, b: Bench) -> list[Pair]:
    main = b.system(7)
    tools = b.tools()
    out: list[Pair] = []
    for i in range(rng.randint(45, 75)):
        who = f"Caseworker: {rng.choice(CASEWORKERS)}"
        q = b.question()
        orig = chat(i, [sys_msg(f"Caseworker: {MARK}{who[12:]}"), sys_msg(main), user(q)], tools)
        a = chat(i, [sys_msg(main), user(f"{q}\n\n{who}")], tools)
        z = chat(i, [sys_msg(main), sys_msg(who), user(q)], tools)
        out.append((orig, (a, z)))
    return out


@workload("sync-time-restamped-in-first-turn", "messages", ("dynamic",),
          "sessions of 1-6 turns whose client rewrites the FIRST user turn at every request with the board's last "
          "sync time to the second ('[board synced 09:14:07]'), so each turn's history differs from the one before",
          SIGNAL)
def _sync(rng: random.Random, b: Bench) -> list[Pair]:
    system = b.system(6)
    convs = sessions(rng, b, (12, 18), (1, 6))
    out: list[Pair] = []
    for i, (c, k) in enumerate(interleave(rng, convs)):
        ts = BASE_TIME + 28000 + 29.0 * i
        stamp = f"[board synced {clock(ts)}]"
        msgs, fixed = [sys_msg(system)], [sys_msg(system)]
        for j in range(k + 1):
            q, a = convs[c][j]
            if j == 0:
                msgs.append(user(f"{q} [board synced {MARK}{clock(ts)}]"))
                fixed.append(user(q))
            else:
                msgs.append(user(q))
                fixed.append(user(q))
            if j < k:
                msgs.append(assistant(a))
                fixed.append(assistant(a))
        fixed[-1] = user(fixed[-1]["content"] + f"\n\n{stamp}")
        out.append((chat(i, msgs, ts=ts), chat(i, fixed, ts=ts)))
    return out


@workload("cellar-row-two-settings-ids", "input_ids", ("dynamic",),
          "the cellar row (2 settings: 'white cellar' or 'red cellar') on the first line of the system text; Qwen3 ids",
          CELLAR, (END_SYSTEM, END_USER))
def _row(rng: random.Random, b: Bench) -> list[Pair]:
    system = b.system(8)
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        row = rng.choice(["white cellar", "red cellar"])
        q = b.question()
        orig = chat(i, [sys_msg(f"Row: {MARK}{row}\n{system}"), user(q)])
        a = chat(i, [sys_msg(f"{system}\n\nRow: {row}"), user(q)])
        z = chat(i, [sys_msg(system), user(f"{q}\n\nRow: {row}")])
        out.append((orig, (a, z)))
    return out


@workload("job-number-first-token-plain-prompt", "prompt", ("dynamic",),
          "a plain completion prompt opening with the survey job number ('Job SK-20931'); ~25% of requests are "
          "quotes without a job and open with the handbook", DRONE)
def _job_first(rng: random.Random, b: Bench) -> list[Pair]:
    body = b.system(8)
    out: list[Pair] = []
    for i in range(rng.randint(45, 70)):
        q = b.question()
        if lacks(rng, 0.25):
            rec = prompt(i, f"{SKIP}{body}\n\nQuestion: {q}\nAnswer:")
            out.append((rec, unmark(rec)))
            continue
        job = f"Job SK-{rng.randint(10000, 99999)}"
        orig = prompt(i, f"{MARK}{job}\n{body}\n\nQuestion: {q}\nAnswer:")
        out.append((orig, prompt(i, f"{body}\n\nQuestion: {q}\n{job}\nAnswer:")))
    return out


@workload("callout-clock-at-end-of-system-with-tools", "messages", ("dynamic",),
          "the callout time to the second ('Callout opened 14:05:33') closes the system text, which looks like the "
          "end of the prompt; the template prints ~700 tokens of tools after it", RESCUE)
def _callout(rng: random.Random, b: Bench) -> list[Pair]:
    system = b.system(6)
    tools = b.tools()
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        ts = BASE_TIME + 20000 + 43.0 * i + rng.uniform(0, 30)
        q = b.question()
        orig = chat(i, [sys_msg(f"{system}\n\nCallout opened {MARK}{clock(ts)}"), user(q)], tools, ts)
        out.append((orig, chat(i, [sys_msg(system), user(f"{q}\n\nCallout opened {clock(ts)}")], tools, ts)))
    return out


# ---------------------------------------------------------------- order


@workload("station-tools-shuffled", "messages", ("order",),
          "the five tools in a different order per request; the tools block follows ~1.4k tokens of system text",
          GLACIER)
def _tools_shuffled(rng: random.Random, b: Bench) -> list[Pair]:
    system = b.system(6)
    names = list(GLACIER.tools)
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        order = shuffled(rng, names)
        q = b.question()
        orig = with_tool_unit(chat(i, [sys_msg(system), user(q)], mark_first_tool(b.tools(order))))
        out.append((orig, chat(i, [sys_msg(system), user(q)], b.tools(names))))
    return out


@workload("certification-sections-shuffled-ids", "input_ids", ("order",),
          "ten handbook sections in a different order per request after the opening; Qwen3 ids", CERTIFY)
def _cert_sections(rng: random.Random, b: Bench) -> list[Pair]:
    bodies = {t: b.section(t) for t in CERTIFY.sections}
    opening = b.opening()
    canon = "\n\n".join(bodies[t] for t in CERTIFY.sections)
    texts = []
    out: list[Pair] = []
    n = rng.randint(45, 70)
    for _ in range(n):
        texts.append("\n\n".join(bodies[t] for t in shuffled(rng, CERTIFY.sections)))
    for i in range(n):
        q = b.question()
        body = marked_at_split(texts[i], texts[:i] + texts[i + 1:]) if i else "## " + MARK + texts[i][3:]
        orig = chat(i, [sys_msg(f"{opening}\n\n{UNIT}{body}"), user(q)])
        out.append((orig, chat(i, [sys_msg(f"{opening}\n\n{canon}"), user(q)])))
    return out


@workload("preflight-bullets-shuffled-chatml", "prompt", ("order",),
          "a raw ChatML prompt: twenty pre-flight bullets in a different order per request after the opening, then "
          "~1k static tokens", DRONE)
def _bullets(rng: random.Random, b: Bench) -> list[Pair]:
    opening = b.opening()
    rules = b.rules(20)
    tail = b.handbook(4)
    out: list[Pair] = []
    for i in range(rng.randint(45, 70)):
        order = shuffled(rng, rules)
        first = f"- {MARK}{order[0]}"
        text = "\n".join([first] + [f"- {r}" for r in order[1:]])
        canon = "\n".join(f"- {r}" for r in rules)
        q = b.question()
        orig = prompt(i, chatml(f"{opening}\n\nPre-flight:\n{UNIT}{text}\n\n{tail}", q))
        out.append((orig, prompt(i, chatml(f"{opening}\n\nPre-flight:\n{canon}\n\n{tail}", q))))
    return out


@workload("tool-parameter-keys-shuffled-workshop", "messages", ("order",),
          "the workshop's own client builds the book_bench tool's parameter properties from a set, so their keys come "
          "in a different order per request; other tools static", LUTHIER)
def _keys(rng: random.Random, b: Bench) -> list[Pair]:
    system = b.system(6)
    names = list(LUTHIER.tools)
    out: list[Pair] = []
    for i in range(rng.randint(45, 75)):
        tools = b.tools(names)
        props = tools[1]["function"]["parameters"]["properties"]
        keys = shuffled(rng, list(props))
        new = {}
        for j, k in enumerate(keys):
            new[(MARK if j == 0 else "") + k] = props[k]
        tools[1]["function"]["parameters"]["properties"] = new
        q = b.question()
        orig = chat(i, [sys_msg(system), user(q)], tools)
        out.append((orig, chat(i, [sys_msg(system), user(q)], b.tools(names))))
    return out


@workload("barrel-array-shuffled-in-system", "messages", ("order",),
          "a JSON array of twelve barrel objects in the system text, serialised from a hash map in a different order "
          "per request, after ~900 tokens; ~800 tokens follow", CELLAR)
def _barrels(rng: random.Random, b: Bench) -> list[Pair]:
    head = b.system(4)
    tail = b.handbook(3)
    barrels = [{"barrel": f"B-{k:02d}", "wine": rng.choice(["furmint", "hárslevelű", "kadarka", "kékfrankos"]),
                "litres": rng.choice([225, 228, 300, 500]), "free_so2": rng.randint(18, 40)} for k in range(12)]
    out: list[Pair] = []
    for i in range(rng.randint(45, 70)):
        order = shuffled(rng, barrels)
        items = [json.dumps(x, ensure_ascii=False) for x in order]
        items[0] = '{"barrel": "' + MARK + items[0][len('{"barrel": "'):]
        text = "[" + ", ".join(items) + "]"
        canon = json.dumps(barrels, ensure_ascii=False)
        q = b.question()
        orig = chat(i, [sys_msg(f"{head}\n\nBarrel map:\n{UNIT}{text}\n\n{tail}"), user(q)])
        out.append((orig, chat(i, [sys_msg(f"{head}\n\nBarrel map:\n{canon}\n\n{tail}"), user(q)])))
    return out


@workload("fewshot-pairs-rotated", "messages", ("order",),
          "four few-shot question/answer message pairs ahead of the question in one of four rotations", RESCUE)
def _rotated(rng: random.Random, b: Bench) -> list[Pair]:
    system = b.system(6)
    shots = b.fewshot(4)
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        r = rng.randint(0, 3)
        rot = shots[r:] + shots[:r]
        msgs: list[dict[str, Any]] = [sys_msg(system)]
        for k, (sq, sa) in enumerate(rot):
            msgs += [user((UNIT + MARK if k == 0 else "") + sq), assistant(sa)]
        canon: list[dict[str, Any]] = [sys_msg(system)]
        for sq, sa in shots:
            canon += [user(sq), assistant(sa)]
        q = b.question()
        out.append((chat(i, msgs + [user(q)]), chat(i, canon + [user(q)])))
    return out


@workload("renumbered-handback-steps-ids", "input_ids", ("order",),
          "twelve hand-back steps numbered 1-12 in a different order per request (the numbers are rewritten, so the "
          "lines differ from their second token on), ~1.1k tokens deep; Qwen3 ids", SIGNAL)
def _steps(rng: random.Random, b: Bench) -> list[Pair]:
    head = b.system(5)
    tail = b.handbook(3)
    steps = b.rules(12)
    out: list[Pair] = []
    for i in range(rng.randint(45, 70)):
        order = shuffled(rng, steps)
        lines = [f"{k + 1}. {s}" for k, s in enumerate(order)]
        lines[0] = f"{UNIT}1. {MARK}{order[0]}"
        canon = "\n".join(f"{k + 1}. {s}" for k, s in enumerate(steps))
        q = b.question()
        orig = chat(i, [sys_msg(f"{head}\n\nHand-back steps:\n" + "\n".join(lines) + f"\n\n{tail}"), user(q)])
        out.append((orig, chat(i, [sys_msg(f"{head}\n\nHand-back steps:\n{canon}\n\n{tail}"), user(q)])))
    return out


@workload("severity-enum-shuffled", "messages", ("order",),
          "the open_corrective_action tool's severity enum ('minor', 'major', 'critical', 'observation') in a "
          "different order per request, inside the tools block", CERTIFY)
def _enum(rng: random.Random, b: Bench) -> list[Pair]:
    system = b.system(6)
    values = ["minor", "major", "critical", "observation"]
    out: list[Pair] = []
    for i in range(rng.randint(45, 75)):
        tools = b.tools()
        order = shuffled(rng, values)
        order[0] = MARK + order[0]
        tools[2]["function"]["parameters"]["properties"]["severity"]["enum"] = order
        canon = b.tools()
        canon[2]["function"]["parameters"]["properties"]["severity"]["enum"] = list(values)
        q = b.question()
        out.append((chat(i, [sys_msg(system), user(q)], tools), chat(i, [sys_msg(system), user(q)], canon)))
    return out


@workload("three-system-turns-rotating-ids", "input_ids", ("order",),
          "three static system messages (mandate, safeguarding, interpreting) sent in a rotating order; the template "
          "prints the first as the system turn and the others as later system turns; Qwen3 ids", RESETTLE)
def _three_systems(rng: random.Random, b: Bench) -> list[Pair]:
    blocks = [b.system(3), b.handbook(3), b.handbook(2)]
    out: list[Pair] = []
    for i in range(rng.randint(45, 70)):
        r = rng.randint(0, 2)
        rot = blocks[r:] + blocks[:r]
        q = b.question()
        msgs = [sys_msg(UNIT + MARK + rot[0])] + [sys_msg(x) for x in rot[1:]] + [user(q)]
        out.append((chat(i, msgs), chat(i, [sys_msg(x) for x in blocks] + [user(q)])))
    return out


# ---------------------------------------------------------------- placement


@workload("instrument-file-ahead-of-handbook", "messages", ("placement",),
          "the client's instrument file (~150-300 tokens, per request) opens the system text, ahead of the 1.8k-token "
          "workshop handbook", LUTHIER)
def _instrument(rng: random.Random, b: Bench) -> list[Pair]:
    system = b.system(8)
    out: list[Pair] = []
    for i in range(rng.randint(45, 70)):
        notes = " ".join(b.answer() for _ in range(rng.randint(1, 3)))
        file = (f"Client file {rng.randint(1000, 9999)}: {rng.choice(['violin', 'viola', 'cello'])}, "
                f"{rng.randint(1880, 2024)}, {notes}")
        q = b.question()
        orig = chat(i, [sys_msg(f"{MARK}{file}\n\n{system}"), user(q)])
        out.append((orig, chat(i, [sys_msg(system), user(f"{file}\n\n{q}")])))
    return out


@workload("arrival-profile-system-ahead-ids", "input_ids", ("placement",),
          "a per-client arrival profile as its own system message ahead of the main system message; Qwen3 ids",
          RESETTLE)
def _profile(rng: random.Random, b: Bench) -> list[Pair]:
    main = b.system(8)
    out: list[Pair] = []
    for i in range(rng.randint(45, 70)):
        prof = (f"Household of {rng.randint(1, 8)}, arrived {rng.randint(1, 28)}/11/2026 from "
                f"{rng.choice(['Kabul', 'Herat', 'Aleppo', 'Khartoum', 'Kharkiv', 'Asmara'])}; languages: "
                f"{rng.choice(['Dari', 'Pashto', 'Arabic', 'Tigrinya', 'Ukrainian'])}; open tasks: "
                + ", ".join(rng.sample(RESETTLE.nouns, 3)))
        q = b.question()
        orig = chat(i, [sys_msg(MARK + prof), sys_msg(main), user(q)])
        out.append((orig, chat(i, [sys_msg(main), sys_msg(prof), user(q)])))
    return out


@workload("bulletins-ahead-of-instructions-chatml", "prompt", ("placement",),
          "a raw ChatML prompt whose system turn opens with three retrieved bulletins (per request) and only then the "
          "1.5k-token instructions", RESCUE)
def _bulletins(rng: random.Random, b: Bench) -> list[Pair]:
    system = b.system(7)
    out: list[Pair] = []
    for i in range(rng.randint(40, 65)):
        docs = "\n\n".join(f"Bulletin {rng.randint(100, 999)}: {b.paragraph(2)}" for _ in range(3))
        q = b.question()
        orig = prompt(i, chatml(f"{MARK}{docs}\n\n{system}", q))
        out.append((orig, prompt(i, chatml(system, f"{docs}\n\n{q}"))))
    return out


@workload("email-part-ahead-of-checklist", "messages", ("placement",),
          "a user turn of content parts: the client's email first, then a static ~900-token certification checklist, "
          "then the question", CERTIFY)
def _email(rng: random.Random, b: Bench) -> list[Pair]:
    system = b.system(5)
    checklist = "Checklist:\n" + "\n".join(f"- {r}" for r in b.rules(30))
    out: list[Pair] = []
    for i in range(rng.randint(40, 70)):
        mail = f"From: plant{rng.randint(10, 99)}@example.org\n{b.paragraph(rng.randint(1, 3))}"
        q = b.question()
        orig = chat(i, [sys_msg(system), {"role": "user", "content": parts(MARK + mail, checklist, q)}])
        out.append((orig, chat(i, [sys_msg(system), {"role": "user", "content": parts(checklist, mail, q)}])))
    return out


@workload("sensor-dump-in-system-ahead-of-tools", "messages", ("placement",),
          "the client appends a per-request sensor dump (~100 tokens) to the system text; the template prints the "
          "static ~700-token tools block after it, so the tools are never shared", GLACIER)
def _dump(rng: random.Random, b: Bench) -> list[Pair]:
    system = b.system(6)
    tools = b.tools()
    out: list[Pair] = []
    for i in range(rng.randint(45, 75)):
        dump = "Sensors: " + ", ".join(f"{k} {rng.randint(0, 999) / 10:.1f}" for k in
                                       ("stage", "cond", "albedo", "tilt", "batt", "air", "wind"))
        q = b.question()
        orig = chat(i, [sys_msg(f"{system}\n\n{MARK}{dump}"), user(q)], tools)
        out.append((orig, chat(i, [sys_msg(system), user(f"{dump}\n\n{q}")], tools)))
    return out


@workload("question-ahead-of-static-rules", "messages", ("placement",),
          "the user turn puts the question first and then the same 25 answer-format rules every request carries",
          CELLAR)
def _q_first(rng: random.Random, b: Bench) -> list[Pair]:
    system = b.system(4)
    rules = "Answer format:\n" + "\n".join(f"- {r}" for r in b.rules(25))
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        q = b.question()
        out.append((chat(i, [sys_msg(system), user(f"{MARK}{q}\n\n{rules}")]),
                    chat(i, [sys_msg(system), user(f"{rules}\n\n{q}")])))
    return out


# ---------------------------------------------------------------- several defects


@workload("shuffled-tools-and-callout-number", "messages", ("dynamic", "order"),
          "a callout number (unique) on the first line of the system text, and the tools in a different order per "
          "request", RESCUE)
def _tools_and_id(rng: random.Random, b: Bench) -> list[Pair]:
    system = b.system(6)
    names = list(RESCUE.tools)
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        cno = f"Callout {rng.randint(100000, 999999)}"
        order = shuffled(rng, names)
        q = b.question()
        orig = with_tool_unit(chat(i, [sys_msg(f"Callout {MARK}{cno[8:]}\n{system}"), user(q)],
                                   mark_first_tool(b.tools(order))))
        out.append((orig, chat(i, [sys_msg(system), user(f"{q}\n\n{cno}")], b.tools(names))))
    return out


@workload("profile-ahead-and-hungarian-date", "messages", ("placement", "dynamic"),
          "a per-request harvest-lot note opens the system text, and the Hungarian date ('2026. december 1.', four "
          "days) sits ~1k tokens further in", CELLAR)
def _lot_and_date(rng: random.Random, b: Bench) -> list[Pair]:
    head = b.system(4)
    tail = b.handbook(4)
    out: list[Pair] = []
    for i, ts in enumerate(spread(rng, rng.randint(45, 70), 4)):
        y, m, d, _ = day(ts)
        date = f"Mai dátum: {y}. {HU_MONTHS[m - 1]} {d}."
        lot = f"Lot {rng.randint(100, 999)}: {b.paragraph(1)}"
        q = b.question()
        orig = untimed(chat(i, [sys_msg(f"{MARK}{lot}\n\n{head}\n\nMai dátum: {y}. {MARK}{date[15:]}\n\n{tail}"), user(q)]))
        out.append((orig, untimed(chat(i, [sys_msg(f"{head}\n\n{tail}\n\n{date}"), user(f"{lot}\n\n{q}")]))))
    return out


@workload("shuffled-sections-and-possession-line-chatml", "prompt", ("order", "dynamic"),
          "a raw ChatML prompt: ten sections in a different order per request, then a possession line (unique) deep "
          "in the static tail", SIGNAL)
def _sec_and_line(rng: random.Random, b: Bench) -> list[Pair]:
    bodies = {t: b.section(t) for t in SIGNAL.sections}
    opening = b.opening()
    tail = b.handbook(2)
    n = rng.randint(40, 65)
    texts = ["\n\n".join(bodies[t] for t in shuffled(rng, SIGNAL.sections)) for _ in range(n)]
    canon = "\n\n".join(bodies[t] for t in SIGNAL.sections)
    out: list[Pair] = []
    for i in range(n):
        line = f"Possession P{rng.randint(1000, 9999)} km {rng.randint(10, 90)}.{rng.randint(0, 9)}"
        body = marked_at_split(texts[i], texts[:i] + texts[i + 1:])
        q = b.question()
        orig = prompt(i, chatml(f"{opening}\n\n{UNIT}{body}\n\nPossession {MARK}{line[11:]}\n\n{tail}", q))
        out.append((orig, prompt(i, chatml(f"{opening}\n\n{canon}\n\n{tail}", f"{q}\n\n{line}"))))
    return out


@workload("volunteers-deep-in-4k-system-ids", "input_ids", ("dynamic",),
          "the count of volunteers on call per team ('Volunteers on call: Bovec 7, Kranjska Gora 4, Tolmin 11') "
          "~3k tokens into a ~3.4k-token system text, new at every request; Qwen3 ids, a short log", RESCUE,
          (END_SYSTEM, END_USER))
def _volunteers(rng: random.Random, b: Bench) -> list[Pair]:
    head = b.system(10, 5)
    tail = b.handbook(2, 5)
    out: list[Pair] = []
    for i in range(rng.randint(20, 26)):
        line = ", ".join(f"{t} {rng.randint(0, 14)}" for t in ("Bovec", "Kranjska Gora", "Tolmin", "Jezersko"))
        q = b.question()
        orig = chat(i, [sys_msg(f"{head}\n\nVolunteers on call: {MARK}{line}\n\n{tail}"), user(q)])
        a = chat(i, [sys_msg(f"{head}\n\n{tail}\n\nVolunteers on call: {line}"), user(q)])
        z = chat(i, [sys_msg(f"{head}\n\n{tail}"), user(f"{q}\n\nVolunteers on call: {line}")])
        out.append((orig, (a, z)))
    return out


@workload("observer-default-in-tool-parameter", "messages", ("dynamic",),
          "the log_stake_reading tool's observer parameter carries a 'default' of the logged-in observer's initials "
          "(12 settings), deep in the tools block", GLACIER, (START_USER, END_USER))
def _observer_default(rng: random.Random, b: Bench) -> list[Pair]:
    system = b.system(5)
    initials = ["".join(w[0] for w in name.split()) for name in OBSERVERS]
    out: list[Pair] = []
    for i in range(rng.randint(60, 95)):
        who = rng.choice(initials)
        tools = b.tools()
        tools[1]["function"]["parameters"]["properties"]["observer"]["default"] = MARK + who
        q = b.question()
        line = f"Observer: {who}"
        plain = b.tools()
        out.append((chat(i, [sys_msg(system), user(q)], tools),
                    (chat(i, [sys_msg(system), user(f"{line}\n\n{q}")], plain),
                     chat(i, [sys_msg(system), user(f"{q}\n\n{line}")], plain))))
    return out


@workload("pressing-json-keys-shuffled-plain-prompt", "prompt", ("order",),
          "a plain completion prompt with a short (~350-token) instruction and a pressing-programme JSON object whose "
          "eight keys come in a different order per request; ~95 requests", CELLAR)
def _press_keys(rng: random.Random, b: Bench) -> list[Pair]:
    intro = b.opening() + "\n" + " ".join(b.rules(3))
    prog = {"cycle": "champagne", "max_bar": 1.8, "rotations": 6, "free_run_l": 420, "press_l": 180,
            "so2_mg_l": 30, "enzyme": "none", "settle_h": 12}
    keys = list(prog)
    tail = "\n".join(b.rules(4))
    out: list[Pair] = []
    for i in range(rng.randint(88, 98)):
        order = shuffled(rng, keys)
        items = [f'"{(MARK if j == 0 else "") + k}": {json.dumps(prog[k])}' for j, k in enumerate(order)]
        text = UNIT + "{" + ", ".join(items) + "}"
        canon = json.dumps(prog)
        q = b.question()
        orig = prompt(i, f"{intro}\n\nPressing programme: {text}\n{tail}\n\nQ: {q}\nA:")
        out.append((orig, prompt(i, f"{intro}\n\nPressing programme: {canon}\n{tail}\n\nQ: {q}\nA:")))
    return out


@workload("weather-part-ahead-of-handbook-part-in-system", "messages", ("placement",),
          "the system message is two content parts: the per-request mountain weather observation (~80 tokens) first, "
          "then the static 2k-token dispatch handbook; vLLM joins them into one system string", RESCUE)
def _weather_part(rng: random.Random, b: Bench) -> list[Pair]:
    system = b.system(9)
    out: list[Pair] = []
    for i in range(rng.randint(40, 65)):
        obs = (f"Observation Vogel {rng.randint(0, 23):02d}:{rng.choice(['00', '30'])}: cloud base {rng.randint(8, 30) * 100} m, "
               f"wind {rng.randint(0, 90)} km/h, freezing level {rng.randint(10, 32) * 100} m, "
               f"{rng.choice(['snow showers', 'clear', 'fog in valleys', 'rain below 1400 m'])}")
        q = b.question()
        orig = chat(i, [{"role": "system", "content": parts(MARK + obs, system)}, user(q)])
        out.append((orig, chat(i, [{"role": "system", "content": parts(system)}, user(f"{obs}\n\n{q}")])))
    return out


@workload("bench-number-and-rotated-examples-ids", "input_ids", ("dynamic", "order"),
          "the bench a request comes from (9 benches) on the second line of the system text, and three few-shot "
          "examples inside it in a rotating order further down; Qwen3 ids", LUTHIER)
def _bench_and_examples(rng: random.Random, b: Bench) -> list[Pair]:
    opening = b.opening()
    mid = b.handbook(4)
    shots = [f"Example:\nQ: {q}\nA: {a}" for q, a in b.fewshot(3)]
    tail = b.handbook(3)
    out: list[Pair] = []
    for i in range(rng.randint(45, 70)):
        bench = f"Bench {rng.randint(1, 9)}"
        r = rng.randint(0, 2)
        rot = shots[r:] + shots[:r]
        ex = UNIT + "Example:\nQ: " + MARK + rot[0][len("Example:\nQ: "):] + "\n\n" + "\n\n".join(rot[1:])
        q = b.question()
        orig = chat(i, [sys_msg(f"{opening}\nBench {MARK}{bench[6:]}\n\n{mid}\n\n{ex}\n\n{tail}"), user(q)])
        fixed = chat(i, [sys_msg(f"{opening}\n\n{mid}\n\n" + "\n\n".join(shots) + f"\n\n{tail}\n\n{bench}"), user(q)])
        out.append((orig, fixed))
    return out


# ---------------------------------------------------------------- reasoning across turns


def _loop_sessions(rng: random.Random, b: Bench, think_on_calls: bool, system: str, names: list[str],
                   count: tuple[int, int]) -> list[tuple[list[dict[str, Any]], list[dict[str, Any]]]]:
    """Sessions of 1-4 user turns, each turn an agent loop of 1-3 tool calls then a final answer;
    every assistant message carries its reasoning_content as a reasoning model returns it (the
    calls only when ``think_on_calls``). Returns each request's messages as sent and with earlier
    reasoning not sent back."""
    out = []
    for s in range(rng.randint(*count)):
        sent: list[dict[str, Any]] = [sys_msg(system)]
        bare: list[dict[str, Any]] = [sys_msg(system)]
        for t in range(rng.randint(1, 4)):
            sent.append(user(b.question()))
            bare.append(dict(sent[-1]))
            for k in range(rng.randint(1, 3)):
                out.append(([dict(m) for m in sent], [dict(m) for m in bare]))
                cid = f"call_{s}_{t}_{k}"
                name = rng.choice(names)
                args = {"id": f"{rng.randint(1000, 9999)}"}
                why = b.reasoning(rng.randint(4, 9)) if think_on_calls else None
                sent.append(call(cid, name, args, why))
                bare.append(call(cid, name, args))
                res = result(cid, {"ok": True, "text": b.paragraph(rng.randint(1, 3))})
                sent.append(res)
                bare.append(res)
            out.append(([dict(m) for m in sent], [dict(m) for m in bare]))
            ans = assistant(b.answer())
            sent.append(dict(ans, reasoning_content=b.reasoning(rng.randint(2, 5))))
            bare.append(ans)
    return out


@workload("call-reasoning-dropped-after-next-turn", "messages", ("dynamic",),
          "agent sessions of 1-4 user turns: each tool call is sent back with its long reasoning_content, which the "
          "Qwen3 template prints as <think> inside the loop and drops once a new user turn arrives, so every later "
          "turn parts from the loop's requests at the first call; fix: send no earlier reasoning back", SIGNAL)
def _call_reasoning(rng: random.Random, b: Bench) -> list[Pair]:
    system = b.system(5)
    tools = b.tools()
    rows = _loop_sessions(rng, b, True, system, ["fault_ticket", "asset_history", "possession_board"], (8, 11))
    out: list[Pair] = []
    for i, (sent, bare) in enumerate(rows):
        # A later turn parts from the previous turn's loop requests where that turn's first call
        # used to carry its <think> block: the MARK goes there (SKIP in a first turn).
        users = [k for k, m in enumerate(sent) if m["role"] == "user"]
        rec = chat(i, sent, tools)
        if len(users) >= 2:
            rec[HINT] = [(sent[users[-2]]["content"] + "<|im_end|>", "<tool_call>\n{", MARK)]
        else:
            rec["messages"][-1] = dict(sent[-1], content=SKIP + sent[-1]["content"])
        out.append((rec, chat(i, bare, tools)))
    return out


# ---------------------------------------------------------------- clean controls


@workload("clean-agent-loops-static-tools", "messages", (),
          "agent loops of 2-5 steps (null-content tool calls, JSON results) behind a static system prompt and tools",
          DRONE)
def _c_agent(rng: random.Random, b: Bench) -> list[Pair]:
    system = b.system(5)
    tools = b.tools()
    out: list[Pair] = []
    i = 0
    for task in range(rng.randint(12, 18)):
        msgs: list[dict[str, Any]] = [sys_msg(system), user(b.question())]
        for step in range(rng.randint(2, 5)):
            rec = chat(i, [dict(m) for m in msgs], tools)
            out.append((rec, rec))
            i += 1
            cid = f"call_{task}_{step}"
            msgs.append(call(cid, "battery_log", {"battery_id": f"BT-{rng.randint(100, 999)}"}))
            msgs.append(result(cid, {"cycles": rng.randint(10, 400), "health": rng.randint(60, 100)}))
    return out[:100]


@workload("clean-sessions-answer-reasoning-dropped", "messages", (),
          "sessions of 1-7 turns whose answers are sent back with their reasoning_content; the template drops it "
          "from every earlier answer consistently, so no request holds what a later one drops", LUTHIER)
def _c_sessions(rng: random.Random, b: Bench) -> list[Pair]:
    system = b.system(7)
    convs = sessions(rng, b, (10, 14), (1, 7))
    thoughts = [[b.reasoning(rng.randint(2, 6)) for _ in c] for c in convs]
    out: list[Pair] = []
    for i, (c, k) in enumerate(interleave(rng, convs)):
        msgs = [sys_msg(system)]
        for j in range(k):
            q, a = convs[c][j]
            msgs += [user(q), dict(assistant(a), reasoning_content=thoughts[c][j])]
        msgs.append(user(convs[c][k][0]))
        rec = chat(i, msgs)
        out.append((rec, rec))
    return out[:100]


@workload("clean-chatml-prompt-question-last", "prompt", (),
          "raw ChatML prompts: a static system turn and a fresh question", CERTIFY)
def _c_chatml(rng: random.Random, b: Bench) -> list[Pair]:
    system = b.system(9)
    out: list[Pair] = []
    for i in range(rng.randint(40, 70)):
        rec = prompt(i, chatml(system, b.question()))
        out.append((rec, rec))
    return out


@workload("clean-cellar-handbook-ids", "input_ids", (),
          "a static 3k-token system prompt and a fresh question, as Qwen3 ids", CELLAR)
def _c_ids(rng: random.Random, b: Bench) -> list[Pair]:
    system = b.system(13)
    out: list[Pair] = []
    for i in range(rng.randint(30, 55)):
        rec = chat(i, [sys_msg(system), user(b.question())])
        out.append((rec, rec))
    return out


@workload("clean-tools-reading-at-end", "messages", (),
          "static system text and tools; a live reading with a timestamp ends the user turn", GLACIER)
def _c_tools(rng: random.Random, b: Bench) -> list[Pair]:
    system = b.system(6)
    tools = b.tools()
    out: list[Pair] = []
    for i in range(rng.randint(45, 75)):
        ts = BASE_TIME + 51.0 * i
        rec = chat(i, [sys_msg(system), user(f"{b.question()}\n\nStage {rng.randint(250, 420)} cm at {clock(ts)}")],
                   tools, ts)
        out.append((rec, rec))
    return out


@workload("clean-dispatch-shift-at-end-of-system", "messages", (),
          "a dispatch shift (3 settings) already at the end of the system text, no tools", RESCUE)
def _c_shift(rng: random.Random, b: Bench) -> list[Pair]:
    system = b.system(8)
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        rec = chat(i, [sys_msg(f"{system}\n\nShift: {rng.choice(['early', 'late', 'night'])}"), user(b.question())])
        out.append((rec, rec))
    return out


@workload("clean-caseworker-checklist-part-then-question", "messages", (),
          "a user turn of content parts: a static checklist part, then the question part", RESETTLE)
def _c_parts(rng: random.Random, b: Bench) -> list[Pair]:
    system = b.system(5)
    checklist = "Checklist:\n" + "\n".join(f"- {r}" for r in b.rules(22))
    out: list[Pair] = []
    for i in range(rng.randint(45, 70)):
        rec = chat(i, [sys_msg(system), {"role": "user", "content": parts(checklist, b.question())}])
        out.append((rec, rec))
    return out


@workload("clean-signal-sessions-ids", "input_ids", (),
          "signalling-desk sessions of 1-7 turns growing turn by turn, interleaved, as Qwen3 ids", SIGNAL)
def _c_sess_ids(rng: random.Random, b: Bench) -> list[Pair]:
    system = b.system(6)
    convs = sessions(rng, b, (10, 13), (1, 7))
    out: list[Pair] = []
    for i, (c, k) in enumerate(interleave(rng, convs)):
        msgs = [sys_msg(system)]
        for q, a in convs[c][:k]:
            msgs += [user(q), assistant(a)]
        msgs.append(user(convs[c][k][0]))
        rec = chat(i, msgs)
        out.append((rec, rec))
    return out[:100]


@workload("clean-short-plain-prompt", "prompt", (),
          "a plain completion prompt with a short static instruction (~300 tokens) and the question last, ~95 requests",
          DRONE)
def _c_short(rng: random.Random, b: Bench) -> list[Pair]:
    intro = b.opening() + "\n" + " ".join(b.rules(4))
    out: list[Pair] = []
    for i in range(rng.randint(88, 98)):
        rec = prompt(i, f"{intro}\n\nQ: {b.question()}\nA:")
        out.append((rec, rec))
    return out


@workload("clean-two-products-own-tools", "messages", (),
          "two products on one endpoint (halal and kosher desks), each with its own static system text and tools",
          CERTIFY)
def _c_two(rng: random.Random, b: Bench) -> list[Pair]:
    arms = [(b.system(6), b.tools(list(CERTIFY.tools)[:3])), (b.system(5), b.tools(list(CERTIFY.tools)[2:]))]
    out: list[Pair] = []
    for i in range(rng.randint(50, 80)):
        system, tools = rng.choice(arms)
        rec = chat(i, [sys_msg(system), user(b.question())], tools)
        out.append((rec, rec))
    return out
