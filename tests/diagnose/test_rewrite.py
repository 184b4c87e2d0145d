"""Content blocks and the request rewrites that carry out each fix."""

from __future__ import annotations

import json

from advisor.diagnose import blocks as blk
from advisor.prescribe.rewrite import cut_span, sort_tools
from advisor.ingest.traffic import parse_record

SECTION_A = "## Alpha\n\nAlpha section text that is long enough to count as a block."
SECTION_B = "## Beta\n\nBeta section text that is long enough to count as a block.\n\nSecond paragraph of beta, also long."


def test_split_message_boundaries_headings_and_paragraphs() -> None:
    text = ("<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nIntro paragraph that is long enough.\n\n"
            f"{SECTION_A}\n\n{SECTION_B}<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nWhat is the question here?<|eot_id|>")
    labels = [blk.label(text, b) for b in blk.split(text)]
    # A heading is a block of its own, whatever its length; the order rule chains it to its text.
    assert labels == ["Intro paragraph that is long enough.", "Alpha", "Alpha section text that is long enough to count as a block.",
                      "Beta", "Beta section text that is long enough to count as a block.", "Second paragraph of beta, also long.",
                      "What is the question here?"]


def test_json_array_items_and_tool_objects_hash_alike() -> None:
    tools = [{"type": "function", "function": {"name": n, "description": f"tool {n} does things"}} for n in "abc"]
    fenced = "```json\n" + json.dumps(tools, indent=2) + "\n```"
    items = blk.split(fenced)
    assert [b.item for b in items] == [0, 1, 2]
    # The same tool rendered alone (Llama 3.1 style, indent 4) has the same hash.
    alone = blk.split(json.dumps(tools[1], indent=4))
    assert alone[0].hash == items[1].hash
    assert blk.label(json.dumps(tools[1], indent=4), alone[0]) == "tool b"


def test_cut_span_moves_the_line_up_to_the_static_text() -> None:
    text = "Current date and time: 2026-11-02 14:00:01 UTC\n\nYou are Juniper.\n\nMore rules."
    assert cut_span(text, "Current date and time: ", "You are Juniper") == (
        "You are Juniper.\n\nMore rules.", "Current date and time: 2026-11-02 14:00:01 UTC")
    assert cut_span(text, "Not there: ", "You are") is None


def test_sort_tools_by_name() -> None:
    tools = [{"type": "function", "function": {"name": n}} for n in ("b", "c", "a")]
    req = parse_record({"tools": tools, "messages": [{"role": "user", "content": "hi"}]}, "t", 1)
    out = sort_tools(req)
    assert [t["function"]["name"] for t in out.tools] == ["a", "b", "c"]
    assert sort_tools(out) is None
