"""``analyze``: the prefix-cache hit rate the traffic allows (unlimited cache), and why hits are lost."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from advisor.api.architecture import geometry_for, model_for
from advisor.api.checks import checked
from advisor.api.bounds import check_options
from advisor.api.sources import Progress, Result, SkipCollector, SkipHook, Traffic, passthrough, shown_names, \
    traffic_sources, with_skips
from advisor.console import log
from advisor.errors import AdvisorError
from advisor.findings import Finding
from advisor.index.analyze import Analysis, Analyzer, top_branches
from advisor.index.granularity import granularity_finding
from advisor.index.partition import run_partitioned
from advisor.ingest.decoder import release_tokenizer as released
from advisor.ingest.memo import MemoEncoder, MemoStats
from advisor.ingest.pipeline import Sequence
from advisor.ingest.preprocess import DEFAULT_ENGINE, engine_spec
from advisor.ingest.source import open_traffic, resolve_tokenizer
from advisor.ingest.spill import SequenceSpill
from advisor.ingest.tokenizers import load_tokenizer
from advisor.report import analysis as render
from advisor.report.notebook import analysis_html
from advisor.verify.collect import watch
from advisor.verify.compare import Observed, compare


@dataclass
class AnalyzeResult(Result):
    """What ``analyze`` measured: ``data`` is ``advisor analyze --format json``.

    ``findings`` are the traffic findings (TR codes) as ``Finding`` objects (empty without the
    diagnosis), ``analysis`` the index's totals, ``files`` the traffic as the report names it
    and ``tokenizer_cache`` the tokenizer memo's statistics."""

    findings: list[Finding] = field(default_factory=list)
    analysis: Analysis = field(kw_only=True)
    files: list[str] = field(default_factory=list)
    tokenizer_cache: MemoStats | None = None

    @property
    def hit_rate(self) -> float:
        """Cached tokens over prompt tokens (rounded to 6 places, as in the JSON)."""
        return float(self.data["hit_rate"])

    @property
    def requests(self) -> int:
        """Requests measured (skipped lines not counted)."""
        return int(self.data["requests"])

    @property
    def prompt_tokens(self) -> int:
        """Prompt tokens of all requests."""
        return int(self.data["prompt_tokens"])

    @property
    def cached_tokens(self) -> int:
        """Tokens an unlimited prefix cache serves (the longest prefix shared with an earlier request)."""
        return int(self.data["cached_tokens"])

    @property
    def prefill_tokens(self) -> int:
        """Prompt tokens left to prefill."""
        return int(self.data["prefill_tokens"])

    def _json(self) -> str:
        return render.to_json(self.data)

    def _repr_html_(self) -> str:
        return analysis_html(self.data)


def diagnoses(diagnose: bool | None, workers: int = 0, dask: str | None = None) -> bool:
    """Whether the run diagnoses the traffic: ``diagnose``, or by default unless it is
    indexed in worker processes or on Dask."""
    return diagnose if diagnose is not None else not (workers or dask)


@checked
def analyze(
    traffic: Traffic,
    *,
    tokenizer: str = "llama3",
    chat_template: str | Path | None = None,
    engine: str = DEFAULT_ENGINE,
    engine_version: str | None = None,
    model_dir: str | Path | None = None,
    timezone: str = "UTC",
    templates: str | Path | None = None,
    page_size: int = 1,
    block_size: int = 512,
    top: int = 5,
    input_format: str = "auto",
    workers: int = 0,
    dask: str | None = None,
    diagnose_limit: int = 50_000,
    diagnose: bool | None = None,
    views: bool = False,
    on_skip: SkipHook | None = None,
    progress: Progress | None = None,
    model: str | None = None,
    gpu: str | None = None,
    retention_interval: str | int | None = 0,
    mamba_strategy: str | None = None,
    release_tokenizer: bool = False,
) -> AnalyzeResult:
    """Measure the prefix-cache hit rate the traffic allows (an unlimited cache, arrival order).

    ``traffic``: a path, a list of paths, or records (dicts as a JSONL file holds them). The
    options are ``advisor analyze``'s, with its defaults; ``diagnose`` None diagnoses unless
    ``workers`` or ``dask`` index the traffic elsewhere. ``views`` adds what the HTML report
    draws (``data["views"]``: the prefix tree and example requests at each finding); it keeps
    the requests' token ids in memory until the end. ``on_skip`` is called with each skipped
    line or record as it happens; ``progress`` wraps the stream of sequences (a progress bar).
    ``model`` (a catalog name or a config.json; else ``model_dir``'s config.json) applies the
    engine's cache rules for a model whose layers are not all full attention (sliding windows,
    linear attention or Mamba): the hits then follow ``engine``'s windows and states on it, and
    ``data["architecture"]`` compares them with full attention (``gpu`` picks the kernels that
    set vLLM's hybrid block; ``retention_interval`` and ``mamba_strategy`` are vLLM's and SGLang's
    flags that keep more windows and states). ``release_tokenizer`` lets the tokenizer go once the
    traffic is tokenized (``advisor.ingest.decoder``: the radix tree then grows into its memory),
    as the command line does; the next call loads it again.
    Raises ``AdvisorError`` with the command's one-line messages."""
    check_options(page_size=page_size, block_size=block_size, top=top, workers=workers, diagnose_limit=diagnose_limit)
    sources = traffic_sources(traffic)
    chat = Path(chat_template) if chat_template is not None else None
    folder = Path(model_dir) if model_dir is not None else None
    geometry = geometry_for(model_for(model, folder), engine, page_size=page_size, gpu=gpu,
                            retention=retention_interval, mamba_strategy=mamba_strategy)
    if geometry is not None and (workers or dask):
        raise AdvisorError("--workers and --dask index full-attention hits only: drop them for a model with "
                           "sliding-window or state layers (its hits depend on every earlier request in order)")
    engine = engine_spec(engine, engine_version)
    tokenizer = resolve_tokenizer(tokenizer, folder)
    skips = SkipCollector(forward=on_skip)
    memo = MemoEncoder(load_tokenizer(tokenizer))
    show = progress or passthrough

    diagnoser = None
    if diagnoses(diagnose, workers, dask):
        from advisor.diagnose.detect import Diagnoser  # not imported by runs without the diagnosis

        diagnoser = Diagnoser(load_tokenizer(tokenizer), diagnose_limit or None)

    def read() -> Iterator[Sequence]:
        seqs = open_traffic(sources, tokenizer, chat, Path(templates) if templates is not None else None, block_size,
                            skips, memo, input_format=input_format, engine=engine, model_dir=folder,
                            timezone=timezone)
        return show(seqs, "analyze")

    observed = Observed()
    predicted: list[int] = []
    kept: list[Sequence] = []  # the requests, for the views (partitioned runs keep none here)
    stats = memo.stats
    decode: Callable[[list[int]], str] | None = None
    if workers or dask:
        # The diagnosis watches the same sequences on their way to the index (one pass).
        stream = (lambda: diagnoser.watch(read())) if diagnoser is not None else read
        analysis = run_partitioned(lambda: watch(stream(), observed), page_size, workers=workers, dask=dask, top=top)
        if len(observed):  # the partitions keep no per-request figures to compare with
            log("advisor: observed cached tokens are compared with the prediction without --workers/--dask only")
            observed = Observed()
    else:
        analyzer = Analyzer(page_size=page_size, geometry=geometry)
        with SequenceSpill() as spill:
            # Two passes over one stream: every request tokenized and set aside (its ids and
            # small fields, not its text), then indexed and diagnosed in the same order. Only
            # the first pass needs the tokenizer: released, its memory holds the tree.
            for seq in read():
                spill.add(seq, keep_payload=diagnoser is not None and diagnoser.keeps_payload(seq))
            del memo  # (it holds the tokenizer)
            if diagnoser is not None:
                diagnoser.scouted()
            if release_tokenizer:
                decode = released(tokenizer).decode
                if diagnoser is not None:
                    diagnoser.use_decode(decode)
            for n, seq in enumerate(diagnoser.watch(spill) if diagnoser is not None else spill):
                if views:
                    kept.append(seq)
                cached = analyzer.add(seq)
                req = seq.request
                if req.cached_tokens is not None:
                    observed.add(n, req.where, req.id, seq.prompt_tokens, req.cached_tokens, req.reported_prompt_tokens)
                    predicted.append(cached)
        analysis = analyzer.result
    if decode is None:
        decode = load_tokenizer(tokenizer).decode
    diagnosis = diagnoser.finish(analysis.cached_tokens) if diagnoser is not None else None
    files = shown_names(sources)
    findings = list(diagnosis.findings) if diagnosis is not None else []
    granular = granularity_finding(analysis)
    if granular is not None:
        findings.append(granular)
    data = render.analysis_dict(
        analysis, files, tokenizer, top_branches(analysis, decode, top), skips.items, skips.count,
        [*(diagnosis.finding_dicts() if diagnosis is not None else ()), *([granular.to_dict()] if granular else [])],
    )
    if len(observed):
        # Predicted = analyze's definition (unlimited cache, page_size): the ceiling the
        # engine's count can reach; `advisor verify` splits the gap.
        data["observed"] = compare(observed, predicted)
    if diagnosis is not None:
        data["loss_attribution"] = diagnosis.attribution.to_dict()
        data["diagnosis"] = {"text_requests": diagnosis.text_requests, "examined": diagnosis.examined,
                             "sampled": diagnosis.examined < diagnosis.text_requests}
    if views:
        from advisor.advise.views import traffic_views

        data["views"] = traffic_views(kept, decode, analysis, diagnosis)
    result = AnalyzeResult(data, findings=findings,
                           analysis=analysis, files=files, tokenizer_cache=stats)
    return with_skips(result, skips)
