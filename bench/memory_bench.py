"""Peak memory of `advisor analyze` and `advisor simulate` on a 10k-request RAG log, beside peer tools.

Generates (deterministically) a RAG log of OpenAI chat-completions records in the shape of
templates/traffic/rag_tools.jsonl: one of 6 system prompts (~600 tokens, Zipf-like
popularity), 3-5 of a pool of 600 retrieved passages (popular ones retrieved more often), a
question of its own; ~2.2k Llama 3 tokens a request (1.1k-3.2k), 70.6 MB for 10,000
requests. The peers read the same requests converted to their input: prompt-cache-doctor and
prefixcash the records with an OpenAI ``usage`` block, llmtrafficlens a gateway CSV
(``request_json``/``response_json``), kvcache-simulator the 16-token block hashes that
`advisor export --format mooncake` writes of it. Each command runs as a child process; the
table gives its wall time and peak RSS (``wait4``: the child and the children it waited for).

Run: .venv/bin/python bench/memory_bench.py [--requests 10000] [--peer-venv DIR] [--slow]
     .venv/bin/python bench/memory_bench.py --no-peers --advisor-root /path/to/other/checkout  # before/after
The peers are not project dependencies (kvcache-simulator is a test one); install them apart:
     python3 -m venv /tmp/peervenv && /tmp/peervenv/bin/pip install llmtrafficlens prefixcash prompt-cache-doctor
Each peer counts once in the median, by its analysis of the log (prefixcash by `report`;
its `diagnose`, with --slow, takes minutes).

Figures of the recorded run (2026-12-05; 2 cores shared with other work, children at nice 5;
peak RSS is steady from run to run within ~2 MiB, wall time is not). "before" is the tree
before issue 37's memory work (advisor analyze held the tokenizer, the requests' packed ids
and the diagnosis' own tree all at once, up to the end):

    command                          wall s   peak RSS MiB   before: wall s   peak RSS MiB
    advisor analyze                    10.5          116.2             10.7          189.9
    advisor analyze -f json            10.9          115.7              8.4          190.0
    advisor analyze --no-diagnose       8.3          113.3              9.3          157.0
    advisor simulate                    8.7          117.6              9.8          149.9
    advisor simulate -f json            6.6          119.1              9.1          150.0
    pcd analyze (prompt-cache-doctor 0.2.0)       0.6   111.7
    prefixcash report (prefixcash 0.2.1)          0.7    23.3
    prefixcash diagnose (not counted)           136.0   702.8
    llmtrafficlens profile (0.13.4)               8.2   274.8
    kvcache-simulator run (0.1.3, C++ core)       8.8   149.0
    peers' median (4 peers)                             130.3   advisor: 0.87-0.91x (before: 1.15-1.46x)

Where it went: the tokenizer (Llama 3's ranks as a Python dict, ~19 MiB, and tiktoken's
native maps, ~33 MiB) is let go once the last request is tokenized; `analyze` sets each
tokenized request aside on disk (its packed ids and small fields, not its text:
advisor/ingest/spill.py) and builds the radix tree and the diagnosis from there, so the tree
grows into the tokenizer's memory instead of beside it; the diagnosis' own tree is freed
once its requests are in (a radix tree's nodes point at their parents: only the cycle
collector frees one, and it is now called at those points). Both passes now peak near
115 MiB: ~40 MiB of interpreter and imports (typer's option parsing alone brings in pydantic,
~11 MiB), the tokenizer or the tree (~42 MiB of packed ids: 11.0M distinct tokens), the
tokenizer memo and the diagnosis' kept requests (~10 MiB). The same collection between
replays takes `simulate --capacity-tokens 2000000 --eviction branch-lru,block-lru,lfu
--sweep` on this log from 716 MiB to 590-608 MiB.

On the peers' own kind of file, Mooncake's conversation trace (12,031 requests of 512-token
block hashes): advisor analyze 98.0 MiB and simulate 100.5 MiB (before: 102.6, 103.2),
llmtrafficlens profile --format mooncake 106.1, kvcache-simulator run 59.3. advisor loads
the Llama 3 tokenizer there although no record has text (~53 MiB of the 98).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REQUESTS = 10_000
SYSTEM_PROMPTS = 6
PASSAGES = 600
START = 1_796_000_000.0  # 2026-11-29 UTC, seconds
MODEL = "gpt-4o-mini"

# Words of the generated prose: common English and a seeded technical vocabulary, so that a
# BPE tokenizer cuts it about as it cuts documentation (~4.5 characters a token).
_COMMON = (
    "the of and to a in is it that for on with as are be this by at or from an not can your you "
    "when which if all each one its more than only after before into other set use used uses run "
    "runs data query table tables value values time number first new same most any some both per "
    "also then these those there their must may should does do default limit limits size sizes "
    "user users account accounts region regions cluster clusters node nodes storage cost costs "
    "request requests error errors setting settings console command file files key keys role "
    "roles policy policies access team teams plan plans support service services version "
    "release releases schedule job jobs pipeline pipelines stream streams partition partitions "
    "warehouse warehouses credit credits billing minute minutes second seconds hour hours day days"
).split()
_SYLLABLES = ("ka", "lo", "ven", "dri", "str", "ion", "mar", "tel", "qu", "ex", "pla", "nor", "vi", "sel",
              "ta", "cor", "gra", "mul", "pen", "tro", "zi", "bal", "fen", "os", "ur", "wex", "dal", "ny")


def _vocabulary(rng: random.Random) -> list[str]:
    terms = {"".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4))) for _ in range(1500)}
    return _COMMON * 6 + sorted(terms)


def _sentence(rng: random.Random, words: list[str]) -> str:
    ws = [rng.choice(words) for _ in range(rng.randint(8, 22))]
    if rng.random() < 0.2:
        ws.insert(rng.randrange(len(ws)), f"`{rng.choice(words)}_{rng.choice(words)} = {rng.randint(1, 900)}`")
    return " ".join(ws).capitalize() + "."


def _paragraph(rng: random.Random, words: list[str], sentences: tuple[int, int]) -> str:
    return " ".join(_sentence(rng, words) for _ in range(rng.randint(*sentences)))


def generate(path: Path, requests: int = REQUESTS, seed: int = 0) -> int:
    """Write a RAG chat-completions log (the shape of templates/traffic/rag_tools.jsonl) to ``path``.

    ``SYSTEM_PROMPTS`` system prompts (~600 tokens, Zipf-like popularity), then 3-5 of a pool
    of ``PASSAGES`` retrieved passages (~150-350 tokens, popular ones retrieved more often,
    numbered in retrieval order), then a question of its own: ~1-3k tokens a request. Same
    seed, same bytes; returns the file's size.
    """
    rng = random.Random(seed)
    words = _vocabulary(rng)
    systems = []
    for i in range(SYSTEM_PROMPTS):
        rules = "\n".join(f"- {_sentence(rng, words)}" for _ in range(rng.randint(10, 16)))
        systems.append(f"You are Atlas {i + 1}, the documentation assistant of the Corvina data platform.\n\n"
                       f"# How to answer\n\n{rules}\n\n# Sources\n\n{_paragraph(rng, words, (6, 10))}")
    passages = []
    for i in range(PASSAGES):
        title = " ".join(rng.choice(words) for _ in range(rng.randint(3, 7))).capitalize()
        body = "\n\n".join(_paragraph(rng, words, (3, 5)) for _ in range(rng.randint(1, 3)))
        passages.append(f"{title}\n{body}\n\nLast reviewed: 2026-{1 + i % 12:02d}-{1 + i % 28:02d}.")
    sys_weights = [1 / (i + 1) for i in range(SYSTEM_PROMPTS)]
    tenants = ("acme", "globex", "initech", "umbrella")
    t = START
    with path.open("w", encoding="utf-8") as out:
        for i in range(requests):
            s = rng.choices(range(SYSTEM_PROMPTS), weights=sys_weights)[0]
            picked: list[int] = []
            for _ in range(rng.randint(3, 5)):
                p = min(int(PASSAGES * rng.random() ** 2.5), PASSAGES - 1)
                if p not in picked:
                    picked.append(p)
            docs = "\n\n".join(f"[{n + 1}] {passages[p]}" for n, p in enumerate(picked))
            question = _sentence(rng, words)[:-1] + f" (case {i + 1}, {rng.choice(words)})?"
            t += rng.expovariate(5.0)
            record = {"id": f"rag-{i + 1:05d}", "timestamp": round(t, 3), "tenant": tenants[s % len(tenants)],
                      "output_length": rng.randint(80, 600),
                      "messages": [{"role": "system", "content": systems[s]},
                                   {"role": "user", "content": f"Retrieved documents:\n\n{docs}\n\nQuestion: {question}"}]}
            out.write(json.dumps(record) + "\n")
    return path.stat().st_size


def _usage(record: dict, seen: set[str]) -> dict:
    """An OpenAI response's usage block for ``record``: ~4 characters a token, the system prompt
    cached (in 128-token steps from 1,024, as OpenAI's cache reports it) once seen before."""
    system, user = (m["content"] for m in record["messages"])
    prompt = (len(system) + len(user)) // 4
    cached = (len(system) // 4) // 128 * 128 if system in seen else 0
    seen.add(system)
    return {"prompt_tokens": prompt, "completion_tokens": record["output_length"],
            "total_tokens": prompt + record["output_length"],
            "prompt_tokens_details": {"cached_tokens": cached if cached >= 1024 else 0}}


def peer_inputs(log: Path, folder: Path, advisor: list[str]) -> dict[str, Path]:
    """The log in each peer's input format (same requests, same order).

    usage.jsonl: each record plus ``model`` and an OpenAI ``usage`` block (prompt-cache-doctor,
    prefixcash). gateway.csv: a gateway log, the request body in ``request_json`` and the
    response's usage in ``response_json`` (llmtrafficlens). mooncake.jsonl: 16-token block
    hashes of the llama3-tokenized prompts, written by `advisor export` (kvcache-simulator).
    """
    paths = {"usage": folder / "usage.jsonl", "csv": folder / "gateway.csv", "mooncake": folder / "mooncake.jsonl"}
    seen: set[str] = set()
    with log.open(encoding="utf-8") as src, paths["usage"].open("w", encoding="utf-8") as usage, \
            paths["csv"].open("w", encoding="utf-8", newline="") as gateway:
        rows = csv.writer(gateway)
        rows.writerow(["timestamp", "model_name", "status_code", "request_json", "response_json"])
        for line in src:
            record = json.loads(line)
            u = _usage(record, seen)
            usage.write(json.dumps({**record, "model": MODEL, "usage": u}) + "\n")
            body = {"model": MODEL, "messages": record["messages"], "max_tokens": 1024}
            response = {"object": "chat.completion", "model": MODEL, "usage": u}
            rows.writerow([record["timestamp"], MODEL, 200, json.dumps(body), json.dumps(response)])
    subprocess.run([*advisor, "export", str(log), "--format", "mooncake", "--block-size", "16", "--salt", "memory-bench",
                    "--output", str(paths["mooncake"])], check=True, stdout=subprocess.DEVNULL)
    return paths


def measure(argv: list[str], env: dict[str, str] | None = None, cwd: Path | None = None) -> tuple[float, float, int]:
    """Run a child (stdout discarded); return (wall seconds, peak RSS MiB, exit code). The peak
    is ``wait4``'s ``ru_maxrss``: the largest resident set of the child or of any descendant it
    waited for (kvcache-simulator's C++ core, advisor's render worker)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            env={**os.environ, "ADVISOR_NO_PROGRESS": "1", **(env or {})},
                            cwd=cwd, preexec_fn=lambda: os.nice(5))
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        print(f"{' '.join(argv)}: exit {code}\n{err.decode(errors='replace')[-2000:]}", file=sys.stderr)
    return wall, usage.ru_maxrss / 1024, code


def advisor_runs(log: Path, root: Path | None) -> list[tuple[str, list[str], dict[str, str]]]:
    """(label, argv, environment) of the advisor commands measured; ``root``: another checkout's
    package folder to run instead of this one (a before/after comparison)."""
    env = {"PYTHONPATH": str(root)} if root is not None else {}
    advisor = [sys.executable, "-m", "advisor"]
    return [(f"advisor {label}", advisor + args, env) for label, args in (
        ("analyze", ["analyze", str(log)]),
        ("analyze -f json", ["analyze", str(log), "-f", "json"]),
        ("analyze --no-diagnose", ["analyze", "--no-diagnose", str(log)]),
        ("simulate", ["simulate", str(log)]),
        ("simulate -f json", ["simulate", str(log), "-f", "json"]),
    )]


# One command a peer counts with (its analysis of the log), and others shown beside it.
PEERS = (
    # (peer, label, counted, executable, arguments: {log}, {usage}, {csv}, {mooncake}, {out})
    ("prompt-cache-doctor", "pcd analyze", True, "pcd", ["analyze", "{usage}", "--model", MODEL]),
    ("prefixcash", "prefixcash report", True, "prefixcash", ["report", "--file", "{usage}"]),
    ("prefixcash", "prefixcash diagnose", False, "prefixcash", ["diagnose", "--file", "{usage}"]),
    ("llmtrafficlens", "llmtrafficlens profile", True, "llmtrafficlens", ["profile", "{csv}", "-o", "{out}/ltl"]),
    ("kvcache-simulator", "kvcache-simulator run", True, "kvcache-simulator",
     ["run", "--trace", "{mooncake}", "--model", "llama-3.1-8b", "--block-size", "16", "--no-progress"]),
)


def _executable(name: str, venvs: list[Path]) -> Path | None:
    for venv in venvs:
        path = venv / "bin" / name
        if path.exists():
            return path
    found = shutil.which(name)
    return Path(found) if found else None


def peer_runs(inputs: dict[str, Path], folder: Path, venvs: list[Path],
              slow: bool) -> list[tuple[str, str, bool, list[str]]]:
    """(peer, label, counted, argv) of each peer found installed."""
    runs = []
    values = {k: str(v) for k, v in inputs.items()} | {"out": str(folder)}
    for peer, label, counted, name, args in PEERS:
        if label == "prefixcash diagnose" and not slow:
            continue  # ~3 minutes and 700 MiB on the default log: --slow
        exe = _executable(name, venvs)
        if exe is None:
            print(f"({peer}: `{name}` not found; pip install {peer} into --peer-venv)", file=sys.stderr)
            continue
        runs.append((peer, label, counted, [str(exe), *(a.format(**values) for a in args)]))
    return runs


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--requests", type=int, default=REQUESTS)
    ap.add_argument("--folder", type=Path, default=None, help="Where to write the log and the peers' inputs (default: a temp folder).")
    ap.add_argument("--peer-venv", type=Path, action="append", default=None,
                    help="A virtualenv holding the peers (repeatable; default /tmp/peervenv and this interpreter's).")
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument("--slow", action="store_true", help="Also prefixcash diagnose (minutes).")
    ap.add_argument("--advisor-root", type=Path, default=None,
                    help="Run advisor from this folder (one holding an advisor/ package: another checkout, for before/after).")
    ap.add_argument("--repeat", type=int, default=1, help="Runs of each command; the table shows the lowest peak.")
    ap.add_argument("--json", type=Path, default=None, help="Also write the figures here.")
    args = ap.parse_args()
    folder = args.folder or Path(tempfile.mkdtemp(prefix="advisor-memory-"))
    folder.mkdir(parents=True, exist_ok=True)
    log = folder / f"rag-{args.requests}.jsonl"
    size = generate(log, args.requests)
    print(f"log: {log} ({args.requests:,} requests, {size / 1e6:,.1f} MB)", flush=True)
    runs: list[tuple[str, str, bool, list[str], dict[str, str]]] = [
        ("advisor", label, False, argv, env) for label, argv, env in advisor_runs(log, args.advisor_root)]
    if not args.no_peers:
        venvs = args.peer_venv or [Path("/tmp/peervenv"), Path(sys.executable).parent.parent]
        inputs = peer_inputs(log, folder, [sys.executable, "-m", "advisor"])
        runs += [(peer, label, counted, argv, {}) for peer, label, counted, argv in peer_runs(inputs, folder, venvs, args.slow)]
    rows = []
    print(f"{'command':<32} {'wall s':>8} {'peak RSS MiB':>13}", flush=True)
    for who, label, counted, argv, env in runs:
        # (In the log's folder: llmtrafficlens writes its hash key where it runs.)
        got = [measure(argv, env, cwd=folder) for _ in range(max(1, args.repeat))]
        wall, rss, code = min(got, key=lambda g: g[1])
        rows.append({"tool": who, "command": label, "counted": counted, "wall_s": round(wall, 1),
                     "peak_rss_mib": round(rss, 1), "exit": code})
        print(f"{label:<32} {wall:>8.1f} {rss:>13.1f}{'' if code in (0, 1) else f'  (exit {code})'}", flush=True)
    counted = [r["peak_rss_mib"] for r in rows if r["counted"] and r["exit"] in (0, 1)]
    if counted:
        median = statistics.median(counted)
        print(f"{'peers median (' + str(len(counted)) + ' peers)':<32} {'':>8} {median:>13.1f}")
        for r in rows:
            if r["tool"] == "advisor":
                print(f"  {r['command']:<30} {r['peak_rss_mib'] / median:.2f}x the peers' median")
    if args.json:
        args.json.write_text(json.dumps({"requests": args.requests, "bytes": size, "rows": rows}, indent=2) + "\n")
    if args.folder is None:
        shutil.rmtree(folder, ignore_errors=True)
    return 0 if all(r["exit"] in (0, 1) for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
