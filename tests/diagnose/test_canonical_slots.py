"""A value inside a unit that does not split (issue 33, item 3): found by aligning the unit
with its copies in other requests (``slots.align``), cut out where the unit must stay (a
tool's description, a system text of one sentence); a schema's instances that vary (an
enum's choice, a default) leave the tool; JSON documents one after another are units."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.prescribe.canonical import KEPT, LAST_USER, canonical_fixes, split_text
from advisor.prescribe.slots import FRAME_SHARE, align
from tests.diagnose.test_canonical import requests
from tests.diagnose.test_canonical_units import variant, words


def _letters(req: Any) -> Counter[str]:
    """The letters and digits a request sends (a value moves with its brackets, the full stop
    stays with the sentence: the words' punctuation changes, never a letter)."""
    return Counter(ch for word, n in words(req).items() for ch in word * n if ch.isalnum())

WORDS = ["leave", "empty", "for", "the", "signed-in", "employee", "number", "record", "of", "booking", "änderung",
         "出発", "code"]
# Values as clients stamp them: ids with dashes and dots, dates, codes, numbers.
VALUES = st.one_of(
    st.builds(lambda a, n: f"{a}-{n}", st.sampled_from(["E", "XMAS", "PNR", "lot"]), st.integers(10_000, 999_999)),
    st.builds(lambda d: f"2026-12-{d:02d}", st.integers(1, 28)),
    st.builds(lambda n, m: f"N{n}.{m:02d}", st.integers(1000, 9999), st.integers(1, 25)),
    st.integers(10, 10**9).map(str))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(WORDS), min_size=6, max_size=14), st.lists(st.sampled_from(WORDS), min_size=2,
                                                                            max_size=6),
       st.lists(VALUES, min_size=4, max_size=8, unique=True), st.sampled_from([" ", " (", ": "]))
def test_the_slot_is_the_value_whole_in_every_copy(head: list[str], tail: list[str], values: list[str],
                                                     opener: str) -> None:
    """Against a brute force: each copy's slot is exactly its value (whole words, the
    brackets that hold only it with them), and what is left is the same frame in all."""
    closer = ")" if opener == " (" else ""
    texts = [" ".join(head) + opener + value + closer + " " + " ".join(tail) + "." for value in values]
    frames = set()
    for text, value in zip(texts, values):
        span = align(text, texts)
        at = text.index(opener + value + closer)
        expected = (at, at + len(opener + value + closer)) if closer else (at + len(opener), at + len(opener) + len(value))
        assert span == expected, (text, span, expected)
        frames.add(text[:span[0]] + text[span[1]:])
    assert len(frames) == 1


def test_a_sentence_with_two_values_far_apart_has_no_slot() -> None:
    names = ["Bram Lutz", "Nell Aziz", "Đức Anh", "Ines Roth", "Kai Berg"]
    texts = [f"Walk-ins at desk {k} go to {name}." for k, name in enumerate(names)]
    assert all(align(text, texts) is None for text in texts)  # (its frame is not FRAME_SHARE of it)
    # Copies with the same name are a family of their own: the desk is their slot.
    twice = texts + [f"Walk-ins at desk {k + 10} go to {name}." for k, name in enumerate(names)]
    span = align(twice[0], twice)
    assert span is not None and twice[0][span[0]:span[1]] == "0"
    assert FRAME_SHARE > 0.5


def _tool(description: str, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    props: dict[str, Any] = {"employee_id": {"type": "string", "description": description}}
    props.update(extra or {})
    return {"type": "function", "function": {"name": "get_benefits", "description": "Return an employee's benefits.",
                                             "parameters": {"type": "object", "properties": props}}}


def test_a_value_inside_a_description_of_one_sentence_leaves_it() -> None:
    rng = random.Random(3)
    records = []
    for k in range(24):
        ident = f"E-{rng.randint(100_000, 999_999)}"
        records.append({"tools": [_tool(f"Employee number; leave empty for the signed-in employee ({ident}).")],
                        "messages": [{"role": "system", "content": "You help with benefits."},
                                     {"role": "user", "content": f"Question {k}?"}]})
    before = requests(records)
    after = variant(before, LAST_USER)
    assert len({json.dumps(r.tools) for r in after}) == 1  # every request sends the same tool
    tool = after[0].tools[0]  # type: ignore[index]
    assert tool["function"]["parameters"]["properties"]["employee_id"]["description"] == (
        "Employee number; leave empty for the signed-in employee.")
    for record, old, new in zip(records, before, after):
        ident = record["tools"][0]["function"]["parameters"]["properties"]["employee_id"]["description"][-10:-2]
        assert new.messages is not None and f"({ident})" in new.messages[-1]["content"]
        assert old is not None and _letters(new) == _letters(old)


def test_a_choice_and_a_default_of_the_request_leave_the_schema() -> None:
    records = []
    for k in range(30):
        extra = {"band": {"type": "string", "enum": ["standard", "member", "student", f"XMAS-{k}"]},
                 "pnr": {"type": "string", "default": f"PNR{k:04d}"}}
        records.append({"tools": [_tool("Employee number.", extra)],
                        "messages": [{"role": "user", "content": f"Question {k}?"}]})
    after = variant(requests(records), LAST_USER)
    props = [r.tools[0]["function"]["parameters"]["properties"] for r in after]  # type: ignore[index]
    assert all(p["band"]["enum"] == ["standard", "member", "student"] and "default" not in p["pnr"] for p in props)
    for k, r in enumerate(after):
        last = r.messages[-1]["content"]  # type: ignore[index]
        assert f'band (enum): ["XMAS-{k}"]' in last and f'pnr (default): "PNR{k:04d}"' in last
    # A fixed enum, a fixed default: the tool is kept as it is.
    fixed = [{"tools": [_tool("Employee number.", {"band": {"type": "string", "enum": ["a", "b"], "default": "a"}})],
              "messages": [{"role": "user", "content": f"Question {k}?"}]} for k in range(10)]
    assert all(r.tools == tuple(fixed[0]["tools"]) for r in variant(requests(fixed), LAST_USER))
    # A tool only some sessions send keeps the choices all of them send: they are the tool's.
    some = [{"tools": [_tool("Employee number.", {"unit": {"type": "string", "enum": ["celsius", "fahrenheit"],
                                                           "default": "celsius"}})] if k % 2 else [],
             "messages": [{"role": "user", "content": f"Question {k}?"}]} for k in range(10)]
    for fixes in canonical_fixes(requests(some), ""):
        assert all((fixes[1](r) or r).tools == r.tools for r in requests(some) if r is not None)
    # A const is a schema of one value (a branch of a oneOf): never cut.
    branches = [{"tools": [_tool("Employee number.", {"op": {"oneOf": [{"const": "open"}, {"const": f"c{k}"}]}})],
                 "messages": [{"role": "user", "content": f"Question {k}?"}]} for k in range(10)]
    assert all(r.tools == req.tools for r, req in zip(variant(requests(branches), LAST_USER), requests(branches)))


def test_json_documents_one_after_another_are_units() -> None:
    head = json.dumps({"lot_id": "NK1234.05", "wafers": 20}, separators=(",", ":"))
    body = json.dumps({"route": [{"step": 10, "op": "clean"}, {"step": 20, "op": "etch"}]}, indent=1)
    split = split_text(head + "\n" + body)
    assert split is not None and split.units == (head, body) and split.join(list(split.units)) == head + "\n" + body
    lines = "\n".join(json.dumps({"n": k}) for k in range(3))
    split = split_text(lines)
    assert split is not None and split.kind == "line" and len(split.units) == 3
    assert split_text(head + " " + body) is None or split_text(head + " " + body).units != (head, body)  # type: ignore[union-attr]


def test_a_signature_s_parameters_are_items_unless_a_bracket_or_a_marker_is_inside() -> None:
    split = split_text("def reserve(aos: str, antenna: str, los: str) -> List[Dict]:")
    assert split is not None and split.kind == "item" and split.units == ("aos: str", "antenna: str", "los: str")
    for line in ("def g(a: Dict[str, int], b: str, c: int)", "def g(a: int, *, b: int, c: int)",
                 'def g(a: str = "x, y", b: int, c: int)'):
        got = split_text(line)
        assert got is None or got.kind != "item", (line, got)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["Desk clock {}", "[sent {}]", "Stand: {}"]), st.booleans())
def test_a_value_on_a_line_over_fixed_text_leaves_its_paragraph_alone(seed: int, stamp: str, above: bool) -> None:
    """A value one request sends on a line of its own inside a paragraph of fixed text (a
    clock over the persona, joined by one newline): the order that keeps what varies in its
    message moves only the value behind the fixed text, the fixed line keeps its place ahead
    of the fixed sections (every request then shares them), and every word is still sent."""
    rng = random.Random(seed)
    persona = "You are the night-desk assistant of the observatory. Answer briefly."
    manual = "## Dome\nClose it above 85% humidity.\n\n## Frames\nTake flats at dusk."
    records = []
    for k in range(12):
        line = stamp.format(f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{k:02d}")
        head = f"{line}\n{persona}" if above else f"{persona}\n{line}"
        records.append({"messages": [{"role": "user", "content": f"{head}\n\n{manual}\n\nQuestion {k}: may I open?"}]})
    reqs = requests(records)
    for req, new in zip(reqs, variant(reqs, KEPT)):
        assert new.messages is not None
        sent = "\n\n".join(m["content"] for m in new.messages)
        assert sent.startswith(f"{persona}\n\n{manual}\n\n"), sent
        assert stamp.split("{}")[0] in sent[len(persona) + len(manual) + 4:], sent
        assert words(new) == words(req)


def _contents(reqs: list[Any], to: str) -> list[tuple[Any, Any]]:
    return list(zip(reqs, variant(reqs, to)))


@given(st.sampled_from([
    "You are the desk assistant. Be brief. The clock reads 22:{k:02d}.\nAnswer:",
    "Context:\nYou are the desk assistant. Be brief. The clock reads 22:{k:02d}.",
    "Desk clock 22:{k:02d}:14\nYou are the desk assistant.\nAnswer briefly.\n\n---\n\nQuestion {k}: may I open the dome?",
    "Desk clock 22:{k:02d}:14\nYou are the desk assistant.\n\n## Dome\nClose it when wet.\n\n---\n\n## Frames\nFlats at dusk.",
]), st.sampled_from(["system", "user"]), st.sampled_from([KEPT, LAST_USER]))
@settings(max_examples=30, deadline=None)
def test_a_value_cut_out_of_fixed_text_never_repeats_a_cue_a_label_or_a_rule(shape: str, role: str, to: str) -> None:
    """The value's row is parted from the rest as units of its kind are: the text's tail
    (a cue), the label it opens with and a rule between sections are written once, and
    every word is still sent (a rule is layout: it may go with the units it parted when
    they move out of a system message)."""
    records = [{"messages": [{"role": role, "content": shape.format(k=k)}]
                + ([{"role": "user", "content": f"Question {k}?"}] if role == "system" else [])} for k in range(12)]
    reqs = requests(records)
    for req, new in _contents(reqs, to):
        assert {w: n for w, n in words(new).items() if w != "---"} == {w: n for w, n in words(req).items() if w != "---"}
        sent = "\n".join(m["content"] for m in new.messages)
        for mark in ("Answer:", "Context:"):
            assert sent.count(mark) == shape.count(mark), sent
        assert sent.count("---") <= shape.count("---"), sent


def test_a_list_with_an_image_keeps_its_order() -> None:
    """Labels, captions and instructions beside images keep their places: a text part may
    belong to the image before or after it ("Describe the image above.")."""
    records = []
    for k in range(12):
        image = {"type": "image_url", "image_url": {"url": f"https://x.example/{k}.jpg"}}
        example = {"type": "image_url", "image_url": {"url": "https://x.example/cat.jpg"}}
        records.append({"messages": [{"role": "user", "content": [
            {"type": "text", "text": "Example photo:"}, example, {"type": "text", "text": "Label: cat"},
            {"type": "text", "text": "Now this photo:"}, image, {"type": "text", "text": "Describe the image above."},
            {"type": "text", "text": f"Ticket {k}"}]}]})
    reqs = requests(records)
    for to in (KEPT, LAST_USER):
        for req, new in _contents(reqs, to):
            kinds = lambda m: [p.get("text", p["type"]) for p in m["content"]]  # noqa: E731
            assert kinds(new.messages[0]) == kinds(req.messages[0])
