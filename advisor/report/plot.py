"""The capacity curve: hit rate against KV pool size, FCFS against cache-aware, and the
offline optimal bound above both."""

from __future__ import annotations

from typing import Any


def advisory_png(data: dict[str, Any]) -> bytes:
    """The advisory's capacity plot: today's curves and, when the report measured a fix,
    the rewritten traffic's cache-aware curve beside them."""
    sim = data["simulation"]
    fix = (data.get("after_fix") or {}).get("simulation")
    return capacity_curve_png(sim["curve"], data["cost"]["kv_pool_tokens"], data["cost"]["gpu"],
                              sim["unlimited_hit_rate"], fix["curve"] if fix else None,
                              fix["unlimited_hit_rate"] if fix else None)


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
