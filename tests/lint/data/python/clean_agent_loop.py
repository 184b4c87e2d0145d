"""A tool-calling agent loop: the history grows at the end, the prefix never changes."""

import json
import time

from openai import OpenAI

client = OpenAI()

SYSTEM = ("You are an SRE assistant. Use the tools to check metrics and logs before you answer, "
          "and finish with a one-paragraph summary of what you found.")
TOOLS = sorted([
    {"type": "function", "function": {"name": "query_metrics", "description": "Run a PromQL query.",
                                      "parameters": {"type": "object", "properties": {"promql": {"type": "string"}}}}},
    {"type": "function", "function": {"name": "search_logs", "description": "Search logs.",
                                      "parameters": {"type": "object", "properties": {"query": {"type": "string"}}}}},
], key=lambda t: t["function"]["name"])


def call_tool(name: str, arguments: dict) -> dict:
    raise NotImplementedError


def run(task: str, max_steps: int = 8) -> str:
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": task}]
    deadline = time.monotonic() + 120
    for _ in range(max_steps):
        response = client.chat.completions.create(model="gpt-4o", messages=messages, tools=TOOLS)
        message = response.choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls or time.monotonic() > deadline:
            return message.content or ""
        for call in message.tool_calls:
            result = call_tool(call.function.name, json.loads(call.function.arguments))
            messages.append({"role": "tool", "tool_call_id": call.id, "content": json.dumps(result)})
    return "step limit reached"
