"""A value whose decoded token windows cut a multi-byte character (U+FFFD where the cut
is) must be read as the text it is part of: found in the messages and moved, never taken
for a value the chat template renders (a pin action that cannot help)."""

from __future__ import annotations

from advisor.diagnose.detect import Attribution, Diagnosis, Finding
from advisor.prescribe.actions import plans_for

CUT = "\ufffd"


def _diagnosis(example: str, before: str, after: str, examples: list[str]) -> Diagnosis:
    finding = Finding(code="TR101", token_offset=71, kind="name-or-text", requests=40, tokens_lost=9000,
                      example=example, message="", details={"examples": examples, "context_before": before,
                                                            "context_after": after})
    return Diagnosis(40, 20000, 9000, [finding], Attribution(20000, 9000, 9000, 0, 2000), [], [])


def _kinds(requests: list[list[str]], diagnosis: Diagnosis) -> list[str]:
    blob = "\x00".join(t for r in requests for t in r)
    return [p.kind for p in plans_for(diagnosis, requests, holds=lambda text: text in blob)]


def test_a_value_cut_inside_an_emoji_is_moved_not_pinned() -> None:
    rules = "Rules: answer in two sentences and cite the runbook."
    requests = [[f"You are the on-call helper.\n\nService status: checkout {s} \u00b7 search \U0001F7E2\n\n{rules}", "Why?"]
                for s in ("\U0001F7E2", "\U0001F7E1", "\U0001F534", "\U0001F7E1")]
    # The windows end inside the emoji's four bytes: each side holds a cut mark.
    diagnosis = _diagnosis(f"checkout {CUT}{CUT}", f"on-call helper.\n\nService status: {CUT}",
                           f"{CUT} \u00b7 search \U0001F7E2\n\n{rules}",
                           [f"checkout {CUT}{CUT}", f"checkout \U0001F7E2 \u00b7 search {CUT}{CUT}"])
    kinds = _kinds(requests, diagnosis)
    assert kinds and "pin-template-value" not in kinds, kinds


def test_a_value_in_no_message_is_still_pinned() -> None:
    # The other side of the rule: a value no request carries is the template's own.
    requests = [["You are the on-call helper.\n\nRules: answer in two sentences.", "Why?"]] * 4
    diagnosis = _diagnosis(f"Today is Mon{CUT}", "You are the on-call helper.", "\n\nRules: answer",
                           [f"Today is Mon{CUT}", "Today is Tuesday"])
    assert _kinds(requests, diagnosis) == ["pin-template-value"]
