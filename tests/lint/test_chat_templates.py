"""Chat templates with the structure of official model templates give exactly the expected
findings: no error on a constant-default kwarg or on the caller's own system message, and
the same construct gets the same verdict in every template."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from advisor.lint import config, engine
from advisor.lint.model import DEFAULT_STATIC_VARIABLES, Piece, Settings, build_model
from advisor.rules import REGISTRY

FOLDER = Path(__file__).parent / "fixtures" / "chat_templates"
EXPECTED = yaml.safe_load((FOLDER / "expected.yaml").read_text(encoding="utf-8"))


def lint_one(path: Path, counter):
    cfg = config.parse({}, "test", REGISTRY)
    return engine.lint_files([str(path)], cfg, REGISTRY, counter, cwd=FOLDER, parallel=False).findings


def test_every_fixture_has_an_expectation():
    assert sorted(EXPECTED) == sorted(p.name for p in FOLDER.glob("*.jinja"))


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_exact_findings(name, counter):
    found = lint_one(FOLDER / name, counter)
    assert [[f.code, f.line, f.severity] for f in found] == EXPECTED[name], [(f.code, f.line, f.message) for f in found]


@pytest.mark.parametrize("name", ["llama31.chat_template.jinja", "llama33.chat_template.jinja", "qwen25.chat_template.jinja"])
def test_correct_official_templates_pass_ci(name, counter):
    assert not engine.fails(lint_one(FOLDER / name, counter), "warning")


def test_constant_default_kwarg_is_named(counter):
    (kwarg,) = [f for f in lint_one(FOLDER / "llama31.chat_template.jinja", counter) if f.code == "PC401"]
    assert "`date_string`" in kwarg.message and "chat_template_kwargs" in kwarg.message and '"26 Jul 2024"' in kwarg.message


def test_date_finding_names_where_the_value_was_produced(counter):
    (date,) = lint_one(FOLDER / "mistral_small3.chat_template.jinja", counter)
    assert "strftime_now" in date.message and "set at line 1" in date.message
    (date,) = [f for f in lint_one(FOLDER / "llama32.chat_template.jinja", counter) if f.code == "PC101"]
    assert "pin `date_string` in chat_template_kwargs" in date.message


SYSTEM_FORMS = [
    "{%- if messages[0].role == 'system' %}{{- '<s>' + messages[0].content + '</s>' }}{%- endif %}",
    "{%- if messages[0]['role'] == 'system' %}{%- set sys = messages[0]['content']|trim %}{%- set messages = messages[1:] %}{%- else %}{%- set sys = '' %}{%- endif %}{{- '<s>' + sys + '</s>' }}",
    "{%- set ns = namespace(sys='') %}{%- for m in messages %}{%- if m.role == 'system' %}{%- set ns.sys = m.content %}{%- endif %}{%- endfor %}{{- '<s>' + ns.sys + '</s>' }}",
    "{%- macro sysblock(text) %}{{- '<s>' + text + '</s>' }}{%- endmacro %}{{- sysblock(messages[0].content) }}",
]
TAIL = "\n{{- 'You are a helpful assistant. Follow the policy exactly, answer in short numbered steps, cite the policy section you used, never promise refunds the policy does not allow, and escalate billing disputes to a human agent.' }}\n{%- for m in messages %}{{- '<t>' + m.content + '</t>' }}{%- endfor %}\n"


@pytest.mark.parametrize("form", range(len(SYSTEM_FORMS)))
def test_the_callers_system_message_is_never_dynamic_content(form, counter):
    cfg = config.parse({}, "test", REGISTRY)
    result = engine.lint_texts({"x.chat_template.jinja": SYSTEM_FORMS[form] + TAIL}, cfg, REGISTRY, counter)
    assert result.findings == []


@pytest.mark.parametrize("form", range(len(SYSTEM_FORMS)))
def test_the_same_forms_with_an_injected_variable_are_errors(form, counter):
    cfg = config.parse({}, "test", REGISTRY)
    injected = SYSTEM_FORMS[form].replace("messages[0].content", "user_profile").replace("messages[0]['content']", "user_profile").replace("m.content %}", "user_profile %}")
    result = engine.lint_texts({"x.chat_template.jinja": injected + TAIL}, cfg, REGISTRY, counter)
    errors = [f for f in result.findings if f.severity == "error"]
    assert [f.code for f in errors] == ["PC101"], [f.message for f in result.findings]
    assert "user_profile" in errors[0].message


def test_messages_is_payload_only_in_chat_templates():
    settings = Settings(static_variables=DEFAULT_STATIC_VARIABLES)
    text = "{{ messages[0].content }}\nFollow the policy.\n"
    chat = build_model("c.chat_template.jinja", text, "chat_template", [Piece(text)], settings)
    plain = build_model("p.j2", text, "jinja", [Piece(text)], settings)
    assert not chat.segments[0].taint.volatile
    assert plain.segments[0].taint.volatile


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_same_verdict_inside_tokenizer_config_json(name, tmp_path, counter):
    # The same template as HuggingFace ships it: an escaped string in tokenizer_config.json.
    import json

    template = (FOLDER / name).read_text(encoding="utf-8")
    config_file = tmp_path / "tokenizer_config.json"
    config_file.write_text(json.dumps({"bos_token": "<s>", "chat_template": template}, indent=2), encoding="utf-8")
    cfg = config.parse({}, "test", REGISTRY)
    found = engine.lint_files([str(config_file)], cfg, REGISTRY, counter, cwd=tmp_path, parallel=False).findings
    assert sorted((f.code, f.severity) for f in found) == sorted((code, severity) for code, _, severity in EXPECTED[name])
    assert all(f.line == 3 for f in found)  # the "chat_template" line


# What each input of a chat template is, whatever the family's spelling: the taint of the
# value an expression renders (advisor.lint.conversation).
SETUP = (
    "{%- if messages[0]['role'] == 'system' %}{%- set system_message = messages[0]['content']|trim %}"
    "{%- set loop_messages = messages[1:] %}{%- else %}{%- set loop_messages = messages %}{%- endif %}"
    "{%- set ns = namespace(system_prompt='') %}{%- for m in messages %}{%- if m.role == 'system' %}"
    "{%- set ns.system_prompt = ns.system_prompt + m.content %}{%- endif %}{%- endfor %}"
    "{%- set user_messages = loop_messages | selectattr('role', 'equalto', 'user') | list %}\n"
)
SPELLINGS = [
    ("messages[0]['role']", "structure"),
    ("messages[0].role", "structure"),
    ("messages | length", "structure"),
    ("loop_messages | length", "structure"),
    ("messages[-1].role", "structure"),
    ("messages[0]['content']", "payload"),
    ("messages[0].content", "payload"),
    ("system_message", "payload"),
    ("ns.system_prompt", "payload"),
    ("loop_messages[0]['content']", "payload"),
    ("documents | tojson", "payload"),
    ("tools | tojson", "static"),
    ("messages[-1]['content']", "request"),
    ("loop_messages[-1].content", "request"),
    ("messages[1:][-1]['content']", "request"),
    ("user_messages[-1].content", "request"),
    ("(messages | last).content", "request"),
    ("(messages | selectattr('role', 'equalto', 'user') | list | last)['content']", "request"),
    ("customer_name", "request"),
]


@pytest.mark.parametrize("expr, kind", SPELLINGS, ids=[s for s, _ in SPELLINGS])
def test_what_each_input_is(expr, kind):
    text = SETUP + "{{- " + expr + " }}\nFollow the policy.\n{%- for m in loop_messages %}{{ m.content }}{%- endfor %}"
    model = build_model("x.chat_template.jinja", text, "chat_template", [Piece(text)], Settings(static_variables=DEFAULT_STATIC_VARIABLES))
    (seg,) = [s for s in model.segments if s.line == 2 and s.kind == "dynamic"]
    assert seg.taint.kind == kind, seg.taint


LOOP_TESTS = [
    ("loop.last", "structure"),
    ("loop.first and message.role == 'user'", "structure"),
    ("message == user_messages[-1]", "structure"),
    ("loop.index0 > 0", "structure"),
    ("message.content is string", "payload"),
    ("enable_thinking", "kwarg"),
    ("messages[-1].content is string", "request"),
]


@pytest.mark.parametrize("test, kind", LOOP_TESTS, ids=[t for t, _ in LOOP_TESTS])
def test_what_a_branch_in_the_conversation_tests(test, kind):
    text = (SETUP + "{%- for message in loop_messages %}\n{%- if " + test + " %}<b>{%- endif %}"
            "{{ message.content }}{%- endfor %}")
    model = build_model("x.chat_template.jinja", text, "chat_template", [Piece(text)], Settings(static_variables=DEFAULT_STATIC_VARIABLES))
    (seg,) = [s for s in model.segments if s.construct == "if" and s.line == 3]
    assert seg.taint.kind == kind, seg.taint


def test_a_jinja_file_that_reads_the_conversation_is_a_chat_template(counter):
    # An official template saved under the model's name, not `chat_template`: the system
    # message and the message count are the template's structure, not per-request data.
    cfg = config.parse({}, "test", REGISTRY)
    text = (FOLDER / "llama31.chat_template.jinja").read_text(encoding="utf-8")
    found = engine.lint_texts({"llama3.jinja": text}, cfg, REGISTRY, counter).findings
    assert not engine.fails(found, "warning"), [(f.code, f.line, f.message) for f in found]
    long_text = TAIL.split("'")[1]  # the policy sentence
    plain = engine.lint_texts({"prompt.j2": "Hello {{ messages }}\n" + long_text + "\n"}, cfg, REGISTRY, counter)
    assert [f.code for f in plain.findings] == ["PC101"]  # no role, no generation prompt: a plain template
