"""Two shapes a blind set taught: a value made of several varying parts inside one compound
token (a presigned link), and a paragraph of per-request notes opening the prompt.

Generated here over record kinds and sizes; each is checked through the CLI against the
brute-force truth of its ideally fixed traffic (``zoo.truth``)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.diagnose import zoo
from tests.diagnose.test_regressions_12c import TOLERANCE, _prescribe


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


def _notes(rng: random.Random, i: int) -> str:
    return f"Account notes ACC-{rng.randint(10**5, 10**6)}: {rng.choice(NOTES)}; {rng.choice(NOTES)}."


def _date_line(rng: random.Random, i: int) -> str:
    return f"Today's date: 2026-12-{1 + i // 4:02d}, office {rng.choice(['Leeds', 'Cork', 'Turku'])}."


# A paragraph of notes opening the prompt is content ahead of the static text (TR102); a date
# line is a value under a label, however it opens the prompt (TR101).
@pytest.mark.parametrize("kind", ["messages", "prompt"])
@pytest.mark.parametrize("opening,code", [(_notes, "TR102"), (_date_line, "TR101")])
def test_what_opens_the_prompt_is_content_or_a_value(tmp_path: Path, cli, kind, opening, code) -> None:
    rng = random.Random(len(kind) + len(code))
    system = zoo.persona(f"{opening.__name__}-{kind}")
    records, last, after_shared = [], [], []
    for i in range(40):
        line, q = opening(rng, i), zoo.question(rng)
        records.append(_record(kind, f"{line}\n\n{system}", q))
        last.append(_record(kind, system, f"{q}\n\n{line}"))
        after_shared.append(_record(kind, f"{system}\n\n{line}", q))
    # The ideal fix: the line after the question, or (a value with few settings, a date that
    # changes daily) right after the content every request shares, whichever measures better.
    w = max((zoo.Workload(f"{opening.__name__}-{kind}", kind, records, fixed, []) for fixed in (last, after_shared)),
            key=zoo.truth)
    data = _prescribe(tmp_path, cli, w)
    found = [f["code"] for f in data["findings"] if f["code"] in ("TR101", "TR102", "TR201")]
    assert found == [code], found
    # (At least the better of the two: the fix measured may find a better place still.)
    assert data["hit_rate_after"] >= zoo.truth(w) - TOLERANCE, (data["hit_rate_after"], zoo.truth(w))
