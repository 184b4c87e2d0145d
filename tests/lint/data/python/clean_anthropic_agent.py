"""Operations agent for Lumenfield Payments, with the cache breakpoint where it belongs:
on the last block that every request shares, before today's date and the conversation."""

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


class Agent:
    def __init__(self, model: str = "claude-sonnet-4-5") -> None:
        self.client = anthropic.Anthropic()
        self.model = model
        self.history: list[dict] = []

    def step(self, task: str):
        today = datetime.date.today().isoformat()
        self.history.append({"role": "user", "content": [
            {"type": "text", "text": f"{task}\n\n(Today is {today}.)", "cache_control": {"type": "ephemeral"}},
        ]})
        reply = self.client.messages.create(
            model=self.model,
            max_tokens=1024,
            tools=TOOLS,
            system=[
                {"type": "text", "text": RUNBOOK_RULES, "cache_control": {"type": "ephemeral"}},
            ],
            messages=self.history,
        )
        self.history.append({"role": "assistant", "content": reply.content})
        return reply
