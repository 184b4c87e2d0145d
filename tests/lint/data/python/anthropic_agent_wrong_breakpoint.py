"""Operations agent for Lumenfield Payments (Anthropic Messages API, prompt caching).

Planted defect: the `cache_control` breakpoint sits on the block that carries the current
time, so the cached prefix differs on every request (and every cache write is wasted).
"""

import datetime

import anthropic

client = anthropic.Anthropic()

RUNBOOK_RULES = (
    "You are Keel, the on-call operations agent of Lumenfield Payments. Investigate alerts with "
    "the tools provided before proposing any action. Never restart, scale or roll back a production "
    "service without an approval token from the on-call engineer. Summarise evidence with the exact "
    "metric values and log lines you saw, and end every answer with the next step you recommend."
)

TOOLS = [
    {
        "name": "get_service_health",
        "description": "Current health of a service: error rate, p99 latency, replicas, active alerts.",
        "input_schema": {
            "type": "object",
            "properties": {"service": {"type": "string"}, "environment": {"type": "string"}},
            "required": ["service", "environment"],
        },
    },
    {
        "name": "search_logs",
        "description": "Search a service's logs with a Lucene query over the last N minutes.",
        "input_schema": {
            "type": "object",
            "properties": {"service": {"type": "string"}, "query": {"type": "string"}, "since_minutes": {"type": "integer"}},
            "required": ["service", "query"],
        },
    },
]


def run_turn(history: list[dict], task: str):
    now = datetime.datetime.now(datetime.timezone.utc)
    return client.messages.create(
        model="claude-sonnet-4-5",
        max_tokens=1024,
        tools=TOOLS,
        system=[
            {"type": "text", "text": RUNBOOK_RULES},
            {
                "type": "text",
                "text": f"It is {now:%A %H:%M} UTC. Business hours are 08:00-18:00 CET.",
                "cache_control": {"type": "ephemeral"},
            },
        ],
        messages=[*history, {"role": "user", "content": task}],
    )
