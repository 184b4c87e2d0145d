"""Prompts rendered from Jinja templates: per-request values are the templates' business
(their own lint), and the time goes at the end of the one inline template that uses it."""

from datetime import datetime

from jinja2 import Environment, FileSystemLoader, Template
from openai import OpenAI

client = OpenAI()
env = Environment(loader=FileSystemLoader("prompts"), autoescape=False)

FOOTER = Template("""Write the notes for customers, not engineers, grouped under New, Improved
and Fixed, one line each.
Generated: {{ now }}""")


def release_notes(changes: list[str], product: str) -> str:
    system = env.get_template("release_notes.j2").render(product=product)
    user = FOOTER.render(now=datetime.now().isoformat())
    response = client.chat.completions.create(
        model="gpt-4o-mini",
        messages=[{"role": "system", "content": system}, {"role": "user", "content": user + "\n" + "\n".join(changes)}],
    )
    return response.choices[0].message.content
