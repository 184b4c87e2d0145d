"""The interactive HTML report: one self-contained file, a pure function of a command's JSON.

``to_html(data, kind)`` takes the JSON report of ``report``, ``analyze`` or ``prescribe``
(with its ``views`` key: ``advisor.advise.views``) and returns one HTML page that needs
nothing from the network: plotly's offline bundle and the page's own script and style are
inlined, and a Content-Security-Policy forbids every fetch.

Why plotly: its icicle chart draws a prefix tree as it is (a box a token run, zoom by
click), its offline bundle is one file shipped in the ``plotly`` wheel, and the project is
well kept (plotly.js and its Python package release regularly under the MIT licence). Only
that file is read; plotly's Python package is never imported.

Safety: the traffic and the templates are untrusted. All data sits in one
``<script type="application/json">`` element with ``<``, ``>``, ``&``, U+2028 and U+2029
escaped (nothing in it can close the element or open a comment), and the page's script
puts text in the DOM only through ``textContent``. Determinism: keys sorted, no time, no
random id: the same data gives the same bytes.
"""

from __future__ import annotations

import html
import importlib.resources
import importlib.util
import json
import math
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from advisor.errors import AdvisorError

KINDS = ("report", "analysis", "prescription")
TITLES = {"report": "advisor: prefix-cache advisory", "analysis": "advisor: prefix-cache analysis",
          "prescription": "advisor: prefix-cache prescription"}
# No fetch of any kind (scripts, styles, fonts, frames, connections); the inlined script and
# style run; plotly's own images are data: URLs.
CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:"

# The headline figures of each report: JSON path, label, format (pct, int, text). Each is shown
# with a data-key attribute naming its path, formatted from the JSON number.
HEADLINES: dict[str, list[tuple[str, str, str]]] = {
    "report": [
        ("traffic.hit_rate", "hit rate today (SGLang rules)", "pct"),
        ("hit_rate_after_prescription", "hit rate after the prescription", "pct"),
        ("traffic.lcp_hit_rate", "longest-common-prefix hit rate", "pct"),
        ("simulation.at_pool.fcfs.hit_rate", "at the KV pool, FCFS", "pct"),
        ("simulation.at_pool.lpm.hit_rate", "at the KV pool, cache-aware (lpm)", "pct"),
        ("simulation.optimal_at_pool", "at the KV pool, optimal eviction", "pct"),
        ("traffic.requests", "requests", "int"),
        ("traffic.prompt_tokens", "prompt tokens", "int"),
        ("traffic.cached_tokens", "cached tokens (unlimited cache)", "int"),
        ("traffic.shared_prefix_tokens", "hottest shared prefix (tokens)", "int"),
        ("input.model", "model", "text"),
        ("input.gpu", "GPU", "text"),
        ("input.tp", "tensor parallel", "int"),
        ("input.kv_dtype", "KV dtype", "text"),
        ("cost.kv_bytes_per_token", "KV bytes per token", "int"),
        ("cost.kv_pool_tokens", "SGLang KV pool (tokens)", "int"),
    ],
    "analysis": [
        ("hit_rate", "hit rate (unlimited cache)", "pct"),
        ("requests", "requests", "int"),
        ("prompt_tokens", "prompt tokens", "int"),
        ("cached_tokens", "cached tokens", "int"),
        ("prefill_tokens", "prefill tokens", "int"),
        ("tree_tokens", "distinct tokens", "int"),
        ("skipped", "skipped lines", "int"),
    ],
    "prescription": [
        ("hit_rate_before", "hit rate today", "pct"),
        ("hit_rate_after", "hit rate after the prescription", "pct"),
        ("requests", "requests", "int"),
        ("prompt_tokens", "prompt tokens", "int"),
        ("cached_tokens_before", "cached tokens today", "int"),
        ("cached_tokens_after", "cached tokens after", "int"),
        ("not_rewritable_requests", "requests no fix can rewrite", "int"),
    ],
}

PLOTLY_FILE = "package_data/plotly.min.js"
INSTALL_HINT = "pip install 'plotly>=6'"
# What JSON text may hold that would end or confuse a <script> element, or a JavaScript line.
_SCRIPT_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
_SCRIPT_UNSAFE = re.compile("[<>&\u2028\u2029]")


def to_html(data: dict[str, Any], kind: str) -> str:
    """The self-contained interactive page of one command's JSON report (``kind``:
    ``report``, ``analysis`` or ``prescription``)."""
    if kind not in KINDS:
        raise ValueError(f"unknown report kind {kind!r}: one of {', '.join(KINDS)}")
    payload = {"kind": kind, "headline": [list(h) for h in HEADLINES[kind]], "data": data}
    return "".join([
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
        f"<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">\n",  # (a constant: no quote in it)
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n",
        f"<title>{html.escape(TITLES[kind])}</title>\n",
        "<style>\n", _asset("report.css"), "</style>\n",
        "</head>\n<body>\n",
        "<noscript>This report draws itself with JavaScript; the same figures are in the command's "
        "--format json output.</noscript>\n",
        "<main id=\"app\"></main>\n",
        "<script type=\"application/json\" id=\"advisor-data\">", script_json(payload), "</script>\n",
        "<script>\n", _inline_script(plotly_js()), "\n</script>\n",
        "<script>\n", _inline_script(_asset("report.js")), "</script>\n",
        "</body>\n</html>\n",
    ])


def script_json(value: Any) -> str:
    """``value`` as JSON safe inside a ``<script type="application/json">`` element: keys
    sorted, non-finite numbers as null, and ``< > &`` U+2028 U+2029 as \\u escapes (they
    only occur inside JSON strings, where the escape means the same character)."""
    text = json.dumps(_finite(value), sort_keys=True, ensure_ascii=False, separators=(",", ":"),
                      allow_nan=False, default=str)
    return _SCRIPT_UNSAFE.sub(lambda m: _SCRIPT_ESCAPES[m.group()], text)


def _finite(value: Any) -> Any:
    """JSON has no NaN or infinity: they become null (JSON.parse would refuse the page's data)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def _inline_script(code: str) -> str:
    """Script text that cannot end its element early: ``</script`` never appears in it."""
    return re.sub(r"</(script)", r"<\\/\1", code, flags=re.IGNORECASE)


@lru_cache(maxsize=None)
def _asset(name: str) -> str:
    """The page's own script or style (``advisor/report/html/``, shipped as package data)."""
    return importlib.resources.files("advisor.report").joinpath("html").joinpath(name).read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def plotly_js() -> str:
    """plotly.js's offline bundle as the ``plotly`` wheel ships it.

    The package is located without being imported (``find_spec`` of a top-level name runs
    none of its code), and the file read from its folder; a package that is not a folder on
    disk (a zip) is read through ``importlib.resources``, which imports plotly's ``__init__``.
    """
    spec = importlib.util.find_spec("plotly")
    if spec is None:
        raise AdvisorError(f"the HTML report inlines plotly's offline bundle: install it ({INSTALL_HINT})")
    for folder in spec.submodule_search_locations or ():
        path = Path(folder) / PLOTLY_FILE
        if path.is_file():
            return path.read_text(encoding="utf-8")
    try:
        return importlib.resources.files("plotly").joinpath(PLOTLY_FILE).read_text(encoding="utf-8")
    except (OSError, ModuleNotFoundError):
        raise AdvisorError(f"plotly is installed without its offline bundle ({PLOTLY_FILE}): reinstall it "
                           f"({INSTALL_HINT})")
