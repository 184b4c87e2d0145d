"""Seventh held-out diagnosis set: real teams' traffic in trades none of the zoo and the earlier sets has.

Written blind to the detector (advisor/diagnose, advisor/prescribe, the zoo, its shapes and its
tests were not read): only DESIGN.md's traffic formats and the rendering the engine does were
used. It reuses the first set's machinery (tests/diagnose/heldout.py: the MARK/UNIT convention
for where requests stop sharing, rendering through the checkout under test, the brute-force
oracle), small message helpers of the third and fourth sets and the sixth set's SKIP marker
and assembly (a request without the defect); the text comes from its own module
(heldout7_text.py): a materials-science literature service, an IDE coding assistant, a roadside
rescue voice line, a handmade-goods marketplace, a container terminal, a law firm's contract
review desk, an RPG studio's narrative engine, an agronomy service, a hotel group, a civil
engineering contractor and a recruitment agency; Czech, Swahili, Ukrainian, Finnish, Dutch and
Brazilian Portuguese text.

46 defect workloads (18 messages, 13 prompt, 15 token-id logs; 7 with 2-3 defects) and 11 clean
controls. Like the sixth set the logs are noisy: 21 to ~120 requests, sessions of 1 to 8 turns,
questions of varied length, requests without the defect (a preprint without a DOI, a guest
shopper, an empty basket, an older app, a workspace without git, a second batch job or product on
the endpoint; the private-use character SKIP marks where the defect would be). System prompts run
from 1k to 3.5k tokens; two defects sit 2.4-2.7k tokens deep.

Shapes. Dynamic values: a DOI behind a 'DOI ' label on the first line of a screening prompt
record; a record's hex tracking id as the very first token of a prompt; a what3words caller
location ~2.4k tokens deep; a terminal-rules look-up whose tool-call arguments carry the hour
(``as_of``, hourly in arrival order); a session JWT inside a pretty-printed JSON tool result; a
player state of composite values with units (level, gold, reputation, time of day) opening a
second system message; stay dates in ten locales' formats; today's spray window (wind km/h,
delta T, rain mm) in the app's canned assistant greeting; a clone URL whose query string holds a
branch and an access token; a runner image digest (9 images in arrival order) ~2.6k tokens deep;
a seller badge as the first user content part; a voice channel (2 settings); an hourly tidal
window in a prompt record; a Swahili daily maize price; a TSV basket of 3-20 rows ahead of
static tools; a matter number and a counterparty (two spans ~1.2k tokens apart); a Ukrainian
queue position; a diff as a second system message between two static ones; an NPC mood (5
settings) as the first text of the system message in growing sessions. Order: retrieved passages
in score order (should be sorted), Python function stubs, TSV rows, relettered sub-clauses
'(a)'..'(j)', a YAML list in a tool result, call transcripts in <call> blocks, a one-line
compact JSON array, a pretty-printed JSON array of objects, two levels of markdown sections,
'- `field`:' bullets (one of two products), Ukrainian Q/A pairs, tools ordered by each engineer's
usage in growing sessions, semicolon CSV rows in Dutch, ruff lint-code bullets. Placement:
retrieved abstracts as the system message with the instructions in a second one, an open file
ahead of a coding prompt, a booking confirmation ahead of the handbook in growing sessions, an
agent's memory of tool outputs ahead of the instructions and static tools, a contract ahead of
the extraction instructions (a second job on the endpoint), a per-shopper coupon tool in the
middle of the tools, an EDIFACT message ahead of the parsing rules, a per-request ``git status``
step ahead of a static ``AGENTS.md`` step. Several defects: a title and abstract first plus
shuffled field bullets; a basket count plus tools in recent-first order; a container's status
JSON first plus an hourly gate queue; shuffled lore blocks plus a server clock in a tool result;
a guest's thread first, shuffled amenities and a room rate (three classes); a branch and commit
on line 1 plus shuffled lint bullets. Controls: a diff and question last, timestamped voice
turns in growing calls, coding agent loops with hashes in results, an A/B of two NPC prompts
sharing an opening, a label limit that changes once mid-log, retrieved passages already sorted
and last, two extraction jobs on one endpoint, multilingual guest sessions, a storefront locale
(12 settings) right after static tools, branching dialogue choices, the day's tide table (2
days) at the end of the system prompt.

Truth: the oracle's hit rate on the traffic after the ideal fix written here, by the earlier
sets' conventions with one change: a value with many settings goes to the end of the last user
turn (for a prompt record: after the question or document, before the answer cue) or right after
the content every request shares, whichever the oracle measures better (the earlier sets always
took the first; here nine values measure 0.1-1.6 points better right after the shared content,
where their labels, URL heads or repeated settings are shared, and the tests check each choice);
a value or block with
only a few settings goes right after the content every request shares (with ``tools``, which the
layout renders at the top of the first user turn, that is the start of the user text); a
per-session value in growing sessions goes at the end of the system prompt; order fixes use one
canonical order (retrieved passages: ascending id); placement fixes put the shared content first.
A request without the defect is its own fix. An ``expect`` entry "a|b" accepts either class. The
tests measure the other place for each few-setting value and check that the truth's is better,
and measure what tempts in the controls (each under 1%).
"""

from __future__ import annotations

import datetime as dt
import json
import random
from typing import Any, Callable, Sequence

from tests.diagnose.heldout import (
    BASE_TIME, MARK, UNIT, Engine, Pair, Workload, assistant, chat, hexid, prompt, registering, spread, sys_msg,
    untimed, user,
)
from tests.diagnose.heldout3 import common_mark, conversations, first_tool_key, jwt, parts, tool_result
from tests.diagnose.heldout4 import mark_unit, shuffled, tool_call
from tests.diagnose.heldout6 import SKIP, lacks, marked, materialize, unmark
from tests.diagnose.heldout7_text import (
    CZECH, CZECH_ASKS, DUTCH, DUTCH_ASKS, FINNISH, ORGS, PORTUGUESE, PORTUGUESE_ASKS, SWAHILI, SWAHILI_ASKS,
    UKRAINIAN, UKRAINIAN_ASKS, Scribe, compact, pretty,
)

__all__ = ["REGISTRY", "SKIP", "build_pairs", "build_workloads", "first_tool_key", "marked", "unmark",
           "workload_names"]

Builder = Callable[[random.Random, Scribe], list[Pair]]
REGISTRY: list[tuple[str, str, tuple[str, ...], str, Builder, str]] = []
ORG_OF: dict[str, int] = {}

_register = registering(REGISTRY)

LIT, CODE, VOICE, SHOP, PORT, LAW, GAME, AGRI, HOTEL, BUILD, HIRE = range(11)


def workload(name: str, kind: str, expect: tuple[str, ...], shape: str, org: int, notes: str = "") -> Callable[[Any], Any]:
    """Registers like the earlier sets, and remembers which organisation's text it uses."""
    ORG_OF[name] = org
    return _register(name, kind, expect, shape, notes)


def build_pairs(name: str, seed: int, engine: Engine) -> list[Pair]:
    """One workload's (original with markers, fixed) records, before rendering."""
    fn = next(r[4] for r in REGISTRY if r[0] == name)
    # Each workload draws from its own name and the seed only: adding one changes no other.
    rng = random.Random(f"{seed}/h7/{name}")
    scribe = Scribe(random.Random(f"{seed}/h7/{name}/text"), ORGS[ORG_OF[name]], first_tool_key=first_tool_key(engine))
    return fn(rng, scribe)


def build_workloads(seed: int = 12, engine: Engine | None = None, only: Sequence[str] | None = None) -> list[Workload]:
    """Every workload of the seventh held-out set, deterministic for ``seed``."""
    engine = engine or Engine()
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


def _same(records: list[dict[str, Any]]) -> list[Pair]:
    return [(r, r) for r in records]


def hours_of(rng: random.Random, n: int, first: int, span: int) -> list[float]:
    """Sorted arrival times within one UTC day, from ``first`` o'clock over ``span`` hours."""
    return sorted(BASE_TIME + first * 3600 + rng.uniform(0, span * 3600 - 1) for _ in range(n))


def hour(ts: float) -> int:
    return int((ts - BASE_TIME) // 3600)


def day(ts: float) -> int:
    return int((ts - BASE_TIME) // 86400)


def iso(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts, tz=dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def sessions(rng: random.Random, lengths: Sequence[int]) -> list[tuple[int, int]]:
    return conversations(rng, lengths)


def history(turns: Sequence[tuple[str, str]]) -> list[dict[str, Any]]:
    return [m for q, a in turns for m in (user(q), assistant(a))]


def marked_first_tool(d: Scribe, tools: list[dict[str, Any]], others: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """``tools`` with UNIT at the first tool and MARK where its first rendered key (``name`` or
    ``description``, whichever the layout writes first) stops agreeing with the other candidates
    for the first place."""
    key = d.first_tool_key
    out = json.loads(json.dumps(tools))
    first = out[0]["function"][key]
    rivals = [o["function"][key] for o in others if o["function"][key] != first]
    out[0]["function"][key] = mark_unit(first, rivals).replace(UNIT, "") if rivals else MARK + first
    out[0]["type"] = UNIT + out[0]["type"]
    return out


def first_marked(items: Sequence[str], order: Sequence[str]) -> list[str]:
    """``order`` with its first item marked against the other items (UNIT at its start, MARK where it
    stops agreeing with them)."""
    out = list(order)
    out[0] = mark_unit(out[0], [x for x in items if x != out[0]])
    return out


# ---------------------------------------------------------------- domain data

_MATERIALS = ["formamidinium lead iodide", "Li-rich NMC cathodes", "MXene films", "sodium-ion hard carbon",
              "tin perovskites", "solid polymer electrolytes", "high-entropy alloys", "metal-organic frameworks",
              "silicon anodes", "zinc-air cathodes", "proton-conducting ceramics", "organic photovoltaic blends"]
_PROPS = ["moisture stability", "cycle life", "ionic conductivity", "thermal runaway onset", "defect density",
          "interfacial resistance", "grain boundary diffusion", "hysteresis", "capacity fade", "photoluminescence"]
_METHODS = ["in situ XRD", "impedance spectroscopy", "DFT calculations", "operando Raman", "cryo-EM",
            "machine-learned potentials", "accelerated ageing", "neutron reflectometry", "TOF-SIMS depth profiling"]
_VERBS = ["improves", "limits", "governs", "suppresses", "doubles", "halves", "stabilises", "degrades"]


def paper(rng: random.Random) -> tuple[str, str]:
    """A title and a 3-6 sentence abstract."""
    m, p, me = rng.choice(_MATERIALS), rng.choice(_PROPS), rng.choice(_METHODS)
    title = f"{p[0].upper() + p[1:]} of {m} probed by {me}"
    sentences = [f"We study the {p} of {m} using {me}.",
                 f"A {rng.choice(['2', '5', '10', '20'])} nm {rng.choice(['alumina', 'carbon', 'fluoride', 'oxide'])} "
                 f"coating {rng.choice(_VERBS)} the {rng.choice(_PROPS)} over {rng.randint(50, 2000)} cycles.",
                 f"Samples annealed at {rng.randint(80, 900)} °C show {rng.randint(5, 95)}% lower {rng.choice(_PROPS)}.",
                 f"{rng.choice(_METHODS).capitalize()} indicates that {rng.choice(_PROPS)} {rng.choice(_VERBS)} "
                 f"{rng.choice(_PROPS)}.",
                 f"The results suggest a route to {rng.choice(['safer', 'cheaper', 'longer-lived', 'denser'])} "
                 f"{rng.choice(['cells', 'modules', 'devices', 'coatings'])}.",
                 f"Data and code are available at {rng.choice(['Zenodo', 'Figshare', 'the Materials Cloud'])}."]
    k = rng.randint(3, 6)
    return title, " ".join(sentences[:1] + rng.sample(sentences[1:], k - 1))


def doi(rng: random.Random) -> str:
    return rng.choice([
        lambda: f"10.1021/acs.chemmater.{rng.randint(5, 6)}c{rng.randint(10000, 99999):05d}",
        lambda: f"10.1016/j.actamat.2026.{rng.randint(100000, 129999)}",
        lambda: f"10.1039/D6EE{rng.randint(10000, 99999)}{rng.choice('ABCDEFGHJK')}",
        lambda: f"10.1038/s41560-026-{rng.randint(1000, 2999):05d}-{rng.randint(0, 9)}",
        lambda: f"10.1002/aenm.2026{rng.randint(10000, 99999)}",
        lambda: f"10.1103/PhysRevMaterials.{rng.randint(8, 10)}.{rng.randint(10000, 99999):06d}",
    ])()


_W3W = ["filled", "count", "soap", "index", "home", "raft", "lamp", "trial", "zebra", "quiet", "mango", "ladder",
        "crisp", "otter", "vivid", "plank", "brisk", "sauce", "tunnel", "petal", "gravel", "hover", "snack", "woven",
        "cabin", "ember", "fjord", "glide", "harp", "jolly", "kiosk", "lunar", "mossy", "nudge", "orbit", "pouch"]
_ROADS = ["the A38 near Saltash", "the M5 northbound past junction 21", "the B3254 outside Launceston",
          "the A30 at Temple", "the M6 toll southbound", "a lay-by on the A66", "the A1(M) near Scotch Corner",
          "the ring road by the retail park", "a supermarket car park in Truro", "the M4 before the Severn bridge"]
_FAULTS = ["the battery light came on and then it just died", "there's steam coming out from under the bonnet",
           "I put petrol in the diesel", "I've got a flat and the spare's flat too", "it won't go into gear",
           "the key won't turn in the ignition", "the charge ran out quicker than the app said",
           "a warning light is flashing and it's lost power"]
_FILLERS = ["um", "uh", "so", "yeah", "like", "erm", "right"]


def asr(rng: random.Random, start: float = 0.0) -> str:
    """An ASR transcript of a caller, with segment times and the recogniser's fillers."""
    segs = [f"hi {rng.choice(_FILLERS)} I'm on {rng.choice(_ROADS)}",
            f"{rng.choice(_FILLERS)} {rng.choice(_FAULTS)}",
            f"I've got {rng.choice(['my two kids', 'my elderly mum', 'the dog', 'nobody else', 'a colleague'])} "
            f"with me", f"{rng.choice(_FILLERS)} the car's a {rng.choice(['silver', 'blue', 'black', 'red', 'white'])} "
            f"{rng.choice(['Corsa', 'Golf', 'Qashqai', 'Model 3', 'Fiesta', 'Octavia', 'Leaf'])}",
            f"membership is {rng.choice(['on my phone', 'in my wife’s name', 'the family one', 'new this year'])}"]
    k = rng.randint(2, 5)
    t = start
    out = []
    for s in segs[:k]:
        out.append(f"[{int(t // 60):02d}:{t % 60:04.1f}] {s}")
        t += rng.uniform(1.5, 6.0)
    return "\n".join(out)


def iso6346(rng: random.Random) -> str:
    """A container number with its ISO 6346 check digit."""
    owner = rng.choice(["MSCU", "MAEU", "CMAU", "HLXU", "TGHU", "OOLU", "TCLU", "SEGU"])
    serial = f"{rng.randint(0, 999999):06d}"
    values = {c: v for c, v in zip("ABCDEFGHIJKLMNOPQRSTUVWXYZ", [10, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 23, 24,
                                                                 25, 26, 27, 28, 29, 30, 31, 32, 34, 35, 36, 37, 38])}
    total = sum((values[c] if c.isalpha() else int(c)) * 2 ** k for k, c in enumerate(owner + serial))
    return f"{owner}{serial}{total % 11 % 10}"


_SENDERS = ["HAULCO", "FENLINK", "ROADSTAR", "QUAYTRUX", "BRITRAIL", "NORSEFWD", "SEAHAWKLOG", "TRANSMODAL"]


def edifact(rng: random.Random, ts: float) -> str:
    """A CODECO gate-move message, one segment a line."""
    t = dt.datetime.fromtimestamp(ts, tz=dt.timezone.utc)
    ref = rng.randint(10000, 99999)
    lines = [f"UNB+UNOC:3+{rng.choice(_SENDERS)}:ZZZ+GANNETBAY:ZZZ+{t:%y%m%d}:{t:%H%M}+{ref}'",
             f"UNH+{ref}+CODECO:D:95B:UN:ITG14'", f"BGM+34+GB{rng.randint(10**6, 10**7)}+9'",
             f"TDT+1++3++{rng.choice(_SENDERS)}:172:20'", f"NAD+CF+{rng.choice(['MSC', 'MAE', 'CMA', 'HLC'])}:160:20'"]
    for _ in range(rng.randint(2, 6)):
        lines += [f"EQD+CN+{iso6346(rng)}+{rng.choice(['45G1', '22G1', '45R1', '42U1'])}:102:5++{rng.choice([2, 3])}+"
                  f"{rng.choice([4, 5])}'",
                  f"DTM+7:{t:%Y%m%d}{rng.randint(0, 23):02d}{rng.randint(0, 59):02d}:203'",
                  f"MEA+AAE+VGM+KGM:{rng.randint(3800, 32000)}'",
                  f"SEL+{rng.choice(['ML', 'EU', 'CN'])}{rng.randint(100000, 999999)}+CA'"]
    lines += [f"CNT+16:{rng.randint(1, 6)}'", f"UNT+{len(lines) + 1}+{ref}'", f"UNZ+1+{ref}'"]
    return "\n".join(lines)


_COMPANIES = ["Brackenridge Foods", "Calloway Systems", "Dunmore Logistics", "Elsworth Medical", "Farrier Analytics",
              "Glenholm Software", "Hartwell Packaging", "Ingleby Energy", "Juno Components", "Kestwick Retail",
              "Loxley Pharma", "Marlow Aerospace", "Northfield Textiles", "Ortona Labs", "Pellham Capital"]
_CLAUSE_HEADS = ["Change of control", "Assignment", "Exclusivity", "Limitation of liability", "Termination",
                 "Governing law", "Confidentiality", "Data protection", "Non-solicitation", "Audit rights"]


_WHO = ["Neither party", "The Supplier", "The Customer", "Each party"]
_ACTS = ["assign", "terminate", "disclose", "subcontract", "vary"]
_OBJECTS = ["this Agreement", "any of its rights", "the Services", "Confidential Information"]
_CONDITIONS = ["without prior written consent", "on 90 days notice", "following a Change of Control",
               "save as required by law"]
_CAPS = ["the Charges paid in the preceding 12 months", "GBP 2,000,000", "150% of the annual Charges", "GBP 500,000"]
_TERMS = ["Change of Control", "Affiliate", "Group Company", "Insolvency Event"]
_WHERE = ["section 1124 of the Corporation Tax Act 2010", "clause 1.1", "Schedule 3"]
_OFFICERS = ["General Counsel", "Company Secretary", "Chief Financial Officer"]


def contract(rng: random.Random) -> str:
    """A contract excerpt of a few numbered clauses (~300-900 tokens)."""
    a, b = rng.sample(_COMPANIES, 2)
    d = rng.randint(1, 28)
    out = [f"THIS AGREEMENT is dated {d} {rng.choice(['March', 'June', 'September', 'November'])} "
           f"{rng.randint(2019, 2026)} and made between {a} Limited (company number {rng.randint(10**7, 10**8 - 1)}) "
           f"and {b} Limited (company number {rng.randint(10**7, 10**8 - 1)})."]
    c = rng.choice
    for k, head in enumerate(rng.sample(_CLAUSE_HEADS, rng.randint(2, 9)), start=1):
        body = [f"{c(_WHO)} {c(['may not', 'shall', 'may', 'shall not'])} {c(_ACTS)} {c(_OBJECTS)} {c(_CONDITIONS)}.",
                f"The aggregate liability of {c(['either party', 'the Supplier'])} shall not exceed {c(_CAPS)}.",
                f"For the purposes of this clause, {c(_TERMS)} has the meaning given in {c(_WHERE)}.",
                f"Any notice under this clause shall be given in writing to the {c(_OFFICERS)} of the other party at "
                f"its registered office{c(['', ' with a copy by email', ' by recorded delivery'])}.",
                f"This clause {k} shall survive {c(['termination or expiry of this Agreement', 'for three years', 'completion'])}."]
        body = rng.sample(body, rng.randint(1, 5))
        out.append(f"{k}. {head.upper()}\n" + "\n".join(f"{k}.{j} {b}" for j, b in enumerate(body, start=1)))
    return "\n\n".join(out)


_IDENTS = ["ledger", "payout", "refund", "invoice", "settlement", "merchant", "chargeback", "fx_rate", "batch", "webhook"]


def code_file(rng: random.Random) -> tuple[str, str]:
    """A path and a Python module of 3-8 small functions."""
    pkg = rng.choice(["payments", "ledger", "risk", "payouts", "billing"])
    mod = rng.choice(_IDENTS)
    path = f"services/{pkg}/{mod}_{rng.choice(['service', 'repo', 'handlers', 'utils', 'models'])}.py"
    funcs = []
    for _ in range(rng.randint(3, 8)):
        a, b = rng.sample(_IDENTS, 2)
        funcs.append(f"def {rng.choice(['get', 'apply', 'build', 'validate', 'sync', 'retry'])}_{a}_{b}("
                     f"{a}_id: str, *, limit: int = {rng.choice([10, 50, 100, 500])}) -> list[dict]:\n"
                     f"    rows = db.fetch(\"{a}s\", {a}_id=({a}_id), limit=limit)\n"
                     f"    return [r for r in rows if r[\"{b}_state\"] != \"{rng.choice(['void', 'failed', 'pending'])}\"]\n")
    return path, "import db\n\n\n" + "\n\n".join(funcs)


def unified_diff(rng: random.Random) -> str:
    path, body = code_file(rng)
    lines = body.split("\n")
    out = [f"diff --git a/{path} b/{path}", f"index {hexid(rng, 7)}..{hexid(rng, 7)} 100644", f"--- a/{path}",
           f"+++ b/{path}"]
    for _ in range(rng.randint(1, 4)):
        at = rng.randint(1, max(1, len(lines) - 4))
        chunk = lines[at: at + rng.randint(2, 6)]
        out.append(f"@@ -{at},{len(chunk)} +{at},{len(chunk) + 1} @@")
        out += [" " + c for c in chunk[:-1]]
        out += ["-" + chunk[-1], "+" + chunk[-1].replace("limit", "max_rows"), f"+    log.debug(\"{rng.choice(_IDENTS)}\")"]
    return "\n".join(out)


_PLAYER = ["Have you seen anyone suspicious on the coast road?", "What will you give me for these wolf pelts?",
           "I'm looking for the lighthouse keeper's daughter.", "Tell me about the Ashen Court.",
           "Is it safe to travel at night?", "Do you know where I can find iron ore?", "Why is the harbour closed?",
           "I found this locket in the ruins. Is it yours?", "Can you teach me to sail?", "Who runs this town?",
           "What happened to the old mill?", "Got any work for a sellsword?"]


def player_line(rng: random.Random) -> str:
    return rng.choice(_PLAYER) + rng.choice(["", " *leans on the counter*", " *glances around*", " *smiles*",
                                             " *drops a coin*", ""]) + f" [t{rng.randint(1000, 99999)}]"


_SKILLS = ["Kotlin", "Go", "PostgreSQL", "Kubernetes", "IFRS 9", "Solvency II", "Terraform", "React", "Power BI",
           "Python", "SAP FI", "Rust", "Kafka", "CIMA", "ACCA"]


def cv_text(rng: random.Random, who: str) -> str:
    jobs = []
    for _ in range(rng.randint(2, 5)):
        jobs.append(f"{rng.randint(2012, 2025)}-{rng.choice(['present', str(rng.randint(2016, 2026))])}: "
                    f"{rng.choice(['Senior', 'Lead', 'Staff', 'Principal', ''])} "
                    f"{rng.choice(['Backend Engineer', 'Financial Controller', 'Data Engineer', 'FP&A Analyst', 'SRE'])}"
                    f" at {rng.choice(_COMPANIES)}; {', '.join(rng.sample(_SKILLS, 3))}.")
    return (f"{who}\n{rng.choice(['Leeds', 'Bristol', 'Manchester', 'remote (Lisbon)', 'Glasgow'])} | notice "
            f"{rng.choice(['1 month', '3 months', 'immediate', '6 weeks'])} | expects "
            f"£{rng.randint(45, 140)}k\n\n" + "\n".join(jobs))


# ---------------------------------------------------------------- dynamic values


@workload("doi-label-first-line-screening-prompt", "prompt", ("dynamic",),
          "a screening job's prompt record opening with the paper's DOI behind a 'DOI ' label (six publishers' "
          "DOI shapes, unique), ahead of ~1k tokens of screening instructions; the title and abstract and the "
          "answer cue come last; ~12% are preprints without a DOI and open with the instructions", LIT)
def _doi(rng: random.Random, d: Scribe) -> list[Pair]:
    body = "\n\n".join([d.preface(), d.guide(9)])
    cue = "Screening decision (JSON: include, reason, study_design):"
    n = rng.randint(80, 105)
    dois = [doi(rng) for _ in range(n)]
    shown = common_mark([f"DOI {x}" for x in dois])
    out = []
    for i in range(n):
        title, abstract = paper(rng)
        doc = f"Title: {title}\nAbstract: {abstract}"
        if lacks(rng, 0.12):
            orig = prompt(i, f"{SKIP}{body}\n\n{doc}\n\n{cue}")
            fixed = prompt(i, f"{body}\n\n{doc}\n\n{cue}")
        else:
            orig = prompt(i, f"{shown[i]}\n\n{body}\n\n{doc}\n\n{cue}")
            fixed = prompt(i, f"{body}\n\nDOI {dois[i]}\n{doc}\n\n{cue}")
        out.append((orig, fixed))
    return out


@workload("tracking-hex-first-token-ids", "input_ids", ("dynamic",),
          "a batch screening job whose prompt opens with the applicant's tracking id as bare hex ('9f1c0e7a2b4d | "
          "screen'), the very first token after BOS, ahead of a 1.1k-token screening rubric; the CV comes last; "
          "as token ids", HIRE)
def _tracking(rng: random.Random, d: Scribe) -> list[Pair]:
    rubric = "\n\n".join([d.preface(), "Ohjeet suomenkielisille hakemuksille:\n" + "\n".join(FINNISH), d.guide(9)])
    out = []
    for i in range(rng.randint(22, 32)):
        tid = hexid(rng, 12)
        cv = cv_text(rng, d.person())
        orig = prompt(i, f"{MARK}{tid} | screen\n\n{rubric}\n\nCV:\n{cv}\n\nScreening note:")
        fixed = prompt(i, f"{rubric}\n\nCV:\n{cv}\n{tid} | screen\n\nScreening note:")
        out.append((orig, fixed))
    return out


@workload("what3words-deep-voice-ids", "input_ids", ("dynamic",),
          "the caller's what3words location ('///gravel.otter.lamp', unique) ~2.4k tokens into a 2.9k-token "
          "voice-agent system prompt, ~450 static tokens after it; the user turn is the ASR transcript with "
          "segment times; as token ids", VOICE)
def _w3w(rng: random.Random, d: Scribe) -> list[Pair]:
    head, tail = "\n\n".join([d.preface(), d.guide(21)]), d.guide(4, start=21)
    out = []
    for i in range(rng.randint(60, 80)):
        words = ".".join(rng.sample(_W3W, 3))
        near = rng.choice(_ROADS)
        t = asr(rng)
        line = f"Caller location (from the app): ///{words}, near {near}."
        orig = chat(i, [sys_msg(f"{head}\n\nCaller location (from the app): ///{MARK}{words}, near {near}.\n\n{tail}"),
                        user(t)])
        fixed = chat(i, [sys_msg(f"{head}\n\n{tail}"), user(f"{t}\n\n{line}")])
        out.append((orig, fixed))
    return out


PORT_TOOLS = ["get_terminal_rules", "get_container_status", "book_truck_slot", "release_container"]


def terminal_rules(d: Scribe) -> str:
    local = random.Random(f"{d.name}/rules")
    rules = {"terminal": "GBT-2", "gate_hours": "05:00-23:00", "reefer_cutoff_h": 6,
             "rules": [{"code": f"GR-{k:02d}", "text": d.fact()} for k in range(1, 13)],
             "max_gross_kg": {"20ft": 30480, "40ft": 32500}, "late_gate_fee_gbp": local.choice([45, 60, 75])}
    return pretty(rules)


@workload("rules-as-of-hour-in-tool-call-args", "messages", ("dynamic",),
          "an agent's fixed first step (get_terminal_rules) whose tool-call arguments carry the hour it was "
          "called for ('as_of': '2026-11-30T14:00:00Z', 10 hours in arrival order), ahead of a ~650-token static "
          "rules result; four tools; the haulier's question comes last", PORT,
          notes="10 settings in arrival order: the fix drops as_of from the call and states it at the start of the "
          "last user turn, right after the shared history")
def _as_of(rng: random.Random, d: Scribe) -> list[Pair]:
    system = "\n\n".join([d.preface(), d.guide(3)])
    tools = [d.tool(n) for n in PORT_TOOLS]
    result = terminal_rules(d)
    out = []
    for i, ts in enumerate(hours_of(rng, rng.randint(80, 100), 6, 10)):
        at = f"{iso(ts)[:11]}{hour(ts):02d}:00:00Z"
        q = d.question()
        head = [sys_msg(system), user("Load the gate rules for GBT-2 before we plan the day.")]
        call = tool_call("call_r1", "get_terminal_rules", {"terminal": "GBT-2", "as_of": f"{at[:11]}{MARK}{at[11:]}"})
        orig = chat(i, head + [call, tool_result("call_r1", result), user(q)], tools, ts)
        plain = tool_call("call_r1", "get_terminal_rules", {"terminal": "GBT-2"})
        fixed = chat(i, head + [plain, tool_result("call_r1", result), user(f"Rules as of {at}.\n\n{q}")], tools, ts)
        out.append((orig, fixed))
    return out


SHOP_TOOLS = ["get_store_config", "get_order", "refund_item", "track_parcel", "message_seller"]


def store_config(d: Scribe, session: dict[str, Any] | None) -> str:
    cfg: dict[str, Any] = {"storefront": "tl-uk"}
    if session is not None:
        cfg["session"] = session
    cfg["currency"] = "GBP"
    cfg["policies"] = {k: d.doc("policy", n, 3) for n, k in enumerate(
        ["returns", "custom_orders", "late_dispatch", "damaged_items", "coupons", "vat_invoices", "reviews"])}
    cfg["carriers"] = ["Royal Mail", "Evri", "DPD", "Parcelforce"]
    return pretty(cfg)


@workload("session-jwt-in-json-tool-result", "messages", ("dynamic",),
          "a shopping assistant whose client preloads get_store_config; the pretty-printed JSON result carries the "
          "session object (a JWT and, ~80 tokens later, a CSRF token; unique) ahead of ~550 tokens of static "
          "store policies; ~15% of requests come from the older app, whose result has no session object", SHOP,
          notes="one value, the session object, though the JWT's payload ends in a run of constant bytes; the fix "
          "moves it to the start of the last user turn (~1 point better than at the end: the label is shared)")
def _session_jwt(rng: random.Random, d: Scribe) -> list[Pair]:
    system = "\n\n".join([d.preface(), d.guide(4)])
    tools = [d.tool(n) for n in SHOP_TOOLS]
    n = rng.randint(75, 95)
    tokens = [jwt(rng, f"shopper-{rng.randint(10**5, 10**6)}") for _ in range(n)]
    shown = common_mark(tokens)
    out = []
    for i in range(n):
        q = d.question()
        head = [sys_msg(system), user("(shopper opened the help panel)"),
                tool_call("call_c1", "get_store_config", {"storefront": "tl-uk"})]
        if lacks(rng, 0.15):
            res = store_config(d, None)
            orig = chat(i, head + [tool_result("call_c1", res), user(SKIP + q)], tools)
            fixed = chat(i, head + [tool_result("call_c1", res), user(q)], tools)
        else:
            csrf = hexid(rng, 32)
            session = {"jwt": shown[i], "csrf": csrf}
            orig = chat(i, head + [tool_result("call_c1", store_config(d, session)), user(q)], tools)
            fixed = chat(i, head + [tool_result("call_c1", store_config(d, None)),
                                    user(f"(session: jwt {tokens[i]}, csrf {csrf})\n\n{q}")], tools)
        out.append((orig, fixed))
    return out


_CLASSES = ["ranger", "duelist", "tidecaller", "alchemist", "warden", "bard"]
_FACTIONS = ["Ironwood", "Saltborn", "Ashen Court", "Lantern Guild"]
_TIMES = ["dawn", "midday", "dusk", "midnight"]
_WEATHER = ["clear", "light rain", "sea fog", "storm", "snow"]


def player_state(rng: random.Random) -> str:
    return (f"level {rng.randint(1, 40)} {rng.choice(_CLASSES)}, {rng.randint(0, 9000):,} gold, "
            f"{rng.choice(_FACTIONS)} reputation {rng.randint(-50, 100):+d}, {rng.choice(_TIMES)}, {rng.choice(_WEATHER)}")


def npc_persona(d: Scribe, who: str = "Maren Holt, the harbourmaster of Saltreach") -> str:
    return (f"You are {who}. Speak in character at all times, in short lines of dialogue. "
            f"You know only what your character would know.")


@workload("player-state-second-system", "messages", ("dynamic",),
          "an NPC dialogue request whose second system message opens with the player's state as composite values "
          "with units ('Player state: level 14 ranger, 2,315 gold, Ironwood reputation +37, dusk, sea fog'), "
          "ahead of ~600 static tokens of the NPC's lore; the first system message holds ~600 tokens of engine "
          "rules", GAME)
def _player_state(rng: random.Random, d: Scribe) -> list[Pair]:
    rules = "\n\n".join([d.preface(), d.guide(5)])
    lore = "\n\n".join([npc_persona(d), d.guide(5, start=5)])
    out = []
    for i in range(rng.randint(85, 110)):
        state = player_state(rng)
        line = player_line(rng)
        orig = chat(i, [sys_msg(rules), sys_msg(f"Player state: level {MARK}{state[6:]}.\n\n{lore}"), user(line)])
        fixed = chat(i, [sys_msg(rules), sys_msg(lore), user(f"{line}\n\n(Player state: {state}.)")])
        out.append((orig, fixed))
    return out


def stay_dates(rng: random.Random) -> str:
    """Arrival and departure in one of ten locales' own formats."""
    a = rng.randint(1, 26)
    b = a + rng.randint(1, 5)
    wd = lambda x: x % 7  # noqa: E731  weekday index (Monday 0) of x December 2026: the 1st is a Tuesday
    de = ["Mo.", "Di.", "Mi.", "Do.", "Fr.", "Sa.", "So."]
    es = ["lunes", "martes", "miércoles", "jueves", "viernes", "sábado", "domingo"]
    fr = ["lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche"]
    cs = ["pondělí", "úterý", "středa", "čtvrtek", "pátek", "sobota", "neděle"]
    pt = ["segunda-feira", "terça-feira", "quarta-feira", "quinta-feira", "sexta-feira", "sábado", "domingo"]
    fi = ["ma", "ti", "ke", "to", "pe", "la", "su"]
    return rng.choice([
        lambda: f"Anreise {de[wd(a)]}, {a}. Dez. 2026 – Abreise {de[wd(b)]}, {b}. Dez. 2026",
        lambda: f"llegada el {es[wd(a)]}, {a} de diciembre de 2026; salida el {es[wd(b)]}, {b} de diciembre",
        lambda: f"arrivée le {fr[wd(a)]} {a} décembre 2026, départ le {fr[wd(b)]} {b} décembre 2026",
        lambda: f"2026年12月{a}日 チェックイン、12月{b}日 チェックアウト",
        lambda: f"check-in {pt[wd(a)]}, {a:02d}/12/2026; check-out {b:02d}/12/2026",
        lambda: f"aankomst {a} dec. 2026, vertrek {b} dec. 2026",
        lambda: f"arriving 12/{a:02d}/2026, departing 12/{b:02d}/2026",
        lambda: f"arriving {a} December 2026, leaving {b} December 2026",
        lambda: f"příjezd {cs[wd(a)]} {a}. 12. 2026, odjezd {b}. 12. 2026",
        lambda: f"saapuu {fi[wd(a)]} {a}.12.2026, lähtee {b}.12.2026",
    ])()


@workload("stay-dates-ten-locales-prompt", "prompt", ("dynamic",),
          "the guest's stay dates written in the guest's locale (ten formats: 'Anreise Mi., 2. Dez. 2026', "
          "'2026年12月2日', '12/02/2026', ...) ~280 tokens into a 1.1k-token concierge prompt record; the guest's "
          "message comes last", HOTEL)
def _stay_dates(rng: random.Random, d: Scribe) -> list[Pair]:
    head, tail = "\n\n".join([d.preface(), d.guide(2)]), d.guide(7, start=2)
    out = []
    for i in range(rng.randint(70, 90)):
        stay = stay_dates(rng)
        q = d.question()
        orig = prompt(i, f"{head}\n\nStay:{MARK} {stay}\n\n{tail}\n\nGuest: {q}\nAgent:")
        fixed = prompt(i, f"{head}\n\n{tail}\n\nGuest: {q}\nStay: {stay}\nAgent:")
        out.append((orig, fixed))
    return out


_FIELDS = ["Top Barn", "Long Acre", "Church Piece", "Hanger Field", "Mill Meadow", "Far Ley", "Pond Close",
           "Gorse Hill", "Beck Side", "Windmill", "Ten Acres", "Old Orchard", "Stony Bank", "Keeper's", "Little Ox"]


def spray_window(rng: random.Random, field: str) -> str:
    h = rng.randint(4, 9)
    return (f"{field}: {h:02d}:00-{h + rng.randint(2, 5):02d}:30, wind {rng.randint(3, 14)} km/h "
            f"{rng.choice(['N', 'NE', 'E', 'SE', 'S', 'SW', 'W', 'NW'])}, delta T {rng.randint(2, 9)}.{rng.randint(0, 9)} °C, "
            f"rain {rng.choice(['0', '0.2', '1.5', '4'])} mm by evening")


@workload("spray-window-in-canned-assistant-greeting", "messages", ("dynamic",),
          "the app's canned opening: an assistant greeting stating today's spray window at the grower's field "
          "(wind km/h, delta T °C, rain mm; 45 fields) followed by a canned 'what can you do' pair (~400 static "
          "tokens); the grower's question comes last", AGRI,
          notes="the fix states the window at the start of the last user turn, after the shared canned pair (~1.6 "
          "points better than after the question: the label and repeated windows are shared)")
def _spray(rng: random.Random, d: Scribe) -> list[Pair]:
    system = "\n\n".join([d.preface(), d.guide(5)])
    help_q = "What can you help me with?"
    help_a = "I can help with the following.\n\n" + d.guide(4, per=5, start=5)
    windows = [spray_window(rng, f) for f in _FIELDS for _ in range(3)]
    out = []
    for i in range(rng.randint(70, 95)):
        w = rng.choice(windows)
        q = d.question()
        greet = "Good morning! I'm your Furrowfield assistant. Today's spray window at"
        orig = chat(i, [sys_msg(system), assistant(f"{greet}{MARK} {w}."), user(help_q), assistant(help_a), user(q)])
        fixed = chat(i, [sys_msg(system), assistant("Good morning! I'm your Furrowfield assistant."), user(help_q),
                         assistant(help_a), user(f"(Today's spray window at {w}.)\n\n{q}")])
        out.append((orig, fixed))
    return out


CODE_TOOLS = ["read_file", "search_code", "run_tests", "apply_patch", "git_status"]
_PROJECTS = ["PAY", "LEDG", "RISK", "PO", "BILL"]


@workload("clone-url-branch-token-query", "messages", ("dynamic",),
          "the workspace's clone URL with a query string ('...monorepo.git?ref=feature%2FPAY-2231-retry&token="
          "qs_pat_<32 hex>', unique) ~600 tokens into the coding assistant's system prompt; five static tools "
          "(~900 tokens) render after it", CODE,
          notes="the fix states the URL at the start of the user turn, right after the shared tools (~1.3 points "
          "better than after the question: the URL's head and the branch, 40 settings, are shared)")
def _clone_url(rng: random.Random, d: Scribe) -> list[Pair]:
    head, tail = "\n\n".join([d.preface(), d.guide(5)]), d.guide(2, start=5)
    tools = [d.tool(n) for n in CODE_TOOLS]
    branches = [f"{rng.choice(_PROJECTS)}-{rng.randint(100, 4999)}-{rng.choice(_IDENTS).replace('_', '-')}" for _ in range(40)]
    out = []
    for i in range(rng.randint(70, 90)):
        br = rng.choice(branches)
        tok = f"qs_pat_{hexid(rng, 32)}"
        base = "https://git.quillstack.dev/payments/monorepo.git?ref=feature%2F"
        q = d.question()
        # 'F' joins the branch's first word: the requests part at it.
        orig = chat(i, [sys_msg(f"{head}\n\nRemote: {base[:-1]}{MARK}F{br}&token={tok}\n\n{tail}"), user(q)], tools)
        fixed = chat(i, [sys_msg(f"{head}\n\n{tail}"), user(f"Remote: {base}{br}&token={tok}\n\n{q}")], tools)
        out.append((orig, fixed))
    return out


@workload("runner-image-digest-deep-ids", "input_ids", ("dynamic",),
          "the CI runner image pinned by digest ('registry.quillstack.dev/ci/runner@sha256:<64 hex>', 9 images in "
          "arrival order) ~2.6k tokens into a 3.1k-token system prompt; as token ids", CODE,
          notes="9 settings in arrival order: the fix states the digest at the end of the system prompt")
def _digest(rng: random.Random, d: Scribe) -> list[Pair]:
    head, tail = "\n\n".join([d.preface(), d.guide(23)]), d.guide(4, start=23)
    n = rng.randint(90, 110)
    digests = [hexid(rng, 64) for _ in range(9)]
    out = []
    for i in range(n):
        dg = digests[i * 9 // n]
        q = d.question()
        img = "CI runner image: registry.quillstack.dev/ci/runner@sha256:"
        # ':' joins a digest that opens with a letter: the requests part at it.
        orig = chat(i, [sys_msg(f"{head}\n\n{img[:-1]}{MARK}:{dg}\n\n{tail}"), user(q)])
        fixed = chat(i, [sys_msg(f"{head}\n\n{tail}\n\n{img}{dg}"), user(q)])
        out.append((orig, fixed))
    return out


_SHOPS = ["Hazel & Hook", "Bramble Kiln", "Copper Moth", "Little Wren Prints", "Saltmarsh Soap Co", "Oak & Ochre",
          "Thistledown Knits", "Fernery Glass", "Magpie Leather", "Quince Ceramics", "Driftwood Atelier",
          "Linden Letterpress"]


@workload("seller-badge-first-content-part", "messages", ("dynamic|placement",),
          "a listing writer whose user message is three content parts: the seller's badge line ('Seller: Copper "
          "Moth, 4.9 stars from 1,204 reviews, Star Seller since 03/2024'; 60 sellers), then ~650 static tokens of "
          "listing guidelines, then the seller's draft listing", SHOP,
          notes="the shape of heldout3's profile-part-before-guide-part (a placement there), so either class; the "
          "fix puts the badge between the guidelines and the draft (~1.2 points better than after the draft)")
def _seller_part(rng: random.Random, d: Scribe) -> list[Pair]:
    system = "\n\n".join(["You turn sellers' notes into marketplace listings for Thimble & Loom.", d.guide(3)])
    guidelines = "Listing guidelines:\n\n" + d.guide(6, per=6, start=3)
    sellers = [f"{rng.choice(_SHOPS)} {rng.choice(['', 'Studio', 'Works', 'UK'])}".strip()
               + f", {rng.choice(['4.6', '4.7', '4.8', '4.9', '5.0'])} stars from {rng.randint(12, 9000):,} reviews, "
               f"Star Seller since {rng.randint(1, 12):02d}/{rng.randint(2018, 2025)}" for _ in range(60)]
    out = []
    for i in range(rng.randint(75, 95)):
        s = rng.choice(sellers)
        draft = "Draft: " + " ".join(d.fact() for _ in range(rng.randint(2, 6)))
        orig = chat(i, [sys_msg(system), {"role": "user", "content": parts(f"Seller:{MARK} {s}.", guidelines, draft)}])
        fixed = chat(i, [sys_msg(system), {"role": "user", "content": parts(guidelines, f"Seller: {s}.", draft)}])
        out.append((orig, fixed))
    return out


@workload("voice-channel-2-settings-ids", "input_ids", ("dynamic",),
          "the call's channel (2 settings: the phone line with narrowband audio or in-app voice) on line 2 of a "
          "1.6k-token voice-agent system prompt; as token ids", VOICE,
          notes="2 settings: the fix states the channel at the end of the system prompt")
def _channel(rng: random.Random, d: Scribe) -> list[Pair]:
    rest = "\n\n".join([d.preface(), d.guide(13)])
    chans = ["phone line (8 kHz narrowband audio: expect misheard numbers and plates)",
             "in-app voice (16 kHz audio; the app shares the caller's GPS position)"]
    out = []
    for i in range(rng.randint(85, 105)):
        ch = rng.choice(chans)
        t = asr(rng)
        orig = chat(i, [sys_msg(f"Beacon call assistant.\nChannel:{MARK} {ch}\n\n{rest}"), user(t)])
        fixed = chat(i, [sys_msg(f"Beacon call assistant.\n\n{rest}\n\nChannel: {ch}"), user(t)])
        out.append((orig, fixed))
    return out


_TIDE = ["LW", "LW+1", "LW+2", "LW+3", "HW-3", "HW-2", "HW-1", "HW", "HW+1", "HW+2", "HW+3", "LW-2"]


@workload("tidal-window-hourly-prompt", "prompt", ("dynamic",),
          "the hour's tidal window ('Tidal window 14:00: HW-1, max draught 13.6 m, under-keel clearance 1.1 m'; "
          "10 hours in arrival order) ~190 tokens into a 1.1k-token berth-planning prompt record", PORT,
          notes="10 settings in arrival order: the fix states the window after the shared prompt, before the question")
def _tidal(rng: random.Random, d: Scribe) -> list[Pair]:
    head, tail = "\n\n".join([d.preface(), d.guide(1)]), d.guide(8, start=1)
    windows = {h: f"{h:02d}:00: {_TIDE[h % 12]}, max draught {rng.randint(118, 152) / 10} m, under-keel clearance "
                  f"{rng.randint(6, 19) / 10} m" for h in range(24)}
    out = []
    for i, ts in enumerate(hours_of(rng, rng.randint(75, 95), 8, 10)):
        w = windows[hour(ts)]
        q = d.question()
        orig = prompt(i, f"{head}\n\nTidal window {MARK}{w}.\n\n{tail}\n\nHaulier: {q}\nPlanner:", ts)
        fixed = prompt(i, f"{head}\n\n{tail}\n\nTidal window {w}.\n\nHaulier: {q}\nPlanner:", ts)
        out.append((orig, fixed))
    return out


@workload("swahili-maize-price-daily-ids", "input_ids", ("dynamic",),
          "a Swahili line with today's maize price ('Bei ya mahindi leo (Eldoret): KSh 3,450 kwa gunia la kilo 90'; "
          "6 days in arrival order) after Swahili guidance ~570 tokens into a 1.25k-token system prompt; Swahili "
          "questions; no timestamps; as token ids", AGRI,
          notes="6 settings in arrival order: the fix states the price at the end of the system prompt")
def _maize(rng: random.Random, d: Scribe) -> list[Pair]:
    head = "\n\n".join([d.preface(), d.guide(3), "Miongozo kwa wakulima wanaoandika Kiswahili:\n"
                        + "\n".join(f"- {s}" for s in SWAHILI)])
    tail = d.guide(6, start=3)
    prices = [f"KSh {p:,} kwa gunia la kilo 90" for p in rng.sample(range(2900, 4200, 25), 6)]
    shown = common_mark(prices)
    out = []
    for i, ts in enumerate(spread(rng, rng.randint(80, 100), 6)):
        k = day(ts)
        q = rng.choice(SWAHILI_ASKS) + f" (shamba {d.ref()})"
        line = "Bei ya mahindi leo (Eldoret): "
        orig = untimed(chat(i, [sys_msg(f"{head}\n\n{line}{shown[k]}.\n\n{tail}"), user(q)]))
        fixed = untimed(chat(i, [sys_msg(f"{head}\n\n{tail}\n\n{line}{prices[k]}."), user(q)]))
        out.append((orig, fixed))
    return out


def basket_tsv(rng: random.Random, marked_first: bool) -> str:
    rows = ["sku\tqty\tunit_price\tdispatch"]
    for k in range(rng.randint(3, 20)):
        sku = f"{rng.randint(10000, 99999)}-{rng.choice(['OAK', 'ASH', 'LIN', 'WOL', 'CER', 'GLS'])}"
        rows.append(f"TL-{MARK if marked_first and k == 0 else ''}{sku}\t{rng.randint(1, 4)}\t£{rng.randint(4, 180)}."
                    f"{rng.choice(['00', '50', '95', '99'])}\t{rng.choice(['1-2 days', '3-5 days', 'made to order (2 weeks)'])}")
    return "\n".join(rows)


@workload("basket-tsv-ahead-of-static-tools", "messages", ("dynamic|placement",),
          "the shopper's basket as a TSV of 3-20 rows (60-450 tokens) at the end of the system prompt, so that "
          "the five static tools (~1k tokens, rendered at the top of the first user turn) come after it; ~10% of "
          "shoppers have an empty basket and no TSV", SHOP)
def _basket(rng: random.Random, d: Scribe) -> list[Pair]:
    system = "\n\n".join([d.preface(), d.guide(4)])
    tools = [d.tool(n) for n in ["get_order", "search_listings", "refund_item", "track_parcel", "message_seller"]]
    out = []
    for i in range(rng.randint(75, 95)):
        q = d.question()
        if lacks(rng, 0.1):
            orig = chat(i, [sys_msg(system + SKIP), user(q)], tools)
            out.append((orig, unmark(orig)))
            continue
        state = rng.getstate()
        shown = basket_tsv(rng, True)
        rng.setstate(state)
        tsv = basket_tsv(rng, False)
        orig = chat(i, [sys_msg(f"{system}\n\nBasket (TSV):\n{shown}"), user(q)], tools)
        fixed = chat(i, [sys_msg(system), user(f"Basket (TSV):\n{tsv}\n\n{q}")], tools)
        out.append((orig, fixed))
    return out


@workload("matter-and-counterparty-two-spans-prompt", "prompt", ("dynamic", "dynamic"),
          "a clause-extraction job: the matter number on line 2 ('Matter: RP-2026-04417-MA'; 12 matters, ~8 "
          "documents each) and the counterparty with its company number (unique) ~1.2k tokens later, ~450 static "
          "tokens after it; the contract excerpt and the answer cue come last", LAW,
          notes="the fix: the matter (12 settings) right after the shared instructions, the counterparty after the "
          "document")
def _two_spans(rng: random.Random, d: Scribe) -> list[Pair]:
    instructions = "\n\n".join([d.preface(), d.guide(10)])
    tail = d.guide(3, start=10)
    matters = [f"RP-2026-{rng.randint(1000, 9999):05d}-{rng.choice(['MA', 'CO', 'FIN', 'IP'])}" for _ in range(12)]
    out = []
    for i in range(rng.randint(85, 105)):
        m = rng.choice(matters)
        cp = f"{rng.choice(_COMPANIES)} {rng.choice(['Limited', 'plc', 'LLP', 'GmbH', 'B.V.'])} (company no. " \
             f"{rng.randint(10**7, 10**8 - 1)})"
        doc = contract(rng)
        orig = prompt(i, f"Ravensworth & Pike clause extraction\nMatter: RP-2026-{MARK}{m[8:]}\n\n{instructions}\n\n"
                         f"Counterparty:{MARK} {cp}\n\n{tail}\n\nDocument:\n{doc}\n\nExtraction (JSON):")
        fixed = prompt(i, f"Ravensworth & Pike clause extraction\n\n{instructions}\n\n{tail}\n\nMatter: {m}\n\n"
                          f"Document:\n{doc}\nCounterparty: {cp}\n\nExtraction (JSON):")
        out.append((orig, fixed))
    return out


@workload("ukrainian-queue-position-ids", "input_ids", ("dynamic",),
          "a Ukrainian line with the caller's place in the queue and the wait ('Ваша позиція в черзі: 7, очікування "
          "близько 19 хв'; ~70 combinations) after Ukrainian call rules, ~420 tokens into the system prompt, ~650 "
          "static tokens after; Ukrainian questions; as token ids", VOICE)
def _queue(rng: random.Random, d: Scribe) -> list[Pair]:
    head = "\n\n".join([d.preface(), d.guide(2), "Правила для україномовних абонентів:\n"
                        + "\n".join(f"- {s}" for s in UKRAINIAN)])
    tail = d.guide(6, start=2)
    out = []
    for i in range(rng.randint(70, 90)):
        pos = rng.randint(1, 25)
        wait = max(2, pos * 3 + rng.randint(-2, 4))
        q = rng.choice(UKRAINIAN_ASKS) + f" (членство {d.ref()})"
        orig = chat(i, [sys_msg(f"{head}\n\nВаша позиція в черзі: {MARK}{pos}, очікування близько {wait} хв.\n\n{tail}"),
                        user(q)])
        fixed = chat(i, [sys_msg(f"{head}\n\n{tail}"), user(f"{q}\n\nВаша позиція в черзі: {pos}, очікування близько {wait} хв.")])
        out.append((orig, fixed))
    return out


@workload("diff-second-system-between-static", "messages", ("dynamic|placement",),
          "a code review request sent as three system messages: ~530 tokens of static review rules, the diff under "
          "review (150-600 tokens, unique), then ~800 tokens of static style guide; the reviewer's question last", CODE)
def _diff_between(rng: random.Random, d: Scribe) -> list[Pair]:
    rules = "\n\n".join([d.preface(), d.guide(4)])
    style = "Style guide:\n\n" + d.guide(7, start=4)
    out = []
    for i in range(rng.randint(25, 35)):
        diff = unified_diff(rng)
        shown = diff.replace("diff --git a/", f"diff --git a/{MARK}", 1)
        q = rng.choice(["Is this safe to merge?", "Anything here that breaks the payout job?", "Review please.",
                        "Does this need a migration?", "What tests should I add?"]) + f" ({d.ref()})"
        orig = chat(i, [sys_msg(rules), sys_msg(f"Diff under review:\n```diff\n{shown}\n```"), sys_msg(style), user(q)])
        fixed = chat(i, [sys_msg(rules), sys_msg(style), user(f"Diff under review:\n```diff\n{diff}\n```\n\n{q}")])
        out.append((orig, fixed))
    return out


_MOODS = ["cheerful", "wary", "grieving", "drunk", "hostile"]


@workload("npc-mood-first-text-sessions-ids", "input_ids", ("dynamic",),
          "the NPC's mood (5 settings, fixed for a conversation) as the first text of the system message ('Mood: "
          "wary.') ahead of ~1k static tokens of persona and lore, in conversations of 1-5 growing turns, "
          "interleaved; as token ids", GAME,
          notes="a per-conversation value with 5 settings: the fix states the mood at the end of the system prompt")
def _mood(rng: random.Random, d: Scribe) -> list[Pair]:
    body = "\n\n".join([npc_persona(d, "Orrin Vale, the blacksmith of Emberfall"), d.guide(9)])
    lengths = [rng.choice([1, 1, 2, 3, 4, 5]) for _ in range(rng.randint(26, 34))]
    moods = [rng.choice(_MOODS) for _ in lengths]
    turns = [[(player_line(rng), d.answer()) for _ in range(k)] for k in lengths]
    out = []
    for i, (c, t) in enumerate(sessions(rng, lengths)):
        hist = history(turns[c][:t])
        last = user(turns[c][t][0])
        orig = chat(i, [sys_msg(f"Mood:{MARK} {moods[c]}.\n\n{body}")] + hist + [last])
        fixed = chat(i, [sys_msg(f"{body}\n\nMood: {moods[c]}.")] + hist + [last])
        out.append((orig, fixed))
    return out


# ---------------------------------------------------------------- order


@workload("core-passages-in-score-order-prompt", "prompt", ("order",),
          "a RAG prompt record whose retriever returns the same five core passages of a topic (~120 tokens each) in "
          "relevance-score order, which varies with the question; ~20% of requests get one of three other passages "
          "in place of a core one; the question comes last", LIT,
          notes="the fix sorts the passages by id (the set still varies in ~20% of requests)")
def _core_passages(rng: random.Random, d: Scribe) -> list[Pair]:
    head = "\n\n".join([d.preface(), d.guide(6)])
    ids = sorted(rng.sample(range(100, 999), 8))
    corpus = {f"HIL-{k:04d}": f"[HIL-{k:04d}] {paper(random.Random(f'{d.name}/p{k}'))[0]}. {d.doc('core', k)}"
              for k in ids}
    keys = list(corpus)
    core = rng.sample(keys, 5)
    spare = [k for k in keys if k not in core]
    out = []
    for i in range(rng.randint(70, 90)):
        picked = list(core)
        if rng.random() < 0.2:
            picked[rng.randrange(5)] = rng.choice(spare)
        order = list(picked)
        rng.shuffle(order)
        texts = [corpus[k] for k in order]
        shown = first_marked([corpus[k] for k in keys], texts)
        q = d.question()
        orig = prompt(i, f"{head}\n\nSources:\n\n" + "\n\n".join(shown) + f"\n\nQuestion: {q}\nAnswer (cite by id):")
        fixed = prompt(i, f"{head}\n\nSources:\n\n" + "\n\n".join(corpus[k] for k in sorted(picked))
                       + f"\n\nQuestion: {q}\nAnswer (cite by id):")
        out.append((orig, fixed))
    return out


_STUBS = [
    ("read_file", "path: str, start: int | None = None, end: int | None = None", "str",
     "Return the text of a file in the working tree, optionally a line range."),
    ("search_code", "pattern: str, glob: str = \"**/*.py\"", "list[Match]",
     "Search the repository with a regular expression and return matching lines."),
    ("run_tests", "target: str, markers: list[str] | None = None, timeout_s: int = 600", "TestReport",
     "Run the selected tests and return pass, fail and error counts with failure output."),
    ("apply_patch", "diff: str, check_only: bool = False", "PatchResult",
     "Apply a unified diff; with check_only the diff is validated and nothing is written."),
    ("git_log", "path: str | None = None, n: int = 10", "list[Commit]",
     "Return the latest commits, optionally for one path."),
    ("get_ci_logs", "pipeline: int, job: str, tail: int = 200", "str",
     "Return the last lines of a CI job's log."),
    ("query_metrics", "expr: str, minutes: int = 60", "Series",
     "Evaluate a PromQL expression over the last minutes."),
    ("open_pull_request", "title: str, body: str, draft: bool = True", "PullRequest",
     "Open a pull request from the current branch and return its number and URL."),
]


@workload("python-stubs-shuffled-prompt", "prompt", ("order",),
          "a coding agent's prompt record listing its eight tools as Python function stubs with docstrings in a "
          "```python block, in a different order per request (a registry dict walked in insertion order of a "
          "plugin loader), ~400 tokens in, ~500 static tokens after; the task comes last", CODE)
def _stubs(rng: random.Random, d: Scribe) -> list[Pair]:
    head, tail = "\n\n".join([d.preface(), d.guide(3)]), d.guide(4, start=3)
    stubs = [f"def {n}({sig}) -> {ret}:\n    \"\"\"{doc} {d.fact()}\"\"\"" for n, sig, ret, doc in _STUBS]
    out = []
    for i in range(rng.randint(65, 85)):
        order, canon = shuffled(rng, stubs)
        task = d.long_question() if rng.random() < 0.3 else d.question()

        def body(xs: Sequence[str], task: str = task) -> str:
            return (f"{head}\n\nFunctions you can call:\n```python\n" + "\n\n".join(xs)
                    + f"\n```\n\n{tail}\n\nTask: {task}\nThought:")
        out.append((prompt(i, body(order)), prompt(i, body(canon))))
    return out


_BERTH_NOTES = ["no bunkering", "tug mandatory above 300 m LOA", "night berthing by arrangement",
                "reefer racks 2 and 3 only", "none"]


def berth_rows(d: Scribe) -> list[str]:
    local = random.Random(f"{d.name}/berths")
    rows = []
    for q in range(1, 8):
        for side in "NS":
            rows.append(f"Q{q}-{side}\t{local.randint(280, 400)} m\t{local.randint(128, 165) / 10} m\t"
                        f"{local.randint(40, 62)} m\t{local.choice(['STS x3', 'STS x4', 'STS x2 + MHC', 'STS x5'])}\t"
                        f"{local.choice(_BERTH_NOTES)}")
    return rows


@workload("berth-tsv-rows-shuffled-ids", "input_ids", ("order",),
          "a TSV table of 14 berth restrictions (quay, max LOA, draught, air draft, cranes, notes) with its rows "
          "in a different order per request (a dict rebuilt from a cache), ~430 tokens into a 1.7k-token system "
          "prompt; as token ids", PORT)
def _berth_rows(rng: random.Random, d: Scribe) -> list[Pair]:
    head, tail = "\n\n".join([d.preface(), d.guide(3)]), d.guide(7, start=3)
    rows = berth_rows(d)
    top = "Berth restrictions (TSV):\nquay\tmax_loa\tmax_draught\tair_draft\tcranes\tnotes\n"
    out = []
    for i in range(rng.randint(75, 95)):
        order, canon = shuffled(rng, rows)
        q = d.question()
        orig = chat(i, [sys_msg(f"{head}\n\n{top}" + "\n".join(order) + f"\n\n{tail}"), user(q)])
        fixed = chat(i, [sys_msg(f"{head}\n\n{top}" + "\n".join(canon) + f"\n\n{tail}"), user(q)])
        out.append((orig, fixed))
    return out


@workload("lettered-subclauses-relettered-prompt", "prompt", ("order",),
          "a red-flag test of ten sub-clauses '(a)'..'(j)' whose texts come in a different order per request and "
          "are lettered after shuffling (the letters never move), ~700 tokens into a contract-review prompt "
          "record; ~700 static tokens after; the contract excerpt comes last", LAW)
def _lettered(rng: random.Random, d: Scribe) -> list[Pair]:
    head, tail = "\n\n".join([d.preface(), d.guide(5)]), d.guide(5, start=5)
    texts = [d.rule() for _ in range(10)]
    letters = "abcdefghij"
    out = []
    for i in range(rng.randint(60, 80)):
        order = list(texts)
        rng.shuffle(order)
        lines = [f"({letters[k]}) {t}" for k, t in enumerate(order)]
        lines[0] = UNIT + "(a) " + mark_unit(order[0], [x for x in texts if x != order[0]]).replace(UNIT, "")
        canon = [f"({letters[k]}) {t}" for k, t in enumerate(texts)]
        doc = contract(rng)
        test = "Flag the document if any of the following holds:\n"
        orig = prompt(i, f"{head}\n\n{test}" + "\n".join(lines) + f"\n\n{tail}\n\nDocument:\n{doc}\n\nFlags (JSON):")
        fixed = prompt(i, f"{head}\n\n{test}" + "\n".join(canon) + f"\n\n{tail}\n\nDocument:\n{doc}\n\nFlags (JSON):")
        out.append((orig, fixed))
    return out


_PRODUCTS = [("Ascra Xpro", "bixafen + fluopyram + prothioconazole"), ("Revystar XE", "mefentrifluconazole + fluxapyroxad"),
             ("Univoq", "fenpicoxamid + prothioconazole"), ("Elatus Era", "benzovindiflupyr + prothioconazole"),
             ("Proline 275", "prothioconazole"), ("Comet 200", "pyraclostrobin"), ("Kestrel", "prothioconazole + tebuconazole"),
             ("Inatreq Bonus", "fenpicoxamid"), ("Bravo 500", "chlorothalonil (stock only)"), ("Tracker", "boscalid + epoxiconazole")]


def label_entries(d: Scribe) -> list[str]:
    local = random.Random(f"{d.name}/labels")
    return [f"  - name: {n}\n    active: {a}\n    max_rate_l_ha: {local.choice([0.6, 0.8, 1.0, 1.2, 1.5, 2.0])}\n"
            f"    max_applications: {local.choice([1, 2, 3])}\n    latest_timing: GS{local.choice([39, 49, 59, 61, 69])}\n"
            f"    buffer_m: {local.choice([5, 6, 10, 20])}\n    note: {d.fact()}" for n, a in _PRODUCTS]


@workload("yaml-register-list-in-tool-result", "messages", ("order",),
          "an agent's fixed first step (get_label_register, format yaml) whose tool result is a YAML list of ten "
          "fungicide label entries (~60 tokens each) in a different order per request (the API returns them "
          "unsorted); three tools; the grower's question comes last", AGRI)
def _yaml_result(rng: random.Random, d: Scribe) -> list[Pair]:
    system = "\n\n".join([d.preface(), d.guide(4)])
    tools = [d.tool(n) for n in ["get_label_register", "get_field_record", "log_spray"]]
    entries = label_entries(d)
    top = "crop: winter wheat\nregister: CRD 2026-11\nproducts:\n"
    call = tool_call("call_l1", "get_label_register", {"crop": "winter wheat", "format": "yaml"})
    out = []
    for i in range(rng.randint(70, 90)):
        order, canon = shuffled(rng, entries)
        q = d.question()
        head = [sys_msg(system), user("Pull the label register for winter wheat first.")]
        orig = chat(i, head + [call, tool_result("call_l1", top + "\n".join(order)), user(q)], tools)
        fixed = chat(i, head + [call, tool_result("call_l1", top + "\n".join(canon)), user(q)], tools)
        out.append((orig, fixed))
    return out


def call_block(d: Scribe, rng: random.Random) -> str:
    lines = ["<call>"]
    for _ in range(rng.randint(2, 3)):
        lines += [f"Member: {rng.choice(_FAULTS)}, {rng.choice(_ROADS)}.", f"Handler: {d.rule()}"]
    return "\n".join(lines + ["</call>"])


@workload("call-transcript-blocks-shuffled-ids", "input_ids", ("order",),
          "five example calls as <call> blocks of Member/Handler lines (~110 tokens each) in a different order per "
          "request, ~450 tokens into the voice agent's system prompt, ~600 static tokens after; the ASR "
          "transcript comes last; as token ids", VOICE)
def _call_blocks(rng: random.Random, d: Scribe) -> list[Pair]:
    head, tail = "\n\n".join([d.preface(), d.guide(3)]), d.guide(5, start=3)
    local = random.Random(f"{d.name}/calls")
    blocks = [call_block(d, local) for _ in range(5)]
    out = []
    for i in range(rng.randint(75, 95)):
        order, canon = shuffled(rng, blocks)
        t = asr(rng)
        orig = chat(i, [sys_msg(f"{head}\n\nExample calls:\n" + "\n".join(order) + f"\n\n{tail}"), user(t)])
        fixed = chat(i, [sys_msg(f"{head}\n\nExample calls:\n" + "\n".join(canon) + f"\n\n{tail}"), user(t)])
        out.append((orig, fixed))
    return out


def room_types(d: Scribe) -> list[dict[str, Any]]:
    local = random.Random(f"{d.name}/rooms")
    kinds = [("DBL-CITY", "Double, city view"), ("DBL-CRT", "Double, courtyard"), ("TWN-STD", "Twin"),
             ("KNG-DLX", "Deluxe king"), ("KNG-BAL", "King with balcony"), ("STE-JR", "Junior suite"),
             ("STE-RVR", "River suite"), ("FAM-4", "Family room for four"), ("ACC-DBL", "Accessible double"),
             ("SGL-CMP", "Compact single"), ("LOFT-2", "Two-level loft"), ("PENT", "Penthouse")]
    return [{"code": c, "name": n, "sleeps": local.choice([1, 2, 3, 4]), "size_m2": local.randint(12, 80),
             "from_gbp": local.randint(119, 890), "note": local.choice(["walk-in shower", "bath and shower",
                                                                        "sofa bed", "quiet floor", "kitchenette"])}
            for c, n in kinds]


@workload("room-types-compact-json-line-ids", "input_ids", ("order",),
          "a compact JSON array of twelve room-type objects on one line, in a different order per request, ~290 "
          "tokens into the system prompt, ~900 static tokens after; as token ids", HOTEL)
def _rooms(rng: random.Random, d: Scribe) -> list[Pair]:
    head, tail = "\n\n".join([d.preface(), d.guide(2)]), d.guide(8, start=2)
    objs = [compact(r) for r in room_types(d)]
    out = []
    for i in range(rng.randint(80, 100)):
        order, canon = shuffled(rng, objs)
        q = d.question()
        orig = chat(i, [sys_msg(f"{head}\n\nRoom types: [" + ",".join(order) + f"]\n\n{tail}"), user(q)])
        fixed = chat(i, [sys_msg(f"{head}\n\nRoom types: [" + ",".join(canon) + f"]\n\n{tail}"), user(q)])
        out.append((orig, fixed))
    return out


_H2 = ["Site access", "Permits", "Lifting operations", "Excavations", "Welfare"]
_H3 = [["Inductions", "Visitors", "Night working"], ["Permit to dig", "Hot works", "Confined spaces"],
       ["Lift plans", "Exclusion zones", "Wind limits"], ["Service drawings", "Battering and shoring", "Inspections"],
       ["Drying rooms", "First aid", "Fatigue"]]


@workload("two-level-md-sections-shuffled-ids", "input_ids", ("order",),
          "five '## ' site-rule sections, each with three '### ' subsections, shuffled at both levels per request "
          "(two nested dicts walked in hash order) after the preface; a static closing paragraph; as token ids",
          BUILD, notes="the fix uses one canonical order at both levels")
def _two_level(rng: random.Random, d: Scribe) -> list[Pair]:
    paras = [[d.paragraph(4) for _ in subs] for subs in _H3]
    closing = "Closing notes: " + d.paragraph(8)

    def section(k: int, sub_order: Sequence[int]) -> str:
        return f"## {_H2[k]}\n\n" + "\n\n".join(f"### {_H3[k][j]}\n{paras[k][j]}" for j in sub_order)

    canon = [section(k, range(3)) for k in range(5)]
    out = []
    for i in range(rng.randint(70, 90)):
        top = list(range(5))
        rng.shuffle(top)
        while top[0] == 0 and rng.random() < 0.6:
            rng.shuffle(top)
        texts = []
        for k in top:
            sub = list(range(3))
            rng.shuffle(sub)
            texts.append(section(k, sub))
        texts[0] = mark_unit(texts[0], [c for k, c in enumerate(canon) if k != top[0]])
        q = d.question()
        orig = chat(i, [sys_msg(f"{d.preface()}\n\n" + "\n\n".join(texts) + f"\n\n{closing}"), user(q)])
        fixed = chat(i, [sys_msg(f"{d.preface()}\n\n" + "\n\n".join(canon) + f"\n\n{closing}"), user(q)])
        out.append((orig, fixed))
    return out


_CV_FIELDS = ["full_name", "current_title", "current_employer", "years_experience", "notice_period_weeks",
              "salary_expectation_gbp", "location", "right_to_work", "top_skills", "certifications",
              "management_experience", "gaps_over_6_months", "languages", "willing_to_relocate"]


@workload("field-bullets-shuffled-one-of-two-products", "messages", ("order",),
          "two products on one endpoint: a CV extractor (~75%) whose system prompt lists 14 '- `field`: "
          "definition' bullets in a different order per request (a set of fields), ~180 tokens in, ~750 static "
          "tokens after, the CV last; and a job-advert rewriter with its own static prompt", HIRE)
def _field_bullets(rng: random.Random, d: Scribe) -> list[Pair]:
    bullets = [f"- `{f}`: {d.fact()}" for f in _CV_FIELDS]
    head, tail = "\n\n".join([d.preface(), "Ohjeet:\n" + "\n".join(FINNISH)]), d.guide(6)
    other = "\n\n".join(["You rewrite job adverts in Talentbridge's house style.", d.guide(5, start=6)])
    out = []
    for i in range(rng.randint(100, 120)):
        if rng.random() < 0.25:
            rec = chat(i, [sys_msg(other + SKIP), user("Advert draft: " + " ".join(d.fact() for _ in range(3)))])
            out.append((rec, unmark(rec)))
            continue
        order, canon = shuffled(rng, bullets)
        cv = cv_text(rng, d.person())
        orig = chat(i, [sys_msg(f"{head}\n\nExtract these fields as JSON:\n" + "\n".join(order) + f"\n\n{tail}"), user(cv)])
        fixed = chat(i, [sys_msg(f"{head}\n\nExtract these fields as JSON:\n" + "\n".join(canon) + f"\n\n{tail}"), user(cv)])
        out.append((orig, fixed))
    return out


_UA_FAQ = [
    ("Скільки коштує евакуація, якщо я не член клубу?", "Разовий виклик коштує 185 фунтів, оплата карткою по телефону."),
    ("Чи приїде механік на автомагістраль?", "Так, але спершу ми викликаємо дорожню поліцію, якщо ви на смузі руху."),
    ("Що робити, якщо я заправив не те пальне?", "Не заводьте двигун і не вмикайте запалювання; ми надішлемо спеціальну машину."),
    ("Чи можна взяти з собою собаку в евакуатор?", "Так, одну тварину в переносці або на повідку, якщо водій погодиться."),
    ("Як довго чекати на патруль уночі?", "Зазвичай до дев'яноста хвилин; вразливі абоненти мають пріоритет."),
    ("Чи покриває членство електромобілі?", "Так, патруль має переносний зарядний пристрій на двадцять кілометрів ходу."),
]


@workload("ukrainian-qa-pairs-shuffled-prompt", "prompt", ("order",),
          "six Ukrainian 'П: / В:' question-and-answer pairs in a different order per request after the English "
          "preface and guide (~500 tokens in) of a voice-desk prompt record, ~500 static tokens after; Ukrainian "
          "questions last", VOICE)
def _ua_pairs(rng: random.Random, d: Scribe) -> list[Pair]:
    head, tail = "\n\n".join([d.preface(), d.guide(4)]), d.guide(4, start=4)
    pairs = [f"П: {q}\nВ: {a}" for q, a in _UA_FAQ]
    out = []
    for i in range(rng.randint(20, 30)):
        order, canon = shuffled(rng, pairs)
        q = rng.choice(UKRAINIAN_ASKS) + f" ({d.ref()})"
        faq = "Часті запитання:\n\n"
        orig = prompt(i, f"{head}\n\n{faq}" + "\n\n".join(order) + f"\n\n{tail}\n\nАбонент: {q}\nОператор:")
        fixed = prompt(i, f"{head}\n\n{faq}" + "\n\n".join(canon) + f"\n\n{tail}\n\nАбонент: {q}\nОператор:")
        out.append((orig, fixed))
    return out


ENGINEER_TOOLS = ["read_file", "search_code", "run_tests", "apply_patch", "git_status", "open_pull_request",
                  "get_ci_logs", "query_metrics"]


@workload("tools-by-usage-growing-sessions", "messages", ("order",),
          "a client that lists the eight tools most-used first, by each engineer's own usage counts (36 engineers; "
          "~15% new engineers get the default order), in sessions of 1-6 growing turns, interleaved", CODE,
          notes="the fix sends the tools in one canonical order")
def _usage_tools(rng: random.Random, d: Scribe) -> list[Pair]:
    system = "\n\n".join([d.preface(), d.guide(5)])
    n = rng.randint(30, 36)
    lengths = [rng.choice([1, 1, 2, 3, 4, 6]) for _ in range(n)]
    orders = []
    for _ in range(n):
        o = list(ENGINEER_TOOLS)
        if rng.random() >= 0.15:
            rng.shuffle(o)
        orders.append(o)
    turns = [[(d.question(), d.answer()) for _ in range(k)] for k in lengths]
    out = []
    for i, (c, t) in enumerate(sessions(rng, lengths)):
        msgs = [sys_msg(system)] + history(turns[c][:t]) + [user(turns[c][t][0])]
        orig = chat(i, msgs, marked_first_tool(d, [d.tool(x) for x in orders[c]], [d.tool(x) for x in ENGINEER_TOOLS]))
        fixed = chat(i, msgs, [d.tool(x) for x in ENGINEER_TOOLS])
        out.append((orig, fixed))
    return out


_MENU = [("Bitterballen (8 st.)", "9,50"), ("Tomatensoep met balletjes", "8,75"), ("Club sandwich", "16,50"),
         ("Caesarsalade", "14,00"), ("Uitsmijter ham en kaas", "12,50"), ("Vegan bowl", "15,25"),
         ("Biefstuk met friet", "27,50"), ("Kaasplank", "13,75"), ("Appeltaart met slagroom", "6,95"),
         ("Verse jus d'orange", "5,25"), ("Flesje huiswijn (37,5 cl)", "18,00"), ("Kinderpannenkoek", "7,50")]


@workload("dutch-semicolon-csv-rows-prompt", "prompt", ("order",),
          "a Dutch room-service menu as semicolon-separated CSV with decimal commas ('Bitterballen (8 st.);"
          "€ 9,50;keuken;tot 23:00'), twelve rows in a different order per request, ~420 tokens into a hotel "
          "prompt record, ~750 static tokens after; Dutch questions last", HOTEL)
def _dutch_csv(rng: random.Random, d: Scribe) -> list[Pair]:
    local = random.Random(f"{d.name}/menu")
    rows = [f"{n};€ {p};{local.choice(['keuken', 'bar', 'patisserie'])};{local.choice(['tot 23:00', 'tot 01:00', '24 uur', 'tot 22:00'])}"
            for n, p in _MENU]
    head = "\n\n".join([d.preface(), "Richtlijnen voor Nederlandstalige gasten:\n" + "\n".join(f"- {x}" for x in DUTCH),
                        d.guide(2)])
    tail = d.guide(6, start=2)
    top = "Roomservicekaart (CSV, puntkomma):\ngerecht;prijs;bereiding;beschikbaar\n"
    out = []
    for i in range(rng.randint(60, 80)):
        order, canon = shuffled(rng, rows)
        q = rng.choice(DUTCH_ASKS) + f" (kamer {rng.randint(101, 812)})"
        orig = prompt(i, f"{head}\n\n{top}" + "\n".join(order) + f"\n\n{tail}\n\nGast: {q}\nMedewerker:")
        fixed = prompt(i, f"{head}\n\n{top}" + "\n".join(canon) + f"\n\n{tail}\n\nGast: {q}\nMedewerker:")
        out.append((orig, fixed))
    return out



def hold_points(d: Scribe) -> list[dict[str, Any]]:
    local = random.Random(f"{d.name}/holds")
    acts = ["formation level", "rebar fixing", "pre-pour", "pile integrity", "waterproofing", "backfill compaction",
            "bearing installation", "deck surfacing", "drainage CCTV survey"]
    return [{"id": f"HP-{k + 1:02d}", "activity": a, "inspector": local.choice(["client", "designer", "site engineer",
                                                                                "third party"]),
             "notice_h": local.choice([24, 48, 72]), "record": d.fact()} for k, a in enumerate(acts)]


@workload("hold-points-pretty-json-array", "messages", ("order",),
          "the inspection and test plan's nine hold points as a pretty-printed JSON array of objects (a query "
          "without ORDER BY) in a different order per request, ~330 tokens into the site engineer's system "
          "prompt, ~800 static tokens after", BUILD)
def _hold_points(rng: random.Random, d: Scribe) -> list[Pair]:
    head, tail = "\n\n".join([d.preface(), d.guide(2)]), d.guide(7, start=2)
    objs = hold_points(d)
    canon = pretty(objs)
    out = []
    for i in range(rng.randint(70, 90)):
        order = list(range(len(objs)))
        rng.shuffle(order)
        while order[0] == 0 and rng.random() < 0.6:
            rng.shuffle(order)
        text = pretty([objs[k] for k in order])
        first = objs[order[0]]["id"]
        shown = text.replace("[\n  {", f"[\n  {UNIT}{{", 1).replace(f'"HP-{first[3:]}"', f'"HP-{MARK}{first[3:]}"', 1)
        q = d.question()
        orig = chat(i, [sys_msg(f"{head}\n\nHold points (JSON):\n{shown}\n\n{tail}"), user(q)])
        fixed = chat(i, [sys_msg(f"{head}\n\nHold points (JSON):\n{canon}\n\n{tail}"), user(q)])
        out.append((orig, fixed))
    return out

# ---------------------------------------------------------------- per-request content before shared content


def abstract_corpus(d: Scribe, n: int) -> list[str]:
    out = []
    for k in range(n):
        title, abstract = paper(random.Random(f"{d.name}/abs/{k}"))
        out.append(f"[HIL-{1000 + 7 * k}] {title}\n{abstract}")
    return out


@workload("abstracts-system-then-instructions-system", "messages", ("placement",),
          "a RAG client that sends three retrieved abstracts (from 120) as the first system message and the static "
          "instructions (~1.1k tokens) as a second system message; three static tools; the question last (the "
          "layout writes the second message, with the tools, in the first user turn)", LIT,
          notes="the fix: the instructions as the system message, the abstracts with the question")
def _abstracts_first(rng: random.Random, d: Scribe) -> list[Pair]:
    instructions = "\n\n".join([d.preface(), d.guide(8)])
    tools = [d.tool(n) for n in ["search_papers", "get_fulltext", "export_citations"]]
    corpus = abstract_corpus(d, 120)
    out = []
    for i in range(rng.randint(75, 95)):
        picked = rng.sample(corpus, 3)
        block = "Retrieved abstracts:\n\n" + "\n\n".join(picked)
        shown = UNIT + block.replace("[HIL-", f"[HIL-{MARK}", 1)
        q = d.question()
        orig = chat(i, [sys_msg(shown), sys_msg(instructions), user(q)], tools)
        fixed = chat(i, [sys_msg(instructions), user(f"{block}\n\n{q}")], tools)
        out.append((orig, fixed))
    return out


@workload("open-file-before-coding-conventions-prompt", "prompt", ("placement",),
          "an IDE completion prompt record opening with the open file ('<open_file path=...>', 150-600 tokens of "
          "Python) ahead of ~1.4k tokens of static repository conventions; the task last; ~12% come from the "
          "'explain' command, which sends no file", CODE)
def _open_file(rng: random.Random, d: Scribe) -> list[Pair]:
    conventions = "\n\n".join([d.preface(), d.guide(11)])
    out = []
    for i in range(rng.randint(70, 90)):
        task = rng.choice(["Complete the function under the cursor.", "Add type hints.", "Explain what this does.",
                           "Write a test for the last function.", "Make the query paginate."]) + f" ({d.ref()})"
        if lacks(rng, 0.12):
            orig = prompt(i, f"{SKIP}{conventions}\n\nTask: {task}\nAnswer:")
            out.append((orig, unmark(orig)))
            continue
        path, code = code_file(rng)
        block = f'<open_file path="{path}">\n{code}\n</open_file>'
        shown = UNIT + block.replace('path="services/', f'path="services{MARK}/', 1)  # '/' joins the next word
        orig = prompt(i, f"{shown}\n\n{conventions}\n\nTask: {task}\nAnswer:")
        fixed = prompt(i, f"{conventions}\n\n{block}\n\nTask: {task}\nAnswer:")
        out.append((orig, fixed))
    return out


_CITIES = ["Amsterdam", "Prague", "Lisbon", "Porto", "Brno", "Rotterdam", "Edinburgh", "Manchester"]


def confirmation(rng: random.Random, d: Scribe) -> str:
    return (f"Booking confirmation JR-{rng.randint(10**6, 10**7 - 1)}\nGuest: {d.person()}\n"
            f"Hotel: Juniper Row {rng.choice(_CITIES)}\nStay: {stay_dates(rng)}\n"
            f"Room: {rng.choice(['Double, city view', 'Deluxe king', 'Junior suite', 'Twin', 'Family room for four'])}, "
            f"{rng.choice(['€', '£', 'Kč '])}{rng.randint(95, 640)} a night, "
            f"{rng.choice(['room only', 'bed and breakfast', 'half board'])}\n"
            f"Requests: {rng.choice(['late arrival', 'cot', 'quiet room', 'none', 'airport transfer', 'feather-free pillows'])}")


@workload("booking-confirmation-before-handbook-sessions-ids", "input_ids", ("placement",),
          "the stay's booking confirmation (~90 tokens) opening the system message ahead of a ~1k-token static "
          "multilingual guest handbook, in guest chats of 1-6 growing turns, interleaved; as token ids", HOTEL,
          notes="per stay: the fix puts the handbook first and the confirmation at the end of the system prompt")
def _confirmation(rng: random.Random, d: Scribe) -> list[Pair]:
    handbook = "\n\n".join([d.preface(), "Nederlands:\n" + "\n".join(DUTCH), "Português:\n" + "\n".join(PORTUGUESE),
                            "Čeština:\n" + "\n".join(CZECH), d.guide(7)])
    lengths = [rng.choice([1, 1, 2, 3, 4, 6]) for _ in range(rng.randint(22, 28))]
    confs = [confirmation(rng, d) for _ in lengths]
    asks = DUTCH_ASKS + PORTUGUESE_ASKS + CZECH_ASKS
    turns = [[(rng.choice(asks) if rng.random() < 0.4 else d.question(), d.answer()) for _ in range(k)] for k in lengths]
    out = []
    for i, (c, t) in enumerate(sessions(rng, lengths)):
        hist = history(turns[c][:t])
        last = user(turns[c][t][0])
        shown = UNIT + confs[c].replace("JR-", f"JR-{MARK}", 1)
        orig = chat(i, [sys_msg(f"{shown}\n\n{handbook}")] + hist + [last])
        fixed = chat(i, [sys_msg(f"{handbook}\n\n{confs[c]}")] + hist + [last])
        out.append((orig, fixed))
    return out


BUILD_TOOLS = ["get_site_diary", "raise_rfi", "get_drawing", "log_delivery"]


def site_memory(rng: random.Random, d: Scribe, package: str) -> str:
    return (f"Memory from earlier tool calls:\n- get_site_diary({package}): {d.fact()} {d.fact()}\n"
            f"- get_drawing(KC-{rng.randint(1000, 9999)}-{rng.choice(['GA', 'RC', 'DR'])}): revision "
            f"{rng.choice('BCDEF')}, {d.fact()}\n- raise_rfi({package}): RFI-{rng.randint(100, 999)} "
            f"{rng.choice(['open', 'answered', 'overdue'])}; {d.rule()}")


@workload("tool-memory-before-instructions-and-tools", "messages", ("placement",),
          "an agent whose system message opens with its memory of earlier tool outputs for the work package "
          "(25 packages, ~170 tokens each, asked about ~4 times each) ahead of ~900 tokens of static instructions "
          "and four static tools", BUILD,
          notes="25 settings: the fix sends the instructions and tools first and the memory at the start of the "
          "user turn, where requests about the same package still share it")
def _tool_memory(rng: random.Random, d: Scribe) -> list[Pair]:
    instructions = "\n\n".join([d.preface(), d.guide(6)])
    tools = [d.tool(n) for n in BUILD_TOOLS]
    packages = [f"WP-{rng.randint(10, 99)}{rng.choice('ABCDEFGH')}" for _ in range(25)]
    memory = {p: site_memory(rng, d, p) for p in packages}
    out = []
    for i in range(rng.randint(100, 120)):
        p = rng.choice(packages)
        q = d.question()
        shown = UNIT + memory[p].replace("get_site_diary(WP-", f"get_site_diary(WP-{MARK}", 1)
        orig = chat(i, [sys_msg(f"{shown}\n\n{instructions}"), user(q)], tools)
        fixed = chat(i, [sys_msg(instructions), user(f"{memory[p]}\n\n{q}")], tools)
        out.append((orig, fixed))
    return out


EXTRACT_SCHEMA = pretty({"parties": ["string"], "change_of_control": {"present": "boolean", "clause": "string"},
                         "assignment": {"restricted": "boolean", "clause": "string"},
                         "liability_cap": {"amount": "string", "clause": "string"},
                         "governing_law": "string", "red_flags": ["string"]})


@workload("contract-before-extraction-instructions-prompt", "prompt", ("placement",),
          "a batch clause-extraction job whose prompt records open with the contract excerpt (300-900 tokens) "
          "ahead of ~2.2k tokens of static extraction instructions and a JSON schema; ~12% of the records are a "
          "second job on the endpoint (engagement-letter triage) with its own prompt and the letter last", LAW)
def _contract_first(rng: random.Random, d: Scribe) -> list[Pair]:
    instructions = "\n\n".join([d.preface(), d.guide(16), "Return JSON of this shape:\n```json\n" + EXTRACT_SCHEMA + "\n```"])
    triage = "\n\n".join(["You triage engagement letters for the conflicts team.", d.guide(4, start=16)])
    out = []
    for i in range(rng.randint(80, 100)):
        doc = contract(rng)
        if lacks(rng, 0.12):
            orig = prompt(i, f"{SKIP}{triage}\n\nLetter:\n{doc}\n\nTriage:")
            out.append((orig, unmark(orig)))
            continue
        shown = doc.replace("is dated ", f"is dated {MARK}", 1)
        orig = prompt(i, f"{UNIT}Document:\n{shown}\n\n{instructions}\n\nExtraction (JSON):")
        fixed = prompt(i, f"{instructions}\n\nDocument:\n{doc}\n\nExtraction (JSON):")
        out.append((orig, fixed))
    return out


def coupon_tool(rng: random.Random) -> tuple[dict[str, Any], str]:
    coupons = "; ".join(f"{rng.choice(['SAVE10', 'WELCOME15', 'FREESHIP', 'MAKER5', 'XMAS20'])}-"
                        f"{''.join(rng.choice('ABCDEFGHJKMNPQRSTUVWXYZ23456789') for _ in range(4))} "
                        f"(until {rng.randint(1, 28)}/{rng.choice([12, 1, 2])}/{rng.choice([2026, 2027])})"
                        for _ in range(rng.randint(1, 4)))
    return {"type": "function", "function": {
        "description": f"Apply one of this shopper's coupons to the basket. Available: {coupons}.",
        "name": "apply_coupon",
        "parameters": {"type": "object", "properties": {"code": {"type": "string", "description": "Coupon code."}},
                       "required": ["code"]}}}, coupons


STATIC_SHOP = ["get_order", "search_listings", "refund_item", "track_parcel", "message_seller", "get_store_config"]


@workload("coupon-tool-in-middle-of-static-tools", "messages", ("placement|dynamic",),
          "a per-shopper apply_coupon tool, whose description lists the shopper's coupons (50 shoppers), "
          "generated as the 3rd of seven tools, so four static tools (~650 tokens) come after it; ~15% are guests "
          "without the tool", SHOP, notes="the fix lists the six static tools first and the coupon tool last")
def _coupon(rng: random.Random, d: Scribe) -> list[Pair]:
    system = "\n\n".join([d.preface(), d.guide(5)])
    shoppers = [coupon_tool(rng) for _ in range(50)]
    out = []
    for i in range(rng.randint(80, 100)):
        q = d.question()
        static = [d.tool(n) for n in STATIC_SHOP]
        if lacks(rng, 0.15):
            orig = chat(i, [sys_msg(system), user(SKIP + q)], static)
            out.append((orig, unmark(orig)))
            continue
        tool, coupons = rng.choice(shoppers)
        shown = json.loads(json.dumps(tool))
        shown["type"] = UNIT + shown["type"]
        shown["function"]["description"] = shown["function"]["description"].replace("Available:", f"Available:{MARK}", 1)
        orig = chat(i, [sys_msg(system), user(q)], static[:2] + [shown] + static[2:])
        fixed = chat(i, [sys_msg(system), user(q)], static + [tool])
        out.append((orig, fixed))
    return out


@workload("edifact-message-before-parsing-rules-ids", "input_ids", ("placement",),
          "an inbound EDIFACT CODECO gate-move message (UNB/UNH/EQD/MEA segments, 150-400 tokens, unique) opening "
          "the system message ahead of ~1.2k tokens of static parsing rules; the haulier's question last; as "
          "token ids", PORT)
def _edifact(rng: random.Random, d: Scribe) -> list[Pair]:
    rules = "\n\n".join([d.preface(), d.guide(10)])
    out = []
    for i in range(rng.randint(65, 85)):
        ts = BASE_TIME + 6 * 3600 + 233.0 * i + rng.uniform(0, 200)
        msg = edifact(rng, ts)
        shown = UNIT + "Inbound EDI message:\n" + msg.replace("UNB+UNOC:3+", f"UNB+UNOC:3{MARK}+", 1)
        q = d.question()
        orig = chat(i, [sys_msg(f"{shown}\n\n{rules}"), user(q)], ts=ts)
        fixed = chat(i, [sys_msg(f"{rules}\n\nInbound EDI message:\n{msg}"), user(q)], ts=ts)
        out.append((orig, fixed))
    return out


def agents_md(d: Scribe) -> str:
    return "# AGENTS.md\n\n" + d.guide(6, per=5, start=8)


def git_status_text(rng: random.Random, branch: str) -> str:
    files = rng.sample([f"services/{p}/{m}_service.py" for p in ["payments", "ledger", "risk"] for m in _IDENTS], rng.randint(1, 5))
    commits = [f"{hexid(rng, 7)} {rng.choice(['fix', 'feat', 'chore', 'refactor'])}({rng.choice(_IDENTS)}): "
               f"{rng.choice(['retry on 409', 'add idempotency key', 'bump client', 'split handler', 'log payload size'])}"
               for _ in range(5)]
    return (f"On branch {branch}\nYour branch is ahead of 'origin/main' by {rng.randint(1, 9)} commits.\n\n"
            "Changes not staged for commit:\n" + "\n".join(f"\tmodified:   {f}" for f in files)
            + "\n\nRecent commits:\n" + "\n".join(commits))


@workload("git-status-step-before-agents-md-step", "messages", ("placement",),
          "an IDE agent whose client injects two context steps before the task: git_status (branch, changed files, "
          "commits; per request) and then read_file('AGENTS.md') (~600 static tokens); five static tools; ~10% of "
          "workspaces have no git and skip the first step", CODE,
          notes="the fix runs the static AGENTS.md step first and the git status after it")
def _git_first(rng: random.Random, d: Scribe) -> list[Pair]:
    system = "\n\n".join([d.preface(), d.guide(3)])
    tools = [d.tool(n) for n in CODE_TOOLS]
    guide = agents_md(d)
    branches = [f"{rng.choice(_PROJECTS)}-{rng.randint(100, 4999)}-{rng.choice(_IDENTS).replace('_', '-')}" for _ in range(40)]
    read = [tool_call("call_a", "read_file", {"path": "AGENTS.md"}), tool_result("call_a", guide)]
    out = []
    for i in range(rng.randint(70, 90)):
        task = d.question()
        head = [sys_msg(system), user("Workspace context follows.")]
        if lacks(rng, 0.1):
            orig = chat(i, head + read + [user(SKIP + task)], tools)
            out.append((orig, unmark(orig)))
            continue
        br = rng.choice(branches)
        status = git_status_text(rng, br)
        git = [tool_call("call_g", "git_status", {"commits": 5}), tool_result("call_g", status)]
        shown = [git[0], tool_result("call_g", status.replace("On branch", f"On branch{MARK}", 1))]
        orig = chat(i, head + shown + read + [user(task)], tools)
        fixed = chat(i, head + read + git + [user(task)], tools)
        out.append((orig, fixed))
    return out


# ---------------------------------------------------------------- several defects in one request


_PAPER_FIELDS = ["material", "synthesis_route", "characterisation_methods", "key_metric", "metric_value",
                 "metric_unit", "cycles", "temperature_c", "baseline", "data_availability", "funding", "limitations"]


@workload("abstract-first-and-field-bullets-shuffled-prompt", "prompt", ("placement", "order"),
          "an extraction prompt record opening with the paper's title and abstract ahead of ~700 tokens of static "
          "instructions, whose twelve '- field: definition' bullets come in a different order per request; ~300 "
          "static tokens after them", LIT,
          notes="the fix: instructions with the bullets in one order, then the title and abstract")
def _abstract_fields(rng: random.Random, d: Scribe) -> list[Pair]:
    head, tail = "\n\n".join([d.preface(), d.guide(5)]), d.guide(2, start=5)
    bullets = [f"- {f}: {d.fact()}" for f in _PAPER_FIELDS]
    out = []
    for i in range(rng.randint(75, 95)):
        title, abstract = paper(rng)
        order, canon = shuffled(rng, bullets)
        body = lambda xs: f"{head}\n\nExtract these fields:\n" + "\n".join(xs) + f"\n\n{tail}"  # noqa: E731
        orig = prompt(i, f"{UNIT}Title:{MARK} {title}\nAbstract: {abstract}\n\n{body(order)}\n\nExtraction (JSON):")
        fixed = prompt(i, f"{body(canon)}\n\nTitle: {title}\nAbstract: {abstract}\n\nExtraction (JSON):")
        out.append((orig, fixed))
    return out


@workload("basket-count-and-tools-recent-first", "messages", ("dynamic", "order"),
          "the basket count ('Items in your basket: 3'; 0-12) ~230 tokens into the system prompt, and six tools "
          "listed with the shopper's most recently used tool first (6 orders; ~20% in the default order)", SHOP,
          notes="13 settings: the fix states the count at the start of the user turn, after the canonical tools")
def _count_tools(rng: random.Random, d: Scribe) -> list[Pair]:
    head, tail = "\n\n".join([d.preface(), d.guide(1)]), d.guide(5, start=1)
    out = []
    for i in range(rng.randint(80, 100)):
        n = rng.randint(0, 12)
        order = list(STATIC_SHOP)
        if rng.random() >= 0.2:
            k = rng.randrange(1, len(order))
            order = [order[k]] + order[:k] + order[k + 1:]
        q = d.question()
        orig = chat(i, [sys_msg(f"{head}\n\nItems in your basket: {MARK}{n}\n\n{tail}"), user(q)],
                    marked_first_tool(d, [d.tool(x) for x in order], [d.tool(x) for x in STATIC_SHOP]))
        fixed = chat(i, [sys_msg(f"{head}\n\n{tail}"), user(f"Items in your basket: {n}\n\n{q}")],
                     [d.tool(x) for x in STATIC_SHOP])
        out.append((orig, fixed))
    return out


def container_json(rng: random.Random) -> str:
    return pretty({"container": iso6346(rng), "iso_type": rng.choice(["45G1", "22G1", "45R1"]),
                   "status": rng.choice(["in yard", "on vessel", "gated in", "on rail"]),
                   "block": f"{rng.choice('ABCDEF')}{rng.randint(1, 40):02d}-{rng.randint(1, 6)}",
                   "holds": rng.sample(["customs", "line", "port health", "VGM missing"], rng.randint(0, 2)),
                   "vgm_kg": rng.randint(3800, 31000), "free_time_ends": f"2026-12-{rng.randint(2, 20):02d}"})


@workload("container-json-first-and-gate-queue-hourly-ids", "input_ids", ("placement", "dynamic"),
          "the container's status JSON (~90 tokens, unique) opening the system message ahead of ~1.1k tokens of "
          "static gate rules, in the middle of which the hour's gate queue ('Gate queue at 14:00: 37 trucks, "
          "about 55 min to the gate', 10 hours in arrival order); as token ids", PORT,
          notes="the fix: the rules, the queue line (few settings), then the container's JSON")
def _container_queue(rng: random.Random, d: Scribe) -> list[Pair]:
    a_part, b_part = "\n\n".join([d.preface(), d.guide(3)]), d.guide(6, start=3)
    queues = {h: f"{h:02d}:00: {rng.randint(5, 60)} trucks, about {rng.randint(10, 90)} min to the gate" for h in range(24)}
    out = []
    for i, ts in enumerate(hours_of(rng, rng.randint(80, 100), 7, 10)):
        cj = container_json(rng)
        queue = queues[hour(ts)]
        shown = UNIT + "Container status:\n" + cj.replace('"container": "', f'"container": "{MARK}', 1)
        q = d.question()
        orig = chat(i, [sys_msg(f"{shown}\n\n{a_part}\n\nGate queue at {MARK}{queue}.\n\n{b_part}"), user(q)], ts=ts)
        fixed = chat(i, [sys_msg(f"{a_part}\n\n{b_part}\n\nGate queue at {queue}.\n\nContainer status:\n{cj}"), user(q)], ts=ts)
        out.append((orig, fixed))
    return out


GAME_TOOLS = ["get_world_state", "give_item", "start_quest", "set_npc_flag"]
_LORE = ["The Ember Coast", "Saltreach harbour", "The Ashen Court", "The drowned lighthouse", "Lantern Guild law",
         "The wolf winter"]


def world_state(d: Scribe, clock: str | None) -> str:
    state: dict[str, Any] = {}
    if clock is not None:
        state["server_time"] = clock
    state["region"] = "ember-coast-07"
    state["weather"] = "sea fog, clearing by noon"
    state["events"] = [{"id": f"ev-{k}", "text": d.doc("event", k, 2)} for k in range(6)]
    state["prices"] = {"iron ore": 14, "wolf pelt": 9, "lamp oil": 3, "salted fish": 2}
    return pretty(state)


@workload("lore-blocks-shuffled-and-server-clock-in-result", "messages", ("order", "dynamic"),
          "six '[Lore: ...]' blocks of the NPC's system prompt in a different order per request, and a fixed "
          "get_world_state step whose JSON result opens with the server clock (seconds, unique) ahead of ~450 "
          "static tokens of events and prices; four tools; the player's line last", GAME)
def _lore_clock(rng: random.Random, d: Scribe) -> list[Pair]:
    persona = npc_persona(d, "Ysolde Marr, the fishmonger of Saltreach")
    blocks = [f"[Lore: {t}]\n{d.paragraph(3)}" for t in _LORE]
    tail = d.guide(4)
    tools = [d.tool(n) for n in GAME_TOOLS]
    call = tool_call("call_w", "get_world_state", {"region": "ember-coast-07", "fields": ["time", "weather", "events", "prices"]})
    n = rng.randint(75, 95)
    times = [BASE_TIME + 13 * 3600 + 41.0 * i + rng.uniform(0, 30) for i in range(n)]
    clocks = [iso(t) for t in times]
    shown_clocks = common_mark(clocks)
    out = []
    for i in range(n):
        order, canon = shuffled(rng, blocks)
        line = player_line(rng)
        pre = "*The player walks up to the stall.*"
        orig = chat(i, [sys_msg(f"{persona}\n\n" + "\n\n".join(order) + f"\n\n{tail}"), user(pre), call,
                        tool_result("call_w", world_state(d, shown_clocks[i])), user(line)], tools, times[i])
        fixed = chat(i, [sys_msg(f"{persona}\n\n" + "\n\n".join(canon) + f"\n\n{tail}"), user(pre), call,
                         tool_result("call_w", world_state(d, None)), user(f"(server_time {clocks[i]})\n\n{line}")],
                     tools, times[i])
        out.append((orig, fixed))
    return out


_AMENITIES = ["Rooftop bar open 17:00-01:00", "Spa with sauna and steam room, bookable by the hour",
              "Gym open around the clock with a room key", "Bike hire from the front desk",
              "Electric car chargers in the basement car park", "Luggage storage on the day of departure",
              "Laundry and pressing with same-day return before 10:00", "Meeting rooms for up to 40 people",
              "Children's club at weekends and school holidays"]


def guest_thread(rng: random.Random, d: Scribe) -> str:
    lines = []
    for _ in range(rng.randint(1, 3)):
        day_no = rng.randint(1, 28)
        lines += [f"Guest ({day_no} Nov): {d.question()}", f"Agent ({day_no} Nov): {d.answer()}"]
    return "\n".join(lines)


@workload("guest-thread-amenities-room-rate-prompt", "prompt", ("placement", "order", "dynamic"),
          "three defects in a concierge prompt record: the guest's earlier message thread (per guest) ahead of "
          "the static handbook, nine amenity bullets in a different order per request ~500 tokens into it, and "
          "the guest's room and nightly rate ('Room 614, £212 per night, bed and breakfast', unique) ~450 tokens "
          "after them, ~350 static tokens after it", HOTEL,
          notes="the fix: the handbook with the amenities in one order, the thread, the question, then the room")
def _three(rng: random.Random, d: Scribe) -> list[Pair]:
    a_part, b_part, c_part = "\n\n".join([d.preface(), d.guide(3)]), d.guide(3, start=3), d.guide(2, start=6)
    bullets = [f"- {x}." for x in _AMENITIES]
    out = []
    for i in range(rng.randint(70, 90)):
        thread = guest_thread(rng, d)
        room = f"{rng.randint(1, 8)}{rng.randint(1, 30):02d}, £{rng.randint(119, 480)} per night, " \
               f"{rng.choice(['room only', 'bed and breakfast', 'half board'])}"
        order, canon = shuffled(rng, bullets)
        q = d.question()
        shown = UNIT + "Previous messages with this guest:\n" + thread.replace("Guest (", f"Guest ({MARK}", 1)
        orig = prompt(i, f"{shown}\n\n{a_part}\n\nAmenities:\n" + "\n".join(order) + f"\n\n{b_part}\n\nRoom {MARK}{room}."
                         f"\n\n{c_part}\n\nGuest: {q}\nAgent:")
        fixed = prompt(i, f"{a_part}\n\nAmenities:\n" + "\n".join(canon) + f"\n\n{b_part}\n\n{c_part}\n\n"
                          f"Previous messages with this guest:\n{thread}\n\nGuest: {q}\nRoom {room}.\nAgent:")
        out.append((orig, fixed))
    return out


_LINT = [("E501", "line too long (limit 110)"), ("F401", "imported but unused"), ("B008", "function call in default argument"),
         ("UP035", "deprecated typing import"), ("SIM108", "use a ternary instead of if-else assignment"),
         ("RUF012", "mutable class attribute without ClassVar"), ("PLR0913", "more than six arguments"),
         ("ARG002", "unused method argument"), ("N806", "non-lowercase variable in function"),
         ("C901", "function too complex (limit 12)"), ("I001", "unsorted imports"), ("T201", "print statement left in")]


@workload("branch-commit-line-and-lint-bullets-ids", "input_ids", ("dynamic", "order"),
          "the workspace line ('Workspace: payments-monorepo @ RISK-3120-ledger (4f9c2e1)'; 40 branches, commit per "
          "request) on line 1 of a coding system prompt, and twelve ruff rule bullets ('- E501: ...') in a "
          "different order per request ~700 tokens later, ~450 static tokens after; as token ids", CODE)
def _branch_lint(rng: random.Random, d: Scribe) -> list[Pair]:
    head, tail = "\n\n".join([d.preface(), d.guide(5)]), d.guide(4, start=5)
    bullets = [f"- {c}: {t}" for c, t in _LINT]
    branches = [f"{rng.choice(_PROJECTS)}-{rng.randint(100, 4999)}-{rng.choice(_IDENTS).replace('_', '-')}" for _ in range(40)]
    out = []
    for i in range(rng.randint(75, 95)):
        ws = f"payments-monorepo @ {rng.choice(branches)} ({hexid(rng, 7)})"
        order, canon = shuffled(rng, bullets)
        q = d.question()
        lint = "Lint rules enforced in CI:\n"
        orig = chat(i, [sys_msg(f"Workspace: payments-monorepo @{MARK}{ws[len('payments-monorepo @'):]}\n\n{head}\n\n{lint}"
                                + "\n".join(order) + f"\n\n{tail}"), user(q)])
        fixed = chat(i, [sys_msg(f"{head}\n\n{lint}" + "\n".join(canon) + f"\n\n{tail}"), user(f"Workspace: {ws}\n\n{q}")])
        out.append((orig, fixed))
    return out


# ---------------------------------------------------------------- clean controls


@workload("clean-review-diff-last-prompt", "prompt", (),
          "a static 1.6k-token code-review prompt record, then the diff under review (150-600 tokens) and the "
          "reviewer's question last", CODE)
def _c_diff_last(rng: random.Random, d: Scribe) -> list[Pair]:
    static = "\n\n".join([d.preface(), d.guide(13)])
    recs = []
    for i in range(rng.randint(20, 28)):
        recs.append(prompt(i, f"{static}\n\nDiff:\n```diff\n{unified_diff(rng)}\n```\n\nQuestion: {d.question()}\nReview:"))
    return _same(recs)


@workload("clean-voice-calls-timestamped-turns-ids", "input_ids", (),
          "voice calls of 1-8 growing turns, interleaved: each user turn is an ASR segment with its own times, kept "
          "as sent in the later turns' history; static 1.5k-token system prompt; as token ids", VOICE)
def _c_voice(rng: random.Random, d: Scribe) -> list[Pair]:
    system = "\n\n".join([d.preface(), d.guide(12)])
    lengths = [rng.choice([1, 2, 3, 4, 5, 8]) for _ in range(rng.randint(18, 24))]
    turns = []
    for k in lengths:
        t, call = 0.0, []
        for _ in range(k):
            call.append((asr(rng, t), d.answer()))
            t += rng.uniform(15, 60)
        turns.append(call)
    recs = [chat(i, [sys_msg(system)] + history(turns[c][:t]) + [user(turns[c][t][0])])
            for i, (c, t) in enumerate(sessions(rng, lengths))]
    return _same(recs)


@workload("clean-coding-agent-loop-hashes", "messages", (),
          "coding agent loops of 2-6 steps behind a 2.5k-token system prompt and five static tools: run_tests "
          "and read_file results holding durations, seeds and hashes appended step by step", CODE)
def _c_agent(rng: random.Random, d: Scribe) -> list[Pair]:
    system = "\n\n".join([d.preface(), d.guide(20)])
    tools = [d.tool(n) for n in CODE_TOOLS]
    recs = []
    i = 0
    for task in range(rng.randint(16, 22)):
        msgs: list[dict[str, Any]] = [sys_msg(system), user(d.question())]
        for step in range(rng.randint(2, 6)):
            recs.append(chat(i, [dict(m) for m in msgs], tools))
            i += 1
            cid = f"t{task}s{step}"
            if rng.random() < 0.5:
                msgs.append(tool_call(cid, "run_tests", {"target": f"tests/{rng.choice(_IDENTS)}", "timeout_s": 600}))
                msgs.append(tool_result(cid, f"{rng.randint(10, 400)} passed, {rng.randint(0, 3)} failed in "
                                             f"{rng.uniform(2, 90):.2f}s (seed {rng.randint(10**6, 10**7)}, cache "
                                             f"{hexid(rng, 12)})"))
            else:
                path, code = code_file(rng)
                msgs.append(tool_call(cid, "read_file", {"path": path}))
                msgs.append(tool_result(cid, f"# sha1 {hexid(rng, 40)}\n{code}"))
    return _same(recs)


@workload("clean-ab-npc-prompts-shared-opening", "messages", (),
          "an A/B test of two NPC system prompts that share their opening (persona and ~250 tokens) and nothing "
          "after it; player lines last", GAME)
def _c_ab(rng: random.Random, d: Scribe) -> list[Pair]:
    opening = "\n\n".join([npc_persona(d, "Brannoc, the ferryman of the Ember Coast"), d.guide(2)])
    arms = ["\n\n".join([opening, d.guide(8, start=2)]), "\n\n".join([opening, d.guide(7, start=2)])]
    recs = [chat(i, [sys_msg(rng.choice(arms)), user(player_line(rng))]) for i in range(rng.randint(90, 110))]
    return _same(recs)


@workload("clean-label-limit-changes-once-ids", "input_ids", (),
          "a label limit ~1.2k tokens into a 1.6k-token system prompt that changes once (a register update "
          "mid-log, 'max 1.2 l/ha' to 'max 1.0 l/ha') and then stays; as token ids", AGRI,
          notes="one change costs one copy of the ~400 tokens after it: moving the value would gain ~0.3%")
def _c_once(rng: random.Random, d: Scribe) -> list[Pair]:
    head, tail = "\n\n".join([d.preface(), d.guide(10)]), d.guide(3, start=10)
    n = rng.randint(95, 115)
    cut = rng.randint(n // 3, 2 * n // 3)
    recs = [chat(i, [sys_msg(f"{head}\n\nAscra Xpro on winter wheat: max {'1.2' if i < cut else '1.0'} l/ha per "
                             f"application, two applications.\n\n{tail}"), user(d.question())]) for i in range(n)]
    return _same(recs)


@workload("clean-sorted-passages-last-prompt", "prompt", (),
          "static instructions, then 3-5 passages retrieved per request from 300, always in ascending id order, "
          "and the question last", LIT)
def _c_sorted(rng: random.Random, d: Scribe) -> list[Pair]:
    static = "\n\n".join([d.preface(), d.guide(9)])
    corpus = abstract_corpus(d, 300)
    recs = []
    for i in range(rng.randint(75, 95)):
        picked = sorted(rng.sample(range(300), rng.randint(3, 5)))
        recs.append(prompt(i, f"{static}\n\nSources:\n\n" + "\n\n".join(corpus[k] for k in picked)
                           + f"\n\nQuestion: {d.question()}\nAnswer (cite by id):"))
    return _same(recs)


@workload("clean-two-extraction-jobs-prompt", "prompt", (),
          "two batch jobs on one endpoint, interleaved: clause extraction and engagement-letter triage, each with "
          "its own static prompt (1.2-1.5k tokens, nothing shared after the first words) and the document last", LAW)
def _c_two_jobs(rng: random.Random, d: Scribe) -> list[Pair]:
    a = "\n\n".join([d.preface(), d.guide(8), "Return JSON of this shape:\n```json\n" + EXTRACT_SCHEMA + "\n```"])
    b = "\n\n".join(["You triage engagement letters for the conflicts team.", d.guide(8, start=8)])
    recs = []
    for i in range(rng.randint(80, 100)):
        if rng.random() < 0.6:
            recs.append(prompt(i, f"{a}\n\nDocument:\n{contract(rng)}\n\nExtraction (JSON):"))
        else:
            recs.append(prompt(i, f"{b}\n\nLetter:\n{contract(rng)}\n\nTriage:"))
    return _same(recs)


@workload("clean-multilingual-guest-sessions", "messages", (),
          "a static system prompt with Czech, Dutch and Portuguese rules; guest chats of 1-5 growing turns in "
          "those languages, interleaved", HOTEL)
def _c_guests(rng: random.Random, d: Scribe) -> list[Pair]:
    system = "\n\n".join([d.preface(), "\n".join(CZECH), "\n".join(DUTCH), "\n".join(PORTUGUESE), d.guide(7)])
    asks = CZECH_ASKS + DUTCH_ASKS + PORTUGUESE_ASKS
    lengths = [rng.randint(1, 5) for _ in range(rng.randint(22, 30))]
    turns = [[(rng.choice(asks) + f" ({d.ref()})", d.answer()) for _ in range(k)] for k in lengths]
    recs = [chat(i, [sys_msg(system)] + history(turns[c][:t]) + [user(turns[c][t][0])])
            for i, (c, t) in enumerate(sessions(rng, lengths))]
    return _same(recs)


_STOREFRONTS = [("en-GB", "GBP"), ("de-DE", "EUR"), ("fr-FR", "EUR"), ("nl-NL", "EUR"), ("es-ES", "EUR"),
                ("it-IT", "EUR"), ("pt-PT", "EUR"), ("cs-CZ", "CZK"), ("fi-FI", "EUR"), ("en-US", "USD"),
                ("en-CA", "CAD"), ("en-AU", "AUD")]


@workload("clean-storefront-locale-after-tools", "messages", (),
          "six static tools and a static system prompt; the user turn opens with the storefront's locale and "
          "currency (12 settings) right after the shared tools, then the question", SHOP,
          notes="already right after everything shared: moving the locale to the end of the turn measures worse")
def _c_locale(rng: random.Random, d: Scribe) -> list[Pair]:
    system = "\n\n".join([d.preface(), d.guide(6)])
    tools = [d.tool(n) for n in STATIC_SHOP]
    recs = []
    for i in range(rng.randint(85, 105)):
        loc, cur = rng.choice(_STOREFRONTS)
        recs.append(chat(i, [sys_msg(system), user(f"Storefront: {loc}, prices in {cur}.\n\n{d.question()}")], tools))
    return _same(recs)


@workload("clean-dialogue-choice-tree-ids", "input_ids", (),
          "branching NPC dialogue: each request is a playthrough's next step, the history holding the player's "
          "earlier choices (one of three at each step) and the NPC's fixed reply to each; playthroughs that chose "
          "alike share their history; static system prompt; as token ids", GAME)
def _c_tree(rng: random.Random, d: Scribe) -> list[Pair]:
    system = "\n\n".join([npc_persona(d, "Captain Idris Kell of the Lantern Guild"), d.guide(8)])
    options = {}

    def node(path: tuple[int, ...]) -> tuple[list[str], str]:
        if path not in options:
            local = random.Random(f"{d.name}/node/{path}")
            options[path] = ([local.choice(_PLAYER) + f" [choice {len(path)}.{k}]" for k in range(3)],
                             d.answer() + " " + d.fact())
        return options[path]

    plays = [[rng.choice([0, 0, 1, 2]) for _ in range(rng.randint(1, 6))] for _ in range(rng.randint(22, 28))]
    lengths = [len(p) for p in plays]
    recs = []
    for i, (c, t) in enumerate(sessions(rng, lengths)):
        msgs = [sys_msg(system)]
        for s in range(t + 1):
            opts, reply = node(tuple(plays[c][:s]))
            msgs.append(user(opts[plays[c][s]]))
            if s < t:
                msgs.append(assistant(node(tuple(plays[c][:s + 1]))[1]))
        recs.append(chat(i, msgs))
    return _same(recs)


@workload("clean-tide-table-end-of-system", "messages", (),
          "the day's tide table (4 tides with heights, 2 days; ~70 tokens) at the end of a 1.3k-token system "
          "prompt, after all static content; questions last; no timestamps", PORT,
          notes="2 settings already right after the shared content")
def _c_tide(rng: random.Random, d: Scribe) -> list[Pair]:
    system = "\n\n".join([d.preface(), d.guide(10)])
    tables = []
    for day_no in (1, 2):
        tides = [f"{h:02d}:{rng.randint(0, 59):02d} {kind} {rng.randint(5, 62) / 10} m" for h, kind in
                 zip(sorted(rng.sample(range(24), 4)), ["HW", "LW", "HW", "LW"])]
        tables.append(f"Tides for {day_no} December 2026 (Gannet Bay): " + "; ".join(tides) + ".")
    recs = []
    for i, ts in enumerate(spread(rng, rng.randint(80, 100), 2)):
        recs.append(untimed(chat(i, [sys_msg(f"{system}\n\n{tables[day(ts)]}"), user(d.question())])))
    return _same(recs)
