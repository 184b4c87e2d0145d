"""Agent for the Brightwell parts catalogue: the client names the tools it wants, and each
session carries a trace id from a dataclass default.

Planted defects: the tool list is built, in the caller's order, from the names a request
sends; the supported languages (a set) are written into the system prompt as they are; the
session's trace id (a default factory, a new uuid per object) opens the system prompt.
"""

import uuid
from dataclasses import dataclass, field

from openai import NOT_GIVEN, OpenAI

client = OpenAI()

LANGUAGES = {"English", "German", "Dutch", "French"}

POLICY = """You are Wren, the catalogue assistant of Brightwell, a wholesaler of bicycle parts.
Answer questions about part numbers, compatibility and stock. Look parts up with the tools
before you state a price or a stock level, and never promise a delivery date: give the
warehouse's standard lead time and offer to open an order ticket instead."""

TOOLS = [
    {"type": "function", "function": {"name": "find_part", "description": "Search the catalogue by name or number.",
                                      "parameters": {"type": "object", "properties": {"query": {"type": "string"}}}}},
    {"type": "function", "function": {"name": "stock", "description": "Stock level of a part in each warehouse.",
                                      "parameters": {"type": "object", "properties": {"part": {"type": "string"}}}}},
    {"type": "function", "function": {"name": "open_order", "description": "Open an order ticket for the sales team.",
                                      "parameters": {"type": "object", "properties": {"summary": {"type": "string"}}}}},
]
TOOLS_BY_NAME = {t["function"]["name"]: t for t in TOOLS}


@dataclass
class Session:
    customer: str
    trace_id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])

    def system_prompt(self) -> str:
        return f"Trace {self.trace_id}.\n{POLICY}"


def language_rules() -> str:
    return f"Answer in one of these languages: {LANGUAGES}. Otherwise answer in English.\n\n{POLICY}"


def ask(session: Session, question: str, tool_names: list[str]):
    tools = []
    for name in tool_names:
        tools.append(TOOLS_BY_NAME[name])
    return client.chat.completions.create(
        model="gpt-4.1-mini",
        messages=[{"role": "system", "content": session.system_prompt()}, {"role": "user", "content": question}],
        tools=tools,
    )


def ask_in_language(question: str, agent_mode: bool):
    return client.chat.completions.create(
        model="gpt-4.1-mini",
        messages=[{"role": "system", "content": language_rules()}, {"role": "user", "content": question}],
        tools=TOOLS if agent_mode else NOT_GIVEN,
    )
