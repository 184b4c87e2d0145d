"""Foundation targets (issue 2), measured side by side in one run on this machine.

1. Radix insert+match throughput against a naive per-token dict trie, on prefix-heavy
   token-id traffic (95% shared) and on traffic where half the tokens are new.
2. Tree memory per tree token, node overhead included.
3. `analyze` end to end on text traffic against tiktoken alone encoding the same rendered
   prompts on all cores.

Run: `.venv/bin/python bench/foundation_bench.py` (or `make bench`). Prints a table and
writes bench/results-foundation.json.
"""

from __future__ import annotations

import json
import os
import random
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from advisor.index.analyze import Analyzer  # noqa: E402
from advisor.ingest.chat import Llama3Layout  # noqa: E402
from advisor.ingest.source import SkipLog, open_traffic  # noqa: E402
from advisor.index.radix import RadixTree  # noqa: E402
from advisor.ingest.tokenizers import load_tokenizer  # noqa: E402


def naive_trie(requests: list[list[int]]) -> int:
    """One dict per token: the baseline the issue measures against."""
    root: dict = {}
    total = 0
    for req in requests:
        node = root
        matching = True
        for tok in req:
            nxt = node.get(tok)
            if nxt is None:
                nxt = {}
                node[tok] = nxt
                matching = False
            elif matching:
                total += 1
            node = nxt
    return total


def radix(requests: list[list[int]]) -> tuple[int, RadixTree]:
    tree = RadixTree(1)
    total = 0
    for req in requests:
        total += tree.insert(req)
    return total, tree


def best_of(fn, runs: int = 3):
    best = float("inf")
    out = None
    for _ in range(runs):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def prefix_heavy(n: int, rng: random.Random) -> list[list[int]]:
    # 8 system prompts of ~2,850 tokens; each request adds 150 unique tokens (95% shared).
    systems = [[rng.randrange(128000) for _ in range(2850)] for _ in range(8)]
    return [rng.choice(systems) + [rng.randrange(128000) for _ in range(150)] for _ in range(n)]


def half_new(n: int, rng: random.Random) -> list[list[int]]:
    out: list[list[int]] = []
    for _ in range(n):
        fresh = [rng.randrange(128000) for _ in range(1000)]
        out.append(rng.choice(out)[:1000] + fresh if out else fresh + fresh)
    return out


def tree_bench(name: str, requests: list[list[int]]) -> dict:
    tokens = sum(map(len, requests))
    t_naive, hits_naive = best_of(lambda: naive_trie(requests))
    t_radix, (hits_radix, tree) = best_of(lambda: radix(requests))
    assert hits_naive == hits_radix, "radix and naive trie disagree"
    return {
        "workload": name,
        "tokens": tokens,
        "naive_tokens_per_s": tokens / t_naive,
        "radix_tokens_per_s": tokens / t_radix,
        "ratio": t_naive / t_radix,
        "bytes_per_tree_token": tree.memory_bytes() / tree.total_tokens,
    }


def tracemalloc_bytes_per_token(requests: list[list[int]]) -> float:
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    tree = RadixTree(1)
    for req in requests:
        tree.insert(req)
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    return (after - before) / tree.total_tokens


def analyze_bench(tmp: Path) -> dict:
    """Realistic chat traffic: a ~2.5k-token system prompt and tools, varied questions."""
    tok = load_tokenizer("llama3")
    demo = sorted((ROOT / "templates" / "traffic").glob("*.jsonl"))
    paths = demo
    if not paths:
        raise SystemExit("no demo traffic in templates/traffic (run make traffic)")
    # Repeat the demo traffic to a size where start-up costs vanish.
    big = tmp / "traffic.jsonl"
    lines = [l for p in paths for l in p.read_text().splitlines() if l.strip()]
    with big.open("w") as fh:
        for _ in range(4):
            fh.write("\n".join(lines) + "\n")
    skips = SkipLog(quiet=True)
    start = time.perf_counter()
    analyzer = Analyzer(1)
    result = analyzer.add_all(open_traffic([big], "llama3", None, None, 512, skips))
    t_analyze = time.perf_counter() - start
    # Baseline: the same rendered prompts, tiktoken alone, on every core.
    renderer_texts = []
    layout = Llama3Layout()
    for line in big.read_text().splitlines():
        rec = json.loads(line)
        if "messages" in rec:
            renderer_texts.append(layout.render(rec["messages"], rec.get("tools")))
        elif "prompt" in rec:
            renderer_texts.append("<|begin_of_text|>" + rec["prompt"])
    enc_start = time.perf_counter()
    import tiktoken  # noqa: F401

    encoded = tok.encode_batch(renderer_texts)
    t_tiktoken = time.perf_counter() - enc_start
    text_tokens = sum(map(len, encoded))
    return {
        "requests": result.requests,
        "prompt_tokens": result.prompt_tokens,
        "tiktoken_tokens": text_tokens,
        "analyze_s": t_analyze,
        "tiktoken_all_cores_s": t_tiktoken,
        "ratio": t_analyze / t_tiktoken,
        "cores": os.cpu_count(),
    }


def main() -> None:
    rng = random.Random(0)
    results = {
        "prefix_heavy": tree_bench("prefix-heavy (95% shared)", prefix_heavy(3000, rng)),
        "half_new": tree_bench("half the tokens new", half_new(3000, rng)),
        "tracemalloc_bytes_per_tree_token": tracemalloc_bytes_per_token(prefix_heavy(1000, random.Random(1))),
    }
    with tempfile.TemporaryDirectory() as tmp:
        results["analyze"] = analyze_bench(Path(tmp))
    for key in ("prefix_heavy", "half_new"):
        r = results[key]
        print(f"{r['workload']:<28} naive {r['naive_tokens_per_s'] / 1e6:7.1f}M tok/s  "
              f"radix {r['radix_tokens_per_s'] / 1e6:7.1f}M tok/s  ratio {r['ratio']:5.1f}x  "
              f"{r['bytes_per_tree_token']:.2f} B/tree token")
    print(f"tracemalloc: {results['tracemalloc_bytes_per_tree_token']:.2f} B per tree token (prefix-heavy)")
    a = results["analyze"]
    print(f"analyze {a['requests']:,} requests / {a['prompt_tokens']:,} tokens: {a['analyze_s']:.2f} s; "
          f"tiktoken alone on {a['cores']} cores {a['tiktoken_all_cores_s']:.2f} s; ratio {a['ratio']:.2f}")
    (ROOT / "bench" / "results-foundation.json").write_text(json.dumps(results, indent=2, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
