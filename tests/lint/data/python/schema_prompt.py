"""Structured extraction: the output schema is built from the fields a request asks for.

Planted defect: the schema dict is built in the request's field order and serialized
without sorted keys, before the long extraction instructions.
"""

import json

from openai import OpenAI

client = OpenAI()

EXTRACTION_RULES = """Extract the requested fields from the document. Return one JSON object
that matches the schema exactly: no extra keys, no comments, no trailing text. Use null for a
field the document does not state; never infer a value from context. Dates are ISO 8601,
amounts are numbers without currency symbols, and names keep the spelling of the document."""


def build_schema(fields: list[dict]) -> dict:
    schema = {"type": "object", "properties": {}, "required": []}
    for field in fields:
        schema["properties"][field["name"]] = {"type": field["type"], "description": field.get("description", "")}
        schema["required"].append(field["name"])
    return schema


def extract(document: str, fields: list[dict]) -> str:
    schema = build_schema(fields)
    system = f"Schema:\n{json.dumps(schema, indent=2)}\n\n{EXTRACTION_RULES}"
    response = client.chat.completions.create(
        model="gpt-4o-mini",
        messages=[{"role": "system", "content": system}, {"role": "user", "content": document}],
        response_format={"type": "json_object"},
    )
    return response.choices[0].message.content
