"""`analyze`: cached tokens against the brute-force oracle, public-trace figures, output shape."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from advisor.index.analyze import Analyzer
from advisor.ingest.chat import Llama3Layout
from advisor.ingest.chat_template import load_chat_template
from advisor.ingest.source import SkipLog, open_traffic
from tests.conftest import DEMO_TRAFFIC, trace
from tests.oracle import cached_tokens


def run_pipeline(paths: list[Path], page: int, **kw):
    skips = SkipLog(quiet=True)
    seqs = list(open_traffic(paths, kw.get("tokenizer", "llama3"), kw.get("chat_template"),
                             kw.get("templates"), 512, skips))
    analyzer = Analyzer(page)
    per_request = [analyzer.add(s) for s in seqs]
    return seqs, per_request, analyzer.result, skips


traffic = st.lists(
    st.tuples(st.integers(0, 3), st.lists(st.integers(0, 5), max_size=40)),
    min_size=1, max_size=30,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(traffic, st.sampled_from([1, 16]))
def test_cached_tokens_equal_oracle_on_generated_traffic(tmp_path_factory, spec, page) -> None:
    # Four long shared prefixes, random tails: the shape of RAG and agent traffic.
    prefixes = [[1000 + 100 * p + i for i in range(20 * p)] for p in range(4)]
    requests = [prefixes[p] + tail for p, tail in spec]
    requests = [r for r in requests if r] or [[1]]
    path = tmp_path_factory.mktemp("t") / "ids.jsonl"
    path.write_text("".join(json.dumps({"input_ids": r}) + "\n" for r in requests))
    _, per_request, result, _ = run_pipeline([path], page)
    expected = cached_tokens(requests, page)
    assert per_request == expected
    assert result.cached_tokens == sum(expected)
    assert result.prompt_tokens == sum(map(len, requests))


DEMO_FILES = sorted(DEMO_TRAFFIC.glob("*.jsonl"))


@pytest.mark.parametrize("page", [1, 16])
def test_cached_tokens_equal_oracle_on_demo_traffic(page: int) -> None:
    seqs, per_request, result, skips = run_pipeline(DEMO_FILES, page)
    assert skips.count == 0
    expected = cached_tokens([s.ids.tolist() for s in seqs], page)
    assert per_request == expected
    assert result.cached_tokens == sum(expected)


@pytest.mark.parametrize("name,hit_rate", [
    ("conversation_trace.jsonl", 0.3736),
    ("synthetic_trace.jsonl", 0.6512),
])
def test_mooncake_unlimited_cold_hit_rate(cli, name: str, hit_rate: float) -> None:
    res = cli("analyze", trace(name), "--format", "json")
    assert res.code == 0, res.err
    data = json.loads(res.out)
    assert round(data["hit_rate"], 4) == hit_rate
    # Block-weighted view of the same run: 1 - unique/total blocks (REFERENCE.md §10.1).
    assert data["requests"] == {"conversation_trace.jsonl": 12031, "synthetic_trace.jsonl": 3993}[name]


def test_mooncake_hit_tokens_independent_count() -> None:
    # Independent computation: a set of seen chained block ids; leading run of hits.
    path = trace("synthetic_trace.jsonl")
    seen: set[int] = set()
    cached = total = 0
    for line in path.read_text().splitlines():
        rec = json.loads(line)
        ids, length = rec["hash_ids"], rec["input_length"]
        k = 0
        while k < len(ids) and ids[k] in seen:
            k += 1
        cached += min(k * 512, length)
        total += length
        seen.update(ids)
    _, _, result, _ = run_pipeline([path], 1)
    assert (result.cached_tokens, result.prompt_tokens) == (cached, total)


def test_json_shape_and_tenants(tmp_path: Path, cli) -> None:
    system = "You are a careful assistant. " * 40
    lines = []
    for i in range(6):
        lines.append({"tenant": "a" if i % 3 else "b", "messages": [
            {"role": "system", "content": system}, {"role": "user", "content": f"Question number {i}?"}]})
    path = tmp_path / "t.jsonl"
    path.write_text("".join(json.dumps(l) + "\n" for l in lines))
    res = cli("analyze", path, "--format", "json", "--page-size", "16")
    assert res.code == 0
    data = json.loads(res.out)
    for key in ("tool", "input", "requests", "skipped", "prompt_tokens", "cached_tokens", "hit_rate",
                "tree_tokens", "branches", "findings"):
        assert key in data
    assert data["input"] == {"files": [str(path)], "tokenizer": "llama3", "page_size": 16}
    assert data["requests"] == 6 and data["skipped"] == 0
    assert data["cached_tokens"] % 16 == 0 and data["cached_tokens"] > 0
    assert set(data["tenants"]) == {"a", "b"}
    assert data["tenants"]["a"]["requests"] == 4
    top = data["branches"][0]
    # Llama 3.1's system turn opens with its knowledge-date header, then the system prompt.
    assert top["requests"] == 6 and top["preview"].startswith("Cutting Knowledge Date: December 2023 Today Date: 26 Jul 2024 You are a")
    assert data["hit_distribution"]["p10"] == 0.0  # the first request can hit nothing
    # Same input, byte-identical output.
    assert cli("analyze", path, "--format", "json", "--page-size", "16").out == res.out


def test_text_and_markdown_formats(tmp_path: Path, cli) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text('{"prompt": "hello there"}\n{"prompt": "hello again"}\n')
    text = cli("analyze", path)
    assert text.code == 0 and "hit rate" in text.out
    md = cli("analyze", path, "--format", "markdown")
    assert md.out.startswith("# Prefix-cache analysis") and "| hit rate |" in md.out
    bad = cli("analyze", path, "--format", "yaml")
    assert bad.code == 2 and "unknown --format" in bad.err
    out = tmp_path / "out" / "report.json"
    out.parent.mkdir()  # -o never makes a folder (tests/test_cli_small.py)
    res = cli("analyze", path, "--format", "json", "--output", out)
    assert res.code == 0 and res.out == "" and json.loads(out.read_text())["requests"] == 2


def test_hf_chat_template_matches_builtin_layout(tmp_path: Path) -> None:
    # The built-in layout is Llama 3.1 Instruct's: the test template with that template's
    # structure renders the same text, from a bare .jinja (BOS from the tokenizer) and from
    # a tokenizer_config.json (BOS from the config).
    llama31 = (Path(__file__).parent / "chat_templates" / "llama31.jinja").read_text()
    messages = [{"role": "system", "content": "Be brief. "}, {"role": "user", "content": "Hi\n"},
                {"role": "assistant", "content": "Hello."}, {"role": "user", "content": "Bye"}]
    jinja = tmp_path / "llama3.jinja"
    jinja.write_text(llama31)
    config = tmp_path / "tokenizer_config.json"
    config.write_text(json.dumps({"chat_template": llama31, "bos_token": "<|begin_of_text|>"}))
    builtin = Llama3Layout().render(messages, None)
    assert builtin.startswith("<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\n"
                              "Cutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\nBe brief.<|eot_id|>")
    assert builtin.endswith("<|start_header_id|>assistant<|end_header_id|>\n\n")
    assert load_chat_template(jinja, "<|begin_of_text|>").render(messages, None) == builtin
    assert load_chat_template(config).render(messages, None) == builtin


def test_chat_template_sees_request_clock_and_is_sandboxed(tmp_path: Path) -> None:
    tpl = tmp_path / "t.jinja"
    tpl.write_text("{{ strftime_now('%d %b %Y') }}|{{ messages[0]['content'] }}")
    assert load_chat_template(tpl).render([{"role": "user", "content": "x"}], None, 1_764_403_200) == "29 Nov 2025|x"
    evil = tmp_path / "evil.jinja"
    evil.write_text("{{ ''.__class__.__mro__[1].__subclasses__() }}")
    from advisor.errors import AdvisorError
    with pytest.raises(AdvisorError, match="sandbox|unsafe|template"):
        load_chat_template(evil).render([{"role": "user", "content": "x"}], None)
    loop = tmp_path / "loop.jinja"
    loop.write_text("{% for i in range(100000) %}{% for j in range(100000) %}{{ j }}{% endfor %}{% endfor %}")
    with pytest.raises(AdvisorError):
        load_chat_template(loop).render([{"role": "user", "content": "x"}], None)


def test_chat_template_option_on_cli(tmp_path: Path, cli) -> None:
    jinja = tmp_path / "llama3.jinja"
    jinja.write_text((Path(__file__).parent / "chat_templates" / "llama31.jinja").read_text())
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps({"messages": [{"role": "user", "content": "Hi"}]}) + "\n")
    a = json.loads(cli("analyze", path, "--format", "json").out)
    b = json.loads(cli("analyze", path, "--format", "json", "--chat-template", jinja).out)
    # The .jinja file takes BOS from the tokenizer, so it renders exactly the built-in layout:
    # 11 tokens of turns and headers, and 25 of Llama 3.1's system turn with its date lines.
    assert a["prompt_tokens"] == b["prompt_tokens"] == 36
    bare = tmp_path / "bare.jinja"
    bare.write_text("{% for m in messages %}{{ m['content'] }}{% endfor %}")
    c = json.loads(cli("analyze", path, "--format", "json", "--chat-template", bare).out)
    assert c["prompt_tokens"] == 1  # "Hi": no header, no BOS unless the template writes it


def test_percentiles_match_nearest_rank_on_sorted_ratios() -> None:
    import math
    import random

    from advisor.index.analyze import HIST_BINS

    rng = random.Random(5)
    analyzer = Analyzer(1)
    pairs = [(rng.randint(0, 500), 500) for _ in range(997)] + [(0, 0)]
    for cached, prompt in pairs:
        analyzer.record(prompt, cached, None)
    ratios = sorted((c * HIST_BINS // p) / HIST_BINS if p else 0.0 for c, p in pairs)
    got = analyzer.result.percentiles((0.1, 0.5, 0.9, 1.0))
    for q in (0.1, 0.5, 0.9, 1.0):
        assert got[f"p{round(q * 100)}"] == ratios[math.ceil(q * len(ratios)) - 1]
