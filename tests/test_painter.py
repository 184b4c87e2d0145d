"""advisor.report.plot.Painter: the advisory's PNG drawn by a child that loaded matplotlib
while the parent computed; the same bytes as a drawing made here, whatever happens to the
child."""

from __future__ import annotations

import os
from typing import Any

import pytest

import advisor.report.plot as plot

pytestmark = pytest.mark.skipif(not hasattr(os, "fork") or not hasattr(os, "waitid"),
                                reason="the painter needs fork")


def advisory(after: bool) -> dict[str, Any]:
    curve = [{"capacity_tokens": c, "policy": p, "hit_rate": h}
             for c, base in ((4_000, 0.2), (16_000, 0.45), (64_000, 0.61), (None, 0.7))
             for p, h in (("fcfs", base * 0.8), ("lpm", base), ("optimal", min(1.0, base * 1.1)))]
    data: dict[str, Any] = {"simulation": {"curve": curve, "unlimited_hit_rate": 0.7},
                            "cost": {"kv_pool_tokens": 30_000, "gpu": "H100-80GB"}}
    if after:
        data["after_fix"] = {"simulation": {"curve": [dict(p, hit_rate=min(1.0, p["hit_rate"] + 0.2)) for p in curve],
                                            "unlimited_hit_rate": 0.9}}
    return data


def gone(pid: int) -> bool:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


@pytest.mark.parametrize("after", [False, True])
def test_the_child_draws_the_bytes_drawn_here(idle: None, after: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    data = advisory(after)
    here = plot.advisory_png(data)
    with plot.Painter() as painter:
        pid = painter._pid  # noqa: SLF001
        assert pid is not None  # a core is idle: the drawing loads in a child

        def not_here(*args: Any) -> bytes:
            raise AssertionError("drawn in the parent")

        monkeypatch.setattr(plot, "capacity_curve_png", not_here)  # (after the fork: the child's is real)
        png = painter.png(data)
    assert png == here and png.startswith(b"\x89PNG")
    assert gone(pid)


def test_a_child_that_fails_leaves_the_drawing_here(idle: None, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken() -> None:
        raise RuntimeError("no fonts in the child")

    monkeypatch.setattr(plot, "_warm", broken)  # (forked after this: the child fails)
    data = advisory(True)
    with plot.Painter() as painter:
        pid = painter._pid  # noqa: SLF001
        assert pid is not None
        assert painter.png(data) == plot.advisory_png(data)
    assert gone(pid)


def test_no_idle_core_draws_here(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(plot, "idle_cores", lambda: 0.0)
    data = advisory(False)
    with plot.Painter() as painter:
        assert painter._pid is None  # noqa: SLF001
        assert painter.png(data) == plot.advisory_png(data)


def test_a_child_never_asked_is_ended(idle: None) -> None:
    # The command failed before the picture: leaving the painter ends and reaps the child.
    with plot.Painter() as painter:
        pid = painter._pid  # noqa: SLF001
        assert pid is not None
    assert gone(pid)
    with pytest.raises(ValueError), plot.Painter() as painter:
        pid = painter._pid  # noqa: SLF001
        raise ValueError("the advisory failed")
    assert pid is not None and gone(pid)


CHILD_WITHOUT_A_HOME = """
import json, os, sys
import advisor.cores as cores
cores.os.getloadavg = lambda: (0.0, 0.0, 0.0)
cores.os.cpu_count = lambda: 2
import advisor.report.plot as plot
data = json.loads(sys.argv[1])
with plot.Painter() as painter:
    assert painter._pid is not None
    drawn = painter.png(data)
with plot.Painter() as unasked:  # (told there is nothing to draw, once it has loaded)
    assert unasked._pid is not None
assert "matplotlib" not in sys.modules  # (drawn in the child)
sys.stdout.write(str(len(drawn)))
"""


def test_matplotlib_s_own_temporary_folder_goes_with_the_child(tmp_path) -> None:
    # Without a writable home, matplotlib makes a temporary folder for its font cache and
    # removes it at exit; the child leaves without running exit hooks, so it removes the
    # folder itself. (Also a child told there is nothing to draw.)
    import json
    import subprocess
    import sys

    home = tmp_path / "home"
    home.write_text("a file: no folder can be made in it, whoever runs the test")
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("MPLCONFIGDIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME")}
    env.update(HOME=str(home), TMPDIR=str(temp))
    ran = subprocess.run([sys.executable, "-c", CHILD_WITHOUT_A_HOME, json.dumps(advisory(True))],
                         capture_output=True, text=True, env=env, timeout=120)
    assert ran.returncode == 0, ran.stderr
    assert int(ran.stdout) > 1000
    assert not list(temp.iterdir())
