"""A plugin-style tool registry kept in a set on an object.

Planted defect: `schemas()` iterates the set, so the tool list's order depends on the
process's hash seed.
"""

from dataclasses import dataclass

import anthropic


@dataclass(frozen=True)
class Tool:
    name: str
    description: str

    def schema(self) -> dict:
        return {"name": self.name, "description": self.description, "input_schema": {"type": "object"}}


class Registry:
    def __init__(self) -> None:
        self._tools: set[Tool] = set()

    def add(self, tool: Tool) -> None:
        self._tools.add(tool)

    def schemas(self) -> list[dict]:
        return [tool.schema() for tool in self._tools]


REGISTRY = Registry()
REGISTRY.add(Tool("search", "Search the web."))
REGISTRY.add(Tool("fetch", "Fetch a page by URL."))
client = anthropic.Anthropic()
SYSTEM = "You are a research assistant. Verify facts with the tools and cite every source you use."


def ask(question: str):
    return client.messages.create(model="claude-sonnet-4-5", max_tokens=800, system=SYSTEM,
                                  tools=REGISTRY.schemas(), messages=[{"role": "user", "content": question}])
