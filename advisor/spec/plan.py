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

import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from advisor.ingest.traffic import Skip
from advisor.spec.closed_form import closed_form
from advisor.spec.generate import Generated, generate
from advisor.spec.measure import measure
from advisor.spec.model import Spec
from advisor.spec.recipe import order_of, recipe, to_yaml

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


def plan(spec: Spec, thresholds: Thresholds | None = None, folder: Path | None = None) -> dict[str, Any]:
    """The advisory of ``spec`` as the report's data, with the plan's keys added."""
    from advisor.advise import ReportOptions, build
    from advisor.advise import Thresholds as ReportThresholds

    t = thresholds or Thresholds()
    gen = generate(spec)
    with tempfile.TemporaryDirectory(prefix="advisor-plan-") as tmp:
        where = folder or Path(tmp)
        traffic = where / f"{spec.name}.jsonl"
        template = where / f"{spec.name}.described.j2"
        gen.write(traffic)
        template.write_text(described_template(spec, gen), encoding="utf-8")
        opts = ReportOptions(model=spec.model, gpu=spec.gpu, tp=spec.engine.tp, kv_dtype=spec.engine.kv_dtype,
                             page_size=spec.engine.page_size, tokenizer=spec.tokenizer,
                             thresholds=ReportThresholds(t.go_above, t.no_go_below))
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
    data["recipe"] = _recipe(spec, data)
    data["closed_form"] = {
        "described": data["recipe"].pop("_closed_described"),
        "recipe": data["recipe"].pop("_closed_recipe"),
        "measured_hit_rate": data.get("hit_rate"),
        "simulated_unlimited_hit_rate": (data.get("simulation") or {}).get("unlimited_hit_rate"),
    }
    data["reasons"].insert(0, f"Planned from the workload description '{spec.name}': no traffic was recorded; "
                              f"the figures are measured on {spec.requests:,} requests generated from it.")
    rec = data["recipe"]
    gain = rec["hit_rate"]["recipe"] - rec["hit_rate"]["described"]
    after = rec["hit_rate"]["recipe"]
    rec["decision"] = "go" if after >= t.go_above else ("trial" if after >= t.no_go_below else "no-go")
    if rec["changed"] and gain > 0.005:
        data["reasons"].append(
            f"Ordering the prompt as the recipe does (static first, then what varies least, the question last) "
            f"raises the hit rate from {rec['hit_rate']['described']:.1%} to {after:.1%} "
            f"(decision then: {rec['decision']}).")
    return data


def _recipe(spec: Spec, data: dict[str, Any]) -> dict[str, Any]:
    reordered = recipe(spec)
    described = [s["section"] for s in order_of(spec)]
    recipe_order = [s["section"] for s in order_of(reordered)]
    changed = described != recipe_order or any(m.shuffle for m in spec.messages)
    hit_described: float = data["hit_rate"]  # plan always has traffic: the generated requests
    sim = data.get("simulation") or {}
    pool_described = {p: r["hit_rate"] for p, r in (sim.get("at_pool") or {}).items()}
    if changed:
        hit_recipe, pool_recipe = measure(generate(reordered), spec.engine.page_size,
                                          int(data["cost"]["kv_pool_tokens"]))
    else:
        hit_recipe, pool_recipe = hit_described, pool_described
    return {
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
