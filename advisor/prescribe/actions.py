"""What to change, and the hit rate after the change, measured rather than guessed.

One model of a request answers every cause found in what the requests send: the canonical
order (``advisor.prescribe.canonical``), whose variants (where what varies goes) are measured
on the whole log and the best kept. A value no request sends (the chat template renders it)
is pinned in the template instead. Prescribe applies the fixes to every logged request,
renders and tokenizes the rewritten requests exactly as the originals were, and re-runs the
analysis; each cause's share is what the canonical order loses with that change left out,
which also gives the loss attribution (dynamic content, ordering, unique) its final figures.
"""

from __future__ import annotations

import dataclasses
import json
import re
from array import array
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from advisor.index.analyze import Analyzer
from advisor.diagnose.detect import Attribution, Diagnosis, Finding
from advisor.diagnose.capacity import cached_with_capacity, pin_candidate
from advisor.errors import AdvisorError
from advisor.findings import SpanFacts
from advisor.ingest.ids import ITEM, common_bytes, pack
from advisor.ingest.memo import MemoEncoder
from advisor.ingest.tokenizers import Tokenizer
from advisor.ingest.pipeline import TOKEN_NAMESPACE, Renderer, Sequence, payload_bytes, rendered_ids
from advisor.prescribe.texts import (CHAT_MARKUP, DEFAULT_JOINER, TOOL_INDENTS, call_arguments_text, json_unescaped,
                                     number_call_ids, text_of, tool_texts)
from advisor.prescribe.canonical import (CHANGES, KEPT, ORDER, PLACEMENT, Rounds, canonical_fix, canonical_fixes,
                                         canonical_rounds, forget_units, tool_pool, Pool)
from advisor.prescribe.causes import PLACEMENT as PLACEMENT_CODE
from advisor.prescribe.causes import HISTORY_CHANGE, REPORTED_AS, history_causes
from advisor.prescribe.causes import causes
from advisor.prescribe.causes import findings as cause_findings
from advisor.prescribe.history import as_first_sent
from advisor.prescribe.markup import markup_of, prompt_turns
from advisor.prescribe.opening import system_into_first_user
from advisor.prescribe.pins import pin_template_values
from advisor.prescribe.rewrite import (editable, sort_tools_and_keys)
from advisor.ingest.traffic import Request

Fix = Callable[[Request], "Request | None"]
# A variant's details key: the action kind when that variant is the one measured best.
AS = "action"
EARLIEST = 64  # requests: the earliest ones, whose texts the finding's examples come from
# Bytes (about) of rewritten requests and their ids a Measurer keeps to answer the search's
# repeated rewrites; a larger log is measured with the work redone past it. The count is of
# payloads, not of the Python objects around them (about twice as much): at 8 MB `plan`
# of 400 requests peaks under 400 MB (at 256 MB it took 540 MB for a few percent of time).
MEMO_BUDGET = 8 * 1024 * 1024
MEMO_ENTRY = 160  # bytes: what an entry costs besides its payload (its key, tuple and slot)


@dataclass
class Action:
    kind: str
    description: str
    code: str
    hit_rate_after: float
    tokens_gained: int
    requests_changed: int
    finding: int | None = None  # index into the diagnosis findings
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out = {"kind": self.kind, "description": self.description, "code": self.code,
               "hit_rate_after": round(self.hit_rate_after, 6), "tokens_gained": self.tokens_gained,
               "requests_changed": self.requests_changed, "finding": self.finding}
        out.update(self.details)
        return out


@dataclass
class Prescription:
    requests: int
    prompt_tokens: int
    cached_before: int
    cached_after: int
    actions: list[Action]
    section_order: list[str]
    findings: list[Finding]
    attribution: Attribution
    not_rewritable: int = 0
    diffs: list[Any] = field(default_factory=list)  # advisor.prescribe.template_diff.TemplateDiff
    page_size: int = 1
    capacity: int | None = None
    # The traffic with the chosen fixes in, one sequence per logged one in the same order (the
    # logged sequence itself where no fix changed it): what ``hit_rate_after`` was measured on.
    rewritten: list[Sequence] = field(default_factory=list, repr=False, compare=False)

    @property
    def hit_rate_before(self) -> float:
        return self.cached_before / self.prompt_tokens if self.prompt_tokens else 0.0

    @property
    def hit_rate_after(self) -> float:
        return self.cached_after / self.prompt_tokens if self.prompt_tokens else 0.0


@dataclass(frozen=True)
class Plan:
    """One fix: what it is and the ways to carry it out (``variants``: description, fix,
    details), the first the default. ``stage`` orders fixes applied together."""

    kind: str
    code: str
    finding: int
    variants: tuple[tuple[str, Fix, dict[str, Any]], ...]
    stage: int = 0
    free: bool = False   # deterministic and costless to adopt (a sort, a fixed order)


# What a token window decodes to where it cuts a character's UTF-8 bytes (an emoji, CJK).
_CUT = "\ufffd"


def _held_string(example: str, holds: Callable[[str], bool]) -> bool:
    """Whether the longest JSON string piece of ``example`` (8 characters at least) is held."""
    if '"' not in example:
        return False
    piece = max(example.split('"'), key=len)
    return len(piece.strip()) >= 8 and holds(piece)


def _held_piece(example: str, holds: Callable[[str], bool]) -> bool:
    """Whether the longest piece of ``example`` between chat markup (a span seen across a
    message boundary, in a layout whose markers the tokenizer does not know as special
    tokens) is held: the value is message text, not the template's."""
    pieces = [p.strip() for p in CHAT_MARKUP.split(example)]
    if len(pieces) < 2:
        return False
    piece = max(pieces, key=len)
    return len(piece) >= 8 and holds(piece)


def _longest_whole(example: str) -> str:
    """The longest stretch of a decoded value without a cut character (see above)."""
    return max(example.split(_CUT), key=len) if _CUT in example else example


def plans_for(diagnosis: Diagnosis, holds: Callable[[str], bool] | None = None, has_tools: bool = False) -> list[Plan]:
    """The fixes no rewrite of the requests' content makes: a varying value in no text of
    the requests (the chat template renders it) is pinned in the template. Everything the
    requests send is put in place by the canonical order."""
    ordered = any(f.code == "TR201" for f in diagnosis.findings)
    return [_pin_plan(k, f, has_tools, ordered) for k, f in enumerate(diagnosis.findings)
            if f.code in ("TR101", "TR102") and not f.from_layout and _injected(f, holds)]


def _injected(f: Finding, holds: Callable[[str], bool] | None) -> bool:
    """Whether a varying value is in no message, tool or call of the requests: the chat
    template injects it (decoded through tojson, across JSON members or across chat markup,
    the value is still looked for as the request holds it)."""
    examples = [e for e in map(_longest_whole, f.span.examples if f.span else ()) if len(e.strip()) >= 4]
    return (f.code == "TR101" and holds is not None and bool(examples)
            and not any(holds(e) or holds(json_unescaped(e) or e) or _held_string(e, holds)
                        or _held_piece(e, holds) for e in examples))


def _pin_plan(k: int, f: Finding, has_tools: bool, ordered: bool) -> Plan:
    """A value in no text of the requests: the chat template puts it there itself (a
    date_string kwarg, strftime_now reading the request's clock)."""
    pins: list[tuple[str, Fix, dict[str, Any]]] = [(
        f"The {f.kind} value at token {f.token_offset} (e.g. '{_short(f.example)}') is not in the "
        "messages: the chat template renders it. Pass one fixed value (a constant date_string, "
        "a pinned clock for strftime_now) instead of a per-request one.", pin_template_values, {})]
    pins.append(("Number the tool-call ids in the order the calls come (the results' "
                 "tool_call_id to match), in every request: the chat template prints the id, and a "
                 "random one per request starts a new prefix.", number_call_ids, {}))
    if has_tools and not ordered:
        # What the template renders may be the tools, its own way (a signature whose
        # parameters follow the schema's key order): the same tools with their keys in
        # another order. (Where units came in another order, the canonical order sorts them.)
        pins.append(("Sort the tool definitions by name, and the keys inside each one, before sending them, in "
                     "every request.", sort_tools_and_keys, {"keys": True, AS: "sort-tool-definitions"}))
    return Plan("pin-template-value", f.code, k, tuple(pins))


def _answering(f: Finding) -> str:
    """What the canonical order does about the finding it answers, in the finding's words
    (the advisory's action opens with it)."""
    if f.code == "TR101":
        before = f.span.context_before if f.span else ""
        where = before.strip().splitlines()[-1] if before.strip() else "its line"
        return (f"Move the {f.kind} value at token {f.token_offset} (after '{_short(where)}', e.g. "
                f"'{_short(f.example)}') out of the shared prefix. ")
    if f.code == "TR102" and f.example:
        return (f"Put the shared content first: the per-request content at token {f.token_offset} "
                f"(e.g. '{_short(f.example)}') goes after it. ")
    return ""


def _short(text: str, width: int = 40) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 3] + "..."


class Measurer:
    """Re-analyses the traffic with fixes applied; unchanged requests keep their ids.
    With a capacity, hits are counted through a finite pool (``diagnose_capacity``)."""

    def __init__(self, seqs: list[Sequence], renderer: Renderer, page_size: int,
                 capacity: int | None = None) -> None:
        self.seqs = seqs
        self.prompt_tokens = sum(s.prompt_tokens for s in seqs)
        self.renderer = renderer
        self.page_size = page_size
        self.capacity = capacity
        self._held = 0  # bytes (about) of the payloads, texts and ids the memos below keep
        self.encoder = _WholeTexts(renderer.tokenizer, self._keep)
        self.joiner = part_joiner(renderer)
        # Where a prompt's turns are: the tokenizer's special tokens, roles from a probe.
        self.markup = markup_of(renderer)
        self._blobs: list[str] | None = None
        self._squeezed: list[str] | None = None  # (the same, whitespace removed: made when first needed)
        # The canonical order's search on the traffic as logged, where it ran here: its start
        # and best variant, which the prescription then takes without counting again.
        self.searched: tuple[_Start, Top, Pool | None, int] | None = None
        # The search measures many choices that share most of their fixes: a request goes
        # through the same fix from the same state again and again. What each fix made of
        # each request, and the ids of each rewritten request, are kept for the Measurer's
        # life, by identity (most fixes and every request are unhashable); each entry holds
        # its key's objects, so no id is reused while it lives. Bounded: past the budget
        # nothing more is kept, and the work is simply done again.
        self._fixed: dict[tuple[int, int], tuple[Fix, Request, Request | None]] = {}
        self._ids: dict[tuple[int, bool], tuple[Request, array | None]] = {}
        self.editable: list[Request | None] = []
        for s in seqs:
            try:
                self.editable.append(editable(s.request, renderer) if s.unit == 1 else None)
            except AdvisorError:
                self.editable.append(None)

    def _texts(self, r: Request) -> list[str]:
        """What a fix can edit in ``r``: the prompt, the message texts (content-part lists
        joined as the engine joins them) and the tool definitions in the layouts a chat
        template prints them in (indented first, the Llama 3.1 layout's)."""
        texts = [r.prompt] if r.kind == "prompt" and r.prompt else []
        for msg in r.messages or ():
            content = text_of(msg.get("content"), self.joiner)
            if content is not None:
                texts.append(content)
            elif isinstance(parts := msg.get("content"), list):
                # (Beside an image, each text part is still text the request sends.)
                texts.extend(p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str))
        # Laid out as chat templates print them, from their memo: requests repeat a few tools.
        layouts = [tool_texts(json.dumps(t, ensure_ascii=False)) for t in r.tools or ()]
        for k in range(len(TOOL_INDENTS)):
            texts.extend(layout[k] for layout in layouts)
        # The arguments of the tool calls a history replays, as the client sent them.
        for msg in r.messages or ():
            texts.extend(t for call in msg.get("tool_calls") or () if (t := call_arguments_text(call)) is not None)
        return texts

    def holds(self, text: str) -> bool:
        """Whether any editable request carries ``text`` in what a fix can edit; the
        whitespace aside, so that JSON laid out otherwise than the texts tried still holds it."""
        if self._blobs is None:
            # A sample spread over the log: a value the requests carry is in most of them,
            # one the chat template renders is in none.
            reqs = [r for r in self.editable if r is not None]
            step = max(1, len(reqs) // 512)
            # The earliest requests too: a finding's examples come from them, and a value
            # unique to each request is in no other one.
            picked = sorted(set(range(0, len(reqs), step)) | set(range(min(len(reqs), EARLIEST))))
            self._blobs = ["\x00".join(self._texts(reqs[k])) for k in picked]
        if any(text in blob for blob in self._blobs):
            return True
        bare = _WHITESPACE.sub("", text)
        if not bare:
            return False
        if self._squeezed is None:
            self._squeezed = [_WHITESPACE.sub("", blob) for blob in self._blobs]
        return any(bare in squeezed for squeezed in self._squeezed)

    @property
    def not_rewritable(self) -> int:
        return sum(1 for r in self.editable if r is None)

    def one(self, fix: Fix, index: int) -> array | None:
        """The ids of the request at ``index`` with ``fix`` applied (None: unchanged, or not
        rewritable)."""
        req = self.editable[index]
        got = self.apply(fix, req) if req is not None else None
        return None if got is None else self._rendered(got, self.seqs[index].request.kind == "input_ids")

    def rewritten(self, fixes: Iterable[Fix]) -> tuple[list[Sequence], int]:
        """The traffic with ``fixes`` applied in turn, rendered and tokenized; and how many
        requests changed."""
        fixes = list(fixes)
        out: list[Sequence] = []
        changed = 0
        for seq, req in zip(self.seqs, self.editable):
            new = None
            if req is not None:
                current = req
                for fix in fixes:
                    got = self.apply(fix, current)
                    if got is not None:
                        current = got
                        new = got
            if new is None:
                out.append(seq)
                continue
            ids = self._rendered(new, seq.request.kind == "input_ids")
            if ids is None:
                out.append(seq)
                continue
            changed += 1
            out.append(Sequence(new, TOKEN_NAMESPACE, ids, len(ids), 1))
        return out, changed

    def apply(self, fix: Fix, req: Request) -> Request | None:
        """``fix(req)``, once per fix and request state. (A fix that learns as it goes, a
        unit sort ranking the units it meets, answers a request it has seen as it did.)"""
        key = (id(fix), id(req))
        hit = self._fixed.get(key)
        if hit is not None:
            return hit[2]
        got = fix(req)
        if self._keep(MEMO_ENTRY + (payload_bytes(got) if got is not None else 0)):
            self._fixed[key] = (fix, req, got)
        return got

    def _rendered(self, req: Request, decoded: bool) -> array | None:
        """The ids of a rewritten request: decoded ids (``decoded``) go back to ids as
        they are; other records render as logged ones do, under the per-record guard (a
        rewrite that does not render stays as logged: None)."""
        key = (id(req), decoded)
        hit = self._ids.get(key)
        if hit is not None:
            return hit[1]
        ids = rendered_ids(self.renderer, self.encoder, req, req.prompt if decoded else None)
        if self._keep(MEMO_ENTRY):  # (the ids themselves are the text memo's)
            self._ids[key] = (req, ids)
        return ids

    def _keep(self, size: int) -> bool:
        """Whether a memo entry of about ``size`` bytes is kept (counted if it is)."""
        if self._held >= MEMO_BUDGET:
            return False
        self._held += size
        return True

    def cached(self, seqs: list[Sequence], unlimited: bool = False, pin: list[int] | None = None,
               own_rate: bool = False) -> int:
        """Cached tokens of ``seqs``: the analyze definition, or through the pool. With
        ``own_rate`` (a rewrite that sends more than was logged: the system prompt in every
        step of an agent loop whose template printed it in the first only), in tokens of
        the traffic as logged at the rewritten traffic's own hit rate. (Other fixes keep
        what is sent; the few tokens their re-tokenizing shifts are not rescaled.)"""
        if self.capacity is None or unlimited:
            analyzer = Analyzer(self.page_size)
            for s in seqs:
                analyzer.add(s)
            cached = analyzer.result.cached_tokens
        else:
            cached = cached_with_capacity(seqs, self.capacity, self.page_size, pin)
        if not own_rate:
            return cached
        total = sum(s.prompt_tokens for s in seqs)
        if total == self.prompt_tokens or not total:
            return cached
        return (cached * self.prompt_tokens + total // 2) // total


class _WholeTexts(MemoEncoder):
    """A memo encoder that keeps the ids of whole texts too, while ``keep`` allows: the
    choices the search measures often render a request to the same text (two ways of
    carrying out a fix that come to the same, a fix with nothing to do in it)."""

    def __init__(self, tokenizer: Tokenizer, keep: Callable[[int], bool]) -> None:
        super().__init__(tokenizer)
        self._keep = keep
        self._texts: dict[str, array] = {}

    def encode(self, text: str) -> array:
        ids = self._texts.get(text)
        if ids is None:
            ids = super().encode(text)
            if self._keep(len(text) + 4 * len(ids)):
                self._texts[text] = ids
        return ids


_WHITESPACE = re.compile(r"\s+")


def part_joiner(renderer: Renderer) -> str:
    """What the engine and chat template put between the text parts of a content list,
    read off one rendering: SGLang hands the list to the template (Llama 3.1's joins the
    parts with nothing), vLLM joins them with a newline first."""
    a, b = "\ue010", "\ue011"
    try:
        text = renderer.chat.render([{"role": "user", "content": [{"type": "text", "text": a},
                                                                 {"type": "text", "text": b}]}], None, None, None)
    except Exception:  # a layout that refuses content parts: they are never edited then
        return DEFAULT_JOINER
    i, j = text.find(a), text.find(b)
    return text[i + 1:j] if 0 <= i < j else DEFAULT_JOINER


def _best_choice(plans: list[Plan], cached_of: Callable[[list[int | None]], int]) -> list[int | None]:
    """Which variant of each plan to carry out (None: leave it out), by the cached tokens
    ``cached_of`` measures for a choice."""
    # All fixes together; each way of carrying one out is tried on top of the others.
    choice: list[int | None] = [0] * len(plans)
    if not plans:
        return choice
    best = cached_of(choice)
    for k, plan in enumerate(plans):
        for alt in range(1, len(plan.variants)):
            trial = list(choice)
            trial[k] = alt
            got = cached_of(trial)
            if got > best:
                choice, best = trial, got
    # A fix that makes the combination worse is left out (worst first), then each one's
    # own contribution is what the combination loses without it.
    while True:
        worst: tuple[int, int] | None = None
        for k, v in enumerate(choice):
            if v is None:
                continue
            without = list(choice)
            without[k] = None
            got = cached_of(without)
            if got > best and (worst is None or got > worst[1]):
                worst = (k, got)
        if worst is None:
            break
        choice[worst[0]] = None
        best = worst[1]
    return choice


class _Search:
    """The plans of one look at the findings and what each choice of their variants
    measures (memoized: cached and changed requests per choice; the rewritten traffic itself
    is not kept, one list of sequences per choice tried held the whole search in memory, only
    rebuilt for the choice carried out)."""

    def __init__(self, m: Measurer, plans: list[Plan]) -> None:
        self.m, self.plans = m, plans
        self.memo: dict[tuple[int | None, ...], tuple[int, int]] = {}

    def fixes_of(self, choice: list[int | None]) -> list[Fix]:
        picked = sorted((self.plans[k].stage, k, v) for k, v in enumerate(choice) if v is not None)
        return [self.plans[k].variants[v][1] for _, k, v in picked]

    def measure(self, choice: list[int | None], unlimited: bool = False) -> tuple[int, int]:
        key = tuple(choice) + ((-1,) if unlimited else ())
        if key not in self.memo:
            fixes = self.fixes_of(choice)
            if not fixes:
                self.memo[key] = (self.m.cached(self.m.seqs, unlimited=unlimited), 0)
            else:
                fixed, changed = self.m.rewritten(fixes)
                self.memo[key] = (self.m.cached(fixed, unlimited=unlimited, own_rate=False), changed)
        return self.memo[key]

    def rewrite(self, choice: list[int | None]) -> list[Sequence]:
        fixes = self.fixes_of(choice)
        return self.m.rewritten(fixes)[0] if fixes else self.m.seqs

    def only(self, k: int, v: int | None) -> list[int | None]:
        """The choice of variant ``v`` of plan ``k`` alone."""
        return [v if j == k else None for j in range(len(self.plans))]


@dataclass
class _Chosen:
    """The pins carried out: the search they were chosen in, the choice, what it caches
    and changes, the traffic it makes, and the diagnosis it answers."""

    search: _Search
    choice: list[int | None]
    after: int
    changed: int
    fixed: list[Sequence]
    diagnosis: Diagnosis


def _chosen(search: _Search, diagnosis: Diagnosis, before: int) -> _Chosen:
    plans, m = search.plans, search.m
    choice = _best_choice(plans, lambda c: search.measure(c)[0])
    after, changed = search.measure(choice) if plans else (before, 0)
    return _Chosen(search, choice, after, changed, search.rewrite(choice) if plans else m.seqs, diagnosis)


# A variant of the canonical order measured: cached, its index, its traffic, requests changed.
Top = tuple[int, int, list[Sequence], int]
# What ``_canonical_order`` returns: cached, changed, traffic, description, details, causes.
Canonical = tuple[int, int, list[Sequence], str, dict[str, Any], Callable[[], "CauseFindings"]]


def _canonical_pick(c: _Chosen, alone: Callable[[], CanonicalTop]) -> tuple[Canonical | None, bool]:
    """The canonical order on top of the chosen pins, and whether it stands alone instead.

    Where the diagnosis named no cause it runs on the traffic as logged, every placement the
    traffic gives a variant of its own measured: a cause the diagnosis misses may still be
    one. Where pins were chosen it is measured on top of them and alone (one more count of
    the log), and the better kept. ``alone``: the search of the canonical order alone
    (``canonical_search``), perhaps run in a helper meanwhile."""
    m, findings = c.search.m, c.diagnosis.findings
    chosen = c.search.fixes_of(c.choice) if c.search.plans else []
    # Against the chosen pins, the better fix; with no pin to weigh it against, a gain worth
    # rewriting every request for.
    moved = any(v is not None for v in c.choice)
    # (A cause the diagnosis found, of a kind the canonical form changes, is as good a reason
    # to rewrite as a pin chosen: weighed at the same edge.)
    found = any(f.code in CANONICAL_CAUSES for f in findings)
    share = CANONICAL_EDGE if moved or found else CANONICAL_GAIN
    canon = _canonical_order(m, chosen, c.after, share, findings, found=None if moved else alone())
    if canon is None and any(f.code in CANONICAL_ONLY for f in findings):
        # A finding only the canonical form answers: its spelling alone (one spelling per
        # unit, nothing reordered or moved), at any gain.
        canon = _canonical_order(m, chosen, c.after, 0.0, findings, keep=frozenset({ORDER, PLACEMENT}))
    # (The memos of the pure steps are kept: most texts on top of the pins are the log's.)
    if not moved:
        return canon, False
    instead = _canonical_order(m, [], max(c.after, canon[0] if canon is not None else 0), CANONICAL_EDGE, findings,
                               found=alone())
    return (instead, True) if instead is not None else (canon, False)


def _plan_actions(c: _Chosen, superseded: bool, before: int, after: int, rate: Callable[[int], float]) -> list[Action]:
    """One action per plan: the variant chosen (or, left out, the default), with what it
    gains measured with the others."""
    actions = []
    for k, plan in enumerate(c.search.plans):
        v = c.choice[k]
        description, _, details = plan.variants[v if v is not None else 0]
        details = dict(details)
        kind = details.pop(AS, plan.kind)
        if superseded and v is not None:
            # No part of the prescription: it gains nothing there.
            gain, changed = 0, 0
            description += (" Measured on this traffic: the canonical order below recovers more without it; "
                            "not recommended.")
        elif v is None:
            gain = c.search.measure(c.search.only(k, 0))[0] - before
            description += " Measured on this traffic: it lowers the hit rate of the other fixes; not recommended."
            changed = 0
        else:
            without = list(c.choice)
            without[k] = None
            gain = after - c.search.measure(without)[0]
            changed = c.search.measure(c.search.only(k, v))[1]
            if gain <= 0 and not plan.free:
                description += " Measured on this traffic: no gain; not recommended."
            elif gain <= 0:
                description += " Measured with the other actions: no gain of its own here (free to adopt)."
        actions.append(Action(kind, description, plan.code, rate(before + gain), gain, changed,
                              plan.finding, details))
    for k, f in enumerate(c.diagnosis.findings):
        if f.code == "TR301":
            actions.append(Action("none", "No template change raises the hit rate of single-shot traffic: "
                                  "every prompt is new content. Do not size a prefix cache for it.",
                                  f.code, rate(before), 0, 0, k))
    return actions


def _pin_action(m: Measurer, c: _Chosen, used: list[int], before: int, after: int,
                fixed: list[Sequence]) -> tuple[Action | None, int]:
    """Where eviction costs hits, pinning the most shared prefix: the action, and what the
    prescription caches with it."""
    pin = pin_candidate(m.seqs, m.page_size)
    if pin is None:
        return None, after
    cached = m.cached(m.seqs, pin=pin)
    action = Action(
        "pin-system-prompt",
        f"Pin the shared prefix ({len(pin):,} tokens, the system prompt) in the KV cache so that eviction "
        f"never drops it (capacity {m.capacity:,} tokens).", "", cached / m.prompt_tokens if m.prompt_tokens else 0.0,
        cached - before, 0)
    pin_all = pin_candidate(fixed, m.page_size)
    if pin_all is not None:
        after = max(after, m.cached(fixed, pin=pin_all))
    return action, after


def prescribe(seqs: list[Sequence], renderer: Renderer, diagnosis: Diagnosis | Callable[[], Diagnosis],
              page_size: int = 1, capacity: int | None = None,
              alone: Callable[[], CanonicalTop] | None = None) -> Prescription:
    """The actions for the findings, measured together (all, then each left out); with
    ``capacity``, hit rates are those of a pool of that many tokens, eviction gets its share
    of the loss, and pinning the system prompt is one more action. ``alone``: the result of
    ``canonical_search`` on this traffic (a Measurer of the same sequences, renderer, page
    size and capacity) where the caller computes it elsewhere; else it is computed here, once,
    and its start and best variant are those the prescription keeps. ``diagnosis`` may be a
    function that waits for it (a helper diagnosing meanwhile): the search, which every
    prescription runs and which needs no diagnosis, then runs first."""
    m = Measurer(seqs, renderer, page_size, capacity)
    if not isinstance(diagnosis, Diagnosis):
        if alone is None:
            _search_alone(m)  # (memoized in ``m``: the prescription takes it from there)
        diagnosis = diagnosis()
    return _prescribed(m, diagnosis, alone if alone is not None else lambda: _search_alone(m))


def _prescribed(m: Measurer, diagnosis: Diagnosis, alone: Callable[[], CanonicalTop]) -> Prescription:
    seqs, page_size, capacity = m.seqs, m.page_size, m.capacity
    prompt = m.prompt_tokens
    before = m.cached(seqs)
    before_unlimited = m.cached(seqs, unlimited=True) if capacity is not None else before
    has_tools = any(r is not None and r.tools for r in m.editable)

    def rate(cached: int) -> float:
        return cached / prompt if prompt else 0.0

    # Where the chat template prints the system prompt late, a cause no span shows: found by
    # measuring the layout's one fix (the canonical order's first-user-turn variant answers it).
    diagnosis = dataclasses.replace(diagnosis, findings=diagnosis.findings + _layout_findings(m, diagnosis, before, prompt))
    c = _chosen(_Search(m, plans_for(diagnosis, m.holds, has_tools)), diagnosis, before)
    canon, superseded = _canonical_pick(c, alone)
    plans, search, diagnosis = c.search.plans, c.search, c.diagnosis
    after, changed_all, fixed_all = (before, 0, seqs) if superseded else (c.after, c.changed, c.fixed)
    used = [] if superseded else [k for k, v in enumerate(c.choice) if v is not None]
    actions = _plan_actions(c, superseded, before, c.after, rate)
    if capacity is not None:
        after_unlimited = search.measure(c.choice, unlimited=True)[0] if used else before_unlimited
    else:
        after_unlimited = after
    # (Superseded pins are no action to take with the canonical order: "all" is that alone.)
    count = 0 if superseded else len(plans)
    named: list[dict[str, Any]] = []
    if canon is not None:
        # The canonical order recovers more than the fixes above: it is the prescription,
        # answering the causes it names (findings of their own where the diagnosis has none).
        cached, changed_all, fixed_all, description, details, named_causes = canon
        new, named, answer = named_causes()
        diagnosis = dataclasses.replace(diagnosis, findings=diagnosis.findings + new)
        details["causes"] = named
        # The action answers the cause worth most: its own finding, or the diagnosis's of it.
        cause_at = next((k for k, f in enumerate(diagnosis.findings) if f is answer), None)
        if cause_at is None and details.get("first_user"):
            # (Or the layout finding its first-user-turn opening answers.)
            cause_at = next((k for k, f in enumerate(diagnosis.findings) if f.from_layout), None)
        # (Its code is that finding's: a value the diagnosis reports as TR101 is answered as
        # TR101, though the change that answers it is a placement.)
        code = (diagnosis.findings[cause_at].code if cause_at is not None else named[0]["code"] if named else "")
        if cause_at is not None:
            description = _answering(diagnosis.findings[cause_at]) + description
        actions.append(Action("canonical-order", description, code, rate(cached),
                              cached - after, changed_all, cause_at, details))
        after, count = cached, count + 1
        after_unlimited = (m.cached(fixed_all, unlimited=True, own_rate=details.get("tools") == "pool")
                           if capacity is not None else after)
    dynamic_gain = _dynamic_gain(search, c.choice, used, canon is not None and not used, named,
                                 before_unlimited, after_unlimited)
    if capacity is not None and before_unlimited > before:
        # Eviction costs hits: keep the most shared prefix resident.
        pin, after = _pin_action(m, c, used, before, after, fixed_all)
        if pin is not None:
            actions.append(pin)
            count += 1
    if count > 1:
        actions.append(Action("all", "All the actions above together.", "", rate(after), after - before,
                              changed_all))
    # Measured attribution: what the fixes recover, by cause (template effects measured
    # with unlimited capacity); eviction is what the finite pool loses; the rest is
    # content seen once.
    gain = max(0, after_unlimited - before_unlimited)
    dynamic_part = max(0, min(gain, dynamic_gain))
    eviction = before_unlimited - before if capacity is not None else None
    # What the chat template's placement of the tools costs (TR103) is what the diagnosis's
    # tools-first replay measured, within what no fix recovered: no rewrite of the requests
    # changes it.
    layout = max(0, min(diagnosis.attribution.layout, prompt - before_unlimited - gain))
    attribution = Attribution(prompt, before, dynamic_part, gain - dynamic_part,
                              prompt - before_unlimited - gain - layout, eviction, measured=True, layout=layout)
    # The canonical form's memos of texts and units are this traffic's: what follows (the
    # simulations of the advisory) reuses their memory.
    forget_units()
    return Prescription(
        requests=len(seqs), prompt_tokens=prompt, cached_before=before, cached_after=max(before, after),
        actions=actions, section_order=section_order(diagnosis, last_turn(seqs)), findings=diagnosis.findings,
        attribution=attribution, not_rewritable=m.not_rewritable, page_size=page_size, capacity=capacity,
        rewritten=fixed_all,
    )


def _dynamic_gain(search: _Search, choice: list[int | None], used: list[int], alone: bool,
                  named: list[dict[str, Any]], before_unlimited: int, after_unlimited: int) -> int:
    """What the fixes of varying content (TR101, TR102) recover, for the attribution."""
    if alone:
        # The canonical order alone: what varies is moved by its placement change (the
        # tokens it loses with that change left out).
        return sum(c["tokens"] for c in named if c["code"] in REPORTED_AS[PLACEMENT_CODE])
    dynamic = [k for k in used if search.plans[k].code in ("TR101", "TR102")]
    if dynamic and len(dynamic) < len(used):
        only = [choice[k] if k in dynamic else None for k in range(len(search.plans))]
        return search.measure(only, unlimited=True)[0] - before_unlimited
    return after_unlimited - before_unlimited if dynamic else 0


def _layout_findings(m: Measurer, diagnosis: Diagnosis, before: int, prompt: int) -> list[Finding]:
    """Where the chat template prints the system prompt: a layout that joins it into the
    last user turn (Mistral's) sends it behind the history, and where a conversation ends
    on a tool result (an agent's later steps) not at all, so each turn parts from the one
    before where the system text was. No span or order shows that: the messages are the
    same, only where the template prints static text varies. So the fix is measured:
    where sending the system prompt as the first user turn's opening gains, it is a TR102
    finding at the token where the layout parts the requests."""
    if any(f.code == "TR102" for f in diagnosis.findings):
        return []  # (the canonical order's first-user-turn variant is measured for it)
    if not _system_printed_late(m):
        return []  # (a system message the client sends late is a span the diagnosis reads)
    fixed, changed = m.rewritten([system_into_first_user])
    if changed < HIDDEN_REQUESTS:
        return []
    gain = m.cached(fixed, own_rate=True) - before
    if gain < HIDDEN_SHARE * prompt:
        return []
    moved = [(a, b) for a, b in zip(m.seqs, fixed) if a is not b]
    parts = sorted(common_bytes(pack(a.ids), 0, pack(b.ids), 0) // ITEM for a, b in moved)
    offset = parts[len(parts) // 2]
    first = moved[0][0].request
    return [Finding(
        code="TR102", path=first.source, line=first.line, token_offset=offset, kind="system-prompt-placement",
        requests=changed, tokens_lost=gain, example="",
        message=(f"the chat template prints the system prompt where a conversation's turns part (with the last "
                 f"user turn, or not at all in a step that ends on a tool result): from token {offset} on, "
                 f"{changed:,} requests stop sharing what their conversation sent before, about {gain:,} "
                 "cacheable tokens. Send the system prompt as the opening of the first user turn."),
        span=SpanFacts(layout=SYSTEM_LAYOUT))]


def _system_printed_late(m: Measurer, sample: int = 16) -> bool:
    """Whether the chat template prints the system prompt after the first user turn's text,
    or not at all, in most of a sample of the requests the move would change: then the
    layout, not the order the client sends, parts the turns."""
    late = seen = 0
    for seq, req in zip(m.seqs, m.editable):
        if seen >= sample:
            break
        if req is None or system_into_first_user(req) is None:
            continue
        msgs = req.messages or ()
        system = next((text_of(x.get("content"), m.joiner) for x in msgs if x.get("role") == "system"), None)
        first = next((text_of(x.get("content"), m.joiner) for x in msgs if x.get("role") == "user"), None)
        if not system or not first or not system.strip() or not first.strip():
            continue
        seen += 1
        text = m.renderer.tokenizer.decode(list(seq.ids))
        at_system, at_user = text.find(system.strip()[:40]), text.find(first.strip()[:40])
        if at_system < 0 or 0 <= at_user < at_system:
            late += 1
    return seen > 0 and late * 2 > seen


# What ``advisor.prescribe.causes.findings`` returns: new findings, the causes, the answer.
CauseFindings = tuple[list[Finding], list[dict[str, Any]], "Finding | None"]


@dataclass(frozen=True)
class CanonicalTop:
    """What the canonical order's search found (plain data: a helper process sends it): the
    best variant's cached tokens, its index in ``canonical_fixes``, and whether it sends the
    whole tool pool (``_with_pool``) on top of that variant."""

    cached: int
    variant: int
    pooled: bool


# Where the traffic stands before the canonical order's variants are measured: the rounds of
# forms, each request as the chosen fixes left it with its history as first sent (in log
# order; and by the identity of the request as logged), the variants, and each request as the
# chosen fixes left it before its history was restored (in log order).
_Start = tuple[Rounds, list["Request | None"], dict[int, "Request | None"], list[tuple[str, Fix, dict[str, Any]]],
               list["Request | None"]]


def _canonical_start(m: Measurer, chosen: list[Fix], keep: frozenset[str]) -> _Start:
    # Counted on the traffic the chosen fixes leave: what they moved is ordered with the rest.
    start = [_applied(chosen, r, m.apply) if r is not None else None for r in m.editable]
    rounds = canonical_rounds(start, m.markup)
    rounds = rounds.keeping(keep) if keep else rounds
    # Each conversation's history as first sent: what a client re-rendered in an earlier
    # turn is no unit to order but a change to undo (advisor.prescribe.history); turns
    # compared in their canonical forms.
    sent = start
    start = as_first_sent(sent, rounds.content, lambda prompt: prompt_turns(prompt, m.markup))
    done = {id(r): s for r, s in zip(m.editable, start) if r is not None}
    return rounds, start, done, canonical_fixes(start, m.joiner, rounds, m.markup.system_late), sent


def _canonical_top(m: Measurer, begun: _Start, keep: frozenset[str],
                   found: CanonicalTop | None = None) -> tuple[Top, Pool | None, int]:
    """The best variant measured (``found``: the one a search elsewhere found, measured
    again for its traffic), the tool pool where it sends one, and the variant it extends
    then (else its own)."""
    rounds, start, done, variants_of, _ = begun
    # (cached, variant, its traffic, requests changed): the best so far, whose traffic is
    # kept (one more than the one measured at a time).
    top: Top | None = None
    for k, (_, fix, _) in enumerate(variants_of):
        if found is not None and k != found.variant:
            continue
        if found is None and any(not _differs(fix, earlier, start, m.apply) for _, earlier, _ in variants_of[:k]):
            # The traffic gives this variant nothing of its own to move (no varying unit in
            # a system message, no unit drawn from a pool): an earlier variant again.
            continue
        # At the rewritten traffic's own rate: one spelling and one wrapping change the
        # token count itself, not only which tokens are shared.
        seqs, changed = m.rewritten([_then(done, fix, m.apply)])
        cached = m.cached(seqs, own_rate=True)
        if top is None or cached > top[0]:
            top = (cached, k, seqs, changed)
    assert top is not None  # (there is always a first variant, and it is never skipped)
    if keep or (found is not None and not found.pooled):
        return top, None, top[1]
    return (*_with_pool(m, rounds, variants_of, top, done), top[1])


def canonical_search(seqs: list[Sequence], renderer: Renderer, page_size: int = 1,
                     capacity: int | None = None) -> CanonicalTop:
    """The canonical order's search on the traffic as logged: which variant caches most
    (what ``prescribe`` of the same arguments takes as ``alone``)."""
    return _search_alone(Measurer(seqs, renderer, page_size, capacity))


def _search_alone(m: Measurer) -> CanonicalTop:
    # (``_canonical_order`` with no fixes before it, short of its threshold and findings.)
    if m.searched is None:
        begun = _canonical_start(m, [], frozenset())
        m.searched = (begun, *_canonical_top(m, begun, frozenset()))
    _, top, pool, base = m.searched
    return CanonicalTop(top[0], base, pool is not None)


def _canonical_order(m: Measurer, chosen: list[Fix], after: int, share: float, known: list[Finding],
                     keep: frozenset[str] = frozenset(), found: CanonicalTop | None = None,
                     ) -> tuple[int, int, list[Sequence], str, dict[str, Any], Callable[[], CauseFindings]] | None:
    """Every request in the canonical order (``advisor.prescribe.canonical``; without the
    changes ``keep`` names) on top of the chosen fixes, each placement of what varies
    measured: the best, where
    it recovers ``share`` of the prompt tokens more than the chosen fixes alone, with the
    findings of its causes that ``known`` lacks (``advisor.prescribe.causes``); else None.
    ``found``: what ``canonical_search`` found for these fixes (none), already measured."""
    if found is not None and found.cached - after < max(1.0, share * m.prompt_tokens):
        return None
    if not chosen and not keep and found is not None and m.searched is not None:
        # (The search ran here: its start and its best, measured already.)
        begun, top, pool, _ = m.searched
    else:
        begun = _canonical_start(m, chosen, keep)
        top, pool, _ = _canonical_top(m, begun, keep, found)
    rounds, start, done, variants_of, resent = begun
    # (A finding only the canonical form answers takes it at any gain: ``share`` 0.)
    if top[0] - after < max(1.0, share * m.prompt_tokens):
        return None
    description, fix, details = variants_of[top[1]]
    if keep:
        description = ("Send every unit in its most common spelling (one Unicode normalization, one wrapping, one "
                       "key and column order); nothing else reordered or moved.")
    best = (top[0], top[3], top[2], description, dict(details))
    cached, to, first_user = best[0], best[4]["to"], bool(best[4].get("first_user"))
    kept = rounds.sharing_out() if best[4].get("shared_out") else rounds
    # The requests as the chosen fixes leave them, before their history is as first sent.
    logged = {id(r): s for r, s in zip(m.editable, resent) if r is not None}

    def worth(change: str) -> int:
        # What the canonical form loses with one of its changes left out (the history as
        # first sent: the same form on the requests as sent).
        if change == HISTORY_CHANGE:
            fix = canonical_fix(kept, to, m.joiner, pool, first_user)
            return cached - m.cached(m.rewritten([_then(logged, fix, m.apply)])[0], own_rate=True)
        fix = canonical_fix(kept.keeping(keep | {change}), to, m.joiner, pool, first_user)
        return cached - m.cached(m.rewritten([_then(done, fix, m.apply)])[0], own_rate=True)

    def offset_of(index: int, change: str) -> int:
        # Where the request as logged first differs from its canonical form with only this
        # cause's change made: the cause itself, not an earlier change of another kind
        # (static tools put in name order ahead of the per-request tool that is the cause).
        ids_logged = pack(m.seqs[index].ids)
        fix = (canonical_fix(kept.keeping(keep | (CHANGES - {change})), to, m.joiner, pool, first_user)
               if change != HISTORY_CHANGE else _unchanged)
        for ids in (m.one(_then(done, fix, m.apply), index), best[2][index].ids):
            if ids is not None and ids != m.seqs[index].ids:
                return common_bytes(ids_logged, 0, pack(ids), 0) // ITEM
        return 0

    # The memos of the forms measured hold every text of this traffic; worth and named (for
    # the form kept only) fill what they need again.
    rounds.forget()

    def named() -> CauseFindings:
        # Named under the counts of the traffic as the chosen fixes leave it (the first
        # round's); only for the form the prescription keeps, as each cause costs a measure.
        found = causes(start, kept.canons[0], moved_out=to != KEPT) + history_causes(resent, start)
        return cause_findings(found, worth, offset_of, m.prompt_tokens, known)

    return (*best, named)


def _unchanged(req: Request) -> Request | None:
    return None


def _with_pool(m: Measurer, rounds: Rounds, variants_of: list[tuple[str, Fix, dict[str, Any]]], top: Top,
               done: dict[int, Request | None]) -> tuple[Top, Pool | None]:
    """The best variant, and where the tool lists are subsets of one pool, the same with
    every request that sends one of its varying tools sending the whole pool (appended to
    ``variants_of``) if it measures better at its own rate: more is sent, so it is kept only
    where it leaves fewer tokens to prefill than the variant without it. With the pool
    where its variant is the best (None otherwise)."""
    pool = tool_pool(rounds)
    if pool is None:
        return top, None
    description, _, details = variants_of[top[1]]
    canon = rounds.sharing_out() if details.get("shared_out") else rounds
    fix = canonical_fix(canon, details["to"], m.joiner, pool, bool(details.get("first_user")))
    seqs, changed = m.rewritten([_then(done, fix, m.apply)])
    cached = m.cached(seqs, own_rate=True)
    # (Against the same variant without the pool: the prefill it leaves.)
    if cached <= top[0] or _uncached(m, seqs) >= _uncached(m, top[2]):
        return top, None
    variants_of.append((description + POOL_TOOLS, fix, dict(details, tools="pool")))
    return (cached, len(variants_of) - 1, seqs, changed), pool


def _uncached(m: Measurer, seqs: list[Sequence]) -> int:
    return sum(s.prompt_tokens for s in seqs) - m.cached(seqs)


# What the tool pool variant adds to its canonical order's description.
POOL_TOOLS = (" Every request that sends a tool of the pool sends the whole set its subsets are drawn from, in one order "
              "(where the API has it, restrict each request's choice with tool_choice instead of the list).")


def _differs(fix: Fix, other: Fix, requests: list[Request | None],
             apply: Callable[[Fix, Request], Request | None]) -> bool:
    """Whether ``fix`` rewrites any request otherwise than ``other`` (cheap: the canonical
    forms are memoized, and ``apply`` keeps what each fix made of each request for the
    rewrite that measures it; only rendering and tokenizing a variant costs)."""
    return any(apply(fix, r) != apply(other, r) for r in requests if r is not None)


def _applied(fixes: list[Fix], req: Request, apply: Callable[[Fix, Request], Request | None]) -> Request:
    for fix in fixes:
        got = apply(fix, req)
        if got is not None:
            req = got
    return req


def _then(done: dict[int, Request | None], last: Fix, apply: Callable[[Fix, Request], Request | None]) -> Fix:
    """``last`` on each request as the chosen fixes left it (``done``, by the identity of the
    request as logged; ``apply`` carries it out): one fix, None where neither changed the request."""
    def fix(req: Request) -> Request | None:
        start = done.get(id(req)) or req
        got = apply(last, start)
        return got if got is not None else (start if start is not req else None)
    return fix


# The layout finding's mark (``SpanFacts.layout``).
SYSTEM_LAYOUT = "system-prompt-in-last-user-turn"
HIDDEN_REQUESTS = 3   # a layout finding shows in at least this many requests ...
HIDDEN_SHARE = 0.01   # ... and costs at least this share of the prompt tokens
# The canonical order rewrites every request: where no pin was chosen to weigh it against
# and the diagnosis found no cause it changes, it is prescribed where it recovers this share
# of the prompt tokens (clean traffic gains up to ~1.3% by reordering what it shares: passages
# retrieved per request, a pasted document). Less is not worth asking a client to resend everything.
CANONICAL_GAIN = 0.03
# Where pins were chosen (or a cause found), the canonical order is weighed against them: it is
# prescribed where it recovers this share more.
CANONICAL_EDGE = 0.005
# The codes of the causes the canonical form changes (spelling, order, placement).
CANONICAL_CAUSES = frozenset(code for codes in REPORTED_AS.values() for code in codes)
# Findings whose one fix is the canonical form (content spelled otherwise: nothing moves to answer
# it): where the diagnosis reports one, its spelling change alone is kept at any gain.
CANONICAL_ONLY = frozenset({"TR104"})


# What ends the prompt, by the role of the requests' last message (most of them).
LAST_TURN = {"user": "the user's question (last)", "tool": "the newest tool results (last)",
             "function": "the newest tool results (last)", "ipython": "the newest tool results (last)",
             "assistant": "the assistant turn being continued (last)", None: "the per-request text (last)"}


def last_turn(seqs: Iterable[Sequence]) -> str | None:
    """The role most requests end with (None: records without messages, prompts or ids)."""
    roles = Counter(s.request.messages[-1].get("role") if s.request.messages else None for s in seqs)
    role = max(roles.items(), key=lambda kv: (kv[1], str(kv[0])))[0] if roles else "user"
    return role if role in LAST_TURN else "user"


def section_order(diagnosis: Diagnosis, last: str | None = "user") -> list[str]:
    """The recommended layout of a prompt, from the traffic: shared blocks first (system,
    tools and schemas in a fixed order, sections in a fixed order), the per-request
    values and, last, what the requests end with (``last``: its role)."""
    order = ["system prompt (static)"]
    for f in diagnosis.findings:
        if f.code == "TR201" and f.kind == "tool-order" and f.order is not None:
            order.append("tool definitions, sorted by name: " + ", ".join(b.removeprefix("tool ") for b in f.order.blocks))
    for f in diagnosis.findings:
        # (A cause the canonical order names has no blocks of its own: that order is its layout.)
        if f.code == "TR201" and f.kind != "tool-order" and f.order is not None:
            order.extend(f.order.canonical_order)
    order.append("retrieval context and conversation history")
    for f in diagnosis.findings:
        if f.code == "TR102":
            order.insert(1, "content most requests share, before any per-request content")
        if f.code == "TR101":
            before = (f.span.context_before if f.span else "").strip().splitlines()
            order.append(f"per-request {f.kind} ({before[-1] if before else f.example})")
    order.append(LAST_TURN.get(last, LAST_TURN["user"]))
    return order
