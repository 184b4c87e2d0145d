"""A value inside a unit that does not split: the run of it where its copies differ.

A parameter's description "Employee number; leave empty for the signed-in employee
(E-304214)." is one sentence, so no unit of it is static, yet every request sends the same
sentence but for the number. Such a unit's copies in other requests (its *family*: the units
of its kind that open or close as it does) are aligned with it: what they share at its start
and at its end is its frame, and the run between is its slot, the value. The frame is cut at
the ends of the value's word (an id keeps its dashes and dots whole), and a value that fills
a pair of brackets takes them with it. The frame is the fixed text only where most sessions
send a unit of that frame; that judgement is the caller's (it holds the counts).
"""

from __future__ import annotations

import os
from collections.abc import Iterable

# A unit's copies are found among the units that share this many characters at its start
# or at its end.
EDGE = 12
# A copy is of the same family where the frame it shares with the unit is at least this
# share of both (a value, not a different sentence that opens the same way), and the frame
# all copies share is this share of the unit at least (a sentence with two values far apart,
# "Walk-ins at desk 3 go to Bram Lutz.", moves whole: its frame would be no sentence).
FRAME_SHARE = 2 / 3
# Copies aligned per unit at most (the first the log sent): the frame is what they share.
SAMPLE = 32

# Characters that join a value's word ("E-304214", "v2.1", "a@b.org"): a slot never ends
# inside such a run.
_JOINERS = frozenset("-_./:@#+")
_OPEN = {"(": ")", "[": "]", "{": "}", '"': '"', "'": "'", "\u201c": "\u201d", "<": ">"}


def _word(char: str) -> bool:
    return char.isalnum() or char in _JOINERS


def _stop(text: str, k: int) -> bool:
    """Whether ``text[k]`` ends a sentence (a full stop at the end or before a space): the
    frame's, not the value's."""
    return text[k] in ".!?" and (k + 1 == len(text) or text[k + 1].isspace())


def _inside(text: str, k: int) -> bool:
    """Whether ``k`` falls inside a word of ``text`` (a full stop that ends a sentence ends
    the word before it)."""
    return (0 < k < len(text) and _word(text[k - 1]) and _word(text[k]) and not _stop(text, k - 1)
            and not _stop(text, k))


def _common_tail(a: str, b: str, limit: int) -> int:
    n = 0
    while n < limit and a[-1 - n] == b[-1 - n]:
        n += 1
    return n


def align(text: str, copies: Iterable[str]) -> tuple[int, int] | None:
    """(start, end) of the slot in ``text``: the run between what every copy of its family
    shares with it at its start and at its end, widened to whole words; None where no copy
    is of its family or nothing is left of the frame."""
    head = tail = -1
    for other in copies:
        if other == text:
            continue
        a = len(os.path.commonprefix([text, other]))
        b = _common_tail(text, other, min(len(text), len(other)) - a)
        # (Where the run shared at either end stops inside a word of either copy, the word
        # is the value's: "desk 0" and "desk 10" share the "0", which is no frame.)
        while a > 0 and any(_inside(t, a) for t in (text, other)):
            a -= 1
        while b > 0 and any(_inside(t, len(t) - b) for t in (text, other)):
            b -= 1
        if a + b < FRAME_SHARE * max(len(text), len(other)):
            continue
        head = a if head < 0 else min(head, a)
        tail = b if tail < 0 else min(tail, b)
    if head < 0:
        return None
    start, end = head, len(text) - tail
    while start > 0 and _word(text[start - 1]) and (start == len(text) or _word(text[start])):
        start -= 1
    while end < len(text) and _word(text[end]) and end > 0 and _word(text[end - 1]) and not _stop(text, end):
        end += 1
    if start > 0 and end < len(text) and _OPEN.get(text[start - 1]) == text[end]:
        start, end = start - 1, end + 1  # "(E-304214)": the brackets go with what they hold
        while start > 0 and text[start - 1] in " \t":
            start -= 1
    if 0 < start < end and text[start - 1] == " " and (end == len(text) or text[end] in ".,;:!?"):
        start -= 1  # ("employee E-304214." leaves "employee.", not "employee .")
    if end <= start or start + len(text) - end < FRAME_SHARE * len(text):
        return None
    return start, end
