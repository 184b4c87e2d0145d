"""The canonical order on structured content and on messages: YAML and TOML blocks, fenced
code, lists whose lines recur, values inside fixed text, the opening's system messages,
example exchanges with tool calls, a prompt's turns. Each unit's reorder must leave the
document meaning what it meant (checked by parsing it again), and each shape comes out in
one form across requests."""

from __future__ import annotations

import json
import random
import tomllib
from typing import Any

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.diagnose.spelling import KEY_ORDER, key, spelling_kind
from advisor.prescribe.canonical import ENTRY, ITEM, KEPT, LAST_USER, canonical_fixes, split_text, split_unit
from tests.diagnose.test_canonical import apply, requests
from tests.diagnose.test_canonical_units import variant, words

KEYS = ["name", "owner", "retry_limit", "enabled", "notes", "region", "tier"]
VALUES = st.one_of(st.integers(0, 99), st.booleans(), st.sampled_from(["desk B", "ops", "Fetch one invoice.", "24/7"]))


@st.composite
def mappings(draw: Any, depth: int = 2) -> dict[str, Any]:
    keys = draw(st.lists(st.sampled_from(KEYS), min_size=2, max_size=5, unique=True))
    return {k: (draw(mappings(depth - 1)) if depth and draw(st.booleans()) else draw(VALUES)) for k in keys}


@settings(max_examples=60, deadline=None)
@given(mappings(), st.randoms(use_true_random=False))
def test_a_yaml_mapping_in_any_order_of_its_entries_is_the_same_mapping(data: dict[str, Any], rng: Any) -> None:
    body = yaml.safe_dump(data, sort_keys=False).rstrip("\n")
    text = f"Config:\n\n```yaml\n{body}\n```"
    paragraph = split_text(text)
    assert paragraph is not None
    split = split_text(paragraph.units[-1])
    assert split is not None and split.kind == ENTRY and len(split.units) == len(data)
    units = list(split.units)
    rng.shuffle(units)
    # Each entry splits in turn into the entries nested under it, under its key line.
    for k, unit in enumerate(units):
        inner = split_unit(unit, ENTRY)
        if inner is not None:
            nested = list(inner.units)
            rng.shuffle(nested)
            units[k] = inner.join(nested)
    again = split.join(units)
    assert again.startswith("```yaml\n") and again.endswith("\n```")
    assert yaml.safe_load(again[len("```yaml\n"):-len("\n```")]) == data


def test_a_yaml_sequence_gives_its_items_and_a_list_item_keeps_its_lines() -> None:
    items = [{"code": f"A{k}", "title": f"Rule {k}.", "applies_to": ["web", "post"]} for k in range(4)]
    body = yaml.safe_dump({"policies": items}, sort_keys=False).rstrip("\n")
    split = split_text(f"```yaml\n{body}\n```")
    assert split is not None and split.kind == ITEM and len(split.units) == 4
    assert all(unit.startswith("- code:") for unit in split.units)
    assert split_unit(split.units[0], ITEM) is None  # (its lines are its structure)
    joined = split.join(list(reversed(split.units)))
    assert yaml.safe_load(joined[len("```yaml\n"):-len("\n```")]) == {"policies": list(reversed(items))}


def test_yaml_that_a_reorder_could_change_is_not_cut() -> None:
    for body in ("a: &x 1\nb: *x", "base: 1\n<<: {c: 2}\nd: 3", "a: |+\n  text\n\nb: 2", "- 1\n- 2", "a: 1\na: 2",
                 "{a: 1, b: 2}", "just: [a, b]"):
        split = split_text(f"```yaml\n{body}\n```")
        assert split is None or split.kind == ITEM and body.startswith("- "), body


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(["privacy", "billing", "engineers", "outages"]), min_size=2, max_size=4, unique=True),
       st.randoms(use_true_random=False))
def test_toml_tables_in_any_order_are_the_same_document(names: list[str], rng: Any) -> None:
    body = "title = \"guide\"\n\n" + "\n\n".join(f"[{n}]\nowner = \"desk {n[0]}\"\nsla_hours = {len(n)}" for n in names)
    split = split_text(f"```toml\n{body}\n```")
    assert split is not None and len(split.units) == len(names)
    units = list(split.units)
    rng.shuffle(units)
    again = split.join(units)
    assert tomllib.loads(again[len("```toml\n"):-len("\n```")]) == tomllib.loads(body)
    assert split_text(f"```toml\n{body}\n\n[[jobs]]\nname = \"a\"\n```") is None  # (arrays of tables: order)


def _yaml_traffic() -> list[dict[str, Any]]:
    """A YAML block whose top keys come in a per-request order, a list whose items repeat a
    line ("nights: 3"), and a per-request stamp on the line after the fence."""
    legs = [{"site": s, "nights": 3 if k % 2 == 0 else 4, "notes": f"Route {s} by day."}
            for k, s in enumerate(["Kestrel Gap", "Drumlaig", "Ostvik", "Harrowby"])]
    sections = {"tour": {"name": "Winter Crossing", "operator": "Valmont"}, "legs": legs,
                "safety": {"max_wind_kmh": 40}, "crew": [{"role": "rigging", "count": 14}]}
    orders = [["tour", "legs", "safety", "crew"], ["crew", "safety", "tour", "legs"], ["legs", "tour", "crew", "safety"],
              ["safety", "crew", "legs", "tour"], ["tour", "crew", "legs", "safety"]]
    records = []
    for k, order in enumerate(orders):
        block = yaml.safe_dump({key: sections[key] for key in order}, sort_keys=False).rstrip("\n")
        system = f"You plan the tour.\n\n```yaml\n{block}\n```\nconfig generated_at: 13:0{k}:26\n\nQuote the handbook."
        records.append({"messages": [{"role": "system", "content": system},
                                     {"role": "user", "content": f"Question {k}?"}]})
    return records


def _block(text: str) -> Any:
    start = text.index("```yaml\n") + len("```yaml\n")
    return yaml.safe_load(text[start:text.index("\n```", start)])


def test_a_yaml_block_comes_out_whole_in_every_variant_and_in_one_key_order() -> None:
    records = _yaml_traffic()
    reqs = requests(records)
    for to in (KEPT, LAST_USER):
        out = variant(reqs, to)
        for before, after in zip(records, out):
            assert after.messages is not None
            # The same data: no line lost, doubled or moved under another key.
            assert _block(after.messages[0]["content"]) == _block(before["messages"][0]["content"])
            assert words(after) == words(requests([before])[0])  # type: ignore[arg-type]
        blocks = {after.messages[0]["content"].split("```")[1] for after in out if after.messages}
        assert len(blocks) == 1, to


def test_a_value_inside_fixed_text_moves_out_alone() -> None:
    records = [{"messages": [{"role": "system", "content": (
        "You answer for the depot.\n\n```yaml\ntour:\n  name: Winter\n  operator: Valmont\n"
        f"  generated_at: 2026-12-01T11:0{k}:26Z\nlegs:\n  count: 3\n  season: winter\n```\n\nQuote the handbook.")},
        {"role": "user", "content": f"Question {k}?"}]} for k in range(5)]
    out = variant(requests(records), LAST_USER)
    systems = {r.messages[0]["content"] for r in out if r.messages}
    assert len(systems) == 1 and "generated_at" not in next(iter(systems))
    assert "name: Winter" in next(iter(systems))  # (the fixed keys around it stay where they were)
    for k, r in enumerate(out):
        assert r.messages is not None and f"generated_at: 2026-12-01T11:0{k}:26Z" in r.messages[-1]["content"]


def test_the_opening_system_messages_come_static_first_each_role_among_its_own() -> None:
    persona = {"role": "system", "content": "You are the assistant of Juniper Civic. Answer plainly."}
    rules = {"role": "system", "content": "Accessibility. Captions are available for all recorded trainings."}
    records = []
    for k in range(6):
        docs = {"role": "system", "content": f"Retrieved passages:\n\n[doc {k}] Passage {k} about permits."}
        opening = [[docs, persona, rules], [rules, docs, persona], [persona, rules, docs]][k % 3]
        dev = {"role": "developer", "content": "Be brief."}
        records.append({"messages": [dev] + opening + [{"role": "user", "content": f"Question {k}?"}]})
    for r in variant(requests(records), KEPT):
        assert r.messages is not None
        assert [m["role"] for m in r.messages] == ["developer", "system", "system", "system", "user"]
        assert r.messages[1]["content"] == persona["content"] and r.messages[2]["content"] == rules["content"]
        assert r.messages[3]["content"].startswith("Retrieved passages")


def test_example_exchanges_with_tool_calls_come_in_one_order_and_keep_their_messages() -> None:
    def exchange(j: int) -> list[dict[str, Any]]:
        call = {"id": f"ex{j}", "type": "function", "function": {"name": "lookup", "arguments": json.dumps({"n": j})}}
        return [{"role": "user", "content": f"Example question {j}?"},
                {"role": "assistant", "content": "", "tool_calls": [call]},
                {"role": "tool", "tool_call_id": f"ex{j}", "content": json.dumps({"ok": True, "n": j})},
                {"role": "assistant", "content": f"Example answer {j}."}]
    orders = [[0, 1, 2], [2, 0, 1], [1, 2, 0], [0, 2, 1]]
    records = [{"messages": [{"role": "system", "content": "You are the desk."}]
                + [m for j in order for m in exchange(j)] + [{"role": "user", "content": f"Real question {k}?"}]}
               for k, order in enumerate(orders)]
    out = variant(requests(records), KEPT)
    heads = {json.dumps(r.messages[:-1]) for r in out if r.messages}
    assert len(heads) == 1
    first = out[0].messages
    assert first is not None
    # Each exchange stays whole: its call, its result and its answer follow its question.
    for k in range(1, len(first) - 1, 4):
        n = int(first[k]["content"].split()[-1].rstrip("?"))
        assert first[k + 1]["tool_calls"][0]["id"] == first[k + 2]["tool_call_id"] == f"ex{n}"
        assert first[k + 3]["content"] == f"Example answer {n}."


def test_a_prompts_example_turns_come_in_one_order_and_its_markup_stays() -> None:
    def turn(role: str, text: str) -> str:
        return f"<|start_header_id|>{role}<|end_header_id|>\n\n{text}<|eot_id|>"
    orders = [[0, 1, 2], [2, 1, 0], [1, 0, 2]]
    prompts = ["<|begin_of_text|>" + turn("system", "You are the desk.")
               + "".join(turn("user", f"Example {j}?") + turn("assistant", f"Answer {j}.") for j in order)
               + turn("user", f"Real {k}?") + "<|start_header_id|>assistant<|end_header_id|>\n\n"
               for k, order in enumerate(orders)]
    out = variant(requests([{"prompt": p} for p in prompts]), KEPT)
    heads = {r.prompt.split("Real")[0] for r in out if r.prompt}
    assert len(heads) == 1
    assert all(r.prompt is not None and r.prompt.count("<|start_header_id|>") == 9 for r in out)


def test_a_system_message_with_nothing_fixed_in_it_moves_out_whole() -> None:
    records = [{"tools": [{"type": "function", "function": {"name": "lookup", "description": "Look up an order.",
                                                            "parameters": {"type": "object", "properties": {}}}}],
                "messages": [{"role": "system", "content": f"Use these passages:\n(doc {k}) Passage {k} text."},
                             {"role": "user", "content": f"Question {k}?"}]} for k in range(5)]
    for k, r in enumerate(variant(requests(records), LAST_USER)):
        # (The system message stays, empty: without one, a template may print a default.)
        assert r.messages is not None and [m["content"] for m in r.messages][:1] == [""]
        assert f"Passage {k} text." in r.messages[1]["content"] and f"Question {k}?" in r.messages[1]["content"]


def test_in_an_agent_loop_what_varies_goes_to_the_newest_tool_result() -> None:
    records = []
    for step in range(4):
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": f"You run the desk. Follow the runbook.\n\nYou have {10 - step} tool steps left."},
            {"role": "user", "content": "Resize the instance."}]
        for j in range(step):
            messages += [{"role": "assistant", "content": "", "tool_calls": [
                {"id": f"c{j}", "type": "function", "function": {"name": "resize", "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": f"c{j}", "content": f"done {j}"}]
        records.append({"messages": messages})
    out = variant(requests(records), LAST_USER)
    for step, r in enumerate(out):
        # (The first step's newest turn is the user's; later, the user turn is history.)
        assert r.messages is not None and (step == 0 or r.messages[1]["content"] == "Resize the instance.")
        assert r.messages[-1]["content"].endswith(f"You have {10 - step} tool steps left.")
    # Each step extends the one before it up to that step's newest turn.
    for a, b in zip(out[1:], out[2:]):
        assert a.messages is not None and b.messages is not None and list(b.messages[:len(a.messages) - 1]) == list(a.messages[:-1])


def test_json_after_a_label_on_its_line_and_an_object_holding_one_list_give_their_items() -> None:
    split = split_text('Functions: [{"name":"a","x":1},{"name":"b","x":2}]')
    assert split is not None and split.kind == ITEM and split.fixed[0] == "Functions: "
    assert split.join(list(reversed(split.units))) == 'Functions: [{"name":"b","x":2},{"name":"a","x":1}]'
    inner = split_text(json.dumps({"sections": [{"t": "a"}, {"t": "b"}]}))
    assert inner is not None and len(inner.units) == 1


def test_a_heading_does_not_take_a_section_that_has_its_own() -> None:
    text = "# Assistant\n\n## Refunds\nRefunds take five days.\n\n## Tone\nBe brief."
    split = split_text(text)
    assert split is not None and split.units == ("# Assistant", "## Refunds\nRefunds take five days.", "## Tone\nBe brief.")


def test_a_sentence_ending_in_a_number_ends_there() -> None:
    split = split_text("Never reschedule when the client is under 18. Anything else I can check?")
    assert split is not None and split.kind == "sentence" and len(split.units) == 2
    assert split_text("Ask Dr. Smith first. Then wait.") is None


def test_without_tools_behind_it_a_system_message_of_its_own_stays() -> None:
    # Single-shot traffic: each system message is the request's own and nothing shared follows
    # it; moved out whole, only the template's own tokens would be shared.
    records = [{"messages": [{"role": "system", "content": f"Summarise document {k} for reader {k}.\n\nNotes {k}."},
                             {"role": "user", "content": f"Question {k}?"}]} for k in range(5)]
    for before, after in zip(records, variant(requests(records), LAST_USER)):
        assert after.messages is not None and after.messages[0]["content"] == before["messages"][0]["content"]


def test_rules_between_sections_stay_in_place_while_the_sections_take_one_order() -> None:
    blocks = ["Alpha holds for every cohort.", "Beta applies on weekends.", "Gamma ends the term.", "Delta is optional."]
    records = []
    for k in range(6):
        order = blocks[k % 4:] + blocks[:k % 4]
        records.append({"prompt": "Tutor notes\n\n" + "\n\n---\n\n".join(order) + f"\n\n---\n\nLearner: question {k}?\nTutor:"})
    out = variant(requests(records), KEPT)
    heads = set()
    for before, after in zip(records, out):
        assert after.prompt is not None and after.prompt.count("\n\n---\n\n") == before["prompt"].count("\n\n---\n\n")
        assert after.prompt.startswith("Tutor notes\n\n") and after.prompt.endswith("?\nTutor:")
        # (Every rule still parts two sections: none doubled up, none at an end.)
        assert all(part.strip() for part in after.prompt.split("---"))
        heads.add(after.prompt.rsplit("\n\n---\n\nLearner", 1)[0])
    assert len(heads) == 1


def test_an_xml_element_with_blank_lines_inside_is_one_piece_and_its_lines_are_units() -> None:
    text = ("<system>\n<persona>\nYou help.\n</persona>\n<session id=\"a1\"/>\n<knowledge>\nFirst article.\n\n"
            "Second article.\n</knowledge>\n</system>\n<user>Where is it?</user>\n<assistant>")
    split = split_text(text)
    assert split is not None and split.units[0].endswith("</system>") and split.units[-1] == "<user>Where is it?</user>"
    assert split.fixed[-1].endswith("<assistant>")  # (the element the model writes in stays last)
    inner = split_text(split.units[0])
    assert inner is not None and inner.units[1] == '<session id="a1"/>' and inner.units[2].startswith("<knowledge>")
    # A tag that never closes is prose: the blank lines after it still part paragraphs.
    loose = split_text("<b>\nBold notice.\n\nSecond paragraph.\n\nThird.")
    assert loose is not None and loose.kind == "paragraph" and len(loose.units) == 3


def test_in_a_prompt_of_xml_turns_what_varies_goes_ahead_of_the_open_assistant_element() -> None:
    records = [{"prompt": (f"<system>\n<persona>\nYou help the depot.\n</persona>\n<session id=\"s-{k}{k}\" channel=\"web\"/>\n"
                           "<policies>\n<policy>Refunds take five days.</policy>\n\n<policy>Be brief.</policy>\n</policies>\n"
                           f"</system>\n<user>Question {k}?</user>\n<assistant>")} for k in range(6)]
    out = variant(requests(records), LAST_USER)
    heads = set()
    for k, after in enumerate(out):
        assert after.prompt is not None and after.prompt.endswith(f"<user>Question {k}?</user>\n<assistant>")
        assert f'<session id="s-{k}{k}" channel="web"/>' in after.prompt.split("</system>")[1]
        heads.add(after.prompt.split("</system>")[0])
    assert len(heads) == 1


def test_a_system_message_of_its_own_ahead_of_a_conversations_history_moves_out_whole() -> None:
    # A summary rewritten on every turn, ahead of the history the next request resends: moved
    # out whole, the history is the prefix each request extends.
    records = []
    for k in range(1, 6):
        history: list[dict[str, Any]] = []
        for j in range(k):
            history += [{"role": "user", "content": f"Turn {j} asks about the depot."},
                        {"role": "assistant", "content": f"Reply {j} about the depot."}]
        records.append({"messages": [{"role": "system", "content": f"Summary so far: {k} turns, topic {k * 7}."}]
                        + history + [{"role": "user", "content": f"Question {k}?"}]})
    out = variant(requests(records), LAST_USER)
    for k, r in enumerate(out, 1):
        assert r.messages is not None and r.messages[0]["content"] == ""
        assert f"Question {k}?" in r.messages[-1]["content"] and f"topic {k * 7}" in r.messages[-1]["content"]
    # (Each request's history is the previous request's, turn for turn.)
    for a, b in zip(out, out[1:]):
        assert a.messages is not None and b.messages is not None
        assert [m["content"] for m in b.messages[:len(a.messages) - 1]] == [m["content"] for m in a.messages[:-1]]


GUIDE = "Take with food. Store below 25 C. Keep out of reach of children. Ask the pharmacist before combining."


def _agent_step(k: int, args: dict[str, Any], result: str) -> dict[str, Any]:
    return {"messages": [
        {"role": "system", "content": "You help at the pharmacy counter."},
        {"role": "user", "content": "Pull up my prescription first."},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "get_rx", "arguments": json.dumps(args)}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": result},
        {"role": "user", "content": f"Question {k}?"}]}


def test_a_value_in_a_tools_fixed_json_result_and_in_a_calls_fixed_arguments_goes_to_the_newest_turn() -> None:
    records = [_agent_step(k, {"account": "KDH-55", "requested_at_ms": str(1700000000000 + 7919 * k), "checks": ["a", "b"]},
                           json.dumps({"rx_number": f"RX-{1000 + k}", "guidance": GUIDE, "form": "tablet"}))
               for k in range(6)]
    out = variant(requests(records), LAST_USER)
    for k, r in enumerate(out):
        assert r.messages is not None
        args = json.loads(r.messages[2]["tool_calls"][0]["function"]["arguments"])
        result = json.loads(r.messages[3]["content"])
        # (What stays is still JSON, with every fixed member; the values went to the question.)
        assert args == {"account": "KDH-55", "checks": ["a", "b"]} and result == {"guidance": GUIDE, "form": "tablet"}
        assert str(1700000000000 + 7919 * k) in r.messages[4]["content"] and f"RX-{1000 + k}" in r.messages[4]["content"]
        assert r.messages[4]["content"].startswith(f"Question {k}?")
    assert len({json.dumps([m.get("content") for m in r.messages[:4]]) for r in out if r.messages}) == 1


def test_a_turn_of_prose_sent_once_keeps_its_value() -> None:
    # A few-shot example the client picks per request: prose, not data; it stays whole.
    records = [{"messages": [{"role": "system", "content": "You write short replies."},
                             {"role": "user", "content": f"Example: the order {k} shipped on Monday. Reply politely."},
                             {"role": "assistant", "content": "Thank you, we are on it."},
                             {"role": "user", "content": f"Question {k}?"}]} for k in range(6)]
    for before, after in zip(records, variant(requests(records), LAST_USER)):
        assert after.messages is not None and after.messages[1]["content"] == before["messages"][1]["content"]


def test_json_members_nest_and_a_json_string_splits_as_its_text() -> None:
    inner = {"parking": "Off-street.", "garden": "Rear garden.", "tenure": "Freehold."}
    text = json.dumps({"listing_standards": inner}, indent=2)
    split = split_text(text)
    assert split is not None and split.kind == "member" and len(split.units) == 1
    nested = split_unit(split.units[0], "member")
    assert nested is not None and len(nested.units) == 3
    member = nested.join(list(reversed(nested.units)))
    assert json.loads(split.join([member])) == {"listing_standards": inner}
    assert list(json.loads(split.join([member]))["listing_standards"]) == ["tenure", "garden", "parking"]
    # A tool's result the template printed with tojson: JSON inside a JSON string.
    result = json.dumps(json.dumps({"rx": "RX-1", "items": [{"a": 1}], "guidance": GUIDE}))
    split = split_text(result)
    assert split is not None and split.join(list(split.units)) == result
    assert json.loads(json.loads(split.join(list(reversed(split.units))))) == {"rx": "RX-1", "items": [{"a": 1}],
                                                                                "guidance": GUIDE}
    # JSON on its label's line, the next content part after it on the same line.
    line = 'Depot configuration: {"b":1,"a":"x"} #### Scope'
    split = split_text(line)
    assert split is not None and split.fixed[0] == "Depot configuration: " and split.fixed[-1] == " #### Scope"
    assert split.join(list(reversed(split.units))) == 'Depot configuration: {"a":"x","b":1} #### Scope'


def variant_shared(reqs: list[Any]) -> list[Any]:
    """The requests through the variant that moves out what not every session sends."""
    return apply(next(k for k, (_, _, d) in enumerate(canonical_fixes(reqs, "")) if d.get("shared_out")), reqs)


def _canned(system: str, ask: str, name: str, args: str, result: str, reply: str, question: str) -> dict[str, Any]:
    """A chat that replays a canned look-up (a call, its result, the reply) ahead of its question."""
    return {"messages": [
        {"role": "system", "content": system}, {"role": "user", "content": ask},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c", "type": "function", "function": {"name": name, "arguments": args}}]},
        {"role": "tool", "tool_call_id": "c", "content": result},
        {"role": "assistant", "content": reply}, {"role": "user", "content": question}]}


def test_an_hour_stamped_on_a_canned_call_leaves_it_where_several_requests_share_it() -> None:
    """A fixed first look-up whose arguments carry the hour it was made for, one of four hours
    each several requests share: the variant moving what not every session sends takes the
    hour out of the call (the call is then the same in every request) to the newest user
    turn; the variant moving only one request's own values leaves it."""
    procedure = "\n".join(f"{k}. Turn wheel {k} weekly." for k in range(1, 12))
    records = []
    for k in range(16):
        args = json.dumps({"cave": "B", "hours": 6, "as_of": f"2026-12-01T0{6 + k // 4}:00"})
        records.append(_canned("You help the cave staff.", "Check cave B.", "sensors", args, procedure,
                               "Cave B is fine.", f"Question {k}?"))
    shared = variant_shared(requests(records))
    calls = {m["tool_calls"][0]["function"]["arguments"] for r in shared for m in r.messages or () if m.get("tool_calls")}
    assert calls == {json.dumps({"cave": "B", "hours": 6})}
    for k, r in enumerate(shared):
        assert r.messages is not None and f"2026-12-01T0{6 + k // 4}:00" in r.messages[-1]["content"]
    for to in (KEPT, LAST_USER):
        for r, record in zip(variant(requests(records), to), records):
            assert r.messages is not None and r.messages[2] == record["messages"][2]


def test_a_value_in_a_canned_greeting_leaves_it_and_a_session_s_own_question_stays() -> None:
    """An app's canned opening: a greeting whose last sentence is the day's forecast for the
    grower's field (some fields asked about twice), then a fixed exchange. The forecast goes to
    the newest user turn and the greeting is one text. In the history of a conversation, the
    user's own question ahead of a fixed reply ("Noted.") stays where it was asked."""
    fields = [f"Field {k}" for k in range(12)]
    script = [{"role": "user", "content": "What can you help me with?"},
              {"role": "assistant", "content": "Spray plans, soil tests and field walks.\n\nAsk away."}]
    records = []
    for k in range(16):
        greeting = f"Good morning! I am your farm assistant. Today's window at {fields[k % 12]}: wind {k % 12} km/h."
        records.append({"messages": [{"role": "system", "content": "You advise growers."},
                                     {"role": "assistant", "content": greeting}] + script
                       + [{"role": "user", "content": f"Question {k}?"}]})
    out = variant(requests(records), LAST_USER)
    assert {r.messages[1]["content"] for r in out if r.messages} == {"Good morning! I am your farm assistant."}
    for k, r in enumerate(out):
        assert r.messages is not None and f"wind {k % 12} km/h" in r.messages[-1]["content"]
    _history_stays(_grower_sessions(4, "Thank you. My tractor {s} stalls on hill {t}."))


def _grower_sessions(sessions: int, line: str) -> list[dict[str, Any]]:
    """Conversations of three turns whose history holds the user's ``line`` (formatted with
    the session ``s`` and turn ``t``) and a fixed reply."""
    chats = []
    for s_ in range(sessions):
        for turn in range(3):
            history = [m for t in range(turn) for m in ({"role": "user", "content": line.format(s=s_, t=t)},
                                                         {"role": "assistant", "content": "Noted."})]
            chats.append({"messages": [{"role": "system", "content": "You advise growers."}] + history
                          + [{"role": "user", "content": f"Session {s_} question {turn}?"}]})
    return chats


def _history_stays(chats: list[dict[str, Any]]) -> None:
    for r, record in zip(variant(requests(chats), LAST_USER), chats):
        assert r.messages is not None and list(r.messages[:-1]) == record["messages"][:-1]


def test_a_bulleted_list_with_a_rule_written_twice_still_takes_one_order() -> None:
    """Rules as bullets in a per-request order, one of them written twice: the list is a set
    (its two copies close up); an unbulleted container with a repeated line keeps its order."""
    rng = random.Random(3)
    rules = [f"- Rule {k}: check the bay {k} times." for k in range(10)] + ["- Rule 2: check the bay 2 times."]
    records = [{"messages": [{"role": "system", "content": "You dispatch riders.\n\nRules:\n"
                              + "\n".join(rng.sample(rules, len(rules))) + "\n\nBe brief."},
                             {"role": "user", "content": f"Question {k}?"}]} for k in range(12)]
    out = variant(requests(records), KEPT)
    systems = {r.messages[0]["content"] for r in out if r.messages}
    assert len(systems) == 1
    lines = next(iter(systems)).split("Rules:\n")[1].split("\n\n")[0].split("\n")
    assert sorted(lines) == sorted(rules)
    steps = [{"messages": [{"role": "system", "content": f"Rinse.\nWash.\nRinse.\nBatch {k}."},
                           {"role": "user", "content": f"Question {k}?"}]} for k in range(6)]
    for r in variant(requests(steps), KEPT):
        assert r.messages is not None and r.messages[0]["content"].startswith("Rinse.\nWash.\nRinse.")


def test_a_canned_call_s_arguments_of_one_value_leave_where_its_result_is_fixed() -> None:
    """A canned guidance look-up replayed ahead of each question with the request's own case
    number as its only argument: the call is made without it and the number goes to the
    newest user turn. A look-up whose result is its own keeps its arguments."""
    guidance = "\n".join(f"- Step {k}: check the file before letter {k}." for k in range(20))
    records, own = [], []
    for k in range(8):
        args = json.dumps({"case_id": f"HR-{91336 + 7 * k}"})
        for out, result in ((records, guidance), (own, f"Case {k}: opened on day {k}.")):
            out.append(_canned("You help caseworkers.", "Open the guidance.", "case_file", args, result,
                               "Guidance open.", f"Which letter for case {k}?"))
    for k, r in enumerate(variant(requests(records), LAST_USER)):
        assert r.messages is not None and r.messages[2]["tool_calls"][0]["function"]["arguments"] == "{}"
        assert f"HR-{91336 + 7 * k}" in r.messages[-1]["content"]
    for r, record in zip(variant(requests(own), LAST_USER), own):
        assert r.messages is not None and r.messages[2] == record["messages"][2]


def test_a_fenced_csv_tables_rows_take_one_order_under_its_header() -> None:
    rows = ["BHX,Birmingham,18:30", "LBA,Leeds,17:00", "NCL,Newcastle,16:45", "BRS,Bristol,18:00"]
    records = [{"messages": [{"role": "system", "content": "Depots (CSV):\n```csv\ncode,city,cut_off\n"
                              + "\n".join(rows[k % 4:] + rows[:k % 4]) + "\n```\n\nAnswer briefly."},
                             {"role": "user", "content": f"Question {k}?"}]} for k in range(6)]
    out = variant(requests(records), KEPT)
    systems = {r.messages[0]["content"] for r in out if r.messages}
    assert len(systems) == 1
    table = next(iter(systems)).split("```csv\n")[1].split("\n```")[0].split("\n")
    assert table[0] == "code,city,cut_off" and sorted(table[1:]) == sorted(rows)
    # (A quoted field may hold a line break: such a table is not cut at lines.)
    assert split_text('```csv\nname,note\nA,"two\nlines"\nB,plain\n```') is None


def test_a_fenced_env_block_s_settings_take_one_order() -> None:
    """A .env block in a per-request order (a set walked in hash order) is one block in the
    canonical form; one whose values expand another setting keeps its order."""
    settings = [f"KEY_{k}=value-{k}" for k in range(8)]
    records = [{"prompt": "Effective configuration:\n```env\n" + "\n".join(settings[k % 8:] + settings[:k % 8])
                + f"\n```\n\nOperator: question {k}?\nAssistant:"} for k in range(8)]
    prompts = {r.prompt for r in variant(requests(records), KEPT)}
    blocks = {p.split("```env\n")[1].split("\n```")[0] for p in prompts if p}
    assert len(blocks) == 1 and sorted(next(iter(blocks)).split("\n")) == sorted(settings)
    assert split_text("```env\nHOME_DIR=/srv\nDATA=${HOME_DIR}/data\n```") is None


def test_look_ups_replayed_in_the_order_they_completed_take_one_order() -> None:
    docs = ["dental", "vision", "medical", "life"]

    def step(doc: str) -> list[dict[str, Any]]:
        return [{"role": "assistant", "content": "", "tool_calls": [{"id": f"call_{doc}", "type": "function", "function": {
            "name": "get_plan", "arguments": json.dumps({"plan": doc})}}]},
                {"role": "tool", "tool_call_id": f"call_{doc}", "content": f"The {doc} plan covers two visits a year."}]

    records = []
    for k in range(6):
        order = docs[k % 4:] + docs[:k % 4]
        records.append({"messages": [{"role": "system", "content": "You explain benefits."},
                                     {"role": "user", "content": "Load my plan documents."}]
                        + [m for doc in order for m in step(doc)] + [{"role": "user", "content": f"Question {k}?"}]})
    out = variant(requests(records), KEPT)
    histories = {json.dumps(r.messages[:-1]) for r in out if r.messages}
    assert len(histories) == 1
    for r in out:
        assert r.messages is not None
        # (Each call stays with its result.)
        for call, result in zip(r.messages[2:-1:2], r.messages[3:-1:2]):
            assert call["tool_calls"][0]["id"] == result["tool_call_id"]
    # An agent's own calls after the last user turn keep their order: a later one may read an earlier one's result.
    loop = [{"messages": [{"role": "user", "content": "Load them."}] + [m for doc in docs[k % 4:] + docs[:k % 4]
                                                                       for m in step(doc)]} for k in range(4)]
    for before, after in zip(loop, variant(requests(loop), KEPT)):
        assert after.messages is not None and [m.get("tool_call_id") for m in after.messages] == [
            m.get("tool_call_id") for m in before["messages"]]


def test_a_tenants_own_prompt_stays_while_what_varies_among_its_sessions_leaves_it() -> None:
    # Two tenants; the larger one's prompt (7 of 10 sessions) names one of three advisories.
    head, tail = "You answer for Harlow Security.\n\nEscalate outages.", "Quote the runbook.\n\nBe brief."
    records = []
    for k in range(20):
        if k % 10 < 7:
            system = f"{head}\n\nPriority advisory this shift: CVE-2026-{k % 3}{k % 3}01.\n\n{tail}"
        else:
            system = "You answer for Kestrel Retail.\n\nRefunds take five days.\n\nBe brief."
        records.append({"messages": [{"role": "system", "content": system},
                                     {"role": "user", "content": f"Question {k}?"}]})
    systems = set()
    for k, r in enumerate(variant_shared(requests(records))):
        assert r.messages is not None
        if k % 10 < 7:
            # (Its paragraphs all stay; the one both tenants send goes first.)
            systems.add(r.messages[0]["content"])
            assert sorted(r.messages[0]["content"].split("\n\n")) == sorted(f"{head}\n\n{tail}".split("\n\n"))
            assert f"CVE-2026-{k % 3}{k % 3}01" in r.messages[1]["content"]
        else:
            assert "Kestrel" in r.messages[0]["content"] and "Refunds" in r.messages[0]["content"]
    assert len(systems) == 1


def test_what_review_found_stays_fixed() -> None:
    # A string inside a string is left whole; a text in quotes that is no JSON string splits.
    twice = json.dumps(json.dumps("First one. Second one here."))
    assert split_text(twice) is None or split_text(twice).join(list(split_text(twice).units)) == twice  # type: ignore[union-attr]
    quoted = split_text('"Where is it?" asks the client.\n\nReply kindly.\n\nSign off with "Kind regards"')
    assert quoted is not None and len(quoted.units) == 3
    # A self-closed tag with attributes opens nothing.
    nested = split_text('<x>\n<x id="1"/>\nFirst.\n\nSecond.\n</x>')
    assert nested is None or all(u.count("<x>") == u.count("</x>") for u in nested.units)
    # Moved out, sections are parted by a blank line, not by the rule (which stays once).
    records = [{"messages": [{"role": "system", "content": f"Rule A holds.\n\n---\n\nRule B holds.\n\nToday is day {k}.\n\n"
                                                           f"Session s{k}x."},
                             {"role": "user", "content": f"Question {k}?"}]} for k in range(5)]
    for r in variant(requests(records), LAST_USER):
        assert r.messages is not None and "---" not in r.messages[-1]["content"]
        assert r.messages[0]["content"].count("---") == 1
    # Code inside a call's arguments keeps its lines; a tool's JSON result stays JSON.
    steps = []
    for k in range(5):
        code = f"total = load('orders-{k}.csv')\nprint(total.sum())\nsave(total)"
        steps.append({"messages": [
            {"role": "system", "content": f"Summary so far: {k} turns."}, {"role": "user", "content": "Run it."},
            {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {
                "name": "run", "arguments": json.dumps({"code": code, "timeout": 30})}}]},
            {"role": "tool", "tool_call_id": "c1", "content": json.dumps({"order": f"A{k}", "status": "shipped"})}]})
    for to in (KEPT, LAST_USER):
        for step, after in zip(steps, variant(requests(steps), to)):
            assert after.messages is not None
            assert json.loads(after.messages[2]["tool_calls"][0]["function"]["arguments"])["code"].split("\n")[1:] == [
                "print(total.sum())", "save(total)"]
            # (What the system message moves out may follow it, the newest turn of input: the
            # result itself is the same JSON.)
            value, _ = json.JSONDecoder().raw_decode(after.messages[3]["content"])
            assert value == json.loads(step["messages"][3]["content"])
    # Deep JSON and deep XML are left whole, without a crash.
    deep: Any = 1
    for _ in range(500):
        deep = {"a": 1, "b": deep}
    assert split_unit(json.dumps(["k", deep]), "member") is None
    xml = "".join(f"<a>\np{i}\n\n" for i in range(500)) + "</a>\n" * 500
    variant(requests([{"prompt": xml + f"Q{k}"} for k in range(3)]), KEPT)


def test_a_run_of_look_ups_with_one_of_its_own_keeps_its_order() -> None:
    records = []
    for k in range(5):
        search = [{"role": "assistant", "content": None, "tool_calls": [{"id": "s", "type": "function", "function": {
            "name": "search", "arguments": json.dumps({"q": f"query {k}"})}}]},
                  {"role": "tool", "tool_call_id": "s", "content": "Found doc-7."}]
        open_doc = [{"role": "assistant", "content": None, "tool_calls": [{"id": "o", "type": "function", "function": {
            "name": "open", "arguments": json.dumps({"doc": "doc-7"})}}]},
                    {"role": "tool", "tool_call_id": "o", "content": "Doc 7 text."}]
        records.append({"messages": [{"role": "user", "content": "Find it."}] + search + open_doc
                        + [{"role": "assistant", "content": "Here it is."}, {"role": "user", "content": f"More {k}?"}]})
    for r in variant(requests(records), KEPT):
        assert r.messages is not None and [m.get("tool_call_id") for m in r.messages if m["role"] == "tool"] == ["s", "o"]


def test_a_fixed_look_up_behind_one_of_the_request_s_own_goes_first() -> None:
    """A client preloads two look-ups: the workspace's status (its own per request) and then
    a fixed file every session reads alike, which names nothing the status returned: the
    fixed one goes first, the status after it, each call with its result."""
    records = []
    for k in range(8):
        status = [{"role": "assistant", "content": None, "tool_calls": [{"id": "g", "type": "function", "function": {
            "name": "git_status", "arguments": json.dumps({"commits": 5})}}]},
                  {"role": "tool", "tool_call_id": "g", "content": f"On branch T-{k}\nmodified: src/file{k}.py"}]
        guide = [{"role": "assistant", "content": None, "tool_calls": [{"id": "a", "type": "function", "function": {
            "name": "read_file", "arguments": json.dumps({"path": "AGENTS.md"})}}]},
                 {"role": "tool", "tool_call_id": "a", "content": "# AGENTS.md\n\nRun the tests before a commit."}]
        records.append({"messages": [{"role": "user", "content": "Workspace context follows."}] + status + guide
                        + [{"role": "user", "content": f"Question {k}?"}]})
    for r in variant(requests(records), KEPT):
        assert r.messages is not None
        assert [m.get("tool_call_id") for m in r.messages if m["role"] == "tool"] == ["a", "g"]
        assert [c["id"] for m in r.messages for c in m.get("tool_calls") or ()] == ["a", "g"]


@settings(max_examples=40, deadline=None)
@given(st.permutations(["A extra", "A", "B", "B seconds", "kitchen", "reject"]),
       st.permutations(["batch", "grade", "note"]), st.randoms(use_true_random=False))
def test_a_schema_s_enum_and_required_lists_are_sets(order: list[str], required: list[str], rng: Any) -> None:
    """JSON Schema's ``enum``, ``required`` and ``type`` arrays are sets: a tool whose client
    lists them in an order of its own per request is one tool in one spelling; any other
    array (``examples``, a list of steps) keeps its order as meaning."""
    def tool(grades: list[str], names: list[str], steps: list[str]) -> dict[str, Any]:
        return {"type": "function", "function": {"name": "release", "description": "Release a batch.", "parameters": {
            "type": "object", "required": names, "properties": {
                "grade": {"type": ["string", "null"], "enum": grades}, "steps": {"type": "array", "examples": steps}}}}}
    steps = ["wash", "turn", "brush"]
    base = json.dumps(tool(sorted(order), sorted(required), steps))
    spelled = json.dumps(tool(order, required, steps))
    assert key(base) == key(spelled) and (spelled == base or spelling_kind(base, spelled) == KEY_ORDER)
    shuffled = list(steps)
    rng.shuffle(shuffled)
    assert (key(base) == key(json.dumps(tool(order, required, shuffled)))) == (shuffled == steps)
    # Through the canonical order: one tool in every request.
    records = []
    for k in range(6):
        grades, names = list(order), list(required)
        rng.shuffle(grades)
        rng.shuffle(names)
        records.append({"messages": [{"role": "user", "content": f"Release batch {k}."}],
                        "tools": [tool(grades, names, steps)]})
    out = apply(0, requests(records))
    assert len({json.dumps(r.tools) for r in out}) == 1


def test_a_canned_call_replayed_with_fresh_ids_takes_one_id() -> None:
    """A priming look-up every request replays (the same call and result) with a fresh id
    minted each time: each request's call and result take the id the log first gave it;
    a call of the request's own keeps its id, and no two calls of a request share one."""
    records = []
    for k in range(8):
        primed, own = f"p{k:08d}", f"o{k:08d}"
        records.append({"messages": [
            {"role": "user", "content": "Load the store count."},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": primed, "type": "function", "function": {"name": "store_count", "arguments": '{"item": "all"}'}}]},
            {"role": "tool", "tool_call_id": primed, "content": '{"boosters": 96, "detonators": 310}'},
            {"role": "assistant", "content": "Loaded."},
            {"role": "user", "content": f"How many for blast {k}?"},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": own, "type": "function", "function": {"name": "plan", "arguments": f'{{"blast": {k}}}'}}]},
            {"role": "tool", "tool_call_id": own, "content": f"Plan {k} needs {k + 3} boosters."}]})
    out = apply(0, requests(records))
    for k, req in enumerate(out):
        assert req.messages is not None
        calls = [c["id"] for m in req.messages for c in m.get("tool_calls") or ()]
        results = [m["tool_call_id"] for m in req.messages if m.get("role") == "tool"]
        assert calls == results == ["p00000000", f"o{k:08d}"]


def test_a_system_message_several_sessions_send_goes_ahead_of_one_of_the_request_s_own() -> None:
    """The opening's system messages from least to most volatile: a profile of the request's
    own ahead of the main system message (sent in one of four dated versions) goes behind
    it; two static ones keep their first-seen order ahead of both."""
    main = "You are the admissions assistant.\n\nAnswer briefly.\n\nDecisions dated {day}/12/2026"
    records = []
    for k in range(12):
        records.append({"messages": [
            {"role": "system", "content": f"Applicant A{10000 + k}: predicted AAB, home fee status"},
            {"role": "system", "content": main.format(day=1 + k % 4)},
            {"role": "user", "content": f"Question {k}: is IELTS 6.{k % 10} enough?"}]})
    for req in apply(0, requests(records)):
        assert req.messages is not None
        contents = [m["content"] for m in req.messages]
        assert contents[0].startswith("You are the admissions assistant.")
        assert contents[1].startswith("Applicant A")
        assert contents[2].startswith("Question")


def test_a_system_message_static_once_its_units_are_in_one_order_goes_ahead_of_passages() -> None:
    """Passages retrieved per request sent as the first system message, then the system
    prompt whose glossary lines come in a per-request order: as logged every request's prompt
    is its own, but in canonical form it is static, so it goes first (counted as rewritten)."""
    rng = random.Random(7)
    terms = [f"term{k} \u2014 what term {k} means here." for k in range(8)]
    passages = [f"[doc {k}] Passage {k} says the fee is {k} pounds." for k in range(40)]
    records = []
    for k in range(16):
        gloss = rng.sample(terms, len(terms))
        records.append({"messages": [
            {"role": "system", "content": "\n\n".join(rng.sample(passages, 2))},
            {"role": "system", "content": "You are the lettings assistant.\n\nGlossary:\n" + "\n".join(gloss)
                                          + "\n\nAnswer briefly."},
            {"role": "user", "content": f"Question {k}?"}]})
    out = apply(0, requests(records))
    assert len({req.messages[0]["content"] for req in out if req.messages}) == 1
    for req in out:
        assert req.messages is not None
        assert req.messages[0]["content"].startswith("You are the lettings assistant.")
        assert req.messages[1]["content"].startswith("[doc ")


def _history(turns: int, ask: str, reply: str, session: int) -> list[dict[str, Any]]:
    """A conversation's first ``turns`` exchanges (``ask`` and ``reply`` formatted with the
    session ``s`` and the turn ``k``)."""
    return [m for k in range(turns) for m in ({"role": "user", "content": ask.format(s=session, k=k)},
                                              {"role": "assistant", "content": reply.format(s=session, k=k)})]


def test_a_static_system_message_sent_behind_the_history_opens_the_request() -> None:
    """A client that sends the history first and the system prompt behind it, ahead of the
    newest question: the system message opens every request, and each later request of a
    conversation still starts with the one before it (less its newest question)."""
    system = {"role": "system", "content": "You are the academy assistant.\n\nAnswer briefly."}
    records = [{"messages": _history(turn, "S{s} question {k}?", "S{s} answer {k}.", s_)
                             + [system, {"role": "user", "content": f"S{s_} question {turn}?"}]}
               for s_ in range(4) for turn in range(4)]
    out = apply(0, requests(records))
    for k, req in enumerate(out):
        assert req.messages is not None
        assert req.messages[0] == system
        assert [m for m in req.messages if m is not req.messages[0]] == [
            m for m in records[k]["messages"] if m != system]
        if k % 4:
            before = out[k - 1].messages
            assert before is not None and list(req.messages[:len(before) - 1]) == list(before[:-1])


def test_a_product_s_own_prompt_takes_one_order_where_it_is_part_of_the_traffic() -> None:
    """Two products on one endpoint: three requests in four list a set of field bullets in a
    per-request order, the others send a prompt of their own. The bullets are not static
    (a quarter of the traffic never sends them), but the sessions that send one send all: one
    order for them, and the other product's prompt untouched."""
    rng = random.Random(11)
    fields = [f"- `field{k}`: what field {k} holds." for k in range(10)]
    other = "You rewrite job adverts.\n\nKeep them short."
    records = []
    for k in range(24):
        if k % 4 == 3:
            system = other
        else:
            system = "You extract CVs.\n\nFields:\n" + "\n".join(rng.sample(fields, len(fields))) + "\n\nReply in JSON."
        records.append({"messages": [{"role": "system", "content": system},
                                     {"role": "user", "content": f"Document {k}: text {k}."}]})
    out = apply(0, requests(records))
    cv = {req.messages[0]["content"] for k, req in enumerate(out) if k % 4 != 3 and req.messages}
    assert len(cv) == 1
    assert all(req.messages and req.messages[0]["content"] == other for k, req in enumerate(out) if k % 4 == 3)


def test_a_stamp_in_a_canned_call_s_arguments_leaves_where_its_result_is_fixed() -> None:
    """A priming look-up replayed in every request whose arguments carry the request's own
    time: most of the arguments are the stamp, but the call's result is fixed, so the
    look-up is mostly fixed and the stamp goes to the newest user turn."""
    policy = "\n".join(f"- Rule {k}: check the ward chart before dose {k}." for k in range(20))
    records = []
    for k in range(10):
        args = json.dumps({"name": "ward-policy", "as_of": f"2026-12-01T09:{10 + k}:0{k}"})
        records.append(_canned("You are the ward pharmacist's assistant.", "Load the ward policy.", "lookup", args,
                               policy, "Policy loaded.", f"Question {k}: may I crush tablet {k}?"))
    variants = canonical_fixes(requests(records), "")
    fix = next(f for _, f, d in variants if d["to"] == LAST_USER)
    out = [fix(r) or r for r in requests(records) if r is not None]
    calls = {m["tool_calls"][0]["function"]["arguments"] for r in out for m in r.messages or () if m.get("tool_calls")}
    assert calls == {json.dumps({"name": "ward-policy"})}
    for k, r in enumerate(out):
        assert r.messages is not None
        assert f"09:{10 + k}:0{k}" in r.messages[-1]["content"]


def test_instructions_sent_with_the_newest_user_turn_only_open_the_request() -> None:
    """No system message: the client appends the instructions to the newest user turn of
    each conversation (its history keeps the questions alone). In every variant they open
    the request as its system prompt, so each later request of a conversation extends the
    one before it; a turn that holds them in its history too keeps them where they are."""
    instructions = "You are the ferry desk assistant.\n\nQuote timetables exactly.\n\nNever promise a berth."
    records = [{"messages": _history(turn, "Ferry {s} question {k}?", "Answer {s}.{k}.", s_)
                             + [{"role": "user", "content": f"Ferry {s_} question {turn}?\n\n{instructions}"}]}
               for s_ in range(5) for turn in range(3)]
    reqs = requests(records)
    for variant_ in range(4):
        out = apply(variant_, reqs)
        for k, req in enumerate(out):
            assert req.messages is not None
            assert req.messages[0] == {"role": "system", "content": instructions}
            assert req.messages[-1]["content"] == f"Ferry {k // 3} question {k % 3}?"
            if k % 3:
                before = out[k - 1].messages
                assert before is not None and list(req.messages[:len(before)]) == list(before)
    # Resent with every turn (the history holds them), or sent with some newest turns only:
    # no request gets them as a system prompt (its conversation's next request would not).
    first = [{"role": "user", "content": f"Q{k}?\n\n{instructions}"} for k in range(10)]
    resent = [{"messages": [first[k]]} for k in range(5)] + [
        {"messages": [first[k], {"role": "assistant", "content": f"A{k}."},
                      {"role": "user", "content": f"Q{k} again?\n\n{instructions}"}]} for k in range(5)]
    some = [{"messages": [first[k] if k % 2 else {"role": "user", "content": f"Q{k}?"}]} for k in range(10)]
    for traffic in (resent, some):
        for req in apply(0, requests(traffic)):
            assert req.messages is not None and all(m["role"] != "system" for m in req.messages)


def test_a_system_message_of_the_request_s_own_goes_behind_the_static_opening_of_the_user_turn() -> None:
    """The client sends a per-request record (a manifest) as the system message and the
    static instructions at the head of the user turn: with what varies moved to the start
    of the last user turn, the record goes whole behind the instructions (it has no static
    unit to keep in place), and every request opens with the instructions."""
    rng = random.Random(4)
    instructions = "You are the balloon desk.\n\nCheck the wind before every answer.\n\nQuote weights in kg."
    records = []
    for k in range(12):
        manifest = "\n".join(f"{n}. Passenger {rng.randint(100, 999)} ({rng.randint(50, 110)} kg)" for n in range(1, 4))
        records.append({"messages": [{"role": "system", "content": f"Flight {k}\n{manifest}"},
                                     {"role": "user", "content": f"{instructions}\n\nCan flight {k} go?"}]})
    variants = canonical_fixes(requests(records), "")
    start = next(k for k, (_, _, details) in enumerate(variants) if details == {"to": "start-of-last-user-turn"})
    for record, req in zip(records, apply(start, requests(records))):
        assert req.messages is not None and req.messages[0]["content"] == ""
        user = req.messages[-1]["content"]
        assert user.startswith(instructions + "\n\n") and record["messages"][0]["content"] in user
        assert user.endswith("Can flight " + record["messages"][0]["content"].split("\n")[0].split()[1] + " go?")


def test_a_reading_restamped_on_a_question_in_the_history_leaves_it() -> None:
    """The client rewrites the first user turn at every request with the board's sync time
    behind the question ("... call? [board synced 07:46:40]"): in the history the reading
    leaves the question for the newest user turn, so each request of the conversation
    extends the one before it. A history turn whose changing sentence is most of it (the
    user's own words behind a "Thank you.") keeps its text."""
    records = []
    for s_ in range(4):
        for turn in range(4):
            first = f"Crew {s_} found a fault at signal {100 + s_} on the branch line; who do I call first?"
            history = [{"role": "user", "content": f"{first} [board synced 07:{10 + 4 * s_ + turn:02d}:0{turn}]"}]
            for t in range(1, turn + 1):
                history += [{"role": "assistant", "content": f"Answer {s_}.{t}."},
                            {"role": "user", "content": f"Crew {s_} follow-up {t}?"}]
            records.append({"messages": [{"role": "system", "content": "You run the signal desk."}] + history})
    out = variant(requests(records), LAST_USER)
    for k, req in enumerate(out):
        assert req.messages is not None
        turn = k % 4
        if turn:
            question = f"Crew {k // 4} found a fault at signal {100 + k // 4} on the branch line; who do I call first?"
            assert req.messages[1]["content"] == question
            assert req.messages[-1]["content"].endswith(f"[board synced 07:{10 + 4 * (k // 4) + turn:02d}:0{turn}]")
            before = out[k - 1].messages
            assert before is not None and list(req.messages[:len(before) - 1]) == list(before[:-1])
    _history_stays(_grower_sessions(6, "Thank you. My tractor {s} stalls on the north hill {t} every morning."))


def test_a_conversation_s_exchanges_keep_their_order_where_other_sessions_hold_one() -> None:
    """Sessions draw some questions (and the same answers) from a common pool: an exchange of
    the history that other sessions hold too is no reason to put it ahead of an earlier one
    of the session's own; every request still extends the one before it."""
    pool = [("How do I book the crane?", "Through the port desk."), ("Where is berth 4?", "East quay.")]
    records = []
    for s_ in range(6):
        turns = [(f"Session {s_}: my vessel is late by {s_ + 2} hours, what now?", f"Rebook for {s_}."), pool[s_ % 2],
                 (f"Session {s_}: anything else?", "No.")]
        for n in range(1, len(turns) + 1):
            history = [m for q, a in turns[:n - 1] for m in ({"role": "user", "content": q},
                                                             {"role": "assistant", "content": a})]
            records.append({"session_id": f"s{s_}",
                            "messages": [{"role": "system", "content": "You run the port desk."}] + history
                            + [{"role": "user", "content": turns[n - 1][0]}]})
    for to in (KEPT, LAST_USER):
        out = variant(requests(records), to)
        for req, record in zip(out, records):
            assert req.messages is not None and list(req.messages[:-1]) == record["messages"][:-1]


def test_a_stamp_above_the_opening_line_leaves_it_in_place() -> None:
    """Plain prompts (no chat markup) whose tracing client writes ``trace=<id>`` above the
    opening line, in its paragraph (some requests carry none: the opening is a paragraph of
    its own there, and one unit with the line). Where what varies moves, the trace goes
    behind every section and the opening keeps its place ahead of them (the variant keeping
    what varies in place puts the paragraph last, trace and all); the sections keep their
    order either way."""
    rng = random.Random(8)
    opening = "You are the balloon desk. Answer callers in plain words."
    sections = [f"## Part {k}\n" + " ".join(rng.choice(["wind", "basket", "field", "pilot", "chase"]) for _ in range(12))
                for k in range(5)]
    records = []
    for k in range(20):
        head = opening if k % 7 == 3 else f"trace={rng.getrandbits(32):08x}\n{opening}"
        records.append({"prompt": "\n\n".join([head] + sections + [f"Question: can flight {k} go?\nAnswer:"])})
    reqs = requests(records)
    for to in (KEPT, LAST_USER):
        for record, req in zip(records, variant(reqs, to)):
            prompt = req.prompt or ""
            assert [prompt.index(s) for s in sections] == sorted(prompt.index(s) for s in sections)
            if to == LAST_USER:
                assert prompt.startswith(opening)
            if to == LAST_USER and "trace=" in record["prompt"]:
                trace = record["prompt"].split("\n")[0]
                assert prompt.index(trace) > prompt.index(sections[-1]) and prompt.endswith("\nAnswer:")


def test_a_label_s_run_ends_where_a_paragraph_opens_with_a_label_of_its_own() -> None:
    """"Reference table:" labels the table under it, not the "Desk settings:" block and the
    question after it: the run under a label ends at a paragraph that opens with its own."""
    table = "| Basket | Places |\n| --- | --- |\n| Small | 4 |"
    settings_ = 'Desk settings:\n```json\n{"desk": "balloons"}\n```'
    text = f"You are the desk.\n\nReference table:\n\n{table}\n\n{settings_}\n\nPassenger question: can we fly?"
    split = split_text(text)
    assert split is not None
    assert list(split.units) == ["You are the desk.", f"Reference table:\n\n{table}", settings_,
                                 "Passenger question: can we fly?"]


def test_a_json_array_with_a_value_in_one_item_keeps_its_place() -> None:
    """The system text lists its functions as a JSON array; one description ends with a
    count stamped per request. The array holds a value in fixed text: where what varies
    moves, only the count leaves it, and the array keeps its place between the handbook
    sections (it is not a passage of the request's own to put last)."""
    rng = random.Random(3)
    head = "You dispatch snow ploughs.\n\n## Routes\nClear the school routes first."
    tail = "## Blades\nCheck the blade after every shift.\n\n## Hours\nDrivers rest after ten hours."
    tools = [{"name": f"tool_{k}", "description": f"Look up record {k} of the depot."} for k in range(5)]
    records = []
    for k in range(16):
        listed = [dict(t) for t in tools]
        listed[1]["description"] += f" Trucks on shift now: {rng.randint(3, 11)}."
        system = f"{head}\n\n```json\n{json.dumps(listed, indent=2)}\n```\n\n{tail}"
        records.append({"messages": [{"role": "system", "content": system},
                                     {"role": "user", "content": f"Route {k} has fresh snow; who goes?"}]})
    reqs = requests(records)
    # (Nine counts among sixteen requests: several share each, so the variant moving what not
    # every session sends is the one that moves it.)
    for req in variant_shared(reqs):
        assert req.messages is not None
        system = req.messages[0]["content"]
        assert system.index("## Routes") < system.index('"tool_0"') < system.index("## Blades")
        assert "Trucks on shift" not in system and "Trucks on shift" in req.messages[-1]["content"]


def test_a_value_a_few_sessions_share_goes_behind_a_product_s_own_prompt() -> None:
    """Two products on one endpoint; the claims product (about half the traffic) writes the
    policy excess, drawn from a handful of amounts, between its sections. The product's own
    prompt takes one order as static units do, and the excess goes behind it, never ahead."""
    rng = random.Random(6)
    sections = [f"## Claims part {k}\nAlways check item {k} before paying." for k in range(5)]
    tax = "You prepare tax returns.\n\n## Deductions\nList every receipt."
    records = []
    for k in range(30):
        if k % 2:
            records.append({"messages": [{"role": "system", "content": tax}, {"role": "user", "content": f"Tax {k}?"}]})
            continue
        excess = f"Excess: {rng.choice([250, 500, 750, 1000])} kr"
        system = "\n\n".join(sections[:2] + [excess] + sections[2:])
        records.append({"messages": [{"role": "system", "content": system}, {"role": "user", "content": f"Claim {k}?"}]})
    for record, req in zip(records, variant(requests(records), KEPT)):
        assert req.messages is not None
        system = req.messages[0]["content"]
        if "Excess" in record["messages"][0]["content"]:
            assert system.startswith(sections[0]) and system.split("\n\n")[-1].startswith("Excess: ")


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(["({}) ", "{}. ", "{}) "]), st.sampled_from(["abcdefgh", "ABCDEFGH", "12345678", "roman"]),
       st.integers(0, 2**16))
def test_a_list_relettered_where_its_items_moved_takes_one_order(form: str, kind: str, seed: int) -> None:
    """Criteria lettered (a) ... (h), numbered or in roman numerals in a per-request order, each
    list lettered again from its first item: the ordinals are the list's layout, so they stay in
    place while the items take one order, and every request sends one list. (Each request draws
    its order at random, as such a client does.)"""
    rng = random.Random(seed)
    ordinals = ["i", "ii", "iii", "iv", "v", "vi", "vii", "viii"] if kind == "roman" else list(kind)
    criteria = [f"The applicant {word} criterion {k}." for k, word in
                enumerate(["meets", "holds", "shows", "passes", "brings", "keeps", "names", "owns"])]
    records = []
    for k in range(12):
        order = rng.sample(criteria, len(criteria))
        listed = "\n".join(form.format(o) + c for o, c in zip(ordinals, order))
        records.append({"messages": [{"role": "system", "content": f"You shortlist.\n\nCriteria:\n{listed}\n\nBe fair."},
                                     {"role": "user", "content": f"Applicant {k}?"}]})
    out = variant(requests(records), KEPT)
    systems = {r.messages[0]["content"] for r in out if r.messages}
    assert len(systems) == 1
    lines = next(iter(systems)).split("Criteria:\n")[1].split("\n\n")[0].split("\n")
    assert [line[:len(form.format(o))] for line, o in zip(lines, ordinals)] == [form.format(o) for o in ordinals]
    assert sorted(line[len(form.format(o)):] for line, o in zip(lines, ordinals)) == sorted(criteria)


def test_a_stamp_line_over_the_instructions_in_the_first_user_turn_leaves_the_history() -> None:
    """No system message: the instructions open the first user turn, and the client stamps
    that turn with each request's send time, on a line of its own above them ("[sent
    09:14:07]"). In the history only the stamp leaves (for the newest user turn): the
    instructions' opening line stays where it was, so each request of a conversation extends
    the one before it and every conversation shares the instructions."""
    instructions = "You are the admissions desk.\n\n## Offers\nAlways check the grades.\n\n## Fees\nNever waive fees."
    records = []
    for s_ in range(4):
        for turn in range(4):
            stamp = f"[sent 09:{10 + 4 * s_ + turn:02d}:0{turn}]"
            first = f"{stamp}\n{instructions}\n\nApplicant {s_} asks about deferral?"
            history = [{"role": "user", "content": first}]
            for t in range(1, turn + 1):
                history += [{"role": "assistant", "content": f"Answer {s_}.{t}."},
                            {"role": "user", "content": f"Applicant {s_} follow-up {t}?"}]
            records.append({"messages": history})
    out = variant(requests(records), LAST_USER)
    for k, req in enumerate(out):
        assert req.messages is not None
        opening = req.messages[0]["content"]
        assert opening.startswith(instructions.split("\n\n")[0]) and "[sent" not in (opening if k % 4 else "")
        assert req.messages[-1]["content"].endswith(f"[sent 09:{10 + 4 * (k // 4) + k % 4:02d}:0{k % 4}]")
        if k % 4:
            before = out[k - 1].messages
            assert before is not None and list(req.messages[:len(before) - 1]) == list(before[:-1])


def test_a_stamp_on_an_example_s_answer_leaves_it_and_a_reply_to_a_session_s_own_question_keeps_its_value() -> None:
    """Few-shot examples whose first canned answer opens with the catalogue's date ("Stand:
    Montag, 30. November 2026."), one per day: the example's question is fixed, so the date
    answers nothing that varies; it goes to the newest user turn and every request sends the
    same examples. A conversation's reply to a question of its own keeps its value."""
    days = ["Montag, 30. November 2026", "Dienstag, 1. Dezember 2026", "Mittwoch, 2. Dezember 2026"]
    shots = [("List the ceramics of the bequest.", "Always cite the bequest. Rule applied: cite it."),
             ("Who made the clock?", "Always cite the maker. Rule applied: cite the maker.")]
    records = []
    for k in range(12):
        messages = [{"role": "system", "content": "You answer collection questions."}]
        for j, (q, a) in enumerate(shots):
            messages += [{"role": "user", "content": q},
                         {"role": "assistant", "content": (f"Stand: {days[k // 4]}. " if j == 0 else "") + a}]
        records.append({"messages": messages + [{"role": "user", "content": f"Question {k} about object {k}?"}]})
    out = variant(requests(records), LAST_USER)
    examples = {json.dumps(r.messages[1:-1]) for r in out if r.messages}
    assert len(examples) == 1 and not any(day.split(", ")[1] in next(iter(examples)) for day in days)
    for k, r in enumerate(out):
        assert r.messages is not None and days[k // 4] in r.messages[-1]["content"]
    chats = []
    for s_ in range(4):
        for turn in range(3):
            history = [m for t in range(turn) for m in (
                {"role": "user", "content": f"Session {s_} asks about case {t}?"},
                {"role": "assistant", "content": f"Case {t} closes on {days[s_ % 3]}. Always cite the rule." if t == 0
                 else "Noted. Always cite the rule."})]
            chats.append({"messages": [{"role": "system", "content": "You answer case questions."}] + history
                          + [{"role": "user", "content": f"Session {s_} question {turn}?"}]})
    _history_stays(chats)


def test_in_a_plain_prompt_a_sentence_several_tenants_share_leaves_a_tool_catalog_for_its_end() -> None:
    """A raw prompt (no chat markup) with a compact JSON tool catalog, one tool's description
    ending in a tenant's allowlist (a few tenants, several requests each): the variant that
    moves what not every session sends cuts the sentence out and puts it at the end, ahead of
    the cue; the catalog left is the same in every request and still parses."""
    tools = [{"type": "function", "function": {"name": n, "description": f"Do {n} for the member."}}
             for n in ("open_case", "book_engineer", "renew_loans")]
    allowlists = ["10.0.1.0/24", "10.0.2.0/26, 10.0.9.0/28", "172.16.4.0/24"]
    records = []
    for k in range(12):
        mine = json.loads(json.dumps(tools))
        mine[1]["function"]["description"] += f" Engineers may only connect from {allowlists[k % 3]}."
        catalog = json.dumps(mine, separators=(",", ":"))
        records.append({"prompt": f"You help members.\n\nTools (JSON):\n{catalog}\n\nBe brief and kind.\n\n"
                                  f"Member: question {k}?\nAdviser:"})
    reqs = requests(records)
    fixes = canonical_fixes(reqs, "")
    fix = next(f for _, f, d in fixes if d.get("shared_out"))
    heads = set()
    for k, req in enumerate(reqs):
        assert req is not None
        out = (fix(req) or req).prompt
        assert out is not None and out.endswith(f"Member: question {k}?\nAdviser:")
        head = out[:out.index("Engineers may only")]
        heads.add(head)
        catalog = next(p for p in out.split("\n\n") if p.startswith("Tools (JSON):\n")).split("\n", 1)[1]
        assert json.loads(catalog) == tools
        assert allowlists[k % 3] in out[len(head):]
    assert len(heads) == 1
