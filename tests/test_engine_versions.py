"""Four request shapes whose rendering depends on the engine and its release (issue 40),
each settled from the engine's own source and checked against HuggingFace transformers'
``apply_chat_template`` on the request as that engine preprocesses it (written out by
hand here from the cited function, not computed by advisor).

Releases read (their wheels, ``pip download --no-deps``): vLLM 0.33.0 and SGLang 0.5.23
(the versions ``../shared/docs/REFERENCE.md`` pins, advisor's defaults) and vLLM 0.34.0
(the newest vLLM; SGLang 0.5.23 is the newest SGLang). Paths are inside the wheels.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import transformers  # the test extra: the reference renderer

from advisor.errors import AdvisorError  # noqa: E402
from advisor.ingest.chat_template import HFChatTemplate, load_chat_template  # noqa: E402
from advisor.ingest.content_format import detect  # noqa: E402
from advisor.ingest.preprocess import (  # noqa: E402
    ENGINE_VERSIONS, EngineRejects, check_mistral_tokenizer_request, engine_spec, prepare,
)
from advisor.ingest.tokenizers import load_tokenizer  # noqa: E402
from tests import engine_oracle  # noqa: E402

TEMPLATES = Path(__file__).parent / "chat_templates"
SPECIALS = {**json.loads((TEMPLATES / "specials.json").read_text()),
            "mistral_small31": {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"}}
NAMES = ("llama31", "mistral", "deepseek", "mistral_small31")
VLLM = ("vllm", "vllm==0.34.0")  # the default release (0.33.0) and the newest
WEATHER = {"type": "function", "function": {"name": "get_weather", "description": "Weather for a city",
                                            "parameters": {"type": "object",
                                                           "properties": {"city": {"type": "string"}}}}}


def _folder(root: Path, name: str) -> Path:
    return engine_oracle.model_folder(root, name, SPECIALS[name], (TEMPLATES / f"{name}.jinja").read_text())


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("models")
    return {name: _folder(root, name) for name in NAMES}


def _reference(folders: dict[str, Path], name: str, messages: list[dict[str, Any]], tools: Any = None,
               **options: Any) -> str:
    """transformers' own rendering of what the engine hands the template."""
    tok = transformers.AutoTokenizer.from_pretrained(str(folders[name]))
    options.setdefault("add_generation_prompt", True)
    return tok.apply_chat_template(messages, tools=tools, tokenize=False, **options)


def _advisor(folders: dict[str, Path], name: str, engine: str) -> HFChatTemplate:
    return load_chat_template(folders[name] / "tokenizer_config.json", engine=engine)


def _render(folders: dict[str, Path], name: str, engine: str, messages: list[dict[str, Any]], tools: Any = None,
            options: dict[str, Any] | None = None) -> str:
    return _advisor(folders, name, engine).render(messages, tools, None, options)


def test_releases_and_the_engine_spec() -> None:
    assert ENGINE_VERSIONS == {"vllm": ("0.33.0", "0.34.0"), "sglang": ("0.5.23",)}
    assert engine_spec("vllm") == engine_spec("vllm", "0.33.0") == "vllm"
    assert engine_spec("vllm", "0.34.0") == "vllm==0.34.0" and engine_spec("sglang", "0.5.23") == "sglang"
    for engine, version in (("vllm", "0.32.0"), ("sglang", "0.34.0"), ("tgi", None)):
        with pytest.raises(AdvisorError, match="unknown --engine"):
            engine_spec(engine, version)


# ------------------------------------------------------------------ 1. `tools: []`


@pytest.mark.parametrize("name", ["llama31", "mistral"])
def test_an_empty_tools_list(name: str, folders: dict[str, Path]) -> None:
    """``tools: []``.

    vLLM 0.33.0 refuses the request with a 400: vllm/entrypoints/openai/chat_completion/protocol.py,
    ``ChatCompletionRequest.check_tool_usage`` (a ``mode="before"`` validator: "`tools` must
    not be an empty array. Either provide at least one tool or omit the field entirely.").

    vLLM 0.34.0 reads it as no tools: the same validator sets ``tools`` to None (and a
    ``tool_choice`` of "auto" or "required" to "none") unless ``tool_choice`` names a tool,
    which then matches none of the empty list; vllm/renderers/online_renderer.py,
    ``OnlineRenderer.render_chat``, then passes ``tool_dicts = None`` to the template.

    SGLang 0.5.23 passes no tools: sglang/srt/entrypoints/openai/serving_chat.py,
    ``OpenAIServingChat._process_messages`` (tools reach ``_apply_jinja_template`` only
    ``if effective_tools and request.tool_choice != "none"``); ``_validate_request`` refuses
    ``tool_choice`` "required" or a named tool with no tools.
    """
    messages = [{"role": "user", "content": "What is the weather in Paris?"}]
    no_tools = _reference(folders, name, messages, tools=None)
    # The template tells an empty list from none (Llama 3.x's `Environment: ipython`, Mistral's
    # empty [AVAILABLE_TOOLS]): the rule shows in the prompt.
    assert _reference(folders, name, messages, tools=[]) != no_tools

    with pytest.raises(EngineRejects, match="must not be an empty array"):
        _render(folders, name, "vllm", messages, [])
    for choice in (None, "auto", "required", "none"):
        options = {"tool_choice": choice} if choice else None
        assert _render(folders, name, "vllm==0.34.0", messages, [], options) == no_tools
    named = {"tool_choice": {"type": "function", "function": {"name": "get_weather"}}}
    with pytest.raises(EngineRejects, match="does not match any of the specified `tools`"):
        _render(folders, name, "vllm==0.34.0", messages, [], named)

    assert _render(folders, name, "sglang", messages, []) == no_tools
    assert _render(folders, name, "sglang", messages, [], {"tool_choice": "none"}) == no_tools
    with pytest.raises(EngineRejects, match="Tools cannot be empty if tool choice is set to required"):
        _render(folders, name, "sglang", messages, [], {"tool_choice": "required"})
    with pytest.raises(EngineRejects, match="Tools cannot be empty if tool choice is set to a specific tool"):
        _render(folders, name, "sglang", messages, [], named)


def test_empty_tools_through_the_command_line(tmp_path: Path, cli) -> None:
    """The release is one option of every rendering command, ``--engine-version``."""
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps({"messages": [{"role": "user", "content": "hi"}], "tools": []}) + "\n")
    refused = cli("render", path, "--engine", "vllm", "--format", "json")
    assert refused.code == 1
    assert "must not be an empty array" in json.loads(refused.out)["records"][0]["skipped"]
    newest = cli("render", path, "--engine", "vllm", "--engine-version", "0.34.0", "--format", "json")
    sglang = cli("render", path, "--format", "json")
    assert newest.code == sglang.code == 0
    text = json.loads(newest.out)["records"][0]["text"]
    assert text == json.loads(sglang.out)["records"][0]["text"] and "Environment: ipython" not in text
    unknown = cli("render", path, "--engine", "vllm", "--engine-version", "0.20.0")
    assert unknown.code == 2 and "advisor follows vllm 0.33.0 (the default) or 0.34.0" in unknown.err
    for command in ("analyze", "prescribe", "render", "export", "verify", "simulate", "report"):
        assert "--engine-version" in cli(command, "--help").out, command


@pytest.mark.parametrize("name", ["llama31", "mistral"])
def test_empty_tools_through_the_render_worker(tmp_path: Path, cli, name: str) -> None:
    """With ``--chat-template`` the request crosses to the render worker: ``tools: []`` must
    reach the engine's rule as a list (it had become None there, so vLLM 0.33.0 rendered it)."""
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps({"messages": [{"role": "user", "content": "hi"}], "tools": []}) + "\n")
    template = str(TEMPLATES / f"{name}.jinja")
    refused = cli("render", path, "--engine", "vllm", "--chat-template", template, "--format", "json")
    assert "must not be an empty array" in json.loads(refused.out)["records"][0]["skipped"]
    newest = cli("render", path, "--engine", "vllm", "--engine-version", "0.34.0", "--chat-template", template,
                 "--format", "json")
    sglang = cli("render", path, "--chat-template", template, "--format", "json")
    assert newest.code == sglang.code == 0
    assert json.loads(newest.out)["records"][0]["text"] == json.loads(sglang.out)["records"][0]["text"]


# ---------------------------------------------------------- 2. `arguments: ""`


def test_a_tool_call_with_empty_arguments(folders: dict[str, Path]) -> None:
    """A tool call whose ``arguments`` is the empty string.

    vLLM (0.33.0 and 0.34.0) gives the template ``{}``:
    vllm/renderers/chat_utils/chat_message.py, ``_postprocess_messages`` ("if arguments is
    None or empty string, set to {}"; malformed JSON and non-objects become ``{}`` too).

    SGLang 0.5.23 refuses the request with a 400:
    sglang/srt/entrypoints/openai/serving_chat.py, ``_apply_jinja_template`` calls
    ``normalize_assistant_tool_call_arguments(message, strict=True)`` (strict for every
    Jinja template; only the Kimi K3 encoding is lenient), whose
    ``parse_tool_call_arguments`` raises "Assistant tool call function.arguments must be
    valid JSON." for ``orjson.loads("")``; ``OpenAIServingBase.handle_request``
    (serving_base.py) answers the ValueError with a 400. orjson is strict JSON: ``NaN``
    is refused as well.
    """
    call = {"id": "call00001", "type": "function", "function": {"name": "get_weather", "arguments": ""}}
    messages = [{"role": "user", "content": "Weather?"},
                {"role": "assistant", "content": None, "tool_calls": [call]},
                {"role": "tool", "tool_call_id": "call00001", "content": "22 C"},
                {"role": "user", "content": "Thanks"}]
    # What vLLM hands the Llama 3.1 template (a string template: content "" for null).
    vllm_sees = [{"role": "user", "content": "Weather?"},
                 {"role": "assistant", "content": "",
                  "tool_calls": [{**call, "function": {"name": "get_weather", "arguments": {}}}]},
                 {"role": "tool", "content": "22 C", "tool_call_id": "call00001"},
                 {"role": "user", "content": "Thanks"}]
    expected = _reference(folders, "llama31", vllm_sees)
    assert '{"name": "get_weather", "parameters": {}}' in expected
    for engine in VLLM:
        assert _render(folders, "llama31", engine, messages) == expected
    for arguments in ("", " ", "{\"city\": NaN}", "[]", "{oops"):
        broken = [messages[0], {**messages[1], "tool_calls": [{**call, "function": {**call["function"],
                                                                                     "arguments": arguments}}]},
                  *messages[2:]]
        with pytest.raises(EngineRejects, match="function.arguments must be"):
            _render(folders, "llama31", "sglang", broken)
    # An object, or the same call with arguments "{}", is rendered by both.
    fine = [messages[0], {**messages[1], "tool_calls": [{**call, "function": {**call["function"], "arguments": "{}"}}]},
            *messages[2:]]
    assert _render(folders, "llama31", "sglang", fine) == expected


# ------------------------------------------------- 3. the last message is the assistant's


@pytest.mark.parametrize("name", ["mistral_small31", "deepseek"])
def test_a_last_message_from_the_assistant(name: str, folders: dict[str, Path]) -> None:
    """A request whose last message is the assistant's.

    SGLang 0.5.23 renders it as a user turn with the same text:
    sglang/srt/entrypoints/openai/serving_chat.py, ``_apply_jinja_template`` calls
    ``_handle_last_assistant_message`` whenever ``request._format_add_generation_prompt``
    is None, which it always is for /v1/chat/completions (``ChatCompletionRequest`` has no
    ``add_generation_prompt`` field; only protocol.py's ``TokenizeRequest`` sets it). A
    string-content last assistant turn becomes ``{"role": "user", "content": text}``; with
    ``continue_final_message`` it is removed and its text appended after the prompt
    (``_append_assistant_prefix_to_prompt_ids``). The template always gets
    ``add_generation_prompt=True``.

    vLLM (0.33.0, 0.34.0) keeps it an assistant turn: vllm/entrypoints/openai/
    chat_completion/protocol.py, ``ChatCompletionRequest`` defaults ``add_generation_prompt``
    to True and ``continue_final_message`` to False, and nothing moves the turn; so the
    template renders it finished, then the generation prompt. ``continue_final_message``
    needs ``add_generation_prompt: false`` sent with it: both true is refused by the
    validator ``check_generation_prompt`` (both sent) or by transformers'
    ``apply_chat_template`` (the default), which vllm/renderers/hf.py,
    ``safe_apply_chat_template``, answers with a 400.
    """
    first = {"role": "user", "content": "Name a colour."}
    messages = [first, {"role": "assistant", "content": "Blue"}]

    as_user = _reference(folders, name, [first, {"role": "user", "content": "Blue"}])
    assert _render(folders, name, "sglang", messages) == as_user
    continued = _reference(folders, name, [first]) + "Blue"
    assert _render(folders, name, "sglang", messages, options={"continue_final_message": True}) == continued

    kept = _reference(folders, name, messages)
    assert kept != as_user
    prefill = _reference(folders, name, messages, add_generation_prompt=False, continue_final_message=True)
    for engine in VLLM:
        assert _render(folders, name, engine, messages) == kept
        assert _render(folders, name, engine, messages,
                       options={"continue_final_message": True, "add_generation_prompt": False}) == prefill
        with pytest.raises(EngineRejects, match="not compatible"):
            _render(folders, name, engine, messages, options={"continue_final_message": True})
    if name == "mistral_small31":
        assert as_user.endswith("[INST]Name a colour.[/INST][INST]Blue[/INST]")
    else:
        assert as_user.endswith("<｜User｜>Name a colour.<｜User｜>Blue<｜Assistant｜>")


def test_a_last_assistant_turn_that_the_template_refuses_as_a_user_turn(folders: dict[str, Path]) -> None:
    """SGLang's user turn can break a template that checks roles alternate (Mistral v0.3's):
    the request fails there as it does under transformers, while vLLM renders it."""
    messages = [{"role": "user", "content": "Name a colour."}, {"role": "assistant", "content": "Blue"}]
    with pytest.raises(Exception, match="roles must alternate"):
        _reference(folders, "mistral", [messages[0], {"role": "user", "content": "Blue"}])
    with pytest.raises(AdvisorError, match="roles must alternate"):
        _render(folders, "mistral", "sglang", messages)
    assert _render(folders, "mistral", "vllm", messages) == _reference(folders, "mistral", messages)


def test_a_last_assistant_turn_under_vllm_mistral_tokenizer_mode() -> None:
    """vLLM with a Mistral tokenizer (``--tokenizer-mode mistral``, advisor's mistral-common
    path) refuses it unless the request continues it: vllm/tokenizers/mistral.py,
    ``_validate_apply_chat_template_args`` ("Cannot set `add_generation_prompt` to True when
    the last message is from the assistant"), 0.33.0 and 0.34.0."""
    messages = [{"role": "user", "content": "Name a colour."}, {"role": "assistant", "content": "Blue"}]
    for engine in VLLM:
        with pytest.raises(EngineRejects, match="last message is from the assistant"):
            check_mistral_tokenizer_request(prepare(engine, messages, None))
        check_mistral_tokenizer_request(prepare(engine, messages, None, {"continue_final_message": True,
                                                                         "add_generation_prompt": False}))
        with pytest.raises(EngineRejects, match="not from the assistant"):
            check_mistral_tokenizer_request(prepare(engine, messages[:1], None, {"continue_final_message": True,
                                                                                 "add_generation_prompt": False}))


# -------------------------------------------- 4. templates that loop over content parts


def test_a_template_that_loops_over_content_parts(folders: dict[str, Path]) -> None:
    """A template that reads content parts (Mistral Small 3.1's structure: it loops over a
    user turn's blocks, and prints an assistant turn's content as it is before its tool
    calls).

    Both engines detect it as one that wants parts. vLLM: vllm/renderers/hf.py,
    ``_detect_content_format`` (a loop over ``message["content"]``, found by
    ``_iter_nodes_assign_content_item``). SGLang: sglang/srt/parser/jinja_template_utils.py,
    ``detect_jinja_template_content_format`` (the word "image"; the loop too).

    vLLM (0.33.0, 0.34.0) then gives *every* message a list of parts, a string too:
    vllm/renderers/chat_utils/chat_message.py, ``parse_chat_message_content`` wraps it as
    ``[{"type": "text", "text": ...}]`` and ``parse_chat_message_content_parts`` with
    ``wrap_dicts=True`` keeps the list; null is ``[]``. So a template that prints an
    assistant's ``content`` prints the Python list. Only a tool message whose parts are all
    text is one string again, joined with "\\n" (the same function).

    SGLang 0.5.23 leaves a string a string: sglang/srt/parser/jinja_template_utils.py,
    ``process_content_for_template_format`` only rewrites list content (text parts kept,
    media as ``{"type": "image"}``, other parts dropped); sglang/srt/entrypoints/openai/
    serving_chat.py, ``normalize_tool_content``, joins a tool message's text parts with " ".
    """
    text = (TEMPLATES / "mistral_small31.jinja").read_text()
    assert detect(text, "vllm") == detect(text, "vllm==0.34.0") == detect(text, "sglang") == "openai"
    call = {"id": "call00001", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}
    parsed = {**call, "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}
    messages = [
        {"role": "system", "content": "Use the tools."},
        {"role": "user", "content": [{"type": "text", "text": "Weather in "}, {"type": "text", "text": "Paris?"}]},
        {"role": "assistant", "content": "Let me look.", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call00001",
         "content": [{"type": "text", "text": "22 C"}, {"type": "text", "text": "sunny"}]},
        {"role": "assistant", "content": "It is 22 C and sunny."},
        {"role": "user", "content": "Thanks"},
    ]

    def parts(s: str) -> list[dict[str, str]]:
        return [{"type": "text", "text": s}]

    vllm_sees = [
        {"role": "system", "content": parts("Use the tools.")},
        {"role": "user", "content": parts("Weather in ") + parts("Paris?")},
        {"role": "assistant", "content": parts("Let me look."), "tool_calls": [parsed]},
        {"role": "tool", "content": "22 C\nsunny", "tool_call_id": "call00001"},
        {"role": "assistant", "content": parts("It is 22 C and sunny.")},
        {"role": "user", "content": parts("Thanks")},
    ]
    expected = _reference(folders, "mistral_small31", vllm_sees)
    assert "[INST]Weather in Paris?[/INST][{'type': 'text', 'text': 'Let me look.'}][TOOL_CALLS]" in expected
    assert "[TOOL_RESULTS]22 C\nsunny[/TOOL_RESULTS]It is 22 C and sunny.</s>[INST]Thanks[/INST]" in expected
    for engine in VLLM:
        assert _render(folders, "mistral_small31", engine, messages) == expected

    sglang_sees = [
        {"role": "system", "content": "Use the tools."},
        {"role": "user", "content": parts("Weather in ") + parts("Paris?")},
        {"role": "assistant", "content": "Let me look.", "tool_calls": [{**parsed, "index": None}]},
        {"role": "tool", "content": "22 C sunny", "tool_call_id": "call00001"},
        {"role": "assistant", "content": "It is 22 C and sunny."},
        {"role": "user", "content": "Thanks"},
    ]
    expected = _reference(folders, "mistral_small31", sglang_sees)
    assert "[/INST]Let me look.[TOOL_CALLS]get_weather[ARGS]" in expected and "[TOOL_RESULTS]22 C sunny[" in expected
    assert _render(folders, "mistral_small31", "sglang", messages) == expected


def test_null_content_of_a_tool_call_turn_under_a_parts_template(folders: dict[str, Path]) -> None:
    """vLLM: ``content: null`` is no parts, ``[]`` (chat_message.py,
    ``parse_chat_message_content``), which the template prints as ``[]``; SGLang: ``""``
    (serving_chat.py, ``_apply_jinja_template``: ``if msg_dict.get("content") is None``)."""
    call = {"id": "call00001", "type": "function", "function": {"name": "now", "arguments": "{}"}}
    messages = [{"role": "user", "content": "Time?"}, {"role": "assistant", "content": None, "tool_calls": [call]},
                {"role": "tool", "tool_call_id": "call00001", "content": "12:00"}]
    parsed = {**call, "function": {"name": "now", "arguments": {}}}
    vllm_sees = [{"role": "user", "content": [{"type": "text", "text": "Time?"}]},
                 {"role": "assistant", "content": [], "tool_calls": [parsed]},
                 {"role": "tool", "content": "12:00", "tool_call_id": "call00001"}]
    expected = _reference(folders, "mistral_small31", vllm_sees)
    assert "[INST]Time?[/INST][][TOOL_CALLS]now[ARGS]{}</s>" in expected
    assert _render(folders, "mistral_small31", "vllm", messages) == expected
    sglang_sees = [messages[0], {"role": "assistant", "content": "", "tool_calls": [{**parsed, "index": None}]},
                   {"role": "tool", "content": "12:00", "tool_call_id": "call00001"}]
    assert _render(folders, "mistral_small31", "sglang", messages) == _reference(folders, "mistral_small31",
                                                                                 sglang_sees)


DETECTION = [
    # (template, vLLM's format, SGLang's format)
    # SGLang: a media word anywhere, a comment too, makes it a parts template.
    ("{# no image here #}{% for message in messages %}{{ message['content'] }}{% endfor %}", "string", "openai"),
    # vLLM follows namespace aliases (namespace(rest=messages), ns.rest = messages[1:]); SGLang
    # knows the loop variables message, msg and m only.
    ("{% set ns = namespace(rest=messages) %}{% for turn in ns.rest %}{% for p in turn['content'] %}{{ p.text }}"
     "{% endfor %}{% endfor %}", "openai", "string"),
    ("{% set ns = namespace(rest=[]) %}{% set ns.rest = messages[1:] %}{% for turn in ns.rest %}"
     "{% for p in turn.content %}{{ p.text }}{% endfor %}{% endfor %}", "openai", "string"),
    # vLLM: a macro parameter that a call passes a message's content, and a loop over `content`.
    ("{% macro show(c) %}{% for p in c %}{{ p.text }}{% endfor %}{% endmacro %}"
     "{% for turn in messages %}{{ show(turn['content']) }}{% endfor %}", "openai", "string"),
    ("{% for turn in messages %}{% set content = turn['content'] %}{% for p in content %}{{ p }}{% endfor %}"
     "{% endfor %}", "openai", "string"),
    ("{% for msg in messages %}{% for p in msg.content | list %}{{ p }}{% endfor %}{% endfor %}", "openai", "openai"),
    # vLLM stops at a loop over messages it cannot follow (two targets) and answers string.
    ("{% for a, b in messages | batch(2) %}{% endfor %}{% for message in messages %}"
     "{% for p in message['content'] %}{{ p }}{% endfor %}{% endfor %}", "string", "openai"),
    ("{% for message in messages %}{{ message['content'] }}{% endfor %}", "string", "string"),
    ("{% for message in messages %", "string", "string"),  # does not parse
]


@pytest.mark.parametrize("template,vllm,sglang", DETECTION)
def test_each_engine_detects_a_parts_template_as_it_does(template: str, vllm: str, sglang: str) -> None:
    """vLLM (0.33.0, 0.34.0): vllm/renderers/hf.py, ``_detect_content_format`` over
    ``_iter_nodes_assign_var_or_elems`` (aliases of ``messages``, namespace ones included),
    ``_iter_nodes_assign_messages_item`` and ``_iter_nodes_assign_content_item`` (loops
    over a message's content, over a macro parameter given one, over ``content``); a failed
    assertion on a loop target or a template that does not parse is "string".
    SGLang 0.5.23: sglang/srt/parser/jinja_template_utils.py,
    ``detect_jinja_template_content_format``."""
    assert detect(template, "vllm") == detect(template, "vllm==0.34.0") == vllm
    assert detect(template, "sglang") == sglang


def test_detection_decides_what_the_template_sees() -> None:
    """The same parts reach a namespace-alias template as parts under vLLM and as one
    string under SGLang (which joins text parts with " ")."""
    template = ("{% set ns = namespace(rest=messages) %}{% for turn in ns.rest %}"
                "{% if turn.content is string %}S:{{ turn.content }}{% else %}"
                "{% for p in turn['content'] %}P:{{ p.text }};{% endfor %}{% endif %}{% endfor %}")
    messages = [{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}]
    assert HFChatTemplate("t", template, engine="vllm").render(messages, None) == "P:a;P:b;"
    assert HFChatTemplate("t", template, engine="sglang").render(messages, None) == "S:a b"


def test_token_ids_differ_where_the_rendering_does(folders: dict[str, Path]) -> None:
    """One rule's difference at the top of the prompt changes every id after it: the Llama
    3.1 layout's ids for `tools: []` under vLLM 0.34.0 / SGLang against the same request
    with one tool, whose `Environment: ipython` line comes first."""
    from advisor.ingest.chat import Llama3Layout

    tok = load_tokenizer("llama3")
    user = [{"role": "user", "content": "hi"}]
    empty = tok.encode(Llama3Layout(engine="vllm==0.34.0").render(user, []))
    assert empty == tok.encode(Llama3Layout(engine="sglang").render(user, []))
    with_tool = tok.encode(Llama3Layout(engine="vllm==0.34.0").render(user, [WEATHER]))
    first_diff = next(i for i, (a, b) in enumerate(zip(empty, with_tool)) if a != b)
    assert first_diff < 8  # right after <|begin_of_text|> and the system header
