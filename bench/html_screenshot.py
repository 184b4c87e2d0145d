"""Build the demo's interactive HTML report and save a screenshot of it for the docs.

    .venv/bin/python bench/html_screenshot.py                  # docs/report.png
    .venv/bin/python bench/html_screenshot.py --html /tmp/report.html --traffic templates/traffic/rag_tools.jsonl

The report is the one `make demo` writes (`advisor report templates --traffic ...` over every
templates/traffic/*.jsonl), built through ``advisor.advise.build`` with ``views=True`` and
rendered by ``advisor.report.html.to_html``. Debian's headless Chromium (`apt-get install
chromium`) opens the file offline and saves the top of the page at 1400 x 2400. Prints the
build time and the size of the page.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
         "--virtual-time-budget=15000"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traffic", action="append", type=Path, help="traffic files (default: the demo's)")
    parser.add_argument("--templates", default="templates", help="templates to audit (default: templates)")
    parser.add_argument("--html", type=Path, help="also keep the page here")
    parser.add_argument("--png", type=Path, default=ROOT / "docs" / "report.png")
    parser.add_argument("--window", default="1400,2400", help="the screenshot's width,height")
    args = parser.parse_args(argv)
    if not CHROMIUM.is_file():
        print("headless Chromium is missing: apt-get install -y chromium", file=sys.stderr)
        return 2

    sys.path.insert(0, str(ROOT))
    from advisor.advise import ReportOptions, build
    from advisor.ingest.source import SkipLog
    from advisor.report.html import to_html

    # Paths relative to the checkout, as the Makefile's demo gives them (the page shows them).
    traffic = [p.resolve() for p in args.traffic] if args.traffic else sorted((ROOT / "templates" / "traffic").glob("*.jsonl"))
    traffic = [p.relative_to(ROOT) if p.is_relative_to(ROOT) else p for p in traffic]
    os.chdir(ROOT)
    start, cpu = time.perf_counter(), time.process_time()
    data = build([args.templates], traffic, ReportOptions(views=True), SkipLog())
    built, built_cpu = time.perf_counter() - start, time.process_time() - cpu
    page = to_html(data, "report")
    size = len(page.encode("utf-8"))
    print(f"report built in {built:.1f} s ({built_cpu:.1f} s CPU in this process); page {size:,} bytes "
          f"({size / 2**20:.2f} MiB), {len(data['views']['tree']['nodes']):,} tree nodes")
    with tempfile.TemporaryDirectory() as tmp:
        html = args.html or Path(tmp) / "report.html"
        html.write_text(page, encoding="utf-8")
        args.png.parent.mkdir(parents=True, exist_ok=True)
        cmd = [str(CHROMIUM), *FLAGS, f"--user-data-dir={Path(tmp) / 'profile'}", f"--window-size={args.window}",
               f"--screenshot={args.png.resolve()}", html.resolve().as_uri()]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300)
    print(f"screenshot: {args.png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
