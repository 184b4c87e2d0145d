"""Hardening figures (issue 15): every bad-input case under an address-space limit, its wall
time, CPU time and peak memory; the same output on an idle and a loaded machine; the cost
of rendering templates in the worker process.

Each case runs ``advisor`` in a fresh process under ``RLIMIT_AS`` (what ``ulimit -v`` sets)
of 500 MB; the worker inherits it and lowers its own. Targets: each case ends within 10 s
with a skipped line or a one-line error, the good records counted, peak RSS under 500 MB.

    .venv/bin/python bench/hardening_bench.py            # all cases
    .venv/bin/python bench/hardening_bench.py --quick    # skip the loaded-machine run
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
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.robustness.test_os_limits import OS_CASES  # noqa: E402

LIMIT = 500 * 1000 * 1000
GOOD = '{"prompt": "You are a careful assistant. Answer briefly and cite the manual. Question: hello"}\n'


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))


def run(argv: list[str], cwd: Path, stdin: bytes | None = None) -> dict:
    """One advisor process (and its worker) under the limit: wall, CPU, peak RSS, outcome."""
    script = ("import resource, subprocess, sys, time\n"
              "t = time.perf_counter()\n"
              "p = subprocess.run(sys.argv[1:], capture_output=True, preexec_fn=" + _limit.__name__ + ")\n"
              "w = time.perf_counter() - t\n"
              "r = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
              "import json\n"
              "print(json.dumps({'code': p.returncode, 'wall': w, 'cpu': r.ru_utime + r.ru_stime,"
              " 'rss_mb': r.ru_maxrss / 1024, 'out': p.stdout.decode(errors='replace'),"
              " 'err': p.stderr.decode(errors='replace')}))\n")
    prelude = (f"import resource\ndef {_limit.__name__}():\n"
               f"    resource.setrlimit(resource.RLIMIT_AS, ({LIMIT}, {LIMIT}))\n")
    cmd = [sys.executable, "-c", prelude + script, sys.executable, "-m", "advisor", *argv]
    env = {**os.environ, "ADVISOR_NO_PROGRESS": "1", "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(cmd, capture_output=True, cwd=cwd, env=env, input=stdin, timeout=300)
    return json.loads(proc.stdout)


def cases(tmp: Path) -> list[tuple[str, list[str]]]:
    templates = tmp / "templates"
    templates.mkdir()
    (templates / "ok.j2").write_text("You are a careful assistant. Question: {{ q }}")
    out = []
    for name, text, _ in OS_CASES:
        (templates / f"{name}.j2").write_text(text)
        traffic = tmp / f"{name}.jsonl"
        traffic.write_text(GOOD + json.dumps({"template": name, "variables": {"q": [1]}}) + "\n" + GOOD)
        out.append((f"template {name}", ["analyze", str(traffic), "--templates", str(templates), "-f", "json"]))
    chat = tmp / "bomb.jinja"
    chat.write_text("{% for m in messages %}{{ ([[m.content]] * 250000)|sum(start=[]) }}{% endfor %}")
    msgs = tmp / "messages.jsonl"
    msgs.write_text(GOOD + json.dumps({"messages": [{"role": "user", "content": "hi"}]}) + "\n")
    out.append(("chat template sum-of-lists", ["analyze", str(msgs), "--chat-template", str(chat), "-f", "json"]))

    deep = tmp / "deep.jsonl"
    args = "{\"a\": " * 1000 + "1" + "}" * 1000
    deep.write_text(GOOD + '{"messages": [{"role": "user", "content": "x"}, {"role": "assistant", "tool_calls": '
                    '[{"function": {"name": "f", "arguments": ' + args + '}}]}]}\n' + GOOD)
    for command in ("analyze", "simulate"):
        out.append((f"{command} 1000-deep arguments", [command, str(deep), "-f", "json"]))
    stamps = tmp / "stamps.jsonl"
    stamps.write_text(GOOD + '{"prompt": "x", "timestamp": 1.7e308}\n'
                      '{"prompt": "y", "timestamp": 1764403200000000, "output_length": 4294967296}\n' + GOOD)
    out.append(("simulate 1.7e308 / 2**32", ["simulate", str(stamps), "-f", "json"]))

    blank = tmp / "blank.jsonl.gz"
    comp = zlib.compressobj(9, zlib.DEFLATED, 31)
    parts = [comp.compress(GOOD.encode())] + [comp.compress(b"\n" * (1 << 20)) for _ in range(830)]
    blank.write_bytes(b"".join(parts) + comp.compress(GOOD.encode()) + comp.flush())
    out.append((f"gzip of 870 MB blank lines ({blank.stat().st_size // 1024} KB)", ["analyze", str(blank), "-f", "json"]))
    out.append(("analyze /dev/zero", ["analyze", "/dev/zero"]))
    out.append(("--chat-template /dev/zero", ["analyze", str(msgs), "--chat-template", "/dev/zero"]))
    out.append(("--config /dev/zero", ["lint", "--config", "/dev/zero", str(templates / "ok.j2")]))

    tree = tmp / "tree"
    tree.mkdir()
    (tree / "ok.j2").write_text("Hello {{ x }}")
    (tree / "zero.j2").symlink_to("/dev/zero")
    os.mkfifo(tree / "fifo.j2")
    out.append(("lint tree with /dev/zero link and FIFO", ["lint", "--isolated", str(tree)]))
    dyn = tmp / "dyn.j2"
    dyn.write_text("".join(f"Section {i}: {{{{ user_{i} }}}} and {{{{ now() }}}}\n" for i in range(6000)))
    out.append((f"lint {dyn.stat().st_size // 1024} KB of dynamic values", ["lint", "--isolated", "--format", "concise", str(dyn)]))
    redos = tmp / "redos"
    redos.mkdir()
    (redos / "cfg.yaml").write_text('section_markers: ["^(a|a)*$"]\n')
    (redos / "t.j2").write_text("Intro\n" + "a" * 40 + "!\n{{ q }}\n")
    out.append(("lint ReDoS section marker", ["lint", "--config", str(redos / "cfg.yaml"), str(redos / "t.j2")]))
    out.append(("--replicas 1000000", ["simulate", str(msgs), "--replicas", "1000000"]))
    out.append(("--workers 100000", ["analyze", str(msgs), "--workers", "100000"]))
    return out


def overhead(tmp: Path) -> dict:
    """Template records through the worker against rendering them in process."""
    code = f"""
import json, sys, time
from pathlib import Path
sys.path.insert(0, {str(ROOT)!r})
from advisor.ingest.source import make_renderer
from advisor.ingest.pipeline import sequences
from advisor.ingest.prompt_templates import TemplateSet
paths = [Path(p) for p in sys.argv[1:]]
def timed(in_process):
    renderer = make_renderer("llama3", None, None, paths)
    if in_process:
        renderer.templates = TemplateSet(sorted({{p.parent for p in paths}} | {{p.parent.parent for p in paths}}))
    best = 1e9
    for _ in range(5):
        t = time.perf_counter()
        n = sum(1 for _ in sequences(paths, renderer, lambda s: None))
        best = min(best, time.perf_counter() - t)
    return best, n
worker, n = timed(False)
local, _ = timed(True)
print(json.dumps({{"records": n, "worker_s": worker, "in_process_s": local}}))
"""
    demo = sorted((ROOT / "templates" / "traffic").glob("*.jsonl"))
    res = {}
    for label, files in (("demo traffic", demo), ("rag_templated x40", None)):
        if files is None:
            big = tmp / "traffic" / "templated.jsonl"
            big.parent.mkdir(exist_ok=True)
            text = (ROOT / "templates" / "traffic" / "rag_templated.jsonl").read_text()
            big.write_text(text * 40)
            for tpl in (ROOT / "templates").glob("*.j2"):
                (tmp / tpl.name).write_text(tpl.read_text())
            for tpl in (ROOT / "templates").glob("*.yaml"):
                (tmp / tpl.name).write_text(tpl.read_text())
            files = [big]
        proc = subprocess.run([sys.executable, "-c", code, *map(str, files)], capture_output=True, text=True,
                              cwd=ROOT, timeout=600)
        res[label] = json.loads(proc.stdout) if proc.returncode == 0 else {"error": proc.stderr[-300:]}
    return res


def loaded_machine(tmp: Path, argv: list[str]) -> bool:
    """The same bytes on an idle and on a loaded machine (two busy loops per core)."""
    idle = run(argv, tmp)
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2 * (os.cpu_count() or 1))]
    try:
        busy = run(argv, tmp)
    finally:
        for h in hogs:
            h.kill()
            h.wait()
    print(f"  idle: {idle['wall']:.1f} s wall, loaded: {busy['wall']:.1f} s wall")
    return idle["out"] == busy["out"] and idle["code"] == busy["code"]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    worst_wall = worst_rss = 0.0
    failed = []
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        print(f"{'case':46} {'exit':>4} {'wall s':>7} {'cpu s':>6} {'peak MB':>8}  outcome")
        for name, argv in cases(tmp):
            r = run(argv, tmp)
            err = [ln for ln in r["err"].splitlines() if ln.strip()]
            outcome = next((ln for ln in err if ":" in ln and "advisor: skipped" not in ln), err[0] if err else "")
            bad = "Traceback" in r["err"] or r["wall"] > 10 or r["rss_mb"] > 500 or r["code"] not in (0, 1, 2)
            if bad:
                failed.append(name)
            worst_wall, worst_rss = max(worst_wall, r["wall"]), max(worst_rss, r["rss_mb"])
            print(f"{name[:46]:46} {r['code']:>4} {r['wall']:7.2f} {r['cpu']:6.2f} {r['rss_mb']:8.0f}  "
                  f"{'FAIL ' if bad else ''}{outcome[-90:]}")
        print(f"worst: {worst_wall:.2f} s wall, {worst_rss:.0f} MB peak RSS (targets 10 s, 500 MB)")
        print("worker overhead (best of 5, whole pipeline):")
        for label, r in overhead(tmp).items():
            if "error" in r:
                print(f"  {label}: {r['error']}")
                continue
            extra = (r["worker_s"] - r["in_process_s"]) * 1e3
            print(f"  {label}: {r['records']} records, in process {r['in_process_s'] * 1e3:.0f} ms, "
                  f"worker {r['worker_s'] * 1e3:.0f} ms ({extra:+.0f} ms)")
        if not args.quick:
            cpu_case = [c for c in cases_cpu(tmp)]
            same = loaded_machine(tmp, cpu_case)
            print(f"loaded machine, CPU-limited template: output {'identical' if same else 'DIFFERENT'}")
            if not same:
                failed.append("loaded machine")
    if failed:
        print("FAILED:", ", ".join(failed))
    return 1 if failed else 0


def cases_cpu(tmp: Path) -> list[str]:
    folder = tmp / "cpu"
    folder.mkdir(exist_ok=True)
    # ~1 s of CPU in Python: under the 2 s limit on any machine, past 2 s of wall time when loaded.
    (folder / "slow.j2").write_text("{% set ns = namespace(n=0) %}{% for i in range(2500000) %}"
                                    "{% set ns.n = ns.n + i %}{% endfor %}{{ ns.n }}")
    (folder / "bomb.j2").write_text(OS_CASES[0][1])
    traffic = folder / "t.jsonl"
    traffic.write_text(GOOD + json.dumps({"template": "slow"}) + "\n" + json.dumps({"template": "bomb"}) + "\n")
    return ["analyze", str(traffic), "--templates", str(folder), "-f", "json"]


if __name__ == "__main__":
    sys.exit(main())
