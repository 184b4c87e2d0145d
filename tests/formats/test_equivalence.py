"""Acceptance: one set of requests written in every input format gives the same
requests, prompt tokens, cached tokens (analyze's and the observed ones) and hit rate
as the plain messages file."""

from __future__ import annotations

import json

import pytest

from advisor.ingest.chat import Llama3Layout
from advisor.ingest.pipeline import Renderer
from advisor.ingest.tokenizers import load_tokenizer
from advisor.ingest.traffic import iter_file
from tests.formats import writers as w

KEYS = ("requests", "prompt_tokens", "cached_tokens", "hit_rate", "skipped")


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("formats")
    cs = w.calls()
    native = w.native(tmp / "native.jsonl", cs)
    tok = load_tokenizer("llama3")
    renderer = Renderer(tok, Llama3Layout())
    reqs = list(iter_file(native, lambda s: pytest.fail(str(s))))
    texts = [renderer.text_of(r) for r in reqs]
    ids = [list(tok.encode(t)) for t in texts]
    files = {
        "openai-batch": [w.batch_input(tmp / "batch_in.jsonl", cs), w.batch_output(tmp / "batch_out.jsonl", cs)],
        "openai-batch-responses": [w.batch_output(tmp / "b2_out.jsonl", cs), w.batch_responses(tmp / "b2_in.jsonl", cs)],
        "openai-log": [w.openai_log(tmp / "log.jsonl", cs)],
        "otel-lines": [w.otel_lines(tmp / "otel.jsonl", cs)],
        "otel-document": [w.otel_document(tmp / "otel.json", cs)],
        "litellm": [w.litellm_payload(tmp / "litellm.jsonl", cs)],
        "litellm-spend": [w.litellm_spend(tmp / "spend.jsonl", cs)],
        "langfuse-jsonl": [w.langfuse_jsonl(tmp / "lf.jsonl", cs)],
        "langfuse-json": [w.langfuse_json(tmp / "lf.json", cs)],
        "sglang-log": [w.sglang(tmp / "sglang.log", cs, texts, [len(i) for i in ids])],
    }
    unobserved = {
        "vllm-old": [w.vllm_old(tmp / "vllm_old.log", cs, texts, ids)],
        "vllm-new": [w.vllm_new(tmp / "vllm_new.log", cs, texts)],
    }
    return native, files, unobserved


def analyze(cli, paths):
    res = cli("analyze", *paths, "--no-diagnose", "--format", "json")
    assert res.code == 0, res.err
    return json.loads(res.out)


def test_every_format_reads_the_same_requests(cli, setup):
    native, files, unobserved = setup
    want = analyze(cli, [native])
    assert want["requests"] == 24 and 0 < want["hit_rate"] < 1
    assert want["observed"]["requests"] == 24
    for name, paths in {**files, **unobserved}.items():
        got = analyze(cli, paths)
        assert {k: got[k] for k in KEYS} == {k: want[k] for k in KEYS}, name
        if name in files:
            assert got["observed"]["observed_cached_tokens"] == want["observed"]["observed_cached_tokens"], name
            assert got["observed"]["requests"] == 24, name
        else:
            assert "observed" not in got, name


def test_simulate_reads_every_format_the_same(cli, setup):
    native, files, _ = setup
    # SGLang's hit rules and request preprocessing: the SGLang log carries the prompts as
    # SGLang rendered them, and `--engine` also picks whose preprocessing renders the
    # chat records of the other formats (vLLM serializes tool definitions differently).
    # Replay: the log's timestamps have whole seconds only, so a discrete-event run over
    # them is a different run (same requests, other overlaps).
    args = ("--engine", "sglang", "--mode", "replay", "--capacity-tokens", "4000", "--format", "json")
    want = json.loads(cli("simulate", native, *args).out)["runs"][0]
    for name in ("otel-lines", "langfuse-json", "sglang-log", "openai-batch"):
        res = cli("simulate", *files[name], *args)
        assert res.code == 0, (name, res.err)
        got = json.loads(res.out)["runs"][0]
        assert (got["cached_tokens"], got["hit_rate"]) == (want["cached_tokens"], want["hit_rate"]), name


def test_standard_input(cli, setup, monkeypatch):
    import io
    import sys

    native, files, _ = setup
    want = analyze(cli, [native])
    data = files["otel-lines"][0].read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(io.BytesIO(data))))
    got = analyze(cli, ["-"])
    assert {k: got[k] for k in KEYS} == {k: want[k] for k in KEYS}


def test_same_requests_one_by_one(setup):
    """Not only the totals: the same token sequences, in the same order, with the same
    observed count and output length, request by request."""
    from advisor.ingest.pipeline import sequences

    native, files, unobserved = setup
    renderer = Renderer(load_tokenizer("llama3"), Llama3Layout())

    def load(paths):
        out = []
        for s in sequences(paths, renderer, lambda skip: pytest.fail(str(skip))):
            out.append((s.ids.tobytes(), s.request.cached_tokens, s.request.output_length))
        return out

    want = load([native])
    for name, paths in {**files, **unobserved}.items():
        got = load(paths)
        if name in unobserved:  # engine request logs carry neither count
            want_here = [(ids, None, None) for ids, _, _ in want]
        else:
            want_here = want
        assert got == want_here, name
