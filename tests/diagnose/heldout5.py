"""Fifth held-out diagnosis set: defects in shapes none of the zoo and the first four held-out sets have.

Written blind to the detector (advisor/diagnose, advisor/prescribe, the zoo, its shapes and its
tests were not read): only DESIGN.md's traffic formats and the rendering the engine does were
used. It reuses the first set's machinery (tests/diagnose/heldout.py: the MARK/UNIT convention
for where requests stop sharing, rendering through the checkout under test, the brute-force
oracle, ``assemble``) and small helpers of the third and fourth sets; the text comes from its own
module (heldout5_text.py), in other domains (legal intake, insurance claims, platform operations,
tutoring, travel, pharmacy, game support, cold-chain logistics, share dealing) and languages
(Polish, Turkish, Vietnamese, Hebrew, Indonesian).

Shapes. Dynamic values: a claim number with a Luhn check digit opening a second system message;
a licence plate and a VIN of one vehicle (60 vehicles) far apart; a launcher user-agent string
(30 settings) on the first line; a booking reference injected as a tool parameter's ``default``;
an API-budget countdown in the system prompt of growing agent loops; the current time as an SQL
literal inside a history tool call's arguments; a patient's Unicode name
and birth date per growing session; an on-call name (3 shifts) in an agent loop; a METAR weather
report as the very first text of a prompt record; an ISBN (5 textbooks) on line 2; a tenant's
schema inside an SQL snippet (30 tenants); a ~300-token CSV repair estimate; a flight status
line, a loyalty tier with points; a revision hash of varying length (12 deploys) as the first
token of token-id traffic; an IMEI ~1.9k tokens deep; a dosage schedule inside a tool result; a
feature-flag JSON object (64 combinations) as a user content part; a rank tier (25 settings)
opening a second system message; live share prices. Order: sentences of one paragraph, the
``enum`` values of a tool parameter, the key order of a history tool call's arguments, CSV rows
in growing sessions, XML clause blocks, a comma-separated tag list, worked examples rotated by
day (6 orders), SQL DDL statements, bold-headed sections, a pretty-printed JSON array of fare
objects (in a prompt and in a system prompt), setext-headed Polish sections, tools in one of
two client orders, the keys of a compact JSON config in a content part, tools shuffled.
Placement: a retrieved solved problem as the first few-shot pair ahead of fixed pairs, a
client's uploaded document ahead of a late static system message, per-request shipments ahead
of static service terms inside one JSON tool result, an alert payload ahead of an agent's
runbook, a stack trace opening a prompt record, an email thread ahead of static few-shot
examples, a per-user tool ahead of static tools, a regional advisory (5 settings) ahead of the
policy in a second system message, a retrieved monograph ahead of the system prompt.
Controls: share prices already last, sessions that branch after an edited turn, two products'
prompts with a long shared head, a rate table updated once mid-log, a long pasted contract last,
stable tools with multilingual questions, SQL agent loops, Hebrew passages last, an A/B of two
tool sets, a grade level (6 settings) right after the shared prompt.

Truth: the oracle's hit rate on the traffic after the ideal fix written here, by the earlier
sets' conventions: a value with many settings goes to the end of the last user turn (in an agent
loop, of the last message); a value or block with only a few settings goes right after the
content every request shares; order fixes use one canonical order; placement fixes put the
shared content first. A per-session value in growing sessions counts as few settings per
session: it goes at the end of the system prompt, where the session's later turns keep sharing
it. The tests measure the other placement for each of these and check that the truth's is
better; for the rank tier (25 settings) the end of the user turn measured better than the end of
its system message (the questions' openings are shared across tiers), so its truth puts it there.
An ``expect`` entry "a|b" accepts either class.
"""

from __future__ import annotations

import json
import random
from typing import Any, Callable, Sequence

from tests.diagnose.heldout import (
    BASE_TIME, MARK, UNIT, Engine, Pair, Workload, assemble, assistant, chat, clock, hexid, prompt, registering,
    sys_msg, unmark, user,
)
from tests.diagnose.heldout3 import append_to_last, common_mark, conversations, first_tool_key, parts, tool_result
from tests.diagnose.heldout4 import mark_unit, shuffled, tool_call
from tests.diagnose.heldout5_text import (
    FIRST_NAMES, HEBREW, HEBREW_ASKS, INDONESIAN, LAST_NAMES, ORGS, POLISH, TURKISH, TURKISH_ASKS, VIETNAMESE,
    VIETNAMESE_ASKS, Clerk, compact, pretty,
)

Builder = Callable[[random.Random, Clerk], list[Pair]]
REGISTRY: list[tuple[str, str, tuple[str, ...], str, Builder, str]] = []
ORG_OF: dict[str, int] = {}

_register = registering(REGISTRY)
LEGAL, INSURER, PLATFORM, TUTORS, TRAVEL, PHARMACY, GAMES, COLDCHAIN, WEALTH = range(9)


def workload(name: str, kind: str, expect: tuple[str, ...], shape: str, org: int, notes: str = "") -> Callable[[Any], Any]:
    ORG_OF[name] = org
    return _register(name, kind, expect, shape, notes)


# ---------------------------------------------------------------- value makers


def luhn(digits: str) -> str:
    """The Luhn check digit of ``digits``."""
    total = 0
    for k, ch in enumerate(reversed(digits)):
        d = int(ch) * (2 if k % 2 == 0 else 1)
        total += d - 9 if d > 9 else d
    return str((10 - total % 10) % 10)


def isbn13(rng: random.Random) -> str:
    body = "978" + rng.choice(["0", "1"]) + "".join(str(rng.randrange(10)) for _ in range(8))
    check = (10 - sum(int(c) * (1 if k % 2 == 0 else 3) for k, c in enumerate(body)) % 10) % 10
    return f"{body[:3]}-{body[3]}-{body[4:8]}-{body[8:]}-{check}"


def uk_plate(rng: random.Random) -> str:
    letters = "ABCDEFGHJKLMNOPRSTUVWXY"
    return (f"{rng.choice(letters)}{rng.choice(letters)}{rng.choice(['19', '21', '22', '70', '71', '72', '24', '74'])} "
            f"{''.join(rng.choice(letters) for _ in range(3))}")


def vin(rng: random.Random) -> str:
    chars = "ABCDEFGHJKLMNPRSTUVWXYZ0123456789"
    return rng.choice(["WVW", "SAL", "VF1", "TMB", "WBA", "YV1"]) + "".join(rng.choice(chars) for _ in range(14))


def imei(rng: random.Random) -> str:
    body = rng.choice(["35", "86", "01"]) + "".join(str(rng.randrange(10)) for _ in range(12))
    return body + luhn(body)


def pnr(rng: random.Random) -> str:
    return "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(6))


STATIONS = ["EGLL", "EGKK", "LFPG", "EHAM", "LEMD", "LIRF", "EDDF", "LTFM", "VVNB", "WIII", "LLBG", "EPWA"]


def metar(rng: random.Random, ts: float) -> str:
    hh, mm = clock(ts).split(":")[:2]
    t = rng.randint(-3, 24)
    cloud = rng.choice(["FEW", "SCT", "BKN", "OVC"]) + f"{rng.randint(8, 45):03d}"
    return (f"{rng.choice(STATIONS)} 01{hh}{mm}Z {rng.randint(0, 35) * 10:03d}{rng.randint(2, 28):02d}KT "
            f"{rng.choice(['9999', '8000', '6000', 'CAVOK'])} {cloud} {'M' if t < 0 else ''}{abs(t):02d}/"
            f"{abs(t) - rng.randint(1, 6):02d} Q{rng.randint(992, 1034)}")


def person(rng: random.Random) -> str:
    return f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}"


def marked_first_tool(c: Clerk, tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``tools`` with MARK on the first tool's first rendered key and UNIT on its type."""
    key = c.first_tool_key
    tools[0]["function"][key] = MARK + tools[0]["function"][key]
    tools[0]["type"] = UNIT + tools[0]["type"]
    return tools


def sessions(rng: random.Random, n: int, lo: int, hi: int) -> tuple[list[int], list[tuple[int, int]]]:
    lengths = [rng.randint(lo, hi) for _ in range(n)]
    return lengths, conversations(rng, lengths)


# ---------------------------------------------------------------- dynamic values


@workload("claim-number-luhn-second-system", "messages", ("dynamic",),
          "a claim number with a Luhn check digit ('CLM-2026-44172093-8', unique) opening a second system message, "
          "~750 static tokens of claims notes after it in the same message", INSURER)
def _claim_second(rng: random.Random, c: Clerk) -> list[Pair]:
    first = "\n\n".join([c.preface(), c.guide(6)])
    notes = c.guide(5)
    out = []
    for i in range(rng.randint(130, 160)):
        body = f"{rng.randint(10**7, 10**8 - 1)}"
        claim = f"CLM-2026-{body}-{luhn(body)}"
        q = c.question()
        orig = chat(i, [sys_msg(first), sys_msg(f"Claim in hand: CLM-2026-{MARK}{claim[9:]}\n\n{notes}"), user(q)])
        fixed = chat(i, [sys_msg(first), sys_msg(notes), user(f"{q}\n\nClaim in hand: {claim}")])
        out.append((orig, fixed))
    return out


@workload("plate-and-vin-motor-claim", "messages", ("dynamic", "dynamic"),
          "one vehicle per request (60 vehicles): its UK licence plate ~85 tokens into the system prompt and its "
          "17-character VIN ~930 tokens in, static text after each", INSURER)
def _plate_vin(rng: random.Random, c: Clerk) -> list[Pair]:
    a, b, d = c.preface(), c.guide(7), c.guide(4)
    cars = [(uk_plate(rng), vin(rng), rng.choice(["Skoda Octavia", "Volvo XC40", "Renault Clio", "BMW 320d",
                                                  "Toyota Yaris", "Land Rover Defender"])) for _ in range(60)]
    out = []
    for i in range(rng.randint(130, 160)):
        plate, v, make = rng.choice(cars)
        q = c.question()
        orig = chat(i, [sys_msg(f"{a}\n\nVehicle on the claim:{MARK} {plate} ({make})\n\n{b}\n\n"
                                f"VIN on the policy schedule:{MARK} {v}\n\n{d}"), user(q)])
        fixed = chat(i, [sys_msg(f"{a}\n\n{b}\n\n{d}"),
                         user(f"{q}\n\nVehicle on the claim: {plate} ({make})\nVIN on the policy schedule: {v}")])
        out.append((orig, fixed))
    return out


UAS = [f"IronpeakLauncher/{v} ({os}) Chromium/{ch}"
       for v in ["5.2.1", "5.2.3", "5.3.0"]
       for os in ["Windows NT 10.0; Win64; x64", "Windows NT 11.0; Win64; x64", "Macintosh; Intel Mac OS X 14_6",
                  "X11; Linux x86_64", "Steam Deck; SteamOS 3.6"]
       for ch in ["128.0.6613.120", "131.0.6778.86"]]


@workload("launcher-user-agent-30-first-line", "messages", ("dynamic",),
          "the game launcher's user-agent string (30 settings) on the first line of a 1.7k-token system prompt",
          GAMES, notes="30 settings, ~5 requests each: the fix states it at the end of the system prompt")
def _user_agent(rng: random.Random, c: Clerk) -> list[Pair]:
    body = "\n\n".join([c.preface(), "\n".join(TURKISH), c.guide(10)])
    marked = common_mark(UAS)
    out = []
    for i in range(rng.randint(130, 160)):
        k = rng.randrange(len(UAS))
        q = c.question() if rng.random() < 0.7 else rng.choice(TURKISH_ASKS) + f" ({c.ref()})"
        orig = chat(i, [sys_msg(f"Client: {marked[k]}\n\n{body}"), user(q)])
        fixed = chat(i, [sys_msg(f"{body}\n\nClient: {UAS[k]}"), user(q)])
        out.append((orig, fixed))
    return out


@workload("pnr-as-tool-param-default", "messages", ("dynamic",),
          "the traveller's booking reference (unique) injected as the `default` of change_booking's pnr parameter, "
          "the 2nd of four tools in `tools`", TRAVEL)
def _pnr_default(rng: random.Random, c: Clerk) -> list[Pair]:
    system = "\n\n".join([c.preface(), c.guide(6)])
    names = ["search_fares", "change_booking", "seat_map", "add_bags"]
    out = []
    for i in range(rng.randint(130, 160)):
        ref = pnr(rng)
        tools = [c.tool(n) for n in names]
        plain = json.loads(json.dumps(tools))
        tools[1]["function"]["parameters"]["properties"]["pnr"]["default"] = MARK + ref
        q = c.question()
        out.append((chat(i, [sys_msg(system), user(q)], tools),
                     chat(i, [sys_msg(system), user(f"{q}\n\n(Booking reference: {ref})")], plain)))
    return out


@workload("api-budget-countdown-agent-loop", "messages", ("dynamic",),
          "growing agent loops (3-6 steps, tool calls and results) whose system prompt states the API budget left "
          "('4,812 of 5,000 calls', falls every request; the varying part is one token) ~200 tokens in", PLATFORM,
          notes="the fix appends the budget to the last message of each request")
def _budget(rng: random.Random, c: Clerk) -> list[Pair]:
    head, tail = "\n\n".join([c.preface(), c.guide(1)]), c.guide(7)
    tools = [c.tool(n) for n in ["query_metrics", "rollback_release", "run_sql"]]
    left = 4990
    out: list[Pair] = []
    i = 0
    for task in range(rng.randint(30, 34)):
        msgs: list[dict[str, Any]] = [user(c.question())]
        for step in range(rng.randint(3, 6)):
            left -= rng.randint(1, 4)
            s = f"{left:,}"
            line = f"API budget: {s[:2]}{MARK}{s[2:]} of 5,000 calls left this hour."
            orig = chat(i, [sys_msg(f"{head}\n\n{line}\n\n{tail}")] + msgs, tools)
            fixed = chat(i, append_to_last([sys_msg(f"{head}\n\n{tail}")] + msgs, unmark(line)), tools)
            out.append((orig, fixed))
            i += 1
            svc = rng.choice(["checkout", "search", "payments", "ledger", "notifications"])
            msgs.append(tool_call(f"t{task}s{step}", "query_metrics",
                                  {"promql": f'rate(http_requests_total{{service="{svc}",code=~"5.."}}[5m])',
                                   "range_minutes": rng.choice([15, 30, 60])}))
            msgs.append(tool_result(f"t{task}s{step}", compact(
                {"service": svc, "p99_ms": rng.randint(80, 2400), "error_ratio": round(rng.random() / 20, 4)})))
    return out


@workload("patient-unicode-name-growing-sessions", "messages", ("dynamic",),
          "growing pharmacy chats (2-6 turns, interleaved) whose system prompt names the session's patient with "
          "diacritics and a birth date ('Małgorzata Wróblewska, born 1957-03-14') ~900 tokens in, Hebrew guidance "
          "after it", PHARMACY,
          notes="one value per session: the fix states it at the end of the system prompt, where later turns share it")
def _patient(rng: random.Random, c: Clerk) -> list[Pair]:
    head, tail = "\n\n".join([c.preface(), c.guide(7)]), "\n\n".join(["\n".join(HEBREW), c.guide(5)])
    lengths, order = sessions(rng, 36, 2, 6)
    who = [f"{person(rng)}, born {rng.randint(1935, 2008)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
           for _ in lengths]
    turns = [[(c.question() if rng.random() < 0.75 else rng.choice(HEBREW_ASKS) + f" ({c.ref()})", c.answer()) for _ in range(n)]
             for n in lengths]
    out = []
    for i, (s, t) in enumerate(order):
        hist = [m for q, a in turns[s][:t] for m in (user(q), assistant(a))] + [user(turns[s][t][0])]
        orig = chat(i, [sys_msg(f"{head}\n\nPatient on this chat:{MARK} {who[s]}.\n\n{tail}")] + hist)
        fixed = chat(i, [sys_msg(f"{head}\n\n{tail}\n\nPatient on this chat: {who[s]}.")] + hist)
        out.append((orig, fixed))
    return out


@workload("metar-first-token-prompt", "prompt", ("dynamic",),
          "the departure airport's METAR report ('EGLL 011350Z 24012KT 9999 FEW030 09/04 Q1012', 12 stations, "
          "unique) as the very first text of a prompt record, ~1.8k static tokens after it", TRAVEL)
def _metar(rng: random.Random, c: Clerk) -> list[Pair]:
    body = "\n\n".join([c.preface(), c.guide(11)])
    out = []
    for i in range(rng.randint(130, 160)):
        ts = BASE_TIME + 37.0 * i
        m = metar(rng, ts)
        q = c.question()
        orig = prompt(i, f"{MARK}{m}\n\n{body}\n\nTraveller: {q}\nConsultant:", ts)
        fixed = prompt(i, f"{body}\n\nTraveller: {q}\nDeparture weather: {m}\nConsultant:", ts)
        out.append((orig, fixed))
    return out


TEXTBOOKS = ["Edexcel GCSE Maths Higher", "AQA A-level Physics Year 1", "OCR A-level Chemistry A",
             "Cambridge IGCSE Mathematics", "AQA GCSE Combined Science Trilogy"]


@workload("isbn-5-second-line-prompt", "prompt", ("dynamic",),
          "the course textbook with its ISBN-13 (5 textbooks) on line 2 of a 1.7k-token homework-helper prompt",
          TUTORS, notes="5 settings: the fix states the textbook after the shared prompt, before the student's line")
def _isbn(rng: random.Random, c: Clerk) -> list[Pair]:
    body = "\n\n".join([c.preface(), "\n".join(VIETNAMESE), c.guide(10)])
    books = [(t, isbn13(rng)) for t in TEXTBOOKS]
    out = []
    for i in range(rng.randint(130, 160)):
        title, code = rng.choice(books)
        q = c.question() if rng.random() < 0.7 else rng.choice(VIETNAMESE_ASKS) + f" ({c.ref()})"
        line = f"Course textbook: ISBN 978-{MARK}{code[4:]} ({title})"
        orig = prompt(i, f"Lumen Tutors homework helper\n{line}\n\n{body}\n\nStudent: {q}\nTutor:")
        fixed = prompt(i, f"Lumen Tutors homework helper\n\n{body}\n\n{unmark(line)}\n\nStudent: {q}\nTutor:")
        out.append((orig, fixed))
    return out


@workload("sql-tenant-schema-30-prompt", "prompt", ("dynamic",),
          "a saved SQL query whose FROM clause names the team's tenant schema (30 tenants) ~440 tokens into a "
          "1.3k-token platform prompt", PLATFORM,
          notes="30 settings: the fix states the query after the shared prompt, before the engineer's line")
def _sql_tenant(rng: random.Random, c: Clerk) -> list[Pair]:
    head, tail = "\n\n".join([c.preface(), c.guide(3)]), c.guide(7)
    tenants = [f"{a}_{b}" for a in ["acme", "borealis", "cobalt", "delta", "ember", "fjord"]
               for b in ["eu", "us", "apac", "staging", "sandbox"]]
    out = []
    for i in range(rng.randint(130, 160)):
        t = rng.choice(tenants)
        query = ("Saved query for this team's weekly report:\n```sql\nSELECT order_id, total_cents, created_at\n"
                 f"FROM tenant{MARK}_{t}.orders\nWHERE created_at >= now() - interval '7 days'\n"
                 "ORDER BY created_at DESC\nLIMIT 500;\n```")
        q = c.question()
        orig = prompt(i, f"{head}\n\n{query}\n\n{tail}\n\nEngineer: {q}\nAssistant:")
        fixed = prompt(i, f"{head}\n\n{tail}\n\n{unmark(query)}\n\nEngineer: {q}\nAssistant:")
        out.append((orig, fixed))
    return out


REPAIRS = ["strip out wet plaster", "replaster ceiling", "replace skirting board", "dehumidifier hire (per day)",
           "lift and relay laminate", "replace kitchen base unit", "rewire ceiling rose", "redecorate walls",
           "replace carpet underlay", "trace and access leak", "replace copper pipe section", "skip hire",
           "clean and sanitise", "replace internal door", "make good brickwork"]


@workload("repair-estimate-csv-300-prompt", "prompt", ("dynamic",),
          "a contractor's repair estimate as a CSV of 12-20 line items (~300 tokens, unique) between the handling "
          "instructions (~450 tokens) and ~1.2k tokens of static cover rules", INSURER)
def _estimate(rng: random.Random, c: Clerk) -> list[Pair]:
    instr, rules = "\n\n".join([c.preface(), c.guide(3)]), c.guide(8)
    out = []
    for i in range(rng.randint(130, 160)):
        rows = [f"{k + 1},{rng.choice(REPAIRS)},RC-{rng.randint(100, 999)},{rng.randint(1, 14)},{rng.randint(12, 900)}.00"
                for k in range(rng.randint(12, 20))]
        csv = "Contractor estimate (CSV):\nline,item,code,qty,unit_price_gbp\n" + "\n".join(rows)
        marked = csv.replace("\n1,", f"\n1{MARK},", 1)
        q = c.question()
        orig = prompt(i, f"{instr}\n\n{marked}\n\n{rules}\n\nPolicyholder: {q}\nHandler:")
        fixed = prompt(i, f"{instr}\n\n{rules}\n\nPolicyholder: {q}\n{csv}\nHandler:")
        out.append((orig, fixed))
    return out


@workload("revision-hash-first-token-ids", "input_ids", ("dynamic",),
          "the running revision as an abbreviated git hash of varying length (7-12 hex digits, 12 deploys in arrival "
          "order) as the very first text of a prompt, ~1.8k static tokens after it; as token ids", PLATFORM,
          notes="12 settings: the fix states the revision after the shared prompt, before the engineer's line")
def _revision(rng: random.Random, c: Clerk) -> list[Pair]:
    body = "\n\n".join([c.preface(), c.guide(11)])
    revs = [hexid(rng, rng.randint(7, 12)) for _ in range(12)]
    n = rng.randint(130, 160)
    out = []
    for i in range(n):
        rev = revs[i * 12 // n]
        q = c.question()
        line = f"{rev} is the revision running in production."
        orig = prompt(i, f"{MARK}{line}\n\n{body}\n\nEngineer: {q}\nAssistant:")
        fixed = prompt(i, f"{body}\n\n{line}\n\nEngineer: {q}\nAssistant:")
        out.append((orig, fixed))
    return out


@workload("imei-luhn-deep-ids", "input_ids", ("dynamic",),
          "the claimed phone's IMEI (15 digits with a Luhn check digit, unique) ~1.9k tokens into a 2.7k-token "
          "gadget-claims system prompt; as token ids", INSURER)
def _imei(rng: random.Random, c: Clerk) -> list[Pair]:
    head, tail = "\n\n".join([c.preface(), c.guide(15)]), c.guide(6)
    out = []
    for i in range(rng.randint(125, 140)):
        code = imei(rng)
        q = c.question()
        orig = chat(i, [sys_msg(f"{head}\n\nDevice on this gadget claim: IMEI {MARK}{code}\n\n{tail}"), user(q)])
        fixed = chat(i, [sys_msg(f"{head}\n\n{tail}"), user(f"{q}\n\nDevice on this gadget claim: IMEI {code}")])
        out.append((orig, fixed))
    return out


MEDICINES = [("amoxicillin", "500 mg capsule", "one capsule three times a day for 7 days"),
             ("metformin", "500 mg tablet", "one tablet twice a day with meals"),
             ("atorvastatin", "20 mg tablet", "one tablet at night"),
             ("salbutamol", "100 mcg inhaler", "two puffs when needed, up to four times a day"),
             ("sertraline", "50 mg tablet", "one tablet in the morning"),
             ("levothyroxine", "75 mcg tablet", "one tablet before breakfast"),
             ("ramipril", "5 mg capsule", "one capsule once a day"),
             ("omeprazole", "20 mg capsule", "one capsule before breakfast for 28 days")]


@workload("dosage-schedule-tool-result-ids", "input_ids", ("dynamic",),
          "an agent's fixed first step (get_prescription) whose JSON tool result opens with the patient's prescription "
          "number and dosage schedule (~70 tokens, unique) before a ~500-token static monograph; the question comes "
          "last; tools present; as token ids", PHARMACY)
def _dosage(rng: random.Random, c: Clerk) -> list[Pair]:
    system = "\n\n".join([c.preface(), c.guide(6)])
    tools = [c.tool(n) for n in ["get_prescription", "order_repeat", "check_stock"]]
    monograph = " ".join(c.sentences(18))
    call = tool_call("call_rx", "get_prescription", {"rx_number": "on file"})
    out = []
    for i in range(rng.randint(130, 160)):
        rx = f"RX-{rng.randint(10**6, 10**7 - 1)}"
        items = [{"medicine": m, "strength": s, "dose": d} for m, s, d in rng.sample(MEDICINES, rng.randint(1, 3))]
        res = json.dumps({"rx_number": rx[:3] + MARK + rx[3:], "items": items, "guidance": monograph}, ensure_ascii=False)
        plain = json.dumps({"guidance": monograph}, ensure_ascii=False)
        q = c.question()
        head = [sys_msg(system), user("Please pull up my prescription first.")]
        orig = chat(i, head + [call, tool_result("call_rx", res), user(q)], tools)
        fixed = chat(i, head + [call, tool_result("call_rx", plain),
                                user(f"{q}\n\n(Prescription {rx}: {compact(items)})")], tools)
        out.append((orig, fixed))
    return out


@workload("feature-flags-json-part-ids", "input_ids", ("dynamic",),
          "the client's feature flags as a compact JSON object of six booleans (64 combinations) in the 2nd of four "
          "user content parts, between ~900 static tokens of instructions and ~750 of FAQ; as token ids", GAMES)
def _flags(rng: random.Random, c: Clerk) -> list[Pair]:
    system = c.preface()
    instr, faq = c.guide(6), c.guide(5)
    names = ["new_lobby", "voice_v2", "crossplay", "hdr_ui", "replay_upload", "beta_store"]
    out = []
    for i in range(rng.randint(130, 160)):
        flags = {n: rng.random() < 0.5 for n in names}
        text = "Client feature flags: " + compact(flags)
        marked = text.replace('{"new_lobby":', '{"new_lobby":' + MARK, 1)
        q = c.question()
        orig = chat(i, [sys_msg(system), {"role": "user", "content": parts(instr, marked, faq, q)}])
        fixed = chat(i, [sys_msg(system), {"role": "user", "content": parts(instr, faq, q, text)}])
        out.append((orig, fixed))
    return out


@workload("sql-now-literal-in-tool-call-args-ids", "input_ids", ("dynamic",),
          "an agent's fixed first step whose run_sql arguments carry the client's current time as an SQL literal "
          "('... deleted_at > TIMESTAMP '2026-12-01 14:05:17''); the ~450-token service catalogue it returns is "
          "static; the question comes last; tools present; as token ids", PLATFORM,
          notes="the fix runs the query without the literal and states the time at the end of the user turn")
def _sql_now(rng: random.Random, c: Clerk) -> list[Pair]:
    system = "\n\n".join([c.preface(), c.guide(5)])
    tools = [c.tool(n) for n in ["run_sql", "query_metrics", "rollback_release"]]
    local = random.Random(f"{c.name}/catalogue")
    rows = [[f"{a}-{b}", local.choice(["payments", "growth", "identity", "data", "core"]), local.randint(1, 3),
             local.choice(["go", "python", "kotlin", "rust"])]
            for a in ["checkout", "search", "ledger", "notify", "auth", "export"] for b in ["api", "worker", "cron"]]
    result = compact({"columns": ["name", "team", "tier", "language"], "rows": rows})
    base = "SELECT name, team, tier, language FROM services WHERE deleted_at IS NULL"
    out = []
    for i in range(rng.randint(130, 160)):
        now = f"2026-12-01 {clock(BASE_TIME + 37.0 * i + rng.uniform(0, 30))}"
        sql = f"{base} OR deleted_at > TIMESTAMP '2026-12-01 {MARK}{now[11:]}' ORDER BY name"
        q = c.question()
        head = [sys_msg(system), user("List the live services first, then I'll ask my question.")]
        orig = chat(i, head + [tool_call("call_sql", "run_sql", {"sql": sql, "timeout_s": 10}),
                               tool_result("call_sql", result), user(q)], tools)
        fixed = chat(i, head + [tool_call("call_sql", "run_sql", {"sql": f"{base} ORDER BY name", "timeout_s": 10}),
                                tool_result("call_sql", result), user(f"{q}\n\n(Services as of {now} UTC.)")], tools)
        out.append((orig, fixed))
    return out


TIERS = [f"{m} {d}" for m in ["Iron", "Bronze", "Silver", "Gold", "Platinum"] for d in ["V", "IV", "III", "II", "I"]]


@workload("rank-tier-25-second-system-ids", "input_ids", ("dynamic",),
          "a second system message of ranked-mode rules opening with the player's rank tier (25 settings), ~680 "
          "tokens in, ~750 static tokens after it in the same message; as token ids", GAMES,
          notes="25 settings: the fix states the tier at the end of the user turn, which measures better than the end "
          "of the second system message (the questions' openings are shared across tiers)")
def _rank(rng: random.Random, c: Clerk) -> list[Pair]:
    first = "\n\n".join([c.preface(), c.guide(5)])
    ranked = c.guide(6)
    out = []
    for i in range(rng.randint(130, 160)):
        tier = rng.choice(TIERS)
        q = c.question() if rng.random() < 0.7 else rng.choice(TURKISH_ASKS) + f" ({c.ref()})"
        orig = chat(i, [sys_msg(first), sys_msg(f"Ranked context: the player is{MARK} {tier}.\n\n{ranked}"), user(q)])
        fixed = chat(i, [sys_msg(first), sys_msg(ranked), user(f"{q}\n\nRanked context: the player is {tier}.")])
        out.append((orig, fixed))
    return out


# ---------------------------------------------------------------- order


@workload("sentences-shuffled-fare-paragraph", "messages", ("order",),
          "the nine sentences of one 'fare conditions' paragraph in a different order per request (a set joined), "
          "~300 tokens into the system prompt, ~1.2k static tokens after it", TRAVEL)
def _sentences(rng: random.Random, c: Clerk) -> list[Pair]:
    head, tail = "\n\n".join([c.preface(), c.guide(2)]), c.guide(8)
    sents = c.sentences(9)
    out = []
    for i in range(rng.randint(130, 160)):
        order, canon = shuffled(rng, sents)
        q = c.question()
        orig = chat(i, [sys_msg(f"{head}\n\nFare conditions: " + " ".join(order) + f"\n\n{tail}"), user(q)])
        fixed = chat(i, [sys_msg(f"{head}\n\nFare conditions: " + " ".join(canon) + f"\n\n{tail}"), user(q)])
        out.append((orig, fixed))
    return out


FORMS = ["tablet", "capsule", "oral solution", "patch", "inhaler", "cream", "eye drops", "injection"]


@workload("dosage-form-enum-shuffled-in-tool", "messages", ("order",),
          "the eight `enum` values of check_stock's form parameter (a set) in a different order per request; "
          "check_stock is the 2nd of five tools in `tools`", PHARMACY)
def _enum(rng: random.Random, c: Clerk) -> list[Pair]:
    system = "\n\n".join([c.preface(), c.guide(6)])
    names = ["order_repeat", "check_stock", "get_prescription", "find_branch", "report_side_effect"]
    out = []
    for i in range(rng.randint(130, 160)):
        order = list(FORMS)
        rng.shuffle(order)
        tools = [c.tool(n) for n in names]
        plain = json.loads(json.dumps(tools))
        tools[1]["function"]["parameters"]["properties"]["form"]["enum"] = [MARK + order[0]] + order[1:]
        plain[1]["function"]["parameters"]["properties"]["form"]["enum"] = list(FORMS)
        q = c.question()
        out.append((chat(i, [sys_msg(system), user(q)], tools), chat(i, [sys_msg(system), user(q)], plain)))
    return out


@workload("tool-call-args-key-order-history", "messages", ("order",),
          "an agent's fixed first step whose tool-call arguments (six keys) are serialized in a different key order "
          "per request; a ~500-token static tool result follows; tools present", GAMES)
def _args_order(rng: random.Random, c: Clerk) -> list[Pair]:
    system = "\n\n".join([c.preface(), c.guide(5)])
    tools = [c.tool(n) for n in ["lookup_player", "grant_item", "fetch_match"]]
    args = {"player_id": "7718203344", "include_matches": True, "region": "eu-west", "platform": "pc",
            "locale": "tr-TR", "fields": ["sanctions", "inventory", "matches"]}
    result = compact({"player_id": "7718203344", "display_name": "Şükrü Öztürk", "notes": " ".join(c.sentences(16))})
    out = []
    for i in range(rng.randint(130, 160)):
        keys = list(args)
        rng.shuffle(keys)
        marked = {(MARK + k if j == 0 else k): args[k] for j, k in enumerate(keys)}
        q = c.question()
        head = [sys_msg(system), user("My items vanished after the last match, please check my account.")]
        orig = chat(i, head + [tool_call("call_lp", "lookup_player", marked), tool_result("call_lp", result), user(q)], tools)
        fixed = chat(i, head + [tool_call("call_lp", "lookup_player", args), tool_result("call_lp", result), user(q)], tools)
        out.append((orig, fixed))
    return out


def _depots(c: Clerk) -> list[str]:
    local = random.Random(f"{c.name}/depots")
    cities = [("BHX", "Birmingham"), ("MAN", "Manchester"), ("LBA", "Leeds"), ("BRS", "Bristol"), ("NCL", "Newcastle"),
              ("GLA", "Glasgow"), ("EDI", "Edinburgh"), ("CWL", "Cardiff"), ("EMA", "Derby"), ("LPL", "Liverpool"),
              ("SOU", "Southampton"), ("NWI", "Norwich"), ("EXT", "Exeter"), ("ABZ", "Aberdeen"), ("BFS", "Belfast"),
              ("LTN", "Luton"), ("STN", "Harlow"), ("HUY", "Hull")]
    return [f"{code},{city},{local.choice(['16:30', '17:00', '18:30', '20:00'])},{local.randint(120, 900)},"
            f"{local.choice(['yes', 'no'])}" for code, city in cities]


@workload("depot-csv-rows-shuffled-growing", "messages", ("order",),
          "18 CSV rows of depots in a different order per request (rebuilt from a dict) ~300 tokens into the system "
          "prompt of growing chats (2-6 turns, interleaved)", COLDCHAIN)
def _depot_rows(rng: random.Random, c: Clerk) -> list[Pair]:
    head = "\n\n".join([c.preface(), "\n".join(INDONESIAN), c.guide(1)])
    tail = c.guide(7)
    rows = _depots(c)
    lengths, order_ = sessions(rng, 34, 2, 6)
    turns = [[(c.question(), c.answer()) for _ in range(n)] for n in lengths]
    out = []
    for i, (s, t) in enumerate(order_):
        order, canon = shuffled(rng, rows)
        hist = [m for q, a in turns[s][:t] for m in (user(q), assistant(a))] + [user(turns[s][t][0])]
        csv = "Depots (CSV):\n```csv\ncode,city,cut_off,reefer_pallets,frozen\n"
        orig = chat(i, [sys_msg(f"{head}\n\n{csv}" + "\n".join(order) + f"\n```\n\n{tail}")] + hist)
        fixed = chat(i, [sys_msg(f"{head}\n\n{csv}" + "\n".join(canon) + f"\n```\n\n{tail}")] + hist)
        out.append((orig, fixed))
    return out


@workload("xml-clause-blocks-shuffled-prompt", "prompt", ("order",),
          "eight <clause id=... title=...> blocks of a model tenancy agreement in a different order per request after "
          "the preface of a prompt record", LEGAL)
def _clauses(rng: random.Random, c: Clerk) -> list[Pair]:
    pre, rest = c.preface(), c.guide(9)
    titles = ["Rent", "Deposit", "Repairs", "Access", "Subletting", "Notice", "Pets", "Utilities"]
    blocks = [f'<clause id="C-{k + 1:02d}" title="{t}">\n{c.paragraph(3)}\n</clause>' for k, t in enumerate(titles)]
    out = []
    for i in range(rng.randint(130, 160)):
        order, canon = shuffled(rng, blocks)
        q = c.question()
        orig = prompt(i, f"{pre}\n\n<agreement>\n" + "\n".join(order) + f"\n</agreement>\n\n{rest}\n\nClient: {q}\nParalegal:")
        fixed = prompt(i, f"{pre}\n\n<agreement>\n" + "\n".join(canon) + f"\n</agreement>\n\n{rest}\n\nClient: {q}\nParalegal:")
        out.append((orig, fixed))
    return out


TAGS = ["matchmaking", "voice-chat", "anti-cheat", "store", "launcher", "ranked", "servers-eu", "servers-na",
        "cosmetics", "account-link", "crash-on-start", "season-pass"]


@workload("issue-tag-list-order-prompt", "prompt", ("order",),
          "twelve comma-separated known-issue tags (units of 1-4 tokens) in a different order per request on line 2 "
          "of a 1.8k-token prompt record", GAMES)
def _tags(rng: random.Random, c: Clerk) -> list[Pair]:
    body = "\n\n".join([c.preface(), c.guide(11)])
    out = []
    for i in range(rng.randint(130, 160)):
        order, canon = shuffled(rng, TAGS)
        q = c.question()
        orig = prompt(i, "Ironpeak support console\nOpen issue tags: " + ", ".join(order) + f"\n\n{body}\n\nPlayer: {q}\nAgent:")
        fixed = prompt(i, "Ironpeak support console\nOpen issue tags: " + ", ".join(canon) + f"\n\n{body}\n\nPlayer: {q}\nAgent:")
        out.append((orig, fixed))
    return out


@workload("worked-examples-rotated-daily-prompt", "prompt", ("order",),
          "six worked examples (Problem/Solution) rotated by one place each day over six days (6 orders) after the "
          "preface; ~1.2k static tokens after them", TUTORS)
def _rotated(rng: random.Random, c: Clerk) -> list[Pair]:
    pre, rest = c.preface(), c.guide(8)
    topics = ["simultaneous equations", "circle theorems", "moles", "Newton's second law", "probability trees", "surds"]
    examples = [f"Problem ({t}): {c.rule()}\nSolution: {c.paragraph(2)}" for t in topics]
    n = rng.randint(130, 160)
    times = sorted(BASE_TIME + rng.uniform(0, 6 * 86400) for _ in range(n))
    out = []
    for i, ts in enumerate(times):
        day = int((ts - BASE_TIME) // 86400)
        order = examples[day:] + examples[:day]
        order[0] = mark_unit(order[0], [x for x in examples if x != order[0]])
        q = c.question() if rng.random() < 0.7 else rng.choice(VIETNAMESE_ASKS) + f" ({c.ref()})"
        orig = prompt(i, f"{pre}\n\n" + "\n\n".join(order) + f"\n\n{rest}\n\nStudent: {q}\nTutor:", ts)
        fixed = prompt(i, f"{pre}\n\n" + "\n\n".join(examples) + f"\n\n{rest}\n\nStudent: {q}\nTutor:", ts)
        out.append((orig, fixed))
    return out


def _ddl(c: Clerk) -> list[str]:
    local = random.Random(f"{c.name}/ddl")
    tables = {"deploys": ["service text", "revision text", "started_at timestamptz", "status text"],
              "incidents": ["severity smallint", "opened_at timestamptz", "commander text", "summary text"],
              "alerts": ["rule text", "fired_at timestamptz", "labels jsonb", "resolved boolean"],
              "services": ["name text", "team text", "tier smallint", "repo text"],
              "quotas": ["team text", "cpu_cores numeric", "memory_gib numeric", "updated_at timestamptz"],
              "certificates": ["domain text", "issuer text", "expires_at timestamptz", "auto_renew boolean"],
              "changes": ["ticket text", "approved_by text", "window_start timestamptz", "risk text"],
              "oncall": ["engineer text", "rota text", "starts_at timestamptz", "ends_at timestamptz"]}
    return [f"CREATE TABLE {t} (\n  id bigserial PRIMARY KEY,\n  " + ",\n  ".join(cols)
            + ",\n  created_at timestamptz NOT NULL DEFAULT now()\n);  -- "
            + local.choice(["partitioned by month", "small", "append-only", "audited"])
            for t, cols in tables.items()]


@workload("sql-ddl-statements-shuffled-prompt", "prompt", ("order",),
          "eight CREATE TABLE statements of the reporting schema in a different order per request (dumped from a "
          "dict) in an SQL block after the preface; ~1.2k static tokens after them", PLATFORM)
def _ddl_wl(rng: random.Random, c: Clerk) -> list[Pair]:
    pre, rest = c.preface(), c.guide(8)
    stmts = _ddl(c)
    out = []
    for i in range(rng.randint(130, 160)):
        order, canon = shuffled(rng, stmts)
        q = c.question()
        orig = prompt(i, f"{pre}\n\nReporting schema:\n```sql\n" + "\n\n".join(order) + f"\n```\n\n{rest}\n\nEngineer: {q}\nAssistant:")
        fixed = prompt(i, f"{pre}\n\nReporting schema:\n```sql\n" + "\n\n".join(canon) + f"\n```\n\n{rest}\n\nEngineer: {q}\nAssistant:")
        out.append((orig, fixed))
    return out


FARES = [("YFLEX", "economy", True, 0), ("BSAVER", "economy", False, 75), ("MSEMI", "economy", True, 40),
         ("QLITE", "economy", False, 0), ("KSTD", "premium", True, 60), ("HPLUS", "premium", True, 0),
         ("WBASIC", "economy", False, 90), ("JBIZ", "business", True, 0), ("DSALE", "business", False, 150)]


def _fare_objects(c: Clerk, n: int) -> list[dict[str, Any]]:
    return [{"fare_basis": code, "cabin": cabin, "refundable": refundable, "change_fee_gbp": fee, "note": c.rule()}
            for code, cabin, refundable, fee in FARES[:n]]


def _marked_array(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = json.loads(json.dumps(objects, ensure_ascii=False))
    out[0]["fare_basis"] = MARK + out[0]["fare_basis"]
    return out


@workload("fare-rules-pretty-json-array-ids", "input_ids", ("order",),
          "a pretty-printed JSON array of nine fare objects in a different order per request inside the system "
          "prompt, ~350 tokens in, ~1.2k static tokens after it; as token ids", TRAVEL)
def _fares(rng: random.Random, c: Clerk) -> list[Pair]:
    head, tail = "\n\n".join([c.preface(), c.guide(2)]), c.guide(8)
    fares = _fare_objects(c, 9)
    out = []
    for i in range(rng.randint(130, 160)):
        order = list(fares)
        rng.shuffle(order)
        q = c.question()
        orig = chat(i, [sys_msg(f"{head}\n\nFare rules:\n```json\n{pretty(_marked_array(order))}\n```\n\n{tail}"), user(q)])
        fixed = chat(i, [sys_msg(f"{head}\n\nFare rules:\n```json\n{pretty(fares)}\n```\n\n{tail}"), user(q)])
        out.append((orig, fixed))
    return out


POLISH_TITLES = ["Zgłoszenie szkody", "Weryfikacja klienta", "Wypłaty odszkodowań", "Rzeczoznawcy", "Reklamacje",
                 "Dane osobowe"]


@workload("setext-sections-polish-ids", "input_ids", ("order",),
          "six setext-headed sections (title underlined with '-') of a Polish claims handbook in a different order "
          "per request after the preface; as token ids", INSURER)
def _setext(rng: random.Random, c: Clerk) -> list[Pair]:
    pre, tail = c.preface(), c.guide(6)
    sections = [f"{t}\n{'-' * len(t)}\n{POLISH[k]}{' ' + POLISH[6 + k] if k < 2 else ''} {c.paragraph(4)}"
                for k, t in enumerate(POLISH_TITLES)]
    out = []
    for i in range(rng.randint(130, 160)):
        order, canon = shuffled(rng, sections)
        q = c.question()
        orig = chat(i, [sys_msg(f"{pre}\n\n" + "\n\n".join(order) + f"\n\n{tail}"), user(q)])
        fixed = chat(i, [sys_msg(f"{pre}\n\n" + "\n\n".join(canon) + f"\n\n{tail}"), user(q)])
        out.append((orig, fixed))
    return out


PHARMACY_TOOLS = ["get_prescription", "order_repeat", "check_stock", "book_vaccination", "find_branch",
                  "report_side_effect", "check_exemption"]


@workload("tools-two-client-orders-ids", "input_ids", ("order",),
          "seven tools in `tools` in one of two orders (two app builds: registration order and alphabetical), "
          "behind a 1.2k-token system prompt; as token ids", PHARMACY,
          notes="2 orders: the fix sends every request the registration order")
def _two_orders(rng: random.Random, c: Clerk) -> list[Pair]:
    system = "\n\n".join([c.preface(), c.guide(8)])
    out = []
    for i in range(rng.randint(130, 160)):
        names = sorted(PHARMACY_TOOLS) if rng.random() < 0.5 else list(PHARMACY_TOOLS)
        q = c.question()
        tools = marked_first_tool(c, [c.tool(n) for n in names])
        out.append((chat(i, [sys_msg(system), user(q)], tools),
                    chat(i, [sys_msg(system), user(q)], [c.tool(n) for n in PHARMACY_TOOLS])))
    return out


@workload("service-config-compact-keys-part-ids", "input_ids", ("order",),
          "the depot's static service configuration as a compact JSON object of 16 keys, serialized in a different "
          "key order per request, as the first user content part before a ~900-token static part and the question; "
          "as token ids", COLDCHAIN)
def _config_keys(rng: random.Random, c: Clerk) -> list[Pair]:
    system = "\n\n".join([c.preface(), "\n".join(INDONESIAN), c.guide(2)])
    guide = c.guide(6)
    config = {"depot": "NSC-BHX", "chilled_min_c": 2, "chilled_max_c": 8, "frozen_max_c": -18, "dock_doors": 14,
              "cut_off": "18:30", "weekend_collections": True, "hazmat": False, "pharma_gdp": True,
              "max_pallet_kg": 1000, "pallet_height_cm": 180, "booking_lead_hours": 24, "tail_lift": True,
              "pod_format": "photo+signature", "excursion_alert_minutes": 15, "contact": "bhx.ops@northstar.example"}
    keys = list(config)
    out = []
    for i in range(rng.randint(130, 160)):
        order = list(keys)
        rng.shuffle(order)
        text = "Depot configuration: " + compact({k: config[k] for k in order})
        marked = text.replace('{"', UNIT + '{"' + MARK, 1)
        q = c.question()
        orig = chat(i, [sys_msg(system), {"role": "user", "content": parts(marked, guide, q)}])
        fixed = chat(i, [sys_msg(system), {"role": "user", "content": parts("Depot configuration: " + compact(config),
                                                                            guide, q)}])
        out.append((orig, fixed))
    return out


# ---------------------------------------------------------------- per-request content before shared content


@workload("retrieved-shot-before-fixed-shots", "messages", ("placement",),
          "a retrieved solved problem (from 60) sent as the first few-shot user/assistant pair, ahead of five fixed "
          "few-shot pairs (~700 tokens); the real question last", TUTORS)
def _shot_first(rng: random.Random, c: Clerk) -> list[Pair]:
    system = "\n\n".join([c.preface(), c.guide(8)])
    fixed_shots = [m for _ in range(5) for m in (user(c.question()), assistant(c.paragraph(3)))]
    topics = list(c.org.topics)
    corpus = [(f"Similar solved problem ({topics[k % 10]}, #{k + 1}): {c.doc('problem', k, 3)}", c.doc("solution", k, 4))
              for k in range(60)]
    out = []
    for i in range(rng.randint(130, 160)):
        p, s = corpus[rng.randrange(60)]
        q = c.question()
        marked = UNIT + p.replace("Similar solved problem (", f"Similar solved problem ({MARK}", 1)
        orig = chat(i, [sys_msg(system), user(marked), assistant(s)] + fixed_shots + [user(q)])
        fixed = chat(i, [sys_msg(system)] + fixed_shots + [user(p), assistant(s), user(q)])
        out.append((orig, fixed))
    return out


@workload("late-system-after-upload", "messages", ("placement",),
          "the client's uploaded document (~300 tokens, unique) as the first user message, ahead of a late ~2k-token "
          "static system message of intake instructions; the question last", LEGAL)
def _late_system(rng: random.Random, c: Clerk) -> list[Pair]:
    opener = f"You are the intake assistant of {c.name}. Read the client's document, then follow the intake instructions."
    instructions = "\n\n".join([c.preface(), c.guide(12)])
    out = []
    for i in range(rng.randint(130, 160)):
        doc = c.doc("upload", rng.randrange(10**6), 12)
        q = c.question()
        kind = rng.choice(["tenancy agreement", "dismissal letter", "receipt and warranty", "payslip query"])
        up = f"Uploaded document ({kind}):\n\n{doc}"
        orig = chat(i, [sys_msg(opener), user(UNIT + up.replace("Uploaded document (", f"Uploaded document ({MARK}", 1)),
                        sys_msg(instructions), user(q)])
        fixed = chat(i, [sys_msg(opener), sys_msg(instructions), user(up), user(q)])
        out.append((orig, fixed))
    return out


@workload("shipments-before-terms-in-tool-result", "messages", ("placement",),
          "an agent's fixed first step (account_overview) whose JSON tool result lists the customer's open shipments "
          "(~150 tokens, per request) ahead of ~800 tokens of static service terms in the same object", COLDCHAIN)
def _shipments_first(rng: random.Random, c: Clerk) -> list[Pair]:
    system = "\n\n".join([c.preface(), c.guide(5)])
    tools = [c.tool(n) for n in ["account_overview", "track_shipment", "book_collection"]]
    terms = " ".join(c.sentences(28))
    call = tool_call("call_ao", "account_overview", {"scope": "open_shipments"})
    out = []
    for i in range(rng.randint(130, 160)):
        ships = [{"shipment_id": f"NSC-2026-{rng.randint(10**6, 10**7 - 1)}", "status": rng.choice(
            ["collected", "at depot", "out for delivery", "held: temperature check"]), "setpoint_c": rng.choice([-18, 2, 5]),
                  "pallets": rng.randint(1, 26)} for _ in range(rng.randint(2, 4))]
        marked = json.loads(json.dumps(ships))
        marked[0]["shipment_id"] = "NSC-2026-" + MARK + marked[0]["shipment_id"][9:]
        res = json.dumps({"open_shipments": marked, "service_terms": terms}, ensure_ascii=False)
        plain = json.dumps({"service_terms": terms, "open_shipments": ships}, ensure_ascii=False)
        q = c.question()
        head = [sys_msg(system), user("Check my account first, please.")]
        orig = chat(i, head + [call, tool_result("call_ao", UNIT + res), user(q)], tools)
        fixed = chat(i, head + [call, tool_result("call_ao", plain), user(q)], tools)
        out.append((orig, fixed))
    return out


ALERTS = ["KubePodCrashLooping", "HighErrorRate", "CertificateExpiringSoon", "DiskPressure", "SlowQueries",
          "NodeNotReady", "ReplicationLag", "QuotaNearlyExhausted"]
ONCALL = ["Ayşe Yıldız", "Wiktor Szczepański", "Kofi Mensah"]


@workload("alert-first-oncall-3-agent-loop", "messages", ("placement", "dynamic"),
          "growing incident agent loops (3-6 steps): the system message opens with the alert payload (per incident), "
          "ahead of a ~1.5k-token static runbook whose middle names the on-call engineer (3 shifts)", PLATFORM,
          notes="the fix sends the runbook first, then the on-call line (3 settings), then the alert")
def _alert_first(rng: random.Random, c: Clerk) -> list[Pair]:
    a, b = "\n\n".join([c.preface(), c.guide(4)]), c.guide(5)
    tools = [c.tool(n) for n in ["query_metrics", "rollback_release", "run_sql"]]
    tasks = rng.randint(30, 34)
    out: list[Pair] = []
    i = 0
    for task in range(tasks):
        alert = compact({"alertname": rng.choice(ALERTS), "namespace": rng.choice(["payments", "search", "identity"]),
                         "pod": f"{rng.choice(['api', 'worker', 'gateway'])}-{hexid(rng, 9)}-{hexid(rng, 5)}",
                         "value": round(rng.uniform(0.5, 99), 2), "startsAt": f"2026-12-01T{clock(BASE_TIME + 300 * task)}Z"})
        block = f"Alert payload:\n{alert}"
        marked = UNIT + block.replace('{"alertname":"', '{"alertname":"' + MARK, 1)
        who = ONCALL[task * 3 // tasks]
        msgs: list[dict[str, Any]] = [user(c.question())]
        for step in range(rng.randint(3, 6)):
            orig = chat(i, [sys_msg(f"{marked}\n\n{a}\n\nOn-call this shift:{MARK} {who}\n\n{b}")] + msgs, tools)
            fixed = chat(i, [sys_msg(f"{a}\n\n{b}\n\nOn-call this shift: {who}\n\n{block}")] + msgs, tools)
            out.append((orig, fixed))
            i += 1
            ns = rng.choice(["payments", "search"])
            msgs.append(tool_call(f"a{task}s{step}", "query_metrics",
                                  {"promql": f'kube_pod_container_status_restarts_total{{namespace="{ns}"}}',
                                   "range_minutes": 30}))
            msgs.append(tool_result(f"a{task}s{step}", compact({"restarts": rng.randint(0, 40), "window": "30m"})))
    return out


def _traceback(rng: random.Random) -> str:
    svc = rng.choice(["checkout", "ledger", "notifications", "search", "identity"])
    frames = []
    for _ in range(rng.randint(6, 11)):
        mod = rng.choice(["handlers", "db/session", "clients/http", "models", "workers/queue", "cache"])
        fn = rng.choice(["handle", "execute", "fetch", "commit", "retry", "serialize", "dispatch"])
        frames.append(f'  File "/srv/{svc}/app/{mod}.py", line {rng.randint(12, 900)}, in {fn}_{hexid(rng, 4)}\n'
                      f"    {rng.choice(['result = await', 'row = self.', 'resp = client.', 'return self.'])}"
                      f"{fn}(ctx, timeout={rng.choice([1, 5, 30])})  # at 0x7f{hexid(rng, 10)}")
    err = rng.choice(["TimeoutError: deadline exceeded", "psycopg.OperationalError: server closed the connection",
                      "KeyError: 'tenant_id'", "ConnectionResetError: [Errno 104] Connection reset by peer"])
    return "Traceback (most recent call last):\n" + "\n".join(frames) + f"\n{err}"


@workload("stack-trace-before-runbook-prompt", "prompt", ("placement",),
          "a per-request Python stack trace (~250 tokens, hex addresses) opening a prompt record, ahead of a ~2k-token "
          "static runbook", PLATFORM)
def _trace_first(rng: random.Random, c: Clerk) -> list[Pair]:
    runbook = "\n\n".join([c.preface(), c.guide(12)])
    out = []
    for i in range(rng.randint(130, 160)):
        tb = _traceback(rng)
        marked = UNIT + tb.replace('last):\n  File "/srv/', f'last):\n  File "/srv{MARK}/', 1)
        orig = prompt(i, f"{marked}\n\n{runbook}\n\nWhat should I check first?\nAnswer:")
        fixed = prompt(i, f"{runbook}\n\n{tb}\n\nWhat should I check first?\nAnswer:")
        out.append((orig, fixed))
    return out


@workload("email-thread-before-fewshot-prompt", "prompt", ("placement",),
          "a client's email thread (~200 tokens, unique) after a one-line header, ahead of ~1.4k tokens of static "
          "labelling rules and six labelled examples; a prompt record", LEGAL)
def _email_first(rng: random.Random, c: Clerk) -> list[Pair]:
    header = "Label the client's email for the intake queue."
    labels = ["employment", "housing", "consumer", "not legal", "urgent deadline", "conflict check needed"]
    static = "\n\n".join([c.guide(5)] + [f"Example email: {c.paragraph(3)}\nLabel: {lab}" for lab in labels])
    out = []
    for i in range(rng.randint(130, 160)):
        who = person(rng)
        thread = (f"From: {who} <{hexid(rng, 6)}@mail.example>\nDate: 1 Dec 2026 {clock(BASE_TIME + 41 * i)}\n"
                  f"Subject: {c.question()}\n\n{c.paragraph(4)}")
        marked = UNIT + thread.replace("From: ", f"From:{MARK} ", 1)
        orig = prompt(i, f"{header}\n\nEmail thread:\n{marked}\n\n{static}\n\nLabel:")
        fixed = prompt(i, f"{header}\n\n{static}\n\nEmail thread:\n{thread}\n\nLabel:")
        out.append((orig, fixed))
    return out


GAME_TOOLS = ["lookup_player", "grant_item", "fetch_match", "file_ban_appeal", "refund_purchase", "check_server_status",
              "reset_mfa", "report_cheater"]


@workload("per-user-tool-first-ids", "input_ids", ("placement",),
          "a per-player tool (equip_saved_loadout, its description listing the player's saved loadouts, 60 players) "
          "ahead of eight static tools in `tools`; as token ids", GAMES)
def _user_tool(rng: random.Random, c: Clerk) -> list[Pair]:
    system = "\n\n".join([c.preface(), c.guide(6)])
    loadouts = []
    for _ in range(60):
        kits = ", ".join(f"'{rng.choice(['Ember', 'Frost', 'Viper', 'Atlas', 'Nomad'])} {rng.choice(['Rush', 'Guard', 'Scout'])}"
                         f" {rng.randint(1, 9)}' ({rng.choice(['rifle', 'shotgun', 'bow', 'smg'])})" for _ in range(rng.randint(3, 6)))
        loadouts.append(f"Equip one of {person(rng)}'s saved loadouts: {kits}.")
    static = [c.tool(n) for n in GAME_TOOLS]
    out = []
    for i in range(rng.randint(130, 160)):
        desc = rng.choice(loadouts)
        own = {"type": "function", "function": {"name": "equip_saved_loadout", "description": desc, "parameters": {
            "type": "object", "properties": {"loadout": {"type": "string", "description": "Loadout name."}},
            "required": ["loadout"]}}}
        marked = json.loads(json.dumps(own, ensure_ascii=False))
        marked["type"] = UNIT + marked["type"]
        # The name is the same for every player: requests part in the description, wherever it renders.
        marked["function"]["description"] = desc.replace("Equip one of ", f"Equip one of{MARK} ", 1)
        q = c.question() if rng.random() < 0.7 else rng.choice(TURKISH_ASKS) + f" ({c.ref()})"
        out.append((chat(i, [sys_msg(system), user(q)], [marked] + static),
                    chat(i, [sys_msg(system), user(q)], static + [own])))
    return out


@workload("advisory-5-before-policy-second-system-ids", "input_ids", ("placement|dynamic",),
          "a second system message opening with the destination region's travel advisory (5 regions, ~200 tokens), "
          "ahead of a ~1.8k-token static travel policy in the same message; as token ids", TRAVEL,
          notes="5 settings: the fix sends the policy first and the advisory after it")
def _advisory(rng: random.Random, c: Clerk) -> list[Pair]:
    persona = c.preface()
    policy = c.guide(12)
    regions = ["Southern Europe", "North Africa", "South-East Asia", "The Caribbean", "East Africa"]
    advisories = [f"Travel advisory for {r}: {c.paragraph(4)}" for r in regions]
    out = []
    for i in range(rng.randint(130, 160)):
        k = rng.randrange(5)
        adv = advisories[k]
        marked = UNIT + adv.replace("Travel advisory for ", f"Travel advisory for{MARK} ", 1)
        q = c.question()
        orig = chat(i, [sys_msg(persona), sys_msg(f"{marked}\n\n{policy}"), user(q)])
        fixed = chat(i, [sys_msg(persona), sys_msg(f"{policy}\n\n{adv}"), user(q)])
        out.append((orig, fixed))
    return out


# ---------------------------------------------------------------- several defects in one request


@workload("bold-sections-then-share-prices-prompt", "prompt", ("order", "dynamic"),
          "six bold-headed sections ('**Fees**') in a different order per request after the preface, then ~800 tokens "
          "later a live share-price strip (tickers fixed, prices unique); a prompt record", WEALTH)
def _sections_prices(rng: random.Random, c: Clerk) -> list[Pair]:
    pre, mid, tail = c.preface(), c.guide(4), c.guide(3)
    heads = ["Fees", "Dealing times", "ISA allowance", "Withdrawals", "Corporate actions", "Tax"]
    sections = [f"**{h}**\n{c.paragraph(3)}" for h in heads]
    tickers = [("KSTL", 142.0), ("VOD", 71.0), ("AZN", 118.0), ("ULVR", 46.0), ("RIO", 49.0), ("BARC", 2.6)]
    out = []
    for i in range(rng.randint(130, 160)):
        order, canon = shuffled(rng, sections)
        strip = " · ".join(f"{t} {p * rng.uniform(0.97, 1.03):.2f} ({rng.uniform(-2.5, 2.5):+.2f}%)" for t, p in tickers)
        q = c.question()
        marked = strip.replace("KSTL ", f"KSTL {MARK}", 1)
        orig = prompt(i, f"{pre}\n\n" + "\n\n".join(order) + f"\n\n{mid}\n\nMarket snapshot: {marked}\n\n{tail}\n\n"
                         f"Investor: {q}\nAdviser:")
        fixed = prompt(i, f"{pre}\n\n" + "\n\n".join(canon) + f"\n\n{mid}\n\n{tail}\n\nInvestor: {q}\n"
                          f"Market snapshot: {strip}\nAdviser:")
        out.append((orig, fixed))
    return out


@workload("flight-fares-tier-three-prompt", "prompt", ("dynamic", "order", "dynamic"),
          "three defects in one prompt record: a flight status line (flight, gate, boarding time; unique) on line 2, "
          "a pretty-printed JSON array of seven fares shuffled ~300 tokens in, and the traveller's loyalty tier with "
          "points (unique) ~1.4k tokens in", TRAVEL)
def _three(rng: random.Random, c: Clerk) -> list[Pair]:
    a, b, d = "\n\n".join([c.preface(), c.guide(2)]), c.guide(6), c.guide(3)
    fares = _fare_objects(c, 7)
    out = []
    for i in range(rng.randint(130, 160)):
        ts = BASE_TIME + 37.0 * i
        status = (f"Flight status: WF{rng.randint(100, 9999)} gate {rng.choice('ABCDE')}{rng.randint(1, 40)} boards "
                  f"{clock(ts + rng.randint(1800, 9000))[:5]}")
        order = list(fares)
        rng.shuffle(order)
        tier = f"Traveller tier: {rng.choice(['Blue', 'Silver', 'Gold', 'Platinum'])} with {rng.randint(1000, 250000):,} points"
        q = c.question()
        orig = prompt(i, f"Wayfarer consultant desk\n{status.replace('WF', 'WF' + MARK, 1)}\n\n{a}\n\nFares (JSON):\n"
                         f"{pretty(_marked_array(order))}\n\n{b}\n\n{tier.replace(': ', ':' + MARK + ' ', 1)}\n\n{d}\n\n"
                         f"Traveller: {q}\nConsultant:", ts)
        fixed = prompt(i, f"Wayfarer consultant desk\n\n{a}\n\nFares (JSON):\n{pretty(fares)}\n\n{b}\n\n{d}\n\n"
                          f"Traveller: {q}\n{status}\n{tier}\nConsultant:", ts)
        out.append((orig, fixed))
    return out


@workload("monograph-first-and-tools-shuffled-ids", "input_ids", ("placement", "order"),
          "a retrieved medicine monograph (from 40) opening the system message ahead of the ~1.5k-token static "
          "prompt, and six tools in `tools` in a different order per request; as token ids", PHARMACY)
def _monograph_tools(rng: random.Random, c: Clerk) -> list[Pair]:
    static = "\n\n".join([c.preface(), c.guide(10)])
    drugs = [m for m, _, _ in MEDICINES] + ["ibuprofen", "paracetamol", "cetirizine", "loratadine"]
    monographs = [f"Monograph: {drugs[k % len(drugs)]} (leaflet {k + 1})\n{c.doc('monograph', k, 6)}" for k in range(40)]
    names = PHARMACY_TOOLS[:6]
    out = []
    for i in range(rng.randint(130, 160)):
        mono = monographs[rng.randrange(40)]
        order = list(names)
        rng.shuffle(order)
        q = c.question() if rng.random() < 0.75 else rng.choice(HEBREW_ASKS) + f" ({c.ref()})"
        marked = UNIT + mono.replace("Monograph: ", f"Monograph:{MARK} ", 1)
        orig = chat(i, [sys_msg(f"{marked}\n\n{static}"), user(q)], marked_first_tool(c, [c.tool(n) for n in order]))
        fixed = chat(i, [sys_msg(f"{static}\n\n{mono}"), user(q)], [c.tool(n) for n in names])
        out.append((orig, fixed))
    return out


# ---------------------------------------------------------------- clean controls


@workload("clean-share-prices-last-prompt", "prompt", (),
          "a static 1.8k-token investor prompt, the question, then the live share-price strip just before 'Adviser:'",
          WEALTH)
def _prices_last(rng: random.Random, c: Clerk) -> list[Pair]:
    body = "\n\n".join([c.preface(), c.guide(11)])
    out = []
    for i in range(rng.randint(130, 160)):
        strip = " · ".join(f"{t} {p * rng.uniform(0.97, 1.03):.2f}" for t, p in [("KSTL", 142.0), ("VOD", 71.0), ("AZN", 118.0)])
        rec = prompt(i, f"{body}\n\nInvestor: {c.question()}\nMarket snapshot: {strip}\nAdviser:")
        out.append((rec, rec))
    return out


@workload("clean-branching-edit-sessions", "messages", (),
          "tutoring chats that branch: after a few turns the student edits an earlier question, and the chat goes on "
          "from the edited turn (both branches share the history before it)", TUTORS)
def _branching(rng: random.Random, c: Clerk) -> list[Pair]:
    system = "\n\n".join([c.preface(), c.guide(9)])
    out: list[Pair] = []
    i = 0
    for _ in range(rng.randint(34, 38)):
        turns = [(c.question(), c.answer()) for _ in range(rng.randint(2, 4))]
        for t in range(len(turns)):
            hist = [m for q, a in turns[:t] for m in (user(q), assistant(a))]
            rec = chat(i, [sys_msg(system)] + hist + [user(turns[t][0])])
            out.append((rec, rec))
            i += 1
        cut = rng.randrange(len(turns))
        branch = turns[:cut] + [(c.question(), c.answer())]
        hist = [m for q, a in branch[:-1] for m in (user(q), assistant(a))]
        rec = chat(i, [sys_msg(system)] + hist + [user(branch[-1][0])])
        out.append((rec, rec))
        i += 1
    return out


@workload("clean-two-products-shared-head-ids", "input_ids", (),
          "two games' support prompts sharing a ~1k-token head, each followed by its own ~800-token product section "
          "(nothing shared after the fork); as token ids", GAMES)
def _two_products(rng: random.Random, c: Clerk) -> list[Pair]:
    head = "\n\n".join([c.preface(), c.guide(6)])
    arena = "Product: Ironpeak Arena\n\n" + c.guide(5)
    other = Clerk(random.Random(f"{c.name}/legends"), ORGS[GAMES])
    legends = "Product: Ironpeak Legends\n\n" + other.guide(5)
    out = []
    for i in range(rng.randint(130, 160)):
        tail = arena if rng.random() < 0.5 else legends
        rec = chat(i, [sys_msg(f"{head}\n\n{tail}"), user(c.question())])
        out.append((rec, rec))
    return out


@workload("clean-rate-table-updated-once-prompt", "prompt", (),
          "a currency table mid-prompt that is updated once half-way through the log and then stays", TRAVEL)
def _rates_once(rng: random.Random, c: Clerk) -> list[Pair]:
    head, tail = "\n\n".join([c.preface(), c.guide(4)]), c.guide(7)
    old = "Card rates today: EUR 1.1712 · USD 1.2684 · TRY 43.91 · IDR 20,114 · VND 32,205"
    new = "Card rates today: EUR 1.1698 · USD 1.2702 · TRY 44.02 · IDR 20,160 · VND 32,260"
    n = rng.randint(130, 160)
    out = []
    for i in range(n):
        rec = prompt(i, f"{head}\n\n{old if i < n // 2 else new}\n\n{tail}\n\nTraveller: {c.question()}\nConsultant:")
        out.append((rec, rec))
    return out


@workload("clean-pasted-contract-tail-ids", "input_ids", (),
          "a static 1.6k-token system prompt; the client pastes a 500-900 token contract and then asks; as token ids",
          LEGAL)
def _pasted(rng: random.Random, c: Clerk) -> list[Pair]:
    system = "\n\n".join([c.preface(), c.guide(10)])
    out = []
    for i in range(rng.randint(130, 160)):
        contract = c.doc("pasted", rng.randrange(10**6), rng.randint(20, 34))
        rec = chat(i, [sys_msg(system), user(f"Here is my contract:\n\n{contract}\n\n{c.question()}")])
        out.append((rec, rec))
    return out


@workload("clean-stable-tools-multilingual-users", "messages", (),
          "eight stable game-support tools, a static system prompt, and questions in English and Turkish", GAMES)
def _stable_tools(rng: random.Random, c: Clerk) -> list[Pair]:
    system = "\n\n".join([c.preface(), "\n".join(TURKISH), c.guide(6)])
    tools = [c.tool(n) for n in GAME_TOOLS]
    out = []
    for i in range(rng.randint(130, 160)):
        q = c.question() if rng.random() < 0.6 else f"{rng.choice(TURKISH_ASKS)} ({c.ref()})"
        rec = chat(i, [sys_msg(system), user(q)], tools)
        out.append((rec, rec))
    return out


@workload("clean-sql-agent-loop", "messages", (),
          "reporting agent loops (3-6 steps) with stable tools: run_sql calls and their results appended step by step",
          PLATFORM)
def _sql_loop(rng: random.Random, c: Clerk) -> list[Pair]:
    system = "\n\n".join([c.preface(), c.guide(8)])
    tools = [c.tool(n) for n in ["run_sql", "query_metrics", "rollback_release"]]
    out: list[Pair] = []
    i = 0
    for task in range(rng.randint(30, 34)):
        msgs: list[dict[str, Any]] = [sys_msg(system), user(c.question())]
        for step in range(rng.randint(3, 6)):
            rec = chat(i, [dict(m) for m in msgs], tools)
            out.append((rec, rec))
            i += 1
            table = rng.choice(["deploys", "incidents", "alerts", "quotas"])
            msgs.append(tool_call(f"q{task}s{step}", "run_sql", {
                "sql": f"SELECT count(*) FROM {table} WHERE created_at > now() - interval '{rng.randint(1, 30)} days'",
                "timeout_s": 30}))
            msgs.append(tool_result(f"q{task}s{step}", compact({"rows": [[rng.randint(0, 5000)]], "ms": rng.randint(3, 900)})))
    return out


@workload("clean-hebrew-passages-last-ids", "input_ids", (),
          "a static prompt with Hebrew guidance; the user turn holds two retrieved passages (from 40, in corpus order) "
          "and a Hebrew or English question last; as token ids", PHARMACY)
def _hebrew_last(rng: random.Random, c: Clerk) -> list[Pair]:
    system = "\n\n".join([c.preface(), "\n".join(HEBREW), c.guide(9)])
    out = []
    for i in range(rng.randint(130, 160)):
        docs = "\n".join(f"[{k}] {c.doc('leaflet', k, 4)}" for k in sorted(rng.sample(range(40), 2)))
        q = rng.choice(HEBREW_ASKS) if rng.random() < 0.5 else c.question()
        rec = chat(i, [sys_msg(system), user(f"Passages:\n{docs}\n\nQuestion: {q}")])
        out.append((rec, rec))
    return out


@workload("clean-two-tool-sets-ab", "messages", (),
          "an A/B test of two disjoint tool sets (each in one fixed order) behind one static system prompt", COLDCHAIN)
def _tool_ab(rng: random.Random, c: Clerk) -> list[Pair]:
    system = "\n\n".join([c.preface(), c.guide(8)])
    set_a = [c.tool(n) for n in ["track_shipment", "book_collection", "account_overview"]]
    set_b = [c.tool(n) for n in ["query_metrics", "run_sql"]]
    out = []
    for i in range(rng.randint(130, 160)):
        rec = chat(i, [sys_msg(system), user(c.question())], set_a if rng.random() < 0.5 else set_b)
        out.append((rec, rec))
    return out


GRADES = ["Year 7", "Year 8", "Year 9", "Year 10", "Year 11", "Year 12"]


@workload("clean-grade-level-after-shared-prompt", "prompt", (),
          "the student's year group (6 settings) right after the shared 1.8k-token prompt, then the question", TUTORS)
def _grade(rng: random.Random, c: Clerk) -> list[Pair]:
    body = "\n\n".join([c.preface(), c.guide(11)])
    out = []
    for i in range(rng.randint(130, 160)):
        rec = prompt(i, f"{body}\n\nStudent's year group: {rng.choice(GRADES)}\n\nStudent: {c.question()}\nTutor:")
        out.append((rec, rec))
    return out


# ---------------------------------------------------------------- assembly


def build_pairs(name: str, seed: int, engine: Engine) -> list[Pair]:
    """One workload's (original with markers, fixed) records, before rendering."""
    fn = next(r[4] for r in REGISTRY if r[0] == name)
    # Each workload draws from its own name and the seed only: adding one changes no other.
    rng = random.Random(f"{seed}/h5/{name}")
    clerk = Clerk(random.Random(f"{seed}/h5/{name}/text"), ORGS[ORG_OF[name]], first_tool_key=first_tool_key(engine))
    return fn(rng, clerk)


def build_workloads(seed: int = 12, engine: Engine | None = None, only: Sequence[str] | None = None) -> list[Workload]:
    """Every workload of the fifth held-out set, deterministic for ``seed``."""
    engine = engine or Engine()
    return assemble(REGISTRY, lambda name: build_pairs(name, seed, engine), engine, only)


def workload_names() -> list[str]:
    return [r[0] for r in REGISTRY]
