"""Prompt rendered from an inline Jinja template.

Planted defect: the render passes the current time, which the template prints first.
"""

from datetime import datetime

from jinja2 import Template
from openai import OpenAI

client = OpenAI()

SYSTEM_TEMPLATE = Template("""Now: {{ now }}
You are the release-notes writer of Corvina. Write notes for customers, not engineers:
group the changes under New, Improved and Fixed, one line each, in plain words, and leave
out internal refactorings, test changes and anything behind a feature flag.""")


def release_notes(changes: list[str]) -> str:
    system = SYSTEM_TEMPLATE.render(now=datetime.now().isoformat())
    response = client.chat.completions.create(
        model="gpt-4o-mini",
        messages=[{"role": "system", "content": system}, {"role": "user", "content": "\n".join(changes)}],
    )
    return response.choices[0].message.content
