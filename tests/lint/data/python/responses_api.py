"""Writing assistant on the OpenAI Responses API.

Planted defect: the instructions start with today's date.
"""

import time

from openai import OpenAI

client = OpenAI()

STYLE = ("You edit drafts for Corvina's blog. Keep the author's voice, fix grammar and clarity, cut filler, "
         "prefer active voice and short paragraphs, and never add facts, numbers or quotes that the draft "
         "does not contain. Return the edited draft only, in Markdown.")


def edit(draft: str) -> str:
    response = client.responses.create(
        model="gpt-4.1-mini",
        instructions="Today: " + time.strftime("%Y-%m-%d") + "\n" + STYLE,
        input=draft,
    )
    return response.output_text
