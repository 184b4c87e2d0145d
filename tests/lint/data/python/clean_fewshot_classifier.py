"""Ticket classifier with few-shot examples in a fixed order (a seeded shuffle made once)."""

import random

from openai import OpenAI

client = OpenAI()

EXAMPLES = [
    ("My invoice shows the wrong VAT rate.", "billing"),
    ("The export to DATEV fails with error 502.", "integrations"),
    ("How do I add a second user to my account?", "account"),
    ("I was charged twice this month.", "billing"),
]

INSTRUCTIONS = ("Classify the customer's ticket into exactly one of: billing, invoicing, integrations, account, other. "
                "Answer with the label only, in lower case.")


def few_shot_block() -> str:
    examples = list(EXAMPLES)
    random.Random(7).shuffle(examples)  # the same order on every call and in every process
    return "\n".join(f"Ticket: {text}\nLabel: {label}" for text, label in examples)


def classify(ticket: str, retries: int = 2) -> str:
    system = f"{INSTRUCTIONS}\n\nExamples:\n{few_shot_block()}"
    for attempt in range(retries + 1):
        response = client.chat.completions.create(
            model="gpt-4o-mini",
            temperature=0.0 if attempt == 0 else 0.3,
            messages=[{"role": "system", "content": system}, {"role": "user", "content": ticket}],
        )
        label = response.choices[0].message.content.strip()
        if label in {"billing", "invoicing", "integrations", "account", "other"}:
            return label
    return "other"
