"""The capacity curve: hit rate against KV pool size, FCFS against cache-aware, and the
offline optimal bound above both."""

from __future__ import annotations

from typing import Any


def capacity_curve_png(curve: list[dict[str, Any]], pool_tokens: int, gpu: str, unlimited: float) -> bytes:
    """A PNG of the simulated curve; the chosen GPU's pool size marked. Deterministic:
    no timestamps or software version in the file's metadata."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    finite = [p for p in curve if p["capacity_tokens"] is not None]
    top = max((p["capacity_tokens"] for p in finite), default=pool_tokens)
    fig, ax = plt.subplots(figsize=(7.5, 4.2), dpi=100)
    styles = {"fcfs": ("FCFS", "#c0392b", "o"), "lpm": ("cache-aware (lpm)", "#1f6fb2", "s"),
              "optimal": ("optimal eviction (knows the future)", "#7d3c98", "^")}
    for policy, (label, color, marker) in styles.items():
        points = sorted((p["capacity_tokens"], p["hit_rate"]) for p in finite if p["policy"] == policy)
        if points:
            ax.plot([x for x, _ in points], [y * 100 for _, y in points], marker=marker, color=color,
                    label=label, linewidth=1.8, markersize=4)
    ax.axhline(unlimited * 100, color="#555555", linestyle=":", linewidth=1, label="unlimited capacity")
    ax.axvline(pool_tokens, color="#2e8b57", linestyle="--", linewidth=1.2,
               label=f"{gpu} pool ({pool_tokens:,} tokens)")
    ax.set_xscale("log")
    ax.set_xlim(left=min((p["capacity_tokens"] for p in finite), default=1) * 0.8, right=max(top, pool_tokens) * 1.25)
    ax.set_ylim(0, 100)
    ax.set_xlabel("KV pool capacity (tokens, log scale)")
    ax.set_ylabel("prompt tokens served from cache (%)")
    ax.set_title("Simulated prefix-cache hit rate against pool size")
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    plt.close(fig)
    return buf.getvalue()
