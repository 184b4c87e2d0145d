"""Issue 5 target: diagnosis adds at most 50% to the time of `analyze` on the same traffic.

Runs `advisor analyze --format json` in this process with `--no-diagnose` and with the
diagnosis (the default), on each workload, alternating, best of several runs each, and prints
the overhead in wall time and in CPU time (all threads of the process). On a shared machine
the CPU figure is the steadier one: other processes inflate wall time at random.
Workloads: the demo traffic of templates/traffic (when generated) and the
diagnosis test workloads (planted timestamp, profile in the system prompt, scrambled
sections, clean RAG, multi-turn chat, single-shot).

In-process runs after a warm-up leave out interpreter start-up and reuse the tokenizer's
memo, so they isolate the diagnosis against the cheapest analyze there is. ``--cli`` times
what a user runs instead: a fresh ``advisor analyze`` process each time (start-up, reading,
rendering and tokenizing included), its wall time and the CPU time of the child.

Run: `.venv/bin/python bench/diagnose_bench.py [--repeat N] [--cli]`. Writes bench/results-diagnose.json
(bench/results-diagnose-cli.json with --cli).
"""

from __future__ import annotations

import argparse
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

from tests.diagnose import workloads as W  # noqa: E402

# The script's folder is on sys.path: one way to time an in-process command for both benches.
from diagnose_zoo import run  # noqa: E402

TARGET = 0.50


def run_analyze(path: Path, diagnose: bool, cli: bool = False) -> tuple[float, float, dict]:
    """Wall seconds, CPU seconds and the JSON output of one `advisor analyze` run."""
    args = ["analyze", str(path), "--format", "json"] + ([] if diagnose else ["--no-diagnose"])
    return run_process(args) if cli else run(args)


def run_process(args: list[str]) -> tuple[float, float, dict]:
    """One `advisor` process: its wall time and its CPU time (user + system of the child)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "advisor", *args], capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"advisor {' '.join(args)} failed (exit {done.returncode}): {done.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, json.loads(done.stdout)


def workloads(folder: Path) -> list[tuple[str, Path]]:
    made = {
        "timestamp": W.timestamp_chat(600, True),
        "profile": W.profile_chat(600, True),
        "scrambled": W.scrambled(600, False),
        "clean-rag": W.clean_rag(600),
        "multi-turn": W.clean_multiturn(60, 10),
        "single-shot": W.single_shot(600),
    }
    out = []
    for name, records in made.items():
        path = folder / f"{name}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        out.append((name, path))
    demo = ROOT / "templates" / "traffic"
    for path in sorted(demo.glob("*.jsonl")):
        out.append((f"demo/{path.stem}", path))
    return out


def main_bench() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cli", action="store_true", help="time fresh `advisor analyze` processes")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, path in workloads(Path(tmp)):
            run_analyze(path, False, args.cli)  # warm the tokenizer and the page cache
            base = [float("inf"), float("inf")]
            diag = [float("inf"), float("inf")]
            for _ in range(args.repeat):
                for flag, best in ((False, base), (True, diag)):
                    wall, cpu, data = run_analyze(path, flag, args.cli)
                    best[0], best[1] = min(best[0], wall), min(best[1], cpu)
            rows.append({"workload": name, "requests": data["requests"], "prompt_tokens": data["prompt_tokens"],
                         "analyze_s": round(base[0], 4), "analyze_with_diagnosis_s": round(diag[0], 4),
                         "overhead_wall": round(diag[0] / base[0] - 1, 4),
                         "analyze_cpu_s": round(base[1], 4), "analyze_with_diagnosis_cpu_s": round(diag[1], 4),
                         "overhead_cpu": round(diag[1] / base[1] - 1, 4),
                         "findings": [f["code"] for f in data["findings"]]})
    wall = sum(r["analyze_with_diagnosis_s"] for r in rows) / sum(r["analyze_s"] for r in rows) - 1
    cpu = sum(r["analyze_with_diagnosis_cpu_s"] for r in rows) / sum(r["analyze_cpu_s"] for r in rows) - 1
    print(f"{'workload':<22}{'requests':>9}{'tokens':>11}{'wall s':>8}{'+diag':>8}{'over':>8}"
          f"{'cpu s':>8}{'+diag':>8}{'over':>8}  findings")
    for r in rows:
        print(f"{r['workload']:<22}{r['requests']:>9,}{r['prompt_tokens']:>11,}{r['analyze_s']:>8.3f}"
              f"{r['analyze_with_diagnosis_s']:>8.3f}{r['overhead_wall']:>8.1%}{r['analyze_cpu_s']:>8.3f}"
              f"{r['analyze_with_diagnosis_cpu_s']:>8.3f}{r['overhead_cpu']:>8.1%}  {','.join(r['findings']) or '-'}")
    worst = max(rows, key=lambda r: r["overhead_cpu"])
    overhead = cpu
    print(f"\ndiagnosis adds {cpu:.1%} CPU time ({wall:.1%} wall time) to analyze over all workloads; worst "
          f"workload {worst['workload']} +{worst['overhead_cpu']:.1%} CPU. Target at most {TARGET:.0%}: "
          f"{'met' if overhead <= TARGET else 'NOT met'} (CPU), {'met' if wall <= TARGET else 'NOT met'} (wall)")
    result = {"target": TARGET, "overhead_cpu": round(cpu, 4), "overhead_wall": round(wall, 4),
              "worst": worst["workload"], "worst_overhead_cpu": worst["overhead_cpu"], "rows": rows,
              "cpus": os.cpu_count(), "load_average": os.getloadavg()}
    result["mode"] = "cli" if args.cli else "in-process"
    name = "results-diagnose-cli.json" if args.cli else "results-diagnose.json"
    (ROOT / "bench" / name).write_text(json.dumps(result, indent=2) + "\n")
    return 0 if overhead <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main_bench())
