"""``prescribe``: what to change in the prompts, and the hit rate measured after each change."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from advisor.api.checks import checked
from advisor.api.bounds import check_options
from advisor.api.sources import Progress, Result, SkipCollector, SkipHook, Traffic, passthrough, shown_names, \
    traffic_sources, with_skips
from advisor.beside import Beside
from advisor.diagnose.detect import diagnose
from advisor.errors import AdvisorError
from advisor.findings import Finding
from advisor.ingest.memo import MemoEncoder
from advisor.ingest.pipeline import Sequence
from advisor.ingest.preprocess import DEFAULT_ENGINE, engine_spec
from advisor.ingest.source import make_renderer, open_traffic, resolve_tokenizer
from advisor.ingest.tokenizers import load_tokenizer
from advisor.prescribe.actions import Prescription, prescribe as prescribe_actions
from advisor.prescribe.canonical import tool_name
from advisor.prescribe.template_diff import template_diffs
from advisor.simulate.runner import Largest, check_capacity
from advisor.report import prescription as render
from advisor.report.notebook import prescription_html


@dataclass
class PrescribeResult(Result):
    """What ``prescribe`` found and measured: ``data`` is ``advisor prescribe --format json``.

    ``prescription`` holds the actions, the findings they answer and the rewritten traffic;
    ``findings`` the traffic findings as ``Finding`` objects; ``files`` the traffic as the
    report names it."""

    prescription: Prescription = field(kw_only=True)
    findings: list[Finding] = field(default_factory=list)
    files: list[str] = field(default_factory=list)

    @property
    def hit_rate(self) -> float:
        """The hit rate of the traffic as it is (``hit_rate_before``)."""
        return float(self.data["hit_rate_before"])

    @property
    def hit_rate_before(self) -> float:
        """The hit rate of the traffic as it is."""
        return float(self.data["hit_rate_before"])

    @property
    def hit_rate_after(self) -> float:
        """The hit rate of the traffic rewritten by every action together."""
        return float(self.data["hit_rate_after"])

    @property
    def requests(self) -> int:
        """Requests measured."""
        return int(self.data["requests"])

    @property
    def prompt_tokens(self) -> int:
        """Prompt tokens of the traffic as it is."""
        return int(self.data["prompt_tokens"])

    @property
    def cached_tokens(self) -> int:
        """Cached tokens of the traffic as it is."""
        return int(self.data["cached_tokens_before"])

    @property
    def cached_tokens_after(self) -> int:
        """Cached tokens after every action."""
        return int(self.data["cached_tokens_after"])

    @property
    def actions(self) -> list[dict[str, Any]]:
        """Each action as the JSON shows it (kind, description, hit_rate_after, tokens_gained, ...)."""
        return list(self.data["actions"])

    def _json(self) -> str:
        return render.to_json(self.data)

    def _repr_html_(self) -> str:
        return prescription_html(self.data)



def _held(seq: Sequence) -> int:
    """The pool tokens a request holds: its prompt, in whole blocks for block hashes."""
    return len(seq.ids) * seq.unit if seq.unit != 1 else seq.prompt_tokens


@checked
def prescribe(
    traffic: Traffic,
    *,
    templates: str | Path | None = None,
    tokenizer: str = "llama3",
    chat_template: str | Path | None = None,
    engine: str = DEFAULT_ENGINE,
    engine_version: str | None = None,
    model_dir: str | Path | None = None,
    timezone: str = "UTC",
    page_size: int = 1,
    capacity_tokens: int | None = None,
    block_size: int = 512,
    input_format: str = "auto",
    views: bool = False,
    on_skip: SkipHook | None = None,
    progress: Progress | None = None,
) -> PrescribeResult:
    """Diagnose the traffic, prescribe a fix per finding, and measure the hit rate after it.

    ``traffic``: a path, a list of paths, or records. The options are ``advisor prescribe``'s,
    with its defaults: ``templates`` is the folder of prompt templates (diffs that carry out
    each fix, and the templates of ``template`` records); ``capacity_tokens`` measures through
    an LRU pool of that size. ``views`` adds what the HTML report draws (``data["views"]``: the
    prefix tree, example requests before and after the rewrite). ``on_skip`` and ``progress``
    as for ``analyze``. Raises
    ``AdvisorError`` with the command's one-line messages."""
    check_options(page_size=page_size, capacity_tokens=capacity_tokens, block_size=block_size)
    folder = Path(templates) if templates is not None else None
    if folder is not None and not folder.is_dir():
        raise AdvisorError(f"{folder}: templates folder not found")
    sources = traffic_sources(traffic)
    chat = Path(chat_template) if chat_template is not None else None
    model_folder = Path(model_dir) if model_dir is not None else None
    skips = SkipCollector(forward=on_skip)
    engine = engine_spec(engine, engine_version)
    tokenizer = resolve_tokenizer(tokenizer, model_folder)
    tok = load_tokenizer(tokenizer)
    seqs_iter = open_traffic(sources, tokenizer, chat, folder, block_size, skips, MemoEncoder(tok),
                             input_format=input_format, engine=engine, model_dir=model_folder, timezone=timezone)
    seqs = list((progress or passthrough)(seqs_iter, "prescribe"))
    if not seqs:
        raise AdvisorError("no usable requests in the traffic")
    if capacity_tokens is not None:  # measured in arrival order: no decode reserve
        big = max(seqs, key=_held)
        check_capacity(capacity_tokens, Largest(_held(big), _held(big), f"{big.request.source}:{big.request.line}"),
                       "--capacity-tokens")
    # Rewritten requests render through the same settings as the logged ones.
    renderer = make_renderer(tokenizer, chat, folder, sources, engine=engine, model_dir=model_folder,
                             timezone=timezone)
    # A helper (advisor.beside) diagnoses the traffic while the prescription searches the
    # canonical order, which needs no diagnosis.
    with Beside(lambda: diagnose(seqs, tok)) as helper:
        result = prescribe_actions(seqs, renderer, lambda: helper.result(0), page_size, capacity_tokens)
        diagnosis = helper.result(0)
    if folder is not None or chat is not None:
        destinations = {a.finding: a.details["to"] for a in result.actions
                        if a.finding is not None and "to" in a.details}
        pins = [a.finding for a in result.actions if a.kind == "pin-template-value" and a.finding is not None]
        sorts = [a.finding for a in result.actions if a.kind == "sort-tool-definitions" and a.finding is not None]
        by_text: list[int] = []  # order findings whose units a template loop writes: sorted by text
        canon = next((a for a in result.actions if a.kind == "canonical-order"), None)
        if canon is not None:
            # The canonical order answers every finding of the diagnosis it changes: tools in
            # one order, sections in one order, values where the variant measured best put them.
            # (Whether it sends some request's tools in another order: the diagnosis may read
            # them as blocks of content, "content-order", where the chat template prints them.)
            names = [[tool_name(t) for t in (seq.request.tools or ())] for seq in seqs]
            resorted = any(names[k] != [tool_name(t) for t in (seq.request.tools or ())]
                           for k, seq in enumerate(result.rewritten or ()))
            ordered = [k for k, f in enumerate(result.findings) if f.code == "TR201"]
            tools = [k for k in ordered if result.findings[k].kind == "tool-order"]
            # (Named by the canonical order or not: a loop sorts them. Where no finding is of
            # the tools' order, the first order finding is, if the tools were sorted.)
            sorts.extend(tools or (ordered[:1] if resorted else []))
            for k, f in enumerate(result.findings):
                if f.cause is not None or f.from_layout or k in sorts:
                    continue
                if f.code == "TR201":
                    (sorts if f.kind == "tool-order" else by_text).append(k)
                elif f.code in ("TR101", "TR102") and "to" in canon.details:
                    destinations.setdefault(k, canon.details["to"])
        # (The findings prescribe measured, the ones a second look found after the first fixes
        # among them: the actions' finding numbers count in that list.)
        measured = dataclasses.replace(diagnosis, findings=result.findings)
        result.diffs = template_diffs(folder, measured, destinations, pins, chat, sorts, by_text)
    files = shown_names(sources)
    data = render.prescription_dict(result, files, tokenizer)
    if views:
        from advisor.advise.views import traffic_views

        data["views"] = traffic_views(seqs, tok.decode, diagnosis=diagnosis, prescription=result, page_size=page_size)
    return with_skips(PrescribeResult(data, prescription=result, findings=list(result.findings), files=files), skips)
