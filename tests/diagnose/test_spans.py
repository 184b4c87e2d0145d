"""The span classifier: kinds of varying values, whole-value expansion, differing range."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.diagnose.spans import KINDS, classify, compound_bounds, differing_range, expand


@pytest.mark.parametrize("value,kind", [
    ("2026-11-02 14:00:03.123 UTC", "datetime"),
    ("2026-11-02T14:00:03Z", "datetime"),
    ("2026-11-02T14:00:03+01:00", "datetime"),
    ("Mon, 2 Nov 2026 14:00:03 +0000", "datetime"),
    ("November 2, 2026 at 2:05 PM", "datetime"),
    ("14:05, 2 November 2026", "datetime"),
    ("2026-11-02", "date"),
    ("02/11/2026", "date"),
    ("Monday, 2 November 2026", "date"),
    ("14:05", "time"),
    ("2:05:59 pm", "time"),
    ("1764403200", "unix-timestamp"),
    ("1764403200123", "unix-timestamp"),
    ("550e8400-e29b-41d4-a716-446655440000", "uuid"),
    ("9f86d081884c7d65", "hex-id"),
    ("0x7ffd5e8c", "hex-id"),
    ("42", "number"),
    ("3,400.50", "number"),
    ("-7", "number"),
    ("INV-4821", "number"),
    ("marta@brightwater.example", "email"),
    ("https://files.example/u/550e8400-e29b-41d4-a716-446655440000.pdf?sig=9f86d081884c7d65&exp=900", "url"),
    ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZ2VudC0xIn0.Qm9vay1vZi1zaWdu", "jwt"),
    ("Marta Kowalski", "name-or-text"),
    ("Growth plan, billed monthly", "name-or-text"),
    ("", "name-or-text"),
])
def test_classify(value: str, kind: str) -> None:
    assert classify(value) == kind
    # Surrounding quotes and punctuation do not change the kind.
    assert classify(f' "{value}". ') == kind


def test_every_kind_is_named() -> None:
    assert set(KINDS) == {"url", "jwt", "datetime", "date", "time", "unix-timestamp", "uuid", "hex-id", "number",
                          "email", "name-or-text"}


@settings(max_examples=200, deadline=None)
@given(st.datetimes(min_value=dt.datetime(2001, 1, 1), max_value=dt.datetime(2099, 12, 31)),
       st.sampled_from(["%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S", "%d %B %Y %H:%M", "%a, %d %b %Y %H:%M:%S",
                        "%B %d, %Y %H:%M"]))
def test_generated_datetimes(moment: dt.datetime, fmt: str) -> None:
    assert classify(moment.strftime(fmt)) == "datetime"
    assert classify(moment.strftime("%Y-%m-%d")) == "date"


@settings(max_examples=100, deadline=None)
@given(st.uuids())
def test_generated_uuids(value: uuid.UUID) -> None:
    assert classify(str(value)) == "uuid"


@settings(max_examples=100, deadline=None)
@given(st.integers(1_000_000_000, 1_999_999_999))
def test_generated_unix_times(seconds: int) -> None:
    assert classify(str(seconds)) == "unix-timestamp"
    assert classify(str(seconds * 1000)) == "unix-timestamp"


def test_expand_to_whole_timestamp() -> None:
    text = "Current date and time: 2026-11-02 14:00:03.123 UTC\n\nYou are"
    # Two clock readings differ only in the seconds: the value is still the whole reading.
    at = text.index("03.1")
    start, end = expand(text, at, at + 2)
    assert text[start:end] == "2026-11-02 14:00:03.123 UTC"


def test_expand_free_text_back_to_label() -> None:
    text = "Customer profile:\nName: Marta Kowalski\nPlan: Growth"
    at = text.index("Kow")
    start, end = expand(text, at, at + 3)
    assert text[start:end] == "Marta Kowalski"


def test_differing_range_skips_common_head_and_tail() -> None:
    left = "time: "
    a, b = differing_range(left, "14:00:03 UTC", "14:07:59 UTC")
    assert (left + "14:00:03 UTC")[a:b] == "0:03"


def test_a_range_across_two_values_takes_each_value_whole():
    from advisor.diagnose.spans import expand

    text = "Content-Type: application/json\nDate: Mon, 30 Nov 2026 00:00:57 GMT\nX-RateLimit-Remaining: 4991\n\n{"
    a, b = text.index("57 GMT"), text.index("4991") + 4
    va, vb = expand(text, a, b)
    assert text[va:vb] == "Mon, 30 Nov 2026 00:00:57 GMT\nX-RateLimit-Remaining: 4991"


@pytest.mark.parametrize("text,piece,whole", [
    # A value inside a link is the link: carrying a piece of it breaks the URL.
    ("Evidence: https://ev.example/up/7f3a.pdf?X-Date=20261201T0000Z&Sig=ab12 then more.", "7f3a",
     "https://ev.example/up/7f3a.pdf?X-Date=20261201T0000Z&Sig=ab12"),
    ("token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln.", "eyJzdWIiOiIxIn0", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln"),
    ("set session=ab12cd; and go", "ab12cd", "session=ab12cd"),
    # Not glued to a compound token: unchanged.
    ("Name: Marta Kowalski\n", "Marta", "Marta"),
    # Quotes, brackets and commas end a token (compact JSON keeps its members apart).
    ('{"id":"4821","plan":"gold"}', "4821", "4821"),
    ('{"dark_mode":false,"beta":true}', "false", "false"),
    ("(ref 4821), next", "4821", "4821"),
    # ... and so do the escapes of JSON printed inside a JSON string.
    ('{\\"ts\\": \\"2026-11-30T00:01:26Z\\"}', "2026-11-30T00:01:26Z", "2026-11-30T00:01:26Z"),
    # CJK prose has no spaces: non-ASCII ends a token.
    ("今天是2026年12月1日，请回答", "2026", "2026"),
])
def test_compound_bounds(text: str, piece: str, whole: str) -> None:
    a = text.index(piece)
    lo, hi = compound_bounds(text, a, a + len(piece))
    assert text[lo:hi] == whole
