"""Structured extraction with a per-request schema: the rules come first, and the schema,
serialized with sorted keys, is part of the user message."""

import json

from openai import OpenAI

client = OpenAI()

EXTRACTION_RULES = """Extract the requested fields from the document. Return one JSON object
that matches the schema exactly: no extra keys, no comments, no trailing text. Use null for a
field the document does not state; never infer a value from context."""

OUTPUT_SCHEMA = {"type": "object", "properties": {"vendor": {"type": "string"}, "total": {"type": "number"}}}


def build_schema(fields: list[dict]) -> dict:
    schema = {"type": "object", "properties": {}, "required": []}
    for field in fields:
        schema["properties"][field["name"]] = {"type": field["type"]}
        schema["required"].append(field["name"])
    return schema


def extract(document: str, fields: list[dict]) -> str:
    schema = json.dumps(build_schema(fields), indent=2, sort_keys=True)
    system = f"{EXTRACTION_RULES}\n\nDefault schema:\n{json.dumps(OUTPUT_SCHEMA)}"
    response = client.chat.completions.create(
        model="gpt-4o-mini",
        messages=[{"role": "system", "content": system},
                  {"role": "user", "content": f"Schema:\n{schema}\n\nDocument:\n{document}"}],
        response_format={"type": "json_object"},
    )
    return response.choices[0].message.content
