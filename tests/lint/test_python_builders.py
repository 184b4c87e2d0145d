"""Lint of Python prompt builders (advisor.lint.python), over a corpus written as test data.

`data/python/` holds realistic builders: one planted defect or more in each file not named
`clean_*`, and a clean builder of every kind. Each planted defect must be found at its line
with its code, and nothing else; the clean builders (and the repository's own demo scripts)
must get nothing at warning level or above. Suppressions, fixes, SARIF, syntax errors and the
limits of the analysis are checked on small modules written here.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import jsonschema
import pytest

from advisor.lint import config, engine, output
from advisor.lint import python as py
from advisor.lint.config import LintConfig
from advisor.lint.python import build
from advisor.rules import REGISTRY

from .test_rule_cases import is_fail, load_cases

HERE = Path(__file__).parent
CORPUS = HERE / "data" / "python"
REPO = HERE.parents[1]
SCHEMA = HERE / "data" / "sarif-schema-2.1.0.json"

# file -> the planted defects: (code, a piece of the line the finding must be on).
PLANTED = {
    "openai_rag_service.py": [("PC101", 'system_prompt = f"Current date and time:')],
    "anthropic_agent_wrong_breakpoint.py": [("PC101", '"text": f"It is {now:%A %H:%M} UTC.'),
                                            ("PC501", '"cache_control": {"type": "ephemeral"}')],
    "litellm_router.py": [("PC101", 'system = f"[request {request_id}]'), ("PC403", "tools = [t for t in TOOLS if")],
    "vllm_batch.py": [("PC101", 'prompts = [f"Generated at {time.time()')],
    # The serialized settings are a string made on line 40 and put into the prompt on line 41
    # (PC101 sits where a value is put into the text); the unsorted dump is line 40's (PC103).
    "fastapi_chat.py": [("PC101", 'f"You are helping {req.customer_name}'), ("PC101", 'system = f"Account settings: {settings}'),
                        ("PC103", 'settings = json.dumps(body["account_settings"])')],
    "tool_registry.py": [("PC103", "return [_REGISTRY[name] for name in ENABLED]")],
    "schema_prompt.py": [("PC101", 'system = f"Schema:\\n{json.dumps(schema'), ("PC103", 'system = f"Schema:\\n{json.dumps(schema')],
    "fewshot_classifier.py": [("PC101", "random.shuffle(examples)")],
    "fewshot_messages.py": [("PC101", "random.shuffle(pairs)")],
    "tool_registry_class.py": [("PC103", "return [tool.schema() for tool in self._tools]")],
    "shuffled_tools_agent.py": [("PC403", "random.shuffle(tools)")],
    "tiered_support.py": [("PC102", 'if customer.tier == "enterprise":')],
    "jinja_prompt.py": [("PC101", "SYSTEM_TEMPLATE.render(now=datetime.now()")],
    "sglang_program.py": [("PC101", 's += sgl.system(f"Session {uuid.uuid4()}')],
    "responses_api.py": [("PC101", 'instructions="Today: " + time.strftime(')],
    "tool_router.py": [("PC101", 'return f"Trace {self.trace_id}.'),
                       ("PC103", 'return f"Answer in one of these languages: {LANGUAGES}'),
                       ("PC403", "for name in tool_names:")],
    "batch_jobs.py": [("PC101", 'prompts.append(f"Run of {datetime.now()'), ("PC101", 'prompts[i] = f"{random.choice(GREETINGS)}'),
                      ("PC101", 'system = "Preferences: " + str(preferences)'),
                      ("PC103", 'system = "Preferences: " + str(preferences)')],
}
CLEAN = sorted(p.name for p in CORPUS.glob("clean_*.py"))


def lint_paths(paths, counter, cfg=None):
    return engine.lint_files([str(p) for p in paths], cfg or LintConfig(), REGISTRY, counter, cwd=REPO)


def line_of(path: Path, piece: str) -> int:
    lines = [n for n, text in enumerate(path.read_text(encoding="utf-8").split("\n"), 1) if piece in text]
    assert len(lines) == 1, f"{piece!r} is on lines {lines} of {path.name}"
    return lines[0]


@pytest.fixture(scope="module")
def corpus(counter):
    started = time.perf_counter()
    result = lint_paths([CORPUS], counter)
    return result, time.perf_counter() - started


def test_the_corpus_is_complete():
    assert set(PLANTED) | set(CLEAN) == {p.name for p in CORPUS.glob("*.py")}
    assert len(CLEAN) >= 10 and len(PLANTED) >= 10


@pytest.mark.parametrize("name", sorted(PLANTED))
def test_planted_defects_are_found_at_their_line_with_their_code(corpus, name):
    result, _ = corpus
    path = CORPUS / name
    want = sorted((line_of(path, piece), code) for code, piece in PLANTED[name])
    got = sorted((f.line, f.code) for f in result.findings if f.path.endswith("/" + name))
    assert got == want, [f"{f.line}:{f.column} {f.code} {f.message}" for f in result.findings if f.path.endswith("/" + name)]


@pytest.mark.parametrize("name", CLEAN)
def test_clean_builders_get_nothing_at_warning_or_above(corpus, name):
    result, _ = corpus
    loud = [f"{f.line}:{f.column} {f.code} {f.severity} {f.message}" for f in result.findings
            if f.path.endswith("/" + name) and f.severity in ("error", "warning")]
    assert loud == []


def test_every_corpus_file_is_linted_quickly(corpus):
    result, seconds = corpus
    assert sum(1 for f in result.files if f.endswith(".py")) == len(PLANTED) + len(CLEAN)
    assert seconds < 20, seconds  # about 1 s on the development machine, tokenizer included


def test_messages_name_the_source_and_the_cost(corpus):
    result, _ = corpus
    by_file = {f.path.rsplit("/", 1)[-1]: f for f in result.findings if f.code == "PC101"}
    rag = by_file["openai_rag_service.py"]
    assert "the clock (`datetime.now()`)" in rag.message and "into the system prompt" in rag.message
    assert rag.tokens_at_risk and rag.tokens_at_risk > 80
    router = by_file["litellm_router.py"]
    assert "(produced at line 32)" in router.message and "uuid.uuid4()" in router.message


def test_the_repositorys_demo_scripts_are_quiet(counter):
    """templates/ holds the demo prompts and the traffic generator: Python that builds prompt
    text (with a planted defect only in support_chat.j2, a template)."""
    scripts = sorted((REPO / "templates").glob("*.py"))
    assert {p.name for p in scripts} >= {"generate_traffic.py", "demo_agent.py", "demo_kb.py", "demo_support.py", "demo_docs.py"}
    result = lint_paths(scripts, counter)
    assert [(f.path, f.line, f.code) for f in result.findings if f.severity != "info"] == []


# --- the analysis, on small modules --------------------------------------------------------------

POLICY = ('POLICY = ("Follow the support policy exactly. Answer in short numbered steps, cite the policy section you used, "\n'
          '          "never promise refunds the policy does not allow, and escalate billing disputes to a human agent.")\n')


def findings(text: str, counter, table: dict | None = None, name: str = "builder.py"):
    cfg = config.parse(table or {}, "test", REGISTRY)
    return engine.lint_texts({name: text}, cfg, REGISTRY, counter).findings


def codes(text: str, counter, **kw) -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in findings(text, counter, **kw)]


def test_the_last_message_is_the_requests_own(counter):
    text = ("from datetime import datetime\nfrom openai import OpenAI\nclient = OpenAI()\n" + POLICY +
            "def ask(q, docs):\n"
            "    return client.chat.completions.create(model='m', messages=[\n"
            "        {'role': 'system', 'content': POLICY},\n"
            "        {'role': 'user', 'content': f'{datetime.now()} {docs}\\n' + POLICY + q}])\n")
    assert codes(text, counter) == []


def test_a_single_prompt_string_is_judged_whole(counter):
    text = ("from openai import OpenAI\nclient = OpenAI()\n" + POLICY +
            "def ask(docs, q):\n"
            "    return client.completions.create(model='m', prompt=f'{docs}\\n' + POLICY + q)\n")
    assert codes(text, counter) == [(6, "PC101")]


def test_calls_into_the_modules_own_functions_are_followed(counter):
    text = ("import uuid\nimport litellm\n" + POLICY +
            "def header(prefix):\n    return prefix + ' ' + str(uuid.uuid4()) + '\\n'\n"
            "def messages_for(q):\n    return [{'role': 'system', 'content': header('Run') + POLICY}, {'role': 'user', 'content': q}]\n"
            "def ask(q):\n    return litellm.completion(model='m', messages=messages_for(q))\n")
    assert codes(text, counter) == [(6, "PC101")]


def test_methods_see_what_init_set(counter):
    text = ("import anthropic\nfrom datetime import datetime\n" + POLICY +
            "class Bot:\n"
            "    def __init__(self, persona):\n"
            "        self.client = anthropic.Anthropic()\n"
            "        self.system = f'You are {persona}.\\n' + POLICY\n"
            "    def ask(self, q):\n"
            "        return self.client.messages.create(model='m', max_tokens=10, system=self.system,\n"
            "                                           messages=[{'role': 'user', 'content': q}])\n"
            "    def ask_late(self, q):\n"
            "        return self.client.messages.create(model='m', max_tokens=10, system=f'{datetime.now()}\\n' + self.system,\n"
            "                                           messages=[{'role': 'user', 'content': q}])\n")
    assert codes(text, counter) == [(13, "PC101")]


def test_configured_static_variables_are_steady_parameters(counter):
    text = ("from openai import OpenAI\nclient = OpenAI()\n" + POLICY +
            "def ask(brand, q):\n"
            "    return client.chat.completions.create(model='m', messages=[\n"
            "        {'role': 'system', 'content': f'You speak for {brand}.\\n' + POLICY}, {'role': 'user', 'content': q}])\n")
    assert codes(text, counter) == [(7, "PC101")]
    assert codes(text, counter, table={"static-variables": ["brand"]}) == []


def test_a_value_computed_at_import_still_counts(counter):
    # Once per process: each worker and each restart has its own prefix, and the date goes stale.
    text = "import uuid\n" + POLICY + "SYSTEM_PROMPT = f'Instance {uuid.uuid4()}.\\n' + POLICY\n"
    assert codes(text, counter) == [(4, "PC101")]


def test_loops_and_branches(counter):
    text = ("import random\n" + POLICY + "TAGS = ['a', 'b', 'c']\n"
            "def system_prompt(user):\n"
            "    text = ''\n"
            "    for tag in TAGS:\n"                       # a constant list: unrolled, static
            "        text += f'- {tag}\\n'\n"
            "    for doc in user.docs:\n"                  # per-request data before the policy
            "        text += f'{doc}\\n'\n"
            "    return text + POLICY\n")
    assert codes(text, counter) == [(9, "PC101")]


def test_python_is_never_imported_or_run(counter, tmp_path):
    marker = tmp_path / "ran"
    text = (f"open({str(marker)!r}, 'w').write('x')\nraise SystemExit('imported!')\n"
            "SYSTEM_PROMPT = 'You are a helpful assistant.'\n")
    assert codes(text, counter) == []
    assert not marker.exists()


def test_a_file_without_prompts_is_skipped_unparsed():
    assert build("util.py", "def add(a, b):\n    return a + b\n") is None
    assert build("broken.py", "def (:\n") is None  # not read further: no PC001 on unrelated code


def test_syntax_error_is_pc001_at_its_line(counter):
    got = findings("SYSTEM_PROMPT = 'x'\n\ndef f(:\n    pass\n", counter)
    assert [(f.line, f.code, f.severity) for f in got] == [(3, "PC001", "error")]
    assert got[0].message.startswith("Python source does not parse:")


def test_a_huge_module_ends_within_its_budget(counter):
    body = "".join(f"def build_prompt_{i}(q):\n    return helper_{i}(q) + POLICY\n"
                   f"def helper_{i}(q):\n    return f'{{q}} {i}'\n" for i in range(1500))
    text = POLICY + body + "SYSTEM_PROMPT = build_prompt_0('x')\n"
    started = time.process_time()
    got = findings(text, counter)
    assert time.process_time() - started < 10
    assert all(f.code != "PC001" for f in got)


# --- large inputs: a counted budget, linear work, and a note where it stops ---------------------

def test_a_large_constant_table_is_one_constant(counter):
    """A table of 100,000 constants is read as one value (not 100,000 steps): the random
    sample drawn from it into the system prompt is found, and the analysis does not stop."""
    table = "EXAMPLES = [" + ", ".join(f'"example {i}"' for i in range(100_000)) + "]\n"
    text = "import random\n" + table + POLICY + "SYSTEM_PROMPT = '\\n'.join(random.sample(EXAMPLES, 5)) + POLICY\n"
    started = time.process_time()
    got = [(f.line, f.code, f.severity) for f in findings(text, counter)]
    assert got == [(5, "PC101", "warning")]
    assert time.process_time() - started < 10
    flags = "FLAGS = {" + ", ".join(f'"k{i}": {i}' for i in range(20_000)) + "}\n"
    text = "import json\n" + flags + POLICY + "SYSTEM_PROMPT = json.dumps(FLAGS) + POLICY\n"
    assert findings(text, counter) == []  # the code fixes the key order: nothing to report


def _long_module(functions: int) -> str:
    """A clock in the first function (line 9), many handlers, then a uuid in the last one."""
    head = ("import time\nimport uuid\nfrom openai import OpenAI\nclient = OpenAI()\n" + POLICY +
            "def first(q):\n    return client.chat.completions.create(model='m', messages=[\n"
            "        {'role': 'system', 'content': f'{time.time()} ' + POLICY}, {'role': 'user', 'content': q}])\n")
    body = "".join(f"def handler_{i}(q, ctx: dict):\n    system = f'Variant {i}\\n' + POLICY\n"
                   f"    return client.chat.completions.create(model='m', messages=[\n"
                   f"        {{'role': 'system', 'content': system}}, {{'role': 'user', 'content': q}}])\n" for i in range(functions))
    tail = ("def last(q):\n    return client.chat.completions.create(model='m', messages=[\n"
            "        {'role': 'system', 'content': f'{uuid.uuid4()} ' + POLICY}, {'role': 'user', 'content': q}])\n")
    return head + body + tail


def test_the_budget_is_counted_and_says_where_it_stopped(counter, monkeypatch):
    """The same module gives the same findings on any machine: the budget counts steps, and
    a module it does not finish gets a PC001 note (information) at the line where it
    stopped, with what was found before."""
    from advisor.lint.python import state

    monkeypatch.setattr(state, "HARD_STOP", 3_000)
    monkeypatch.setattr(state, "MAX_STEPS", 2_000)
    text = _long_module(400)
    runs = [[(f.line, f.code, f.severity, f.message) for f in findings(text, counter)] for _ in range(3)]
    assert runs[0] == runs[1] == runs[2]
    got = runs[0]
    assert got[0][:3] == (9, "PC101", "warning")
    notes = [g for g in got if g[1] == "PC001"]
    assert len(notes) == 1 and notes[0][2] == "info", got
    line = notes[0][0]
    assert 9 < line < text.count("\n") and f"stopped at line {line}: its budget of 3,000 steps was spent" in notes[0][3]
    assert not any(g[1] == "PC101" and g[0] > line for g in got)  # the uuid of the last function is past the stop


def test_a_module_past_the_token_budget_is_read_up_to_a_whole_statement(counter, monkeypatch):
    from advisor.lint.python import extent

    monkeypatch.setattr(extent, "MAX_TOKENS", 5_000)
    text = _long_module(200)
    got = [(f.line, f.code, f.severity, f.message) for f in findings(text, counter)]
    assert got[0][:3] == (9, "PC101", "warning")
    (note,) = [g for g in got if g[1] == "PC001"]
    assert note[2] == "info" and "within the first 5,000 tokens" in note[3]
    assert text.split("\n")[note[0] - 1].startswith("def handler_")  # the first statement not read
    assert not any(g[1] == "PC101" and g[0] > note[0] for g in got)


CUT = ('"""A module.\nx = 1 at column 0, inside a string\n"""\n'
       "import os\n\n@decorator\n@other(\n    1)\ndef f(a,\nb):\n    return [\n1,\n2]\n"
       "if os:\n    y = 1\nelse:\n    y = 2\ntry:\n    pass\nexcept Exception:\n    pass\n"
       "z = f'''{1}\nw = 2'''  # a comment ( [ {\nclass C:\n    pass\n")


def test_the_cut_falls_between_top_level_statements():
    from advisor.lint.python import extent

    starts = set()
    for limit in range(1, 200):
        end = extent.cut(CUT, limit)
        ast.parse(CUT[:end])  # every cut is a whole module
        starts.add(CUT[:end].count("\n") + 1)
    # Never inside a string, a bracket, a decorated definition, or before else/except.
    assert starts <= {1, 4, 6, 14, 18, 22, 24, 26}, starts  # 26: all of it
    assert extent.cut(CUT, 10_000) == len(CUT)


def test_the_python_analysis_is_not_charged_to_the_file_cpu_limit(counter, tmp_path, monkeypatch):
    """The CPU-time limit is a safety net around the counted budget, far above it: a file
    limit too small for the analysis does not turn its findings into "not linted"."""
    from advisor.lint import limits

    monkeypatch.setattr(limits, "FILE_CPU_SECONDS", 0.01)
    path = tmp_path / "agents.py"
    path.write_text(_long_module(150), encoding="utf-8")
    got = [(f.line, f.code) for f in lint_paths([path], counter).findings]
    assert (9, "PC101") in got and not any(code == "PC001" for _, code in got), got


def test_self_bounded_work_is_not_charged_to_the_limits_around_it():
    from advisor.lint import limits

    def burn(seconds):
        end = time.process_time() + seconds
        while time.process_time() < end:
            pass

    with pytest.raises(limits.LintStopped, match="outer"):
        with limits.cpu_limit(0.3, "outer"):
            with limits.self_bounded(5.0):
                burn(0.5)  # past the outer limit, within its own
            burn(0.1)  # the outer limit still has its 0.3 s
            burn(1.0)  # and stops here


def test_a_module_too_deep_for_python_is_pc001(counter):
    text = "import time\nSYSTEM_PROMPT = str(time.time())" + "".join(f" + 'part {i}. '" for i in range(20_000)) + "\n"
    got = findings(text, counter)
    assert [(f.line, f.code, f.severity) for f in got] == [(1, "PC001", "error")]
    assert "nested too deeply for Python's parser" in got[0].message


# --- messages --------------------------------------------------------------------------------------

def test_a_loop_over_request_data_is_named_as_a_loop(counter):
    text = ("from flask import request\n" + POLICY +
            "def system_prompt():\n"
            "    body = request.get_json()\n"
            "    text = ''\n"
            "    for k, v in body['profile'].items():\n"
            "        text += f'{k}: {v}\\n'\n"
            "    return text + POLICY\n")
    got = {f.code: f.message for f in findings(text, counter)}
    assert got["PC101"].startswith("the loop over `body['profile'].items()` writes text into the system prompt once per item of "
                                   "the request's JSON body (`request.get_json()`) before static text; this loop differs")
    assert "`the loop" not in got["PC101"] and "PC103" in got


def test_token_counts_agree_with_their_nouns(counter):
    assert py.tokens(1) == "the 1 static token" and py.are(1) == "is"
    assert py.tokens(2) == "the 2 static tokens" and py.are(2) == "are"
    assert py.tokens(0) == "the static text" and py.are(0) == "is"
    got = findings("import uuid\nSYSTEM_PROMPT = f'{uuid.uuid4()})'\n", counter)
    assert [f.code for f in got] == ["PC101"] and "so the 1 static token after it can never" in got[0].message


def test_choosing_all_tools_or_none_is_quiet(counter):
    text = ("from openai import NOT_GIVEN, OpenAI\nclient = OpenAI()\n" + POLICY +
            "TOOLS = [{'type': 'function', 'function': {'name': 'read_file'}}]\n"
            "def step(task, agent_mode):\n"
            "    return client.chat.completions.create(model='m', tools=TOOLS if agent_mode else NOT_GIVEN, messages=[\n"
            "        {'role': 'system', 'content': POLICY}, {'role': 'user', 'content': task}])\n")
    assert findings(text, counter) == []


# --- suppressions --------------------------------------------------------------------------------

SUPPRESSED = '''import json
from datetime import date

RULES = "You are the billing assistant of Tallyfold. Answer invoice questions briefly and politely, citing the invoice number."
TOPICS = {"billing", "refunds"}


def system_prompt():
    return f"""Today is {date.today()}.
{RULES}"""  # advisor: noqa: PC101


def other(profile: dict):
    # advisor: disable=PC103
    a = f"Topics: {', '.join(TOPICS)}\\n{RULES}"
    # advisor: enable=PC103
    SYSTEM = a + "\\n" + f"Topics: {', '.join(TOPICS)}\\n{RULES}"  # noqa: E501
    return SYSTEM  # noqa: PC102
'''


def test_suppressions(counter):
    got = findings(SUPPRESSED, counter)
    # The noqa after the string covers the whole statement (no comment fits inside the
    # string); the range silences line 15 only; E501 is another linter's code; the unused
    # suppression of PC102 is reported.
    assert [(f.line, f.code) for f in got] == [(17, "PC103"), (18, "PC901")]
    bare = findings("from datetime import date\n" + POLICY + "SYSTEM = f'{date.today()}' + POLICY  # noqa\n", counter)
    assert [f.code for f in bare] == ["PC101"]  # a bare noqa belongs to other linters too


def test_suppression_spellings(counter):
    base = "from datetime import date\n" + POLICY + "SYSTEM = f'{date.today()}' + POLICY  # {}\n"
    for spelled in ("advisor: noqa: PC101", "advisor: noqa PC101", "advisor: noqa", "advisor:noqa=dynamic-prefix", "noqa: PC101",
                    "type: ignore  # advisor: noqa"):
        assert findings(base.replace("{}", spelled), counter) == [], spelled
    unknown = findings(base.replace("{}", "advisor: noqa: PC999"), counter)
    assert sorted(f.code for f in unknown) == ["PC101", "PC901"]
    prose = findings(base.replace("{}", "see the docs: `noqa: PC101` would silence this"), counter)
    assert [f.code for f in prose] == ["PC101"]  # a comment that mentions a directive is not one


# --- fixes ---------------------------------------------------------------------------------------

FIXABLE = '''import json

TOPICS = {"billing", "refunds", "shipping"}
RULES = "Answer only questions about these topics; decline everything else politely and briefly, in one sentence."


async def chat(request, client):
    body = await request.json()
    system = f"Topics: {', '.join(TOPICS)}\\nSettings: {json.dumps(body['settings'], indent=2)}\\n{RULES}"
    return await client.chat.completions.create(model="m", messages=[
        {"role": "system", "content": system}, {"role": "user", "content": body["message"]}])
'''


def fix(text: str, counter, unsafe: bool = False, name: str = "builder.py") -> tuple[str, int]:
    linter = engine.Linter(LintConfig(), REGISTRY, counter)
    return engine.fix_text(name, Path(name), text, linter, unsafe)


def test_safe_fixes_give_valid_python_and_remove_the_findings(counter):
    before = [(f.code, f.fix.applicability if f.fix else None) for f in findings(FIXABLE, counter)]
    assert ("PC103", "safe") in before and before.count(("PC103", "safe")) == 2
    after, count = fix(FIXABLE, counter)
    assert count == 2
    ast.parse(after)
    assert "', '.join(sorted(TOPICS))" in after and "json.dumps(body['settings'], indent=2, sort_keys=True)" in after
    assert [f.code for f in findings(after, counter) if f.code == "PC103"] == []


def test_unsafe_fixes_wait_for_unsafe_fixes(counter):
    text = ("import json\n" + POLICY + "def system_prompt(schema: dict):\n"
            "    return 'Schema: ' + json.dumps(schema) + POLICY\n")
    found = [f for f in findings(text, counter) if f.code == "PC103"]
    assert [f.fix.applicability for f in found] == ["unsafe"]  # keys of unknown types: sort_keys may raise
    assert fix(text, counter) == (text, 0)
    after, count = fix(text, counter, unsafe=True)
    assert count == 1 and "json.dumps(schema, sort_keys=True)" in after
    ast.parse(after)


def test_every_fix_in_the_corpus_keeps_the_file_valid(counter):
    for path in sorted(CORPUS.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        after, _ = fix(text, counter, unsafe=True, name=path.name)
        ast.parse(after)  # raises on a broken fix
        fixed = {(f.code, f.line) for f in findings(after, counter, name=path.name) if f.code == "PC103"}
        assert all(f.fix is None for f in findings(after, counter, name=path.name) if (f.code, f.line) in fixed)


def cli(args, cwd):
    env = {k: v for k, v in os.environ.items() if k != "GITHUB_ACTIONS"}
    code = "import sys; from advisor.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=120)


@pytest.fixture()
def project(tmp_path):
    (tmp_path / ".git").mkdir()
    return tmp_path


def test_diff_and_fix_on_the_command_line(project):
    (project / "app.py").write_text(FIXABLE, encoding="utf-8")
    proc = cli(["lint", "app.py", "--isolated", "--diff"], project)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.startswith("--- a/app.py\n+++ b/app.py\n") and "+    system = f\"Topics: {', '.join(sorted(TOPICS))}" in proc.stdout
    assert (project / "app.py").read_text(encoding="utf-8") == FIXABLE  # --diff writes nothing
    proc = cli(["lint", "app.py", "--isolated", "--fix", "--format", "concise"], project)
    fixed = (project / "app.py").read_text(encoding="utf-8")
    ast.parse(fixed)
    assert "sorted(TOPICS)" in fixed and "sort_keys=True" in fixed and "PC103" not in proc.stdout


def test_sarif_of_python_findings_validates(project):
    for name in ("openai_rag_service.py", "anthropic_agent_wrong_breakpoint.py", "litellm_router.py"):
        shutil.copy(CORPUS / name, project / name)
    proc = cli(["lint", ".", "--isolated", "--format", "sarif"], project)
    assert proc.returncode == 1, proc.stderr
    doc = json.loads(proc.stdout)
    jsonschema.Draft4Validator(json.loads(SCHEMA.read_text(encoding="utf-8"))).validate(doc)
    results = doc["runs"][0]["results"]
    assert {r["ruleId"] for r in results} >= {"PC101", "PC403", "PC501"}
    assert all(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith(".py") for r in results)
    rules = {r["id"] for r in doc["runs"][0]["tool"]["driver"]["rules"]}
    assert "PC501" in rules


def test_syntax_error_on_the_command_line_is_a_finding_not_a_traceback(project):
    (project / "bot.py").write_text("SYSTEM_PROMPT = 'hi'\nprint 'legacy'\n", encoding="utf-8")
    proc = cli(["lint", "bot.py", "--isolated", "--format", "github"], project)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stdout.startswith("::error file=bot.py,line=2,")


def test_output_formats_render_python_findings(counter):
    result = lint_paths([CORPUS / "litellm_router.py"], counter)
    for fmt in output.FORMATS:
        text = output.render(fmt, result.findings, len(result.files), "0", list(REGISTRY.values()))
        assert "litellm_router.py" in text


# --- the rules' Python cases ---------------------------------------------------------------------

@pytest.mark.parametrize("code", sorted(c for c, r in REGISTRY.items() if r.python is not None and c != "PC901"))
def test_rules_with_a_python_check_have_python_cases(code):
    cases = [c for c in load_cases(REGISTRY[code]) if c.get("filename", "").endswith(".py")]
    assert sum(1 for c in cases if is_fail(c)) >= 3 and sum(1 for c in cases if not is_fail(c)) >= 3
