"""`advisor plan`: the advisory for a workload that exists only as a description.

A thin adapter over the report's entry point (``advisor.advise.build``): the spec's
traffic is generated into a temporary folder, written as an ordinary JSON Lines log with a
Jinja template of the described order beside it (so the linter audits the order), and the
advisory is built from those files exactly as `advisor report` would. What this module
adds is kept in its own keys: ``planned`` (the mark that nothing was recorded), ``spec``
(the spec as read), ``recipe`` (the reordered spec and the hit rate of both orders) and
``closed_form`` (expected hit rates beside the measured and simulated ones).
"""

from __future__ import annotations

import math
import re
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from advisor.errors import AdvisorError
from advisor.ingest.traffic import Skip
from advisor.spec.closed_form import closed_form
from advisor.spec.generate import Generated, arrival_times, clock_misfit, generate
from advisor.spec.model import MAX_CONTEXT_TOKENS, MAX_SPAN_SECONDS, MAX_TOTAL_TOKENS, MIN_RATE, Length, Spec
from advisor.spec.recipe import changes, order_of, recipe, to_yaml

# The lint rules read variable names; these say what a section is to a reader of the template.
_CLOCK_DAY = "{{ strftime_now('%A, %d %B %Y') }}"
_CLOCK = "{{ strftime_now('%Y-%m-%d %H:%M:%S') }}"


@dataclass
class Thresholds:
    go_above: float = 0.40
    no_go_below: float = 0.30


@dataclass
class _Skips:
    """The skipped-line sink the advisory expects (generated traffic never skips)."""

    count: int = 0
    items: list[Skip] = field(default_factory=list)

    def __call__(self, skip: Skip) -> None:
        self.count += 1
        self.items.append(skip)


def _var(name: str) -> str:
    return re.sub(r"\W", "_", name)


def described_template(spec: Spec, gen: Generated) -> str:
    """The described order as a prompt template: static text verbatim (so the linter counts
    the tokens at risk with the real tokenizer), every varying section a variable, the
    clock a clock call, a shuffled message a loop over an unordered mapping."""
    first = gen.pieces[0] if gen.pieces else []
    text_of = {p.section: p.text for p in first}
    blocks: list[str] = []
    for m in spec.messages:
        lines: list[str] = []
        if m.shuffle:
            lines.append("{% for name, text in " + _var(m.role) + "_sections.items() %}{{ text }}\n\n{% endfor %}")
        else:
            for s in m.sections:
                if s.vary.kind == "static":
                    lines.append(text_of.get(s.name, s.name))
                elif s.vary.kind == "clock":
                    lines.append(_CLOCK_DAY if s.vary.resolution >= 86_400 else _CLOCK)
                elif s.vary.kind == "retrieved":
                    lines.append("{% for passage in " + _var(s.name) + " %}{{ passage }}\n\n{% endfor %}")
                else:
                    lines.append("{{ " + _var(s.name) + " }}")
        blocks.append("\n\n".join(lines))
    # Messages one after another, as the chat layout puts them (its headers are static text).
    return "\n\n".join(blocks) + "\n"


def with_serving(spec: Spec, output_len: int | None = None, rate: float | None = None) -> Spec:
    """``spec`` with `plan`'s ``--output-len`` and ``--rate`` in place of its ``output_tokens``
    and ``arrival.rate``, as ``--requests`` and ``--seed`` stand in for theirs.

    Applied to the description, not to the simulation alone (where `report` applies them):
    every generated record carries its output length and arrival time, which the advisory
    takes as a log's, so an option read only where a record has none would change nothing.
    Here the answers a conversation's later turns repeat and the clock lines the arrivals
    write follow the options too. Checked against the bounds `spec check` holds the spec's
    own fields to (advisor.spec.model), with the option named."""
    if output_len is not None:
        spec = replace(spec, output_tokens=Length(fixed=output_len, minimum=1))
        longest = spec.longest_request()
        if longest > MAX_CONTEXT_TOKENS:
            raise AdvisorError(f"--output-len {output_len:,}: a request of {spec.name} can then hold {longest:,} "
                               f"tokens (its sections, earlier turns and output), more than {MAX_CONTEXT_TOKENS:,}: "
                               "the largest context window of the catalogued models")
        if spec.requests * longest > MAX_TOTAL_TOKENS:
            raise AdvisorError(f"--output-len {output_len:,}: {spec.requests:,} requests of up to {longest:,} tokens "
                               f"are more than the {MAX_TOTAL_TOKENS:,} a plan holds in memory")
    if rate is not None:
        if not (math.isfinite(rate) and rate >= MIN_RATE):
            raise AdvisorError(f"--rate must be a number of requests/s of at least {MIN_RATE:g} (got {rate:g})")
        # A spec without timestamps is an offline batch; --rate gives it arrivals.
        spec = replace(spec, rate=rate, timestamps=True)
        times = arrival_times(spec)
        if times and times[-1] > MAX_SPAN_SECONDS:
            raise AdvisorError(f"--rate {rate:g}: {spec.requests:,} requests would span more than "
                               f"{MAX_SPAN_SECONDS / (365.25 * 86_400):,.0f} years; raise the rate")
        from advisor.ingest.tokenizers import load_tokenizer

        misfit = clock_misfit(spec, load_tokenizer(spec.tokenizer), times)
        if misfit is not None:
            raise AdvisorError(f"--rate {rate:g}: section '{misfit[0].name}': {misfit[1]}")
    return spec


def plan(spec: Spec, thresholds: Thresholds | None = None, folder: Path | None = None,
         output_len: int | None = None, rate: float | None = None,
         gpu_hour_price: float | None = None) -> dict[str, Any]:
    """The advisory of ``spec`` as the report's data, with the plan's keys added;
    ``output_len`` and ``rate`` stand in for the spec's (``with_serving``);
    ``gpu_hour_price`` prices the self-hosted bill (``ReportOptions``)."""
    from advisor.advise import ReportOptions, build
    from advisor.advise import Thresholds as ReportThresholds

    from advisor.advise.after_fix import Alternative

    t = thresholds or Thresholds()
    spec = with_serving(spec, output_len, rate)
    gen = generate(spec)
    reordered = recipe(spec)
    with tempfile.TemporaryDirectory(prefix="advisor-plan-") as tmp:
        where = folder or Path(tmp)
        traffic = where / f"{spec.name}.jsonl"
        template = where / f"{spec.name}.described.j2"
        gen.write(traffic)
        template.write_text(described_template(spec, gen), encoding="utf-8")
        # The recipe's order is a fix like the prescription's: the advisory measures both on
        # one path and decides on the better (one after-fix figure per traffic).
        alternatives: tuple[Alternative, ...] = ()
        if changes(spec, reordered):
            recipe_traffic = where / f"{reordered.name}.jsonl"
            generate(reordered).write(recipe_traffic)
            alternatives = (Alternative("recipe", recipe_traffic, RECIPE_FIX),)
        opts = ReportOptions(model=spec.model, gpu=spec.gpu, tp=spec.engine.tp, kv_dtype=spec.engine.kv_dtype,
                             page_size=spec.engine.page_size, tokenizer=spec.tokenizer,
                             thresholds=ReportThresholds(t.go_above, t.no_go_below), alternatives=alternatives,
                             gpu_hour_price=gpu_hour_price)
        data = build([str(template)], [traffic], opts, _Skips())  # type: ignore[arg-type]
    label = f"spec {spec.name} ({spec.requests:,} generated requests, seed {spec.seed})"
    data["input"]["traffic"] = [label]
    data["input"]["templates"] = [f"{spec.name} (described order)"]
    for finding in data.get("lint", []):
        finding["path"] = f"{spec.name} (described order)"
    for entry in (data.get("traffic") or {}).get("files", []):
        entry["file"] = label  # not the temporary folder's path: the same spec, the same output
    data["planned"] = {
        "from": "description", "spec": spec.name, "requests": spec.requests, "seed": spec.seed,
        "note": "No traffic was recorded: every figure is measured or simulated on requests generated "
                "from the description (real text, exact section lengths under the tokenizer).",
    }
    data["spec"] = spec.to_yaml()
    assumed = (data.get("simulation") or {}).get("assumptions")
    if assumed is not None:
        # Where the records' output lengths and times came from: the description, or the options.
        assumed["planned"] = {"output_tokens": spec.output_tokens.to_yaml(),
                              "output_tokens_from": "--output-len" if output_len is not None else "spec",
                              "rate": spec.rate, "rate_from": "--rate" if rate is not None else "spec",
                              "timestamps": spec.timestamps}
    data["recipe"] = _recipe(spec, reordered, data)
    data["closed_form"] = {
        "described": data["recipe"].pop("_closed_described"),
        "recipe": data["recipe"].pop("_closed_recipe"),
        "measured_hit_rate": data.get("hit_rate"),
        "simulated_unlimited_hit_rate": (data.get("simulation") or {}).get("unlimited_hit_rate"),
    }
    data["reasons"].insert(0, f"Planned from the workload description '{spec.name}': no traffic was recorded; "
                              f"the figures are measured on {spec.requests:,} requests generated from it.")
    rec = data["recipe"]
    fix = data.get("after_fix") or {}
    if rec["changed"] and fix.get("basis") != "recipe":
        data["reasons"].append(
            f"Ordering the prompt as the recipe does measures {rec['hit_rate']['recipe']:.1%} against "
            f"{rec['hit_rate']['described']:.1%} as described"
            + (f"; the prescribed changes measure higher ({fix['hit_rate']:.1%}), so the decision stands on them."
               if fix else "."))
    return data


RECIPE_FIX = ("ordering the prompt as the recipe does (static first, then what varies least, the question last)")


def _recipe(spec: Spec, reordered: Spec, data: dict[str, Any]) -> dict[str, Any]:
    """The recipe's order and its figures, as the advisory measured them (``after_fix``):
    the recipe's traffic went through the same measurement and simulation as the
    described traffic, so its hit rate here is the one the headline uses when it decides
    on the recipe."""
    changed = changes(spec, reordered)
    hit_described: float = data["hit_rate"]  # plan always has traffic: the generated requests
    sim = data.get("simulation") or {}
    pool_described = {p: r["hit_rate"] for p, r in (sim.get("at_pool") or {}).items()}
    fix = data.get("after_fix") or {}
    measured = {c["name"]: c for c in fix.get("candidates", ())}
    hit_recipe = measured["recipe"]["hit_rate"] if "recipe" in measured else hit_described
    pool_recipe: dict[str, float] = pool_described if not changed else {}
    decision = data.get("decision_today")
    if fix.get("basis") == "recipe":
        pool_recipe = {p: r["hit_rate"] for p, r in (fix.get("simulation") or {}).get("at_pool", {}).items()}
        decision = data.get("decision_after_fix", decision)
    elif changed:
        decision = None  # not decided on: the prescription measured higher
    return {
        "decision": decision,
        "changed": changed,
        "described_order": order_of(spec),
        "order": order_of(reordered),
        "hit_rate": {"described": hit_described, "recipe": round(hit_recipe, 6)},
        # At the GPU's pool, simulated as the report does, per scheduling policy.
        "hit_rate_at_pool": {"described": pool_described, "recipe": pool_recipe},
        "yaml": to_yaml(reordered),
        "_closed_described": closed_form(spec).to_dict(),
        "_closed_recipe": closed_form(reordered).to_dict(),
    }
