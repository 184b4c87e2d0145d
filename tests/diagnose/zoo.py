"""The defect zoo: deterministic workloads with one or more planted cache defects, each with
the same traffic as it would be after the ideal fix, plus clean controls.

Written without reference to how the diagnosis works: the text is assembled from a broad
vocabulary in several layouts (markdown, XML tags, numbered rules, dense prose, JSON), the
defects cross class (dynamic span, order permutation, per-request content placed before static
content) with placement, value type, span length, cardinality and record kind (``messages``,
``prompt``, ``input_ids``). The truth for a workload is the hit rate of its fixed traffic under
the brute-force oracle of ``tests/oracle.py`` (longest common prefix with any earlier request).

``workloads()`` returns every workload; each carries the expected findings as (code, needle):
the finding's token offset must land within a tolerance of the first character of ``needle``
in the first request of the traffic.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable

from advisor.ingest.chat import BOS, Llama3Layout
from advisor.ingest.tokenizers import load_tokenizer
from tests import oracle

VOCAB = (
    "account action address adjust agent allow amount analysis answer apply approval archive "
    "assist attach audit available balance basic before behaviour benefit billing branch budget "
    "cancel capacity careful carrier change channel charge check claim clarify clear client "
    "combine comment common company complete concise condition confirm connect consider contact "
    "contract correct country coverage create credit current customer damage data deadline decide "
    "default delay deliver department deposit describe detail device direct discount dispute "
    "document domestic draft due duty early eligible email employee enable ensure entry escalate "
    "estimate evidence exact example exchange existing expect expense explain export factor failure "
    "feature fee field final finance follow form format freight friendly general goods guarantee "
    "guide handle help history hold identify immediate import include incident inform initial "
    "inquiry inspect instruct insurance internal invoice issue item journey keep label language "
    "late ledger limit line local lookup maintain manager manual match member message method "
    "minimum missing mobile monitor monthly necessary network notice number offer office online "
    "open operator option order origin outcome owner package partner payment pending period permit "
    "person phone plan policy portal possible practice prefer premium prepare price priority "
    "private process product profile provide public purchase quality quantity quarter question "
    "quote reason receipt record refund region regular reject release remain remote renew repair "
    "replace reply report request require reserve resolve respond result return review right risk "
    "route rule safety sample schedule secure select send service session settle share shipment "
    "signal simple source special staff standard status step storage store submit summary supply "
    "support system task team term ticket track transfer travel trust update urgent usage valid "
    "value vendor verify version warehouse warranty weekly window within workflow written").split()
FIRST = ["Marta", "Jonas", "Priya", "Tomasz", "Aoife", "Daniel", "Ines", "Kwame", "Sofia", "Lukas"]
LAST = ["Kowalski", "Berg", "Shah", "Nowak", "Byrne", "Meyer", "Duarte", "Mensah", "Rossi", "Weber"]
PLANS = ["Starter", "Business", "Enterprise"]
TENANTS = [f"{a}-{b}" for a in ("northwind", "bluefin", "larkspur", "cobalt", "meridian", "tidewell")
           for b in ("freight", "health", "retail", "labs", "energy")]
TOOL_NAMES = ["get_invoice", "list_payments", "open_ticket", "lookup_customer", "refund_payment",
              "search_docs", "update_address", "schedule_callback", "check_shipment", "cancel_order"]


def _words(rng: random.Random, n: int) -> list[str]:
    return [rng.choice(VOCAB) for _ in range(n)]


def sentence(rng: random.Random, lo: int = 7, hi: int = 19) -> str:
    words = _words(rng, rng.randint(lo, hi))
    if len(words) > 6 and rng.random() < 0.3:
        words[rng.randint(2, len(words) - 3)] += ","
    end = "." if rng.random() < 0.9 else rng.choice(["?", ";", "!"])
    return " ".join(words).capitalize().rstrip(",") + end


def paragraph(rng: random.Random, lo: int = 3, hi: int = 7) -> str:
    return " ".join(sentence(rng) for _ in range(rng.randint(lo, hi)))


def question(rng: random.Random) -> str:
    lead = rng.choice(["Can you", "Please", "How do I", "Why did", "What is the way to", "Could you"])
    return f"{lead} " + " ".join(_words(rng, rng.randint(8, 30))) + "?"


# --- static content in several layouts ------------------------------------------------------

def sections(seed: str, count: int, style: str) -> list[str]:
    """``count`` self-contained sections of a system prompt, in one of several layouts."""
    rng = random.Random(seed)
    out = []
    for k in range(count):
        title = " ".join(_words(rng, rng.randint(1, 3))).title()
        if style == "markdown":
            body = "\n\n".join(paragraph(rng) for _ in range(rng.randint(1, 3)))
            bullets = "\n".join(f"- {sentence(rng, 5, 12)}" for _ in range(rng.randint(2, 5)))
            out.append(f"## {title}\n\n{body}\n\n{bullets}")
        elif style == "xml":
            tag = title.lower().replace(" ", "_")
            out.append(f"<{tag}>\n{paragraph(rng)}\n{paragraph(rng)}\n</{tag}>")
        elif style == "numbered":
            out.append("\n".join(f"{k * 10 + j + 1}. {sentence(rng)}" for j in range(rng.randint(3, 7))))
        elif style == "dense":
            out.append(paragraph(rng, 4, 9))
        else:  # "caps": an upper-case label line, then text on the next lines
            out.append(f"{title.upper()}:\n{paragraph(rng)}\n{sentence(rng)}")
    return out


def join(style: str, parts: list[str]) -> str:
    # Dense prose runs on with single newlines; the other layouts separate with blank lines.
    return ("\n" if style in ("dense", "numbered") else "\n\n").join(parts)


def persona(seed: str) -> str:
    rng = random.Random(seed + "persona")
    name = rng.choice(["Juniper", "Atlas", "Orbit", "Fable", "Quill", "Harbor"])
    company = rng.choice(["Tallyfold", "Brightwater", "Kestrel Freight", "Umberline", "Pebblecrest"])
    return f"You are {name}, the assistant of {company}. {paragraph(rng, 2, 4)}"


def tools(seed: str, count: int) -> list[dict]:
    rng = random.Random(seed + "tools")
    out = []
    for name in TOOL_NAMES[:count]:
        props = {}
        for p in rng.sample(["id", "limit", "since", "reason", "amount", "email", "region", "note"], rng.randint(1, 4)):
            props[p] = {"type": rng.choice(["string", "integer"]), "description": sentence(rng, 4, 10)}
        out.append({"type": "function", "function": {
            "name": name, "description": sentence(rng, 8, 22),
            "parameters": {"type": "object", "properties": props, "required": sorted(props)[:1]}}})
    return out


def passages(seed: str, count: int) -> list[str]:
    rng = random.Random(seed + "kb")
    return [f"[doc {rng.randint(1000, 9999)}] " + " ".join(_words(rng, 2)).title() + "\n"
            + "\n".join(paragraph(rng) for _ in range(rng.randint(1, 3))) for _ in range(count)]


def few_shots(seed: str, count: int) -> list[str]:
    rng = random.Random(seed + "shots")
    return [f"Q: {question(rng)}\nA: {sentence(rng, 10, 24)}" for _ in range(count)]


# --- per-request values -----------------------------------------------------------------------

BASE = dt.datetime(2026, 11, 2, 8, 0, 0, tzinfo=dt.timezone.utc)


def value(kind: str, rng: random.Random, i: int, n: int) -> str:
    """The value of a varying field for request ``i`` of ``n``."""
    moment = BASE + dt.timedelta(seconds=37 * i + rng.randint(0, 30))
    if kind == "epoch-iso":
        return f"{int(moment.timestamp())} ({moment:%Y-%m-%dT%H:%M:%SZ})"
    if kind == "datetime":
        return f"{moment:%A, %d %B %Y %H:%M:%S} UTC"
    if kind == "daily-date":
        day = BASE + dt.timedelta(days=i * 4 // n)
        return f"{day:%A, %B %d, %Y}"
    if kind == "name":
        return rng.choice(FIRST)
    if kind == "full-name":
        return f"{rng.choice(FIRST)} {rng.choice(LAST)}"
    if kind == "plan":
        return rng.choice(PLANS)
    if kind == "tenant":
        return rng.choice(TENANTS)
    if kind == "uuid":
        return str(uuid.UUID(int=rng.getrandbits(128), version=4))
    if kind == "ticket":
        return f"TCK-{rng.randint(100000, 999999)}"
    if kind == "greeting":
        return (f"Hi {rng.choice(FIRST)}, thanks for being on the {rng.choice(PLANS)} plan "
                f"since {rng.randint(2015, 2025)}.")
    if kind == "profile":
        return (f"Customer: {rng.choice(FIRST)} {rng.choice(LAST)} | plan {rng.choice(PLANS)} | "
                f"region {rng.choice(['EU', 'US', 'APAC'])} | seats {rng.randint(1, 400)}")
    if kind == "memory":  # long per-user notes
        return "Notes about this user:\n" + "\n".join(f"- {sentence(rng, 6, 16)}" for _ in range(rng.randint(5, 9)))
    raise ValueError(kind)


# --- a request as roles and texts, then as a record ------------------------------------------

@dataclass
class Conv:
    messages: list[dict[str, Any]]
    tools: list[dict] | None = None


def to_record(conv: Conv, kind: str) -> dict:
    if kind == "messages":
        rec: dict[str, Any] = {"messages": conv.messages}
        if conv.tools:
            rec["tools"] = conv.tools
        return rec
    text = prompt_text(conv)
    if kind == "prompt":
        return {"prompt": text}
    return {"input_ids": _tok().encode(BOS + text)}


def prompt_text(conv: Conv) -> str:
    """A raw completion prompt: the messages' texts with plain role labels."""
    parts = []
    for m in conv.messages:
        parts.append(f"### {m['role'].capitalize()}\n{m['content']}")
    if conv.tools:
        parts.insert(1, "### Tools\n" + json.dumps(conv.tools, indent=2))
    return "\n\n".join(parts) + "\n\n### Assistant\n"


_TOKENIZER = None


def _tok():
    global _TOKENIZER
    if _TOKENIZER is None:
        _TOKENIZER = load_tokenizer("llama3")
    return _TOKENIZER


def rendered(record: dict) -> str:
    """The text the engine tokenizes for a record (Llama 3 layout, BOS for prompts)."""
    if "messages" in record:
        return Llama3Layout().render(record["messages"], record.get("tools"))
    if "prompt" in record:
        return BOS + record["prompt"]
    return _tok().decode(record["input_ids"])


def record_ids(record: dict) -> list[int]:
    if "input_ids" in record:
        return list(record["input_ids"])
    return _tok().encode(rendered(record))


def token_offset(record: dict, needle: str) -> int:
    """The token holding the first character of ``needle`` in the rendered record, counted
    by decoding token by token."""
    text = rendered(record)
    char = text.index(needle)
    tok = _tok()
    pos = 0
    for k, t in enumerate(record_ids(record)):
        pos += len(tok.decode([t]))
        if pos > char:
            return k
    raise AssertionError("needle beyond the text")


def truth(w: "Workload") -> float:
    """The hit rate of the workload's fixed traffic under the brute-force oracle: the best of
    its fixes where it has several (the same fix with a pool's units in one order)."""
    best = 0.0
    for fixed in (w.fixed, *w.alternatives):
        ids = [record_ids(r) for r in fixed]
        best = max(best, sum(oracle.cached_tokens(ids)) / sum(map(len, ids)))
    return best


# --- workloads -------------------------------------------------------------------------------

@dataclass
class Workload:
    name: str
    kind: str
    records: list[dict]
    fixed: list[dict]
    expect: list[tuple[str, str]]          # (code, needle in the first request)
    axes: dict[str, str] = field(default_factory=dict)
    alternatives: list[list[dict]] = field(default_factory=list)  # other fixes; the truth is the best

    @property
    def control(self) -> bool:
        return not self.expect


# ``build(rng, i, n, fix)``: ``fix`` 0 is the request as sent, 1 the fix, 2 and on the
# alternative fixes (an int, so that ``if fix`` reads as before).
Build = Callable[[random.Random, int, int, int], tuple[Conv, list[str]]]


def _make(name: str, kind: str, n: int, build: Build, axes: dict[str, str], codes: list[str],
          seed: int, fixes: int = 1) -> Workload:
    """Requests from ``build(rng, i, n, fix)``: the conversation and, for request 0, the
    needles of the expected findings, in the order of ``codes``; ``fixes`` fixes of it."""
    rng_bad = random.Random(seed)
    rngs = [random.Random(seed) for _ in range(fixes)]
    records: list[dict] = []
    fixed: list[list[dict]] = [[] for _ in range(fixes)]
    needles: list[str] = []
    for i in range(n):
        conv, found = build(rng_bad, i, n, 0)
        records.append(to_record(conv, kind))
        for f, rng in enumerate(rngs):
            good, _ = build(rng, i, n, f + 1)
            fixed[f].append(to_record(good, kind))
        if i == 0:
            needles = found
    return Workload(name, kind, records, fixed[0], list(zip(codes, needles)), axes, fixed[1:])


def _system(seed: str, style: str, count: int) -> tuple[str, list[str]]:
    return persona(seed), sections(seed, count, style)


def span_workload(name: str, kind: str, style: str, size: int, values: list[str], where: list[str],
                  n: int = 40, label: str = "", seed: int = 0) -> Workload:
    """Dynamic spans: each value kind in ``values`` placed at ``where`` in the system prompt.
    Placements: top (before everything), after:K (after section K), sentence:K (a sentence
    prepended to section K's text), inline:K (inside section K's first line), tools (in a tool
    description). Fixed: the values at the end of the user turn."""
    head, secs = _system(name, style, size)
    tool_list = tools(name, 6) if "tools" in where else None

    def build(rng: random.Random, i: int, n_: int, fix: int) -> tuple[Conv, list[str]]:
        vals = [value(v, rng, i, n_) for v in values]
        lines = [f"{label or _label(v)}: {x}" if v not in ("greeting", "memory") else x for v, x in zip(values, vals)]
        parts = [head] + list(secs)
        needles = []
        tl = json.loads(json.dumps(tool_list)) if tool_list else None
        moved = []
        for line, v, x, w in sorted(zip(lines, values, vals, where), key=lambda t: _rank(t[3]), reverse=True):
            moved.append(line)
            if fix:
                continue
            needles.append(x)
            if w == "top":
                parts.insert(0, line)
            elif w.startswith("after:"):
                parts.insert(int(w[6:]) + 1, line)
            elif w.startswith("sentence:"):
                k = int(w[9:]) + 1
                parts[k] = _prepend(parts[k], line)
            elif w.startswith("inline:"):
                k = int(w[7:]) + 1
                first, _, rest = parts[k].partition("\n")
                parts[k] = f"{first} ({line})\n{rest}" if rest else f"{first} ({line})"
            elif w == "tools" and tl:
                tl[2]["function"]["description"] += f" {line}."
        q = question(rng)
        user = q + ("\n\n" + "\n".join(reversed(moved)) if fix else "")
        if fix and tl and "tools" in where:
            pass  # the fixed tool description carries no value
        conv = Conv([{"role": "system", "content": join(style, parts)}, {"role": "user", "content": user}], tl)
        return conv, list(reversed(needles))

    codes = ["TR102" if v == "memory" and w == "top" else "TR101" for v, w in zip(values, where)]
    order = sorted(range(len(values)), key=lambda k: _rank(where[k]))
    codes = [codes[k] for k in order]
    return _make(name, kind, n, build, {"class": "dynamic", "style": style, "values": ",".join(values),
                                        "where": ",".join(where)}, codes, seed)


def _rank(where: str) -> int:
    if where == "top":
        return -1
    if where == "tools":
        return 1000
    return int(where.split(":")[1])


def _label(kind: str) -> str:
    return {"epoch-iso": "Request time", "datetime": "Current date and time", "daily-date": "Today's date",
            "name": "Customer first name", "full-name": "Signed-in user", "plan": "Subscription plan",
            "tenant": "Tenant", "uuid": "Session id", "ticket": "Ticket", "profile": "Profile"}.get(kind, kind)


def _prepend(section: str, text: str) -> str:
    # After a heading line, or before the first words of a paragraph.
    if section.startswith(("## ", "<")) or section.split("\n", 1)[0].endswith(":"):
        first, _, rest = section.partition("\n")
        rest = rest.lstrip("\n")
        gap = "\n\n" if section[len(first):].startswith("\n\n") else "\n"
        return f"{first}{gap}{text} {rest}"
    return f"{text} {section}"


def order_workload(name: str, kind: str, unit: str, n: int = 40, partial: bool = False, extra: str = "",
                   seed: int = 1) -> Workload:
    """The same units in a different order per request. Units: tools (the request's tools
    field), tools-pretty / tools-compact (a JSON array in the system text), few-shot (Q/A lines),
    paragraphs, sections, bullets, system-messages, shot-messages (example turns as messages),
    xml-docs. ``extra``: a second defect in the same traffic (``epoch-top``: a clock on line one)."""
    style = {"paragraphs": "dense", "sections": "markdown", "bullets": "numbered", "xml-docs": "xml"}.get(unit, "caps")
    head, secs = _system(name, style, 4)
    tool_list = tools(name, 8)
    shots = few_shots(name, 6)
    units = {"tools": tool_list, "tools-pretty": tool_list, "tools-compact": tool_list, "few-shot": shots,
             "paragraphs": sections(name + "p", 6, "dense"), "sections": sections(name + "s", 5, "markdown"),
             "bullets": [f"- {sentence(random.Random(name + str(k)), 8, 20)}" for k in range(8)],
             "system-messages": sections(name + "m", 4, "caps"), "shot-messages": shots,
             "xml-docs": [f"<doc id=\"{k}\">\n{p}\n</doc>" for k, p in enumerate(passages(name, 5))]}[unit]

    def build(rng: random.Random, i: int, n_: int, fix: int) -> tuple[Conv, list[str]]:
        items = list(units)
        if partial:
            if rng.random() < 0.5:
                items[1], items[3] = items[3], items[1]
        else:
            rng.shuffle(items)
        if fix:
            items = list(units)
        needles: list[str] = []
        pre = []
        clock = value("epoch-iso", rng, i, n_)
        if extra == "epoch-top" and not fix:
            pre = [f"Request time: {clock}"]
            needles.append(clock)
        msgs: list[dict[str, Any]]
        tl = None
        q = question(rng)
        user = q + (f"\n\nRequest time: {clock}" if extra == "epoch-top" and fix else "")
        if unit == "tools":
            tl = items
            msgs = [{"role": "system", "content": join(style, pre + [head] + secs)}, {"role": "user", "content": user}]
            # The first tool's description: the layout may put it before the name.
            needles.append(items[0]["function"]["description"][:30])
        elif unit in ("tools-pretty", "tools-compact"):
            dumped = json.dumps(items, indent=2) if unit == "tools-pretty" else json.dumps(items, separators=(",", ":"))
            text = join(style, pre + [head] + secs[:2] + [f"Available functions (JSON):\n{dumped}"] + secs[2:])
            msgs = [{"role": "system", "content": text}, {"role": "user", "content": user}]
            needles.append(items[0]["function"]["name"])
        elif unit == "system-messages":
            msgs = [{"role": "system", "content": join(style, pre + [head])}]
            msgs += [{"role": "system", "content": s} for s in items]
            msgs.append({"role": "user", "content": user})
            needles.append(items[0][:30])
        elif unit == "shot-messages":
            msgs = [{"role": "system", "content": join(style, pre + [head] + secs)}]
            for s in items:
                qq, aa = s.split("\nA: ")
                msgs += [{"role": "user", "content": qq[3:]}, {"role": "assistant", "content": aa}]
            msgs.append({"role": "user", "content": user})
            needles.append(items[0].split("\nA: ")[0][3:][:30])
        else:
            sep = "\n" if unit in ("few-shot", "bullets", "paragraphs") else "\n\n"
            block = sep.join(items)
            text = join(style, pre + [head] + secs[:2] + [block] + secs[2:])
            msgs = [{"role": "system", "content": text}, {"role": "user", "content": user}]
            needles.append(items[0][:30] if not partial else items[1][:30])
        return Conv(msgs, tl), needles

    codes = (["TR101"] if extra == "epoch-top" else []) + ["TR201"]
    return _make(name, kind, n, build, {"class": "order", "unit": unit, "partial": str(partial), "extra": extra},
                 codes, seed)


def misplaced_workload(name: str, kind: str, what: str, n: int = 40, docs: int = 3, extra: str = "",
                       seed: int = 2) -> Workload:
    """Per-request content ahead of the static system prompt: retrieved passages in the same
    message (docs-inline), as an earlier message (docs-message), a conversation summary first
    (summary-first). Fixed: the static prompt first, the per-request content after it."""
    head, secs = _system(name, "markdown", 5)
    kb = passages(name, 30)
    static = join("markdown", [head] + secs)

    def build(rng: random.Random, i: int, n_: int, fix: int) -> tuple[Conv, list[str]]:
        picked = rng.sample(kb, docs)
        if fix == 2:  # the second fix: the passages in one order (the pool's), where it carries no meaning
            picked.sort(key=kb.index)
        if what == "summary-first":
            content = "Conversation so far (summary):\n" + "\n".join(f"- {sentence(rng, 8, 20)}" for _ in range(8))
        else:
            content = "Retrieved passages:\n\n" + "\n\n".join(picked)
        needle = content[:24]
        clock = value("datetime", rng, i, n_)
        q = question(rng)
        sys_static = (f"Current date and time: {clock}\n\n" if extra == "clock" and not fix else "") + static
        user = q + (f"\n\nCurrent date and time: {clock}" if extra == "clock" and fix else "")
        if fix:
            msgs = [{"role": "system", "content": static}, {"role": "system", "content": content},
                    {"role": "user", "content": user}] if what != "docs-inline" else [
                {"role": "system", "content": static + "\n\n" + content}, {"role": "user", "content": user}]
        elif what == "docs-inline":
            msgs = [{"role": "system", "content": content + "\n\n" + sys_static}, {"role": "user", "content": user}]
        else:
            msgs = [{"role": "system", "content": content}, {"role": "system", "content": sys_static},
                    {"role": "user", "content": user}]
        needles = [needle] + ([clock] if extra == "clock" and not fix else [])
        return Conv(msgs), needles

    codes = ["TR102"] + (["TR101"] if extra == "clock" else [])
    return _make(name, kind, n, build, {"class": "misplaced", "what": what, "docs": str(docs), "extra": extra},
                 codes, seed, fixes=1 if what == "summary-first" else 2)


# --- clean controls ---------------------------------------------------------------------------

def history_workload(name: str, kind: str, where: str, conversations: int = 10, turns: int = 5,
                     seed: int = 11) -> Workload:
    """A value the client re-renders into each conversation's history at every request, so
    a turn never shares its own history with the turn before. ``where``: replies (each
    earlier reply opens with its age, '(answered 3 min ago)'), first-turn (a live reading
    opens the first user turn), tool-results (an agent loop's earlier results carry their
    age in seconds). Conversations interleave as their turns arrive. Fixed: the history
    as first sent (no ages; the reading at the end of the newest user turn)."""
    style = {"replies": "markdown", "first-turn": "caps", "tool-results": "xml"}[where]
    head, secs = _system(name, style, 6)
    system = join(style, [head] + secs)
    rng = random.Random(seed)
    tl = tools(name, 5) if where == "tool-results" else None
    starts = [rng.uniform(0, 1800) for _ in range(conversations)]
    lengths = [rng.randint(2, turns) for _ in range(conversations)]
    qs = [[question(rng) for _ in range(turns)] for _ in range(conversations)]
    replies = [[paragraph(rng, 1, 3) for _ in range(turns)] for _ in range(conversations)]
    results = [[{"status": "ok", "rows": [sentence(rng) for _ in range(2)]} for _ in range(turns)]
               for _ in range(conversations)]
    calls = [[rng.choice(TOOL_NAMES[:5]) for _ in range(turns)] for _ in range(conversations)]
    arrivals = sorted((starts[c] + 90.0 * k + rng.uniform(0, 40), c, k)
                      for c in range(conversations) for k in range(lengths[c]))
    records, fixed = [], []
    for now, c, k in arrivals:
        bad: list[dict[str, Any]] = [{"role": "system", "content": system}]
        good: list[dict[str, Any]] = [{"role": "system", "content": system}]
        if where == "tool-results":
            bad.append({"role": "user", "content": qs[c][0]})
            good.append({"role": "user", "content": qs[c][0]})
            for j in range(k):
                call = {"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": {
                    "name": calls[c][j], "arguments": json.dumps({"step": j + 1})}}]}
                age = int(now - (starts[c] + 90.0 * j + 20))
                bad += [call, {"role": "tool", "content": json.dumps({"age_s": age} | results[c][j])}]
                good += [call, {"role": "tool", "content": json.dumps(results[c][j])}]
        else:
            moment = BASE + dt.timedelta(seconds=now)
            reading = f"Sensor reading: {rng.uniform(18, 26):.1f} °C at {moment:%H:%M:%S}"
            for j in range(k + 1):
                q = qs[c][j]
                if where == "first-turn" and j == 0:
                    bad.append({"role": "user", "content": f"{reading}\n\n{q}"})
                else:
                    bad.append({"role": "user", "content": q})
                good.append({"role": "user", "content": q if j < k or where != "first-turn" else f"{q}\n\n{reading}"})
                if j == k:
                    break
                age = max(1, int((now - (starts[c] + 90.0 * j + 30)) // 60))
                aged = f"(answered {age} min ago) {replies[c][j]}" if where == "replies" else replies[c][j]
                bad.append({"role": "assistant", "content": aged})
                good.append({"role": "assistant", "content": replies[c][j]})
        records.append(to_record(Conv(bad, tl), kind))
        fixed.append(to_record(Conv(good, tl), kind))
    needle = {"replies": "(answered ", "first-turn": "Sensor reading: ", "tool-results": "age_s"}[where]
    return Workload(name, kind, records, fixed, [("TR101", needle)],
                    {"class": "dynamic", "placement": "history", "shape": where})


def control_stamped_turns(name: str, kind: str, conversations: int = 8, turns: int = 5, seed: int = 12) -> Workload:
    """Each user turn ends with the time it was sent, and the history keeps it as sent."""
    head, secs = _system(name, "dense", 5)
    rng = random.Random(seed)
    system = join("dense", [head] + secs)
    convs = [[{"role": "system", "content": system}] for _ in range(conversations)]
    records = []
    for t in range(turns):
        for c, h in enumerate(convs):
            moment = BASE + dt.timedelta(seconds=60 * (t * conversations + c) + rng.randint(0, 50))
            h.append({"role": "user", "content": f"{question(rng)}\n\n(sent {moment:%H:%M:%S})"})
            records.append(to_record(Conv([dict(m) for m in h]), kind))
            h.append({"role": "assistant", "content": paragraph(rng, 1, 3)})
    return Workload(name, kind, records, records, [], {"class": "control", "shape": "stamped-turns"})


def expected(w: Workload) -> list[tuple[str, int]]:
    """(code, token offset) of each expected finding: where the defect starts in the first
    request; for a value in the history, where it first sits in the typical request
    holding it (conversations hold it at their own offsets)."""
    if w.axes.get("placement") != "history":
        return [(code, token_offset(w.records[0], needle)) for code, needle in w.expect]
    out = []
    for code, needle in w.expect:
        at = sorted(token_offset(r, needle) for r in w.records if needle in rendered(r))
        out.append((code, at[(len(at) - 1) // 2]))
    return out


def control_multiturn(name: str, kind: str, conversations: int = 8, turns: int = 5, seed: int = 3,
                      profile_at_end: bool = False) -> Workload:
    head, secs = _system(name, "markdown", 5)
    rng = random.Random(seed)
    base = join("markdown", [head] + secs)
    convs = []
    for c in range(conversations):
        system = base + (f"\n\nCustomer profile: {value('profile', rng, c, conversations)}" if profile_at_end else "")
        convs.append([{"role": "system", "content": system}])
    records = []
    for _ in range(turns):
        for h in convs:
            h.append({"role": "user", "content": question(rng)})
            records.append(to_record(Conv([dict(m) for m in h]), kind))
            h.append({"role": "assistant", "content": paragraph(rng, 1, 3)})
    return Workload(name, kind, records, records, [], {"class": "control", "shape": "multiturn"})


def control_agent(name: str, kind: str, runs: int = 6, steps: int = 6, seed: int = 4) -> Workload:
    head, secs = _system(name, "xml", 3)
    tl = tools(name, 6)
    rng = random.Random(seed)
    system = join("xml", [head] + secs)
    histories = [[{"role": "system", "content": system}, {"role": "user", "content": question(rng)}] for _ in range(runs)]
    records = []
    for _ in range(steps):
        for h in histories:
            records.append(to_record(Conv([dict(m) for m in h], tl), kind))
            call = rng.choice(TOOL_NAMES[:6])
            h.append({"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": {
                "name": call, "arguments": json.dumps({"id": f"{rng.randint(1, 10**6)}"})}}]})
            h.append({"role": "tool", "content": json.dumps({"status": "ok", "rows": [sentence(rng) for _ in range(3)]})})
    return Workload(name, kind, records, records, [], {"class": "control", "shape": "agent"})


def control_rag(name: str, kind: str, n: int = 40, seed: int = 5) -> Workload:
    head, secs = _system(name, "caps", 4)
    kb = passages(name, 25)
    rng = random.Random(seed)
    system = join("caps", [head] + secs)
    records = []
    for _ in range(n):
        docs = "\n\n".join(rng.sample(kb, rng.randint(2, 4)))
        records.append(to_record(Conv([{"role": "system", "content": system},
                                       {"role": "user", "content": f"Context:\n{docs}\n\nQuestion: {question(rng)}"}]), kind))
    return Workload(name, kind, records, records, [], {"class": "control", "shape": "rag"})


def control_clock_last(name: str, kind: str, n: int = 40, seed: int = 6) -> Workload:
    head, secs = _system(name, "numbered", 5)
    rng = random.Random(seed)
    system = join("numbered", [head] + secs)
    records = [to_record(Conv([{"role": "system", "content": system}, {"role": "user", "content":
                               f"{question(rng)}\n\nCurrent time: {value('epoch-iso', rng, i, n)}"}]), kind)
               for i in range(n)]
    return Workload(name, kind, records, records, [], {"class": "control", "shape": "clock-last"})


def control_ab(name: str, kind: str, n: int = 40, seed: int = 7) -> Workload:
    """Two system prompts that share their first line and nothing after it."""
    rng = random.Random(seed)
    a = "You are the assistant.\n\n" + join("markdown", sections(name + "a", 5, "markdown"))
    b = "You are the assistant.\n\n" + join("dense", sections(name + "b", 6, "dense"))
    records = [to_record(Conv([{"role": "system", "content": a if rng.random() < 0.5 else b},
                               {"role": "user", "content": question(rng)}]), kind) for _ in range(n)]
    return Workload(name, kind, records, records, [], {"class": "control", "shape": "ab"})


def control_single(name: str, kind: str, n: int = 30, seed: int = 8) -> Workload:
    rng = random.Random(seed)
    records = [to_record(Conv([{"role": "user", "content": "\n\n".join(paragraph(rng) for _ in range(6))}]), kind)
               for _ in range(n)]
    return Workload(name, kind, records, records, [], {"class": "control", "shape": "single-shot"})


def control_tenants(name: str, kind: str, n: int = 40, seed: int = 9) -> Workload:
    """Five products, each with its own fully static system prompt."""
    rng = random.Random(seed)
    prompts = [persona(f"{name}{k}") + "\n\n" + join("caps", sections(f"{name}{k}", 4, "caps")) for k in range(5)]
    records = [to_record(Conv([{"role": "system", "content": rng.choice(prompts)},
                               {"role": "user", "content": question(rng)}]), kind) for _ in range(n)]
    return Workload(name, kind, records, records, [], {"class": "control", "shape": "products"})


def control_fewshot(name: str, kind: str, n: int = 40, seed: int = 10) -> Workload:
    rng = random.Random(seed)
    head, secs = _system(name, "dense", 3)
    system = join("dense", [head] + secs + few_shots(name, 6))
    records = [to_record(Conv([{"role": "system", "content": system}, {"role": "user", "content": question(rng)}]), kind)
               for _ in range(n)]
    return Workload(name, kind, records, records, [], {"class": "control", "shape": "few-shot"})


def workloads() -> list[Workload]:
    """Every zoo workload, defects first, then the controls. Deterministic."""
    W: list[Workload] = []
    S = span_workload
    # Dynamic spans: value type x placement x layout x size x record kind.
    W.append(S("epoch-iso-top", "messages", "markdown", 12, ["epoch-iso"], ["top"]))
    W.append(S("epoch-iso-top-prompt", "prompt", "caps", 10, ["epoch-iso"], ["top"]))
    W.append(S("epoch-iso-top-ids", "input_ids", "xml", 8, ["epoch-iso"], ["top"]))
    W.append(S("daily-date-top", "prompt", "dense", 8, ["daily-date"], ["top"], label="Today is"))
    W.append(S("daily-date-mid", "messages", "numbered", 10, ["daily-date"], ["after:4"]))
    W.append(S("name10-after-2", "messages", "markdown", 8, ["name"], ["after:2"]))
    W.append(S("fullname-inline", "messages", "caps", 9, ["full-name"], ["inline:3"]))
    W.append(S("plan3-inline", "prompt", "markdown", 10, ["plan"], ["inline:5"]))
    W.append(S("tenant30-top", "messages", "xml", 10, ["tenant"], ["top"]))
    W.append(S("tenant30-mid-ids", "input_ids", "caps", 9, ["tenant"], ["after:3"]))
    W.append(S("uuid-mid", "messages", "dense", 10, ["uuid"], ["after:5"]))
    W.append(S("uuid-top-prompt", "prompt", "numbered", 8, ["uuid"], ["top"]))
    W.append(S("ticket-sentence", "messages", "dense", 9, ["ticket"], ["sentence:2"]))
    W.append(S("greeting-sentence", "messages", "markdown", 9, ["greeting"], ["sentence:2"]))
    W.append(S("greeting-sentence-ids", "input_ids", "dense", 8, ["greeting"], ["sentence:1"]))
    W.append(S("profile-line-mid", "messages", "caps", 10, ["profile"], ["after:3"]))
    W.append(S("profile-line-prompt", "prompt", "xml", 9, ["profile"], ["after:2"]))
    W.append(S("datetime-in-tools", "messages", "markdown", 6, ["datetime"], ["tools"]))
    W.append(S("two-spans-clock-name", "messages", "markdown", 10, ["datetime", "full-name"], ["top", "after:4"]))
    W.append(S("two-spans-uuid-plan", "prompt", "dense", 10, ["uuid", "plan"], ["after:1", "after:6"]))
    W.append(S("three-spans", "messages", "caps", 12, ["epoch-iso", "tenant", "name"], ["top", "after:3", "after:8"]))
    W.append(S("memory-block-mid", "messages", "markdown", 10, ["memory"], ["after:3"]))
    W.append(S("memory-block-top", "messages", "caps", 10, ["memory"], ["top"]))
    # Orders: unit x layout x record kind.
    O = order_workload
    W.append(O("order-tools-field", "messages", "tools"))
    W.append(O("order-tools-pretty", "messages", "tools-pretty"))
    W.append(O("order-tools-compact", "messages", "tools-compact"))
    W.append(O("order-tools-compact-prompt", "prompt", "tools-compact"))
    W.append(O("order-few-shot", "messages", "few-shot"))
    W.append(O("order-paragraphs", "messages", "paragraphs"))
    W.append(O("order-sections", "prompt", "sections"))
    W.append(O("order-sections-ids", "input_ids", "sections"))
    W.append(O("order-bullets", "messages", "bullets"))
    W.append(O("order-system-messages", "messages", "system-messages"))
    W.append(O("order-shot-messages", "messages", "shot-messages"))
    W.append(O("order-xml-docs", "messages", "xml-docs"))
    W.append(O("order-partial-sections", "messages", "sections", partial=True))
    W.append(O("order-tools-plus-clock", "messages", "tools", extra="epoch-top"))
    W.append(O("order-compact-plus-clock-ids", "input_ids", "tools-compact", extra="epoch-top"))
    # Per-request content placed before static content.
    M = misplaced_workload
    W.append(M("docs-before-system-inline", "messages", "docs-inline"))
    W.append(M("docs-before-system-message", "messages", "docs-message"))
    W.append(M("docs-before-system-prompt", "prompt", "docs-inline", docs=2))
    W.append(M("docs-before-system-ids", "input_ids", "docs-inline", docs=4))
    W.append(M("summary-before-system", "messages", "summary-first"))
    W.append(M("docs-before-system-plus-clock", "messages", "docs-inline", extra="clock"))
    # Values re-rendered into a conversation's history at every turn.
    H = history_workload
    W.append(H("history-age-replies", "messages", "replies"))
    W.append(H("history-age-replies-ids", "input_ids", "replies", seed=13))
    W.append(H("history-reading-first-turn", "messages", "first-turn", seed=14))
    W.append(H("history-reading-first-turn-prompt", "prompt", "first-turn", seed=15))
    W.append(H("history-age-tool-results", "messages", "tool-results", seed=16))
    # Clean controls.
    W.append(control_multiturn("ctl-multiturn", "messages"))
    W.append(control_multiturn("ctl-multiturn-profile-end", "messages", profile_at_end=True))
    W.append(control_agent("ctl-agent", "messages"))
    W.append(control_rag("ctl-rag", "messages"))
    W.append(control_rag("ctl-rag-prompt", "prompt"))
    W.append(control_clock_last("ctl-clock-last", "messages"))
    W.append(control_clock_last("ctl-clock-last-ids", "input_ids"))
    W.append(control_ab("ctl-ab-prompts", "messages"))
    W.append(control_single("ctl-single-shot", "prompt"))
    W.append(control_tenants("ctl-products", "messages"))
    W.append(control_fewshot("ctl-few-shot", "messages"))
    W.append(control_stamped_turns("ctl-stamped-turns", "messages"))
    W.append(control_stamped_turns("ctl-stamped-turns-ids", "input_ids", seed=17))
    return W
