"""`advisor render`: what the engine sees, record by record: the rendered text with its
special tokens, the token ids, their count, or why the record is skipped."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, List, Optional

import typer

from advisor.cli import app
from advisor.commands.common import INPUT_FORMAT_HELP, check_format, check_output, emit
from advisor.errors import AdvisorError
from advisor.ingest.chat import clock_for
from advisor.ingest.formats import check_format as check_input_format
from advisor.ingest.formats import iter_requests
from advisor.ingest.pipeline import check_prompt, reason_of
from advisor.ingest.preprocess import DEFAULT_ENGINE, ENGINE_HELP, ENGINE_VERSION_HELP, engine_spec
from advisor.ingest.source import MODEL_DIR_HELP, TIMEZONE_HELP, make_renderer, resolve_tokenizer
from advisor.ingest.traffic import Request, Skip, check_paths

FORMATS = ("text", "json")


def _record(req: Request, renderer: Any, block_size: int) -> dict[str, Any]:
    out: dict[str, Any] = {"line": req.line, "id": req.id, "kind": req.kind, "text": None, "tokens": None,
                           "count": 0, "skipped": None}
    tok = renderer.tokenizer
    try:
        direct = renderer.ids_of(req)
        if direct is not None:
            # Encoded without text (mistral-common): the text shown is the ids decoded.
            out.update(text=tok.decode(direct), tokens=direct, count=len(direct))
            return out
        text = renderer.text_of(req)
        if text is None:
            if req.kind == "hash_ids":
                # Block hashes are not tokens: the count is the tokens they stand for.
                out["tokens"] = list(req.hash_ids or ())
                out["count"] = int(req.input_length or len(out["tokens"]) * block_size)
                return out
            ids = list(req.input_ids or ())
            if ids and max(ids) >= tok.vocab_size:
                raise AdvisorError(f"token id {max(ids)} is outside the tokenizer's vocabulary ({tok.vocab_size})")
            out["text"] = tok.decode(ids)
        else:
            check_prompt(text)
            ids = list(tok.encode(text))
            out["text"] = text
            if renderer.reads_clock and req.kind != "prompt":
                # The date the template's strftime_now saw: the request's time, or the fixed one.
                out["clock"] = clock_for(req.timestamp, renderer.timezone).isoformat()
        out["tokens"] = ids
        out["count"] = len(ids)
    except Exception as exc:  # the per-record guard: whatever fails in one record is its skip
        out["skipped"] = reason_of(exc)
    return out


@app.command("render")
def render_command(
    traffic: List[Path] = typer.Argument(..., help="Traffic files (.jsonl or .jsonl.gz)."),
    line: Optional[int] = typer.Option(None, "--line", min=1, help="Only the record on this line."),
    tokenizer: str = typer.Option("llama3", help="llama3, cl100k, a *.tiktoken file or a tokenizer.json."),
    chat_template: Optional[Path] = typer.Option(None, help="HuggingFace chat template (.jinja or tokenizer_config.json)."),
    model_dir: Optional[Path] = typer.Option(None, "--model-dir", help=MODEL_DIR_HELP),
    engine: str = typer.Option(DEFAULT_ENGINE, help=ENGINE_HELP),
    engine_version: Optional[str] = typer.Option(None, "--engine-version", help=ENGINE_VERSION_HELP),
    timezone: str = typer.Option("UTC", help=TIMEZONE_HELP),
    templates: Optional[Path] = typer.Option(None, help="Folder of prompt templates for 'template' records."),
    block_size: int = typer.Option(512, min=1, help="Tokens per hash_ids block."),
    input_format: str = typer.Option("auto", help=INPUT_FORMAT_HELP),
    format: str = typer.Option("text", "--format", "-f", help="text or json."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write the output to this file."),
) -> None:
    """Show what the engine sees: rendered text (special tokens visible), token ids, count."""
    check_format(format, FORMATS)
    check_output(output, [*traffic, *([chat_template] if chat_template else [])])
    forced = check_input_format(input_format)
    tokenizer = resolve_tokenizer(tokenizer, model_dir)
    files = check_paths(traffic)
    renderer = make_renderer(tokenizer, chat_template, templates, files, engine=engine_spec(engine, engine_version),
                             model_dir=model_dir,
                             timezone=timezone)
    records: list[dict[str, Any]] = []

    def on_skip(skip: Skip) -> None:
        if line is None or skip.line == line:
            records.append({"line": skip.line, "id": None, "kind": None, "text": None, "tokens": None, "count": 0,
                            "skipped": skip.reason, **({"file": skip.source} if len(files) > 1 else {})})

    for req in iter_requests(files, on_skip, block_size, forced):
        if line is not None and req.line != line:
            continue
        rec = _record(req, renderer, block_size)
        if len(files) > 1:
            rec["file"] = req.source
        records.append(rec)
    if line is not None and not records:
        raise AdvisorError(f"no record on line {line}")
    skipped = sum(1 for r in records if r["skipped"] is not None)
    text = json.dumps({"records": records}, ensure_ascii=False) + "\n" if format == "json" else _text(records)
    emit(text, output)
    if skipped:
        raise typer.Exit(1)


def _text(records: list[dict[str, Any]]) -> str:
    parts = []
    for r in records:
        where = f"{r['file']}:{r['line']}" if "file" in r else f"line {r['line']}"
        head = f"== {where}" + (f" id {r['id']}" if r["id"] is not None else "")
        if r["skipped"] is not None:
            parts.append(f"{head}: skipped: {r['skipped']}\n")
            continue
        parts.append(f"{head}: {r['count']:,} tokens ({r['kind']})\n")
        if r["text"] is not None:
            parts.append(r["text"] + ("" if r["text"].endswith("\n") else "\n"))
        parts.append("-- ids: " + " ".join(str(i) for i in r["tokens"]) + "\n")
    return "".join(parts)
