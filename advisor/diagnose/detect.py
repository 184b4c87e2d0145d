"""Why the hit rate is what it is: traffic findings (TR codes) and loss attribution.

``Diagnoser`` watches the same stream of token sequences that ``analyze`` indexes and runs
the traffic rules on it: TR101 dynamic content and TR102 per-request content placed before static content, both read
off the alignment of each request with its nearest earlier neighbour (``align``,
``structure``); TR201 content in varying order (the same alignment, plus the section and tool
blocks of ``order``); TR301 single-shot traffic. Its result
also splits the uncached tokens into what a fix could save and what is unique anyway; those
figures are estimates here, and ``advisor.prescribe.actions`` replaces them with measured ones.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable, Iterator, Sequence as PySequence

from advisor.diagnose.align import Aligner
from advisor.diagnose.layout import (SAMPLE, LayoutSample, ToolsLayout, TruthTest, order_is_layout, sample_of,
                                     span_is_layout, ToolsBlock, ToolsFirstReplay, tools_blocks, tools_first, tools_layout,
                                     truth_test)
from advisor.diagnose.order import OrderDetector, OrderFinding
from advisor.diagnose.spelling import SPELLED
from advisor.diagnose.structure import SpanFinding, Structure, SwapFinding
from advisor.findings import Finding, OrderFacts, SpanFacts
from advisor.ingest.ids import pack, unpack_array
from advisor.ingest.pipeline import Sequence
from advisor.ingest.tokenizers import Tokenizer

# The codes found here (TR101, TR102, TR103, TR104, TR201, TR301) have their names and docs in
# advisor.findings.TRAFFIC_RULES, beside the simulator's TR401/TR501.
# Single-shot: below this hit rate, with nothing a template change could recover.
LOW_REUSE_HIT_RATE = 0.15
LOW_REUSE_REQUEST = 0.1
EOT = "<|eot_id|>"
# A late tools layout is reported when printing the tools first recovers at least this
# share of the replayed prompt tokens (the spans' own floor, structure.MIN_LOSS).
MIN_LAYOUT_LOSS = 0.005
# Requests (and bytes of ids) held while the layout samples fill; then the layout is read.
PENDING_REQUESTS = 4096
PENDING_BYTES = 64 << 20


@dataclass
class Attribution:
    """Where the uncached prompt tokens go. ``measured`` when prescribe rewrote the traffic."""

    prompt_tokens: int
    cached_tokens: int
    dynamic: int
    ordering: int
    unique: int
    eviction: int | None = None
    measured: bool = False
    # Lost to where the chat template prints shared content (TR103): no change to the
    # requests recovers it, a chat template that prints it first does.
    layout: int = 0

    @property
    def uncached(self) -> int:
        return self.prompt_tokens - self.cached_tokens

    def to_dict(self) -> dict[str, Any]:
        return {"prompt_tokens": self.prompt_tokens, "cached_tokens": self.cached_tokens,
                "uncached_tokens": self.uncached, "dynamic_content": self.dynamic,
                "section_order": self.ordering, "eviction": self.eviction,
                "inherently_unique": self.unique, "template_layout": self.layout, "measured": self.measured}


@dataclass
class Diagnosis:
    requests: int
    prompt_tokens: int
    cached_tokens: int
    findings: list[Finding]
    attribution: Attribution
    dynamic: list[SpanFinding]
    orders: list[OrderFinding]
    low_reuse_requests: int = 0
    # Text requests the detectors examined; fewer than the text requests when sampled.
    examined: int = 0
    text_requests: int = 0
    swaps: list[SwapFinding] = field(default_factory=list)

    @property
    def hit_rate(self) -> float:
        return self.cached_tokens / self.prompt_tokens if self.prompt_tokens else 0.0

    def finding_dicts(self) -> list[dict[str, Any]]:
        return [f.to_dict() for f in self.findings]


# Prompt tokens the detectors examine at most (~20 bytes of their state per token).
TOKEN_LIMIT = 10_000_000


class Diagnoser:
    """Feed ``add(seq)`` in arrival order, then ``finish()``. Block-hash traces (no text)
    count towards the totals but only text traffic can show TR101/TR201."""

    def __init__(self, tokenizer: Tokenizer, limit: int | None = None,
                 token_limit: int | None = TOKEN_LIMIT) -> None:
        # ``limit``: examine only the first ``limit`` text requests. The detectors keep
        # per-request state, so an unbounded diagnosis grows with the log; a template defect
        # shows in the first tens of thousands of requests as clearly as in a million.
        # ``token_limit`` bounds the same state by prompt tokens: a few huge requests
        # (300 MB of ids took 1.5 GB) stop the examination as many small ones would.
        self.limit = limit
        self.token_limit = token_limit
        self.all_text_requests = 0
        self.all_text_prompt_tokens = 0
        # Text is decoded only in ``finish``, once every request is in and the tokenizer's
        # threads are idle: its own decoding, which lets go of the GIL, is the fast one then.
        self.decode: Callable[[PySequence[int]], str] = tokenizer.decode
        self.aligner = Aligner()
        self.specials = frozenset(tokenizer.special_tokens.values())
        self.special_texts = tuple(t for t in tokenizer.special_tokens if len(t) >= 3)
        self._layout_samples: list[LayoutSample] = []
        # Requests held until the samples show where the tools go; then, where the template
        # prints them late, every request is replayed with them first as it arrives.
        self._pending: list[tuple[int, bytes]] | None = []
        self._pending_bytes = 0
        self._replay: ToolsFirstReplay | None = None
        self._layout_read: tuple[int, ToolsLayout | None] | None = None  # (samples read, what they showed)
        blank = tokenizer.encode("\n\n")
        self._boundary_id = tokenizer.special_tokens.get(EOT)
        self._paragraph_id = blank[0] if len(blank) == 1 else None
        self.requests = 0
        self.text_requests = 0
        self.prompt_tokens = 0
        self.text_prompt_tokens = 0
        self.cached_tokens = 0  # text requests only, page size 1
        self.low_reuse = 0
        # Where the examined text requests were logged, to locate the findings: each one's
        # line, and the files as runs (index of a file's first request, its path).
        self._lines = array("q")
        self._files: list[tuple[int, str]] = []
        self.first_source: str | None = None
        self._scouted = 0  # requests ``keeps_payload`` said a layout sample may be taken from
        self._stopped = False  # no more requests are examined (``_stop_examining``)

    def keeps_payload(self, seq: Sequence) -> bool:
        """Whether ``add`` may read more of ``seq``'s request than its small fields: its
        messages and tools, where it can be a layout sample. Asked of each request in the
        order ``add`` will see them (``analyze`` sets the requests' texts aside before it
        diagnoses): the samples are the first ``SAMPLE`` requests that can be one, at most."""
        if self._scouted >= SAMPLE or seq.unit != 1 or seq.request.kind != "messages":
            return False
        if sample_of(0, seq.request, seq.ids) is None:
            return False
        self._scouted += 1
        return True

    def scouted(self) -> None:
        """Every request ``add`` will see went through ``keeps_payload`` first: where none can
        be a layout sample, the layout will show nothing, and no request is held for a
        tools-first replay (up to ``PENDING_BYTES`` of ids otherwise)."""
        if not self._scouted and not self._layout_samples and self._pending is not None and not self._pending:
            self._pending = None

    def use_decode(self, decode: Callable[[PySequence[int]], str]) -> None:
        """Decode with ``decode`` from now on (the same text as the tokenizer's: a table
        that outlives the tokenizer, ``advisor.ingest.decoder``)."""
        self.decode = decode

    def add(self, seq: Sequence) -> None:
        self.requests += 1
        if self.first_source is None:
            self.first_source = seq.request.source
        self.prompt_tokens += seq.prompt_tokens
        if seq.unit != 1:
            return
        self.all_text_requests += 1
        self.all_text_prompt_tokens += seq.prompt_tokens
        if self.limit is not None and self.text_requests >= self.limit:
            self._stop_examining()
            return
        if (self.token_limit is not None and self.text_requests
                and self.text_prompt_tokens + seq.prompt_tokens > self.token_limit):
            self.limit = self.text_requests  # sampled from here on, as with a request limit
            self._stop_examining()
            return
        index = self.text_requests
        self.text_requests += 1
        if not self._files or self._files[-1][1] != seq.request.source:
            self._files.append((index, seq.request.source))
        self._lines.append(seq.request.line)
        self.text_prompt_tokens += seq.prompt_tokens
        if len(self._layout_samples) < SAMPLE and seq.request.kind == "messages":
            sample = sample_of(index, seq.request, seq.ids)
            if sample is not None:
                self._layout_samples.append(sample)
        data = pack(seq.ids)
        matched = self.aligner.add(index, data)
        self.cached_tokens += matched
        if matched < LOW_REUSE_REQUEST * seq.prompt_tokens:
            self.low_reuse += 1
        self._replay_tools_first(index, data)

    def _stop_examining(self) -> None:
        """The examined requests are all in (the limit is reached, or the log is read): the
        aligner's tree goes, and the index's tree grows into its memory."""
        if not self._stopped:
            self._stopped = True
            self.aligner.seal()

    def _replay_tools_first(self, index: int, data: bytes) -> None:
        if self._pending is not None:
            self._pending.append((index, data))
            self._pending_bytes += len(data)
            if (len(self._layout_samples) >= SAMPLE or len(self._pending) >= PENDING_REQUESTS
                    or self._pending_bytes >= PENDING_BYTES):
                self._decide_layout()
        elif self._replay is not None:
            self._replay.add(index, data)

    def _tools_layout(self) -> ToolsLayout | None:
        """What the layout samples show, read once per set of samples (decoding them costs)."""
        if self._layout_read is None or self._layout_read[0] != len(self._layout_samples):
            layout = tools_layout(self._layout_samples, self.decode) if self._layout_samples else None
            self._layout_read = (len(self._layout_samples), layout)
        return self._layout_read[1]

    def _decide_layout(self) -> None:
        """Read the samples once: where they show the tools printed late, replay the held
        requests with the tools first, and every later one as it comes."""
        pending, self._pending = self._pending or [], None
        layout = self._tools_layout()
        if layout is None or not layout.late or layout.system_between:
            return
        blocks = tools_blocks(self._layout_samples, self.decode, self.specials)
        if blocks:
            self._replay = ToolsFirstReplay(blocks, logged=False)
            for i, d in pending:
                self._replay.add(i, d)

    def _order_detector(self) -> OrderDetector:
        return OrderDetector(self.decode, boundary_id=self._boundary_id, paragraph_id=self._paragraph_id)

    def _is_layout_span(self, layout: ToolsLayout | None, d: SpanFinding) -> bool:
        """Whether span ``d`` is the history that a late tools layout prints the tools after."""
        return (layout is not None and d.code in ("TR101", "TR102") and not d.in_history
                and span_is_layout(layout, d.contexts, self.special_texts))

    def _layout_split(self, layout: ToolsLayout | None, dynamic: list[SpanFinding], orders: list[OrderFinding],
                      labelled: list[list[str]], swaps: list[SwapFinding]) -> _LayoutSplit:
        """The findings the chat template's placement of the tools (``layout``) explains, taken
        out of the others, and what printing the tools first measures on the kept requests."""
        kept = _LayoutSplit(dynamic, orders, labelled, swaps)
        if layout is None or not layout.late:
            return kept
        split = _LayoutSplit([], [], [], [])
        for d in dynamic:
            if self._is_layout_span(layout, d):
                split.parts.append((d.token_offset, d.tokens_lost, d.first_request, True))
                split.requests = max(split.requests, d.requests)
            else:
                split.dynamic.append(d)
        for o, c in zip(orders, labelled):
            if order_is_layout(layout, o.labels, _indexed(o.labels, o.orders)):
                split.parts.append((o.token_offset, o.tokens_lost, o.first_request, False))
                split.requests = max(split.requests, o.requests)
            else:
                split.orders.append(o)
                split.labelled.append(c)
        for w in swaps:
            pieces = w.cores if len(w.cores) == len(w.labels) else w.labels
            if order_is_layout(layout, pieces, _indexed(w.labels, w.orders)):
                split.parts.append((w.token_offset, w.tokens_lost, w.first_request, False))
                split.requests = max(split.requests, w.requests)
            else:
                split.swaps.append(w)
        if self._replay is not None:
            # Every examined request, replayed as it came (the aligner's own tree counted
            # the logged reuse).
            blocks: list[ToolsBlock] = list(self._replay.blocks)
            truth = self._replay.result(cached=self.cached_tokens)
        else:
            blocks = tools_blocks(self._layout_samples, self.decode, self.specials)
            if not blocks:
                # The tools block could not be told from the turns' markup: the alignment's
                # findings the layout explains are all there is to go on (a lower bound).
                return split if split.parts else kept
            # (The samples showed the layout only late in the log: the kept requests.)
            truth = truth_test(self.aligner.kept, blocks, self.aligner.kept_ids)
        if truth.gain < MIN_LAYOUT_LOSS * truth.tokens:
            # Printing the tools first recovers next to nothing: whatever the alignment saw
            # is not their placement.
            return kept
        # The replay is the evidence, whether or not the alignment saw a span or an order
        # (spans that re-join tools a tenant's few requests hold are not static content).
        split.truth, split.blocks = truth, tuple(blocks)
        return split

    def where(self, index: int) -> tuple[str, int]:
        """(file, line) of examined text request ``index``; (first file, 0) when unknown."""
        if 0 <= index < len(self._lines):
            run = bisect_right(self._files, index, key=lambda f: f[0]) - 1
            return self._files[run][1], self._lines[index]
        return self.first_source or "", 0

    def _located(self, finding: Finding, index: int) -> Finding:
        path, line = self.where(index)
        return replace(finding, path=path, line=line)

    def watch(self, seqs: Iterable[Sequence]) -> Iterator[Sequence]:
        """Pass ``seqs`` through unchanged, diagnosing each on the way."""
        for seq in seqs:
            self.add(seq)
            yield seq

    def _structure_findings(self, aligner: Aligner, layout: ToolsLayout | None) -> _LayoutSplit:
        """What the alignment of ``aligner``'s requests shows: spans, confirmed block orders
        (with the cores that confirmed them) and swaps no block names."""
        structure = Structure(aligner, self.decode, self.specials)
        # Findings on the aligned sample speak for every examined request (each aligned
        # request counts for its sampling stride).
        dynamic = structure.spans()
        found_swaps = structure.swaps()
        orders: list[OrderFinding] = []
        if found_swaps:
            # The alignment saw static units in another order: the section and tool blocks
            # of the kept requests name them (decoding every request only to find no
            # reordering would cost more than the alignment itself).
            detector = self._order_detector()
            for i, kept in zip(aligner.kept_ids, aligner.kept):
                detector.add(i, unpack_array(kept))
            orders = detector.findings()
            for o in orders:  # the detector numbers the kept requests only
                o.first_request = aligner.kept_ids[o.first_request] if o.first_request >= 0 else -1
        swaps = []
        cores: dict[int, list[str]] = {}
        # A span that is only the history the tools are printed after holds no units of its own.
        spans = [d for d in dynamic if not self._is_layout_span(layout, d)]
        for s in found_swaps:
            # The blocks' offsets are estimated from characters: the slack grows with them.
            near = [k for k, o in enumerate(orders)
                    if abs(s.token_offset - o.token_offset) <= 64 + s.token_offset // 10]
            for k in near:
                orders[k].token_offset = s.token_offset  # exact, where the estimate is from characters
                cores.setdefault(k, []).extend(s.cores)
            if not near and not _inside_span(s.token_offset, spans):
                swaps.append(s)
        # A block order the alignment does not confirm is left out: the blocks only label.
        orders = [o for k, o in enumerate(orders) if k in cores]
        labelled = [cores[k] for k in sorted(cores)]
        return _LayoutSplit(dynamic, orders, labelled, swaps)

    def finish(self, cached_tokens: int | None = None) -> Diagnosis:
        """The findings. ``cached_tokens`` from the analysis (its page size) when known."""
        cached = self.cached_tokens if cached_tokens is None else cached_tokens
        self._stop_examining()
        if self._pending is not None:
            self._decide_layout()
        layout = self._tools_layout()
        found = self._structure_findings(self.aligner, layout)
        split = self._layout_split(layout, found.dynamic, found.orders, found.labelled, found.swaps)
        if split.truth is not None:
            # The template's placement of the tools is measured: what the requests themselves
            # lose is what they lose as a template printing the tools first renders them
            # (a value ahead of the history parts each turn from the last there, which the
            # tools moving behind the history hid).
            again = Aligner()
            for i, data in zip(self.aligner.kept_ids, self.aligner.kept):
                again.add(i, tools_first(data, split.blocks))
            own = self._structure_findings(again, None)
            split = replace(split, dynamic=own.dynamic, orders=own.orders, labelled=own.labelled, swaps=own.swaps)
        dynamic, orders, labelled, swaps, parts = split.dynamic, split.orders, split.labelled, split.swaps, split.parts
        layout_lost = sum(t for _, t, _, _ in parts)
        if split.truth is not None and split.truth.tokens:
            # Measured on the kept requests: it speaks for every examined one by their tokens.
            layout_lost = round(split.truth.gain * self.text_prompt_tokens / split.truth.tokens)
            split.requests = round(split.truth.moved * self.text_requests / max(1, split.truth.requests))
        findings = ([self._located(_dynamic_finding(f), f.first_request) for f in dynamic]
                    + [self._located(_order_finding(f, c), f.first_request) for f, c in zip(orders, labelled)]
                    + [self._located(_swap_finding(f), f.first_request) for f in swaps])
        if split.truth is not None and split.truth.first_moved >= 0:
            # Where a turn after the first parts from its first turn: the first user turn's opener.
            parts = parts + [(split.truth.offset, 0, split.truth.first_moved, True)]
        if parts:
            firsts = [first for _, _, first, _ in parts if first >= 0]
            findings.append(self._located(_layout_finding(parts, split.requests, layout_lost, split.truth),
                                          min(firsts, default=-1)))
        findings.sort(key=lambda f: (f.code[:4] != "TR10", f.token_offset or 0, f.code))
        uncached = self.prompt_tokens - cached
        # A sampled diagnosis measured its losses on the sample: scale them to the whole log.
        scale = self.all_text_prompt_tokens / self.text_prompt_tokens if self.text_prompt_tokens else 1.0
        lost_dynamic = min(uncached, round(scale * sum(f.tokens_lost for f in dynamic)))
        lost_order = min(uncached - lost_dynamic, round(scale * (sum(f.tokens_lost for f in orders)
                                                                 + sum(f.tokens_lost for f in swaps))))
        lost_layout = min(uncached - lost_dynamic - lost_order, round(scale * layout_lost))
        attribution = Attribution(self.prompt_tokens, cached, lost_dynamic, lost_order,
                                  uncached - lost_dynamic - lost_order - lost_layout, layout=lost_layout)
        # Single-shot is judged on the text requests, the ones whose reuse was seen here.
        hit = self.cached_tokens / self.text_prompt_tokens if self.text_prompt_tokens else 1.0
        if hit < LOW_REUSE_HIT_RATE and not findings:
            findings.append(Finding(
                path=self.first_source or "",
                code="TR301", token_offset=None, kind="single-shot", requests=self.low_reuse,
                tokens_lost=0, example="",
                message=(f"{self.low_reuse:,} of {self.text_requests:,} requests reuse less than "
                         f"{LOW_REUSE_REQUEST:.0%} of their prompt from earlier requests; hit rate {hit:.1%}. "
                         "The prompts are unique content: no template change raises the hit rate."),
            ))
        return Diagnosis(self.requests, self.prompt_tokens, cached, findings, attribution, dynamic, orders,
                         self.low_reuse, examined=self.text_requests, text_requests=self.all_text_requests,
                         swaps=swaps)


# A TR103 finding's ``placement`` (in its JSON): where the template prints the tools.
TOOLS_LATE = "tools-before-last-user-turn"


def diagnose(seqs: Iterable[Sequence], tokenizer: Tokenizer, cached_tokens: int | None = None) -> Diagnosis:
    """The diagnosis of ``seqs`` in one pass (``Diagnoser``; ``cached_tokens`` from the
    analysis where known). Its alignment index of every request goes with it."""
    diagnoser = Diagnoser(tokenizer)
    for seq in seqs:
        diagnoser.add(seq)
    return diagnoser.finish(cached_tokens)


def _indexed(labels: list[str], orders: list[tuple[list[str], int]]) -> list[list[int]]:
    at = {label: k for k, label in enumerate(labels)}
    return [[at[x] for x in order if x in at] for order, _ in orders]


@dataclass
class _LayoutSplit:
    """Findings kept as they are, and the parts (offset, tokens lost, first request, is a
    span) that the tools' placement explains, with the replay that measured it."""

    dynamic: list[SpanFinding]
    orders: list[OrderFinding]
    labelled: list[list[str]]
    swaps: list[SwapFinding]
    parts: list[tuple[int, int, int, bool]] = field(default_factory=list)
    requests: int = 0
    truth: TruthTest | None = None
    blocks: tuple[ToolsBlock, ...] = ()


def _layout_finding(parts: list[tuple[int, int, int, bool]], requests: int, lost: int,
                    truth: TruthTest | None) -> Finding:
    """One TR103 finding for the spans and orders the tools' placement explains: ``lost`` as
    the tools-first replay measured it (``truth``), or, where the tools block could not be
    told from the turns' markup, the alignment's estimate, a lower bound."""
    # Where a span of history starts is where the loss starts; an order's offset is only the
    # first unit's.
    spans = [o for o, _, _, span in parts if span]
    offset = min(spans) if spans else min(o for o, _, _, _ in parts)
    about = "" if truth is not None else "at least "
    message = (f"the chat template prints the tool definitions after the conversation history (right before "
               f"the last user turn): at every turn they follow a longer history, so {about}{lost:,} tokens "
               "are computed again that a template printing the tools before the first turn keeps cached. "
               "No change to the requests moves them; the chat template does.")
    details: dict[str, Any] = {"placement": TOOLS_LATE, "explains": len(parts), "measured": truth is not None}
    if truth is not None:
        details.update(replayed_requests=truth.requests, moved_requests=truth.moved,
                       cached_tokens=truth.cached, cached_tokens_tools_first=truth.cached_tools_first)
    return Finding(code="TR103", token_offset=offset, kind="tools-after-history", requests=requests, tokens_lost=lost,
                   example="", message=message, details=details)


def _inside_span(offset: int, spans: list[SpanFinding]) -> bool:
    """Whether ``offset`` falls inside a span of per-request content, or of content spelled
    otherwise. Units that recur in varying order there (sentences of passages drawn from one
    pool) are that content's own variety: moving the span out of the shared prefix is the
    fix, not an order for them. A respelled unit's pieces in another order (a table's cells,
    its columns reordered) are the respelling itself."""
    return any(d.code in ("TR102", "TR104") and d.token_offset <= offset < d.token_offset + d.span_tokens
               for d in spans)


def _dynamic_finding(f: SpanFinding) -> Finding:
    where = f.label.strip().replace("\n", " ")
    if f.code == "TR102":
        message = (f"per-request content ({f.span_tokens:,} tokens typical) at token {f.token_offset} comes before "
                   f"content most requests share: {f.requests:,} requests lose about {f.tokens_lost:,} cacheable "
                   "tokens after it. Put the shared content first and the per-request content after it.")
    elif f.code == "TR104":
        message = (f"{SPELLED[f.kind]} at token {f.token_offset}: "
                   f"{f.requests:,} requests lose about {f.tokens_lost:,} cacheable tokens after it. Send one "
                   "spelling (one Unicode normalization, one wrapping, one key or column order).")
    elif f.in_history:
        message = (f"{f.kind} value at token {f.token_offset} (after '{where[-40:]}') is re-rendered into the "
                   f"conversation's history at every turn: {f.requests:,} requests lose about {f.tokens_lost:,} "
                   "cacheable tokens after it. Send earlier turns as they were first sent; state a current "
                   "value in the newest message.")
    else:
        message = (f"{f.kind} value at token {f.token_offset} (after '{where[-40:]}') varies between requests "
                   f"inside shared content: {f.requests:,} requests lose about {f.tokens_lost:,} cacheable "
                   "tokens after it. Move it after all static content (into the last user turn).")
    return Finding(
        code=f.code, token_offset=f.token_offset, kind=f.kind, requests=f.requests,
        tokens_lost=f.tokens_lost, example=f.examples[0] if f.examples else "", message=message,
        span=SpanFacts(tuple(f.examples), f.label, f.right, f.span_tokens, f.in_history),
    )


def first_divergence(orders: list[tuple[list[str], int]]) -> str:
    """Where the two most common orders part: the first position whose block differs, each
    order's block there and its requests (a whole order of 20 tools says nothing a reader
    can act on; the position where they part does)."""
    if len(orders) < 2:
        return f"{' > '.join(orders[0][0])} ({orders[0][1]:,} requests)" if orders else ""
    (a, count_a), (b, count_b) = orders[0], orders[1]
    k = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    same = f"after {k} block{'s' if k != 1 else ''} in the same order" if k else "at the first block"
    left = a[k] if k < len(a) else "(end)"
    right = b[k] if k < len(b) else "(end)"
    return (f"position {k + 1}, {same}: {left} ({count_a:,} requests) or {right} ({count_b:,}); "
            f"{len(orders):,} orders in all")


def _swap_finding(f: SwapFinding) -> Finding:
    total = sum(c for _, c in f.orders) or 1
    shown = [{"order": labels, "requests": c, "share": round(c / total, 6)} for labels, c in f.orders[:10]]
    message = (f"{len(f.labels)} shared blocks recur in {len(f.orders):,} different orders across {f.requests:,} "
               "requests; each new order is a new prefix. Send them in one order.")
    return Finding(
        code="TR201", token_offset=f.token_offset, kind="content-order", requests=f.requests,
        tokens_lost=f.tokens_lost, example=first_divergence(f.orders), message=message,
        order=OrderFacts(tuple(f.labels), tuple(shown), len(f.orders), tuple(f.labels),
                         max(0, f.requests - f.orders[0][1]), cores=tuple(f.cores)),
    )


def _order_finding(f: OrderFinding, cores: list[str] | None = None) -> Finding:
    total = sum(c for _, c in f.orders)
    shown = [{"order": labels, "requests": c, "share": round(c / total, 6)} for labels, c in f.orders[:10]]
    what = "tool definitions" if f.kind == "tool-order" else "sections"
    message = (f"{len(f.labels)} {what} recur in {len(f.orders):,} different orders across {f.requests:,} "
               f"requests; each new order is a new prefix. Send them in one order.")
    return Finding(
        code="TR201", token_offset=f.token_offset, kind=f.kind, requests=f.requests,
        tokens_lost=f.tokens_lost, example=first_divergence(f.orders), message=message,
        order=OrderFacts(tuple(f.labels), tuple(shown), len(f.orders), tuple(f.labels), f.requests_off_canonical,
                         cores=tuple(cores or ())),
    )
