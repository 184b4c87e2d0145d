"""Fourth held-out diagnosis set: defects in shapes none of the zoo and the first three held-out sets have.

Written blind to the detector (advisor/diagnose, advisor/prescribe, the zoo, its shapes and its
tests were not read): only DESIGN.md's traffic formats and the rendering the engine does were
used. It reuses the first set's machinery (tests/diagnose/heldout.py: the MARK/UNIT convention
for where requests stop sharing, rendering through the checkout under test, the brute-force
oracle and ``materialize``) and the third set's small message helpers; the text comes from its
own module (heldout4_text.py).

Shapes. Dynamic values: a client IPv4 address as the very first text of a prompt record; a WAN
IPv6 address inside an agent's tool result; Unix epoch milliseconds re-stamped into a history
tool call's arguments; a callback phone number ~1,250 tokens deep; a promotion percentage (6
settings); a semantic-version range (3 settings) in a second system message; a cron expression
(20 settings); a home-directory path holding a user name (60 users) on the first line; hex
colour codes (2 palettes) in a user content part; an ordinal date ('the 3rd of December') in a
few-shot answer; a Hindi exchange-rate line; a Thai shift-lead sentence (3 names); ~800 tokens of
per-request handover notes; a one-token seat count; a weekly fuel surcharge ('\u00a31,284.50', 4
settings) in a tool description in ``tools``; a per-tenant IPv4 CIDR allowlist (30 tenants) in a
prompt record's JSON tool catalog. Several spans: a balance with thousands
separators plus an IBAN; an IPv4 gateway, a MAC address and epoch milliseconds. Order: YAML
sequence items, TOML tables, numbered steps shuffled with their numbers, unheaded policy
paragraphs, the keys of a tool result's JSON object, Greek few-shot message pairs, ten tools with
nested parameters in ``tools``, markdown table rows in an observation, Thai guidance lines.
Placement: a per-user memory bullet list opening a prompt record, a retrieved contract clause
ahead of static instructions, retrieved code snippets ahead of a coding-assistant prompt, a
per-session summary ahead of static tool docs, Korean FAQ answers ahead of an English policy, a
per-user profile content part ahead of a static guide part, a tenant banner (6 tenants) ahead of
the shared prompt; snippets first plus a build number; shuffled YAML plus a phone number.
Controls: a system prompt that changes once mid-log (a deploy), two models' prompts interleaved,
a long static prompt with growing turns and the question last, a value that changes only for the
last few requests, stable nested tools with varying user content parts, an input_ids agent loop,
RAG after the static prompt, static Korean/Thai prompts, a static YAML config, fixed Greek
few-shot pairs.

Truth: the oracle's hit rate on the traffic after the ideal fix written here, by the second and
third sets' conventions: a value with many settings goes to the end of the last user turn (in an
agent loop, of the last message); a value or block with only a few settings goes right after the
content every request shares; order fixes use one canonical order; placement fixes put the
shared content first. An ``expect`` entry "a|b" accepts either class. The tests measure the
other placement for each few-setting value and check that the truth's is better. With an
unbounded cache a value with k settings costs at most k-1 misses of what follows it, so the
2-6-setting shapes lose only 0.3-0.7 points; they stay in the set because the issue asks that
values with few settings be found.
"""

from __future__ import annotations

import json
import random
import zlib
from typing import Any, Callable, Sequence

from tests.diagnose.heldout import (
    assemble, registering,
    BASE_TIME, MARK, UNIT, Engine, Pair, Workload, assistant, chat, prompt, sys_msg, unmark,
    untimed, user,
)
from tests.diagnose.heldout3 import conversations, first_tool_key, parts, tool_result
from tests.diagnose.heldout4_text import (
    FIRST_NAMES, GREEK, HINDI, KOREAN, KOREAN_ASKS, ORGS, THAI, THAI_ASKS, TOOL_NAMES, Writer, compact, money,
)

Builder = Callable[[random.Random, Writer], list[Pair]]
REGISTRY: list[tuple[str, str, tuple[str, ...], str, Builder, str]] = []


workload = registering(REGISTRY)


# ---------------------------------------------------------------- small helpers


def tool_call(call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    # ensure_ascii off: a marker inside the arguments must stay one character that unmark removes.
    return {"role": "assistant", "content": "", "tool_calls": [
        {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args, ensure_ascii=False)}}]}


def ipv4(rng: random.Random) -> str:
    return f"{rng.choice([81, 86, 92, 109, 151, 185, 212])}.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}"


def ipv6(rng: random.Random) -> str:
    return "2a02:" + ":".join(f"{rng.randrange(65536):x}" for _ in range(7))


def mac(rng: random.Random) -> str:
    return ":".join(f"{rng.randrange(256):02x}" for _ in range(6))


def phone(rng: random.Random) -> str:
    return f"+44 7{rng.randint(100, 999)} {rng.randint(100000, 999999)}"


def marked_phone(number: str) -> str:
    """A phone number with MARK after the country code every number shares."""
    return number.replace("+44 ", "+44 " + MARK, 1)


def iban(rng: random.Random) -> str:
    digits = f"{rng.randint(10, 99)}{rng.choice(['NWBK', 'BARC', 'LOYD', 'MIDL'])}{rng.randint(100000, 999999)}" \
             f"{rng.randint(10000000, 99999999)}"
    raw = "GB" + digits
    return " ".join(raw[k:k + 4] for k in range(0, len(raw), 4))


def epoch_ms(i: int, rng: random.Random) -> int:
    return int((BASE_TIME + 37.0 * i) * 1000) + rng.randint(0, 999)


def mark_unit(text: str, others: Sequence[str]) -> str:
    """``text`` (the first unit of a shuffled list) with UNIT at its start and MARK where it
    stops agreeing with the other units (their common prefix: a bullet, a key name)."""
    n = len(text)
    for o in others:
        k = 0
        while k < min(n, len(o)) and o[k] == text[k]:
            k += 1
        n = k
    while n and text[n - 1].isspace():
        n -= 1
    return UNIT + text[:n] + MARK + text[n:]


def shuffled(rng: random.Random, items: Sequence[str]) -> tuple[list[str], list[str]]:
    """A per-request order of ``items``, with its first element marked, and the canonical order."""
    order = list(items)
    rng.shuffle(order)
    while len(order) > 1 and order[0] == items[0] and rng.random() < 0.5:
        rng.shuffle(order)
    order[0] = mark_unit(order[0], [x for x in items if x != order[0]])
    return order, list(items)


def marked_tools(w: Writer, names: Sequence[str]) -> list[dict[str, Any]]:
    tools = [w.tool(n) for n in names]
    key = w.first_tool_key
    tools[0]["function"][key] = MARK + tools[0]["function"][key]
    tools[0]["type"] = UNIT + tools[0]["type"]
    return tools


def line_test_step(w: Writer, rng: random.Random) -> tuple[dict[str, Any], str]:
    """A fixed first agent step: the line test call and the ~600-token static diagnostic report."""
    call = tool_call("call_lt1", "run_line_test", {"line_id": "MB-4471920", "checks": ["sync", "noise", "dropouts"]})
    report = "\n".join(w.note() for _ in range(14))
    return call, report


# ---------------------------------------------------------------- dynamic values


@workload("ipv4-client-first-token-prompt", "prompt", ("dynamic",),
          "the client's IPv4 address ('185.22.7.140 connected to the adviser console.') as the very first text of a "
          "prompt record, ~1.4k static tokens after it")
def _ipv4_first(rng: random.Random, w: Writer) -> list[Pair]:
    body = "\n\n".join([w.preface(), w.guide(11)])
    out = []
    for i in range(rng.randint(130, 160)):
        line = f"{MARK}{ipv4(rng)} connected to the adviser console."
        q = w.question()
        orig = prompt(i, f"{line}\n\n{body}\n\nMember: {q}\nAdviser:")
        fixed = prompt(i, f"{body}\n\nMember: {q}\n{unmark(line)}\nAdviser:")
        out.append((orig, fixed))
    return out


@workload("ipv6-in-tool-result", "messages", ("dynamic",),
          "an agent's fixed first step (a line test) whose JSON tool result holds the line's WAN IPv6 address before "
          "~300 static tokens of diagnostics; the member's question comes last; tools present")
def _ipv6_result(rng: random.Random, w: Writer) -> list[Pair]:
    system = "\n\n".join([w.preface(), w.guide(6)])
    tools = [w.tool(n) for n in ["run_line_test", "book_engineer", "open_case"]]
    call, report = line_test_step(w, rng)
    out = []
    for i in range(rng.randint(130, 160)):
        addr = ipv6(rng)
        res = json.dumps({"line_id": "MB-4471920", "wan_ipv6": addr[:5] + MARK + addr[5:], "report": report}, ensure_ascii=False)
        plain = json.dumps({"line_id": "MB-4471920", "report": report}, ensure_ascii=False)
        q = w.question()
        head = [sys_msg(system), user("Please run a line test before we talk.")]
        orig = chat(i, head + [call, tool_result("call_lt1", res), user(q)], tools)
        fixed = chat(i, head + [call, tool_result("call_lt1", plain), user(f"{q}\n\n(WAN IPv6: {addr})")], tools)
        out.append((orig, fixed))
    return out


@workload("epoch-ms-in-tool-call-args-ids", "input_ids", ("dynamic",),
          "a client that re-stamps the history's tool-call arguments with the current Unix time in milliseconds on "
          "every request; the static tool result (~300 tokens) and the question follow; as token ids",
          notes="the fix drops the stamp from the arguments and states it at the end of the last user turn")
def _epoch_args(rng: random.Random, w: Writer) -> list[Pair]:
    system = "\n\n".join([w.preface(), w.guide(7)])
    tools = [w.tool(n) for n in ["run_line_test", "book_engineer", "submit_reading"]]
    _, report = line_test_step(w, rng)
    out = []
    for i in range(rng.randint(130, 160)):
        ms = epoch_ms(i, rng)
        # The client sends the stamp as a string; all stamps share their first three digits.
        stamp = str(ms)
        args = {"line_id": "MB-4471920", "requested_at_ms": stamp[:3] + MARK + stamp[3:], "checks": ["sync", "noise"]}
        plain = {"line_id": "MB-4471920", "checks": ["sync", "noise"]}
        stamped = tool_call("call_a", "run_line_test", args)
        q = w.question()
        head = [sys_msg(system), user("Check the line first, then I'll explain the problem.")]
        orig = chat(i, head + [stamped, tool_result("call_a", report), user(q)], tools)
        fixed = chat(i, head + [tool_call("call_a", "run_line_test", plain), tool_result("call_a", report),
                                user(f"{q}\n\n(requested_at_ms: {ms})")], tools)
        out.append((orig, fixed))
    return out


@workload("callback-phone-deep-system", "messages", ("dynamic",),
          "the member's callback phone number (+44 7xxx, unique) ~1,250 tokens into a 2k-token system prompt")
def _phone_deep(rng: random.Random, w: Writer) -> list[Pair]:
    head, tail = "\n\n".join([w.preface(), w.guide(9)]), w.guide(6)
    out = []
    for i in range(rng.randint(130, 160)):
        number = phone(rng)
        q = w.question()
        orig = chat(i, [sys_msg(f"{head}\n\nIf the chat drops, call the member back on {marked_phone(number)}.\n\n{tail}"), user(q)])
        fixed = chat(i, [sys_msg(f"{head}\n\n{tail}"), user(f"{q}\n\nIf the chat drops, call me back on {number}.")])
        out.append((orig, fixed))
    return out


@workload("promo-percentage-6-ids", "input_ids", ("dynamic",),
          "the running promotion ('Members get 15% off day passes this week', 6 percentages) right after the preface "
          "of a 1.7k-token system prompt; as token ids",
          notes="6 settings: the fix states the promotion at the end of the system prompt, after the shared guide")
def _promo(rng: random.Random, w: Writer) -> list[Pair]:
    pre, rest = w.preface(), w.guide(13)
    out = []
    for i in range(rng.randint(130, 160)):
        pct = rng.choice(["5%", "10%", "12.5%", "15%", "20%", "25%"])
        line = f"Members get{MARK} {pct} off day passes this week."
        q = w.question()
        orig = chat(i, [sys_msg(f"{pre}\n\n{line}\n\n{rest}"), user(q)])
        fixed = chat(i, [sys_msg(f"{pre}\n\n{rest}\n\n{unmark(line)}"), user(q)])
        out.append((orig, fixed))
    return out


@workload("semver-range-3-second-system", "messages", ("dynamic",),
          "a second system message (compatibility notes) opening with the supported client range ('>=2.4.0 <3.0.0', "
          "3 settings) ~700 tokens in, ~800 static tokens after it in the same message",
          notes="3 settings: the fix moves the range to the end of the second system message")
def _semver(rng: random.Random, w: Writer) -> list[Pair]:
    first = "\n\n".join([w.preface(), w.guide(5)])
    compat = w.guide(6)
    ranges = ["^2.4.1", ">=2.4.0 <3.0.0", "~3.1.0 || ~3.2.0"]
    out = []
    for i in range(rng.randint(130, 160)):
        r = rng.choice(ranges)
        q = w.question()
        orig = chat(i, [sys_msg(first), sys_msg(f"Supported router firmware range:{MARK} {r}\n\n{compat}"), user(q)])
        fixed = chat(i, [sys_msg(first), sys_msg(f"{compat}\n\nSupported router firmware range: {r}"), user(q)])
        out.append((orig, fixed))
    return out


CRONS = ["0 2 * * *", "30 3 * * 1-5", "*/15 * * * *", "0 */6 * * *", "45 23 * * 0", "0 9 1 * *", "5 4 * * 6",
         "0 0 1 1 *", "20 1 * * 2,4", "0 12 * * 1", "10 */2 * * *", "0 6 15 * *", "55 5 * * 3", "0 18 * * 1-5",
         "*/30 8-18 * * 1-5", "0 7 * * 0,6", "15 14 1,15 * *", "0 22 * * 5", "40 0 * * *", "0 3 28 * *"]


@workload("cron-expression-20-prompt", "prompt", ("dynamic",),
          "the member's backup schedule as a cron expression (20 settings) in a 'Scheduled jobs' paragraph ~570 tokens "
          "into a 1.6k-token prompt record",
          notes="20 settings, ~7 requests each; the fix states the schedule right after the shared text, before the question")
def _cron(rng: random.Random, w: Writer) -> list[Pair]:
    head, tail = "\n\n".join([w.preface(), w.guide(4)]), w.guide(8)
    out = []
    for i in range(rng.randint(130, 160)):
        c = rng.choice(CRONS)
        line = f"Scheduled jobs: the member's router backup runs on the cron schedule `{MARK}{c}` (UTC)."
        q = w.question()
        orig = prompt(i, f"{head}\n\n{line}\n\n{tail}\n\nMember: {q}\nAdviser:")
        fixed = prompt(i, f"{head}\n\n{tail}\n\n{unmark(line)}\n\nMember: {q}\nAdviser:")
        out.append((orig, fixed))
    return out


@workload("home-path-username-60-ids", "input_ids", ("dynamic",),
          "the workspace path with the user's login ('/home/zofia.k/src/payroll-exports', 60 users) on the first line "
          "of a coding assistant's system prompt; as token ids")
def _home_path(rng: random.Random, w: Writer) -> list[Pair]:
    system = "\n\n".join([w.preface(), w.guide(12)])
    users = [f"{rng.choice(FIRST_NAMES).lower()}.{chr(97 + k % 26)}{k}" for k in range(60)]
    repos = ["payroll-exports", "pension-sync", "rti-submitter"]
    out = []
    for i in range(rng.randint(130, 160)):
        path = f"/home/{rng.choice(users)}/src/{rng.choice(repos)}"
        line = f"Workspace root: /home/{MARK}{path[6:]}"
        q = w.question()
        orig = chat(i, [sys_msg(f"{line}\n\n{system}"), user(q)])
        fixed = chat(i, [sys_msg(system), user(f"{q}\n\n{unmark(line)}")])
        out.append((orig, fixed))
    return out


PALETTES = [("light", "#FFFFFF", "#1F2937", "#2563EB", "#F59E0B"), ("dark", "#0B1120", "#E5E7EB", "#60A5FA", "#FBBF24")]


@workload("hex-colours-2-content-part", "messages", ("dynamic",),
          "the member's portal palette as hex colour codes (2 settings, light or dark) in the 2nd of four user content "
          "parts, between ~450 tokens of static instructions and ~1,100 of static reference",
          notes="2 settings: the fix sends the palette part after the static parts, just before the question")
def _palette(rng: random.Random, w: Writer) -> list[Pair]:
    system = w.preface()
    instr, ref = w.guide(3), w.guide(9)
    out = []
    for i in range(rng.randint(130, 160)):
        name, bg, fg, accent, warn = rng.choice(PALETTES)
        pal = f"Portal theme:{MARK} {name} (background {bg}, text {fg}, accent {accent}, warning {warn})."
        q = w.question()
        orig = chat(i, [sys_msg(system), {"role": "user", "content": parts(instr, pal, ref, q)}])
        fixed = chat(i, [sys_msg(system), {"role": "user", "content": parts(instr, ref, unmark(pal), q)}])
        out.append((orig, fixed))
    return out


def ordinal_of(day: int) -> str:
    return f"{day}{'th' if 11 <= day <= 13 else {1: 'st', 2: 'nd', 3: 'rd'}.get(day % 10, 'th')}"


@workload("ordinal-date-fewshot-answer", "messages", ("dynamic",),
          "three few-shot user/assistant pairs after the system prompt; the second answer quotes today's date as "
          "'the 3rd of December' (6 days over the log); no timestamps",
          notes="6 settings: the fix states the date at the start of the real user turn, right after the shared "
          "few-shot block")
def _ordinal_fewshot(rng: random.Random, w: Writer) -> list[Pair]:
    system = "\n\n".join([w.preface(), w.guide(8)])
    shots = [(w.question(), w.answer()) for _ in range(3)]
    n = rng.randint(130, 160)
    out = []
    for i in range(n):
        day = 1 + i * 6 // n
        when = f"the {ordinal_of(day)} of December"
        msgs = [sys_msg(system)]
        plain = [sys_msg(system)]
        for k, (q, a) in enumerate(shots):
            said = f"As of the{MARK} {when[4:]}: {a}" if k == 1 else a
            msgs += [user(q), assistant(said)]
            plain += [user(q), assistant(f"As of today: {a}" if k == 1 else a)]
        q = w.question()
        orig = untimed(chat(i, msgs + [user(q)]))
        fixed = untimed(chat(i, plain + [user(f"Today is {when}.\n\n{q}")]))
        out.append((orig, fixed))
    return out


@workload("hindi-exchange-rate-ids", "input_ids", ("dynamic",),
          "a Hindi sentence with the hour's USD/INR rate ('आज की विनिमय दर: 1 USD = 83.42 INR', ~40 settings in "
          "arrival order) after the preface of a bilingual 2k-token system prompt; as token ids")
def _hindi_rate(rng: random.Random, w: Writer) -> list[Pair]:
    pre, rest = w.preface(), "\n\n".join(["\n".join(HINDI), w.guide(11)])
    n = rng.randint(130, 160)
    rates = [f"{83 + rng.random():.2f}" for _ in range(40)]
    out = []
    for i in range(n):
        rate = rates[i * 40 // n]
        line = f"आज की विनिमय दर: 1 USD = {rate[:3]}{MARK}{rate[3:]} INR"
        q = w.question()
        orig = chat(i, [sys_msg(f"{pre}\n\n{line}\n\n{rest}"), user(q)])
        fixed = chat(i, [sys_msg(f"{pre}\n\n{rest}"), user(f"{q}\n\n{unmark(line)}")])
        out.append((orig, fixed))
    return out


THAI_LEADS = ["คุณสมชาย", "คุณวิไลวรรณ", "คุณธนากร"]


@workload("thai-shift-lead-3", "messages", ("dynamic",),
          "a Thai sentence naming the shift lead (3 names) ~950 tokens into a 2k-token system prompt with Thai "
          "guidance; Thai questions",
          notes="3 settings: the fix puts the sentence at the end of the system prompt")
def _thai_lead(rng: random.Random, w: Writer) -> list[Pair]:
    head, tail = "\n\n".join([w.preface(), w.guide(7)]), "\n\n".join(["\n".join(THAI), w.guide(6)])
    out = []
    for i in range(rng.randint(130, 160)):
        lead = rng.choice(THAI_LEADS)
        line = f"หัวหน้ากะวันนี้คือ{MARK} {lead} โปรดส่งต่อเรื่องเร่งด่วนถึงท่าน"
        q = rng.choice(THAI_ASKS) + f" [{w.ref()}]"
        orig = chat(i, [sys_msg(f"{head}\n\n{line}\n\n{tail}"), user(q)])
        fixed = chat(i, [sys_msg(f"{head}\n\n{tail}\n\n{unmark(line)}"), user(q)])
        out.append((orig, fixed))
    return out


@workload("handover-notes-800-messages", "messages", ("dynamic",),
          "per-request shift handover notes (~800 tokens, unique) ~700 tokens into the system prompt, ~1,100 "
          "static tokens after it")
def _handover(rng: random.Random, w: Writer) -> list[Pair]:
    head, tail = "\n\n".join([w.preface(), w.guide(5)]), w.guide(7)
    out = []
    for i in range(rng.randint(125, 145)):
        lines = [f"- {rng.randint(6, 21):02d}:{rng.randint(0, 59):02d} {w.person()} ({w.ref()}): "
                 f"{rng.choice(['reported', 'chased', 'closed', 'reopened', 'escalated'])} a case about "
                 f"{rng.choice(['a slow line', 'a refund', 'a missed visit', 'a billing error', 'a moved router'])}; "
                 f"line MB-{rng.randint(1000000, 9999999)}, next step due {rng.randint(1, 28)}/12 at "
                 f"{rng.randint(8, 18):02d}:00, owner {rng.choice(['desk A', 'desk B', 'field team', 'billing'])}."
                 for _ in range(rng.randint(15, 18))]
        notes = "Handover notes from the previous shift:\n" + "\n".join(lines)
        q = w.question()
        marked = notes.replace("- ", f"-{MARK} ", 1)
        orig = chat(i, [sys_msg(f"{head}\n\n{marked}\n\n{tail}"), user(q)])
        fixed = chat(i, [sys_msg(f"{head}\n\n{tail}"), user(f"{q}\n\n{notes}")])
        out.append((orig, fixed))
    return out


@workload("seat-count-one-token-ids", "input_ids", ("dynamic",),
          "the free desks in the building as a single-token number (100-999) ~800 tokens into a 1.6k-token system "
          "prompt; as token ids")
def _seats(rng: random.Random, w: Writer) -> list[Pair]:
    head, tail = "\n\n".join([w.preface(), w.guide(6)]), w.guide(6)
    out = []
    for i in range(rng.randint(130, 160)):
        n = rng.randint(100, 999)
        q = w.question()
        orig = chat(i, [sys_msg(f"{head}\n\nFree hot desks right now:{MARK} {n}\n\n{tail}"), user(q)])
        fixed = chat(i, [sys_msg(f"{head}\n\n{tail}"), user(f"{q}\n\n(Free hot desks right now: {n})")])
        out.append((orig, fixed))
    return out


SURCHARGES = [money(x, "\u00a3") for x in (1284.5, 1312.75, 1198.0, 1406.25)]


@workload("fuel-surcharge-in-tools-field-ids", "input_ids", ("dynamic",),
          "the week's fuel surcharge ('\u00a31,284.50 per container', 4 weeks in arrival order) at the end of the 4th "
          "tool's description in a `tools` field of six nested tools; as token ids",
          notes="4 settings: the fix states the surcharge right after the tools, at the start of the user text")
def _surcharge(rng: random.Random, w: Writer) -> list[Pair]:
    system = "\n\n".join([w.preface(), w.guide(6)])
    names = ["track_consignment", "open_case", "submit_reading", "quote_freight", "hold_room", "issue_tickets"]
    n = rng.randint(130, 160)
    out = []
    for i in range(n):
        fee = SURCHARGES[i * 4 // n]
        tools = [w.tool(x) for x in names]
        plain = json.loads(json.dumps(tools))
        tools[3]["function"]["description"] += f" Fuel surcharge this week: {fee[:3]}{MARK}{fee[3:]} per container."
        q = w.question()
        out.append((chat(i, [sys_msg(system), user(q)], tools),
                    chat(i, [sys_msg(system), user(f"Fuel surcharge this week: {fee} per container.\n\n{q}")], plain)))
    return out


@workload("cidr-allowlist-in-tool-catalog-prompt", "prompt", ("dynamic",),
          "a per-tenant IPv4 CIDR allowlist (30 tenants) inside one tool's description in a compact JSON tool catalog "
          "of a prompt record, ~1k static tokens of catalog and guide after it",
          notes="30 settings, ~5 requests each: the fix states the allowlist after the shared text, before the question")
def _cidr(rng: random.Random, w: Writer) -> list[Pair]:
    pre, tail = w.preface(), w.guide(5)
    names = ["run_line_test", "book_engineer", "open_case", "renew_loans", "reserve_title"]
    lists = [", ".join(f"{ipv4(rng).rsplit('.', 1)[0]}.0/{rng.choice([24, 26, 28])}" for _ in range(rng.randint(2, 4)))
             for _ in range(30)]
    out = []
    for i in range(rng.randint(130, 160)):
        allow = rng.choice(lists)
        tools = [w.tool(x) for x in names]
        plain = compact(tools)
        tools[1]["function"]["description"] += f" Engineers may only connect from {MARK}{allow}."
        q = w.question()
        orig = prompt(i, f"{pre}\n\nTools (JSON):\n{compact(tools)}\n\n{tail}\n\nMember: {q}\nAdviser:")
        fixed = prompt(i, f"{pre}\n\nTools (JSON):\n{plain}\n\n{tail}\n\nEngineers may only connect from {allow}.\n\n"
                          f"Member: {q}\nAdviser:")
        out.append((orig, fixed))
    return out


@workload("balance-and-iban-prompt", "prompt", ("dynamic", "dynamic"),
          "the member's balance with thousands separators ('$12,480.55', unique) ~200 tokens in and the payout IBAN "
          "('GB29 NWBK ...', from 80 members) ~1,000 tokens in, static text after each; a prompt record")
def _balance_iban(rng: random.Random, w: Writer) -> list[Pair]:
    a = "\n\n".join([w.preface(), w.guide(1)])
    b, c = w.guide(6), w.guide(5)
    ibans = [iban(rng) for _ in range(80)]
    out = []
    for i in range(rng.randint(130, 160)):
        bal = money(rng.randint(1000, 250000) + rng.random())
        acct = rng.choice(ibans)
        q = w.question()
        orig = prompt(i, f"{a}\n\nCurrent balance: ${MARK}{bal[1:]}\n\n{b}\n\nRefunds are paid to IBAN {acct[:2]}{MARK}{acct[2:]}."
                         f"\n\n{c}\n\nMember: {q}\nAdviser:")
        fixed = prompt(i, f"{a}\n\n{b}\n\n{c}\n\nMember: {q}\nCurrent balance: {bal}\nRefunds are paid to IBAN {acct}."
                          f"\nAdviser:")
        out.append((orig, fixed))
    return out


@workload("gateway-mac-epoch-messages", "messages", ("dynamic", "dynamic", "dynamic"),
          "three unique values in one system prompt: the gateway IPv4 ~100 tokens in, the router's MAC address ~740 "
          "tokens in, the session start in epoch milliseconds ~1,250 tokens in; static text after each")
def _three_net(rng: random.Random, w: Writer) -> list[Pair]:
    a = w.preface()
    b, c, d = w.guide(5), w.guide(4), w.guide(4)
    out = []
    for i in range(rng.randint(130, 160)):
        gw, hw, ms = ipv4(rng), mac(rng), epoch_ms(i, rng)
        s = str(ms)
        q = w.question()
        orig = chat(i, [sys_msg(f"{a}\n\nGateway:{MARK} {gw}\n\n{b}\n\nRouter MAC:{MARK} {hw}\n\n{c}\n\n"
                                f"Session started at {s[:3]}{MARK}{s[3:]} ms since the epoch.\n\n{d}"), user(q)])
        fixed = chat(i, [sys_msg(f"{a}\n\n{b}\n\n{c}\n\n{d}"),
                         user(f"{q}\n\nGateway: {gw}\nRouter MAC: {hw}\nSession started at {s} ms since the epoch.")])
        out.append((orig, fixed))
    return out


# ---------------------------------------------------------------- order


def _yaml_items(w: Writer, n: int) -> list[str]:
    local = random.Random(f"{w.name}/yaml")
    items = []
    for k in range(n):
        code = f"{chr(65 + k)}{local.randint(10, 99)}"
        items.append(f"- code: {code}\n  title: \"{w.rule()}\"\n  applies_to: [{local.choice(['web', 'app', 'email'])}, "
                     f"{local.choice(['phone', 'post', 'branch'])}]")
    return items


@workload("yaml-sequence-items-prompt", "prompt", ("order",),
          "a YAML sequence of ten policy items (code, title, applies_to) in a different order per request after the "
          "preface of a prompt record")
def _yaml_items_wl(rng: random.Random, w: Writer) -> list[Pair]:
    pre, items, rest = w.preface(), _yaml_items(w, 10), w.guide(9)
    out = []
    for i in range(rng.randint(130, 160)):
        order, canon = shuffled(rng, items)
        q = w.question()
        orig = prompt(i, f"{pre}\n\n```yaml\npolicies:\n" + "\n".join(order) + f"\n```\n\n{rest}\n\nMember: {q}\nAdviser:")
        fixed = prompt(i, f"{pre}\n\n```yaml\npolicies:\n" + "\n".join(canon) + f"\n```\n\n{rest}\n\nMember: {q}\nAdviser:")
        out.append((orig, fixed))
    return out


def _toml_tables(w: Writer) -> list[str]:
    local = random.Random(f"{w.name}/toml")
    names = ["broadband", "billing", "engineers", "outages", "privacy", "retention", "wholesale"]
    out = []
    for nm in names:
        keys = [f'summary = "{w.note()}"', f"sla_hours = {local.choice([4, 8, 24, 48, 72])}",
                f"escalate = {local.choice(['true', 'false'])}", f'owner = "{local.choice(["desk A", "desk B", "ops", "legal"])}"']
        out.append(f"[{nm}]\n" + "\n".join(keys))
    return out


@workload("toml-tables-shuffled-ids", "input_ids", ("order",),
          "seven TOML tables of service settings in a different order per request (a dict walked in hash order) "
          "~220 tokens into the system prompt; as token ids")
def _toml(rng: random.Random, w: Writer) -> list[Pair]:
    head, tables, tail = "\n\n".join([w.preface(), w.guide(1)]), _toml_tables(w), w.guide(9)
    out = []
    for i in range(rng.randint(130, 160)):
        order, canon = shuffled(rng, tables)
        q = w.question()
        orig = chat(i, [sys_msg(f"{head}\n\n```toml\n" + "\n\n".join(order) + f"\n```\n\n{tail}"), user(q)])
        fixed = chat(i, [sys_msg(f"{head}\n\n```toml\n" + "\n\n".join(canon) + f"\n```\n\n{tail}"), user(q)])
        out.append((orig, fixed))
    return out


@workload("numbered-steps-keep-numbers", "messages", ("order",),
          "nine 'Step N:' troubleshooting steps shuffled per request with their numbers (not renumbered), ~500 tokens "
          "into the system prompt")
def _steps(rng: random.Random, w: Writer) -> list[Pair]:
    head, tail = "\n\n".join([w.preface(), w.guide(3)]), w.guide(8)
    steps = [f"Step {k + 1}: {w.rule()}" for k in range(9)]
    out = []
    for i in range(rng.randint(130, 160)):
        order, canon = shuffled(rng, steps)
        q = w.question()
        orig = chat(i, [sys_msg(f"{head}\n\nTroubleshooting steps:\n" + "\n".join(order) + f"\n\n{tail}"), user(q)])
        fixed = chat(i, [sys_msg(f"{head}\n\nTroubleshooting steps:\n" + "\n".join(canon) + f"\n\n{tail}"), user(q)])
        out.append((orig, fixed))
    return out


@workload("policy-paragraphs-shuffled-ids", "input_ids", ("order",),
          "eight unheaded policy paragraphs (~120 tokens each) in a different order per request after the preface; "
          "a static closing section after them; as token ids")
def _paragraphs(rng: random.Random, w: Writer) -> list[Pair]:
    pre, closing = w.preface(), w.guide(4)
    paras = [w.paragraph(5) for _ in range(8)]
    out = []
    for i in range(rng.randint(130, 160)):
        order, canon = shuffled(rng, paras)
        q = w.question()
        orig = chat(i, [sys_msg(f"{pre}\n\n" + "\n\n".join(order) + f"\n\n{closing}"), user(q)])
        fixed = chat(i, [sys_msg(f"{pre}\n\n" + "\n\n".join(canon) + f"\n\n{closing}"), user(q)])
        out.append((orig, fixed))
    return out


@workload("tool-result-json-keys-shuffled", "messages", ("order",),
          "an agent's fixed first step whose tool result is a pretty-printed JSON object of 14 keys serialized in a "
          "different key order per request; the question comes last; tools present")
def _result_keys(rng: random.Random, w: Writer) -> list[Pair]:
    system = "\n\n".join([w.preface(), w.guide(6)])
    tools = [w.tool(n) for n in ["track_consignment", "quote_freight", "open_case"]]
    local = random.Random(f"{w.name}/keys")
    record = {"reference": "QF-2026-118204", "status": "held at customs", "vessel": "MSC Alder",
              "port_of_loading": "CNSHA", "port_of_discharge": "GBFXT", "eta": "2026-12-09",
              "containers": ["MSKU 402917-3", "TGHU 881204-6"], "hs_codes": ["8471.30", "8523.51"],
              "declared_value": money(184250.4, "\u00a3"), "duty_estimate": money(9212.52, "\u00a3"),
              "documents_missing": ["commercial invoice (signed)"], "broker_note": w.note() + " " + w.note(),
              "temperature_log": [round(local.uniform(3, 6), 1) for _ in range(12)],
              "last_event": "customs examination booked"}
    keys = list(record)
    call = tool_call("call_tc", "track_consignment", {"reference": "QF-2026-118204", "include": ["documents", "charges"]})
    out = []
    for i in range(rng.randint(130, 160)):
        order = list(keys)
        rng.shuffle(order)
        text = json.dumps({k: record[k] for k in order}, indent=2, ensure_ascii=False)
        canon = json.dumps(record, indent=2, ensure_ascii=False)
        marked = text.replace(f'"{order[0]}"', f'{UNIT}"{MARK}{order[0]}"', 1)
        q = w.question()
        head = [sys_msg(system), user("Where is consignment QF-2026-118204?"), call]
        orig = chat(i, head + [tool_result("call_tc", marked), user(q)], tools)
        fixed = chat(i, head + [tool_result("call_tc", canon), user(q)], tools)
        out.append((orig, fixed))
    return out


@workload("greek-fewshot-pairs-shuffled", "messages", ("order",),
          "six Greek few-shot user/assistant pairs after the system prompt, in a different order per request; the "
          "real question (Greek) comes last")
def _greek(rng: random.Random, w: Writer) -> list[Pair]:
    system = "\n\n".join([w.preface(), w.guide(10)])
    out = []
    for i in range(rng.randint(130, 160)):
        order = list(range(6))
        rng.shuffle(order)
        msgs = [sys_msg(system)]
        for j, k in enumerate(order):
            q, a = GREEK[k]
            msgs += [user(mark_unit(q, [x for x, _ in GREEK if x != q]) if j == 0 else q), assistant(a)]
        ask = f"{GREEK[rng.randrange(6)][0]} (αρ. {w.ref()})"
        orig = chat(i, msgs + [user(ask)])
        fixed = chat(i, [sys_msg(system)] + [m for q, a in GREEK for m in (user(q), assistant(a))] + [user(ask)])
        out.append((orig, fixed))
    return out


@workload("nested-tools-shuffled-ids", "input_ids", ("order",),
          "ten tools with nested object/array parameters in the `tools` field in a different order per request, "
          "behind a 1.2k-token system prompt; as token ids")
def _nested_tools(rng: random.Random, w: Writer) -> list[Pair]:
    system = "\n\n".join([w.preface(), w.guide(8)])
    names = TOOL_NAMES[:10]
    out = []
    for i in range(rng.randint(130, 160)):
        order = list(names)
        rng.shuffle(order)
        q = w.question()
        out.append((chat(i, [sys_msg(system), user(q)], marked_tools(w, order)),
                    chat(i, [sys_msg(system), user(q)], [w.tool(n) for n in names])))
    return out


@workload("markdown-rows-in-observation-prompt", "prompt", ("order",),
          "a ReAct-style prompt record whose fixed 'Observation:' is a 16-row markdown table of branch opening hours, "
          "rows in a different order per request (an unordered query); the question comes last")
def _md_rows(rng: random.Random, w: Writer) -> list[Pair]:
    system = "\n\n".join([w.preface(), w.guide(8)])
    local = random.Random(f"{w.name}/rows")
    towns = ["Alderley", "Barnstow", "Carrow", "Dunmere", "Elsworth", "Fennick", "Garthby", "Holloway", "Ilsham",
             "Jessop Bridge", "Kelling", "Lowther", "Marbury", "Nethercott", "Oxley Green", "Pendle Vale"]
    rows = [f"| {t} | {local.choice(['09:00', '09:30', '10:00'])} | {local.choice(['17:00', '18:00', '19:30'])} | "
            f"{local.choice(['yes', 'no'])} | {local.randint(2, 40)} |" for t in towns]
    header = "| Branch | Opens | Closes | Step-free | Study seats |\n| --- | --- | --- | --- | --- |"
    out = []
    for i in range(rng.randint(130, 160)):
        order, canon = shuffled(rng, rows)
        q = w.question()
        start = (f"{system}\n\nQuestion: Which branches are open late?\nThought: I should list the branches.\n"
                 f"Action: list_branches\nObservation:\n{header}\n")
        end = f"\nThought: I have the table.\n\nMember: {q}\nAdviser:"
        out.append((prompt(i, start + "\n".join(order) + end), prompt(i, start + "\n".join(canon) + end)))
    return out


@workload("thai-guidance-lines-prompt", "prompt", ("order",),
          "ten Thai guidance lines in a different order per request after an English preface; Thai questions")
def _thai_lines(rng: random.Random, w: Writer) -> list[Pair]:
    pre, rest = w.preface(), w.guide(10)
    lines = [f"• {t}" for t in THAI]
    out = []
    for i in range(rng.randint(130, 160)):
        order, canon = shuffled(rng, lines)
        q = rng.choice(THAI_ASKS) + f" [{w.ref()}]"
        orig = prompt(i, f"{pre}\n\nแนวทางการตอบ:\n" + "\n".join(order) + f"\n\n{rest}\n\nลูกค้า: {q}\nเจ้าหน้าที่:")
        fixed = prompt(i, f"{pre}\n\nแนวทางการตอบ:\n" + "\n".join(canon) + f"\n\n{rest}\n\nลูกค้า: {q}\nเจ้าหน้าที่:")
        out.append((orig, fixed))
    return out


# ---------------------------------------------------------------- per-request content before shared content


@workload("memory-bullets-before-prompt", "prompt", ("placement",),
          "a per-user 'memory' bullet list (50 users, 5-9 bullets) opening a prompt record, ahead of a 2k-token "
          "shared system prompt")
def _memory_first(rng: random.Random, w: Writer) -> list[Pair]:
    system = "\n\n".join([w.preface(), w.guide(12)])
    memories = []
    for _ in range(50):
        things = ['email replies', 'a morning visit', 'paper statements', 'being called', 'the app', 'a refund last spring']
        bullets = [f"- {rng.choice(['prefers', 'asked for', 'dislikes', 'mentioned'])} {rng.choice(things)}"
                   f" ({rng.randint(1, 28)}/{rng.randint(1, 12)}/{rng.randint(2023, 2026)})" for _ in range(rng.randint(5, 9))]
        memories.append(f"What you remember about {w.person()}:\n" + "\n".join(bullets))
    out = []
    for i in range(rng.randint(130, 160)):
        m = rng.choice(memories)
        q = w.question()
        orig = prompt(i, f"{UNIT}What you remember about{MARK}{m[len('What you remember about'):]}\n\n{system}\n\nMember: {q}\nAdviser:")
        fixed = prompt(i, f"{system}\n\n{m}\n\nMember: {q}\nAdviser:")
        out.append((orig, fixed))
    return out


@workload("contract-clause-before-instructions", "messages", ("placement",),
          "two retrieved contract clauses (from 80) at the top of the system message, ahead of ~2k tokens of static "
          "instructions in the same message")
def _clauses(rng: random.Random, w: Writer) -> list[Pair]:
    instructions = "\n\n".join([w.preface(), w.guide(12)])
    clauses = [f"Clause {k + 1}.{rng.randint(1, 9)} ({rng.choice(['Term', 'Charges', 'Liability', 'Termination', 'Data'])}): "
               + w.doc("clause", k, 4) for k in range(80)]
    out = []
    for i in range(rng.randint(130, 160)):
        picked = [clauses[k] for k in sorted(rng.sample(range(80), 2))]
        block = "Relevant contract terms:\n" + "\n".join(picked)
        marked = block.replace("Clause ", f"Clause{MARK} ", 1)
        q = w.question()
        orig = chat(i, [sys_msg(f"{UNIT}{marked}\n\n{instructions}"), user(q)])
        fixed = chat(i, [sys_msg(f"{instructions}\n\n{block}"), user(q)])
        out.append((orig, fixed))
    return out


def _snippet(w: Writer, k: int) -> str:
    local = random.Random(f"{w.name}/code/{k}")
    verb = local.choice(['load', 'build', 'check', 'export', 'merge'])
    fn = f"{verb}_{local.choice(['payslips', 'pension', 'rti', 'ledger', 'leavers'])}_{k}"
    body = "\n".join(f"    {local.choice(['total', 'rows', 'batch', 'due'])}_{j} = "
                     f"{local.choice(['sum', 'len', 'max', 'sorted'])}(item.{local.choice(['gross', 'net', 'tax', 'ni'])} "
                     f"for item in records if item.period == {local.randint(1, 12)})" for j in range(local.randint(4, 8)))
    return f"# {fn}.py\ndef {fn}(records):\n{body}\n    return {local.choice(['total', 'rows', 'batch', 'due'])}_0"


@workload("code-snippets-before-coding-prompt-ids", "input_ids", ("placement",),
          "two retrieved code snippets (from 50 files) at the top of the system message, ahead of a 2k-token static "
          "coding-assistant prompt; as token ids")
def _snippets(rng: random.Random, w: Writer) -> list[Pair]:
    prompt_text = "\n\n".join([f"You review and write Python for the {w.name} engineering team. " + w.preface(), w.guide(12)])
    files = [_snippet(w, k) for k in range(50)]
    out = []
    for i in range(rng.randint(130, 160)):
        picked = "\n\n".join(files[k] for k in sorted(rng.sample(range(50), 2)))
        block = f"Retrieved code:\n```python\n{picked}\n```"
        q = w.question()
        orig = chat(i, [sys_msg(UNIT + block.replace("# ", f"#{MARK} ", 1) + f"\n\n{prompt_text}"), user(q)])
        fixed = chat(i, [sys_msg(f"{prompt_text}\n\n{block}"), user(q)])
        out.append((orig, fixed))
    return out


@workload("session-summary-before-tool-docs", "messages", ("placement",),
          "a per-session summary system message ahead of a static system message of tool documentation (~1.4k "
          "tokens); sessions of 2-5 growing turns, interleaved",
          notes="the fix sends the tool docs first and the summary second; later turns of a session still share it")
def _summary_first(rng: random.Random, w: Writer) -> list[Pair]:
    docs = "\n\n".join([w.preface(), "Tool guide:\n" + "\n".join(
        f"- {n}: {w.tool(n)['function']['description']} {w.rule()}" for n in TOOL_NAMES), w.guide(7)])
    lengths = [rng.randint(2, 5) for _ in range(40)]
    summaries = [f"Session summary: {w.person()} contacted us about "
                 f"{rng.choice(['a slow line', 'a disputed bill', 'moving home', 'a missed engineer'])}; "
                 f"{rng.choice(['identity checked', 'identity not yet checked'])}; case {w.ref()}." for _ in lengths]
    turns = [[(w.question(), w.answer()) for _ in range(n)] for n in lengths]
    out = []
    for i, (c, t) in enumerate(conversations(rng, lengths)):
        hist = [m for q, a in turns[c][:t] for m in (user(q), assistant(a))]
        last = user(turns[c][t][0])
        s = summaries[c]
        marked = s.replace("Session summary:", f"Session summary:{MARK}", 1)
        orig = chat(i, [sys_msg(UNIT + marked), sys_msg(docs)] + hist + [last])
        fixed = chat(i, [sys_msg(docs), sys_msg(s)] + hist + [last])
        out.append((orig, fixed))
    return out


@workload("korean-faq-before-policy-ids", "input_ids", ("placement",),
          "two retrieved Korean FAQ answers (from 40) opening the system message, ahead of a 2k-token English policy "
          "with Korean guidance lines; Korean questions; as token ids")
def _korean_first(rng: random.Random, w: Writer) -> list[Pair]:
    policy = "\n\n".join([w.preface(), "\n".join(KOREAN), w.guide(11)])
    faqs = []
    for k in range(40):
        local = random.Random(f"{w.name}/ko/{k}")
        faqs.append(f"[FAQ {k}] 요금제 {local.randint(10, 99)}번은 월 {local.randint(19, 89)},{local.randint(100, 900)}원이며 "
                    f"설치는 {local.randint(2, 9)}일 안에 완료됩니다. 약정 기간은 {local.choice([12, 24, 36])}개월입니다.")
    out = []
    for i in range(rng.randint(130, 160)):
        picked = "\n".join(faqs[k] for k in sorted(rng.sample(range(40), 2)))
        q = rng.choice(KOREAN_ASKS) + f" [{w.ref()}]"
        orig = chat(i, [sys_msg(UNIT + "참고 자료:\n" + picked.replace("[FAQ ", f"[FAQ{MARK} ", 1) + f"\n\n{policy}"), user(q)])
        fixed = chat(i, [sys_msg(f"{policy}\n\n참고 자료:\n{picked}"), user(q)])
        out.append((orig, fixed))
    return out


@workload("profile-part-before-guide-part", "messages", ("placement",),
          "a user message as content parts: a per-user profile part (60 users) first, then a ~1.2k-token static "
          "guide part, then the question")
def _profile_parts(rng: random.Random, w: Writer) -> list[Pair]:
    system = w.preface()
    guide = w.guide(10)
    profiles = [f"Member profile: {w.person()}, {rng.choice(['Fibre 150', 'Fibre 500', 'Wireless 80'])}, member since "
                f"{rng.randint(2012, 2026)}, {rng.choice(['monthly', 'annual'])} billing, {rng.randint(0, 6)} open cases."
                for _ in range(60)]
    out = []
    for i in range(rng.randint(130, 160)):
        prof = rng.choice(profiles)
        q = w.question()
        marked = UNIT + prof.replace("Member profile:", f"Member profile:{MARK}", 1)
        orig = chat(i, [sys_msg(system), {"role": "user", "content": parts(marked, guide, q)}])
        fixed = chat(i, [sys_msg(system), {"role": "user", "content": parts(guide, prof, q)}])
        out.append((orig, fixed))
    return out


TENANTS = ["Northfield Housing", "Brae Dental Partners", "Kinloch Council", "Orchard Street Surgery", "Riverside Academy",
           "Whitstone Builders"]


@workload("tenant-banner-6-before-prompt", "prompt", ("placement|dynamic",),
          "a tenant banner (6 tenants, ~60 tokens) opening a prompt record ahead of 2k tokens of shared prompt; tenant "
          "field set", notes="6 settings: the fix puts the shared prompt first and the banner after it")
def _banner(rng: random.Random, w: Writer) -> list[Pair]:
    shared = "\n\n".join([w.preface(), w.guide(12)])
    banners = [f"Account: {t}. Contract tier {k % 3 + 1}. Named contact: {w.person()}. Priority line opens at 07:{k}0."
               for k, t in enumerate(TENANTS)]
    out = []
    for i in range(rng.randint(130, 160)):
        k = rng.randrange(6)
        q = w.question()
        orig = prompt(i, f"{UNIT}Account:{MARK}{banners[k][len('Account:'):]}\n\n{shared}\n\nMember: {q}\nAdviser:")
        fixed = prompt(i, f"{shared}\n\n{banners[k]}\n\nMember: {q}\nAdviser:")
        out.append((dict(orig, tenant=TENANTS[k]), dict(fixed, tenant=TENANTS[k])))
    return out


# ---------------------------------------------------------------- several defects in one request


@workload("snippets-first-then-build-ids", "input_ids", ("placement", "dynamic"),
          "retrieved code snippets (from 50) ahead of a static coding prompt whose middle states the CI build number "
          "(unique); as token ids")
def _snippets_build(rng: random.Random, w: Writer) -> list[Pair]:
    a, b = "\n\n".join([f"You help the {w.name} engineers with Python. " + w.preface(), w.guide(6)]), w.guide(6)
    files = [_snippet(w, k) for k in range(50)]
    out = []
    for i in range(rng.randint(130, 160)):
        block = "Retrieved code:\n```python\n" + "\n\n".join(files[k] for k in sorted(rng.sample(range(50), 2))) + "\n```"
        build = rng.randint(100000, 999999)
        q = w.question()
        orig = chat(i, [sys_msg(UNIT + block.replace("# ", f"#{MARK} ", 1) + f"\n\n{a}\n\nCI build:{MARK} {build}\n\n{b}"), user(q)])
        fixed = chat(i, [sys_msg(f"{a}\n\n{b}\n\n{block}"), user(f"{q}\n\nCI build: {build}")])
        out.append((orig, fixed))
    return out


@workload("yaml-shuffled-then-phone-prompt", "prompt", ("order", "dynamic"),
          "a YAML sequence of eight escalation contacts in a different order per request near the top, then ~900 "
          "tokens later the member's phone number (unique); a prompt record")
def _yaml_phone(rng: random.Random, w: Writer) -> list[Pair]:
    local = random.Random(f"{w.name}/contacts")
    contacts = [f"- team: {t}\n  hours: \"{local.choice(['08:00-18:00', '24/7', '09:00-17:30'])}\"\n  note: \"{w.rule()}\""
                for t in ["billing", "field", "network", "privacy", "retention", "complaints", "wholesale", "safety"]]
    pre, mid, tail = w.preface(), w.guide(5), w.guide(4)
    out = []
    for i in range(rng.randint(130, 160)):
        order, canon = shuffled(rng, contacts)
        number = phone(rng)
        q = w.question()
        orig = prompt(i, f"{pre}\n\n```yaml\nescalation:\n" + "\n".join(order)
                      + f"\n```\n\n{mid}\n\nMember phone: {marked_phone(number)}\n\n"
                         f"{tail}\n\nMember: {q}\nAdviser:")
        fixed = prompt(i, f"{pre}\n\n```yaml\nescalation:\n" + "\n".join(canon) + f"\n```\n\n{mid}\n\n{tail}\n\nMember: {q}\n"
                          f"Member phone: {number}\nAdviser:")
        out.append((orig, fixed))
    return out


# ---------------------------------------------------------------- clean controls


@workload("clean-deploy-once-midlog", "messages", (),
          "a system prompt that changes once mid-log (a deploy adds a section) and then stays; questions last")
def _deploy(rng: random.Random, w: Writer) -> list[Pair]:
    before = "\n\n".join([w.preface(), w.guide(10)])
    after = before + "\n\n" + w.guide(2)
    n = rng.randint(140, 170)
    out = []
    for i in range(n):
        rec = chat(i, [sys_msg(before if i < n // 2 else after), user(w.question())])
        out.append((rec, rec))
    return out


@workload("clean-two-models-interleaved-prompt", "prompt", (),
          "two models' prompt families (a support prompt and a summariser prompt, sharing nothing) interleaved "
          "request by request, each static with the input last")
def _two_models(rng: random.Random, w: Writer) -> list[Pair]:
    support = "\n\n".join([w.preface(), w.guide(9)])
    summary = "\n\n".join(["Summarise the conversation below for the case file in three bullet points.", w.guide(6)])
    out = []
    for i in range(rng.randint(140, 170)):
        if rng.random() < 0.5:
            rec = prompt(i, f"{support}\n\nMember: {w.question()}\nAdviser:")
        else:
            rec = prompt(i, f"### Summariser\n{summary}\n\nConversation:\n{w.question()}\n{w.answer()}\n\nSummary:")
        out.append((rec, rec))
    return out


@workload("clean-long-prompt-growing-turns", "messages", (),
          "a 3k-token static system prompt, chats of 3-8 growing turns interleaved, the newest question always last")
def _growing(rng: random.Random, w: Writer) -> list[Pair]:
    system = "\n\n".join([w.preface(), w.guide(18)])
    lengths = [rng.randint(3, 8) for _ in range(28)]
    turns = [[(w.question(), w.answer()) for _ in range(n)] for n in lengths]
    out = []
    for i, (c, t) in enumerate(conversations(rng, lengths)):
        hist = [m for q, a in turns[c][:t] for m in (user(q), assistant(a))]
        rec = chat(i, [sys_msg(system)] + hist + [user(turns[c][t][0])])
        out.append((rec, rec))
    return out


@workload("clean-value-flips-at-end-ids", "input_ids", (),
          "a maintenance flag mid system prompt that is 'off' for every request but the last three; as token ids")
def _flip_end(rng: random.Random, w: Writer) -> list[Pair]:
    head, tail = "\n\n".join([w.preface(), w.guide(5)]), w.guide(8)
    n = rng.randint(140, 170)
    out = []
    for i in range(n):
        flag = "on" if i >= n - 3 else "off"
        rec = chat(i, [sys_msg(f"{head}\n\nMaintenance mode: {flag}\n\n{tail}"), user(w.question())])
        out.append((rec, rec))
    return out


@workload("clean-stable-tools-varying-parts", "messages", (),
          "eight stable tools with nested parameters, a static system prompt, and a user message of 1-3 content parts "
          "that vary per request")
def _tools_parts(rng: random.Random, w: Writer) -> list[Pair]:
    system = "\n\n".join([w.preface(), w.guide(8)])
    tools = [w.tool(n) for n in TOOL_NAMES[2:10]]
    out = []
    for i in range(rng.randint(140, 170)):
        texts = [w.question()] + [f"Attached note: {w.person()} says {w.ref()}" for _ in range(rng.randint(0, 2))]
        rec = chat(i, [sys_msg(system), {"role": "user", "content": parts(*texts)}], tools)
        out.append((rec, rec))
    return out


@workload("clean-freight-agent-loop-ids", "input_ids", (),
          "freight agent loops (3-7 steps) with stable tools, tool calls and results appended step by step; as token ids")
def _agent_ids(rng: random.Random, w: Writer) -> list[Pair]:
    system = "\n\n".join([w.preface(), w.guide(8)])
    tools = [w.tool(n) for n in ["track_consignment", "quote_freight", "open_case"]]
    out: list[Pair] = []
    i = 0
    for task in range(rng.randint(30, 36)):
        msgs: list[dict[str, Any]] = [sys_msg(system), user(w.question())]
        for step in range(rng.randint(3, 7)):
            rec = chat(i, [dict(m) for m in msgs], tools)
            out.append((rec, rec))
            i += 1
            ref = f"QF-2026-{rng.randint(100000, 999999)}"
            msgs.append(tool_call(f"t{task}s{step}", "track_consignment", {"reference": ref}))
            msgs.append(tool_result(f"t{task}s{step}", compact({"reference": ref, "status": rng.choice(
                ["in transit", "held at customs", "delivered"]), "eta": f"2026-12-{rng.randint(2, 28):02d}"})))
    return out


@workload("clean-rag-after-static-prompt", "prompt", (),
          "a static 2k-token prompt, then three retrieved passages (from 60) and the question last")
def _rag(rng: random.Random, w: Writer) -> list[Pair]:
    static = "\n\n".join([w.preface(), w.guide(12)])
    out = []
    for i in range(rng.randint(140, 170)):
        # Passages in corpus order (the retriever sorts by document id), so no order signal.
        docs = "\n".join(f"[doc {k}] {w.doc('kb', k)}" for k in sorted(rng.sample(range(60), 3)))
        rec = prompt(i, f"{static}\n\nContext:\n{docs}\n\nMember: {w.question()}\nAdviser:")
        out.append((rec, rec))
    return out


@workload("clean-korean-thai-static-ids", "input_ids", (),
          "a static system prompt with Korean and Thai guidance plus an English guide; Korean and Thai questions; as "
          "token ids")
def _kt(rng: random.Random, w: Writer) -> list[Pair]:
    system = "\n\n".join([w.preface(), "\n".join(KOREAN), "\n".join(THAI), w.guide(12)])
    out = []
    for i in range(rng.randint(140, 170)):
        q = rng.choice(KOREAN_ASKS + THAI_ASKS) + f" [{w.ref()}]"
        rec = chat(i, [sys_msg(system), user(q)])
        out.append((rec, rec))
    return out


@workload("clean-static-yaml-config-prompt", "prompt", (),
          "a static YAML configuration block (sequence items in one fixed order) and guide, then the question")
def _yaml_clean(rng: random.Random, w: Writer) -> list[Pair]:
    static = f"{w.preface()}\n\n```yaml\npolicies:\n" + "\n".join(_yaml_items(w, 10)) + f"\n```\n\n{w.guide(9)}"
    out = []
    for i in range(rng.randint(140, 170)):
        rec = prompt(i, f"{static}\n\nMember: {w.question()}\nAdviser:")
        out.append((rec, rec))
    return out


@workload("clean-greek-fewshot-fixed", "messages", (),
          "six Greek few-shot pairs in one fixed order after the system prompt, the real question last")
def _greek_clean(rng: random.Random, w: Writer) -> list[Pair]:
    system = "\n\n".join([w.preface(), w.guide(10)])
    shots = [m for q, a in GREEK for m in (user(q), assistant(a))]
    out = []
    for i in range(rng.randint(140, 170)):
        rec = chat(i, [sys_msg(system)] + shots + [user(f"{GREEK[rng.randrange(6)][0]} (αρ. {w.ref()})")])
        out.append((rec, rec))
    return out


# ---------------------------------------------------------------- assembly


def build_pairs(name: str, seed: int, engine: Engine) -> list[Pair]:
    """One workload's (original with markers, fixed) records, before rendering."""
    fn = next(r[4] for r in REGISTRY if r[0] == name)
    # Each workload draws from its own name and the seed only: adding one changes no other.
    rng = random.Random(f"{seed}/h4/{name}")
    org = ORGS[zlib.crc32(name.encode()) % len(ORGS)]
    writer = Writer(random.Random(f"{seed}/h4/{name}/text"), org, first_tool_key=first_tool_key(engine))
    return fn(rng, writer)


def build_workloads(seed: int = 12, engine: Engine | None = None, only: Sequence[str] | None = None) -> list[Workload]:
    """Every workload of the fourth held-out set, deterministic for ``seed``."""
    engine = engine or Engine()
    return assemble(REGISTRY, lambda name: build_pairs(name, seed, engine), engine, only)


def workload_names() -> list[str]:
    return [r[0] for r in REGISTRY]
