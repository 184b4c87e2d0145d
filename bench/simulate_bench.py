"""Benchmark of `advisor simulate` (issue 4 targets).

1. Replay with eviction at a tight capacity on token-id traffic with 90 % sharing:
   prompt tokens simulated per second (target: at least 2M/s), per eviction policy.
2. A full `--sweep` of 8 capacities over the Mooncake conversation trace, through the
   command (load + 8 replays): seconds (target: under 60 s).

Run: .venv/bin/python bench/simulate_bench.py [--requests N]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from array import array
from pathlib import Path

from advisor.index.radix import pack
from advisor.simulate.model import Job
from advisor.simulate.runner import RunSpec, run

ROOT = Path(__file__).resolve().parents[1]
TRACE = (ROOT / ".." / "shared" / "traces" / "mooncake_fast25" / "conversation_trace.jsonl").resolve()


def sharing_traffic(requests: int, length: int = 2000, shared: float = 0.9, groups: int = 8,
                    seed: int = 0) -> list[Job]:
    """Each request: one of ``groups`` shared prefixes (90 % of it), then unique tokens."""
    rng = random.Random(seed)
    head = int(length * shared)
    prefixes = [array("I", (rng.randrange(128_000) for _ in range(head))) for _ in range(groups)]
    jobs = []
    for i in range(requests):
        ids = array("I", prefixes[rng.randrange(groups)])
        ids.extend(rng.randrange(128_000) for _ in range(length - head))
        jobs.append(Job(i, "tokens", pack(ids), len(ids), 1, float(i), 1, None))
    return jobs


def bench_replay(requests: int) -> list[dict]:
    jobs = sharing_traffic(requests)
    tokens = sum(j.prompt_tokens for j in jobs)
    # Tight: the 8 prefixes (14,400 tokens) do not all fit beside the unique tails.
    capacity = 12_000
    rows = []
    for engine, page, eviction in (("sglang", 1, "branch-lru"), ("sglang", 16, "branch-lru"),
                                   ("vllm", 16, "block-lru"), ("sglang", 1, "lfu"), ("sglang", 1, "fifo")):
        spec = RunSpec(engine=engine, page=page, eviction=eviction, capacity=capacity)
        start = time.perf_counter()
        res = run(jobs, spec)  # a fresh block index: hashing is part of the cost
        seconds = time.perf_counter() - start
        rows.append({"eviction": eviction, "engine": engine, "page": page, "requests": requests,
                     "prompt_tokens": tokens, "capacity_tokens": capacity,
                     "hit_rate": round(res.totals.hit_rate, 4), "evicted_tokens": res.evicted_tokens,
                     "seconds": round(seconds, 3), "tokens_per_s": round(tokens / seconds)})
    return rows


def bench_sweep() -> list[dict]:
    if not TRACE.exists():
        print(f"skip sweep: {TRACE} not found (shared/ beside the repository)", file=sys.stderr)
        return []
    from advisor.cli import main
    import contextlib
    import io

    rows = []
    for eviction in ("branch-lru", "block-lru"):
        buf = io.StringIO()
        start = time.perf_counter()
        with contextlib.redirect_stdout(buf):
            code = main(["simulate", str(TRACE), "--mode", "replay", "--sweep", "--eviction", eviction,
                         "--warmup", "0.5", "--format", "json"])
        seconds = time.perf_counter() - start
        assert code == 0
        points = json.loads(buf.getvalue())["sweep"]
        rows.append({"eviction": eviction, "capacities": len(points), "seconds": round(seconds, 2),
                     "curve": [(p["capacity_tokens"], p["hit_rate"]) for p in points]})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=20_000)
    args = parser.parse_args()
    print("replay with eviction, token ids, 90 % sharing, 2,000-token prompts")
    for r in bench_replay(args.requests):
        print(f"  {r['eviction']:<10} {r['engine']:<6} page {r['page']:<3} hit {r['hit_rate']:.4f}  "
              f"evicted {r['evicted_tokens']:>12,}  {r['seconds']:>6.2f} s  {r['tokens_per_s'] / 1e6:6.2f}M tokens/s")
    print("sweep of 8 capacities over the Mooncake conversation trace (command, incl. loading)")
    for r in bench_sweep():
        print(f"  {r['eviction']:<10} {r['capacities']} capacities  {r['seconds']:6.2f} s")
        for cap, hit in r["curve"]:
            print(f"      {'unlimited' if cap is None else f'{cap:,}':>12}  {hit:.4f}")


if __name__ == "__main__":
    main()
