"""The advisory tells one story (issue 35): one after-fix figure per traffic, the plan's
recipe and the prescription measured on one path, findings worded from what the traffic
shows (a TR201 order by where the orders part; the canonical order ending with what the
requests end with)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.diagnose.detect import first_divergence
from advisor.prescribe.actions import LAST_TURN, last_turn
from advisor.spec.load import parse_spec
from advisor.spec.plan import plan
from advisor.spec.report import to_markdown as plan_markdown

DEMO = Path(__file__).resolve().parents[1] / "templates" / "traffic"

# The RAG description: a clock first, 4 of 350 passages, 1,450 static instruction
# tokens, the question last.
RAG_CLOCK_FIRST = """
name: rag-clock-first
requests: 150
seed: 3
arrival: {rate: 4}
output_tokens: {min: 100, max: 200}
messages:
  - role: system
    sections:
      - {name: clock, tokens: 17, vary: {clock: {resolution_seconds: 1}}}
      - name: passages
        tokens: 300
        vary: {retrieved: {documents: 350, k: 4, popularity: uniform}}
      - {name: instructions, tokens: 1450}
  - role: user
    sections:
      - {name: question, tokens: {min: 30, max: 60}, vary: request}
"""


@settings(max_examples=200, deadline=None)
@given(st.permutations(list("abcdefgh")), st.permutations(list("abcdefgh")), st.integers(1, 50), st.integers(1, 50))
def test_tr201_example_names_where_the_orders_part(a, b, na, nb) -> None:
    if a == b:
        return
    text = first_divergence([([f"tool {x}" for x in a], na), ([f"tool {x}" for x in b], nb)])
    k = next(i for i in range(len(a)) if a[i] != b[i])
    assert text.startswith(f"position {k + 1}, ")
    assert f"tool {a[k]} ({na:,} requests) or tool {b[k]} ({nb:,})" in text
    # Never a whole order: at most the two blocks where they part.
    assert len(re.findall(r"tool \w", text)) == 2


def test_canonical_order_ends_with_what_the_requests_end_with() -> None:
    from advisor.api import prescribe

    data = prescribe([DEMO / "agent_tools.jsonl"]).data
    roles = [r["messages"][-1]["role"] for r in map(__import__("json").loads,
                                                    (DEMO / "agent_tools.jsonl").read_text().splitlines())]
    assert roles.count("tool") > roles.count("user")  # the traffic is what the test claims
    assert data["section_order"][-1] == LAST_TURN["tool"]
    assert last_turn([]) == "user"


def test_plan_shows_one_after_fix_figure() -> None:
    data = plan(parse_spec(RAG_CLOCK_FIRST, "rag-clock-first.yaml"))
    fix = data["after_fix"]
    measured = {c["name"]: c["hit_rate"] for c in fix["candidates"]}
    assert set(measured) == {"prescription", "recipe"}
    # The decision stands on the better of the two rewrites, and every section says so.
    assert fix["hit_rate"] == max(measured.values())
    assert data["basis"] == "after-fix" and data["hit_rate_decided"] == fix["hit_rate"]
    assert data["recipe"]["hit_rate"]["recipe"] == measured["recipe"]
    if fix["basis"] == "recipe":
        assert data["recipe"]["decision"] == data["decision"]
    at_pool = fix["simulation"]["at_pool"]
    if data["engine"] == "sglang":
        assert data["rollout"]["target_hit_rate"] == max(at_pool["fcfs"]["hit_rate"], at_pool["lpm"]["hit_rate"])
    text = plan_markdown(data, None)
    decided = f"{fix['hit_rate']:.1%}"
    headline = next(line for line in text.splitlines() if line.startswith("**Decision: "))
    assert headline.startswith(f"**Decision: {data['decision'].upper()}**") and (f"{decided} after it" in headline or f"{decided} after them" in headline)
    # The recipe section and the reasons quote the same after-fix figure, never another
    # one for the decided rewrite.
    assert f"recipe **{measured['recipe']:.1%}**" in text
    assert all(f"{other:.1%}" not in headline for other in measured.values() if f"{other:.1%}" != decided)


def test_capacity_plot_legend_never_covers_the_curves() -> None:
    import matplotlib.pyplot as plt

    from advisor.report.plot import figure

    caps = [1_000, 10_000, 100_000, None]
    # Curves along the bottom and the top edge, where a legend inside the axes would sit on them.
    today = [{"policy": p, "capacity_tokens": c, "hit_rate": 0.001 * i} for i, c in enumerate(caps)
             for p in ("fcfs", "lpm", "optimal")]
    after = [{"policy": p, "capacity_tokens": c, "hit_rate": 0.97 + 0.01 * i} for i, c in enumerate(caps)
             for p in ("fcfs", "lpm", "optimal")]
    fig = figure(today, 50_000, "h100", 0.003, after, 0.99)
    try:
        fig.canvas.draw()
        ax = fig.axes[0]
        legend = ax.get_legend()
        labels = [t.get_text() for t in legend.get_texts()]
        assert "cache-aware (lpm) after the change" in labels and "cache-aware (lpm) today" in labels
        box, axes = legend.get_window_extent(), ax.get_window_extent()
        assert box.y1 <= axes.y0 or box.y0 >= axes.y1 or box.x1 <= axes.x0 or box.x0 >= axes.x1
        assert box.y0 >= 0 and box.x0 >= 0 and box.x1 <= fig.bbox.x1  # and stays on the picture
    finally:
        plt.close(fig)


def test_run_beside_gives_the_same_result_forked_or_not(monkeypatch) -> None:
    import os

    import advisor.beside as beside

    def there() -> dict[str, object]:
        return {"pid": os.getpid(), "curve": [{"capacity_tokens": c, "hit_rate": c / 7} for c in range(50)]}

    monkeypatch.setattr(beside, "idle_cores", lambda: 2.0)
    here, forked = beside.run_beside(lambda: os.getpid(), there)
    if hasattr(os, "fork"):
        assert forked["pid"] != here  # computed in the child ...
    monkeypatch.setattr(beside, "idle_cores", lambda: 0.0)
    _, serial = beside.run_beside(lambda: os.getpid(), there)
    assert serial["pid"] == here
    assert {k: v for k, v in forked.items() if k != "pid"} == {k: v for k, v in serial.items() if k != "pid"}

    # A child that fails (here: a result that cannot be sent) leaves the work to the parent.
    monkeypatch.setattr(beside, "idle_cores", lambda: 2.0)
    calls = []

    def unpicklable() -> object:
        calls.append(os.getpid())
        return (lambda: None) if os.getpid() != here else "done here"

    assert beside.run_beside(lambda: 1, unpicklable) == (1, "done here")
    assert calls[-1] == here


def test_one_helper_at_a_time(monkeypatch) -> None:
    # advisor.cores: a helper forks no helper of its own, and while one computes its parent
    # sees no idle core (the 1-minute load would still say there is one).
    import os

    import time

    import advisor.cores as cores
    from advisor.beside import run_beside

    if not hasattr(os, "fork") or not hasattr(os, "waitid"):
        pytest.skip("helpers need fork, and telling a running one from an exited one needs os.waitid")
    monkeypatch.setattr(cores.os, "getloadavg", lambda: (0.0, 0.0, 0.0))
    monkeypatch.setattr(cores.os, "cpu_count", lambda: 2)
    assert cores.idle_cores() == 1.0
    here, (pid, inside) = run_beside(lambda: os.getpid(), lambda: (os.getpid(), cores.idle_cores()))
    assert pid != here and inside == 0.0  # forked, and the helper would fork nothing
    assert cores.idle_cores() == 1.0  # reaped: the core is free again

    def fails() -> int:
        raise ValueError("here")

    with pytest.raises(ValueError):
        run_beside(fails, lambda: time.sleep(30))
    assert not cores._helpers  # the helper stopped and reaped with the error
    go, wait = os.pipe()
    child = os.fork()
    if child == 0:  # a helper that computes until told to stop
        os.read(go, 1)
        os._exit(0)
    cores.started_helper(child)
    try:
        assert cores.idle_cores() == 0.0
    finally:
        os.write(wait, b"x")
        os.waitid(os.P_PID, child, os.WEXITED | os.WNOWAIT)  # exited, not yet reaped
        assert cores.idle_cores() == 1.0
        os.waitpid(child, 0)
        cores.waited_for(child)
        os.close(go)
        os.close(wait)


def test_report_is_the_same_with_its_helpers_forked(monkeypatch) -> None:
    # Byte for byte (key order included), and with every helper's result actually used: on
    # an idle machine (the load patched, advisor.cores's own rules in force) the advisory
    # forks the diagnosis and today's figures beside the prescription, and the after-fix
    # curve beside that traffic's engines and tiers if the first helper is done by then
    # (timing: two results or three).
    import json
    import os

    import advisor.beside as beside
    import advisor.cores as cores
    from advisor.api import report

    path = DEMO / "support_chat.jsonl"
    monkeypatch.setattr(beside, "idle_cores", lambda: 0.0)
    serial = report(path).data
    monkeypatch.undo()
    if not hasattr(os, "fork"):
        pytest.skip("no fork: the advisory has no helpers here")
    monkeypatch.setattr(cores.os, "getloadavg", lambda: (0.0, 0.0, 0.0))
    monkeypatch.setattr(cores.os, "cpu_count", lambda: 2)
    received = []
    loaded = beside.Beside._loaded
    monkeypatch.setattr(beside.Beside, "_loaded", lambda self, k: received.append(loaded(self, k)) or received[-1])
    forked = report(path).data
    assert "simulation" in serial["after_fix"]
    # The diagnosis and today's figures from the first helper; the after-fix curve from a
    # second if the first is done by then.
    assert 2 <= len(received) <= 3 and all(r is not None for r in received)
    assert json.dumps(forked, default=str) == json.dumps(serial, default=str)
    assert not cores._helpers  # every helper waited for
