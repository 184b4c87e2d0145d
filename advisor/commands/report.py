"""`advisor report`: the go/no-go SGLang advisory from templates and measured traffic."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from advisor.advise import ReportOptions, Thresholds, build
from advisor.cost import DEFAULT_BANDWIDTH_UTIL, DEFAULT_MFU
from advisor.cli import app
from advisor.commands.bounds import bounded
from advisor.commands.common import SkipLog, check_format, check_output, emit, emit_bytes, regular_destination
from advisor.errors import AdvisorError
from advisor.ingest.preprocess import ENGINE_VERSION_HELP, engine_spec
from advisor.ingest.source import MODEL_DIR_HELP, TIMEZONE_HELP, resolve_tokenizer, tokenizer_warning
from advisor.report import advisory as render
from advisor.report.plot import capacity_curve_png

DEFAULT_OUTPUT = Path("outputs/skill-radix-scheduler-advisor.md")


@app.command("report")
def report_command(
    templates: Optional[List[str]] = typer.Argument(None, metavar="[TEMPLATES]...", help="Prompt templates or folders to audit."),
    traffic: List[Path] = typer.Option([], "--traffic", "-t", help="One traffic file (.jsonl or .jsonl.gz); repeat the option for several."),
    model: str = typer.Option("llama-3.1-8b", help="Model from the catalog (advisor cost --list) or a config.json."),
    gpu: str = typer.Option("h100", help="GPU from the catalog."),
    tp: Optional[int] = typer.Option(None, callback=bounded("--tp"), help="Tensor-parallel degree. Default: the fewest GPUs that fit the weights."),
    kv_dtype: str = typer.Option("bf16", help="bf16 or fp8 KV cache."),
    weight_dtype: Optional[str] = typer.Option(None, help="bf16, fp8 or mxfp4 (MoE experts). Default: as the model ships."),
    mfu: float = typer.Option(DEFAULT_MFU, help="Model FLOPs utilisation of prefill (the serve timings)."),
    bandwidth_util: float = typer.Option(DEFAULT_BANDWIDTH_UTIL, help="Share of GPU bandwidth a decode step achieves."),
    page_size: int = typer.Option(1, min=1, callback=bounded("--page-size"), help="SGLang --page-size to advise for."),
    tokenizer: str = typer.Option("llama3", help="llama3, cl100k, a *.tiktoken file or a tokenizer.json."),
    chat_template: Optional[Path] = typer.Option(None, help="HuggingFace chat template for messages records."),
    model_dir: Optional[Path] = typer.Option(None, "--model-dir", help=MODEL_DIR_HELP + " Its config.json is the "
                                             "model unless --model names another."),
    engine: str = typer.Option("sglang", help="Request preprocessing that renders chat records (the advisory "
                               "is SGLang's): sglang or vllm."),
    engine_version: Optional[str] = typer.Option(None, "--engine-version", help=ENGINE_VERSION_HELP),
    timezone: str = typer.Option("UTC", help=TIMEZONE_HELP),
    record_templates: Optional[Path] = typer.Option(None, "--record-templates", help="Folder of templates named by 'template' records."),
    go_above: float = typer.Option(0.40, min=0.0, max=1.0, help="Go when the measured hit rate is above this."),
    no_go_below: float = typer.Option(0.30, min=0.0, max=1.0, help="No-go when it is below this."),
    uncontrolled: bool = typer.Option(False, "--uncontrolled-templates", help="The team does not control the templates."),
    format: str = typer.Option("markdown", "--format", "-f", help="markdown, or json (printed on stdout)."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help=f"The markdown advisory ('-' for stdout). Default: {DEFAULT_OUTPUT}, or none with --format json."),
) -> None:
    """Write the go/no-go SGLang advisory (markdown, with the capacity curve as a PNG beside it)."""
    check_format(format, ("markdown", "json"))
    check_output(output, [*(templates or []), *traffic])
    check_templates(list(templates or []))
    if no_go_below > go_above:
        raise AdvisorError("--no-go-below must not exceed --go-above")
    if not templates and not traffic:
        raise AdvisorError("give templates to audit, --traffic files to measure, or both")
    tokenizer = resolve_tokenizer(tokenizer, model_dir)
    if model_dir is not None and model == "llama-3.1-8b":
        from advisor.ingest.model_dir import config_of

        found = config_of(model_dir)  # checked, and confined to the folder wherever it is read
        model = str(found) if found is not None else model
    tokenizer_warning(tokenizer, model)
    if tp is not None and tp < 1:
        raise AdvisorError(f"--tp must be at least 1 (got {tp})")
    opts = ReportOptions(model=model, gpu=gpu, tp=tp, kv_dtype=kv_dtype, weight_dtype=weight_dtype, mfu=mfu,
                         bandwidth_util=bandwidth_util, page_size=page_size, tokenizer=tokenizer,
                         chat_template=chat_template, record_templates=record_templates,
                         engine=engine_spec(engine, engine_version), model_dir=model_dir, timezone=timezone,
                         thresholds=Thresholds(go_above, no_go_below), controlled=not uncontrolled)
    skips = SkipLog()
    data = build(list(templates or []), list(traffic), opts, skips)
    skips.summary()
    # --format json: the JSON on stdout; the markdown only where --output names it.
    # (`--format json --output -` is the JSON on stdout alone, as before.)
    markdown_to = output if (output is not None or format == "json") else DEFAULT_OUTPUT
    if format == "json" and markdown_to is not None and str(markdown_to) == "-":
        markdown_to = None
    to_stdout = markdown_to is not None and str(markdown_to) == "-"
    sim = data.get("simulation")
    # The picture goes beside a regular file only (report -o /dev/null writes no /dev/null.png).
    if markdown_to is not None and sim is not None and regular_destination(markdown_to):
        png = markdown_to.with_suffix(".png")
        emit_bytes(capacity_curve_png(sim["curve"], data["cost"]["kv_pool_tokens"], data["cost"]["gpu"],
                                     sim["unlimited_hit_rate"]), png)
        data["picture"] = png.name
    if markdown_to is not None:
        emit(render.to_markdown(data, data.get("picture")), None if to_stdout else markdown_to)
    if format == "json":
        emit(render.to_json(data), None)
    if skips.count:
        raise typer.Exit(1)


def check_templates(paths: list[str]) -> None:
    """A traffic file where templates are expected (``-t a.jsonl b.jsonl`` leaves ``b.jsonl``
    as a template argument) is a usage error that says so."""
    for p in paths:
        name = p.lower()
        if name.endswith((".jsonl", ".jsonl.gz", ".json.gz", ".ndjson")):
            raise AdvisorError(f"{p}: a traffic file given where templates are expected; --traffic takes one "
                               f"file each time (--traffic {p})")
