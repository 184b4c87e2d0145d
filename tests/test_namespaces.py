"""Namespaces the engines keep apart (issue 36, point 6): a cache salt, SGLang's extra_key,
a LoRA adapter, and multimodal items at their placeholder tokens."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from advisor.index.analyze import Analyzer
from advisor.index.geometry import CacheGeometry, CacheGroup
from advisor.ingest.cache_keys import mark_media, media_id, media_of, placeholder_ids
from advisor.ingest.formats import iter_requests
from advisor.ingest.ids import MEDIA_ID_BASE, as_array
from advisor.ingest.pipeline import CacheKeys, Sequence
from advisor.ingest.source import SkipLog, open_traffic
from advisor.ingest.tokenizers import load_tokenizer
from advisor.ingest.traffic import BadRecord, Skip, parse_record
from tests.conftest import ROOT
from tests.oracle import cached_tokens

SYSTEM = ("You are the support assistant of an online bookshop. Answer politely, cite the order number the "
          "customer gives, never invent a tracking code, and hand refunds over to a human colleague.")
# A multimodal template that loops over content parts: an image part renders as <|image|>,
# one special token of the built-in Llama 3 tokenizer.
LLAMA4 = ROOT / "tests" / "chat_templates" / "official" / "llama4.jinja"
USERS = ("ana", "ben", "cho")
QUESTIONS = ("Where is my order 1042?", "Can I change the delivery address of order 1042?",
             "Order 1042 arrived damaged, what now?")


def chat(user: Any, **keys: Any) -> dict[str, Any]:
    return {"messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}], **keys}


def image(url: str, **extra: Any) -> dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": url}, **extra}


def write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def run(path: Path, engine: str = "sglang", page: int = 1, chat_template: Path | None = None):
    skips = SkipLog(quiet=True)
    seqs = list(open_traffic([path], "llama3", chat_template, None, 512, skips, engine=engine))
    analyzer = Analyzer(page)
    per_request = [analyzer.add(s) for s in seqs]
    return seqs, per_request, analyzer, skips


def per_user_traffic(salted: bool) -> list[dict[str, Any]]:
    # Every user asks every question, interleaved: the system prompt is shared by all.
    return [chat(q + f" ({u})", **({"cache_salt": f"salt-of-{u}"} if salted else {}))
            for q in QUESTIONS for u in USERS]


def within_namespaces(seqs: list[Sequence], page: int = 1) -> list[int]:
    """The oracle's cached tokens, each request against the earlier ones of its namespace."""
    expected = [0] * len(seqs)
    for namespace in {s.namespace for s in seqs}:
        mine = [i for i, s in enumerate(seqs) if s.namespace == namespace]
        for i, cached in zip(mine, cached_tokens([seqs[i].ids.tolist() for i in mine], page)):
            expected[i] = cached
    return expected


# --- salts ------------------------------------------------------------------------------


@pytest.mark.parametrize("engine", ["sglang", "vllm"])
@pytest.mark.parametrize("page", [1, 16])
def test_a_salt_per_user_leaves_only_the_reuse_within_each_user(tmp_path: Path, engine: str, page: int) -> None:
    salted = write(tmp_path / "salted.jsonl", per_user_traffic(True))
    plain = write(tmp_path / "plain.jsonl", per_user_traffic(False))
    seqs, per_request, analyzer, skips = run(salted, engine, page)
    plain_seqs, _, plain_analyzer, _ = run(plain, engine, page)
    res = analyzer.result
    assert skips.count == 0 and len(seqs) == 9
    # The tokens are the same with or without the salt: only the namespaces differ.
    assert [s.ids.tolist() for s in seqs] == [s.ids.tolist() for s in plain_seqs]
    assert {s.namespace for s in seqs} == {f'tokens#{{"cache_salt":"salt-of-{u}"}}' for u in USERS}
    assert all(s.base_namespace == "tokens" for s in seqs)
    # Each request shares only with the same user's earlier requests.
    expected = within_namespaces(seqs, page)
    assert per_request == expected
    assert res.cached_tokens == sum(expected)
    # The figure without the salts is the run without them.
    assert res.unsalted_cached_tokens == plain_analyzer.result.cached_tokens
    assert res.key_cost_tokens == plain_analyzer.result.cached_tokens - res.cached_tokens > 0
    assert res.unsalted_hit_rate == pytest.approx(plain_analyzer.result.hit_rate)
    assert res.hit_rate < plain_analyzer.result.hit_rate
    assert res.keyed_requests == 9 and res.namespaces == 3
    assert plain_analyzer.result.key_cost_tokens is None and plain_analyzer.result.namespaces == 1


def test_the_figure_without_keys_counts_requests_before_the_first_key(tmp_path: Path) -> None:
    # Unsalted requests first, then salted ones, then unsalted again: the second tree starts at
    # the first salt, and the requests before it still count (they sit in the plain tree).
    records = [chat(QUESTIONS[0]), chat(QUESTIONS[1]), chat(QUESTIONS[0], cache_salt="s"),
               chat(QUESTIONS[2], cache_salt="t"), chat(QUESTIONS[2]), chat(QUESTIONS[1], cache_salt="s")]
    stripped = [{k: v for k, v in r.items() if k != "cache_salt"} for r in records]
    seqs, per_request, analyzer, _ = run(write(tmp_path / "mixed.jsonl", records))
    plain_seqs, plain_per_request, plain_analyzer, _ = run(write(tmp_path / "plain.jsonl", stripped))
    assert plain_per_request == cached_tokens([s.ids.tolist() for s in plain_seqs])
    assert per_request == within_namespaces(seqs)
    assert analyzer.result.unsalted_cached_tokens == plain_analyzer.result.cached_tokens
    assert analyzer.result.keyed_requests == 3


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from([None, "a", "b"]), st.integers(0, 2), st.lists(st.integers(0, 3), max_size=12)),
                min_size=1, max_size=25), st.sampled_from([1, 4]))
def test_generated_salted_traffic_equals_the_oracle(tmp_path_factory, spec, page) -> None:
    prefixes = [[500 + 50 * p + i for i in range(8 * p)] for p in range(3)]
    records = []
    for salt, p, tail in spec:
        ids = prefixes[p] + tail or [1]
        records.append({"input_ids": ids, **({"cache_salt": salt} if salt is not None else {})})
    path = write(tmp_path_factory.mktemp("t") / "ids.jsonl", records)
    seqs, per_request, analyzer, _ = run(path, page=page)
    assert per_request == within_namespaces(seqs, page)
    unsalted = sum(cached_tokens([r["input_ids"] for r in records], page))
    if any(salt is not None for salt, _, _ in spec):
        assert analyzer.result.unsalted_cached_tokens == unsalted
    else:
        assert analyzer.result.unsalted_cached_tokens is None and analyzer.result.cached_tokens == unsalted


def test_the_same_salt_shares_and_a_salted_request_shares_nothing_with_an_unsalted_one(tmp_path: Path) -> None:
    records = [chat(QUESTIONS[0]), chat(QUESTIONS[0], cache_salt="k"), chat(QUESTIONS[0], cache_salt="k")]
    seqs, per_request, _, _ = run(write(tmp_path / "t.jsonl", records), "vllm")
    # vLLM salts the first block, and every later block chains from it: nothing is shared.
    assert per_request == [0, 0, len(seqs[2].ids)]


@pytest.mark.parametrize("salt", ["", "a/b", "user@host", "back\\slash", "x" * 129])
def test_vllm_refuses_the_salts_its_server_refuses(tmp_path: Path, salt: str) -> None:
    path = write(tmp_path / "t.jsonl", [chat("Hi", cache_salt=salt), chat("Hi", cache_salt="x" * 128)])
    seqs, _, _, skips = run(path, "vllm")
    assert len(seqs) == 1 and seqs[0].request.line == 2
    assert skips.count == 1 and skips.items[0].line == 1 and "cache_salt" in skips.items[0].reason
    seqs, _, _, skips = run(path, "sglang")  # SGLang checks only that it is a string
    assert len(seqs) == 2 and skips.count == 0


def test_sglang_takes_an_empty_salt_or_extra_key_for_none(tmp_path: Path) -> None:
    records = [chat("Hi"), chat("Hi", cache_salt=""), chat("Hi", extra_key="")]
    seqs, per_request, analyzer, _ = run(write(tmp_path / "t.jsonl", records), "sglang")
    assert {s.namespace for s in seqs} == {"tokens"} and per_request[1] == per_request[2] == len(seqs[0].ids)
    assert analyzer.result.key_cost_tokens is None


# --- extra_key and LoRA adapters -----------------------------------------------------------


def test_extra_key_is_a_namespace_under_sglang_and_no_field_of_vllm(tmp_path: Path) -> None:
    records = [chat(QUESTIONS[0], extra_key="tenant-a"), chat(QUESTIONS[0], extra_key="tenant-b"),
               chat(QUESTIONS[0], extra_key="tenant-a")]
    path = write(tmp_path / "t.jsonl", records)
    seqs, per_request, analyzer, _ = run(path, "sglang")
    full = len(seqs[0].ids)
    assert per_request == [0, 0, full]
    assert analyzer.result.unsalted_cached_tokens == 2 * full and analyzer.result.namespaces == 2
    seqs, per_request, analyzer, _ = run(path, "vllm")
    assert per_request == [0, full, full] and {s.namespace for s in seqs} == {"tokens"}
    assert analyzer.result.key_cost_tokens is None


@pytest.mark.parametrize("engine", ["sglang", "vllm"])
def test_each_lora_adapter_is_a_namespace(tmp_path: Path, engine: str) -> None:
    records = [chat(QUESTIONS[0], lora_name="sql"), chat(QUESTIONS[0], lora_path="sql"),
               chat(QUESTIONS[0], lora_id="chat"), chat(QUESTIONS[0])]
    seqs, per_request, analyzer, _ = run(write(tmp_path / "t.jsonl", records), engine)
    full = len(seqs[0].ids)
    assert [s.request.lora for s in seqs] == ["sql", "sql", "chat", None]
    assert per_request == [0, full, 0, 0]
    assert analyzer.result.unsalted_cached_tokens == 3 * full and analyzer.result.namespaces == 3


def test_sglang_keeps_extra_key_lora_and_salt_apart_together(tmp_path: Path) -> None:
    records = [chat("Hi", extra_key="a"), chat("Hi", extra_key="a", lora_path="sql"),
               chat("Hi", extra_key="a", cache_salt="s"), chat("Hi", extra_key="a", lora_path="sql", cache_salt="s"),
               chat("Hi", lora_path="sql", cache_salt="s", extra_key="a")]
    seqs, per_request, _, _ = run(write(tmp_path / "t.jsonl", records), "sglang")
    assert len({s.namespace for s in seqs}) == 4 and per_request[:4] == [0, 0, 0, 0]
    assert per_request[4] == len(seqs[4].ids)


def test_hash_id_traces_take_the_keys_too(tmp_path: Path) -> None:
    records = [{"hash_ids": [1, 2, 3], "block_size": 16, "cache_salt": "a"},
               {"hash_ids": [1, 2, 3], "block_size": 16, "cache_salt": "b"},
               {"hash_ids": [1, 2, 4], "block_size": 16, "cache_salt": "a"}]
    seqs, per_request, analyzer, _ = run(write(tmp_path / "t.jsonl", records))
    assert per_request == [0, 0, 32]
    assert all(s.base_namespace == f"hash:{tmp_path / 't.jsonl'}" for s in seqs)
    assert analyzer.result.unsalted_cached_tokens == 48 + 32


def test_a_key_must_be_a_string() -> None:
    with pytest.raises(BadRecord, match="'cache_salt' must be a string"):
        parse_record({"prompt": "hi", "cache_salt": ["a", "b"]}, "x", 1)
    with pytest.raises(BadRecord, match="'extra_key' must be a string"):
        parse_record({"prompt": "hi", "extra_key": 3}, "x", 1)
    with pytest.raises(BadRecord, match="LoRA adapter"):
        parse_record({"prompt": "hi", "lora_path": {"name": "sql"}}, "x", 1)
    req = parse_record({"prompt": "hi", "cache_salt": "s", "extra_key": "e", "lora_path": "p"}, "x", 1)
    assert (req.cache_salt, req.extra_key, req.lora, req.media) == ("s", "e", "p", None)


# --- multimodal items ----------------------------------------------------------------------


@pytest.mark.parametrize("engine", ["sglang", "vllm"])
def test_requests_diverge_at_the_first_image_that_differs(tmp_path: Path, engine: str) -> None:
    ask = {"type": "text", "text": "What is in this picture?"}
    records = [chat([image("http://img/a.png"), ask]), chat([image("http://img/b.png"), ask]),
               chat([image("http://img/a.png"), ask]),
               chat([image("http://img/a.png"), image("http://img/c.png"), ask]),
               chat([image("http://img/a.png"), image("http://img/d.png"), ask])]
    seqs, per_request, analyzer, skips = run(write(tmp_path / "t.jsonl", records), engine, chat_template=LLAMA4)
    assert skips.count == 0
    placeholder = load_tokenizer("llama3").special_tokens["<|image|>"]
    tok = load_tokenizer("llama3")
    at = [[i for i, t in enumerate(s.ids) if t >= MEDIA_ID_BASE] for s in seqs]
    # Same placeholder token rendered for every image; the ids there now carry the image.
    assert all(placeholder not in s.ids.tolist() for s in seqs)
    assert at[0] == at[1] == at[2] and len(at[3]) == len(at[4]) == 2
    first = at[0][0]
    assert seqs[0].ids[first] != seqs[1].ids[first] and seqs[0].ids[first] == seqs[2].ids[first]
    assert per_request[:3] == [0, first, len(seqs[2].ids)]  # b diverges at its image, a again shares all
    assert per_request[3] == at[3][0] + 1  # shares image a, diverges at the second image
    assert per_request[4] == at[4][1]
    assert seqs[0].ids[first] == media_id(seqs[0].request.media[0])
    assert "<image>What is in this picture?" in tok.decode(seqs[0].ids.tolist())
    # Images are content, not a key: no namespace, no second tree.
    assert analyzer.result.key_cost_tokens is None and analyzer.result.namespaces == 1


def test_images_a_template_does_not_render_change_nothing(tmp_path: Path) -> None:
    # SGLang's string content format drops media parts: the prompts are the same text.
    ask = {"type": "text", "text": "What is in this picture?"}
    records = [chat([image("http://img/a.png"), ask]), chat([image("http://img/b.png"), ask])]
    seqs, per_request, _, _ = run(write(tmp_path / "t.jsonl", records), "sglang")
    assert seqs[0].request.media is not None and per_request[1] == len(seqs[1].ids)
    assert max(seqs[0].ids) < MEDIA_ID_BASE


def test_an_item_is_known_by_its_uuid_url_or_data() -> None:
    def one(part: dict[str, Any]) -> str:
        got = media_of([{"role": "user", "content": [part]}])
        assert got is not None and len(got) == 1
        return got[0]

    a = one(image("http://img/a.png"))
    assert a.startswith("image:") and a == one(image("http://img/a.png"))
    assert a != one(image("http://img/b.png"))
    assert one(image("http://img/a.png", uuid="u1")) == one(image("http://img/b.png", uuid="u1"))
    assert one({"type": "input_audio", "input_audio": {"data": "AAAA", "format": "wav"}}).startswith("audio:")
    assert one({"type": "input_audio", "input_audio": {"data": "AAAA", "format": "wav"}}) != \
        one({"type": "input_audio", "input_audio": {"data": "BBBB", "format": "wav"}})
    assert media_of([{"role": "user", "content": "an image? no, text"}]) is None


def test_items_fill_their_own_modality_in_order() -> None:
    ph = {7: "image", 9: "audio"}
    media = ("image:00000000000000aa", "audio:00000000000000bb", "image:00000000000000cc")
    ids = as_array([1, 7, 2, 9, 3, 7, 7])
    out = mark_media(ids, media, ph)
    assert out.tolist() == [1, media_id(media[0]), 2, media_id(media[1]), 3, media_id(media[2]), 7]
    assert ids.tolist() == [1, 7, 2, 9, 3, 7, 7]  # the input is left as it was
    assert len({media_id(m) for m in media}) == 3 and all(media_id(m) >= MEDIA_ID_BASE for m in media)


def test_placeholders_are_the_tokenizers_single_tokens() -> None:
    tok = load_tokenizer("llama3")
    assert placeholder_ids(tok.special_tokens, tok.encode) == {tok.special_tokens["<|image|>"]: "image"}
    cl = load_tokenizer("cl100k")
    assert placeholder_ids(cl.special_tokens, cl.encode) == {}


# --- the input formats ---------------------------------------------------------------------


def _requests(path: Path) -> list[Any]:
    skipped: list[Skip] = []
    out = list(iter_requests([path], skipped.append))
    assert not skipped, skipped
    return out


def test_openai_bodies_carry_their_keys(tmp_path: Path) -> None:
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "cache_salt": "s1", "extra_key": "e1",
            "lora_path": "sql"}
    lines = [{"custom_id": "r1", "method": "POST", "url": "/v1/chat/completions", "body": body},
             {"custom_id": "r2", "method": "POST", "url": "/v1/completions",
              "body": {"model": "m", "prompt": ["a", "b"], "cache_salt": ["x", "y"]}},
             {"custom_id": "r3", "method": "POST", "url": "/v1/responses",
              "body": {"model": "m", "cache_salt": "s3", "input": [{"role": "user", "content": [
                  {"type": "input_text", "text": "what is this?"},
                  {"type": "input_image", "image_url": "http://img/a.png"}]}]}}]
    reqs = _requests(write(tmp_path / "batch.jsonl", lines))
    assert [(r.cache_salt, r.extra_key, r.lora) for r in reqs] == [
        ("s1", "e1", "sql"), ("x", None, None), ("y", None, None), ("s3", None, None)]
    assert reqs[3].messages[0]["content"][1] == {"type": "image_url",
                                                 "image_url": {"url": "http://img/a.png", "detail": "auto"}}
    assert reqs[3].media == media_of([{"role": "user", "content": [image("http://img/a.png")]}])


def test_sglang_log_lines_carry_their_keys(tmp_path: Path) -> None:
    lines = ["[2025-12-01 09:00:00] Receive: obj=GenerateReqInput(text='Hello there', input_ids=None, "
             "image_data=None, sampling_params={'max_new_tokens': 8}, rid='r1', lora_path='sql', lora_id=None, "
             "extra_key='tenant-a', cache_salt='s1', stream=False)",
             "[2025-12-01 09:00:01] Receive: obj=GenerateReqInput(text='Hello there', input_ids=None, "
             "image_data=None, sampling_params={'max_new_tokens': 8}, rid='r2', lora_path=None, lora_id=None, "
             "extra_key=None, cache_salt=None, stream=False)"]
    (tmp_path / "sglang.log").write_text("\n".join(lines) + "\n")
    reqs = _requests(tmp_path / "sglang.log")
    assert [(r.cache_salt, r.extra_key, r.lora) for r in reqs] == [("s1", "tenant-a", "sql"), (None, None, None)]


def test_old_vllm_log_lines_name_their_lora_adapter(tmp_path: Path) -> None:
    lines = ["INFO 12-01 08:00:00 logger.py:37] Received request chat-1: prompt: 'Hello there', params: "
             "SamplingParams(n=1), prompt_token_ids: [1, 2, 3], lora_request: LoRARequest(lora_name='sql', "
             "lora_int_id=1, lora_path='/adapters/sql', base_model_name=None), prompt_adapter_request: None.",
             "INFO 12-01 08:00:01 logger.py:37] Received request chat-2: prompt: 'Hello there', params: "
             "SamplingParams(n=1), prompt_token_ids: [1, 2, 3], lora_request: None, prompt_adapter_request: None."]
    (tmp_path / "vllm.log").write_text("\n".join(lines) + "\n")
    reqs = _requests(tmp_path / "vllm.log")
    assert [r.lora for r in reqs] == ["sql", None]


# --- traffic without keys ------------------------------------------------------------------


def test_traffic_without_keys_analyzes_byte_for_byte_as_without_the_feature(tmp_path: Path, cli,
                                                                            monkeypatch) -> None:
    ask = {"type": "text", "text": "What is in this picture?"}
    records = per_user_traffic(False) + [
        chat([image("http://img/a.png"), ask]), chat([image("http://img/b.png"), ask]),  # the layout drops images
        {"prompt": SYSTEM + " Plain completion."}, {"input_ids": [1, 2, 3, 4, 5, 6]},
        {"input_ids": [1, 2, 3, 4, 9]}, {"messages": [{"role": "user", "content": "x"}], "tenant": "t1"}]
    path = write(tmp_path / "keyless.jsonl", records)
    now = cli("analyze", path, "--format", "json", "--page-size", "4")
    assert now.code == 0

    def plain_sequence(self: CacheKeys, req: Any, namespace: str, ids: Any, prompt_tokens: int,
                       unit: int = 1) -> Sequence:
        return Sequence(req, namespace, ids, prompt_tokens, unit)

    def never(self: Analyzer, seq: Sequence) -> None:
        raise AssertionError("a second tree for traffic without keys")

    monkeypatch.setattr(CacheKeys, "sequence", plain_sequence)
    monkeypatch.setattr(Analyzer, "_count_key_cost", never)
    before = cli("analyze", path, "--format", "json", "--page-size", "4")
    assert before.code == 0 and now.out == before.out
    # And the run with the feature never started the second tree either.
    seqs, _, analyzer, _ = run(path, page=4)
    assert analyzer._unkeyed is None and analyzer.result.key_cost_tokens is None
    assert analyzer.result.keyed_requests == 0 and all(s.base_namespace is None for s in seqs)


def test_analyze_json_states_what_the_keys_cost(tmp_path, cli) -> None:
    """A salt per user on a shared system prompt: the JSON gives the hit rate without the keys,
    equal to the same records with the salts removed."""
    system = ("You are the support assistant of Corvina. Follow the refund policy: refunds within 30 days, "
              "store credit after, never for digital goods once downloaded.")
    rows = [{"messages": [{"role": "system", "content": system}, {"role": "user", "content": f"question {i}"}],
             "cache_salt": f"user-{i % 3}"} for i in range(9)]
    salted = tmp_path / "salted.jsonl"
    salted.write_text("".join(json.dumps(r) + "\n" for r in rows))
    plain = tmp_path / "plain.jsonl"
    plain.write_text("".join(json.dumps({"messages": r["messages"]}) + "\n" for r in rows))
    with_keys = json.loads(cli("analyze", salted, "--format", "json").out)
    without = json.loads(cli("analyze", plain, "--format", "json").out)
    keys = with_keys["cache_keys"]
    assert keys["keyed_requests"] == 9 and keys["namespaces"] == 3
    assert keys["cached_tokens_without_keys"] == without["cached_tokens"] > with_keys["cached_tokens"]
    assert keys["tokens_lost"] == without["cached_tokens"] - with_keys["cached_tokens"]
    assert keys["hit_rate_without_keys"] == without["hit_rate"]
    assert "cache_keys" not in without


GEOMETRIES = {
    "vllm-state": CacheGeometry(engine="vllm", block=8, groups=(CacheGroup("full"), CacheGroup("state"))),
    "sglang-swa": CacheGeometry(engine="sglang", block=1, groups=(CacheGroup("full"), CacheGroup("sliding", window=9))),
}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from([None, "a", "b"]), st.integers(0, 2), st.lists(st.integers(0, 3), max_size=30)),
                min_size=1, max_size=25), st.sampled_from(sorted(GEOMETRIES)))
def test_the_figure_without_keys_follows_the_models_rule(tmp_path_factory, spec, name) -> None:
    # On a model with windows or states, what the keys cost is measured under the same rule as
    # the hits: the figure without keys is the model's hits on the same traffic unkeyed.
    geometry = GEOMETRIES[name]
    prefixes = [[500 + 50 * p + i for i in range(12 * p)] for p in range(3)]
    records = [{"input_ids": prefixes[p] + tail or [1], **({"cache_salt": salt} if salt is not None else {})}
               for salt, p, tail in spec]
    stripped = [{"input_ids": r["input_ids"]} for r in records]
    results = []
    for recs in (records, stripped):
        path = write(tmp_path_factory.mktemp("t") / "ids.jsonl", recs)
        analyzer = Analyzer(1, geometry)
        for seq in open_traffic([path], "llama3", None, None, 512, SkipLog(quiet=True)):
            analyzer.add(seq)
        results.append(analyzer.result)
    keyed, plain = results
    if any(salt is not None for salt, _, _ in spec):
        assert keyed.unsalted_cached_tokens == plain.cached_tokens
    else:
        assert keyed.unsalted_cached_tokens is None and keyed.cached_tokens == plain.cached_tokens
