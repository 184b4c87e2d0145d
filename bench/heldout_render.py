"""Render traffic records with the advisor checkout this runs in (its PYTHONPATH), one per line.

Reads JSON records on stdin, writes ``{"text": ...}`` (or ``{"ids": [...]}`` for token-id
records, ``{"error": ...}`` when the record does not render) per line on stdout. The held-out
bench runs it with the interpreter of the checkout under test, so that offsets and the truth
are measured on the text that checkout's `advisor analyze` sees (chat layouts change between
versions: Llama 3 then Llama 3.1 Instruct, tools in the system or the first user turn).

Only the rendering entry points are used, looked up where each version keeps them.

  heldout_render.py [--tokenizer NAME] [--chat-template PATH]

renders as `advisor analyze` with those arguments does (a held-out set's ANALYZE_ARGS, e.g. the
eighth set's Qwen 2.5 tokenizer and chat template); without them, the default Llama 3 layout.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def _renderer(tokenizer: str, chat_template: Path | None):
    try:
        from advisor.ingest.source import make_renderer
    except ImportError:  # before the traffic set-up moved below the command layer
        from advisor.commands.common import make_renderer
    return make_renderer(tokenizer, chat_template, None, [Path.cwd() / "traffic.jsonl"])


def _options(argv: list[str]) -> tuple[str, Path | None]:
    ap = argparse.ArgumentParser(description="render held-out records as `advisor analyze` does")
    ap.add_argument("--tokenizer", default="llama3")
    ap.add_argument("--chat-template", type=Path, default=None)
    args = ap.parse_args(argv)
    return args.tokenizer, args.chat_template


def main(argv: list[str] | None = None) -> int:
    from advisor.ingest.traffic import parse_record

    renderer = _renderer(*_options(sys.argv[1:] if argv is None else argv))
    for n, line in enumerate(sys.stdin, 1):
        try:
            req = parse_record(json.loads(line), "heldout", n)
            text = renderer.text_of(req)
            out = {"text": text} if text is not None else {"ids": list(req.input_ids or ())}
        except Exception as exc:  # reported to the caller, which stops with the record's line
            out = {"error": f"{type(exc).__name__}: {exc}"}
        sys.stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
