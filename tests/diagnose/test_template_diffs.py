"""Template diffs carry out the move prescribe measured (issue 12): the pinned clock of a
chat template and the sorted tool list. Each diff is applied to its template and the
traffic analyzed through the result; its hit rate must be the one prescribe promised."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import yaml

from advisor.prescribe.template_diff import _sort_json_tool_arrays, _sort_yaml_tools
from tests.diagnose import zoo

DAY = 86400.0
BASE = 1_795_996_800.0  # 2026-12-01 00:00 UTC

CLOCK_TEMPLATE = """{{- bos_token }}<|start_header_id|>system<|end_header_id|>

Today Date: {{ strftime_now("%d %b %Y") }}
{%- if tools %}

Functions:
{% for tool in tools %}{{ tool.function | tojson }}
{% endfor %}{% endif %}<|eot_id|>
{%- for m in messages %}<|start_header_id|>{{ m.role }}<|end_header_id|>

{{ m.content }}<|eot_id|>{% endfor %}<|start_header_id|>assistant<|end_header_id|>

"""


def apply_udiff(old: str, diff: str) -> str:
    """``old`` with a unified diff applied (the hunks difflib writes)."""
    src = old.splitlines(keepends=True)
    out: list[str] = []
    pos = 0
    lines = diff.splitlines(keepends=True)
    i = 0
    while i < len(lines):
        m = re.match(r"@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@", lines[i])
        i += 1
        if not m:
            continue
        start = int(m.group(1)) - (0 if m.group(2) == "0" else 1)
        out.extend(src[pos:start])
        pos = start
        while i < len(lines) and not lines[i].startswith("@@"):
            tag, text = lines[i][:1], lines[i][1:]
            if tag == " ":
                assert src[pos] == text
                out.append(text)
                pos += 1
            elif tag == "-":
                assert src[pos] == text
                pos += 1
            elif tag == "+":
                out.append(text)
            i += 1
    out.extend(src[pos:])
    return "".join(out)


def _traffic(rng: random.Random, n: int, days: float, tools: list[dict] | None) -> list[dict]:
    system = zoo.persona("diffs") + "\n\n" + "\n\n".join(zoo.paragraph(rng, 5, 8) for _ in range(5))
    out = []
    for i in range(n):
        rec: dict = {"timestamp": BASE + days * DAY * i / n,
                     "messages": [{"role": "system", "content": system}, {"role": "user", "content": zoo.question(rng)}]}
        if tools:
            mine = list(tools)
            rng.shuffle(mine)
            rec["tools"] = mine
        out.append(rec)
    return out


def _write(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _diffed_hit_rate(tmp_path: Path, cli, traffic: Path, template: Path, data: dict) -> float:
    (diff,) = [d for d in data["template_diffs"] if d["path"] == template.name]
    assert diff["diff"], diff
    new = tmp_path / ("new-" + template.name)
    new.write_text(apply_udiff(template.read_text(), diff["diff"]))
    res = cli("analyze", traffic, "--chat-template", new, "--format", "json", "--no-diagnose")
    assert res.code == 0, res.err
    return json.loads(res.out)["hit_rate"]


def test_pinned_clock_diff_gives_the_measured_hit_rate(tmp_path: Path, cli) -> None:
    template = tmp_path / "chat.jinja"
    template.write_text(CLOCK_TEMPLATE.replace("{%- if tools %}", "{%- if false %}"))
    for days in (4.0, 9.0):
        traffic = _write(tmp_path / f"clock-{days}.jsonl", _traffic(random.Random(int(days)), 48, days, None))
        res = cli("prescribe", traffic, "--chat-template", template, "--format", "json")
        assert res.code == 0, res.err
        data = json.loads(res.out)
        assert "pin-template-value" in [a["kind"] for a in data["actions"]], data["actions"]
        assert data["hit_rate_after"] - data["hit_rate_before"] > 0.05
        after = _diffed_hit_rate(tmp_path, cli, traffic, template, data)
        assert abs(after - data["hit_rate_after"]) <= 0.005, (after, data["hit_rate_after"])


def test_tool_loop_diff_gives_the_measured_hit_rate(tmp_path: Path, cli) -> None:
    template = tmp_path / "tools.jinja"
    template.write_text(CLOCK_TEMPLATE.replace('Today Date: {{ strftime_now("%d %b %Y") }}', "Cutting Knowledge Date: 2023"))
    for count in (4, 7):
        traffic = _write(tmp_path / f"tools-{count}.jsonl", _traffic(random.Random(count), 40, 0.1, zoo.tools("d", count)))
        res = cli("prescribe", traffic, "--chat-template", template, "--format", "json")
        assert res.code == 0, res.err
        data = json.loads(res.out)
        # (The canonical order sorts the tools; its template diff sorts the template's loop.)
        assert [a["kind"] for a in data["actions"]] == ["canonical-order"], data["actions"]
        assert any(f["code"] == "TR201" for f in data["findings"]), data["findings"]
        assert data["hit_rate_after"] - data["hit_rate_before"] > 0.05
        after = _diffed_hit_rate(tmp_path, cli, traffic, template, data)
        assert abs(after - data["hit_rate_after"]) <= 0.005, (after, data["hit_rate_after"])


def test_tool_lists_written_in_templates_are_sorted_in_place() -> None:
    for seed in range(6):
        rng = random.Random(seed)
        tools = zoo.tools(f"t{seed}", rng.randint(2, 6))
        shuffled = list(tools)
        rng.shuffle(shuffled)
        names = sorted(t["function"]["name"] for t in tools)
        indent = rng.choice([2, 4, None])
        text = f"Intro line.\n\n```json\n{json.dumps(shuffled, indent=indent)}\n```\n\nTail {{{{ question }}}}\n"
        out = _sort_json_tool_arrays(text)
        body = out.split("```json\n", 1)[1].split("\n```", 1)[0]
        assert [t["function"]["name"] for t in json.loads(body)] == names
        assert json.dumps(json.loads(body), indent=indent) == body  # the layout is kept
        assert out.startswith("Intro line.") and out.endswith("Tail {{ question }}\n")
        front = yaml.safe_dump({"name": "p", "model": {"parameters": {"tools": shuffled}}, "sample": {"q": 1}},
                               sort_keys=False)
        sorted_front = _sort_yaml_tools(front)
        parsed = yaml.safe_load(sorted_front)
        assert [t["function"]["name"] for t in parsed["model"]["parameters"]["tools"]] == names
        assert parsed["sample"] == {"q": 1} and parsed["name"] == "p"


def _loop_workload(folder: Path, shape: str, seed: int) -> tuple[Path, Path]:
    """A prompt template whose loop writes per-request-ordered units (rules as lines, or
    few-shot examples as paragraphs), and 'template' records filling it."""
    rng = random.Random(seed)
    tpl = folder / "tpl"
    tpl.mkdir()
    intro = zoo.persona(f"loop{seed}") + "\n\n" + "\n\n".join(zoo.paragraph(rng, 5, 8) for _ in range(3))
    tail = "\n\n".join(zoo.paragraph(rng, 5, 8) for _ in range(4))
    if shape == "lines":
        loop = "Rules:\n{% for r in rules %}- {{ r }}\n{% endfor %}"
        items: list = [zoo.sentence(rng, 4, 9) for _ in range(rng.randint(5, 8))]
    else:
        loop = "Examples:\n\n{% for ex in examples %}Q: {{ ex.q }}\nA: {{ ex.a }}\n\n{% endfor %}"
        items = [{"q": zoo.question(rng), "a": zoo.sentence(rng, 6, 14)} for _ in range(rng.randint(4, 6))]
    (tpl / "assistant.j2").write_text(f"{intro}\n\n{loop}\n{tail}\n\nQuestion: {{{{ question }}}}\n")
    key = "rules" if shape == "lines" else "examples"
    records = []
    for _ in range(40):
        mine = list(items)
        rng.shuffle(mine)
        records.append({"template": "assistant", "variables": {key: mine, "question": zoo.question(rng)}})
    return _write(folder / "t.jsonl", records), tpl


def test_loop_sort_diff_gives_the_measured_hit_rate(tmp_path: Path, cli) -> None:
    # Lines (rules); few-shot paragraphs in a loop are reordered to the canonical order the
    # section blocks give, which a sort filter cannot reproduce: they get a note.
    for shape, seed in (("lines", 1), ("lines", 2), ("lines", 4)):
        folder = tmp_path / f"{shape}-{seed}"
        folder.mkdir()
        traffic, tpl = _loop_workload(folder, shape, seed)
        res = cli("prescribe", traffic, "--templates", tpl, "--format", "json")
        assert res.code == 0, res.err
        data = json.loads(res.out)
        assert [f["code"] for f in data["findings"] if f["code"].startswith("TR")] == ["TR201"], data["findings"]
        assert data["hit_rate_after"] - data["hit_rate_before"] > 0.1
        (diff,) = [d for d in data["template_diffs"] if d["path"] == "assistant.j2"]
        assert "|sort(" in diff["diff"], diff
        new = folder / "new"
        new.mkdir()
        (new / "assistant.j2").write_text(apply_udiff((tpl / "assistant.j2").read_text(), diff["diff"]))
        res = cli("analyze", traffic, "--templates", new, "--format", "json", "--no-diagnose")
        assert res.code == 0, res.err
        after = json.loads(res.out)["hit_rate"]
        assert abs(after - data["hit_rate_after"]) <= 0.005, (shape, after, data["hit_rate_after"])


def test_a_value_moved_to_the_start_of_the_last_user_turn_is_written_there_in_the_template():
    from pathlib import Path as P

    from advisor.prescribe.template_diff import _insert_user_start

    yaml_text = "messages:\n  - role: system\n    content: |\n      You help.\n  - role: user\n    content: |\n      {{ q }}\n"
    out = _insert_user_start(P("p.yaml"), yaml_text, "Rate: {{ rate }}")
    assert out.index("Rate: {{ rate }}") < out.index("{{ q }}") and out.index("role: user") < out.index("Rate:")
    prompty = "---\nname: x\n---\nsystem:\nYou help.\n\nuser:\n{{q}}\n"
    out = _insert_user_start(P("p.prompty"), prompty, "Rate: {{ rate }}")
    assert out.endswith("user:\nRate: {{ rate }}\n\n{{q}}\n")
    # An inline content line takes no lines: the move goes to the end of the user turn instead.
    inline = "messages:\n  - role: user\n    content: \"{{ q }}\"\n"
    assert _insert_user_start(P("p.yaml"), inline, "Rate: {{ rate }}").index("{{ q }}") < \
        _insert_user_start(P("p.yaml"), inline, "Rate: {{ rate }}").index("Rate:")
