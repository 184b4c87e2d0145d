"""`advisor plan`: the go/no-go advisory from a workload description, before there are logs."""

from __future__ import annotations

from contextlib import nullcontext
from pathlib import Path

import typer

from advisor.cli import app
from advisor.api.bounds import bounded
from advisor.commands.common import check_format, check_output, emit, emit_bytes, is_stdout, regular_destination
from advisor.errors import AdvisorError
from advisor.spec.load import EXAMPLES, load_example, load_spec
from advisor.spec.model import MAX_REQUESTS, Spec


def spec_from(spec: Path | None, example: str | None, requests: int | None, seed: int | None) -> Spec:
    """The spec `plan`, `spec check` and `spec generate` work on: read and validated whole,
    with --requests and --seed checked as the file's own fields (one validation for all three)."""
    if (spec is None) == (example is None):
        raise AdvisorError(f"give a spec file or --example NAME ({', '.join(EXAMPLES)}), not both")
    if example is not None:
        return load_example(example, requests=requests, seed=seed)
    assert spec is not None
    return load_spec(spec, requests=requests, seed=seed)


def _gpu_hour_price(value: float | None) -> float | None:
    # The check lives with the prices (advisor.advise.money); imported here, not at the top,
    # so `advisor plan --help` loads no pipeline.
    from advisor.advise.money import check_gpu_hour_price

    return check_gpu_hour_price(value)


@app.command("plan")
def plan_command(
    spec: Path | None = typer.Argument(None, metavar="[SPEC]", help="Workload spec (YAML; advisor spec --schema)."),
    example: str | None = typer.Option(None, "--example", help=f"A bundled spec: {', '.join(EXAMPLES)}."),
    requests: int | None = typer.Option(None, callback=bounded("--requests"), help=f"Requests to generate (default: the spec's; at most {MAX_REQUESTS:,})."),
    seed: int | None = typer.Option(None, min=0, help="Seed (default: the spec's)."),
    go_above: float = typer.Option(0.40, min=0.0, max=1.0, help="Go when the planned hit rate is above this."),
    no_go_below: float = typer.Option(0.30, min=0.0, max=1.0, help="No-go when it is below this."),
    # report's --rate and --output-len; here they stand in for the spec's fields (advisor.spec.plan).
    rate: float | None = typer.Option(None, help="Poisson arrivals at this many requests/s (serve mode), in place "
                                      "of the spec's arrival.rate (and its timestamps: false)."),
    output_len: int | None = typer.Option(None, min=1, callback=bounded("--output-len"), help="Output tokens of "
                                          "every request, in place of the spec's output_tokens."),
    gpu_hour_price: float | None = typer.Option(None, "--gpu-hour-price", callback=_gpu_hour_price, help="USD per GPU-hour of the self-hosted bill ('What it costs'). Default: the GPU's cited on-demand price, where it has one."),
    format: str = typer.Option("markdown", "--format", "-f", help="markdown or json."),
    output: Path = typer.Option(Path("-"), "--output", "-o", help="Where to write the advisory ('-': stdout)."),
) -> None:
    """Plan from a description: generate its traffic, run the whole pipeline, add the ordering recipe."""
    check_format(format, ("markdown", "json"))
    check_output(output, [spec] if spec else [])
    if no_go_below > go_above:
        raise AdvisorError("--no-go-below must not exceed --go-above")
    from advisor.report import advisory as render
    from advisor.report.plot import Painter
    from advisor.spec import report as plan_render
    from advisor.spec.plan import Thresholds, plan

    # The picture goes beside a regular file only; its drawing loads while the plan runs.
    painter = Painter() if regular_destination(output) and format == "markdown" else None
    with painter or nullcontext():
        data = plan(spec_from(spec, example, requests, seed), Thresholds(go_above, no_go_below),
                    output_len=output_len, rate=rate, gpu_hour_price=gpu_hour_price)
        to_stdout = is_stdout(output)
        picture = None
        if data.get("simulation") is not None and painter is not None:
            png = output.with_suffix(".png")
            emit_bytes(painter.png(data), png)
            picture = png.name
            data["picture"] = picture
    text = render.to_json(data) if format == "json" else plan_render.to_markdown(data, picture)
    emit(text, None if to_stdout else output)
