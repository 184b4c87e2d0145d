"""The canonical order's finer units: a line's sentences, a tool description's varying part,
a conversation's opening, a reading restamped into the history, a JSON array's items. Each
keeps every word the request sent, and each shape comes out in one form across requests."""

from __future__ import annotations

import json
import unicodedata
from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.diagnose.brackets import balanced
from advisor.ingest.traffic import Request
from advisor.prescribe.canonical import KEPT, LAST_USER, canonical_fixes, split_text
from tests.diagnose.test_canonical import apply, requests

RULES = ["Refunds take five days.", "Vouchers never expire.", "Quote the order number.", "Answer in German."]
TOOLS = ["lookup_order", "refund_payment", "track_parcel"]


def variant(reqs: list[Request | None], to: str) -> list[Request]:
    """The requests through the canonical-order variant that puts what varies at ``to``."""
    return apply(next(k for k, (_, _, d) in enumerate(canonical_fixes(reqs, "")) if d == {"to": to}), reqs)


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    return [s for item in items for s in _strings(item)]


def words(req: Request) -> Counter[str]:
    """Every word the request sends, wherever it is (a message, a tool's strings, a JSON
    array inside a message), whatever its order."""
    texts = [req.prompt or ""] + [s for t in req.tools or () for s in _strings(t)]
    for m in req.messages or ():
        c = m.get("content")
        texts += [c] if isinstance(c, str) else [p.get("text", "") for p in c or ()]
    out: Counter[str] = Counter()
    for text in texts:
        for w in unicodedata.normalize("NFC", text).split():
            out[w.strip('",[]{}:')] += 1
    return out


def _tool(name: str, description: str) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "description": description,
                                             "parameters": {"type": "object", "properties": {}}}}


@st.composite
def traffic(draw: Any) -> list[dict[str, Any]]:
    """Requests whose tools may carry a value of their own at the end of a description,
    whose opening may put a note ahead of the system message, whose system line may hold a
    sentence of its own, and whose tool result lists the same items in varying orders."""
    records = []
    for k in range(draw(st.integers(2, 7))):
        system = " ".join(RULES[:2]) + (f" Today is day {k}." if draw(st.booleans()) else "") + " " + " ".join(RULES[2:])
        tools = [_tool(n, f"{n.replace('_', ' ').capitalize()}: {RULES[j % 4]}"
                      + (f" Session: s{k}x{j}." if draw(st.booleans()) else "")) for j, n in enumerate(TOOLS)]
        items = draw(st.permutations(["alpha", "beta", "gamma", "delta"]))
        messages: list[dict[str, Any]] = [{"role": "system", "content": system}]
        if draw(st.booleans()):
            messages.insert(0, {"role": "user", "content": f"Note {k}: customer tier {k % 3}."})
        messages += [{"role": "user", "content": f"Question {k}?"},
                     {"role": "assistant", "content": None,
                      "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "lookup_order", "arguments": "{}"}}]},
                     {"role": "tool", "tool_call_id": "c1", "content": json.dumps({"order": "fixed", "items": list(items)})},
                     {"role": "user", "content": f"And then {k}?"}]
        records.append({"messages": messages, "tools": tools})
    return records


@settings(max_examples=40, deadline=None)
@given(traffic(), st.sampled_from([KEPT, LAST_USER]))
def test_every_word_is_kept_and_the_fix_is_idempotent(records: list[dict[str, Any]], to: str) -> None:
    reqs = requests(records)
    out = variant(reqs, to)
    for before, after in zip(reqs, out):
        assert before is not None
        assert words(after) == words(before)
        assert Counter(m.get("role") for m in after.messages or ()) == Counter(m.get("role") for m in before.messages or ())
    if to == KEPT:  # (the default variant is a fixed point; a placement variant is measured once)
        assert variant(list(out), to) == out


def test_a_value_at_the_end_of_a_tool_description_goes_to_the_last_user_turn() -> None:
    records = [{"tools": [_tool("refund", f"Refund payment: vouchers never expire. Session: {k}ab{k}."),
                          _tool("track", "Track parcel: quote the order number.")],
                "messages": [{"role": "system", "content": "You are the shop's assistant."},
                             {"role": "user", "content": f"Where is order {k}?"}]} for k in range(6)]
    out = variant(requests(records), LAST_USER)
    # The tools are one list, the same in every request; each value is in its own request's turn.
    assert len({json.dumps(r.tools) for r in out}) == 1
    assert "Session" not in json.dumps(out[0].tools)
    for k, r in enumerate(out):
        assert r.messages is not None and r.messages[-1]["content"].endswith(f"Session: {k}ab{k}.")


@given(st.lists(st.sampled_from(["Rule one.", 'Say "a. b" now.', "(see x. y)", "Day 3.", "Ok!", '{"k": "v. w"}']),
                min_size=1, max_size=5))
def test_a_line_splits_at_sentences_only_where_every_piece_closes_what_it_opens(sentences: list[str]) -> None:
    text = " ".join(sentences)
    split = split_text(text)
    if split is not None and split.kind == "sentence":
        assert split.join(list(split.units)) == text
        assert all(balanced(u) for u in split.units)


def test_a_static_system_message_goes_ahead_of_the_note_a_request_opens_with() -> None:
    records = [{"messages": [{"role": "user", "content": f"Hive {k} notes: queen seen on day {k}."},
                             {"role": "system", "content": "You are HiveHub. Answer plainly."},
                             {"role": "user", "content": f"Can I book the extractor on day {k}?"}]} for k in range(5)]
    for r in variant(requests(records), KEPT):
        assert r.messages is not None and r.messages[0]["role"] == "system"
        assert [m["role"] for m in r.messages[1:]] == ["user", "user"]


def test_a_reading_restamped_into_the_history_goes_to_the_newest_turn() -> None:
    system = {"role": "system", "content": "You log reef surveys. Quote the handbook."}
    records = []
    for session in range(3):
        questions = [f"Session {session} question {t}?" for t in range(3)]
        for t in range(3):
            messages: list[dict[str, Any]] = [system]
            for j in range(t + 1):
                # Every request stamps the first turn anew: the history is not as first sent.
                reading = f"Water {20 + session}.{t} C at 08:0{t}" if j == 0 else ""
                messages.append({"role": "user", "content": (reading + "\n\n" if reading else "") + questions[j]})
                if j < t:
                    messages.append({"role": "assistant", "content": f"Answer {j}."})
            records.append({"messages": messages})
    out = variant(requests(records), LAST_USER)
    for k in range(0, len(out), 3):
        # The session's later requests extend its first: the history holds no reading.
        first, second, third = out[k:k + 3]
        assert first.messages is not None and second.messages is not None and third.messages is not None
        assert second.messages[1]["content"] == third.messages[1]["content"] == records[k]["messages"][1]["content"].split("\n\n")[1]
        assert third.messages[-1]["content"].endswith(records[k + 2]["messages"][1]["content"].split("\n\n")[0])


def test_the_items_of_a_json_array_come_in_one_order() -> None:
    orders = [["b", "a", "c", "d"], ["d", "c", "b", "a"], ["a", "b", "c", "d"], ["c", "a", "d", "b"]]
    records = [{"messages": [{"role": "system", "content": "Sites:\n" + json.dumps({"site": "TB-04", "species": o}, indent=2)},
                             {"role": "user", "content": f"Question {k}?"}]} for k, o in enumerate(orders)]
    out = variant(requests(records), KEPT)
    assert len({r.messages[0]["content"] for r in out if r.messages}) == 1


def test_a_fenced_block_is_one_paragraph_even_with_a_blank_line_inside() -> None:
    text = "Intro line.\n\n```yaml\ntour:\n  name: x\n\nlegs:\n  - a\n```\n\nOutro line."
    split = split_text(text)
    assert split is not None and split.units == ("Intro line.", "```yaml\ntour:\n  name: x\n\nlegs:\n  - a\n```", "Outro line.")


def test_an_object_after_other_paragraphs_is_a_paragraph_not_the_whole_texts_members() -> None:
    text = "You are the helper.\n\nRules:\n- be brief\n\nConfig:\n{\n \"b\": 2,\n \"a\": 1\n}"
    split = split_text(text)
    assert split is not None and split.kind == "paragraph" and split.units[-1].startswith("Config:")


@given(st.randoms(use_true_random=False))
def test_a_line_of_prose_keeps_the_order_its_writer_gave_its_sentences(rng: Any) -> None:
    # Sentences drawn from one phrase book recur across requests (each in a few), but a line
    # of them is prose: only a line whose sentences are mostly static (a value in fixed text)
    # is cut into them. Twelve sentences, each request three in a row from a shuffled book.
    book = [f"Sentence {w} of the book." for w in ("one", "two", "three", "four", "five", "six", "seven",
                                                  "eight", "nine", "ten", "eleven", "twelve")]
    rng.shuffle(book)
    lines = [" ".join(book[(k + j) % 12] for j in (0, 2, 1)) for k in range(12)]
    records = [{"messages": [{"role": "system", "content": f"Summarise report {k}.\n\n{text}"},
                             {"role": "user", "content": f"Question {k}?"}]} for k, text in enumerate(lines)]
    for before, after in zip(records, variant(requests(records), KEPT)):
        # (Nor is the paragraph of prose taken for content drawn from a pool, put ahead of its label.)
        assert after.messages is not None and after.messages[0]["content"] == before["messages"][0]["content"]
    # The same sentences in every request, shuffled, are a line's layout: one order.
    shuffled = [{"messages": [{"role": "user", "content": " ".join(rng.sample(book[:3], 3)) + f"\n\nReport {k}."}]}
                for k in range(6)]
    assert len({r.messages[0]["content"].split("\n\n")[0] for r in variant(requests(shuffled), KEPT) if r.messages}) == 1


# ---------------------------------------------------------------- what must stay as sent


def test_positions_that_mean_something_stay_put() -> None:
    # A point's coordinates, a size: numbers whose places mean something, never units.
    records = [{"messages": [{"role": "user", "content": "Context:\n" + json.dumps(
        {"center": [10 + k, 52.5], "size": [1080, 1920] if k % 2 else [1920, 1080]}, indent=2) + f"\n\nWhere {k}?"}]}
        for k in range(6)]
    for before, after in zip(records, variant(requests(records), KEPT)):
        # (An object's members may come in another order: a key order is a spelling.)
        assert after.messages is not None
        values = [json.loads(m["content"].split("\n", 1)[1].rsplit("\n\n", 1)[0]) for m in (before["messages"][0], after.messages[0])]
        assert values[0] == values[1]


def test_abbreviations_quotes_and_mixed_breaks_are_no_sentence_ends() -> None:
    for line in ("Your doctor is Dr. Smith. Be polite. Answer briefly.", "Use e.g. tables. Be brief. Answer now.",
                 "He said \u201cStop. Now.\u201d Then left. Ok.", "A one. B two. \u4eca\u5929\u662f0\u53f7\u3002C three."):
        split = split_text(line)
        assert split is None or split.kind != "sentence", (line, split)


def test_a_few_shot_turn_sent_once_keeps_its_example() -> None:
    records = [{"messages": [{"role": "system", "content": "You are a sentiment classifier."},
                             {"role": "user", "content": f"Classify this review.\n\nExample review {k}: the soup was cold."},
                             {"role": "assistant", "content": "negative"},
                             {"role": "user", "content": f"Classify this review.\n\nReview {k}: loved the staff."}]}
               for k in range(6)]
    for before, after in zip(records, variant(requests(records), LAST_USER)):
        assert after.messages is not None and after.messages[1] == before["messages"][1]


def test_only_a_tools_descriptions_and_choices_are_cut_and_a_deep_schema_is_kept_whole() -> None:
    deep: dict[str, Any] = {"description": "Leaf. Session: x."}
    for _ in range(600):
        deep = {"a": deep}
    records = [{"tools": [{"type": "function", "function": {
        "name": "ship", "description": f"Ship an order. Quote its number. Session: {k}ab{k}.",
        "parameters": {"type": "object", "properties": {"method": {"type": "string", "description": "How.",
                                                                    "enum": ["Standard. Five days.", f"Express. Code {k}."]}},
                       "deep": deep}}}],
                "messages": [{"role": "user", "content": f"Ship order {k}."}]} for k in range(5)]
    for k, after in enumerate(variant(requests(records), LAST_USER)):
        assert after.tools is not None and after.messages is not None
        method = after.tools[0]["function"]["parameters"]["properties"]["method"]
        # An enum's choices are kept whole (never cut as prose); the one that varies leaves
        # the schema for the newest turn, named with its parameter, the fixed one stays.
        assert method["enum"] == ["Standard. Five days."]
        assert f'method (enum): ["Express. Code {k}."]' in after.messages[-1]["content"]
        assert f"Session: {k}ab{k}." in after.messages[-1]["content"]
        assert after.tools[0]["function"]["parameters"]["deep"] == deep


def test_system_and_developer_messages_keep_their_order() -> None:
    # harmony's layout prints the first message as the system prompt: a static developer
    # message is not moved ahead of a system message with today's date.
    records = [{"messages": [{"role": "system", "content": f"Knowledge cutoff: 2024-06\nCurrent date: 2025-01-0{k}"},
                             {"role": "developer", "content": "# Instructions\nBe brief."},
                             {"role": "user", "content": f"Question {k}?"}]} for k in range(1, 6)]
    for after in variant(requests(records), KEPT):
        assert after.messages is not None and [m["role"] for m in after.messages] == ["system", "developer", "user"]


def test_a_passage_under_its_own_label_keeps_its_sentences_in_order() -> None:
    # A passage opens with a label of its own ("[doc 7] ..."): a static sentence after it is
    # the passage's text, not a layout to put ahead of the label.
    shared = "The warehouse ships Monday to Friday."
    records = [{"messages": [{"role": "user", "content": f"Context:\n[doc {k}] Returns take {k} days. {shared}\n\nQ{k}?"}]}
               for k in range(8)]
    for before, after in zip(records, variant(requests(records), KEPT)):
        assert after.messages is not None
        assert f"[doc {before['messages'][0]['content'].split('[doc ')[1].split(']')[0]}] Returns" in after.messages[0]["content"]
        assert after.messages[0]["content"].index("[doc") < after.messages[0]["content"].index(shared)
