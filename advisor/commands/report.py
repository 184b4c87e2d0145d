"""`advisor report`: the go/no-go SGLang advisory from templates and measured traffic."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from advisor.advise import ReportOptions, Thresholds, build
from advisor.cli import app
from advisor.commands.bounds import bounded
from advisor.commands.common import SkipLog, check_format, check_output, emit, emit_bytes, is_stdout, regular_destination
from advisor.errors import AdvisorError
from advisor.ingest.source import MODEL_DIR_HELP, TIMEZONE_HELP, resolve_tokenizer, tokenizer_warning
from advisor.report import advisory as render
from advisor.report.plot import capacity_curve_png

DEFAULT_OUTPUT = Path("outputs/skill-radix-scheduler-advisor.md")


@app.command("report")
def report_command(
    templates: Optional[List[str]] = typer.Argument(None, metavar="[TEMPLATES]...", help="Prompt templates or folders to audit."),
    traffic: List[Path] = typer.Option([], "--traffic", "-t", help="Traffic files (repeat the option for several)."),
    model: str = typer.Option("llama-3.1-8b", help="Model from the catalog (advisor cost --list) or a config.json."),
    gpu: str = typer.Option("h100", help="GPU from the catalog."),
    tp: int = typer.Option(1, min=1, callback=bounded("--tp"), help="Tensor-parallel degree."),
    kv_dtype: str = typer.Option("bf16", help="bf16 or fp8 KV cache."),
    page_size: int = typer.Option(1, min=1, callback=bounded("--page-size"), help="SGLang --page-size to advise for."),
    tokenizer: str = typer.Option("llama3", help="llama3, cl100k, a *.tiktoken file or a tokenizer.json."),
    chat_template: Optional[Path] = typer.Option(None, help="HuggingFace chat template for messages records."),
    model_dir: Optional[Path] = typer.Option(None, "--model-dir", help=MODEL_DIR_HELP + " Its config.json is the "
                                             "model unless --model names another."),
    engine: str = typer.Option("sglang", help="Request preprocessing that renders chat records (the advisory "
                               "is SGLang's): sglang or vllm."),
    timezone: str = typer.Option("UTC", help=TIMEZONE_HELP),
    record_templates: Optional[Path] = typer.Option(None, "--record-templates", help="Folder of templates named by 'template' records."),
    go_above: float = typer.Option(0.40, min=0.0, max=1.0, help="Go when the measured hit rate is above this."),
    no_go_below: float = typer.Option(0.30, min=0.0, max=1.0, help="No-go when it is below this."),
    uncontrolled: bool = typer.Option(False, "--uncontrolled-templates", help="The team does not control the templates."),
    format: str = typer.Option("markdown", "--format", "-f", help="markdown or json."),
    output: Path = typer.Option(DEFAULT_OUTPUT, "--output", "-o", help="Where to write the advisory ('-' for stdout)."),
) -> None:
    """Write the go/no-go SGLang advisory (markdown, with the capacity curve as a PNG beside it)."""
    check_format(format, ("markdown", "json"))
    check_output(output, [*(templates or []), *traffic])
    if no_go_below > go_above:
        raise AdvisorError("--no-go-below must not exceed --go-above")
    if not templates and not traffic:
        raise AdvisorError("give templates to audit, --traffic files to measure, or both")
    tokenizer = resolve_tokenizer(tokenizer, model_dir)
    if model_dir is not None and model == "llama-3.1-8b" and (model_dir / "config.json").is_file():
        model = str(model_dir / "config.json")
    tokenizer_warning(tokenizer, model)
    opts = ReportOptions(model=model, gpu=gpu, tp=tp, kv_dtype=kv_dtype, page_size=page_size, tokenizer=tokenizer,
                         chat_template=chat_template, record_templates=record_templates,
                         engine=engine, model_dir=model_dir, timezone=timezone,
                         thresholds=Thresholds(go_above, no_go_below), controlled=not uncontrolled)
    skips = SkipLog()
    data = build(list(templates or []), list(traffic), opts, skips)
    skips.summary()
    to_stdout = is_stdout(output)
    picture = None
    sim = data.get("simulation")
    # The picture goes beside a regular file only (report -o /dev/null writes no /dev/null.png).
    if sim is not None and regular_destination(output):
        png = output.with_suffix(".png")
        emit_bytes(capacity_curve_png(sim["curve"], data["cost"]["kv_pool_tokens"], data["cost"]["gpu"],
                                     sim["unlimited_hit_rate"]), png)
        picture = png.name
        data["picture"] = picture
    text = render.to_json(data) if format == "json" else render.to_markdown(data, picture)
    emit(text, None if to_stdout else output)
    if skips.count:
        raise typer.Exit(1)
