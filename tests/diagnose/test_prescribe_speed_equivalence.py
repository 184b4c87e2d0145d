"""What makes ``advisor prescribe`` fast changes no figure.

The Measurer keeps what each fix made of each request, and the ids of each rewritten
request, to answer the search's repeated rewrites: the same prescription comes out with
that memo off (a budget of nothing). The canonical key's whitespace collapse, done with
``str.split``, is the regex it replaced.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import advisor.prescribe.actions as actions
from advisor.api import prescribe

TRAFFIC = Path(__file__).resolve().parents[2] / "templates" / "traffic" / "rag_templated.jsonl"


def test_the_memo_changes_no_figure(monkeypatch: pytest.MonkeyPatch) -> None:
    kept = prescribe(TRAFFIC).data
    monkeypatch.setattr(actions, "MEMO_BUDGET", 0)
    assert prescribe(TRAFFIC).data == kept


@pytest.mark.parametrize("text", ["", " \t\n ", "a  b\u00a0c\u2003d\x1c e\u3000", " {\"b\": 1,\n \"a\": [2]} ",
                                  "line\r\nnext\x85line\u2028end"])
def test_whitespace_collapses_as_the_regex_did(text: str) -> None:
    spaces = re.compile(r"\s+")
    assert " ".join(text.split()) == spaces.sub(" ", text).strip()
