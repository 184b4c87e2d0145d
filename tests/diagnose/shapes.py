"""Generated workloads for the diagnosis regressions of issue 12 (tests/diagnose/test_shapes.py).

Each builder returns a ``Case``: the traffic as sent, the same traffic after the ideal fix
(what a developer would change by hand), the finding class planted with the text where it
starts in the first request, and the record kind. Builders take the dimensions a defect
varies in (value kind, length, cardinality, placement, record kind) as arguments, so the
tests cross them; the text comes from the zoo's vocabulary (``tests.diagnose.zoo``), never
from what the detector looks for. The truth is the brute-force oracle's hit rate of the
fixed traffic (``truth``), rendered the way ``advisor analyze`` renders it.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

from advisor.ingest.source import make_renderer
from advisor.ingest.tokenizers import load_tokenizer
from advisor.ingest.traffic import parse_record
from tests import oracle
from tests.diagnose import zoo


@dataclass
class Case:
    name: str
    kind: str                      # messages | prompt | input_ids
    records: list[dict[str, Any]]
    fixed: list[dict[str, Any]]
    code: str | None               # TR101 / TR102 / TR201, None for a clean control
    needle: str = ""               # where the planted defect starts in the first request
    engine: str = "sglang"


# --- rendering, offsets and the truth ------------------------------------------------------

_RENDERERS: dict[str, Any] = {}


def _render(record: dict[str, Any], engine: str) -> str:
    if engine not in _RENDERERS:
        _RENDERERS[engine] = make_renderer("llama3", None, None, [], engine=engine)
    text = _RENDERERS[engine].text_of(parse_record(record, "shapes", 1))
    assert text is not None
    return text


def ids_of(record: dict[str, Any], engine: str = "sglang") -> list[int]:
    if "input_ids" in record:
        return list(record["input_ids"])
    return load_tokenizer("llama3").encode(_render(record, engine))


def truth(case: Case) -> float:
    ids = [ids_of(r, case.engine) for r in case.fixed]
    return sum(oracle.cached_tokens(ids)) / sum(map(len, ids))


def offset(case: Case) -> int:
    """The token holding the first character of ``case.needle`` in the first request."""
    record = case.records[0]
    tok = load_tokenizer("llama3")
    ids = ids_of(record, case.engine)
    text = tok.decode(ids)
    char = text.index(case.needle)
    pos = 0
    for k, t in enumerate(ids):
        pos += len(tok.decode([t]))
        if pos > char:
            return k
    raise AssertionError("needle beyond the text")


def as_kind(messages: list[dict[str, Any]], kind: str, tools: list[Any] | None = None,
            engine: str = "sglang") -> dict[str, Any]:
    """One request as a record of ``kind``: messages, a raw prompt (plain role labels), or
    the token ids the messages render to."""
    if kind == "messages":
        rec: dict[str, Any] = {"messages": messages}
        if tools:
            rec["tools"] = tools
        return rec
    if kind == "prompt":
        return {"prompt": "\n\n".join(f"### {m['role'].capitalize()}\n{_flat(m['content'])}" for m in messages)
                + "\n\n### Assistant\n"}
    return {"input_ids": ids_of(as_kind(messages, "messages", tools), engine)}


def _flat(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(p["text"] for p in content)


def static_text(rng: random.Random, paragraphs: int) -> str:
    return "\n\n".join(zoo.paragraph(rng, 4, 8) for _ in range(paragraphs))


# --- values ---------------------------------------------------------------------------------

def value(kind: str, rng: random.Random, i: int, cardinality: int) -> str:
    """The ``i``-th request's value of ``kind``, from ``cardinality`` settings (0: every
    request its own)."""
    pick = i if cardinality == 0 else rng.randrange(cardinality)
    if kind == "counter":           # consecutive numbers share their first digits
        return str(48_936 + i)
    if kind == "padded-id":
        return f"case-{i + 1190:07d}"
    if kind == "version":
        return f"v2.{14 + pick // 10}.{pick % 10}{i % 7}"
    if kind == "name-email":
        first = zoo.FIRST[pick % len(zoo.FIRST)]
        return f"{first} {zoo.LAST[(pick * 7) % len(zoo.LAST)]} <{first.lower()}+{i}@example.org>"
    if kind == "uuid":
        return str(random.Random(f"u{i}").getrandbits(128).to_bytes(16, "big").hex())
    if kind == "datetime":
        return f"2026-12-{1 + i // 40:02d}T{(i * 7) // 60 % 24:02d}:{(i * 7) % 60:02d}:00Z"
    if kind == "plan":
        return ["Starter", "Growth", "Enterprise"][pick % 3]
    if kind == "style":
        return ["concise", "detailed", "formal"][pick % max(1, cardinality)]
    raise ValueError(kind)


# --- builders --------------------------------------------------------------------------------

def counter_case(kind: str, value_kind: str, where: str, n: int = 72, seed: int = 0) -> Case:
    """A value whose consecutive settings share their first characters (and so their first
    token), after the intro (``intro``) or deep in the static text (``deep``)."""
    rng = random.Random(f"counter/{value_kind}/{where}/{seed}")
    intro = zoo.persona(f"c{seed}")
    body = static_text(rng, 6)
    records, fixed = [], []
    needle = ""
    for i in range(n):
        v = value(value_kind, rng, i, 0)
        line = f"Reference for this exchange: {v} (quote it in escalations)."
        q = zoo.question(rng)
        if where == "intro":
            system, good = f"{intro}\n\n{line}\n\n{body}", f"{intro}\n\n{body}"
        else:
            half = body.split("\n\n")
            system = "\n\n".join([intro] + half[:4] + [line] + half[4:])
            good = "\n\n".join([intro] + half)
        if i == 0:
            needle = v
        records.append(as_kind([{"role": "system", "content": system}, {"role": "user", "content": q}], kind))
        fixed.append(as_kind([{"role": "system", "content": good}, {"role": "user", "content": f"{q}\n\n{line}"}], kind))
    return Case(f"counter-{kind}-{value_kind}-{where}", kind, records, fixed, "TR101", needle)


def parts_case(value_kind: str, engine: str, position: int, n: int = 36) -> Case:
    """A system message given as content parts, one part holding a per-request value;
    ``position``: which part (1 = second of three, 2 = third of four)."""
    rng = random.Random(f"parts/{value_kind}/{position}")
    texts = [zoo.persona(f"p{position}") + "\n\n", static_text(rng, 3) + "\n\n", static_text(rng, 3)]
    if position == 2:
        texts.insert(2, static_text(rng, 2) + "\n\n")
    records, fixed = [], []
    needle = ""
    for i in range(n):
        v = value(value_kind, rng, i, 0)
        part = f"Signed-in account: {v}\n\n"
        q = zoo.question(rng)
        parts = [{"type": "text", "text": t} for t in texts]
        good = [dict(p) for p in parts]
        parts.insert(position, {"type": "text", "text": part})
        if i == 0:
            needle = v
        records.append({"messages": [{"role": "system", "content": parts}, {"role": "user", "content": q}]})
        fixed.append({"messages": [{"role": "system", "content": good},
                                   {"role": "user", "content": f"{q}\n\n{part.strip()}"}]})
    return Case(f"parts-{value_kind}-{engine}-{position}", "messages", records, fixed, "TR101", needle, engine)


def tool_choices_case(which: int, item: str, n: int = 40) -> Case:
    """A tool parameter's ``enum``: choices that change every few requests (free slots,
    open ticket numbers), in tool ``which`` of three."""
    rng = random.Random(f"choices/{which}/{item}")
    system = zoo.persona("tools") + "\n\n" + static_text(rng, 3)
    base = zoo.tools("choices", 3)
    records, fixed = [], []
    needle = ""
    for i in range(n):
        epoch = random.Random(i // 4)
        if item == "slot":
            choices: list[Any] = sorted(f"2026-12-{epoch.randint(2, 9):02d}T{epoch.choice([9, 10, 14, 15])}:00"
                                        for _ in range(4))
        else:
            choices = sorted(epoch.sample(range(10_000, 99_999), 5))
        mine = json.loads(json.dumps(base))
        props = mine[which]["function"]["parameters"].setdefault("properties", {})
        props["choice"] = {"type": "string" if item == "slot" else "integer", "description": "One of the open choices.",
                           "enum": choices}
        good = json.loads(json.dumps(base))
        good[which]["function"]["parameters"].setdefault("properties", {})["choice"] = {
            "type": "string" if item == "slot" else "integer", "description": "One of the open choices."}
        q = zoo.question(rng)
        if i == 0:
            needle = json.dumps(choices[0])
        records.append({"messages": [{"role": "system", "content": system}, {"role": "user", "content": q}], "tools": mine})
        fixed.append({"messages": [{"role": "system", "content": system},
                                   {"role": "user", "content": f"{q}\n\nOpen choices: {json.dumps(choices)}"}],
                      "tools": good})
    return Case(f"choices-{which}-{item}", "messages", records, fixed, "TR101", needle)


def before_static_case(kind: str, what: str, n: int = 40) -> Case:
    """Per-request content ahead of static content: a short per-conversation summary or
    profile as its own message before the system prompt (``summary``, ``profile``), or the
    user's question before static instructions in the same user turn (``question``)."""
    rng = random.Random(f"before/{kind}/{what}")
    system = zoo.persona(what) + "\n\n" + static_text(rng, 6)
    rules = "Answer format:\n" + "\n".join(f"- {zoo.sentence(rng, 8, 16)}" for _ in range(10))
    records, fixed = [], []
    needle = ""
    for i in range(n):
        q = zoo.question(rng)
        if what == "question":
            msgs = [{"role": "system", "content": system}, {"role": "user", "content": f"{q}\n\n{rules}"}]
            good = [{"role": "system", "content": system}, {"role": "user", "content": f"{rules}\n\n{q}"}]
            first = q
        else:
            case_no = 5000 + i // 2
            if what == "summary":
                text = f"Earlier in this conversation (case {case_no}): {zoo.sentence(rng, 10, 24)}"
            else:
                text = (f"Customer profile\nAccount: {case_no}\nPlan: {value('plan', rng, i, 3)}\n"
                        f"Notes: {zoo.sentence(rng, 8, 18)}")
            msgs = [{"role": "system", "content": text}, {"role": "system", "content": system},
                    {"role": "user", "content": q}]
            good = [{"role": "system", "content": system}, {"role": "system", "content": text},
                    {"role": "user", "content": q}]
            first = str(case_no)
        if i == 0:
            needle = first
        records.append(as_kind(msgs, kind))
        fixed.append(as_kind(good, kind))
    return Case(f"before-{kind}-{what}", kind, records, fixed, "TR102", needle)


def user_value_case(kind: str, value_kind: str, n: int = 40) -> Case:
    """A clock reading or an id opening the user turn, before static instructions every
    request repeats there: a value (TR101), not the user's own content."""
    rng = random.Random(f"user-value/{kind}/{value_kind}")
    system = zoo.persona("uv") + "\n\n" + static_text(rng, 3)
    rules = "Answer format:\n" + "\n".join(f"- {zoo.sentence(rng, 8, 16)}" for _ in range(10))
    records, fixed = [], []
    needle = ""
    for i in range(n):
        v = value(value_kind, rng, i, 0)
        q = zoo.question(rng)
        if i == 0:
            needle = v
        records.append(as_kind([{"role": "system", "content": system},
                                {"role": "user", "content": f"Sent at: {v}\n\n{rules}\n\n{q}"}], kind))
        fixed.append(as_kind([{"role": "system", "content": system},
                              {"role": "user", "content": f"{rules}\n\n{q}\n\nSent at: {v}"}], kind))
    return Case(f"user-value-{kind}-{value_kind}", kind, records, fixed, "TR101", needle)


def short_units_case(kind: str, unit: str, n: int = 40) -> Case:
    """Short units (each under the aligner's 16-token runs) in a different order per
    request: bullet rules, markdown table rows, or items of one comma-separated line."""
    rng = random.Random(f"short/{kind}/{unit}")
    intro = zoo.persona(unit) + "\n\n" + static_text(rng, 2)
    tail = static_text(rng, 4)
    words = [w for w in zoo.VOCAB if len(w) > 4][:40]
    if unit == "bullets":
        units = [f"- {w.capitalize()} first." for w in rng.sample(words, 7)]
        sep, head = "\n", "Rules:\n"
    elif unit == "rows":
        units = [f"| {w.capitalize()} | {rng.randint(1, 99)} | {rng.choice(['EU', 'US'])} |" for w in rng.sample(words, 7)]
        sep, head = "\n", "| Plan | Seats | Region |\n| --- | --- | --- |\n"
    else:
        units = rng.sample(words, 8)
        sep, head = ", ", "Supported integrations: "
    records, fixed = [], []
    needle = ""
    for i in range(n):
        order = list(units)
        rng.shuffle(order)
        q = zoo.question(rng)
        system = f"{intro}\n\n{head}{sep.join(order)}\n\n{tail}"
        good = f"{intro}\n\n{head}{sep.join(units)}\n\n{tail}"
        if i == 0:
            needle = head + order[0]
        records.append(as_kind([{"role": "system", "content": system}, {"role": "user", "content": q}], kind))
        fixed.append(as_kind([{"role": "system", "content": good}, {"role": "user", "content": q}], kind))
    return Case(f"short-{kind}-{unit}", kind, records, fixed, "TR201", needle)


def json_keys_case(kind: str, indent: int, n: int = 40) -> Case:
    """A JSON configuration block in the system prompt whose keys come in another order
    per request (a dict built from a set): the members are units in varying order."""
    rng = random.Random(f"json-keys/{kind}/{indent}")
    intro = zoo.persona("cfg") + "\n\n" + static_text(rng, 2)
    tail = static_text(rng, 4)
    words = [w for w in zoo.VOCAB if len(w) > 5]
    config = {f"{rng.choice(words)}_{k}": rng.choice([True, rng.randint(1, 500), rng.choice(words)]) for k in range(9)}
    records, fixed = [], []
    needle = ""
    for i in range(n):
        keys = list(config)
        rng.shuffle(keys)
        mine = json.dumps({k: config[k] for k in keys}, indent=indent)
        q = zoo.question(rng)
        if i == 0:
            needle = mine.split("\n")[1].strip()
        records.append(as_kind([{"role": "system", "content": f"{intro}\n\nSettings:\n{mine}\n\n{tail}"},
                                {"role": "user", "content": q}], kind))
        fixed.append(as_kind([{"role": "system", "content": f"{intro}\n\nSettings:\n{json.dumps(config, indent=indent)}"
                                                             f"\n\n{tail}"}, {"role": "user", "content": q}], kind))
    return Case(f"json-keys-{kind}-{indent}", kind, records, fixed, "TR201", needle)


def ab_clock_case(kind: str, share: float, n: int = 80) -> Case:
    """A clock line opening the system prompt, above two A/B system prompts that share
    nothing after it; the smaller arm holds ``1 - share`` of the requests."""
    rng = random.Random(f"ab-clock/{kind}/{share}")
    arms = [zoo.persona("arm-a") + "\n\n" + static_text(rng, 6), zoo.persona("arm-b") + "\n\n" + static_text(rng, 6)]
    records, fixed = [], []
    needle = ""
    for i in range(n):
        arm = arms[0] if rng.random() < share else arms[1]
        clock = f"2026-12-01 {9 + i // 60:02d}:{i % 60:02d}"
        q = zoo.question(rng)
        if i == 0:
            needle = clock
        records.append(as_kind([{"role": "system", "content": f"Now: {clock}\n\n{arm}"}, {"role": "user", "content": q}], kind))
        fixed.append(as_kind([{"role": "system", "content": arm}, {"role": "user", "content": f"{q}\n\nNow: {clock}"}], kind))
    return Case(f"ab-clock-{kind}-{share}", kind, records, fixed, "TR101", needle)


def three_defects_case(kind: str, n: int = 60) -> Case:
    """Retrieved passages as a system message before the system prompt, a clock on its
    first line and its sections in another order per request: all three fixed together."""
    rng = random.Random(f"three/{kind}")
    intro = zoo.persona("three")
    secs = [static_text(rng, 2) for _ in range(4)]
    tail = static_text(rng, 4)
    records, fixed = [], []
    needle = ""
    for i in range(n):
        order = list(range(4))
        rng.shuffle(order)
        clock = f"2026-12-01T{10 + i // 30:02d}:{(i * 7) % 60:02d}:{(i * 13) % 60:02d}Z"
        docs = "Retrieved:\n" + "\n".join(zoo.sentence(rng, 10, 20) for _ in range(3))
        q = zoo.question(rng)
        system = f"Request time: {clock}\n\n{intro}\n\n" + "\n\n".join(secs[k] for k in order) + "\n\n" + tail
        good = f"{intro}\n\n" + "\n\n".join(secs) + "\n\n" + tail
        if i == 0:
            needle = docs
        records.append(as_kind([{"role": "system", "content": docs}, {"role": "system", "content": system},
                                {"role": "user", "content": q}], kind))
        fixed.append(as_kind([{"role": "system", "content": good}, {"role": "system", "content": docs},
                              {"role": "user", "content": f"{q}\n\nRequest time: {clock}"}], kind))
    return Case(f"three-{kind}", kind, records, fixed, "TR102", needle)


def few_settings_case(kind: str, settings: int, paragraphs: int, n: int = 40) -> Case:
    """A value with only ``settings`` settings after the intro of a long static prompt: a
    few requests show it (every later one finds an earlier one with its own setting)."""
    rng = random.Random(f"few/{kind}/{settings}/{paragraphs}")
    intro = zoo.persona("few")
    body = static_text(rng, paragraphs)
    records, fixed = [], []
    needle = ""
    for i in range(n):
        v = value("style", rng, i, settings)
        line = f"Reply style chosen by this workspace: {v}."
        q = zoo.question(rng)
        if i == 0:
            needle = v
        records.append(as_kind([{"role": "system", "content": f"{intro}\n\n{line}\n\n{body}"},
                                {"role": "user", "content": q}], kind))
        fixed.append(as_kind([{"role": "system", "content": f"{intro}\n\n{body}"},
                              {"role": "user", "content": f"{q}\n\n{line}"}], kind))
    return Case(f"few-{kind}-{settings}-{paragraphs}", kind, records, fixed, "TR101", needle)


def static_list_control(kind: str, n: int = 40) -> Case:
    """Clean: short bullet rules in one fixed order, a per-request value only at the end."""
    rng = random.Random(f"control/{kind}")
    intro = zoo.persona("ctl") + "\n\n" + static_text(rng, 3)
    rules = "\n".join(f"- {w.capitalize()} first." for w in rng.sample(zoo.VOCAB, 8))
    records = []
    for i in range(n):
        msgs = [{"role": "system", "content": f"{intro}\n\nRules:\n{rules}\n\n{static_text(random.Random(1), 2)}"},
                {"role": "user", "content": f"{zoo.question(rng)}\n\nReference {value('counter', rng, i, 0)}"}]
        records.append(as_kind(msgs, kind))
    return Case(f"control-{kind}", kind, records, records, None)




# Values made of multi-byte characters: byte-level BPE splits an emoji or a CJK character
# over several tokens, so the token windows the diagnosis decodes can cut one in half.
MULTIBYTE = {
    "emoji": ["\U0001F7E2", "\U0001F7E1", "\U0001F534", "\u2705", "\u26A0\ufe0f"],
    "cjk": ["\u6b63\u5e38", "\u7e41\u5fd9", "\u6545\u969c", "\u7dad\u8b77\u4e2d"],
    "accented": ["op\u00e9rationnel", "d\u00e9grad\u00e9", "arr\u00eat\u00e9", "r\u00e9tabli"],
}


def multibyte_row_case(kind: str, alphabet: str, n: int = 60) -> Case:
    """A status row of several services, each state a multi-byte symbol drawn per request,
    between the persona and the static rules; the fix moves the row to the last user turn."""
    rng = random.Random(f"multibyte/{kind}/{alphabet}")
    services = ["checkout", "search", "payments", "login", "catalog", "email"]
    intro = zoo.persona(f"m-{alphabet}")
    body = static_text(rng, 6)
    records, to_user, to_end = [], [], []
    needle = ""
    for i in range(n):
        # Mostly the first (healthy) state, as on a real status page: long shared runs, then
        # a symbol that shares its first bytes with the one the neighbour has.
        symbols = MULTIBYTE[alphabet]
        states = [rng.choices(symbols, [0.85] + [0.15 / (len(symbols) - 1)] * (len(symbols) - 1))[0] for _ in services]
        row = "Service status: " + " \u00b7 ".join(f"{s} {st}" for s, st in zip(services, states))
        q = zoo.question(rng)
        if i == 0:
            needle = f"{services[0]} {states[0]}"
        records.append(as_kind([{"role": "system", "content": f"{intro}\n\n{row}\n\n{body}"},
                                {"role": "user", "content": q}], kind))
        to_user.append(as_kind([{"role": "system", "content": f"{intro}\n\n{body}"},
                                {"role": "user", "content": f"{q}\n\n{row}"}], kind))
        to_end.append(as_kind([{"role": "system", "content": f"{intro}\n\n{body}\n\n{row}"},
                               {"role": "user", "content": q}], kind))
    # Rows repeat often (most services healthy), so after the static rules they can still
    # share a branch: the truth is the better of the two placements.
    name = f"multibyte-{kind}-{alphabet}"
    best = max((to_user, to_end), key=lambda fixed: truth(Case(name, kind, records, fixed, None)))
    return Case(name, kind, records, best, "TR101", needle)
