"""Held-out diagnosis workloads: defects in shapes the detector was not designed around.

A deterministic generator (``build_workloads(seed)``) of defect workloads and clean controls,
each a list of JSON traffic records in DESIGN.md's formats (``messages`` with optional
``tools``, ``prompt``, ``input_ids`` from the real Llama 3 tokenizer), with for each workload:

- ``expect``: the finding classes planted, in order of appearance in the prompt
  (``dynamic`` = TR101, ``order`` = TR201, ``placement`` = per-request content before shared
  static content); empty for a clean control;
- ``offsets``: per planted defect, the token offset where requests stop sharing because of it
  (median over the requests), and ``unit_offsets``, where the unit holding it starts when that
  is earlier (a shuffled tool list diverges at the first tool's name, 18 tokens into the
  tool's JSON; a history summary at its case number, 11 tokens into the message; either point
  counts as right);
- ``fixed``: the traffic after the ideal fix (dynamic content moved to the end of the last
  user turn, a canonical order, the static content first).

Offsets are measured, not assumed: the generator writes a private-use marker character where
each defect starts, renders the record with advisor's own ingest path (``parse_record`` then
``Renderer.text_of`` from ``make_renderer``, what ``advisor analyze`` runs; main has no
``advisor render`` command), removes the markers from the rendered text, encodes it with the
Llama 3 tokenizer and counts the tokens that end before each marker. The bench renders with
the checkout under test instead (bench/heldout_render.py), since chat layouts change between
versions. Messages workloads keep their timestamps within one UTC day, so that a layout that
prints the request's date (Llama 3.1's ``Today Date``) adds no defect of its own; the two that
span days (a date in the text) carry no timestamps.

``oracle`` is an independent brute-force reference for the truth: every request against
every earlier one, longest common prefix over token ids, nothing shared with the radix tree.
"""

from __future__ import annotations

import json
import random
import statistics
import zlib
from array import array
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from advisor.ingest.source import make_renderer
from advisor.ingest.tokenizers import Tokenizer, load_tokenizer
from advisor.ingest.traffic import parse_record

from tests.diagnose.heldout_text import COMPANIES, TOOL_NAMES, Prose, compact_json, system_prompt

MARK = "\ue000"  # where requests stop sharing because of a defect
UNIT = "\ue001"  # where the unit holding that defect starts, when earlier
CLASSES = ("dynamic", "order", "placement")
BASE_TIME = 1795996800.0  # 2026-12-01 00:00:00 UTC


@dataclass
class Workload:
    name: str
    kind: str  # messages | prompt | input_ids | mixed (every other request as input_ids)
    expect: tuple[str, ...]
    shape: str
    records: list[dict[str, Any]]
    fixed: list[dict[str, Any]]
    offsets: tuple[int, ...] = ()
    unit_offsets: tuple[int, ...] = ()
    notes: str = ""

    @property
    def expected(self) -> str | None:
        return self.expect[0] if self.expect else None

    @property
    def offset(self) -> int | None:
        return self.offsets[0] if self.offsets else None


# ---------------------------------------------------------------- rendering and the oracle


def in_process_render() -> Callable[[dict[str, Any]], str]:
    """This checkout's rendering, set up as `advisor analyze` sets it up."""
    renderer = make_renderer("llama3", None, None, [])

    def render(record: dict[str, Any]) -> str:
        text = renderer.text_of(parse_record(record, "heldout", 1))
        assert text is not None
        return text
    return render


@dataclass
class Engine:
    """A rendering path (by default this checkout's; the bench passes the one of the checkout
    under test) and the plain Llama 3 tokenizer (no memo) for offsets and the oracle."""

    render: Callable[[dict[str, Any]], str] = field(default_factory=in_process_render)
    tok: Tokenizer = field(default_factory=lambda: load_tokenizer("llama3"))

    def text(self, record: dict[str, Any]) -> str:
        # A renderer that escapes non-ASCII in tool JSON leaves the markers as escapes.
        return self.render(record).replace("\\ue000", MARK).replace("\\ue001", UNIT)

    def ids(self, record: dict[str, Any]) -> list[int]:
        if "input_ids" in record:
            return list(record["input_ids"])
        return self.tok.encode(self.text(record))

    def marked(self, record: dict[str, Any]) -> tuple[list[int], list[int], list[int]]:
        """Token ids of the record without markers, and the token offsets of each MARK and UNIT."""
        text = self.text(record)
        clean, marks, units = [], [], []
        pos = 0
        for ch in text:
            if ch == MARK:
                marks.append(pos)
            elif ch == UNIT:
                units.append(pos)
            else:
                clean.append(ch)
                pos += 1
        clean_text = "".join(clean)
        ids = self.tok.encode(clean_text)
        enc = self.tok.tiktoken_encoding
        assert enc is not None
        ends, total = [], 0
        for t in ids:
            total += len(enc.decode_single_token_bytes(t))
            ends.append(total)

        def token_at(char_pos: int) -> int:
            byte_pos = len(clean_text[:char_pos].encode())
            return sum(1 for e in ends if e <= byte_pos)  # tokens wholly before the marker

        return ids, [token_at(c) for c in marks], [token_at(c) for c in units]


def unmark(value: Any) -> Any:
    if isinstance(value, str):
        return value.replace(MARK, "").replace(UNIT, "")
    if isinstance(value, list):
        return [unmark(v) for v in value]
    if isinstance(value, dict):
        return {unmark(k): unmark(v) for k, v in value.items()}
    return value


def lcp(a: bytes, b: bytes) -> int:
    """Longest common prefix, in 4-byte token ids, by bisection over slice equality."""
    lo, hi = 0, min(len(a), len(b)) // 4
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[: 4 * mid] == b[: 4 * mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def oracle(requests: Iterable[Sequence[int]]) -> tuple[int, int]:
    """(cached tokens, prompt tokens): each request's longest common prefix with any earlier
    request, summed, in arrival order (DESIGN.md's definition with page size 1)."""
    seen: list[bytes] = []
    cached = total = 0
    for ids in requests:
        raw = array("I", ids).tobytes()
        best = 0
        for earlier in seen:
            if earlier[:4] == raw[:4]:
                best = max(best, lcp(earlier, raw))
        seen.append(raw)
        cached += best
        total += len(ids)
    return cached, total


def hit_rate(engine: Engine, records: Sequence[dict[str, Any]]) -> float:
    cached, total = oracle(engine.ids(r) for r in records)
    return cached / total if total else 0.0


def write_jsonl(records: Iterable[dict[str, Any]], path: Path) -> None:
    with path.open("w", encoding="utf-8") as fh:
        for r in records:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")


# ---------------------------------------------------------------- building blocks


Pair = tuple[dict[str, Any], dict[str, Any]]  # (original with markers, fixed)
Builder = Callable[[random.Random, Prose], list[Pair]]
REGISTRY: list[tuple[str, str, tuple[str, ...], str, Builder, str]] = []


def workload(name: str, kind: str, expect: tuple[str, ...], shape: str, notes: str = ""):
    def register(fn: Builder) -> Builder:
        REGISTRY.append((name, kind, expect, shape, fn, notes))
        return fn
    return register


def sys_msg(text: str) -> dict[str, Any]:
    return {"role": "system", "content": text}


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def assistant(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": text}


def chat(i: int, messages: list[dict[str, Any]], tools: list[Any] | None = None, ts: float | None = None) -> dict[str, Any]:
    rec: dict[str, Any] = {"id": f"req-{i:05d}", "timestamp": round(ts if ts is not None else BASE_TIME + 37.0 * i, 3),
                           "messages": messages}
    if tools:
        rec["tools"] = tools
    return rec


def untimed(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k != "timestamp"}


def prompt(i: int, text: str, ts: float | None = None) -> dict[str, Any]:
    return {"id": f"req-{i:05d}", "timestamp": round(ts if ts is not None else BASE_TIME + 37.0 * i, 3), "prompt": text}


def ordinal(day: int) -> str:
    suffix = "th" if 11 <= day % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return f"{day}{suffix}"


MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December"]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def day_of(ts: float) -> tuple[int, int, int, int]:
    """(year, month, day, weekday) of an epoch time, UTC."""
    import datetime as dt

    d = dt.datetime.fromtimestamp(ts, tz=dt.timezone.utc)
    return d.year, d.month, d.day, d.weekday()


def clock(ts: float) -> str:
    import datetime as dt

    return dt.datetime.fromtimestamp(ts, tz=dt.timezone.utc).strftime("%H:%M:%S")


def hexid(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def uuid(rng: random.Random) -> str:
    h = hexid(rng, 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"


def spread(rng: random.Random, n: int, days: float) -> list[float]:
    """Sorted arrival times over ``days`` days from BASE_TIME."""
    return sorted(BASE_TIME + rng.uniform(0, days * 86400) for _ in range(n))


# ---------------------------------------------------------------- defect workloads: dynamic


@workload("md-table-row", "messages", ("dynamic",),
          "live queue figures in one row of a markdown status table, ~500 tokens into the system prompt")
def _md_table_row(rng: random.Random, p: Prose) -> list[Pair]:
    head = "\n\n".join([p.intro(), p.policy_section(5)])
    rows_before = ["| Component | State | Note |", "| --- | --- | --- |",
                   "| Public API | operational | p95 latency under 300 ms |",
                   "| Dashboard | operational | - |"]
    rows_after = ["| Webhooks | degraded | retries delayed by up to 10 minutes |",
                  "| Exports | operational | large exports are emailed |"]
    tail = "\n\n".join([p.product_doc(), p.product_doc(), p.policy_section(3)])
    out = []
    for i in range(rng.randint(90, 130)):
        wait, agents = rng.randint(2, 45), rng.randint(3, 19)
        row = f"| Support queue | {MARK}{wait} min wait | {agents} agents online |"
        table = "\n".join(rows_before + [row] + rows_after)
        q = p.question()
        orig = chat(i, [sys_msg(f"{head}\n\nService status:\n\n{table}\n\n{tail}"), user(q)])
        fixed_table = "\n".join(rows_before + rows_after)
        fixed = chat(i, [sys_msg(f"{head}\n\nService status:\n\n{fixed_table}\n\n{tail}"),
                         user(f"{q}\n\nSupport queue right now: {wait} min wait, {agents} agents online.")])
        out.append((orig, fixed))
    return out


@workload("tool-description-clock", "messages", ("dynamic",),
          "a refresh time inside the second tool's JSON-schema description (wherever the layout puts tools)")
def _tool_description(rng: random.Random, p: Prose) -> list[Pair]:
    system = system_prompt(p, 4, docs=1)
    names = ["create_ticket", "search_orders", "lookup_invoice", "get_shipment"]
    out = []
    for i in range(rng.randint(70, 110)):
        ts = BASE_TIME + 61.0 * i + rng.uniform(0, 50)
        stamp = clock(ts)
        tools = [p.tool(n) for n in names]
        fixed_tools = json.loads(json.dumps(tools))
        fn = tools[1]["function"]
        fn["description"] = fn["description"] + f" Stock levels were refreshed at {MARK}{stamp} UTC."
        q = p.question()
        orig = chat(i, [sys_msg(system), user(q)], tools, ts)
        fixed = chat(i, [sys_msg(system), user(f"{q}\n\n(Stock levels were refreshed at {stamp} UTC.)")], fixed_tools, ts)
        out.append((orig, fixed))
    return out


@workload("html-comment-build", "prompt", ("dynamic",),
          "an HTML comment with a build hash and render time on the first line of a help-centre prompt")
def _html_comment(rng: random.Random, p: Prose) -> list[Pair]:
    body = "\n\n".join([f"# {p.product} help centre", p.policy_section(6), p.product_doc(), p.product_doc(),
                        p.product_doc()])
    out = []
    builds = [hexid(rng, 10) for _ in range(40)]
    for i in range(rng.randint(80, 120)):
        ts = BASE_TIME + 45.0 * i
        comment = f"<!-- rendered by docs-builder {MARK}{builds[i // 3 % 40]} at {clock(ts)} -->"
        q = p.question()
        orig = prompt(i, f"{comment}\n{body}\n\nCustomer question: {q}\nAnswer:", ts)
        fixed = prompt(i, f"{body}\n\nCustomer question: {q}\n{unmark(comment)}\nAnswer:", ts)
        out.append((orig, fixed))
    return out


@workload("request-id-fence", "messages", ("dynamic",),
          "a request id inside a code fence after the policies, with ~1,000 static tokens behind it")
def _request_id_fence(rng: random.Random, p: Prose) -> list[Pair]:
    head = "\n\n".join([p.intro(), p.policy_section(5)])
    tail = "\n\n".join([p.product_doc(), p.product_doc(), p.product_doc(), "Reference code:\n" + p.code_snippet()])
    out = []
    for i in range(rng.randint(70, 100)):
        rid = uuid(rng)
        fence = f"```\nX-Request-Id: {MARK}{rid}\nX-Region: eu-west-1\n```"
        intro = "When you quote a log line, keep this header so engineers can find the request:\n"
        q = p.question()
        orig = chat(i, [sys_msg(f"{head}\n\n{intro}{fence}\n\n{tail}"), user(q)])
        fixed = chat(i, [sys_msg(f"{head}\n\n{intro.replace(' this header', ' the request header')}\n\n{tail}"),
                         user(f"{q}\n\n{unmark(fence)}")])
        out.append((orig, fixed))
    return out


LOCALES = [("fr-CA", "CAD", "America/Montreal"), ("de-DE", "EUR", "Europe/Berlin"), ("en-GB", "GBP", "Europe/London"),
           ("es-MX", "MXN", "America/Mexico_City"), ("pt-BR", "BRL", "America/Sao_Paulo"), ("ja-JP", "JPY", "Asia/Tokyo"),
           ("en-US", "USD", "America/Chicago"), ("nl-NL", "EUR", "Europe/Amsterdam"), ("pl-PL", "PLN", "Europe/Warsaw"),
           ("sv-SE", "SEK", "Europe/Stockholm"), ("en-IN", "INR", "Asia/Kolkata"), ("it-IT", "EUR", "Europe/Rome")]


@workload("locale-first-line", "messages", ("dynamic",),
          "a locale string (12 settings) on the first line of the system prompt")
def _locale(rng: random.Random, p: Prose) -> list[Pair]:
    system = system_prompt(p, 6, docs=2)
    out = []
    for i in range(rng.randint(130, 170)):
        loc, cur, tz = rng.choice(LOCALES)
        line = f"Session locale: {MARK}{loc}; currency {cur}; time zone {tz}."
        q = p.question()
        orig = chat(i, [sys_msg(f"{line}\n\n{system}"), user(q)])
        fixed = chat(i, [sys_msg(system), user(f"{q}\n\n{unmark(line)}")])
        out.append((orig, fixed))
    return out


TIPS = [
    "Saved views keep your filters between sessions.",
    "Press the question mark key anywhere to see keyboard shortcuts.",
    "You can forward invoices to a shared mailbox from the billing settings.",
    "Webhook deliveries can be replayed from the event log for seven days.",
    "Two-factor sign-in can be enforced for the whole workspace.",
    "Reports can be scheduled to arrive by email every week.",
    "Archived records are left out of exports unless you include them.",
]


@workload("tip-of-the-day", "prompt", ("dynamic",),
          "a tip of the day from 7 variants (one per day) near the top of a prompt record")
def _tip(rng: random.Random, p: Prose) -> list[Pair]:
    body = "\n\n".join([p.policy_section(7), p.product_doc(), p.product_doc()])
    out = []
    times = spread(rng, rng.randint(120, 160), 7)
    for i, ts in enumerate(times):
        tip = TIPS[int((ts - BASE_TIME) // 86400) % 7]
        q = p.question()
        orig = prompt(i, f"Assistant handbook for {p.name}\n\nTip of the day: {MARK}{tip}\n\n{body}\n\nUser: {q}\nAssistant:", ts)
        fixed = prompt(i, f"Assistant handbook for {p.name}\n\n{body}\n\nUser: {q}\nTip of the day: {tip}\nAssistant:", ts)
        out.append((orig, fixed))
    return out


@workload("conversation-counter", "input_ids", ("dynamic",),
          "an incrementing conversation number after the intro paragraph, as token ids")
def _counter(rng: random.Random, p: Prose) -> list[Pair]:
    rest = "\n\n".join([p.policy_section(6), p.product_doc(), p.product_doc()])
    start = rng.randint(40000, 90000)
    out = []
    for i in range(rng.randint(80, 120)):
        line = f"This is conversation number {MARK}{start + i} handled by the assistant today."
        q = p.question()
        orig = chat(i, [sys_msg(f"{p.intro()}\n\n{line}\n\n{rest}"), user(q)])
        fixed = chat(i, [sys_msg(f"{p.intro()}\n\n{rest}"), user(f"{q}\n\n({unmark(line)})")])
        out.append((orig, fixed))
    return out


@workload("date-ordinal", "messages", ("dynamic",),
          "a non-ISO date ('Tuesday, 1st December 2026') on the first line, changing once a day over 12 days")
def _date_ordinal(rng: random.Random, p: Prose) -> list[Pair]:
    system = system_prompt(p, 6, docs=2)
    out = []
    for i, ts in enumerate(spread(rng, rng.randint(110, 140), 12)):
        y, m, d, wd = day_of(ts)
        line = f"Today is {MARK}{WEEKDAYS[wd]}, {ordinal(d)} {MONTHS[m - 1]} {y}."
        q = p.question()
        orig = untimed(chat(i, [sys_msg(f"{line}\n{system}"), user(q)]))
        fixed = untimed(chat(i, [sys_msg(system), user(f"{q}\n\n{unmark(line)}")]))
        out.append((orig, fixed))
    return out


@workload("two-variants", "messages", ("dynamic",),
          "an answer style with only 2 settings after the intro of a 3k-token system prompt",
          notes="costs one extra copy of the system prompt: a small gain (~1.5%)")
def _two_variants(rng: random.Random, p: Prose) -> list[Pair]:
    rest = "\n\n".join([p.policy_section(28), p.product_doc(), p.product_doc(), p.product_doc(), p.code_snippet()])
    out = []
    for i in range(rng.randint(60, 70)):
        style = rng.choice(["concise", "detailed"])
        line = f"Answer style requested by this workspace: {MARK}{style}."
        q = p.question()
        orig = chat(i, [sys_msg(f"{p.intro()}\n\n{line}\n\n{rest}"), user(q)])
        fixed = chat(i, [sys_msg(f"{p.intro()}\n\n{rest}"), user(f"{q}\n\n{unmark(line)}")])
        out.append((orig, fixed))
    return out


@workload("user-memory-block", "messages", ("dynamic",),
          "a 300-500 token per-user memory block right after the intro paragraph")
def _memory(rng: random.Random, p: Prose) -> list[Pair]:
    rest = "\n\n".join([p.policy_section(7), p.product_doc(), p.product_doc()])
    users = [f"{a} {b}" for a in ["Amara", "Jonas", "Mei", "Rafael", "Ingrid", "Tomasz", "Leila", "Kwame"]
             for b in ["Okafor", "Lindqvist", "Tanaka", "Duarte", "Novak"]]
    out = []
    for i in range(rng.randint(80, 110)):
        who = rng.choice(users)
        memory = p.memory_block(who, rng.randint(24, 34))
        q = p.question()
        marked = UNIT + memory.replace(f"about {who}", f"about {MARK}{who}", 1)
        orig = chat(i, [sys_msg(f"{p.intro()}\n\n{marked}\n\n{rest}"), user(q)])
        fixed = chat(i, [sys_msg(f"{p.intro()}\n\n{rest}"), user(f"{q}\n\n{memory}")])
        out.append((orig, fixed))
    return out


@workload("two-spans-far-apart", "prompt", ("dynamic", "dynamic"),
          "a workspace id (8 values) on line 2 and a live inventory line ~1,500 tokens later")
def _two_spans(rng: random.Random, p: Prose) -> list[Pair]:
    part1 = "\n\n".join([p.policy_section(7), p.product_doc()])
    part2 = "\n\n".join([p.product_doc(), p.product_doc(), p.policy_section(4)])
    spaces = [f"ws-{hexid(rng, 6)}" for _ in range(8)]
    out = []
    for i in range(rng.randint(90, 120)):
        ws = rng.choice(spaces)
        where = rng.choice(["Rotterdam", "Reno", "Leipzig"])
        stock = f"Inventory snapshot: {MARK}{rng.randint(100, 9999)} units in {where} as of {clock(BASE_TIME + 53 * i)}."
        q = p.question()
        head = f"Operations assistant for {p.name}\nWorkspace: {MARK}{ws}\n\n"
        orig = prompt(i, f"{head}{part1}\n\n{stock}\n\n{part2}\n\nRequest: {q}\nResponse:")
        fixed = prompt(i, f"Operations assistant for {p.name}\n\n{part1}\n\n{part2}\n\nRequest: {q}\n"
                          f"Workspace: {ws}\n{unmark(stock)}\nResponse:")
        out.append((orig, fixed))
    return out


@workload("greeting-composite", "messages", ("dynamic",),
          "one greeting sentence holding a name, a plan, a start year and a renewal month, opening paragraph 3")
def _greeting(rng: random.Random, p: Prose) -> list[Pair]:
    first = "\n\n".join([p.intro(), p.policy_paragraph("tone")])
    para3 = p.policy_paragraph("security")
    rest = "\n\n".join([p.policy_section(6), p.product_doc(), p.product_doc()])
    names = ["Priya", "Mateo", "Sofia", "Chen", "Olu", "Hannah", "Yusuf", "Ana", "Pavel", "Grace", "Ines", "Kenji",
             "Zara", "Liam", "Nadia", "Omar", "Freya", "Diego", "Aiko", "Sam"]
    out = []
    for i in range(rng.randint(90, 120)):
        s = (f"Good to see you again, {MARK}{rng.choice(names)}: your {rng.choice(['Starter', 'Team', 'Growth', 'Business'])} "
             f"plan has been active since {rng.randint(2019, 2025)} and renews in {rng.choice(MONTHS)}.")
        q = p.question()
        orig = chat(i, [sys_msg(f"{first}\n\n{UNIT}{s} {para3}\n\n{rest}"), user(q)])
        fixed = chat(i, [sys_msg(f"{first}\n\n{para3}\n\n{rest}"), user(f"{q}\n\n{unmark(s)}")])
        out.append((orig, fixed))
    return out


@workload("japanese-sync-time", "messages", ("dynamic",),
          "a Japanese last-sync timestamp (2026年12月1日 14時05分) inside a multilingual block mid-prompt")
def _japanese(rng: random.Random, p: Prose) -> list[Pair]:
    head = "\n\n".join([p.intro(), p.policy_section(4), "Language rules:\n" + p.multilingual_block()])
    tail = "\n\n".join([p.product_doc(), p.policy_section(4)])
    out = []
    for i in range(rng.randint(80, 110)):
        ts = BASE_TIME + 300.0 * i + rng.uniform(0, 200)
        y, m, d, _ = day_of(ts)
        hh, mm = clock(ts).split(":")[:2]
        line = f"最終同期: {UNIT}{y}年{m}月{d}日 {MARK}{hh}時{mm}分（この時刻以降の注文は未反映です）"
        q = p.question()
        orig = chat(i, [sys_msg(f"{head}\n{line}\n\n{tail}"), user(q)], ts=ts)
        fixed = chat(i, [sys_msg(f"{head}\n\n{tail}"), user(f"{q}\n\n{unmark(line)}")], ts=ts)
        out.append((orig, fixed))
    return out


@workload("json-config-nonce", "prompt", ("dynamic",),
          "a session nonce as the 5th of 10 keys of a pretty-printed JSON config block")
def _json_config(rng: random.Random, p: Prose) -> list[Pair]:
    intro = f"You are the {p.product} configuration assistant. Use the runtime configuration below when answering."
    tail = "\n\n".join([p.product_doc(), p.product_doc(), p.policy_section(5)])
    base = {"product": p.product, "api_version": "2026-06", "region": "eu-west-1", "max_results": 25,
            "session_nonce": None, "features": ["exports", "webhooks", "sso"], "strict_mode": True,
            "retention_days": 90, "support_email": "help@example.com", "locale_fallback": "en-GB"}
    out = []
    for i in range(rng.randint(70, 100)):
        nonce = hexid(rng, 24)
        cfg = dict(base, session_nonce=MARK + nonce)
        fixed_cfg = {k: v for k, v in base.items() if k != "session_nonce"}
        q = p.question()
        orig = prompt(i, f"{intro}\n\n```json\n{json.dumps(cfg, indent=2, ensure_ascii=False)}\n```\n\n{tail}\n\nQ: {q}\nA:")
        fixed = prompt(i, f"{intro}\n\n```json\n{json.dumps(fixed_cfg, indent=2)}\n```\n\n{tail}\n\nQ: {q}\nsession_nonce: {nonce}\nA:")
        out.append((orig, fixed))
    return out


@workload("rate-in-fewshot-answer", "messages", ("dynamic",),
          "a live exchange rate inside the second few-shot assistant message (messages 4 of 10)")
def _rate_fewshot(rng: random.Random, p: Prose) -> list[Pair]:
    system = system_prompt(p, 5, docs=1)
    shots = p.fewshot(4)
    out = []
    for i in range(rng.randint(70, 100)):
        rate = f"1 EUR = {rng.uniform(1.02, 1.12):.4f} USD"
        msgs, fixed_msgs = [sys_msg(system)], [sys_msg(system)]
        for k, (q, a) in enumerate(shots):
            msgs.append(user(q))
            fixed_msgs.append(user(q))
            if k == 1:
                msgs.append(assistant(f"{a} For reference, today's rate is {MARK}{rate}."))
            else:
                msgs.append(assistant(a))
            fixed_msgs.append(assistant(a))
        q = p.question()
        msgs.append(user(q))
        fixed_msgs.append(user(f"{q}\n\nFor reference, today's rate is {rate}."))
        out.append((chat(i, msgs), chat(i, fixed_msgs)))
    return out


@workload("tenant-header-30", "input_ids", ("dynamic",),
          "a tenant slug from 30 on the first line of the system prompt, as token ids")
def _tenant30(rng: random.Random, p: Prose) -> list[Pair]:
    system = system_prompt(p, 14, docs=3)
    tenants = [f"{a}-{b}" for a in ["acme", "globex", "initech", "umbrella", "stark", "wayne"]
               for b in ["robotics", "foods", "labs", "logistics", "media"]]
    out = []
    for i in range(rng.randint(170, 200)):
        line = f"Workspace: {MARK}{rng.choice(tenants)} ({rng.choice(['EU', 'US'])} region)"
        q = p.question()
        orig = chat(i, [sys_msg(f"{line}\n{system}"), user(q)])
        fixed = chat(i, [sys_msg(system), user(f"{q}\n\n{unmark(line)}")])
        out.append((orig, fixed))
    return out


@workload("slots-enum-in-tool", "messages", ("dynamic",),
          "an hourly list of free appointment slots as the enum of a parameter in the first tool's schema")
def _slots(rng: random.Random, p: Prose) -> list[Pair]:
    system = system_prompt(p, 5, docs=1)
    names = ["book_appointment", "update_contact", "create_ticket"]
    out = []
    for i in range(rng.randint(80, 110)):
        ts = BASE_TIME + 600.0 * i
        hour = int((ts - BASE_TIME) // 3600)
        slot_rng = random.Random(hour)
        slots = sorted(f"2026-12-{slot_rng.randint(2, 9):02d}T{slot_rng.choice([9, 10, 11, 14, 15, 16])}:00"
                       for _ in range(5))
        tools = [p.tool(n) for n in names]
        fixed_tools = json.loads(json.dumps(tools))
        props = tools[0]["function"]["parameters"]["properties"]
        props["date"] = {"type": "string", "description": "One of the free slots.", "enum": [MARK + slots[0]] + slots[1:]}
        fixed_props = fixed_tools[0]["function"]["parameters"]["properties"]
        fixed_props["date"] = {"type": "string", "description": "One of the free slots."}
        q = p.question()
        orig = chat(i, [sys_msg(system), user(q)], tools, ts)
        fixed = chat(i, [sys_msg(system), user(f"{q}\n\nFree slots: {', '.join(slots)}")], fixed_tools, ts)
        out.append((orig, fixed))
    return out


@workload("repo-snapshot-sha", "prompt", ("dynamic",),
          "a commit hash that changes every ~8 requests on the second line of a code-review prompt")
def _repo_sha(rng: random.Random, p: Prose) -> list[Pair]:
    body = "\n\n".join(["# Conventions", p.policy_section(4), "# Reference implementation", p.code_snippet(),
                        p.code_snippet(), "# Product context", p.product_doc()])
    out = []
    sha = hexid(rng, 12)
    for i in range(rng.randint(90, 130)):
        if rng.random() < 0.12:
            sha = hexid(rng, 12)
        diff = f"```diff\n- limit = {rng.randint(5, 99)}\n+ limit = {rng.randint(100, 999)}\n```"
        orig = prompt(i, f"You review pull requests for the {p.name} monorepo.\nRepository snapshot {MARK}{sha} (branch main)\n\n"
                         f"{body}\n\nReview this change:\n{diff}\n")
        fixed = prompt(i, f"You review pull requests for the {p.name} monorepo.\n\n{body}\n\nReview this change:\n{diff}\n"
                          f"Repository snapshot {sha} (branch main)\n")
        out.append((orig, fixed))
    return out


@workload("german-wait-time", "messages", ("dynamic",),
          "a wait time in minutes inside a German bullet list of rules, ~600 tokens in")
def _german_wait(rng: random.Random, p: Prose) -> list[Pair]:
    head = "\n\n".join([p.intro(), p.policy_section(4)])
    rules_a = ["- Antworte auf Deutsch, wenn der Kunde auf Deutsch schreibt.", "- Verwende immer die Sie-Form."]
    rules_b = ["- Nenne keine internen Ticketnummern.", "- Verweise bei Rechnungsfragen auf das Abrechnungsteam."]
    tail = "\n\n".join([p.product_doc(), p.product_doc(), p.policy_section(3)])
    out = []
    for i in range(rng.randint(100, 130)):
        wait = f"- Aktuelle Wartezeit am Telefon: {MARK}{rng.randint(1, 60)} Minuten."
        q = p.question()
        rules = "\n\nRegeln für deutschsprachige Kunden:\n"
        orig = chat(i, [sys_msg(head + rules + "\n".join(rules_a + [wait] + rules_b) + "\n\n" + tail), user(q)])
        fixed = chat(i, [sys_msg(head + rules + "\n".join(rules_a + rules_b) + "\n\n" + tail),
                         user(f"{q}\n\n{unmark(wait)[2:]}")])
        out.append((orig, fixed))
    return out


@workload("content-parts-signed-in-user", "messages", ("dynamic",),
          "the signed-in user's name and email as the middle text part of a system message given as content parts")
def _content_parts(rng: random.Random, p: Prose) -> list[Pair]:
    first = "\n\n".join([p.intro(), p.policy_section(3)])
    rest = "\n\n".join([p.product_doc(), p.policy_section(5), p.product_doc()])
    people = [("Aino Virtanen", "aino.v"), ("Bongani Dlamini", "bongani"), ("Carmen Ruiz", "c.ruiz"),
              ("Dev Patel", "dev.p"), ("Elif Kaya", "elif"), ("Farah Haddad", "farah.h")]
    out = []
    for i in range(rng.randint(80, 110)):
        name, handle = rng.choice(people)
        mail = f"{handle}+{rng.randint(1, 99)}@{rng.choice(['example.org', 'example.net'])}"
        q = p.question()
        parts = [{"type": "text", "text": first + "\n\n"},
                 {"type": "text", "text": f"Signed-in user: {MARK}{name} <{mail}>\n\n"},
                 {"type": "text", "text": rest}]
        orig = chat(i, [{"role": "system", "content": parts}, user(q)])
        fixed = chat(i, [{"role": "system", "content": [{"type": "text", "text": first + "\n\n"},
                                                          {"type": "text", "text": rest}]},
                         user(f"{q}\n\nSigned-in user: {name} <{mail}>")])
        out.append((orig, fixed))
    return out


@workload("error-log-between-sections", "prompt", ("dynamic",),
          "a 300-600 token per-request error log between the instructions and a 1.5k-token runbook")
def _error_log(rng: random.Random, p: Prose) -> list[Pair]:
    instructions = f"## Instructions\nYou triage incidents for {p.name}. " + p.policy_paragraph("escalation")
    runbook = "## Runbook\n" + "\n\n".join([p.product_doc(), p.product_doc(), p.policy_section(5), p.code_snippet()])
    services = ["billing-api", "ledger-writer", "export-worker", "webhook-relay", "auth-gateway"]
    errors = ["connection reset by peer", "deadline exceeded after 30s", "duplicate key value violates unique constraint",
              "upstream returned 503", "token signature mismatch", "queue depth above threshold"]
    out = []
    for i in range(rng.randint(70, 100)):
        ts = BASE_TIME + 29.0 * i
        lines = []
        for k in range(rng.randint(14, 26)):
            lines.append(f"{clock(ts - 3 * k)} {rng.choice(['ERROR', 'WARN', 'INFO'])} {rng.choice(services)} "
                         f"pod-{hexid(rng, 5)}: {rng.choice(errors)} (trace {hexid(rng, 16)})")
        log = "## Recent log lines\n" + MARK + "\n".join(lines)
        q = f"What is the most likely cause, and who should be paged? Incident {rng.randint(1000, 9999)}."
        orig = prompt(i, f"{instructions}\n\n{log}\n\n{runbook}\n\n## Question\n{q}\n", ts)
        fixed = prompt(i, f"{instructions}\n\n{runbook}\n\n## Question\n{q}\n\n{unmark(log)}\n", ts)
        out.append((orig, fixed))
    return out


@workload("prerendered-llama-prompt-clock", "prompt", ("dynamic",),
          "a prompt record the client rendered itself in Llama 3's layout (BOS and headers as text), clock in the system part")
def _prerendered(rng: random.Random, p: Prose) -> list[Pair]:
    system = system_prompt(p, 6, docs=2)
    out = []
    for i in range(rng.randint(80, 110)):
        ts = BASE_TIME + 83.0 * i
        y, m, d, _ = day_of(ts)
        head = "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\n"
        stamp = f"Cutting Knowledge Date: December 2023\nToday Date: {UNIT}{d} {MONTHS[m - 1][:3]} {y}, {MARK}{clock(ts)}"
        q = p.question()
        tail = f"<|eot_id|><|start_header_id|>user<|end_header_id|>\n\n{q}"
        end = "<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n"
        orig = prompt(i, f"{head}{stamp}\n\n{system}{tail}{end}", ts)
        fixed = prompt(i, f"{head}Cutting Knowledge Date: December 2023\n\n{system}{tail}\n\n{unmark(stamp).splitlines()[1]}{end}", ts)
        out.append((orig, fixed))
    return out


@workload("mixed-record-kinds-date", "mixed", ("dynamic",),
          "one log with every other request as token ids and the rest as messages; a daily date after the intro")
def _mixed_kinds(rng: random.Random, p: Prose) -> list[Pair]:
    rest = "\n\n".join([p.policy_section(6), p.product_doc(), p.product_doc()])
    out = []
    for i, ts in enumerate(spread(rng, rng.randint(100, 130), 9)):
        y, m, d, wd = day_of(ts)
        line = f"Current date: {MARK}{MONTHS[m - 1]} {ordinal(d)}, {y}"
        q = p.question()
        orig = untimed(chat(i, [sys_msg(f"{p.intro()}\n{line}\n\n{rest}"), user(q)]))
        fixed = untimed(chat(i, [sys_msg(f"{p.intro()}\n\n{rest}"), user(f"{q}\n\n{unmark(line)}")]))
        out.append((orig, fixed))
    return out


# ---------------------------------------------------------------- defect workloads: order


@workload("fewshot-shuffled-in-system", "messages", ("order",),
          "six Q/A examples inside the system prompt, shuffled per request, with static docs after them")
def _fewshot_system(rng: random.Random, p: Prose) -> list[Pair]:
    head = "\n\n".join([p.intro(), p.policy_section(4)])
    shots = p.fewshot(6)
    tail = "\n\n".join([p.product_doc(), p.product_doc(), p.policy_section(3)])
    out = []
    for i in range(rng.randint(80, 110)):
        order = list(range(6))
        rng.shuffle(order)
        ex = "\n\n".join(f"Q: {shots[k][0]}\nA: {shots[k][1]}" for k in order)
        canon = "\n\n".join(f"Q: {q}\nA: {a}" for q, a in shots)
        q = p.question()
        orig = chat(i, [sys_msg(f"{head}\n\nExamples of good replies:\n\n{MARK}{ex}\n\n{tail}"), user(q)])
        fixed = chat(i, [sys_msg(f"{head}\n\nExamples of good replies:\n\n{canon}\n\n{tail}"), user(q)])
        out.append((orig, fixed))
    return out


@workload("tool-schema-key-order", "messages", ("order",),
          "the parameter keys of one tool schema (update_contact, 2nd of 5 tools) in random order per request")
def _key_order(rng: random.Random, p: Prose) -> list[Pair]:
    system = system_prompt(p, 5, docs=1)
    names = ["lookup_invoice", "update_contact", "search_orders", "create_ticket", "run_report"]
    out = []
    for i in range(rng.randint(80, 110)):
        tools = [p.tool(n) for n in names]
        fixed_tools = json.loads(json.dumps(tools))
        props = tools[1]["function"]["parameters"]["properties"]
        keys = list(props)
        rng.shuffle(keys)
        shuffled = {(MARK + k if j == 0 else k): props[k] for j, k in enumerate(keys)}
        tools[1]["function"]["parameters"]["properties"] = shuffled
        q = p.question()
        out.append((chat(i, [sys_msg(system), user(q)], tools), chat(i, [sys_msg(system), user(q)], fixed_tools)))
    return out


SECTIONS = ["Refunds", "Security", "Escalation", "Tone", "Data retention"]


@workload("sections-permuted-prompt", "prompt", ("order",),
          "five '## ' sections of a prompt record in a different order per request")
def _sections_prompt(rng: random.Random, p: Prose) -> list[Pair]:
    bodies = {s: p.policy_paragraph(s.lower()) + "\n\n" + p.policy_paragraph(s.lower()) for s in SECTIONS}
    out = []
    for i in range(rng.randint(90, 120)):
        order = list(SECTIONS)
        rng.shuffle(order)
        text = "\n\n".join(f"## {s}\n{bodies[s]}" for s in order)
        canon = "\n\n".join(f"## {s}\n{bodies[s]}" for s in SECTIONS)
        q = p.question()
        head = f"{p.name} support handbook (internal)\n\n"
        out.append((prompt(i, f"{head}{UNIT}## {MARK}{text[3:]}\n\n## Question\n{q}\n"),
                    prompt(i, f"{head}{canon}\n\n## Question\n{q}\n")))
    return out


@workload("compact-tools-shuffled-prompt", "prompt", ("order",),
          "a compact JSON array of six function specs inside a prompt record, shuffled per request")
def _compact_tools(rng: random.Random, p: Prose) -> list[Pair]:
    specs = [p.tool(n)["function"] for n in TOOL_NAMES[:6]]
    tail = "\n\n".join([p.policy_section(6), p.product_doc(), p.product_doc()])
    out = []
    for i in range(rng.randint(80, 110)):
        order = list(range(6))
        rng.shuffle(order)
        arr = compact_json([specs[k] for k in order])
        head = 'You can call these functions. Reply with one JSON object {"name": ..., "arguments": {...}}.\n\nFunctions: '
        q = p.question()
        marked = UNIT + '[{"name":"' + MARK + arr[len('[{"name":"'):]
        out.append((prompt(i, f"{head}{marked}\n\n{tail}\n\nUser: {q}\n"),
                    prompt(i, f"{head}{compact_json(specs)}\n\n{tail}\n\nUser: {q}\n")))
    return out


@workload("fewshot-turns-shuffled", "input_ids", ("order",),
          "five few-shot user/assistant pairs as messages after the system prompt, shuffled, as token ids")
def _fewshot_turns(rng: random.Random, p: Prose) -> list[Pair]:
    system = system_prompt(p, 5, docs=1)
    shots = p.fewshot(5)
    out = []
    for i in range(rng.randint(90, 120)):
        order = list(range(5))
        rng.shuffle(order)
        msgs, fixed = [sys_msg(system)], [sys_msg(system)]
        for j, k in enumerate(order):
            msgs += [user((MARK if j == 0 else "") + shots[k][0]), assistant(shots[k][1])]
        for q, a in shots:
            fixed += [user(q), assistant(a)]
        q = p.question()
        msgs.append(user(q))
        fixed.append(user(q))
        out.append((chat(i, msgs), chat(i, fixed)))
    return out


@workload("table-rows-shuffled", "messages", ("order",),
          "the body rows of a markdown plan table in set-iteration order, with static docs after the table")
def _table_rows(rng: random.Random, p: Prose) -> list[Pair]:
    head = "\n\n".join([p.intro(), p.policy_section(3)])
    table = p.table(8)
    tail = "\n\n".join([p.product_doc(), p.product_doc(), p.policy_section(4)])
    out = []
    for i in range(rng.randint(80, 110)):
        body = table[2:]
        rng.shuffle(body)
        q = p.question()
        # Rows all open with "| "; the plan name is where they differ.
        rows = "\n".join(table[:2] + [UNIT + "| " + MARK + body[0][2:]] + body[1:])
        orig = chat(i, [sys_msg(f"{head}\n\nPlans:\n\n{rows}\n\n{tail}"), user(q)])
        fixed = chat(i, [sys_msg(f"{head}\n\nPlans:\n\n" + "\n".join(table) + f"\n\n{tail}"), user(q)])
        out.append((orig, fixed))
    return out


FRENCH_RULES = [
    "Vouvoie toujours le client, même s'il te tutoie.",
    "Ne communique jamais de numéro de ticket interne.",
    "Pour toute question de facturation, propose de transmettre la demande au service comptable.",
    "Si une panne est en cours, renvoie vers la page d'état plutôt que de donner une estimation.",
    "Réponds en moins de cent cinquante mots sauf demande contraire.",
    "Ne promets aucun remboursement avant la vérification du paiement.",
    "Termine chaque réponse par une question pour vérifier que le problème est résolu.",
]


@workload("french-rules-shuffled", "messages", ("order",),
          "a French bullet list of seven rules from a set (order varies), early in the system prompt")
def _french_rules(rng: random.Random, p: Prose) -> list[Pair]:
    tail = "\n\n".join([p.policy_section(6), p.product_doc(), p.product_doc()])
    out = []
    for i in range(rng.randint(80, 110)):
        rules = list(FRENCH_RULES)
        rng.shuffle(rules)
        text = "\n".join(f"- {r}" for r in rules)
        canon = "\n".join(f"- {r}" for r in FRENCH_RULES)
        q = p.question()
        intro = "Tu es l'assistant du service client francophone.\nRègles :\n"
        orig = chat(i, [sys_msg(f"{intro}{UNIT}- {MARK}{text[2:]}\n\n{tail}"), user(q)])
        fixed = chat(i, [sys_msg(f"{intro}{canon}\n\n{tail}"), user(q)])
        out.append((orig, fixed))
    return out


@workload("system-messages-permuted", "messages", ("order",),
          "the system prompt sent as three system messages (persona, policies, product docs) in a varying order")
def _system_messages(rng: random.Random, p: Prose) -> list[Pair]:
    parts = [p.intro() + " " + p.policy_paragraph("tone"), p.policy_section(5), "\n\n".join([p.product_doc(), p.product_doc()])]
    out = []
    for i in range(rng.randint(80, 110)):
        order = [0, 1, 2]
        rng.shuffle(order)
        q = p.question()
        msgs = [sys_msg((MARK if j == 0 else "") + parts[k]) for j, k in enumerate(order)]
        out.append((chat(i, msgs + [user(q)]), chat(i, [sys_msg(t) for t in parts] + [user(q)])))
    return out


# ---------------------------------------------------------------- defect workloads: placement


def _passages(p: Prose, rng: random.Random, corpus: int, k: int) -> list[str]:
    return [p.passage(d) for d in rng.sample(range(corpus), k)]


@workload("docs-message-before-system", "messages", ("placement",),
          "three retrieved passages (corpus of 150) as a separate system message before the static system prompt")
def _docs_before(rng: random.Random, p: Prose) -> list[Pair]:
    system = system_prompt(p, 20, docs=4, code=True)
    out = []
    for i in range(rng.randint(90, 120)):
        docs = "Retrieved passages:\n\n" + "\n\n".join(_passages(p, rng, 150, 3))
        q = p.question()
        orig = chat(i, [sys_msg(MARK + docs), sys_msg(system), user(q)])
        fixed = chat(i, [sys_msg(system), sys_msg(docs), user(q)])
        out.append((orig, fixed))
    return out


@workload("history-summary-before-system", "messages", ("placement",),
          "a per-conversation history summary as the first message, before the static system prompt, in growing chats")
def _summary_before(rng: random.Random, p: Prose) -> list[Pair]:
    system = system_prompt(p, 6, docs=2)
    convs = []
    for c in range(rng.randint(24, 32)):
        summary = (f"Summary of the earlier part of this conversation (case {MARK}{1000 + c}): the customer "
                   + p.rng.choice(["asked about", "complained about", "wanted to change", "could not find"])
                   + f" {p.rng.choice(['their invoices', 'seat counts', 'the export', 'webhook failures', 'sign-in'])}. "
                   + p.customer_note())
        turns = []
        for _ in range(rng.randint(3, 5)):
            turns.append((p.question(), p.answer()))
        convs.append((summary, turns))
    # Interleave the conversations: each request is one conversation's next turn.
    progress = [0] * len(convs)
    out: list[Pair] = []
    i = 0
    while any(progress[c] < len(convs[c][1]) for c in range(len(convs))):
        c = rng.choice([c for c in range(len(convs)) if progress[c] < len(convs[c][1])])
        summary, turns = convs[c]
        k = progress[c]
        history: list[dict[str, Any]] = []
        for q, a in turns[:k]:
            history += [user(q), assistant(a)]
        history.append(user(turns[k][0]))
        orig = chat(i, [sys_msg(UNIT + summary), sys_msg(system)] + history)
        fixed = chat(i, [sys_msg(system), sys_msg(unmark(summary))] + history)
        out.append((orig, fixed))
        progress[c] += 1
        i += 1
    return out


@workload("context-before-instructions-prompt", "prompt", ("placement",),
          "'Context documents' (two passages, corpus of 200) ahead of 2k tokens of static instructions in a prompt record")
def _context_before(rng: random.Random, p: Prose) -> list[Pair]:
    instructions = system_prompt(p, 7, docs=2)
    out = []
    for i in range(rng.randint(80, 110)):
        docs = "\n\n".join(_passages(p, rng, 200, 2))
        q = p.question()
        orig = prompt(i, f"Context documents:\n\n{MARK}{docs}\n\nInstructions:\n{instructions}\n\nQuestion: {q}\nAnswer:")
        fixed = prompt(i, f"Instructions:\n{instructions}\n\nContext documents:\n\n{docs}\n\nQuestion: {q}\nAnswer:")
        out.append((orig, fixed))
    return out


@workload("profile-before-system-ids", "input_ids", ("placement",),
          "a per-customer profile message (80 customers) before the static system prompt, as token ids")
def _profile_before(rng: random.Random, p: Prose) -> list[Pair]:
    system = system_prompt(p, 7, docs=2)
    profiles = []
    for _ in range(80):
        profiles.append(
            f"Customer profile\nAccount: ACC-{MARK}{rng.randint(10000, 99999)}\nPlan: {rng.choice(['Team', 'Growth', 'Business'])}\n"
            f"Customer since: {rng.randint(2015, 2025)}\nOpen tickets: {rng.randint(0, 6)}\n"
            f"Notes: {p.customer_note()}")
    out = []
    for i in range(rng.randint(140, 170)):
        prof = rng.choice(profiles)
        q = p.question()
        out.append((chat(i, [sys_msg(UNIT + prof), sys_msg(system), user(q)]),
                    chat(i, [sys_msg(system), sys_msg(unmark(prof)), user(q)])))
    return out


@workload("question-before-static-rules", "messages", ("placement",),
          "the user's question first in the user turn, then 600+ tokens of formatting rules every request appends")
def _question_first(rng: random.Random, p: Prose) -> list[Pair]:
    system = system_prompt(p, 5, docs=1)
    rules = "Formatting rules for your answer:\n" + "\n".join(f"- {p.rule_sentence()}" for _ in range(22))
    out = []
    for i in range(rng.randint(90, 120)):
        q = p.question()
        orig = chat(i, [sys_msg(system), user(f"{MARK}{q}\n\n{rules}")])
        fixed = chat(i, [sys_msg(system), user(f"{rules}\n\n{q}")])
        out.append((orig, fixed))
    return out


# ---------------------------------------------------------------- defect workloads: two classes


@workload("clock-and-shuffled-tools", "messages", ("dynamic", "order"),
          "a minute-resolution clock on the first line and five tools in a different order per request")
def _clock_tools(rng: random.Random, p: Prose) -> list[Pair]:
    system = system_prompt(p, 5, docs=1)
    names = ["lookup_invoice", "search_orders", "create_ticket", "get_shipment", "run_report"]
    out = []
    for i in range(rng.randint(80, 110)):
        ts = BASE_TIME + 71.0 * i
        y, m, d, wd = day_of(ts)
        line = f"Current date and time: {UNIT}{WEEKDAYS[wd][:3]} {d:02d} {MONTHS[m - 1][:3]} {y} {MARK}{clock(ts)[:5]}"
        order = list(names)
        rng.shuffle(order)
        tools = [p.tool(n) for n in order]
        tools[0]["function"]["name"] = MARK + tools[0]["function"]["name"]
        tools[0]["type"] = UNIT + tools[0]["type"]
        q = p.question()
        orig = chat(i, [sys_msg(f"{line}\n\n{system}"), user(q)], tools, ts)
        fixed = chat(i, [sys_msg(system), user(f"{q}\n\n{unmark(line)}")], [p.tool(n) for n in names], ts)
        out.append((orig, fixed))
    return out


@workload("plan-row-and-shuffled-sections", "prompt", ("order", "dynamic"),
          "shuffled sections early, then a per-request usage line deep in the static tail")
def _sections_then_value(rng: random.Random, p: Prose) -> list[Pair]:
    bodies = {s: p.policy_paragraph(s.lower()) for s in SECTIONS}
    tail_a = "\n\n".join([p.product_doc(), p.product_doc()])
    tail_b = "\n\n".join([p.product_doc(), p.policy_section(3)])
    out = []
    for i in range(rng.randint(80, 100)):
        order = list(SECTIONS)
        rng.shuffle(order)
        text = "\n\n".join(f"## {s}\n{bodies[s]}" for s in order)
        canon = "\n\n".join(f"## {s}\n{bodies[s]}" for s in SECTIONS)
        usage = f"Usage this month: {MARK}{rng.randint(1000, 99999):,} API calls of {rng.choice(['50,000', '250,000'])}."
        q = p.question()
        head = f"# {p.product} assistant\n\n"
        orig = prompt(i, f"{head}{UNIT}## {MARK}{text[3:]}\n\n{tail_a}\n\n{usage}\n\n{tail_b}\n\nQuestion: {q}\n")
        fixed = prompt(i, f"{head}{canon}\n\n{tail_a}\n\n{tail_b}\n\nQuestion: {q}\n{unmark(usage)}\n")
        out.append((orig, fixed))
    return out


# ---------------------------------------------------------------- clean controls


@workload("clean-growing-chat", "messages", (),
          "multi-turn conversations growing turn by turn, interleaved")
def _growing_chat(rng: random.Random, p: Prose) -> list[Pair]:
    system = system_prompt(p, 6, docs=1)
    convs = [[(p.question(), p.answer()) for _ in range(rng.randint(3, 6))] for _ in range(rng.randint(22, 30))]
    progress = [0] * len(convs)
    out: list[Pair] = []
    i = 0
    while any(progress[c] < len(convs[c]) for c in range(len(convs))):
        c = rng.choice([c for c in range(len(convs)) if progress[c] < len(convs[c])])
        k = progress[c]
        msgs = [sys_msg(system)]
        for q, a in convs[c][:k]:
            msgs += [user(q), assistant(a)]
        msgs.append(user(convs[c][k][0]))
        rec = chat(i, msgs)
        out.append((rec, rec))
        progress[c] += 1
        i += 1
    return out


@workload("clean-timestamped-turns", "messages", (),
          "growing chats whose every user turn ends with its own send time (kept in the history as sent)")
def _timestamped_turns(rng: random.Random, p: Prose) -> list[Pair]:
    system = system_prompt(p, 6, docs=2)
    convs = [[p.question() for _ in range(rng.randint(3, 5))] for _ in range(rng.randint(20, 26))]
    answers = [[p.answer() for _ in c] for c in convs]
    stamps: list[list[str]] = [[] for _ in convs]
    progress = [0] * len(convs)
    out: list[Pair] = []
    i = 0
    while any(progress[c] < len(convs[c]) for c in range(len(convs))):
        c = rng.choice([c for c in range(len(convs)) if progress[c] < len(convs[c])])
        k = progress[c]
        stamps[c].append(f"[sent {clock(BASE_TIME + 17.0 * i)}]")
        msgs = [sys_msg(system)]
        for j in range(k):
            msgs += [user(f"{convs[c][j]} {stamps[c][j]}"), assistant(answers[c][j])]
        msgs.append(user(f"{convs[c][k]} {stamps[c][k]}"))
        rec = chat(i, msgs)
        out.append((rec, rec))
        progress[c] += 1
        i += 1
    return out


@workload("clean-agent-loop", "messages", (),
          "agent loops: tool calls and tool results appended step by step, static tools")
def _agent_loop(rng: random.Random, p: Prose) -> list[Pair]:
    system = system_prompt(p, 4, docs=1)
    tools = [p.tool(n) for n in ["lookup_invoice", "search_orders", "get_shipment", "create_ticket"]]
    out: list[Pair] = []
    i = 0
    for task in range(rng.randint(20, 28)):
        msgs: list[dict[str, Any]] = [sys_msg(system), user(p.question())]
        for step in range(rng.randint(2, 5)):
            rec = chat(i, [dict(m) for m in msgs], tools)
            out.append((rec, rec))
            i += 1
            name = rng.choice(["lookup_invoice", "search_orders", "get_shipment"])
            args = {"lookup_invoice": {"invoice_number": f"INV-{rng.randint(100000, 999999)}"},
                    "search_orders": {"customer_id": f"C{rng.randint(1000, 9999)}", "status": "open"},
                    "get_shipment": {"tracking_number": f"TRK{rng.randint(10**8, 10**9)}"}}[name]
            msgs.append({"role": "assistant", "content": "",
                         "tool_calls": [{"id": f"call_{task}_{step}", "type": "function",
                                         "function": {"name": name, "arguments": json.dumps(args)}}]})
            result = {"ok": True, "status": rng.choice(["paid", "open", "in transit", "delivered"]),
                      "amount": rng.randint(10, 5000), "updated": clock(BASE_TIME + i * 13)}
            msgs.append({"role": "tool", "tool_call_id": f"call_{task}_{step}", "content": json.dumps(result)})
    return out


@workload("clean-rag-question-last", "messages", (),
          "RAG: static system prompt, then passages and the question last in the user turn")
def _rag_clean(rng: random.Random, p: Prose) -> list[Pair]:
    system = system_prompt(p, 18, docs=4, code=True)
    out = []
    for i in range(rng.randint(90, 120)):
        docs = "\n\n".join(_passages(p, rng, 150, 3))
        rec = chat(i, [sys_msg(system), user(f"Passages:\n\n{docs}\n\nQuestion: {p.question()}")])
        out.append((rec, rec))
    return out


@workload("clean-timestamp-at-end", "messages", (),
          "per-request values (timestamp, request id) only at the very end of the user turn")
def _ts_end(rng: random.Random, p: Prose) -> list[Pair]:
    system = system_prompt(p, 7, docs=2)
    out = []
    for i in range(rng.randint(80, 110)):
        ts = BASE_TIME + 41.0 * i
        rec = chat(i, [sys_msg(system), user(f"{p.question()}\n\nSent {clock(ts)} UTC, request {uuid(rng)}")], ts=ts)
        out.append((rec, rec))
    return out


@workload("clean-ab-system-prompts", "messages", (),
          "A/B test: two system prompts that share only the first sentence and nothing after")
def _ab(rng: random.Random, p: Prose) -> list[Pair]:
    a = system_prompt(p, 6, docs=2)
    q = Prose(random.Random(rng.random()), COMPANIES[(COMPANIES.index(p.company) + 3) % len(COMPANIES)])
    b = "\n\n".join([q.policy_section(6), q.product_doc(), q.product_doc()])
    opening = "You are a support assistant.\n\n"
    out = []
    for i in range(rng.randint(100, 130)):
        arm = a if rng.random() < 0.5 else b
        rec = chat(i, [sys_msg(opening + arm), user(p.question())])
        out.append((rec, rec))
    return out


@workload("clean-tenant-suffix-prompt", "prompt", (),
          "a static prompt with a per-tenant suffix (20 tenants) and the question last")
def _tenant_suffix(rng: random.Random, p: Prose) -> list[Pair]:
    body = system_prompt(p, 7, docs=2)
    tenants = [(f"tenant-{k:02d}", p.customer_note()) for k in range(20)]
    out = []
    for i in range(rng.randint(100, 140)):
        t, notes = rng.choice(tenants)
        rec = prompt(i, f"{body}\n\nTenant: {t}\nTenant notes: {notes}\n\nQuestion: {p.question()}\nAnswer:")
        out.append((rec, rec))
    return out


@workload("clean-static-system-ids", "input_ids", (),
          "a static system prompt and a fresh question per request, as token ids")
def _ids_clean(rng: random.Random, p: Prose) -> list[Pair]:
    system = system_prompt(p, 8, docs=2, code=True)
    out = []
    for i in range(rng.randint(70, 100)):
        rec = chat(i, [sys_msg(system), user(p.question())])
        out.append((rec, rec))
    return out


@workload("clean-multilingual", "messages", (),
          "a static multilingual system prompt and user questions in several languages")
def _multi_clean(rng: random.Random, p: Prose) -> list[Pair]:
    system = "\n\n".join([p.intro(), "Language rules:\n" + p.multilingual_block(), p.policy_section(6), p.product_doc()])
    questions = ["Wie kann ich meine Rechnung {n} herunterladen?", "¿Puedo cambiar el método de pago del pedido {n}?",
                 "Comment exporter mes données depuis {n} jours ?", "請求書{n}の内訳を教えてください。",
                 "Como altero o e-mail da conta {n}?", "我的账户{n}为什么被锁定了？"]
    out = []
    for i in range(rng.randint(80, 110)):
        rec = chat(i, [sys_msg(system), user(rng.choice(questions).format(n=rng.randint(1000, 999999)))])
        out.append((rec, rec))
    return out


@workload("clean-fewshot-fixed-prompt", "prompt", (),
          "few-shot examples in a fixed order, then the question, in a prompt record")
def _fewshot_clean(rng: random.Random, p: Prose) -> list[Pair]:
    shots = "\n\n".join(f"Q: {q}\nA: {a}" for q, a in p.fewshot(6))
    head = "\n\n".join([p.intro(), p.policy_section(5), shots])
    out = []
    for i in range(rng.randint(80, 110)):
        rec = prompt(i, f"{head}\n\nQ: {p.question()}\nA:")
        out.append((rec, rec))
    return out


@workload("clean-tools-request-id-last", "messages", (),
          "static tools and system prompt; the user turn ends with a request id")
def _tools_clean(rng: random.Random, p: Prose) -> list[Pair]:
    system = system_prompt(p, 5, docs=1)
    tools = [p.tool(n) for n in ["book_appointment", "update_contact", "create_ticket", "run_report"]]
    out = []
    for i in range(rng.randint(80, 110)):
        rec = chat(i, [sys_msg(system), user(f"{p.question()}\n\n[request {uuid(rng)}]")], tools)
        out.append((rec, rec))
    return out


# ---------------------------------------------------------------- assembly


def _to_ids(engine: Engine, rec: dict[str, Any], ids: list[int]) -> dict[str, Any]:
    out = {k: v for k, v in rec.items() if k in ("id", "timestamp")}
    out["input_ids"] = ids
    return out


def materialize(engine: Engine, name: str, kind: str, expect: tuple[str, ...], shape: str,
                pairs: list[Pair], notes: str = "") -> Workload:
    records, fixed, marks, units = [], [], [], []
    for orig, fix in pairs:
        ids, m, u = engine.marked(orig)
        clean = unmark(orig)
        # Removing a marker must not change the rendering (e.g. through strip()).
        assert engine.tok.encode(engine.text(clean)) == ids, name
        assert len(m) == len(expect), (name, len(m), expect)
        marks.append(m)
        units.append(u)
        if kind == "input_ids" or (kind == "mixed" and len(records) % 2 == 1):
            records.append(_to_ids(engine, clean, ids))
            fixed.append(_to_ids(engine, fix, engine.ids(fix)))
        else:
            records.append(clean)
            fixed.append(fix)
    offsets = tuple(int(statistics.median(m[k] for m in marks)) for k in range(len(expect)))
    # A UNIT marker belongs to the defect whose MARK follows it.
    unit_offsets = list(offsets)
    for k in range(len(expect)):
        starts = []
        for m, u in zip(marks, units):
            before = [x for x in u if x <= m[k] and (k == 0 or x > m[k - 1])]
            starts.append(before[-1] if before else m[k])
        unit_offsets[k] = int(statistics.median(starts))
    return Workload(name, kind, expect, shape, records, fixed, offsets, tuple(unit_offsets), notes)


def registering(registry: list[Any]) -> Callable[..., Callable[[Any], Any]]:
    """The ``@workload(name, kind, expect, shape, notes)`` decorator of a held-out set: it
    adds the builder to ``registry`` as (name, kind, expect, shape, builder, notes)."""
    def workload(name: str, kind: str, expect: tuple[str, ...], shape: str, notes: str = "") -> Callable[[Any], Any]:
        def register(fn: Any) -> Any:
            registry.append((name, kind, expect, shape, fn, notes))
            return fn
        return register
    return workload


def assemble(registry: Sequence[tuple[str, str, tuple[str, ...], str, Any, str]],
             pairs_of: Callable[[str], list[Pair]], engine: Engine,
             only: Sequence[str] | None = None) -> list[Workload]:
    """The workloads of a held-out set's ``registry`` (name, kind, expect, shape, builder,
    notes), each from ``pairs_of(name)``, rendered and marked: the one assembly every set
    shares."""
    out = []
    for name, kind, expect, shape, _fn, notes in registry:
        if only and name not in only:
            continue
        pairs = pairs_of(name)
        warm = getattr(engine.render, "warm", None)
        if warm is not None:  # the bench's batch renderer: one `advisor render` call per workload
            warm([o for o, _ in pairs] + [unmark(o) for o, _ in pairs] + [f for _, f in pairs])
        out.append(materialize(engine, name, kind, expect, shape, pairs, notes))
    return out


def build_workloads(seed: int = 12, engine: Engine | None = None, only: Sequence[str] | None = None) -> list[Workload]:
    """Every held-out workload, deterministic for ``seed``."""
    engine = engine or Engine()

    def pairs_of(name: str) -> list[Pair]:
        fn = next(r[4] for r in REGISTRY if r[0] == name)
        # Everything a workload draws depends on its name and the seed only, so adding a
        # workload never changes the others.
        company = COMPANIES[zlib.crc32(name.encode()) % len(COMPANIES)]
        return fn(random.Random(f"{seed}/{name}"), Prose(random.Random(f"{seed}/{name}/prose"), company))

    return assemble(REGISTRY, pairs_of, engine, only)


def workload_names() -> list[str]:
    return [r[0] for r in REGISTRY]
