"""The simulator's former seed workloads (before they became workload specs), kept as a
diagnosis fixture: the classic RAG experiment, in order and scrambled, as token ids.

Each request = a 2,000-token system prompt, a 300-token tool block, one of 4 documents
of 500 tokens and a 60-token question (REFERENCE-style sizes from the issue). The text
is English-like prose from a fixed vocabulary, tokenized with the Llama 3 tokenizer and
cut to exact token counts, so the sharing is what real tokenized sections give.
``scrambled`` permutes system, tools and document per request (the question stays
last), which destroys most shared prefixes: the point of the experiment.

Arrivals come in bursts (Poisson at a rate above what one replica serves) so a queue
forms and the scheduler has choices; the default pool is small (room for the system
prompt, the tools and about two documents), where cache-aware ordering matters.
"""

from __future__ import annotations

import random
from array import array

from advisor.errors import AdvisorError
from advisor.index.radix import pack
from advisor.simulate.jobs import JobStore

SYSTEM_TOKENS = 2000
TOOLS_TOKENS = 300
DOC_TOKENS = 500
DOCS = 4
QUESTION_TOKENS = 60

WORKLOAD_DEFAULTS = {
    "requests": 240,
    "rate": 40.0,  # requests/s: more than one H100 prefills at 2,860 uncached tokens each
    "output_len": 16,
    "capacity_tokens": 4_000,
    "policies": ("fcfs", "lpm", "dfs-weight"),
}

_WORDS = (
    "the a of to and in for on with by from at as that this these those it its is are was "
    "be been has have had will would can could should may might must not no all any each "
    "every some many more most other such only also very just than then there here when "
    "where which who what how why customer account order invoice payment refund policy "
    "service support request response system model document section table record field "
    "value report summary question answer context source data file page version update "
    "change error issue problem result process step task tool call function parameter "
    "argument schema format date time number name address email phone product item price "
    "quantity total balance status active pending closed open review approve reject send "
    "receive check verify confirm cancel create delete search find list show return use "
    "read write store load save keep follow explain describe include provide ensure avoid "
    "always never please note important relevant accurate clear short detailed helpful "
    "assistant user team company office region market quarter annual monthly weekly daily"
).split()


def _prose(rng: random.Random, words: int) -> str:
    out = []
    sentence: list[str] = []
    for _ in range(words):
        sentence.append(rng.choice(_WORDS))
        if len(sentence) >= rng.randint(8, 18):
            out.append(" ".join(sentence).capitalize() + ".")
            sentence = []
    if sentence:
        out.append(" ".join(sentence).capitalize() + ".")
    return " ".join(out)


def _section(encode, rng: random.Random, title: str, tokens: int) -> list[int]:
    """Real tokens of generated prose, cut to exactly ``tokens``."""
    ids = encode(f"\n\n## {title}\n\n" + _prose(rng, tokens))
    while len(ids) < tokens:
        ids += encode(" " + _prose(rng, tokens))
    return ids[:tokens]


def build_workload(name: str, requests: int | None = None, seed: int = 0,
                   rate: float | None = None, output_len: int | None = None) -> JobStore:
    """Jobs of the ``rag`` or ``scrambled`` seed workload, in arrival order."""
    if name not in ("rag", "scrambled"):
        raise AdvisorError(f"unknown --workload '{name}': use rag or scrambled")
    from advisor.ingest.tokenizers import load_tokenizer

    tok = load_tokenizer("llama3")
    encode = tok.encode
    text_rng = random.Random(1234)  # the same sections for every seed and both workloads
    system = _section(encode, text_rng, "System", SYSTEM_TOKENS)
    tools = _section(encode, text_rng, "Tools", TOOLS_TOKENS)
    docs = [_section(encode, text_rng, f"Document {i + 1}", DOC_TOKENS) for i in range(DOCS)]
    bos = encode(tok.bos_token)[:1] if tok.bos_token else []
    rng = random.Random(seed)
    n = requests or int(WORKLOAD_DEFAULTS["requests"])
    lam = rate or float(WORKLOAD_DEFAULTS["rate"])
    out_len = output_len or int(WORKLOAD_DEFAULTS["output_len"])
    jobs = JobStore()
    t = 0.0
    for i in range(n):
        doc = rng.randrange(DOCS)
        question = _section(encode, rng, "Question", QUESTION_TOKENS)
        parts = [system, tools, docs[doc]]
        if name == "scrambled":
            rng.shuffle(parts)
        ids = array("I", bos + parts[0] + parts[1] + parts[2] + question)
        jobs.append("tokens", pack(ids), len(ids), 1, t, out_len)
        t += rng.expovariate(lam)
    return jobs.seal()
