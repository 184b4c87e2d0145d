"""Acceptance: a file mixing formats, truncated log lines and unknown shapes: every bad
line is skipped with its reason, the good ones are counted, the exit status is 1. And
the detection rules: forced formats, files that match nothing, ISO timestamps."""

from __future__ import annotations

import json
from pathlib import Path

from advisor.ingest.formats import iter_requests

GOOD = {"messages": [{"role": "user", "content": "Where is my order 1234?"}]}
BATCH = {"custom_id": "a", "method": "POST", "url": "/v1/chat/completions", "body": {"messages": GOOD["messages"]}}
LANGFUSE = {"id": "g", "traceId": "t", "type": "GENERATION", "startTime": "2025-12-01T08:00:00Z", "input": "hi"}


def load(paths, fmt=None):
    skips = []
    reqs = list(iter_requests([Path(p) for p in paths], skips.append, 512, fmt))
    return reqs, skips


def test_mixed_jsonl_file(tmp_path: Path, cli):
    lines = [json.dumps(GOOD), json.dumps({**GOOD, "timestamp": "2025-12-01T08:00:01+01:00"}), json.dumps(BATCH),
             json.dumps(LANGFUSE), json.dumps({"foo": 1}), "not json at all", '{"messages": [', json.dumps(GOOD),
             json.dumps({**GOOD, "timestamp": "2025-12-01T08:00:01"})]
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join(lines) + "\n")
    reqs, skips = load([path])
    assert [r.line for r in reqs] == [1, 2, 8]
    assert reqs[1].timestamp == 1764572401.0  # 07:00:01 UTC
    reasons = {s.line: s.reason for s in skips}
    assert set(reasons) == {3, 4, 5, 6, 7, 9}
    assert "openai-batch record in a file read as advisor" in reasons[3]
    assert "langfuse record in a file read as advisor" in reasons[4]
    assert "unknown record shape" in reasons[5]
    assert "invalid JSON" in reasons[6] and "invalid JSON" in reasons[7]
    assert "has no time zone" in reasons[9]
    res = cli("analyze", path, "--no-diagnose", "--format", "json")
    assert res.code == 1
    data = json.loads(res.out)
    assert (data["requests"], data["skipped"]) == (3, 6)
    for line in (3, 4, 5, 6, 7, 9):
        assert f"mixed.jsonl:{line}: " in res.err


def test_mixed_engine_log(tmp_path: Path, cli):
    ids = list(range(100, 140))
    good = f"INFO 12-01 08:00:0{{}} logger.py:37] Received request r{{}}: prompt: 'Hello there, how are you', " \
           f"params: SamplingParams(n=1), prompt_token_ids: {ids}, lora_request: None."
    cut = "INFO 12-01 08:00:02 logger.py:37] Received request r2: prompt: 'Hello there, how are y"
    text = "x" * 20
    maxlen = (f"INFO 12-01 08:00:03 logger.py:37] Received request r3: prompt: {text!r}, params: SamplingParams(), "
              f"prompt_token_ids: {list(range(20))}, lora_request: None.")
    sgl = "[2025-12-01 08:00:04] Receive: obj=GenerateReqInput(text='hi', rid='s1')"
    lines = ["INFO 12-01 07:59:59 api_server.py:1] starting", good.format(0, 0, 0), cut, maxlen, sgl,
             "INFO 12-01 08:00:05 metrics.py:1] Avg prompt throughput: 1.0 tokens/s", good.format(6, 6)]
    path = tmp_path / "vllm.log"
    path.write_text("\n".join(lines) + "\n")
    reqs, skips = load([path])
    assert [r.id for r in reqs] == ["r0", "r6"] and tuple(reqs[0].input_ids) == tuple(ids)
    assert reqs[1].timestamp - reqs[0].timestamp == 6.0
    reasons = {s.line: s.reason for s in skips}
    assert set(reasons) == {3, 4, 5}
    assert reasons[3].startswith("truncated log line for request r2")
    assert "cut to 20 (--max-log-len)" in reasons[4]
    assert "sglang-log line in a file read as vllm-log" in reasons[5]
    res = cli("analyze", path, "--no-diagnose", "--format", "json")
    assert res.code == 1 and json.loads(res.out)["requests"] == 2


def test_sglang_shortened_values_are_truncated(tmp_path: Path):
    line = "[2025-12-01 08:00:04] Receive: obj=GenerateReqInput(text='aaaa' ... 'zzzz', input_ids=None, rid='s1')"
    path = tmp_path / "s.log"
    path.write_text(line + "\n[2025-12-01 08:00:05] Receive: obj=GenerateReqInput(text='ok', rid='s2')\n")
    reqs, skips = load([path])
    assert [r.id for r in reqs] == ["s2"]
    assert "SGLang shortened the text" in skips[0].reason


def test_a_file_matching_no_format_is_an_error_naming_them(tmp_path: Path, cli):
    path = tmp_path / "odd.jsonl"
    path.write_text("".join(json.dumps({"q": i}) + "\n" for i in range(20)))
    res = cli("analyze", path, "--format", "json")
    assert res.code == 2
    assert "match no known input format (tried: openai-batch, openai-batch-output" in res.err
    assert "vllm-log, sglang-log" in res.err and res.err.count("\n") == 1
    short = tmp_path / "short.log"
    short.write_text("hello\nworld\n")
    res = cli("analyze", short)
    assert res.code == 2 and "its first records match no known input format" in res.err


def test_forced_format(tmp_path: Path, cli):
    path = tmp_path / "b.jsonl"
    path.write_text(json.dumps(BATCH) + "\n" + json.dumps(GOOD) + "\n")
    reqs, skips = load([path], "openai-batch")
    assert [r.id for r in reqs] == ["a"]
    assert "advisor record in a file read as openai-batch" in skips[0].reason
    res = cli("analyze", path, "--input-format", "nope")
    assert res.code == 2 and "unknown --input-format 'nope'" in res.err
