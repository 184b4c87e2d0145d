"""Fixes built from what the alignment saw, for any shape of content.

The diagnosis reports a varying span by the decoded text around it in the requests where it
was seen, and reordered units by a distinctive piece of each unit's text. These functions
find the same places in the text of any request (its message contents or its prompt) and
carry out the move there:

- ``SpanMove``: the varying text between a static left context and a static right context,
  widened to its line (label included) when the line is short, goes to the end of the last
  user turn or of its own message; when the span is a whole message (or runs to the end of
  one), that message goes after the static message that follows it.
- ``UnitSort``: the units, wherever they sit (items of a JSON array, paragraphs, lines, or
  whole messages), are put in one order: the order in which their texts were first seen.

Both are plain callables ``Request -> Request | None`` (None: nothing to change here).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import re
from bisect import bisect_left
from collections import Counter
from itertools import islice
from typing import Any, Callable, Iterable, Iterator, Sequence

from advisor.diagnose.brackets import close_bracket, member_bounds, open_brackets, unescaped
from advisor.diagnose.spans import LIST_MARK
from advisor.ingest.traffic import Request
from advisor.prescribe.opening import system_into_first_user  # noqa: F401 (its callers import it here)

LAST_USER = "last-user-turn"
MESSAGE_END = "end-of-message"
LAST_MESSAGE = "last-message"  # an agent loop's newest message (a tool result): each step extends the last
# The start of the last user turn: after every turn the requests share, before the question
# (a value with a few settings: its requests share the question's opening too).
LAST_USER_START = "start-of-last-user-turn"
AFTER_STATIC = "after-static-message"
AFTER_SHARED = "after-shared-content"
HISTORY = "out-of-the-history"  # a value re-rendered into earlier turns: each turn as first sent

# Chat markup in decoded text: Llama 3's and ChatML's <|...|>, Mistral's control tokens.
# (Gemma's turn markers and DeepSeek's full-width bars as well: a raw prompt a client writes
# in those layouts ends its user turn with them too.)
_SPECIAL = re.compile(r"<\|[^|>]{1,40}\|>|</?s>|\[/?(?:INST|AVAILABLE_TOOLS|TOOL_RESULTS|TOOL_CALLS|SYSTEM_PROMPT)\]"
                      r"|<(?:start|end)_of_turn>|<｜[^｜<>\s]{1,40}｜>")
CHAT_MARKUP = _SPECIAL  # the chat layouts' markers, as decoded text
_CHATML_ROLE = re.compile(r"^(?:system|user|assistant|tool|developer|model)\n")
_ROLE_LINE = re.compile(r"(?:system|user|assistant|tool|developer|model)\n")
_HEADER = re.compile(r"<\|start_header_id\|>.*?<\|end_header_id\|>", re.DOTALL)
SIDE = 40          # characters of static context used on each side
LONG_SIDE = 24     # a left side this long is a sentence of static text, not a unit's label
STATIC_SPANS = 0.9  # an anchor finding one text in this share of requests finds static text
LINE_END = "\n"    # a right anchor that is only the end of the value's line
_CLOSING = " \t\r\n.!?;:,)]}\"'"  # what may close a message after a span without being content of its own
SORTED_TEXTS = 4096  # texts a unit sort remembers the order of
MARKER_GROWS = 24  # times a repeated marker grows by SIDE characters before it is given up
LINE = 48          # a span whose line holds at most this much besides it moves with its line


# How the engine joins the text parts of a content list (``part_joiner``); "" until known.
DEFAULT_JOINER = ""


def text_of(content: Any, joiner: str = DEFAULT_JOINER) -> str | None:
    """A message content as the text it renders to: a string, or a list of text parts
    joined as the engine joins them; None for other contents (images, tool calls)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and content and all(
            isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str) for p in content):
        return joiner.join(p["text"] for p in content)
    return None


def with_text(content: Any, text: str) -> Any:
    """``content`` (a string or a list of text parts) replaced by ``text``: a list becomes
    one text part, which renders as the joined parts did."""
    if isinstance(content, list):
        return [{"type": "text", "text": text}]
    return text


def _after_special(text: str) -> tuple[str, bool]:
    """The text after the last chat special token, and whether there was one."""
    parts = _SPECIAL.split(text)
    return parts[-1], len(parts) > 1


def _before_special(text: str) -> tuple[str, bool]:
    parts = _SPECIAL.split(text, maxsplit=1)
    return parts[0], len(parts) > 1


_ESCAPES = {'\\"': '"', "\\n": "\n", "\\t": "\t", "\\\\": "\\", "\\/": "/"}
_ESCAPE = re.compile(r'\\["nt\\/]')


def json_unescaped(text: str) -> str | None:
    """``text`` with JSON string escapes undone, or None when it has none. A chat template
    may print a message's content through ``tojson`` (Llama 3.1 does for tool results), so
    the decoded prompt holds ``\\"`` where the message holds ``"``; pieces of it are cut
    anywhere, so this is done escape by escape, not by parsing a whole string."""
    if "\\" not in text:
        return None
    out = _ESCAPE.sub(lambda m: _ESCAPES[m.group(0)], text)
    return out if out != text else None


def unescaped_context(context: tuple[str, str, str]) -> tuple[str, str, str] | None:
    """A decoded (before, span, after) as the message held it when the template printed
    the content through ``tojson``: escapes undone, and the quotes that open and close
    the printed string (next to the chat markup) dropped; None when it has no escapes."""
    parts = [json_unescaped(p) for p in context]
    if all(p is None for p in parts):
        return None
    before, span, after = (p if p is not None else c for p, c in zip(parts, context))
    cut = [m.end() for m in _SPECIAL.finditer(before)]
    head = cut[-1] if cut else 0
    rest = before[head:].lstrip()
    if rest.startswith('"'):
        before = before[:head] + rest[1:]
    close = _SPECIAL.search(after)
    tail = close.start() if close else len(after)
    body = after[:tail].rstrip()
    if close and body.endswith('"'):
        after = body[:-1] + after[tail:]
    return before, span, after


@dataclasses.dataclass(frozen=True)
class Anchor:
    """Where a span sits: ``left`` ends right before it (empty: the start of a message),
    ``right`` starts right after it (empty with ``to_end``: the end of a message)."""

    left: str
    right: str
    to_end: bool
    next_message: str   # the start of the static message after the span, when ``to_end``


def anchors(contexts: Sequence[tuple[str, str, str]]) -> list[Anchor]:
    """Candidate anchors from decoded (before, span, after) triples. The triples come from
    pairs of requests, whose values may share their first or last characters, so each side
    is also tried cut back to a word and to a line boundary; ``choose`` keeps the one that
    holds in the most requests."""
    out: list[Anchor] = []
    head, extended = _static_heads(contexts)
    for n, (before, _, after) in enumerate(list(contexts) + extended):
        # (With the words the spans open with moved left, a left side of those words alone,
        # "Sample ", is no anchor: a heading elsewhere may open with them.)
        least = len(head.strip()) if n >= len(contexts) else 0
        left, marked = _after_special(before)
        if marked:
            # The role header's newlines are not part of the content, nor is a ChatML role
            # name, which the layout prints as text after <|im_start|>.
            left = _CHATML_ROLE.sub("", left, count=1).lstrip()
        right, cut = _before_special(after)
        nxt = ""
        if cut:
            # The first static words of the next message (role headers left out; what
            # precedes the first markup still belongs to this message).
            body = _HEADER.sub("", after[len(right):])
            for piece in _SPECIAL.split(body):
                if piece.strip():
                    nxt = piece.strip()[:SIDE]
                    break
        # Closing punctuation alone before the message ends (every passage ends with a
        # period) is not static text to anchor on: the span runs to the end of the message.
        to_end = cut and not right.strip(_CLOSING)
        # "" too: the span may start its message where the decoded left context is chat
        # markup the message content does not hold (a tools preamble).
        for lv in _left_cuts(left) + [""]:
            if least and len(lv.strip()) <= least:
                continue
            for rv in ([""] if to_end else _right_cuts(right)):
                if not to_end and not rv.strip() and (rv != LINE_END or len(lv.strip()) < 4):
                    continue  # the line end anchors a span only after static text of its own
                a = Anchor(lv, rv, to_end, nxt)
                if a not in out:
                    out.append(a)
    return out


def _static_heads(contexts: Sequence[tuple[str, str, str]]) -> tuple[str, list[tuple[str, str, str]]]:
    """The whole words every observed span opens with, and the contexts again with them
    moved to the left side: pairs of requests that differ only after a value's first words
    ("Voicing room 53%" against "Voicing room 62%") still saw the span start at the label's
    end, and a left side that stops before those words finds them in every request."""
    if len(contexts) < 2:
        return "", []
    head = os.path.commonprefix([span for _, span, _ in contexts])
    cut = max(head.rfind(" "), head.rfind("\n")) + 1
    if not head[:cut].strip():
        return "", []
    return head[:cut], [(before + span[:cut], span[cut:], after) for before, span, after in contexts]


def _left_cuts(left: str) -> list[str]:
    out = []
    for cut in (len(left), max(left.rfind(" "), left.rfind("\n")) + 1, left.rfind("\n") + 1):
        piece = left[:cut][-SIDE:]
        if len(piece) == SIDE and " " in piece:
            piece = piece[piece.index(" "):]  # start at a word: a cut word is rarer
        # (Punctuation and line breaks alone, a sentence's end, say nothing of where a span
        # starts: every paragraph ends so.)
        if piece not in out and (any(ch.isalnum() for ch in piece) or not left[:cut].strip()):
            out.append(piece)
    # The label that opens the value's paragraph, alone: what comes before the paragraph
    # may be markup that the message text does not hold (a layout's preamble). Only a
    # paragraph's own opening: a line label inside a block of varying lines recurs there.
    cut = left.rfind("\n\n")
    label = left[cut + 2:] if cut >= 0 else ""
    if label.strip() and "\n" not in label and label not in out:
        out.append(label)
    # The key of the JSON member the value opens ('"as_of": "'): what the decoded text has
    # before it may be the template's wrapping of that JSON (a tool call's "parameters").
    member = _MEMBER_KEY.search(left)
    if member is not None and member.group(0) not in out:
        out.append(member.group(0))
    return out


_MEMBER_KEY = re.compile(r'"[^"\\\n]{1,64}"\s*:\s*"?$')


def _right_cuts(right: str) -> list[str]:
    out = []
    starts = [0]
    for ch in (" ", "\n"):
        k = right.find(ch)
        if k >= 0:
            starts.append(k)
    for k in starts:
        piece = right[k:k + SIDE]
        if piece.strip() and piece not in out:
            out.append(piece)
    # Up to the quote that closes a JSON string (a unit after the value, ' kg"'): what the
    # decoded text goes on with may be the template's wrapping of that JSON.
    quote = right.find('"')
    if 0 <= quote <= 12 and right[:quote + 1] not in out:
        out.append(right[:quote + 1])
    if right.startswith(("\n", "\r\n")):
        # The value ends its line: what follows may differ between kinds of requests
        # (two system prompts under one clock line), the line end does not.
        out.append(LINE_END)
    return out


def choose(cands: list[Anchor], requests: Sequence[Sequence[str]], typical: int = 0,
           contexts: Sequence[tuple[str, str, str]] = ()) -> Anchor | None:
    """The anchor that finds a span in the most requests (each a list of its texts: message
    contents, prompt, tool definitions), then the one whose spans come closest to
    ``typical`` characters (what the alignment saw). Where ``contexts`` (decoded (before,
    span, after) triples) are given, among those, the one that finds the observed span in
    most of them: static text that precedes the span in some requests only (sections in
    another order) finds other text in the rest."""
    scored: list[tuple[tuple[int, bool, int, bool, bool, float, int], Anchor]] = []
    for k, a in enumerate(cands):
        hits = 0
        size = 0
        spans: list[str] = []
        for texts in requests:
            for t in texts:
                found = locate(t, a)
                if found is not None:
                    hits += 1
                    size += found[1] - found[0]
                    if len(spans) < 64:
                        spans.append(t[found[0]:found[1]])
                    break
        if not hits:
            continue
        if len(spans) >= 5 and max(Counter(spans).values()) >= STATIC_SPANS * len(spans):
            continue  # it finds the same text in (nearly) every request: static text, not the span
        # An anchor with static text on its left is where the alignment saw the span; one
        # without (for markup the message text does not hold) only when it finds more. A
        # span that every request ends (or starts) with the same word takes static text
        # with it: the word would be cut from the sentence it belongs to.
        # A bare JSON key or closing quote as a side is for values the template wraps its own
        # way: where a side of real context finds as many, that side says where the span is.
        bare = bool(_MEMBER_KEY.fullmatch(a.left)) or (len(a.right) <= 13 and a.right.endswith('"'))
        agree = sum(1 for c in contexts[:24] if _finds_observed(a, c))
        scored.append(((-hits, not a.left, -agree, _shares_a_word(spans, a), bare, abs(size / hits - typical), k), a))
    if not scored:
        return None
    # Contexts are pairs of requests, and a pair that shares part of the span by chance (a
    # reading equal in both) sees it shorter: agreement with nearly all of them is as good
    # as with all, and the other tests decide.
    top = max(-score[2] for score, _a in scored)
    even = [((s[0], s[1], -top if -s[2] >= NEAR_ALL * top else s[2]) + s[3:], a) for s, a in scored]
    return min(even, key=lambda x: x[0])[1]


NEAR_ALL = 0.9
OWN_RIGHT = 12  # characters of a right side that say where a span ends on their own


def _finds_observed(a: Anchor, context: tuple[str, str, str]) -> bool:
    """Whether ``a``, applied to a decoded context's own text, finds most of its span."""
    before, span, after = context
    if a.left and a.left not in before + span + after and len(a.right.strip()) >= OWN_RIGHT:
        # The context starts inside the region the anchor's left side opens (a pair that
        # shares the record's first readings by chance sees it start later): it agrees when
        # the right side, text of its own (not a closing quote, which escaped JSON holds
        # too), ends what it saw.
        end = (span + after).find(a.right)
        return end >= len(span) / 2
    got = locate(before + span + after, a)
    if got is None:
        return False
    lo, hi = len(before), len(before) + len(span)
    return min(hi, got[1]) - max(lo, got[0]) >= (hi - lo) / 2


def _shares_a_word(spans: list[str], a: Anchor | None = None) -> bool:
    """Whether spans of several requests all end with the same whole word after a space or
    line break (or all start with one before it): static text of the sentence next to them.
    Not where the anchor cuts at a line break: a span opening its line (a document's fixed
    first words) or ending one takes no word from a sentence."""
    if len(spans) < 2:
        return False
    head = os.path.commonprefix(spans)
    tail = os.path.commonprefix([t[::-1] for t in spans])[::-1]
    line_start = a is not None and (not a.left or a.left.endswith("\n"))
    line_end = a is not None and a.right.startswith("\n")
    return bool((_WORD_AT_END.search(tail) and not line_end) or (_WORD_AT_START.match(head) and not line_start))


_WORD_AT_END = re.compile(r"\s[^\W\d_]\w*$")
_WORD_AT_START = re.compile(r"^\w*[^\W\d_]\s")


def locate(text: str, a: Anchor, limit: int = 200_000) -> tuple[int, int] | None:
    """``(start, end)`` of the span in ``text`` for anchor ``a``, or None."""
    if a.left:
        i = text.find(a.left)
        if i < 0:
            return None
        start = i + len(a.left)
    else:
        start = 0
    if a.to_end:
        # The end of the message: of the text, or in a prompt laid out with chat markup
        # (decoded token ids), the next special token.
        special = _SPECIAL.search(text, start)
        end = special.start() if special else len(text)
    else:
        if not a.right.strip() and a.right != LINE_END:
            return None
        end = text.find(a.right, start)
        if end < 0 or end - start > limit:
            return None
        if len(a.left.strip()) >= LONG_SIDE:
            # A long left side is static text; a copy of it before the right side is that
            # text stated twice (a rule repeated in a list), not part of the span: the span
            # starts after the last copy. A short one may be a label that opens each unit of
            # the span (every passage's "[doc "), so the first copy starts it.
            again = text.rfind(a.left, start, end)
            if again >= 0:
                start = again + len(a.left)
    if end <= start or not text[start:end].strip():
        return None
    return start, end


def _widen(text: str, start: int, end: int) -> tuple[int, int]:
    """The span with its label and its line when the line is short; else up to the end of
    the sentence it is part of."""
    line_start = text.rfind("\n", 0, start) + 1
    if start - line_start <= LINE:
        start = line_start
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    body = text[start:end]
    if "\n" in body[len(body.rstrip()):]:
        pass  # the span ends its line already: the next line (a heading) is not its own
    elif line_end - end <= LINE:
        end = line_end
    else:
        while end < len(text) and text[end] in ".,;:!?)":
            end += 1
    return start, end


def cut(text: str, a: Anchor) -> tuple[str, str] | None:
    """``text`` without the span, and the span (widened), or None."""
    found = locate(text, a)
    if found is None:
        return None
    start, end = _widen(text, *found)
    moved = text[start:end].strip()
    if not moved:
        return None
    head, tail = text[:start], text[end:]
    if not head.strip():
        head, tail = "", tail.lstrip()
    elif head.endswith("\n"):
        tail = tail.lstrip("\n")
        if not tail:
            head = head.rstrip("\n")
    else:
        tail = tail.lstrip(" ")
    return head + tail, moved


def shared_marker(texts: Sequence[str], a: Anchor) -> str:
    """The text that ends the content the requests share after the span, once the span is
    cut out: the end of the common prefix of the cut texts, at a paragraph boundary. The
    span goes right after it (shared content first, then the per-request content)."""
    rests = []
    at = 0
    for t in texts:
        got = cut(t, a)
        if got is None:
            continue
        found = locate(t, a)
        assert found is not None
        at = max(at, _widen(t, *found)[0])
        rests.append(got[0])
    if len(rests) < 2:
        return ""
    lo, hi = min(rests), max(rests)
    n = 0
    limit = min(len(lo), len(hi))
    while n < limit and lo[n] == hi[n]:
        n += 1
    end = lo.rfind("\n\n", 0, n)
    if end <= at:
        return ""
    # Long enough to be found once: rules written from one phrase book repeat their endings,
    # and the first copy of a short marker may sit anywhere in the shared text.
    start = max(at, end - SIDE)
    for _ in range(MARKER_GROWS):
        if start <= at or lo.count(lo[start:end]) == 1:
            break
        start = max(at, start - SIDE)
    return lo[start:end] if lo.count(lo[start:end]) == 1 else ""


@dataclasses.dataclass
class SpanMove:
    anchor: Anchor
    to: str = LAST_USER
    marker: str = ""   # with AFTER_SHARED: the span goes after this text
    joiner: str = DEFAULT_JOINER   # how the engine joins a content list's text parts

    def _place(self, rest: str, moved: str) -> str | None:
        if self.to != AFTER_SHARED:
            return None
        at = rest.find(self.marker) if self.marker else -1
        if at < 0:
            return None
        at += len(self.marker)
        return rest[:at] + "\n\n" + moved + rest[at:]

    def __call__(self, req: Request) -> Request | None:
        a = self.anchor
        if req.kind == "prompt" and req.prompt is not None:
            return self._in_prompt(req, req.prompt)
        if req.kind != "messages" or not req.messages:
            return None
        messages = [dict(m) for m in req.messages]
        last_user = max((k for k, m in enumerate(messages) if m.get("role") == "user"), default=-1)
        if self.to == LAST_MESSAGE:
            # Only text the layout prints: an assistant turn with tool calls loses its text.
            if messages[-1].get("role") not in ("user", "tool", "ipython") or len(messages) < 2:
                return None
            last_user = len(messages) - 1
        # The texts in the order the anchor was chosen by (messages, then tools): a label
        # the system text and a tool's description share ("Claim ") finds the message's.
        in_message = any(locate(t, a) is not None for m in messages
                         if (t := text_of(m.get("content"), self.joiner)) is not None)
        if req.tools and last_user >= 0 and not in_message:
            got = self._in_tools(req, messages, last_user)
            if got is not None:
                return got
        if a.to_end and not a.left:
            # A whole message of per-request content: the one before the static message.
            for j in range(1, len(messages)):
                content = text_of(messages[j].get("content"), self.joiner)
                if content is not None and a.next_message and content.lstrip().startswith(a.next_message[:24]):
                    return self._move_message(req, messages, j - 1)
            return None
        for k, m in enumerate(messages):
            content = text_of(m.get("content"), self.joiner)
            if content is not None and locate(content, a) is not None:
                return self._in_message(req, messages, k, content, last_user)
        if last_user >= 0 and self.to in (LAST_USER, LAST_USER_START):
            return self._cut_call_argument(req, messages, last_user)
        return None

    def _in_prompt(self, req: Request, prompt: str) -> Request | None:
        """The span cut out of a raw prompt and placed where ``to`` says, read off the
        prompt's own markup."""
        a = self.anchor
        got = cut(prompt, a)
        if got is None:
            return None
        rest, moved = got
        placed = self._place(rest, moved)
        if placed is None and self.to == LAST_USER_START:
            turns = [t for t in _TURN.finditer(rest) if t.group(2) == "user"]
            if not turns:
                return None
            at = turns[-1].start(3)
            placed = rest[:at] + moved + "\n\n" + rest[at:]
        if placed is None:
            at = _prompt_end(rest, prompt.find(a.left) + len(a.left) if self.to == MESSAGE_END else -1)
            placed = rest[:at].rstrip() + "\n\n" + moved + rest[at:]
        return dataclasses.replace(req, prompt=placed)

    def _in_tools(self, req: Request, messages: list[dict[str, Any]], last_user: int) -> Request | None:
        """The span cut out of the tool definitions into the last user turn, or a tool of
        the request's own sent after the shared ones (None: the tools do not hold it)."""
        tools = list(req.tools or ())
        got_tools = _cut_tools(tools, self.anchor)
        if got_tools is not None:
            kept, moved = got_tools
            messages[last_user]["content"] = _append(messages[last_user].get("content"), moved)
            return dataclasses.replace(req, tools=tuple(kept), messages=tuple(messages))
        own = _own_tool(tools, self.anchor)
        if own is None:
            return None
        # A tool of its own for this request (a tenant's): the shared tools first.
        tools.append(tools.pop(own))
        return dataclasses.replace(req, tools=tuple(tools))

    def _in_message(self, req: Request, messages: list[dict[str, Any]], k: int, content: str,
                    last_user: int) -> Request | None:
        """The span found in message ``k`` (its text ``content``) moved where ``to`` says."""
        a, m = self.anchor, messages[k]
        original = m.get("content")
        if a.to_end and self.to == AFTER_STATIC:
            return self._move_message(req, messages, k)
        parts = _cut_parts(original, content, a, self.joiner) if self.to != AFTER_SHARED else None
        if parts is not None:
            kept, moved_parts = parts
            if self.to == MESSAGE_END or k >= last_user:
                m["content"] = kept + moved_parts
            else:
                m["content"] = kept
                target = messages[last_user]
                target["content"] = _append_parts(target.get("content"), moved_parts, self.joiner)
            return dataclasses.replace(req, messages=tuple(messages))
        got = _cut_json_member(content, a) or cut(content, a)
        if got is None:
            return None
        rest, moved = got
        placed = self._place(rest, moved)
        if placed is not None:
            m["content"] = with_text(original, placed)
        elif self.to in (MESSAGE_END, AFTER_SHARED) or k >= last_user:
            if not rest.strip():
                return self._move_message(req, messages, k)
            m["content"] = with_text(original, rest.rstrip() + "\n\n" + moved)
        else:
            m["content"] = with_text(original, rest)
            target = messages[last_user]
            if self.to == LAST_USER_START and isinstance(target.get("content"), str):
                target["content"] = moved + "\n\n" + target["content"]
            else:
                target["content"] = _append(target.get("content"), moved)
            if not rest.strip():
                del messages[k]
        new = tuple(messages)
        return dataclasses.replace(req, messages=new) if new != tuple(req.messages or ()) else None

    def _cut_call_argument(self, req: Request, messages: list[dict[str, Any]], last_user: int) -> Request | None:
        """A value in the arguments of a tool call the history replays (an id, a measurement
        the model passed): the argument leaves the call and is stated in the last user turn.
        The call then reads without it, which the measured gain has to be worth."""
        for m in messages[:last_user]:
            calls = m.get("tool_calls")
            if not isinstance(calls, list):
                continue
            for j, call in enumerate(calls):
                text = call_arguments_text(call)
                got = _cut_json_member(text, self.anchor) if text else None
                if got is None:
                    continue
                rest, moved = got
                fn = call["function"]
                new_args: Any = rest if isinstance(fn["arguments"], str) else json.loads(rest)
                m["tool_calls"] = calls[:j] + [{**call, "function": {**fn, "arguments": new_args}}] + calls[j + 1:]
                target = messages[last_user]
                if self.to == LAST_USER_START and isinstance(target.get("content"), str):
                    target["content"] = moved + "\n\n" + target["content"]
                else:
                    target["content"] = _append(target.get("content"), moved)
                return dataclasses.replace(req, messages=tuple(messages))
        return None

    def _move_message(self, req: Request, messages: list[dict[str, Any]], k: int) -> Request | None:
        """Message ``k`` (per-request content) after the static message that follows it."""
        nxt = self.anchor.next_message
        for j in range(k + 1, len(messages)):
            content = text_of(messages[j].get("content"), self.joiner)
            if content is not None and (not nxt or content.lstrip().startswith(nxt[:24])):
                moved = messages.pop(k)
                messages.insert(j, moved)
                return dataclasses.replace(req, messages=tuple(messages))
        return None


def _cut_tools(tools: list[Any], a: Anchor) -> tuple[list[Any], str] | None:
    """The tool definitions with the span cut out of the string that holds it (the
    anchors are decoded from the tools as JSON, so the string is searched escaped).

    Requests repeat the same tool list and each candidate move asks about it again, so
    the answer is kept per (tool list, anchor); each caller gets tools of its own."""
    try:
        compact = json.dumps(tools, ensure_ascii=False)
    except (TypeError, ValueError):
        return _cut_tools_in(tools, a)
    got = _cut_tools_cached(compact, a)
    return None if got is None else (json.loads(got[0]), got[1])


@functools.lru_cache(maxsize=512)
def _cut_tools_cached(compact: str, a: Anchor) -> tuple[str, str] | None:
    got = _cut_tools_in(json.loads(compact), a)
    return None if got is None else (json.dumps(got[0], ensure_ascii=False), got[1])


def _cut_tools_in(tools: list[Any], a: Anchor) -> tuple[list[Any], str] | None:
    # The anchor's sides inside one JSON string: up to the quotes that bound it.
    # A span across JSON values (a list of per-request choices) moves as the value
    # that holds it; a span inside one string is cut out of that string.
    for k, tool in enumerate(tools):
        got = _cut_json_value(tool, a)
        if got is None:
            got = _cut_tool_member(tool, a)
        if got is not None:
            out = list(tools)
            out[k] = got[0]
            return out, got[1]
    left = a.left.rsplit('"', 1)[-1]
    right = a.right.split('"', 1)[0]
    if not left.strip() and not right.strip():
        return None  # nothing of the anchor is inside one string: it would match any string
    a = Anchor(left, right if right.strip() else "", not right.strip(), "")
    for k, tool in enumerate(tools):
        found: list[str] = []

        def edit(value: Any, found: list[str] = found) -> Any:
            if isinstance(value, str) and not found:
                escaped = json.dumps(value, ensure_ascii=False)[1:-1]
                got = cut(escaped, a)
                if got is not None:
                    rest, moved = got
                    try:
                        new = json.loads('"' + rest.rstrip() + '"')
                        found.append(json.loads('"' + moved + '"'))
                    except ValueError:
                        return value
                    return new
                return value
            if isinstance(value, dict):
                return {key: edit(v, found) for key, v in value.items()}
            if isinstance(value, list):
                return [edit(v, found) for v in value]
            return value

        new_tool = edit(tool)
        if found:
            out = list(tools)
            out[k] = new_tool
            return out, found[0]
    return None


# The layouts tool definitions are rendered in: indented (Llama 3.1's tojson) and inline.
TOOL_INDENTS: tuple[int | None, ...] = (4, 2, None)


def _in_tool(tool: Any, a: Anchor) -> Iterator[tuple[str, Sequence[tuple[int, int, tuple[Any, ...]]], int, int]]:
    """For each layout a template may print ``tool`` in, where the span is found: the
    text, the character range of every value in it, and the span's start and end."""
    for indent, text in zip(TOOL_INDENTS, tool_texts(json.dumps(tool, ensure_ascii=False))):
        found = locate(text, a)
        if found is None:
            continue
        ranges = _ranges_of(text, indent)
        if ranges is not None:
            yield text, ranges, found[0], found[1]


# Every request repeats the same few tool definitions, and the search asks about each of
# them many times: each is laid out and walked once. The key is the compact dump (the C
# encoder); the indented dumps and the walk run in Python and were most of prescribe's time.
@functools.lru_cache(maxsize=1024)
def tool_texts(compact: str) -> tuple[str, ...]:
    """A tool definition as each layout in ``TOOL_INDENTS`` prints it."""
    value = json.loads(compact)
    return tuple(json.dumps(value, ensure_ascii=False, indent=indent) for indent in TOOL_INDENTS)


@functools.lru_cache(maxsize=1024)
def _ranges_of(text: str, indent: int | None) -> tuple[tuple[int, int, tuple[Any, ...]], ...] | None:
    """The value ranges of a tool definition dumped as ``text``, or None where walking it
    does not give ``text`` back."""
    dumped, ranges = _dump_ranges(json.loads(text), indent)
    return tuple(ranges) if dumped == text else None


def _own_tool(tools: list[Any], a: Anchor) -> int | None:
    """The index of the tool, not the last, whose definition the span is most of (its
    name and description vary with the request), or None."""
    for k, tool in enumerate(tools[:-1]):
        for text, ranges, start, end in _in_tool(tool, a):
            covering = [e - s for s, e, path in ranges if s <= start and end <= e and path]
            if covering and min(covering) * 2 > len(text):
                return k
    return None


def _cut_json_value(tool: Any, a: Anchor) -> tuple[Any, str] | None:
    """The tool with the JSON value that holds the span removed (a list of per-request
    choices, an object), and that value as text: the span found in the tool as a layout
    renders it, then the smallest value of the tool that covers all of it."""
    for text, ranges, start, end in _in_tool(tool, a):
        while start < end and text[start] in ' \t\r\n",':
            start += 1
        while end > start and text[end - 1] in ' \t\r\n",':
            end -= 1
        covering = [(e - s, path) for s, e, path in ranges if s <= start and end <= e and path]
        if not covering:
            continue
        size, path = min(covering, key=lambda t: (t[0], -len(t[1])))
        if size * 2 > len(text):
            continue  # most of the tool: not one value to move
        return _without(tool, path)
    return None


def _without(value: Any, path: tuple[Any, ...], scalars: bool = False) -> tuple[Any, str] | None:
    """``value`` (a copy) without the item at ``path``, and that item as text. A member
    whose value is a string or number moves whole only with ``scalars`` (a tool result's
    member that is the span); else the span is cut out of the string."""
    copy = json.loads(json.dumps(value))
    parent = copy
    for key in path[:-1]:
        parent = parent[key]
    last = path[-1]
    item = parent[last]
    if scalars and (isinstance(item, (dict, list)) or not isinstance(parent, dict)):
        return None  # only a scalar member of an object is the span itself
    if not scalars and not isinstance(item, (dict, list)) and not isinstance(parent, list):
        return None  # a value inside a string is cut out of the string, not moved whole
    if isinstance(parent, dict):
        del parent[last]
        return copy, f"{last}: {json.dumps(item, ensure_ascii=False)}"
    if isinstance(parent, list):
        del parent[last]
        return copy, json.dumps(item, ensure_ascii=False)
    return None


def _dump_ranges(value: Any, indent: int | None) -> tuple[str, list[tuple[int, int, tuple[Any, ...]]]]:
    """``json.dumps(value, ensure_ascii=False, indent=indent)``, with the character range
    of every value in it and its path (keys and indices from the top)."""
    out: list[str] = []
    ranges: list[tuple[int, int, tuple[Any, ...]]] = []
    pos = 0

    def emit(piece: str) -> None:
        nonlocal pos
        out.append(piece)
        pos += len(piece)

    def walk(v: Any, path: tuple[Any, ...], level: int) -> None:
        start = pos
        if isinstance(v, (dict, list)) and v:
            opening, closing = ("{", "}") if isinstance(v, dict) else ("[", "]")
            emit(opening)
            items = list(v.items()) if isinstance(v, dict) else list(enumerate(v))
            for i, (key, item) in enumerate(items):
                if i:
                    emit(",")
                if indent is not None:
                    emit("\n" + " " * (indent * (level + 1)))
                elif i:
                    emit(" ")
                if isinstance(v, dict):
                    emit(json.dumps(key, ensure_ascii=False) + ": ")
                walk(item, path + (key,), level + 1)
            if indent is not None:
                emit("\n" + " " * (indent * level))
            emit(closing)
        else:
            emit(json.dumps(v, ensure_ascii=False))
        ranges.append((start, pos, path))

    walk(value, (), 0)
    return "".join(out), ranges


_ROLE_AFTER = re.compile(r"(?:<\|(?:im_start|start_header_id|start|channel)\|>|<start_of_turn>)([A-Za-z_]{1,24})\Z")
_CUE = re.compile(r"\n[^\n]{1,24}:[ \t]*\Z")


def _prompt_end(text: str, within: int = -1) -> int:
    """Where moved text goes in a prompt: the end of the last turn, before what cues the
    model to answer (a chat layout's closing markup and assistant header, in token ids
    decoded to text; a closing "Agent:" line in a completion prompt). With ``within`` (a
    position in the text), the end of the message holding it: its next markup."""
    if within >= 0:
        nxt = _SPECIAL.search(text, within)
        if nxt is not None:
            return nxt.start()
    end = len(text)
    while True:
        tail = text[:end].rstrip()
        found = list(_SPECIAL.finditer(tail, max(0, len(tail) - 64)))
        last = found[-1] if found else None
        if last is not None and last.end() == len(tail):
            end = last.start()
            continue
        if tail.endswith("<think>"):  # a reasoning model's opened thought, after its role
            end = len(tail) - len("<think>")
            continue
        # A role name right after the markup that opens a turn and takes its role as text
        # ("<|im_start|>assistant\n", "<start_of_turn>model\n", a Llama 3 header, harmony's
        # channel): the header of the answer's turn. (DeepSeek's and Mistral's markers hold
        # no such name: a short question after them is content.)
        role = _ROLE_AFTER.search(tail)
        if role is not None:
            end = role.start(1)
            continue
        break
    if end == len(text):
        cue = _CUE.search(text)
        if cue is not None:
            return cue.start()
    return end


def _cut_parts(content: Any, text: str, a: Anchor, joiner: str) -> tuple[list[Any], list[Any]] | None:
    """A content list whose span is (mostly) some of its text parts: the other parts, and
    those parts, to move whole. The engine joins the parts into one text, so the span the
    diagnosis saw may run into a neighbouring part; that part stays where it is."""
    if not isinstance(content, list) or len(content) < 2:
        return None
    found = locate(text, a)
    if found is None:
        return None
    start, end = found
    kept: list[Any] = []
    moved: list[Any] = []
    at = 0
    for k, part in enumerate(content):
        if k:
            at += len(joiner)
        lo, hi = at, at + len(part["text"])
        at = hi
        overlap = max(0, min(hi, end) - max(lo, start))
        body = len(part["text"].strip()) or 1
        (moved if overlap * 2 >= body and part["text"].strip() else kept).append(part)
    if not moved or not kept:
        return None
    return kept, moved


def _append_parts(content: Any, parts: list[Any], joiner: str) -> Any:
    if isinstance(content, list):
        return list(content) + parts
    if isinstance(content, str):
        return [{"type": "text", "text": content}] + parts
    return parts


def _cut_tool_member(tool: Any, a: Anchor) -> tuple[Any, str] | None:
    """A tool definition without the member whose whole value is the span (a per-request
    ``default`` of a parameter), in whichever layout the template printed it."""
    if not isinstance(tool, dict):
        return None
    for text in tool_texts(json.dumps(tool, ensure_ascii=False)):
        got = _cut_json_member(text, a)
        if got is not None:
            return json.loads(got[0]), got[1]
    return None


def _cut_json_member(text: str, a: Anchor) -> tuple[str, str] | None:
    """A message that is one JSON document (a tool result) whose span is (nearly) the whole
    value of one member: the document without that member, in its own layout, and the
    member as ``key: value``. Cutting characters out of it would leave broken JSON."""
    if text.lstrip()[:1] not in ("{", "[") or len(text) > 1_000_000:
        return None
    layout = _document_layout(text) if len(text) <= _CACHED_DOCUMENT else _document_layout.__wrapped__(text)
    if layout is None:
        return None
    value, indent, ranges = layout
    found = locate(text, a)
    if found is None:
        return None
    start, end = found
    covering = [(e - s, path) for s, e, path in ranges if s <= start and end <= e and path]
    if not covering:
        return None
    size, path = min(covering, key=lambda t: (t[0], -len(t[1])))
    if size > 2 * (end - start) + 8:
        return None  # a value inside longer text is cut out of the string
    got = _without(value, path, scalars=True)
    if got is None:
        return None
    return json.dumps(got[0], ensure_ascii=False, indent=indent), got[1]


# Documents up to this many characters keep their layout cached (the same tool result or
# definition is asked about once per candidate move); longer ones are laid out each time.
_CACHED_DOCUMENT = 32_768


@functools.lru_cache(maxsize=256)
def _document_layout(text: str) -> tuple[Any, int | None, tuple[tuple[int, int, tuple[Any, ...]], ...]] | None:
    """``text`` as a JSON object or array, the indent that prints it back exactly and the
    range of every value in it; None when it is not one JSON document in such a layout.
    The value is shared: callers copy it before changing it (``_without`` does)."""
    try:
        value = json.loads(text)
    except ValueError:
        return None
    if not isinstance(value, (dict, list)):
        return None
    for indent in (None, 2, 4):
        dumped, ranges = _dump_ranges(value, indent)
        if dumped == text:
            return value, indent, tuple(ranges)
    return None


def _append(content: Any, text: str) -> Any:
    if isinstance(content, str):
        return content.rstrip() + "\n\n" + text
    if isinstance(content, list):
        return list(content) + [{"type": "text", "text": "\n\n" + text}]
    return text


# --- a value re-rendered into the history ---------------------------------------------------

HISTORY_VALUE = 120  # characters: a copy of the value between its two sides is at most this long


def history_anchor(contexts: Sequence[tuple[str, str, str]], texts: Sequence[str]) -> Anchor | None:
    """The sides every conversation prints around a value re-rendered into its history:
    the end that the left contexts share and the start that the right contexts share
    (chat markup left out), each as long as some of ``texts`` (message contents) hold it.
    None when the sides share no text that says where the value is."""
    # (As decoded, else as the messages hold content the template printed through tojson.)
    unescaped = [u for u in map(unescaped_context, contexts) if u is not None]
    for family in (list(contexts), unescaped):
        found = _history_sides(family, texts)
        if found is not None:
            return found
    return None


def _history_sides(contexts: Sequence[tuple[str, str, str]], texts: Sequence[str]) -> Anchor | None:
    lefts = [_after_special(b)[0] for b, _, _ in contexts]
    rights = [_before_special(a)[0] for _, _, a in contexts]
    if not lefts:
        return None
    left = os.path.commonprefix([x[::-1] for x in lefts])[::-1][-SIDE:]
    right = os.path.commonprefix(rights)[:SIDE]
    # What the decoded text holds around the value may be the template's wrapping of the
    # message (a tool result printed inside a JSON object): the sides as the messages hold them.
    held_left = next((left[k:] for k in range(len(left)) if any(left[k:] in t for t in texts)), "")
    if not held_left.strip():
        return None
    with_left = [t for t in texts if held_left in t]
    held_right = next((right[:k] for k in range(len(right), 0, -1)
                       if any(t.find(right[:k], t.find(held_left) + len(held_left)) >= 0 for t in with_left)), "")
    if not any(ch.isalnum() for ch in held_left) and not held_right.strip():
        return None  # a bracket alone says where a value starts only with its closing one
    return Anchor(held_left, held_right, not held_right.strip(), "")


def value_shape(value: str) -> str:
    """A value's shape: its digits as one 0 per run (3 and 12 min ago alike)."""
    return _DIGITS.sub("0", value.strip())


_DIGITS = re.compile(r"\d+")


@dataclasses.dataclass
class HistoryMove:
    """Every copy of the value cut out of the messages (each turn sent the same way at
    every later turn, without the value it was re-rendered with), the values stated at the
    end of the newest message when that is the user's or a tool's."""

    anchor: Anchor
    joiner: str = DEFAULT_JOINER
    # Where the sides are brackets alone, only copies of these shapes are the value.
    shapes: frozenset[str] = frozenset()

    def _cut_all(self, text: str) -> tuple[str, list[str]]:
        a, at = self.anchor, 0
        values: list[str] = []
        while True:
            i = text.find(a.left, at)
            if i < 0:
                return text, values
            start = i + len(a.left)
            if a.to_end:
                special = _SPECIAL.search(text, start)
                line = text.find("\n", start)
                ends = [x for x in (special.start() if special else -1, line, len(text)) if x >= 0]
                end = min(ends)
            else:
                end = text.find(a.right, start, start + HISTORY_VALUE + len(a.right))
            if end <= start or (self.shapes and value_shape(text[start:end]) not in self.shapes):
                at = start
                continue
            value = text[start:end]
            if value.strip():
                values.append(value.strip())
            text = text[:start] + text[end:]
            at = start + len(a.right)

    def __call__(self, req: Request) -> Request | None:
        if req.kind == "prompt" and req.prompt is not None:
            # A prompt (or decoded token ids) holds the history as text: the values leave
            # it and go where the newest turn ends, before the answer's cue.
            rest, values = self._cut_all(req.prompt)
            if not values:
                return None
            at = _prompt_end(rest)
            return dataclasses.replace(req, prompt=rest[:at].rstrip() + "\n\n" + "; ".join(values) + rest[at:])
        if req.kind != "messages" or not req.messages or len(req.messages) < 2:
            return None
        messages = [dict(m) for m in req.messages]
        moved: list[str] = []
        # The newest message's copy too: it is history in the next turn, where a copy sent
        # once and cut then would part the prefix there.
        for m in messages:
            original = m.get("content")
            content = text_of(original, self.joiner)
            if content is None:
                continue
            rest, values = self._cut_all(content)
            if values:
                m["content"] = with_text(original, rest)
                moved += values
        if not moved:
            return None
        last = messages[-1]
        if last.get("role") in ("user", "tool", "ipython") and text_of(last.get("content"), self.joiner) is not None:
            last["content"] = _append(last.get("content"), "; ".join(moved))
        return dataclasses.replace(req, messages=tuple(messages))


# --- one order for units ------------------------------------------------------------------

class UnitSort:
    """Put the units that hold ``cores`` in one order, in every text of a request."""

    def __init__(self, cores: Sequence[str], how: str = "auto", by_text: bool = False) -> None:
        self.cores = [c for c in cores if c]
        # Cores decoded from content a template printed through tojson: as the message holds them.
        self.cores += [u for u in map(json_unescaped, self.cores) if u and u not in self.cores]
        self.how = how
        # Sorted by their text (the order a template's sort filter gives) rather than in
        # the order they were first seen; only the run of units moves, not what is around.
        self.by_text = by_text
        self.rank: dict[str, int] = {}
        # The same texts come back (a system prompt in every request, each request in every
        # choice the search measures): a text's order is fixed once its units are ranked.
        self._sorted: dict[str, str | None] = {}

    def _rank(self, key: str) -> int:
        r = self.rank.get(key)
        if r is None:
            r = self.rank[key] = len(self.rank)
        return r

    def __call__(self, req: Request) -> Request | None:
        if req.kind == "prompt" and req.prompt is not None:
            text = self.sort_text(req.prompt)
            return dataclasses.replace(req, prompt=text) if text is not None else None
        if req.kind != "messages" or not req.messages:
            return None
        messages = [dict(m) for m in req.messages]
        changed, holders = self._sort_contents(messages)
        if (not changed and self.how == "messages" and holders
                and any(messages[k].get("role") in _PREAMBLE_ROLES for k in holders)):
            # A unit is a system message that this request sends after other turns: the
            # system messages go first, the turns keep their order.
            last_user = max((k for k, m in enumerate(messages) if m.get("role") == "user"), default=0)
            head = messages[:last_user]
            ordered = sorted(head, key=lambda m: m.get("role") not in _PREAMBLE_ROLES)
            if ordered != head:
                return dataclasses.replace(req, messages=tuple(ordered + messages[last_user:]))
        if not changed and len(holders) >= 2 and self.how in ("auto", "messages"):
            return self._sort_messages(req, messages, holders)
        tools = req.tools
        if self.how in ("auto", "json"):
            # JSON the template prints from structured fields: a tool's enum or required list,
            # a tool call's arguments (re-dumped by the template in the order they come).
            tools, json_changed = self._sort_structured(req.tools, messages)
            changed = changed or json_changed
        return dataclasses.replace(req, messages=tuple(messages), tools=tools) if changed else None

    def _sort_contents(self, messages: list[dict[str, Any]]) -> tuple[bool, list[int]]:
        """Each message's units sorted in place (a content list's parts, a text holding two
        units or more): whether any changed, and the messages that hold a unit."""
        changed = False
        holders = []
        for k, m in enumerate(messages):
            content = m.get("content")
            if isinstance(content, list) and self.how == "auto":
                sorted_parts = self._sort_parts(content)
                if sorted_parts is not None:
                    m["content"] = sorted_parts
                    changed = True
                    continue
            calls = m.get("tool_calls")
            if calls and self.how == "messages":
                # A tool call step names its tool in the call, not in its (empty) text.
                probe = (content if isinstance(content, str) else "") + json.dumps(calls, ensure_ascii=False)
                if any(c in probe for c in self.cores):
                    holders.append(k)
                    continue
            if not isinstance(content, str):
                continue
            # (Two are enough to tell: a text that holds every unit is not searched for each.)
            found = sum(islice((1 for c in self.cores if c in content), 2))
            if found:
                holders.append(k)
            if found >= 2 and self.how != "messages":
                text = self.sort_text(content)
                if text is not None:
                    m["content"] = text
                    changed = True
        return changed, holders

    def _sort_structured(self, tools: tuple[Any, ...] | None,
                         messages: list[dict[str, Any]]) -> tuple[tuple[Any, ...] | None, bool]:
        """The tools' lists the units name sorted, and the tool calls' arguments (in place in
        ``messages``): the tools, and whether anything changed."""
        changed = False
        if tools:
            new_tools = tuple(self._sort_lists(t) for t in tools)
            if new_tools != tuple(tools):
                tools, changed = new_tools, True
        for m in messages:
            calls = m.get("tool_calls")
            if isinstance(calls, list) and calls:
                new_calls = [self._sort_arguments(c) for c in calls]
                if new_calls != calls:
                    m["tool_calls"] = new_calls
                    changed = True
        return tools, changed

    def _mentions(self, text: str) -> bool:
        return any(text in c for c in self.cores)

    def _sort_lists(self, value: Any) -> Any:
        """``value`` with each list of scalars that the units name (two items or more) sorted."""
        if isinstance(value, dict):
            return {k: self._sort_lists(v) for k, v in value.items()}
        if isinstance(value, list):
            if (len(value) >= 2 and all(isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in value)
                    and sum(self._mentions(json.dumps(v, ensure_ascii=False)) for v in value) >= 2):
                return sorted(value, key=lambda v: json.dumps(v, ensure_ascii=False))
            return [self._sort_lists(v) for v in value]
        return value

    def _sort_arguments(self, call: Any) -> Any:
        """A tool call whose JSON arguments' keys the units name: keys sorted."""
        parsed = _call_arguments(call)
        if parsed is None or sum(self._mentions(f'"{k}"') for k in parsed) < 2:
            return call
        return _with_sorted_arguments(call, parsed)

    def _sort_parts(self, content: list[Any]) -> list[Any] | None:
        """Text parts of one message that are the units: the run from the first part that
        holds a unit to the last, in one order (the parts between move with them)."""
        if text_of(content) is None:
            return None
        holding = [k for k, p in enumerate(content) if any(c in p["text"] for c in self.cores)]
        if len(holding) < 2:
            return None
        lo, hi = holding[0], holding[-1] + 1
        run = content[lo:hi]
        if self.by_text:
            ordered = sorted(run, key=lambda p: p["text"])
        else:
            ordered = sorted(run, key=lambda p: self._rank(p["text"]))
        if ordered == run:
            return None
        return content[:lo] + ordered + content[hi:]

    def _sort_messages(self, req: Request, messages: list[dict[str, Any]], holders: list[int]) -> Request | None:
        lo = holders[0]
        last_user = max((k for k, m in enumerate(messages) if m.get("role") == "user"), default=len(messages))
        hi = max(holders[-1] + 1, last_user if last_user > holders[-1] else holders[-1] + 1)
        block = messages[lo:hi]
        ordered = sorted(block, key=lambda m: self._rank(json.dumps(m, sort_keys=True, ensure_ascii=False)))
        if ordered == block:
            return None
        return dataclasses.replace(req, messages=tuple(messages[:lo] + ordered + messages[hi:]))

    def sort_text(self, text: str) -> str | None:
        # A core this text holds in many places (a key every tool definition has) marks
        # no unit of its own: the units are told apart by the others. A sentence two
        # sections share still marks the first of them.
        if text in self._sorted:
            return self._sorted[text]
        saved = self.cores
        often = max(3, len(saved) // 2)
        self.cores = [c for c in saved if text.count(c) < often]
        try:
            out = self._sort_text(text)
        finally:
            self.cores = saved
        if len(self._sorted) >= SORTED_TEXTS:
            self._sorted.clear()
        self._sorted[text] = out
        return out

    def _sort_text(self, text: str) -> str | None:
        where = sorted(i for i in (text.find(c) for c in self.cores) if i >= 0)
        if len(where) < 2:
            return None
        if self.how in ("auto", "messages") and "<|start_header_id|>" in text:
            out = self._sort_turns(text)
            if out is not None or self.how == "messages":
                return out
        if self.how in ("auto", "json"):
            out = self._sort_json(text, where)
            if out is not None or self.how == "json":
                return out
        for sep in ("\n\n", "\n"):
            if self.how not in ("auto", sep):
                continue
            out = self._sort_segments(text, where, sep)
            if out is not None:
                return out
        if self.how == ". ":
            return self._sort_sentences(text, where)
        if self.how == ", ":
            return self._sort_items(text, where)
        return None

    def _sort_turns(self, text: str) -> str | None:
        """A prompt decoded from token ids (Llama 3 layout) whose turns are the units: each
        user turn with the assistant turn answering it (a few-shot pair) is one unit, and
        the units from the first that holds a core to the last are put in one order; the
        markup of every turn moves with it."""
        turns = list(_TURN.finditer(text))
        units: list[tuple[int, int]] = []  # (start, end) in text of each pair or lone turn
        k = 0
        while k < len(turns):
            t = turns[k]
            if t.group(2) == "user" and k + 1 < len(turns) and turns[k + 1].group(2) == "assistant" \
                    and turns[k + 1].start() == t.end():
                units.append((t.start(), turns[k + 1].end()))
                k += 2
            else:
                units.append((t.start(), t.end()))
                k += 1
        holding = [i for i, (a, b) in enumerate(units) if any(c in text[a:b] for c in self.cores)]
        if len(holding) < 2:
            return None
        lo, hi = holding[0], holding[-1] + 1
        # Only adjacent units: the text between them (none, in this layout) would be lost.
        if any(units[i][1] != units[i + 1][0] for i in range(lo, hi - 1)):
            return None
        pieces = [text[a:b] for a, b in units[lo:hi]]
        ordered = [p for _, p in sorted(zip((self._rank(p) for p in pieces), pieces), key=lambda x: x[0])]
        new = text[:units[lo][0]] + "".join(ordered) + text[units[hi - 1][1]:]
        return new if new != text else None

    def _sort_items(self, text: str, where: list[int]) -> str | None:
        """The comma-separated items of the line that holds the units (after its label, if
        it opens with one), in one order; a stop after the last item stays last. Inside a
        bracket that holds them all (a signature's parameters, a JSON object's members),
        that bracket's members."""
        inner = self._sort_bracketed(text, where)
        if inner is not None:
            return inner
        lo, hi, start = _labelled_line(text, where)
        line = text[lo:hi]
        body = line[start:]
        stop = len(body) - len(body.rstrip(" .;"))
        items = body[:len(body) - stop].split(", ")
        if len(items) < 2 or sum(1 for t in items if any(c in t for c in self.cores)) < 2:
            return None
        ordered = [t for _, t in sorted(zip((self._rank(t) for t in items), items), key=lambda x: x[0])]
        new = text[:lo] + line[:start] + ", ".join(ordered) + body[len(body) - stop:] + text[hi:]
        return new if new != text else None

    def _sort_bracketed(self, text: str, where: list[int]) -> str | None:
        """The members of the innermost bracket on the first unit's line that holds every
        unit, in one order; the separators stay in place."""
        lo = text.rfind("\n", 0, where[0]) + 1
        opened = open_brackets(text[lo:where[0]])
        if not opened:
            return None
        opening, nested = opened[-1]
        begin = lo + opening + 1
        hi = text.find("\n", begin)
        body = text[begin:len(text) if hi < 0 else hi]
        if nested and unescaped(body) != body:
            return None  # (its members would need escaping again: a JSON sort does that)
        stop = close_bracket(body, text[begin - 1])
        if stop < 0 or begin + stop <= where[-1]:
            return None
        bounds = member_bounds(body[:stop])
        items = [body[a:b] for a, b in bounds]
        if len(items) < 2 or sum(1 for t in items if any(c in t for c in self.cores)) < 2:
            return None
        ordered = [t for _, t in sorted(zip((self._rank(t) for t in items), items), key=lambda x: x[0])]
        out, at = [], 0
        for (a, b), item in zip(bounds, ordered):
            out.append(body[at:a] + item)
            at = b
        new = text[:begin] + "".join(out) + body[at:] + text[begin + len(body):]
        return new if new != text else None

    def _sort_sentences(self, text: str, where: list[int]) -> str | None:
        """The sentences of the paragraph that holds the units (after its label, if it
        opens with one), in one order; what separates them is kept in place."""
        lo, hi, start = _labelled_line(text, where)
        line = text[lo:hi]
        body = line[start:]
        pieces = _SENTENCE_END.split(body)
        sentences, seps = pieces[0::2], pieces[1::2]
        holding = [k for k, t in enumerate(sentences) if any(c in t for c in self.cores)]
        if len(holding) < 2:
            return None
        # Each sentence keeps its own stop; one that had none (a paragraph's unfinished
        # last sentence) gets one where it no longer comes last.
        keys = [t.rstrip(".!?") for t in sentences]
        ordered = [t for _, t in sorted(zip((self._rank(k) for k in keys), sentences), key=lambda x: x[0])]
        ordered = [t if t.endswith((".", "!", "?")) or k == len(ordered) - 1 else t + "."
                   for k, t in enumerate(ordered)]
        out = ordered[0] + "".join(sep + t for sep, t in zip(seps, ordered[1:]))
        new = text[:lo] + line[:start] + out + text[hi:]
        return new if new != text else None

    def _sort_json(self, text: str, where: list[int]) -> str | None:
        """A JSON array (of objects or strings) that holds two cores or more: sorted."""
        decoder = json.JSONDecoder()
        i = text.rfind("[", 0, where[0] + 1)
        while i >= 0:
            try:
                value, end = decoder.raw_decode(text, i)
            except ValueError:
                value, end = None, -1
            if isinstance(value, list) and len(value) >= 2 and end > where[-1]:
                keys = [json.dumps(v, sort_keys=True, ensure_ascii=False) for v in value]
                ordered = [v for _, v in sorted(zip((self._rank(k) for k in keys), value), key=lambda t: t[0])]
                body = text[i:end]
                new = _dump_like(body, value, ordered)
                if new is None or new == body:
                    return None
                return text[:i] + new + text[end:]
            i = text.rfind("[", 0, i)
        return self._sort_json_keys(text, where)

    @staticmethod
    def _sort_json_keys(text: str, where: list[int]) -> str | None:
        """A JSON object that holds two cores or more (its members, in another order per
        request): its keys sorted, recursively, in the layout it was written in."""
        decoder = json.JSONDecoder()
        i = text.rfind("{", 0, where[0] + 1)
        while i >= 0:
            try:
                value, end = decoder.raw_decode(text, i)
            except ValueError:
                value, end = None, -1
            if isinstance(value, dict) and len(value) >= 2 and end > where[-1]:
                body = text[i:end]
                new = _dump_like(body, value, _keys_sorted(value))
                if new is not None:
                    return None if new == body else text[:i] + new + text[end:]
            i = text.rfind("{", 0, i)
        return None

    def _sort_segments(self, text: str, where: list[int], sep: str) -> str | None:
        lo, hi = _segment_bounds(text, where, sep)
        segments = text[lo:hi].split(sep)
        if sep == "\n\n":
            # A paragraph that opens indented goes on with the unit before it (a function's
            # docstring after its blank line, a nested list).
            joined: list[str] = []
            for seg in segments:
                if joined and seg[:1] in (" ", "\t"):
                    joined[-1] += sep + seg
                else:
                    joined.append(seg)
            segments = joined
        # A segment holds a unit where a core starts in it (a core may run on over the
        # lines of a unit of several lines).
        starts = sorted(text.find(c, lo) - lo for c in self.cores)
        holding = []
        at = 0
        for seg in segments:
            first = bisect_left(starts, at)
            holding.append(first < len(starts) and starts[first] < at + len(seg))
            at += len(seg) + len(sep)
        if sum(holding) < 2:
            return None
        # Every unit in a segment of its own, or this separator is too coarse.
        if sep != "\n" and any(_marks(s, self.cores) > 1 and len(segments) > 1 for s in segments if s):
            return None
        ordered = self._ordered_segments(segments, holding, sep)
        if ordered is None:
            return None
        new = sep.join(ordered)
        return None if new == text[lo:hi] else text[:lo] + new + text[hi:]

    def _ordered_segments(self, segments: list[str], holding: list[bool], sep: str) -> list[str] | None:
        """The segments in one order: a list's items under their markers, else the run of
        segments that hold units sorted by text (``by_text``), else all by rank."""
        if sep == "\n":
            numbered = _enumerated(segments, holding, self._rank, self.by_text) or \
                _list_items(segments, holding, self._rank, self.by_text)
            if numbered is not None:
                return numbered
        if not self.by_text:
            return sorted(segments, key=lambda s: self._rank(s))
        marked = [k for k, h in enumerate(holding) if h]
        first, last = marked[0], marked[-1] + 1
        run = segments[first:last]
        if sep == "\n" and not all(holding[first:last]) and len({ln.lstrip()[:1] for ln in run}) > 1:
            # Lines that do not all open alike may be units of several lines (a question
            # and its answer): sorting the lines would split them.
            return None
        if sep == "\n" and _bodies_indented(run):
            return None  # code: a signature's docstring and body are lines of its unit
        return segments[:first] + sorted(segments[first:last]) + segments[last:]


def _segment_bounds(text: str, where: list[int], sep: str) -> tuple[int, int]:
    """The stretch of ``text`` whose segments are sorted: lines through the whole paragraph
    that holds them (a unit no core marks still gets its place), paragraphs from the first
    unit's to the last one's."""
    outer = "\n\n" if sep == "\n" else sep
    lo = text.rfind(outer, 0, where[0])
    lo = 0 if lo < 0 else lo + len(outer)
    hi = text.find(outer, where[-1])
    hi = len(text) if hi < 0 else hi
    # Chat markup spelled in a prompt ends a paragraph too: the last line of a system
    # message is not glued to the next turn's text (a question per request).
    for m in _SPECIAL.finditer(text, lo, hi):
        if m.end() <= where[0]:
            lo = m.end()
            role = _ROLE_LINE.match(text, lo)  # the role a ChatML or Gemma turn names as text
            if role is not None and role.end() <= where[0]:
                lo = role.end()
        elif m.start() > where[-1]:
            hi = m.start()
            break
    if sep == "\n\n":
        lo, hi = _code_units(text, lo, hi)
    return lo, hi


def _bodies_indented(lines: Sequence[str]) -> bool:
    """Whether some of ``lines`` open at the margin and others indented, the indented ones
    not list items (nested bullets sort as lines): units of several lines, a function and
    its body."""
    margin = [ln for ln in lines if ln.strip() and ln[:1] not in (" ", "\t")]
    inner = [ln for ln in lines if ln.strip() and ln[:1] in (" ", "\t")]
    return bool(margin) and any(not (LIST_MARK.match(ln.lstrip()) or ln.lstrip()[:2] in _BULLETS) for ln in inner)


_BULLETS = ("- ", "* ", "+ ", "• ")


def _marks(text: str, cores: Sequence[str]) -> int:
    """How many places in ``text`` the cores mark: cores whose first occurrences overlap
    (two runs of one unit, cut at other tokens) mark one."""
    spans = sorted((k, k + len(c)) for c in cores if (k := text.find(c)) >= 0)
    count, end = 0, -1
    for a, b in spans:
        if a >= end:
            count += 1
        end = max(end, b)
    return count


def _code_units(text: str, lo: int, hi: int) -> tuple[int, int]:
    """The paragraphs ``text[lo:hi]`` widened over the indented paragraphs that go on with
    the last one, and narrowed by the code fence lines glued to the first and last (they
    stay in place while the units move)."""
    while text.startswith("\n\n", hi) and text[hi + 2:hi + 3] in (" ", "\t"):
        nxt = text.find("\n\n", hi + 2)
        hi = len(text) if nxt < 0 else nxt
    # A fence that opens in the first paragraph (behind its lead-in line): the units are the
    # code's, up to the fence that closes it.
    para = text.find("\n\n", lo, hi)
    opener = _FENCE_LINE.search(text, lo, hi if para < 0 else para)
    if opener is not None:
        lo = opener.end()
        closer = _FENCE_LINE.search(text, lo, hi)
        if closer is not None:
            return lo, closer.start()
    fence = text.rfind("\n```", lo, hi)
    if fence >= 0 and "\n" not in text[fence + 1:hi]:
        hi = fence
    return lo, hi


_FENCE_LINE = re.compile(r"(?m)^```[\w+-]*\n")


# A list item: its marker (see ``spans.LIST_MARK``), kept in place while the items move.
_ITEM = re.compile(LIST_MARK.pattern + r"(.*)", re.DOTALL)


def _ordinal(marker: str) -> tuple[str, int]:
    """The kind and place of a list marker: digits by value, letters by the alphabet."""
    if marker.isdigit():
        return "digit", int(marker)
    return ("lower" if marker.islower() else "upper"), ord(marker.lower()) - ord("a")


def _enumerated(lines: list[str], holding: list[bool], rank: Callable[[str], int], by_text: bool) -> list[str] | None:
    """A numbered list (1., 2., ... in order) whose items are the units: the whole list
    sorted by the items' text and numbered again. Numbers given after the shuffle agree
    in every request while the items do not, so sorting whole lines changes nothing."""
    marked = [k for k, h in enumerate(holding) if h]
    items = [_ITEM.fullmatch(line) for line in lines]
    first, last = marked[0], marked[-1]
    if any(items[k] is None for k in range(first, last + 1)):
        return None
    while first > 0 and items[first - 1] is not None:
        first -= 1
    while last + 1 < len(lines) and items[last + 1] is not None:
        last += 1
    run = [m for m in items[first:last + 1] if m is not None]
    places = [_ordinal(m.group(2)) for m in run]
    styles = {(m.group(1).strip(), m.group(3).strip()) for m in run}
    if len({kind for kind, _ in places}) != 1 or len(styles) != 1 or len(run) < 2 \
            or [n for _, n in places] != list(range(places[0][1], places[0][1] + len(run))):
        return None
    key: Callable[[re.Match[str]], Any] = ((lambda m: m.group(4)) if by_text else (lambda m: rank(m.group(4))))
    ordered = sorted(run, key=key)
    # Each place keeps its marker (numbered or lettered after the shuffle); the items move.
    renumbered = [f"{m.group(1)}{m.group(2)}{m.group(3)}{o.group(4)}" for m, o in zip(run, ordered)]
    return lines[:first] + renumbered + lines[last + 1:]


_BULLET = re.compile(r"(\s*)(?:[-*+]|\d{1,4}[.)])\s")


def _list_items(lines: list[str], holding: list[bool], rank: Callable[[str], int], by_text: bool) -> list[str] | None:
    """A list whose items run over several lines (a YAML sequence of mappings, a bullet
    with an indented continuation) and are the units: the whole list, item by item, in
    one order. Sorting its lines one by one would tear the items apart."""
    def indent(line: str) -> int:
        return len(line) - len(line.lstrip())

    marked = [k for k, h in enumerate(holding) if h]
    first = marked[0]
    while first > 0 and not _BULLET.match(lines[first]):
        first -= 1
    head = _BULLET.match(lines[first])
    if head is None:
        return None
    depth = len(head.group(1))
    # Back to the list's first item and on to its last line: items at this depth and the
    # lines indented under them.
    while first > 0 and (_starts_item(lines[first - 1], depth) or
                         (lines[first - 1].strip() and indent(lines[first - 1]) > depth)):
        first -= 1
    while not _starts_item(lines[first], depth):
        first += 1
    last = max(marked[-1], first)
    while last + 1 < len(lines) and (_starts_item(lines[last + 1], depth) or
                                     (lines[last + 1].strip() and indent(lines[last + 1]) > depth)):
        last += 1
    items: list[list[str]] = []
    for line in lines[first:last + 1]:
        if _starts_item(line, depth):
            items.append([line])
        elif items and line.strip() and indent(line) > depth:
            items[-1].append(line)
        else:
            return None
    if len(items) < 2 or all(len(item) == 1 for item in items):
        return None  # one-line items: the line sort does it
    text = ["\n".join(item) for item in items]
    ordered = sorted(text) if by_text else sorted(text, key=rank)
    return lines[:first] + "\n".join(ordered).split("\n") + lines[last + 1:]


def _starts_item(line: str, depth: int) -> bool:
    m = _BULLET.match(line)
    return m is not None and len(m.group(1)) == depth


def _labelled_line(text: str, where: list[int]) -> tuple[int, int, int]:
    """The line (or lines) from the first to the last of ``where``: its start and end in
    ``text``, and where its body starts within it (after a label such as "Tags: ")."""
    lo = text.rfind("\n", 0, where[0]) + 1
    hi = text.find("\n", where[-1])
    hi = len(text) if hi < 0 else hi
    label = _LABEL.match(text, lo, hi)
    return lo, hi, (label.end() - lo) if label else 0


def call_arguments_text(call: Any) -> str | None:
    """A tool call's arguments as JSON text, as the client sent them (a string, or an
    object dumped), or None."""
    fn = call.get("function") if isinstance(call, dict) else None
    args = fn.get("arguments") if isinstance(fn, dict) else None
    if isinstance(args, str):
        return args
    return json.dumps(args, ensure_ascii=False) if isinstance(args, dict) else None


def _call_arguments(call: Any) -> dict[str, Any] | None:
    """A tool call's arguments as an object (given as a JSON string or as one), or None."""
    fn = call.get("function") if isinstance(call, dict) else None
    args = fn.get("arguments") if isinstance(fn, dict) else None
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except ValueError:
            return None
    return args if isinstance(args, dict) else None


def _with_sorted_arguments(call: dict[str, Any], parsed: dict[str, Any]) -> dict[str, Any]:
    """``call`` with its arguments' keys sorted (recursively), in the form they came in."""
    ordered = _keys_sorted(parsed)
    if json.dumps(ordered) == json.dumps(parsed):
        return call
    fn = call["function"]
    new_args = json.dumps(ordered, ensure_ascii=False) if isinstance(fn.get("arguments"), str) else ordered
    return {**call, "function": {**fn, "arguments": new_args}}


def sort_call_arguments(req: Request) -> Request | None:
    """The request with the JSON arguments of every tool call in its history serialized
    with sorted keys (a client that builds them from an unordered map sends a new prefix
    each time)."""
    if req.kind != "messages" or not req.messages:
        return None
    messages = list(req.messages)
    for k, m in enumerate(messages):
        calls = m.get("tool_calls")
        if isinstance(calls, list):
            new_calls = [c if (p := _call_arguments(c)) is None else _with_sorted_arguments(c, p) for c in calls]
            if new_calls != calls:
                messages[k] = {**m, "tool_calls": new_calls}
    return dataclasses.replace(req, messages=tuple(messages)) if messages != list(req.messages) else None


def number_call_ids(req: Request) -> Request | None:
    """The request with its tool-call ids numbered in the order the calls come (the results'
    ``tool_call_id`` to match), each as long as the id it replaces and with its prefix: a
    client that draws a random id for a call it replays sends a new prefix each time, and
    chat templates print the id (Mistral's in the call and again in its result)."""
    if req.kind != "messages" or not req.messages:
        return None
    renamed: dict[str, str] = {}
    for m in req.messages:
        for call in m.get("tool_calls") or []:
            old = call.get("id") if isinstance(call, dict) else None
            if isinstance(old, str) and old and old not in renamed:
                cut = max(old.rfind("_"), old.rfind("-")) + 1
                width = max(1, len(old) - cut)
                renamed[old] = old[:cut] + str(len(renamed) + 1).zfill(width)[-width:]
    if not renamed or all(k == v for k, v in renamed.items()):
        return None
    messages = []
    for m in req.messages:
        calls = m.get("tool_calls")
        if calls:
            m = {**m, "tool_calls": [{**c, "id": renamed.get(str(c.get("id")), c.get("id"))} if isinstance(c, dict) else c
                                     for c in calls]}
        if isinstance(m.get("tool_call_id"), str) and m["tool_call_id"] in renamed:
            m = {**m, "tool_call_id": renamed[m["tool_call_id"]]}
        messages.append(m)
    return dataclasses.replace(req, messages=tuple(messages))


def _keys_sorted(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _keys_sorted(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_keys_sorted(v) for v in value]
    return value


def _dump_like(body: str, original: Any, items: Any) -> str | None:
    """``items`` serialized the way ``original`` was, when one of json's layouts gives back
    ``body`` exactly; also for a value nested inside a larger document (every line after
    its first indented as its closing line is)."""
    for kwargs in ({"indent": 2}, {"indent": 4}, {"separators": (",", ":")}, {}, {"indent": 1}, {"indent": "\t"}):
        for ascii_ in (False, True):
            if json.dumps(original, ensure_ascii=ascii_, **kwargs) == body:
                return json.dumps(items, ensure_ascii=ascii_, **kwargs)
    last = body.rfind("\n")
    base = body[last + 1:-1] if last >= 0 else ""
    if base and not base.strip() and f"\n{base}" in body:
        inner = _dump_like(body.replace("\n" + base, "\n"), original, items)
        if inner is not None:
            return inner.replace("\n", "\n" + base)
    return None


# --- a whole message of per-request content ahead of static messages ----------------------

_PREAMBLE_ROLES = ("system", "developer")
_LABEL = re.compile(r"[^.!?\n]{1,60}:\s+")
_SENTENCE_END = re.compile(r"(?<=[.!?])(\s+)(?=\S)")


@dataclasses.dataclass
class MessageMove:
    """The first message that is not one of the ``static`` contents (every request sends
    those), when static system messages follow it, goes after them: a retrieved context, a
    profile or a summary sent as its own message before the system prompt."""

    static: frozenset[str]
    # Trade places with the next system message whatever it holds (it may be static only
    # once the other fixes have run: its sections sorted, a clock moved out of it).
    any_next: bool = False

    def _is_static(self, m: dict[str, Any]) -> bool:
        return _static_preamble(m, self.static)

    def __call__(self, req: Request) -> Request | None:
        if req.kind != "messages" or not req.messages:
            return None
        messages = list(req.messages)
        for k, m in enumerate(messages[:-1]):
            if self._is_static(m):
                continue
            if self.any_next and m.get("role") not in _PREAMBLE_ROLES:
                return None
            j = k + 1
            if self.any_next:
                j += messages[j].get("role") in _PREAMBLE_ROLES
            while not self.any_next and j < len(messages) and self._is_static(messages[j]):
                j += 1
            if j == k + 1:
                return None
            moved = messages.pop(k)
            messages.insert(j - 1, moved)
            return dataclasses.replace(req, messages=tuple(messages))
        return None


@dataclasses.dataclass
class StaticHoist:
    """The static system messages that come after per-request messages (rules sent as a
    later system message, after a lookup the client ran first) go up, in their order, to
    right after the messages that open every request: behind the exchange they are never
    shared, ahead of it every request shares them."""

    static: frozenset[str]

    def __call__(self, req: Request) -> Request | None:
        if req.kind != "messages" or not req.messages:
            return None
        messages = list(req.messages)
        k = 0
        while k < len(messages) and _static_preamble(messages[k], self.static):
            k += 1
        late: list[dict[str, Any]] = []
        rest: list[dict[str, Any]] = []
        for m in messages[k:]:
            (late if _static_preamble(m, self.static) else rest).append(m)
        if not late:
            return None
        return dataclasses.replace(req, messages=tuple(messages[:k] + late + rest))


def _static_preamble(m: dict[str, Any], static: frozenset[str]) -> bool:
    content = m.get("content")
    return m.get("role") in _PREAMBLE_ROLES and isinstance(content, str) and content in static


def message_key(m: dict[str, Any]) -> str | None:
    """What makes a message the same in two requests: its text, and for a tool call step
    the calls it makes (their ids aside, which clients number per conversation)."""
    content = m.get("content")
    calls = m.get("tool_calls")
    if calls:
        made = [c.get("function") if isinstance(c, dict) else c for c in calls]
        return (content if isinstance(content, str) else "") + "\x00" + json.dumps(made, sort_keys=True, ensure_ascii=False)
    return content if isinstance(content, str) else None


def static_messages(requests: Sequence[Request | None], share: float = 0.5,
                    roles: tuple[str, ...] | None = _PREAMBLE_ROLES) -> frozenset[str]:
    """System message contents (any role's with ``roles`` None, tool call steps by their
    calls) that at least ``share`` of the message requests send."""
    # Content-part lists are not hashable and never compared: only text contents count.
    return _held_by_share(({k for m in r.messages if (roles is None or m.get("role") in roles)
                            and (k := (message_key(m) if roles is None else
                                       m["content"] if isinstance(m.get("content"), str) else None)) is not None}
                           for r in requests if r is not None and r.kind == "messages" and r.messages), share)


@dataclasses.dataclass
class TurnsMove:
    """Per-request turns (a retrieved example's question and answer) sent ahead of static
    turns (fixed few-shot pairs): the run of varying turns goes after the static ones, right
    before the newest user turn."""

    shared: frozenset[str]  # message contents (any role) most requests send
    # Turn bodies of prompts decoded from token ids (Llama 3 layout) most of them hold.
    shared_turns: frozenset[str] = frozenset()

    def __call__(self, req: Request) -> Request | None:
        if req.kind == "prompt" and req.prompt:
            return self._prompt(req, req.prompt)
        if req.kind != "messages" or not req.messages:
            return None
        messages = list(req.messages)
        # A tool call and the results answering it are one step: they move together.
        steps: list[list[dict[str, Any]]] = []
        for m in messages:
            if m.get("role") in ("tool", "ipython") and steps and steps[-1][0].get("tool_calls"):
                steps[-1].append(m)
            else:
                steps.append([m])
        run = _varying_run([(step[0].get("role"), all(message_key(m) in self.shared for m in step)) for step in steps])
        if run is None:
            return None
        k, j, last = run
        out = [m for step in steps[:k] + steps[j:last] + steps[k:j] + steps[last:] for m in step]
        return dataclasses.replace(req, messages=tuple(out))

    def _prompt(self, req: Request, text: str) -> Request | None:
        turns = list(_TURN.finditer(text))
        run = _varying_run([(t.group(2), t.group(3) in self.shared_turns) for t in turns])
        if run is None:
            return None
        k, j, last = run
        if any(turns[i].end() != turns[i + 1].start() for i in range(k, last)):
            return None
        piece = [text[t.start():t.end()] for t in turns]
        body = "".join(piece[j:last] + piece[k:j])
        return dataclasses.replace(req, prompt=text[:turns[k].start()] + body + text[turns[last].start():])


def _varying_run(turns: list[tuple[Any, bool]]) -> tuple[int, int, int] | None:
    """Of turns given as (role, static): the first run of varying turns other than system
    turns, ``[k, j)``, that static turns follow before the newest user turn ``last``."""
    last = max((i for i, (role, _) in enumerate(turns) if role == "user"), default=-1)
    k = next((i for i in range(max(0, last)) if turns[i][0] not in _PREAMBLE_ROLES and not turns[i][1]), None)
    if k is None:
        return None
    j = k
    while j < last and not turns[j][1]:
        j += 1
    return (k, j, last) if j < last else None


def _held_by_share(bags: Iterable[set[str]], share: float) -> frozenset[str]:
    """The texts at least ``share`` of the bags hold (two bags and two holders at least)."""
    counts: dict[str, int] = {}
    n = 0
    for bag in bags:
        n += 1
        for c in bag:
            counts[c] = counts.get(c, 0) + 1
    return frozenset(c for c, k in counts.items() if n >= 2 and k >= max(2, share * n))


def shared_turn_bodies(requests: Sequence[Request | None], share: float = 0.5) -> frozenset[str]:
    """Turn bodies (any role) that at least ``share`` of the decoded prompts hold."""
    return _held_by_share(({t.group(3) for t in _TURN.finditer(r.prompt)} for r in requests
                           if r is not None and r.kind == "prompt" and r.prompt
                           and "<|start_header_id|>" in r.prompt), share)


_TURN = re.compile(r"(<\|start_header_id\|>(\w+)<\|end_header_id\|>\n\n)(.*?)(<\|eot_id\|>)", re.DOTALL)


# --- static text at the edge of a message that varies -------------------------------------

EDGE_KEY = 200     # characters: texts that open (or close) alike are grouped by this many
MIN_EDGE = 400     # characters: a shorter shared head or tail is not worth a move of its own


def _edge_texts(texts: Sequence[tuple[int, str]], share: float, n: int, tail: bool) -> tuple[str, ...]:
    """Of ``(request, text)`` pairs: the paragraphs that open (``tail``: close) the texts of
    at least ``share`` of ``n`` requests alike, where those texts go on past them."""
    groups: dict[str, list[tuple[int, str]]] = {}
    for r, t in texts:
        t = t[::-1] if tail else t
        if len(t) >= MIN_EDGE:
            groups.setdefault(t[:EDGE_KEY], []).append((r, t))
    out = []
    for key in sorted(groups):
        group = groups[key]
        if len({r for r, _ in group}) < max(2, share * n):
            continue
        bodies = [t for _, t in group]
        lo, hi = min(bodies), max(bodies)
        common = len(os.path.commonprefix([lo, hi]))
        # To a paragraph break that every text has right after it (reversed: before it).
        cut = lo.rfind("\n\n", 0, common)
        if cut < MIN_EDGE:
            continue
        edge = lo[:cut]
        out.append(edge[::-1] if tail else edge)
    return tuple(out)


def static_edges(requests: Sequence[Request | None], share: float = 0.5) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Static text at the edges of messages that vary: the paragraphs that open the message
    right after a system message (instructions a client sends at the head of the user turn,
    behind a per-request system message), and those that close the newest user turn
    (instructions appended behind the question), held alike by at least ``share`` of the
    message requests."""
    heads: list[tuple[int, str]] = []
    tails: list[tuple[int, str]] = []
    n = 0
    for r, req in enumerate(requests):
        if req is None or req.kind != "messages" or not req.messages:
            continue
        n += 1
        msgs = req.messages
        for a, b in zip(msgs, msgs[1:]):
            if a.get("role") in _PREAMBLE_ROLES and b.get("role") == "user" and isinstance(b.get("content"), str):
                heads.append((r, b["content"]))
                break
        last = msgs[-1]
        if last.get("role") == "user" and isinstance(last.get("content"), str):
            tails.append((r, last["content"]))
    return _edge_texts(heads, share, n, False), _edge_texts(tails, share, n, True)


@dataclasses.dataclass
class HeadSwap:
    """A per-request system message (a manifest, a profile) ahead of the message whose text
    opens with the static instructions: the instructions become the system message and the
    per-request text opens the next message after them. The roles stay where they were, so
    a layout that demands alternating turns (Gemma's, which prints the system text at the
    head of the first user turn) still renders."""

    heads: tuple[str, ...]
    static: frozenset[str] = frozenset()

    def __call__(self, req: Request) -> Request | None:
        if req.kind != "messages" or not req.messages:
            return None
        messages = [dict(m) for m in req.messages]
        for k, m in enumerate(messages[:-1]):
            if _static_preamble(m, self.static):
                continue
            mine, nxt = m.get("content"), messages[k + 1].get("content")
            # (Into a user turn only: the per-request text is never put in the model's mouth.)
            if m.get("role") not in _PREAMBLE_ROLES or messages[k + 1].get("role") != "user" \
                    or not isinstance(mine, str) or not isinstance(nxt, str):
                return None
            head = max((h for h in self.heads if nxt.startswith(h + "\n\n")), key=len, default=None)
            if head is None:
                return None
            m["content"] = head
            messages[k + 1]["content"] = mine + "\n\n" + nxt[len(head) + 2:]
            return dataclasses.replace(req, messages=tuple(messages))
        return None


@dataclasses.dataclass
class TailLift:
    """Static instructions that close the newest user turn (appended behind the question,
    so at the next turn they are gone from the history and come back later): sent as the
    opening of the system message instead, ahead of everything a conversation adds."""

    tails: tuple[str, ...]

    def __call__(self, req: Request) -> Request | None:
        if req.kind != "messages" or not req.messages or req.messages[-1].get("role") != "user":
            return None
        messages = [dict(m) for m in req.messages]
        text = messages[-1].get("content")
        if not isinstance(text, str):
            return None
        tail = max((t for t in self.tails if text.endswith("\n\n" + t)), key=len, default=None)
        if tail is None or not text[:-len(tail) - 2].strip():
            return None  # (the turn would be left empty)
        messages[-1]["content"] = text[:-len(tail) - 2]
        first = messages[0]
        if first.get("role") in _PREAMBLE_ROLES and isinstance(first.get("content"), str):
            first["content"] = tail + "\n\n" + first["content"]
        elif first.get("role") in _PREAMBLE_ROLES:
            return None
        else:
            messages.insert(0, {"role": "system", "content": tail})
        return dataclasses.replace(req, messages=tuple(messages))


@dataclasses.dataclass
class MessageToLastUser:
    """The first system message that is not one of the ``static`` contents (a manifest, a
    profile, retrieved text a client sends as the system message) goes to the end of the
    newest user turn, where per-request content belongs: what followed it (instructions at
    the head of the user turn, once the other fixes made them static) opens the prompt."""

    static: frozenset[str]

    def places(self, req: Request) -> tuple[int, int] | None:
        """The system message that moves and the newest user turn it goes to (None: none)."""
        if req.kind != "messages" or not req.messages:
            return None
        msgs = req.messages
        k = next((k for k, m in enumerate(msgs) if not _static_preamble(m, self.static)), None)
        last = max((j for j, m in enumerate(msgs) if m.get("role") == "user"), default=-1)
        if k is None or last <= k or msgs[k].get("role") not in _PREAMBLE_ROLES:
            return None
        text = msgs[k].get("content")
        return (k, last) if isinstance(text, str) and text.strip() else None

    def __call__(self, req: Request) -> Request | None:
        where = self.places(req)
        if where is None or req.messages is None:
            return None
        k, last = where
        messages = [dict(m) for m in req.messages]
        messages[last]["content"] = _append(messages[last].get("content"), messages[k]["content"])
        del messages[k]
        return dataclasses.replace(req, messages=tuple(messages))


def varying_preamble(requests: Sequence[Request | None], static: frozenset[str]) -> bool:
    """Whether some message request sends a system message that is not one of the
    ``static`` contents ahead of a user turn (what ``MessageToLastUser`` moves)."""
    probe = MessageToLastUser(static)
    return any(r is not None and probe.places(r) is not None for r in requests)
