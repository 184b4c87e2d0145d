"""The bundled demo data: templates/ and the traffic generated from them.

The committed JSONL files must equal what templates/generate_traffic.py produces (staleness
check), the planted defect must be in support_chat and only there, and the static system prompts
must be long enough to matter for prefix caching (1,500-3,000 Llama 3 tokens).
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
TEMPLATES = ROOT / "templates"
TRAFFIC = TEMPLATES / "traffic"

CLOCK_LINE = re.compile(r"^Current date and time: (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{3})? UTC)\n")
SENT_AT = re.compile(r"\n\n\(Sent at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{3})? UTC\)$")
LEADING_DATE = re.compile(r"^\W*(?:[A-Za-z ]{0,30}:\s*)?\d{4}-\d\d-\d\d")

EXPECTED_COUNTS = {
    "rag_tools.jsonl": 380,
    "agent_tools.jsonl": 300,
    "support_chat.jsonl": 300,
    "single_shot.jsonl": 200,
    "rag_templated.jsonl": 50,
    "fixed/support_chat_fixed.jsonl": 300,
}


def _load_generator():
    spec = importlib.util.spec_from_file_location("generate_traffic", TEMPLATES / "generate_traffic.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def gen():
    return _load_generator()


@pytest.fixture(scope="module")
def rendered(gen):
    return gen.render_all()


@pytest.fixture(scope="module")
def tok():
    from advisor.ingest.tokenizers import load_tokenizer

    return load_tokenizer("llama3")


def read(rel: str) -> list[dict]:
    with open(TRAFFIC / rel, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


def system_of(record: dict) -> str:
    assert record["messages"][0]["role"] == "system"
    return record["messages"][0]["content"]


# ---------------------------------------------------------------------------------------------
# Staleness and determinism
# ---------------------------------------------------------------------------------------------

def test_generator_covers_every_committed_file(rendered):
    committed = sorted(p.relative_to(TRAFFIC).as_posix() for p in TRAFFIC.rglob("*.jsonl"))
    assert committed == sorted(rendered) == sorted(EXPECTED_COUNTS)


@pytest.mark.parametrize("rel", sorted(EXPECTED_COUNTS))
def test_committed_file_is_up_to_date(rendered, rel):
    on_disk = (TRAFFIC / rel).read_bytes()
    assert on_disk == rendered[rel].encode("utf-8"), (
        f"templates/traffic/{rel} is stale: run python templates/generate_traffic.py"
    )


def test_generation_is_deterministic(gen):
    for workload in gen.WORKLOADS:
        first = gen.dumps(gen.generate(workload, n=25, seed=7))
        assert first == gen.dumps(gen.generate(workload, n=25, seed=7))
        assert first != gen.dumps(gen.generate(workload, n=25, seed=8))


def test_files_are_utf8_lf_and_small():
    for rel in EXPECTED_COUNTS:
        data = (TRAFFIC / rel).read_bytes()
        assert b"\r" not in data
        assert data.endswith(b"\n")
        data.decode("utf-8")
        assert len(data) < 6_200_000, f"{rel} is {len(data)} bytes"


def test_generator_is_standalone():
    source = (TEMPLATES / "generate_traffic.py").read_text(encoding="utf-8")
    assert not re.search(r"^\s*(from|import)\s+advisor\b", source, re.MULTILINE)
    assert "ImmutableSandboxedEnvironment" in source


# ---------------------------------------------------------------------------------------------
# Shape: counts, timestamps, fields
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("rel,count", sorted(EXPECTED_COUNTS.items()))
def test_counts_ids_and_increasing_timestamps(rel, count):
    records = read(rel)
    assert len(records) == count
    ids = [r["id"] for r in records]
    assert len(set(ids)) == len(ids)
    times = [r["timestamp"] for r in records]
    assert all(isinstance(t, float) for t in times)
    assert all(a < b for a, b in zip(times, times[1:])), "timestamps must strictly increase"
    rate = (len(times) - 1) / (times[-1] - times[0])
    assert 1.5 <= rate <= 6.0, f"{rel}: {rate:.2f} requests/s"
    for r in records:
        assert isinstance(r["tenant"], str) and r["tenant"]
        assert isinstance(r["output_length"], int) and r["output_length"] > 0


def test_rag_tools_shape():
    records = read("rag_tools.jsonl")
    assert {r["tenant"] for r in records} == {"acme", "globex", "initech"}
    questions = set()
    for r in records:
        assert [m["role"] for m in r["messages"]] == ["system", "user"]
        user = r["messages"][1]["content"]
        assert user.startswith("Retrieved documents:\n\n[1] ")
        n_docs = len(re.findall(r"^\[\d\] ", user, re.MULTILINE))
        assert 3 <= n_docs <= 5
        question = user.rsplit("\n\nQuestion: ", 1)[1]
        assert question and "{" not in question
        questions.add(question)
        assert "tools" not in r  # the tool schemas are part of the static system prompt
    assert len(questions) > 150, "questions should vary"


def test_rag_corpus_documents(tok, gen):
    docs = gen.KB.DOCUMENTS
    assert len(docs) == 40
    assert len({title for title, _ in docs}) == 40
    lengths = [len(tok.encode(text)) for _, text in docs]
    assert min(lengths) >= 200 and max(lengths) <= 500, (min(lengths), max(lengths))


def test_rag_templated_matches_rag_template(gen):
    records = read("rag_templated.jsonl")
    template = gen.load_rag_template()
    for r in records:
        assert r["template"] == "rag_tools"
        assert set(r["variables"]) == {"documents", "question"}
        assert 3 <= len(r["variables"]["documents"]) <= 5
        assert all(set(d) == {"title", "text"} for d in r["variables"]["documents"])
        assert "messages" not in r
    # the same rendering as the messages records
    user = template[1]["template"].render(**records[0]["variables"])
    assert user.endswith("Question: " + records[0]["variables"]["question"])


def test_rag_templated_renders_with_the_advisor_template_set(gen):
    from advisor.ingest import prompt_templates
    templates = prompt_templates.TemplateSet([TEMPLATES])
    rag_system = system_of(read("rag_tools.jsonl")[0])
    for r in read("rag_templated.jsonl")[:5]:
        out = templates.get(r["template"]).render(r["variables"])
        messages = [dict(m) for m in out.messages]
        expected = [{"role": m["role"], "content": m["template"].render(**r["variables"])}
                    for m in gen.load_rag_template()]
        assert messages == expected
        assert messages[0]["content"] == rag_system


def test_agent_tools_shape(gen):
    records = read("agent_tools.jsonl")
    _, tools = gen.load_agent_template()
    names = {t["function"]["name"] for t in tools}
    assert len(tools) >= 6
    multi_step = 0
    by_prefix = {json.dumps(r["messages"][:2]): [] for r in records}
    for r in records:
        assert r["tools"] == tools
        assert r["messages"][0]["role"] == "system" and r["messages"][1]["role"] == "user"
        for m in r["messages"][2:]:
            assert m["role"] in ("assistant", "tool")
            if m["role"] == "assistant":
                call = m["tool_calls"][0]["function"]
                assert call["name"] in names
                json.loads(call["arguments"])
        if len(r["messages"]) > 2:
            multi_step += 1
        by_prefix[json.dumps(r["messages"][:2])].append(r["messages"])
    assert multi_step >= 100
    # later steps of an episode extend the earlier ones message by message
    extended = 0
    for episode in by_prefix.values():
        for earlier, later in zip(episode, episode[1:]):
            if len(later) > len(earlier):
                assert later[: len(earlier)] == earlier
                extended += 1
    assert extended >= 100


def test_support_chat_conversations_carry_history():
    records = read("support_chat.jsonl")
    conversations: dict[str, list[dict]] = {}
    for r in records:
        roles = [m["role"] for m in r["messages"]]
        assert roles[0] == "system" and roles[-1] == "user"
        assert roles[1:] == ["user", "assistant"] * (len(roles) // 2 - 1) + ["user"]
        conversations.setdefault(r["conversation_id"], []).append(r)
    turns = [len(c) for c in conversations.values()]
    assert max(turns) <= 6 and min(turns) >= 1 and sum(t > 1 for t in turns) >= 30
    for conv in conversations.values():
        for earlier, later in zip(conv, conv[1:]):
            assert later["messages"][1: len(earlier["messages"])] == earlier["messages"][1:]


def test_single_shot_shares_almost_nothing(tok, gen):
    records = read("single_shot.jsonl")
    instruction = gen.SUMMARY_INSTRUCTION
    assert len(tok.encode(instruction)) < 30
    openings = set()
    for r in records:
        assert [m["role"] for m in r["messages"]] == ["user"]
        text = r["messages"][0]["content"]
        assert text.startswith(instruction + "\n\n")
        document = text[len(instruction) + 2:]
        assert 400 <= len(tok.encode(document)) <= 1500
        openings.add(tuple(tok.encode(document)[:4]))
    assert len(openings) == len(records), "two documents share an opening"


# ---------------------------------------------------------------------------------------------
# The planted defect: present in support_chat, absent everywhere else
# ---------------------------------------------------------------------------------------------

def test_support_chat_has_the_dynamic_prefix_defect():
    records = read("support_chat.jsonl")
    stamps = []
    rests = set()
    for r in records:
        system = system_of(r)
        match = CLOCK_LINE.match(system)
        assert match, system[:80]
        stamps.append(match.group(1))
        rests.add(system[match.end():])
    assert len(set(stamps)) == len(records), "the timestamp must differ per request"
    assert stamps == sorted(stamps), "the timestamp advances with the arrival time"
    assert len(rests) == 1, "everything after the timestamp line is static"


def test_fixed_variant_has_a_static_system_prompt():
    broken = read("support_chat.jsonl")
    fixed = read("fixed/support_chat_fixed.jsonl")
    assert len({system_of(r) for r in fixed}) == 1
    assert not CLOCK_LINE.match(system_of(fixed[0]))
    assert "{{" not in system_of(fixed[0])
    for b, f in zip(broken, fixed):
        assert (b["id"], b["timestamp"], b["tenant"], b["output_length"]) == \
               (f["id"], f["timestamp"], f["tenant"], f["output_length"])
        # the same system text once the timestamp line is gone
        assert CLOCK_LINE.sub("", system_of(b)).lstrip("\n") == system_of(f)
        # the timestamp moved to the end of the user turns
        assert len(b["messages"]) == len(f["messages"])
        for mb, mf in zip(b["messages"][1:], f["messages"][1:]):
            if mf["role"] == "user":
                assert SENT_AT.search(mf["content"])
                assert SENT_AT.sub("", mf["content"]) == mb["content"]
            else:
                assert mf == mb


def test_fixed_variant_equals_generate_without_defect(gen):
    assert gen.dumps(gen.generate("support_chat", defect=False)) == \
        (TRAFFIC / "fixed" / "support_chat_fixed.jsonl").read_text(encoding="utf-8")


@pytest.mark.parametrize("rel", ["rag_tools.jsonl", "agent_tools.jsonl"])
def test_clean_workloads_have_one_static_system_prompt(rel):
    records = read(rel)
    systems = {system_of(r) for r in records}
    assert len(systems) == 1
    assert not LEADING_DATE.match(systems.pop())


def test_templates_contain_dynamic_values_only_where_intended():
    support = (TEMPLATES / "support_chat.j2").read_text(encoding="utf-8")
    assert support.splitlines()[0] == "Current date and time: {{ now }}"
    assert re.findall(r"\{\{.*?\}\}|\{%.*?%\}", support) == ["{{ now }}"]
    rag = yaml.safe_load((TEMPLATES / "rag_tools.yaml").read_text(encoding="utf-8"))
    assert rag["name"] and rag["description"]
    assert [m["role"] for m in rag["messages"]] == ["system", "user"]
    assert "{{" not in rag["messages"][0]["content"] and "{%" not in rag["messages"][0]["content"]
    assert rag["messages"][1]["content"].rstrip().endswith("Question: {{ question }}")
    prompty = (TEMPLATES / "agent_tools.prompty").read_text(encoding="utf-8")
    body = prompty.split("---\n", 2)[2]
    assert re.findall(r"\{\{.*?\}\}|\{%.*?%\}", body) == ["{{ task }}"]
    assert body.rstrip().endswith("user:\n{{ task }}")


def test_lint_reports_only_the_planted_defect(cli):
    result = cli("lint", TEMPLATES, "--format", "json")
    report = json.loads(result.out)
    findings = [(Path(f["path"]).name, f["code"], f["line"]) for f in report["findings"]]
    assert findings == [("support_chat.j2", "PC101", 1)]


# ---------------------------------------------------------------------------------------------
# System prompt lengths (real Llama 3 tokenizer)
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("rel", ["rag_tools.jsonl", "agent_tools.jsonl", "support_chat.jsonl",
                                 "fixed/support_chat_fixed.jsonl"])
def test_system_prompt_token_lengths(tok, rel):
    records = read(rel)
    for record in (records[0], records[-1]):
        n = len(tok.encode(system_of(record)))
        assert 1500 <= n <= 3000, f"{rel}: system prompt of {n} tokens"
