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
