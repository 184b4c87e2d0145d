"""The Python API (``advisor.api``) is the commands' pipeline: the same traffic gives the same
JSON through either, for every record kind and input format, from files or from records."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import advisor
from advisor.api import AnalyzeResult, Records, Skip, analyze, cost, prescribe, report, simulate
from advisor.errors import AdvisorError
from advisor.ingest.chat import Llama3Layout
from advisor.ingest.formats import NAMES, sniff
from advisor.ingest.pipeline import Renderer
from advisor.ingest.tokenizers import load_tokenizer
from advisor.ingest.traffic import iter_file
from tests.formats import writers as w

SYSTEM = "You are the support assistant of the shop. Policy: be exact and brief. " * 12
GREET = "You are the support assistant of {{ shop }}. " + "Policy: be exact and brief. " * 12 + "Question: {{ question }}"


def _jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _hash_rows() -> list[dict[str, Any]]:
    # Mooncake rows: each id one 512-token block (the last one partial), shared heads.
    rows = []
    for i in range(12):
        head = [1, 2, 3] if i % 3 else [7, 8]
        rows.append({"hash_ids": head + [100 + i], "input_length": 512 * len(head) + 40 + i,
                     "timestamp": 1000 + i, "output_length": 4})
    return rows


@pytest.fixture(scope="module")
def kinds(tmp_path_factory) -> dict[str, tuple[Path, dict[str, Any], list[str]]]:
    """One small file per record kind: (path, the API's options, the same as command-line options)."""
    tmp = tmp_path_factory.mktemp("kinds")
    (tmp / "greet.j2").write_text(GREET)
    messages = [{"id": f"m{i}", "tenant": "ab"[i % 2], "messages": [
        {"role": "system", "content": SYSTEM}, {"role": "user", "content": f"Question {i}: where is order {1000 + 7 * i}?"}]}
        for i in range(12)]
    prompts = [{"prompt": f"Today is 2025-12-{i + 1:02d}. " + SYSTEM + f"Question {i}."} for i in range(12)]
    ids = [{"input_ids": list(range(1, 60)) + [1000 + i, 2000 + i]} for i in range(12)]
    templated = [{"template": "greet", "variables": {"shop": "shop " + "AB"[i % 2], "question": f"order {i}?"}}
                 for i in range(12)]
    folder = ["--templates", str(tmp)]
    return {
        "messages": (_jsonl(tmp / "messages.jsonl", messages), {}, []),
        "prompt": (_jsonl(tmp / "prompt.jsonl", prompts), {}, []),
        "input_ids": (_jsonl(tmp / "ids.jsonl", ids), {}, []),
        "hash_ids": (_jsonl(tmp / "hash.jsonl", _hash_rows()), {}, []),
        "template": (_jsonl(tmp / "templated.jsonl", templated), {"templates": tmp}, folder),
    }


def command_json(cli, *args: Any) -> tuple[dict[str, Any], str]:
    res = cli(*args, "--format", "json")
    assert res.code in (0, 1), res.err
    return json.loads(res.out), res.out


@pytest.mark.parametrize("kind", ["messages", "prompt", "input_ids", "hash_ids", "template"])
def test_analyze_is_the_command_for_every_record_kind(cli, kinds, kind):
    path, options, args = kinds[kind]
    want, text = command_json(cli, "analyze", path, *args)
    got = advisor.analyze(path, **options)
    assert isinstance(got, AnalyzeResult)
    assert got.data == want and got.to_json() == text
    assert got.hit_rate == want["hit_rate"] and 0 < got.hit_rate < 1
    assert (got.requests, got.prompt_tokens, got.cached_tokens) == (12, want["prompt_tokens"], want["cached_tokens"])
    assert [f.to_dict() for f in got.findings] == want["findings"]
    assert got.skipped == [] and got.skipped_count == 0


@pytest.mark.parametrize("kind", ["messages", "prompt", "input_ids", "hash_ids", "template"])
def test_records_read_as_the_file_reads_its_lines(kinds, kind):
    path, options, _ = kinds[kind]
    from_file = analyze(path, **options)
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    lazily = (row for row in rows)  # read once, as it streams
    for given in (rows, lazily, Records(rows, "<mine>")):
        got = analyze(given, **options)
        source = "<mine>" if isinstance(given, Records) else "<records>"
        assert got.data["input"]["files"] == [source]
        assert _named(got.data, source) == _named(from_file.data, path)
        # A finding names the record that showed it first as the file names its line.
        assert [(f.path, f.line) for f in got.findings] == [(source, f.line) for f in from_file.findings]


def _named(data: dict[str, Any], source: str | Path) -> dict[str, Any]:
    """``data`` with the traffic's name (a file's path, ``<records>``) written SOURCE
    wherever it shows (input files, finding paths, ``file:line`` examples)."""
    text = json.dumps(data, ensure_ascii=False)
    return json.loads(text.replace(json.dumps(str(source))[1:-1], "SOURCE"))


@pytest.fixture(scope="module")
def formats(tmp_path_factory) -> dict[str, list[Path]]:
    """One set of calls in every input format (tests/formats/writers.py), and block traces."""
    tmp = tmp_path_factory.mktemp("formats")
    cs = w.calls(n=12)
    native = w.native(tmp / "native.jsonl", cs)
    tok = load_tokenizer("llama3")
    renderer = Renderer(tok, Llama3Layout())
    texts = [renderer.text_of(r) for r in iter_file(native, lambda s: pytest.fail(str(s)))]
    ids = [list(tok.encode(t)) for t in texts]
    bailian = [{"chat_id": i, "parent_chat_id": i - 2 if i >= 2 else -1, "timestamp": i * 0.5,
                "input_length": 16 * (2 + i) - 3, "output_length": 3, "type": "text", "turn": 1 + i // 2,
                "hash_ids": list(range(1, 3 + i))} for i in range(8)]
    servegen = [{"request_id": i, "type": "text", "input_length": 20 + i, "output_length": 5,
                 "hash_ids": [0, 1 + i % 2]} for i in range(8)]  # 16-token blocks
    agentic = [{"session_id": "ab"[i % 2], "input_length": 512 * (1 + i // 2), "output_length": 4,
                "hash_ids": list(range(10 * (i % 2), 10 * (i % 2) + 1 + i // 2)),
                **({"timestamp": 1000 + i} if i < 2 else {"delay": 100})} for i in range(8)]
    return {
        "advisor": [native],
        "openai-batch": [w.batch_input(tmp / "batch_in.jsonl", cs), w.batch_output(tmp / "batch_out.jsonl", cs)],
        "openai-batch-responses": [w.batch_responses(tmp / "responses_in.jsonl", cs)],
        "openai-log": [w.openai_log(tmp / "log.jsonl", cs)],
        "otel-lines": [w.otel_lines(tmp / "otel.jsonl", cs)],
        "otel-document": [w.otel_document(tmp / "otel.json", cs)],
        "litellm": [w.litellm_payload(tmp / "litellm.jsonl", cs)],
        "litellm-spend": [w.litellm_spend(tmp / "spend.jsonl", cs)],
        "langfuse": [w.langfuse_jsonl(tmp / "lf.jsonl", cs)],
        "sglang-log": [w.sglang(tmp / "sglang.log", cs, texts, [len(i) for i in ids])],
        "vllm-log": [w.vllm_new(tmp / "vllm.log", cs, texts)],
        "bailian": [_jsonl(tmp / "bailian.jsonl", bailian)],
        "servegen": [_jsonl(tmp / "servegen.jsonl", servegen)],
        "mooncake-agentic": [_jsonl(tmp / "agentic.jsonl", agentic)],
    }


def test_every_input_format_is_read_by_these_files(formats):
    seen = {sniff(p) for paths in formats.values() for p in paths}
    assert set(NAMES) <= seen


def test_analyze_is_the_command_for_every_input_format(cli, formats):
    for name, paths in formats.items():
        want, text = command_json(cli, "analyze", *paths)
        got = analyze(paths)
        assert got.data == want and got.to_json() == text, name
        assert got.hit_rate == want["hit_rate"] and got.requests > 0, name


def test_records_in_a_json_format_read_as_its_file(formats):
    # Records of another format go through its adapter, as the file's lines do.
    for name in ("openai-log", "litellm", "bailian"):
        [path] = formats[name]
        rows = [json.loads(line) for line in path.read_text().splitlines()]
        got, want = analyze(rows, diagnose=False), analyze(path, diagnose=False)
        assert _named(got.data, "<records>") == _named(want.data, path), name
        assert analyze(rows, input_format=name, diagnose=False).data == got.data, name


def test_a_bad_record_is_a_skip_with_the_lines_reason(kinds, tmp_path):
    path, _, _ = kinds["prompt"]
    rows: list[Any] = [json.loads(line) for line in path.read_text().splitlines()]
    rows[1:1] = [{"prompt": 5}, "not a record", {"messages": [{"role": "wizard", "content": "x"}]}]
    bad_file = tmp_path / "bad.jsonl"
    bad_file.write_text("".join(json.dumps(r) + "\n" for r in rows))
    seen: list[Skip] = []
    got = analyze(rows, on_skip=seen.append)
    from_file = analyze(bad_file)
    assert got.skipped == seen and got.skipped_count == 3 and got.requests == 12
    assert [(s.source, s.line) for s in got.skipped] == [("<records>", 2), ("<records>", 3), ("<records>", 4)]
    assert [s.reason for s in got.skipped] == [s.reason for s in from_file.skipped]
    assert got.data["skipped_lines"][0] == "<records>:2: 'prompt' must be a string"
    assert got.hit_rate == from_file.hit_rate and got.data["skipped"] == 3
    with pytest.raises(AdvisorError, match="no usable requests"):
        analyze([{"prompt": ""}, {"input_ids": []}])


def test_a_bad_option_is_the_commands_error(cli, kinds):
    path, _, _ = kinds["messages"]
    cases = [
        (lambda: analyze(path, engine="nope"), ("analyze", path, "--engine", "nope")),
        (lambda: analyze(path, input_format="nope"), ("analyze", path, "--input-format", "nope")),
        (lambda: prescribe(path, templates=path.parent / "none"), ("prescribe", path, "--templates", path.parent / "none")),
        (lambda: simulate(path, router="nope"), ("simulate", path, "--router", "nope")),
        (lambda: simulate(path, policy=["fcfs", "nope"]), ("simulate", path, "--policy", "fcfs,nope")),
        (lambda: cost("llama-3.1-8b", "h100", kv_dtype="int3"), ("cost", "--model", "llama-3.1-8b", "--gpu", "h100",
                                                                 "--kv-dtype", "int3")),
        (lambda: report(path, go_above=0.2, no_go_below=0.3), ("report", "--traffic", path, "--go-above", "0.2",
                                                               "--no-go-below", "0.3")),
        (lambda: analyze(path.parent / "missing.jsonl"), ("analyze", path.parent / "missing.jsonl")),
    ]
    for call, args in cases:
        with pytest.raises(AdvisorError) as caught:
            call()
        res = cli(*args)
        assert res.code == 2 and res.err.splitlines()[-1] == f"advisor: error: {caught.value}", args
    with pytest.raises(AdvisorError, match="no traffic files given"):
        analyze([])


@pytest.mark.parametrize("name", ["analyze", "prescribe", "simulate", "cost", "report"])
def test_the_api_refuses_the_bounds_the_command_line_refuses(cli, kinds, name):
    """Every bounded option, out of range on both sides, through the API and the command."""
    from advisor.api.bounds import BOUNDS

    path, _, _ = kinds["messages"]
    params = {"analyze": ("page_size", "block_size", "top", "workers", "diagnose_limit"),
              "prescribe": ("page_size", "capacity_tokens", "block_size"),
              "simulate": ("capacity_tokens", "tp", "page_size", "block_size", "replicas", "output_len",
                           "max_running", "max_prefill_tokens"),
              "cost": ("tp",), "report": ("tp", "page_size")}[name]
    call = {"analyze": analyze, "prescribe": prescribe, "simulate": simulate, "report": report,
            "cost": lambda _p, **kw: cost("llama-3.1-8b", "h100", **kw)}[name]
    head = ("cost", "--model", "llama-3.1-8b", "--gpu", "h100") if name == "cost" else (
        ("report", "--traffic", path) if name == "report" else (name, path))
    for param in params:
        option = "--" + param.replace("_", "-")
        lo, hi = BOUNDS[option]
        for value in (lo - 1, hi + 1):
            with pytest.raises(AdvisorError) as caught:
                call(path, **{param: value})
            assert option in str(caught.value)
            res = cli(*head, option, str(value))
            assert res.code == 2 and option in res.err, (param, value, res.err)


def test_views_are_added_only_when_asked(kinds):
    path, _, _ = kinds["messages"]
    plain, drawn = analyze(path), analyze(path, views=True)
    assert "views" not in plain.data and {k: v for k, v in drawn.data.items() if k != "views"} == plain.data
    tree = drawn.data["views"]["tree"]
    assert tree["nodes"] and prescribe(path, views=True).data["views"]["tree"] == tree


def test_prescribe_is_the_command(cli, kinds):
    path, _, _ = kinds["prompt"]
    want, text = command_json(cli, "prescribe", path)
    got = prescribe(path)
    assert got.data == want and got.to_json() == text
    assert (got.hit_rate, got.hit_rate_after) == (want["hit_rate_before"], want["hit_rate_after"])
    assert got.hit_rate_after > got.hit_rate  # the dated line moved out of the shared prefix
    assert [f.to_dict() for f in got.findings] == want["findings"] and got.actions == want["actions"]


def test_simulate_is_the_command(cli, kinds):
    path, _, _ = kinds["hash_ids"]
    # 4,096: the largest request's 4 blocks of 512 and its decode reserve fit (a pool that
    # cannot hold it is refused).
    args = ("--capacity-tokens", "4096", "--policy", "fcfs,lpm", "--engine", "sglang")
    want, text = command_json(cli, "simulate", path, *args)
    got = simulate(path, capacity_tokens=4096, policy=["fcfs", "lpm"], engine="sglang")
    assert got.data == want and got.to_json() == text
    assert got.hit_rate == want["runs"][0]["hit_rate"] and got.requests == 12
    assert set(got.hit_rates) == {("branch-lru", "fcfs"), ("branch-lru", "lpm")}
    assert got.cached_tokens <= analyze(path).cached_tokens  # a finite pool never hits more than unlimited LCP


def test_cost_is_the_command(cli):
    want, text = command_json(cli, "cost", "--model", "llama-3.1-8b", "--gpu", "h100", "--prefix-tokens", "2000")
    got = cost("llama-3.1-8b", "h100", prefix_tokens=2000)
    assert got.data == want and got.to_json() == text
    assert got.prefix_bytes == 2000 * got.kv_bytes_per_token and got.kv_pool_tokens > 0 and got.weights_fit


def test_report_is_the_command(cli, kinds):
    path, _, _ = kinds["messages"]
    want, text = command_json(cli, "report", "--traffic", path)
    got = report(path)
    assert got.data == want and got.to_json() == text
    assert got.decision == want["decision"] in ("go", "no-go", "trial") and got.reasons == want["reasons"]
    assert got.hit_rate == want["hit_rate"] and got.hit_rate_after == want["hit_rate_after_prescription"]
    assert got.requests == 12
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert report(rows).decision == got.decision  # records reach the advisory too


def test_results_show_as_escaped_html(kinds):
    path, _, _ = kinds["messages"]
    for result in (analyze([json.loads(line) for line in path.read_text().splitlines()]), prescribe(path),
                   cost("llama-3.1-8b", "h100")):
        html = result._repr_html_()
        assert html.startswith("<table") and html.rstrip().endswith("</table>")
        assert "<script" not in html and "http" not in html
    html = analyze([{"prompt": "hello"}, {"prompt": "hello there"}])._repr_html_()
    assert "advisor analyze: &lt;records&gt;" in html and "<records>" not in html


def test_progress_sees_the_stream(kinds):
    path, _, _ = kinds["input_ids"]
    labels: list[str] = []

    def progress(items, label):
        labels.append(label)
        return items

    analyze(path, progress=progress)
    prescribe(path, progress=progress)
    simulate(path, progress=progress)
    assert labels == ["analyze", "prescribe", "simulate"]


def test_import_advisor_stays_light():
    code = ("import sys, advisor\n"
            "print(sorted(m for m in sys.modules if m.startswith('advisor.')))\n"
            "from advisor import analyze, AnalyzeResult\n"
            "import advisor.api as api\n"
            "print(analyze is api.analyze, AnalyzeResult is api.AnalyzeResult)\n"
            "import advisor.simulate, advisor.cost\n"
            "print(type(advisor.simulate).__name__, type(advisor.cost).__name__)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.splitlines()
    assert out[0] == "[]"  # nothing of the API (nor of the stages) until it is used
    assert out[1] == "True True"
    # `advisor.simulate`, `.cost`, ... stay the stage packages; their functions are advisor.api's.
    assert out[2] == "module module"


def test_wrong_kinds_of_argument_are_refused_by_name(kinds):
    """What a script can pass and a command line cannot: None, strings for numbers, NaN,
    out-of-range shares, a non-iterable for traffic or templates."""
    path, _, _ = kinds["messages"]
    calls = [
        lambda: analyze(None), lambda: analyze(5), lambda: analyze(path, page_size="2"),
        lambda: analyze(path, page_size=2.5), lambda: analyze(path, page_size=None), lambda: analyze(path, top=None),
        lambda: analyze(path, tokenizer=None), lambda: analyze(path, engine=None), lambda: analyze(path, timezone=None),
        lambda: analyze(path, diagnose="yes"), lambda: analyze(Records(None)),  # type: ignore[arg-type]
        lambda: prescribe(None), lambda: prescribe(path, capacity_tokens="5"),
        lambda: simulate(path, policy=5), lambda: simulate(path, warmup="0.1"),
        lambda: simulate(path, warmup=float("nan")), lambda: simulate(path, warmup=-0.5),
        lambda: cost("llama-3.1-8b", "h100", tp="2"), lambda: cost("llama-3.1-8b", "h100", kv_dtype=None),
        lambda: cost("llama-3.1-8b", "h100", prefix_tokens="5"),
        lambda: report(path, go_above="0.5"), lambda: report(path, go_above=5.0, no_go_below=2.0),
        lambda: report(path, go_above=float("nan")), lambda: report(templates=5),
        lambda: report(templates=[str(path)]),  # a traffic file where templates go, as the command says
    ]
    for n, call in enumerate(calls):
        with pytest.raises(AdvisorError, match=r"."):  # a one-line message, not a TypeError from inside
            call()
