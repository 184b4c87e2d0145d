"""`advisor plan` and `advisor report` as whole processes (issue 37 targets).

1. `advisor plan --example scrambled --requests 400`: wall seconds and peak RSS of the
   process (target: 5 s and 400 MB). The plan generates the traffic, measures it,
   prescribes, simulates the capacity curve and the engines, and generates the recipe's
   reordered traffic.
2. `advisor report` on the demo traffic (templates/traffic/*.jsonl) against `advisor
   analyze` of the same files: the advisory's cost as a multiple of the measurement alone.

Every run is a child process forked from a small launcher, so its peak RSS is its own
(wait4); each figure is the fastest of ``--rounds`` runs (the machine may be shared) and
the largest peak RSS. Run: .venv/bin/python bench/plan_bench.py [--rounds N] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEMO = sorted((ROOT / "templates" / "traffic").glob("*.jsonl"))
PLAN_SECONDS = 5.0  # issue 37 targets
PLAN_RSS_MB = 400

# On Linux a child's peak RSS starts from its parent's at fork: advisor is forked from this.
LAUNCHER = (
    "import os, subprocess, sys\n"
    "p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
    "_, status, usage = os.wait4(p.pid, 0)\n"
    "sys.stderr.write(f'MAXRSS {usage.ru_maxrss}\\n')\n"
    "sys.exit(os.waitstatus_to_exitcode(status))\n"
)


def run_child(args: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one ``advisor ARGS`` process."""
    env = dict(os.environ, ADVISOR_NO_PROGRESS="1")
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", LAUNCHER, sys.executable, "-m", "advisor", *args],
                          capture_output=True, env=env, cwd=ROOT)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"advisor {' '.join(args)} exited {proc.returncode}")
    rss_kb = int(proc.stderr.decode().split("MAXRSS ")[1].split()[0])
    return elapsed, rss_kb / 1024


def best(args: list[str], rounds: int) -> dict:
    runs = [run_child(args) for _ in range(rounds)]
    return {"command": "advisor " + " ".join(args), "rounds": rounds, "seconds": round(min(s for s, _ in runs), 2),
            "seconds_runs": [round(s, 2) for s, _ in runs], "peak_rss_mb": round(max(m for _, m in runs))}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3, help="runs of each command (the fastest is reported)")
    ap.add_argument("--example", default="scrambled", help="the bundled spec `plan` runs")
    ap.add_argument("--requests", type=int, default=400)
    ap.add_argument("--json", type=Path, help="also write the figures here")
    opts = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="plan-bench-") as tmp:
        out = Path(tmp)
        plan = best(["plan", "--example", opts.example, "--requests", str(opts.requests),
                     "--output", str(out / "plan.md")], opts.rounds)
        traffic: list[str] = []
        for path in DEMO:
            traffic += ["--traffic", str(path)]
        report = best(["report", *traffic, "--output", str(out / "report.md")], opts.rounds)
        analyze = best(["analyze", *map(str, DEMO), "--format", "json"], opts.rounds)
    rows = [
        ("plan", plan, f"{PLAN_SECONDS:g} s, {PLAN_RSS_MB} MB"),
        ("report (demo traffic)", report, f"{report['seconds'] / analyze['seconds']:.1f}x analyze"),
        ("analyze (demo traffic)", analyze, ""),
    ]
    print(f"{'command':<24} {'seconds':>8} {'peak RSS MB':>12}  {'runs (s)':<24} note")
    for name, r, note in rows:
        runs = " ".join(f"{s:.2f}" for s in r["seconds_runs"])
        print(f"{name:<24} {r['seconds']:>8.2f} {r['peak_rss_mb']:>12}  {runs:<24} {note}")
    verdict = ("meets" if plan["seconds"] <= PLAN_SECONDS and plan["peak_rss_mb"] <= PLAN_RSS_MB else "misses")
    print(f"plan {verdict} the target ({PLAN_SECONDS:g} s, {PLAN_RSS_MB} MB)")
    if opts.json:
        opts.json.write_text(json.dumps({"plan": plan, "report": report, "analyze": analyze,
                                         "report_over_analyze": round(report["seconds"] / analyze["seconds"], 2),
                                         "targets": {"plan_seconds": PLAN_SECONDS, "plan_rss_mb": PLAN_RSS_MB}},
                                        indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
