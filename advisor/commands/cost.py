"""``advisor cost``: the HBM and prefill cost of a shared prefix on a model and GPU.

Parses options, calls ``advisor.api.cost`` (over ``advisor.cost``) and prints; all arithmetic
lives in the library.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from advisor.api.costing import cost
from advisor.cli import app
from advisor.api.bounds import bounded
from advisor.console import out_console, write_stdout
from advisor.report.table import Column, Table, columns, to_markdown, to_rich

from advisor.commands.common import emit
from advisor.cost import (
    DEFAULT_BANDWIDTH_UTIL,
    DEFAULT_MFU,
    GIB,
    REFERENCE_PROMPT_TOKENS,
    CostEstimate,
    kv_bytes_per_token,
    load_catalog,
    not_fitting_message,
)
from advisor.errors import AdvisorError

FORMATS = ("text", "json", "markdown")


def _size(n: float) -> str:
    """Bytes in binary units (engines size pools in 2^30), the exact count kept for small values."""
    for unit, scale in (("GiB", GIB), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if abs(n) >= scale:
            return f"{n / scale:,.2f} {unit}"
    return f"{int(n):,} B"


def _rows(e: CostEstimate) -> list[tuple[str, str, str]]:
    """(quantity, value, how) rows shared by the text and markdown renderings."""
    tp_note = f" across {e.tp} GPUs" if e.tp > 1 else ""
    rows = [
        ("model", f"{e.model} ({e.attention.upper()})", f"params: {e.params_source}"),
        ("GPU", f"{e.gpu} × {e.tp}" if e.tp > 1 else e.gpu, e.gpu_memory_basis),
        ("KV bytes per token", f"{e.kv_bytes_per_token:,} B ({_size(e.kv_bytes_per_token)}){tp_note}",
         f"{e.kv_dtype}; per GPU {e.kv_bytes_per_token_per_gpu:,} B"),
    ]
    if e.sliding_window:
        rows.append((
            "growth per token, SWA-aware pool",
            f"{e.kv_bytes_per_token_full_layers_only:,} B",
            f"{e.sliding_layers} layers slide over {e.sliding_window:,} tokens",
        ))
    rows += _layout_rows(e)
    share = f"{e.prefix_pool_share:.2%} of the pool" if e.weights_fit else "no pool at this TP"
    shipped = "as shipped" if e.weight_dtype == e.weight_dtype_shipped else f"ships {e.weight_dtype_shipped}"
    rows.append(("weights per GPU", _size(e.weight_bytes_per_gpu), f"{e.weight_dtype} ({shipped})"))
    if e.weights_fit:
        rows += [
            ("KV pool", f"{_size(e.kv_pool_bytes)}{tp_note}",
             f"{e.engine} at {e.mem_fraction} ({e.mem_fraction_source})"),
            ("KV pool tokens", f"{e.kv_pool_tokens:,}", "estimate; the engine log line is the truth"),
        ]
    else:
        smallest = f"TP {e.smallest_tp_that_fits}" if e.smallest_tp_that_fits else "none up to TP 16"
        rows += [
            ("KV pool", "none: the weights do not fit",
             f"{e.engine} at {e.mem_fraction} ({e.mem_fraction_source})"),
            ("smallest TP that fits", smallest, "the fewest GPUs whose pool has room after the weights"),
        ]
    rows += [
        (f"prefix of {e.prefix_tokens:,} tokens", f"{e.prefix_bytes:,} B ({_size(e.prefix_bytes)})",
         f"one radix branch; {share}"),
    ]
    if e.sliding_window and e.prefix_bytes_swa_aware != e.prefix_bytes:
        rows.append(("prefix, SWA-aware pool", _size(e.prefix_bytes_swa_aware), "sliding layers capped"))
    rows += [
        (f"batch of {e.batch}, prefix shared", _size(e.batch_bytes_shared), "one copy (radix cache)"),
        (f"batch of {e.batch}, unshared", _size(e.batch_bytes_unshared),
         "one copy" if e.batch == 1 else f"{e.batch} copies"),
    ]
    if e.prefix_tokens or e.unique_tokens:
        seq = f"{e.prefix_tokens:,} prefix + {e.unique_tokens:,} own tokens per sequence"
        shared = (
            f"{e.concurrency_shared:,}" if e.concurrency_shared is not None
            else "unbounded by KV (give --unique-tokens)"
        )
        rows += [
            ("concurrent sequences, unshared", f"{e.concurrency_unshared:,}", seq),
            ("concurrent sequences, shared", shared, "KV limit only; max_running_requests may bind first"),
        ]
    rows += [
        ("prefill FLOPs per hit", f"{e.prefill_flops_per_hit / 1e12:,.2f} TFLOP",
         f"2·N·T + causal attention; N = {e.params_nonembedding_active / 1e9:.2f}B ({e.params_source})"),
        ("prefill time saved per hit", f"{e.prefill_seconds_saved_per_hit * 1e3:,.1f} ms",
         f"at {e.mfu:.0%} MFU of {e.gemm_tflops:g} TFLOPS {e.gemm_dtype} × {e.tp}"),
        ("prefill throughput", f"{e.prefill_tokens_per_s:,.0f} tokens/s",
         f"one cold {REFERENCE_PROMPT_TOKENS:,}-token prompt, compute bound"),
        ("decode step, 1 sequence", f"{e.decode_step_seconds_batch1 * 1e3:,.2f} ms",
         f"weights/TP + KV of {REFERENCE_PROMPT_TOKENS:,} tokens at {e.bandwidth_util:.0%} of "
         f"{e.bandwidth_gb_s:,.0f} GB/s"),
        (f"decode step, batch of {e.batch}", f"{e.decode_step_seconds_batch * 1e3:,.2f} ms",
         f"{e.batch} × ({e.prefix_tokens:,} + {e.unique_tokens:,}) tokens of KV, unshared reads"),
    ]
    return rows


def _layout_rows(e: CostEstimate) -> list[tuple[str, str, str]]:
    """Rows for layouts beyond full and sliding-window attention (state layers, chunked local
    attention, a DSA indexer); nothing for the others, whose rows stay as they were."""
    layout = e.layout
    if not (e.state_layers or layout.get("chunked_attention") or e.indexer_bytes_per_token):
        return []
    rows = [("layer layout", e.layout_summary,
             f"KV per token counts these layers' KV (every layer as attention: {e.kv_bytes_per_token_all_layers:,} B)")]
    if e.state_layers:
        rows.append(("state per running request", _size(e.state_bytes_per_request),
                     f"{e.engine}; one unpadded state: {_size(e.state_bytes_per_sequence)}"))
    blocks = ", ".join(f"{name} {tokens:,}" for name, tokens in sorted(e.cache_block_tokens.items()))
    rows.append(("prefix cache unit (tokens)", blocks, e.cache_granularity_note.get(e.engine, "")))
    return rows


def _table(e: CostEstimate, markdown: bool) -> Table:
    # The markdown table has always left-aligned its values; the terminal's are right-aligned.
    value = Column("value", "left" if markdown else "right")
    t = Table([Column("quantity"), value, Column("how", overflow="fold")],
              title=f"KV and prefill cost: {e.model} on {e.gpu}", title_justify="left")
    for row in _rows(e):
        t.add(*row)
    return t


def _notice(e: CostEstimate) -> list[str]:
    return [] if e.weights_fit else [f"Note: {not_fitting_message(e)}.", ""]


def _markdown(e: CostEstimate) -> str:
    lines = _notice(e) + to_markdown(_table(e, markdown=True))
    lines += ["", f"Model source: {e.model_source}", "", f"GPU source: {e.gpu_source}"]
    return "\n".join(lines) + "\n"


def _print_table(e: CostEstimate) -> None:
    for line in _notice(e)[:1]:
        out_console.print(line, markup=False)
    out_console.print(to_rich(_table(e, markdown=False)))
    # Sources are long; printed once under the table rather than squeezed into a cell.
    out_console.print(f"model source: {e.model_source}", markup=False)
    out_console.print(f"GPU source: {e.gpu_source}", markup=False)


def _print_catalog(fmt: str) -> None:
    catalog = load_catalog()
    if fmt == "json":
        data = {
            "models": [
                {"id": m.id, "aliases": list(m.aliases), "attention": m.attention,
                 "kv_bytes_per_token_bf16": kv_bytes_per_token(m), "source": m.source}
                for m in catalog.models
            ],
            "gpus": [
                {"id": g.id, "aliases": list(g.aliases), "memory_bytes": g.memory_bytes,
                 "tflops_bf16_dense": g.tflops_bf16_dense, "source": g.source}
                for g in catalog.gpus
            ],
        }
        write_stdout(json.dumps(data, indent=2, sort_keys=True))
        return
    models = Table(columns("id", "short names", "attention", "KV B/token (bf16)"), title="models (--model)",
                   title_justify="left")
    for m in catalog.models:
        models.add(m.id, ", ".join(m.aliases), m.attention.upper(), f"{kv_bytes_per_token(m):,}")
    gpus = Table(columns("id", "short names", "memory", "BF16 TFLOPS dense"), title="GPUs (--gpu)",
                 title_justify="left")
    for g in catalog.gpus:
        gpus.add(g.id, ", ".join(g.aliases), g.memory_basis, f"{g.tflops_bf16_dense:g}")
    out_console.print(to_rich(models))
    out_console.print(to_rich(gpus))
    out_console.print("A HuggingFace config.json path is accepted as --model too.", markup=False)


def _choice(value: str, allowed: tuple[str, ...], option: str) -> str:
    value = value.lower()
    if value not in allowed:
        raise AdvisorError(f"{option} must be one of {', '.join(allowed)} (got {value!r})")
    return value


@app.command("cost")
def cost_command(
    model: Optional[str] = typer.Option(None, "--model", help="Catalog name or id, or a config.json path."),
    gpu: Optional[str] = typer.Option(None, "--gpu", help="Catalog GPU (h100, h200, b200, a100, l40s, ...)."),
    tp: int = typer.Option(1, "--tp", callback=bounded("--tp"), help="Tensor-parallel GPUs."),
    kv_dtype: str = typer.Option("bf16", "--kv-dtype", help="KV cache dtype: bf16 or fp8."),
    prefix_tokens: int = typer.Option(0, "--prefix-tokens", help="Tokens of the shared prefix."),
    batch: int = typer.Option(1, "--batch", help="Sequences sharing the prefix at once."),
    unique_tokens: int = typer.Option(0, "--unique-tokens", help="Own (non-prefix) tokens per sequence."),
    engine: str = typer.Option("sglang", "--engine", help="sglang or vllm (sets the pool rule)."),
    mem_fraction: Optional[float] = typer.Option(
        None, "--mem-fraction",
        help="SGLang --mem-fraction-static or vLLM --gpu-memory-utilization (default: the engine's).",
    ),
    mfu: float = typer.Option(DEFAULT_MFU, "--mfu", help="Model FLOPs utilisation for prefill time."),
    weight_dtype: Optional[str] = typer.Option(
        None, "--weight-dtype", help="Weight dtype: bf16, fp8 or mxfp4 (MoE experts). Default: as the model ships."),
    bandwidth_util: float = typer.Option(DEFAULT_BANDWIDTH_UTIL, "--bandwidth-util",
                                         help="Share of GPU bandwidth a decode step achieves."),
    fmt: str = typer.Option("text", "--format", "-f", help="text, json or markdown."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write to this file instead of stdout."),
    list_catalog: bool = typer.Option(False, "--list", help="List the catalog's models and GPUs."),
    model_dir: Optional[Path] = typer.Option(None, "--model-dir",
                                             help="A HuggingFace model folder: its config.json is the model."),
) -> None:
    """HBM cost of a shared prefix (KV bytes, pool share, batch with/without sharing) and prefill saved per hit."""
    fmt = _choice(fmt, FORMATS, "--format")
    if list_catalog:
        _print_catalog(fmt)
        return
    result = cost(model, gpu, tp=tp, kv_dtype=kv_dtype, prefix_tokens=prefix_tokens, batch=batch,
                  unique_tokens=unique_tokens, engine=engine, mem_fraction=mem_fraction, mfu=mfu,
                  weight_dtype=weight_dtype, bandwidth_util=bandwidth_util, model_dir=model_dir)
    estimate = result.estimate
    if fmt == "json":
        text = result.to_json()
        if output is None:
            write_stdout(text.rstrip("\n"))
        else:
            emit(text, output)
    elif fmt == "markdown" or output is not None:
        # A text report written to a file is its markdown rendering (no terminal codes).
        if output is None:
            write_stdout(_markdown(estimate))
        else:
            emit(_markdown(estimate), output)
    else:
        _print_table(estimate)
