"""A diagnosis limited to the first N requests still finds the defect, with scaled losses."""

from __future__ import annotations

import json

from advisor.index.analyze import Analyzer
from advisor.ingest.source import SkipLog, open_traffic
from advisor.diagnose.detect import Diagnoser
from advisor.ingest.tokenizers import load_tokenizer
from tests.conftest import DEMO_TRAFFIC


def test_limited_diagnosis_finds_the_timestamp_and_scales_losses() -> None:
    path = DEMO_TRAFFIC / "support_chat.jsonl"
    seqs = list(open_traffic([path], "llama3", None, None, 512, SkipLog(quiet=True)))
    cached = Analyzer(1).add_all(seqs).cached_tokens
    full = Diagnoser(load_tokenizer("llama3"))
    part = Diagnoser(load_tokenizer("llama3"), limit=100)
    for s in seqs:
        full.add(s)
        part.add(s)
    a, b = full.finish(cached), part.finish(cached)
    assert (b.examined, b.text_requests) == (100, len(seqs))
    assert (a.examined, a.text_requests) == (len(seqs), len(seqs))
    assert [f.code for f in b.findings] == [f.code for f in a.findings] == ["TR101"]
    assert b.findings[0].token_offset == a.findings[0].token_offset
    # Losses measured on a third of the log, scaled to all of it: close to the full figure.
    assert abs(b.attribution.dynamic - a.attribution.dynamic) <= 0.1 * a.attribution.dynamic


def test_analyze_reports_the_sample(cli) -> None:
    path = DEMO_TRAFFIC / "support_chat.jsonl"
    data = json.loads(cli("analyze", path, "--format", "json", "--diagnose-limit", "50").out)
    assert data["diagnosis"] == {"text_requests": 300, "examined": 50, "sampled": True}
    assert [f["code"] for f in data["findings"]] == ["TR101"]
