"""A model folder is someone else's (issue 34, item 5): every file ``--model-dir`` reads goes
through ``safe_open``. A link out of the folder is refused (a HuggingFace cache snapshot's
links into its own ``blobs/`` are admitted, nothing else), an oversized file is refused by
its size before it is read, and deep JSON, a chat template of the wrong shape or a config
field of the wrong type is a one-line error naming the file and the field, never a traceback."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from advisor.errors import AdvisorError
from advisor.ingest import safe_open
from tests.robustness.conftest import check_stderr, error_lines

SECRET = "SECRET-5c1e-DO-NOT-LEAK"
CHAT = "{% for m in messages %}[{{ m.content }}]{% endfor %}"
CONFIG = {"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
          "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 128256}
MESSAGES = json.dumps({"messages": [{"role": "user", "content": "hi"}]}) + "\n"


def _one_error(res, *needles: str) -> str:
    check_stderr(res.err)
    assert res.code == 2, res.err
    [error] = error_lines(res.err)
    for needle in needles:
        assert needle in error, error
    assert SECRET not in res.out + res.err
    return error


@pytest.fixture
def traffic(tmp_path: Path) -> Path:
    path = tmp_path / "t.jsonl"
    path.write_text(MESSAGES)
    return path


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    """A chat template outside every model folder that would print the secret if rendered."""
    path = tmp_path / "secret.jinja"
    path.write_text(SECRET + CHAT)
    return path


def _folder(path: Path, **files: str) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (path / name.replace("__", ".")).write_text(text)
    return path


def _hf_snapshot(hub: Path, **blobs: str) -> Path:
    """The HuggingFace cache layout: ``models--org--name/snapshots/<rev>/<file>`` links to
    ``../../blobs/<sha>``."""
    repo = hub / "models--org--name"
    snapshot = repo / "snapshots" / "0123abcd"
    (repo / "blobs").mkdir(parents=True)
    snapshot.mkdir(parents=True)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("0123abcd")
    for i, (name, text) in enumerate(blobs.items()):
        (repo / "blobs" / f"sha{i}").write_text(text)
        (snapshot / name.replace("__", ".")).symlink_to(f"../../blobs/sha{i}")
    return snapshot


# --- confinement ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["chat_template.jinja", "chat_template.json", "tokenizer_config.json"])
def test_a_model_file_linked_out_of_its_folder_is_refused(name, tmp_path, traffic, secret, cli):
    folder = _folder(tmp_path / "model", config__json=json.dumps(CONFIG))
    target = secret
    if name.endswith(".json"):
        target = tmp_path / "secret.json"
        target.write_text(json.dumps({"chat_template": SECRET + CHAT}))
    (folder / name).symlink_to(target)
    res = cli("render", traffic, "--model-dir", folder, "--format", "json")
    _one_error(res, f"{name}: resolves to a path outside", "symlinks may not leave the folder")


def test_model_files_linked_out_are_refused_even_when_the_command_does_not_need_them(tmp_path, traffic, cli):
    outside = _folder(tmp_path / "elsewhere", config__json=json.dumps(CONFIG), tokenizer__json="{}")
    for name in ("tokenizer.json", "config.json"):
        folder = _folder(tmp_path / f"model-{name}", chat_template__jinja=CHAT)
        (folder / name).symlink_to(outside / name)
        _one_error(cli("render", traffic, "--model-dir", folder), f"{name}: resolves to a path outside")
    # cost reads only the config.json of the folder.
    _one_error(cli("cost", "--model-dir", folder, "--gpu", "h100"), "config.json: resolves to a path outside")


def test_a_huggingface_cache_snapshot_is_read_through_its_blob_links(tmp_path, traffic, cli):
    snapshot = _hf_snapshot(tmp_path / "hub", chat_template__jinja=CHAT,
                            tokenizer_config__json=json.dumps({"bos_token": "<s>", "eos_token": "</s>"}),
                            config__json=json.dumps(CONFIG))
    res = cli("render", traffic, "--model-dir", snapshot, "--format", "json")
    check_stderr(res.err)
    assert res.code == 0 and json.loads(res.out)["records"][0]["text"] == "[hi]"
    res = cli("cost", "--model-dir", snapshot, "--gpu", "h100", "--format", "json")
    assert res.code == 0, res.err
    assert json.loads(res.out)["kv_bytes_per_token"] == 32 * 2 * 8 * 128 * 2
    assert safe_open.model_root(snapshot) == (tmp_path / "hub" / "models--org--name").resolve()


def test_a_link_out_of_the_cache_root_is_refused(tmp_path, traffic, secret, cli):
    snapshot = _hf_snapshot(tmp_path / "hub", config__json=json.dumps(CONFIG))
    (snapshot / "chat_template.jinja").symlink_to("../../../../secret.jinja")
    assert (snapshot / "chat_template.jinja").resolve() == secret
    res = cli("render", traffic, "--model-dir", snapshot, "--format", "json")
    _one_error(res, "chat_template.jinja: resolves to a path outside", "models--org--name")
    # Nor into a sibling model of the same cache.
    other = _folder(tmp_path / "hub" / "models--org--other" / "blobs", sha0=SECRET + CHAT)
    (snapshot / "chat_template.jinja").unlink()
    (snapshot / "chat_template.jinja").symlink_to(f"../../../../hub/models--org--other/blobs/{'sha0'}")
    assert (snapshot / "chat_template.jinja").resolve() == other / "sha0"
    _one_error(cli("render", traffic, "--model-dir", snapshot), "resolves to a path outside")


@pytest.mark.parametrize("layout", [
    "plain/model",                       # not a snapshot at all
    "cache/not-models--x/snapshots/rev",  # a snapshots folder outside a models-- repo
    "cache/models--x/revisions/rev",     # a models-- repo, but not under snapshots/
    "cache/models--/snapshots/rev",      # no repo name
])
def test_only_the_cache_layout_widens_the_root(layout, tmp_path, traffic, cli):
    folder = _folder(tmp_path / layout)
    # The link stays inside the folder's grandparent, as a snapshot's link to ../../blobs does.
    blob = _folder(folder.parent.parent / "blobs", sha0=SECRET + CHAT) / "sha0"
    (folder / "chat_template.jinja").symlink_to(os.path.relpath(blob, folder))
    assert safe_open.model_root(folder) == folder.resolve()
    _one_error(cli("render", traffic, "--model-dir", folder), "chat_template.jinja: resolves to a path outside")


def test_a_link_inside_the_folder_is_admitted(tmp_path, traffic, cli):
    folder = _folder(tmp_path / "model", real__jinja=CHAT)
    (folder / "chat_template.jinja").symlink_to("real.jinja")
    res = cli("render", traffic, "--model-dir", folder, "--format", "json")
    assert res.code == 0 and json.loads(res.out)["records"][0]["text"] == "[hi]"


def test_the_tokenizers_sibling_config_is_confined_to_its_folder(tmp_path, traffic, cli):
    from tokenizers import Tokenizer, models, pre_tokenizers

    folder = _folder(tmp_path / "model")
    tok = Tokenizer(models.WordLevel({"[UNK]": 0, "[": 1, "hi": 2, "]": 3}, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.save(str(folder / "tokenizer.json"))
    (tmp_path / "tokenizer_config.json").write_text(json.dumps({"bos_token": SECRET}))
    (folder / "tokenizer_config.json").symlink_to(tmp_path / "tokenizer_config.json")
    (tmp_path / "chat.jinja").write_text("{{ bos_token }}" + CHAT)
    res = cli("render", traffic, "--tokenizer", folder / "tokenizer.json", "--chat-template", tmp_path / "chat.jinja")
    _one_error(res, "tokenizer_config.json: resolves to a path outside")
    (folder / "tokenizer_config.json").unlink()
    (folder / "tokenizer_config.json").write_text(json.dumps({"bos_token": "<s>"}))
    res = cli("render", traffic, "--tokenizer", folder / "tokenizer.json", "--chat-template", tmp_path / "chat.jinja",
              "--format", "json")
    assert res.code == 0, res.err
    assert json.loads(res.out)["records"][0]["text"] == "<s>[hi]"


def test_a_folder_given_as_model_keeps_its_config_inside(tmp_path, cli):
    folder = _folder(tmp_path / "model")
    (tmp_path / "config.json").write_text(json.dumps(CONFIG))
    (folder / "config.json").symlink_to(tmp_path / "config.json")
    _one_error(cli("cost", "--model", folder, "--gpu", "h100"), "config.json: resolves to a path outside")


def test_paths_named_on_the_command_line_may_still_be_links(tmp_path, traffic, cli):
    """The user's own links are theirs: only files found in a model folder are confined."""
    real = _folder(tmp_path / "real", chat__jinja=CHAT, config__json=json.dumps(CONFIG))
    links = _folder(tmp_path / "links")
    (links / "chat.jinja").symlink_to(real / "chat.jinja")
    (links / "config.json").symlink_to(real / "config.json")
    res = cli("render", traffic, "--chat-template", links / "chat.jinja", "--format", "json")
    assert res.code == 0 and json.loads(res.out)["records"][0]["text"] == "[hi]"
    assert cli("cost", "--model", links / "config.json", "--gpu", "h100").code == 0
    # So is a model folder reached through a link of the user's.
    (links / "model").symlink_to(real)
    (real / "chat_template.jinja").write_text(CHAT)
    assert cli("render", traffic, "--model-dir", links / "model").code == 0


def test_the_render_worker_reads_the_chat_template_confined_too(tmp_path, secret):
    """The worker process loads the chat template again: it takes on the parent's roots."""
    from advisor.ingest.render_worker import RenderClient, WorkerConfig

    folder = _folder(tmp_path / "model")
    (folder / "chat_template.jinja").symlink_to(secret)
    path = str(folder / "chat_template.jinja")
    # In the worker process (configured here in-process, it would arm its CPU limit on the tests).
    RenderClient(WorkerConfig(chat=(path, None, None, "sglang"))).check()  # unconfined: loads
    config = WorkerConfig(chat=(path, None, None, "sglang"), confined=((os.path.abspath(path), str(folder.resolve())),))
    with pytest.raises(AdvisorError, match="chat_template.jinja: resolves to a path outside"):
        RenderClient(config).check()


# --- sizes ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name,cap", [("config.json", "4 MiB"), ("tokenizer_config.json", "16 MiB"),
                                      ("chat_template.jinja", "16 MiB"), ("chat_template.json", "16 MiB"),
                                      ("tokenizer.json", "256 MiB")])
def test_an_oversized_model_file_is_refused_by_its_size_before_it_is_read(name, cap, tmp_path, traffic, cli):
    folder = _folder(tmp_path / "model", config__json=json.dumps(CONFIG))
    with open(folder / name, "wb") as handle:
        os.truncate(handle.fileno(), 3 << 30)  # 3 GiB, sparse: no disk, and no memory unless read
    error = _one_error(cli("render", traffic, "--model-dir", folder), f"{name}: ", f"3072 MiB, over the {cap} limit")
    assert "MemoryError" not in error
    if name == "config.json":
        _one_error(cli("cost", "--model-dir", folder, "--gpu", "h100"), "3072 MiB, over the 4 MiB limit")
        _one_error(cli("simulate", traffic, "--model-dir", folder, "--gpu", "h100"), "3072 MiB")
        _one_error(cli("report", "-t", traffic, "--model-dir", folder), "3072 MiB")


def test_a_model_file_that_is_a_fifo_or_a_folder_is_refused(tmp_path, traffic, cli):
    folder = _folder(tmp_path / "model", config__json=json.dumps(CONFIG))
    os.mkfifo(folder / "chat_template.jinja")
    _one_error(cli("render", traffic, "--model-dir", folder), "chat_template.jinja: is a FIFO")
    (folder / "chat_template.jinja").unlink()
    (folder / "tokenizer_config.json").mkdir()
    _one_error(cli("render", traffic, "--model-dir", folder), "tokenizer_config.json: is a folder")


# --- contents ---------------------------------------------------------------------------------


DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize("name", ["tokenizer_config.json", "chat_template.json", "config.json"])
def test_deep_json_in_a_model_file_is_one_line(name, tmp_path, traffic, cli):
    folder = _folder(tmp_path / "model", config__json=json.dumps(CONFIG), chat_template__jinja=CHAT)
    if name == "chat_template.json":
        (folder / "chat_template.jinja").unlink()
    (folder / name).write_text('{"chat_template": ' + DEEP + "}" if name != "config.json" else DEEP)
    if name == "config.json":
        _one_error(cli("cost", "--model-dir", folder, "--gpu", "h100"), "config.json: not a readable JSON config",
                   "nested too deeply")
    else:
        _one_error(cli("render", traffic, "--model-dir", folder), f"{name}: not valid JSON (nested too deeply)")


@pytest.mark.parametrize("chat_template,field", [
    ([{"name": ["default"], "template": CHAT}], "chat_template[0].name must be a string, not a list"),
    ([{"name": "default", "template": CHAT}, {"name": {"a": 1}, "template": CHAT}],
     "chat_template[1].name must be a string, not an object"),
    ([{"template": CHAT}], "chat_template[0].name must be a string, not null"),
    ([{"name": "default", "template": 5}], "chat_template[0].template must be a string, not a number"),
    (["just text"], "chat_template[0] must be an object"),
    (5, "chat_template must be a string or a list"),
    ({"default": CHAT}, "chat_template must be a string or a list"),
])
def test_a_chat_template_of_the_wrong_shape_names_the_field(chat_template, field, tmp_path, traffic, cli):
    config = json.dumps({"chat_template": chat_template})
    for name in ("tokenizer_config.json", "chat_template.json"):
        folder = _folder(tmp_path / name, **{name.replace(".", "__"): config})
        _one_error(cli("render", traffic, "--model-dir", folder), f"{name}: field {field}")
        # Named with --chat-template, the same file gives the same error.
        _one_error(cli("render", traffic, "--chat-template", folder / name), f"{name}: field {field}")


def test_a_list_of_named_templates_picks_default_then_the_first(tmp_path, traffic, cli):
    for templates, text in [([{"name": "tool_use", "template": "T" + CHAT}, {"name": "default", "template": CHAT}],
                             "[hi]"),
                            ([{"name": "rag", "template": "R" + CHAT}, {"name": "tool_use", "template": CHAT}],
                             "R[hi]")]:
        folder = _folder(tmp_path / text, tokenizer_config__json=json.dumps({"chat_template": templates}))
        res = cli("render", traffic, "--model-dir", folder, "--format", "json")
        assert res.code == 0 and json.loads(res.out)["records"][0]["text"] == text


@pytest.mark.parametrize("value,kind", [(5, "a number"), (["<s>"], "a list"), ({"content": 1}, "an object"),
                                        (True, "a boolean")])
def test_a_special_token_of_the_wrong_type_names_the_field(value, kind, tmp_path, traffic, cli):
    folder = _folder(tmp_path / "model", chat_template__jinja=CHAT,
                     tokenizer_config__json=json.dumps({"eos_token": "</s>", "bos_token": value}))
    _one_error(cli("render", traffic, "--model-dir", folder),
               f"tokenizer_config.json: field bos_token must be a string or an object with a string 'content', "
               f"not {kind}")


def test_a_tokenizer_config_that_is_not_an_object_is_one_line(tmp_path, traffic, cli):
    folder = _folder(tmp_path / "model", chat_template__jinja=CHAT, tokenizer_config__json="[1, 2]")
    _one_error(cli("render", traffic, "--model-dir", folder), "tokenizer_config.json: expected a JSON object")


@pytest.mark.parametrize("field,value,expected", [
    ("num_attention_heads", True, "true; expected a positive integer"),
    ("num_attention_heads", 32.5, "32.5; expected a positive integer"),
    ("num_attention_heads", 32.0, "32.0; expected a positive integer"),
    ("num_attention_heads", "32", '"32"; expected a positive integer'),
    ("num_key_value_heads", -8, "-8; expected a positive integer"),
    ("head_dim", 0, "0; expected a positive integer"),
    ("vocab_size", [128256], "[128256]; expected a positive integer"),
    ("num_hidden_layers", 10**12, "1000000000000; expected a positive integer up to 100,000"),
    ("num_hidden_layers", False, "false; expected a positive integer up to 100,000"),
    ("sliding_window", False, "false; expected a positive integer"),
    ("num_local_experts", -1, "-1; expected an integer of at least 0"),
    ("tie_word_embeddings", "yes", '"yes"; expected true or false'),
    ("model_type", 7, "7; expected a string"),
    ("text_config", "gemma", '"gemma"; expected an object'),
    ("layer_types", "sliding_attention", '"sliding_attention"; expected a list'),
    ("kv_lora_rank", 1e400, "Infinity; expected a positive integer"),
])
def test_a_config_field_of_the_wrong_type_or_range_names_the_field(field, value, expected, tmp_path, cli):
    folder = _folder(tmp_path / "model", config__json=json.dumps({**CONFIG, field: value}))
    _one_error(cli("cost", "--model-dir", folder, "--gpu", "h100"),
               f"config.json: config field has an unusable value ({field}: {expected})")


def test_text_config_fields_are_checked_too(tmp_path, cli):
    inner = {k: v for k, v in CONFIG.items() if k != "model_type"}
    folder = _folder(tmp_path / "model", config__json=json.dumps(
        {"model_type": "gemma3", "text_config": {**inner, "num_attention_heads": True}}))
    _one_error(cli("cost", "--model-dir", folder, "--gpu", "h100"),
               "config.json (text_config): config field has an unusable value (num_attention_heads: true")
    (folder / "config.json").write_text(json.dumps({"model_type": "gemma3", "text_config": inner}))
    assert cli("cost", "--model-dir", folder, "--gpu", "h100").code == 0


def test_null_fields_stand_for_absent_ones():
    from advisor.cost.catalog import model_from_config

    spec = model_from_config({**CONFIG, "head_dim": None, "sliding_window": None, "q_lora_rank": None,
                              "num_experts_per_tok": None, "quantization_config": None}, model_id="m", source="m")
    assert spec.head_dim == 128 and spec.sliding_window is None


def test_every_catalog_entry_passes_the_field_check():
    from advisor.cost.catalog import check_fields, load_catalog
    from advisor.ingest.safe_yaml import safe_load

    load_catalog.cache_clear()
    assert load_catalog().models
    from importlib import resources

    data = safe_load(resources.files("advisor").joinpath("data/models.yaml").read_text(encoding="utf-8"))
    for entry in data["models"]:
        check_fields(entry, entry["id"])


def test_safe_open_confinement_applies_to_whoever_opens_the_file_later(tmp_path, secret, monkeypatch):
    folder = _folder(tmp_path / "model")
    (folder / "chat_template.jinja").symlink_to(secret)
    assert safe_open.read_text(folder / "chat_template.jinja", max_bytes=1 << 20).startswith(SECRET)  # not yet
    path = safe_open.model_file(folder, "chat_template.jinja")
    for read in (safe_open.read_text, safe_open.read_bytes, safe_open.check_file):
        with pytest.raises(AdvisorError, match="resolves to a path outside"):
            read(path, max_bytes=1 << 20)
    with pytest.raises(AdvisorError, match="resolves to a path outside"):
        safe_open.open_binary(str(path))
    # The same file named relative to the working folder is the same file.
    monkeypatch.chdir(tmp_path)
    with pytest.raises(AdvisorError, match="resolves to a path outside"):
        safe_open.read_text("model/chat_template.jinja", max_bytes=1 << 20)
