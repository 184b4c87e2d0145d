"""Cache keys beyond the tokens: what the engines keep apart even where the tokens agree.

A prefix is shared only between requests whose cache key agrees on more than the token
ids. advisor follows the engines' rules (vLLM 0.33.0 and 0.34.0, SGLang 0.5.23, read from
their wheels; the lines cited are 0.33.0's and 0.5.23's, 0.34.0 has the same rules) in two
ways:

* A key that covers the whole request puts it in a namespace of its own (a radix tree of
  its own, ``advisor.ingest.pipeline.Sequence.namespace``):

  - vLLM salts the hash of a request's first block with its ``cache_salt``
    (``vllm/v1/core/kv_cache_utils.py:659-662``, ``generate_block_hash_extra_keys``: the
    salt joins the extra keys only where ``start_token_idx == 0``). Every later block's
    hash is chained from its parent's (``hash_block_tokens``, ``kv_cache_utils.py:732-737``:
    ``(parent_block_hash, tokens, extra_keys)``), so two requests with different salts
    share no block at all: a namespace per salt. The OpenAI server refuses an empty salt, one
    over 128 characters, or one holding ``@``, ``/``, ``\\`` or NUL
    (``vllm/entrypoints/generate/base/protocol.py:38-58``, ``validate_cache_salt``).
  - vLLM adds the LoRA adapter to every block's extra keys (``kv_cache_utils.py:590-607``,
    ``_gen_lora_extra_hash_keys``: name and path): a namespace per adapter. vLLM knows the
    adapter from the request's ``model`` naming one the server loaded
    (``vllm/entrypoints/serve/engine/serving.py:199-200``), which a log does not tell;
    advisor reads an explicit field only (``lora_name``, ``lora_path``, ``lora_id``, or the
    ``lora_request`` of a vLLM log line).
  - vLLM has no ``extra_key``: its request models let unknown fields pass, ignored.
  - SGLang keys each radix-tree child by ``(extra_key, cache_salt)`` besides the tokens
    (``sglang/srt/mem_cache/radix_cache.py:245-247``, ``RadixKey.child_key_at``; matching
    across two keys is refused, ``radix_cache.py:166-176``): a namespace per pair. The
    LoRA adapter's id is appended to ``extra_key`` (``sglang/srt/managers/schedule_batch.py:
    1164-1168``), so an adapter is a namespace too; advisor keeps it as its own part (the
    id is a registry id, never equal to a caller's key in practice). An empty ``extra_key``
    or ``cache_salt`` is none (``sglang/srt/managers/io_struct.py:575-582``).

* A multimodal item (an image, an audio clip) changes the key from its placeholder tokens
  on. SGLang replaces the item's placeholder ids with values derived from its hash
  (``sglang/srt/managers/mm_utils.py:313-352``, ``pad_mm_tokens``; the values,
  ``schedule_batch.py:268-276``, ``_compute_pad_values``, start above the vocabulary at
  ``MM_PAD_SHIFT_VALUE``): two requests diverge at the first placeholder of the first item
  that differs. vLLM adds the item's hash to the extra keys of every block that overlaps
  its placeholder tokens (``kv_cache_utils.py:522-587``, ``_gen_mm_extra_hash_keys``):
  the hit ends at the start of that block, which is where the token-level divergence ends
  once it is floored to whole blocks. advisor does what SGLang does: the placeholder ids
  a chat template rendered for the request's items (``PLACEHOLDERS``) are replaced, in
  order, by ids derived from each item's identity, in a range no vocabulary reaches
  (``advisor.ingest.ids.MEDIA_ID_BASE``). The identity is the item's URL or data as the
  request gives it (the engines hash the decoded media: one image behind two URLs is two
  items here), or the ``uuid`` a client gave the part (vLLM's own identifier for it,
  ``vllm/renderers/chat_utils/chat_message.py:486-490``) or the image's ``content_hash``
  (SGLang). The engine expands a placeholder to the item's many tokens; advisor keeps the
  one token the template rendered. A template that renders no placeholder (a text-only
  model's, or SGLang's string content format, which drops media parts) leaves the ids as
  they are.
"""

from __future__ import annotations

import hashlib
import json
from array import array
from collections.abc import Iterable, Mapping
from typing import Any

from advisor.ingest.ids import ITEM, MEDIA_ID_BASE, MEDIA_KINDS, find_item, pack, pack_one
from advisor.ingest.preprocess import EngineRejects

# Content part types that carry a multimodal item, with its modality; the key holding it
# where that is not the type's own name (a Responses ``input_image`` holds ``image_url``).
MEDIA_PARTS: dict[str, str] = {
    "image_url": "image", "input_image": "image", "image_pil": "image", "image_embeds": "image", "image": "image",
    "audio_url": "audio", "input_audio": "audio", "audio_embeds": "audio",
    "video_url": "video", "video_embeds": "video",
}
_PAYLOAD_KEY = {"input_image": "image_url"}

# The token a chat template writes for one media item, which the engine's processor then
# expands (vLLM) or pads with the item's hash (SGLang), by model family. A tokenizer that
# does not hold one as a single token has none of it.
PLACEHOLDERS: dict[str, str] = {
    "<|image|>": "image",  # Llama 3.2 Vision, Llama 4
    "<|image_pad|>": "image", "<|video_pad|>": "video",  # Qwen2-VL, Qwen2.5-VL, Qwen3-VL
    "<|IMAGE|>": "image", "<|AUDIO|>": "audio", "<|VIDEO|>": "video",  # Qwen2-Audio, Qwen2.5-Omni
    "<start_of_image>": "image",  # Gemma 3
    "[IMG]": "image",  # Pixtral, Mistral Small 3.1
    "<|media_pad|>": "image",  # Kimi-VL
    "<image>": "image", "<video>": "video",  # LLaVA, InternVL, Idefics3, DeepSeek-VL2
    "<|audio|>": "audio",  # Ultravox
}

# vLLM's checks of a request's cache_salt (vllm/entrypoints/generate/base/protocol.py:38-58).
VLLM_SALT_MAX = 128
VLLM_SALT_FORBIDDEN = frozenset("@/\\\x00")
# Between a base namespace and its keys (JSON, so no two key sets read alike).
KEYED = "#"


# --- reading records ----------------------------------------------------------------------


def _canonical(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=str)


def item_identity(part: Mapping[str, Any], kind: str) -> str:
    """What tells one multimodal item from another: the client's ``uuid`` or
    ``content_hash``, else the URL or data the part carries."""
    if part.get("uuid") is not None:
        return "uuid:" + str(part["uuid"])
    value = part.get(_PAYLOAD_KEY.get(kind, kind))
    if value is None and kind == "image":
        value = part.get("url", part.get("path"))
    if isinstance(value, Mapping):
        if value.get("content_hash") is not None:
            return "hash:" + str(value["content_hash"])
        for key in ("url", "data", "file_id"):
            if isinstance(value.get(key), str):
                return value[key]
    if isinstance(value, str):
        return value
    return _canonical(value if value is not None else dict(part))


def media_of(messages: Iterable[Mapping[str, Any]]) -> tuple[str, ...] | None:
    """The multimodal items of a chat request in order, as ``modality:digest``; None
    without any (the common case: string contents are not looked into)."""
    out: list[str] = []
    for message in messages:
        content = message.get("content")
        if type(content) is not list:
            continue
        for part in content:
            if not isinstance(part, Mapping):
                continue
            kind = part.get("type")
            modality = MEDIA_PARTS.get(kind) if isinstance(kind, str) else None
            if modality is not None and isinstance(kind, str):
                identity = item_identity(part, kind)
                digest = hashlib.blake2b(identity.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()
                out.append(f"{modality}:{digest}")
    return tuple(out) or None


# --- namespaces ---------------------------------------------------------------------------


def check_vllm_salt(salt: str) -> None:
    if not salt:
        raise EngineRejects("vllm: Parameter 'cache_salt' must be a non-empty string if provided.")
    if len(salt) > VLLM_SALT_MAX or any(c in VLLM_SALT_FORBIDDEN for c in salt):
        raise EngineRejects(f"vllm: Parameter 'cache_salt' must be at most {VLLM_SALT_MAX} characters and must not "
                            "contain '@', '/', '\\', or NUL.")


def cache_keys(engine: str, cache_salt: str | None, extra_key: str | None, lora: str | None) -> dict[str, str]:
    """The keys ``engine`` (``vllm`` or ``sglang``, a name without release) keeps a request
    apart by; empty when none. Raises ``EngineRejects`` for a salt vLLM refuses."""
    if engine == "vllm":
        if cache_salt is not None:
            check_vllm_salt(cache_salt)
        keys = {"cache_salt": cache_salt, "lora": lora}  # extra_key: no vLLM field
    else:
        keys = {"extra_key": extra_key or None, "lora": lora or None, "cache_salt": cache_salt or None}
    return {k: v for k, v in keys.items() if v is not None}


def keyed_namespace(base: str, keys: Mapping[str, str]) -> str:
    """The namespace of ``base`` traffic under ``keys`` (``base`` itself without keys)."""
    return f"{base}{KEYED}{_canonical(dict(keys))}" if keys else base


# --- multimodal items in the token ids ----------------------------------------------------


def placeholder_ids(specials: Mapping[str, int], encode: Any = None) -> dict[int, str]:
    """The tokenizer's ids of ``PLACEHOLDERS`` and their modality: a special token, or
    (``encode`` given) a text that encodes to one id."""
    out: dict[int, str] = {}
    for text, modality in PLACEHOLDERS.items():
        token = specials.get(text)
        if token is None and encode is not None:
            try:
                ids = list(encode(text))
            except Exception:  # a tokenizer that cannot take the text has no such token
                continue
            token = ids[0] if len(ids) == 1 else None
        if token is not None:
            out.setdefault(int(token), modality)
    return out


def media_id(item: str) -> int:
    """The id standing for one item (``modality:digest``) at its placeholder."""
    modality, _, digest = item.partition(":")
    kind = MEDIA_KINDS.index(modality) if modality in MEDIA_KINDS else len(MEDIA_KINDS) - 1
    return MEDIA_ID_BASE | (kind << 29) | (int(digest, 16) & ((1 << 29) - 1))


def mark_media(ids: array, media: tuple[str, ...], placeholders: Mapping[int, str]) -> array:
    """``ids`` with the n-th placeholder of each modality replaced by the n-th item of that
    modality (a copy; ``ids`` itself is left as it is). Placeholders past the items, and
    items without a placeholder, are left alone."""
    if not placeholders or not media:
        return ids
    data = pack(ids)
    found: list[tuple[int, str]] = []
    for token, modality in placeholders.items():
        needle = pack_one(token)
        at = find_item(data, needle, 0)
        while at >= 0:
            found.append((at // ITEM, modality))
            at = find_item(data, needle, at + ITEM)
    if not found:
        return ids
    found.sort()
    queues: dict[str, list[int]] = {}
    for item in media:
        queues.setdefault(item.partition(":")[0], []).append(media_id(item))
    out = array(ids.typecode, ids)
    for pos, modality in found:
        queue = queues.get(modality)
        if queue:
            out[pos] = queue.pop(0)
    return out
