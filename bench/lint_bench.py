"""Benchmark `advisor lint`: 1,000 generated templates of 100 lines each (target: under 2 s),
and one template of thousands of per-request values at three sizes (target: linear time, the
largest inside the per-file CPU limit).

Run with ``.venv/bin/python bench/lint_bench.py``. It writes the templates to a temporary
folder, lints them the way the CLI does (file walk, parse, all rules, sorting, JSON
rendering) and prints templates/s. The tokenizer is loaded before the clock starts: loading
it is a fixed start-up cost, reported separately.
"""

from __future__ import annotations

import os
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

from advisor.lint import engine, output
from advisor.lint.config import LintConfig
from advisor.rules import REGISTRY

WORDS = (
    "account invoice payment refund policy customer ticket escalate verify summary region "
    "warehouse pipeline schedule billing credit answer cite document tool status limit"
).split()


def make_template(rng: random.Random, index: int) -> str:
    """A realistic prompt: static instructions and sections, tools, docs loop, question last."""
    lines = [f"You are assistant number {index % 7} of the Corvina platform team."]
    sections = ["# Role", "# Tools", "# Policies", "# Style", "# Examples"]
    if index % 10 == 0:
        sections[1], sections[2] = sections[2], sections[1]
    per_section = 17
    for heading in sections:
        lines.append(heading)
        for _ in range(per_section):
            lines.append(" ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 16))) + ".")
        if heading == "# Tools":
            lines[-1] = "{{ tools | tojson }}"
    if index % 25 == 0:
        lines.insert(1, "Current date and time: {{ now }}")
    if index % 33 == 0:
        lines.insert(5, '{% if user.tier == "gold" %}Offer priority support.{% endif %}')
    lines += ["## Context", "{% for doc in documents %}", "[{{ loop.index }}] {{ doc.title }}", "{{ doc.text }}", "{% endfor %}"]
    lines.append("Question: {{ question }}")
    while len(lines) < 100:
        lines.insert(-6, " ".join(rng.choice(WORDS) for _ in range(10)) + ".")
    return "\n".join(lines[:94] + lines[-6:]) + "\n"


def _cpu() -> float:
    # User+system CPU of this process and its finished workers: the machine may be shared,
    # and CPU seconds do not count the time spent waiting for a core.
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    return total


def dynamic_template(sections: int) -> str:
    """Many values, each followed by static text: the shape that was once quadratic."""
    return "".join(f"Section {i}: {{{{ user_{i} }}}} and {{{{ now() }}}}\n" for i in range(sections))


def scaling(counter: object) -> None:
    """CPU seconds of one file at 1,500, 3,000 and 6,000 sections: linear time doubles with
    the size, quadratic quadruples."""
    from advisor.lint import limits

    seconds: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        for sections in (1500, 3000, 6000):
            path = Path(tmp) / f"dyn{sections}.j2"
            path.write_text(dynamic_template(sections), encoding="utf-8")
            c0 = _cpu()
            result = engine.lint_files([str(path)], LintConfig(), REGISTRY, counter, cwd=Path(tmp), parallel=False)
            seconds.append(_cpu() - c0)
            stopped = any("not linted" in f.message for f in result.findings)
            print(f"  {sections:>5} sections ({path.stat().st_size / 1024:,.0f} KB): {seconds[-1]:.3f} CPU-s, "
                  f"{len(result.findings)} findings{' (STOPPED by the CPU limit)' if stopped else ''}")
    growth = seconds[2] / seconds[1] if seconds[1] else float("inf")
    print(f"growth 3,000 -> 6,000: x{growth:.2f} (linear x2, quadratic x4); target: < x3 and "
          f"< {limits.FILE_CPU_SECONDS:g} CPU-s at 6,000:",
          "met" if growth < 3 and seconds[2] < limits.FILE_CPU_SECONDS else "MISSED")


def main(count: int = 1000, parallel: bool | None = None) -> int:
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for i in range(count):
            folder = root / f"set{i // 100:02d}"
            folder.mkdir(exist_ok=True)
            (folder / f"t{i:04d}.j2").write_text(make_template(rng, i), encoding="utf-8")
        t0 = time.perf_counter()
        counter = engine.default_counter("llama3")
        load = time.perf_counter() - t0
        t1, c1 = time.perf_counter(), _cpu()
        result = engine.lint_files([str(root)], LintConfig(), REGISTRY, counter, cwd=root, parallel=parallel)
        text = output.render_json(result.findings, len(result.files), "bench")
        elapsed, cpu = time.perf_counter() - t1, _cpu() - c1
    lines = sum(1 for _ in text.splitlines())
    print(f"linted {len(result.files)} templates of 100 lines in {elapsed:.3f} s "
          f"({len(result.files) / elapsed:,.0f} templates/s); {len(result.findings)} findings; "
          f"tokenizer load {load:.3f} s; report {lines} lines; {cpu:.3f} CPU-s on {os.cpu_count()} cores "
          f"(load average {os.getloadavg()[0]:.2f})")
    print("target: < 2 s:", "met" if elapsed < 2 else "MISSED")
    scaling(counter)
    return 0


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    sys.exit(main(int(args[0]) if args else 1000, parallel=False if "--serial" in sys.argv else None))
