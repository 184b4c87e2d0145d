"""Tool registry of a research agent: tools register themselves by decorator.

Planted defect: the registry keeps the enabled tool names in a set and builds the tool
list by iterating it, so each worker process sends the tools in its own order.
"""

from openai import OpenAI

client = OpenAI()
_REGISTRY: dict[str, dict] = {}
ENABLED = {"web_search", "fetch_page", "calculator", "python"}


def tool(name: str, description: str, parameters: dict):
    def register(fn):
        _REGISTRY[name] = {"type": "function", "function": {"name": name, "description": description, "parameters": parameters}}
        return fn
    return register


def tool_schemas() -> list[dict]:
    return [_REGISTRY[name] for name in ENABLED]


SYSTEM = ("You are a careful research assistant. Use the tools to find and verify facts before you answer, "
          "cite every source URL you relied on, and say clearly when the sources disagree or are missing.")


def ask(question: str):
    return client.chat.completions.create(
        model="gpt-4o",
        tools=tool_schemas(),
        messages=[{"role": "system", "content": SYSTEM}, {"role": "user", "content": question}],
    )
