"""prescribe on traffic whose system messages carry content-part lists (regression: the
message move hashed the part list and raised TypeError)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.diagnose import workloads as W


def test_content_part_system_messages_are_prescribed(tmp_path: Path, cli) -> None:
    system = W.static_text("parts-system", 4)
    records = []
    for i in range(40):
        records.append({"messages": [
            {"role": "user", "content": f"Account note {i}: " + W.static_text(f"note-{i}", 1)},
            {"role": "system", "content": [{"type": "text", "text": system}]},
            {"role": "user", "content": f"Question {i}?"},
        ]})
    path = tmp_path / "parts.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    result = cli("prescribe", path, "--format", "json")
    assert result.code in (0, 1), result.err
    assert "Traceback" not in result.err and "TypeError" not in result.err
    data = json.loads(result.out)
    assert 0.0 <= data["hit_rate_before"] <= data["hit_rate_after"] <= 1.0


def test_a_caption_part_beside_an_image_ahead_of_a_fixed_checklist(tmp_path: Path, cli) -> None:
    """A user turn of parts: a caption with the photo's time, the image, a long checklist
    every session sends, the question. The caption is text the request sends (no value the
    chat template renders: nothing to pin); the canonical order puts the checklist first and
    keeps the caption beside its image, as a hand-written fix that does the same measures."""
    checklist = "Checklist for the photos:\n" + W.static_text("checklist", 6)
    records, fixed = [], []
    for i in range(60):
        caption = {"type": "text", "text": f"Photo {i % 4 + 1}/4: side mirror, taken 2026-11-{i % 28 + 1:02d} at "
                                           f"{i % 24:02d}:{(7 * i) % 60:02d}"}
        image = {"type": "image_url", "image_url": {"url": f"https://claims.example/{i:08x}.jpg"}}
        question = {"type": "text", "text": f"Question {i}: is the mirror covered?"}
        parts = [caption, image, {"type": "text", "text": checklist}, question]
        records.append({"messages": [{"role": "system", "content": "You help with claims."},
                                     {"role": "user", "content": parts}]})
        fixed.append({"messages": [{"role": "system", "content": "You help with claims."},
                                   {"role": "user", "content": [parts[2], caption, image, question]}]})
    logged, hand = tmp_path / "parts.jsonl", tmp_path / "hand.jsonl"
    logged.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    hand.write_text("".join(json.dumps(r) + "\n" for r in fixed), encoding="utf-8")
    out = tmp_path / "rewritten.jsonl"
    result = cli("prescribe", logged, "--format", "json", "--emit-rewritten", out)
    assert result.code in (0, 1), result.err
    data = json.loads(result.out)
    assert all(a["kind"] != "pin-template-value" for a in data["actions"])
    truth = json.loads(cli("analyze", hand, "--format", "json", "--no-diagnose").out)["hit_rate"]
    assert abs(data["hit_rate_after"] - truth) <= 0.02 and truth > data["hit_rate_before"] + 0.1
    for line in out.read_text(encoding="utf-8").splitlines():
        parts = json.loads(line)["messages"][-1]["content"]
        image = [p["type"] for p in parts].index("image_url")
        assert parts[0]["text"] == checklist and parts[image - 1]["text"].startswith("Photo")
