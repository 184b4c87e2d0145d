"""Writing assistant on the OpenAI Responses API with fixed instructions."""

import time

from openai import OpenAI

client = OpenAI()

STYLE = ("You edit drafts for Corvina's blog. Keep the author's voice, fix grammar and clarity, cut filler, "
         "prefer active voice and short paragraphs, and never add facts that the draft does not contain.")


def edit(draft: str, author: str) -> str:
    started = time.time()
    response = client.responses.create(model="gpt-4.1-mini", instructions=STYLE,
                                       input=f"Author: {author}\nDate: {time.strftime('%Y-%m-%d')}\n\n{draft}")
    print(f"edited in {time.time() - started:.1f}s")
    return response.output_text
