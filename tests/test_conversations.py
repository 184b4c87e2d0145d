"""Reuse within and across conversations, and session affinity (advisor.index.conversations),
against a brute-force oracle: every pair of requests compared with tuple slices."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from array import array
from collections.abc import Sequence as SequenceOf

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.index.analyze import Analyzer
from advisor.index.conversations import DEFAULT_REPLICAS, assign, label_of, measure, replica_of
from advisor.ingest.pipeline import Sequence
from advisor.ingest.source import SkipLog, open_traffic
from advisor.ingest.traffic import Records, Request
from advisor.report import advisory
from advisor.report.sections import capacity, conversations
from tests.conftest import ROOT
from tests.oracle import lcp

Row = tuple[str, tuple[int, ...], str | None]  # namespace, ids, session


def to_sequences(rows: SequenceOf[Row], unit: int = 1) -> list[Sequence]:
    out = []
    for i, (ns, ids, session) in enumerate(rows):
        req = Request(source="t", line=i + 1, kind="input_ids", session=session)
        # A block-hash request's last block is partial: its tokens are fewer than len x unit.
        tokens = len(ids) if unit == 1 else len(ids) * unit - (i % unit)
        out.append(Sequence(req, ns, array("I", ids), max(tokens, 1), unit))
    return out


def tokens_of(matched: int, seq: Sequence, page: int) -> int:
    """Analyze's rule, written out: whole pages of tokens (block hashes: of the covered tokens)."""
    if seq.unit == 1:
        return matched // page * page
    covered = min(matched * seq.unit, seq.prompt_tokens)
    return covered - covered % page


def oracle_conversations(seqs: list[Sequence]) -> list[int]:
    """Each request's conversation: its session in its namespace, else the conversation of the
    longest (then latest) earlier prompt of its namespace it strictly extends, else a new one."""
    out: list[int] = []
    sessions: dict[tuple[str, str], int] = {}
    count = 0
    for i, seq in enumerate(seqs):
        ids = tuple(seq.ids)
        session = seq.request.session
        if session is not None:
            key = (seq.namespace, session)
            if key not in sessions:
                sessions[key] = count
                count += 1
            out.append(sessions[key])
            continue
        best: tuple[int, int] | None = None
        for j in range(i):
            other = tuple(seqs[j].ids)
            if (seqs[j].namespace == seq.namespace and len(other) < len(ids) and ids[: len(other)] == other
                    and (best is None or (len(other), j) > best)):
                best = (len(other), j)
        if best is None:
            out.append(count)
            count += 1
        else:
            out.append(out[best[1]])
    return out


def oracle_hits(seqs: list[Sequence], page: int, same) -> int:
    """Sum over requests of the best hit on the earlier requests ``same(i, j)`` allows."""
    total = 0
    for i, seq in enumerate(seqs):
        best = max((lcp(seq.ids, seqs[j].ids) for j in range(i)
                    if seqs[j].namespace == seq.namespace and same(i, j)), default=0)
        total += tokens_of(best, seq, page)
    return total


def same_partition(a: SequenceOf[int], b: SequenceOf[int]) -> bool:
    return all((a[i] == a[j]) == (b[i] == b[j]) for i in range(len(a)) for j in range(i))


@st.composite
def traffic(draw) -> list[Row]:
    """Small traffic that makes every case happen: fresh prompts over a small alphabet (shared
    prefixes), continuations of earlier prompts, repeats, cut-down prompts, two namespaces,
    session ids on some, all or none of the requests."""
    sessions = draw(st.sampled_from(["none", "some", "all"]))
    rows: list[Row] = []
    for _ in range(draw(st.integers(1, 14))):
        ns = draw(st.sampled_from(["tokens", "tokens", "other"]))
        kind = draw(st.sampled_from(["fresh", "extend", "extend", "repeat", "cut"])) if rows else "fresh"
        if kind == "fresh":
            ids = tuple(draw(st.lists(st.integers(1, 3), min_size=1, max_size=9)))
        else:
            _, base, _ = rows[draw(st.integers(0, len(rows) - 1))]
            if kind == "extend":
                ids = base + tuple(draw(st.lists(st.integers(1, 3), min_size=1, max_size=5)))
            elif kind == "repeat":
                ids = base
            else:
                ids = base[: draw(st.integers(1, len(base)))]
        session = None
        if sessions == "all" or (sessions == "some" and draw(st.booleans())):
            session = draw(st.sampled_from(["a", "b", "c"]))
        rows.append((ns, ids, session))
    return rows


@settings(max_examples=150, deadline=None)
@given(traffic(), st.sampled_from([1, 2, 3]), st.sampled_from([1, 4]))
def test_split_and_affinity_match_the_brute_force_oracle(rows: list[Row], page: int, unit: int) -> None:
    seqs = to_sequences(rows, unit)
    found = assign(seqs, page)
    split = found.split
    conv = oracle_conversations(seqs)
    assert same_partition(found.conversation_of, conv)
    assert split.conversations == len(set(conv))
    assert split.cached_tokens == oracle_hits(seqs, page, lambda i, j: True)
    assert split.within_tokens == oracle_hits(seqs, page, lambda i, j: conv[i] == conv[j])
    assert split.within_tokens + split.across_tokens == split.cached_tokens
    # The conversations' labels are the router's keys: the oracle's replicas from the same hash.
    first = {c: conv.index(c) for c in set(conv)}
    for n in (1, 2, 3):
        # A conversation's label is its first request's: its session id, or its position.
        label = [label_of(seqs[first[c]].namespace, seqs[first[c]].request.session, first[c]) for c in conv]
        where = [replica_of(x, n) for x in label]
        got = measure(seqs, page, (n,)).affinity[0]
        assert got.cached_tokens == oracle_hits(seqs, page, lambda i, j, w=where: w[i] == w[j])
        assert split.within_tokens <= got.cached_tokens <= split.cached_tokens


@settings(max_examples=60, deadline=None)
@given(traffic(), st.sampled_from([1, 4]))
def test_the_total_is_analyzes_and_one_replica_is_the_shared_cache(rows: list[Row], page: int) -> None:
    seqs = to_sequences(rows)
    split = measure(seqs, page, (1,))
    assert split.cached_tokens == Analyzer(page).add_all(seqs).cached_tokens
    one = split.affinity[0]
    assert one.cached_tokens == split.cached_tokens
    assert one.kept == 1.0
    assert one.across_kept_tokens == split.across_tokens


def chat_records(seed: int, with_sessions: bool) -> list[dict]:
    """Append-only chat: conversations sharing a system prompt, each turn re-sending the
    conversation so far plus the assistant's last reply and a new question, turns of
    different conversations interleaved."""
    rng = random.Random(seed)
    words = "invoice refund card bank export ledger tax plan seat trial owner API".split()
    system = {"role": "system", "content": "You are Juniper, the support assistant of Tallyfold. " * 6}
    open_: dict[int, list[dict]] = {}
    out: list[dict] = []
    for n in range(40):
        if not open_ or rng.random() < 0.35:
            c = len(out) + 1000
            open_[c] = [system]
        else:
            c = rng.choice(sorted(open_))
            open_[c].append({"role": "assistant", "content": " ".join(rng.choices(words, k=rng.randint(3, 12)))})
        open_[c].append({"role": "user", "content": f"question {n}: " + " ".join(rng.choices(words, k=rng.randint(2, 9)))})
        record: dict = {"messages": list(open_[c])}
        if with_sessions:
            record["session_id"] = f"conv-{c}"
        out.append(record)
        if rng.random() < 0.15:
            del open_[c]
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_session_ids_and_detected_continuation_agree_on_append_only_chat(seed: int) -> None:
    def run(with_sessions: bool):
        records = Records(chat_records(seed, with_sessions), "<chat>")
        seqs = list(open_traffic([records], "llama3", None, None, 512, SkipLog(quiet=True)))
        return seqs, assign(seqs)

    seqs, by_session = run(True)
    _, detected = run(False)
    assert by_session.split.source == "session ids"
    assert detected.split.source == "detected continuation"
    assert same_partition(by_session.conversation_of, detected.conversation_of)
    assert by_session.split.conversations == detected.split.conversations
    assert by_session.split.within_tokens == detected.split.within_tokens > 0
    assert by_session.split.cached_tokens == detected.split.cached_tokens
    # The system prompt is shared across conversations: some reuse is across.
    assert detected.split.across_tokens > 0
    assert detected.split.session_conversations == 0
    assert detected.split.detected_conversations + detected.split.single_conversations == detected.split.conversations


def test_the_replica_hash_is_fixed_across_processes() -> None:
    labels = [label_of("tokens", f"s{i}") for i in range(20)] + [label_of("tokens", None, i) for i in range(20)]
    here = [replica_of(x, 8) for x in labels]
    script = ("import sys; from advisor.index.conversations import replica_of; "
              "print(repr([replica_of(x, 8) for x in eval(sys.argv[1])]))")
    for seed in ("1", "2"):
        out = subprocess.run([sys.executable, "-c", script, repr(labels)], capture_output=True, text=True,
                             check=True, cwd=ROOT, env={"PYTHONHASHSEED": seed, "PATH": ""})
        assert eval(out.stdout) == here
    assert len(set(here)) > 1


def test_the_report_carries_the_split_after_capacity(cli, tmp_path) -> None:
    path = tmp_path / "chat.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in chat_records(3, with_sessions=True)[:16]))
    res = cli("report", "--traffic", path, "--format", "json", "--output", "-")
    assert res.code == 0, res.err
    facts = json.loads(res.out)
    traffic = facts["traffic"]
    conv = traffic["conversations"]
    assert conv["cached_tokens"] == traffic["cached_tokens"]
    assert conv["source"] == "session ids"
    assert [a["replicas"] for a in conv["affinity"]] == list(DEFAULT_REPLICAS)
    text = advisory.to_markdown(facts, None)
    titles = re.findall(r"^## \d+\. (.+)$", text, re.M)
    assert titles[titles.index(capacity.TITLE) + 1] == conversations.TITLE
    assert f"{conv['within_conversation_tokens']:,}" in text
