"""Taint: why a piece of a template's output can differ between requests.

Every value the walker follows (advisor.lint.dataflow) carries a taint: its kind, ranked so
that the strongest reason wins when expressions combine, the reason in words for messages,
and where the value was produced. The name tables say which calls and names read the clock
or a random source.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable


# Ranks order the kinds; the strongest reason wins when expressions combine. The first four
# are steady: they do not make two requests of one application render different text.
# - STRUCTURE is a chat template's conversation structure: the number of messages, the roles,
#   the position of a turn (``loop.first``, ``loop.last``, ``loop.index``), which message a
#   message is. A branch on it chooses the layout, the same for every request of one application.
# - PAYLOAD is the conversation a chat template is given (``messages``) and the application's
#   inputs that come with it (the system message, documents): the caller's own text, which the
#   requests of one conversation share, so it is not dynamic content.
# - KWARG is a caller kwarg with a constant default: it only varies if the serving stack passes
#   it; a caller kwarg a chat template only branches on is a switch of the same kind.
# The rest vary: REQUEST (per-request data, the last turn of a conversation), DATE, CLOCK, RANDOM.
STATIC, STRUCTURE, PAYLOAD, KWARG = "static", "structure", "payload", "kwarg"
REQUEST, DATE, CLOCK, RANDOM = "request", "date", "clock", "random"
_RANK = {STATIC: 0, STRUCTURE: 1, PAYLOAD: 2, KWARG: 3, REQUEST: 4, DATE: 5, CLOCK: 6, RANDOM: 7}
_STEADY = frozenset({STATIC, STRUCTURE, PAYLOAD, KWARG})
# What a conversation value is (Taint.shape): the list of messages, or one message of it.
MESSAGES, MESSAGE = "messages", "message"


@dataclass(frozen=True)
class Taint:
    kind: str = STATIC
    reason: str = ""
    line: int = 0  # where the value was produced
    file: str = ""  # set when it was produced in an included or imported file
    kwarg: str = ""  # the caller kwarg that would pin it (chat_template_kwargs)
    via: str = ""  # how it reached the render: "macro argument `x`", "namespace attribute `ns.y`"
    # In a chat template, what the value is in the conversation: MESSAGES (the list of messages
    # or a slice or selection of it), MESSAGE (one message), "" (anything else). Indexing,
    # attributes and filters follow it (advisor.lint.conversation).
    shape: str = ""

    @property
    def rank(self) -> int:
        return _RANK[self.kind]

    @property
    def volatile(self) -> bool:
        return self.kind not in _STEADY

    def origin(self) -> str:
        """Where the value was produced, for messages: "line 3", "line 2 of partials/a.j2"."""
        if not self.line:
            return ""
        return f"line {self.line} of {self.file}" if self.file else f"line {self.line}"

    @property
    def timed(self) -> bool:
        """Clock, date and random values change without any request data changing."""
        return self.kind in (DATE, CLOCK, RANDOM)


CONSTANT = Taint()


def strongest(taints: Iterable[Taint]) -> Taint:
    best = CONSTANT
    for t in taints:
        if t.rank > best.rank:
            best = t
    return best


# Names and calls that read the wall clock or a random source. HF chat templates get
# ``strftime_now``; hand-written prompt code tends to pass ``now``/``today`` in.
CLOCK_CALLS = frozenset({"now", "utcnow", "strftime_now", "time", "datetime", "timestamp", "today", "date"})
RANDOM_CALLS = frozenset({"random", "randint", "randrange", "uuid", "uuid1", "uuid4", "token_hex", "shuffle", "choice", "lipsum"})
RANDOM_FILTERS = frozenset({"random", "shuffle"})
CLOCK_NAMES = frozenset({"now", "current_time", "current_datetime", "datetime", "timestamp", "time_now", "utc_now", "now_iso"})
DATE_NAMES = frozenset({"today", "current_date", "date", "date_string", "todays_date", "today_date"})
RANDOM_NAMES = frozenset({"uuid", "nonce", "random_seed", "request_id", "trace_id"})
# Jinja builtins that are functions, not data.
BUILTIN_NAMES = frozenset(
    {"range", "dict", "namespace", "cycler", "joiner", "true", "false", "none", "True", "False", "None", "raise_exception", "loop",
     "caller"}
)
# strftime directives that only change once a day (or less often).
_TIME_DIRECTIVES = re.compile(r"%[-_0^#]?[HIMSfpXcsTRrklzZ]")


def date_only(fmt: str) -> bool:
    return "%" in fmt and not _TIME_DIRECTIVES.search(fmt)
