"""Conversations: the cached tokens split within and across conversations, and what
session-affine routing over N replicas keeps (``advisor.index.conversations``)."""

from __future__ import annotations

from typing import Any

from advisor.report.sections.format import Block, pct
from advisor.report.table import Table, columns

TITLE = "Conversations and session affinity"


def split_table(conv: dict[str, Any]) -> Table:
    t = Table(columns("reuse", "cached tokens>", "of prompt tokens>", "of cached tokens>"))
    cached = conv["cached_tokens"]
    for label, key in (("within a conversation", "within_conversation"), ("across conversations", "across_conversation")):
        tokens = conv[f"{key}_tokens"]
        t.add(label, f"{tokens:,}", pct(conv[f"{key}_hit_rate"]), pct(tokens / cached if cached else None))
    t.add("total (one shared cache)", f"{cached:,}", pct(conv["hit_rate"]), pct(1.0 if cached else None))
    return t


def affinity_table(conv: dict[str, Any]) -> Table:
    t = Table(columns("replicas>", "hit rate>", "of the shared cache's hits>", "across-conversation hits kept>"))
    across = conv["across_conversation_tokens"]
    for a in conv["affinity"]:
        kept = a["across_conversation_kept_tokens"]
        t.add(f"{a['replicas']}", pct(a["hit_rate"]), pct(a["kept"]), pct(kept / across if across else None))
    return t


def _origin(conv: dict[str, Any]) -> str:
    parts = []
    if conv["session_conversations"]:
        parts.append(f"{conv['session_conversations']:,} from the records' session ids")
    if conv["detected_conversations"]:
        parts.append(f"{conv['detected_conversations']:,} detected (a request whose prompt extends an earlier "
                     "request's whole prompt continues its conversation)")
    if conv["single_turn_conversations"]:
        parts.append(f"{conv['single_turn_conversations']:,} single requests without a session id that no later "
                     "request continued")
    return "; ".join(parts)


def notes(conv: dict[str, Any]) -> list[str]:
    """What the figures mean for this traffic's routing."""
    out = []
    if conv["session_conversations"] == 0 and conv["detected_conversations"] == 0:
        out.append("No request extends an earlier request's prompt: single-shot traffic, or conversations whose "
                   "turns change before their end (a clock or a per-turn value at the top rewrites every turn). "
                   "Records with a `session_id` would tell which.")
    elif conv["detected_conversations"]:
        out.append("Detected conversations carry no session id for a router to hash: affinity needs the client to "
                   "send one (the figures hash each conversation's first request in its place).")
    if conv["affinity"] and conv["across_conversation_tokens"]:
        widest = max(conv["affinity"], key=lambda a: a["replicas"])
        out.append(f"At {widest['replicas']} replicas affinity keeps {pct(widest['kept'])} of the shared cache's "
                   "hits: what it loses is across-conversation reuse (a prefix shared by conversations on other "
                   "replicas), which a prefix-aware router (SGLang's `cache_aware` policy) can keep and a "
                   "session hash cannot.")
    return out


def render(data: dict[str, Any], picture: str | None) -> list[Block]:
    conv = data.get("traffic", {}).get("conversations")
    if conv is None:
        return []
    out: list[Block] = [
        f"{conv['conversations']:,} conversations over {conv['requests']:,} requests "
        f"({conv['mean_turns']:.2f} turns on average): {_origin(conv)}.",
        "",
        "Within a conversation: what each request would hit with a cache of its conversation's own. Across: the rest "
        "of the cached tokens (unlimited cache, no L-1 cap, as the longest-common-prefix hit rate above).",
        "",
        split_table(conv),
        "",
        "Session affinity: each conversation hashed to one of N replicas, each with its own unlimited cache. "
        "Within-conversation hits survive by construction; across-conversation hits survive where the replica "
        "has seen the prefix.",
        "",
        affinity_table(conv),
    ]
    lines = notes(conv)
    if lines:
        out.append("")
        out += [f"- {line}" for line in lines]
    return out
