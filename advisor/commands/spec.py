"""`advisor spec`: the workload spec's schema, checks and the traffic generated from it."""

from __future__ import annotations

from pathlib import Path

import typer

from advisor.cli import app
from advisor.api.bounds import bounded
from advisor.commands.common import check_output, emit
from advisor.commands.plan import spec_from
from advisor.errors import AdvisorError
from advisor.spec.load import EXAMPLES
from advisor.spec.model import MAX_REQUESTS

spec_app = typer.Typer(help="Workload specs: --schema, check, generate.", no_args_is_help=False,
                       rich_markup_mode=None)
app.add_typer(spec_app, name="spec")


@spec_app.callback(invoke_without_command=True)
def spec_group(
    ctx: typer.Context,
    schema: bool = typer.Option(False, "--schema", help="Print the spec format's JSON Schema."),
) -> None:
    """Workload specs: describe a workload before there are logs (advisor plan reads them)."""
    if schema:
        from advisor.spec.schema import schema_json

        emit(schema_json(), None)
        raise typer.Exit(0)
    if ctx.invoked_subcommand is None:
        raise AdvisorError("give --schema, or a subcommand: check SPEC, generate SPEC -o FILE")


@spec_app.command("check")
def check_command(
    spec: Path | None = typer.Argument(None, metavar="[SPEC]", help="Workload spec (YAML)."),
    example: str | None = typer.Option(None, "--example", help=f"A bundled spec: {', '.join(EXAMPLES)}."),
    # plan's options that stand in for fields of the spec: the spec checked is the one plan would run.
    requests: int | None = typer.Option(None, callback=bounded("--requests"), help=f"Requests, as plan --requests (default: the spec's; at most {MAX_REQUESTS:,})."),
    seed: int | None = typer.Option(None, min=0, help="Seed, as plan --seed (default: the spec's)."),
    rate: float | None = typer.Option(None, help="Requests/s, as plan --rate (default: the spec's arrival.rate)."),
    output_len: int | None = typer.Option(None, min=1, callback=bounded("--output-len"),
                                          help="Output tokens, as plan --output-len (default: the spec's)."),
) -> None:
    """Validate a spec as plan runs it: its first problem as one line naming the file, line
    and key (or the option); exit 2."""
    from advisor.spec.plan import with_serving

    loaded = with_serving(spec_from(spec, example, requests, seed), output_len, rate)
    emit(f"{loaded.name}: valid ({len(loaded.sections())} sections, {loaded.requests:,} requests)\n", None)


@spec_app.command("generate")
def generate_command(
    spec: Path | None = typer.Argument(None, metavar="[SPEC]", help="Workload spec (YAML)."),
    example: str | None = typer.Option(None, "--example", help=f"A bundled spec: {', '.join(EXAMPLES)}."),
    output: Path = typer.Option(..., "--output", "-o", help="Traffic file to write (JSON Lines; '-': stdout)."),
    requests: int | None = typer.Option(None, callback=bounded("--requests"), help=f"Requests (default: the spec's; at most {MAX_REQUESTS:,})."),
    seed: int | None = typer.Option(None, min=0, help="Seed (default: the spec's)."),
) -> None:
    """Write the spec's traffic: seeded `messages` records of real text, exact section lengths."""
    from advisor.spec.generate import generate

    check_output(output, [spec] if spec else [])  # before generating: a bad -o costs nothing
    gen = generate(spec_from(spec, example, requests, seed))
    emit(gen.jsonl(), None if str(output) == "-" else output)
