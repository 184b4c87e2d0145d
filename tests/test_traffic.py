"""Loaders: every record kind, every bad-input case, and the exit codes."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from advisor.errors import AdvisorError
from advisor.ingest.traffic import Skip, iter_file


def write(tmp_path: Path, name: str, lines: list[str | bytes]) -> Path:
    path = tmp_path / name
    data = b"".join((l if isinstance(l, bytes) else l.encode()) + b"\n" for l in lines)
    path.write_bytes(gzip.compress(data, mtime=0) if name.endswith(".gz") else data)
    return path


def load(path: Path) -> tuple[list, list[Skip]]:
    skips: list[Skip] = []
    return list(iter_file(path, skips.append)), skips


GOOD = [
    json.dumps({"id": "a", "timestamp": 1.5, "tenant": "acme", "output_length": 10,
                "messages": [{"role": "system", "content": "S"}, {"role": "user", "content": "Q"}]}),
    json.dumps({"messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
                "tools": [{"type": "function", "function": {"name": "f"}}]}),
    json.dumps({"prompt": "raw text"}),
    json.dumps({"input_ids": [1, 2, 3]}),
    json.dumps({"tokens": [4, 5]}),
    json.dumps({"hash_ids": [0, 1, 2], "input_length": 1100}),
    json.dumps({"template": "rag", "variables": {"question": "why?"}}),
]


@pytest.mark.parametrize("name", ["t.jsonl", "t.jsonl.gz"])
def test_every_record_kind(tmp_path: Path, name: str) -> None:
    reqs, skips = load(write(tmp_path, name, GOOD))
    assert skips == []
    assert [r.kind for r in reqs] == ["messages", "messages", "prompt", "input_ids", "input_ids", "hash_ids", "template"]
    first = reqs[0]
    assert (first.id, first.timestamp, first.tenant, first.output_length) == ("a", 1.5, "acme", 10)
    assert reqs[1].tools and tuple(reqs[3].input_ids) == (1, 2, 3) and tuple(reqs[4].input_ids) == (4, 5)
    assert tuple(reqs[5].hash_ids) == (0, 1, 2) and reqs[5].input_length == 1100
    assert reqs[6].template == "rag" and reqs[6].variables == {"question": "why?"}
    assert [r.line for r in reqs] == list(range(1, 8))


BAD = [
    ('{"prompt": "x"', "invalid JSON"),
    ('[1, 2]', "expected a JSON object"),
    ('{"messages": []}', "'messages' is empty"),
    ('{"messages": "hi"}', "'messages' must be a list"),
    ('{"messages": [{"role": "wizard", "content": "x"}]}', "unknown role 'wizard'"),
    ('{"messages": [{"role": "user", "content": 7}]}', "content must be a string"),
    ('{"messages": [{"content": "x"}]}', "no string 'role'"),
    ('{"prompt": 42}', "'prompt' must be a string"),
    ('{"input_ids": [1, "2"]}', "integers only"),
    ('{"input_ids": [1, -2]}', "negative id"),
    ('{"input_ids": [true]}', "integers only"),
    ('{"hash_ids": ["a"]}', "integers only"),
    ('{"hash_ids": [1, 2], "input_length": 5000}', "does not fit 2 blocks"),
    ('{"hash_ids": [1, 2], "input_length": 100}', "does not fit 2 blocks"),
    ('{"question": "x"}', "unknown record shape"),
    ('{"prompt": "x", "timestamp": "noon"}', "'timestamp' must be a number"),
    ('{"prompt": "x", "output_length": -1}', "'output_length'"),
    ('{"template": "t", "variables": [1]}', "'variables' must be an object"),
]


@pytest.mark.parametrize("line,reason", BAD)
def test_bad_lines_are_skipped_with_reason(tmp_path: Path, line: str, reason: str) -> None:
    path = write(tmp_path, "t.jsonl", [GOOD[2], line, GOOD[3]])
    reqs, skips = load(path)
    assert len(reqs) == 2  # the good records around it still load
    assert len(skips) == 1
    assert skips[0].line == 2 and reason in skips[0].reason
    assert str(skips[0]).startswith(f"{path}:2: ")


def test_invalid_utf8_and_blank_lines(tmp_path: Path) -> None:
    path = write(tmp_path, "t.jsonl", [GOOD[2], b'{"prompt": "\xff\xfe"}', b"", b"   ", GOOD[3]])
    reqs, skips = load(path)
    assert len(reqs) == 2
    assert [(s.line, s.reason.split(" at ")[0]) for s in skips] == [(2, "invalid UTF-8")]


def test_truncated_gzip_keeps_the_good_records(tmp_path: Path) -> None:
    data = gzip.compress(("\n".join(GOOD[2:5] * 50) + "\n").encode(), mtime=0)
    path = tmp_path / "t.jsonl.gz"
    path.write_bytes(data[: len(data) - 20])
    reqs, skips = load(path)
    assert len(reqs) > 0
    assert len(skips) == 1 and "gzip" in skips[0].reason


def test_not_gzip_named_gz(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl.gz"
    path.write_text(GOOD[2] + "\n")
    with pytest.raises(AdvisorError, match="not gzip"):
        load(path)


@pytest.mark.parametrize("content", [b"", b"\n\n   \n"])
def test_empty_file_is_an_error(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_bytes(content)
    with pytest.raises(AdvisorError, match="empty"):
        load(path)


def test_missing_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(AdvisorError, match="no such file"):
        load(tmp_path / "nope.jsonl")


# --- the same cases through the CLI: exit codes and one-line messages --------------------

def test_cli_exit_1_when_lines_skipped(tmp_path: Path, cli) -> None:
    path = write(tmp_path, "t.jsonl", [GOOD[2], '{"prompt": 1}', GOOD[3]])
    res = cli("analyze", path, "--format", "json")
    assert res.code == 1
    data = json.loads(res.out)
    assert data["requests"] == 2 and data["skipped"] == 1
    assert data["skipped_lines"] == [f"{path}:2: 'prompt' must be a string"]
    assert f"{path}:2: 'prompt' must be a string" in res.err


@pytest.mark.parametrize("make", [
    lambda p: p / "missing.jsonl",
    lambda p: (p / "empty.jsonl", (p / "empty.jsonl").write_text(""))[0],
    lambda p: (p / "blank.jsonl", (p / "blank.jsonl").write_text("\n \n"))[0],
    lambda p: p,
])
def test_cli_exit_2_on_missing_empty_or_folder(tmp_path: Path, cli, make) -> None:
    res = cli("analyze", make(tmp_path))
    assert res.code == 2
    assert res.err.startswith("advisor: error: ") and res.err.count("\n") == 1
    assert "Traceback" not in res.err


def test_cli_out_of_vocabulary_ids_are_skipped(tmp_path: Path, cli) -> None:
    path = write(tmp_path, "t.jsonl", ['{"input_ids": [1, 2]}', '{"input_ids": [1, 999999]}'])
    res = cli("analyze", path, "--format", "json")
    assert res.code == 1
    assert "outside the tokenizer's vocabulary" in json.loads(res.out)["skipped_lines"][0]
