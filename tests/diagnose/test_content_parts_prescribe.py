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


def test_a_value_in_a_caption_beside_an_image_is_the_request_s_text(tmp_path: Path, cli) -> None:
    """A user turn of parts: a caption with the photo's time, the image, a checklist every
    session sends, the question. The time is text the request sends, not a value the chat
    template renders: nothing to pin. (The parts keep their order: a text part may belong
    to the image beside it.)"""
    checklist = "Checklist for the photos:\n" + W.static_text("checklist", 6)
    records = []
    for i in range(60):
        caption = {"type": "text", "text": f"Photo {i % 4 + 1}/4: side mirror, taken 2026-11-{i % 28 + 1:02d} at "
                                           f"{i % 24:02d}:{(7 * i) % 60:02d}"}
        image = {"type": "image_url", "image_url": {"url": f"https://claims.example/{i:08x}.jpg"}}
        question = {"type": "text", "text": f"Question {i}: is the mirror covered?"}
        records.append({"messages": [{"role": "system", "content": "You help with claims."},
                                     {"role": "user", "content": [caption, image, {"type": "text", "text": checklist},
                                                                  question]}]})
    logged = tmp_path / "parts.jsonl"
    logged.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    found = json.loads(cli("analyze", logged, "--format", "json").out)
    assert any(f["code"] == "TR101" for f in found["findings"])  # (the caption's time parts the requests)
    result = cli("prescribe", logged, "--format", "json")
    assert result.code in (0, 1), result.err
    data = json.loads(result.out)
    assert all(a["kind"] != "pin-template-value" for a in data["actions"])
