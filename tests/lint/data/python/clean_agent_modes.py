"""Coding agent of the Forge team, done right: all tools or none, languages in one order,
the history before a long last message, a batch with each row at its end.

Nothing at warning level or above: choosing between all tools and none (the SDK's
NOT_GIVEN, an empty list) keeps one tool list per mode; the set of languages is sorted with a
key that ends with the item; the earlier turns are the conversation; each prompt of the
batch keeps the shared instructions first.
"""

import openai
from openai import NOT_GIVEN, OpenAI
from dataclasses import dataclass, field
from vllm import LLM

client = OpenAI()
llm = LLM(model="Qwen/Qwen2.5-Coder-7B-Instruct")

LANGUAGES = {"python", "go", "rust", "typescript"}

RULES = """You are Forge, a coding agent working inside a git repository. Read the relevant
files and the tests that cover them before editing. Prefer small, focused diffs in the style
of the surrounding code, run the tests after every change, and never touch files outside the
working tree. When you are done, summarise what changed and what remains open."""

TOOLS = [
    {"type": "function", "function": {"name": "read_file", "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}},
    {"type": "function", "function": {"name": "run_tests", "parameters": {"type": "object", "properties": {}}}},
]

SYSTEM_PROMPT = "Languages you may edit: " + ", ".join(sorted(LANGUAGES, key=lambda name: (len(name), name))) + ".\n" + RULES


@dataclass
class Job:
    repo: str
    mode: str = field(default="review")


def step(task: str, agent_mode: bool):
    return client.chat.completions.create(
        model="gpt-4.1",
        messages=[{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": task}],
        tools=TOOLS if agent_mode else NOT_GIVEN,
    )


def step_plain(task: str, agent_mode: bool):
    tools = []
    if agent_mode:
        tools = TOOLS
    return client.chat.completions.create(
        model="gpt-4.1",
        messages=[{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": task}],
        tools=tools or openai.NOT_GIVEN,
    )


def follow_up(task: str, history: list[dict]):
    messages = [{"role": "system", "content": SYSTEM_PROMPT}, *history]
    messages.append({"role": "user", "content": RULES + "\n\nNext task: " + task})
    return client.chat.completions.create(model="gpt-4.1", messages=messages)


def review_batch(jobs: list[Job], diffs: list[str]):
    prompts = []
    for diff in diffs:
        prompts.append(f"{RULES}\n\nReview this diff:\n{diff}")
    return llm.generate(prompts)
