"""The JSON Schema of a workload spec (`advisor spec --schema`).

The schema documents the format and lets editors check a spec as it is typed; the loader
(``advisor.spec.load``) enforces the same rules plus those a schema cannot state (shares
that sum to one, k no larger than the corpus, unique section names) with one-line errors.
"""

from __future__ import annotations

import json
from typing import Any

from advisor.spec.model import (
    MAX_CONTEXT_TOKENS, MAX_NAME_BYTES, MAX_PAGE_SIZE, MAX_REQUESTS, MAX_SPAN_SECONDS, MAX_TENANTS, MAX_TP, MAX_VALUES,
    MIN_CLOCK_RESOLUTION, MIN_RATE, MIN_TOKENS,
)

# The bounds are advisor.spec.model's, the loader's: the schema states them, the loader enforces them.
_POSITIVE_INT = {"type": "integer", "minimum": 1}
_COUNT = {"type": "integer", "minimum": 1, "maximum": MAX_CONTEXT_TOKENS}
_VALUES = {"type": "integer", "minimum": 1, "maximum": MAX_VALUES}
# A section is some text and the blank line before the next section: two tokens at least.
_TOKENS = {"type": "integer", "minimum": MIN_TOKENS, "maximum": MAX_CONTEXT_TOKENS}

def _length(minimum: dict[str, Any], what: str) -> dict[str, Any]:
    return {
        "description": what + ": a number, a uniform range or a normal distribution.",
        "oneOf": [
            {**minimum},
            {"type": "object", "additionalProperties": False, "required": ["min", "max"],
             "properties": {"min": minimum, "max": minimum}},
            {"type": "object", "additionalProperties": False, "required": ["mean", "sd"],
             "description": "A normal, truncated six standard deviations above the mean (at most "
                            f"{MAX_CONTEXT_TOKENS:,} there).",
             "properties": {"mean": {"type": "number", "exclusiveMinimum": 0, "maximum": MAX_CONTEXT_TOKENS},
                            "sd": {"type": "number", "minimum": 0, "maximum": MAX_CONTEXT_TOKENS}}},
        ],
    }


LENGTH = _length(_TOKENS, "Tokens under the spec's tokenizer")

_SHARES = {"type": "array", "items": {"type": "number", "minimum": 0}, "minItems": 1,
           "description": "Fractions that sum to one."}

VARY: dict[str, Any] = {
    "description": "How the section's text varies between requests.",
    "oneOf": [
        {"enum": ["static", "tenant", "session", "request"]},
        {"type": "object", "additionalProperties": False, "required": ["variants"], "properties": {
            "variants": {"type": "object", "additionalProperties": False, "required": ["count"], "properties": {
                "count": _VALUES, "weights": _SHARES}}}},
        {"type": "object", "additionalProperties": False, "required": ["clock"], "properties": {
            "clock": {"type": "object", "additionalProperties": False, "required": ["resolution_seconds"],
                      "properties": {"resolution_seconds": {"type": "number", "minimum": MIN_CLOCK_RESOLUTION,
                                                            "maximum": MAX_SPAN_SECONDS}}}}},
        {"type": "object", "additionalProperties": False, "required": ["retrieved"], "properties": {
            "retrieved": {"type": "object", "additionalProperties": False, "required": ["documents", "k"],
                          "properties": {
                              "documents": _VALUES, "k": _VALUES,
                              "popularity": {"oneOf": [
                                  {"const": "uniform"},
                                  {"type": "object", "additionalProperties": False, "required": ["zipf"],
                                   "properties": {"zipf": {"type": "number", "exclusiveMinimum": 0,
                                                           "maximum": 100}}}]}}}}},
    ],
}

SECTION: dict[str, Any] = {
    "type": "object", "additionalProperties": False, "required": ["name", "tokens"],
    "properties": {
        "name": {"type": "string", "minLength": 1, "description": "Unique within the spec."},
        "tokens": {**LENGTH, "description": "Tokens of the section (of each passage, for retrieved)."},
        "vary": {**VARY, "default": "static"},
    },
}

MESSAGE: dict[str, Any] = {
    "type": "object", "additionalProperties": False, "required": ["role", "sections"],
    "properties": {
        "role": {"enum": ["system", "developer", "user", "assistant"]},
        "shuffle": {"type": "boolean", "default": False,
                    "description": "Sections in a random order per request (an unstable prompt assembler)."},
        "sections": {"type": "array", "minItems": 1, "items": SECTION},
    },
}

SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "advisor workload spec",
    "description": "A prompt workload described before there are logs: the prompt's ordered sections, "
                   "their token lengths and variability, tenants, conversations, arrivals and serving.",
    "type": "object", "additionalProperties": False, "required": ["name", "messages"],
    "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": MAX_NAME_BYTES, "pattern": "^[^/\\\\\u0000]+$",
                 "description": "Names the generated files: a plain file name."},
        "description": {"type": "string"},
        "requests": {**_POSITIVE_INT, "maximum": MAX_REQUESTS, "default": 1000},
        "seed": {"type": "integer", "default": 0},
        "tokenizer": {"type": "string", "default": "llama3"},
        "model": {"type": "string", "default": "llama-3.1-8b"},
        "gpu": {"type": "string", "default": "h100"},
        "engine": {"type": "object", "additionalProperties": False, "properties": {
            "name": {"enum": ["sglang", "vllm"], "default": "sglang"},
            "page_size": {**_POSITIVE_INT, "maximum": MAX_PAGE_SIZE, "default": 1},
            "tp": {**_POSITIVE_INT, "maximum": MAX_TP, "default": 1},
            "kv_dtype": {"enum": ["bf16", "fp8"], "default": "bf16"}}},
        "arrival": {"type": "object", "additionalProperties": False, "properties": {
            "rate": {"type": "number", "minimum": MIN_RATE, "default": 10,
                     "description": "Requests per second (Poisson arrivals)."},
            "timestamps": {"type": "boolean", "default": True,
                           "description": "Write each request's arrival time; false: an offline batch in "
                                          "arrival order, without times (simulated in replay mode)."}}},
        "tenants": {"type": "object", "additionalProperties": False, "properties": {
            "count": {**_POSITIVE_INT, "maximum": MAX_TENANTS},
            "names": {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1,
                      "maxItems": MAX_TENANTS},
            "shares": _SHARES}},
        "conversation": {"type": "object", "additionalProperties": False, "required": ["turns"], "properties": {
            "turns": _length(_COUNT, "Requests per session"),
            "think_seconds": {"type": "number", "minimum": 0, "maximum": MAX_SPAN_SECONDS, "default": 30},
            "append": {"type": "array", "items": MESSAGE,
                       "description": "Messages each later turn appends after the assistant's answer."}}},
        "output_tokens": {**_length(_COUNT, "Output tokens per request"), "default": 128},
        "messages": {"type": "array", "minItems": 1, "items": MESSAGE},
    },
}


def schema_json() -> str:
    return json.dumps(SCHEMA, indent=2) + "\n"
