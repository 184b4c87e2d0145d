"""What each adapter reads beyond the common set (field names from the formats' docs)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from advisor.ingest.formats import iter_requests


def load(tmp: Path, name: str, rows: list, fmt: str | None = None, raw: str | None = None):
    path = tmp / name
    path.write_text(raw if raw is not None else "".join(json.dumps(r) + "\n" for r in rows))
    skips: list = []
    return list(iter_requests([path], skips.append, 512, fmt)), skips


def test_bailian_sessions_follow_the_parent_chain(tmp_path):
    rows = [{"chat_id": 10, "parent_chat_id": -1, "timestamp": 0.5, "input_length": 40, "output_length": 7,
             "type": "text", "turn": 1, "hash_ids": [1, 2, 3]},
            {"chat_id": 11, "parent_chat_id": -1, "timestamp": 1.0, "input_length": 20, "output_length": 2,
             "type": "text", "turn": 1, "hash_ids": [9, 8]},
            {"chat_id": 12, "parent_chat_id": 10, "timestamp": 2.0, "input_length": 60, "output_length": 3,
             "type": "text", "turn": 2, "hash_ids": [1, 2, 3, 4]},
            {"chat_id": 13, "parent_chat_id": 12, "timestamp": 3.0, "input_length": 64, "output_length": 3,
             "type": "text", "turn": 3, "hash_ids": [1, 2, 3, 4]},
            {"chat_id": 14, "parent_chat_id": -1, "timestamp": 3.5, "input_length": 99, "type": "text", "turn": 1,
             "hash_ids": [5]}]
    reqs, skips = load(tmp_path, "bailian.jsonl", rows)
    assert [r.session for r in reqs] == ["10", "11", "10", "10"]
    assert {r.block_size for r in reqs} == {16}  # Bailian's blocks are 16 tokens
    assert reqs[2].input_length == 60 and reqs[0].output_length == 7
    # 99 tokens do not fit one 16-token block: skipped with parse_record's own reason.
    assert len(skips) == 1 and "does not fit 1 blocks of 16 tokens" in skips[0].reason


def test_servegen_rows(tmp_path):
    rows = [{"request_id": 0, "type": "text", "input_length": 30, "output_length": 5, "hash_ids": [0, 1]},
            {"request_id": 1, "type": "text", "input_length": 32, "hash_ids": [0, 1], "img_ids": []}]
    reqs, skips = load(tmp_path, "servegen.jsonl", rows)
    assert not skips and [r.id for r in reqs] == ["0", "1"] and reqs[1].timestamp is None
    assert [r.input_length for r in reqs] == [30, 32]


def test_agentic_mooncake_delay_follows_the_session(tmp_path):
    rows = [{"session_id": "a", "timestamp": 1000, "input_length": 512, "output_length": 4, "hash_ids": [0]},
            {"session_id": "b", "timestamp": 1500, "input_length": 512, "output_length": 4, "hash_ids": [5]},
            {"session_id": "a", "delay": 250, "input_length": 1024, "output_length": 4, "hash_ids": [0, 1]},
            {"session_id": "a", "delay": 100, "input_length": 1536, "hash_ids": [0, 1, 2], "wait_for": ["x"]},
            {"session_id": "c", "delay": 10, "input_length": 512, "hash_ids": [7]}]
    reqs, skips = load(tmp_path, "agentic.jsonl", rows)
    assert [r.timestamp for r in reqs] == [1000.0, 1500.0, 1250.0, 1350.0]
    assert "'delay' on the first turn of session c" in skips[0].reason


def test_batch_output_errors_and_multi_prompt_completions(tmp_path):
    inp = [{"custom_id": "ok", "method": "POST", "url": "/v1/completions", "body": {"prompt": ["a b c", "d e f"]}},
           {"custom_id": "gone", "method": "POST", "url": "/v1/chat/completions",
            "body": {"messages": [{"role": "user", "content": "hi"}]}},
           {"custom_id": "bad", "method": "POST", "url": "/v1/embeddings", "body": {"input": "x"}},
           {"custom_id": "get", "method": "GET", "url": "/v1/chat/completions", "body": {}}]
    out = [{"id": "b1", "custom_id": "gone", "response": {"status_code": 500, "body": {}}, "error": None},
           {"id": "b2", "custom_id": "ok", "response": {"status_code": 200, "body": {"usage": {
               "prompt_tokens": 9, "completion_tokens": 2, "prompt_tokens_details": {"cached_tokens": 4}}}}}]
    (tmp_path / "in.jsonl").write_text("".join(json.dumps(r) + "\n" for r in inp))
    (tmp_path / "out.jsonl").write_text("".join(json.dumps(r) + "\n" for r in out))
    skips: list = []
    reqs = list(iter_requests([tmp_path / "in.jsonl", tmp_path / "out.jsonl"], skips.append))
    assert [(r.id, r.prompt) for r in reqs] == [("ok#0", "a b c"), ("ok#1", "d e f"), ("gone", None)]
    # A call of several prompts reports one usage for all: no per-request observation.
    assert [r.cached_tokens for r in reqs] == [None, None, None]
    reasons = sorted(s.reason for s in skips)
    assert any("status 500" in r for r in reasons)
    assert any("/v1/embeddings" in r for r in reasons) and any("method 'GET'" in r for r in reasons)


def test_otel_bad_span_does_not_lose_its_batch(tmp_path):
    good = {"spanId": "g", "startTimeUnixNano": "1764576000000000000", "attributes": [
        {"key": "gen_ai.input.messages", "value": {"stringValue": json.dumps(
            [{"role": "user", "parts": [{"type": "text", "content": "hello"}]}])}},
        {"key": "gen_ai.usage.cache_read.input_tokens", "value": {"intValue": "3"}}]}
    bad = {"spanId": "b", "attributes": [{"key": "gen_ai.input.messages", "value": {"stringValue": "[oops"}}]}
    doc = {"resourceSpans": [{"scopeSpans": [{"spans": [bad, good]}]}]}
    reqs, skips = load(tmp_path, "otel.jsonl", [doc])
    assert [(r.id, r.cached_tokens, r.timestamp) for r in reqs] == [("g", 3, 1764576000.0)]
    assert skips[0].reason.startswith("span b: 'gen_ai.input.messages' holds text that is not valid JSON")


def test_langfuse_api_page_and_older_usage(tmp_path):
    page = {"data": [{"id": "x", "traceId": "t", "type": "GENERATION", "startTime": "2025-12-01T08:00:00.123456789Z",
                      "input": [{"role": "user", "content": "hi"}], "usage": {"input": 5, "output": 2, "unit": "TOKENS"}}],
            "meta": {"page": 1, "totalItems": 1}}
    reqs, skips = load(tmp_path, "lf.json", [], raw=json.dumps(page, indent=1))
    assert not skips and reqs[0].timestamp == 1764576000.123456 and reqs[0].output_length == 2


def test_litellm_spend_row_without_stored_prompt(tmp_path):
    rows = [{"request_id": "r", "call_type": "acompletion", "spend": 0.1, "startTime": "2025-12-01T08:00:00Z",
             "messages": {}, "response": {}, "proxy_server_request": {}}]
    reqs, skips = load(tmp_path, "spend.jsonl", rows)
    assert not reqs and "store_prompts_in_spend_logs" in skips[0].reason


def test_gzip_on_standard_input(tmp_path, monkeypatch, cli):
    import io
    import sys

    data = gzip.compress(b'{"prompt": "hello there"}\n{"prompt": "hello you"}\n')
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(io.BytesIO(data))))
    res = cli("analyze", "-", "--no-diagnose", "--format", "json")
    assert res.code == 0, res.err
    assert json.loads(res.out)["requests"] == 2


def test_request_options_pass_through(tmp_path):
    """Fields that change the engine's rendering (tool_choice, chat_template_kwargs) stay
    on the request, whichever format carried the body."""
    body = {"messages": [{"role": "user", "content": "hi"}], "tools": [], "tool_choice": "none",
            "chat_template_kwargs": {"enable_thinking": False}}
    rows = [{"custom_id": "a", "method": "POST", "url": "/v1/chat/completions", "body": body}]
    reqs, skips = load(tmp_path, "b.jsonl", rows)
    assert not skips
    assert reqs[0].options == {"tool_choice": "none", "chat_template_kwargs": {"enable_thinking": False}}
    assert reqs[0].tools == ()  # an empty tool list stays one (vLLM hands it to the template)
    reqs, _ = load(tmp_path, "l.jsonl", [{"request": body, "response": {"usage": None}}])
    assert reqs[0].options["tool_choice"] == "none"
