#!/usr/bin/env python3
"""Deterministic generator of the demo traffic in templates/traffic/.

Renders the templates of this folder in a Jinja2 sandbox and writes OpenAI-style chat requests
as JSON Lines. Only the standard library, jinja2 and PyYAML are used, and the advisor package
is not imported, so the script stays usable on its own:

    python templates/generate_traffic.py            # regenerate every file
    python templates/generate_traffic.py --check    # exit 1 if a committed file is stale

From Python: ``generate(workload, n, seed=0, defect=True)`` returns the records and
``dumps(records)`` the exact file text. All randomness comes from ``random.Random`` instances
seeded with the workload name and the seed, so the output is byte-identical on every run.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import importlib.util
import json
import random
import re
import sys
from pathlib import Path

import yaml
from jinja2.sandbox import ImmutableSandboxedEnvironment

HERE = Path(__file__).resolve().parent
TRAFFIC_DIR = HERE / "traffic"

# The capture window starts on Monday 2026-11-02 at 14:00:00 UTC.
START = _dt.datetime(2026, 11, 2, 14, 0, 0, tzinfo=_dt.timezone.utc).timestamp()

DEFAULT_COUNTS = {
    "rag_tools": 380,
    "agent_tools": 300,
    "support_chat": 300,
    "single_shot": 200,
    "rag_templated": 50,
}
WORKLOADS = tuple(DEFAULT_COUNTS)

# workload -> output path relative to TRAFFIC_DIR; (workload, defect) for the support variants.
OUTPUTS = {
    "rag_tools.jsonl": ("rag_tools", True),
    "agent_tools.jsonl": ("agent_tools", True),
    "support_chat.jsonl": ("support_chat", True),
    "single_shot.jsonl": ("single_shot", True),
    "rag_templated.jsonl": ("rag_templated", True),
    "fixed/support_chat_fixed.jsonl": ("support_chat", False),
}

SUMMARY_INSTRUCTION = "Summarize the following document in five concise bullet points for a busy reader."


def _load_module(name: str):
    spec = importlib.util.spec_from_file_location(f"_advisor_demo_{name}", HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


KB = _load_module("demo_kb")
SUPPORT = _load_module("demo_support")
AGENT = _load_module("demo_agent")
DOCS = _load_module("demo_docs")

ENV = ImmutableSandboxedEnvironment(autoescape=False)


# ---------------------------------------------------------------------------------------------
# Template loading
# ---------------------------------------------------------------------------------------------

def load_rag_template() -> list[dict]:
    """The messages of rag_tools.yaml, each content compiled as a sandboxed template."""
    data = yaml.safe_load((HERE / "rag_tools.yaml").read_text(encoding="utf-8"))
    return [{"role": m["role"], "template": ENV.from_string(m["content"])} for m in data["messages"]]


_ROLE_LINE = re.compile(r"^(system|user|assistant):[ \t]*$")


def parse_prompty(path: Path) -> tuple[dict, list[tuple[str, str]]]:
    """Front matter and (role, content) sections of a Prompty file."""
    text = path.read_text(encoding="utf-8")
    if not text.startswith("---\n"):
        raise ValueError(f"{path}: no front matter")
    _, front, body = text.split("---\n", 2)
    meta = yaml.safe_load(front)
    sections: list[tuple[str, list[str]]] = []
    for line in body.split("\n"):
        match = _ROLE_LINE.match(line)
        if match:
            sections.append((match.group(1), []))
        elif sections:
            sections[-1][1].append(line)
    return meta, [(role, "\n".join(lines).strip()) for role, lines in sections]


def load_agent_template() -> tuple[list[dict], list[dict]]:
    meta, sections = parse_prompty(HERE / "agent_tools.prompty")
    messages = [{"role": role, "template": ENV.from_string(content)} for role, content in sections]
    return messages, meta["model"]["parameters"]["tools"]


def load_support_template(defect: bool):
    source = (HERE / "support_chat.j2").read_text(encoding="utf-8")
    if not defect:
        first, blank, rest = source.split("\n", 2)
        if "{{ now }}" not in first or blank.strip():
            raise ValueError("support_chat.j2: expected the timestamp line first, then a blank line")
        source = rest
    return ENV.from_string(source)


# ---------------------------------------------------------------------------------------------
# Shared helpers
# ---------------------------------------------------------------------------------------------

def _rng(workload: str, seed: int) -> random.Random:
    return random.Random(f"advisor-demo:{workload}:{seed}")


def _poisson_arrivals(rng: random.Random, n: int, rate: float, start: float = START) -> list[float]:
    """n strictly increasing arrival times (seconds, millisecond resolution)."""
    out: list[float] = []
    t = start
    for _ in range(n):
        t += rng.expovariate(rate)
        value = round(t, 3)
        if out and value <= out[-1]:
            value = round(out[-1] + 0.001, 3)
        out.append(value)
        t = value
    return out


def _strictly_increasing(times: list[float]) -> list[float]:
    out: list[float] = []
    for t in times:
        t = round(t, 3)
        if out and t <= out[-1]:
            t = round(out[-1] + 0.001, 3)
        out.append(t)
    return out


def _clock(ts: float) -> str:
    """Wall-clock text of an arrival time, to the millisecond (unique per request)."""
    millis = int(round(ts * 1000))
    moment = _dt.datetime.fromtimestamp(millis // 1000, tz=_dt.timezone.utc)
    return f"{moment:%Y-%m-%d %H:%M:%S}.{millis % 1000:03d} UTC"


def _weighted(rng: random.Random, items: list, weights: list[float]):
    return rng.choices(items, weights=weights, k=1)[0]


def _approx_tokens(text: str) -> int:
    return max(1, round(len(text) / 4))


def _fill(rng: random.Random, pattern: str, pools: dict) -> str:
    def sub(match: re.Match) -> str:
        key = match.group(1)
        value = pools[key]
        return rng.choice(value) if isinstance(value, list) else value
    return re.sub(r"\{(\w+)\}", sub, pattern)


def dumps(records: list[dict]) -> str:
    """The exact JSONL text written for records (fixed key order, UTF-8, LF endings)."""
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


# ---------------------------------------------------------------------------------------------
# RAG with tools
# ---------------------------------------------------------------------------------------------

RAG_TENANTS = (["acme", "globex", "initech"], [0.55, 0.30, 0.15])
RAG_DOC_WEIGHTS = [1.0 / (rank + 1) ** 1.1 for rank in range(len(KB.DOCUMENTS))]


def _rag_requests(rng: random.Random, n: int) -> list[dict]:
    """Per request: tenant, the retrieved documents and the question (no rendering)."""
    out = []
    question_weights = [RAG_DOC_WEIGHTS[idx] + 0.02 for idx, _ in KB.QUESTIONS]
    for _ in range(n):
        tenant = _weighted(rng, *RAG_TENANTS)
        primary, pattern = _weighted(rng, KB.QUESTIONS, question_weights)
        k = _weighted(rng, [3, 4, 5], [0.4, 0.4, 0.2])
        chosen = [primary]
        while len(chosen) < k:
            idx = _weighted(rng, list(range(len(KB.DOCUMENTS))), RAG_DOC_WEIGHTS)
            if idx not in chosen:
                chosen.append(idx)
        # The retriever's ranking: the answering document is usually, not always, on top.
        if rng.random() < 0.35:
            chosen.insert(rng.randint(1, len(chosen) - 1), chosen.pop(0))
        question = (
            rng.choice(KB.PREAMBLES)
            + _fill(rng, pattern, KB.SLOTS)
            + _fill(rng, rng.choice(KB.CONTEXTS), KB.SLOTS)
        )
        question = question.replace(" a X-", " an X-")
        if question[0].islower():
            question = question[0].upper() + question[1:]
        documents = [{"title": KB.DOCUMENTS[i][0], "text": KB.DOCUMENTS[i][1]} for i in chosen]
        output_length = int(min(900, max(60, rng.lognormvariate(5.4, 0.45))))
        out.append({"tenant": tenant, "documents": documents, "question": question,
                    "output_length": output_length})
    return out


def _gen_rag_tools(rng: random.Random, n: int) -> list[dict]:
    messages = load_rag_template()
    arrivals = _poisson_arrivals(rng, n, rate=3.2)
    records = []
    for i, (ts, req) in enumerate(zip(arrivals, _rag_requests(rng, n))):
        variables = {"documents": req["documents"], "question": req["question"]}
        records.append({
            "id": f"rag-{i + 1:05d}",
            "timestamp": ts,
            "tenant": req["tenant"],
            "output_length": req["output_length"],
            "messages": [{"role": m["role"], "content": m["template"].render(**variables)} for m in messages],
        })
    return records


def _gen_rag_templated(rng: random.Random, n: int) -> list[dict]:
    arrivals = _poisson_arrivals(rng, n, rate=3.2)
    records = []
    for i, (ts, req) in enumerate(zip(arrivals, _rag_requests(rng, n))):
        records.append({
            "id": f"ragt-{i + 1:05d}",
            "timestamp": ts,
            "tenant": req["tenant"],
            "output_length": req["output_length"],
            "template": "rag_tools",
            "variables": {"documents": req["documents"], "question": req["question"]},
        })
    return records


# ---------------------------------------------------------------------------------------------
# Operations agent with tools (multi-step)
# ---------------------------------------------------------------------------------------------

AGENT_TENANTS = (["lumenfield-eu", "lumenfield-us"], [0.6, 0.4])
AGENT_SCENARIO_WEIGHTS = {
    "alert_after_deploy": 0.3, "latency_scale": 0.15, "staging_rollback": 0.15,
    "health_check": 0.25, "log_dive": 0.15,
}


def _agent_episode(rng: random.Random, start: float) -> list[tuple[float, str, list[dict], int]]:
    """One task handled by the agent: (arrival, tenant, messages after the system/user turns,
    output_length) for every model call of the episode."""
    names = list(AGENT_SCENARIO_WEIGHTS)
    scenario_name = _weighted(rng, names, [AGENT_SCENARIO_WEIGHTS[s] for s in names])
    scenario = AGENT.SCENARIOS[scenario_name]
    service, team = rng.choice(AGENT.SERVICES)
    hour, minute = rng.choice([12, 13]), rng.randint(0, 59)
    major, minor, patch = rng.randint(2, 9), rng.randint(1, 40), rng.randint(0, 12)
    new_version = f"v{major}.{minor}.{patch}"
    old_version = f"v{major}.{minor}.{patch - 1}" if patch else f"v{major}.{minor - 1}.{rng.randint(0, 9)}"
    ctx = {
        "service": service, "team": team, "environment": scenario["environment"],
        "status": scenario["status"], "alert": service.title().replace("-", "") + rng.choice(AGENT.ALERTS[scenario_name]),
        "error_rate": round(rng.uniform(0.6, 9.5), 2), "p99": rng.randint(300, 2400),
        "replicas": rng.choice([3, 4, 6, 8, 12, 16, 24]),
        "new_version": new_version, "old_version": old_version,
        "author": rng.choice(AGENT.ENGINEERS), "hour": hour, "minute": minute,
        "deploy_time": f"2026-11-02T{hour:02d}:{max(0, minute - rng.randint(3, 20)):02d}:00Z",
        "older_deploy_time": f"2026-10-{rng.randint(20, 31):02d}T{rng.randint(8, 17):02d}:{rng.randint(0, 59):02d}:00Z",
        "kind_index": rng.randint(0, 4), "scale_safe": scenario_name == "latency_scale" or rng.random() < 0.8,
    }
    task = _fill(rng, rng.choice(scenario["tasks"]), {
        "alert": ctx["alert"], "service": service, "ago": str(rng.randint(2, 25)),
        "region": rng.choice(AGENT.REGIONS), "engineer": rng.choice(AGENT.ENGINEERS),
        "hh": f"{hour:02d}", "mm": f"{minute:02d}",
    })
    tenant = _weighted(rng, *AGENT_TENANTS)
    steps = scenario["steps"]
    taken = rng.randint(max(1, len(steps) - 2), len(steps))
    history: list[dict] = [{"role": "user", "content": task}]
    calls = []
    t = start
    for j in range(taken + 1):
        if j < taken:
            text, tool, args, result = steps[j](ctx, rng)
            arguments = json.dumps(args, ensure_ascii=False)
            output_length = _approx_tokens(text) + _approx_tokens(arguments) + 12
        else:
            output_length = _approx_tokens(AGENT.FINAL_ANSWERS[scenario_name].format(**ctx)) + rng.randint(60, 220)
        calls.append((round(t, 3), tenant, [dict(m) for m in history], output_length))
        if j < taken:
            call_id = f"call_{rng.getrandbits(64):016x}"
            history.append({
                "role": "assistant", "content": text,
                "tool_calls": [{"id": call_id, "type": "function",
                                "function": {"name": tool, "arguments": arguments}}],
            })
            history.append({"role": "tool", "tool_call_id": call_id, "name": tool,
                            "content": json.dumps(result, ensure_ascii=False)})
            # model decode time plus tool latency before the next call
            t += rng.uniform(1.5, 4.0) + output_length / 45.0
    return calls


def _gen_agent_tools(rng: random.Random, n: int) -> list[dict]:
    messages, tools = load_agent_template()
    system = messages[0]["template"].render()
    user_template = messages[1]["template"]
    calls = []
    t = START
    while len(calls) < n + 40:
        t += rng.expovariate(1.4)
        calls.extend(_agent_episode(rng, t))
    calls.sort(key=lambda c: c[0])
    calls = calls[:n]
    times = _strictly_increasing([c[0] for c in calls])
    records = []
    for i, (ts, (_, tenant, history, output_length)) in enumerate(zip(times, calls)):
        first = dict(history[0])
        first["content"] = user_template.render(task=first["content"])
        records.append({
            "id": f"agent-{i + 1:05d}",
            "timestamp": ts,
            "tenant": tenant,
            "output_length": output_length,
            "messages": [{"role": "system", "content": system}, first] + history[1:],
            "tools": tools,
        })
    return records


# ---------------------------------------------------------------------------------------------
# Multi-turn support chat (with the planted dynamic-prefix defect)
# ---------------------------------------------------------------------------------------------

SUPPORT_TENANTS = (["tallyfold-web", "tallyfold-mobile"], [0.75, 0.25])
INTRODUCTIONS = ["Hi, {name} from {business} here. ", "Hello, I'm {name} ({business}). ",
                 "{name} at {business}: ", "This is {name}, {business}. ", "Hi Juniper, {name} here. "]
TURN_WEIGHTS = [0.15, 0.2, 0.2, 0.18, 0.14, 0.13]


def _support_conversation(rng: random.Random, start: float) -> list[tuple[float, str, list[dict], int]]:
    scenario = SUPPORT.SCENARIOS[rng.choice(sorted(SUPPORT.SCENARIOS))]
    name = rng.choice(SUPPORT.FIRST_NAMES)
    business = rng.choice(SUPPORT.BUSINESSES)
    values = {
        "name": name, "business": business,
        "email": f"{name.lower()}@{re.sub(r'[^a-z]', '', business.lower())[:14]}.example",
        "invoice": f"INV-{rng.randint(1040, 4999)}", "amount": f"{rng.randint(120, 9800):,}",
        "currency": rng.choice(SUPPORT.CURRENCIES), "plan": rng.choice(SUPPORT.PLANS),
        "payref": "pay_" + "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(14)),
        "accounting": rng.choice(SUPPORT.ACCOUNTING), "weekday": rng.choice(SUPPORT.WEEKDAYS),
        "day": rng.choice(["3rd", "8th", "12th", "17th", "21st", "26th"]),
    }
    turns = _weighted(rng, [1, 2, 3, 4, 5, 6], TURN_WEIGHTS)
    tenant = _weighted(rng, *SUPPORT_TENANTS)
    opening = rng.choice(INTRODUCTIONS) + rng.choice(scenario["openings"])
    script = [(opening, scenario["turns"][0][1])] + list(scenario["turns"][1:])
    history: list[tuple[str, str]] = []
    out = []
    t = start
    for k in range(turns):
        user, assistant = script[k]
        user = _fill(rng, user, values)
        assistant = _fill(rng, assistant, values)
        history.append(("user", user))
        out.append((round(t, 3), tenant, list(history), _approx_tokens(assistant) + rng.randint(-8, 8)))
        history.append(("assistant", assistant))
        # reply generation + the customer reading and typing
        t += _approx_tokens(assistant) / 40.0 + rng.uniform(5.0, 25.0)
    return out


def _gen_support_chat(rng: random.Random, n: int, defect: bool = True) -> list[dict]:
    template = load_support_template(defect)
    static_system = None if defect else template.render()
    requests = []
    t = START
    conversation = 0
    # Whole conversations (the last one cut to make exactly n), interleaved by arrival time.
    while len(requests) < n:
        t += rng.expovariate(1.4)
        conversation += 1
        for call in _support_conversation(rng, t)[: n - len(requests)]:
            requests.append(call + (conversation,))
    requests.sort(key=lambda r: (r[0], r[4]))
    times = _strictly_increasing([r[0] for r in requests])
    # sent-at times of every user turn, per conversation, for the fixed variant
    sent_at: dict[int, list[float]] = {}
    records = []
    for i, (ts, (_, tenant, history, output_length, conv)) in enumerate(zip(times, requests)):
        sent_at.setdefault(conv, []).append(ts)
        if defect:
            system = template.render(now=_clock(ts))
        else:
            system = static_system
        messages = [{"role": "system", "content": system}]
        user_index = 0
        for role, content in history:
            if role == "user":
                if not defect:
                    content = f"{content}\n\n(Sent at {_clock(sent_at[conv][user_index])})"
                user_index += 1
            messages.append({"role": role, "content": content})
        records.append({
            "id": f"support-{i + 1:05d}",
            "timestamp": ts,
            "tenant": tenant,
            "output_length": max(8, output_length),
            "conversation_id": f"conv-{conv:04d}",
            "messages": messages,
        })
    return records


# ---------------------------------------------------------------------------------------------
# Single-shot summarisation (no reuse)
# ---------------------------------------------------------------------------------------------

def _document(rng: random.Random, target_chars: int, used_openings: set) -> str:
    domains = sorted(DOCS.DOMAINS)
    while True:
        domain_name = rng.choice(domains)
        domain = DOCS.DOMAINS[domain_name]
        place = rng.choice(DOCS.PLACE_START) + rng.choice(DOCS.PLACE_END)
        month = rng.choice(DOCS.MONTHS)
        year = rng.randint(2019, 2026)
        org = rng.choice(domain["org"]).replace("{place}", place)
        title_org = org[4:] if org.startswith("the ") else org
        title = f"{title_org}: {rng.choice(['annual review', 'progress report', 'field notes', 'summary of findings', 'quarterly update', 'board briefing', 'case study'])}, {month} {year}"
        key = place
        if key not in used_openings:
            used_openings.add(key)
            break
    other_domains = [d for d in domains if d != domain_name]

    def person() -> str:
        return f"{rng.choice(DOCS.GIVEN)} {rng.choice(DOCS.FAMILY)}"

    def fill(pattern: str) -> str:
        def sub(match: re.Match) -> str:
            key = match.group(1)
            if key == "place":
                return place
            if key == "org":
                return org
            if key == "place2":
                return rng.choice(DOCS.PLACE_START) + rng.choice(DOCS.PLACE_END)
            if key == "org2":
                other = DOCS.DOMAINS[rng.choice(other_domains)]
                return rng.choice(other["org"]).replace(
                    "{place}", rng.choice(DOCS.PLACE_START) + rng.choice(DOCS.PLACE_END))
            if key == "person":
                return person()
            if key == "month":
                return rng.choice(DOCS.MONTHS)
            if key == "pct":
                return str(rng.randint(3, 38))
            if key == "num":
                return str(rng.randint(2, 40))
            if key == "money":
                return f"{rng.choice(['€', '£', '$'])}{rng.randint(12, 980) * 1000:,}"
            return rng.choice(domain[key])
        text = pattern
        for _ in range(3):
            text = re.sub(r"\{(\w+)\}", sub, text)
        return text[0].upper() + text[1:]

    paragraphs = [fill(rng.choice(domain["opening"]))]
    length = len(title) + len(paragraphs[0])
    pool = domain["specific"] + DOCS.GENERAL
    deck: list[str] = []
    while length < target_chars:
        sentences = []
        for _ in range(rng.randint(3, 6)):
            if not deck:  # each pattern once before any repeats
                deck = rng.sample(pool, len(pool))
            sentences.append(fill(deck.pop()))
        paragraph = " ".join(sentences)
        paragraphs.append(paragraph)
        length += len(paragraph) + 2
    return title + "\n\n" + "\n\n".join(paragraphs)


def _gen_single_shot(rng: random.Random, n: int) -> list[dict]:
    arrivals = _poisson_arrivals(rng, n, rate=2.4)
    used: set = set()
    records = []
    for i, ts in enumerate(arrivals):
        target = rng.randint(1950, 6000)
        doc = _document(rng, target, used)
        records.append({
            "id": f"single-{i + 1:05d}",
            "timestamp": ts,
            "tenant": _weighted(rng, ["newsdesk", "research"], [0.6, 0.4]),
            "output_length": rng.randint(90, 260),
            "messages": [{"role": "user", "content": f"{SUMMARY_INSTRUCTION}\n\n{doc}"}],
        })
    return records


# ---------------------------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------------------------

def generate(workload: str, n: int | None = None, seed: int = 0, defect: bool = True) -> list[dict]:
    """The records of one workload. ``defect`` matters only for support_chat: False moves the
    timestamp from the start of the system prompt to the end of each user turn."""
    if workload not in DEFAULT_COUNTS:
        raise ValueError(f"unknown workload {workload!r}; expected one of {', '.join(WORKLOADS)}")
    if n is None:
        n = DEFAULT_COUNTS[workload]
    rng = _rng(workload, seed)
    if workload == "rag_tools":
        return _gen_rag_tools(rng, n)
    if workload == "rag_templated":
        return _gen_rag_templated(rng, n)
    if workload == "agent_tools":
        return _gen_agent_tools(rng, n)
    if workload == "support_chat":
        return _gen_support_chat(rng, n, defect=defect)
    return _gen_single_shot(rng, n)


def render_all(seed: int = 0) -> dict[str, str]:
    """Relative output path -> file text, for every committed traffic file."""
    return {rel: dumps(generate(workload, seed=seed, defect=defect))
            for rel, (workload, defect) in OUTPUTS.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=TRAFFIC_DIR, help="output folder (default: templates/traffic)")
    parser.add_argument("--check", action="store_true", help="compare with the files on disk instead of writing")
    args = parser.parse_args(argv)
    stale = []
    for rel, text in render_all().items():
        path = args.out / rel
        data = text.encode("utf-8")
        if args.check:
            if not path.exists() or path.read_bytes() != data:
                stale.append(rel)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        print(f"wrote {path} ({text.count(chr(10))} records, {len(data) / 1e6:.2f} MB)")
    if stale:
        print("stale: " + ", ".join(stale) + " (run python templates/generate_traffic.py)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
