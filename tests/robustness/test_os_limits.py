"""Templates rendered in the worker process under CPU-time and address-space limits (issue 15).

The payloads here pass every per-operation check of the sandbox and blow up inside ONE C
call (or many small allocations): only the operating system's limits stop them. Each is
one skipped line with its reason, the good records around it count, and the run ends
in bounded time and memory. Speed figures are in bench/hardening_bench.py.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import resource
import signal
import sys
import time
import types

import pytest

from advisor.errors import AdvisorError
from advisor.ingest import render_worker, sandbox
from tests.robustness.conftest import GOOD_LINE, check_stderr, run_with_peak

CPU = "CPU time limit|of CPU time"
# (On a slow machine the CPU budget may run out before the memory does: either stop is right.)
MEMORY = "out of memory|MemoryError|over the 4,000,000 limit|too large|longer than 1 s of CPU time|CPU time limit"

# (name, template, reason) - the cases of issue 15, item 1. The first is one C call of
# ~10 s of CPU time (a sum of 6M integers of 100,000 bits), in 48 MB: only RLIMIT_CPU stops it.
OS_CASES = [
    ("c-call-cpu", "{{ ([(10**1000)**30] * 6000000)|sum > 0 }}", CPU),
    ("sum-of-lists-huge", "{{ ([[1]] * 2500000)|sum(start=[]) }}", MEMORY),
    ("bytes-times", "{{ 'x'.encode() * 10**9 }}", MEMORY),
    ("bytes-doubling", "{% set ns = namespace(b='ab'.encode()) %}{% for i in range(40) %}{% set ns.b = ns.b + ns.b %}{% endfor %}", MEMORY + "|" + CPU),
    ("center-times", "{{ ('a'|center(999999)) * 19 }}", MEMORY),
    ("center-list", "{% set s = 'a'|center(999999) %}{{ ([s] * 20)|join }}", MEMORY),
    # (It grows its output a piece at a time, as bytes-doubling does: on a loaded 2-core
    # machine the page faults on the way to the memory cap can pass the CPU budget first.)
    ("translate", "{{ ('a' * 1000000).translate({97: 'b' * 1000}) }}", MEMORY + "|" + CPU),
    ("tojson-indent", "{{ ([0] * 1000000)|tojson(indent=999999) }}", MEMORY),
    ("indent-many-lines", "{{ ('x\\n' * 5000000)|indent(999999) }}", MEMORY),
    ("indent-string-lines", "{{ ('x\\n' * 1000000)|indent('y' * 1000) }}", MEMORY),
    ("wordwrap-string", "{{ ('a ' * 5000000)|wordwrap(1, wrapstring='x' * 100000) }}", MEMORY + "|" + CPU),
    # (Eight 160 MB lists, each filled a page at a time: under load the page faults on the way
    # to the cap passed 1 s of CPU in one CI run, as the growing cases above do.)
    ("list-stack", "".join(f"{{% set l{i} = [0] * 20000000 %}}" for i in range(8)) + "{{ l0|length }}", MEMORY + "|" + CPU),
]


def _as_limit(limit: int):
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return apply


def test_issue_cases_are_skipped_lines_in_bounded_memory(tmp_path):
    """All cases in one real run under a 1 GiB address-space limit: each a skipped line with
    its reason, the good records counted, no process past 500 MB resident."""
    folder = tmp_path / "templates"
    folder.mkdir()
    lines = [GOOD_LINE]
    for name, text, _ in OS_CASES:
        (folder / f"{name}.j2").write_text(text)
        lines.append(json.dumps({"template": name, "variables": {"q": [1]}}) + "\n")
    lines.append(GOOD_LINE)
    traffic = tmp_path / "traffic.jsonl"
    traffic.write_text("".join(lines))
    start = time.perf_counter()
    proc, peak_kib = run_with_peak(
        [sys.executable, "-m", "advisor", "analyze", str(traffic), "--templates", str(folder), "-f", "json"],
        tmp_path / "peak", capture_output=True, text=True, env={**os.environ, "ADVISOR_NO_PROGRESS": "1"},
        preexec_fn=_as_limit(1 << 30), timeout=300,
    )
    wall = time.perf_counter() - start
    check_stderr(proc.stderr)
    assert proc.returncode == 1, proc.stderr
    data = json.loads(proc.stdout)
    assert data["requests"] == 2 and data["skipped"] == len(OS_CASES)
    for n, (name, _, reason) in enumerate(OS_CASES, start=2):
        [skip] = [ln for ln in proc.stderr.splitlines() if ln.startswith(f"{traffic}:{n}: ")]
        assert str(folder / f"{name}.j2") in skip, skip
        assert re.search(reason, skip), skip
    # The CPU-bound case costs at most the budget plus the grace; the rest are fast.
    assert wall < 60, wall
    assert peak_kib < 500_000, f"peak RSS {peak_kib} KiB"


def test_time_limit_counts_cpu_time_not_wall_time():
    """In the worker the sandbox's clock is CPU time: sleeping (a loaded machine, where the
    process waits for a core) never counts, so the result does not depend on load."""
    try:
        sandbox.use_cpu_clock()
        with sandbox.time_limit(0.3):
            time.sleep(0.6)  # wall time past the limit, no CPU time
        with pytest.raises(sandbox.RenderTimeout, match="of CPU time"):
            with sandbox.time_limit(0.3):
                while True:
                    pass
    finally:
        sandbox.use_wall_clock()


def test_sums_of_lists_are_linear_and_give_what_jinja_gives():
    """The issue's 50-byte template (a sum of 250,000 lists: quadratic, 33 s in one C call)
    renders in linear time, to what Jinja's own filter gives; mixed kinds fail as ``sum`` does."""
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    env = sandbox.LimitedSandbox()
    text = sandbox.render_untrusted(env.from_string("{{ ([[1]] * 250000)|sum(start=[])|length }}"), {})
    assert text == "250000"
    plain = ImmutableSandboxedEnvironment()
    for source in ("{{ [[1], [2, 3]]|sum(start=[0]) }}", "{{ [(1,), (2,)]|sum(start=()) }}", "{{ [1, 2.5]|sum }}",
                   "{{ xs|sum(attribute='a', start=[]) }}", "{{ []|sum(start=[]) }}"):
        variables = {"xs": [{"a": [1]}, {"a": [2]}]}
        assert sandbox.render_untrusted(env.from_string(source), variables) == plain.from_string(source).render(**variables)
    with pytest.raises(AdvisorError, match="can only concatenate list"):
        sandbox.render_untrusted(env.from_string("{{ [[1], (2,)]|sum(start=[]) }}"), {})
    with pytest.raises(AdvisorError, match="sum result is too large"):
        sandbox.render_untrusted(env.from_string("{{ ([[0] * 1000] * 30000)|sum(start=[])|length }}"), {})


def test_worker_is_reused_and_restarted_after_a_kill(tmp_path, cli):
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "ok.j2").write_text("You are a careful assistant. Question: {{ q }}")
    (folder / "bomb.j2").write_text(OS_CASES[0][1])
    records = [{"template": "ok", "variables": {"q": f"question {i}"}} for i in range(150)]
    records.insert(70, {"template": "bomb", "variables": {}})
    traffic = tmp_path / "t.jsonl"
    traffic.write_text("".join(json.dumps(r) + "\n" for r in records))
    before = render_worker.worker_starts()
    res = cli("analyze", traffic, "--templates", folder, "-f", "json")
    check_stderr(res.err)
    assert res.code == 1
    assert json.loads(res.out)["requests"] == 150
    [skip] = [ln for ln in res.err.splitlines() if ln.startswith(f"{traffic}:71: ")]
    assert re.search(CPU + "|" + MEMORY, skip), skip
    # One start for the run at most, one more after the kill (the worker may already run).
    assert render_worker.worker_starts() - before <= 2


def test_chat_template_renders_in_the_worker(tmp_path, cli):
    chat = tmp_path / "chat.jinja"
    chat.write_text("{% for m in messages %}{% if m.content == 'boom' %}{{ ('a' * 1000000).translate({97: 'b' * 1000}) }}"
                    "{% endif %}<{{ m.role }}>{{ m.content }}{% endfor %}")
    traffic = tmp_path / "t.jsonl"
    traffic.write_text(GOOD_LINE
                       + json.dumps({"messages": [{"role": "user", "content": "boom"}]}) + "\n"
                       + json.dumps({"messages": [{"role": "user", "content": "fine"}]}) + "\n")
    res = cli("analyze", traffic, "--chat-template", chat, "-f", "json")
    check_stderr(res.err)
    assert res.code == 1
    assert json.loads(res.out)["requests"] == 2
    [skip] = [ln for ln in res.err.splitlines() if ln.startswith(f"{traffic}:2: ")]
    assert f"{chat}: " in skip and re.search(CPU + "|" + MEMORY, skip), skip


def test_chat_template_that_always_blows_up_skips_its_records_and_the_rest_count(tmp_path, cli):
    chat = tmp_path / "bomb.jinja"
    chat.write_text("{{ ([0] * 1000000)|tojson(indent=999999) }}")
    traffic = tmp_path / "t.jsonl"
    traffic.write_text(GOOD_LINE + json.dumps({"messages": [{"role": "user", "content": "hi"}]}) + "\n")
    res = cli("analyze", traffic, "--chat-template", chat, "-f", "json")
    check_stderr(res.err)
    assert res.code == 1 and json.loads(res.out)["requests"] == 1
    assert re.search(rf"{re.escape(str(traffic))}:2: {re.escape(str(chat))}: .*({CPU}|{MEMORY})", res.err), res.err


@pytest.mark.parametrize("stamp", [1_764_403_200_000_000, 1_764_403_200_000_000_000, 1.7e308])
def test_micro_and_nano_epochs_with_a_chat_template(stamp, tmp_path, cli):
    chat = tmp_path / "date.jinja"
    chat.write_text("{{ strftime_now('%d %b %Y') }}|{% for m in messages %}{{ m.content }}{% endfor %}")
    traffic = tmp_path / "t.jsonl"
    traffic.write_text(GOOD_LINE + json.dumps({"messages": [{"role": "user", "content": "x"}], "timestamp": stamp}) + "\n")
    res = cli("analyze", traffic, "--chat-template", chat, "-f", "json")
    check_stderr(res.err)
    if stamp > 1e19:
        assert res.code == 1 and "out of range" in res.err
    else:
        assert res.code == 0, res.err
        assert json.loads(res.out)["requests"] == 2


def test_nested_variables_past_the_pickle_depth_are_a_skip(tmp_path):
    client = render_worker.RenderClient(render_worker.WorkerConfig(folders=(str(tmp_path),)))
    deep: object = 1
    for _ in range(5000):
        deep = [deep]
    templates = render_worker.RemoteTemplates(client)
    (tmp_path / "t.j2").write_text("{{ v|length }}")
    [result, fine] = templates.render_many([("t", {"v": deep}), ("t", {"v": [1, 2]})])
    assert isinstance(result, AdvisorError) and "nested too deeply" in str(result)
    assert fine.prompt == "2"


@pytest.mark.parametrize("scale,unit", [(1.0, "s"), (1e3, "ms"), (1e6, "us"), (1e9, "ns")])
def test_epoch_units_are_told_apart_by_size(scale, unit):
    from array import array

    from advisor.ingest.chat import clock_for
    from advisor.simulate.inputs import timestamp_scale

    stamps = array("d", [1_764_403_200 * scale, 1_764_403_260 * scale])
    assert timestamp_scale(stamps) * scale == pytest.approx(1.0)
    assert timestamp_scale(stamps, unit) * scale == pytest.approx(1.0)
    assert clock_for(stamps[0]).strftime("%Y-%m-%d %H:%M") == "2025-11-29 08:00"


def test_every_command_renders_untrusted_templates_only_in_the_worker(tmp_path, cli, monkeypatch):
    """In the parent, compiling or rendering a template is made to fail: every command that
    renders prompt templates or a chat template still gives its full result, so none of
    them renders in process (the worker is another process, untouched by the patch)."""
    class RenderedInProcess(BaseException):  # no per-record guard may turn it into a skip
        pass

    def refused(*args, **kwargs):
        raise RenderedInProcess("an untrusted template was rendered in the parent process")

    monkeypatch.setattr(sandbox, "compile_untrusted", refused)
    monkeypatch.setattr(sandbox, "render_untrusted", refused)
    for module in ("advisor.ingest.prompt_templates", "advisor.ingest.chat_template"):
        mod = __import__(module, fromlist=["_"])
        monkeypatch.setattr(mod, "compile_untrusted", refused)
        monkeypatch.setattr(mod, "render_untrusted", refused)
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "ask.j2").write_text("Today is {{ day }}. You are a careful assistant for the manual. Question: {{ q }}")
    chat = tmp_path / "chat.jinja"
    chat.write_text("{% for m in messages %}<|{{ m.role }}|>{{ m.content }}\n{% endfor %}")
    # A date before a long static system prompt: prescribe moves it and renders the rewrites.
    static = " ".join(f"Rule {k}: answer from the manual section {k} and cite it." for k in range(30))
    lines = []
    for i in range(30):
        day = f"2025-11-{i % 28 + 1:02d}"
        lines.append(json.dumps({"template": "ask", "variables": {"day": day, "q": f"q{i}"}, "cached_tokens": 0}))
        lines.append(json.dumps({"messages": [{"role": "system", "content": f"Date: {day}. " + static},
                                              {"role": "user", "content": f"question {i}"}], "cached_tokens": 0}))
    traffic = tmp_path / "t.jsonl"
    traffic.write_text("\n".join(lines) + "\n")
    opts = ["--templates", folder, "--chat-template", chat]
    runs = {
        "analyze": (["analyze", traffic, "-f", "json", *opts], lambda out: json.loads(out)["requests"]),
        "simulate": (["simulate", traffic, "-f", "json", *opts], lambda out: json.loads(out)["input"]["requests"]),
        "prescribe": (["prescribe", traffic, "-f", "json", *opts], lambda out: json.loads(out)["requests"]),
        "render": (["render", traffic, "-f", "json", *opts], lambda out: len(json.loads(out)["records"])),
        "verify": (["verify", traffic, "--engine", "sglang", "-f", "json", *opts], lambda out: json.loads(out)["requests"]),
        "export": (["export", traffic, "-f", "mooncake", "--block-size", "16", *opts], lambda out: len(out.splitlines())),
        "report": (["report", "-t", traffic, "-f", "json", "-o", "-", "--record-templates", folder, "--chat-template", chat],
                   lambda out: json.loads(out)["traffic"]["requests"]),
    }
    for name, (argv, count) in runs.items():
        res = cli(*argv)
        check_stderr(res.err)
        assert res.code == 0, (name, res.err)
        assert count(res.out) == 60, name
        if name == "prescribe":  # the rewritten records were rendered (in the worker) and measured
            assert json.loads(res.out)["hit_rate_after"] > json.loads(res.out)["hit_rate_before"] + 0.5


def test_the_parent_stops_a_record_past_its_cpu_budget(tmp_path, monkeypatch):
    """The parent reads the worker's CPU time while it waits and kills it once the record in
    progress is past the budget and the grace (the worker's own limits stay at 1 s; the
    parent's budget is lowered here, so only its watchdog can stop a ~0.6 s loop)."""
    if not os.path.exists(f"/proc/{os.getpid()}/stat"):
        pytest.fail("this platform has no /proc: the watchdog is off and RLIMIT_CPU is the only stop")
    monkeypatch.setattr(render_worker, "CPU_SECONDS", 0.1)
    monkeypatch.setattr(render_worker, "CPU_GRACE", 0.0)
    (tmp_path / "loop.j2").write_text("{% set ns = namespace(n=0) %}{% for i in range(200) %}{% for j in range(1000) %}"
                                      "{% set ns.n = ns.n + j %}{% endfor %}{% endfor %}{{ ns.n }}")
    (tmp_path / "ok.j2").write_text("fine {{ q }}")
    templates = render_worker.RemoteTemplates(render_worker.RenderClient(render_worker.WorkerConfig(folders=(str(tmp_path),))))
    [stopped, fine] = templates.render_many([("loop", {}), ("ok", {"q": 1})])
    assert isinstance(stopped, AdvisorError) and "CPU time limit (0.1 s) exceeded" in str(stopped), stopped
    assert fine.prompt == "fine 1"  # the worker was started again for the next record


def test_a_stop_at_the_edge_of_the_block_never_escapes_the_limit():
    """The timer can fire while the block is being left (in contextlib's ``__exit__``,
    before the handler is disarmed); that stop must end as ``RenderTimeout`` or as a
    finished block, never as the sandbox's internal BaseException, which escaped with the
    timer still running (seen as an INTERNALERROR of a loaded test run). Budgets of tens of
    microseconds put many stops on that edge: about 1 in 100 escaped before the fix."""
    import time as clock

    outcomes = {"finished": 0, "stopped": 0}
    for i in range(10_000):
        budget = 0.00005 + (i % 13) * 0.00001
        try:
            with sandbox.time_limit(budget):
                end = clock.perf_counter() + budget * (0.9 + (i % 3) * 0.1)
                while clock.perf_counter() < end:
                    pass
            outcomes["finished"] += 1
        except sandbox.RenderTimeout:
            outcomes["stopped"] += 1
    assert outcomes["finished"] + outcomes["stopped"] == 10_000
    assert min(outcomes.values()) > 0  # both ends of the edge were reached
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_a_stop_on_the_way_into_the_block_is_deferred_into_it():
    """A timer that fires before the block has begun (budgets of a few microseconds land in
    contextlib's ``__enter__``, after the generator armed it) must not raise there: the
    exception would leave the ``with`` before its clean-up exists, with the repeating timer
    still armed (a CI run saw it stop an unrelated test a moment later). Every entry must end
    as a finished block or a ``RenderTimeout``, and no timer may outlive the loop."""
    import time as clock

    before = signal.getsignal(signal.SIGALRM)
    outcomes = {"finished": 0, "stopped": 0}
    for i in range(20_000):
        budget = 1e-6 * (1 + i % 20)
        try:
            with sandbox.time_limit(budget):
                end = clock.perf_counter() + 0.0003
                while clock.perf_counter() < end:
                    pass
            outcomes["finished"] += 1
        except sandbox.RenderTimeout:
            outcomes["stopped"] += 1
    assert outcomes["stopped"] > 0
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGALRM) is before


def _frame_running(code):
    return types.SimpleNamespace(f_code=code)


def test_the_handler_defers_on_the_edges_and_stops_inside():
    """The rule itself, called by hand: on ``__enter__`` the handler re-arms a short shot and
    returns; on the way out it returns and leaves the timer to the clean-up; in the block's
    own code it stops the block."""
    enter = contextlib._GeneratorContextManager.__enter__.__code__
    leave = contextlib._GeneratorContextManager.__exit__.__code__
    with pytest.raises(sandbox.RenderTimeout):
        with sandbox.time_limit(30):
            fire = signal.getsignal(signal.SIGALRM)
            fire(signal.SIGALRM, _frame_running(enter))
            assert 0 < signal.getitimer(signal.ITIMER_REAL)[0] <= 0.01  # deferred, not dropped
            signal.setitimer(signal.ITIMER_REAL, 30, 0.1)
            fire(signal.SIGALRM, _frame_running(leave))  # no stop raised on the way out
            fire(signal.SIGALRM, sys._getframe())
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_the_lint_limit_defers_on_the_edges_and_stops_inside():
    """The lint CPU limit follows the same rule, for a due deadline: deferred on an edge,
    raised in the block; a handler that runs after the last limit was left does nothing."""
    from advisor.lint import limits

    enter = contextlib._GeneratorContextManager.__enter__.__code__
    with pytest.raises(limits.LintStopped):
        with limits.cpu_limit(30, "stopped here"):
            fire = signal.getsignal(signal.SIGPROF)
            limits._DEADLINES[-1] = (0.0, "stopped here")  # due now
            fire(signal.SIGPROF, _frame_running(enter))
            assert 0 < signal.getitimer(signal.ITIMER_PROF)[0] <= 0.01
            fire(signal.SIGPROF, sys._getframe())
    assert limits._DEADLINES == []
    fire(signal.SIGPROF, sys._getframe())  # nothing armed, nothing raised
    assert signal.getitimer(signal.ITIMER_PROF) == (0.0, 0.0)
