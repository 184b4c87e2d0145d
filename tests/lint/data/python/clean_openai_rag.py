"""Support-docs RAG service, cache-friendly: the system prompt never changes, and everything
that varies (articles, question, time) is in the last user message."""

from __future__ import annotations

import json
import logging
from datetime import datetime, timezone

from openai import OpenAI

log = logging.getLogger(__name__)
client = OpenAI()

SYSTEM_PROMPT = """You are Atlas, the documentation assistant of Corvina Data Cloud.
Answer only from the articles provided in the user message. When the articles do not
contain the answer, say so and suggest contacting support; never guess configuration
values, limits or prices. Cite every article you use as [n]."""

SEARCH_TOOL = {
    "type": "function",
    "function": {
        "name": "search_docs",
        "description": "Search the documentation for more articles.",
        "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
    },
}


def build_messages(question: str, articles: list[dict], filters: dict) -> list[dict]:
    context = "\n\n".join(f"[{i + 1}] {a['title']}\n{a['body']}" for i, a in enumerate(articles))
    sent = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": (
            f"Articles:\n{context}\n\nFilters: {json.dumps(filters, sort_keys=True)}\n\n"
            f"Question: {question}\n(sent {sent})"
        )},
    ]


def answer(question: str, articles: list[dict], filters: dict) -> str:
    started = datetime.now()
    response = client.chat.completions.create(
        model="gpt-4o-mini",
        messages=build_messages(question, articles, filters),
        tools=[SEARCH_TOOL],
        user=f"session-{started:%Y%m%d%H%M%S}",
    )
    log.info("answered in %s", datetime.now() - started)
    return response.choices[0].message.content or ""
