"""Moves inside JSON a template prints: tool results through ``tojson``, tool definitions."""

from __future__ import annotations

import dataclasses
import json

from advisor.prescribe.moves import Anchor, _cut_json_member, _cut_tools, json_unescaped


def test_escapes_are_undone_piece_by_piece():
    # Pieces are cut anywhere in the printed string, so a piece need not parse as JSON.
    assert json_unescaped('"{\\"fetched_a') == '"{"fetched_a'
    assert json_unescaped("step 1.\\nstep 2") == "step 1.\nstep 2"
    assert json_unescaped("C:\\\\logs") == "C:\\logs"
    assert json_unescaped("no escapes here") is None


def test_a_member_that_is_the_span_leaves_valid_json_in_its_layout():
    for indent in (None, 2):
        doc = json.dumps({"fetched_at": "2026-11-30T00:00:06Z", "runbook": "1. Check the queue."}, indent=indent)
        anchor = Anchor('"fetched_at": "', '"', False, "")
        rest, moved = _cut_json_member(doc, anchor)
        assert json.loads(rest) == {"runbook": "1. Check the queue."}
        assert rest == json.dumps({"runbook": "1. Check the queue."}, indent=indent)
        assert moved == 'fetched_at: "2026-11-30T00:00:06Z"'


def test_a_value_inside_longer_text_is_not_a_member_move():
    doc = json.dumps({"note": "Fetched at 2026-11-30T00:00:06Z from the primary store, after the nightly sync ran."})
    assert _cut_json_member(doc, Anchor("Fetched at ", " from the primary", False, "")) is None
    assert _cut_json_member("not json {", Anchor("a", "b", False, "")) is None


def test_an_anchor_with_nothing_inside_one_string_matches_no_tool():
    # Left and right both end at a quote: reduced to the inside of one string they are
    # empty, and an empty anchor would cut the first string of any tool.
    tools = [{"type": "function", "function": {"name": "fetch_runbook", "description": "Fetch a runbook."}}]
    assert _cut_tools(tools, Anchor('{"fetched_at": "', '", "runbook"', False, "")) is None


# --- content parts, numbered lists, recurring anchors ---------------------------------------

from advisor.ingest.traffic import Request  # noqa: E402
from advisor.prescribe.moves import LAST_USER, SpanMove, UnitSort, _enumerated, locate  # noqa: E402


def _parts(*texts):
    return [{"type": "text", "text": t} for t in texts]


def _user_request(content):
    return Request(kind="messages", messages=({"role": "system", "content": "Static."},
                                               {"role": "user", "content": content}), line=1, source="t.jsonl")


def test_where_the_left_side_recurs_before_the_right():
    text = ("Rule: be kind and reply in writing: always.\nRule: be kind and reply in writing: briefly.\n"
            "Reading 17.2 C now.\nReference follows.")
    start, end = locate(text, Anchor("Rule: be kind and reply in writing:", " now.", False, ""))
    # A long left side stated twice: the span starts after its last copy.
    assert text[start:end] == " briefly.\nReading 17.2 C"
    # A short label that opens each unit (every passage's "[doc ") keeps its first copy.
    docs = "Passages:\n[doc 4] one.\n[doc 9] two.\n\nYou are the assistant."
    start, end = locate(docs, Anchor("[doc ", "\n\nYou are", False, ""))
    assert docs[start:end] == "4] one.\n[doc 9] two."


def test_a_content_part_that_is_the_span_moves_whole_and_its_neighbours_stay():
    content = _parts("How to read the figures:\n- rule one.", "Greenhouse 3 now: 21.5 C.", "Crop reference: ...", "Why?")
    anchor = Anchor("- rule one.", "Crop reference", False, "")  # the engine joins parts with ""
    new = SpanMove(anchor, LAST_USER)(_user_request(content))
    assert new is not None
    assert new.messages[1]["content"] == _parts("How to read the figures:\n- rule one.", "Crop reference: ...", "Why?",
                                                "Greenhouse 3 now: 21.5 C.")


def test_content_parts_in_another_order_are_sorted_as_parts():
    content = _parts("Reference 2: two.", "Reference 1: one.", "Reference 3: three.", "The question?")
    sort = UnitSort(["Reference 1: one", "Reference 2: two", "Reference 3: three"], "auto")
    sort.rank.update({"Reference 1: one.": 0, "Reference 2: two.": 1, "Reference 3: three.": 2})
    new = sort(_user_request(content))
    assert new is not None
    assert [p["text"] for p in new.messages[1]["content"]] == ["Reference 1: one.", "Reference 2: two.",
                                                               "Reference 3: three.", "The question?"]


def test_a_numbered_list_is_sorted_by_its_items_and_numbered_again():
    lines = ["House rules:", "1. Quote the reference.", "2. Be brief.", "3. Ask first.", "", "Tail."]
    holding = [False, True, False, True, False, False]
    out = _enumerated(lines, holding, lambda t: 0, by_text=True)
    assert out == ["House rules:", "1. Ask first.", "2. Be brief.", "3. Quote the reference.", "", "Tail."]
    # Numbers out of sequence are not a numbered list of units.
    assert _enumerated(["1. a", "3. b"], [True, True], lambda t: 0, by_text=True) is None


def test_the_nearest_earlier_copy_is_found_first():
    from advisor.ingest.ids import rfind_item
    from advisor.ingest.ids import ITEM, pack

    hay = pack([7, 1, 2, 9, 1, 2, 9, 5])
    needle = pack([1, 2])
    assert rfind_item(hay, needle, 0, len(hay)) == 4 * ITEM
    assert rfind_item(hay, needle, 0, 4 * ITEM + 1) == 1 * ITEM  # the copy must end by ``end``
    assert rfind_item(hay, pack([3]), 0, len(hay)) == -1
    # Only item-aligned hits: a match that straddles two ids is no copy.
    assert rfind_item(pack([0x0201, 0x0403]), bytes([2, 0, 0, 0, 3]), 0, 8) == -1


def test_list_items_of_several_lines_move_whole():
    from advisor.prescribe.moves import _list_items

    lines = ["escalation:", "- team: network", '  hours: "24/7"', "- team: billing", '  hours: "09:00"',
             "- team: field", '  hours: "08:00"', "```"]
    holding = [False, True, False, True, False, False, False, False]
    out = _list_items(lines, holding, lambda t: 0, by_text=True)
    assert out == ["escalation:", "- team: billing", '  hours: "09:00"', "- team: field", '  hours: "08:00"',
                   "- team: network", '  hours: "24/7"', "```"]
    # One-line items are left to the line sort.
    assert _list_items(["- b", "- a"], [True, True], lambda t: 0, by_text=True) is None


def test_a_yaml_sequence_is_sorted_by_items_through_cores_that_span_lines():
    # The cores run over an item's lines; the sort must keep each item whole.
    text = ("Contacts:\n```yaml\n- team: network\n  note: \"call\"\n- team: billing\n  note: \"mail\"\n```\n\nTail.")
    sort = UnitSort(['network\n  note: "call"', 'billing\n  note: "mail"'], "\n", by_text=True)
    assert sort.sort_text(text) == ("Contacts:\n```yaml\n- team: billing\n  note: \"mail\"\n- team: network\n"
                                    "  note: \"call\"\n```\n\nTail.")


def test_moved_text_goes_before_what_cues_the_answer():
    from advisor.prescribe.moves import _prompt_end

    chat = ("<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nRules.<|eot_id|>"
            "<|start_header_id|>user<|end_header_id|>\n\nQ?<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n")
    # Token ids decoded to text: the end of the last user turn, before its closing markup.
    assert chat[_prompt_end(chat):].startswith("<|eot_id|><|start_header_id|>assistant")
    assert chat[:_prompt_end(chat)].endswith("Q?")
    # The end of the message holding a position: its next markup.
    assert chat[_prompt_end(chat, chat.find("Rules")):].startswith("<|eot_id|><|start_header_id|>user")
    completion = "### Instructions\nBe brief.\n\nCustomer: Where is my order?\nAgent:"
    assert completion[_prompt_end(completion):] == "\nAgent:"
    assert _prompt_end("A plain prompt with no cue") == len("A plain prompt with no cue")


def _tool(name, props):
    return {"type": "function", "function": {"name": name, "description": f"Run {name}.",
                                             "parameters": {"type": "object", "properties": props}}}


def test_a_per_request_default_in_a_tool_parameter_moves_as_its_member():
    from advisor.prescribe.moves import _cut_tools

    tools = [_tool("search", {}), _tool("change_booking", {"pnr": {"type": "string", "default": "TE7MAJ"}})]
    text = json.dumps(tools[1], indent=4)
    at = text.index("TE7MAJ")
    anchor = Anchor(text[at - 32:at], text[at + 6:at + 30], False, "")
    got = _cut_tools(tools, anchor)
    assert got is not None
    new, moved = got
    assert new[0] == tools[0]
    assert new[1]["function"]["parameters"]["properties"]["pnr"] == {"type": "string"}
    assert "TE7MAJ" in moved


def test_a_tool_of_its_own_goes_after_the_shared_tools():
    from advisor.prescribe.moves import _own_tool

    mine = {"type": "function", "function": {"name": "search_qmx_logs", "description": "Search the qmx tenant's logs."}}
    tools = [mine, _tool("query_siem", {}), _tool("isolate_host", {})]
    text = json.dumps(mine, indent=4)
    # The span runs from the description into the name: most of the tool varies.
    anchor = Anchor('"function": {\n        "name": "', '"\n    }\n}', False, "")
    assert _own_tool(tools, anchor) == 0
    # The last tool is where it should be already; a span in a shared tool's small value is no own tool.
    assert _own_tool([tools[1], mine], anchor) is None
    assert text.count("search_qmx_logs") == 1


def test_units_in_a_tool_enum_and_in_tool_call_arguments_are_sorted():
    from advisor.ingest.traffic import Request
    from advisor.prescribe.moves import UnitSort

    tool = _tool("log_dose", {"form": {"type": "string", "enum": ["tablet", "syrup", "capsule"]}})
    call = {"id": "c1", "type": "function",
            "function": {"name": "log_dose", "arguments": '{"form": "syrup", "dose_mg": 5}'}}
    req = Request(kind="messages", messages=({"role": "user", "content": "Log it."},
                                             {"role": "assistant", "content": "", "tool_calls": [call]}),
                  tools=(tool,), source="t.jsonl", line=1)
    sort = UnitSort(['"syrup",\n "tablet"', '"capsule"', '"dose_mg": 5, "form"'], how="json")
    new = sort(req)
    assert new is not None
    assert new.tools[0]["function"]["parameters"]["properties"]["form"]["enum"] == ["capsule", "syrup", "tablet"]
    args = new.messages[1]["tool_calls"][0]["function"]["arguments"]
    assert list(json.loads(args)) == ["dose_mg", "form"]
    # Lists and arguments the units do not name are left as they are.
    assert UnitSort(['"paracetamol"', '"ibuprofen"'], how="json")(req) is None


def test_keys_of_an_object_nested_in_a_larger_document_are_sorted_in_its_layout():
    from advisor.prescribe.moves import UnitSort

    inner = {"tenure": "Freehold or leasehold.", "garden": "Private or shared.", "chain": "Any onward purchase."}
    text = "Standards:\n```json\n" + json.dumps({"listing_standards": inner}, indent=2) + "\n```\nBe brief."
    sort = UnitSort(['"garden": "Private', '"chain": "Any onward'], how="json")
    out = sort.sort_text(text)
    assert out is not None
    body = out[out.index("{"):out.rindex("}") + 1]
    assert json.loads(body) == {"listing_standards": inner}
    assert body == json.dumps({"listing_standards": dict(sorted(inner.items()))}, indent=2)
    assert out.endswith("\n```\nBe brief.")


def test_the_sentences_of_a_paragraph_are_put_in_one_order_after_its_label():
    from advisor.prescribe.moves import UnitSort

    a = "Head.\n\nFare conditions: Bags are free. Seats cost extra! Refunds take a week.\n\nTail."
    b = "Head.\n\nFare conditions: Refunds take a week. Bags are free. Seats cost extra!\n\nTail."
    sort = UnitSort(["Bags are free", "Seats cost extra", "Refunds take a week"], how=". ")
    first = sort.sort_text(a) or a
    assert first == a  # the first order seen is the one kept
    second = sort.sort_text(b)
    assert second == a
    # A paragraph holding one unit only is left alone.
    assert sort.sort_text("Intro: Bags are free. Nothing else here.") is None


def test_the_items_of_a_comma_separated_list_are_put_in_one_order_after_its_label():
    from advisor.prescribe.moves import UnitSort

    a = "Console\nOpen issue tags: store, ranked, launcher, voice-chat.\n\nRules."
    b = "Console\nOpen issue tags: launcher, voice-chat, store, ranked.\n\nRules."
    sort = UnitSort(["store", "ranked", "launcher", "voice-chat"], how=", ")
    assert sort.sort_text(a) is None  # the first order seen is kept
    assert sort.sort_text(b) == a
    assert sort.sort_text("Tags: store, ranked") is None  # two items are no list to sort


def test_every_tool_calls_arguments_get_their_keys_sorted():
    from advisor.ingest.traffic import Request
    from advisor.prescribe.moves import sort_call_arguments

    def call(args):
        return {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c", "type": "function", "function": {"name": "lookup_player", "arguments": args}}]}

    req = Request(kind="messages", messages=({"role": "user", "content": "Check."},
                                             call('{"region": "eu-west", "fields": ["b", "a"], "player_id": "77"}')),
                  source="t", line=1)
    new = sort_call_arguments(req)
    assert new is not None
    args = new.messages[1]["tool_calls"][0]["function"]["arguments"]
    assert args == '{"fields": ["b", "a"], "player_id": "77", "region": "eu-west"}'  # list order is data
    assert sort_call_arguments(new) is None
    assert sort_call_arguments(dataclasses.replace(req, messages=(call("not json"),))) is None


def test_the_anchor_chosen_never_takes_a_word_every_request_has_with_the_span():
    from advisor.prescribe.moves import choose

    memories = {"Ann": "likes email (2/3)", "Bo": "asked for a call (9/1)", "Cy": "prefers the app (4/7)"}
    requests = [[f"Memory of {name}:\n- {m}\n\nThis is the guide.\n\nQ?"] for name, m in memories.items()]
    whole = Anchor("Memory of", "\n\nThis is the guide", False, "")
    cut_word = Anchor("Memory of", " is the guide", False, "")
    # Both find a span in every request; the second would move "This" out of the guide.
    assert choose([cut_word, whole], requests, typical=40) == whole
