"""Pipeline targets (issue 7), measured side by side in one run.

- Prefix-heavy chat traffic (a shared ~2.5k-token system prompt and tools, short varied
  questions): `advisor analyze` against tiktoken alone encoding the same rendered
  prompts on all cores. Target: analyze at least 3x faster.
- Unique traffic (nothing shared): target at most 1.2x the tiktoken-alone time.
  The baseline is tiktoken's ``encode_batch`` call alone, timed in a fresh process as
  advisor runs (see ``tiktoken_process``); for context the same call in this warm
  process and tiktoken's whole process (start-up, BPE load, reading the prompts).
- A 1M-request block-hash trace: analyze in under 60 s; peak RSS against tree tokens.
- Peak memory against input size: the same requests repeated 1x, 2x, 4x (tree tokens
  fixed, input growing) must keep peak RSS flat.

Every `advisor analyze` run is a child process, so its peak RSS is its own (wait4).
Writes bench/results.json and prints a table. Run: `make bench`.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from advisor.ingest.chat import Llama3Layout  # noqa: E402
from advisor.ingest.tokenizers import load_tokenizer  # noqa: E402

ADVISOR = [sys.executable, "-m", "advisor"]
ROUNDS = 5
WORDS = (
    "account billing cluster deploy error export failover gateway index invoice latency limit "
    "migration network node outage partition quota region replica retention rollback schema "
    "snapshot storage throughput timeout token upgrade usage warehouse webhook workspace"
).split()


# A small launcher process between us and advisor: on Linux a child's peak RSS starts
# from its parent's at fork, so advisor must be forked from something small.
LAUNCHER = (
    "import os, subprocess, sys\n"
    "p = subprocess.Popen(sys.argv[1:], stderr=subprocess.DEVNULL)\n"
    "_, status, usage = os.wait4(p.pid, 0)\n"
    "sys.stderr.write(f'MAXRSS {usage.ru_maxrss}\\n')\n"
    "sys.exit(os.waitstatus_to_exitcode(status))\n"
)


def run_child(args: list[str]) -> tuple[float, int, str]:
    """Wall seconds, peak RSS in bytes, stdout of one advisor process."""
    env = dict(os.environ, ADVISOR_NO_PROGRESS="1")
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", LAUNCHER, *args], capture_output=True, env=env, cwd=ROOT)
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(args)} exited {proc.returncode}")
    rss_kb = int(proc.stderr.decode().split("MAXRSS ")[1].split()[0])
    return elapsed, rss_kb * 1024, proc.stdout.decode()


def question(rng: random.Random) -> str:
    n = rng.randint(25, 60)
    return "Question: " + " ".join(rng.choice(WORDS) for _ in range(n)) + f" (ref {rng.randrange(10**9)})?"


def system_prompt() -> tuple[str, list[dict]]:
    import yaml

    rag = yaml.safe_load((ROOT / "templates" / "rag_tools.yaml").read_text())
    text = rag["messages"][0]["content"]
    tools = [{"type": "function", "function": {"name": f"tool_{i}", "description": " ".join(WORDS[i:i + 12]),
                                               "parameters": {"type": "object", "properties": {
                                                   w: {"type": "string", "description": f"The {w} to use."}
                                                   for w in WORDS[i:i + 5]}}}} for i in range(6)]
    return text, tools


def write_prefix_heavy(path: Path, n: int) -> list[dict]:
    rng = random.Random(7)
    system, tools = system_prompt()
    records = []
    with path.open("w") as fh:
        for i in range(n):
            rec = {"id": str(i), "messages": [{"role": "system", "content": system},
                                               {"role": "user", "content": question(rng)}], "tools": tools}
            fh.write(json.dumps(rec) + "\n")
            records.append(rec)
    return records


def write_unique(path: Path, n: int) -> list[dict]:
    rng = random.Random(11)
    records = []
    with path.open("w") as fh:
        for i in range(n):
            body = " ".join(f"{rng.choice(WORDS)}{rng.randrange(1000)}" for _ in range(rng.randint(300, 700)))
            rec = {"id": str(i), "messages": [{"role": "user", "content": f"Summarize record {i}: {body}"}]}
            fh.write(json.dumps(rec) + "\n")
            records.append(rec)
    return records


def tiktoken_alone(records: list[dict]) -> tuple[float, int]:
    """The same call in this (warm) process: reported beside the fresh-process figure."""
    tok = load_tokenizer("llama3")
    layout = Llama3Layout()
    texts = [layout.render(r["messages"], r.get("tools")) for r in records]
    start = time.perf_counter()
    ids = tok.tiktoken_encoding.encode_batch(texts, num_threads=os.cpu_count() or 1, allowed_special="all")
    return time.perf_counter() - start, sum(map(len, ids))


TIKTOKEN_PROCESS = (
    "import json, os, sys, time, tiktoken\n"
    "from advisor.ingest.tokenizers import read_ranks, _package_file, LLAMA3_PATTERN\n"
    "ranks = read_ranks(_package_file('llama_models', 'llama3/tokenizer.model', 'llama-models'))\n"
    "specials = {t: len(ranks) + i for i, t in enumerate(json.loads(sys.argv[2]))}\n"
    "enc = tiktoken.Encoding(name='llama3', pat_str=LLAMA3_PATTERN, mergeable_ranks=ranks, special_tokens=specials)\n"
    "texts = json.load(open(sys.argv[1]))\n"
    "start = time.perf_counter()\n"
    "ids = enc.encode_batch(texts, num_threads=os.cpu_count() or 1, allowed_special='all')\n"
    "print(json.dumps({'encode_s': time.perf_counter() - start, 'tokens': sum(map(len, ids))}))\n"
)


def tiktoken_process(texts_path: Path) -> tuple[float, float, int]:
    """tiktoken alone in a fresh process, as advisor runs: (whole process seconds,
    seconds of the ``encode_batch`` call alone, tokens).

    The call alone is the baseline of the targets: tiktoken encoding the rendered prompts
    on all cores, nothing else. It is timed in a fresh process because a process's first
    large encode is slower than its later ones (15-30 % here: the native regex and the
    allocator warm up), and advisor always runs cold; a warm encoder in this parent
    would flatter the baseline. The whole process (start-up, BPE load and reading the
    prompts included) is reported for context."""
    tok = load_tokenizer("llama3")
    specials = sorted(tok.special_tokens, key=tok.special_tokens.__getitem__)
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", TIKTOKEN_PROCESS, str(texts_path), json.dumps(specials)],
                          capture_output=True, check=True, cwd=ROOT)
    wall = time.perf_counter() - start
    out = json.loads(proc.stdout)
    return wall, out["encode_s"], out["tokens"]


def write_hash_trace(path: Path, n: int, repeat: int = 1, seed: int = 3) -> None:
    """Mooncake-shaped: sessions whose turns extend earlier turns, a few hot prefixes."""
    rng = random.Random(seed)
    next_id = 0
    sessions: list[list[int]] = []
    lines = []
    hot = [[next_id + i] for i in range(8)]
    next_id += 8
    for i in range(n):
        if sessions and rng.random() < 0.55:
            base = rng.choice(sessions)
            ids = base + list(range(next_id, next_id + rng.randint(1, 4)))
        else:
            ids = rng.choice(hot) + list(range(next_id, next_id + rng.randint(2, 20)))
        next_id = max(next_id, ids[-1] + 1)
        sessions.append(ids)
        if len(sessions) > 2000:
            sessions.pop(rng.randrange(len(sessions)))
        length = (len(ids) - 1) * 512 + rng.randint(1, 512)
        lines.append(json.dumps({"timestamp": i, "input_length": length, "output_length": 100, "hash_ids": ids}))
    with path.open("w") as fh:
        for _ in range(repeat):
            fh.write("\n".join(lines) + "\n")


def analyze(path: Path, *extra: str) -> tuple[float, int, dict]:
    """One `advisor analyze` child process, start-up and tokenizer load included."""
    seconds, rss, out = run_child(ADVISOR + ["analyze", str(path), "--format", "json", "--top", "0", *extra])
    return seconds, rss, json.loads(out)


def main() -> None:
    results: dict = {"cores": os.cpu_count()}
    with tempfile.TemporaryDirectory() as tmp:
        tmpdir = Path(tmp)
        for name, writer, n in (("prefix_heavy_chat", write_prefix_heavy, 20_000),
                                ("unique_chat", write_unique, 12_000)):
            path = tmpdir / f"{name}.jsonl"
            records = writer(path, n)
            layout = Llama3Layout()
            texts_path = tmpdir / f"{name}.texts.json"
            texts_path.write_text(json.dumps([layout.render(r["messages"], r.get("tools")) for r in records]))
            # Interleaved, best of ROUNDS, and the median of each round's ratio: the
            # machine's two cores are shared with other guests, load comes and goes.
            toks: list[float] = []
            advs: list[float] = []
            procs: list[float] = []
            warm = float("inf")
            for _ in range(ROUNDS):
                seconds, encode_s, tokens = tiktoken_process(texts_path)
                procs.append(seconds)
                toks.append(encode_s)
                seconds, rss, data = analyze(path, "--no-diagnose")
                advs.append(seconds)
                seconds, warm_tokens = tiktoken_alone(records)
                warm = min(warm, seconds)
            del records
            assert data["prompt_tokens"] == tokens == warm_tokens, "advisor and tiktoken saw different prompts"
            t_tok, t_adv, t_proc = min(toks), min(advs), min(procs)
            t_diag, _, _ = analyze(path)
            results[name] = {"requests": n, "prompt_tokens": tokens, "hit_rate": data["hit_rate"],
                             "analyze_s": round(t_adv, 3), "analyze_with_diagnosis_s": round(t_diag, 3),
                             "tiktoken_alone_s": round(t_tok, 3),
                             "tiktoken_alone_warm_s": round(warm, 3),
                             "tiktoken_process_s": round(t_proc, 3),
                             "speedup_vs_tiktoken": round(t_tok / t_adv, 2),
                             "time_ratio_vs_tiktoken": round(t_adv / t_tok, 3),
                             "time_ratio_median_of_rounds": round(statistics.median(a / t for a, t in zip(advs, toks)), 3),
                             "time_ratio_vs_tiktoken_warm": round(t_adv / warm, 3),
                             "time_ratio_vs_tiktoken_process": round(t_adv / t_proc, 3),
                             "rounds": {"analyze_s": [round(x, 3) for x in advs],
                                        "tiktoken_alone_s": [round(x, 3) for x in toks],
                                        "tiktoken_process_s": [round(x, 3) for x in procs]},
                             "peak_rss_mb": round(rss / 2**20, 1)}
        path = tmpdir / "hash_1m.jsonl"
        write_hash_trace(path, 1_000_000)
        seconds, rss, data = analyze(path, "--no-diagnose")
        results["hash_trace_1m"] = {"requests": data["requests"], "input_mb": round(path.stat().st_size / 2**20, 1),
                                    "analyze_s": round(seconds, 2), "tree_tokens": data["tree_tokens"],
                                    "tree_ids": data["tree_tokens"] // 512, "peak_rss_mb": round(rss / 2**20, 1)}
        path.unlink()
        growth = []
        for repeat in (1, 2, 4):
            path = tmpdir / f"hash_x{repeat}.jsonl"
            write_hash_trace(path, 200_000, repeat=repeat)
            seconds, rss, data = analyze(path, "--no-diagnose")
            growth.append({"repeat": repeat, "requests": data["requests"], "input_mb": round(path.stat().st_size / 2**20, 1),
                           "tree_tokens": data["tree_tokens"], "peak_rss_mb": round(rss / 2**20, 1),
                           "analyze_s": round(seconds, 2)})
            path.unlink()
        results["memory_vs_input_size"] = growth
    for name in ("prefix_heavy_chat", "unique_chat"):
        r = results[name]
        print(f"{name:<18} {r['requests']:>7,} req {r['prompt_tokens']:>12,} tok  analyze {r['analyze_s']:6.2f} s  "
              f"tiktoken alone {r['tiktoken_alone_s']:6.2f} s  speed-up {r['speedup_vs_tiktoken']:5.2f}x  "
              f"time ratio {r['time_ratio_vs_tiktoken']:.2f} (median of rounds {r['time_ratio_median_of_rounds']:.2f}; "
              f"{r['time_ratio_vs_tiktoken_warm']:.2f} against a warm encoder, {r['tiktoken_alone_warm_s']:.2f} s; "
              f"{r['time_ratio_vs_tiktoken_process']:.2f} against tiktoken's whole process, {r['tiktoken_process_s']:.2f} s)  "
              f"(with diagnosis {r['analyze_with_diagnosis_s']:.2f} s)  RSS {r['peak_rss_mb']} MB")
    h = results["hash_trace_1m"]
    print(f"hash trace 1M       {h['requests']:,} req ({h['input_mb']} MB)  analyze {h['analyze_s']} s  "
          f"tree ids {h['tree_ids']:,}  RSS {h['peak_rss_mb']} MB")
    for g in results["memory_vs_input_size"]:
        print(f"  input x{g['repeat']}: {g['requests']:,} req, {g['input_mb']} MB in, tree tokens {g['tree_tokens']:,}, "
              f"RSS {g['peak_rss_mb']} MB, {g['analyze_s']} s")
    (ROOT / "bench" / "results.json").write_text(json.dumps(results, indent=2, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
