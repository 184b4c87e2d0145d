"""Every traffic rule's cases (rules/trNNN_*.yaml): small traffic logs and the finding each gives.

A case file names its rule and lists cases; each case is a traffic log, built from records
as a JSONL file holds them, and what the rule must say about it:

    rule: TR101
    vars: {policy: "..."}                  # placeholders every case's strings may use
    cases:
      - name: clock_at_the_top_of_the_system_prompt
        about: why this traffic does (or does not) show the rule     # optional, for the reader
        records: [{...}, ...]              # records as they are
        repeat:                            # one record per entry of `values` (or per i < `count`)
          record: {messages: [...]}        #   in its strings `{i}` is the index, `{value}` the entry,
          values: [...]                    #   `{key}` a key of an entry that is a mapping or of
                                           #   `vars`; `{i:02d}` formats; a string that is only a
                                           #   placeholder takes the value as it is (a list of tools)
        conversations:                     # multi-turn chat: one record per user turn, the history
          - system: "..."                  #   appended (`{turn}`: the request's turn, `{ago}`: how
            turns: [[user, assistant], ...] #  many turns before it a message was first sent)
        api: analyze                       # or simulate, prescribe (advisor.api), default analyze
        options: {...}                     # its keyword arguments; `chat_template` is the text
        expect: {kind: datetime}           # a finding of the rule whose JSON holds these values
        expect: none                       # no finding of the rule (a clean control)

`repeat` and `conversations` may be lists of blocks; the records are `records`, then the
`repeat` blocks, then the conversations, in that order. Each case runs through the Python API
on the records (no file is written but a chat template).
"""

from __future__ import annotations

import importlib.resources
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from advisor.api import analyze, prescribe, simulate
from advisor.rules import TRAFFIC_MODULES, traffic_cases_file

PLACEHOLDER = re.compile(r"\{(\w+)(?::([\w.<>]+))?\}")


def fill(template: Any, values: dict[str, Any]) -> Any:
    """``template`` with its placeholders replaced (only names in ``values``: JSON braces stay)."""
    if isinstance(template, str):
        whole = PLACEHOLDER.fullmatch(template)
        if whole and whole[1] in values:
            return values[whole[1]]
        return PLACEHOLDER.sub(lambda m: format(values[m[1]], m[2] or "") if m[1] in values else m[0], template)
    if isinstance(template, list):
        return [fill(t, values) for t in template]
    if isinstance(template, dict):
        return {k: fill(v, values) for k, v in template.items()}
    return template


def blocks(spec: Any) -> list[dict[str, Any]]:
    return [] if spec is None else spec if isinstance(spec, list) else [spec]


def repeated(block: dict[str, Any], names: dict[str, Any]) -> list[dict[str, Any]]:
    entries = block["values"] if "values" in block else list(range(block["count"]))
    out = []
    for i, entry in enumerate(entries):
        names = {**names, "i": i, "value": entry, **(entry if isinstance(entry, dict) else {})}
        out.append(fill(block["record"], names))
    return out


def conversation(block: dict[str, Any], names: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for turn in range(len(block["turns"])):
        at = {**names, "turn": turn}
        messages = [{"role": "system", "content": fill(block["system"], {**at, "ago": turn})}] if "system" in block else []
        for j, (user, assistant) in enumerate(block["turns"][:turn]):
            ago = {**at, "ago": turn - j}
            messages += [{"role": "user", "content": fill(user, ago)}, {"role": "assistant", "content": fill(assistant, ago)}]
        messages.append({"role": "user", "content": fill(block["turns"][turn][0], {**at, "ago": 0})})
        out.append({"messages": messages, **block.get("fields", {})})
    return out


def case_records(case: dict[str, Any]) -> list[dict[str, Any]]:
    names = case.get("vars", {})
    records = [fill(r, names) for r in case.get("records", [])]
    for block in blocks(case.get("repeat")):
        records += repeated(block, names)
    for block in blocks(case.get("conversations")):
        records += conversation(block, names)
    return records


def load(module: Any) -> list[dict[str, Any]]:
    resource = importlib.resources.files("advisor.rules").joinpath(traffic_cases_file(module))
    if not resource.is_file():
        return []
    data = yaml.safe_load(resource.read_text(encoding="utf-8"))
    assert data["rule"] == module.CODE
    return [{**case, "vars": {**data.get("vars", {}), **case.get("vars", {})}} for case in data["cases"]]


def all_cases():
    for module in TRAFFIC_MODULES:
        for case in load(module):
            yield pytest.param(module.CODE, case, id=f"{module.CODE}-{case['name']}")


def findings(case: dict[str, Any], tmp_path: Path) -> list[dict[str, Any]]:
    options = dict(case.get("options", {}))
    if "chat_template" in options:
        path = tmp_path / "chat_template.jinja"
        path.write_text(options["chat_template"], encoding="utf-8")
        options["chat_template"] = path
    run = {"analyze": analyze, "simulate": simulate, "prescribe": prescribe}[case.get("api", "analyze")]
    result = run(case_records(case), **options)
    assert result.skipped_count == 0, [s.reason for s in result.skipped]
    return [f.to_dict() for f in result.findings]


# The codes the traffic diagnosis gives (TR104: prescribe's causes of the canonical order);
# TR401 and TR501 (simulate) and TR601 (analyze --model on a hybrid model) have no case file yet.
DIAGNOSED = ("TR101", "TR102", "TR103", "TR104", "TR201", "TR301")


def test_every_traffic_rule_has_cases() -> None:
    for module in TRAFFIC_MODULES:
        cases = load(module)
        if not cases and module.CODE not in DIAGNOSED:
            continue
        assert any(c["expect"] == "none" for c in cases), f"{module.CODE}: no clean control"
        assert any(c["expect"] != "none" for c in cases), f"{module.CODE}: no case that shows it"


def test_the_case_format_builds_records() -> None:
    case = {
        "records": [{"prompt": "first"}],
        "vars": {"name": "v"},
        "repeat": {"record": {"prompt": "{i:02d}: {value} {name}", "tools": "{value}"}, "values": ["a", "b"]},
        "conversations": {"system": "S{turn}", "turns": [["u0 {ago}", "a0"], ["u1", "a1"]]},
    }
    assert case_records(case) == [
        {"prompt": "first"},
        {"prompt": "00: a v", "tools": "a"},
        {"prompt": "01: b v", "tools": "b"},
        {"messages": [{"role": "system", "content": "S0"}, {"role": "user", "content": "u0 0"}]},
        {"messages": [{"role": "system", "content": "S1"}, {"role": "user", "content": "u0 1"},
                      {"role": "assistant", "content": "a0"}, {"role": "user", "content": "u1"}]},
    ]
    assert fill('{"type": "object"} {value}', {"value": 3}) == '{"type": "object"} 3'


@pytest.mark.parametrize("code, case", list(all_cases()))
def test_traffic_rule_case(code: str, case: dict[str, Any], tmp_path: Path) -> None:
    found = [f for f in findings(case, tmp_path) if f["code"] == code]
    summary = [(f.get("kind"), f.get("message")) for f in found]
    if case["expect"] == "none":
        assert found == [], f"expected no {code} finding, got {summary}"
        return
    want = case["expect"]
    match = [f for f in found if all(f.get(k) == v for k, v in want.items())]
    assert match, f"expected a {code} finding with {want}, got {summary}"
