"""Huge logs: `advisor analyze` and `advisor simulate` on a JSONL stream of up to ~2 GB.

Generates (deterministically, streamed to disk, never held in memory) a log of token-id
records with realistic sharing, then runs each command as a child process and reports its
wall time and peak RSS (``wait4``), at several sizes, and how RSS grows with the input.

Traffic shape (seeded): 24 system prompts of 120-280 tokens (Zipf-like popularity), then
one of 20,000 retrieved chunks of 30-70 tokens (popular ones repeat), then a unique
40-token question; ~290 tokens, ~1.9 KB a line, so 1M requests are ~1.9 GB.
``--kind text`` writes the same shape as prompt text (tokenized by the commands).

Run: .venv/bin/python bench/huge_log_bench.py [--sizes 20000,60000,200000] [--kind ids|text]
     .venv/bin/python bench/huge_log_bench.py --sizes 100000,300000,1000000   # the 2 GB case

Figures of the recorded runs (2026-11-29; 2 cores shared with other work, children at
nice 5; --kind ids; simulate with --capacity-tokens 2000000, replay mode, branch-LRU, plus
its unlimited-capacity ceiling run). "analyze" is the default run (diagnosis of the first
50,000 requests); "simulate, jobs in memory" is simulate before the job store (461da61),
when every request's packed ids stayed in memory as a job:

    requests     input    command                      wall s   peak RSS MiB
      100,000   188 MB    analyze                        20.6            511
      100,000   188 MB    analyze --no-diagnose           8.5            152
      100,000   188 MB    simulate                        9.7            158
      100,000   188 MB    simulate, jobs in memory       15.6            305
      300,000   564 MB    analyze                        29.7            623
      300,000   564 MB    analyze --no-diagnose          28.2            266
      300,000   564 MB    simulate                       34.1            278
      300,000   564 MB    simulate, jobs in memory       38.9            709
    1,000,000  1.88 GB    analyze                        93.0            976
    1,000,000  1.88 GB    analyze --no-diagnose          98.1            619
    1,000,000  1.88 GB    simulate                      139.8            647
    1,000,000  1.88 GB    simulate, jobs in memory      161.6          2,112

Since token ids are packed as each line is read (issue 15: a request held ~36 bytes an id
as Python ints before, 4 now), the diagnosis no longer costs a fixed ~360 MiB: 2026-12-01,
160,000 requests, 301 MB: analyze 6.6 s and 209 MiB, analyze --no-diagnose 6.0 s and 184 MiB.

Peak RSS grows ~275-300 MiB per GB of input for analyze and now for simulate alike: that
is the radix tree (the ~43 unique tokens a request adds, ~5 B each with its nodes, plus
~100 MiB of interpreter and tokenizer); the bounded diagnosis adds a fixed ~360 MiB.
simulate keeps ~46 B of metadata per request in arrays and its packed ids in an unlinked
temporary file (~1.2 KB a request on disk, read back per run), so its peak is the largest
tree it builds: the unlimited-capacity ceiling, the same tree analyze builds. Time is
linear in the input. With `--policy fcfs,lpm,dfs-weight` (replay orders computed from the
batch's own radix tree, never from the requests in memory): 100,000 requests 25.3 s and
187 MiB, 300,000 requests 78.9 s and 344 MiB.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VOCAB = 128_000
SYSTEM_PROMPTS = 24
CHUNKS = 20_000
QUESTION = 40


def _ids(rng: random.Random, n: int) -> list[int]:
    return [rng.randrange(1, VOCAB) for _ in range(n)]


def generate(path: Path, requests: int, kind: str = "ids", seed: int = 0) -> int:
    """Write ``requests`` records to ``path``; return its size in bytes. Same seed, same bytes."""
    rng = random.Random(seed)
    systems = [_ids(rng, rng.randint(120, 280)) for _ in range(SYSTEM_PROMPTS)]
    chunks = [_ids(rng, rng.randint(30, 70)) for _ in range(CHUNKS)]
    # Popularity: system prompt i with weight 1/(i+1); chunks Zipf-like through a power law.
    sys_weights = [1 / (i + 1) for i in range(SYSTEM_PROMPTS)]
    tails = [_ids(rng, QUESTION - 3) for _ in range(4096)]
    words = None
    if kind == "text":
        words = [f"w{n:x}" for n in range(VOCAB)]
        to_text = lambda ids: " ".join(words[i] for i in ids)  # noqa: E731
        systems_f = [to_text(s) for s in systems]
        chunks_f = [to_text(c) for c in chunks]
        tails_f = [to_text(t) for t in tails]
    else:
        systems_f = [",".join(map(str, s)) for s in systems]
        chunks_f = [",".join(map(str, c)) for c in chunks]
        tails_f = [",".join(map(str, t)) for t in tails]
    sys_pick = rng.choices(range(SYSTEM_PROMPTS), weights=sys_weights, k=min(requests, 1 << 16))
    with path.open("w", encoding="utf-8", buffering=1 << 22) as out:
        for i in range(requests):
            s = systems_f[sys_pick[i % len(sys_pick)] if i >= len(sys_pick) else sys_pick[i]]
            c = chunks_f[min(int(CHUNKS * rng.random() ** 3), CHUNKS - 1)]
            t = tails_f[rng.randrange(len(tails_f))]
            # Three tokens from the request number keep every question unique.
            uniq = (1 + i % 30_000, 1 + (i // 30_000) % 30_000, 1 + rng.randrange(VOCAB - 1))
            if kind == "text":
                u = " ".join(words[x] for x in uniq)
                out.write(json.dumps({"prompt": f"{s}\n{c}\n{t} {u}"}) + "\n")
            else:
                out.write(f'{{"input_ids":[{s},{c},{t},{uniq[0]},{uniq[1]},{uniq[2]}]}}\n')
    return path.stat().st_size


def measure(argv: list[str]) -> tuple[float, float, int]:
    """Run a child; return (wall seconds, peak RSS MiB, exit code)."""
    env = {**os.environ, "ADVISOR_NO_PROGRESS": "1"}
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env,
                            preexec_fn=lambda: os.nice(5))
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        print(err, file=sys.stderr)
    return wall, usage.ru_maxrss / 1024, code


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="20000,60000,200000", help="Requests per run, comma-separated.")
    ap.add_argument("--kind", choices=("ids", "text"), default="ids")
    ap.add_argument("--capacity-tokens", type=int, default=2_000_000, help="simulate's pool.")
    ap.add_argument("--folder", type=Path, default=None, help="Where to write the logs (default: a temp folder).")
    ap.add_argument("--keep", action="store_true", help="Keep the generated logs.")
    ap.add_argument("--commands", default="analyze,analyze-no-diagnose,simulate")
    ap.add_argument("--json", type=Path, default=None, help="Also write the figures here.")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    commands = args.commands.split(",")
    folder = args.folder or Path(tempfile.mkdtemp(prefix="advisor-huge-"))
    folder.mkdir(parents=True, exist_ok=True)
    advisor = [sys.executable, "-m", "advisor"]
    rows = []
    signal.signal(signal.SIGINT, signal.default_int_handler)
    print(f"{'requests':>10} {'bytes':>10} {'command':>20} {'wall s':>8} {'peak RSS MiB':>13} {'gen s':>6}", flush=True)
    try:
        for n in sizes:
            log = folder / f"huge-{args.kind}-{n}.jsonl"
            t0 = time.perf_counter()
            size = generate(log, n, args.kind)
            gen = time.perf_counter() - t0
            for command in commands:
                if command == "analyze":
                    argv = advisor + ["analyze", str(log), "-f", "json"]
                elif command == "analyze-no-diagnose":  # the radix tree alone
                    argv = advisor + ["analyze", str(log), "-f", "json", "--no-diagnose"]
                else:
                    argv = advisor + ["simulate", str(log), "-f", "json", "--capacity-tokens", str(args.capacity_tokens)]
                wall, rss, code = measure(argv)
                rows.append({"requests": n, "bytes": size, "command": command, "wall_s": round(wall, 1),
                             "peak_rss_mib": round(rss), "exit": code})
                print(f"{n:>10,} {size / 1e6:>8,.0f}MB {command:>20} {wall:>8.1f} {rss:>13,.0f} {gen:>6.1f}", flush=True)
            if not args.keep:
                log.unlink()
    finally:
        if not args.keep and args.folder is None:
            for p in folder.glob("huge-*.jsonl"):
                p.unlink()
            folder.rmdir()
    # RSS growth: MiB of peak RSS per extra GB of input, between the smallest and largest size.
    for command in commands:
        pts = [r for r in rows if r["command"] == command]
        if len(pts) >= 2:
            a, b = pts[0], pts[-1]
            slope = (b["peak_rss_mib"] - a["peak_rss_mib"]) / max((b["bytes"] - a["bytes"]) / 1e9, 1e-9)
            print(f"{command}: peak RSS grows {slope:,.0f} MiB per GB of input "
                  f"({a['peak_rss_mib']:,} MiB at {a['bytes'] / 1e6:,.0f} MB, {b['peak_rss_mib']:,} MiB at {b['bytes'] / 1e6:,.0f} MB)")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n")
    return 0 if all(r["exit"] in (0, 1) for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
