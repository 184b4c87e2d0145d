"""Sentiment classifier whose few-shot examples are chat turns placed before the system
message.

Planted defect: the example turns are shuffled on every call, so the prompt differs from
its first token.
"""

import random

from openai import OpenAI

client = OpenAI()

SYSTEM = ("You are a sentiment classifier. Answer with positive, negative or neutral only, in lower case, "
          "without punctuation or explanation, even when the text is ambiguous or sarcastic.")

EXAMPLE_TURNS = [
    [{"role": "user", "content": "I love the new dashboard"}, {"role": "assistant", "content": "positive"}],
    [{"role": "user", "content": "The export broke again"}, {"role": "assistant", "content": "negative"}],
    [{"role": "user", "content": "The invoice arrived on Tuesday"}, {"role": "assistant", "content": "neutral"}],
]


def classify(text: str) -> str:
    pairs = list(EXAMPLE_TURNS)
    random.shuffle(pairs)
    shots = [turn for pair in pairs for turn in pair]
    messages = [*shots, {"role": "system", "content": SYSTEM}, {"role": "user", "content": text}]
    response = client.chat.completions.create(model="gpt-4o-mini", messages=messages, max_tokens=2)
    return response.choices[0].message.content.strip()
