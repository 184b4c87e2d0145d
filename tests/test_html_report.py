"""The interactive HTML report, opened in a real browser (headless Chromium, Debian's package).

The pages are written by the commands (``report``, ``analyze`` and ``prescribe`` with
``--format html``), each beside the same command's ``--format json``. Chromium loads each file offline (the page's
Content-Security-Policy forbids any fetch) and dumps the DOM after the scripts ran; its log on
stderr carries the page's console. Checked: no console message at all, the page's own ready
marker, every ``data-key`` figure against the JSON, the charts drawn, the same bytes from two
builds, and untrusted text shown as text without running anything.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from array import array
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import DEMO_TRAFFIC, ROOT

CHROMIUM = Path("/usr/bin/chromium")
PAYLOAD = "</script><img src=x onerror=alert(1)>"
# The same injection with an effect the DOM would show, had it run.
MARKED = "<img src=x onerror=\"document.body.setAttribute('data-pwned','1')\">"
# What Chromium prints on stderr for a console message of the page (any level) with
# --enable-logging=stderr --v=0, e.g. `[..:INFO:CONSOLE:3] "text", source: file:///... (3)`
# (test_console_detector_sees_a_planted_error keeps it honest for the installed version).
CONSOLE = re.compile(r":CONSOLE[:(]")


def chromium() -> Path:
    if CHROMIUM.is_file():
        return CHROMIUM
    message = ("headless Chromium not found at /usr/bin/chromium: install Debian's package "
               "(apt-get install -y chromium)")
    if os.environ.get("CI"):
        pytest.fail(message + "; .ci/run installs it before the tests")
    pytest.skip(message)


@dataclass
class Loaded:
    dom: str
    console: list[str]


def browse(pages: dict[str, Path], profile: Path) -> dict[str, Loaded]:
    """Load each page in its own headless Chromium, all at once; the DOM after the scripts
    ran (the virtual time budget lets plotly's promises settle) and the console lines."""
    exe = chromium()
    procs = {}
    for name, page in pages.items():
        args = [str(exe), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                f"--user-data-dir={profile / name}", "--enable-logging=stderr", "--v=0",
                "--virtual-time-budget=15000", "--dump-dom", page.resolve().as_uri()]
        procs[name] = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = {}
    for name, proc in procs.items():
        dom, err = proc.communicate(timeout=180)
        lines = err.decode("utf-8", "replace").splitlines()
        out[name] = Loaded(dom.decode("utf-8"), [line for line in lines if CONSOLE.search(line)])
    return out


class Dom(HTMLParser):
    """What the tests read off a dumped DOM (scripts stripped first): the data-key figures,
    the text, the img elements and the body's attributes."""

    def __init__(self, dom: str) -> None:
        super().__init__(convert_charrefs=True)
        self.figures: list[tuple[str, str, str]] = []
        self.text: list[str] = []
        self.images = 0
        self.body: dict[str, str | None] = {}
        self._open: list[Any] = []
        self.feed(re.sub(r"<script\b.*?</script>", "", dom, flags=re.S | re.I))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "img":
            self.images += 1
        if tag == "body":
            self.body = a
        if "data-key" in a:
            self._open.append([a["data-key"], a.get("data-format"), ""])

    def handle_endtag(self, tag: str) -> None:
        if self._open and tag in ("div", "span"):
            key, how, text = self._open.pop()
            self.figures.append((key, how, text))

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._open:
            self._open[-1][2] += data


def at(data: dict[str, Any], path: str) -> Any:
    for part in path.split("."):
        data = data[part]
    return data


# --- the pages ---------------------------------------------------------------------------------

def rich_traffic(folder: Path) -> tuple[Path, Path]:
    """A small traffic set with findings (a clock value opening the system prompt, sections
    in two orders), tenants, and untrusted text in messages, tenant names and a template."""
    static = ("You are Quill, the support assistant of Ledgerly, a bookkeeping service. Answer in short "
              "paragraphs, name menus exactly as they appear, and never ask for card numbers. ") * 6
    sections = ["## Refunds\nRefunds go back to the original card within five business days.",
                "## Exports\nExports are CSV or XLSX files sent to the account owner's email.",
                "## Payouts\nPayouts arrive on the second business day after a payment settles."]
    records = []
    for i in range(24):
        clock = f"2026-03-0{1 + i % 3} 1{i % 10}:{(i * 7) % 60:02d}:{(i * 13) % 60:02d}"
        order = sections if i % 2 == 0 else sections[::-1]
        system = f"Current time: {clock}\n\n{static}\n\n" + "\n\n".join(order)
        user = f"Question {i}: how do I export my invoices? {PAYLOAD}\u2028{MARKED} thanks"
        records.append({"id": f"r{i}", "timestamp": 1_700_000_000 + 2.5 * i,
                        "tenant": f"team\u2028{PAYLOAD}" if i % 3 == 0 else "plain",
                        "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}]})
    traffic = folder / "rich.jsonl"
    traffic.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    templates = folder / "templates"
    templates.mkdir()
    (templates / "quill.j2").write_text(f"Current time: {{{{ now }}}}\n{PAYLOAD}\u2028{MARKED}\n\n{static}\n\n"
                                        "Question: {{ question }}\n", encoding="utf-8")
    return traffic, templates


def report(templates: list[str], traffic: list[Path], views: bool = True) -> dict[str, Any]:
    from advisor.advise import ReportOptions, build
    from advisor.ingest.source import SkipLog

    return build(templates, traffic, ReportOptions(views=views), SkipLog())


def command_pages(folder: Path, name: str, args: list[str]) -> tuple[Path, dict[str, Any], dict[str, Any]]:
    """``advisor <args> --format html`` written to a file, and ``--format json`` of the same run:
    the page, the data embedded in it and the JSON report a script would read."""
    page = folder / f"{name}.html"
    run = [sys.executable, "-m", "advisor", *args]
    made = subprocess.run([*run, "--format", "html", "--output", str(page)], capture_output=True, text=True,
                          cwd=ROOT, timeout=600)
    assert made.returncode == 0, made.stderr
    printed = subprocess.run([*run, "--format", "json", "--output", "-"], capture_output=True, text=True,
                             cwd=ROOT, timeout=600)
    assert printed.returncode == 0, printed.stderr
    return page, embedded(page), json.loads(printed.stdout)


def embedded(page: Path) -> dict[str, Any]:
    opening = '<script type="application/json" id="advisor-data">'
    payload = page.read_text(encoding="utf-8").split(opening, 1)[1].split("</script>", 1)[0]
    return json.loads(payload)["data"]


@dataclass
class Rich:
    folder: Path
    traffic: Path
    templates: Path
    data: dict[str, Any]


@dataclass
class Built:
    data: dict[str, Any]   # what the page embeds (the JSON report and its views)
    kind: str
    path: Path
    loaded: Loaded | None = None
    json_report: dict[str, Any] | None = None  # the same command's --format json


@pytest.fixture(scope="module")
def rich(tmp_path_factory) -> Rich:
    folder = tmp_path_factory.mktemp("html")
    traffic, templates = rich_traffic(folder)
    return Rich(folder, traffic, templates, report([str(templates)], [traffic]))


@pytest.fixture(scope="module")
def built(rich) -> dict[str, Built]:
    chromium()
    folder = rich.folder
    commands = {
        "rag": ("report", ["report", "templates", "--traffic", str(DEMO_TRAFFIC / "rag_templated.jsonl")]),
        "rich": ("report", ["report", str(rich.templates), "--traffic", str(rich.traffic)]),
        "analysis": ("analysis", ["analyze", str(rich.traffic)]),
        "prescription": ("prescription", ["prescribe", str(rich.traffic)]),
    }
    pages = {}
    for name, (kind, args) in commands.items():
        path, data, printed = command_pages(folder, name, args)
        pages[name] = Built(data, kind, path, json_report=printed)
    # The rich report again, with a probe that works the page as a reader would.
    probe = folder / "probe.html"
    probe.write_text(pages["rich"].path.read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"), encoding="utf-8")
    pages["probe"] = Built(pages["rich"].data, "report", probe)
    loaded = browse({name: page.path for name, page in pages.items()}, folder / "profiles")
    for name, page in pages.items():
        page.loaded = loaded[name]
    return pages


# Clicks the tenants table's "requests" header twice and picks the last finding of the divergence
# explorer, writing what the page shows after each into body attributes.
PROBE = """<script>
(function () {
  var table = document.querySelector('[data-table="tenants"]');
  var header = table.tHead.rows[0].cells[1];
  function order() {
    return Array.prototype.map.call(table.tBodies[0].rows, function (r) { return r.cells[1].getAttribute("data-sort"); }).join(",");
  }
  header.click();
  document.body.setAttribute("data-probe-up", order());
  header.click();
  document.body.setAttribute("data-probe-down", order());
  var pick = document.querySelector(".finding-select");
  pick.value = String(pick.options.length - 1);
  pick.dispatchEvent(new Event("change"));
  document.body.setAttribute("data-probe-note", document.querySelector(".finding-message").textContent);
})();
</script>
"""


# --- the browser -------------------------------------------------------------------------------

def test_console_detector_sees_a_planted_error(tmp_path) -> None:
    chromium()
    page = tmp_path / "planted.html"
    page.write_text("<!DOCTYPE html><html><body><script>console.error('planted error');</script>"
                    "<script>throw new Error('planted exception');</script></body></html>", encoding="utf-8")
    loaded = browse({"planted": page}, tmp_path)["planted"]
    assert any("planted error" in line for line in loaded.console), loaded.console
    assert any("planted exception" in line for line in loaded.console), loaded.console


@pytest.mark.parametrize("name", ["rag", "rich", "analysis", "prescription"])
def test_page_loads_offline_without_console_messages(built, name) -> None:
    page = built[name]
    assert page.loaded is not None
    assert page.loaded.console == []
    dom = Dom(page.loaded.dom)
    assert dom.body.get("data-ready") == "1", "the page's script did not finish drawing"
    assert dom.body.get("data-charts") == str(page.loaded.dom.count('data-chart="'))


@pytest.mark.parametrize("name", ["rag", "rich", "analysis", "prescription"])
def test_every_headline_figure_equals_the_json(built, name) -> None:
    from advisor.report.html import HEADLINES

    page = built[name]
    assert page.loaded is not None and page.json_report is not None
    # The page embeds the command's JSON report as it is, plus the views it draws.
    assert {k: v for k, v in page.data.items() if k != "views"} == page.json_report
    figures = Dom(page.loaded.dom).figures
    expected = [key for key, _, _ in HEADLINES[page.kind] if _get(page.json_report, key) is not None]
    if page.kind == "report":
        expected += ["decision", "engine"]
    assert sorted(k for k, _, _ in figures) == sorted(expected)
    for key, how, text in figures:
        value = at(page.json_report, key)
        if how == "pct":
            assert re.fullmatch(r"-?\d+\.\d%", text), (key, text)
            assert abs(float(text[:-1]) - value * 100) <= 0.05 + 1e-9, (key, text, value)
        elif how == "int":
            assert int(text.replace(",", "")) == value, (key, text, value)
        else:
            assert text == str(value), (key, text, value)


def _get(data: dict[str, Any], path: str) -> Any:
    try:
        return at(data, path)
    except (KeyError, TypeError):
        return None


def test_tables_sort_and_the_explorer_switches_findings(built) -> None:
    page = built["probe"]
    assert page.loaded is not None and page.loaded.console == []
    body = Dom(page.loaded.dom).body
    tenants = page.data["traffic"]["tenants"]
    counts = sorted(str(t["requests"]) for t in tenants.values())
    assert body["data-probe-up"] == ",".join(sorted(counts, key=int))
    assert body["data-probe-down"] == ",".join(sorted(counts, key=int, reverse=True))
    shown = [d for d in page.data["views"]["divergence"] if d["pairs"]]
    assert body["data-probe-note"] == shown[-1]["message"]


def test_the_charts_are_drawn(built) -> None:
    for name in ("rag", "rich"):
        page = built[name]
        assert page.loaded is not None
        dom = page.loaded.dom
        assert 'data-chart="icicle"' in dom and 'class="iciclelayer"' in dom, name
        assert 'data-chart="capacity"' in dom and 'class="trace scatter' in dom, name
        assert dom.count('class="main-svg"') >= 4, name
    # The divergence explorer, the sortable tenants table and the lint excerpts of the rich set.
    dom = built["rich"].loaded.dom  # type: ignore[union-attr]
    assert 'class="finding-select"' in dom and '<mark class="diff">' in dom
    assert 'data-table="tenants"' in dom and 'class="excerpt"' in dom
    assert built["rich"].data["views"]["divergence"][0]["pairs"][0]["after"]["shared_tokens"] > \
        built["rich"].data["views"]["divergence"][0]["pairs"][0]["shared_tokens"]


def test_untrusted_text_is_shown_as_text_and_runs_nothing(built) -> None:
    # Where each page shows it: the tenant names (report, analysis), the template excerpt
    # (report) and the requests decoded after the rewrite (prescription).
    shown = {"rich": [f"team\u2028{PAYLOAD}", f"{PAYLOAD}\u2028{MARKED}"], "analysis": [f"team\u2028{PAYLOAD}"],
             "prescription": [MARKED]}
    for name, texts in shown.items():
        page = built[name]
        assert page.loaded is not None
        dom = Dom(page.loaded.dom)
        assert dom.images == 0 and "data-pwned" not in dom.body, name
        for text in texts:
            assert text in "".join(dom.text), (name, text)
    # The file itself: one JSON element, nothing in it a parser could read as markup.
    source = built["rich"].path.read_text(encoding="utf-8")
    opening = '<script type="application/json" id="advisor-data">'
    assert source.count(opening) == 1
    payload = source.split(opening, 1)[1].split("</script>", 1)[0]
    assert not set(payload) & {"<", ">", "&", "\u2028", "\u2029"}
    assert json.loads(payload)["data"]["traffic"]["tenants"] == built["rich"].data["traffic"]["tenants"]
    assert "Content-Security-Policy" in source and "default-src 'none'" in source
    skeleton = re.sub(r"<script\b.*?</script>", "", source, flags=re.S)
    assert "src=" not in skeleton and "href=" not in skeleton and "<link" not in skeleton  # nothing to fetch


# --- determinism, views off, bounds ------------------------------------------------------------

def test_same_input_same_bytes_and_views_leave_the_report_unchanged(rich) -> None:
    from advisor.report.advisory import to_json
    from advisor.report.html import to_html

    again = report([str(rich.templates)], [rich.traffic])
    assert to_html(again, "report").encode() == to_html(rich.data, "report").encode()
    plain = report([str(rich.templates)], [rich.traffic], views=False)
    assert "views" not in plain
    assert to_json(plain) == to_json({k: v for k, v in rich.data.items() if k != "views"})


def test_tree_view_keeps_a_bounded_tree_with_its_ancestors() -> None:
    from advisor.findings import Finding
    from advisor.index.analyze import Analyzer
    from advisor.index.tree_view import divergence_examples, tree_view
    from advisor.ingest.traffic import Request

    def seq(line: int, ids: list[int]):
        from advisor.ingest.pipeline import Sequence

        return Sequence(Request("t.jsonl", line, "input_ids"), "tokens", array("I", ids), len(ids), 1)

    shared = list(range(100, 140))
    seqs = [seq(k + 1, shared + [k % 5, 7, 8, 9] + list(range(200 + k, 210 + k))) for k in range(30)]
    analysis = Analyzer(1).add_all(seqs)
    decode = lambda ids: " ".join(map(str, ids))  # noqa: E731
    full = tree_view(analysis, decode, seqs)
    assert len(full["nodes"]) == full["total_nodes"] == analysis.trees["tokens"].num_nodes - 1
    small = tree_view(analysis, decode, seqs, max_nodes=4)
    nodes = small["nodes"]
    assert 1 <= len(nodes) <= 4
    ids = {n["id"] for n in nodes}
    assert all(n["parent"] is None or (n["parent"] in ids and n["parent"] < n["id"]) for n in nodes)
    top = nodes[0]
    assert (top["tokens"], top["requests"], top["depth"]) == (40, 30, 40)
    assert top["reuse"] == round(29 / 30, 6)
    assert top["labels"] == ["t.jsonl:1", "t.jsonl:2", "t.jsonl:3", "t.jsonl:4"]
    assert tree_view(analysis, decode, seqs) == full  # deterministic
    # The divergence pairs part at token 40, the rewrite shown beside them.
    finding = Finding(code="TR101", kind="datetime", token_offset=40, requests=30, tokens_lost=1, message="m")
    moved = [seq(s.request.line, shared + [7, 8, 9, s.request.line % 5]) for s in seqs]
    examples = divergence_examples(analysis, seqs, decode, [finding], moved)
    pair = examples[0]["pairs"][0]
    assert pair["shared_tokens"] == 40 and pair["a"]["at"] == 40
    assert pair["a"]["token"] != pair["b"]["token"]
    assert pair["after"]["shared_tokens"] == 43 and pair["after"]["changed"] == [True, True]
    assert len(examples[0]["pairs"]) == 2 and pair["aligned_from"] == 0
    # A finding behind an earlier one (token 10 parts every request first): pairs that agree
    # on the tokens before its offset and part at it.
    behind = [seq(k + 1, list(range(10)) + [1000 + k] + list(range(20, 60)) + [100 + k % 3, 5, 6]) for k in range(9)]
    later = Finding(code="TR201", kind="section-order", token_offset=51, requests=9, tokens_lost=1, message="m")
    found = divergence_examples(Analyzer(1).add_all(behind), behind, decode, [later])[0]["pairs"]
    assert [(p["a"]["label"], p["b"]["label"]) for p in found] == [("t.jsonl:1", "t.jsonl:2"), ("t.jsonl:1", "t.jsonl:3")]
    assert all(p["shared_tokens"] == 10 and p["aligned_from"] == 27 and p["a"]["at"] == 51 for p in found)
    assert found[0]["a"]["token"] == "100" and found[0]["b"]["token"] == "101"


def test_script_json_escapes_what_could_end_the_element() -> None:
    from advisor.report.html import script_json

    text = script_json({"b": f"{PAYLOAD}\u2028\u2029&", "a": float("nan")})
    assert text.startswith('{"a":null,"b":')
    assert not set(text) & {"<", ">", "&", "\u2028", "\u2029"}
    assert json.loads(text) == {"a": None, "b": f"{PAYLOAD}\u2028\u2029&"}


def test_the_page_does_not_import_plotly() -> None:
    code = ("import sys; from advisor.report.html import to_html; "
            "page = to_html({'requests': 1, 'hit_rate': 0.5}, 'analysis'); "
            "assert 'plotly' not in sys.modules, 'plotly imported'; assert len(page) > 1_000_000")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_the_marked_token_is_whole_characters_where_bpe_splits_one() -> None:
    """Byte-level BPE spells an emoji in 2-4 tokens: the explorer's marked token is widened to
    whole characters, and the first differing character is a real one."""
    from advisor.api import analyze

    static = "You are the concierge of Hotel Aurora. " * 30
    emoji = ["🏨", "🛎", "🧳", "🌅", "🍳", "🛏", "🏊", "🚪"]
    rows = [{"prompt": static + f"Guest badge: 🏨{emoji[i % 8]}{emoji[i * 3 % 8]} №{i}. " + " Please answer politely and in detail about the amenities. " * 10}
            for i in range(24)]
    shown = analyze(rows, views=True).data["views"]["divergence"]
    pairs = [p for d in shown for p in d["pairs"]]
    assert pairs
    for pair in pairs:
        a, b = pair["a"], pair["b"]
        for side in (a, b):
            assert "\ufffd" not in side["token"] and "\ufffd" not in side["before"][-8:], side
        rest_a, rest_b = a["token"] + a["after"], b["token"] + b["after"]
        k = a["first_char"]
        assert rest_a[:k] == rest_b[:k] and rest_a[k] != rest_b[k]
