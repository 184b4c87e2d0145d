"""Epoch timestamps in s, ms, us or ns read alike by every command that reads times
(issue 15: microsecond epochs were read as milliseconds, and export knew only s and ms)."""

from __future__ import annotations

import json

import pytest

from tests.robustness.conftest import check_stderr

EPOCH = 1_764_403_200  # 2025-11-29 08:00 UTC
OFFSETS = [0.0, 0.25, 1.5, 1.5, 40.0]  # seconds after the first request
SCALES = {"s": 1, "ms": 10**3, "us": 10**6, "ns": 10**9}


def _traffic(tmp_path, unit: str):
    path = tmp_path / f"t_{unit}.jsonl"
    lines = []
    for i, off in enumerate(OFFSETS):
        # Whole numbers in each unit, as loggers write them (floats for seconds).
        stamp = EPOCH + off if unit == "s" else (EPOCH * SCALES[unit] + round(off * SCALES[unit]))
        ids = [7] * 40 + [100 + i] * 9
        lines.append(json.dumps({"input_ids": ids, "timestamp": stamp, "output_length": 3}))
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("fmt", ["mooncake", "bailian"])
def test_export_reads_every_epoch_unit_alike(fmt, tmp_path, cli):
    outs = {}
    for unit in SCALES:
        traffic = _traffic(tmp_path, unit)
        for given in ("auto", unit):
            res = cli("export", traffic, "--format", fmt, "--block-size", "16", "--salt", "k", "--timestamp-unit", given)
            check_stderr(res.err)
            assert res.code == 0, res.err
            outs[(unit, given)] = res.out
    assert len(set(outs.values())) == 1, outs
    rows = [json.loads(line) for line in outs[("us", "auto")].splitlines()]
    stamps = [r["timestamp"] for r in rows]
    if fmt == "mooncake":  # milliseconds from the first request
        assert stamps == [round(o * 1000) for o in OFFSETS]
    else:  # seconds
        assert stamps == pytest.approx(OFFSETS)


def test_a_wrong_unit_is_refused_with_the_units_named(tmp_path, cli):
    traffic = _traffic(tmp_path, "ms")
    for argv in (["export", traffic, "--format", "mooncake", "--block-size", "16"], ["verify", traffic, "--engine", "sglang"],
                 ["simulate", traffic]):
        res = cli(*argv, "--timestamp-unit", "weeks")
        check_stderr(res.err)
        assert res.code == 2 and "use auto, s, ms, us, ns" in res.err, res.err


def test_simulate_serve_reads_every_epoch_unit_alike(tmp_path, cli):
    outs = set()
    for unit in SCALES:
        traffic = _traffic(tmp_path, unit)
        for given in ("auto", unit):
            res = cli("simulate", traffic, "--mode", "serve", "--capacity-tokens", "1000", "-f", "json",
                      "--timestamp-unit", given)
            check_stderr(res.err)
            assert res.code == 0, res.err
            data = json.loads(res.out)
            data.pop("input", None)  # names the file
            outs.add(json.dumps(data, sort_keys=True))
    assert len(outs) == 1
