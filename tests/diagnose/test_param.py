"""The parametric held-out set's generator, checked against itself (not the detector: bench/accuracy.py
reports that). Fast: the structural checks need no rendering; the rendered ones take one workload per
shape and control, rotated over kinds and setups."""

from __future__ import annotations

import json
from typing import Any

import pytest

from advisor.ingest.traffic import parse_record
from tests.diagnose import param
from tests.diagnose.heldout import MARK, UNIT, oracle

SEED = 12


def sample() -> list[param.Spec]:
    """One workload per shape and per control, rotated over the kinds and setups."""
    shapes = [sh.name for sh in param.SHAPES] + list(param.CONTROLS)
    out = []
    for j, name in enumerate(shapes):
        kind, setup = param.KINDS[j % 3], param.SETUPS[(j // 3 + j) % 3].name
        out.append(next(s for s in param.SPECS.values() if (s.shape, s.kind, s.setup) == (name, kind, setup)))
    return out


SAMPLE = sample()


def strings(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def test_cross_product_covers_shapes_kinds_setups() -> None:
    assert len(param.SHAPES) >= 25 and len(param.KINDS) == 3 and len(param.SETUPS) == 3
    for sh in param.SHAPES:
        for kind in param.KINDS:
            made = {s.setup for s in param.SPECS.values() if s.shape == sh.name and s.kind == kind}
            # Either the shape is written in every setup for this kind, or the table says why not.
            assert made == {s.name for s in param.SETUPS} or (sh.name, kind) in param.NOT_APPLICABLE, (sh.name, kind)
    defects = [s for s in param.SPECS.values() if not s.control]
    assert len(defects) >= 25 * 3 * 3 - len(param.NOT_APPLICABLE) * 3
    assert len({s.shape for s in param.SPECS.values() if s.control}) == 5


def test_every_position_of_a_shape_is_used() -> None:
    for sh in param.SHAPES:
        used = {s.pos for s in param.SPECS.values() if s.shape == sh.name}
        assert used == set(sh.positions), sh.name
        assert used <= set(param.POSITIONS)


def test_setups_name_the_arguments_of_an_existing_set() -> None:
    from tests.diagnose import heldout8, heldout10

    args = {s.name: s.analyze_args for s in param.SETUPS}
    assert args["llama3"] == ()
    assert args["qwen25"] == heldout8.ANALYZE_ARGS
    assert args["gptoss"] == heldout10.ANALYZE_ARGS


def where(req: param.Req) -> list[str]:
    """The documented places of a request holding a MARK."""
    found = []
    if MARK in req.system[0]:
        found.append("start")
    if len(req.system) > 2 and MARK in req.system[2]:
        found.append("middle")
    if MARK in req.system[-1]:
        found.append("end")
    if req.tools and MARK in strings(req.tools):
        found.append("tools")
    if MARK in req.user[0]:
        found.append("user")
    return found


@pytest.mark.parametrize("spec", [s for s in param.SPECS.values() if s.kind == "messages" and s.setup == "llama3"],
                         ids=lambda s: s.name)
def test_mark_sits_at_the_documented_position(spec: param.Spec) -> None:
    for orig, fixed in param.req_pairs(spec, SEED):
        text = strings([orig.system, orig.user, orig.tools, orig.history])
        assert text.count(MARK) == len(spec.expect)
        for fix in (fixed if isinstance(fixed, tuple) else (fixed,)):
            assert MARK not in strings([fix.system, fix.user, fix.tools, fix.history])
        if spec.control:
            assert orig == fixed
        elif spec.shape == "clock-passages":  # two defects: both blocks open the system prompt
            assert MARK in orig.system[0] and MARK in orig.system[1]
        else:
            assert spec.pos in where(orig), (spec.name, where(orig))
            # A UNIT, when there is one, comes before its MARK.
            assert text.find(UNIT) <= text.find(MARK) or UNIT not in text


@pytest.fixture(scope="module")
def built() -> dict[str, Any]:
    out = {}
    for st in param.SETS.values():
        names = [s.name for s in SAMPLE if s.setup == st.setup.name]
        engine = st.local_engine()
        for w in st.build_workloads(SEED, engine, names):
            out[w.name] = (w, engine)
    return out


def test_sample_spans_kinds_and_setups() -> None:
    assert {s.kind for s in SAMPLE} == set(param.KINDS)
    assert {s.setup for s in SAMPLE} == {s.name for s in param.SETUPS}
    assert len(SAMPLE) == len(param.SHAPES) + len(param.CONTROLS)


@pytest.mark.parametrize("spec", SAMPLE, ids=lambda s: s.name)
def test_workload_records_parse_and_fix_does_not_lose(built: dict[str, Any], spec: param.Spec) -> None:
    w, engine = built[spec.name]
    assert 30 <= len(w.records) <= 60 and len(w.fixed) == len(w.records)
    for r in w.records + w.fixed:
        assert ("prompt" in r) == (spec.kind == "prompt")
        assert MARK not in strings(r) and UNIT not in strings(r)
        parse_record(json.loads(json.dumps(r)), "test", 1)  # what `advisor analyze` reads
    c0, t0 = oracle(engine.ids(r) for r in w.records)
    c1, t1 = oracle(engine.ids(r) for r in w.fixed)
    if spec.control:
        assert w.expect == () and w.records == w.fixed
    else:
        assert len(w.offsets) == len(spec.expect) and all(0 < o < t0 / len(w.records) for o in w.offsets)
        assert c1 / t1 >= c0 / t0, (c0 / t0, c1 / t1)


def test_parts_kind_uses_content_parts_and_tool_calls() -> None:
    spec = param.SPECS["session-in-tool-tools-parts-qwen25"]
    orig, _ = param.build_pairs(spec, SEED)[0]
    assert isinstance(orig["messages"][0]["content"], list)
    assert any(m.get("tool_calls") for m in orig["messages"]) and orig["tools"]


def test_prompt_kind_is_the_served_markup() -> None:
    specs = {s.setup: s for s in param.SPECS.values() if s.shape == "request-id" and s.kind == "prompt"}
    texts = {name: param.build_pairs(spec, SEED)[0][0]["prompt"] for name, spec in specs.items()}
    assert texts["llama3"].startswith("<|start_header_id|>system")  # the BOS is the layout's, not the text's
    assert texts["qwen25"].startswith("<|im_start|>system")
    assert texts["gptoss"].startswith("<|start|>system")


def test_deterministic() -> None:
    spec = param.SPECS["csv-rows-start-messages-llama3"]
    assert param.build_pairs(spec, SEED) == param.build_pairs(spec, SEED)
    assert param.build_pairs(spec, SEED) != param.build_pairs(spec, SEED + 1)


def test_the_bench_serves_each_setup_with_its_arguments() -> None:
    import sys

    sys.path.insert(0, str(param.TEMPLATES.parents[1] / "bench"))
    import diagnose_heldout

    for key, st in param.SETS.items():
        assert diagnose_heldout.SETS[key] is st
        assert diagnose_heldout.set_args(st) == st.setup.analyze_args
