"""Third held-out diagnosis set: defects in shapes neither the zoo nor the first two held-out sets have.

Written blind to the detector (advisor/diagnose, advisor/prescribe, the zoo and its shapes were
not read): only DESIGN.md's traffic formats and the rendering the engine does were used. It
reuses the first set's machinery (tests/diagnose/heldout.py: the MARK/UNIT convention for where
requests stop sharing, rendering through the checkout under test, the brute-force oracle and
``materialize``); the text comes from its own module (heldout3_text.py).

Shapes: a JWT bearer token mid system prompt; a base64 nonce as the very first token; a git SHA
(9 deploys) in one tool's description; a sensor reading as a user content part between two
static parts; latitude/longitude; an uptime duration ('3h12m'); a relative date ('2 days ago',
9 settings); a wait time inside a canned assistant greeting; an SDK version string (4
settings); a three-word passphrase; a daily Arabic notice; a Russian clock in the system prompt
of growing chats; an agent's step budget counter; an emoji reaction tally; a sampling
temperature (4 floats); a 600+-token lockfile; a branch name from 25; a stock count inside a
Japanese tool result. Order: nested markdown bullets, numbered rules renumbered after
shuffling, JSON-lines records, HTML <li> items, few-shot tool-calling examples as messages,
user content parts, twelve tools in ``tools`` for messages traffic, .env lines, CSV columns.
Placement: a user-memory system message ahead of the system prompt, a JSON profile opening a
prompt record, a tenant preamble ahead of a long shared policy, retrieved examples ahead of
the instructions, an agent's task ahead of its static instructions, Arabic passages ahead of
an English policy, a Japanese order history ahead of the system prompt. Several spans in one
request (three values; passages ahead plus shuffled glossary; shuffled .env plus a SHA).
Controls: a long agent with stable tools, per-tenant prompts that fork after one shared line,
a location only on the latest user turn of growing chats, a varying sorted subset after the
shared part, three A/B/C system prompts, growing chats and a setting at the end as token ids,
static content parts, a stable JSON-lines catalog, static non-Latin prompts, an emoji-rich
prompt with a hash at the very end.

Truth: the oracle's hit rate on the traffic after the ideal fix written here, by the same
conventions as the second set: a value with many settings goes to the end of the last user
turn (in an agent loop, of the last message); a value or block with only a few settings goes
right after the content every request shares; order fixes use one canonical order; placement
fixes put the shared content first. An ``expect`` entry "a|b" accepts either class.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import zlib
from typing import Any, Callable, Sequence

from tests.diagnose.heldout import (
    assemble, registering,
    MARK, MONTHS, UNIT, Engine, Pair, Workload, assistant, chat, clock, hexid, prompt, sys_msg, unmark, user,
)
from tests.diagnose.heldout3_text import (
    ARABIC, EMOJI, JAPANESE, ORGS, RUSSIAN, RUSSIAN_ASKS, TOOL_NAMES, WORDS, Scribe, compact,
)

Builder = Callable[[random.Random, Scribe], list[Pair]]
REGISTRY: list[tuple[str, str, tuple[str, ...], str, Builder, str]] = []


workload = registering(REGISTRY)


# ---------------------------------------------------------------- small helpers


def tool_call(call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": "",
            "tool_calls": [{"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}]}


def tool_result(call_id: str, content: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def parts(*texts: str) -> list[dict[str, str]]:
    return [{"type": "text", "text": t} for t in texts]


def with_tenant(record: dict[str, Any], name: str) -> dict[str, Any]:
    return dict(record, tenant=name)


def conversations(rng: random.Random, lengths: Sequence[int]) -> list[tuple[int, int]]:
    """(conversation, turn) in arrival order: each conversation's turns in order, all interleaved."""
    left = [(c, t) for c, n in enumerate(lengths) for t in range(n)]
    done = [0] * len(lengths)
    out: list[tuple[int, int]] = []
    while len(out) < len(left):
        c = rng.choice([c for c in range(len(lengths)) if done[c] < lengths[c]])
        out.append((c, done[c]))
        done[c] += 1
    return out


def common_mark(values: Sequence[str]) -> list[str]:
    """Each value with MARK where the values stop agreeing (their common character prefix)."""
    first = values[0]
    n = len(first)
    for v in values[1:]:
        k = 0
        while k < min(n, len(v)) and v[k] == first[k]:
            k += 1
        n = k
    while n and first[n - 1].isspace():  # a space starts the next token: mark before it
        n -= 1
    return [v[:n] + MARK + v[n:] for v in values]


def append_to_last(messages: list[dict[str, Any]], text: str) -> list[dict[str, Any]]:
    """The messages with ``text`` appended to the last message's content (the ideal place of a
    per-request value: nothing after it, and later turns do not repeat it)."""
    out = [dict(m) for m in messages]
    out[-1]["content"] = f"{out[-1]['content']}\n\n{text}"
    return out


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def jwt(rng: random.Random, who: str) -> str:
    head = b64url(json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")).encode())
    body = b64url(json.dumps({"jti": hexid(rng, 12), "sub": who, "iat": 1795996800 + rng.randint(0, 86000),
                              "scope": "support:read"}, separators=(",", ":")).encode())
    sig = b64url(bytes(rng.randrange(256) for _ in range(32)))
    return f"{head}.{body}.{sig}"


_KEY_ORDER: dict[int, str] = {}


def first_tool_key(engine: Engine) -> str:
    """Which of a function's "name" and "description" the rendering writes first, so that a
    marker on the first tool goes where shuffled requests stop sharing."""
    if id(engine) not in _KEY_ORDER:
        probe = chat(0, [user("x")], [{"type": "function", "function": {
            "name": "zz_probe_name", "description": "zz probe text", "parameters": {"type": "object", "properties": {}}}}])
        text = engine.text(probe)
        _KEY_ORDER[id(engine)] = "name" if text.find("zz_probe_name") < text.find("zz probe text") else "description"
    return _KEY_ORDER[id(engine)]


def marked_tools(s: Scribe, names: Sequence[str]) -> list[dict[str, Any]]:
    tools = [s.tool(n) for n in names]
    key = s.first_tool_key
    tools[0]["function"][key] = MARK + tools[0]["function"][key]
    tools[0]["type"] = UNIT + tools[0]["type"]
    return tools


# ---------------------------------------------------------------- dynamic values


@workload("jwt-bearer-mid-system", "messages", ("dynamic",),
          "a per-request JWT bearer token (~120 tokens) in an 'API access' paragraph ~800 tokens into a 2k-token system prompt",
          notes="one value: the fix moves the whole token, though its payload holds a run of constant bytes")
def _jwt(rng: random.Random, s: Scribe) -> list[Pair]:
    head, tail = "\n\n".join([s.opening(), s.manual(8)]), s.manual(12)
    n = rng.randint(150, 190)
    tokens = common_mark([jwt(rng, f"agent-{rng.randint(100, 999)}") for _ in range(n)])
    out = []
    for i, tok in enumerate(tokens):
        q = s.question()
        para = f"## API access\nCall the account service with this header:\nAuthorization: Bearer {tok}"
        orig = chat(i, [sys_msg(f"{head}\n\n{para}\n\n{tail}"), user(q)])
        fixed = chat(i, [sys_msg(f"{head}\n\n## API access\nCall the account service with the header given below "
                                 f"the question.\n\n{tail}"), user(f"{q}\n\nAuthorization: Bearer {unmark(tok)}")])
        out.append((orig, fixed))
    return out


@workload("base64-nonce-first-token", "prompt", ("dynamic",),
          "a base64 request nonce as the very first text of a prompt record (right after BOS), 1.8k static tokens after it")
def _nonce(rng: random.Random, s: Scribe) -> list[Pair]:
    body = "\n\n".join([s.opening(), s.manual(20)])
    out = []
    for i in range(rng.randint(150, 180)):
        nonce = base64.b64encode(bytes(rng.randrange(256) for _ in range(18))).decode()
        q = s.question()
        orig = prompt(i, f"{MARK}{nonce}\n\n{body}\n\nCustomer: {q}\nAssistant:")
        fixed = prompt(i, f"{body}\n\nCustomer: {q}\n{nonce}\nAssistant:")
        out.append((orig, fixed))
    return out


@workload("git-sha-in-tool-description-ids", "input_ids", ("dynamic",),
          "the deployed git SHA (9 deploys over the log) at the end of the 3rd tool's description in `tools`, "
          "as token ids", notes="9 settings: the fix states the commit right after the tools, at the start of the user text")
def _sha_tool(rng: random.Random, s: Scribe) -> list[Pair]:
    system = "\n\n".join([s.opening(), s.manual(10)])
    names = ["find_booking", "change_sailing", "send_receipt", "escalate_case", "quote_fare", "log_repair"]
    shas = common_mark([" " + hashlib.sha1(f"{s.name}/deploy/{k}".encode()).hexdigest() for k in range(9)])
    out = []
    n = rng.randint(160, 200)
    for i in range(n):
        sha = shas[min(8, i * 9 // n)]
        tools = [s.tool(x) for x in names]
        plain = json.loads(json.dumps(tools))
        tools[2]["function"]["description"] += f" Served by build{sha}."
        q = s.question()
        orig = chat(i, [sys_msg(system), user(q)], tools)
        fixed = chat(i, [sys_msg(system), user(f"(Tools served by build{unmark(sha)}.)\n\n{q}")], plain)
        out.append((orig, fixed))
    return out


@workload("sensor-reading-content-part", "messages", ("dynamic",),
          "a live greenhouse reading (float temperature, humidity, CO2) as the 2nd of four user content parts, between "
          "~700 tokens of static instructions and ~600 tokens of static reference")
def _sensor(rng: random.Random, s: Scribe) -> list[Pair]:
    system = s.opening()
    instructions = "How to read the figures below and advise the grower:\n" + "\n".join(f"- {r}" for r in s.rules(24))
    reference = "Crop reference:\n" + "\n".join(s.passage(d) for d in range(5))
    out = []
    for i in range(rng.randint(150, 190)):
        reading = (f"Greenhouse{MARK} {rng.randint(1, 6)} now: {rng.uniform(14, 31):.1f} \u00b0C, "
                   f"{rng.randint(38, 92)}% RH, CO2 {rng.randint(380, 1400)} ppm.")
        q = s.question()
        orig = chat(i, [sys_msg(system), {"role": "user", "content": parts(instructions, reading, reference, q)}])
        fixed = chat(i, [sys_msg(system), {"role": "user", "content": parts(instructions, reference, q, unmark(reading))}])
        out.append((orig, fixed))
    return out


@workload("rider-lat-lon-prompt", "prompt", ("dynamic",),
          "the rider's latitude/longitude (5 decimals, unique) in the second paragraph of a 2k-token dispatch prompt")
def _latlon(rng: random.Random, s: Scribe) -> list[Pair]:
    first, rest = s.opening(), s.manual(20)
    out = []
    for i in range(rng.randint(150, 190)):
        lat, lon = rng.uniform(51.28, 51.69), rng.uniform(-0.51, 0.33)
        where = f"The rider is at {lat:.5f}, {lon:.5f}; quote distances from there.".replace("51.", "51." + MARK, 1)
        q = s.question()
        orig = prompt(i, f"{first}\n\n{where}\n\n{rest}\n\nRider: {q}\nDispatcher:")
        fixed = prompt(i, f"{first}\n\n{rest}\n\nRider: {q}\n{unmark(where)}\nDispatcher:")
        out.append((orig, fixed))
    return out


@workload("uptime-duration-ids", "input_ids", ("dynamic",),
          "an instance uptime as a duration ('3h12m', hundreds of values) ~1,300 tokens into a 2.2k-token system "
          "prompt, as token ids")
def _uptime(rng: random.Random, s: Scribe) -> list[Pair]:
    head, tail = "\n\n".join([s.opening(), s.manual(14)]), s.manual(9)
    out = []
    for i in range(rng.randint(150, 190)):
        up = f"{rng.randint(0, 71)}h{rng.randint(0, 59):02d}m"
        line = f"Instance health: uptime{MARK} {up}, last reboot requested by the owner."
        q = s.question()
        orig = chat(i, [sys_msg(f"{head}\n\n{line}\n\n{tail}"), user(q)])
        fixed = chat(i, [sys_msg(f"{head}\n\n{tail}"), user(f"{q}\n\n{unmark(line)}")])
        out.append((orig, fixed))
    return out


RELATIVE = ["just now", "5 minutes ago", "1 hour ago", "3 hours ago", "yesterday", "2 days ago", "3 days ago",
            "a week ago", "2 weeks ago"]


@workload("relative-sync-9", "messages", ("dynamic",),
          "'the meter last synced 2 days ago' (9 relative settings) ~600 tokens into a 2k-token system prompt",
          notes="9 settings: the fix puts the sentence at the end of the system prompt")
def _relative(rng: random.Random, s: Scribe) -> list[Pair]:
    head, tail = "\n\n".join([s.opening(), s.manual(6)]), s.manual(16)
    out = []
    for i in range(rng.randint(160, 200)):
        when = rng.choices(RELATIVE, [6, 5, 4, 3, 3, 2, 2, 1, 1])[0]
        line = f"The customer's smart meter last synced{MARK} {when}."
        q = s.question()
        orig = chat(i, [sys_msg(f"{head}\n\n{line}\n\n{tail}"), user(q)])
        fixed = chat(i, [sys_msg(f"{head}\n\n{tail}\n\n{unmark(line)}"), user(q)])
        out.append((orig, fixed))
    return out


WAITS = ["under 2 minutes", "about 5 minutes", "about 15 minutes", "over 30 minutes"]


@workload("wait-in-assistant-greeting", "messages", ("dynamic",),
          "a canned first assistant message (greeting, wait time from 4 settings, ~500-token menu) before the user turn",
          notes="4 settings: the fix states the wait at the end of the greeting, after its static menu")
def _greeting(rng: random.Random, s: Scribe) -> list[Pair]:
    system = "\n\n".join([s.opening(), s.manual(8)])
    menu = "Here is what I can help with:\n" + "\n".join(f"{k}. {s.fact()}" for k in range(1, 17))
    out = []
    for i in range(rng.randint(160, 200)):
        wait = rng.choice(WAITS)
        q = s.question()
        orig = chat(i, [sys_msg(system), assistant(f"Hello, I'm the {s.name} assistant. If you need a person, the wait is"
                                                    f"{MARK} {wait}.\n\n{menu}"), user(q)])
        fixed = chat(i, [sys_msg(system), assistant(f"Hello, I'm the {s.name} assistant.\n\n{menu}\n\nIf you need a person, "
                                                     f"the wait is {wait}."), user(q)])
        out.append((orig, fixed))
    return out


@workload("sdk-version-4-prompt", "prompt", ("dynamic",),
          "the client's SDK version string ('4.12.3', 4 settings) on line 3 of a 2k-token developer-support prompt",
          notes="4 settings: the fix puts the version line after the static text, before the question")
def _sdk(rng: random.Random, s: Scribe) -> list[Pair]:
    versions = ["4.12.3", "4.13.0", "5.0.0-rc.2", "3.9.17"]
    body = s.manual(21)
    out = []
    for i in range(rng.randint(150, 190)):
        v = rng.choices(versions, [5, 3, 1, 2])[0]
        q = s.question()
        line = f"Client SDK: obsidian-py{MARK} {v}"
        orig = prompt(i, f"Developer support for {s.name}.\nAnswer with code where it helps.\n{line}\n\n{body}\n\n"
                         f"Developer: {q}\nSupport:")
        fixed = prompt(i, f"Developer support for {s.name}.\nAnswer with code where it helps.\n\n{body}\n\n{unmark(line)}\n"
                          f"Developer: {q}\nSupport:")
        out.append((orig, fixed))
    return out


@workload("passphrase-words-ids", "input_ids", ("dynamic",),
          "a three-word session passphrase ('cedar-onyx-heron', unique) on the first line of the system prompt, as token ids")
def _passphrase(rng: random.Random, s: Scribe) -> list[Pair]:
    system = "\n\n".join([s.opening(), s.manual(18)])
    out = []
    for i in range(rng.randint(150, 190)):
        words = "-".join(rng.sample(WORDS, 3))
        q = s.question()
        orig = chat(i, [sys_msg(f"Session passphrase:{MARK} {words}\n\n{system}"), user(q)])
        fixed = chat(i, [sys_msg(system), user(f"{q}\n\nSession passphrase: {words}")])
        out.append((orig, fixed))
    return out


@workload("arabic-daily-notice-prompt", "prompt", ("dynamic",),
          "a daily Arabic service notice (3 days) inside a bilingual prompt ~400 tokens in, ~1.6k static tokens after it",
          notes="3 settings: the fix puts the notice after the static text, before the question")
def _arabic_notice(rng: random.Random, s: Scribe) -> list[Pair]:
    head = "\n\n".join([s.opening(), "Arabic phrases you may reuse:\n" + "\n".join(ARABIC), s.manual(2)])
    tail = s.manual(18)
    notices = [f"تنبيه اليوم: {x}" for x in ["تأخير الرحلة الصباحية بسبب الرياح.",
                                            "إغلاق مكتب الميناء الشمالي للصيانة.",
                                            "زيادة عدد الرحلات المسائية حتى نهاية الأسبوع."]]
    marked = common_mark(notices)
    out = []
    n = rng.randint(150, 180)
    for i in range(n):
        d = i * 3 // n
        q = s.question()
        orig = prompt(i, f"{head}\n\n{marked[d]}\n\n{tail}\n\nPassenger: {q}\nAgent:")
        fixed = prompt(i, f"{head}\n\n{tail}\n\n{notices[d]}\n\nPassenger: {q}\nAgent:")
        out.append((orig, fixed))
    return out


@workload("russian-clock-growing-chats", "messages", ("dynamic",),
          "a Russian-language system prompt whose second line is the current Moscow time (minute), in growing interleaved "
          "chats", notes="the fix states the time at the end of the latest user turn only")
def _russian_clock(rng: random.Random, s: Scribe) -> list[Pair]:
    rules = "\n".join(f"- {r}" for r in RUSSIAN)
    system_tail = "\n\n".join([rules, s.manual(14)])
    convs = [[(rng.choice(RUSSIAN_ASKS), s.answer()) for _ in range(rng.randint(4, 7))] for _ in range(rng.randint(30, 36))]
    out: list[Pair] = []
    for i, (c, k) in enumerate(conversations(rng, [len(t) for t in convs])):
        now = clock(1795996800.0 + 10800 + 53.0 * i)[:5]
        hist: list[dict[str, Any]] = []
        for q, a in convs[c][:k]:
            hist += [user(q), assistant(a)]
        latest = convs[c][k][0]
        orig = chat(i, [sys_msg(f"Вы помощник службы поддержки {s.name}.\nСейчас{MARK} {now} по Москве.\n\n{system_tail}")]
                    + hist + [user(latest)])
        fixed = chat(i, [sys_msg(f"Вы помощник службы поддержки {s.name}.\n\n{system_tail}")] + hist
                     + [user(f"{latest}\n\n(Сейчас {now} по Москве.)")])
        out.append((orig, fixed))
    return out


@workload("agent-step-budget-ids", "input_ids", ("dynamic",),
          "tool-calling agent loops whose system prompt states the steps left (a one-token counter) ~300 tokens in; "
          "steps appended one by one; as token ids",
          notes="the fix states the counter at the end of the last message, so each step extends the previous one")
def _step_budget(rng: random.Random, s: Scribe) -> list[Pair]:
    head, tail = s.opening() + "\n\n" + s.manual(2), s.manual(12)
    names = ["resize_instance", "list_snapshots", "send_receipt", "escalate_case"]
    tools = [s.tool(n) for n in names]
    out: list[Pair] = []
    i = 0
    for task in range(rng.randint(36, 44)):
        steps = rng.randint(3, 6)
        msgs: list[dict[str, Any]] = [user(s.question())]
        for step in range(steps):
            left = 10 - step
            orig = chat(i, [sys_msg(f"{head}\n\nYou have{MARK} {left} tool steps left for this task.\n\n{tail}")]
                        + [dict(m) for m in msgs], tools)
            fixed = chat(i, [sys_msg(f"{head}\n\n{tail}")] + append_to_last(msgs, f"(You have {left} tool steps left.)"), tools)
            out.append((orig, fixed))
            i += 1
            name = rng.choice(names[:2])
            args = {"instance_id": f"i-{hexid(rng, 8)}", "machine_type": "m3.large"} if name == "resize_instance" \
                else {"volume_id": f"vol-{hexid(rng, 8)}", "limit": 5}
            msgs.append(tool_call(f"t{task}s{step}", name, args))
            msgs.append(tool_result(f"t{task}s{step}", compact({"ok": True, "state": rng.choice(["stopped", "running"]),
                                                                "id": hexid(rng, 10)})))
    return out


@workload("emoji-reaction-tally-prompt", "prompt", ("dynamic",),
          "a thread's emoji reaction tally ('\U0001F44D 128 \u2764\ufe0f 54 ...', unique) ~700 tokens into a moderation "
          "prompt, ~1.1k static tokens after it")
def _emoji_tally(rng: random.Random, s: Scribe) -> list[Pair]:
    head, tail = "\n\n".join([s.opening(), s.manual(7)]), s.manual(13)
    out = []
    for i in range(rng.randint(150, 190)):
        picks = rng.sample(EMOJI[5:], 4)
        tally = " ".join(f"{e} {rng.randint(0, 400)}" for e in picks)
        line = f"Reactions on the reported post:{MARK} {tally}"
        q = s.question()
        orig = prompt(i, f"{head}\n\n{line}\n\n{tail}\n\nReport: {q}\nModerator:")
        fixed = prompt(i, f"{head}\n\n{tail}\n\nReport: {q}\n{unmark(line)}\nModerator:")
        out.append((orig, fixed))
    return out


@workload("sampling-temperature-4-ids", "input_ids", ("dynamic",),
          "a 'Generation settings' block whose temperature is one of 4 floats, right after the opening of a 2k-token "
          "system prompt, as token ids", notes="4 settings: the fix puts the block at the end of the system prompt")
def _temperature(rng: random.Random, s: Scribe) -> list[Pair]:
    opening, rest = s.opening(), s.manual(20)
    out = []
    for i in range(rng.randint(150, 190)):
        t = rng.choice(["0.2", "0.5", "0.7", "1.0"])
        block = f"Generation settings:\n- temperature:{MARK} {t}\n- answer length: short\n- language: match the customer"
        q = s.question()
        orig = chat(i, [sys_msg(f"{opening}\n\n{block}\n\n{rest}"), user(q)])
        fixed = chat(i, [sys_msg(f"{opening}\n\n{rest}\n\n{unmark(block)}"), user(q)])
        out.append((orig, fixed))
    return out


PACKAGES = ["requests", "urllib3", "certifi", "idna", "charset-normalizer", "pydantic", "pydantic-core", "fastapi",
            "starlette", "anyio", "sniffio", "httpx", "httpcore", "h11", "uvicorn", "click", "jinja2", "markupsafe",
            "sqlalchemy", "greenlet", "alembic", "mako", "psycopg", "redis", "celery", "kombu", "vine", "billiard",
            "amqp", "boto3", "botocore", "s3transfer", "jmespath", "python-dateutil", "six", "pytz", "tzdata",
            "numpy", "pandas", "pyarrow", "orjson", "structlog", "tenacity", "attrs", "cattrs", "rich", "pygments",
            "typer", "shellingham", "packaging", "filelock", "platformdirs", "tomli", "pyyaml", "cryptography",
            "cffi", "pycparser", "bcrypt", "itsdangerous", "werkzeug"]


@workload("lockfile-600-prompt", "prompt", ("dynamic",),
          "a per-request 60-line dependency lockfile (~650 tokens, unique) between the review instructions and 1.2k "
          "static tokens of review rules")
def _lockfile(rng: random.Random, s: Scribe) -> list[Pair]:
    head, tail = "You review dependency updates for a Python service.\n\n" + s.manual(3), s.manual(14)
    out = []
    for i in range(rng.randint(150, 180)):
        lines = [f"{p}=={rng.randint(0, 9)}.{rng.randint(0, 40)}.{rng.randint(0, 20)}" for p in PACKAGES]
        lock = "\n".join(lines)
        q = "Which of these pins look risky, and why?"
        orig = prompt(i, f"{head}\n\nLockfile:\n```\n{lock.replace('==', '==' + MARK, 1)}\n```\n\n{tail}\n\nQuestion: {q}\nReview:")
        fixed = prompt(i, f"{head}\n\n{tail}\n\nQuestion: {q}\n\nLockfile:\n```\n{lock}\n```\nReview:")
        out.append((orig, fixed))
    return out


BRANCHES = ["Aldgate", "Brixton", "Camden", "Dalston", "Ealing", "Fulham", "Greenwich", "Hackney", "Islington",
            "Kensington", "Lewisham", "Marylebone", "Notting Hill", "Peckham", "Putney", "Richmond", "Shoreditch",
            "Stratford", "Tooting", "Twickenham", "Vauxhall", "Walthamstow", "Wandsworth", "Wembley", "Woolwich"]


@workload("branch-25-first-sentence-ids", "input_ids", ("dynamic",),
          "the customer's pharmacy branch (25 branches) in the first sentence of a 2k-token system prompt, as token ids",
          notes="25 settings, ~7 requests each: too many to keep after the shared prompt (measured), so the fix "
          "moves the sentence to the end of the user turn")
def _branch(rng: random.Random, s: Scribe) -> list[Pair]:
    rest = "\n\n".join([s.opening(), s.manual(20)])
    out = []
    for i in range(rng.randint(170, 200)):
        b = rng.choice(BRANCHES)
        q = s.question()
        orig = chat(i, [sys_msg(f"This customer collects from our{MARK} {b} branch.\n\n{rest}"), user(q)])
        fixed = chat(i, [sys_msg(rest), user(f"{q}\n\nThis customer collects from our {b} branch.")])
        out.append((orig, fixed))
    return out


@workload("japanese-tool-result-stock", "messages", ("dynamic",),
          "an agent's fixed first turn fetching store notices; the Japanese tool result holds a live stock count ~350 "
          "tokens in, ~700 static tokens after it; the customer's question comes last")
def _jp_stock(rng: random.Random, s: Scribe) -> list[Pair]:
    system = "\n\n".join([s.opening(), s.manual(6)])
    tools = [s.tool(n) for n in ["check_prescription", "book_consultation", "send_receipt"]]
    before = "\n".join(JAPANESE[:3] + [s.fact() for _ in range(6)])
    after = "\n".join(JAPANESE[3:] + [s.fact() for _ in range(14)])
    task = "店舗からのお知らせを確認してから、お客様の質問に答えてください。"
    out = []
    for i in range(rng.randint(150, 190)):
        count = rng.randint(0, 900)
        marked = compact({"notices": f"{before}\n在庫数:{MARK} {count} 箱\n{after}"})
        plain = compact({"notices": f"{before}\n{after}"})
        q = s.question()
        call = tool_call("call_notices", "check_prescription", {"nhs_number": "0000000000", "item": "notices"})
        orig = chat(i, [sys_msg(system), user(task), call, tool_result("call_notices", marked), user(q)], tools)
        fixed = chat(i, [sys_msg(system), user(task), call, tool_result("call_notices", plain),
                         user(f"{q}\n\n(在庫数: {count} 箱)")], tools)
        out.append((orig, fixed))
    return out


@workload("theme-2-system-content-part", "messages", ("dynamic",),
          "the app theme (2 settings, dark or light) as the middle part of a system message given as three content "
          "parts, ~1.8k static tokens in the part after it",
          notes="2 settings: the fix sends the theme part last, after the shared parts")
def _theme(rng: random.Random, s: Scribe) -> list[Pair]:
    opening, rest = s.opening(), s.manual(20)
    out = []
    for i in range(rng.randint(150, 190)):
        theme = rng.choice(["dark", "light"])
        part = f"The customer uses the{MARK} {theme} theme, so describe buttons by their {theme}-mode colours."
        q = s.question()
        orig = chat(i, [{"role": "system", "content": parts(opening, part, rest)}, user(q)])
        fixed = chat(i, [{"role": "system", "content": parts(opening, rest, unmark(part))}, user(q)])
        out.append((orig, fixed))
    return out


# ---------------------------------------------------------------- order


@workload("nested-bullets-shuffled-ids", "input_ids", ("order",),
          "seven markdown bullets, each with two indented sub-bullets, in a different order per request ~600 tokens "
          "into the system prompt; as token ids")
def _nested(rng: random.Random, s: Scribe) -> list[Pair]:
    head, tail = "\n\n".join([s.opening(), s.manual(5)]), s.manual(14)
    items = [f"- {s.duty()}\n  - {s.fact()}\n  - {s.fact()}" for _ in range(7)]
    out = []
    for i in range(rng.randint(150, 190)):
        order = list(range(7))
        rng.shuffle(order)
        body = "\n".join(items[k] for k in order)
        q = s.question()
        orig = chat(i, [sys_msg(f"{head}\n\nChecklist:\n{UNIT}- {MARK}{body[2:]}\n\n{tail}"), user(q)])
        fixed = chat(i, [sys_msg(f"{head}\n\nChecklist:\n" + "\n".join(items) + f"\n\n{tail}"), user(q)])
        out.append((orig, fixed))
    return out


@workload("numbered-rules-renumbered-prompt", "prompt", ("order",),
          "ten rules shuffled per request and then numbered 1-10, so the numbers agree and the rule texts do not")
def _renumbered(rng: random.Random, s: Scribe) -> list[Pair]:
    rules = s.rules(10)
    head, tail = s.opening(), s.manual(16)
    out = []
    for i in range(rng.randint(150, 190)):
        order = list(range(10))
        rng.shuffle(order)
        numbered = "\n".join(f"{n}. {(MARK if n == 1 else '') + rules[k]}" for n, k in enumerate(order, 1))
        canon = "\n".join(f"{n}. {r}" for n, r in enumerate(rules, 1))
        q = s.question()
        orig = prompt(i, f"{head}\n\nHouse rules:\n{UNIT}{numbered}\n\n{tail}\n\nCustomer: {q}\nAssistant:")
        fixed = prompt(i, f"{head}\n\nHouse rules:\n{canon}\n\n{tail}\n\nCustomer: {q}\nAssistant:")
        out.append((orig, fixed))
    return out


@workload("jsonl-records-shuffled-ids", "input_ids", ("order",),
          "a JSON-lines block of 12 fare records in a different order per request after the opening, ~1.5k static "
          "tokens after it; as token ids")
def _jsonl(rng: random.Random, s: Scribe) -> list[Pair]:
    local = random.Random(f"{s.name}/fares")
    ports = ["Ardmore", "Bellport", "Carrick", "Dunmore", "Eastholm", "Fairhaven"]
    recs = []
    for k in range(12):
        a, b = local.sample(ports, 2)
        recs.append({"route": f"{a[:3].upper()}-{b[:3].upper()}-{k:02d}", "from": a, "to": b,
                     "adult": round(local.uniform(8, 60), 2), "car": round(local.uniform(40, 190), 2),
                     "minutes": local.randint(35, 240), "note": s.fact()})
    lines = [compact(r) for r in recs]
    head, tail = s.opening(), s.manual(17)
    out = []
    for i in range(rng.randint(150, 190)):
        order = list(range(12))
        rng.shuffle(order)
        block = "\n".join(lines[k] for k in order)
        marked = block.replace('{"route":"', '{"route":"' + MARK, 1)
        q = s.question()
        orig = chat(i, [sys_msg(f"{head}\n\nFares (JSON lines):\n{UNIT}{marked}\n\n{tail}"), user(q)])
        fixed = chat(i, [sys_msg(f"{head}\n\nFares (JSON lines):\n" + "\n".join(lines) + f"\n\n{tail}"), user(q)])
        out.append((orig, fixed))
    return out


@workload("html-li-shuffled-prompt", "prompt", ("order",),
          "nine <li> items of an HTML <ul> in a different order per request, inside an HTML-formatted prompt record")
def _li(rng: random.Random, s: Scribe) -> list[Pair]:
    items = [f"<li>{s.duty()}</li>" for _ in range(9)]
    head = f"<h1>{s.name} assistant</h1>\n<p>{s.opening()}</p>\n<h2>Always</h2>\n<ul>\n"
    tail = "</ul>\n<h2>Reference</h2>\n" + "\n".join(f"<p>{s.paragraph(5)}</p>" for _ in range(16))
    out = []
    for i in range(rng.randint(150, 190)):
        order = list(range(9))
        rng.shuffle(order)
        body = "\n".join(items[k] for k in order)
        q = s.question()
        orig = prompt(i, f"{head}{UNIT}<li>{MARK}{body[4:]}\n{tail}\n<p>Customer: {q}</p>\n<p>Assistant:")
        fixed = prompt(i, head + "\n".join(items) + f"\n{tail}\n<p>Customer: {q}</p>\n<p>Assistant:")
        out.append((orig, fixed))
    return out


@workload("fewshot-toolcall-examples-shuffled", "messages", ("order",),
          "four few-shot tool-calling examples (user, assistant tool call, tool result, assistant answer) as messages "
          "after the system prompt, in a different order per request; tools present")
def _fewshot_calls(rng: random.Random, s: Scribe) -> list[Pair]:
    system = "\n\n".join([s.opening(), s.manual(10)])
    tools = [s.tool(n) for n in ["quote_fare", "locate_driver", "send_receipt", "escalate_case"]]
    examples = []
    for k, (name, args) in enumerate([("quote_fare", {"pickup": "Kings Cross", "dropoff": "Heathrow T5", "vehicle": "xl"}),
                                      ("locate_driver", {"trip_id": "TR-88213"}),
                                      ("send_receipt", {"account": "KR-55102", "period": "2026-10"}),
                                      ("escalate_case", {"team": "the night supervisor", "summary": "Driver left early.",
                                                         "priority": "high"})]):
        q, a = s.question(), s.answer()
        res = compact({"ok": True, "detail": s.fact()})
        examples.append([user(q), tool_call(f"ex{k}", name, args), tool_result(f"ex{k}", res), assistant(a)])
    out = []
    for i in range(rng.randint(150, 190)):
        order = list(range(4))
        rng.shuffle(order)
        msgs = [sys_msg(system)]
        for j, k in enumerate(order):
            ex = [dict(m) for m in examples[k]]
            if j == 0:
                ex[0]["content"] = MARK + ex[0]["content"]
            msgs += ex
        q = s.question()
        orig = chat(i, msgs + [user(q)], tools)
        fixed = chat(i, [sys_msg(system)] + [m for ex in examples for m in ex] + [user(q)], tools)
        out.append((orig, fixed))
    return out


@workload("user-content-parts-shuffled", "messages", ("order",),
          "six static reference snippets sent as user content parts in a different order per request, the question as "
          "the last part")
def _parts_shuffled(rng: random.Random, s: Scribe) -> list[Pair]:
    system = "\n\n".join([s.opening(), s.manual(6)])
    snippets = [f"Reference {k + 1}: {s.paragraph(5)}" for k in range(6)]
    out = []
    for i in range(rng.randint(150, 190)):
        order = list(range(6))
        rng.shuffle(order)
        texts = [snippets[k] for k in order]
        texts[0] = texts[0].replace("Reference ", "Reference " + MARK, 1)
        q = s.question()
        orig = chat(i, [sys_msg(system), {"role": "user", "content": parts(*texts, q)}])
        fixed = chat(i, [sys_msg(system), {"role": "user", "content": parts(*snippets, q)}])
        out.append((orig, fixed))
    return out


@workload("tools-field-12-shuffled", "messages", ("order",),
          "twelve tools in the messages request's `tools` field in a different order per request, behind a 1.2k-token "
          "system prompt")
def _tools12(rng: random.Random, s: Scribe) -> list[Pair]:
    system = "\n\n".join([s.opening(), s.manual(13)])
    names = TOOL_NAMES[:12]
    out = []
    for i in range(rng.randint(150, 180)):
        order = list(names)
        rng.shuffle(order)
        q = s.question()
        out.append((chat(i, [sys_msg(system), user(q)], marked_tools(s, order)),
                    chat(i, [sys_msg(system), user(q)], [s.tool(n) for n in names])))
    return out


ENV = [("APP_REGION", "eu-west-2"), ("BILLING_CURRENCY", "GBP"), ("CACHE_TTL_SECONDS", "300"), ("DB_POOL_SIZE", "20"),
       ("EMAIL_FROM", "no-reply@example.invalid"), ("FEATURE_SPLIT_BILLS", "true"), ("GRACE_PERIOD_DAYS", "14"),
       ("HOLD_MINUTES", "20"), ("INVOICE_PREFIX", "INV"), ("JOB_CONCURRENCY", "8"), ("KYC_PROVIDER", "veriflow"),
       ("LOG_LEVEL", "info"), ("MAX_REFUND_GBP", "250"), ("NOTIFY_SMS", "false")]


def env_block(rng: random.Random | None) -> list[str]:
    lines = [f"{k}={v}" for k, v in ENV]
    if rng is not None:
        rng.shuffle(lines)
    return lines


@workload("env-lines-shuffled-prompt", "prompt", ("order",),
          "a .env block of 14 KEY=value settings in hash-set order (varies per request) at the top of a deployment "
          "assistant's prompt")
def _env(rng: random.Random, s: Scribe) -> list[Pair]:
    rest = s.manual(20)
    out = []
    for i in range(rng.randint(150, 190)):
        lines = env_block(rng)
        q = s.question()
        orig = prompt(i, f"Effective configuration:\n```env\n{MARK}" + "\n".join(lines) + f"\n```\n\n{rest}\n\nOperator: {q}\nAssistant:")
        canon = "\n".join(env_block(None))
        fixed = prompt(i, f"Effective configuration:\n```env\n{canon}\n```\n\n{rest}\n\nOperator: {q}\nAssistant:")
        out.append((orig, fixed))
    return out


# (A table's columns in another order are one content spelled otherwise since issue 33: the
# diagnosis reports TR104 column-order there, the kind of its own the issue asks for.)
@workload("csv-column-order-ids", "input_ids", ("order|spelling",),
          "a 20-row CSV price table whose four columns come in one of 24 orders (a dict rebuilt per request) after the "
          "opening; as token ids",
          notes="every row changes with the column order, so no row is shared as a unit; the fix is one column order")
def _csv_cols(rng: random.Random, s: Scribe) -> list[Pair]:
    local = random.Random(f"{s.name}/csv")
    cols = ["item", "price_gbp", "pack_size", "in_stock"]
    rows = [{"item": f"{local.choice(['Ibuprofen', 'Paracetamol', 'Cetirizine', 'Loratadine', 'Omeprazole'])} "
                     f"{local.choice([100, 200, 250, 400, 500])}mg",
             "price_gbp": f"{local.uniform(1, 15):.2f}", "pack_size": str(local.choice([12, 16, 24, 28, 30, 56])),
             "in_stock": local.choice(["yes", "no", "low"])} for _ in range(20)]

    def table(order: list[str]) -> str:
        return "\n".join([",".join(order)] + [",".join(r[c] for c in order) for r in rows])
    head, tail = s.opening(), s.manual(16)
    out = []
    for i in range(rng.randint(150, 190)):
        order = list(cols)
        rng.shuffle(order)
        q = s.question()
        orig = chat(i, [sys_msg(f"{head}\n\nPrice list (CSV):\n{MARK}{table(order)}\n\n{tail}"), user(q)])
        fixed = chat(i, [sys_msg(f"{head}\n\nPrice list (CSV):\n{table(cols)}\n\n{tail}"), user(q)])
        out.append((orig, fixed))
    return out


# ---------------------------------------------------------------- per-request content before shared content


@workload("user-memory-first-message", "messages", ("placement",),
          "a per-user memory block (40 users, ~200 tokens of remembered facts) as the first system message, ahead of "
          "the 2k-token shared system prompt")
def _memory(rng: random.Random, s: Scribe) -> list[Pair]:
    system = "\n\n".join([s.opening(), s.manual(20)])
    memories = []
    for _ in range(40):
        facts = [f"name: {s.person()}", f"prefers {rng.choice(['email', 'phone', 'chat'])} contact",
                 f"{s.unit} reference {s.ref()}, opened {rng.randint(1, 28)} {rng.choice(MONTHS)} {rng.randint(2019, 2026)}",
                 f"last asked about {rng.choice(['a refund', 'a late change', 'a duplicate charge', 'access for a carer'])} "
                 f"(case {s.ref()})",
                 f"has {rng.randint(1, 5)} active {s.unit}s and {rng.randint(0, 3)} open complaints",
                 f"said on {rng.randint(1, 28)} {rng.choice(MONTHS)}: \"{s.question()}\""]
        memories.append(("Things you remember about this user:\n- " + "\n- ".join(facts)).replace("- name:", "- name:" + MARK, 1))
    out = []
    for i in range(rng.randint(160, 200)):
        mem = rng.choice(memories)
        q = s.question()
        out.append((chat(i, [sys_msg(UNIT + mem), sys_msg(system), user(q)]),
                    chat(i, [sys_msg(system), sys_msg(unmark(mem)), user(q)])))
    return out


@workload("json-profile-first-prompt", "prompt", ("placement",),
          "a retrieved customer profile as pretty-printed JSON (unique per request) opening a prompt record, ahead of "
          "2k tokens of shared policy")
def _json_profile(rng: random.Random, s: Scribe) -> list[Pair]:
    policy = "\n\n".join([s.opening(), s.manual(20)])
    out = []
    for i in range(rng.randint(150, 190)):
        profile = {"customer": s.person(), "since": rng.randint(2009, 2026), "plan": rng.choice(["basic", "plus", "family"]),
                   "open_cases": rng.randint(0, 4), "last_contact": rng.choice(["chat", "phone", "email"]),
                   "notes": s.fact()}
        text = json.dumps(profile, indent=2)
        marked = text.replace('"customer": "', '"customer": "' + MARK, 1)
        q = s.question()
        orig = prompt(i, f"{UNIT}Customer profile:\n{marked}\n\n{policy}\n\nCustomer: {q}\nAssistant:")
        fixed = prompt(i, f"{policy}\n\nCustomer profile:\n{text}\n\nCustomer: {q}\nAssistant:")
        out.append((orig, fixed))
    return out


@workload("tenant-preamble-then-policy-ids", "input_ids", ("placement|dynamic",),
          "a tenant-specific preamble (12 tenants, ~150 tokens) opening the system prompt, ahead of a 3k-token shared "
          "policy; tenant field set; as token ids",
          notes="the fix puts the shared policy first and the tenant preamble after it")
def _tenant_preamble(rng: random.Random, s: Scribe) -> list[Pair]:
    shared = s.manual(34)
    preambles = []
    for _ in range(12):
        brand = f"{rng.choice(WORDS).title()} {rng.choice(['Homes', 'Estates', 'Living', 'Lets'])}"
        preambles.append(f"You are writing on behalf of{MARK} {brand}, a letting agent using {s.name}. "
                         + s.paragraph(4))
    out = []
    for i in range(rng.randint(160, 200)):
        k = rng.randrange(12)
        q = s.question()
        out.append((with_tenant(chat(i, [sys_msg(f"{UNIT}{preambles[k]}\n\n{shared}"), user(q)]), f"agency-{k:02d}"),
                    with_tenant(chat(i, [sys_msg(f"{shared}\n\n{unmark(preambles[k])}"), user(q)]), f"agency-{k:02d}")))
    return out


@workload("examples-before-instructions-prompt", "prompt", ("placement",),
          "three retrieved worked examples (chosen per request from 40) opening a prompt record, ahead of 2k tokens "
          "of shared instructions")
def _examples_first(rng: random.Random, s: Scribe) -> list[Pair]:
    pool = [s.example() for _ in range(40)]
    instructions = "\n\n".join([s.opening(), s.manual(20)])
    out = []
    for i in range(rng.randint(150, 190)):
        picked = sorted(rng.sample(range(40), 3))
        ex = "\n\n".join(f"Example {n}\nCustomer: {pool[k][0]}\nAgent: {pool[k][1]}" for n, k in enumerate(picked, 1))
        marked = ex.replace("Customer: ", "Customer: " + MARK, 1)
        q = s.question()
        orig = prompt(i, f"{UNIT}{marked}\n\n{instructions}\n\nCustomer: {q}\nAgent:")
        fixed = prompt(i, f"{instructions}\n\n{ex}\n\nCustomer: {q}\nAgent:")
        out.append((orig, fixed))
    return out


@workload("task-before-agent-instructions", "messages", ("placement",),
          "agent loops whose system message opens with the task, ahead of ~1.5k tokens of static agent instructions; "
          "tool calls and results appended step by step",
          notes="the fix sends the task in the first user message, after the instructions and the tools the layout puts there")
def _task_first(rng: random.Random, s: Scribe) -> list[Pair]:
    instructions = "\n\n".join([s.opening(), s.manual(16)])
    names = ["log_repair", "escalate_case", "send_receipt", "find_booking"]
    tools = [s.tool(n) for n in names]
    out: list[Pair] = []
    i = 0
    for task_no in range(rng.randint(40, 48)):
        task = s.question()
        msgs: list[dict[str, Any]] = [user("Start the task.")]
        for step in range(rng.randint(2, 5)):
            orig = chat(i, [sys_msg(f"{UNIT}Task:{MARK} {task}\n\n{instructions}")] + [dict(m) for m in msgs], tools)
            # The layout writes the tools at the top of the first user turn: the shared content
            # is the instructions and the tools, so the task goes after both.
            fixed = chat(i, [sys_msg(instructions), user(f"Task: {task}\n\n{msgs[0]['content']}")]
                         + [dict(m) for m in msgs[1:]], tools)
            out.append((orig, fixed))
            i += 1
            args = {"property_id": f"P{rng.randint(1000, 9999)}", "category": rng.choice(["heating", "damp", "other"]),
                    "urgent": rng.random() < 0.2}
            msgs.append(tool_call(f"a{task_no}_{step}", "log_repair", args))
            msgs.append(tool_result(f"a{task_no}_{step}", compact({"logged": True, "job": f"J-{rng.randint(10000, 99999)}"})))
    return out


@workload("arabic-passages-before-policy-prompt", "prompt", ("placement",),
          "two retrieved Arabic passages (from 60) opening a prompt record, ahead of a 2k-token English policy")
def _arabic_first(rng: random.Random, s: Scribe) -> list[Pair]:
    corpus = [s.arabic_passage(d) for d in range(60)]
    policy = "\n\n".join([s.opening(), s.manual(20)])
    out = []
    for i in range(rng.randint(150, 190)):
        docs = "\n\n".join(corpus[k] for k in rng.sample(range(60), 2))
        q = s.question()
        marked = docs.replace("[وثيقة ", "[وثيقة" + MARK + " ", 1)
        orig = prompt(i, f"{UNIT}Retrieved passages:\n{marked}\n\n{policy}\n\nPassenger: {q}\nAgent:")
        fixed = prompt(i, f"{policy}\n\nRetrieved passages:\n{docs}\n\nPassenger: {q}\nAgent:")
        out.append((orig, fixed))
    return out


@workload("japanese-order-history-first-ids", "input_ids", ("placement",),
          "a Japanese order history (per customer, 50 customers) as the first system message ahead of the static "
          "system prompt; as token ids")
def _jp_history(rng: random.Random, s: Scribe) -> list[Pair]:
    system = "\n\n".join([s.opening(), "\n".join(JAPANESE), s.manual(18)])
    histories = []
    for _ in range(50):
        lines = [f"{rng.randint(1, 12)}月{rng.randint(1, 28)}日 注文番号{rng.randint(100000, 999999)} "
                 f"{rng.choice(['配達済み', '発送準備中', '返品受付', 'キャンセル'])}" for _ in range(rng.randint(3, 8))]
        histories.append("ご注文履歴:\n" + MARK + "\n".join(lines))
    out = []
    for i in range(rng.randint(160, 200)):
        h = rng.choice(histories)
        q = s.question()
        out.append((chat(i, [sys_msg(UNIT + h), sys_msg(system), user(q)]),
                    chat(i, [sys_msg(system), sys_msg(unmark(h)), user(q)])))
    return out


# ---------------------------------------------------------------- several defects in one request


@workload("three-values-one-request", "messages", ("dynamic", "dynamic", "dynamic"),
          "a ticket id (unique) ~250 tokens in, the shift name (3 settings) ~1,000 tokens in, and a SHA-256 of the "
          "conversation (unique) ~1,700 tokens in, each followed by static text",
          notes="the shift name (3 settings) goes to the end of the system prompt; the two unique values to the user turn")
def _three(rng: random.Random, s: Scribe) -> list[Pair]:
    a = "\n\n".join([s.opening(), s.manual(2)])
    b, c, d = s.manual(9), s.manual(8), s.manual(6)
    out = []
    for i in range(rng.randint(150, 190)):
        ticket = f"T-{rng.randint(1000000, 9999999)}"
        shift = rng.choice(["early", "late", "night"])
        digest = hashlib.sha256(f"{i}/{rng.random()}".encode()).hexdigest()
        q = s.question()
        orig = chat(i, [sys_msg(f"{a}\n\nTicket:{MARK} {ticket}\n\n{b}\n\nYou are covering the{MARK} {shift} shift.\n\n{c}"
                                f"\n\nTranscript digest:{MARK} {digest}\n\n{d}"), user(q)])
        fixed = chat(i, [sys_msg(f"{a}\n\n{b}\n\n{c}\n\n{d}\n\nYou are covering the {shift} shift."),
                         user(f"{q}\n\nTicket: {ticket}\nTranscript digest: {digest}")])
        out.append((orig, fixed))
    return out


@workload("passages-first-and-glossary-shuffled", "messages", ("placement", "order"),
          "retrieved passages as the first system message, then the static system prompt whose 8-entry glossary comes "
          "in a different order per request")
def _passages_glossary(rng: random.Random, s: Scribe) -> list[Pair]:
    head, tail = "\n\n".join([s.opening(), s.manual(6)]), s.manual(12)
    terms = ["berth", "foot passenger", "sailing", "manifest", "standby", "deck class", "check-in cut-off", "transfer"]
    gloss = [f"{t} \u2014 {s.fact()}" for t in terms]
    out = []
    for i in range(rng.randint(150, 190)):
        docs = "\n\n".join(s.passage(d) for d in rng.sample(range(150), 2))
        order = list(range(8))
        rng.shuffle(order)
        g = [gloss[k] for k in order]
        q = s.question()
        orig = chat(i, [sys_msg(UNIT + docs.replace("entry ", "entry " + MARK, 1)),
                        sys_msg(f"{head}\n\nGlossary:\n{UNIT}{MARK}" + "\n".join(g) + f"\n\n{tail}"), user(q)])
        fixed = chat(i, [sys_msg(f"{head}\n\nGlossary:\n" + "\n".join(gloss) + f"\n\n{tail}"), sys_msg(docs), user(q)])
        out.append((orig, fixed))
    return out


@workload("env-shuffled-then-sha-ids", "input_ids", ("order", "dynamic"),
          "a .env block in varying order near the top of the system prompt and, ~900 tokens later, the running "
          "build's short SHA (unique per request: canary builds); as token ids")
def _env_sha(rng: random.Random, s: Scribe) -> list[Pair]:
    head, mid, tail = s.opening(), s.manual(10), s.manual(10)
    out = []
    for i in range(rng.randint(150, 190)):
        lines = env_block(rng)
        sha = hexid(rng, 12)
        q = s.question()
        orig = chat(i, [sys_msg(f"{head}\n\nConfiguration:\n{MARK}" + "\n".join(lines) + f"\n\n{mid}\n\nRunning build:{MARK} "
                                f"{sha}\n\n{tail}"), user(q)])
        fixed = chat(i, [sys_msg(f"{head}\n\nConfiguration:\n" + "\n".join(env_block(None)) + f"\n\n{mid}\n\n{tail}"),
                         user(f"{q}\n\nRunning build: {sha}")])
        out.append((orig, fixed))
    return out


# ---------------------------------------------------------------- clean controls


@workload("clean-long-agent-stable-tools", "messages", (),
          "long agent loops (6-11 steps) with ten stable tools, tool calls and results appended step by step")
def _long_agent(rng: random.Random, s: Scribe) -> list[Pair]:
    system = "\n\n".join([s.opening(), s.manual(8)])
    names = TOOL_NAMES[:10]
    tools = [s.tool(n) for n in names]
    out: list[Pair] = []
    i = 0
    for task in range(rng.randint(20, 24)):
        msgs: list[dict[str, Any]] = [sys_msg(system), user(s.question())]
        for step in range(rng.randint(6, 11)):
            rec = chat(i, [dict(m) for m in msgs], tools)
            out.append((rec, rec))
            i += 1
            name = rng.choice(names)
            msgs.append(tool_call(f"L{task}_{step}", name, {"reference": s.ref()}))
            msgs.append(tool_result(f"L{task}_{step}", compact({"status": rng.choice(["ok", "not found", "pending"]),
                                                                "at": clock(1795996800.0 + 29.0 * i), "detail": s.fact()})))
    return out


@workload("clean-tenant-fork-ids", "input_ids", (),
          "five tenants whose system prompts share one opening line and nothing after it; as token ids")
def _fork(rng: random.Random, s: Scribe) -> list[Pair]:
    scribes = [Scribe(random.Random(f"{s.name}/fork/{k}"), ORGS[(ORGS.index(s.org) + k + 1) % len(ORGS)]) for k in range(5)]
    prompts = [f"Assistant configuration.\n\n{x.opening()}\n\n{x.manual(12 + 2 * k)}" for k, x in enumerate(scribes)]
    out = []
    for i in range(rng.randint(160, 200)):
        k = rng.randrange(5)
        rec = with_tenant(chat(i, [sys_msg(prompts[k]), user(scribes[k].question())]), f"t{k}")
        out.append((rec, rec))
    return out


@workload("clean-location-on-latest-turn", "messages", (),
          "growing chats where the client appends the rider's location to the latest user turn only (history as sent "
          "earlier, without it)")
def _latest_location(rng: random.Random, s: Scribe) -> list[Pair]:
    system = "\n\n".join([s.opening(), s.manual(14)])
    convs = [[(s.question(), s.answer()) for _ in range(rng.randint(4, 7))] for _ in range(rng.randint(30, 36))]
    out: list[Pair] = []
    for i, (c, k) in enumerate(conversations(rng, [len(t) for t in convs])):
        msgs = [sys_msg(system)]
        for q, a in convs[c][:k]:
            msgs += [user(q), assistant(a)]
        loc = f"(location {rng.uniform(51.3, 51.7):.5f}, {rng.uniform(-0.5, 0.3):.5f})"
        msgs.append(user(f"{convs[c][k][0]}\n\n{loc}"))
        rec = chat(i, msgs)
        out.append((rec, rec))
    return out


@workload("clean-sorted-subset-after-shared-prompt", "prompt", (),
          "a static HTML prompt, then 2-6 <li> notices chosen per request from 12, always in catalogue order, then "
          "the question")
def _subset(rng: random.Random, s: Scribe) -> list[Pair]:
    head = f"<h1>{s.name}</h1>\n<p>{s.opening()}</p>\n" + "\n".join(f"<p>{s.paragraph(5)}</p>" for _ in range(18))
    notices = [f"<li>{s.fact()}</li>" for _ in range(12)]
    out = []
    for i in range(rng.randint(150, 190)):
        picked = sorted(rng.sample(range(12), rng.randint(2, 6)))
        rec = prompt(i, f"{head}\n<h2>Notices for this customer</h2>\n<ul>\n" + "\n".join(notices[k] for k in picked)
                     + f"\n</ul>\n<p>Customer: {s.question()}</p>\n<p>Assistant:")
        out.append((rec, rec))
    return out


@workload("clean-abc-system-ids", "input_ids", (),
          "an A/B/C test: three system prompts that share nothing after the chat header; as token ids")
def _abc(rng: random.Random, s: Scribe) -> list[Pair]:
    arms = [Scribe(random.Random(f"{s.name}/arm/{k}"), s.org) for k in range(3)]
    systems = [f"{['Hello.', 'Welcome.', 'Greetings.'][k]} {a.manual(14 + 3 * k)}" for k, a in enumerate(arms)]
    out = []
    for i in range(rng.randint(160, 200)):
        rec = chat(i, [sys_msg(rng.choice(systems)), user(s.question())])
        out.append((rec, rec))
    return out


@workload("clean-growing-chat-ids", "input_ids", (),
          "growing multi-turn chats behind a static system prompt, interleaved; as token ids")
def _growing_ids(rng: random.Random, s: Scribe) -> list[Pair]:
    system = "\n\n".join([s.opening(), s.manual(16)])
    convs = [[(s.question(), s.answer()) for _ in range(rng.randint(3, 7))] for _ in range(rng.randint(32, 38))]
    out: list[Pair] = []
    for i, (c, k) in enumerate(conversations(rng, [len(t) for t in convs])):
        msgs = [sys_msg(system)]
        for q, a in convs[c][:k]:
            msgs += [user(q), assistant(a)]
        rec = chat(i, msgs + [user(convs[c][k][0])])
        out.append((rec, rec))
    return out


@workload("clean-static-content-parts", "messages", (),
          "a user message as content parts: ~900 tokens of static instructions first, the question as the last part")
def _static_parts(rng: random.Random, s: Scribe) -> list[Pair]:
    system = s.opening()
    instructions = "Read these before answering:\n" + "\n".join(f"- {r}" for r in s.rules(30))
    out = []
    for i in range(rng.randint(150, 190)):
        rec = chat(i, [sys_msg(system), {"role": "user", "content": parts(instructions, s.question())}])
        out.append((rec, rec))
    return out


@workload("clean-jsonl-catalog-prompt", "prompt", (),
          "a stable JSON-lines catalog of 14 records in a fixed order, then the question")
def _jsonl_clean(rng: random.Random, s: Scribe) -> list[Pair]:
    local = random.Random(f"{s.name}/catalog")
    lines = [compact({"sku": f"S{k:03d}", "name": local.choice(WORDS).title(), "price": round(local.uniform(2, 90), 2),
                      "note": s.fact()}) for k in range(14)]
    head = "\n\n".join([s.opening(), s.manual(12), "Catalog:\n" + "\n".join(lines)])
    out = []
    for i in range(rng.randint(150, 190)):
        rec = prompt(i, f"{head}\n\nShopper: {s.question()}\nAssistant:")
        out.append((rec, rec))
    return out


@workload("clean-nonlatin-static", "messages", (),
          "a static system prompt in Japanese, Arabic and Russian plus English policy; questions in those scripts")
def _nonlatin(rng: random.Random, s: Scribe) -> list[Pair]:
    system = "\n\n".join([s.opening(), "\n".join(JAPANESE), "\n".join(ARABIC), "\n".join(RUSSIAN), s.manual(14)])
    asks = RUSSIAN_ASKS + ["注文番号{n}の配送状況を教えてください。", "領収書{n}を再発行できますか？",
                           "هل يمكنني تغيير موعد الحجز {n}؟", "أين أجد فاتورة الرحلة {n}؟"]
    out = []
    for i in range(rng.randint(150, 190)):
        q = rng.choice(asks)
        q = q.format(n=rng.randint(10000, 99999)) if "{n}" in q else f"{q} ({rng.randint(10000, 99999)})"
        rec = chat(i, [sys_msg(system), user(q)])
        out.append((rec, rec))
    return out


@workload("clean-emoji-prompt-hash-last", "prompt", (),
          "an emoji-rich static prompt (weather legend, reactions guide), the question, then a SHA-256 request hash "
          "as the last line")
def _emoji_clean(rng: random.Random, s: Scribe) -> list[Pair]:
    legend = "\n".join(f"{e} means {w}" for e, w in zip(EMOJI, ["sunny", "cloudy", "rain", "snow", "storm", "agree",
                                                              "love it", "funny", "surprised", "sad", "angry",
                                                              "celebrate", "launch"]))
    head = "\n\n".join([s.opening(), "Emoji legend:\n" + legend, s.manual(18)])
    out = []
    for i in range(rng.randint(150, 190)):
        h = hashlib.sha256(f"{i}/{rng.random()}".encode()).hexdigest()
        rec = prompt(i, f"{head}\n\nCustomer: {s.question()}\nrequest-hash: {h}\nAssistant:")
        out.append((rec, rec))
    return out


@workload("clean-setting-at-end-ids", "input_ids", (),
          "a temperature setting (4 values) as the last line of the system prompt, after all shared content; as token ids")
def _setting_end(rng: random.Random, s: Scribe) -> list[Pair]:
    system = "\n\n".join([s.opening(), s.manual(20)])
    out = []
    for i in range(rng.randint(150, 190)):
        t = rng.choice(["0.2", "0.5", "0.7", "1.0"])
        rec = chat(i, [sys_msg(f"{system}\n\nSampling temperature: {t}"), user(s.question())])
        out.append((rec, rec))
    return out


# ---------------------------------------------------------------- assembly


def build_pairs(name: str, seed: int, engine: Engine) -> list[Pair]:
    """One workload's (original with markers, fixed) records, before rendering."""
    fn = next(r[4] for r in REGISTRY if r[0] == name)
    # Each workload draws from its own name and the seed only: adding one changes no other.
    rng = random.Random(f"{seed}/h3/{name}")
    org = ORGS[zlib.crc32(name.encode()) % len(ORGS)]
    scribe = Scribe(random.Random(f"{seed}/h3/{name}/text"), org, first_tool_key=first_tool_key(engine))
    return fn(rng, scribe)


def build_workloads(seed: int = 12, engine: Engine | None = None, only: Sequence[str] | None = None) -> list[Workload]:
    """Every workload of the third held-out set, deterministic for ``seed``."""
    engine = engine or Engine()
    return assemble(REGISTRY, lambda name: build_pairs(name, seed, engine), engine, only)


def workload_names() -> list[str]:
    return [r[0] for r in REGISTRY]
