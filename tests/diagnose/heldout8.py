"""Eighth held-out diagnosis set: traffic of a Qwen 2.5 deployment, rendered and tokenized as Qwen's.

Written blind to the detector (advisor/diagnose, advisor/prescribe, the zoo, its shapes and its
tests were not read): DESIGN.md's traffic formats and the rendering advisor/ingest does were
used. Every earlier set renders with the default Llama 3 layout and tokenizer; this one serves a
Qwen 2.5 model. Its traffic is what ``advisor analyze --tokenizer qwen2.5 --chat-template
tests/chat_templates/qwen25.jinja`` reads (``ANALYZE_ARGS``, which the bench passes to every
``advisor analyze``, ``prescribe`` and ``render`` run of this set): a ChatML layout
(``<|im_start|>role ... <|im_end|>``, no BOS), the tools as one JSON line each inside
``<tools>`` in the first system message after its text, assistant tool calls as
``<tool_call>`` blocks, tool results as ``<tool_response>`` blocks inside a user turn. Token ids
records hold Qwen 2.5 ids of ChatML-rendered prompts; prompt records hold raw ChatML text or a
plain completion prompt. Qwen splits digits one by one, so a date, an amount or a count is as
many tokens as it has digits. The machinery is the first set's (tests/diagnose/heldout.py: the
MARK/UNIT convention, the Engine, the brute-force oracle) with this set's own renderer and
tokenizer; the text comes from its own module (heldout8_text.py): a bank's card dispute desk,
a newsroom, a wafer fab, a translation agency, a football analytics unit, a city transit
planner, a veterinary group with a tool-using agent, a children's reading app.

Like the sixth set the logs are noisy: 20 to ~100 requests, sessions of 1 to 10 turns,
questions of varied length, and in some defect workloads a share of requests without the
defect (an empty CRM field, a second product on the endpoint); such a request carries the
private-use character SKIP where the defect would be, and offsets are medians over the requests
that carry it.

Shapes. Dynamic values: a dispute case number as the very first token after
``<|im_start|>system``; a German-format embargo time ~2.2k tokens deep in a raw ChatML prompt
(new every ~4 requests, in arrival order); a fab bay's default chamber (8 settings) inside a
tool description in the ``<tools>`` block; a lot's identity inside a ``<tool_response>``; a
disputed amount and merchant in an assistant turn of the history; a child's reading streak in a
second system message; a Chinese client name and project number as a system content part; a
French edition date (8 days); a Japanese date (6 days); a service pattern (3 settings); a
session mode (2 settings); live
odds as compact JSON; an hourly count of vehicles in service; the currently closed stops as the
``enum`` of a nested tool parameter; a linguist code written three times; a wafer bin map of
hundreds of digit tokens; a one-digit queue position (9 settings); a Swahili live score; a US
date for the merchant's response; a pet's weight in a history tool call's arguments for one of
two products on the endpoint. Order: tools in the ``<tools>`` block, few-shot ChatML turns
inside a raw prompt, markdown sections, a JSON array of stop objects, retrieved style passages
in score order, bullet rules inside a tool response, Chinese glossary lines, three static system
messages in a rotating order, fixed-width timetable lines. Placement: a wire article ahead of
the style guide, a child's profile system message ahead of the rules, a cardholder profile
ahead of the static prompt and the tools, an email content part ahead of a static checklist
part, retrieved passages between the system text and the tools, a scouting report ahead of the
instructions, a daily bulletin (3 settings) ahead of the manual, a job brief ahead of the style
guide in growing sessions. Several defects: a case number plus shuffled tools; an article first
plus a desk (4 settings); shuffled sections plus a lot id; a profile ahead of the tools plus a
streak in a tool description; a card's last digits plus a balance in a second system turn; a
scouting report first, the club (6 settings) and shuffled set-piece sections.
Controls: transit sessions of 1-10 turns as ids, vet agent loops with stable tools, two desks'
prompts sharing an opening, an amount at the end of the user turn with tools, a date that
changes once, passages after the static prompt, static CJK prompts, static system parts with
varying user parts, a shift (3 settings) already at the end of the system turn.

Truth: the oracle's hit rate, over Qwen 2.5 ids of the Qwen-rendered text, on the traffic after
the ideal fix written here: a value with many settings goes to the end of the last user turn (a
prompt record: after the question, before the answer cue); a value with few settings, or many
in arrival order, goes right after the content every request shares (the end of the system
text, or the start of the first user turn when tools follow the system text); order fixes use
one canonical order; placement fixes put the shared content first, and the moved content after
it (a second system message in sessions, the end of the user turn in single-turn traffic with
tools, where it measures ~0.5 points better than a second system turn: the questions' shared
openings stay shared). A request without the defect is its own fix. The tests measure the
other place for each of these and check that the truth's is better.
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
    BASE_TIME, MARK, UNIT, Engine, Pair, Workload, assistant, chat, prompt, registering, spread, sys_msg,
    untimed, user,
)
from tests.diagnose.heldout3 import common_mark, conversations, first_tool_key, parts, tool_result
from tests.diagnose.heldout4 import mark_unit, shuffled, tool_call
from tests.diagnose.heldout8_text import (
    CHINESE, CHINESE_ASKS, FINNISH, FRENCH_DAYS, GERMAN_MONTHS, JAPANESE, JAPANESE_ASKS, JAPANESE_DAYS, PORTUGUESE,
    SWAHILI, TEAMS, Office, tight,
)

TOKENIZER = "qwen2.5"
TEMPLATE = Path(__file__).resolve().parents[1] / "chat_templates" / "qwen25.jinja"
# What `advisor analyze`, `prescribe` and `render` are given for this set's traffic.
ANALYZE_ARGS = ("--tokenizer", TOKENIZER, "--chat-template", str(TEMPLATE))

SKIP = "\ue002"  # this request lacks the defect that would be here
Builder = Callable[[random.Random, Office], list[Pair]]
REGISTRY: list[tuple[str, str, tuple[str, ...], str, Builder, str]] = []
TEAM_OF: dict[str, int] = {}
_register = registering(REGISTRY)

BANK, NEWS, FAB, LANG, SPORT, TRANSIT, VET, KIDS = range(8)


def workload(name: str, kind: str, expect: tuple[str, ...], shape: str, team: int, notes: str = "") -> Callable[[Any], Any]:
    TEAM_OF[name] = team
    return _register(name, kind, expect, shape, notes)


# ---------------------------------------------------------------- Qwen rendering and marking


def qwen_render() -> Callable[[dict[str, Any]], str]:
    """This checkout's rendering as `advisor analyze` with ANALYZE_ARGS sets it up."""
    renderer = make_renderer(TOKENIZER, TEMPLATE, None, [])

    def render(record: dict[str, Any]) -> str:
        text = renderer.text_of(parse_record(record, "heldout8", 1))
        assert text is not None
        return text
    return render


def qwen_engine(render: Callable[[dict[str, Any]], str] | None = None) -> Engine:
    """An Engine with the Qwen 2.5 tokenizer and the Qwen chat template (or ``render``, the bench's
    rendering by the checkout under test with ANALYZE_ARGS)."""
    return Engine(render or qwen_render(), load_tokenizer(TOKENIZER))


local_engine = qwen_engine  # what the bench's --render local builds for this set


def unmark(value: Any) -> Any:
    if isinstance(value, str):
        return value.replace(MARK, "").replace(UNIT, "").replace(SKIP, "")
    if isinstance(value, list):
        return [unmark(v) for v in value]
    if isinstance(value, dict):
        return {unmark(k): unmark(v) for k, v in value.items()}
    return value


def marked(engine: Engine, record: dict[str, Any]) -> tuple[list[int], list[int | None], list[int]]:
    """Qwen ids of the record without markers; per defect the token offset of its MARK (None
    where SKIP says this request lacks it); the token offsets of the UNIT markers."""
    text = engine.text(record).replace("\\ue002", SKIP)
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


def materialize(engine: Engine, name: str, kind: str, expect: tuple[str, ...], shape: str,
                pairs: list[Pair], notes: str = "") -> Workload:
    records, fixed, marks, units = [], [], [], []
    for orig, fix in pairs:
        ids, m, u = marked(engine, orig)
        clean = unmark(orig)
        assert engine.tok.encode(engine.text(clean)) == ids, name  # the markers change nothing else
        assert len(m) == len(expect), (name, len(m), expect)
        marks.append(m)
        units.append(u)
        if kind == "input_ids":
            records.append(_as_ids(clean, ids))
            fixed.append(_as_ids(fix, engine.ids(fix)))
        else:
            records.append(clean)
            fixed.append(fix)
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


def build_pairs(name: str, seed: int, engine: Engine) -> list[Pair]:
    """One workload's (original with markers, fixed) records, before rendering."""
    fn = next(r[4] for r in REGISTRY if r[0] == name)
    # Each workload draws from its name and the seed only: adding one changes no other.
    rng = random.Random(f"{seed}/h8/{name}")
    office = Office(random.Random(f"{seed}/h8/{name}/text"), TEAMS[TEAM_OF[name]], first_tool_key=first_tool_key(engine))
    return fn(rng, office)


def build_workloads(seed: int = 12, engine: Engine | None = None, only: Sequence[str] | None = None) -> list[Workload]:
    """Every workload of the eighth held-out set, deterministic for ``seed``, on Qwen 2.5 ids."""
    engine = engine or qwen_engine()
    if engine.tok.name != TOKENIZER:
        raise ValueError(f"the eighth held-out set is measured in {TOKENIZER} tokens, not {engine.tok.name}")
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


def im(role: str, text: str) -> str:
    return f"<|im_start|>{role}\n{text}<|im_end|>\n"


def chatml(system: str, *turns: str) -> str:
    """A raw ChatML prompt: the system turn, alternating user and assistant turns (the last a
    user turn), and the open assistant turn."""
    out = im("system", system)
    for k, t in enumerate(turns):
        out += im("user" if k % 2 == 0 else "assistant", t)
    return out + "<|im_start|>assistant\n"


def lacks(rng: random.Random, share: float) -> bool:
    return rng.random() < share


def tools_marked_first(o: Office, names: Sequence[str], order: Sequence[str]) -> list[dict[str, Any]]:
    """The tools in ``order``, with UNIT at the first and MARK where its first rendered field
    stops agreeing with the other tools that could come first."""
    tools = [o.tool(n) for n in order]
    key = o.first_tool_key
    first = tools[0]["function"][key]
    rivals = [o.tool(n)["function"][key] for n in names if n != order[0]]
    tools[0]["function"][key] = mark_unit(first, rivals).replace(UNIT, "")
    tools[0]["type"] = UNIT + tools[0]["type"]
    return tools


def digits(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("0123456789") for _ in range(n))


def hourly(rng: random.Random, n: int, per: tuple[int, int]) -> list[int]:
    """For ``n`` requests in arrival order, the index of the value in force (a new one every
    ``per`` requests)."""
    out, k = [], 0
    while len(out) < n:
        out += [k] * rng.randint(*per)
        k += 1
    return out[:n]


# ---------------------------------------------------------------- dynamic values


MERCHANTS = ["NORTHWIND GROCERS", "SKYPORT PARKING", "VELO CYCLES LTD", "BRAMBLE & CO", "PIXELFORGE GAMES",
             "HARBOUR FERRIES", "QUILLON HOTELS", "TRANSITPAY TOPUP", "GLOWFIT GYMS", "ORBITAL STREAMING"]


@workload("dispute-case-number-first-token-ids", "input_ids", ("dynamic",),
          "the CRM writes the dispute case number and merchant ('48213377 · SKYPORT PARKING · opened 28/11') as the "
          "very first text of the system message, the first token after <|im_start|>system; ~10% of requests have no "
          "case yet; 1.5k static tokens follow; as Qwen token ids", BANK)
def _case_first(rng: random.Random, o: Office) -> list[Pair]:
    body = "\n\n".join([o.opening(), o.handbook(9)])
    out = []
    for i in range(rng.randint(70, 95)):
        q = o.ask() if rng.random() < 0.75 else o.long_ask()
        if lacks(rng, 0.1):
            out.append((chat(i, [sys_msg(SKIP + body), user(q)]), chat(i, [sys_msg(body), user(q)])))
            continue
        line = f"{digits(rng, 8)} · {rng.choice(MERCHANTS)} · opened {rng.randint(1, 30):02d}/11"
        out.append((chat(i, [sys_msg(f"{MARK}{line}\n\n{body}"), user(q)]),
                    chat(i, [sys_msg(body), user(f"{q}\n\nCase: {line}")])))
    return out


def german_time(k: int) -> str:
    hour, minute = 6 + k // 2, 30 * (k % 2)
    return f"1. {GERMAN_MONTHS[11]} 2026, {hour:02d}:{minute:02d} Uhr MEZ"


@workload("embargo-german-time-deep-chatml-prompt", "prompt", ("dynamic",),
          "raw ChatML prompt records: the embargo of the wire release being rewritten, in German format ('Sperrfrist: "
          "1. Dezember 2026, 14:30 Uhr MEZ', a new release every 3-6 requests, in arrival order) ~2.2k tokens into "
          "the system turn, ~450 static tokens after it", NEWS,
          notes="many settings in arrival order: the fix states the embargo at the end of the system turn")
def _embargo(rng: random.Random, o: Office) -> list[Pair]:
    head = "\n\n".join([o.opening(), "Regras para material em português:\n" + "\n".join(PORTUGUESE), o.handbook(20)])
    tail = o.handbook(3)
    n = rng.randint(75, 95)
    which = hourly(rng, n, (3, 6))
    out = []
    for i in range(n):
        when = german_time(which[i])
        q = o.ask()
        orig = prompt(i, chatml(f"{head}\n\nSperrfrist: {when.replace('2026, ', '2026, ' + MARK, 1)}\n\n{tail}", q))
        fixed = prompt(i, chatml(f"{head}\n\n{tail}\n\nSperrfrist: {when}", q))
        out.append((orig, fixed))
    return out


FAB_TOOLS = ["get_lot_history", "hold_lot", "query_spc"]
BAYS = ["ETCH-07B", "ETCH-09A", "CVD-03C", "CVD-11A", "IMP-02B", "LITHO-05D", "CMP-04A", "DIFF-08C"]


def _fab_tools(o: Office, chamber: str | None) -> list[dict[str, Any]]:
    tools = [o.tool(n) for n in FAB_TOOLS]
    if chamber is not None:
        tools[1]["function"]["description"] += f" Default chamber for this bay:{chamber}."
    return tools


@workload("bay-chamber-8-in-tool-description", "messages", ("dynamic",),
          "the bay's default chamber (8 settings: ' Default chamber for this bay: ETCH-07B.') appended to the "
          "description of the second of three tools, inside the <tools> block of the system turn; ~250 static "
          "tool tokens follow", FAB,
          notes="8 settings: the fix states the chamber at the start of the user turn, right after the shared tools")
def _chamber(rng: random.Random, o: Office) -> list[Pair]:
    system = "\n\n".join([o.opening(), o.handbook(6)])
    out = []
    for i in range(rng.randint(75, 95)):
        bay = rng.choice(BAYS)
        q = o.ask()
        orig = chat(i, [sys_msg(system), user(q)], _fab_tools(o, f"{MARK} {bay}"))
        fixed = chat(i, [sys_msg(system), user(f"(Default chamber for this bay: {bay}.)\n\n{q}")], _fab_tools(o, None))
        out.append((orig, fixed))
    return out


def route_steps(o: Office) -> list[dict[str, Any]]:
    local = random.Random(f"{o.name}/route")
    ops = ["clean", "oxidise", "litho", "etch", "implant", "anneal", "deposit", "CMP", "metrology", "inspect"]
    return [{"step": 10 * (k + 1), "op": local.choice(ops), "tool_group": local.choice(BAYS)[:-1],
             "note": o.fact()} for k in range(9)]


@workload("lot-identity-in-tool-response", "messages", ("dynamic",),
          "an agent whose client always calls get_lot_history for the lot at the bench; the <tool_response> opens "
          "with that lot's id, wafer count and start date (unique per request) before ~600 static tokens of route "
          "steps; the question comes last", FAB)
def _lot_response(rng: random.Random, o: Office) -> list[Pair]:
    system = "\n\n".join([o.opening(), o.handbook(5)])
    tools = [o.tool(n) for n in FAB_TOOLS]
    route = route_steps(o)
    call = tool_call("call_lot", "get_lot_history", {"lot_id": "at-bench"})
    out = []
    for i in range(rng.randint(60, 85)):
        lot = f"N{rng.choice('KLMPR')}{digits(rng, 4)}.{rng.randint(1, 25):02d}"
        head = {"lot_id": lot, "wafers": rng.randint(13, 25), "started": f"2026-11-{rng.randint(1, 30):02d}"}
        shown = tight(head).replace('"lot_id":"N', '"lot_id":"' + MARK + "N", 1)
        body = json.dumps({"route": route}, indent=1, ensure_ascii=False)
        q = o.ask()
        pre = [sys_msg(system), user("What's the history of the lot at my bench?"), call]
        orig = chat(i, pre + [tool_result("call_lot", f"{shown}\n{body}"), user(q)], tools)
        fixed = chat(i, pre + [tool_result("call_lot", body), user(f"{q}\n\n(Lot: {tight(head)})")], tools)
        out.append((orig, fixed))
    return out


def usd(rng: random.Random) -> str:
    return f"${rng.randint(12, 4800):,}.{rng.randint(0, 99):02d}"


@workload("disputed-amount-in-assistant-history-ids", "input_ids", ("dynamic",),
          "the bot's first assistant turn restates the disputed charge ('a charge of $1,284.17 at VELO CYCLES LTD on "
          "11/27') before ~420 static tokens explaining the dispute process; the customer's question follows; "
          "as Qwen token ids", BANK)
def _amount_history(rng: random.Random, o: Office) -> list[Pair]:
    system = "\n\n".join([o.opening(), o.handbook(6)])
    process = "Here is what happens next.\n\n" + "\n".join(f"{k + 1}. {o.rule()}" for k in range(14))
    out = []
    for i in range(rng.randint(55, 75)):
        charge = f"{usd(rng)} at {rng.choice(MERCHANTS)} on 11/{rng.randint(10, 30)}"
        q = o.ask()
        orig = chat(i, [sys_msg(system), user("I want to dispute a charge."),
                        assistant(f"I can see a charge of ${MARK}{charge[1:]}. {process}"), user(q)])
        fixed = chat(i, [sys_msg(system), user("I want to dispute a charge."),
                         assistant(f"I can see the charge. {process}"), user(f"{q}\n\n(The charge: {charge}.)")])
        out.append((orig, fixed))
    return out


@workload("reading-streak-second-system-message-ids", "input_ids", ("dynamic",),
          "a second system message of children's safety rules carries the child's reading streak and stars "
          "('Current streak: 12 days; stars this week: 37') after its first ~230 tokens, ~500 static tokens after "
          "it; as Qwen token ids", KIDS)
def _streak(rng: random.Random, o: Office) -> list[Pair]:
    main = "\n\n".join([o.opening(), o.handbook(6)])
    safe_a = "Safety rules for talking with children:\n" + "\n".join(f"- {o.rule()}" for _ in range(8))
    safe_b = o.handbook(3)
    out = []
    for i in range(rng.randint(70, 90)):
        line = f"Current streak: {rng.randint(1, 60)} days; stars this week: {rng.randint(0, 70)}."
        q = o.ask()
        orig = chat(i, [sys_msg(main), sys_msg(f"{safe_a}\n\nCurrent streak: {MARK}{line[16:]}\n\n{safe_b}"), user(q)])
        fixed = chat(i, [sys_msg(main), sys_msg(f"{safe_a}\n\n{safe_b}"), user(f"{q}\n\n{line}")])
        out.append((orig, fixed))
    return out


CLIENTS_ZH = ["深圳华澜电子有限公司", "杭州青禾生物科技", "成都远航物流集团", "苏州明川精密机械", "北京知行教育咨询",
              "广州海悦酒店管理", "上海星衡律师事务所", "武汉鼎丰新能源", "南京云杉软件", "厦门蓝湾食品"]


@workload("chinese-client-system-content-part", "messages", ("dynamic",),
          "a system message of three content parts: the agency's guide, the client and project number in Chinese "
          "('客户：杭州青禾生物科技（项目编号 PV-3381）', ~40 projects), then ~700 static tokens of Chinese and English "
          "translation rules", LANG)
def _zh_part(rng: random.Random, o: Office) -> list[Pair]:
    guide = "\n\n".join([o.opening(), o.handbook(4)])
    rules = "\n\n".join(["翻译规范：\n" + "\n".join(CHINESE), o.handbook(4)])
    projects = [f"{rng.choice(CLIENTS_ZH)}（项目编号 PV-{rng.randint(1000, 9999)}）" for _ in range(40)]
    out = []
    for i in range(rng.randint(70, 90)):
        proj = rng.choice(projects)
        q = rng.choice(CHINESE_ASKS) if rng.random() < 0.4 else o.ask()
        orig = chat(i, [{"role": "system", "content": parts(guide, f"客户：{MARK}{proj}", rules)}, user(q)])
        fixed = chat(i, [{"role": "system", "content": parts(guide, rules)}, user(f"{q}\n\n客户：{proj}")])
        out.append((orig, fixed))
    return out


@workload("french-edition-date-8-days-prompt", "prompt", ("dynamic",),
          "a plain completion prompt whose second paragraph names the edition in French ('Édition du mardi 1 "
          "décembre 2026', 8 days in arrival order) ahead of ~1.6k static tokens", NEWS,
          notes="8 settings: the fix states the edition after the shared prompt, before the question")
def _edition(rng: random.Random, o: Office) -> list[Pair]:
    pre, rest = o.opening(), o.handbook(11)
    out = []
    for i, ts in enumerate(spread(rng, rng.randint(75, 95), 8)):
        day = 1 + int((ts - BASE_TIME) // 86400)
        when = f"{FRENCH_DAYS[(day + 0) % 7]} {day} décembre 2026"
        q = o.ask()
        orig = prompt(i, f"{pre}\n\nÉdition du{MARK} {when}.\n\n{rest}\n\nRédaction : {q}\nAssistant :", ts)
        fixed = prompt(i, f"{pre}\n\n{rest}\n\nÉdition du {when}.\n\nRédaction : {q}\nAssistant :", ts)
        out.append((orig, fixed))
    return out


@workload("japanese-date-6-days-fab-ids", "input_ids", ("dynamic",),
          "the fab date in Japanese ('本日の日付：2026年12月3日（木）', 6 days in arrival order; each digit its own "
          "token) ~420 tokens into a 1.4k-token system prompt; as Qwen token ids", FAB,
          notes="6 settings: the fix states the date at the end of the system prompt")
def _jp_date(rng: random.Random, o: Office) -> list[Pair]:
    head = "\n\n".join([o.opening(), o.handbook(2)])
    tail = "\n\n".join(["クリーンルーム規則：\n" + "\n".join(JAPANESE), o.handbook(6)])
    out = []
    for i, ts in enumerate(spread(rng, rng.randint(70, 90), 6)):
        day = 1 + int((ts - BASE_TIME) // 86400)
        when = f"2026年12月{day}日（{JAPANESE_DAYS[day % 7]}）"
        q = rng.choice(JAPANESE_ASKS) if rng.random() < 0.3 else o.ask()
        orig = untimed(chat(i, [sys_msg(f"{head}\n\n本日の日付：2026年12月{MARK}{when[8:]}\n\n{tail}"), user(q)]))
        fixed = untimed(chat(i, [sys_msg(f"{head}\n\n{tail}\n\n本日の日付：{when}"), user(q)]))
        out.append((orig, fixed))
    return out


@workload("service-pattern-3-settings-ids", "input_ids", ("dynamic",),
          "the service pattern in force (3 settings: Weekday, Saturday, Sunday and holiday) ~150 tokens into a "
          "2.1k-token planner prompt; as Qwen token ids", TRANSIT,
          notes="3 settings: the fix states the pattern at the end of the system prompt; costs two copies of it")
def _pattern(rng: random.Random, o: Office) -> list[Pair]:
    pre = o.opening()
    rest = "\n\n".join(["Suomenkieliset ohjeet:\n" + "\n".join(FINNISH), o.handbook(13)])
    out = []
    for i in range(rng.randint(80, 100)):
        pat = rng.choice(["Weekday", "Saturday", "Sunday and public holiday"])
        q = o.ask()
        orig = chat(i, [sys_msg(f"{pre}\n\nService pattern in force:{MARK} {pat}.\n\n{rest}"), user(q)])
        fixed = chat(i, [sys_msg(f"{pre}\n\n{rest}\n\nService pattern in force: {pat}."), user(q)])
        out.append((orig, fixed))
    return out


CLUBS = ["Eastgate Rovers", "Millbrook Athletic", "Harlow Town", "Port Ellery", "Saltmarsh United", "Kingsbury FC"]


@workload("live-odds-compact-json-chatml-prompt", "prompt", ("dynamic",),
          "raw ChatML prompt records: the live odds of the match as compact JSON ({\"home\":2.15,\"draw\":3.4,...,"
          "\"as_of\":\"14:05:31\"}, unique per request) ~700 tokens into the system turn, ~900 static tokens after",
          SPORT)
def _odds(rng: random.Random, o: Office) -> list[Pair]:
    head, tail = "\n\n".join([o.opening(), o.handbook(4)]), o.handbook(6)
    out = []
    for i in range(rng.randint(65, 85)):
        home, away = rng.sample(CLUBS, 2)
        odds = tight({"match": f"{home} v {away}", "home": round(rng.uniform(1.3, 6), 2), "draw": round(rng.uniform(2.8, 4.5), 2),
                      "away": round(rng.uniform(1.3, 7), 2),
                      "as_of": f"{rng.randint(12, 21)}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}"})
        q = o.ask()
        shown = odds.replace('{"match":"', '{"match":"' + MARK, 1)
        orig = prompt(i, chatml(f"{head}\n\nLive odds: {shown}\n\n{tail}", q))
        fixed = prompt(i, chatml(f"{head}\n\n{tail}", f"{q}\n\nLive odds: {odds}"))
        out.append((orig, fixed))
    return out


@workload("vehicles-in-service-hourly-ids", "input_ids", ("dynamic",),
          "the hourly count of vehicles in service ('Vehicles in service at 14:00: 412 buses, 38 trams, 17 "
          "minibuses', a new count every 5-9 requests, in arrival order) ~600 tokens into a 1.5k-token system "
          "prompt; ~8% of requests were sent while the fleet feed was down and lack the line; as Qwen token ids",
          TRANSIT, notes="~12 settings in arrival order: the fix states the count at the end of the system prompt")
def _fleet(rng: random.Random, o: Office) -> list[Pair]:
    head, tail = "\n\n".join([o.opening(), o.handbook(3)]), o.handbook(6)
    n = rng.randint(75, 95)
    which = hourly(rng, n, (5, 9))
    counts = [f"Vehicles in service at {6 + k:02d}:00: {rng.randint(380, 460)} buses, {rng.randint(30, 44)} trams, "
              f"{rng.randint(9, 20)} minibuses." for k in range(max(which) + 1)]
    shown = common_mark(counts)
    out = []
    for i in range(n):
        q = o.ask()
        if lacks(rng, 0.08):
            rec = chat(i, [sys_msg(f"{head}\n\n{SKIP}{tail}"), user(q)])
            out.append((rec, unmark(rec)))
            continue
        k = which[i]
        orig = chat(i, [sys_msg(f"{head}\n\n{shown[k]}\n\n{tail}"), user(q)])
        fixed = chat(i, [sys_msg(f"{head}\n\n{tail}\n\n{counts[k]}"), user(q)])
        out.append((orig, fixed))
    return out


TRANSIT_TOOLS = ["get_trip_updates", "create_detour"]
STOPS = [f"STP{n}" for n in (1104, 1187, 1220, 1302, 1318, 1421, 1455, 1509, 1533, 1610, 1688, 1702, 1745, 1811)]


def _transit_tools(o: Office, closed: list[str] | None) -> list[dict[str, Any]]:
    tools = [o.tool(n) for n in TRANSIT_TOOLS] + [o.tool("refill_prescription")]
    tools[2]["function"]["name"] = "log_feedback"
    tools[2]["function"]["description"] = "Log a passenger's feedback against a route and stop."
    if closed is not None:
        tools[1]["function"]["parameters"]["properties"]["stops"]["items"]["enum"] = closed
    return tools


@workload("closed-stops-enum-in-nested-tool-param", "messages", ("dynamic",),
          "the stops closed right now (2-5 stop ids, a new set every 4-8 requests in arrival order) written as the "
          "`enum` of create_detour's nested `stops.items`, inside the <tools> block; a third tool follows", TRANSIT,
          notes="closures in arrival order: the fix lists them at the start of the user turn, after the shared tools")
def _closed(rng: random.Random, o: Office) -> list[Pair]:
    system = "\n\n".join([o.opening(), o.handbook(6)])
    n = rng.randint(70, 90)
    which = hourly(rng, n, (4, 8))
    sets = [sorted(rng.sample(STOPS, rng.randint(2, 5))) for _ in range(max(which) + 1)]
    out = []
    for i in range(n):
        closed = sets[which[i]]
        q = o.ask()
        shown = ["STP" + MARK + closed[0][3:]] + closed[1:]
        orig = chat(i, [sys_msg(system), user(q)], _transit_tools(o, shown))
        fixed = chat(i, [sys_msg(system), user(f"(Closed stops now: {', '.join(closed)}.)\n\n{q}")], _transit_tools(o, None))
        out.append((orig, fixed))
    return out


@workload("linguist-code-three-times-prompt", "prompt", ("dynamic", "dynamic", "dynamic"),
          "a plain completion prompt that names the assigned linguist's code three times ('Assigned linguist: "
          "LNG-0412', again in the sign-off rule and the QA rule; 45 linguists), first ~330 tokens in, ~1.2k "
          "static tokens after; three spans of one value, each planted", LANG)
def _linguist(rng: random.Random, o: Office) -> list[Pair]:
    a, b, c = "\n\n".join([o.opening(), o.handbook(1)]), o.handbook(4), o.handbook(3)
    codes = [f"LNG-{rng.randint(100, 999):04d}" for _ in range(45)]
    out = []
    for i in range(rng.randint(60, 80)):
        code = rng.choice(codes)
        q = o.ask()

        def text(first: str, again: str) -> str:
            return (f"{a}\n\nAssigned linguist:{first}\n\n{b}\n\nSign every delivery note as{again}.\n\n{c}\n\n"
                    f"Quality checks are logged under{again} as well.")
        again = " LNG-0" + MARK + code[5:]
        orig = prompt(i, f"{text(again, again)}\n\nClient: {q}\nProject manager:")
        fixed = prompt(i, f"{text('', ' the assigned linguist')}\n\nClient: {q}\nAssigned linguist: {code}\nProject manager:")
        out.append((orig, fixed))
    return out


def wafer_map(rng: random.Random) -> list[str]:
    rows = rng.randint(8, 18)
    return ["".join(rng.choice("0000111112239") for _ in range(16)) for _ in range(rows)]


@workload("wafer-bin-map-digits-prompt", "prompt", ("dynamic",),
          "a plain completion prompt with the wafer's bin map (8-18 rows of 16 bin digits, ~140-300 Qwen tokens since "
          "every digit is a token) between the method and ~900 static tokens of disposition rules", FAB)
def _bin_map(rng: random.Random, o: Office) -> list[Pair]:
    method, rules = "\n\n".join([o.opening(), o.handbook(3)]), o.handbook(6)
    out = []
    for i in range(rng.randint(25, 35)):
        rows = wafer_map(rng)
        q = o.ask()
        shown = [MARK + rows[0]] + rows[1:]
        orig = prompt(i, f"{method}\n\nBin map:\n" + "\n".join(shown) + f"\n\n{rules}\n\nEngineer: {q}\nAssistant:")
        fixed = prompt(i, f"{method}\n\n{rules}\n\nEngineer: {q}\nBin map:\n" + "\n".join(rows) + "\nAssistant:")
        out.append((orig, fixed))
    return out


@workload("queue-position-one-digit-ids", "input_ids", ("dynamic",),
          "'You are answering caller 4 in the priority queue.': a one-digit position (9 settings, in no order) "
          "~330 tokens into a 1.4k-token system prompt; as Qwen token ids", BANK,
          notes="9 settings: the fix states the position at the end of the system prompt")
def _queue(rng: random.Random, o: Office) -> list[Pair]:
    head, tail = "\n\n".join([o.opening(), o.handbook(2)]), o.handbook(7)
    out = []
    for i in range(rng.randint(80, 100)):
        pos = rng.randint(1, 9)
        q = o.ask()
        orig = chat(i, [sys_msg(f"{head}\n\nYou are answering caller {MARK}{pos} in the priority queue.\n\n{tail}"), user(q)])
        fixed = chat(i, [sys_msg(f"{head}\n\n{tail}\n\nYou are answering caller {pos} in the priority queue."), user(q)])
        out.append((orig, fixed))
    return out


@workload("swahili-live-score-chatml-prompt", "prompt", ("dynamic",),
          "raw ChatML prompt records: a Swahili live-score line ('Matokeo ya sasa: Simba SC 2 - 1 Yanga (dakika ya "
          "67)', unique per request) ~450 tokens into the system turn after Swahili rules, ~800 static tokens after",
          SPORT)
def _swahili(rng: random.Random, o: Office) -> list[Pair]:
    head = "\n\n".join([o.opening(), "Kanuni:\n" + "\n".join(SWAHILI), o.handbook(2)])
    tail = o.handbook(5)
    sides = ["Simba SC", "Young Africans", "Azam FC", "Gor Mahia", "AFC Leopards", "KCCA FC", "Vipers SC"]
    out = []
    for i in range(rng.randint(30, 42)):
        h, a = rng.sample(sides, 2)
        line = f"{h} {rng.randint(0, 4)} - {rng.randint(0, 4)} {a} (dakika ya {rng.randint(1, 90)})"
        q = o.ask()
        orig = prompt(i, chatml(f"{head}\n\nMatokeo ya sasa:{MARK} {line}\n\n{tail}", q))
        fixed = prompt(i, chatml(f"{head}\n\n{tail}", f"{q}\n\nMatokeo ya sasa: {line}"))
        out.append((orig, fixed))
    return out


@workload("session-mode-2-settings-chatml-prompt", "prompt", ("dynamic",),
          "raw ChatML prompt records of the children's app: the session mode (2 settings: practice or assessment) "
          "~140 tokens into the system turn, ~1.5k static tokens after it", KIDS,
          notes="2 settings: the fix states the mode at the end of the system turn; costs one copy of it")
def _mode(rng: random.Random, o: Office) -> list[Pair]:
    pre, rest = o.opening(), o.handbook(11)
    out = []
    for i in range(rng.randint(40, 55)):
        mode = "practice (hints allowed, no score kept)" if rng.random() < 0.6 else "assessment (no hints, scored)"
        q = o.ask()
        out.append((prompt(i, chatml(f"{pre}\n\nSession mode:{MARK} {mode}.\n\n{rest}", q)),
                    prompt(i, chatml(f"{pre}\n\n{rest}\n\nSession mode: {mode}.", q))))
    return out


BANK_TOOLS = ["get_card_transactions", "open_chargeback", "issue_provisional_credit"]


@workload("us-date-response-deadline-with-tools", "messages", ("dynamic",),
          "'Merchant response due: 12/15/2026' (US date, 30 deadlines) ~230 tokens into the system text, ahead of "
          "~1k static tokens of system text and the three tools the <tools> block appends", BANK)
def _deadline(rng: random.Random, o: Office) -> list[Pair]:
    head, tail = "\n\n".join([o.opening(), o.handbook(1)]), o.handbook(6)
    tools = [o.tool(n) for n in BANK_TOOLS]
    dates = [f"{rng.choice([12, 1])}/{rng.randint(1, 28):02d}/{2026 if rng.random() < 0.6 else 2027}" for _ in range(30)]
    out = []
    for i in range(rng.randint(70, 90)):
        due = rng.choice(dates)
        q = o.ask()
        orig = chat(i, [sys_msg(f"{head}\n\nMerchant response due: {MARK}{due}.\n\n{tail}"), user(q)], tools)
        fixed = chat(i, [sys_msg(f"{head}\n\n{tail}"), user(f"{q}\n\n(Merchant response due: {due}.)")], tools)
        out.append((orig, fixed))
    return out


# ---------------------------------------------------------------- order


VET_TOOLS = ["book_appointment", "refill_prescription", "get_lab_results", "estimate_surgery", "check_insurance",
             "find_boarding"]


@workload("vet-tools-shuffled-in-tools-block", "messages", ("order",),
          "a clinic agent's six nested tools in `tools` in a different order per request (a set walked in hash "
          "order), each a JSON line of the <tools> block; ~15% of requests keep the canonical order", VET)
def _vet_tools(rng: random.Random, o: Office) -> list[Pair]:
    system = "\n\n".join([o.opening(), o.handbook(7)])
    out = []
    for i in range(rng.randint(75, 95)):
        order = list(VET_TOOLS)
        if rng.random() >= 0.15:
            rng.shuffle(order)
        q = o.ask()
        out.append((chat(i, [sys_msg(system), user(q)], tools_marked_first(o, VET_TOOLS, order)),
                    chat(i, [sys_msg(system), user(q)], [o.tool(n) for n in VET_TOOLS])))
    return out


@workload("fewshot-chatml-turns-shuffled-prompt", "prompt", ("order",),
          "raw ChatML prompt records with four few-shot exchanges as user/assistant turns between the system turn "
          "and the real question, in a different order per request", LANG)
def _fewshot_turns(rng: random.Random, o: Office) -> list[Pair]:
    system = "\n\n".join([o.opening(), "翻译规范：\n" + "\n".join(CHINESE), o.handbook(7)])
    shots = [(o.ask(), o.reply() + " " + o.fact()) for _ in range(4)]
    out = []
    for i in range(rng.randint(60, 80)):
        order = list(range(4))
        rng.shuffle(order)
        q = rng.choice(CHINESE_ASKS) if rng.random() < 0.3 else o.ask()
        turns: list[str] = []
        for j, k in enumerate(order):
            a, b = shots[k]
            turns += [mark_unit(a, [x for x, _ in shots if x != a]) if j == 0 else a, b]
        canon = [t for a, b in shots for t in (a, b)]
        out.append((prompt(i, chatml(system, *turns, q)), prompt(i, chatml(system, *canon, q))))
    return out


@workload("markdown-sections-shuffled-ids", "input_ids", ("order",),
          "eight '### ' markdown sections (~130 tokens each) of the children's app guide in a different order per "
          "request after the opening paragraph; a static closing section; as Qwen token ids", KIDS)
def _md_sections(rng: random.Random, o: Office) -> list[Pair]:
    pre = o.opening()
    sections = o.handbook(8).split("\n\n")
    closing = f"### Before you reply\n{o.paragraph(5)}"
    out = []
    for i in range(rng.randint(70, 90)):
        order, canon = shuffled(rng, sections)
        q = o.ask()
        out.append((chat(i, [sys_msg(f"{pre}\n\n" + "\n\n".join(order) + f"\n\n{closing}"), user(q)]),
                    chat(i, [sys_msg(f"{pre}\n\n" + "\n\n".join(canon) + f"\n\n{closing}"), user(q)])))
    return out


def stop_objects(o: Office) -> list[dict[str, Any]]:
    local = random.Random(f"{o.name}/stops")
    names = ["Ferris Wharf", "Old Mint", "Calloway Square", "Brindle Lane", "Upper Kestrel", "Tannery Row",
             "Northgate Interchange", "Lantern Hill", "St Aldric's"]
    return [{"stop_id": s, "name": n, "accessible": local.random() < 0.7, "bays": local.randint(1, 6),
             "note": o.fact()} for s, n in zip(STOPS, names)]


@workload("stop-objects-json-array-shuffled-ids", "input_ids", ("order",),
          "a pretty-printed JSON array of nine stop objects (a set from the stop database) in a different order per "
          "request, ~250 tokens into the system prompt, ~900 static tokens after it; with the tools of the planner "
          "in the <tools> block; as Qwen token ids", TRANSIT)
def _stops_array(rng: random.Random, o: Office) -> list[Pair]:
    head, tail = "\n\n".join([o.opening(), o.handbook(1)]), o.handbook(5)
    stops = stop_objects(o)
    tools = [o.tool(n) for n in TRANSIT_TOOLS]
    out = []
    for i in range(rng.randint(70, 90)):
        order = list(range(len(stops)))
        rng.shuffle(order)
        text = json.dumps([stops[k] for k in order], indent=2, ensure_ascii=False)
        first = str(stops[order[0]]["stop_id"])
        shown = text.replace(f'"stop_id": "{first}"', f'{UNIT}"stop_id": "STP{MARK}{first[3:]}"', 1)
        q = o.ask()
        canon = json.dumps(stops, indent=2, ensure_ascii=False)
        out.append((chat(i, [sys_msg(f"{head}\n\nStops on the corridor:\n{shown}\n\n{tail}"), user(q)], tools),
                    chat(i, [sys_msg(f"{head}\n\nStops on the corridor:\n{canon}\n\n{tail}"), user(q)], tools)))
    return out


@workload("style-passages-score-order-prompt", "prompt", ("order",),
          "a plain completion prompt with the same five retrieved style-guide passages every time, in the order of "
          "their retrieval scores (which vary per query), ahead of ~800 static tokens of instructions", NEWS)
def _passages_order(rng: random.Random, o: Office) -> list[Pair]:
    passages = [f"[Style guide §{k + 4}] {o.paragraph(4)}" for k in range(5)]
    tail = o.handbook(6)
    out = []
    for i in range(rng.randint(60, 80)):
        order, canon = shuffled(rng, passages)
        q = o.ask()
        out.append((prompt(i, "Relevant style guidance:\n\n" + "\n\n".join(order) + f"\n\n{tail}\n\nReporter: {q}\nEditor:"),
                    prompt(i, "Relevant style guidance:\n\n" + "\n\n".join(canon) + f"\n\n{tail}\n\nReporter: {q}\nEditor:")))
    return out


@workload("hold-rule-bullets-shuffled-in-tool-response", "messages", ("order",),
          "the <tool_response> of the agent's fixed hold-policy look-up lists nine bullet rules in a different "
          "order per request (a set in the policy service), then ~300 static tokens of the same response", FAB)
def _bullets_response(rng: random.Random, o: Office) -> list[Pair]:
    system = "\n\n".join([o.opening(), o.handbook(5)])
    tools = [o.tool(n) for n in FAB_TOOLS]
    bullets = [f"- {o.rule()}" for _ in range(9)]
    after = "Escalation contacts and notes:\n" + o.paragraph(8)
    call = tool_call("call_pol", "query_spc", {"tool": "policy", "parameter": "hold-rules"})
    out = []
    for i in range(rng.randint(65, 85)):
        order, canon = shuffled(rng, bullets)
        q = o.ask()
        pre = [sys_msg(system), user("Which hold rules apply right now?"), call]
        out.append((chat(i, pre + [tool_result("call_pol", "Hold rules:\n" + "\n".join(order) + f"\n\n{after}"), user(q)], tools),
                    chat(i, pre + [tool_result("call_pol", "Hold rules:\n" + "\n".join(canon) + f"\n\n{after}"), user(q)], tools)))
    return out


GLOSSARY = [("provisional credit", "临时入账"), ("chargeback", "拒付"), ("merchant", "商户"), ("cardholder", "持卡人"),
            ("reason code", "原因代码"), ("settlement", "清算"), ("authorisation", "授权"), ("statement", "对账单"),
            ("recurring payment", "定期付款"), ("refund", "退款"), ("dispute window", "争议期限"), ("issuer", "发卡行"),
            ("acquirer", "收单行"), ("evidence", "证据")]


@workload("chinese-glossary-lines-shuffled-ids", "input_ids", ("order",),
          "fourteen 'english → 中文' glossary lines from the client's term base (a dict in hash order) in a different "
          "order per request, ~330 tokens into the system prompt, ~800 static tokens after; as Qwen token ids", LANG)
def _glossary(rng: random.Random, o: Office) -> list[Pair]:
    head, tail = "\n\n".join([o.opening(), o.handbook(2)]), "\n\n".join(["翻译规范：\n" + "\n".join(CHINESE), o.handbook(5)])
    lines = [f"{en} → {zh}" for en, zh in GLOSSARY]
    out = []
    for i in range(rng.randint(70, 90)):
        order, canon = shuffled(rng, lines)
        q = rng.choice(CHINESE_ASKS) if rng.random() < 0.5 else o.ask()
        out.append((chat(i, [sys_msg(f"{head}\n\nTerm base:\n" + "\n".join(order) + f"\n\n{tail}"), user(q)]),
                    chat(i, [sys_msg(f"{head}\n\nTerm base:\n" + "\n".join(canon) + f"\n\n{tail}"), user(q)])))
    return out


@workload("three-system-messages-rotating-order", "messages", ("order",),
          "three static system messages (analysis method, data caveats, Swahili house rules; ~400 tokens each) "
          "sent in one of their six orders per request by a client that merges config files", SPORT)
def _three_systems(rng: random.Random, o: Office) -> list[Pair]:
    msgs = ["\n\n".join([o.opening(), o.handbook(2)]), "Data caveats.\n\n" + o.handbook(3),
            "Kanuni za nyumbani:\n" + "\n".join(SWAHILI) + "\n\n" + o.handbook(2)]
    out = []
    for i in range(rng.randint(60, 80)):
        order = list(range(3))
        rng.shuffle(order)
        texts = [msgs[k] for k in order]
        texts[0] = mark_unit(texts[0], [m for m in msgs if m != texts[0]])
        q = o.ask()
        out.append((chat(i, [sys_msg(t) for t in texts] + [user(q)]), chat(i, [sys_msg(t) for t in msgs] + [user(q)])))
    return out


def timetable_lines(o: Office) -> list[str]:
    local = random.Random(f"{o.name}/timetable")
    out = []
    for route in ["4", "4A", "11", "17", "23", "31", "42", "T1", "T2", "N9"]:
        first = f"{local.randint(5, 6):02d}:{local.choice(['05', '12', '20', '34', '48'])}"
        out.append(f"{route:<4}| first {first} | every {local.choice([6, 8, 10, 12, 15, 20])} min | last "
                   f"{local.choice(['23:10', '23:42', '00:15', '00:40'])} | {local.choice(['Depot A', 'Depot B', 'Tram yard'])}")
    return out


@workload("timetable-lines-shuffled-chatml-prompt", "prompt", ("order",),
          "raw ChatML prompt records whose system turn holds ten fixed-width timetable lines ('11  | first 05:20 | "
          "every 10 min | ...') in a different order per request, ~300 tokens in, ~900 static tokens after", TRANSIT)
def _timetable(rng: random.Random, o: Office) -> list[Pair]:
    head, tail = "\n\n".join([o.opening(), o.handbook(1)]), o.handbook(6)
    lines = timetable_lines(o)
    out = []
    for i in range(rng.randint(65, 85)):
        order, canon = shuffled(rng, lines)
        q = o.ask()
        out.append((prompt(i, chatml(f"{head}\n\nRoute summary:\n" + "\n".join(order) + f"\n\n{tail}", q)),
                    prompt(i, chatml(f"{head}\n\nRoute summary:\n" + "\n".join(canon) + f"\n\n{tail}", q))))
    return out


# ---------------------------------------------------------------- per-request content before shared content


def wire_article(rng: random.Random, o: Office) -> str:
    slug = rng.choice(["council-budget", "port-strike", "flood-warning", "derby-preview", "hospital-waits", "rail-fares"])
    return (f"WIRE {rng.choice(['PA', 'AP', 'Reuters', 'Lusa'])} {slug}-{rng.randint(100, 999)}\n"
            + " ".join(o.fact() for _ in range(rng.randint(4, 14))))


@workload("wire-article-before-style-guide-chatml-prompt", "prompt", ("placement",),
          "raw ChatML prompt records whose system turn opens with the wire article being rewritten (100-400 tokens) "
          "ahead of ~1.5k static tokens of the newsroom style guide", NEWS)
def _article_first(rng: random.Random, o: Office) -> list[Pair]:
    guide = "\n\n".join([o.opening(), o.handbook(10)])
    out = []
    for i in range(rng.randint(60, 80)):
        art = wire_article(rng, o)
        q = o.ask()
        out.append((prompt(i, chatml(f"{UNIT}WIRE {MARK}{art[5:]}\n\n{guide}", q)),
                    prompt(i, chatml(f"{guide}\n\n{art}", q))))
    return out


TOPICS = ["dinosaurs", "space", "ponies", "football", "volcanoes", "robots", "oceans"]


def child_profile(rng: random.Random, o: Office) -> str:
    return (f"Learner profile: {rng.choice(['Ada', 'Bo', 'Cleo', 'Dev', 'Esi', 'Finn', 'Gus', 'Hana'])}, age {rng.randint(4, 11)}, "
            f"reading band {rng.choice(['pink', 'red', 'yellow', 'blue', 'green', 'orange', 'turquoise'])}, maths stage "
            f"{rng.randint(1, 9)}, favourite topics {', '.join(rng.sample(TOPICS, 2))}.")


@workload("child-profile-system-before-rules-ids", "input_ids", ("placement",),
          "a first system message holding the child's profile (~50 tokens, per child) ahead of a second system "
          "message of ~1.4k static rules; sessions of 1-6 turns; as Qwen token ids", KIDS,
          notes="the fix: the rules message first, then the profile message")
def _profile_first(rng: random.Random, o: Office) -> list[Pair]:
    rules = "\n\n".join([o.opening(), o.handbook(10)])
    lengths = [rng.choice([1, 1, 2, 3, 4, 6]) for _ in range(rng.randint(22, 30))]
    profiles = [child_profile(rng, o) for _ in lengths]
    turns = [[(o.ask(), o.reply()) for _ in range(k)] for k in lengths]
    out = []
    for i, (c, t) in enumerate(conversations(rng, lengths)):
        hist = [m for q, a in turns[c][:t] for m in (user(q), assistant(a))]
        last = user(turns[c][t][0])
        shown = UNIT + profiles[c].replace("Learner profile: ", "Learner profile: " + MARK, 1)
        out.append((chat(i, [sys_msg(shown), sys_msg(rules)] + hist + [last]),
                    chat(i, [sys_msg(rules), sys_msg(profiles[c])] + hist + [last])))
    return out


@workload("cardholder-profile-before-prompt-and-tools", "messages", ("placement",),
          "the cardholder profile (~70 tokens, per cardholder) opens the system text ahead of ~1k static tokens of "
          "it and of the three tools the <tools> block appends", BANK,
          notes="the fix: the static system text and tools first, the profile at the end of the user turn (a second "
          "system message after the tools measures ~0.5 points less: it parts the questions' shared openings)")
def _cardholder_first(rng: random.Random, o: Office) -> list[Pair]:
    system = "\n\n".join([o.opening(), o.handbook(6)])
    tools = [o.tool(n) for n in BANK_TOOLS]
    out = []
    for i in range(rng.randint(70, 90)):
        prof = (f"Cardholder: {o.person()}, card ending {digits(rng, 4)}, customer since {rng.randint(1998, 2025)}, "
                f"{rng.randint(0, 6)} disputes in 12 months, segment {rng.choice(['Everyday', 'Premier', 'Student', 'Business'])}.")
        q = o.ask()
        shown = UNIT + prof.replace("Cardholder: ", "Cardholder: " + MARK, 1)
        out.append((chat(i, [sys_msg(f"{shown}\n\n{system}"), user(q)], tools),
                    chat(i, [sys_msg(system), user(f"{q}\n\n{prof}")], tools)))
    return out


@workload("email-part-before-checklist-part", "messages", ("placement",),
          "a user turn of two content parts: the customer's forwarded email thread (80-400 tokens) first, then a "
          "~600-token static dispute intake checklist the client appends; ~15% of requests forward nothing (the "
          "checklist, then the typed question)", BANK)
def _email_part(rng: random.Random, o: Office) -> list[Pair]:
    system = "\n\n".join([o.opening(), o.handbook(4)])
    checklist = "Intake checklist:\n" + "\n".join(f"[{k + 1:02d}] {o.rule()}" for k in range(22))
    out = []
    for i in range(rng.randint(65, 85)):
        if lacks(rng, 0.15):  # a question typed in the app: nothing forwarded
            q = o.ask()
            out.append((chat(i, [sys_msg(system), {"role": "user", "content": parts(SKIP + checklist, q)}]),
                        chat(i, [sys_msg(system), {"role": "user", "content": parts(checklist, q)}])))
            continue
        mail = (f"From: {o.person()}\nSubject: {o.ask()}\n\n" + " ".join(o.fact() for _ in range(rng.randint(2, 12))))
        orig = chat(i, [sys_msg(system), {"role": "user", "content": parts(UNIT + "From: " + MARK + mail[6:], checklist)}])
        fixed = chat(i, [sys_msg(system), {"role": "user", "content": parts(checklist, mail)}])
        out.append((orig, fixed))
    return out


@workload("retrieved-passages-between-system-text-and-tools", "messages", ("placement",),
          "the client appends three retrieved clinical passages (~250 tokens, per question) to the end of the system "
          "text, so in the Qwen layout they sit ahead of the six tools (~1.1k tokens) of the <tools> block", VET,
          notes="the fix: the passages at the start of the user turn, after the shared tools")
def _passages_tools(rng: random.Random, o: Office) -> list[Pair]:
    system = "\n\n".join([o.opening(), o.handbook(5)])
    tools = [o.tool(n) for n in VET_TOOLS]
    pool = [f"[KB-{k:03d}] {o.paragraph(3)}" for k in range(40)]
    out = []
    for i in range(rng.randint(65, 85)):
        picked = rng.sample(pool, 3)
        q = o.ask()
        docs = "Reference passages:\n" + "\n".join(picked)
        shown = UNIT + docs.replace("[KB-", "[KB-" + MARK, 1)
        out.append((chat(i, [sys_msg(f"{system}\n\n{shown}"), user(q)], tools),
                    chat(i, [sys_msg(system), user(f"{docs}\n\n{q}")], tools)))
    return out


@workload("scouting-report-before-instructions-prompt", "prompt", ("placement",),
          "a plain completion prompt opening with the scouted player's report (150-400 tokens) ahead of ~1.3k static "
          "tokens of the analysts' instructions", SPORT)
def _scouting(rng: random.Random, o: Office) -> list[Pair]:
    instructions = "\n\n".join([o.opening(), o.handbook(9)])
    out = []
    for i in range(rng.randint(20, 28)):
        rep = (f"Scouting report: {o.person()}, {rng.choice(['left back', 'holding midfielder', 'winger', 'centre back', 'striker'])}, "
               f"age {rng.randint(17, 33)}, {rng.randint(400, 3100)} minutes this season, xG {rng.uniform(0, 9):.2f}, "
               f"progressive passes per 90 {rng.uniform(1, 12):.1f}.\n" + " ".join(o.fact() for _ in range(rng.randint(3, 12))))
        q = o.ask()
        shown = UNIT + rep.replace("Scouting report: ", "Scouting report: " + MARK, 1)
        out.append((prompt(i, f"{shown}\n\n{instructions}\n\nScout: {q}\nAnalyst:"),
                    prompt(i, f"{instructions}\n\n{rep}\n\nScout: {q}\nAnalyst:")))
    return out


@workload("daily-bulletin-3-before-manual-ids", "input_ids", ("placement|dynamic",),
          "the day's fab bulletin (3 bulletins over 3 days in arrival order, ~120 tokens) opening the system prompt "
          "ahead of a ~1.5k-token static manual; as Qwen token ids", FAB,
          notes="3 settings: the fix puts the manual first and the bulletin after it")
def _bulletin(rng: random.Random, o: Office) -> list[Pair]:
    manual = "\n\n".join([o.opening(), o.handbook(10)])
    bulletins = [f"Fab bulletin {d} Dec: " + " ".join(o.fact() for _ in range(4)) for d in (1, 2, 3)]
    out = []
    for i, ts in enumerate(spread(rng, rng.randint(70, 90), 3)):
        b = bulletins[int((ts - BASE_TIME) // 86400)]
        q = o.ask()
        out.append((chat(i, [sys_msg(f"{UNIT}Fab bulletin {MARK}{b[len('Fab bulletin '):]}\n\n{manual}"), user(q)], ts=ts),
                    chat(i, [sys_msg(f"{manual}\n\n{b}"), user(q)], ts=ts)))
    return out


@workload("job-brief-before-style-guide-sessions", "messages", ("placement",),
          "the translation job's brief (~90 tokens, per job) opening the system message ahead of the ~1.2k-token "
          "static style guide, in project-manager sessions of 1-7 growing turns, interleaved", LANG,
          notes="the fix sends the style guide first and the brief after it; later turns of a job still share it")
def _brief_first(rng: random.Random, o: Office) -> list[Pair]:
    guide = "\n\n".join([o.opening(), "翻译规范：\n" + "\n".join(CHINESE), o.handbook(7)])
    lengths = [rng.choice([1, 1, 2, 3, 4, 5, 7]) for _ in range(rng.randint(20, 26))]
    briefs = [f"Job brief J-{rng.randint(10000, 99999)}: {rng.randint(800, 24000):,} words, "
              f"{rng.choice(['en-zh', 'zh-en', 'en-ja', 'en-pt', 'de-en'])}, {rng.choice(['legal', 'medical', 'technical', 'marketing'])}, "
              f"due {rng.randint(2, 28)} Dec, {rng.choice(['certified', 'not certified'])}, reviewer {o.person()}." for _ in lengths]
    turns = [[(o.ask(), o.reply()) for _ in range(k)] for k in lengths]
    out = []
    for i, (c, t) in enumerate(conversations(rng, lengths)):
        hist = [m for q, a in turns[c][:t] for m in (user(q), assistant(a))]
        last = user(turns[c][t][0])
        shown = UNIT + briefs[c].replace("Job brief J-", "Job brief J-" + MARK, 1)
        out.append((chat(i, [sys_msg(f"{shown}\n\n{guide}")] + hist + [last]),
                    chat(i, [sys_msg(f"{guide}\n\n{briefs[c]}")] + hist + [last])))
    return out


# ---------------------------------------------------------------- several defects in one request


@workload("case-number-and-shuffled-tools", "messages", ("dynamic", "order"),
          "the dispute case number in the system text's first sentence (unique) and the three bank tools plus two "
          "more in a different order per request in the <tools> block after it", BANK)
def _case_tools(rng: random.Random, o: Office) -> list[Pair]:
    rest = "\n\n".join([o.opening(), o.handbook(5)])
    names = BANK_TOOLS + ["lookup_term", "check_insurance"]
    out = []
    for i in range(rng.randint(70, 90)):
        case = digits(rng, 8)
        order = list(names)
        rng.shuffle(order)
        q = o.ask()
        out.append((chat(i, [sys_msg(f"You are working dispute case {MARK}{case}.\n\n{rest}"), user(q)],
                         tools_marked_first(o, names, order)),
                    chat(i, [sys_msg(f"You are working the dispute case below.\n\n{rest}"), user(f"{q}\n\n(Case {case}.)")],
                         [o.tool(n) for n in names])))
    return out


DESKS = ["metro desk", "sports desk", "business desk", "politics desk"]


@workload("article-first-and-desk-4-chatml-prompt", "prompt", ("placement", "dynamic"),
          "raw ChatML prompt records: the wire article ahead of the style guide in the system turn, and the desk "
          "(4 settings) ~500 tokens into the guide, ~900 static tokens after it", NEWS,
          notes="the fix: the guide, the desk at its end, then the article")
def _article_desk(rng: random.Random, o: Office) -> list[Pair]:
    a_part, b_part = "\n\n".join([o.opening(), o.handbook(3)]), o.handbook(7)
    out = []
    for i in range(rng.randint(65, 85)):
        art = wire_article(rng, o)
        desk = rng.choice(DESKS)
        q = o.ask()
        out.append((prompt(i, chatml(f"{UNIT}WIRE {MARK}{art[5:]}\n\n{a_part}\n\nYou are writing for the{MARK} {desk}.\n\n{b_part}", q)),
                    prompt(i, chatml(f"{a_part}\n\n{b_part}\n\nYou are writing for the {desk}.\n\n{art}", q))))
    return out


@workload("sections-shuffled-and-lot-id-deep-ids", "input_ids", ("order", "dynamic"),
          "six '### ' sections of the fab manual shuffled per request after the opening, then ~1.1k tokens later "
          "the lot under review ('Lot under review: NK4471.09', unique); as Qwen token ids", FAB)
def _sections_lot(rng: random.Random, o: Office) -> list[Pair]:
    pre = o.opening()
    sections = o.handbook(6).split("\n\n")
    mid, tail = "クリーンルーム規則：\n" + "\n".join(JAPANESE), o.handbook(4)
    out = []
    for i in range(rng.randint(65, 85)):
        order, canon = shuffled(rng, sections)
        lot = f"N{rng.choice('KLMPR')}{digits(rng, 4)}.{rng.randint(1, 25):02d}"
        q = o.ask()
        shown = f"{pre}\n\n" + "\n\n".join(order) + f"\n\n{mid}\n\nLot under review:{MARK} {lot}\n\n{tail}"
        fixed = f"{pre}\n\n" + "\n\n".join(canon) + f"\n\n{mid}\n\n{tail}"
        out.append((chat(i, [sys_msg(shown), user(q)]), chat(i, [sys_msg(fixed), user(f"{q}\n\n(Lot under review: {lot})")])))
    return out


KIDS_TOOLS = ["get_progress", "set_screen_time"]


@workload("profile-before-tools-and-streak-in-tool", "messages", ("placement", "dynamic"),
          "the child's profile (per child) opens the system text ahead of the static text and tools, and the tools' "
          "get_progress description carries the child's streak ('current streak 12 days')", KIDS,
          notes="the fix: static text and tools first, the profile and the streak at the end of the user turn")
def _profile_streak(rng: random.Random, o: Office) -> list[Pair]:
    system = "\n\n".join([o.opening(), o.handbook(7)])
    out = []
    for i in range(rng.randint(70, 90)):
        prof = child_profile(rng, o)
        streak = rng.randint(1, 90)
        tools = [o.tool(n) for n in KIDS_TOOLS] + [o.tool("find_boarding")]
        plain = json.loads(json.dumps(tools))
        tools[0]["function"]["description"] += f" This child's current streak: {MARK}{streak} days."
        q = o.ask()
        shown = UNIT + prof.replace("Learner profile: ", "Learner profile: " + MARK, 1)
        out.append((chat(i, [sys_msg(f"{shown}\n\n{system}"), user(q)], tools),
                    chat(i, [sys_msg(system), user(f"{q}\n\n{prof} Current streak: {streak} days.")], plain)))
    return out


@workload("card-digits-and-balance-second-system-chatml-prompt", "prompt", ("dynamic", "dynamic"),
          "raw ChatML prompt records with two system turns: the card's last four digits ~300 tokens into the first "
          "(unique per cardholder), and the available balance ('£2,418.06') opening the second before ~500 static "
          "tokens of it", BANK)
def _digits_balance(rng: random.Random, o: Office) -> list[Pair]:
    a_part, b_part = "\n\n".join([o.opening(), o.handbook(2)]), o.handbook(6)
    second = o.handbook(4)
    out = []
    for i in range(rng.randint(60, 80)):
        last4, bal = digits(rng, 4), f"£{rng.randint(0, 9999):,}.{rng.randint(0, 99):02d}"
        q = o.ask()
        text = (im("system", f"{a_part}\n\nCard in question ends {MARK}{last4}.\n\n{b_part}")
                + im("system", f"Available balance: £{MARK}{bal[1:]}\n\n{second}") + im("user", q) + "<|im_start|>assistant\n")
        fixed = (im("system", f"{a_part}\n\n{b_part}") + im("system", second)
                 + im("user", f"{q}\n\n(Card ends {last4}; available balance {bal}.)") + "<|im_start|>assistant\n")
        out.append((prompt(i, text), prompt(i, fixed)))
    return out


@workload("pet-weight-in-tool-call-args-one-of-two-products", "messages", ("dynamic",),
          "two products on one endpoint: a surgery-estimate agent (~65%) whose history replays an estimate_surgery "
          "call with the pet's weight in its arguments ({\"procedure\": ..., \"weight\": \"23.4 kg\"}) before a ~450-token "
          "static price list in the <tool_response>, and a boarding bot with its own prompt and no defect", VET)
def _weight_args(rng: random.Random, o: Office) -> list[Pair]:
    system = "\n\n".join([o.opening(), o.handbook(5)])
    other = "\n\n".join([f"You book boarding stays at {o.name}'s kennels and catteries.", o.handbook(5)])
    tools = [o.tool(n) for n in ["estimate_surgery", "book_appointment", "check_insurance"]]
    local = random.Random(f"{o.name}/prices")
    prices = json.dumps({"procedure": "dental scale and polish", "bands": [
        {"up_to_kg": kg, "price_gbp": local.randint(180, 900), "includes": o.fact()} for kg in (5, 10, 20, 30, 45, 70)]},
        indent=1, ensure_ascii=False)
    out = []
    for i in range(rng.randint(75, 95)):
        q = o.ask()
        if lacks(rng, 0.35):
            rec = chat(i, [sys_msg(other + SKIP), user(q)], [o.tool("find_boarding")])
            out.append((rec, unmark(rec)))
            continue
        kg = f"{rng.uniform(2, 60):.1f}"
        head = [sys_msg(system), user("How much would a dental clean be?")]
        call = tool_call("call_est", "estimate_surgery", {"procedure": "dental scale and polish", "weight": MARK + kg + " kg"})
        plain = tool_call("call_est", "estimate_surgery", {"procedure": "dental scale and polish"})
        orig = chat(i, head + [call, tool_result("call_est", prices), user(q)], tools)
        fixed = chat(i, head + [plain, tool_result("call_est", prices), user(f"{q}\n\n(Weight: {kg} kg.)")], tools)
        out.append((orig, fixed))
    return out


SET_PIECES = ["Corners for", "Corners against", "Wide free kicks", "Direct free kicks", "Throw-ins in the final third",
              "Penalties"]


@workload("report-first-club-6-and-set-pieces-chatml-prompt", "prompt", ("placement", "dynamic", "order"),
          "three defects in raw ChatML prompt records: the scouted player's report ahead of the static instructions, "
          "the club being analysed (6 settings) after ~400 tokens of them, and six set-piece sections shuffled "
          "further on", SPORT,
          notes="the fix: instructions, canonical sections, the club, then the report")
def _three(rng: random.Random, o: Office) -> list[Pair]:
    a_part, mid, tail = "\n\n".join([o.opening(), o.handbook(2)]), o.handbook(3), o.handbook(3)
    sections = [f"## {h}\n{o.paragraph(4)}" for h in SET_PIECES]
    out = []
    for i in range(rng.randint(65, 85)):
        rep = f"Scouting report: {o.person()}, " + " ".join(o.fact() for _ in range(rng.randint(2, 8)))
        club = rng.choice(CLUBS)
        order, canon = shuffled(rng, sections)
        q = o.ask()
        shown = UNIT + rep.replace("Scouting report: ", "Scouting report: " + MARK, 1)
        out.append((prompt(i, chatml(f"{shown}\n\n{a_part}\n\nClub under analysis:{MARK} {club}.\n\n{mid}\n\n" + "\n\n".join(order)
                                     + f"\n\n{tail}", q)),
                    prompt(i, chatml(f"{a_part}\n\n{mid}\n\n" + "\n\n".join(canon) + f"\n\n{tail}\n\nClub under analysis: {club}."
                                     f"\n\n{rep}", q))))
    return out


# ---------------------------------------------------------------- clean controls


def _same(records: list[dict[str, Any]]) -> list[Pair]:
    return [(r, r) for r in records]


@workload("clean-transit-sessions-1-to-10-ids", "input_ids", (),
          "planner sessions of 1 to 10 turns, interleaved, under a static 1.6k-token system prompt; as Qwen token ids",
          TRANSIT)
def _sessions(rng: random.Random, o: Office) -> list[Pair]:
    system = "\n\n".join([o.opening(), o.handbook(10)])
    lengths = [rng.choice([1, 1, 2, 3, 4, 6, 10]) for _ in range(rng.randint(14, 20))]
    turns = [[(o.ask() if rng.random() < 0.8 else o.long_ask(), o.reply()) for _ in range(k)] for k in lengths]
    recs = []
    for i, (c, t) in enumerate(conversations(rng, lengths)):
        hist = [m for q, a in turns[c][:t] for m in (user(q), assistant(a))]
        recs.append(chat(i, [sys_msg(system)] + hist + [user(turns[c][t][0])]))
    return _same(recs)


@workload("clean-vet-agent-loops-stable-tools", "messages", (),
          "clinic agent loops of 2-5 steps with six stable tools: tool calls and <tool_response> turns appended step "
          "by step, each loop its own pet", VET)
def _vet_loops(rng: random.Random, o: Office) -> list[Pair]:
    system = "\n\n".join([o.opening(), o.handbook(5)])
    tools = [o.tool(n) for n in VET_TOOLS]
    recs = []
    i = 0
    for task in range(rng.randint(15, 22)):
        pet = f"PET-{digits(rng, 6)}"
        msgs: list[dict[str, Any]] = [sys_msg(system), user(f"{o.ask()} (pet {pet})")]
        for step in range(rng.randint(2, 5)):
            recs.append(chat(i, [dict(m) for m in msgs], tools))
            i += 1
            panel = rng.choice(["CBC", "biochemistry", "T4", "SDMA"])
            msgs.append(tool_call(f"c{task}_{step}", "get_lab_results", {"pet_id": pet, "panel": panel}))
            msgs.append(tool_result(f"c{task}_{step}", tight({"pet_id": pet, "panel": panel, "values": [
                {"analyte": a, "value": round(rng.uniform(0.5, 90), 1)} for a in ("ALT", "ALP", "urea", "creatinine")]})))
    return _same(recs)


@workload("clean-two-desks-shared-opening-chatml-prompt", "prompt", (),
          "two desks' raw ChatML prompts interleaved: the same opening paragraph, then each desk's own static guide; "
          "the question last", NEWS)
def _two_desks(rng: random.Random, o: Office) -> list[Pair]:
    opening = o.opening()
    guides = ["\n\n".join([opening, o.handbook(9)]), "\n\n".join([opening, o.handbook(8)])]
    return _same([prompt(i, chatml(rng.choice(guides), o.ask())) for i in range(rng.randint(75, 95))])


@workload("clean-amount-end-of-user-turn-with-tools", "messages", (),
          "the disputed amount and merchant stated at the end of the user turn, after a static system text and "
          "three stable tools: the value is already where it belongs", BANK)
def _amount_last(rng: random.Random, o: Office) -> list[Pair]:
    system = "\n\n".join([o.opening(), o.handbook(7)])
    tools = [o.tool(n) for n in BANK_TOOLS]
    return _same([chat(i, [sys_msg(system), user(f"{o.ask()}\n\nDisputed: {usd(rng)} at {rng.choice(MERCHANTS)}.")], tools)
                  for i in range(rng.randint(70, 90))])


@workload("clean-japanese-date-changes-once-ids", "input_ids", (),
          "a Japanese date line ~1.1k tokens into a 1.4k-token system prompt that changes once, at midnight, "
          "mid-log; as Qwen token ids", FAB,
          notes="one change costs one copy of the ~300 tokens after it: moving the date would gain well under 1%")
def _date_once(rng: random.Random, o: Office) -> list[Pair]:
    head, tail = "\n\n".join([o.opening(), o.handbook(7)]), o.handbook(2)
    n = rng.randint(90, 110)
    cut = rng.randint(n // 3, 2 * n // 3)
    recs = [chat(i, [sys_msg(f"{head}\n\n本日の日付：2026年12月{1 if i < cut else 2}日\n\n{tail}"), user(o.ask())])
            for i in range(n)]
    return _same(recs)


@workload("clean-passages-after-static-prompt", "prompt", (),
          "a plain completion prompt: ~1.5k static tokens of instructions, then 2-4 passages retrieved per request "
          "(from 60) and the question", SPORT)
def _passages_last(rng: random.Random, o: Office) -> list[Pair]:
    static = "\n\n".join([o.opening(), o.handbook(10)])
    pool = [f"[Match note {k}] {o.paragraph(3)}" for k in range(60)]
    return _same([prompt(i, f"{static}\n\nNotes:\n" + "\n".join(rng.sample(pool, rng.randint(2, 4)))
                         + f"\n\nScout: {o.ask()}\nAnalyst:") for i in range(rng.randint(70, 90))])


@workload("clean-cjk-static-prompt-cjk-questions", "messages", (),
          "a static system prompt of Chinese and Japanese rules; questions in Chinese, Japanese or English", LANG)
def _cjk(rng: random.Random, o: Office) -> list[Pair]:
    system = "\n\n".join([o.opening(), "翻译规范：\n" + "\n".join(CHINESE), "日本語案件の規則：\n" + "\n".join(JAPANESE),
                          o.handbook(6)])
    asks = CHINESE_ASKS + JAPANESE_ASKS
    return _same([chat(i, [sys_msg(system), user(rng.choice(asks) + f"（{o.code()}）" if rng.random() < 0.6 else o.ask())])
                  for i in range(rng.randint(70, 90))])


@workload("clean-static-system-parts-varying-user-parts", "messages", (),
          "a system message of three static content parts, and user turns of 1-3 parts (the question, a pasted "
          "note, an attachment summary)", KIDS)
def _parts(rng: random.Random, o: Office) -> list[Pair]:
    sys_parts = parts(o.opening(), o.handbook(4), o.handbook(4))
    recs = []
    for i in range(rng.randint(70, 90)):
        extra = [f"Note from parent: {o.fact()}" for _ in range(rng.randint(0, 2))]
        recs.append(chat(i, [{"role": "system", "content": sys_parts}, {"role": "user", "content": parts(o.ask(), *extra)}]))
    return _same(recs)


@workload("clean-shift-3-at-end-of-system-chatml-prompt", "prompt", (),
          "raw ChatML prompt records whose system turn ends with the shift on duty (3 settings), right after ~1.4k "
          "static tokens: already the place a few-settings value belongs", VET,
          notes="moving the shift into the user turn would cost, not gain")
def _shift_end(rng: random.Random, o: Office) -> list[Pair]:
    static = "\n\n".join([o.opening(), o.handbook(9)])
    recs = [prompt(i, chatml(f"{static}\n\nShift on duty: {rng.choice(['early', 'late', 'night'])}.", o.ask()))
            for i in range(rng.randint(70, 90))]
    return _same(recs)
