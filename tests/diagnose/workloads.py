"""Workloads the diagnosis tests generate for themselves: each with and without its defect.

Deterministic (seeded ``random.Random``); text is made of plain English-like sentences so
that tokenization behaves as on real prompts. Every function returns JSON-ready records.
"""

from __future__ import annotations

import datetime as dt
import random

WORDS = ("account invoice payment customer report service policy request team support data "
         "order system schedule review update access network storage cluster region backup "
         "deploy release monitor alert metric budget contract partner product feature limit "
         "quota billing refund export import sync token user group role permission audit").split()
FIRST = ["Marta", "Jonas", "Priya", "Tomasz", "Aoife", "Daniel", "Ines", "Kwame", "Sofia", "Lukas",
         "Chloe", "Mateo", "Hannah", "Rafael", "Yuki", "Elif", "Oscar", "Leila", "Niamh", "Bram"]
LAST = ["Kowalski", "Berg", "Shah", "Nowak", "Byrne", "Meyer", "Duarte", "Mensah", "Rossi", "Weber",
        "Martin", "Lopez", "Fischer", "Silva", "Tanaka", "Demir", "Lund", "Haddad", "Walsh", "Visser"]
COMPANIES = ["Brightwater Design", "Kestrel Joinery", "Oakline Studio", "Larkspur Yoga", "Pebble Lane Bakery",
             "Redfern Landscaping", "Tidewell Physio", "Umber Architecture", "Willowmere Events"]
PLANS = ["Starter", "Growth", "Scale"]


def sentence(rng: random.Random, n: int = 14) -> str:
    words = [rng.choice(WORDS) for _ in range(n)]
    return " ".join(words).capitalize() + "."


def paragraph(rng: random.Random, sentences: int = 5) -> str:
    return " ".join(sentence(rng, rng.randint(8, 18)) for _ in range(sentences))


def static_text(seed: str, paragraphs: int) -> str:
    rng = random.Random(seed)
    return "\n\n".join(paragraph(rng) for _ in range(paragraphs))


def question(rng: random.Random) -> str:
    return f"Question {rng.randint(1, 10**6)}: " + sentence(rng, rng.randint(10, 25))[:-1] + "?"


def clock(i: int) -> str:
    moment = dt.datetime(2026, 11, 2, 14, 0, 0) + dt.timedelta(seconds=7 * i + i % 5)
    return f"{moment:%Y-%m-%d %H:%M:%S} UTC"


def timestamp_chat(n: int, defect: bool, seed: int = 1) -> list[dict]:
    """Single-turn chat: a long static system prompt with the clock on its first line (defect)
    or at the end of the user turn (fixed)."""
    rng = random.Random(seed)
    body = "You are Juniper, the assistant.\n\n" + static_text("ts-system", 14)
    out = []
    for i in range(n):
        q = question(rng)
        if defect:
            system, user = f"Current date and time: {clock(i)}\n\n{body}", q
        else:
            system, user = body, f"{q}\n\nCurrent date and time: {clock(i)}"
        out.append({"messages": [{"role": "system", "content": system}, {"role": "user", "content": user}]})
    return out


SECTION_TITLES = ["Tone and style", "Product facts", "Refund policy", "Escalation", "Things to avoid"]
TOOLS = ["get_invoice", "list_payments", "open_ticket", "lookup_customer", "refund_payment", "search_docs"]


def _sections() -> list[str]:
    return [f"## {t}\n\n" + static_text(f"section-{t}", 3) for t in SECTION_TITLES]


def _tools() -> list[dict]:
    rng = random.Random("tools")
    return [{"type": "function", "function": {
        "name": name, "description": sentence(rng, 20),
        "parameters": {"type": "object", "properties": {
            "id": {"type": "string", "description": sentence(rng, 10)},
            "limit": {"type": "integer", "description": sentence(rng, 8)}},
            "required": ["id"]}}} for name in TOOLS]


def scrambled(n: int, canonical: bool, seed: int = 2) -> list[dict]:
    """Sections of the system prompt and the tool list in a random order per request
    (scrambled), or always in one order (canonical)."""
    rng = random.Random(seed)
    intro = "You are Atlas, the documentation assistant.\n\n" + static_text("intro", 2)
    sections = _sections()
    tools = _tools()
    out = []
    for _ in range(n):
        s = list(sections)
        t = list(tools)
        if not canonical:
            rng.shuffle(s)
            rng.shuffle(t)
        out.append({"tools": t, "messages": [
            {"role": "system", "content": intro + "\n\n" + "\n\n".join(s)},
            {"role": "user", "content": question(rng)}]})
    return out


def profile_prompt() -> tuple[str, str]:
    """The static system prompt around a customer profile: (head, tail)."""
    head = "You are Juniper, the assistant of Tallyfold.\n\n" + static_text("profile-head", 5)
    return head, static_text("profile-tail", 9)


def customer_profile(rng: random.Random) -> str:
    return (f"Customer profile:\nName: {rng.choice(FIRST)} {rng.choice(LAST)}\n"
            f"Company: {rng.choice(COMPANIES)}\nPlan: {rng.choice(PLANS)}")


def profile_chat(n: int, defect: bool = True, seed: int = 3) -> list[dict]:
    """The user's profile in the middle of a long system prompt."""
    rng = random.Random(seed)
    head, tail = profile_prompt()
    out = []
    for _ in range(n):
        profile = customer_profile(rng)
        q = question(rng)
        if defect:
            system, user = f"{head}\n\n{profile}\n\n{tail}", q
        else:
            system, user = f"{head}\n\n{tail}", f"{q}\n\n{profile}"
        out.append({"messages": [{"role": "system", "content": system}, {"role": "user", "content": user}]})
    return out


def clean_rag(n: int, seed: int = 4) -> list[dict]:
    rng = random.Random(seed)
    system = "You are Atlas.\n\n" + static_text("rag-system", 12)
    return [{"messages": [{"role": "system", "content": system},
                          {"role": "user", "content": question(rng)}]} for _ in range(n)]


def clean_multiturn(conversations: int, turns: int, seed: int = 5) -> list[dict]:
    """Conversations whose history grows turn by turn, interleaved."""
    rng = random.Random(seed)
    system = "You are Juniper.\n\n" + static_text("chat-system", 10)
    histories: list[list[dict]] = [[{"role": "system", "content": system}] for _ in range(conversations)]
    out = []
    for _ in range(turns):
        for h in histories:
            h.append({"role": "user", "content": question(rng)})
            out.append({"messages": [dict(m) for m in h]})
            h.append({"role": "assistant", "content": paragraph(rng, 3)})
    return out


def single_shot(n: int, seed: int = 6) -> list[dict]:
    rng = random.Random(seed)
    return [{"prompt": paragraph(rng, rng.randint(10, 20))} for _ in range(n)]


def profile_multiturn(conversations: int, turns: int, defect: bool = True, seed: int = 7) -> list[dict]:
    """A profile fixed per conversation, in the middle of the system prompt (defect) or at
    its end (fixed), with histories growing turn by turn."""
    rng = random.Random(seed)
    head, tail = profile_prompt()
    histories = []
    for _ in range(conversations):
        profile = customer_profile(rng)
        system = f"{head}\n\n{profile}\n\n{tail}" if defect else f"{head}\n\n{tail}\n\n{profile}"
        histories.append([{"role": "system", "content": system}])
    out = []
    for _ in range(turns):
        for h in histories:
            h.append({"role": "user", "content": question(rng)})
            out.append({"messages": [dict(m) for m in h]})
            h.append({"role": "assistant", "content": paragraph(rng, 3)})
    return out
