"""Nightly jobs of the Halden research desk: portfolio summaries on a vLLM engine, client
letters on a completions endpoint, and an ad-hoc note with the caller's preferences.

Planted defects: the time opens every prompt of the vLLM batch (built with a loop and
append); a greeting drawn at random opens every prompt of the letters batch (filled by
index); the preferences (keyword arguments, in the caller's order) open the note's system
prompt, written with str().
"""

import random
from datetime import datetime

from openai import OpenAI
from vllm import LLM, SamplingParams

llm = LLM(model="meta-llama/Llama-3.1-8B-Instruct")
client = OpenAI()

GREETINGS = ["Dear client,", "Hello,", "Good morning,"]

DESK_RULES = """You write for the research desk of Halden Capital. Every figure must come from
the data below, with its as-of date. Past performance is not a reliable indicator of future
results: say so whenever you mention a return. Flag any single issuer above ten percent of a
portfolio, and keep each section under one hundred and fifty words."""


def summaries(portfolios: list[str]):
    prompts = []
    for portfolio in portfolios:
        prompts.append(f"Run of {datetime.now():%H:%M}.\n{DESK_RULES}\n\nPortfolio:\n{portfolio}")
    return llm.generate(prompts, SamplingParams(max_tokens=400))


def letters(clients: list[str]):
    prompts = [""] * len(clients)
    for i, name in enumerate(clients):
        prompts[i] = f"{random.choice(GREETINGS)}\n{DESK_RULES}\n\nLetter for {name}:"
    return client.completions.create(model="gpt-3.5-turbo-instruct", prompt=prompts, max_tokens=300)


def note(topic: str, **preferences):
    system = "Preferences: " + str(preferences) + "\n" + DESK_RULES
    return client.chat.completions.create(
        model="gpt-4.1-mini", messages=[{"role": "system", "content": system}, {"role": "user", "content": topic}])
