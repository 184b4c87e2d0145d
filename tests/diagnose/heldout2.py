"""Second held-out diagnosis set: defects in shapes neither the zoo nor the first held-out set has.

Written blind to the detector (advisor/diagnose, advisor/prescribe and the zoo were not read):
only the traffic formats of DESIGN.md and the rendering the engine does were used. It reuses
the first set's machinery (tests/diagnose/heldout.py): the MARK/UNIT convention for where
requests stop sharing, rendering through the checkout under test, the brute-force oracle and
``materialize``. The text comes from its own module (heldout2_text.py).

Shapes: YAML and XML system prompts; a clock inside a tool result of an agent's first turn;
a request id in a URL; a session footer followed by static rules; a cart count mid-prompt; one
tool's description dated per deployment day; a per-request chat_template_kwargs date_string;
a promotion code in a message between two static messages; a row of status emoji; an ISO
week number; prices in one of four locale number formats; values with 2, 3, 6, 7, 13, 50 and
10**6 settings; spans of 1 to ~500 tokens; sampled few-shot subsets; a growing conversation
summary ahead of the history; a scratchpad ahead of the tools; retrieved passages in the
system turn ahead of tools the layout renders in the first user turn; history ahead of the
instructions in completion-style prompts; XML tool catalogs, YAML blocks, JSON object keys and
tool-result lists in varying order; two sections in one of only two orders; two and three
independent defects in one request. Controls: a per-request ``name`` field the layout drops,
a varying passage set in a stable order, a tenant persona after the shared content,
per-tenant system prompts, ReAct and tool-calling agent loops, a pasted document, a daily
digest and a clock placed after all shared content, a pinned date_string kwarg.

Truth: the oracle's hit rate on the traffic after the ideal fix written here. A value with
many settings goes to the end of the last user turn; a value or block with only a few
settings goes right after the content every request shares (the end of the system prompt),
where it is still shared within its setting: moving it into the user turn would cost more
than it saves. A ``expect`` entry "a|b" accepts either class (a sampled few-shot subset is a
varying span and a reordering at once; a tenant persona ahead of the shared prompt is a value
and misplaced content at once).
"""

from __future__ import annotations

import json
import random
import zlib
from typing import Any, Callable, Sequence

from tests.diagnose.heldout import (
    assemble, registering,
    BASE_TIME, MARK, MONTHS, UNIT, WEEKDAYS, Engine, Pair, Workload, assistant, chat, clock, day_of, hexid,
    ordinal, prompt, spread, sys_msg, unmark, untimed, user, uuid,
)
from tests.diagnose.heldout2_text import (
    BUSINESSES, TOOL_ORDER, US_STATES, Writer, compact, format_amount, price_lines,
)

Builder = Callable[[random.Random, Writer], list[Pair]]
REGISTRY: list[tuple[str, str, tuple[str, ...], str, Builder, str]] = []


workload = registering(REGISTRY)


def call(call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": "",
            "tool_calls": [{"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}]}


def result(call_id: str, content: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def tenant(record: dict[str, Any], name: str) -> dict[str, Any]:
    return dict(record, tenant=name)


def interleave(rng: random.Random, lengths: Sequence[int]) -> list[tuple[int, int]]:
    """(conversation, turn) pairs: each conversation's turns in order, conversations interleaved."""
    progress = [0] * len(lengths)
    out = []
    while any(progress[c] < lengths[c] for c in range(len(lengths))):
        c = rng.choice([c for c in range(len(lengths)) if progress[c] < lengths[c]])
        out.append((c, progress[c]))
        progress[c] += 1
    return out


def stamp(ts: float) -> tuple[str, str]:
    """An ISO-8601 UTC stamp split where requests of one day stop sharing: (date part, time part)."""
    y, m, d, _ = day_of(ts)
    return f"{y}-{m:02d}-{d:02d}T", clock(ts) + "Z"


# ---------------------------------------------------------------- dynamic values


@workload("yaml-system-generated-at", "messages", ("dynamic",),
          "a generated_at stamp as the 4th key of a YAML system prompt, ~2k tokens of YAML policies after it")
def _yaml_generated(rng: random.Random, w: Writer) -> list[Pair]:
    head = f"assistant:\n  name: {w.name} helper\n  owner: {w.name}\n  prompt_version: 14\n"
    body = "\n".join([w.yaml_block("policies", 28), w.yaml_block("escalation", 12), w.yaml_block("never", 10)])
    out = []
    for i in range(rng.randint(90, 120)):
        ts = BASE_TIME + 40.0 * i + rng.uniform(0, 30)
        day, time = stamp(ts)
        q = w.question()
        orig = chat(i, [sys_msg(f'{head}  generated_at: "{UNIT}{day}{MARK}{time}"\n{body}'), user(q)], ts=ts)
        fixed = chat(i, [sys_msg(f"{head}{body}"), user(f"{q}\n\n(generated_at: {day}{time})")], ts=ts)
        out.append((orig, fixed))
    return out


@workload("xml-session-attribute", "prompt", ("dynamic",),
          "a session id attribute of an XML element between the persona and 2k tokens of XML policies")
def _xml_session(rng: random.Random, w: Writer) -> list[Pair]:
    persona = f"<persona>\n{w.opening()}\n{w.tone_block()}\n</persona>"
    policies = "<policies>\n" + "\n".join(
        f'<policy topic="{t}">{w.paragraph(4)}</policy>' for t in ["returns", "delivery", "privacy", "fraud", "pricing",
                                                                 "complaints", "minors", "outages", "promotions",
                                                                 "identity checks", "accessibility", "account changes",
                                                                 "returns", "delivery", "privacy"]) + "\n</policies>"
    knowledge = "<knowledge>\n" + "\n\n".join(w.article() for _ in range(3)) + "\n</knowledge>"
    out = []
    for i in range(rng.randint(80, 110)):
        sid = uuid(rng)
        q = w.question()
        orig = prompt(i, f'<system>\n{persona}\n<session id="{MARK}{sid}" channel="web"/>\n{policies}\n{knowledge}\n</system>\n'
                         f"<user>{q}</user>\n<assistant>")
        fixed = prompt(i, f"<system>\n{persona}\n{policies}\n{knowledge}\n</system>\n"
                          f'<user>{q}\n<session id="{sid}" channel="web"/></user>\n<assistant>')
        out.append((orig, fixed))
    return out


@workload("cron-agent-tool-result-clock", "messages", ("dynamic",),
          "an agent's fixed first turn (task, runbook tool call) whose tool result opens with a fetched_at clock "
          "before a ~1.5k-token static runbook; the per-run alert comes last")
def _cron_agent(rng: random.Random, w: Writer) -> list[Pair]:
    system = w.handbook(5)
    tools = [w.tool(n) for n in ["fetch_runbook", "list_pipelines", "retry_job", "open_incident"]]
    task = "Run the nightly platform health check. Fetch the runbook first, then follow it step by step."
    book = w.runbook(22)
    out = []
    for i in range(rng.randint(80, 110)):
        ts = BASE_TIME + 55.0 * i + rng.uniform(0, 40)
        day, time = stamp(ts)
        alert = (f"Alert {rng.choice(['HighErrorRate', 'QueueBacklog', 'DiskPressure', 'CertExpiry'])} fired for "
                 f"{rng.choice(['checkout', 'ledger', 'search', 'auth'])}-api in {rng.choice(['eu-west-1', 'us-east-2'])}, "
                 f"value {rng.randint(3, 97)}%. What do we do?")
        calling = call("call_0", "fetch_runbook", {"alert": "nightly-health-check"})
        marked = json.dumps({"fetched_at": UNIT + day + MARK + time, "runbook": book}, ensure_ascii=False)
        plain = json.dumps({"runbook": book}, ensure_ascii=False)
        orig = chat(i, [sys_msg(system), user(task), calling, result("call_0", marked), user(alert)], tools, ts)
        fixed = chat(i, [sys_msg(system), user(task), calling, result("call_0", plain),
                         user(f"{alert}\n\n(runbook fetched at {day}{time})")], tools, ts)
        out.append((orig, fixed))
    return out


@workload("cart-count-middle", "messages", ("dynamic",),
          "'the customer has N items in their cart' (13 settings) between two halves of a 2.5k-token system prompt",
          notes="13 settings: the fix puts the line at the end of the system prompt")
def _cart(rng: random.Random, w: Writer) -> list[Pair]:
    first, second = w.handbook(7), "\n\n".join([w.paragraph(5) for _ in range(9)] + [w.tone_block()])
    out = []
    for i in range(rng.randint(110, 140)):
        n = min(12, int(rng.expovariate(0.35)))
        line = f"Right now the customer has {MARK}{n} item{'' if n == 1 else 's'} in their cart."
        q = w.question()
        orig = chat(i, [sys_msg(f"{first}\n\n{line}\n\n{second}"), user(q)])
        fixed = chat(i, [sys_msg(f"{first}\n\n{second}\n\n{unmark(line)}"), user(q)])
        out.append((orig, fixed))
    return out


@workload("tool-catalog-deploy-day", "prompt", ("dynamic",),
          "a pretty-printed JSON tool catalog where only the 5th tool's description carries the deployment day "
          "(6 days), ~2k static tokens after it")
def _deploy_day(rng: random.Random, w: Writer) -> list[Pair]:
    names = TOOL_ORDER[:8]
    rules = w.handbook(9)
    out = []
    for i, ts in enumerate(spread(rng, rng.randint(100, 130), 6)):
        y, m, d, _ = day_of(ts)
        specs = [w.tool(n)["function"] for n in names]
        plain = json.dumps(specs, indent=2, ensure_ascii=False)
        specs[4]["description"] += f" (prices as of{MARK} {MONTHS[m - 1]} {d}, {y})"
        catalog = json.dumps(specs, indent=2, ensure_ascii=False)
        q = w.question()
        head = "You may call the functions below by answering with a JSON object holding name and arguments.\n\n"
        orig = prompt(i, f"{head}{catalog}\n\n{rules}\n\nCustomer: {q}\nAssistant:", ts)
        fixed = prompt(i, f"{head}{plain}\n\n{rules}\n\nPrices as of {MONTHS[m - 1]} {d}, {y}.\n\nCustomer: {q}\nAssistant:", ts)
        out.append((orig, fixed))
    return out


@workload("iso-week-ids", "input_ids", ("dynamic",),
          "an ISO week number ('2026-W49', 3 settings over three weeks) on the first line, as token ids",
          notes="3 settings: the fix puts the line at the end of the system prompt")
def _iso_week(rng: random.Random, w: Writer) -> list[Pair]:
    system = w.handbook(12)
    out = []
    for i, ts in enumerate(spread(rng, rng.randint(100, 130), 21)):
        import datetime as dt

        week = dt.datetime.fromtimestamp(ts, tz=dt.timezone.utc).isocalendar()[1]
        line = f"Sprint planning assistant, board of ISO week 2026-W{MARK}{week}."
        q = w.question()
        orig = untimed(chat(i, [sys_msg(f"{line}\n{system}"), user(q)]))
        fixed = untimed(chat(i, [sys_msg(f"Sprint planning assistant.\n{system}\n\nBoard of ISO week 2026-W{week}."), user(q)]))
        out.append((orig, fixed))
    return out


@workload("locale-price-format", "messages", ("dynamic",),
          "a 14-line price list formatted in the customer's locale (4 number formats) after the opening, "
          "~2k static tokens after it; ~180-token span",
          notes="4 settings: the fix puts the list at the end of the system prompt")
def _locale_prices(rng: random.Random, w: Writer) -> list[Pair]:
    goods = price_lines(random.Random(f"{w.name}/prices"), 14)
    head = w.opening()
    tail = "\n\n".join([w.paragraph(5) for _ in range(12)] + [w.tone_block()])
    out = []
    for i in range(rng.randint(100, 130)):
        style = rng.choice(["en", "de", "fr", "ch"])
        lines = [f"- {g}: {format_amount(v, style)}" for g, v in goods]
        lines[0] = f"- {goods[0][0]}:{MARK} {format_amount(goods[0][1], style)}"
        block = "Prices in the customer's storefront:\n" + "\n".join(lines)
        q = w.question()
        orig = chat(i, [sys_msg(f"{head}\n\n{UNIT}{block}\n\n{tail}"), user(q)])
        fixed = chat(i, [sys_msg(f"{head}\n\n{tail}\n\n{unmark(block)}"), user(q)])
        out.append((orig, fixed))
    return out


@workload("request-id-in-url", "messages", ("dynamic",),
          "a help-centre URL whose query string carries the request id, in the first paragraph of a 2k-token prompt")
def _url_ref(rng: random.Random, w: Writer) -> list[Pair]:
    domain = w.name.split()[0].lower()
    rest = w.handbook(11)
    out = []
    for i in range(rng.randint(90, 120)):
        ref = hexid(rng, 16)
        link = f"Full policies: https://help.{domain}.example/policies?ref={MARK}req_{ref}&lang=en-GB"
        q = w.question()
        orig = chat(i, [sys_msg(f"{link}\n\n{rest}"), user(q)])
        fixed = chat(i, [sys_msg(f"Full policies: https://help.{domain}.example/policies?lang=en-GB\n\n{rest}"),
                         user(f"{q}\n\n(ref req_{ref})")])
        out.append((orig, fixed))
    return out


@workload("session-footer-then-rules", "prompt", ("dynamic",),
          "a markdown footer ('_session 3f9c... - build 2026.12.1_') under the handbook, followed by ~900 tokens of static rules")
def _footer(rng: random.Random, w: Writer) -> list[Pair]:
    handbook = w.handbook(8)
    rules = "Rules that always apply:\n" + "\n".join(w.rules(30))
    out = []
    for i in range(rng.randint(90, 120)):
        sid = hexid(rng, 12)
        footer = f"---\n_session{MARK} {sid} - build 2026.12.1_"
        q = w.question()
        orig = prompt(i, f"{handbook}\n\n{footer}\n\n{rules}\n\nCustomer: {q}\nAgent:")
        fixed = prompt(i, f"{handbook}\n\n{rules}\n\nCustomer: {q}\n{unmark(footer)}\nAgent:")
        out.append((orig, fixed))
    return out


@workload("weekday-one-token", "messages", ("dynamic",),
          "a one-token weekday ('Today is Friday.', 7 settings over 7 days) after the opening paragraph",
          notes="7 settings: the fix puts the sentence at the end of the system prompt")
def _weekday(rng: random.Random, w: Writer) -> list[Pair]:
    head, rest = w.opening(), w.handbook(13)
    out = []
    for i, ts in enumerate(spread(rng, rng.randint(110, 140), 7)):
        wd = WEEKDAYS[day_of(ts)[3]]
        q = w.question()
        orig = untimed(chat(i, [sys_msg(f"{head} Today is{MARK} {wd}.\n\n{rest}"), user(q)]))
        fixed = untimed(chat(i, [sys_msg(f"{head}\n\n{rest}\n\nToday is {wd}."), user(q)]))
        out.append((orig, fixed))
    return out


@workload("us-state-50", "prompt", ("dynamic",),
          "the customer's US state (50 settings) in the second sentence of a 2.5k-token prompt record",
          notes="50 settings, ~3 requests each: the fix puts it after the static rules, before the question")
def _state(rng: random.Random, w: Writer) -> list[Pair]:
    rest = w.handbook(14)
    out = []
    for i in range(rng.randint(150, 190)):
        st = rng.choice(US_STATES)
        q = w.question()
        line = f"Consumer-protection assistant for {w.name}. The customer lives in {MARK}{st}; apply that state's rules."
        orig = prompt(i, f"{line}\n\n{rest}\n\nQuestion: {q}\nAnswer:")
        fixed = prompt(i, f"Consumer-protection assistant for {w.name}.\n\n{rest}\n\nThe customer lives in {st}; apply that "
                          f"state's rules.\nQuestion: {q}\nAnswer:")
        out.append((orig, fixed))
    return out


@workload("order-number-ids", "input_ids", ("dynamic",),
          "a 7-digit order number (all distinct) in a sentence inside the 4th section of the system prompt, as token ids")
def _order_number(rng: random.Random, w: Writer) -> list[Pair]:
    first, second = w.handbook(3), "\n\n".join(w.paragraph(5) for _ in range(10))
    out = []
    for i in range(rng.randint(90, 120)):
        n = rng.randint(1_000_000, 9_999_999)
        sentence = f"The customer is writing about {w.ordn} #{MARK}{n}; its record is attached below the question."
        q = w.question()
        orig = chat(i, [sys_msg(f"{first}\n\n{sentence}\n\n{second}"), user(q)])
        fixed = chat(i, [sys_msg(f"{first}\n\n{second}"), user(f"{q}\n\n{unmark(sentence)}")])
        out.append((orig, fixed))
    return out


@workload("csv-activity-500", "messages", ("dynamic",),
          "a ~500-token CSV of the account's recent activity inside an XML-tagged system prompt, ~1.5k static tokens after it")
def _csv(rng: random.Random, w: Writer) -> list[Pair]:
    instructions = f"<instructions>\n{w.opening()}\n{w.paragraph(5)}\n</instructions>"
    reference = "<reference>\n" + "\n\n".join(w.article(sentences=7) for _ in range(6)) + "\n</reference>"
    out = []
    for i in range(rng.randint(80, 100)):
        csv = w.csv_activity(rng.randint(21, 25), rng)
        header, rows = csv.split("\n", 1)
        block = f"<account_activity>\n{header}\n{MARK}{rows}\n</account_activity>"
        q = w.question()
        orig = chat(i, [sys_msg(f"{instructions}\n{block}\n{reference}"), user(q)])
        fixed = chat(i, [sys_msg(f"{instructions}\n{reference}"), user(f"{q}\n\n{unmark(block)}")])
        out.append((orig, fixed))
    return out


@workload("persona-5-before-shared", "messages", ("dynamic|placement",),
          "a tenant persona (5 tenants, ~250 tokens, static within a tenant) ahead of a 4k-token shared prompt",
          notes="the fix puts the persona after the shared prompt; small traffic, so 4 extra copies matter")
def _persona_before(rng: random.Random, w: Writer) -> list[Pair]:
    shared = w.handbook(38)
    personas = [w.persona(k) for k in range(5)]
    out = []
    for i in range(rng.randint(80, 100)):
        k = rng.randrange(5)
        p = personas[k]
        marked = UNIT + p.replace("for the ", f"for the {MARK}", 1)
        q = w.question()
        orig = tenant(chat(i, [sys_msg(f"{marked}\n\n{shared}"), user(q)]), f"brand-{k}")
        fixed = tenant(chat(i, [sys_msg(f"{shared}\n\n{p}"), user(q)]), f"brand-{k}")
        out.append((orig, fixed))
    return out


@workload("fewshot-sampled-subset", "messages", ("dynamic|order",),
          "4 of 10 few-shot Q/A examples sampled per request, in random order, after the opening; ~1.8k static tokens after them")
def _fewshot_subset(rng: random.Random, w: Writer) -> list[Pair]:
    pool = w.faq(10)
    head, tail = w.opening(), w.handbook(10)
    out = []
    for i in range(rng.randint(90, 120)):
        picked = rng.sample(range(10), 4)
        ex = "\n\n".join(f"Q: {pool[k][0]}\nA: {pool[k][1]}" for k in picked)
        canon = "\n\n".join(f"Q: {pool[k][0]}\nA: {pool[k][1]}" for k in sorted(picked))
        q = w.question()
        orig = chat(i, [sys_msg(f"{head}\n\nExamples:\n\nQ: {MARK}{ex[3:]}\n\n{tail}"), user(q)])
        fixed = chat(i, [sys_msg(f"{head}\n\n{tail}\n\nExamples:\n\n{canon}"), user(q)])
        out.append((orig, fixed))
    return out


@workload("growing-summary-before-history", "messages", ("dynamic|placement",),
          "a rolling conversation summary ('after N turns: ...') as a second system message ahead of the full history, "
          "rewritten every turn of interleaved chats")
def _summary_growing(rng: random.Random, w: Writer) -> list[Pair]:
    system = w.handbook(9)
    convs = []
    for _ in range(rng.randint(22, 28)):
        turns = [(w.question(), w.answer()) for _ in range(rng.randint(4, 6))]
        notes = [w.kb() for _ in turns]
        convs.append((turns, notes))
    out: list[Pair] = []
    for i, (c, k) in enumerate(interleave(rng, [len(t) for t, _ in convs])):
        turns, notes = convs[c]
        summary = (f"Conversation summary after {MARK}{k} turns: " + " ".join(notes[:k])) if k else \
            f"Conversation summary after {MARK}0 turns: nothing yet."
        history: list[dict[str, Any]] = []
        for q, a in turns[:k]:
            history += [user(q), assistant(a)]
        orig = chat(i, [sys_msg(system), sys_msg(summary)] + history + [user(turns[k][0])])
        fixed = chat(i, [sys_msg(system)] + history + [user(f"{turns[k][0]}\n\n({unmark(summary)})")])
        out.append((orig, fixed))
    return out


@workload("region-2-settings", "prompt", ("dynamic",),
          "a data-residency line with 2 settings (EU or US) on line 2 of a 4k-token prompt record",
          notes="2 settings: one extra copy of the prompt, a gain of about 1%")
def _region2(rng: random.Random, w: Writer) -> list[Pair]:
    rest = w.handbook(38)
    out = []
    for i in range(rng.randint(90, 110)):
        region = rng.choice(["EU", "US"])
        q = w.question()
        orig = prompt(i, f"{w.name} assistant\nData residency for this workspace: {MARK}{region}.\n\n{rest}\n\nQ: {q}\nA:")
        fixed = prompt(i, f"{w.name} assistant\n\n{rest}\n\nData residency for this workspace: {region}.\nQ: {q}\nA:")
        out.append((orig, fixed))
    return out


@workload("loyalty-points-xml-attr", "messages", ("dynamic",),
          "a loyalty balance (1000+ distinct values) as an XML attribute in a <customer> tag between two XML sections",
          notes="only the points change; the tier around them is static")
def _loyalty(rng: random.Random, w: Writer) -> list[Pair]:
    a = "<rules>\n" + "\n".join(w.rules(14)) + "\n</rules>"
    b = "<catalog_notes>\n" + "\n\n".join(w.article(sentences=6) for _ in range(6)) + "\n</catalog_notes>"
    out = []
    for i in range(rng.randint(90, 120)):
        pts = rng.randint(0, 250_000)
        tag = f'<customer tier="member" points="{MARK}{pts}"/>'
        q = w.question()
        orig = chat(i, [sys_msg(f"{a}\n{tag}\n{b}"), user(q)])
        fixed = chat(i, [sys_msg(f"{a}\n{b}"), user(f"{q}\n\n{unmark(tag)}")])
        out.append((orig, fixed))
    return out


@workload("template-date-string-kwarg", "messages", ("dynamic",),
          "the request passes chat_template_kwargs.date_string (the day, 5 days), which the chat template writes "
          "at the top of the system turn",
          notes="the fix drops the kwarg and states the day at the end of the system prompt")
def _date_kwarg(rng: random.Random, w: Writer) -> list[Pair]:
    system = w.handbook(12)
    out = []
    for i, ts in enumerate(spread(rng, rng.randint(100, 130), 5)):
        y, m, d, _ = day_of(ts)
        day = f"{d:02d} {MONTHS[m - 1][:3]} {y}"
        q = w.question()
        orig = untimed(chat(i, [sys_msg(system), user(q)]))
        orig["chat_template_kwargs"] = {"date_string": MARK + day}
        fixed = untimed(chat(i, [sys_msg(f"{system}\n\nToday's date: {day}."), user(q)]))
        out.append((orig, fixed))
    return out


@workload("promo-message-between-static", "messages", ("dynamic",),
          "a one-line system message with the promotion code of the hour (~15 settings) between the static policy "
          "message and a static catalog message",
          notes="the fix sends the promotion message after the catalog")
def _promo(rng: random.Random, w: Writer) -> list[Pair]:
    policies = w.handbook(8)
    catalog = "Catalog notes:\n\n" + "\n\n".join(w.article(sentences=7) for _ in range(5))
    codes = ["".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ") for _ in range(5)) + str(rng.randint(10, 99)) for _ in range(20)]
    out = []
    for i in range(rng.randint(100, 130)):
        ts = BASE_TIME + 420.0 * i
        hour = int((ts - BASE_TIME) // 3600)
        promo = f"Promotion running now: code {MARK}{codes[hour % 20]} takes {5 * (1 + hour % 4)}% off until the top of the hour."
        q = w.question()
        orig = chat(i, [sys_msg(policies), sys_msg(promo), sys_msg(catalog), user(q)], ts=ts)
        fixed = chat(i, [sys_msg(policies), sys_msg(catalog), sys_msg(unmark(promo)), user(q)], ts=ts)
        out.append((orig, fixed))
    return out


@workload("status-emoji-row", "prompt", ("dynamic",),
          "a row of service-status emoji (mostly all green) after the first paragraph of a prompt record, "
          "~1.8k static tokens after it",
          notes="few settings in practice: the fix puts the row after the static text, before the question")
def _status(rng: random.Random, w: Writer) -> list[Pair]:
    services = ["checkout", "search", "payments", "login", "email"]
    head, rest = w.opening(), w.handbook(14)
    out = []
    for i in range(rng.randint(100, 130)):
        states = [rng.choices(["\U0001F7E2", "\U0001F7E1", "\U0001F534"], [0.88, 0.08, 0.04])[0] for _ in services]
        row = " \u00b7 ".join(f"{s} {e}" for s, e in zip(services, states))
        marked = row.replace(f"{services[0]} ", f"{services[0]}{MARK} ", 1)
        q = w.question()
        orig = prompt(i, f"{head}\n\nService status: {marked}\n\n{rest}\n\nCustomer: {q}\nAssistant:")
        fixed = prompt(i, f"{head}\n\n{rest}\n\nService status: {row}\n\nCustomer: {q}\nAssistant:")
        out.append((orig, fixed))
    return out


# ---------------------------------------------------------------- order


@workload("xml-tools-shuffled", "prompt", ("order",),
          "seven <tool name=...> elements holding compact JSON specs, in a different order per request, before ~1.5k static tokens")
def _xml_tools(rng: random.Random, w: Writer) -> list[Pair]:
    names = TOOL_ORDER[:7]
    specs = {n: compact(w.tool(n)["function"]["parameters"]) for n in names}
    descs = {n: w.tool(n)["function"]["description"] for n in names}
    rest = w.handbook(10)
    out = []
    for i in range(rng.randint(90, 120)):
        order = list(names)
        rng.shuffle(order)

        def block(ns: list[str], mark: bool) -> str:
            items = [f'<tool name="{(MARK if mark and j == 0 else "") + n}" description="{descs[n]}">{specs[n]}</tool>'
                     for j, n in enumerate(ns)]
            return "<tools>\n" + "\n".join(items) + "\n</tools>"
        q = w.question()
        head = "Call a tool by writing <call name=...>arguments as JSON</call>.\n"
        orig = prompt(i, f"{head}{block(order, True)}\n\n{rest}\n\nUser: {q}\nAssistant:")
        fixed = prompt(i, f"{head}{block(names, False)}\n\n{rest}\n\nUser: {q}\nAssistant:")
        out.append((orig, fixed))
    return out


@workload("tools-field-shuffled-ids", "input_ids", ("order",),
          "eight tools of the request's tools field in a different order per request (the layout puts them in the "
          "first user turn), as token ids")
def _tools_ids(rng: random.Random, w: Writer) -> list[Pair]:
    names = TOOL_ORDER[2:10]
    system = w.handbook(8)
    out = []
    for i in range(rng.randint(90, 120)):
        order = list(names)
        rng.shuffle(order)
        tools = [w.tool(n) for n in order]
        first = w.first_tool_key  # the field the engine's preprocessing writes first
        tools[0]["function"][first] = MARK + tools[0]["function"][first]
        tools[0]["type"] = UNIT + tools[0]["type"]
        q = w.question()
        out.append((chat(i, [sys_msg(system), user(q)], tools),
                    chat(i, [sys_msg(system), user(q)], [w.tool(n) for n in names])))
    return out


YAML_BLOCKS = ["refunds", "delivery", "privacy", "escalation", "tone"]


@workload("yaml-blocks-shuffled", "messages", ("order",),
          "five top-level blocks of a YAML system prompt emitted in a different order per request (dict/set iteration), "
          "then a static knowledge block")
def _yaml_shuffled(rng: random.Random, w: Writer) -> list[Pair]:
    blocks = {k: w.yaml_block(k, 7) for k in YAML_BLOCKS}
    head = f"# assistant configuration for {w.name}\nversion: 3\n"
    knowledge = "knowledge: |\n" + "\n".join("  " + w.kb() for _ in range(22))
    out = []
    for i in range(rng.randint(90, 120)):
        order = list(YAML_BLOCKS)
        rng.shuffle(order)
        text = "\n".join(blocks[k] for k in order)
        q = w.question()
        orig = chat(i, [sys_msg(f"{head}{MARK}{text}\n{knowledge}"), user(q)])
        fixed = chat(i, [sys_msg(head + "\n".join(blocks[k] for k in YAML_BLOCKS) + f"\n{knowledge}"), user(q)])
        out.append((orig, fixed))
    return out


@workload("pinned-docs-shuffled-ids", "input_ids", ("order",),
          "the same five pinned documents in a second system message, in a different order per request, before the "
          "question; as token ids")
def _pinned(rng: random.Random, w: Writer) -> list[Pair]:
    system = w.handbook(6)
    docs = [w.passage(d, 7) for d in (3, 11, 17, 24, 31)]
    out = []
    for i in range(rng.randint(90, 120)):
        order = list(range(5))
        rng.shuffle(order)
        q = w.question()
        text = "\n\n".join(docs[k] for k in order)
        orig = chat(i, [sys_msg(system), sys_msg(f"Pinned documents:\n\n(doc {MARK}{text[5:]}"), user(q)])
        fixed = chat(i, [sys_msg(system), sys_msg("Pinned documents:\n\n" + "\n\n".join(docs)), user(q)])
        out.append((orig, fixed))
    return out


@workload("json-catalog-key-order", "prompt", ("order",),
          "a pretty-printed JSON object of 8 products keyed by SKU with the keys in a different order per request, "
          "before the static instructions")
def _catalog_keys(rng: random.Random, w: Writer) -> list[Pair]:
    local = random.Random(f"{w.name}/catalog")
    goods = price_lines(local, 8)
    catalog = {}
    for g, v in goods:
        sku = "".join(part[:3].upper() for part in g.split()) + f"-{local.randint(10, 99)}"
        catalog[sku] = {"name": g, "price_gbp": v, "weight_g": local.randint(80, 4000),
                        "colours": local.sample(["black", "moss", "rust", "slate", "sand", "navy"], 3),
                        "ships_in_days": local.randint(1, 9)}
    skus = sorted(catalog)
    rest = w.handbook(9)
    out = []
    for i in range(rng.randint(90, 120)):
        order = list(skus)
        rng.shuffle(order)
        text = json.dumps({k: catalog[k] for k in order}, indent=2)
        text = text.replace('{\n  "', '{\n  "' + MARK, 1)
        q = w.question()
        orig = prompt(i, f"Product catalog:\n{text}\n\n{rest}\n\nShopper: {q}\nAssistant:")
        fixed = prompt(i, f"Product catalog:\n{json.dumps({k: catalog[k] for k in skus}, indent=2)}\n\n{rest}\n\nShopper: {q}\nAssistant:")
        out.append((orig, fixed))
    return out


@workload("tool-result-list-shuffled", "messages", ("order",),
          "an agent's fixed first tool call whose result lists the same six briefing sections in a different order per request")
def _result_list(rng: random.Random, w: Writer) -> list[Pair]:
    system = w.handbook(5)
    tools = [w.tool(n) for n in ["fetch_runbook", "open_incident"]]
    sections = [{"title": t, "body": w.paragraph(4)} for t in ["Deploy freeze", "On-call rota", "Open incidents",
                                                               "Capacity", "Security notices", "Customer escalations"]]
    task = "Prepare the morning operations briefing from the briefing sections."
    out = []
    for i in range(rng.randint(80, 110)):
        order = list(range(6))
        rng.shuffle(order)
        items = [dict(sections[k]) for k in order]
        items[0]["title"] = MARK + items[0]["title"]
        q = f"Focus on {rng.choice(['payments', 'search', 'the mobile app', 'login'])}: {w.question()}"
        calling = call("call_1", "fetch_runbook", {"alert": "morning-briefing"})
        orig = chat(i, [sys_msg(system), user(task), calling, result("call_1", json.dumps({"sections": items}, ensure_ascii=False)),
                        user(q)], tools)
        fixed = chat(i, [sys_msg(system), user(task), calling, result("call_1", json.dumps({"sections": sections})), user(q)], tools)
        out.append((orig, fixed))
    return out


@workload("two-shuffled-lists", "messages", ("order", "order"),
          "two independent bullet lists (escalation contacts, then a glossary ~600 tokens later) each shuffled per request")
def _two_lists(rng: random.Random, w: Writer) -> list[Pair]:
    contacts = [f"{w.person()} ({role}): ext. {rng.randint(2000, 2999)}" for role in
                ["payments", "fraud", "privacy", "stores", "logistics", "press"]]
    glossary = [f"{t}: {w.kb()}" for t in ["hold", "chargeback", "RMA", "split shipment", "click and collect",
                                           "price match", "store credit", "backorder"]]
    mid = "\n\n".join(w.paragraph(5) for _ in range(5))
    tail = w.handbook(6)
    out = []
    for i in range(rng.randint(90, 120)):
        c, g = list(contacts), list(glossary)
        rng.shuffle(c)
        rng.shuffle(g)
        q = w.question()
        orig = chat(i, [sys_msg(f"Escalation contacts:\n{UNIT}- {MARK}" + "\n- ".join(c) + f"\n\n{mid}\n\nGlossary:\n{UNIT}- {MARK}"
                                + "\n- ".join(g) + f"\n\n{tail}"), user(q)])
        fixed = chat(i, [sys_msg("Escalation contacts:\n- " + "\n- ".join(contacts) + f"\n\n{mid}\n\nGlossary:\n- "
                                 + "\n- ".join(glossary) + f"\n\n{tail}"), user(q)])
        out.append((orig, fixed))
    return out


@workload("two-orders-only", "prompt", ("order",),
          "two code paths: the policies and catalog sections (~900 tokens each) come in one of only two orders",
          notes="only one extra copy of the sections: a gain of about 1.5%")
def _two_orders(rng: random.Random, w: Writer) -> list[Pair]:
    policies = "## Policies\n" + w.handbook(7)
    catalog = "## Catalog\n" + "\n\n".join(w.article(sentences=8) for _ in range(5))
    head = f"{w.name} shop assistant\n\n"
    out = []
    for i in range(rng.randint(90, 110)):
        first, second = (policies, catalog) if rng.random() < 0.5 else (catalog, policies)
        q = w.question()
        orig = prompt(i, f"{head}{UNIT}## {MARK}{first[3:]}\n\n{second}\n\nShopper: {q}\nAssistant:")
        fixed = prompt(i, f"{head}{policies}\n\n{catalog}\n\nShopper: {q}\nAssistant:")
        out.append((orig, fixed))
    return out


# ---------------------------------------------------------------- per-request content before shared content


@workload("docs-in-system-multiturn", "messages", ("placement",),
          "per-conversation retrieved passages at the top of the system message, ahead of a 2k-token static prompt, "
          "in growing interleaved chats")
def _docs_multiturn(rng: random.Random, w: Writer) -> list[Pair]:
    system = w.handbook(14)
    convs = []
    for _ in range(rng.randint(22, 28)):
        docs = "\n\n".join(w.passage(d) for d in rng.sample(range(80), 3))
        convs.append((docs, [(w.question(), w.answer()) for _ in range(rng.randint(3, 5))]))
    out: list[Pair] = []
    for i, (c, k) in enumerate(interleave(rng, [len(t) for _, t in convs])):
        docs, turns = convs[c]
        history: list[dict[str, Any]] = []
        for q, a in turns[:k]:
            history += [user(q), assistant(a)]
        history.append(user(turns[k][0]))
        orig = chat(i, [sys_msg(f"Context for this conversation:\n(doc {MARK}{docs[5:]}\n\n{system}")] + history)
        fixed = chat(i, [sys_msg(f"{system}\n\nContext for this conversation:\n{docs}")] + history)
        out.append((orig, fixed))
    return out


@workload("scratchpad-before-tools-prompt", "prompt", ("placement",),
          "an agent prompt record opening with its growing scratchpad, ahead of the static tool list and instructions")
def _scratchpad(rng: random.Random, w: Writer) -> list[Pair]:
    tools = "\n".join(compact(w.tool(n)["function"]) for n in TOOL_ORDER[:8])
    instructions = w.handbook(6)
    out: list[Pair] = []
    i = 0
    for _ in range(rng.randint(28, 36)):
        task = w.question()
        notes: list[str] = []
        for _step in range(rng.randint(2, 4)):
            pad = "\n".join(notes) if notes else "(empty)"
            orig = prompt(i, f"Scratchpad (your notes so far):\n{MARK}{pad}\n\nTools:\n{tools}\n\nInstructions:\n{instructions}\n\n"
                             f"Task: {task}\nNext step:")
            fixed = prompt(i, f"Tools:\n{tools}\n\nInstructions:\n{instructions}\n\nTask: {task}\n\n"
                              f"Scratchpad (your notes so far):\n{pad}\nNext step:")
            out.append((orig, fixed))
            i += 1
            tool = rng.choice(TOOL_ORDER[:8])
            notes.append(f"- Called {tool}; it returned {rng.randint(0, 40)} rows. {w.kb()}")
    return out


@workload("passages-in-system-tools-after", "messages", ("placement",),
          "retrieved passages as the whole system message; the static tools (~1k tokens) render after them, "
          "at the top of the first user turn")
def _passages_tools(rng: random.Random, w: Writer) -> list[Pair]:
    tools = [w.tool(n) for n in TOOL_ORDER[:9]]
    out = []
    for i in range(rng.randint(90, 120)):
        docs = "\n\n".join(w.passage(d) for d in rng.sample(range(120), 3))
        q = w.question()
        orig = chat(i, [sys_msg(f"Use these retrieved passages when they help:\n(doc {MARK}{docs[5:]}"), user(q)], tools)
        fixed = chat(i, [user(f"Use these retrieved passages when they help:\n{docs}\n\nQuestion: {q}")], tools)
        out.append((orig, fixed))
    return out


@workload("history-before-instructions-prompt", "prompt", ("placement",),
          "a completion-style chat prompt: the conversation so far first, then 1.8k tokens of static instructions, "
          "then the latest message; interleaved growing chats")
def _history_first(rng: random.Random, w: Writer) -> list[Pair]:
    instructions = w.handbook(12)
    convs = [[(w.question(), w.answer()) for _ in range(rng.randint(3, 6))] for _ in range(rng.randint(22, 28))]
    out: list[Pair] = []
    for i, (c, k) in enumerate(interleave(rng, [len(t) for t in convs])):
        turns = convs[c]
        hist = "\n".join(f"Customer: {q}\nAgent: {a}" for q, a in turns[:k]) or "(none)"
        latest = turns[k][0]
        orig = prompt(i, f"### Conversation so far\n{MARK}{hist}\n\n### Instructions\n{instructions}\n\n### Latest message\n"
                         f"Customer: {latest}\nAgent:")
        fixed = prompt(i, f"### Instructions\n{instructions}\n\n### Conversation so far\n{hist}\n\n### Latest message\n"
                          f"Customer: {latest}\nAgent:")
        out.append((orig, fixed))
    return out


@workload("profile-xml-before-policies-ids", "input_ids", ("placement",),
          "a <user_profile> XML block (60 users, ~150 tokens) opening the system message, ahead of 2k tokens of "
          "policies, as token ids")
def _profile_xml(rng: random.Random, w: Writer) -> list[Pair]:
    policies = "<policies>\n" + w.handbook(13) + "\n</policies>"
    users = []
    for _ in range(60):
        users.append(f"name: {MARK}{w.person()}\ntier: {rng.choice(['bronze', 'silver', 'gold'])}\n"
                     f"customer_since: {rng.randint(2012, 2025)}\nhome_store: {rng.choice(['Aberdeen', 'Ghent', 'Graz', 'Brno'])}\n"
                     f"notes: {w.kb()} {w.kb()}")
    out = []
    for i in range(rng.randint(130, 160)):
        prof = rng.choice(users)
        q = w.question()
        orig = chat(i, [sys_msg(f"{UNIT}<user_profile>\n{prof}\n</user_profile>\n\n{policies}"), user(q)])
        fixed = chat(i, [sys_msg(f"{policies}\n\n<user_profile>\n{unmark(prof)}\n</user_profile>"), user(q)])
        out.append((orig, fixed))
    return out


# ---------------------------------------------------------------- several defects in one request


@workload("three-defects-prompt", "prompt", ("dynamic", "order", "dynamic"),
          "a daily date on line 1 (3 days), a shuffled priorities list ~150 tokens in, and a ref id footer ahead of "
          "~700 tokens of static rules")
def _three(rng: random.Random, w: Writer) -> list[Pair]:
    priorities = w.rules(6)
    mid = w.handbook(6)
    rules = "Standing rules:\n" + "\n".join(w.rules(24))
    out = []
    for i, ts in enumerate(spread(rng, rng.randint(120, 150), 3)):
        y, m, d, wd = day_of(ts)
        date = f"{WEEKDAYS[wd]} {ordinal(d)} {MONTHS[m - 1]} {y}"
        pr = list(priorities)
        rng.shuffle(pr)
        ref = hexid(rng, 10)
        q = w.question()
        orig = prompt(i, f"Date: {MARK}{date}\n{w.name} support desk. Priorities:\n{UNIT}- {MARK}" + "\n".join(pr)[2:]
                         + f"\n\n{mid}\n\n_ref {MARK}{ref}_\n\n{rules}\n\nQ: {q}\nA:", ts)
        fixed = prompt(i, f"{w.name} support desk. Priorities:\n" + "\n".join(priorities)
                          + f"\n\n{mid}\n\n{rules}\n\nDate: {date}\n\nQ: {q}\n_ref {ref}_\nA:", ts)
        out.append((orig, fixed))
    return out


@workload("passages-first-and-cart-ids", "input_ids", ("placement", "dynamic"),
          "retrieved passages as the first system message ahead of the static one, which itself holds a cart count "
          "mid-way; as token ids")
def _passages_cart(rng: random.Random, w: Writer) -> list[Pair]:
    first, second = w.handbook(7), w.handbook(7)
    out = []
    for i in range(rng.randint(100, 130)):
        docs = "Retrieved:\n" + "\n\n".join(w.passage(d) for d in rng.sample(range(90), 2))
        marked = docs.replace("(doc ", "(doc " + MARK, 1)
        n = rng.randint(0, 12)
        line = f"Items in the customer's cart: {MARK}{n}."
        q = w.question()
        orig = chat(i, [sys_msg(marked), sys_msg(f"{first}\n\n{line}\n\n{second}"), user(q)])
        fixed = chat(i, [sys_msg(f"{first}\n\n{second}"), sys_msg(docs), user(f"{q}\n\n{unmark(line)}")])
        out.append((orig, fixed))
    return out


@workload("yaml-date-and-shuffled-fewshot", "messages", ("dynamic", "order"),
          "a date key near the top of a YAML system prompt (4 days) and five few-shot user/assistant turns shuffled "
          "per request")
def _yaml_date_fewshot(rng: random.Random, w: Writer) -> list[Pair]:
    body = "\n".join([w.yaml_block("policies", 22), w.yaml_block("escalation", 8)])
    shots = w.faq(5)
    out = []
    for i, ts in enumerate(spread(rng, rng.randint(100, 130), 4)):
        y, m, d, _ = day_of(ts)
        order = list(range(5))
        rng.shuffle(order)
        msgs = [sys_msg(f"assistant: {w.name}\ndate: {y}-{MARK}{m:02d}-{d:02d}\n{body}")]
        fixed = [sys_msg(f"assistant: {w.name}\n{body}")]
        for j, k in enumerate(order):
            msgs += [user((MARK if j == 0 else "") + shots[k][0]), assistant(shots[k][1])]
        for sq, sa in shots:
            fixed += [user(sq), assistant(sa)]
        q = w.question()
        msgs.append(user(q))
        fixed.append(user(f"{q}\n\n(date: {y}-{m:02d}-{d:02d})"))
        out.append((untimed(chat(i, msgs)), untimed(chat(i, fixed))))
    return out


# ---------------------------------------------------------------- clean controls


@workload("clean-name-field-varies", "messages", (),
          "a per-request 'name' on every user message, which the chat layout does not render; static prompt")
def _name_field(rng: random.Random, w: Writer) -> list[Pair]:
    system = w.handbook(10)
    out = []
    for i in range(rng.randint(90, 120)):
        who = f"customer_{rng.randint(10000, 99999)}"
        rec = chat(i, [sys_msg(system), {"role": "user", "name": who, "content": w.question()}])
        out.append((rec, rec))
    return out


@workload("clean-passage-set-varies-sorted", "messages", (),
          "2-5 passages from a corpus of 10, always in ascending id order (the set varies, the order never does), "
          "after the static system prompt, question last")
def _sorted_set(rng: random.Random, w: Writer) -> list[Pair]:
    system = w.handbook(10)
    corpus = [w.passage(d) for d in range(10)]
    out = []
    for i in range(rng.randint(100, 130)):
        picked = sorted(rng.sample(range(10), rng.randint(2, 5)))
        docs = "\n\n".join(corpus[k] for k in picked)
        rec = chat(i, [sys_msg(system), user(f"Relevant passages:\n\n{docs}\n\nQuestion: {w.question()}")])
        out.append((rec, rec))
    return out


@workload("clean-persona-5-after-shared", "messages", (),
          "a tenant persona (5 tenants) at the end of the system prompt, after 3k tokens every tenant shares")
def _persona_after(rng: random.Random, w: Writer) -> list[Pair]:
    shared = w.handbook(30)
    personas = [w.persona(k) for k in range(5)]
    out = []
    for i in range(rng.randint(100, 130)):
        k = rng.randrange(5)
        rec = tenant(chat(i, [sys_msg(f"{shared}\n\n{personas[k]}"), user(w.question())]), f"brand-{k}")
        out.append((rec, rec))
    return out


@workload("clean-react-agent-prompt", "prompt", (),
          "ReAct prompt records: static tools and instructions, the task, then Thought/Action/Observation lines "
          "appended step by step")
def _react(rng: random.Random, w: Writer) -> list[Pair]:
    tools = "\n".join(f"{n}: {w.tool(n)['function']['description']}" for n in TOOL_ORDER)
    head = (f"Answer the task using the tools.\n\nTools:\n{tools}\n\n{w.handbook(10)}\n\n"
            "Use this format:\nThought: ...\nAction: ...\nObservation: ...\n")
    out: list[Pair] = []
    i = 0
    for _ in range(rng.randint(28, 36)):
        text = f"{head}\nTask: {w.question()}\n"
        for _step in range(rng.randint(2, 4)):
            rec = prompt(i, text + "Thought:")
            out.append((rec, rec))
            i += 1
            tool = rng.choice(TOOL_ORDER)
            text += (f"Thought: I should check with {tool}.\nAction: {tool}({{\"ref\": \"{w.ref()}\"}})\n"
                     f"Observation: {w.kb()} (at {clock(BASE_TIME + 19.0 * i)})\n")
    return out


@workload("clean-agent-loop-ids", "input_ids", (),
          "tool-calling agent loops as token ids: static tools, tool results holding timestamps and ids, appended step by step")
def _agent_ids(rng: random.Random, w: Writer) -> list[Pair]:
    system = w.handbook(6)
    names = ["get_order_status", "check_inventory", "issue_refund", "schedule_callback"]
    tools = [w.tool(n) for n in names]
    out: list[Pair] = []
    i = 0
    for task in range(rng.randint(24, 30)):
        msgs: list[dict[str, Any]] = [sys_msg(system), user(w.question())]
        for step in range(rng.randint(2, 4)):
            rec = chat(i, [dict(m) for m in msgs], tools)
            out.append((rec, rec))
            i += 1
            name = rng.choice(names[:2])
            args = {"order_id": w.ref()} if name == "get_order_status" else {"sku": f"SKU-{rng.randint(1000, 9999)}"}
            msgs.append(call(f"c{task}_{step}", name, args))
            day, time = stamp(BASE_TIME + 23.0 * i)
            msgs.append(result(f"c{task}_{step}", json.dumps({"checked_at": day + time, "status": rng.choice(
                ["packed", "in transit", "delayed", "in stock", "out of stock"]), "id": uuid(rng)})))
    return out


@workload("clean-clock-last-prompt", "prompt", (),
          "a prompt record with a static 2k-token prefix, the question, then the current time just before 'Answer:'")
def _clock_last(rng: random.Random, w: Writer) -> list[Pair]:
    body = w.handbook(13)
    out = []
    for i in range(rng.randint(90, 120)):
        ts = BASE_TIME + 47.0 * i
        day, time = stamp(ts)
        rec = prompt(i, f"{body}\n\nQuestion: {w.question()}\nCurrent time: {day}{time}\nAnswer:", ts)
        out.append((rec, rec))
    return out


@workload("clean-per-tenant-system-prompts", "messages", (),
          "four tenants, each with its own wholly different system prompt (nothing shared after the chat header)")
def _per_tenant(rng: random.Random, w: Writer) -> list[Pair]:
    writers = [Writer(random.Random(f"{w.name}/tenant/{k}"), BUSINESSES[k]) for k in range(4)]
    systems = [x.handbook(9 + 2 * k) for k, x in enumerate(writers)]
    out = []
    for i in range(rng.randint(100, 130)):
        k = rng.randrange(4)
        rec = tenant(chat(i, [sys_msg(systems[k]), user(writers[k].question())]), f"tenant-{k}")
        out.append((rec, rec))
    return out


@workload("clean-pasted-document", "messages", (),
          "a static system prompt; the user pastes a 300-800 token document of their own, then asks about it")
def _pasted(rng: random.Random, w: Writer) -> list[Pair]:
    system = w.handbook(9)
    out = []
    for i in range(rng.randint(80, 110)):
        doc = w.csv_activity(rng.randint(12, 30), rng) if rng.random() < 0.5 else "\n".join(w.kb() for _ in range(rng.randint(10, 24)))
        rec = chat(i, [sys_msg(system), user(f"Here is what I have:\n\n{doc}\n\nCan you explain what this means for me?")])
        out.append((rec, rec))
    return out


@workload("clean-xml-system-multiturn", "messages", (),
          "a static XML-tagged system prompt and growing multi-turn conversations, interleaved")
def _xml_multiturn(rng: random.Random, w: Writer) -> list[Pair]:
    system = (f"<role>\n{w.opening()}\n</role>\n<rules>\n" + "\n".join(w.rules(40)) + "\n</rules>\n<style>\n"
              + w.tone_block() + "\n</style>")
    convs = [[(w.question(), w.answer()) for _ in range(rng.randint(3, 6))] for _ in range(rng.randint(22, 28))]
    out: list[Pair] = []
    for i, (c, k) in enumerate(interleave(rng, [len(t) for t in convs])):
        msgs = [sys_msg(system)]
        for q, a in convs[c][:k]:
            msgs += [user(q), assistant(a)]
        msgs.append(user(convs[c][k][0]))
        rec = chat(i, msgs)
        out.append((rec, rec))
    return out


@workload("clean-daily-digest-at-end-ids", "input_ids", (),
          "a ~250-token daily digest (3 days) at the end of the system prompt, after all static content; as token ids")
def _digest(rng: random.Random, w: Writer) -> list[Pair]:
    system = w.handbook(14)
    digests = ["Today's notices:\n" + "\n".join(w.rules(8)) for _ in range(3)]
    out = []
    for i, ts in enumerate(spread(rng, rng.randint(100, 130), 3)):
        dayno = int((ts - BASE_TIME) // 86400)
        rec = untimed(chat(i, [sys_msg(f"{system}\n\n{digests[dayno]}"), user(w.question())]))
        out.append((rec, rec))
    return out


@workload("clean-fixed-date-string-kwarg", "messages", (),
          "every request passes the same chat_template_kwargs.date_string (a pinned date); question last")
def _pinned_kwarg(rng: random.Random, w: Writer) -> list[Pair]:
    system = w.handbook(11)
    out = []
    for i in range(rng.randint(90, 120)):
        rec = chat(i, [sys_msg(system), user(w.question())])
        rec["chat_template_kwargs"] = {"date_string": "01 Dec 2026"}
        out.append((rec, rec))
    return out


# ---------------------------------------------------------------- assembly


_KEY_ORDER: dict[int, str] = {}


def tool_key_order(engine: Engine) -> str:
    """Which of a tool's "name" and "description" the rendering writes first (engines'
    preprocessing rebuilds the function object in their own key order), so that a marker
    goes where requests stop sharing."""
    if id(engine) not in _KEY_ORDER:
        probe = chat(0, [user("probe")], [{"type": "function", "function": {
            "name": "probe_name", "description": "probe description", "parameters": {"type": "object", "properties": {}}}}])
        text = engine.text(probe)
        _KEY_ORDER[id(engine)] = "name" if text.find("probe_name") < text.find("probe description") else "description"
    return _KEY_ORDER[id(engine)]


def build_pairs(name: str, seed: int, engine: Engine) -> list[Pair]:
    """One workload's (original with markers, fixed) records, before rendering."""
    fn = next(r[4] for r in REGISTRY if r[0] == name)
    # Each workload draws from its own name and the seed only: adding one changes no other.
    rng = random.Random(f"{seed}/h2/{name}")
    business = BUSINESSES[zlib.crc32(name.encode()) % len(BUSINESSES)]
    writer = Writer(random.Random(f"{seed}/h2/{name}/text"), business, first_tool_key=tool_key_order(engine))
    return fn(rng, writer)


def build_workloads(seed: int = 12, engine: Engine | None = None, only: Sequence[str] | None = None) -> list[Workload]:
    """Every workload of the second held-out set, deterministic for ``seed``."""
    engine = engine or Engine()
    return assemble(REGISTRY, lambda name: build_pairs(name, seed, engine), engine, only)


def workload_names() -> list[str]:
    return [r[0] for r in REGISTRY]
