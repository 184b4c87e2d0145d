"""Every format parser under the caps of the JSON path, checked while it reads (issue 34):
engine log lines (Python literals), whole-file JSON documents, JSON text inside a field.

The oracle of the literal reader is Python's own ``ast.literal_eval`` on what ``repr``
writes; the caps are lowered through the module constants the readers read at call
time, and the memory a reader builds is measured with tracemalloc (numpy reports its
arrays to it), so each test fails on a reader that materialises the whole value first.
"""

from __future__ import annotations

import ast
import json
import random
import tracemalloc
from array import array
from pathlib import Path
from typing import Any, Callable

import pytest

from advisor.errors import AdvisorError
from advisor.ingest import long_lines, traffic
from advisor.ingest.formats import FileFormat
from advisor.ingest.formats.pyliteral import Cut, value_at
from advisor.ingest.traffic import iter_file

ALPHABET = "ab ,:[](){}'\"\\\n\t\x1b\x7f\x9b\u00e9\u4e2d\U0001f600"


def _value(rng: random.Random, depth: int = 0) -> Any:
    if depth > 3 or rng.random() < 0.35:
        return rng.choice([
            rng.randrange(-10**6, 10**6), rng.randrange(2**40), rng.random() * 10 ** rng.randrange(-9, 30), 0.0,
            None, True, False, "".join(rng.choice(ALPHABET) for _ in range(rng.randrange(9))),
        ])
    n = rng.randrange(5)
    kind = rng.randrange(4)
    if kind == 0:
        return [_value(rng, depth + 1) for _ in range(n)]
    if kind == 1:
        return tuple(_value(rng, depth + 1) for _ in range(n))
    if kind == 2:
        return {rng.choice([rng.randrange(99), f"k{rng.randrange(9)}", None, 1.5, (1, "x")]): _value(rng, depth + 1)
                for _ in range(n)}
    return {rng.randrange(99) for _ in range(n + 1)}


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, array) else value


@pytest.mark.parametrize("seed", range(4))
def test_literals_read_as_python_reads_them(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(2000):
        text = repr(_value(rng))
        got, end = value_at(text + ", params: SamplingParams(n=1)", 0)
        assert end == len(text)
        assert repr(_plain(got)) == repr(ast.literal_eval(text)), text


@pytest.mark.parametrize("text,want", [
    ("[1, 2, 3]", [1, 2, 3]), ("[]", []), ("(1,)", (1,)), ("(1)", 1), ("{}", {}), ("{1}", {1}), ("{1, 2,}", {1, 2}),
    ("[1, 2,]", [1, 2]), ("[[1, 2], [3]]", [[1, 2], [3]]), ("'it\\'s \\x1b\\u00e9\\N{BULLET}'", "it's \x1b\u00e9\u2022"),
    ("[00, 0.5, .5, 5., -1e3]", [0, 0.5, 0.5, 5.0, -1000.0]),
])
def test_literal_values(text: str, want: Any) -> None:
    got, end = value_at(text, 0)
    assert _plain(got) == want and type(_plain(got)) is type(want) and end == len(text)


@pytest.mark.parametrize("text", ["[1 2]", "[,]", "{1: }", "{1, 2: 3}", "[01]", "[1, 2)", "'\\q'", "'\\x4'", "[inf]",
                                  "[" * 201 + "]" * 201])
def test_what_is_no_literal_comes_back_as_its_text(text: str) -> None:
    got, end = value_at(text, 0)
    assert got == text and end == len(text)


@pytest.mark.parametrize("text,reason", [
    ("[1, 2", "a bracket is never closed"), ("['ab", "a quoted string is never closed"), ("'ab\\", "never closed"),
])
def test_a_literal_cut_short_is_a_cut(text: str, reason: str) -> None:
    with pytest.raises(Cut, match=reason):
        value_at(text, 0)


def _peak(work: Callable[[], Any]) -> tuple[Any, int]:
    """What ``work`` returns or raises, and the peak bytes it allocated."""
    tracemalloc.start()
    try:
        try:
            out: Any = work()
        except Exception as exc:  # the outcome under test
            out = exc
        return out, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_an_id_list_past_the_cap_is_refused_a_slice_past_it(monkeypatch) -> None:
    """ast.literal_eval built ~1 KB of syntax tree an id before any cap: 10M ids took a
    minute and 3.9 GB. Now the list is packed a slice at a time and refused one slice
    past MAX_RECORD_IDS, whatever its length."""
    monkeypatch.setattr(long_lines, "MAX_RECORD_IDS", 1000)
    line = "prompt_token_ids: [" + ", ".join(["7"] * 1_000_000) + "], lora_request: None"
    out, peak = _peak(lambda: value_at(line, len("prompt_token_ids: "), "prompt_token_ids"))
    assert isinstance(out, long_lines.TooManyValues)
    assert str(out) == "'prompt_token_ids' holds 1,000,000 ids, over the 1,000 limit for one record"
    assert peak < 32 << 20  # a 1 MiB slice and its ints (~12 MB); the syntax tree of the literal was ~1 GB
    monkeypatch.setattr(long_lines, "MAX_RECORD_IDS", 4_000_000)  # under the cap: packed, not a list of ints
    ids, end = value_at(line, len("prompt_token_ids: "))
    assert isinstance(ids, array) and len(ids) == 1_000_000 and line[end:] == ", lora_request: None"


@pytest.mark.parametrize("literal", [
    "[" + "[], " * 300_000 + "[]]",  # brackets: refused while the end is sought
    "[" + "'ab', " * 300_000 + "'c']",  # strings
    "['x', " + "1.5, " * 300_000 + "2]",  # numbers after a string: counted as they are read
    "{" + ", ".join(f"{i}: None" for i in range(300_000)) + "}",
])
def test_values_past_the_cap_are_refused_before_they_are_built(literal: str, monkeypatch) -> None:
    monkeypatch.setattr(long_lines, "MAX_VALUES", 100_000)
    out, peak = _peak(lambda: value_at(literal, 0, "input_ids"))
    assert isinstance(out, long_lines.TooManyValues), out
    assert str(out) == "'input_ids' holds over 100,000 values; no request needs that many"
    assert peak < 24 << 20  # at most the cap's values (ast.literal_eval: ~300 MB for these)


def test_a_long_string_of_escapes_is_read_in_bounded_memory() -> None:
    """A regex whose repeat is unbounded keeps backtracking state for each escape (~100
    bytes): 8M escapes cost 900 MB before the string's end was found."""
    body = "ab\\n\\'" * 1_000_000
    line = f"prompt: '{body}', prompt_token_ids: None"
    (text, end), peak = _peak(lambda: value_at(line, len("prompt: ")))
    assert text == "ab\n'" * 1_000_000 and line[end:] == ", prompt_token_ids: None"
    # The slice, its latin-1 bytes, the decoded text: a few times the line, not ~100 bytes an escape.
    assert peak < 5 * len(line)


def _vllm(ids: str, rid: str = "r1") -> str:
    return (f"INFO 12-01 08:00:01 logger.py:37] Received request {rid}: prompt: 'hi there', params: "
            f"SamplingParams(n=1), prompt_token_ids: {ids}, lora_request: None.")


def _sglang(ids: str, rid: str = "b") -> str:
    return f"[2025-12-01 08:00:01] Receive: obj=GenerateReqInput(text=None, input_ids={ids}, rid='{rid}')"


def _read(path: Path, fmt: FileFormat | None = None) -> tuple[list[Any], list[str]]:
    skips: list[str] = []
    reqs = list(iter_file(path, lambda s: skips.append(str(s)), 512, fmt or FileFormat(str(path))))
    return reqs, skips


@pytest.mark.parametrize("kind,write", [("vllm-log", _vllm), ("sglang-log", _sglang)])
def test_engine_logs_refuse_a_record_past_the_caps_with_its_reason(kind: str, write: Callable[..., str], tmp_path: Path,
                                                                      monkeypatch) -> None:
    monkeypatch.setattr(long_lines, "MAX_RECORD_IDS", 1000)
    monkeypatch.setattr(long_lines, "MAX_VALUES", 2000)
    lines = [write("[1, 2, 3]", "ok1"), write("[" + ", ".join(["7"] * 5000) + "]", "big"),
             write("[" + "[], " * 3000 + "[]]", "nested"), write("[4, 5, 6]", "ok2")]
    path = tmp_path / "engine.log"
    path.write_text("\n".join(lines) + "\n")
    reqs, skips = _read(path)
    assert [list(r.input_ids) for r in reqs] == [[1, 2, 3], [4, 5, 6]]
    name = "prompt_token_ids" if kind == "vllm-log" else "input_ids"
    assert skips == [f"{path}:2: request big: '{name}' holds 5,000 ids, over the 1,000 limit for one record",
                     f"{path}:3: request nested: '{name}' holds over 2,000 values; no request needs that many"]


def test_a_realistic_engine_log_line_of_ten_million_ids(tmp_path: Path) -> None:
    """The probe's line: 30 MB, 10M ids. It took 54 s and 3.9 GB, then was misreported
    as not a list of integers; now it is one skipped line, read a slice past the cap."""
    path = tmp_path / "vllm.log"
    path.write_text(_vllm("[1, 2]", "ok") + "\n" + _vllm("[" + ", ".join(["7"] * 10_000_000) + "]", "huge") + "\n")
    reqs, skips = _read(path)
    assert len(reqs) == 1
    assert skips == [f"{path}:2: request huge: 'prompt_token_ids' holds 10,000,000 ids, over the 4,000,000 limit "
                     "for one record"]


def _built(value: Any) -> int:
    """The objects a JSON parser builds for ``value``: itself, and its keys and items."""
    if isinstance(value, dict):
        return 1 + sum(1 + _built(v) for v in value.values())
    if isinstance(value, list):
        return 1 + sum(_built(v) for v in value)
    return 1


def test_json_values_are_counted_in_bounded_memory() -> None:
    """The count that guards the JSON parser itself: a regex substitution of the strings
    kept a list entry for each (1.2 GB for a 28 MB line of short strings)."""
    raw = b'{"prompt": "x", "pad": [' + b'"a",' * 1_000_000 + b'"a\\\\", "b\\"c"], "t": "[,:{"}'
    count, peak = _peak(lambda: long_lines.count_values(raw))
    assert count == _built(json.loads(raw)) == 1_000_009  # the values the parser builds, and no more
    assert peak < 4 * len(raw)  # two copies and 1 MiB slices through numpy; the substitution held 25 times it


def test_json_text_inside_a_field_keeps_the_caps(tmp_path: Path, monkeypatch) -> None:
    """An OTel attribute holding JSON text: one string on the line, millions of values in it."""
    monkeypatch.setattr(long_lines, "MAX_VALUES", 1000)
    messages = json.dumps([{"role": "user", "parts": [{"type": "text", "content": "x"}]}] * 20_000)
    span = {"spanId": "s1", "attributes": [{"key": "gen_ai.input.messages", "value": {"stringValue": messages}}]}
    path = tmp_path / "otel.jsonl"
    path.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}) + "\n")
    reqs, skips = _read(path)
    assert not reqs and len(skips) == 1
    assert "'gen_ai.input.messages': over 1,000 JSON values" in skips[0]


def _generation(i: int, text: str = "") -> dict[str, Any]:
    return {"id": f"g{i}", "traceId": f"t{i}", "type": "GENERATION", "startTime": "2025-12-01T08:00:00Z",
            "input": [{"role": "user", "content": f"question {i}: {text}"}], "usageDetails": {"input": 9}}


def test_a_json_array_document_is_read_a_record_at_a_time(tmp_path: Path) -> None:
    """A 200 MB Langfuse export took 3 GB read whole: its lines were kept, joined and parsed
    at once. Each element is now read on its own, so memory follows the largest record."""
    path = tmp_path / "export.json"
    path.write_text(json.dumps([_generation(i, "lorem ipsum " * 400) for i in range(2000)], indent=2))
    count, peak = _peak(lambda: sum(1 for _ in iter_file(path, lambda s: pytest.fail(str(s)), 512, FileFormat(str(path)))))
    assert count == 2000 and path.stat().st_size > 9 << 20
    assert peak < 6 << 20  # the 1 MiB read chunks and a record; the document's lines alone were 9 MB


def test_document_records_keep_their_lines_and_reasons(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(traffic, "MAX_LINE_BYTES", 1 << 20)
    big = _generation(3)
    big["input"] = [{"role": "user", "content": "x" * 200_000}] * 8  # over 1 MiB, in lines under it
    items = [_generation(1), {"type": "GENERATION"}, big, _generation(4)]
    path = tmp_path / "export.json"
    path.write_text(json.dumps(items, indent=2)[:-2] + ",\n  [1, 2\n")  # and the file is cut short
    reqs, skips = _read(path)
    assert [r.id for r in reqs] == ["g1", "g4"]
    text = path.read_text().splitlines()
    starts = [i + 1 for i, ln in enumerate(text) if ln.startswith("  {") or ln.startswith("  [")]
    assert skips == [f"{path}:{starts[1]}: item 2: not a langfuse record (unknown shape)",
                     f"{path}:{starts[2]}: item 3: record is over 1 MiB (no request is that long)",
                     f"{path}:{starts[4]}: item 5: the JSON document ends inside this record (a truncated file?)"]


def test_a_single_json_object_over_the_limit_is_refused_as_it_streams(tmp_path: Path, monkeypatch) -> None:
    """An OTel export of one object cannot be read a record at a time: refused once it
    passes the size of a line, before it is parsed (it was parsed whole up to 256 MiB)."""
    monkeypatch.setattr(traffic, "MAX_LINE_BYTES", 1 << 20)
    spans = [{"spanId": f"s{i}", "attributes": [{"key": "gen_ai.prompt", "value": {"stringValue": "hi " * 50}}]}
             for i in range(20_000)]
    path = tmp_path / "otel.json"
    path.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}, indent=2))
    fmt = FileFormat(str(path))
    with pytest.raises(AdvisorError, match=r"otel\.json: line 1 is no JSON record, and the JSON document from there is "
                                           r"over 1 MiB; write it as JSON Lines"):
        _read(path, fmt)
    assert fmt.lines < len(path.read_text().splitlines()) // 2  # stopped as it passed the limit


def test_a_small_document_is_still_read_whole(tmp_path: Path) -> None:
    page = {"data": [_generation(1), _generation(2)], "meta": {"page": 1}}
    path = tmp_path / "page.json"
    path.write_text(json.dumps(page, indent=1))
    reqs, skips = _read(path)
    assert [r.id for r in reqs] == ["g1", "g2"] and not skips
