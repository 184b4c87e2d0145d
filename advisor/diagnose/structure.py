"""Findings read off the aligned traffic (``advisor.diagnose.align``).

Varying spans (``Gap``) are grouped by the shared content they re-join (a content-defined
anchor, so the group does not depend on where the span sits) and reported when that content
is static (held by most requests) and the span costs a measurable share of the prompt
tokens. The message holding a span (special tokens end messages) decides its code: TR102
for per-request content that opens its message ahead of static content (retrieved
passages, a summary or profile message before the system prompt, the question before
static instructions in the user turn), TR101 for any other varying span. A span is
widened to whole words and to where static content resumes, so a move carries all of
it. Reordered runs (``Swap``) are grouped by their anchors and reported as TR201 when the
units are static; so are gaps whose lines (or list items, or JSON members) are the
neighbour's in another order, units too short for the aligner's runs. What the span's
text looks like only labels the finding (``advisor.diagnose.spans``).
"""

from __future__ import annotations

from collections import Counter
import dataclasses
import re
from dataclasses import dataclass, field
from typing import Callable, Sequence

from advisor.diagnose.align import MIN_RUN, Aligner, Gap, Swap, weight
from advisor.diagnose.blocks import CHAT_MARKER
from advisor.diagnose.brackets import balanced, close_bracket, members, open_brackets, unescaped
from advisor.diagnose.spans import (COMPOUND, LIST_MARK, classify, classify_inside, compound_bounds,
                                    differing_range, expand)
from advisor.diagnose.spelling import respelled, spelling_kind
from advisor.ingest.ids import ITEM, common_bytes, find_item, pack, unpack

# Per-request content that opens its message (at most HEAD static tokens of it before:
# chat markup, a label) and is at least LONG_SPAN tokens long is ahead of static content:
# TR102 (``Structure._code`` has the shorter cases). Other varying spans are TR101.
LONG_SPAN = 64
HEAD = 48
PROSE_SPAN = 24   # tokens: lines of text this long at a message's start are content (TR102)
PROSE_LINE = 12   # characters: a line this long is a line of its own
PROSE_WORDS = 6   # words of letters: a paragraph holding this many is text, not a value
VALUE_DENSE = 0.3  # share of words holding a digit in a stretch of values (readings, ids)
DENSE_CHARS = 400  # characters of a span read for that share (readings are short; documents are long spans anyway)
_DIGIT_WORD = re.compile(r"[^\s\d]*\d\S*")
_WORDS = re.compile(r"[^\W\d_]{2,}")
_CLOSE = " \t.!?;:)]}\"'"  # what may close a paragraph's last sentence
STATIC_SHARE = 0.5   # re-joined content held by at least this share of requests is static
# ... or by this share, when at least FAMILY_REQUESTS requests re-join it (one arm of an A/B
# test of system prompts; retrieved passages are re-joined by a few pairs of requests).
FAMILY_SHARE = 0.3
FAMILY_REQUESTS = 8
UNIT_SHARE = 0.1     # a unit sent in another order is held by at least this share of all requests
SEAM = 8             # tokens two runs of neighbouring units may both cover
MIN_LOSS = 0.005     # of the aligned prompt tokens: smaller losses are not reported
# An order costs only where a new order first shows, so few requests show one; what the
# alignment sees reordered must cost at least this share to be more than shared
# sentences that happen to swap places in unique documents.
MIN_SWAP_LOSS = 0.01
# A difference only one request shows is one change: every later request finds an earlier
# one like it. It is a defect only where both variants stay live (a value with two settings,
# one prompt's units in two orders); a change for good (a date that rolled over, a deploy)
# or a second prompt (an A/B test's arm) costs one cold prefill that no fix saves. Below
# this many requests, a finding must show which (``_recurs``, ``_rearranged``).
MIN_CHANGES = 2
# The static content a span hides runs on for at least this many tokens (typically): a
# sentence that recurs in many documents (a phrase bank, boilerplate) is not a prompt.
# Or, when another span follows soon, all the shared content after it is this long.
MIN_STATIC = 32
SECTION_HEAD = 16    # tokens of a label between a section's start and the content opening it
SECTION_LOOK = 24    # tokens decoded before a point to see whether a heading's line ends there
# Where a section the request fills starts: after a Markdown heading's line (a template's
# "# User Preamble"), or after chat markup spelled as text ("<|message|>", "[INST]") in a
# vocabulary without those special tokens. (Not after any blank line: content after the
# system prompt's first paragraphs is inside the prompt, a dynamic span.)
_SECTION_END = re.compile(r"(?:(?:^|\n)#{1,6} [^\n]*\n\n?|<\|[A-Za-z_]{2,24}\|>(?:[a-z]{2,16}\n)?|\[/?INST\] ?)$")
# The role such markup names: "<|start|>user<|message|>", "<|USER_TOKEN|>", "<|im_start|>user\n".
_MARKUP_ROLE = re.compile(r"(?i)\b(user|system|assistant|developer|tool|chatbot)(?:_token\|>|<\|[a-z_]+\|>|\n)$")
LABEL_REACH = 32     # tokens before a history value searched for its label when six are all value
MIN_STATIC_TOTAL = 256
CONTEXT = 48         # tokens of context decoded on each side of a span
PERMUTED_MAX = 2048  # tokens: longer varying stretches are not tested for a permutation
SHORT_LIST = 256     # tokens: a one-line list split by chance re-joins is at most this long
BRACKET_LEVELS = 4   # brackets around a gap compared, from the innermost out
FAR = 4096           # tokens searched after a span for where static content resumes
UNPACKED = 48        # requests kept unpacked while the spans are read
BRIDGE = 48          # tokens: shared text this short inside one compound token joins two spans
RECORD_BRIDGE = 512  # tokens: a record's values this far apart may be one varying region
_SENTENCE = re.compile(r"[^\W\d_]{2,}(?:[ ,]+[^\W\d_]{2,}){3,}")  # four words in a row
WORD_REACH = 24   # characters a value in a history is widened back by, to where it starts
FOLD_NEAR = 16        # tokens: a history value this close to another value's finding is that value
HISTORY_REQUESTS = 4  # requests a value re-rendered into histories shows in, at least
LABEL_CHARS = 12  # characters of the label before a value in a history that name it
STATIC_AFTER_LONG = 128  # tokens of static content that end a long per-request span
# Tokens read on each side of a span for the unit holding it (a paragraph, or the message up
# to its edge), the unit compared under the spelling key (``advisor.diagnose.spelling``).
UNIT_REACH = 1024
SPELLING_PAIRS = 8  # pairs of requests read for whether a span is a spelling
# What ends such a unit: a blank line, or chat markup spelled as text (a vocabulary without
# the layout's special tokens).
_UNIT_EDGE = re.compile(r"\n[ \t]*\n|" + CHAT_MARKER.pattern)


@dataclass
class SpanFinding:
    code: str
    token_offset: int
    kind: str
    requests: int
    tokens_lost: int
    examples: list[str]
    label: str         # static text just before the span
    right: str         # static text just after it
    span_tokens: int
    # Decoded (before, span, after) of observed spans: the rewrite finds the span by them.
    contexts: list[tuple[str, str, str]] = field(default_factory=list)
    first_request: int = -1  # the earliest request that loses cached tokens to it (-1: unknown)
    # The value is re-rendered into each conversation's history (a reply's age, a result's
    # freshness): every turn re-sends the history with new values.
    in_history: bool = False


@dataclass
class SwapFinding:
    token_offset: int
    requests: int
    tokens_lost: int
    labels: list[str]
    orders: list[tuple[list[str], int]]
    cores: list[str]   # a distinctive piece of text of each unit, to find it in a request
    first_request: int = -1  # the earliest request that loses cached tokens to it (-1: unknown)


class Structure:
    def __init__(self, aligner: Aligner, decode: Callable[[Sequence[int]], str],
                 specials: frozenset[int] = frozenset()) -> None:
        self.al = aligner
        self.decode = decode
        # Special token ids (chat markup, BOS): where one message ends and the next begins.
        self.specials = specials
        # Gaps whose text is the neighbour's units in another order (read by ``swaps``).
        self.permuted: list[tuple[Gap, list[str]]] = []
        # Stretches ahead of static content (no neighbour of their own): the neighbour and
        # where the static run they end at sits in it, by (request, start).
        self._ahead_refs: dict[tuple[int, int], tuple[int, int]] = {}
        self._by_index: dict[int, bytes] | None = None
        self._unpacked: dict[int, list[int]] = {}
        self._static: dict[tuple[bytes, bytes, float], bool] = {}
        self._units: dict[int, list[bool]] = {}  # by id of the aligner's swaps, which live as long as it
        # The gaps of each request that ``spans`` reported (read by ``swaps``).
        self._reported: dict[int, list[Gap]] = {}
        self._sets: dict[int, frozenset[tuple[int, int]]] = {}  # pairs of ids recent neighbours hold
        self._history_gaps: set[int] = set()  # ids of the aligner's gaps read as history edits

    def _is_static(self, key: bytes, given: bytes = b"", share: float = STATIC_SHARE) -> bool:
        """Whether at least ``share`` of the requests (of those holding ``given``) hold
        ``key``; remembered, as the spans of one finding ask about the same content again
        and again."""
        got = self._static.get((key, given, share))
        if got is None:
            got = self._static[(key, given, share)] = self.al.held_by_most(key, given, share)
        return got

    def _static_units(self, s: Swap) -> list[bool]:
        got = self._units.get(id(s))
        if got is None:
            got = self._units[id(s)] = self._find_static_units(s)
        return got

    def _find_static_units(self, s: Swap) -> list[bool]:
        """Which of swap ``s``'s runs are static units sent in another order.

        A unit is shared content: held by at least ``UNIT_SHARE`` of all requests (the few
        turns of one conversation that share its history are not), and by most of those
        that share what precedes the stretch, or, for a long unit (one of four documents),
        by ``UNIT_SHARE`` of them too (a sentence that recurs in retrieved text is short).
        It is moved when it sits in the other order than another unit of the stretch, as a
        separate piece of the neighbour: sentences that passages from one pool share are out
        of order against the static text after them too, but that text is not reordered.
        At least two moved units make an order."""
        static = [self._is_static(h, b"", UNIT_SHARE)
                  and self._is_static(h, s.left, STATIC_SHARE if n < LONG_SPAN else UNIT_SHARE)
                  for h, (_a, n) in zip(s.heads, s.runs)]
        # A run whose text this request holds again further on is a copy (a retrieved
        # passage quoting a glossary entry the static prompt has later): the aligner met the
        # early copy first, and which one is the unit the alignment cannot tell.
        data = self._request(s.request)
        if data is not None:
            for i, (a, n) in enumerate(s.runs):
                if static[i] and find_item(data, data[a * ITEM:(a + n) * ITEM], (a + n) * ITEM) >= 0:
                    static[i] = False
        # A run found inside the piece of the neighbour that a longer run of this request
        # covers is text the request holds twice (a passage quoting the static guide that
        # follows it): the longer run is that text's place, the copy is no unit.
        for i, ((_a, n), b) in enumerate(zip(s.runs, s.refs)):
            if static[i] and any(j != i and m > n and r <= b and b + n <= r + m
                                 for j, ((_x, m), r) in enumerate(zip(s.runs, s.refs))):
                static[i] = False
        out = [False] * len(static)
        for i in range(len(static)):
            for j in range(i + 1, len(static)):
                if not (static[i] and static[j] and s.refs[i] > s.refs[j]):
                    continue
                # Units in another order are separate pieces of the neighbour; a run found
                # inside another run's piece is text the prompt holds twice (a sentence of a
                # passage that the static guide also says), not a unit moved.
                lo_i, hi_i = s.refs[i], s.refs[i] + s.runs[i][1]
                lo_j, hi_j = s.refs[j], s.refs[j] + s.runs[j][1]
                # (Runs of neighbouring units may share the few tokens at their seam.)
                if min(hi_i, hi_j) - max(lo_i, lo_j) > SEAM or (out[i] and out[j]):
                    continue
                # The units of one prompt travel together: most requests holding one hold
                # the other. Two sentences of a phrase bank that retrieved passages share
                # meet in a few requests only; so do two passages of one pool. One of a few
                # documents sent with the static prompt in another order is a unit too: with
                # a unit most requests hold, a long one need meet it in UNIT_SHARE of them.
                # (By the sets of sampled requests holding each: one scan per unit.)
                held_i, held_j = self.al.holders(s.heads[i]), self.al.holders(s.heads[j])
                sample = self.al.sample_size()
                # A short piece a minority of requests hold (a question from a small bank in a
                # history sent ahead of the system prompt) against a unit most hold is
                # per-request content ahead of static content, not two units reordered.
                minor_i, minor_j = (len(h) < STATIC_SHARE * sample for h in (held_i, held_j))
                if (minor_i != minor_j) and s.runs[i if minor_i else j][1] < LONG_SPAN:
                    continue
                both = len(held_i & held_j)
                share_i = share_j = STATIC_SHARE
                if len(held_i) >= STATIC_SHARE * sample and s.runs[j][1] >= LONG_SPAN:
                    share_j = UNIT_SHARE
                if len(held_j) >= STATIC_SHARE * sample and s.runs[i][1] >= LONG_SPAN:
                    share_i = UNIT_SHARE
                if held_i and held_j and both >= share_j * len(held_i) and both >= share_i * len(held_j):
                    out[i] = out[j] = True
        return out

    def _trimmed(self, s: Swap) -> Swap | None:
        """Swap ``s`` cut down to its static units in another order (None when fewer than
        two): the per-request runs and the static text around them are not the units."""
        moved = self._static_units(s)
        if sum(moved) < 2:
            return None
        if all(moved):
            return s
        keep = [k for k, m in enumerate(moved) if m]
        runs = tuple(s.runs[k] for k in keep)
        return dataclasses.replace(
            s, start=runs[0][0], end=max(a + n for a, n in runs), keys=tuple(s.keys[k] for k in keep), runs=runs,
            heads=tuple(s.heads[k] for k in keep), refs=tuple(s.refs[k] for k in keep))

    def _request(self, index: int) -> bytes | None:
        if self._by_index is None:
            self._by_index = dict(zip(self.al.kept_ids, self.al.kept))
        return self._by_index.get(index)

    def _ids(self, index: int) -> list[int] | None:
        """A kept request's ids. The spans of one log come from the same earliest requests,
        so the last few are kept unpacked (a list costs several times the packed bytes)."""
        got = self._unpacked.pop(index, None)
        if got is None:
            data = self._request(index)
            if data is None:
                return None
            got = unpack(data)
            if len(self._unpacked) >= UNPACKED:
                del self._unpacked[next(iter(self._unpacked))]
        self._unpacked[index] = got  # most recent last
        return got

    def spans(self, scale: float = 1.0) -> list[SpanFinding]:
        al = self.al
        if not al.gaps and not al.swaps:
            return []
        real, moved_keys, echoed, ahead = self._swaps_read()
        swapped = {s.request: (s.start, s.end) for s in real}
        # (Where the traffic shows units reordered, stretches out of order are that.)
        candidates = [g for g in al.gaps + ([] if real else ahead) if not _within(swapped.get(g.request), g.start)]
        # History edits re-join a conversation's own turns: they are grouped by the label
        # before the value, the rest by the shared content they re-join.
        history_groups = self._history_groups([g for g in candidates if g.resent])
        self._history_gaps = {id(g) for group in history_groups for g in group}
        groups = _group_gaps(self._bridged([g for g in candidates if id(g) not in self._history_gaps]))
        # A span that re-joins at a unit other requests send in another order is the
        # permutation seen from one pair, not a value (retrieved passages from one pool);
        # static text that only per-request content sits out of order against is not such a unit.
        kept = {id(s) for s in real}
        others = {k for s in al.swaps if id(s) not in kept for k in s.keys} - echoed
        permuted = moved_keys | others
        shown_by: dict[bytes, set[int]] = {}  # the requests whose alignment shows a unit moved
        for s in real:
            for key in s.keys:
                if key in moved_keys:
                    shown_by.setdefault(key, set()).add(s.request)
        # A permutation shows in most pairs of requests: spans of many requests that re-join
        # at a unit one or two stray pairs saw moved (a sentence two passages share) stay.
        # (Static units seen moved, unless the gaps' own lines are not the neighbour's: a
        # value just before a unit that notes quoting the static text make look moved.)
        groups = [g for g in groups if not (_permutation_seen(g, permuted, shown_by) and (
            any(x.key in permuted and x.key not in shown_by for x in g) or self._lines_moved(g, permuted)))]
        groups += history_groups
        need = MIN_LOSS * al.aligned_tokens
        groups = self._without_permuted(groups, need)
        # Where the traffic shows reordered units, the end of a reordered stretch (units
        # the neighbour holds elsewhere) is part of that, not a value (tested below, on
        # the groups that would be reported: decoding every gap's neighbour costs).
        reordered = bool(swapped or self.permuted)
        out = []
        for group in groups:
            if reordered and sum(g.rejoin for g in group) >= need:
                group = [g for g in group if not self._moved(g)]
            finding = self._group_finding(group, need, scale) if group else None
            if finding is not None:
                out.append(finding)
        out.sort(key=lambda f: (f.token_offset, -f.requests))
        return _merged(_history_folded(out))

    def _swaps_read(self) -> tuple[list[Swap], set[bytes], set[bytes], list[Gap]]:
        """The aligner's swaps read: the real reorderings, the keys of the static units they
        move, the keys per-request content re-joins (echoed), and the gaps ahead of static
        content that the other swaps are. Only static units (held by most requests) in
        another order are a reordering: a conversation's last message that comes back
        inside its history in the next turn is out of order against the neighbour too, but
        it is per-request content."""
        real, moved_keys, echoed = [], set(), set()
        ahead: list[Gap] = []
        for s in self.al.swaps:
            static = self._static_units(s)
            if sum(static) >= 2:
                real.append(s)
                moved_keys |= {k for k, r in zip(s.keys, static) if r}
            else:  # the static content such a stretch re-joins is where the span ends
                echoed |= {k for k, h in zip(s.keys, s.heads) if self._is_static(h, s.left)}
                gap = self._ahead_of_static(s)
                if gap is not None:
                    ahead.append(gap)
        return real, moved_keys, echoed, ahead

    def _without_permuted(self, groups: list[list[Gap]], need: float) -> list[list[Gap]]:
        """The groups without their gaps that are the same lines (or list items) as the
        neighbour's in another order: an order defect whose units are too short for the
        aligner's runs, kept in ``self.permuted``. A group too small to report either way is
        left as it is: not worth decoding."""
        self.permuted = []
        out = []
        for group in groups:
            if sum(g.length + g.rejoin for g in group) < need:
                out.append(group)
                continue
            rest = []
            for g in group:
                units = self._permutation(g)
                if units is not None:
                    self.permuted.append((g, units))
                else:
                    rest.append(g)
            out.append(rest)
        return out

    def _group_finding(self, group: list[Gap], need: float, scale: float) -> SpanFinding | None:
        """The finding of one group of gaps, where it passes the filters."""
        requests = {g.request for g in group}
        runs = sorted(g.run for g in group)
        totals = sorted(g.rejoin for g in group)
        # A span must cost enough and hide a long static stretch (a sentence that recurs
        # in many documents is not a prompt), typically, and in the one request that shows
        # it where only one does. Not so the same content spelled otherwise: the key shows
        # it is one text, and the span's own tokens are lost too (spelled alike, they are
        # shared). Tested only where a filter would drop the group: it costs decodes.
        spelled = False
        if (sum(g.rejoin for g in group) < need
                or (runs[len(runs) // 2] < MIN_STATIC and totals[len(totals) // 2] < MIN_STATIC_TOTAL)
                or (len(requests) < MIN_CHANGES and (runs[0] < MIN_STATIC or totals[0] < MIN_STATIC_TOTAL))):
            spelled = sum(g.rejoin + g.length for g in group) >= need and self._respelled(group)
            if not spelled:
                return None
        # One request is all a value with two settings shows: the setting it replaced
        # must come back (a spelling too: one rewrapped for good is a deploy, a cold
        # prefill no fix saves).
        if len(requests) < MIN_CHANGES and not self._recurs(group[0]):
            return None
        if not self._rejoins_static(group, requests, spelled):
            return None  # re-joins content a few requests share (retrieved passages)
        finding = self._span_finding(group, requests, scale, spelled)
        if finding is not None:
            finding.first_request = min(requests)
            for g in group:
                self._reported.setdefault(g.request, []).append(g)
        return finding

    def _rejoins_static(self, group: list[Gap], requests: set[int], spelled: bool) -> bool:
        """Whether the group re-joins content most requests hold (or is a history edit, or a
        spelling, which shares its own content with the neighbour whatever follows it)."""
        keys = Counter(g.key for g in group)
        key = min(keys, key=lambda k: (-keys[k], k))
        # The content re-joined, tested whole: an anchor alone may be boilerplate that
        # every retrieved passage starts with.
        # Several spans' heads: a re-join that starts inside a shared end of two values
        # holds a piece of the value.
        pairs = list(dict.fromkeys((g.head, g.left) for g in sorted(group, key=lambda g: (g.key != key, g.request))))
        # Content one arm of an A/B test holds is static for that arm, though the arm
        # may be well under half the log: many requests re-joining it say so.
        share = FAMILY_SHARE if len(requests) >= FAMILY_REQUESTS else STATIC_SHARE
        return (self._history_edit(group) or any(self._is_static(h, left, share) for h, left in pairs[:6])
                or self._static_within(group, share) or spelled or self._respelled(group))

    def _history_edit(self, group: list[Gap]) -> bool:
        """Whether the group's spans are edits of a conversation's history: the content
        they re-join is that conversation's own, which no other request holds."""
        return bool(group) and all(id(g) in self._history_gaps for g in group)

    def _history_groups(self, gaps: list[Gap]) -> list[list[Gap]]:
        """History edits grouped by the label before the value: each conversation re-joins
        its own history, so one value re-rendered into every conversation's history is
        one group for all of them (and for readings that share their first characters)."""
        by_label: dict[str, list[Gap]] = {}
        kept: dict[int, bytes] | None = None
        for g in gaps:
            # The label's own line, its last characters (six tokens before a value that
            # starts a digit or two later reach back to other text). A span that opens its
            # line is no value under a label: other text where a pair of conversations
            # differ (two customers' first messages).
            label = self._label(g.left)
            if not label and self.decode(unpack(g.left)).strip():
                # The six tokens are all value (a clock's date, one digit a token): its label
                # is further back in the request.
                if kept is None:
                    kept = dict(zip(self.al.kept_ids, self.al.kept))
                data = kept.get(g.request)
                if data is not None:
                    label = self._label(data[max(0, g.start - LABEL_REACH) * ITEM:g.start * ITEM])
            line = label.rsplit("\n", 1)[-1]
            if line.strip():
                by_label.setdefault(line[-LABEL_CHARS:], []).append(g)
        # One value re-rendered into many conversations' histories shows in many requests;
        # a pair or two that differ by a name and go on alike are a coincidence.
        return [by_label[k] for k in sorted(by_label) if len({g.request for g in by_label[k]}) >= HISTORY_REQUESTS]

    def _label(self, left: bytes) -> str:
        """The text before a span up to where the value starts, after any chat markup."""
        text = self.decode(unpack(left))
        text = text[:_value_start(text, len(text))]
        return _MARKUP.split(text)[-1]

    def _bridged(self, gaps: list[Gap]) -> list[Gap]:
        """Gaps of one request joined where the shared text between them is a piece of one
        compound token (the fixed parameter names between a presigned URL's key, date and
        signature): the URL is one value, and a move must carry it whole."""
        by_request: dict[int, list[int]] = {}
        for k, g in enumerate(gaps):
            by_request.setdefault(g.request, []).append(k)
        out: list[tuple[int, Gap]] = []  # (index of its first gap, gap): the input's order
        for request, ks in by_request.items():
            ks.sort(key=lambda k: gaps[k].start)
            ids: list[int] | None = None
            merged = [(ks[0], gaps[ks[0]])]
            for k in ks[1:]:
                g = gaps[k]
                first, p = merged[-1]
                end = p.start + p.length
                near = p.ref == g.ref >= 0 and p.length > 0 < g.length
                if near and 0 < g.start - end <= BRIDGE:
                    ids = ids if ids is not None else self._ids(request)
                    if ids is not None and (self._glued(ids, end, g.start)
                                            or self._one_line(ids, p, g)):
                        merged[-1] = (first, _joined(p, g))
                        continue
                if near and 0 < g.start - end <= RECORD_BRIDGE:
                    ids = ids if ids is not None else self._ids(request)
                    if ids is not None and (self._one_record(ids, p, g) or self._one_respelling(ids, p, g)):
                        merged[-1] = (first, _joined(p, g))
                        continue
                merged.append((k, g))
            out.extend(merged)
        return [g for _, g in sorted(out, key=lambda x: x[0])]

    def _one_line(self, ids: list[int], p: Gap, g: Gap) -> bool:
        """Whether gaps ``p`` and ``g`` (two values and the short shared text between them)
        lie on one line that is no reordering of the neighbour's: a line whose values change
        together (a configuration printed as one line of JSON, a header of several fields)
        is one varying region, which a move must carry whole. (Its units in another order
        are an order, which the order test reads.)"""
        if "\n" in self.decode(ids[p.start:g.start + g.length]).strip("\n"):
            return False
        return self._permutation(_joined(p, g)) is None

    def _one_record(self, ids: list[int], p: Gap, g: Gap) -> bool:
        """Whether gaps ``p`` and ``g`` are values of one record: what lies between them is
        no sentence and holds no stretch of static content (field names and markup alone
        are short; a pretty-printed JSON document of readings, a table's rows), and the
        lines are no reordering of the neighbour's. The cache breaks at the record's first
        value, so a move of any one value gains nothing: the record moves whole. (What the
        pair shares between such values is often a coincidence, readings equal in both
        requests, so it may be long; static content between two values keeps them apart.)"""
        lo, hi = p.start + p.length, g.start
        between = self.decode(ids[lo:hi])
        # (A message boundary between them parts two messages: a record and the question.)
        if _SENTENCE.search(between) or CHAT_MARKER.search(between) or any(t in self.specials for t in ids[lo:hi]):
            return False
        for at in range(lo, hi - 2 * MIN_RUN + 1, 4):
            if self._static_window(ids, at, p.left) and self._static_window(ids, at + MIN_RUN, p.left):
                return False
        return self._permutation(_joined(p, g)) is None

    def _one_respelling(self, ids: list[int], p: Gap, g: Gap) -> bool:
        """Whether gaps ``p`` and ``g`` are one paragraph spelled otherwise than the
        neighbour's (a wrapping parts at each line break): no paragraph break between them,
        and the stretch from the first to the end of the second equal to the neighbour's under
        the spelling key."""
        theirs = self._ids(p.ref)
        if theirs is None or any(t in self.specials for t in ids[p.start:g.start + g.length]):
            return False
        mine = self.decode(ids[p.start:g.start + g.length])
        return not _UNIT_EDGE.search(mine) and respelled(
            mine, self.decode(theirs[p.ref_start:g.ref_start + g.ref_length]))

    def _glued(self, ids: list[int], start: int, end: int) -> bool:
        """Whether tokens ``[start, end)`` decode to a piece of a compound token (no space,
        quote or bracket; see ``spans.COMPOUND``) glued to the text on both sides of it."""
        text = self.decode(ids[start - 1:start])[-1:] + self.decode(ids[start:end]) + self.decode(ids[end:end + 1])[:1]
        return len(text) >= 3 and all(ch in COMPOUND for ch in text)

    def _ahead_of_static(self, s: Swap) -> Gap | None:
        """A stretch out of order against its neighbour that is no reordering (its runs are
        sentences the static prompt also says: a persona built from the handbook) and ends at
        a long static run: per-request content ahead of static content, as the gap it would be
        had it shared nothing."""
        k = max(range(1, len(s.runs)), key=lambda i: s.runs[i][1], default=None)
        if k is None or s.runs[k][1] < MIN_STATIC_TOTAL or not self._is_static(s.heads[k], s.left):
            return None
        start = s.start
        length = s.runs[k][0] - start
        rejoin = sum(n for _a, n in s.runs[k:])
        gap = Gap(s.request, start, length, -1, 0, rejoin, s.keys[k], -1, s.heads[k], s.runs[k][1], s.left)
        if s.ref >= 0 and s.refs:
            # (Where the long run sits in the neighbour: members of one JSON object in
            # another order around a long member both hold read as such a stretch.)
            self._ahead_refs[(gap.request, gap.start)] = (s.ref, s.refs[k])
        return gap

    def _static_within(self, group: list[Gap], share: float) -> bool:
        """Whether a long re-joined run turns static a little way in: values from a few
        settings that end alike (advisories sharing a closing sentence) re-join before the
        static text that follows them."""
        for g in sorted(group, key=lambda g: g.request)[:6]:
            if g.run < 2 * MIN_STATIC:
                continue
            ids = self._ids(g.request)
            if ids is None:
                continue
            at = g.start + g.length + min(g.run - MIN_RUN, 2 * MIN_STATIC)
            probe = pack(ids[at:at + MIN_RUN])
            if len(probe) == MIN_RUN * ITEM and self._is_static(probe, g.left, share):
                return True
        return False

    def _span_finding(self, group: list[Gap], requests: set[int], scale: float, spelled: bool = False,
                      ) -> SpanFinding | None:
        """The finding of a group of spans. ``spelled``: the group passed the filters as a
        spelling only, so it is that or nothing."""
        lengths = sorted(g.length for g in group)
        median = lengths[len(lengths) // 2]
        # A value re-rendered into a conversation's history: what follows it is that
        # conversation's own (no static content to run on to), and it is a value in the
        # history, not content opening a message.
        history = self._history_edit(group)
        offset, ref_ids = self._span_offset(group, history)
        decoded = self._decoded_spans(group, history)
        if not decoded:
            return None
        # (Read on the first pairs, as the span's end is: each costs two units decoded.)
        spelling = None if history else self._spelling([g for g, _ids, _start, _end in decoded[:SPELLING_PAIRS]])
        if spelled and spelling is None:
            return None
        code, pulls = ("TR101", []) if history else ("TR104", []) if spelling else self._code(decoded)
        unit = ""
        if spelling:
            unit, offset, median = self._spelled_unit(group, decoded, ref_ids)
        if code == "TR102":
            # Content ahead of the static text (a document) ends where the prompt resumes,
            # not at boilerplate most documents share: ends tested on a longer stretch.
            decoded = [(g, ids, start, self._static_end(ids, end, g.left, long=True) if k < 8 else end)
                       for k, (g, ids, start, end) in enumerate(decoded)]
            if any(pulls):
                decoded, offset, median = _pulled(decoded, pulls, offset)
        contexts, values, value_offset, label, right_text = self._span_contexts(decoded, code, history, offset)
        if unit:
            # (The spans of a wrapping are its line breaks: the unit is what a reader knows.)
            values = [_short(unit, 80)]
        if value_offset is not None and abs(value_offset - offset) <= 16:
            offset = min(offset, value_offset)
        kinds = (Counter(classify_inside(v) for v in values) if code == "TR101" and values
                 else Counter({spelling or "per-request-content": 1}))
        kind = min(kinds, key=lambda k: (-kinds[k], k))
        if not label:
            label, _, right_text = contexts[0]
        # Each aligned request stands for its sampling stride of the log.
        counted = sum(weight(r) for r in requests)
        # (Content spelled otherwise is lost itself: spelled alike, the span is shared too.)
        lost_all = sum((g.rejoin + (g.length if spelling else 0)) * weight(g.request) for g in group)
        return SpanFinding(code, offset, kind, round(counted * scale), round(lost_all * scale), values,
                           label, right_text, median, contexts, in_history=history)

    def _span_offset(self, group: list[Gap], history: bool) -> tuple[int, list[int] | None]:
        """Where the span sits in one request: the oldest neighbour's own coordinates (and
        that neighbour's ids), else the earliest request's."""
        known = [g for g in group if g.ref >= 0]
        if not known:
            return min(g.start for g in group), None
        ref = min(g.ref for g in known)
        starts = sorted(g.ref_start for g in known if g.ref == ref)
        # The median: a few neighbours see this span joined with an earlier one.
        offset = starts[(len(starts) - 1) // 2]
        ref_ids = self._ids(ref)
        if ref_ids is not None:
            # A span that starts inside a word (two numbers sharing their first digits)
            # is the whole word: a move must carry all of it.
            offset = _word_bounds(self.decode, ref_ids, offset, offset + 1)[0]
        if history:
            # Conversations of their own lengths hold it at their own offsets: the usual one.
            first: dict[int, int] = {}
            for g in sorted(known, key=lambda g: g.start):
                first.setdefault(g.request, g.ref_start)
            places = sorted(first.values())
            offset = places[(len(places) - 1) // 2]
        return offset, ref_ids

    def _decoded_spans(self, group: list[Gap], history: bool) -> list[tuple[Gap, list[int], int, int]]:
        """The earliest spans of the group, each with its request's ids and its word-bounded
        start and end (the first few run on to where static content resumes)."""
        decoded: list[tuple[Gap, list[int], int, int]] = []
        for g in sorted(group, key=lambda g: (g.request, g.start))[:24]:
            ids = self._ids(g.request)
            if ids is None:
                continue
            start, end = _word_bounds(self.decode, ids, g.start, g.start + g.length)
            if len(decoded) < 8 and not history:
                end = self._static_end(ids, end, g.left)
            decoded.append((g, ids, start, end))
        return decoded

    def _spelled_unit(self, group: list[Gap], decoded: list[tuple[Gap, list[int], int, int]],
                      ref_ids: list[int] | None) -> tuple[str, int, int]:
        """A spelling's unit, its offset and length. The spellings of one unit part at as
        many places as there are pairs of them (each wrap width its own breaks): the finding
        is the unit from the first, to its end, in the oldest neighbour's coordinates (else
        the earliest request's)."""
        known = [g for g in group if g.ref >= 0]
        if known and ref_ids is not None:
            ref = min(g.ref for g in known)
            parted = min(g.ref_start for g in known if g.ref == ref)
            at, at_ids = _word_bounds(self.decode, ref_ids, parted, parted + 1)[0], ref_ids
        else:
            opening = min(decoded, key=lambda d: d[0].start)
            at, at_ids = opening[0].start, opening[1]
        unit, unit_end = self._unit_around(at_ids, at, at + 1)
        return unit, at, max(1, unit_end() - at)

    def _span_contexts(self, decoded: list[tuple[Gap, list[int], int, int]], code: str, history: bool,
                       offset: int) -> tuple[list[tuple[str, str, str]], list[str], int | None, str, str]:
        """Each span's (before, span, after) text, up to three values, and, for a value
        (TR101), the token offset where the first one starts, the text before it and the
        static text from the line after it."""
        contexts: list[tuple[str, str, str]] = []
        values: list[str] = []
        value_offset = None
        label = right_text = ""
        for g, ids, start, end in decoded:
            lo = max(0, start - CONTEXT)
            left = self.decode(ids[lo:start])
            mine = self.decode(ids[start:end])
            right = self.decode(ids[end:end + CONTEXT])
            text = left + mine + right
            a, b = len(left), len(left) + len(mine)
            # The whole value around the differing tokens (the minutes of a clock differ,
            # the date before them does not): a move must take all of it.
            # (In a history the word is the value: the fix finds each copy of it between
            # the label and the text after it that every conversation prints.)
            va, vb = expand(text, a, b) if code == "TR101" and b - a < 200 and not history else (a, b)
            if history:
                # Back to where the value starts: two readings share their first digits
                # ('28.' of 28.6 and 28.1); the label is before them.
                a = va = _value_start(text, a)
                left, mine = text[:a], text[a:b]
            if code == "TR101" and not history:
                # A value inside a compound token (a URL's key, a JWT's payload) is the token.
                va, vb = compound_bounds(text, va, vb)
                wa, wb = compound_bounds(text, min(va, a), max(vb, b))
                contexts.append((text[:wa], text[wa:wb], text[wb:]))
            else:
                contexts.append((left, mine, right))
            if len(values) < 3 and code == "TR101":
                if value_offset is None and g.start == g.ref_start and abs(g.ref_start - offset) <= 16:
                    value_offset = lo + _token_at(self.decode, ids[lo:end], va)
                    # After the span: static text from the next line on (what a template
                    # diff cuts the moved lines up to).
                    nl = right.find("\n")
                    label, right_text = text[:va], (right[nl:].lstrip("\r\n") if nl >= 0 else right)
                v = text[va:vb].strip()
                if v and v not in values:
                    values.append(v)
            elif len(values) < 3 and mine.strip():
                values.append(_short(mine, 80))
        return contexts, values, value_offset, label, right_text

    def _spelling(self, gaps: list[Gap]) -> str | None:
        """How the span is the neighbour's content spelled otherwise (``spelling_kind``), where
        it is in most of the pairs read: the unit holding it in each request (its paragraph,
        within its message) is equal to the neighbour's under the spelling key. A value that
        varies changes the key; another Unicode normalization, another wrapping, a table's
        columns or a JSON object's keys in another order do not."""
        kinds: Counter[str] = Counter()
        read = 0
        for g in gaps:
            ids = self._ids(g.request)
            if ids is None:
                continue
            ref, lo, hi = g.ref, g.ref_start, g.ref_start + g.ref_length
            if ref < 0:
                # A stretch ahead of static content has no span of the neighbour's own: its
                # unit there is the one ending where the static run starts.
                ref, at = self._ahead_refs.get((g.request, g.start), (-1, 0))
                lo, hi = at - 1, at
            theirs = self._ids(ref) if ref >= 0 and hi > 0 else None
            if theirs is None:
                continue
            read += 1
            mine_unit, _ = self._unit_around(ids, g.start, g.start + g.length)
            their_unit, _ = self._unit_around(theirs, lo, hi)
            if respelled(mine_unit, their_unit):
                kinds[spelling_kind(mine_unit, their_unit)] += 1
        if not read or 2 * sum(kinds.values()) <= read:
            return None
        return min(kinds, key=lambda k: (-kinds[k], k))

    def _respelled(self, group: list[Gap]) -> bool:
        """Whether the spans of ``group`` are their units spelled otherwise (``_spelling``),
        first tested where the first one's own text and the neighbour's are (cheaply: a
        varying value never is; a table's columns only show whole, in its unit)."""
        g = group[0]
        ids, theirs = self._ids(g.request), self._ids(g.ref) if g.ref >= 0 else None
        if ids is None or theirs is None:
            return False
        mine, other = self.decode(ids[g.start:g.start + g.length]), self.decode(theirs[g.ref_start:g.ref_start + g.ref_length])
        return respelled(mine, other) and self._spelling(group[:SPELLING_PAIRS]) is not None

    def _unit_around(self, ids: list[int], start: int, end: int) -> tuple[str, Callable[[], int]]:
        """The text of the paragraph holding tokens [start, end), inside their message: from
        the last blank line (or special token) before them to the first one after; and how
        to find the token it ends at (a search over decodings: asked for once a finding)."""
        lo = max(0, start - UNIT_REACH)
        lo = max((k + 1 for k in range(lo, start) if ids[k] in self.specials), default=lo)
        hi = min(len(ids), end + UNIT_REACH)
        hi = next((k for k in range(end, hi) if ids[k] in self.specials), hi)
        # Decoded whole: a character cut between two tokens decodes whole only so. Where the
        # span sits in it is found from its pieces' lengths (a cut character may make it one
        # off, which a paragraph's edges do not notice).
        text = self.decode(ids[lo:hi])
        a = len(self.decode(ids[lo:start]))
        b = a + len(self.decode(ids[start:end]))
        cut = [m.end() for m in _UNIT_EDGE.finditer(text, 0, a)]
        # (The break after is looked for past the varying tokens: a wrapping may differ in one.)
        tail = _UNIT_EDGE.search(text, b)
        if tail is None:
            return text[cut[-1] if cut else 0:], lambda: hi
        return text[cut[-1] if cut else 0:tail.start()], lambda: lo + _token_at(self.decode, ids[lo:hi], tail.start())

    def _lines_moved(self, group: list[Gap], permuted: set[bytes]) -> bool:
        """Whether most of a sample of ``group``'s gaps (those re-joining at a unit seen
        moved) are lines the neighbour holds nearby: units in another order, not a value."""
        sample = sorted((g for g in group if g.key in permuted), key=lambda g: (g.request, g.start))[:8]
        return sum(self._moved(g) for g in sample) * 2 > len(sample)

    def _moved(self, g: Gap) -> bool:
        """Whether every line of gap ``g`` (widened to whole lines) is in the neighbour
        near where the gap sits: units sent in another order, not a varying value."""
        if g.ref < 0 or g.length > PERMUTED_MAX:
            return False
        a, b = self._ids(g.request), self._ids(g.ref)
        if a is None or b is None:
            return False
        left = self.decode(a[max(0, g.start - CONTEXT):g.start])
        right = self.decode(a[g.start + g.length:g.start + g.length + CONTEXT])
        mine = self.decode(a[g.start:g.start + g.length])
        near = self.decode(b[max(0, g.ref_start - PERMUTED_MAX):g.ref_start + g.ref_length + PERMUTED_MAX])
        lo, hi = left.rfind("\n"), right.find("\n")
        if lo >= 0 or hi >= 0:
            text = left[lo + 1:] + mine + (right[:hi] if hi >= 0 else "")
            # A JSON member may lose its comma where it comes last.
            units = [u.rstrip().rstrip(",") for u in text.split("\n") if len(u.strip()) >= 8]
            if units and all(u in near for u in units):
                return True
        # Sentences of a paragraph in another order: the gap widened to whole sentences.
        lo = max(left.rfind(". "), left.rfind("\n"), left.rfind(": "))
        ends = [k for k in (right.find(". "), right.find("\n")) if k >= 0]
        if lo < 0 or not ends:
            return False
        text = left[lo + 1:] + mine + right[:min(ends)]
        sentences = [u.strip(" .") for u in text.split(". ") if len(u.strip(" .")) >= 16]
        return bool(sentences) and all(u in near for u in sentences)

    def _list_permutation(self, g: Gap, mine: bytes, theirs: bytes) -> list[str] | None:
        """The items of the one-line bracketed list (a JSON array) that gap ``g`` sits in,
        in this request's order, when the neighbour's list around the same place holds the
        same items in another order. Items as short as names let two of them in a row
        re-join by chance, which splits the list into gaps of unequal sides."""
        if g.length > SHORT_LIST or g.ref_length > SHORT_LIST:
            return None

        def around(data: bytes, start: int, length: int) -> list[str] | None:
            left = self.decode(unpack(data[max(0, start - CONTEXT) * ITEM:start * ITEM]))
            opening = left.rfind("[")
            if opening < 0 or "]" in left[opening:] or "\n" in left[opening:]:
                return None
            rest = self.decode(unpack(data[start * ITEM:(start + length + CONTEXT) * ITEM]))
            closing = rest.find("]")
            if closing < 0 or "[" in rest[:closing] or "\n" in rest[:closing]:
                return None
            return [u.strip() for u in (left[opening + 1:] + rest[:closing]).split(",")]

        units_a = around(mine, g.start, g.length)
        if units_a is None or len(units_a) < 3:
            return None
        units_b = around(theirs, g.ref_start, g.ref_length)
        if units_b is None or units_a == units_b or Counter(units_a) != Counter(units_b):
            return None
        return units_a

    def _member_permutation(self, request: int, start: int, end: int,
                            ref: int, ref_start: int, ref_end: int) -> list[str] | None:
        """The members of the one-line bracketed structure that tokens ``[start, end)`` of
        ``request`` sit in (a JSON object or array, a signature's parameters), in its order,
        when neighbour ``ref``'s structure around ``[ref_start, ref_end)`` holds the same members in
        another order. A long member that both hold (a note's text) re-joins them in the
        middle, so each gap alone holds members the other side lacks: the whole structure
        is compared."""
        if end - start > SHORT_LIST or ref_end - ref_start > SHORT_LIST:
            return None
        mine, theirs = self._ids(request), self._ids(ref)
        if mine is None or theirs is None:
            return None
        levels = _bracketed(self.decode, mine, start, end)
        if not levels:
            return None
        # The same depth on both sides: a gap that starts inside a nested member (a list
        # the gap's token closes) is compared at the brackets around it.
        theirs_at = {(d, op): text for d, op, text in _bracketed(self.decode, theirs, ref_start, ref_end)}
        for depth, opener, a in levels:
            b = theirs_at.get((depth, opener))
            if b is None or a == b:
                continue
            units_a, units_b = members(a), members(b)
            # The same members in another order: content that differs is in every outer
            # bracket too, but the two sides' inner brackets may be different members.
            if len(units_a) >= 3 and units_a != units_b and Counter(units_a) == Counter(units_b):
                return units_a
        return None

    def _permutation(self, g: Gap, bracketed: bool = True) -> list[str] | None:
        """The units of gap ``g`` in this request's order when its text, widened to whole
        lines (or list items), is the neighbour's text with the same units in another order.
        ``bracketed``: also test the bracketed structure around the gap whole (it decodes
        the whole line)."""
        if g.length > PERMUTED_MAX:
            return None
        if g.ref < 0:
            ahead = self._ahead_refs.get((g.request, g.start))
            if ahead is None or not bracketed:
                return None
            return self._member_permutation(g.request, g.start, g.start + g.length, ahead[0], ahead[1], ahead[1])
        mine, theirs = self._request(g.request), self._request(g.ref)
        if mine is None or theirs is None:
            return None
        found = self._unit_permutation(g, mine, theirs)
        if found is None and bracketed:
            found = self._member_permutation(g.request, g.start, g.start + g.length,
                                             g.ref, g.ref_start, g.ref_start + g.ref_length)
        return found

    def _unit_permutation(self, g: Gap, mine: bytes, theirs: bytes) -> list[str] | None:
        """``_permutation`` within the gap and the context on its two sides."""
        if abs(g.length - g.ref_length) > max(4, g.length // 8) or not g.ref_length:
            return self._list_permutation(g, mine, theirs)

        def piece(data: bytes, lo: int, hi: int) -> str:
            return self.decode(unpack(data[max(0, lo) * ITEM:hi * ITEM]))

        # The same units in another order are (nearly) the same tokens: most gaps are
        # values, which this tells without decoding anything.
        seq_a = unpack(mine[g.start * ITEM:(g.start + g.length) * ITEM])
        seq_b = unpack(theirs[g.ref_start * ITEM:(g.ref_start + g.ref_length) * ITEM])
        slack = max(2, g.length // 5)
        # Ids only one side holds count at least once each: a cheap bound first.
        if len(set(seq_a).symmetric_difference(seq_b)) > slack:
            return None
        ids_a, ids_b = Counter(seq_a), Counter(seq_b)
        if sum(((ids_a - ids_b) + (ids_b - ids_a)).values()) > slack:
            return None

        # Before the span both hold the same tokens (the shared prefix or the run before
        # the gap), and after it the re-joined run: the same context on both sides.
        left = piece(mine, g.start - CONTEXT, g.start)
        right = piece(mine, g.start + g.length, g.start + g.length + CONTEXT)
        span_a = piece(mine, g.start, g.start + g.length)
        span_b = piece(theirs, g.ref_start, g.ref_start + g.ref_length)
        # Chat markup ends a message, and no unit runs over it (the last line of a system
        # text and the next turn's question are one line of a prompt spelled with markup).
        marks = list(CHAT_MARKER.finditer(left))
        left_end = bool(marks)
        if marks:
            left = left[marks[-1].end():]
        mark = CHAT_MARKER.search(right)
        if mark is not None:
            right = right[:mark.start()]
        for sep in _UNIT_SEPARATORS:
            found = _permuted_units(sep, (left, span_a, span_b, right), left_end, mark is not None,
                                    g.start <= CONTEXT)
            if found is not None:
                return found
        return None

    def _code(self, decoded: list[tuple[Gap, list[int], int, int]]) -> tuple[str, list[int]]:
        """TR102 for per-request content ahead of the static content of its message or of
        the next messages, else TR101; and how many tokens before the span the
        per-request content starts (TR102 only).

        The per-request content opens its message: before it, at most ``HEAD`` tokens of
        the message are static (markup, a label), or, behind a template's own text, of
        the section it opens (then only text counts, never a value). It is content
        rather than a value in shared text when it is long (or text that runs on, past
        sentences the static prompt also says, to where the prompt resumes for good), or
        at least half as long as that static head (a chat layout may open the message
        with its own preamble) and either the whole rest of the message (a summary or a
        profile message before the system prompt) or in a user turn (the question before
        static instructions). Where the message's
        first tokens vary too (questions that share their first words in pairs), the
        per-request content starts where its static head ends: for TR102, the tokens
        from there to each span's start."""
        leads, pulls, extents, ends, users, values, prose = [], [], [], 0, 0, 0, 0
        sectioned, texts = 0, 0
        dense = [0, 0]  # words holding a digit, words, over the spans (long ones weigh more)
        reach: list[int] = []  # to where static content resumes for STATIC_AFTER_LONG tokens
        wordy = 0  # of those stretches, the ones that are text
        for g, ids, start, end in decoded:
            head, closes, role = _message_of(ids, start, end, self.specials, self.decode)
            pull = self._pull(ids, start, head)
            text = self.decode(ids[start - pull:end])
            if head - pull > HEAD:
                # A template's own text may open the message (Command R's preambles, the
                # tools Llama 3.1 prints into the first user turn, markup that is no special
                # token in this vocabulary): the content then opens its section instead.
                section, named = self._section_lead(ids, start - pull, head - pull)
                if section is not None:
                    sectioned += 1
                    role = named or role
                    texts += len(text.split()) >= PROSE_WORDS and classify(text) == "name-or-text"
                    head = pull + section
            leads.append(head - pull)
            pulls.append(pull)
            extents.append(pull + end - start)
            if head - pull <= HEAD and len(reach) < 8:
                stop = self._static_end(ids, end, g.left, long=True)
                reach.append(pull + stop - start)
                whole = self.decode(ids[start - pull:stop])
                wordy += len(_WORDS.findall(whole)) >= PROSE_WORDS and classify(whole) == "name-or-text"
            ends += closes
            if head - pull <= HEAD:  # (only content opening its message can be TR102)
                prose += _is_prose(text) or self._paragraph(ids, start - pull, end, head - pull)
                # Readings and ids opening a message (a spray window's wind and rain, a
                # lot's wafer count and start date) are values, not content of their own.
                sample = text[:DENSE_CHARS]
                dense[0] += len(_DIGIT_WORD.findall(sample))
                dense[1] += len(sample.split())
            if role == "user":
                users += 1
                # A clock reading or an id opening the user turn is a value, not the
                # user's own content (the kind only tells the two apart; both are found).
                values += classify(text) != "name-or-text"
        n = len(leads)
        lead, extent = (sorted(x)[n // 2] for x in (leads, extents))
        if lead > HEAD or (sectioned * 2 > n and texts * 2 <= sectioned):
            # (Opening a section inside a message, a value such as a token or a clock is
            # still a value: only text there is content of its own.)
            return "TR101", []
        in_user = users * 2 > n and values * 2 <= users
        # Lines of text opening the prompt (a conversation, notes, a profile block) where
        # no message boundary tells: content ahead of the static text, not a value in it.
        lines = extent >= PROSE_SPAN and prose * 2 > n
        valued = dense[0] >= VALUE_DENSE * max(1, dense[1])
        # Documents made of sentences the static prompt also says re-join it a sentence at a
        # time: the per-request content runs on to where the prompt resumes for good.
        far = sorted(reach)[len(reach) // 2] if reach else 0
        if extent >= LONG_SPAN or (2 * extent >= lead and not valued and (ends * 2 > n or in_user or lines)):
            return "TR102", pulls
        if far >= LONG_SPAN and not valued and wordy * 2 > len(reach):
            return "TR102", pulls
        return "TR101", []

    def _section_lead(self, ids: list[int], at: int, head: int) -> tuple[int | None, str]:
        """How many tokens before ``at`` (at most ``SECTION_HEAD``, inside its message's ``head``) the
        section holding it starts (``_SECTION_END``; None when none starts that close), and
        the role that markup spelled as text names there ("" when none)."""
        for k in range(min(head, SECTION_HEAD) + 1):
            before = self.decode(ids[max(0, at - k - SECTION_LOOK):at - k])
            if _SECTION_END.search(before):
                named = _MARKUP_ROLE.search(before)
                return k, named.group(1).lower() if named else ""
        return None, ""

    def _paragraph(self, ids: list[int], start: int, end: int, head: int) -> bool:
        """Whether ``[start, end)`` (``head`` tokens into its message) is the per-request part
        of one paragraph of text that a blank line ends and at most a short static label
        opens (case notes, an account's history in words): content of its own ahead of the
        static text, not a value inside a sentence."""
        mine = self.decode(ids[start:end])
        body = mine.rstrip()
        if "\n\n" in body.strip() or not (mine[len(body):] + self.decode(ids[end:end + 2])).lstrip(_CLOSE).startswith("\n\n"):
            return False  # not one paragraph that a blank line ends (its last stop may follow)
        if len(_WORDS.findall(body)) < PROSE_WORDS or classify(body) != "name-or-text":
            return False
        # Back to the blank line before it, token by token: a label longer than the
        # paragraph's own text is static text the value sits in.
        label, para = "", start
        while para > start - head:
            piece = self.decode(ids[para - 1:para])
            if "\n\n" in piece + label[:1]:
                break
            label, para = piece + label, para - 1
            if len(label.strip()) > len(body.strip()):
                return False
        return end - para >= PROSE_SPAN

    def _static_window(self, ids: list[int], at: int, given: bytes) -> bool:
        """Whether the ``MIN_RUN`` tokens from ``at`` are held by most requests (of those
        holding ``given``)."""
        key = pack(ids[at:at + MIN_RUN])
        return len(key) == MIN_RUN * ITEM and self._is_static(key, given)

    def _static_end(self, ids: list[int], end: int, given: bytes, reach: int = 256, long: bool = False) -> int:
        """Where static content starts again after a span ending at ``end``: a pair of
        requests may re-join inside the varying content (two lists of choices that end
        alike), and the move must take all of it. The first point from which the next
        ``MIN_RUN`` tokens are held by most requests; with ``long`` (content ahead of the
        static text, a document), the next ``STATIC_AFTER_LONG`` tokens, or all up to the
        end: boilerplate that most documents share (a notices clause) is one sentence, the
        prompt after them is more."""
        def window(at: int) -> bool:
            return self._static_window(ids, at, given)

        def static(at: int) -> bool:
            if not long:
                return window(at)
            stop = min(len(ids) - MIN_RUN, at + STATIC_AFTER_LONG - MIN_RUN)
            return window(at) and all(window(k) for k in range(at + MIN_RUN, stop + 1, MIN_RUN))

        if end + MIN_RUN > len(ids) or static(end):
            return end
        last = len(ids) - MIN_RUN
        for at in range(end + 4, min(last, end + reach) + 1, 4):
            if static(at):
                while at - 1 > end and static(at - 1):
                    at -= 1
                return at
        # Long per-request content (passages re-joined at one they share): on in doubling
        # steps to static content, then back by halves to where it starts.
        near, step = end + reach, reach
        while near < last and step <= FAR:
            far = min(last, near + step)
            if static(far):
                while far - near > 1:
                    mid = (near + far) // 2
                    if static(mid):
                        far = mid
                    else:
                        near = mid
                return far
            near, step = far, step * 2
        return end

    def _pull(self, ids: list[int], start: int, head: int) -> int:
        """How far before ``start`` (at most ``head`` tokens, to its message's start) the
        varying content begins: back to the nearest point that the ``MIN_RUN`` tokens
        before it are static (most requests hold them). A pair of requests whose
        questions share their first words diverges after them; a value after static
        text is where it is."""
        def static(at: int) -> bool:
            if at < MIN_RUN:
                return True  # the start of the request
            return self._is_static(pack(ids[at - MIN_RUN:at]))

        if static(start):
            return 0
        # Back in doubling steps to a static point, then halving to the nearest one (the
        # varying content is one stretch: static before it, varying after).
        near, step = 0, 1
        while True:
            far = min(head, near + step)
            if static(start - far):
                break
            if far == head:
                return head
            near, step = far, step * 2
        while far - near > 1:
            mid = (near + far) // 2
            if static(start - mid):
                far = mid
            else:
                near = mid
        return far

    def swaps(self, scale: float = 1.0) -> list[SwapFinding]:
        """Order findings: the aligner's runs in another order and the gaps that permute the
        neighbour's units. Read after ``spans``, whose reported gaps they may sit behind."""
        found = self._run_swaps(scale)
        for f in self._permuted_swaps(scale):
            # The same reordered stretch, seen by the aligner where its units are long
            # enough for runs, and here where they are not: one finding.
            same = [o for o in found if o.token_offset - 64 <= f.token_offset <= o.token_offset + 1024]
            if not same:
                found.append(f)
            for o in same:
                if _pieces_of(o.labels, f.labels):
                    # Runs cut the structure's members at token boundaries: the members
                    # name the units (the runs stay what the rewrite looks for).
                    o.labels, o.orders = f.labels, f.orders
        found.sort(key=lambda f: f.token_offset)
        return found

    def _permuted_swaps(self, scale: float) -> list[SwapFinding]:
        """Order findings from gaps that are a permutation of the neighbour's units."""
        permuted = [(g, units) for g, units in self.permuted if not self._behind_change(g.request, g.ref, g.start)]
        if not permuted:
            return []
        parent = list(range(len(permuted)))

        def find(x: int) -> int:
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        owner: dict[str, int] = {}
        for k, (_, units) in enumerate(permuted):
            for u in units:
                if len(u.strip()) < 8:
                    continue  # a blank line or a separator row is in every such stretch
                if u in owner:
                    parent[find(k)] = find(owner[u])
                else:
                    owner[u] = k
        groups: dict[int, list[int]] = {}
        for k in range(len(permuted)):
            groups.setdefault(find(k), []).append(k)
        # The same units exactly, in another order, are no sentences that happen to swap:
        # a span's threshold. (Short units near the prompt's end show in few pairs.)
        need = MIN_LOSS * self.al.aligned_tokens
        out = []
        for root in sorted(groups):
            members = [permuted[k] for k in groups[root]]
            lost = sum(g.length + g.rejoin for g, _ in members)
            if lost < need:
                continue
            requests = {g.request for g, _ in members}
            first = sorted(requests)[:8]
            offset = min(g.start for g, _ in members if g.request in first)
            seen: list[str] = []
            for _, us in sorted(members, key=lambda m: (m[0].request, m[0].start)):
                for u in us:
                    if u.strip() and u not in seen:
                        seen.append(u)
            label = {u: _short(u.strip(), 40) for u in seen}
            orders = Counter(tuple(label[u] for u in us if u.strip()) for _, us in members)
            shown = sorted(orders.items(), key=lambda kv: (-kv[1], kv[0]))
            canon = [label[u] for u in seen]
            cores = [u.strip() for u in seen if len(u.strip()) >= 6]
            counted = sum(weight(r) for r in requests)
            lost_all = sum((g.length + g.rejoin) * weight(g.request) for g, _ in members)
            out.append(SwapFinding(offset, round(counted * scale), round(lost_all * scale), canon,
                                   [(list(o), c) for o, c in shown], cores, first_request=min(requests)))
        return out

    def _run_swaps(self, scale: float) -> list[SwapFinding]:
        al = self.al
        if not al.swaps:
            return []
        parent: dict[bytes, bytes] = {}

        def find(x: bytes) -> bytes:
            parent.setdefault(x, x)
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        # Only stretches with static units in another order (``_static_units``) speak
        # for an order; the others are per-request content that shares sentences.
        real = [t for t in (self._trimmed(s) for s in al.swaps if not self._behind_change(s.request, s.ref, s.start))
                if t is not None]
        for s in real:
            for k in s.keys[1:]:
                ra, rb = find(s.keys[0]), find(k)
                if ra != rb:
                    parent[max(ra, rb)] = min(ra, rb)
        groups: dict[bytes, list[Swap]] = {}
        for s in real:
            groups.setdefault(find(s.keys[0]), []).append(s)
        need = MIN_SWAP_LOSS * al.aligned_tokens
        out = []
        for root in sorted(groups):
            group = groups[root]
            requests = {s.request for s in group}
            lost = sum(s.lost for s in group)
            # One request is all two orders show: one prompt's units rearranged, not
            # another prompt that also holds units of its own.
            if lost < need or (len(requests) < MIN_CHANGES and not all(self._rearranged(s) for s in group)):
                continue
            keys = sorted({k for s in group for k in s.keys})
            heads = sorted({(h, s.left) for s in group for h in s.heads})[:32]
            shares = sorted(al.static_share(h, left) for h, left in heads)
            if shares[len(shares) // 2] < STATIC_SHARE:
                continue
            swap = self._swap_finding(group, keys, requests, lost, scale)
            swap.first_request = min(requests)
            out.append(swap)
        out.sort(key=lambda f: f.token_offset)
        return out

    def _behind_change(self, request: int, ref: int, start: int) -> bool:
        """Whether ``request`` already parts from its neighbour ``ref`` before ``start`` by
        content of its own (held by few requests) that no reported span covers. Units
        reordered behind per-request content that stays where it is lose nothing to their
        order: in one order they would still follow a prefix no other request holds. (Units
        behind a reported value lose to their order once the value moves.)"""
        mine = self._request(request) if ref >= 0 else None
        theirs = self._request(ref) if mine is not None else None
        if mine is None or theirs is None:
            return False
        lcp = common_bytes(mine, 0, theirs, 0) // ITEM
        if lcp >= start:
            return False
        stretch = mine[lcp * ITEM:start * ITEM]
        # Text the neighbour holds elsewhere (more units of the reordering): its pairs of
        # tokens are the neighbour's, but where units meet in a new order (the slack of
        # ``_unit_permutation``). A value of its own is new pairs, even of digits it holds.
        held = self._token_pairs(ref)
        ids = unpack(stretch)
        if sum(1 for p in zip(ids, ids[1:]) if p not in held) <= max(2, len(ids) // 5):
            return False
        if any(g.start - SEAM <= lcp < g.start + g.length + SEAM for g in self._reported.get(request, ())):
            return False
        # Content other requests hold too (a tool of a per-request subset) is not this
        # request's own: in one order of the units it may be shared.
        return not self._is_static(stretch, b"", UNIT_SHARE)

    def _token_pairs(self, index: int) -> frozenset[tuple[int, int]]:
        """The pairs of consecutive ids request ``index`` holds (the last few kept: swaps
        share neighbours)."""
        got = self._sets.pop(index, None)
        if got is None:
            ids = self._ids(index) or []
            got = frozenset(zip(ids, ids[1:]))
            if len(self._sets) >= UNPACKED:
                del self._sets[next(iter(self._sets))]
        self._sets[index] = got
        return got

    def _recurs(self, g: Gap) -> bool:
        """Whether the neighbour's setting of gap ``g``, with a few tokens either side, comes
        back after ``g``'s request: two settings live side by side, not one replaced."""
        b = self._ids(g.ref) if g.ref >= 0 else None
        if b is None:
            return True
        lo, end = max(0, g.ref_start - SEAM), g.ref_start + g.ref_length
        # (A long setting is told by itself: what follows it may be each request's own, a
        # question right after the end of a system message.)
        keys = [pack(b[lo:end + min(SEAM, g.run)])] + ([pack(b[lo:end])] if g.ref_length >= MIN_STATIC else [])
        return any(i > g.request and find_item(d, key, 0) >= 0
                   for key in keys for i, d in zip(self.al.kept_ids, self.al.kept))

    @staticmethod
    def _rearranged(s: Swap) -> bool:
        """Whether swap ``s``'s stretch, in the request and in its neighbour, is its runs and
        nothing else (but the seams where units meet): the same units in another order."""
        covered = sum(n for _, n in s.runs)
        mine = s.end - s.start
        theirs = max(r + n for r, (_, n) in zip(s.refs, s.runs)) - min(s.refs) if s.refs else mine
        return max(mine, theirs) - covered <= SEAM * len(s.runs)

    def _swap_finding(self, group: list[Swap], keys: list[bytes], requests: set[int], lost: int,
                      scale: float) -> SwapFinding:
        first_requests = sorted(requests)[:8]
        offset = min(s.start for s in group if s.request in first_requests)
        label = {k: _short(self.decode(unpack(k)).strip(), 40) or "a shared block" for k in keys}
        orders = Counter(tuple(label[k] for k in s.keys) for s in group)
        shown = sorted(orders.items(), key=lambda kv: (-kv[1], kv[0]))
        # The units in the order of the earliest request that shows them all.
        canon = list(shown[0][0])
        for k in keys:
            if label[k] not in canon:
                canon.append(label[k])
        cores = []
        for s in sorted(group, key=lambda s: s.request)[:16]:
            data = self.al.request(s.request)
            if data is None:
                continue
            for a, n in s.runs:
                ids = unpack(data[a * ITEM:(a + n) * ITEM])
                core = _core(self.decode, ids)
                if core and core not in cores:
                    cores.append(core)
        counted = sum(weight(r) for r in requests)
        lost_all = sum(s.lost * weight(s.request) for s in group)
        return SwapFinding(offset, round(counted * scale), round(lost_all * scale), canon,
                           [(list(o), c) for o, c in shown], cores)


def _core(decode: Callable[[Sequence[int]], str], ids: list[int]) -> str:
    """A piece of a run's text that identifies it: a few tokens in from its start (the
    run's edges shift with the neighbour it was aligned with), without chat markup."""
    text = decode(ids[2:16])
    if "<|" in text:
        pieces = [p for p in _strip_special(text) if len(p.strip()) >= 12]
        text = max(pieces, key=len) if pieces else ""
    return text.strip() if len(text.strip()) >= 12 else ""


def _strip_special(text: str) -> list[str]:
    import re

    return re.split(r"<\|[^|>]*\|>", text)


def _joined(p: Gap, g: Gap) -> Gap:
    """Gaps ``p`` and ``g`` of one request, and what lies between them, as one gap."""
    return Gap(p.request, p.start, g.start + g.length - p.start, p.ref_start,
               max(p.ref_length, g.ref_start + g.ref_length - p.ref_start), p.rejoin, g.key, p.ref, g.head, g.run, p.left)


def _group_gaps(gaps: list[Gap]) -> list[list[Gap]]:
    """Gaps joined when they re-join the same content (same anchor), or overlap in one
    request."""
    parent = list(range(len(gaps)))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    # Two system prompts that open alike give one request two spans re-joining the same
    # anchor (passages before the first, a value before the second): a span joins a set of
    # its anchor that holds no span of its own request, the one that saw the same tokens
    # before it if any (the value's label), so the two stay apart.
    by_key: dict[bytes, list[tuple[int, set[int], set[bytes]]]] = {}
    for k, g in enumerate(gaps):
        sets = by_key.setdefault(g.key, [])
        free = [c for c in sets if g.request not in c[1]]
        chosen = next((c for c in free if g.left in c[2]), free[0] if free else None)
        if chosen is None:
            sets.append((k, {g.request}, {g.left}))
            continue
        parent[find(k)] = find(chosen[0])
        chosen[1].add(g.request)
        chosen[2].add(g.left)
    # Spans that start at (almost) the same place of the same neighbour are one span whose
    # re-join differs by a few tokens (two values share their last characters).
    ordered = sorted(range(len(gaps)), key=lambda k: (gaps[k].ref, gaps[k].ref_start))
    prev = -1
    for k in ordered:
        g = gaps[k]
        if g.ref < 0:
            continue
        p = gaps[prev] if prev >= 0 else None
        # ... and both see the same text before them (a span found at that place of the
        # neighbour from far elsewhere in its own request is another span).
        if p is not None and p.ref == g.ref and g.ref_start - p.ref_start <= 4 and (
                p.left[-2 * ITEM:] in g.left or g.left[-2 * ITEM:] in p.left):
            parent[find(k)] = find(prev)
        prev = k
    groups: dict[int, list[Gap]] = {}
    for k, g in enumerate(gaps):
        groups.setdefault(find(k), []).append(g)
    return [groups[r] for r in sorted(groups)]


def _permutation_seen(group: list[Gap], permuted: set[bytes], shown_by: dict[bytes, set[int]]) -> bool:
    """Whether the gaps of ``group`` are units in another order seen from single pairs: most
    of them re-join at a unit the alignment saw out of order, and, where that is a static
    unit, requests numbering at least a quarter of the group's show it moved."""
    if sum(1 for x in group if x.key in permuted) * 2 < len(group):
        return False
    if any(x.key in permuted and x.key not in shown_by for x in group):
        return True  # per-request units in another order (passages from one pool)
    seen = set().union(*(shown_by.get(x.key, set()) for x in group))
    return len(seen) * 4 >= len({x.request for x in group})


def _value_start(text: str, at: int) -> int:
    """Back from ``at`` over the characters a value is written with (letters, digits and
    the marks inside numbers, dates and ids), at most ``WORD_REACH`` of them."""
    k = at
    while k > 0 and at - k < WORD_REACH and (text[k - 1].isalnum() or text[k - 1] in _IN_VALUE):
        k -= 1
    return k


_IN_VALUE = ".,:-_/+"
# Chat markup as decoded text: the block splitter's markers and the bracketed ones of
# Mistral's layouts, which a tokenizer may hold as special tokens or as plain text.
_MARKUP = re.compile(CHAT_MARKER.pattern + r"|\[/?[A-Z][A-Z_]{1,23}\]|</?s>")


def _history_folded(found: list[SpanFinding]) -> list[SpanFinding]:
    """A value seen both re-rendered into histories and as a value other requests share
    the content after (a clock atop the system prompt of conversations whose first
    questions come from one bank; ages before replies from one bank of answers) is one
    finding: the one that more requests show, with the other's requests and losses."""
    gone: set[int] = set()
    for h in found:
        if not h.in_history or id(h) in gone:
            continue
        near = [f for f in found if not f.in_history and id(f) not in gone and f.code == h.code
                and abs(f.token_offset - h.token_offset) <= FOLD_NEAR]
        if not near:
            continue
        top = max(near, key=lambda f: f.requests)
        into, parts = (top, [h]) if top.requests >= h.requests else (h, near)
        for f in parts:
            into.requests += f.requests
            into.tokens_lost += f.tokens_lost
            gone.add(id(f))
    return [f for f in found if id(f) not in gone]


def _merged(found: list[SpanFinding]) -> list[SpanFinding]:
    """Per-request content seen from several pairs of requests that share some of its
    words (questions from one template) is one finding at the point where it starts; so is
    one kind of spelling."""
    out: list[SpanFinding] = []
    for f in found:
        # (Content spelled otherwise shows where each pair of spellings first parts, in each
        # of its units: one cause, one finding of its kind, at the first.)
        same = next((o for o in out if (o.code == f.code == "TR102" and abs(o.token_offset - f.token_offset) <= 4)
                     or (o.code == f.code == "TR104" and o.kind == f.kind)), None)
        if same is None:
            out.append(f)
            continue
        same.tokens_lost += f.tokens_lost
        same.requests = max(same.requests, f.requests)
        same.contexts.extend(f.contexts)
    return out


def _pulled(decoded: list[tuple[Gap, list[int], int, int]], pulls: list[int],
            offset: int) -> tuple[list[tuple[Gap, list[int], int, int]], int, int]:
    """Content ahead of static text starts where the static head of its message ends
    (``pulls`` tokens before each span): the spans from there, the offset and the median
    length."""
    for k, (g, _ids, _start, _end) in enumerate(decoded):
        if g.ref_start == offset and g.start == g.ref_start:
            offset = max(0, offset - pulls[k])
            break
    else:
        # Pairs that share the first retrieved item part after it: where the content
        # starts in the requests themselves, the most common place.
        heads = Counter(start - p for (_g, _ids, start, _end), p in zip(decoded, pulls))
        offset = min(heads, key=lambda x: (-heads[x], x))
    decoded = [(g, ids, start - p, end) for (g, ids, start, end), p in zip(decoded, pulls)]
    median = sorted(end - start for _, _, start, end in decoded)[len(decoded) // 2]
    return decoded, offset, median


_UNIT_SEPARATORS = ("\n", ", ", "; ", ",", ". ")  # (members of compact JSON; sentences)


def _permuted_units(sep: str, texts: tuple[str, str, str, str], left_end: bool, right_end: bool,
                    at_start: bool) -> list[str] | None:
    """The units split at ``sep`` of two spans with the same context on each side
    (``texts``: left, one span, the other, right), where the two hold the same units in
    another order; ``left_end``/``right_end``: chat markup bounds the context there;
    ``at_start``: the left context starts at the prompt's start."""
    left, span_a, span_b, right = texts
    # Both hold the same context on each side: cut it at the separator nearest the
    # span, or keep all of it (a unit then runs into context both share).
    lo, hi = left.rfind(sep), right.find(sep)
    if lo < 0 and hi < 0 and not left_end and not right_end:
        return None
    head = left[lo + len(sep):] if lo >= 0 else left
    tail = right[:hi] if hi >= 0 else right
    if lo < 0 and left_end:
        lo = 0
    if hi < 0 and right_end:
        hi = 0
    bracket = False
    if sep in (",", ", "):
        # Members of one JSON object or array, parameters of one signature: its
        # brackets end the first and last.
        # (The bracket still open on the span's line, so that the first member
        # is whole: "(los: str, aos: str," ahead of a gap opens at "(".)
        line = left[left.rfind("\n") + 1:]
        # (Quotes pair up only from the line's start: a window that begins
        # inside a string would read it inside out.)
        opened = open_brackets(line, "\n" in left or left_end or at_start)
        if opened:
            head, lo, bracket = line[opened[-1][0] + 1:], max(lo, 0), True
        close = [k for k in (tail.find("}"), tail.find("]"), tail.find(")")) if k >= 0]
        if close and "\n" not in tail[:min(close)]:
            tail, hi = tail[:min(close)], max(hi, 0)
    if sep in (". ", ", ", "; "):
        # Sentences of a paragraph, items of a list: its line and the label opening
        # it bound them.
        head, tail, lo, hi = _within_line(head, tail, lo, hi)
    text_a = head + span_a + tail
    text_b = head + span_b + tail
    if sep in (". ", ", ", "; ") and not bracket:
        # (The label's colon may end the shared text and its space start the span.)
        colon = text_a.rfind(": ", 0, len(head) + 1)
        if colon >= 0 and text_b.rfind(": ", 0, len(head) + 1) == colon:
            text_a, text_b, lo = text_a[colon + 2:], text_b[colon + 2:], max(lo, 0)
    units_a, units_b = text_a.split(sep), text_b.split(sep)
    if sep == ". ":
        units_a, units_b = [u.rstrip(".") for u in units_a], [u.rstrip(".") for u in units_b]
    # Context kept whole is not a unit of its own (it runs on past the window).
    first, cut_end = (1 if lo < 0 else 0), (1 if hi < 0 else 0)
    if (len(units_a) >= 2 and units_a != units_b and Counter(units_a) == Counter(units_b)
            and sum(1 for u in units_a if u.strip()) >= 2):
        found = units_a[first:len(units_a) - cut_end]
        if bracket and not all(balanced(u) for u in found):
            return None  # commas inside members' strings or brackets: the bracket test reads it
        return found
    if sep == "\n" and units_a != units_b:
        return _reordered_lines(units_a, units_b, first, cut_end)
    return None


def _within_line(head: str, tail: str, lo: int, hi: int) -> tuple[str, str, int, int]:
    """The context on each side cut at its line break (a cut side counts as bounded)."""
    nl = head.rfind("\n")
    if nl >= 0:
        head, lo = head[nl + 1:], max(lo, 0)
    nl = tail.find("\n")
    if nl >= 0:
        tail, hi = tail[:nl], max(hi, 0)
    return head, tail, lo, hi


def _reordered_lines(units_a: list[str], units_b: list[str], first: int, cut_end: int) -> list[str] | None:
    """Lines that are the same units in another order once what moves with the order is
    set aside: the comma the last member of a JSON object goes without, or the markers of a
    list numbered or lettered after the shuffle (the markers stay in place, the items'
    texts move)."""
    bare_a = [u.rstrip().rstrip(",") for u in units_a]
    bare_b = [u.rstrip().rstrip(",") for u in units_b]
    if bare_a != bare_b and Counter(bare_a) == Counter(bare_b) and sum(1 for u in bare_a if u.strip()) >= 2:
        return bare_a[first:len(bare_a) - cut_end]
    marks_a = [LIST_MARK.match(u) for u in units_a]
    marks_b = [LIST_MARK.match(u) for u in units_b]
    if sum(1 for m in marks_a if m) >= 2 and [m.group(0) if m else None for m in marks_a] == \
            [m.group(0) if m else None for m in marks_b]:
        items_a = [u[m.end():] if m else u for u, m in zip(units_a, marks_a)]
        items_b = [u[m.end():] if m else u for u, m in zip(units_b, marks_b)]
        if items_a != items_b and Counter(items_a) == Counter(items_b):
            return items_a[first:len(items_a) - cut_end]
    return None


def _word_bounds(decode: Callable[[Sequence[int]], str], ids: list[int], start: int, end: int,
                 limit: int = 8) -> tuple[int, int]:
    """``[start, end)`` widened by whole tokens so that it neither starts nor ends inside
    a word: the ids decide where requests differ, the decoded text where a value begins."""
    def wordy(ch: str) -> bool:
        return ch.isalnum() or ch == "_"

    for _ in range(limit):
        if start <= 0 or start >= len(ids):
            break
        before, first = decode(ids[start - 1:start]), decode(ids[start:start + 1])
        if not (before and first and wordy(before[-1]) and wordy(first[0])):
            break
        start -= 1
    for _ in range(limit):
        if end <= start or end >= len(ids):
            break
        last, after = decode(ids[end - 1:end]), decode(ids[end:end + 1])
        if not (last and after and wordy(last[-1]) and wordy(after[0])):
            break
        end += 1
    return start, end


def _message_of(ids: list[int], start: int, end: int, specials: frozenset[int],
                decode: Callable[[Sequence[int]], str]) -> tuple[int, bool, str]:
    """Of the message holding token ``start``: how many of its tokens come before
    ``start``, whether the span ``[start, end)`` runs to its end (a special token within a
    few tokens), and its role as the markup before it names it ("" when none does)."""
    j = start - 1
    floor = max(-1, start - 8192)
    # Whole stretches without markup are passed over at C speed (prompts have none).
    while j - 256 > floor and specials.isdisjoint(ids[j - 255:j + 1]):
        j -= 256
    while j > floor and ids[j] not in specials:
        j -= 1
    head = start - (j + 1)
    k = end
    while k < min(len(ids), end + 4) and ids[k] not in specials:
        k += 1
    closes = k < len(ids) and ids[k] in specials
    role = ""
    if j >= 0:
        i = j - 1
        while i > max(-1, j - 8) and ids[i] not in specials:
            i -= 1
        between = decode(ids[i + 1:j]).strip() if i >= 0 and ids[i] in specials else ""
        if not between:
            between = decode(ids[j + 1:min(start, j + 4)]).split("\n", 1)[0].strip()
        role = between.lower() if len(between) <= 24 else ""
    return head, closes, role


def _bracketed(decode: Callable[[Sequence[int]], str], ids: list[int], start: int,
               end: int) -> list[tuple[int, str, str]]:
    """The bracket pairs on one line that hold the start of tokens ``[start, end)`` (at most
    ``PERMUTED_MAX`` tokens each way), innermost first and at most ``BRACKET_LEVELS`` of
    them: (depth on the line, opening bracket, the text inside)."""
    left, reach = "", CONTEXT
    while True:  # back to the line's start, in growing steps (most lines are short)
        left = decode(ids[max(0, start - reach):start])
        if "\n" in left or reach >= min(start, PERMUTED_MAX):
            break
        reach *= 4
    line = left[left.rfind("\n") + 1:]
    inside = decode(ids[start:end])
    # A token may glue the opening bracket to the first member's text ("(l" "os"): the
    # bracket then opens the gap.
    glued = len(inside) - len(inside.lstrip(" "))
    if inside[glued:glued + 1] in ("(", "[", "{") and inside[glued:glued + 1]:
        line, inside = line + inside[:glued + 1], inside[glued + 1:]
    opened = open_brackets(line)
    levels = list(enumerate(opened))[-BRACKET_LEVELS:][::-1]
    out: list[tuple[int, str, str]] = []
    right, taken = "", 0  # the text after the tokens, and how many tokens it is
    for depth, (opening, nested) in levels:
        while True:
            text = line[opening + 1:] + inside + right
            # JSON text inside a JSON string (a tool result the template serializes again)
            # is read one level of escapes down.
            whole = unescaped(text) if nested else text
            stop = close_bracket(whole, line[opening])
            if stop >= 0 or "\n" in right or taken >= PERMUTED_MAX or end + taken >= len(ids):
                break
            taken = min(PERMUTED_MAX, taken * 4 or CONTEXT)
            right = decode(ids[end:end + taken])
        if stop < 0:
            continue  # (a bracket in a string's text read as JSON: the outer ones may close)
        if "\n" not in whole[:stop]:
            out.append((depth, line[opening], whole[:stop]))
    return out


def _is_prose(text: str) -> bool:
    """Whether ``text`` is lines of content (two or more lines of text, most of them not a
    value such as a clock reading or an id under a label)."""
    lines = [line.strip() for line in text.split("\n") if len(line.strip()) >= PROSE_LINE]
    if len(lines) < 2:
        return False
    return sum(classify(line) == "name-or-text" for line in lines) * 2 > len(lines)


def _within(region: tuple[int, int] | None, at: int) -> bool:
    return region is not None and region[0] <= at <= region[1]


def _pieces_of(labels: list[str], units: list[str]) -> bool:
    """Whether most of ``labels`` (the aligner's runs) are pieces inside ``units`` (whole
    members of one structure) rather than units of their own."""
    inside = sum(1 for lab in labels
                 if any(lab.removesuffix("...") in u and lab.removesuffix("...") != u.removesuffix("...") for u in units))
    return len(units) >= 3 and inside * 2 > len(labels)


def _short(text: str, width: int = 40) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 3] + "..."


def _token_at(decode: Callable[[Sequence[int]], str], ids: list[int], char: int) -> int:
    lo, hi = 0, len(ids) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if len(decode(ids[:mid + 1])) > char:
            hi = mid
        else:
            lo = mid + 1
    return max(0, lo)


__all__ = ["Structure", "SpanFinding", "SwapFinding", "differing_range"]
