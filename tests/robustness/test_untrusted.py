"""Untrusted templates: sandbox escapes, endless loops and memory bombs are refused or
stopped within a time and memory limit, with a clear one-line reason (analyze with
`template` records and --chat-template) or a finding (lint, which never renders)."""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from pathlib import Path

import pytest

from advisor.errors import AdvisorError
from advisor.ingest.sandbox import LimitedSandbox, compile_untrusted, render_untrusted
from tests.robustness.conftest import GOOD_LINE, check_stderr, run_with_peak

REFUSED = "refused by the sandbox"
STOPPED = "longer than|template stopped"

# (name, template, reason): every payload fails with this reason, fast and in little memory.
PAYLOADS = [
    # escapes
    ("class-mro", "{{ ''.__class__.__mro__[1].__subclasses__() }}", REFUSED),
    ("cycler-globals", "{{ cycler.__init__.__globals__.os.popen('id').read() }}", REFUSED),
    ("joiner-globals", "{{ joiner.__init__.__globals__.os.system('id') }}", REFUSED),
    ("namespace-class", "{{ namespace.__init__.__globals__['os'] }}", REFUSED),
    ("namespace-instance", "{% set ns = namespace(a=1) %}{{ ns.__init__.__globals__['os'] }}", "template error"),
    ("self-reference", "{{ self._TemplateReference__context.cycler.__init__.__globals__.os }}", REFUSED),
    ("lipsum-globals", "{{ lipsum.__globals__['os'].popen('id').read() }}", REFUSED),
    ("attr-filter", "{{ q|attr('__class__')|attr('__mro__') }}", REFUSED + "|template error"),
    ("format-attribute", "{{ '{0.__class__.__mro__}'.format(q) }}", REFUSED),
    ("format-map", "{{ '{a.__class__}'.format_map({'a': q}) }}", REFUSED),
    ("mutation", "{% set l = [1] %}{{ l.append(2) }}", REFUSED),
    ("dict-mutation", "{% set d = {} %}{{ d.update(a=1) }}", REFUSED),
    # time
    ("range-1e9", "{% for i in range(10**9) %}x{% endfor %}", "Range too big"),
    ("range-list", "{{ range(10**9)|list|length }}", "Range too big"),
    ("nested-loops", "{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}", STOPPED),
    ("lipsum-flood", "{{ lipsum(10**9) }}", STOPPED),
    ("recursive-macro", "{% macro m(n) %}{{ m(n + 1) }}{% endmacro %}{{ m(0) }}", STOPPED),
    ("mutual-macros", "{% macro a() %}{{ b() }}{% endmacro %}{% macro b() %}{{ a() }}{% endmacro %}{{ a() }}", STOPPED),
    # memory in one C call
    ("string-times-1e9", "{{ 'a' * 10**9 }}", REFUSED),
    ("string-times-twice", "{{ ('a' * 10**7) * 10 }}", REFUSED),
    ("list-times", "{{ [q] * 10**9 }}", REFUSED),
    # Doubling reaches the size check in well under a second, or the alarm on a loaded machine.
    ("concat-doubling", "{% set ns = namespace(s='ab') %}{% for i in range(64) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}", REFUSED + "|" + STOPPED),
    ("plus-doubling", "{% set ns = namespace(s=[1]) %}{% for i in range(64) %}{% set ns.s = ns.s + ns.s %}{% endfor %}", REFUSED + "|" + STOPPED),
    ("center-filter", "{{ 'a'|center(10**10) }}", REFUSED),
    ("ljust-method", "{{ q.ljust(10**10) }}", REFUSED),
    ("zfill-method", "{{ q.zfill(10**10) }}", REFUSED),
    ("indent-filter", "{{ q|indent(10**9) }}", REFUSED),
    ("printf-width", "{{ '%999999999d' % 1 }}", REFUSED),
    ("printf-star", "{{ '%*d' % (10**9, 1) }}", REFUSED),
    ("format-width", "{{ '{:>999999999}'.format(1) }}", REFUSED),
    ("format-nested-width", "{{ '{0:{1}}'.format(1, 10**9) }}", REFUSED),
    ("format-filter", "{{ '%999999999s'|format(q) }}", REFUSED),
    ("replace-empty", "{{ ('ab' * 1000)|replace('', 'x' * 10**6) }}", REFUSED),
    ("join-range", "{{ range(100000)|join('y' * 1000) }}", REFUSED),
    ("batch-fill", "{{ [1, 2]|batch(10**9, 0)|list }}", REFUSED),
    ("slice", "{{ [1]|slice(10**9)|list }}", REFUSED),
    ("power", "{{ 2 ** 100000 }}", REFUSED),
    ("power-tower", "{{ ((9 ** 1000) ** 1000) ** 1000 }}", REFUSED),
    ("squaring-loop", "{% set ns = namespace(x=3) %}{% for i in range(40) %}{% set ns.x = ns.x * ns.x %}{% endfor %}", REFUSED),
    # memory over many small steps
    ("output-flood", "{% for i in range(100000) %}{{ 'x' * 100000 }}{% endfor %}", REFUSED),
    ("set-block-flood", "{% set s %}{% for i in range(100000) %}{{ 'x' * 100000 }}{% endfor %}{% endset %}{{ s|length }}", REFUSED),
    ("macro-flood", "{% macro m() %}{% for i in range(100000) %}{{ 'x' * 100000 }}{% endfor %}{% endmacro %}{{ m()|length }}", REFUSED),
    # at compile time (constant folding runs code)
    ("folded-filter", "{{ 'a'|center(10000000000) }}", REFUSED),
    ("deep-parse", "{{ " + "(" * 5000 + "1" + ")" * 5000 + " }}", STOPPED + "|RecursionError"),
]


def _render(text: str, seconds: float = 0.5) -> str:
    env = LimitedSandbox()
    template = compile_untrusted(env, text, "payload.j2")
    return render_untrusted(template, {"q": "question"}, seconds=seconds)


@pytest.mark.parametrize("name,text,reason", PAYLOADS, ids=[p[0] for p in PAYLOADS])
def test_payload_is_refused_or_stopped(name, text, reason):
    start = time.perf_counter()
    with pytest.raises(AdvisorError, match=reason) as info:
        _render(text)
    assert time.perf_counter() - start < 3.0
    assert "\n" not in str(info.value)


def test_ordinary_templates_still_render():
    assert _render("{{ q|upper }} {{ '%5s|' % 'ab' }} {{ '{:>4}'.format(1) }} {{ 'x'.center(5) }}") == \
        "QUESTION    ab|    1   x  "
    assert _render("{% set s %}{% for i in range(3) %}{{ i }}{% endfor %}{% endset %}{{ s ~ '!' }}") == "012!"
    assert _render("{% macro m(x) %}<{{ x }}>{% endmacro %}{{ m(1) }}{{ range(3)|join(',') }}") == "<1>0,1,2"
    assert _render("{{ 2 ** 10 }} {{ [1, 2] + [3] }} {{ 'ab' * 2 }} {{ 'a %s b' % q }}") == \
        "1024 [1, 2, 3] abab a question b"


def _limit_memory():
    # 3 GiB of address space: a payload that allocated gigabytes would fail here, not pass.
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))


def test_all_payloads_through_analyze_in_bounded_time_and_memory(tmp_path):
    """A real process under an address-space limit: every payload is one skipped line,
    the good records count, wall time stays near the time limit per endless payload."""
    folder = tmp_path / "templates"
    folder.mkdir()
    lines = [GOOD_LINE]
    for name, text, _ in PAYLOADS:
        (folder / f"{name}.j2").write_text(text)
        lines.append(json.dumps({"template": name, "variables": {"q": "question"}}) + "\n")
    lines.append(GOOD_LINE)
    traffic = tmp_path / "traffic.jsonl"
    traffic.write_text("".join(lines))
    start = time.perf_counter()
    proc, peak_kib = run_with_peak(
        [sys.executable, "-c", "import resource, sys; from advisor.cli import main; sys.exit(main(sys.argv[1:]))",
         "analyze", str(traffic), "--templates", str(folder), "-f", "json"],
        tmp_path / "peak", capture_output=True, text=True, env={**os.environ, "ADVISOR_NO_PROGRESS": "1"},
        preexec_fn=_limit_memory, timeout=120,
    )
    wall = time.perf_counter() - start
    check_stderr(proc.stderr)
    assert proc.returncode == 1, proc.stderr
    data = json.loads(proc.stdout)
    assert data["requests"] == 2
    assert data["skipped"] == len(PAYLOADS)
    endless = sum(1 for _, _, r in PAYLOADS if r.startswith("longer"))
    assert wall < 20 + 2.5 * endless
    assert peak_kib < 1_500_000, f"peak RSS {peak_kib} KiB"


@pytest.mark.parametrize("name,text,reason", [p for p in PAYLOADS if p[0] in
                                               ("cycler-globals", "range-1e9", "string-times-1e9", "output-flood",
                                                "recursive-macro", "format-width")],
                         ids=lambda v: v if isinstance(v, str) and len(v) < 20 else "")
def test_chat_template_payloads_skip_messages_records(name, text, reason, tmp_path, cli):
    chat = tmp_path / "chat.jinja"
    chat.write_text(text + "{% for m in messages %}{{ m.content }}{% endfor %}")
    traffic = tmp_path / "t.jsonl"
    traffic.write_text(GOOD_LINE + json.dumps({"messages": [{"role": "user", "content": "hi"}]}) + "\n" + GOOD_LINE)
    res = cli("analyze", traffic, "--chat-template", chat, "-f", "json")
    check_stderr(res.err)
    assert res.code == 1
    skip = next(ln for ln in res.err.splitlines() if ln.startswith(f"{traffic}:2: {chat}: "))
    import re

    assert re.search(reason.replace("q.", ""), skip), skip
    assert json.loads(res.out)["requests"] == 2


def test_lint_reports_escapes_and_never_runs_payloads(tmp_path, cli):
    marker = tmp_path / "ran"
    for name, text, _ in PAYLOADS:
        (tmp_path / f"{name}.j2").write_text(text.replace("'id'", f"'touch {marker}'"))
    start = time.perf_counter()
    res = cli("lint", "--isolated", "--format", "concise", tmp_path)
    assert time.perf_counter() - start < 30
    check_stderr(res.err)
    assert res.code == 1
    assert not marker.exists()
    flagged = {Path(ln.split(":")[0]).stem for ln in res.out.splitlines() if "private attribute" in ln}
    escapes = {"class-mro", "cycler-globals", "joiner-globals", "namespace-class", "namespace-instance",
               "self-reference", "lipsum-globals"}
    assert escapes <= flagged, flagged
