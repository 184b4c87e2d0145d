"""The canonical-order fix: it keeps every unit, keeps conversations extending, and is
idempotent and deterministic; and the shapes it is meant for come out in one order."""

from __future__ import annotations

import json
import unicodedata
from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.ingest.traffic import Request, parse_record
from advisor.prescribe.canonical import KEPT, LAST_USER, LAST_USER_START, canonical_fixes, normalized, split_text
from advisor.diagnose.spelling import spelling_kind

WORDS = ["alpha", "beta", "gamma", "delta", "Café", "naïve", "rules", "tone", "date:", "12:00", "#", "|", "-"]


def requests(records: list[dict[str, Any]]) -> list[Request | None]:
    return [parse_record(r, "test", k + 1) for k, r in enumerate(records)]


def apply(variant: int, reqs: list[Request | None], joiner: str = "") -> list[Request]:
    fix = canonical_fixes(reqs, joiner)[variant][1]
    out = []
    for r in reqs:
        assert r is not None
        new = fix(r)
        out.append(new if new is not None else r)
    return out


def words(req: Request) -> Counter[str]:
    """The request's words, whatever their order, spacing or normalization form."""
    texts = [req.prompt or ""] + [json.dumps(t, sort_keys=True) for t in req.tools or ()]
    for m in req.messages or ():
        c = m.get("content")
        texts += [c] if isinstance(c, str) else [p.get("text", "") for p in c or ()]
    return Counter(w for t in texts for w in unicodedata.normalize("NFC", t).split())


def roles(req: Request) -> list[Any]:
    return [(m.get("role"), m.get("tool_calls"), m.get("tool_call_id")) for m in req.messages or ()]


# ---------------------------------------------------------------- generated traffic

line = st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(" ".join)
paragraph = st.lists(line, min_size=1, max_size=3).map("\n".join)
pool = st.lists(paragraph, min_size=3, max_size=8)


@st.composite
def traffic(draw: Any) -> list[dict[str, Any]]:
    """Requests whose system message draws paragraphs from a pool in varying orders, some
    with a value of their own, as single-turn requests and growing conversations."""
    paras = draw(pool)
    records = []
    for k in range(draw(st.integers(2, 8))):
        chosen = draw(st.lists(st.sampled_from(paras), min_size=1, max_size=5))
        if draw(st.booleans()):
            chosen.insert(draw(st.integers(0, len(chosen))), f"Request {k} at {k}:00")
        form = draw(st.sampled_from(["NFC", "NFD"]))
        system = unicodedata.normalize(form, "\n\n".join(chosen))
        turns = [{"role": "system", "content": system}]
        for t in range(draw(st.integers(1, 3))):
            turns.append({"role": "user", "content": draw(paragraph) + f"\n\nturn {t}"})
            records.append({"messages": [dict(m) for m in turns], "session_id": f"s{k}"})
            turns.append({"role": "assistant", "content": draw(paragraph)})
    return records


@settings(max_examples=60, deadline=None)
@given(traffic(), st.sampled_from([0, 1, 2, 3]))
def test_every_unit_is_kept(records: list[dict[str, Any]], variant: int) -> None:
    reqs = requests(records)
    for before, after in zip(reqs, apply(variant, reqs)):
        assert before is not None
        assert words(after) == words(before)
        assert roles(after) == roles(before)


@settings(max_examples=60, deadline=None)
@given(traffic())
def test_a_conversation_still_extends(records: list[dict[str, Any]]) -> None:
    reqs = requests(records)
    out = apply(0, reqs)
    last: dict[str | None, tuple[dict[str, Any], ...]] = {}
    for before, after in zip(reqs, out):
        assert before is not None and after.messages is not None
        earlier = last.get(before.session)
        if earlier is not None:
            # The history is the previous request plus the reply: same messages, same text.
            assert after.messages[:len(earlier)] == earlier
        last[before.session] = after.messages


@settings(max_examples=60, deadline=None)
@given(traffic())
def test_idempotent_and_deterministic(records: list[dict[str, Any]]) -> None:
    reqs = requests(records)
    fixes = canonical_fixes(reqs, "")
    once = apply(0, reqs)
    # The same fix on its own output changes nothing.
    assert all(fixes[0][1](r) is None for r in once)
    # Nor does the canonical form of the canonical traffic.
    assert apply(0, list(once)) == once
    # The same traffic gives the same rewrite.
    assert apply(0, requests(records)) == once


# ---------------------------------------------------------------- the shapes


def test_rag_system_message_puts_instructions_first_and_the_time_last() -> None:
    passages = [f"Passage {k}: fact number {k} about the product." for k in range(6)]
    rules = "Answer from the passages only.\nCite the passage number."
    records = []
    for k in range(10):
        text = "\n\n".join([f"Now: 2026-01-0{k % 9 + 1} 10:{k:02d}", passages[k % 6], passages[(k + 1) % 6], rules])
        records.append({"messages": [{"role": "system", "content": text}, {"role": "user", "content": f"q{k}"}]})
    out = apply(0, requests(records))
    for r in out:
        assert r.messages is not None
        content = r.messages[0]["content"]
        assert content.startswith(rules) and content.split("\n\n")[-1].startswith("Now:")
    moved = apply(2, requests(records))
    assert moved[0].messages is not None
    assert "Now:" not in moved[0].messages[0]["content"] and moved[0].messages[1]["content"].startswith("q0\n\nNow:")
    first = apply(1, requests(records))
    assert first[0].messages is not None and first[0].messages[1]["content"].startswith("Now:")



def test_passages_drawn_from_a_pool_go_before_a_value_of_their_own() -> None:
    """Two units no other request sends, a clock and the passages a request retrieved (one
    paragraph whose lines other requests retrieve too): the passages, drawn from a pool, are
    the less volatile and come first; the clock, all its own, last. Their text is kept."""
    pool = [f"[doc {k}] fact number {k} about the product." for k in range(8)]
    rules = "Answer from the passages only.\nCite the passage number."
    records = []
    for k in range(12):
        docs = "Context:\n" + "\n".join([pool[k % 8], pool[(3 * k + 1) % 8]])
        text = "\n\n".join([f"Now: 2026-01-01 10:{k:02d}:{7 * k % 60:02d}", docs, rules])
        records.append({"messages": [{"role": "system", "content": text}, {"role": "user", "content": f"q{k}"}]})
    for k, r in enumerate(apply(0, requests(records))):
        assert r.messages is not None
        units = r.messages[0]["content"].split("\n\n")
        assert units[0] == rules and units[1].startswith("Context:\n") and units[2].startswith("Now:"), units
        assert sorted(units) == sorted(records[k]["messages"][0]["content"].split("\n\n"))

def test_tool_subsets_share_one_order_and_one_key_order() -> None:
    def tool(name: str, flip: bool) -> dict[str, Any]:
        fn = {"name": name, "description": f"does {name}"}
        return {"type": "function", "function": dict(reversed(fn.items())) if flip else fn}

    subsets = [["c", "a", "b"], ["b", "a"], ["a", "c"], ["b", "c", "a"], ["a"], ["c", "b"]]
    records = [{"messages": [{"role": "user", "content": "hi"}], "tools": [tool(n, k % 2 == 1) for n in s]}
               for k, s in enumerate(subsets)]
    out = apply(0, requests(records))
    orders = [[t["function"]["name"] for t in r.tools or ()] for r in out]
    ranking = ["a", "b", "c"]  # a in all six, b and c in four: by count, then by name
    assert all(o == [n for n in ranking if n in o] for o in orders)
    assert len({json.dumps(t) for r in out for t in r.tools or () if t["function"]["name"] == "a"}) == 1


def test_unicode_forms_and_wrapping_become_one_surface() -> None:
    prose = "Le café est ouvert de huit heures à dix-huit heures, sauf le dimanche et les jours fériés."
    wrapped = [prose, prose.replace(" de huit", "\nde huit"), unicodedata.normalize("NFD", prose)]
    records = [{"messages": [{"role": "system", "content": wrapped[k % 3]}, {"role": "user", "content": f"q{k}"}]}
               for k in range(7)]
    out = apply(0, requests(records))
    assert {r.messages[0]["content"] for r in out if r.messages} == {prose}


def test_json_members_table_rows_and_images() -> None:
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}
    records = []
    for k in range(6):
        config = json.dumps({"nonce": f"n{k}", "mode": "strict", "lang": "en"} if k % 2 else
                            {"mode": "strict", "nonce": f"n{k}", "lang": "en"}, indent=2)
        table = "| name | qty |\n|---|---|\n" + "\n".join([f"| item{k} | {k} |", "| bolt | 4 |", "| nut | 9 |"][k % 3:] +
                                                       [f"| item{k} | {k} |", "| bolt | 4 |", "| nut | 9 |"][:k % 3])
        records.append({"messages": [
            {"role": "system", "content": config},
            {"role": "user", "content": [{"type": "text", "text": f"look {k}"}, image, {"type": "text", "text": table}]},
            {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function",
                                                                   "function": {"name": "f", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "ok"}]})
    reqs = requests(records)
    for before, after in zip(reqs, apply(0, reqs)):
        assert before is not None and before.messages is not None and after.messages is not None
        system = after.messages[0]["content"]
        assert json.loads(system) == json.loads(before.messages[0]["content"])
        assert list(json.loads(system)) == ["mode", "lang", "nonce"]
        parts = after.messages[1]["content"]
        assert parts[1] == image and parts[0]["text"].startswith("look")  # parts around an image stay put
        rows = parts[2]["text"].split("\n")
        assert rows[:2] == ["| name | qty |", "|---|---|"] and rows[2:4] == ["| bolt | 4 |", "| nut | 9 |"]
        assert after.messages[2:] == before.messages[2:]


def test_splitter_chain() -> None:
    split = split_text("## Title\n\nbody one\n\nbody two")
    assert split is not None and split.units == ("## Title\n\nbody one", "body two")  # a heading stays with its text
    split = split_text("Sources:\n\npassage one\n\npassage two")
    assert split is not None and split.units == ("passage one", "passage two")  # a label stays above its items
    split = split_text("Task: x\nThought: y\nThought:")
    assert split is not None and split.units == ("Task: x", "Thought: y") and split.fixed[-1] == "\nThought:"
    split = split_text("a\nb\nc")
    assert split is not None and split.kind == "line"
    assert split_text("one line only") is None
    split = split_text('{"a": 1, "b": [1, 2]}')
    assert split is not None and split.kind == "member"
    assert split_text('{"a":1,  "b":2}') is None  # no layout gives it back exactly: left alone
    assert split_text("```\nline b\nline a\n```") is None  # code keeps its lines in order
    split = split_text('```json\n{\n  "a": 1,\n  "b": 2\n}\n```')
    assert split is not None and split.join(list(reversed(split.units))) == '```json\n{\n  "b": 2,\n  "a": 1\n}\n```'


def test_a_labelled_json_object_splits_into_members_in_its_own_indent() -> None:
    split = split_text('Config:\n{\n "b": 2,\n "a": "x"\n}')
    assert split is not None and split.kind == "member" and split.fixed[0] == "Config:\n"
    assert split.join(list(reversed(split.units))) == 'Config:\n{\n "a": "x",\n "b": 2\n}'
    # A layout json.dumps cannot give back (a list kept on one line under an indent): lines.
    split = split_text('Config:\n{\n "b": 2,\n "a": [1, 2]\n}')
    assert split is not None and split.kind == "line"


json_value = st.recursive(st.none() | st.booleans() | st.integers(-999, 999) | st.text(max_size=6),
                          lambda inner: st.lists(inner, max_size=3), max_leaves=6)


@settings(max_examples=80, deadline=None)
@given(st.dictionaries(st.text(min_size=1, max_size=6), json_value, min_size=2, max_size=5),
       st.sampled_from([1, 2, 3, 4, "\t"]), st.sampled_from(["", "Config:\n", "## Settings\nThe settings:\n"]))
def test_an_indented_json_object_round_trips_through_its_members(obj: dict[str, Any], indent: int | str,
                                                                  label: str) -> None:
    text = label + json.dumps(obj, indent=indent, ensure_ascii=False)
    split = split_text(text)
    assert split is not None and split.kind == "member"
    assert split.join(list(split.units)) == text
    back = split.join(list(reversed(split.units)))
    assert back.startswith(label) and json.loads(back[len(label):]) == obj


cell = st.text(alphabet="abcdefxyz 0123456789.", min_size=1, max_size=5)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.text(alphabet="abcdefghij_", min_size=1, max_size=6), min_size=2, max_size=5, unique=True),
       st.integers(2, 5), st.randoms(use_true_random=False), st.sampled_from([",", "\t"]), st.data())
def test_a_table_in_any_column_order_has_one_key(header: list[str], rows: int, rng: Any, sep: str,
                                                 data: Any) -> None:
    body = [[data.draw(cell) for _ in header] for _ in range(rows)]
    order = list(range(len(header)))
    rng.shuffle(order)

    def table(cols: list[int]) -> str:
        return "Price list:\n" + "\n".join(sep.join(r[c] for c in cols) for r in [header, *body]) + "\nThanks."

    a, b = table(order), table(list(range(len(header))))
    assert normalized(a) == normalized(b)
    if a.split() != b.split():  # (one cell's spaces may make two orders one text but for spacing)
        assert spelling_kind(a, b) == "column-order"


def test_prose_with_commas_is_no_table() -> None:
    text = "Hello, world\nGood morning, all\nSee you, soon"
    assert normalized(text) == " ".join(text.split())  # ", " separates no names
    assert normalized("a1,b\nc,d\ne,f") == "a1,b c,d e,f"  # a header with a digit: values, no table
    assert normalized("b,a\n1,2\n3,4") == "a,b 2,1 4,3"


def test_variants_are_default_first_and_none_when_nothing_changes() -> None:
    records = [{"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": f"q{k}"}]} for k in range(3)]
    variants = canonical_fixes(requests(records), "")
    assert [v[2]["to"] for v in variants] == [KEPT, LAST_USER_START, LAST_USER, LAST_USER_START]
    assert [bool(v[2].get("shared_out")) for v in variants] == [False, False, False, True]
    reqs = requests(records)
    assert all(v[1](r) is None for v in variants for r in reqs if r is not None)
    prompts = [{"prompt": f"Rules.\n\nValue {k}"} for k in range(3)]
    out = apply(0, requests(prompts))
    assert [r.prompt for r in out] == [f"Rules.\n\nValue {k}" for k in range(3)]


def test_what_moves_goes_after_the_opening_every_session_sends() -> None:
    """A unique unit of the system message moved to the last user turn lands after the
    instruction every request opens that turn with, not ahead of it: that instruction stays
    in the prefix all requests share."""
    rules, opening = "Answer briefly.\nCite sources.", "Use the rules above and answer in one sentence."
    records = [{"messages": [{"role": "system", "content": f"{rules}\n\nToday: 2026-01-0{k + 1}"},
                             {"role": "user", "content": f"{opening}\n\nQuestion {k}: why?"}]} for k in range(8)]
    for k, r in enumerate(apply(1, requests(records))):
        assert r.messages is not None
        assert r.messages[0]["content"] == rules
        assert r.messages[1]["content"] == f"{opening}\n\nToday: 2026-01-0{k + 1}\n\nQuestion {k}: why?"
    # The same in content parts: a part of its own after the opening part.
    parts = [{"messages": [{"role": "system", "content": f"{rules}\n\nToday: 2026-01-0{k + 1}"},
                           {"role": "user", "content": [{"type": "text", "text": opening},
                                                        {"type": "text", "text": f"Question {k}: why?"}]}]}
             for k in range(8)]
    for k, r in enumerate(apply(1, requests(parts), joiner="\n\n")):
        assert r.messages is not None
        assert [p["text"] for p in r.messages[1]["content"]] == [opening, f"Today: 2026-01-0{k + 1}", f"Question {k}: why?"]
    # Nothing every request opens with: the start of the turn, as before.
    bare = [{"messages": [{"role": "system", "content": f"{rules}\n\nToday: 2026-01-0{k + 1}"},
                          {"role": "user", "content": f"Question {k}: why?"}]} for k in range(8)]
    assert all(r.messages is not None and r.messages[1]["content"].startswith("Today:") for r in apply(1, requests(bare)))


def test_examples_sampled_from_a_pool_move_out_in_one_order() -> None:
    """Few-shot examples sampled per request (each in some requests, none in nearly all): the
    variant that moves what not every session sends puts them after the opening of the last
    user turn, every request's examples in one global order; the rest of the system message
    stays, in its order."""
    import random

    rng = random.Random(3)
    pool = [f"Q: question {k}?\nA: answer number {k}." for k in range(6)]
    opening = "Follow the examples above."
    records, chosen = [], []
    for k in range(24):
        picked = rng.sample(pool, 3)
        chosen.append(picked)
        system = "Be helpful.\n\nExamples:\n" + "\n\n".join(picked) + "\n\nStyle:\nShort answers."
        records.append({"messages": [{"role": "system", "content": system},
                                     {"role": "user", "content": f"{opening}\n\nQuestion {k}?"}]})
    before: set[tuple[str, str]] = set()
    for k, r in enumerate(apply(3, requests(records))):
        assert r.messages is not None
        assert r.messages[0]["content"] == "Be helpful.\n\nStyle:\nShort answers."
        user = r.messages[1]["content"]
        assert user.startswith(opening + "\n\nExamples:\n") and user.endswith(f"\n\nQuestion {k}?")
        shown = user[len(opening + "\n\nExamples:\n"):-len(f"\n\nQuestion {k}?")].split("\n\n")
        assert sorted(shown) == sorted(chosen[k])
        before |= {(a, b) for i, a in enumerate(shown) for b in shown[i + 1:]}
    # One order for all: no two examples ever come the other way round.
    assert not any((b, a) in before for a, b in before)


def test_a_part_of_the_system_message_moves_whole() -> None:
    """A system message sent as text parts: a part not every request sends moves to the last
    user turn as a part of its own, after the parts every request opens that turn with."""
    rules, style, opening = "Rules:\n- Be brief.", "Style:\n- Be kind.", "Use the rules above."
    records = [{"messages": [
        {"role": "system", "content": [{"type": "text", "text": t} for t in (rules, f"Ticket {k}: printer jam {k}", style)]},
        {"role": "user", "content": [{"type": "text", "text": opening}, {"type": "text", "text": f"Why {k}?"}]}]}
        for k in range(8)]
    for k, r in enumerate(apply(1, requests(records), joiner="\n\n")):
        assert r.messages is not None
        assert [p["text"] for p in r.messages[0]["content"]] == [rules, style]
        assert [p["text"] for p in r.messages[1]["content"]] == [opening, f"Ticket {k}: printer jam {k}", f"Why {k}?"]


def test_a_label_heads_only_its_own_pool() -> None:
    """A labelled unit whose text the log never shows without its label is one unit: its label
    is not put over other content that moves with it (a tenant's line)."""
    records = [{"messages": [{"role": "system", "content": f"Be helpful.\n\nYou speak for tenant {k % 3}.\n\nAccount:\nuser id {k}"},
                             {"role": "user", "content": f"Question {k}?"}]} for k in range(9)]
    for k, r in enumerate(apply(3, requests(records))):
        assert r.messages is not None
        user = r.messages[1]["content"]
        assert f"Account:\nuser id {k}" in user and f"Account:\nYou speak" not in user


def test_moving_the_pool_out_is_idempotent() -> None:
    ex = ["Q: q0?\nA: a0.", "Q: q1?\nA: a1.", "Q: q2?\nA: a2."]
    records = [{"messages": [{"role": "system", "content": "Be helpful.\n\nExamples:\n" + ex[k % 3] + "\n\n" + ex[(k + 1) % 3]},
                             {"role": "user", "content": ("Follow.\n\n" if k % 2 else "") + f"Question {k}?"}]} for k in range(6)]
    reqs = requests(records)
    fix = canonical_fixes(reqs, "")[3][1]
    once = apply(3, reqs)
    assert all(fix(r) is None for r in once)
    for r in once:  # the label heads the examples, and what the user wrote stays as written
        assert r.messages is not None and r.messages[1]["content"].startswith("Examples:\nQ: q")


def test_a_closing_cue_stays_last() -> None:
    """Moved into a user turn that is all static, text goes after it but before the cue the
    model answers after ("Answer:")."""
    records = [{"messages": [{"role": "system", "content": f"Rules.\n\nToday {k}"},
                             {"role": "user", "content": "Summarize the rules.\n\nAnswer:"}]} for k in range(6)]
    for k, r in enumerate(apply(1, requests(records))):
        assert r.messages is not None
        assert r.messages[1]["content"] == f"Summarize the rules.\n\nToday {k}\n\nAnswer:"


def test_a_raw_prompt_ends_with_its_cue_whatever_moves_ahead_of_it() -> None:
    """A prompt without chat markup (plain "### Section" labels, one text): its last unit,
    static behind per-request text, is where the model answers; the per-request passages go
    after the instructions, the question and the cue stay last, every word kept. Written with
    role headings ("### User"), the prompt is turns: the passages go to the user's, and the
    assistant's heading still ends the prompt."""
    pool = [f"[doc {k}] fact number {k} about the product." for k in range(8)]
    rules = "Answer from the passages only.\n\nCite the passage number."
    for system, user, cue in (("Instructions", "Question", "Answer"), ("System", "User", "Assistant")):
        records = []
        for k in range(10):
            docs = "\n\n".join([pool[k % 8], pool[(3 * k + 1) % 8]])
            records.append({"prompt": f"### {system}\n{docs}\n\n{rules}\n\n### {user}\nQuestion {k}?\n\n### {cue}\n"})
        for variant in range(4):
            for k, r in enumerate(apply(variant, requests(records))):
                end = f"### {user}\nQuestion {k}?\n\n### {cue}\n" if cue == "Answer" else f"\n\n### {cue}\n"
                assert r.prompt is not None and r.prompt.endswith(end), r.prompt
                assert r.prompt.index("Cite the passage number.") < r.prompt.index("[doc ")
                assert words(r) == words(requests([records[k]])[0])  # type: ignore[arg-type]
    # A static last unit that is no cue is ordered like any other: static sections in
    # another order per session come out in one.
    rotated = [{"prompt": "\n\n".join(["Alpha rules.", "Beta rules.", "Gamma rules."][k % 3:]
                                      + ["Alpha rules.", "Beta rules.", "Gamma rules."][:k % 3])} for k in range(9)]
    assert len({r.prompt for r in apply(0, requests(rotated))}) == 1


def test_a_label_heads_what_it_labels_not_the_static_text_its_run_took_in() -> None:
    """"Retrieved passages:" runs up to the next label, so the persona after the passages is in
    its unit: the persona goes ahead of the label, the label stays over the passages."""
    pool = [f"[doc {k}] fact number {k} about the product." for k in range(8)]
    persona, rules = "You are Quill, the assistant of Kestrel.", "## Rules\n\nBe brief."
    records = []
    for k in range(10):
        docs = "Retrieved passages:\n\n" + "\n\n".join([pool[k % 8], pool[(3 * k + 1) % 8]])
        records.append({"messages": [{"role": "system", "content": f"{docs}\n\n{persona}\n\n{rules}"},
                                     {"role": "user", "content": f"Question {k}?"}]})
    for r in apply(0, requests(records)):
        assert r.messages is not None
        system = r.messages[0]["content"]
        assert system.index(persona) < system.index("Retrieved passages:\n\n[doc ")


def test_passages_that_stay_put_share_one_order_in_the_pooled_variant() -> None:
    """With nothing to move out to (a prompt of one text), the variant that orders what several
    sessions share puts each request's passages in one global order where they stand."""
    pool = [f"[doc {k}] fact number {k} about the product." for k in range(6)]
    records = [{"prompt": "Rules: be brief.\n\n" + "\n\n".join([pool[k % 6], pool[(k + 2) % 6]][::1 if k % 2 else -1])
                + f"\n\nQuestion {k}?"} for k in range(12)]
    seen: set[tuple[str, str]] = set()
    for r in apply(3, requests(records)):
        assert r.prompt is not None
        docs = [p for p in r.prompt.split("\n\n") if p.startswith("[doc ")]
        seen |= {(a, b) for i, a in enumerate(docs) for b in docs[i + 1:]}
    assert not any((b, a) in seen for a, b in seen)


def test_tool_subsets_of_one_pool_can_all_send_the_pool() -> None:
    """Each request sends a subset of one pool of tools: the pool is every tool the subsets
    draw from, in first-seen order; with it every request that sends tools sends all of them
    in one order. A tool whose form varies per request (a shopper's coupons in its
    description) is no pool member and stays with its own request only."""
    from advisor.prescribe.canonical import canonical_fix, canonical_rounds, tool_pool

    def tool(name: str, text: str = "") -> dict[str, Any]:
        return {"type": "function", "function": {"name": name, "description": text or f"does {name}"}}

    subsets = [["a", "b"], ["b", "c"], ["a", "c", "d"], ["d"], ["a", "b", "c"], ["c", "d"]]
    records: list[dict[str, Any]] = [{"messages": [{"role": "user", "content": f"q{k}"}],
                                      "tools": [tool(n) for n in s] + ([tool("coupon", f"codes C{k}")] if k % 2 else [])}
                                     for k, s in enumerate(subsets)]
    records.append({"messages": [{"role": "user", "content": "no tools"}]})
    # Another app's request, with a tool of its own only: it draws nothing from the pool.
    records.append({"messages": [{"role": "user", "content": "other app"}], "tools": [tool("zz_own")]})
    reqs = requests(records)
    rounds = canonical_rounds(reqs)
    pool = tool_pool(rounds)
    assert pool is not None and [t["function"]["name"] for t in pool[0]] == ["a", "b", "c", "d"]
    fix = canonical_fix(rounds, KEPT, "", pool)
    lists = []
    for k, r in enumerate(reqs):
        assert r is not None
        out = fix(r) or r
        names = [t["function"]["name"] for t in out.tools or ()]
        if k >= len(subsets):
            # A request without tools is not given any; another app's keeps its own.
            assert names == ([] if k == len(subsets) else ["zz_own"])
            continue
        assert sorted(n for n in names if n != "coupon") == ["a", "b", "c", "d"]
        assert ("coupon" in names) == bool(k % 2) and (names[-1] == "coupon" if k % 2 else True)
        lists.append([n for n in names if n != "coupon"])
    assert all(names == lists[0] for names in lists)
    # Every tool in (nearly) every request: nothing to add.
    full = requests([{"messages": [{"role": "user", "content": f"q{k}"}], "tools": [tool(n) for n in "abc"]}
                     for k in range(6)])
    assert tool_pool(canonical_rounds(full)) is None
    # A tool per tenant, never sent with another tenant's, and two apps whose tool sets never
    # meet: no pool (handing every request the others' tools is no fix).
    tenants = requests([{"messages": [{"role": "user", "content": f"q{k}"}],
                         "tools": [tool(f"search_tenant_{k % 4}"), tool("static_a"), tool("static_b")]}
                        for k in range(12)])
    assert tool_pool(canonical_rounds(tenants)) is None
    apps = requests([{"messages": [{"role": "user", "content": f"q{k}"}],
                      "tools": [tool(n) for n in (["a", "b"] if k % 2 else ["c", "d"])][: 1 + k % 3 // 2 + 1]}
                     for k in range(12)])
    assert tool_pool(canonical_rounds(apps)) is None
