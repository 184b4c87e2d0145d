"""Sixth held-out diagnosis set: production-like logs in shapes none of the zoo and the earlier sets have.

Written blind to the detector (advisor/diagnose, advisor/prescribe, the zoo, its shapes and its
tests were not read): only DESIGN.md's traffic formats and the rendering the engine does were
used. It reuses the first set's machinery (tests/diagnose/heldout.py: the MARK/UNIT convention
for where requests stop sharing, rendering through the checkout under test, the brute-force
oracle) and small message helpers of the third and fourth sets; the text comes from its own
module (heldout6_text.py): a SOC, an airline's operations control, music licensing, a county
services office, an estate agency, an online academy, a benefits administrator, a district
heating utility.

Unlike the earlier sets the logs are noisy, as a real team's are: request counts from 20 to
~120, sessions of 1 to 12 turns, questions of varied length, and in some defect workloads a
share of requests (5-40%) without the defect: a feed that timed out, an older client, a
second product or tenant with its own system prompt. A request without a planted defect
carries the private-use character SKIP where the defect would be; the offsets are medians over
the requests that carry the defect.

Shapes. Dynamic values: an airline booking locator as the very first text of a prompt record;
a base station code (12 settings); a METAR weather report (hourly, in arrival order); a CVE id
with its CVSS vector ~1.8k tokens deep for one of two tenants; an employee number inside a
nested tool parameter's description; an idempotency key in a history tool call's arguments;
HTTP ``Date`` and rate-limit headers in a tool result; ISO-8601 durations of crew duty time in
a second system message; a learner's course progress in a system content part; the resident's
name templated into a few-shot example; an enrolment-window countdown (one token, in arrival
order); a comparable-sales table of hundreds of tokens; an audience with 2 settings; a cover
tier with 4; a market ZIP code with 50; a Turkish-format amount due; a Vietnamese date (6 days);
a presigned evidence URL with its signature. Order: XML-like tagged playbook blocks, agent
look-up steps (call and result pairs) replayed in completion order, the keys of a JSON object,
'### Request / ### Reply' few-shot pairs, HTML ``<tr>`` rows, '==== ' headed sections,
unheaded blocks between '---' rules, checklist items, a pretty-printed JSON array of listings.
Placement: a per-tenant tool ahead of the static tools, OCR'd form text ahead of instructions,
a retrieved example pair ahead of the fixed few-shot pairs, Polish case notes ahead of the
policy in growing sessions, a listing text ahead of rules the client appends (one of two
products), an hourly briefing (8 settings) ahead of the manual, the conversation history sent
ahead of the system message. Several defects: a flight number plus tools shuffled (some in the
canonical order); an alert ahead of the instructions, a shift lead (4) and shuffled playbooks;
a daily rate sheet plus shuffled few-shot pairs; a countdown plus an employee number in a tool;
shuffled blocks plus a Hebrew update stamp; meter notes first plus a visit window.
Controls: sessions that branch (an edited or regenerated turn) and resume, two products' near
duplicate prompts (the same headings and openings, each product's own rules), a standing
charge that changes once mid-log, a long static prompt with a long per-request tail, stable
tools with string or part user content, a per-request retrieved few-shot block placed last
(its order varies legitimately), agent loops, multilingual sessions, an alert after the static
prompt, sessions of 1-12 turns as token ids, A/B prompts. No control hides a fix worth 1%: the
standing charge's move would gain ~0.5%, sorting the retrieved examples ~0.5%, unifying the two
products' names ~0.03%.

Truth: the oracle's hit rate on the traffic after the ideal fix written here, by the earlier
sets' conventions: a value with many settings goes to the end of the last user turn (for a
prompt record: after the question, before the answer cue); a value or block with only a few
settings goes right after the content every request shares; order fixes use one canonical
order; placement fixes put the shared content first. A request without the defect is its own
fix. An ``expect`` entry "a|b" accepts either class. The tests measure the other place for each
few-setting value and check that the truth's is better. For a value with many settings the
convention's place (after the question) leaves the value's label unshared: right after the
shared content measures up to ~0.5 points more on a few workloads (the CVE advisory, the market
area), well inside the bench's 0.02 tolerance; the base station's two places measure the same.
"""

from __future__ import annotations

import json
import random
import statistics
from typing import Any, Callable, Sequence

from tests.diagnose.heldout import (
    BASE_TIME, MARK, UNIT, Engine, Pair, Workload, assistant, chat, clock, hexid, prompt, registering, spread,
    sys_msg, untimed, user, uuid,
)
from tests.diagnose.heldout3 import common_mark, conversations, first_tool_key, parts, tool_result
from tests.diagnose.heldout4 import mark_unit, shuffled, tool_call
from tests.diagnose.heldout6_text import (
    HEBREW, INDONESIAN, ORGS, POLISH, POLISH_ASKS, TURKISH, TURKISH_ASKS, VIETNAMESE, VIETNAMESE_ASKS, Desk,
    compact,
)

SKIP = "\ue002"  # this request lacks the defect that would be here
Builder = Callable[[random.Random, Desk], list[Pair]]
REGISTRY: list[tuple[str, str, tuple[str, ...], str, Builder, str]] = []
ORG_OF: dict[str, int] = {}

_register = registering(REGISTRY)

SOC, AIR, MUSIC, COUNTY, REALTY, ACADEMY, BENEFITS, HEAT = range(8)


def workload(name: str, kind: str, expect: tuple[str, ...], shape: str, org: int, notes: str = "") -> Callable[[Any], Any]:
    """Registers like the earlier sets, and remembers which organisation's text it uses."""
    ORG_OF[name] = org
    return _register(name, kind, expect, shape, notes)


# ---------------------------------------------------------------- markers and assembly


def unmark(value: Any) -> Any:
    if isinstance(value, str):
        return value.replace(MARK, "").replace(UNIT, "").replace(SKIP, "")
    if isinstance(value, list):
        return [unmark(v) for v in value]
    if isinstance(value, dict):
        return {unmark(k): unmark(v) for k, v in value.items()}
    return value


def marked(engine: Engine, record: dict[str, Any]) -> tuple[list[int], list[int | None], list[int]]:
    """Token ids without markers; per defect the token offset of its MARK (None where SKIP
    says the request lacks it); the offsets of the UNIT markers."""
    text = engine.text(record).replace("\\ue002", SKIP)
    clean: list[str] = []
    events: list[tuple[str, int]] = []
    for ch in text:
        if ch in (MARK, UNIT, SKIP):
            events.append((ch, len(clean)))
        else:
            clean.append(ch)
    clean_text = "".join(clean)
    ids = engine.tok.encode(clean_text)
    enc = engine.tok.tiktoken_encoding
    assert enc is not None
    ends, total = [], 0
    for t in ids:
        total += len(enc.decode_single_token_bytes(t))
        ends.append(total)

    def token_at(char_pos: int) -> int:
        byte_pos = len(clean_text[:char_pos].encode())
        return sum(1 for e in ends if e <= byte_pos)

    marks: list[int | None] = [token_at(p) if ch == MARK else None for ch, p in events if ch != UNIT]
    units = [token_at(p) for ch, p in events if ch == UNIT]
    return ids, marks, units


def _to_ids(rec: dict[str, Any], ids: list[int]) -> dict[str, Any]:
    out = {k: v for k, v in rec.items() if k in ("id", "timestamp")}
    out["input_ids"] = ids
    return out


def materialize(engine: Engine, name: str, kind: str, expect: tuple[str, ...], shape: str,
                pairs: list[Pair], notes: str = "") -> Workload:
    records, fixed, marks, units = [], [], [], []
    for orig, fix in pairs:
        ids, m, u = marked(engine, orig)
        clean = unmark(orig)
        assert engine.tok.encode(engine.text(clean)) == ids, name  # removing markers changes nothing else
        assert len(m) == len(expect), (name, len(m), expect)
        marks.append(m)
        units.append(u)
        if kind == "input_ids":
            records.append(_to_ids(clean, ids))
            fixed.append(_to_ids(fix, engine.ids(fix)))
        else:
            records.append(clean)
            fixed.append(fix)
    offsets, unit_offsets = [], []
    for k in range(len(expect)):
        present = [(m, u) for m, u in zip(marks, units) if m[k] is not None]
        assert present, (name, k)
        offsets.append(int(statistics.median(at for m, _ in present if (at := m[k]) is not None)))
        starts = []
        for m, u in present:
            at = m[k]
            assert at is not None
            prev = max((x for x in m[:k] if x is not None), default=-1)
            before = [x for x in u if prev < x <= at]  # a UNIT belongs to the defect whose MARK follows it
            starts.append(before[-1] if before else at)
        unit_offsets.append(int(statistics.median(starts)))
    return Workload(name, kind, expect, shape, records, fixed, tuple(offsets), tuple(unit_offsets), notes)


def build_pairs(name: str, seed: int, engine: Engine) -> list[Pair]:
    """One workload's (original with markers, fixed) records, before rendering."""
    fn = next(r[4] for r in REGISTRY if r[0] == name)
    # Each workload draws from its own name and the seed only: adding one changes no other.
    rng = random.Random(f"{seed}/h6/{name}")
    desk = Desk(random.Random(f"{seed}/h6/{name}/text"), ORGS[ORG_OF[name]], first_tool_key=first_tool_key(engine))
    return fn(rng, desk)


def build_workloads(seed: int = 12, engine: Engine | None = None, only: Sequence[str] | None = None) -> list[Workload]:
    """Every workload of the sixth held-out set, deterministic for ``seed``."""
    engine = engine or Engine()
    out = []
    for name, kind, expect, shape, _fn, notes in REGISTRY:
        if only and name not in only:
            continue
        pairs = build_pairs(name, seed, engine)
        warm = getattr(engine.render, "warm", None)
        if warm is not None:  # the bench's batch renderer: one `advisor render` call per workload
            warm([o for o, _ in pairs] + [unmark(o) for o, _ in pairs] + [f for _, f in pairs])
        out.append(materialize(engine, name, kind, expect, shape, pairs, notes))
    return out


def workload_names() -> list[str]:
    return [r[0] for r in REGISTRY]


# ---------------------------------------------------------------- small helpers


def lacks(rng: random.Random, share: float) -> bool:
    return rng.random() < share


def marked_first_tool(d: Desk, tools: list[dict[str, Any]], others: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """``tools`` with UNIT at the first tool and MARK where its first rendered key stops
    agreeing with the other candidates for the first place."""
    key = d.first_tool_key
    out = json.loads(json.dumps(tools))
    first = out[0]["function"][key]
    rivals = [o["function"][key] for o in others if o["function"][key] != first]
    out[0]["function"][key] = mark_unit(first, rivals).replace(UNIT, "") if rivals else MARK + first
    out[0]["type"] = UNIT + out[0]["type"]
    return out


def with_marked_order(d: Desk, names: Sequence[str], order: Sequence[str]) -> list[dict[str, Any]]:
    return marked_first_tool(d, [d.tool(n) for n in order], [d.tool(n) for n in names])


def sessions(rng: random.Random, count: int, lo: int, hi: int) -> list[tuple[int, int]]:
    return conversations(rng, [rng.randint(lo, hi) for _ in range(count)])


def flight_no(rng: random.Random) -> str:
    return str(rng.choice([1, 2, 3, 4, 5, 7, 8])) + f"{rng.randint(100, 999)}"


# ---------------------------------------------------------------- dynamic values


@workload("pnr-locator-first-token-prompt", "prompt", ("dynamic",),
          "a booking locator and party size ('QX7T9B, 3 passengers') as the very first text of a rebooking-desk "
          "prompt record; ~10% of requests have no booking and start with the shared prompt", AIR)
def _pnr(rng: random.Random, d: Desk) -> list[Pair]:
    body = "\n\n".join([d.preface(), d.guide(9)])
    out = []
    for i in range(rng.randint(70, 95)):
        q = d.question() if rng.random() < 0.7 else d.long_question()
        if lacks(rng, 0.1):
            orig = prompt(i, f"{SKIP}{body}\n\nAgent: {q}\nAssistant:")
            fixed = prompt(i, f"{body}\n\nAgent: {q}\nAssistant:")
        else:
            loc = "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(6))
            line = f"{loc}, {rng.randint(1, 6)} passengers, rebooking after disruption"
            orig = prompt(i, f"{MARK}{line}\n\n{body}\n\nAgent: {q}\nAssistant:")
            fixed = prompt(i, f"{body}\n\nAgent: {q}\nBooking: {line}\nAssistant:")
        out.append((orig, fixed))
    return out


STATIONS = [("EDI", "Edinburgh"), ("MAN", "Manchester"), ("BHX", "Birmingham"), ("BRS", "Bristol"),
            ("NCL", "Newcastle"), ("ABZ", "Aberdeen"), ("SOU", "Southampton"), ("EXT", "Exeter"),
            ("BHD", "Belfast City"), ("INV", "Inverness"), ("NQY", "Newquay"), ("JER", "Jersey")]


@workload("station-code-12-ids", "input_ids", ("dynamic",),
          "the controller's base station (12 settings: 'Base station: MAN (Manchester)') on the second line of a "
          "1.2k-token system prompt, ~90 tokens in; as token ids",
          AIR, notes="12 settings: the fix states the station at the end of the system prompt (the end of the user "
          "turn measures the same within a few tokens)")
def _station(rng: random.Random, d: Desk) -> list[Pair]:
    pre, rest = d.preface(), d.guide(9)
    out = []
    for i in range(rng.randint(90, 115)):
        code, city = rng.choice(STATIONS)
        q = d.question()
        orig = chat(i, [sys_msg(f"{pre}\nBase station:{MARK} {code} ({city})\n\n{rest}"), user(q)])
        fixed = chat(i, [sys_msg(f"{pre}\n\n{rest}\n\nBase station: {code} ({city})"), user(q)])
        out.append((orig, fixed))
    return out


def metar(rng: random.Random, hour: int) -> str:
    wind = f"{rng.choice(range(180, 300, 10)):03d}{rng.randint(5, 28):02d}"
    if rng.random() < 0.3:
        wind += f"G{rng.randint(30, 45)}"
    cloud = rng.choice(["FEW012", "SCT025", "BKN008", "OVC004", "BKN015 OVC030", "SCT040"])
    t = rng.randint(-3, 9)
    return (f"EGPH 01{hour:02d}50Z {wind}KT {rng.choice(['9999', '6000', '3500 -RA', '1200 BR'])} {cloud} "
            f"{'M' if t < 0 else ''}{abs(t):02d}/{'M' if t - 2 < 0 else ''}{abs(t - 2):02d} Q{rng.randint(985, 1032)}")


@workload("metar-hourly-ids", "input_ids", ("dynamic",),
          "the base's latest METAR (a new report every ~6 requests, in arrival order) ~320 tokens into a 1.3k-token "
          "system prompt; ~8% of requests were sent while the weather feed was down and lack the line; as token ids",
          AIR, notes="~16 settings in arrival order: the fix states the report at the end of the system prompt")
def _metar(rng: random.Random, d: Desk) -> list[Pair]:
    head, tail = "\n\n".join([d.preface(), d.guide(2)]), d.guide(8)
    n = rng.randint(85, 110)
    reports = [metar(rng, h) for h in range(6, 6 + n // 6 + 1)]
    shown = common_mark(reports)
    out = []
    for i in range(n):
        k = i // 6
        q = d.question()
        if lacks(rng, 0.08):
            orig = chat(i, [sys_msg(f"{head}\n\n{SKIP}{tail}"), user(q)])
            fixed = chat(i, [sys_msg(f"{head}\n\n{tail}"), user(q)])
        else:
            orig = chat(i, [sys_msg(f"{head}\n\nLatest METAR: {shown[k]}\n\n{tail}"), user(q)])
            fixed = chat(i, [sys_msg(f"{head}\n\n{tail}\n\nLatest METAR: {reports[k]}"), user(q)])
        out.append((orig, fixed))
    return out


def cvss(rng: random.Random) -> str:
    return ("CVSS:3.1/AV:" + rng.choice("NAL") + "/AC:" + rng.choice("LH") + "/PR:" + rng.choice("NLH") + "/UI:"
            + rng.choice("NR") + "/S:" + rng.choice("UC") + "/C:" + rng.choice("HLN") + "/I:" + rng.choice("HLN")
            + "/A:" + rng.choice("HLN"))


@workload("cve-advisory-deep-one-of-two-tenants", "messages", ("dynamic",),
          "two MSSP customers with their own system prompts; for the larger one (~65% of requests) the prompt states "
          "the shift's priority advisory (a CVE id, its CVSS vector and product, from 50) ~1.8k tokens deep, ~600 "
          "static tokens after it; the other tenant's prompt has none", SOC)
def _cve(rng: random.Random, d: Desk) -> list[Pair]:
    head, tail = "\n\n".join([d.preface(), d.guide(14)]), d.guide(4)
    other = "\n\n".join([f"Managed service notes for the Harlow Retail tenant. {d.paragraph(3)}", d.guide(7)])
    products = ["Ivanti Connect Secure", "Citrix NetScaler", "FortiOS SSL-VPN", "Confluence Data Center",
                "MOVEit Transfer", "Exchange Server", "vCenter Server", "PAN-OS GlobalProtect"]
    advisories = [f"CVE-2026-{rng.randint(20000, 59999)} ({cvss(rng)}, base score {rng.randint(60, 100) / 10}) in "
                  f"{rng.choice(products)}" for _ in range(50)]
    out = []
    for i in range(rng.randint(95, 120)):
        q = d.question()
        if rng.random() < 0.35:
            rec = chat(i, [sys_msg(f"{other}{SKIP}"), user(q)])
            out.append((rec, unmark(rec)))
            continue
        adv = rng.choice(advisories)
        line = f"Priority advisory this shift: CVE-2026-{MARK}{adv[9:]}."
        orig = chat(i, [sys_msg(f"{head}\n\n{line}\n\n{tail}"), user(q)])
        fixed = chat(i, [sys_msg(f"{head}\n\n{tail}"), user(f"{q}\n\n(Priority advisory this shift: {adv}.)")])
        out.append((orig, fixed))
    return out


BENEFIT_TOOLS = ["submit_life_event", "book_viewing", "get_benefit_elections", "reset_quiz_attempt"]


def _employee_tools(d: Desk, emp: str | None) -> list[dict[str, Any]]:
    tools = [d.tool(n) for n in BENEFIT_TOOLS]
    if emp is not None:
        prop = tools[2]["function"]["parameters"]["properties"]["employee"]["properties"]["employee_id"]
        prop["description"] = f"Employee number; leave empty for the signed-in employee ({emp})."
    return tools


@workload("employee-id-in-nested-tool-param", "messages", ("dynamic",),
          "the signed-in employee's number (80 employees) inside the description of a nested parameter of the 3rd "
          "of four tools in `tools`; ~300 static tokens of tools and the question follow", BENEFITS)
def _employee(rng: random.Random, d: Desk) -> list[Pair]:
    system = "\n\n".join([d.preface(), d.guide(5)])
    employees = [f"E-{rng.randint(100000, 999999)}" for _ in range(80)]
    out = []
    for i in range(rng.randint(80, 105)):
        emp = rng.choice(employees)
        q = d.question()
        orig = chat(i, [sys_msg(system), user(q)], _employee_tools(d, f"E-{MARK}{emp[2:]}"))
        fixed = chat(i, [sys_msg(system), user(f"{q}\n\n(Signed-in employee: {emp})")], _employee_tools(d, None))
        out.append((orig, fixed))
    return out


def tariff_report(d: Desk) -> str:
    local = random.Random(f"{d.name}/tariff")
    rows = [{"band": b, "unit_rate_p_kwh": round(local.uniform(6, 14), 2), "standing_p_day": round(local.uniform(30, 60), 1),
             "note": d.fact()} for b in "ABCDEFGH"]
    return compact({"account": "KDH-5520183", "scheme": "Northgate Heat Network", "rates": rows})


@workload("idempotency-key-in-tool-call-args-ids", "input_ids", ("dynamic",),
          "a client that writes a fresh idempotency key into the history's first tool call (get_tariff) on every "
          "request; ~400 static tokens of tariff result and the question follow; ~15% of requests come from an "
          "older client without the key; as token ids", HEAT)
def _idem(rng: random.Random, d: Desk) -> list[Pair]:
    system = "\n\n".join([d.preface(), d.guide(6)])
    tools = [d.tool(n) for n in ["get_tariff", "set_payment_plan", "check_application"]]
    report = tariff_report(d)
    out = []
    for i in range(rng.randint(75, 100)):
        q = d.question()
        head = [sys_msg(system), user("Please pull up my tariff first.")]
        plain = tool_call("call_t1", "get_tariff", {"account": "KDH-5520183"})
        if lacks(rng, 0.15):
            orig = chat(i, head + [tool_call("call_t1", "get_tariff", {"account": "KDH-5520183" + SKIP}),
                                   tool_result("call_t1", report), user(q)], tools)
            fixed = chat(i, head + [plain, tool_result("call_t1", report), user(q)], tools)
        else:
            key = "idem_" + hexid(rng, 20)
            args = {"account": "KDH-5520183", "idempotency_key": "idem" + MARK + key[4:]}
            orig = chat(i, head + [tool_call("call_t1", "get_tariff", args), tool_result("call_t1", report), user(q)], tools)
            fixed = chat(i, head + [plain, tool_result("call_t1", report), user(f"{q}\n\n(idempotency_key: {key})")], tools)
        out.append((orig, fixed))
    return out


def http_date(ts: float) -> str:
    import datetime as dt

    return dt.datetime.fromtimestamp(ts, tz=dt.timezone.utc).strftime("%a, %d %b %Y %H:%M:%S GMT")


@workload("http-date-ratelimit-in-tool-result", "messages", ("dynamic",),
          "an agent's fixed catalogue look-up whose tool result is the raw HTTP response: a `Date` header and a "
          "falling `X-RateLimit-Remaining` before ~450 static tokens of JSON body; the question comes last", MUSIC)
def _http(rng: random.Random, d: Desk) -> list[Pair]:
    system = "\n\n".join([d.preface(), d.guide(5)])
    tools = [d.tool(n) for n in ["search_catalogue", "quote_sync_licence", "open_incident"]]
    local = random.Random(f"{d.name}/works")
    works = [{"work_id": f"MRC-{local.randint(100000, 999999)}", "title": t, "isrc": f"GB{local.choice(['AYE', 'UM7', 'KPA'])}"
              f"26{local.randint(10000, 99999)}", "one_stop": local.random() < 0.6, "note": d.fact()}
             for t in ["Harbour Lights", "Paper Satellites", "Northbound", "Slow Comet", "Glass Orchard", "Tidal Hymn"]]
    body = json.dumps({"results": works, "total": len(works)}, indent=1, ensure_ascii=False)
    call = tool_call("call_s1", "search_catalogue", {"text": "upbeat indie, female vocal", "filters": {"territory": "GB"}})
    remaining = 5000
    n = rng.randint(70, 95)
    times = [BASE_TIME + 43.0 * i + rng.uniform(0, 20) for i in range(n)]
    dates = [http_date(ts) for ts in times]
    shown = common_mark(dates)
    out = []
    for i in range(n):
        ts, date = times[i], dates[i]
        remaining -= rng.randint(1, 9)
        heads = f"HTTP/1.1 200 OK\nContent-Type: application/json\nDate: {shown[i]}\n" \
                f"X-RateLimit-Remaining: {remaining}\n\n"
        plain = "HTTP/1.1 200 OK\nContent-Type: application/json\n\n"
        q = d.question()
        pre = [sys_msg(system), user("Find me some upbeat indie tracks we can clear for the UK.")]
        orig = chat(i, pre + [call, tool_result("call_s1", heads + body), user(q)], tools, ts)
        fixed = chat(i, pre + [call, tool_result("call_s1", plain + body),
                               user(f"{q}\n\n(Date: {date}; X-RateLimit-Remaining: {remaining})")], tools, ts)
        out.append((orig, fixed))
    return out


def iso_duration(minutes: int) -> str:
    return f"PT{minutes // 60}H{minutes % 60}M" if minutes % 60 else f"PT{minutes // 60}H"


@workload("crew-duty-durations-second-system-ids", "input_ids", ("dynamic",),
          "a second system message opening with the crew's remaining duty time as ISO-8601 durations ('captain "
          "PT4H35M, first officer PT6H10M') before ~550 static tokens of crew rest rules; as token ids", AIR)
def _duty(rng: random.Random, d: Desk) -> list[Pair]:
    manual = "\n\n".join([d.preface(), d.guide(6)])
    rules = d.guide(5)
    out = []
    for i in range(rng.randint(24, 36)):
        cpt, fo = iso_duration(rng.randrange(30, 600, 5)), iso_duration(rng.randrange(30, 600, 5))
        status = f"Remaining flight duty: captain {cpt}, first officer {fo}."
        q = d.question()
        orig = chat(i, [sys_msg(manual), sys_msg(f"Remaining flight duty: captain{MARK} {cpt}, first officer {fo}.\n\n{rules}"),
                        user(q)])
        fixed = chat(i, [sys_msg(manual), sys_msg(rules), user(f"{q}\n\n{status}")])
        out.append((orig, fixed))
    return out


COURSES = ["Level 3 Diploma in Accounting", "A-level Psychology", "Access to HE: Nursing", "GCSE Maths resit",
           "Certificate in Data Analysis", "Award in Food Hygiene"]


@workload("course-progress-system-content-part", "messages", ("dynamic",),
          "a system message given as three content parts: the tutor guide, the learner's progress ('63% of A-level "
          "Psychology, module 7 of 12, last quiz 7/10'), then ~800 static tokens of marking rubric", ACADEMY)
def _progress(rng: random.Random, d: Desk) -> list[Pair]:
    guide, rubric = "\n\n".join([d.preface(), d.guide(3)]), d.guide(7)
    out = []
    for i in range(rng.randint(85, 110)):
        prog = (f"{rng.randint(3, 99)}% of {rng.choice(COURSES)}, module {rng.randint(1, 12)} of 12, last quiz "
                f"{rng.randint(2, 10)}/10")
        q = d.question()
        orig = chat(i, [{"role": "system", "content": parts(guide, f"Learner progress:{MARK} {prog}.", rubric)}, user(q)])
        fixed = chat(i, [{"role": "system", "content": parts(guide, rubric)}, user(f"{q}\n\nLearner progress: {prog}.")])
        out.append((orig, fixed))
    return out


@workload("resident-name-in-fewshot-example-prompt", "prompt", ("dynamic",),
          "a template bug: the resident's name (40 names) is substituted into the first of four few-shot examples "
          "of a caseworker prompt record, ~770 tokens in, ~250 static tokens of examples after it", COUNTY)
def _fewshot_name(rng: random.Random, d: Desk) -> list[Pair]:
    instructions = "\n\n".join([d.preface(), d.guide(6)])
    shots = [(d.question(), d.answer()) for _ in range(4)]
    names = [d.person() for _ in range(40)]
    out = []
    for i in range(rng.randint(60, 80)):
        who = rng.choice(names)

        def examples(first_intro: str) -> str:
            rows = []
            for k, (q, a) in enumerate(shots):
                intro = first_intro if k == 0 else ""
                rows.append(f"Resident: {intro}{q}\nCaseworker: {a}")
            return "\n\n".join(rows)
        q = d.question()
        orig = prompt(i, f"{instructions}\n\nExamples:\n\n{examples(f'Hello, this is{MARK} {who}. ')}\n\nResident: {q}\nCaseworker:")
        fixed = prompt(i, f"{instructions}\n\nExamples:\n\n{examples('Hello. ')}\n\nResident: {q}\n"
                          f"(The resident is {who}.)\nCaseworker:")
        out.append((orig, fixed))
    return out


@workload("enrolment-countdown-one-token", "messages", ("dynamic",),
          "'Open enrolment closes in 9 days.': a one-token countdown (one setting per day over 9 days, in arrival "
          "order) ~320 tokens into a 1.25k-token system prompt; no timestamps",
          BENEFITS, notes="9 settings in arrival order: the fix states the countdown at the end of the system prompt")
def _countdown(rng: random.Random, d: Desk) -> list[Pair]:
    head, tail = "\n\n".join([d.preface(), d.guide(2)]), d.guide(8)
    out = []
    for i, ts in enumerate(spread(rng, rng.randint(90, 115), 9)):
        left = 9 - int((ts - BASE_TIME) // 86400)
        q = d.question()
        orig = untimed(chat(i, [sys_msg(f"{head}\n\nOpen enrolment closes in{MARK} {left} days.\n\n{tail}"), user(q)]))
        fixed = untimed(chat(i, [sys_msg(f"{head}\n\n{tail}\n\nOpen enrolment closes in {left} days."), user(q)]))
        out.append((orig, fixed))
    return out


STREETS = ["Mill Lane", "Orchard Rise", "Station Road", "Kings Walk", "Brook Close", "Larch Avenue", "Quarry Hill",
           "Church View", "Marsh Road", "Beacon Way", "Foundry Street", "Willow Court"]


def comps_table(rng: random.Random) -> str:
    rows = ["| Address | Sold | Price | Beds | Sq ft | Days on market |", "| --- | --- | --- | --- | --- | --- |"]
    for _ in range(rng.randint(6, 16)):
        rows.append(f"| {rng.randint(1, 140)} {rng.choice(STREETS)} | {rng.choice(['Sep', 'Oct', 'Nov'])} 2026 | "
                    f"£{rng.randint(180, 900) * 1000:,} | {rng.randint(1, 5)} | {rng.randint(520, 2600):,} | "
                    f"{rng.randint(4, 160)} |")
    return "\n".join(rows)


@workload("comparable-sales-table-prompt", "prompt", ("dynamic",),
          "a per-request table of 6-16 comparable sales (150-450 tokens) between the valuation method and ~900 "
          "static tokens of disclosure rules in a prompt record", REALTY)
def _comps(rng: random.Random, d: Desk) -> list[Pair]:
    method, rules = "\n\n".join([d.preface(), d.guide(3)]), d.guide(8)
    out = []
    for i in range(rng.randint(55, 80)):
        table = comps_table(rng)
        lines = table.split("\n")
        shown = "\n".join(lines[:2] + ["| " + MARK + lines[2][2:]] + lines[3:])
        q = d.question()
        orig = prompt(i, f"{method}\n\nComparable sales:\n{shown}\n\n{rules}\n\nClient: {q}\nNegotiator:")
        fixed = prompt(i, f"{method}\n\n{rules}\n\nClient: {q}\nComparable sales:\n{table}\nNegotiator:")
        out.append((orig, fixed))
    return out


@workload("audience-2-settings-prompt", "prompt", ("dynamic",),
          "the audience (2 settings: adult learners or sixth-form students) right after the preface of a 2k-token "
          "tutor prompt record", ACADEMY,
          notes="2 settings: the fix states the audience after the shared prompt; costs one copy of it (~1.3%)")
def _audience(rng: random.Random, d: Desk) -> list[Pair]:
    pre, rest = d.preface(), d.guide(16)
    out = []
    for i in range(rng.randint(70, 90)):
        who = rng.choice(["adult learners (19 and over)", "sixth-form students (16 to 18)"])
        q = d.question()
        orig = prompt(i, f"{pre}\n\nAudience:{MARK} {who}.\n\n{rest}\n\nLearner: {q}\nTutor:")
        fixed = prompt(i, f"{pre}\n\n{rest}\n\nAudience: {who}.\n\nLearner: {q}\nTutor:")
        out.append((orig, fixed))
    return out


TIERS = ["Employee only", "Employee + Spouse", "Employee + Child(ren)", "Family"]


@workload("cover-tier-4-messages", "messages", ("dynamic",),
          "the employee's cover tier (4 settings) in a sentence ~210 tokens into a 1.4k-token system prompt",
          BENEFITS, notes="4 settings: the fix states the tier at the end of the system prompt")
def _tier(rng: random.Random, d: Desk) -> list[Pair]:
    head, tail = "\n\n".join([d.preface(), d.guide(1)]), d.guide(10)
    out = []
    for i in range(rng.randint(80, 100)):
        tier = rng.choice(TIERS)
        q = d.question()
        orig = chat(i, [sys_msg(f"{head}\n\nQuote every premium for the cover tier{MARK} {tier}.\n\n{tail}"), user(q)])
        fixed = chat(i, [sys_msg(f"{head}\n\n{tail}\n\nQuote every premium for the cover tier {tier}."), user(q)])
        out.append((orig, fixed))
    return out


@workload("market-zip-50-ids", "input_ids", ("dynamic",),
          "the listing's market area ('ZIP 30307, Candler Park: median 41 days on market', 50 areas) on the first "
          "line of a 1.1k-token system prompt; as token ids", REALTY)
def _zip(rng: random.Random, d: Desk) -> list[Pair]:
    system = "\n\n".join([d.preface(), d.guide(9)])
    kinds = ['Park', 'Heights', 'Village', 'East', 'Green']
    areas = [f"ZIP {rng.randint(10000, 99999)}, {rng.choice(STREETS).split()[0]} {rng.choice(kinds)}: "
             f"median {rng.randint(12, 90)} days on market" for _ in range(50)]
    out = []
    for i in range(rng.randint(85, 110)):
        area = rng.choice(areas)
        q = d.question()
        orig = chat(i, [sys_msg(f"Market area: ZIP {MARK}{area[4:]}\n{system}"), user(q)])
        fixed = chat(i, [sys_msg(system), user(f"{q}\n\n(Market area: {area})")])
        out.append((orig, fixed))
    return out


def tr_amount(x: float) -> str:
    whole, frac = f"{x:,.2f}".split(".")
    return whole.replace(",", ".") + "," + frac


@workload("turkish-amount-due-messages", "messages", ("dynamic",),
          "a Turkish sentence with the amount due in Turkish number format ('Ödenecek tutar: 1.284,50 TL, son ödeme "
          "15.12.2026') after Turkish service rules, ~540 tokens into the system prompt; Turkish questions", HEAT)
def _turkish(rng: random.Random, d: Desk) -> list[Pair]:
    head = "\n\n".join([d.preface(), d.guide(3), "Türkçe yazan müşteriler için kurallar:\n" + "\n".join(f"- {t}" for t in TURKISH)])
    tail = d.guide(6)
    out = []
    for i in range(rng.randint(70, 90)):
        amount = tr_amount(rng.randint(150, 9000) + rng.random())
        line = f"Ödenecek tutar: {amount} TL, son ödeme tarihi {rng.randint(10, 28)}.12.2026."
        q = rng.choice(TURKISH_ASKS) + f" (hesap {d.ref()})"
        orig = chat(i, [sys_msg(f"{head}\n\nÖdenecek tutar:{MARK} {line[len('Ödenecek tutar: '):]}\n\n{tail}"), user(q)])
        fixed = chat(i, [sys_msg(f"{head}\n\n{tail}"), user(f"{q}\n\n{line}")])
        out.append((orig, fixed))
    return out


@workload("vietnamese-date-6-prompt", "prompt", ("dynamic",),
          "a Vietnamese date line ('Hôm nay là ngày 3 tháng 12 năm 2026', 6 days in arrival order) after the "
          "preface of a bilingual tutor prompt record", ACADEMY,
          notes="6 settings: the fix states the date after the shared prompt, before the question")
def _vietnamese(rng: random.Random, d: Desk) -> list[Pair]:
    pre = d.preface()
    rest = "\n\n".join(["Quy tắc:\n" + "\n".join(VIETNAMESE), d.guide(8)])
    out = []
    for i, ts in enumerate(spread(rng, rng.randint(80, 100), 6)):
        day = 1 + int((ts - BASE_TIME) // 86400)
        q = rng.choice(VIETNAMESE_ASKS) + f" (mã {d.ref()})"
        orig = prompt(i, f"{pre}\n\nHôm nay là ngày{MARK} {day} tháng 12 năm 2026.\n\n{rest}\n\nHọc viên: {q}\nTrợ giảng:", ts)
        fixed = prompt(i, f"{pre}\n\n{rest}\n\nHôm nay là ngày {day} tháng 12 năm 2026.\n\nHọc viên: {q}\nTrợ giảng:", ts)
        out.append((orig, fixed))
    return out


@workload("presigned-evidence-url-ids", "input_ids", ("dynamic",),
          "a presigned link to the resident's uploaded evidence (object key, credential scope, X-Amz-Date and a "
          "64-hex signature, ~130 tokens) ~560 tokens into the system prompt; as token ids", COUNTY)
def _presigned(rng: random.Random, d: Desk) -> list[Pair]:
    head, tail = "\n\n".join([d.preface(), d.guide(4)]), d.guide(7)
    out = []
    for i in range(rng.randint(60, 85)):
        ts = BASE_TIME + 51.0 * i
        import datetime as dt

        stamp = dt.datetime.fromtimestamp(ts, tz=dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        url = (f"https://evidence.fenwick.example/uploads/{uuid(rng)}.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256"
               f"&X-Amz-Credential=AKIA{hexid(rng, 16).upper()}%2F20261201%2Feu-west-2%2Fs3%2Faws4_request"
               f"&X-Amz-Date={stamp}&X-Amz-Expires=900&X-Amz-SignedHeaders=host&X-Amz-Signature={hexid(rng, 64)}")
        q = d.question()
        orig = chat(i, [sys_msg(f"{head}\n\nThe resident's evidence: https://evidence.fenwick.example/uploads/{MARK}"
                                f"{url[len('https://evidence.fenwick.example/uploads/'):]}\n\n{tail}"), user(q)], ts=ts)
        fixed = chat(i, [sys_msg(f"{head}\n\n{tail}"), user(f"{q}\n\nThe resident's evidence: {url}")], ts=ts)
        out.append((orig, fixed))
    return out


# ---------------------------------------------------------------- order


def playbooks(d: Desk) -> list[str]:
    names = ["phishing", "impossible-travel", "edr-quarantine", "dns-tunnelling", "privilege-escalation",
             "ransomware-precursor", "data-exfiltration"]
    return [f'<playbook name="{n}">\n{d.paragraph(4)}\n</playbook>' for n in names]


def alert(rng: random.Random, d: Desk) -> str:
    return json.dumps({"alert_id": f"ALR-{rng.randint(10**6, 10**7)}", "tenant": rng.choice(["hrl", "nwb", "qmx", "tpa"]),
                       "rule": rng.choice(["Suspicious PowerShell", "Impossible travel", "Mailbox rule created",
                                           "Rare parent process", "Beaconing"]),
                       "host": f"wks-{rng.choice(['fin', 'hr', 'ops', 'dev'])}-{rng.randint(1, 999):04d}.corp.example",
                       "user": f"{rng.choice(['a', 'j', 'm', 's', 't'])}.{rng.choice(['khan', 'lopez', 'ng', 'ward'])}",
                       "first_seen": f"2026-12-01T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}Z",
                       "count": rng.randint(1, 40),
                       "process_tree": [f"{rng.choice(['explorer.exe', 'outlook.exe', 'winword.exe'])}",
                                        f"{rng.choice(['cmd.exe', 'powershell.exe', 'wscript.exe'])} -enc "
                                        f"{hexid(rng, rng.randint(20, 120))}"]},
                      indent=1)


@workload("playbook-tagged-blocks-prompt", "prompt", ("order",),
          "seven XML-like <playbook name=...> blocks (a dict walked in hash order) in a different order per request "
          "after the preface of a triage prompt record; the alert and question come last", SOC)
def _playbooks(rng: random.Random, d: Desk) -> list[Pair]:
    pre, blocks, tail = d.preface(), playbooks(d), d.guide(4)
    out = []
    for i in range(rng.randint(60, 85)):
        order, canon = shuffled(rng, blocks)
        a = alert(rng, d)
        orig = prompt(i, f"{pre}\n\n" + "\n".join(order) + f"\n\n{tail}\n\nAlert:\n{a}\n\nTriage:")
        fixed = prompt(i, f"{pre}\n\n" + "\n".join(canon) + f"\n\n{tail}\n\nAlert:\n{a}\n\nTriage:")
        out.append((orig, fixed))
    return out


PLAN_DOCS = ["medical", "dental", "pension", "life"]


@workload("lookup-steps-completion-order", "messages", ("order",),
          "an agent whose client preloads four plan documents as four tool call and result steps (~250 tokens "
          "each), replayed in the order the look-ups completed; the question comes last; tools present", BENEFITS)
def _lookup_steps(rng: random.Random, d: Desk) -> list[Pair]:
    system = "\n\n".join([d.preface(), d.guide(5)])
    tools = [d.tool(n) for n in ["get_benefit_elections", "submit_life_event"]] + [
        {"type": "function", "function": {"name": "get_plan_document", "description": "Return the summary of a plan.",
                                          "parameters": {"type": "object", "properties": {
                                              "plan": {"type": "string", "enum": PLAN_DOCS}}, "required": ["plan"]}}}]
    docs = {p: compact({"plan": p, "summary": d.paragraph(6)}) for p in PLAN_DOCS}
    steps = {p: [tool_call(f"call_{p}", "get_plan_document", {"plan": p}), tool_result(f"call_{p}", docs[p])]
             for p in PLAN_DOCS}
    out = []
    for i in range(rng.randint(70, 95)):
        order = list(PLAN_DOCS)
        rng.shuffle(order)
        q = d.question()
        msgs = [sys_msg(system), user("Load my plan documents.")]
        for j, p in enumerate(order):
            call, res = json.loads(json.dumps(steps[p]))
            if j == 0:
                args = json.loads(call["tool_calls"][0]["function"]["arguments"])
                call["tool_calls"][0]["function"]["arguments"] = json.dumps({"plan": MARK + args["plan"]}, ensure_ascii=False)
            msgs += [call, res]
        fixed = [sys_msg(system), user("Load my plan documents.")] + [m for p in PLAN_DOCS for m in steps[p]]
        out.append((chat(i, msgs + [user(q)], tools), chat(i, fixed + [user(q)], tools)))
    return out


@workload("amenity-keys-object-ids", "input_ids", ("order",),
          "a pretty-printed JSON object of 12 listing-standard definitions serialized with its keys in a different "
          "order per request, ~250 tokens into the system prompt, ~1.2k static tokens after; as token ids", REALTY)
def _amenities(rng: random.Random, d: Desk) -> list[Pair]:
    head, tail = "\n\n".join([d.preface(), d.guide(1)]), d.guide(8)
    keys = ["parking", "garden", "epc_rating", "council_tax_band", "tenure", "broadband", "heating", "flood_risk",
            "accessibility", "service_charge", "ground_rent", "chain"]
    defs = {k: d.fact() for k in keys}
    canon = json.dumps({"listing_standards": defs}, indent=2, ensure_ascii=False)
    out = []
    for i in range(rng.randint(75, 100)):
        order = list(keys)
        rng.shuffle(order)
        text = json.dumps({"listing_standards": {k: defs[k] for k in order}}, indent=2, ensure_ascii=False)
        shown = text.replace(f'"{order[0]}"', f'{UNIT}"{MARK}{order[0]}"', 1)
        q = d.question()
        orig = chat(i, [sys_msg(f"{head}\n\n```json\n{shown}\n```\n\n{tail}"), user(q)])
        fixed = chat(i, [sys_msg(f"{head}\n\n```json\n{canon}\n```\n\n{tail}"), user(q)])
        out.append((orig, fixed))
    return out


@workload("request-reply-pairs-shuffled-ids", "input_ids", ("order",),
          "five '### Request / ### Reply' few-shot pairs in a different order per request after the instructions "
          "of a licensing prompt record; the real request comes last; as token ids", MUSIC)
def _request_reply(rng: random.Random, d: Desk) -> list[Pair]:
    head = "\n\n".join([d.preface(), d.guide(5)])
    pairs = [f"### Request\n{d.question()}\n### Reply\n{d.answer()}" for _ in range(5)]
    out = []
    for i in range(rng.randint(30, 45)):
        order, canon = shuffled(rng, pairs)
        q = d.long_question() if rng.random() < 0.3 else d.question()
        orig = prompt(i, f"{head}\n\n" + "\n\n".join(order) + f"\n\n### Request\n{q}\n### Reply\n")
        fixed = prompt(i, f"{head}\n\n" + "\n\n".join(canon) + f"\n\n### Request\n{q}\n### Reply\n")
        out.append((orig, fixed))
    return out


def tariff_rows(d: Desk) -> list[str]:
    local = random.Random(f"{d.name}/rows")
    return [f"<tr><td>Band {b}</td><td>{local.uniform(6, 14):.2f}p/kWh</td><td>{local.uniform(30, 60):.1f}p/day</td>"
            f"<td>{local.choice(['flat', 'house', 'bungalow', 'maisonette'])}</td></tr>" for b in "ABCDEFGHJK"]


@workload("html-tr-rows-tariff-messages", "messages", ("order",),
          "the ten <tr> rows of an HTML tariff table from the CMS, in a different order per request, ~400 tokens "
          "into the system prompt, ~1.1k static tokens after", HEAT)
def _tr_rows(rng: random.Random, d: Desk) -> list[Pair]:
    head, tail = "\n\n".join([d.preface(), d.guide(2)]), d.guide(7)
    rows = tariff_rows(d)
    top = "<table>\n<tr><th>Band</th><th>Unit rate</th><th>Standing charge</th><th>Property</th></tr>\n"
    out = []
    for i in range(rng.randint(80, 105)):
        order, canon = shuffled(rng, rows)
        q = d.question()
        orig = chat(i, [sys_msg(f"{head}\n\n{top}" + "\n".join(order) + f"\n</table>\n\n{tail}"), user(q)])
        fixed = chat(i, [sys_msg(f"{head}\n\n{top}" + "\n".join(canon) + f"\n</table>\n\n{tail}"), user(q)])
        out.append((orig, fixed))
    return out


@workload("equals-headed-sections-ids", "input_ids", ("order",),
          "six '==== COUNCIL TAX ====' style sections (~180 tokens each) in a different order per request after the "
          "preface; a static closing section; as token ids", COUNTY)
def _equals(rng: random.Random, d: Desk) -> list[Pair]:
    heads = ["COUNCIL TAX", "HOUSING BENEFIT", "PARKING PERMITS", "BLUE BADGES", "APPEALS", "HARDSHIP FUND"]
    sections = [f"==== {h} ====\n{d.paragraph(6)}" for h in heads]
    pre, closing = d.preface(), d.guide(3)
    out = []
    for i in range(rng.randint(70, 95)):
        order, canon = shuffled(rng, sections)
        q = rng.choice(POLISH_ASKS) if rng.random() < 0.15 else d.question()
        orig = chat(i, [sys_msg(f"{pre}\n\n" + "\n\n".join(order) + f"\n\n{closing}"), user(q)])
        fixed = chat(i, [sys_msg(f"{pre}\n\n" + "\n\n".join(canon) + f"\n\n{closing}"), user(q)])
        out.append((orig, fixed))
    return out


@workload("rule-separated-blocks-prompt", "prompt", ("order",),
          "seven unheaded blocks separated by '---' rules, in a different order per request, at the start of a "
          "tutor prompt record after one line; the question comes last", ACADEMY)
def _dash_blocks(rng: random.Random, d: Desk) -> list[Pair]:
    blocks = [d.paragraph(4) for _ in range(7)]
    tail = d.guide(5)
    out = []
    for i in range(rng.randint(65, 90)):
        order, canon = shuffled(rng, blocks)
        q = d.question()
        orig = prompt(i, "Brightpath tutor notes\n\n" + "\n\n---\n\n".join(order) + f"\n\n---\n\n{tail}\n\nLearner: {q}\nTutor:")
        fixed = prompt(i, "Brightpath tutor notes\n\n" + "\n\n---\n\n".join(canon) + f"\n\n---\n\n{tail}\n\nLearner: {q}\nTutor:")
        out.append((orig, fixed))
    return out


@workload("checklist-items-mostly-shuffled", "messages", ("order",),
          "a ten-item '- [ ]' triage checklist in the system prompt, shuffled per request except in ~15% of "
          "requests (a cached copy in the canonical order); ~700 static tokens after it", SOC)
def _checklist(rng: random.Random, d: Desk) -> list[Pair]:
    head, tail = "\n\n".join([d.preface(), d.guide(1)]), d.guide(6)
    items = [f"- [ ] {d.rule()}" for _ in range(10)]
    out = []
    for i in range(rng.randint(75, 100)):
        if rng.random() < 0.15:
            order = [mark_unit(items[0], items[1:])] + items[1:]
        else:
            order, _ = shuffled(rng, items)
        q = d.question()
        orig = chat(i, [sys_msg(f"{head}\n\nTriage checklist:\n" + "\n".join(order) + f"\n\n{tail}"), user(q)])
        fixed = chat(i, [sys_msg(f"{head}\n\nTriage checklist:\n" + "\n".join(items) + f"\n\n{tail}"), user(q)])
        out.append((orig, fixed))
    return out


@workload("featured-listings-json-array-prompt", "prompt", ("order",),
          "this week's eight featured listings as a pretty-printed JSON array (a query without ORDER BY) in a "
          "different order per request, ~75 tokens into a prompt record; ~1k static tokens after", REALTY)
def _listings(rng: random.Random, d: Desk) -> list[Pair]:
    local = random.Random(f"{d.name}/listings")
    listings = [{"id": f"AF-{local.randint(10000, 99999)}", "address": f"{local.randint(1, 90)} {s}",
                 "price": local.randint(190, 950) * 1000, "beds": local.randint(1, 5),
                 "summary": d.fact()} for s in STREETS[:8]]
    pre, tail = d.preface(), d.guide(7)
    out = []
    for i in range(rng.randint(70, 95)):
        order = list(range(8))
        rng.shuffle(order)
        text = json.dumps([listings[k] for k in order], indent=2, ensure_ascii=False)
        first = str(listings[order[0]]["id"])
        shown = UNIT + text.replace(f'"AF-{first[3:]}"', f'"AF-{MARK}{first[3:]}"', 1)
        q = d.question()
        orig = prompt(i, f"{pre}\n\nFeatured listings:\n{shown}\n\n{tail}\n\nBuyer: {q}\nNegotiator:")
        fixed = prompt(i, f"{pre}\n\nFeatured listings:\n{json.dumps(listings, indent=2, ensure_ascii=False)}\n\n{tail}"
                          f"\n\nBuyer: {q}\nNegotiator:")
        out.append((orig, fixed))
    return out


# ---------------------------------------------------------------- per-request content before shared content


TENANT_SLUGS = [f"{a}{b}" for a in ["hrl", "nwb", "qmx", "tpa", "gvo", "ksd"] for b in ["", "-eu", "-us", "-apac", "-lab"]]


def tenant_tool(d: Desk, slug: str) -> dict[str, Any]:
    local = random.Random(f"{d.name}/tenant/{slug}")
    sources = ", ".join(local.sample(["Entra ID sign-ins", "Defender for Endpoint", "Okta", "Palo Alto firewall",
                                      "Zscaler", "CloudTrail", "Google Workspace", "CrowdStrike", "Sysmon"], 3))
    return {"type": "function", "function": {
        "name": f"search_{slug.replace('-', '_')}_logs",
        "description": f"Search the {slug} tenant's logs ({sources}); retention {local.choice([30, 90, 180])} days.",
        "parameters": {"type": "object", "properties": {"query": {"type": "string", "description": "Search text."}},
                       "required": ["query"]}}}


@workload("tenant-tool-before-static-tools", "messages", ("placement",),
          "a per-tenant log-search tool (30 tenants) generated first in `tools`, ahead of four static nested tools "
          "(~1k tokens)", SOC,
          notes="30 settings: the fix lists the static tools first and the tenant's tool last")
def _tenant_tool(rng: random.Random, d: Desk) -> list[Pair]:
    system = "\n\n".join([d.preface(), d.guide(4)])
    static = ["query_siem", "isolate_host", "lookup_ioc", "open_incident"]
    everyone = [tenant_tool(d, s) for s in TENANT_SLUGS]
    out = []
    for i in range(rng.randint(85, 110)):
        slug = rng.choice(TENANT_SLUGS)
        mine = tenant_tool(d, slug)
        tools = marked_first_tool(d, [mine] + [d.tool(n) for n in static], everyone)
        q = d.question()
        out.append((chat(i, [sys_msg(system), user(q)], tools),
                    chat(i, [sys_msg(system), user(q)], [d.tool(n) for n in static] + [mine])))
    return out


def ocr_form(rng: random.Random, d: Desk) -> str:
    fields = [f"Applicant name: {d.person()}",
              f"Date of birth: {rng.randint(1, 28):02d}/{rng.randint(1, 12):02d}/{rng.randint(1940, 2004)}",
              f"Address: {rng.randint(1, 200)} {rng.choice(STREETS)}, Fenwick FK{rng.randint(1, 9)} {rng.randint(1, 9)}"
              f"{rng.choice('ABDEFGHJ')}{rng.choice('LNPQRSTUW')}",
              f"Household members: {rng.randint(1, 6)}", f"Weekly income: £{rng.randint(80, 900)}.{rng.randint(0, 99):02d}"]
    fields += [f"Q{k + 1}. {d.fact()} Answer: {rng.choice(['Yes', 'No', 'Not sure', 'See attached'])}"
               for k in range(rng.randint(4, 12))]
    return "\n".join(fields)


@workload("ocr-form-before-instructions-ids", "input_ids", ("placement",),
          "the OCR text of the resident's scanned form (150-450 tokens) at the top of the system message, ahead of "
          "~1.3k tokens of static caseworker instructions in the same message; as token ids", COUNTY)
def _ocr(rng: random.Random, d: Desk) -> list[Pair]:
    instructions = "\n\n".join([d.preface(), d.guide(11)])
    out = []
    for i in range(rng.randint(70, 95)):
        form = ocr_form(rng, d)
        q = d.question()
        orig = chat(i, [sys_msg(f"{UNIT}Scanned form (OCR):\nApplicant name:{MARK}{form[len('Applicant name:'):]}\n\n{instructions}"),
                        user(q)])
        fixed = chat(i, [sys_msg(f"{instructions}\n\nScanned form (OCR):\n{form}"), user(q)])
        out.append((orig, fixed))
    return out


@workload("retrieved-pair-before-fixed-fewshot-ids", "input_ids", ("placement",),
          "a retrieved example pair (from 60 past cases) as messages ahead of four fixed few-shot pairs (~300 "
          "tokens); the question comes last; as token ids", MUSIC)
def _retrieved_pair(rng: random.Random, d: Desk) -> list[Pair]:
    system = "\n\n".join([d.preface(), d.guide(4)])
    fixed_shots = [m for _ in range(4) for m in (user(d.question()), assistant(d.answer() + " " + d.fact()))]
    pool = [(f"Past case {k}: {d.question()}", d.answer()) for k in range(60)]
    out = []
    for i in range(rng.randint(75, 100)):
        q_ex, a_ex = rng.choice(pool)
        q = d.question()
        orig = chat(i, [sys_msg(system), user(UNIT + "Past case " + MARK + q_ex[len("Past case "):]), assistant(a_ex)]
                    + fixed_shots + [user(q)])
        fixed = chat(i, [sys_msg(system)] + fixed_shots + [user(q_ex), assistant(a_ex), user(q)])
        out.append((orig, fixed))
    return out


@workload("polish-case-notes-before-policy-sessions", "messages", ("placement",),
          "Polish case notes (per case) opening the system message ahead of a static bilingual policy (~1.2k tokens), "
          "in sessions of 1-7 growing turns, interleaved; Polish questions",
          COUNTY, notes="the fix sends the policy first and the notes after it; later turns of a case still share them")
def _polish(rng: random.Random, d: Desk) -> list[Pair]:
    policy = "\n\n".join([d.preface(), "Zasady obsługi:\n" + "\n".join(f"- {t}" for t in POLISH), d.guide(8)])
    n = rng.randint(20, 28)
    lengths = [rng.choice([1, 1, 2, 3, 4, 5, 7]) for _ in range(n)]
    notes = [f"Notatki do sprawy nr FC/{rng.randint(1000, 9999)}/2026: {d.person()}, "
             f"{rng.choice(['wniosek o zniżkę', 'odwołanie', 'zmiana adresu', 'zaległość w opłatach'])}, "
             f"{rng.choice(['dokumenty kompletne', 'brak zaświadczenia o dochodach', 'czeka na wizytę'])}." for _ in range(n)]
    turns = [[(rng.choice(POLISH_ASKS) + f" ({d.ref()})", d.answer()) for _ in range(k)] for k in lengths]
    out = []
    for i, (c, t) in enumerate(conversations(rng, lengths)):
        hist = [m for q, a in turns[c][:t] for m in (user(q), assistant(a))]
        last = user(turns[c][t][0])
        shown = notes[c].replace("nr FC/", f"nr FC/{MARK}", 1)
        orig = chat(i, [sys_msg(f"{UNIT}{shown}\n\n{policy}")] + hist + [last])
        fixed = chat(i, [sys_msg(f"{policy}\n\n{notes[c]}")] + hist + [last])
        out.append((orig, fixed))
    return out


@workload("listing-text-before-appended-rules-one-product", "messages", ("placement",),
          "two products on one endpoint: a listing copywriter (~70%) whose client sends the per-request listing text "
          "(100-300 tokens) ahead of ~550 tokens of wording rules it appends to every user turn, and a buyer Q&A "
          "assistant with its own system prompt and no defect", REALTY)
def _listing_rules(rng: random.Random, d: Desk) -> list[Pair]:
    sys_a = "\n\n".join([f"You rewrite property listings for {d.name}'s website.", d.guide(3)])
    rules = "Wording rules (apply all):\n" + "\n".join(f"- {d.rule()}" for _ in range(22))
    sys_b = "\n\n".join([d.preface(), d.guide(5)])
    out = []
    for i in range(rng.randint(85, 110)):
        if rng.random() < 0.3:
            rec = chat(i, [sys_msg(sys_b), user(SKIP + d.question())])
            out.append((rec, unmark(rec)))
            continue
        listing = (f"{rng.randint(1, 5)}-bed {rng.choice(['semi-detached house', 'flat', 'bungalow', 'terrace'])} on "
                   f"{rng.choice(STREETS)}, £{rng.randint(150, 900) * 1000:,}. " + " ".join(d.fact() for _ in range(rng.randint(3, 11))))
        orig = chat(i, [sys_msg(sys_a), user(f"Listing:\n{MARK}{listing}\n\n{rules}")])
        fixed = chat(i, [sys_msg(sys_a), user(f"{rules}\n\nListing:\n{listing}")])
        out.append((orig, fixed))
    return out


@workload("hourly-briefing-8-before-manual-prompt", "prompt", ("placement|dynamic",),
          "the hour's operations briefing (8 briefings in arrival order, ~120 tokens) opening a prompt record, ahead "
          "of a 1.3k-token static operations manual", AIR,
          notes="8 settings: the fix puts the manual first and the briefing after it, before the question")
def _briefing(rng: random.Random, d: Desk) -> list[Pair]:
    manual = "\n\n".join([d.preface(), d.guide(12)])
    briefs = [f"Ops briefing {6 + k:02d}00Z: " + " ".join(d.fact() for _ in range(4)) for k in range(8)]
    n = rng.randint(80, 100)
    out = []
    for i in range(n):
        b = briefs[i * 8 // n]
        q = d.question()
        orig = prompt(i, f"{UNIT}Ops briefing {MARK}{b[len('Ops briefing '):]}\n\n{manual}\n\nController: {q}\nAssistant:")
        fixed = prompt(i, f"{manual}\n\n{b}\n\nController: {q}\nAssistant:")
        out.append((orig, fixed))
    return out


@workload("history-before-system-message", "messages", ("placement",),
          "a client that sends the conversation history first and the static system message (~1.1k tokens) after "
          "it, before the newest user turn; sessions of 1-8 turns (a first turn has no history and no defect)",
          ACADEMY)
def _history_first(rng: random.Random, d: Desk) -> list[Pair]:
    system = "\n\n".join([d.preface(), "Panduan:\n" + "\n".join(INDONESIAN), d.guide(8)])
    lengths = [rng.choice([1, 2, 2, 3, 4, 5, 6, 8]) for _ in range(rng.randint(22, 30))]
    turns = [[(d.question(), d.answer()) for _ in range(k)] for k in lengths]
    out = []
    for i, (c, t) in enumerate(conversations(rng, lengths)):
        hist = [m for q, a in turns[c][:t] for m in (user(q), assistant(a))]
        last = user(turns[c][t][0])
        if not hist:
            orig = chat(i, [sys_msg(SKIP + system), last])
        else:
            first = dict(hist[0], content=MARK + hist[0]["content"])
            orig = chat(i, [first] + hist[1:] + [sys_msg(system), last])
        out.append((orig, chat(i, [sys_msg(system)] + hist + [last])))
    return out


# ---------------------------------------------------------------- several defects in one request


AIR_TOOLS = ["get_flight_status", "reassign_crew", "file_delay_code", "open_incident", "lookup_ioc", "check_application",
             "search_catalogue"]
TAILS = ["G-SKYA", "G-SKYC", "G-SKYF", "G-SKYJ", "G-SKYM", "G-SKYP", "G-SKYR", "G-SKYT", "G-SKYW", "G-ORKN", "G-ISLE",
         "G-JERS"]


@workload("flight-tail-and-shuffled-tools", "messages", ("dynamic", "order"),
          "the flight number and aircraft registration in the first sentence of the system prompt (~30 flights), "
          "and seven tools in `tools` in a different order per request, except ~12% sent in the canonical order", AIR)
def _flight_tools(rng: random.Random, d: Desk) -> list[Pair]:
    rest = "\n\n".join([d.preface(), d.guide(6)])
    flights = [(flight_no(rng), rng.choice(TAILS)) for _ in range(30)]
    out = []
    for i in range(rng.randint(85, 110)):
        num, reg = rng.choice(flights)
        order = list(AIR_TOOLS)
        if rng.random() >= 0.12:
            rng.shuffle(order)
        q = d.question()
        orig = chat(i, [sys_msg(f"You support the crew and controllers of flight SK{MARK}{num} ({reg}).\n\n{rest}"), user(q)],
                    with_marked_order(d, AIR_TOOLS, order))
        fixed = chat(i, [sys_msg(f"You support the crew and controllers of the flight below.\n\n{rest}"),
                         user(f"{q}\n\n(Flight SK{num}, aircraft {reg}.)")], [d.tool(n) for n in AIR_TOOLS])
        out.append((orig, fixed))
    return out


LEADS = ["Marta Kowalczyk (ext 4417)", "Dev Raman (ext 4420)", "Aoife Brennan (ext 4431)", "Tunde Bakare (ext 4452)"]


@workload("alert-first-shift-lead-playbooks-prompt", "prompt", ("placement", "dynamic", "order"),
          "three defects in a triage prompt record: the raw alert JSON (150-300 tokens) ahead of the static "
          "instructions, the shift lead's name (4 settings) after the first ~450 tokens of them, and seven tagged "
          "playbooks shuffled further on", SOC,
          notes="the fix: instructions, canonical playbooks, the shift lead, then the alert and the question")
def _three(rng: random.Random, d: Desk) -> list[Pair]:
    a_part, b_part, blocks, tail = d.guide(4), d.guide(2), playbooks(d), d.guide(3)
    pre = d.preface()
    out = []
    for i in range(rng.randint(70, 95)):
        a = alert(rng, d)
        lead = rng.choice(LEADS)
        order, canon = shuffled(rng, blocks)
        shown_alert = a.replace('"alert_id": "ALR-', f'"alert_id": "ALR-{MARK}', 1)
        orig = prompt(i, f"Alert:\n{UNIT}{shown_alert}\n\n{pre}\n\n{a_part}\n\nShift lead on duty:{MARK} {lead}.\n\n{b_part}\n\n"
                         + "\n".join(order) + f"\n\n{tail}\n\nTriage:")
        fixed = prompt(i, f"{pre}\n\n{a_part}\n\n{b_part}\n\n" + "\n".join(canon) + f"\n\n{tail}\n\nShift lead on duty: {lead}."
                          f"\n\nAlert:\n{a}\n\nTriage:")
        out.append((orig, fixed))
    return out


@workload("rate-sheet-and-shuffled-fewshot-ids", "input_ids", ("dynamic", "order"),
          "today's mortgage rate sheet ('30-year fixed 6.125%, APR 6.302%', one per day over 5 days, in arrival order) "
          "~650 tokens into the system prompt, then four few-shot pairs as messages in a different order per "
          "request; no timestamps; as token ids", REALTY,
          notes="5 settings: the fix states the rate sheet at the start of the last user turn, after the shared pairs")
def _rate_fewshot(rng: random.Random, d: Desk) -> list[Pair]:
    head, tail = "\n\n".join([d.preface(), d.guide(5)]), d.guide(4)
    shots = [(d.question(), d.answer()) for _ in range(4)]
    sheets = [f"30-year fixed {r:.3f}%, APR {r + 0.177:.3f}%; 5-year fixed {r - 0.6:.3f}%" for r in
              [6.125, 6.0, 6.25, 6.375, 6.125 - 0.25]]
    out = []
    for i, ts in enumerate(spread(rng, rng.randint(80, 100), 5)):
        sheet = sheets[int((ts - BASE_TIME) // 86400)]
        order = list(range(4))
        rng.shuffle(order)
        msgs = [sys_msg(f"{head}\n\nToday's rate sheet: 30-year fixed {MARK}{sheet[len('30-year fixed '):]}\n\n{tail}")]
        for j, k in enumerate(order):
            q, a = shots[k]
            msgs += [user(mark_unit(q, [x for x, _ in shots if x != q]) if j == 0 else q), assistant(a)]
        q = d.question()
        fixed = [sys_msg(f"{head}\n\n{tail}")] + [m for x, a in shots for m in (user(x), assistant(a))]
        out.append((untimed(chat(i, msgs + [user(q)])), untimed(chat(i, fixed + [user(f"Today's rate sheet: {sheet}\n\n{q}")]))))
    return out


@workload("countdown-and-employee-id-in-tool", "messages", ("dynamic", "dynamic"),
          "the enrolment countdown (one token, 7 days in arrival order) ~320 tokens into the system prompt and the "
          "signed-in employee's number (60 employees) in a nested tool parameter; no timestamps", BENEFITS,
          notes="the countdown goes right after the shared tools (the start of the user text, where the layout renders "
          "tools in the first user turn), the employee number to the end of the user turn")
def _countdown_employee(rng: random.Random, d: Desk) -> list[Pair]:
    head, tail = "\n\n".join([d.preface(), d.guide(2)]), d.guide(5)
    employees = [f"E-{rng.randint(100000, 999999)}" for _ in range(60)]
    out = []
    for i, ts in enumerate(spread(rng, rng.randint(80, 100), 7)):
        left = 7 - int((ts - BASE_TIME) // 86400)
        emp = rng.choice(employees)
        q = d.question()
        orig = chat(i, [sys_msg(f"{head}\n\nOpen enrolment closes in{MARK} {left} days.\n\n{tail}"), user(q)],
                    _employee_tools(d, f"E-{MARK}{emp[2:]}"))
        fixed = chat(i, [sys_msg(f"{head}\n\n{tail}"),
                         user(f"Open enrolment closes in {left} days.\n\n{q}\n\n(Signed-in employee: {emp})")],
                     _employee_tools(d, None))
        out.append((untimed(orig), untimed(fixed)))
    return out


@workload("rule-blocks-and-hebrew-stamp-prompt", "prompt", ("order", "dynamic"),
          "six unheaded '---'-separated blocks in a different order per request near the top of a prompt record, "
          "then ~1k tokens later a Hebrew 'last updated' line with the request's time (unique); Hebrew guidance", REALTY)
def _blocks_hebrew(rng: random.Random, d: Desk) -> list[Pair]:
    blocks = [d.paragraph(4) for _ in range(6)]
    mid = "\n\n".join(["הנחיות:\n" + "\n".join(HEBREW), d.guide(4)])
    tail = d.guide(3)
    out = []
    for i in range(rng.randint(65, 90)):
        ts = BASE_TIME + 47.0 * i + rng.uniform(0, 30)
        order, canon = shuffled(rng, blocks)
        hh, mm, ss = clock(ts).split(":")
        stamp = f"עודכן לאחרונה: 1.12.2026 בשעה {hh}:{mm}:{ss}"
        q = d.question()
        orig = prompt(i, "Alder & Finch listing desk\n\n" + "\n\n---\n\n".join(order)
                      + f"\n\n{mid}\n\nעודכן לאחרונה: 1.12.2026 בשעה{MARK} {hh}:{mm}:{ss}\n\n{tail}\n\nClient: {q}\nNegotiator:", ts)
        fixed = prompt(i, "Alder & Finch listing desk\n\n" + "\n\n---\n\n".join(canon)
                       + f"\n\n{mid}\n\n{tail}\n\nClient: {q}\n{stamp}\nNegotiator:", ts)
        out.append((orig, fixed))
    return out


@workload("meter-notes-first-and-visit-window-ids", "input_ids", ("placement", "dynamic"),
          "per-account meter notes (40 accounts, ~80 tokens) opening the system message ahead of the static billing "
          "guide, and an engineer visit window (unique) between two static parts of it; as token ids", HEAT,
          notes="the fix: the guide first, then the account's notes; the visit window at the end of the user turn")
def _meter_notes(rng: random.Random, d: Desk) -> list[Pair]:
    a_part, b_part = "\n\n".join([d.preface(), d.guide(4)]), d.guide(5)
    notes = [f"Account notes KDH-{rng.randint(1000000, 9999999)}: heat interface unit {rng.choice(['HIU-3', 'HIU-5', 'SAV-2'])}, "
             f"meter serial {hexid(rng, 10).upper()}, {d.fact()}" for _ in range(40)]
    out = []
    for i in range(rng.randint(85, 110)):
        note = rng.choice(notes)
        day, hour = rng.randint(2, 20), rng.randint(8, 16)
        window = f"Engineer visit window: {day} December, {hour:02d}:00-{hour + 2:02d}:00."
        q = d.question()
        orig = chat(i, [sys_msg(f"{UNIT}{note.replace('KDH-', 'KDH-' + MARK, 1)}\n\n{a_part}\n\nEngineer visit window:{MARK} "
                                f"{window[len('Engineer visit window: '):]}\n\n{b_part}"), user(q)])
        fixed = chat(i, [sys_msg(f"{a_part}\n\n{b_part}\n\n{note}"), user(f"{q}\n\n{window}")])
        out.append((orig, fixed))
    return out


# ---------------------------------------------------------------- clean controls


def _same(records: list[dict[str, Any]]) -> list[Pair]:
    return [(r, r) for r in records]


@workload("clean-branching-sessions", "messages", (),
          "tutoring sessions of 2-7 turns where ~20% of turns are regenerated or edited (the same history, another "
          "last message) and the session resumes from the kept branch", ACADEMY)
def _branching(rng: random.Random, d: Desk) -> list[Pair]:
    system = "\n\n".join([d.preface(), d.guide(8)])
    recs = []
    i = 0
    live: list[list[dict[str, Any]]] = [[] for _ in range(rng.randint(16, 22))]
    left = [rng.randint(2, 7) for _ in live]
    while any(left):
        c = rng.choice([k for k, n in enumerate(left) if n])
        q = d.question()
        recs.append(chat(i, [sys_msg(system)] + live[c] + [user(q)]))
        i += 1
        if rng.random() < 0.2:  # the user edits the question and sends it again
            q = d.question()
            recs.append(chat(i, [sys_msg(system)] + live[c] + [user(q)]))
            i += 1
        live[c] = live[c] + [user(q), assistant(d.answer())]
        left[c] -= 1
    return _same(recs)


@workload("clean-two-products-near-duplicate-prompts", "prompt", (),
          "two products' prompt records written from one template, interleaved: the same nine section headings and "
          "opening sentences, each product's own rules after them and its name in every section; each static, the "
          "question last", MUSIC,
          notes="no move unifies them: at most the shared openings could be, worth well under 1%")
def _near_dup(rng: random.Random, d: Desk) -> list[Pair]:
    heads = ["Scope", "Clearing a use", "Quotes", "Splits", "Territories", "Term", "Credits", "Disputes", "Closing"]
    openings = [d.rule() for _ in heads]
    prompts = {p: "\n\n".join(f"**{h} ({p}).** {o} {d.paragraph(4)}" for h, o in zip(heads, openings))
               for p in ["Mosaic Sync", "Mosaic Publishing"]}
    recs = []
    for i in range(rng.randint(80, 105)):
        p = rng.choice(list(prompts))
        recs.append(prompt(i, f"{prompts[p]}\n\nClient: {d.question()}\nCoordinator:"))
    return _same(recs)


@workload("clean-standing-charge-changes-once-ids", "input_ids", (),
          "a standing charge ~1k tokens into a 1.4k-token system prompt that changes once, at the tariff update "
          "mid-log; as token ids", HEAT,
          notes="one change costs one copy of the ~350 tokens after it: moving the value would gain ~0.5%")
def _changes_once(rng: random.Random, d: Desk) -> list[Pair]:
    head, tail = "\n\n".join([d.preface(), d.guide(7)]), d.guide(3)
    n = rng.randint(100, 120)
    cut = rng.randint(n // 3, 2 * n // 3)
    recs = [chat(i, [sys_msg(f"{head}\n\nStanding charge: {'49.8' if i < cut else '52.3'}p per day.\n\n{tail}"),
                     user(d.question())]) for i in range(n)]
    return _same(recs)


@workload("clean-long-static-long-tail-prompt", "prompt", (),
          "a 3k-token static prompt record followed by a pasted contract excerpt of 300-1,000 tokens and the question", MUSIC)
def _long_tail(rng: random.Random, d: Desk) -> list[Pair]:
    static = "\n\n".join([d.preface(), d.guide(24)])
    recs = []
    for i in range(rng.randint(20, 30)):
        doc = " ".join(d.fact() for _ in range(rng.randint(14, 45)))
        recs.append(prompt(i, f"{static}\n\nContract excerpt:\n{doc}\n\nClient: {d.question()}\nCoordinator:"))
    return _same(recs)


@workload("clean-stable-tools-string-or-parts", "messages", (),
          "six stable nested tools and a static system prompt; the user content is a string in some requests and "
          "1-3 text parts in others", BENEFITS)
def _tools_parts(rng: random.Random, d: Desk) -> list[Pair]:
    system = "\n\n".join([d.preface(), d.guide(6)])
    tools = [d.tool(n) for n in ["get_benefit_elections", "submit_life_event", "get_tariff", "book_viewing",
                                 "reset_quiz_attempt", "check_application"]]
    recs = []
    for i in range(rng.randint(75, 100)):
        if rng.random() < 0.5:
            content: Any = d.question()
        else:
            content = parts(d.question(), *[f"Attachment note: {d.fact()}" for _ in range(rng.randint(0, 2))])
        recs.append(chat(i, [sys_msg(system), {"role": "user", "content": content}], tools))
    return _same(recs)


@workload("clean-retrieved-fewshot-last-prompt", "prompt", (),
          "static instructions, then three examples retrieved per request (from 80, in score order) right before "
          "the question: their order varies, but nothing shared follows them", COUNTY)
def _fewshot_last(rng: random.Random, d: Desk) -> list[Pair]:
    static = "\n\n".join([d.preface(), d.guide(10)])
    pool = [f"Resident: {d.question()}\nCaseworker: {d.answer()}" for _ in range(80)]
    recs = []
    for i in range(rng.randint(80, 100)):
        picked = rng.sample(pool, 3)
        recs.append(prompt(i, f"{static}\n\nSimilar past cases:\n\n" + "\n\n".join(picked)
                           + f"\n\nResident: {d.question()}\nCaseworker:"))
    return _same(recs)


@workload("clean-soc-agent-loop-ids", "input_ids", (),
          "SOC agent loops of 2-6 steps with stable tools, tool calls and results appended step by step; as token ids",
          SOC)
def _agent(rng: random.Random, d: Desk) -> list[Pair]:
    system = "\n\n".join([d.preface(), d.guide(6)])
    tools = [d.tool(n) for n in ["query_siem", "isolate_host", "lookup_ioc", "open_incident"]]
    recs = []
    i = 0
    for task in range(rng.randint(16, 24)):
        msgs: list[dict[str, Any]] = [sys_msg(system), user("Triage this alert:\n" + alert(rng, d))]
        for step in range(rng.randint(2, 6)):
            recs.append(chat(i, [dict(m) for m in msgs], tools))
            i += 1
            ind = hexid(rng, 64)
            msgs.append(tool_call(f"t{task}s{step}", "lookup_ioc", {"indicator": ind, "type": "sha256"}))
            msgs.append(tool_result(f"t{task}s{step}", compact({"indicator": ind, "verdict": rng.choice(
                ["malicious", "unknown", "benign"]), "first_seen": f"2026-{rng.randint(1, 11):02d}-{rng.randint(1, 28):02d}"})))
    return _same(recs)


@workload("clean-multilingual-sessions", "messages", (),
          "a static system prompt with Turkish, Vietnamese, Polish and Indonesian rules; sessions of 1-5 turns in "
          "those languages", HEAT)
def _multilingual(rng: random.Random, d: Desk) -> list[Pair]:
    system = "\n\n".join([d.preface(), "\n".join(TURKISH), "\n".join(VIETNAMESE), "\n".join(POLISH),
                          "\n".join(INDONESIAN), d.guide(6)])
    asks = TURKISH_ASKS + VIETNAMESE_ASKS + POLISH_ASKS
    lengths = [rng.randint(1, 5) for _ in range(rng.randint(22, 30))]
    turns = [[(rng.choice(asks) + f" ({d.ref()})", d.answer()) for _ in range(k)] for k in lengths]
    recs = []
    for i, (c, t) in enumerate(conversations(rng, lengths)):
        hist = [m for q, a in turns[c][:t] for m in (user(q), assistant(a))]
        recs.append(chat(i, [sys_msg(system)] + hist + [user(turns[c][t][0])]))
    return _same(recs)


@workload("clean-alert-after-static-prompt", "prompt", (),
          "a static 1.4k-token triage prompt record, then the raw alert JSON and the question last", SOC)
def _alert_last(rng: random.Random, d: Desk) -> list[Pair]:
    static = "\n\n".join([d.preface(), "\n".join(playbooks(d)), d.guide(6)])
    recs = [prompt(i, f"{static}\n\nAlert:\n{alert(rng, d)}\n\nTriage:") for i in range(rng.randint(60, 80))]
    return _same(recs)


@workload("clean-sessions-1-to-12-ids", "input_ids", (),
          "airline controller sessions of 1 to 12 turns, interleaved, static system prompt; as token ids", AIR)
def _long_sessions(rng: random.Random, d: Desk) -> list[Pair]:
    system = "\n\n".join([d.preface(), d.guide(8)])
    lengths = [rng.choice([1, 1, 2, 3, 5, 8, 12]) for _ in range(rng.randint(14, 20))]
    turns = [[(d.question(), d.answer()) for _ in range(k)] for k in lengths]
    recs = []
    for i, (c, t) in enumerate(conversations(rng, lengths)):
        hist = [m for q, a in turns[c][:t] for m in (user(q), assistant(a))]
        recs.append(chat(i, [sys_msg(system)] + hist + [user(turns[c][t][0])]))
    return _same(recs)


@workload("clean-ab-prompts-shared-opening", "messages", (),
          "an A/B test of two system prompts that share their opening paragraph and nothing after it", REALTY)
def _ab(rng: random.Random, d: Desk) -> list[Pair]:
    opening = d.preface()
    arms = ["\n\n".join([opening, d.guide(8)]), "\n\n".join([opening, d.guide(7)])]
    recs = [chat(i, [sys_msg(rng.choice(arms)), user(d.question())]) for i in range(rng.randint(90, 115))]
    return _same(recs)
