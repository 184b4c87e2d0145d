"""An assistant class: the system prompt and tools are set up once, per deployment."""

from dataclasses import dataclass, field
from datetime import date

import anthropic


@dataclass
class Settings:
    company: str = "Corvina"
    model: str = "claude-sonnet-4-5"
    extra_rules: list[str] = field(default_factory=list)


class Assistant:
    def __init__(self, settings: Settings, tools: list[dict]):
        self.settings = settings
        self.client = anthropic.Anthropic()
        self.tools = sorted(tools, key=lambda t: t["name"])
        rules = "\n".join(f"- {r}" for r in settings.extra_rules)
        self.system_prompt = (f"You are the support assistant of {settings.company}. Be brief and accurate.\n{rules}\n"
                              "Never share internal notes with the customer.")

    def ask(self, question: str, history: list[dict]):
        return self.client.messages.create(
            model=self.settings.model,
            max_tokens=800,
            tools=self.tools,
            system=[{"type": "text", "text": self.system_prompt, "cache_control": {"type": "ephemeral"}}],
            messages=[*history, {"role": "user", "content": f"{question}\n\nToday: {date.today()}"}],
        )
