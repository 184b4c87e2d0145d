"""Accuracy of the traffic diagnosis on the parametric held-out set, written to docs/accuracy.md.

  .venv/bin/python bench/accuracy.py                 # every workload (~300, ~15-20 min on 2 cores)
  .venv/bin/python bench/accuracy.py --limit 40      # a deterministic sample of 40

Runs tests/diagnose/param.py (shapes x record kinds x serving setups x positions, plus clean
controls) through bench/diagnose_heldout.py's own checks (``evaluate``: `advisor analyze` and
`advisor prescribe` in subprocesses, compared with the planted truth) and tabulates the results by
shape, setup and record kind. Records are rendered by this checkout in process (what the bench's
``--render local`` does), which is the checkout the advisor runs from.
"""

from __future__ import annotations

import argparse
import datetime as dt
import statistics
import sys
import tempfile
import threading
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable, Sequence

HERE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "bench"))

import diagnose_heldout as bench  # noqa: E402
from diagnose_heldout import Advisor, Row, evaluate, totals  # noqa: E402

from tests.diagnose import param  # noqa: E402
from tests.diagnose.heldout import Engine, Workload  # noqa: E402

OUT = HERE / "docs" / "accuracy.md"


# ---------------------------------------------------------------- running


def chosen_specs(limit: int | None) -> list[param.Spec]:
    """Every spec, or a deterministic sample of ``limit`` spread over shapes, kinds and setups."""
    every = list(param.SPECS.values())
    if not limit or limit >= len(every):
        return every
    picked = set(sorted((s.name for s in every), key=lambda n: zlib.crc32(n.encode()))[:limit])
    return [s for s in every if s.name in picked]


def serialized(render: Callable[[dict[str, Any]], str]) -> Callable[[dict[str, Any]], str]:
    """``render`` one record at a time: the renderer keeps per-record state (the date a template
    prints from the record's time), and evaluate() renders from several threads."""
    lock = threading.Lock()

    def one(record: dict[str, Any]) -> str:
        with lock:
            return render(record)
    return one


def run(specs: Sequence[param.Spec], seed: int, jobs: int, tolerance: int, timeout: float) -> list[Row]:
    adv = Advisor(HERE, sys.executable, timeout)
    rows: dict[str, Row] = {}
    with tempfile.TemporaryDirectory(prefix="accuracy-") as tmp:
        for key, st in param.SETS.items():
            names = [s.name for s in specs if s.setup == st.setup.name]
            if not names:
                continue
            engine = st.local_engine(serialized(param.local_render(st.setup)))
            workloads = st.build_workloads(seed, engine, names)  # rendering stays in this thread
            extra = bench.set_args(st)
            print(f"{key}: {len(workloads)} workloads" + (f", served with {' '.join(extra)}" if extra else ""),
                  file=sys.stderr)

            def one(w: Workload, engine: Engine = engine, extra: tuple[str, ...] = extra) -> Row:
                row = evaluate(w, engine, adv, Path(tmp), tolerance, extra)
                print(f"  {w.name}", file=sys.stderr)
                return row
            with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:  # the work is in advisor subprocesses
                for row in pool.map(one, workloads):
                    rows[row.name] = row
    return [rows[s.name] for s in specs if s.name in rows]


# ---------------------------------------------------------------- figures


def found_all(r: Row) -> bool:
    return bool(r.matched) and all(r.matched)


def found_lenient(r: Row) -> bool:
    return bool(r.matched_lenient) and all(r.matched_lenient)


def gain_promised(r: Row) -> float | None:
    if r.hit_rate_after is None or r.hit_rate_before is None:
        return None
    return r.hit_rate_after - r.hit_rate_before


def frac(k: int, n: int) -> str:
    return f"{k}/{n} ({k / n:.0%})" if n else "-"


def error_cells(rows: Sequence[Row]) -> list[str]:
    errs = [abs(r.error) for r in rows if r.error is not None]
    if not errs:
        return ["-", "-", "-"]
    within = sum(1 for e in errs if e <= bench.ERROR_LIMIT)
    return [frac(within, len(errs)), f"{statistics.median(errs):.3f}", f"{max(errs):.3f}"]


def defect_cells(rows: Sequence[Row]) -> list[str]:
    d = [r for r in rows if r.expect]
    return [str(len(d)), frac(sum(found_all(r) for r in d), len(d)), frac(sum(found_lenient(r) for r in d), len(d)),
            str(sum(1 for r in d if r.false_claims))]


def control_cells(rows: Sequence[Row]) -> list[str]:
    c = [r for r in rows if not r.expect]
    gains = [g for g in (gain_promised(r) for r in c) if g is not None]
    return [str(len(c)), str(sum(1 for r in c if r.false_claims)),
            str(sum(1 for g in gains if g > bench.GAIN_LIMIT)), f"{max(gains):.3f}" if gains else "-"]


def md_table(head: Sequence[str], body: Sequence[Sequence[str]]) -> list[str]:
    return ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|",
            *("| " + " | ".join(row) + " |" for row in body), ""]


def grouped(rows: Sequence[Row], key: Callable[[param.Spec], str], order: Sequence[str]) -> list[tuple[str, list[Row]]]:
    groups: dict[str, list[Row]] = {k: [] for k in order}
    for r in rows:
        groups.setdefault(key(param.SPECS[r.name]), []).append(r)
    return [(k, v) for k, v in groups.items() if v]


def commit_of(root: Path) -> str:
    """The checkout's commit, read from .git's files (no git process)."""
    git = root / ".git"
    try:
        head = (git / "HEAD").read_text().strip()
        if not head.startswith("ref: "):
            return head[:12]
        ref = head[5:]
        if (git / ref).exists():
            return (git / ref).read_text().strip()[:12] + f" ({ref.rsplit('/', 1)[-1]})"
        for line in (git / "packed-refs").read_text().splitlines():
            if line.endswith(" " + ref):
                return line.split()[0][:12] + f" ({ref.rsplit('/', 1)[-1]})"
    except OSError:
        pass
    return "unknown"


def report(rows: Sequence[Row], command: str, tolerance: int, limit: int | None) -> str:
    shapes = [s.name for s in param.SHAPES]
    n_defect = sum(1 for r in rows if r.expect)
    out = [
        "# Diagnosis accuracy on the parametric held-out set",
        "",
        f"Generated {dt.datetime.now(dt.timezone.utc):%Y-%m-%d} on commit {commit_of(HERE)} with",
        "",
        f"    {command}",
        "",
        "## Method",
        "",
        f"`tests/diagnose/param.py` writes each workload as a cross product: {len(param.SHAPES)} defect shapes x "
        f"{len(param.KINDS)} record kinds ({', '.join(param.KINDS)}) x {len(param.SETUPS)} serving setups "
        f"({'; '.join(s.blurb for s in param.SETUPS)}), each shape at the positions that apply to it (start, middle or "
        f"end of the system prompt, in the tools, ahead of the static part of the last user turn; rotated over the "
        f"kind and setup), plus {len(param.CONTROLS)} clean controls per kind and setup. Each workload is 30-60 "
        "requests of a few hundred tokens, in English, German, Turkish or Chinese, seeded.",
        "",
        "For every workload `bench/diagnose_heldout.py`'s `evaluate` runs `advisor analyze` and `advisor prescribe` "
        "(with the setup's `--tokenizer`/`--chat-template`) and compares with the planted truth:",
        "",
        f"- **recall**: every planted defect is reported with the right class (TR101 dynamic, TR201 order, TR104 spelling, the "
        f"placement finding; `a|b` accepts either) within {tolerance} tokens of where requests stop sharing or of "
        "the start of the unit holding it. *Lenient* counts dynamic and placement as one family.",
        f"- **false findings**: a TR101/TR201/placement finding claiming more than {bench.CLAIM_SHARE:.0%} of the "
        f"prompt tokens at no planted defect; on clean controls also a promised gain above {bench.GAIN_LIMIT}.",
        "- **after-fix error**: |prescribe's `hit_rate_after` - truth|, the truth being the brute-force oracle's hit "
        "rate of the hand-fixed traffic (cross-checked against `advisor analyze`).",
        "",
        "The findings are `advisor analyze`'s (the causes `prescribe` names for its canonical order are not counted). "
        "The truth is the hand fix (one order for shuffled content); a value or block that varies per request or per "
        "tenant is written at every place that follows all the static content (the end of the last user turn, after "
        "the user turn's static opening, the end of the system prompt) and the truth is the best place the oracle "
        "measures. A prescription that beats the truth counts its error like a miss: the bench has no "
        "better hand fix to hold it to.",
        "",
        f"{len(rows)} workloads ({n_defect} with defects, {len(rows) - n_defect} clean controls)"
        + (f", a deterministic sample of {limit} of {len(param.SPECS)}." if limit and limit < len(param.SPECS) else "."),
        "",
        "## Totals",
        "",
    ]
    out += md_table(["defect workloads", "recall", "lenient recall", "with extra false finding",
                     "controls", "controls with false finding", "controls promised a gain", "max promised gain",
                     f"error within {bench.ERROR_LIMIT}", "median error", "worst error"],
                    [defect_cells(rows) + control_cells(rows) + error_cells(rows)])
    head = ["workloads", "recall", "lenient recall", "with extra false finding"]
    ehead = [f"error within {bench.ERROR_LIMIT}", "median error", "worst error"]
    out += ["## By shape", ""]
    out += md_table(["shape", "expected", "positions"] + head + ehead,
                    [[k, "+".join(param.SHAPE_BY_NAME[k].expect), ",".join(sorted({param.SPECS[r.name].pos for r in v}))]
                     + defect_cells(v) + error_cells(v) for k, v in grouped([r for r in rows if r.expect],
                                                                            lambda s: s.shape, shapes)])
    chead = ["controls", "with false finding", "promised a gain", "max promised gain"]
    for title, key, order in (("setup", lambda s: s.setup, [s.name for s in param.SETUPS]),
                              ("record kind", lambda s: s.kind, list(param.KINDS))):
        out += [f"## By {title}", ""]
        out += md_table([title] + head + chead + ehead,
                        [[k] + defect_cells(v) + control_cells(v) + error_cells(v) for k, v in grouped(rows, key, order)])
    out += ["## Clean controls", ""]
    out += md_table(["control"] + chead + ehead,
                    [[k] + control_cells(v) + error_cells(v)
                     for k, v in grouped([r for r in rows if not r.expect], lambda s: s.shape, list(param.CONTROLS))])
    out += ["## The bench's own summary", "", "```", *totals(list(rows), tolerance), "```", ""]
    return "\n".join(out)


def read_rows(paths: Sequence[Path], specs: Sequence[param.Spec]) -> list[Row]:
    """The rows of ``specs`` from JSON files of ``diagnose_heldout.py --json``; every spec
    must be there."""
    import json

    got: dict[str, Row] = {}
    for path in paths:
        for raw in json.loads(path.read_text(encoding="utf-8")):
            found = [bench.Found(**f) for f in raw.pop("found")]
            false = [bench.Found(**f) for f in raw.pop("false_claims")]
            raw.pop("error", None)  # (a property of the row, written beside its fields)
            got[raw["name"]] = Row(**raw, found=found, false_claims=false)
    missing = [s.name for s in specs if s.name not in got]
    if missing:
        raise SystemExit(f"--rows: no row for {len(missing)} workloads, e.g. {missing[0]}")
    return [got[s.name] for s in specs]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--limit", type=int, default=None, help="run a deterministic sample of this many workloads")
    ap.add_argument("--jobs", type=int, default=2, help="workloads evaluated at once")
    ap.add_argument("--seed", type=int, default=12)
    ap.add_argument("--tolerance", type=int, default=16)
    ap.add_argument("--timeout", type=float, default=600.0)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--rows", type=Path, nargs="+", default=None,
                    help="report the rows `diagnose_heldout.py --set param* --json FILE` wrote for this checkout "
                         "(the same workloads, the same evaluation) instead of running them again")
    args = ap.parse_args(argv)
    specs = chosen_specs(args.limit)
    rows = read_rows(args.rows, specs) if args.rows else run(specs, args.seed, args.jobs, args.tolerance, args.timeout)
    command = " ".join([".venv/bin/python bench/accuracy.py", *(argv if argv is not None else sys.argv[1:])])
    args.out.write_text(report(rows, command, args.tolerance, args.limit), encoding="utf-8")
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
