"""The capacity curve: hit rate against KV pool size, FCFS against cache-aware, and the
offline optimal bound above both."""

from __future__ import annotations

import os
import pickle
import sys
from types import TracebackType
from typing import Any

from advisor.beside import IDLE_ENOUGH
from advisor.cores import become_helper, idle_cores


def advisory_png(data: dict[str, Any]) -> bytes:
    """The advisory's capacity plot: today's curves and, when the report measured a fix,
    the rewritten traffic's cache-aware curve beside them."""
    return capacity_curve_png(*_curve_args(data))


def _curve_args(data: dict[str, Any]) -> tuple[Any, ...]:
    sim = data["simulation"]
    fix = (data.get("after_fix") or {}).get("simulation")
    return (sim["curve"], data["cost"]["kv_pool_tokens"], data["cost"]["gpu"], sim["unlimited_hit_rate"],
            fix["curve"] if fix else None, fix["unlimited_hit_rate"] if fix else None)


class Painter:
    """``advisory_png`` drawn by a child forked when the command starts: loading matplotlib
    and its fonts is most of a drawing's cost (about half a second), and the child does it
    on the idle core while the parent computes the advisory; ``png(data)`` then sends it the
    figures and waits for the bytes. The bytes are the same either way: where no core is
    idle, there is no ``fork``, or the child fails, ``png`` draws here. The child is not a
    helper of ``advisor.cores``: once loaded it sleeps until the figures come, and the
    advisory's own helpers take the core meanwhile. A context manager: leaving it ends a
    child never asked."""

    def __init__(self) -> None:
        self._pid: int | None = None
        self._send = self._receive = -1
        if not hasattr(os, "fork") or idle_cores() < IDLE_ENOUGH:
            return
        try:
            into_r, into_w = os.pipe()
        except OSError:
            return
        try:
            back_r, back_w = os.pipe()
        except OSError:
            os.close(into_r)
            os.close(into_w)
            return
        try:
            pid = os.fork()
        except OSError:
            for fd in (into_r, into_w, back_r, back_w):
                os.close(fd)
            return
        if pid == 0:  # the child: load, wait for the figures, draw, and leave without the parent's exit code
            become_helper()
            status = 1
            config = os.environ.get("MPLCONFIGDIR")
            try:
                os.close(into_w)
                os.close(back_r)
                _warm()
                # (Length first: a helper the parent forks later holds a copy of the
                # write end, so the end of the figures is no end of file.)
                size = int.from_bytes(_read_exactly(into_r, 8), "big")
                got = _read_exactly(into_r, size)
                if got:
                    _write_all(back_w, capacity_curve_png(*pickle.loads(got)))
                    status = 0
            except BaseException:
                pass
            finally:
                made = os.environ.get("MPLCONFIGDIR")
                if made and made != config:
                    # matplotlib's temporary folder (no writable home): its exit hook,
                    # which removes it, does not run on ``os._exit``.
                    import shutil

                    shutil.rmtree(made, ignore_errors=True)
                os._exit(status)
        os.close(into_r)
        os.close(back_w)
        self._pid, self._send, self._receive = pid, into_w, back_r

    def png(self, data: dict[str, Any]) -> bytes:
        """``advisory_png(data)``: the child's drawing, or one made here."""
        args = _curve_args(data)
        got = b""
        if self._pid is not None:
            try:
                sent = pickle.dumps(args, protocol=pickle.HIGHEST_PROTOCOL)
                _write_all(self._send, len(sent).to_bytes(8, "big") + sent)
                os.close(self._send)
                self._send = -1
                got = _read_exactly(self._receive, sys.maxsize)  # (to the child's end)
            except OSError:
                got = b""
            # (Exit status 0: the child sent the whole drawing, not a part of one.)
            if self._reap() != 0:
                got = b""
        return got or capacity_curve_png(*args)

    def _reap(self) -> int:
        pid, self._pid = self._pid, None
        for fd in (self._send, self._receive):
            if fd >= 0:
                os.close(fd)
        self._send = self._receive = -1
        if pid is None:
            return -1
        try:
            return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
        except OSError:
            return -1

    def close(self) -> None:
        """End a child never asked for a drawing (the command failed, or drew none): it is
        told there is nothing to draw and waited for, not killed (killed while it writes
        matplotlib's font cache, it would leave the cache's lock behind)."""
        if self._pid is not None and self._send >= 0:
            try:
                _write_all(self._send, bytes(8))  # (length 0: nothing to draw)
            except OSError:  # (gone already: an interrupt reached it too)
                pass
        self._reap()

    def __enter__(self) -> Painter:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()


def _warm() -> None:
    """matplotlib loaded, and its fonts and Agg renderer, by drawing one empty figure."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, _ = plt.subplots(figsize=(1, 1), dpi=10)
    fig.savefig(io.BytesIO(), format="png")
    plt.close(fig)


def _read_exactly(fd: int, size: int) -> bytes:
    """``size`` bytes, or fewer where the other end closed first."""
    chunks = []
    while size > 0 and (chunk := os.read(fd, min(size, 1 << 16))):
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def capacity_curve_png(curve: list[dict[str, Any]], pool_tokens: int, gpu: str, unlimited: float,
                       after: list[dict[str, Any]] | None = None, after_unlimited: float | None = None) -> bytes:
    """A PNG of the simulated curve (``figure``). Deterministic: no timestamps or software
    version in the file's metadata."""
    import io

    import matplotlib.pyplot as plt

    fig = figure(curve, pool_tokens, gpu, unlimited, after, after_unlimited)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    plt.close(fig)
    return buf.getvalue()


def figure(curve: list[dict[str, Any]], pool_tokens: int, gpu: str, unlimited: float,
           after: list[dict[str, Any]] | None = None, after_unlimited: float | None = None) -> Any:
    """The capacity plot as a matplotlib figure: the chosen GPU's pool size marked;
    ``after``: the curve of the traffic after the fix. The legend sits below the axes, never
    over a curve (curves near 0 % or 100 % run along the plot's edges)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    finite = [p for p in curve if p["capacity_tokens"] is not None]
    top = max((p["capacity_tokens"] for p in finite), default=pool_tokens)
    fig, ax = plt.subplots(figsize=(7.5, 5.4), dpi=100)
    styles = {"fcfs": ("FCFS", "#c0392b", "o"), "lpm": ("cache-aware (lpm)", "#1f6fb2", "s"),
              "optimal": ("optimal eviction (knows the future)", "#7d3c98", "^")}
    for policy, (label, color, marker) in styles.items():
        points = sorted((p["capacity_tokens"], p["hit_rate"]) for p in finite if p["policy"] == policy)
        if points:
            ax.plot([x for x, _ in points], [y * 100 for _, y in points], marker=marker, color=color,
                    label=label + (" today" if after else ""), linewidth=1.8, markersize=4)
    ax.axhline(unlimited * 100, color="#555555", linestyle=":", linewidth=1,
               label="unlimited capacity" + (" today" if after else ""))
    if after:
        points = sorted((p["capacity_tokens"], p["hit_rate"]) for p in after
                        if p["capacity_tokens"] is not None and p["policy"] == "lpm")
        ax.plot([x for x, _ in points], [y * 100 for _, y in points], marker="D", color="#e67e22",
                linestyle="--", label="cache-aware (lpm) after the change", linewidth=1.8, markersize=4)
        if after_unlimited is not None:
            ax.axhline(after_unlimited * 100, color="#e67e22", linestyle=":", linewidth=1,
                       label="unlimited capacity after the change")
    ax.axvline(pool_tokens, color="#2e8b57", linestyle="--", linewidth=1.2,
               label=f"{gpu} pool ({pool_tokens:,} tokens)")
    ax.set_xscale("log")
    ax.set_xlim(left=min((p["capacity_tokens"] for p in finite), default=1) * 0.8, right=max(top, pool_tokens) * 1.25)
    ax.set_ylim(0, 100)
    ax.set_xlabel("KV pool capacity (tokens, log scale)")
    ax.set_ylabel("prompt tokens served from cache (%)")
    ax.set_title("Simulated prefix-cache hit rate against pool size")
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, fontsize=8, frameon=False)
    fig.tight_layout()
    return fig
