"""Issue 12: the diagnosis and prescription over the defect zoo, and what diagnosis costs.

For every zoo workload (tests/diagnose/zoo.py) it runs `advisor prescribe --format json` in
this process and prints: the expected findings found at the right token offset (recall),
the TR101/TR102/TR201 findings that match no planted defect (false findings; on a clean
control, those claiming more than 1% of its prompt tokens fail it), and the prediction
error |hit_rate_after - truth| where the truth is the brute-force oracle's hit rate of the
traffic after the ideal fix. Then the time `analyze` takes with and without the diagnosis
(best of --repeat runs, CPU and wall) on the zoo and on the demo traffic, in this process
and warm (the strict figure: no interpreter start or tokenizer load to hide behind), and
for the demo also as a user runs it: one `advisor analyze` command over all its files.

Run: `.venv/bin/python bench/diagnose_zoo.py [--repeat N] [--no-timing]`.
Writes bench/results-diagnose-zoo.json.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("ADVISOR_NO_PROGRESS", "1")

from advisor.cli import main  # noqa: E402
from tests.diagnose import zoo  # noqa: E402

OFFSET_TOLERANCE = 16
ERROR_TARGET = 0.02
OVERHEAD_TARGET = 0.50
STRUCTURAL = ("TR101", "TR102", "TR201")


def run(args: list[str]) -> tuple[float, float, dict]:
    out = io.StringIO()
    start, cpu = time.perf_counter(), time.process_time()
    with contextlib.redirect_stdout(out):
        code = main(args)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    if code != 0:
        raise SystemExit(f"advisor {' '.join(args)} failed (exit {code})")
    return elapsed, cpu, json.loads(out.getvalue())


def score(w: zoo.Workload, data: dict) -> dict:
    found = [(f["code"], f["token_offset"], f["tokens_lost"]) for f in data["findings"] if f["code"] in STRUCTURAL]
    expected = zoo.expected(w)
    hits = [any(c == code and abs(o - offset) <= OFFSET_TOLERANCE for c, o, _ in found) for code, offset in expected]
    false = [f for f in found if not any(f[0] == c and abs(f[1] - o) <= OFFSET_TOLERANCE for c, o in expected)]
    claims = [f for f in false if f[2] > 0.01 * data["prompt_tokens"]]
    truth = zoo.truth(w)
    return {"workload": w.name, "kind": w.kind, "control": w.control, "expected": len(expected),
            "found": sum(hits), "false": len(false), "false_over_1pct": len(claims),
            "hit_rate_before": data["hit_rate_before"], "hit_rate_after": data["hit_rate_after"],
            "truth": round(truth, 6), "error": round(abs(data["hit_rate_after"] - truth), 6),
            "promised_gain": round(data["hit_rate_after"] - data["hit_rate_before"], 6)}


def timing(paths: list[Path], repeat: int) -> tuple[float, float, float, float]:
    """Summed best-of-``repeat`` wall and CPU seconds of analyze without and with diagnosis."""
    base_w = base_c = diag_w = diag_c = 0.0
    for path in paths:
        run(["analyze", str(path), "--format", "json", "--no-diagnose"])  # warm caches
        best = {False: [float("inf")] * 2, True: [float("inf")] * 2}
        for _ in range(repeat):
            for flag in (False, True):
                wall, cpu, _ = run(["analyze", str(path), "--format", "json"] + ([] if flag else ["--no-diagnose"]))
                best[flag] = [min(best[flag][0], wall), min(best[flag][1], cpu)]
        base_w += best[False][0]
        base_c += best[False][1]
        diag_w += best[True][0]
        diag_c += best[True][1]
    return base_w, base_c, diag_w, diag_c


def command_timing(paths: list[Path], repeat: int) -> tuple[float, float, float, float]:
    """Best-of-``repeat`` wall and CPU seconds of one ``advisor analyze`` process over
    ``paths``, without and with the diagnosis (the interpreter's start included)."""
    best = {False: [float("inf")] * 2, True: [float("inf")] * 2}
    for _ in range(repeat):
        for flag in (False, True):
            cmd = [sys.executable, "-m", "advisor", "analyze", *map(str, paths), "--format", "json"]
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run(cmd + ([] if flag else ["--no-diagnose"]), check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
            wall = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            best[flag] = [min(best[flag][0], wall), min(best[flag][1], cpu)]
    return best[False][0], best[False][1], best[True][0], best[True][1]


def main_bench() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-timing", action="store_true")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for w in zoo.workloads():
            path = Path(tmp) / f"{w.name}.jsonl"
            path.write_text("".join(json.dumps(r) + "\n" for r in w.records), encoding="utf-8")
            paths.append(path)
            _, _, data = run(["prescribe", str(path), "--format", "json"])
            rows.append(score(w, data))
        print(f"{'workload':<34}{'kind':<10}{'found':>7}{'false':>7}{'before':>8}{'after':>8}{'truth':>8}{'error':>8}")
        for r in rows:
            print(f"{r['workload']:<34}{r['kind']:<10}{r['found']:>4}/{r['expected']:<2}{r['false']:>7}"
                  f"{r['hit_rate_before']:>8.3f}{r['hit_rate_after']:>8.3f}{r['truth']:>8.3f}{r['error']:>8.3f}")
        defects = [r for r in rows if not r["control"]]
        controls = [r for r in rows if r["control"]]
        expected = sum(r["expected"] for r in defects)
        found = sum(r["found"] for r in defects)
        max_error = max(r["error"] for r in rows)
        summary = {
            "workloads": len(rows), "defect_workloads": len(defects), "controls": len(controls),
            "recall": round(found / expected, 4), "found": found, "expected": expected,
            "false_findings": sum(r["false"] for r in rows),
            "false_findings_over_1pct_on_controls": sum(r["false_over_1pct"] for r in controls),
            "max_error": max_error, "mean_error": round(sum(r["error"] for r in rows) / len(rows), 6),
            "within_tolerance": sum(r["error"] <= ERROR_TARGET for r in rows),
            "max_control_promised_gain": max(r["promised_gain"] for r in controls),
        }
        print(f"\nrecall {found}/{expected} ({summary['recall']:.1%}); false findings {summary['false_findings']} "
              f"({summary['false_findings_over_1pct_on_controls']} on controls claiming >1% of prompt tokens); "
              f"prediction error max {max_error:.4f}, mean {summary['mean_error']:.4f}, "
              f"{summary['within_tolerance']}/{len(rows)} within {ERROR_TARGET}; largest gain promised to a "
              f"control {summary['max_control_promised_gain']:.4f}")
        result: dict = {"summary": summary, "rows": rows}
        if not args.no_timing:
            demo = sorted((ROOT / "templates" / "traffic").glob("*.jsonl"))
            for label, group, how in (("zoo", paths, timing), ("demo", demo, timing), ("demo_command", demo, command_timing)):
                bw, bc, dw, dc = how(group, args.repeat)
                result[f"timing_{label}"] = {"analyze_s": round(bw, 3), "analyze_cpu_s": round(bc, 3),
                                             "with_diagnosis_s": round(dw, 3), "with_diagnosis_cpu_s": round(dc, 3),
                                             "overhead_wall": round(dw / bw - 1, 4), "overhead_cpu": round(dc / bc - 1, 4)}
                t = result[f"timing_{label}"]
                print(f"{label}: analyze {bw:.2f}s wall / {bc:.2f}s CPU; with diagnosis {dw:.2f}s / {dc:.2f}s: "
                      f"+{t['overhead_wall']:.1%} wall, +{t['overhead_cpu']:.1%} CPU (target at most "
                      f"{OVERHEAD_TARGET:.0%})")
        result["cpus"] = os.cpu_count()
        result["load_average"] = os.getloadavg()
    (ROOT / "bench" / "results-diagnose-zoo.json").write_text(json.dumps(result, indent=2) + "\n")
    ok = summary["recall"] == 1.0 and max_error <= ERROR_TARGET and summary["false_findings_over_1pct_on_controls"] == 0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main_bench())
