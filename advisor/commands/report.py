"""`advisor report`: the go/no-go SGLang advisory from templates and measured traffic."""

from __future__ import annotations

import math
from contextlib import nullcontext
from pathlib import Path
from typing import List, Optional

import typer

from advisor.cost import DEFAULT_BANDWIDTH_UTIL, DEFAULT_MFU
from advisor.cli import app
from advisor.api.advisory import check_templates, report
from advisor.api.bounds import bounded
from advisor.advise.money import check_gpu_hour_price
from advisor.commands.outputs import model_inputs
from advisor.commands.common import (
    SkipLog, check_format, check_output, emit, emit_bytes, regular_destination, with_progress,
)
from advisor.errors import AdvisorError
from advisor.ingest.preprocess import ENGINE_VERSION_HELP
from advisor.ingest.source import MODEL_DIR_HELP, TIMEZONE_HELP
from advisor.report import advisory as render
from advisor.report.plot import Painter

DEFAULT_OUTPUT = Path("outputs/skill-radix-scheduler-advisor.md")


def _rate(value: Optional[float]) -> Optional[float]:
    """``--rate``: requests/s, refused as simulate refuses it (typer reads "nan" and "inf" too)."""
    if value is not None and not math.isfinite(value):
        raise AdvisorError(f"--rate must be a finite number of requests/s (got {value})")
    if value is not None and not value > 0:
        raise AdvisorError("--rate must be positive")
    return value


def _default(path: Path) -> Path:
    """The default destination, its folder made when missing: only a folder the user names
    with -o must exist (a typo there is refused); outputs/ is advisor's own choice."""
    try:
        path.parent.mkdir(exist_ok=True)
    except OSError as exc:
        raise AdvisorError(f"{path.parent}: cannot create the default output folder ({exc.strerror or exc})") from None
    return path


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
    # simulate's --rate and --output-len, with what the advisory adds: a request's max_tokens.
    rate: Optional[float] = typer.Option(None, callback=_rate, help="Poisson arrivals at this many requests/s (serve mode), in place "
                                         "of the logged timestamps. Default: the timestamps, else all at once."),
    output_len: Optional[int] = typer.Option(None, min=1, callback=bounded("--output-len"), help="Output tokens for "
                                             "records without output_length (default 1), at most a request's own "
                                             "max_tokens. Default: that max_tokens where the request has one."),
    gpu_hour_price: Optional[float] = typer.Option(None, "--gpu-hour-price", callback=check_gpu_hour_price, help="USD per GPU-hour of the self-hosted bill ('What it costs'). Default: the GPU's cited on-demand price, where it has one."),
    format: str = typer.Option("markdown", "--format", "-f", help="markdown, json (printed on stdout), or html (one self-contained interactive page)."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help=f"The markdown advisory ('-' for stdout). Default: {DEFAULT_OUTPUT}, or none with --format json; "
                                          f"with --format html the page, default {DEFAULT_OUTPUT.with_suffix('.html')}."),
) -> None:
    """Write the go/no-go SGLang advisory (markdown, with the capacity curve as a PNG beside it)."""
    check_format(format, ("markdown", "json", "html"))
    check_output(output, [*(templates or []), *traffic, *model_inputs(model, model_dir)])
    check_templates(list(templates or []))
    skips = SkipLog()  # the first skipped lines on stderr as they happen
    # --format json: the JSON on stdout; the markdown only where --output names it.
    # (`--format json --output -` is the JSON on stdout alone, as before.)
    # (The default's folder is made once the advisory is computed: not for a failed run.)
    markdown_to = output if (output is not None or format == "json") else DEFAULT_OUTPUT
    if format == "json" and markdown_to is not None and str(markdown_to) == "-":
        markdown_to = None
    # The picture goes beside a regular file only (report -o /dev/null writes no
    # /dev/null.png), where there is traffic to simulate: its drawing loads meanwhile.
    drawn = format != "html" and bool(traffic) and markdown_to is not None and regular_destination(markdown_to)
    with Painter() if drawn else nullcontext() as painter:
        result = report(traffic or None, templates=list(templates or []), model=model, gpu=gpu, tp=tp, kv_dtype=kv_dtype,
                        weight_dtype=weight_dtype, mfu=mfu, bandwidth_util=bandwidth_util, page_size=page_size,
                        tokenizer=tokenizer, chat_template=chat_template, model_dir=model_dir, engine=engine,
                        engine_version=engine_version, timezone=timezone, record_templates=record_templates,
                        go_above=go_above, no_go_below=no_go_below, controlled=not uncontrolled,
                        views=format == "html", output_len=output_len, rate=rate,
                        gpu_hour_price=gpu_hour_price, on_skip=skips, progress=with_progress)
        skips.summary()
        data = result.data
        if format == "html":
            # The page alone: its capacity curves are drawn in the page, not as a PNG beside it.
            from advisor.report.html import to_html

            page_to = output if output is not None else _default(DEFAULT_OUTPUT.with_suffix(".html"))
            emit(to_html(data, "report"), None if str(page_to) == "-" else page_to, escape=False)
            if result.skipped_count:
                raise typer.Exit(1)
            return
        if markdown_to is DEFAULT_OUTPUT:
            markdown_to = _default(DEFAULT_OUTPUT)
        to_stdout = markdown_to is not None and str(markdown_to) == "-"
        if painter is not None and data.get("simulation") is not None:
            assert markdown_to is not None
            png = markdown_to.with_suffix(".png")
            emit_bytes(painter.png(data), png)
            data["picture"] = png.name
    if markdown_to is not None:
        emit(render.to_markdown(data, data.get("picture")), None if to_stdout else markdown_to)
    if format == "json":
        emit(result.to_json(), None)
    if result.skipped_count:
        raise typer.Exit(1)
