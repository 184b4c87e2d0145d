"""``report``: the go/no-go SGLang advisory from templates and measured traffic."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from advisor.advise import ReportOptions, Thresholds, build
from advisor.advise.money import check_gpu_hour_price
from advisor.api.checks import check_fraction, checked
from advisor.api.bounds import check_options
from advisor.api.sources import (
    PathLike, Progress, Result, SkipCollector, SkipHook, Traffic, traffic_sources, with_skips,
)
from advisor.cost import DEFAULT_BANDWIDTH_UTIL, DEFAULT_MFU
from advisor.errors import AdvisorError
from advisor.ingest.preprocess import engine_spec
from advisor.ingest.source import resolve_tokenizer, tokenizer_warning
from advisor.report import advisory as render
from advisor.report.notebook import advisory_html


@dataclass
class ReportResult(Result):
    """The advisory: ``data`` is ``advisor report --format json`` (every section as data; the
    markdown advisory is rendered from it)."""

    @property
    def decision(self) -> str:
        """``go``, ``no-go`` or ``trial``."""
        return str(self.data["decision"])

    @property
    def engine(self) -> str:
        """The engine advised: ``sglang`` or ``vllm``."""
        return str(self.data["engine"])

    @property
    def reasons(self) -> list[str]:
        """Why, in the advisory's words."""
        return [str(r) for r in self.data["reasons"]]

    @property
    def hit_rate(self) -> float | None:
        """The hit rate SGLang gets on the traffic as it is (None without traffic)."""
        value = self.data.get("hit_rate")
        return None if value is None else float(value)

    @property
    def hit_rate_after(self) -> float | None:
        """The hit rate measured on the traffic rewritten by the prescribed changes (None without traffic)."""
        value = self.data.get("hit_rate_after_prescription")
        return None if value is None else float(value)

    @property
    def requests(self) -> int | None:
        """Requests measured (None without traffic)."""
        traffic = self.data.get("traffic")
        return None if traffic is None else int(traffic["requests"])

    @property
    def findings(self) -> list[dict[str, Any]]:
        """The traffic findings (TR codes) as the JSON shows them."""
        return list((self.data.get("traffic") or {}).get("findings", []))

    @property
    def lint_findings(self) -> list[dict[str, Any]]:
        """The templates' lint findings (PC codes) as the JSON shows them."""
        return list(self.data.get("lint", []))

    def _json(self) -> str:
        return render.to_json(self.data)

    def _repr_html_(self) -> str:
        return advisory_html(self.data)


@checked
def report(
    traffic: Traffic | None = None,
    *,
    templates: PathLike | Iterable[PathLike] | None = (),
    model: str = "llama-3.1-8b",
    gpu: str = "h100",
    tp: int | None = None,
    kv_dtype: str = "bf16",
    weight_dtype: str | None = None,
    mfu: float = DEFAULT_MFU,
    bandwidth_util: float = DEFAULT_BANDWIDTH_UTIL,
    page_size: int = 1,
    tokenizer: str = "llama3",
    chat_template: str | Path | None = None,
    model_dir: str | Path | None = None,
    engine: str = "sglang",
    engine_version: str | None = None,
    timezone: str = "UTC",
    record_templates: str | Path | None = None,
    go_above: float = 0.40,
    no_go_below: float = 0.30,
    controlled: bool = True,
    block_size: int = 512,
    batch: int = 16,
    views: bool = False,
    output_len: int | None = None,
    rate: float | None = None,
    gpu_hour_price: float | None = None,
    on_skip: SkipHook | None = None,
    progress: Progress | None = None,
) -> ReportResult:
    """The go/no-go SGLang advisory: the traffic measured, simulated and costed, the templates
    linted, and the decision with its reasons.

    ``traffic``: a path, a list of paths, or records; ``templates``: prompt templates or
    folders to audit. The options are ``advisor report``'s, with its defaults (``controlled``
    False is ``--uncontrolled-templates``), and ``ReportOptions``' ``block_size`` and ``batch``.
    ``views`` adds what the HTML report draws (``data["views"]``: the prefix tree, example
    requests before and after the rewrite, the capacity curve after the fix, template excerpts).
    ``output_len`` (``--output-len``): output tokens of a request whose record logs no count,
    at most its own ``max_tokens`` (None: that maximum, else 1); ``rate`` (``--rate``): Poisson
    arrivals at this many requests/s in place of the logged timestamps. What the simulation
    assumed is ``data["simulation"]["assumptions"]``. ``gpu_hour_price`` (``--gpu-hour-price``):
    USD per GPU-hour of the self-hosted bill in ``data["money"]`` (None: the GPU's cited
    default, if it has one).
    ``on_skip`` is called with each skipped line or record; ``progress`` wraps the stream of
    sequences as the traffic is read (a progress bar). Raises ``AdvisorError`` with the
    command's one-line messages."""
    check_options(tp=tp, page_size=page_size, block_size=block_size, output_len=output_len)
    if rate is not None and not rate > 0:
        raise AdvisorError("--rate must be positive")
    check_gpu_hour_price(gpu_hour_price)
    for name, value in (("--go-above", go_above), ("--no-go-below", no_go_below)):
        check_fraction(name, value)
    if no_go_below > go_above:
        raise AdvisorError("--no-go-below must not exceed --go-above")
    if templates is None:
        templates = ()
    if not isinstance(templates, (str, os.PathLike, Iterable)) or isinstance(templates, (bytes, bytearray)):
        raise AdvisorError(f"report(): templates must be a path or a list of paths (got {type(templates).__name__})")
    audited = [str(templates)] if isinstance(templates, (str, os.PathLike)) else [str(t) for t in templates]
    check_templates(audited)
    sources = traffic_sources(traffic) if traffic is not None else []
    if not audited and not sources:
        raise AdvisorError("give templates to audit, --traffic files to measure, or both")
    folder = Path(model_dir) if model_dir is not None else None
    tokenizer = resolve_tokenizer(tokenizer, folder)
    if folder is not None and model == "llama-3.1-8b":
        from advisor.ingest.model_dir import config_of

        found = config_of(folder)  # checked, and confined to the folder wherever it is read
        model = str(found) if found is not None else model
    tokenizer_warning(tokenizer, model)
    opts = ReportOptions(model=model, gpu=gpu, tp=tp, kv_dtype=kv_dtype, weight_dtype=weight_dtype, mfu=mfu,
                         bandwidth_util=bandwidth_util, page_size=page_size, tokenizer=tokenizer,
                         chat_template=Path(chat_template) if chat_template is not None else None,
                         record_templates=Path(record_templates) if record_templates is not None else None,
                         engine=engine_spec(engine, engine_version), model_dir=folder, timezone=timezone,
                         block_size=block_size, thresholds=Thresholds(go_above, no_go_below),
                         controlled=controlled, batch=batch, views=views, output_len=output_len, rate=rate,
                         gpu_hour_price=gpu_hour_price)
    skips = SkipCollector(forward=on_skip)
    # build() names its traffic list[Path]; it reads it through check_paths and sequences,
    # which take records (ingest.traffic.Records) where a file goes.
    data = build(audited, cast("list[Path]", sources), opts, skips, progress)
    return with_skips(ReportResult(data), skips)


def check_templates(paths: list[str]) -> None:
    """A traffic file where templates are expected (``-t a.jsonl b.jsonl`` leaves ``b.jsonl``
    as a template argument) is a usage error that says so."""
    for p in paths:
        name = p.lower()
        if name.endswith((".jsonl", ".jsonl.gz", ".json.gz", ".ndjson")):
            raise AdvisorError(f"{p}: a traffic file given where templates are expected; --traffic takes one "
                               f"file each time (--traffic {p})")
