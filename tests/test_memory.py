"""Memory (issue 37): the tokenizer goes once the traffic is tokenized, the requests' texts go
once they are tokenized, the diagnosis' tree goes once it has seen its requests; and none of
it changes a figure. bench/memory_bench.py measures the peaks; these check the mechanisms."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from array import array
from pathlib import Path

import pytest

from advisor.api import analyze, simulate
from advisor.diagnose.align import Aligner
from advisor.ingest.decoder import TableDecode, decode_only
from advisor.ingest.pipeline import Sequence
from advisor.ingest.spill import SequenceSpill, light
from advisor.ingest.tokenizers import load_tokenizer
from advisor.ingest.traffic import Request

ROOT = Path(__file__).resolve().parents[1]
TRAFFIC = sorted((ROOT / "templates" / "traffic").glob("*.jsonl"))


@pytest.mark.parametrize("name", ["llama3", "cl100k"])
def test_table_decode_is_tiktokens_decode(name: str) -> None:
    encoding = load_tokenizer(name).tiktoken_encoding
    assert encoding is not None
    table = TableDecode(encoding)
    rng = random.Random(7)
    top = encoding.max_token_value
    known = [i for i in range(top + 1) if i not in table._gaps]
    specials = sorted(encoding._special_tokens.values())
    text = "Grüße, 東京 — naïve café 🎉 ```py\nx = 1\n```\n\n" * 3
    cases = [[], encoding.encode(text), encoding.encode(text)[1:-1], specials[:5], [known[-1]]]
    # Random ids: their bytes split multi-byte characters, which decode as replacement characters.
    cases += [[rng.choice(known) for _ in range(rng.randint(1, 60))] for _ in range(300)]
    for ids in cases:
        assert table(ids) == encoding.decode(ids)
    for bad in [b for b in ([top + 1], [5, 10**6], sorted(table._gaps)[:1]) if b]:
        with pytest.raises(KeyError) as theirs:
            encoding.decode(bad)
        with pytest.raises(KeyError) as ours:
            table(bad)
        assert str(ours.value) == str(theirs.value)


def test_cl100k_has_gaps_the_table_refuses() -> None:
    encoding = load_tokenizer("cl100k").tiktoken_encoding
    assert 100256 in TableDecode(encoding)._gaps


def test_decode_only_decodes_as_the_tokenizer_and_encodes_nothing() -> None:
    tok = load_tokenizer("llama3")
    light_tok = decode_only(tok)
    assert light_tok is not None and light_tok.tiktoken_encoding is None
    ids = tok.encode("<|begin_of_text|>Hello there, général Kenobi.<|eot_id|>") + [2**31 + 5, 9906]  # a media id
    assert light_tok.decode(ids) == tok.decode(ids)
    assert (light_tok.name, light_tok.vocab_size, light_tok.bos_id, light_tok.special_tokens) == \
        (tok.name, tok.vocab_size, tok.bos_id, tok.special_tokens)
    with pytest.raises(RuntimeError):
        light_tok.encode("x")


def _seq(i: int, **request: object) -> Sequence:
    req = Request(source="f.jsonl", line=i + 1, kind="messages", id=f"r{i}", tenant="ab"[i % 2], cached_tokens=i,
                  messages=({"role": "user", "content": "q" * 50},), tools=({"type": "function"},), **request)  # type: ignore[arg-type]
    return Sequence(request=req, namespace="tokens", ids=array("I", range(i, i + 40 + i)), prompt_tokens=40 + i)


def test_spill_gives_back_the_sequences_in_order_without_their_texts() -> None:
    seqs = [_seq(i) for i in range(700)]  # several batches
    with SequenceSpill() as spill:
        for n, s in enumerate(seqs):
            spill.add(s, keep_payload=n == 3)
        back = list(spill)
    assert len(back) == len(seqs) == spill.count
    for n, (a, b) in enumerate(zip(seqs, back)):
        assert (b.namespace, b.ids, b.prompt_tokens, b.unit, b.base_namespace) == \
            (a.namespace, a.ids, a.prompt_tokens, a.unit, a.base_namespace)
        assert b.request == light(a.request, keep_payload=n == 3)
        assert (b.request.where, b.request.id, b.request.tenant, b.request.cached_tokens) == \
            (a.request.where, a.request.id, a.request.tenant, a.request.cached_tokens)
        assert (b.request.messages is None) == (n != 3)


def test_a_sealed_aligner_takes_no_more_requests() -> None:
    aligner = Aligner()
    aligner.add(0, array("I", range(100)).tobytes())
    aligner.seal()
    assert aligner.kept  # what the findings read stays
    with pytest.raises(RuntimeError):
        aligner.add(1, array("I", range(100)).tobytes())


@pytest.mark.parametrize("path", TRAFFIC, ids=[p.stem for p in TRAFFIC])
def test_releasing_the_tokenizer_changes_no_figure(path: Path) -> None:
    kept = analyze(path).data
    released = analyze(path, release_tokenizer=True).data
    assert json.dumps(released, sort_keys=True) == json.dumps(kept, sort_keys=True)
    assert load_tokenizer.cache_info().currsize == 0  # let go: a next call loads it again
    assert json.dumps(analyze(path).data, sort_keys=True) == json.dumps(kept, sort_keys=True)
    ran = simulate(path, release_tokenizer=True).data
    assert json.dumps(ran, sort_keys=True) == json.dumps(simulate(path).data, sort_keys=True)


def test_a_command_run_from_a_shell_lets_the_tokenizer_go(tmp_path: Path) -> None:
    """In a process of its own (``standalone``), analyze and simulate release the tokenizer
    (no loaded Encoding is left alive); called in-process (tests, scripts) they keep it."""
    script = tmp_path / "run.py"
    script.write_text(
        "import gc, sys, io, contextlib, tiktoken\n"
        "from advisor.cli import main\n"
        "from advisor.commands.common import standalone\n"
        "from advisor.ingest.tokenizers import load_tokenizer\n"
        "path = sys.argv[1]\n"
        "for command in ('analyze', 'simulate'):\n"
        "    sys.argv = ['advisor', command, path, '-f', 'json']  # as the console script sees it\n"
        "    with contextlib.redirect_stdout(io.StringIO()):\n"
        "        assert main() == 0\n"
        "    assert standalone()\n"
        "    gc.collect()\n"
        "    alive = [o for o in gc.get_objects() if isinstance(o, tiktoken.Encoding)]\n"
        "    assert not alive and load_tokenizer.cache_info().currsize == 0, (command, alive)\n"
        "    sys.argv = ['a-test-runner']  # a call in-process: the tokenizer stays for the next one\n"
        "    with contextlib.redirect_stdout(io.StringIO()):\n"
        "        assert main([command, path, '-f', 'json']) == 0\n"
        "    assert not standalone() and load_tokenizer.cache_info().currsize == 1\n"
        "    load_tokenizer.cache_clear()\n"
        "print('ok')\n")
    got = subprocess.run([sys.executable, str(script), str(ROOT / "templates" / "traffic" / "rag_tools.jsonl")],
                         capture_output=True, text=True, env={"ADVISOR_NO_PROGRESS": "1", "PATH": "/usr/bin:/bin"},
                         timeout=300)
    assert got.returncode == 0 and got.stdout.strip() == "ok", got.stderr[-2000:]
