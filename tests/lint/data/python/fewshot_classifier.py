"""Ticket classifier with few-shot examples.

Planted defect: the examples are shuffled on every call ("so the model does not learn the
order"), and they sit in the system prompt before the instructions.
"""

import random

from openai import OpenAI

client = OpenAI()

EXAMPLES = [
    ("My invoice shows the wrong VAT rate.", "billing"),
    ("The export to DATEV fails with error 502.", "integrations"),
    ("How do I add a second user to my account?", "account"),
    ("I was charged twice this month.", "billing"),
    ("Can I change the invoice template's logo?", "invoicing"),
]

INSTRUCTIONS = ("Classify the customer's ticket into exactly one of: billing, invoicing, integrations, account, other. "
                "Answer with the label only, in lower case, with no punctuation and no explanation.")


def classify(ticket: str) -> str:
    examples = list(EXAMPLES)
    random.shuffle(examples)
    shots = "\n".join(f"Ticket: {text}\nLabel: {label}" for text, label in examples)
    system = f"Examples:\n{shots}\n\n{INSTRUCTIONS}"
    response = client.chat.completions.create(
        model="gpt-4o-mini",
        messages=[{"role": "system", "content": system}, {"role": "user", "content": ticket}],
    )
    return response.choices[0].message.content.strip()
