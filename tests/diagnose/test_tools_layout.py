"""Tools that the chat template prints after the history (TR103), measured against the truth.

Mistral's template prints the tool definitions right before the last user turn. In a chat
that re-sends its history at every turn, the tools follow a longer history each time, so
they are recomputed at every turn although every request carries the same ones. The
alignment sees that as a span of history ahead of shared content, or as tools and messages
in two orders; neither is a defect of the requests. The diagnosis must report it once, as
TR103, with the loss a template that prints the tools first would recover, and report
nothing the requests could fix.

The truth: each record rendered by HuggingFace transformers' own ``apply_chat_template``
(with SGLang's request handling, ``tests/engine_oracle.py``) under the template as it is and
under the same template printing the tools before the first user turn, tokenized, and
replayed by the brute-force longest-common-prefix oracle. Nothing of the layout detection
is in that path.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from advisor.ingest.tokenizers import load_tokenizer
from tests import engine_oracle
from tests.diagnose import zoo
from tests.diagnose.heldout import oracle

TEMPLATES = Path(__file__).resolve().parents[1] / "chat_templates"
LATE = (TEMPLATES / "mistral.jinja").read_text(encoding="utf-8")
# The same template with the tools printed with the first user turn instead of the last.
FIRST = LATE.replace("(message == user_messages[-1])", "(message == user_messages[0])")
TOKENIZER = "mistral-v3"
ARGS = ("--tokenizer", TOKENIZER, "--chat-template", str(TEMPLATES / "mistral.jinja"))
FALSE_SHARE = 0.01   # a false finding costs more than this share of the prompt tokens
TOLERANCE = 0.005    # |TR103 - truth| as a share of the prompt tokens (measured: 0 on seeds 0-11)


def _tools(rng: random.Random, seed: str, count: int | None = None) -> list[dict[str, Any]]:
    return [{"type": "function", "function": t["function"]} if "function" in t else t
            for t in zoo.tools(seed, count or rng.randint(2, 6))]


def _call(cid: str, name: str, rng: random.Random) -> dict[str, Any]:
    args = json.dumps({"ref": f"R-{rng.randint(100, 999)}", "limit": rng.randint(1, 20)})
    return {"role": "assistant", "content": None,
            "tool_calls": [{"id": cid, "type": "function", "function": {"name": name, "arguments": args}}]}


def sessions(seed: int, *, shuffle_tools: bool = False, clock: bool = False,
             tool_count: int | None = None) -> list[dict[str, Any]]:
    """Chat sessions over one tool set, interleaved in arrival order. Each request re-sends
    its session so far; a turn may call a tool first (the agent step that ends on the tool
    result is a request too). ``shuffle_tools``: the tools in a new order in every request
    (a real order defect); ``clock``: the current time at the top of the first user turn (a
    real value)."""
    rng = random.Random(seed)
    tools = _tools(rng, f"layout-{seed}", tool_count)
    names = [t["function"]["name"] for t in tools]
    instructions = zoo.persona(f"layout-{seed}") if rng.random() < 0.5 else ""
    per_session: list[list[dict[str, Any]]] = []
    for s in range(rng.randint(6, 10)):
        first = zoo.question(rng)
        if instructions:
            first = f"{instructions}\n\n{first}"
        history: list[dict[str, Any]] = []
        requests = []
        for turn in range(rng.randint(3, 6)):
            user = {"role": "user", "content": first if turn == 0 else zoo.question(rng)}
            requests.append(history + [user])
            history = history + [user]
            if rng.random() < 0.4:
                cid = f"s{s:02d}t{turn:02d}xyz"[:9]
                history += [_call(cid, rng.choice(names), rng),
                            {"role": "tool", "tool_call_id": cid,
                             "content": json.dumps({"ok": True, "note": zoo.sentence(rng)})}]
                requests.append(list(history))
            history.append({"role": "assistant", "content": " ".join(zoo.sentence(rng) for _ in range(rng.randint(1, 4)))})
        per_session.append(requests)
    out = []
    queues = [list(r) for r in per_session]
    n = 0
    while any(queues):
        q = rng.choice([q for q in queues if q])
        msgs = [dict(m) for m in q.pop(0)]
        if clock:
            stamp = f"Current time: 2026-03-{1 + n // 1440 % 28:02d}T{n // 60 % 24:02d}:{n % 60:02d}:{rng.randint(10, 59)}Z"
            msgs[0]["content"] = f"{stamp}\n{msgs[0]['content']}"
        order = rng.sample(tools, len(tools)) if shuffle_tools else tools
        out.append({"messages": msgs, "tools": order})
        n += 1
    return out


def _folder(root: Path, name: str, template: str) -> Path:
    from tokenizers import AddedToken, Tokenizer, models

    folder = root / name
    folder.mkdir()
    specials = json.loads((TEMPLATES / "specials.json").read_text())["mistral"]
    tok = Tokenizer(models.BPE(vocab={"a": 0}, merges=[]))
    tok.add_special_tokens([AddedToken(t, special=True) for t in specials.values()])
    tok.save(str(folder / "tokenizer.json"))
    config = {"tokenizer_class": "PreTrainedTokenizerFast", **specials, "chat_template": template}
    (folder / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def truth(tmp_path_factory: pytest.TempPathFactory):
    """(cached tokens, prompt tokens) of records rendered by transformers under the template
    as it is and with the tools first."""
    from transformers import AutoTokenizer

    root = tmp_path_factory.mktemp("layouts")
    hf = {k: AutoTokenizer.from_pretrained(str(_folder(root, k, t))) for k, t in (("late", LATE), ("first", FIRST))}
    tok = load_tokenizer(TOKENIZER)

    def ids(record: dict[str, Any], layout: str) -> list[int]:
        prepared = engine_oracle.sglang(dict(record), "string")
        return tok.encode(engine_oracle.reference_render(hf[layout], prepared, None))

    def replay(records: list[dict[str, Any]], layout: str) -> tuple[int, int]:
        return oracle(ids(r, layout) for r in records)
    replay.ids = ids  # type: ignore[attr-defined]
    return replay


def _analyze(tmp_path: Path, cli, records: list[dict[str, Any]], name: str) -> dict:
    path = tmp_path / f"{name}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    res = cli("analyze", path, *ARGS, "--format", "json")
    assert res.code == 0, res.err
    return json.loads(res.out)


def _false(data: dict, codes: tuple[str, ...] = ("TR101", "TR102", "TR201")) -> list[dict]:
    return [f for f in data["findings"] if f["code"] in codes and f["tokens_lost"] > FALSE_SHARE * data["prompt_tokens"]]


@pytest.mark.parametrize("seed", range(6))
def test_clean_sessions_get_one_template_finding_that_the_truth_confirms(tmp_path, cli, truth, seed) -> None:
    records = sessions(seed)
    data = _analyze(tmp_path, cli, records, f"clean-{seed}")
    cached, total = truth(records, "late")
    # The renderings agree: advisor's hit rate is the oracle's on transformers' rendering.
    assert (data["cached_tokens"], data["prompt_tokens"]) == (cached, total)
    assert not _false(data), data["findings"]
    layout = [f for f in data["findings"] if f["code"] == "TR103"]
    assert len(layout) == 1, data["findings"]
    first_cached, first_total = truth(records, "first")
    gain = first_cached - cached
    assert gain > FALSE_SHARE * total, (gain, total)
    assert layout[0]["measured"] is True and layout[0]["placement"] == "tools-before-last-user-turn"
    assert abs(layout[0]["tokens_lost"] - gain) <= TOLERANCE * total, (layout[0]["tokens_lost"], gain, total)
    assert data["loss_attribution"]["template_layout"] == layout[0]["tokens_lost"]
    a = data["loss_attribution"]
    assert a["dynamic_content"] + a["section_order"] + a["template_layout"] + a["inherently_unique"] == a["uncached_tokens"]


def test_the_requests_are_promised_no_gain(tmp_path, cli) -> None:
    path = tmp_path / "clean.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in sessions(11)), encoding="utf-8")
    res = cli("prescribe", path, *ARGS, "--format", "json")
    assert res.code == 0, res.err
    data = json.loads(res.out)
    assert any(f["code"] == "TR103" for f in data["findings"]), data["findings"]
    assert data["hit_rate_after"] - data["hit_rate_before"] <= 0.01, (data["hit_rate_before"], data["hit_rate_after"])


@pytest.mark.parametrize("seed,count", [(1, 3), (2, 4), (3, 6)])
def test_tools_shuffled_per_request_are_still_an_order(tmp_path, cli, seed, count) -> None:
    # (Two tools in two orders are not reported in sessions in any layout: the loss is in
    # each conversation's own turns, which the alignment reads for values only.)
    data = _analyze(tmp_path, cli, sessions(seed, shuffle_tools=True, tool_count=count), f"shuffled-{seed}")
    assert any(f["code"] == "TR201" for f in data["findings"]), data["findings"]


@pytest.mark.parametrize("seed", [3, 4])
def test_a_clock_at_the_top_is_still_a_value(tmp_path, cli, truth, seed) -> None:
    # The tools moving behind the history hid the clock from the alignment: each turn
    # re-sends the history with a new reading, which parts it from the turn before.
    records = sessions(seed, clock=True)
    data = _analyze(tmp_path, cli, records, f"clock-{seed}")
    dynamic = [f for f in data["findings"] if f["code"] == "TR101"]
    assert [f["kind"] for f in dynamic] == ["datetime"], data["findings"]
    # Where two first turns (tools first, as the template prints a first turn) part: the
    # clock's minutes, a few tokens into the value.
    firsts = [truth.ids(r, "late") for r in records if len(r["messages"]) == 1][:2]
    part = next(n for n in range(min(map(len, firsts))) if firsts[0][n] != firsts[1][n])
    assert abs(dynamic[0]["token_offset"] - part) <= 16, (dynamic[0]["token_offset"], part)
    assert any(f["code"] == "TR103" for f in data["findings"]), data["findings"]


@pytest.mark.parametrize("layout", [(), ("--tokenizer", "qwen2.5", "--chat-template", str(TEMPLATES / "qwen25.jinja"))])
def test_templates_that_print_the_tools_first_get_no_template_finding(tmp_path, cli, layout) -> None:
    path = tmp_path / "first.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in sessions(5)), encoding="utf-8")
    res = cli("analyze", path, *layout, "--format", "json")
    assert res.code == 0, res.err
    data = json.loads(res.out)
    assert not [f for f in data["findings"] if f["code"] == "TR103"], data["findings"]
    assert not _false(data), data["findings"]


def test_tenants_with_their_own_tools_past_the_aligned_sample(tmp_path, cli, truth) -> None:
    # Each tenant's tools are held by a few of the requests (no static content to the
    # alignment), and the log is longer than the requests aligned in full: the replay
    # covers every request all the same.
    records = [r for seed in range(20, 30) for r in sessions(seed)]
    assert len(records) > 384
    data = _analyze(tmp_path, cli, records, "tenants")
    cached, total = truth(records, "late")
    assert (data["cached_tokens"], data["prompt_tokens"]) == (cached, total)
    layout = [f for f in data["findings"] if f["code"] == "TR103"]
    assert len(layout) == 1 and layout[0]["replayed_requests"] == len(records), data["findings"]
    gain = truth(records, "first")[0] - cached
    assert abs(layout[0]["tokens_lost"] - gain) <= TOLERANCE * total, (layout[0]["tokens_lost"], gain, total)
    assert not _false(data), data["findings"]


def test_the_waterfall_shows_the_template_row_only_where_it_costs() -> None:
    from advisor.report.prescription import waterfall

    base = {"cached_tokens": 60, "dynamic_content": 10, "section_order": 0, "eviction": None,
            "inherently_unique": 30, "template_layout": 0, "prompt_tokens": 100}
    assert [r[0] for r in waterfall(base)][:4] == ["cached now", "+ dynamic content", "+ section order",
                                                  "+ inherently unique"]
    rows = waterfall(base | {"template_layout": 20, "inherently_unique": 10})
    assert ("+ template layout", 20, 70) in rows and ("+ inherently unique", 10, 90) in rows


def test_the_report_names_the_template_cost(tmp_path, cli) -> None:
    path = tmp_path / "clean.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in sessions(8)), encoding="utf-8")
    out = tmp_path / "report.md"
    res = cli("report", "--traffic", path, *ARGS, "--output", out)
    assert res.code == 0, res.err
    text = out.read_text(encoding="utf-8")
    assert "TR103" in text and "template layout" in text, text[:2000]


@pytest.mark.parametrize("layout", [(), ("--tokenizer", "qwen2.5", "--chat-template", str(TEMPLATES / "qwen25.jinja"))])
def test_a_clock_whose_six_tokens_before_the_change_are_all_value(tmp_path, cli, layout) -> None:
    # Qwen's tokenizer spells a number a digit a token: the six tokens before the minutes
    # that change are all date, and the label ("Current time:") is further back.
    path = tmp_path / "clock.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in sessions(3, clock=True)), encoding="utf-8")
    res = cli("analyze", path, *layout, "--format", "json")
    assert res.code == 0, res.err
    data = json.loads(res.out)
    assert [f["kind"] for f in data["findings"] if f["code"] == "TR101"] == ["datetime"], data["findings"]
