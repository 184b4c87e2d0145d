"""Tool registry of a research agent: tools in a dict, sent sorted by name."""

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
    return [_REGISTRY[name] for name in sorted(ENABLED)]


SYSTEM = ("You are a careful research assistant. Use the tools to find and verify facts before you answer, "
          "cite every source URL you relied on, and say clearly when the sources disagree. "
          f"Tools available: {', '.join(sorted(ENABLED))}.")


def ask(question: str):
    if "python" in ENABLED and question.startswith("compute"):
        question = question + "\nUse the python tool for arithmetic."
    return client.chat.completions.create(
        model="gpt-4o",
        tools=tool_schemas(),
        messages=[{"role": "system", "content": SYSTEM}, {"role": "user", "content": question}],
    )
