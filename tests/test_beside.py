"""advisor.beside: a forked helper works through a list of computations, each result there
as soon as the helper has it; the parent computes what the helper could not send."""

from __future__ import annotations

import os

import pytest

import advisor.beside as beside
import advisor.cores as cores

pytestmark = pytest.mark.skipif(not hasattr(os, "fork") or not hasattr(os, "waitid"),
                                reason="helpers need fork and os.waitid")


def test_each_result_comes_as_soon_as_the_helper_has_it(idle: None) -> None:
    # The second computation waits until the parent holds the first: had the parent waited
    # for the helper to finish, neither would ever end.
    go, wait = os.pipe()

    def second() -> int:
        return os.getpid() if os.read(go, 1) == b"x" else -1

    try:
        with beside.Beside(os.getpid, second) as side:
            first = side.result(0)
            os.write(wait, b"x")
            assert first != os.getpid() and side.result(1) == first  # both from the one helper
            assert side.result(0) == first  # kept
    finally:
        os.close(go)
        os.close(wait)
    assert not cores._helpers


def test_what_the_helper_could_not_send_is_computed_here(idle: None) -> None:
    here = os.getpid()

    def fails_there() -> int:
        if os.getpid() != here:
            raise RuntimeError("in the helper")
        return 2

    with beside.Beside(os.getpid, fails_there, os.getpid) as side:
        # The helper sent the first, failed on the second and sent nothing more.
        assert side.result(2) == here and side.result(1) == 2 and side.result(0) != here
    assert not cores._helpers


def test_no_idle_core_computes_each_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(beside, "idle_cores", lambda: 0.0)
    calls: list[str] = []
    with beside.Beside(lambda: calls.append("a") or 1, lambda: calls.append("b") or 2) as side:
        assert calls == []
        assert side.result(1) == 2 and calls == ["b"]
    assert calls == ["b"]  # never asked for: never computed


def test_leaving_early_stops_the_helper(idle: None) -> None:
    import time

    with pytest.raises(KeyError):
        with beside.Beside(lambda: time.sleep(30)):
            assert cores._helpers
            raise KeyError("the parent gives up")
    assert not cores._helpers
