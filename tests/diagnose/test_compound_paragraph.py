"""Two shapes a blind set taught: a value made of several varying parts inside one compound
token (a presigned link), and a paragraph of per-request notes opening the prompt.

Generated here over record kinds and sizes; each is checked through the CLI against the
brute-force truth of its ideally fixed traffic (``zoo.truth``)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from tests.diagnose import zoo

TOLERANCE = 0.02


def _prescribe(tmp_path: Path, cli, w: zoo.Workload) -> dict:
    path = tmp_path / f"{w.name}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in w.records), encoding="utf-8")
    res = cli("prescribe", path, "--format", "json")
    assert res.code == 0, res.err
    return json.loads(res.out)


def _record(kind: str, system: str, user: str) -> dict:
    if kind == "prompt":
        return {"prompt": f"{system}\n\nQuestion: {user}\nAnswer:"}
    return {"messages": [{"role": "system", "content": system}, {"role": "user", "content": user}]}


def _link(rng: random.Random, parts: int) -> str:
    """A presigned link: an object key, then ``parts - 1`` more varying query values, each
    behind a fixed parameter name long enough to re-join on its own."""
    key = "".join(rng.choice("0123456789abcdef") for _ in range(32))
    query = ["X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIA" + "".join(
        rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ234567") for _ in range(16)) + "%2F20261201%2Feu-west-2%2Fs3%2Faws4_request"]
    if parts >= 3:
        query.append(f"X-Amz-Date=202612{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}{rng.randint(0, 59):02d}00Z"
                     "&X-Amz-Expires=900&X-Amz-SignedHeaders=host")
    if parts >= 4:
        query.append("X-Amz-Signature=" + "".join(rng.choice("0123456789abcdef") for _ in range(64)))
    return f"https://uploads.example.org/evidence/{key}.pdf?" + "&".join(query)


@pytest.mark.parametrize("kind,parts", [("messages", 4), ("prompt", 3), ("messages", 2)])
def test_a_link_with_several_varying_parts_is_one_span_and_moves_whole(tmp_path: Path, cli, kind, parts) -> None:
    rng = random.Random(parts * 7 + len(kind))
    head, tail = zoo.persona(f"link-head-{kind}"), zoo.persona(f"link-tail-{kind}")
    records, after, before, links = [], [], [], []
    for _ in range(40):
        link = _link(rng, parts)
        links.append(link)
        q = zoo.question(rng)
        records.append(_record(kind, f"{head}\n\nThe customer's upload: {link}\n\n{tail}", q))
        after.append(_record(kind, f"{head}\n\n{tail}", f"{q}\n\nThe customer's upload: {link}"))
        before.append(_record(kind, f"{head}\n\n{tail}", f"The customer's upload: {link}\n\n{q}"))
    # The ideal fix: the link whole in the user turn, after the question or before it
    # (questions share their first words; the link its host and path).
    w = max((zoo.Workload(f"link-{kind}-{parts}", kind, records, fixed, []) for fixed in (after, before)),
            key=zoo.truth)
    data = _prescribe(tmp_path, cli, w)
    spans = [f for f in data["findings"] if f["code"] in ("TR101", "TR102")]
    # One finding, not one per varying part: its example is a whole link of the traffic.
    assert len(spans) == 1, [(f["code"], f["token_offset"], f["example"][:60]) for f in spans]
    assert spans[0]["kind"] == "url" and spans[0]["example"] in links
    at = zoo.token_offset(records[0], "https://uploads") if kind == "messages" else None
    if at is not None:
        assert abs(spans[0]["token_offset"] - at) <= 16
    truth = zoo.truth(w)
    assert abs(data["hit_rate_after"] - truth) <= TOLERANCE, (data["hit_rate_after"], truth)


NOTES = ["the customer asked twice about the late fee and was promised a call back",
         "meter readings were estimated for three months after the engineer missed a visit",
         "a hardship plan is in place and the next payment is due after the holidays",
         "the account moved from the old tariff in spring and the first bill was disputed",
         "the caller is the tenant, not the owner, and may not change the payment details"]


@pytest.mark.parametrize("kind", ["messages", "prompt"])
def test_a_paragraph_of_notes_opening_the_prompt_is_content_ahead_of_static_text(tmp_path: Path, cli, kind) -> None:
    rng = random.Random(5 if kind == "prompt" else 6)
    system = zoo.persona(f"notes-{kind}")
    records, fixed = [], []
    for i in range(40):
        notes = f"Account notes ACC-{rng.randint(10**5, 10**6)}: {rng.choice(NOTES)}; {rng.choice(NOTES)}."
        q = zoo.question(rng)
        records.append(_record(kind, f"{notes}\n\n{system}", q))
        fixed.append(_record(kind, system, f"{q}\n\n{notes}"))
    w = zoo.Workload(f"notes-{kind}", kind, records, fixed, [])
    data = _prescribe(tmp_path, cli, w)
    found = [(f["code"], f["token_offset"]) for f in data["findings"] if f["code"] in ("TR101", "TR102", "TR201")]
    assert [c for c, _ in found] == ["TR102"], found
    assert abs(data["hit_rate_after"] - zoo.truth(w)) <= TOLERANCE


@pytest.mark.parametrize("kind", ["messages", "prompt"])
def test_a_short_value_line_opening_the_prompt_stays_a_value(tmp_path: Path, cli, kind) -> None:
    # A date line is a value under a label, however it opens the prompt.
    rng = random.Random(8)
    system = zoo.persona(f"date-line-{kind}")
    records, fixed = [], []
    for i in range(40):
        line = f"Today's date: 2026-12-{1 + i // 4:02d}, office {rng.choice(['Leeds', 'Cork', 'Turku'])}."
        q = zoo.question(rng)
        records.append(_record(kind, f"{line}\n\n{system}", q))
        fixed.append(_record(kind, system, f"{q}\n\n{line}"))
    w = zoo.Workload(f"date-line-{kind}", kind, records, fixed, [])
    data = _prescribe(tmp_path, cli, w)
    found = [f["code"] for f in data["findings"] if f["code"] in ("TR101", "TR102", "TR201")]
    assert found == ["TR101"], found
