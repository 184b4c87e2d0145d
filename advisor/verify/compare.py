"""Per-request comparison of predicted and observed cached tokens.

Errors are in points: hundredths of the request's prompt tokens (a request of 1,000
tokens predicted 600 cached and observed 550 is 5 points off). The total error is
the difference of the hit rates over the observed requests."""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field
from typing import Any

TOP = 10


@dataclass
class Observed:
    """The requests that carry an observed count, in input order."""

    lines: list[str] = field(default_factory=list)  # file:line
    ids: list[str | None] = field(default_factory=list)
    prompt: array = field(default_factory=lambda: array("q"))
    observed: array = field(default_factory=lambda: array("q"))
    position: array = field(default_factory=lambda: array("q"))  # index among all requests
    reported_prompt: list[int | None] = field(default_factory=list)
    total_requests: int = 0

    def add(self, position: int, where: str, rid: str | None, prompt_tokens: int,
            cached: int | None, reported: int | None) -> None:
        self.total_requests = max(self.total_requests, position + 1)
        if cached is None:
            return
        self.lines.append(where)
        self.ids.append(rid)
        self.prompt.append(prompt_tokens)
        self.observed.append(cached)
        self.position.append(position)
        self.reported_prompt.append(reported)

    def __len__(self) -> int:
        return len(self.observed)


def points(tokens: float, prompt: int) -> float:
    return 100.0 * tokens / prompt if prompt else 0.0


def compare(obs: Observed, predicted: array | list[int], top: int = TOP,
            stages: dict[str, list[int]] | None = None) -> dict[str, Any]:
    """``predicted[i]`` for the i-th observed request; the comparison over them."""
    n = len(obs)
    if len(predicted) != n:
        raise ValueError("one prediction per observed request")
    prompt_sum = sum(obs.prompt)
    pred = [int(v) for v in predicted]
    observed_sum = sum(obs.observed)
    predicted_sum = sum(pred)
    errors = [points(pred[i] - obs.observed[i], obs.prompt[i]) for i in range(n)]
    abs_err = [abs(e) for e in errors]
    order = sorted(range(n), key=lambda i: (-abs_err[i], i))
    over_prompt = sum(1 for i in range(n) if obs.observed[i] > obs.prompt[i])
    mismatched = sum(1 for i in range(n) if obs.reported_prompt[i] is not None and obs.reported_prompt[i] != obs.prompt[i])
    return {
        "requests": n,
        "requests_without_observation": obs.total_requests - n,
        "prompt_tokens": prompt_sum,
        "observed_cached_tokens": observed_sum,
        "predicted_cached_tokens": predicted_sum,
        "observed_hit_rate": round(observed_sum / prompt_sum, 6) if prompt_sum else 0.0,
        "predicted_hit_rate": round(predicted_sum / prompt_sum, 6) if prompt_sum else 0.0,
        "total_error_points": round(points(predicted_sum - observed_sum, prompt_sum), 6),
        "mean_absolute_error_points": round(sum(abs_err) / n, 6) if n else 0.0,
        "worst_error_points": round(max(abs_err), 6) if n else 0.0,
        "exact_requests": sum(1 for e in abs_err if e == 0),
        # Counts the engine reported that advisor's tokenizer cannot reproduce: a sign
        # of another tokenizer or chat template, not of the cache.
        "observed_over_prompt": over_prompt,
        "prompt_tokens_mismatched": mismatched,
        "most_different": [
            {"where": obs.lines[i], "id": obs.ids[i], "prompt_tokens": obs.prompt[i],
             "observed": obs.observed[i], "predicted": pred[i], "error_points": round(errors[i], 6),
             **({"stages": {k: v[i] for k, v in stages.items()}} if stages else {})}
            for i in order[:top] if abs_err[i] > 0
        ],
    }


def observed_totals(obs: Observed) -> dict[str, Any]:
    """Only what was observed (no prediction): for reports that add it beside their own."""
    prompt_sum = sum(obs.prompt)
    got = sum(obs.observed)
    return {"requests": len(obs), "prompt_tokens": prompt_sum, "cached_tokens": got,
            "hit_rate": round(got / prompt_sum, 6) if prompt_sum else 0.0}
