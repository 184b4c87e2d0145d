"""Issue 35, item 2: output lengths from the logs, --output-len and --rate on report and plan,
and every assumption of the simulation stated in the advisory (JSON and markdown).

The traffic is small (24 chat requests sharing one system prompt) so each advisory takes
about a second; the numbers asserted are the simulator's sums (output tokens = requests ×
tokens each) and the per-source counts, which follow from the records alone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from advisor.advise.engines import output_length
from advisor.api import Records, report
from advisor.errors import AdvisorError
from advisor.ingest.formats import iter_requests
from advisor.ingest.traffic import Request, Skip
from advisor.report.advisory import to_markdown
from tests.formats import writers as w

N = 24
SYSTEM = "You are the support assistant of the Acme shop. Policy: be exact and brief. " * 20


def _chat(i: int, **extra: Any) -> dict[str, Any]:
    return {"model": "llama-3.1-8b", "messages": [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": f"Question {i}: where is order {1000 + 7 * i}?"}], **extra}


def _report(rows: list[dict[str, Any]], **options: Any) -> dict[str, Any]:
    skipped: list[Skip] = []
    data = report(Records(rows), on_skip=skipped.append, **options).data
    assert not skipped
    return data


def _assumed(data: dict[str, Any]) -> dict[str, Any]:
    return data["simulation"]["assumptions"]


def _output_tokens(data: dict[str, Any]) -> int:
    """Output tokens the no-caching engine generated: the sum of the jobs' output lengths."""
    return int(data["simulation"]["engines"]["setups"]["none"]["output_tokens"])


def _engines_section(data: dict[str, Any]) -> str:
    text = to_markdown(data, None)
    start = text.index("SGLang against vLLM against no caching")
    return text[start:text.index("\n## ", start)]


@pytest.fixture(scope="module")
def max_tokens_report() -> dict[str, Any]:
    """Bodies that ask for at most 512 tokens, no usage, no timestamps (the issue's case)."""
    return _report([_chat(i, max_tokens=512) for i in range(N)])


# --- the advisory ---------------------------------------------------------------------------


def test_max_tokens_bodies_give_a_decode_share_and_say_where_it_comes_from(max_tokens_report):
    data = max_tokens_report
    a = _assumed(data)
    assert a["output_length_sources"] == {"logged": 0, "output_len": 0, "max_tokens": N, "default": 0}
    assert (a["mean_output_tokens"], a["output_len"], a["default_output_len"]) == (512.0, None, 1)
    assert _output_tokens(data) == N * 512
    # Before: "decode share 0%" on these bodies, throughput prefill-only.
    assert data["simulation"]["engines"]["decode_share_no_cache"] > 0.5
    section = _engines_section(data)
    assert f"{N} from the request's max_tokens, as if each answer ran to its maximum" in section
    assert "the decode share above is an upper bound and the speedups are lower bounds" in section


def test_without_timestamps_the_report_says_all_at_once_in_a_sentence(max_tokens_report):
    data = max_tokens_report
    a = _assumed(data)
    assert (a["arrivals"], a["rate"], a["timestamped_requests"]) == ("at_once", None, 0)
    assert data["simulation"]["mode"] == "replay"
    section = _engines_section(data)
    assert "with its all at once" not in section  # the broken grammar of before
    assert "Hit rate, prefill tokens and TTFT: every request arriving at once, at time 0." in section
    assert "Arrivals: every request at time 0, as the logs have no timestamps" in section
    assert "Pass --rate R for Poisson arrivals at R requests/s." in section


def test_output_len_changes_the_decode_share(max_tokens_report):
    data = _report([_chat(i, max_tokens=512) for i in range(N)], output_len=64)
    a = _assumed(data)
    # Below each request's maximum, the option is the typical length the user states.
    assert a["output_length_sources"] == {"logged": 0, "output_len": N, "max_tokens": 0, "default": 0}
    assert (a["mean_output_tokens"], a["output_len"]) == (64.0, 64)
    assert _output_tokens(data) == N * 64
    share = data["simulation"]["engines"]["decode_share_no_cache"]
    assert 0 < share < max_tokens_report["simulation"]["engines"]["decode_share_no_cache"]
    assert f"{N} from --output-len 64" in _engines_section(data)


def test_usage_beats_max_tokens_and_output_len():
    # A measured count (the record's output_length, as usage completion tokens give it) wins
    # over the requested maximum and over --output-len.
    data = _report([_chat(i, max_tokens=512, output_length=7) for i in range(N)], output_len=64)
    a = _assumed(data)
    assert a["output_length_sources"] == {"logged": N, "output_len": 0, "max_tokens": 0, "default": 0}
    assert a["mean_output_tokens"] == 7.0 and _output_tokens(data) == N * 7
    section = _engines_section(data)
    assert f"{N} requests as logged (output_length, usage completion tokens" in section
    assert "--output-len 64 applied to none: each request had a logged count or a lower max_tokens." in section


def test_each_request_counted_under_the_source_it_used():
    # Logged 5; max 512 (the option below it wins); max 16 (below the option: the maximum
    # caps it); nothing (the option).
    rows = []
    for i in range(N):
        extra = [{"output_length": 5, "max_tokens": 512}, {"max_completion_tokens": 512},
                 {"max_tokens": 16}, {}][i % 4]
        rows.append(_chat(i, **extra))
    a = _assumed(_report(rows, output_len=32))
    assert a["output_length_sources"] == {"logged": 6, "output_len": 12, "max_tokens": 6, "default": 0}
    assert a["mean_output_tokens"] == round((6 * 5 + 12 * 32 + 6 * 16) / N, 3)


def test_no_output_information_states_the_default():
    data = _report([_chat(i) for i in range(N)])
    a = _assumed(data)
    assert a["output_length_sources"] == {"logged": 0, "output_len": 0, "max_tokens": 0, "default": N}
    assert a["mean_output_tokens"] == 1.0 and _output_tokens(data) == N
    assert data["simulation"]["engines"]["decode_share_no_cache"] == 0.0
    section = _engines_section(data)
    assert "No output lengths in the logs: 1 output token assumed per request" in section
    assert "pass --output-len N" in section


def test_rate_replaces_the_logged_timestamps():
    rows = [_chat(i, timestamp=1_700_000_000 + 600 * i, output_length=20) for i in range(N)]
    logged = _report(rows)
    assert (_assumed(logged)["arrivals"], logged["simulation"]["mode"]) == ("timestamps", "serve")
    assert "the requests at their logged arrival times" in _engines_section(logged)
    paced = _report(rows, rate=500.0)
    a = _assumed(paced)
    assert (a["arrivals"], a["rate"], a["timestamped_requests"]) == ("rate", 500.0, N)
    assert paced["simulation"]["mode"] == "serve"
    assert paced["simulation"]["engines"]["arrivals"] == "Poisson arrivals at 500 requests/s (--rate)"
    section = _engines_section(paced)
    assert "Arrivals: Poisson at 500 requests/s (--rate, seeded), in place of the logged timestamps." in section
    # Ten minutes apart, nothing queues; 2 ms apart, a request waits for the prefills before it.
    ttft = [d["simulation"]["engines"]["setups"]["none"]["ttft_p90_s"] for d in (logged, paced)]
    assert ttft[0] < ttft[1]


def test_rate_gives_arrivals_to_traffic_without_timestamps():
    data = _report([_chat(i) for i in range(N)], rate=5.0)
    a = _assumed(data)
    assert (a["arrivals"], a["timestamped_requests"]) == ("rate", 0)
    assert data["simulation"]["mode"] == "serve"
    assert "Arrivals: Poisson at 5 requests/s (--rate, seeded), the logs have no timestamps." in \
        _engines_section(data)


@pytest.mark.parametrize("options, message", [
    ({"rate": 0.0}, "--rate must be positive"),
    ({"rate": -1.0}, "--rate must be positive"),
    ({"output_len": 0}, "--output-len must be at least 1"),
])
def test_api_refuses_bad_values(options, message):
    with pytest.raises(AdvisorError, match=message):
        report(Records([_chat(0)]), **options)


def test_command_line_takes_both_options(cli, tmp_path: Path):
    traffic = tmp_path / "bodies.jsonl"
    traffic.write_text("".join(json.dumps(_chat(i, max_tokens=300)) + "\n" for i in range(N)))
    res = cli("report", "--traffic", traffic, "--output-len", "40", "--rate", "4", "--format", "json", "--output", "-")
    assert res.code == 0, res.err
    a = json.loads(res.out)["simulation"]["assumptions"]
    assert (a["output_len"], a["rate"], a["arrivals"], a["mean_output_tokens"]) == (40, 4.0, "rate", 40.0)
    for bad, message in (("nan", "--rate must be a finite number"), ("0", "--rate must be positive")):
        res = cli("report", "--traffic", traffic, "--rate", bad, "--format", "json", "--output", "-")
        assert res.code == 2 and message in res.err and "Traceback" not in res.err


# --- output lengths as the formats log them -------------------------------------------------


def _read(paths: list[Path]) -> list[Request]:
    skipped: list[Skip] = []
    out = list(iter_requests(paths, skipped.append))
    assert not skipped, skipped
    return out


def test_advisor_records_read_the_request_maximum(tmp_path: Path):
    path = tmp_path / "t.jsonl"
    rows = [{"prompt": "a b", "max_tokens": 300}, {"prompt": "a b", "max_completion_tokens": 200, "max_tokens": 300},
            {"prompt": "a b", "output_length": 9, "max_tokens": 300}, {"prompt": "a b"},
            {"prompt": "a b", "max_tokens": "many"}, {"prompt": "a b", "max_tokens": -3}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    skipped: list[Skip] = []
    got = [(r.output_length, r.max_output_tokens) for r in iter_requests([path], skipped.append)]
    # max_completion_tokens first, as vLLM's and SGLang's OpenAI servers read it; the logged
    # output_length kept apart from the maximum.
    assert got == [(None, 300), (None, 200), (9, 300), (None, None)]
    assert [(s.line, s.reason) for s in skipped] == [(5, "'max_tokens' must be a non-negative integer"),
                                                     (6, "'max_tokens' must be a non-negative integer")]


def test_openai_batch_keeps_the_body_maximum_and_the_output_files_usage(tmp_path: Path):
    calls = w.calls(n=6)
    alone = _read([w.batch_input(tmp_path / "in.jsonl", calls)])
    assert [(r.output_length, r.max_output_tokens) for r in alone] == [(None, 100)] * 6
    joined = _read([w.batch_input(tmp_path / "in.jsonl", calls), w.batch_output(tmp_path / "out.jsonl", calls)])
    assert [(r.output_length, r.max_output_tokens) for r in joined] == [(c.output_length, 100) for c in calls]


def test_engine_logs_give_the_maximum_and_sglang_the_measured_count(tmp_path: Path):
    calls = w.calls(n=4)
    texts = [f"text {i}" for i in range(4)]
    sglang = _read([w.sglang(tmp_path / "s.log", calls, texts, [5] * 4)])
    assert [(r.output_length, r.max_output_tokens) for r in sglang] == [(c.output_length, 100) for c in calls]
    old = _read([w.vllm_old(tmp_path / "v.log", calls, texts, [[1, 2, 3]] * 4)])
    assert [(r.output_length, r.max_output_tokens) for r in old] == [(None, 100)] * 4


def test_logging_tools_model_parameters(tmp_path: Path):
    calls = w.calls(n=3)
    generations = []
    # Langfuse's OpenAI integration writes inf when the call set no maximum; text counts are read.
    for c, params in zip(calls, ({"max_tokens": "inf"}, {"max_tokens": "256"}, {"maxTokens": 128})):
        generations.append({**w._generation(c), "modelParameters": params})
    path = tmp_path / "lf.jsonl"
    path.write_text("".join(json.dumps(g) + "\n" for g in generations))
    assert [r.max_output_tokens for r in _read([path])] == [None, 256, 128]
    rows = [json.loads(line) for line in w.litellm_payload(tmp_path / "l.jsonl", calls).read_text().splitlines()]
    for row in rows:
        row["model_parameters"] = {"max_tokens": 64, "temperature": 0}
    path = tmp_path / "l2.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert [(r.output_length, r.max_output_tokens) for r in _read([path])] == [(c.output_length, 64) for c in calls]


def test_otel_request_max_tokens(tmp_path: Path):
    calls = w.calls(n=3)
    doc = json.loads(w.otel_document(tmp_path / "o.json", calls).read_text())
    for span in doc["resourceSpans"][0]["scopeSpans"][0]["spans"]:
        span["attributes"].append({"key": "gen_ai.request.max_tokens", "value": {"intValue": "200"}})
    path = tmp_path / "o2.json"
    path.write_text(json.dumps(doc))
    assert [(r.output_length, r.max_output_tokens) for r in _read([path])] == [(c.output_length, 200) for c in calls]


# --- the rule, and plan ------------------------------------------------------------------------


@pytest.mark.parametrize("logged, bound, option, want", [
    (7, 512, 64, ("logged", 7)),
    (None, 512, 64, ("output_len", 64)),
    (None, 16, 64, ("max_tokens", 16)),
    (None, 512, None, ("max_tokens", 512)),
    (None, None, 64, ("output_len", 64)),
    (None, None, None, ("default", 1)),
])
def test_output_length_rule(logged, bound, option, want):
    req = Request("t", 1, "prompt", prompt="x", output_length=logged, max_output_tokens=bound)
    assert output_length(req, option) == want


def test_plan_options_stand_in_for_the_spec_fields():
    from advisor.spec.load import load_example
    from advisor.spec.plan import plan, with_serving

    spec = load_example("rag", requests=40)
    assert with_serving(spec) is spec
    served = with_serving(spec, output_len=48, rate=3.0)
    assert (served.output_tokens.fixed, served.rate, served.timestamps) == (48, 3.0, True)
    with pytest.raises(AdvisorError, match=r"--output-len 1,000,000: a request of rag can then hold"):
        with_serving(spec, output_len=1_000_000)
    with pytest.raises(AdvisorError, match="--rate must be a number of requests/s of at least"):
        with_serving(spec, rate=0.0)
    data = plan(spec, output_len=48, rate=3.0)
    a = _assumed(data)
    assert (a["mean_output_tokens"], a["arrivals"]) == (48.0, "timestamps")
    assert a["planned"] == {"output_tokens": 48, "output_tokens_from": "--output-len", "rate": 3.0,
                            "rate_from": "--rate", "timestamps": True}
    assert data["spec"]["output_tokens"] == 48 and data["spec"]["arrival"]["rate"] == 3.0
    section = _engines_section(data)
    assert "Output tokens: 48 a request, from --output-len" in section
    assert "Arrivals: Poisson at 3 requests/s, the times generated from --rate." in section
