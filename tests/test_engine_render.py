"""Differential test: advisor's rendering of chat requests against HuggingFace
transformers' own ``apply_chat_template``, fed as vLLM and as SGLang feed it.

For each test chat template (the structure of Llama 3.1/3.2, Qwen 2.5/3, Mistral, gpt-oss,
DeepSeek, Gemma 3, Phi-4, Command R templates) and each engine, every request of a
generated corpus goes through advisor (traffic record -> engine preprocessing -> sandboxed
template) and through the oracle (tests/engine_oracle.py: the engines' request models as
pydantic models -> transformers). The texts must be equal wherever the reference
renders; where the reference (or the engine) refuses the request, advisor must skip it
with the template's (or engine's) message.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest

import transformers  # the test extra: the reference renderer

from advisor.errors import AdvisorError  # noqa: E402
from advisor.ingest.chat import Llama3Layout  # noqa: E402
from advisor.ingest.chat_template import load_chat_template  # noqa: E402
from advisor.ingest.content_format import detect  # noqa: E402
from advisor.ingest.preprocess import EngineRejects  # noqa: E402
from advisor.ingest.traffic import parse_record  # noqa: E402
from tests import engine_oracle  # noqa: E402
from tests.chat_corpus import corpus  # noqa: E402

TEMPLATES = Path(__file__).parent / "chat_templates"
NAMES = ["llama31", "llama32", "qwen25", "qwen3", "mistral", "gpt_oss", "deepseek", "gemma3", "phi4", "command_r"]
# The pinned releases (vLLM 0.33.0, SGLang 0.5.23) and vLLM's newest (advisor.ingest.preprocess.ENGINE_VERSIONS).
ENGINES = ["vllm", "vllm==0.34.0", "sglang"]
# What each engine's check of the template's syntax tree decides (content parts or one string).
EXPECTED_FORMAT = {name: "string" for name in NAMES} | {"gemma3": "openai"}
CORPUS = corpus(60, seed=13)
FALLBACK = dt.datetime(2026, 1, 1, 12, 0, 0, tzinfo=dt.timezone.utc)


def _model_folder(root: Path, name: str) -> Path:
    specials = json.loads((TEMPLATES / "specials.json").read_text())[name]
    return engine_oracle.model_folder(root, name, specials, (TEMPLATES / f"{name}.jinja").read_text())


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("models")
    return {name: _model_folder(root, name) for name in NAMES}


def _now(record: dict) -> dt.datetime:
    ts = record.get("timestamp")
    return dt.datetime.fromtimestamp(ts, tz=dt.timezone.utc) if ts else FALLBACK


def _reference(tokenizer: Any, record: dict, engine: str, fmt: str) -> tuple[str | None, str | None]:
    """(text, None) or (None, the reason the engine or the template refuses)."""
    name, _, version = engine.partition("==")
    try:
        prepared = engine_oracle.vllm(record, fmt, version or "0.33.0") if name == "vllm" \
            else engine_oracle.sglang(record, fmt)
    except engine_oracle.Rejected as exc:
        return None, str(exc)
    try:
        return engine_oracle.reference_render(tokenizer, prepared, _now(record)), None
    except Exception as exc:
        return None, str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def _compare(renderer: Any, tokenizer: Any, engine: str, fmt: str) -> dict[str, Any]:
    counts = {"rendered": 0, "refused": 0}
    problems = []
    for n, record in enumerate(CORPUS):
        expected, reason = _reference(tokenizer, record, engine, fmt)
        req = parse_record(json.loads(json.dumps(record)), "corpus", n + 1)
        try:
            got = renderer.render(req.messages, req.tools, req.timestamp, req.options)
        except AdvisorError as exc:
            if expected is not None:
                problems.append(f"#{n}: advisor refused ({exc}) what the reference renders")
            elif reason and reason[:80] not in str(exc) and not isinstance(exc, EngineRejects):
                problems.append(f"#{n}: advisor's reason {str(exc)!r} does not carry the template's {reason!r}")
            else:
                counts["refused"] += 1
            continue
        if expected is None:
            problems.append(f"#{n}: advisor rendered what the reference refuses ({reason})")
        elif got != expected:
            problems.append(f"#{n}: texts differ\n  advisor:   {got!r}\n  reference: {expected!r}")
        else:
            counts["rendered"] += 1
    assert not problems, f"{len(problems)} of {len(CORPUS)} differ, first: " + "\n".join(problems[:3])
    return counts


def test_corpus_covers_every_dimension() -> None:
    assert len(CORPUS) >= 40
    flat = json.dumps(CORPUS, ensure_ascii=False)
    roles = {m["role"] for r in CORPUS for m in r["messages"]}
    assert {"system", "user", "assistant", "tool"} <= roles
    assert any(r["messages"][0]["role"] != "system" for r in CORPUS)
    assert any(len(r["messages"]) >= 5 for r in CORPUS)
    calls = [c for r in CORPUS for m in r["messages"] for c in m.get("tool_calls") or []]
    assert any(isinstance(c["function"]["arguments"], str) and c["function"]["arguments"].startswith("{\"")
               for c in calls)
    assert any(isinstance(c["function"]["arguments"], dict) for c in calls)
    assert any(m.get("content") is None for r in CORPUS for m in r["messages"])
    assert any(isinstance(m.get("content"), list) for r in CORPUS for m in r["messages"])
    assert any(r.get("tools") == [] for r in CORPUS) and any(r.get("tools") for r in CORPUS)
    assert "日本語" in flat and '"content": ""' in flat


@pytest.mark.parametrize("name", NAMES)
def test_content_format_detection(name: str) -> None:
    text = (TEMPLATES / f"{name}.jinja").read_text()
    for engine in ENGINES:
        assert detect(text, engine) == EXPECTED_FORMAT[name]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name", NAMES)
def test_template_renders_as_transformers_does(name: str, engine: str, folders: dict[str, Path]) -> None:
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(folders[name]))
    renderer = load_chat_template(folders[name] / "tokenizer_config.json", engine=engine)
    counts = _compare(renderer, tokenizer, engine, EXPECTED_FORMAT[name])
    # Most of the corpus renders (the comparison is not vacuous) ...
    assert counts["rendered"] >= 20, counts
    assert counts["rendered"] + counts["refused"] == len(CORPUS)


@pytest.mark.parametrize("engine", ENGINES)
def test_builtin_layout_is_llama31_template(engine: str, folders: dict[str, Path]) -> None:
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(folders["llama31"]))
    counts = _compare(Llama3Layout(engine=engine), tokenizer, engine, "string")
    assert counts["rendered"] >= 40, counts


def test_engines_differ_where_they_should() -> None:
    # The same request renders differently per engine: parts joined by "\n" (vLLM) or " "
    # (SGLang), tools re-serialized with each request model's defaults, `tools: []`
    # refused by vLLM 0.33.0 and no tools for vLLM 0.34.0 and SGLang (tests/test_engine_versions.py).
    layout = {e: Llama3Layout(engine=e) for e in ENGINES}
    parts = [{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}]
    assert "a\nb<|eot_id|>" in layout["vllm"].render(parts, None)
    assert "a b<|eot_id|>" in layout["sglang"].render(parts, None)
    user = [{"role": "user", "content": "x"}]
    with pytest.raises(EngineRejects, match="must not be an empty array"):
        layout["vllm"].render(user, [])
    assert layout["vllm==0.34.0"].render(user, []) == layout["sglang"].render(user, []) \
        == layout["sglang"].render(user, None)
    tool = [{"type": "function", "function": {"name": "f"}}]
    assert '"description": null,\n        "parameters": null' in layout["vllm"].render(user, tool)
    assert '"strict": false\n    },\n    "defer_loading": null' in layout["sglang"].render(user, tool)
    broken = [{"role": "user", "content": "x"},
              {"role": "assistant", "content": None,
               "tool_calls": [{"id": "1", "type": "function", "function": {"name": "f", "arguments": "{oops"}}]},
              {"role": "user", "content": "y"}]
    assert '{"name": "f", "parameters": {}}' in layout["vllm"].render(broken, tool)
    with pytest.raises(EngineRejects, match="must be valid JSON"):
        layout["sglang"].render(broken, tool)


def test_plain_fast_path_equals_the_full_path() -> None:
    # Role-and-string-content messages take a shortcut; with an option set they take the
    # full path. Both must hand the template the same conversation.
    from advisor.ingest.preprocess import prepare

    for record in CORPUS:
        messages = [{"role": m["role"], "content": m["content"] if isinstance(m.get("content"), str) else "x"}
                    for m in record["messages"] if m["role"] in ("system", "user", "assistant")]
        for engine in ENGINES:
            fast = prepare(engine, messages, None)
            full = prepare(engine, messages, None, {"chat_template_kwargs": {}})
            assert (fast.messages, fast.tools, fast.kwargs, fast.suffix) == \
                (full.messages, full.tools, full.kwargs, full.suffix)
